"""What an editor infers from the stubs, checked with both type checkers users run: mypy and
pyright (basedpyright, which bundles its Node.js runtime, so nothing is downloaded when it runs).
Each ``reveal_type`` below must show the type in its comment."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import fastmsgpack
from fastmsgpack import MapView, View

SOURCE = """
import dataclasses
import io
from typing import Any

from typing_extensions import reveal_type

import fastmsgpack
from fastmsgpack import Decoder, MapView, Unpacker, View


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

reveal_type(View(data))  # View[Any]
reveal_type(View(data)["id"])  # Any
reveal_type(View(data).to_python())  # Any
reveal_type(View(data).to_python(type=Stop))  # Stop
reveal_type(View(data, type=Stop))  # View[Stop]
reveal_type(View(data, type=Stop, validate=False))  # View[Stop]
reveal_type(View(data, type=Stop)["id"])  # Any
reveal_type(View(data, type=Stop).to_python())  # Stop
reveal_type(View(data, type=list[Stop]).to_python())  # list[Stop]
typed: View[Stop] = View(data, type=Stop)
reveal_type(typed.get("id"))  # Any
if isinstance(typed, MapView):
    reveal_type(typed.to_python(type=dict[str, int]))  # dict[str, int]
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


@dataclasses.dataclass
class _Stop:
    id: int


def _first(view: View[_Stop]) -> _Stop:
    return view.to_python()


def test_view_is_subscriptable_at_run_time() -> None:
    # An annotation ``View[Stop]`` is evaluated where annotations are (no ``from __future__ import
    # annotations``, ``typing.get_type_hints``, pydantic, ...): it must not raise.
    alias = View[_Stop]
    assert typing.get_origin(alias) is View
    assert typing.get_args(alias) == (_Stop,)
    hints = typing.get_type_hints(_first)
    assert hints == {"view": View[_Stop], "return": _Stop}
    data = fastmsgpack.packb(_Stop(3))
    typed = View(data, type=_Stop)
    assert isinstance(typed, View) and isinstance(typed, MapView)
    assert isinstance(View(fastmsgpack.packb([1])), View)
    assert _first(typed) == _Stop(3)
    # The abstract type is never made: ``View(...)`` gives a view (or a value).
    assert type(typed) is MapView
