"""Every decoder and encoder, at its nesting limit, in a thread with a 128 KiB stack (musl's
default): the cases are in ``_small_stacks.py``, each run in a subprocess of its own, since a
stack overflow kills the process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _small_stacks import CASES

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("case", CASES)
def test_runs_in_a_128_kib_thread(case: str) -> None:
    done = subprocess.run(
        [sys.executable, str(HERE / "_small_stacks.py"), case],
        check=False,
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, (
        f"{case}: exit status {done.returncode} (a negative one is the signal that killed it)\n"
        f"{done.stdout}{done.stderr}"
    )
    assert done.stdout.strip() == f"ok {case}"
