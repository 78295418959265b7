"""The fuzzer's checks of snapshot framing (fastmsgpack.snapshot, doc/snapshots.md), run by
fuzz_checks on every input.

- The input read as a snapshot (``snapshot.loads``), as a snapshot after the fixed magic and
  version (so that the header parser sees the rest), and as a record file after its header
  (``_record_scan``): a value, or ``SnapshotError`` (or, past the frame, the
  ``MsgpackDecodeError`` of ``unpackb``); nothing else, and never a crash.
- The input framed by ``snapshot.frame`` (stored, and zstd-compressed) loads as ``unpackb``
  reads the input itself: the same value or a ``MsgpackDecodeError``.
- The scan of a record file gives records that lie inside the input, in order.
- The input framed with an offset index (``frame(..., compress=None, index=True)``) loads as
  ``unpackb`` reads the input, and a view through the index (as ``snapshot.view`` makes it)
  gives the same value; the index replaced by the input, or cut, is refused with a
  ``SnapshotError``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastmsgpack import MsgpackDecodeError, unpackb
from fastmsgpack._fastmsgpack import (
    _RECORD_FILE_HEADER,
    _record_scan,
    _snapshot_header,
    _view_indexed,
)
from fastmsgpack.snapshot import MAGIC, SnapshotError, frame, loads

#: The bytes before the version byte, and the version: what a fuzzer cannot guess.
_PREFIX = MAGIC + b"\xa7version\x01"


def _outcome(function: Any, *args: Any) -> tuple[str, Any]:
    try:
        return "value", function(*args)
    except SnapshotError as exc:
        return "snapshot-error", exc.kind
    except MsgpackDecodeError:
        return "decode-error", None


def problems(data: bytes) -> Iterator[tuple[str, str]]:
    """What is wrong with the snapshot functions on ``data``: (key, detail) pairs."""
    for label, framed in (("raw", data), ("prefixed", _PREFIX + data)):
        try:
            loads(framed)
        except SnapshotError as exc:
            if exc.kind not in ("truncated", "checksum", "magic", "codec", "version"):
                yield f"snapshot-{label}-kind", f"kind {exc.kind!r}"
        except MsgpackDecodeError:
            # A whole, checked frame whose payload unpackb refuses: impossible for a raw input
            # (the checksum cannot match by chance), possible with a right header.
            pass
        except Exception as exc:  # noqa: BLE001 - any other error is the finding
            yield f"snapshot-{label}-error", f"{type(exc).__name__}: {exc}"
    reference = _outcome(unpackb, data)
    for codec in (None, "zstd"):
        got = _outcome(loads, frame(data, compress=codec))
        if got[0] != reference[0] or (got[0] == "value" and repr(got[1]) != repr(reference[1])):
            yield f"snapshot-frame-{codec}", f"{got!r} != {reference!r}"
    yield from _index_problems(data, reference)
    records = _RECORD_FILE_HEADER + data
    try:
        found, end, _torn = _record_scan(records, None)
    except SnapshotError:
        return
    except Exception as exc:  # noqa: BLE001
        yield "records-error", f"{type(exc).__name__}: {exc}"
        return
    last = len(_RECORD_FILE_HEADER)
    for start, stop in found:
        if not last <= start <= stop <= end <= len(records):
            yield "records-bounds", f"record {start}..{stop} outside {last}..{end}"
        last = stop


def _viewed(framed: bytes) -> Any:
    """The value of a view of ``framed`` through its index, read whole."""
    raw, index = _snapshot_header(framed, None, False)
    start = raw["header_size"]
    payload = memoryview(framed)[start : start + raw["size"]]
    if index is None:
        return unpackb(payload)
    viewed = _view_indexed(payload, index)
    return viewed.to_python() if hasattr(viewed, "to_python") else viewed


def _index_problems(data: bytes, reference: tuple[str, Any]) -> Iterator[tuple[str, str]]:
    """The input framed with an index, read back; and its index replaced by the input."""
    framed = frame(data, compress=None, index=True)
    for label, read in (("loads", loads), ("view", _viewed)):
        got = _outcome(read, framed)
        if got[0] != reference[0] or (got[0] == "value" and repr(got[1]) != repr(reference[1])):
            yield f"snapshot-index-{label}", f"{got!r} != {reference!r}"
    if framed[30] != 2:
        return  # not one whole object: no index
    raw, _ = _snapshot_header(framed, None, False)
    start = raw["header_size"] + raw["stored_size"]
    for bad in (framed[:start] + data, framed[: len(framed) - 1 - len(data) % 8]):
        for read in (loads, _viewed):
            try:
                read(bad)
            except SnapshotError:
                continue
            except Exception as exc:  # noqa: BLE001 - any other error is the finding
                yield "snapshot-index-damaged", f"{type(exc).__name__}: {exc}"
                continue
            if bad != framed:
                yield "snapshot-index-damaged", "a damaged index was accepted"
