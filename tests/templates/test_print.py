"""Every template prints as a member would receive it: LibreOffice prints the values-only copy to a
few pages (not hundreds of blank ones), one page wide, with the footer, and without error values.

Runs LibreOffice (`soffice`) and poppler (`pdftotext`, `pdftoppm`), which .ci/run installs.
Expected values are the pairs example's hand-checkable content (names typed in the template, the
sheet names) and bounds a reader would accept, not output of xlbridge kept from an earlier run.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import openpyxl
import pytest
from recalc_helpers import cells, loaded

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not (shutil.which("soffice") and shutil.which("pdftotext") and shutil.which("pdftoppm")),
                                reason="needs LibreOffice and poppler-utils (.ci/run installs them)")

NAMES = ["pairs.xlsx", "teams.xlsx", "handicap.xlsx", "lehman.xlsx", "instant.xlsx"]


@pytest.fixture(scope="module")
def examples_printed(printed):
    """Each example's pages (conftest.py's ``printed``: once per run, shared with the other print tests)."""
    return {name: printed(ROOT / "workbooks" / "examples" / name)[1] for name in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_a_few_pages_each_with_its_footer(examples_printed, name):
    pages = examples_printed[name]
    sheets = [ws.title for ws in openpyxl.load_workbook(ROOT / "workbooks" / "examples" / name, read_only=True).worksheets]
    assert 2 <= len(pages) <= 15, len(pages)  # the 10,000-row tables print their rows in use only
    for i, text in enumerate(pages, start=1):
        footer = text.rstrip().splitlines()[-1]
        assert f"Page {i} of {len(pages)}" in footer and Path(name).stem + "-values.xlsx" in footer
        assert any(s in footer for s in sheets)
        if " Instructions " not in footer:  # (the instructions explain what #NAME? means)
            assert "#NAME?" not in text and "Err:" not in text and "#VALUE!" not in text


def test_pairs_ranking_page_shows_the_names_and_percentages(examples_printed):
    (page,) = [t for t in examples_printed["pairs.xlsx"] if " Ranking " in t.rstrip().splitlines()[-1]]
    for names in ("A. Adams & B. Brown", "M. Moore & N. Nash", "W. Ward & Y. Young"):
        assert names in page
    assert page.count("NS") >= 6 and page.count("EW") >= 6


def test_template_page_setup():
    wb = loaded(ROOT / "workbooks" / "examples" / "pairs.xlsx")  # (once a process, shared: read only)
    ws = wb["Travellers"]
    assert ws.page_setup.orientation == "landscape" and int(ws.page_setup.paperSize) == 9  # A4
    assert 10 <= int(ws.page_setup.scale) <= 100
    assert ws.print_title_rows == "$4:$4"
    assert ws.oddFooter.right.text == "Page &P of &N" and ws.oddFooter.left.text == "&F"
    assert ws.defined_names["XLBRIDGE_PRINT"].attr_text.endswith("$10004")


@pytest.mark.parametrize("folder", ["", "examples/"])
def test_every_visible_sheet_prints_at_60_percent_or_more_and_the_helper_sheet_not_at_all(folder):
    """Issue 40: nothing below about 60 % (legible on A4); a sheet wider than a page at 60 % spans pages
    across, repeating its first column; xlwings.conf is hidden (nothing to print); each chart inside the
    printed area."""
    from openpyxl.utils.cell import range_boundaries

    for name in NAMES:
        wb = loaded(ROOT / "workbooks" / (folder + name))  # (once a process, shared: read only)
        assert wb["xlwings.conf"].sheet_state == "hidden"
        for ws in wb.worksheets:
            if ws.sheet_state != "visible":
                continue
            assert 60 <= int(ws.page_setup.scale) <= 100, (name, ws.title, ws.page_setup.scale)
            if int(ws.page_setup.scale) == 60:
                assert ws.print_title_cols == "$A:$A", (name, ws.title)
            area = ws.print_area[0] if isinstance(ws.print_area, list) else ws.print_area
            c1, r1, c2, r2 = range_boundaries(area.split("!")[1].replace("$", ""))
            for chart in ws._charts:
                anchor = chart.anchor._from
                assert c1 - 1 <= anchor.col < c2 and r1 - 1 <= anchor.row < r2, (name, ws.title)


@pytest.mark.parametrize("name", NAMES)
def test_no_page_holds_only_what_every_page_repeats(examples_printed, name):
    """Issue 40: no blank or empty pages. A page whose text, without its footer, is only what a printed sheet
    repeats on every page (its title rows 1 to 4, the first column), the colour legend and a word or two is a
    page a member would throw away: a table's empty right half, a legend pushed onto a page of its own."""
    book = cells(ROOT / "workbooks" / "examples" / name, data_only=True)  # (read-only, once a process)
    for i, text in enumerate(examples_printed[name], start=1):
        lines = text.rstrip().splitlines()
        title = next(t for t in book if f" {t} " in f" {lines[-1]} ")
        if title == "Instructions":
            continue
        # the title rows 1 to 4 and the first column
        repeated = {str(v) for (r, c), v in book[title].items() if r <= 4 or c == 1}
        repeated |= {"Legend", "Input: type or paste here", "Computed by xlbridge: do not type here"}
        words = {w for v in repeated for w in v.split()}
        rest = [w for line in lines[:-1] for w in line.split() if w not in words]
        assert len(rest) >= 3, (name, i, title, rest)
