"""The option flags are listed once, by the core: the package, its stubs and the docs follow it."""

from __future__ import annotations

import ast
import importlib.util
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import fastmsgpack
from fastmsgpack import _fastmsgpack as core
from fastmsgpack import json as fastjson

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "fastmsgpack"

OPTIONS: list[tuple[str, int]] = list(core._OPTIONS)
MASKS: dict[str, int] = dict(core._OPTION_MASKS)
JSON_MASK = MASKS["json.dumps"] | MASKS["json.from_msgpack"]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("options_script", ROOT / "scripts" / "options.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _stub_all(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            assert isinstance(value, list)
            return value
    raise AssertionError(f"{path} has no __all__")


def _stub_options(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [
        node.target.id
        for node in tree.body
        if isinstance(node, ast.AnnAssign)
        and isinstance(node.target, ast.Name)
        and node.target.id.startswith("OPT_")
    ]


def test_the_core_list_is_sound() -> None:
    names = [name for name, _ in OPTIONS]
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"OPT_[A-Z0-9_]+", name) for name in names)
    bits = [bit for _, bit in OPTIONS]
    assert all(bit > 0 and bit & (bit - 1) == 0 for bit in bits)
    assert len(set(bits)) == len(bits)
    assert set(MASKS) == {"packb", "unpackb", "json.dumps", "json.from_msgpack"}


def test_generated_files_are_up_to_date() -> None:
    assert _script().stale() == [], "run scripts/options.py"


def test_package_exports_every_option() -> None:
    for name, bit in OPTIONS:
        assert getattr(fastmsgpack, name) == bit
        assert name in fastmsgpack.__all__
    assert {n for n in fastmsgpack.__all__ if n.startswith("OPT_")} == {n for n, _ in OPTIONS}
    for name in fastmsgpack.__all__:
        assert hasattr(fastmsgpack, name), name


def test_json_exports_its_options() -> None:
    want = {name for name, bit in OPTIONS if bit & JSON_MASK}
    assert {n for n in fastjson.__all__ if n.startswith("OPT_")} == want
    for name in want:
        assert getattr(fastjson, name) == getattr(fastmsgpack, name)
    assert not hasattr(fastjson, "OPT_JSON_COMPAT")
    for name in fastjson.__all__:
        assert hasattr(fastjson, name), name


@pytest.mark.parametrize(
    ("stub", "module"), [("__init__.pyi", fastmsgpack), ("json.pyi", fastjson)]
)
def test_stubs_match_the_modules(stub: str, module: ModuleType) -> None:
    path = PACKAGE / stub
    exported = sorted(module.__all__)
    assert sorted(_stub_all(path)) == exported
    assert sorted(_stub_options(path)) == sorted(n for n in exported if n.startswith("OPT_"))


def _table_rows(path: Path, header: str) -> list[list[str]]:
    lines = path.read_text().split("\n")
    start = lines.index(header) + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def test_options_md_table_follows_the_core() -> None:
    entries = list(MASKS)
    header = "| option | " + " | ".join(f"`{e}`" for e in entries) + " |"
    rows = _table_rows(ROOT / "doc" / "options.md", header)
    assert [re.search(r"`(OPT_\w+)`", row[0])[1] for row in rows] == [  # type: ignore[index]
        name for name, _ in OPTIONS
    ]
    for row, (name, bit) in zip(rows, OPTIONS):
        for cell, entry in zip(row[1:], entries):
            word = "yes" if bit & MASKS[entry] else "no"
            assert cell.split(" ", 1)[0] == word, (name, entry, cell)


def test_readme_table_follows_the_core() -> None:
    rows = _table_rows(ROOT / "README.md", "| option | applies to | meaning |")
    assert [row[0].strip("`") for row in rows] == [name for name, _ in OPTIONS]
    for row, (_, bit) in zip(rows, OPTIONS):
        named = set(re.findall(r"`([\w.]+)`", row[1]))
        assert named == {entry for entry, mask in MASKS.items() if bit & mask}, row
        assert row[2], row


# Each entry point with a call that is valid whatever the option (1 packs and unpacks as 1).
CALLS: dict[str, Callable[[int], Any]] = {
    "packb": lambda option: fastmsgpack.packb(1, option=option),
    # OPT_FORBID_UNKNOWN_FIELDS applies to typed reads only: given with a type.
    "unpackb": lambda option: fastmsgpack.unpackb(
        b"\x01",
        option=option,
        type=int if option & fastmsgpack.OPT_FORBID_UNKNOWN_FIELDS else None,
    ),
    "json.dumps": lambda option: fastjson.dumps(1, option=option),
    "json.from_msgpack": lambda option: fastjson.from_msgpack(b"\x01", option=option),
}


@pytest.mark.parametrize("entry", list(CALLS))
def test_entry_points_accept_exactly_their_listed_options(entry: str) -> None:
    call = CALLS[entry]
    for name, bit in OPTIONS:
        if bit & MASKS[entry]:
            call(bit)
        else:
            with pytest.raises(
                (fastmsgpack.MsgpackEncodeError, fastmsgpack.MsgpackDecodeError)
            ) as info:
                call(bit)
            assert f"{name} not valid for" in str(info.value)
