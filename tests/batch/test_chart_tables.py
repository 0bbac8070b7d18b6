"""``xlbridge recalc`` cuts a chart table's names to its rows in use and hides the legend entries of its empty
columns (xlbridge.batch.write.charts): LibreOffice 7.4 plots a cached ``""`` as 0 and names an empty series
"Column F", so the Lehman chart dropped to 0 after the last week and listed the slots of players not chosen.

The books here are small ones built with openpyxl: a chart table of 8 data rows whose formulas show a week
and a rating in the first ``$Z$1`` rows (typed) and ``""`` below, and names typed in Z2 and Z3. The expected
names follow from what is typed (weeks, names), not from a run of xlbridge.
"""

from __future__ import annotations

import zipfile
import xml.etree.ElementTree as ET

import openpyxl
import pytest
from recalc_helpers import recalc_here
from openpyxl.chart import LineChart
from openpyxl.chart.data_source import AxDataSource, NumDataSource, NumRef, StrRef
from openpyxl.chart.series import Series, SeriesLabel
from openpyxl.workbook.defined_name import DefinedName

from xlbridge.batch.write.charts import CHART_NAME, MAX_TABLE_CELLS, cut_chart_tables, read_xml, write_xml

C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
ROWS = 8  # data rows 5..12; the cell below the table: row 13


