"""A pairs session between an :class:`~xlbridge.formats.model.Event` and a pairs workbook.

The workbook is the bundled ``pairs.xlsx`` template (or any book laid out like it): the columns are
found by their header names on the sheets ``Travellers`` (``Board``, ``NS``, ``EW``, ``Contract``,
``Declarer``, ``Tricks``, ``Typed Score``, ``Outcome 2 NS``, ``Weight 1``, ``Arrow switch``) and
``Pairs`` (``Pair``, ``Direction``, ``Names``), and the parameters by their labels (``Movement``,
``Scale``) in the Travellers sheet, so a column moved by a committee still maps.

- :func:`fill_pairs_workbook` writes an event's travellers and pairs into an (openpyxl) template
  workbook: the example rows are cleared first; a contract row keeps contract, declarer and tricks
  (the workbook scores it), an artificial score or ``NP`` goes to ``Typed Score``; player names
  are joined with `` & `` (a name holding ``&`` in double quotes, so that it reads back whole:
  :func:`~xlbridge.formats.sheets.join_names`); the event's name and date go into the document properties.
- :func:`read_pairs_workbook` reads such a workbook back into an event (inputs only: the scores
  follow from them through the core, :func:`xlbridge.formats.score_event`). An arrow-switched
  row of a Mitchell (``Arrow switch`` Y) is read as the workbook's Ranking reads it: its pairs score their seats'
  matchpoints in their own fields (:attr:`~xlbridge.formats.model.Result.switched`; ``publish`` ranks it, ``export``
  refuses it naming the cell, as neither PBN nor USEBIO can say it); a Law 12C1(c) weighted score is read into the row's
  ``outcomes``, which :func:`~xlbridge.formats.score_event` matchpoints as the workbook does (and PBN and
  USEBIO carry in a field of xlbridge's own: :mod:`xlbridge.formats.outcomes`).
- Deals and opening leads, which the template has no place for, go into the extra sheets ``Deals``
  and ``Leads`` (:mod:`xlbridge.formats.sheets`). A workbook whose Travellers sheet has a ``Lead``
  column gets the leads there instead.

>>> from xlbridge.formats.model import Board, Event, Participant, Result, MITCHELL
>>> ev = Event(name="Tuesday pairs", movement=MITCHELL,
...            participants=(Participant("1", "NS", ("Ann", "Bob")), Participant("2", "EW", ("Cy", "Di"))),
...            boards=(Board(1, results=(Result("1", "2", "4S", "N", 10, 420),)),))
>>> travellers_rows(ev)
[[1, 1, 2, '4S', 'N', 10, None]]
"""

from __future__ import annotations

import os
from dataclasses import replace
from fractions import Fraction
from typing import Any

import xlbridge

from ..core.entries import parse_entry
from ..core.travellerrow import (PairCheck, lead_without_row, listed_fields, listed_pairs, pairs_row_mistake,
                                 row_mistake, whole_or_words)
from ..core.pairs.neuberg import MAX_RESULTS
from ..core.pairs.standings import ARTIFICIAL_RULES, arrow_switched
from ..core.rounding import named_option
from ..core.template_contract import (ARROW_COLUMN, MP_COLUMNS, ARTIFICIAL_CHOICES, ARTIFICIAL_LABEL, EXPECTED_LABEL, MAX_EXPECTED,
                                      MOVEMENT_LABEL, SCALE_CHOICES, SCALE_LABEL, SCORE_COLUMN,
                                      choices_words, PAIR_COLUMNS, PAIRS_SHEET, PLAYER_NUMBERS, PRIVATE, TRAVELLER_COLUMNS, TRAVELLER_WEIGHTS,
                                      TRAVELLERS_SHEET)
from ..core.vocabulary import FILE_SCALE, Direction, Scale, Scoring, UnknownSpellingError
from .checks import check_traveller
from .errors import FormatError, check_players, display_name
from .outcomes import workbook_outcomes
from .privacy import private_flag
from .model import (HOWELL, MITCHELL, PAIRS, TEAMS, Event, Participant, Result, natural_key, normalize_contract,
                    normalize_lead)
from .sheets import (HEADER_ROW, VULNERABILITY, Getter, Where, Workbook, board_number, capacity, cell_number,
                     cell_text, check_standard_cycle, id_text, event_boards, fill_table, find_columns, find_parameter,
                     get_sheet, join_names, open_workbook, parameter_entry, parameter_value, read_extra_sheets, read_outcomes,
                     player_numbers, event_header, put_value, sparse_rows, split_names, table_rows,
                     write_event_details, write_extra_sheets, write_properties)

