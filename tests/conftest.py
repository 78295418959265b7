"""Test data location and helpers for the fastmsgpack test suite.

The third-party test data lives in ``tests/data`` (see the README.md there and in each of its
folders). If it is missing the whole suite fails at collection time instead of skipping.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import lzma
import math
import os
import re
import struct
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

# Before the packages it may stand in for (orjson) are imported: see the module.
import _free_threaded  # noqa: F401
import msgpack  # type: ignore[import-untyped]
import orjson
import ormsgpack
import pytest
from _servers import RedisServer
from _servers import redis_server as start_redis_server
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import fastmsgpack
import fastmsgpack.json

DATA: Path = Path(__file__).resolve().parent / "data"

if not DATA.is_dir():
    raise RuntimeError(f"test data directory not found: {DATA} (it is part of the repository)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out the ``once`` tests in a repeated run (``FASTMSGPACK_TESTS_REPEAT=1``).

    They check the repository, not the interpreter: scripts/test's default run (which CI runs)
    runs them; its runs on the other interpreters set the variable and do not repeat them.
    """
    if os.environ.get("FASTMSGPACK_TESTS_REPEAT") != "1":
        return
    left_out = [item for item in items if item.get_closest_marker("once") is not None]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if item.get_closest_marker("once") is None]


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The test data directory, tests/data (same as the module constant DATA)."""
    return DATA


# Integer boundaries of every MessagePack integer width, and one past each end of the range.
INT_BOUNDARIES: list[int] = [
    0,
    1,
    127,
    128,
    255,
    256,
    65535,
    65536,
    2**31 - 1,
    2**31,
    2**32 - 1,
    2**32,
    2**63 - 1,
    2**63,
    2**64 - 1,
    -1,
    -32,
    -33,
    -128,
    -129,
    -32768,
    -32769,
    -(2**31),
    -(2**31) - 1,
    -(2**63),
]
INT_OUT_OF_RANGE: list[int] = [2**64, -(2**63) - 1, 2**100, -(2**100)]

# str/bin lengths at every header width boundary, and array/map lengths likewise.
BYTE_LENGTHS: list[int] = [0, 1, 31, 32, 255, 256, 65535, 65536]
CONTAINER_LENGTHS: list[int] = [0, 1, 15, 16, 65535, 65536]

_OFFSET_RE = re.compile(r"at byte offset (\d+)")


def oracle_packb(obj: Any) -> bytes:
    """The reference encoding: msgpack-python with bin type enabled."""
    return bytes(msgpack.packb(obj, use_bin_type=True))


def hex_to_bytes(text: str) -> bytes:
    """Decode hex written as "cd-01-00" (the msgpack-test-suite notation)."""
    return bytes.fromhex(text.replace("-", ""))


def error_offset(exc: BaseException) -> int:
    """The N of "at byte offset N" in a decode error message (fails if there is none)."""
    match = _OFFSET_RE.search(str(exc))
    assert match is not None, f"no 'at byte offset N' in error message: {exc!s}"
    return int(match.group(1))


def same(a: Any, b: Any) -> bool:
    """Strict structural equality: exact types everywhere, floats compared bit for bit.

    Unlike ``==`` this tells False from 0, 1 from 1.0, -0.0 from 0.0, list from tuple, and it
    treats a NaN as equal to a NaN with the same bits. Dict key order is compared too.
    """
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack(">d", a) == struct.pack(">d", b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        if len(a) != len(b):
            return False
        return all(
            same(ka, kb) and same(va, vb) for (ka, va), (kb, vb) in zip(a.items(), b.items())
        )
    return bool(a == b)


def assert_same(actual: Any, expected: Any) -> None:
    assert same(actual, expected), f"{actual!r} is not exactly {expected!r}"


def nested_lists(depth: int) -> list[Any]:
    """``depth`` lists nested in each other: nested_lists(2) == [[]]."""
    obj: list[Any] = []
    for _ in range(depth - 1):
        obj = [obj]
    return obj


def is_negative_zero(value: float) -> bool:
    return value == 0.0 and math.copysign(1.0, value) < 0


# Options that fastmsgpack shares with ormsgpack, by name: the bit values differ between the two.
SHARED_OPTION_NAMES: tuple[str, ...] = (
    "OPT_NON_STR_KEYS",
    "OPT_SORT_KEYS",
    "OPT_PASSTHROUGH_BIG_INT",
    "OPT_PASSTHROUGH_TUPLE",
    "OPT_PASSTHROUGH_SUBCLASS",
    "OPT_NAIVE_UTC",
    "OPT_OMIT_MICROSECONDS",
    "OPT_UTC_Z",
    "OPT_PASSTHROUGH_DATETIME",
    "OPT_DATETIME_AS_TIMESTAMP_EXT",
    "OPT_PASSTHROUGH_UUID",
    "OPT_PASSTHROUGH_ENUM",
    "OPT_PASSTHROUGH_DATACLASS",
    "OPT_SERIALIZE_PYDANTIC",
)


def fast_option(*names: str) -> int:
    """The fastmsgpack option made of the named flags (e.g. "OPT_UTC_Z")."""
    option = 0
    for name in names:
        option |= getattr(fastmsgpack, name)
    assert isinstance(option, int)
    return option


def ormsgpack_option(option: int | None) -> int | None:
    """The ormsgpack option with the same flags, by name, as a fastmsgpack option."""
    if option is None:
        return None
    translated = 0
    rest = option
    for name in SHARED_OPTION_NAMES:
        bit = getattr(fastmsgpack, name)
        if option & bit:
            translated |= getattr(ormsgpack, name)
            rest &= ~bit
    assert rest == 0, f"no ormsgpack equivalent for option bits {rest:#x}"
    return translated


def ormsgpack_packb(
    obj: Any, option: int | None = None, default: Callable[[Any], Any] | None = None
) -> bytes:
    """ormsgpack.packb with a fastmsgpack option translated to ormsgpack's flags."""
    return ormsgpack.packb(obj, default=default, option=ormsgpack_option(option))


