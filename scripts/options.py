#!/usr/bin/env python3
"""Write the option flags where Python and the docs list them, from the core's list.

The core (src/opt.rs: ``ALL`` and ``ENTRY_POINTS``, exported as ``_OPTIONS`` and
``_OPTION_MASKS``) is the one list of options and of the entry points that accept each.
``fastmsgpack.__all__`` and ``fastmsgpack.json.__all__`` are built from it at import time; this
script writes what cannot be built at run time:

- the ``OPT_*`` lines of ``__all__`` and the ``OPT_*: int`` declarations of
  python/fastmsgpack/__init__.pyi and _fastmsgpack.pyi (every option) and
  python/fastmsgpack/json.pyi (the options that ``json.dumps`` or ``json.from_msgpack`` accept);
- the option table of doc/options.md (a yes/no column per entry point) and the table of
  README.md (which entry points accept each option). Text after the yes or no of a cell, and the
  "meaning" column of README.md, are kept; an option new to README.md gets a link to its section
  of doc/options.md as its meaning.

Usage: scripts/options.py [--check]
  (run it with the interpreter of .venv, where fastmsgpack is built)

  --check   change nothing; exit 1 and name the files that are not up to date

tests/test_options_listed.py runs the check.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_ALL_ITEM = re.compile(r'    "OPT_\w+",')
_DECLARATION = re.compile(r"OPT_\w+: int")
_ROW_NAME = re.compile(r"`(OPT_\w+)`")


def core_options() -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """The core's options (name, bit) and entry points (name, accepted bits), in its order."""
    from fastmsgpack import _fastmsgpack as core

    return list(core._OPTIONS), list(core._OPTION_MASKS)


def json_options(
    options: list[tuple[str, int]], entry_points: list[tuple[str, int]]
) -> list[tuple[str, int]]:
    """The options that fastmsgpack.json exports: those of ``json.dumps`` and ``json.from_msgpack``."""
    mask = 0
    for entry, bits in entry_points:
        if entry.startswith("json."):
            mask |= bits
    return [(name, bit) for name, bit in options if bit & mask]


def _replace_run(lines: list[str], pattern: re.Pattern[str], new: list[str], where: str) -> None:
    """Replaces the one run of consecutive lines that match ``pattern`` with ``new``."""
    found = [i for i, line in enumerate(lines) if pattern.fullmatch(line)]
    if not found:
        raise SystemExit(f"scripts/options.py: {where} has no line like {pattern.pattern!r}")
    start, end = found[0], found[-1] + 1
    if found != list(range(start, end)):
        raise SystemExit(f"scripts/options.py: the {pattern.pattern!r} lines of {where} are split")
    lines[start:end] = new


def render_stub(text: str, names: list[str], where: str, has_all: bool = True) -> str:
    """A stub with its ``OPT_*`` entries of ``__all__`` (if ``has_all``) and declarations for
    ``names``."""
    lines = text.split("\n")
    names = sorted(names)
    if has_all:
        _replace_run(lines, _ALL_ITEM, [f'    "{name}",' for name in names], where)
    _replace_run(lines, _DECLARATION, [f"{name}: int" for name in names], where)
    return "\n".join(lines)


def _table(lines: list[str], header: str, where: str) -> tuple[int, int]:
    """The line range of the table under the line ``header`` (its header and rule excluded)."""
    try:
        start = lines.index(header) + 2
    except ValueError:
        raise SystemExit(f"scripts/options.py: {where} has no table headed {header!r}") from None
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return start, end


def _rows_by_name(lines: list[str]) -> dict[str, list[str]]:
    rows = {}
    for line in lines:
        found = _ROW_NAME.search(line)
        if found:
            rows[found[1]] = [cell.strip() for cell in line.strip().strip("|").split("|")]
    return rows


def render_options_md(
    text: str, options: list[tuple[str, int]], entry_points: list[tuple[str, int]]
) -> str:
    """doc/options.md with its table of options and entry points made from the core's list."""
    lines = text.split("\n")
    header = "| option | " + " | ".join(f"`{e}`" for e, _ in entry_points) + " |"
    start, end = _table(lines, header, "doc/options.md")
    old = _rows_by_name(lines[start:end])
    rows = []
    for name, bit in options:
        cells = [f"[`{name}`](#{name.lower()})"]
        for i, (_, mask) in enumerate(entry_points):
            word = "yes" if bit & mask else "no"
            kept = old.get(name, [])
            cell = kept[i + 1] if i + 1 < len(kept) else ""
            cells.append(cell if cell.split(" ", 1)[0] == word else word)
        rows.append("| " + " | ".join(cells) + " |")
    lines[start:end] = rows
    return "\n".join(lines)


def render_readme(
    text: str, options: list[tuple[str, int]], entry_points: list[tuple[str, int]]
) -> str:
    """README.md with its table of options made from the core's list (meanings kept)."""
    lines = text.split("\n")
    start, end = _table(lines, "| option | applies to | meaning |", "README.md")
    old = _rows_by_name(lines[start:end])
    rows = []
    for name, bit in options:
        takes = [entry for entry, mask in entry_points if bit & mask]
        kept = old.get(name)
        if (
            kept is not None
            and len(kept) == 3
            and sorted(re.findall(r"`([\w.]+)`", kept[1])) == sorted(takes)
        ):
            applies = kept[1]
        else:
            applies = ", ".join(f"`{entry}`" for entry in takes)
        meaning = (
            kept[2]
            if kept is not None and len(kept) == 3
            else f"see [doc/options.md](doc/options.md#{name.lower()})"
        )
        rows.append(f"| `{name}` | {applies} | {meaning} |")
    lines[start:end] = rows
    return "\n".join(lines)


def outputs() -> dict[Path, Callable[[str], str]]:
    """Each generated file, with the function that makes its text from its current text."""
    options, entry_points = core_options()
    names = [name for name, _ in options]
    json_names = [name for name, _ in json_options(options, entry_points)]
    package = ROOT / "python" / "fastmsgpack"
    return {
        package / "__init__.pyi": lambda t: render_stub(t, names, "__init__.pyi"),
        package / "json.pyi": lambda t: render_stub(t, json_names, "json.pyi"),
        package / "_fastmsgpack.pyi": lambda t: render_stub(t, names, "_fastmsgpack.pyi", False),
        ROOT / "doc" / "options.md": lambda t: render_options_md(t, options, entry_points),
        ROOT / "README.md": lambda t: render_readme(t, options, entry_points),
    }


def stale() -> list[Path]:
    """The generated files whose text is not what the core's list makes."""
    return [
        path for path, render in outputs().items() if render(path.read_text()) != path.read_text()
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="change nothing, report stale files")
    args = parser.parse_args()
    if args.check:
        paths = stale()
        for path in paths:
            print(
                f"{path.relative_to(ROOT)} is not up to date: run scripts/options.py",
                file=sys.stderr,
            )
        return 1 if paths else 0
    for path, render in outputs().items():
        text = path.read_text()
        new = render(text)
        if new != text:
            path.write_text(new)
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
