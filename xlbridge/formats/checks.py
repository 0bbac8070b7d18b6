"""Checks shared by the readers: a traveller row's score against its contract and vulnerability,
duplicate rows, a pair meeting a board twice, and which movement the travellers describe.

Every rule of bridge scoring used here comes from the core (:func:`xlbridge.bridge_score`,
:func:`xlbridge.check_score`); this module only decides what to compare and where to point.

>>> from xlbridge.formats.model import Result
>>> check_result(Result("1", "2", "4S", "N", 10, 410), "None", {"file": "club.pbn", "line": 7})
Traceback (most recent call last):
...
xlbridge.formats.errors.FormatError: club.pbn, line 7: score does not match 4S by N taking 10 tricks, vulnerability 'None' (nobody vulnerable), which scores N-S 420: 410
>>> check_result(Result("1", "2", "4S", "N", 10), "None", {}).score
420
"""

from __future__ import annotations

from dataclasses import replace
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import xlbridge

from ..core.travellerrow import MAX_BOARD as MAX_BOARD, vulnerability_words as vulnerability_words
from ..core.vocabulary import Direction, Movement
from .errors import FormatError
from .model import HOWELL, MITCHELL, TEAMS, Event, Participant, Result

#: (MAX_BOARD, the largest board number read: what the workbook templates' Board column accepts, its data
#: validation 1 to 10,000, far inside the whole numbers an Excel cell holds exactly: core.travellerrow's.)

__all__ = ["check_result", "check_board", "check_traveller", "infer_movement", "mark_ties", "refuse_switched",
           "format_number", "vulnerability_words"]


def check_result(r: Result, vulnerable: str, loc: dict[str, Any]) -> Result:
    """Return ``r`` with its N-S score filled in (from contract, declarer and tricks) or checked.

    A contract with declarer and tricks must give the typed score exactly; a score alone must
    be legal for the vulnerability (Law 77 via :func:`xlbridge.check_score`); a passed-out
    board scores 0.
    """
    score = r.score
    if r.tricks is not None and not 0 <= r.tricks <= 13:
        raise FormatError("tricks must be 0-13:", value=r.tricks, **loc)
    if r.contract == "PASS":
        if isinstance(score, int) and score != 0:
            raise FormatError("a passed-out board scores 0, not", value=score, **loc)
        return replace(r, score=0, declarer=None, tricks=None)
    if r.contract is not None and r.declarer is not None and r.tricks is not None:
        made = xlbridge.bridge_score(r.contract, r.declarer, r.tricks, vulnerable)
        if score is None:
            return replace(r, score=made)
        if not isinstance(score, int):
            raise FormatError(f"a played contract ({r.contract}) cannot have the adjusted score", value=str(score),
                              **loc)
        if score != made:
            raise FormatError(
                f"score does not match {r.contract} by {r.declarer} taking {r.tricks} tricks, "
                f"vulnerability {vulnerability_words(vulnerable)}, which scores N-S {made}:", value=score, **loc)
        return r
    if isinstance(score, int):
        try:
            xlbridge.check_score(score, vulnerable)
        except xlbridge.XlbridgeError:
            raise FormatError(f"impossible score for vulnerability {vulnerability_words(vulnerable)}:", value=score,
                              **loc) from None
        return r
    if score is None:
        if r.contract is not None:
            raise FormatError("no score and no declarer/tricks for contract", value=r.contract, **loc)
        raise FormatError("no result: no contract, no score", value=f"{r.ns}-{r.ew}", **loc)
    return r


def check_board(number: int, rows: Sequence[Result], locs: Sequence[dict[str, Any]], movement: str,
                kind: str) -> None:
    """Refuse duplicate rows and a pair (or team, per direction) meeting the board twice."""
    seen_rows: dict[tuple[str, str], dict[str, Any]] = {}
    seen: dict[object, dict[str, Any]] = {}
    for r, loc in zip(rows, locs):
        if (r.ns, r.ew) in seen_rows:
            raise FormatError(f"duplicate row on board {number}: pairs", value=f"{r.ns}-{r.ew}", **loc)
        seen_rows[(r.ns, r.ew)] = loc
        if movement == HOWELL and kind != TEAMS and r.ns == r.ew:
            raise FormatError(f"board {number}: a pair cannot play against itself:", value=r.ns, **loc)
        for side, num in ((Direction.NS, r.ns), (Direction.EW, r.ew)):
            key = (side, num) if (movement == MITCHELL or kind == TEAMS) else num
            if key in seen:
                who = "team" if kind == TEAMS else "pair"
                label = f"{side} {num}" if isinstance(key, tuple) else num
                raise FormatError(f"{who} plays board {number} twice:", value=label, **loc)
            seen[key] = loc


