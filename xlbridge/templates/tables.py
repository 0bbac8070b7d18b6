"""Excel tables (ListObjects) over the templates' input tables, so that Excel fills the result cells of a row
inserted into one (issue 38).

Neither Excel nor LibreOffice copies formulas into a row inserted into a plain range. Excel does in a table:
a column whose cells all hold one formula is a *calculated column*, and Excel writes its formula into every
row inserted into the table ("Use calculated columns in an Excel table", Microsoft Support). Each input
table declared by ``XLBRIDGE_CAPACITY`` (from its header row) becomes a table from its header row to its last row, with the result
columns in view right of it (``XLBRIDGE_RESULTS``, which hold one position-independent formula in every row:
:func:`xlbridge.templates.mirror.shows_row`) as calculated columns. No table style (the cells keep the
template's colours), no filter buttons shown. LibreOffice reads a table as a database range and does not
fill inserted rows; there, and for any copy without the table, ``xlbridge recalc`` writes the formulas
into the rows inserted (:mod:`xlbridge.batch.write.inserted`).

>>> from openpyxl import Workbook
>>> from openpyxl.workbook.defined_name import DefinedName
>>> wb = Workbook(); ws = wb.active; ws.title = "Scores"
>>> for c, h in enumerate(["Board", "Score", "Double"], 1): _ = ws.cell(4, c, h)
>>> for r in range(5, 8): _ = ws.cell(r, 3, "=2*INDEX($B$4:$B$7,ROW()-3)")
>>> ws.defined_names["XLBRIDGE_CAPACITY"] = DefinedName("XLBRIDGE_CAPACITY", attr_text="'Scores'!$A$4:$B$7")
>>> ws.defined_names["XLBRIDGE_RESULTS"] = DefinedName("XLBRIDGE_RESULTS", attr_text="'Scores'!$C$4:$C$7")
>>> excel_tables(wb)
>>> t = ws.tables["ScoresTable"]; t.ref, [c.name for c in t.tableColumns]
('A4:C7', ['Board', 'Score', 'Double'])
>>> t.tableColumns[2].calculatedColumnFormula.attr_text
'2*INDEX($B$4:$B$7,ROW()-3)'
"""

from __future__ import annotations

import re

from openpyxl import Workbook
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.table import Table, TableColumn, TableFormula, TableStyleInfo

from .mirror import results_columns, table_area

__all__ = ["excel_tables", "table_name"]


def table_name(sheet: str) -> str:
    """The table's name: the sheet's letters and digits, then ``Table`` (``Travellers`` -> ``TravellersTable``).

    >>> table_name("New Teams (2)")
    'NewTeams2Table'
    """
    return re.sub(r"[^A-Za-z0-9]", "", sheet) + "Table"


def excel_tables(wb: Workbook) -> None:
    """Make each input table of ``wb`` (a sheet's ``XLBRIDGE_CAPACITY`` area, its first row the header) an Excel
    table, the result columns beside it (``XLBRIDGE_RESULTS``, adjoining) its calculated columns."""
    for ws in wb.worksheets:
        area = table_area(ws)
        if area is None:
            continue
        r1, c1, r2, c2 = area
        formulas = {c: str(ws.cell(r1, c).value) for c in results_columns(ws)}
        last = c2
        while last + 1 in formulas:  # (the result columns adjoining the table's right edge)
            last += 1
        names = [ws.cell(r1 - 1, c).value for c in range(c1, last + 1)]
        if not all(isinstance(n, str) and n for n in names) or len({n.casefold() for n in names}) != len(names):
            raise ValueError(f"{ws.title}: a table's header cells must be distinct texts, not {names!r}")
        columns = [TableColumn(id=k + 1, name=n, calculatedColumnFormula=(
            TableFormula(attr_text=formulas[c].lstrip("=")) if c in formulas and c <= last else None))
            for k, (c, n) in enumerate(zip(range(c1, last + 1), names))]
        ref = f"{get_column_letter(c1)}{r1 - 1}:{get_column_letter(last)}{r2}"
        table = Table(displayName=table_name(ws.title), name=table_name(ws.title), ref=ref, tableColumns=columns,
                      tableStyleInfo=TableStyleInfo(showRowStripes=False, showColumnStripes=False,
                                                    showFirstColumn=False, showLastColumn=False))
        ws.add_table(table)
