"""Cells: between what a spreadsheet delivers and what the xlbridge core takes, both ways.

The Excel layer receives cells the way xlwings delivers them: numbers as floats, blanks as
``None``, a single cell as a scalar, a row or a column as a list (or a list of one-element
lists with ``ndim=2``), a block as a list of lists, or numpy arrays. This module turns those
into Python values and numpy columns, and turns results back into 2-D lists that spill. It
loads the standard library, numpy and the core only.

Speed: a column argument is read **once**, as a whole (:func:`read_column`: one numpy array of
its numbers, the cells kept for the few that are not plain numbers), and a column of exact
results goes back as a whole (:func:`ratio_cells`: integer numerators over denominators, one
division, ints where whole); no ``Fraction`` and no per-cell conversion where a vectorised one
works.

Two kinds of bad result, both ``str`` subclasses so that any spreadsheet writes them:

* :class:`ExcelError` - a per-cell error value (``#VALUE!``, ``#N/A``, ``#NUM!``) in one
  cell of a result. It compares equal to the plain text ``"#N/A"``.
* :class:`CallError` - one short message for a call that cannot run at all, naming
  the function, the row and the value (``"MATCHPOINTS: board 1, row 4: impossible
  score: 410 ..."``).

>>> grid([[420.0], [None], ["NP"]])
[[420.0], [None], ['NP']]
>>> vector([[1.0, 2.0, 3.0]], "scores")
[1.0, 2.0, 3.0]
>>> NA == "#N/A", isinstance(NA, ExcelError)
(True, True)
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import InputError, shown
from ..core.numbers import exact, number_text

__all__ = [
    "ExcelError",
    "CallError",
    "LimitCallError",
    "EXCEL_ERROR_LITERALS",
    "NA",
    "VALUE",
    "NUM",
    "is_blank",
    "grid",
    "cells_and_shape",
    "vector",
    "optional",
    "as_int",
    "as_number",
    "as_bool",
    "as_text",
    "shape_of",
    "column",
    "to_cell",
    "to_cells",
    "error_literal",
    "Column",
    "read_column",
    "number_block",
]

#: The error literals Excel knows, in the order of ``ERROR.TYPE``.
EXCEL_ERROR_LITERALS = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A")


class ExcelError(str):
    """An Excel error value in one cell of a result (``#VALUE!``, ``#N/A``, ``#NUM!``).

    A ``str`` subclass: it compares equal to its literal, and xlwings' Office.js runtime
    (xlwings Lite / Server) turns exactly these strings into real Excel errors.

    >>> ExcelError("#VALUE!") == "#VALUE!"
    True
    >>> ExcelError("oops")
    Traceback (most recent call last):
    ...
    ValueError: not an Excel error literal: 'oops'
    """

    reason: str
    """Why the cell is an error (a one-line message), or ``""``: Excel shows only the literal; the
    headless recalc lists the reason next to the cell (``ExcelError("#VALUE!", "VP: ...")``)."""

    def __new__(cls, literal: str, reason: str = "") -> ExcelError:
        if literal not in EXCEL_ERROR_LITERALS:
            raise ValueError(f"not an Excel error literal: {shown(literal)}")
        self = super().__new__(cls, literal)
        self.reason = reason
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.reason))

    def __repr__(self) -> str:
        return f"ExcelError({str(self)!r})"


class CallError(str):
    """The one short message returned by a call that cannot run at all (a ``str`` subclass).

    >>> m = CallError("VP: boards must be a whole number 1 or more, got 0")
    >>> isinstance(m, str), m.startswith("VP:")
    (True, True)
    """

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


class LimitCallError(CallError):
    """The message of a call refused for doing more work than a documented limit allows
    (:class:`xlbridge.core.errors.LimitError`): the headless recalc reports it even where the formula
    around the call hides the text (``=SUM(FAIRNESS(...))``), since its cell's value is then not a result."""


NA = ExcelError("#N/A")
VALUE = ExcelError("#VALUE!")
NUM = ExcelError("#NUM!")
_ERRORS = {e: ExcelError(e) for e in EXCEL_ERROR_LITERALS}


def _is_array(value: object) -> bool:
    return hasattr(value, "ndim") and hasattr(value, "tolist") and getattr(value, "ndim", 0) > 0


_PLAIN = (int, str, type(None), bool)


def _scalar(value: Any) -> Any:
    """numpy scalars to Python scalars; NaN (pandas/numpy blank) to None."""
    if type(value) in _PLAIN:
        return value
    if hasattr(value, "dtype") and hasattr(value, "item") and not _is_array(value):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value


def is_blank(value: object) -> bool:
    """True for an empty cell: ``None``, NaN, or text of only spaces.

    >>> is_blank(None), is_blank("  "), is_blank(0.0)
    (True, True, False)
    """
    value = _scalar(value)
    return value is None or (isinstance(value, str) and not value.strip())


def _flat_column(value: list[Any]) -> list[Any] | None:
    """The cells of a list of one-cell rows (xlwings' ``ndim=2`` column), quickly; else None."""
    if value and type(value[0]) is list and set(map(type, value)) == {list}:
        try:
            return [x for (x,) in value]  # every row exactly one cell, or ValueError
        except ValueError:
            return None
    return None


def _clean(cells: list[Any]) -> list[Any]:
    """Plain Python scalars: numpy scalars unwrapped, NaN (a blank) as None; fast when already plain."""
    types = set(map(type, cells))
    if types <= {float, type(None)}:
        nan = np.flatnonzero(np.isnan(np.array(cells, dtype=np.float64))) if cells else np.zeros(0, dtype=np.int64)
        if nan.size:
            cells = list(cells)
            for i in nan.tolist():
                cells[i] = None
        return cells
    if types <= {float, int, str, type(None), bool}:
        if float in types and any(c != c for c in cells if type(c) is float):
            return [None if type(c) is float and c != c else c for c in cells]
        return cells
    return [_scalar(c) for c in cells]


def grid(value: Any) -> list[list[Any]]:
    """Any cell value, row, column or block as a list of rows (a 1-D list is a column).

    >>> grid(5.0)
    [[5.0]]
    >>> grid([1.0, 2.0])
    [[1.0], [2.0]]
    >>> import numpy as np
    >>> grid(np.array([[1, 2], [3, 4]]))
    [[1, 2], [3, 4]]
    """
    if _is_array(value):
        value = value.tolist()
    if isinstance(value, tuple):
        value = list(value)
    if not isinstance(value, list):
        return [[_scalar(value)]]
    if not value:
        return []
    flat = _flat_column(value)
    if flat is not None:
        return [[c] for c in _clean(flat)]
    if _LIST_TYPE.issuperset(map(type, value)):
        rows = value  # (lists of cells, as xlwings and the engine send a block: only read below)
    elif all(isinstance(r, (list, tuple)) or _is_array(r) for r in value):
        rows = [list(r.tolist() if _is_array(r) else r) for r in value]
    else:
        rows = None
    if rows is not None:
        width = max(len(r) for r in rows)
        if not width:
            return [[] for _ in rows]  # (rows of no cells: a 2 x 0 range)
        # the cells in one list, cleaned as _scalar cleans each (one pass when they are plain), rows padded
        flat = _clean([c for r in rows for c in (r if len(r) == width else r + [None] * (width - len(r)))])
        return [flat[i:i + width] for i in range(0, len(flat), width)]
    return [[c] for c in _clean(value)]


def shape_of(value: Any) -> tuple[int, int]:
    """(rows, columns) of a value as :func:`grid` reads it.

    >>> shape_of([[1, 2, 3]]), shape_of(7), shape_of([1, 2])
    ((1, 3), (1, 1), (2, 1))
    """
    g = grid(value)
    return (len(g), len(g[0]) if g else 0)


def cells_and_shape(value: Any) -> tuple[list[Any], tuple[int, int]]:
    """The cells of a value row by row, as :func:`grid` reads them, and its (rows, columns); a column
    of one-cell rows (what the engine and xlwings send) without building those rows again.

    >>> cells_and_shape([[1.0], [2.0]]), cells_and_shape([[1.0, 2.0]]), cells_and_shape(3.0)
    (([1.0, 2.0], (2, 1)), ([1.0, 2.0], (1, 2)), ([3.0], (1, 1)))
    """
    if type(value) is list:
        flat = _flat_column(value)
        if flat is not None:
            return _clean(flat), (len(flat), 1)
    g = grid(value)
    return [c for row in g for c in row], (len(g), len(g[0]) if g else 0)


def vector(value: Any, name: str) -> list[Any]:
    """A row or a column (or a single cell) as a flat list; a block is refused.

    >>> vector([[1.0], [2.0]], "scores")
    [1.0, 2.0]
    >>> vector([[1, 2], [3, 4]], "scores")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: scores: expected a row or a column, got a 2 x 2 range
    """
    if type(value) is list and len(value) == 1 and type(value[0]) is list:  # one row (or one cell)
        return _clean(list(value[0]))
    if isinstance(value, list):
        flat = _flat_column(value)
        if flat is not None:
            return _clean(flat)
        if value and not isinstance(value[0], (list, tuple)) and not _is_array(value[0]):
            return _clean(list(value))
    g = grid(value)
    if not g:
        return []
    if len(g) == 1:
        return list(g[0])
    if len(g[0]) == 1:
        return [r[0] for r in g]
    raise InputError(f"expected a row or a column, got a {len(g)} x {len(g[0])} range", where=name)


def optional(value: Any, default: Any = None) -> Any:
    """The value of an optional argument, or ``default`` when it is missing or blank.

    A blank cell passed as a range arrives as ``[[None]]``; it counts as missing.

    >>> optional(None, "EBU"), optional([[None]], "EBU"), optional([["ACBL"]], "EBU")
    ('EBU', 'EBU', 'ACBL')
    """
    t = type(value)
    if t is float:  # one number cell, the common case
        return default if value != value else value
    if value is None:
        return default
    if t is int or t is str and value.strip():
        return value
    if t is list and len(value) > 1:  # a range of several rows: given (no scan of its cells)
        return value
    g = grid(value)
    if len(g) == 1 and len(g[0]) == 1:
        v = g[0][0]
        return default if is_blank(v) else v
    return value


def _error_literal(value: object) -> ExcelError | None:
    if isinstance(value, str) and len(value) < 16:
        return _ERRORS.get(value.strip().upper())
    return None


def _loc(name: str, where: str | None) -> str:
    return f"{name}, {where}" if where else name


_EXACT_WHOLE = 2.0 ** 53  # below it a whole float is its integer, digit for digit (repr and int agree)


def as_number(value: Any, name: str, *, where: str | None = None) -> int | Fraction:
    """A number from a cell: int when whole, else Fraction (exact); text numbers are read (``"5%"`` too).

    Text is read by :func:`xlbridge.core.numbers.number_text`: bounded, so ``"1e99999999"`` is
    refused at once.

    >>> as_number(2.75, "imps_per_vp")
    Fraction(11, 4)
    >>> as_number("16", "expected"), as_number("12.5%", "tail")
    (16, Fraction(1, 8))
    >>> as_number("many", "expected")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: expected: not a number: 'many'
    """
    kind = type(value)
    if kind is int:
        return int(value)
    if kind is float and value.is_integer() and -_EXACT_WHOLE < value < _EXACT_WHOLE:
        return int(value)  # what exact() gives: the whole number the cell shows
    value = _scalar(value)
    loc = _loc(name, where)
    if isinstance(value, bool) or value is None:
        raise InputError(f"not a number: {shown(value)}", where=loc)
    if isinstance(value, str):
        t = value.strip()
        percent = t.endswith("%")
        f = number_text(t[:-1] if percent else t, "the number", where=loc)
        if f is None:
            raise InputError(f"not a number: {shown(value)}", where=loc)
        if percent:
            f /= 100
        return int(f) if f.denominator == 1 else f
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"not a number: {shown(value)}", where=loc)
    if isinstance(value, (int, float, Fraction)):
        f = exact(value, name, where=where)
        return int(f) if f.denominator == 1 else f
    raise InputError(f"not a number: {shown(value)}", where=loc)


