"""The servers of _servers.py start as the integration tests need them to, also when pytest-xdist
runs several test processes that each start their own."""

from __future__ import annotations

import socket
from pathlib import Path

import _servers
import pytest
import redis


def test_redis_server_is_its_own_when_the_chosen_port_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another process's Redis on the port chosen first: the fixture must not hand that one out.
    (tmp_path / "other").mkdir()
    (tmp_path / "mine").mkdir()
    with _servers.redis_server(tmp_path / "other") as other:
        ports = iter([other.port, _servers.free_port()])
        monkeypatch.setattr(_servers, "free_port", lambda: next(ports))
        with _servers.redis_server(tmp_path / "mine") as mine:
            assert mine.port != other.port
            redis.Redis(mine.host, mine.port).set("whose", "mine")
            assert redis.Redis(other.host, other.port).get("whose") is None
        assert (
            "Address already in use" in (tmp_path / "mine" / f"redis-{other.port}.log").read_text()
        )
    # The server that ran on the first port is stopped.
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", other.port)) != 0
