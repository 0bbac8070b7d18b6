"""Conversion between what a spreadsheet delivers and what the xlbridge core takes.

The Excel layer (:mod:`xlbridge.udfs`) receives cells the way xlwings delivers them:
numbers as floats, blanks as ``None``, a single cell as a scalar, a row or a column as a
list (or a list of one-element lists with ``ndim=2``), a block as a list of lists, or
numpy arrays. This module turns those into plain Python values and turns results back
into 2-D lists that spill. It loads the standard library and numpy only.

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

import math
from fractions import Fraction

from ..core.errors import InputError

__all__ = [
    "ExcelError",
    "CallError",
    "EXCEL_ERROR_LITERALS",
    "NA",
    "VALUE",
    "NUM",
    "is_blank",
    "grid",
    "vector",
    "optional",
    "as_int",
    "as_number",
    "as_bool",
    "shape_of",
    "column",
    "to_cell",
    "to_cells",
    "error_literal",
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

    def __new__(cls, literal: str):
        if literal not in EXCEL_ERROR_LITERALS:
            raise ValueError(f"not an Excel error literal: {literal!r}")
        return super().__new__(cls, literal)

    def __repr__(self) -> str:
        return f"ExcelError({str(self)!r})"


class CallError(str):
    """The one short message returned by a call that cannot run at all (a ``str`` subclass).

    >>> m = CallError("VP: boards must be a whole number 1 or more, got 0")
    >>> isinstance(m, str), m.startswith("VP:")
    (True, True)
    """

    def __repr__(self) -> str:
        return f"CallError({str(self)!r})"


NA = ExcelError("#N/A")
VALUE = ExcelError("#VALUE!")
NUM = ExcelError("#NUM!")


def _is_array(value) -> bool:
    return hasattr(value, "ndim") and hasattr(value, "tolist") and getattr(value, "ndim", 0) > 0


_PLAIN = (int, str, type(None), bool)


def _scalar(value):
    """numpy scalars to Python scalars; NaN (pandas/numpy blank) to None."""
    if type(value) in _PLAIN:
        return value
    if hasattr(value, "dtype") and hasattr(value, "item") and not _is_array(value):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value


def is_blank(value) -> bool:
    """True for an empty cell: ``None``, NaN, or text of only spaces.

    >>> is_blank(None), is_blank("  "), is_blank(0.0)
    (True, True, False)
    """
    value = _scalar(value)
    return value is None or (isinstance(value, str) and not value.strip())


def grid(value) -> list[list]:
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
    if all(isinstance(r, (list, tuple)) or _is_array(r) for r in value):
        rows = [list(r.tolist() if _is_array(r) else r) for r in value]
        width = max(len(r) for r in rows)
        return [[_scalar(c) for c in r] + [None] * (width - len(r)) for r in rows]
    return [[_scalar(c)] for c in value]


def shape_of(value) -> tuple[int, int]:
    """(rows, columns) of a value as :func:`grid` reads it.

    >>> shape_of([[1, 2, 3]]), shape_of(7), shape_of([1, 2])
    ((1, 3), (1, 1), (2, 1))
    """
    g = grid(value)
    return (len(g), len(g[0]) if g else 0)


def vector(value, name: str) -> list:
    """A row or a column (or a single cell) as a flat list; a block is refused.

    >>> vector([[1.0], [2.0]], "scores")
    [1.0, 2.0]
    >>> vector([[1, 2], [3, 4]], "scores")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: scores: expected a row or a column, got a 2 x 2 range
    """
    g = grid(value)
    if not g:
        return []
    if len(g) == 1:
        return list(g[0])
    if len(g[0]) == 1:
        return [r[0] for r in g]
    raise InputError(f"expected a row or a column, got a {len(g)} x {len(g[0])} range", where=name)


def optional(value, default=None):
    """The value of an optional argument, or ``default`` when it is missing or blank.

    A blank cell passed as a range arrives as ``[[None]]``; it counts as missing.

    >>> optional(None, "EBU"), optional([[None]], "EBU"), optional([["ACBL"]], "EBU")
    ('EBU', 'EBU', 'ACBL')
    """
    if value is None:
        return default
    g = grid(value)
    if len(g) == 1 and len(g[0]) == 1:
        v = g[0][0]
        return default if is_blank(v) else v
    return value


def _error_literal(value):
    if isinstance(value, str) and value.strip().upper() in EXCEL_ERROR_LITERALS:
        return ExcelError(value.strip().upper())
    return None


def as_number(value, name: str, *, where: str | None = None):
    """A number from a cell: int when whole, else Fraction (exact); text numbers are read.

    >>> as_number(2.75, "imps_per_vp")
    Fraction(11, 4)
    >>> as_number("16", "expected")
    16
    >>> as_number("many", "expected")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: expected: not a number: 'many'
    """
    value = _scalar(value)
    loc = f"{name}, {where}" if where else name
    if isinstance(value, bool) or value is None:
        raise InputError(f"not a number: {value!r}", where=loc)
    if isinstance(value, str):
        t = value.strip().rstrip("%").strip()
        try:
            f = Fraction(t)
        except (ValueError, ZeroDivisionError):
            raise InputError(f"not a number: {value!r}", where=loc) from None
        if value.strip().endswith("%"):
            f /= 100
        return int(f) if f.denominator == 1 else f
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InputError(f"not a number: {value!r}", where=loc)
        return int(value) if value.is_integer() else Fraction(repr(value))  # decimal text: 2.75 is 11/4
    if isinstance(value, Fraction):
        return value
    raise InputError(f"not a number: {value!r}", where=loc)


def as_int(value, name: str, *, where: str | None = None, minimum: int | None = None) -> int:
    """A whole number from a cell (``7.0`` -> 7), at least ``minimum`` if given.

    >>> as_int(7.0, "boards")
    7
    >>> as_int(6.5, "boards")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: boards: expected a whole number, got 6.5
    """
    n = as_number(value, name, where=where)
    loc = f"{name}, {where}" if where else name
    if not isinstance(n, int):
        raise InputError(f"expected a whole number, got {_show(value)}", where=loc)
    if minimum is not None and n < minimum:
        raise InputError(f"expected a whole number {minimum} or more, got {_show(value)}", where=loc)
    return n


def as_bool(value, name: str, default: bool = False) -> bool:
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
    raise InputError(f"expected TRUE or FALSE, got {value!r}", where=name)


def _show(value) -> str:
    value = _scalar(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, str) else str(value)


def column(values) -> list[list]:
    """A flat list of results as one spilled column.

    >>> column([1, 2])
    [[1], [2]]
    """
    return [[to_cell(v)] for v in values]


def to_cell(value):
    """One result value as Excel gets it: Fraction -> float, bool/str/None/int kept.

    Exact values are converted to the nearest double only here, at the boundary. A result that
    is no finite double (NaN, infinity, a Fraction too large for a double) is ``#NUM!``, never a
    blank or a NaN standing for a number.

    >>> to_cell(Fraction(29, 2)), to_cell(None), to_cell(NA)
    (14.5, None, ExcelError('#N/A'))
    >>> to_cell(float("nan")), to_cell(Fraction(10 ** 400, 3))
    (ExcelError('#NUM!'), ExcelError('#NUM!'))
    """
    if type(value) in _PLAIN:
        return value
    if hasattr(value, "dtype") and hasattr(value, "item") and not _is_array(value):
        value = value.item()  # numpy scalar (a NaN stays NaN here: it is a bad result, not a blank)
    if isinstance(value, Fraction):
        if value.denominator == 1 and abs(value.numerator) < 2 ** 1023:
            return int(value)
        try:
            value = float(value)
        except OverflowError:
            return NUM
    if isinstance(value, float) and not math.isfinite(value):
        return NUM
    return value


def to_cells(rows) -> list[list]:
    """A table of results (list of rows) with every cell through :func:`to_cell`.

    >>> to_cells([[Fraction(1, 2), None]])
    [[0.5, None]]
    """
    return [[to_cell(v) for v in r] for r in rows]


def error_literal(value):
    """The :class:`ExcelError` a cell holds (``"#N/A"`` text or an error read by xlwings), else None.

    >>> error_literal("#n/a"), error_literal("NP")
    (ExcelError('#N/A'), None)
    """
    if type(value) is not str:
        if type(value) in _PLAIN or type(value) is float:
            return None
        value = _scalar(value)
    return _error_literal(value)
