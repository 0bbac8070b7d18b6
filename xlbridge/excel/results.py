"""Excel result tables built fast: columns of exact or float results as the rows that spill.

The adapters' results go out as lists of rows (what xlwings spills); for 100,000 rows, building
them cell by cell costs more than the scoring. These helpers build them with numpy in one go and
keep exact values exact: an integer numerator over a per-row denominator is written as an int where
it is whole and as the nearest double otherwise (:func:`ratio_cells`), as the cell converters of
:mod:`xlbridge.excel.cells` do for one value.

>>> table([1, 2], [3.5, None])
[[1, 3.5], [2, None]]
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from .cells import NUM, to_cell

__all__ = ["column_rows", "number_cells", "ratio_cells", "ratio_table", "table"]


def number_cells(values: npt.NDArray[Any], valid: npt.NDArray[np.bool_] | None = None) -> list[Any]:
    """A column of numbers as cells: ints where whole, floats otherwise, ``None`` where not ``valid``.

    >>> number_cells(np.array([1.0, 2.5, 3.0]), np.array([True, True, False]))
    [1, 2.5, None]
    """
    v = np.asarray(values)
    if v.dtype.kind in "iu":
        out: list[Any] = v.tolist()
    else:
        with np.errstate(invalid="ignore"):
            whole = np.isfinite(v) & (v == np.round(v)) & (np.abs(v) < 2.0 ** 63)
        if whole.all():
            out = v.astype(np.int64).tolist()
        elif not whole.any():
            out = v.tolist()
        else:
            obj = v.astype(object)
            obj[whole] = v[whole].astype(np.int64).astype(object)
            out = obj.tolist()
        bad = ~np.isfinite(v)
        if bad.any():
            for i in np.flatnonzero(bad).tolist():
                out[i] = NUM
    if valid is not None and not valid.all():
        for i in np.flatnonzero(~valid).tolist():
            out[i] = None
    return out


def ratio_cells(num: npt.NDArray[Any], den: npt.NDArray[Any], valid: npt.NDArray[np.bool_] | None = None) -> list[Any]:
    """Exact results ``num / den`` (integer arrays) as cells: the nearest double, an int where whole.

    One integer division for the column; when both are below 2**53 the float division is the
    correctly rounded quotient (IEEE 754), the same double as ``float(Fraction(num, den))``.
    Larger numerators (weighted scores with huge weight denominators) go through Fraction.
    ``valid`` False: a blank cell.

    >>> ratio_cells(np.array([58, 1, 7]), np.array([2, 3, 1]))
    [29, 0.3333333333333333, 7]
    """
    n = np.asarray(num)
    d = np.asarray(den)
    if n.dtype == object or d.dtype == object or (n.size and (int(np.abs(n).max()) >= 2 ** 53
                                                              or int(np.abs(d).max()) >= 2 ** 53)):
        out = [to_cell(Fraction(int(a), int(b))) if int(b) else None for a, b in zip(n.tolist(), d.tolist())]
    else:
        dd = np.where(d == 0, 1, d)
        q, r = np.divmod(n, dd)
        whole = r == 0
        if whole.all():
            out = q.tolist()
        else:
            f = n / dd
            if not whole.any():
                out = f.tolist()
            else:
                obj = f.astype(object)
                obj[whole] = q[whole].astype(object)
                out = obj.tolist()
    if valid is not None and not valid.all():
        for i in np.flatnonzero(~valid).tolist():
            out[i] = None
    return out


def ratio_table(nums: Sequence[npt.NDArray[Any]], den: npt.NDArray[Any],
                valid: npt.NDArray[np.bool_] | None = None) -> list[list[Any]]:
    """Columns of exact results ``num / den`` (one denominator per row) as a list of rows that spills:
    each cell as :func:`ratio_cells` gives it (an int where whole, else the nearest double; ``None``
    where not ``valid``), the rows built by numpy in one pass (one 2-D array, one ``tolist``).

    >>> ratio_table([np.array([58, 1]), np.array([0, 5])], np.array([2, 3]), np.array([True, True]))
    [[29, 0], [0.3333333333333333, 1.6666666666666667]]
    >>> ratio_table([np.array([4, 2])], np.array([2, 2]), np.array([True, False]))
    [[2], [None]]
    """
    d = np.asarray(den)
    ns = [np.asarray(n) for n in nums]
    big = d.dtype == object or any(n.dtype == object for n in ns) or (
        d.size > 0 and (int(np.abs(d).max()) >= 2 ** 53 or any(int(np.abs(n).max()) >= 2 ** 53 for n in ns)))
    if big or not ns:
        return table(*(ratio_cells(n, d, valid) for n in ns))
    dd = np.where(d == 0, 1, d)
    qr = [np.divmod(n, dd) for n in ns]
    whole = np.column_stack([r == 0 for _, r in qr])
    q = np.column_stack([q for q, _ in qr])
    with _gc_paused():
        if whole.all() and (valid is None or valid.all()):
            out: list[list[Any]] = q.tolist()
            return out
        obj = np.column_stack([n / dd for n in ns]).astype(object)
        if whole.any():
            obj[whole] = q[whole].astype(object)
        if valid is not None and not valid.all():
            obj[~valid] = None
        rows: list[list[Any]] = obj.tolist()
        return rows


def column_rows(values: npt.NDArray[Any]) -> list[list[Any]]:
    """A 1-D array of results (ints or floats, every one finite) as one spilled column, built by numpy.

    >>> column_rows(np.array([1, -2])), column_rows(np.array([0.5]))
    ([[1], [-2]], [[0.5]])
    """
    with _gc_paused():
        out: list[list[Any]] = np.asarray(values).reshape(-1, 1).tolist()
        return out


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many small lists (they hold no cycles).

    A million result rows are a million new lists: each full collection pass would walk all of
    them again; paused, the table is built several times faster. On the way out the collector's
    young generations (the new lists, and the few objects made before them) are moved to its oldest
    generation without being walked (``gc.freeze()`` then ``gc.unfreeze()``), as the young
    collection that would follow would find nothing in them: 100,000 rows are then built in about
    6 ms instead of 13 (2026-11-27). Garbage cycles among those few earlier objects wait for the next
    full collection. Not where objects are frozen already (``gc.get_freeze_count()``: the batch
    engine's process, forked from a frozen parent, whose objects must stay out of its collections).
    The previous state is restored.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def table(*columns: Sequence[Any]) -> list[list[Any]]:
    """Columns of cells (equal lengths) as a list of rows, the shape that spills.

    >>> table([1, 2], [3.5, None])
    [[1, 3.5], [2, None]]
    """
    with _gc_paused():
        return [list(r) for r in zip(*columns)]
