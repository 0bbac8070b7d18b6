"""USEBIO 1.2 reader and writer: a hand-written file, the element list of docs/formats.md, hostile XML."""

from pathlib import Path
import xml.etree.ElementTree as ET
from fractions import Fraction as F

import pytest

import xlbridge
from xlbridge.formats import (FormatError, MITCHELL, read_event, read_pbn, read_usebio, score_event,
                              write_usebio)
from xlbridge.formats.usebio import USEBIO_ELEMENTS

from formats_samples import DEAL_1, MITCHELL_PBN, MITCHELL_USEBIO, NAMES


def test_sample_fields_read_as_written():
    e = read_usebio(MITCHELL_USEBIO.encode("latin-1"))
    assert (e.name, e.site, str(e.date), e.movement, e.scoring) == (
        "Tuesday Pairs", "Little Snoring BC", "2024-03-05", MITCHELL, "MP")
    assert e.boards[0].deal == DEAL_1
    assert [b.vulnerable for b in e.boards] == ["None", "NS", "EW"]  # board 1: from the 16-board cycle
    r = e.boards[0].results[1]
    assert (r.contract, r.declarer, r.tricks, r.score, r.lead) == ("4S", "N", 11, 450, "HA")  # "North", "AH"
    assert e.boards[1].results[2].score == xlbridge.Artificial(60, 40)
    assert {p.key: p.names for p in e.participants} == NAMES
    assert {p.key: (p.place, p.percentage) for p in e.participants}[("EW", "3")] == (1, F("87.5"))


def test_usebio_and_pbn_samples_describe_the_same_travellers():
    u, p = read_usebio(MITCHELL_USEBIO.encode()), read_pbn(MITCHELL_PBN.encode())
    strip = lambda e: [[(r.ns, r.ew, r.contract, r.declarer, r.tricks, r.score, r.lead) for r in b.results]  # noqa
                       for b in e.boards]
    assert strip(u) == strip(p)
    assert [(b.number, b.vulnerable, b.deal) for b in u.boards] == [(b.number, b.vulnerable, b.deal) for b in p.boards]


def _element_paths(root):
    out = set()
    for el in root.iter():
        out.add(el.tag)
        out.update(f"{el.tag}@{a}" for a in el.attrib)
    return out


