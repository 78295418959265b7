"""``python -m fastmsgpack``: MessagePack to JSON (indented, or compact), JSON to MessagePack, a
stream of objects, and bad input (exit status 1, the error with its byte offset on stderr); what
JSON has no type for (timestamps, raw numpy arrays, bin and ext values) written in readable forms,
each on files packed by fastmsgpack with the options that write them."""

from __future__ import annotations

import base64
import datetime
import io
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import fastmsgpack
import fastmsgpack.__main__
from fastmsgpack import (
    OPT_DATETIME_AS_TIMESTAMP_EXT,
    OPT_NAIVE_UTC,
    OPT_NON_STR_KEYS,
    OPT_NUMPY_RAW,
    OPT_SERIALIZE_NUMPY,
    Ext,
    packb,
    unpackb,
)

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


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--compact", None), ("--non-str-keys", None), ("--bytes", "hex"), ("--numpy", "summary")],
)
def test_json_output_flags_are_refused_with_from_json(flag: str, value: str | None) -> None:
    result = run("--from-json", flag, *([value] if value else []), stdin=b"[1]")
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


class _Input(io.BytesIO):
    """Standard input that records the size of each read, from a file or (not seekable) a pipe."""

    def __init__(self, data: bytes, seekable: bool) -> None:
        super().__init__(data)
        self.sizes: list[int] = []
        self._seekable = seekable

    def read(self, size: int | None = -1, /) -> bytes:
        self.sizes.append(-1 if size is None else size)
        return super().read(size)

    def seekable(self) -> bool:
        return self._seekable


class _Output:
    """Standard output that records each document and how much of the input had been read then."""

    def __init__(self, source: _Input) -> None:
        self.source = source
        self.documents: list[bytes] = []
        self.read_before: list[int] = []

    def write(self, document: bytes) -> None:
        self.documents.append(document)
        self.read_before.append(self.source.tell())

    def flush(self) -> None:
        pass


def _main_on(
    monkeypatch: pytest.MonkeyPatch, data: bytes, seekable: bool, *args: str
) -> tuple[int, _Input, _Output]:
    source = _Input(data, seekable)
    output = _Output(source)
    monkeypatch.setattr(sys, "stdin", SimpleNamespace(buffer=source))
    monkeypatch.setattr(sys, "stdout", SimpleNamespace(buffer=output, flush=output.flush))
    status = fastmsgpack.__main__.main(list(args))
    return status, source, output


@pytest.mark.parametrize("seekable", [True, False])
def test_a_long_stream_is_read_a_piece_at_a_time(
    monkeypatch: pytest.MonkeyPatch, seekable: bool
) -> None:
    # 20,000 objects, some 5 MB: each is written before much more than itself has been read.
    objects = [{"id": i, "name": f"item {i}", "payload": "x" * 200} for i in range(20_000)]
    packed = [packb(o) for o in objects]
    data = b"".join(packed)
    assert len(data) > 4_000_000
    status, source, output = _main_on(monkeypatch, data, seekable, "--compact")
    assert status == 0
    assert output.documents == [
        json.dumps(o, separators=(",", ":")).encode() + b"\n" for o in objects
    ]
    assert all(0 < size <= 65536 for size in source.sizes)
    assert len(source.sizes) > len(data) // 65536
    end = 0
    for item, read_before in zip(packed, output.read_before):
        end += len(item)
        assert end <= read_before <= end + 65536


@pytest.mark.parametrize("seekable", [True, False])
def test_a_stream_that_ends_inside_its_last_object(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], seekable: bool
) -> None:
    # Past the first pieces read: the error gives what is missing at its offset in the input.
    whole = packb([{"name": "n" * 100}] * 1000)
    data = packb(1) * 100_000 + whole[:-1]
    status, _, output = _main_on(monkeypatch, data, seekable, "--compact")
    assert status == 1
    assert len(output.documents) == 100_000
    with pytest.raises(fastmsgpack.MsgpackDecodeError) as info:
        unpackb(whole[:-1])
    message, _, offset = str(info.value).rpartition(" at byte offset ")
    assert message == "truncated input: str needs 100 more bytes, only 99 left"
    expected = f"{message} at byte offset {int(offset) + 100_000}"
    assert capsys.readouterr().err == f"python -m fastmsgpack: error: {expected}\n"


def test_values_json_cannot_hold() -> None:
    # Without --bytes, a bin value stops the program where it is, and the message names the flag.
    result = run(stdin=packb({"a": b"bytes"}))
    assert_fails(result, b"bytes", b"at byte offset 3", b"--bytes base64 or --bytes hex")


