"""Text from a file stays text (issue 51): every text field ``xlbridge import`` writes into a workbook from a PBN or
USEBIO file is a text cell, never a formula or an error value, whatever it starts with (``=``, ``+``, ``-``, ``@``,
a tab, a carriage return), and ``recalc``, ``export`` (PBN and USEBIO) and ``publish`` keep it as typed.

The fields are driven from the readers' own lists: every column of ``SCORE_TABLE_COLUMNS`` and
``TOTAL_SCORE_TABLE_COLUMNS`` (PBN) and every element of ``USEBIO_ELEMENTS`` is classed below as text written to a
cell (:data:`PBN_TEXT`, :data:`USEBIO_TEXT`: each gets a formula-like value in the files of this test) or as
something the readers parse (a number, a contract, a seat, a card: a formula there is refused, never written); a
column or element added to a reader fails :func:`test_every_field_of_the_readers_is_classed` until it is classed.
The values are typed here by hand; a cell's kind is read from the sheet's XML (``t="s"``, no ``<f>``) and with
openpyxl (``data_type == 's'``).
"""

from __future__ import annotations

import html
import re
import zipfile
from pathlib import Path

import openpyxl
import pytest

from xlbridge import formats
from xlbridge.cli import main
from xlbridge.formats.pbn import SCORE_TABLE_COLUMNS, TOTAL_SCORE_TABLE_COLUMNS
from xlbridge.formats.usebio import USEBIO_ELEMENTS

#: PBN fields holding text that import writes into a cell (tags, then table columns).
PBN_TEXT = {"Event", "Site", "Scorer", "PairId_NS", "PairId_EW", "Names_NS", "Names_EW", "PairId", "TeamId", "Names",
            "TeamName"}
#: PBN table columns the readers parse (numbers, contracts, seats, cards, directions) or do not write to a cell.
PBN_PARSED = {"Rank", "Contract", "Declarer", "Result", "Score_NS", "Score_EW", "IMP_NS", "IMP_EW", "MP_NS", "MP_EW",
              "Percentage_NS", "Percentage_EW", "Multiplicity", "Lead", "Table", "Round", "Outcomes", "Direction",
              "TotalScore", "TotalMP", "TotalIMP", "TotalPercentage", "NrBoards"}
#: USEBIO elements and attributes holding text that import writes into a cell.
USEBIO_TEXT = {"CLUB_NAME", "EVENT_DESCRIPTION", "FULL_NAME", "PAIR_NUMBER", "PLAYER_NAME", "NS_PAIR_NUMBER",
               "EW_PAIR_NUMBER", "TEAM@TEAM_ID", "TEAM@TEAM_NAME"}
#: USEBIO elements and attributes that are structure, parsed values or not written to a cell.
USEBIO_PARSED = {
    "USEBIO", "USEBIO@Version", "CLUB", "EVENT", "EVENT@EVENT_TYPE", "PROGRAM_NAME", "PROGRAM_VERSION", "DATE",
    "CONTACT", "BOARD_SCORING_METHOD", "WINNER_TYPE", "PARTICIPANTS", "PAIR", "DIRECTION", "PLACE", "PERCENTAGE",
    "TOTAL_SCORE", "BOARDS_PLAYED", "PLAYER", "NATIONAL_ID_NUMBER", "BOARD", "BOARD_NUMBER", "VULNERABILITY",
    "HANDSET", "HAND", "SPADES", "HEARTS", "DIAMONDS", "CLUBS", "TRAVELLER_LINE", "CONTRACT", "PLAYED_BY", "LEAD",
    "TRICKS", "SCORE", "NS_MATCH_POINTS", "EW_MATCH_POINTS", "NS_CROSS_IMP_POINTS", "EW_CROSS_IMP_POINTS",
    "NS_BUTLER_POINTS", "EW_BUTLER_POINTS", "NS_IMPS", "EW_IMPS", "MATCH_SCORING_METHOD", "SESSION",
    "SESSION@SESSION_ID", "TEAM", "MATCH", "ROUND_NUMBER", "OPPOSING_TEAM", "TEAM_SCORE", "OPPOSING_TEAM_SCORE",
    "IMPS", "WEIGHTED_SCORE", "OUTCOME", "OUTCOME@SCORE", "OUTCOME@WEIGHT"}

#: What a spreadsheet program takes for a formula (or an error value) when typed: one value of each kind. The
#: leading tab and carriage return are white space, which every reader strips from a name's ends; what stays
#: starts with ``=``.
PREFIXES = ("=", "+", "-", "@", "\t=", "\r=")