def as_int(value: Any, name: str, *, where: str | None = None, minimum: int | None = None,
           maximum: int | None = None) -> int:
    """A whole number from a cell (``7.0`` -> 7), within ``minimum``..``maximum`` if given.

    >>> as_int(7.0, "boards")
    7
    >>> as_int(6.5, "boards")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: boards: expected a whole number, got 6.5
    """
    n = as_number(value, name, where=where)
    loc = _loc(name, where)
    if not isinstance(n, int):
        raise InputError(f"expected a whole number, got {shown_cell(value)}", where=loc)
    if (minimum is not None and n < minimum) or (maximum is not None and n > maximum):
        want = (f"from {minimum} to {maximum:,}" if minimum is not None and maximum is not None
                else f"{minimum} or more" if minimum is not None else f"{maximum:,} or less")
        raise InputError(f"expected a whole number {want}, got {shown_cell(value)}", where=loc)
    return n


def as_bool(value: Any, name: str, default: bool = False) -> bool:
    """TRUE/FALSE from a cell: booleans, 1/0, or text TRUE/FALSE/YES/NO; blank gives ``default``.

    >>> as_bool(None, "average"), as_bool(True, "average"), as_bool("yes", "merged")
    (False, True, True)
    """
    value = optional(value, None)
    if value is None:
        return default
    value = _scalar(value)
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().upper() in ("TRUE", "YES", "Y", "1", "FALSE", "NO", "N", "0"):
        return value.strip().upper() in ("TRUE", "YES", "Y", "1")
    raise InputError(f"expected TRUE or FALSE, got {shown(value)}", where=name)


