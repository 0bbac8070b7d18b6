"""Issue 15: a recalculated workbook shows its values outside Excel-with-the-add-in; ``--values-only``.

Expected values come from the Laws (Law 77 scoring table: 4S making 10 tricks non-vulnerable is
+420, vulnerable 3NT making 9 tricks +600; Law 78B IMP scale: 420 points is 9 IMPs, 180 points
5 IMPs) and from ECMA-376 (calcPr attributes). LibreOffice runs with a fresh profile, i.e. its
default settings (Tools > Options > Formula > "Recalculation on file load": never for Excel 2007
and newer), where installed; .ci/run installs it.
"""

from __future__ import annotations

import csv
import hashlib
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl
import pytest
from recalc_helpers import recalc_here
from openpyxl.worksheet.formula import ArrayFormula

from xlbridge.batch.write.calcprops import CURRENT_CALC_ID, drop_formulas, drop_part, set_calc_properties

ROOT = Path(__file__).resolve().parents[2]
SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
needs_lo = pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (soffice) is not installed")

NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


def _book(path: Path) -> Path:
    """A committee-style sheet: scores typed in A, plain xlbridge formulas in B/C, an array formula in E."""
    wb = openpyxl.Workbook()  # openpyxl writes fullCalcOnLoad="1", as the shipped templates did
    ws = wb.active
    ws.title = "Scores"
    ws["A1"], ws["A2"] = 420, 180
    ws["B1"] = "=IMPS(A1)"
    ws["B2"] = "=IMPS(A2)"
    ws["C1"] = '=BRIDGE_SCORE("4S","N",10,"None")'
    ws["C2"] = '=BRIDGE_SCORE("3NT","S",9,"All")'
    ws["D1"] = "=A1+A2"
    ws["E1"] = ArrayFormula("E1:E2", "=IMPS(A1:A2)")
    wb.save(path)
    return path


def _calcpr(path: Path) -> dict:
    data = zipfile.ZipFile(path).read("xl/workbook.xml").decode()
    m = re.search(r"<(?:\w+:)?calcPr\b([^>]*)>", data)
    assert m is not None
    return dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))


def test_recalculated_copy_says_its_values_are_current(tmp_path):
    src = _book(tmp_path / "club.xlsx")
    assert _calcpr(src).get("fullCalcOnLoad") == "1"  # what the input says
    out = tmp_path / "out.xlsx"
    recalc_here(src, out)
    props = _calcpr(out)
    assert props.get("calcId") == CURRENT_CALC_ID == "191029"
    assert "fullCalcOnLoad" not in props
    # only the calcPr tag of the workbook part changed
    before = zipfile.ZipFile(src).read("xl/workbook.xml")
    after = zipfile.ZipFile(out).read("xl/workbook.xml")
    strip = re.compile(rb"<calcPr[^>]*>")
    assert strip.sub(b"", before) == strip.sub(b"", after)


def test_pandas_and_openpyxl_read_the_values(tmp_path):
    pd = pytest.importorskip("pandas")
    out = tmp_path / "out.xlsx"
    recalc_here(_book(tmp_path / "club.xlsx"), out)
    frame = pd.read_excel(out, sheet_name="Scores", header=None)
    assert frame.iloc[0, 1:5].tolist() == [9, 420, 600, 9]  # IMPS(420), 4S=, A1+A2, array IMPS(420)
    assert frame.iloc[1, [1, 2, 4]].tolist() == [5, 600, 5]  # IMPS(180), 3NT= vulnerable, array IMPS(180)


def test_values_only_copy_has_no_formulas(tmp_path):
    src = _book(tmp_path / "club.xlsx")
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    out = tmp_path / "mail.xlsx"
    report = recalc_here(src, out, values_only=True)
    assert report.ok
    assert hashlib.sha256(src.read_bytes()).hexdigest() == digest
    with zipfile.ZipFile(out) as zf:
        sheet = zf.read("xl/worksheets/sheet1.xml")
        assert b"<f" not in sheet and b"IMPS" not in sheet
        assert "xl/calcChain.xml" not in zf.namelist()
    ws = openpyxl.load_workbook(out)["Scores"]  # formulas gone: the plain workbook holds the numbers
    assert [[c.value for c in row] for row in ws["A1:E2"]] == [[420, 9, 420, 600, 9], [180, 5, 600, None, 5]]


