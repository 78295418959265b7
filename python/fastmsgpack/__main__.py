"""``python -m fastmsgpack``: MessagePack to JSON, or JSON to MessagePack, on the command line.

    python -m fastmsgpack [FILE]               MessagePack in, indented JSON out
    python -m fastmsgpack --compact [FILE]     MessagePack in, compact JSON out
    python -m fastmsgpack --exact [FILE]       MessagePack written with OPT_EXACT in, JSON out
    python -m fastmsgpack --from-json [FILE]   JSON in, MessagePack out

The input is FILE, or standard input without one or when FILE is ``-``. It may hold several
objects one after the other: each is printed as its own JSON document, followed by a newline.
MessagePack input is read in pieces by ``fastmsgpack.Unpacker``, which finds where each object
ends, so that a long stream is converted as it is read rather than loaded whole.
Bad input ends the program with status 1 and the error (which says where it is) on standard
error. The options that shape JSON output (``--compact``, ``--non-str-keys``, ``--bytes``,
``--numpy``, ``--exact``) are refused with ``--from-json``. Messages name the command's own
flags (``--non-str-keys``), not the library's options.

Each object is first converted by the Rust transcoder, without building Python objects. An object
that holds what JSON has no type for (timestamps, raw numpy arrays, binary and extension values)
makes the transcoder stop; that object is then unpacked with ``fastmsgpack.unpackb`` and its
values are made JSON-ready here, as the options say, before ``fastmsgpack.json.dumps`` writes it.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import datetime
import decimal
import json
import os
import re
import sys
import uuid
from collections import deque
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any, BinaryIO

import fastmsgpack
from fastmsgpack import MsgpackDecodeError
from fastmsgpack import json as fastjson

PROG = "python -m fastmsgpack"

# The start of the next JSON document: anything but JSON's whitespace.
_NOT_WHITESPACE = re.compile(r"[^ \t\n\r]")

BYTES_FORMS = ("error", "base64", "hex")
NUMPY_FORMS = ("list", "summary")

# How much of the MessagePack input is read at a time.
READ_SIZE = 65536

# The kinds of the transcoder's errors that unpacking the object cannot help: a bin value (the
# transcoder refuses bin keys another way), which comes before any raw numpy array would, and
# nesting too deep.
_BYTES_VALUE = "bytes_not_json"
_TOO_DEEP = "too_deep"
_BYTES_HINT = "use --bytes base64 or --bytes hex"

_EPOCH = datetime.datetime(1970, 1, 1)

#: The extension codes OPT_EXACT writes (doc/exact.md): read as values with --exact.
_EXACT_CODES = range(-128, -115)
_EXACT_HINT = "written with OPT_EXACT: use --exact"

#: The library's option names in messages, and the flags of this command that set them.
_FLAGS = {"OPT_NON_STR_KEYS": "--non-str-keys"}


def docs_url() -> str | None:
    """The online documentation's address, from the installed package's metadata
    (``[project.urls] Documentation`` in pyproject.toml); ``None`` when it names none."""
    from importlib import metadata

    try:
        urls = metadata.metadata("fastmsgpack").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() == "documentation" and url.strip():
            return str(url.strip())
    return None


#: What the help says of the forms JSON gets (doc/json.md's table, in short).
FORMS = (
    "Forms of the values JSON has no type for: a timestamp extension is its RFC 3339 text in "
    'UTC; a raw numpy array is nested lists (--numpy list) or {"dtype", "shape"} (--numpy '
    "summary); a bin is base64 or hex text (--bytes); with --exact, the extension values of "
    "OPT_EXACT are their values: tuples, sets and frozensets as arrays, datetimes, dates and "
    "times as RFC 3339 text, UUIDs and Decimals as their text, big ints as numbers, complex "
    "numbers as [real, imaginary], timedeltas as their seconds; other extension values are "
    '{"ext": TAG, "data": DATA} with DATA as --bytes writes a bin.'
)


def in_cli_words(message: str) -> str:
    """``message`` with the library's option names replaced by the flags that set them."""
    for option, flag in _FLAGS.items():
        message = message.replace(f"see {option}", f"use {flag}").replace(option, flag)
    return message


