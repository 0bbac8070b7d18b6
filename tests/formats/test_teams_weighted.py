"""Publishing a teams workbook with a Law 12C1(c) weighted board (issue 16): `xlbridge publish` reads room 1's
outcomes and weights from the Boards sheet, scores the board outcome by outcome and shows it; PBN and USEBIO
carry it in a field of xlbridge's own (issue 40), and import gives it back.

Every expected value is worked by hand here (nothing was produced by xlbridge): IMPs by the table of Law 78B
(../shared/REFERENCE.md: 370-420: 9, 500-590: 11, 750-890: 13), VPs on the WBF 2013 scale for 7 boards as
published with seed 004 (+5 IMPs: 12.18 - 7.82, +9: 13.65 - 6.35).

The event, typed into the teams template (workbooks/teams.xlsx) by the test: two 7-board matches, Lions v
Tigers (match 1) and Bears v Wolves (match 2); team A sits N-S in room 1. Standard vulnerability cycle.

- Match 1, board 1 (none vul), weighted in room 1: Lions N-S are given 50 % of +420, 30 % of +170 and 20 % of
  -50; in room 2 Tigers N-S score -420 (Lions, E-W there, make 4S). Each outcome IMPed against room 2:
  420 + 420 = 840: 13 IMPs; 170 + 420 = 590: 11 IMPs; -50 + 420 = 370: 9 IMPs. Weighted:
  0.5 x 13 + 0.3 x 11 + 0.2 x 9 = 6.5 + 3.3 + 1.8 = 11.6 IMPs to Lions (exact, not rounded: shown 11.60).
- Match 1, board 2 (N-S vul): 600 (3NT=) against 630 (3NT+1): -30, 1 IMP to Tigers.
- Match 1, board 3 (E-W vul): -100 (two down, not vul) against -50: -50, 2 IMPs to Tigers.
- Match 2, board 4 (all vul): Bears N-S +110 against Wolves N-S -100: 210, 5 IMPs to Bears.
- Every other board is flat (400 not vul, 600 vul in both rooms).

Match 1: Lions 11.6, Tigers 3: margin 8.6, rounded once to the nearest IMP: 9, so 13.65 - 6.35 VPs.
Match 2: Bears 5, Wolves 0: 12.18 - 7.82. Standings: Lions 13.65, Bears 12.18, Wolves 7.82, Tigers 6.35.
"""

from __future__ import annotations

import math
from fractions import Fraction
import shutil
import sys
from pathlib import Path

import html5lib
import openpyxl
import pytest
from server_helpers import run_main
from recalc_helpers import typed

from xlbridge.cli import main

ROOT = Path(__file__).resolve().parents[2]
NS_VUL = {1: False, 2: True, 3: False, 4: True, 5: True, 6: False, 7: True}
WEIGHTED_TEXT = "420 (50 %), 170 (30 %), -50 (20 %)"


def _flat(board: int) -> int:
    return 600 if NS_VUL[board] else 400


# (match, board, room 1 N-S, outcome 2, outcome 3, weight 1, weight 2, weight 3, room 2 N-S)
BOARDS = [(1, 1, 420, 170, -50, 0.5, 0.3, 0.2, -420), (1, 2, 600, None, None, None, None, None, 630),
          (1, 3, -100, None, None, None, None, None, -50)]
BOARDS += [(1, b, _flat(b), None, None, None, None, None, _flat(b)) for b in range(4, 8)]
BOARDS += [(2, b, 110, None, None, None, None, None, -100) if b == 4 else
           (2, b, _flat(b), None, None, None, None, None, _flat(b)) for b in range(1, 8)]
MATCHES = [(1, "Lions", "Tigers", 7), (2, "Bears", "Wolves", 7)]


def _book(path: Path, boards=BOARDS, matches=None) -> Path:
    """The shipped teams template with ``boards`` and ``matches`` (None: :data:`MATCHES`) typed in (into its XML: an openpyxl load
    and save of the 5,000-row template takes seconds)."""
    from openpyxl.utils import get_column_letter

    def rows(table):
        return {f"{get_column_letter(c)}{r}": v for r, row in enumerate(table, start=5)
                for c, v in enumerate(row, start=1) if v is not None}

    return typed(ROOT / "workbooks" / "teams.xlsx", path, {"Boards": rows(boards), "Matches": rows(MATCHES if matches is None else matches)})


