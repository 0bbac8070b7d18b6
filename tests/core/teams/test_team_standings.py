"""Team standings: hand-worked round robin, exact decimal ties, errors naming the row, and a brute-force
property (every team's total is the sum of its VPs; the rank is 1 + the number of teams strictly ahead)."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xlbridge.core.errors import InputError
from xlbridge.core.teams.standings import team_standings


def test_hand_worked_round_robin():
    """Four teams, three rounds, 20 VPs a match; totals and IMP differences worked by hand below."""
    matches = [  # (team A, team B, VP A, VP B, IMPs A, IMPs B)
        ("A", "B", 12.18, 7.82, 30, 25), ("C", "D", 5, 15, 10, 40),
        ("A", "C", 15, 5, 40, 10), ("B", "D", 10, 10, 20, 20),
        ("A", "D", 10, 10, 33, 33), ("B", "C", 14, 6, 28, 12),
    ]
    got = [(s.team, s.played, s.vps, s.imp_difference, s.rank, s.tied) for s in team_standings(*zip(*matches))]
    # A: 12.18 + 15 + 10 = 37.18, IMPs 103 - 68 = +35; D: 15 + 10 + 10 = 35, 93 - 63 = +30;
    # B: 7.82 + 10 + 14 = 31.82, 73 - 62 = +11; C: 5 + 5 + 6 = 16, 32 - 108 = -76
    assert got == [("A", 3, F("37.18"), 35, 1, False), ("D", 3, F(35), 30, 2, False),
                   ("B", 3, F("31.82"), 11, 3, False), ("C", 3, F(16), -76, 4, False)]


def test_decimal_vps_tie_exactly():
    """0.1 + 0.2 is 0.30000000000000004 in binary floats; exact decimals make 10.1 + 10.2 equal 20.3."""
    got = team_standings(["A", "A", "C"], ["B", "B", "D"], [10.1, 10.2, 20.3], [9.9, 9.8, 0], None, None)
    assert [(s.team, s.rank, s.tied) for s in got] == [("A", 1, True), ("C", 1, True), ("B", 3, False),
                                                       ("D", 4, False)]


@pytest.mark.parametrize("row, message", [
    (("A", "A", 10, 10), "row 1: team 'A' meets itself"),
    (("A", None, 10, 10), "row 1: a match needs both teams"),
    (("A", "B", None, 10), "row 1: match 'A' against 'B' has no VPs yet"),
])
def test_errors_name_the_row(row, message):
    with pytest.raises(InputError) as err:
        team_standings(*([v] for v in row))
    assert str(err.value) == message


def test_blank_rows_are_skipped():
    got = team_standings([None, "A", ""], [None, "B", None], [None, 12, None], [None, 8, None])
    assert [(s.team, float(s.vps)) for s in got] == [("A", 12.0), ("B", 8.0)]


@given(st.lists(st.tuples(st.sampled_from("ABCDEF"), st.sampled_from("ABCDEF"), st.integers(0, 2000)),
                min_size=1, max_size=15))
def test_brute_force(rows):
    rows = [(a, b, F(v, 100)) for a, b, v in rows if a != b]
    if not rows:
        return
    got = team_standings([a for a, _, _ in rows], [b for _, b, _ in rows], [v for *_, v in rows],
                         [20 - v for *_, v in rows])
    total: dict = {}
    for a, b, v in rows:
        total[a] = total.get(a, 0) + v
        total[b] = total.get(b, 0) + (20 - v)
    assert {s.team: s.vps for s in got} == total
    for s in got:
        assert s.rank == 1 + sum(1 for t in total.values() if t > total[s.team])
        assert s.tied == (sum(1 for t in total.values() if t == total[s.team]) > 1)
    assert [s.vps for s in got] == sorted((s.vps for s in got), reverse=True)
