"""All work bounded before it starts, limits named when hit, special files refused at once, one-line messages.

Expected values are the documented limits (docs/recalc.md, "Running it on a server") and Excel's own
specifications: 32,767 characters in a cell, 1,048,576 rows, 8,192 characters in a formula; numbers
beyond a double (about 1.8E+308) are ``#NUM!`` as in Excel.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from fractions import Fraction

import openpyxl
import pytest
from openpyxl.workbook.defined_name import DefinedName
from server_helpers import ROOT, Tripwire, rebuild, run_cli, sha

from xlbridge.cli import main
from xlbridge import WorkbookLimitError, WorkbookError
from xlbridge.batch.recalc import recalc_workbook
from xlbridge.batch.guard.safety import SafetyLimits, check_workbook, clip

NS = b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'


def _sheet(rows: int, cols: int, cell='<c r="{ref}"/>') -> bytes:
    from xlbridge.batch.cells import cell_ref

    body = "".join(f'<row r="{r}">' + "".join(cell.format(ref=cell_ref(r, c)) for c in range(1, cols + 1)) + "</row>"
                   for r in range(1, rows + 1))
    return b"<worksheet " + NS + b"><sheetData>" + body.encode() + b"</sheetData></worksheet>"


def _one_line(msg: str):
    assert "\n" not in msg and len(msg) < 700, msg
    assert "max_" not in msg and "Traceback" not in msg  # no Python names in what an Excel user reads


# ---------------------------------------------------------------------------------- counts while streaming


@pytest.mark.parametrize("limits, replace, match", [
    (SafetyLimits(max_cells=5), {"xl/worksheets/sheet1.xml": _sheet(2, 3)},
     r"more than 5 cells, the limit \(reached in sheet Travellers\)"),
    (SafetyLimits(max_rows=3), {"xl/worksheets/sheet1.xml": _sheet(4, 1)},
     r"more than 3 rows, the limit \(reached in sheet Travellers\)"),
    (SafetyLimits(max_shared_strings=2), {"xl/sharedStrings.xml": b"<sst " + NS + b">" + b"<si><t>x</t></si>" * 3
                                          + b"</sst>"},
     r"more than 2 shared strings, the limit \(reached in XML part xl/sharedStrings.xml\)"),
    (SafetyLimits(max_styles=3), {}, r"more than 3 style records, the limit \(reached in XML part xl/styles.xml\)"),
    (SafetyLimits(max_formula_length=10), {"xl/worksheets/sheet1.xml": _sheet(1, 2, '<c r="{ref}"><f>1+2+3+4+5+6</f></c>')},
     r"refused: sheet Travellers, cell 'A1': a formula longer than 10 characters, the limit"),
])
def test_streamed_counts_refuse_before_parsing(good, tmp_path, limits, replace, match):
    bad = rebuild(good, tmp_path / "bad.xlsx", replace=replace)
    with pytest.raises(WorkbookLimitError, match=match) as exc:
        check_workbook(bad, limits=limits)
    _one_line(str(exc.value))


def test_defined_names_count_and_length(good, tmp_path):
    wb = openpyxl.load_workbook(good)
    for i in range(4):
        wb.defined_names[f"N{i}"] = DefinedName(f"N{i}", attr_text="Travellers!$A$1")
    wb.defined_names["Long"] = DefinedName("Long", attr_text="+".join(["Travellers!$A$1"] * 700))  # 11,199 chars
    wb.save(tmp_path / "names.xlsx")
    with pytest.raises(WorkbookLimitError, match="more than 3 defined names"):
        check_workbook(tmp_path / "names.xlsx", limits=SafetyLimits(max_defined_names=3))
    with pytest.raises(WorkbookLimitError, match=r"defined name 'Long': a formula longer than 8,192 characters"):
        check_workbook(tmp_path / "names.xlsx")


def test_cli_max_cells(good, capsys, tmp_path):
    out = tmp_path / "out.xlsx"
    assert main(["recalc", str(good), "-o", str(out), "--max-cells", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("xlbridge recalc: good.xlsx: refused: more than 1 cells, the limit "
                           "(reached in sheet Travellers)")
    assert not out.exists()


RUN_CAPPED = r"""
import resource, sys
import xlbridge.cli, xlbridge.batch.recalc, xlbridge.batch.guard.safety
with open("/proc/self/status") as fh:
    vm = next(int(l.split()[1]) * 1024 for l in fh if l.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (vm + (256 << 20), vm + (256 << 20)))
