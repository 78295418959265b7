"""ExtType and Timestamp of fastmsgpack.compat, as msgpack-python 1.x code uses them."""

from __future__ import annotations

import datetime
from typing import NamedTuple


class _ExtFields(NamedTuple):
    code: int
    data: bytes


class ExtType(_ExtFields):
    """An extension value: its type code (0 to 127) and its data."""

    __slots__ = ()

    def __new__(cls, code: int, data: bytes) -> ExtType:  # noqa: PYI034
        if not isinstance(code, int):
            raise TypeError("ExtType code must be an int")
        if not isinstance(data, bytes):
            raise TypeError("ExtType data must be bytes")
        if not 0 <= code <= 127:
            raise ValueError("ExtType code must be from 0 to 127")
        return super().__new__(cls, code, data)


_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_NS = 1_000_000_000


class Timestamp:
    """A MessagePack timestamp: whole seconds since the Unix epoch and nanoseconds (0 to 10**9-1)."""

    __slots__ = ("nanoseconds", "seconds")

    def __init__(self, seconds: int, nanoseconds: int = 0) -> None:
        if not isinstance(seconds, int):
            raise TypeError("seconds must be an integer")
        if not isinstance(nanoseconds, int):
            raise TypeError("nanoseconds must be an integer")
        if not 0 <= nanoseconds < _NS:
            raise ValueError("nanoseconds must be a non-negative integer less than 999999999.")
        self.seconds = seconds
        self.nanoseconds = nanoseconds

    def __repr__(self) -> str:
        return f"Timestamp(seconds={self.seconds}, nanoseconds={self.nanoseconds})"

    def __eq__(self, other: object) -> bool:
        if type(other) is self.__class__:
            return (self.seconds, self.nanoseconds) == (other.seconds, other.nanoseconds)
        return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash((self.seconds, self.nanoseconds))

    @staticmethod
    def from_bytes(b: bytes) -> Timestamp:
        """The timestamp in the data of a timestamp extension (4, 8 or 12 bytes)."""
        if len(b) == 4:
            return Timestamp(int.from_bytes(b, "big"), 0)
        if len(b) == 8:
            word = int.from_bytes(b, "big")
            return Timestamp(word & 0x3_FFFF_FFFF, word >> 34)
        if len(b) == 12:
            nanos = int.from_bytes(b[:4], "big")
            return Timestamp(int.from_bytes(b[4:], "big", signed=True), nanos)
        raise ValueError("Timestamp type can only be created from 32, 64, or 96-bit byte objects")

    def to_bytes(self) -> bytes:
        """The data of the timestamp extension: the shortest of the 4, 8 and 12 byte forms."""
        if self.seconds >> 34 == 0:
            word = self.nanoseconds << 34 | self.seconds
            if word >> 32 == 0:
                return word.to_bytes(4, "big")
            return word.to_bytes(8, "big")
        return self.nanoseconds.to_bytes(4, "big") + self.seconds.to_bytes(8, "big", signed=True)

    @staticmethod
    def from_unix(unix_sec: float) -> Timestamp:
        """The timestamp `unix_sec` seconds after the epoch."""
        seconds = int(unix_sec // 1)
        nanoseconds = int((unix_sec % 1) * _NS)
        return Timestamp(seconds, nanoseconds)

    def to_unix(self) -> float:
        """Seconds since the epoch, as a float."""
        return self.seconds + self.nanoseconds / 1e9

    @staticmethod
    def from_unix_nano(unix_ns: int) -> Timestamp:
        """The timestamp `unix_ns` nanoseconds after the epoch."""
        return Timestamp(*divmod(unix_ns, _NS))

    def to_unix_nano(self) -> int:
        """Nanoseconds since the epoch."""
        return self.seconds * _NS + self.nanoseconds

    def to_datetime(self) -> datetime.datetime:
        """An aware UTC datetime (nanoseconds truncated to microseconds)."""
        return _EPOCH + datetime.timedelta(
            seconds=self.seconds, microseconds=self.nanoseconds // 1000
        )

    @staticmethod
    def from_datetime(dt: datetime.datetime) -> Timestamp:
        """The timestamp of an aware datetime (a naive one is taken as local time)."""
        if dt.tzinfo is None:
            dt = dt.astimezone()
        # Exact at any distance from the epoch: whole days, seconds and microseconds, never the
        # float of dt.timestamp() (which rounds far from the epoch, and overflows near
        # datetime.max).
        delta = dt - _EPOCH
        return Timestamp(delta.days * 86_400 + delta.seconds, delta.microseconds * 1000)
