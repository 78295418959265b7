"""``python -m fastmsgpack``: MessagePack to JSON (indented, or compact), JSON to MessagePack, a
stream of objects, and bad input (exit status 1, the error with its byte offset on stderr)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fastmsgpack import OPT_NON_STR_KEYS, packb, unpackb

VALUE = {"id": 1, "tags": ["a", "é"], "ratio": 0.5, "none": None, "nested": {"ok": True}}


def run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "fastmsgpack", *args],
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
    )


def ok(*args: str, stdin: bytes = b"") -> bytes:
    result = run(*args, stdin=stdin)
    assert result.returncode == 0, result.stderr
    assert result.stderr == b""
    return result.stdout


def test_file_argument_prints_indented_json(tmp_path: Path) -> None:
    path = tmp_path / "value.msgpack"
    path.write_bytes(packb(VALUE))
    out = ok(str(path))
    assert out == json.dumps(VALUE, indent=2, ensure_ascii=False).encode() + b"\n"
    assert json.loads(out) == VALUE


def test_stdin() -> None:
    assert json.loads(ok(stdin=packb(VALUE))) == VALUE


def test_dash_is_stdin() -> None:
    assert json.loads(ok("-", stdin=packb(VALUE))) == VALUE
    assert unpackb(ok("--from-json", "-", stdin=b'{"a": [1]}')) == {"a": [1]}


@pytest.mark.parametrize("flag", ["--compact", "--non-str-keys"])
def test_json_output_flags_are_refused_with_from_json(flag: str) -> None:
    result = run("--from-json", flag, stdin=b"[1]")
    assert result.returncode == 2
    assert result.stdout == b""
    assert f"{flag} applies to JSON output".encode() in result.stderr


def test_compact() -> None:
    assert ok("--compact", stdin=packb([1, {"a": None}])) == b'[1,{"a":null}]\n'


def test_stream_of_three_objects() -> None:
    stream = packb({"a": 1}) + packb([1, 2]) + packb("x")
    assert ok("--compact", stdin=stream) == b'{"a":1}\n[1,2]\n"x"\n'
    assert ok(stdin=stream) == b'{\n  "a": 1\n}\n[\n  1,\n  2\n]\n"x"\n'


def test_empty_input_is_an_empty_stream() -> None:
    assert ok(stdin=b"") == b""


@pytest.mark.parametrize("value", [VALUE, [1, -2.5, "x", [], {}], "plain", None])
def test_from_json_round_trip(value: Any) -> None:
    packed = ok("--from-json", stdin=json.dumps(value).encode())
    assert packed == packb(value)
    assert json.loads(ok(stdin=packed)) == value


def test_from_json_stream_and_back(tmp_path: Path) -> None:
    stream = packb({"a": 1}) + packb([True, None]) + packb(3)
    path = tmp_path / "stream.json"
    path.write_bytes(ok(stdin=stream))
    assert ok("--from-json", str(path)) == stream


def test_non_str_keys() -> None:
    packed = packb({1: "one", None: [2]}, option=OPT_NON_STR_KEYS)
    assert ok("--compact", "--non-str-keys", stdin=packed) == b'{"1":"one","null":[2]}\n'
    assert unpackb(ok("--from-json", stdin=b'{"1": "one"}')) == {"1": "one"}


def assert_fails(result: subprocess.CompletedProcess[bytes], *needles: bytes) -> None:
    assert result.returncode == 1
    assert b"Traceback" not in result.stderr
    for needle in needles:
        assert needle in result.stderr


@pytest.mark.parametrize(
    ("data", "offset"),
    [(b"\xc1", 0), (b"\x92\x01", 0), (b"\x93\x01\x02\xc1", 3), (b"\xa2\xff\xfe", 0)],
)
def test_malformed_input(data: bytes, offset: int) -> None:
    assert_fails(run(stdin=data), b"at byte offset %d" % offset)


def test_malformed_object_in_a_stream_after_good_ones() -> None:
    result = run("--compact", stdin=packb(1) + packb("ok") + b"\x81\x01\x02")
    assert_fails(result, b"map key must be str", b"at byte offset 5")
    assert result.stdout == b'1\n"ok"\n'


def test_values_json_cannot_hold() -> None:
    assert_fails(run(stdin=packb({"a": b"bytes"})), b"bytes", b"at byte offset 3")


def test_bad_json_and_missing_file(tmp_path: Path) -> None:
    assert_fails(run("--from-json", stdin=b'{"a": [1,'), b"char 9")
    assert_fails(run("--from-json", stdin=b"[18446744073709551616]"), b"int")
    assert_fails(run(str(tmp_path / "missing.msgpack")), b"missing.msgpack")


def test_json_nested_too_deep_is_a_clean_error() -> None:
    # Deeper than Python's JSON parser recurses: a one-line error, not a traceback.
    assert_fails(run("--from-json", stdin=b"[" * 100_000 + b"]" * 100_000), b"error: ", b"depth")
