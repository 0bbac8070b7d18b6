"""Rows decided alike are decided once (xlbridge.excel.adapters.pairs, xlbridge.excel.travellers), with the same
cells as deciding each row alone.

- SCORE_OR_TYPED remembers a row's verdict by its result cells, whether its pairs are blank, and its board's
  vulnerability (a board number from 1 to 10,000): a season of 1,000 boards has four.
- WEIGHTED_MP and PAIRS_STANDINGS read the rows holding one plain score in one vectorised pass, also when their
  empty cells are empty text, as the pairs template's ranges give them (``IF(c="","",c)``).

Expected values: Law 77 (4S= by N: 420 on a board none vulnerable, 1 and 17; 620 on a board N-S vulnerable, 2 and
18), and the cell-by-cell reading of each row (the same functions with the shortcut turned off), on random rows."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from xlbridge.excel import travellers
from xlbridge.excel.adapters import pairs as adapters

BOARDS = st.sampled_from([1, 2, 17, 18, 1.0, 2.0, 16.0, 10_000, 10_001, 0, -3, 2.5, True, "3", " 4 ", "x", "", None,
                          float("inf"), float("nan")])
CONTRACTS = st.sampled_from(["4S", "3NT", "1NTX", "7CXX", "PASS", "pass", "8S", "4Z", "", None, 4, True])
DECLARERS = st.sampled_from(["N", "E", "s", "w", "X", "", None, 1])
TRICKS = st.sampled_from([0, 7, 9, 10, 13, 14, 10.0, 9.5, True, "10", "", None])
TYPED = st.sampled_from([None, "", 420, 620, 425, -50, "A60/40", "NP", "abc", 420.0, True, 0.0, -0.0])
PAIRS = st.sampled_from([1, 2, 11, 12, 3.0, "A1", "", " ", None, 0, True])
# (rows alike but for their board and pairs: a few results, each on many rows)
RESULTS = st.lists(st.one_of(st.sampled_from([("4S", "N", 10, None), ("3NT", "w", 8.0, ""), (None, None, None, 420),
                                               ("", "", "", "A60/40")]),  # (results scored: half the rows)
                             st.tuples(CONTRACTS, DECLARERS, TRICKS, TYPED)), min_size=1, max_size=3)
ROWS = RESULTS.flatmap(lambda results: st.lists(st.tuples(st.sampled_from(results), BOARDS, PAIRS, PAIRS),
                                                min_size=1, max_size=30))


def _columns(rows):
    rows = [(*result, board, ns, ew) for result, board, ns, ew in rows]
    contract, declarer, tricks, typed, board, ns, ew = ([[row[k]] for row in rows] for k in range(7))
    return contract, declarer, tricks, board, typed, ns, ew


def _cells(result):
    return [(type(c).__name__, repr(c), getattr(c, "reason", None)) for row in result for c in row]


@settings(max_examples=200, deadline=None)
@given(ROWS, st.booleans())
def test_score_or_typed_remembers_no_verdict_it_would_not_give_again(rows, seated):
    contract, declarer, tricks, board, typed, ns, ew = _columns(rows)
    pairs = (ns, ew) if seated else ()
    with mock.patch.object(adapters, "_SEEN", {}):
        remembered = adapters.score_or_typed(contract, declarer, tricks, board, typed, *pairs)
    with mock.patch.object(adapters, "_verdict_key", lambda *cells: None), mock.patch.object(adapters, "_SEEN", {}):
        alone = adapters.score_or_typed(contract, declarer, tricks, board, typed, *pairs)  # each row on its own
    assert _cells(remembered) == _cells(alone)


def _counted(monkeypatch, module, name):
    """The calls of ``module.name`` from now on (their positional arguments), the function still called."""
    calls = []
    real = getattr(module, name)

    def counted(*args, **kw):
        calls.append(args)
        return real(*args, **kw)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_season_is_decided_once_per_vulnerability(monkeypatch):
    decided = _counted(monkeypatch, adapters, "row_mistake")
    monkeypatch.setattr(adapters, "_SEEN", {})
    n = 1_000  # 1,000 boards, one 4S= each, the pairs all different
    boards = [[float(b)] for b in range(1, n + 1)]
    got = adapters.score_or_typed([["4S"]] * n, [["N"]] * n, [[10]] * n, boards, [[None]] * n,
                                  [[b] for b in range(1, n + 1)], [[b + n] for b in range(1, n + 1)])
    assert len(decided) == 4  # (the four vulnerabilities)
    # Law 77: 4S= by N, 420 not vulnerable (boards 1 and 17: none; 3: E-W), 620 vulnerable (2 and 18: N-S; 4: both)
    assert [got[b - 1][0] for b in (1, 17, 3, 2, 18, 4)] == [420, 420, 420, 620, 620, 620]


def test_a_mistake_decided_once_is_named_at_every_row_alike(monkeypatch):
    monkeypatch.setattr(adapters, "_SEEN", {})
    got = adapters.score_or_typed([["4S"], ["4S"], ["4S"]], [[None]] * 3, [[10]] * 3, [[1], [17], [33]],
                                  [[None]] * 3, [[1], [2], [3]], [[11], [12], [13]])
    assert [c.reason for row in got for c in row] == ["no declarer (column Declarer)"] * 3


FIRST = st.sampled_from([420.0, 400.0, -50.0, 425.0, 420, 600.0, "NP", "A60/40", "x", "", None, True])
# (mostly blank: rows of one score; and cells of other kinds, which no blank test may trip over)
OTHER = st.sampled_from(["", "", None, None, "", 400.0, "NP", " ", pd.NA, np.str_(""), np.float64("nan"), 0])
WEIGHTS = st.sampled_from(["", "", None, "", None, 0.5, 60.0, "40%", 1.0, -1.0, "x", " ", pd.NA, np.str_("")])
WBOARDS = st.sampled_from([1.0, 2.0, 17.0, 3, "", None, 0.0, "x"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(FIRST, OTHER, OTHER, WEIGHTS, WEIGHTS, WEIGHTS, WBOARDS), min_size=1, max_size=25),
       st.booleans())
def test_plain_rows_with_empty_text_read_as_cell_by_cell(rows, with_boards):
    scores = [list(r[0:3]) for r in rows]
    weights = [list(r[3:6]) for r in rows]
    boards = [r[6] for r in rows] if with_boards else None
    fast = travellers.read_weighted(scores, weights, boards)
    with mock.patch.object(travellers, "_plain_rows", lambda sg, *rest: [None] * len(sg)):
        slow = travellers.read_weighted(scores, weights, boards)
    assert repr(fast.outcomes) == repr(slow.outcomes) and fast.bad == slow.bad and fast.reasons == slow.reasons
    assert {i: (str(e), e.reason) for i, e in fast.errors.items()} == {
        i: (str(e), e.reason) for i, e in slow.errors.items()}


def test_the_template_s_empty_text_rows_take_the_vectorised_path(monkeypatch):
    # three rows as the pairs template gives them: a score, its other outcomes and weights empty text
    scores = [[420.0, "", ""], [400.0, "", ""], ["", "", ""]]
    weights = [["", "", ""]] * 3
    read = _counted(monkeypatch, travellers, "parse_weight")
    got = travellers.read_weighted(scores, weights, [1.0, 1.0, ""])
    assert got.outcomes == [420, 400, None] and not got.errors
    assert read == []  # no row read cell by cell


def test_a_typed_score_passes_through_as_typed_on_rows_decided_alike():
    # 0.0 and -0.0 compare equal, but a typed score is passed through as typed (boards 1 and 17: none vulnerable)
    with mock.patch.object(adapters, "_SEEN", {}):
        got = adapters.score_or_typed([[None], [None]], [[None], [None]], [[None], [None]], [[1], [17]],
                                      [[0.0], [-0.0]], [[1], [2]], [[11], [12]])
    assert repr(got) == "[[0.0], [-0.0]]"
