"""A book-level check of the read stage: each lead of an imported pairs book's Leads sheet has its traveller row.

``xlbridge import`` writes the opening leads of a pairs event, which the pairs template has no column for, on a sheet
of their own (``Leads``: :data:`~xlbridge.core.template_contract.LEADS_SHEET`, its headers
:data:`~xlbridge.core.template_contract.LEAD_COLUMNS` on row 4, a lead a row below). No formula reads that sheet, so
the engine never meets a lead whose board and pairs no traveller row has (a lead without a contract): ``publish`` and
``export`` refuse such a book at the lead's cell (:mod:`xlbridge.formats.pairsbook`). :func:`lead_mistakes` names it
at the same cell, in the same words (:func:`xlbridge.core.travellerrow.leads_without_rows`), for ``xlbridge recalc``.

Both sheets' cells are read with expat (the standard library's parser, defused as every parser of the batch layer:
:func:`xlbridge.batch.guard.xmlscan.defuse`) from parts the guard has passed, streamed a row at a time: only the
traveller rows' (board, N-S, E-W) are kept, and the shared strings are read once, when a cell needs them. A part
the reading cannot follow (no header row naming the columns, an unreadable part) gives no mistake here: the readers
of ``publish`` and ``export`` read that book whole. The first lead without its row is named (as ``publish`` and ``export`` name it),
with the number of others after it: a report as long as the sheet would name the same mistake many times.

>>> xml = lambda rows: ('<worksheet><sheetData>' + ''.join(
...     f'<row r="{r}">' + ''.join(f'<c r="{c}{r}" t="inlineStr"><is><t>{v}</t></is></c>' if isinstance(v, str)
...                               else f'<c r="{c}{r}"><v>{v}</v></c>' for c, v in cells) + '</row>'
...     for r, cells in rows) + '</sheetData></worksheet>').encode()
>>> travellers = xml([(4, [("A", "Board"), ("B", "NS"), ("C", "EW")]), (5, [("A", 1), ("B", 1), ("C", 11)])])
>>> leads = xml([(4, [("A", "Board"), ("B", "NS"), ("C", "EW"), ("D", "Lead")]),
...              (5, [("A", 1), ("B", 1), ("C", 11), ("D", "SK")]), (6, [("A", 3), ("B", 1), ("C", 11), ("D", "HA")])])
>>> lead_mistakes({"Travellers": travellers, "Leads": leads}.get, lambda last: {})
[('Leads', (6, 4), 'input', 'a lead for a row the Travellers sheet does not have (board 3, 1 v 11); publish and export refuse the book until it is put right')]
"""

from __future__ import annotations

import xml.parsers.expat as expat
from collections.abc import Callable, Iterator
from typing import Any

from ...core.template_contract import LEAD_COLUMNS, LEADS_SHEET, TABLE_HEADER_ROW, TRAVELLERS_SHEET
from ...core.travellerrow import Mistake, blank, lead_row_mistake, leads_without_rows
from ..guard.xmlscan import defuse
from .sheetxml import column_number

__all__ = ["lead_mistakes", "sheet_table", "cell_value", "NoTable", "lazy_strings", "first_of", "defused_parser"]

#: what recalc says a lead without its traveller row does to the outputs (the Ranking does not read leads)
CONSEQUENCE = "publish and export refuse the book until it is put right"
#: the bytes of a part given to the parser at a time (the rows read so far handed on between)
CHUNK = 1 << 16
#: the last shared string asked for: the whole table (its size is the guard's to bound)
ALL_STRINGS = 1 << 31


class NoTable(Exception):
    """The part cannot be read as a table (unreadable, or no header row naming the columns)."""