sys.exit(xlbridge.cli.main(sys.argv[1:]))
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux /proc")
def test_a_million_empty_cells_refused_in_bounded_memory(good, tmp_path):
    """1.2 million ``<c>`` elements: refused from the streamed count, the parent capped at +256 MiB."""
    bad = rebuild(good, tmp_path / "cells.xlsx", replace={"xl/worksheets/sheet1.xml": _sheet(1200, 1000)})
    assert os.path.getsize(bad) < 8 << 20
    before = sha(bad)
    proc = subprocess.run([sys.executable, "-c", RUN_CAPPED, "recalc", str(bad), "-o", str(tmp_path / "o.xlsx"),
                           "--no-progress"], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.strip() == ("xlbridge recalc: cells.xlsx: refused: more than 1,000,000 cells, the limit "
                                   "(reached in sheet Travellers)")
    assert sha(bad) == before and not (tmp_path / "o.xlsx").exists()


# ---------------------------------------------------------------------------------- special files


@pytest.mark.parametrize("kind", ["fifo", "symlink-to-fifo", "device", "symlink-to-device", "folder"])
def test_special_input_refused_at_once(tmp_path, kind):
    src = tmp_path / "upload.xlsx"
    expected = {"fifo": "a FIFO (named pipe)", "symlink-to-fifo": "a symbolic link", "device": "a device",
                "symlink-to-device": "a symbolic link", "folder": "a folder"}[kind]  # (a link: refused, never followed)
    trip = None
    if kind == "fifo":
        trip = Tripwire(src)
    elif kind == "symlink-to-fifo":
        trip = Tripwire(tmp_path / "pipe")
        src.symlink_to(tmp_path / "pipe")
    elif kind == "device":
        src = "/dev/null"
    elif kind == "symlink-to-device":
        src.symlink_to("/dev/zero")
    else:
        src.mkdir()
    if trip is not None:
        trip.__enter__()
    try:
        proc = run_cli("recalc", src, "-o", tmp_path / "out.xlsx", "--no-progress", timeout=120)
    finally:
        if trip is not None:
            trip.__exit__(None, None, None)
    assert proc.returncode == 2, proc.stderr
    if kind == "folder":  # a folder is a batch of books (xlbridge recalc FOLDER, issue 14): none in it here
        assert proc.stderr.strip().endswith("'upload.xlsx': no .xlsx or .xlsm workbook in this folder"), proc.stderr
    else:
        assert proc.stderr.strip().endswith(f": refused: this is {expected}, not a workbook file"), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out.xlsx").exists()
    if trip is not None:
        assert trip.opened == []  # never opened, not even without blocking


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_special_output_refused_and_left_alone(good, tmp_path, capsys, kind):
    out = tmp_path / "out.xlsx"
    os.mkfifo(out) if kind == "fifo" else out.mkdir()
    assert main(["recalc", str(good), "-o", str(out), "--no-progress"]) == 2
    assert "exists and is " in capsys.readouterr().err
    assert out.is_fifo() if kind == "fifo" else out.is_dir()


# ---------------------------------------------------------------------------------- limit arguments


@pytest.mark.parametrize("flag, value", [
    ("--timeout", "nan"), ("--timeout", "0"), ("--timeout", "-1"), ("--timeout", "inf"), ("--timeout", "1e9"),
    ("--timeout", "soon"), ("--max-memory", "0"), ("--max-memory", "-1"), ("--max-memory", "2.5"),
    ("--max-memory", str(1 << 40)), ("--max-memory", "nan"), ("--max-cells", "0"),
    ("--timeout", "9" * 100_000),
])
def test_limit_arguments_validated_in_one_line(good, tmp_path, capsys, flag, value):
    with pytest.raises(SystemExit) as exc:
        main(["recalc", str(good), "-o", str(tmp_path / "o.xlsx"), flag, value])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and len(err) < 300, err
    assert err.startswith(f"xlbridge recalc: error: argument {flag}: must be a ")
    assert not (tmp_path / "o.xlsx").exists()


@pytest.mark.parametrize("field, value", [("max_memory", 0), ("max_memory", -1), ("max_seconds", float("nan")),
                                          ("max_seconds", float("inf")), ("max_seconds", -1), ("max_cells", 0),
                                          ("max_formula_length", 2.5), ("max_rows", True)])
def test_safety_limits_cannot_switch_a_limit_off(field, value):
    with pytest.raises(ValueError, match=f"SafetyLimits.{field} must be"):
        SafetyLimits(**{field: value})


# ---------------------------------------------------------------------------------- limits named where hit


def _vm_size():
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))