def build(path, weeks, first="Ann", second=None, third=None, last_row=4 + ROWS):
    """A Chart sheet: A the weeks (1..weeks), B the first player's ratings (every week, named by Z3), C the
    second's (only when named in Z2), D never a value (named D4 = ``third`` when given)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Chart"
    ws["Z1"], ws["Z2"], ws["Z3"] = weeks, second, first
    ws["A4"] = "Week"
    ws["B4"] = '=IF($Z$3="","",$Z$3)'
    ws["C4"] = '=IF($Z$2="","",$Z$2)'
    ws["D4"] = third if third else '=""'
    for r in range(5, 5 + ROWS):
        ws.cell(r, 1, '=IF(ROW()-4<=$Z$1,ROW()-4,"")')
        ws.cell(r, 2, '=IF(AND(ROW()-4<=$Z$1,$Z$3<>""),40+ROW(),"")')
        ws.cell(r, 3, '=IF(AND(ROW()-4<=$Z$1,$Z$2<>""),50,"")')
        ws.cell(r, 4, '=""')
    ws.defined_names[CHART_NAME] = DefinedName(CHART_NAME, attr_text=f"'Chart'!$A$4:$D${last_row}")
    for k, col in enumerate("ABCD"):
        ws.defined_names[f"{CHART_NAME}_{k}"] = DefinedName(f"{CHART_NAME}_{k}",
                                                            attr_text=f"'Chart'!${col}$5:${col}${last_row}")
    ch = LineChart()
    for k, col in enumerate("BCD", start=1):
        ch.series.append(Series(tx=SeriesLabel(strRef=StrRef(f"'Chart'!${col}$4")),
                                cat=AxDataSource(numRef=NumRef(f=f"'Chart'!{CHART_NAME}_0")),
                                val=NumDataSource(numRef=NumRef(f=f"'Chart'!{CHART_NAME}_{k}"))))
    ch.display_blanks = "zero"  # (as LibreOffice writes it back: recalc makes it "gap")
    ws.add_chart(ch, "F2")
    wb.save(path)
    return path


def recalc(src, out):
    report = recalc_here(src, out)
    assert report.errors == ()
    return out


def names(path):
    ws = openpyxl.load_workbook(path)["Chart"]
    return {k: ws.defined_names[f"{CHART_NAME}_{k}"].attr_text for k in range(4)}


def chart(path):
    with zipfile.ZipFile(path) as z:
        root = ET.fromstring(z.read(next(n for n in z.namelist() if n.startswith("xl/charts/chart"))))
    legend = root.find(f"{C}chart/{C}legend")
    deleted = {e.find(f"{C}idx").get("val") for e in legend.findall(f"{C}legendEntry")
               if e.find(f"{C}delete") is not None and e.find(f"{C}delete").get("val") == "1"}
    return deleted, root.find(f"{C}chart/{C}dispBlanksAs").get("val")


def test_names_cut_to_the_weeks_typed_and_the_empty_column_hidden(tmp_path):
    out = recalc(build(tmp_path / "b.xlsx", weeks=3, third="Dee"), tmp_path / "o.xlsx")
    # 3 weeks typed: rows 5..7; C neither named nor valued: the empty cell below the table (row 13), its
    # legend entry (series idx 1) deleted; D named but without a value: the cell below, its entry shown
    assert names(out) == {0: "'Chart'!$A$5:$A$7", 1: "'Chart'!$B$5:$B$7", 2: "'Chart'!$C$13", 3: "'Chart'!$D$13"}
    assert chart(out) == ({"1"}, "gap")
    # a second run changes nothing: the same bytes in every part
    again = recalc(out, tmp_path / "o2.xlsx")
    with zipfile.ZipFile(out) as a, zipfile.ZipFile(again) as b:
        assert [n for n in a.namelist() if a.read(n) != b.read(n)] == []


def test_the_names_grow_back_when_more_is_typed(tmp_path):
    out = recalc(build(tmp_path / "b.xlsx", weeks=3), tmp_path / "o.xlsx")
    wb = openpyxl.load_workbook(out)  # a member types two more weeks and a second player's name
    wb["Chart"]["Z1"], wb["Chart"]["Z2"] = 5, "Cal"
    wb.save(tmp_path / "more.xlsx")
    grown = recalc(tmp_path / "more.xlsx", tmp_path / "o2.xlsx")
    assert names(grown) == {0: "'Chart'!$A$5:$A$9", 1: "'Chart'!$B$5:$B$9", 2: "'Chart'!$C$5:$C$9",
                            3: "'Chart'!$D$13"}
    assert chart(grown) == ({"2"}, "gap")  # Cal's entry back; D (nothing, no name) hidden


def test_an_empty_table_reads_as_many_rows_as_weeks_for_excel(tmp_path):
    """An empty template: each name reaches as many rows down as column A holds weeks (OFFSET over COUNT), so
    that Excel plots the weeks as a member types them; LibreOffice draws an empty chart for such a name (seen
    in a PDF of the shipped template: no line at 0, no "Column B".."Column I" in the legend)."""
    out = recalc(build(tmp_path / "b.xlsx", weeks=0, first=None), tmp_path / "o.xlsx")
    weeks = f"'Chart'!$A$5:$A${4 + ROWS}"
    assert names(out) == {k: f"OFFSET('Chart'!${c}$5,0,0,MAX(1,COUNT({weeks})),1)" for k, c in enumerate("ABCD")}
    assert chart(out) == (set(), "gap")  # no entry hidden (blank cells shown as gaps, as the template says)


def test_the_values_only_copy_is_cut_too(tmp_path):
    out = tmp_path / "v.xlsx"
    report = recalc_here(build(tmp_path / "b.xlsx", weeks=2), out, values_only=True)
    assert report.errors == ()
    assert names(out)[0] == "'Chart'!$A$5:$A$6" and chart(out)[0] == {"1", "2"}


def test_a_table_over_the_bound_is_left_as_it_is(tmp_path):
    rows = MAX_TABLE_CELLS // 4 + 10
    src = build(tmp_path / "b.xlsx", weeks=3, last_row=rows)
    out = recalc(src, tmp_path / "o.xlsx")
    assert names(out)[0] == f"'Chart'!$A$5:$A${rows}"


def test_a_book_without_a_chart_table_is_not_touched(good, tmp_path):
    with zipfile.ZipFile(good) as zf:
        assert cut_chart_tables(zf, [("Travellers", "xl/worksheets/sheet1.xml")], {}) == {}


@pytest.mark.parametrize("xml", [
    # Excel's way: prefixes, a namespace declared on an inner element, mc:Ignorable naming prefixes
    b'<c:chartSpace xmlns:c="urn:c" xmlns:a="urn:a" xmlns:mc="urn:mc" mc:Ignorable="c14"><mc:AlternateContent>'
    b'<mc:Choice xmlns:c14="urn:c14" Requires="c14"><c14:style val="102"/></mc:Choice></mc:AlternateContent>'
    b'<c:chart><a:t xml:space="preserve"> 1 &lt; 2 &amp; "3" </a:t></c:chart></c:chartSpace>',
    # openpyxl's way: a default namespace, another declared on each element using it
    b'<chartSpace xmlns="urn:c"><chart><a:p xmlns:a="urn:a"><a:t>x</a:t></a:p><legend/></chart></chartSpace>',
])
def test_a_part_is_written_back_with_its_own_prefixes(xml):
    root, declared = read_xml(xml)
    text = write_xml(root, declared, declaration=False)
    assert ET.canonicalize(text) == ET.canonicalize(xml)  # the same document
    for prefix in (b"c14:style", b'mc:Ignorable="c14"', b"xmlns:c14="):
        assert prefix in text or prefix not in xml


def test_a_prefix_bound_twice_is_not_written():
    root, declared = read_xml(b'<a:x xmlns:a="urn:1"><a:y xmlns:a="urn:2"/></a:x>')
    assert write_xml(root, declared) is None