class CliError(Exception):
    """An error to print as it is, on one line."""


class _Unwritable(Exception):
    """A value that needs a flag: its name (``bytes``, ``Ext``) and the hint that names it."""

    def __init__(self, what: str, hint: str = _BYTES_HINT) -> None:
        super().__init__(what)
        self.hint = hint


class _BadTimestamp(ValueError):
    """A timestamp extension that is malformed or has no RFC 3339 form."""


@dataclasses.dataclass(frozen=True)
class _ExtValue:
    """An extension value other than a timestamp (hashable: it can be a map key)."""

    tag: int
    data: bytes


class _Key(str):
    """A map key written as this text. Two keys with the same text stay two keys, as the
    transcoder writes them, instead of being merged into one by the dict."""

    __hash__ = object.__hash__

    def __eq__(self, other: object) -> bool:
        return self is other


def timestamp_text(data: bytes) -> str:
    """The RFC 3339 text, in UTC, of the timestamp extension whose payload is ``data``:
    microseconds as ``datetime.isoformat`` writes them, or all nine digits of nanoseconds."""
    if len(data) == 4:
        seconds, nanos = int.from_bytes(data, "big"), 0
    elif len(data) == 8:
        both = int.from_bytes(data, "big")
        seconds, nanos = both & ((1 << 34) - 1), both >> 34
    elif len(data) == 12:
        nanos = int.from_bytes(data[:4], "big")
        seconds = int.from_bytes(data[4:], "big", signed=True)
    else:
        raise _BadTimestamp("invalid timestamp extension: length must be 4, 8 or 12 bytes")
    if nanos >= 10**9:
        raise _BadTimestamp("invalid timestamp extension: nanoseconds must be below 10**9")
    try:
        when = _EPOCH + datetime.timedelta(seconds=seconds)
    except OverflowError:
        raise _BadTimestamp(
            "invalid timestamp extension: outside the range of datetime (years 1 to 9999)"
        ) from None
    text = when.isoformat()
    if nanos:
        digits = f"{nanos:09d}"
        text += "." + (digits[:6] if nanos % 1000 == 0 else digits)
    return text + "+00:00"


def _ext_hook(tag: int, data: bytes) -> Any:
    return timestamp_text(data) if tag == -1 else _ExtValue(tag, data)


class _Source:
    """The MessagePack input, as the Unpacker reads it. When the input ends inside an object, the
    bytes of that object are decoded to say what is missing and where: a seekable file is read
    again from the object's start; from a pipe, the pieces read since the start of the object
    being read are kept."""

    def __init__(self, file: BinaryIO) -> None:
        self.file = file
        # Bytes read so far.
        self.total = 0
        # The offset of the object being read, which the reader of the objects sets.
        self.start = 0
        self.origin = file.tell() if file.seekable() else None
        self.pieces: deque[bytes] = deque()
        # The offset in the input of the first piece kept.
        self.kept_from = 0

    def read(self, size: int = -1, /) -> bytes:
        piece = self.file.read(size)
        self.total += len(piece)
        if self.origin is None:
            # Pieces that end before the object being read are done with.
            pieces = self.pieces
            while pieces and self.kept_from + len(pieces[0]) <= self.start:
                self.kept_from += len(pieces.popleft())
            pieces.append(piece)
        return piece

    def rest(self, offset: int) -> bytes:
        """The bytes read from ``offset`` on."""
        if self.origin is not None:
            self.file.seek(self.origin + offset)
            return self.file.read(self.total - offset)
        return b"".join(self.pieces)[offset - self.kept_from :]


