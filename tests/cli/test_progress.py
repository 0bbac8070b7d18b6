"""The progress bar of ``xlbridge recalc``: shown on a terminal, absent with --no-progress or when piped.

The command runs under a pseudo-terminal (120 columns; tqdm draws nothing on a 0-column terminal);
expected: the phases (checking, scanning each sheet, loading the engine, evaluating, writing, saving)
appear on the terminal, the bar is cleared at the end, and the summary line follows.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import openpyxl
import pytest

pty = pytest.importorskip("pty", reason="needs a POSIX pseudo-terminal")
fcntl = pytest.importorskip("fcntl")
termios = pytest.importorskip("termios")


def _book(path):
    wb = openpyxl.Workbook()
    wb.active.title = "Data"
    wb.active["A1"] = 2
    wb.active["A2"] = "=A1*21"
    wb.save(path)
    return path


def _run_on_terminal(argv, cwd):
    import struct

    pid, fd = pty.fork()
    if pid == 0:  # child: a 120-column terminal, then the command
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
            os.chdir(cwd)
            os.execv(sys.executable, [sys.executable, "-m", "xlbridge", *argv])
        finally:
            os._exit(127)
    out = b""
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")


def test_progress_bar_on_a_terminal(tmp_path):
    _book(tmp_path / "book.xlsx")
    code, out = _run_on_terminal(["recalc", "book.xlsx", "-o", "out.xlsx"], tmp_path)
    assert code == 0, out
    # (the sheets are read and evaluated in the engine's child process: one phase here)
    for phase in ("book.xlsx: ", "checking the file", "loading the formula engine",
                  "reading and evaluating the formulas", "writing Data", "saving out.xlsx"):
        assert phase in out, (phase, out)
    assert "\r" in out  # redrawn in place
    assert out.rstrip().splitlines()[-1].strip().startswith("out.xlsx: 1 formula cells in 1 sheets")


def test_no_progress_option_on_a_terminal(tmp_path):
    _book(tmp_path / "book.xlsx")
    code, out = _run_on_terminal(["recalc", "book.xlsx", "-o", "out.xlsx", "--no-progress"], tmp_path)
    assert code == 0, out
    assert "checking the file" not in out and "evaluating" not in out
    assert re.fullmatch(r"out\.xlsx: 1 formula cells in 1 sheets recalculated, 0 with errors, \d+\.\d s",
                        out.strip()), out


def test_no_progress_when_piped(tmp_path):
    _book(tmp_path / "book.xlsx")
    proc = subprocess.run([sys.executable, "-m", "xlbridge", "recalc", "book.xlsx", "-o", "out.xlsx"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert "checking the file" not in proc.stderr and "\r" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