__all__ = ["fill_pairs_workbook", "read_pairs_workbook", "travellers_rows", "TRAVELLERS", "PAIRS_SHEET"]

TRAVELLERS = TRAVELLERS_SHEET
_T_COLUMNS: tuple[str, ...] = TRAVELLER_COLUMNS
_T_OPTIONAL = (*TRAVELLER_WEIGHTS, ARROW_COLUMN, "Lead")
_T_READ = (*_T_OPTIONAL, SCORE_COLUMN, *MP_COLUMNS)  # (read, never written: the Score NS and MP formulas stay)
_P_COLUMNS = PAIR_COLUMNS
_WEIGHTED = TRAVELLER_WEIGHTS
# (a traveller row's inputs by their headers, as the template writes them and core.travellerrow names them)
_BOARD, _NS, _EW, _CONTRACT, _DECLARER, _TRICKS, _TYPED = TRAVELLER_COLUMNS


def travellers_rows(event: Event) -> list[list[Any]]:
    """The Travellers rows of ``event``: Board, NS, EW, Contract, Declarer, Tricks, Typed Score."""
    rows: list[list[Any]] = []
    for b in sorted(event.boards, key=lambda b: b.number):
        for r in b.results:
            typed = None if r.contract is not None else (None if r.score is None else str(r.score))
            rows.append([b.number, cell_number(r.ns), cell_number(r.ew), r.contract, r.declarer,
                         r.tricks if r.contract is not None else None, typed])
    return rows


def fill_pairs_workbook(wb: Workbook, event: Event, *, name: str | None = None) -> None:
    """Write ``event`` (a pairs event) into the pairs template workbook ``wb`` (openpyxl), in place.

    Too many rows for the sheet's capacity is an error naming the capacity; nothing is truncated.
    Deals and leads go into the extra sheets (:func:`~xlbridge.formats.sheets.write_extra_sheets`);
    ``name`` (the source file's name) starts every error message.
    """
    if event.kind == TEAMS:
        raise FormatError("a teams event goes into the teams workbook (workbooks/teams.xlsx), not the pairs "
                          "workbook", where=name)
    if event.scoring != Scoring.MP:  # (the workbook would score it again as matchpoints, without a word)
        scoring = {"CROSS_IMP": "cross-IMPs", "BUTLER": "Butler IMPs", "IMP": "IMPs"}.get(event.scoring, event.scoring)
        raise FormatError(f"a pairs event scored by {scoring} cannot go into the pairs workbook, which scores "
                          f"matchpoints; publish the file itself (xlbridge publish FILE)", where=name)
    check_standard_cycle(event, name)
    ws = get_sheet(wb, TRAVELLERS)
    cols = find_columns(ws, _T_COLUMNS, _T_OPTIONAL, sheet=TRAVELLERS)
    rows, columns = travellers_rows(event), _T_COLUMNS
    results = [(b.number, r) for b in sorted(event.boards, key=lambda b: b.number) for r in b.results]
    if any(r.outcomes for _, r in results):  # Law 12C1(c): the other outcomes and every weight
        missing = [c for c in _WEIGHTED if c not in cols]
        if missing:
            raise FormatError(f"the sheet {TRAVELLERS!r} has no column {missing[0]!r} for a weighted score (a "
                              f"workbook made before it): start from a current template", where=name)
        rows = [row + (workbook_outcomes(r, b, name) if r.outcomes else
                       [None] * len(_WEIGHTED)) for row, (b, r) in zip(rows, results)]
        columns = _T_COLUMNS + _WEIGHTED
    if "Lead" in cols:  # a template with a Lead column: the leads stay on their rows
        rows, columns = [row + [r.lead] for row, (_, r) in zip(rows, results)], columns + ("Lead",)
    if any(r.switched for _, r in results) and ARROW_COLUMN in cols:  # (an arrow-switched row stays switched)
        rows = [row + ["Y" if r.switched else None] for row, (_, r) in zip(rows, results)]
        columns = columns + (ARROW_COLUMN,)
    fill_table(ws, cols, columns, rows, what="traveller rows", sheet=TRAVELLERS)
    movement = find_parameter(ws, MOVEMENT_LABEL)
    if movement is not None:
        movement.value = (MITCHELL if event.movement == MITCHELL else HOWELL).label
    scale = find_parameter(ws, SCALE_LABEL)  # the workbook shows the matchpoints the file carries: PBN and USEBIO
    if scale is not None:                # state them on the 2/1 (EBU) scale
        scale.value = str(event.scale or FILE_SCALE)
    ps = get_sheet(wb, PAIRS_SHEET)
    pcols = find_columns(ps, _P_COLUMNS, (PLAYER_NUMBERS,), sheet=PAIRS_SHEET)
    plast = capacity(ps) or max(ps.max_row, HEADER_ROW + len(event.participants))
    for r in range(HEADER_ROW + 1, ps.max_row + 1):
        for c in pcols.values():
            ps.cell(row=r, column=c).value = None
    if len(event.participants) > plast - HEADER_ROW:
        raise FormatError(f"{len(event.participants):,} pairs do not fit the sheet {PAIRS_SHEET!r} (rows "
                          f"{HEADER_ROW + 1:,} to {plast:,})", where=name)
    for i, p in enumerate(event.participants):
        r = HEADER_ROW + 1 + i
        put_value(ps, r, pcols["Pair"], cell_number(p.number))  # (text as text cells: never a formula)
        put_value(ps, r, pcols["Direction"], str(p.direction) if event.movement == MITCHELL and p.direction else None)
        names = join_names(p.names) if p.names else (p.name or None)
        put_value(ps, r, pcols["Names"], names)
        if PLAYER_NUMBERS in pcols and p.ids:
            put_value(ps, r, pcols[PLAYER_NUMBERS], " & ".join(p.player_ids())).number_format = "@"
        elif p.ids:  # (a workbook made before the column: the numbers cannot be kept)
            raise FormatError(f"the sheet {PAIRS_SHEET!r} has no column {PLAYER_NUMBERS!r} for the players' national "
                              f"numbers (a workbook made before it): start from a current template", where=name)
    if not write_event_details(ws, event):  # (a book made before the Event, Date and Club parameters)
        write_properties(wb, event)
    write_extra_sheets(wb, event, leads="Lead" not in cols)


