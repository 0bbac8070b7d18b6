"""A corpus of member mistakes (issue 52): what a member types wrong into the pairs and teams templates, each
typed into a copy of the template and run through every command that reads the book, as a member would: the
book recalculated (``xlbridge recalc``), then its output published (``xlbridge publish``) and exported
(``xlbridge export --format pbn`` and ``--format usebio``).

For every case, every command must give

- **the same verdict**: a book without a mistake is recalculated with no error and published and exported
  (exit 0); a mistake makes ``recalc`` exit 1, and ``publish`` and ``export`` either refuse it (exit 2) or
  write their output saying so (exit 0 and a warning);
- **the same input cell named**: a mistake is named at the cell the member typed (or left empty), the same
  cell by every command (``Travellers!F11``); a book without a mistake names no input cell;
- **the same numbers**: the book's Ranking (or Standings), the site's ranking, the PBN TotalScoreTable and the
  USEBIO PAIR totals hold the numbers worked by hand below (a mistaken row left out: every other row's result
  kept).

Nothing here was produced by xlbridge: every number is worked by hand from Law 77 (scores), Law 78A
(matchpoints on the 2/1 scale: 2 for each score beaten, 1 for each tie) and the Neuberg formula
(M' = (M + 1) x E / A - 1, E the expected results, A those on the board: docs/matchpoints.md, seed 001).

**The pairs session (the base of every pairs case).** A Mitchell, EBU (2/1) scale, 3 results expected per
board (the template's parameters, typed). N-S pairs 1, 2, 3; E-W pairs 11, 12, 13 (the Pairs sheet). Board 1
(none vulnerable) and board 2 (N-S vulnerable), each played three times; a top is 4:

====  =====  ===========  ========  =========  ====================
row   board  N-S v E-W    contract  N-S score  N-S / E-W matchpoints
====  =====  ===========  ========  =========  ====================
5     1      1 v 11       4S N 10   +420       2 / 2
6     1      2 v 12       4S N 11   +450       4 / 0
7     1      3 v 13       3NT S 9   +400       0 / 4
8     2      1 v 12       2H W 8    -110       0 / 4
9     2      2 v 13       3H W 8    +50        2 / 2
10    2      3 v 11       1NT N 7   +90        4 / 0
====  =====  ===========  ========  =========  ====================

(2H= by E-W not vulnerable: 110 to E-W; 3H one down not vulnerable: 50 to N-S; 1NT= vulnerable: 90.)
Totals of 8: N-S 1: 2 (25 %), 2: 6 (75 %), 3: 4 (50 %); E-W 11: 2 (25 %), 12: 4 (50 %), 13: 6 (75 %).

A mistake is typed into row 11, on a board 3 that no other row has (so that the mistaken row left out leaves
the base session's numbers: :data:`BASE`), or over a cell of the base rows where the case says so.

**The teams event (the base of every teams case).** Two matches of 7 boards (the Matches sheet), team A N-S in
room 1: match 1 Team A v Team B, match 2 Team C v Team D. IMPs by the table of Law 78B, VPs on the WBF 2013
scale for 7 boards as seed 004 publishes it (docs/corrections.md: +5 IMPs is 12.18 - 7.82).

- Match 1 (Boards rows 5-11): board 1 (none vulnerable) 420 v 420: 0; board 2 (N-S vulnerable) 620 v 600: 20,
  1 IMP to A; board 3 (E-W vulnerable) 140 v 0: 140, 4 IMPs to A (130-160); boards 4-7 passed out in both
  rooms (0 v 0). 5 - 0 IMPs: Team A 12.18 VPs, Team B 7.82.
- Match 2 (rows 12-18): board 1 420 v 420, boards 2-7 0 v 0: 0 - 0 IMPs, 10 - 10 VPs.

Standings: Team A 12.18 (IMP difference +5), Team C 10 (0), Team D 10 (0), Team B 7.82 (-5). A mistake is typed
into match 2's board 1 (row 12); left out, match 2 is still 0 - 0 on its six other boards: 10 - 10.

A case the current code gets wrong is marked ``xfail(strict=True)`` with the reason (``Case.xfail``); none is
now. The rules the last ones needed (issue 52): a pair number is read against the Pairs sheet
(:func:`xlbridge.core.travellerrow.unlisted_pair`: a whole number, or a text id the sheet lists; once the sheet
lists pairs, one of them), by the template's ``SCORE_OR_TYPED`` and the pairs reader alike; a lead of the Leads
sheet without its traveller row is named by ``recalc``'s read stage (:mod:`xlbridge.batch.read.leads`) as the
pairs reader names it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import html5lib
import pytest

from recalc_helpers import cells, recalc_here, small_build, typed
from server_helpers import run_main

# --------------------------------------------------------------------------------------------- pairs

#: (row, board, N-S, E-W, contract, declarer, tricks) of the base session
BASE_ROWS = [(5, 1, 1, 11, "4S", "N", 10), (6, 1, 2, 12, "4S", "N", 11), (7, 1, 3, 13, "3NT", "S", 9),
             (8, 2, 1, 12, "2H", "W", 8), (9, 2, 2, 13, "3H", "W", 8), (10, 2, 3, 11, "1NT", "N", 7)]
NS_PAIRS, EW_PAIRS = (1, 2, 3), (11, 12, 13)

#: {pair: (total matchpoints, the most it could score)}: the base session worked by hand (module text)
BASE = {1: (2, 8), 2: (6, 8), 3: (4, 8), 11: (2, 8), 12: (4, 8), 13: (6, 8)}


def _with(**changes: tuple[Fraction | int, int]) -> dict[int, tuple[Fraction | int, int]]:
    """:data:`BASE` with some pairs' totals changed (``p1=(4, 12)``)."""
    return {**BASE, **{int(k[1:]): v for k, v in changes.items()}}