class Converter:
    """MessagePack to JSON documents, with the forms the command line chose for the values JSON
    has no type for."""

    def __init__(
        self,
        option: int,
        bytes_form: str = "error",
        numpy_form: str = "list",
        *,
        exact: bool = False,
    ) -> None:
        # option: OPT_NON_STR_KEYS and the layout options of json.dumps.
        self.option = option
        self.bytes_form = bytes_form
        self.numpy_form = numpy_form
        self.exact = exact
        self.unpack_option = fastmsgpack.OPT_NUMPY_RAW | (option & fastmsgpack.OPT_NON_STR_KEYS)
        if exact:
            # OPT_EXACT's keys are any hashable value: written as the keys of --non-str-keys.
            self.unpack_option = fastmsgpack.OPT_EXACT | fastmsgpack.OPT_NUMPY_RAW
            self.option |= fastmsgpack.OPT_NON_STR_KEYS

    def documents(self, file: BinaryIO) -> Iterator[bytes]:
        """One JSON document for each MessagePack object in ``file``, in order, read from it a
        piece at a time."""
        source = _Source(file)
        # One object may be as large as memory allows, as with unpackb.
        unpacker = fastmsgpack.Unpacker(source, read_size=READ_SIZE, max_buffer_size=sys.maxsize)
        # Looked up once: with small objects, these calls are a good part of the time.
        tell, next_raw = unpacker.tell, unpacker._next_raw
        transcode, option = fastjson.from_msgpack, self.option
        while True:
            # The stream offset of the next object: error messages give offsets from here on.
            offset = source.start = tell()
            try:
                raw = next_raw()
            except MsgpackDecodeError as exc:
                if exc.kind != "truncated":
                    raise
                # The input ends inside an object: said below, with what is missing.
                break
            if raw is None:
                break
            try:
                document = transcode(raw, option)
            except (fastjson.JSONEncodeError, MsgpackDecodeError) as exc:
                document = self._through_objects(raw, offset, exc)
            yield document
        if source.total > offset:
            # The input ends inside an object. Converting its bytes fails and says where.
            rest = source.rest(offset)
            try:
                transcode(rest, option)
            except (fastjson.JSONEncodeError, MsgpackDecodeError) as exc:
                self._through_objects(rest, offset, exc)
            raise CliError(f"truncated input: the object at byte offset {offset} is incomplete")

    def _through_objects(self, raw: bytes, offset: int, stop: Exception) -> bytes:
        """The object ``raw`` at ``offset``, which the transcoder stopped at with ``stop``,
        unpacked and written by ``json.dumps``."""
        if isinstance(stop, (fastjson.JSONEncodeError, MsgpackDecodeError)):
            if self.bytes_form == "error" and stop.kind == _BYTES_VALUE:
                raise CliError(f"{_shifted(stop, offset)} ({_BYTES_HINT})")
            if stop.kind == _TOO_DEEP:
                raise CliError(_shifted(stop, offset))
        try:
            # Raw numpy arrays are views of ``raw``, not copies.
            value = fastmsgpack.unpackb(raw, ext_hook=_ext_hook, option=self.unpack_option)
        except MsgpackDecodeError as exc:
            raise CliError(_decode_error(exc, offset)) from None
        try:
            document = fastjson.dumps(self._json_ready(value), option=self.option)
        except _Unwritable as exc:
            raise CliError(
                f"{exc} cannot be written as JSON, in the object at byte offset {offset}"
                f" ({exc.hint})"
            ) from None
        except (fastjson.JSONEncodeError, RecursionError) as exc:
            # Nested too deep for JSON, past the place where the transcoder stopped.
            why = exc if isinstance(exc, fastjson.JSONEncodeError) else "containers nested too deep"
            raise CliError(f"{why}, in the object at byte offset {offset}") from None
        assert isinstance(document, bytes)
        return document

    def _json_ready(self, value: Any) -> Any:
        """``value`` with what JSON has no type for replaced as the options say."""
        kind = type(value)
        if kind is dict:
            return {self._key(k): self._json_ready(v) for k, v in value.items()}
        if kind is list or kind is tuple:
            return [self._json_ready(item) for item in value]
        if kind is bytes:
            return self._bytes(value, "bytes")
        if kind is _ExtValue:
            if not self.exact and value.tag in _EXACT_CODES:
                raise _Unwritable(f"an extension value of code {value.tag}", _EXACT_HINT)
            return {"ext": value.tag, "data": self._bytes(value.data, "Ext")}
        if kind is int:
            # Beyond 64 bits only with --exact: its digits, as a JSON number.
            return value if -(2**63) <= value < 2**64 else fastjson.Fragment(str(value))
        if kind in (str, float, bool) or value is None:
            return value
        if self.exact:
            return self._exact(value)
        return self._numpy(value)

    def _exact(self, value: Any) -> Any:
        """A value of a type OPT_EXACT gives back, in its JSON form (doc/json.md)."""
        kind = type(value)
        if kind is set or kind is frozenset:
            return [self._json_ready(item) for item in value]
        if kind is complex:
            return [value.real, value.imag]
        if kind is datetime.timedelta:
            # Its length in seconds, every digit kept.
            seconds = value.days * 86400 + value.seconds
            text = f"{seconds}.{value.microseconds:06d}" if value.microseconds else str(seconds)
            return fastjson.Fragment(text)
        if kind is bytearray:
            return self._bytes(bytes(value), "bytearray")
        if kind in (datetime.datetime, datetime.date, datetime.time, uuid.UUID, decimal.Decimal):
            # As json.dumps writes them: RFC 3339 text, the UUID's text, the Decimal's digits.
            return value
        return self._numpy(value)

    def _key(self, key: Any) -> Any:
        kind = type(key)
        if kind is bytes:
            return _Key(self._bytes(key, "bytes"))
        if kind is tuple or kind is _ExtValue or kind is frozenset:
            text = fastjson.dumps(self._json_ready(key), option=fastmsgpack.OPT_NON_STR_KEYS)
            return _Key(text.decode())
        if kind is int and not -(2**63) <= key < 2**64:
            return _Key(str(key))
        return key

    def _bytes(self, data: bytes, what: str) -> str:
        if self.bytes_form == "base64":
            return base64.b64encode(data).decode("ascii")
        if self.bytes_form == "hex":
            return data.hex()
        raise _Unwritable(what)

    def _numpy(self, value: Any) -> Any:
        """A raw numpy array (or scalar), which ``unpackb`` gives back with ``OPT_NUMPY_RAW``."""
        import numpy as np

        if self.numpy_form == "summary" and isinstance(value, np.ndarray):
            return {"dtype": value.dtype.str, "shape": list(value.shape)}
        array = np.asarray(value)
        kind = array.dtype.kind
        if kind == "M":
            # numpy's text, to the precision of the unit; NaT is "NaT".
            return np.datetime_as_string(array).tolist()
        if kind == "m":
            # Counts of the unit; NaT is null.
            counts = array.astype(np.int64).astype(object)
            counts[np.isnat(array)] = None
            return counts.tolist()
        if kind == "c":
            # Each complex number as [real, imaginary].
            array = np.stack((array.real, array.imag), axis=-1)
            kind = "f"
        if kind == "f":
            # float16 and float32 widen exactly; longdouble is rounded to a float.
            array = array.astype(np.float64)
        elif kind == "S":
            encode = np.frompyfunc(lambda item: self._bytes(item, "a numpy bytes array"), 1, 1)
            return np.asarray(encode(array), dtype=object).tolist()
        # Python values: bool, int, float, str.
        return array.tolist()


