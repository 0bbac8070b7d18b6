"""``xlbridge recalc A B FOLDER --jobs N``: each book in its own process, one summary, the worst exit code.

Expected values are worked by hand in the books (2*21 = 42, 1/0 is #DIV/0!); the per-book outputs must be
the bytes a single ``xlbridge recalc BOOK -o OUT`` writes.
"""

from __future__ import annotations

import hashlib
import os
import json

import openpyxl
import pytest

from xlbridge.cli import main


def _book(path, formula):
    wb = openpyxl.Workbook()
    wb.active["A1"] = 2
    wb.active["A2"] = formula
    wb.save(path)
    return path


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "club"
    d.mkdir()
    _book(d / "a.xlsx", "=A1*21")
    _book(d / "b.xlsm", "=A1/0")  # a cell error: exit 1 for this book
    (d / "c.xlsx").write_bytes(b"not a workbook")  # refused: exit 2
    (d / "~$a.xlsx").write_bytes(b"lock file of Excel")  # left out
    _book(d / "a-recalculated.xlsx", "=1")  # an earlier run's output: left out
    (d / "notes.txt").write_text("left out")
    sub = d / "sub"
    sub.mkdir()
    _book(sub / "d.xlsx", "=A1+40")
    return d


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_folder_with_jobs_gives_one_summary_and_the_worst_exit_code(folder, tmp_path, capsys):
    before = {p.name: _sha(p) for p in folder.iterdir() if p.is_file()}
    out = tmp_path / "out"
    assert main(["recalc", str(folder), "--jobs", "2", "-o", str(out), "--json", "--no-progress"]) == 2
    summary = json.loads(capsys.readouterr().out)
    assert [b["source"].rsplit("/", 1)[-1] for b in summary["books"]] == ["a.xlsx", "b.xlsm", "c.xlsx"]
    assert [b["exit"] for b in summary["books"]] == [0, 1, 2]
    assert summary["exit"] == 2 and summary["ok"] is False and summary["jobs"] == 2
    assert (summary["recalculated"], summary["with_cell_errors"], summary["refused"]) == (1, 1, 1)
    assert summary["books"][2]["refused"] == "xlbridge recalc: c.xlsx: not an Excel workbook (not a zip file)"
    assert summary["books"][1]["summary"]["errors"][0]["code"] == "#DIV/0!"
    assert sorted(p.name for p in out.iterdir()) == ["a.xlsx", "b.xlsm"]
    assert openpyxl.load_workbook(out / "a.xlsx", data_only=True).active["A2"].value == 42
    # the same bytes as a run of that book alone; the inputs untouched
    assert main(["recalc", str(folder / "a.xlsx"), "-o", str(tmp_path / "alone.xlsx"), "--no-progress"]) == 0
    assert _sha(tmp_path / "alone.xlsx") == _sha(out / "a.xlsx")
    assert before == {p.name: _sha(p) for p in folder.iterdir() if p.is_file()}


def test_files_and_recursive_folders_text_summary(folder, tmp_path, capsys):
    a = folder / "a.xlsx"
    assert main(["recalc", str(a), str(folder / "sub"), "--no-progress"]) == 0
    got = capsys.readouterr()
    assert got.out.splitlines()[-1].startswith("2 books: 2 recalculated, 0 with cell errors, 0 refused")
    assert openpyxl.load_workbook(folder / "sub" / "d-recalculated.xlsx", data_only=True).active["A2"].value == 42
    # --recursive reaches sub/d.xlsx; without it, only the folder's own books
    out = tmp_path / "r"
    assert main(["recalc", str(folder), "--recursive", "-o", str(out), "--jobs", "0", "--no-progress"]) == 2
    assert sorted(p.name for p in out.iterdir()) == ["a.xlsx", "b.xlsm", "d.xlsx"]
    text = capsys.readouterr().out
    assert "b.xlsm: Sheet!A2: #DIV/0!" in text and "exit code 2" in text


