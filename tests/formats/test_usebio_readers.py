"""Every USEBIO export checked against what the programs that read USEBIO need (docs/formats.md, "What
the readers need"; issue 41).  Each check below is the reader's own access pattern, written here from
its public source (not from xlbridge's writer): the ABF's Cobalt (``results/views/usebio.py``,
``results_views.py``: xmltodict, ``int(PLACE)``, ``PLAYER[0]``/``[1]``, ``float()`` of each line's
matchpoints, ``int(SCORE)`` or ``int(SCORE[1:3])``, ``HANDSET`` under the root) and Marc Shearer's
ImportUsebio (``Validation.swift``, ``Usebio Parser.swift``: Version 1.0/1.2/1.3, one CLUB, one EVENT,
``dd/MM/yyyy``, exactly two PLAYERs per PAIR, PLACE a whole number after removing ``=``)."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
import xml.etree.ElementTree as ET
from fractions import Fraction as F
from pathlib import Path

import pytest

import xlbridge
from xlbridge.formats import FormatError, read_pbn, read_usebio, score_event, write_usebio
from xlbridge.formats.model import HOWELL, MITCHELL, Board, Event, Participant, Result

SAMPLE = Path(__file__).resolve().parents[2] / "workbooks" / "examples" / "club-session.pbn"


def cobalt(data: bytes) -> list[str]:
    """What Cobalt's upload and result pages would stop on, as a list of reasons (empty: accepted)."""
    bad = []
    root = ET.fromstring(data)
    events = root.findall("EVENT")
    if len(events) != 1:
        return ["not exactly one EVENT"]
    ev = events[0]
    etype = ev.get("EVENT_TYPE")
    if etype not in ("MP_PAIRS", "CROSS_IMP", "BUTLER_PAIRS"):
        bad.append(f"event type {etype!r} not supported")
    if not (ev.findtext("EVENT_DESCRIPTION") or "").strip() or len(ev.findtext("EVENT_DESCRIPTION")) > 200:
        bad.append("EVENT_DESCRIPTION")
    try:
        dt.datetime.strptime(ev.findtext("DATE") or "", "%d/%m/%Y")
    except ValueError:
        bad.append("DATE")
    if ev.findtext("WINNER_TYPE") not in ("1", "2"):
        bad.append("WINNER_TYPE")
    pairs = ev.findall("PARTICIPANTS/PAIR")
    numbers = [p.findtext("PAIR_NUMBER") for p in pairs]
    if len(set(numbers)) != len(numbers):
        bad.append("a PAIR_NUMBER twice (names are looked up by number alone)")
    for p in pairs:
        try:
            int(p.findtext("PLACE"))
            if etype == "MP_PAIRS":
                float(p.findtext("PERCENTAGE"))
            else:
                float(p.findtext("TOTAL_SCORE"))
        except (TypeError, ValueError):
            bad.append(f"PAIR {p.findtext('PAIR_NUMBER')}: PLACE/PERCENTAGE/TOTAL_SCORE not a number")
        if ev.findtext("WINNER_TYPE") == "2" and p.findtext("DIRECTION") not in ("NS", "EW"):
            bad.append("DIRECTION")
        players = p.findall("PLAYER")
        if len(players) < 2:
            bad.append(f"PAIR {p.findtext('PAIR_NUMBER')}: fewer than two PLAYERs")
        for pl in players[:2]:
            nid = pl.find("NATIONAL_ID_NUMBER")
            if nid is None:
                bad.append("no NATIONAL_ID_NUMBER element")
            elif nid.text:
                try:
                    int(nid.text)
                except ValueError:
                    bad.append(f"NATIONAL_ID_NUMBER {nid.text!r}")
    known = set(numbers)
    points = {"MP_PAIRS": "MATCH_POINTS", "CROSS_IMP": "CROSS_IMP_POINTS", "BUTLER_PAIRS": "BUTLER_POINTS"}.get(etype)
    for b in ev.findall("BOARD"):
        int(b.findtext("BOARD_NUMBER"))
        for tl in b.findall("TRAVELLER_LINE"):
            if tl.findtext("NS_PAIR_NUMBER") not in known or tl.findtext("EW_PAIR_NUMBER") not in known:
                bad.append("a traveller line's pair is not a PAIR_NUMBER")
            try:
                float(tl.findtext(f"NS_{points}"))
                float(tl.findtext(f"EW_{points}"))
            except (TypeError, ValueError):
                bad.append(f"board {b.findtext('BOARD_NUMBER')}: points not a number on a line")
            score = tl.findtext("SCORE")
            try:
                int(score)
            except (TypeError, ValueError):
                try:
                    int(score[1:3])
                except (TypeError, ValueError):
                    bad.append(f"SCORE {score!r}")
    for hb in root.findall("HANDSET/BOARD"):
        hands = hb.findall("HAND")
        if len(hands) != 4 or any(h.find(s) is None for h in hands for s in ("SPADES", "HEARTS", "DIAMONDS", "CLUBS")):
            bad.append("a HANDSET board without four hands of four suits")
        if any(h.findtext("DIRECTION") not in ("North", "East", "South", "West") for h in hands):
            bad.append("HAND DIRECTION")
    return bad