def _typed(k: int, field: str) -> str:
    """The value of the ``k``-th field (a name: a live link, if Excel took it for a formula)."""
    return f'{PREFIXES[k % len(PREFIXES)]}HYPERLINK("http://x.invalid/","{field}")'


def _as_read(text: str) -> str:
    """What the readers keep of a typed value: its ends stripped (a leading tab or carriage return is white space)."""
    return text.strip(" \t\r")


#: Pair and team numbers (at most 20 characters, no white space inside, the PBN table's items).
IDS = ("=1+1", "+2", "-3", "@4")


def test_every_field_of_the_readers_is_classed():
    assert set(SCORE_TABLE_COLUMNS) | set(TOTAL_SCORE_TABLE_COLUMNS) <= PBN_TEXT | PBN_PARSED
    assert not PBN_TEXT & PBN_PARSED and not USEBIO_TEXT & USEBIO_PARSED
    assert set(USEBIO_ELEMENTS) == USEBIO_TEXT | USEBIO_PARSED


def _q(text: str) -> str:
    """A PBN string (section 3.1: ``\\"`` and ``\\\\`` escaped)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _pbn_pairs(fields: dict[str, str]) -> str:
    """A two-table Mitchell, one board: the event's tags, the names of pair 2 (N-S and E-W) in the ScoreTable and
    those of N-S pair 1 in a TotalScoreTable (which lists only it: the others come from the travellers)."""
    a, b, q = IDS[0], IDS[1], _q
    return (f'% PBN 2.1\n[Event {q(fields["Event"])}]\n[Site {q(fields["Site"])}]\n[Scorer {q(fields["Scorer"])}]\n'
            f'[Board "1"]\n[Vulnerable "None"]\n'
            f'[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS;Names_NS;Names_EW"]\n'
            f'{q(a)} {q(a)} 4S N 10 420 "Cy;Di" "Ed;Flo"\n'
            f'{q(b)} {q(b)} 4S N 11 450 {q(fields["Names_NS"] + ";Ann")} {q(fields["Names_EW"] + ";Bob")}\n\n'
            f'[TotalScoreTable "PairId;Direction;Names"]\n{q(a)} NS {q(fields["Names"] + ";Gus")}\n')


def _pbn_teams(fields: dict[str, str]) -> str:
    """Two teams, one board in both rooms: team numbers, team names and players from the TotalScoreTable."""
    a, b, q = IDS[2], IDS[3], _q
    return (f'% PBN 2.1\n[Event {q(fields["Event"])}]\n[Board "1"]\n[Vulnerable "None"]\n'
            f'[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS"]\n'
            f'{q(a)} {q(b)} 4S N 10 420\n{q(b)} {q(a)} 4S N 9 -50\n\n'
            f'[TotalScoreTable "TeamId;TeamName;Names"]\n{q(a)} {q(fields["TeamName"])} {q(fields["Names"] + ";Ann")}\n'
            f'{q(b)} "Tigers" "Cy;Di"\n')


def _usebio_pairs(fields: dict[str, str]) -> str:
    e = lambda s: html.escape(s).replace("\r", "&#13;").replace("\t", "&#9;")  # noqa: E731 (kept by the parser)
    a, b = IDS[0], IDS[3]
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<USEBIO Version="1.2"><CLUB><CLUB_NAME>{e(fields["CLUB_NAME"])}</CLUB_NAME></CLUB>
<EVENT EVENT_TYPE="PAIRS"><EVENT_DESCRIPTION>{e(fields["EVENT_DESCRIPTION"])}</EVENT_DESCRIPTION>
<CONTACT><FULL_NAME>{e(fields["FULL_NAME"])}</FULL_NAME></CONTACT>
<BOARD_SCORING_METHOD>MATCH_POINTS</BOARD_SCORING_METHOD><WINNER_TYPE>2</WINNER_TYPE>
<PARTICIPANTS><PAIR><PAIR_NUMBER>{e(a)}</PAIR_NUMBER><DIRECTION>NS</DIRECTION><PLAYER><PLAYER_NAME>{e(fields["PLAYER_NAME"])}</PLAYER_NAME></PLAYER>
<PLAYER><PLAYER_NAME>Ann</PLAYER_NAME></PLAYER></PAIR>
<PAIR><PAIR_NUMBER>{e(b)}</PAIR_NUMBER><DIRECTION>NS</DIRECTION><PLAYER><PLAYER_NAME>Cy</PLAYER_NAME></PLAYER><PLAYER><PLAYER_NAME>Di</PLAYER_NAME></PLAYER></PAIR>
</PARTICIPANTS>
<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>
<TRAVELLER_LINE><NS_PAIR_NUMBER>{e(a)}</NS_PAIR_NUMBER><EW_PAIR_NUMBER>{e(a)}</EW_PAIR_NUMBER><CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>10</TRICKS><SCORE>420</SCORE></TRAVELLER_LINE>
<TRAVELLER_LINE><NS_PAIR_NUMBER>{e(b)}</NS_PAIR_NUMBER><EW_PAIR_NUMBER>{e(b)}</EW_PAIR_NUMBER><CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>11</TRICKS><SCORE>450</SCORE></TRAVELLER_LINE>
</BOARD></EVENT></USEBIO>
"""


