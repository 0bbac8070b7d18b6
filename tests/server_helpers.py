"""Shared by the server-safety tests (tests/batch/): hand-built packages, subprocess runs, tripwires."""
from __future__ import annotations

import errno
import hashlib
import os
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


def sha(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def rebuild(src, dst, replace=None, add=None, drop=()):
    """Copy zip ``src`` to ``dst`` with members replaced, added (name -> bytes) or dropped."""
    replace, add = dict(replace or {}), dict(add or {})
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename in drop:
                continue
            zout.writestr(info.filename, replace.pop(info.filename, zin.read(info)))
        for name, data in {**replace, **add}.items():
            zout.writestr(name, data)
    return Path(dst)


def read_member(path, name) -> bytes:
    with zipfile.ZipFile(path) as z:
        return z.read(name)


def all_member_bytes(path) -> bytes:
    """Every member of the zip, decompressed and concatenated (to search an output for a value)."""
    with zipfile.ZipFile(path) as z:
        return b"".join(z.read(i) for i in z.infolist())


def add_external_link(src, dst, target: str, cells=None, index_rid="rId99"):
    """Give ``src`` an externalLink part 1 linking to ``target`` (as Excel writes it) and save as ``dst``.

    ``cells``: {sheet name: {ref: value}} cached in the part's sheetDataSet (Excel's copy of the linked
    values), or None for a link without cached data.
    """
    sheets = list((cells or {"S": {}}).keys())
    data = ""
    if cells is not None:
        blocks = []
        for sid, sheet in enumerate(sheets):
            rows = {}
            for ref, value in cells[sheet].items():
                rows.setdefault(int("".join(ch for ch in ref if ch.isdigit())), []).append((ref, value))
            xml = "".join(
                f'<row r="{r}">' + "".join(
                    f'<cell r="{ref}" t="str"><v>{v}</v></cell>' if isinstance(v, str)
                    else f'<cell r="{ref}"><v>{v}</v></cell>' for ref, v in items) + "</row>"
                for r, items in sorted(rows.items()))
            blocks.append(f'<sheetData sheetId="{sid}">{xml}</sheetData>')
        data = "<sheetDataSet>" + "".join(blocks) + "</sheetDataSet>"
    names = "".join(f'<sheetName val="{s}"/>' for s in sheets)
    link = (f'<externalLink xmlns="{MAIN}" xmlns:r="{REL}"><externalBook r:id="rId1">'
            f"<sheetNames>{names}</sheetNames>{data}</externalBook></externalLink>").encode()
    link_rels = (f'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                 f'<Relationship Id="rId1" Type="{REL}/externalLinkPath" Target="{target}" TargetMode="External"/>'
                 f"</Relationships>").encode()
    wb = read_member(src, "xl/workbook.xml").replace(
        b"</sheets>", f'</sheets><externalReferences><externalReference xmlns:r="{REL}" r:id="{index_rid}"/>'
                      f"</externalReferences>".encode())
    rels = read_member(src, "xl/_rels/workbook.xml.rels").replace(
        b"</Relationships>", f'<Relationship Id="{index_rid}" Type="{REL}/externalLink" '
                             f'Target="externalLinks/externalLink1.xml"/></Relationships>'.encode())
    ct = read_member(src, "[Content_Types].xml").replace(
        b"</Types>", b'<Override PartName="/xl/externalLinks/externalLink1.xml" ContentType="application/'
                     b'vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml"/></Types>')
    return rebuild(src, dst, replace={"xl/workbook.xml": wb, "xl/_rels/workbook.xml.rels": rels,
                                      "[Content_Types].xml": ct},
                   add={"xl/externalLinks/externalLink1.xml": link,
                        "xl/externalLinks/_rels/externalLink1.xml.rels": link_rels})


def run_cli(*args, cwd=None, env=None, timeout=300, **kw):
    """Run ``python -m xlbridge ARGS`` with this worktree first on the path."""
    full_env = dict(os.environ, PYTHONPATH=str(ROOT))
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "xlbridge", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=full_env, timeout=timeout, **kw)


class Tripwire:
    """FIFOs that record whether any process ever opens them for reading.

    Opening a FIFO for reading blocks until a writer appears; a writer opening with ``O_NONBLOCK``
    fails (ENXIO) while no reader has it open. A thread tries to open each FIFO for writing every few
    milliseconds: success means someone opened the file, and the reader is then released (it reads
    EOF), so a run that opens it cannot hang the test either.
    """

    def __init__(self, *paths):
        self.paths = [Path(p) for p in paths]
        for p in self.paths:
            os.mkfifo(p)
        self.opened: list = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self):
        while not self._stop.is_set():
            for p in self.paths:
                try:
                    fd = os.open(p, os.O_WRONLY | os.O_NONBLOCK)
                except OSError as exc:
                    if exc.errno != errno.ENXIO:
                        raise
                    continue
                self.opened.append(str(p))
                os.close(fd)
            time.sleep(0.005)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        time.sleep(0.05)
        self._stop.set()
        self._thread.join(5)
        return False


def children_of(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (Linux /proc), zombies left out."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry))
    return out


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def run_main(*argv, cwd):
    """``xlbridge ARGV`` run in this process (``xlbridge.cli.main``) from the folder ``cwd``: what a
    subprocess run gives (returncode, stdout, stderr), without starting an interpreter. For tests about
    what a command says and writes; a test of the process itself (signals, exit on a limit) runs it as a
    subprocess (:func:`run_cli`)."""
    import contextlib
    import io
    import types

    from xlbridge.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return types.SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


#: ``python -S -c LAUNCHER PEAK_FILE COMMAND...``: runs COMMAND as its child, writes that child's peak resident size
#: (KiB, from ``wait4``) to PEAK_FILE and exits with its exit code. The child is forked from this launcher (a few
#: MiB), so its peak is its own, not that of the test process the launcher was started from (Linux keeps in a
#: process's peak the size of the process it was forked from, across ``exec``).
PEAK_LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    try:
        os.execv(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as fh:
    fh.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status) % 256)
"""


def measured_cli(*args, cwd, tmpdir, timeout=120):
    """Run ``python -m xlbridge ARGS`` in a process of its own (from :data:`PEAK_LAUNCHER`); return (exit code,
    stdout, stderr, wall seconds, peak resident MiB of the command's process)."""
    import time

    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmpdir)}
    peak_file = Path(tmpdir) / "peak"
    command = [sys.executable, "-m", "xlbridge", *map(str, args)]
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-S", "-c", PEAK_LAUNCHER, str(peak_file), *command], cwd=cwd, env=env,
                          capture_output=True, timeout=timeout, start_new_session=True)
    seconds = time.monotonic() - start
    peak = int(peak_file.read_text())
    peak_file.unlink()
    return (proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"),
            seconds, peak / 1024)