def test_values_only_copy_drops_the_missing_formula_warning_and_keeps_other_formats(tmp_path):
    """The templates mark a result cell left without its formula in red (ISFORMULA, issue 38): in a copy
    without formulas that rule would mark every result, so the values-only copy drops it; the capacity
    note's format (COUNTA below the table) stays. Worked on a book with both rules written here."""
    from openpyxl.formatting.rule import FormulaRule
    from openpyxl.styles import PatternFill

    src = _book(tmp_path / "club.xlsx")
    wb = openpyxl.load_workbook(src)
    ws = wb["Scores"]
    red = PatternFill(fill_type="solid", start_color="FFFF0000", end_color="FFFF0000")
    ws.conditional_formatting.add("C1:C2", FormulaRule(formula=["NOT(_xlfn.ISFORMULA(C1))"], fill=red))
    ws.conditional_formatting.add("G1", FormulaRule(formula=["COUNTA($A$3:$E$1048576)>0"], fill=red))
    wb.save(src)
    out = tmp_path / "mail.xlsx"
    assert recalc_here(src, out, values_only=True).ok
    with zipfile.ZipFile(out) as zf:
        sheet = zf.read("xl/worksheets/sheet1.xml")
    assert b"ISFORMULA" not in sheet and b"COUNTA($A$3:$E$1048576)" in sheet
    assert [str(cf.sqref) for cf in openpyxl.load_workbook(out)["Scores"].conditional_formatting] == ["G1"]


