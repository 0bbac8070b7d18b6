"""Hand-written PBN 2.1 and USEBIO 1.2 sample files for the format tests, with hand-worked results.

The files were typed by hand following the PBN 2.1 text (sections 2-5) and the USEBIO 1.2 element
list in docs/formats.md; nothing here was produced by xlbridge.

The event: a 3-table Mitchell (N-S pairs 1-3, E-W pairs 1-3), three boards each played three
times.  Matchpoints on the EBU scale (2 per result beaten, 1 per tie; top 2 x (3 - 1) = 4):

Board 1 (dealer N, love all): 4S N 10 = +420, 4S N 11 = +450, 3NT S 9 = +400.
    N-S: 450 -> 4, 420 -> 2, 400 -> 0 (E-W the complement: 0, 2, 4).
Board 2 (dealer E, N-S vulnerable): 2H E 8 = -110, 3H E 8 = +50 (E-W not vulnerable: 50 a trick),
    and an artificial A60/40.  The two real results are matchpointed between themselves
    (+50 beats -110: M = 2 and 0 on a top of 2) and factored to the 3 results expected
    (Neuberg: (M + 1) x 3 / 2 - 1): +50 -> 3.5, -110 -> 0.5; E-W 0.5 and 3.5.  The artificial
    score gets 60 % / 40 % of the top 4: 2.4 / 1.6 (Law 12C2).
Board 3 (dealer S, E-W vulnerable): 1NT W 7 = -90 twice, 2S N 8 = +110.
    N-S: +110 -> 4, -90 and -90 tie -> 1 each; E-W 0, 3, 3.

Totals out of 12: N-S 1: 2 + 0.5 + 1 = 3.5 (29.17 %), N-S 2: 4 + 3.5 + 1 = 8.5 (70.83 %),
N-S 3: 0 + 2.4 + 4 = 6.4 (53.33 %); E-W 1: 2 + 0.5 + 0 = 2.5 (20.83 %), E-W 2: 0 + 1.6 + 3 = 4.6
(38.33 %), E-W 3: 4 + 3.5 + 3 = 10.5 (87.5 %).
"""

from fractions import Fraction as F

DEAL_1 = "N:AKQJ.AKQ.AKQ.AKQ 5432.5432.5432.5 T987.T987.T9.T98 6.J6.J876.J76432"

# PBN 2.1 import format: %-directives, {} and ; comments, '#' tag inheritance (section 4.8), columns in
# a program's own order and widths, a relative Result (+1 / =), names in the TotalScoreTable.
MITCHELL_PBN = r"""% PBN 2.1
% EXPORT
%Creator: hand-written for the xlbridge tests
[Event "Tuesday Pairs"]
[Site "Little Snoring BC"]
[Date "2024.03.05"]
[Board "1"]
[West ""]
[North ""]
[East ""]
[South ""]
[Dealer "N"]
[Vulnerable "None"]
[Deal "N:AKQJ.AKQ.AKQ.AKQ 5432.5432.5432.5 T987.T987.T9.T98 6.J6.J876.J76432"]
[Scoring "MP"]
[Declarer "?"]
[Contract "?"]
[Result "?"]
{ the traveller of board 1 }
[ScoreTable "PairId_NS\2R;PairId_EW\2R;Contract\5L;Declarer\1R;Result\2R;Lead\3L;Score_NS\6R;Score_EW\6R"]
 1  1 4S    N 10 SK     420      -
 2  2 4S    N +1 HA     450      -   ; an overtrick, written relative to the contract
 3  3 3NT   S  = D5     400      -

[Event "#"]
[Site "#"]
[Date "#"]
[Board "2"]
[Dealer "E"]
[Vulnerable "NS"]
[Scoring "MP"]
[ScoreTable "Score_EW\6R;PairId_EW\2R;PairId_NS\2R;Contract\5L;Declarer\1R;Result\2R;Score_NS\6R;Percentage_NS\5R;Percentage_EW\5R"]
   110  3  1 2H    E  8      -     -     -
     -  1  2 3H    E  8     50     -     -
     -  2  3 -     -  -      -   ^60   ^40

[Event "#"]
[Site "#"]
[Date "#"]
[Board "3"]
[Dealer "S"]
[Vulnerable "EW"]
[Scoring "MP"]
[ScoreTable "PairId_NS\2R;PairId_EW\2R;Contract\5L;Declarer\1R;Result\2R;Score_NS\6R;Score_EW\6R;Remark\4L"]
 1  2 1NT   W  7      -     90 none
 2  3 1NT   W  7      -     90 none
 3  1 2S    N  8    110      - "ok"
[TotalScoreTable "Rank\2R;PairId\2R;Direction\2L;TotalMP\5R;TotalPercentage\6R;Names\30L"]
 1  2 NS   8.5  70.83 "Ann Lee;Bob Roe"
 2  3 NS   6.4  53.33 "Cy Fox;Di Ode"
 3  1 NS   3.5  29.17 "Ed Ray;Flo Yu"
 1  3 EW  10.5  87.50 "Gus Ek;Hal Ng"
 2  2 EW   4.6  38.33 "Ida Bo;Jo Pim"
 3  1 EW   2.5  20.83 "Kim Ax;Lou Ma"
"""

