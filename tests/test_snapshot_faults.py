"""fastmsgpack.snapshot.save under real faults, each in a subprocess bounded in time: killed
with SIGKILL at random moments, watched with strace, a full disk (RLIMIT_FSIZE), a read-only
directory, and two processes saving the same path while a third loads it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from fastmsgpack.snapshot import load, save

# Objects whose content follows from their generation number, so that any object read back can
# be checked whole: a torn or mixed file could not pass.
MAKE = textwrap.dedent(
    """
    import os, sys, random, signal, resource, time, json
    from fastmsgpack.snapshot import save, load

    def make(gen, n=20_000):
        rng = random.Random(gen)
        return {"gen": gen, "stops": [[i, rng.random()] for i in range(n)]}

    def check(obj):
        assert obj == make(obj["gen"], len(obj["stops"])), "mixed or torn snapshot"
        return obj["gen"]
    """
)


def run(tmp_path: Path, body: str, timeout: float = 60, **kwargs: object) -> dict[str, object]:
    """Runs `body` (after MAKE) in a new interpreter; it prints one JSON line as its result."""
    script = tmp_path / "child.py"
    script.write_text(MAKE + textwrap.dedent(body))
    done = subprocess.run(
        [*kwargs.pop("prefix", []), sys.executable, str(script)],  # type: ignore[misc]
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tmp_path,
        check=False,
        **kwargs,  # type: ignore[call-overload]
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def temps(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_sigkill_at_random_moments_leaves_the_old_or_the_new_snapshot(tmp_path: Path) -> None:
    # One driver process forks a saver at least 120 times and kills it with SIGKILL after a
    # random delay; after every kill the file loads as one whole generation, never older than the last
    # seen, and at most the one temporary file of the save that was cut short is left.
    result = run(
        tmp_path,
        """
        path = "plan.snap"
        for codec in (None, "zstd"):
            save(path, make(0), compress=codec)
        last, kills, newer, left = 0, 0, 0, 0
        rng = random.Random(1)
        started = time.monotonic()
        for round in range(600):
            # At least 120 kills; then more, with longer waits, until both kinds of moment were
            # hit, for a machine so busy that the saves rarely finished within 60 ms.
            if round >= 120 and (newer > 10 and left > 0 or time.monotonic() - started > 80):
                break
            pid = os.fork()
            if pid == 0:
                # lz4 saves in pieces compressed by a thread of their own from the first byte.
                import fastmsgpack.snapshot
                fastmsgpack.snapshot._PIECES_FROM = 0
                gen = last + 1
                while True:
                    save(path, make(gen), compress=("zstd", None, "lz4")[gen % 3])
                    gen += 1
            time.sleep(rng.random() * 0.06 * (1 + round // 120))
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            kills += 1
            gen = check(load(path))
            assert gen >= last, (gen, last)
            newer += gen > last
            last = gen
            leftovers = [n for n in os.listdir(".") if n.endswith(".tmp")]
            assert len(leftovers) <= 1, leftovers
            left += len(leftovers)
            for name in leftovers:
                os.remove(name)
        print(json.dumps({"kills": kills, "newer": newer, "left": left, "last": last}))
        """,
        timeout=180,
    )
    assert isinstance(result["kills"], int) and result["kills"] >= 120
    # The kills landed both between saves and inside them.
    assert isinstance(result["newer"], int) and result["newer"] > 10
    assert isinstance(result["left"], int) and result["left"] > 0
    assert temps(tmp_path) == []


def test_strace_shows_fsync_of_the_file_before_the_rename_and_of_the_directory_after(
    tmp_path: Path,
) -> None:
    assert shutil.which("strace"), (
        "needs strace on PATH (scripts/test installs it: apt-get install strace)"
    )
    log = tmp_path / "strace.log"
    run(
        tmp_path,
        """
        save("plan.snap", make(1), compress="zstd")
        print(json.dumps({}))
        """,
        prefix=[
            "strace",
            "-f",
            "-qq",
            "-o",
            str(log),
            "-e",
            "trace=openat,fsync,rename,renameat,renameat2",
        ],
    )
    lines = log.read_text().splitlines()
    fds: dict[str, str] = {}
    events = []
    for line in lines:
        call = line.split(None, 1)[1] if line.split(None, 1)[0].isdigit() else line
        if call.startswith("openat(") and "= " in call and ".plan.snap." in call:
            fds[call.rsplit("= ", 1)[1].strip()] = "temp"
            events.append("open temp")
        elif call.startswith("openat(") and '"."' in call and "O_DIRECTORY" not in call:
            fd = call.rsplit("= ", 1)[1].strip()
            if fd.isdigit():
                fds[fd] = "dir"
                events.append("open dir")
        elif call.startswith("fsync("):
            fd = call[len("fsync(") :].split(")")[0]
            events.append(f"fsync {fds.get(fd, '?')}")
        elif call.startswith("rename") and ".plan.snap." in call:
            events.append("rename")
    assert "rename" in events, lines
    rename = events.index("rename")
    assert "fsync temp" in events[:rename], events
    assert "fsync dir" in events[rename:], events


def test_a_full_disk_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    save(tmp_path / "plan.snap", {"gen": 0, "stops": []})
    result = run(
        tmp_path,
        """
        # Writing past the limit sends SIGXFSZ, which would end the process: ignored, the write
        # fails with EFBIG instead, as it does on a full disk with ENOSPC.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
        import fastmsgpack.snapshot
        outcome = {}
        # Compressed both ways: packed whole, then compressed; and in pieces compressed by a
        # thread while the walk goes on, whose write fails first (zstd's start past 2 MiB).
        for codec, start in ((None, 0), ("zstd", 1 << 62), ("lz4", 1 << 62), ("zstd", 0), ("lz4", 0)):
            fastmsgpack.snapshot._PIECES_FROM = start
            try:
                save("plan.snap", make(5, 200_000), compress=codec)
                outcome[f"{codec} {start}"] = "saved"
            except OSError as e:
                outcome[f"{codec} {start}"] = [type(e).__name__, e.errno, e.filename]
        print(json.dumps(outcome))
        """,
    )
    assert len(result) == 5, result
    for outcome in result.values():
        assert outcome == ["OSError", 27, "plan.snap"], result  # EFBIG, naming the file
    assert load(tmp_path / "plan.snap") == {"gen": 0, "stops": []}
    assert temps(tmp_path) == []


def test_a_read_only_directory_refuses_with_permission_error(tmp_path: Path) -> None:
    directory = tmp_path / "ro"
    directory.mkdir()
    save(directory / "plan.snap", {"gen": 0, "stops": []})
    directory.chmod(0o555)
    # root passes permission bits by its capabilities (CAP_DAC_OVERRIDE): the child runs
    # without any (setpriv), so that the directory's bits hold for it as for any user.
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv, "running as root, the read-only test needs setpriv (util-linux)"
        prefix = [setpriv, "--inh-caps=-all", "--bounding-set=-all", "--"]
    try:
        result = run(
            tmp_path,
            """
            outcome = {}
            for codec in (None, "zstd"):
                try:
                    save("ro/plan.snap", make(3), compress=codec)
                    outcome[str(codec)] = "saved"
                except OSError as e:
                    outcome[str(codec)] = [type(e).__name__, e.errno]
            print(json.dumps(outcome))
            """,
            prefix=prefix,
        )
    finally:
        directory.chmod(0o755)
    assert result == {"None": ["PermissionError", 13], "zstd": ["PermissionError", 13]}
    assert load(directory / "plan.snap") == {"gen": 0, "stops": []}
    assert temps(directory) == []


def test_two_savers_and_a_loader_on_one_path(tmp_path: Path) -> None:
    save(tmp_path / "plan.snap", {"gen": 0, "stops": []})
    result = run(
        tmp_path,
        """
        path = "plan.snap"
        writers = []
        for w in (1, 2):
            pid = os.fork()
            if pid == 0:
                for i in range(50):
                    save(path, make(w * 1000 + i, 5_000), compress=(None, "zstd")[i % 2])
                os._exit(0)
            writers.append(pid)
        loads, seen = 0, set()
        alive = set(writers)
        while alive:
            seen.add(check(load(path)))
            loads += 1
            for pid in list(alive):
                if os.waitpid(pid, os.WNOHANG)[0]:
                    alive.discard(pid)
        seen.add(check(load(path)))
        print(json.dumps({"loads": loads, "seen": sorted(seen)}))
        """,
        timeout=120,
    )
    seen = result["seen"]
    assert isinstance(seen, list) and isinstance(result["loads"], int)
    assert result["loads"] > 10
    assert all(g == 0 or 1000 <= g < 1050 or 2000 <= g < 2050 for g in seen)
    final = load(tmp_path / "plan.snap")
    assert final["gen"] in (1049, 2049)
    assert temps(tmp_path) == []


def test_a_later_save_removes_the_temporary_file_of_a_killed_save(tmp_path: Path) -> None:
    # A saver killed with SIGKILL while writing leaves its temporary file; the next save of the
    # same path removes it (its lock died with the saver), and so does remove_stale.
    result = run(
        tmp_path,
        """
        from fastmsgpack.snapshot import remove_stale
        path = "plan.snap"
        save(path, make(0))
        def temps():
            return sorted(n for n in os.listdir(".") if n.endswith(".tmp"))
        # Killed inside a save: zstd at level 19 on this object takes far longer than the wait.
        pid = os.fork()
        if pid == 0:
            save(path, make(1, 400_000), compress="zstd", level=19)
            os._exit(0)
        for _ in range(2000):
            if temps():
                break
            time.sleep(0.005)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        left = temps()
        # Another snapshot's stale temporary file in the same directory, and files that only
        # look alike, which no cleaner may touch.
        pid = os.fork()
        if pid == 0:
            save("other.snap", make(2, 400_000), compress="zstd", level=19)
            os._exit(0)
        while not [n for n in temps() if n.startswith(".other.snap.")]:
            time.sleep(0.005)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        for name in (".plan.snap.notes.tmp", "plan.snap.1-2-0badcafe.tmp", ".plan.snap.1-2-3.tmp"):
            open(name, "w").close()
        save(path, make(3))
        after_save = temps()
        removed = sorted(os.path.basename(p) for p in remove_stale("."))
        print(json.dumps({"left": left, "after_save": after_save, "removed": removed,
                          "after": temps(), "gen": check(load(path))}))
        """,
    )
    left = result["left"]
    assert isinstance(left, list) and len(left) == 1 and left[0].startswith(".plan.snap.")
    lookalikes = [".plan.snap.1-2-3.tmp", ".plan.snap.notes.tmp", "plan.snap.1-2-0badcafe.tmp"]
    after_save = result["after_save"]
    assert isinstance(after_save, list) and left[0] not in after_save
    other = [n for n in after_save if n.startswith(".other.snap.")]
    assert len(other) == 1 and sorted(set(after_save) - set(other)) == lookalikes, after_save
    assert result["removed"] == other
    assert result["after"] == lookalikes
    assert result["gen"] == 3


def test_cleaning_never_touches_a_running_save(tmp_path: Path) -> None:
    # Two savers run at once: one in a long compressed save of the path, the other saving the
    # same path over and over (each save cleans) while remove_stale runs too; the long save's
    # temporary file is never removed, and it finishes and is loaded back. (A cleaner may take a
    # file in the moment between its creation and its save's lock, and remove it: that save then
    # finds its file gone and makes another, so every fast save still succeeds.)
    result = run(
        tmp_path,
        """
        from fastmsgpack.snapshot import remove_stale
        path = "plan.snap"
        save(path, make(0))
        def temps():
            return sorted(n for n in os.listdir(".") if n.endswith(".tmp"))
        slow = os.fork()
        if slow == 0:
            save(path, make(1, 150_000), compress="zstd", level=19)
            os._exit(0)
        while not temps():
            time.sleep(0.002)
        live = temps()
        fast = os.fork()
        if fast == 0:
            for i in range(40):
                save(path, make(100 + i, 1_000))
            os._exit(0)
        cleaned, checks = [], 0
        while True:
            done, slow_status = os.waitpid(slow, os.WNOHANG)
            if done:
                break
            cleaned += remove_stale(".")
            checks += 1
            time.sleep(0.002)
        _, status = os.waitpid(fast, 0)
        print(json.dumps({"live": live, "cleaned": cleaned, "checks": checks,
                          "slow": slow_status, "fast": status, "after": temps(),
                          "gen": check(load(path))}))
        """,
    )
    live = result["live"]
    assert isinstance(live, list) and len(live) == 1
    cleaned = result["cleaned"]
    assert isinstance(cleaned, list) and live[0] not in [os.path.basename(p) for p in cleaned]
    # Both savers succeeded: a save whose temporary file was removed could not rename it.
    assert result["slow"] == 0 and result["fast"] == 0
    assert isinstance(result["checks"], int) and result["checks"] > 5
    assert result["after"] == []
    # The slow save finished after the fast saver's first saves: its object, or a later one.
    assert result["gen"] == 1 or 100 <= result["gen"] < 140  # type: ignore[operator]


def test_an_unlocked_file_of_a_running_process_is_stale_only_when_old(tmp_path: Path) -> None:
    # A save locks its temporary file a moment after creating it: in that moment the file is
    # unlocked but new, and its process (the PID in its name) is running, so it is left alone.
    # An unlocked file that is old is stale whatever its PID (a PID reused by another process,
    # as in containers whose processes get the same PIDs at every start).
    from fastmsgpack.snapshot import remove_stale

    young = tmp_path / f".plan.snap.{os.getpid()}-7-0badcafe.tmp"
    old = tmp_path / f".plan.snap.{os.getppid()}-8-0badcafe.tmp"
    for path in (young, old):
        path.write_bytes(b"partial")
    an_hour_ago = time.time() - 3600
    os.utime(old, (an_hour_ago, an_hour_ago))
    assert remove_stale(tmp_path) == [str(old)]
    assert temps(tmp_path) == [young.name]
    save(tmp_path / "plan.snap", {"a": 1})
    assert temps(tmp_path) == [young.name]
    os.utime(young, (an_hour_ago, an_hour_ago))
    save(tmp_path / "plan.snap", {"a": 2})
    assert temps(tmp_path) == []
    assert load(tmp_path / "plan.snap") == {"a": 2}