def assert_packs_like_ormsgpack(
    obj: Any, option: int | None = None, default: Callable[[Any], Any] | None = None
) -> bytes:
    """fastmsgpack.packb(obj) is byte for byte ormsgpack.packb(obj) with the same flags.

    Only for inputs that ormsgpack (1.13.1, and 1.12.2 on Python 3.10) packs correctly and
    without crashing. Returns the packed bytes.
    """
    expected = ormsgpack_packb(obj, option, default)
    actual = fastmsgpack.packb(obj, default=default, option=option)
    assert actual == expected, f"{actual!r} != ormsgpack's {expected!r}"
    return actual


# The JSON side: orjson as the oracle, the four real-world documents, and the `fmt` fixture.

# Options that fastmsgpack shares with orjson 3.13.0, by name (the bit values differ).
ORJSON_OPTION_NAMES: tuple[str, ...] = (
    "OPT_APPEND_NEWLINE",
    "OPT_INDENT_2",
    "OPT_NAIVE_UTC",
    "OPT_NON_STR_KEYS",
    "OPT_OMIT_MICROSECONDS",
    "OPT_PASSTHROUGH_DATACLASS",
    "OPT_PASSTHROUGH_DATETIME",
    "OPT_PASSTHROUGH_SUBCLASS",
    "OPT_SERIALIZE_NUMPY",
    "OPT_SORT_KEYS",
    "OPT_UTC_Z",
)


def orjson_option(*names: str) -> int:
    """The orjson option made of the named flags (e.g. "OPT_UTC_Z")."""
    option = 0
    for name in names:
        assert name in ORJSON_OPTION_NAMES, f"orjson has no {name}"
        option |= getattr(orjson, name)
    assert isinstance(option, int)
    return option


def option_ids(names: tuple[str, ...]) -> str:
    """A test id for a combination of option names: "INDENT_2|SORT_KEYS", or "none"."""
    return "|".join(name.removeprefix("OPT_") for name in names) or "none"


# scripts/test's runs on other interpreters after its default one (see pytest_collection_modifyitems).
REPEAT_RUN: bool = os.environ.get("FASTMSGPACK_TESTS_REPEAT") == "1"


def examples(count: int) -> int:
    """How many examples a property test draws: ``count`` in the default run, a third of it (at
    least 25) in the repeated runs on the other interpreters, which draw the same kinds of values
    to check that each interpreter agrees, while the default run searches wider."""
    return max(25, count // 3) if REPEAT_RUN else count


T = TypeVar("T")


def repeated_share(items: list[T]) -> list[T]:
    """All of ``items`` in the default run; in a repeated run on another interpreter, every third
    one, starting at a place that depends on the interpreter's minor version, so that the
    repeated runs check that each interpreter agrees on a different third while the default run
    checks them all."""
    if not REPEAT_RUN:
        return items
    return items[sys.version_info.minor % 3 :: 3]


# Deterministic property tests: derandomized, no example database.
JSON_PROPERTY = settings(
    max_examples=examples(300),
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Values inside JSON's data model (and tuples, which both formats write as arrays), for the
# property tests of the JSON entry points: ints to the ends of both ranges, floats of both widths
# with the special ones, and text with every character JSON escapes.
JSON_INTS = st.integers(-(2**63), 2**64 - 1) | st.sampled_from([2**53 + 1, 2**63, -(2**63)])
JSON_FLOATS = st.one_of(
    st.floats(),
    st.floats(width=32),
    st.sampled_from([math.nan, -math.nan, math.inf, -math.inf, -0.0, 5e-324, 1e16, 1e-7]),
)
JSON_TEXT = st.one_of(
    st.text(),
    st.text(st.characters(max_codepoint=0x7F)),
    st.text(st.sampled_from('\x00\x1f\x7f"\\/\b\f\n\r\t\u2028\u00e9\U0001f600a')),
)
# Every kind of dict key that OPT_NON_STR_KEYS turns into a JSON string.
JSON_KEYS = st.one_of(st.none(), st.booleans(), JSON_INTS, JSON_FLOATS, st.text())


# str dict keys: often the same few, so that nested and sibling dicts share keys.
JSON_DICT_KEYS = st.text(max_size=8) | st.text(st.sampled_from("ab"), max_size=2)


def json_scalars(floats: st.SearchStrategy[float] = JSON_FLOATS) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), st.booleans(), JSON_INTS, floats, JSON_TEXT)