def import_usebio(data: bytes) -> list[str]:
    """What ImportUsebio's validation would refuse (empty: accepted)."""
    bad = []
    root = ET.fromstring(data)
    if root.get("Version") not in ("1.0", "1.2", "1.3"):
        bad.append("Version")
    if len(root.findall("CLUB")) != 1:
        bad.append("not exactly one CLUB")
    if len(root.findall("EVENT")) != 1:
        return bad + ["not exactly one EVENT"]
    ev = root.find("EVENT")
    if (ev.get("EVENT_TYPE") or "").lower() not in ("swiss_pairs", "swiss_teams", "mp_pairs", "pairs", "cross_imps",
                                                     "teams", "individual", "teams_of_four", "head_to_head"):
        bad.append(f"event type {ev.get('EVENT_TYPE')!r}")
    if ev.find("DATE") is not None:
        try:
            dt.datetime.strptime(ev.findtext("DATE"), "%d/%m/%Y")
        except ValueError:
            bad.append("DATE")
    pairs = ev.findall("PARTICIPANTS/PAIR")
    winners = 2 if ev.findtext("WINNER_TYPE") == "2" else 1
    for p in pairs:
        if len(p.findall("PLAYER")) != 2:
            bad.append(f"pair {p.findtext('PAIR_NUMBER')} has {len(p.findall('PLAYER'))} players")
        place = (p.findtext("PLACE") or "").replace("=", "")
        if not place.isdigit() or not 1 <= int(place) <= (len(pairs) + 1) // winners:
            bad.append(f"invalid place {p.findtext('PLACE')!r}")
    return bad


def _all_tied() -> Event:
    """Four pairs, two boards, the same score at both tables of each: every pair has 2 of 4 matchpoints
    (one per tie, EBU scale), so all four share first place."""
    boards = (Board(1, results=(Result("1", "2", "3NT", "S", 9, 400), Result("3", "4", "3NT", "S", 9, 400))),
              Board(2, results=(Result("1", "3", "4S", "N", 10, 620), Result("2", "4", "4S", "N", 10, 620))))
    return score_event(Event(name="Tied", date=dt.date(2026, 11, 26), movement=HOWELL, boards=boards,
                             participants=tuple(Participant(k, None, (f"P{k}a", f"P{k}b")) for k in "1234")))


def _tied_event(**kw) -> Event:
    """A Howell of four pairs typed by hand: an artificial score, a board not played at one table,
    national numbers for some players."""
    ids = {"1": ("1234", "56"), "2": ("", "777"), "3": (), "4": ("9",)}
    names = {"1": ("Ann Lee", "Bob Roe"), "2": ("Cy Fox", "Di Ode"), "3": ("Ed Ray", "Flo Yu"), "4": ("Gus", "Hal")}
    parts = tuple(Participant(k, None, names[k], ids=ids[k]) for k in "1234")
    boards = (Board(1, results=(Result("1", "2", "3NT", "S", 9, 400), Result("3", "4", "4S", "N", 10, 420))),
              Board(2, results=(Result("1", "3", score=xlbridge.Artificial(F(60), F(40))),
                                Result("2", "4", "2H", "E", 8, -110))),
              Board(3, results=(Result("4", "1", "1NT", "N", 7, 90), Result("2", "3", score=xlbridge.NOT_PLAYED))))
    return score_event(Event(name="Club night", date=dt.date(2026, 11, 26), site="Riverside", movement=HOWELL,
                             participants=parts, boards=boards, **kw))


