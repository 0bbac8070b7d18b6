"""PBN 2.1 reader and writer: hand-written files (tests/formats_samples.py), an independent parser
(endplay's PBN reader), and the one-line errors for bad files."""

from dataclasses import replace
from fractions import Fraction as F

import pytest

import xlbridge
from xlbridge.formats import FormatError, LIMITS, MITCHELL, read_event, read_pbn, score_event, write_pbn

from formats_samples import DEAL_1, MITCHELL_PBN, NAMES

import endplay.parsers.pbn as endplay_pbn  # an independent PBN parser (the dds extra, installed for the tests)


def test_sample_fields_read_as_written():
    e = read_pbn(MITCHELL_PBN.encode("latin-1"))
    assert (e.name, e.site, str(e.date), e.movement, e.scoring) == (
        "Tuesday Pairs", "Little Snoring BC", "2024-03-05", MITCHELL, "MP")
    b1, b2, b3 = e.boards
    assert (b1.number, b1.dealer, b1.vulnerable, b1.deal) == (1, "N", "None", DEAL_1)
    assert (b2.dealer, b2.vulnerable, b2.deal, b3.dealer, b3.vulnerable) == ("E", "NS", None, "S", "EW")
    r = b1.results[1]
    # "+1" relative to 4S: declarer took 6 + 4 + 1 = 11 tricks; the lead "HA"
    assert (r.ns, r.ew, r.contract, r.declarer, r.tricks, r.score, r.lead) == ("2", "2", "4S", "N", 11, 450, "HA")
    assert b1.results[2].tricks == 9  # "=" on 3NT
    # columns in another order; E-W plus written in Score_EW
    assert [(x.ns, x.ew, x.score) for x in b2.results[:2]] == [("1", "3", -110), ("2", "1", 50)]
    assert b2.results[2].score == xlbridge.Artificial(60, 40)
    assert (b2.results[2].pct_ns, b2.results[2].pct_ew) == (60, 40)
    assert {p.key: p.names for p in e.participants} == NAMES
    assert {p.key: (p.total, p.place) for p in e.participants}[("EW", "3")] == (F(21, 2), 1)
    assert {p.key: p.percentage for p in e.participants}[("NS", "1")] == F("29.17")


def test_crlf_and_lf_read_the_same():
    lf = MITCHELL_PBN.encode()
    assert read_pbn(lf.replace(b"\n", b"\r\n")) == read_pbn(lf)


@pytest.mark.parametrize("encode", [
    lambda t: t.encode("latin-1"),                 # PBN 2.1 section 2.2: ISO 8859-1 by default
    lambda t: b"\xef\xbb\xbf" + t.encode("utf-8"),  # UTF-8 with a byte-order mark
    lambda t: t.encode("utf-8"),                   # UTF-8 without a mark (multi-byte sequences present)
])
def test_character_sets(encode):
    text = MITCHELL_PBN.replace("Ann Lee", "Åsa Öberg").replace("Bob Roe", "José Nuñez")
    e = read_pbn(encode(text))
    assert e.participant("NS", "2").names == ("Åsa Öberg", "José Nuñez")


def test_writer_ascii_when_possible_else_utf8_with_bom():
    e = read_pbn(MITCHELL_PBN.encode())
    assert write_pbn(e).isascii()
    latin = write_pbn(read_pbn(MITCHELL_PBN.replace("Ann Lee", "Åsa").encode()))
    assert latin.startswith(b"\xef\xbb\xbf") and "Åsa".encode() in latin
    greek = write_pbn(read_pbn(MITCHELL_PBN.replace("Ann Lee", "Δήμος").encode()))
    assert greek.startswith(b"\xef\xbb\xbf") and "Δήμος".encode() in greek
    assert read_pbn(greek).participant("NS", "2").names[0] == "Δήμος"


def test_comments_directives_inheritance_and_multiline_rows():
    text = """% PBN 2.1
% IMPORT
{ a comment
  over [Board "9"] two lines }
[Event "Spring"] ; rest of line comment
[Board "4"]
[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS"]
1 2 4H
S 10 620
3 4 4H S 9 -100

[Event "#"]
[Board "5"]
[ScoreTable "#"]
1 2 1NT N 7 90
"""
    e = read_pbn(text.encode())
    assert e.name == "Spring"
    # board 4 is vulnerable for N-S by the 16-board cycle (no [Vulnerable] tag): 4H= 620, one down -100
    assert [(r.ns, r.tricks, r.score) for r in e.board(4).results] == [("1", 10, 620), ("3", 9, -100)]
    assert e.board(4).vulnerable == "All" and e.board(4).dealer == "W"
    assert [(r.contract, r.score) for r in e.board(5).results] == [("1NT", 90)]
    # pairs 1 and 3 always sit N-S, 2 and 4 always E-W: each keeps its direction, a Mitchell
    assert e.movement == MITCHELL