def test_written_file_uses_only_the_documented_elements_in_order():
    e = score_event(read_usebio(MITCHELL_USEBIO.encode()))
    data = write_usebio(e)
    assert data.startswith(b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE USEBIO SYSTEM "usebio_v1_2.dtd">')
    root = ET.fromstring(data)
    assert root.tag == "USEBIO" and root.get("Version") == "1.2"
    assert _element_paths(root) <= set(USEBIO_ELEMENTS)
    # docs/formats.md lists the same elements
    doc = (Path(__file__).resolve().parents[2] / "docs" / "formats.md").read_text(encoding="utf-8")
    for name in USEBIO_ELEMENTS:
        assert f"`{name.split('@')[-1]}`" in doc, name
    line = root.find("EVENT/BOARD/TRAVELLER_LINE")
    assert [c.tag for c in line] == ["NS_PAIR_NUMBER", "EW_PAIR_NUMBER", "CONTRACT", "PLAYED_BY", "LEAD", "TRICKS",
                                     "SCORE", "NS_MATCH_POINTS", "EW_MATCH_POINTS"]
    assert [c.text for c in line] == ["1", "1", "4S", "N", "SK", "10", "420", "2", "2"]
    pair = root.find("EVENT/PARTICIPANTS/PAIR")
    assert [c.tag for c in pair][:6] == ["PAIR_NUMBER", "DIRECTION", "PLACE", "PERCENTAGE", "TOTAL_SCORE",
                                         "BOARDS_PLAYED"]


def test_non_latin1_names_become_character_references():
    e = read_usebio(MITCHELL_USEBIO.replace("Ann Lee", "Δήμος &amp; Åsa").encode("utf-8").replace(
        b"ISO-8859-1", b"UTF-8"))
    assert e.participant("NS", "2").names[0] == "Δήμος & Åsa"
    data = write_usebio(e)
    assert b"&#916;" in data and "Åsa".encode("latin-1") in data and b"&amp;" in data
    assert read_usebio(data).participant("NS", "2").names[0] == "Δήμος & Åsa"


def _line(ns, ew, score):
    return (f"<TRAVELLER_LINE><NS_PAIR_NUMBER>{ns}</NS_PAIR_NUMBER><EW_PAIR_NUMBER>{ew}</EW_PAIR_NUMBER>"
            f"<SCORE>{score}</SCORE></TRAVELLER_LINE>")


def test_howell_single_winner():
    # four pairs, each sitting N-S on one board and E-W on the other; WINNER_TYPE 1 = one field
    text = ("<USEBIO Version='1.2'><EVENT EVENT_TYPE='PAIRS'><WINNER_TYPE>1</WINNER_TYPE>"
            "<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>" + _line(1, 2, 110) + _line(3, 4, -50) + "</BOARD>"
            "<BOARD><BOARD_NUMBER>2</BOARD_NUMBER>" + _line(4, 1, 140) + _line(2, 3, -100) + "</BOARD>"
            "</EVENT></USEBIO>")
    e = score_event(read_usebio(text.encode()))
    assert e.movement == "HOWELL" and all(p.direction is None for p in e.participants)
    # hand-worked (top 2): board 1: 110 beats -50: N-S 1 gets 2, E-W 2 gets 0, N-S 3 gets 0, E-W 4 gets 2;
    # board 2: 140 beats -100: pair 4 (N-S) 2, pair 1 (E-W) 0, pair 2 (N-S) 0, pair 3 (E-W) 2.
    assert {p.number: p.total for p in e.participants} == {"1": 2, "2": 0, "3": 2, "4": 4}
    assert {p.number: (p.place, p.tied) for p in e.participants} == {
        "4": (1, False), "1": (2, True), "3": (2, True), "2": (4, False)}


# ---------------------------------------------------------------------------------------- bad files

def _err(data, name="results.xml") -> str:
    with pytest.raises(FormatError) as exc:
        read_usebio(data, name=name)
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith(name)
    return msg


def test_impossible_score_names_the_element():
    bad = MITCHELL_USEBIO.replace("<TRICKS>10</TRICKS><SCORE>420</SCORE>", "<TRICKS>10</TRICKS><SCORE>410</SCORE>")
    msg = _err(bad.encode())
    assert msg.startswith("results.xml, BOARD 1, TRAVELLER_LINE 1: score does not match 4S by N taking 10 tricks")
    assert msg.endswith("410")


def test_pair_meeting_a_board_twice_and_duplicate_rows():
    twice = MITCHELL_USEBIO.replace("<NS_PAIR_NUMBER>2</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER>",
                                    "<NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER>", 1)
    assert "pair plays board 1 twice: 'NS 1'" in _err(twice.encode())
    dup = MITCHELL_USEBIO.replace("<NS_PAIR_NUMBER>2</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER>",
                                  "<NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1</EW_PAIR_NUMBER>", 1)
    assert "duplicate row on board 1" in _err(dup.encode())



def test_a_pair_listed_twice_is_refused_naming_it():
    # the sample's third PAIR (N-S 1) made a second N-S 2: a pair is its number and, in a Mitchell, its direction
    twice = MITCHELL_USEBIO.replace("<PAIR><PAIR_NUMBER>1</PAIR_NUMBER><DIRECTION>NS</DIRECTION>",
                                    "<PAIR><PAIR_NUMBER>2</PAIR_NUMBER><DIRECTION>NS</DIRECTION>")
    assert twice != MITCHELL_USEBIO
    assert _err(twice.encode()) == "results.xml, PARTICIPANTS, PAIR 3, PAIR_NUMBER: a pair appears twice in " \
                                   "PARTICIPANTS: 'NS 2'"
    # a Howell (WINNER_TYPE 1) has one pair 3, so N-S 3 and E-W 3 (the sample's second and fourth PAIR) are one pair twice
    howell = MITCHELL_USEBIO.replace("<WINNER_TYPE>2</WINNER_TYPE>", "<WINNER_TYPE>1</WINNER_TYPE>")
    assert howell != MITCHELL_USEBIO
    msg = _err(howell.encode())
    assert msg.startswith("results.xml, PARTICIPANTS, PAIR 4, PAIR_NUMBER: a pair appears twice") and msg.endswith(": '3'")


@pytest.mark.parametrize("data, words", [
    (b"", "empty file"),
    (b"\x00\x01\x02garbage", "not a well-formed XML file"),
    (MITCHELL_USEBIO.encode()[:700], "not a well-formed XML file"),
    (b"<html><body/></html>", "not a USEBIO file"),
    (b"<USEBIO Version='9'><EVENT/></USEBIO>", "unsupported USEBIO version"),
    (b"<USEBIO Version='1.2'/>", "missing EVENT"),
    (b"<USEBIO Version='1.2'><EVENT><BOARD><BOARD_NUMBER>x</BOARD_NUMBER></BOARD></EVENT></USEBIO>",
     "cannot read BOARD_NUMBER"),
    (b"<USEBIO Version='1.2'><EVENT><BOARD><BOARD_NUMBER>1180591620717411303425</BOARD_NUMBER></BOARD></EVENT>"
     b"</USEBIO>", "BOARD 1: BOARD_NUMBER must be 1 to 10,000"),
    (b"<USEBIO Version='1.2'><EVENT><BOARD><BOARD_NUMBER>1</BOARD_NUMBER><TRAVELLER_LINE><NS_PAIR_NUMBER>1"
     b"</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER><SCORE>lots</SCORE></TRAVELLER_LINE></BOARD></EVENT>"
     b"</USEBIO>", "BOARD 1, TRAVELLER_LINE 1, SCORE: cannot read SCORE"),
    (b"<USEBIO Version='1.2'><EVENT><BOARD><BOARD_NUMBER>1</BOARD_NUMBER><TRAVELLER_LINE><NS_PAIR_NUMBER>1"
     b"</NS_PAIR_NUMBER></TRAVELLER_LINE></BOARD></EVENT></USEBIO>", "missing EW_PAIR_NUMBER"),
    (b"<USEBIO Version='1.2'><EVENT><BOARD_SCORING_METHOD>DARTS</BOARD_SCORING_METHOD></EVENT></USEBIO>",
     "unknown BOARD_SCORING_METHOD"),
    (b"<USEBIO Version='1.2'><EVENT><WINNER_TYPE>3</WINNER_TYPE></EVENT></USEBIO>", "WINNER_TYPE must be 1 or 2"),
])
def test_bad_files_one_line(data, words):
    assert words in _err(data)


def test_entities_and_external_references_are_refused(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    bomb = (b'<?xml version="1.0"?><!DOCTYPE USEBIO [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>'
            b"<USEBIO Version='1.2'><EVENT><EVENT_DESCRIPTION>&b;</EVENT_DESCRIPTION></EVENT></USEBIO>")
    assert "entities" in _err(bomb)
    xxe = (f'<?xml version="1.0"?><!DOCTYPE USEBIO [<!ENTITY x SYSTEM "file://{secret}">]>'
           "<USEBIO Version='1.2'><EVENT><EVENT_DESCRIPTION>&x;</EVENT_DESCRIPTION></EVENT></USEBIO>").encode()
    msg = _err(xxe)
    assert "TOP SECRET" not in msg and str(tmp_path) not in msg


def test_deep_nesting_is_refused():
    deep = b"<USEBIO Version='1.2'>" + b"<X>" * 100 + b"</X>" * 100 + b"</USEBIO>"
    assert "nested too deeply" in _err(deep)


def test_an_individual_event_is_not_supported_yet():
    assert "not supported yet" in _err(b"<USEBIO Version='1.2'><EVENT EVENT_TYPE='INDIVIDUAL'/></USEBIO>")


def test_read_event_detects_xml():
    assert read_event(MITCHELL_USEBIO.encode()).movement == MITCHELL