@pytest.fixture(scope="module")
def sample() -> Event:
    return score_event(read_pbn(SAMPLE))


@pytest.mark.parametrize("style", ["EBU", "ABF"])
def test_the_sample_session_is_accepted_by_import_usebio_and_in_the_abf_style_by_cobalt(sample, style):
    data = write_usebio(sample, style=style)
    assert import_usebio(data) == []
    if style == "ABF":
        assert cobalt(data) == []
    else:  # a Mitchell's N-S 1 and E-W 1 share a number: Cobalt would show one pair's names for both
        assert "a PAIR_NUMBER twice (names are looked up by number alone)" in cobalt(data)
    back = read_usebio(data)  # xlbridge reads back what it wrote, the deals from the HANDSET
    assert _carried(back) == _carried(sample)


def _carried(e: Event) -> tuple:
    """What USEBIO carries of an event (docs/formats.md): not the maximum, the row percentages."""
    return (e.name, e.date, e.site, e.movement,
            sorted((p.key, p.names, p.player_ids(), p.place, p.tied, round(p.percentage, 2), p.total)  # (2 decimals)
                   for p in e.participants),
            [(b.number, b.deal, [(r.ns, r.ew, r.contract, r.declarer, r.tricks, r.score, r.lead, r.mp_ns, r.mp_ew)
                                 for r in b.results]) for b in e.boards])


def test_ties_are_written_as_each_federation_reads_them():
    e = _all_tied()
    assert [(p.total, p.place, p.tied) for p in e.participants] == [(2, 1, True)] * 4
    for style, place in (("EBU", "1="), ("ABF", "1")):
        data = write_usebio(e, style=style)
        assert [p.findtext("PLACE") for p in ET.fromstring(data).iter("PAIR")] == [place] * 4
        assert import_usebio(data) == []
        assert [(p.place, p.tied) for p in read_usebio(data).participants] == [(1, True)] * 4
    assert cobalt(write_usebio(e, style="ABF")) == []
    assert "PAIR 1: PLACE/PERCENTAGE/TOTAL_SCORE not a number" in cobalt(write_usebio(e, style="EBU"))  # int('1=')


def test_every_line_has_numeric_points_an_artificial_score_as_the_ebu_writes_it_and_no_line_for_a_board_not_played():
    e = _tied_event()
    root = ET.fromstring(write_usebio(e))
    lines = {(b.findtext("BOARD_NUMBER"), tl.findtext("NS_PAIR_NUMBER")): tl for b in root.iter("BOARD")
             for tl in b.findall("TRAVELLER_LINE")}
    assert sorted(lines) == [("1", "1"), ("1", "3"), ("2", "1"), ("2", "2"), ("3", "4")]  # board 3's NP row left out
    art = lines[("2", "1")]
    assert art.findtext("SCORE") == "A6040" and art.find("CONTRACT") is None
    # Law 12C2 as the workbook scores it: 60 % of the top of 2 (two results) = 1.2 to N-S 1, 40 % = 0.8 to E-W 3
    assert (art.findtext("NS_MATCH_POINTS"), art.findtext("EW_MATCH_POINTS")) == ("1.2", "0.8")
    back = read_usebio(write_usebio(e))
    assert back.boards[1].results[0].score == xlbridge.Artificial(F(60), F(40))
    assert [p.total for p in back.participants] == [p.total for p in e.participants]


