"""The sheet parts patched on two cores (xlbridge.batch.evaluate.apart): the same bytes as patched one after the
other, the same refusal past the output's size limit, a failed process made good here, and, in the engine's
sandboxed process, the fork let through."""

from __future__ import annotations

import io
import mmap
import shutil
import zipfile
from pathlib import Path

import pytest

from xlbridge.batch.evaluate import apart, splice
from xlbridge.batch.read.sheetxml import scan_sheet
from xlbridge.core.errors import WorkbookLimitError

ROOT = Path(__file__).resolve().parents[2]
NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
ROWS = 6_000  # results on the smaller sheet: more than apart.APART_FROM


def _book() -> tuple[zipfile.ZipFile, dict, dict, dict]:
    """A book of two sheets: "Big" (the largest part: a formula cell a row, with a long text beside it) and
    "Calc" (one array formula over ROWS rows, its other cells not written: the patch inserts them)."""
    big_rows = "".join(f'<row r="{r}"><c r="A{r}" t="inlineStr"><is><t>{"x" * 40}</t></is></c>'
                       f'<c r="B{r}"><f>A{r}&amp;"!"</f><v></v></c></row>' for r in range(1, 2_001))
    big = f'<worksheet xmlns="{NS}"><sheetData>{big_rows}</sheetData></worksheet>'.encode()
    calc = (f'<worksheet xmlns="{NS}"><sheetData><row r="1"><c r="A1"><f t="array" ref="A1:A{ROWS}">F()</f>'
            f'<v>0</v></c></row></sheetData></worksheet>').encode()
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("xl/worksheets/sheet1.xml", big)
        zf.writestr("xl/worksheets/sheet2.xml", calc)
    parts = {"Big": "xl/worksheets/sheet1.xml", "Calc": "xl/worksheets/sheet2.xml"}
    layouts = {"Big": scan_sheet(big), "Calc": scan_sheet(calc)}
    values = {"Big": {(r, 2): f"{'x' * 40}!" for r in range(1, 2_001)},
              "Calc": {(r, 1): (r * 7 if r % 3 else f"<{r}> & co") for r in range(1, ROWS + 1)}}
    return zipfile.ZipFile(raw), parts, layouts, values


def _started(monkeypatch) -> list:
    """The processes start_apart forked (None where it could not), in a list."""
    started = []
    real = apart.start_apart

    def counting(*args, **kwargs):
        got = real(*args, **kwargs)
        started.append(got)
        return got

    monkeypatch.setattr(apart, "start_apart", counting)
    return started


def test_the_parts_patched_apart_are_the_parts_patched_in_turn(monkeypatch, tmp_path):
    zf, parts, layouts, values = _book()
    assert apart.sheets_apart(layouts, values, {"Big": 10 ** 6, "Calc": 10}, halves=True) == ["Calc"]
    started = _started(monkeypatch)
    in_turn = splice._patch_parts(zf, parts, layouts, values, None, None, False)
    both = splice._patch_parts(zf, parts, layouts, values, None, None, True)
    assert len(started) == 1 and started[0] is not None  # (forked once, in the second call only)
    assert both == in_turn and set(both) == set(parts.values())
    assert in_turn["xl/worksheets/sheet2.xml"].count(b"<c ") == ROWS  # (the inserted cells: the patch's work)
    # written into a file as they are made: the same bytes where the (start, length) say
    with open(tmp_path / "parts", "wb+") as fh:
        placed = splice._patch_parts(zf, parts, layouts, values, fh.fileno(), None, True)
        fh.seek(0)
        data = fh.read()
    assert {part: data[start:start + length] for part, (start, length) in placed.items()} == in_turn


def test_a_process_that_fails_is_made_good_here(monkeypatch):
    zf, parts, layouts, values = _book()
    in_turn = splice._patch_parts(zf, parts, layouts, values, None, None, False)

    def broken(*args, **kwargs):
        raise MemoryError  # (in the forked process only: this process patches with splice's own)

    monkeypatch.setattr(apart, "patch_sheet_pieces", broken)
    started = _started(monkeypatch)
    assert splice._patch_parts(zf, parts, layouts, values, None, None, True) == in_turn
    assert started[0] is not None and started[0].pid == 0  # (it ran, failed and was reaped)


@pytest.mark.parametrize("limit_at", ["Big", "Calc"])
def test_past_the_size_limit_the_same_sheet_is_named(limit_at):
    zf, parts, layouts, values = _book()
    sizes = {sheet: len(data) for sheet, data in
             zip(parts, splice._patch_parts(zf, parts, layouts, values, None, None, False).values())}
    limit = sizes["Big"] - 1 if limit_at == "Big" else sizes["Big"] + sizes["Calc"] - 1
    said = []
    for halves in (False, True):
        with pytest.raises(WorkbookLimitError) as exc:
            splice._patch_parts(zf, parts, layouts, values, None, limit, halves)
        said.append(str(exc.value))
    assert said[0] == said[1] and f"writing sheet {limit_at} " in said[0]


def test_too_little_to_gain_is_patched_here():
    _, _, layouts, values = _book()
    few = {"Big": values["Big"], "Calc": dict(list(values["Calc"].items())[: apart.APART_FROM - 1])}
    sizes = {"Big": 10 ** 6, "Calc": 10}
    assert apart.sheets_apart(layouts, few, sizes, halves=True) == []
    assert apart.sheets_apart({"Big": layouts["Big"]}, values, sizes, halves=True) == []
    assert apart.sheets_apart(layouts, values, {"Big": apart.APART_MAX, "Calc": apart.APART_MAX}, halves=True) == []


def test_the_engines_sandbox_lets_the_patching_process_fork(tmp_path, monkeypatch):
    """End to end on the shipped template (30,000 results on its hidden Travellers sheet): with two cores the
    engine's process forks the patching process (its file guard refuses any other fork) and writes the book
    it writes with one core, byte for byte."""
    from xlbridge.batch.recalc import recalc_workbook

    book = tmp_path / "pairs.xlsx"
    shutil.copyfile(ROOT / "workbooks" / "pairs.xlsx", book)
    forked = mmap.mmap(-1, 8)  # (shared with the engine's process, where the fork is made)
    real = apart.start_apart

    def counting(*args, **kwargs):
        got = real(*args, **kwargs)
        if got is not None:
            forked[0] = forked[0] + 1
        return got

    monkeypatch.setattr(apart, "start_apart", counting)
    outs = {}
    for cores in ("1", "2"):
        monkeypatch.setenv("XLBRIDGE_BOOK_CORES", cores)
        forked[0] = 0
        report = recalc_workbook(str(book), str(tmp_path / f"out{cores}.xlsx"), progress=False)
        assert report.ok, report.errors
        with zipfile.ZipFile(tmp_path / f"out{cores}.xlsx") as zf:
            outs[cores] = {name: zf.read(name) for name in zf.namelist()}
        assert forked[0] == (cores == "2")
    assert outs["1"] == outs["2"]
