"""A kombu serializer named ``fastmsgpack``, for Celery and any other kombu user.

Installing fastmsgpack registers it through kombu's ``kombu.serializers`` entry-point group
(kombu reads the group when ``kombu.serialization`` is first imported), so Celery's
``task_serializer="fastmsgpack"``, ``result_serializer="fastmsgpack"`` and
``accept_content=["fastmsgpack"]`` work with no import. :func:`register` does the same by hand,
for environments where entry points are not read.

Messages carry the content type ``application/x-fastmsgpack`` (``CONTENT_TYPE``), not kombu's
``application/x-msgpack``: kombu picks the decoder by content type, so keeping them apart leaves
kombu's own ``msgpack`` serializer in charge of what other producers send with it, and a consumer
that lists both names in ``accept_content`` takes both kinds of message.

What travels, in both directions (``OPTIONS``, with ``OPT_EXACT``: doc/exact.md):

- everything kombu's ``json`` serializer brings back (``datetime``, ``date``, ``time``,
  ``UUID``, ``Decimal``), arriving as itself: a ``datetime`` in its own zone (``ZoneInfo`` by
  key, fixed offsets as ``timezone``), a ``Decimal`` with every digit;
- tuples, sets, frozensets, ``bytes``, ``bytearray``, ``complex``, ``timedelta`` and integers
  beyond 64 bits, arriving as themselves, and dict keys of any of these types;
- enum members as their values, dataclasses as maps of their fields, named tuples as lists; a
  type fastmsgpack cannot pack raises kombu's ``EncodeError`` when the message is sent.

Messages from earlier versions, which wrote aware datetimes as the timestamp extension and the
other types as strings and arrays, are read as those versions read them (aware datetimes in UTC,
strings, lists). A consumer of an earlier version, however, reads the new messages' datetimes,
UUIDs, tuples, ... as ``fastmsgpack.Ext`` values: upgrade the consumers before the producers.
"""

from __future__ import annotations

from typing import Any

from fastmsgpack import (
    OPT_DATETIME_AS_TIMESTAMP_EXT,
    OPT_EXACT,
    OPT_NON_STR_KEYS,
    packb,
    unpackb,
)

__all__ = [
    "CONTENT_ENCODING",
    "CONTENT_TYPE",
    "NAME",
    "OPTIONS",
    "dumps",
    "loads",
    "register",
    "register_args",
]

#: The serializer's name in kombu and Celery settings.
NAME = "fastmsgpack"
#: The content type of the messages: distinct from kombu's ``application/x-msgpack``.
CONTENT_TYPE = "application/x-fastmsgpack"
#: The content encoding: the body is binary, never text.
CONTENT_ENCODING = "binary"
#: The options given to both ``packb`` and ``unpackb``: exact types, and (for messages of
#: earlier versions) timestamps read as aware datetimes.
OPTIONS = OPT_EXACT | OPT_DATETIME_AS_TIMESTAMP_EXT | OPT_NON_STR_KEYS


def dumps(obj: Any) -> bytes:
    """Encode a message body."""
    return packb(obj, option=OPTIONS)


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """Decode a message body. A ``str`` (from a transport that handed over text) is taken as
    the bytes it was made from, one character per byte."""
    if isinstance(data, str):
        data = data.encode("latin-1")
    return unpackb(data, option=OPTIONS)


#: What kombu's entry-point loader passes to ``kombu.serialization.register`` after the name:
#: encoder, decoder, content type and content encoding.
register_args = (dumps, loads, CONTENT_TYPE, CONTENT_ENCODING)


def register() -> None:
    """Register the ``fastmsgpack`` serializer with kombu by hand (the entry point normally does
    it). Calling it again changes nothing."""
    from kombu.serialization import register as kombu_register

    kombu_register(NAME, *register_args)  # type: ignore[no-untyped-call]