def test_two_players_each_with_a_national_number_element_and_numbers_read_back():
    e = _tied_event()
    root = ET.fromstring(write_usebio(e))
    players = {p.findtext("PAIR_NUMBER"): [(pl.findtext("PLAYER_NAME"), pl.findtext("NATIONAL_ID_NUMBER"))
                                           for pl in p.findall("PLAYER")] for p in root.iter("PAIR")}
    assert players["1"] == [("Ann Lee", "1234"), ("Bob Roe", "56")]
    assert players["2"] == [("Cy Fox", ""), ("Di Ode", "777")]  # (an empty element)
    assert players["3"] == [("Ed Ray", ""), ("Flo Yu", "")]
    assert all(pl.find("NATIONAL_ID_NUMBER") is not None for pl in root.iter("PLAYER"))
    back = {p.number: p.player_ids() for p in read_usebio(write_usebio(e)).participants}
    assert back == {"1": ("1234", "56"), "2": ("", "777"), "3": ("", ""), "4": ("9", "")}
    unnamed = Event(name="x", date=dt.date(2026, 1, 2), participants=(Participant("1"), Participant("2")),
                    boards=(Board(1, results=(Result("1", "2", "3NT", "S", 9, 400),)),))
    root = ET.fromstring(write_usebio(score_event(unnamed)))
    assert [len(p.findall("PLAYER")) for p in root.iter("PAIR")] == [2, 2]  # a pair without names still has two


def test_the_abf_style_refuses_what_cobalt_cannot_take_naming_the_place():
    e = _tied_event()
    bad = replace(e, participants=tuple(replace(p, ids=("EBU-12",)) if p.number == "4" else p for p in e.participants))
    with pytest.raises(FormatError) as exc:
        write_usebio(bad, name="club.xlsx", style="ABF")
    assert str(exc.value) == ("club.xlsx, PAIR 4, PLAYER 1, NATIONAL_ID_NUMBER: a national number must be digits only "
                              "for ABF (its USEBIO reader takes it as a whole number): 'EBU-12'")
    write_usebio(bad, style="EBU")  # any text in the EBU style
    undated = replace(e, date=None)
    with pytest.raises(FormatError, match="club.xlsx: the event has no date, which ABF's USEBIO reader needs"):
        write_usebio(undated, name="club.xlsx", style="ABF")
    with pytest.raises(FormatError, match="unknown USEBIO style"):
        write_usebio(e, style="WBF")


def test_files_written_by_other_programs_are_read():
    """Compscore's way (Cobalt's test files): Mitchell numbers with their side, A6040, cross-IMP points,
    the hands in a HANDSET under the root, NATIONAL_ID_NUMBER per player."""
    data = b"""<?xml version="1.0"?>
<USEBIO Version="1.2"><CLUB><CLUB_NAME>C</CLUB_NAME></CLUB>
<EVENT EVENT_TYPE="CROSS_IMP"><EVENT_DESCRIPTION>X</EVENT_DESCRIPTION><DATE>05/03/2026</DATE><WINNER_TYPE>2</WINNER_TYPE>
<PARTICIPANTS>
<PAIR><PAIR_NUMBER>1NS</PAIR_NUMBER><DIRECTION>NS</DIRECTION><PLACE>1</PLACE><TOTAL_SCORE>3.00</TOTAL_SCORE>
<PLAYER><PLAYER_NAME>Ann</PLAYER_NAME><NATIONAL_ID_NUMBER>0555002</NATIONAL_ID_NUMBER></PLAYER>
<PLAYER><PLAYER_NAME>Bob</PLAYER_NAME><NATIONAL_ID_NUMBER></NATIONAL_ID_NUMBER></PLAYER></PAIR>
<PAIR><PAIR_NUMBER>1EW</PAIR_NUMBER><DIRECTION>EW</DIRECTION><PLACE>1</PLACE><TOTAL_SCORE>-3.00</TOTAL_SCORE>
<PLAYER><PLAYER_NAME>Cy</PLAYER_NAME><NATIONAL_ID_NUMBER>12</NATIONAL_ID_NUMBER></PLAYER>
<PLAYER><PLAYER_NAME>Di</PLAYER_NAME><NATIONAL_ID_NUMBER>13</NATIONAL_ID_NUMBER></PLAYER></PAIR>
</PARTICIPANTS>
<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>
<TRAVELLER_LINE><NS_PAIR_NUMBER>1NS</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1EW</EW_PAIR_NUMBER><SCORE>A6040</SCORE>
<NS_CROSS_IMP_POINTS>3.00</NS_CROSS_IMP_POINTS><EW_CROSS_IMP_POINTS>-3.00</EW_CROSS_IMP_POINTS></TRAVELLER_LINE>
</BOARD></EVENT>
<HANDSET><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>
<HAND><DIRECTION>North</DIRECTION><SPADES>AKQJ</SPADES><HEARTS>AKQ</HEARTS><DIAMONDS>AKQ</DIAMONDS><CLUBS>AKQ</CLUBS></HAND>
<HAND><DIRECTION>East</DIRECTION><SPADES>T987</SPADES><HEARTS>JT9</HEARTS><DIAMONDS>JT9</DIAMONDS><CLUBS>JT9</CLUBS></HAND>
<HAND><DIRECTION>South</DIRECTION><SPADES>654</SPADES><HEARTS>8765</HEARTS><DIAMONDS>876</DIAMONDS><CLUBS>876</CLUBS></HAND>
<HAND><DIRECTION>West</DIRECTION><SPADES>32</SPADES><HEARTS>432</HEARTS><DIAMONDS>5432</DIAMONDS><CLUBS>5432</CLUBS></HAND>
</BOARD></HANDSET></USEBIO>"""
    e = read_usebio(data)
    assert (e.scoring, e.movement, e.date) == ("CROSS_IMP", MITCHELL, dt.date(2026, 3, 5))
    assert {p.key: (p.names, p.player_ids()) for p in e.participants} == {
        ("NS", "1"): (("Ann", "Bob"), ("0555002", "")), ("EW", "1"): (("Cy", "Di"), ("12", "13"))}
    r = e.boards[0].results[0]
    assert (r.ns, r.ew, r.score, r.imp_ns, r.imp_ew) == ("1", "1", xlbridge.Artificial(F(60), F(40)), F(3), F(-3))
    assert e.boards[0].deal == "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 654.8765.876.876 32.432.5432.5432"


