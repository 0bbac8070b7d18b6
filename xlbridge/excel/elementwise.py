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

from ..core.errors import InputError, XlbridgeError
from . import cells as xl

__all__ = ["Cells", "is_listlike", "broadcast", "elementwise", "given"]

#: What Excel sends for a cell or a range.
Cells = Any


def is_listlike(v: object) -> bool:
    """Whether an argument is a range (a list, tuple or array) rather than one cell."""
    return isinstance(v, (list, tuple)) or (hasattr(v, "ndim") and getattr(v, "ndim", 0) > 0)


def broadcast(args: dict[str, Cells]) -> tuple[list[list[dict[str, Any]]], bool]:
    """The cells of each result position (rows of {argument: cell}) and whether any argument is a range."""
    grids = {k: xl.grid(v) for k, v in args.items()}
    shapes = {k: (len(g), len(g[0]) if g else 0) for k, g in grids.items()}
    big = {k: s for k, s in shapes.items() if s != (1, 1)}
    empty = [k for k, s in shapes.items() if s[0] == 0]
    if empty:
        raise InputError("the range is empty", where=empty[0])
    if len(set(big.values())) > 1:
        desc = ", ".join(f"{k} is {s[0]} x {s[1]}" for k, s in big.items())
        raise InputError(f"ranges must have the same size or be single cells: {desc}")
    h, w = next(iter(big.values()), (1, 1))
    rows = [[{k: (g[0][0] if shapes[k] == (1, 1) else g[r][c]) for k, g in grids.items()} for c in range(w)]
            for r in range(h)]
    return rows, any(is_listlike(v) for v in args.values())


def elementwise(fn: Callable[..., Any], args: dict[str, Cells], *, blank_if: tuple[str, ...] = ()) -> Any:
    """Apply ``fn`` cell by cell (results of repeated cells computed once).

    A cell holding an Excel error passes it on; a cell ``fn`` cannot read gives ``#VALUE!``;
    a position whose ``blank_if`` arguments are all blank gives a blank cell.
    """
    rows, listlike = broadcast(args)
    names = list(args)
    memo: dict[tuple[Any, ...], Any] = {}
    out = []
    for row in rows:
        res = []
        for cells in row:
            key = tuple(cells[k] for k in names)
            try:
                hit = memo.get(key, memo)
            except TypeError:  # an unhashable cell
                hit = memo
            if hit is memo:
                hit = _cell(fn, cells, names, blank_if)
                try:
                    memo[key] = hit
                except TypeError:
                    pass
            res.append(hit)
        out.append(res)
    return out if listlike else out[0][0]


def _cell(fn: Callable[..., Any], cells: dict[str, Any], names: list[str], blank_if: tuple[str, ...]) -> Any:
    for k in names:
        err = xl.error_literal(cells[k])
        if err is not None:
            return err
    if blank_if and all(xl.is_blank(cells[k]) for k in blank_if):
        return None
    try:
        return xl.to_cell(fn(**cells))
    except (XlbridgeError, ValueError, TypeError, ZeroDivisionError, OverflowError):
        return xl.VALUE




def given(**opts: Any) -> dict[str, Any]:
    """The options that were given (a blank one keeps the core's default).

    >>> given(trim="acbl", rounding=None)
    {'trim': 'acbl'}
    """
    return {k: v for k, v in opts.items() if v is not None}
