"""Results that every spreadsheet program shows: array formulas on hidden sheets, plain references in view.

LibreOffice never takes an array formula's cached values from an .xlsx file: its importer rebuilds
the matrix cells without results and computes them again (sc/source/filter/oox/formulabuffer.cxx,
``applyArrayFormulas``), so without the add-in every xlbridge array result shows ``#NAME?``. A plain
formula keeps its cached value when the file says its values are current (no ``fullCalcOnLoad``, a
current ``calcId``), whatever it refers to. So every array formula of a template moves to the same
address of a hidden sheet ``<sheet> (calc)``, and each cell of its range in view becomes a plain
reference to it (:func:`shows`: ``='<sheet> (calc)'!H5``, blank for ``#NAME?``): Excel with the add-in still recalculates on every change (the
reference follows the array), LibreOffice, Excel without the add-in, Google Sheets and pandas show
the cached values. The formula moved keeps its meaning: a reference without a sheet gets the name
of the sheet it was written on, and a reference inside a moved array's range (on any sheet) reads
the hidden sheet itself, so no computation ever goes through the cells in view.

>>> from openpyxl import Workbook
>>> from openpyxl.worksheet.formula import ArrayFormula
>>> wb = Workbook(); ws = wb.active; ws.title = "Scores"
>>> ws["B1"] = ArrayFormula("B1:B2", "=IMPS(A1:A2)")
>>> ws["C1"] = ArrayFormula("C1:C2", "=B1:B2*2")
>>> ws["D1"] = "=SUM(B1:B2)"
>>> mirror_arrays(wb)
>>> wb.sheetnames, wb["Scores (calc)"].sheet_state
(['Scores', 'Scores (calc)'], 'hidden')
>>> ws["C2"].value == shows("'Scores (calc)'!C2"), ws["D1"].value
(True, "=SUM('Scores (calc)'!B1:B2)")
>>> calc = wb["Scores (calc)"]
>>> calc["B1"].value.ref, calc["B1"].value.text, calc["C1"].value.text
('B1:B2', "=IMPS('Scores'!A1:A2)", "='Scores (calc)'!B1:B2*2")
"""

from __future__ import annotations

import re

from openpyxl import Workbook
from openpyxl.formula.tokenizer import Token, Tokenizer
from openpyxl.utils.cell import get_column_letter, quote_sheetname, range_boundaries
from openpyxl.worksheet.formula import ArrayFormula
from openpyxl.worksheet.worksheet import Worksheet

from ..core.template_contract import RESULTS_NAME
from ..excel.functions import NAMES

__all__ = ["CALC_SUFFIX", "RESULTS_NAME", "calc_sheet_name", "mirror_arrays", "results_columns", "array_behind", "shows", "shows_row",
           "headroom", "table_area"]

#: The hidden sheet holding the array formulas of sheet ``S`` is ``S`` followed by this.
CALC_SUFFIX = " (calc)"


def calc_sheet_name(title: str) -> str:
    """The hidden sheet of ``title``'s array formulas (Excel allows 31 characters in a sheet name).

    >>> calc_sheet_name("Travellers")
    'Travellers (calc)'
    """
    return (title[: 31 - len(CALC_SUFFIX)] + CALC_SUFFIX) if len(title) + len(CALC_SUFFIX) > 31 else title + CALC_SUFFIX


def shows(ref: str) -> str:
    """The formula of a cell in view showing the hidden cell ``ref``: the plain reference, except that
    ``#NAME?`` (the xlbridge functions unknown to the program) shows blank.

    LibreOffice keeps no empty cached text: it recalculates, on opening, every formula cell whose
    cached result is ``""`` (a blank result: rows past the data, a board not played), and the array
    behind it, without the xlbridge functions, is ``#NAME?``. Guarded, such a cell stays blank; every
    other error (``#VALUE!`` with its reason) shows as it is. In Excel without the add-in, a change
    to the sheet then blanks the results instead of showing ``#NAME?`` (the Instructions say so).

    >>> print(shows("'S (calc)'!B2"))
    =IFERROR('S (calc)'!B2,IF(ERROR.TYPE('S (calc)'!B2)=5,"",'S (calc)'!B2))
    """
    return f'=IFERROR({ref},IF(ERROR.TYPE({ref})=5,"",{ref}))'


