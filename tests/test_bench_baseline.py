"""scripts/bench --baseline REV: every benchmark that times fastmsgpack times the earlier build
too, as ``fastmsgpack-before`` (benchmarks/baseline.py).

The earlier build here is a copy of the current extension module under another file name, which
the loader treats as a build of its own (its own module state), as it does REV's.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

import pytest
from _free_threaded import is_left_out

import fastmsgpack._fastmsgpack

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"

# Benchmarks that time fastmsgpack through the current checkout's Python layers (an integration
# module, a web server, a task queue) or a Fragment, and so have no column for an earlier core.
WITHOUT_BEFORE = {
    "test_aio.py::test_aio_read",
    "test_celery.py::test_celery_round_trip",
    "test_dask.py::test_dask_serialize",
    "test_dask.py::test_dask_deserialize",
    "test_fragment.py::test_fragment_wrap_insert",
    "test_fragment.py::test_fragment_make",
    "test_langgraph.py::test_langgraph_dumps",
    "test_langgraph.py::test_langgraph_loads",
    "test_queues.py::test_arq_round_trip",
    "test_queues.py::test_rq_round_trip",
    "test_queues.py::test_dramatiq_round_trip",
    "test_zero_copy.py::test_bins_memoryview",
}

# The modules this test collects: decode and encode benchmarks that need only the test group's
# pins (the route, view and vocabulary ones need protobuf and the JSON libraries of the bench
# group); with orjson (not on free-threaded builds, where the test run stands in for it), those
# that compare against it too.
MODULES = ["test_compat.py", "test_exact.py", "test_numpy.py", "test_rich.py", "test_typed.py"]
WITH_ORJSON = ["test_fixtures.py", "test_json.py", "test_small.py"]


def earlier_build(tmp_path: Path) -> Path:
    """A copy of the current extension module, standing in for REV's."""
    source = Path(fastmsgpack._fastmsgpack.__file__)
    copy = tmp_path / "before" / source.name
    copy.parent.mkdir()
    shutil.copy(source, copy)
    return copy


def baseline_env(tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, FASTMSGPACK_BASELINE=str(earlier_build(tmp_path)))


@pytest.mark.once
def test_every_fastmsgpack_benchmark_has_a_before_column(tmp_path: Path) -> None:
    modules = MODULES + ([] if is_left_out("orjson") else WITH_ORJSON)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
        + [f"benchmarks/{m}" for m in modules],
        cwd=ROOT,
        env=baseline_env(tmp_path),
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    ids: dict[str, list[str]] = defaultdict(list)
    for line in out.stdout.splitlines():
        match = re.fullmatch(r"benchmarks/(test_\w+\.py::\w+)(?:\[(.*)\])?", line.strip())
        if match:
            ids[match[1]].append(match[2] or "")
    assert {"test_typed.py::test_typed_records", "test_compat.py::test_compat"} <= set(ids)
    missing = [
        test
        for test, params in ids.items()
        if test not in WITHOUT_BEFORE
        and any("fastmsgpack" in p for p in params)
        and not any("fastmsgpack-before" in p for p in params)
    ]
    assert not missing, f"no fastmsgpack-before column: {missing}"
    # Every group of the typed, compat and exact benchmarks, not just one of each test.
    typed = ids["test_typed.py::test_typed_records"]
    assert {"fastmsgpack-before", "fastmsgpack-before-Decoder"} <= set(typed)
    compat = ids["test_compat.py::test_compat"]
    for group in ("compat-packb", "compat-unpackb", "compat-tuples", "compat-hook"):
        assert f"twitter-{group}-fastmsgpack-before" in compat, group
    exact = ids["test_exact.py::test_exact_unpack"] + ids["test_exact.py::test_exact_pack"]
    assert sum("fastmsgpack-before" in p for p in exact) == 4  # 2 workloads, pack and unpack
    assert "fastmsgpack-before-registry" in ids["test_exact.py::test_registry_unpack"]


def test_before_compat_runs_on_the_earlier_core(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(BENCHMARKS)!r})
        import fastmsgpack, fastmsgpack.compat
        from baseline import BEFORE, BEFORE_COMPAT

        core = fastmsgpack._fastmsgpack
        assert BEFORE is not core
        assert BEFORE_COMPAT is not fastmsgpack.compat
        # The copy calls the earlier core; the package keeps the current one everywhere.
        assert BEFORE_COMPAT._core is BEFORE
        assert BEFORE_COMPAT.packb.__globals__["_PLAIN_PACKER"]._packb.__globals__["_core"] is BEFORE
        assert fastmsgpack.compat._core is core
        assert sys.modules["fastmsgpack._fastmsgpack"] is core
        assert sys.modules["fastmsgpack.compat"] is fastmsgpack.compat
        doc = {{"a": [1, 2.5, b"x", None], "b": {{"c": True}}}}
        packed = BEFORE_COMPAT.packb(doc, use_bin_type=True)
        assert packed == fastmsgpack.compat.packb(doc, use_bin_type=True)
        assert BEFORE_COMPAT.unpackb(packed, use_list=False) == {{"a": (1, 2.5, b"x", None), "b": {{"c": True}}}}
        try:
            BEFORE_COMPAT.unpackb(packed + b"\\x00")
        except BEFORE_COMPAT.ExtraData as exc:
            assert not isinstance(exc, fastmsgpack.compat.ExtraData)
        else:
            raise AssertionError("no ExtraData")
        print("ok")
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=baseline_env(tmp_path),
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0 and out.stdout == "ok\n", out.stdout + out.stderr