def lead_mistakes(part: Callable[[str], bytes | None], strings: Callable[[int], dict[int, str]]
                  ) -> list[tuple[str, tuple[int, int], str, str]]:
    """The read stage's mistake (sheet, (row, column), ``"input"``, message) of the first lead of the Leads sheet
    without a traveller row, saying how many more there are (``part(sheet)``: the sheet's worksheet part, None when
    the book has no such sheet; ``strings(last)``: {index: text} of the shared strings up to ``last``). [] for a book
    without both sheets, or whose leads all have their rows."""
    leads_xml = part(LEADS_SHEET)
    travellers_xml = part(TRAVELLERS_SHEET) if leads_xml else None
    if not leads_xml or not travellers_xml:
        return []
    shared = lazy_strings(strings)
    columns: dict[str, int] = {}
    bad: list[tuple[int, Mistake]] = []

    def checked() -> Iterator[tuple[int, Any, Any, Any]]:
        """The lead rows, each read as publish and export read it (:func:`lead_row_mistake`), up to the first
        mistaken one (kept in ``bad``: those readers stop there)."""
        seen: set[tuple[object, ...]] = set()
        for r, (b, n, e, lead) in sheet_table(leads_xml, LEAD_COLUMNS, shared, columns, whole=False):
            mistake = lead_row_mistake(b, n, e, lead, seen)
            if mistake is not None:
                bad.append((r, mistake))
                return
            yield r, b, n, e

    try:
        seated = ((b, n, e) for _r, (b, n, e) in sheet_table(travellers_xml, LEAD_COLUMNS[:3], shared, {}))
        missing = leads_without_rows(checked(), seated)  # (the traveller rows read whole first, then the leads)
        first = next(missing, None)  # (the first named, as publish and export name it; the others counted)
        more = sum(1 for _ in missing)
    except NoTable:
        return []
    if bad:  # (a lead row that is a mistake of its own: publish and export name it before any lead's traveller row)
        bad_row, own = bad[0]
        return [(LEADS_SHEET, (bad_row, columns[own.column]), "input", f"{own.words}; {CONSEQUENCE}")]
    if first is None:
        return []
    r, mistake = first
    also = f" ({more:,} more lead{'s' if more > 1 else ''} below without a traveller row)" if more else ""
    return [(LEADS_SHEET, (int(str(r)), columns["Lead"]), "input", f"{mistake.words}; {CONSEQUENCE}{also}")]


def defused_parser(start: Callable[..., None], end: Callable[..., None], chars: Callable[..., None]) -> Any:
    """An expat parser with these handlers, defused as every parser of the batch layer
    (:func:`xlbridge.batch.guard.xmlscan.defuse`: a DTD or an entity refused with ``ValueError``), its text buffered."""
    def forbidden(what: str) -> None:
        raise ValueError(what)

    parser = expat.ParserCreate()
    defuse(parser, forbidden)
    parser.buffer_text = True
    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, chars
    return parser


def lazy_strings(strings: Callable[[int], dict[int, str]]) -> Callable[[int], str | None]:
    """``shared(index)``: the shared string at ``index`` (None when the table has none there), the table read whole
    (``strings(last)``: {index: text} up to ``last``) when a cell first needs it."""
    table: dict[int, str] = {}

    def shared(index: int) -> str | None:
        if not table:
            table.update(strings(ALL_STRINGS) or {-1: ""})
        return table.get(index)

    return shared


def first_of(sheet: str, bad: list[tuple[int, Mistake]], columns: dict[str, int]
             ) -> list[tuple[str, tuple[int, int], str, str]]:
    """The read stage's mistake of the first of the rows ``bad`` ([(row, mistake)] of ``sheet``, its columns by name
    in ``columns``), saying how many more rows there are: [] when there is none.

    >>> first_of("Pairs", [(7, Mistake("Pair", "pair 1 is listed twice")), (9, Mistake("Pair", "x"))], {"Pair": 1})
    [('Pairs', (7, 1), 'input', 'pair 1 is listed twice; publish and export refuse the book until it is put right (1 more row below is a mistake)')]
    """
    if not bad:
        return []
    r, first = bad[0]
    more = len(bad) - 1
    also = f" ({more:,} more row{'s' if more > 1 else ''} below {'are mistakes' if more > 1 else 'is a mistake'})" \
        if more else ""
    return [(sheet, (r, columns[first.column]), "input", f"{first.words}; {CONSEQUENCE}{also}")]


