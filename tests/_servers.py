"""Real servers for the integration tests: each is started on a free loopback port by a pytest
fixture and stopped after. A server that cannot start fails the test that needs it, naming what
is missing; nothing is skipped."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass(frozen=True)
class RedisServer:
    host: str
    port: int

    def url(self, db: int = 0) -> str:
        return f"redis://{self.host}:{self.port}/{db}"


def _ping(port: int) -> bool:
    """True when a Redis server on 127.0.0.1:port answers PING (spoken in RESP by hand, so this
    does not depend on the client library under test)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"*1\r\n$4\r\nPING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextlib.contextmanager
def redis_server(workdir: Path) -> Iterator[RedisServer]:
    """Start ``redis-server`` on a free loopback port, without persistence; stop it after."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail(
            "redis-server not found on PATH: the integration tests need a real Redis server "
            "(scripts/test installs the Debian package redis-server when run as root)",
            pytrace=False,
        )
    port = free_port()
    log = workdir / f"redis-{port}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(workdir),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 15
        while not _ping(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    f"redis-server did not start on 127.0.0.1:{port} "
                    f"(exit status {proc.poll()}); its log:\n{log.read_text(errors='replace')}",
                    pytrace=False,
                )
            time.sleep(0.05)
        yield RedisServer("127.0.0.1", port)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