def shows_row(calc_column: str, origin: str) -> str:
    """The formula of a cell in view beside a row of an input table: the cell of the hidden column
    ``calc_column`` (e.g. ``'T (calc)'!$H$5:$H$10404``) at this row's position in the table, counted from
    the first row of ``origin`` (the table's first column, e.g. ``$A$5:$A$10004``), guarded as :func:`shows`.

    Nothing in it names this row: a row moved (sorted, cut and pasted), copied, or with rows inserted or
    deleted around it shows the result of the row it now is, because the hidden arrays read the table's
    ranges, which Excel and LibreOffice grow, shrink and keep in step with the same edits.

    The table's first row is ``ROW(INDEX(origin,1))``: the row of the range's first cell, a single number in
    every program. (``ROW(origin)`` of the whole range means the same in Excel's implicit intersection, but
    LibreOffice builds a 10,000-row array for it in every cell: opening the empty pairs template and showing
    Travellers took 16 s instead of 2 s.) The range, not its first cell alone, so that deleting the table's
    first row shrinks it instead of making ``#REF!``.

    >>> print(shows_row("'S (calc)'!$H$5:$H$29", "$A$5:$A$24"))
    =IFERROR(INDEX('S (calc)'!$H$5:$H$29,ROW()-ROW(INDEX($A$5:$A$24,1))+1),IF(ERROR.TYPE(INDEX('S (calc)'!$H$5:$H$29,ROW()-ROW(INDEX($A$5:$A$24,1))+1))=5,"",INDEX('S (calc)'!$H$5:$H$29,ROW()-ROW(INDEX($A$5:$A$24,1))+1)))
    """
    return shows(f"INDEX({calc_column},ROW()-ROW(INDEX({origin},1))+1)")