@dataclass(frozen=True)
class Case:
    """One mistake (or a legal entry that looks like one): what is typed, and what every command must give.

    ``typed``: {cell: value} typed into the Travellers sheet over the base session (None empties a cell);
    ``named``: the input cells of which every command names one, the same one (empty: no mistake);
    ``totals``: {pair: (matchpoints, most possible)} worked by hand; ``howell``: the movement typed as Howell;
    ``leads``: rows of a Leads sheet (board, N-S, E-W, lead), as ``xlbridge import`` writes one, whose cells
    are named as ``Leads!D5``; ``params``: {parameter label: value} typed over the base session's parameters;
    ``pairs``: {cell: value} typed into the Pairs sheet (whose cells are named as ``Pairs!A11``), ``teams`` into
    the Teams sheet, ``teams_matches`` into the Matches sheet (named as ``Matches!C6``); ``unwritable``:
    the cell of a book without a mistake that ``export`` names refusing it, as neither PBN nor USEBIO can say what
    it holds (the book and ``publish`` use it)."""

    id: str
    typed: dict = field(default_factory=dict)
    named: tuple[str, ...] = ()
    totals: dict = field(default_factory=lambda: dict(BASE))
    howell: bool = False
    xfail: str | None = None
    leads: tuple = ()
    params: dict = field(default_factory=dict)
    pairs: dict = field(default_factory=dict)
    teams: dict = field(default_factory=dict)
    teams_matches: dict = field(default_factory=dict)
    unwritable: str | None = None


def _row11(board=3, ns=1, ew=11, contract=None, declarer=None, tricks=None, score=None, **more) -> dict:
    """Row 11 as a member types it (None: left empty)."""
    out = {"A11": board, "B11": ns, "C11": ew, "D11": contract, "E11": declarer, "F11": tricks, "G11": score}
    out.update(more)
    return {k: v for k, v in out.items() if v is not None}



