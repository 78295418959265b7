"""What an editor infers from the stubs, checked with both type checkers users run: mypy and
pyright (basedpyright, which bundles its Node.js runtime, so nothing is downloaded when it runs).
Each ``reveal_type`` below must show the type in its comment."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE = """
import dataclasses
import io
from typing import Any

from typing_extensions import reveal_type

import fastmsgpack
from fastmsgpack import Decoder, Unpacker


@dataclasses.dataclass
class Stop:
    id: int


data = fastmsgpack.packb(Stop(1))
reveal_type(fastmsgpack.unpackb(data, type=Stop))  # Stop
reveal_type(fastmsgpack.unpackb(data, type=Stop | None))  # Stop | None
reveal_type(fastmsgpack.unpackb(data, type=list[Stop]))  # list[Stop]
reveal_type(fastmsgpack.unpackb(data))  # Any
reveal_type(fastmsgpack.unpack(io.BytesIO(data), type=dict[str, int]))  # dict[str, int]
reveal_type(Decoder(Stop).decode(data))  # Stop
reveal_type(Decoder(Stop | None).decode(data))  # Stop | None
reveal_type(next(Unpacker(io.BytesIO(data), type=Stop)))  # Stop
reveal_type(Unpacker(type=list[int]).unpack())  # list[int]
reveal_type(next(Unpacker()))  # Any
for stop in Unpacker(io.BytesIO(data), type=Stop):
    reveal_type(stop)  # Stop

buffers: list[object] = []
packed = fastmsgpack.packb([b"x" * 100_000], buffer_callback=buffers.append)
reveal_type(fastmsgpack.unpackb(packed, buffers=buffers))  # Any
"""


def expected() -> list[str]:
    return re.findall(r"reveal_type\(.*\)\s+# (.+)$", SOURCE, re.MULTILINE)


def normalise(revealed: str) -> str:
    """A revealed type without module prefixes (``example.Stop`` -> ``Stop``)."""
    return re.sub(r"\b[\w.]+\.(\w+)", r"\1", revealed).replace("builtins.", "")


def test_mypy_infers_the_types_given(tmp_path: Path) -> None:
    path = tmp_path / "example.py"
    path.write_text(SOURCE)
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
         "--cache-dir", str(tmp_path / "cache"), str(path)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    revealed = re.findall(r'Revealed type is "(.*)"', result.stdout)
    assert [normalise(r) for r in revealed] == expected(), result.stdout
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert not errors, result.stdout


def test_pyright_infers_the_types_given(tmp_path: Path) -> None:
    pytest.importorskip("basedpyright", reason="basedpyright is in the test group")
    path = tmp_path / "example.py"
    path.write_text(SOURCE)
    result = subprocess.run(
        [sys.executable, "-m", "basedpyright", "--pythonpath", sys.executable, str(path)],
        capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path,
    )  # fmt: skip
    revealed = re.findall(r'Type of ".*" is "(.*)"', result.stdout)
    assert [normalise(r) for r in revealed] == expected(), result.stdout
    errors = [line for line in result.stdout.splitlines() if " - error:" in line]
    assert not errors, result.stdout
