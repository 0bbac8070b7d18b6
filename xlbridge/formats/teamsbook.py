"""A teams event between an :class:`~xlbridge.formats.model.Event` and a teams workbook.

The workbook is the bundled ``teams.xlsx`` template (or any book laid out like it): sheets
``Boards`` (``Match``, ``Board``, ``Room 1 NS (team A NS)``, ``Room 2 NS (team B NS)``; a weighted
board's other room-1 outcomes in ``Outcome 2``/``Outcome 3``, their weights in ``Weight 1..3``) and
``Matches`` (``Match``, ``Team A``, ``Team B``, ``Boards``), columns found by their headers.  What
the template has no place for goes into extra sheets that its formulas never read: ``Teams``
(numbers, names, players), ``Contracts`` (contract, declarer and tricks behind each room's score),
``Deals`` and ``Leads`` (:mod:`xlbridge.formats.sheets`).

- :func:`fill_teams_workbook` writes a teams event into the template: each pair of teams that
  meets is one match (:func:`xlbridge.formats.scoring.team_matches`);
- :func:`read_teams_workbook` reads such a workbook back (room 1 is team A sitting N-S);
- :func:`xlbridge.formats.workbook.is_teams_workbook` tells a teams workbook by its sheets.

>>> from xlbridge.formats.model import Board, Event, Result, TEAMS
>>> ev = Event(kind=TEAMS, boards=(Board(1, results=(Result("1", "2", score=420), Result("2", "1", score=-400))),))
>>> from xlbridge.formats.scoring import team_matches
>>> [(a, c, {b: (r1.score, r2.score) for b, (r1, r2) in boards.items()}) for a, c, boards in team_matches(ev)]
[('1', '2', {1: (420, -400)})]
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

import xlbridge

from ..core.entries import parse_entry
from ..core.travellerrow import board_row_mistake, match_row_mistake, room_missing, room_not_played
from ..core.template_contract import (BOARD_IMPS, BOARD_INPUTS, BOARDS_SHEET, CONTRACTS_SHEET, MATCH_COLUMNS, MATCHES_SHEET, PLAYER_NUMBERS, PRIVATE,
                                      TEAM_COLUMNS, TEAMS_SHEET)
from ..core.vocabulary import Scoring
from .checks import check_result, check_traveller
from .errors import FormatError, check_name, check_players, display_name
from .scoring import team_matches
from .outcomes import workbook_outcomes
from .model import HOWELL, TEAMS, Event, Participant, Result, natural_key, normalize_contract, normalize_seat
from .privacy import private_flag
from .sheets import (HEADER_ROW, VULNERABILITY, Getter, Where, Workbook, board_number, cell_number, cell_text,
                     check_standard_cycle, event_boards, fill_table, find_columns, get_sheet, id_text, join_names,
                     open_workbook, player_numbers, event_header, read_extra_sheets, read_outcomes,
                     split_names, table_rows, table_sheet, whole_number, write_event_details, write_extra_sheets,
                     write_properties)

__all__ = ["fill_teams_workbook", "read_teams_workbook", "BOARDS_SHEET",
           "MATCHES_SHEET", "TEAMS_SHEET", "CONTRACTS_SHEET"]

# (the Boards sheet's inputs as the template writes them: match, board, room 1, its other outcomes, the weights, room 2)
_ROOM_1, _ROOM_2 = BOARD_INPUTS[2], BOARD_INPUTS[8]
_B_COLUMNS = (*BOARD_INPUTS[:2], _ROOM_1, _ROOM_2)
_OUTCOMES = BOARD_INPUTS[3:5]  # room 1's other outcomes of a weighted board, at Weight 2 and 3
_B_OPTIONAL = BOARD_INPUTS[3:8]
_M_COLUMNS = MATCH_COLUMNS
_TEAM_COLUMNS = TEAM_COLUMNS
_C_COLUMNS = ("Board", "NS", "EW", "Contract", "Declarer", "Tricks")


#: the Boards sheet's result column of team A's IMPs (a formula of the row's rooms: WEIGHTED_IMPS)
_IMPS_A = BOARD_IMPS[0]


def _imps_typed_over(get: Getter, where: Where) -> str | None:
    """The note naming a plain board's IMPs A cell that shows another number than the IMPs of its two rooms (Law
    78B): a value typed over its formula, which nothing reads (the Matches sheet, the files and the site take the
    rooms' scores; issue 52). A weighted or artificial board, a cell that is blank, text or an error: None.

    >>> cells = {"Room 1 NS (team A NS)": 420, "Room 2 NS (team B NS)": 420.0, "IMPs A": 3}
    >>> _imps_typed_over(cells.get, lambda c: "x.xlsx, Boards!J12")
    "Boards!J12: 3 typed over the IMPs of the row's rooms (0); not used: the matches, the files and the site read the rooms' scores (copy the IMPs A cell of another row back into it)"
    >>> _imps_typed_over({**cells, "IMPs A": 0.0}.get, lambda c: "x.xlsx, Boards!J12") is None
    True
    """
    shown_value = get(_IMPS_A)
    if not isinstance(shown_value, (int, float)) or isinstance(shown_value, bool):
        return None
    if any(cell_text(get(c)) is not None for c in _B_OPTIONAL):
        return None
    try:
        rooms = [parse_entry(get(c)) for c in (_ROOM_1, _ROOM_2)]
    except xlbridge.XlbridgeError:
        return None
    room_1, room_2 = rooms
    if not isinstance(room_1, int) or not isinstance(room_2, int) or isinstance(room_1, bool) or isinstance(room_2, bool):
        return None
    imps = xlbridge.imps(room_1 - room_2)
    if shown_value == imps:
        return None
    value = int(shown_value) if float(shown_value).is_integer() else shown_value
    return (f"{where(_IMPS_A).rpartition(', ')[2]}: {value} typed over the IMPs of the row's rooms ({imps}); not used: "
            f"the matches, the files and the site read the rooms' scores (copy the IMPs A cell of another row back "
            f"into it)")


def _team_label(p: Participant) -> str:
    """A team's name on the Matches sheet (its name, or ``Team <number>``): the teams workbook keys teams by name."""
    return p.name or _default_label(p.number)


def _default_label(number: str) -> str:
    """What the Matches sheet calls a team without a name (the Teams sheet leaves its ``Name`` blank)."""
    return f"Team {number}"


def _room_score(r: Result | None, board: int, name: str | None) -> int | str | None:
    if r is None:
        return None
    if isinstance(r.score, xlbridge.Artificial):
        return str(r.score)
    if not isinstance(r.score, int):  # not played: the teams workbook has no entry for it
        raise FormatError(f"board {board}, team {r.ns} v team {r.ew}: a board not played (NP) cannot be entered in "
                          f"the teams workbook (leave the row out of the file, or give an artificial score)",
                          where=name)
    return r.score


def fill_teams_workbook(wb: Workbook, event: Event, *, name: str | None = None) -> None:
    """Write a teams ``event`` into the teams template workbook ``wb`` (openpyxl), in place.

    Each pair of teams that meets on some board is one match (team A the lower number, sitting N-S
    in room 1); the Boards sheet gets one row per match and board with both rooms' N-S scores, the
    Matches sheet the team names and the number of boards.  Numbers, names and players go into the
    extra sheet ``Teams``, contracts into ``Contracts``, deals and leads into ``Deals`` and ``Leads``
    (the template's formulas read none of them).
    """
    if event.kind != TEAMS:
        raise FormatError("a pairs event goes into the pairs workbook (workbooks/pairs.xlsx), not the teams workbook",
                          where=name)
    check_standard_cycle(event, name)
    parts = {p.number: p for p in event.participants}
    for b in event.boards:
        for r in b.results:
            for num in (r.ns, r.ew):
                parts.setdefault(num, Participant(num))
    labels: dict[str, str] = {}
    for p in parts.values():
        label = _team_label(p)
        if label in labels:
            raise FormatError(f"two teams are called {label!r} (teams {labels[label]} and {p.number}); the teams "
                              f"workbook tells teams apart by name", where=name)
        labels[label] = p.number
    matches = team_matches(event, name)
    ws = get_sheet(wb, BOARDS_SHEET)
    cols = find_columns(ws, _B_COLUMNS, _B_OPTIONAL, sheet=BOARDS_SHEET, where=name)
    rows: list[tuple[object, ...]] = []
    weighted = any(r.outcomes for b in event.boards for r in b.results)
    for k, (a, c, boards) in enumerate(matches, start=1):
        for bno, (r1, r2) in boards.items():
            row: tuple[object, ...] = (k, bno, _room_score(r1, bno, name), _room_score(r2, bno, name))
            if r2 is not None and r2.outcomes:  # (the workbook weighs room 1's score against room 2's)
                raise FormatError(f"board {bno}, team {r2.ns} v team {r2.ew}: a weighted score (Law 12C1(c)) in "
                                  f"room 2; the teams workbook holds one in room 1 only (team {a} sitting N-S)",
                                  where=name)
            if weighted:  # Law 12C1(c): room 1's other outcomes and every weight
                row += tuple(workbook_outcomes(r1, bno, name) if r1 is not None and r1.outcomes else
                             [None] * len(_B_OPTIONAL))
            rows.append(row)
    if weighted and any(c not in cols for c in _B_OPTIONAL):
        raise FormatError(f"the sheet {BOARDS_SHEET!r} has no columns for a weighted score (a workbook made before "
                          f"them): start from a current template", where=name)
    fill_table(ws, cols, _B_COLUMNS + _B_OPTIONAL if weighted else _B_COLUMNS, rows, what="match boards",
               sheet=BOARDS_SHEET, where=name)
    ms = get_sheet(wb, MATCHES_SHEET)
    mcols = find_columns(ms, _M_COLUMNS, sheet=MATCHES_SHEET, where=name)
    fill_table(ms, mcols, _M_COLUMNS, [(k, _team_label(parts[a]), _team_label(parts[c]), len(boards))
                                       for k, (a, c, boards) in enumerate(matches, start=1)],
               what="matches", sheet=MATCHES_SHEET, where=name)
    if not write_event_details(ms, event):  # (a book made before the Event, Date and Club parameters)
        write_properties(wb, event)
    ordered = sorted(parts.values(), key=lambda p: natural_key(p.number))
    team_rows = [[cell_number(p.number), p.name or None, join_names(p.names), " & ".join(p.player_ids()) if p.ids else None]
                 for p in ordered]
    if TEAMS_SHEET in wb.sheetnames:  # the template's own Teams sheet
        ts = wb[TEAMS_SHEET]
        tcols = find_columns(ts, _TEAM_COLUMNS, (PLAYER_NUMBERS,), sheet=TEAMS_SHEET, where=name)
        if PLAYER_NUMBERS not in tcols:  # (a book made before the column)
            if any(p.ids for p in ordered):
                raise FormatError(f"the sheet {TEAMS_SHEET!r} has no column {PLAYER_NUMBERS!r} for the players' "
                                  f"national numbers (a workbook made before it): start from a current template",
                                  where=name)
        columns = (*_TEAM_COLUMNS, PLAYER_NUMBERS) if PLAYER_NUMBERS in tcols else _TEAM_COLUMNS
        fill_table(ts, tcols, columns, [row[:len(columns)] for row in team_rows], what="teams", sheet=TEAMS_SHEET,
                   where=name)
        _text_format(ts, tcols.get(PLAYER_NUMBERS), len(team_rows))
    else:  # (a book made before the template had one)
        table_sheet(wb, TEAMS_SHEET, "Each team's number (as in the file), its name in the Matches sheet (blank: the "
                    "team has no name, and the Matches sheet calls it Team <number>) and its players. Written by "
                    "xlbridge import; read by xlbridge export and publish. Numbers: the players' national numbers, "
                    "optional, in the order of the players.", (*_TEAM_COLUMNS, PLAYER_NUMBERS), team_rows,
                    (7, 24, 50, 24))
    crow = [[b.number, cell_number(r.ns), cell_number(r.ew), r.contract, r.declarer, r.tricks]
            for b in sorted(event.boards, key=lambda b: b.number) for r in b.results if r.contract is not None]
    if crow:
        table_sheet(wb, CONTRACTS_SHEET, "The contract, declarer and tricks taken behind each room's score (teams "
                    "by number: NS is the team sitting N-S). Written by xlbridge import; read by xlbridge export "
                    "and publish, which check each score against its contract.", _C_COLUMNS, crow,
                    (7, 6, 6, 9, 9, 7))
    write_extra_sheets(wb, event)


def _text_format(ws: Any, col: int | None, rows: int) -> None:
    """Keep the national numbers written as text (``0555002`` stays so when a member edits the cell)."""
    if col is not None:
        for r in range(HEADER_ROW + 1, HEADER_ROW + 1 + rows):
            ws.cell(row=r, column=col).number_format = "@"


def read_teams_workbook(path: str | os.PathLike[str]) -> Event:
    """Read a teams workbook (teams.xlsx, filled by hand or by :func:`fill_teams_workbook`) into an
    (unscored) teams :class:`Event`: room 1 is team A sitting N-S against team B, room 2 the
    reverse.  Team numbers come from the ``Teams`` sheet when present (a blank ``Name`` there is a team
    without a name, which the Matches sheet calls ``Team <number>``; a name typed there, even ``Team 3``,
    is the team's name), else 1, 2, ... in order of first appearance on the Matches sheet; contracts
    from ``Contracts``, deals and leads from ``Deals`` and ``Leads``.

    A Law 12C1(c) weighted board (``Outcome 2``/``Outcome 3``, ``Weight 1..3``): room 1's
    outcomes (its N-S score at ``Weight 1``, ``Outcome 2`` and ``Outcome 3`` at ``Weight 2`` and ``3``,
    checked as the core's weighted score, :func:`~xlbridge.formats.sheets.read_outcomes`) go into the
    room-1 row's ``outcomes``; room 2 then needs a real N-S score, or none yet.
    """
    name = display_name(path)
    wb = open_workbook(path, data_only=True, read_only=True)  # streamed: only the cells the file holds
    try:
        number_of: dict[str, str] = {}
        teams: dict[str, Participant] = {}
        listed = False  # once the Teams sheet lists a team, every team of the Matches sheet must be listed
        if TEAMS_SHEET in wb.sheetnames:
            for _r, get, where in table_rows(wb[TEAMS_SHEET], _TEAM_COLUMNS, (PLAYER_NUMBERS, PRIVATE), sheet=TEAMS_SHEET,
                                             name=name, keys=_TEAM_COLUMNS):
                listed = True
                num, given = id_text(get("Team"), where("Team"), "team number"), cell_text(get("Name"))
                if num is None:
                    raise FormatError("a team needs a number", where=where("Team"))
                if num in teams:
                    raise FormatError("a team is listed twice:", where=where("Team"), value=num)
                called = given or _default_label(num)  # a blank Name: no name (the Matches sheet says Team <n>)
                if called in number_of:
                    raise FormatError(f"two teams are called {called!r} on the Matches sheet (teams "
                                      f"{number_of[called]} and {num}); the teams workbook tells teams apart by "
                                      f"name", where=where("Name"))
                players = cell_text(get("Players"))
                check_name(given, "team name", where=where("Name"))
                squad = check_players(split_names(players), where=where("Players"))
                typed = cell_text(get(PLAYER_NUMBERS))  # (None where the sheet has no Numbers column)
                ids = () if typed is None else player_numbers(typed, len(squad), where(PLAYER_NUMBERS))
                private = private_flag(get(PRIVATE), where(PRIVATE)) if get(PRIVATE) is not None else False
                teams[num] = Participant(num, None, squad, given, ids=ids, private=private)
                number_of[called] = num
        matches: dict[int, tuple[str, str]] = {}
        lengths: dict[tuple[str, str], int] = {}  # (team a, team b) in number order -> the declared boards
        for _r, get, where in table_rows(get_sheet(wb, MATCHES_SHEET, name), _M_COLUMNS, sheet=MATCHES_SHEET,
                                         name=name):
            pair: list[str] = []
            # (a match number listed again, a team missing, not on the Teams sheet, or against itself: as recalc
            # names it, core.travellerrow)
            mistake = match_row_mistake(get("Team A"), get("Team B"), set(number_of) if listed else (), get("Match"),
                                        set(matches))
            if mistake is not None:
                raise FormatError(mistake.words, where=where(mistake.column))
            m = whole_number(get("Match"), where("Match"), "match number")
            for col in ("Team A", "Team B"):
                label = cell_text(get(col))
                if label is None:
                    raise FormatError("team name missing", where=where(col))
                check_name(label, "team name", where=where(col))
                if label not in number_of:
                    if listed:
                        raise FormatError("a team the Teams sheet does not list:", where=where(col), value=label)
                    number_of[label] = str(len(number_of) + 1)
                    teams[number_of[label]] = Participant(number_of[label], None, (), label)
                pair.append(number_of[label])
            if pair[0] == pair[1]:
                raise FormatError("a team cannot play against itself:", where=where("Team B"), value=get("Team B"))
            matches[m] = (pair[0], pair[1])
            if cell_text(get("Boards")) is not None:  # (the VP scale's length, as MATCH_RESULT takes it)
                met = (min(pair, key=natural_key), max(pair, key=natural_key))
                # (at most the VP scale's longest match, the core's xlbridge.MAX_BOARDS, as MATCH_RESULT takes it)
                lengths[met] = lengths.get(met, 0) + whole_number(get("Boards"), where("Boards"), "number of boards",
                                                                  xlbridge.MAX_BOARDS)
                if lengths[met] > xlbridge.MAX_BOARDS:  # (two matches of the same teams are scored as one)
                    raise FormatError(f"the matches of these two teams come to {lengths[met]:,} boards, more than "
                                      f"the VP scale's {xlbridge.MAX_BOARDS:,}", where=where("Boards"))
        deals, leads = read_extra_sheets(wb, name)
        contracts: dict[tuple[int, str | None, str | None], tuple[Getter, Where]] = {}
        if CONTRACTS_SHEET in wb.sheetnames:
            for _r, get, where in table_rows(wb[CONTRACTS_SHEET], _C_COLUMNS, sheet=CONTRACTS_SHEET, name=name):
                b = board_number(get("Board"), where("Board"))
                key = (b, cell_text(get("NS")), cell_text(get("EW")))
                if key in contracts:
                    raise FormatError(f"a second contract for board {b}, team {key[1]} v team {key[2]}",
                                      where=where("Contract"))
                contracts[key] = (get, where)
        boards: dict[int, list[Result]] = {}
        cells: dict[int, list[dict[str, str]]] = {}  # each room's score cell, for the board checks
        seen: set[tuple[int, int]] = set()
        typed_over: list[str] = []  # IMPs A cells showing another number than the IMPs of the row's rooms, rows with
        # one room's score only: the notes said as warnings
        for _r, get, where in table_rows(get_sheet(wb, BOARDS_SHEET, name), _B_COLUMNS, _B_OPTIONAL + (_IMPS_A,),
                                         sheet=BOARDS_SHEET, name=name, keys=_B_COLUMNS + _B_OPTIONAL):
            note = _imps_typed_over(get, where)
            if note is not None:
                typed_over.append(note)
            weights = [col for col in _B_OPTIONAL if cell_text(get(col)) is not None]
            if weights and cell_text(get(_ROOM_1)) is None:
                raise FormatError("a weighted board (Law 12C1(c)) needs room 1's N-S score, its first outcome",
                                  where=where(_ROOM_1))
            # (the row's match and board read as the workbook's WEIGHTED_IMPS reads them: core.travellerrow)
            mistake = board_row_mistake(get("Match"), get("Board"), set(matches), seen)
            if mistake is not None:
                raise FormatError(mistake.words, where=where(mistake.column))
            m = whole_number(get("Match"), where("Match"), "match number")
            b = board_number(get("Board"), where("Board"))
            missing = room_missing(cell_text(get(_ROOM_1)), cell_text(get(_ROOM_2)), (_ROOM_1, _ROOM_2))
            if missing is not None:  # (one room only, as the workbook's WEIGHTED_IMPS names it: the board left out
                # of its match, as the workbook's match leaves it, and said; published during a session, it waits)
                typed_over.append(f"{where(missing.column).rpartition(', ')[2]}: {missing.words}; left out of match "
                                  f"{m} until then")
                for key in ((b, *matches[m]), (b, *matches[m][::-1])):  # (the room's contract and lead: with it)
                    contracts.pop(key, None)
                    leads.pop(key, None)
                continue
            a, c = matches[m]
            for col, ns, ew in ((_ROOM_1, a, c), (_ROOM_2, c, a)):
                v = get(col)
                if cell_text(v) is None:
                    continue
                try:
                    score = parse_entry(v)
                except (xlbridge.XlbridgeError, TypeError, ValueError) as exc:
                    raise FormatError(str(exc).rstrip("."), where=where(col)) from None
                unplayed = room_not_played(score, v, col)
                if unplayed is not None:  # (the words of the workbook's WEIGHTED_IMPS)
                    raise FormatError(unplayed.words, where=where(col))
                if score is None:
                    raise FormatError("cannot read the room's N-S score:", where=where(col), value=v)
                result = Result(ns, ew, score=score)
                found = contracts.pop((b, ns, ew), None)
                if found is not None:
                    cget, cwhere = found
                    contract = normalize_contract(cell_text(cget("Contract")) or "", element=cwhere("Contract"))
                    declarer = cell_text(cget("Declarer"))
                    declarer = normalize_seat(declarer, element=cwhere("Declarer")) if declarer else None
                    tricks = cget("Tricks")
                    if cell_text(tricks) is not None:
                        if not isinstance(tricks, (int, float)) or isinstance(tricks, bool) or tricks != int(tricks) \
                                or not 0 <= tricks <= 13:
                            raise FormatError("tricks must be a whole number 0-13, got", where=cwhere("Tricks"),
                                              value=tricks)
                        tricks = int(tricks)
                    else:
                        tricks = None
                    result = check_result(replace(result, contract=contract, declarer=declarer, tricks=tricks),
                                          VULNERABILITY(b), {"where": cwhere("Contract")})
                if weights and col == _ROOM_1:  # room 1's outcomes and weights: the core's weighted score
                    result = replace(result, outcomes=read_outcomes(result.score, get, where, b, _ROOM_1,
                                                                    _OUTCOMES))
                elif weights and isinstance(result.score, xlbridge.Artificial):  # room 2 against a weighted room 1
                    raise FormatError("a weighted board (Law 12C1(c)) cannot be played against an artificial "
                                      "score:", where=where(col), value=v)
                if (b, ns, ew) in leads:
                    result = replace(result, lead=leads.pop((b, ns, ew))[0])
                boards.setdefault(b, []).append(result)
                cells.setdefault(b, []).append({"where": where(col)})
        for (b, cns, cew), (_get, cwhere) in contracts.items():
            raise FormatError(f"a contract for a room the Boards sheet does not have (board {b}, team {cns} v team "
                              f"{cew})", where=cwhere("Contract"))
        for (b, ns, ew), (_lead, cell) in leads.items():
            raise FormatError(f"a lead for a room the Boards sheet does not have (board {b}, team {ns} v team {ew})",
                              where=cell)
        for b in deals:
            boards.setdefault(b, [])
        title, date, club, scorer = event_header(wb, get_sheet(wb, MATCHES_SHEET, name), name, MATCHES_SHEET)
        event = Event(name=title, date=date, site=club, scorer=scorer, kind=TEAMS, scoring=Scoring.IMP, movement=HOWELL,
                      participants=tuple(teams.values()), boards=event_boards(boards, deals),
                      match_lengths=tuple((a, c, n) for (a, c), n in lengths.items()), notes=tuple(typed_over))
        for bd in event.boards:  # a room's score and a team meeting a board twice: at the room's cell
            check_traveller(bd.number, bd.results, VULNERABILITY(bd.number), HOWELL, TEAMS, cells.get(bd.number, []))
        return event
    finally:
        wb.close()
