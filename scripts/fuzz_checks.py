"""The checks that scripts/fuzz runs on every input, and its seed corpus.

Shared by the fuzzing harness (scripts/fuzz_harness.py) and the replay test
(tests/test_fuzz_findings.py). It needs fastmsgpack, msgpack and numpy, not atheris.

A fuzz input is one header byte followed by the MessagePack data; an empty input is the header 0
with empty data. The header chooses how the data is decoded:

| bits | meaning                                                                            |
| ---- | ---------------------------------------------------------------------------------- |
| 0    | OPT_NON_STR_KEYS (for unpackb and json.from_msgpack)                               |
| 1    | OPT_DATETIME_AS_TIMESTAMP_EXT (unpackb)                                            |
| 2    | OPT_NUMPY_RAW (unpackb)                                                            |
| 3-4  | ext_hook: 0 none, 1 returns a HookValue, 2 raises HookError, 3 returns a list      |
| 5    | OPT_INDENT_2 (json.from_msgpack)                                                   |
| 6    | OPT_APPEND_NEWLINE (json.from_msgpack)                                             |
| 7    | OPT_EXACT checks (scripts/fuzz_exact.py); the other checks ignore this bit         |

check_input(raw) raises Finding when a check fails, and returns None otherwise. The checks, each
named by Finding.check:

- "exception": every decoder returns a value or raises exactly fastmsgpack.MsgpackDecodeError
  (json.from_msgpack may also raise fastmsgpack.json.JSONEncodeError, for binary and extension
  values, and a stream reader fastmsgpack.OutOfData); a decode error's message ends in "at byte
  offset N", with N within the data.
- "types": a decoded value holds only the types unpackb is documented to build.
- "decoders": every entry point in DECODERS gives what unpackb on bytes gives (the same value, or
  an error of the same type with the same message), and every entry point in JSON_DECODERS what
  json.from_msgpack gives. A stream reader (Unpacker) raises OutOfData until the data holds a
  whole object, refuses malformed bytes where they are, and builds the first object as unpackb
  builds it from its bytes alone.
- "hook": ext_hook gets an int tag in -128..127 and bytes, never the timestamp type -1 with
  OPT_DATETIME_AS_TIMESTAMP_EXT; an exception it raises comes out as MsgpackDecodeError with that
  exception as __cause__ (README.md, "Errors"); what it returns replaces each Ext, so the result
  is the hookless one with every Ext replaced.
- "numpy": with OPT_NUMPY_RAW, arrays from bytes and from a memoryview of bytes are read-only
  views, and from bytearray writable copies (doc/numpy.md).
- "json": json.from_msgpack(data) is json.dumps(unpackb(data)) with the same options, or fails as
  doc/json.md says: MsgpackDecodeError at unpackb's byte offset for malformed input,
  JSONEncodeError where json.dumps raises it.
- "msgpack": where msgpack-python 1.2.4 (raw=False, strict_map_key=False) also decodes the data,
  the values are equal up to the documented differences; where it decodes the data and
  fastmsgpack refuses it, the refusal is a documented one.
- "views": fastmsgpack.View(data) (validated at creation) and View(data, validate=False), with
  the same options and ext_hook, walked fully (every map through items(), every array through
  iteration) give what unpackb gives, or raise MsgpackDecodeError, at creation or at an access,
  where unpackb raises. Nothing else is raised, at any access.
- "buffers": unpackb(data, buffers=...) with out-of-band buffers of OOB_BUFFER_SIZES bytes
  (writable bytearrays, read-only bytes) and OPT_BIN_MEMORYVIEW returns a value or raises
  MsgpackDecodeError, and every array and memoryview it returns lies inside the input or one of
  the buffers (doc/zero-copy.md).
- "typed": unpackb(data, type=Any) gives what unpackb(data) gives, and typed decoding into the
  targets of scripts/fuzz_typed.py returns a value of the target's type or raises
  ValidationError or MsgpackDecodeError with a byte offset in range.
- "exact" (header bit 7): unpackb(data, option=OPT_EXACT) gives a value or a MsgpackDecodeError
  with an offset, an Unpacker the same, and packb then unpackb with OPT_EXACT gives back an equal
  value of the same type (scripts/fuzz_exact.py).
- "snapshot": the input read as a snapshot (whole, and after the fixed magic and version) and as
  the frames of a record file gives a value or a SnapshotError of a known kind, and the input
  framed by snapshot.frame (stored, stored with an offset index, and zstd) loads, and views
  through the index, as unpackb reads it; a damaged index is refused (scripts/fuzz_snapshot.py).
- "configs": the registry (nested registered codes, in every decoder, typed included, and with
  OPT_EXACT under header bit 7), OPT_BIN_MEMORYVIEW, and fastmsgpack.compat's options against
  msgpack-python (scripts/fuzz_configs.py says what exactly).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import decimal
import enum
import functools
import hashlib
import importlib
import io
import json
import lzma
import math
import reprlib
import struct
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import fuzz_configs
import fuzz_exact
import fuzz_snapshot
import fuzz_typed
import msgpack  # type: ignore[import-untyped]
import numpy as np

import fastmsgpack
import fastmsgpack.json as fjson
from fastmsgpack import (
    OPT_BIN_MEMORYVIEW,
    OPT_DATETIME_AS_TIMESTAMP_EXT,
    OPT_NON_STR_KEYS,
    OPT_NUMPY_RAW,
    BufferFull,
    Ext,
    MsgpackDecodeError,
    OutOfData,
    Unpacker,
)
from fastmsgpack.json import OPT_APPEND_NEWLINE, OPT_INDENT_2, JSONEncodeError

ROOT: Path = Path(__file__).resolve().parents[1]
DATA: Path = ROOT / "tests" / "data"
FINDINGS_DIR: Path = DATA / "fuzz-findings"

ExtHook = Callable[[int, bytes], Any]

# The Unpacker's default max_buffer_size: an object whose headers declare more is refused at once.
STREAM_MAX_BUFFER = 104857600

# --- fuzz inputs ---------------------------------------------------------------------------------

HEADER_NON_STR_KEYS = 0x01
HEADER_TIMESTAMP = 0x02
HEADER_NUMPY_RAW = 0x04
HEADER_HOOK_SHIFT = 3
HEADER_INDENT_2 = 0x20
HEADER_APPEND_NEWLINE = 0x40


class HookMode(enum.IntEnum):
    NONE = 0
    RETURNS = 1
    RAISES = 2
    UNHASHABLE = 3


def make_header(
    *,
    non_str_keys: bool = False,
    timestamp: bool = False,
    numpy_raw: bool = False,
    hook: HookMode = HookMode.NONE,
    indent: bool = False,
    newline: bool = False,
) -> int:
    return (
        (HEADER_NON_STR_KEYS if non_str_keys else 0)
        | (HEADER_TIMESTAMP if timestamp else 0)
        | (HEADER_NUMPY_RAW if numpy_raw else 0)
        | (hook << HEADER_HOOK_SHIFT)
        | (HEADER_INDENT_2 if indent else 0)
        | (HEADER_APPEND_NEWLINE if newline else 0)
    )


@dataclasses.dataclass(frozen=True)
class Case:
    """One fuzz input, split into the header's choices and the MessagePack data."""

    header: int
    data: bytes

    @classmethod
    def parse(cls, raw: bytes) -> Case:
        return cls(raw[0], raw[1:]) if raw else cls(0, b"")

    def raw(self) -> bytes:
        return bytes([self.header]) + self.data

    @property
    def option(self) -> int:
        """The option for unpackb."""
        return (
            (OPT_NON_STR_KEYS if self.header & HEADER_NON_STR_KEYS else 0)
            | (OPT_DATETIME_AS_TIMESTAMP_EXT if self.header & HEADER_TIMESTAMP else 0)
            | (OPT_NUMPY_RAW if self.header & HEADER_NUMPY_RAW else 0)
        )

    @property
    def json_option(self) -> int:
        """The option for json.from_msgpack (and json.dumps)."""
        return (
            (OPT_NON_STR_KEYS if self.header & HEADER_NON_STR_KEYS else 0)
            | (OPT_INDENT_2 if self.header & HEADER_INDENT_2 else 0)
            | (OPT_APPEND_NEWLINE if self.header & HEADER_APPEND_NEWLINE else 0)
        )

    @property
    def hook_mode(self) -> HookMode:
        return HookMode((self.header >> HEADER_HOOK_SHIFT) & 3)

    def describe(self) -> str:
        names = [
            name
            for name in ("OPT_NON_STR_KEYS", "OPT_DATETIME_AS_TIMESTAMP_EXT", "OPT_NUMPY_RAW")
            if self.option & getattr(fastmsgpack, name)
        ]
        json_names = [
            name
            for name in ("OPT_INDENT_2", "OPT_APPEND_NEWLINE")
            if self.json_option & getattr(fjson, name)
        ]
        return (
            f"data={self.data.hex()} (len {len(self.data)}), unpackb option="
            f"{'|'.join(names) or '0'}, ext_hook={self.hook_mode.name}, "
            f"from_msgpack layout={'|'.join(json_names) or '0'}"
        )


