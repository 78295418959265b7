"""The fuzzer's checks of the decoder configurations besides options and hooks, run by
fuzz_checks on every input, and seed documents that nest extensions as well as containers.

For each input, whatever its header:

- "registry": with a Registry whose codes (REGISTERED) hold other values, every decoder
  (unpackb, unpack, an Unpacker fed the data, typed decoding into Any and into list[Any], each
  also with OPT_EXACT when the header asks for it) gives a value or a MsgpackDecodeError with an
  offset within the data (nothing else, never a crash), and all give the same. Where it gives a
  value, the value is what an ext_hook that decodes the same payloads gives (the differential
  oracle of the registry).
- "memoryview": unpackb(data, option=OPT_BIN_MEMORYVIEW), also with the registry, gives what
  unpackb gives, each bin a read-only memoryview of the input with the bin's bytes.
- "compat": fastmsgpack.compat.unpackb with each set of COMPAT_OPTIONS raises only compat's
  exceptions (ValueError subclasses) or what msgpack-python 1.2.4 raises on the same data with
  the same options, or gives a value; where msgpack-python gives a value too, they are the
  same.
"""

from __future__ import annotations

import functools
import io
import struct
from collections.abc import Callable, Iterator
from typing import Any

import msgpack  # type: ignore[import-untyped]

import fastmsgpack
import fastmsgpack.compat
from fastmsgpack import OPT_BIN_MEMORYVIEW, OPT_EXACT, Ext, MsgpackDecodeError, Registry

HEADER_EXACT = 0x80

#: The codes the registry reads: what the seeds and the dictionary use, and one more.
REGISTERED = (1, 7, 42)


class Box:
    """A registered type: the value its payload held, and its code."""

    __slots__ = ("code", "inner")

    def __init__(self, code: int, inner: Any) -> None:
        self.code = code
        self.inner = inner

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Box) and (other.code, other.inner) == (self.code, self.inner)

    def __hash__(self) -> int:
        return hash(self.code)

    def __repr__(self) -> str:
        return f"Box({self.code}, {self.inner!r})"


def _registry() -> Registry:
    registry = Registry()
    for code in REGISTERED:
        cls = type(f"Box{code}", (Box,), {"__slots__": ()})
        registry.register(cls, code, _inner, functools.partial(cls, code))
    return registry


def _inner(box: Box) -> Any:
    return box.inner


REGISTRY = _registry()
#: An instance of each registered class, by code.
REGISTRY_CLASSES = {
    code: fastmsgpack.unpackb(fastmsgpack.packb(Ext(code, b"\xc0")), registry=REGISTRY)
    for code in REGISTERED
}


def _error_problem(name: str, data: bytes, exc: BaseException) -> tuple[str, str] | None:
    if not isinstance(exc, MsgpackDecodeError):
        return f"{name}-error-type", f"{name} raised {type(exc).__name__}: {exc}"
    offset = exc.offset
    if offset is None or not 0 <= offset <= len(data):
        return f"{name}-error-offset", f"{name} raised {exc} with offset {offset}"
    return None


def _outcome(call: Callable[[], Any]) -> tuple[bool, Any]:
    try:
        return True, call()
    except Exception as exc:  # noqa: BLE001 (an error is an outcome)
        return False, exc


def _tokens(value: Any) -> list[tuple[str, Any]]:
    """``value`` as a flat list of (type, content) tokens, walked without recursion: what ``repr``
    compares, for values nested deeper than the interpreter lets ``repr`` recurse (CPython 3.12's
    C recursion limit stops it short of 1024 nested boxes)."""
    out: list[tuple[str, Any]] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, Box):
            out.append((type(v).__name__, v.code))
            stack.append(v.inner)
        elif isinstance(v, (list, tuple)):
            out.append((type(v).__name__, len(v)))
            stack.extend(reversed(v))
        elif isinstance(v, dict):
            out.append(("dict", len(v)))
            for key, item in reversed(list(v.items())):
                stack.append(item)
                stack.append(key)
        elif isinstance(v, int):
            # Hexadecimal has no digit limit: repr of an int past sys.get_int_max_str_digits()
            # (a big integer of OPT_EXACT holds up to 9865 digits) raises ValueError.
            out.append((type(v).__name__, hex(v)))
        else:
            out.append((type(v).__name__, repr(v)))
    return out


