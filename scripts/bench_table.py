#!/usr/bin/env python3
"""Summarise a pytest-benchmark JSON report as tables comparing libraries.

One row per benchmark group (a workload such as "packb-twitter"), one column per library. Each
cell holds the library's median time per call and, in brackets, its ratio to the reference
library (fastmsgpack by default): a ratio above 1 means slower than the reference. A last row
gives the geometric mean of each library's ratios over the workloads it ran.

As plain text (the default), there is one table per workload family, with only the libraries
that ran in it, and a family with more libraries than fit ``--width`` columns (100 by default)
is split into blocks of columns, each repeating the workload column. A last table gives each
library's geometric mean over every workload. ``--markdown`` prints one table with every
workload and library instead.

The library of a benchmark is taken from ``extra_info["library"]``, else from the ``library``
parameter, else from the benchmark's name.

Usage: scripts/bench_table.py [--markdown] [--width 100] [--stat median]
                              [--reference fastmsgpack] REPORT.json
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STATS = ("median", "min", "mean", "max")
UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))

# Workload families, named after the test module (the fixtures split by operation), with titles.
FAMILY_TITLES = {
    "fixtures-pack": "Packing the four JSON documents (packb)",
    "fixtures-unpack": "Unpacking the four JSON documents (unpackb)",
    "gc-heap": "Unpacking canada, without and with 3,000,000 live tracked objects",
    "route": "Route-planning snapshot",
    "small": "One small message (10 fields) per call",
    "vocab": "50,000-term vocabulary written to and read from a gzip file",
    "rich": "Packing dataclasses, pydantic models and records of UUID, datetime, date, Enum",
    "numpy": "numpy arrays: element-wise packing, raw round trip, raw packing",
    "json": "JSON output: dumps, and MessagePack to JSON",
    "fragment": "A cached 100 KB packed sub-document: inserted as a Fragment, or packed again",
    "streams-pack": "Packing to streams: 100,000 small messages one by one, a 7.9 MB snapshot to a file",
    "streams-unpack": "Objects from streams: Unpacker fed 64 KiB at a time or reading a file,"
    " and unpack(fp)",
    "compat": "fastmsgpack.compat and msgpack-python, the same calls on the four JSON documents"
    " and a Packer with a converting default",
    "dask": "Dask serialize/deserialize: route snapshot (100k) and 1M float64, by family",
    "celery": "Celery task round trips (send, run, result) on a local worker and Redis",
    "typed": "Typed decoding: 2,000 dataclass records (type=list[Record]) and a pydantic model",
}
ROUTE_GROUP = re.compile(r"route-(pack|unpack)-0*(\d+)$")


@dataclass
class Table:
    groups: list[str] = field(default_factory=list)
    libraries: list[str] = field(default_factory=list)
    # times[group][library] = seconds per call
    times: dict[str, dict[str, float]] = field(default_factory=dict)


def library_of(bench: dict[str, Any]) -> str:
    extra = bench.get("extra_info") or {}
    params = bench.get("params") or {}
    name = extra.get("library") or params.get("library") or bench.get("name") or "?"
    return str(name)


def module_of(bench: dict[str, Any]) -> str:
    """The test module's name without "test_": fixtures for benchmarks/test_fixtures.py."""
    fullname = str(bench.get("fullname") or "")
    stem = fullname.split("::", 1)[0].rsplit("/", 1)[-1].removesuffix(".py")
    return stem.removeprefix("test_") or "other"


def family_of(bench: dict[str, Any]) -> str:
    """The workload family of a benchmark: "fixtures-pack", "route", "vocab", ..."""
    module = module_of(bench)
    group = str(bench.get("group") or "")
    if module == "fixtures":
        return "fixtures-unpack" if group.startswith("unpack") else "fixtures-pack"
    if module == "route" or ROUTE_GROUP.match(group):
        return "route"
    return module.replace("_", "-")


