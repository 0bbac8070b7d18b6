"""A real ``xlbridge serve`` on a free port, for the tests of this folder (one per module where it can be:
the ``served`` fixture, imported by the test modules).

:class:`Server` starts ``python -m xlbridge serve --data DIR --port P`` in a process group of its own,
waits until ``/healthz`` answers, and stops it (or kills it, for the crash tests). Clubs ``hearts`` and
``spades`` are made with the command (``--add-club`` prints the token; ``--add-scorer`` reads the password
from stdin).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ROOT / "workbooks" / "examples" / "pairs.xlsx"
SESSION_PBN = ROOT / "workbooks" / "examples" / "club-session.pbn"
PASSWORDS = {"ann": "ann's long password", "bob": "bob's long password"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def command(data: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "xlbridge", "serve", "--data", str(data), *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def make_clubs(data: Path) -> dict[str, str]:
    """Clubs hearts (scorer ann) and spades (scorer bob); returns {club: token}."""
    tokens = {}
    for club, scorer in (("hearts", "ann"), ("spades", "bob")):
        made = command(data, "--add-club", club)
        assert made.returncode == 0, made.stderr
        lines = made.stdout.splitlines()
        assert len(lines) == 1 and lines[0].startswith("xlb_"), made.stdout  # one line: the token
        tokens[club] = lines[0]
        added = command(data, "--add-scorer", scorer, "--club", club, stdin=PASSWORDS[scorer] + "\n")
        assert added.returncode == 0, added.stderr
    return tokens


class Server:
    """``xlbridge serve`` in a process of its own."""

    def __init__(self, data: Path, *args: str) -> None:
        self.data, self.args = data, args
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self.log = data / "server.log"

    def start(self, timeout: float = 30) -> "Server":
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "xlbridge", "serve", "--data", str(self.data),
                                          "--port", str(self.port), *self.args], stdout=log, stderr=log,
                                         start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log.read_text()[-2000:]
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.url + "/healthz", timeout=2).status_code == 200:
                    return self
            time.sleep(0.1)
        raise AssertionError("the server did not start: " + self.log.read_text()[-2000:])

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL the server alone (its job steps are told by the kernel: PR_SET_PDEATHSIG)."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)  # nothing of the group survives a test

    def pids(self) -> list[int]:
        """The server and every process it started (its process group's members)."""
        assert self.proc is not None
        out = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError, ValueError, IndexError):
                    stat = Path(f"/proc/{entry}/stat").read_text()
                    fields = stat[stat.rindex(")") + 2:].split()
                    if int(fields[2]) == self.proc.pid:  # process group
                        out.append(int(entry))
        return out


def wait_job(client: httpx.Client, job: int, token: str, timeout: float = 90) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = client.get(f"/api/jobs/{job}", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        state = r.json()
        if state["state"] in ("done", "failed"):
            return state
        time.sleep(0.2)
    raise AssertionError(f"job {job} did not end: {state}")


def upload(client: httpx.Client, club: str, token: str | None, path: Path, name: str | None = None,
           content: bytes | None = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    data = path.read_bytes() if content is None else content
    return client.post(f"/api/clubs/{club}/uploads", headers=headers,
                       files={"file": (name or path.name, data, "application/octet-stream")})


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One server for the module: (server, {club: token}); 2 jobs at once, uploads up to 4 MiB."""
    data = tmp_path_factory.mktemp("serve")
    tokens = make_clubs(data)
    server = Server(data, "--jobs", "2", "--max-upload", "4", "--timeout", "60", "--max-memory", "1024").start()
    try:
        yield server, tokens
    finally:
        server.stop()