class Finding(AssertionError):
    """A failed check: `check` names it (see the module docstring), `key` tells findings of one
    check apart for de-duplication, `detail` says what happened."""

    def __init__(self, check: str, detail: str, key: str = "") -> None:
        super().__init__(f"[{check}] {detail}")
        self.check = check
        self.key = key
        self.detail = detail

    @property
    def signature(self) -> str:
        return f"{self.check}:{self.key}" if self.key else self.check


# --- ext hooks -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class HookValue:
    """What the returning ext_hook gives for an extension value (hashable, so it can be a key)."""

    tag: int
    data: bytes


class HookError(Exception):
    """What the raising ext_hook raises."""


class RecordingHook:
    """An ext_hook in one of the HookModes that records its calls and what it raised."""

    def __init__(self, mode: HookMode) -> None:
        self.mode = mode
        self.calls: list[tuple[Any, Any]] = []
        self.raised: list[HookError] = []

    def __call__(self, tag: int, data: bytes) -> Any:
        self.calls.append((tag, data))
        if self.mode is HookMode.RAISES:
            error = HookError(f"ext_hook refuses tag {tag}")
            self.raised.append(error)
            raise error
        return hook_result(self.mode, tag, data)


def hook_result(mode: HookMode, tag: int, data: bytes) -> Any:
    """What the ext_hook of `mode` (RETURNS or UNHASHABLE) returns for (tag, data)."""
    if mode is HookMode.UNHASHABLE:
        return [tag, bytes(data)]
    return HookValue(tag, bytes(data))


def new_hook(mode: HookMode) -> RecordingHook | None:
    return None if mode is HookMode.NONE else RecordingHook(mode)


# --- outcomes ------------------------------------------------------------------------------------


@dataclasses.dataclass
class Outcome:
    """What one call gave: a value, or the exception it raised."""

    value: Any = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def call(function: Callable[..., Any], *args: Any) -> Outcome:
    """What function(*args) gives."""
    try:
        return Outcome(value=function(*args))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 (a Rust panic is a BaseException: a finding too)
        return Outcome(error=exc)


def error_offset(exc: BaseException) -> int | None:
    """The error's ``offset`` attribute (fastmsgpack's errors carry it), or None."""
    offset = getattr(exc, "offset", None)
    return offset if isinstance(offset, int) else None


def error_reason(exc: BaseException) -> str:
    """What is wrong, without the location: the error's ``reason`` attribute, or its message."""
    reason = getattr(exc, "reason", None)
    return reason if isinstance(reason, str) else str(exc)


class _Repr(reprlib.Repr):
    def repr_int(self, x: int, level: int) -> str:
        # An int past sys.get_int_max_str_digits() has no decimal repr: shown in hexadecimal.
        try:
            return super().repr_int(x, level)
        except ValueError:
            return reprlib.Repr.repr_str(self, hex(x), level).strip("'")


_REPR = _Repr()
_REPR.maxlevel = 4
_REPR.maxstring = 60
_REPR.maxother = 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = 8


def short(value: Any) -> str:
    return _REPR.repr(value)


def describe(outcome: Outcome) -> str:
    if outcome.error is None:
        return f"value {short(outcome.value)}"
    cause = outcome.error.__cause__
    text = f"{type(outcome.error).__module__}.{type(outcome.error).__qualname__}: {outcome.error}"
    return text + (f" (cause {cause!r})" if cause is not None else "")


def error_key(outcome: Outcome) -> str:
    """The error's type and message without the offset, for de-duplicating findings."""
    assert outcome.error is not None
    return f"{type(outcome.error).__name__}:{error_reason(outcome.error)[:80]}"


def expect_error_types(
    case: Case,
    name: str,
    outcome: Outcome,
    allowed: tuple[type[BaseException], ...],
    shift: int = 0,
) -> None:
    """An error must be exactly one of `allowed`, with "at byte offset N" in range (the data
    starting at offset `shift` of the decoder's buffer)."""
    error = outcome.error
    if error is None:
        return
    if type(error) not in allowed:
        raise Finding(
            "exception",
            f"{name} raised {describe(outcome)}; allowed: "
            f"{', '.join(t.__qualname__ for t in allowed)}",
            key=f"{name}:{type(error).__name__}",
        )
    offset = error_offset(error)
    if type(error) is MsgpackDecodeError and offset is None:
        raise Finding(
            "exception",
            f"{name}: MsgpackDecodeError without an offset: {error}",
            key=f"{name}:no-offset",
        )
    if type(error) is MsgpackDecodeError and not str(error).endswith(f" at byte offset {offset}"):
        raise Finding(
            "exception",
            f"{name}: the message of MsgpackDecodeError does not give its offset {offset}: {error}",
            key=f"{name}:offset-message",
        )
    if offset is not None and not shift <= offset <= shift + len(case.data):
        raise Finding(
            "exception",
            f"{name}: byte offset {offset} outside the {len(case.data)} bytes of data"
            f"{f' (from {shift})' if shift else ''}: {error}",
            key=f"{name}:offset-range",
        )


# --- strict equality -----------------------------------------------------------------------------


def pairwise_all(test: Callable[[Any, Any], bool], a: Iterable[Any], b: Iterable[Any]) -> bool:
    """all(test(x, y) for x, y in zip(a, b)), as a loop: the walks recurse once per level of
    nesting, and on Python 3.12 and later a builtin such as all() between two levels counts
    against the C recursion limit, which sys.setrecursionlimit does not raise."""
    for x, y in zip(a, b):
        if not test(x, y):
            return False
    return True


