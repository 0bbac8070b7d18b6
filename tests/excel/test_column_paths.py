"""The vectorised readings and writings of the Excel layer give exactly what the general ones give.

Each fast path (a column or block of floats and blanks read as one array, results written by numpy,
a season ledger straight to the core) is compared with the general path on the same cells: the
general one is forced by an input the fast one does not take (ints instead of floats, a blank row
that is skipped), so the two must agree cell for cell and type for type.
"""

from __future__ import annotations

import math
import random
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from xlbridge.excel import cells as xl
from xlbridge.excel import results as xr
from xlbridge.udfs import EXCEL_FUNCTIONS as F


def same(a, b):
    """Equal cell for cell, with the same Python types (1 is not 1.0 here)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and (a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)))


def test_read_column_fast_and_general_agree():
    rnd = random.Random(5)
    vals = [rnd.choice([None, 420.0, -50.0, 2.5, float("nan"), 1e300, -0.0, 2.0 ** 60]) for _ in range(500)]
    fast = xl.read_column([[v] for v in vals], "x")
    general = xl.read_column(list(vals), "x")  # a flat list: the general reading
    assert same(fast.cells, general.cells)
    assert np.array_equal(fast.numbers, general.numbers, equal_nan=True)
    assert fast.whole.tolist() == general.whole.tolist()
    assert all(c is None for c, v in zip(fast.cells, vals) if v is None or v != v)


def test_read_column_refuses_what_it_cannot_take_fast():
    assert xl._number_rows([[1.0], [True]]) is None        # TRUE is no number
    assert xl._number_rows([[1.0], ["420"]]) is None       # text is read by the general path
    assert xl._number_rows([[1.0, 2.0], [3.0, 4.0]]) is None
    assert xl._number_rows([[1.0], [2.0, 3.0]]) is None
    assert xl._number_rows([[1.0], 2.0]) is None
    c = xl.read_column([[1.0], [True], ["NP"], [None]], "x")
    assert c.numbers[1] != c.numbers[1] and c.cells[1] is True


def test_number_block_is_grid():
    rnd = random.Random(6)
    block = [[rnd.choice([None, 420.0, -50.0, 0.6]) for _ in range(3)] for _ in range(200)]
    rows, arr = xl.number_block(block)
    assert same(rows, xl.grid(block))
    assert rows is not block and rows[0] is not block[0]
    assert np.array_equal(arr, np.array([[np.nan if v is None else v for v in r] for r in block]), equal_nan=True)
    assert xl.number_block([[1.0, float("nan")]]) is None
    assert xl.number_block([[1, 2.0]]) is None
    assert xl.number_block([[1.0, "x"]]) is None


def test_ratio_table_is_ratio_cells_in_rows():
    rnd = random.Random(7)
    n = 300
    den = np.array([rnd.choice([0, 1, 2, 3, 7, 40]) for _ in range(n)])
    a = np.array([rnd.randint(-100, 100) for _ in range(n)])
    b = np.array([rnd.randint(0, 100) for _ in range(n)])
    valid = np.array([rnd.random() < 0.8 for _ in range(n)])
    for v in (None, valid, np.ones(n, dtype=bool)):
        assert same(xr.ratio_table([a, b], den, v), xr.table(xr.ratio_cells(a, den, v), xr.ratio_cells(b, den, v)))
    whole = np.array([2, 4]), np.array([6, 8])
    assert same(xr.ratio_table(list(whole), np.array([2, 2])), [[1, 3], [2, 4]])
    big = np.array([2 ** 60, 3]), np.array([1, 1])  # beyond 2**53: through Fraction, as ratio_cells does
    assert same(xr.ratio_table([big[0]], big[1]), xr.table(xr.ratio_cells(big[0], big[1])))
    assert xr.ratio_table([np.zeros(0, dtype=np.int64)], np.zeros(0, dtype=np.int64)) == []


def test_column_rows():
    assert same(xr.column_rows(np.array([1, -2])), [[1], [-2]])
    assert same(xr.column_rows(np.array([0.5, 1.0])), [[0.5], [1.0]])


def _ledger(n, rnd, boards=True):
    players = [f"p{i}" for i in range(12)]
    rows = [rnd.sample(players, 4) for _ in range(n)]
    weeks = [[float(1 + i * 4 // n)] for i in range(n)]
    seats = [[[r[k]] for r in rows] for k in range(4)]
    pct = [[float(rnd.randint(30, 70))] for _ in range(n)]
    nb = [[rnd.choice([1.0, 2.0, None])] for _ in range(n)] if boards else None
    return weeks, seats, pct, nb


@pytest.mark.parametrize("name", ["LEHMAN_SEASON", "LEHMAN_HISTORY"])
@pytest.mark.parametrize("with_boards", [True, False])
def test_lehman_season_fast_path_is_the_general_path(name, with_boards):
    rnd = random.Random(8)
    weeks, seats, pct, nb = _ledger(60, rnd, with_boards)
    fast = F[name](weeks, *seats, pct, nb)
    blank = [[None]]  # a blank row at the end: skipped, and read by the general path
    general = F[name](weeks + blank, *(s + blank for s in seats), pct + blank, None if nb is None else nb + blank)
    assert not isinstance(fast, str), fast
    assert same(fast, general)
    assert same(F[name](weeks, *seats, pct, nb, "modified", 0.1),
                F[name](weeks + blank, *(s + blank for s in seats), pct + blank, None if nb is None else nb + blank,
                        "modified", 0.1))


def test_lehman_season_fast_path_refusals_match():
    rnd = random.Random(9)
    weeks, seats, pct, nb = _ledger(10, rnd)
    nb[3] = [0.0]  # 0 boards: refused by the general path, naming the row
    assert F["LEHMAN_SEASON"](weeks, *seats, pct, nb) == "LEHMAN_SEASON: boards, row 4: expected a whole number 1 or more, got 0"


def _weighted(n, rnd):
    scores, weights, boards = [], [], []
    legal = {1: [420.0, 400.0, 170.0, -50.0, -100.0], 2: [620.0, 600.0, -100.0, -200.0, 170.0]}
    for i in range(n):
        b = 1 + i // 8
        choice = legal[1 if b % 2 else 2]
        if i % 5 == 0:
            scores.append([rnd.choice(choice), rnd.choice(choice)])
            weights.append([0.6, 0.4])
        else:
            scores.append([rnd.choice(choice), None])
            weights.append([None, None])
        boards.append([float(b)])
    return scores, weights, boards


def test_weighted_fast_path_is_the_general_path():
    rnd = random.Random(10)
    scores, weights, boards = _weighted(80, rnd)
    as_ints = [[None if v is None else int(v) for v in r] for r in scores]  # ints: read by the general path
    fast = F["WEIGHTED_MP"](scores, weights, boards)
    assert not isinstance(fast, str), fast
    assert same(fast, F["WEIGHTED_MP"](as_ints, weights, boards))
    plain = [[r[0], None] for r in scores]
    assert same(F["WEIGHTED_MP"](plain, None, boards), F["WEIGHTED_MP"]([[None if v is None else int(v) for v in r]
                                                                          for r in plain], None, boards))
    # a bad cell: its row gets #VALUE!, its board #N/A, on both paths
    bad = [list(r) for r in scores]
    bad[3] = [410.0, None]
    bad_ints = [[None if v is None else int(v) for v in r] for r in bad]
    assert same(F["WEIGHTED_MP"](bad, weights, boards), F["WEIGHTED_MP"](bad_ints, weights, boards))
    assert F["WEIGHTED_MP"](bad, weights, boards)[3][0] == "#VALUE!"
    got = F["PAIRS_RANKING"](boards, [[float(1 + i % 8)] for i in range(80)], [[float(9 + i % 8)] for i in range(80)],
                             scores, weights)
    assert same(got, F["PAIRS_RANKING"](boards, [[float(1 + i % 8)] for i in range(80)],
                                        [[float(9 + i % 8)] for i in range(80)], as_ints, weights))


def test_cells_and_shape_reads_what_grid_reads():
    """The element-wise functions read each argument's cells with ``cells_and_shape``: a column of
    one-cell rows without building them again; every other value through ``grid``. Both readings agree
    cell for cell and type for type, and on the shape, over random values of every form Excel sends."""
    rnd = random.Random(11)
    kinds = [None, 420.0, -50.0, 3, True, "NP", " 4S ", float("nan"), np.float64(2.5), np.int64(7), "#N/A"]

    def value():
        n = rnd.randint(1, 6)
        form = rnd.randrange(6)
        if form == 0:
            return rnd.choice(kinds)  # one cell
        if form == 1:
            return [[rnd.choice(kinds)] for _ in range(n)]  # a column, as the engine sends it
        if form == 2:
            return [[rnd.choice(kinds) for _ in range(n)]]  # a row
        if form == 3:
            return [[rnd.choice(kinds) for _ in range(2)] for _ in range(n)]  # a block
        if form == 4:
            return [rnd.choice(kinds) for _ in range(n)]  # a flat list: a column
        return np.array([[rnd.choice([1.0, 2.0, float("nan")])] for _ in range(n)])

    for _ in range(2000):
        v = value()
        g = xl.grid(v)
        cells, shape = xl.cells_and_shape(v)
        assert same(cells, [c for row in g for c in row]) and shape == xl.shape_of(v), v


def _grid_cell_by_cell(value):
    """grid's reading of a block, written out: every cell through ``_scalar`` (numpy scalars unwrapped,
    NaN to None), short rows padded with None (the reading before blocks were cleaned in one pass)."""
    rows = [list(r.tolist() if hasattr(r, "tolist") else r) for r in value]
    width = max(len(r) for r in rows)
    return [[xl._scalar(c) for c in r] + [None] * (width - len(r)) for r in rows]


def test_a_block_is_cleaned_in_one_pass_as_cell_by_cell():
    """``grid`` reads a block of several columns by cleaning all its cells at once (``_clean``): the
    same cells, of the same types, as cleaning each, over random blocks of every kind of cell, ragged
    rows, tuples and numpy rows included."""
    rnd = random.Random(12)
    kinds = [None, 420.0, -50.0, 3, True, "NP", "", " ", float("nan"), np.float64(2.5), np.float64("nan"),
             np.int64(7), "#N/A", (1, 2)]
    for _ in range(1500):
        n, k = rnd.randint(1, 7), rnd.randint(2, 4)
        pool = rnd.sample(kinds, rnd.randint(1, 4))  # (blocks of few kinds, so the one-kind paths are met)
        block = [[rnd.choice(pool) for _ in range(rnd.choice([k, k, k, k - 1]))] for _ in range(n)]
        if rnd.random() < 0.2:
            block[0] = tuple(block[0])
        if rnd.random() < 0.1 and all(type(c) is float for r in block for c in r) and len(set(map(len, block))) == 1:
            block = [np.array(r) for r in block]
        expected = _grid_cell_by_cell(block)
        if max(len(r) for r in expected) == 1:
            continue  # (a column: grid's column path)
        assert same(xl.grid(block), expected), block
    for empty in ([[]], [[], []], [(), ()], np.zeros((2, 0))):  # rows of no cells
        assert xl.grid(empty) == _grid_cell_by_cell(empty) == [[] for _ in range(len(empty))], empty


def test_is_blank_reads_every_kind_as_before():
    """``is_blank`` checks the plain kinds without ``plain()``; the definition (numpy scalars unwrapped;
    None, NaN and text of spaces are blank), written out, agrees on every kind."""
    from xlbridge.core.numbers import is_blank, plain

    def reference(v):
        v = plain(v)
        return v is None or (isinstance(v, float) and v != v) or (isinstance(v, str) and not v.strip())

    class Text(str):  # (a str subclass, as the engine's error values are)
        pass

    for v in [None, 0, 1, -3, True, False, 0.0, float("nan"), float("inf"), "", " ", " x ", "\t\n", Text(""),
              Text("#N/A"), np.float64("nan"), np.float64(1.5), np.int64(0), np.str_(" "), np.bool_(False),
              (1, 2), Fraction(1, 2), Decimal("NaN"), [None], np.array(None), np.array(float("nan")),
              np.array(" "), np.array(3)]:
        assert is_blank(v) is reference(v), v


def test_building_results_leaves_the_garbage_collector_as_it_was():
    """``column_rows`` pauses the collector and moves what it built to the oldest generation unwalked:
    the collector's state is restored, nothing stays frozen, a frozen heap (the batch engine's
    process, forked from a frozen parent) stays frozen, and garbage cycles are still collected."""
    import gc
    import weakref

    assert gc.isenabled()
    assert xr.column_rows(np.array([1, 2])) == [[1], [2]]
    assert gc.isenabled() and gc.get_freeze_count() == 0

    class Node:
        pass

    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle, garbage once the names go
    gone = weakref.ref(a)
    del a, b
    xr.column_rows(np.arange(10))
    gc.collect()
    assert gone() is None

    gc.disable()
    try:
        xr.column_rows(np.arange(3))
        assert not gc.isenabled()
    finally:
        gc.enable()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        xr.column_rows(np.arange(3))
        # neither unfrozen (0) nor frozen again (more): a frozen object freed meanwhile by its reference count
        # leaves the permanent generation, so the count may be a little lower
        assert 0 < gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()