# ------------------------------------------------------------------------------------------- teams

def ukbridge(data: bytes) -> list[str]:
    """What the UK club results site's converter reads of a teams file (``team.PAIR.map``, matches only at
    ``EVENT/SESSION/MATCH``, two traveller lines with a DIRECTION each): reasons it would fail."""
    bad = []
    root = ET.fromstring(data)
    teams = root.findall("EVENT/SESSION/PARTICIPANTS/TEAM")
    if not teams:
        bad.append("no EVENT/SESSION/PARTICIPANTS/TEAM")
    for t in teams:
        if t.get("TEAM_ID") is None or not t.findall("PAIR"):
            bad.append(f"TEAM {t.get('TEAM_ID')}: no TEAM_ID attribute or no PAIR")
    matches = root.findall("EVENT/SESSION/MATCH")
    if not matches:
        bad.append("no EVENT/SESSION/MATCH")
    for m in matches:
        if not (m.findtext("TEAM") and m.findtext("OPPOSING_TEAM")):
            bad.append("MATCH without TEAM and OPPOSING_TEAM")
        for b in m.findall("BOARD"):
            if any(tl.findtext("DIRECTION") not in ("NS", "EW") for tl in b.findall("TRAVELLER_LINE")):
                bad.append("a teams traveller line without DIRECTION")
    return bad


def import_usebio_teams(data: bytes) -> list[str]:
    """ImportUsebio's validation of a teams file: a TEAM_ID for each team, at least two PAIRs of exactly two
    PLAYERs each (or four PLAYERs), a whole-number PLACE within the field, WINNER_TYPE not 2."""
    bad = import_usebio(data)
    root = ET.fromstring(data)
    teams = root.findall(".//PARTICIPANTS/TEAM")
    for t in teams:
        pairs = t.findall("PAIR")
        if t.get("TEAM_ID") is None:
            bad.append("Participant found with no number")
        if len(pairs) < 2 or any(len(p.findall("PLAYER")) != 2 for p in pairs):
            bad.append(f"team {t.get('TEAM_ID')}: pairs of two players")
        place = (t.findtext("PLACE") or "").replace("=", "")
        if not place.isdigit() or not 1 <= int(place) <= len(teams) + 1:
            bad.append(f"invalid place {t.findtext('PLACE')!r}")
    if root.findtext("EVENT/WINNER_TYPE") == "2":
        bad.append("WINNER_TYPE 2 in a teams event")
    return bad


