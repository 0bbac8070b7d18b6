"""Issue 15: the shipped templates carry their cached values and say they are current.

ECMA-376 Part 1, 18.2.2: without ``fullCalcOnLoad`` and with the current engine's ``calcId``
(191029, Excel 2019/365), Excel opens the file without recalculating; LibreOffice and pandas read
the cached ``<v>`` values. The values being right is tested by the template recalc tests (against
the core and the seeds); here: they are present and current (recalculating changes no byte).
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest
from recalc_helpers import recalculated

from xlbridge.batch.read.bookparts import workbook_sheet_parts
from xlbridge.batch.read.sheetxml import scan_sheet

WORKBOOKS = Path(__file__).resolve().parents[2] / "workbooks"
NAMES = sorted(p.relative_to(WORKBOOKS).as_posix() for p in [*WORKBOOKS.glob("*.xlsx"), *WORKBOOKS.glob("examples/*.xlsx")])


def test_five_templates_shipped():
    five = ["handicap.xlsx", "instant.xlsx", "lehman.xlsx", "pairs.xlsx", "teams.xlsx"]
    assert NAMES == [f"examples/{n}" for n in five] + five  # empty templates and their filled examples


@pytest.mark.parametrize("name", NAMES)
def test_calculation_properties_current(name):
    data = zipfile.ZipFile(WORKBOOKS / name).read("xl/workbook.xml").decode()
    tags = re.findall(r"<calcPr\b[^>]*>", data)
    assert len(tags) == 1
    assert 'calcId="191029"' in tags[0] and "fullCalcOnLoad" not in tags[0]


@pytest.mark.parametrize("name", NAMES)
def test_every_formula_cell_has_a_cached_value(name):
    with zipfile.ZipFile(WORKBOOKS / name) as zf:
        for sheet, part in workbook_sheet_parts(zf):
            layout = scan_sheet(zf.read(part))
            for (r, c) in layout.formula_cells:
                children = [local for local, _s, _e in layout.cells[(r, c)].children]
                assert "v" in children, (name, sheet, r, c)


@pytest.mark.parametrize("name", NAMES)
def test_cached_values_are_current(name):
    out = recalculated(WORKBOOKS / name)  # (no cell errs; made once per run, shared with other tests)
    with zipfile.ZipFile(WORKBOOKS / name) as a, zipfile.ZipFile(out) as b:
        assert a.namelist() == b.namelist()
        changed = [n for n in a.namelist() if a.read(n) != b.read(n)]
    assert changed == []
