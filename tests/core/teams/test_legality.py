"""Teams scoring refuses impossible scores, as pairs scoring does, with an explicit opt-out (issue 13).

Legal scores by hand from Law 77: +410 no contract gives at any vulnerability; +620 (4S= vulnerable)
only when N-S are vulnerable (boards 2, 4, 5, 7 ...); -620 only when E-W are (boards 3, 4, 6, 7 ...).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from xlbridge import (
    ImpossibleScoreError,
    board_a_match,
    butler,
    butler_datum,
    butler_datums,
    cross_imp_totals,
    cross_imps,
    outcome_imps,
    weighted_butler,
    weighted_cross_imps,
    weighted_imps,
)


#: Each call on the impossible +410 and the N-S result with the check off, by hand (Law 78B: 10 points
#: 0 IMPs, 20 points 1 IMP). Cross-IMPs: 420 gets 0 (v 410) + 1 (v 400), 410 gets 0 + 0, 400 gets -1 + 0;
#: weighted, row 2 is half 410, half 400: row 1 gets 0.5 x 0 + 0.5 x 1 + 1 = 1.5, row 2 0.5 x 0 + 0.5 x (-1 + 0)
#: = -0.5, row 3 -1 + 0 = -1. Butler: the datum is the mean 410 (406.67 with row 2 at 400, rounded to 410);
#: no score is more than 10 points from it, so every row gets 0 IMPs.
@pytest.mark.parametrize("call, ns", [
    (lambda **k: cross_imps([420, 410, 400], **k).ns, (1, 0, -1)),
    (lambda **k: butler([420, 410, 400], **k).ns, (0, 0, 0)),
    (lambda **k: butler_datum([420, 410, 400], **k), 410),
    (lambda **k: weighted_cross_imps([420, [(410, 0.5), (400, 0.5)], 400], **k).ns,
     (Fraction(3, 2), Fraction(-1, 2), -1)),
    (lambda **k: weighted_butler([420, [(400, 0.5), (410, 0.5)], 400], **k).ns, (0, 0, 0)),
])
def test_410_is_refused_with_its_row_unless_the_check_is_off(call, ns):
    with pytest.raises(ImpossibleScoreError, match=r"^row 2: impossible score: 410 .*at any vulnerability"):
        call()
    assert call(check_legal=False) == ns  # the arithmetic still works on any multiple of 10


def test_the_numpy_cores_check_legality_too_with_the_same_opt_out():
    # exported at the top level, so checked like the rest; by hand as above: datum 410, cross-IMPs 0+0, 0+1, -1+0
    for call in (butler_datums, cross_imp_totals):
        with pytest.raises(ImpossibleScoreError, match=r"^row 1 \(board\), column 1: impossible score: 410 .*any vulnerability"):
            call([[410, 420, 400]])
    assert butler_datums([[410, 420, 400]], check_legal=False)[0].tolist() == [410]
    assert cross_imp_totals([[410, 420, 400]], check_legal=False)[0].tolist() == [[0, 1, -1]]
    # even unchecked, a number beyond any score is refused, never wrapped around in int64
    for call in (butler_datums, cross_imp_totals):
        with pytest.raises(ImpossibleScoreError, match=r"column 2: impossible score: 1e\+300 \(far too large"):
            call([[420, 1e300]], check_legal=False)


def test_with_boards_legality_is_that_of_the_board():
    # board 4: both vulnerable, +620 is 4S= and +650 4S+1; board 1: nobody vulnerable, +620 is impossible
    assert cross_imps([620, 650], boards=[4, 4]).ns == (-1, 1)   # a 30-point difference: 1 IMP (Law 78B)
    with pytest.raises(ImpossibleScoreError, match=r"^board 1, row 1: impossible score: 620 .*vulnerability is None"):
        butler([620, 420], boards=[1, 1])
    with pytest.raises(ImpossibleScoreError, match=r"^board 1, row 2: impossible score: -620"):
        weighted_butler([420, [(-620, 0.5), (-50, 0.5)]], boards=[1, 1])


def test_knockout_and_board_a_match_check_both_rooms():
    with pytest.raises(ImpossibleScoreError, match="other room: impossible score: 410"):
        weighted_imps([(420, 0.6), (-50, 0.4)], 410)
    with pytest.raises(ImpossibleScoreError, match="outcome 2: impossible score: 410"):
        outcome_imps([(420, 0.6), (410, 0.4)], 400)
    with pytest.raises(ImpossibleScoreError, match="impossible score: 410"):
        board_a_match([(410, 1)], 400)
    assert board_a_match([(410, 1)], 400, check_legal=False) == 1
    # seed 004's figures are legal scores: unchanged
    assert weighted_imps([(420, 0.6), (-50, 0.4)], 400) == pytest.approx(-3.4)