def load(report: dict[str, Any], stat: str, reference: str) -> Table:
    table = Table()
    for bench in report.get("benchmarks", []):
        stats = bench.get("stats") or {}
        if stat not in stats:
            continue
        group = str(bench.get("group") or bench.get("name") or "?")
        library = library_of(bench)
        if group not in table.times:
            table.groups.append(group)
            table.times[group] = {}
        if library not in table.libraries:
            table.libraries.append(library)
        table.times[group][library] = float(stats[stat])
    if reference in table.libraries:
        # The reference first, then its other builds ("fastmsgpack-before"), then the rest.
        own = [lib for lib in table.libraries if lib.startswith(f"{reference}-")]
        others = [lib for lib in table.libraries if lib != reference and lib not in own]
        table.libraries = [reference, *own, *others]
    return table


def format_time(seconds: float) -> str:
    scale, unit = next((u for u in UNITS if seconds >= u[0]), UNITS[-1])
    value = seconds / scale
    if value >= 100:
        return f"{value:.1f} {unit}"
    if value >= 10:
        return f"{value:.2f} {unit}"
    return f"{value:.3f} {unit}"


def format_ratio(ratio: float | None) -> str:
    """Three significant digits from 1 up ("1.86x", "25.9x", "124x"), two below ("0.97x",
    "0.091x", "0.0012x"), so that a small ratio does not print as "0.00x"."""
    if ratio is None:
        return "n/a"
    if ratio >= 99.95:
        return f"{ratio:.0f}x"
    if ratio >= 9.995:
        return f"{ratio:.1f}x"
    if ratio >= 0.0995 or ratio <= 0:
        return f"{ratio:.2f}x"
    # Two significant digits: 0.0123 has its first digit at 10**-2, so three decimals; one fewer
    # when rounding carries into the next power of ten (0.00996 -> 0.010).
    exponent = math.floor(math.log10(ratio))
    if round(ratio, 1 - exponent) >= 10.0 ** (exponent + 1):
        exponent += 1
    return f"{ratio:.{1 - exponent}f}x"


def rows(table: Table, reference: str, geomean: bool = True) -> tuple[list[str], list[list[str]]]:
    """Header and body of the table; the last row is the geometric mean of each library's ratios
    unless ``geomean`` is false."""
    header = ["workload", *table.libraries]
    body: list[list[str]] = []
    ratios: dict[str, list[float]] = {lib: [] for lib in table.libraries}
    for group in table.groups:
        times = table.times[group]
        ref = times.get(reference)
        row = [group]
        for lib in table.libraries:
            if lib not in times:
                row.append("-")
                continue
            ratio = times[lib] / ref if ref else None
            if ratio is not None:
                ratios[lib].append(ratio)
            row.append(f"{format_time(times[lib])} ({format_ratio(ratio)})")
        body.append(row)
    if geomean:
        means = ["geometric mean"]
        for lib in table.libraries:
            values = ratios[lib]
            if values:
                means.append(format_ratio(math.exp(sum(map(math.log, values)) / len(values))))
            else:
                means.append("-")
        body.append(means)
    return header, body


def render_plain(header: list[str], body: list[list[str]], total: bool = True) -> str:
    """Aligned columns; a rule under the header and, when ``total``, above the last row."""
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = (c.rjust(w) for c, w in zip(cells[1:], widths[1:]))
        return "  ".join([first, *rest]).rstrip()

    rule = "  ".join("-" * w for w in widths)
    if not total:
        return "\n".join([line(header), rule, *(line(r) for r in body)])
    return "\n".join([line(header), rule, *(line(r) for r in body[:-1]), rule, line(body[-1])])


def column_blocks(header: list[str], body: list[list[str]], width: int) -> list[list[int]]:
    """The library columns of ``header`` (indices from 1) in blocks whose plain rendering, with
    the workload column before each, fits in ``width`` characters (one column at the least)."""
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    blocks: list[list[int]] = []
    used = widths[0]
    for i in range(1, len(header)):
        if blocks and used + 2 + widths[i] <= width:
            blocks[-1].append(i)
            used += 2 + widths[i]
        else:
            blocks.append([i])
            used = widths[0] + 2 + widths[i]
    return blocks