def _usebio_teams(fields: dict[str, str]) -> str:
    e = lambda s: html.escape(s).replace("\r", "&#13;").replace("\t", "&#9;")  # noqa: E731
    a, b = IDS[1], IDS[2]
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<USEBIO Version="1.2"><CLUB><CLUB_NAME>Village</CLUB_NAME></CLUB>
<EVENT EVENT_TYPE="TEAMS"><EVENT_DESCRIPTION>Teams</EVENT_DESCRIPTION>
<SESSION SESSION_ID="1"><PARTICIPANTS>
<TEAM TEAM_ID="{e(a)}" TEAM_NAME="{e(fields["TEAM@TEAM_NAME"])}"><PAIR><PAIR_NUMBER>1-1-2</PAIR_NUMBER>
<PLAYER><PLAYER_NAME>Ann</PLAYER_NAME></PLAYER><PLAYER><PLAYER_NAME>Bob</PLAYER_NAME></PLAYER></PAIR></TEAM>
<TEAM TEAM_ID="{e(b)}" TEAM_NAME="Tigers"></TEAM>
</PARTICIPANTS>
<MATCH><ROUND_NUMBER>1</ROUND_NUMBER><TEAM>{e(a)}</TEAM><OPPOSING_TEAM>{e(b)}</OPPOSING_TEAM>
<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>
<TRAVELLER_LINE><DIRECTION>NS</DIRECTION><CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>10</TRICKS><SCORE>420</SCORE></TRAVELLER_LINE>
<TRAVELLER_LINE><DIRECTION>EW</DIRECTION><CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>9</TRICKS><SCORE>-50</SCORE></TRAVELLER_LINE>
</BOARD></MATCH></SESSION></EVENT></USEBIO>
"""


#: Each file of the test: (its maker, the fields it carries, the pair or team numbers in it).
FILES = {
    "pairs.pbn": (_pbn_pairs, ("Event", "Site", "Scorer", "Names_NS", "Names_EW", "Names"), IDS[:2]),
    "teams.pbn": (_pbn_teams, ("Event", "TeamName", "Names"), IDS[2:]),
    "pairs.xml": (_usebio_pairs, ("CLUB_NAME", "EVENT_DESCRIPTION", "FULL_NAME", "PLAYER_NAME"), (IDS[0], IDS[3])),
    "teams.xml": (_usebio_teams, ("TEAM@TEAM_NAME",), IDS[1:3]),
}


def test_the_files_carry_every_text_field():
    """The four files give a formula-like value to every text field of both readers (the numbers: IDS)."""
    pbn = {f for name, (_, fields, _) in FILES.items() if name.endswith(".pbn") for f in fields}
    xml = {f for name, (_, fields, _) in FILES.items() if name.endswith(".xml") for f in fields}
    ids = {"PairId_NS", "PairId_EW", "PairId", "TeamId", "PAIR_NUMBER", "NS_PAIR_NUMBER", "EW_PAIR_NUMBER",
           "TEAM@TEAM_ID"}
    assert pbn | (ids & PBN_TEXT) == PBN_TEXT
    assert xml | (ids & USEBIO_TEXT) == USEBIO_TEXT


def _fields(name: str) -> dict[str, str]:
    _, fields, _ = FILES[name]
    k0 = sorted(FILES).index(name) * 7
    return {f: _typed(k0 + k, f"{name}:{f}") for k, f in enumerate(fields)}


def _cells(book: Path) -> dict[tuple[str, str], tuple[str, object]]:
    """{(sheet, cell): (openpyxl's data type, value)} of every cell holding a text of this test's files."""
    wb = openpyxl.load_workbook(book, read_only=True)
    out = {}
    try:
        for ws in wb.worksheets:
            for row in ws.iter_rows():
                for c in row:
                    v = getattr(c, "value", None)
                    if isinstance(v, str) and ("HYPERLINK" in v or v in IDS):
                        out[(ws.title, c.coordinate)] = (c.data_type, v)
    finally:
        wb.close()
    return out


def _formulas_from_text(book: Path) -> list[str]:
    """The formulas (``<f>`` elements) of the book's sheets that hold a text of this test's files."""
    found = []
    with zipfile.ZipFile(book) as z:
        for part in z.namelist():
            if part.startswith("xl/worksheets/") and part.endswith(".xml"):
                for f in re.findall(rb"<f[^>]*>([^<]*)</f>", z.read(part)):
                    text = html.unescape(f.decode())
                    if "HYPERLINK" in text or text in {i[1:] for i in IDS if i.startswith("=")}:
                        found.append(f"{part}: {text}")
    return found


@pytest.fixture(scope="module", params=sorted(FILES))
def imported(request, tmp_path_factory):
    """One file imported, then the book recalculated: (file name, folder, book, recalculated book)."""
    name = request.param
    make, _fields_, _ids = FILES[name]
    d = tmp_path_factory.mktemp(name.replace(".", "-"))
    (d / name).write_text(make(_fields(name)), encoding="utf-8")
    assert main(["import", str(d / name), "-o", str(d / "book.xlsx")]) == 0
    assert main(["recalc", str(d / "book.xlsx"), "-o", str(d / "book-r.xlsx"), "--no-progress"]) == 0
    return name, d, d / "book.xlsx", d / "book-r.xlsx"


def test_import_writes_every_text_as_a_text_cell_and_recalc_keeps_it(imported):
    name, _, book, recalculated = imported
    _, fields, ids = FILES[name]
    typed = _fields(name)
    for path in (book, recalculated):
        assert _formulas_from_text(path) == []  # 0 formulas made from the file's text
        cells = _cells(path)
        assert {kind for kind, _ in cells.values()} == {"s"}, cells
        values = {v for _, v in cells.values()}
        for f in fields:  # every field reached a cell, as read (each name is one of its cell's names)
            assert any(_as_read(typed[f]) in v for v in values), (f, values)
        for i in ids:
            assert i in values, (i, values)


def test_export_writes_the_text_back_as_typed(imported):
    name, d, _, recalculated = imported
    typed = {f: _as_read(v) for f, v in _fields(name).items()}
    for fmt in ("pbn", "usebio"):
        out = d / f"out.{fmt}"
        assert main(["export", str(recalculated), "--format", fmt, "-o", str(out)]) == 0
        event = formats.read_event(out)
        texts = {event.name, event.site, event.scorer} | {p.name for p in event.participants} | {
            n for p in event.participants for n in p.names} | {p.number for p in event.participants}
        for f, v in typed.items():
            assert v in texts, (fmt, f, v, texts)
        _, _, ids = FILES[name]
        assert set(ids) <= texts


def test_publish_shows_every_text_as_typed(imported):
    name, d, _, recalculated = imported
    assert main(["publish", str(recalculated), "-o", str(d / "site")]) == 0
    pages = "".join(p.read_text(encoding="utf-8") for p in (d / "site").glob("*.html"))
    for f, v in _fields(name).items():
        assert html.escape(_as_read(v), quote=False) in pages or html.escape(_as_read(v)) in pages, f


def test_a_text_equal_to_an_error_value_is_a_text_cell(tmp_path):
    pbn = _pbn_pairs({"Event": "#N/A", "Site": "#NAME?", "Scorer": "#REF!", "Names_NS": "#DIV/0!", "Names_EW": "x",
                      "Names": "y"})
    (tmp_path / "e.pbn").write_text(pbn, encoding="utf-8")
    assert main(["import", str(tmp_path / "e.pbn"), "-o", str(tmp_path / "e.xlsx")]) == 0
    wb = openpyxl.load_workbook(tmp_path / "e.xlsx", read_only=True)
    kinds = {c.value: c.data_type for ws in wb.worksheets for row in ws.iter_rows(max_row=40) for c in row
             if getattr(c, "value", None) in ("#N/A", "#NAME?", "#REF!", "#DIV/0! & Ann")}
    wb.close()
    assert kinds == {"#N/A": "s", "#NAME?": "s", "#REF!": "s", "#DIV/0! & Ann": "s"}


def test_the_formula_check_finds_a_formula_made_from_text(tmp_path):
    """What the checks above look for is there when a text is written the way openpyxl writes it by default."""
    wb = openpyxl.Workbook()
    wb.active["C5"] = _as_read(_typed(0, "x"))
    wb.active["B5"] = IDS[0]
    wb.save(tmp_path / "f.xlsx")
    assert len(_formulas_from_text(tmp_path / "f.xlsx")) == 2
    assert {kind for kind, _ in _cells(tmp_path / "f.xlsx").values()} == {"f"}
