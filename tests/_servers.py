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


def _server_pid(port: int) -> int | None:
    """The process id of the Redis server answering on 127.0.0.1:port (from INFO, spoken in RESP
    by hand, so this does not depend on the client library under test), or None."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n")
            reply = b""
            while b"process_id:" not in reply or not reply.endswith(b"\r\n"):
                chunk = s.recv(65536)
                if not chunk:
                    return None
                reply += chunk
    except OSError:
        return None
    for line in reply.split(b"\r\n"):
        if line.startswith(b"process_id:"):
            return int(line.split(b":", 1)[1])
    return None


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
    # The port is free when chosen, but another process (another pytest-xdist worker starting its
    # own server) may take it first: then this server exits, and another one is tried. The server
    # that answers must be this one, not another process's on the same port.
    for attempt in range(3):
        port = free_port()
        log = workdir / f"redis-{port}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--dir", str(workdir)],
                stdout=out,
                stderr=subprocess.STDOUT,
            )  # fmt: skip
        deadline = time.monotonic() + 15
        while _server_pid(port) != proc.pid:
            if proc.poll() is not None or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        else:
            break
        status = proc.poll()
        proc.kill()
        proc.wait()
        text = log.read_text(errors="replace")
        if "Address already in use" not in text or attempt == 2:
            pytest.fail(
                f"redis-server did not start on 127.0.0.1:{port} "
                f"(exit status {status}); its log:\n{text}",
                pytrace=False,
            )
    try:
        yield RedisServer("127.0.0.1", port)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
