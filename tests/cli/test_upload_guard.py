"""``xlbridge import``, ``export`` and ``publish`` under the upload guard (issue 37): the limits of
``recalc`` (``--timeout``, ``--max-memory``), signals (SIGTERM, SIGHUP, Ctrl-C: one line, 128 + N, no
temporary file left), SIGKILL's leftovers removed by a later run, and an atomic site: killed at many
points, the public folder serves the old site or the new one, whole, never a mix.

Each run is a real process (the command's contract is the subject: exit code, signals, files left).
The events are generated here: every traveller row a new pair with a part score legal at any
vulnerability (Law 77: 1NT= 90, 2H= 110, ... whatever the vulnerability).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from formats_samples import pairs_pbn

ROOT = Path(__file__).resolve().parents[2]


def _start(*args, cwd, tmpdir=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if tmpdir is not None:
        env["TMPDIR"] = str(tmpdir)
    return subprocess.Popen([sys.executable, "-m", "xlbridge", *map(str, args)], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _site(folder: Path) -> dict[str, str]:
    """{page: sha256} of the site a folder (or the link) serves."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _wait_for_build(store: Path, proc, seconds: float = 30) -> None:
    """Until the run is writing pages (a new site-* folder with pages in the store, not the one served)."""
    end = time.monotonic() + seconds
    served = os.readlink(store.parent / "site").split("/")[-1]
    while time.monotonic() < end and proc.poll() is None:
        builds = [p for p in store.glob("site-*") if p.name != served] if store.exists() else []
        if any(len(os.listdir(b)) > 3 for b in builds if b.is_dir()):
            return
        time.sleep(0.01)
    pytest.fail("the run never started writing pages")


