"""fastmsgpack as dramatiq's message encoder.

Set it before any message is sent or received, in the process that sends and in the worker (in
the module that sets up the broker, which the worker imports)::

    dramatiq.set_encoder(fastmsgpack.integrations.dramatiq.MsgpackEncoder())

and give one to the results backend, if there is one:
``RedisBackend(encoder=MsgpackEncoder())``.

Actor arguments and results keep their types as the types listed in
``fastmsgpack.integrations._exact`` (``OPT_EXACT``'s): datetimes (naive or aware, their zone
kept), dates, times, timedeltas, tuples, sets, UUIDs, Decimals, and what MessagePack carries as
it is. dramatiq's default JSON encoder refuses datetimes, dates, UUIDs, Decimals, sets and
bytes, and gives tuples back as lists.

A message that cannot be read raises dramatiq's ``DecodeError``; the worker drops it and goes
on.
"""

from __future__ import annotations

from typing import Any

from dramatiq.encoder import Encoder
from dramatiq.errors import DecodeError

from fastmsgpack import MsgpackDecodeError
from fastmsgpack.integrations import _exact

__all__ = ["MsgpackEncoder"]


class MsgpackEncoder(Encoder):
    """Encodes dramatiq messages (and results) with fastmsgpack."""

    def encode(self, data: Any) -> bytes:
        return _exact.dumps(data)

    def decode(self, data: bytes) -> Any:
        try:
            return _exact.loads(data)
        except (MsgpackDecodeError, ValueError, TypeError) as exc:
            raise DecodeError(  # type: ignore[no-untyped-call]
                f"failed to decode message {data[:64]!r}: {exc}", data, exc
            ) from None