def test_bad_json_and_missing_file(tmp_path: Path) -> None:
    assert_fails(run("--from-json", stdin=b'{"a": [1,'), b"char 9")
    assert_fails(run("--from-json", stdin=b"[18446744073709551616]"), b"int")
    assert_fails(run(str(tmp_path / "missing.msgpack")), b"missing.msgpack")


def test_json_nested_too_deep_is_a_clean_error() -> None:
    # Deeper than Python's JSON parser recurses: a one-line error, not a traceback.
    assert_fails(run("--from-json", stdin=b"[" * 100_000 + b"]" * 100_000), b"error: ", b"depth")


UTC = datetime.timezone.utc


def compact(path: Path, *flags: str) -> list[bytes]:
    """The compact JSON documents the command line writes for the file at ``path``."""
    return ok("--compact", *flags, str(path)).splitlines()


def test_timestamps_are_rfc_3339_text(tmp_path: Path) -> None:
    snapshot = {
        "whole_second": datetime.datetime(2024, 5, 17, 12, 30, 45, tzinfo=UTC),  # timestamp 32
        "taken": datetime.datetime(2024, 5, 17, 12, 30, 45, 123456, tzinfo=UTC),  # timestamp 64
        "before_1970": datetime.datetime(1900, 1, 1, 0, 0, 0, 500000, tzinfo=UTC),  # 96
        "offset": [
            datetime.datetime(
                2024, 5, 17, 14, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=2))
            )
        ],
        "naive": datetime.datetime(2024, 5, 17),  # a string, as packb writes it
    }
    packed = packb(snapshot, option=OPT_DATETIME_AS_TIMESTAMP_EXT)
    path = tmp_path / "snapshot.msgpack"
    path.write_bytes(packed)
    assert compact(path) == [
        (
            b'{"whole_second":"2024-05-17T12:30:45+00:00",'
            b'"taken":"2024-05-17T12:30:45.123456+00:00",'
            b'"before_1970":"1900-01-01T00:00:00.500000+00:00",'
            b'"offset":["2024-05-17T12:30:00+00:00"],'
            b'"naive":"2024-05-17T00:00:00"}'
        )
    ]
    # The text json.dumps writes for the datetimes unpackb gives back, indented by default.
    unpacked = unpackb(packed, option=OPT_DATETIME_AS_TIMESTAMP_EXT)
    layout = fastmsgpack.OPT_INDENT_2 | fastmsgpack.OPT_APPEND_NEWLINE
    assert ok(str(path)) == fastmsgpack.json.dumps(unpacked, option=layout)


def test_timestamps_keep_their_nanoseconds(tmp_path: Path) -> None:
    # numpy datetime64 values are packed as timestamps with nanoseconds.
    when = np.array(
        ["2024-05-17T12:30:45.123456789", "2024-05-17T12:30:45.123456", "1969-12-31T23:59:59"],
        dtype="datetime64[ns]",
    )
    option = OPT_SERIALIZE_NUMPY | OPT_DATETIME_AS_TIMESTAMP_EXT | OPT_NAIVE_UTC
    path = tmp_path / "ns.msgpack"
    path.write_bytes(packb(when, option=option))
    assert compact(path) == [
        (
            b'["2024-05-17T12:30:45.123456789+00:00","2024-05-17T12:30:45.123456+00:00",'
            b'"1969-12-31T23:59:59+00:00"]'
        )
    ]


def test_timestamp_keys(tmp_path: Path) -> None:
    when = datetime.datetime(2024, 5, 17, tzinfo=UTC)
    option = OPT_DATETIME_AS_TIMESTAMP_EXT | OPT_NON_STR_KEYS
    path = tmp_path / "keys.msgpack"
    path.write_bytes(packb({when: 1, 2: when}, option=option))
    assert compact(path, "--non-str-keys") == [
        b'{"2024-05-17T00:00:00+00:00":1,"2":"2024-05-17T00:00:00+00:00"}'
    ]


@pytest.mark.parametrize(
    ("timestamp", "why"),
    [
        (b"\xd5\xff\x00\x00", b"length must be 4, 8 or 12 bytes"),
        (b"\xd7\xff" + b"\xff" * 8, b"nanoseconds must be below 10**9"),
        (
            b"\xc7\x0c\xff" + bytes(4) + (2**62).to_bytes(8, "big"),
            b"outside the range of datetime (years 1 to 9999)",
        ),
    ],
)
def test_invalid_timestamps(timestamp: bytes, why: bytes) -> None:
    # The offset is the timestamp's, in the whole input (after an object written first).
    result = run(stdin=packb("first") + b"\x91" + timestamp)
    assert_fails(result, b"invalid timestamp extension: " + why + b" at byte offset 7")
    assert result.stdout == b'"first"\n'


