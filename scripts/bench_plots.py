#!/usr/bin/env python3
"""Draw the benchmark results of a pytest-benchmark JSON report as PNG and SVG charts.

Charts written (each as NAME.png and NAME.svg, only when the report has the benchmarks for it):

- one horizontal bar chart per workload family, one panel per benchmark group, one bar per
  library (median time per call, fastest at the top, fastmsgpack highlighted):
  ``fixtures-pack``, ``fixtures-unpack``, ``json``, ``numpy``, ``rich``, ``small``,
  ``streams-unpack``, ``vocab``, ``gc-heap`` (with ``unpackb-canada`` beside
  ``unpackb-canada-bigheap`` for comparison), and
  ``route`` for the largest route-planning size (N=100,000 in the full suite); any other test
  module gets a chart named after it;
- ``route-scaling``: median time against N on log-log axes, one line per library, packing and
  unpacking side by side;
- ``sizes``: the size in bytes of each library's output (``extra_info["bytes"]``) for the route
  snapshot at the largest N and for the gzip-compressed vocabulary file.

The output is deterministic: the same report gives byte-identical files (no dates in the
metadata, fixed SVG ids).

Usage: scripts/bench_plots.py [--out DIR] [--reference fastmsgpack] REPORT.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib
from bench_table import (
    FAMILY_TITLES,
    ROUTE_GROUP,
    describe_machine,
    family_of,
    format_time,
    library_of,
)
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "doc" / "benchmarks"

HIGHLIGHT = "#d1495b"
OTHER = "#8d99ae"
# Line colours and markers for the other libraries, in order of first appearance in the report.
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#393b79",
)
MARKERS = ("s", "^", "v", "D", "P", "X", "<", ">", "*", "h")
# A panel whose slowest bar is this many times its fastest gets a logarithmic axis.
LOG_SPREAD = 25.0

SAVE_OPTIONS: dict[str, dict[str, Any]] = {
    "png": {"dpi": 100, "metadata": {"Software": None}},
    "svg": {"metadata": {"Date": None}},
}


@dataclass(frozen=True)
class Bench:
    group: str
    lib: str
    family: str
    median: float
    n: int | None
    size: int | None


def load(report: dict[str, Any]) -> list[Bench]:
    benches = []
    for bench in report.get("benchmarks", []):
        stats = bench.get("stats") or {}
        if "median" not in stats:
            continue
        extra = bench.get("extra_info") or {}
        group = str(bench.get("group") or bench.get("name") or "?")
        n = extra.get("n")
        if n is None and (match := ROUTE_GROUP.match(group)):
            n = int(match.group(2))
        size = extra.get("bytes")
        benches.append(
            Bench(
                group=group,
                lib=library_of(bench),
                family=family_of(bench),
                median=float(stats["median"]),
                n=int(n) if n is not None else None,
                size=int(size) if size is not None else None,
            )
        )
    return benches


def ordered(items: Iterable[str]) -> list[str]:
    """The distinct items in order of first appearance."""
    return list(dict.fromkeys(items))


def library_styles(benches: Sequence[Bench], reference: str) -> dict[str, tuple[str, str]]:
    """(colour, marker) of each library's line."""
    others = [lib for lib in ordered(b.lib for b in benches) if lib != reference]
    styles = {
        lib: (PALETTE[i % len(PALETTE)], MARKERS[i % len(MARKERS)]) for i, lib in enumerate(others)
    }
    styles[reference] = (HIGHLIGHT, "o")
    return styles


def format_size(size: float) -> str:
    for scale, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1.0, "B")):
        if size >= scale or scale == 1.0:
            value = size / scale
            digits = 0 if value >= 100 or scale == 1.0 else 1 if value >= 10 else 2
            return f"{value:.{digits}f} {unit}"
    raise AssertionError("unreachable")


def time_tick(value: float, _pos: float) -> str:
    """A tick label for a time axis in seconds: "10 µs", "1 ms", "2.5 s"."""
    if value <= 0:
        return "0"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")):
        if value >= scale * 0.999:
            return f"{value / scale:.4g} {unit}"
    return f"{value:.1g} s"


def size_tick(value: float, _pos: float) -> str:
    return format_size(value) if value > 0 else "0"


def footer(fig: Figure, text: str) -> None:
    fig.text(0.01, 0.005, text, fontsize=7.5, color="#555555", ha="left", va="bottom")


