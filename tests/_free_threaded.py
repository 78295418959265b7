"""Test dependencies that a free-threaded interpreter cannot install, stood in for there.

Importing this module on a free-threaded CPython (3.14t) makes each package of
``NO_FREE_THREADED_WHEEL`` that is not installed, and its submodules, import as a stand-in, so
that test modules importing it still load. A test that uses the stand-in is skipped at that
point (a module that uses it at import time is skipped whole), with a reason naming the package.
doc/threads.md lists what this leaves out of the free-threaded run.

On every other interpreter this module does nothing: a missing test dependency fails the run.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import sysconfig
import types
from typing import NoReturn

import pytest

# Pinned test dependencies that publish no free-threaded wheel, with the reason.
NO_FREE_THREADED_WHEEL: dict[str, str] = {
    "orjson": "orjson publishes no free-threaded (cp314t) wheel",
    # langgraph-checkpoint needs langchain-core, which needs langsmith, which needs orjson.
    "langgraph": "langgraph-checkpoint needs orjson (through langchain-core and langsmith)",
    "langchain_core": "langchain-core needs orjson (through langsmith)",
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


class _AbsentLoader(importlib.abc.Loader):
    def __init__(self, why: str) -> None:
        self._why = why

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return _Absent(spec.name, self._why)

    def exec_module(self, module: types.ModuleType) -> None:
        pass


class _AbsentFinder(importlib.abc.MetaPathFinder):
    """Last on ``sys.meta_path``: finds what no other finder did, for the packages left out."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        why = NO_FREE_THREADED_WHEEL.get(fullname.partition(".")[0])
        if why is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AbsentLoader(why), is_package=True)


def is_left_out(name: str) -> bool:
    """Whether the package ``name`` imports as a stand-in here (only on a free-threaded build)."""
    spec = importlib.util.find_spec(name)
    return spec is not None and isinstance(spec.loader, _AbsentLoader)


def absent_packages() -> list[str]:
    """The packages stood in for in this process (empty except on a free-threaded build)."""
    return [name for name, mod in sys.modules.items() if isinstance(mod, _Absent)]


if FREE_THREADED:
    sys.meta_path.append(_AbsentFinder())
