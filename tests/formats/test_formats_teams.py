"""Teams events in and out: a PBN teams file into teams.xlsx, `xlbridge recalc`, PBN back out.

The file is typed here by hand (PBN 2.1 sections 3.4, 5.9, 5.10: a ScoreTable per board whose
PairId columns hold team numbers, a TotalScoreTable with TeamId and TeamName).  Expected values are
worked by hand with the IMP table (Law 78B, ../shared/REFERENCE.md) and seed 004's published
7-board WBF VP figures (+5 IMPs: 12.18 - 7.82, +9: 13.65 - 6.35); nothing was produced by xlbridge.

Two 7-board matches on the same boards, Lions (1) v Tigers (2) and Bears (3) v Wolves (4); the
lower-numbered team sits N-S in room 1.  Vulnerability follows the standard cycle.

- Board 1 (none vul): Lions N-S 4S N 10 = +420; Tigers N-S 4S N 9 = -50. Lions +420 + 50 = 470:
  10 IMPs to Lions.
- Board 2 (N-S vul): Lions N-S 3NT S 9 = +600; Tigers N-S 3NT S 10 = +630. Lions 600 - 630 = -30:
  1 IMP to Tigers.
- Board 4 (all vul), match 2: Bears N-S 2S N 8 = +110; Wolves N-S 2S N 7 = -100. Bears 110 + 100 =
  210: 5 IMPs to Bears.
- Every other board is flat: both N-S pairs make 3NT N 9 (400 not vul, 600 vul).

Match 1: Lions 10, Tigers 1, margin 9 over 7 boards: 13.65 - 6.35 VPs.  Match 2: Bears 5, Wolves 0,
margin 5: 12.18 - 7.82.  Standings: Lions 13.65, Bears 12.18, Wolves 7.82, Tigers 6.35.
"""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction as F

import openpyxl
import pytest
from server_helpers import run_main

from formats_samples import endplay_score_rows
from xlbridge import formats
from xlbridge.cli import main
from xlbridge.formats.sheets import find_parameter
from xlbridge.formats.workbook import read_workbook

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]

VUL = {1: "None", 2: "NS", 3: "EW", 4: "All", 5: "NS", 6: "EW", 7: "All"}
NS_VUL = {b: VUL[b] in ("NS", "All") for b in VUL}
# (board, N-S team, E-W team, contract, declarer, tricks, N-S score): hand-scored (Law 77)
SPECIAL = {
    (1, "1", "2"): ("4S", "N", 10, 420), (1, "2", "1"): ("4S", "N", 9, -50),
    (2, "1", "2"): ("3NT", "S", 9, 600), (2, "2", "1"): ("3NT", "S", 10, 630),
    (4, "3", "4"): ("2S", "N", 8, 110), (4, "4", "3"): ("2S", "N", 7, -100),
}
ROWS = []
for _b in range(1, 8):
    for _ns, _ew in (("1", "2"), ("2", "1"), ("3", "4"), ("4", "3")):
        ROWS.append((_b, _ns, _ew) + SPECIAL.get((_b, _ns, _ew), ("3NT", "N", 9, 600 if NS_VUL[_b] else 400)))
TEAMS = {"1": "Lions", "2": "Tigers", "3": "Bears", "4": "Wolves"}
PLAYERS = {"1": "Ann Lee;Bob Roe;Cy Fox;Di Ode", "2": "Ed Ray;Flo Yu;Gus Ek;Hal Ng", "3": "Ida Bo;Jo Pim;Kim Ax;Lou Ma",
           "4": "Max Po;Ned Ul;Oli Vy;Pat Wu"}


def teams_pbn(teams: dict[str, str] = TEAMS) -> str:
    """The hand-typed file; ``teams`` gives each team's TeamName ("" for a team without one)."""
    games = ['% PBN 2.1\n% EXPORT\n[Event "Club Teams"]\n[Date "2024.04.09"]\n[Scoring "IMP"]\n']
    for b in range(1, 8):
        lines = [f'[Board "{b}"]', f'[Dealer "{"NESW"[(b - 1) % 4]}"]', f'[Vulnerable "{VUL[b]}"]']
        if b == 1:
            lines.append('[Deal "N:AKQJ.AKQ.AKQ.AKQ 5432.5432.5432.5 T987.T987.T9.T98 6.J6.J876.J76432"]')
        lines.append('[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R;Score_NS\\5R;'
                     'Score_EW\\5R"]')
        for bb, ns, ew, contract, decl, tricks, score in ROWS:
            if bb == b:
                plus, minus = (str(score), "-") if score >= 0 else ("-", str(-score))
                lines.append(f"{ns:>2} {ew:>2} {contract:<4} {decl} {tricks:>2} {plus:>5} {minus:>5}")
        games.append("\n".join(lines) + "\n")
    total = ['[TotalScoreTable "Rank\\1R;TeamId\\1R;TeamName\\8L;TotalIMP\\3R;Names\\40L"]']
    for t in ("1", "3", "4", "2"):
        total.append(f'- {t} "{teams[t]}" - "{PLAYERS[t]}"')
    games[-1] += "\n".join(total) + "\n"
    return "\n".join(games)


