"""The VP scale is a concept of its own (issue 52): one registry (xlbridge.core.teams.vp.VP_SCALES) that every
layer reads, so that a new scale registered once is usable everywhere: the core's vp, vp_table, vp_pair,
match_result and weighted_vp, the Excel functions VP and MATCH_RESULT, the formats' match results.

The scale registered here is the test's own, a straight line of 20 VPs over a match of N boards: the winner of
a margin of m IMPs gets 10 + 10 m / 2N VPs, in hundredths rounded down, 20 from 2N IMPs on (its table,
written below, is the expected value: nothing here comes from xlbridge). For 7 boards: +5 IMPs is
10 + 500 // 7 hundredths = 13.57, so the loser has 6.43; the blitz is 14 IMPs.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import xlbridge
from xlbridge import udfs
from xlbridge.core.errors import InputError
from xlbridge.core.teams import vp as vp_module
from xlbridge.core.teams.vp import VP_SCALES, VPScale, register_vp_scale, vp_scale


def _straight(boards: int) -> tuple[int, ...]:
    return tuple(1000 + 500 * m // boards for m in range(2 * boards + 1))


@pytest.fixture
def straight():
    scale = register_vp_scale(VPScale("STRAIGHT20", "Straight 20", "a straight line of 20 VPs (the test's own)",
                                      _straight, aliases=("Straight",)))
    try:
        yield scale
    finally:  # (the registry as it was for the other tests of this process)
        del vp_module._SCALES[scale.name]


def test_the_wbf_scale_is_the_default():
    assert vp_scale() is VP_SCALES["WBF2013"] is vp_scale(" wbf 2013 ") is vp_scale("WBF")
    assert xlbridge.vp(5, 7) == xlbridge.vp(5, 7, scale="WBF2013") == Fraction("12.18")  # seed 004


def test_a_scale_registered_once_is_usable_by_the_core(straight):
    assert vp_scale("straight 20") is vp_scale("Straight") is straight
    assert xlbridge.vp(5, 7, scale="STRAIGHT20") == Fraction("13.57")
    assert xlbridge.vp(-5, 7, scale="Straight") == Fraction("6.43")
    assert xlbridge.vp_pair(5, 7, scale="Straight") == (Fraction("13.57"), Fraction("6.43"))
    # 5.5 IMPs: halfway between 13.57 and 14.28 (1000 + 3000 // 7 hundredths)
    assert xlbridge.vp(Fraction(11, 2), 7, scale="Straight") == (Fraction("13.57") + Fraction("14.28")) / 2
    assert xlbridge.vp_table(7, scale="Straight") == tuple(Fraction(c, 100) for c in _straight(7))
    assert xlbridge.vp_blitz(7, scale="Straight") == 14 and xlbridge.vp(99, 7, scale="Straight") == 20
    r = xlbridge.match_result([3, 0, 2], boards=7, scale="Straight")
    assert (r.margin, r.vp_a, r.vp_b) == (5, Fraction("13.57"), Fraction("6.43"))
    # a weighted board: 60 % of +1 and 40 % of -10 IMPs on top of +8, converted at VP level: 0.6 VP(9) + 0.4 VP(-2)
    w = xlbridge.weighted_vp(8, [[(1, 0.6), (-10, 0.4)]], 7, level="vp", scale="Straight")
    assert w == Fraction(6, 10) * Fraction(1000 + 500 * 9 // 7, 100) + Fraction(4, 10) * (20 - Fraction(
        1000 + 500 * 2 // 7, 100))


def test_a_scale_registered_once_is_usable_in_excel(straight):
    assert udfs.VP(5, 7, "Straight") == pytest.approx(13.57)
    assert udfs.VP([[5], [-5]], 7, "STRAIGHT20") == [[pytest.approx(13.57)], [pytest.approx(6.43)]]
    assert udfs.MATCH_RESULT([[3], [0], [2]], 7, None, "straight") == [[5, 0, pytest.approx(13.57),
                                                                         pytest.approx(6.43)]]
    assert udfs.VP(5, 7) == pytest.approx(12.18)  # blank: the default scale
    refused = udfs.VP(5, 7, "Swiss")  # one message, never a traceback
    assert refused == "#VALUE!" and "unknown VP scale 'Swiss'" in refused.reason


def test_a_scale_registered_once_is_usable_by_the_formats(straight):
    from xlbridge.formats.model import TEAMS, Board, Event, Result
    from xlbridge.formats.scoring import match_results, score_event

    # one 7-board match, team 1 N-S in room 1: 420 v 420 (0), 600 v 620 on board 2 (-20: 1 IMP to team 2),
    # 170 v -100 on board 3 (270: 7 IMPs to team 1, Law 78B 270-310): 7 - 1, a margin of 6
    rooms = [(420, 420), (600, 620), (170, -100), (0, 0), (0, 0), (0, 0), (0, 0)]
    boards = [Board(k, results=(Result("1", "2", score=a), Result("2", "1", score=b)))
              for k, (a, b) in enumerate(rooms, start=1)]
    event = score_event(Event(kind=TEAMS, scoring="IMP", boards=boards))
    default = match_results(event)[("1", "2")]
    straight_result = match_results(event, scale="Straight")[("1", "2")]
    assert (default.margin, straight_result.margin) == (6, 6)
    assert straight_result.vp_a == Fraction(1000 + 500 * 6 // 7, 100) == Fraction("14.28")
    assert default.vp_a == xlbridge.vp(6, 7)  # (the WBF table's, read by the default)


def test_a_scale_is_registered_once():
    with pytest.raises(InputError, match="already registered"):
        register_vp_scale(VPScale("wbf 2013", "Another", "another scale of the same name", _straight))
    with pytest.raises(InputError, match="unknown VP scale 'EBU 1966'"):
        xlbridge.vp(5, 7, scale="EBU 1966")


def test_a_table_that_falls_is_refused_when_used():
    bad = register_vp_scale(VPScale("FALLING", "Falling", "a table that falls", lambda n: (1000, 1200, 1100, 2000)))
    try:
        with pytest.raises(InputError, match="does not run from 10 to 20 VPs without falling"):
            xlbridge.vp(1, 7, scale="Falling")
    finally:
        del vp_module._SCALES[bad.name]


def test_a_scale_registered_once_is_usable_in_a_recalculated_workbook(straight, tmp_path):
    """A workbook's formulas name the scale; ``xlbridge recalc`` (the batch layer) computes them with it."""
    import openpyxl

    from recalc_helpers import cells, recalc_here

    wb = openpyxl.Workbook()
    wb.active["A1"] = '=VP(5,7,"Straight")'
    wb.active["A2"] = "=VP(-5,7)"
    wb.save(tmp_path / "vp.xlsx")
    report = recalc_here(tmp_path / "vp.xlsx", tmp_path / "out.xlsx")
    assert report.errors == ()
    got = cells(tmp_path / "out.xlsx", data_only=True)["Sheet"]
    assert got[(1, 1)] == pytest.approx(13.57) and got[(2, 1)] == pytest.approx(7.82)  # 20 - 12.18 (seed 004)
