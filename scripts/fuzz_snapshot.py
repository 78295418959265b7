"""The fuzzer's checks of snapshot framing (fastmsgpack.snapshot, doc/snapshots.md), run by
fuzz_checks on every input.

- The input read as a snapshot (``snapshot.loads``), as a snapshot after the fixed magic and
  version (so that the header parser sees the rest), and as a record file after its header
  (``_record_scan``): a value, or ``SnapshotError`` (or, past the frame, the
  ``MsgpackDecodeError`` of ``unpackb``); nothing else, and never a crash.
- The input framed by ``snapshot.frame`` (stored, and zstd-compressed) loads as ``unpackb``
  reads the input itself: the same value or a ``MsgpackDecodeError``.
- The scan of a record file gives records that lie inside the input, in order.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastmsgpack import MsgpackDecodeError, unpackb
from fastmsgpack._fastmsgpack import _RECORD_FILE_HEADER, _record_scan
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