@pytest.fixture(scope="module")
def flow(tmp_path_factory):
    d = tmp_path_factory.mktemp("teams")
    (d / "teams.pbn").write_text(teams_pbn(), encoding="ascii")
    assert main(["import", str(d / "teams.pbn"), "-o", str(d / "teams.xlsx")]) == 0
    assert main(["recalc", str(d / "teams.xlsx"), "--no-progress"]) == 0
    book = d / "teams-recalculated.xlsx"
    assert main(["export", str(book), "--format", "pbn", "-o", str(d / "out.pbn")]) == 0
    assert main(["publish", str(book), "-o", str(d / "site")]) == 0
    return d


def test_the_teams_workbook_scores_the_hand_worked_matches_and_standings(flow):
    wb = openpyxl.load_workbook(flow / "teams-recalculated.xlsx", data_only=True)
    matches = [r for r in wb["Matches"].iter_rows(min_row=5, max_row=6, max_col=8, values_only=True)]
    assert [(m, a, b, n, ia, ib, round(va, 2), round(vb, 2)) for m, a, b, n, ia, ib, va, vb in matches] == [
        (1, "Lions", "Tigers", 7, 10, 1, 13.65, 6.35), (2, "Bears", "Wolves", 7, 5, 0, 12.18, 7.82)]
    standings = [(t, p, round(v, 2), d, str(rank)) for t, p, v, d, rank in
                 wb["Standings"].iter_rows(min_row=5, max_row=8, max_col=5, values_only=True)]
    assert standings == [("Lions", 1, 13.65, 9, "1"), ("Bears", 1, 12.18, 5, "2"), ("Wolves", 1, 7.82, -5, "3"),
                         ("Tigers", 1, 6.35, -9, "4")]
    boards = [r for r in wb["Boards"].iter_rows(min_row=5, max_row=18, max_col=11, values_only=True)]
    # (match, board, room-1 N-S score, room-2 N-S score, IMPs A): the file's scores, the hand-worked IMPs
    assert [(m, b, r1, r2, ia) for m, b, r1, *_w, r2, ia, _ib in boards][:3] == [
        (1, 1, 420, -50, 10), (1, 2, 600, 630, -1), (1, 3, 400, 400, 0)]
    assert wb["Teams"]["B5"].value == "Lions" and wb["Teams"]["C5"].value == "Ann Lee & Bob Roe & Cy Fox & Di Ode"
    assert find_parameter(wb["Matches"], "Event").value == "Club Teams"  # (the Event cell, not the title)


def test_exported_pbn_is_the_file_s_teams_event_with_hand_worked_imps(flow):
    ev = formats.read_pbn(flow / "out.pbn")
    assert (ev.kind, ev.name, str(ev.date)) == ("TEAMS", "Club Teams", "2024-04-09")
    assert {p.number: (p.name, ";".join(p.names)) for p in ev.participants} == {
        t: (TEAMS[t], PLAYERS[t]) for t in TEAMS}
    got = sorted((b.number, r.ns, r.ew, r.contract, r.declarer, r.tricks, r.score) for b in ev.boards for r in b.results)
    assert got == sorted(ROWS)
    imps = {(b.number, r.ns): r.imp_ns for b in ev.boards for r in b.results}
    assert (imps[(1, "1")], imps[(1, "2")], imps[(2, "1")], imps[(4, "3")], imps[(4, "4")]) == (10, -10, -1, 5, -5)
    assert {p.number: p.total for p in ev.participants} == {"1": F(9), "2": F(-9), "3": F(5), "4": F(-5)}
    assert ev.board(1).deal == "N:AKQJ.AKQ.AKQ.AKQ 5432.5432.5432.5 T987.T987.T9.T98 6.J6.J876.J76432"


