"""fastmsgpack as rq's serializer.

Name it wherever rq takes a serializer, in the process that enqueues and in the worker::

    queue = rq.Queue(connection=redis, serializer=fastmsgpack.integrations.rq.Serializer)
    # rq worker --serializer fastmsgpack.integrations.rq.Serializer

Job arguments, keyword arguments, results and ``meta`` keep their types as with rq's default
(pickle) for the types listed in ``fastmsgpack.integrations._exact`` (``OPT_EXACT``'s):
datetimes (naive or aware, their zone kept), dates, times, timedeltas, tuples, sets, UUIDs,
Decimals, and what MessagePack carries as it is. Unlike pickle, nothing else is rebuilt: a
dataclass arrives as a dict, a named tuple as a tuple, and no bytes from Redis can make the
worker import or call anything.
rq keeps a failed job's exception as text, whatever the serializer.

A job whose data cannot be read fails (rq's ``DeserializationError``) and goes to the failed job
registry; the worker goes on with the next one.
"""

from __future__ import annotations

from typing import Any

from fastmsgpack.integrations import _exact

__all__ = ["Serializer"]


class Serializer:
    """rq's serializer protocol: ``dumps`` and ``loads``."""

    @staticmethod
    def dumps(obj: Any) -> bytes:
        return _exact.dumps(obj)

    @staticmethod
    def loads(data: bytes) -> Any:
        return _exact.loads(data)
