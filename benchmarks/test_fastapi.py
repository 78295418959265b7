"""FastAPI requests per second: a 10 KB MessagePack response (``MsgpackResponse``) and request
(``Depends(body(Any))`` read back and answered) against the same endpoints with FastAPI's
default JSON. A real uvicorn (one worker) serves tests/_web_app.py on a loopback socket; the load
generator is wrk (Debian's package, installed by scripts/bench), one thread and 8 connections,
for DURATION seconds; every response must be a 200.

A round is one run of wrk, and the time recorded for it is wrk's own count: the run's duration
over the requests it completed, the time per request (the benchmark's clock is replaced by one
that advances by that much). Its inverse, the requests per second, is in extra_info. Groups
``fastapi-10kb-response`` and ``fastapi-10kb-request``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import fastmsgpack

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from _uvicorn import uvicorn_server  # type: ignore[import-not-found]
from _web_app import DOCUMENT  # type: ignore[import-not-found]

DURATION = 3
CONNECTIONS = 8

SCRIPT = """
wrk.method = "%(method)s"
wrk.headers["Content-Type"] = "%(content_type)s"
wrk.headers["Accept"] = "%(content_type)s"
%(body)s
"""
COUNT = re.compile(r"(\d+) requests in ([\d.]+)(us|ms|s|m)\b")
UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if shutil.which("wrk") is None:
        pytest.fail("wrk not found on PATH (scripts/bench installs the Debian package wrk)")
    log = tmp_path_factory.mktemp("uvicorn") / "uvicorn.log"
    with uvicorn_server("_web_app:app", log) as base:
        yield base


CASES = {
    ("response", "msgpack"): ("GET", "/doc.msgpack", "application/msgpack", None),
    ("response", "json"): ("GET", "/doc.json", "application/json", None),
    ("request", "msgpack"): ("POST", "/echo.msgpack", "application/msgpack", "msgpack"),
    ("request", "json"): ("POST", "/echo.json", "application/json", "json"),
}


@pytest.mark.parametrize("fmt", ["msgpack", "json"])
@pytest.mark.parametrize("kind", ["response", "request"])
def test_fastapi(benchmark: Any, url: str, tmp_path: Path, kind: str, fmt: str) -> None:
    method, path, content_type, body_kind = CASES[(kind, fmt)]
    benchmark.group = f"fastapi-10kb-{kind}"
    benchmark.extra_info["library"] = "fastmsgpack" if fmt == "msgpack" else "fastapi-json"
    body = ""
    if body_kind is not None:
        data = (
            fastmsgpack.packb(DOCUMENT) if body_kind == "msgpack" else json.dumps(DOCUMENT).encode()
        )
        (tmp_path / "body").write_bytes(data)
        body = f'local f = io.open("{tmp_path / "body"}", "rb"); wrk.body = f:read("*a"); f:close()'
        benchmark.extra_info["bytes"] = len(data)
    script = tmp_path / "load.lua"
    script.write_text(SCRIPT % {"method": method, "content_type": content_type, "body": body})
    command = [
        "wrk", "-t1", f"-c{CONNECTIONS}", f"-d{DURATION}s", "--timeout", "10s", "-s",
        str(script), url + path,
    ]  # fmt: skip
    clock = [0.0]

    def run() -> None:
        out = subprocess.run(
            command, capture_output=True, text=True, timeout=DURATION + 30, check=True
        )
        assert "Non-2xx" not in out.stdout and "Socket errors" not in out.stdout, out.stdout
        match = COUNT.search(out.stdout)
        assert match is not None, out.stdout
        requests, elapsed = int(match.group(1)), float(match.group(2)) * UNITS[match.group(3)]
        assert requests > 0, out.stdout
        clock[0] += elapsed / requests

    run()  # warm-up, and a check that every answer is a 200
    benchmark._timer = lambda: clock[0]
    benchmark.pedantic(run, rounds=3, iterations=1)
    benchmark.extra_info["requests_per_second"] = round(1 / benchmark.stats.stats.median)
