"""A real uvicorn server for the web integration tests and the FastAPI benchmark: it serves an
app of tests/ on a free loopback port (one the system picked for a socket a moment before, so
parallel test workers do not collide). The port is given by number, not as a socket passed by
descriptor: uvicorn takes such a socket for a Unix socket and leaves Nagle's algorithm on, which
holds each response back by the peer's delayed acknowledgement (about 40 ms)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from _servers import free_port
from _workers import stop

TESTS = Path(__file__).resolve().parent


@contextlib.contextmanager
def uvicorn_server(app: str, log: Path, *, workers: int = 1) -> Iterator[str]:
    """Runs ``uvicorn app`` (``module:attribute`` of tests/) until the block ends; yields its
    base URL."""
    port = free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), *sys.path]))
    command = [
        sys.executable, "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port),
        "--log-level", "warning", "--no-access-log", "--workers", str(workers),
    ]  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command, cwd=TESTS, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while not _answers(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    f"uvicorn did not start serving {app} (exit status {proc.poll()}); its log:\n"
                    + log.read_text(errors="replace"),
                    pytrace=False,
                )
            time.sleep(0.05)
        yield url
    finally:
        stop(proc)


def _answers(port: int) -> bool:
    """True when an HTTP request to 127.0.0.1:port gets a status line back."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"GET /__ping HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return s.recv(16).startswith(b"HTTP/1.1")
    except OSError:
        return False