def _wait_for_handlers(proc, seconds: float = 60) -> None:
    """Until the command has installed its signal handlers (SIGTERM among the signals the process catches,
    ``SigCgt`` of /proc/PID/status): a signal before that meets the interpreter still starting up, as it
    would any Python program, which is not what these tests are about."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and proc.poll() is None:
        try:
            caught = next(int(line.split()[1], 16) for line in open(f"/proc/{proc.pid}/status")
                          if line.startswith("SigCgt:"))
        except (OSError, StopIteration):
            caught = 0
        if caught & (1 << (signal.SIGTERM - 1)):
            return
        time.sleep(0.01)
    pytest.fail("the command never installed its signal handlers")


@pytest.fixture(scope="module")
def events(tmp_path_factory):
    d = tmp_path_factory.mktemp("events")
    (d / "old.pbn").write_text(pairs_pbn(30, per_board=10, name="Old event"), encoding="ascii")
    (d / "new.pbn").write_text(pairs_pbn(6000, per_board=500, name="New event"), encoding="ascii")
    (d / "club.pbn").write_text(pairs_pbn(8000, per_board=40, name="Season", new_pairs=False), encoding="ascii")
    return d


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_ends_publish_with_one_line_and_leaves_the_old_site(events, tmp_path, sig):
    assert _start("publish", events / "old.pbn", "-o", "site", cwd=tmp_path).wait(60) == 0
    before = _site(tmp_path / "site")
    proc = _start("publish", events / "new.pbn", "-o", "site", cwd=tmp_path, tmpdir=tmp_path)
    _wait_for_build(tmp_path / ".site.xlbridge-site", proc)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err
    assert err.splitlines() == [f"xlbridge publish: new.pbn: interrupted by {signal.Signals(sig).name}; "
                                f"nothing written"], err
    assert _site(tmp_path / "site") == before  # the old site, whole
    store = sorted(p.name for p in (tmp_path / ".site.xlbridge-site").iterdir())
    assert store == [".lock", os.readlink(tmp_path / "site").split("/")[-1]]  # no half-built site stays
    assert sorted(p.name for p in tmp_path.iterdir()) == [".site.xlbridge-site", "site"]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_import_with_one_line_and_no_file(events, tmp_path, sig):
    proc = _start("import", events / "club.pbn", "-o", "new.xlsx", cwd=tmp_path, tmpdir=tmp_path)
    _wait_for_handlers(proc)
    time.sleep(0.2)  # (then reading, then filling the template: seconds)
    assert proc.poll() is None, "finished before the signal"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err
    assert err.splitlines() == [f"xlbridge import: club.pbn: interrupted by {signal.Signals(sig).name}; "
                                f"nothing written"], err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_time_limit_refuses_in_one_line(events, tmp_path):
    proc = _start("publish", events / "new.pbn", "-o", "site", "--timeout", "1", cwd=tmp_path, tmpdir=tmp_path)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, err
    assert err.splitlines() == ["xlbridge publish: new.pbn: refused: time limit of 1 s reached"]
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_memory_limit_refuses_in_one_line(events, tmp_path):
    """A 12 MB file read under an address-space limit of 190 MiB (the interpreter with xlbridge takes
    about 170 MiB of address space): the reading passes the limit, said in one line."""
    (tmp_path / "big.pbn").write_bytes(b'[Event "x"]\n' + b"% a comment line, skipped\n" * 480_000)
    proc = _start("import", "big.pbn", "-o", "new.xlsx", "--max-memory", "190", cwd=tmp_path, tmpdir=tmp_path)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, err
    assert err.splitlines() == ["xlbridge import: big.pbn: refused: memory limit of 190 MiB reached"]
    (tmp_path / "big.pbn").unlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_limits_are_checked_like_recalcs(tmp_path):
    for flag, value in (("--timeout", "0"), ("--timeout", "nan"), ("--max-memory", "0")):
        proc = _start("publish", "x.pbn", "-o", "site", flag, value, cwd=tmp_path)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err


def _sigkill_references(events: Path, run_artefacts) -> tuple[dict[str, dict[str, str]], float]:
    """The old and the new event published whole ({page: sha256} of each site), and how long the new one's
    publish takes from start-up: once a run, for both halves of the test below."""

    def build(folder: Path) -> None:
        refs = {}
        for which in ("old", "new"):
            assert _start("publish", events / f"{which}.pbn", "-o", f"ref-{which}", cwd=folder).wait(120) == 0
            refs[which] = _site(folder / f"ref-{which}")
        start = time.monotonic()
        assert _start("publish", events / "new.pbn", "-o", "timing", cwd=folder).wait(120) == 0
        (folder / "refs.json").write_text(json.dumps({"refs": refs, "full": time.monotonic() - start}))

    got = json.loads((run_artefacts.make("sigkill references", build) / "refs.json").read_text())
    return got["refs"], got["full"]


@pytest.mark.parametrize("half", [0, 1])
def test_sigkill_at_many_points_leaves_the_old_site_or_the_new_one_whole(events, tmp_path, half, run_artefacts):
    """SIGKILL at ten moments of a publish (from start-up to the switch; five a test): after each, the folder
    serves exactly the old site or exactly the new one; a later run removes what the killed ones left."""
    refs, full = _sigkill_references(events, run_artefacts)
    assert _start("publish", events / "old.pbn", "-o", "site", cwd=tmp_path).wait(60) == 0
    seen = set()
    for k in range(5 * half, 5 * half + 5):
        proc = _start("publish", events / "new.pbn", "-o", "site", cwd=tmp_path)
        time.sleep(full * (k + 0.5) / 10)
        proc.kill()
        proc.wait(60)
        now = _site(tmp_path / "site")
        assert now in (refs["old"], refs["new"]), f"a mix after a kill at {full * (k + 0.5) / 10:.2f} s"
        seen.add("old" if now == refs["old"] else "new")
        if now == refs["new"]:  # back to the old site for the next kill
            assert _start("publish", events / "old.pbn", "-o", "site", cwd=tmp_path).wait(60) == 0
    assert seen  # (which of the two each kill left depends on the moment)
    assert _start("publish", events / "old.pbn", "-o", "site", cwd=tmp_path).wait(60) == 0
    assert _site(tmp_path / "site") == refs["old"]
    store = sorted(p.name for p in (tmp_path / ".site.xlbridge-site").iterdir())
    assert store == [".lock", os.readlink(tmp_path / "site").split("/")[-1]]
    assert not [p for p in tmp_path.iterdir() if ".xlbridge-link-" in p.name]


def test_sigkill_leftovers_of_import_and_export_are_removed_by_a_later_run(events, tmp_path):
    """What a killed import leaves (its output's temporary file, its private folder) goes with the next run,
    once its process is gone and it is older than an hour (as recalc: a live run in another container
    sharing the folder is never touched)."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    proc = _start("import", events / "club.pbn", "-o", "new.xlsx", cwd=tmp_path, tmpdir=tmpdir)
    time.sleep(1.0)
    proc.kill()
    proc.wait(60)
    stale_tmp = tmp_path / f".xlbridge-{proc.pid}-abcd.tmp"  # as write_atomic names it, in case the kill came early
    stale_tmp.write_bytes(b"partial")
    stale_dir = tmpdir / f"xlbridge-recalc-{proc.pid}-abcd"
    stale_dir.mkdir()
    old = time.time() - 7200
    for p in [*tmp_path.iterdir(), *tmpdir.iterdir()]:
        os.utime(p, (old, old))
    assert _start("import", events / "old.pbn", "-o", "old.xlsx", cwd=tmp_path, tmpdir=tmpdir).wait(120) == 0, \
        "import failed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.xlsx", "tmp"]
    assert list(tmpdir.iterdir()) == []


