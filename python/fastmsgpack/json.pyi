from collections.abc import Callable
from typing import Any, final

from typing_extensions import Buffer

from fastmsgpack import MsgpackEncodeError

__all__ = [
    "OPT_APPEND_NEWLINE",
    "OPT_INDENT_2",
    "OPT_NAIVE_UTC",
    "OPT_NON_STR_KEYS",
    "OPT_OMIT_MICROSECONDS",
    "OPT_PASSTHROUGH_BIG_INT",
    "OPT_PASSTHROUGH_DATACLASS",
    "OPT_PASSTHROUGH_DATETIME",
    "OPT_PASSTHROUGH_ENUM",
    "OPT_PASSTHROUGH_SUBCLASS",
    "OPT_PASSTHROUGH_TUPLE",
    "OPT_PASSTHROUGH_UUID",
    "OPT_REPLACE_SURROGATES",
    "OPT_SERIALIZE_NUMPY",
    "OPT_SERIALIZE_PYDANTIC",
    "OPT_SORT_KEYS",
    "OPT_STRICT_INTEGER",
    "OPT_UTC_Z",
    "Fragment",
    "JSONEncodeError",
    "dumps",
    "from_msgpack",
]

OPT_APPEND_NEWLINE: int
OPT_INDENT_2: int
OPT_NAIVE_UTC: int
OPT_NON_STR_KEYS: int
OPT_OMIT_MICROSECONDS: int
OPT_PASSTHROUGH_BIG_INT: int
OPT_PASSTHROUGH_DATACLASS: int
OPT_PASSTHROUGH_DATETIME: int
OPT_PASSTHROUGH_ENUM: int
OPT_PASSTHROUGH_SUBCLASS: int
OPT_PASSTHROUGH_TUPLE: int
OPT_PASSTHROUGH_UUID: int
OPT_REPLACE_SURROGATES: int
OPT_SERIALIZE_NUMPY: int
OPT_SERIALIZE_PYDANTIC: int
OPT_SORT_KEYS: int
OPT_STRICT_INTEGER: int
OPT_UTC_Z: int

class JSONEncodeError(MsgpackEncodeError):
    """From ``from_msgpack``, a value JSON cannot hold, with the data of ``MsgpackDecodeError``:
    ``kind`` (``"bytes_not_json"``, ``"ext_not_json"``, ``"too_deep"``, ...), ``reason`` and
    ``offset``; ``None`` for each from ``dumps``."""

    kind: str | None
    reason: str | None
    offset: int | None

@final
class Fragment:
    """JSON text that ``dumps`` writes as it is (str or bytes; not checked)."""

    def __new__(cls, contents: str | bytes) -> Fragment: ...
    @property
    def contents(self) -> str | bytes: ...

def dumps(
    obj: Any,
    /,
    default: Callable[[Any], Any] | None = None,
    option: int | None = None,
) -> bytes: ...
def from_msgpack(data: Buffer, /, option: int | None = None) -> bytes: ...
