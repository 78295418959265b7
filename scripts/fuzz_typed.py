"""The fuzzer's checks of typed decoding, ``unpackb(data, type=T)`` (see scripts/fuzz_checks.py).

For every input, and the input's option:

- ``type=Any`` gives exactly what untyped ``unpackb`` gives: the same value, or the same error.
- For each of the target types below (a dataclass tree with NamedTuples, enums, UUIDs, dates and
  sets; unions of containers; Literal; non-str keys), the call returns a value or raises
  ``ValidationError`` or ``MsgpackDecodeError`` itself, with the path and the byte offset in
  range; never another exception, a crash or a hang.
- A value it returns has the types the target names (the top level's type is checked).
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import uuid
from collections.abc import Callable, Iterator
from typing import Any, Literal, NamedTuple

import fastmsgpack
from fastmsgpack import MsgpackDecodeError, ValidationError


class Pair(NamedTuple):
    a: int
    b: float = 0.0


class Color(enum.Enum):
    RED = "red"
    ONE = 1


class Level(enum.IntEnum):
    LOW = 0
    HIGH = 1


@dataclasses.dataclass
class Leaf:
    name: str
    at: datetime.datetime | None = None
    day: datetime.date | None = None
    n: int = 0
    tags: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True, slots=True)
class Tree:
    leaves: list[Leaf]
    pairs: dict[str, Pair]
    ids: set[uuid.UUID] = dataclasses.field(default_factory=set)
    color: Color = Color.RED
    extra: Any = None
    kids: tuple[Tree, ...] = ()


Scalar = int | float | str | bytes | bool | None
TARGETS: list[tuple[str, Any, type]] = [
    ("Tree", Tree, Tree),
    ("list[Tree | Leaf | Pair]", list[Tree | Leaf | Pair], list),
    ("dict[str, scalars]", dict[str, Scalar | datetime.time | uuid.UUID | decimal.Decimal], dict),
    ("dict[int, list[bytes]]", dict[int, list[bytes | bytearray | Level]], dict),
    (
        "tuple | frozenset | Literal",
        tuple[int, ...] | frozenset[str] | Literal["a", 1] | None,
        object,
    ),
    ("dict[tuple[int, str], Color]", dict[tuple[int, str], Color], dict),
]

OPTIONS = (
    fastmsgpack.OPT_NON_STR_KEYS
    | fastmsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT
    | fastmsgpack.OPT_NUMPY_RAW
    | fastmsgpack.OPT_FORBID_UNKNOWN_FIELDS
)


def problems(
    data: bytes,
    option: int,
    untyped: tuple[Any, BaseException | None],
    same: Callable[[Any, Any], bool],
) -> Iterator[tuple[str, str]]:
    """(key, detail) for each check that fails; `untyped` is what plain unpackb gave (value,
    error), and `same` the fuzzer's strict equality."""
    option &= OPTIONS
    value, error = untyped
    outcome = _call(data, option, Any)
    if (outcome[1] is None) != (error is None):
        yield "any", f"type=Any gave {_show(outcome)}, untyped unpackb gave {_show(untyped)}"
    elif error is not None:
        assert outcome[1] is not None
        if type(outcome[1]) is not type(error) or str(outcome[1]) != str(error):
            yield "any-error", f"type=Any raised {_show(outcome)}, untyped {_show(untyped)}"
    elif not same(outcome[0], value):
        yield "any-value", f"type=Any gave {_show(outcome)}, untyped unpackb gave {_show(untyped)}"
    for name, target, top in TARGETS:
        got, raised = _call(data, option, target)
        if raised is None:
            if not isinstance(got, top):
                yield f"{name}:type", f"type={name} gave {type(got).__name__}: {got!r:.200}"
            continue
        if type(raised) not in (ValidationError, MsgpackDecodeError) or not isinstance(
            raised, MsgpackDecodeError
        ):
            yield f"{name}:{type(raised).__name__}", f"type={name} raised {_show((got, raised))}"
            continue
        offset = raised.offset
        if offset is None or not 0 <= offset <= len(data):
            yield f"{name}:offset", f"type={name}: no byte offset within the data in {raised}"
        if isinstance(raised, ValidationError) and not (raised.path or "").startswith("$"):
            yield f"{name}:path", f"type={name}: ValidationError without a path: {raised}"


def _call(data: bytes, option: int, target: Any) -> tuple[Any, BaseException | None]:
    try:
        return fastmsgpack.unpackb(data, option=option, type=target), None
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 (a Rust panic is a BaseException: a finding too)
        return None, exc


def _show(outcome: tuple[Any, BaseException | None]) -> str:
    value, error = outcome
    if error is None:
        return f"value {value!r:.200}"
    return f"{type(error).__qualname__}: {error}"