def read_pairs_workbook(path: str | os.PathLike[str]) -> Event:
    """Read the pairs workbook at ``path`` into an (unscored) :class:`Event`.

    Board vulnerabilities and dealers follow the standard cycle from the board number (as the
    workbook scores them). Errors name the sheet and cell.  A Law 12C1(c) weighted score's outcomes
    (``Score NS`` of the row, ``Outcome 2 NS``, ``Outcome 3 NS`` with ``Weight 1..3``) go into the
    row's ``outcomes``.
    """
    name = display_name(path)
    wb = open_workbook(path, data_only=True, read_only=True)  # streamed: only the cells the file holds are read
    try:
        ws = get_sheet(wb, TRAVELLERS, name)
        found, movement = parameter_value(ws, MOVEMENT_LABEL)
        mitchell = not found or str(movement or "").strip().lower() != HOWELL.option
        scale = _scale(ws, name)
        expected, artificial = _expected(ws, name), _artificial(ws, name)
        entry = parameter_entry(ws, EXPECTED_LABEL)  # (its cell: where scoring names too few results expected)
        expected_cell = None if entry is None else f"{name}, {TRAVELLERS}!{entry[1]}"
        boards: dict[int, list[Result]] = {}
        cells: dict[int, list[tuple[dict[str, Any], dict[str, Any]]]] = {}  # each row's result cell and NS cell
        columns = find_columns(ws, _T_COLUMNS, _T_READ, sheet=TRAVELLERS, where=name)
        typed_over: list[tuple[int, int, str, Any, Any]] = []  # Score NS cells showing another score than the inputs
        shown_mp: list[tuple[Any, ...]] = []
        switched_cells: list[str] = []  # (the Arrow switch cells of the switched rows: PBN and USEBIO cannot say it)
        # the rows' pairs read together and against the Pairs sheet, as the workbook's SCORE_OR_TYPED reads them
        # (core.travellerrow.PairCheck)
        participants = _participants(wb, mitchell, name)
        pair_check = PairCheck(howell=not mitchell, listed=listed_pairs(p.number for p in participants),
                               fields=listed_fields((p.number, p.direction) for p in participants) if mitchell else None)
        for _r, get, where in table_rows(ws, _T_COLUMNS, _T_READ, sheet=TRAVELLERS, name=name, keys=_T_COLUMNS):
            board, ns, ew = get(_BOARD), get(_NS), get(_EW)
            weights = [col for col in _WEIGHTED if cell_text(get(col)) is not None]
            try:  # (read as the workbook's PAIRS_STANDINGS reads it; a Howell has no fields to switch)
                switched = mitchell and arrow_switched(get(ARROW_COLUMN))
            except xlbridge.XlbridgeError as exc:
                raise FormatError(str(exc), where=where(ARROW_COLUMN)) from None
            mistake = row_mistake(board, ns, ew, get(_CONTRACT), get(_DECLARER), get(_TRICKS), get(_TYPED))
            if mistake is not None:  # (the row's verdict, read as the workbook's SCORE_OR_TYPED reads it)
                raise FormatError(mistake.words, where=where(mistake.column))
            b = board_number(board, where(_BOARD))
            id_text(ns, where(_NS)), id_text(ew, where(_EW))  # (a pair number's own bounds: its length)
            mistake = pair_check.row(board, ns, ew, switched)  # (the cells as typed: as the workbook reads them)
            if mistake is not None:
                raise FormatError(mistake.words, where=where(mistake.column))
            ns, ew = id_text(ns, where(_NS)), id_text(ew, where(_EW))
            if ns is None or ew is None:
                raise FormatError("pair number missing", where=where(_NS if ns is None else _EW))
            contract, declarer, tricks, typed = (get(_CONTRACT), get(_DECLARER), get(_TRICKS), get(_TYPED))
            col = _CONTRACT if cell_text(contract) is not None else _TYPED
            try:
                seat = cell_text(declarer)
                if cell_text(contract) is not None:
                    score = xlbridge.bridge_score(str(contract), seat, tricks, b)
                    text = normalize_contract(contract, element=where(_CONTRACT))
                    if text == "PASS":  # passed out: no declarer, no tricks (the workbook scores it 0)
                        result = Result(ns, ew, "PASS", score=score)
                    else:
                        result = Result(ns, ew, text, seat.upper() if seat else None, int(tricks), score)
                elif cell_text(typed) is not None:
                    result = Result(ns, ew, score=parse_entry(typed))
                else:
                    raise FormatError("no contract and no typed score", where=where(_CONTRACT))
            except FormatError:
                raise
            except xlbridge.XlbridgeError as exc:
                raise FormatError(str(exc).rstrip("."), where=where(col)) from None
            except (TypeError, ValueError):  # never Python's own text: the cell and its value
                raise FormatError("cannot read the row's result:", where=where(col), value=get(col)) from None
            if weights:
                result = replace(result, outcomes=_outcomes(result, get, where, b))
            if switched:
                result = replace(result, switched=True)
                switched_cells.append(where(ARROW_COLUMN))
            lead = cell_text(get("Lead"))
            if lead is not None:
                result = replace(result, lead=normalize_lead(lead, element=where("Lead")))
            if SCORE_COLUMN in columns and _shown_apart(get(SCORE_COLUMN), result.score):
                typed_over.append((_r, columns[SCORE_COLUMN], where(SCORE_COLUMN), get(SCORE_COLUMN), result.score))
            boards.setdefault(b, []).append(result)
            cells.setdefault(b, []).append(({"where": where(col)}, {"where": where(_NS)}))
            if all(c in columns for c in MP_COLUMNS):  # (the matchpoints the row shows: scoring compares them)
                shown_mp.append((b, ns, ew, tuple((where(c).rpartition(", ")[2], get(c)) for c in MP_COLUMNS)))
        for b, rows in boards.items():  # score and board checks at the row's cells, not "board b, row i"
            boards[b] = check_traveller(b, rows, VULNERABILITY(b), MITCHELL if mitchell else HOWELL, PAIRS,
                                        [c[0] for c in cells[b]], [c[1] for c in cells[b]])
        deals, leads = read_extra_sheets(wb, name)
        seating: dict[tuple[int, str, str], int] = {}  # each row's place on its board, indexed once
        for b, rows in boards.items():
            for i, res in enumerate(rows):
                seating.setdefault((b, res.ns, res.ew), i)
        for (b, ns, ew), (lead, cell) in leads.items():
            rows = boards.get(b, [])
            hit = [seating[(b, ns, ew)]] if (b, ns, ew) in seating else []
            if not hit:
                raise FormatError(lead_without_row(b, ns, ew).words, where=cell)
            if rows[hit[0]].lead is not None and rows[hit[0]].lead != lead:
                raise FormatError("the lead differs from the Travellers sheet's Lead column:", where=cell, value=lead)
            rows[hit[0]] = replace(rows[hit[0]], lead=lead)
        for b in deals:
            boards.setdefault(b, [])
        title, date, club, scorer = event_header(wb, ws, name, TRAVELLERS)
        seen = {p.key for p in participants}
        extra = []
        for rows in boards.values():
            for res in rows:
                for side, num in ((Direction.NS, res.ns), (Direction.EW, res.ew)):
                    key = ((side.other if res.switched else side) if mitchell else None, num)  # (the pair's field)
                    if key not in seen:
                        seen.add(key)
                        extra.append(Participant(num, key[0]))
        return Event(name=title, date=date, site=club, scorer=scorer, movement=MITCHELL if mitchell else HOWELL, scale=scale,
                     participants=tuple(participants) + tuple(extra), boards=event_boards(boards, deals),
                     notes=_typed_over(path, typed_over), expected=expected, artificial=artificial,
                     shown_mp=tuple(shown_mp), switched_cells=tuple(switched_cells), expected_cell=expected_cell)
    finally:
        wb.close()


