"""Public API surface: signatures, exception classes, __version__, options, input types, stubs."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _free_threaded import is_left_out

import fastmsgpack
from fastmsgpack import MsgpackDecodeError, MsgpackEncodeError

REPO_ROOT = Path(__file__).resolve().parents[1]

# Every option but the JSON layout options and the one typed-decoding option is valid for packb;
# unpackb takes only the six below.
JSON_ONLY_OPTION_NAMES = {"OPT_INDENT_2", "OPT_APPEND_NEWLINE", "OPT_STRICT_INTEGER"}
UNPACK_ONLY_OPTION_NAMES = {"OPT_FORBID_UNKNOWN_FIELDS", "OPT_BIN_MEMORYVIEW"}
PACK_OPTIONS = {
    name: getattr(fastmsgpack, name)
    for name in fastmsgpack.__all__
    if name.startswith("OPT_")
    and name not in JSON_ONLY_OPTION_NAMES
    and name not in UNPACK_ONLY_OPTION_NAMES
}
UNPACK_OPTION_NAMES = {
    "OPT_NON_STR_KEYS",
    "OPT_DATETIME_AS_TIMESTAMP_EXT",
    "OPT_NUMPY_RAW",
    "OPT_FORBID_UNKNOWN_FIELDS",
    "OPT_BIN_MEMORYVIEW",
    "OPT_EXACT",
}
PACK_ONLY_OPTIONS = {k: v for k, v in PACK_OPTIONS.items() if k not in UNPACK_OPTION_NAMES}
ALL_BITS = sum(getattr(fastmsgpack, n) for n in fastmsgpack.__all__ if n.startswith("OPT_"))
UNKNOWN_LOW_BIT = next(1 << n for n in range(64) if not ALL_BITS & (1 << n))
UNKNOWN_HIGH_BIT = 1 << 30
_UNKNOWN_RE = re.compile(r"unknown option bits (0x[0-9a-fA-F]+)")


# --- signatures -------------------------------------------------------------------------------

P = inspect.Parameter


def _describe(func: Any) -> list[tuple[str, Any, Any]]:
    params = inspect.signature(func).parameters.values()
    return [(p.name, p.kind, p.default) for p in params]


def test_packb_signature() -> None:
    assert _describe(fastmsgpack.packb) == [
        ("obj", P.POSITIONAL_ONLY, P.empty),
        ("default", P.POSITIONAL_OR_KEYWORD, None),
        ("option", P.POSITIONAL_OR_KEYWORD, None),
        ("buffer_callback", P.KEYWORD_ONLY, None),
        ("buffer_threshold", P.KEYWORD_ONLY, None),
        ("registry", P.KEYWORD_ONLY, None),
    ]


def test_unpackb_signature() -> None:
    assert _describe(fastmsgpack.unpackb) == [
        ("data", P.POSITIONAL_ONLY, P.empty),
        ("ext_hook", P.KEYWORD_ONLY, None),
        ("option", P.KEYWORD_ONLY, None),
        ("type", P.KEYWORD_ONLY, None),
        ("dec_hook", P.KEYWORD_ONLY, None),
        ("buffers", P.KEYWORD_ONLY, None),
        ("registry", P.KEYWORD_ONLY, None),
    ]


def test_unpack_only_options_are_refused_by_packb() -> None:
    for name in UNPACK_ONLY_OPTION_NAMES:
        with pytest.raises(MsgpackEncodeError, match=name):
            fastmsgpack.packb(1, option=getattr(fastmsgpack, name))


def test_packb_argument_passing() -> None:
    expected = fastmsgpack.packb([1])
    assert fastmsgpack.packb([1], None, None) == expected
    assert fastmsgpack.packb([1], default=None, option=None) == expected
    assert fastmsgpack.packb([1], None, option=0) == expected
    calls: list[Callable[[], object]] = [
        lambda: fastmsgpack.packb(obj=[1]),  # type: ignore[call-arg]
        lambda: fastmsgpack.packb(),  # type: ignore[call-arg]
        lambda: fastmsgpack.packb([1], None, None, None),  # type: ignore[call-arg]
        lambda: fastmsgpack.packb([1], unknown=1),  # type: ignore[call-arg]
    ]
    for call in calls:
        with pytest.raises(TypeError):
            call()
    # An argument given both by position and by keyword is refused, as Python refuses it, even
    # when one of the two is None.
    twice: list[tuple[Callable[[], object], str]] = [
        (lambda: fastmsgpack.packb([1], None, default=str), "default"),  # type: ignore[misc]
        (lambda: fastmsgpack.packb([1], str, default=None), "default"),  # type: ignore[misc]
        (lambda: fastmsgpack.packb([1], None, None, option=0), "option"),  # type: ignore[misc]
    ]
    for call, name in twice:
        with pytest.raises(TypeError, match=f"multiple values for argument '{name}'"):
            call()


def test_unpackb_argument_passing() -> None:
    assert fastmsgpack.unpackb(b"\x01", ext_hook=None, option=None) == 1
    assert fastmsgpack.unpackb(b"\x01", option=0) == 1
    calls: list[Callable[[], object]] = [
        lambda: fastmsgpack.unpackb(data=b"\x01"),  # type: ignore[call-overload]
        lambda: fastmsgpack.unpackb(b"\x01", None),  # type: ignore[call-overload]
        lambda: fastmsgpack.unpackb(b"\x01", None, None),  # type: ignore[call-overload]
        lambda: fastmsgpack.unpackb(),  # type: ignore[call-overload]
        lambda: fastmsgpack.unpackb(b"\x01", unknown=1),  # type: ignore[call-overload]
    ]
    for call in calls:
        with pytest.raises(TypeError):
            call()


# --- exceptions -------------------------------------------------------------------------------


def test_exception_hierarchy() -> None:
    assert issubclass(MsgpackEncodeError, TypeError)
    assert issubclass(MsgpackDecodeError, ValueError)
    assert MsgpackEncodeError is not TypeError
    assert MsgpackDecodeError is not ValueError
    assert not issubclass(MsgpackEncodeError, ValueError)
    assert not issubclass(MsgpackDecodeError, TypeError)
    assert not issubclass(TypeError, MsgpackEncodeError)
    assert not issubclass(ValueError, MsgpackDecodeError)


def test_exceptions_raised_are_the_subclasses() -> None:
    with pytest.raises(TypeError) as encode_error:
        fastmsgpack.packb(object())
    assert type(encode_error.value) is MsgpackEncodeError
    with pytest.raises(ValueError) as decode_error:
        fastmsgpack.unpackb(b"\xc1")
    assert type(decode_error.value) is MsgpackDecodeError


# --- version ----------------------------------------------------------------------------------


def test_version_matches_cargo_toml() -> None:
    assert isinstance(fastmsgpack.__version__, str)
    cargo = (REPO_ROOT / "Cargo.toml").read_text(encoding="utf-8")
    match = re.search(
        r'^\[package\][^\[]*?^version\s*=\s*"([^"]+)"', cargo, re.MULTILINE | re.DOTALL
    )
    assert match is not None
    assert fastmsgpack.__version__ == match.group(1)


# --- options ----------------------------------------------------------------------------------


def test_options_are_distinct_single_bits() -> None:
    values = [getattr(fastmsgpack, n) for n in fastmsgpack.__all__ if n.startswith("OPT_")]
    assert all(type(v) is int and v > 0 and v & (v - 1) == 0 for v in values)
    assert len(set(values)) == len(values)


@pytest.mark.parametrize("name", PACK_OPTIONS)
def test_packb_accepts_each_option(name: str) -> None:
    doc = {"a": [1, "b", 2.5]}
    assert fastmsgpack.packb(doc, option=PACK_OPTIONS[name]) == fastmsgpack.packb(doc)


def test_packb_accepts_options_together() -> None:
    doc = {"b": 1, "a": 2}
    # OPT_EXACT and OPT_JSON_COMPAT exclude each other (JSON has no extension types).
    for exclusive in (fastmsgpack.OPT_EXACT, fastmsgpack.OPT_JSON_COMPAT):
        all_pack_bits = sum(PACK_OPTIONS.values()) & ~exclusive
        without_sort = all_pack_bits & ~fastmsgpack.OPT_SORT_KEYS
        assert fastmsgpack.packb(doc, option=without_sort) == fastmsgpack.packb(doc)
        without_non_str = all_pack_bits & ~fastmsgpack.OPT_NON_STR_KEYS
        assert fastmsgpack.packb(doc, option=without_non_str) == fastmsgpack.packb({"a": 2, "b": 1})
    with pytest.raises(MsgpackEncodeError, match="OPT_EXACT and OPT_JSON_COMPAT"):
        fastmsgpack.packb(doc, option=sum(PACK_OPTIONS.values()))


@pytest.mark.parametrize("name", sorted(JSON_ONLY_OPTION_NAMES))
def test_json_layout_options_are_refused_by_msgpack_calls(name: str) -> None:
    # Indenting, a trailing newline and the 53-bit limit mean something only for JSON text.
    option = getattr(fastmsgpack, name)
    with pytest.raises(MsgpackEncodeError, match=name):
        fastmsgpack.packb(1, option=option)
    with pytest.raises(MsgpackDecodeError, match=name):
        fastmsgpack.unpackb(b"\x01", option=option)


def test_unpackb_accepts_non_str_keys() -> None:
    assert fastmsgpack.unpackb(b"\x81\x01\x02", option=fastmsgpack.OPT_NON_STR_KEYS) == {1: 2}


@pytest.mark.parametrize("name", PACK_ONLY_OPTIONS)
def test_unpackb_rejects_pack_options_by_name(name: str) -> None:
    with pytest.raises(MsgpackDecodeError, match=name):
        fastmsgpack.unpackb(b"\x01", option=PACK_ONLY_OPTIONS[name])
    with pytest.raises(MsgpackDecodeError, match=name):
        option = PACK_ONLY_OPTIONS[name] | fastmsgpack.OPT_NON_STR_KEYS
        fastmsgpack.unpackb(b"\x01", option=option)


def test_unpackb_names_every_invalid_option() -> None:
    option = fastmsgpack.OPT_SORT_KEYS | fastmsgpack.OPT_PASSTHROUGH_TUPLE
    with pytest.raises(MsgpackDecodeError) as info:
        fastmsgpack.unpackb(b"\x01", option=option)
    assert "OPT_SORT_KEYS" in str(info.value)
    assert "OPT_PASSTHROUGH_TUPLE" in str(info.value)


def _unknown_bits_in(exc: BaseException) -> int:
    match = _UNKNOWN_RE.search(str(exc))
    assert match is not None, str(exc)
    return int(match.group(1), 16)


@pytest.mark.parametrize("bit", [UNKNOWN_LOW_BIT, UNKNOWN_HIGH_BIT])
def test_unknown_option_bits(bit: int) -> None:
    assert not bit & ALL_BITS
    with pytest.raises(MsgpackEncodeError) as enc:
        fastmsgpack.packb(1, option=bit)
    assert _unknown_bits_in(enc.value) == bit
    with pytest.raises(MsgpackEncodeError) as enc:
        fastmsgpack.packb(1, option=bit | fastmsgpack.OPT_SORT_KEYS)
    assert _unknown_bits_in(enc.value) == bit
    with pytest.raises(MsgpackDecodeError) as dec:
        fastmsgpack.unpackb(b"\x01", option=bit)
    assert _unknown_bits_in(dec.value) == bit
    with pytest.raises(MsgpackDecodeError) as dec:
        fastmsgpack.unpackb(b"\x01", option=bit | fastmsgpack.OPT_NON_STR_KEYS)
    assert _unknown_bits_in(dec.value) == bit


@pytest.mark.parametrize("option", ["1", 1.0, [1], b"\x01", object()])
def test_non_int_option_is_type_error(option: Any) -> None:
    with pytest.raises(TypeError):
        fastmsgpack.packb(1, option=option)
    with pytest.raises(TypeError):
        fastmsgpack.unpackb(b"\x01", option=option)


# --- unpackb input types ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"\x92\x01\xa1a",
        bytearray(b"\x92\x01\xa1a"),
        memoryview(b"\x92\x01\xa1a"),
        memoryview(bytearray(b"\x92\x01\xa1a")),
        memoryview(b"xx\x92\x01\xa1ayy")[2:6],
    ],
    ids=["bytes", "bytearray", "memoryview", "memoryview-bytearray", "memoryview-slice"],
)
def test_unpackb_accepts_bytes_like(data: bytes | bytearray | memoryview) -> None:
    assert fastmsgpack.unpackb(data) == [1, "a"]


@pytest.mark.parametrize(
    "data",
    ["\x01", [1], 1, None, 1.0, memoryview(b"\x01\x01\x01\x01")[::2]],
    ids=["str", "list", "int", "None", "float", "non-contiguous-memoryview"],
)
def test_unpackb_rejects_other_types(data: Any) -> None:
    with pytest.raises(TypeError, match=r"^unpackb\(\) ") as info:
        fastmsgpack.unpackb(data)
    if isinstance(data, memoryview):
        assert "C-contiguous buffer" in str(info.value)
        assert isinstance(info.value.__cause__, BufferError)
    else:
        assert str(info.value).endswith(
            f"bytes, bytearray, memoryview or another object with a buffer (mmap), not "
            f"{type(data).__name__}"
        )


def test_unpackb_releases_the_input_buffer() -> None:
    # A bytearray with a live buffer export cannot be resized (BufferError).
    good = bytearray(b"\x92\x01\xa1a")
    assert fastmsgpack.unpackb(good) == [1, "a"]
    good.extend(b"more")
    bad = bytearray(b"\x92\x01\xc1")
    with pytest.raises(MsgpackDecodeError):
        fastmsgpack.unpackb(bad)
    bad.extend(b"more")
    view_source = bytearray(b"\x01")
    with memoryview(view_source) as view:
        assert fastmsgpack.unpackb(view) == 1
    view_source.extend(b"more")


# --- stubs ------------------------------------------------------------------------------------


# Packages that the integrations import and whose own code the check has no business reading:
# mypy analysing them (pydantic and langchain_core under LangGraph, distributed, celery's kombu,
# starlette) was about 60% of the check's time. Our stubs name their types, which are then Any;
# `mypy --strict` on the package (scripts/test) still checks our code against them. LangGraph and
# dramatiq themselves stay followed: the check compares our classes' metaclasses with theirs.
NOT_FOLLOWED = (
    "langchain_core", "langsmith", "pydantic", "pydantic_core", "distributed", "dask", "kombu",
    "celery", "starlette",
)  # fmt: skip


def test_stubs_match_runtime(tmp_path: Path) -> None:
    allowlists = [Path(__file__).with_name("stubtest-allowlist.txt")]
    patterns = ",".join(f"{name}.*" for name in NOT_FOLLOWED)
    sections = [f"[mypy-{patterns}]\nfollow_imports = skip\nignore_missing_imports = True\n"]
    left_out = [name for name in ("langgraph", "langchain_core") if is_left_out(name)]
    if left_out:
        # A free-threaded run, where the LangGraph integration's dependencies cannot be installed
        # (doc/threads.md): its module is left out of the check, and the rest is checked.
        (tmp_path / "left-out.txt").write_text("fastmsgpack.integrations.langgraph(\\..*)?\n")
        allowlists.append(tmp_path / "left-out.txt")
        sections += [
            f"[mypy-{name}.*]\nignore_missing_imports = True\n"
            for name in left_out
            if name not in NOT_FOLLOWED
        ]
    (tmp_path / "mypy.ini").write_text("[mypy]\nstrict = True\n" + "".join(sections))
    config = ["--mypy-config-file", str(tmp_path / "mypy.ini")]
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy.stubtest",
            "fastmsgpack",
            *(arg for path in allowlists for arg in ("--allowlist", str(path))),
            *config,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _fresh(name: str) -> str:
    """An equal str that is not the interned one."""
    return name[:1] + name[1:]


def test_unpackb_keywords_from_a_mapping_of_new_strings() -> None:
    # Keyword names written in a call are interned; names built at run time are not, and must
    # be matched by value.
    data = fastmsgpack.packb({"a": [1, 2]})
    assert _fresh("option") is not "option"  # noqa: F632
    typed: dict[str, Any] = {_fresh("option"): None, _fresh("type"): dict[str, list[int]]}
    assert fastmsgpack.unpackb(data, **typed) == {"a": [1, 2]}
    wrong: dict[str, Any] = {_fresh("type"): dict[str, list[str]]}
    with pytest.raises(fastmsgpack.ValidationError):
        fastmsgpack.unpackb(data, **wrong)
    unknown: dict[str, Any] = {_fresh("optio"): None}
    with pytest.raises(TypeError, match="unexpected keyword argument 'optio'"):
        fastmsgpack.unpackb(data, **unknown)
