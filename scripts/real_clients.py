"""Runs the test suites of libraries that use msgpack-python twice: once with msgpack-python,
once with `msgpack` replaced by `fastmsgpack.compat`, and prints how many tests passed each time.

Run through scripts/real_clients, which makes the project's virtualenv and builds fastmsgpack
first. Each suite's source distribution is downloaded from PyPI at a pinned version into a
temporary directory, with pip, as are the packages its tests need (pinned too), into a
virtualenv of their own there that also sees the project's (msgpack-python, numpy, kombu,
hypothesis, pytest and fastmsgpack itself).

The replacement is a package named `msgpack` put first on the path: it re-exports
`fastmsgpack.compat`, and has the submodules `exceptions`, `ext` and `fallback`. Each run writes
a JUnit XML report; the table counts its test cases. Where a test passes with msgpack-python and
fails with compat, its name is listed below the table, with the first line of the failure.

Usage: scripts/real_clients [--keep] [--only NAME]... [--fastmsgpack DIR]

--fastmsgpack DIR puts DIR first on the path of the compat runs: an unpacked wheel of another
build (`python -m zipfile -e fastmsgpack-*.whl DIR`), to compare builds.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import venv
import xml.etree.ElementTree as ET
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class Suite:
    name: str
    # The source distribution, as pip names it (pinned).
    sdist: str
    # Where the package's own code is inside the unpacked sdist (put on the path).
    source: str
    # The pytest arguments, from the unpacked sdist's root (its working directory).
    args: tuple[str, ...]
    # What its tests need beyond the project's test dependencies (pinned).
    needs: tuple[str, ...] = ()


SUITES = [
    Suite("msgpack-numpy", "msgpack-numpy==0.4.8", ".", ("tests.py",)),
    Suite(
        "oslo.serialization",
        "oslo.serialization==5.11.0",
        ".",
        ("oslo_serialization/tests",),
        (
            "oslo.utils==10.2.0",
            "oslo.i18n==6.9.0",
            "oslotest==6.1.1",
            "netaddr==1.3.0",
            "pbr==7.1.3",
        ),
    ),
    Suite(
        "cattrs (msgpack preconf)",
        "cattrs==26.2.1",
        "src",
        ("tests/test_preconf.py", "-k", "msgpack", "--hypothesis-seed=0"),
        (
            "attrs==26.1.0",
            "immutables==0.21",
            "pymongo==4.20.0",
            "tomlkit==0.15.2",
            "cbor2==6.2.1",
        ),
    ),
    Suite(
        "kombu (serialization)",
        "kombu==5.7.0",
        ".",
        ("t/unit/test_serialization.py",),
        ("pytest-freezer==0.4.9",),
    ),
    Suite(
        "python-socketio",
        "python-socketio==5.18.1",
        "src",
        ("tests", "-p", "no:cacheprovider"),
        (
            "python-engineio==4.15.1",
            "bidict==0.24.1",
            "simple-websocket==1.1.0",
            "requests==2.34.2",
            "websocket-client==1.9.2",
            "aiohttp==3.14.5",
            "pytest-asyncio==1.5.0",
            "pytest-timeout==2.4.0",
            "uvicorn==0.54.0",
            "valkey==6.2.0",
        ),
    ),
]

SHIM = {
    "__init__.py": (
        "import fastmsgpack.compat as _compat\n"
        "from fastmsgpack.compat import *  # noqa: F403\n"
        "from . import exceptions, ext  # noqa: F401\n"
        "\n"
        "# Only what compat has: a build without them shows what their absence breaks.\n"
        'for _name in ("version", "__version__"):\n'
        "    if hasattr(_compat, _name):\n"
        "        globals()[_name] = getattr(_compat, _name)\n"
    ),
    "exceptions.py": "from fastmsgpack.compat.exceptions import *  # noqa: F403\n",
    "ext.py": "from fastmsgpack.compat.ext import *  # noqa: F403\n",
    "fallback.py": "from fastmsgpack.compat.fallback import *  # noqa: F403\n",
}


@dataclasses.dataclass
class Counts:
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    failures: dict[str, str] = dataclasses.field(default_factory=dict)


def run(cmd: list[str], **kwargs: object) -> None:
    subprocess.run(cmd, check=True, **kwargs)  # type: ignore[call-overload]


def make_env(root: Path, project_venv: Path) -> Path:
    """A virtualenv in `root` that sees the project's packages after its own."""
    env = root / "venv"
    venv.EnvBuilder(with_pip=True).create(env)
    python = env / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    theirs = subprocess.run(
        [
            str(project_venv / "bin" / "python"),
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # A .pth line that starts with `import` is run: addsitedir also reads the project's .pth
    # files (fastmsgpack's editable install is one).
    Path(site, "zz_project.pth").write_text(f"import site; site.addsitedir({theirs!r})\n")
    return python


def fetch(root: Path, python: Path, suite: Suite) -> Path:
    """The suite's sdist, downloaded and unpacked; its test needs installed."""
    downloads = root / "downloads"
    downloads.mkdir(exist_ok=True)
    before = set(downloads.iterdir())
    # With the project's pip: the clients' environment also sees the project's packages,
    # which would leak into the isolated build that reads the sdist's metadata.
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-binary",
            ":all:",
            "--no-deps",
            "-d",
            str(downloads),
            suite.sdist,
        ]
    )
    new = set(downloads.iterdir()) - before
    (archive,) = new or [p for p in downloads.iterdir() if _matches(p, suite.sdist)]
    with tarfile.open(archive) as tar:
        tar.extractall(root / "src", filter="data")
    top = archive.name.removesuffix(".tar.gz")
    if suite.needs:
        run([str(python), "-m", "pip", "install", "--quiet", *suite.needs])
    return root / "src" / top