def _shifted(exc: fastjson.JSONEncodeError | MsgpackDecodeError, base: int) -> str:
    """The message of ``exc``, an error about the object at ``base``, with its offset in the
    whole input."""
    if exc.offset is None or exc.reason is None:
        return str(exc)
    return f"{exc.reason} at byte offset {exc.offset + base}"


def _decode_error(exc: MsgpackDecodeError, base: int) -> str:
    """The message of an error of ``unpackb`` on the object at ``base``, with its offset in the
    whole input, and the cause when Python code raised."""
    where = "" if exc.offset is None else f" at byte offset {exc.offset + base}"
    head = str(exc) if exc.reason is None else exc.reason
    cause = exc.__cause__
    if isinstance(cause, _BadTimestamp):
        return f"{cause}{where}"
    if cause is not None:
        return f"{head}{where}: {cause}"
    return f"{head}{where}"


def json_to_msgpack(data: bytes, option: int) -> Iterator[bytes]:
    """The MessagePack of each JSON document in ``data`` (separated by whitespace), in order."""
    text = data.decode("utf-8")
    decoder = json.JSONDecoder()
    end = 0
    while (start := _NOT_WHITESPACE.search(text, end)) is not None:
        obj, end = decoder.raw_decode(text, start.start())
        yield fastmsgpack.packb(obj, option=option)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Convert MessagePack to JSON, or JSON to MessagePack. Timestamps are written as RFC "
            "3339 text in UTC, and raw numpy arrays (OPT_NUMPY_RAW) as nested lists."
        ),
        epilog=(
            "MessagePack input may hold several objects in a row: each is written as its own "
            "JSON document, followed by a newline. Bad input exits with status 1 and a message "
            "that gives the byte offset of the problem. "
            + FORMS
            + (f" Documentation: {url}" if (url := docs_url()) else "")
        ),
    )
    parser.add_argument("file", nargs="?", help="the input file (default, or -: standard input)")
    parser.add_argument("--compact", action="store_true", help="write JSON without indentation")
    parser.add_argument(
        "--from-json", action="store_true", help="read JSON and write MessagePack instead"
    )
    parser.add_argument(
        "--non-str-keys",
        action="store_true",
        help="allow map keys that are not strings (written as JSON strings)",
    )
    parser.add_argument(
        "--bytes",
        choices=BYTES_FORMS,
        metavar="{" + ",".join(BYTES_FORMS) + "}",
        help=(
            'write binary values, and the data of extension values (as {"ext": TAG, "data": '
            "...}), as base64 text or as lowercase hexadecimal; the default, error, stops at them"
        ),
    )
    parser.add_argument(
        "--exact",
        action="store_true",
        help=(
            "read the extension values of OPT_EXACT as the values they hold, and write those "
            "in their JSON form (tuples and sets as arrays, datetimes, UUIDs and Decimals as "
            "text, big ints as numbers)"
        ),
    )
    parser.add_argument(
        "--numpy",
        choices=NUMPY_FORMS,
        metavar="{" + ",".join(NUMPY_FORMS) + "}",
        help=(
            "write raw numpy arrays as nested lists of their values (the default), or as a "
            'summary: {"dtype": ..., "shape": [...]}'
        ),
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.from_json:
        # These shape JSON output, which --from-json does not write: refuse rather than ignore.
        for flag, given in (
            ("--compact", args.compact),
            ("--non-str-keys", args.non_str_keys),
            ("--bytes", args.bytes is not None),
            ("--numpy", args.numpy is not None),
            ("--exact", args.exact),
        ):
            if given:
                parser.error(f"{flag} applies to JSON output; it cannot be used with --from-json")
    option = fastmsgpack.OPT_NON_STR_KEYS if args.non_str_keys else 0
    try:
        with ExitStack() as stack:
            if args.file is None or args.file == "-":
                file: BinaryIO = sys.stdin.buffer
            else:
                file = stack.enter_context(open(args.file, "rb"))
            if args.from_json:
                # Python's JSON parser takes the whole text.
                chunks = json_to_msgpack(file.read(), option)
            else:
                option |= fastmsgpack.OPT_APPEND_NEWLINE
                if not args.compact:
                    option |= fastmsgpack.OPT_INDENT_2
                converter = Converter(
                    option, args.bytes or "error", args.numpy or "list", exact=args.exact
                )
                chunks = converter.documents(file)
            out = sys.stdout.buffer
            for chunk in chunks:
                out.write(chunk)
            out.flush()
    except BrokenPipeError:
        # The reader went away (`... | head`): stop quietly, without a second error at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except RecursionError as exc:
        # JSON nested deeper than Python's parser goes. The exception's text varies (3.14 speaks
        # of a stack overflow), so the message says what happened in its own words.
        sys.stdout.flush()
        print(
            f"{PROG}: error: JSON nested beyond the depth Python's parser allows ({exc})",
            file=sys.stderr,
        )
        return 1
    except (CliError, OSError, ValueError, TypeError) as exc:
        # ValueError covers MsgpackDecodeError and bad JSON or UTF-8; TypeError covers
        # MsgpackEncodeError (values with no JSON or MessagePack form).
        sys.stdout.flush()
        print(f"{PROG}: error: {in_cli_words(str(exc))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
