"""score_event: matchpoints, percentages, IMPs and places, against hand-worked values and brute force."""

import random
from fractions import Fraction as F

import pytest

from xlbridge.formats import (HOWELL, MITCHELL, Board, Event, FormatError, Result, read_pbn, read_usebio,
                              score_event)

from formats_samples import MITCHELL_PBN, MITCHELL_ROWS, MITCHELL_TOTALS, MITCHELL_USEBIO


@pytest.mark.parametrize("read, sample", [(read_pbn, MITCHELL_PBN), (read_usebio, MITCHELL_USEBIO)])
def test_sample_matchpoints_and_places_hand_worked(read, sample):
    e = score_event(read(sample.encode()))
    rows = [(b.number, r.ns, r.ew, r.score if isinstance(r.score, int) else str(r.score), r.mp_ns, r.mp_ew)
            for b in e.boards for r in b.results]
    assert rows == MITCHELL_ROWS
    for p in e.participants:
        total, place = MITCHELL_TOTALS[p.key]
        assert (p.total, p.maximum, p.place, p.tied, p.boards) == (total, 12, place, False, 3)
        assert p.percentage == total * 100 / 12
    # row percentages: matchpoints over the top of 4
    b2 = e.boards[1].results
    assert [(r.pct_ns, r.pct_ew) for r in b2] == [(F(25, 2), F(175, 2)), (F(175, 2), F(25, 2)), (60, 40)]


def test_acbl_scale_is_half_the_ebu_figures():
    e = read_pbn(MITCHELL_PBN.encode())
    ebu, acbl = score_event(e), score_event(e, scale="ACBL")
    for b1, b2 in zip(ebu.boards, acbl.boards):
        for r1, r2 in zip(b1.results, b2.results):
            assert (r2.mp_ns, r2.mp_ew) == (r1.mp_ns / 2, r1.mp_ew / 2) and r2.pct_ns == r1.pct_ns


def _brute_mp(scores):
    """EBU matchpoints by counting: 2 for each other result beaten, 1 for each tie (Law 78A)."""
    return [sum(2 if s > t else 1 if s == t else 0 for j, t in enumerate(scores) if j != i)
            for i, s in enumerate(scores)]


# N-S scores on a board where both sides are vulnerable (Law 77): e.g. 620 = 4H/4S made, 200 = E-W two down,
# 180 = 1NTX made, 1430 = 6H/6S made; the negatives are the same results for E-W.
LEGAL = [-1430, -800, -660, -620, -600, -500, -300, -200, -140, -120, -110, -100, -90, 0, 90, 100, 110, 120, 140,
         180, 200, 300, 500, 600, 620, 630, 650, 660, 800, 1100, 1430]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("movement", [MITCHELL, HOWELL])
def test_complete_sessions_against_brute_force(seed, movement):
    rng = random.Random(seed)
    n = rng.randint(2, 6)  # tables
    boards = []
    for bn in range(1, rng.randint(2, 5) + 1):
        if movement == MITCHELL:
            ew = rng.sample(range(1, n + 1), n)
            pairs = [(str(t), str(ew[t - 1])) for t in range(1, n + 1)]
        else:
            order = rng.sample(range(1, 2 * n + 1), 2 * n)
            pairs = [(str(order[2 * t]), str(order[2 * t + 1])) for t in range(n)]
        rows = tuple(Result(a, b, score=rng.choice(LEGAL)) for a, b in pairs)
        boards.append(Board(bn, "N", "All", results=rows))  # every listed score is legal vulnerable
    e = score_event(Event(movement=movement, boards=tuple(boards)))
    totals = {}
    for b in e.boards:
        scores = [r.score for r in b.results]
        mp_ns = _brute_mp(scores)
        mp_ew = _brute_mp([-s for s in scores])
        assert [r.mp_ns for r in b.results] == mp_ns and [r.mp_ew for r in b.results] == mp_ew
        for r, a, c in zip(b.results, mp_ns, mp_ew):
            for key, v in ((e.pair_key(r, "NS"), a), (e.pair_key(r, "EW"), c)):
                t, m = totals.get(key, (0, 0))
                totals[key] = (t + v, m + 2 * (n - 1))
    for p in e.participants:
        t, m = totals[p.key]
        assert (p.total, p.maximum, p.percentage) == (t, m, F(100 * t, m))
        field = [q for q in e.participants if q.direction == p.direction]
        better = sum(q.percentage > p.percentage for q in field)
        same = sum(q.percentage == p.percentage for q in field)
        assert p.place == better + 1 and p.tied == (same > 1)


