"""The serializer's own calls in one round trip of the task-queue benchmarks (test_queues.py and
test_celery.py), made in one process, for scripts/profile_row.py: what the serializer costs in a
round trip, apart from the queue's own work that the benchmarks time with it.

``ROWS`` maps a row of the benchmark tables (``arq-roundtrip-100kb``, ...) to a function that
gives, by library (named as in the tables), a call making the serializer calls of one round trip
on the benchmark's payload, in the frameworks' own functions where they are thin:

- arq: the job packed (``serialize_job``, in the client) and read (``deserialize_job_raw``, in
  the worker); the result packed (``serialize_result``: the job's arguments and its result, an
  object equal to the argument but not the argument, as the benchmark's job returns) and read
  (``deserialize_result``);
- rq: the job's data (function name, instance, arguments, keyword arguments) packed and read,
  and the result packed and read (rq's own work around them, zlib on the job data and base64 on
  the result, is not included);
- dramatiq: the message (``Message.encode``, ``Message.decode``) and the result;
- celery: the task's body (arguments, keyword arguments, options) and the result's meta, through
  ``kombu.serialization``.

Each call checks nothing; ``check`` runs each once and checks that the payload came back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from _queue_bench_apps import payload
from kombu import serialization

# kombu's functions carry no annotations.
kombu_dumps: Callable[..., tuple[str, str, bytes]] = serialization.dumps
kombu_loads: Callable[..., Any] = serialization.loads

SIZES = {"1kb": 13, "100kb": 1300}
Calls = dict[str, Callable[[], Any]]


def _arq(records: int) -> Calls:
    from arq.jobs import deserialize_job_raw, deserialize_result, serialize_job, serialize_result

    from fastmsgpack.integrations import arq as fm_arq

    value = payload(records, iso=False)
    result = payload(records, iso=False)

    def call(dumps: Any, loads: Any) -> Callable[[], Any]:
        def round_trip() -> Any:
            job = serialize_job("arq_echo", (value,), {}, None, 1, serializer=dumps)
            _, args, kwargs, _, enqueued = deserialize_job_raw(job, deserializer=loads)
            done = serialize_result(
                "arq_echo", args, kwargs, 1, enqueued, True, result, 2, 3, "id:arq_echo", "arq",
                "id", serializer=dumps,
            )  # fmt: skip
            assert done is not None
            return deserialize_result(done, deserializer=loads).result

        return round_trip

    return {
        "fastmsgpack": call(fm_arq.serialize, fm_arq.deserialize),
        "arq-pickle": call(None, None),
    }


def _rq(records: int) -> Calls:
    from rq.serializers import resolve_serializer

    from fastmsgpack.integrations.rq import Serializer

    value = payload(records, iso=False)

    def call(serializer: Any) -> Callable[[], Any]:
        def round_trip() -> Any:
            data = serializer.dumps(("_queue_bench_apps.echo", None, (value,), {}))
            _, _, args, _ = serializer.loads(data)
            return serializer.loads(serializer.dumps(args[0]))

        return round_trip

    return {"fastmsgpack": call(Serializer), "rq-pickle": call(resolve_serializer(None))}


def _dramatiq(records: int) -> Calls:
    import dramatiq
    from dramatiq.message import Message

    from fastmsgpack.integrations.dramatiq import MsgpackEncoder

    def call(encoder: Any, iso: bool) -> Callable[[], Any]:
        value = payload(records, iso=iso)

        def round_trip() -> Any:
            dramatiq.set_encoder(encoder)
            message: Message[Any] = Message(
                queue_name="default", actor_name="echo", args=(value,), kwargs={}, options={}
            )
            args = Message.decode(message.encode()).args
            return encoder.decode(encoder.encode(args[0]))

        return round_trip

    return {
        "fastmsgpack": call(MsgpackEncoder(), iso=False),
        "dramatiq-json": call(dramatiq.JSONEncoder(), iso=True),
    }


def _celery(records: int) -> Calls:
    from fastmsgpack.integrations import kombu as fm_kombu

    fm_kombu.register()
    embed = {"callbacks": None, "errbacks": None, "chain": None, "chord": None}

    def call(name: str) -> Callable[[], Any]:
        value = payload(records, iso=name == "msgpack")

        def round_trip() -> Any:
            kind, encoding, body = kombu_dumps(((value,), {}, embed), name)
            args = kombu_loads(body, kind, encoding, accept=[kind])[0]
            meta = {
                "status": "SUCCESS", "result": args[0], "traceback": None, "children": [],
                "date_done": "2024-05-17T06:00:00.000000+00:00", "task_id": "0" * 36,
            }  # fmt: skip
            kind, encoding, body = kombu_dumps(meta, name)
            return kombu_loads(body, kind, encoding, accept=[kind])["result"]

        return round_trip

    return {
        "fastmsgpack": call("fastmsgpack"),
        "kombu-msgpack": call("msgpack"),
        "kombu-json": call("json"),
    }


FRAMEWORKS: dict[str, Callable[[int], Calls]] = {
    "arq": _arq,
    "rq": _rq,
    "dramatiq": _dramatiq,
    "celery": _celery,
}


def _row(framework: str, records: int) -> Callable[[], Calls]:
    return lambda: FRAMEWORKS[framework](records)


ROWS: dict[str, Callable[[], Calls]] = {
    f"{framework}-roundtrip-{size}": _row(framework, records)
    for framework in FRAMEWORKS
    for size, records in SIZES.items()
}


def check(row: str) -> None:
    """Runs each library's call of ``row`` once: each must give back the payload."""
    for library, call in ROWS[row]().items():
        back = call()
        records = len(back)
        if back != payload(records, iso=False) and back != payload(records, iso=True):
            raise AssertionError(f"{row} {library}: the payload did not come back")