def test_exported_teams_pbn_reads_in_endplay(flow):
    _boards, rows = endplay_score_rows(flow / "out.pbn")
    got = [row[:5] + (int(row[5]),) for row in rows]
    assert sorted(got) == sorted(row[:6] for row in ROWS)


def test_published_teams_site_has_standings_and_match_scorecards(flow):
    import html5lib

    site = flow / "site"
    index = (site / "index.html").read_text(encoding="utf-8")
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(index)
    assert "Lions" in index and (site / "match-1-2.html").exists() and (site / "match-3-4.html").exists()


def _run(*argv, cwd):
    return run_main(*argv, cwd=cwd)  # (the command in this process: what it says and writes is the subject)


@pytest.mark.parametrize("change, message", [
    (lambda t: t.replace(" 1  2 4S   N 10   420     -", " 1  2 -    -  -    NP     -"),
     "a board not played (NP) cannot be entered in the teams workbook"),
    (lambda t: t.replace('"Tigers"', '"Lions"'), "two teams are called 'Lions'"),
    (lambda t: t.replace(" 1  2 4S   N 10   420     -", " 1  2 4S   N 10   410     -"),
     "score does not match 4S by N taking 10 tricks"),
])
def test_bad_teams_files_exit_2_with_one_line_and_nothing_written(tmp_path, change, message):
    text = change(teams_pbn())
    assert text != teams_pbn()
    (tmp_path / "t.pbn").write_text(text, encoding="ascii")
    proc = _run("import", "t.pbn", "-o", "t.xlsx", cwd=tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert "t.pbn" in proc.stderr and message in proc.stderr, proc.stderr
    assert str(tmp_path) not in proc.stderr and not (tmp_path / "t.xlsx").exists()


def test_a_teams_workbook_exports_as_usebio_for_the_ebu_and_is_refused_for_the_abf(flow, tmp_path):
    """Issue 41: a teams event goes out in the EBU's teams layout and reads back with its teams and rooms;
    the ABF's Cobalt reads no teams event, so --federation ABF is refused in one line, nothing written."""
    proc = _run("export", str(flow / "teams-recalculated.xlsx"), "--format", "usebio", "-o", "t.xml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    back = formats.read_usebio(tmp_path / "t.xml")
    book = read_workbook(flow / "teams-recalculated.xlsx")
    assert back.kind == "TEAMS"
    assert {p.number: (p.name, p.names) for p in back.participants} == {
        p.number: (p.name, p.names) for p in book.participants}
    rooms = lambda e: sorted((b.number, r.ns, r.ew, str(r.score)) for b in e.boards for r in b.results)  # noqa: E731
    assert rooms(back) == rooms(book)
    proc = _run("export", str(flow / "teams-recalculated.xlsx"), "--format", "usebio", "--federation", "ABF",
                "-o", "a.xml", cwd=tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert "takes no teams event" in proc.stderr and not (tmp_path / "a.xml").exists()


def test_a_weighted_board_without_its_weights_is_refused_naming_the_weight_cell(flow, tmp_path):
    """A second outcome typed for room 1 (Outcome 2, D6) with no weights: Law 12C1(c) needs every weight."""
    wb = openpyxl.load_workbook(flow / "teams.xlsx")
    wb["Boards"]["D6"] = -100
    wb.save(tmp_path / "w.xlsx")
    proc = _run("export", "w.xlsx", "--format", "pbn", "-o", "w.pbn", cwd=tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert proc.stderr.strip() == "xlbridge export: w.xlsx, Boards!F6: outcome 600 has no weight"  # (recalc's words)
    assert not (tmp_path / "w.pbn").exists()


def test_a_teams_workbook_without_a_teams_sheet_numbers_teams_in_order_of_first_appearance(flow, tmp_path):
    """A workbook typed by hand has no Teams (or Contracts) sheet: the teams on the Matches sheet (Lions
    v Tigers, Bears v Wolves) are numbered 1, 2, 3, 4 in that order and keep their names."""
    wb = openpyxl.load_workbook(flow / "teams.xlsx")
    del wb["Teams"], wb["Contracts"]
    wb.save(tmp_path / "hand.xlsx")
    assert main(["export", str(tmp_path / "hand.xlsx"), "--format", "pbn", "-o", str(tmp_path / "hand.pbn")]) == 0
    ev = formats.read_pbn(tmp_path / "hand.pbn")
    assert {p.number: p.name for p in ev.participants} == TEAMS
    assert sorted((b.number, r.ns, r.ew, r.score) for b in ev.boards for r in b.results) == sorted(
        (b, ns, ew, score) for b, ns, ew, *_c, score in ROWS)


def test_a_room_score_is_checked_naming_its_cell(flow, tmp_path):
    """Without the Contracts sheet a room's score is checked alone: board 1 is not vulnerable (Law 2),
    where no contract scores 410 (Law 77); match 1 board 1 is the first row under the header (row 4)."""
    wb = openpyxl.load_workbook(flow / "teams.xlsx")
    del wb["Contracts"]
    wb["Boards"]["C5"] = 410
    wb.save(tmp_path / "w.xlsx")
    proc = _run("export", "w.xlsx", "--format", "pbn", "-o", "w.pbn", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "xlbridge export: w.xlsx, Boards!C5: impossible score for vulnerability 'None' (nobody vulnerable): 410"
    assert not (tmp_path / "w.pbn").exists()


def test_a_team_named_like_the_default_keeps_its_name_and_a_team_without_one_gets_none(tmp_path):
    """PBN 2.1 section 5.10: TeamName is the team's name, "" none. Team 3 is called "Team 3" (its own
    name, which happens to be what the workbook calls a team without a name), team 4 has no name.
    Both are "Team 3" and "Team 4" on the Matches sheet (the workbook keys teams by name), but only
    team 3 has a name on the Teams sheet, in the exported TotalScoreTable and on the published team page
    ("Team 3: Team 3", against plain "Team 4")."""
    import html5lib

    named = {**TEAMS, "3": "Team 3", "4": ""}
    (tmp_path / "t.pbn").write_text(teams_pbn(named), encoding="ascii")
    assert main(["import", str(tmp_path / "t.pbn"), "-o", str(tmp_path / "t.xlsx")]) == 0
    wb = openpyxl.load_workbook(tmp_path / "t.xlsx")
    assert [tuple(r) for r in wb["Teams"].iter_rows(min_row=7, max_row=8, max_col=2, values_only=True)] == [
        (3, "Team 3"), (4, None)]
    assert [tuple(r) for r in wb["Matches"].iter_rows(min_row=5, max_row=6, min_col=2, max_col=3,
                                                      values_only=True)] == [("Lions", "Tigers"), ("Team 3", "Team 4")]
    assert main(["export", str(tmp_path / "t.xlsx"), "--format", "pbn", "-o", str(tmp_path / "out.pbn")]) == 0
    text = (tmp_path / "out.pbn").read_text(encoding="ascii")
    total = text[text.index("[TotalScoreTable"):].splitlines()
    assert any(line.split()[1:2] == ["3"] and '"Team 3"' in line for line in total[1:])
    assert any(line.split()[1:2] == ["4"] and '""' in line and "Team 4" not in line for line in total[1:])
    assert {p.number: p.name for p in formats.read_pbn(tmp_path / "out.pbn").participants} == {
        "1": "Lions", "2": "Tigers", "3": "Team 3", "4": None}
    assert main(["publish", str(tmp_path / "t.xlsx"), "-o", str(tmp_path / "site")]) == 0
    for team, title in (("3", "Team 3: Team 3"), ("4", "Team 4")):
        page = (tmp_path / "site" / f"pair-{team}.html").read_text(encoding="utf-8")
        html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(page)
        assert f"<h1>Club Teams: {title}</h1>" in page


def test_a_hand_typed_teams_sheet_may_leave_a_name_blank_but_not_give_one_twice(flow, tmp_path):
    """A blank Name on the Teams sheet is a team without a name, called Team <number> on the Matches
    sheet; a team whose name is another's Team <number> is refused at its Name cell."""
    wb = openpyxl.load_workbook(flow / "teams.xlsx")
    wb["Teams"]["B8"] = None  # team 4, Wolves: no name
    wb["Matches"]["C6"] = "Team 4"
    wb.save(tmp_path / "blank.xlsx")
    assert main(["export", str(tmp_path / "blank.xlsx"), "--format", "pbn", "-o", str(tmp_path / "b.pbn")]) == 0
    assert {p.number: p.name for p in formats.read_pbn(tmp_path / "b.pbn").participants} == {
        "1": "Lions", "2": "Tigers", "3": "Bears", "4": None}
    wb["Teams"]["B7"] = "Team 4"  # team 3 named as team 4's placeholder
    wb.save(tmp_path / "twice.xlsx")
    proc = _run("export", "twice.xlsx", "--format", "pbn", "-o", "t.pbn", cwd=tmp_path)
    assert proc.returncode == 2 and not (tmp_path / "t.pbn").exists()
    assert proc.stderr.strip() == ("xlbridge export: twice.xlsx, Teams!B8: two teams are called 'Team 4' on the "
                                   "Matches sheet (teams 3 and 4); the teams workbook tells teams apart by name")


@pytest.mark.parametrize("sheet, cell", [("Boards", "B5"), ("Contracts", "A5"), ("Deals", "A5")])
def test_a_board_number_past_10000_in_a_teams_workbook_is_refused_naming_its_cell(flow, tmp_path, sheet, cell):
    """The teams template's Board column accepts a whole number from 1 to 10,000 (its data validation),
    the bound the PBN and USEBIO readers apply: board 10,001 is refused at its cell on every sheet."""
    wb = openpyxl.load_workbook(flow / "teams.xlsx")
    wb[sheet][cell] = 10_001
    wb.save(tmp_path / "w.xlsx")
    proc = _run("export", "w.xlsx", "--format", "pbn", "-o", "w.pbn", cwd=tmp_path)
    assert proc.returncode == 2 and not (tmp_path / "w.pbn").exists()
    assert proc.stderr.strip() == (f"xlbridge export: w.xlsx, {sheet}!{cell}: board number must be a whole number "
                                   f"from 1 to 10,000, got 10001")


# --- property: a teams workbook carries every field PBN carries for a teams event ------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def team_events(draw, teams=st.sampled_from([2, 4])):
    import xlbridge
    from xlbridge.formats.model import Board, Event, Participant, Result

    n = draw(teams)
    names = draw(st.sampled_from([None, "Zoë's", "Åse & Co", "Team"]))  # "Team t": a name, like the placeholder
    parts = [Participant(str(t), None, draw(st.sampled_from([(), ("Ann Lee", "Bob Roe"), ("A & B", "Renée")])),
                         None if names is None or t == 1 else f"{names} {t}") for t in range(1, n + 1)]
    boards = []
    for b in draw(st.lists(st.integers(1, 20), min_size=1, max_size=3, unique=True)):
        rows = []
        for a in range(1, n + 1, 2):
            for ns, ew in ((str(a), str(a + 1)), (str(a + 1), str(a))):
                if draw(st.integers(0, 5)) == 0:
                    continue  # one room missing
                if draw(st.booleans()):
                    contract, decl, tricks = draw(st.sampled_from(["3NT", "4S", "2HX", "1C"])), \
                        draw(st.sampled_from("NESW")), draw(st.integers(0, 13))
                    rows.append(Result(ns, ew, contract, decl, tricks, xlbridge.bridge_score(contract, decl, tricks, b),
                                       draw(st.sampled_from([None, "SK", "D2"]))))
                else:
                    rows.append(Result(ns, ew, score=draw(st.sampled_from(
                        [xlbridge.Artificial(F(60), F(40)), 110, -100]))))  # -100: legal at every vulnerability
        boards.append(Board(b, "NESW"[(b - 1) % 4], None,
                            draw(st.sampled_from([None, "N:AKQJ.AKQ.AKQ.AKQ 5432.5432.5432.5 T987.T987.T9.T98 "
                                                        "6.J6.J876.J76432"])), tuple(rows)))
    return Event(name=draw(st.sampled_from([None, "Club Teams"])), kind="TEAMS", scoring="IMP",
                 participants=tuple(parts), boards=tuple(boards))




@pytest.mark.parametrize("teams", [2, 4])  # (one test a size, four events each: seconds each)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_teams_workbook_round_trip(tmp_path, teams_template, teams, data):
    import io

    ev = data.draw(team_events(teams=st.just(teams)))

    from xlbridge.formats.workbook import fill_teams_workbook, read_teams_workbook

    if not any(b.results for b in ev.boards):
        return
    wb = openpyxl.load_workbook(io.BytesIO(teams_template))
    fill_teams_workbook(wb, ev)
    wb.save(tmp_path / "t.xlsx")
    sides = {(b.number, frozenset((r.ns, r.ew))): 0 for b in ev.boards for r in b.results}
    for b in ev.boards:
        for r in b.results:
            sides[(b.number, frozenset((r.ns, r.ew)))] += 1
    back = read_teams_workbook(tmp_path / "t.xlsx")
    if 1 in sides.values():  # a board played in one room only: a mistake of the workbook's row (issue 52: the
        # TD types the other room's score, an artificial one if it was not played, or deletes the row), named at
        # the empty room, by the reader as by the workbook's WEIGHTED_IMPS, and left out of its match until then
        assert back.notes and all(re.fullmatch(r"Boards![CI]\d+: no score in room [12]: the board counts when both "
                                               r"rooms are in; left out of match \d+ until then", n)
                                  for n in back.notes), back.notes
        ev = replace(ev, boards=tuple(replace(b, results=tuple(
            r for r in b.results if sides[(b.number, frozenset((r.ns, r.ew)))] == 2)) for b in ev.boards))
    assert (back.name, back.kind) == (ev.name, ev.kind)
    assert {p.number: (p.name, p.names) for p in back.participants} == {
        p.number: (p.name, p.names) for p in ev.participants}  # the Teams sheet lists every team
    strip = lambda e: sorted((b.number, r.ns, r.ew, r.contract, r.declarer, r.tricks, str(r.score), r.lead)  # noqa: E731
                             for b in e.boards for r in b.results)
    assert strip(back) == strip(ev)
    assert {b.number: b.deal for b in back.boards if b.results} == {b.number: b.deal for b in ev.boards if b.results}


def test_team_players_holding_an_ampersand_survive_the_workbook(tmp_path, teams_template):
    """PBN splits a team's Names at ';' only (PBN 2.1 section 3.7): 'A & B' is one player."""
    import io

    from xlbridge.formats.model import Board, Event, Participant, Result
    from xlbridge.formats.workbook import fill_teams_workbook, read_teams_workbook

    players = {"1": ("A & B", "Renée"), "2": ("Cy Fox", "Di Ode")}
    ev = Event(kind="TEAMS", scoring="IMP", participants=tuple(Participant(k, None, v) for k, v in players.items()),
               boards=(Board(1, results=(Result("1", "2", score=420), Result("2", "1", score=-420))),))
    wb = openpyxl.load_workbook(io.BytesIO(teams_template))
    fill_teams_workbook(wb, ev)
    wb.save(tmp_path / "t.xlsx")
    assert {p.number: p.names for p in read_teams_workbook(tmp_path / "t.xlsx").participants} == players


def _wbf_vp(margin: int, boards: int) -> float:
    """The WBF 2013 continuous 20-VP scale, from its published formula (not xlbridge's code): the winner
    gets 10 + 10 (1 - t^(3M/X)) / (1 - t^3), t = (sqrt 5 - 1) / 2, X = 15 sqrt(boards), at most 20,
    to 2 decimals. Seed 004's 7-board figure for a 5-IMP win, 12.18, checks it."""
    import math

    t = (math.sqrt(5) - 1) / 2
    x = 15 * math.sqrt(boards)
    return min(20.0, round(10 + 10 * (1 - t ** (3 * margin / x)) / (1 - t ** 3), 2))


def test_teams_place_by_vps_not_imps(tmp_path):
    """Three teams, three 7-board matches (A v B boards 1-7, C v A 8-14, C v B 15-21; one board decides,
    the others are passed out), IMPs by Law 78B:
    A v B: board 1 (none vul) A's N-S 7NT= +1520, B's N-S -1520 (A's E-W 7NT=): 3040 = 22 IMPs;
    board 3 (E-W vul) A's N-S 7NT= +1520, B's N-S -2220: 3740 = 23 IMPs: A by 45, a 20-0 blitz.
    C v A (board 8) and C v B (board 17), both none vul: C's N-S 4S= +420, the other N-S 4S-1 -50:
    470 = 10 IMPs to C. IMPs: A +35, C +20, B -55; VPs: C 2 x VP(10), A 20 + VP(-10), B VP(-10): C
    first by VPs, A first by IMPs."""
    from xlbridge.formats.model import TEAMS as KIND, Board, Event, Participant, Result
    from xlbridge.formats.publish import publish
    from xlbridge.formats.scoring import score_event

    assert _wbf_vp(5, 7) == 12.18 and _wbf_vp(45, 7) == 20.0
    special = {(1, "A"): 1520, (1, "B"): -1520, (3, "A"): 1520, (3, "B"): -2220,
               (8, "C"): 420, (8, "A"): -50, (17, "C"): 420, (17, "B"): -50}
    boards = []
    for first, (a, b) in ((1, ("A", "B")), (8, ("C", "A")), (15, ("C", "B"))):
        for board in range(first, first + 7):
            rows = tuple(Result(ns, ew, score=special.get((board, ns), 0)) for ns, ew in ((a, b), (b, a)))
            boards.append(Board(board, "NESW"[(board - 1) % 4], None, results=rows))
    event = Event(name="Three teams", kind=KIND, scoring="IMP", movement="Howell",
                  participants=tuple(Participant(t, name=f"Team {t}") for t in "ABC"), boards=tuple(boards))
    scored = {p.number: p for p in score_event(event).participants}
    assert {t: p.total for t, p in scored.items()} == {"A": 35, "B": -55, "C": 20}
    win, lose = _wbf_vp(10, 7), 20 - _wbf_vp(10, 7)
    assert win > 13.33  # (so that 2 x VP(10) beats 20 + VP(-10))
    assert {t: float(p.vps) for t, p in scored.items()} == pytest.approx({"A": 20 + lose, "B": lose, "C": 2 * win})
    assert {t: (p.place, p.tied) for t, p in scored.items()} == {"C": (1, False), "A": (2, False), "B": (3, False)}
    publish(event, tmp_path / "site", dds=False)
    index = (tmp_path / "site" / "index.html").read_text()
    assert "VPs</th>" in index
    assert index.index("Team C") < index.index("Team A") < index.index("Team B")


def test_team_players_national_numbers_survive_the_workbook(tmp_path, teams_template):
    """Issue 41: each player's national number (text, any federation's) is written to the Teams sheet's
    Numbers column in the order of the players and read back; a team without numbers has none."""
    import io

    from xlbridge.formats.model import Board, Event, Participant, Result
    from xlbridge.formats.workbook import fill_teams_workbook, read_teams_workbook

    ev = Event(kind="TEAMS", scoring="IMP", participants=(
        Participant("1", None, ("Ann", "Bob", "Cy", "Di"), "Lions", ids=("123", "", "EBU 9", "0555002")),
        Participant("2", None, ("Ed", "Flo"), "Tigers")),
        boards=(Board(1, results=(Result("1", "2", score=420), Result("2", "1", score=-420))),))
    wb = openpyxl.load_workbook(io.BytesIO(teams_template))
    fill_teams_workbook(wb, ev)
    assert [c.value for c in wb["Teams"][5]][:4] == [1, "Lions", "Ann & Bob & Cy & Di", "123 &  & EBU 9 & 0555002"]
    wb.save(tmp_path / "t.xlsx")
    back = {p.number: p.player_ids() for p in read_teams_workbook(tmp_path / "t.xlsx").participants}
    assert back == {"1": ("123", "", "EBU 9", "0555002"), "2": ("", "")}


def test_a_teams_book_s_event_details_are_typed_on_the_matches_sheet(tmp_path, teams_template):
    """Issues 40 and 41: the teams book's Event, Date and Club parameters (Matches sheet) are filled on import
    and read on export, before the document properties."""
    import datetime as dt
    import io

    from xlbridge.formats.model import Board, Event, Participant, Result
    from xlbridge.formats.workbook import fill_teams_workbook, read_teams_workbook

    ev = Event(name="Club Teams", date=dt.date(2026, 11, 26), site="Riverside", kind="TEAMS", scoring="IMP",
               participants=(Participant("1"), Participant("2")),
               boards=(Board(1, results=(Result("1", "2", score=420), Result("2", "1", score=-420))),))
    wb = openpyxl.load_workbook(io.BytesIO(teams_template))
    fill_teams_workbook(wb, ev)
    ms = wb["Matches"]
    labels = {ms[f"J{r}"].value: f"K{r}" for r in range(1, 30)}
    assert [ms[labels[k]].value for k in ("Event", "Date", "Club")] == ["Club Teams", dt.date(2026, 11, 26), "Riverside"]
    ms[labels["Event"]] = "Autumn Teams"  # a member's change wins over the document property
    wb.save(tmp_path / "t.xlsx")
    back = read_teams_workbook(tmp_path / "t.xlsx")
    assert (back.name, back.date, back.site) == ("Autumn Teams", dt.date(2026, 11, 26), "Riverside")


def test_a_teams_book_s_scorer_is_typed_under_the_club_written_and_read(tmp_path, teams_template):
    """The Scorer parameter, the row under Club on the Matches sheet: filled from the event, read back as a
    member typed it; longer than 200 characters is refused naming its cell. A book made before it (Event,
    Date and Club only) is read with no scorer."""
    import datetime as dt
    import io

    from xlbridge.formats.model import Board, Event, Participant, Result
    from xlbridge.formats.workbook import fill_teams_workbook, read_teams_workbook

    ev = Event(name="Club Teams", date=dt.date(2026, 11, 26), site="Riverside", scorer="Dee Scorer", kind="TEAMS",
               scoring="IMP", participants=(Participant("1"), Participant("2")),
               boards=(Board(1, results=(Result("1", "2", score=420), Result("2", "1", score=-420))),))
    wb = openpyxl.load_workbook(io.BytesIO(teams_template))
    fill_teams_workbook(wb, ev)
    ms = wb["Matches"]
    labels = {ms[f"J{r}"].value: f"K{r}" for r in range(1, 30)}
    assert (labels["Club"], labels["Scorer"]) == ("K15", "K16")  # (the row under Club)
    assert ms["K16"].value == "Dee Scorer"
    ms["K16"] = "Ed Lee"  # a member's change
    wb.save(tmp_path / "t.xlsx")
    back = read_teams_workbook(tmp_path / "t.xlsx")
    assert (back.name, back.date, back.site, back.scorer) == ("Club Teams", dt.date(2026, 11, 26), "Riverside", "Ed Lee")

    ms["K16"] = "E" * 201
    wb.save(tmp_path / "t.xlsx")
    with pytest.raises(formats.FormatError) as e:
        read_teams_workbook(tmp_path / "t.xlsx")
    assert str(e.value).startswith("t.xlsx, Matches!K16: scorer's name longer than 200 characters (201), the limit: ")

    ms["J16"] = None  # a book made before the Scorer label
    wb.save(tmp_path / "t.xlsx")
    back = read_teams_workbook(tmp_path / "t.xlsx")
    assert (back.name, back.date, back.site, back.scorer) == ("Club Teams", dt.date(2026, 11, 26), "Riverside", None)
    wb = openpyxl.load_workbook(tmp_path / "t.xlsx")
    fill_teams_workbook(wb, ev)  # (its other details are still written; the scorer has no place)
    assert [wb["Matches"][c].value for c in ("K13", "K15", "J16", "K16")] == ["Club Teams", "Riverside", None, "E" * 201]


def test_a_member_types_the_teams_players_and_numbers_on_the_template_s_teams_sheet(tmp_path):
    """Issue 41: the teams template has a Teams sheet (number, name as on the Matches sheet, players, national
    numbers). Filled, its names and numbers are read; left empty, teams are numbered by first appearance
    on the Matches sheet; once it lists a team, a team it does not list is refused naming the cell."""
    import openpyxl as xl

    from xlbridge.formats.workbook import read_teams_workbook

    book = tmp_path / "t.xlsx"
    wb = xl.load_workbook(ROOT / "workbooks" / "teams.xlsx")  # the shipped, empty template
    wb["Matches"]["A5"], wb["Matches"]["B5"], wb["Matches"]["C5"], wb["Matches"]["D5"] = 1, "Lions", "Tigers", 1
    wb["Boards"]["A5"], wb["Boards"]["B5"], wb["Boards"]["C5"], wb["Boards"]["I5"] = 1, 1, 420, -420
    wb.save(book)
    assert {p.number: p.name for p in read_teams_workbook(book).participants} == {"1": "Lions", "2": "Tigers"}
    wb["Teams"]["A5"], wb["Teams"]["B5"], wb["Teams"]["C5"], wb["Teams"]["D5"] = 7, "Tigers", "Ann & Bob & Cy & Di", \
        "101 & & 103"
    wb.save(book)
    with pytest.raises(formats.FormatError) as e:
        read_teams_workbook(book)
    assert str(e.value) == "t.xlsx, Matches!B5: a team the Teams sheet does not list: 'Lions'"
    wb["Teams"]["A6"], wb["Teams"]["B6"] = 3, "Lions"
    wb.save(book)
    back = {p.number: (p.name, p.names, p.player_ids()) for p in read_teams_workbook(book).participants}
    assert back == {"3": ("Lions", (), ()), "7": ("Tigers", ("Ann", "Bob", "Cy", "Di"), ("101", "", "103", ""))}