def same(a: Any, b: Any) -> bool:
    """Exact structural equality: types everywhere, floats bit for bit, dict order, numpy dtype,
    shape and bytes, datetimes with the same tzinfo."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return bool(
            a.dtype.str == b.dtype.str and a.shape == b.shape and a.tobytes() == b.tobytes()
        )
    if isinstance(a, np.generic):
        return bool(a.dtype.str == b.dtype.str and a.tobytes() == b.tobytes())
    if isinstance(a, float):
        return struct.pack(">d", a) == struct.pack(">d", b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and pairwise_all(same, a, b)
    if isinstance(a, dict):
        return (
            len(a) == len(b)
            and pairwise_all(same, a.keys(), b.keys())
            and pairwise_all(same, a.values(), b.values())
        )
    if isinstance(a, datetime.datetime):
        return a == b and a.tzinfo is b.tzinfo
    return bool(a == b)


def same_outcome(a: Outcome, b: Outcome) -> bool:
    if a.error is not None or b.error is not None:
        return (
            a.error is not None
            and b.error is not None
            and type(a.error) is type(b.error)
            and str(a.error) == str(b.error)
        )
    return same(a.value, b.value)


def map_ext(value: Any, make: Callable[[int, bytes], Any]) -> Any:
    """`value` with every Ext replaced by make(tag, data)."""
    if isinstance(value, Ext):
        return make(value.tag, value.data)
    if isinstance(value, list):
        return [map_ext(item, make) for item in value]
    if isinstance(value, tuple):
        return tuple([map_ext(item, make) for item in value])
    if isinstance(value, dict):
        return {map_ext(k, make): map_ext(v, make) for k, v in value.items()}
    return value


# --- the decoders --------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Decoder:
    """An entry point that decodes one MessagePack object from bytes: decode(data, option,
    ext_hook). `copies_arrays`: OPT_NUMPY_RAW arrays are writable copies, not views of the input.

    A `stream` decoder reads the first object of a stream: decode returns (value, where the
    object ends), and it raises OutOfData where the data holds no complete object, unless it
    `reads_file`: a file that ends inside an object is a MsgpackDecodeError (kind "truncated")."""

    name: str
    decode: Callable[[bytes, int, ExtHook | None], Any]
    copies_arrays: bool
    stream: bool = False
    reads_file: bool = False


def _unpackb_bytes(data: bytes, option: int, ext_hook: ExtHook | None) -> Any:
    return fastmsgpack.unpackb(data, option=option, ext_hook=ext_hook)


def _unpackb_bytearray(data: bytes, option: int, ext_hook: ExtHook | None) -> Any:
    return fastmsgpack.unpackb(bytearray(data), option=option, ext_hook=ext_hook)


def _unpackb_memoryview(data: bytes, option: int, ext_hook: ExtHook | None) -> Any:
    # A slice of a larger buffer: offsets count from the start of the view.
    return fastmsgpack.unpackb(
        memoryview(b"\xc1" + data + b"\xc1")[1:-1], option=option, ext_hook=ext_hook
    )


def _unpack_file(data: bytes, option: int, ext_hook: ExtHook | None) -> Any:
    return fastmsgpack.unpack(io.BytesIO(data), option=option, ext_hook=ext_hook)


def _unpacker_fed(data: bytes, option: int, ext_hook: ExtHook | None) -> tuple[Any, int]:
    unpacker = Unpacker(option=option, ext_hook=ext_hook)
    unpacker.feed(data)
    return unpacker.unpack(), unpacker.tell()


def _unpacker_fed_in_pieces(data: bytes, option: int, ext_hook: ExtHook | None) -> tuple[Any, int]:
    # Pieces of 1, 1, 2, 3, 5, 8, ... bytes, trying to read the object after each.
    unpacker = Unpacker(option=option, ext_hook=ext_hook)
    start, size, next_size = 0, 1, 1
    while True:
        unpacker.feed(data[start : start + size])
        start, size, next_size = start + size, next_size, size + next_size
        try:
            return unpacker.unpack(), unpacker.tell()
        except OutOfData:
            if start >= len(data):
                raise


def _unpacker_reading(data: bytes, option: int, ext_hook: ExtHook | None) -> tuple[Any, int]:
    unpacker = Unpacker(io.BytesIO(data), option=option, ext_hook=ext_hook, read_size=7)
    return unpacker.unpack(), unpacker.tell()


# The first is the reference the others are compared with. A new entry point that decodes
# MessagePack is one more entry.
DECODERS: list[Decoder] = [
    Decoder("unpackb(bytes)", _unpackb_bytes, copies_arrays=False),
    Decoder("unpackb(bytearray)", _unpackb_bytearray, copies_arrays=True),
    # A memoryview of bytes cannot change: arrays view it, as they view bytes.
    Decoder("unpackb(memoryview)", _unpackb_memoryview, copies_arrays=False),
    Decoder("unpack(BytesIO)", _unpack_file, copies_arrays=False),
    Decoder("Unpacker.feed(data)", _unpacker_fed, copies_arrays=True, stream=True),
    Decoder("Unpacker.feed(pieces)", _unpacker_fed_in_pieces, copies_arrays=True, stream=True),
    Decoder(
        "Unpacker(BytesIO)", _unpacker_reading, copies_arrays=True, stream=True, reads_file=True
    ),
]


@dataclasses.dataclass(frozen=True)
class JsonDecoder:
    """An entry point that converts one MessagePack object to JSON: convert(data, option).

    A `stream` one converts the first object of a stream, in a larger buffer after `shift` other
    bytes: convert returns (JSON, where the object ends in data), and the byte offsets in its
    errors count from the start of the larger buffer."""

    name: str
    convert: Callable[[bytes, int], Any]
    stream: bool = False
    shift: int = 0


def _from_msgpack_bytes(data: bytes, option: int) -> bytes:
    return fjson.from_msgpack(data, option=option)


def _from_msgpack_bytearray(data: bytes, option: int) -> bytes:
    return fjson.from_msgpack(bytearray(data), option=option)


def _from_msgpack_memoryview(data: bytes, option: int) -> bytes:
    return fjson.from_msgpack(memoryview(b"\xc1" + data + b"\xc1")[1:-1], option=option)


# What the command line (python -m fastmsgpack) converts each object of its input with: a
# private function, but the command line's documented behaviour rests on it.
_extension = importlib.import_module("fastmsgpack._fastmsgpack")
_json_from_msgpack_at: Callable[..., tuple[bytes, int]] = _extension._json_from_msgpack_at
_STREAM_PREFIX = b"\x91\xc0"  # [None], an object before the one converted


def _json_at(data: bytes, option: int) -> tuple[bytes, int]:
    text, end = _json_from_msgpack_at(_STREAM_PREFIX + data, len(_STREAM_PREFIX), option)
    return text, end - len(_STREAM_PREFIX)


# As DECODERS: the first is the reference.
JSON_DECODERS: list[JsonDecoder] = [
    JsonDecoder("json.from_msgpack(bytes)", _from_msgpack_bytes),
    JsonDecoder("json.from_msgpack(bytearray)", _from_msgpack_bytearray),
    JsonDecoder("json.from_msgpack(memoryview)", _from_msgpack_memoryview),
    JsonDecoder("_json_from_msgpack_at", _json_at, stream=True, shift=len(_STREAM_PREFIX)),
]

# --- the checks ----------------------------------------------------------------------------------

INT_MIN, INT_MAX = -(2**63), 2**64 - 1
BIN_EXT_MARKERS = frozenset([0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8])
CONTAINER_MARKERS = frozenset([*range(0x80, 0xA0), 0xDC, 0xDD, 0xDE, 0xDF])


def check_input(raw: bytes) -> None:
    """Run every check on one fuzz input; raises Finding for the first that fails."""
    with deep_recursion():
        _check(Case.parse(raw))


@contextlib.contextmanager
def deep_recursion() -> Iterator[None]:
    """Values nest up to 1024 levels, and the walks here recurse once per level."""
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 10_000))
    try:
        yield
    finally:
        sys.setrecursionlimit(old_limit)


def _check(case: Case) -> None:
    mode = case.hook_mode
    reference: Outcome | None = None
    reference_hook: RecordingHook | None = None
    for decoder in DECODERS:
        hook = new_hook(mode)
        outcome = call(decoder.decode, case.data, case.option, hook)
        allowed = (
            (MsgpackDecodeError, OutOfData, BufferFull) if decoder.stream else (MsgpackDecodeError,)
        )
        expect_error_types(case, decoder.name, outcome, allowed)
        if hook is not None:
            check_hook_calls(case, decoder.name, hook, outcome)
        if outcome.ok:
            value = outcome.value[0] if decoder.stream else outcome.value
            check_types(case, decoder.name, value, in_key=False)
            check_arrays(decoder, value)
        if reference is None:
            reference, reference_hook = outcome, hook
        elif decoder.stream:
            check_stream(case, decoder, outcome, reference)
        elif not same_outcome(outcome, reference):
            raise Finding(
                "decoders",
                f"{decoder.name} gave {describe(outcome)}, {DECODERS[0].name} gave "
                f"{describe(reference)}",
                key=decoder.name,
            )
    assert reference is not None
    hookless = reference
    if mode is not HookMode.NONE:
        hookless = call(lambda: DECODERS[0].decode(case.data, case.option, None))
        expect_error_types(case, DECODERS[0].name, hookless, (MsgpackDecodeError,))
        assert reference_hook is not None
        check_hook_result(case, reference, reference_hook, hookless)
    check_views(case, reference)
    check_json(case, hookless if not case.option & ~OPT_NON_STR_KEYS else None)
    check_msgpack(case, reference)
    check_buffers(case)
    for key, detail in fuzz_typed.problems(
        case.data, case.option, (hookless.value, hookless.error), same
    ):
        raise Finding("typed", detail, key=key)
    for key, detail in fuzz_exact.problems(case.data, case.header):
        raise Finding("exact", detail, key=key)
    for key, detail in fuzz_snapshot.problems(case.data):
        raise Finding("snapshot", detail, key=key)
    for key, detail in fuzz_configs.problems(case.data, case.header):
        raise Finding("configs", detail, key=key)


class _Unhashable(Exception):
    """A view's map holds a key that cannot be a dict key (unpackb refuses the map)."""


