"""No process, temporary folder or stray file outlives a run; outputs get the right modes; runs are serialised.

The command runs in a subprocess on a workbook that keeps the engine busy (1,000 SUMPRODUCT formulas over
1,000 rows: far longer than the test waits), with ``TMPDIR`` pointing at a private folder so that every
temporary entry can be listed. Expected: SIGTERM/SIGINT end the command with 128 + signal, one line,
the engine's child gone, the temporary folder and the destination folder clean; after SIGKILL the child
dies with its parent (parent-death signal, or the pipe it watches) and the next run removes what was left.
"""

from __future__ import annotations

import errno
import io
import json
import os
import signal
import stat
import subprocess
import sys
import time

import openpyxl
import pytest
from server_helpers import ROOT, alive, children_of, sha

from xlbridge.cli import main
from xlbridge.batch.guard.safety import BookLock

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux /proc and signals")


def _busy_book(path, n=1000):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Slow"
    for r in range(1, n + 1):
        ws.cell(r, 1, r % 97)
        ws.cell(r, 2, f"=SUMPRODUCT(($A$1:$A${n}>A{r})*1)")
    wb.save(path)
    return path


def _small_book(path):
    wb = openpyxl.Workbook()
    wb.active["A1"] = 2
    wb.active["A2"] = "=A1*21"
    wb.save(path)
    return path


@pytest.fixture(scope="module")
def busy(tmp_path_factory):
    return _busy_book(tmp_path_factory.mktemp("busy") / "busy.xlsx")


