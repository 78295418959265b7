"""``python -m fastmsgpack``: MessagePack to JSON, or JSON to MessagePack, on the command line.

    python -m fastmsgpack [FILE]               MessagePack in, indented JSON out
    python -m fastmsgpack --compact [FILE]     MessagePack in, compact JSON out
    python -m fastmsgpack --from-json [FILE]   JSON in, MessagePack out

The input is FILE, or standard input without one or when FILE is ``-``. It may hold several
objects one after the other: each is printed as its own JSON document, followed by a newline.
Bad input ends the program with status 1 and the error (which says where it is) on standard
error. ``--compact`` and ``--non-str-keys`` shape JSON output and are refused with
``--from-json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterator

import fastmsgpack
from fastmsgpack._fastmsgpack import (  # type: ignore[import-not-found]
    _json_from_msgpack_at,
)

PROG = "python -m fastmsgpack"

# The start of the next JSON document: anything but JSON's whitespace.
_NOT_WHITESPACE = re.compile(r"[^ \t\n\r]")


def msgpack_to_json(data: bytes, option: int) -> Iterator[bytes]:
    """One JSON document for each MessagePack object in ``data``, in order."""
    offset = 0
    while offset < len(data):
        document, offset = _json_from_msgpack_at(data, offset, option)
        assert isinstance(document, bytes) and isinstance(offset, int)
        yield document


def json_to_msgpack(data: bytes, option: int) -> Iterator[bytes]:
    """The MessagePack of each JSON document in ``data`` (separated by whitespace), in order."""
    text = data.decode("utf-8")
    decoder = json.JSONDecoder()
    end = 0
    while (start := _NOT_WHITESPACE.search(text, end)) is not None:
        obj, end = decoder.raw_decode(text, start.start())
        yield fastmsgpack.packb(obj, option=option)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Convert MessagePack to JSON, or JSON to MessagePack."
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
    args = parser.parse_args(argv)
    if args.from_json:
        # Both shape JSON output, which --from-json does not write: refuse rather than ignore them.
        for flag, given in (("--compact", args.compact), ("--non-str-keys", args.non_str_keys)):
            if given:
                parser.error(f"{flag} applies to JSON output; it cannot be used with --from-json")
    option = fastmsgpack.OPT_NON_STR_KEYS if args.non_str_keys else 0
    try:
        if args.file is None or args.file == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as f:
                data = f.read()
        if args.from_json:
            chunks = json_to_msgpack(data, option)
        else:
            option |= fastmsgpack.OPT_APPEND_NEWLINE
            if not args.compact:
                option |= fastmsgpack.OPT_INDENT_2
            chunks = msgpack_to_json(data, option)
        out = sys.stdout.buffer
        for chunk in chunks:
            out.write(chunk)
        out.flush()
    except BrokenPipeError:
        # The reader went away (`... | head`): stop quietly, without a second error at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (OSError, ValueError, TypeError, RecursionError) as exc:
        # ValueError covers MsgpackDecodeError and bad JSON or UTF-8; TypeError covers
        # MsgpackEncodeError (values with no JSON or MessagePack form); RecursionError, JSON
        # nested deeper than Python's parser goes.
        sys.stdout.flush()
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