def walk_view(value: Any) -> Any:
    """A view read fully, item by item, as plain values: maps through items() (a later repeated
    key replacing an earlier one, as in a dict), arrays through iteration."""
    if isinstance(value, fastmsgpack.MapView):
        out = {}
        for key, item in value.items():
            try:
                out[key] = walk_view(item)
            except TypeError as exc:
                raise _Unhashable from exc
        return out
    if isinstance(value, fastmsgpack.ArrayView):
        return [walk_view(item) for item in value]
    return value


def check_views(case: Case, reference: Outcome) -> None:
    """The "views" check: a view walked fully gives what unpackb gives (module docstring)."""
    for validate in (True, False):
        hook = new_hook(case.hook_mode)
        name = f"View(validate={validate})"

        def read(hook: ExtHook | None = hook, validate: bool = validate) -> Any:
            view = fastmsgpack.View(case.data, option=case.option, ext_hook=hook, validate=validate)
            return walk_view(view)

        outcome = call(read)
        if isinstance(outcome.error, _Unhashable) and reference.error is not None:
            continue
        expect_error_types(case, name, outcome, (MsgpackDecodeError,))
        expected = reference
        if not validate:
            kind, at = scan(case.data)
            # An unchecked view reads only what is asked for: the bytes after a map or an array
            # are never looked at, so it gives what unpackb gives for the object alone (a scalar
            # at the top is decoded at once, trailing bytes refused, as unpackb refuses them).
            both_refuse = outcome.error is not None and reference.error is not None
            if kind == "complete" and at < len(case.data) and not both_refuse:
                hook = new_hook(case.hook_mode)
                expected = call(DECODERS[0].decode, case.data[:at], case.option, hook)
        if expected.error is not None:
            if outcome.ok:
                raise Finding(
                    "views",
                    f"{name} gave {describe(outcome)}, unpackb raised {describe(expected)}",
                    key=name,
                )
        elif not outcome.ok or not same(outcome.value, expected.value):
            raise Finding(
                "views",
                f"{name} gave {describe(outcome)}, unpackb gave {describe(expected)}",
                key=name,
            )


def check_stream(case: Case, decoder: Decoder, outcome: Outcome, reference: Outcome) -> None:
    """A stream decoder first waits for the bytes of a whole object (OutOfData until then),
    refusing malformed bytes (0xc1, nesting deeper than 1024 levels) where they are, and then
    builds the object as unpackb builds it from those bytes alone: `scan` finds where the first
    object ends."""

    def differs(why: str, expected: Outcome = reference) -> Finding:
        return Finding(
            "decoders",
            f"{decoder.name} gave {describe(outcome)}, {DECODERS[0].name} gave "
            f"{describe(expected)}: {why}",
            key=decoder.name,
        )

    kind, at = scan(case.data)
    if kind != "complete" and reference.ok:
        raise differs(f"the data is {kind} at {at}, yet unpackb decodes it")
    if kind != "complete" and type(outcome.error) is BufferFull:
        # Refused at a header, before the bytes that are missing or malformed arrive: what the
        # headers declare cannot fit max_buffer_size.
        declared = outcome.error.declared
        if declared is None or declared <= max(STREAM_MAX_BUFFER, len(case.data)):
            raise differs("BufferFull for an object whose headers fit max_buffer_size")
        return
    if kind == "truncated":
        if decoder.reads_file and case.data:
            # The file ended inside the object: an error at its start, never a quiet end (an
            # empty file holds no object: OutOfData).
            error = outcome.error
            if (
                type(error) is not MsgpackDecodeError
                or error.kind != "truncated"
                or error_offset(error) != 0
            ):
                raise differs("the file ends inside the object: truncated at 0 expected")
        elif type(outcome.error) is not OutOfData:
            raise differs("the data holds no complete object: OutOfData expected")
        return
    if kind == "malformed":
        if type(outcome.error) is not MsgpackDecodeError or error_offset(outcome.error) != at:
            raise differs(f"malformed at {at}: MsgpackDecodeError there expected")
        return
    expected = reference
    if at < len(case.data):
        expected = call(DECODERS[0].decode, case.data[:at], case.option, new_hook(case.hook_mode))
    if outcome.error is not None:
        if not same_outcome(outcome, expected):
            raise differs(f"the first object is data[:{at}]", expected)
        return
    value, end = outcome.value
    if end != at or not same_outcome(Outcome(value=value), expected):
        raise differs(f"the first object is data[:{at}]", expected)


def check_hook_calls(case: Case, name: str, hook: RecordingHook, outcome: Outcome) -> None:
    for tag, data in hook.calls:
        if type(tag) is not int or not -128 <= tag <= 127 or type(data) is not bytes:
            raise Finding(
                "hook", f"{name} called ext_hook({tag!r}, {short(data)})", key="arguments"
            )
        if tag == -1 and case.option & OPT_DATETIME_AS_TIMESTAMP_EXT:
            raise Finding(
                "hook",
                f"{name} called ext_hook for a timestamp with OPT_DATETIME_AS_TIMESTAMP_EXT",
                key="timestamp",
            )
    if hook.mode is HookMode.RAISES and hook.raised:
        error = outcome.error
        if len(hook.calls) != 1:
            raise Finding(
                "hook",
                f"{name} went on after ext_hook raised: {len(hook.calls)} calls",
                key="calls-after-raise",
            )
        if type(error) is not MsgpackDecodeError or error.__cause__ is not hook.raised[0]:
            raise Finding(
                "hook",
                f"{name}: ext_hook raised {hook.raised[0]!r}, the call gave {describe(outcome)}",
                key="raised",
            )


