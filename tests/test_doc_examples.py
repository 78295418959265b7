"""Every ```python block of README.md and doc/*.md runs, so the docs show what the code does.

The blocks of one page run in order in one module namespace (a later block may use what an
earlier one defined), in a fresh temporary working directory. A line ending in
``# raises SomeError`` must raise that exception (or a subclass), as the comment tells the reader.
"""

from __future__ import annotations

import os
import re
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "doc").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
RAISES = re.compile(r"^(\s*)(\S.*?)\s*# raises (\w+)\b.*$")


def blocks(page: Path) -> list[tuple[int, str]]:
    text = page.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 2, m.group(1)) for m in BLOCK.finditer(text)]


@contextmanager
def raises_named(name: str) -> Iterator[None]:
    """Expects an exception whose class, or one of its bases, is called ``name``."""
    try:
        yield
    except BaseException as exc:
        if any(cls.__name__ == name for cls in type(exc).__mro__):
            return
        raise AssertionError(f"expected {name}, got {type(exc).__name__}: {exc}") from exc
    raise AssertionError(f"expected {name}, nothing was raised")


def with_raises(source: str) -> str:
    """The block with each ``stmt  # raises E`` line run under ``raises_named("E")``, keeping
    line numbers."""
    out = []
    for line in source.splitlines():
        m = RAISES.match(line)
        if m:
            indent, stmt, name = m.groups()
            line = f"{indent}with __raises_named({name!r}): {stmt}"
        out.append(line)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p)], ids=lambda p: p.name)
def test_page_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    # A real module, so that dataclasses and pickling find the classes the examples define.
    module = types.ModuleType(f"doc_example_{page.stem}")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    module.__dict__["__raises_named"] = raises_named
    # An example may change os.environ behind its back (a Dask cluster's workers set
    # MALLOC_TRIM_THRESHOLD_ in their parent): later tests' subprocesses must not inherit that.
    saved_environ = dict(os.environ)
    try:
        for line, source in blocks(page):
            code = compile(with_raises(source), f"{page.relative_to(ROOT)}:{line}", "exec")
            exec(code, module.__dict__)  # noqa: S102 (the docs' own examples, from the repository)
    finally:
        os.environ.clear()
        os.environ.update(saved_environ)


def run(source: str) -> None:
    code = compile(with_raises(source), "example", "exec")
    exec(code, {"__raises_named": raises_named})  # noqa: S102 (fixed test snippets)


def test_a_raises_comment_is_checked() -> None:
    with pytest.raises(AssertionError, match="nothing was raised"):
        run("x = 1  # raises ValueError")
    with pytest.raises(AssertionError, match="expected KeyError, got ValueError"):
        run("int('x')  # raises KeyError")
    run("int('x')  # raises ValueError")


def test_the_docs_have_examples() -> None:
    assert sum(len(blocks(p)) for p in PAGES) >= 20


def last_statement_line(source: str) -> int:
    """The index of the last line of ``source`` that is code (not blank, not a comment)."""
    lines = source.splitlines()
    for i in range(len(lines) - 1, -1, -1):
        stripped = lines[i].strip()
        if stripped and not stripped.startswith("#"):
            return i
    return -1


def pasting_problems(source: str) -> list[str]:
    """Why ``source`` would not run top to bottom when pasted into Python: a line that raises
    with code after it (pasting stops there; show it in try/except or in its own block), or a
    test framework the reader may not have."""
    problems = []
    last = last_statement_line(source)
    for i, line in enumerate(source.splitlines()):
        m = RAISES.match(line)
        if m and not m.group(1) and i != last:
            problems.append(f"line {i + 1} raises {m.group(3)} and code follows it: {line.strip()}")
        if re.match(r"\s*(import pytest|from pytest\b)", line) or "pytest." in line:
            problems.append(f"line {i + 1} uses pytest: {line.strip()}")
    return problems


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p)], ids=lambda p: p.name)
def test_page_examples_run_as_pasted(page: Path) -> None:
    # Each block runs top to bottom when pasted into an interpreter: a line that raises ends its
    # block (or sits in try/except, where it is indented), and no block needs pytest.
    problems = [
        f"{page.relative_to(ROOT)}:{line + n}: {problem}"
        for line, source in blocks(page)
        for n, problem in [(0, p) for p in pasting_problems(source)]
    ]
    assert not problems, "\n".join(problems)


def test_pasting_problems_are_found() -> None:
    assert pasting_problems("x = 1\nint('x')  # raises ValueError\n") == []
    assert pasting_problems("int('x')  # raises ValueError\nx = 1\n") == [
        "line 1 raises ValueError and code follows it: int('x')  # raises ValueError"
    ]
    assert (
        pasting_problems("try:\n    int('x')  # raises ValueError\nexcept ValueError:\n    pass\n")
        == []
    )
    assert pasting_problems("import pytest\n") == ["line 1 uses pytest: import pytest"]