def _parse(path: Path):
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(path.read_text(encoding="utf-8"))


def _rows(doc, k: int = 0) -> list[list[str]]:
    """The body rows of the page's ``k``-th table, each cell's text."""
    body = doc.findall(".//tbody")[k]
    return [["".join(td.itertext()).strip() for td in tr.findall("td")] for tr in body.findall("tr")]


def _heads(doc, k: int = 0) -> list[str]:
    """The headers of the page's ``k``-th table."""
    return ["".join(th.itertext()).strip() for th in doc.findall(".//thead")[k].iter("th")]


def _dicts(doc, k: int = 0) -> list[dict[str, str]]:
    """The body rows of the page's ``k``-th table, each a {header: cell text} (a header twice: the later one
    as ``header 2``)."""
    heads, seen = [], set()
    for h in _heads(doc, k):
        heads.append(h if h not in seen else f"{h} 2")
        seen.add(h)
    return [dict(zip(heads, row)) for row in _rows(doc, k)]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("weighted-teams")
    book = _book(d / "club.xlsx")
    assert main(["publish", str(book), "-o", str(d / "site")]) == 0
    return d


def test_the_weighted_board_s_traveller_shows_each_outcome_and_the_exact_weighted_imps(site):
    doc = _parse(site / "site" / "board-1.html")
    # N-S, E-W (each team by its name, issue 40), N-S +, N-S -, the score in one column (a phone's), IMPs N-S,
    # IMPs E-W: no Contract, By, Tricks or Lead column (the teams workbook has none of them)
    assert _heads(doc) == ["N-S", "E-W", "N-S +", "N-S \u2212", "N-S score", "IMPs N-S", "IMPs E-W"]
    got = {(r["N-S"], r["E-W"]): (r["N-S +"], r["N-S \u2212"], r["N-S score"], r["IMPs N-S"], r["IMPs E-W"])
           for r in _dicts(doc)}
    # 0.5 x 13 + 0.3 x 11 + 0.2 x 9
    assert got[("Lions", "Tigers")] == (WEIGHTED_TEXT, "", WEIGHTED_TEXT, "11.60", "-11.60")
    assert got[("Tigers", "Lions")] == ("", "420", "-420", "-11.60", "11.60")
    assert got[("Bears", "Wolves")][3:] == ("0", "0")


def test_the_match_scorecard_totals_exactly_and_rounds_the_margin_once(site):
    doc = _parse(site / "site" / "match-1-2.html")
    rows = _rows(doc)
    # each table named by the team sitting N-S there (the workbook's room 1 is team A's: Lions, team 1)
    # (no Contract or By columns: the teams workbook has no contracts)
    assert _heads(doc) == ["Board", "Score (Lions N-S)", "Score (Tigers N-S)", "IMPs Lions", "IMPs Tigers"]
    assert [r[0] for r in rows] == ["1", "2", "3", "4", "5", "6", "7", "Total"]
    assert rows[0] == ["1", WEIGHTED_TEXT, "-420", "11.60", ""]
    assert (rows[1][3:], rows[2][3:]) == (["", "1"], ["", "2"])
    assert rows[-1][3:] == ["11.60", "3"]
    result = " ".join("".join(p.itertext()).split()) if (p := doc.find(".//p[@class='result']")) is not None else ""
    assert result == ("IMPs 11.60 \u2013 3, margin rounded once to the nearest IMP: Lions +9; VPs Lions 13.65 "
                      "\u2013 Tigers 6.35 (WBF 2013 scale, 7 boards)")


def test_the_standings_are_by_vps_of_the_rounded_margins(site):
    doc = _parse(site / "site" / "index.html")
    # Place, Team, VPs, IMPs (no Players column: no team's players are typed; the team's name not repeated)
    assert _heads(doc) == ["Place", "Team", "VPs", "IMPs"]
    assert _rows(doc) == [["1", "Lions", "13.65", "8.60"], ["2", "Bears", "12.18", "5"], ["3", "Wolves", "7.82", "-5"],
                          ["4", "Tigers", "6.35", "-8.60"]]


