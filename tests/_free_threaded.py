"""Test dependencies that a free-threaded interpreter cannot install, stood in for there.

Importing this module on a free-threaded CPython (3.14t) puts a stand-in module in
``sys.modules`` for each package of ``NO_FREE_THREADED_WHEEL`` that is not installed, so that
test modules importing it still load. A test that uses the stand-in is skipped at that point
(a module that uses it at import time is skipped whole), with a reason naming the package.
doc/threads.md lists what this leaves out of the free-threaded run.

On every other interpreter this module does nothing: a missing test dependency fails the run.
"""

from __future__ import annotations

import importlib.util
import sys
import sysconfig
import types
from typing import NoReturn

import pytest

# Pinned test dependencies that publish no free-threaded wheel, with the reason.
NO_FREE_THREADED_WHEEL: dict[str, str] = {
    "orjson": "orjson publishes no free-threaded (cp314t) wheel",
}

FREE_THREADED: bool = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


class _Absent(types.ModuleType):
    """A package left out of the free-threaded run: any use skips the test using it."""

    def __init__(self, name: str, why: str) -> None:
        super().__init__(name)
        self._why = why

    def __getattr__(self, attr: str) -> NoReturn:
        if attr.startswith("__"):
            raise AttributeError(attr)
        pytest.skip(
            f"needs {self.__name__}.{attr}: {self._why}, so the free-threaded run leaves it out",
            allow_module_level=True,
        )


def absent_packages() -> list[str]:
    """The packages stood in for in this process (empty except on a free-threaded build)."""
    return [name for name, mod in sys.modules.items() if isinstance(mod, _Absent)]


if FREE_THREADED:
    for _name, _why in NO_FREE_THREADED_WHEEL.items():
        if _name not in sys.modules and importlib.util.find_spec(_name) is None:
            sys.modules[_name] = _Absent(_name, _why)