def _book(tmp_path, cells, name="book.xlsx"):
    wb = openpyxl.Workbook()
    wb.active.title = "Travellers"
    for ref, value in cells.items():
        wb.active[ref] = value
    wb.save(tmp_path / name)
    return tmp_path / name


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux /proc")
def test_memory_limit_in_a_custom_function_is_named_not_value(tmp_path):
    book = _book(tmp_path, {"A1": 3, "B2": "=HOG(A1)"})
    limits = SafetyLimits(max_memory=_vm_size() + (256 << 20))
    with pytest.raises(WorkbookLimitError, match=r"refused: memory limit of [0-9.]+ MiB reached in sheet Travellers, "
                                         r"cell B2 \(recalculation needs more memory than the limit"):
        recalc_workbook(book, tmp_path / "o.xlsx", functions={"HOG": lambda x: len(bytearray(8 << 30))},
                        limits=limits)
    assert not (tmp_path / "o.xlsx").exists()


def test_memory_error_caught_by_the_excel_layer_still_refuses_the_run(tmp_path):
    """The Excel layer turns any exception of a function into one CallError text
    (``xlbridge.excel.runtime.guarded``) but lets a MemoryError through: the run is refused with the
    memory limit named, the error never becomes a cell's text."""
    import dataclasses

    from xlbridge.excel.functions import FUNCTIONS
    from xlbridge.excel.runtime import guarded

    def hog(*args):
        raise MemoryError()

    decl = dataclasses.replace(next(f for f in FUNCTIONS if f.name == "IMPS"), name="HOG", adapter=hog)
    book = _book(tmp_path, {"A1": 3, "D4": "=HOG(A1)"})
    with pytest.raises(WorkbookLimitError, match="memory limit of [0-9.]+ MiB reached in sheet Travellers, cell D4"):
        recalc_workbook(book, tmp_path / "o.xlsx", functions={"HOG": lambda *a: guarded(decl, a)})


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux /proc")
def test_memory_limit_in_a_builtin_function_is_named_not_value(tmp_path):
    book = _book(tmp_path, {"A1": 2_000_000_000, "C3": '=LEN(REPT("xy", A1))'})
    with pytest.raises(WorkbookLimitError, match="memory limit of [0-9.]+ MiB reached in sheet Travellers, cell C3"):
        recalc_workbook(book, tmp_path / "o.xlsx", functions={},
                        limits=SafetyLimits(max_memory=_vm_size() + (256 << 20)))


def test_time_limit_is_named(tmp_path):
    import time

    book = _book(tmp_path, {"A1": 3, "C3": "=SLOW(A1)"})
    with pytest.raises(WorkbookLimitError, match=r"refused: time limit of 1 s reached in sheet Travellers, cell C3 "
                                         r"\(recalculation took longer than the limit of 1 s"):
        recalc_workbook(book, tmp_path / "o.xlsx", functions={"SLOW": lambda x: time.sleep(120)},
                        limits=SafetyLimits(max_seconds=1))


# ---------------------------------------------------------------------------------- whatever a function returns


class _Unprintable:
    def __str__(self):
        raise RuntimeError("no text")


class _UnprintableError(Exception):
    def __str__(self):
        raise RuntimeError("no text")


def _raise(exc):
    raise exc


FUNCS = {
    "BIGFRACTION": lambda x: Fraction(10 ** 400, 3),
    "BIGINT": lambda x: -(10 ** 400),
    "NOTEXT": lambda x: _Unprintable(),
    "NOTEXTERROR": lambda x: _raise(_UnprintableError()),
    "LONGTEXT": lambda x: "y" * 40_000,
    "LONGMESSAGE": lambda x: _raise(ValueError("1e" + "9" * 999_998)),
    "GENERATOR": lambda x: (i for i in range(3)),
    "NESTED": lambda x: [[[1, 2]]],
    "OKAY": lambda x: Fraction(1, 4),
}


