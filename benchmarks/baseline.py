"""An earlier build of fastmsgpack, benchmarked beside the current one as ``fastmsgpack-before``.

``scripts/bench --baseline REV`` builds the commit REV and names its extension module (the
``_fastmsgpack*.so`` file) in the environment variable ``FASTMSGPACK_BASELINE``. The module is
loaded under another name, so both builds run in one process and one pytest session, side by side
with the other libraries, and each table shows the ratio of the earlier build to the current one.
Without the variable, ``BEFORE`` is None and no benchmark changes.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import sys
from types import ModuleType
from typing import Any

import fastmsgpack
import fastmsgpack.compat

NAME = "fastmsgpack-before"


def load_extension(path: str, package: str) -> ModuleType:
    """The extension module file at ``path``, loaded as ``package._fastmsgpack`` beside the
    current build's."""
    # The init function is found by the last part of the name, so it must stay `_fastmsgpack`.
    name = f"{package}._fastmsgpack"
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    if spec is None:
        raise RuntimeError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


_path = os.environ.get("FASTMSGPACK_BASELINE")
BEFORE: Any = load_extension(_path, "fastmsgpack_before") if _path else None
"""The earlier build's extension module (``packb``, ``unpackb``, ``json_dumps``,
``json_from_msgpack``, the ``OPT_*`` constants), or None."""


def _is_compat(name: str) -> bool:
    return name == "fastmsgpack.compat" or name.startswith("fastmsgpack.compat.")


def _load_compat(core: ModuleType) -> ModuleType:
    """A second copy of ``fastmsgpack.compat`` (the Python layer of this checkout) over ``core``.

    The compat modules reach the core as ``fastmsgpack._fastmsgpack``: for the time of the
    import, that name (in ``sys.modules`` and on the package, which ``import a.b as c`` reads
    first) is the earlier build. Afterwards every name is put back, so ``fastmsgpack.compat``
    stays the current build's, and the copy keeps the earlier core in its own globals.
    """
    current_core = sys.modules["fastmsgpack._fastmsgpack"]
    current = {name: mod for name, mod in sys.modules.items() if _is_compat(name)}
    try:
        for name in current:
            del sys.modules[name]
        sys.modules["fastmsgpack._fastmsgpack"] = core
        fastmsgpack._fastmsgpack = core
        return importlib.import_module("fastmsgpack.compat")
    finally:
        for name in [name for name in sys.modules if _is_compat(name)]:
            del sys.modules[name]
        sys.modules.update(current)
        sys.modules["fastmsgpack._fastmsgpack"] = current_core
        fastmsgpack._fastmsgpack = current_core
        fastmsgpack.compat = current["fastmsgpack.compat"]


def _before_compat() -> ModuleType | None:
    if BEFORE is None:
        return None
    try:
        return _load_compat(BEFORE)
    except (AttributeError, ImportError, TypeError):
        # A core older than this compat layer (a missing name, or a class that takes fewer
        # arguments): its compat rows have no before column.
        return None


BEFORE_COMPAT: Any = _before_compat()
"""``fastmsgpack.compat`` as it runs on the earlier build's core, or None."""