def as_text(value: Any, name: str, default: str | None = None) -> str | None:
    """An optional text option (blank: ``default``); a whole number typed in the cell becomes its text.

    >>> as_text([["acbl "]], "scale"), as_text(1.0, "trim"), as_text(None, "scale", "EBU")
    ('acbl', '1', 'EBU')
    """
    v = optional(value, None)
    if v is None:
        return default
    v = _scalar(v)
    if isinstance(v, str):
        return v.strip()
    if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
        return str(int(v)) if float(v).is_integer() else repr(v)
    raise InputError(f"expected text, got {shown(v)}", where=name)


def shown_cell(value: Any) -> str:
    """A cell value for a message: whole floats without ".0", text quoted and clipped."""
    value = _scalar(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, float):
        return repr(value)  # 1e+308, not its 309 digits
    return shown(value) if isinstance(value, str) else shown(str(value))


def column(values: Any) -> list[list[Any]]:
    """A flat list of results as one spilled column.

    >>> column([1, 2])
    [[1], [2]]
    """
    return [[to_cell(v)] for v in values]


_DOUBLE_MAX = 2 ** 1024  # the first integer no double can hold (float(2**1024) overflows)


def to_cell(value: Any) -> Any:
    """One result value as Excel gets it: Fraction -> float, bool/str/None/int kept.

    Exact values are converted to the nearest double only here, at the boundary. A result that
    is no finite double (NaN, infinity, an int or Fraction too large for a double) is
    ``#NUM!``, never a blank or a NaN standing for a number.

    >>> to_cell(Fraction(29, 2)), to_cell(None), to_cell(NA)
    (14.5, None, ExcelError('#N/A'))
    >>> to_cell(float("nan")), to_cell(Fraction(10 ** 400, 3)), to_cell(10 ** 309)
    (ExcelError('#NUM!'), ExcelError('#NUM!'), ExcelError('#NUM!'))
    """
    t = type(value)
    if t is float:
        return value if math.isfinite(value) else NUM
    if t is int:
        return value if -_DOUBLE_MAX < value < _DOUBLE_MAX else NUM
    if t is Fraction:  # the core's exact results
        if value.denominator == 1:
            n = value.numerator
            return n if -_DOUBLE_MAX < n < _DOUBLE_MAX else NUM
        try:
            f = float(value)
        except OverflowError:
            return NUM
        return f if math.isfinite(f) else NUM
    if t in _PLAIN:
        return value
    if hasattr(value, "dtype") and hasattr(value, "item") and not _is_array(value):
        value = value.item()  # numpy scalar (a NaN stays NaN here: it is a bad result, not a blank)
        if type(value) is int:
            return to_cell(value)
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return to_cell(int(value.numerator))
        try:
            value = float(value)
        except OverflowError:
            return NUM
    if isinstance(value, float) and not math.isfinite(value):
        return NUM
    return value


