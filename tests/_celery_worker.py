"""A real Celery worker of tests/_celery_app.py, started as a subprocess (prefork pool) on a Redis
broker, for the Celery integration tests."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

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

    def content_type_of(self, task_id: str) -> str:
        """The content type the worker saw on the message of a task (from the line the app's
        task_received handler logs)."""
        deadline = time.monotonic() + 5
        pattern = re.compile(rf"fastmsgpack-test received {re.escape(task_id)} as (\S+)")
        while (match := pattern.search(self.log_text())) is None:
            assert time.monotonic() < deadline, f"no content type logged for {task_id}"
            time.sleep(0.05)
        return match.group(1)


def spawn_worker(
    url: str, log: Path, name: str = "fastmsgpack-test", concurrency: int = 2
) -> Worker:
    """Start a real Celery worker (prefork pool) on the broker ``url``, logging to ``log``; it is
    not ready yet."""
    env = dict(os.environ, FASTMSGPACK_TEST_REDIS_URL=url, PYTHONPATH=str(TESTS))
    command = [
        sys.executable, "-m", "celery", "-A", "_celery_app", "worker", "--pool=prefork",
        f"--concurrency={concurrency}", "--loglevel=INFO", "--without-gossip", "--without-mingle",
        "--without-heartbeat", f"--hostname={name}@%h",
    ]  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command, cwd=TESTS, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    return Worker(proc, log, url)


def wait_ready(w: Worker) -> None:
    deadline = time.monotonic() + TIMEOUT
    while " ready." not in w.log_text():
        if w.proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(
                f"the Celery worker did not start (exit status {w.proc.poll()}); its log:\n"
                + w.log_text(),
                pytrace=False,
            )
        time.sleep(0.1)


def stop(w: Worker) -> None:
    """A warm shutdown, then whatever is left of the process group."""
    if w.proc.poll() is None:
        w.proc.send_signal(signal.SIGTERM)
    try:
        w.proc.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(w.proc.pid, signal.SIGKILL)
        w.proc.wait()