#: (board, N-S pair, E-W pair, N-S score, N-S MP, E-W MP), hand-worked above.
MITCHELL_ROWS = [
    (1, "1", "1", 420, F(2), F(2)), (1, "2", "2", 450, F(4), F(0)), (1, "3", "3", 400, F(0), F(4)),
    (2, "1", "3", -110, F(1, 2), F(7, 2)), (2, "2", "1", 50, F(7, 2), F(1, 2)), (2, "3", "2", "A60/40", F(12, 5), F(8, 5)),
    (3, "1", "2", -90, F(1), F(3)), (3, "2", "3", -90, F(1), F(3)), (3, "3", "1", 110, F(4), F(0)),
]
#: (direction, pair) -> (total MP, place) out of 12, hand-worked above.
MITCHELL_TOTALS = {
    ("NS", "1"): (F(7, 2), 3), ("NS", "2"): (F(17, 2), 1), ("NS", "3"): (F(32, 5), 2),
    ("EW", "1"): (F(5, 2), 3), ("EW", "2"): (F(23, 5), 2), ("EW", "3"): (F(21, 2), 1),
}

# The same event as USEBIO 1.2 (typed by hand after the element list in docs/formats.md).
MITCHELL_USEBIO = """<?xml version="1.0" encoding="ISO-8859-1"?>
<!DOCTYPE USEBIO SYSTEM "usebio_v1_2.dtd">
<USEBIO Version="1.2">
  <CLUB><CLUB_NAME>Little Snoring BC</CLUB_NAME><CLUB_ID_NUMBER>123</CLUB_ID_NUMBER></CLUB>
  <EVENT EVENT_TYPE="PAIRS">
    <PROGRAM_NAME>by hand</PROGRAM_NAME>
    <EVENT_DESCRIPTION>Tuesday Pairs</EVENT_DESCRIPTION>
    <DATE>05/03/2024</DATE>
    <BOARD_SCORING_METHOD>MATCH_POINTS</BOARD_SCORING_METHOD>
    <WINNER_TYPE>2</WINNER_TYPE>
    <SESSION SESSION_ID="1"><SECTION SECTION_ID="A">
    <PARTICIPANTS>
      <PAIR><PAIR_NUMBER>2</PAIR_NUMBER><DIRECTION>NS</DIRECTION><PLACE>1</PLACE><PERCENTAGE>70.83</PERCENTAGE>
        <PLAYER><PLAYER_NAME>Ann Lee</PLAYER_NAME></PLAYER><PLAYER><PLAYER_NAME>Bob Roe</PLAYER_NAME></PLAYER></PAIR>
      <PAIR><PAIR_NUMBER>3</PAIR_NUMBER><DIRECTION>NS</DIRECTION><PLACE>2</PLACE><PERCENTAGE>53.33</PERCENTAGE>
        <PLAYER><PLAYER_NAME>Cy Fox</PLAYER_NAME></PLAYER><PLAYER><PLAYER_NAME>Di Ode</PLAYER_NAME></PLAYER></PAIR>
      <PAIR><PAIR_NUMBER>1</PAIR_NUMBER><DIRECTION>NS</DIRECTION><PLACE>3</PLACE><PERCENTAGE>29.17</PERCENTAGE>
        <PLAYER><PLAYER_NAME>Ed Ray</PLAYER_NAME></PLAYER><PLAYER><PLAYER_NAME>Flo Yu</PLAYER_NAME></PLAYER></PAIR>
      <PAIR><PAIR_NUMBER>3</PAIR_NUMBER><DIRECTION>EW</DIRECTION><PLACE>1</PLACE><PERCENTAGE>87.50</PERCENTAGE>
        <PLAYER><PLAYER_NAME>Gus Ek</PLAYER_NAME></PLAYER><PLAYER><PLAYER_NAME>Hal Ng</PLAYER_NAME></PLAYER></PAIR>
      <PAIR><PAIR_NUMBER>2</PAIR_NUMBER><DIRECTION>EW</DIRECTION><PLACE>2</PLACE><PERCENTAGE>38.33</PERCENTAGE>
        <PLAYER><PLAYER_NAME>Ida Bo</PLAYER_NAME></PLAYER><PLAYER><PLAYER_NAME>Jo Pim</PLAYER_NAME></PLAYER></PAIR>
      <PAIR><PAIR_NUMBER>1</PAIR_NUMBER><DIRECTION>EW</DIRECTION><PLACE>3</PLACE><PERCENTAGE>20.83</PERCENTAGE>
        <PLAYER><PLAYER_NAME>Kim Ax</PLAYER_NAME></PLAYER><PLAYER><PLAYER_NAME>Lou Ma</PLAYER_NAME></PLAYER></PAIR>
    </PARTICIPANTS>
    <BOARD><BOARD_NUMBER>1</BOARD_NUMBER>
      <HAND><DIRECTION>North</DIRECTION><SPADES>AKQJ</SPADES><HEARTS>AKQ</HEARTS><DIAMONDS>AKQ</DIAMONDS><CLUBS>AKQ</CLUBS></HAND>
      <HAND><DIRECTION>East</DIRECTION><SPADES>5432</SPADES><HEARTS>5432</HEARTS><DIAMONDS>5432</DIAMONDS><CLUBS>5</CLUBS></HAND>
      <HAND><DIRECTION>South</DIRECTION><SPADES>T987</SPADES><HEARTS>T987</HEARTS><DIAMONDS>T9</DIAMONDS><CLUBS>T98</CLUBS></HAND>
      <HAND><DIRECTION>West</DIRECTION><SPADES>6</SPADES><HEARTS>J6</HEARTS><DIAMONDS>J876</DIAMONDS><CLUBS>J76432</CLUBS></HAND>
      <TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1</EW_PAIR_NUMBER><CONTRACT>4S</CONTRACT>
        <PLAYED_BY>N</PLAYED_BY><LEAD>SK</LEAD><TRICKS>10</TRICKS><SCORE>420</SCORE></TRAVELLER_LINE>
      <TRAVELLER_LINE><NS_PAIR_NUMBER>2</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER><CONTRACT>4S</CONTRACT>
        <PLAYED_BY>North</PLAYED_BY><LEAD>AH</LEAD><TRICKS>11</TRICKS><SCORE>450</SCORE></TRAVELLER_LINE>
      <TRAVELLER_LINE><NS_PAIR_NUMBER>3</NS_PAIR_NUMBER><EW_PAIR_NUMBER>3</EW_PAIR_NUMBER><CONTRACT>3NT</CONTRACT>
        <PLAYED_BY>S</PLAYED_BY><LEAD>D5</LEAD><TRICKS>9</TRICKS><SCORE>400</SCORE></TRAVELLER_LINE>
    </BOARD>
    <BOARD><BOARD_NUMBER>2</BOARD_NUMBER><VULNERABILITY>North-South</VULNERABILITY>
      <TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>3</EW_PAIR_NUMBER><CONTRACT>2H</CONTRACT>
        <PLAYED_BY>E</PLAYED_BY><TRICKS>8</TRICKS><SCORE>-110</SCORE></TRAVELLER_LINE>
      <TRAVELLER_LINE><NS_PAIR_NUMBER>2</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1</EW_PAIR_NUMBER><CONTRACT>3H</CONTRACT>
        <PLAYED_BY>E</PLAYED_BY><TRICKS>8</TRICKS><SCORE>50</SCORE></TRAVELLER_LINE>
      <TRAVELLER_LINE><NS_PAIR_NUMBER>3</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER><SCORE>A60/40</SCORE></TRAVELLER_LINE>
    </BOARD>
    <BOARD><BOARD_NUMBER>3</BOARD_NUMBER><VULNERABILITY>East-West</VULNERABILITY>
      <TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER><CONTRACT>1NT</CONTRACT>
        <PLAYED_BY>W</PLAYED_BY><TRICKS>7</TRICKS><SCORE>-90</SCORE></TRAVELLER_LINE>
      <TRAVELLER_LINE><NS_PAIR_NUMBER>2</NS_PAIR_NUMBER><EW_PAIR_NUMBER>3</EW_PAIR_NUMBER><CONTRACT>1NT</CONTRACT>
        <PLAYED_BY>W</PLAYED_BY><TRICKS>7</TRICKS><SCORE>-90</SCORE></TRAVELLER_LINE>
      <TRAVELLER_LINE><NS_PAIR_NUMBER>3</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1</EW_PAIR_NUMBER><CONTRACT>2S</CONTRACT>
        <PLAYED_BY>N</PLAYED_BY><TRICKS>8</TRICKS><SCORE>110</SCORE></TRAVELLER_LINE>
    </BOARD>
    </SECTION></SESSION>
  </EVENT>
</USEBIO>
"""