def to_cells(rows: Any) -> list[list[Any]]:
    """A table of results (list of rows) with every cell through :func:`to_cell`.

    >>> to_cells([[Fraction(1, 2), None]])
    [[0.5, None]]
    """
    return [[to_cell(v) for v in r] for r in rows]


def error_literal(value: Any) -> ExcelError | None:
    """The :class:`ExcelError` a cell holds (``"#N/A"`` text or an error read by xlwings), else None.

    >>> error_literal("#n/a"), error_literal("NP")
    (ExcelError('#N/A'), None)
    """
    if type(value) is not str:
        if type(value) in _PLAIN or type(value) is float:
            return None
        value = _scalar(value)
    return _error_literal(value)


# --------------------------------------------------------------------------------------------
# whole columns at once


@dataclass(frozen=True, eq=False)
class Column:
    """One column argument read once: its cells and, for the cells holding a plain number, the number.

    ``cells``: the flat cells (plain Python scalars, blanks ``None``); ``numbers``: float64, the
    number of each cell that holds an int or a float (not TRUE/FALSE), NaN elsewhere; ``whole``:
    where that number is a whole number (exactly representable, below 2**53).

    >>> c = read_column([[420.0], ["NP"], [None], [7]], "scores")
    >>> c.numbers.tolist()[:2], c.whole.tolist()
    ([420.0, nan], [True, False, False, True])
    """

    name: str
    cells: list[Any]
    numbers: npt.NDArray[np.float64]
    whole: npt.NDArray[np.bool_]

    def __len__(self) -> int:
        return len(self.cells)

    def ints(self) -> npt.NDArray[np.int64]:
        """The whole numbers as int64 (0 where a cell holds none)."""
        return np.where(self.whole, self.numbers, 0).astype(np.int64)