def test_values_only_default_name_and_not_in_place(tmp_path):
    src = _book(tmp_path / "club.xlsx")
    run = subprocess.run([sys.executable, "-m", "xlbridge", "recalc", str(src), "--values-only", "--no-progress"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "club-values.xlsx").is_file()
    run = subprocess.run([sys.executable, "-m", "xlbridge", "recalc", str(src), "--values-only", "--in-place"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "values-only" in lines[0] and "Traceback" not in run.stderr
    assert not (tmp_path / "club.xlsx.bak").exists()


def test_values_only_drops_the_calculation_chain(tmp_path):
    src = _book(tmp_path / "club.xlsx")
    chained = tmp_path / "chained.xlsx"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(chained, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "xl/_rels/workbook.xml.rels":
                data = data.replace(b"</Relationships>", b'<Relationship Id="rIdC" Type="http://schemas.openxmlformats.org/'
                                    b'officeDocument/2006/relationships/calcChain" Target="calcChain.xml"/>'
                                    b"</Relationships>")
            if info.filename == "[Content_Types].xml":
                data = data.replace(b"</Types>", b'<Override PartName="/xl/calcChain.xml" ContentType="application/'
                                    b'vnd.openxmlformats-officedocument.spreadsheetml.calcChain+xml"/></Types>')
            zout.writestr(info, data)
        zout.writestr("xl/calcChain.xml", f'<calcChain xmlns="{NS}"><c r="B1" i="1"/></calcChain>')
    out = tmp_path / "mail.xlsx"
    recalc_here(chained, out, values_only=True)
    with zipfile.ZipFile(out) as zf:
        assert "xl/calcChain.xml" not in zf.namelist()
        assert b"calcChain" not in zf.read("xl/_rels/workbook.xml.rels")
        assert b"calcChain" not in zf.read("[Content_Types].xml")
    assert openpyxl.load_workbook(out)["Scores"]["B1"].value == 9


# -- the XML edits, on hand-written parts -------------------------------------------------------------------

def test_calc_properties_prefixed_and_other_attributes_kept():
    xml = (f'<x:workbook xmlns:x="{NS}"><x:sheets/><x:calcPr calcMode="manual" fullCalcOnLoad="true" '
           f'calcId="124519" note="a&gt;b"/></x:workbook>').encode()
    out = set_calc_properties(xml).decode()
    assert out == (f'<x:workbook xmlns:x="{NS}"><x:sheets/><x:calcPr calcId="191029" calcMode="manual" '
                   f'note="a&gt;b"/></x:workbook>')


def test_calc_properties_inserted_at_schema_position():
    xml = (f'<x:workbook xmlns:x="{NS}"><x:bookViews/><x:sheets><x:sheet name="A"/></x:sheets>'
           f'<x:definedNames><x:definedName name="n">A!$A$1</x:definedName></x:definedNames>'
           f'<x:oleSize ref="A1"/></x:workbook>').encode()
    out = set_calc_properties(xml).decode()
    assert '</x:definedNames><x:calcPr calcId="191029"/><x:oleSize' in out


def test_calc_properties_refuses_a_dtd():
    from xlbridge.core.errors import WorkbookError

    with pytest.raises(WorkbookError):
        set_calc_properties(b'<!DOCTYPE w [<!ENTITY e "x">]><workbook><sheets/></workbook>')


def test_drop_formulas_keeps_everything_else():
    xml = (b'<worksheet><sheetData><row r="1"><c r="A1" s="2"><f t="array" ref="A1:A2">F(B1:B2)</f><v>1</v></c>'
           b'<c r="B1"><v>7</v></c></row><row r="2"><c r="A2"><v>2</v></c></row></sheetData>'
           b'<mergeCells count="0"/></worksheet>')
    assert drop_formulas(xml) == xml.replace(b'<f t="array" ref="A1:A2">F(B1:B2)</f>', b"")


def test_drop_part_only_the_named_part():
    rels = (b'<Relationships><Relationship Id="r1" Target="worksheets/sheet1.xml"/>'
            b'<Relationship Id="r2" Target="/xl/calcChain.xml"/><Relationship Id="r3" Target="styles.xml"/>'
            b"</Relationships>")
    types = (b'<Types><Override PartName="/xl/workbook.xml"/><Override PartName="/xl/calcChain.xml"/></Types>')
    r, t = drop_part(rels, types, "xl/calcChain.xml")
    assert r == rels.replace(b'<Relationship Id="r2" Target="/xl/calcChain.xml"/>', b"")
    assert t == b'<Types><Override PartName="/xl/workbook.xml"/></Types>'


# -- LibreOffice with its default settings ------------------------------------------------------------------

def _libreoffice_csv(book: Path, libreoffice) -> list[list[str]]:
    """Open ``book`` in headless LibreOffice with its default settings (conftest.py's ``libreoffice``: a
    profile no test changes); the first sheet as CSV."""
    with open(libreoffice(book, "csv") / (book.stem + ".csv"), newline="", encoding="utf-8", errors="replace") as fh:
        return list(csv.reader(fh))


@needs_lo
def test_libreoffice_shows_the_cached_values(tmp_path, libreoffice):
    src = _book(tmp_path / "club.xlsx")
    before = _libreoffice_csv(src, libreoffice)
    assert before[0][1] == "#NAME?"  # the input forces a recalculation: LibreOffice knows no IMPS
    out = tmp_path / "out.xlsx"
    recalc_here(src, out)
    rows = _libreoffice_csv(out, libreoffice)
    assert rows[0][1:4] == ["9", "420", "600"] and rows[1][1:3] == ["5", "600"]
    # LibreOffice never takes an array formula's cached values from an .xlsx (its importer rebuilds
    # matrix cells without results: sc/source/filter/oox/formulabuffer.cxx, applyArrayFormulas)
    assert rows[0][4] == "#NAME?"


@needs_lo
def test_libreoffice_shows_every_value_of_the_values_only_copy(tmp_path, libreoffice):
    out = tmp_path / "mail.xlsx"
    recalc_here(_book(tmp_path / "club.xlsx"), out, values_only=True)
    rows = _libreoffice_csv(out, libreoffice)
    assert [r[:5] for r in rows[:2]] == [["420", "9", "420", "600", "9"], ["180", "5", "600", "", "5"]]
