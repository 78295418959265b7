"""A progress line for benchmark runs whose pytest output goes to a file (scripts/bench).

``pytest benchmarks/ --progress-fd=N`` writes, to the open file descriptor N, which benchmark is
running, how many of the run's benchmarks have started and the time since the first one started:

    [ 37/312  0:41] fixtures: test_packb[twitter-ormsgpack]

On a terminal the line is rewritten in place; elsewhere (a CI log) one line is written per test
module, so the log stays short. A failed benchmark gets a line of its own either way, and the run
ends with a line giving the count, the failures and the elapsed time.
"""

from __future__ import annotations

import os
import time
from typing import TextIO

import pytest


def format_elapsed(seconds: float) -> str:
    """``m:ss`` (or ``h:mm:ss`` from an hour on)."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def describe(nodeid: str) -> tuple[str, str]:
    """(module, "module: test") for a node id: ``benchmarks/test_small.py::test_pack[msgspec]``
    gives ("small", "small: test_pack[msgspec]")."""
    path, _, test = nodeid.partition("::")
    module = path.rsplit("/", 1)[-1].removesuffix(".py").removeprefix("test_")
    return module, f"{module}: {test}" if test else module


class Progress:
    """The pytest plugin; ``out`` receives the progress line, ``tty`` says whether to rewrite it
    in place."""

    def __init__(self, out: TextIO, tty: bool) -> None:
        self.out = out
        self.tty = tty
        self.total = 0
        self.started = 0
        self.failed = 0
        self.start: float | None = None
        self.module = ""
        self.shown = False  # a rewritable line is on the terminal

    def elapsed(self) -> str:
        return format_elapsed(time.monotonic() - self.start if self.start is not None else 0.0)

    def status(self, what: str) -> str:
        width = len(str(self.total))
        failed = f", {self.failed} failed" if self.failed else ""
        return f"[{self.started:>{width}}/{self.total}  {self.elapsed()}{failed}] {what}"

    def write_line(self, text: str) -> None:
        """A line that stays (on a terminal, it replaces the progress line)."""
        if self.shown:
            self.out.write("\r\x1b[K")
            self.shown = False
        self.out.write(text + "\n")
        self.out.flush()

    def rewrite(self, text: str) -> None:
        try:
            columns = os.get_terminal_size(self.out.fileno()).columns
        except OSError:
            columns = 0
        columns = columns or 80  # a terminal that reports no size
        if len(text) >= columns:
            text = text[: max(columns - 4, 10)] + "..."
        self.out.write("\r\x1b[K" + text)
        self.out.flush()
        self.shown = True

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.total = len(session.items)
        self.write_line(f"{self.total} benchmarks to run")

    def pytest_runtest_logstart(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        if self.start is None:
            self.start = time.monotonic()
        self.started += 1
        module, what = describe(nodeid)
        if self.tty:
            self.rewrite(self.status(what))
        elif module != self.module:
            self.write_line(self.status(module))
        self.module = module

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.failed += 1
            self.write_line(f"FAILED {report.nodeid} ({report.when})")

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        failed = f", {self.failed} failed" if self.failed else ""
        self.write_line(
            f"{self.started} of {self.total} benchmarks run in {self.elapsed()}{failed}"
        )


def register(config: pytest.Config, fd: int) -> None:
    """Report progress on the file descriptor ``fd`` (which the caller keeps open)."""
    try:
        os.fstat(fd)
    except OSError as exc:
        raise pytest.UsageError(f"--progress-fd={fd}: not an open file descriptor ({exc})") from exc
    out = open(fd, "w", encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
    config.pluginmanager.register(Progress(out, out.isatty()), "fastmsgpack-bench-progress")
