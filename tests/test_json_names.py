"""fastmsgpack.json and packb agree: named tuples are arrays in both, and every exception class
is importable at the name its tracebacks show (fastmsgpack.json.JSONEncodeError)."""

from __future__ import annotations

import importlib
import pickle
from typing import NamedTuple

import pytest

import fastmsgpack
import fastmsgpack.json


class LatLon(NamedTuple):
    lat: float
    lon: float


EXCEPTIONS = [
    fastmsgpack.MsgpackEncodeError,
    fastmsgpack.MsgpackDecodeError,
    fastmsgpack.ValidationError,
    fastmsgpack.OutOfData,
    fastmsgpack.BufferFull,
    fastmsgpack.json.JSONEncodeError,
]


@pytest.mark.parametrize("cls", EXCEPTIONS, ids=lambda c: c.__name__)
def test_exception_name_is_importable(cls: type[BaseException]) -> None:
    # The name a traceback shows (module.qualname) is where the class can be imported from,
    # and so where pickle finds it.
    module = importlib.import_module(cls.__module__)
    assert getattr(module, cls.__qualname__) is cls
    err = cls("message")
    assert type(pickle.loads(pickle.dumps(err))) is cls


def test_json_encode_error_traceback_name() -> None:
    with pytest.raises(fastmsgpack.json.JSONEncodeError) as info:
        fastmsgpack.json.dumps(b"bytes")
    cls = type(info.value)
    assert f"{cls.__module__}.{cls.__qualname__}" == "fastmsgpack.json.JSONEncodeError"


def test_json_dumps_and_packb_agree_on_named_tuples() -> None:
    doc = {"where": LatLon(48.85, 2.35), "route": [LatLon(1.0, 2.0)]}
    assert fastmsgpack.json.dumps(doc) == b'{"where":[48.85,2.35],"route":[[1.0,2.0]]}'
    assert fastmsgpack.unpackb(fastmsgpack.packb(doc)) == {
        "where": [48.85, 2.35],
        "route": [[1.0, 2.0]],
    }
