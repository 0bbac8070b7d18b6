"""Control characters and look-alikes in a file's text (issue 51): the C0 controls (``C.\\x07Glover``, the terminal
escape), bidi overrides and isolates (U+202A-202E, U+2066-2069) and zero-width characters (U+200B-200D, U+2060,
U+FEFF) in a name or text are read by every command (import, export, publish, recalc) without a crash, in one way:
removed when read (:mod:`xlbridge.core.text`), with one warning line naming the file and the first place (the line,
the element, the sheet and cell); the pages never carry them. The rule itself is checked over every character of
the Basic Multilingual Plane against the ranges written out here by hand.
"""

from __future__ import annotations

import re
from pathlib import Path

import openpyxl
import pytest

from recalc_helpers import typed
from xlbridge import formats
from xlbridge.cli import main
from xlbridge.core.text import clean_text, noting_removed

#: The characters the rule removes, as the issue and the module list them (hand-written ranges, inclusive).
REMOVED = [(0x00, 0x08), (0x0E, 0x1F), (0x7F, 0x84), (0x86, 0x9F), (0x61C, 0x61C), (0x200B, 0x200F),
           (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x2069), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB),
           (0xFFFE, 0xFFFF)]
#: The white-space controls it makes a space.
SPACES = {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029}
#: One of each kind named by the issue, as they appear in names.
NASTY = "\x07\x1b\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u2060\ufeff"


def test_the_rule_over_every_character_of_the_bmp():
    removed = {c for lo, hi in REMOVED for c in range(lo, hi + 1)}
    for code in range(0xD800):  # (then the private use and the rest: below)
        _one(code, removed)
    for code in range(0xE000, 0x10000):
        _one(code, removed)


def _one(code: int, removed: set[int]) -> None:
    text = f"a{chr(code)}b"
    expected = "ab" if code in removed else "a b" if code in SPACES else text
    assert clean_text(text) == expected, hex(code)


def test_a_removal_is_noted_once_with_its_first_place():
    with noting_removed() as r:
        assert clean_text("C.\x07Glover", "line 5", "club.pbn") == "C.Glover"
        assert clean_text("Ann Lee") == "Ann Lee"
        assert clean_text("\u202eX\u200bY", "line 9", "club.pbn") == "XY"
    assert (r.count, r.first, r.file) == (3, "line 5", "club.pbn")
    assert r.warning() == ("removed 3 control, bidi or zero-width characters (U+0007, U+200B, U+202E) from its "
                           "text, first at line 5")


PBN = ('% PBN 2.1\n[Event "Club\x1b[31m night\u202e"]\n[Site "Hall\u200b"]\n[Board "1"]\n[Vulnerable "None"]\n'
       '[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS;Names_NS;Names_EW"]\n'
       '1 1 4S N 10 420 "C.\x07Glover;A\u2066B\u2069" "X\ufeff;Y\u200dZ"\n'
       '2 2 4S N 11 450 "P\u202aQ\u202c;R" "S;T\u2060"\n')


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line]


def _no_nasty(text: str) -> None:
    found = sorted({f"U+{ord(c):04X}" for c in text if c in NASTY})
    assert not found, found


@pytest.fixture(scope="module")
def pbn_book(tmp_path_factory):
    d = tmp_path_factory.mktemp("invisible")
    (d / "ctl.pbn").write_text(PBN, encoding="utf-8")
    return d


def test_import_removes_them_with_one_warning_naming_the_file_and_line(pbn_book, capsys):
    d = pbn_book
    assert main(["import", str(d / "ctl.pbn"), "-o", str(d / "ctl.xlsx")]) == 0
    err = _lines(capsys.readouterr().err)
    assert err == ["xlbridge import: ctl.pbn: warning: removed 11 control, bidi or zero-width characters (U+0007, "
                   "U+001B, U+200B, U+200D, U+202A, U+202C, ...) from its text, first at line 2"], err
    wb = openpyxl.load_workbook(d / "ctl.xlsx", read_only=True)
    texts = [c.value for ws in wb.worksheets for row in ws.iter_rows(max_row=60) for c in row
             if isinstance(getattr(c, "value", None), str)]
    wb.close()
    assert "Club[31m night" in texts and "Hall" in texts
    assert "C.Glover & AB" in texts and "X & YZ" in texts and "PQ & R" in texts and "S & T" in texts
    _no_nasty("".join(texts))


def test_recalc_export_and_publish_of_the_imported_book(pbn_book, capsys):
    d = pbn_book
    if not (d / "ctl.xlsx").exists():
        assert main(["import", str(d / "ctl.pbn"), "-o", str(d / "ctl.xlsx")]) == 0
    assert main(["recalc", str(d / "ctl.xlsx"), "-o", str(d / "ctl-r.xlsx"), "--no-progress"]) == 0
    assert main(["export", str(d / "ctl-r.xlsx"), "--format", "usebio", "-o", str(d / "out.xml")]) == 0
    event = formats.read_event(d / "out.xml")
    assert event.name == "Club[31m night" and {n for p in event.participants for n in p.names} >= {"C.Glover", "AB"}
    capsys.readouterr()
    assert main(["publish", str(d / "ctl.pbn"), "-o", str(d / "site")]) == 0  # (the PBN file itself)
    assert _lines(capsys.readouterr().err)[0].startswith("xlbridge publish: ctl.pbn: warning: removed 11 ")
    pages = "".join(p.read_text(encoding="utf-8") for p in (d / "site").glob("*.html"))
    assert "C.Glover" in pages
    _no_nasty(pages)


