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
from openpyxl.formula.translate import Translator
from openpyxl.formatting.formatting import ConditionalFormattingList
from openpyxl.utils import get_column_letter
from openpyxl.utils.cell import range_boundaries
from openpyxl.worksheet.table import Table, TableColumn, TableFormula, TableStyleInfo

from .mirror import results_columns, table_area

__all__ = ["excel_tables", "inputs_from_header", "table_name"]


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


def _from_header(ref: str, first: int, c1: int, c2: int) -> str | None:
    """The block ``ref`` (``A5:B5004``) from the header row ``first - 1`` when it starts at the table's first row
    ``first`` inside the table's columns ``c1`` to ``c2``; None otherwise."""
    bc1, br1, bc2, br2 = range_boundaries(ref)
    if br1 != first or bc1 is None or bc2 is None or bc1 < c1 or bc2 > c2:
        return None
    return f"{get_column_letter(bc1)}{first - 1}:{get_column_letter(bc2)}{br2}"


def inputs_from_header(wb: Workbook) -> None:
    """Start each input table's data validations and conditional formats at its header row, so that a row inserted
    directly below the header gets them (issue 52): LibreOffice gives an inserted row the attributes of the row above
    it (the header's) and grows a range only when the row is inserted inside it, as it grows the table's formulas'
    ranges, which start at the header (:func:`xlbridge.templates.mirror.mirror_arrays`).

    A validation over the header cell checks only what is typed there: the header's text stays, and its input
    message explains the column (the member who selects the header reads what to type below it). A conditional
    format's formula, written for the table's first row, is moved up one row (its relative references, as Excel
    and LibreOffice read a rule from the range's first cell) and holds only below the header, whose row it names
    absolutely (``$A$4`` stays the header's whatever is inserted below it): the header itself is never red.

    >>> from openpyxl.formatting.rule import FormulaRule
    >>> from openpyxl.workbook.defined_name import DefinedName
    >>> from openpyxl.worksheet.datavalidation import DataValidation
    >>> wb = Workbook(); ws = wb.active; ws.title = "T"
    >>> ws.defined_names["XLBRIDGE_CAPACITY"] = DefinedName("XLBRIDGE_CAPACITY", attr_text="'T'!$A$4:$C$9")
    >>> dv = DataValidation(type="whole", operator="between", formula1="1", formula2="9"); dv.add("A5:B9")
    >>> ws.add_data_validation(dv); ws.conditional_formatting.add("C5:C9", FormulaRule(formula=['$C5>$A5']))
    >>> inputs_from_header(wb)
    >>> str(dv.sqref), [(str(cf.sqref), cf.rules[0].formula) for cf in ws.conditional_formatting]
    ('A4:B9', [('C4:C9', ['AND(ROW(C4)>ROW($A$4),$C4>$A4)'])])
    """
    from .mirror import table_area

    for ws in wb.worksheets:
        area = table_area(ws)
        if area is None:
            continue
        first, c1, _, c2 = area
        header = f"${get_column_letter(c1)}${first - 1}"
        for dv in ws.data_validations.dataValidation:
            refs = [_from_header(r.coord, first, c1, c2) or r.coord for r in dv.sqref.ranges]
            dv.sqref = " ".join(refs)
        moved = ConditionalFormattingList()
        moved.max_priority = ws.conditional_formatting.max_priority
        for cf in ws.conditional_formatting:
            refs = [str(r.coord) for r in cf.sqref.ranges]
            up = [_from_header(r, first, c1, c2) for r in refs]
            if len(refs) != 1 or up[0] is None:
                for rule in cf.rules:
                    moved.add(str(cf.sqref), rule)
                continue
            top = up[0].split(":")[0]
            for rule in cf.rules:
                rule.formula = [f"AND(ROW({top})>ROW({header}),"
                                + Translator(f"={f}", origin=refs[0].split(":")[0]).translate_formula(top)[1:] + ")"
                                for f in rule.formula]
                moved.add(up[0], rule)
        ws.conditional_formatting = moved
