"""Every class of the extension is made per interpreter (src/ffi/heap_class.rs): its
`#[pyclass]` expands against `crate::ffi::pyo3_per_interp` and it is declared with
`heap_class!`. A class written without either would be one type object for the whole process,
shared by interpreters that must not share objects; this test finds one in the sources."""

import re
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PYCLASS = re.compile(
    r"#\[pyclass(?:\((?P<args>[^\]]*)\))?\]\s*(?:#\[[^\]]*\]\s*)*pub struct (?P<name>\w+)"
)


def _sources() -> dict[Path, str]:
    return {p: p.read_text() for p in SRC.rglob("*.rs")}


def test_every_pyclass_is_made_per_interpreter() -> None:
    sources = _sources()
    declared = set()
    for text in sources.values():
        declared.update(re.findall(r"heap_class!\(\s*(\w+)", text))
    classes = []
    for path, text in sources.items():
        for m in PYCLASS.finditer(text):
            name = m.group("name")
            classes.append(name)
            args = m.group("args") or ""
            assert 'crate = "crate::ffi::pyo3_per_interp"' in args, (
                f"{path.relative_to(SRC.parent)}: #[pyclass] {name} must expand against "
                "crate::ffi::pyo3_per_interp"
            )
            assert name in declared, f"{name} is not declared with heap_class!"
    # The scan found the classes it guards (Packer, Unpacker, Ext, the views, ...).
    assert {"Packer", "Unpacker", "Decoder", "Ext", "MapView", "ArrayView"} <= set(classes)