def test_whatever_a_function_returns_or_raises_ends_in_its_cell(tmp_path, capsys):
    book = _book(tmp_path, {f"A{i}": f"={name}(1)" for i, name in enumerate(FUNCS, start=1)})
    import xlbridge.batch.recalc as rc

    report = rc.recalc_workbook(book, tmp_path / "o.xlsx", functions=FUNCS)
    errors = {e.cell: e for e in report.errors}
    assert errors["A1"].code == errors["A2"].code == "#NUM!"
    assert "beyond Excel's number range" in errors["A1"].message
    assert errors["A3"].code == errors["A4"].code == errors["A7"].code == errors["A8"].code == "#VALUE!"
    assert errors["A4"].message == "NOTEXTERROR: _UnprintableError"
    msg = errors["A6"].message
    assert msg.startswith("LONGMESSAGE: 1e999") and msg.endswith("… (1,000,000 characters)") and len(msg) < 400
    assert report.warnings == ("Travellers!A5: text of 40,000 characters clipped to Excel's limit of 32,767",)
    values = openpyxl.load_workbook(report.output, data_only=True).active
    assert values["A5"].value == "y" * 32_767 and values["A9"].value == 0.25
    assert "A5" not in errors and "A9" not in errors


def test_a_call_message_longer_than_a_cell_is_clipped_in_the_copy_and_reported_whole(tmp_path):
    # the copy holds what Excel can (32,767 characters); the report names the cell with the call's
    # message (one line, clipped for the report: its start and its length) and warns of the clipping
    from xlbridge.excel.cells import CallError, LimitCallError

    funcs = {"LONGCALL": lambda x: CallError("LONGCALL: " + "E" * 40_000),
             "LONGLIMIT": lambda x: LimitCallError("LONGLIMIT: " + "L" * 40_000)}
    book = _book(tmp_path, {"A1": "=LONGCALL(1)", "A2": "=LONGLIMIT(1)"})
    report = recalc_workbook(book, tmp_path / "o.xlsx", functions=funcs)
    errors = {e.cell: e for e in report.errors}
    assert sorted(errors) == ["A1", "A2"] and {e.code for e in report.errors} == {"message"}
    assert errors["A1"].message.startswith("LONGCALL: EEE") and errors["A1"].message.endswith("(40,010 characters)")
    assert errors["A2"].message.startswith("LONGLIMIT: LLL") and errors["A2"].message.endswith("(40,011 characters)")
    assert "hides" not in errors["A2"].message  # shown in its cell, not reported as a hidden refusal
    assert report.warnings == ("Travellers!A1: text of 40,010 characters clipped to Excel's limit of 32,767",
                               "Travellers!A2: text of 40,011 characters clipped to Excel's limit of 32,767")
    values = openpyxl.load_workbook(report.output, data_only=True).active
    assert values["A1"].value == ("LONGCALL: " + "E" * 40_000)[:32_767]


def test_a_percent_sign_in_a_sheet_name_is_named_when_the_engine_cannot_cope(tmp_path):
    # formulas 1.3.4 formats cell names with "%" ('[book]SHEET'!%s): a range on a sheet called "100%"
    # breaks it; the refusal names the sheet and what to do, instead of "an internal error"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "100%"
    ws["A1"], ws["B1"] = 1, "=SUM(A1:A10)"
    wb.save(tmp_path / "pct.xlsx")
    with pytest.raises(WorkbookError) as err:
        recalc_workbook(tmp_path / "pct.xlsx", tmp_path / "o.xlsx")
    assert str(err.value) == ("pct.xlsx: the formula engine cannot evaluate this workbook because a sheet name "
                              "holds a % sign (sheet 100%); rename the sheet (e.g. 'pct' for '%') and run again")
    assert not (tmp_path / "o.xlsx").exists()
    ws["B1"] = "=A1*2"  # what the engine can read on such a sheet is still recalculated
    wb.save(tmp_path / "pct2.xlsx")
    report = recalc_workbook(tmp_path / "pct2.xlsx", tmp_path / "o2.xlsx")
    assert report.ok and openpyxl.load_workbook(report.output, data_only=True)["100%"]["B1"].value == 2


