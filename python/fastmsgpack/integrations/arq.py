"""fastmsgpack as arq's job serializer.

Give :func:`serialize` and :func:`deserialize` to both the worker and the pool that enqueues::

    class WorkerSettings:
        functions = [...]
        job_serializer = fastmsgpack.integrations.arq.serialize
        job_deserializer = fastmsgpack.integrations.arq.deserialize

    redis = await arq.create_pool(settings, job_serializer=serialize, job_deserializer=deserialize)

Jobs, their arguments and their results keep their types as arq's default (pickle) keeps them,
for the types listed in ``fastmsgpack.integrations._exact`` (``OPT_EXACT``'s): datetimes (naive
or aware, their zone kept), dates, times, timedeltas, tuples, sets, UUIDs, Decimals, and what
MessagePack carries as it is. Unlike pickle, nothing else is rebuilt: a dataclass arrives as a
dict, a named tuple as a tuple, and no bytes from Redis can make the worker import or call
anything.

A job that raised: arq stores the exception as its result. A built-in exception (``ValueError``,
``KeyError``, ...) comes back as itself, with its arguments as text; any other as a
:class:`JobError` naming its class, so that ``await job.result()`` raises in both cases.

A job whose bytes cannot be read fails with arq's ``DeserializationError``; the worker goes on.
"""

from __future__ import annotations

import builtins
from typing import Any

from fastmsgpack import Ext, packb, unpackb
from fastmsgpack.integrations import _exact

__all__ = ["JobError", "deserialize", "serialize"]

_EXCEPTION = 90


class JobError(Exception):
    """An exception a job raised, of a class that is not built in: ``type_name`` is its
    module-qualified name; ``args`` its arguments, as text."""

    def __init__(self, type_name: str, *args: str) -> None:
        super().__init__(type_name, *args)
        self.type_name = type_name

    def __str__(self) -> str:
        return f"{self.type_name}: {', '.join(self.args[1:])}"


def serialize(obj: Any) -> bytes:
    """``job_serializer`` for arq."""
    result = obj.get("r") if isinstance(obj, dict) else None
    if isinstance(result, BaseException):
        obj = {**obj, "r": _exception(result)}
    return _exact.dumps(obj)


def deserialize(data: bytes) -> Any:
    """``job_deserializer`` for arq."""
    obj = _exact.loads(data)
    result = obj.get("r") if isinstance(obj, dict) else None
    if isinstance(result, Ext) and result.tag == _EXCEPTION:
        obj["r"] = _rebuilt(result.data)
    return obj


def _exception(exc: BaseException) -> Ext:
    kind = type(exc)
    name = (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )
    return Ext(_EXCEPTION, packb([name, [str(a) for a in exc.args]]))


def _rebuilt(data: bytes) -> BaseException:
    name, args = unpackb(data)
    builtin = getattr(builtins, name, None) if "." not in name else None
    if isinstance(builtin, type) and issubclass(builtin, Exception):
        try:
            rebuilt: BaseException = builtin(*args)
        except Exception:  # noqa: BLE001 - a class whose arguments are not text
            rebuilt = JobError(name, *args)
        return rebuilt
    return JobError(name, *args)
