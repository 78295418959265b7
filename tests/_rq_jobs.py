"""The jobs of tests/test_integrations_rq.py, imported by the real rq worker it starts."""

from __future__ import annotations

from typing import Any

from _workers import describe


def echo(value: Any) -> Any:
    return {"value": value, "types": describe(value)}


def fail() -> None:
    raise KeyError("missing")