PAIRS_CASES = [
    # ----- no mistake: legal entries a reader must take as they are
    Case("base session"),
    Case("lower case and spaces: 4s, n, ' 3nt '", {"D5": "4s", "E5": "n", "D7": " 3nt "}),
    Case("3N for 3NT", {"D7": "3N"}),
    # a board typed as text '3' (a cell formatted as text) is board 3 to every command: one result of three
    # expected, Neuberg (0 + 1) x 3 / 1 - 1 = 2 to each side of a top 4
    Case("board typed as text '3'", _row11(board="3", contract="4S", declarer="N", tricks=10),
         totals=_with(p1=(4, 12), p11=(4, 12))),
    # board 3 passed out, one result of three expected: Neuberg (0 + 1) x 3 / 1 - 1 = 2 to each side, of a top 4
    Case("passed out board", _row11(contract="PASS"), totals=_with(p1=(4, 12), p11=(4, 12))),
    # not played: no result, no top
    Case("not played NP", _row11(score="NP")),
    # artificial 60 % / 40 % of the top 4: 2.4 and 1.6
    Case("artificial A60/40", _row11(score="A60/40"),
         totals=_with(p1=(Fraction(22, 5), 12), p11=(Fraction(18, 5), 12))),
    # ----- the parameters: every command scores as the book's Ranking does
    # 4 results expected per board, 3 on each: Neuberg M' = (M + 1) x 4 / 3 - 1 of a top 6 (2 -> 3, 4 -> 17/3,
    # 0 -> 1/3): N-S 1 3 + 1/3, N-S 2 17/3 + 3, N-S 3 1/3 + 17/3; E-W 11 3 + 1/3, 12 1/3 + 17/3, 13 17/3 + 3
    Case("expected results per board 4", params={"Expected results per board": 4},
         totals={1: (Fraction(10, 3), 12), 2: (Fraction(26, 3), 12), 3: (6, 12), 11: (Fraction(10, 3), 12),
                 12: (6, 12), 13: (Fraction(26, 3), 12)}),
    # the session rule (EBU): A60 is 60 % or the pair's session percentage if higher, A40 40 % or it if lower;
    # N-S 1 and E-W 11 each have 2 of 8 (25 %) on boards 1 and 2: N-S 1 60 % of 4 = 2.4, E-W 11 25 % of 4 = 1
    Case("artificial scores by the session rule", _row11(score="A60/40"), params={"Artificial scores": "Session"},
         totals=_with(p1=(Fraction(22, 5), 12), p11=(3, 12))),
    # ----- a result cell typed over
    # 4S by N, 11 tricks, is 450 (row 6); a member types 480 over the Score NS formula. The rule chosen here:
    # results always from the row's inputs, the typed cell named (issue 52, "What to build")
    Case("score typed over the Score NS formula", {"H6": 480}, named=("H6",)),
    # 9 typed over row 6's MP NS (4S+1 by N, 450: the board's top, 4 on the 2/1 scale): not used, named by all
    Case("matchpoints typed over the MP NS formula", {"N6": 9}, named=("N6",)),
    # ----- half-filled rows
    Case("pairs but no result", _row11(), named=("D11",)),
    Case("contract without declarer", _row11(contract="4S", tricks=10), named=("E11",)),
    Case("contract without tricks", _row11(contract="4S", declarer="N"), named=("F11",)),
    Case("declarer and tricks without contract", _row11(declarer="N", tricks=10), named=("D11",)),
    Case("result without board", {k: v for k, v in _row11(contract="4S", declarer="N", tricks=10).items()
                                  if k != "A11"}, named=("A11",)),
    Case("result without E-W pair", {k: v for k, v in _row11(contract="4S", declarer="N", tricks=10).items()
                                     if k != "C11"}, named=("C11",)),
    # ----- mistyped values
    Case("tricks 14", _row11(contract="4S", declarer="N", tricks=14), named=("F11",)),
    Case("tricks as text 'ten'", _row11(contract="4S", declarer="N", tricks="ten"), named=("F11",)),
    Case("tricks 9.5", _row11(contract="4S", declarer="N", tricks=9.5), named=("F11",)),
    Case("declarer X", _row11(contract="4S", declarer="X", tricks=10), named=("E11",)),
    Case("contract 4X", _row11(contract="4X", declarer="N", tricks=10), named=("D11",)),
    Case("contract 8S", _row11(contract="8S", declarer="N", tricks=10), named=("D11",)),
    Case("board as text 'one'", _row11(board="one", contract="4S", declarer="N", tricks=10), named=("A11",)),
    Case("negative board", _row11(board=-3, contract="4S", declarer="N", tricks=10), named=("A11",)),
    Case("board 0", _row11(board=0, contract="4S", declarer="N", tricks=10), named=("A11",)),
    Case("board 2.5", _row11(board=2.5, contract="4S", declarer="N", tricks=10), named=("A11",)),
    Case("pair number as text 'one'", _row11(ns="one", contract="4S", declarer="N", tricks=10), named=("B11",)),
    Case("typed score as text", _row11(score="four twenty"), named=("G11",)),
    # 410 is no bridge score at any vulnerability (Law 77: 4S= 420, 2NT+2 180, ...)
    Case("impossible typed score 410", _row11(score=410), named=("G11",)),
    # ----- the movement
    Case("pair not in the movement", _row11(ns=7, contract="4S", declarer="N", tricks=10), named=("B11",)),
    # pair 1 played board 1 already (row 5): a second row for it on board 1
    Case("duplicate pair on a board", _row11(board=1, ns=1, ew=13, contract="4S", declarer="N", tricks=10),
         named=("B11",)),
    # a Howell: pair 1 cannot sit against itself
    Case("NS = EW in a Howell", _row11(ns=1, ew=1, contract="4S", declarer="N", tricks=10), named=("C11",),
         howell=True),
    # ----- weighted scores (Law 12C1(c))
    Case("weighted score, weight '6O%' (letter O)",
         _row11(score=420, I11=-50, K11="6O%", L11="40%"), named=("K11",)),
    Case("weighted score, weights summing to 120 %",
         _row11(score=420, I11=-50, K11=0.6, L11=0.6), named=("K11", "L11")),
    Case("weighted score, outcome without a weight", _row11(score=420, I11=-50), named=("K11", "L11")),
    # fewer results expected per board (2) than boards 1 and 2 have (3): the parameter's mistake, named once at its
    # cell by every command (an independent review found recalc naming 20,204 result cells), no matchpoints
    Case("expected results per board 2 of 3 played", params={"Expected results per board": 2},
         named=("R6",), totals={}),
    # no whole number of results expected (0): the parameter's mistake at its cell (a second review found recalc
    # naming every matchpoint cell); and 5,000, which the workbook's functions read as the readers do now
    Case("expected results per board 0", params={"Expected results per board": 0}, named=("R6",), totals={}),
    # 5,000 expected (past the cell's validation, pasted): Neuberg (M + 1) x 5000 / 3 - 1 of a top 9,998: M = 0, 2, 4
    # -> 4997/3, 4999, 24997/3; each pair's two boards, of 19,996
    Case("expected results per board 5000", params={"Expected results per board": 5000},
         totals={1: (Fraction(19994, 3), 19996), 2: (Fraction(39994, 3), 19996), 3: (9998, 19996),
                 11: (Fraction(19994, 3), 19996), 12: (9998, 19996), 13: (Fraction(39994, 3), 19996)}),
    # ----- the Leads sheet of an imported book
    Case("a lead on its traveller row", leads=((1, 1, 11, "SK"),)),
    # board 3, 1 v 11 has no traveller row: a lead without a contract
    Case("lead without contract", leads=((3, 1, 11, "SK"),), named=("Leads!D5", "Leads!A5")),
    # a lead row refused on its own (PBN's Lead: suit then rank; one lead a board and pairs; both pairs given)
    Case("lead card 'S1'", leads=((1, 1, 11, "S1"),), named=("Leads!D5",)),
    Case("two leads for one traveller row", leads=((1, 1, 11, "SK"), (1, 1, 11, "HA")), named=("Leads!D6",)),
    Case("lead without its E-W pair", leads=((1, 1, None, "SK"),), named=("Leads!C5",)),
    Case("lead without its board", leads=((None, 1, 11, "SK"),), named=("Leads!A5",)),
    # ----- found by an independent review (issue 52): a board past the Board column's 1 to 10,000, and a
    # director's typed score beside the contract played (which one counts? neither, until one is cleared)
    Case("board 10001", _row11(board=10_001, contract="4S", declarer="N", tricks=10), named=("A11",)),
    Case("contract and typed score both", _row11(contract="4S", declarer="N", tricks=10, score="A60/40"),
         named=("G11",)),
    # an E-W pair typed in the N-S column and an N-S pair in the E-W column, no arrow switch (found by an independent
    # review: every command ranked "N-S 11" and "E-W 1" as pairs of their own): named at the N-S cell
    Case("pairs in the other field's seats", _row11(ns=11, ew=1, contract="4S", declarer="N", tricks=10),
         named=("B11",)),
    # a pair that is no whole number, in the same words everywhere (the cell as typed, 1.5, not the text '1.5')
    Case("pair number 1.5", _row11(ns=1.5, contract="4S", declarer="N", tricks=10), named=("B11",)),
    # ----- the Pairs sheet (rows 5-10 list the six pairs): the Ranking keeps the first listing's names
    Case("pair listed twice on the Pairs sheet", pairs={"A11": 3, "B11": "N-S", "C11": "Ann & Bob"},
         named=("Pairs!A11",)),
    Case("a Mitchell pair without its direction", pairs={"A11": 4, "B11": "north", "C11": "Ann & Bob"},
         named=("Pairs!B11",)),
    # in a Howell a pair's number is one pair, whatever direction is typed beside it: E-W 11 listed again
    Case("a Howell pair listed twice", howell=True, pairs={"A11": 11, "B11": "EW"}, named=("Pairs!A11",)),
    # a pair listed that played no board (a late withdrawal): in no ranking, the book's or the files'
    Case("a pair listed that never played", pairs={"A11": 4, "B11": "NS", "C11": "Late & Comer"}),
    # ----- an arrow switch (Y in Arrow switch): board 2's row 8 played with the arrows switched, E-W 12 sitting N-S
    # and N-S 1 sitting E-W. The seats' scores and matchpoints are the base session's (-110 to the N-S seat: 0 and
    # 4), each going to the pair in its own field: N-S 1 scores the E-W seat's 4 (2 + 4 = 6 of 8), E-W 12 the N-S
    # seat's 0 (0 + 0). PBN and USEBIO cannot say that a row's pairs sit in the other field's seats: export
    # refuses it, naming the cell
    Case("arrow-switched row", {"B8": 12, "C8": 1, "P8": "Y"}, totals=_with(p1=(6, 8), p12=(0, 8)),
         unwritable="P8"),
    # Y on a row seated as usual (N-S 1 v E-W 12): on a switched row N-S 1 would be sitting in the E-W field's seat,
    # a mistake named at B8; row 8 left out, board 2 has two results of the 3 expected: +90 beats +50, M = 2 and 0
    # of a top 2, Neuberg (M + 1) x 3 / 2 - 1: 3.5 and 0.5 (N-S 3 and 2; E-W 11 0.5, E-W 13 3.5); board 1 as before
    Case("arrow switch on a row seated as usual", {"P8": "Y"}, named=("B8",),
         totals={1: (2, 4), 2: (Fraction(9, 2), 8), 3: (Fraction(7, 2), 8), 11: (Fraction(5, 2), 8), 12: (0, 4),
                 13: (Fraction(15, 2), 8)}),
    # a Mitchell pair listed without its direction: "no direction", never "None"
    Case("a Mitchell pair with its direction left blank", pairs={"A11": 4, "C11": "Late & Comer"},
         named=("Pairs!B11",)),
]


