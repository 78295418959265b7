"""What each worker of benchmarks/interpreter_scaling.py runs, inside its own interpreter.

A worker imports this module by name (the benchmarks directory is on every interpreter's path
when the script runs from it), keeps each library's document and packed bytes in this module's
globals, so that they are built once per interpreter, and calls ``packb`` or ``unpackb`` in a
loop between two instants of ``time.perf_counter``, a clock every interpreter of the process
shares.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from typing import Any

from generators import make_route

Pack = Callable[[Any], bytes]
Unpack = Callable[[bytes], Any]

# Per library: its (packb, unpackb), the document and the document packed.
_PREPARED: dict[str, tuple[Pack, Unpack, Any, bytes]] = {}


def functions(library: str) -> tuple[Pack, Unpack]:
    """``library``'s packb and unpackb, imported in this interpreter."""
    module: Any = importlib.import_module(library)
    if library == "msgpack":
        return (
            lambda obj: module.packb(obj, use_bin_type=True),
            lambda data: module.unpackb(data, raw=False),
        )
    if library == "msgspec":
        return module.msgpack.Encoder().encode, module.msgpack.Decoder().decode
    return module.packb, module.unpackb


def implementation(library: str) -> str:
    """The module ``library``'s work is done in here (msgpack-python falls back to its
    pure-Python ``msgpack.fallback`` where its C extension does not load)."""
    module: Any = importlib.import_module(library)
    if library == "msgpack":
        return str(module.Packer.__module__)
    return str(module.__name__)


def prepared(library: str, children: int) -> tuple[Pack, Unpack, Any, bytes]:
    if library not in _PREPARED:
        pack, unpack = functions(library)
        document = make_route(children)
        packed = pack(document)
        if unpack(packed) != document:
            raise AssertionError(f"{library} did not read back what it wrote")
        _PREPARED[library] = (pack, unpack, document, packed)
    return _PREPARED[library]


def run(library: str, call: str, children: int, start: float, end: float) -> dict[str, Any]:
    """Calls ``call`` (packb or unpackb) of ``library`` from ``start`` until ``end``; gives the
    count of calls, when the first began and the last ended, and which interpreter ran them."""
    pack, unpack, document, packed = prepared(library, children)
    work: Callable[[], object] = (
        (lambda: pack(document)) if call == "packb" else (lambda: unpack(packed))
    )
    wait = start - time.perf_counter()
    if wait > 0:
        time.sleep(wait)
    began = time.perf_counter()
    calls = 0
    while time.perf_counter() < end:
        work()
        calls += 1
    interpreters: Any = importlib.import_module("concurrent.interpreters")
    return {
        "calls": calls,
        "began": began,
        "ended": time.perf_counter(),
        "interpreter": interpreters.get_current().id,
    }
