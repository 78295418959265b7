"""help() shows what a user needs: every public function and class of fastmsgpack,
fastmsgpack.json and fastmsgpack.aio has a docstring that names each of its arguments and shows
an example (exceptions: a docstring)."""

from __future__ import annotations

import inspect
from types import ModuleType
from typing import Any

import pytest

import fastmsgpack
import fastmsgpack.aio
import fastmsgpack.json


def public(module: ModuleType) -> list[tuple[str, Any]]:
    return [
        (f"{module.__name__}.{name}", getattr(module, name))
        for name in module.__all__
        if callable(getattr(module, name))
    ]


NAMES = public(fastmsgpack) + public(fastmsgpack.json) + public(fastmsgpack.aio)


@pytest.mark.parametrize(("name", "obj"), NAMES, ids=[name for name, _ in NAMES])
def test_public_names_are_documented(name: str, obj: Any) -> None:
    doc = inspect.getdoc(obj) or ""
    assert doc.strip(), f"{name} has no docstring"
    if isinstance(obj, type) and issubclass(obj, BaseException):
        return
    try:
        params = inspect.signature(obj).parameters
    except ValueError:  # no signature to check against
        params = {}  # type: ignore[assignment]
    missing = [p for p in params if p not in ("self", "cls") and f"{p}" not in doc]
    assert not missing, f"{name}'s docstring does not name {missing}"
    assert ">>>" in doc or "Example" in doc, f"{name}'s docstring has no example"


def test_unpackb_help_mentions_mmap() -> None:
    assert "mmap" in (fastmsgpack.unpackb.__doc__ or "")
