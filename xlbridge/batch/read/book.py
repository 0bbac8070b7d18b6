"""Stage 2's entry: what ``xlbridge recalc`` reads of a checked book before the engine evaluates it.

:func:`read_book` takes a :class:`~xlbridge.batch.guard.gate.CheckedBook` (nothing else: only the guard makes
one) and reads, once each, the worksheet parts that declare a template area (their ``<row>`` elements found
once: :func:`~xlbridge.batch.read.capacity.sheet_rows`). From them, with the areas the gate clipped to what each
sheet holds:

- the layout mistakes that need no value (:func:`~xlbridge.batch.read.capacity.first_overflow`: data below a
  table's capacity; :func:`~xlbridge.batch.read.capacity.first_above`: in a book whose table's ranges start
  below its header, data between the header and the table's first row; a row whose result cells hold no
  formula), as (sheet, (row, column), code, message); a table declared from its header row
  (:func:`~xlbridge.batch.read.capacity.table_rows`) is read from the row below the header, a row inserted
  directly below it included;
- the result cells of rows inserted into a table that lack their formulas
  (:func:`~xlbridge.batch.read.capacity.missing_results`), which the evaluate stage fills
  (:mod:`xlbridge.batch.write.inserted`) before the engine reads the book;
- for each printable table, the array ranges its part shows and its last row (and, when wide, column) holding a
  constant, which the write stage extends to the last non-blank result;
- the leads of an imported pairs book's Leads sheet without their traveller row, which no formula reads
  (:func:`~xlbridge.batch.read.leads.lead_mistakes`), and the rows of a pairs book's Pairs sheet listing a pair
  twice or a Mitchell's pair without its direction, which its formula passes over
  (:func:`~xlbridge.batch.read.pairsheet.pairs_sheet_mistakes`), and the rows of a teams book's Matches sheet
  with a team missing, unknown to its Teams sheet or against itself
  (:func:`~xlbridge.batch.read.matchsheet.match_sheet_mistakes`), named at the cell as ``publish`` and ``export``
  name them;
- each input table's header names (``XLBRIDGE_HEADER``'s row: {name: column}), by which a row function's mistake
  (:func:`xlbridge.core.travellerrow.column_named`) is named at the row's input cell (``Travellers!F11: no
  tricks``) rather than at the result cells showing it.

The parts read stay in the :class:`BookRead` (``rows``), so no later stage reads them again.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from ..guard.gate import CheckedBook
from .leads import ALL_STRINGS, lead_mistakes
from .matchsheet import match_sheet_mistakes
from .pairsheet import pairs_sheet_mistakes, parameter_cells
from ...core.template_contract import PAIRS_PARAMETER_CELLS, TRAVELLERS_SHEET
from .sheetxml import column_number
from .capacity import (
    WIDE_COLUMNS,
    table_rows,
    AreaResults,
    SheetRows,
    array_ranges_in,
    first_above,
    first_overflow,
    last_used_col,
    last_used_row,
    meeting,
    missing_results,
    row_kinds,
    sheet_rows,
)

__all__ = ["BookRead", "read_book", "unfilled_rows", "MAX_FILLED_ROWS", "MAX_HEADER_CELLS"]

#: at most this many rows of a sheet are given their result formulas by the evaluate stage
#: (:mod:`xlbridge.batch.write.inserted`); beyond, the first is named as a layout mistake instead
MAX_FILLED_ROWS = 1_000


@dataclasses.dataclass(frozen=True)
class BookRead:
    """What :func:`read_book` found: the book, each read part's :class:`~xlbridge.batch.read.capacity.SheetRows`
    (``rows``: {sheet: ...}), the layout mistakes (``mistakes``: [(sheet, (row, column), code, message)]), the
    result cells missing in rows inserted into a table (``missing``: {sheet: [(row, column)]}, at most
    :data:`MAX_FILLED_ROWS` rows' worth a sheet) and the printable tables' constants (``print_constants``: {area:
    (array ranges, last row holding a constant, last column holding one or None)}) and the input tables' header
    names (``headers``: {sheet: {name: column}})."""

    book: CheckedBook
    rows: dict
    mistakes: list
    missing: dict
    print_constants: dict
    headers: dict = dataclasses.field(default_factory=dict)
    #: {sheet: {parameter label: (row, column) of its value}}: the pairs Travellers' parameters
    #: (:data:`~xlbridge.core.template_contract.PAIRS_PARAMETER_CELLS`' labels), by which a parameter's mistake
    #: (:func:`xlbridge.core.travellerrow.parameter_named`) is named once at its cell
    parameters: dict = dataclasses.field(default_factory=dict)

    def part_rows(self, sheet: str) -> SheetRows:
        """The sheet's rows as read (read now, once, if this stage did not need them)."""
        found = self.rows.get(sheet)
        if found is None:
            with self.book.open() as zf:
                found = self.rows[sheet] = sheet_rows(zf.read(dict(self.book.sheets)[sheet]))
        return found


def read_book(book: CheckedBook) -> BookRead:
    """Stage 2 of ``recalc``: the :class:`BookRead` of a book the guard has passed (see the module's text)."""
    if not isinstance(book, CheckedBook) or not book.issued:  # (the gate by construction: nothing unchecked is read)
        raise TypeError("read_book reads a CheckedBook, which only the guard makes (guard.gate.check_upload)")
    areas = book.areas
    parts = dict(book.sheets)
    headers = dict(areas.headers)
    rows: dict = {}
    mistakes: list = []
    missing: dict = {}
    constants: dict = {}
    wanted = [sheet for sheet in areas.sheets() if sheet in parts]
    if not wanted:
        return _with_sheet_checks(BookRead(book, rows, mistakes, missing, constants))
    with book.open() as zf:
        for sheet in wanted:
            rows[sheet] = sheet_rows(zf.read(parts[sheet]))
    for sheet in wanted:
        found = rows[sheet]
        blocks = [b for b in areas.results if b[0] == sheet]
        per_row = sum(b[4] - b[2] + 1 for b in blocks)
        for declared in (a for a in areas.capacity if a[0] == sheet):
            header = headers.get(sheet)
            area = table_rows(declared, header)
            gaps = missing_results(found, area, blocks, limit=(MAX_FILLED_ROWS + 1) * per_row) if blocks else []
            if gaps:
                missing.setdefault(sheet, []).extend(gaps)
            checks = (  # (code, the first cell found, the message with its row as {r})
                ("capacity", first_overflow(found, area),
                 f"row {{r:,}} is below this sheet's capacity (rows {area[1]:,} to {area[3]:,}) and was not read; "
                 f"move those rows to a new workbook"),
                ("layout", None if header is None else first_above(found, area, header),
                 f"row {{r:,}} is between the table's header (row {header or 0:,}) and its first row ({area[1]:,}), "
                 f"where rows inserted directly below the header go, and is not read; insert rows below the "
                 f"table's first row (then sort), or move this row there"),
            )
            mistakes += [(sheet, hit, code, text.format(r=hit[0])) for code, hit, text in checks if hit is not None]
        printed = [a for a in areas.printed if a[0] == sheet]
        arrays = array_ranges_in(found.xml) if printed else ()
        for area in printed:
            # (an array's cells other than its first carry no formula in the part: found by a search of the
            # bytes, they are not taken for constants; the write stage checks them against the engine's)
            guess = meeting(arrays, area)
            last = last_used_row(found, area, AreaResults(0, guess))
            # a wide table (weeks across) is also cut after its last column in use: None keeps its columns
            columns = last_used_col(found, area, last, guess) if area[4] - area[2] + 1 >= WIDE_COLUMNS else None
            constants[area] = (guess, last, columns)
    named = {sheet: row for sheet, row in areas.headers if sheet in rows and rows[sheet].rows is not None}
    return _with_sheet_checks(BookRead(book, rows, mistakes, missing, constants, _header_names(book, rows, named)))


def _with_sheet_checks(found: BookRead) -> BookRead:
    """``found`` with the book-level checks' mistakes: the leads of an imported book's Leads sheet without their
    traveller row, which no formula reads (:func:`~xlbridge.batch.read.leads.lead_mistakes`), and the Pairs and
    Matches sheets' rows their formulas pass over (:func:`~xlbridge.batch.read.pairsheet.pairs_sheet_mistakes`,
    :func:`~xlbridge.batch.read.matchsheet.match_sheet_mistakes`)."""
    parts = dict(found.book.sheets)
    if TRAVELLERS_SHEET in parts:  # (the first rows of the part only: its parameter block)
        table: dict = {}

        def shared(index: int) -> str | None:  # (the table read once, when a parameter's cell needs it)
            if not table:
                table.update(_shared_strings(found.book, ALL_STRINGS) or {-1: ""})
            return table.get(index)

        cells = parameter_cells(found.part_rows(TRAVELLERS_SHEET).xml, tuple(PAIRS_PARAMETER_CELLS), shared)
        found.parameters[TRAVELLERS_SHEET] = {label: at for label, (at, _value) in cells.items()}
    for check in (lead_mistakes, pairs_sheet_mistakes, match_sheet_mistakes):
        found.mistakes.extend(check(lambda sheet: found.part_rows(sheet).xml if sheet in parts else None,
                                    lambda last: _shared_strings(found.book, last)))
    return found


def _header_names(book: CheckedBook, rows: dict, header_rows: dict) -> dict:
    """{sheet: {header name: column}} of the header rows ``header_rows`` ({sheet: row}): the row's cells read with
    expat (numbers, inline strings, shared strings looked up in the table, read up to the largest index wanted).
    A header row holds a table's names: at most :data:`MAX_HEADER_CELLS` of its cells are read."""
    import xml.parsers.expat as expat

    from ..guard.xmlscan import defuse

    def forbidden(what: str) -> None:
        raise ValueError(what)

    cells: dict = {}  # sheet -> [(column, kind, text)]
    for sheet, row in header_rows.items():
        found = rows[sheet]
        span = next(((start, stop) for r, start, stop in found.rows if r == row), None)
        if span is None:
            continue
        got: list = []
        state: dict = {}

        def start(tag, attrs, got=got, state=state):
            local = tag.rsplit(":", 1)[-1]
            if local == "c" and len(got) < MAX_HEADER_CELLS:
                ref = attrs.get("r", "")
                letters = ref.rstrip("0123456789")
                state["cell"] = [column_number(letters), attrs.get("t", "n"), ""]
                got.append(state["cell"])
            elif local in ("v", "t") and "cell" in state:
                state["text"] = True

        def end(tag, state=state):
            if tag.rsplit(":", 1)[-1] in ("v", "t"):
                state["text"] = False

        def chars(data, state=state):
            if state.get("text") and "cell" in state:
                state["cell"][2] += data

        parser = expat.ParserCreate()
        defuse(parser, forbidden)
        parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, chars
        try:
            body = found.xml[span[0]:span[1]]
            end_tag = re.search(rb"</(?:[A-Za-z_][\w.-]*:)?row\s*>", body)  # (the row's own end tag: cut there)
            parser.Parse(b"<row>" + (body if end_tag is None else body[:end_tag.start()]) + b"</row>", True)
        except (expat.ExpatError, ValueError):
            continue  # (a header this cannot read: its mistakes stay named at the result cells)
        cells[sheet] = got
    wanted = {int(text) for got in cells.values() for _c, kind, text in got
              if kind == "s" and text.strip().isdigit() and len(text.strip()) < 8}
    strings = _shared_strings(book, max(wanted)) if wanted else {}
    out: dict = {}
    for sheet, got in cells.items():
        names: dict = {}
        for col, kind, text in got:
            name = strings.get(int(text.strip())) if kind == "s" and text.strip().isdigit() else text
            if col and isinstance(name, str) and name.strip():
                names.setdefault(name.strip(), col)
        out[sheet] = names
    return out


#: the most cells of a header row read for its names
MAX_HEADER_CELLS = 256


def _shared_strings(book: CheckedBook, last: int) -> dict:
    """{index: text} of the shared-string table up to index ``last`` (a string's runs joined, phonetic runs left
    out), read with expat; {} without a table."""
    import xml.parsers.expat as expat

    from ..guard.xmlscan import defuse

    out: dict = {}
    if "xl/sharedStrings.xml" not in book.info.members:
        return out
    state = {"i": -1, "t": False, "ph": 0}

    class Done(Exception):
        pass

    def start(tag, attrs):
        local = tag.rsplit(":", 1)[-1]
        if local == "si":
            if state["i"] >= last:
                raise Done
            state["i"] += 1
            out[state["i"]] = ""
        elif local == "rPh":
            state["ph"] += 1
        elif local == "t" and not state["ph"]:
            state["t"] = True

    def end(tag):
        local = tag.rsplit(":", 1)[-1]
        if local == "t":
            state["t"] = False
        elif local == "rPh":
            state["ph"] -= 1

    def chars(data):
        if state["t"] and state["i"] >= 0:
            out[state["i"]] += data

    def forbidden(what: str) -> None:
        raise ValueError(what)

    parser = expat.ParserCreate()
    defuse(parser, forbidden)
    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, chars
    try:
        with book.open() as zf, zf.open("xl/sharedStrings.xml") as fh:
            while chunk := fh.read(1 << 16):
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
    except Done:
        pass
    except (expat.ExpatError, ValueError, KeyError):
        return {}
    return out


def unfilled_rows(read: BookRead, filled: dict) -> list[tuple[str, Any, str, str]]:
    """The layout mistakes of the result cells still without a formula once the evaluate stage has filled what
    it could (``filled``: {sheet: {(row, column), ...}} it wrote): the first such cell of each sheet, named, saying
    what the cell shows (a value typed over its formula, or nothing: a row inserted past what the run fills)."""
    out = []
    for sheet, cells in read.missing.items():
        left = sorted(set(cells) - set(filled.get(sheet, ())))
        if not left:
            continue
        (r, c) = left[0]
        if row_kinds(read.rows[sheet], r).get(c, frozenset()) & {"v", "is"}:
            text = (f"row {r:,}: a value was typed over this result cell's formula (in a row inserted into the table "
                    f"or not), so the cell shows that value, not the row's result; copy the result cells of another "
                    f"row of the table back into it")
        else:
            text = (f"row {r:,} has no formula in this result cell (more rows were inserted into the table than a "
                    f"run fills, {MAX_FILLED_ROWS:,}), so its results are not shown; copy the result cells of "
                    f"another row of the table into it")
        out.append((sheet, (r, c), "layout", text))
    return out
