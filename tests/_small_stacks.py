"""Every decoder and encoder at its nesting limit, run in a thread with a 128 KiB stack.

128 KiB is musl's default thread stack (the musllinux wheels run there). Run as a script,
``python _small_stacks.py NAME``: the case runs in such a thread and the script prints ``ok``;
a case that overflows the stack kills the process, which is why ``test_small_stacks.py`` runs
each in a subprocess of its own. Each case also checks that the value came back whole and that
one level more is refused with the documented error, so that none can pass by doing nothing.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import struct
import sys
import threading
from collections.abc import Callable
from typing import Any, Optional

import fastmsgpack
import fastmsgpack.compat
import fastmsgpack.json
from fastmsgpack import MsgpackDecodeError, MsgpackEncodeError

STACK = 128 * 1024

#: The documented limits: decoders read 1024 nested containers, packb and json.dumps write 254,
#: compat's packb 1025, and chains of nested `default` calls stop at 255.
DECODE = 1024
ENCODE = 254
COMPAT_ENCODE = 1025
DEFAULTS = 255


def arrays(n: int) -> bytes:
    """``n`` arrays, each holding the next; nil in the innermost."""
    return b"\x91" * n + b"\xc0"


def maps(n: int) -> bytes:
    """``n`` maps, each holding the next under the key "k"."""
    return b"\x81\xa1k" * n + b"\xc0"


def ext(code: int, payload: bytes) -> bytes:
    """An extension of ``code`` (ext 32 whatever its length, as a peer may write it)."""
    return b"\xc9" + struct.pack(">Ib", len(payload), code) + payload


def ext_chain(code: int, n: int) -> bytes:
    """``n`` extensions of ``code``, each the payload of the one around it; nil innermost."""
    data = b"\xc0"
    for _ in range(n):
        data = ext(code, data)
    return data


def depth_of(value: Any) -> int:
    """How many lists (or dicts under "k", or boxes) are nested in ``value``."""
    n = 0
    while True:
        if isinstance(value, (list, tuple)) and len(value) == 1:
            value = value[0]
        elif isinstance(value, dict) and len(value) == 1:
            value = next(iter(value.values()))
        elif isinstance(value, Box):
            value = value.inner
        else:
            return n
        n += 1


def nested_list(n: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(n - 1):
        value = [value]
    return value


def nested_dict(n: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(n - 1):
        value = {"k": value}
    return value


class Box:
    """A registered class whose payload is another one."""

    __slots__ = ("inner",)

    def __init__(self, inner: Any) -> None:
        self.inner = inner


REGISTRY = fastmsgpack.Registry()
REGISTRY.register(Box, 7, lambda b: b.inner, Box)


@dataclasses.dataclass
class Node:
    child: Optional[Node] = None  # noqa: UP045 (the annotation is evaluated at run time)


def refused_decode(call: Callable[[], Any], kind: str = "too_deep") -> None:
    try:
        call()
    except MsgpackDecodeError as exc:
        assert exc.kind == kind, (exc.kind, exc)
        return
    raise AssertionError("one level more was not refused")


def refused_encode(call: Callable[[], Any], exc_type: type[BaseException]) -> None:
    try:
        call()
    except exc_type:
        return
    raise AssertionError("one level more was not refused")


def case_unpackb_arrays() -> None:
    assert depth_of(fastmsgpack.unpackb(arrays(DECODE))) == DECODE
    refused_decode(lambda: fastmsgpack.unpackb(arrays(DECODE + 1)))


def case_unpackb_maps() -> None:
    assert depth_of(fastmsgpack.unpackb(maps(DECODE))) == DECODE
    refused_decode(lambda: fastmsgpack.unpackb(maps(DECODE + 1)))


def case_unpackb_bin_memoryview() -> None:
    opt = fastmsgpack.OPT_BIN_MEMORYVIEW
    data = b"\x91" * DECODE + b"\xc4\x01x"
    value = fastmsgpack.unpackb(data, option=opt)
    assert depth_of(value) == DECODE
    refused_decode(lambda: fastmsgpack.unpackb(b"\x91" + data, option=opt))


def case_unpackb_non_str_keys() -> None:
    # A map whose key is an array nested to the limit: keys have a walk of their own.
    opt = fastmsgpack.OPT_NON_STR_KEYS
    value = fastmsgpack.unpackb(b"\x81" + arrays(DECODE - 1) + b"\xc0", option=opt)
    (key,) = value
    assert depth_of(key) == DECODE - 1
    refused_decode(lambda: fastmsgpack.unpackb(b"\x81" + arrays(DECODE) + b"\xc0", option=opt))


def case_unpackb_exact_tuples() -> None:
    # Each tuple is an extension holding an array: two levels.
    def tuples(n: int) -> bytes:
        data = b"\xc0"
        for _ in range(n):
            data = ext(-128, b"\x91" + data)
        return data

    opt = fastmsgpack.OPT_EXACT
    value = fastmsgpack.unpackb(tuples(DECODE // 2), option=opt)
    assert depth_of(value) == DECODE // 2
    refused_decode(lambda: fastmsgpack.unpackb(tuples(DECODE // 2 + 1), option=opt))


def case_unpackb_registry() -> None:
    value = fastmsgpack.unpackb(ext_chain(7, DECODE), registry=REGISTRY)
    assert depth_of(value) == DECODE
    refused_decode(lambda: fastmsgpack.unpackb(ext_chain(7, DECODE + 1), registry=REGISTRY))


def case_unpack_fp() -> None:
    assert depth_of(fastmsgpack.unpack(io.BytesIO(arrays(DECODE)))) == DECODE
    refused_decode(lambda: fastmsgpack.unpack(io.BytesIO(arrays(DECODE + 1))))


def case_unpacker() -> None:
    unpacker = fastmsgpack.Unpacker()
    unpacker.feed(arrays(DECODE) + maps(DECODE))
    assert depth_of(unpacker.unpack()) == DECODE
    assert depth_of(unpacker.unpack()) == DECODE
    unpacker = fastmsgpack.Unpacker(registry=REGISTRY)
    unpacker.feed(ext_chain(7, DECODE))
    assert depth_of(unpacker.unpack()) == DECODE
    refused_decode(lambda: next(iter(fastmsgpack.Unpacker(io.BytesIO(arrays(DECODE + 1))))))


def case_unpacker_skip() -> None:
    unpacker = fastmsgpack.Unpacker()
    unpacker.feed(arrays(DECODE) + b"\x07")
    unpacker.skip()
    assert unpacker.unpack() == 7
    unpacker = fastmsgpack.Unpacker()
    unpacker.feed(arrays(DECODE + 1))
    refused_decode(unpacker.skip)


def case_async_unpacker() -> None:
    async def read_all(data: bytes) -> list[Any]:
        reader = asyncio.StreamReader()
        reader.feed_data(data)
        reader.feed_eof()
        return [obj async for obj in fastmsgpack.AsyncUnpacker(reader)]

    (value,) = asyncio.run(read_all(arrays(DECODE)))
    assert depth_of(value) == DECODE
    refused_decode(lambda: asyncio.run(read_all(arrays(DECODE + 1))))


def nodes(n: int) -> bytes:
    """``n`` Nodes, each the child of the one before."""
    return b"\x81\xa5child" * n + b"\xc0"


def case_typed_dataclass() -> None:
    value: Node | None = fastmsgpack.unpackb(nodes(DECODE - 1), type=Node)
    n = 0
    while value is not None:
        value = value.child
        n += 1
    assert n == DECODE - 1
    refused_decode(lambda: fastmsgpack.unpackb(nodes(DECODE + 1), type=Node))


def case_typed_any() -> None:
    value = fastmsgpack.unpackb(arrays(DECODE), type=list[Any])
    assert depth_of(value) == DECODE
    refused_decode(lambda: fastmsgpack.unpackb(arrays(DECODE + 1), type=list[Any]))


def case_typed_registry() -> None:
    data = b"\x91" + ext_chain(7, DECODE - 1)
    value = fastmsgpack.unpackb(data, type=list[Any], registry=REGISTRY)
    assert depth_of(value) == DECODE
    refused_decode(
        lambda: fastmsgpack.unpackb(
            b"\x91" + ext_chain(7, DECODE), type=list[Any], registry=REGISTRY
        )
    )


def chain_length(value: Node | None) -> int:
    """The length of a chain of nodes, releasing it from its head on the way: CPython 3.13 cannot
    free a 1023-deep chain of instances in one recursive deallocation on a 128 KiB stack (a chain
    built in Python crashes the same way), so the decoded chain must not be freed that way."""
    n = 0
    while value is not None:
        value = value.child
        n += 1
    return n


def case_decoder_class() -> None:
    decoder = fastmsgpack.Decoder(Node)
    assert chain_length(decoder.decode(nodes(DECODE - 1))) == DECODE - 1
    refused_decode(lambda: decoder.decode(nodes(DECODE + 1)))


def case_typed_unpacker() -> None:
    unpacker = fastmsgpack.Unpacker(type=Node)
    unpacker.feed(nodes(DECODE - 1))
    assert chain_length(unpacker.unpack()) == DECODE - 1


def case_view() -> None:
    view = fastmsgpack.View(maps(DECODE))
    value = view
    for _ in range(DECODE - 1):
        value = value["k"]
    assert value == {"k": None}
    assert depth_of(view.to_python()) == DECODE
    refused_decode(lambda: fastmsgpack.View(maps(DECODE + 1)))


def case_view_arrays() -> None:
    view = fastmsgpack.View(arrays(DECODE))
    assert depth_of(view.to_python()) == DECODE
    assert depth_of(view[0][0].to_python()) == DECODE - 2


def case_json_from_msgpack() -> None:
    text = fastmsgpack.json.from_msgpack(arrays(ENCODE - 1))
    assert text == b"[" * (ENCODE - 1) + b"null" + b"]" * (ENCODE - 1)
    refused_decode(lambda: fastmsgpack.json.from_msgpack(arrays(DECODE + 1)))


def case_compat_unpackb() -> None:
    value = fastmsgpack.compat.unpackb(arrays(DECODE))
    assert depth_of(value) == DECODE
    refused_encode(
        lambda: fastmsgpack.compat.unpackb(arrays(DECODE + 1)), fastmsgpack.compat.StackError
    )
    value = fastmsgpack.compat.unpackb(maps(DECODE), use_list=False, strict_map_key=False)
    assert depth_of(value) == DECODE


def case_compat_unpacker() -> None:
    unpacker = fastmsgpack.compat.Unpacker()
    unpacker.feed(arrays(DECODE))
    assert depth_of(unpacker.unpack()) == DECODE


def case_packb() -> None:
    assert fastmsgpack.unpackb(fastmsgpack.packb(nested_list(ENCODE))) == nested_list(ENCODE)
    assert depth_of(fastmsgpack.unpackb(fastmsgpack.packb(nested_dict(ENCODE)))) == ENCODE - 1
    refused_encode(lambda: fastmsgpack.packb(nested_list(ENCODE + 1)), MsgpackEncodeError)


def case_packb_exact() -> None:
    value: Any = ()
    for _ in range(ENCODE - 1):
        value = (value,)
    opt = fastmsgpack.OPT_EXACT
    assert fastmsgpack.unpackb(fastmsgpack.packb(value, option=opt), option=opt) == value


def case_packb_registry() -> None:
    value: Any = None
    for _ in range(DEFAULTS):
        value = Box(value)
    data = fastmsgpack.packb(value, registry=REGISTRY)
    assert depth_of(fastmsgpack.unpackb(data, registry=REGISTRY)) == DEFAULTS
    refused_encode(lambda: fastmsgpack.packb(Box(value), registry=REGISTRY), MsgpackEncodeError)


def case_packb_default() -> None:
    def default(obj: Any) -> Any:
        return obj.inner

    value: Any = 1
    for _ in range(DEFAULTS):
        value = Box(value)
    assert fastmsgpack.packb(value, default=default) == b"\x01"
    refused_encode(lambda: fastmsgpack.packb(Box(value), default=default), MsgpackEncodeError)


def case_packer() -> None:
    packer = fastmsgpack.Packer()
    assert depth_of(fastmsgpack.unpackb(packer.pack(nested_list(ENCODE)))) == ENCODE - 1
    out = io.BytesIO()
    fastmsgpack.pack(nested_dict(ENCODE), out)
    assert depth_of(fastmsgpack.unpackb(out.getvalue())) == ENCODE - 1


def case_json_dumps() -> None:
    text = fastmsgpack.json.dumps(nested_list(ENCODE))
    assert text == b"[" * ENCODE + b"]" * ENCODE
    refused_encode(
        lambda: fastmsgpack.json.dumps(nested_list(ENCODE + 1)), fastmsgpack.json.JSONEncodeError
    )


def case_compat_packb() -> None:
    data = fastmsgpack.compat.packb(nested_list(COMPAT_ENCODE))
    assert data == b"\x91" * (COMPAT_ENCODE - 1) + b"\x90"
    refused_encode(lambda: fastmsgpack.compat.packb(nested_list(COMPAT_ENCODE + 1)), ValueError)


CASES: dict[str, Callable[[], None]] = {
    name[len("case_") :]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")
}


def run(name: str) -> None:
    """Runs case ``name`` in a thread with a 128 KiB stack; re-raises what it raised."""
    failed: list[BaseException] = []

    def body() -> None:
        try:
            CASES[name]()
        except BaseException as exc:  # noqa: BLE001 (handed to the main thread)
            failed.append(exc)

    threading.stack_size(STACK)
    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]


if __name__ == "__main__":
    for case in sys.argv[1:]:
        run(case)
        print("ok", case, flush=True)
