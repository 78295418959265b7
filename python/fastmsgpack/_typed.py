"""Decoding plans for ``unpackb(data, type=T)``: what each type expects on the wire.

A type is walked once into a flat list of nodes (a node refers to others by index, so that a
recursive dataclass refers back to itself) and compiled by the core into a plan. The plan of a
class is kept in the class's own ``__dict__``, and the plans of aliases such as ``list[Record]``
in the ``__dict__`` of the first class they name (or, when they name none, in a module-level
dict): a plan and its class refer to each other, a cycle the garbage collector frees with the
class, so no type is kept alive by the cache.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import datetime
import decimal
import enum
import inspect
import sys
import types
import typing
import uuid
from typing import Any

import fastmsgpack._fastmsgpack as _core  # type: ignore[import-not-found]

_PLAN = "__fastmsgpack_plan__"
_ALIAS_PLANS = "__fastmsgpack_plans__"

# Aliases that name no class of the program's own (list[int], dict[str, float], ...), and those
# whose class refuses attributes: their types live as long as the interpreter, so a plain dict
# keeps nothing alive that would otherwise go.
_BUILTIN_ALIASES: dict[Any, Any] = {}

_SCALARS: dict[Any, str] = {
    int: "int",
    float: "float",
    str: "str",
    bool: "bool",
    bytes: "bytes",
    bytearray: "bytearray",
    memoryview: "memoryview",
    type(None): "none",
    None: "none",
    uuid.UUID: "uuid",
    datetime.datetime: "datetime",
    datetime.date: "date",
    datetime.time: "time",
    decimal.Decimal: "decimal",
    Any: "any",
    object: "any",
}

# Origins of generic aliases, by the container they decode to.
_LISTS = {
    list,
    collections.abc.Sequence,
    collections.abc.MutableSequence,
    collections.abc.Collection,
}
_SETS = {set, collections.abc.Set, collections.abc.MutableSet}
_DICTS = {dict, collections.abc.Mapping, collections.abc.MutableMapping}

_UNION_TYPES: tuple[Any, ...] = (typing.Union, types.UnionType)


def plan_for(tp: Any) -> Any:
    """The compiled plan for `tp`, from the cache or built now."""
    if _is_class(tp):
        plan = tp.__dict__.get(_PLAN)
        if plan is None:
            plan = _build(tp, tp)
            _store(tp, _PLAN, plan)
        return plan
    try:
        hash(tp)
    except TypeError:
        return _build(tp, None)
    owner = _owner(tp, 0)
    plans = None if owner is None else owner.__dict__.get(_ALIAS_PLANS)
    if owner is not None and plans is None:
        plans = {}
        if not _store(owner, _ALIAS_PLANS, plans):
            plans = None
    if plans is None:
        # No class of the program's own: the types live as long as the interpreter.
        plans = _BUILTIN_ALIASES
        if len(plans) >= 1024:
            return _build(tp, None)
    plan = plans.get(tp)
    if plan is None:
        plan = plans[tp] = _build(tp, None)
    return plan


def _store(cls: type, name: str, value: Any) -> bool:
    """Keeps `value` in the class's own dict; False when the class refuses attributes."""
    try:
        type.__setattr__(cls, name, value)
    except (TypeError, AttributeError):
        return False
    return True


_HEAPTYPE = 1 << 9


def _owner(tp: Any, depth: int) -> type | None:
    """The class whose ``__dict__`` keeps the plan of the alias `tp`: the first class made by
    the program (a heap type) among its arguments, depth first, else its origin. The core looks
    plans up by the same rule, so the two must agree."""
    if depth > 8:
        return None
    for arg in getattr(tp, "__args__", ()):
        if _is_class(arg):
            if arg.__flags__ & _HEAPTYPE:
                found: type = arg
                return found
        else:
            inner = _owner(arg, depth + 1)
            if inner is not None:
                return inner
    origin = getattr(tp, "__origin__", None)
    if isinstance(origin, type) and _is_class(origin) and origin.__flags__ & _HEAPTYPE:
        return origin
    return None


