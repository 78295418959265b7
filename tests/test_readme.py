"""README.md says what the code does: what can be generated is (scripts/readme_api.py writes the
API headings' signatures and the list of extras; scripts/options.py the option table), and the
rest is checked here: every argument of packb and unpackb is described, and the benchmark counts
are those scripts/bench runs."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import fastmsgpack

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("readme_api", ROOT / "scripts" / "readme_api.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_parts_are_up_to_date() -> None:
    assert _script().written(README) == README, "run scripts/readme_api.py"


def test_extras_are_those_of_pyproject() -> None:
    names = _script().extras()
    assert {"starlette", "fastapi", "arq", "rq", "dramatiq", "langgraph"} <= set(names)
    sentence = re.search(r"The extras are (.*?)\(", README, re.DOTALL)
    assert sentence is not None
    assert re.findall(r"`([\w-]+)`", sentence.group(1)) == names


def section(name: str) -> str:
    """The text of README's API section for ``name``, up to the next heading."""
    m = re.search(rf"^### `{name}\(.*?$(.*?)^#", README, re.MULTILINE | re.DOTALL)
    assert m is not None, name
    return m.group(1)


@pytest.mark.parametrize("name", ["packb", "unpackb"])
def test_every_argument_is_described(name: str) -> None:
    import inspect

    text = section(name)
    for param in inspect.signature(getattr(fastmsgpack, name)).parameters.values():
        if param.kind is param.POSITIONAL_ONLY and param.default is param.empty:
            continue  # obj, data
        described = re.search(rf"`{param.name}[`(]", text)
        assert described, f"README's {name} section does not describe {param.name}"


@pytest.mark.once
def test_benchmark_counts() -> None:
    m = re.search(
        r"`scripts/bench` runs (\d+) benchmarks and `scripts/bench --quick` (\d+)", README
    )
    assert m is not None
    full, quick = int(m.group(1)), int(m.group(2))
    bench = (ROOT / "scripts" / "bench").read_text()
    quick_args = re.findall(r"^\s+(--deselect '[^']+'|-m '[^']+')$", bench, re.MULTILINE)
    assert quick_args, "scripts/bench's quick selection"

    args = [part.strip("'") for a in quick_args for part in a.split(" ", 1)]
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "benchmarks/", "--collect-only", "-q",
         "-p", "no:cacheprovider", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    ).stdout  # fmt: skip
    # "465/482 tests collected (17 deselected)": the quick selection out of all of them.
    counts = re.search(r"^(\d+)/(\d+) tests collected", out, re.MULTILINE)
    assert counts is not None, out[-2000:]
    assert (int(counts.group(2)), int(counts.group(1))) == (full, quick)