def _teams_event() -> Event:
    """Three teams, each pair of teams meeting on two boards of its own (both rooms), contracts, a lead, a deal,
    team names, players and national numbers; one team without a name."""
    deal = "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 654.8765.876.876 32.432.5432.5432"
    rooms = {1: [("1", "2", "4S", "N", 10, 420, "HK"), ("2", "1", "4S", "N", 9, -50, None)],
             2: [("1", "2", "2H", "E", 8, -110, None), ("2", "1", "3D", "W", 9, -110, None)],
             3: [("3", "1", "3NT", "S", 9, 400, None), ("1", "3", "3NT", "S", 10, 430, None)],
             4: [("1", "3", "6NT", "N", 12, 1440, None), ("3", "1", "6NT", "N", 12, 1440, None)],
             5: [("2", "3", "1NT", "N", 7, 90, None), ("3", "2", "2S", "S", 8, 110, None)],
             6: [("2", "3", "3NT", "E", 9, -600, None), ("3", "2", "4H", "W", 10, -620, None)]}
    boards = tuple(Board(n, deal=deal if n == 1 else None, results=tuple(
        Result(ns, ew, c, d, t, sc, lead) for ns, ew, c, d, t, sc, lead in rows)) for n, rows in rooms.items())
    parts = (Participant("1", None, ("Ann", "Bob", "Cy", "Di"), "Lions", ids=("101", "102", "", "104")),
             Participant("2", None, ("Ed", "Flo", "Gus", "Hal", "Ivy"), "Tigers"),
             Participant("3", None, ("Jo", "Kim", "Lu", "Max")))
    return score_event(Event(name="Club Teams", date=dt.date(2026, 11, 26), site="Riverside", kind="TEAMS",
                             scoring="IMP", participants=parts, boards=boards))


def _played(e: Event) -> Event:
    return replace(e, boards=tuple(replace(b, results=tuple(r for r in b.results if r.score is not xlbridge.NOT_PLAYED))
                                   for b in e.boards))


def _teams_carried(e: Event) -> tuple:
    return (e.name, e.date, e.site, e.kind,
            sorted((p.number, p.name, p.names, p.player_ids(), p.place, p.tied, p.vps) for p in e.participants),
            [(b.number, b.deal, sorted((r.ns, r.ew, r.contract, r.declarer, r.tricks, r.score, r.lead, r.imp_ns)
                                       for r in b.results)) for b in e.boards])


def test_a_teams_event_is_written_as_the_ebu_writes_teams_and_read_back():
    e = _teams_event()
    data = write_usebio(e)
    assert ukbridge(data) == [] and import_usebio_teams(data) == []
    root = ET.fromstring(data)
    assert root.find("EVENT").get("EVENT_TYPE") == "TEAMS"
    lions = [t for t in root.iter("TEAM") if t.get("TEAM_ID") == "1"][0]
    assert lions.get("TEAM_NAME") == "Lions"
    assert [p.findtext("PAIR_NUMBER") for p in lions.findall("PAIR")] == ["1-1-2", "1-3-4"]
    assert [pl.findtext("NATIONAL_ID_NUMBER") for pl in lions.iter("PLAYER")] == ["101", "102", "", "104"]
    tigers = [t for t in root.iter("TEAM") if t.get("TEAM_ID") == "2"][0]
    assert len(tigers.findall("PAIR")) == 3  # five players: three pairs, the last player's partner unnamed
    # match 1 v 2, board 1: Lions +420 in room 1 and +50 in room 2 (E-W): 470, 10 IMPs (Law 78B table)
    m12 = [m for m in root.iter("MATCH") if (m.findtext("TEAM"), m.findtext("OPPOSING_TEAM")) == ("1", "2")][0]
    b1 = [b for b in m12.findall("BOARD") if b.findtext("BOARD_NUMBER") == "1"][0]
    assert b1.findtext("IMPS") == "10"
    assert [(tl.findtext("DIRECTION"), tl.findtext("SCORE")) for tl in b1.findall("TRAVELLER_LINE")] == [
        ("NS", "420"), ("EW", "-50")]
    # two boards, 10 and 0 (-110 v -110) IMPs: +10 over 2 boards on the WBF 2013 20-point scale, worked by
    # hand from its formula: X = 15 sqrt(2) = 21.213, t = 0.618034, 10 + 10 (1 - t^(30/X)) / (1 - t^3)
    # = 10 + 10 x 0.49363 / 0.76393 = 16.46, and 20 - 16.46 = 3.54
    assert (m12.findtext("TEAM_SCORE"), m12.findtext("OPPOSING_TEAM_SCORE")) == ("16.46", "3.54")
    back = score_event(read_usebio(data))
    assert _teams_carried(back) == _teams_carried(e)
    with pytest.raises(FormatError, match="Cobalt\\) takes no teams event"):
        write_usebio(e, style="ABF")