def render_plain_fitted(header: list[str], body: list[list[str]], width: int) -> str:
    """``render_plain`` of the table, split into blocks of columns that fit ``width``."""
    parts = []
    for block in column_blocks(header, body, width):
        keep = [0, *block]
        parts.append(render_plain([header[i] for i in keep], [[r[i] for i in keep] for r in body]))
    return "\n\n".join(parts)


def family_tables(report: dict[str, Any], stat: str, reference: str) -> list[tuple[str, Table]]:
    """One table per workload family, in the order the families first appear in the report."""
    families: dict[str, list[dict[str, Any]]] = {}
    for bench in report.get("benchmarks", []):
        families.setdefault(family_of(bench), []).append(bench)
    out = []
    for family, benches in families.items():
        table = load({"benchmarks": benches}, stat, reference)
        if table.groups:
            out.append((FAMILY_TITLES.get(family, family), table))
    return out


def summary_rows(table: Table, reference: str) -> tuple[list[str], list[list[str]]]:
    """One row per library: how many workloads it ran and its geometric mean ratio over them."""
    _, body = rows(table, reference)
    counts = {lib: sum(1 for g in table.groups if lib in table.times[g]) for lib in table.libraries}
    header = ["library", "workloads", "geometric mean"]
    means = body[-1][1:]
    return header, [[lib, str(counts[lib]), m] for lib, m in zip(table.libraries, means)]


def render_markdown(header: list[str], body: list[list[str]]) -> str:
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(cells) + " |"

    align = ["---", *("---:" for _ in header[1:])]
    return "\n".join([line(header), line(align), *(line(r) for r in body)])


def describe_machine(report: dict[str, Any]) -> str | None:
    info = report.get("machine_info") or {}
    parts = []
    impl = info.get("python_implementation")
    version = info.get("python_version")
    if impl or version:
        parts.append(" ".join(str(p) for p in (impl, version) if p))
    cpu = (info.get("cpu") or {}).get("brand_raw")
    if cpu:
        parts.append(str(cpu))
    elif info.get("machine"):
        parts.append(str(info["machine"]))
    return ", ".join(parts) or None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Compare libraries in a pytest-benchmark JSON report, one row per group."
    )
    parser.add_argument("report", type=Path, help="JSON written by pytest --benchmark-json")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument(
        "--width",
        type=int,
        default=100,
        help="widest line of the plain tables, in characters (default: 100)",
    )
    parser.add_argument(
        "--stat", choices=STATS, default="median", help="statistic to compare (default: median)"
    )
    parser.add_argument(
        "--reference",
        default="fastmsgpack",
        help="library the ratios are relative to (default: fastmsgpack)",
    )
    args = parser.parse_args(argv)

    try:
        report = json.loads(args.report.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"bench_table: cannot read {args.report}: {exc}", file=sys.stderr)
        return 1
    table = load(report, args.stat, args.reference)
    if not table.groups:
        print(f"bench_table: no benchmark results in {args.report}", file=sys.stderr)
        return 1

    legend = (
        f"{args.stat.capitalize()} time per call; in brackets, the ratio to {args.reference}"
        f" (above 1 = slower than {args.reference})."
    )
    marks = (
        f'"-": the library has no benchmark of that workload; "(n/a)": {args.reference} has no'
        f' time for the workload to compare with. A geometric mean of "-": the library has no'
        " ratio to average (it ran none of the workloads, or none with a comparison)."
    )
    machine = describe_machine(report)
    if args.markdown:
        print(legend + (f" {machine}." if machine else "") + " " + marks)
        print()
        print(render_markdown(*rows(table, args.reference)))
    else:
        if machine:
            print(textwrap.fill(machine, args.width))
        print(textwrap.fill(legend, args.width))
        print(textwrap.fill(marks, args.width))
        for title, family in family_tables(report, args.stat, args.reference):
            print()
            print(f"{title}:")
            print(render_plain_fitted(*rows(family, args.reference), args.width))
        print()
        print(
            textwrap.fill(
                f"Every workload: geometric mean of each library's ratios to {args.reference}:",
                args.width,
            )
        )
        print(render_plain(*summary_rows(table, args.reference), total=False))
    if args.reference not in table.libraries:
        print(f"bench_table: no results for {args.reference}; ratios are n/a", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
