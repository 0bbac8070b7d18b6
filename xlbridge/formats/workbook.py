"""A pairs session between an :class:`~xlbridge.formats.model.Event` and a pairs workbook.

The workbook is the bundled ``pairs.xlsx`` template (or any book laid out like it): the columns are
found by their header names on the sheets ``Travellers`` (``Board``, ``NS``, ``EW``, ``Contract``,
``Declarer``, ``Tricks``, ``Typed Score``, ``Outcome 2 NS``, ``Weight 1``, ``Arrow switch``) and
``Pairs`` (``Pair``, ``Direction``, ``Names``), and the parameters by their labels (``Movement``,
``Scale``) in the Travellers sheet, so a column moved by a committee still maps.

- :func:`fill_pairs_workbook` writes an event's travellers and pairs into an (openpyxl) template
  workbook: the example rows are cleared first; a contract row keeps contract, declarer and tricks
  (the workbook scores it), an artificial score or ``NP`` goes to ``Typed Score``; player names
  are joined with `` & ``; the event's name and date go into the document properties.
- :func:`read_pairs_workbook` reads such a workbook back into an event (inputs only: the scores
  follow from them through the core, :func:`xlbridge.formats.score_event`). Rows the two file
  formats cannot carry (a Law 12C1(c) weighted score, an arrow-switched row) are refused with a
  line naming the cell.
- Deals and opening leads, which the template has no place for, go into two extra sheets that the
  importer appends after the template's own (the template module is not changed, and the formulas
  never read them): ``Deals`` (``Board``, ``Dealer``, ``Vulnerable``, ``Deal`` in PBN notation,
  North first) and ``Leads`` (``Board``, ``NS``, ``EW``, ``Lead``: suit then rank). A workbook
  whose Travellers sheet has a ``Lead`` column gets the leads there instead. The reader takes both
  sheets when present (:func:`read_extra_sheets`).

>>> from xlbridge.formats.model import Board, Event, Participant, Result, MITCHELL
>>> ev = Event(name="Tuesday pairs", movement=MITCHELL,
...            participants=(Participant("1", "NS", ("Ann", "Bob")), Participant("2", "EW", ("Cy", "Di"))),
...            boards=(Board(1, results=(Result("1", "2", "4S", "N", 10, 420),)),))
>>> travellers_rows(ev)
[[1, 1, 2, '4S', 'N', 10, None]]
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import replace

import xlbridge

from ..core.entries import parse_entry
from .checks import check_board, check_result
from .errors import FormatError
from .model import (HOWELL, MITCHELL, TEAMS, Board, Event, Participant, Result, natural_key, normalize_contract,
                    normalize_deal, normalize_lead, normalize_seat)

__all__ = ["fill_pairs_workbook", "read_pairs_workbook", "travellers_rows", "VULNERABILITY", "write_extra_sheets",
           "read_extra_sheets", "DEALS_SHEET", "LEADS_SHEET", "fill_teams_workbook", "read_teams_workbook",
           "is_teams_workbook", "team_matches", "check_standard_cycle", "read_workbook"]

TRAVELLERS, PAIRS_SHEET = "Travellers", "Pairs"
HEADER_ROW = 4
_T_COLUMNS = ("Board", "NS", "EW", "Contract", "Declarer", "Tricks", "Typed Score")
_T_OPTIONAL = ("Outcome 2 NS", "Outcome 3 NS", "Weight 1", "Weight 2", "Weight 3", "Arrow switch", "Lead")
_P_COLUMNS = ("Pair", "Direction", "Names")
DEALS_SHEET, LEADS_SHEET = "Deals", "Leads"
_D_COLUMNS = ("Board", "Dealer", "Vulnerable", "Deal")
_L_COLUMNS = ("Board", "NS", "EW", "Lead")
_PROPERTY = "xlbridge event"  # custom document property: the event's name (date in the next one)
_DATE_PROPERTY = "xlbridge event date"


def VULNERABILITY(board: int) -> str:  # noqa: N802 (a table-like function)
    """The vulnerability name of ``board`` in the standard 16-board cycle (the core's, Law 2).

    >>> [VULNERABILITY(b) for b in (1, 2, 3, 4, 5)]
    ['None', 'NS', 'EW', 'All', 'NS']
    """
    return str(xlbridge.vulnerability(board).name)


def _number(text: str):
    return int(text) if text.isdigit() else text


def travellers_rows(event: Event) -> list:
    """The Travellers rows of ``event``: Board, NS, EW, Contract, Declarer, Tricks, Typed Score."""
    rows = []
    for b in sorted(event.boards, key=lambda b: b.number):
        for r in b.results:
            typed = None if r.contract is not None else (None if r.score is None else str(r.score))
            rows.append([b.number, _number(r.ns), _number(r.ew), r.contract, r.declarer,
                         r.tricks if r.contract is not None else None, typed])
    return rows


def _columns(ws, names, optional=(), *, sheet: str, where: str | None = None) -> dict:
    """{header: column index} on the header row; a missing required header is an error."""
    found = {}
    for cell in ws[HEADER_ROW]:
        if isinstance(cell.value, str) and cell.value.strip() in names + tuple(optional):
            found.setdefault(cell.value.strip(), cell.column)
    missing = [n for n in names if n not in found]
    if missing:
        raise FormatError(f"sheet {sheet!r} has no column {missing[0]!r} on row {HEADER_ROW}", where=where)
    return found


def _parameter(ws, label: str):
    """The cell right of the cell holding ``label`` (the template's parameter block), or None."""
    for row in ws.iter_rows(min_row=1, max_row=40):
        for cell in row:
            if isinstance(cell.value, str) and cell.value.strip() == label:
                return ws.cell(row=cell.row, column=cell.column + 1)
    return None


def _capacity(ws) -> int | None:
    """The last row of the sheet's ``XLBRIDGE_CAPACITY`` area, if it declares one."""
    dn = ws.defined_names.get("XLBRIDGE_CAPACITY")
    if dn is None:
        return None
    last = dn.attr_text.rsplit("$", 1)[-1]
    return int(last) if last.isdigit() else None


def _sheet(wb, name: str, where: str | None = None):
    if name not in wb.sheetnames:
        raise FormatError(f"the workbook has no sheet {name!r} (a pairs workbook: workbooks/pairs.xlsx)", where=where)
    return wb[name]


def check_standard_cycle(event: Event, name: str | None = None) -> None:
    """Refuse a board whose vulnerability is not the standard cycle's: the workbooks score every board
    at the vulnerability of its number (Law 2), so a contract would score differently there."""
    for b in event.boards:
        std = VULNERABILITY(b.number)
        if b.vulnerable is not None and b.vulnerable != std:
            raise FormatError(f"board {b.number} is vulnerable {b.vulnerable}, but the workbook scores board "
                              f"{b.number} at the standard cycle's vulnerability ({std}); renumber the boards "
                              f"or score this file without the workbook", where=name)


def fill_pairs_workbook(wb, event: Event, *, name: str | None = None) -> None:
    """Write ``event`` (a pairs event) into the pairs template workbook ``wb`` (openpyxl), in place.

    Too many rows for the sheet's capacity is an error naming the capacity; nothing is truncated.
    Deals and leads go into the extra sheets (:func:`write_extra_sheets`); ``name`` (the source
    file's name) starts every error message.
    """
    if event.kind == TEAMS:
        raise FormatError("a teams event goes into the teams workbook (workbooks/teams.xlsx), not the pairs "
                          "workbook", where=name)
    check_standard_cycle(event, name)
    ws = _sheet(wb, TRAVELLERS)
    cols = _columns(ws, _T_COLUMNS, _T_OPTIONAL, sheet=TRAVELLERS)
    clear = [cols[n] for n in _T_COLUMNS + _T_OPTIONAL if n in cols]
    last = _capacity(ws) or ws.max_row
    rows = travellers_rows(event)
    if len(rows) > last - HEADER_ROW:
        raise FormatError(f"{len(rows):,} traveller rows do not fit the sheet {TRAVELLERS!r} "
                          f"(rows {HEADER_ROW + 1:,} to {last:,})")
    for r in range(HEADER_ROW + 1, ws.max_row + 1):
        for c in clear:
            if ws.cell(row=r, column=c).value is not None:
                ws.cell(row=r, column=c).value = None
    for i, row in enumerate(rows):
        for col, v in zip(_T_COLUMNS, row):
            if v is not None:
                ws.cell(row=HEADER_ROW + 1 + i, column=cols[col], value=v)
    if "Lead" in cols:  # a template with a Lead column: the leads stay on their rows
        leads = [r.lead for b in sorted(event.boards, key=lambda b: b.number) for r in b.results]
        for i, lead in enumerate(leads):
            if lead is not None:
                ws.cell(row=HEADER_ROW + 1 + i, column=cols["Lead"], value=lead)
    movement = _parameter(ws, "Movement")
    if movement is not None:
        movement.value = "Mitchell" if event.movement == MITCHELL else "Howell"
    ps = _sheet(wb, PAIRS_SHEET)
    pcols = _columns(ps, _P_COLUMNS, sheet=PAIRS_SHEET)
    plast = _capacity(ps) or max(ps.max_row, HEADER_ROW + len(event.participants))
    for r in range(HEADER_ROW + 1, ps.max_row + 1):
        for c in pcols.values():
            ps.cell(row=r, column=c).value = None
    if len(event.participants) > plast - HEADER_ROW:
        raise FormatError(f"{len(event.participants):,} pairs do not fit the sheet {PAIRS_SHEET!r}")
    for i, p in enumerate(event.participants):
        r = HEADER_ROW + 1 + i
        ps.cell(row=r, column=pcols["Pair"], value=_number(p.number))
        ps.cell(row=r, column=pcols["Direction"], value=p.direction if event.movement == MITCHELL else None)
        names = " & ".join(p.names) if p.names else (p.name or None)
        ps.cell(row=r, column=pcols["Names"], value=names)
    _properties(wb, event)
    write_extra_sheets(wb, event, leads="Lead" not in cols)


def _standard_dealer(board: int) -> str:
    return "NESW"[(board - 1) % 4]


def write_extra_sheets(wb, event: Event, *, leads: bool = True) -> None:
    """Append the ``Deals`` sheet (when a board has a deal or a dealer off the standard cycle) and the
    ``Leads`` sheet (when a row has a lead and ``leads``) to ``wb``, after the template's sheets.

    The template's formulas never read them; ``xlbridge recalc`` leaves a sheet without formulas as
    it is.  An existing sheet of the same name is replaced.
    """
    boards = sorted(event.boards, key=lambda b: b.number)
    if any(b.deal or (b.dealer and b.dealer != _standard_dealer(b.number)) for b in boards):
        rows = [[b.number, b.dealer or _standard_dealer(b.number), b.vulnerable or VULNERABILITY(b.number),
                 b.deal] for b in boards]
        _table_sheet(wb, DEALS_SHEET, "Every board's dealer, vulnerability and the four hands in PBN notation "
                     "(N:spades.hearts.diamonds.clubs of North, then East, South, West; - for a hand not "
                     "known). Written by xlbridge import; read by xlbridge export and publish.",
                     _D_COLUMNS, rows, (7, 7, 11, 70))
    if leads:
        rows = [[b.number, _number(r.ns), _number(r.ew), r.lead] for b in boards for r in b.results if r.lead]
        if rows:
            _table_sheet(wb, LEADS_SHEET, "The opening lead of each traveller row (suit then rank: SK is the "
                         "king of spades, HT the ten of hearts). Written by xlbridge import; read by xlbridge "
                         "export and publish.", _L_COLUMNS, rows, (7, 6, 6, 7))


def _table_sheet(wb, title: str, note: str, headers, rows, widths) -> None:
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    if title in wb.sheetnames:
        del wb[title]
    ws = wb.create_sheet(title)
    ws["A1"] = title
    ws["A1"].font = Font(bold=True, size=14)
    ws["A2"] = note
    for j, (h, w) in enumerate(zip(headers, widths), start=1):
        c = ws.cell(row=HEADER_ROW, column=j, value=h)
        c.font = Font(bold=True)
        ws.column_dimensions[get_column_letter(j)].width = w
    for i, row in enumerate(rows, start=HEADER_ROW + 1):
        for j, v in enumerate(row, start=1):
            if v is not None:
                ws.cell(row=i, column=j, value=v)
    ws.freeze_panes = f"A{HEADER_ROW + 1}"


def read_extra_sheets(wb, name: str) -> tuple[dict, dict]:
    """``({board: (dealer, vulnerable, deal)}, {(board, ns, ew): lead})`` from the ``Deals`` and
    ``Leads`` sheets (empty when a sheet is absent); a bad cell is an error naming it."""
    from openpyxl.utils import get_column_letter

    deals: dict = {}
    leads: dict = {}
    for sheet, columns in ((DEALS_SHEET, _D_COLUMNS), (LEADS_SHEET, _L_COLUMNS)):
        if sheet not in wb.sheetnames:
            continue
        ws = wb[sheet]
        cols = _columns(ws, columns, sheet=sheet, where=name)
        for r, row in enumerate(ws.iter_rows(min_row=HEADER_ROW + 1, values_only=True), start=HEADER_ROW + 1):
            def get(col, row=row):
                i = cols[col]
                return None if i > len(row) else row[i - 1]

            def where(col, r=r, sheet=sheet):
                return f"{name}, {sheet}!{get_column_letter(cols[col])}{r}"

            if all(_text(get(c)) is None for c in columns):
                continue
            board = get("Board")
            if not isinstance(board, (int, float)) or isinstance(board, bool) or board != int(board) or board < 1:
                raise FormatError("board number must be a positive whole number, got", where=where("Board"),
                                  value=board)
            b = int(board)
            if sheet == DEALS_SHEET:
                if b in deals:
                    raise FormatError(f"board {b} is listed twice", where=where("Board"))
                dealer = _text(get("Dealer"))
                dealer = normalize_seat(dealer, file=None, element=where("Dealer")) if dealer else _standard_dealer(b)
                vul = _text(get("Vulnerable"))
                if vul is not None:
                    try:
                        vul = xlbridge.vulnerability(vul).name
                    except xlbridge.XlbridgeError:
                        raise FormatError("cannot read vulnerability:", where=where("Vulnerable"), value=vul) from None
                    if vul != VULNERABILITY(b):
                        raise FormatError(f"the workbook scores board {b} at the standard cycle's vulnerability "
                                          f"({VULNERABILITY(b)}), not", where=where("Vulnerable"), value=vul)
                deal = _text(get("Deal"))
                deal = normalize_deal(deal, element=where("Deal")) if deal else None
                deals[b] = (dealer, deal)
            else:
                ns, ew, lead = _text(get("NS")), _text(get("EW")), _text(get("Lead"))
                for col, v in (("NS", ns), ("EW", ew)):
                    if v is None:
                        raise FormatError("pair number missing", where=where(col))
                key = (b, ns, ew)
                if key in leads:
                    raise FormatError(f"a second lead for board {b}, {ns} v {ew}", where=where("Lead"))
                leads[key] = (normalize_lead(lead, element=where("Lead")) if lead else None, where("Lead"))
    return deals, leads


def _text(v) -> str | None:
    if v is None:
        return None
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    s = str(v).strip()
    return s or None


def read_pairs_workbook(path) -> Event:
    """Read the pairs workbook at ``path`` into an (unscored) :class:`Event`.

    Board vulnerabilities and dealers follow the standard cycle from the board number (as the
    workbook scores them). Errors name the sheet and cell.
    """
    import openpyxl

    from .errors import display_name

    name = display_name(path)
    try:
        wb = openpyxl.load_workbook(path, data_only=True, read_only=False)
    except Exception as exc:  # openpyxl raises many kinds for a file that is not a workbook
        raise FormatError(f"{name}: not a readable .xlsx workbook ({type(exc).__name__})") from None
    try:
        ws = _sheet(wb, TRAVELLERS, name)
        cols = _columns(ws, _T_COLUMNS, _T_OPTIONAL, sheet=TRAVELLERS, where=name)
        movement_cell = _parameter(ws, "Movement")
        mitchell = movement_cell is None or str(movement_cell.value or "").strip().lower() != "howell"
        boards: dict = {}
        last = _capacity(ws) or ws.max_row
        for r, row in enumerate(ws.iter_rows(min_row=HEADER_ROW + 1, max_row=last, values_only=True),
                                start=HEADER_ROW + 1):
            def get(col, row=row):
                i = cols.get(col)
                return None if i is None or i > len(row) else row[i - 1]

            board, ns, ew = get("Board"), get("NS"), get("EW")
            if all(_text(get(c)) is None for c in _T_COLUMNS):
                continue

            def where(col, r=r):
                from openpyxl.utils import get_column_letter

                return f"{name}, {TRAVELLERS}!{get_column_letter(cols[col])}{r}"

            for col in ("Outcome 2 NS", "Weight 1"):
                if _text(get(col)) is not None:
                    raise FormatError("a weighted score (Law 12C1(c)) cannot be written to PBN or USEBIO:",
                                      where=where(col), value=get(col))
            if _text(get("Arrow switch")) is not None:
                raise FormatError("an arrow-switched row cannot be written to PBN or USEBIO yet:",
                                  where=where("Arrow switch"), value=get("Arrow switch"))
            if not isinstance(board, (int, float)) or isinstance(board, bool) or board != int(board) or board < 1:
                raise FormatError("board number must be a positive whole number, got", where=where("Board"),
                                  value=board)
            for col, v in (("NS", ns), ("EW", ew)):
                if _text(v) is None:
                    raise FormatError("pair number missing", where=where(col))
            b = int(board)
            contract, declarer, tricks, typed = (get("Contract"), get("Declarer"), get("Tricks"), get("Typed Score"))
            try:
                if _text(contract) is not None:
                    score = xlbridge.bridge_score(str(contract), _text(declarer), tricks, b)
                    result = Result(_text(ns), _text(ew), str(contract).strip().upper(), _text(declarer).upper()
                                    if _text(declarer) else None, int(tricks), score)
                elif _text(typed) is not None:
                    score = parse_entry(typed)
                    result = Result(_text(ns), _text(ew), score=score)
                else:
                    raise FormatError("no contract and no typed score", where=where("Contract"))
            except FormatError:
                raise
            except (xlbridge.XlbridgeError, TypeError, ValueError) as exc:
                col = "Contract" if _text(contract) is not None else "Typed Score"
                raise FormatError(str(exc).rstrip("."), where=where(col)) from None
            lead = _text(get("Lead"))
            if lead is not None:
                result = replace(result, lead=normalize_lead(lead, element=where("Lead")))
            boards.setdefault(b, []).append(result)
        deals, leads = read_extra_sheets(wb, name)
        for (b, ns, ew), (lead, cell) in leads.items():
            rows = boards.get(b, [])
            hit = [i for i, res in enumerate(rows) if (res.ns, res.ew) == (ns, ew)]
            if not hit:
                raise FormatError(f"a lead for a row the Travellers sheet does not have (board {b}, {ns} v {ew})",
                                  where=cell)
            if rows[hit[0]].lead is not None and rows[hit[0]].lead != lead:
                raise FormatError("the lead differs from the Travellers sheet's Lead column:", where=cell, value=lead)
            rows[hit[0]] = replace(rows[hit[0]], lead=lead)
        for b in deals:
            boards.setdefault(b, [])
        participants = _participants(wb, mitchell, name)
        props = {p.name: p.value for p in wb.custom_doc_props}
        date = None
        if props.get(_DATE_PROPERTY):
            try:
                date = _dt.date.fromisoformat(props[_DATE_PROPERTY])
            except ValueError:
                date = None
        seen = {p.key for p in participants}
        extra = []
        for rows in boards.values():
            for res in rows:
                for side, num in (("NS", res.ns), ("EW", res.ew)):
                    key = (side if mitchell else None, num)
                    if key not in seen:
                        seen.add(key)
                        extra.append(Participant(num, key[0]))
        return Event(name=props.get(_PROPERTY) or None, date=date, movement=MITCHELL if mitchell else HOWELL,
                     participants=tuple(participants) + tuple(extra),
                     boards=tuple(Board(n, deals.get(n, (_standard_dealer(n), None))[0], VULNERABILITY(n),
                                        deals.get(n, (None, None))[1], tuple(rows))
                                  for n, rows in sorted(boards.items())))
    finally:
        wb.close()


def _participants(wb, mitchell: bool, name: str) -> list:
    if PAIRS_SHEET not in wb.sheetnames:
        return []
    ps = wb[PAIRS_SHEET]
    cols = _columns(ps, _P_COLUMNS, sheet=PAIRS_SHEET, where=name)
    out, seen = [], set()
    for r, row in enumerate(ps.iter_rows(min_row=HEADER_ROW + 1, values_only=True), start=HEADER_ROW + 1):
        def get(col, row=row):
            i = cols[col]
            return None if i > len(row) else row[i - 1]
        number = _text(get("Pair"))
        if number is None:
            continue
        direction = _text(get("Direction"))
        if mitchell:
            direction = (direction or "").upper().replace("-", "").replace("/", "")
            if direction not in ("NS", "EW"):
                raise FormatError(f"{name}, {PAIRS_SHEET} row {r}: direction must be NS or EW in a Mitchell, got",
                                  value=get("Direction"))
        else:
            direction = None
        key = (direction, number)
        if key in seen:
            raise FormatError(f"{name}, {PAIRS_SHEET} row {r}: pair {number} is listed twice")
        seen.add(key)
        names = _text(get("Names"))
        players = tuple(n.strip() for n in names.split("&") if n.strip()) if names else ()
        out.append(Participant(number, direction, players))
    out.sort(key=lambda p: (p.direction or "", natural_key(p.number)))
    return out


# ------------------------------------------------------------------------------------------ teams

BOARDS_SHEET, MATCHES_SHEET, TEAMS_SHEET, CONTRACTS_SHEET = "Boards", "Matches", "Teams", "Contracts"
_B_COLUMNS = ("Match", "Board", "Room 1 NS (team A NS)", "Room 2 NS (team B NS)")
_B_OPTIONAL = ("Outcome 2", "Outcome 3", "Weight 1", "Weight 2", "Weight 3")
_M_COLUMNS = ("Match", "Team A", "Team B", "Boards")
_TEAM_COLUMNS = ("Team", "Name", "Players")
_C_COLUMNS = ("Board", "NS", "EW", "Contract", "Declarer", "Tricks")


def _team_label(p: Participant) -> str:
    """A team's name in the workbook (its name, or ``Team <number>``): the teams workbook keys teams by name."""
    return p.name or f"Team {p.number}"


def team_matches(event: Event, name: str | None = None) -> list:
    """The matches of a teams event: ``[(team a, team b, {board: (room-1 row, room-2 row)})]``, team a
    the lower number (it sits N-S in room 1), in order of team numbers.

    A board a pair of teams played at one table only keeps ``None`` for the other room.
    """
    matches: dict = {}
    for b in sorted(event.boards, key=lambda b: b.number):
        for r in b.results:
            a, c = sorted((r.ns, r.ew), key=natural_key)
            if a == c:
                raise FormatError(f"board {b.number}: team {a} cannot play against itself", where=name)
            rooms = matches.setdefault((a, c), {}).setdefault(b.number, [None, None])
            room = 0 if r.ns == a else 1
            if rooms[room] is not None:
                raise FormatError(f"board {b.number}: teams {a} and {c} meet twice in the same seats", where=name)
            rooms[room] = r
    return [(a, c, {k: tuple(v) for k, v in boards.items()})
            for (a, c), boards in sorted(matches.items(), key=lambda kv: (natural_key(kv[0][0]), natural_key(kv[0][1])))]


def _room_score(r: Result | None, board: int, name: str | None):
    if r is None:
        return None
    if isinstance(r.score, xlbridge.Artificial):
        return str(r.score)
    if not isinstance(r.score, int):  # not played: the teams workbook has no entry for it
        raise FormatError(f"board {board}, team {r.ns} v team {r.ew}: a board not played (NP) cannot be entered in "
                          f"the teams workbook (leave the row out of the file, or give an artificial score)",
                          where=name)
    return r.score


def fill_teams_workbook(wb, event: Event, *, name: str | None = None) -> None:
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
    labels: dict = {}
    for p in parts.values():
        label = _team_label(p)
        if label in labels:
            raise FormatError(f"two teams are called {label!r} (teams {labels[label]} and {p.number}); the teams "
                              f"workbook tells teams apart by name", where=name)
        labels[label] = p.number
    matches = team_matches(event, name)
    ws = _sheet(wb, BOARDS_SHEET)
    cols = _columns(ws, _B_COLUMNS, _B_OPTIONAL, sheet=BOARDS_SHEET, where=name)
    rows = []
    for k, (a, c, boards) in enumerate(matches, start=1):
        for bno, (r1, r2) in boards.items():
            rows.append((k, bno, _room_score(r1, bno, name), _room_score(r2, bno, name)))
    last = _capacity(ws) or ws.max_row
    if len(rows) > last - HEADER_ROW:
        raise FormatError(f"{len(rows):,} match boards do not fit the sheet {BOARDS_SHEET!r} (rows {HEADER_ROW + 1:,} "
                          f"to {last:,})", where=name)
    for r in range(HEADER_ROW + 1, ws.max_row + 1):
        for c in cols.values():
            if ws.cell(row=r, column=c).value is not None:
                ws.cell(row=r, column=c).value = None
    for i, row in enumerate(rows, start=HEADER_ROW + 1):
        for col, v in zip(_B_COLUMNS, row):
            if v is not None:
                ws.cell(row=i, column=cols[col], value=v)
    ms = _sheet(wb, MATCHES_SHEET)
    mcols = _columns(ms, _M_COLUMNS, sheet=MATCHES_SHEET, where=name)
    mlast = _capacity(ms) or ms.max_row
    if len(matches) > mlast - HEADER_ROW:
        raise FormatError(f"{len(matches):,} matches do not fit the sheet {MATCHES_SHEET!r} (rows {HEADER_ROW + 1:,} "
                          f"to {mlast:,})", where=name)
    for r in range(HEADER_ROW + 1, ms.max_row + 1):
        for c in mcols.values():
            if ms.cell(row=r, column=c).value is not None:
                ms.cell(row=r, column=c).value = None
    for i, (a, c, boards) in enumerate(matches, start=HEADER_ROW + 1):
        for col, v in zip(_M_COLUMNS, (i - HEADER_ROW, _team_label(parts[a]), _team_label(parts[c]), len(boards))):
            ms.cell(row=i, column=mcols[col], value=v)
    _properties(wb, event)
    ordered = sorted(parts.values(), key=lambda p: natural_key(p.number))
    _table_sheet(wb, TEAMS_SHEET, "Each team's number (as in the file), its name in the Matches sheet and its "
                 "players. Written by xlbridge import; read by xlbridge export and publish.", _TEAM_COLUMNS,
                 [[_number(p.number), _team_label(p), " & ".join(p.names) or None] for p in ordered], (7, 24, 50))
    crow = [[b.number, _number(r.ns), _number(r.ew), r.contract, r.declarer, r.tricks]
            for b in sorted(event.boards, key=lambda b: b.number) for r in b.results if r.contract is not None]
    if crow:
        _table_sheet(wb, CONTRACTS_SHEET, "The contract, declarer and tricks taken behind each room's score (teams "
                     "by number: NS is the team sitting N-S). Written by xlbridge import; read by xlbridge export "
                     "and publish, which check each score against its contract.", _C_COLUMNS, crow,
                     (7, 6, 6, 9, 9, 7))
    write_extra_sheets(wb, event)


def _properties(wb, event: Event) -> None:
    from openpyxl.packaging.custom import StringProperty

    props = wb.custom_doc_props
    for key, value in ((_PROPERTY, event.name), (_DATE_PROPERTY, event.date.isoformat() if event.date else None)):
        if key in props.names:
            del props[key]
        if value:
            props.append(StringProperty(name=key, value=value))
    if event.name:
        wb.properties.title = event.name


def is_teams_workbook(wb) -> bool:
    """True for a workbook laid out like teams.xlsx (sheets Boards and Matches, no Travellers)."""
    return BOARDS_SHEET in wb.sheetnames and MATCHES_SHEET in wb.sheetnames and TRAVELLERS not in wb.sheetnames


def _rows(ws, columns, optional=(), *, sheet: str, name: str):
    """``(row number, get(column), where(column))`` for every non-empty row of a table on ``ws``."""
    from openpyxl.utils import get_column_letter

    cols = _columns(ws, columns, optional, sheet=sheet, where=name)
    for r, row in enumerate(ws.iter_rows(min_row=HEADER_ROW + 1, max_row=_capacity(ws) or ws.max_row,
                                         values_only=True), start=HEADER_ROW + 1):
        def get(col, row=row):
            i = cols.get(col)
            return None if i is None or i > len(row) else row[i - 1]

        def where(col, r=r):
            return f"{name}, {sheet}!{get_column_letter(cols[col])}{r}"

        if all(_text(get(c)) is None for c in tuple(columns) + tuple(optional)):
            continue
        yield r, get, where


def _whole(v, where: str, what: str) -> int:
    if not isinstance(v, (int, float)) or isinstance(v, bool) or v != int(v) or v < 1:
        raise FormatError(f"{what} must be a positive whole number, got", where=where, value=v)
    return int(v)


def read_teams_workbook(path) -> Event:
    """Read a teams workbook (teams.xlsx, filled by hand or by :func:`fill_teams_workbook`) into an
    (unscored) teams :class:`Event`: room 1 is team A sitting N-S against team B, room 2 the
    reverse.  Team numbers come from the ``Teams`` sheet when present (else 1, 2, ... in order of
    first appearance on the Matches sheet); contracts from ``Contracts``, deals and leads from
    ``Deals`` and ``Leads``.  A weighted board (Outcome 2/3, weights) cannot be written to PBN and is
    refused naming its cell.
    """
    import openpyxl

    from .errors import display_name

    name = display_name(path)
    try:
        wb = openpyxl.load_workbook(path, data_only=True, read_only=False)
    except Exception as exc:  # openpyxl raises many kinds for a file that is not a workbook
        raise FormatError(f"{name}: not a readable .xlsx workbook ({type(exc).__name__})") from None
    try:
        number_of: dict = {}
        teams: dict = {}
        if TEAMS_SHEET in wb.sheetnames:
            for _r, get, where in _rows(wb[TEAMS_SHEET], _TEAM_COLUMNS, sheet=TEAMS_SHEET, name=name):
                num, label = _text(get("Team")), _text(get("Name"))
                if num is None or label is None:
                    raise FormatError("a team needs a number and a name", where=where("Team" if num is None else "Name"))
                if num in teams or label in number_of:
                    raise FormatError("a team is listed twice:", where=where("Team"), value=num)
                players = _text(get("Players"))
                teams[num] = Participant(num, None, tuple(n.strip() for n in players.split("&") if n.strip())
                                         if players else (), None if label == f"Team {num}" else label)
                number_of[label] = num
        matches: dict = {}
        for _r, get, where in _rows(_sheet(wb, MATCHES_SHEET, name), _M_COLUMNS, sheet=MATCHES_SHEET, name=name):
            m = _whole(get("Match"), where("Match"), "match number")
            if m in matches:
                raise FormatError(f"match {m} is listed twice", where=where("Match"))
            pair = []
            for col in ("Team A", "Team B"):
                label = _text(get(col))
                if label is None:
                    raise FormatError("team name missing", where=where(col))
                if label not in number_of:
                    if teams:
                        raise FormatError("a team the Teams sheet does not list:", where=where(col), value=label)
                    number_of[label] = str(len(number_of) + 1)
                    teams[number_of[label]] = Participant(number_of[label], None, (), label)
                pair.append(number_of[label])
            if pair[0] == pair[1]:
                raise FormatError("a team cannot play against itself:", where=where("Team B"), value=get("Team B"))
            matches[m] = tuple(pair)
        deals, leads = read_extra_sheets(wb, name)
        contracts: dict = {}
        if CONTRACTS_SHEET in wb.sheetnames:
            for _r, get, where in _rows(wb[CONTRACTS_SHEET], _C_COLUMNS, sheet=CONTRACTS_SHEET, name=name):
                b = _whole(get("Board"), where("Board"), "board number")
                key = (b, _text(get("NS")), _text(get("EW")))
                if key in contracts:
                    raise FormatError(f"a second contract for board {b}, team {key[1]} v team {key[2]}",
                                      where=where("Contract"))
                contracts[key] = (get, where)
        boards: dict = {}
        seen = set()
        for _r, get, where in _rows(_sheet(wb, BOARDS_SHEET, name), _B_COLUMNS, _B_OPTIONAL, sheet=BOARDS_SHEET,
                                    name=name):
            for col in _B_OPTIONAL:
                if _text(get(col)) is not None:
                    raise FormatError("a weighted board (Law 12C1(c)) cannot be written to PBN or USEBIO:",
                                      where=where(col), value=get(col))
            m = _whole(get("Match"), where("Match"), "match number")
            if m not in matches:
                raise FormatError(f"match {m} is not on the Matches sheet", where=where("Match"))
            b = _whole(get("Board"), where("Board"), "board number")
            if (m, b) in seen:
                raise FormatError(f"board {b} of match {m} is listed twice", where=where("Board"))
            seen.add((m, b))
            a, c = matches[m]
            for col, ns, ew in (("Room 1 NS (team A NS)", a, c), ("Room 2 NS (team B NS)", c, a)):
                v = get(col)
                if _text(v) is None:
                    continue
                try:
                    score = parse_entry(v)
                except (xlbridge.XlbridgeError, TypeError, ValueError) as exc:
                    raise FormatError(str(exc).rstrip("."), where=where(col)) from None
                if score is xlbridge.NOT_PLAYED or score is None:
                    raise FormatError("cannot read the room's N-S score:", where=where(col), value=v)
                result = Result(ns, ew, score=score)
                found = contracts.pop((b, ns, ew), None)
                if found is not None:
                    cget, cwhere = found
                    contract = normalize_contract(_text(cget("Contract")) or "", element=cwhere("Contract"))
                    declarer = _text(cget("Declarer"))
                    declarer = normalize_seat(declarer, element=cwhere("Declarer")) if declarer else None
                    tricks = cget("Tricks")
                    if _text(tricks) is not None:
                        if not isinstance(tricks, (int, float)) or isinstance(tricks, bool) or tricks != int(tricks) \
                                or not 0 <= tricks <= 13:
                            raise FormatError("tricks must be a whole number 0-13, got", where=cwhere("Tricks"),
                                              value=tricks)
                        tricks = int(tricks)
                    else:
                        tricks = None
                    result = check_result(replace(result, contract=contract, declarer=declarer, tricks=tricks),
                                          VULNERABILITY(b), {"where": cwhere("Contract")})
                if (b, ns, ew) in leads:
                    result = replace(result, lead=leads.pop((b, ns, ew))[0])
                boards.setdefault(b, []).append(result)
        for (b, ns, ew), (_get, cwhere) in contracts.items():
            raise FormatError(f"a contract for a room the Boards sheet does not have (board {b}, team {ns} v team {ew})",
                              where=cwhere("Contract"))
        for (b, ns, ew), (_lead, cell) in leads.items():
            raise FormatError(f"a lead for a room the Boards sheet does not have (board {b}, team {ns} v team {ew})",
                              where=cell)
        for b in deals:
            boards.setdefault(b, [])
        props = {p.name: p.value for p in wb.custom_doc_props}
        date = None
        if props.get(_DATE_PROPERTY):
            try:
                date = _dt.date.fromisoformat(props[_DATE_PROPERTY])
            except ValueError:
                date = None
        event = Event(name=props.get(_PROPERTY) or None, date=date, kind=TEAMS, scoring="IMP", movement=HOWELL,
                      participants=tuple(teams.values()),
                      boards=tuple(Board(n, deals.get(n, (_standard_dealer(n), None))[0], VULNERABILITY(n),
                                         deals.get(n, (None, None))[1], tuple(rows))
                                   for n, rows in sorted(boards.items())))
        for bd in event.boards:
            locs = [{"where": f"{name}, {BOARDS_SHEET} (board {bd.number})"}] * len(bd.results)
            check_board(bd.number, list(bd.results), locs, HOWELL, TEAMS)
        return event
    finally:
        wb.close()


def read_workbook(path) -> Event:
    """A pairs or teams workbook into an (unscored) event: :func:`read_teams_workbook` for a book laid
    out like teams.xlsx (sheets ``Boards`` and ``Matches``), :func:`read_pairs_workbook` otherwise."""
    import openpyxl

    from .errors import display_name

    try:
        wb = openpyxl.load_workbook(path, read_only=True)
    except Exception as exc:  # openpyxl raises many kinds for a file that is not a workbook
        raise FormatError(f"{display_name(path)}: not a readable .xlsx workbook ({type(exc).__name__})") from None
    try:
        teams = is_teams_workbook(wb)
    finally:
        wb.close()
    return read_teams_workbook(path) if teams else read_pairs_workbook(path)
