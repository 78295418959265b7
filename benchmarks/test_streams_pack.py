"""Packing to streams: 100,000 small messages written one after another, and one large snapshot
written to a file-like object.

The messages (generators.make_small_messages) are 100,000 different dicts of the shape of the
small-message benchmark (10 fields, some 150 bytes packed; 14.7 MB in all). Each call writes all
of them, one call of the library per message, and returns the whole stream. Groups:

- ``stream-pack-bytesio-100k``: each packed message written to an ``io.BytesIO``;
- ``stream-pack-join-100k``: the packed messages collected in a list, then ``b"".join``-ed;
- ``stream-pack-into-100k``: every message appended to one ``bytearray``: ``Packer.pack_into``
  at ``len(buffer)``, msgspec's ``Encoder.encode_into(msg, buffer, -1)``, msgpack-python's
  ``Packer(autoreset=False)`` (which keeps the messages in its own buffer until ``bytes()``), and
  ``buffer += packb(msg)`` for the libraries without such a call;
- ``stream-pack-file-route-100000``: the route snapshot with N=100,000 (about 7.9 MB packed)
  written to an ``io.BytesIO``: ``fastmsgpack.pack(obj, fp)`` and ``msgpack.pack(obj, fp)``
  against ``fp.write(packb(obj))``.

Libraries: "fastmsgpack" is one ``Packer`` made once (``pack(obj, fp)`` for the file), beside
"fastmsgpack-packb" (``packb`` in the loop); ormsgpack's ``packb``; msgspec's ``Encoder`` made
once; msgpack-python's ``Packer`` made once. Each output must equal msgpack-python's packing of
the same messages, concatenated, before it is timed.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable
from typing import Any

import msgpack  # type: ignore[import-untyped]
import msgspec
import ormsgpack
import pytest
from baseline import BEFORE
from baseline import NAME as BEFORE_NAME
from generators import freeze_inputs, route, small_messages

import fastmsgpack

Output = bytes | bytearray | io.BytesIO
Workload = Callable[[], Output]

FAST = fastmsgpack.Packer()
ENCODER = msgspec.msgpack.Encoder()
REFERENCE_PACKER = msgpack.Packer()
BEFORE_PACKER = BEFORE.Packer() if BEFORE is not None and hasattr(BEFORE, "Packer") else None
MESSAGES: list[dict[str, Any]] = []
ROUTE: dict[str, Any] = {}


@pytest.fixture(scope="module", autouse=True)
def _stream_inputs(_frozen_inputs: None) -> None:
    MESSAGES[:] = small_messages()
    ROUTE.update(route(100_000))
    freeze_inputs()


def _to_bytesio(pack: Callable[[Any], bytes]) -> Workload:
    def run() -> io.BytesIO:
        stream = io.BytesIO()
        write = stream.write
        for message in MESSAGES:
            write(pack(message))
        return stream

    return run


def _joined(pack: Callable[[Any], bytes]) -> Workload:
    return lambda: b"".join([pack(message) for message in MESSAGES])


def _appended(pack: Callable[[Any], bytes]) -> Workload:
    def run() -> bytearray:
        buffer = bytearray()
        for message in MESSAGES:
            buffer += pack(message)
        return buffer

    return run


def _fast_into() -> bytearray:
    buffer = bytearray()
    pack_into = FAST.pack_into
    for message in MESSAGES:
        pack_into(message, buffer, len(buffer))
    return buffer


def _msgspec_into() -> bytearray:
    buffer = bytearray()
    encode_into = ENCODER.encode_into
    for message in MESSAGES:
        encode_into(message, buffer, -1)
    return buffer


def _msgpack_kept() -> bytes:
    packer = msgpack.Packer(autoreset=False)
    pack = packer.pack
    for message in MESSAGES:
        pack(message)
    data: bytes = packer.bytes()
    return data


PACKS: dict[str, Callable[[Any], bytes]] = {
    "fastmsgpack": FAST.pack,
    **({BEFORE_NAME: BEFORE_PACKER.pack} if BEFORE_PACKER is not None else {}),
    "fastmsgpack-packb": fastmsgpack.packb,
    "ormsgpack": ormsgpack.packb,
    "msgspec": ENCODER.encode,
    "msgpack": REFERENCE_PACKER.pack,
}

WORKLOADS: dict[str, dict[str, Workload]] = {
    f"stream-pack-{kind}-100k": {lib: wrap(pack) for lib, pack in PACKS.items()}
    for kind, wrap in (("bytesio", _to_bytesio), ("join", _joined))
}
WORKLOADS["stream-pack-into-100k"] = {
    "fastmsgpack": _fast_into,
    "fastmsgpack-packb": _appended(fastmsgpack.packb),
    "ormsgpack": _appended(ormsgpack.packb),
    "msgspec": _msgspec_into,
    "msgpack": _msgpack_kept,
}


def _file_writer(write: Callable[[Any, io.BytesIO], Any]) -> Workload:
    def run() -> io.BytesIO:
        stream = io.BytesIO()
        write(ROUTE, stream)
        return stream

    return run


WORKLOADS["stream-pack-file-route-100000"] = {
    "fastmsgpack": _file_writer(fastmsgpack.pack),
    "fastmsgpack-packb": _file_writer(lambda obj, fp: fp.write(fastmsgpack.packb(obj))),
    "ormsgpack": _file_writer(lambda obj, fp: fp.write(ormsgpack.packb(obj))),
    "msgspec": _file_writer(lambda obj, fp: fp.write(ENCODER.encode(obj))),
    "msgpack": _file_writer(lambda obj, fp: msgpack.pack(obj, fp, use_bin_type=True)),
}
if BEFORE is not None:
    # An earlier build without pack() is timed as its users would write the same thing.
    WORKLOADS["stream-pack-file-route-100000"][BEFORE_NAME] = _file_writer(
        BEFORE.pack if hasattr(BEFORE, "pack") else lambda obj, fp: fp.write(BEFORE.packb(obj))
    )


@functools.cache
def _expected(group: str) -> bytes:
    if group.endswith("route-100000"):
        data: bytes = msgpack.packb(ROUTE, use_bin_type=True)
        return data
    return b"".join(msgpack.packb(m, use_bin_type=True) for m in MESSAGES)


def _contents(output: Output) -> bytes:
    return output.getvalue() if isinstance(output, io.BytesIO) else bytes(output)


CASES = [(group, lib) for group, libs in WORKLOADS.items() for lib in libs]


@pytest.mark.parametrize(("group", "library"), CASES, ids=[f"{g}-{lib}" for g, lib in CASES])
def test_stream_pack(benchmark: Any, group: str, library: str) -> None:
    run = WORKLOADS[group][library]
    output = _contents(run())
    assert output == _expected(group), f"{library}: output differs from msgpack-python's"
    benchmark.group = group
    benchmark.extra_info["library"] = library
    benchmark.extra_info["bytes"] = len(output)
    benchmark(run)
