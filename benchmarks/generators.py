"""Seeded generators for the user-workload benchmarks (test_route, test_vocab, test_small,
test_streams_pack, test_streams_unpack).

Every generator takes a seed and draws from its own ``random.Random(seed)``, so each run packs the
same data. The objects are plain dicts, lists, str, int, float, bool and None, which every library
benchmarked (MessagePack, JSON, pickle, YAML) can write and read back unchanged.

- ``make_route(n)``: a route-planning snapshot (the "Plotwise shape"): an id (1000 to 10000), a
  30-character alphanumeric name, ``n`` floats and ``n`` children, each an id, a 30-character name
  and a point of two floats.
- ``make_vocabulary()``: 50,000 terms of a vocabulary, each with one to four forms.
- ``make_small_message()``: a dict of 10 fields, the size of a typical RPC message or log record.
- ``make_route_timestamped(n)``: the route snapshot whose children each also carry an aware
  datetime ``at`` (UTC, microseconds) and a ``day`` date, as a tracking snapshot does.
- ``make_small_messages(count)``: ``count`` different dicts of that shape (100,000 by default),
  written one after another to a stream (test_streams_pack, test_streams_unpack).

The cached ``route``, ``vocabulary``, ``small_message`` and ``small_messages`` build each input
once per run.
"""

from __future__ import annotations

import datetime
import functools
import gc
import random
import string
from typing import Any

ROUTE_SIZES = (1, 100, 1000, 10000, 100000)
VOCABULARY_SIZE = 50_000
SMALL_MESSAGES = 100_000
TERM_CLASSES = ("noun", "verb", "adjective", "adverb", "proper noun", "abbreviation")
ALPHANUMERIC = string.ascii_letters + string.digits


def _alphanumeric(rng: random.Random, length: int = 30) -> str:
    return "".join(rng.choices(ALPHANUMERIC, k=length))


def _word(rng: random.Random) -> str:
    return "".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 12)))


def make_route(n: int, seed: int = 11) -> dict[str, Any]:
    """A route snapshot with ``n`` values and ``n`` children."""
    rng = random.Random(seed)
    return {
        "id": rng.randint(1000, 10000),
        "name": _alphanumeric(rng),
        "values": [rng.random() * 10000 for _ in range(n)],
        "children": [
            {
                "id": rng.randrange(1_000_000),
                "name": _alphanumeric(rng),
                "point": [rng.uniform(-90, 90), rng.uniform(-180, 180)],
            }
            for _ in range(n)
        ],
    }


def make_route_timestamped(n: int, seed: int = 15) -> dict[str, Any]:
    """``make_route(n)`` whose children also carry an aware datetime and a date."""
    rng = random.Random(seed)
    snapshot = make_route(n, seed)
    start = datetime.datetime(2024, 5, 17, tzinfo=datetime.timezone.utc)
    for child in snapshot["children"]:
        at = start + datetime.timedelta(microseconds=rng.randrange(86_400 * 10**6))
        child["at"] = at
        child["day"] = at.date()
    return snapshot


def make_vocabulary(size: int = VOCABULARY_SIZE, seed: int = 12) -> list[dict[str, Any]]:
    """``size`` terms, each with a class, a canonical form, a rank, a count and 1 to 4 forms."""
    rng = random.Random(seed)
    terms = []
    for rank in range(1, size + 1):
        canonical = _word(rng)
        suffixes = rng.sample(("", "s", "ed", "ing", "er", "est", "ly"), rng.randint(1, 4))
        counts = [rng.randrange(100_000) for _ in suffixes]
        terms.append(
            {
                "term class": rng.choice(TERM_CLASSES),
                "canonical form": canonical,
                "rank": rank,
                "count": sum(counts),
                "term forms": [
                    {"form": canonical + suffix, "count": count}
                    for suffix, count in zip(suffixes, counts)
                ],
            }
        )
    return terms


def make_small_message(seed: int = 13) -> dict[str, Any]:
    """A 10-field dict: str, int, float, bool, None and a short list of str."""
    return _small_message(random.Random(seed))


def make_small_messages(count: int = SMALL_MESSAGES, seed: int = 14) -> list[dict[str, Any]]:
    """``count`` different dicts of the shape of ``make_small_message``."""
    rng = random.Random(seed)
    return [_small_message(rng) for _ in range(count)]


def _small_message(rng: random.Random) -> dict[str, Any]:
    user = _word(rng)
    return {
        "id": rng.randrange(2**40),
        "user": user,
        "email": f"{user}@example.com",
        "score": rng.random() * 100,
        "ratio": rng.random(),
        "active": True,
        "admin": False,
        "parent": None,
        "tags": [_word(rng) for _ in range(3)],
        "attempts": rng.randrange(10),
    }


@functools.cache
def route(n: int) -> dict[str, Any]:
    return make_route(n)


@functools.cache
def vocabulary() -> list[dict[str, Any]]:
    return make_vocabulary()


@functools.cache
def small_message() -> dict[str, Any]:
    return make_small_message()


@functools.cache
def small_messages(count: int = SMALL_MESSAGES) -> list[dict[str, Any]]:
    return make_small_messages(count)


def freeze_inputs() -> None:
    """Move every object alive now out of the garbage collector's view, as conftest does for the
    documents, so that collections set off while timing do not walk the benchmark inputs.
    """
    gc.collect()
    gc.freeze()