def check_hook_result(case: Case, hooked: Outcome, hook: RecordingHook, hookless: Outcome) -> None:
    """The hooked result against the hookless one (unpackb on bytes, both)."""
    name = DECODERS[0].name
    if hook.mode is HookMode.RAISES:
        if not hook.calls and not same_outcome(hooked, hookless):
            raise Finding(
                "hook",
                f"{name}: ext_hook was never called, yet with it the call gave "
                f"{describe(hooked)}, without it {describe(hookless)}",
                key="raising-hook-not-called",
            )
        return
    if hookless.ok and hooked.ok:
        expected = call(lambda: map_ext(hookless.value, lambda t, d: hook_result(hook.mode, t, d)))
        if not expected.ok or not same(hooked.value, expected.value):
            raise Finding(
                "hook",
                f"{name}: with ext_hook {describe(hooked)}; without it {describe(hookless)}",
                key=f"{hook.mode.name}-value",
            )
        return
    if not hooked.ok and hook.mode is HookMode.UNHASHABLE:
        # A list from the hook is refused as a map key, possibly before a later error.
        assert hooked.error is not None
        if isinstance(hooked.error.__cause__, TypeError):
            if hookless.ok:
                return
            assert hookless.error is not None
            hooked_at, hookless_at = error_offset(hooked.error), error_offset(hookless.error)
            if hooked_at is not None and hookless_at is not None and hooked_at <= hookless_at:
                return
    if not same_outcome(hooked, hookless):
        raise Finding(
            "hook",
            f"{name}: with ext_hook {describe(hooked)}; without it {describe(hookless)}",
            key=f"{hook.mode.name}-outcome",
        )


def check_types(case: Case, name: str, value: Any, *, in_key: bool) -> None:
    """Only the documented types: None, bool, int, float, str, bytes, list (tuple as a key),
    dict, Ext or the hook's value, datetime with OPT_DATETIME_AS_TIMESTAMP_EXT, numpy values with
    OPT_NUMPY_RAW."""
    kind = type(value)
    if kind in (type(None), bool, str, bytes, float):
        return
    if kind is int:
        if not INT_MIN <= value <= INT_MAX:
            raise Finding("types", f"{name}: int {value} out of range", key="int")
        return
    if kind is (tuple if in_key else list):
        for item in value:
            check_types(case, name, item, in_key=in_key)
        return
    if kind is dict and not in_key:
        for k, v in value.items():
            check_types(case, name, k, in_key=True)
            check_types(case, name, v, in_key=False)
        return
    if kind is Ext and case.hook_mode is HookMode.NONE:
        if value.tag == -1 and case.option & OPT_DATETIME_AS_TIMESTAMP_EXT:
            raise Finding("types", f"{name}: {value!r} with the timestamp option", key="ts")
        return
    if case.hook_mode in (HookMode.RETURNS, HookMode.UNHASHABLE):
        expected_kind = HookValue if case.hook_mode is HookMode.RETURNS else list
        if kind is expected_kind:
            return
    if kind is datetime.datetime and case.option & OPT_DATETIME_AS_TIMESTAMP_EXT:
        if value.tzinfo is not datetime.timezone.utc:
            raise Finding("types", f"{name}: {value!r} is not in UTC", key="datetime-tz")
        return
    if isinstance(value, (np.ndarray, np.generic)) and case.option & OPT_NUMPY_RAW and not in_key:
        if value.dtype.hasobject or value.dtype.fields is not None:
            raise Finding("types", f"{name}: numpy dtype {value.dtype!r}", key="numpy-dtype")
        return
    raise Finding(
        "types",
        f"{name}: unexpected {kind.__qualname__} {'key' if in_key else 'value'} {short(value)}",
        key=f"{kind.__qualname__}:{in_key}",
    )


def check_arrays(decoder: Decoder, value: Any) -> None:
    if isinstance(value, np.ndarray):
        if value.flags.writeable != decoder.copies_arrays:
            raise Finding(
                "numpy",
                f"{decoder.name}: array writeable={value.flags.writeable}",
                key=decoder.name,
            )
    elif isinstance(value, list):
        for item in value:
            check_arrays(decoder, item)
    elif isinstance(value, dict):
        for item in value.values():
            check_arrays(decoder, item)


def check_json(case: Case, unpacked: Outcome | None) -> None:
    """json.from_msgpack against json.dumps(unpackb(data)). `unpacked` is unpackb's outcome with
    case.json_option's OPT_NON_STR_KEYS and no hook, if already known."""
    option = case.json_option
    reference: Outcome | None = None
    for decoder in JSON_DECODERS:
        outcome = call(decoder.convert, case.data, option)
        expect_error_types(
            case, decoder.name, outcome, (MsgpackDecodeError, JSONEncodeError), decoder.shift
        )
        text = outcome.value[0] if decoder.stream and outcome.ok else outcome.value
        if outcome.ok and type(text) is not bytes:
            raise Finding("types", f"{decoder.name} returned {short(outcome.value)}", key="json")
        if reference is None:
            reference = outcome
        elif decoder.stream:
            check_json_stream(case, decoder, outcome, reference)
        elif not same_outcome(outcome, reference):
            raise Finding(
                "decoders",
                f"{decoder.name} gave {describe(outcome)}, {JSON_DECODERS[0].name} gave "
                f"{describe(reference)}",
                key=decoder.name,
            )
    assert reference is not None
    converted = reference
    if unpacked is None:
        unpacked = call(lambda: DECODERS[0].decode(case.data, option & OPT_NON_STR_KEYS, None))
        expect_error_types(case, DECODERS[0].name, unpacked, (MsgpackDecodeError,))

    def mismatch(what: str, expected: str, key: str) -> Finding:
        return Finding(
            "json",
            f"{JSON_DECODERS[0].name} gave {describe(converted)}; {what} {expected}",
            key=key,
        )

    if unpacked.error is not None:
        # Malformed input: MsgpackDecodeError at the same byte offset as unpackb.
        if type(converted.error) is not MsgpackDecodeError or error_offset(
            converted.error
        ) != error_offset(unpacked.error):
            raise mismatch("unpackb raised", describe(unpacked), "malformed:" + error_key(unpacked))
        return
    dumped = call(lambda: fjson.dumps(unpacked.value, option=option))
    expect_error_types(case, "json.dumps(unpackb(data))", dumped, (JSONEncodeError,))
    if dumped.ok:
        if converted.value != dumped.value:
            key = "value" if converted.ok else "error:" + error_key(converted)
            raise mismatch("json.dumps(unpackb(data)) gave", describe(dumped), key)
        return
    # A value JSON cannot hold (binary, extension, a bytes or tuple key, nesting deeper than 254
    # levels): JSONEncodeError from both.
    if type(converted.error) is not JSONEncodeError:
        key = "accepted" if converted.ok else "error:" + error_key(converted)
        raise mismatch("json.dumps(unpackb(data)) raised", describe(dumped), key)
    offset = error_offset(converted.error)
    if offset is not None and offset < len(case.data):
        kind = converted.error.kind
        marker = case.data[offset]
        if kind in ("bytes_not_json", "ext_not_json") and marker not in BIN_EXT_MARKERS:
            raise mismatch("the byte there is", f"{marker:#04x}, not bin or ext", "offset:bin")
        if kind == "too_deep" and marker not in CONTAINER_MARKERS:
            raise mismatch("the byte there is", f"{marker:#04x}, not a container", "offset:depth")


