"""Real task-queue workers for the integration tests: a subprocess started in tests/, with the
Redis URL in FASTMSGPACK_TEST_REDIS_URL, its output in a log file, stopped at the end."""

from __future__ import annotations

import contextlib
import datetime
import decimal
import os
import signal
import subprocess
import time
import uuid
import zoneinfo
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import pytest

TESTS = Path(__file__).resolve().parent
TIMEOUT = 30


@dataclass
class Worker:
    proc: subprocess.Popen[bytes]
    log: Path
    url: str

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def alive(self) -> bool:
        return self.proc.poll() is None


@contextlib.contextmanager
def worker_process(
    command: list[str], url: str, log: Path, ready: str, path: tuple[Path, ...] = ()
) -> Iterator[Worker]:
    """Runs ``command`` (in tests/, which is on its import path after ``path``) until the block
    ends, once ``ready`` shows in its output."""
    pythonpath = os.pathsep.join(str(p) for p in (*path, TESTS))
    env = dict(os.environ, FASTMSGPACK_TEST_REDIS_URL=url, PYTHONPATH=pythonpath)
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command, cwd=TESTS, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    w = Worker(proc, log, url)
    try:
        deadline = time.monotonic() + TIMEOUT
        while ready not in w.log_text():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    f"the worker {command[:4]} did not start (exit status {proc.poll()}); "
                    f"its log:\n{w.log_text()}",
                    pytrace=False,
                )
            time.sleep(0.05)
        yield w
    finally:
        stop(proc)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stops a worker or server started in a session of its own: SIGTERM, then after 15 s SIGKILL
    to its whole process group."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def wait_until(condition: Any, what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


PARIS = zoneinfo.ZoneInfo("Europe/Paris")

#: What a job receives and gives back, with the types a pickle user expects to keep.
VALUE: dict[Any, Any] = {
    "aware": datetime.datetime(2026, 3, 29, 2, 30, 15, 123456, tzinfo=datetime.timezone.utc),
    "paris": datetime.datetime(2026, 10, 25, 2, 30, tzinfo=PARIS, fold=1),
    "naive": datetime.datetime(2026, 1, 2, 3, 4, 5),
    "day": datetime.date(2026, 2, 28),
    "time": datetime.time(23, 59, 59, 999999),
    "wait": datetime.timedelta(days=2, seconds=3, microseconds=4),
    "pair": (1, ("nested", 2.5)),
    "id": uuid.UUID(int=42),
    "blob": b"\x00\xff",
    "big": 2**64 - 1,
    "none": None,
    (1, 2): "a tuple key",
}


def describe(value: Any) -> Any:
    """The type names in ``value``, as the worker saw them."""
    if isinstance(value, dict):
        return {repr(k): describe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, *(describe(v) for v in value)]
    if isinstance(value, datetime.datetime):
        return f"datetime[{value.tzinfo!s}, fold={value.fold}]"
    return type(value).__name__


class _Stop(NamedTuple):
    name: str
    at: datetime.datetime


class _Berlin(datetime.tzinfo):
    """A tzinfo class of the program's own, as pytz and dateutil zones are."""

    def utcoffset(self, dt: datetime.datetime | None) -> datetime.timedelta:
        return datetime.timedelta(hours=1)

    def dst(self, dt: datetime.datetime | None) -> datetime.timedelta:
        return datetime.timedelta(0)

    def tzname(self, dt: datetime.datetime | None) -> str:
        return "CET"


#: More that the task queues' serializers give back as pickle does (a Decimal with every digit,
#: sets), and what they give back as another type (documented): a named tuple as a tuple, a
#: tzinfo of another class as a fixed offset of the same name.
MORE = {
    "price": decimal.Decimal("9.990"),
    "tags": {"x"},
    "frozen": frozenset({(1, 2)}),
    "huge": 2**100,
    "stop": _Stop("Centraal", datetime.datetime(2026, 5, 1, 8, tzinfo=_Berlin())),
}
MORE_BACK = {
    **MORE,
    "stop": (
        "Centraal",
        datetime.datetime(
            2026, 5, 1, 8, tzinfo=datetime.timezone(datetime.timedelta(hours=1), "CET")
        ),
    ),
}

__all__ = ["MORE", "MORE_BACK", "VALUE", "Worker", "describe", "wait_until", "worker_process"]