def _build(tp: Any, owner: type | None) -> Any:
    builder = _Builder()
    root = builder.add(tp)
    return _core._compile_plan(builder.nodes, root, owner, builder.has_custom)


def _is_class(tp: Any) -> bool:
    """A real class (``isinstance(list[int], type)`` is true too, for an alias)."""
    return isinstance(tp, type) and not isinstance(tp, types.GenericAlias)


def _required_wrappers() -> dict[Any, bool]:
    """Required and NotRequired, from typing (3.11+) and typing_extensions when loaded."""
    found: dict[Any, bool] = {}
    for module in (typing, sys.modules.get("typing_extensions")):
        for name, required in (("Required", True), ("NotRequired", False)):
            wrapper = getattr(module, name, None)
            if wrapper is not None:
                found[wrapper] = required
    return found


def _is_pydantic_model(tp: Any) -> bool:
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(tp, type) and issubclass(tp, pydantic.BaseModel)


def _is_ndarray(tp: Any) -> bool:
    numpy = sys.modules.get("numpy")
    return numpy is not None and tp is numpy.ndarray


def _type_hints(cls: Any, include_extras: bool = False) -> dict[str, Any]:
    """The resolved annotations of a class; those that cannot be resolved are left out when the
    whole cannot be (Python 3.10 cannot evaluate the text "InitVar[int]"), and a field that
    needs one of them fails when it is built."""
    try:
        return typing.get_type_hints(cls, include_extras=include_extras)
    except Exception as exc:
        hints = _hints_one_by_one(cls, include_extras)
        if not hints and getattr(cls, "__annotations__", None):
            raise TypeError(f"cannot resolve the annotations of {cls.__qualname__}: {exc}") from exc
        return hints


def _hints_one_by_one(cls: Any, include_extras: bool) -> dict[str, Any]:
    hints: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        for name, annotation in inspect.get_annotations(base).items():
            one = type("_One", (), {"__annotations__": {name: annotation}})
            one.__module__ = base.__module__
            try:
                hints.update(typing.get_type_hints(one, include_extras=include_extras))
            except Exception:  # noqa: BLE001 (left out; a field that needs it fails later)
                hints.pop(name, None)
    return hints


def _is_generated_init(cls: type) -> bool:
    """Whether `cls.__init__` is the one @dataclass wrote (its code comes from a string)."""
    init = getattr(cls, "__init__", None)
    code = getattr(init, "__code__", None)
    return code is not None and code.co_filename == "<string>"


def _class_name(cls: type) -> str:
    """The name of a class in messages: its qualified name unless it was made in a function."""
    return cls.__name__ if "<locals>" in cls.__qualname__ else cls.__qualname__


