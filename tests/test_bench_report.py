"""What scripts/bench shows: the summary tables (scripts/bench_table.py) and the progress line
(benchmarks/_progress.py), which replaces pytest's own output on the terminal."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def load_script(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


bench_table: Any = load_script(ROOT / "scripts" / "bench_table.py")


@pytest.mark.parametrize(
    ("ratio", "text"),
    [
        (None, "n/a"),
        (1.0, "1.00x"),
        (1.864, "1.86x"),
        (9.996, "10.0x"),
        (25.87, "25.9x"),
        (123.97, "124x"),
        (0.97, "0.97x"),
        (0.0996, "0.10x"),
        (0.0994, "0.099x"),
        (0.0012, "0.0012x"),
        (0.00996, "0.010x"),
        (0.0000231, "0.000023x"),
    ],
)
def test_ratios_keep_two_significant_digits(ratio: float | None, text: str) -> None:
    assert bench_table.format_ratio(ratio) == text


def benchmark(module: str, group: str, library: str, median: float) -> dict[str, Any]:
    return {
        "group": group,
        "name": f"test_x[{library}]",
        "fullname": f"benchmarks/test_{module}.py::test_x[{library}]",
        "extra_info": {"library": library},
        "stats": {"median": median},
    }


def test_plain_tables_fit_100_columns(tmp_path: Path) -> None:
    # Thirteen libraries in one family, as the route snapshot has, times from ns to s, and one
    # library a thousand times faster than the reference.
    libraries = ["fastmsgpack", "ormsgpack", "msgspec", "msgpack", "orjson", "json"]
    libraries += ["pickle-4", "pickle-5", "protobuf", "protobuf-dicts", "simplejson", "ujson"]
    libraries += ["tobytes"]
    report = {
        "benchmarks": [
            benchmark(
                "route", f"route-pack-{n:06d}", lib, n * 1e-7 * (i + 1) / (1000 if i == 12 else 1)
            )
            for n in (10, 1_000, 100_000, 10_000_000)
            for i, lib in enumerate(libraries)
        ]
        + [benchmark("small", "small-pack", "fastmsgpack", 4e-7)]
    }
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_table.py"), str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = out.splitlines()
    assert max(map(len, lines)) <= 100, max(lines, key=len)
    assert "0.00x" not in out
    assert "(0.013x)" in out  # tobytes: 13 / 1000 of the reference's time
    # Every library still appears, each block of columns repeating the workload column.
    for lib in libraries:
        assert any(line.split()[:1] == ["workload"] and lib in line.split() for line in lines), lib


def test_marks_are_explained_and_every_line_fits(tmp_path: Path) -> None:
    # msgspec has no benchmark of "small-unpack" ("-"), fastmsgpack none of "small-dump"
    # ("(n/a)"), and pickle only that one (a "-" geometric mean); a long machine description.
    report = {
        "machine_info": {
            "python_implementation": "CPython",
            "python_version": "3.11.7",
            "cpu": {"brand_raw": "AMD EPYC 7B13 64-Core Processor " * 4},
        },
        "benchmarks": [
            benchmark("small", "small-pack", "fastmsgpack", 4e-7),
            benchmark("small", "small-pack", "msgspec", 5e-7),
            benchmark("small", "small-unpack", "fastmsgpack", 4e-7),
            benchmark("small", "small-dump", "msgspec", 6e-7),
            benchmark("small", "small-dump", "pickle", 6e-7),
        ],
    }
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_table.py"), str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "(n/a)" in out and " - " in out.replace("\n", " ")
    text = " ".join(out.split())
    assert '"-": the library has no benchmark of that workload' in text
    assert '"(n/a)": fastmsgpack has no time for the workload to compare with' in text
    assert 'A geometric mean of "-": the library has no ratio to average' in text
    assert max(map(len, out.splitlines())) <= 100, max(out.splitlines(), key=len)


def test_bench_script_lines_fit_100_columns() -> None:
    # The lines scripts/bench prints itself (the path of pytest's output among them).
    for line in (ROOT / "scripts" / "bench").read_text().splitlines():
        if line.lstrip().startswith("printf "):
            text = line.split('"', 2)[1] if '"' in line else line.split("'", 2)[1]
            for shown in text.replace("%s", "target/bench/pytest-benchmark.txt").split("\\n"):
                assert len(shown) <= 100, line


def test_memory_table_fits_100_columns() -> None:
    # The longest workload label the memory table has, and every library column it can show: the
    # library columns that do not fit go to a second block, which repeats the first two columns.
    bench_memory: Any = load_script(ROOT / "scripts" / "bench_memory.py")
    libraries = list(bench_memory.LIBRARIES)
    header = ["workload", "packed size", *libraries]
    label = "round trip 16 arrays, 256 MiB (out of band)"
    body = [[label, "256.0 MiB", *(f"{100 * i + 0.5:.1f} MiB" for i in range(len(libraries)))]]
    out = bench_memory.render(header, body, markdown=False)
    lines = out.splitlines()
    assert max(map(len, lines)) <= 100, max(lines, key=len)
    headers = [line.split("  ") for line in lines if line.startswith("workload")]
    assert len(headers) >= 2
    shown = [cell.strip() for cells in headers for cell in cells if cell.strip()]
    assert sorted(c for c in shown if c not in ("workload", "packed size")) == sorted(libraries)
    # Every block has the row, with its label and size in front of its own library values.
    rows = [line for line in lines if line.startswith(label)]
    assert len(rows) == len(headers)
    values = [v for row in rows for v in row[len(label) :].split("  ") if v.strip()]
    assert values.count("256.0 MiB") == len(rows)
    expected = [f"{100 * i + 0.5:.1f} MiB" for i in range(len(libraries))]
    assert [v.strip() for v in values if v.strip() != "256.0 MiB"] == expected


@pytest.mark.once
def test_progress_line(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(
        textwrap.dedent(
            f"""
            import os
            import sys

            sys.path.insert(0, {str(ROOT / "benchmarks")!r})
            from _progress import register


            def pytest_configure(config):
                register(config, int(os.environ["PROGRESS_FD"]))
            """
        )
    )
    (tmp_path / "test_alpha.py").write_text(
        "def test_one():\n    pass\n\ndef test_two():\n    pass\n"
    )
    (tmp_path / "test_beta.py").write_text("def test_three():\n    assert 1 == 2\n")
    read, write = os.pipe()
    with os.fdopen(read, "r") as progress:
        proc = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"],
            cwd=tmp_path,
            env=dict(os.environ, PROGRESS_FD=str(write)),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            pass_fds=(write,),
        )
        os.close(write)
        lines = progress.read().splitlines()
        pytest_output = proc.communicate()[0].decode()
    assert proc.returncode == 1, pytest_output
    # Not a terminal: one line per module, a line per failure, and the total.
    assert lines[0] == "3 benchmarks to run"
    assert lines[1].startswith("[1/3  0:00] alpha")
    assert lines[2].startswith("[3/3  0:00] beta")
    assert lines[3] == "FAILED test_beta.py::test_three (call)"
    assert lines[4].startswith("3 of 3 benchmarks run in 0:0") and lines[4].endswith(", 1 failed")
    assert len(lines) == 5
    # pytest's own output is untouched.
    assert "1 failed, 2 passed" in pytest_output