def bar_panel(
    ax: Axes,
    title: str,
    values: dict[str, float],
    reference: str,
    label: Any,
    tick: Any,
    scale: tuple[float, float] | None = None,
) -> None:
    """Horizontal bars for ``values`` (library: value), smallest at the top. The axis covers the
    values, or the (smallest, largest) ``scale`` when given, so that panels can share one.
    """
    libs = sorted(values, key=lambda lib: (values[lib], lib))
    positions = range(len(libs))
    colors = [HIGHLIGHT if lib == reference else OTHER for lib in libs]
    ax.set_yticks(list(positions), libs)
    for tick_label, lib in zip(ax.get_yticklabels(), libs):
        if lib == reference:
            tick_label.set_fontweight("bold")
    ax.invert_yaxis()
    bottom, top = scale or (min(values.values()), max(values.values()))
    log = bottom > 0 and top / bottom > LOG_SPREAD
    if log:
        # Bars start at a third of the fastest so that it still shows; the labels carry values.
        ax.set_xscale("log")
        left = bottom / 3
        ax.set_xlim(left, top * 6)
        ax.xaxis.set_minor_formatter(NullFormatter())
        title += " (logarithmic scale)"
    else:
        left = 0
        ax.set_xlim(0, top * 1.32)
    ax.barh(
        list(positions), [values[lib] - left for lib in libs], left=left, color=colors, height=0.7
    )
    ax.set_title(title, fontsize=10, loc="left")
    ax.xaxis.set_major_formatter(FuncFormatter(tick))
    ax.tick_params(axis="both", labelsize=8.5)
    ax.spines[["top", "right"]].set_visible(False)
    ref = values.get(reference)
    for pos, lib in zip(positions, libs):
        text = label(values[lib])
        if ref and lib != reference:
            text += f"  ({values[lib] / ref:.2f}x)"
        ax.text(
            values[lib] * 1.08 if log else values[lib] + top * 0.01,
            pos,
            text,
            va="center",
            fontsize=8,
            fontweight="bold" if lib == reference else "normal",
        )


def bar_figure(
    title: str,
    panels: Sequence[tuple[str, dict[str, float]]],
    reference: str,
    note: str,
    label: Any = format_time,
    tick: Any = time_tick,
    shared: bool = False,
) -> Figure:
    heights = [0.28 * len(values) + 0.55 for _, values in panels]
    fig = Figure(figsize=(8.0, sum(heights) + 1.0))
    axes = fig.subplots(len(panels), 1, squeeze=False, gridspec_kw={"height_ratios": heights})
    everything = [v for _, values in panels for v in values.values()]
    scale = (min(everything), max(everything)) if shared else None
    for ax, (panel_title, values) in zip(axes[:, 0], panels):
        bar_panel(ax, panel_title, values, reference, label, tick, scale)
    fig.suptitle(title, fontsize=12, x=0.01, ha="left")
    footer(fig, note)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def group_panels(benches: Sequence[Bench]) -> list[tuple[str, dict[str, float]]]:
    panels: dict[str, dict[str, float]] = {}
    for bench in benches:
        panels.setdefault(bench.group, {})[bench.lib] = bench.median
    return list(panels.items())


def route_size(benches: Sequence[Bench], want: int = 100_000) -> int | None:
    sizes = {b.n for b in benches if b.n is not None}
    if not sizes:
        return None
    return want if want in sizes else max(sizes)


def route_title(group: str) -> str:
    match = ROUTE_GROUP.match(group)
    if not match:
        return group
    return f"{match.group(1)}, N={int(match.group(2)):,}"


