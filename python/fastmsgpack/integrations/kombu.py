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

What travels, in both directions (``OPTIONS``):

- aware ``datetime`` objects as the MessagePack timestamp extension, arriving as aware
  ``datetime`` objects in UTC (microseconds kept);
- dict keys that are ``int``, ``float``, ``bool``, ``None``, ``bytes`` or tuples, arriving as
  they left (tuples as tuples);
- everything else as ``fastmsgpack.packb`` packs it by default: ``bytes`` as bin (arriving as
  ``bytes``), tuples and sets as arrays (arriving as lists), naive ``datetime``, ``date``,
  ``time``, ``UUID`` and ``Decimal`` as their strings, enum members as their values, dataclasses
  as maps of their fields; a type fastmsgpack cannot pack raises kombu's ``EncodeError`` when
  the message is sent.
"""

from __future__ import annotations

from typing import Any

from fastmsgpack import (
    OPT_DATETIME_AS_TIMESTAMP_EXT,
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
#: The options given to both ``packb`` and ``unpackb``.
OPTIONS = OPT_DATETIME_AS_TIMESTAMP_EXT | OPT_NON_STR_KEYS


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