def _param_cells(template: Path) -> dict[str, str]:
    """{parameter label: the cell beside it} of the template's Travellers sheet (found by the labels it shows)."""
    from openpyxl.utils import get_column_letter

    sheet = cells(template)["Travellers"]
    return {v: f"{get_column_letter(c + 1)}{r}" for (r, c), v in sheet.items() if isinstance(v, str) and r < 20}


@pytest.fixture(scope="module")
def pairs_template() -> Path:
    return small_build("pairs.xlsx", 24)


def _pairs_book(template: Path, case: Case, dst: Path) -> Path:
    params = _param_cells(template)
    trav = {}
    for row, board, ns, ew, contract, declarer, tricks in BASE_ROWS:
        trav.update({f"A{row}": board, f"B{row}": ns, f"C{row}": ew, f"D{row}": contract, f"E{row}": declarer,
                     f"F{row}": tricks})
    trav.update({params["Scale"]: "EBU", params["Expected results per board"]: 3,
                 params["Movement"]: "Howell" if case.howell else "Mitchell"})
    trav.update({params[label]: value for label, value in case.params.items()})
    trav.update(case.typed)
    pairs = {}
    for i, p in enumerate(NS_PAIRS + EW_PAIRS):
        pairs[f"A{5 + i}"] = p
        pairs[f"B{5 + i}"] = None if case.howell else ("NS" if p in NS_PAIRS else "EW")
        pairs[f"C{5 + i}"] = f"Player {p}a & Player {p}b"
    pairs.update(case.pairs)
    book = typed(template, dst, {"Travellers": trav, "Pairs": pairs})
    if case.leads:  # the Leads sheet as an imported book has it: its headers on row 4, a row a lead below
        import openpyxl

        wb = openpyxl.load_workbook(book)
        ws = wb.create_sheet("Leads")
        ws["A1"] = "Leads"
        for c, head in enumerate(("Board", "NS", "EW", "Lead"), start=1):
            ws.cell(4, c, head)
        for r, row in enumerate(case.leads, start=5):
            for c, value in enumerate(row, start=1):
                ws.cell(r, c, value)
        wb.save(book)
    return book


