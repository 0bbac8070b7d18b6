"""Issue 52: the values-only copy (``xlbridge recalc --values-only``) is the members' handout: it opens on the
results (Ranking, Standings, ...), hides the scorer's Instructions and the worked examples, keeps no prompt of a
cell to type into, no colour legend and no capacity note, and LibreOffice prints it so: the results first.

The pages are the shared ``printed(book)`` fixture's (LibreOffice prints the values-only copy to PDF).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import openpyxl
import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not (shutil.which("soffice") and shutil.which("pdftotext")),
                                reason="needs LibreOffice and poppler-utils (.ci/run installs them)")

# each example: the sheets of its handout in order (the results first), and its sheets for the scorer
HANDOUT = {
    "pairs.xlsx": (["Ranking", "Travellers", "Pairs"], ["Instructions", "Neuberg"]),
    "teams.xlsx": (["Standings", "Matches", "Boards", "Teams"], ["Instructions", "Swiss"]),
    "handicap.xlsx": (["Handicaps", "Results", "NewTeams", "Fairness"], ["Instructions"]),
    "lehman.xlsx": (["Ledger", "History", "Chart"], ["Instructions", "Example"]),
    "instant.xlsx": (["Results", "History", "Chart"], ["Instructions"]),
}
# what only the scorer reads: the Instructions' first common line, the colour legend, the capacity note
SCORER_TEXT = ("Yellow cells are for typing", "Input: type or paste here", "Computed by xlbridge: do not type here",
               "Capacity: rows")


def _footer_sheet(page: str, sheets: list[str]) -> str:
    footer = page.rstrip().splitlines()[-1]
    found = [s for s in sheets if f" {s} " in f" {footer} "]
    assert found, footer
    return found[0]


@pytest.mark.parametrize("name", sorted(HANDOUT))
def test_the_handout_prints_the_results_first_and_nothing_for_the_scorer(printed, name):
    shown, scorer = HANDOUT[name]
    pdf, pages = printed(ROOT / "workbooks" / "examples" / name)
    printed_sheets = [_footer_sheet(p, shown + scorer) for p in pages]
    assert printed_sheets[0] == shown[0], printed_sheets
    assert not set(printed_sheets) & set(scorer), printed_sheets
    assert sorted(set(printed_sheets), key=printed_sheets.index) == [s for s in shown if s in printed_sheets]
    for page in pages:
        assert not [t for t in SCORER_TEXT if t in page], page[:300]

    wb = openpyxl.load_workbook(pdf.parent / (pdf.stem + ".xlsx"))  # the values-only copy printed
    assert wb.active.title == shown[0] and wb.sheetnames[:len(shown)] == shown
    assert [ws.title for ws in wb.worksheets if ws.sheet_state == "visible"] == shown
    assert [ws.title for ws in wb.worksheets if ws.sheet_view.tabSelected] == [shown[0]]
    assert not any(ws.data_validations.dataValidation for ws in wb.worksheets)  # no prompt to type anything