def json_values(floats: st.SearchStrategy[float] = JSON_FLOATS) -> st.SearchStrategy[Any]:
    """Nested lists, tuples and str-keyed dicts of ``json_scalars(floats)``."""
    return st.recursive(
        json_scalars(floats),
        lambda children: st.one_of(
            st.lists(children, max_size=8),
            st.lists(children, max_size=8).map(tuple),
            st.dictionaries(JSON_DICT_KEYS, children, max_size=8),
        ),
        max_leaves=40,
    )


FIXTURES_DIR: Path = DATA / "fixtures"
FIXTURE_NAMES: tuple[str, ...] = ("twitter", "github", "citm_catalog", "canada")


@functools.cache
def load_fixture(name: str) -> Any:
    """One of the four real-world JSON documents (FIXTURE_NAMES), decoded by the standard
    library; read once per run from ``<DATA>/fixtures/<name>.json.xz``."""
    path = FIXTURES_DIR / f"{name}.json.xz"
    if not path.is_file():
        pytest.fail(f"fixture not found: {path}", pytrace=False)
    with lzma.open(path) as f:
        return json.loads(f.read())


@dataclasses.dataclass(frozen=True)
class Format:
    """One output format of the shared type rules: MessagePack (``packb``/``unpackb``) or JSON
    (``fastmsgpack.json.dumps``, read back by the standard library's ``json.loads``)."""

    name: str
    dumps: Callable[..., bytes]
    encode_error: type[fastmsgpack.MsgpackEncodeError]

    def encode(
        self, obj: Any, default: Callable[[Any], Any] | None = None, option: int | None = None
    ) -> bytes:
        return self.dumps(obj, default=default, option=option)

    def decode(self, data: bytes, non_str_keys: bool = False) -> Any:
        """The encoded value read back; JSON object keys are always strings."""
        if self.name == "json":
            return json.loads(data)
        return fastmsgpack.unpackb(
            data, option=fastmsgpack.OPT_NON_STR_KEYS if non_str_keys else None
        )

    def round_trip(
        self, obj: Any, default: Callable[[Any], Any] | None = None, option: int | None = None
    ) -> Any:
        non_str_keys = bool((option or 0) & fastmsgpack.OPT_NON_STR_KEYS)
        return self.decode(self.encode(obj, default, option), non_str_keys)


FORMATS: dict[str, Format] = {
    "msgpack": Format("msgpack", fastmsgpack.packb, fastmsgpack.MsgpackEncodeError),
    "json": Format("json", fastmsgpack.json.dumps, fastmsgpack.json.JSONEncodeError),
}


@pytest.fixture(params=list(FORMATS))
def fmt(request: pytest.FixtureRequest) -> Format:
    """Each output format in turn: tests using it run once with MessagePack, once with JSON."""
    return FORMATS[request.param]


__all__ = [
    "BYTE_LENGTHS",
    "CONTAINER_LENGTHS",
    "DATA",
    "FIXTURE_NAMES",
    "FORMATS",
    "INT_BOUNDARIES",
    "INT_OUT_OF_RANGE",
    "JSON_FLOATS",
    "JSON_INTS",
    "JSON_KEYS",
    "JSON_PROPERTY",
    "JSON_TEXT",
    "ORJSON_OPTION_NAMES",
    "SHARED_OPTION_NAMES",
    "Format",
    "assert_packs_like_ormsgpack",
    "assert_same",
    "error_offset",
    "fast_option",
    "hex_to_bytes",
    "is_negative_zero",
    "json_scalars",
    "json_values",
    "load_fixture",
    "nested_lists",
    "option_ids",
    "oracle_packb",
    "orjson_option",
    "ormsgpack_option",
    "ormsgpack_packb",
    "same",
]


# Subclasses of the builtins that pack as their base type.


class MyStr(str):
    pass


class MyInt(int):
    pass


class MyFloat(float):
    pass


class MyList(list[Any]):
    pass


class MyDict(dict[str, Any]):
    pass


class MyBytes(bytes):
    pass


class MyBytearray(bytearray):
    pass


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A real redis-server on a free loopback port, shared by the integration tests."""
    with start_redis_server(tmp_path_factory.mktemp("redis")) as server:
        yield server
