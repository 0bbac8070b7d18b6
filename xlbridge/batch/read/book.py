"""Stage 2's entry: what ``xlbridge recalc`` reads of a checked book before the engine evaluates it.

:func:`read_book` takes a :class:`~xlbridge.batch.guard.gate.CheckedBook` (nothing else: only the guard makes
one) and reads, once each, the worksheet parts that declare a template area (their ``<row>`` elements found
once: :func:`~xlbridge.batch.read.capacity.sheet_rows`). From them, with the areas the gate clipped to what each
sheet holds:

- the layout mistakes that need no value (:func:`~xlbridge.batch.read.capacity.first_overflow`: data below a
  table's capacity; :func:`~xlbridge.batch.read.capacity.first_above`: data between a table's header and its
  first row; a row whose result cells hold no formula), as (sheet, (row, column), code, message);
- the result cells of rows inserted into a table that lack their formulas
  (:func:`~xlbridge.batch.read.capacity.missing_results`), which the evaluate stage fills
  (:mod:`xlbridge.batch.write.inserted`) before the engine reads the book;
- for each printable table, the array ranges its part shows and its last row (and, when wide, column) holding a
  constant, which the write stage extends to the last non-blank result.

The parts read stay in the :class:`BookRead` (``rows``), so no later stage reads them again.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..guard.gate import CheckedBook
from .capacity import (
    WIDE_COLUMNS,
    AreaResults,
    SheetRows,
    array_ranges_in,
    first_above,
    first_overflow,
    last_used_col,
    last_used_row,
    meeting,
    missing_results,
    sheet_rows,
)

__all__ = ["BookRead", "read_book", "MAX_FILLED_ROWS"]

#: at most this many rows of a sheet are given their result formulas by the evaluate stage
#: (:mod:`xlbridge.batch.write.inserted`); beyond, the first is named as a layout mistake instead
MAX_FILLED_ROWS = 1_000


@dataclasses.dataclass(frozen=True)
class BookRead:
    """What :func:`read_book` found: the book, each read part's :class:`~xlbridge.batch.read.capacity.SheetRows`
    (``rows``: {sheet: ...}), the layout mistakes (``mistakes``: [(sheet, (row, column), code, message)]), the
    result cells missing in rows inserted into a table (``missing``: {sheet: [(row, column)]}, at most
    :data:`MAX_FILLED_ROWS` rows' worth a sheet) and the printable tables' constants (``print_constants``: {area:
    (array ranges, last row holding a constant, last column holding one or None)})."""

    book: CheckedBook
    rows: dict
    mistakes: list
    missing: dict
    print_constants: dict

    def part_rows(self, sheet: str) -> SheetRows:
        """The sheet's rows as read (read now, once, if this stage did not need them)."""
        found = self.rows.get(sheet)
        if found is None:
            with self.book.open() as zf:
                found = self.rows[sheet] = sheet_rows(zf.read(dict(self.book.sheets)[sheet]))
        return found


def read_book(book: CheckedBook) -> BookRead:
    """Stage 2 of ``recalc``: the :class:`BookRead` of a book the guard has passed (see the module's text)."""
    if not isinstance(book, CheckedBook):  # (the gate by construction: an unchecked path is never read)
        raise TypeError("read_book reads a CheckedBook, which only the guard makes (guard.gate.check_upload)")
    areas = book.areas
    parts = dict(book.sheets)
    headers = dict(areas.headers)
    rows: dict = {}
    mistakes: list = []
    missing: dict = {}
    constants: dict = {}
    wanted = [sheet for sheet in areas.sheets() if sheet in parts]
    if not wanted:
        return BookRead(book, rows, mistakes, missing, constants)
    with book.open() as zf:
        for sheet in wanted:
            rows[sheet] = sheet_rows(zf.read(parts[sheet]))
    for sheet in wanted:
        found = rows[sheet]
        blocks = [b for b in areas.results if b[0] == sheet]
        per_row = sum(b[4] - b[2] + 1 for b in blocks)
        for area in (a for a in areas.capacity if a[0] == sheet):
            header = headers.get(sheet)
            gaps = missing_results(found, area, blocks, limit=(MAX_FILLED_ROWS + 1) * per_row) if blocks else []
            if gaps:
                missing.setdefault(sheet, []).extend(gaps)
            checks = (  # (code, the first cell found, the message with its row as {r})
                ("capacity", first_overflow(found, area),
                 f"row {{r:,}} is below this sheet's capacity (rows {area[1]:,} to {area[3]:,}) and was not read; "
                 f"move those rows to a new workbook"),
                ("layout", None if header is None else first_above(found, area, header),
                 f"row {{r:,}} is between the table's header (row {header or 0:,}) and its first row ({area[1]:,}), "
                 f"where rows inserted directly below the header go, and is not read; insert rows below the "
                 f"table's first row (then sort), or move this row there"),
            )
            mistakes += [(sheet, hit, code, text.format(r=hit[0])) for code, hit, text in checks if hit is not None]
        printed = [a for a in areas.printed if a[0] == sheet]
        arrays = array_ranges_in(found.xml) if printed else ()
        for area in printed:
            # (an array's cells other than its first carry no formula in the part: found by a search of the
            # bytes, they are not taken for constants; the write stage checks them against the engine's)
            guess = meeting(arrays, area)
            last = last_used_row(found, area, AreaResults(0, guess))
            # a wide table (weeks across) is also cut after its last column in use: None keeps its columns
            columns = last_used_col(found, area, last, guess) if area[4] - area[2] + 1 >= WIDE_COLUMNS else None
            constants[area] = (guess, last, columns)
    return BookRead(book, rows, mistakes, missing, constants)


def unfilled_rows(read: BookRead, filled: dict) -> list[tuple[str, Any, str, str]]:
    """The layout mistakes of the result cells still without a formula once the evaluate stage has filled what
    it could (``filled``: {sheet: {(row, column), ...}} it wrote): the first such cell of each sheet, named."""
    out = []
    for sheet, cells in read.missing.items():
        left = sorted(set(cells) - set(filled.get(sheet, ())))
        if left:
            out.append((sheet, left[0], "layout",
                        f"row {left[0][0]:,} has no formula in this result cell (a value typed over it, in a row "
                        f"inserted into the table or not); copy the result cells of another row of the table into "
                        f"it, until then its results are not shown and the results read from this column leave "
                        f"it out"))
    return out