def test_two_books_with_one_name_into_one_folder_are_refused_before_running(folder, tmp_path, capsys):
    other = tmp_path / "other"
    other.mkdir()
    _book(other / "a.xlsx", "=1")
    out = tmp_path / "o"
    assert main(["recalc", str(folder / "a.xlsx"), str(other / "a.xlsx"), "-o", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err == "xlbridge recalc: two books named 'a.xlsx' would be written to one file of the output folder\n"
    assert not out.exists()


def test_an_empty_folder_and_a_bad_jobs_value_are_one_line(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["recalc", str(empty), "--no-progress"]) == 2
    assert capsys.readouterr().err == "xlbridge recalc: 'empty': no .xlsx or .xlsm workbook in this folder\n"
    with pytest.raises(SystemExit) as exc:
        main(["recalc", str(empty), "--jobs", "-1"])
    assert exc.value.code == 2
    assert "--jobs" in capsys.readouterr().err


def test_a_fifo_in_a_folder_is_refused_by_name_not_skipped(folder, tmp_path, capsys):
    """A named pipe with a book's name is listed and refused in the summary (opening it would hang)."""
    os.mkfifo(folder / "pipe.xlsx")
    (folder / "dir.xlsx").mkdir()  # a folder with a book's name: not a book, left out
    out = tmp_path / "f"
    assert main(["recalc", str(folder), "-o", str(out), "--json", "--no-progress"]) == 2
    summary = json.loads(capsys.readouterr().out)
    names = [b["source"].rsplit("/", 1)[-1] for b in summary["books"]]
    assert names == ["a.xlsx", "b.xlsm", "c.xlsx", "pipe.xlsx"]
    assert summary["books"][3]["refused"] == "xlbridge recalc: pipe.xlsx: refused: this is a FIFO (named pipe), not a workbook file"
    assert summary["refused"] == 2


def test_control_characters_in_a_file_name_are_escaped_in_every_line(tmp_path, capsys):
    """A server keeping upload names: a newline or a terminal escape in a name never splits a summary
    line nor reaches the terminal raw."""
    d = tmp_path / "odd"
    d.mkdir()
    _book(d / "ev\nil\x1b[31m.xlsx", "=A1/0")
    assert main(["recalc", str(d), "-o", str(tmp_path / "out"), "--no-progress"]) == 1
    got = capsys.readouterr()
    text = got.out + got.err
    assert "\x1b" not in text and "ev\\nil\\x1b[31m.xlsx: Sheet!A2: #DIV/0!" in text
    assert all(line.startswith(("ev\\n", "1 books", str(tmp_path))) for line in text.splitlines()), text


def test_c1_control_characters_are_escaped_too():
    """U+009B (CSI) starts a terminal escape sequence on its own, as ESC [ does: escaped like the C0 ones,
    in the command's lines and in every one-line message."""
    from xlbridge.batch.guard.limits import one_line
    from xlbridge.cli import _printable

    assert "\x9b" not in _printable("ev\x9b31mil.xlsx: refused") and "\\x9b" in _printable("ev\x9b31mil.xlsx")
    assert one_line("ev\x9b31mil\x85.xlsx") == "ev 31mil .xlsx"


def test_a_refused_book_is_named_by_its_path_in_the_text_summary(folder, tmp_path, capsys):
    """Two books named club.xlsx in two folders: the summary says which one was refused."""
    good, bad = tmp_path / "d1", tmp_path / "d3"
    good.mkdir(), bad.mkdir()
    _book(good / "club.xlsx", "=A1*21")
    (bad / "club.xlsx").write_bytes(b"not a workbook")
    assert main(["recalc", str(good / "club.xlsx"), str(bad), "--jobs", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"xlbridge recalc: {bad / 'club.xlsx'}: not an Excel workbook" in err
    assert f"xlbridge recalc: {good / 'club.xlsx'}" not in err


def test_each_book_is_given_its_share_of_the_cores(tmp_path, monkeypatch):
    """run_many tells every per-book process the cores it may use: those this process may run on
    (sched_getaffinity, as taskset or a container's cpuset restrict them) divided by the books run at
    once (the jobs, or fewer books), at least one. A stand-in for the interpreter prints what each was told."""
    from xlbridge.batch import cores, many

    fake = tmp_path / "python"
    fake.write_text('#!/bin/sh\nprintf \'{"cores": "%s", "parent": "%s"}\' "$XLBRIDGE_BOOK_CORES" '
                    '"$XLBRIDGE_JOBS_PARENT"\n')
    fake.chmod(0o755)
    monkeypatch.setattr(many.sys, "executable", str(fake))
    monkeypatch.setattr(cores.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3, 4})  # five usable cores
    # (books, jobs, each book's share): 5 // 1, 5 // 2, two books with more jobs still 5 // 2, 5 // 5, 5 // 6
    for books, jobs, share in ((2, 1, "5"), (2, 2, "2"), (2, 8, "2"), (6, 5, "1"), (6, 8, "1")):
        names = [f"b{i}.xlsx" for i in range(books)]
        runs = many.run_many(names, [None] * books, [], jobs=jobs)
        assert [run.summary for run in runs] == [{"cores": share, "parent": str(os.getpid())}] * books


def test_book_cores_reads_the_share_and_falls_back_to_the_usable_cores(monkeypatch):
    from xlbridge.batch import cores

    monkeypatch.setattr(cores.os, "sched_getaffinity", lambda pid: {0, 1, 2})
    for value, n in (("1", 1), ("2", 2), ("4096", 4096), ("", 3), ("0", 3), ("-1", 3), ("２", 3), ("x", 3),
                     (" 2", 3), ("4097", 3), ("9" * 5000, 3)):
        assert cores.book_cores({cores.CORES_ENV: value}) == n
    monkeypatch.delenv(cores.CORES_ENV, raising=False)
    assert cores.book_cores() == 3


def test_jobs_0_runs_one_book_per_usable_core(tmp_path, monkeypatch, capsys):
    from xlbridge.batch import cores

    monkeypatch.setattr(cores.os, "sched_getaffinity", lambda pid: {0, 1, 2})
    d = tmp_path / "club"
    d.mkdir()
    _book(d / "a.xlsx", "=A1*21")
    assert main(["recalc", str(d), "--jobs", "0", "-o", str(tmp_path / "out"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["jobs"] == 3