# ------------------------------------------------------------------------------------ what commands say


def _named_cells(sheet: str, inputs: str):
    """The function giving the ``sheet`` input cells (columns ``inputs``, rows 5 on; another column only where a
    case typed over it) that a command's messages name, and any cell of a Leads or Pairs sheet (as ``Leads!D5``)."""
    pattern = re.compile(rf"\b({sheet}|Leads|Pairs|Matches)!\$?([A-Z]{{1,3}})\$?([0-9]+)\b")

    def named(text: str, typed_over: tuple[str, ...] = ()) -> set[str]:
        return {f"{col}{row}" if where == sheet else f"{where}!{col}{row}" for where, col, row in pattern.findall(text)
                if int(row) >= 5 and (where != sheet or col in inputs or f"{col}{row}" in typed_over)}

    return named


def _number(text: object) -> Fraction:
    if isinstance(text, (int, float)):
        return Fraction(text)
    return Fraction(str(text).strip().replace(",", "").rstrip("%").strip())


def _key(value: object) -> object:
    """A pair number as an int (a team name as it is)."""
    text = str(value).strip()
    found = re.findall(r"\d+", text)
    return int(found[-1]) if found and re.fullmatch(r"(NS|EW|N-S|E-W)?\s*\d+", text) else text


def _sheet_totals(sheet_name: str, key: str, fields: dict[str, str]):
    """The reader of a recalculated book's results sheet: {pair or team: {field: value}} by the sheet's headers
    (row 4), ``fields`` {field: header}."""
    def read(out: Path) -> dict:
        sheet = cells(out, data_only=True)[sheet_name]
        head = {v: c for (r, c), v in sheet.items() if r == 4 and isinstance(v, str)}
        got = {}
        for r in sorted({r for r, _ in sheet if r > 4}):
            who = sheet.get((r, head[key]))
            if who is None or isinstance(who, str) and not who.strip():
                continue
            values = {f: sheet.get((r, head[h])) for f, h in fields.items()}
            assert not any(isinstance(v, str) for v in values.values()), f"{sheet_name} row {r}: {values}"
            got[_key(who)] = {f: None if v is None else Fraction(v) for f, v in values.items()}
        return got

    return read


def _site_totals(key: str, fields: dict[str, str]):
    """The reader of the site's ranking tables (index.html): {pair or team: {field: value}} by the headers."""
    def read(site: Path) -> dict:
        doc = html5lib.parse((site / "index.html").read_text(encoding="utf-8"), namespaceHTMLElements=False)
        got = {}
        for table in doc.iter("table"):
            heads = ["".join(th.itertext()).strip() for th in table.iter("th")]
            if key not in heads or not all(h in heads for h in fields.values()):
                continue
            for tr in table.find("tbody"):
                tds = ["".join(td.itertext()).strip() for td in tr.findall("td")]
                got[_key(tds[heads.index(key)])] = {f: _number(tds[heads.index(h)]) for f, h in fields.items()}
        return got

    return read


def _pbn_totals(key: str, fields: dict[str, str]):
    """The reader of a PBN file's TotalScoreTable (PBN 2.1 section 5: a tag naming its columns, then a line a
    row), without xlbridge: {pair or team: {field: value}}."""
    def read(path: Path) -> dict:
        lines = path.read_text(encoding="utf-8").splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("[TotalScoreTable "))
        columns = [c.split("\\")[0] for c in re.search(r'"(.*)"', lines[start]).group(1).split(";")]
        got = {}
        for line in lines[start + 1:]:
            if not line.strip() or line.startswith("["):
                break
            row = dict(zip(columns, (f.strip('"') for f in re.findall(r'"[^"]*"|\S+', line))))
            got[_key(row[key])] = {f: _number(row[c]) for f, c in fields.items()}
        return got

    return read


def _usebio_pairs(path: Path) -> dict:
    """{pair: {"mp", "pct"}} of a USEBIO 1.2 file's PAIR elements, read with ElementTree."""
    got = {}
    for pair in ET.parse(path).getroot().iter("PAIR"):
        number, total, pct = (pair.findtext(t) for t in ("PAIR_NUMBER", "TOTAL_SCORE", "PERCENTAGE"))
        if number is not None and total is not None:
            got[_key(number)] = {"mp": _number(total), "pct": _number(pct)}
    return got


def _usebio_teams(path: Path) -> dict:
    """{team name: {"vps"}} of a USEBIO 1.2 file's TEAM elements (the participants: TEAM_NAME, TOTAL_SCORE)."""
    return {team.get("TEAM_NAME"): {"vps": _number(team.findtext("TOTAL_SCORE"))}
            for team in ET.parse(path).getroot().iter("TEAM")
            if team.get("TEAM_NAME") is not None and team.findtext("TOTAL_SCORE") is not None}


PAIRS_READERS = {
    "recalc": _sheet_totals("Ranking", "Pair", {"mp": "Total MP", "pct": "Percentage"}),
    "publish": _site_totals("Pair", {"mp": "Total", "pct": "%"}),
    "export pbn": _pbn_totals("PairId", {"mp": "TotalMP", "pct": "TotalPercentage"}),
    "export usebio": _usebio_pairs,
}
TEAMS_READERS = {
    "recalc": _sheet_totals("Standings", "Team", {"vps": "VPs", "imps": "IMP difference"}),
    "publish": _site_totals("Team", {"vps": "VPs", "imps": "IMPs"}),
    "export pbn": _pbn_totals("TeamName", {"imps": "TotalIMP"}),
    "export usebio": _usebio_teams,
}