def _matches(path: Path, sdist: str) -> bool:
    name, version = sdist.split("==")
    stem = path.name.lower().replace("-", "_").replace(".", "_")
    return stem.startswith(
        f"{name.lower().replace('-', '_').replace('.', '_')}_{version.replace('.', '_')}"
    )


def count(report: Path) -> Counts:
    counts = Counts()
    if not report.exists():
        return counts
    for case in ET.parse(report).iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        if failure is not None:
            counts.failed += 1
            lines = (failure.get("message") or "").splitlines()
            counts.failures[name] = lines[0] if lines else ""
        elif case.find("skipped") is not None:
            counts.skipped += 1
        else:
            counts.passed += 1
    return counts


def run_suite(
    python: Path, root: Path, suite: Suite, where: Path, shim: list[Path] | None
) -> Counts:
    label = "compat" if shim else "msgpack"
    report = root / f"{suite.name.split()[0]}-{label}.xml"
    paths = [*map(str, shim or []), str(where / suite.source)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths), PYTHONDONTWRITEBYTECODE="1")
    cmd = [
        str(python),
        "-m",
        "pytest",
        "-q",
        "-o",
        "addopts=",
        "-p",
        "no:cacheprovider",
        f"--junitxml={report}",
        *suite.args,
    ]
    subprocess.run(
        cmd,
        cwd=where,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
        timeout=1800,
    )
    # Which msgpack the run imported: the check that the replacement took effect.
    check = subprocess.run(
        [str(python), "-c", "import msgpack; print(msgpack.Packer.__module__)"],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    module = check.stdout.strip()
    expected = "fastmsgpack.compat._stream" if shim else "msgpack._cmsgpack"
    if module != expected:
        raise SystemExit(f"{suite.name} ({label}): msgpack.Packer comes from {module!r}")
    return count(report)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--only", action="append", default=[], help="run only these suites")
    parser.add_argument(
        "--fastmsgpack", type=Path, help="import fastmsgpack from here in the compat runs"
    )
    args = parser.parse_args()
    project_venv = Path(sys.prefix)
    root = Path(tempfile.mkdtemp(prefix="fastmsgpack-real-clients-"))
    try:
        shim = root / "shim"
        (shim / "msgpack").mkdir(parents=True)
        for name, text in SHIM.items():
            (shim / "msgpack" / name).write_text(text)
        python = make_env(root, project_venv)
        rows = []
        for suite in SUITES:
            if args.only and not any(o.lower() in suite.name.lower() for o in args.only):
                continue
            print(f"==> {suite.name}", file=sys.stderr, flush=True)
            where = fetch(root, python, suite)
            theirs = run_suite(python, root, suite, where, None)
            first = [shim] if args.fastmsgpack is None else [shim, args.fastmsgpack.resolve()]
            mine = run_suite(python, root, suite, where, first)
            rows.append((suite, theirs, mine))
        print()
        header = ("suite", "tests", "passed with msgpack-python", "passed with compat")
        table = [header] + [
            (s.name, str(t.passed + t.failed), str(t.passed), str(m.passed)) for s, t, m in rows
        ]
        widths = [max(len(r[i]) for r in table) for i in range(4)]
        for i, row in enumerate(table):
            print(" | ".join(c.ljust(w) for c, w in zip(row, widths)))
            if i == 0:
                print("-+-".join("-" * w for w in widths))
        for suite, theirs, mine in rows:
            only_mine = {n: m for n, m in mine.failures.items() if n not in theirs.failures}
            only_theirs = sorted(n for n in theirs.failures if n not in mine.failures)
            for name, message in sorted(only_mine.items()):
                print(f"\n{suite.name}: fails only with compat: {name}\n    {message[:200]}")
            for name in only_theirs:
                print(f"\n{suite.name}: fails only with msgpack-python: {name}")
        return 0
    finally:
        if args.keep:
            print(f"\nkept {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
