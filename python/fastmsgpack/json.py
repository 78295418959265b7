"""JSON from the same type rules and options as fastmsgpack.packb (the options are shared)."""

from fastmsgpack._fastmsgpack import (
    _OPTION_MASKS,
    _OPTIONS,
    JSONEncodeError,
)
from fastmsgpack._fastmsgpack import JsonFragment as Fragment
from fastmsgpack._fastmsgpack import json_dumps as dumps
from fastmsgpack._fastmsgpack import json_from_msgpack as from_msgpack

# The options of json.dumps and json.from_msgpack, from the core's list.
_MASK = 0
for _entry, _bits in _OPTION_MASKS:
    if _entry.startswith("json."):
        _MASK |= _bits
del _entry, _bits
globals().update((name, bit) for name, bit in _OPTIONS if bit & _MASK)

__all__ = [name for name, bit in _OPTIONS if bit & _MASK] + [
    "Fragment",
    "JSONEncodeError",
    "dumps",
    "from_msgpack",
]
