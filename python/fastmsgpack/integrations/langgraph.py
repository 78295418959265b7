"""fastmsgpack as LangGraph's checkpoint serializer.

:class:`FastmsgpackSerializer` implements langgraph-checkpoint's ``SerializerProtocol``
(``dumps_typed`` and ``loads_typed``) and writes the very bytes LangGraph's own
``JsonPlusSerializer`` writes: the same MessagePack, with the same extension types for messages,
documents, pydantic models, dataclasses, datetimes, UUIDs, enums, sets and the rest. Checkpoints
written by either are read by the other, so a saver can switch without migrating its data::

    from langgraph.checkpoint.sqlite import SqliteSaver
    from fastmsgpack.integrations.langgraph import FastmsgpackSerializer

    saver = SqliteSaver(conn, serde=FastmsgpackSerializer())

It is a ``JsonPlusSerializer``: its constructor takes the same arguments, and what it rebuilds
on loading is decided by the same allowlists (``allowed_msgpack_modules``,
``LANGGRAPH_STRICT_MSGPACK``). It is faster because the common types of a checkpoint are packed
by fastmsgpack, each found by its exact class in a table rather than by a chain of checks, and
the rest is handed to LangGraph's own code. A pydantic model is dumped as LangGraph dumps it,
by ``model_dump()``; for a class that keeps pydantic's own ``model_dump``, the same dict is
asked of the model's serializer directly. Install ``fastmsgpack[langgraph]``.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import uuid
from collections.abc import Callable
from typing import Any

import ormsgpack
from langgraph.checkpoint.serde import jsonplus
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from fastmsgpack import (
    OPT_NON_STR_KEYS,
    OPT_PASSTHROUGH_DATACLASS,
    OPT_PASSTHROUGH_DATETIME,
    OPT_PASSTHROUGH_ENUM,
    OPT_PASSTHROUGH_SUBCLASS,
    OPT_PASSTHROUGH_UUID,
    OPT_REPLACE_SURROGATES,
    Ext,
    Fragment,
    MsgpackEncodeError,
    packb,
    unpackb,
)

__all__ = ["FastmsgpackSerializer"]

# The options LangGraph packs with (the same flags, by name, as its ormsgpack options), and
# subclasses of the built-in types to `default`, as ormsgpack sends named tuples there.
_PACK = (
    OPT_PASSTHROUGH_SUBCLASS
    | OPT_NON_STR_KEYS
    | OPT_PASSTHROUGH_DATACLASS
    | OPT_PASSTHROUGH_DATETIME
    | OPT_PASSTHROUGH_ENUM
    | OPT_PASSTHROUGH_UUID
    | OPT_REPLACE_SURROGATES
)

# LangGraph's extension codes.
_SINGLE_ARG = 0
_POS_ARGS = 1
_KW_ARGS = 2
_METHOD_SINGLE_ARG = 3
_PYDANTIC_V2 = 5


# What fastmsgpack packs by itself (as arrays and strings) but LangGraph packs as extensions.
_OTHERWISE = (set, frozenset, decimal.Decimal)


def _holds_otherwise(obj: Any) -> bool:
    """Whether ``obj`` is or holds a set, a frozenset or a Decimal, in its containers, pydantic
    models and dataclasses. A container met twice (shared, or in a cycle) counts as one."""
    stack = [obj]
    pop = stack.pop
    push = stack.extend
    seen: set[int] = set()
    while stack:
        item = pop()
        kind = type(item)
        if kind is str or kind is int or kind is float or kind is bool or item is None:
            continue
        if isinstance(item, _OTHERWISE) or id(item) in seen:
            return True
        seen.add(id(item))
        if kind is dict:
            push(item.values())
            push(item.keys())
        elif isinstance(item, (list, tuple)):
            push(item)
        elif hasattr(item, "__dict__") and not isinstance(item, type):
            push(vars(item).values())
    return False


def _datetime(obj: datetime.datetime) -> Ext:
    name = type(obj)
    payload = (name.__module__, name.__name__, obj.isoformat(), "fromisoformat")
    return Ext(_METHOD_SINGLE_ARG, packb(payload, _default, _PACK))


def _date(obj: datetime.date) -> Ext:
    name = type(obj)
    payload = (name.__module__, name.__name__, (obj.year, obj.month, obj.day))
    return Ext(_POS_ARGS, packb(payload, _default, _PACK))


def _timedelta(obj: datetime.timedelta) -> Ext:
    name = type(obj)
    args = (obj.days, obj.seconds, obj.microseconds)
    return Ext(_POS_ARGS, packb((name.__module__, name.__name__, args), _default, _PACK))


def _uuid(obj: uuid.UUID) -> Ext:
    name = type(obj)
    return Ext(_SINGLE_ARG, packb((name.__module__, name.__name__, obj.hex), _default, _PACK))


def _enum(obj: enum.Enum) -> Ext:
    name = type(obj)
    return Ext(_SINGLE_ARG, packb((name.__module__, name.__name__, obj.value), _default, _PACK))


def _pydantic(obj: Any) -> Ext:
    name = type(obj)
    payload = (name.__module__, name.__name__, obj.model_dump(), "model_validate_json")
    return Ext(_PYDANTIC_V2, packb(payload, _default, _PACK))


def _pydantic_serializer(obj: Any) -> Ext:
    """``_pydantic`` for a model whose ``model_dump`` is pydantic's own (``_MODEL_DUMP``): the
    same dict, asked of the model's serializer directly with the arguments ``model_dump`` would
    give it. ``model_dump`` is a Python function that passes fourteen keyword arguments on, which
    costs more than the dict of a small model."""
    name = type(obj)
    fields = obj.__pydantic_serializer__.to_python(obj, mode="python", warnings=True)
    payload = (name.__module__, name.__name__, fields, "model_validate_json")
    return Ext(_PYDANTIC_V2, packb(payload, _default, _PACK))


def _plain_model_dump() -> Any:
    """pydantic's ``BaseModel.model_dump`` if ``_pydantic_serializer`` gives the same dict: all
    it does is hand its keyword arguments to ``self.__pydantic_serializer__.to_python`` (the only
    names its code reads), and those arguments' defaults are ``mode="python"``,
    ``warnings=True`` (passed by ``_pydantic_serializer``) and, for the others, ``to_python``'s
    own defaults, as its signature shows them. None otherwise: models are then dumped by calling
    their ``model_dump``."""
    try:
        import inspect

        import pydantic
        import pydantic_core

        dump = pydantic.BaseModel.model_dump
        if dump.__code__.co_names != ("__pydantic_serializer__", "to_python"):
            return None
        target = inspect.signature(pydantic_core.SchemaSerializer.to_python).parameters
        passed = {"mode": "python", "warnings": True}
        params = list(inspect.signature(dump).parameters.values())[1:]
        if not passed.keys() <= {p.name for p in params}:
            return None
        for p in params:
            if p.kind is not p.KEYWORD_ONLY or p.name not in target:
                return None
            expected = passed[p.name] if p.name in passed else target[p.name].default
            if type(p.default) is not type(expected) or p.default != expected:
                return None
    except (ImportError, AttributeError, TypeError, ValueError):
        return None
    return dump


# Found once, at import: LangGraph's serializer has imported pydantic already.
_MODEL_DUMP = _plain_model_dump()


def _dataclass(obj: Any) -> Ext:
    name = type(obj)
    fields = {field.name: getattr(obj, field.name) for field in dataclasses.fields(obj)}
    return Ext(_KW_ARGS, packb((name.__module__, name.__name__, fields), _default, _PACK))


def _langgraph(obj: Any) -> Any:
    """LangGraph's own packing of ``obj``: the extension value it makes (opaque outside
    ormsgpack), written as it is, or the string it gives for an exception."""
    out = jsonplus._msgpack_default(obj)
    if isinstance(out, str):
        return out
    return Fragment(ormsgpack.packb(out))


# Exact classes, each with the packing LangGraph's chain of checks picks for it. Found once per
# class by `_handler`, then by a dictionary lookup.
_HANDLERS: dict[type, Callable[[Any], Any]] = {
    datetime.datetime: _datetime,
    datetime.date: _date,
    datetime.timedelta: _timedelta,
    uuid.UUID: _uuid,
}


def _handler(obj: Any) -> Callable[[Any], Any]:
    """How to pack objects of the class of ``obj``: the branch LangGraph's chain of checks
    takes for it, done here for the common cases (the same bytes, faster), and by LangGraph's
    own code for the others."""
    snapshot = getattr(jsonplus, "_DeltaSnapshot", None)
    if isinstance(snapshot, type) and isinstance(obj, snapshot):
        return _langgraph
    if callable(getattr(obj, "model_dump", None)):
        if _MODEL_DUMP is not None and getattr(type(obj), "model_dump", None) is _MODEL_DUMP:
            return _pydantic_serializer
        return _pydantic
    if isinstance(obj, enum.Enum) and not _checked_before_enums(obj):
        return _enum
    if dataclasses.is_dataclass(obj) and not _checked_before_dataclasses(obj):
        return _dataclass
    for base in _BUILTINS:
        if isinstance(obj, base) and not callable(getattr(obj, "_asdict", None)):
            return base  # packed as its base type, as ormsgpack packs it
    return _langgraph


_BUILTINS: tuple[type, ...] = (str, int, float, dict, list, bytes)


def _checked_before_enums(obj: Any) -> bool:
    return any(
        callable(getattr(obj, name, None)) for name in ("get_secret_value", "dict", "_asdict")
    ) or isinstance(obj, (datetime.date, datetime.time, datetime.timedelta, uuid.UUID))


def _checked_before_dataclasses(obj: Any) -> bool:
    send = getattr(jsonplus, "SendProtocol", None)
    return _checked_before_enums(obj) or (send is not None and isinstance(obj, send))


def _default(obj: Any) -> Any:
    kind = type(obj)
    handler = _HANDLERS.get(kind)
    if handler is None:
        handler = _handler(obj)
        if len(_HANDLERS) < 4096:
            _HANDLERS[kind] = handler
    return handler(obj)


class FastmsgpackSerializer(JsonPlusSerializer):
    """LangGraph's ``JsonPlusSerializer``, its MessagePack packed and read by fastmsgpack.

    ``exact_sets=True`` writes sets, frozensets and Decimals as LangGraph does (as extensions
    that rebuild them) instead of as arrays and strings, at the cost of a walk over each value
    before it is packed; the other arguments are ``JsonPlusSerializer``'s."""

    def __init__(self, *, exact_sets: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.exact_sets = exact_sets

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        if obj is None or isinstance(obj, (bytes, bytearray)):
            return super().dumps_typed(obj)
        try:
            if self.exact_sets and _holds_otherwise(obj):
                return "msgpack", bytes(jsonplus._msgpack_enc(obj))
            return "msgpack", packb(obj, _default, _PACK)
        except MsgpackEncodeError:
            if self.pickle_fallback:
                import pickle

                return "pickle", pickle.dumps(obj)
            raise

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        type_, payload = data
        if type_ == "msgpack":
            return unpackb(payload, ext_hook=self._unpack_ext_hook, option=OPT_NON_STR_KEYS)
        return super().loads_typed(data)
