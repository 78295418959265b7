"""Decoded objects and the cyclic garbage collector."""

import gc

import fastmsgpack


def test_dicts_of_atomic_values_are_tracked_as_python_tracks_them_and_always_with_a_container() -> (
    None
):
    values = {"a": 1, "b": "x", "c": None, "d": 1.5}
    doc = fastmsgpack.unpackb(fastmsgpack.packb(values))
    # Up to 3.13 (with the GIL) CPython leaves such dicts untracked until a container is stored
    # in one; 3.14 and free-threaded builds track every dict. Decoded dicts do as Python's do.
    built_by_python = dict(zip(list(values), list(values.values())))
    assert gc.is_tracked(doc) == gc.is_tracked(built_by_python)
    doc["list"] = []
    assert gc.is_tracked(doc)


def test_dicts_holding_containers_stay_tracked() -> None:
    for value in ([1], {"x": 1}, fastmsgpack.Ext(1, b"x")):
        doc = fastmsgpack.unpackb(fastmsgpack.packb({"a": value}))
        assert gc.is_tracked(doc)


def test_cycles_made_from_decoded_objects_are_collected() -> None:
    data = fastmsgpack.packb([{"k": i} for i in range(2000)])
    items = fastmsgpack.unpackb(data)
    holder = items[0]
    holder["self"] = items  # a cycle through an initially untracked dict
    gc.collect()
    del items, holder
    assert gc.collect() > 0


def test_collector_state_is_restored_after_large_and_failing_decodes() -> None:
    big = fastmsgpack.packb([[i, str(i)] for i in range(5000)])
    assert gc.isenabled()
    fastmsgpack.unpackb(big)
    assert gc.isenabled()
    try:
        fastmsgpack.unpackb(big[:-1])
    except fastmsgpack.MsgpackDecodeError:
        pass
    assert gc.isenabled()
    gc.disable()
    try:
        fastmsgpack.unpackb(big)
        assert not gc.isenabled()
    finally:
        gc.enable()