def _shown_apart(shown: Any, score: Any) -> bool:
    """True when the Score NS cell's value ``shown`` (as the file holds it) is a score other than the row's ``score``
    read from its inputs; a blank cell or an error value (the workbook's own verdict, named at its inputs) is not.

    >>> _shown_apart(480, 450), _shown_apart(450.0, 450), _shown_apart(None, 450), _shown_apart("#VALUE!", 450)
    (True, False, False, False)
    """
    if cell_text(shown) is None or (isinstance(shown, str) and shown.strip().startswith("#")):
        return False
    try:
        return bool(parse_entry(shown) != score)
    except xlbridge.XlbridgeError:
        return True


def _typed_over(path: str | os.PathLike[str], found: list[tuple[int, int, str, Any, Any]]) -> tuple[str, ...]:
    """The notes naming each Score NS cell typed over (``found``: (row, column, where, value, the inputs' score) of
    the cells whose value is not the inputs' score): the rule of the pairs workbook is that the results always come
    from the row's inputs (its matchpoints and Ranking read them, not the cell), and so do the files and the site.
    A cell still holding its formula (a value cached before the inputs changed) is no typing: not named. The book is
    read a second time, for its formulas, only when some cell differs."""
    if not found:
        return ()
    wb = open_workbook(path, data_only=False, read_only=True)
    try:
        ws = wb[TRAVELLERS]
        rows = {r for r, *_ in found}
        formula = {(r, c.column) for r in rows for c in next(ws.iter_rows(min_row=r, max_row=r))
                   if isinstance(c.value, str) and c.value.startswith("=")}
    finally:
        wb.close()
    return tuple(f"{where.rpartition(', ')[2]}: {_shown_value(value)} typed over the result of the row's inputs ({_shown_value(score)}); "
                 f"not used: the matchpoints, the Ranking and the files read the row's Contract, Declarer, Tricks "
                 f"and Typed Score (copy the Score NS cell of another row back into it)"
                 for r, c, where, value, score in found if (r, c) not in formula)


