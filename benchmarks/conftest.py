"""Inputs for the benchmarks: four real-world JSON documents, as Python objects and as MessagePack.

The documents (twitter, github, citm_catalog, canada) are the ones the orjson, ormsgpack and
nativejson-benchmark projects use for speed comparisons. They are read, xz-compressed, from
``tests/data/fixtures`` (see the README.md there for their provenance).
"""

from __future__ import annotations

import functools
import gc
import json
import lzma
import os
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from _progress import register as register_progress

# numpy's BLAS keeps worker threads that can spin on a 2-core machine and steal time from the
# library being timed; no benchmark uses BLAS, so one thread is enough.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

FIXTURES_DIR = Path(__file__).resolve().parents[1] / "tests" / "data" / "fixtures"

# In the order the results are reported.
FIXTURE_NAMES = ("twitter", "github", "citm_catalog", "canada")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--progress-fd",
        type=int,
        metavar="FD",
        help="write a progress line (benchmark, i of n, elapsed time) to the open file "
        "descriptor FD; scripts/bench sends pytest's own output to a file and uses this",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "large: a benchmark of 100 MB or more, left out of scripts/bench --quick"
    )
    fd = config.getoption("progress_fd")
    if fd is not None:
        register_progress(config, fd)


@functools.cache
def load_document(name: str) -> Any:
    """The JSON document ``name`` decoded with the standard library (loaded once per run)."""
    path = FIXTURES_DIR / f"{name}.json.xz"
    if not path.is_file():
        pytest.fail(f"benchmark fixture not found: {path}", pytrace=False)
    with lzma.open(path) as f:
        return json.loads(f.read())


@functools.cache
def packed_document(name: str) -> bytes:
    """The document ``name`` packed by the reference implementation, msgpack-python."""
    data = msgpack.packb(load_document(name), use_bin_type=True)
    assert isinstance(data, bytes)
    return data


@pytest.fixture(scope="session", autouse=True)
def _frozen_inputs() -> None:
    """Load every input once, then move it out of the garbage collector's view.

    The documents are hundreds of thousands of long-lived objects. Left tracked, each full
    collection set off by a decoder's allocations would traverse them all, so the measured time
    would depend on what the benchmark process happens to keep alive. ``gc.freeze()`` leaves the
    collector running for the objects that packb and unpackb themselves create, as in real use.
    """
    for name in FIXTURE_NAMES:
        packed_document(name)
    gc.collect()
    gc.freeze()


@pytest.fixture(params=FIXTURE_NAMES)
def fixture_name(request: pytest.FixtureRequest) -> str:
    """Name of one of the four documents; tests using it run once per document."""
    name: str = request.param
    return name


@pytest.fixture
def document(fixture_name: str) -> Any:
    """The document as Python objects (dict, list, str, int, float, bool, None)."""
    return load_document(fixture_name)


@pytest.fixture
def packed(fixture_name: str) -> bytes:
    """The document as MessagePack bytes."""
    return packed_document(fixture_name)
