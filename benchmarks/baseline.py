"""An earlier build of fastmsgpack, benchmarked beside the current one as ``fastmsgpack-before``.

``scripts/bench --baseline REV`` builds the commit REV and names its extension module (the
``_fastmsgpack*.so`` file) in the environment variable ``FASTMSGPACK_BASELINE``. The module is
loaded under another name, so both builds run in one process and one pytest session, side by side
with the other libraries, and each table shows the ratio of the earlier build to the current one.
Without the variable, ``BEFORE`` is None and no benchmark changes.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
from types import ModuleType
from typing import Any

NAME = "fastmsgpack-before"


def _load(path: str) -> ModuleType:
    # The init function is found by the last part of the name, so it must stay `_fastmsgpack`.
    name = "fastmsgpack_before._fastmsgpack"
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    if spec is None:
        raise RuntimeError(f"FASTMSGPACK_BASELINE: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


_path = os.environ.get("FASTMSGPACK_BASELINE")
BEFORE: Any = _load(_path) if _path else None
"""The earlier build's extension module (``packb``, ``unpackb``, ``json_dumps``,
``json_from_msgpack``, the ``OPT_*`` constants), or None."""
