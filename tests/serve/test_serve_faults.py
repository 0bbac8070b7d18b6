"""The server under load and faults: 20 uploads at once (none lost, memory bounded), a full queue (503 with
Retry-After), hostile files (each refused in one line, the server still serving), and the server killed
with SIGKILL in the middle of a job and started again (the job runs again to its end)."""

from __future__ import annotations

import concurrent.futures
import os
import sqlite3
import sys
import threading
import time
from pathlib import Path

import httpx
import openpyxl
import pytest

from serve_helpers import PAIRS, Server, make_clubs, upload, wait_job

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "formats"))

import hostile_corpus  # noqa: E402
from recalc_helpers import small_build  # noqa: E402

GiB = 1 << 30


def steps_of(data: Path) -> list[int]:
    """The processes working in the data folder (a job's steps and their engine children)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.readlink(f"/proc/{entry}/cwd").startswith(str(data)):
                    out.append(int(entry))
            except OSError:
                pass
    return out


def rss(pids) -> int:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


class Peak:
    """The largest resident memory of the server and its steps together, sampled every 0.1 s."""

    def __init__(self, server: Server) -> None:
        self.server, self.peak, self._stop = server, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss([self.server.proc.pid, *steps_of(self.server.data)]))
            time.sleep(0.1)

    def __enter__(self) -> "Peak":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> bytes:
    """A small workbook calling an xlbridge function: a quick job."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["A2"], ws["B1"] = 14, "=A1+2", "=NEUBERG(A1,A2,8)"
    path = tmp_path_factory.mktemp("tiny") / "tiny.xlsx"
    wb.save(path)
    return path.read_bytes()


def test_twenty_uploads_at_once_none_lost(tmp_path, tiny):
    tokens = make_clubs(tmp_path)
    server = Server(tmp_path, "--jobs", "2", "--queue", "64", "--timeout", "60").start()
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client, Peak(server) as peak:
            def one(k):
                club = ("hearts", "spades")[k % 2]
                return club, upload(client, club, tokens[club], PAIRS, name=f"night-{k:02d}.xlsx", content=tiny)

            with concurrent.futures.ThreadPoolExecutor(20) as pool:
                answers = list(pool.map(one, range(20)))
            assert [r.status_code for _, r in answers] == [202] * 20
            ids = [r.json()["job"] for _, r in answers]
            assert len(set(ids)) == 20
            ends = [wait_job(client, job, tokens[club], timeout=240) for (club, _), job in zip(answers, ids)]
        assert all(e["state"] == "done" for e in ends), [e for e in ends if e["state"] != "done"][:2]
        assert all(e["message"].startswith(f"night-{k:02d}-recalculated.xlsx: ") for k, e in enumerate(ends))
        with sqlite3.connect(tmp_path / "xlbridge.sqlite3") as db:
            assert db.execute("SELECT COUNT(*), SUM(state = 'done') FROM jobs").fetchone() == (20, 20)
        assert peak.peak < 1.5 * GiB, peak.peak
        assert server.alive() and steps_of(tmp_path) == []
    finally:
        server.stop()


def test_a_full_queue_is_503_with_retry_after(tmp_path):
    tokens = make_clubs(tmp_path)
    server = Server(tmp_path, "--jobs", "1", "--queue", "1").start()
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            codes = []
            for _ in range(4):
                r = upload(client, "hearts", tokens["hearts"], PAIRS)
                codes.append(r.status_code)
                if r.status_code == 503:
                    assert int(r.headers["retry-after"]) > 0 and "busy" in r.json()["error"]
            assert codes[0] == 202 and 503 in codes, codes
            assert (tmp_path / "tmp").is_dir() and list((tmp_path / "tmp").iterdir()) == []
    finally:
        server.stop()