def test_the_team_s_scorecard_shows_each_board_once_from_its_side(site):
    """Issue 40: each board of the team's match is one row (both rooms), its IMPs once and from the team's side,
    so that the column adds up to the match's IMPs (Tigers: 3 - 11.6 = -8.6); the opponents by name."""
    doc = _parse(site / "site" / "pair-2.html")  # Tigers
    assert _heads(doc) == ["Board", "Versus", "Score (our N-S)", "Score (their N-S)", "IMPs"]
    rows = _rows(doc)
    assert [r[0] for r in rows] == ["1", "2", "3", "4", "5", "6", "7", "Total"]
    assert {r[1] for r in rows[:-1]} == {"Lions"}
    # board 1: Tigers N-S score -420 in their room; Lions N-S hold the weighted score in the other
    assert (rows[0][2], rows[0][3], rows[0][4]) == ("-420", WEIGHTED_TEXT, "-11.60")
    assert (rows[1][4], rows[2][4]) == ("1", "2")
    assert rows[-1][4] == "-8.60"
    summary = " ".join("".join(doc.find(".//main/p").itertext()).split())
    assert not summary.startswith(("\u00b7", " ")), summary  # no stray separator before the first item
    # issue 53: each figure says what it is (the total in IMPs, the VPs, the place by VPs)
    assert summary == "total -8.60 IMPs \u00b7 6.35 VPs \u00b7 place 4 by VPs", summary


def test_every_page_is_valid_html5(site):
    for page in (site / "site").glob("*.html"):
        _parse(page)


def _run(*argv, cwd):
    return run_main(*argv, cwd=cwd)  # (the command in this process: what it says and writes is the subject)


