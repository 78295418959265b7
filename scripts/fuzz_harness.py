"""The atheris (libFuzzer) harness behind scripts/fuzz: runs fuzz_checks.check_input on every
input, and writes the seed corpus and a libFuzzer dictionary.

Usage:
    python scripts/fuzz_harness.py [--native] seeds CORPUS_DIR DICT_FILE
    python scripts/fuzz_harness.py [--native] fuzz FINDINGS_LOG [--per-check N]
        [--findings-dir DIR] -- LIBFUZZER_ARGS...

--native: fastmsgpack's extension module is built with libFuzzer's coverage instrumentation
(scripts/fuzz --native), so that libFuzzer sees which Rust code each input runs.

`seeds` writes every seed input (fuzz_checks.seed_inputs, named by their SHA-1) into CORPUS_DIR
and a dictionary of MessagePack headers and raw-array keys into DICT_FILE.

`fuzz` hands LIBFUZZER_ARGS to libFuzzer. An input on which a check fails does not stop the run:
it is saved to DIR/<SHA-1 of the input> (DIR is tests/data/fuzz-findings unless given; at most N
inputs, default 3, per kind of failure, fuzz_checks.Finding.signature, in one run) and a line
"<SHA-1>\\t<signature>\\t<detail>" is appended to FINDINGS_LOG. Anything else that goes wrong on an
input (a crash, a hang, running out of memory, an exception from the checks themselves) stops
libFuzzer, which writes the input under its -artifact_prefix; scripts/fuzz saves those too.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Imported first, so that only fastmsgpack's Python code and the checks are instrumented.
import msgpack  # type: ignore[import-untyped]  # noqa: F401
import numpy  # noqa: F401

# atheris has no type information; importing it by name keeps mypy out of it.
atheris: Any = importlib.import_module("atheris")

if TYPE_CHECKING:
    import fuzz_checks  # noqa: TC004 (at run time, import_checks imports it)


def import_checks(*, instrument_checks: bool = True) -> None:
    """Import fuzz_checks, and with it fastmsgpack, instrumenting their Python code (the checks'
    only with `instrument_checks`).

    With --native, the import waits for the first input (see make_libfuzzer_global), and the
    checks are not instrumented: the coverage of the Rust code guides libFuzzer, and instrumented
    checks would take most of the time.
    """
    global fuzz_checks
    include = (
        ["fastmsgpack", "fuzz_checks", "fuzz_typed", "fuzz_configs"]
        if instrument_checks
        else ["fastmsgpack"]
    )
    with atheris.instrument_imports(include=include):
        import fuzz_checks


# libFuzzer dictionary entries: type markers with their length fields, and the keys and values
# of numpy raw arrays (doc/numpy.md).
DICTIONARY: list[bytes] = [
    b"\xc4\x02nd",
    b"\xc4\x04type",
    b"\xc4\x04kind",
    b"\xc4\x05shape",
    b"\xc4\x04data",
    b"\xc4\x00",
    b"\xa3<f8",
    b"\xa3>i2",
    b"\xa3|b1",
    b"\xa3<U3",
    b"\xa7<M8[ns]",
    b"\xa6<m8[s]",
    b"\xd6\xff",
    b"\xd7\xff",
    b"\xc7\x0c\xff",
    b"\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00",
    b"\xca\x7f\xc0\x00\x00",
    b"\xcf\xff\xff\xff\xff\xff\xff\xff\xff",
    b"\xd3\x80\x00\x00\x00\x00\x00\x00\x00",
    b"\xdc\xff\xff",
    b"\xdd\xff\xff\xff\xff",
    b"\xde\xff\xff",
    b"\xdf\xff\xff\xff\xff",
    b"\xda\xff\xff",
    b"\xdb\xff\xff\xff\xff",
    b"\xc6\xff\xff\xff\xff",
    b"\xc9\xff\xff\xff\xff",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    # OPT_EXACT's extension codes (doc/exact.md) with their usual lengths, and a zone key.
    b"\xc7\x03\x80\x92",
    b"\xd5\x81\x91",
    b"\xd5\x82\x91",
    b"\xc7\x09\x83",
    b"\xd8\x84",
    b"\xc7\x0c\x85",
    b"\xc7\x0d\x85",
    b"\xd6\x86",
    b"\xd7\x87",
    b"\xc7\x0c\x88",
    b"\xd8\x89",
    b"\xc7\x08\x8a",
    b"\xd5\x8b",
    b"\xc7\x1c\x8c\x83\xc4\x02nd",
    b"\x03Europe/Paris",
    # Registered codes of scripts/fuzz_configs.py, each holding a value (an array, another).
    b"\xd5\x07\x91",
    b"\xc7\x03\x01\x91",
    b"\xc9\x00\x00\x00\x05\x2a",
]


def dictionary_line(entry: bytes) -> str:
    return '"' + "".join(f"\\x{b:02x}" for b in entry) + '"'


def write_seeds(corpus: Path, dictionary: Path) -> None:
    corpus.mkdir(parents=True, exist_ok=True)
    count = 0
    for _group, raw in fuzz_checks.seed_inputs():
        (corpus / fuzz_checks.sha1_name(raw)).write_bytes(raw)
        count += 1
    dictionary.write_text("".join(dictionary_line(entry) + "\n" for entry in DICTIONARY))
    print(f"wrote {count} seed inputs to {corpus} and a dictionary to {dictionary}")


class Recorder:
    """Saves the inputs that fail a check, a few per kind of failure."""

    def __init__(self, directory: Path | None, log: Path, per_check: int) -> None:
        self.directory = directory
        self.log = log
        self.per_check = per_check
        self.seen: collections.Counter[str] = collections.Counter()
        self.saved: set[str] = set()

    def test_one_input(self, raw: bytes) -> None:
        if "fuzz_checks" not in globals():
            import_checks(instrument_checks=False)
        try:
            fuzz_checks.check_input(raw)
        except fuzz_checks.Finding as finding:
            self.record(raw, finding)

    def record(self, raw: bytes, finding: fuzz_checks.Finding) -> None:
        signature = finding.signature
        name = fuzz_checks.sha1_name(raw)
        if name in self.saved or self.seen[signature] >= self.per_check:
            return
        self.seen[signature] += 1
        self.saved.add(name)
        directory = self.directory or fuzz_checks.FINDINGS_DIR
        directory.mkdir(parents=True, exist_ok=True)
        (directory / name).write_bytes(raw)
        detail = " ".join(finding.detail.split())
        with self.log.open("a", encoding="utf-8") as f:
            f.write(f"{name}\t{signature}\t{detail}\n")
        print(
            f"\n*** finding {name} ({signature}): {detail[:500]}\n"
            f"    {fuzz_checks.Case.parse(raw).describe()[:500]}\n",
            file=sys.stderr,
            flush=True,
        )


def make_libfuzzer_global() -> None:
    """With --native, fastmsgpack's extension module is built with SanitizerCoverage
    instrumentation (scripts/fuzz --native), and loading it needs libFuzzer's hooks, which the
    atheris module that holds libFuzzer exports to modules loaded after it only if it is loaded
    with RTLD_GLOBAL."""
    sys.setdlopenflags(sys.getdlopenflags() | os.RTLD_GLOBAL)


def preload_libfuzzer() -> None:
    """Load the atheris module that holds libFuzzer, for its hooks alone, so that the
    instrumented extension module can be imported without fuzzing (--native seeds)."""
    spec = importlib.util.find_spec("atheris.core_with_libfuzzer")
    if spec is None or spec.origin is None:
        raise SystemExit("atheris has no core_with_libfuzzer module")
    ctypes.CDLL(spec.origin, mode=os.RTLD_GLOBAL | os.RTLD_NOW)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--native",
        action="store_true",
        help="fastmsgpack's extension module has libFuzzer's coverage instrumentation",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    seeds = commands.add_parser("seeds", help="write the seed corpus and the dictionary")
    seeds.add_argument("corpus", type=Path)
    seeds.add_argument("dictionary", type=Path)
    fuzz = commands.add_parser("fuzz", help="run libFuzzer")
    fuzz.add_argument("log", type=Path, help="where to append a line per saved finding")
    fuzz.add_argument("--per-check", type=int, default=3, metavar="N")
    fuzz.add_argument("--findings-dir", type=Path, metavar="DIR")
    # libFuzzer's arguments, after "--", are split off here: argparse cannot tell them apart.
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    libfuzzer_args = argv[split + 1 :]
    if args.command == "seeds":
        if args.native:
            preload_libfuzzer()
        import_checks()
        write_seeds(args.corpus, args.dictionary)
        return 0
    if args.native:
        # atheris loads libFuzzer when fuzzing starts; the first input imports the checks.
        make_libfuzzer_global()
    else:
        import_checks()
    recorder = Recorder(args.findings_dir, args.log, args.per_check)
    atheris.Setup([sys.argv[0], *libfuzzer_args], recorder.test_one_input)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main())
