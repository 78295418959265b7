#!/usr/bin/env python3
"""Write what README.md can take from the code: the signatures in the headings of its API
section (from the built module, as ``inspect.signature`` gives them) and its list of extras (from
``[project.optional-dependencies]`` in pyproject.toml).

A heading ``### `NAME(...) -> RESULT` `` keeps its ``-> RESULT``; only the part in parentheses is
written. The extras sentence is the one that starts "The extras are".

Usage: scripts/readme_api.py [--check]
  (run it with the interpreter of .venv, where fastmsgpack is built)

  --check   change nothing; exit 1 if README.md is not up to date

tests/test_readme.py runs the check.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

_HEADING = re.compile(r"^### `(\w+)\((.*?)\)((?: -> [^`]*)?)`(.*)$", re.MULTILINE)
_EXTRAS = re.compile(r"The extras are (`[\w-]+`(?:,\s+`[\w-]+`)*,?\s+and\s+`[\w-]+`)", re.DOTALL)


def signature(name: str) -> str:
    """The parameters of fastmsgpack's NAME (without annotations), as in a heading."""
    import fastmsgpack

    params = inspect.signature(getattr(fastmsgpack, name)).parameters.values()
    parts: list[str] = []
    slash = star = False
    for p in params:
        if p.kind is p.POSITIONAL_ONLY:
            slash = True
        elif slash:
            parts.append("/")
            slash = False
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        default = "" if p.default is p.empty else f"={p.default!r}"
        parts.append(f"{p.name}{default}")
    if slash:
        parts.append("/")
    return ", ".join(parts)


def extras() -> list[str]:
    """The names of pyproject.toml's extras, in their order."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    return re.findall(r"^([\w-]+)\s*=", section, re.MULTILINE)


def written(readme: str) -> str:
    """README.md's text with the headings and the extras as the code says."""

    def heading(m: re.Match[str]) -> str:
        return f"### `{m.group(1)}({signature(m.group(1))}){m.group(3)}`{m.group(4)}"

    text = _HEADING.sub(heading, readme)
    names = [f"`{name}`" for name in extras()]
    listed = ", ".join(names[:-1]) + f" and {names[-1]}"
    text, found = _EXTRAS.subn(lambda m: "The extras are " + _wrap_free(listed, m.group(1)), text)
    if found != 1:
        raise SystemExit("README.md: no sentence starting 'The extras are' found")
    return text


def _wrap_free(new: str, old: str) -> str:
    """``new``, with line breaks where ``old`` had them as far as it goes (keeps the
    paragraph's wrapping when nothing changed)."""
    return old if re.sub(r"\s+", " ", old) == new else new


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    old = README.read_text(encoding="utf-8")
    new = written(old)
    if new == old:
        return 0
    if args.check:
        print("README.md is not up to date: run scripts/readme_api.py", file=sys.stderr)
        return 1
    README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