def test_pairs_and_teams_books_go_through_usebio_and_pbn_unchanged(tmp_path, pairs_template, teams_template):
    """Issue 41's goal: workbook -> USEBIO -> workbook and workbook -> PBN -> workbook give the same results,
    names and national numbers, for a pairs book and a teams book."""
    import io

    import openpyxl

    from xlbridge.formats import write_pbn
    from xlbridge.formats.workbook import (fill_pairs_workbook, fill_teams_workbook, read_pairs_workbook,
                                           read_teams_workbook)

    pairs = replace(_tied_event(), participants=tuple(replace(p, place=None, tied=False, total=None, percentage=None)
                                                      for p in _tied_event().participants))
    for template, fill, read, event, carried in (
            (pairs_template, fill_pairs_workbook, read_pairs_workbook, pairs, _carried),
            (teams_template, fill_teams_workbook, read_teams_workbook, _teams_event(), _teams_carried)):
        def book(ev: Event, path: Path) -> Event:
            wb = openpyxl.load_workbook(io.BytesIO(template))
            fill(wb, ev)
            wb.save(path)
            return score_event(read(path))

        first = book(event, tmp_path / "first.xlsx")
        via_usebio = book(read_usebio(write_usebio(first)), tmp_path / "usebio.xlsx")
        via_pbn = book(read_pbn(write_pbn(first)), tmp_path / "pbn.xlsx")
        assert carried(via_pbn) == carried(first)
        # USEBIO has no line for a row not played (board 3 of the pairs book): the same totals and places
        assert carried(via_usebio) == carried(_played(first))
        assert any(p.ids for p in first.participants)  # the numbers went through the book


# ------------------------------------------------------------------------------- review of issue 41

def test_a_team_called_event_is_not_taken_for_the_event_details(tmp_path, teams_template):
    """The Event, Date and Club parameters are found as a block: a team named 'Event' on the Matches sheet
    keeps its name, and the event's name goes into the Event cell only."""
    import io

    import openpyxl

    from xlbridge.formats.workbook import fill_teams_workbook, read_teams_workbook

    e = replace(_teams_event(), participants=tuple(replace(p, name="Event") if p.number == "2" else p
                                                   for p in _teams_event().participants))
    wb = openpyxl.load_workbook(io.BytesIO(teams_template))
    fill_teams_workbook(wb, e)
    wb.save(tmp_path / "t.xlsx")
    back = read_teams_workbook(tmp_path / "t.xlsx")
    assert back.name == "Club Teams" and {p.number: p.name for p in back.participants}["2"] == "Event"


def test_national_numbers_that_could_not_be_kept_apart_or_have_no_player_are_refused():
    pbn = ('[Event "x"]\n[Board "1"]\n[Vulnerable "None"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 2 420\n'
           '[TotalScoreTable "PairId;Names;NationalIds"]\n1 "Ann;Bob" "{ids}"\n2 "" "{other}"\n')
    with pytest.raises(FormatError, match=r"^input, line 7: not a national number .*: 'A&B'$"):
        read_pbn(pbn.format(ids="A&B;0042", other="").encode())
    with pytest.raises(FormatError, match=r"^input, line 8: national numbers for players without names: '55'$"):
        read_pbn(pbn.format(ids="1;2", other="55").encode())
    xml = (b"<USEBIO Version='1.2'><EVENT><PARTICIPANTS><PAIR><PAIR_NUMBER>1</PAIR_NUMBER><PLAYER><PLAYER_NAME/>"
           b"<NATIONAL_ID_NUMBER>4455</NATIONAL_ID_NUMBER></PLAYER></PAIR></PARTICIPANTS></EVENT></USEBIO>")
    with pytest.raises(FormatError, match="PAIR 1, PLAYER 1, NATIONAL_ID_NUMBER: a national number for a player "
                                          "without a name: '4455'"):
        read_usebio(xml)


