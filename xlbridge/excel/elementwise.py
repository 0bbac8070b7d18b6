"""Element-wise Excel functions: scalars and single cells broadcast, ranges must share one shape.

A function such as ``BRIDGE_SCORE`` or ``IMPS`` takes a cell or a range for each operand; the
result has the shape of the ranges (single cells broadcast). Each result cell is computed once
per distinct combination of input cells (a traveller repeats the same contract and result many
times); an input cell holding an Excel error passes it on, a cell the core cannot read gives
``#VALUE!``.

>>> elementwise(lambda a, b: a + b, {"a": [[1], [2], [1]], "b": 10})
[[11], [12], [11]]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import InputError, XlbridgeError
from . import cells as xl
from .results import column_rows, table

__all__ = ["Cells", "is_listlike", "broadcast", "elementwise", "given", "number_line", "shaped"]

#: What Excel sends for a cell or a range.
Cells = Any


def is_listlike(v: object) -> bool:
    """Whether an argument is a range (a list, tuple or array) rather than one cell."""
    return isinstance(v, (list, tuple)) or (hasattr(v, "ndim") and getattr(v, "ndim", 0) > 0)


def broadcast(args: dict[str, Cells]) -> tuple[list[list[Any]], tuple[int, int], bool]:
    """Each argument as a flat list of cells over the result positions (row by row), the result
    shape, and whether any argument is a range. Single cells broadcast; ranges share one shape."""
    cells = {k: xl.cells_and_shape(v) for k, v in args.items()}
    shapes = {k: shape for k, (_, shape) in cells.items()}
    big = {k: s for k, s in shapes.items() if s != (1, 1)}
    empty = [k for k, s in shapes.items() if s[0] == 0]
    if empty:
        raise InputError("the range is empty", where=empty[0])
    if len(set(big.values())) > 1:
        desc = ", ".join(f"{k} is {s[0]} x {s[1]}" for k, s in big.items())
        raise InputError(f"ranges must have the same size or be single cells: {desc}")
    h, w = next(iter(big.values()), (1, 1))
    flat = [c * (h * w) if shapes[k] == (1, 1) else c for k, (c, _) in cells.items()]
    return flat, (h, w), any(is_listlike(v) for v in args.values())


def elementwise(fn: Callable[..., Any], args: dict[str, Cells], *, blank_if: tuple[str, ...] = ()) -> Any:
    """Apply ``fn`` cell by cell, its arguments positional in ``args`` order (repeated cells computed once).

    A cell holding an Excel error passes it on; a cell ``fn`` cannot read gives ``#VALUE!``;
    a position whose ``blank_if`` arguments are all blank gives a blank cell.
    """
    columns, (h, w), listlike = broadcast(args)
    blank_at = [i for i, k in enumerate(args) if k in blank_if]
    memo: dict[tuple[Any, ...], Any] = {}
    out = []
    for cells in zip(*columns):
        key = (cells, tuple(map(type, cells)))  # (TRUE equals 1 in Python, not in a cell: a board of TRUE is no 1)
        try:
            hit = memo.get(key, memo)
        except TypeError:  # an unhashable cell
            hit = memo
        if hit is memo:
            hit = _cell(fn, cells, blank_at)
            try:
                memo[key] = hit
            except TypeError:
                pass
        out.append(hit)
    if not listlike:
        return out[0]
    return [out[r * w:(r + 1) * w] for r in range(h)]


def _cell(fn: Callable[..., Any], cells: tuple[Any, ...], blank_at: list[int]) -> Any:
    for c in cells:
        err = xl.error_literal(c)
        if err is not None:
            return err
    if blank_at and all(xl.is_blank(cells[i]) for i in blank_at):
        return None
    try:
        return xl.to_cell(fn(*cells))
    except XlbridgeError as exc:  # the core's own message says what is wrong with this cell
        return xl.ExcelError("#VALUE!", str(exc))
    except (ValueError, TypeError, ZeroDivisionError, OverflowError):
        return xl.VALUE


def number_line(value: Cells, name: str) -> tuple[xl.Column, bool] | None:
    """A row or column argument holding plain numbers only (no blank, text or error): the column read
    once, and whether it is a row; else None (the caller goes cell by cell).

    >>> line = number_line([[1.0], [2.0]], "x")
    >>> line[0].numbers.tolist(), line[1]
    ([1.0, 2.0], False)
    >>> number_line([[1.0], ["NP"]], "x") is None, number_line(5.0, "x") is None
    (True, True)
    """
    if not is_listlike(value):
        return None
    is_row = False
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], (list, tuple)):
        is_row, value = True, list(value[0])
    elif getattr(value, "ndim", 1) == 2 and getattr(value, "shape", (0, 0))[0] == 1:
        is_row = True
    try:
        c = xl.read_column(value, name)
    except InputError:
        return None
    if not len(c) or not np.isfinite(c.numbers).all():
        return None
    return c, is_row


def shaped(values: list[Any] | npt.NDArray[Any], is_row: bool) -> list[list[Any]]:
    """Flat results back in the shape of their argument: one row, or one cell per row.

    A numpy array of finite numbers (ints or floats) is turned into cells by numpy in one pass.

    >>> shaped(np.array([1, 2]), False), shaped([1, 2], True)
    ([[1], [2]], [[1, 2]])
    """
    if isinstance(values, np.ndarray):
        return [values.tolist()] if is_row else column_rows(values)
    return [values] if is_row else table(values)


def given(**opts: Any) -> dict[str, Any]:
    """The options that were given (a blank one keeps the core's default).

    >>> given(trim="acbl", rounding=None)
    {'trim': 'acbl'}
    """
    return {k: v for k, v in opts.items() if v is not None}
