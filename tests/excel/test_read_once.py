"""SCORE_OR_TYPED reads a traveller's rows once per book (xlbridge.excel.adapters.pairs): the pairs template reads
the same columns three times (down in the Score column, across inside WEIGHTED_MP and PAIRS_STANDINGS); the second
and third calls give the first's cells, shaped as asked, and a call over other cells is computed afresh.

Expected values: Law 77 (4S= by N on board 1, none vulnerable, 420; 3NT by S, 9 tricks, 400 on board 2, N-S
vulnerable: 600) and the mistakes' words of core.travellerrow."""

from __future__ import annotations

import pytest

from xlbridge.excel.adapters import pairs as adapters


@pytest.fixture
def counted(monkeypatch):
    calls = []
    real = adapters.elementwise

    def spy(fn, args, **kw):
        calls.append(args)
        return real(fn, args, **kw)

    monkeypatch.setattr(adapters, "elementwise", spy)
    monkeypatch.setattr(adapters, "_SEEN", {})
    return calls


def _down():
    return ([["4S"], ["3NT"], [None]], [["N"], ["S"], [None]], [[10], [9], [None]], [[1], [2], [2]],
            [[None], [None], [None]], [[1], [2], [3]], [[11], [12], [13]])


def _across(cols):
    return tuple([[row[0] for row in col]] for col in cols)


def test_a_second_read_across_gives_the_first_cells(counted):
    down = adapters.score_or_typed(*_down(), "Mitchell")
    assert [row[0] for row in down[:2]] == [420, 600]
    assert down[2][0].reason == "no contract and no typed score (column Contract)"
    across = adapters.score_or_typed(*_across(_down()), "Mitchell")
    assert across == [[420, 600, down[2][0]]]
    assert len(counted) == 1  # (the rows were read once)


def test_other_cells_are_read_afresh(counted):
    first = adapters.score_or_typed(*_down(), "Mitchell")
    cols = list(_down())
    cols[2] = [[10], [10], [None]]  # 3NT+1 by S, N-S vulnerable: 630
    second = adapters.score_or_typed(*cols, "Mitchell")
    assert (first[1][0], second[1][0]) == (600, 630)
    cols[3] = [[1], [True], [2]]  # a board typed TRUE is no board 2 (1 in Python, not in a cell)
    third = adapters.score_or_typed(*cols, "Mitchell")
    assert third[1][0] == "#VALUE!"
    assert len(counted) == 3


def test_the_movement_is_part_of_what_was_read(counted):
    cols = list(_down())
    cols[5], cols[6] = [[1], [2], [3]], [[1], [12], [13]]  # pair 1 against itself: a mistake in a Howell only
    mitchell = adapters.score_or_typed(*cols, "Mitchell")
    howell = adapters.score_or_typed(*cols, "Howell")
    assert mitchell[0][0] == 420 and howell[0][0] == "#VALUE!"
    assert len(counted) == 2


def test_the_pairs_sheet_is_part_of_what_was_read(counted):
    listed = [[1], [2], [3], [11], [12], [13]]
    everyone = adapters.score_or_typed(*_down(), "Mitchell", listed)
    without_2 = adapters.score_or_typed(*_down(), "Mitchell", [[1], [3], [11], [12], [13]])
    assert everyone[1][0] == 600
    assert without_2[1][0].reason == "N-S pair 2 is not on the Pairs sheet (column NS)"
    assert len(counted) == 2