@pytest.mark.parametrize("fmt, out", [("pbn", "w.pbn"), ("usebio", "w.xml")])
def test_export_carries_the_weighted_board_and_import_gives_it_back(site, tmp_path, fmt, out):
    """Issue 40: the weighted board is exported as room 1's own score (420) with its exact weighted IMPs (11.6)
    and its outcomes in xlbridge's own field, with one warning line; importing the file gives back the board
    as typed (50 % of 420, 30 % of 170, 20 % of -50 against -420), so the same standings."""
    from xlbridge.formats.scoring import match_results, score_event
    from xlbridge.formats.workbook import read_workbook

    shutil.copy(site / "club.xlsx", tmp_path / "w.xlsx")
    proc = _run("export", "w.xlsx", "--format", fmt, "-o", out, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == (
        f"xlbridge export: w.xlsx: warning: 1 weighted score (Law 12C1(c)), board 1, 1 v 2: written as its own score "
        f"with the exact weighted IMPs; its outcomes and weights in xlbridge's "
        f"{'ScoreTable column Outcomes' if fmt == 'pbn' else 'element WEIGHTED_SCORE of the traveller line'}, "
        f"which other programs skip (docs/formats.md)")
    text = (tmp_path / out).read_text(encoding="latin-1")
    if fmt == "pbn":
        assert '"420 50%;170 30%;-50 20%"' in text
    else:
        assert '<OUTCOME SCORE="170" WEIGHT="30%" />' in text and "<IMPS>11.6</IMPS>" in text
    assert _run("import", out, "-o", "back.xlsx", cwd=tmp_path).returncode == 0
    ws = openpyxl.load_workbook(tmp_path / "back.xlsx")["Boards"]
    assert [c.value for c in ws[5]][:9] == [1, 1, 420, 170, -50, 0.5, 0.3, 0.2, -420]
    result = match_results(score_event(read_workbook(tmp_path / "back.xlsx")))[("1", "2")]
    assert (result.imps_a, result.imps_b, f"{float(result.vp_a):.2f}") == (Fraction(58, 5), 3, "13.65")


@pytest.mark.parametrize("change, cell, message", [
    ((1, 1, 420, 170, -50, 0.5, 0.3, 0.1, -420), "F5", "weights total 90 %, not 100 %"),
    ((1, 1, 420, 410, None, 0.6, 0.4, None, -420), "D5", "impossible score for vulnerability 'None' (nobody vulnerable): 410"),
    ((1, 1, 420, "x", None, 0.6, 0.4, None, -420), "D5", "an outcome must be a N-S score, got 'x'"),
    ((1, 1, None, -50, None, 0.6, 0.4, None, -420), "C5", "needs room 1's N-S score, its first outcome"),
    ((1, 1, "A60/40", -50, None, 0.6, 0.4, None, -420), "C5", "needs a real score in the row, not 'A60/40'"),
    ((1, 1, 420, -50, None, 0.6, 0.4, None, "A50/50"), "I5", "cannot be played against an artificial score: 'A50/50'"),
    ((1, 1, 420, -50, None, 0.6, "lots", None, -420), "G5", "cannot read weight 'lots' (expected e.g. 0.6, 60 or 60%)"),
])
def test_a_bad_weighted_board_is_refused_with_one_line_naming_its_cell(tmp_path, change, cell, message):
    _book(tmp_path / "bad.xlsx", [change] + BOARDS[1:])
    proc = _run("publish", "bad.xlsx", "-o", "site", cwd=tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert f"bad.xlsx, Boards!{cell}: " in proc.stderr and message in proc.stderr, proc.stderr
    assert not (tmp_path / "site").exists()


def _wbf_2013(margin: int, boards: int) -> float:
    """The winner's VPs by the WBF 2013 formula (../shared/REFERENCE.md), to 2 decimals, computed here."""
    tau = (math.sqrt(5) - 1) / 2
    return round(min(20.0, 10 + 10 * (1 - tau ** (3 * margin / (15 * math.sqrt(boards)))) / (1 - tau ** 3)), 2)


def test_the_shipped_teams_example_publishes_with_its_weighted_board(tmp_path):
    """workbooks/examples/teams.xlsx: match 1 (Team A v Team B, 7 boards) is seed 004's Swiss match, board 1
    weighted: 60 % of 420 and 40 % of -50 against 400 is 0.6 x 1 + 0.4 x (-10) = -3.4 IMPs; the other boards
    (620 v 620, 420 v 170, -100 v -140, 110 v 140, -620 v -650, 650 v 620) are 0, 6, 1, -1, 1, 1 (Law 78B). Team A
    9, Team B 4.4: margin 4.6, rounded once to 5: 12.18 - 7.82 (seed 004, 7-board scale).
    Match 2 (Team C v Team D, 3 boards): 450 v 420 (30: 1), -200 v 110 (-310: -7), 140 v 140 (0): Team C 1,
    Team D 7, margin 6 to Team D over 3 boards: 10 + 10 (1 - tau^(18 / (15 sqrt 3))) / (1 - tau^3) = 13.71
    by the formula (1 - 0.7166 = 0.2834, / 0.7639 = 0.3710), the steps either side of it checked below for
    the published table's concavity rule (no step larger than the one before), so 13.71 - 6.29.
    Standings: Team D 13.71, Team A 12.18, Team B 7.82, Team C 6.29 (the example's own Standings sheet)."""
    steps = [_wbf_2013(m, 3) - _wbf_2013(m - 1, 3) for m in (5, 6, 7)]
    assert steps[0] >= steps[1] >= steps[2] and _wbf_2013(6, 3) == 13.71  # no concavity correction at 6
    proc = _run("publish", str(ROOT / "workbooks" / "examples" / "teams.xlsx"), "-o", "site", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = _rows(_parse(tmp_path / "site" / "index.html"))
    assert rows == [["1", "Team D", "13.71", "6"], ["2", "Team A", "12.18", "4.60"], ["3", "Team B", "7.82", "-4.60"],
                    ["4", "Team C", "6.29", "-6"]]
    doc = _parse(tmp_path / "site" / "match-1-2.html")
    first = _rows(doc)[0]
    assert first[1:] == ["420 (60 %), -50 (40 %)", "400", "", "3.40"]
    result = " ".join("".join(doc.find(".//p[@class='result']").itertext()).split())
    assert "Team A +5; VPs Team A 12.18 \u2013 Team B 7.82 (WBF 2013 scale, 7 boards)" in result


def test_a_board_waiting_for_a_room_leaves_the_match_length_declared(tmp_path):
    """Published during the session: board 1's room 2 is not in yet, so the board is not scored; the VP
    scale is still the Matches sheet's 7 boards, as the workbook's MATCH_RESULT takes it (not the 6 boards
    scored). Board 2 (N-S vul): 600 (3NT=) against 660 (3NT+2): 60, 2 IMPs to Tigers; every other board
    flat: Lions 0, Tigers 2, margin -2: 9.08 - 10.92 on the 7-board WBF 2013 scale (seed 004's -2).
    Found by an independent review (the site took the 6-board scale)."""
    from xlbridge.formats.scoring import match_results, score_event
    from xlbridge.formats.workbook import read_workbook

    boards = [(1, 1, 420, 170, -50, 0.5, 0.3, 0.2, None), (1, 2, 600, None, None, None, None, None, 660)]
    boards += [(1, b, _flat(b), None, None, None, None, None, _flat(b)) for b in range(3, 8)]
    boards += [(2, b, _flat(b), None, None, None, None, None, _flat(b)) for b in range(1, 8)]
    event = score_event(read_workbook(_book(tmp_path / "waiting.xlsx", boards)))
    result = match_results(event)[("1", "2")]
    assert (result.boards, result.imps_a, result.imps_b, result.margin) == (7, 0, 2, -2)
    assert (f"{float(result.vp_a):.2f}", f"{float(result.vp_b):.2f}") == ("9.08", "10.92")


def test_a_match_longer_than_the_vp_scale_is_refused_at_its_cell(tmp_path):
    """The WBF 2013 scale is computed for matches of 1 to 1,000 boards (the core's ``MAX_BOARDS``, as
    ``MATCH_RESULT`` takes the Matches sheet's Boards): 1,001 is refused naming the cell and the value."""
    from xlbridge.formats.errors import FormatError
    from xlbridge.formats.workbook import read_workbook

    path = _book(tmp_path / "long.xlsx", matches=[(1, "Lions", "Tigers", 1001)] + MATCHES[1:])  # (D5: 1,001)
    with pytest.raises(FormatError) as exc:
        read_workbook(path)
    assert str(exc.value) == ("long.xlsx, Matches!D5: number of boards must be a whole number from 1 to 1,000, "
                              "got 1001")


def test_two_matches_of_the_same_teams_beyond_the_vp_scale_are_refused(tmp_path):
    """Two matches of Lions v Tigers are scored as one match (its boards together): 600 + 500 boards is
    more than the scale's 1,000, refused at the second match's Boards cell."""
    from xlbridge.formats.errors import FormatError
    from xlbridge.formats.workbook import read_workbook

    path = _book(tmp_path / "twice.xlsx",  # (D5: 600; row 7: a third match, Tigers v Lions, 500 boards)
                 matches=[(1, "Lions", "Tigers", 600)] + MATCHES[1:] + [(3, "Tigers", "Lions", 500)])
    with pytest.raises(FormatError) as exc:
        read_workbook(path)
    assert str(exc.value) == ("twice.xlsx, Matches!D7: the matches of these two teams come to 1,100 boards, more "
                              "than the VP scale's 1,000")


def test_the_match_scorecard_names_each_table_by_the_team_sitting_n_s(tmp_path, monkeypatch):
    """Match 1 typed the other way round (Tigers as team A: N-S in room 1, 630 at board 2 against Lions'
    600 in room 2; every other board flat): the columns say who sat N-S, and board 2's 30 points are
    1 IMP to Tigers (Law 78B: 20-40)."""
    monkeypatch.setattr(sys.modules[__name__], "MATCHES", [(1, "Tigers", "Lions", 7), (2, "Bears", "Wolves", 7)])
    boards = [(1, b, 630 if b == 2 else _flat(b), None, None, None, None, None, 600 if b == 2 else _flat(b))
              for b in range(1, 8)] + [row for row in BOARDS if row[0] == 2]
    book = _book(tmp_path / "club.xlsx", boards)
    assert main(["publish", str(book), "-o", str(tmp_path / "site")]) == 0
    pages = {p.name: _parse(p) for p in (tmp_path / "site").glob("match-*.html")}
    (doc,) = [d for d in pages.values() if "Tigers" in "".join(d.find(".//thead").itertext())]
    head = _heads(doc)
    rows = {r[0]: r for r in _rows(doc)}
    first, second = head[3].removeprefix("IMPs "), head[4].removeprefix("IMPs ")
    assert head == ["Board", f"Score ({first} N-S)", f"Score ({second} N-S)", f"IMPs {first}", f"IMPs {second}"]
    assert {first, second} == {"Tigers", "Lions"}
    tigers_ns = rows["2"][1] if first == "Tigers" else rows["2"][2]
    lions_ns = rows["2"][2] if first == "Tigers" else rows["2"][1]
    assert (tigers_ns, lions_ns) == ("630", "600")
    assert rows["Total"][3:] == (["1", "0"] if first == "Tigers" else ["0", "1"])