def _same(got: dict, want: dict, where: str) -> None:
    """The totals ``got`` (shown with two decimals, or exact) are ``want``'s, field by field of those it has."""
    assert sorted(got, key=str) == sorted(want, key=str), f"{where}: {sorted(got, key=str)}, expected {sorted(want, key=str)}"
    for who, fields in got.items():
        for f, value in fields.items():
            assert value is not None, f"{where}: {who} {f} blank, expected {float(want[who][f]):.2f}"
            assert abs(value - want[who][f]) <= Fraction(1, 200), (
                f"{where}: {who} {f} {float(value)}, expected {float(want[who][f]):.2f}")


@dataclass
class Run:
    """What one command did: its exit code, everything it said, and the totals of what it wrote (None: nothing)."""

    code: int
    said: str
    totals: dict | None


def _commands(book: Path, tmp: Path, readers: dict) -> dict[str, Run]:
    """``book`` recalculated (once, in this process), then its output published and exported."""
    from xlbridge.core.errors import XlbridgeError

    out = tmp / f"{book.stem}-recalculated.xlsx"
    try:
        report = recalc_here(book, out)
    except XlbridgeError as exc:
        return {"recalc": Run(2, str(exc), None)}
    said = "\n".join([str(e) for e in report.errors] + list(report.warnings))
    runs = {"recalc": Run(0 if report.ok else 1, said, readers["recalc"](out))}
    for name, argv, result in (
            ("publish", ["publish", out, "-o", tmp / "site"], tmp / "site"),
            ("export pbn", ["export", out, "--format", "pbn", "-o", tmp / "e.pbn"], tmp / "e.pbn"),
            ("export usebio", ["export", out, "--format", "usebio", "-o", tmp / "e.xml"], tmp / "e.xml")):
        r = run_main(*argv, cwd=tmp)
        runs[name] = Run(r.returncode, r.stdout + r.stderr, readers[name](result) if r.returncode == 0 else None)
    return runs


def _check(case: Case, runs: dict[str, Run], want: dict, named) -> None:
    """The verdict, the cell named and the numbers of every command, as the module's text says."""
    recalc = runs["recalc"]
    assert recalc.code in (0, 1), f"recalc refused the book: {recalc.said}"
    names = {cmd: named(run.said) for cmd, run in runs.items()}
    if case.unwritable:  # no mistake, but what PBN and USEBIO cannot say: export refuses it, naming the cell
        want_codes = {cmd: 2 if cmd.startswith("export") else 0 for cmd in runs}
        assert {cmd: run.code for cmd, run in runs.items()} == want_codes, {cmd: run.said for cmd, run in runs.items()}
        assert names == {cmd: {case.unwritable} if cmd.startswith("export") else set() for cmd in runs}, names
    elif not case.named:  # no mistake
        assert {cmd: run.code for cmd, run in runs.items()} == dict.fromkeys(runs, 0), {
            cmd: run.said for cmd, run in runs.items() if run.code}
        assert names == {cmd: set() for cmd in runs}, names
    else:
        assert recalc.code == 1, f"recalc gave no error for a mistake: {recalc.said!r}"
        for cmd, run in runs.items():
            assert run.code in ((1,) if cmd == "recalc" else (0, 2)), (cmd, run.code, run.said)
            assert names[cmd] and names[cmd] <= set(case.named), f"{cmd} named {names[cmd]}: {run.said!r}"
        assert len({frozenset(n) for n in names.values()}) == 1, f"different cells named: {names}"
    for cmd, run in runs.items():
        if run.totals is not None:
            _same(run.totals, want, cmd)


def _cases(cases: list[Case]) -> list:
    return [pytest.param(c, id=c.id, marks=[pytest.mark.xfail(strict=True, reason=c.xfail)] if c.xfail else [])
            for c in cases]


@pytest.mark.parametrize("case", _cases(PAIRS_CASES))
def test_pairs_mistake(case, pairs_template, tmp_path):
    book = _pairs_book(pairs_template, case, tmp_path / "club.xlsx")
    before = book.read_bytes()
    runs = _commands(book, tmp_path, PAIRS_READERS)
    assert book.read_bytes() == before  # no input damaged
    want = {p: {"mp": Fraction(mp), "pct": Fraction(mp) * 100 / top} for p, (mp, top) in case.totals.items()}
    typed_over = tuple(c for c in case.named if c[0] in "HNO")
    _check(case, runs, want, lambda text: _named_cells("Travellers", "ABCDEFGIJKLMPR")(text, typed_over))


