"""The verdict of a traveller row as a member typed it: one reading for the workbook's functions and the file formats.

A row of a pairs traveller (the pairs workbook's Travellers sheet, :data:`~xlbridge.core.template_contract.TRAVELLER_COLUMNS`)
is blank, or holds a result, or is **half filled**: a mistake, named at the input cell that is empty or wrong, in a
member's words. :func:`row_mistake` is that reading, once: ``SCORE_OR_TYPED`` (the Score NS column of the workbook)
says its words, ``xlbridge publish`` and ``export`` (:mod:`xlbridge.formats.pairsbook`) refuse the book with them at
the cell, and the template turns the same cell red (its conditional formats, :data:`RED_WHEN`, say the same rules in
Excel's words). Mistakes in what a cell holds (an unknown contract, a score no contract makes) are the scorers' own
checks (:mod:`xlbridge.core.contract`, :mod:`xlbridge.core.entries`).

>>> row_mistake(1, 4, 14, None, None, None, None)
Mistake(column='Contract', words='no contract and no typed score')
>>> row_mistake(1, 4, 14, "4S", "N", None, None)
Mistake(column='Tricks', words='no tricks')
>>> row_mistake("1a", 4, 14, None, None, None, 420)
Mistake(column='Board', words="the board must be a number, not '1a'")
>>> row_mistake(1, 4, 14, "PASS", None, None, None), row_mistake(None, None, None, None, None, None, None)
(None, None)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import shown

__all__ = ["Mistake", "row_mistake", "blank", "RED_WHEN", "reason_text", "column_named"]

#: Each input column's rule as the template's conditional format (Excel's words, for the row's first cells
#: ``$A5`` Board, ``$B5`` NS, ``$C5`` EW, ``$D5`` Contract, ``$E5`` Declarer, ``$F5`` Tricks, ``$G5`` Typed Score):
#: the cell turns red when its row is half filled as :func:`row_mistake` reads it.
RED_WHEN = {
    "Board": 'OR(AND($A5="",COUNTA($B5:$G5)>0),AND($A5<>"",NOT(ISNUMBER(--$A5))))',
    "NS": 'AND($B5="",COUNTA($A5,$C5:$G5)>0)',
    "EW": 'AND($C5="",COUNTA($A5:$B5,$D5:$G5)>0)',
    "Contract": 'AND($D5="",$G5="",COUNTA($A5:$C5,$E5:$F5)>0)',
    "Declarer": 'AND($D5<>"",UPPER(TRIM($D5))<>"PASS",$E5="")',
    "Tricks": 'AND($D5<>"",UPPER(TRIM($D5))<>"PASS",$F5="")',
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

    >>> column_named("SCORE_OR_TYPED: no tricks (column Tricks)"), column_named("impossible score: 410")
    (('Tricks', 'no tricks'), None)
    """
    m = re.search(r"(?:^|: )([^:]*) \(column ([^()]+)\)$", reason)
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
    if isinstance(value, (int, float)):
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
    that is not given them), then the result: neither a contract nor a typed score; a contract (not ``PASS``)
    without its declarer or its tricks.

    >>> row_mistake(1, None, 14, "4S", "N", 10, None)
    Mistake(column='NS', words='no N-S pair')
    >>> row_mistake(1, None, None, "4S", None, 10, None, pairs=False)
    Mistake(column='Declarer', words='no declarer')
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
    if blank(contract):
        if blank(typed):
            return Mistake("Contract", "no contract and no typed score")
        return None
    if str(contract).strip().upper() == "PASS":
        return None
    if blank(declarer):
        return Mistake("Declarer", "no declarer")
    if blank(tricks):
        return Mistake("Tricks", "no tricks")
    return None
