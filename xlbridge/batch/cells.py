"""Cell references, Excel's error values and the byte layout of a sheet: the words reading and writing share.

In: A1 references and ranges as a workbook writes them (``"B3"``, ``"$AA$10"``, ``"K2:L1001"``).
Out: 1-based (row, column) numbers, letters back, quoted sheet names, :class:`ExcelErrorValue`, and
the :class:`SheetLayout` (byte offsets of a worksheet part's cells) that the reading stage finds and
the writing stage patches. Below every stage: imports only the core (its ``clip`` of a value in a message), so
every stage, the guard included, may import it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
import re
import typing

from ..core.sheet import EXCEL_MAX_COLUMNS, EXCEL_MAX_ROWS
from ..core.errors import WorkbookError, clip

__all__ = [
    "CellRanges",
    "EXCEL_ERROR_CODES",
    "MAX_ROW",
    "MAX_COL",
    "ExcelErrorValue",
    "CellSpan",
    "SheetLayout",
    "cell_ref",
    "qualified",
    "column_letters",
    "quote_sheet",
    "parse_ref",
    "parse_range",
]

EXCEL_ERROR_CODES = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA",
                     "#SPILL!", "#CALC!")


@dataclasses.dataclass(frozen=True)
class ExcelErrorValue:
    """An Excel error value (``#VALUE!``, ``#N/A``, ...) with an optional message saying why.

    >>> ExcelErrorValue("#N/A", "board 3 not found").code
    '#N/A'
    """

    code: str
    message: str = ""


_REF_RE = re.compile(r"^\$?([A-Za-z]{1,3})\$?([0-9]{1,7})$")
MAX_ROW, MAX_COL = EXCEL_MAX_ROWS, EXCEL_MAX_COLUMNS  # Excel's sheet: rows 1..1048576, columns A..XFD (core.sheet)


def parse_ref(ref: str) -> tuple[int, int]:
    """Return (row, column), both 1-based, of an A1 reference inside Excel's sheet (A1 to XFD1048576).

    >>> parse_ref("B3"), parse_ref("$AA$10"), parse_ref("XFD1048576")
    ((3, 2), (10, 27), (1048576, 16384))
    >>> parse_ref("XFE1")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.WorkbookError: bad cell reference 'XFE1'
    """
    m = _REF_RE.match(ref) if isinstance(ref, str) else None
    if m is None:
        raise WorkbookError(f"bad cell reference {clip(ref)}")
    col = 0
    for ch in m.group(1).upper():
        col = col * 26 + ord(ch) - 64
    row = int(m.group(2))
    if not (1 <= row <= MAX_ROW and col <= MAX_COL):
        raise WorkbookError(f"bad cell reference {clip(ref)}")
    return row, col



def column_letters(col: int) -> str:
    """Return the letters of a column number (openpyxl's ``get_column_letter``).

    >>> column_letters(1), column_letters(27), column_letters(702), column_letters(16384)
    ('A', 'AA', 'ZZ', 'XFD')
    """
    letters = ""
    while col:
        col, rem = divmod(col - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def cell_ref(row: int, col: int) -> str:
    """Return the A1 reference of (row, column).

    >>> cell_ref(3, 2), cell_ref(10, 27), cell_ref(1, 702), cell_ref(1, 703)
    ('B3', 'AA10', 'ZZ1', 'AAA1')
    """
    return f"{column_letters(col)}{row}"


def quote_sheet(sheet: str) -> str:
    """A sheet's name as a formula or defined name writes it before ``!``: always quoted, ``'`` doubled
    (openpyxl's ``quote_sheetname``; Excel reads it whatever the name holds).

    >>> quote_sheet("Travellers"), quote_sheet("Bob's week")
    ("'Travellers'", "'Bob''s week'")
    """
    return "'" + sheet.replace("'", "''") + "'"


def qualified(sheet: str, cell: str) -> str:
    """``Sheet!A1``, the sheet quoted as Excel writes it when needed (``'My sheet'!A1``).

    >>> qualified("Travellers", "K7"), qualified("O'Brien scores", "A1")
    ('Travellers!K7', "'O''Brien scores'!A1")
    """
    quoted = sheet if sheet.replace("_", "").isalnum() else "'" + sheet.replace("'", "''") + "'"
    return f"{quoted}!{cell}"


def parse_range(ref: str) -> tuple[int, int, int, int]:
    """Return (first row, first column, last row, last column) of ``A1`` or ``A1:B2``.

    >>> parse_range("K2:L1001"), parse_range("C4")
    ((2, 11, 1001, 12), (4, 3, 4, 3))
    """
    if not isinstance(ref, str):
        raise WorkbookError(f"bad cell range {clip(ref)}")
    a, _, b = ref.partition(":")
    r1, c1 = parse_ref(a)
    r2, c2 = parse_ref(b) if b else (r1, c1)
    return min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)


class CellSpan(typing.NamedTuple):
    """Where one ``<c>`` element is in the part's bytes, its attributes and its children's spans.

    (A named tuple: light to build and to hold, 30,000 of them for a 10,000-row pairs template.)
    """

    qname: str
    start: int
    end: int
    attrs: tuple[tuple[str, str], ...]
    children: tuple[tuple[str, int, int], ...]  # (local name, start, end)


@dataclasses.dataclass(frozen=True)
class SheetLayout:
    """The byte layout of a worksheet part as found by :func:`scan_sheet`."""

    cells: Mapping  # (row, col) -> CellSpan (read.spans.CellSpans: compact arrays, or a dict)
    rows: dict  # row -> (qname, start, end, insert_at or None if empty element, attrs)
    sheetdata: tuple  # (qname, start, content_start or None if empty element, end_tag_start, end)
    formula_cells: dict  # (row, col) -> formula text as written
    array_ranges: tuple  # ((r1, c1, r2, c2), ...) from <f t="array" ref=...>
    prefix: str  # "x:" when the main namespace is written with a prefix, else ""
    complete: bool = True  # every cell in ``cells`` (False: only those a patch may rewrite)
    # without ``complete``: row -> [(column, start offset)] of every cell of a row where an array range
    # lacks a <c> element (where a patch inserts one)
    row_cells: dict = dataclasses.field(default_factory=dict)


class CellRanges:
    """Rectangles of cells ((r1, c1, r2, c2), ...) asked whether they hold a cell: ``(row, column) in ranges``,
    answered in time independent of how many ranges there are for the short ones (indexed by row once: a range at
    most :data:`INDEXED_ROWS` rows tall), the taller ones looked at one by one (the formula-cell limit bounds how
    many there can be). A sheet of 20,000 one-row array formulas asked for each of its cells: 20,000 look-ups,
    not 400 million comparisons.

    >>> ranges = CellRanges(((2, 3, 4, 3), (8, 1, 900, 1)))
    >>> (3, 3) in ranges, (3, 2) in ranges, (500, 1) in ranges, (901, 1) in ranges, bool(ranges)
    (True, False, True, False, True)
    """

    INDEXED_ROWS = 64

    def __init__(self, ranges: Iterable[tuple[int, int, int, int]]) -> None:
        self._by_row: dict[int, list[tuple[int, int]]] = {}
        self._tall: list[tuple[int, int, int, int]] = []
        self._any = False
        for a1, b1, a2, b2 in ranges:
            self._any = True
            if a2 - a1 < self.INDEXED_ROWS:
                for r in range(a1, a2 + 1):
                    self._by_row.setdefault(r, []).append((b1, b2))
            else:
                self._tall.append((a1, b1, a2, b2))

    def __bool__(self) -> bool:
        return self._any

    def __contains__(self, pos: object) -> bool:
        if not isinstance(pos, tuple) or len(pos) != 2:
            return False
        r, c = pos
        for b1, b2 in self._by_row.get(r, ()):  # (plain loops: asked for every showing cell of a book)
            if b1 <= c <= b2:
                return True
        for a1, b1, a2, b2 in self._tall:
            if a1 <= r <= a2 and b1 <= c <= b2:
                return True
        return False