def test_teams_imps_hand_worked():
    # Team 1 v team 2.  Board 1 (love all): room 1 team 1 N-S 4S= +420, room 2 team 2 N-S 4S-1 -50:
    # team 1 gains 420 + 50 = 470 -> 10 IMPs (Law 78B: 450-490).  Board 2 (N-S vul): 3NT= +600 in both
    # rooms -> 0.  Board 3 (E-W vul): room 1 2S N +110, room 2 team 2 N-S 3S N -1 -50, so team 1 (E-W
    # there) +50: 110 + 50 = 160 -> 4 IMPs (130-160).
    rows = {
        1: (Result("1", "2", "4S", "N", 10), Result("2", "1", "4S", "N", 9)),
        2: (Result("1", "2", "3NT", "N", 9), Result("2", "1", "3NT", "N", 9)),
        3: (Result("1", "2", "2S", "N", 8), Result("2", "1", "3S", "N", 8)),
    }
    vul = {1: "None", 2: "NS", 3: "EW"}
    e = Event(kind="TEAMS", scoring="IMP", boards=tuple(Board(b, "N", vul[b], results=r) for b, r in rows.items()))
    s = score_event(e)
    assert [(r.imp_ns, r.imp_ew) for b in s.boards for r in b.results] == [
        (10, -10), (-10, 10), (0, 0), (0, 0), (4, -4), (-4, 4)]
    by = {p.number: p for p in s.participants}
    assert (by["1"].total, by["1"].place, by["2"].total, by["2"].place) == (14, 1, -14, 2)


def test_cross_imps_pairs_hand_worked():
    # 420, 400, -50 on a love-all board: 420 v 400 = 20 -> 1, 420 v -50 = 470 -> 10: total 11;
    # 400: -1 + 10 (450) = 9; -50: -10 - 10 = -20.
    rows = (Result("1", "2", score=420), Result("3", "4", score=400), Result("5", "6", score=-50))
    e = score_event(Event(scoring="CROSS_IMP", boards=(Board(1, "N", "None", results=rows),)))
    assert [(r.imp_ns, r.imp_ew) for r in e.boards[0].results] == [(11, -11), (9, -9), (-20, 20)]
    # ranked by IMPs per board: E-W 6 +20, N-S 1 +11, N-S 3 +9, E-W 4 -9, E-W 2 -11, N-S 5 -20
    assert {p.number: p.place for p in e.participants} == {"6": 1, "1": 2, "3": 3, "4": 4, "2": 5, "5": 6}


def test_score_event_checks_events_built_in_code():
    rows = (Result("1", "2", "4S", "N", 10, 420), Result("3", "4", "4S", "N", 10, 410))
    with pytest.raises(FormatError, match=r"^board 1, row 2: score does not match 4S by N taking 10 tricks.*410$"):
        score_event(Event(boards=(Board(1, "N", "None", results=rows),)))
    twice = (Result("1", "2", score=420), Result("1", "3", score=400))
    with pytest.raises(FormatError, match="pair plays board 1 twice"):
        score_event(Event(boards=(Board(1, "N", "None", results=twice),)))


def test_input_event_is_not_changed():
    e = read_pbn(MITCHELL_PBN.encode())
    before = repr(e)
    score_event(e)
    assert repr(e) == before


def test_a_matchpoint_cell_showing_other_matchpoints_than_its_row_is_named_once():
    """Two results on a board, 420 and 400 (EBU scale: a top of 2, Law 78A): N-S 1 2 / E-W 2 0, N-S 3 0 / E-W 4 2.
    The book's cells show 2, 0, an infinite value (not compared) and 5 (named); ten cells apart are named three at
    a time, the others counted in one line."""
    from xlbridge.formats.model import Board, Event, Result
    from xlbridge.formats.scoring import score_event

    rows = (Result("1", "2", score=420), Result("3", "4", score=400))
    shown = ((1, "1", "2", (("Travellers!N5", 2.0), ("Travellers!O5", 0))),
             (1, "3", "4", (("Travellers!N6", float("inf")), ("Travellers!O6", 5))))
    event = score_event(Event(boards=(Board(1, "N", "None", results=rows),), scale="EBU", shown_mp=shown))
    assert event.notes == ("Travellers!O6: shows 5, not the row's matchpoints (2); not used: the site and the files "
                           "use the row's (recalculate the book, or copy the cell of another row back into it)",)
    many = tuple((1, "1", "2", ((f"Travellers!N{r}", 9), (f"Travellers!O{r}", 0))) for r in range(5, 15))
    notes = score_event(Event(boards=(Board(1, "N", "None", results=rows),), scale="EBU", shown_mp=many)).notes
    assert len(notes) == 4 and notes[3] == ("and 7 more matchpoint cells showing other matchpoints than their rows' "
                                            "(recalculate the book)")