def test_cli_prints_the_clip_warning(tmp_path, capsys, monkeypatch):
    book = _book(tmp_path, {"A1": '=REPT("ab", 20000)'})
    assert main(["recalc", str(book), "-o", str(tmp_path / "o.xlsx"), "--no-progress"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == ("xlbridge recalc: warning: Travellers!A1: text of 40,000 characters clipped to Excel's "
                      "limit of 32,767")


def test_unexpected_exception_is_one_line_exit_2(good, tmp_path, capsys, monkeypatch):
    import xlbridge.batch.recalc

    def broken(*args, **kwargs):
        raise RuntimeError("something\nunexpected " + "x" * 5000)

    monkeypatch.setattr(xlbridge.batch.recalc, "recalc_workbook", broken)
    assert main(["recalc", str(good), "-o", str(tmp_path / "o.xlsx"), "--json", "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err
    assert captured.err.startswith("xlbridge recalc: good.xlsx: refused: unexpected RuntimeError (something unexpected")
    assert len(captured.err) < 700


def test_clip_shows_length():
    assert clip("1e" + "9" * 999_998, 6) == "'1e9999…' (1,000,000 characters)"
    with pytest.raises(WorkbookError, match=r"bad cell reference 'A{40}…' \(100,000 characters\)"):
        from xlbridge.batch.cells import parse_ref

        parse_ref("A" * 100_000)


def test_checks_accept_streams_still(good):
    info = check_workbook(io.BytesIO(good.read_bytes()))
    assert info.sheets == (("Travellers", "xl/worksheets/sheet1.xml"),) and info.cells == 2
    with zipfile.ZipFile(good) as z:
        assert "xl/worksheets/sheet1.xml" in z.namelist()


def test_a_refused_call_hidden_by_the_formula_around_it_is_still_an_error(tmp_path):
    """=SUM(FAIRNESS(...)) over too much work: FAIRNESS's refusal is text, which SUM adds up as 0; the
    run must not pass that 0 off as a result (exit 1, the message named at the calling cell)."""
    from xlbridge.batch.recalc import recalc_workbook

    wb = openpyxl.Workbook()
    ws = wb.active
    for r in range(1, 51):
        ws.cell(r, 1, 50_000 - r)
        ws.cell(r, 2, 100_000 - r)
    ws["F1"] = "=SUM(FAIRNESS(A1:A50,B1:B50))"
    ws["G1"] = "=1+1"
    wb.save(tmp_path / "f.xlsx")
    report = recalc_workbook(str(tmp_path / "f.xlsx"), str(tmp_path / "out.xlsx"))
    assert not report.ok
    (err,) = {(e.sheet, e.cell, e.code) for e in report.errors}
    assert err == ("Sheet", "F1", "message")
    assert all("FAIRNESS" in e.message and "allowed in one call" in e.message for e in report.errors)


def test_a_hidden_refusal_is_named_at_the_cell_that_made_the_call(tmp_path):
    """An earlier cell calling the same function within the limits is not blamed: the error names the
    cell whose formula made the refused call (F5), found while the engine evaluates it."""
    from xlbridge.batch.recalc import recalc_workbook

    wb = openpyxl.Workbook()
    ws = wb.active
    for r in range(1, 51):
        ws.cell(r, 1, 50_000 - r)
        ws.cell(r, 2, 100_000 - r)
    ws["F1"] = "=SUM(FAIRNESS(3,10))"  # small: no refusal
    ws["F5"] = "=SUM(FAIRNESS(A1:A50,B1:B50))"
    wb.save(tmp_path / "f2.xlsx")
    report = recalc_workbook(str(tmp_path / "f2.xlsx"), str(tmp_path / "out2.xlsx"))
    assert not report.ok
    assert {(e.sheet, e.cell, e.code) for e in report.errors} == {("Sheet", "F5", "message")}


@pytest.mark.parametrize("merges, match", [
    ('<mergeCell ref="A2:XFD1048576"/>', "more than 1,000,000 cells (counting the cells merged ranges cover)"),
    ("".join(f'<mergeCell ref="A{r}:XFD{r}"/>' for r in range(2, 200)),  # 198 rows x 16,384 columns
     "more than 1,000,000 cells (counting the cells merged ranges cover)"),
    ('<mergeCell ref="A1:B"/>', "damaged workbook: sheet Travellers: merged range 'A1:B' is not a range of cells"),
])
def test_merged_ranges_count_against_the_cell_limit(good, tmp_path, capsys, merges, match):
    """A 5 KB sheet merging the whole grid makes the reader build an object per covered cell
    (17 billion): counted against the limit before anything reads it, refused at once."""
    sheet = ('<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
             '<row r="1"><c r="A1"><v>2</v></c></row></sheetData>'
             f'<mergeCells count="1">{merges}</mergeCells></worksheet>').encode()
    bad = rebuild(good, tmp_path / "merged.xlsx", replace={"xl/worksheets/sheet1.xml": sheet})
    before = sha(bad)
    assert main(["recalc", str(bad), "-o", str(tmp_path / "o.xlsx"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert match in err and len(err.strip().splitlines()) == 1, err
    assert sha(bad) == before and not (tmp_path / "o.xlsx").exists()
