"""The verdict of a traveller row as a member typed it: one reading for the workbook's functions and the file formats.

A row of a pairs traveller (the pairs workbook's Travellers sheet, :data:`~xlbridge.core.template_contract.TRAVELLER_COLUMNS`)
is blank, or holds a result, or is a **mistake**: half filled, or a cell holding what it cannot (a board 0, tricks 14,
declarer X, contract 8S, a typed score no contract makes), named at the input cell that is empty or wrong, in a
member's words. :func:`row_mistake` is that reading, once: ``SCORE_OR_TYPED`` (the Score NS column of the workbook)
says its words, ``xlbridge publish`` and ``export`` (:mod:`xlbridge.formats.pairsbook`) refuse the book with them at
the cell, and the template turns the same cell red (its conditional formats, :data:`RED_WHEN`, say the same rules in
Excel's words). What a cell may hold is the scorers' own rule, asked of them (:mod:`xlbridge.core.contract`,
:mod:`xlbridge.core.entries`), never restated here.

>>> row_mistake(1, 4, 14, None, None, None, None)
Mistake(column='Contract', words='no contract and no typed score')
>>> row_mistake(1, 4, 14, "4S", "N", None, None)
Mistake(column='Tricks', words='no tricks')
>>> row_mistake("1a", 4, 14, None, None, None, 420)
Mistake(column='Board', words="the board must be a number, not '1a'")
>>> row_mistake(1, 4, 14, "4S", "N", 14, None)
Mistake(column='Tricks', words='tricks must be a whole number 0-13, got 14')
>>> row_mistake(1, 4, 14, "PASS", None, None, None), row_mistake(None, None, None, None, None, None, None)
(None, None)
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass

from .contract import Contract, check_score, contract_score, vulnerability
from .entries import NOT_PLAYED, parse_entry
from .errors import ImpossibleScoreError, XlbridgeError, shown
from .vocabulary import Direction, Seat, UnknownSpellingError, Vulnerability

__all__ = ["Mistake", "row_mistake", "row_key", "board_row_mistake", "blank", "RED_WHEN", "reason_text", "column_named",
           "parameter_reason", "parameter_named",
           "vulnerability_words", "MAX_BOARD", "PairCheck", "listed_pairs", "unlisted_pair",
           "lead_without_row", "leads_without_rows", "lead_card", "lead_row_mistake", "room_missing",
           "score_on_board", "whole_or_words", "pairs_row_mistake", "room_not_played",
           "match_row_mistake", "listed_fields"]

#: the largest board number a book's Board column accepts (its validation), as the PBN and USEBIO readers do
MAX_BOARD = 10_000

_VULNERABLE_SIDES = {"None": "nobody", **{d.value: d.label for d in Direction}, "All": "both sides"}


def vulnerability_words(vulnerable: object) -> str:
    """A board's vulnerability as a message says it: PBN's value and who is vulnerable (the words of every reader
    of a book: the workbook's functions and the file formats).

    >>> vulnerability_words("None"), vulnerability_words("EW"), vulnerability_words("?")
    ("'None' (nobody vulnerable)", "'EW' (E-W vulnerable)", "'?'")
    """
    side = _VULNERABLE_SIDES.get(vulnerable) if isinstance(vulnerable, str) else None
    return f"{vulnerable!r} ({side} vulnerable)" if side else repr(vulnerable)

#: Each input column's rule as the template's conditional format (Excel's words, for the row's first cells
#: ``$A5`` Board, ``$B5`` NS, ``$C5`` EW, ``$D5`` Contract, ``$E5`` Declarer, ``$F5`` Tricks, ``$G5`` Typed Score):
#: the cell turns red when its row is half filled, or the cell holds what it cannot, as :func:`row_mistake` reads
#: it (a contract or a typed score the scorers cannot read is named by the row's Score NS, not turned red here).
RED_WHEN = {
    # (no board with anything else; or a board that is no whole number 1 or more: text, 0, -3, 2.5)
    "Board": ('OR(AND($A5="",COUNTA($B5:$G5)>0),'
              f'AND($A5<>"",IFERROR(OR(VALUE($A5)<1,VALUE($A5)>{MAX_BOARD},VALUE($A5)<>INT(VALUE($A5))),TRUE)))'),
    "NS": 'AND($B5="",COUNTA($A5,$C5:$G5)>0)',
    "EW": 'AND($C5="",COUNTA($A5:$B5,$D5:$G5)>0)',
    "Contract": 'AND($D5="",$G5="",COUNTA($A5:$C5,$E5:$F5)>0)',
    # (a typed score beside a contract: one of them is a mistake)
    "Typed Score": 'AND($D5<>"",$G5<>"")',
    # (a contract without a seat N, E, S or W, as a letter or a word: core.vocabulary.Seat)
    "Declarer": ('AND($D5<>"",UPPER(TRIM($D5))<>"PASS",NOT(OR(' + ",".join(
        f'UPPER(TRIM($E5))="{s}"' for s in ("N", "E", "S", "W", "NORTH", "EAST", "SOUTH", "WEST")) + ")))"),
    # (a contract without tricks, or tricks that are no whole number 0-13: 14, 9.5, text)
    "Tricks": ('AND($D5<>"",UPPER(TRIM($D5))<>"PASS",OR($F5="",NOT(ISNUMBER($F5)),'
               'IFERROR(OR($F5<0,$F5>13,$F5<>INT($F5)),TRUE)))'),
}


def reason_text(mistake: Mistake) -> str:
    """The reason a row function (``SCORE_OR_TYPED``) gives for a mistake: its words, then the input column to put
    right, which :func:`column_named` reads back (so that a report can name the input cell of the row: the header
    of that column on the row's sheet).

    >>> reason_text(Mistake("Tricks", "no tricks"))
    'no tricks (column Tricks)'
    """
    return f"{mistake.words} (column {mistake.column})"


def column_named(reason: str) -> tuple[str, str] | None:
    """``(column header, words)`` of a reason made by :func:`reason_text` (also inside a longer message, at its end),
    or None.

    The words are what follows the function's name and a row count (``WEIGHTED_MP: row 7: ``), which a member does
    not need: the report names the sheet's row.

    >>> column_named("SCORE_OR_TYPED: no tricks (column Tricks)"), column_named("impossible score: 410")
    (('Tricks', 'no tricks'), None)
    >>> column_named("WEIGHTED_IMPS: row 8: no score (column Room 1 NS (team A NS))")
    ('Room 1 NS (team A NS)', 'no score')
    >>> column_named("WEIGHTED_MP: row 7: impossible score for vulnerability 'EW' (E-W vulnerable): 410 (column Typed Score)")
    ('Typed Score', "impossible score for vulnerability 'EW' (E-W vulnerable): 410")
    """
    m = re.search(r"^(?:[A-Z][A-Z0-9_.]*: )?(?:(?:board [^,:]+, )?row [0-9,]+: )?(.*?) "
                  r"\(column ((?:[^()]|\([^()]*\))+)\)$", reason, re.S)
    return None if m is None else (m.group(2), m.group(1))


def parameter_reason(words: str, label: str) -> str:
    """The reason a function gives for a mistake of a template's parameter (its ``label``, e.g. ``Expected results
    per board``) rather than of a row: its words, then the parameter, which :func:`parameter_named` reads back (so
    that a report names the parameter's cell once, not every result cell showing it).

    >>> parameter_reason("board 1: expected 2 results but there are 3", "Expected results per board")
    'board 1: expected 2 results but there are 3 (parameter Expected results per board)'
    """
    return f"{words} (parameter {label})"


def parameter_named(reason: str) -> tuple[str, str] | None:
    """``(parameter label, words)`` of a reason made by :func:`parameter_reason` (also after a function's name), or
    None.

    >>> parameter_named("WEIGHTED_MP: board 1: expected 2 results but there are 3 (parameter Expected results per board)")
    ('Expected results per board', 'board 1: expected 2 results but there are 3')
    >>> parameter_named("no tricks (column Tricks)")
    """
    m = re.search(r"^(?:[A-Z][A-Z0-9_.]*: )?(.*?) \(parameter ([^()]+)\)$", reason, re.S)
    return None if m is None else (m.group(2), m.group(1))


@dataclass(frozen=True)
class Mistake:
    """What is wrong with a row: the input ``column`` to put right (a header of the Travellers sheet) and ``words``
    saying what is wrong there."""

    column: str
    words: str


def blank(value: object) -> bool:
    """True for an empty cell: None, or text of spaces only.

    >>> blank(None), blank("  "), blank(0)
    (True, True, False)
    """
    return value is None or (isinstance(value, str) and not value.strip())


def _number(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float, Vulnerability)):  # (a board, or its vulnerability already read)
        return True
    try:
        float(str(value).strip())
    except ValueError:
        return False
    return True


def row_mistake(board: object, ns: object, ew: object, contract: object, declarer: object, tricks: object,
                typed: object, *, pairs: bool = True) -> Mistake | None:
    """The first mistake of a traveller row as typed, or None (a blank row, or a row holding a result).

    In order: the board (none, or text that is no number), the pairs (``pairs=False``: not checked, for a caller
    that is not given them), then the result: neither a contract nor a typed score; both (which one counts?); a
    contract (not ``PASS``)
    without its declarer or its tricks. Then what each cell holds, as the scorers read it: the board a whole number
    from 1 to :data:`MAX_BOARD` (or a :class:`~xlbridge.core.vocabulary.Vulnerability`, a board already read), the
    contract
    (:meth:`Contract.parse <xlbridge.core.contract.Contract.parse>`), the declarer's seat, the tricks (0-13), and a
    typed score (:func:`~xlbridge.core.entries.parse_entry`) that some contract makes on the board
    (:func:`~xlbridge.core.contract.check_score`, Law 77).

    >>> row_mistake(1, None, 14, "4S", "N", 10, None)
    Mistake(column='NS', words='no N-S pair')
    >>> row_mistake(1, None, None, "4S", None, 10, None, pairs=False)
    Mistake(column='Declarer', words='no declarer')
    >>> row_mistake(2.5, 4, 14, "4S", "N", 10, None)
    Mistake(column='Board', words='the board must be a whole number 1 or more, not 2.5')
    >>> row_mistake(3, 4, 14, None, None, None, 410).words
    "impossible score for vulnerability 'EW' (E-W vulnerable): 410"
    >>> row_mistake(10_001, 4, 14, "4S", "N", 10, None).words
    'board number must be a whole number from 1 to 10,000, got 10001'
    >>> row_mistake(3, 4, 14, "4S", "N", 10, "A60/40").column
    'Typed Score'
    """
    cells = (board, ns, ew, contract, declarer, tricks, typed)
    if all(blank(c) for c in (cells if pairs else (board, contract, declarer, tricks, typed))):
        return None
    if blank(board):
        return Mistake("Board", "no board number")
    if not _number(board):
        return Mistake("Board", f"the board must be a number, not {shown(board)}")
    if pairs and blank(ns):
        return Mistake("NS", "no N-S pair")
    if pairs and blank(ew):
        return Mistake("EW", "no E-W pair")
    passed = not blank(contract) and str(contract).strip().upper() == "PASS"
    if blank(contract):
        if blank(typed):
            return Mistake("Contract", "no contract and no typed score")
    elif not blank(typed):  # (a director's adjusted score beside the contract played: which one counts?)
        return Mistake("Typed Score", "a contract and a typed score: keep one (a typed score is for a board "
                                      "without a contract, such as an artificial score)")
    elif not passed:
        if blank(declarer):
            return Mistake("Declarer", "no declarer")
        if blank(tricks):
            return Mistake("Tricks", "no tricks")
    return _wrong_value(board, contract, declarer, tricks, typed, passed)


#: the kinds of cell :func:`row_key` remembers a row by (a number, text, logical or blank)
_PLAIN_CELLS = frozenset({int, float, str, bool, type(None)})


def row_key(contract: object, declarer: object, tricks: object, board: object, typed: object, number: object,
            ns: object, ew: object) -> tuple[object, ...] | None:
    """What decides a traveller row's verdict (:func:`row_mistake`, then its score or its typed score passed
    through): its result cells and their kinds (TRUE is 1 in Python, not in a cell), whether each pair is blank (the
    only thing :func:`row_mistake` asks of them), and its board; a board number from 1 to :data:`MAX_BOARD` by its
    vulnerability alone (``board``: what the row is scored at; none of :func:`row_mistake`'s words name the number:
    keep it so, or change this key with them). None for a row of other kinds of cell (not to be remembered).
    SCORE_OR_TYPED decides rows alike once: a season of 10,000 rows on 1,000 boards scores about 1,500 rows.

    >>> v1, v17 = vulnerability(1), vulnerability(17)
    >>> row_key("4S", "N", 10, v1, None, 1.0, 3, 4) == row_key("4S", "N", 10, v17, None, 17, 5, 6)
    True
    >>> row_key("4S", "N", 10, v1, None, 1, 3, 4) == row_key("4S", "N", 10, v1, None, 1, 3, " ")
    False
    >>> row_key("4S", "N", 1, v1, None, 1, 3, 4) == row_key("4S", "N", True, v1, None, 1, 3, 4)
    False
    """
    # (a typed score passes through as typed: -0.0 is not 0.0 there, though the two compare equal)
    cells = (contract, declarer, tricks, repr(typed) if type(typed) is float and typed == 0 else typed)
    kinds = (type(contract), type(declarer), type(tricks), type(typed))
    if not _PLAIN_CELLS.issuperset(kinds):
        return None
    kind = type(number)
    if ((kind is int or kind is float) and isinstance(number, (int, float)) and 1 <= number <= MAX_BOARD
            and number == int(number) and isinstance(board, Vulnerability)):
        at: tuple[object, ...] = ("vulnerability", board)
    elif kind in _PLAIN_CELLS:
        at = ("number", number, kind, type(board), board)
    else:
        return None
    return (cells, kinds, at, blank(ns), blank(ew))


def _wrong_value(board: object, contract: object, declarer: object, tricks: object, typed: object,
                 passed: bool) -> Mistake | None:
    """The first cell of a filled row holding what it cannot (the scorers' rules), or None."""
    try:
        vul = vulnerability(_board(board))
    except XlbridgeError:
        return Mistake("Board", f"the board must be a whole number 1 or more, not {shown(board)}")
    number = _board(board)
    if isinstance(number, (int, float)) and number > MAX_BOARD:  # (the readers' bound: the Board column's validation)
        return Mistake("Board", str(_whole(board, "board number", MAX_BOARD)))  # (the readers' words, every sheet)
    if blank(contract):
        try:
            entry = parse_entry(typed)
            if isinstance(entry, int):
                check_score(entry, vul)
        except ImpossibleScoreError:
            return Mistake("Typed Score", f"impossible score for vulnerability {vulnerability_words(vul.name)}: "
                                          f"{shown(typed)}")
        except XlbridgeError as exc:
            return Mistake("Typed Score", _words(exc))
        return None
    try:
        parsed = Contract.parse(contract)
    except XlbridgeError as exc:
        return Mistake("Contract", _words(exc))
    if passed or parsed.is_pass:
        return None
    try:
        Seat.parse(declarer)
    except (UnknownSpellingError, XlbridgeError, TypeError, ValueError):
        return Mistake("Declarer", f"declarer must be N, E, S or W, got {shown(declarer)}")
    try:
        contract_score(parsed, tricks, False)
    except XlbridgeError as exc:
        return Mistake("Tricks", _words(exc))
    return None


def _board(board: object) -> object:
    """A board cell as :func:`~xlbridge.core.contract.vulnerability` reads a board number: a whole number (text of
    digits too); a vulnerability already read as it is; anything else as it is (refused there)."""
    if isinstance(board, Vulnerability):
        return board
    t = board.strip() if isinstance(board, str) else None
    if t is not None and t.isascii() and t.isdigit() and len(t) <= 18:  # ("²": text, refused there)
        return int(t)
    if isinstance(board, str):  # (a vulnerability's name is no board a member types)
        return None
    return board


def _words(exc: Exception) -> str:
    """An error's message as a row's words: one line, without a trailing full stop."""
    return " ".join(str(exc).split()).rstrip(".")


def _whole(value: object, what: str, high: int | None = None) -> int | str:
    """``value`` as a positive whole number (at most ``high``), or the words saying it is not one (those of the
    file formats' readers: :func:`xlbridge.formats.sheets.whole_number`)."""
    v = value
    t = v.strip() if isinstance(v, str) else None
    if t is not None and t.isascii() and t.isdigit() and len(t) <= 18:  # as the readers key a number ("²": text)
        v = int(t)
    if (not isinstance(v, (int, float)) or isinstance(v, bool) or (isinstance(v, float) and not math.isfinite(v))
            or v != int(v) or v < 1 or (high is not None and v > high)):
        bound = "a positive whole number" if high is None else f"a whole number from 1 to {high:,}"
        return f"{what} must be {bound}, got {shown(value)}"
    return int(v)


def whole_or_words(value: object, what: str, high: int | None = None) -> int | str:
    """``value`` (a cell: a number, or text of ASCII digits as a member may type a board) as a positive whole number
    at most ``high``, or the words saying it is not one: the one reading of a board, match or team number by the
    workbook's functions and the file formats' readers alike.

    >>> whole_or_words(" 2", "board number", 10_000), whole_or_words(2.0, "board number")
    (2, 2)
    >>> whole_or_words("2a", "board number", 10_000)
    "board number must be a whole number from 1 to 10,000, got '2a'"
    """
    return _whole(value, what, high)


def board_row_mistake(match: object, board: object, matches: Collection[int] | None = None,
                      seen: set[tuple[int, int]] | None = None) -> Mistake | None:
    """The mistake of a teams board row's match and board (the teams workbook's Boards sheet), or None: each a whole
    number (the board at most :data:`MAX_BOARD`), the match one of ``matches`` (the Matches sheet's, when given), and
    the pair (match, board) not met before in ``seen`` (which it joins). The words are the file formats' readers'.

    >>> board_row_mistake(2, -1)
    Mistake(column='Board', words='board number must be a whole number from 1 to 10,000, got -1')
    >>> seen = set()
    >>> board_row_mistake(2, 1, {1, 2}, seen), board_row_mistake(9, 1, {1, 2}, seen)
    (None, Mistake(column='Match', words='match 9 is not on the Matches sheet'))
    >>> board_row_mistake(2, 1.0, {1, 2}, seen)
    Mistake(column='Board', words='board 1 of match 2 is listed twice')
    >>> board_row_mistake("", 3), board_row_mistake(1, None)
    (Mistake(column='Match', words='no match number'), Mistake(column='Board', words='no board number'))
    """
    if blank(match):
        return Mistake("Match", "no match number")
    if blank(board):
        return Mistake("Board", "no board number")
    m = _whole(match, "match number")
    if isinstance(m, str):
        return Mistake("Match", m)
    if matches is not None and m not in matches:
        return Mistake("Match", f"match {m} is not on the Matches sheet")
    b = _whole(board, "board number", MAX_BOARD)
    if isinstance(b, str):
        return Mistake("Board", b)
    if seen is not None:
        if (m, b) in seen:
            return Mistake("Board", f"board {b} of match {m} is listed twice")
        seen.add((m, b))
    return None


def score_on_board(score: object, board: object, column: str, typed: object = None) -> Mistake | None:
    """The mistake of an N-S ``score`` (points, as read) that no contract makes at the vulnerability of ``board`` (the
    standard cycle; Law 77), named at ``column`` showing ``typed`` (the cell's value; default the score), or None (a
    score that is no number of points, an artificial score, a board that is no number: another check's). The words
    of the file formats' readers, for a teams room as for a pairs Typed Score.

    >>> score_on_board(620, 1, "Room 1").words, score_on_board(620, 2, "Room 1"), score_on_board("A60/40", 1, "R")
    ("impossible score for vulnerability 'None' (nobody vulnerable): 620", None, None)
    """
    if not isinstance(score, int) or isinstance(score, bool):
        return None
    try:
        vul = vulnerability(_board(board))
    except XlbridgeError:  # (a board that is no number: the board's own mistake)
        return None
    try:
        check_score(score, vul)
    except ImpossibleScoreError:
        return Mistake(column, f"impossible score for vulnerability {vulnerability_words(vul.name)}: "
                               f"{shown(score if typed is None else typed)}")
    except XlbridgeError as exc:  # (a score beyond any, in the scorers' words)
        return Mistake(column, _words(exc))
    return None


def room_missing(room1: object, room2: object, columns: tuple[str, str]) -> Mistake | None:
    """The mistake of a teams board row with one room's score only (``room1``, ``room2``: its two rooms' N-S scores
    as typed; ``columns``: their headers), or None: named at the empty room, the board left out of its match until
    both rooms are in (by the teams workbook's ``WEIGHTED_IMPS`` and the file formats' reader alike). A row with
    neither room is a board not yet typed in, no mistake.

    >>> room_missing(420, None, ("Room 1", "Room 2")).words
    'no score in room 2: the board counts when both rooms are in'
    >>> room_missing(None, None, ("Room 1", "Room 2")), room_missing(" ", 420, ("Room 1", "Room 2")).column
    (None, 'Room 1')
    """
    one, two = blank(room1), blank(room2)
    if one == two:
        return None
    k = 1 if one else 2
    return Mistake(columns[k - 1], f"no score in room {k}: the board counts when both rooms are in")


def match_row_mistake(team_a: object, team_b: object, listed: Collection[str], match: object = None,
                      seen: set[int] | None = None) -> Mistake | None:
    """The mistake of a row of a teams book's Matches sheet (its ``Team A`` and ``Team B`` cells), or None: a team
    name missing, a team the Teams sheet does not list (``listed``: the names it lists, a blank name as ``Team
    <number>``; empty: any name is a team), a team against itself. A row without either team is no row.
    ``xlbridge recalc``, ``publish`` and ``export`` name it at the cell, in these words; the book's Standings leaves
    a match with a team missing, or against itself, out (a team the Teams sheet does not list it ranks, and
    ``publish`` and ``export`` refuse the book).

    >>> match_row_mistake("Team A", "Team A", ()), match_row_mistake(" Team C", "Team E", {"Team C", "Team D"})
    (Mistake(column='Team B', words="a team cannot play against itself: 'Team A'"), Mistake(column='Team B', words="a team the Teams sheet does not list: 'Team E'"))
    >>> match_row_mistake("Team A", None, ()), match_row_mistake(None, None, ()), match_row_mistake("A", "B", ())
    (Mistake(column='Team B', words='team name missing'), None, None)

    Given the row's ``match`` number and ``seen`` (the numbers of the rows above, which it joins), a match number
    that is none, or one listed again, is the row's mistake first (its boards would be counted twice):

    >>> seen = set()
    >>> match_row_mistake("A", "B", (), 2, seen), match_row_mistake("A", "D", (), 2.0, seen)
    (None, Mistake(column='Match', words='match 2 is listed twice'))
    """
    if blank(team_a) and blank(team_b) and blank(match):
        return None
    if seen is not None:
        if blank(match):
            return Mistake("Match", "no match number")
        m = _whole(match, "match number")
        if isinstance(m, str):
            return Mistake("Match", m)
        if m in seen:
            return Mistake("Match", f"match {m} is listed twice")
        seen.add(m)
    if blank(team_a) and blank(team_b):
        return None
    for column, team in (("Team A", team_a), ("Team B", team_b)):
        if blank(team):
            return Mistake(column, "team name missing")
        if listed and str(team).strip() not in listed:
            return Mistake(column, f"a team the Teams sheet does not list: {shown(str(team).strip())}")
    if str(team_a).strip() == str(team_b).strip():
        return Mistake("Team B", f"a team cannot play against itself: {shown(str(team_b).strip())}")
    return None


def room_not_played(entry: object, cell: object, column: str) -> Mistake | None:
    """The mistake of a teams room's N-S score read as ``NP`` (``entry``: the cell read by
    :func:`~xlbridge.core.entries.parse_entry`; ``cell`` as typed, in the room's ``column``), or None: a board not
    played at a table is no room's result in a match (leave both rooms blank, or give an artificial score).

    >>> room_not_played(parse_entry("np"), "np", "Room 1 NS").words, room_not_played(420, 420, "Room 1 NS")
    ("cannot read the room's N-S score: 'np'", None)
    """
    if entry is NOT_PLAYED:
        return Mistake(column, f"cannot read the room's N-S score: {shown(cell)}")
    return None


def listed_pairs(cells: Iterable[object]) -> frozenset[object]:
    """The pairs a Pairs sheet lists (its Pair column's cells, blanks skipped), keyed as the readers key a pair: a
    whole number as an int (``1.0``, ``"1"``), other text stripped (an imported book's text ids, ``"A1"``).

    >>> sorted(listed_pairs([1.0, "2", None, " ", "A1 "]), key=str)
    [1, 2, 'A1']
    """
    return frozenset(_pair(c) for c in cells if not blank(c))


def listed_fields(rows: Iterable[tuple[object, object]]) -> dict[object, frozenset[Direction]]:
    """{pair: the fields a Pairs sheet lists it in} from its (Pair, Direction) rows, keyed as :func:`listed_pairs`
    keys a pair; a row without a direction the readers read (:meth:`~xlbridge.core.vocabulary.Direction.parse`)
    gives none (its mistake is :func:`pairs_row_mistake`'s). Empty for a Howell's sheet, which gives no directions.

    >>> found = listed_fields([(1, "NS"), ("1", "E-W"), (11, "ew"), (12, None), (None, "NS")])
    >>> {pair: sorted(fields) for pair, fields in found.items()}
    {1: ['EW', 'NS'], 11: ['EW']}
    """
    out: dict[object, set[Direction]] = {}
    for number, direction in rows:
        if blank(number) or blank(direction):
            continue
        try:
            field = Direction.parse(direction)
        except (UnknownSpellingError, XlbridgeError):
            continue
        out.setdefault(_pair(number), set()).add(field)
    return {k: frozenset(v) for k, v in out.items()}


def unlisted_pair(column: str, value: object, listed: Collection[object]) -> Mistake | None:
    """The mistake of a pair number typed on a traveller (``column``: ``"NS"`` or ``"EW"``), read against the pairs
    the book's Pairs sheet lists (``listed``: :func:`listed_pairs`), or None.

    The rule (a tournament director's): a pair is a whole number 1 or more, or a text id that the Pairs sheet lists
    (an imported USEBIO book's ids); when the Pairs sheet lists pairs, a pair not on it is a mistake (a pair number
    mistyped would otherwise be ranked as a pair of its own); with an empty Pairs sheet any whole number is a pair.
    A pair is one number whichever field it sits in (a Mitchell's direction, and an arrow switch, are the
    Ranking's to read).

    >>> unlisted_pair("NS", 7, {1, 2, 11, 12}), unlisted_pair("NS", 7.0, set()), unlisted_pair("EW", "A1", {"A1"})
    (Mistake(column='NS', words='N-S pair 7 is not on the Pairs sheet'), None, None)
    >>> unlisted_pair("NS", "one", {1, 2}).words
    "the N-S pair must be a whole number 1 or more, or a pair on the Pairs sheet, not 'one'"
    """
    return _unlisted(column, value, _pair(value), listed)


def _unlisted(column: str, value: object, key: object, listed: Collection[object]) -> Mistake | None:
    """:func:`unlisted_pair` of a pair already read (``key``: ``_pair(value)``)."""
    if key in listed:
        return None
    side = "N-S" if column == "NS" else "E-W"
    if not isinstance(key, int):
        return Mistake(column, f"the {side} pair must be a whole number 1 or more, or a pair on the Pairs sheet, "
                               f"not {shown(value)}")
    if listed:
        return Mistake(column, f"{side} pair {key} is not on the Pairs sheet")
    return None


class PairCheck:
    """The mistakes of a traveller's pairs that only the rows together show, read row by row in the sheet's order
    (the workbook's ``SCORE_OR_TYPED`` and the file formats' reader alike): a pair that is no whole number and not
    on the Pairs sheet, or not on a Pairs sheet that lists pairs (``listed``: :func:`listed_pairs`; None: not
    checked, for a caller not given the sheet; :func:`unlisted_pair`), a row typed twice, a pair playing a board
    twice (the later row is the mistake), a pair against itself in a Howell (one field: 1 v 1 is one pair twice; a
    Mitchell's N-S 1 and E-W 1 are two pairs). Named at the row's NS cell (its EW cell for a pair against itself, or
    for the E-W pair playing twice), in the file formats' words (:func:`xlbridge.formats.checks.check_board`).

    >>> PairCheck(howell=False, listed=listed_pairs([1, 2, 11, 12])).row(3, 1, 13)
    Mistake(column='EW', words='E-W pair 13 is not on the Pairs sheet')

    >>> check = PairCheck(howell=False)
    >>> check.row(1, 1, 11), check.row(1, 2.0, 12), check.row(1, 1, 12)
    (None, None, Mistake(column='NS', words="pair plays board 1 twice: 'NS 1'"))
    >>> check.row(1, "2", 12)
    Mistake(column='NS', words="duplicate row on board 1: pairs '2-12'")
    >>> PairCheck(howell=True).row(1, 3, 3.0)
    Mistake(column='EW', words="board 1: a pair cannot play against itself: '3'")
    """

    def __init__(self, *, howell: bool, listed: Collection[object] | None = None,
                 fields: Mapping[object, frozenset[Direction]] | None = None) -> None:
        self.howell = howell
        self.listed = listed
        self.fields = fields
        self.rows: set[tuple[object, object, object]] = set()
        self.seen: set[tuple[object, object]] = set()
        self._read_cells: dict[tuple[str, type, object], object] = {}  # (kind, cell) -> its reading

    def _read(self, kind: str, value: object) -> object:
        """A pair cell as the readers key it (``kind`` "pair": :func:`_pair`) or a board cell as a whole number or the
        words saying it is none (``kind`` "board"), read once per distinct cell (a traveller repeats its boards and
        pairs). Only a whole number, a text or a float other than zero and NaN is remembered: cells of other kinds
        that compare equal may read apart (-0.0 and 0.0, ``Decimal("1")`` and ``Decimal("1.0")``)."""
        kind_of = type(value)
        if kind_of is int or kind_of is str or (kind_of is float and value != 0 and value == value):
            key = (kind, kind_of, value)
            got = self._read_cells.get(key, self._read_cells)
            if got is self._read_cells:
                got = self._read_cells[key] = _pair(value) if kind == "pair" else _whole(value, "board number")
            return got
        return _pair(value) if kind == "pair" else _whole(value, "board number")

    def row(self, board: object, ns: object, ew: object, switched: bool = False) -> Mistake | None:
        """The mistake of the next row's pairs (blank pairs are :func:`row_mistake`'s), or None. In a Mitchell whose
        Pairs sheet gives the pairs' directions (``fields``: :func:`listed_fields`), a pair seated in the other field
        than the one the sheet lists it in (``switched``: the row was played with the arrows switched, its N-S seat
        the E-W field's) is a mistake too: a N-S pair typed in the E-W column would be ranked as a pair of its own.

        >>> check = PairCheck(howell=False, fields=listed_fields([(1, "NS"), (11, "EW")]))
        >>> check.row(1, 11, 1).words
        'pair 11 is an E-W pair on the Pairs sheet, but sits N-S (Y in Arrow switch if the row was played with the arrows switched)'
        >>> check.row(4, 1, 11, switched=True).words
        "pair 1 is an N-S pair on the Pairs sheet, but sits N-S (on a row played with the arrows switched, where the N-S seat is the E-W field's)"
        >>> check.row(2, 11, 1, switched=True), check.row(3, 1, 11, switched=True).column
        (None, 'NS')
        """
        b = self._read("board", board)
        if blank(ns) or blank(ew) or isinstance(b, str):
            return None
        # (each cell read where the checks come to it: a mistake of the N-S pair is named before the E-W cell is read)
        if self.listed is not None:
            for column, value in (("NS", ns), ("EW", ew)):
                mistake = _unlisted(column, value, self._read("pair", value), self.listed)
                if mistake is not None:
                    return mistake
        if self.fields and not self.howell:
            for column, seat, value in (("NS", Direction.NS, ns), ("EW", Direction.EW, ew)):
                field = seat.other if switched else seat
                listed_in = self.fields.get(self._read("pair", value))
                if listed_in and field not in listed_in:
                    why = (f"on a row played with the arrows switched, where the {seat.label} seat is the "
                           f"{field.label} field's" if switched else
                           "Y in Arrow switch if the row was played with the arrows switched")
                    return Mistake(column, f"pair {_brief(value)} is an {field.other.label} pair on the Pairs sheet, "
                                           f"but sits {seat.label} ({why})")
        n, e = self._read("pair", ns), self._read("pair", ew)
        if (b, n, e) in self.rows:
            return Mistake("NS", f"duplicate row on board {b}: pairs {shown(f'{n}-{e}')}")
        self.rows.add((b, n, e))
        if self.howell and n == e:
            return Mistake("EW", f"board {b}: a pair cannot play against itself: {shown(str(n))}")
        for column, side, p in (("NS", Direction.NS, n), ("EW", Direction.EW, e)):
            key: object = p if self.howell else (side.value, p)
            if (key, b) in self.seen:
                return Mistake(column, f"pair plays board {b} twice: {shown(str(p) if self.howell else f'{side.value} {p}')}")
        for side, p in ((Direction.NS, n), (Direction.EW, e)):
            self.seen.add((p if self.howell else (side.value, p), b))
        return None


_RANKS, _SUITS = "AKQJT98765432", "SHDC"


def pairs_row_mistake(number: object, direction: object, mitchell: bool, seen: set[tuple[object, object]]
                      ) -> Mistake | None:
    """The mistake of a row of a book's Pairs sheet (Pair, Direction: the pair's number and, in a Mitchell, its
    field), or None: in a Mitchell a direction the readers read (``NS``, ``N-S``, ``N/S``, ``N`` and the E-W
    ones: :meth:`~xlbridge.core.vocabulary.Direction.parse`), and a pair listed once (``seen``: the pairs of the
    rows above, which it joins; in a Mitchell N-S 1 and E-W 1 are two pairs). A row without a pair number is no
    row. The later listing is the mistake: the book's Ranking takes the names of the first. ``xlbridge recalc``,
    ``publish`` and ``export`` name it at the cell (column ``Pair`` or ``Direction``), in these words.

    >>> seen = set()
    >>> pairs_row_mistake(3, "NS", True, seen), pairs_row_mistake(3.0, "EW", True, seen)
    (None, None)
    >>> pairs_row_mistake("3", "N-S", True, seen)
    Mistake(column='Pair', words='pair 3 N-S is listed twice (the Ranking shows the names of its first row)')
    >>> pairs_row_mistake(4, "north", True, seen).words
    "the direction must be NS or EW in a Mitchell, not 'north'"
    >>> pairs_row_mistake(3, None, False, set()), pairs_row_mistake(None, "x", True, seen)
    (None, None)
    """
    if blank(number):
        return None
    field: Direction | None = None
    if mitchell:
        if blank(direction):
            return Mistake("Direction", "no direction (NS or EW in a Mitchell)")
        try:
            field = Direction.parse(direction)
        except UnknownSpellingError:
            return Mistake("Direction", f"the direction must be NS or EW in a Mitchell, not {shown(direction)}")
    key = (field, _pair(number))
    if key in seen:
        return Mistake("Pair", f"pair {_brief(number)}{' ' + field.label if field else ''} is listed twice "
                               f"(the Ranking shows the names of its first row)")
    seen.add(key)
    return None


def lead_card(text: object) -> str | None:
    """A lead card as suit then rank (``"SK"``), from ``SK``, ``KS``, ``s10``, ``10S`` (PBN's ``Lead``: suit then
    rank, ``T`` for the ten); None when it is no card.

    >>> lead_card("kS"), lead_card("h10"), lead_card("TD"), lead_card("S1")
    ('SK', 'HT', 'DT', None)
    """
    t = str(text).strip().upper().replace("10", "T")
    if len(t) == 2:
        if t[0] in _SUITS and t[1] in _RANKS:
            return t
        if t[1] in _SUITS and t[0] in _RANKS:
            return t[1] + t[0]
    return None


def lead_row_mistake(board: object, ns: object, ew: object, lead: object, seen: set[tuple[object, ...]]) -> Mistake | None:
    """The mistake of a row of an imported book's Leads sheet (``xlbridge import`` writes one: Board, NS, EW, Lead),
    or None: the board a whole number from 1 to :data:`MAX_BOARD`, both pairs given, one lead for a board and pairs
    (``seen``: the rows' (board, N-S, E-W) met before, which it joins), a lead that is a card. ``xlbridge recalc``,
    ``publish`` and ``export`` name it at the cell, in these words.

    >>> seen = set()
    >>> lead_row_mistake(1, 1, 11, "sk", seen), lead_row_mistake(1.0, "1", 11, "HA", seen)
    (None, Mistake(column='Lead', words='a second lead for board 1, 1 v 11'))
    >>> lead_row_mistake(0, 1, 11, "SK", seen).words, lead_row_mistake(2, 1, None, "SK", seen)
    ('board number must be a whole number from 1 to 10,000, got 0', Mistake(column='EW', words='pair number missing'))
    >>> lead_row_mistake(3, 1, 11, "S1", seen).words, lead_row_mistake(None, 1, 11, "SK", seen).words
    ("cannot read lead card (expected e.g. SK, H7): 'S1'", 'board number missing')
    """
    b = "board number missing" if blank(board) else _whole(board, "board number", MAX_BOARD)
    if isinstance(b, str):
        return Mistake("Board", b)
    for column, p in (("NS", ns), ("EW", ew)):
        if blank(p):
            return Mistake(column, "pair number missing")
    key = (b, _pair(ns), _pair(ew))
    if key in seen:
        return Mistake("Lead", f"a second lead for board {b}, {_brief(ns)} v {_brief(ew)}")
    seen.add(key)
    if not blank(lead) and lead_card(lead) is None:
        return Mistake("Lead", f"cannot read lead card (expected e.g. SK, H7): {shown(lead)}")
    return None


def lead_without_row(board: object, ns: object, ew: object) -> Mistake:
    """The mistake of a lead on an imported book's Leads sheet (``xlbridge import`` writes one) for a traveller row
    the Travellers sheet does not have: a lead without a contract, named at the lead's cell (column ``Lead``) by
    ``xlbridge recalc``, ``publish`` and ``export`` alike.

    >>> lead_without_row(3.0, "1", 11).words
    'a lead for a row the Travellers sheet does not have (board 3, 1 v 11)'
    >>> lead_without_row(3, "A1", "x" * 100).words
    "a lead for a row the Travellers sheet does not have (board 3, A1 v 'xxxxxxxxxxxxxxxxxxxx…' (100 characters))"
    """
    return Mistake("Lead", f"a lead for a row the Travellers sheet does not have "
                           f"(board {_brief(board)}, {_brief(ns)} v {_brief(ew)})")


def _brief(value: object) -> str:
    """A board or pair as a message names it: keyed as the readers key it (:func:`_pair`), a long text clipped."""
    key = _pair(value)
    text = str(key)
    return text if isinstance(key, int) or len(text) <= 20 else shown(key)


def leads_without_rows(leads: Iterable[tuple[object, object, object, object]],
                       rows: Iterable[tuple[object, object, object]]) -> Iterator[tuple[object, Mistake]]:
    """``(where, mistake)`` of each lead of ``leads`` ((where, board, N-S pair, E-W pair): a Leads sheet's rows,
    ``where`` the caller's name for the row) for which ``rows`` (the traveller rows' (board, N-S, E-W)) has no
    row: :func:`lead_without_row`, in the leads' order (read as they come: ``rows`` first, whole). Boards and pairs
    are compared as the readers key them (``3.0`` is ``"3"``).

    >>> list(leads_without_rows([(5, 1, 1, 11), (6, 3, "1", 11.0)], [(1.0, "1", 11), (2, 1, 12)]))
    [(6, Mistake(column='Lead', words='a lead for a row the Travellers sheet does not have (board 3, 1 v 11)'))]
    """
    seated = {(_pair(b), _pair(n), _pair(e)) for b, n, e in rows}
    return ((where, lead_without_row(b, n, e)) for where, b, n, e in leads
            if (_pair(b), _pair(n), _pair(e)) not in seated)


def _pair(value: object) -> object:
    """A pair number as the readers key it: a whole number as an int (``1.0``, ``"1"``), other text stripped."""
    n = _whole(value, "pair number")
    return str(value).strip() if isinstance(n, str) else n