def test_two_rows_mistaken_apart_are_each_named_with_their_own_words(pairs_template, tmp_path):
    """Row 6 without tricks and row 7 without a declarer: recalc names each row's own empty cell in its own words
    (two rows' mistakes are not one message); publish and export stop at the first in the sheet's order, in the
    same words; the result cells of the two rows (matchpoints) are not named again."""
    case = Case("two mistakes", {"F6": None, "E7": None})
    book = _pairs_book(pairs_template, case, tmp_path / "club.xlsx")
    runs = _commands(book, tmp_path, PAIRS_READERS)
    lines = [line for line in runs["recalc"].said.splitlines() if line.startswith("Travellers!")]
    assert runs["recalc"].code == 1 and sorted(lines) == [
        "Travellers!E7: no declarer; the row is left out of the results until it is put right",
        "Travellers!F6: no tricks; the row is left out of the results until it is put right"], lines
    for cmd in ("publish", "export pbn", "export usebio"):
        assert runs[cmd].code == 2 and "Travellers!F6: no tricks" in runs[cmd].said, (cmd, runs[cmd].said)


#: the cases whose mistake every command says in the same words at the same cell (recalc adds what happens to the
#: row; publish and export stop there)
SAME_WORDS = ("contract without tricks", "tricks 14", "declarer X", "impossible typed score 410",
              "weighted score, weight '6O%' (letter O)", "weighted score, weights summing to 120 %",
              "weighted score, outcome without a weight", "teams 620 in room 1 on a board nobody is vulnerable",
              "teams weight '6O%' (letter O)", "teams weights summing to 120 %", "teams match not on the Matches sheet",
              "pair listed twice on the Pairs sheet", "a Mitchell pair without its direction", "board 10001",
              "contract and typed score both", "teams room 1 typed NP", "expected results per board 2 of 3 played",
              "pair number 1.5", "teams match number left blank", "pairs in the other field's seats",
              "arrow switch on a row seated as usual", "a Mitchell pair with its direction left blank",
              "teams a match number listed twice")


@pytest.mark.parametrize("case_id", SAME_WORDS)
def test_a_mistake_is_said_in_the_same_words_by_every_command(case_id, pairs_template, teams_template, tmp_path):
    teams = case_id.startswith("teams")
    case = next(c for c in (TEAMS_CASES if teams else PAIRS_CASES) if c.id == case_id)
    book = (_teams_book(teams_template, case, tmp_path / "league.xlsx") if teams
            else _pairs_book(pairs_template, case, tmp_path / "club.xlsx"))
    runs = _commands(book, tmp_path, TEAMS_READERS if teams else PAIRS_READERS)
    sheet = case.named[0].split("!")[0] if "!" in case.named[0] else "Boards" if teams else "Travellers"
    said = {}
    for cmd, run in runs.items():  # (what recalc adds of what the mistake does to the outputs left aside)
        found = re.findall(rf"{sheet}!([A-Z]+[0-9]+): (.+?)(?:; (?:the row is left out of the results|publish and "
                           rf"export refuse the book|no matchpoints or ranking).*)?$", run.said, re.MULTILINE)
        said[cmd] = found[0] if found else None
    assert len(set(said.values())) == 1 and said["recalc"] is not None, said


# --------------------------------------------------------------------------------------------- teams

#: (board, room 1 N-S, room 2 N-S) of each match (module text)
MATCH_1 = [(1, 420, 420), (2, 620, 600), (3, 140, 0)] + [(b, 0, 0) for b in range(4, 8)]
MATCH_2 = [(1, 420, 420)] + [(b, 0, 0) for b in range(2, 8)]
TEAMS = ("Team A", "Team B", "Team C", "Team D")

#: {team: (VPs, IMP difference)}: the base event worked by hand (module text)
TEAMS_BASE = {"Team A": (Fraction("12.18"), 5), "Team B": (Fraction("7.82"), -5), "Team C": (10, 0),
              "Team D": (10, 0)}


def _row12(match=2, board=1, room1=420, outcome2=None, outcome3=None, w1=None, w2=None, w3=None, room2=420,
           **more) -> dict:
    """Match 2's board 1 (Boards row 12) as a member types it (None: left empty)."""
    out = {"A12": match, "B12": board, "C12": room1, "D12": outcome2, "E12": outcome3, "F12": w1, "G12": w2,
           "H12": w3, "I12": room2}
    out.update(more)
    return out