def test_a_control_character_in_a_team_name_is_refused_not_written_as_broken_xml():
    e = replace(_teams_event(), participants=tuple(replace(p, name="Li\x01ons") if p.number == "1" else p
                                                   for p in _teams_event().participants))
    with pytest.raises(FormatError, match=r"TEAM_NAME: text cannot be written to XML \(control character\)"):
        write_usebio(e, name="t.xlsx")


def test_the_handset_lists_every_board_once_a_deal_is_known_and_a_board_without_a_line_is_left_out():
    e = _tied_event()  # board 3: one row played, one not; no deal anywhere
    assert ET.fromstring(write_usebio(e)).find("HANDSET") is None
    deal = "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 654.8765.876.876 32.432.5432.5432"
    e = replace(e, boards=(replace(e.boards[0], deal=deal), *e.boards[1:], Board(4)))
    root = ET.fromstring(write_usebio(score_event(e)))
    assert [b.findtext("BOARD_NUMBER") for b in root.iterfind("HANDSET/BOARD")] == ["1", "2", "3", "4"]
    assert [len(b.findall("HAND")) for b in root.iterfind("HANDSET/BOARD")] == [4, 0, 0, 0]
    assert [b.findtext("BOARD_NUMBER") for b in root.iterfind("EVENT/BOARD")] == ["1", "2", "3"]  # 4: no line


def test_the_abf_style_needs_the_event_name_and_both_players_named():
    e = _tied_event()
    with pytest.raises(FormatError, match="the event has no name, which ABF's USEBIO reader needs"):
        write_usebio(replace(e, name=None), name="club.xlsx", style="ABF")
    one = replace(e, participants=tuple(replace(p, names=p.names[:1], ids=p.ids[:1]) if p.number == "3" else p
                                        for p in e.participants))
    with pytest.raises(FormatError, match=r"^club.xlsx, PAIR 3, PLAYER, PLAYER_NAME: ABF's USEBIO reader needs both "
                                          r"players of every pair named: 'Ed Ray'$"):
        write_usebio(one, name="club.xlsx", style="ABF")
    write_usebio(one, style="EBU")


def test_teams_usebio_keeps_each_match_s_length_for_the_vp_scale():
    """A match of two boards, one played in room 1 only: the VP scale is the two-board one (as the teams
    workbook's Boards column says), read back from the MATCH's boards, not the one board played twice."""
    from xlbridge.formats.scoring import match_results

    e = _teams_event()
    b2 = e.boards[1]
    e = replace(e, boards=(e.boards[0], replace(b2, results=b2.results[:1]), *e.boards[2:]))
    back = score_event(read_usebio(write_usebio(score_event(e))))
    assert ("1", "2", 2) in back.match_lengths
    vps = match_results(back)[("1", "2")]
    # +10 IMPs (board 1) on the WBF 2013 scale for 2 boards: 16.46 (worked out in the test above)
    assert round(float(vps.vp_a), 2) == 16.46


def test_a_cross_imp_event_is_refused_by_the_pairs_workbook(pairs_template):
    import io

    import openpyxl

    from xlbridge.formats.workbook import fill_pairs_workbook

    wb = openpyxl.load_workbook(io.BytesIO(pairs_template))
    with pytest.raises(FormatError, match="^xi.xml: a pairs event scored by cross-IMPs cannot go into the pairs "
                                          "workbook, which scores matchpoints"):
        fill_pairs_workbook(wb, replace(_tied_event(), scoring="CROSS_IMP"), name="xi.xml")