def test_usebio_controls_xml_cannot_hold_are_removed_before_parsing(tmp_path, capsys):
    xml = ('<?xml version="1.0" encoding="UTF-8"?>\n<USEBIO Version="1.2"><CLUB><CLUB_NAME>Vil\u202elage</CLUB_NAME>'
           '</CLUB>\n<EVENT EVENT_TYPE="PAIRS"><EVENT_DESCRIPTION>Club &#27;[31mnight&#x7;</EVENT_DESCRIPTION>\n'
           '<WINNER_TYPE>2</WINNER_TYPE><PARTICIPANTS><PAIR><PAIR_NUMBER>1</PAIR_NUMBER><DIRECTION>NS</DIRECTION>\n'
           '<PLAYER><PLAYER_NAME>C.\x07Glover</PLAYER_NAME></PLAYER><PLAYER><PLAYER_NAME>A\u200bB</PLAYER_NAME>'
           '</PLAYER></PAIR></PARTICIPANTS>\n<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>\n<TRAVELLER_LINE><NS_PAIR_NUMBER>1'
           '</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1</EW_PAIR_NUMBER><SCORE>420</SCORE></TRAVELLER_LINE>\n<TRAVELLER_LINE>'
           '<NS_PAIR_NUMBER>2</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER><SCORE>400</SCORE></TRAVELLER_LINE>\n'
           '</BOARD></EVENT></USEBIO>\n')
    (tmp_path / "ctl.xml").write_text(xml, encoding="utf-8")
    assert main(["import", str(tmp_path / "ctl.xml"), "-o", str(tmp_path / "ctl.xlsx")]) == 0
    assert _lines(capsys.readouterr().err) == [
        "xlbridge import: ctl.xml: warning: removed 5 control, bidi or zero-width characters (U+0007, U+001B, U+200B, "
        "U+202E) from its text, first at line 3"]
    event = formats.read_event(tmp_path / "ctl.xml")
    assert (event.name, event.site) == ("Club [31mnight", "Village")
    assert [p.names for p in event.participants if p.number == "1" and p.direction == "NS"] == [("C.Glover", "AB")]
    assert main(["publish", str(tmp_path / "ctl.xml"), "-o", str(tmp_path / "site")]) == 0
    assert "first at line 3" in capsys.readouterr().err
    _no_nasty("".join(p.read_text(encoding="utf-8") for p in (tmp_path / "site").glob("*.html")))


def test_a_workbook_s_text_is_read_by_the_same_rule_naming_the_cell(pbn_book, tmp_path, capsys):
    d = pbn_book
    if not (d / "ctl.xlsx").exists():
        assert main(["import", str(d / "ctl.pbn"), "-o", str(d / "ctl.xlsx")]) == 0
    book = typed(d / "ctl.xlsx", tmp_path / "typed.xlsx", {"Pairs": {"C5": "Ann\u202eLee & Bob\u200bRoe\u2067"}})
    capsys.readouterr()
    assert main(["export", str(book), "--format", "pbn", "-o", str(tmp_path / "out.pbn")]) == 0
    assert _lines(capsys.readouterr().err) == [
        "xlbridge export: typed.xlsx: warning: removed 3 control, bidi or zero-width characters (U+200B, U+202E, "
        "U+2067) from its text, first at Pairs!C5"]
    assert "Ann Lee" not in (tmp_path / "out.pbn").read_text(encoding="utf-8-sig")
    assert '"AnnLee;BobRoe"' in (tmp_path / "out.pbn").read_text(encoding="utf-8-sig")
    assert main(["publish", str(book), "-o", str(tmp_path / "site")]) == 0
    assert "first at Pairs!C5" in capsys.readouterr().err
    _no_nasty("".join(p.read_text(encoding="utf-8") for p in (tmp_path / "site").glob("*.html")))
    # recalc reads the book's text without a crash and leaves a member's typing as it is
    assert main(["recalc", str(book), "-o", str(tmp_path / "r.xlsx"), "--no-progress"]) == 0
    wb = openpyxl.load_workbook(tmp_path / "r.xlsx", read_only=True)
    assert wb["Pairs"]["C5"].value == "Ann\u202eLee & Bob\u200bRoe\u2067"
    wb.close()


def test_a_file_name_with_a_bidi_override_is_shown_escaped(tmp_path, capsys):
    src = tmp_path / "evil\u202egnp.pbn"
    src.write_bytes(b"root:x:0:0:root:/root:/bin/bash\n")
    assert main(["import", str(src), "-o", str(tmp_path / "o.xlsx")]) == 2
    err = capsys.readouterr().err
    assert "\u202e" not in err and "evil\\u202egnp.pbn" in err, err
    assert "root" not in err and re.search(r"not a PBN file: its first line .* is not a tag", err), err