def test_the_watchdog_ends_a_run_that_cannot_take_the_alarm(tmp_path):
    """Stuck where Python cannot run the alarm's handler (here: SIGALRM blocked, as in a long call in C),
    the guard's watchdog prints the refusal and kills the run a grace period after the time limit."""
    script = (
        "import signal, time\n"
        "from xlbridge.batch.guard import uploads as guard\n"
        "from xlbridge.batch.guard.limits import SafetyLimits\n"
        "guard.HARD_STOP_GRACE = 0.5\n"
        "with guard.upload_limits(SafetyLimits(max_seconds=0.5), 'stuck.pbn', 'xlbridge import'):\n"
        "    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n"
        "    time.sleep(30)\n"
        "print('not reached')\n")
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", script], env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc
    assert proc.stderr.splitlines() == ["xlbridge import: stuck.pbn: refused: time limit of 0.5 s reached"]
    assert proc.stdout == "" and time.monotonic() - start < 10


def test_a_memory_limit_below_the_command_s_own_size_refuses_at_once(tmp_path):
    """--max-memory 100: less than the 150-170 MiB of address space the command starts with. The limit is
    not switched off (as it was): the command refuses in one line before reading, and writes nothing."""
    (tmp_path / "t.pbn").write_text(pairs_pbn(4, per_board=2, name="Tiny"), encoding="ascii")
    proc = _start("import", "t.pbn", "-o", "new.xlsx", "--max-memory", "100", cwd=tmp_path, tmpdir=tmp_path)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, err
    assert err.splitlines() == ["xlbridge import: t.pbn: refused: memory limit of 100 MiB reached"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.pbn"]


def test_a_pair_number_of_other_digits_is_read_as_text(tmp_path):
    """'²' is a digit to str.isdigit but no number to int(): the pair is a pair named '²' (as any text id),
    not 'cannot be read (ValueError)'; the site, the workbook and its export are made."""
    (tmp_path / "sup.pbn").write_text('[Event "x"]\n[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n'
                                      "\u00b2 2 420\n3 4 400\n", encoding="utf-8")
    for args in (("publish", "sup.pbn", "-o", "site"), ("import", "sup.pbn", "-o", "sup.xlsx"),
                 ("export", "sup.xlsx", "--format", "pbn", "-o", "out.pbn")):
        proc = _start(*args, cwd=tmp_path)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, (args, err)
    from xlbridge.formats import read_event

    assert [(r.ns, r.ew, r.score) for r in read_event(tmp_path / "out.pbn").board(1).results] == [
        ("\u00b2", "2", 420), ("3", "4", 400)]


def test_a_signal_after_the_switch_says_the_site_was_written(tmp_path, monkeypatch, capsys):
    """A signal arriving once the new site is in place (here: during the fsync after the switch) ends the
    command with 128 + N and a line saying the output was written, not "nothing written"; the new site stands."""
    from xlbridge import cli
    from xlbridge.formats import site as site_module

    (tmp_path / "old.pbn").write_text(pairs_pbn(4, per_board=2, name="Old event"), encoding="ascii")
    (tmp_path / "new.pbn").write_text(pairs_pbn(6, per_board=3, name="New event"), encoding="ascii")
    out = tmp_path / "site"
    assert cli.main(["publish", str(tmp_path / "old.pbn"), "-o", str(out)]) == 0
    real = site_module._fsync_dir

    def fsync(path):
        if not os.path.basename(path).startswith("site-"):  # the parent folder: after the switch
            raise cli._Interrupted(signal.SIGTERM)
        real(path)

    monkeypatch.setattr(site_module, "_fsync_dir", fsync)
    capsys.readouterr()
    code = cli.main(["publish", str(tmp_path / "new.pbn"), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 128 + signal.SIGTERM, err
    assert err.splitlines() == ["xlbridge publish: new.pbn: interrupted by SIGTERM; the output was written before "
                                "it stopped ('site')"], err
    assert "New event" in (out / "index.html").read_text(encoding="utf-8")