def headroom(rows: int) -> int:
    """Rows a table's hidden arrays have beyond the table (and twice that their inputs read beyond it), so
    that rows inserted into the table (up to this many more than deleted) and rows deleted (up to this
    many more than inserted) leave every row in view its result and no hidden cell an error.

    >>> headroom(10_000), headroom(40)
    (100, 5)
    """
    return max(5, rows // 100)


def table_area(ws: Worksheet) -> tuple[int, int, int, int] | None:
    """(r1, c1, r2, c2) of the rows of the input table of sheet ``ws``, or None: its sheet-scoped XLBRIDGE_CAPACITY
    less its first row, the table's header (:func:`xlbridge.templates.styling.capacity`)."""
    from .styling import CAPACITY_NAME

    dn = ws.defined_names.get(CAPACITY_NAME)
    box = None if dn is None else _box(dn.attr_text.split("!")[-1])
    return None if box is None else (box[0] + 1, *box[1:])


def results_columns(ws: Worksheet) -> list[int]:
    """The columns of ``ws``'s results in view (its sheet-scoped :data:`RESULTS_NAME`, declared by
    :func:`mirror_arrays`), in order; [] when it has none."""
    dn = ws.defined_names.get(RESULTS_NAME)
    boxes = [] if dn is None else [_box(block.split("!")[-1]) for block in dn.attr_text.split(",")]
    return sorted({c for box in boxes if box is not None for c in range(box[1], box[3] + 1)})


def _split(operand: str) -> tuple[str | None, str]:
    """(sheet name or None, reference) of a range operand such as ``'O''B'!$A$1:B2``."""
    if "!" not in operand:
        return None, operand
    sheet, ref = operand.rsplit("!", 1)
    if sheet.startswith("'") and sheet.endswith("'"):
        sheet = sheet[1:-1].replace("''", "'")
    return sheet, ref


def _box(ref: str) -> tuple[int, int, int, int] | None:
    """(r1, c1, r2, c2) of a cell or block reference; None for a name, a whole row or column."""
    try:
        c1, r1, c2, r2 = range_boundaries(ref.replace("$", ""))
    except (ValueError, TypeError):
        return None
    if None in (c1, r1, c2, r2):
        return None
    return r1, c1, r2, c2


def _covered(box: tuple[int, int, int, int], areas: list[tuple[int, int, int, int]]) -> bool:
    """True when every cell of ``box`` lies in one of ``areas`` (column by column, rows joined)."""
    r1, c1, r2, c2 = box
    for c in range(c1, c2 + 1):
        spans = sorted((a1, a2) for a1, b1, a2, b2 in areas if b1 <= c <= b2 and a1 <= r2 and a2 >= r1)
        row = r1
        for a1, a2 in spans:
            if a1 > row:
                return False
            row = max(row, a2 + 1)
            if row > r2:
                break
        if row <= r2:
            return False
    return True


# a reference without a sheet: a cell, a block, whole columns (A:B) or whole rows (1:2); not a name
_A1 = re.compile(r"^(?:\$?[A-Za-z]{1,3}\$?[0-9]+(?::\$?[A-Za-z]{1,3}\$?[0-9]+)?|\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3}"
                 r"|\$?[0-9]+:\$?[0-9]+)$")


#: functions whose argument must stay a reference (a range, not an array of its values): a table's range given to
#: one is moved to start at the header row, never wrapped by :func:`rows_below_header`
_TAKES_REFERENCE = {"ROW", "ROWS", "COLUMN", "COLUMNS", "INDEX", "OFFSET", "ISREF", "CELL", "COUNTIF", "COUNTIFS",
                    "SUMIF", "SUMIFS", "AVERAGEIF", "AVERAGEIFS", "MAXIFS", "MINIFS", "_XLFN.MAXIFS", "_XLFN.MINIFS"}


#: the names of the xlbridge functions (whose table arguments are read through :func:`rows_below_header`)
_XLBRIDGE_NAMES = frozenset(NAMES)


def rows_below_header(ref: str) -> str:
    """The values of the block ``ref``, whose first row is a table's header, with that row blank and every empty
    cell ``""`` (standard functions only: every program computes it alike, the formula engine of ``xlbridge
    recalc`` too). A table's ranges start at its header row, so that a row inserted directly below the header lies
    inside them, and Excel and LibreOffice grow them to hold it (a range whose first row is the inserted row's
    moves down instead); its functions read the rows below the header only, through this. The first row is the
    range's own (``ROW(INDEX(ref,1,1))``), wherever the table has moved; the condition is the row's distance from it
    (0, false, for the header): a subtraction, which the formula engine computes for the whole column at once, where
    a comparison is computed cell by cell (10,000 rows: 0.25 s instead of 0.43 s).

    >>> print(rows_below_header("$A$4:$A$9"))
    IF(ROW($A$4:$A$9)-ROW(INDEX($A$4:$A$9,1,1)),IF($A$4:$A$9="","",$A$4:$A$9),"")
    """
    return f'IF(ROW({ref})-ROW(INDEX({ref},1,1)),IF({ref}="","",{ref}),"")'


def _rewrite(formula: str, home: str, moved: dict[str, list], qualify: bool, names: dict[str, str],
             tables: dict[str, tuple[int, int, int, int, int]] | None = None, array: bool = True) -> str:
    """``formula`` with references into moved arrays pointed at their hidden sheet (``names``: sheet ->
    its hidden sheet) and, when ``qualify``, every reference without a sheet given the sheet ``home``
    it was written on (a defined name is left as it is: the templates use none in their arrays).
    ``tables``: {sheet: (r1, c1, r2, c2, headroom)} of the input tables (their rows below the header): a
    reference to whole columns of one (its rows exactly) starts at the table's header row instead and, in an
    ``array`` formula, reads twice its headroom beyond it (see :func:`headroom`) and is read through
    :func:`rows_below_header` where an xlbridge function reads it (except where a function takes it as a reference:
    :data:`_TAKES_REFERENCE`). Elsewhere the header's texts are read as they are, which the templates' standard
    formulas of whole columns (``ISERROR``, ``ISNUMBER``, ``&``, comparisons with a number) take as no row: the
    function-wise ``IF`` of every range costs the formula engine of ``xlbridge recalc`` time per row."""
    tok = Tokenizer(formula)
    calls: list[str] = []  # the functions (and parentheses, arrays: "") around each token
    for k, item in enumerate(tok.items):
        if item.type == Token.FUNC and item.subtype == Token.OPEN:
            calls.append(item.value[:-1].upper())
        elif item.subtype == Token.OPEN:
            calls.append("")
        elif item.subtype == Token.CLOSE and calls:
            calls.pop()
        if item.type != Token.OPERAND or item.subtype != Token.RANGE:
            continue
        sheet, ref = _split(item.value)
        if sheet is not None and sheet.startswith("["):
            continue
        box = _box(ref)
        target = home if sheet is None else sheet
        areas = moved.get(target)
        table = (tables or {}).get(target)
        in_table = box is not None and table is not None and (box[0], box[2]) == (table[0], table[2])
        if in_table:
            assert table is not None
            ref = _extend(ref, table[2] + 2 * table[4] if array else table[2], first=table[0] - 1)
            item.value = ref if sheet is None else f"{item.value.rsplit('!', 1)[0]}!{ref}"
            box = _box(ref)
        if box is not None and areas and _covered(box, areas):
            item.value = f"{quote_sheetname(names[target])}!{ref}"
        elif sheet is None and qualify and _A1.match(ref):
            item.value = f"{quote_sheetname(home)}!{ref}"
        if in_table and array:
            before = tok.items[k - 1] if k else None
            after = tok.items[k + 1] if k + 1 < len(tok.items) else None
            whole = (before is not None and (before.subtype == Token.OPEN or before.subtype == Token.ARG) and
                     after is not None and (after.subtype == Token.CLOSE or after.subtype == Token.ARG))
            if not (whole and calls and calls[-1] in _TAKES_REFERENCE) and _XLBRIDGE_NAMES.intersection(calls):
                item.value = rows_below_header(item.value)
    return tok.render()


def _extend(ref: str, last: int, first: int | None = None) -> str:
    """The block ``ref`` (``$A$5:$A$24``, ``A5:C24``) with its last row ``last`` (and its first row ``first``, if
    given), its dollars kept.

    >>> _extend("$A$5:$A$24", 64), _extend("C5:E24", 30), _extend("$A$5:$B$24", 24, first=4)
    ('$A$5:$A$64', 'C5:E30', '$A$4:$B$24')
    """
    head, tail = ref.split(":")
    if first is not None:
        head = re.sub(r"[0-9]+$", str(first), head)
    return f"{head}:{re.sub(r'[0-9]+$', str(last), tail)}"


def _calc_names(wb: Workbook, titles: list[str]) -> dict[str, str]:
    """{sheet: its hidden sheet's name}: :func:`calc_sheet_name`, made unique in the book (Excel's
    31 characters; two long names sharing their first 24 characters, or a sheet already so named)."""
    used = {t.upper() for t in wb.sheetnames}
    out = {}
    for title in titles:
        name, n = calc_sheet_name(title), 1
        while name.upper() in used:
            n += 1
            tail = f" (calc{n})"
            name = title[: 31 - len(tail)] + tail
        used.add(name.upper())
        out[title] = name
    return out


def _is_table_array(box: tuple[int, int, int, int], area: tuple[int, int, int, int] | None, extra: int) -> bool:
    """True when an array over ``box`` computes the rows of the input table ``area``: one result per row,
    the whole table (a column) or one row of it (a row's formula), headroom rows included."""
    if area is None:
        return False
    r1, _, r2, _ = box
    if r1 == r2:
        return area[0] <= r1 <= area[2] + extra
    return r1 == area[0] and r2 == area[2]


def mirror_arrays(wb: Workbook) -> None:
    """Move every array formula of ``wb`` to a hidden ``<sheet> (calc)`` sheet (same address) and put a
    plain reference to it in each cell of its range; point every other formula's references into
    the moved ranges at the hidden sheets (see the module's text). Changes ``wb`` in place.

    The arrays computing the rows of a sheet's input table (its XLBRIDGE_CAPACITY area: one result per
    row) are shown by :func:`shows_row` instead, position by position, and grow by :func:`headroom`
    rows on the hidden sheet (calc only: no cell in view below the table); every array reads an input
    table's whole columns twice that far, and formulas read those results from the cells in view (the
    hidden column and the table's ranges can differ in length once rows are inserted or deleted)."""
    moved: dict[str, list] = {}
    arrays: dict[str, list] = {}
    tables: dict[str, tuple[int, int, int, int, int]] = {}
    for ws in wb.worksheets:
        area = table_area(ws)
        if area is not None:
            tables[ws.title] = (*area, headroom(area[2] - area[0] + 1))
        found = [(cell.row, cell.column, cell.value) for cell in ws._cells.values() if isinstance(cell.value, ArrayFormula)]
        if found:
            arrays[ws.title] = sorted(found, key=lambda x: (x[0], x[1]))
            extra = tables[ws.title][4] if ws.title in tables else 0
            moved[ws.title] = [b for b in (_box(v.ref) for _, _, v in found)
                               if not _is_table_array(b, area, extra)]  # type: ignore[arg-type]
    names = _calc_names(wb, list(arrays))
    results: dict[str, list] = {}
    for ws in list(wb.worksheets):
        for cell in ws._cells.values():  # the formulas that stay in view
            v = cell.value
            if isinstance(v, str) and v.startswith("=") and not isinstance(v, ArrayFormula):
                cell.value = _rewrite(v, ws.title, moved, qualify=False, names=names, tables=tables, array=False)
        if ws.title not in arrays:
            continue
        calc = wb.create_sheet(names[ws.title])
        calc.sheet_state = "hidden"
        table = tables.get(ws.title)
        where = quote_sheetname(calc.title)
        for row, col, af in arrays[ws.title]:
            box = _box(af.ref)
            assert box is not None
            r1, c1, r2, c2 = box
            text = _rewrite(af.text, ws.title, moved, qualify=True, names=names, tables=tables)
            if table is None or not _is_table_array(box, table[:4], table[4]):
                calc.cell(row, col).value = ArrayFormula(af.ref, text)
                for r in range(r1, r2 + 1):
                    for c in range(c1, c2 + 1):
                        ws.cell(r, c).value = shows(f"{where}!{get_column_letter(c)}{r}")
                continue
            t1, tc, t2, _, extra = table
            at = row
            if r1 != r2:  # a column of the table: its hidden array starts at the header row, as the ranges it
                at, r2 = t1 - 1, t2 + extra  # reads, and grows by the headroom
                af = ArrayFormula(f"{get_column_letter(c1)}{at}:{get_column_letter(c2)}{r2}", text)
            calc.cell(at, col).value = ArrayFormula(af.ref, text)
            if row > t2:  # a headroom row's formula: on the hidden sheet only
                ws.cell(row, col).value = None
            first = get_column_letter(tc)
            origin = f"${first}${t1 - 1}:${first}${t2}"  # (from the header row: position 1 is the header)
            for c in range(c1, c2 + 1):
                letter = get_column_letter(c)
                column = f"{where}!${letter}${t1 - 1}:${letter}${t2 + extra}"
                for r in range(r1, min(r2, t2) + 1):
                    ws.cell(r, c).value = shows_row(column, origin)
            if r1 <= t2:
                results.setdefault(ws.title, []).append((r1, c1, min(r2, t2), c2))
    for title, boxes in results.items():
        _flag_missing(wb[title], boxes, tables[title])


#: Sheet-scoped name of the cells in view showing a table's results (``xlbridge recalc`` names a row typed
#: into the table whose cells there hold no formula: a row inserted without them).


def _flag_missing(ws: Worksheet, boxes: list, table: tuple) -> None:
    """Declare the results in view of ``ws``'s table (:data:`RESULTS_NAME`, one block per column run) and
    turn red, in Excel and LibreOffice (conditional formatting), a result cell with no formula in a row
    holding anything: a row inserted into the table has no formulas."""
    from openpyxl.formatting.rule import FormulaRule
    from openpyxl.styles import Font, PatternFill
    from openpyxl.workbook.defined_name import DefinedName

    t1, tc1, t2, tc2, _ = table
    blocks: list = []
    for r1, c1, r2, c2 in sorted(boxes, key=lambda b: (b[1], b[0])):
        if blocks and blocks[-1][1] == r1 and blocks[-1][2] == r2 and blocks[-1][3] + 1 == c1 and r1 != r2:
            blocks[-1] = (blocks[-1][0], r1, r2, c2)
        elif r1 == r2 and blocks and blocks[-1][0] == c1 and blocks[-1][3] == c2 and blocks[-1][2] + 1 == r1:
            blocks[-1] = (c1, blocks[-1][1], r2, c2)
        else:
            blocks.append((c1, r1, r2, c2))
    # each block from the table's header row, as its ranges (a row inserted directly below the header is inside)
    blocks = [(c1, t1 - 1 if r1 == t1 else r1, r2, c2) for c1, r1, r2, c2 in blocks]
    refs = [f"${get_column_letter(c1)}${r1}:${get_column_letter(c2)}${r2}" for c1, r1, r2, c2 in blocks]
    ws.defined_names[RESULTS_NAME] = DefinedName(
        RESULTS_NAME, attr_text=",".join(f"{quote_sheetname(ws.title)}!{ref}" for ref in refs))
    a, z = get_column_letter(tc1), get_column_letter(tc2)
    red = PatternFill(fill_type="solid", start_color="FFFF0000", end_color="FFFF0000")
    for (c1, r1, _r2, _c2), ref in zip(blocks, refs):
        top = f"{get_column_letter(c1)}{r1}"
        # (not the header row: ``$A$4`` stays the header's whatever is inserted below it)
        ws.conditional_formatting.add(ref.replace("$", ""), FormulaRule(
            formula=[f"AND(ROW({top})>ROW(${a}${t1 - 1}),NOT(_xlfn.ISFORMULA({top})),COUNTA(${a}{r1}:${z}{r1})>0)"],
            stopIfTrue=True, fill=red, font=Font(bold=True, color="FFFFFFFF")))


def array_behind(wb: Workbook, sheet: str, cell: str) -> ArrayFormula | None:
    """The array formula that computes ``sheet!cell`` (on its hidden sheet), or None if there is none.

    >>> from openpyxl import Workbook
    >>> wb = Workbook(); wb.active.title = "S"; wb["S"]["A1"] = ArrayFormula("A1:A3", "=B1:B3*2")
    >>> mirror_arrays(wb)
    >>> array_behind(wb, "S", "A2").text, array_behind(wb, "S", "B1")
    ("='S'!B1:B3*2", None)
    """
    name = calc_sheet_name(sheet)
    if name not in wb.sheetnames:
        return None
    r0, c0 = wb[sheet][cell].row, wb[sheet][cell].column
    for c in wb[name]._cells.values():
        v = c.value
        if isinstance(v, ArrayFormula):
            r1, c1, r2, c2 = _box(v.ref)  # type: ignore[misc]
            if r1 <= r0 <= r2 and c1 <= c0 <= c2:
                return v
    return None
