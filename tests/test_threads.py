"""Packing containers that another thread changes meanwhile.

Eight threads pack one shared container while a ninth changes it. Every output must be a
correct packing of some state the container passed through: on a free-threaded interpreter
(python3.14t) that is what keeps a walk from reading freed items or a resized buffer; with the
GIL it holds because packing runs no Python code. The values are built so that any mix of two
states, a freed object's memory or stray bytes would fail the checks.
"""

from __future__ import annotations

import dataclasses
import sys
import sysconfig
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

import fastmsgpack

PACKERS = 8
ROUNDS = 100
# The packers keep going until the mutator has made this many changes.
MIN_STEPS = 50


@pytest.fixture(autouse=True)
def frequent_switches() -> Iterator[None]:
    """With the GIL, hand it between threads as often as CPython allows, for more interleaving."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def race(
    pack: Callable[[], bytes],
    mutate: Callable[[int], None],
    until: Callable[[], bool] = lambda: True,
) -> list[bytes]:
    """Runs ``pack`` ROUNDS times (and on until ``mutate`` has run MIN_STEPS times) in each of
    PACKERS threads while another thread calls ``mutate(step)`` with step 1, 2, ... until they
    are done; returns every output. An exception in any thread fails the test."""
    outputs: list[bytes] = []
    errors: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(PACKERS + 1)
    done = threading.Event()
    steps = [0]

    def packer() -> None:
        mine: list[bytes] = []
        try:
            start.wait()
            for _ in range(ROUNDS):
                mine.append(pack())
            # Keep packing until the container has changed often enough (and `until` says the
            # packers have seen what they should), so that the packers and the mutator overlap
            # however the threads are scheduled.
            deadline = time.monotonic() + 60
            while (steps[0] < MIN_STEPS or not until()) and not errors:
                assert time.monotonic() < deadline, "the threads never overlapped"
                mine.append(pack())
        except BaseException as exc:  # noqa: BLE001 - reported below, with the thread's output
            with lock:
                errors.append(exc)
        with lock:
            outputs.extend(mine)

    def mutator() -> None:
        step = 0
        try:
            start.wait()
            while not done.is_set():
                step += 1
                mutate(step)
                steps[0] = step
        except BaseException as exc:  # noqa: BLE001
            with lock:
                errors.append(exc)

    threads = [threading.Thread(target=packer) for _ in range(PACKERS)]
    changer = threading.Thread(target=mutator)
    for t in [*threads, changer]:
        t.start()
    for t in threads:
        t.join()
    done.set()
    changer.join()
    assert not errors, f"{len(errors)} threads failed, the first with {errors[0]!r}"
    assert len(outputs) >= PACKERS * ROUNDS
    assert steps[0] >= MIN_STEPS
    return outputs


def decode(data: bytes) -> Any:
    """Both decoders agree on the output (msgpack-python is the oracle), and it is one object."""
    ours = fastmsgpack.unpackb(data, option=fastmsgpack.OPT_NON_STR_KEYS)
    theirs = msgpack.unpackb(data, strict_map_key=False)
    assert ours == theirs
    return ours


def value_for(key: int, generation: int) -> list[Any]:
    """A value that tells its key and generation three times over, in new objects."""
    return [key, generation, [generation] * 3, f"k{key}-g{generation}", float(generation)]


def check_value(key: int, value: list[Any]) -> int:
    assert value == value_for(key, value[1]), value
    return int(value[1])


def check_one_state(generations: list[int], slots: int) -> None:
    """Generation ``g`` (0, 1, 2 ...) is written to slot ``g % slots``, one at a time, over the
    initial generation -1. So the newest generation seen fixes the whole state: every other
    slot holds the newest generation written to it before that one. A mix of two states read
    at different times does not pass."""
    newest = max(generations)
    expected = [
        newest - (newest - slot) % slots if newest - (newest - slot) % slots >= 0 else -1
        for slot in range(slots)
    ]
    assert generations == expected


def test_dict_values_replaced_while_packed() -> None:
    keys = 16
    shared = {f"key{i}": value_for(i, -1) for i in range(keys)}

    def mutate(step: int) -> None:
        g = step - 1
        shared[f"key{g % keys}"] = value_for(g % keys, g)

    for data in race(lambda: fastmsgpack.packb(shared), mutate):
        got = decode(data)
        assert list(got) == [f"key{i}" for i in range(keys)]
        generations = [check_value(i, got[f"key{i}"]) for i in range(keys)]
        check_one_state(generations, keys)


def test_list_items_replaced_while_packed() -> None:
    items = 16
    shared = [value_for(i, -1) for i in range(items)]

    def mutate(step: int) -> None:
        g = step - 1
        shared[g % items] = value_for(g % items, g)

    for data in race(lambda: fastmsgpack.packb({"items": shared}), mutate):
        got = decode(data)["items"]
        assert len(got) == items
        generations = [check_value(i, value) for i, value in enumerate(got)]
        check_one_state(generations, items)


def leaf_for(slot: int, generation: int, nested: bool) -> Any:
    """A new value for ``slot`` that tells its generation. Most are the values a free-threaded
    walk writes while it holds the container's lock (an ASCII str, an int, a non-ASCII str whose
    UTF-8 CPython has already made, a float); with ``nested``, every fifth slot holds a list
    instead, written from a reference taken under the lock, after the leaves before it."""
    kind = slot % 5
    if kind == 0:
        return f"s{slot}-g{generation}"
    if kind == 1:
        return slot * 1_000_000 + generation
    if kind == 2:
        text = f"\u00e9{slot}-g{generation}"
        fastmsgpack.packb(text)  # CPython makes and keeps its UTF-8 form
        return text
    if kind == 3 or not nested:
        return float(slot * 1_000_000 + generation)
    return [slot, generation]


def generation_of(slot: int, value: Any, nested: bool) -> int:
    if isinstance(value, str):
        generation = int(value.rsplit("-g", 1)[1])
    elif isinstance(value, list):
        generation = value[1]
    else:
        generation = int(value) - slot * 1_000_000
    assert value == leaf_for(slot, generation, nested), (slot, value)
    assert type(value) is type(leaf_for(slot, generation, nested))
    return generation


@pytest.mark.parametrize("nested", [False, True], ids=["leaves", "leaves-and-lists"])
def test_list_leaves_replaced_while_packed(nested: bool) -> None:
    # Each replaced value is freed by the mutator unless the walk holds it: a leaf read under
    # the list's lock after its slot was replaced would be freed memory or another state.
    slots = 16
    shared = [leaf_for(i, -1, nested) for i in range(slots)]

    def mutate(step: int) -> None:
        g = step - 1
        shared[g % slots] = leaf_for(g % slots, g, nested)

    for data in race(lambda: fastmsgpack.packb(shared), mutate):
        got = decode(data)
        assert len(got) == slots
        check_one_state([generation_of(i, v, nested) for i, v in enumerate(got)], slots)


@pytest.mark.parametrize("nested", [False, True], ids=["leaves", "leaves-and-lists"])
def test_dict_leaves_replaced_while_packed(nested: bool) -> None:
    slots = 16
    shared = {f"key{i}": leaf_for(i, -1, nested) for i in range(slots)}

    def mutate(step: int) -> None:
        g = step - 1
        shared[f"key{g % slots}"] = leaf_for(g % slots, g, nested)

    for data in race(lambda: fastmsgpack.packb(shared), mutate):
        got = decode(data)
        assert list(got) == [f"key{i}" for i in range(slots)]
        check_one_state([generation_of(i, got[f"key{i}"], nested) for i in range(slots)], slots)


def check_inner(inner_list: Any, inner_dict: Any) -> None:
    """An inner list or dict that is emptied and refilled in place is one of its two states."""
    assert inner_list == [] or (len(inner_list) == 1 and type(inner_list[0]) is int), inner_list
    assert inner_dict == {} or list(inner_dict) == ["m"], inner_dict


@pytest.mark.parametrize("outer", ["dict", "list"])
def test_empty_containers_filled_and_emptied_while_packed(outer: str) -> None:
    # A free-threaded walk writes an empty list or dict under the outer container's lock and
    # holds nothing for what follows it; one that is filled meanwhile is written from a reference
    # instead. Either way the outer container is one state, the inner ones each one of theirs.
    slots = 16
    inner_list: list[int] = []
    inner_dict: dict[str, int] = {}
    values: list[Any] = [leaf_for(i, -1, False) for i in range(slots)]
    values[8:8] = [inner_list, inner_dict, [], {}]
    shared_dict = {f"key{i}": v for i, v in enumerate(values)}
    shared_list = list(values)

    def mutate(step: int) -> None:
        g = step - 1
        at = g % slots
        at += 4 if at >= 8 else 0
        if outer == "dict":
            shared_dict[f"key{at}"] = leaf_for(g % slots, g, False)
            shared_dict["key10"] = [] if step % 2 else {}
        else:
            shared_list[at] = leaf_for(g % slots, g, False)
            shared_list[10] = [] if step % 2 else {}
        if step % 2:
            inner_list.append(step)
            inner_dict["m"] = step
        else:
            inner_list.clear()
            inner_dict.clear()

    def pack() -> bytes:
        return fastmsgpack.packb(shared_dict if outer == "dict" else shared_list)

    for data in race(pack, mutate):
        got = decode(data)
        items = list(got.values()) if outer == "dict" else got
        assert len(items) == slots + 4
        check_inner(items[8], items[9])
        assert items[10] in ([], {}) and items[11] == {}
        leaves = items[:8] + items[12:]
        check_one_state([generation_of(i, v, False) for i, v in enumerate(leaves)], slots)


def test_bytearray_resized_while_packed() -> None:
    # Each state is one byte value repeated: a packing that read storage being moved or freed,
    # or a length from one state and bytes from another, gives bytes of no state.
    sizes = [0, 1, 7, 100, 4096, 70_000, 3]
    shared = bytearray(b"\x01" * 10)

    def mutate(step: int) -> None:
        shared[:] = bytes([step % 200 + 2]) * sizes[step % len(sizes)]

    seen_sizes: set[int] = set()

    def pack() -> bytes:
        data = fastmsgpack.packb([shared, b"end"])
        seen_sizes.add(len(data))
        return data

    for data in race(pack, mutate, until=lambda: len(seen_sizes) > 1):
        got, end = decode(data)
        assert end == b"end"
        assert isinstance(got, bytes)
        assert len(got) in {10, *sizes}
        assert got == got[:1] * len(got), "bytes of two states, or of none"


def test_bytearray_input_resized_while_unpacked() -> None:
    # The input is read as one of the messages it held in turn, never as bytes of two.
    values = [{"n": n, "items": list(range(n)), "text": "x" * (n * 37)} for n in (0, 3, 50, 400)]
    messages = [fastmsgpack.packb(v) for v in values]
    shared = bytearray(messages[0])

    def mutate(step: int) -> None:
        shared[:] = messages[step % len(messages)]

    seen: list[int] = []

    def unpack() -> bytes:
        got = fastmsgpack.unpackb(shared)
        assert got in values
        seen.append(got["n"])
        return b""

    race(unpack, mutate, until=lambda: len(set(seen)) > 1)


def test_dict_keys_added_and_removed_while_packed() -> None:
    base = {f"base{i}": i for i in range(8)}
    shared: dict[str, Any] = dict(base)
    window = 5

    def mutate(step: int) -> None:
        # At most `window` extra keys at a time, the newest ones, each mapped to its number.
        shared[f"extra{step}"] = [step, str(step)]
        shared.pop(f"extra{step - window}", None)
        if step % 97 == 0:
            # Rebuild the table: many keys in, then out again.
            for i in range(64):
                shared[f"burst{i}"] = i
            for i in range(64):
                del shared[f"burst{i}"]

    for data in race(lambda: fastmsgpack.packb(shared), mutate):
        got = decode(data)
        bursts = {k: v for k, v in got.items() if k.startswith("burst")}
        assert all(v == int(k[5:]) for k, v in bursts.items())
        extras = sorted(int(k[5:]) for k in got if k.startswith("extra"))
        for n in extras:
            assert got[f"extra{n}"] == [n, str(n)]
        assert {k: v for k, v in got.items() if k.startswith("base")} == base
        # One state: consecutive steps, at most `window` of them (one more between a step's
        # insertion and its removal of the oldest).
        assert len(extras) <= window + 1
        if extras:
            assert extras == list(range(extras[0], extras[0] + len(extras)))


def test_non_str_keys_and_nested_dicts_replaced_while_packed() -> None:
    # Keys that are not str take another path than the plain dict's (each entry held).
    keys = 8
    shared: dict[Any, Any] = {i: {"v": value_for(i, -1)} for i in range(keys)}

    def mutate(step: int) -> None:
        g = step - 1
        shared[g % keys] = {"v": value_for(g % keys, g)}

    def pack() -> bytes:
        return fastmsgpack.packb(shared, option=fastmsgpack.OPT_NON_STR_KEYS)

    for data in race(pack, mutate):
        got = decode(data)
        assert sorted(got) == list(range(keys))
        check_one_state([check_value(i, got[i]["v"]) for i in range(keys)], keys)


def test_sorted_dict_values_replaced_while_packed() -> None:
    keys = 12
    shared = {f"key{i:02}": value_for(i, -1) for i in range(keys)}

    def mutate(step: int) -> None:
        g = step - 1
        shared[f"key{g % keys:02}"] = value_for(g % keys, g)

    for data in race(lambda: fastmsgpack.packb(shared, option=fastmsgpack.OPT_SORT_KEYS), mutate):
        got = decode(data)
        assert list(got) == sorted(shared)
        check_one_state([check_value(i, got[f"key{i:02}"]) for i in range(keys)], keys)


@dataclasses.dataclass
class Fields:
    """Eight fields, each None when its attribute is absent from the instance dict."""

    f0: Any = None
    f1: Any = None
    f2: Any = None
    f3: Any = None
    f4: Any = None
    f5: Any = None
    f6: Any = None
    f7: Any = None


def test_dataclass_fields_replaced_and_reordered_while_packed() -> None:
    # The instance dict is walked in order beside the field names: replaced values, entries
    # moved to the end (absent for a moment: the class default None is read) and tables rebuilt
    # must never give a field another field's value, a freed one, or lose a field.
    fields = 8
    shared = Fields(*(value_for(i, -1) for i in range(fields)))

    def mutate(step: int) -> None:
        g = step - 1
        setattr(shared, f"f{g % fields}", value_for(g % fields, g))
        if step % 7 == 0:
            entries = vars(shared)
            name = f"f{step % fields}"
            entries[name] = entries.pop(name)
        if step % 53 == 0:
            for i in range(64):
                setattr(shared, f"burst{i}", i)
            for i in range(64):
                delattr(shared, f"burst{i}")

    for data in race(lambda: fastmsgpack.packb(shared), mutate):
        got = decode(data)
        assert list(got) == [f"f{i}" for i in range(fields)]
        for i in range(fields):
            if got[f"f{i}"] is not None:
                check_value(i, got[f"f{i}"])


def test_free_threaded_build_runs_without_the_gil() -> None:
    """On a free-threaded interpreter importing fastmsgpack leaves the GIL off: these tests
    exercise real parallelism there, not a GIL turned back on."""
    gil_enabled = getattr(sys, "_is_gil_enabled", lambda: True)
    if not sysconfig.get_config_var("Py_GIL_DISABLED"):
        assert gil_enabled()
        return
    assert not gil_enabled()
