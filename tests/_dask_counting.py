"""A second Dask preload for tests/test_integrations_dask.py, after fastmsgpack.integrations.dask:
it wraps the registered ``fastmsgpack`` family so that each process counts its calls, and the
test can tell which process serialized and deserialized with it."""

from __future__ import annotations

from collections import Counter
from typing import Any

from distributed.protocol.serialize import families, register_serialization_family

import fastmsgpack.integrations.dask  # noqa: F401 (registers the family, if no preload did)

calls: Counter[str] = Counter()
_dumps, _loads, _ = families["fastmsgpack"]


def _counted_dumps(x: Any, context: Any = None) -> Any:
    result = _dumps(x, context)
    calls["dumps"] += 1
    calls["frames"] += len(result[1]) - 1
    return result


def _counted_loads(header: Any, frames: Any) -> Any:
    calls["loads"] += 1
    return _loads(header, frames)


register_serialization_family(  # type: ignore[no-untyped-call]
    "fastmsgpack", _counted_dumps, _counted_loads
)


def counts() -> dict[str, int]:
    return dict(calls)


def reset() -> None:
    calls.clear()
