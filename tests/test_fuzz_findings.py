"""Replays the inputs scripts/fuzz found (tests/data/fuzz-findings/, one file per input, named by
its SHA-1) through the fuzzer's own checks, scripts/fuzz_checks.py: each test fails until the
fault it found is fixed.

So that these tests assert behaviour even while there are no findings, the same checks also run
over the fuzzer's whole seed corpus (every msgpack-test-suite encoding, msgpack-c's cases, fuzz
corpus and regressions, the shamaton crashers, pieces of the fixtures, generated documents), each
seed with several headers that together select every option and ext_hook mode.
"""

from __future__ import annotations

import collections
import hashlib
import importlib
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import repeated_share

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
sys.path.insert(0, str(SCRIPTS))
# Imported by name: scripts/ is not a package, and mypy checks the module with scripts/*.py.
fuzz_checks: Any = importlib.import_module("fuzz_checks")

FINDINGS_DIR: Path = fuzz_checks.FINDINGS_DIR
FINDINGS = sorted(FINDINGS_DIR.iterdir()) if FINDINGS_DIR.is_dir() else []


@pytest.mark.parametrize("path", FINDINGS, ids=lambda path: path.name[:12])
def test_finding(path: Path) -> None:
    fuzz_checks.check_input(path.read_bytes())


def test_findings_are_named_by_their_sha1() -> None:
    for path in FINDINGS:
        assert path.name == hashlib.sha1(path.read_bytes()).hexdigest(), path


SEEDS: dict[str, list[bytes]] = collections.defaultdict(list)
for _group, _raw in fuzz_checks.seed_inputs():
    SEEDS[_group].append(_raw)


def test_seed_corpus_covers_the_data() -> None:
    # Every source in tests/data, and the generated documents, with each header.
    headers = len(fuzz_checks.SEED_HEADERS)
    counts = {group: len(inputs) // headers for group, inputs in SEEDS.items()}
    assert counts["msgpack-test-suite"] == 233
    assert counts["shamaton-msgpack-crashers"] == 104
    assert counts["msgpack-c"] >= 2 + 2 * 51 + 5 + 2
    assert counts["fixtures"] >= 10
    assert counts["generated"] >= 50


def _shards() -> list[tuple[str, int, int]]:
    # Each group in pieces of at most 512 KiB or 400 inputs, so that pytest-xdist's workers share
    # the larger groups (the generated documents are some 4.5 MB). A repeated run on another
    # interpreter replays a third of the pieces (conftest.repeated_share).
    shards = []
    for group in sorted(SEEDS):
        start = size = 0
        for index, raw in enumerate(SEEDS[group]):
            if index > start and (size + len(raw) > 512 * 1024 or index - start >= 400):
                shards.append((group, start, index))
                start, size = index, 0
            size += len(raw)
        shards.append((group, start, len(SEEDS[group])))
    return repeated_share(shards)


@pytest.mark.parametrize(
    ("group", "start", "stop"), _shards(), ids=lambda v: str(v) if isinstance(v, str) else None
)
def test_seed_corpus(group: str, start: int, stop: int) -> None:
    failures = []
    for raw in SEEDS[group][start:stop]:
        try:
            fuzz_checks.check_input(raw)
        except fuzz_checks.Finding as finding:
            failures.append(f"{fuzz_checks.Case.parse(raw).describe()[:200]}: {finding}")
    assert not failures, f"{len(failures)} of {stop - start} failed:\n" + "\n".join(failures[:20])


def test_checks_catch_a_wrong_value(monkeypatch: pytest.MonkeyPatch) -> None:
    # The checks are not vacuous: a decoder that returns a wrong value, or raises the wrong
    # exception, is caught.
    import fastmsgpack

    unpackb = fastmsgpack.unpackb

    def off_by_one(data: Any, **kwargs: Any) -> Any:
        value = unpackb(data, **kwargs)
        return value + 1 if type(value) is int else value

    monkeypatch.setattr(fastmsgpack, "unpackb", off_by_one)
    with pytest.raises(fuzz_checks.Finding, match=r"^\[decoders\] unpack\(BytesIO\) gave value 5"):
        fuzz_checks.check_input(b"\x00\x05")

    def index_error(data: Any, **kwargs: Any) -> Any:
        raise IndexError("not a decode error")

    monkeypatch.setattr(fastmsgpack, "unpackb", index_error)
    with pytest.raises(fuzz_checks.Finding, match=r"\[exception\]"):
        fuzz_checks.check_input(b"\x00\x05")
