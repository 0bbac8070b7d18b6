"""What the formula engine reads of a workbook, by range: constant blocks and the book without its cells.

The formulas engine (1.3) builds one graph node per cell holding a value, about 170 µs each: at
10,000 traveller rows three quarters of a recalculation. The engine's graph does not need them: a
formula reads a *range*, and the engine's range assembler fills a range from whatever nodes cover
its cells. :mod:`xlbridge.batch.recalc` therefore hands the engine

- the workbook *without* its sheet data (:func:`book_without_cells`, read by openpyxl as usual:
  sheet names, defined names, links, and the check that openpyxl can read every other part);
- the formula cells and the few special cells (:class:`CellView`), compiled one by one by the
  engine's own ``compile_cell`` exactly as when openpyxl delivers them;
- the constants of each column as a few **blocks** (:func:`constant_blocks`): one engine cell per
  run of rows, its value a column (numpy object array, blanks as the engine's ``EMPTY``), read once
  from the streamed sheet XML (:func:`xlbridge.batch.read.sheetxml.read_sheet`). A block never covers a
  formula cell or a cell of an array range, and a run is cut where a column has more than
  :data:`GAP` blank rows in a row (so a value in A1 and another in A1000000 are two small blocks).

Every value the engine computes is the same as when every constant is its own node: the range
assembler copies the same values into the same places (``tests/batch/test_engine_paths.py``
compares both paths on random workbooks).

>>> blocks = constant_blocks({1: ([1, 2, 4], [10, 20, 40]), 2: ([3], ["x"])}, barriers={1: [(3, 3)]})
>>> [(b.first_row, b.last_row, b.column, b.values.ravel().tolist()) for b in blocks]
[(1, 2, 1, [10, 20]), (4, 4, 1, [40]), (3, 3, 2, ['x'])]
"""

from __future__ import annotations

import bisect
import dataclasses
import io
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..formulas_seam import shared_strings

__all__ = ["CellView", "Block", "GAP", "constant_blocks", "book_without_cells", "read_shared_strings", "without_rows"]

#: Blank rows after which a column's run of constants is cut into a new block.
GAP = 64


@dataclasses.dataclass(frozen=True)
class CellView:
    """What the engine's ``compile_cell`` reads of an openpyxl cell: its coordinate, value and type.

    >>> CellView("B3", "=A1*2", "f").coordinate
    'B3'
    """

    coordinate: str
    value: Any
    data_type: str


@dataclasses.dataclass(frozen=True)
class Block:
    """A run of one column's constants: rows ``first_row``..``last_row`` of ``column``, values (n x 1)."""

    first_row: int
    last_row: int
    column: int
    values: Any  # numpy object array of shape (rows, 1); blanks are the engine's EMPTY


def _merge(intervals: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def constant_blocks(columns: Mapping[int, tuple[Sequence[int], Sequence[Any]]],
                    barriers: Mapping[int, Iterable[tuple[int, int]]] | None = None, *,
                    empty: Any = None, gap: int = GAP) -> list[Block]:
    """Cut each column's constants (``columns``: column -> (rows ascending, values)) into blocks.

    ``barriers``: column -> [(first row, last row), ...] that no block may cover (formula cells,
    special cells, array ranges); ``empty``: the value of a blank inside a block (the engine's
    ``EMPTY``); a run is cut after more than ``gap`` blank rows.
    """
    import numpy as np

    barriers = barriers or {}
    out: list[Block] = []
    for col in sorted(columns):
        rows, vals = columns[col]
        if not rows:
            continue
        walls = _merge(barriers.get(col, ()))
        wall_starts = [a for a, _ in walls]
        start = 0
        n = len(rows)
        for i in range(1, n + 1):
            cut = i == n
            if not cut:
                prev, row = rows[i - 1], rows[i]
                cut = row - prev - 1 > gap
                if not cut and wall_starts:
                    k = bisect.bisect_right(wall_starts, prev)  # first wall starting after prev
                    cut = k < len(walls) and walls[k][0] < row
            if cut:
                first, last = rows[start], rows[i - 1]
                arr = np.empty((last - first + 1, 1), object)
                arr[:, 0] = empty
                idx = np.asarray(rows[start:i], dtype=np.int64) - first
                block_vals = np.empty(i - start, object)
                block_vals[:] = list(vals[start:i])
                arr[idx, 0] = block_vals
                out.append(Block(first, last, col, arr))
                start = i
    return out


def without_rows(data: bytes, sheetdata: tuple) -> bytes:
    """A worksheet part without the content of its ``<sheetData>`` (``sheetdata``: the layout's
    (qname, start, first child offset or None, end-tag offset or None, end)).

    >>> without_rows(b'<w><sheetData><row r="1"/></sheetData></w>', ("sheetData", 3, 14, 26, 38))
    b'<w><sheetData></sheetData></w>'
    """
    first, end_tag = sheetdata[2], sheetdata[3]
    return data if first is None or end_tag is None else data[:first] + data[end_tag:]


def book_without_cells(path: str, cut_parts: Mapping[str, bytes]) -> io.BytesIO:
    """An in-memory copy of the package at ``path`` whose worksheets keep ``<sheetData>`` but no rows.

    ``cut_parts``: worksheet part -> its content without rows (:func:`without_rows`, made while the
    part was read: the parts are not inflated again). Every other member is copied unchanged (stored,
    not compressed: it is read once, at once).
    """
    out = io.BytesIO()
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            data = cut_parts.get(info.filename)
            dst.writestr(info.filename, src.read(info) if data is None else data)
    out.seek(0)
    return out


def read_shared_strings(path: str) -> list[str]:
    """The shared-string table as the formula engine reads it (formulas' ``XlReader.read_strings``).

    The part is the one the package's content types name (openpyxl's manifest), read with formulas'
    own string-table reader (``_xHHHH_`` escapes decoded).
    """
    return shared_strings(path)