def scaling_figure(
    benches: Sequence[Bench], reference: str, styles: dict[str, tuple[str, str]], note: str
) -> Figure:
    fig = Figure(figsize=(11.0, 5.0))
    axes = fig.subplots(1, 2, sharey=True, squeeze=False)
    for ax, operation in zip(axes[0], ("pack", "unpack")):
        series: dict[str, list[tuple[int, float]]] = {}
        for bench in benches:
            match = ROUTE_GROUP.match(bench.group)
            if match and match.group(1) == operation and bench.n is not None:
                series.setdefault(bench.lib, []).append((bench.n, bench.median))
        libs = sorted(series, key=lambda lib: (lib != reference, lib))
        for lib in libs:
            points = sorted(series[lib])
            is_ref = lib == reference
            color, marker = styles[lib]
            ax.plot(
                [n for n, _ in points],
                [t for _, t in points],
                marker=marker,
                markersize=5 if is_ref else 4,
                linewidth=2.8 if is_ref else 1.2,
                color=color,
                zorder=3 if is_ref else 2,
                label=lib,
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(operation, fontsize=11, loc="left")
        ax.set_xlabel("N (children, and floats in the values list)", fontsize=9)
        ax.grid(True, which="major", color="#dddddd", linewidth=0.6)
        ax.yaxis.set_major_locator(LogLocator(base=10))
        ax.yaxis.set_major_formatter(FuncFormatter(time_tick))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:,.0f}"))
        ax.tick_params(labelsize=8.5)
        ax.spines[["top", "right"]].set_visible(False)
        if series:
            ax.legend(fontsize=8, frameon=False)
    axes[0][0].set_ylabel("median time per call", fontsize=9)
    fig.suptitle("Route-planning snapshot: time against size", fontsize=12, x=0.01, ha="left")
    footer(fig, note)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def size_panels(
    benches: Sequence[Bench], route_n: int | None
) -> list[tuple[str, dict[str, float]]]:
    panels: list[tuple[str, dict[str, float]]] = []
    route_sizes: dict[str, float] = {}
    vocab_sizes: dict[str, float] = {}
    for bench in benches:
        if bench.size is None:
            continue
        if bench.family == "route" and bench.n == route_n:
            route_sizes.setdefault(bench.lib, bench.size)
        elif bench.family == "vocab":
            vocab_sizes.setdefault(bench.lib, bench.size)
    if route_sizes and route_n is not None:
        panels.append((f"route-planning snapshot, N={route_n:,}", route_sizes))
    if vocab_sizes:
        panels.append(("vocabulary file (gzip, level 1)", vocab_sizes))
    return panels


def save(fig: Figure, out: Path, name: str) -> list[Path]:
    written = []
    for ext, options in SAVE_OPTIONS.items():
        path = out / f"{name}.{ext}"
        fig.savefig(path, format=ext, **options)
        written.append(path)
    return written


def plot(report: dict[str, Any], out: Path, reference: str) -> list[Path]:
    benches = load(report)
    machine = describe_machine(report)
    where = f" {machine}." if machine else ""
    note = f"Median time per call; shorter is faster; in brackets, the ratio to {reference}."
    note += where
    styles = library_styles(benches, reference)
    families: dict[str, list[Bench]] = {}
    for bench in benches:
        families.setdefault(bench.family, []).append(bench)

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for family, members in families.items():
        if family == "route":
            route_n = route_size(members)
            at_n = [b for b in members if b.n == route_n]
            panels = [(route_title(g), v) for g, v in group_panels(at_n)]
            title = FAMILY_TITLES["route"] + (f", N={route_n:,}" if route_n else "")
            written += save(bar_figure(title, panels, reference, note), out, "route")
            if len({b.n for b in members}) > 1:
                line_note = "Median time per call; lower is faster." + where
                fig = scaling_figure(members, reference, styles, line_note)
                written += save(fig, out, "route-scaling")
            continue
        shared = False
        if family == "gc-heap":
            # Beside the same decoding with the inputs frozen, on one scale.
            base = [b for b in families.get("fixtures-unpack", []) if b.group == "unpackb-canada"]
            members = base + members
            shared = True
        title = FAMILY_TITLES.get(family, family)
        fig = bar_figure(title, group_panels(members), reference, note, shared=shared)
        written += save(fig, out, family)

    panels = size_panels(benches, route_size(families.get("route", [])))
    if panels:
        note = f"Size of each library's output; in brackets, the ratio to {reference}."
        fig = bar_figure(
            "Serialized size", panels, reference, note, label=format_size, tick=size_tick
        )
        written += save(fig, out, "sizes")
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Draw a pytest-benchmark JSON report as charts.")
    parser.add_argument("report", type=Path, help="JSON written by pytest --benchmark-json")
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help="directory for the PNG and SVG files (default: doc/benchmarks)",
    )
    parser.add_argument(
        "--reference",
        default="fastmsgpack",
        help="library to highlight and compare against (default: fastmsgpack)",
    )
    args = parser.parse_args(argv)

    try:
        report = json.loads(args.report.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"bench_plots: cannot read {args.report}: {exc}", file=sys.stderr)
        return 1
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "fastmsgpack-benchmarks"
    matplotlib.rcParams["font.family"] = "DejaVu Sans"
    written = plot(report, args.out, args.reference)
    if not written:
        print(f"bench_plots: no benchmark results in {args.report}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
