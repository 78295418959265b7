#!/usr/bin/env python3
"""Write a pytest-benchmark JSON report as a Markdown page: the environment, the version of every
library benchmarked, the comparison table of scripts/bench_table.py, optionally the peak-memory
table of scripts/bench_memory.py, and the charts of scripts/bench_plots.py.

The environment (CPU, operating system) and the library versions are those of the machine and
interpreter running this script, so run it where the benchmarks ran, as scripts/bench does.

Usage: scripts/bench_results.py [--memory FILE] [--charts DIR] [--quick] [-o FILE] REPORT.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
from collections.abc import Iterable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from bench_table import FAMILY_TITLES, family_of, library_of, load, render_markdown, rows

# Names used in the benchmarks that are not distribution names.
DISTRIBUTIONS = {
    "pyyaml": "PyYAML",
    "yaml": "PyYAML",
    "tobytes": "numpy",
    "protobuf": "protobuf",
}
NOTES = {"tobytes": "ndarray.tobytes(), the floor for raw packing"}
# Packages the benchmarks depend on without timing them.
SUPPORTING = ("numpy", "pytest-benchmark")

# Each chart, its title, and the workload families it is drawn from (scripts/bench_plots.py).
CHARTS = (
    ("fixtures-pack", "Packing the four documents", ("fixtures-pack",)),
    ("fixtures-unpack", "Unpacking the four documents", ("fixtures-unpack",)),
    ("route", "Route-planning snapshot, largest N", ("route",)),
    ("route-scaling", "Route-planning snapshot, time against N", ("route",)),
    ("sizes", "Serialized sizes", ("route", "vocab")),
    ("vocab", "Vocabulary file", ("vocab",)),
    ("small", "Small messages", ("small",)),
    ("gc-heap", "Unpacking under a large live heap", ("gc-heap",)),
    ("rich", "Rich types", ("rich",)),
    ("numpy", "numpy arrays", ("numpy",)),
    ("json", "JSON output", ("json",)),
    ("streams-unpack", "Objects from streams", ("streams-unpack",)),
)


def version_of(library: str) -> tuple[str, str]:
    """(package, version) of a library named in the report, e.g. "pickle-5" or "msgpack"."""
    candidates = [library]
    parts = library.split("-")
    candidates += ["-".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]
    for name in candidates:
        dist = DISTRIBUTIONS.get(name.lower(), name)
        try:
            return dist, metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
        if name in sys.stdlib_module_names:
            return f"{name} (standard library)", f"Python {platform.python_version()}"
    return library, "unknown"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Hardware", "Model", "cpu model"):
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def os_description() -> str:
    system = f"{platform.system()} {platform.release()} ({platform.machine()})"
    try:
        pretty = platform.freedesktop_os_release().get("PRETTY_NAME")
    except OSError:
        pretty = None
    if pretty:
        return f"{pretty}, {system}"
    if platform.system() == "Darwin":
        return f"macOS {platform.mac_ver()[0]}, {system}"
    return system


def run_options(report: dict[str, Any]) -> str | None:
    """The timing options of the run, e.g. "max time 0.1 s, min rounds 3, min round time
    0.0001 s, warmup off"."""
    for bench in report.get("benchmarks", []):
        options = bench.get("options") or {}
        if options:
            warmup = "on" if options.get("warmup") else "off"
            gc_state = "disabled" if options.get("disable_gc") else "enabled"
            return (
                f"max time {options.get('max_time')} s, min rounds {options.get('min_rounds')},"
                f" min round time {options.get('min_time')} s, warmup {warmup}, garbage collector {gc_state}, timer {options.get('timer')}"
            )
    return None


def run_date(report: dict[str, Any]) -> str | None:
    value = report.get("datetime")
    if not value:
        return None
    try:
        when = datetime.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return str(value)
    if when.tzinfo is not None:
        when = when.astimezone(datetime.timezone.utc)
    return when.strftime("%Y-%m-%d %H:%M UTC")


def bullet_list(items: Iterable[tuple[str, str | None]]) -> list[str]:
    return [f"- {key}: {value}" for key, value in items if value]


def gc_heap_tables(
    heap: list[dict[str, Any]], unpack: list[dict[str, Any]], reference: str
) -> list[str]:
    """The large-heap workload beside plain ``unpackb-canada``, by median, mean and maximum.

    A full collection is rare with the big heap but walks all of it, so a library that lets the
    collector run while it decodes shows the heap in its mean and maximum far more than in its
    median; the median alone can even be lower than without the heap.
    """
    benches = [b for b in unpack if b.get("group") == "unpackb-canada"] + heap
    out = ["", f"### {FAMILY_TITLES['gc-heap']}", ""]
    for stat, label in (("median", "Median"), ("mean", "Mean"), ("max", "Slowest call")):
        table = load({"benchmarks": benches}, stat, reference)
        if table.groups:
            # No geometric mean: the two rows are one workload with and without the heap.
            out += [f"{label}:", "", render_markdown(*rows(table, reference, geomean=False)), ""]
    return out[:-1]