def check_json_stream(
    case: Case, decoder: JsonDecoder, outcome: Outcome, reference: Outcome
) -> None:
    """A stream converter gives what json.from_msgpack gives for the bytes of the first object
    alone (`scan` finds where it ends), with the offsets in its errors counted from the start of
    its buffer."""
    kind, at = scan(case.data)
    expected = reference
    if kind == "complete" and at < len(case.data):
        expected = call(JSON_DECODERS[0].convert, case.data[:at], case.json_option)

    def differs(why: str) -> Finding:
        return Finding(
            "decoders",
            f"{decoder.name} gave {describe(outcome)}, {JSON_DECODERS[0].name} gave "
            f"{describe(expected)} for data[:{at}]: {why}",
            key=decoder.name,
        )

    if outcome.error is not None:
        ours, theirs = outcome.error, expected.error
        if (
            theirs is None
            or type(ours) is not type(theirs)
            or error_reason(ours) != error_reason(theirs)
        ):
            raise differs("not the same error")
        offset, expected_offset = error_offset(ours), error_offset(theirs)
        if offset != (None if expected_offset is None else expected_offset + decoder.shift):
            raise differs(f"offsets should differ by {decoder.shift}")
        return
    text, end = outcome.value
    if kind != "complete" or end != at or not expected.ok or text != expected.value:
        raise differs("not the same JSON")


# msgpack-python as the oracle.


def msgpack_unpackb(case: Case, hook: RecordingHook | None) -> Any:
    kwargs: dict[str, Any] = {}
    if hook is not None:
        kwargs["ext_hook"] = hook
    return msgpack.unpackb(
        case.data,
        raw=False,
        strict_map_key=False,
        use_list=False,  # arrays as tuples, so that arrays can be map keys
        timestamp=3 if case.option & OPT_DATETIME_AS_TIMESTAMP_EXT else 0,
        **kwargs,
    )


def decode_timestamp(data: bytes) -> tuple[int, int] | None:
    """(seconds, nanoseconds) of timestamp extension data, or None for a wrong length."""
    if len(data) == 4:
        return struct.unpack(">I", data)[0], 0
    if len(data) == 8:
        word = struct.unpack(">Q", data)[0]
        return word & (2**34 - 1), word >> 34
    if len(data) == 12:
        nanoseconds, seconds = struct.unpack(">Iq", data)
        return seconds, nanoseconds
    return None


def raw_array_fields(peer: Any) -> tuple[bool, np.dtype[Any], tuple[int, ...], bytes]:
    """(nd, dtype, shape, data) of a raw numpy map as msgpack-python decodes it."""
    if type(peer) is not dict:
        raise TypeError("not a map")
    nd = peer[b"nd"]
    kind = peer[b"type"]
    dtype = np.dtype(kind.decode("ascii") if isinstance(kind, bytes) else kind)
    shape = tuple(peer[b"shape"]) if nd else ()
    return nd, dtype, shape, peer[b"data"]


# The bytes after a marker that are part of its header (a length), or its fixed payload.
_FIXED_SIZE = {0xC0: 0, 0xC2: 0, 0xC3: 0, 0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}
_FIXED_SIZE |= {0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8, 0xD4: 2, 0xD5: 3, 0xD6: 5, 0xD7: 9, 0xD8: 17}
_LENGTH_SIZE = {0xC4: 1, 0xC5: 2, 0xC6: 4, 0xD9: 1, 0xDA: 2, 0xDB: 4}  # bin, str: length
_EXT_LENGTH_SIZE = {0xC7: 1, 0xC8: 2, 0xC9: 4}  # ext: length, then the type byte
_COUNT_SIZE = {0xDC: 2, 0xDD: 4, 0xDE: 2, 0xDF: 4}  # array 16/32, map 16/32: count
_ND_KEYS = (b"\xc4\x02nd", b"\xc5\x00\x02nd", b"\xc6\x00\x00\x00\x02nd")


class _Truncated(Exception):
    pass


class _Malformed(Exception):
    def __init__(self, offset: int) -> None:
        super().__init__(offset)
        self.offset = offset


MAX_DEPTH = 1024  # README.md: unpackb refuses nesting deeper than 1024 containers


@functools.lru_cache(maxsize=4)
def scan(data: bytes) -> tuple[str, int]:
    """Where the first object in `data` ends, by the grammar alone: ("complete", its end),
    ("truncated", len(data)) when the data ends inside it, or ("malformed", offset) for the
    reserved byte 0xc1 or a container nested deeper than MAX_DEPTH."""
    with deep_recursion():
        try:
            return "complete", _scan(data, 0, 0)
        except _Truncated:
            return "truncated", len(data)
        except _Malformed as exc:
            return "malformed", exc.offset


def _scan(data: bytes, pos: int, depth: int, raw_maps: list[list[int]] | None = None) -> int:
    """Where the object at `pos` ends; appends [start, end] of raw array maps to `raw_maps`."""
    if pos >= len(data):
        raise _Truncated
    marker = data[pos]
    if marker <= 0x7F or marker >= 0xE0:
        return pos + 1
    if 0xA0 <= marker <= 0xBF:
        return _advance(data, pos + 1, marker & 0x1F)
    if marker in _FIXED_SIZE:
        return _advance(data, pos + 1, _FIXED_SIZE[marker])
    if marker in _LENGTH_SIZE:
        size = _LENGTH_SIZE[marker]
        return _advance(data, pos + 1 + size, _read_uint(data, pos + 1, size))
    if marker in _EXT_LENGTH_SIZE:
        size = _EXT_LENGTH_SIZE[marker]
        return _advance(data, pos + 2 + size, _read_uint(data, pos + 1, size))
    if marker == 0xC1:
        raise _Malformed(pos)
    if depth >= MAX_DEPTH:
        raise _Malformed(pos)
    if 0x80 <= marker <= 0x9F:
        count, start = marker & 0x0F, pos + 1
    else:
        size = _COUNT_SIZE[marker]
        count, start = _read_uint(data, pos + 1, size), pos + 1 + size
    is_map = marker <= 0x8F or marker >= 0xDE
    span = [pos, -1]
    if raw_maps is not None and is_map and count in (3, 5) and data.startswith(_ND_KEYS, start):
        raw_maps.append(span)
    for _ in range(count * 2 if is_map else count):
        start = _scan(data, start, depth + 1, raw_maps)
    span[1] = start
    return start


def _read_uint(data: bytes, pos: int, size: int) -> int:
    if pos + size > len(data):
        raise _Truncated
    return int.from_bytes(data[pos : pos + size], "big")


def _advance(data: bytes, pos: int, size: int) -> int:
    if pos + size > len(data):
        raise _Truncated
    return pos + size