def _as_float(c: Any) -> float:
    t = type(c)
    if t is float:
        return float(c)
    if t is int and -2 ** 63 < c < 2 ** 63:
        return float(c)
    return math.nan


_NUMBER_TYPES = frozenset((float, type(None)))


def _number_rows(value: Any) -> tuple[list[Any], npt.NDArray[np.float64]] | None:
    """A list of one-cell rows (xlwings' ``ndim=2`` column) holding only floats and blanks: its cells
    (a new list) and their float64 array (NaN for a blank), by one flattening pass, one pass over the
    cells' types and one numpy conversion; else None (the general reading).

    >>> _number_rows([[420.0], [None]])[1].tolist(), _number_rows([[420.0], ["NP"]]), _number_rows([[1.0, 2.0]])
    ([420.0, nan], None, None)
    """
    if type(value) is not list or not value or type(value[0]) is not list:
        return None
    try:
        flat = [x for (x,) in value]  # every row exactly one cell (a row of a float raises TypeError)
    except (TypeError, ValueError):
        return None
    if not _NUMBER_TYPES.issuperset(map(type, flat)):  # a text cell (e.g. a row "N"), an int, a bool: general
        return None
    return flat, np.array(flat, dtype=np.float64)


def number_block(value: Any) -> tuple[list[list[Any]], npt.NDArray[np.float64]] | None:
    """An n x k block as xlwings sends it (a list of equally long list rows) holding only floats and
    blanks: its rows as :func:`grid` gives them (new lists) and an n x k float64 array (NaN for a
    blank), with no Python loop over the cells; else None (read it with :func:`grid`).

    >>> rows, a = number_block([[420.0, None], [400.0, -50.0]])
    >>> rows, a.tolist()
    ([[420.0, None], [400.0, -50.0]], [[420.0, nan], [400.0, -50.0]])
    >>> number_block([[420.0], ["NP"]]), number_block([[1.0, 2.0], [3.0]]), number_block([[float("nan")]])
    (None, None, None)
    """
    if type(value) is not list or not value or type(value[0]) is not list:
        return None
    if not _LIST_TYPE.issuperset(map(type, value)) or len(set(map(len, value))) != 1 or not value[0]:
        return None
    flat = list(itertools.chain.from_iterable(value))
    if not _NUMBER_TYPES.issuperset(map(type, flat)):
        return None
    arr = np.array(flat, dtype=np.float64)
    if int(np.isnan(arr).sum()) != flat.count(None):  # a NaN float (numpy/pandas blank): grid makes it None
        return None
    return list(map(list, value)), arr.reshape(len(value), len(value[0]))


_LIST_TYPE = frozenset((list,))


def read_column(value: Any, name: str) -> Column:
    """Read a row or column argument once: :class:`Column` (a block is refused, naming ``name``).

    One numpy conversion for the whole column: a column of floats and blanks (what Excel sends)
    becomes its array without a Python loop over the cells.
    """
    fast = _number_rows(value)
    if fast is not None:  # a column of numbers and blanks as Excel sends it
        cells, numbers = fast
        nan = np.flatnonzero(np.isnan(numbers))
        if nan.size:
            for i in nan.tolist():
                cells[i] = None
    elif isinstance(value, np.ndarray) and value.ndim >= 1 and value.dtype.kind in "fiu" and \
            (value.ndim == 1 or 1 in value.shape[:2]):
        numbers = np.asarray(value, dtype=np.float64).ravel()
        cells = [None if x != x else x for x in value.ravel().tolist()]
    else:
        flat = _flat_column(value) if isinstance(value, list) else None
        cells = flat if flat is not None else vector(value, name)
        types = set(map(type, cells))
        if types <= {float, type(None)}:  # what Excel sends for a column of numbers and blanks
            numbers = np.array(cells, dtype=np.float64) if cells else np.zeros(0)
            nan = np.flatnonzero(np.isnan(numbers))
            if nan.size:
                cells = list(cells)
                for i in nan.tolist():
                    cells[i] = None
        else:
            cells = _clean(cells) if flat is not None else cells
            numbers = np.fromiter(map(_as_float, cells), dtype=np.float64, count=len(cells))
    with np.errstate(invalid="ignore"):
        whole = np.isfinite(numbers) & (numbers == np.round(numbers)) & (np.abs(numbers) < 2.0 ** 53)
    return Column(name, cells, numbers, whole)
