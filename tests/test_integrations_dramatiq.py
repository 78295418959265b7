"""fastmsgpack as dramatiq's encoder, with a real dramatiq worker and a real redis-server."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from _servers import RedisServer
from _workers import MORE, MORE_BACK, VALUE, Worker, describe, wait_until, worker_process
from dramatiq.results import ResultMissing

DB = 9


pytestmark = pytest.mark.xdist_group("dramatiq-worker")


@pytest.fixture(scope="module")
def worker(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    url = redis_server.url(DB)
    redis.Redis.from_url(url).flushdb()
    log = tmp_path_factory.mktemp("dramatiq") / "worker.log"
    command = [
        sys.executable, "-m", "dramatiq", "_dramatiq_app", "--processes", "1", "--threads", "2",
    ]  # fmt: skip
    with worker_process(command, url, log, "Worker process is ready for action") as w:
        yield w


@pytest.fixture(scope="module")
def app(worker: Worker) -> Any:
    import _dramatiq_app

    _dramatiq_app.use(worker.url)
    return _dramatiq_app


def result(message: Any) -> Any:
    import _dramatiq_app

    out: list[Any] = []

    def ready() -> bool:
        try:
            # The app's backend named, not looked up through dramatiq's global broker, which
            # another test in this process may have replaced.
            out.append(message.get_result(backend=_dramatiq_app.backend))
        except ResultMissing:
            return False
        return True

    wait_until(ready, f"the result of {message}")
    return out[0]


def test_messages_keep_their_types(app: Any) -> None:
    back = result(app.echo.send(VALUE))
    assert back["types"] == describe(VALUE)
    assert back["value"] == VALUE
    assert describe(back["value"]) == describe(VALUE)
    from fastmsgpack.integrations.dramatiq import MsgpackEncoder

    encoder = MsgpackEncoder()
    assert describe(encoder.decode(encoder.encode(MORE))) == describe(MORE_BACK)
    assert encoder.decode(encoder.encode(MORE)) == MORE_BACK


def test_garbage_message_is_dropped_and_the_worker_goes_on(app: Any, worker: Worker) -> None:
    client = redis.Redis.from_url(worker.url)
    message_id = str(uuid.uuid4())
    client.hset("dramatiq:default.msgs", message_id, b"\xc1 not msgpack")
    client.rpush("dramatiq:default", message_id)
    # dramatiq's consumer raises the DecodeError, logs it and starts again (after 3 s).
    wait_until(lambda: "Restarting consumer" in worker.log_text(), "the consumer to restart")
    assert "reserved marker byte 0xc1" in worker.log_text()
    assert result(app.echo.send([1, 2]))["value"] == [1, 2]
    assert worker.alive()


def test_decode_error_is_dramatiqs() -> None:
    import dramatiq

    from fastmsgpack.integrations.dramatiq import MsgpackEncoder

    with pytest.raises(dramatiq.DecodeError):
        MsgpackEncoder().decode(b"\x92\x01")