class _Builder:
    def __init__(self) -> None:
        self.nodes: list[tuple[Any, ...]] = []
        # Classes being (or already) built, by (class, type arguments): a recursive reference
        # becomes the index of the class's node.
        self.classes: dict[tuple[Any, ...], int] = {}
        self.has_custom = False

    def name(self, index: int) -> str:
        return str(self.nodes[index][1])

    def new(self, *node: Any) -> int:
        self.nodes.append(node)
        return len(self.nodes) - 1

    def add(self, tp: Any, typevars: dict[Any, Any] | None = None) -> int:
        if isinstance(tp, typing.TypeVar):
            if typevars is not None and tp in typevars:
                return self.add(typevars[tp])
            bound = tp.__bound__
            return self.add(Any if bound is None else bound)
        if isinstance(tp, str):
            raise TypeError(f"unresolved forward reference {tp!r}: pass the type itself")
        if isinstance(tp, typing.NewType):
            return self.add(tp.__supertype__, typevars)
        try:
            kind = _SCALARS.get(tp)
        except TypeError:  # unhashable
            kind = None
        if kind is not None:
            return self.new(kind, _SCALAR_NAMES.get(tp, kind))
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if typevars:
            args = tuple(typevars.get(a, a) if isinstance(a, typing.TypeVar) else a for a in args)
        if origin is typing.Annotated:
            return self.add(args[0], typevars)
        if origin in (typing.Final, typing.ClassVar) or origin in _required_wrappers():
            return self.add(args[0], typevars)
        if origin in _UNION_TYPES:
            return self.union(args, typevars)
        if origin is typing.Literal:
            return self.literal(args)
        if origin is not None:
            return self.generic(tp, origin, args, typevars)
        if _is_class(tp):
            return self.cls(tp, (), typevars)
        raise TypeError(f"unsupported type {tp!r} for unpackb(type=...)")

    def union(self, args: tuple[Any, ...], typevars: dict[Any, Any] | None) -> int:
        members = [self.add(a, typevars) for a in args]
        name = " | ".join(self.name(m) for m in members)
        return self.new("union", name, members)

    def literal(self, args: tuple[Any, ...]) -> int:
        values: list[Any] = []
        for arg in args:
            if typing.get_origin(arg) is typing.Literal:  # Literal[Literal[1], 2]
                values.extend(typing.get_args(arg))
            else:
                values.append(arg)
        for value in values:
            if (
                value is not None
                and type(value) not in (int, str, bool, bytes)
                and not isinstance(value, enum.Enum)
            ):
                raise TypeError(f"unsupported Literal value {value!r}")
        name = "Literal[" + ", ".join(repr(v) for v in values) + "]"
        table = {(type(v), v): v for v in values if not isinstance(v, enum.Enum)}
        for v in values:
            if isinstance(v, enum.Enum):
                table[(type(v.value), v.value)] = v
        return self.new("literal", name, table)

    def generic(
        self, tp: Any, origin: Any, args: tuple[Any, ...], typevars: dict[Any, Any] | None
    ) -> int:
        if origin in _LISTS:
            child = self.add(args[0] if args else Any, typevars)
            return self.new("list", f"list[{self.name(child)}]", child)
        if origin in _SETS or origin is frozenset:
            child = self.add(args[0] if args else Any, typevars)
            kind = "frozenset" if origin is frozenset else "set"
            return self.new(kind, f"{kind}[{self.name(child)}]", child)
        if origin in _DICTS:
            key = self.add(args[0] if args else Any, typevars)
            value = self.add(args[1] if len(args) > 1 else Any, typevars)
            return self.new("dict", f"dict[{self.name(key)}, {self.name(value)}]", key, value)
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                child = self.add(args[0], typevars)
                return self.new("vartuple", f"tuple[{self.name(child)}, ...]", child)
            if args == ((),):  # typing.Tuple[()]
                args = ()
            items = [self.add(a, typevars) for a in args]
            inner = ", ".join(self.name(i) for i in items) or "()"
            return self.new("tuple", f"tuple[{inner}]", items)
        if origin is type or origin is collections.abc.Callable:
            raise TypeError(f"unsupported type {tp!r} for unpackb(type=...)")
        if isinstance(origin, type):
            return self.cls(origin, args, typevars)
        raise TypeError(f"unsupported type {tp!r} for unpackb(type=...)")

    def cls(self, cls: type, args: tuple[Any, ...], typevars: dict[Any, Any] | None) -> int:
        key = (cls, args)
        index = self.classes.get(key)
        if index is not None:
            return index
        if cls in (list, tuple, set, frozenset, dict):
            return self.generic(cls, cls, (), typevars)
        if issubclass(cls, enum.Enum):
            return self.enum(cls)
        params = getattr(cls, "__parameters__", ())
        local = dict(zip(params, args)) if params and args else None
        if dataclasses.is_dataclass(cls):
            return self.dataclass(cls, key, local)
        if typing.is_typeddict(cls):
            return self.typeddict(cls, key, local)
        if issubclass(cls, tuple) and hasattr(cls, "_fields"):
            return self.namedtuple(cls, key, local)
        if _is_pydantic_model(cls):
            return self.new("model", _class_name(cls), cls)
        if _is_ndarray(cls):
            return self.new("numpy", "numpy.ndarray", cls)
        self.has_custom = True
        return self.new("custom", _class_name(cls), cls)

    def enum(self, cls: type[enum.Enum]) -> int:
        members = dict(cls._value2member_map_)
        return self.new("enum", _class_name(cls), cls, members)

    def reserve(self, key: tuple[Any, ...], kind: str, name: str) -> int:
        index = self.new(kind, name)
        self.classes[key] = index
        return index

    def dataclass(self, cls: type, key: tuple[Any, ...], local: dict[Any, Any] | None) -> int:
        index = self.reserve(key, "dataclass", _class_name(cls))
        hints = _type_hints(cls)
        initvars = any(
            f._field_type is dataclasses._FIELD_INITVAR  # type: ignore[attr-defined]
            for f in cls.__dataclass_fields__.values()  # type: ignore[attr-defined]
        )
        params = cls.__dataclass_params__  # type: ignore[attr-defined]
        fast = (
            params.init
            and not initvars
            and getattr(cls, "__new__", None) is object.__new__
            and type(cls).__call__ is type.__call__
            and _is_generated_init(cls)
        )
        fields = []
        for f in dataclasses.fields(cls):
            if f.default is not dataclasses.MISSING:
                default_kind, default = 1, f.default
            elif f.default_factory is not dataclasses.MISSING:
                default_kind, default = 2, f.default_factory
            else:
                default_kind, default = 0, None
            if f.name not in hints:
                raise TypeError(f"cannot resolve the annotation of {cls.__qualname__}.{f.name}")
            node = self.add(hints[f.name], local)
            fields.append((f.name, node, bool(f.init), default_kind, default))
        post_init = hasattr(cls, "__post_init__")
        self.nodes[index] = ("dataclass", _class_name(cls), cls, fields, post_init, fast)
        return index

    def typeddict(self, cls: type, key: tuple[Any, ...], local: dict[Any, Any] | None) -> int:
        index = self.reserve(key, "typeddict", _class_name(cls))
        hints = _type_hints(cls)
        required = set(cls.__required_keys__)  # type: ignore[attr-defined]
        # Under `from __future__ import annotations` the class could not see Required and
        # NotRequired in its (string) annotations: they are read from the resolved ones.
        wrappers = _required_wrappers()
        for name, hint in _type_hints(cls, include_extras=True).items():
            marked = wrappers.get(typing.get_origin(hint))
            if marked is True:
                required.add(name)
            elif marked is False:
                required.discard(name)
        fields = []
        for name, hint in hints.items():
            node = self.add(hint, local)
            fields.append((name, node, True, 0 if name in required else 3, None))
        self.nodes[index] = ("typeddict", _class_name(cls), cls, fields, False, True)
        return index

    def namedtuple(self, cls: type, key: tuple[Any, ...], local: dict[Any, Any] | None) -> int:
        index = self.reserve(key, "namedtuple", _class_name(cls))
        hints = _type_hints(cls) if getattr(cls, "__annotations__", None) else {}
        defaults = cls._field_defaults  # type: ignore[attr-defined]
        fields = []
        for name in cls._fields:  # type: ignore[attr-defined]
            node = self.add(hints.get(name, Any), local)
            if name in defaults:
                fields.append((name, node, True, 1, defaults[name]))
            else:
                fields.append((name, node, True, 0, None))
        # The __new__ that collections.namedtuple writes only makes the tuple: when the class
        # keeps it, the core makes the tuple itself.
        base = next(c for c in cls.__mro__ if "_make" in c.__dict__)
        direct = cls.__new__ is base.__new__
        self.nodes[index] = ("namedtuple", _class_name(cls), cls, fields, False, direct)
        return index


_SCALAR_NAMES: dict[Any, str] = {
    type(None): "None",
    None: "None",
    uuid.UUID: "UUID",
    decimal.Decimal: "Decimal",
    Any: "Any",
    object: "Any",
}
