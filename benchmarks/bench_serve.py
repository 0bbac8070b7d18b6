"""``xlbridge serve`` under uploads (issue 54): upload-to-site time of the pairs example, and 20 uploads at once.

    PYTHONPATH=. python benchmarks/bench_serve.py [--uploads 20] [--jobs N]

A real server (``python -m xlbridge serve`` on a free port, a fresh data folder) and real uploads of
``workbooks/examples/pairs.xlsx`` through ``POST /api/clubs/<club>/uploads`` (httpx):

1. one upload at a time, three times, each to a club of its own: seconds from the upload's first byte to the
   club's site switched (the job's ``site_at`` in the database; the server's clock) and to the job's end
   (recalculated book and members' copy written);
2. ``--uploads`` (20) uploads at once, to 5 clubs: all answered, none lost; wall time until every job ended;
   the server's processor time spent on them (its reaped children's, ``cutime + cstime``: the steps are its
   children) per upload, hence **uploads per second per core** = 1 / (processor seconds per upload); the peak
   resident memory of the server and every step together (``VmRSS`` summed, sampled every 0.1 s).

Goals (issue 54): upload to updated site within 3 s for the pairs example on a 2-core machine; 20 concurrent
uploads all answered, none lost, total memory under 1.5 GiB. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
PAIRS = ROOT / "workbooks" / "examples" / "pairs.xlsx"
TICK = os.sysconf("SC_CLK_TCK")


def serve(data: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "xlbridge", "serve", "--data", str(data), *args]


def children_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) / TICK  # cutime, cstime


def rss_of(data: Path, server: int) -> int:
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            mine = int(entry) == server or os.readlink(f"/proc/{entry}/cwd").startswith(str(data))
            if mine:
                for line in Path(f"/proc/{entry}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def wait(client: httpx.Client, job: int, token: str) -> dict:
    while True:
        state = client.get(f"/api/jobs/{job}", headers={"Authorization": f"Bearer {token}"}).json()
        if state["state"] in ("done", "failed"):
            return state
        time.sleep(0.05)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--uploads", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=None, help="the server's --jobs (default: its own, the cores)")
    opts = ap.parse_args()
    cores = len(os.sched_getaffinity(0))
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        clubs = [f"club-{k}" for k in range(8)]
        tokens = {c: subprocess.run(serve(data, "--add-club", c), capture_output=True, text=True,
                                    check=True).stdout.strip() for c in clubs}
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        extra = ["--jobs", str(opts.jobs)] if opts.jobs else []
        proc = subprocess.Popen(serve(data, "--port", str(port), "--queue", "1000", *extra),
                                stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(200):
                try:
                    if httpx.get(url + "/healthz").status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            body = PAIRS.read_bytes()
            rows = []
            with httpx.Client(base_url=url, timeout=600) as client:
                def up(club: str) -> int:
                    r = client.post(f"/api/clubs/{club}/uploads", headers={"Authorization": f"Bearer {tokens[club]}"},
                                    files={"file": ("pairs.xlsx", body)})
                    assert r.status_code == 202, r.text
                    return int(r.json()["job"])

                for club in clubs[:3]:
                    t0 = time.time()
                    job = up(club)
                    end = wait(client, job, tokens[club])
                    with sqlite3.connect(data / "xlbridge.sqlite3") as db:
                        site_at, finished = db.execute("SELECT site_at, finished FROM jobs WHERE id = ?",
                                                       (job,)).fetchone()
                    rows.append((club, end["state"], site_at - t0, finished - t0))
                cpu0 = children_cpu(proc.pid)
                peak, stop = 0, threading.Event()

                def sample() -> None:
                    nonlocal peak
                    while not stop.is_set():
                        peak = max(peak, rss_of(data, proc.pid))
                        time.sleep(0.1)

                sampler = threading.Thread(target=sample)
                sampler.start()
                t0 = time.time()
                targets = [clubs[3 + k % 5] for k in range(opts.uploads)]
                with concurrent.futures.ThreadPoolExecutor(opts.uploads) as pool:
                    jobs = list(pool.map(up, targets))
                ends = [wait(client, j, tokens[c]) for j, c in zip(jobs, targets)]
                wall = time.time() - t0
                stop.set()
                sampler.join()
                cpu = children_cpu(proc.pid) - cpu0
        finally:
            proc.terminate()
            proc.wait(30)
    print(f"machine: {cores} usable cores; load average before: {load:.1f}, after: {os.getloadavg()[0]:.1f}\n")
    print("| one upload of the pairs example | state | upload to site switched | upload to job done |")
    print("|---|---|---|---|")
    for club, state, site, done in rows:
        print(f"| {club} | {state} | {site:.2f} s | {done:.2f} s |")
    done = sum(1 for e in ends if e["state"] == "done")
    print(f"\n| {opts.uploads} uploads at once | |\n|---|---|")
    print(f"| answered 202 / done | {len(jobs)} / {done} |")
    print(f"| wall time until all ended | {wall:.1f} s |")
    print(f"| processor time per upload (the steps) | {cpu / len(jobs):.2f} s |")
    print(f"| uploads per second per core | {len(jobs) / cpu:.3f} |")
    print(f"| uploads per second (this machine, wall) | {len(jobs) / wall:.3f} |")
    print(f"| peak memory, server and steps together | {peak / 2**20:,.0f} MiB |")


if __name__ == "__main__":
    main()
