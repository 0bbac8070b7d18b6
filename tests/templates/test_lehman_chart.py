"""lehman.xlsx: the Chart sheet's chart plots only the weeks played and the players chosen, in every copy; the
Example sheet prints whole (nothing cut by the next column or the page's edge).

The chart reads sheet-scoped names (``XLBRIDGE_CHART_0`` the weeks, ``_1`` to ``_8`` the chosen players'
columns) that ``xlbridge recalc`` cuts to the weeks in use (xlbridge.batch.write.charts; tests/batch/
test_chart_tables.py). The expected ranges come from the example's own input: the weeks typed in its
Ledger and the names typed in Chart!K5:K12.
"""

from __future__ import annotations

import zipfile
import xml.etree.ElementTree as ET
from pathlib import Path

import openpyxl
from openpyxl.utils import get_column_letter
from recalc_helpers import recalculated

from xlbridge.batch.write import charts
from xlbridge.templates import lehman

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "workbooks" / "examples" / "lehman.xlsx"
TEMPLATE = ROOT / "workbooks" / "lehman.xlsx"
C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
LAST = 4 + lehman.W_COLS  # the table's last row (56); the cell below it: LAST + 1


def _names(path):
    ws = openpyxl.load_workbook(path, read_only=True)["Chart"]
    return {k: ws.defined_names[f"{lehman.CHART_NAME}_{k}"].attr_text for k in range(lehman.C_ROWS + 1)}


def _chart(path):
    """(each series' (name cell, values), the idx of the series whose legend entry is deleted)."""
    with zipfile.ZipFile(path) as z:
        root = ET.fromstring(z.read(next(n for n in z.namelist() if n.startswith("xl/charts/chart"))))
    series = [(s.find(f"{C}tx/{C}strRef/{C}f").text, s.find(f"{C}val/{C}numRef/{C}f").text)
              for s in root.iter(f"{C}ser")]
    legend = root.find(f"{C}chart/{C}legend")
    deleted = {e.find(f"{C}idx").get("val") for e in legend.findall(f"{C}legendEntry")
               if e.find(f"{C}delete") is not None and e.find(f"{C}delete").get("val") == "1"}
    return series, deleted


def test_the_chart_reads_the_names_not_the_cells():
    series, deleted = _chart(TEMPLATE)
    assert series == [(f"'Chart'!${get_column_letter(1 + k)}$4", f"'Chart'!{lehman.CHART_NAME}_{k}")
                      for k in range(1, lehman.C_ROWS + 1)]
    assert lehman.CHART_NAME == charts.CHART_NAME  # (the template and recalc agree on the name)
    # the empty template: as many rows as column A holds weeks (Excel with the add-in plots the weeks as a member
    # types them; LibreOffice draws an empty chart)
    assert _names(TEMPLATE) == {k: f"OFFSET('Chart'!${get_column_letter(1 + k)}$5,0,0,MAX(1,COUNT('Chart'!$A$5:"
                                   f"$A${LAST})),1)" for k in range(lehman.C_ROWS + 1)}
    assert deleted == set()


def test_recalculated_example_plots_only_the_weeks_and_players_in_use():
    src = openpyxl.load_workbook(EXAMPLE, read_only=True)
    weeks = {w for (w,) in src["Ledger"].iter_rows(min_row=5, max_row=504, max_col=1, values_only=True)} - {None}
    chosen = [k for (k,) in src["Chart"].iter_rows(min_row=5, max_row=4 + lehman.C_ROWS, min_col=11, max_col=11,
                                                   values_only=True)]
    assert len(weeks) == 10 and chosen[:4] == lehman.CHART_PLAYERS and not any(chosen[4:])
    last = 4 + len(weeks)
    out = recalculated(EXAMPLE)  # (made once per run, shared with the other tests of the example)
    want = {0: f"'Chart'!$A$5:$A${last}"}
    for k, name in enumerate(chosen, start=1):
        col = get_column_letter(1 + k)
        want[k] = f"'Chart'!${col}$5:${col}${last}" if name else f"'Chart'!${col}${LAST + 1}"
    assert _names(out) == want
    _series, deleted = _chart(out)
    assert deleted == {str(k - 1) for k, name in enumerate(chosen, start=1) if not name}
    # every series left in the legend has a name, every week it reads a number; the cells below hold nothing
    vals = list(openpyxl.load_workbook(out, read_only=True, data_only=True)["Chart"].iter_rows(
        min_row=4, max_row=LAST + 1, max_col=1 + lehman.C_ROWS, values_only=True))
    for k, name in enumerate(chosen, start=1):
        assert vals[0][k] == name if name else vals[0][k] in (None, "")
        if name:
            assert all(isinstance(row[k], float) for row in vals[1:last - 3])
    assert [row[0] for row in vals[1:last - 3]] == sorted(weeks)
    assert all(v is None for v in vals[-1])


def test_example_sheet_text_fits_its_columns():
    """Issue: "East a" and "LEHMAN_DELTA w" were cut on the printed page. A label beside a value fits its column
    (a character at most one width unit, a 14 pt title 14/11 of one); a text alone on its row fits the printed
    columns; nothing lies right of them (the legend is under the table)."""
    from xlbridge.templates import build_workbook

    ws = build_workbook("examples/lehman.xlsx")["Example"]  # (the same sheet in the template; test_build.py
    # checks the committed files against the build)
    area = ws.print_area[0] if isinstance(ws.print_area, list) else ws.print_area
    last_col = openpyxl.utils.cell.range_boundaries(area.split("!")[1].replace("$", ""))[2]
    widths = [ws.column_dimensions[get_column_letter(c)].width or 8.43 for c in range(1, last_col + 1)]
    for row in ws.iter_rows():
        for c in row:
            if c.value is None:
                continue
            assert c.column <= last_col, c.coordinate
            if c.column != 1 or not isinstance(c.value, str):
                continue
            size = (c.font.sz or 11) / 11
            beside = ws.cell(row=c.row, column=2).value is not None
            room = widths[0] if beside else sum(widths)
            assert len(c.value) * size <= room, (c.coordinate, c.value)


def test_the_empty_template_s_names_are_what_recalc_writes_for_an_empty_table():
    """The shipped empty template's chart names are the OFFSET text recalc gives an empty table
    (:func:`xlbridge.batch.write.charts.dynamic_text`): the template and recalc agree, so a book stays the same
    through any number of runs until a week is typed."""
    from openpyxl import load_workbook

    from xlbridge.batch.write.charts import dynamic_text

    ws = load_workbook(ROOT / "workbooks" / "lehman.xlsx")["Chart"]
    got = {k: ws.defined_names[f"{lehman.CHART_NAME}_{k}"].attr_text for k in range(lehman.C_ROWS + 1)}
    assert got == {k: dynamic_text("'Chart'", 1, 1 + k, 5, 56) for k in range(lehman.C_ROWS + 1)}
