"""What the pairs and teams workbook mappings share: tables found by their headers, the extra sheets.

Both template workbooks (``pairs.xlsx``, ``teams.xlsx``) keep their tables under a header row
(row :data:`HEADER_ROW`), whose columns are found by name (:func:`find_columns`), so a column moved
by a committee still maps; a sheet may declare its last usable row with a sheet-scoped name
``XLBRIDGE_CAPACITY`` (:func:`capacity`).  :func:`fill_table` writes rows under a header and
:func:`table_rows` reads them back with errors naming the cell.

Deals and opening leads, which neither template has a place for, go into two extra sheets after
the template's own (:func:`write_extra_sheets`, read back by :func:`read_extra_sheets`): ``Deals``
(``Board``, ``Dealer``, ``Vulnerable``, ``Deal`` in PBN notation, North first) and ``Leads``
(``Board``, ``NS``, ``EW``, ``Lead``: suit then rank).  The event's name and date travel as custom
document properties (:func:`write_properties`, :func:`read_properties`).

>>> VULNERABILITY(3), standard_dealer(3), cell_number("12"), cell_text(4.0), cell_text("  ")
('EW', 'S', 12, '4', None)
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any, TypeAlias

import xlbridge

from ..core.errors import shown
from ..core.template_contract import (CAPACITY_NAME, PARAMETER_ROWS, DEAL_COLUMNS, DEALS_SHEET, EVENT_DETAILS, LEAD_COLUMNS, LEADS_SHEET,
                                      TABLE_HEADER_ROW)
from ..core.text import INVISIBLE_CHARACTERS, clean_text
from ..core.travellerrow import lead_row_mistake, whole_or_words
from ..core.vocabulary import Seat
from .checks import MAX_BOARD, vulnerability_words
from .errors import FormatError, check_name, check_national_number, display_name
from .model import Board, Event, Result, normalize_deal, normalize_lead, normalize_seat

__all__ = ["HEADER_ROW", "DEALS_SHEET", "LEADS_SHEET", "VULNERABILITY", "standard_dealer", "check_standard_cycle",
           "cell_number", "cell_text", "join_names", "split_names", "player_numbers", "whole_number", "board_number", "find_columns",
           "find_parameter", "capacity", "get_sheet",
           "fill_table", "table_rows", "table_sheet", "write_extra_sheets", "read_extra_sheets",
           "write_properties", "read_properties", "read_event_details", "write_event_details", "event_details_block", "document_title", "event_header", "open_workbook", "event_boards", "read_outcomes", "Workbook",
           "Worksheet", "Getter", "Where", "sparse_rows", "parameter_value", "PARAMETER_ROWS", "put_value"]

#: An openpyxl workbook and worksheet (openpyxl ships no type information).
Workbook: TypeAlias = Any
Worksheet: TypeAlias = Any
#: A row's cell value by column header, and the cell's place for a message (``club.xlsx, Boards!C7``).
Getter: TypeAlias = Callable[[str], Any]
Where: TypeAlias = Callable[[str], str]

HEADER_ROW = TABLE_HEADER_ROW
_D_COLUMNS, _L_COLUMNS = DEAL_COLUMNS, LEAD_COLUMNS
_PROPERTY = "xlbridge event"  # custom document property: the event's name (date in the next one)
_DATE_PROPERTY = "xlbridge event date"


def VULNERABILITY(board: int) -> str:  # noqa: N802 (a table-like function)
    """The vulnerability name of ``board`` in the standard 16-board cycle (the core's, Law 2).

    >>> [VULNERABILITY(b) for b in (1, 2, 3, 4, 5)]
    ['None', 'NS', 'EW', 'All', 'NS']
    """
    return str(xlbridge.vulnerability(board).name)


def standard_dealer(board: int) -> str:
    """The dealer of ``board`` in the standard cycle (N, E, S, W from board 1)."""
    return Seat.dealer(board).value


def check_standard_cycle(event: Event, name: str | None = None) -> None:
    """Refuse a board whose vulnerability is not the standard cycle's: the workbooks score every board
    at the vulnerability of its number (Law 2), so a contract would score differently there."""
    for b in event.boards:
        std = VULNERABILITY(b.number)
        if b.vulnerable is not None and b.vulnerable != std:
            raise FormatError(f"board {b.number} is vulnerable {b.vulnerable}, but the workbook scores board "
                              f"{b.number} at the standard cycle's vulnerability ({std}); renumber the boards "
                              f"or score this file without the workbook", where=name)


def cell_number(text: str) -> int | str:
    """A pair or team number as a cell value: a whole number when it is all digits, else the text."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else text


#: the longest pair or team number (the PBN and USEBIO readers' bound: a number names a file of the site)
MAX_ID = 20


def id_text(v: object, where: str, what: str = "pair number") -> str | None:
    """A pair or team number from a cell (:func:`cell_text`), at most :data:`MAX_ID` characters.

    >>> id_text(7.0, "Travellers!B5"), id_text(None, "Travellers!B5")
    ('7', None)
    >>> id_text("9" * 25, "Travellers!B5")
    Traceback (most recent call last):
    ...
    xlbridge.formats.errors.FormatError: Travellers!B5: pair number longer than 20 characters: '9999999999999999999999999'
    """
    t = cell_text(v)
    if t is not None and len(t) > MAX_ID:
        raise FormatError(f"{what} longer than {MAX_ID} characters:", where=where, value=t)
    return t


#: What makes a typed text something else in a spreadsheet program: a formula (``=``, and ``+``, ``-``, ``@``
#: as Excel and LibreOffice take them when typed), or an error value (``#N/A``).
_NOT_TEXT_WHEN_TYPED = ("=", "+", "-", "@")
_ERROR_VALUES = frozenset(("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A"))


def put_value(ws: Worksheet, row: int, column: int, value: object) -> Any:
    """Write ``value`` into the cell at ``row``, ``column`` of ``ws`` and return the cell: the one way the
    workbook mappings write a cell from a file. A text is written as a **text cell, never a formula or an
    error value**, whatever it starts with (openpyxl would take ``=HYPERLINK(...)`` for a formula and
    ``#N/A`` for an error), with its control and invisible characters removed (:func:`xlbridge.core.text.clean_text`);
    one that a spreadsheet program would take for a formula when a member edits it (``=``, ``+``, ``-``,
    ``@``) gets the cell style's quote prefix, so that it stays text then too (Excel shows ``'=1+1``).

    >>> import openpyxl
    >>> ws = openpyxl.Workbook().active
    >>> c = put_value(ws, 5, 3, '=HYPERLINK("http://x","y")')
    >>> c.value, c.data_type, c.quotePrefix, put_value(ws, 6, 3, "#N/A").data_type, put_value(ws, 7, 3, 7).data_type
    ('=HYPERLINK("http://x","y")', 's', True, 's', 'n')
    """
    cell = ws.cell(row=row, column=column)
    if isinstance(value, str):
        value = clean_text(value)
        cell.value = value
        cell.data_type = "s"
        if value.startswith(_NOT_TEXT_WHEN_TYPED) or value in _ERROR_VALUES:
            cell.quotePrefix = True
    else:
        cell.value = value
    return cell


def cell_text(v: object) -> str | None:
    """A cell's value as stripped text (a whole float without its ``.0``), None when blank."""
    if v is None:
        return None
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    s = str(v).strip()
    return s or None


_NAME = re.compile(r'\s*(?:"((?:[^"]|"")*)"|([^&]*?))\s*(?:&|$)')


def join_names(names: Sequence[str]) -> str | None:
    """Player names as one cell: joined with `` & ``, a name that holds ``&`` (or starts with ``"``) in
    double quotes (a ``"`` inside doubled, as in CSV), so that :func:`split_names` gives the names back.

    >>> join_names(("Ann Lee", "Bob Roe")), join_names(("A & B", "Renée")), join_names(())
    ('Ann Lee & Bob Roe', '"A & B" & Renée', None)
    """
    quoted = ['"' + n.replace('"', '""') + '"' if "&" in n or n.startswith('"') else n for n in names]
    return " & ".join(quoted) or None


def split_names(text: str | None) -> tuple[str, ...]:
    """The player names of a cell written by :func:`join_names` or typed by hand (``Ann & Bob``): split
    at each ``&`` outside double quotes; a name wholly in double quotes is unquoted.

    >>> split_names('Ann Lee & Bob Roe'), split_names('"A & B" & Renée'), split_names('Bo "Hat" Ek &')
    (('Ann Lee', 'Bob Roe'), ('A & B', 'Renée'), ('Bo "Hat" Ek',))
    """
    out: list[str] = []
    pos = 0
    while text and pos < len(text):
        m = _NAME.match(text, pos)
        if m is None or m.end() == pos:  # cannot happen: the unquoted branch matches up to the next &
            break
        name = m.group(1).replace('""', '"') if m.group(1) is not None else m.group(2).strip()
        if name:
            out.append(name)
        pos = m.end()
    return tuple(out)


def player_numbers(text: str | None, players: int, where: str) -> tuple[str, ...]:
    """The players' national numbers of a ``Numbers`` cell (``12345 & 67890``, in the order of the names;
    a blank between two ``&`` for a player without one): at most one per player, each at most 200
    characters; ``()`` when the cell is blank.

    >>> player_numbers("12345 & 67890", 2, "club.xlsx, Pairs row 5"), player_numbers(" & 42", 2, "x")
    (('12345', '67890'), ('', '42'))
    >>> player_numbers("1 & 2 & 3", 2, "club.xlsx, Pairs row 5")
    Traceback (most recent call last):
    ...
    xlbridge.formats.errors.FormatError: club.xlsx, Pairs row 5: more national numbers than players (3 for 2): '1 & 2 & 3'
    """
    if text is None or not text.strip():
        return ()
    ids = tuple(x.strip() for x in text.split("&"))
    if not players and any(ids):
        raise FormatError("national numbers for players without names (type the names first):", where=where,
                          value=text)
    if len(ids) > max(players, 1):
        raise FormatError(f"more national numbers than players ({len(ids)} for {players}):", where=where, value=text)
    for i in ids:
        check_national_number(i, where=where)
    return ids if any(ids) else ()


def whole_number(v: object, where: str, what: str, high: int | None = None) -> int:
    """``v`` as a positive whole number (at most ``high``); anything else is an error naming ``what``
    and the cell.

    Text of ASCII digits (``'2'``) is the number, as the workbook's functions read it
    (:func:`xlbridge.core.travellerrow.whole_or_words`: one reading for every command).

    >>> whole_number(7.0, "club.xlsx, Matches!A5", "match number"), whole_number("2", "club.xlsx, Matches!A5", "m")
    (7, 2)
    >>> whole_number(0, "club.xlsx, Matches!A5", "match number")
    Traceback (most recent call last):
    ...
    xlbridge.formats.errors.FormatError: club.xlsx, Matches!A5: match number must be a positive whole number, got 0
    """
    got = whole_or_words(v, what, high)
    if isinstance(got, str):
        bound = "a positive whole number" if high is None else f"a whole number from 1 to {high:,}"
        raise FormatError(f"{what} must be {bound}, got", where=where, value=v)
    return got


def board_number(v: object, where: str) -> int:
    """A ``Board`` cell's board number: a whole number from 1 to :data:`~xlbridge.formats.checks.MAX_BOARD`
    (10,000), the bound the PBN and USEBIO readers apply and the templates' Board column accepts.

    >>> board_number(10_000, "club.xlsx, Travellers!A5")
    10000
    >>> board_number(10_001, "club.xlsx, Travellers!A5")
    Traceback (most recent call last):
    ...
    xlbridge.formats.errors.FormatError: club.xlsx, Travellers!A5: board number must be a whole number from 1 to 10,000, got 10001
    """
    return whole_number(v, where, "board number", MAX_BOARD)




def sparse_rows(ws: Worksheet, min_row: int = 1, max_row: int | None = None) -> Iterator[tuple[int, dict[int, Any]]]:
    """``(row number, {column: value})`` for each row from ``min_row`` to ``max_row`` that holds a value,
    with only the cells that hold one (never a cell the file does not have: a value typed at
    ``XFD5`` is one entry, not 16,384 columns).

    A workbook opened read-only (what the readers of :mod:`~xlbridge.formats.pairsbook` and
    :mod:`~xlbridge.formats.teamsbook` do) is streamed by openpyxl's own sheet parser, the one its
    read-only mode uses (``openpyxl.worksheet._reader.WorkSheetParser``, elements cleared as they
    are read): memory follows one row, time the sheet's XML.  Any other worksheet is read from the
    cells openpyxl holds.
    """
    if not hasattr(ws, "_get_source"):  # a worksheet held in memory (a template being filled)
        rows: dict[int, dict[int, Any]] = {}
        for (r, c), cell in getattr(ws, "_cells", {}).items():
            if cell.value is not None and r >= min_row and (max_row is None or r <= max_row):
                rows.setdefault(r, {})[c] = _clean_cell(ws, r, c, cell.value)
        yield from sorted(rows.items())
        return
    from openpyxl.worksheet._reader import WorkSheetParser

    wb = ws.parent
    with ws._get_source() as src:
        parser = WorkSheetParser(src, ws._shared_strings, data_only=wb.data_only, epoch=wb.epoch,
                                 date_formats=wb._date_formats, timedelta_formats=wb._timedelta_formats)
        for idx, row in parser.parse():
            if idx < min_row:
                continue
            if max_row is not None and idx > max_row:
                break
            cells = {c["column"]: _clean_cell(ws, idx, c["column"], c["value"]) for c in row if c["value"] is not None}
            if cells:
                yield idx, cells


def _clean_cell(ws: Worksheet, row: int, column: int, value: Any) -> Any:
    """A cell's value as the readers take it: a text by the rule of :func:`xlbridge.core.text.clean_text`
    (a removal noted at the cell, ``Pairs!C5``), anything else as it is."""
    if not isinstance(value, str) or INVISIBLE_CHARACTERS.search(value) is None:
        return value
    import os

    from openpyxl.utils.cell import get_column_letter

    path = getattr(getattr(ws.parent, "_archive", None), "filename", None)  # (a workbook read from a file: its
    file = os.path.basename(path) if isinstance(path, str) else None       # name, for the warning)
    return clean_text(value, f"{ws.title}!{get_column_letter(column)}{row}", file)


def parameter_value(ws: Worksheet, label: str) -> tuple[bool, Any]:
    """``(found, value)``: the value right of the cell holding ``label`` in the parameter block (rows 1 to
    :data:`PARAMETER_ROWS`), read sparsely (:func:`sparse_rows`)."""
    entry = parameter_entry(ws, label)
    return (False, None) if entry is None else (True, entry[0])


def parameter_entry(ws: Worksheet, label: str) -> tuple[Any, str] | None:
    """``(value, its cell, e.g. "R5")`` right of the cell holding ``label`` in the parameter block, or None."""
    from openpyxl.utils.cell import get_column_letter

    for r, cells in sparse_rows(ws, 1, PARAMETER_ROWS):
        for c in sorted(cells):
            v = cells[c]
            if isinstance(v, str) and v.strip() == label:
                return cells.get(c + 1), f"{get_column_letter(c + 1)}{r}"
    return None


def find_columns(ws: Worksheet, names: tuple[str, ...], optional: Sequence[str] = (), *, sheet: str,
                 where: str | None = None) -> dict[str, int]:
    """{header: column index} on the header row; a missing required header is an error."""
    found: dict[str, int] = {}
    for _r, cells in sparse_rows(ws, HEADER_ROW, HEADER_ROW):
        for c in sorted(cells):
            v = cells[c]
            if isinstance(v, str) and v.strip() in names + tuple(optional):
                found.setdefault(v.strip(), c)
    missing = [n for n in names if n not in found]
    if missing:
        raise FormatError(f"sheet {sheet!r} has no column {missing[0]!r} on row {HEADER_ROW}", where=where)
    return found


def find_parameter(ws: Worksheet, label: str) -> Any:
    """The cell right of the cell holding ``label`` (the template's parameter block), or None."""
    for row in ws.iter_rows(min_row=1, max_row=40):
        for cell in row:
            if isinstance(cell.value, str) and cell.value.strip() == label:
                return ws.cell(row=cell.row, column=cell.column + 1)
    return None


def capacity(ws: Worksheet) -> int | None:
    """The last row of the sheet's ``XLBRIDGE_CAPACITY`` area, if it declares one."""
    dn = ws.defined_names.get(CAPACITY_NAME)
    if dn is None:
        return None
    last = dn.attr_text.rsplit("$", 1)[-1]
    return int(last) if last.isascii() and last.isdigit() and len(last) <= 7 else None


def get_sheet(wb: Workbook, name: str, where: str | None = None) -> Worksheet:
    """The sheet ``name`` of ``wb``; its absence is an error."""
    if name not in wb.sheetnames:
        raise FormatError(f"the workbook has no sheet {name!r} (a pairs workbook: workbooks/pairs.xlsx)", where=where)
    return wb[name]


def fill_table(ws: Worksheet, cols: Mapping[str, int], columns: Sequence[str], rows: Sequence[Sequence[object]], *,
               what: str, sheet: str, where: str | None = None) -> None:
    """Clear the columns ``cols`` below the header and write ``rows`` (values in the order of
    ``columns``; None leaves a cell empty) from the first row under it.

    More rows than the sheet's capacity (its ``XLBRIDGE_CAPACITY`` area, else its last used row) is
    an error naming ``what`` and the rows there are; nothing is truncated.
    """
    last = capacity(ws) or ws.max_row
    if len(rows) > last - HEADER_ROW:
        raise FormatError(f"{len(rows):,} {what} do not fit the sheet {sheet!r} (rows {HEADER_ROW + 1:,} "
                          f"to {last:,})", where=where)
    for r in range(HEADER_ROW + 1, ws.max_row + 1):
        for c in cols.values():
            if ws.cell(row=r, column=c).value is not None:
                ws.cell(row=r, column=c).value = None
    for i, row in enumerate(rows, start=HEADER_ROW + 1):
        for col, v in zip(columns, row):
            if v is not None:
                put_value(ws, i, cols[col], v)


def table_rows(ws: Worksheet, columns: tuple[str, ...], optional: tuple[str, ...] = (), *, sheet: str, name: str,
               keys: Sequence[str] | None = None) -> Iterator[tuple[int, Getter, Where]]:
    """``(row number, get(column), where(column))`` for every row of a table on ``ws`` down to its
    capacity, skipping a row whose ``keys`` columns (default: every column) are all blank.

    ``get`` gives a cell's value (None for an optional column the sheet lacks), ``where`` the
    cell's place for a message (``club.xlsx, Boards!C7``).  Only the rows and cells the file holds
    are read (:func:`sparse_rows`): the work follows the sheet's XML, not its last row or column.
    """
    from openpyxl.utils import get_column_letter

    cols = find_columns(ws, columns, optional, sheet=sheet, where=name)
    keys = columns + optional if keys is None else tuple(keys)
    for r, row in sparse_rows(ws, HEADER_ROW + 1, capacity(ws)):  # (only the rows and cells the file holds)
        def get(col: str, row: dict[int, Any] = row) -> Any:
            i = cols.get(col)
            return None if i is None else row.get(i)

        def where(col: str, r: int = r) -> str:
            return f"{name}, {sheet}!{get_column_letter(cols[col])}{r}"

        if all(cell_text(get(c)) is None for c in keys):
            continue
        yield r, get, where


def table_sheet(wb: Workbook, title: str, note: str, headers: Sequence[str], rows: Sequence[Sequence[object]],
                widths: Sequence[float]) -> None:
    """Append (or replace) the sheet ``title``: the title, a note, bold ``headers`` on the header row
    with column ``widths``, and ``rows`` below (None leaves a cell empty)."""
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
                put_value(ws, i, j, v)
    ws.freeze_panes = f"A{HEADER_ROW + 1}"


def write_extra_sheets(wb: Workbook, event: Event, *, leads: bool = True) -> None:
    """Append the ``Deals`` sheet (when a board has a deal or a dealer off the standard cycle) and the
    ``Leads`` sheet (when a row has a lead and ``leads``) to ``wb``, after the template's sheets.

    The template's formulas never read them; ``xlbridge recalc`` leaves a sheet without formulas as
    it is.  An existing sheet of the same name is replaced.
    """
    boards = sorted(event.boards, key=lambda b: b.number)
    if any(b.deal or (b.dealer and b.dealer != standard_dealer(b.number)) for b in boards):
        rows: list[list[object]] = [[b.number, b.dealer or standard_dealer(b.number),
                                     b.vulnerable or VULNERABILITY(b.number),
                 b.deal] for b in boards]
        table_sheet(wb, DEALS_SHEET, "Every board's dealer, vulnerability and the four hands in PBN notation "
                    "(N:spades.hearts.diamonds.clubs of North, then East, South, West; - for a hand not "
                    "known). Written by xlbridge import; read by xlbridge export and publish.",
                    _D_COLUMNS, rows, (7, 7, 11, 70))
    if leads:
        rows = [[b.number, cell_number(r.ns), cell_number(r.ew), r.lead] for b in boards for r in b.results
                if r.lead]
        if rows:
            table_sheet(wb, LEADS_SHEET, "The opening lead of each traveller row (suit then rank: SK is the "
                        "king of spades, HT the ten of hearts). Written by xlbridge import; read by xlbridge "
                        "export and publish.", _L_COLUMNS, rows, (7, 6, 6, 7))


def read_extra_sheets(wb: Workbook, name: str) -> tuple[dict[int, tuple[str, str | None]],
                                                      dict[tuple[int, str, str], tuple[str | None, str]]]:
    """``({board: (dealer, deal)}, {(board, ns, ew): (lead, cell)})`` from the ``Deals`` and ``Leads``
    sheets (empty when a sheet is absent); a bad cell is an error naming it."""
    deals: dict[int, tuple[str, str | None]] = {}
    leads: dict[tuple[int, str, str], tuple[str | None, str]] = {}
    seen_leads: set[tuple[object, ...]] = set()
    for sheet, columns in ((DEALS_SHEET, _D_COLUMNS), (LEADS_SHEET, _L_COLUMNS)):
        if sheet not in wb.sheetnames:
            continue
        for _r, get, where in table_rows(wb[sheet], columns, sheet=sheet, name=name):
            if sheet == DEALS_SHEET:
                b = board_number(get("Board"), where("Board"))
                if b in deals:
                    raise FormatError(f"board {b} is listed twice", where=where("Board"))
                dealer = cell_text(get("Dealer"))
                dealer = normalize_seat(dealer, file=None, element=where("Dealer")) if dealer else standard_dealer(b)
                vul = cell_text(get("Vulnerable"))
                if vul is not None:
                    try:
                        vul = xlbridge.vulnerability(vul).name
                    except xlbridge.XlbridgeError:
                        raise FormatError("cannot read vulnerability:", where=where("Vulnerable"), value=vul) from None
                    if vul != VULNERABILITY(b):
                        raise FormatError(f"the workbook scores board {b} at the standard cycle's vulnerability "
                                          f"({VULNERABILITY(b)}), not", where=where("Vulnerable"), value=vul)
                deal = cell_text(get("Deal"))
                deal = normalize_deal(deal, element=where("Deal")) if deal else None
                deals[b] = (dealer, deal)
            else:
                ns, ew, lead = cell_text(get("NS")), cell_text(get("EW")), cell_text(get("Lead"))
                # (the row's verdict in the words xlbridge recalc names it with: core.travellerrow)
                mistake = lead_row_mistake(get("Board"), ns, ew, lead, seen_leads)
                if mistake is not None:
                    raise FormatError(mistake.words, where=where(mistake.column))
                b = board_number(get("Board"), where("Board"))  # (read whole by lead_row_mistake)
                assert ns is not None and ew is not None
                leads[(b, ns, ew)] = (normalize_lead(lead, element=where("Lead")) if lead else None, where("Lead"))
    return deals, leads


def event_boards(boards: Mapping[int, Sequence[Result]], deals: Mapping[int, tuple[str, str | None]],
                 ) -> tuple[Board, ...]:
    """The boards of an event read from a workbook: ``boards`` ({number: [result, ...]}) in number
    order, at the standard cycle's vulnerability, with the dealer and deal of the ``Deals`` sheet."""
    return tuple(Board(n, deals.get(n, (standard_dealer(n), None))[0], VULNERABILITY(n),
                       deals.get(n, (None, None))[1], tuple(rows))
                 for n, rows in sorted(boards.items()))


def read_outcomes(score: object, get: Getter, where: Where, board: int, score_column: str,
                  outcome_columns: Sequence[str]) -> tuple[tuple[int, Fraction], ...]:
    """A Law 12C1(c) weighted score's ``(N-S score, weight)`` outcomes read from a workbook row: the
    row's own ``score`` (its cell in ``score_column``) at ``Weight 1``, then each of ``outcome_columns``
    at ``Weight 2``, ``Weight 3``, ...  Each outcome is a score legal at the board's vulnerability and
    each weight a weight (refused at its cell); together they are the core's weighted score
    (:func:`xlbridge.weighted_outcomes`: every weight given, totalling 100 %, an outcome of zero
    weight dropped), its refusal named at ``Weight 1``.  Used by the pairs workbook (``Typed Score``,
    ``Outcome 2 NS``, ``Outcome 3 NS``) and the teams workbook (room 1's N-S score, ``Outcome 2``,
    ``Outcome 3``).

    >>> row = {"Score": 420, "Outcome 2": -50, "Weight 1": 0.6, "Weight 2": "40%"}
    >>> read_outcomes(420, row.get, lambda c: f"Boards!{c}", 1, "Score", ["Outcome 2"])
    ((420, Fraction(3, 5)), (-50, Fraction(2, 5)))
    >>> read_outcomes(420, {**row, "Weight 2": 0.3}.get, lambda c: f"Boards!{c}", 1, "Score", ["Outcome 2"])
    Traceback (most recent call last):
    ...
    xlbridge.formats.errors.FormatError: Boards!Weight 1: weights total 90 %, not 100 %: 420 x 60 %, -50 x 30 %
    """
    if not isinstance(score, int) or isinstance(score, bool):
        raise FormatError("a weighted score (Law 12C1(c)) needs a real score in the row, not",
                          where=where(score_column), value=str(score))
    vul = VULNERABILITY(board)
    pairs: list[tuple[int | None, Fraction | None]] = []
    given = 1 + sum(cell_text(get(col)) is not None for col in outcome_columns)  # (the outcomes of the row)
    for k, col in enumerate((None, *outcome_columns), start=1):
        value: int | None = score
        if col is not None:
            v = get(col)
            value = None
            if cell_text(v) is not None:
                if isinstance(v, bool) or not isinstance(v, (int, float)) or (
                        isinstance(v, float) and not v.is_integer()):
                    raise FormatError("an outcome must be a N-S score, got", where=where(col), value=v)
                value = int(v)
                try:
                    xlbridge.check_score(value, vul)
                except xlbridge.XlbridgeError:
                    raise FormatError(f"impossible score for vulnerability {vulnerability_words(vul)}:", where=where(col),
                                      value=value) from None
        # (the words of the workbook's reading of a weighted row, xlbridge.excel.travellers.read_weighted: the same
        # cell named in the same words by recalc, publish and export)
        try:
            weight = xlbridge.parse_weight(get(f"Weight {k}"))
        except xlbridge.XlbridgeError as exc:
            raise FormatError(str(exc).rstrip("."), where=where(f"Weight {k}")) from None
        if weight is None and value is not None and given > 1:
            raise FormatError(f"outcome {shown(value)} has no weight", where=where(f"Weight {k}"))
        pairs.append((value, weight))
    try:
        return tuple(xlbridge.weighted_outcomes(pairs))
    except xlbridge.XlbridgeError as exc:
        raise FormatError(str(exc).rstrip("."), where=where("Weight 1")) from None


def write_properties(wb: Workbook, event: Event) -> None:
    """The event's name and date as custom document properties (and the name as the title)."""
    from openpyxl.packaging.custom import StringProperty

    props = wb.custom_doc_props
    for key, value in ((_PROPERTY, event.name), (_DATE_PROPERTY, event.date.isoformat() if event.date else None)):
        if key in props.names:
            del props[key]
        if value:
            props.append(StringProperty(name=key, value=value))
    if event.name:
        wb.properties.title = event.name


def event_details_block(ws: Worksheet) -> dict[str, tuple[Any, str]] | None:
    """The sheet's event details: ``{label: (value, its cell)}`` for ``Event``, ``Date``, ``Club`` and
    ``Scorer``, found as a block (the labels one under the other in the parameter rows, each value to its
    right, as the templates lay them out), or None when the sheet has no such block.  A book made before
    the ``Scorer`` label has the first three only: its block has no ``Scorer`` key.  A team or pair called
    ``Event`` in a table is not taken for it.
    """
    from openpyxl.utils.cell import get_column_letter

    required = EVENT_DETAILS[:3]  # (Event, Date, Club: every book with the block has them)
    rows = dict(sparse_rows(ws, 1, PARAMETER_ROWS))
    for r, cells in rows.items():
        for c in sorted(cells):
            v = cells[c]
            if not (isinstance(v, str) and v.strip() == required[0]):
                continue
            labels = [rows.get(r + k, {}).get(c) for k in range(len(EVENT_DETAILS))]
            found = [isinstance(b, str) and b.strip() == label for b, label in zip(labels, EVENT_DETAILS)]
            if all(found[:len(required)]):
                return {label: (rows.get(r + k, {}).get(c + 1), f"{get_column_letter(c + 1)}{r + k}")
                        for k, label in enumerate(EVENT_DETAILS) if all(found[:k + 1])}
    return None


def read_event_details(ws: Worksheet, where: str) -> tuple[str | None, _dt.date | None, str | None, str | None] | None:
    """``(event name, date, club, scorer)`` typed in the sheet's event details (:func:`event_details_block`;
    None for a blank one, and the scorer None in a block without ``Scorer``), or None when the sheet has no
    such block (a book made before it).  A date is a date cell, or text as ``2026-11-26`` or ``26/11/2026``;
    anything else is refused naming its cell (``where``: the file and sheet, ``club.xlsx, Travellers``); the
    name, club and scorer at most 200 characters.
    """
    block = event_details_block(ws)
    if block is None:
        return None
    texts: dict[str, str | None] = {}
    for label, what in (("Event", "event name"), ("Club", "club name"), ("Scorer", "scorer's name")):
        if label not in block:
            texts[label] = None
            continue
        value, cell = block[label]
        texts[label] = None if isinstance(value, (_dt.date, _dt.time)) else cell_text(value)
        check_name(texts[label], what, where=f"{where}!{cell}")
    value, cell = block["Date"]
    date = None
    if isinstance(value, _dt.datetime):
        date = value.date()
    elif isinstance(value, _dt.date):
        date = value
    elif value is not None and cell_text(value) is not None:
        for fmt in ("%Y-%m-%d", "%d/%m/%Y"):
            try:
                date = _dt.datetime.strptime(str(value).strip(), fmt).date()
                break
            except ValueError:
                pass
    if (value is not None and cell_text(value) is not None and date is None) or (date is not None and date.year < 1900):
        shown = value.isoformat() if isinstance(value, (_dt.date, _dt.time)) else value
        raise FormatError("not a date (type it as a date, 2026-11-26 or 26/11/2026):", where=f"{where}!{cell}",
                          value=shown)
    return texts["Event"], date, texts["Club"], texts["Scorer"]


def event_header(wb: Workbook, ws: Worksheet, name: str,
                 sheet: str) -> tuple[str | None, _dt.date | None, str | None, str | None]:
    """``(event name, date, club, scorer)`` of a book: what a member typed in ``sheet``'s event details (a
    blank name falls back to the document title a member types; a blank date, club or scorer is none, even
    where an older document property says otherwise), or, in a book made before them, its document
    properties (no club, no scorer).  ``name``: the file's name for messages."""
    details = read_event_details(ws, f"{name}, {sheet}")
    if details is None:  # a book made before the Event, Date and Club parameters: its document properties
        title, date = read_properties(wb)
        return (check_name(title, "event name", where=f"{name}, document property 'xlbridge event' (or title)"), date,
                None, None)
    title, date, club, scorer = details
    if title is None:
        title = check_name(document_title(wb), "event name", where=f"{name}, document title")
    return title, date, club, scorer


def write_event_details(ws: Worksheet, event: Event) -> bool:
    """The event's name, date, club and scorer into the sheet's event details (:func:`event_details_block`;
    the scorer where the block has ``Scorer``); False when it has none (a book made before them)."""
    from openpyxl.utils.cell import coordinate_from_string, column_index_from_string

    block = event_details_block(ws)
    if block is None:
        return False
    for label, value in zip(EVENT_DETAILS, (event.name, event.date, event.site, event.scorer), strict=True):
        if label in block:
            col, row = coordinate_from_string(block[label][1])
            put_value(ws, row, column_index_from_string(col), value)
    return True


def read_properties(wb: Workbook) -> tuple[str | None, _dt.date | None]:
    """The event's name and date written by :func:`write_properties` (None for either when absent;
    a date that is not ISO 8601 is ignored); without the name property, the document's title (File >
    Properties > Title, which a member can type in Excel and LibreOffice)."""
    props = {p.name: clean_text(p.value, f"document property {p.name!r}") if isinstance(p.value, str) else p.value
             for p in wb.custom_doc_props}
    date = None
    if props.get(_DATE_PROPERTY):
        try:
            date = _dt.date.fromisoformat(props[_DATE_PROPERTY])
        except ValueError:
            date = None
    return props.get(_PROPERTY) or document_title(wb), date


def document_title(wb: Workbook) -> str | None:
    """The document's title (File > Properties > Title, which a member can type in Excel and LibreOffice),
    stripped; None when blank."""
    title = clean_text(wb.properties.title, "document title") if isinstance(wb.properties.title, str) else None
    return title.strip() if title and title.strip() else None


def open_workbook(path: object, **options: Any) -> Workbook:
    """``openpyxl.load_workbook(path, **options)``; a file that is not a workbook is one error naming it."""
    import openpyxl

    try:
        return openpyxl.load_workbook(path, **options)
    except MemoryError:
        raise  # the command's memory limit, said as such
    except Exception as exc:  # openpyxl raises many kinds for a file that is not a workbook
        raise FormatError(f"{display_name(path)}: not a readable .xlsx workbook ({type(exc).__name__})") from None