def test_killed_mid_job_and_started_again(tmp_path):
    tokens = make_clubs(tmp_path)
    server = Server(tmp_path, "--jobs", "1").start()
    with httpx.Client(base_url=server.url, timeout=60) as client:
        job = upload(client, "hearts", tokens["hearts"], PAIRS).json()["job"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not steps_of(tmp_path / "clubs"):
            time.sleep(0.05)
        assert steps_of(tmp_path / "clubs"), "no step started"
        time.sleep(0.5)
        state = client.get(f"/api/jobs/{job}", headers={"Authorization": f"Bearer {tokens['hearts']}"}).json()
        assert state["state"] == "running"
    server.kill()
    deadline = time.monotonic() + 20  # the steps are told (SIGTERM) and stop: nothing keeps working
    while time.monotonic() < deadline and steps_of(tmp_path / "clubs"):
        time.sleep(0.1)
    assert steps_of(tmp_path / "clubs") == []
    again = Server(tmp_path, "--jobs", "1").start()
    try:
        with httpx.Client(base_url=again.url, timeout=60) as client:
            end = wait_job(client, job, tokens["hearts"], timeout=240)
            assert end["state"] == "done", end
            assert client.get("/clubs/hearts/").status_code == 200
        with sqlite3.connect(tmp_path / "xlbridge.sqlite3") as db:
            assert db.execute("SELECT attempts FROM jobs WHERE id = ?", (job,)).fetchone() == (2,)
    finally:
        again.stop()


@pytest.fixture(scope="module")
def corpus(run_artefacts):
    books = {name: small_build(name, rows=400) for name in ("pairs.xlsx", "teams.xlsx")}
    return run_artefacts.make(f"hostile corpus {hostile_corpus.SEED}",
                              lambda out: hostile_corpus.build(out, books=books))


@pytest.mark.parametrize("half", [0, 1])
def test_hostile_uploads_refused_the_server_serving(tmp_path, corpus, half):
    tokens = make_clubs(tmp_path)
    server = Server(tmp_path, "--jobs", "2", "--max-upload", "2", "--timeout", "20", "--max-memory", "1024").start()
    # the named cases the commands refuse, and two damaged workbooks (the files the commands accept, and the
    # seeded mutants, are the commands' own tests: tests/formats/test_hostile_corpus.py)
    named = {case.name for case in hostile_corpus.CASES if case.exit == 2}
    files = sorted(p for p in Path(corpus).iterdir() if not p.is_symlink()   # (an upload is bytes, never a link)
                   and (p.name in named or p.name in ("wb-mutant-00.xlsx", "wb-mutant-01.xlsx")))[half::2]
    small = [p for p in files if p.stat().st_size <= 2 << 20]
    large = [p for p in files if p.stat().st_size > 2 << 20]
    assert len(small) >= 6 and large
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client, Peak(server) as peak:
            for path in large:  # past the limit: 413 while streaming, nothing kept
                assert upload(client, "hearts", tokens["hearts"], path).status_code == 413, path.name
            jobs = {}
            for path in small:
                r = upload(client, "hearts", tokens["hearts"], path)
                assert r.status_code == 202, (path.name, r.text)
                jobs[path.name] = r.json()["job"]
            for name, job in jobs.items():
                end = wait_job(client, job, tokens["hearts"], timeout=300)
                msg = end["message"]
                assert end["state"] in ("done", "failed"), name
                assert "\n" not in msg and "Traceback" not in msg and str(tmp_path) not in msg, (name, msg)
                if end["state"] == "failed":
                    assert msg.startswith("xlbridge "), (name, msg)
                assert client.get("/healthz").status_code == 200
            failed = sum(1 for j in jobs.values() if client.get(
                f"/api/jobs/{j}", headers={"Authorization": f"Bearer {tokens['hearts']}"}).json()["state"] == "failed")
            assert failed >= len(jobs) // 2
        assert peak.peak < 1.5 * GiB, peak.peak
        assert server.alive() and list((tmp_path / "tmp").iterdir()) == []
    finally:
        server.stop()


def test_an_orderly_stop_puts_the_running_job_back(tmp_path):
    tokens = make_clubs(tmp_path)
    server = Server(tmp_path, "--jobs", "1").start()
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            job = upload(client, "hearts", tokens["hearts"], PAIRS).json()["job"]
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not steps_of(tmp_path / "clubs"):
                time.sleep(0.05)
    finally:
        server.stop()  # SIGTERM: uvicorn's orderly stop, the steps killed
    assert steps_of(tmp_path / "clubs") == []
    with sqlite3.connect(tmp_path / "xlbridge.sqlite3") as db:
        assert db.execute("SELECT state, attempts FROM jobs WHERE id = ?", (job,)).fetchone() == ("queued", 0)
