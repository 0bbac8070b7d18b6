"""Mitchell movements: two fields ranked separately, arrow switches, a pair meeting a board twice.

Expected values are worked by hand below (EBU scale, Law 78A: 2 matchpoints per score beaten,
1 per score equalled; three results per board, so a top is 4 and a session of 2 boards has 8).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xlbridge.core.errors import InputError
from xlbridge.core.pairs.matchpoints import matchpoint_session
from xlbridge.core.pairs.standings import pairs_ranking

# board 1: (NS 1, EW 1) 420, (NS 2, EW 2) 400, (NS 3, EW 3) 450
#   N-S: 450 -> 4, 420 -> 2, 400 -> 0; E-W the complements: EW1 2, EW2 4, EW3 0
# board 2: (NS 1, EW 2) -100, (NS 2, EW 3) -100, (NS 3, EW 1) +110
#   N-S: 110 -> 4, the two -100s tie -> 1 each; E-W: EW1 0, EW2 3, EW3 3
BOARDS = [1, 1, 1, 2, 2, 2]
SCORES = [420, 400, 450, -100, -100, 110]
NS = [1, 2, 3, 1, 2, 3]
EW = [1, 2, 3, 2, 3, 1]


def _table(standings):
    return [(s.direction, s.pair, s.total, s.percentage, s.rank, s.tied) for s in standings]


def test_mitchell_two_fields_by_hand():
    session = matchpoint_session(SCORES, BOARDS, scale="EBU")
    got = _table(pairs_ranking(session, NS, EW, movement="mitchell"))
    assert got == [
        # N-S totals: NS1 2 + 1 = 3, NS2 0 + 1 = 1, NS3 4 + 4 = 8 (of 8)
        ("NS", 3, 8, 100, 1, False), ("NS", 1, 3, Fraction(75, 2), 2, False), ("NS", 2, 1, Fraction(25, 2), 3, False),
        # E-W totals: EW1 2 + 0 = 2, EW2 4 + 3 = 7, EW3 0 + 3 = 3
        ("EW", 2, 7, Fraction(175, 2), 1, False), ("EW", 3, 3, Fraction(75, 2), 2, False), ("EW", 1, 2, 25, 3, False),
    ]


def test_howell_refuses_a_pair_on_both_sides_of_a_row():
    # in a Howell, N-S pair 1 and E-W pair 1 on one row would be pair 1 playing itself
    session = matchpoint_session(SCORES, BOARDS, scale="EBU")
    with pytest.raises(InputError, match=r"pair 1 is on both sides of row 1"):
        pairs_ranking(session, NS, EW)


def test_arrow_switch_moves_the_seated_pairs_to_the_other_field():
    # board 2, row 3 arrow-switched: pair 1 sits N-S but is the E-W field's pair 1, pair 3 sits E-W
    # and is the N-S field's pair 3.  Board 2 N-S seats: 110 -> 4, -100s -> 1 each; E-W seats 0, 3, 3.
    ns = [1, 2, 3, 1, 2, 1]
    ew = [1, 2, 3, 2, 3, 3]
    arrows = [None, None, None, None, None, "Y"]
    session = matchpoint_session(SCORES, BOARDS, scale="EBU")
    got = {(s.direction, s.pair): s.total for s in pairs_ranking(session, ns, ew, movement="Mitchell",
                                                                   arrows=arrows)}
    # NS1 2 + 1, NS2 0 + 1, NS3 4 + 0 (the E-W seat's 0 of row 6); EW1 2 + 4 (the N-S seat's 4),
    # EW2 4 + 3, EW3 0 + 3
    assert got == {("NS", 1): 3, ("NS", 2): 1, ("NS", 3): 4, ("EW", 1): 6, ("EW", 2): 7, ("EW", 3): 3}


def test_a_pair_meeting_a_board_twice_names_both_rows():
    session = matchpoint_session([420, 400, 450], [1, 1, 1], scale="EBU")
    with pytest.raises(InputError, match=r"pair NS 1 has two results on board 1 \(rows 1 and 3\)"):
        pairs_ranking(session, [1, 2, 1], [1, 2, 3], movement="mitchell")
    # Howell: pair 2 sits E-W on row 2 and N-S on row 3
    with pytest.raises(InputError, match=r"pair 2 has two results on board 1 \(rows 2 and 3\)"):
        pairs_ranking(session, [1, 5, 2], [4, 2, 6])


def test_bad_arrow_flag_and_movement_are_refused():
    session = matchpoint_session([420, 400], [1, 1], scale="EBU")
    with pytest.raises(InputError, match="arrow switch 'maybe'"):
        pairs_ranking(session, [1, 2], [1, 2], movement="mitchell", arrows=["maybe", None])
    with pytest.raises(InputError, match="movement"):
        pairs_ranking(session, [1, 2], [1, 2], movement="skip mitchell")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.integers(1, 6), st.integers(1, 6),
                          st.sampled_from([-200, -100, 50, 110, 140, 420, 450])), min_size=1, max_size=24))
def test_mitchell_equals_howell_with_disjoint_numbers(rows):
    # invariant: a Mitchell ranks exactly what a Howell ranks when the E-W field's numbers are made
    # distinct (EW n -> 100 + n), field by field
    seen, kept = set(), []
    for b, n, e, score in rows:  # one result per pair per board and direction
        if (b, "N", n) in seen or (b, "E", e) in seen:
            continue
        seen |= {(b, "N", n), (b, "E", e)}
        kept.append((b, n, e, score))
    boards = [r[0] for r in kept]
    session = matchpoint_session([r[3] for r in kept], boards, scale="EBU", check_legal=False)
    mitchell = pairs_ranking(session, [r[1] for r in kept], [r[2] for r in kept], movement="mitchell")
    howell = pairs_ranking(session, [r[1] for r in kept], [100 + r[2] for r in kept])
    m = {(s.direction, s.pair): (s.total, s.maximum, s.percentage) for s in mitchell}
    h = {(("EW", s.pair - 100) if s.pair > 100 else ("NS", s.pair)): (s.total, s.maximum, s.percentage)
         for s in howell}
    assert m == h
    for field in ("NS", "EW"):  # ranks within a field: 1 + the number of better percentages in it
        pcts = [s.percentage for s in mitchell if s.direction == field and s.percentage is not None]
        for s in mitchell:
            if s.direction == field and s.percentage is not None:
                assert s.rank == 1 + sum(p > s.percentage for p in pcts)
