"""The exceptions of fastmsgpack.compat, with msgpack-python 1.x's names and base classes."""


class UnpackException(Exception):
    """Base of the errors raised while unpacking (other than ValueError's own)."""


class BufferFull(UnpackException):
    """Unpacker: feeding more would go over max_buffer_size."""


class OutOfData(UnpackException):
    """Unpacker: no complete object in what was fed or read."""


class FormatError(ValueError, UnpackException):
    """The input is not valid MessagePack."""


class StackError(ValueError, UnpackException):
    """The input nests containers too deeply."""


UnpackValueError = ValueError


class ExtraData(UnpackValueError):
    """unpackb found bytes after the object: `unpacked` is the object, `extra` the bytes."""

    def __init__(self, unpacked: object, extra: bytes) -> None:
        self.unpacked = unpacked
        self.extra = extra

    def __str__(self) -> str:
        return "unpack(b) received extra data."


PackException = Exception
PackValueError = ValueError
PackOverflowError = OverflowError