RAW_ARRAYS = {
    "weights": np.arange(6, dtype=">f4").reshape(2, 3),
    "ids": np.array([1, 2**40], dtype="<u8"),
    "flags": np.array([True, False]),
    "empty": np.zeros((2, 0)),
    "zero_d": np.array(-7, dtype="i2"),
    "scalar": np.float32(0.5),
    "complex": np.array([1 + 2j, -0.5j]),
    "text": np.array(["ab", "é"]),
    "days": np.array(["2024-05-17", "NaT"], dtype="datetime64[D]"),
    "instants": np.array(["2024-05-17T12:30:45.123456789"], dtype="datetime64[ns]"),
    "durations": np.array([90, "NaT"], dtype="timedelta64[s]"),
}


def test_raw_numpy_arrays_as_nested_lists(tmp_path: Path) -> None:
    path = tmp_path / "arrays.msgpack"
    path.write_bytes(packb(RAW_ARRAYS, option=OPT_NUMPY_RAW))
    expected = {
        "weights": [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
        "ids": [1, 2**40],
        "flags": [True, False],
        "empty": [[], []],
        "zero_d": -7,
        "scalar": 0.5,
        "complex": [[1.0, 2.0], [-0.0, -0.5]],
        "text": ["ab", "é"],
        "days": ["2024-05-17", "NaT"],
        "instants": ["2024-05-17T12:30:45.123456789"],
        "durations": [90, None],
    }
    assert [json.loads(document) for document in compact(path)] == [expected]
    assert ok("--numpy", "list", str(path)) == ok(str(path))


def test_raw_numpy_arrays_summary(tmp_path: Path) -> None:
    path = tmp_path / "arrays.msgpack"
    path.write_bytes(packb(RAW_ARRAYS, option=OPT_NUMPY_RAW))
    [document] = compact(path, "--numpy", "summary")
    summary = json.loads(document)
    assert summary["weights"] == {"dtype": ">f4", "shape": [2, 3]}
    assert summary["empty"] == {"dtype": "<f8", "shape": [2, 0]}
    assert summary["zero_d"] == {"dtype": "<i2", "shape": []}
    assert summary["instants"] == {"dtype": "<M8[ns]", "shape": [1]}
    assert summary["scalar"] == 0.5  # a numpy scalar is written as its value
    assert set(summary) == set(RAW_ARRAYS)


def test_raw_numpy_bytes_arrays_need_an_encoding(tmp_path: Path) -> None:
    path = tmp_path / "bytes_array.msgpack"
    path.write_bytes(packb([1, np.array([[b"a"], [b"\xff\x00"]])], option=OPT_NUMPY_RAW))
    assert compact(path, "--bytes", "hex") == [b'[1,[["61"],["ff"]]]']
    result = run(str(path))
    assert_fails(result, b"a numpy bytes array cannot be written as JSON", b"--bytes base64")


def test_raw_numpy_arrays_with_non_str_keys(tmp_path: Path) -> None:
    # The map of a raw array has bin keys: it is an array all the same.
    path = tmp_path / "arrays.msgpack"
    path.write_bytes(packb({1: np.arange(3)}, option=OPT_NUMPY_RAW | OPT_NON_STR_KEYS))
    assert compact(path, "--non-str-keys") == [b'{"1":[0,1,2]}']


def test_invalid_raw_numpy_array() -> None:
    bad = packb(
        {b"nd": True, b"type": "<i4", b"kind": b"", b"shape": [5], b"data": bytes(16)},
        option=OPT_NON_STR_KEYS,
    )
    assert_fails(run(stdin=packb(0) + bad), b"invalid numpy array map", b"at byte offset 1")


BLOB = b"\x00\x01\xfe\xff"


@pytest.mark.parametrize(
    ("form", "text"), [("base64", base64.b64encode(BLOB)), ("hex", BLOB.hex().encode())]
)
def test_bytes(tmp_path: Path, form: str, text: bytes) -> None:
    path = tmp_path / "bytes.msgpack"
    path.write_bytes(packb({"blob": BLOB, "empty": b"", "list": [bytearray(BLOB)]}))
    expected = b'{"blob":"%s","empty":"","list":["%s"]}' % (text, text)
    assert compact(path, "--bytes", form) == [expected]


def test_bytes_error_is_the_default(tmp_path: Path) -> None:
    path = tmp_path / "bytes.msgpack"
    path.write_bytes(packb(["x", BLOB]))
    assert run("--bytes", "error", str(path)).stderr == run(str(path)).stderr
    assert_fails(run(str(path)), b"bytes cannot be written as JSON at byte offset 3")


def test_bytes_keys(tmp_path: Path) -> None:
    path = tmp_path / "keys.msgpack"
    # b"1" in base64 is "MQ==", the text of the str key: both keys are written.
    path.write_bytes(packb({b"1": 1, "MQ==": 2, (1, b"1"): 3}, option=OPT_NON_STR_KEYS))
    assert compact(path, "--non-str-keys", "--bytes", "base64") == [
        b'{"MQ==":1,"MQ==":2,"[1,\\"MQ==\\"]":3}'
    ]
    assert compact(path, "--non-str-keys", "--bytes", "hex") == [
        b'{"31":1,"MQ==":2,"[1,\\"31\\"]":3}'
    ]
    assert_fails(run("--non-str-keys", str(path)), b"bytes cannot be written as JSON")


def test_ext_values(tmp_path: Path) -> None:
    path = tmp_path / "ext.msgpack"
    path.write_bytes(packb({"e": Ext(5, b"\x01\x02"), "n": [Ext(-100, b"")]}))
    assert compact(path, "--bytes", "hex") == [
        b'{"e":{"ext":5,"data":"0102"},"n":[{"ext":-100,"data":""}]}'
    ]
    assert compact(path, "--bytes", "base64") == [
        b'{"e":{"ext":5,"data":"AQI="},"n":[{"ext":-100,"data":""}]}'
    ]
    assert_fails(run(str(path)), b"Ext cannot be written as JSON", b"--bytes base64")


def test_ext_keys(tmp_path: Path) -> None:
    path = tmp_path / "ext.msgpack"
    path.write_bytes(b"\x81\xd4\x05\x01\x01")  # {Ext(5, b"\x01"): 1}
    assert compact(path, "--non-str-keys", "--bytes", "hex") == [
        b'{"{\\"ext\\":5,\\"data\\":\\"01\\"}":1}'
    ]


def test_stream_of_objects_that_need_each_form(tmp_path: Path) -> None:
    objects = [
        packb({"plain": [1, 2]}),
        packb(datetime.datetime(2024, 5, 17, tzinfo=UTC), option=OPT_DATETIME_AS_TIMESTAMP_EXT),
        packb(np.arange(3, dtype="u1"), option=OPT_NUMPY_RAW),
        packb([b"\x00", Ext(1, b"\x02")]),
        packb("last"),
    ]
    path = tmp_path / "stream.msgpack"
    path.write_bytes(b"".join(objects))
    assert compact(path, "--bytes", "hex") == [
        b'{"plain":[1,2]}',
        b'"2024-05-17T00:00:00+00:00"',
        b"[0,1,2]",
        b'["00",{"ext":1,"data":"02"}]',
        b'"last"',
    ]
    # An error in a later object gives its offset in the whole file.
    bad = b"".join(objects[:3]) + b"\x92\xc4\x01\x00\xc1"
    result = run("--compact", "--bytes", "hex", stdin=bad)
    assert_fails(result, b"reserved marker byte 0xc1 at byte offset %d" % (len(bad) - 1))
    assert result.stdout.splitlines() == [
        b'{"plain":[1,2]}',
        b'"2024-05-17T00:00:00+00:00"',
        b"[0,1,2]",
    ]


@pytest.mark.parametrize("depth", [300, 1000])
def test_too_deep_after_a_bin_value(depth: int) -> None:
    # The transcoder stops at the bin value; the object is unpacked and is too deep for JSON.
    data = packb(0) + b"\x92\xc4\x01\x00" + b"\x91" * (depth - 2) + b"\x90"
    assert_fails(run("--bytes", "hex", stdin=data), b"in the object at byte offset 1")
    # Deep without a bin value: the transcoder says where.
    deep_data = packb(0) + b"\x91" * depth + b"\x90"
    assert_fails(run("--bytes", "hex", stdin=deep_data), b"deeper than 254 levels", b"offset 255")


def test_transcoder_is_used_unless_an_object_needs_unpackb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    calls: list[bytes] = []
    real = fastmsgpack.unpackb

    def counting(data: bytes, **kwargs: Any) -> Any:
        calls.append(bytes(data))
        return real(data, **kwargs)

    monkeypatch.setattr(fastmsgpack, "unpackb", counting)
    path = tmp_path / "stream.msgpack"
    path.write_bytes(packb([1]) + packb(b"\x00") + packb({"a": "b"}))
    assert fastmsgpack.__main__.main(["--compact", "--bytes", "hex", str(path)]) == 0
    assert capsysbinary.readouterr().out == b'[1]\n"00"\n{"a":"b"}\n'
    # Only the object with a bin value is unpacked, once, on its own bytes (the Unpacker found
    # where it ends).
    assert calls == [packb(b"\x00")]


@pytest.mark.parametrize(("flag", "value"), [("--bytes", "rot13"), ("--numpy", "full")])
def test_bad_flag_values(flag: str, value: str) -> None:
    result = run(flag, value, stdin=packb(1))
    assert result.returncode == 2
    assert b"Traceback" not in result.stderr
    assert f"argument {flag}: invalid choice: '{value}'".encode() in result.stderr


def test_help_describes_every_flag() -> None:
    text = ok("--help")
    for needle in [
        b"--compact",
        b"--from-json",
        b"--non-str-keys",
        b"--bytes",
        b"base64",
        b"hex",
        b"--numpy",
        b"summary",
        b"RFC 3339",
    ]:
        assert needle in text


# --- OPT_EXACT, and messages in the command's own words ------------------------------------


def test_exact_values_in_their_json_form(tmp_path: Path) -> None:
    import decimal
    import uuid

    value = {
        "stops": (1, 2, 3),
        "tags": {"fragile"},
        "frozen": frozenset([1]),
        "id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
        "price": decimal.Decimal("19.90"),
        "at": datetime.datetime(2024, 5, 17, 9, 30, tzinfo=datetime.timezone.utc),
        "day": datetime.date(2024, 5, 17),
        "big": 2**100,
        "z": 1 + 2j,
        "wait": datetime.timedelta(days=1, seconds=5, microseconds=250),
        "raw": bytearray(b"\x00\xff"),
        "when": datetime.datetime(2024, 5, 17, 9, 30, tzinfo=datetime.timezone.utc),
        (1, 2): "tuple key",
    }
    path = tmp_path / "exact.msgpack"
    path.write_bytes(packb(value, option=fastmsgpack.OPT_EXACT))
    out = json.loads(ok("--exact", "--bytes", "hex", str(path)))
    assert out == {
        "stops": [1, 2, 3],
        "tags": ["fragile"],
        "frozen": [1],
        "id": "12345678-1234-5678-1234-567812345678",
        "price": "19.90",
        "at": "2024-05-17T09:30:00+00:00",
        "day": "2024-05-17",
        "big": 2**100,
        "z": [1.0, 2.0],
        "wait": 86405.00025,
        "raw": "00ff",
        "when": "2024-05-17T09:30:00+00:00",
        "[1,2]": "tuple key",
    }
    # Every digit of the big int and of the timedelta, as JSON numbers.
    compact = ok("--exact", "--compact", "--bytes", "hex", str(path))
    assert b'"big":1267650600228229401496703205376' in compact
    assert b'"wait":86405.000250' in compact


def test_exact_values_without_the_flag_name_it(tmp_path: Path) -> None:
    path = tmp_path / "exact.msgpack"
    path.write_bytes(packb({"stops": (1, 2)}, option=fastmsgpack.OPT_EXACT))
    result = run(str(path))
    assert_fails(result, b"written with OPT_EXACT: use --exact")
    # Even with --bytes, the exact codes are not shown as opaque data.
    assert_fails(run("--bytes", "hex", str(path)), b"use --exact")


def test_exact_and_timestamps_together(tmp_path: Path) -> None:
    when = datetime.datetime(2024, 5, 17, 9, 30, tzinfo=datetime.timezone.utc)
    path = tmp_path / "both.msgpack"
    path.write_bytes(
        packb({"t": when}, option=OPT_DATETIME_AS_TIMESTAMP_EXT)
        + packb({"t": (when,)}, option=fastmsgpack.OPT_EXACT)
    )
    out = ok("--exact", "--compact", str(path))
    assert out == b'{"t":"2024-05-17T09:30:00+00:00"}\n{"t":["2024-05-17T09:30:00+00:00"]}\n'


def test_exact_is_refused_with_from_json() -> None:
    result = run("--from-json", "--exact", stdin=b"1")
    assert result.returncode == 2
    assert b"--exact applies to JSON output" in result.stderr


def test_messages_name_the_flags_not_the_options() -> None:
    result = run(stdin=packb({1: "one"}, option=OPT_NON_STR_KEYS))
    assert_fails(result, b"--non-str-keys")
    assert b"OPT_NON_STR_KEYS" not in result.stderr


def test_help_names_no_file_path() -> None:
    text = ok("--help")
    assert b"doc/" not in text
    for needle in [b"--exact", b"OPT_EXACT", b"tuples", b"RFC 3339", b"timedeltas"]:
        assert needle in text