def raw_maps(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each map in the first object of `data` that OPT_NUMPY_RAW takes for a raw
    array: 3 or 5 entries, the first key the bin "nd" (doc/numpy.md). Where the data is
    malformed before a map ends, its end is the end of the data."""
    spans: list[list[int]] = []
    with deep_recursion(), contextlib.suppress(_Truncated, _Malformed):
        _scan(data, 0, 0, spans)
    return [(start, end if end >= 0 else len(data)) for start, end in spans]


def like_msgpack(ours: Any, peer: Any, *, in_key: bool = False) -> bool:
    """Is fastmsgpack's value `ours` what msgpack-python's `peer` documents it to be? Arrays are
    tuples in `peer` (use_list=False); an Ext is an ExtType, a timestamp a msgpack.Timestamp (or
    a datetime, as in `ours`, with the timestamp option), a raw numpy array a dict."""
    if isinstance(peer, msgpack.Timestamp):
        # Without the timestamp option fastmsgpack gives timestamps as Ext, or to ext_hook.
        if isinstance(ours, (Ext, HookValue)):
            tag, data = ours.tag, ours.data
        elif type(ours) is list and len(ours) == 2:  # from the UNHASHABLE hook
            tag, data = ours
        else:
            return False
        return tag == -1 and decode_timestamp(data) == (peer.seconds, peer.nanoseconds)
    if isinstance(ours, Ext):
        return isinstance(peer, msgpack.ExtType) and (peer.code, peer.data) == (ours.tag, ours.data)
    if type(ours) is list and type(peer) is list:  # the UNHASHABLE hook's value, in both
        return same(ours, peer)
    if isinstance(ours, (np.ndarray, np.generic)):
        # doc/numpy.md: an ndarray of dtype numpy.dtype(type) and shape `shape` holding `data`,
        # or for nd false a numpy scalar of that dtype (any non-zero byte is a True bool).
        try:
            nd, dtype, shape, data = raw_array_fields(peer)
            if nd:
                expected = np.frombuffer(data, dtype=dtype).reshape(shape)
            else:
                expected = np.frombuffer(data, dtype=dtype)[0]
        except (KeyError, TypeError, ValueError, UnicodeDecodeError):
            return False
        # A numpy scalar is always in the machine's byte order: compare with what numpy itself
        # gives for one item of that type (for an array, the type itself).
        return (
            isinstance(ours, np.ndarray if nd else np.generic)
            and ours.dtype.str == expected.dtype.str
            and same(ours, expected)
        )
    if type(ours) is list and not in_key:
        return (
            type(peer) is tuple
            and len(ours) == len(peer)
            and pairwise_all(like_msgpack, ours, peer)
        )
    if type(ours) is tuple and in_key:
        return (
            type(peer) is tuple
            and len(ours) == len(peer)
            and pairwise_all(like_msgpack_key, ours, peer)
        )
    if type(ours) is dict and not in_key:
        return (
            type(peer) is dict
            and len(ours) == len(peer)
            and pairwise_all(like_msgpack_key, ours.keys(), peer.keys())
            and pairwise_all(like_msgpack, ours.values(), peer.values())
        )
    if type(ours) in (list, tuple, dict):
        return False
    return same(ours, peer)


def like_msgpack_key(ours: Any, peer: Any) -> bool:
    return like_msgpack(ours, peer, in_key=True)


def has_numpy(value: Any) -> bool:
    if isinstance(value, (np.ndarray, np.generic)):
        return True
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for item in items:
        if has_numpy(item):
            return True
    return False


def check_msgpack(case: Case, ours: Outcome) -> None:
    peer_hook = new_hook(case.hook_mode)
    peer = call(lambda: msgpack_unpackb(case, peer_hook))
    if not peer.ok:
        return  # only compared where msgpack-python also decodes the data
    if ours.ok:
        if not like_msgpack(ours.value, peer.value):
            raise Finding(
                "msgpack",
                f"{DECODERS[0].name} gave {describe(ours)}, msgpack.unpackb gave {describe(peer)}",
                key="value-numpy" if has_numpy(ours.value) else "value",
            )
        return
    # msgpack-python decodes it and fastmsgpack refuses it: only the documented refusals.
    error = ours.error
    assert error is not None
    message = str(error)
    if not case.option & OPT_NON_STR_KEYS and message.startswith("map key must be str"):
        return  # non-str keys need OPT_NON_STR_KEYS
    if isinstance(error.__cause__, HookError):
        return  # fastmsgpack gives timestamps to ext_hook without the timestamp option
    if case.hook_mode is HookMode.UNHASHABLE and isinstance(error.__cause__, TypeError):
        return  # the same, and the hook's list was a map key
    if message.startswith("out-of-band buffer:"):
        return  # extension type -113 is a reference to an out-of-band buffer
    if case.option & OPT_NUMPY_RAW:
        offset = error_offset(error)
        if offset is not None and any(start <= offset < end for start, end in raw_maps(case.data)):
            return  # a map taken for a raw array must be a valid one
    raise Finding(
        "msgpack",
        f"{DECODERS[0].name} raised {describe(ours)}, msgpack.unpackb gave {describe(peer)}",
        key="refused:" + error_key(ours),
    )


# The sizes of the out-of-band buffers check_buffers gives: those the seeds refer to.
OOB_BUFFER_SIZES = (16, 24, 8, 40)


def _bounds(array: np.ndarray) -> tuple[int, int]:
    start = int(array.__array_interface__["data"][0])
    return start, start + array.nbytes


def _decode_with_buffers(data: bytes, option: int, buffers: list[Any]) -> Any:
    return fastmsgpack.unpackb(data, option=option, buffers=buffers)


def check_buffers(case: Case) -> None:
    data = bytes(case.data)
    option = case.option | OPT_BIN_MEMORYVIEW
    for make in (bytearray, bytes):
        buffers = [make(bytes(i % 251 for i in range(n))) for n in OOB_BUFFER_SIZES]
        outcome = call(_decode_with_buffers, data, option, buffers)
        expect_error_types(case, "unpackb(buffers=...)", outcome, (MsgpackDecodeError,))
        if not outcome.ok:
            continue
        sources = [np.frombuffer(memoryview(b), "u1") for b in (data, *buffers) if len(b)]
        for view in _views(outcome.value):
            array = view if isinstance(view, np.ndarray) else np.frombuffer(view, "u1")
            if not array.nbytes:
                continue
            start, end = _bounds(array)
            for source in sources:
                low, high = _bounds(source)
                if start < high and low < end and not (low <= start and end <= high):
                    raise Finding(
                        "buffers",
                        f"a {type(view).__name__} of {array.nbytes} bytes reaches past the "
                        f"{source.nbytes} bytes it views",
                        key=type(view).__name__,
                    )


def _views(value: Any) -> Iterator[Any]:
    if isinstance(value, (np.ndarray, memoryview)):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _views(item)
    elif isinstance(value, list):
        for item in value:
            yield from _views(item)


# --- seeds ---------------------------------------------------------------------------------------


def _split_stream(stream: bytes) -> Iterator[bytes]:
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(stream)
    start = 0
    for _ in unpacker:
        end = unpacker.tell()
        yield stream[start:end]
        start = end


def _fixture(name: str) -> Any:
    with lzma.open(DATA / "fixtures" / f"{name}.json.xz") as f:
        return json.loads(f.read())


def _generated() -> Iterator[tuple[str, bytes]]:
    """Small documents for what the third-party data lacks: extensions and timestamps, numpy raw
    arrays, non-str and repeated keys, float 32, every length header, nesting at the limits."""
    utc = datetime.timezone.utc
    ts = OPT_DATETIME_AS_TIMESTAMP_EXT
    for i, when in enumerate(
        [
            datetime.datetime(1970, 1, 1, 0, 0, 1, tzinfo=utc),
            datetime.datetime(2024, 5, 17, 12, 30, 45, 123456, tzinfo=utc),
            datetime.datetime(1900, 1, 1, tzinfo=utc),
            datetime.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=utc),
            datetime.datetime(1, 1, 1, tzinfo=utc),
        ]
    ):
        yield f"timestamp-{i}", fastmsgpack.packb(when, option=ts)
        yield f"timestamp-key-{i}", fastmsgpack.packb({when: [when]}, option=ts | OPT_NON_STR_KEYS)
    yield "timestamp-ns", b"\xd7\xff" + (999_999_999 << 34 | 1).to_bytes(8, "big")
    yield "timestamp-96-negative", b"\xc7\x0c\xff" + struct.pack(">Iq", 5, -(2**40))
    for size in (0, 1, 2, 3, 4, 8, 16, 17, 255, 256):
        yield (
            f"ext-{size}",
            fastmsgpack.packb([Ext(size % 128, bytes(i % 256 for i in range(size)))]),
        )
    yield "ext-key", b"\x81\xd4\x80k\xc7\x00\x7f"  # {Ext(-128, b"k"): Ext(127, b"")}
    arrays: list[Any] = [
        np.arange(6, dtype="<i4").reshape(2, 3),
        np.arange(3, dtype=">f8"),
        np.array([True, False]),
        np.array(["abc", "d"]),
        np.array([b"xy"], dtype="S2"),
        np.array([1 + 2j], dtype="<c16"),
        np.array(["2024-05-17"], dtype="datetime64[D]"),
        np.array([5], dtype="timedelta64[ms]"),
        np.zeros((2, 0, 3), dtype="<u2"),
        np.array(7.5, dtype="<f2"),
        np.float32(1.5),
        np.int64(-3),
        np.bool_(True),
    ]
    for i, array in enumerate(arrays):
        yield f"numpy-{i}", fastmsgpack.packb({"a": array}, option=OPT_NUMPY_RAW)
    # Out-of-band references to buffers of OOB_BUFFER_SIZES bytes.
    out_of_band = [
        np.arange(4, dtype="<i4"),
        np.arange(6, dtype=">i4").reshape(3, 2),
        b"12345678",
        np.arange(5, dtype="<f8"),
    ]
    yield (
        "out-of-band",
        fastmsgpack.packb(
            out_of_band, option=OPT_NUMPY_RAW, buffer_callback=lambda b: None, buffer_threshold=1
        ),
    )
    keys: dict[Any, Any] = {
        None: 0,
        True: 1,
        -1: 2,
        2**64 - 1: 3,
        1.5: 4,
        -0.0: 5,
        math.nan: 6,
        b"\x00": 7,
        (1, ("a", None)): 8,
        "s": 9,
    }
    yield "non-str-keys", fastmsgpack.packb(keys, option=OPT_NON_STR_KEYS)
    yield "merged-keys", b"\x84\x01\xa1a\xcb" + struct.pack(">d", 1.0) + b"\xa1b\xc3\xa1c\xa11\xa1d"
    yield "zero-keys", b"\x82\xcb" + struct.pack(">d", -0.0) + b"\x01\x00\x02"
    yield "nan-keys", b"\x82\xca\x7f\xc0\x00\x00\x01\xcb" + struct.pack(">d", math.nan) + b"\x02"
    yield "repeated-keys", b"\x83\xa1a\xc4\x01x\xa1b\x02\xa1a\x03"
    yield (
        "float32",
        b"\x93\xca" + struct.pack(">f", 0.1) + b"\xca\x7f\x80\x00\x00\xca\x80\x00\x00\x00",
    )
    yield "floats", fastmsgpack.packb([math.inf, -math.inf, math.nan, 5e-324, 1e16, 1e-7, -0.0])
    yield "ints", fastmsgpack.packb([0, 127, 128, 255, 256, -32, -33, -129, 2**63, -(2**63)])
    for length in (31, 32, 255, 256, 65536):
        yield f"str-{length}", fastmsgpack.packb("é" * (length // 2) + "x" * (length % 2))
        yield f"bin-{length}", fastmsgpack.packb(b"\xff" * length)
    for count in (15, 16, 65536):
        yield f"array-{count}", fastmsgpack.packb([None] * count)
        yield f"map-{count}", fastmsgpack.packb({str(i): i for i in range(count)})
    yield (
        "other-types",
        fastmsgpack.packb(
            {"d": decimal.Decimal("9.99"), "s": {1}, "t": (1, 2), "u": '\u2028\x00"\\/\x7f'}
        ),
    )
    for depth in (254, 255, 1024, 1025):
        yield f"depth-{depth}", b"\x91" * (depth - 1) + b"\x90"
        yield f"depth-map-{depth}", b"\x81\xa0" * (depth - 1) + b"\x80"


def seed_documents() -> Iterator[tuple[str, str, bytes]]:
    """(group, name, MessagePack data) of every seed, from tests/data and generated."""
    suite = json.loads(
        (DATA / "msgpack-test-suite" / "dist" / "msgpack-test-suite.json").read_text()
    )
    for group, cases in suite.items():
        for i, case in enumerate(cases):
            for j, encoding in enumerate(case["msgpack"]):
                yield (
                    "msgpack-test-suite",
                    f"{group}-{i}-{j}",
                    bytes.fromhex(encoding.replace("-", "")),
                )
    msgpack_c = DATA / "msgpack-c"
    for name in ("cases.mpac", "cases_compact.mpac"):
        stream = (msgpack_c / name).read_bytes()
        yield "msgpack-c", name, stream  # a stream: bytes left over after the first object
        for i, document in enumerate(_split_stream(stream)):
            yield "msgpack-c", f"{name}-{i}", document
    for folder in ("unpack_pack_fuzzer_seed_corpus", "unpack_pack_fuzzer_regressions"):
        for path in sorted((msgpack_c / "fuzz" / folder).iterdir()):
            yield "msgpack-c", f"{folder}-{path.name}", path.read_bytes()
    for path in sorted((DATA / "shamaton-msgpack-crashers" / "crashers").iterdir()):
        yield "shamaton-msgpack-crashers", path.name, path.read_bytes()
    # The fixtures are large: github whole (49 KB), the others in pieces of a few KB.
    github = _fixture("github")
    yield "fixtures", "github", fastmsgpack.packb(github)
    for i, event in enumerate(github[:10]):
        yield "fixtures", f"github-{i}", fastmsgpack.packb(event)
    for i, status in enumerate(_fixture("twitter")["statuses"][:5]):
        yield "fixtures", f"twitter-{i}", fastmsgpack.packb(status)
    citm = _fixture("citm_catalog")
    yield "fixtures", "citm-performances", fastmsgpack.packb(citm["performances"][:5])
    yield "fixtures", "citm-topics", fastmsgpack.packb(citm["topicNames"])
    canada = _fixture("canada")["features"][0]
    ring = canada["geometry"]["coordinates"][0][:40]
    yield (
        "fixtures",
        "canada",
        fastmsgpack.packb({"properties": canada["properties"], "ring": ring}),
    )
    for name, document in _generated():
        yield "generated", name, document


# Headers the replay test runs every seed with: every option and hook mode at least once.
SEED_HEADERS: tuple[int, ...] = (
    make_header(),
    make_header(non_str_keys=True, indent=True),
    make_header(non_str_keys=True, timestamp=True, hook=HookMode.RETURNS, newline=True),
    make_header(non_str_keys=True, numpy_raw=True, hook=HookMode.RAISES),
    make_header(timestamp=True, numpy_raw=True, hook=HookMode.UNHASHABLE, indent=True),
    make_header(non_str_keys=True, hook=HookMode.UNHASHABLE),
)


def seed_inputs() -> Iterator[tuple[str, bytes]]:
    """(group, fuzz input) of every seed with every header in SEED_HEADERS."""
    for group, _name, document in seed_documents():
        for header in SEED_HEADERS:
            yield group, Case(header, document).raw()
    for _name, document in fuzz_exact.seed_documents():
        for header in SEED_HEADERS:
            yield "exact", Case(header | fuzz_exact.HEADER_EXACT, document).raw()
    for _name, document in fuzz_configs.seed_documents():
        for header in (make_header(), make_header(non_str_keys=True) | fuzz_exact.HEADER_EXACT):
            yield "configs", Case(header, document).raw()


def sha1_name(raw: bytes) -> str:
    return hashlib.sha1(raw).hexdigest()
