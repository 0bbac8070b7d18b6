"""A Law 12C1(c) weighted score in PBN and USEBIO (issue 40): xlbridge's own field (the PBN ScoreTable column
``Outcomes``, the USEBIO element ``WEIGHTED_SCORE``) read back, and refused with one line naming the file and the
line or element when it is wrong.

The board is seed 004's (board 1, nobody vulnerable): 60 % of +420 (4S making) and 40 % of -50 (one off).
Law 77 at no vulnerability: 4S one off is -50; no contract scores 410 or -60.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from xlbridge import templates
from xlbridge.formats import Board, Event, FormatError, Participant, Result, read_pbn, read_usebio
from xlbridge.formats.teamsbook import fill_teams_workbook
from xlbridge.formats.workbook import fill_pairs_workbook

PBN = """% PBN 2.1
[Event "Club"]
[Board "1"]
[Vulnerable "None"]
[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS;Outcomes"]
1 11 4S N 10 420 "{}"
2 12 4S N 10 420 -
"""

USEBIO = """<?xml version="1.0" encoding="ISO-8859-1"?>
<USEBIO Version="1.2"><EVENT EVENT_TYPE="MP_PAIRS"><BOARD_SCORING_METHOD>MATCH_POINTS</BOARD_SCORING_METHOD>
<WINNER_TYPE>2</WINNER_TYPE><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>
<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>11</EW_PAIR_NUMBER><SCORE>420</SCORE>
<WEIGHTED_SCORE>{}</WEIGHTED_SCORE></TRAVELLER_LINE>
<TRAVELLER_LINE><NS_PAIR_NUMBER>2</NS_PAIR_NUMBER><EW_PAIR_NUMBER>12</EW_PAIR_NUMBER><SCORE>420</SCORE>
</TRAVELLER_LINE></BOARD></EVENT></USEBIO>
"""


def _xml(outcomes: str) -> bytes:
    inner = "".join(f'<OUTCOME SCORE="{s}" WEIGHT="{w}"/>' for s, w in (o.split() for o in outcomes.split(";")))
    return USEBIO.format(inner).encode("latin-1")


@pytest.mark.parametrize("outcomes, expected", [
    ("420 60%;-50 40%", ((420, F(3, 5)), (-50, F(2, 5)))),
    ("420 1/3;-50 2/3", ((420, F(1, 3)), (-50, F(2, 3)))),
    ("420 0%;-50 100%", ((-50, F(1)),)),  # (the row's own score at no weight, as the workbook allows)
    ("420 12.5%;-50 87.5%", ((420, F(1, 8)), (-50, F(7, 8)))),
])
def test_the_outcomes_are_read_exactly_from_both_formats(outcomes, expected):
    for event in (read_pbn(PBN.format(outcomes).encode()), read_usebio(_xml(outcomes))):
        row = event.boards[0].results[0]
        assert (row.score, row.outcomes) == (420, expected)
        assert event.boards[0].results[1].outcomes == ()


@pytest.mark.parametrize("outcomes, message", [
    ("420 60%;-50 30%", "a weighted score (Law 12C1(c)): weights total 90 %, not 100 %: 420 x 60 %, -50 x 30 %"),
    ("-50 40%;420 60%", "a weighted score's first outcome must be the row's own score, 420"),
    ("420 60%;-60 40%", "impossible outcome for vulnerability 'None' (nobody vulnerable): -60"),
    ("420 60%;x 40%", "an outcome of a weighted score must be a N-S score, got 'x'"),
    ("420 60%;-50 lots", "cannot read the weight of an outcome: 'lots'"),
])
def test_a_wrong_weighted_score_is_refused_naming_the_line_or_element(outcomes, message):
    with pytest.raises(FormatError) as exc:
        read_pbn(PBN.format(outcomes).encode(), name="club.pbn")
    assert str(exc.value) == f"club.pbn, line 6: {message}"
    with pytest.raises(FormatError) as exc:
        read_usebio(_xml(outcomes), name="club.xml")
    assert str(exc.value) == f"club.xml, BOARD 1, TRAVELLER_LINE 1, WEIGHTED_SCORE: {message}"


def test_a_pbn_outcomes_cell_that_is_not_score_weight_pairs_is_refused():
    with pytest.raises(FormatError) as exc:
        read_pbn(PBN.format("420;-50 40%").encode(), name="club.pbn")
    assert str(exc.value).startswith("club.pbn, line 6: cannot read the weighted score's outcomes")
    with pytest.raises(FormatError) as exc:
        read_pbn(PBN.format(";".join(["420 5%"] * 14)).encode(), name="club.pbn")
    assert str(exc.value).startswith("club.pbn, line 6: a weighted score (Law 12C1(c)) with more than 13 outcomes")


def _pairs_event(outcomes):
    return Event(name="Club", movement="MITCHELL",
                 participants=(Participant("1", "NS"), Participant("2", "NS"), Participant("11", "EW"),
                               Participant("12", "EW")),
                 boards=(Board(1, "N", "None", results=(Result("1", "11", "4S", "N", 10, 420, outcomes=outcomes),
                                                         Result("2", "12", "4S", "N", 10, 420))),))


def test_import_writes_the_outcomes_into_the_workbook_s_columns():
    """Typed as a scorer would: 4S making in the row (420), -50 in Outcome 2 NS, 1/3 and 2/3 as weights (a
    third is not a decimal: the cell holds the number Excel's =1/3 gives, which the workbook reads as 1/3)."""
    wb = templates.build_workbook("pairs.xlsx")
    fill_pairs_workbook(wb, _pairs_event(((420, F(1, 3)), (-50, F(2, 3)))), name="club.pbn")
    ws = wb["Travellers"]
    header = [c.value for c in ws[4]]
    row = dict(zip(header, [c.value for c in ws[5]]))
    assert (row["Contract"], row["Outcome 2 NS"], row["Outcome 3 NS"]) == ("4S", -50, None)
    assert (row["Weight 1"], row["Weight 2"], row["Weight 3"]) == (1 / 3, 2 / 3, None)
    assert dict(zip(header, [c.value for c in ws[6]]))["Weight 1"] is None


def test_import_refuses_more_outcomes_than_the_workbook_holds():
    four = ((420, F(1, 4)), (-50, F(1, 4)), (450, F(1, 4)), (-100, F(1, 4)))
    with pytest.raises(FormatError) as exc:
        fill_pairs_workbook(templates.build_workbook("pairs.xlsx"), _pairs_event(four), name="club.pbn")
    assert str(exc.value) == ("club.pbn, board 1, 1 v 11: a weighted score (Law 12C1(c)) with 4 outcomes; the workbook "
                              "holds at most 3 (its own score, Outcome 2 and Outcome 3): "
                              "'420, -50, 450, -100'")


def test_import_refuses_a_weighted_score_in_room_2_of_a_teams_match():
    """Team 1 (team A) sits N-S in room 1; the weighted score is in room 2 (team 2 N-S), which the teams
    workbook cannot hold (its outcomes are room 1's)."""
    event = Event(kind="TEAMS", scoring="IMP", participants=(Participant("1", name="Lions"),
                                                              Participant("2", name="Tigers")),
                  boards=(Board(1, "N", "None", results=(
                      Result("1", "2", score=420), Result("2", "1", score=-420, outcomes=((-420, F(1, 2)),
                                                                                          (50, F(1, 2)))))),))
    with pytest.raises(FormatError) as exc:
        fill_teams_workbook(templates.build_workbook("teams.xlsx"), event, name="club.pbn")
    assert str(exc.value) == ("club.pbn: board 1, team 2 v team 1: a weighted score (Law 12C1(c)) in room 2; the teams "
                              "workbook holds one in room 1 only (team 1 sitting N-S)")