def render(
    report: dict[str, Any],
    memory: str | None,
    charts: Path | None,
    reference: str,
    quick: bool = False,
) -> str:
    libraries = list(dict.fromkeys(library_of(b) for b in report.get("benchmarks", [])))
    if reference in libraries:
        libraries.remove(reference)
        libraries.insert(0, reference)
    out = ["# Benchmark results", ""]
    out.append(
        "Written by `scripts/bench` from one run of the benchmarks; see"
        " [benchmarks.md](../benchmarks.md) for what they measure and how to read the tables."
        " Timings depend on the machine: compare libraries within one run."
    )
    if quick:
        out += [
            "",
            (
                "This was a `scripts/bench --quick` run: few and short rounds, and PyYAML left"
                " out. Its figures are noisier than those of a full run."
            ),
        ]
    out += ["", "## Environment", ""]
    info = report.get("machine_info") or {}
    compiler = platform.python_compiler()
    out += bullet_list(
        [
            ("Run", run_date(report)),
            (
                "Python",
                f"{platform.python_implementation()} {platform.python_version()}"
                + (f" ({compiler})" if compiler else ""),
            ),
            ("CPU", f"{cpu_model()}, {os.cpu_count()} logical CPUs"),
            ("Operating system", os_description()),
            ("Timing", run_options(report)),
        ]
    )
    if info.get("python_version") and info["python_version"] != platform.python_version():
        out.append(
            f"- Note: the report was written by Python {info['python_version']}, not by the"
            " interpreter that wrote this page: the versions below may not be those measured."
        )

    out += ["", "## Versions", "", "| library | package | version |", "| --- | --- | --- |"]
    for lib in libraries:
        dist, version = version_of(lib)
        note = f" ({NOTES[lib]})" if lib in NOTES else ""
        out.append(f"| {lib}{note} | {dist} | {version} |")
    for dist in SUPPORTING:
        try:
            out.append(f"| (used by the benchmarks) | {dist} | {metadata.version(dist)} |")
        except metadata.PackageNotFoundError:
            pass

    families: dict[str, list[dict[str, Any]]] = {}
    for bench in report.get("benchmarks", []):
        families.setdefault(family_of(bench), []).append(bench)
    if families:
        out += [
            "",
            "## Time",
            "",
            (
                f"Median time per call; in brackets, the ratio to {reference}"
                f" (above 1 = slower than {reference}). The last row of each table is the"
                " geometric mean of the ratios over its workloads. The large-heap section"
                " also gives the mean and the slowest call, without a geometric mean."
            ),
        ]
    for family, benches in families.items():
        if family == "gc-heap":
            out += gc_heap_tables(benches, families.get("fixtures-unpack", []), reference)
            continue
        table = load({"benchmarks": benches}, "median", reference)
        if table.groups:
            out += ["", f"### {FAMILY_TITLES.get(family, family)}", ""]
            out.append(render_markdown(*rows(table, reference)))
    if memory:
        out += ["", "## Peak memory", "", memory.strip()]
    if charts is not None:
        # Only the charts of this run: those of workloads it left out may still be in the folder.
        present = [
            (name, title)
            for name, title, drawn_from in CHARTS
            if any(f in families for f in drawn_from) and (charts / f"{name}.png").is_file()
        ]
        if present:
            out += ["", "## Charts", ""]
            for name, title in present:
                out += [f"![{title}]({name}.png)", ""]
            out.pop()
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write a benchmark report as Markdown.")
    parser.add_argument("report", type=Path, help="JSON written by pytest --benchmark-json")
    parser.add_argument(
        "--memory", type=Path, help="Markdown output of scripts/bench_memory.py to include"
    )
    parser.add_argument(
        "--charts",
        type=Path,
        help="directory of the charts (where the page will be written); link those present",
    )
    parser.add_argument(
        "--reference",
        default="fastmsgpack",
        help="library the ratios are relative to (default: fastmsgpack)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="say that the report comes from scripts/bench --quick"
    )
    parser.add_argument("-o", "--output", type=Path, help="write here instead of to stdout")
    args = parser.parse_args(argv)

    try:
        report = json.loads(args.report.read_text(encoding="utf-8"))
        memory = args.memory.read_text(encoding="utf-8") if args.memory else None
    except (OSError, ValueError) as exc:
        print(f"bench_results: {exc}", file=sys.stderr)
        return 1
    page = render(report, memory, args.charts, args.reference, args.quick)
    if args.output:
        args.output.write_text(page, encoding="utf-8")
    else:
        sys.stdout.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