def _start(args, tmpdir, script=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmpdir))
    cmd = [sys.executable, "-c", script, *map(str, args)] if script else [sys.executable, "-m", "xlbridge",
                                                                          *map(str, args)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _engine_child(proc, timeout=120):
    """The engine's child process of the command ``proc`` once it exists (the command is evaluating)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        # the engine's child leads its own process group (any other child, e.g. a short-lived helper an
        # imported library runs, does not)
        kids = [k for k in children_of(proc.pid) if _pgid(k) == k]
        if kids:
            time.sleep(1.0)  # well inside the evaluation
            return kids[0]
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("the engine's child process never appeared")


def _pgid(pid):
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def _unlocked(path, timeout=15):
    """True once no process holds a lock on ``path`` (Linux /proc/locks): a killed process's are released."""
    ino = os.stat(path).st_ino
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open("/proc/locks") as fh:
            if not any(f":{ino} " in line for line in fh):
                return True
        time.sleep(0.05)
    return False


def _gone(pid, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def _workdir(tmp_path, busy):
    src, out, tmp = tmp_path / "in", tmp_path / "out", tmp_path / "tmp"
    for d in (src, out, tmp):
        d.mkdir()
    book = src / "busy.xlsx"
    book.write_bytes(busy.read_bytes())
    return book, out, tmp


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_mid_evaluation_kills_the_child_and_cleans_up(busy, tmp_path, sig):
    book, out, tmp = _workdir(tmp_path, busy)
    before = sha(book)
    proc = _start(["recalc", book, "-o", out / "busy-out.xlsx", "--no-progress"], tmp)
    child = _engine_child(proc)
    assert os.getpgid(child) == child != os.getpgid(proc.pid)  # its own process group
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err
    assert err.strip() == f"xlbridge recalc: busy.xlsx: interrupted by {signal.Signals(sig).name}; nothing written"
    assert _gone(child)
    assert os.listdir(tmp) == [] and os.listdir(out) == [] and os.listdir(book.parent) == ["busy.xlsx"]
    assert sha(book) == before


KILL_PROBE = r"""
import sys
import xlbridge.batch.evaluate.child
if sys.argv[1] == "no-pdeathsig":  # leave only the pipe the child watches
    xlbridge.batch.evaluate.child.set_parent_death_signal = lambda parent_pid: None
sys.exit(__import__("xlbridge.cli").cli.main(sys.argv[2:]))
"""


@pytest.mark.parametrize("mode", ["pdeathsig", "no-pdeathsig"])
def test_sigkill_child_dies_with_parent_and_next_run_cleans(busy, tmp_path, mode, monkeypatch):
    import tempfile

    book, out, tmp = _workdir(tmp_path, busy)
    proc = _start([mode, "recalc", book, "-o", out / "busy-out.xlsx", "--no-progress"], tmp, script=KILL_PROBE)
    child = _engine_child(proc)
    proc.kill()
    proc.communicate(timeout=60)
    assert _gone(child)  # parent-death signal, or EOF on the pipe the child watches
    left = os.listdir(tmp)
    assert len(left) == 1 and left[0].startswith(f"xlbridge-recalc-{proc.pid}-")
    assert not (out / "busy-out.xlsx").exists()
    # the next run removes what a killed run left (its process is gone; older than the hour it waits)
    old = time.time() - 7200
    os.utime(tmp / left[0], (old, old))
    small = _small_book(tmp_path / "in" / "small.xlsx")
    assert _unlocked(out / ".busy-out.xlsx.xlbridge-lock")  # the dead child's lock is released
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    assert main(["recalc", str(small), "-o", str(out / "small-out.xlsx"), "--no-progress"]) == 0
    assert os.listdir(tmp) == []
    assert sorted(os.listdir(out)) == ["small-out.xlsx"]  # the killed run's lock file went too


def test_leftovers_of_a_live_or_recent_run_are_kept(tmp_path, monkeypatch):
    import tempfile

    from xlbridge.batch.guard.safety import remove_stale_leftovers

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    live = tmp_path / f"xlbridge-recalc-{os.getppid()}-abc"  # a process that exists
    recent = tmp_path / "xlbridge-recalc-999999999-abc"  # no such process, but only just created
    for d in (live, recent):
        d.mkdir()
    old = time.time() - 7200
    os.utime(live, (old, old))
    assert remove_stale_leftovers() == []
    os.utime(recent, (old, old))
    assert remove_stale_leftovers() == [str(recent)]


def test_in_place_waits_for_the_lock(tmp_path, capsys):
    book = _small_book(tmp_path / "book.xlsx")
    before = sha(book)
    with BookLock(book):  # (3 s: the guard runs first within the same limit, slower on a busy CI machine)
        assert main(["recalc", str(book), "--in-place", "--timeout", "3", "--no-progress"]) == 2
    assert ("refused: another xlbridge recalc is writing this book and did not finish within 3 s"
            in capsys.readouterr().err)
    assert sha(book) == before and sorted(os.listdir(tmp_path)) == ["book.xlsx"]


def test_concurrent_in_place_runs_are_serialised(tmp_path):
    book = _small_book(tmp_path / "book.xlsx")
    original = book.read_bytes()
    procs = [_start(["recalc", book, "--in-place", "--no-progress"], tmp_path) for _ in range(2)]
    for p in procs:
        p.communicate(timeout=300)
        assert p.returncode == 0
    assert sorted(os.listdir(tmp_path)) == ["book.xlsx", "book.xlsx.bak"]
    assert openpyxl.load_workbook(book, data_only=True).active["A2"].value == 42
    bak = openpyxl.load_workbook(io.BytesIO((tmp_path / "book.xlsx.bak").read_bytes()))  # whole, never torn
    assert bak.active["A2"].value == "=A1*21"
    assert (tmp_path / "book.xlsx.bak").read_bytes() != original  # the last run backed up a recalculated book


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_new_output_gets_the_umask_mode(tmp_path, umask):
    book = _small_book(tmp_path / "book.xlsx")
    old = os.umask(umask)
    try:
        assert main(["recalc", str(book), "-o", str(tmp_path / "out.xlsx"), "--no-progress"]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "out.xlsx").st_mode) == 0o666 & ~umask


def test_in_place_keeps_mode_and_owner(tmp_path):
    book = _small_book(tmp_path / "book.xlsx")
    os.chmod(book, 0o640)
    root = os.geteuid() == 0
    if root:
        os.chown(book, 12345, 23456)
    assert main(["recalc", str(book), "--in-place", "--no-progress"]) == 0
    for path in (book, tmp_path / "book.xlsx.bak"):
        st = os.stat(path)
        assert stat.S_IMODE(st.st_mode) == 0o640, path
        if root:
            assert (st.st_uid, st.st_gid) == (12345, 23456), path


def test_replaced_output_keeps_its_mode(tmp_path):
    book = _small_book(tmp_path / "book.xlsx")
    out = tmp_path / "out.xlsx"
    out.write_bytes(b"old")
    os.chmod(out, 0o600)
    assert main(["recalc", str(book), "-o", str(out), "--no-progress"]) == 0
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600 and out.read_bytes()[:2] == b"PK"


def _fail_on(monkeypatch, where):
    """Inject an OSError (disk full) at one point of writing."""
    import xlbridge.batch.recalc
    import xlbridge.batch.guard.safety

    def disk_full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    if where == "replace":
        monkeypatch.setattr(xlbridge.batch.guard.safety.os, "replace", disk_full)
    elif where == "replace-backup":
        real = os.replace

        def replace(a, b, *args, **kw):
            if str(b).endswith(".bak"):
                disk_full()
            return real(a, b, *args, **kw)

        monkeypatch.setattr(xlbridge.batch.guard.safety.os, "replace", replace)
    elif where == "fsync":
        monkeypatch.setattr(xlbridge.batch.guard.safety.os, "fsync", disk_full)
    elif where == "copy":
        real_copy = xlbridge.batch.recalc.copy_zip

        def copy(src, dst, replacements, **kw):  # (the engine's private copy is a plain file copy)
            dst.write(b"partial")  # fail writing the output
            disk_full()
            return real_copy(src, dst, replacements, **kw)

        monkeypatch.setattr(xlbridge.batch.recalc, "copy_zip", copy)
    elif where == "snapshot":
        real_open = os.open

        def open_(path, flags, *args, **kw):
            if str(path).endswith(("upload.xlsx",)) and flags & os.O_CREAT:
                disk_full()
            return real_open(path, flags, *args, **kw)

        monkeypatch.setattr(xlbridge.batch.guard.safety.os, "open", open_)


@pytest.mark.parametrize("in_place", [False, True], ids=["output", "in-place"])
@pytest.mark.parametrize("where", ["replace", "replace-backup", "fsync", "copy", "snapshot"])
def test_no_stray_file_after_a_failure(tmp_path, monkeypatch, capsys, where, in_place):
    import tempfile

    work, tmp = tmp_path / "work", tmp_path / "tmp"
    work.mkdir()
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    book = _small_book(work / "book.xlsx")
    before = sha(book)
    _fail_on(monkeypatch, where)
    args = ["recalc", str(book), "--no-progress"] + (["--in-place"] if in_place else ["-o", str(work / "o.xlsx")])
    code = main(args)
    err = capsys.readouterr().err
    if where == "replace-backup" and not in_place:
        assert code == 0  # no backup is written without --in-place
        assert sorted(os.listdir(work)) == ["book.xlsx", "o.xlsx"]
    else:
        assert code == 3, err
        assert err.startswith("xlbridge recalc: cannot write the output: No space left on device")
        assert len(err.strip().splitlines()) == 1
        assert sorted(os.listdir(work)) == ["book.xlsx"]
    assert os.listdir(tmp) == []
    assert sha(book) == before


def test_sigkill_of_the_jobs_parent_stops_every_worker(busy, tmp_path):
    """A job runner's SIGKILL of `xlbridge recalc DIR --jobs 2`: each per-book worker is told (parent-death
    signal), stops its engine child, and removes its temporary folder and lock; nothing keeps running."""
    src, out, tmp = tmp_path / "in", tmp_path / "out", tmp_path / "tmp"
    for d in (src, out, tmp):
        d.mkdir()
    for name in ("a.xlsx", "b.xlsx"):
        (src / name).write_bytes(busy.read_bytes())
    proc = _start(["recalc", src, "--jobs", "2", "-o", out, "--no-progress"], tmp)
    deadline = time.monotonic() + 120
    workers: list = []
    while time.monotonic() < deadline:  # both workers evaluating: each has its engine child
        workers = children_of(proc.pid)
        if len(workers) == 2 and all(children_of(w) for w in workers):
            break
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    assert len(workers) == 2
    engines = [k for w in workers for k in children_of(w)]
    time.sleep(1.0)
    proc.kill()
    proc.communicate(timeout=60)
    assert all(_gone(pid, timeout=10) for pid in workers + engines)
    assert os.listdir(tmp) == []  # each worker removed its engine's temporary folder
    assert os.listdir(out) == []  # stopped mid-evaluation: no output, no lock or temporary file left


def test_sigkill_of_one_jobs_worker_leaves_nothing_the_parent_can_remove(busy, tmp_path):
    """The OOM killer or a job runner SIGKILLs one per-book worker of `--jobs 2`: the parent reports it
    (exit 137 for that book) and removes at once what the worker left (its temporary folder holding a
    copy of the upload, its temporary output), instead of leaving it for a run an hour later."""
    src, out, tmp = tmp_path / "in", tmp_path / "out", tmp_path / "tmp"
    for d in (src, out, tmp):
        d.mkdir()
    (src / "a.xlsx").write_bytes(busy.read_bytes())
    proc = _start(["recalc", src, "--jobs", "2", "-o", out, "--no-progress", "--json"], tmp)
    deadline = time.monotonic() + 120
    workers: list = []
    while time.monotonic() < deadline:
        workers = children_of(proc.pid)
        if workers and all(children_of(w) for w in workers):
            break
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    (worker,) = workers
    time.sleep(1.0)
    assert any(name.startswith(f"xlbridge-recalc-{worker}-") for name in os.listdir(tmp))
    os.kill(worker, signal.SIGKILL)
    stdout, _ = proc.communicate(timeout=60)
    summary = json.loads(stdout)
    assert summary["books"][0]["exit"] == 137
    assert os.listdir(tmp) == [] and os.listdir(out) == []