TEAMS_CASES = [
    Case("teams base event", totals=dict(TEAMS_BASE)),
    # board 1 of match 2 weighted in room 1: 50 % of 420 (v 420: 0 IMPs) and 50 % of -50 (-50 - 420 = -470:
    # 10 IMPs to D, Law 78B 450-490): 0.5 x 0 + 0.5 x -10 = -5 IMPs to Team C: 7.82 - 12.18
    Case("teams weighted board", _row12(outcome2=-50, w1=0.5, w2=0.5),
         totals={**TEAMS_BASE, "Team C": (Fraction("7.82"), -5), "Team D": (Fraction("12.18"), 5)}),
    Case("teams score as text", _row12(room1="four twenty"), named=("C12",), totals=dict(TEAMS_BASE)),
    # a board not played at a table (NP) is no room's result of a match: named at the room
    Case("teams room 1 typed NP", _row12(room1="NP"), named=("C12",), totals=dict(TEAMS_BASE)),
    # the Matches sheet (found by an independent review): a team the Teams sheet does not list, a team against
    # itself (the match left out: match 2 is 0 - 0 IMPs, so the other standings stand), a match's Boards left blank
    # (its boards scored, 7, set the VP scale, as the declared 7 did)
    Case("teams a team not on the Teams sheet", teams_matches={"C6": "Team E"}, named=("Matches!C6",),
         totals={k: v for k, v in TEAMS_BASE.items() if k in ("Team A", "Team B")} | {"Team C": (10, 0),
                                                                                        "Team E": (10, 0)}),
    Case("teams a team against itself", teams_matches={"C6": "Team C"}, named=("Matches!C6",),
         totals={k: v for k, v in TEAMS_BASE.items() if k in ("Team A", "Team B")}),
    Case("teams a match's Boards left blank", teams_matches={"D6": None}, totals=dict(TEAMS_BASE)),
    # a second review: a match number listed twice (its boards counted twice by the book: Team A 12.18 + 10, Team D
    # 10 + 10; named at its cell by every command, publish and export refusing), and a match listed but not played
    # yet (no boards: in no standings, never a 10 - 10 draw; its new team Team E played nothing)
    Case("teams a match number listed twice", teams_matches={"A7": 2, "B7": "Team A", "C7": "Team D", "D7": 7},
         named=("Matches!A7",), totals={**TEAMS_BASE, "Team A": (Fraction("22.18"), 5), "Team D": (20, 0)}),
    Case("teams a match not played yet", teams_matches={"A7": 3, "B7": "Team E", "C7": "Team A", "D7": 7},
         teams={"A9": 5, "B9": "Team E"}, totals=dict(TEAMS_BASE)),
    # a board row without its match number (match 2's board 1): "no match number", at the empty cell
    Case("teams match number left blank", _row12(match=None), named=("A12",), totals=dict(TEAMS_BASE)),
    # a team listed that played no match: in no standings, the book's or the files'
    Case("teams a team listed that never played", teams={"A9": 5, "B9": "Team E"}, totals=dict(TEAMS_BASE)),
    # 410 is no bridge score at any vulnerability (Law 77)
    Case("teams impossible score 410", _row12(room1=410), named=("C12",), totals=dict(TEAMS_BASE)),
    # 620 is 4S made vulnerable (Law 77); board 1 is nobody vulnerable: 420 there. The same verdict at the board's
    # vulnerability in every command (the workbook took any vulnerability, the files the board's)
    Case("teams 620 in room 1 on a board nobody is vulnerable", _row12(room1=620), named=("C12",),
         totals=dict(TEAMS_BASE)),
    Case("teams 620 in room 2 on a board nobody is vulnerable", _row12(room2=620), named=("I12",),
         totals=dict(TEAMS_BASE)),
    Case("teams negative board", _row12(board=-1), named=("B12",), totals=dict(TEAMS_BASE)),
    Case("teams board as text 'one'", _row12(board="one"), named=("B12",), totals=dict(TEAMS_BASE)),
    Case("teams match not on the Matches sheet", _row12(match=9), named=("A12",), totals=dict(TEAMS_BASE)),
    Case("teams weight '6O%' (letter O)", _row12(outcome2=-50, w1="6O%", w2="40%"), named=("F12",),
         totals=dict(TEAMS_BASE)),
    Case("teams weights summing to 120 %", _row12(outcome2=-50, w1=0.6, w2=0.6), named=("F12", "G12"),
         totals=dict(TEAMS_BASE)),
    # one room's score only: named at the empty room, the board left out of match 2 (0 - 0 on its six others)
    Case("teams board with room 2 missing", _row12(room2=None), named=("I12",), totals=dict(TEAMS_BASE)),
    Case("teams board with room 1 missing", _row12(room1=None), named=("C12",), totals=dict(TEAMS_BASE)),
    # board 1 of match 2 typed twice (rows 12 and 19): the second is the mistake
    Case("teams board typed twice", {"A19": 2, "B19": 1, "C19": 420, "I19": 420}, named=("A19", "B19"),
         totals=dict(TEAMS_BASE)),
    # 420 v 420 is 0 IMPs; a member types 3 over the IMPs A formula: results from the row's inputs
    Case("teams IMPs typed over the formula", {"J12": 3}, named=("J12",), totals=dict(TEAMS_BASE)),
]


@pytest.fixture(scope="module")
def teams_template() -> Path:
    return small_build("teams.xlsx", 24)


def _teams_book(template: Path, case: Case, dst: Path) -> Path:
    boards = {}
    for row, (match, (board, room1, room2)) in enumerate(
            [(1, b) for b in MATCH_1] + [(2, b) for b in MATCH_2], start=5):
        boards.update({f"A{row}": match, f"B{row}": board, f"C{row}": room1, f"I{row}": room2})
    boards.update(case.typed)
    matches = {"A5": 1, "B5": "Team A", "C5": "Team B", "D5": 7, "A6": 2, "B6": "Team C", "C6": "Team D", "D6": 7}
    matches.update(case.teams_matches)
    teams = {}
    for i, name in enumerate(TEAMS):
        teams.update({f"A{5 + i}": i + 1, f"B{5 + i}": name})
    teams.update(case.teams)
    return typed(template, dst, {"Boards": boards, "Matches": matches, "Teams": teams})


@pytest.mark.parametrize("case", _cases(TEAMS_CASES))
def test_teams_mistake(case, teams_template, tmp_path):
    book = _teams_book(teams_template, case, tmp_path / "league.xlsx")
    before = book.read_bytes()
    runs = _commands(book, tmp_path, TEAMS_READERS)
    assert book.read_bytes() == before  # no input damaged
    want = {t: {"vps": Fraction(v), "imps": Fraction(i)} for t, (v, i) in case.totals.items()}
    typed_over = tuple(c for c in case.named if c[0] in "JK")
    _check(case, runs, want, lambda text: _named_cells("Boards", "ABCDEFGHI")(text, typed_over))