NAMES = {("NS", "2"): ("Ann Lee", "Bob Roe"), ("NS", "3"): ("Cy Fox", "Di Ode"), ("NS", "1"): ("Ed Ray", "Flo Yu"),
         ("EW", "3"): ("Gus Ek", "Hal Ng"), ("EW", "2"): ("Ida Bo", "Jo Pim"), ("EW", "1"): ("Kim Ax", "Lou Ma")}


def endplay_score_rows(path):
    """(endplay's boards, [(board, PairId_NS, PairId_EW, Contract, Declarer, Result)]) of a PBN file read by
    endplay's own parser (the independent reader the cross-checks use); skips when endplay is missing."""
    import pytest

    pbn = pytest.importorskip("endplay.parsers.pbn")
    with open(path, encoding="ascii") as fh:
        boards = pbn.load(fh)
    rows = []
    for b in boards:
        table = b.info["ScoreTable"]
        names = [h["name"] for h in table["headers"]]
        for row in table["rows"]:
            r = dict(zip(names, row))
            rows.append((b.board_num, r["PairId_NS"], r["PairId_EW"], r["Contract"], r["Declarer"], r["Result"]))
    return boards, rows


#: part scores legal at any vulnerability (Law 77), for generated events
PART_SCORES = (80, 90, 110, 120, 140, -80, -90, -110, -120, -140, 0)


def pairs_pbn(rows: int, per_board: int = 1000, name: str = "Big", new_pairs: bool = True) -> str:
    """A pairs event of ``rows`` traveller rows, every row a new pair (Mitchell: N-S k against E-W k; or,
    without ``new_pairs``, the pairs 1 to ``per_board`` of a Mitchell on every board), part scores legal
    at any vulnerability. Shared by tests/cli/test_upload_guard.py and benchmarks/bench_upload.py."""
    out = [f'% PBN 2.1\n[Event "{name}"]\n']
    n = b = 0
    while n < rows:
        b += 1
        k = min(per_board, rows - n)
        out.append(f'\n[Board "{b}"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n')
        first = n if new_pairs else 0
        out.extend(f"{first + i + 1} {first + i + 1} {PART_SCORES[i % len(PART_SCORES)]}\n" for i in range(k))
        n += k
    return "".join(out)