def check_traveller(number: int, rows: Sequence[Result], vulnerable: str, movement: str, kind: str,
                    locs: Sequence[dict[str, Any]], board_locs: Sequence[dict[str, Any]] | None = None,
                    ) -> list[Result]:
    """Every row of board ``number`` through :func:`check_result` (at ``locs``), then the board through
    :func:`check_board` (at ``board_locs``, default ``locs``): a reader passes the place of each row
    (a workbook's cells) so that the error names it."""
    checked = [check_result(r, vulnerable, loc) for r, loc in zip(rows, locs)]
    check_board(number, checked, locs if board_locs is None else board_locs, movement, kind)
    return checked


def infer_movement(boards_rows: Iterable[Iterable[Result]]) -> Movement:
    """``MITCHELL`` or ``HOWELL`` from the travellers: who sat where.

    Mitchell when some number sits both N-S and E-W on the same board (N-S 1 against E-W 1),
    or when no number ever sits both ways (each pair keeps its direction); otherwise Howell.

    >>> R = Result
    >>> infer_movement([[R("1", "1"), R("2", "2")]]), infer_movement([[R("1", "2")], [R("2", "1")]])
    ('MITCHELL', 'HOWELL')
    """
    ns_all: set[str] = set()
    ew_all: set[str] = set()
    for board_rows in boards_rows:
        rows = list(board_rows)
        ns = {r.ns for r in rows}
        ew = {r.ew for r in rows}
        if ns & ew:
            return MITCHELL
        ns_all |= ns
        ew_all |= ew
    if ns_all and not (ns_all & ew_all):
        return MITCHELL
    return HOWELL


def mark_ties(parts: Iterable[Participant]) -> list[Participant]:
    """Set ``tied`` where two participants of one field share a place (PBN Rank has no '=')."""
    parts = list(parts)
    count: dict[tuple[str | None, int], int] = {}
    for p in parts:
        if p.place is not None:
            count[(p.direction, p.place)] = count.get((p.direction, p.place), 0) + 1
    return [replace(p, tied=count.get((p.direction, p.place), 0) > 1) if p.place is not None else p
            for p in parts]


def format_number(x: Fraction | int | None) -> str:
    """Exact decimal text when it has at most 4 decimals, else 2 decimals (EBU display rule)."""
    if x is None:
        return "-"
    x = Fraction(x)
    for places in range(5):
        if (x * 10**places).denominator == 1:
            return xlbridge.format_display(x, "EBU", places)
    return xlbridge.format_display(x, "EBU", 2)


def refuse_switched(event: Event, fmt: str) -> None:
    """Refuse to write ``event`` to ``fmt`` (``"PBN"`` or ``"USEBIO"``) when a row of it is arrow-switched
    (:attr:`Event.switched_cells`), naming the first row's cell: neither format can say that a row's pairs sit in
    the other field's seats, so a reader would rank them in the wrong field. The book and its site rank the row.

    >>> refuse_switched(Event(switched_cells=("club.xlsx, Travellers!P8", "club.xlsx, Travellers!P9")), "PBN")
    Traceback (most recent call last):
    ...
    xlbridge.formats.errors.FormatError: club.xlsx, Travellers!P8: an arrow-switched row cannot be written to PBN, which cannot say that its pairs sit in the other field's seats (the book and its site rank it; 1 more row is switched)
    """
    if not event.switched_cells:
        return
    more = len(event.switched_cells) - 1
    also = f"; {more:,} more row{'s are' if more > 1 else ' is'} switched" if more else ""
    raise FormatError(f"an arrow-switched row cannot be written to {fmt}, which cannot say that its pairs sit in "
                      f"the other field's seats (the book and its site rank it{also})",
                      where=event.switched_cells[0])