def _shown_value(value: Any) -> str:
    """A cell's value as a message shows it: a whole number without ``.0``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _scale(ws: Any, name: str) -> str | None:
    """The matchpoint scale of the Travellers sheet's ``Scale`` parameter (``"EBU"``, ``"ACBL"``, or one of
    their other spellings: :attr:`xlbridge.core.vocabulary.Scale.spellings`); None when the sheet has no
    such parameter or it is blank. Another value is refused naming its cell."""
    entry = parameter_entry(ws, SCALE_LABEL)
    if entry is None or cell_text(entry[0]) is None:
        return None
    try:
        return Scale.parse(cell_text(entry[0]))
    except UnknownSpellingError:
        raise FormatError(f"unknown matchpoint scale ({choices_words(SCALE_CHOICES)}):", where=f"{name}, {TRAVELLERS}!{entry[1]}",
                          value=entry[0]) from None


def _expected(ws: Any, name: str) -> int | None:
    """The Travellers sheet's ``Expected results per board`` (each board Neuberg-factored to it, as the workbook's
    matchpoints are), a whole number as the workbook's functions read one (1 to
    :data:`xlbridge.core.pairs.neuberg.MAX_RESULTS`; the cell's validation offers 1 to :data:`MAX_EXPECTED`); None
    when the sheet has no such parameter or it
    is blank (the most results on any board). Another value is refused naming its cell."""
    entry = parameter_entry(ws, EXPECTED_LABEL)
    if entry is None or cell_text(entry[0]) is None:
        return None
    value = whole_or_words(entry[0], EXPECTED_LABEL, MAX_RESULTS)  # (a number as every reader reads one)
    if isinstance(value, str):
        raise FormatError(f"expected results per board must be a whole number from 1 to {MAX_RESULTS:,} "
                          "(or blank: the most results on any board):", where=f"{name}, {TRAVELLERS}!{entry[1]}",
                          value=entry[0])
    return value


def _artificial(ws: Any, name: str) -> str | None:
    """The Travellers sheet's ``Artificial scores`` rule (``"fixed"`` or ``"session"``:
    :data:`xlbridge.core.pairs.standings.ARTIFICIAL_RULES`, any case), as the workbook's Ranking reads it; None when
    the sheet has no such parameter or it is blank. Another value is refused naming its cell."""
    entry = parameter_entry(ws, ARTIFICIAL_LABEL)
    if entry is None or cell_text(entry[0]) is None:
        return None
    try:
        return named_option(cell_text(entry[0]), ARTIFICIAL_RULES, "artificial-score rule")
    except xlbridge.XlbridgeError:
        raise FormatError(f"unknown rule for artificial scores ({choices_words(ARTIFICIAL_CHOICES)}):",
                          where=f"{name}, {TRAVELLERS}!{entry[1]}", value=entry[0]) from None


def _outcomes(result: Result, get: Getter, where: Where, board: int) -> tuple[tuple[int, Fraction], ...]:
    """A weighted row's ``(N-S score, weight)`` outcomes: the row's own score at ``Weight 1``, then
    ``Outcome 2 NS`` and ``Outcome 3 NS`` at ``Weight 2`` and ``3`` (:func:`~xlbridge.formats.sheets.read_outcomes`:
    the core's weighted score, Law 12C1(c))."""
    return read_outcomes(result.score, get, where, board, _TYPED, TRAVELLER_WEIGHTS[:2])


def _participants(wb: Workbook, mitchell: bool, name: str) -> list[Participant]:
    from openpyxl.utils import get_column_letter

    if PAIRS_SHEET not in wb.sheetnames:
        return []
    ps = wb[PAIRS_SHEET]
    cols = find_columns(ps, _P_COLUMNS, (PLAYER_NUMBERS, PRIVATE), sheet=PAIRS_SHEET, where=name)
    out: list[Participant] = []
    seen: set[tuple[object, object]] = set()
    for r, row in sparse_rows(ps, HEADER_ROW + 1):  # (only the rows and cells the file holds)
        def get(col: str, row: dict[int, Any] = row) -> Any:
            return row.get(cols[col])
        number = id_text(get("Pair"), f"{name}, {PAIRS_SHEET} row {r}")
        if number is None:
            continue
        # (a pair listed again, a Mitchell's direction unread: named at its cell as recalc names it)
        mistake = pairs_row_mistake(get("Pair"), get("Direction"), mitchell, seen)
        if mistake is not None:
            column = get_column_letter(cols["Pair" if mistake.column == "Pair" else "Direction"])
            raise FormatError(mistake.words, where=f"{name}, {PAIRS_SHEET}!{column}{r}")
        direction = Direction.parse(get("Direction")) if mitchell else None
        names = cell_text(get("Names"))
        players = check_players(split_names(names), where=f"{name}, {PAIRS_SHEET} row {r}")
        ids = player_numbers(cell_text(get(PLAYER_NUMBERS)) if PLAYER_NUMBERS in cols else None, len(players),
                             f"{name}, {PAIRS_SHEET}!{get_column_letter(cols.get(PLAYER_NUMBERS, 1))}{r}")
        private = PRIVATE in cols and private_flag(get(PRIVATE), f"{name}, {PAIRS_SHEET}!{get_column_letter(cols[PRIVATE])}{r}")
        out.append(Participant(number, direction, players, ids=ids, private=private))
    out.sort(key=lambda p: (p.direction or "", natural_key(p.number)))
    return out
