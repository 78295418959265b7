"""``View``: read MessagePack where it lies, building Python objects only for what is read."""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from typing import Any, Generic, TypeVar

from fastmsgpack._fastmsgpack import (
    ArrayView,
    MapView,
    _view,
)

_T = TypeVar("_T")


class _ViewType(abc.ABCMeta):
    """The type of ``View``: ``View(data, ...)`` calls the extension directly, so that making a
    view runs no Python frame (a ``__new__`` in Python took more time than the view itself on a
    small document)."""

    __call__ = staticmethod(_view)


class View(Generic[_T], metaclass=_ViewType):
    """A lazy, read-only view of the one MessagePack object in ``data``.

    ``View(data)`` gives a ``MapView`` (a ``Mapping``) for a map, an ``ArrayView`` (a
    ``Sequence``) for an array, and any other value decoded, as ``unpackb`` would. ``data`` may be
    bytes, bytearray (copied), memoryview or mmap; the view holds it. See doc/views.md.

    - ``option``: the options of ``unpackb`` (``OPT_NON_STR_KEYS``, ``OPT_EXACT``, ...).
    - ``ext_hook``: ``ext_hook(tag, data)`` for extension values, as for ``unpackb``.
    - ``type`` and ``dec_hook``: read each value as that type when it is read, as
      ``unpackb(type=...)`` does.
    - ``validate``: check the whole input first (the default); ``False`` reads only what is
      accessed, for a large file of which a little is read.

    ``View`` is also the abstract type of both views (``isinstance(v, View)``), generic in what
    ``to_python()`` gives: a type checker sees ``View(data)`` as a ``View[Any]`` and
    ``View(data, type=T)`` as a ``View[T]``, and ``View[T]`` may be written in annotations.

    Example::

        >>> view = View(fastmsgpack.packb({"name": "north", "stops": [{"id": 1}]}))
        >>> view["stops"][0]["id"]
        1
    """

    __slots__ = ()

    def __new__(
        cls,
        data: Any,
        /,
        *,
        option: int | None = None,
        ext_hook: Any = None,
        type: Any = None,
        dec_hook: Any = None,
        validate: bool = True,
    ) -> Any:
        # Not called by ``View(...)`` (see ``_ViewType``): the signature it takes, and the same
        # call for ``View.__new__(View, data)``.
        return _view(
            data,
            option=option,
            ext_hook=ext_hook,
            type=type,
            dec_hook=dec_hook,
            validate=validate,
        )


View.register(MapView)
View.register(ArrayView)
Mapping.register(MapView)
Sequence.register(ArrayView)
