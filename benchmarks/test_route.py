"""Pack ("dump") and unpack ("load") of a route-planning snapshot, from 1 to 100,000 children.

The snapshot (generators.make_route) holds an id, a 30-character name, N floats and N children,
each an id, a name and a point of two floats. Groups are ``route-pack-<N>`` and
``route-unpack-<N>``, with N zero-padded to six digits so that the groups sort by size;
``extra_info`` holds the library, N and the size in bytes of the serialized form.

Libraries: the MessagePack ones, the standard json module (``json.dumps(obj).encode()``, default
separators), orjson, pickle with protocols 4 and 5, and protobuf with the same schema built in
code (int64, string, repeated double, repeated message). For "protobuf" only serialization of an
already-built message (``SerializeToString``) and parsing into a message (``FromString``) are
timed: converting the dict to a message, or the message back, is not. protobuf (upb backend)
parses into a C message and makes Python objects for its fields only when they are read, which
the timing does not do: its unpack figures do not include building Python objects, unlike the
other libraries'. "protobuf-dicts" times the same calls together with those conversions: the
message built from the dict, and the parsed message read back into dicts and lists, which is what
the other libraries' pack and unpack take and give.

Each library unpacks what it packed. Before timing, the round trip must give back the input (for
protobuf, field by field through a conversion to the dict form), and MessagePack output must also
decode to the input with msgpack-python.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from generators import ROUTE_SIZES, freeze_inputs, route
from google.protobuf import (  # type: ignore[import-untyped]
    descriptor_pb2,
    descriptor_pool,
    message_factory,
)
from libraries import MSGPACK_LIBRARIES, ORJSON, Library, check_msgpack, pickle_library


def _route_message_class() -> Any:
    """The protobuf message class Route (children: Child), from a schema built without protoc."""
    f = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(
        name="fastmsgpack_bench_route.proto", package="fastmsgpack_bench", syntax="proto3"
    )
    child = proto.message_type.add(name="Child")
    child.field.add(name="id", number=1, type=f.TYPE_INT64, label=f.LABEL_OPTIONAL)
    child.field.add(name="name", number=2, type=f.TYPE_STRING, label=f.LABEL_OPTIONAL)
    child.field.add(name="point", number=3, type=f.TYPE_DOUBLE, label=f.LABEL_REPEATED)
    message = proto.message_type.add(name="Route")
    message.field.add(name="id", number=1, type=f.TYPE_INT64, label=f.LABEL_OPTIONAL)
    message.field.add(name="name", number=2, type=f.TYPE_STRING, label=f.LABEL_OPTIONAL)
    message.field.add(name="values", number=3, type=f.TYPE_DOUBLE, label=f.LABEL_REPEATED)
    message.field.add(
        name="children",
        number=4,
        type=f.TYPE_MESSAGE,
        label=f.LABEL_REPEATED,
        type_name=".fastmsgpack_bench.Child",
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("fastmsgpack_bench.Route"))


RouteMessage = _route_message_class()


def _route_to_dict(message: Any) -> dict[str, Any]:
    return {
        "id": message.id,
        "name": message.name,
        "values": list(message.values),
        "children": [
            {"id": c.id, "name": c.name, "point": list(c.point)} for c in message.children
        ],
    }


def _protobuf_pack_dict(obj: dict[str, Any]) -> bytes:
    data: bytes = RouteMessage(**obj).SerializeToString()
    return data


def _protobuf_unpack_dict(data: bytes) -> dict[str, Any]:
    return _route_to_dict(RouteMessage.FromString(data))


def _json_dumps(obj: Any) -> bytes:
    return json.dumps(obj).encode()


LIBRARIES = {
    lib.name: lib
    for lib in (
        *MSGPACK_LIBRARIES,
        Library("json", _json_dumps, json.loads),
        ORJSON,
        pickle_library(4),
        pickle_library(5),
        Library(
            "protobuf",
            RouteMessage.SerializeToString,
            RouteMessage.FromString,
            prepare=lambda d: RouteMessage(**d),
            restore=_route_to_dict,
        ),
        # The same messages, from and to the dict form that the other libraries take and return:
        # what an application holding its snapshot as Python objects pays with protobuf.
        Library("protobuf-dicts", _protobuf_pack_dict, _protobuf_unpack_dict),
    )
}

INPUTS: dict[tuple[str, int], Any] = {}
PACKED: dict[tuple[str, int], bytes] = {}


@pytest.fixture(scope="module", autouse=True)
def _route_inputs(_frozen_inputs: None) -> None:
    """Build every input and packed form once, checked, then freeze them like conftest does."""
    for n in ROUTE_SIZES:
        obj = route(n)
        for lib in LIBRARIES.values():
            prepared = lib.prepare(obj)
            assert lib.restore(prepared) == obj, f"{lib.name}: input conversion differs"
            packed = lib.packs(prepared)
            assert isinstance(packed, bytes)
            INPUTS[lib.name, n] = prepared
            PACKED[lib.name, n] = packed
    freeze_inputs()


def _check_round_trip(lib: Library, n: int) -> None:
    packed = PACKED[lib.name, n]
    assert lib.restore(lib.unpacks(packed)) == route(n), f"{lib.name}: round trip differs at N={n}"
    check_msgpack(lib, packed, route(n))


def _label(benchmark: Any, lib: Library, operation: str, n: int) -> None:
    benchmark.group = f"route-{operation}-{n:06d}"
    benchmark.extra_info["library"] = lib.name
    benchmark.extra_info["operation"] = operation
    benchmark.extra_info["n"] = n
    benchmark.extra_info["bytes"] = len(PACKED[lib.name, n])


@pytest.mark.parametrize("n", ROUTE_SIZES)
@pytest.mark.parametrize("library", list(LIBRARIES))
def test_route_pack(benchmark: Any, library: str, n: int) -> None:
    lib = LIBRARIES[library]
    _label(benchmark, lib, "pack", n)
    _check_round_trip(lib, n)
    benchmark(lib.pack, INPUTS[library, n], **lib.pack_kwargs)


@pytest.mark.parametrize("n", ROUTE_SIZES)
@pytest.mark.parametrize("library", list(LIBRARIES))
def test_route_unpack(benchmark: Any, library: str, n: int) -> None:
    lib = LIBRARIES[library]
    _label(benchmark, lib, "unpack", n)
    _check_round_trip(lib, n)
    benchmark(lib.unpack, PACKED[library, n], **lib.unpack_kwargs)