def test_header_widths_alignment_and_sort_prefixes_are_accepted():
    text = ('[Board "1"]\n[Vulnerable "None"]\n[ScoreTable "-PairId_NS\\3L;+Score_NS\\8R;PairId_EW"]\n'
            '1     420 2\n2     -50 1\n')
    e = read_pbn(text.encode())
    assert [(r.ns, r.ew, r.score) for r in e.boards[0].results] == [("1", "2", 420), ("2", "1", -50)]


def test_unknown_columns_are_ignored_and_contract_with_declarer():
    text = ('[Board "2"]\n[ScoreTable "Table;PairId_NS;PairId_EW;Contract;Result;Score_NS;Comment;Round"]\n'
            '1 1 2 3NTS 9 600 "well played" 2\n')
    r = read_pbn(text.encode()).boards[0].results[0]
    # board 2: N-S vulnerable, 3NT by South making: 100 + 500 = 600
    assert (r.contract, r.declarer, r.tricks, r.score, r.table, r.round) == ("3NT", "S", 9, 600, 1, 2)


def test_passed_out_and_not_played_rows():
    text = ('[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS"]\n'
            '1 2 Pass - - 0\n3 4 - - - -\n')
    rows = read_pbn(text.encode()).boards[0].results
    assert (rows[0].contract, rows[0].score) == ("PASS", 0)
    assert rows[1].score is xlbridge.NOT_PLAYED


def test_endplay_reads_what_xlbridge_writes():
    """An independent PBN parser (endplay) sees the same boards, deals and ScoreTable cells."""
    e = score_event(read_pbn(MITCHELL_PBN.encode()))
    boards = endplay_pbn.loads(write_pbn(e).decode("latin-1"))
    assert [b.board_num for b in boards] == [1, 2, 3]
    assert boards[0].deal.to_pbn() == DEAL_1
    assert [b.dealer.abbr for b in boards] == ["N", "E", "S"]
    assert [b.vul.name for b in boards] == ["none", "ns", "ew"]
    for b, mine in zip(boards, e.boards):
        table = b.info["ScoreTable"]
        head = [h["name"] for h in table["headers"]]
        rows = [dict(zip(head, row)) for row in table["rows"]]
        # endplay parses the section 5.2 column widths: every cell fits its declared minimum width
        for h, i in zip(table["headers"], range(len(head))):
            assert h["alignment"] in ("L", "R") and all(len(row[i]) <= int(h["minwidth"]) for row in table["rows"])
        assert [(r["PairId_NS"], r["PairId_EW"]) for r in rows] == [(r.ns, r.ew) for r in mine.results]
        for cells, r in zip(rows, mine.results):
            if isinstance(r.score, int):
                assert cells["Contract"] == r.contract and int(cells["Result"]) == r.tricks
                ns = int(cells["Score_NS"]) if cells["Score_NS"] != "-" else -int(cells["Score_EW"])
                assert ns == r.score
            assert F(cells["MP_NS"].lstrip("^")) == r.mp_ns


def test_xlbridge_reads_the_hand_written_sample_like_endplay():
    """Deal, dealer and vulnerability of the hand-written file agree with endplay's reading."""
    simple = MITCHELL_PBN.replace("   ; an overtrick, written relative to the contract", "").replace(' "ok"', " ok")
    theirs = endplay_pbn.loads(simple)
    mine = read_pbn(simple.encode())
    assert theirs[0].deal.to_pbn() == mine.boards[0].deal
    assert [b.vul.name for b in theirs] == ["none", "ns", "ew"]
    assert [(b.number, b.vulnerable) for b in mine.boards] == [(1, "None"), (2, "NS"), (3, "EW")]


# ---------------------------------------------------------------------------------------- bad files

def _err(data, name=None) -> str:
    with pytest.raises(FormatError) as exc:
        read_pbn(data) if name is None else read_pbn(data, name=name)
    msg = str(exc.value)
    assert "\n" not in msg and "Traceback" not in msg
    return msg


HEAD = '[Board "1"]\n[Vulnerable "None"]\n[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS"]\n'


def test_impossible_score_for_contract_names_file_line_value():
    msg = _err((HEAD + "1 2 4S N 10 420\n3 4 4S N 10 410\n").encode(), name="club.pbn")
    assert msg.startswith("club.pbn, line 5: score does not match 4S by N taking 10 tricks")
    assert msg.endswith("410")


def test_score_impossible_for_vulnerability():
    # 620 is 4H/4S made vulnerable; board 1 here is love all
    msg = _err((HEAD.replace("Contract;Declarer;Result;", "") + "1 2 620\n").encode())
    assert "line 4" in msg and "impossible score for vulnerability 'None' (nobody vulnerable)" in msg and "620" in msg


