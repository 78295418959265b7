"""fastmsgpack.snapshot record files: appended frames, read back whole up to a torn last one."""

from __future__ import annotations

import datetime
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from fastmsgpack import OPT_EXACT
from fastmsgpack.snapshot import RecordWriter, SnapshotError, read_records

EVENTS = [{"event": i, "stop": f"stop-{i}", "at": i * 1.5} for i in range(5)]


def test_records_round_trip_and_append_after_reopening(tmp_path: Path) -> None:
    path = tmp_path / "events.rec"
    with RecordWriter(path) as writer:
        for event in EVENTS[:3]:
            writer.append(event)
        writer.flush()
        assert list(read_records(path)) == EVENTS[:3]
    with RecordWriter(path, sync=True) as writer:
        for event in EVENTS[3:]:
            writer.append(event)
    records = read_records(path)
    assert list(records) == EVENTS
    assert records.count == 5 and not records.torn and records.end == path.stat().st_size
    # The file is a MessagePack stream: a header map, then one [length, checksum, bin] per record.
    assert path.read_bytes().startswith(b"\x82\xabfastmsgpack\xa7records")


def test_decoding_arguments(tmp_path: Path) -> None:
    path = tmp_path / "exact.rec"
    when = datetime.datetime(2026, 1, 2, 3, 4, 5)
    with RecordWriter(path, option=OPT_EXACT) as writer:
        writer.append((1, when))
    assert list(read_records(path, option=OPT_EXACT)) == [(1, when)]


def test_torn_at_every_byte_of_the_last_frame(tmp_path: Path) -> None:
    path = tmp_path / "events.rec"
    with RecordWriter(path) as writer:
        for event in EVENTS:
            writer.append(event)
    whole = path.read_bytes()
    before_last = read_records(path)
    # Where the last frame starts: after the fourth record's payload.
    scan = read_records(path)
    assert scan.count == 5
    with RecordWriter(tmp_path / "four.rec") as writer:
        for event in EVENTS[:4]:
            writer.append(event)
    start = (tmp_path / "four.rec").stat().st_size
    assert whole.startswith((tmp_path / "four.rec").read_bytes())
    cut_path = tmp_path / "cut.rec"
    for cut in range(start, len(whole)):
        cut_path.write_bytes(whole[:cut])
        records = read_records(cut_path)
        assert list(records) == EVENTS[:4], cut
        assert records.end == start
        assert records.torn == (cut > start)
        # Reopening cuts the torn frame off, and appending goes on from there.
        with RecordWriter(cut_path) as writer:
            writer.append({"after": cut})
        assert list(read_records(cut_path)) == [*EVENTS[:4], {"after": cut}]
    assert before_last.end == len(whole)


def test_damage_before_the_end_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "events.rec"
    with RecordWriter(path) as writer:
        for event in EVENTS:
            writer.append(event)
    whole = path.read_bytes()
    for at in range(30, 60):
        bad = bytearray(whole)
        bad[at] ^= 0x04
        path.write_bytes(bad)
        with pytest.raises(SnapshotError) as refused:
            read_records(path)
        assert refused.value.kind == "checksum"
        assert refused.value.path == str(path)
    path.write_bytes(b"\x80" + whole[1:])
    with pytest.raises(SnapshotError) as refused:
        read_records(path)
    assert refused.value.kind == "magic"
    path.write_bytes(b"not a record file")
    with pytest.raises(SnapshotError):
        RecordWriter(path)


def test_a_writer_killed_while_appending_loses_at_most_its_last_record(tmp_path: Path) -> None:
    path = tmp_path / "events.rec"
    script = tmp_path / "append.py"
    script.write_text(
        textwrap.dedent(
            f"""
            from fastmsgpack.snapshot import RecordWriter
            with RecordWriter({str(path)!r}) as writer:
                i = 0
                while True:
                    writer.append({{"i": i, "pad": "x" * (i % 5000)}})
                    writer.flush()
                    i += 1
            """
        )
    )
    child = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path)
    try:
        deadline = time.monotonic() + 30
        while (not path.exists() or path.stat().st_size < 200_000) and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    records = list(read_records(path))
    assert len(records) > 10
    assert records == [{"i": i, "pad": "x" * (i % 5000)} for i in range(len(records))]
