"""Data typed past a template's capacity is never dropped in silence.

A template declares the input area of a sheet with a sheet-scoped defined name ``XLBRIDGE_CAPACITY``
(for example ``Travellers!$A$4:$P$10004``: the table from its header row, row 4, as the ranges its formulas
read; its rows are those below the header, :func:`table_rows`). :func:`first_overflow` finds, for
each such sheet, the first cell holding a value or a formula in those columns below the area;
``xlbridge recalc`` reports it as a cell error (code ``capacity``), so the run exits 1 with a line
naming the sheet and the first ignored row. In Excel and LibreOffice the template's note next to the
area turns red (conditional formatting) for the same condition.

>>> wb = (b'<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets/><definedNames>'
...       b'<definedName name="XLBRIDGE_CAPACITY" localSheetId="0">Travellers!$A$5:$P$10004</definedName>'
...       b'</definedNames></workbook>')
>>> capacity_areas(wb, ["Travellers"])
[('Travellers', 5, 1, 10004, 16)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..cells import CellRanges, column_letters, parse_range
from ..guard.gate import declared_areas
from .sheetxml import column_number, scan_sheet
from ...core.template_contract import CAPACITY_NAME, HEADER_NAME, PRINT_NAME, RESULTS_NAME

__all__ = ["table_rows", "AreaResults", "CAPACITY_NAME", "HEADER_NAME", "PRINT_NAME", "RESULTS_NAME", "SheetRows", "array_ranges_in", "capacity_areas",
           "first_above", "first_overflow", "first_missing_result", "last_result_row", "last_result_col", "missing_results", "last_used_row",
           "last_used_col", "meeting", "row_kinds", "sheet_rows", "WIDE_COLUMNS"]

#: A print area this many columns wide or wider (the Lehman History's 52 weeks) is also cut after its last column
#: in use (:func:`last_used_col`); a narrower one keeps its columns (no search of its constants column by column).
WIDE_COLUMNS = 30


#: the template contract's areas as declared, read from the workbook part (the gate's reading:
#: :func:`xlbridge.batch.guard.gate.declared_areas`; a checked book holds them clipped to its sheets)
capacity_areas = declared_areas


_NAME = rb"(?:[A-Za-z_][\w.-]*:)?"
_ROW_TAG = re.compile(rb"<" + _NAME + rb"row\b([^>]*)>")
_CELL_TAG = re.compile(rb"<" + _NAME + rb"c\b([^>]*)>")
_R_ATTR = re.compile(rb"(?<![\w:.-])r\s*=\s*[\"']([^\"']*)[\"']")
_KIND = re.compile(rb"<" + _NAME + rb"(v|is|f)\b")
#: a cell tag's ``r`` attribute read as an address (column letters, row digits; ``$`` allowed): a value that
#: is not an address (or no ``r``) does not match, and the part is read with the parser instead
_R_CELL = re.compile(rb"(?<![\w:.-])r\s*=\s*(?:\"\$?([A-Z]{1,3})\$?([0-9]{1,7})\"|'\$?([A-Z]{1,3})\$?([0-9]{1,7})')")
#: a cell that holds a value (``<v>``, ``<is>``) before any ``<f>`` or its end: a constant, or (a cell
#: without its end tag, ``<c r="A1"/>``) one of the next cells of the row, which the caller then reads
_CONSTANT_CELL = re.compile(rb"<" + _NAME + rb"c\b[^>]*>(?:(?!<" + _NAME + rb"f\b|</" + _NAME + rb"c>).)*?<"
                            + _NAME + rb"(?:v|is)\b", re.S)


def _rows(sheet_xml: bytes) -> list[tuple[int, int, int]] | None:
    """[(row, start, stop)] of the ``<row>`` elements holding cells, from a search of the bytes, in
    ascending row order (as the format has them: the searches below stop at the first row they need).

    The part has been parsed and checked before this runs (well-formed, no DTD), so the tags found are
    the elements; a part this cannot read plainly (CDATA sections, a row without its ``r`` number, rows
    out of order or repeated) gives None and the caller scans it with the parser instead.

    >>> _rows(b'<sheetData><row r="2"><c r="B2"><v>1</v></c></row><row r="3"/></sheetData>')
    [(2, 22, 50)]
    >>> _rows(b'<sheetData><row r="3"><c r="B3"><v>1</v></c></row><row r="2"><c r="B2"/></row></sheetData>') is None
    True
    """
    if b"<![CDATA[" in sheet_xml:
        return None
    end_data = sheet_xml.rfind(b"sheetData>")
    out: list[tuple[int, int, int]] = []
    # (one tag at a time, the one before kept until the next is found: no list of a match per tag, whatever
    # number of empty ``<row/>`` the part holds)
    before = None
    for tag in _ROW_TAG.finditer(sheet_xml):
        m = _R_ATTR.search(tag.group(1))
        if m is None or not m.group(1).isdigit():
            return None
        if before is not None:
            out.append((before[0], before[1], tag.start()))
            before = None
        if tag.group(1).endswith(b"/"):
            continue
        r = int(m.group(1))
        if out and r <= out[-1][0]:
            return None
        before = (r, tag.end())
    if before is not None:
        out.append((before[0], before[1], end_data if end_data > before[1] else len(sheet_xml)))
    return out


@dataclass(frozen=True)
class SheetRows:
    """A worksheet part's bytes with its ``<row>`` elements found once (:func:`_rows`; None: the part
    needs the parser), so the capacity check and the print area search the bytes once between them."""

    xml: bytes
    rows: list | None


def sheet_rows(sheet_xml: bytes) -> SheetRows:
    """The part and its rows, for :func:`first_overflow` and :func:`last_used_row`.

    >>> sheet_rows(b'<sheetData><row r="2"><c r="B2"><v>1</v></c></row></sheetData>').rows
    [(2, 22, 52)]
    """
    return SheetRows(sheet_xml, _rows(sheet_xml) if sheet_xml else None)


def _row_cells(sheet_xml: bytes, start: int, stop: int, columns: tuple[int, int] = (1, 1 << 14)
               ) -> list[tuple[int, int, frozenset]] | None:
    """[(row, column, {"v", "is", "f"} present)] of the cells between ``start`` and ``stop`` (one row)
    whose column is within ``columns`` (first, last; the others' contents are not searched), or None
    for a cell without its ``r`` address.

    >>> xml = b'<row r="2"><c r="B2"><f>1</f><v>1</v></c><c r="C2" s="1"/></row>'
    >>> [(r, c, sorted(k)) for r, c, k in _row_cells(xml, 11, len(xml))]
    [(2, 2, ['f', 'v']), (2, 3, [])]
    >>> _row_cells(xml, 11, len(xml), columns=(3, 9))
    [(2, 3, frozenset())]
    """
    cells = list(_CELL_TAG.finditer(sheet_xml, start, stop))
    out = []
    first, last = columns
    for j, cell in enumerate(cells):
        ref = _R_CELL.search(cell.group(1))
        if ref is None:
            return None
        letters, digits = (ref.group(1), ref.group(2)) if ref.group(1) else (ref.group(3), ref.group(4))
        col = column_number(letters.decode("ascii"))  # (0, outside any area, past XFD)
        if not first <= col <= last:
            continue
        body_end = cells[j + 1].start() if j + 1 < len(cells) else stop
        kinds = frozenset() if cell.group(1).endswith(b"/") else frozenset(
            k.group(1).decode() for k in _KIND.finditer(sheet_xml, cell.end(), body_end))
        out.append((int(digits), col, kinds))
    return out


def row_kinds(sheet: SheetRows, row: int) -> dict[int, frozenset]:
    """{column: {"v", "is", "f"} present} of the cells of sheet row ``row`` ({} when the row is not in the part or
    the part needs the parser).

    >>> kinds = row_kinds(sheet_rows(b'<row r="2"><c r="B2"><f>1</f><v>1</v></c><c r="C2"><v>7</v></c></row>'), 2)
    >>> {c: sorted(k) for c, k in kinds.items()}
    {2: ['f', 'v'], 3: ['v']}
    """
    span = next(((start, stop) for r, start, stop in sheet.rows or () if r == row), None)
    cells = None if span is None else _row_cells(sheet.xml, *span)
    return {} if cells is None else {c: kinds for _r, c, kinds in cells}


def _filled_cells(sheet: SheetRows, rows: range, reverse: bool = False, constants: bool = False,
                  columns: tuple[int, int] = (1, 1 << 14)):
    """The cells of ``rows`` and ``columns`` (first, last) holding a value or formula, row by row (last row
    first with ``reverse``), as lists [(row, column, kinds)]; None when the part needs the parser (see
    :func:`_rows`). A row
    without any ``<v>``, ``<is>`` or ``<f>`` is skipped by one search, not read cell by cell; with
    ``constants``, so is a row without a cell holding a value and no formula (rows of formulas only,
    as the templates' result columns are: :data:`_CONSTANT_CELL`).

    >>> xml = b'<row r="2"><c r="A2"><f>B2</f><v>1</v></c><c r="B2" s="1"/></row><row r="3"><c r="A3"><v>2</v></c></row>'
    >>> [[(r, c) for r, c, _ in row] for row in _filled_cells(sheet_rows(xml), range(1, 9), constants=True)]
    [[(3, 1)]]
    """
    sheet_xml, found = sheet.xml, sheet.rows
    if found is None:
        return None
    search = _CONSTANT_CELL.search if constants else _KIND.search

    def walk():
        for r, start, stop in (reversed(found) if reverse else found):
            if r in rows and search(sheet_xml, start, stop):
                cells = _row_cells(sheet_xml, start, stop, columns)
                if cells is None:
                    raise _NeedsParser
                yield [cell for cell in cells if cell[2]]

    return walk()


class _NeedsParser(Exception):
    """A cell without its address: the part is read with the parser instead."""


def first_overflow(sheet_xml: bytes | SheetRows, area: tuple[str, int, int, int, int], layout: Any = None
                   ) -> tuple[int, int] | None:
    """(row, column) of the first cell below ``area``, within its columns, that holds a value or formula.

    ``sheet_xml``: the part, or its :func:`sheet_rows` (found once for both functions of this module).

    >>> xml = (b'<worksheet><sheetData><row r="9"><c r="B9" s="1"/></row>'
    ...        b'<row r="11"><c r="A11"><v>1</v></c></row></sheetData></worksheet>')
    >>> first_overflow(xml, ("S", 5, 1, 8, 2)), first_overflow(xml, ("S", 5, 1, 11, 2))
    ((11, 1), None)
    """
    _sheet, _r1, c1, r2, c2 = area
    return _first_filled(sheet_xml, range(r2 + 1, 1 << 21), c1, c2, layout)


def table_rows(area: tuple[str, int, int, int, int], header: int | None) -> tuple[str, int, int, int, int]:
    """The rows of the table ``area`` (a sheet's :data:`CAPACITY_NAME`, as declared) below its header row
    ``header`` (the sheet's :data:`HEADER_NAME`, None if it has none): a template declares its table from the
    header row (the table's ranges start there, so that a row inserted directly below the header lies inside them
    and Excel and LibreOffice grow them), and the rows read start below it; an area starting below its header
    (a book whose ranges start at the table's first row) is its rows as it is.

    >>> table_rows(("S", 4, 1, 99, 2), 4), table_rows(("S", 5, 1, 99, 2), 4), table_rows(("S", 5, 1, 99, 2), None)
    (('S', 5, 1, 99, 2), ('S', 5, 1, 99, 2), ('S', 5, 1, 99, 2))
    """
    sheet, r1, c1, r2, c2 = area
    return (sheet, r1 + 1, c1, max(r1 + 1, r2), c2) if header == r1 else area


def first_above(sheet_xml: bytes | SheetRows, area: tuple[str, int, int, int, int], header: int) -> tuple[int, int] | None:
    """(row, column) of the first cell between the table's header row ``header`` and ``area`` (its first row
    moved down by rows inserted directly below the header: Excel and LibreOffice move a range down when
    rows are inserted at its first row), within its columns, that holds a value or formula.

    >>> xml = b'<worksheet><sheetData><row r="5"><c r="B5"><v>1</v></c></row></sheetData></worksheet>'
    >>> first_above(xml, ("S", 6, 1, 99, 2), 4), first_above(xml, ("S", 5, 1, 99, 2), 4)
    ((5, 2), None)
    """
    _sheet, r1, c1, _r2, c2 = area
    return _first_filled(sheet_xml, range(header + 1, r1), c1, c2) if r1 > header + 1 else None


def _first_filled(sheet_xml: bytes | SheetRows, rows: range, c1: int, c2: int, layout: Any = None
                  ) -> tuple[int, int] | None:
    sheet = sheet_xml if isinstance(sheet_xml, SheetRows) else sheet_rows(sheet_xml)
    sheet_xml = sheet.xml
    try:
        filled = _filled_cells(sheet, rows, columns=(c1, c2)) if sheet_xml else None
        # (rows in ascending order: the first row holding such a cell has the answer)
        fast = None if filled is None else next(([(r, c) for r, c, _k in row] for row in filled if row), [])
    except _NeedsParser:
        fast = None
    if fast is not None:
        found = fast
    else:
        layout = scan_sheet(sheet_xml) if layout is None else layout  # (``layout``: that scan, made already)
        cells = layout.cells  # (the positions first: a cell's span is made only for those within the area)
        found = [(r, c) for (r, c) in cells if r in rows and c1 <= c <= c2
                 and any(local in ("v", "is", "f") for local, _s, _e in cells[(r, c)].children)]
    return min(found) if found else None


def missing_results(sheet: SheetRows, area: tuple[str, int, int, int, int], results: list,
                    limit: int | None = None) -> list[tuple[int, int]] | None:
    """[(row, column)] of the cells of ``results`` (blocks (sheet, r1, c1, r2, c2) of the sheet's
    :data:`RESULTS_NAME`) without a formula in the rows of ``area`` holding a value, in order (at most
    ``limit``): a row inserted into the table, whose result cells are empty (its results are on the hidden
    sheet, but not in view, and the formulas reading the cells in view leave the row out). None when the
    part needs the parser (then this check is not made). A row missing some of its results while holding
    as many other formulas beside the table is not looked at.

    >>> xml = (b'<row r="5"><c r="A5"><v>1</v></c><c r="C5"><f>X</f></c></row>'
    ...        b'<row r="6"><c r="A6"><v>2</v></c></row><row r="7"><c r="C7"><f>X</f></c></row>'
    ...        b'<row r="8"><c r="A8"><v>3</v></c><c r="C8" s="2"/></row>')
    >>> missing_results(sheet_rows(xml), ("S", 5, 1, 9, 2), [("S", 5, 3, 9, 3)])
    [(6, 3), (8, 3)]
    """
    _s, r1, c1, r2, c2 = area
    if sheet.rows is None:
        return None
    out: list[tuple[int, int]] = []
    if not results:
        return out
    letters = {c: column_letters(c).encode() for _rs, _b1, bc1, _b2, bc2 in results for c in range(bc1, bc2 + 1)}
    for r, start, stop in sheet.rows:
        wanted = [c for _rs, b1, bc1, b2, bc2 in results if b1 <= r <= b2 for c in range(bc1, bc2 + 1)]
        if not (r1 <= r <= r2 and wanted) or all(_holds_formula(sheet.xml, start, stop, letters[c] + str(r).encode())
                                                 for c in wanted):
            continue  # (each result cell found with its formula by a search of the row's bytes, not a parse)
        cells = _row_cells(sheet.xml, start, stop)
        if cells is None:
            return None
        if not any(c1 <= c <= c2 and kinds & {"v", "is"} and "f" not in kinds for _r, c, kinds in cells):
            continue
        # (the formulas counted are the result cells' own: a row whose inputs are formulas is read as well)
        have = {c for _r, c, kinds in cells if "f" in kinds}
        for _rs, b1, bc1, b2, bc2 in results:
            if b1 <= r <= b2:
                out += [(r, c) for c in range(bc1, bc2 + 1) if c not in have]
        if limit is not None and len(out) >= limit:
            return out[:limit]
    return out


_F_START = re.compile(rb"<" + _NAME + rb"f\b")  # (any <f> element's start)


def _holds_formula(xml: bytes, start: int, stop: int, ref: bytes) -> bool:
    """True when the row's bytes (``start``..``stop``) hold cell ``ref`` (``b"H7"``, its ``r`` written with
    double quotes) with an ``<f>`` before the next cell starts; False means "not seen", and the caller reads
    the row cell by cell (a text holding ``r="H7"`` has no ``<f`` after it within its cell).

    >>> xml = b'<row r="7"><c r="H7" s="1"><f>X</f></c><c r="I7"/></row>'
    >>> _holds_formula(xml, 11, len(xml), b"H7"), _holds_formula(xml, 11, len(xml), b"I7")
    (True, False)
    """
    i = xml.find(b'r="' + ref + b'"', start, stop)
    if i < 0:
        return False
    end = xml.find(b">", i, stop)
    if end < 0 or xml[end - 1:end] == b"/":
        return False
    if xml.startswith((b"<f>", b"<f "), end + 1):  # (its first child, as Excel and the templates write it)
        return True
    nxt = _CELL_TAG.search(xml, end, stop)
    return _F_START.search(xml, end, nxt.start() if nxt else stop) is not None


def first_missing_result(sheet: SheetRows, area: tuple[str, int, int, int, int], results: list) -> tuple[int, int] | None:
    """(row, column) of the first cell :func:`missing_results` finds, or None.

    >>> xml = b'<row r="6"><c r="A6"><v>2</v></c></row>'
    >>> first_missing_result(sheet_rows(xml), ("S", 5, 1, 9, 2), [("S", 5, 3, 9, 3)])
    (6, 3)
    """
    found = missing_results(sheet, area, results, limit=1)
    return found[0] if found else None


@dataclass(frozen=True)
class AreaResults:
    """What :func:`last_used_row` needs of a sheet's computed values, taken where the values are (the
    engine's process) so that they need not cross to the process writing the print area: the last row of
    the area holding a non-blank computed value (0: none), and the ranges of the array formulas that have
    computed values (their cells other than the first carry no formula in the part, yet hold computed
    values, not constants; an array the engine gave no value keeps its cached values, constants then).

    >>> values = {(9, 2): "", (7, 1): 4.5, (60, 1): 1, (2, 3): 1, (3, 3): 2, (4, 3): 3}
    >>> results = AreaResults.of(values, ("S", 1, 1, 50, 3), ((2, 3, 4, 3), (8, 1, 9, 1), (70, 1, 71, 1)))
    >>> results.last_row, results.array_ranges, (3, 3) in results, (3, 2) in results
    (7, ((2, 3, 4, 3),), True, False)
    """

    last_row: int
    array_ranges: tuple = ()
    last_col: int = 0

    @classmethod
    def of(cls, values: dict, area: tuple[str, int, int, int, int], array_ranges: Any = ()) -> AreaResults:
        """From ``values`` ({(row, column): value} of every formula cell of the sheet, array cells
        included: :func:`last_result_row`) and the sheet's array ranges ((r1, c1, r2, c2), ...): those
        meeting ``area`` and valued (the engine values an array's cells all or none: its last tells)."""
        return cls(last_result_row(values, area),
                   tuple(a for a in meeting(array_ranges, area) if (a[2], a[3]) in values),
                   last_result_col(values, area) if area[4] - area[2] + 1 >= WIDE_COLUMNS else 0)

    def __contains__(self, pos: object) -> bool:
        """Whether the cell ``(row, column)`` lies in one of the array ranges (the ranges indexed by row once, so
        that asking for every cell of a table costs its cells, not its cells times its arrays)."""
        if not isinstance(pos, tuple) or len(pos) != 2:
            return False
        ranges = getattr(self, "_xlb_ranges", None)
        if ranges is None:
            ranges = CellRanges(self.array_ranges)
            object.__setattr__(self, "_xlb_ranges", ranges)  # (made once: the class is frozen)
        return pos in ranges


def meeting(array_ranges: Any, area: tuple[str, int, int, int, int]) -> tuple:
    """The ranges ((r1, c1, r2, c2), ...) that share a cell with ``area``.

    >>> meeting(((1, 1, 2, 2), (5, 5, 6, 6)), ("S", 2, 2, 4, 4))
    ((1, 1, 2, 2),)
    """
    _sheet, r1, c1, r2, c2 = area
    return tuple(a for a in array_ranges if a[0] <= r2 and a[2] >= r1 and a[1] <= c2 and a[3] >= c1)


def last_result_row(values: dict, area: tuple[str, int, int, int, int]) -> int:
    """The last row of ``area`` where ``values`` ({(row, column): computed value}) holds a non-blank
    value (not None, not ""); 0 when none does.

    >>> last_result_row({(9, 2): "", (7, 1): 4.5, (60, 1): 1}, ("S", 1, 1, 50, 3))
    7
    """
    _sheet, r1, c1, r2, c2 = area
    return max((r for (r, c), v in values.items() if v != "" and v is not None and r1 <= r <= r2 and c1 <= c <= c2),
               default=0)


def last_result_col(values: dict, area: tuple[str, int, int, int, int]) -> int:
    """The last column of ``area`` where ``values`` ({(row, column): computed value}) holds a non-blank
    value (not None, not ""); 0 when none does.

    >>> last_result_col({(2, 9): "", (7, 4): 4.5, (3, 60): 1}, ("S", 1, 1, 50, 30))
    4
    """
    sheet, r1, c1, r2, c2 = area  # (the same search as last_result_row's, rows and columns swapped)
    return last_result_row({(c, r): v for (r, c), v in values.items()}, (sheet, c1, r1, c2, r2))


def last_used_col(sheet: SheetRows, area: tuple[str, int, int, int, int], last_row: int, arrays: tuple) -> int | None:
    """The last column of ``area`` holding a constant in its rows up to ``last_row`` (a merged note counts to its
    last column; a cell of one of ``arrays`` ((r1, c1, r2, c2), ...) is a computed value, not a constant), at
    least the area's first column; None when the part needs the parser or draws something (a chart, which the
    columns alone do not bound): its columns are then kept.

    >>> xml = b'<row r="2"><c r="B2"><v>1</v></c><c r="E2"><f>1</f><v>1</v></c></row><row r="9"><c r="H9"><v>2</v></c></row>'
    >>> last_used_col(sheet_rows(xml), ("S", 1, 1, 50, 40), 5, ()), last_used_col(sheet_rows(xml), ("S", 1, 1, 50, 40), 9, ())
    (2, 8)
    >>> last_used_col(sheet_rows(xml), ("S", 1, 1, 50, 40), 9, ((9, 8, 9, 8),))
    2
    """
    _sheet, r1, c1, r2, c2 = area
    sheet_xml = sheet.xml
    if _DRAWING.search(sheet_xml):
        return None
    last = c1
    for m1, mc1, m2, mc2 in _merged_ranges(sheet_xml):
        if r1 <= m1 <= last_row and mc1 <= c2:
            last = max(last, min(mc2, c2))
    try:
        rows = _filled_cells(sheet, range(r1, min(last_row, r2) + 1), constants=True, columns=(c1, c2))
        if rows is None:
            return None
        inside = CellRanges(arrays)  # (indexed by row once)
        for row in rows:
            for r, c, kinds in row:
                if c > last and kinds & {"v", "is"} and "f" not in kinds and (r, c) not in inside:
                    last = c
    except _NeedsParser:
        return None
    return last


_DRAWING = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?drawing\b")


_TAG_SPAN = 4096  # bytes searched each side of an "array" for its <f ...> tag (Excel writes about 40)
_T_IS = re.compile(rb"\st\s*=\s*$")  # (the end of the bytes before an attribute value: `` t=``, `` t = ``)
_F_TAG = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?f\s[^<>]*>")
_REF_ATTR = re.compile(rb"\sref\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")


def array_ranges_in(sheet_xml: bytes) -> tuple:
    """((r1, c1, r2, c2), ...) of the array formulas (``<f t="array" ref=...>``) of a worksheet part, in
    the order of the part: what :func:`xlbridge.batch.read.sheetxml.scan_sheet` finds, by a search of the bytes
    (as :func:`_merged_ranges`) for the process that has not parsed the part: each ``array`` found, then
    the ``t`` attribute before it and the ``<f>`` tag around it. A guess, which the recalculation checks
    against the engine's arrays (an array formula's text in a comment or a CDATA section, an entity in
    ``t``, an array the engine gave no value: the part is then searched again with the engine's).

    >>> array_ranges_in(b'<sheetData><row r="2"><c r="A2"><f ref="A2:B3" t="array">F()</f></c>'
    ...                 b"<c r='C2'><x:f t = 'array' ref='C2'>G()</x:f></c><c r='D2'><is><t>t='array'</t></is></c>")
    ((2, 1, 3, 2), (2, 3, 2, 3))
    """
    out = []
    at = sheet_xml.find(b"array")
    while at >= 0:
        quote = sheet_xml[at - 1:at]
        if quote in (b'"', b"'") and sheet_xml[at + 5:at + 6] == quote and _T_IS.search(sheet_xml, max(at - 41, 0),
                                                                                          at - 1):
            # (each search within _TAG_SPAN bytes of the word: a part holding the word many times in a long
            # stretch without a tag, a comment's text say, costs its length, not its square)
            start = sheet_xml.rfind(b"<", max(at - _TAG_SPAN, 0), at)
            tag = _F_TAG.match(sheet_xml, start, at + _TAG_SPAN) if start >= 0 else None
            ref = _REF_ATTR.search(tag.group(0)) if tag is not None and tag.end() > at else None
            if ref is not None:
                try:
                    out.append(parse_range((ref.group(1) or ref.group(2) or b"").decode("ascii", "replace")))
                except ValueError:  # (a WorkbookError too: the parser refuses such a part)
                    pass
        at = sheet_xml.find(b"array", at + 5)
    return tuple(out)


def last_used_row(sheet_xml: bytes | SheetRows, area: tuple[str, int, int, int, int], values: dict | AreaResults,
                  layout: Any = None) -> int:
    """The last row of ``area`` holding a constant or a non-blank computed value, at least the area's
    first row. ``values``: {(row, column): value} of every formula cell, array cells included, or their
    :class:`AreaResults`. ``sheet_xml`` as for :func:`first_overflow`.

    >>> xml = b'<worksheet><sheetData><row r="3"><c r="A3"><v>1</v></c></row></sheetData></worksheet>'
    >>> last_used_row(xml, ("S", 1, 1, 50, 3), {(9, 2): "", (7, 1): 4.5})
    7
    >>> area = ("S", 1, 1, 50, 3)
    >>> last_used_row(xml, area, AreaResults(0)), last_used_row(xml, area, AreaResults(0, ((3, 1, 3, 1),)))
    (3, 1)
    """
    _sheet, r1, c1, r2, c2 = area
    sheet = sheet_xml if isinstance(sheet_xml, SheetRows) else sheet_rows(sheet_xml)
    sheet_xml = sheet.xml
    last = r1
    for m1, _mc1, m2, _mc2 in _merged_ranges(sheet_xml):  # a merged note prints whole
        if r1 <= m1 <= r2:
            last = max(last, min(m2, r2))
    def constant(r: int, c: int, kinds: frozenset) -> bool:
        # a formula's cell (an array's cells carry no <f>): its computed value counts, below
        return c1 <= c <= c2 and bool(kinds & {"v", "is"}) and "f" not in kinds and (r, c) not in values

    try:  # the last row first: the first row holding a constant is the answer
        rows = _filled_cells(sheet, range(max(last, r1) + 1, r2 + 1), reverse=True,
                             constants=True, columns=(c1, c2)) if sheet_xml else None
        if rows is not None:
            last = next((r for row in rows for r, c, kinds in row if constant(r, c, kinds)), last)
    except _NeedsParser:
        rows = None
    if rows is None:
        cells = (scan_sheet(sheet_xml) if layout is None else layout).cells
        for (r, c) in cells:  # (the positions first: a cell's span is made only for those within the area)
            if r1 <= r <= r2 and r > last and c1 <= c <= c2 and constant(
                    r, c, frozenset(local for local, _s, _e in cells[(r, c)].children)):
                last = r
    return max(last, values.last_row if isinstance(values, AreaResults) else last_result_row(values, area))


_MERGE = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?mergeCell\s[^>]*?\bref\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")


def _merged_ranges(sheet_xml: bytes) -> list:
    """(r1, c1, r2, c2) of every ``<mergeCell ref=...>`` of a worksheet part.

    A search of the bytes, not a parse: the part has been parsed and checked (DTDs refused, well-formed)
    before this runs, and only the ``ref`` of these empty elements is wanted (a 10,000-row sheet: one
    regular-expression pass instead of a Python callback per element).

    >>> _merged_ranges(b'<worksheet><sheetData/><mergeCells><mergeCell ref="I22:K25"/>'
    ...                b"<x:mergeCell ref='A1:B2'/></mergeCells></worksheet>")
    [(22, 9, 25, 11), (1, 1, 2, 2)]
    """
    out: list = []
    first = sheet_xml.find(b"mergeCell")
    if first < 0:
        return out
    # every match holds a "mergeCell" from the first one on, right after its "<" and prefix (no "<" in a
    # prefix): the search starts at the "<" before the first (a 10,000-row part: 26 ms to 1 ms)
    for m in _MERGE.finditer(sheet_xml, max(sheet_xml.rfind(b"<", 0, first), 0)):
        try:
            out.append(parse_range((m.group(1) or m.group(2) or b"").decode("ascii", "replace")))
        except ValueError:  # a WorkbookError too: an unreadable merge is no print row
            pass
    return out