def test_duplicate_row_and_pair_meeting_a_board_twice():
    assert "duplicate row on board 1" in _err((HEAD + "1 2 4S N 10 420\n1 2 4S N 10 420\n").encode())
    assert "plays board 1 twice" in _err((HEAD + "1 2 4S N 10 420\n1 3 4S N 9 -50\n").encode())


@pytest.mark.parametrize("data, words", [
    (b"", "empty file"),
    (b"   \n\n", "empty file"),
    (bytes(range(256)) * 4, "binary"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
    (b"hello world\n", "not a PBN file: its first line that is not a comment is not a tag"),
    ((HEAD + "1 2 4S N 10\n").encode(), "truncated ScoreTable row"),
    ((HEAD[:-3] + "\n").encode(), "unterminated string"),
    (b'[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score NS"]\n1 2 420\n', "cannot read ScoreTable header"),
    (b'[Board "1"]\n[ScoreTable "PairId_NS;Score_NS"]\n1 420\n', "needs PairId_NS and PairId_EW"),
    (b'[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS;Score_NS"]\n', "names a column twice"),
    (b'[Board "x"]\n', "cannot read board number"),
    # the workbooks' Board column takes 1 to 10,000; 2**70 + 1 would come back from Excel as 2**70
    (b'[Board "10001"]\n', "board number must be 1 to 10,000"),
    (b'[Board "1180591620717411303425"]\n', "line 1: board number must be 1 to 10,000"),
    (b'[Board "1"]\n[Deal "N:AKQ"]\n', "cannot read deal"),
    (b'[Board "1"]\n[Deal "N:AKQJ.AKQ.AKQ.AKQ AKQJ.AKQ.AKQ.AKQ - -"]\n', "repeated card"),
    (b'[Board "1"]\n[Vulnerable "Sometimes"]\n', "cannot read vulnerability"),
    ((HEAD + "1 2 4Q N 10 420\n").encode(), "cannot read contract"),
    ((HEAD + "1 2 4S N 14 420\n").encode(), "tricks must be 0-13"),
    ((HEAD + "1 2 4S N 10 425\n").encode(), "multiple of 10"),
    (b'[Event "#"]\n', "no earlier game"),
    (b"{ never closed\n", "unterminated {comment}"),
    (b'[Board "1"\n', "missing ]"),
])
def test_bad_files_one_line(data, words):
    msg = _err(data, name="upload.pbn")
    assert msg.startswith("upload.pbn")
    assert words in msg


def test_long_values_are_clipped_and_paths_hidden(tmp_path):
    long = "4" + "S" * 500
    p = tmp_path / "deep" / "club.pbn"
    p.parent.mkdir()
    p.write_bytes((HEAD + f"1 2 {long} N 10 420\n").encode())
    msg = _err(str(p))
    assert msg.startswith("club.pbn, line 4") and str(tmp_path) not in msg and len(msg) < 200


def test_size_limit(tmp_path, monkeypatch):
    monkeypatch.setitem(LIMITS, "bytes", 1000)
    p = tmp_path / "big.pbn"
    p.write_bytes(MITCHELL_PBN.encode() * 3)
    assert "too large" in _err(str(p))
    assert "too large" in _err(MITCHELL_PBN.encode() * 3)


def test_missing_file_message_has_no_path(tmp_path):
    msg = _err(str(tmp_path / "nope.pbn"))
    assert msg == "nope.pbn: cannot open the file"


def test_read_event_detects_pbn():
    assert read_event(MITCHELL_PBN.encode()).name == "Tuesday Pairs"


def test_writer_refuses_names_it_cannot_write():
    e = read_pbn(MITCHELL_PBN.replace("Ann Lee", "Ann;Lee").encode())  # ';' splits the names
    assert e.participant("NS", "2").names == ("Ann", "Lee", "Bob Roe")
    from dataclasses import replace
    bad = replace(e, participants=tuple(replace(p, names=("a;b",)) for p in e.participants))
    with pytest.raises(FormatError, match="cannot contain ';'"):
        write_pbn(bad)



def test_event_name_or_site_pbn_reads_as_something_else_is_refused_on_export():
    # PBN: a tag value "#" copies the previous game's value and "?" means unknown; no escape makes them text
    e = read_pbn(MITCHELL_PBN.encode())
    for field, value in (("name", "#"), ("name", " ? "), ("site", "#")):
        with pytest.raises(FormatError) as exc:
            write_pbn(replace(e, **{field: value}))
        assert "\n" not in str(exc.value) and repr(value) in str(exc.value)
    for name in ("#1", "Pairs #3", "?!"):  # anything else round-trips
        assert read_pbn(write_pbn(replace(e, name=name))).name == name


def test_writer_refusals_name_the_file_and_the_field():
    """A refusal of the writers names the file the event was read from (``name``) and the field: PBN 2.1
    section 3.4 ('?' in a tag is an unknown value), section 5.2 (table values are separated by white
    space, so '1 A' is two values); XML 1.0 section 2.2 (no control character but tab, CR and LF)."""
    from xlbridge.formats import Board, Event, Participant, Result, write_usebio

    e = read_pbn(MITCHELL_PBN.encode())
    with pytest.raises(FormatError) as exc:
        write_pbn(replace(e, site="?"), name="club.xlsx")
    assert str(exc.value) == ("club.xlsx: the site (PBN tag Site) cannot be written to PBN as a tag value: '#' "
                              "means the previous game's value there and '?' an unknown one: '?'")
    with pytest.raises(FormatError) as exc:
        write_pbn(Event(boards=(Board(3, results=(Result("1 A", "2", score=110),)),)), name="club.xml")
    assert str(exc.value) == "club.xml, board 3, 1 A v 2: a pair number cannot be written to PBN: '1 A'"
    ev = Event(movement=MITCHELL, participants=(Participant("3", "NS", ("Ann\x01",)),))
    with pytest.raises(FormatError) as exc:
        write_usebio(ev, name="club.xlsx")
    assert str(exc.value) == ("club.xlsx, EVENT, PARTICIPANTS, PAIR NS 3, PLAYER 1, PLAYER_NAME: text cannot be "
                              "written to XML (control character): 'Ann\\x01'")


def test_howell_total_table_with_blank_direction_column():
    text = ('[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 2 420\n3 4 400\n'
            '[TotalScoreTable "Rank;PairId;Direction;Names"]\n1 1 - "A;B"\n2 2 - "C;D"\n')
    e = read_pbn(text.encode())
    assert e.movement == "HOWELL" and e.participant(None, "1").names == ("A", "B")



def test_mitchell_total_table_without_direction_column_follows_the_travellers():
    # N-S 1-3 always N-S, E-W 11-13 always E-W: a Mitchell (two fields), as without a TotalScoreTable
    text = ('[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 11 420\n2 12 400\n3 13 100\n'
            '[TotalScoreTable "Rank;PairId;Names;TotalMP"]\n1 1 "A;B" 4\n1 11 "C;D" 4\n')
    e = read_pbn(text.encode())
    assert e.movement == "MITCHELL" and e.participant("NS", "1").names == ("A", "B")
    assert e.participant("EW", "11").names == ("C", "D") and e.participant("EW", "11").place == 1
    assert sorted(p.key for p in e.participants) == [("EW", "11"), ("EW", "12"), ("EW", "13"), ("NS", "1"),
                                                     ("NS", "2"), ("NS", "3")]
    # N-S 1 against E-W 1: a Mitchell; a row for pair 1 cannot say which of the two it is
    text = ('[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 1 420\n2 2 400\n'
            '[TotalScoreTable "Rank;PairId;TotalMP"]\n1 2 1\n')
    msg = _err(text.encode(), name="m.pbn")
    assert msg.startswith("m.pbn, line 6: ") and "pair 2 sits both N-S and E-W" in msg and "Direction" in msg
    assert read_pbn(text.replace("1 2 1\n", "").encode()).movement == "MITCHELL"



def test_a_howell_that_looks_like_a_mitchell_is_written_with_a_direction_column():
    # one board of a Howell, 1 v 2 and 3 v 4: the travellers alone would make a Mitchell (nobody sits both ways)
    text = ('[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 2 420\n3 4 400\n'
            '[TotalScoreTable "Rank;PairId;Direction;Names"]\n1 1 - "A;B"\n2 2 - "C;D"\n')
    e = read_pbn(text.encode())
    back = read_pbn(write_pbn(e))
    assert back.movement == "HOWELL" and back.participant(None, "2").names == ("C", "D")


def test_teams_event_round_trip():
    from xlbridge.formats import Board, Event, Participant, Result

    rows = {1: (Result("1", "2", "4S", "N", 10), Result("2", "1", "4S", "N", 9)),
            2: (Result("1", "2", "3NT", "N", 9), Result("2", "1", "3NT", "N", 9))}
    e = Event(name="Teams", kind="TEAMS", scoring="IMP",
              participants=(Participant("1", name="Lions", names=("A", "B", "C", "D")), Participant("2", name="Tigers")),
              boards=tuple(Board(b, "N", "None", results=r) for b, r in rows.items()))
    s = score_event(e)
    text = write_pbn(s)
    assert b"TeamId" in text and b'"Lions"' in text
    # PBN 2.1 names no VP total column: the file carries the place (by VPs) and the IMPs, not the VPs
    no_vps = replace(s, participants=tuple(replace(p, vps=None) for p in s.participants))
    assert read_pbn(text) == no_vps and all(p.vps is not None for p in s.participants)