def _show(value: Any) -> str:
    """The start of ``repr(value)``, for a message; the tokens where ``repr`` cannot be made."""
    try:
        return repr(value)[:200]
    except (RecursionError, ValueError):
        return repr(_tokens(value)[:16])[:200]


def _same(a: tuple[bool, Any], b: tuple[bool, Any]) -> bool:
    if a[0] != b[0]:
        return False
    if not a[0]:
        return type(a[1]) is type(b[1]) and str(a[1]) == str(b[1])
    return _same_value(a[1], b[1])


def _same_value(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` have the same ``repr``, also where ``repr`` cannot be made."""
    try:
        return repr(a) == repr(b)
    except (RecursionError, ValueError):
        # Too deep for repr, or an int past the interpreter's limit on decimal digits.
        return _tokens(a) == _tokens(b)


def _unpacker(data: bytes, **kw: Any) -> Any:
    unpacker = fastmsgpack.Unpacker(**kw)
    unpacker.feed(data)
    value = unpacker.unpack()
    if unpacker.tell() != len(data):
        # unpackb refuses trailing bytes; a stream leaves them for the next object.
        raise MsgpackDecodeError("trailing")
    return value


def _registry_decoders(option: int) -> dict[str, Callable[[bytes], Any]]:
    reg = REGISTRY
    return {
        "unpackb": lambda d: fastmsgpack.unpackb(d, option=option, registry=reg),
        "unpack": lambda d: fastmsgpack.unpack(io.BytesIO(d), option=option, registry=reg),
        "typed-Any": lambda d: fastmsgpack.unpackb(d, type=Any, option=option, registry=reg),
        "typed-unpack": lambda d: fastmsgpack.unpack(
            io.BytesIO(d), type=Any, option=option, registry=reg
        ),
    }


def _hooked(data: bytes, option: int) -> Any:
    """What the registry should give: an ext_hook that decodes the registered payloads."""

    def hook(code: int, payload: bytes) -> Any:
        if code in REGISTERED:
            cls = type(REGISTRY_CLASSES[code])
            return cls(code, fastmsgpack.unpackb(payload, option=option, ext_hook=hook))
        return Ext(code, payload)

    return fastmsgpack.unpackb(data, option=option, ext_hook=hook)


def _views_problem(value: Any, data: bytes) -> str | None:
    """Why a memoryview in ``value`` is not a read-only view of a bin of ``data``, if one is
    not; iterative, as values nest up to 1024 levels."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, memoryview):
            if not item.readonly or item.tobytes() not in data:
                return f"a bin's memoryview is not a read-only slice of the input: {item!r}"
        elif isinstance(item, list | tuple | set | frozenset):
            todo.extend(item)
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, Box):
            todo.append(item.inner)
    return None


def _packed(value: Any, option: int) -> tuple[bool, Any]:
    """``value`` packed again (a memoryview as the bin it views): what two decodes gave, made
    comparable."""
    return _outcome(
        functools.partial(
            fastmsgpack.packb,
            value,
            option=option | fastmsgpack.OPT_NON_STR_KEYS,
            registry=REGISTRY,
        )
    )


def _compat_hook(code: int, data: bytes) -> Any:
    return ("ext", code, data)


#: The compat argument sets checked against msgpack-python.
COMPAT_OPTIONS: tuple[dict[str, Any], ...] = (
    {"strict_map_key": False, "ext_hook": _compat_hook},
    {"raw": True, "use_list": False, "strict_map_key": False, "ext_hook": _compat_hook},
    {"timestamp": 3, "strict_map_key": False, "object_pairs_hook": list},
    {"strict_map_key": False, "max_str_len": 3, "max_array_len": 3, "ext_hook": _compat_hook},
)


def problems(data: bytes, header: int) -> Iterator[tuple[str, str]]:
    """(key, detail) of each check that fails on the input."""
    option = OPT_EXACT if header & HEADER_EXACT else 0
    reference: tuple[bool, Any] | None = None
    for name, decode in _registry_decoders(option).items():
        outcome = _outcome(functools.partial(decode, data))
        if not outcome[0]:
            problem = _error_problem(f"registry-{name}", data, outcome[1])
            if problem:
                yield problem
                return
        if reference is None:
            reference = outcome
        elif not _same(outcome, reference):
            yield (
                f"registry-{name}",
                f"{name} gave {_show(outcome[1])}, unpackb gave {_show(reference[1])}",
            )
            return
    assert reference is not None
    streamed = _outcome(lambda: _unpacker(data, option=option, registry=REGISTRY))
    if reference[0] and (not streamed[0] or not _same_value(streamed[1], reference[1])):
        yield "registry-Unpacker", f"Unpacker gave {_show(streamed[1])}"
        return
    if reference[0]:
        hooked = _outcome(lambda: _hooked(data, option))
        if hooked[0] and not _same_value(hooked[1], reference[1]):
            yield "registry-oracle", f"{_show(reference[1])}, with a hook {_show(hooked[1])}"
            return
    for registry in (None, REGISTRY):
        plain = _outcome(
            functools.partial(fastmsgpack.unpackb, data, option=option, registry=registry)
        )
        views = _outcome(
            functools.partial(
                fastmsgpack.unpackb, data, option=option | OPT_BIN_MEMORYVIEW, registry=registry
            )
        )
        if plain[0] != views[0]:
            yield "memoryview", f"{_show(views[1])} where unpackb gave {_show(plain[1])}"
            return
        if views[0]:
            wrong_view = _views_problem(views[1], data)
            if wrong_view:
                yield "memoryview-view", wrong_view
                return
            if not _same(_packed(views[1], option), _packed(plain[1], option)):
                yield "memoryview", f"{_show(views[1])} where unpackb gave {_show(plain[1])}"
                return
    yield from _compat_problems(data)


def _compat_problems(data: bytes) -> Iterator[tuple[str, str]]:
    for kw in COMPAT_OPTIONS:
        ours = _outcome(functools.partial(fastmsgpack.compat.unpackb, data, **kw))
        peer = _outcome(functools.partial(msgpack.unpackb, data, **kw))
        if not ours[0]:
            # compat's own errors (ValueError subclasses), or what msgpack-python raises too
            # (TypeError for an unhashable key, OverflowError for a date out of range).
            if not isinstance(ours[1], ValueError) and (
                peer[0] or type(peer[1]) is not type(ours[1])
            ):
                yield "compat-error-type", f"compat.unpackb({kw}) raised {_show(ours[1])}"
                return
        elif peer[0] and not _same_value(ours[1], peer[1]):
            yield "compat", f"compat.unpackb({kw}) gave {_show(ours[1])}, msgpack {_show(peer[1])}"
            return


def _ext(code: int, payload: bytes) -> bytes:
    return b"\xc9" + struct.pack(">Ib", len(payload), code) + payload


def seed_documents() -> Iterator[tuple[str, bytes]]:
    """(name, MessagePack) that nest registered extensions, with and without containers
    between them, at and past the nesting limit."""
    for depth in (1, 2, 100, 1023, 1024, 1025, 5000):
        data = b"\xc0"
        for i in range(depth):
            data = _ext(REGISTERED[i % len(REGISTERED)], data)
        yield f"registry-chain-{depth}", data
    for depth in (511, 512, 513, 2000):
        data = b"\x01"
        for _ in range(depth):
            data = b"\x91" + _ext(7, data)
        yield f"registry-arrays-{depth}", data
    for depth in (510, 511, 512, 513):
        data = b"\x90"
        for _ in range(depth):
            data = _ext(-128, b"\x91" + data)  # OPT_EXACT tuples
        yield f"exact-tuples-{depth}", data
    data = b"\xc0"
    for _ in range(2000):
        data = b"\x81\xa1k" + _ext(42, b"\x92" + data + b"\xc4\x01x")
    yield "registry-maps-bins", data
    yield "registry-trailing", _ext(7, b"\x01\x02")
    yield "registry-empty", _ext(7, b"")
    yield "registry-key", b"\x81" + _ext(1, b"\x01") + b"\x02"
    yield "registry-bins", fastmsgpack.packb([b"x" * 300, Ext(7, b"\xc4\x03abc")] * 3)
