"""``xlbridge recalc`` exit codes 2 and 3 and the ``--json`` summary of a failed run; the input stays unchanged.

Exit codes (xlbridge/cli.py): 0 no error cell, 1 error cells, 2 refused or wrong command line, 3 the output
cannot be written; 0 and 1 below (test_cli_exit_codes_and_json).
"""

from __future__ import annotations

import hashlib
import json

import openpyxl
import pytest

from xlbridge.cli import main


@pytest.fixture
def book(tmp_path):
    wb = openpyxl.Workbook()
    wb.active["A1"] = 2
    wb.active["A2"] = "=A1*21"
    path = tmp_path / "ok.xlsx"
    wb.save(path)
    return path


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_unwritable_output_exits_3_with_json(book, tmp_path, capsys):
    before = _sha(book)
    out = tmp_path / "no-such-folder" / "out.xlsx"
    assert main(["recalc", str(book), "-o", str(out), "--json", "--no-progress"]) == 3
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert summary["ok"] is False and summary["source"] == str(book) and "write_error" in summary
    assert captured.err.startswith("xlbridge recalc: cannot write the output: ")
    assert len(captured.err.strip().splitlines()) == 1
    assert not out.exists() and _sha(book) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok.xlsx"]  # no temporary file left behind


def test_refused_file_json_summary(tmp_path, capsys):
    junk = tmp_path / "junk.xlsx"
    junk.write_bytes(b"PK\x03\x04 truncated")
    assert main(["recalc", str(junk), "--json", "--no-progress"]) == 2
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert summary == {"source": str(junk), "ok": False,
                       "refused": "junk.xlsx: damaged workbook: truncated or corrupt zip file (File is not a zip file)"}
    assert captured.err.strip() == "xlbridge recalc: " + summary["refused"]
    assert not (tmp_path / "junk-recalculated.xlsx").exists()


def test_output_equal_to_input_refused_without_in_place(book, capsys):
    before = _sha(book)
    same = book.parent / "." / book.name
    assert main(["recalc", str(book), "-o", str(same), "--no-progress"]) == 2
    assert "refusing to overwrite the input file; use --in-place" in capsys.readouterr().err
    assert _sha(book) == before


def test_in_place_with_another_output_refused(book, tmp_path, capsys):
    before = _sha(book)
    assert main(["recalc", str(book), "--in-place", "-o", str(tmp_path / "x.xlsx"), "--no-progress"]) == 2
    assert "give either an output file or in-place, not both" in capsys.readouterr().err
    assert _sha(book) == before and not (tmp_path / "x.xlsx").exists()


def test_wrong_command_line_exits_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["recalc"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main(["recalc", "a.xlsx", "--timeout", "soon"])
    assert exc.value.code == 2


def test_in_place_keeps_a_backup_of_the_old_bytes(book, capsys):
    before = book.read_bytes()
    assert main(["recalc", str(book), "--in-place", "--no-progress"]) == 0
    assert (book.parent / "ok.xlsx.bak").read_bytes() == before
    assert openpyxl.load_workbook(book, data_only=True).active["A2"].value == 42
    assert "(backup: " in capsys.readouterr().err


def test_a_write_failure_names_the_file_that_failed(book, capsys):
    """--in-place with a folder where the backup goes: the message names BOOK.xlsx.bak (what failed),
    never the private temporary file, and the book is untouched."""
    backup = book.parent / (book.name + ".bak")
    backup.mkdir()
    before = _sha(book)
    assert main(["recalc", str(book), "--in-place", "--no-progress"]) == 3
    err = capsys.readouterr().err
    assert err.strip() == f"xlbridge recalc: cannot write the output: Is a directory ({backup})"
    assert _sha(book) == before and sorted(p.name for p in book.parent.iterdir()) == sorted([book.name, backup.name])


def test_cli_exit_codes_and_json(tmp_path, capsys):
    wb = openpyxl.Workbook()
    wb.active["A1"] = 2
    wb.active["A2"] = "=A1*21"
    wb.save(tmp_path / "ok.xlsx")
    wb.active["A3"] = "=1/0"
    wb.save(tmp_path / "bad.xlsx")
    assert main(["recalc", str(tmp_path / "ok.xlsx"), "-o", str(tmp_path / "ok-out.xlsx"), "--json",
                 "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["formula_cells"] == 1
    assert openpyxl.load_workbook(tmp_path / "ok-out.xlsx", data_only=True).active["A2"].value == 42
    assert main(["recalc", str(tmp_path / "bad.xlsx"), "--no-progress"]) == 1
    assert "Sheet!A3: #DIV/0!" in capsys.readouterr().out
    assert (tmp_path / "bad-recalculated.xlsx").exists()
    assert main(["recalc", str(tmp_path / "ok.xlsx"), "--in-place", "--no-progress"]) == 0
    assert (tmp_path / "ok.xlsx.bak").exists()
    assert main(["recalc", str(tmp_path / "missing.xlsx"), "--no-progress"]) == 2
    assert "cannot read the file" in capsys.readouterr().err