def cell_value(kind: str, text: str, shared: Callable[[int], str | None]) -> Any:
    """A cell's value as the readers of publish and export take it (openpyxl's): a number, text (a shared string
    looked up), a logical, an error as its text (``#N/A``), None for blank."""
    if kind == "s":
        t = text.strip()
        return shared(int(t)) if t.isdigit() and len(t) < 11 else None
    if kind in ("str", "inlineStr"):
        return text
    if kind == "n":
        try:
            number = float(text)
        except ValueError:
            return None
        return int(number) if number.is_integer() else number
    if kind == "b":
        return text.strip() in ("1", "true")
    if kind == "e":
        return text.strip()
    return None


def sheet_table(sheet_xml: bytes, names: tuple[str, ...], shared: Callable[[int], str | None], columns: dict[str, int],
          whole: bool = True) -> Iterator[tuple[int, list[Any]]]:
    """(row, [the values of ``names``]) of each row below the header row whose first three cells are filled (not
    ``whole``: any of its cells of ``names``), in the part's order; ``columns`` is given {name: column} of ``names``
    on the header row. :class:`NoTable` when the part cannot be read or its header row lacks one of ``names``."""
    state: dict[str, Any] = {"cell": None, "text": False, "row": {}, "r": 0, "keep": None}
    done: list[tuple[int, list[Any]]] = []

    def start(tag: str, attrs: dict[str, str]) -> None:
        local = tag if ":" not in tag else tag.rsplit(":", 1)[1]
        if local == "c":
            ref = attrs.get("r", "")
            letters = ref.rstrip("0123456789")
            digits = ref[len(letters):]
            if not digits or not letters or len(digits) > 7 or int(digits) < TABLE_HEADER_ROW:
                state["cell"] = None
                return
            c = column_number(letters)
            keep = state["keep"]
            state["r"] = int(digits)
            state["cell"] = None if keep is not None and c not in keep else [c, attrs.get("t", "n"), ""]
        elif local in ("v", "t") and state["cell"] is not None:
            state["text"] = True

    def end(tag: str) -> None:
        local = tag if ":" not in tag else tag.rsplit(":", 1)[1]
        if local in ("v", "t"):
            state["text"] = False
        elif local == "c" and state["cell"] is not None:
            c, kind, text = state["cell"]
            if text.strip():
                state["row"][c] = cell_value(kind, text, shared)
            state["cell"] = None
        elif local == "row":
            row, r = state["row"], state["r"]
            state["row"] = {}
            if r == TABLE_HEADER_ROW and state["keep"] is None:
                found: dict[str, int] = {}
                for c, name in sorted(row.items()):
                    if isinstance(name, str) and name.strip() in names:
                        found.setdefault(name.strip(), c)
                if any(n not in found for n in names):
                    raise NoTable
                columns.update(found)
                state["keep"] = {found[n] for n in names}
            elif r > TABLE_HEADER_ROW and state["keep"] is not None:
                values = [row.get(columns[n]) for n in names]
                if not any(blank(v) for v in values[:3]) if whole else not all(blank(v) for v in values):
                    done.append((r, values))

    def chars(data: str) -> None:
        if state["text"] and state["cell"] is not None:
            state["cell"][2] += data

    parser = defused_parser(start, end, chars)
    try:
        for at in range(0, len(sheet_xml), CHUNK):
            parser.Parse(sheet_xml[at:at + CHUNK], False)
            yield from done
            done.clear()
        parser.Parse(b"", True)
    except (expat.ExpatError, ValueError):
        raise NoTable from None
    if state["keep"] is None:
        raise NoTable
    yield from done
