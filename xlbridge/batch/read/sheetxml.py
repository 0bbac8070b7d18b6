"""One streamed pass over a worksheet part: its byte layout, its formulas and its values by column.

:func:`read_sheet` runs expat (the standard library's XML parser; DTDs and entity declarations
refused) once over a worksheet part and returns, in a :class:`SheetRead`:

- the :class:`~xlbridge.batch.cells.SheetLayout` that :func:`~xlbridge.batch.write.xlsxpatch.patch_sheet`
  needs (byte offsets of ``<sheetData>``, of every ``<row>``, and of the ``<c>`` elements it may
  rewrite: formula cells and cells inside array ranges; ``full=True`` keeps every cell, as
  :func:`~xlbridge.batch.read.sheetxml.scan_sheet` does);
- with ``values=True``, what the formula engine reads from the part, exactly as openpyxl 3.1 reads
  it for formulas 1.3 (``openpyxl.worksheet._reader.WorkSheetParser.parse_cell`` and
  ``parse_formula``, with formulas' ``xlreader``: raw date serials, shared strings from formulas'
  own string table): plain constants column by column (numbers as ``int`` or ``float``, floats
  rounded to 15 decimals as ``formulas.ExcelModel.compile_cell`` does; text; booleans), the
  formula of each formula cell (``"=..."``, shared formulas translated by openpyxl's ``Translator``),
  the array-formula ranges by anchor (openpyxl's ``worksheet.array_formulae``), and the few cells
  the engine must compile one by one (error constants, dates, unknown types);
- ``unusual``: the reason, if any, why this pass cannot vouch that openpyxl reads the part the same
  way (an element outside the spreadsheet namespace, a namespace declared inside the data, a
  repeated or nested value element, a data-table formula, a value openpyxl would refuse, ...). The
  caller then lets openpyxl itself read that part's cells (the engine's stock path), which refuses or
  reads them as it always did.

The structural checks (rows and cells in order, references inside the sheet, style numbers that
name a format) raise :class:`~xlbridge.core.errors.WorkbookError` in one line, naming the sheet
and cell, as Excel would call the file damaged.

>>> xml = (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
...        b'<row r="1"><c r="A1"><v>2</v></c><c r="B1" t="inlineStr"><is><t>4S</t></is></c>'
...        b'<c r="C1"><f t="array" ref="C1:C2">A1*2</f><v>4</v></c></row></sheetData></worksheet>')
>>> got = read_sheet(xml, values=True)
>>> got.columns, got.formulas, got.array_refs, got.unusual
({1: ([1], [2]), 2: ([1], ['4S'])}, {(1, 3): '=A1*2'}, {'C1': 'C1:C2'}, None)
>>> sorted(got.layout.cells), got.layout.array_ranges
([(1, 3)], ((1, 3, 2, 3),))
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from typing import Any, NamedTuple, NoReturn

from ...core.errors import WorkbookError
from ..cells import MAX_COL, MAX_ROW, SheetLayout, cell_ref, parse_range, parse_ref
from ..guard.limits import clip
from ..guard.xmlscan import defuse
from .spans import CellSpans

__all__ = ["SheetRead", "Half", "WHOLE", "prepare_reading", "read_sheet", "read_sheet_half", "scan_sheet", "column_number", "MAIN_NS",
           "SHARED_LATER"]

#: ``shared_strings=SHARED_LATER`` in a tail reading (``read_sheet_half(data, Half(tail=...))``): the shared-string
#: table is not read yet; a shared-string cell's value is its index, looked up by the merge
#: (:mod:`xlbridge.batch.read.halves`: ``extras["later"]`` lists where they are, ``extras["later_unseen"]``
#: the indices of those inside array ranges, which the whole reading looks up too and then skips)
class _SharedLater(tuple):
    """The stand-in for a shared-string table read later: it holds no string (any other reading fails)."""


SHARED_LATER: Any = _SharedLater()

MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_T_TAG = "{%s}t" % MAIN_NS
_ROW_RE = re.compile(r"^[0-9]{1,7}$")
# what an inline string (<is>, ECMA-376 Part 1 18.3.1.53 CT_Rst) may hold: text, rich-text runs with their
# run properties (18.4.7 CT_RPrElt) and phonetic runs; anything else goes to openpyxl's own reader
_INLINE_TEXT_ELEMENTS = frozenset({
    "t", "r", "rPr", "rPh", "phoneticPr", "rFont", "charset", "family", "b", "i", "strike", "outline",
    "shadow", "condense", "extend", "color", "sz", "u", "vertAlign", "scheme", "extLst", "ext"})
_STYLE_RE = re.compile(r"^[0-9]{1,9}$")
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class _Columns(dict):
    """{"A": 1, ..., "XFD": 16384}, filled as letters are met (0 for anything else)."""

    def __missing__(self, letters: str) -> int:
        col = 0
        if 1 <= len(letters) <= 3 and letters.isascii() and letters.isupper():
            for ch in letters:
                col = col * 26 + ord(ch) - 64
        if 0 < col <= MAX_COL:
            self[letters] = col  # (only real columns are kept: at most 16,384 entries)
            return col
        return 0


_COLUMNS = _Columns()


def column_number(letters: str) -> int:
    """The column of ``letters`` (``"A"`` 1, ``"XFD"`` 16384), 0 for anything else (remembered once seen).

    >>> column_number("AA"), column_number("XFE"), column_number("a")
    (27, 0, 0)
    """
    return _COLUMNS[letters]
_PLAIN_TYPES = frozenset({"n", "s", "str", "b", "inlineStr"})


@dataclasses.dataclass
class SheetRead:
    """What :func:`read_sheet` found (see the module docstring)."""

    layout: SheetLayout
    columns: dict[int, tuple[list[int], list[Any]]]  # column -> (rows, values) of plain constants
    formulas: dict[tuple[int, int], str]  # (row, column) -> the formula as openpyxl gives it ("=...")
    array_refs: dict[str, str]  # anchor ("C1") -> array range ("C1:C2")
    special: dict[tuple[int, int], tuple[Any, str]]  # (row, column) -> (value, data type): compiled one by one
    unusual: str | None
    cells: int  # <c> elements seen


def _local(name: str) -> str:
    return name.rsplit(":", 1)[-1]


def _cast_number(text: str) -> int | float:
    """openpyxl's ``_cast_number``: a float if the text has '.', 'E' or 'e', else an int (ValueError if neither)."""
    if "." in text or "E" in text or "e" in text:
        return float(text)
    return int(text)


_DUMMY_SHEET: list[Any] = []


@functools.lru_cache(maxsize=1024)
def _row_dimension_check(attrs: tuple[tuple[str, str], ...], cell_formats: int | None) -> bool:
    """Whether openpyxl accepts a ``<row>``'s display attributes (its ``RowDimension``, as when it loads)."""
    from openpyxl import Workbook
    from openpyxl.worksheet.dimensions import RowDimension

    rd = {k: v for k, v in attrs if ":" not in k and k != "xmlns"}
    try:
        if "s" in rd:
            key = int(rd.pop("s"))
            if cell_formats is not None and not -cell_formats <= key < cell_formats:
                return False
        if not _DUMMY_SHEET:
            _DUMMY_SHEET.append(Workbook().active)
        RowDimension(_DUMMY_SHEET[0], **rd)
    except Exception:
        return False
    return True


@functools.lru_cache(maxsize=4096)
def _inline_text(snippet: bytes, declarations: tuple[tuple[str, str], ...]) -> str | None:
    """openpyxl's ``Text.from_tree(<is>).content`` of one ``<is>`` element (None if openpyxl would fail).

    The common ``<is><t>text</t></is>`` (what Excel and openpyxl write) is read without openpyxl, as
    it reads it: the text of the one ``<t>`` (its attributes, such as ``xml:space``, ignored; "" when
    empty). Anything else (rich-text runs, phonetic runs, attributes on ``<is>``, a ``<t>`` holding an
    element or of another namespace) goes to openpyxl itself. (The tail of a large part, read by a
    process forked before openpyxl is imported, would otherwise import it: 0.2 s.)

    >>> _inline_text(b'<is><t xml:space="preserve"> 4S &amp; </t></is>', (("xmlns", MAIN_NS),))
    ' 4S & '
    >>> _inline_text(b'<is><r><t>4</t></r><r><rPr><b/></rPr><t>S</t></r></is>', (("xmlns", MAIN_NS),))
    '4S'
    """
    import defusedxml.ElementTree as DET

    head = "<xlbridge " + " ".join(f'{k}="{v}"' for k, v in declarations) + ">"
    try:
        root = DET.fromstring(head.encode() + snippet + b"</xlbridge>")
        inline = root[0]
        if len(root) == 1 and len(inline) == 1 and not inline.attrib:
            t = inline[0]
            if t.tag == _T_TAG and not len(t):
                return t.text or ""
        from openpyxl.cell.text import Text

        return str(Text.from_tree(inline).content)
    except Exception:
        return None


def read_sheet(data: bytes, *, part: str = "worksheet", sheet: str | None = None,
               cell_formats: int | None = None, shared_strings: list[str] | None = None,
               values: bool = False, full: bool = False) -> SheetRead:
    """Read a worksheet part in one expat pass; see the module docstring.

    ``values``: also collect what the formula engine reads (constants, formulas, special cells);
    ``shared_strings``: the workbook's shared-string table (formulas' reading of it); ``full``: keep
    the span of every cell in the layout (not only of those :func:`patch_sheet` may rewrite, with
    the columns and offsets of the cells of a row where an array range lacks a cell).
    """
    return read_sheet_half(data, WHOLE, part=part, sheet=sheet, cell_formats=cell_formats,
                           shared_strings=shared_strings, values=values, full=full)[0]


@dataclasses.dataclass(frozen=True)
class Half:
    """Which part of a worksheet a reading covers (:func:`read_sheet_half`): the whole part (no field
    given), the rows before ``head`` (a byte offset; ``reading_on()`` called if it reads on past it), or
    the rows from ``tail`` (split, root declarations, sheetData's name) on."""

    head: int | None = None
    tail: tuple | None = None
    reading_on: Callable[[], Any] | None = None


#: The whole part, read in one pass.
WHOLE = Half()


def read_sheet_half(data: bytes, half: Half = WHOLE, *, part: str = "worksheet", sheet: str | None = None,
                    cell_formats: int | None = None, shared_strings: list[str] | None = None, values: bool = False,
                    full: bool = False) -> tuple[SheetRead, dict]:
    """:func:`read_sheet`, whole (the default) or one of its two halves (:mod:`xlbridge.batch.read.halves`),
    as ``half`` (a :class:`Half`) says.

    ``head=split``: read the part up to the byte offset ``split`` and stop there if a ``<row>`` of the
    sheet data starts at that very byte (``extras["confirmed"]``; otherwise read on to the end, as a
    whole reading). ``tail=(split, root declarations, sheetData's name)``: let expat check the bytes
    before ``split`` without a handler and read from there to the end, as the whole reading would from
    a row starting at ``split`` (the head's confirmation is what makes that so): the state that rows
    carry from the head (shared formulas' first cells, array ranges reaching down) is left to the merge
    (``extras``). ``reading_on()``: called once a head reading finds no row at the split and reads on
    (the tail's work is then of no use). Returns (the reading, extras).
    """
    rd = _Reading(data, half, part, sheet, cell_formats, shared_strings, values, full)
    start, end, chars, where = _handlers(rd)
    confirmed = _parse(rd, start, end, chars, where)
    at = where()
    if confirmed:  # (a head that stopped at its split: the tail reads on from there)
        rd.extras.update(confirmed=True, last_row=at.cur_row, masters=rd.shared_formulae)
    else:
        sd = rd.sd
        if not sd:
            rd.damaged("no sheetData")
        if values and half.tail is None and sd[3] is not None and data.find(b"xmlns", sd[1], sd[3]) >= 0:
            rd.note("a namespace declared (or the word xmlns written) inside the sheet data")
    return rd.result(at.q_prefix, at.ncells), rd.extras


def _new_parser(part: str) -> Any:
    """An expat parser (attributes as a dict, text in one piece) refusing DTDs and entity declarations."""
    import xml.parsers.expat as expat

    parser = expat.ParserCreate()
    parser.buffer_text = True  # attributes come as a dict, in document order

    def refuse(_what: str) -> Any:  # (no reference to the reading: the parser would keep it alive)
        raise WorkbookError(f"refused: XML part {part} contains a DTD or entity declaration")

    defuse(parser, refuse)
    return parser


@dataclasses.dataclass(eq=False)
class _Reading:
    """One reading of :func:`read_sheet_half`: what it was given, its parser, the containers its handlers
    fill, and its two ways of saying what it found (:meth:`note`, :meth:`damaged`)."""

    data: bytes
    half: Half
    part: str
    sheet: str | None
    cell_formats: int | None
    shared_strings: list[str] | None
    values: bool
    full: bool

    def __post_init__(self) -> None:
        """The parser and the empty containers (a tail reading's: as the head leaves them at the split)."""
        sheet, part, tail = self.sheet, self.part, self.half.tail
        self.label = f"sheet {clip(sheet)[1:-1]}" if sheet is not None else f"worksheet {clip(part, 80)[1:-1]}"
        self.parser = _new_parser(part)
        self.cells: Any = CellSpans()  # (a SheetLayout's cells: {(row, col): CellSpan}, kept compactly)
        self.rows: dict = {}
        self.formula_cells: dict = {}
        self.array_ranges: list = []
        self.columns: dict = {}
        self.formulas: dict = {}
        self.array_refs: dict = {}
        self.special: dict = {}
        self.shared_formulae: dict = {}
        self.unusual: list = []
        self.declarations: list = []  # the root element's xmlns declarations (to read an <is> snippet alone)
        self.sd: list = []  # <sheetData>: [qname, start, first child start or None, end tag start or None, end]
        self.row_cells: dict = {}  # (compact layout) row -> [(column, start)] where an array range lacks a cell
        self.starts = [0] * 6  # start offset of the open element at each depth
        self.evs = [0] * 6  # event number at its start (no event since: an empty-element tag)
        self.active: list = []  # array ranges that may still hold cells of the rows to come
        self.row_arrays: list = []  # (c1, c2) of the array ranges covering the current row
        self.text: list = []  # the pieces of text of the current value or formula
        self.this_row: list = []  # [(column, start)] of the cells of the current row, when it meets an array range
        self.row_attrs: dict = {}  # the current row's attributes
        self.root_is_worksheet = tail is not None  # (a tail's root: as the head found it)
        self.extras: dict = {"confirmed": False}
        self.later: list | None = None  # (tail) [(column, index in its values)] of the shared strings left to the merge
        # (tail) the indices of shared-string cells inside array ranges: checked in the merge
        self.later_unseen: list = []
        if tail is not None:
            if self.shared_strings is SHARED_LATER:
                self.later = self.extras["later"] = []
                self.extras["later_unseen"] = self.later_unseen
            self.extras.update(pending=[], masters=set(), note_at=None)
            self.declarations.extend(tail[1])
            self.sd[:] = [tail[2], -1, -1, None, None]

    def note(self, why: str) -> None:
        """Note why this pass cannot vouch for openpyxl's reading (the first reason only; with ``values``)."""
        if self.values and not self.unusual:
            self.unusual.append(why)
            if self.half.tail is not None:  # (where, for the merge: the first note in the document's order wins)
                self.extras["note_at"] = self.parser.CurrentByteIndex

    def damaged(self, what: str) -> NoReturn:
        """Refuse the part as Excel would call it damaged, naming the sheet."""
        raise WorkbookError(f"damaged workbook: {self.label}: {what}")

    def result(self, prefix: str, ncells: int) -> SheetRead:
        """What the reading found, as :func:`read_sheet` returns it."""
        layout = SheetLayout(self.cells, self.rows, tuple(self.sd), self.formula_cells, tuple(self.array_ranges),
                             prefix, self.full, self.row_cells)
        return SheetRead(layout, self.columns, self.formulas, self.array_refs, self.special,
                         self.unusual[0] if self.unusual else None, ncells)


def _parse(rd: _Reading, start: Callable[[str, dict], None], end: Callable[[str], None],
           chars: Callable[[str], None], where: Callable[[], _Where]) -> bool:
    """Run expat over the part with these handlers, whole, from the tail's split or up to the head's;
    True when a head reading stops at its split (a row of the sheet data starts there)."""
    import xml.parsers.expat as expat

    parser, data, head, tail = rd.parser, rd.data, rd.half.head, rd.half.tail
    confirmed: list = []

    def first_start(name: str, attrs: dict) -> None:  # (head) the first element at or after the split
        at = where()
        if (parser.CurrentByteIndex == head and at.depth == 2 and at.in_sd and not at.in_row and name == at.q_row
                and not any(a[2] > at.cur_row for a in rd.active)):  # (an array range reaching down: read on, whole)
            confirmed.append(True)  # a row of the sheet data starts at the split: the tail's
            parser.StartElementHandler = parser.EndElementHandler = parser.CharacterDataHandler = None
            return
        whole()
        start(name, attrs)

    def first_end(name: str) -> None:
        whole()
        end(name)

    def whole() -> None:
        parser.StartElementHandler = start
        parser.EndElementHandler = end
        parser.CharacterDataHandler = chars

    try:
        if head is not None:
            whole()
            parser.Parse(data[:head], False)
            parser.StartElementHandler, parser.EndElementHandler = first_start, first_end
            tag_end = data.find(b">", head) + 1 or len(data)
            parser.Parse(data[head:tag_end], False)
            if confirmed:
                return True
            whole()
            if rd.half.reading_on is not None:
                rd.half.reading_on()
            parser.Parse(data[tag_end:], True)
        elif tail is not None:
            parser.Parse(data[:tail[0]], False)  # (no handler: expat checks these bytes; the head reads them)
            whole()
            parser.Parse(data[tail[0]:], True)
        else:
            whole()
            parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise WorkbookError(f"damaged workbook: XML part {clip(rd.part, 80)[1:-1]} is not well-formed ({exc})"
                            ) from None
    finally:
        # the handlers read the parser's byte index: parser -> handler -> parser is a reference cycle that
        # would keep this whole reading alive until a full garbage collection; cut, it goes when dropped
        parser.StartElementHandler = parser.EndElementHandler = parser.CharacterDataHandler = None
    return False


class _Where(NamedTuple):
    """Where a reading is (``where()`` of :func:`_handlers`): for a head's stop at its split, and its result."""

    depth: int
    in_sd: bool
    in_row: bool
    q_row: str  # the name of a row in the sheet data's namespace
    cur_row: int
    q_prefix: str
    ncells: int  # <c> elements seen


_NOTHING: Any = None  # (None, typed Any: what a cell's type, value, formula and inline string start as)


def _handlers(rd: _Reading) -> tuple[Callable[[str, dict], None], Callable[[str], None], Callable[[str], None],
                                     Callable[[], _Where]]:
    """expat's handlers of one reading (an element's start, its end, text: closures over the reading's
    state, the hot path) and ``where()``, where the reading is (a :class:`_Where`)."""
    parser, data, values, full, note, damaged = rd.parser, rd.data, rd.values, rd.full, rd.note, rd.damaged
    cells, formula_cells, starts, evs, text = rd.cells, rd.formula_cells, rd.starts, rd.evs, rd.text
    row_arrays, this_row = rd.row_arrays, rd.this_row
    cell_value = _value_reader(rd)
    depth = ev = cur_row = cur_col = ncells = collecting = 0  # collecting: 1 <v> text, 2 <f> text
    in_sd = in_row = in_cell = False
    q_row = q_c = q_prefix = ""
    q_kinds: dict[str, str] = {}  # (in the sheet data's namespace) the name of a cell's child -> "v", "f" or "is"
    if rd.half.tail is not None:  # (a tail starts inside the sheet data: the head reads the root and sheetData)
        q_prefix, q_row, q_c, q_kinds = _names(rd.half.tail[2])
        in_sd, depth, evs[0], evs[1] = True, 2, -1, -1
    # the current cell: its (row, column), attributes, children, type, value, formula ([attributes, text]),
    # inline string's span, and whether an array range covers it
    c_pos: tuple = (0, 0)
    c_attrs: dict = {}
    c_children: list = []
    c_t = c_v = c_f = c_is = _NOTHING
    c_in_array = c_own = False  # c_own: its reference is written as its own position
    styles_ok: set = set()  # the style numbers (None: no style) checked already
    formula_texts: dict = {}  # each formula's text, once
    row_text = ""
    columns_of = _COLUMNS

    def start(name: str, attrs: dict) -> None:
        nonlocal depth, ev, in_cell, in_row, in_sd, cur_row, cur_col, row_text, ncells, collecting
        nonlocal c_pos, c_attrs, c_t, c_children, c_v, c_f, c_is, c_in_array, c_own, q_row, q_c, q_prefix, q_kinds
        idx = parser.CurrentByteIndex
        ev += 1
        d = depth
        depth = d + 1
        if d < 6:
            starts[d] = idx
            evs[d] = ev
        if d == 4:
            if not in_cell:
                return
            kind = q_kinds.get(name) or _child_kind(rd, name)
            if kind == "v":
                if c_v is not None:
                    note("a cell with two values")
                c_v, collecting = "", 1
                text.clear()
            elif kind == "f":
                c_f, collecting = _formula_start(rd, attrs, c_f, c_pos, cur_row), 2
                text.clear()
            else:
                collecting = 0
            return
        if d == 3:
            if not in_row or (name != q_c and _foreign(rd, name, "c", "a row", "a cell")):
                return
            # a cell: <c r="A1" s="3" t="n">
            in_cell = True
            r = attrs.get("r")
            if attrs.get("s") not in styles_ok:  # (a style number met once is checked once)
                _check_style(rd, r, attrs.get("s"), styles_ok)
            if r is not None:
                digits = r.lstrip(_LETTERS)
                cc = columns_of[r[: len(r) - len(digits)]]  # (a dict lookup; __missing__ reads new letters)
                c_own = bool(cc) and digits == row_text  # (else not the row's own number, as the row wrote it)
                if not c_own:
                    cc = _cell_column(rd, r, cc, digits, cur_row)
                if cc <= cur_col:
                    damaged(f"cell {r} comes after column {cur_col} of its row (cells out of order or repeated)")
                cur_col = cc
            else:
                cur_col += 1
                if cur_col > MAX_COL:
                    damaged(f"row {cur_row} has more than {MAX_COL} cells")
            ncells += 1
            if not full:
                this_row.append((cur_col, idx))
            c_pos, c_attrs, c_t = (cur_row, cur_col), attrs, attrs.get("t")
            c_children = []
            c_v = c_f = c_is = None
            collecting, c_in_array = 0, False
            for c1, c2 in row_arrays:
                if c1 <= cur_col <= c2:
                    c_in_array = True
                    break
            return
        if d == 2:
            if in_sd:
                row = _row_start(rd, name, attrs, idx, cur_row, q_row)
                if row:  # (0: not a row, skipped)
                    in_row, cur_row, row_text, cur_col = True, row, str(row), 0
            return
        if d < 2:  # the root element; sheetData inside it
            names = _outer_start(rd, d, name, attrs, idx)
            if names is not None:
                (q_prefix, q_row, q_c, q_kinds), in_sd = names, True
            return
        if in_cell:  # d >= 5
            _inner_element(rd, name, collecting)

    def chars(data_text: str) -> None:
        nonlocal ev
        ev += 1
        if collecting and depth == 5:
            text.append(data_text)

    def end(name: str) -> None:
        nonlocal depth, ev, in_cell, in_row, in_sd, collecting, c_v, c_is
        idx = parser.CurrentByteIndex
        depth -= 1
        d = depth
        empty = evs[d] == ev if d < 6 else False
        ev += 1
        if d == 4:
            if not in_cell:
                return
            s_idx = starts[4]
            c_children.append((name, s_idx, idx, empty))
            if collecting == 1:
                c_v = "".join(text)
            elif collecting == 2:
                f = "".join(text)  # (one string per text: a table's result column holds one text in every row)
                formula_cells[c_pos] = c_f[1] = formula_texts.setdefault(f, f)
            elif c_is is None and name.rsplit(":", 1)[-1] == "is":
                c_is = (s_idx, _span_end(data, s_idx, idx, empty))
            collecting = 0
            return
        if d == 3:
            if in_cell:
                in_cell = False
                if c_f is not None and c_pos not in formula_cells:
                    formula_cells[c_pos] = ""
                if full or c_f is not None or c_in_array:
                    cells.add(*c_pos, name, starts[3], *_span_ends(data, starts[3], idx, empty, c_children), c_attrs, c_own)
                if values and (c_v or c_f is not None or c_is is not None):  # (an empty cell, styled: nothing)
                    cell_value(c_pos, c_attrs, c_t, c_v, c_f, c_is, c_in_array)
            return
        if d == 2:
            if in_row:
                in_row = False
                _row_end(rd, name, starts[2], idx, empty, cur_row)
            return
        if d == 1 and in_sd:
            in_sd = False
            _sheet_data_end(data, rd.sd, starts[1], idx, empty)

    def where() -> _Where:
        return _Where(depth, in_sd, in_row, q_row, cur_row, q_prefix, ncells)

    return start, end, chars, where


def _value_reader(rd: _Reading) -> Callable[..., None]:
    """``cell_value(pos, attrs, t, v, f, inline, in_array)``: what the formula engine reads of a cell
    (its formula, its constant or a cell to compile alone), kept in the reading's containers."""
    data, shared_strings, note, declarations = rd.data, rd.shared_strings, rd.note, rd.declarations
    columns, formulas, special, later, later_unseen = rd.columns, rd.formulas, rd.special, rd.later, rd.later_unseen
    # each formula as the engine reads it ("=" and its text), once per text: the texts are the reading's own
    # (one per distinct text), and a table's column holds one text in every row (100 MiB at 100,000 rows)
    engine_texts: dict[str | None, str] = {}

    def cell_value(pos: tuple, attrs: dict, c_t: str | None, v: str | None, fa: list | None,
                   inline: tuple | None, in_array: bool) -> None:
        value: Any
        if fa is not None:
            # (a formula without attributes, as most are, needs none of _formula_value's readings)
            if fa[0]:
                formulas[pos] = _formula_value(rd, fa[0], fa[1], pos, attrs)
                return
            text = engine_texts.get(fa[1])
            if text is None:
                text = engine_texts[fa[1]] = "=" + (fa[1] or "")
            formulas[pos] = text
            return
        t = c_t or "n"
        if t == "inlineStr":
            if inline is None:
                return
            value = _inline_text(data[inline[0]:inline[1]], tuple(declarations))
            if value is None:
                note(f"cell {cell_ref(*pos)}: an inline string openpyxl cannot read")
                return
        else:
            if not v:
                return
            try:
                if t == "n":
                    value = _cast_number(v)
                    if type(value) is float:
                        value = round(value, 15)
                elif t == "s":
                    if shared_strings is None:
                        note("a shared string without the shared-string table")
                        return
                    if later is None:
                        value = shared_strings[int(v)]
                    else:
                        value = int(v)
                        if in_array:  # (skipped below; the whole reading looks it up all the same)
                            later_unseen.append(value)
                elif t == "b":
                    value = bool(int(v))
                elif t == "str":
                    value = v
                else:  # errors ("e"), dates ("d") and unknown types: the engine compiles them one by one
                    value = _special_value(v, t)
                    if not in_array:  # (a cached value inside an array range: the engine skips it)
                        special[pos] = (value, t)
                    return
            except (ValueError, IndexError, OverflowError, TypeError):
                _unreadable(rd, pos, t, v)
        if in_array:
            return  # a cached value inside an array range: the engine skips it
        col = columns.get(pos[1])
        if col is None:
            col = columns[pos[1]] = ([], [])
        col[0].append(pos[0])
        col[1].append(value)
        if later is not None and t == "s":  # (the index, for the merge to look up: halves)
            later.append((pos[1], len(col[1]) - 1))

    return cell_value


def _outer_start(rd: _Reading, d: int, name: str, attrs: dict, idx: int) -> tuple[str, str, str, dict[str, str]] | None:
    """The root element (``d`` 0) or a child of it starts: :func:`_names` if it is the sheet data of a worksheet."""
    if d == 0:
        rd.root_is_worksheet = name.rsplit(":", 1)[-1] == "worksheet"
        rd.declarations.extend((k, v) for k, v in attrs.items() if k.startswith("xmlns"))
    elif name.rsplit(":", 1)[-1] == "sheetData" and rd.root_is_worksheet:
        return _sheet_data_start(rd, name, idx)
    return None


def _names(sd_name: str) -> tuple[str, str, str, dict[str, str]]:
    """The prefix of the sheet data's name (``"x:"`` or ``""``), the names of a row and of a cell, and
    {the name of a cell's value, formula, inline string: "v", "f", "is"}."""
    prefix = sd_name[: -len("sheetData")]
    return prefix, prefix + "row", prefix + "c", {prefix + x: x for x in ("f", "v", "is")}


def _sheet_data_start(rd: _Reading, name: str, idx: int) -> tuple[str, str, str, dict[str, str]]:
    """The ``<sheetData>`` element starts (at ``idx``): noted in ``rd.sd``; its :func:`_names`."""
    if rd.sd:
        rd.note("two sheetData elements")
    names = _names(name)
    q_prefix = names[0]
    rd.sd[:] = [name, idx, None, None, None]
    want = "xmlns" + (":" + q_prefix[:-1] if q_prefix else "")
    if dict(rd.declarations).get(want) != MAIN_NS:
        rd.note("the sheet data outside the spreadsheet namespace")
    return names


def _sheet_data_end(data: bytes, sd: list, s_idx: int, idx: int, empty: bool) -> None:
    """The ``<sheetData>`` element (started at ``s_idx``) ends at ``idx``: its offsets noted in ``sd``."""
    e_idx = _span_end(data, s_idx, idx, empty)
    if e_idx == idx:  # <sheetData/>
        sd[2] = None
        sd[3] = None
    else:
        if sd[2] is None:
            sd[2] = idx
        sd[3] = idx
    sd[4] = e_idx


def _span_end(data: bytes, s_idx: int, idx: int, empty: bool) -> int:
    """The end offset of the element that started at ``s_idx`` and whose end expat reports at ``idx``."""
    # an empty-element tag <x/>: no event since its start, and expat reports its end after "/>"
    if empty and idx > s_idx and data[idx - 2: idx] == b"/>":
        return idx
    return data.index(b">", idx) + 1


def _span_ends(data: bytes, s_idx: int, idx: int, empty: bool, children: list) -> tuple[int, list]:
    """The end offset of a ``<c>`` element (started at ``s_idx``, its end reported at ``idx``) and its
    children as its span holds them, (local name, start, end), from what the reading noted of each (name,
    start, where expat reported its end, whether it was empty)."""
    kids = [(n if ":" not in n else n.rsplit(":", 1)[-1], s, _span_end(data, s, i, e)) for n, s, i, e in children]
    return _span_end(data, s_idx, idx, empty), kids


def _foreign(rd: _Reading, name: str, local: str, inside: str, what: str) -> bool:
    """Not the expected element: skipped (True) unless only its namespace differs (noted, read)."""
    if name.rsplit(":", 1)[-1] != local:
        rd.note(f"element {clip(name, 20)} in {inside}")
        return True
    rd.note(f"{what} outside the spreadsheet namespace")
    return False


def _child_kind(rd: _Reading, name: str) -> str:
    """The local name of a cell's child element other than the sheet data's own value, formula and inline
    string (noted: outside the spreadsheet namespace, or any other element; openpyxl reads a ``<row>``
    wherever it stands, so one inside a cell is read as a row, or makes it refuse the workbook)."""
    local = name.rsplit(":", 1)[-1]
    if local in ("f", "v", "is"):
        rd.note(f"element {clip(name, 20)} outside the spreadsheet namespace in a cell")
    else:
        rd.note(f"element {clip(name, 20)} in a cell")
    return local


def _inner_element(rd: _Reading, name: str, collecting: int) -> None:
    """An element inside a cell's child (the text runs of an inline string): noted unless openpyxl reads it."""
    if collecting:
        rd.note("an element inside a value or formula")
    elif name.rsplit(":", 1)[-1] not in _INLINE_TEXT_ELEMENTS:
        # openpyxl refuses the whole book for e.g. a <row> inside <is>: let its reader decide
        rd.note(f"element {clip(name, 20)} in a cell's text")


def _row_start(rd: _Reading, name: str, attrs: dict, idx: int, cur_row: int, q_row: str) -> int:
    """A child of the sheet data starts (at ``idx``): the number of the row it is (0: not a row, skipped),
    refused when it is not a row after row ``cur_row``; display attributes that openpyxl refuses noted."""
    sd = rd.sd
    if sd[2] is None:
        sd[2] = idx  # first element inside sheetData
    if name != q_row and _foreign(rd, name, "row", "the sheet data", "a row"):
        return 0
    rd.row_attrs = attrs
    r = attrs.get("r")
    if r is None:
        row = cur_row + 1
    elif _ROW_RE.match(r) and 1 <= int(r) <= MAX_ROW:
        row = int(r)
    else:
        rd.damaged(f"row number {clip(r)} is not a whole number from 1 to {MAX_ROW}")
    if row <= cur_row or row > MAX_ROW:
        rd.damaged(f"row {row} comes after row {cur_row} (rows out of order or repeated)")
    if rd.values and len(attrs) > ("r" in attrs) + ("spans" in attrs):
        pairs = tuple((k, v) for k, v in attrs.items() if k not in ("r", "spans"))
        if not _row_dimension_check(pairs, rd.cell_formats):
            rd.note(f"row {row}: display attributes openpyxl does not accept")
    rd.row_arrays.clear()
    active = rd.active
    if active:
        active[:] = [a for a in active if a[2] >= row]
        rd.row_arrays.extend((a[1], a[3]) for a in active if a[0] <= row)
    return row


def _row_end(rd: _Reading, name: str, s_idx: int, idx: int, empty: bool, row: int) -> None:
    """The ``<row>`` element of ``row`` (started at ``s_idx``) ends at ``idx``: its span noted, and its
    cells' columns and offsets if an array range over it lacks a cell (where a patch inserts one)."""
    if not rd.full:
        row_arrays, this_row = rd.row_arrays, rd.this_row
        if row_arrays:
            want: set[int] = set()
            for c1, c2 in row_arrays:
                want.update(range(c1, c2 + 1))
            if len(want) > sum(1 for col, _ in this_row if col in want):  # a cell to insert: keep the row's cells
                rd.row_cells[row] = list(this_row)
        this_row.clear()
    e_idx = _span_end(rd.data, s_idx, idx, empty)
    rd.rows[row] = (name, s_idx, e_idx, None if e_idx == idx else idx, tuple(rd.row_attrs.items()))


def _check_style(rd: _Reading, r: str | None, s: str | None, styles_ok: set) -> None:
    """Refuse a cell's style number ``s`` (None: no style, format 0) that names no cell format; else
    remember it as checked."""
    cell_formats = rd.cell_formats
    where = f"cell {clip(r or '?', 12)[1:-1]}"
    if s is None:
        if cell_formats is not None and cell_formats <= 0:
            rd.damaged(f"{where}: style number 0 names no cell format (the workbook has {cell_formats})")
    elif not _STYLE_RE.match(s):
        rd.damaged(f"{where}: style number {clip(s)} is not a whole number")
    elif cell_formats is not None and int(s) >= max(cell_formats, 0):
        rd.damaged(f"{where}: style number {int(s)} names no cell format (the workbook has {cell_formats})")
    styles_ok.add(s)


def _cell_column(rd: _Reading, r: str, cc: int, digits: str, cur_row: int) -> int:
    """The column of a cell reference ``r`` whose row is not written as its row's own (``cc``: the column
    of its letters, ``digits``: what follows them): refused outside the sheet or the row, noted if not
    written plainly."""
    if cc and 0 < len(digits) <= 7 and digits.isdigit() and digits.isascii():
        rr = int(digits)
        if rr > MAX_ROW or not rr:
            rd.damaged(f"cell reference {clip(r)} is not a cell of an Excel sheet (A1 to XFD{MAX_ROW})")
    else:
        try:
            rr, cc = parse_ref(r)
        except WorkbookError:
            rd.damaged(f"cell reference {clip(r)} is not a cell of an Excel sheet (A1 to XFD{MAX_ROW})")
        rd.note(f"cell reference {clip(r, 12)} not written plainly")
    if rr != cur_row:
        rd.damaged(f"cell {r} inside row {cur_row}")
    return cc


def _formula_start(rd: _Reading, attrs: dict, c_f: list | None, pos: tuple[int, int], cur_row: int) -> list:
    """A cell's ``<f>`` starts: [its attributes, its text (read later)]; an array formula's range noted
    (in ``rd.active`` and, if it covers the current row, ``rd.row_arrays``)."""
    if c_f is not None:
        rd.note("a cell with two formulas")
    if attrs.get("t") == "array" and attrs.get("ref"):
        try:
            rng = parse_range(attrs["ref"])
        except WorkbookError:
            rd.damaged(f"cell {cell_ref(*pos)}: array range {clip(attrs['ref'])} is not a range")
        rd.array_ranges.append(rng)
        rd.active.append(rng)
        if (rng[0], rng[1]) < pos:
            rd.note("an array range that starts before its formula's cell")
        if rng[0] <= cur_row <= rng[2]:
            rd.row_arrays.append((rng[1], rng[3]))
    return [attrs, None]


def _special_value(v: str, t: str) -> Any:
    """The value of a cell the engine compiles alone (an error, a date, an unknown type): a date read."""
    if t == "d":
        from openpyxl.utils.datetime import from_ISO8601

        return from_ISO8601(v)
    return v


def _unreadable(rd: _Reading, pos: tuple[int, int], t: str, v: str) -> NoReturn:
    """Refuse a cell whose value its type cannot hold."""
    what = {"n": "a number cell holds", "s": "a shared-string cell holds the index",
            "b": "a TRUE/FALSE cell holds", "d": "a date cell holds"}.get(t, f"a cell of type {clip(t)} holds")
    shared_strings = rd.shared_strings
    extra = (f" (the shared-string table has {len(shared_strings):,} strings)"
             if t == "s" and shared_strings is not None else "")
    rd.damaged(f"cell {cell_ref(*pos)}: {what} {clip(v)}, which Excel cannot read{extra}")


def _formula_value(rd: _Reading, fa: dict, ftext: str | None, pos: tuple[int, int], attrs: dict) -> str:
    """The formula of a cell whose ``<f>`` has attributes (``fa``) as openpyxl gives it: an array
    formula's range noted, a shared formula translated from its group's first cell."""
    value = "=" + (ftext or "")
    kind = fa.get("t")
    if kind == "array":
        if fa.get("ref") is None:
            rd.note(f"cell {cell_ref(*pos)}: an array formula without its range")
        else:
            rd.array_refs[cell_ref(*pos)] = fa["ref"]
        return value
    if kind == "shared":
        idx = fa.get("si")
        coordinate = attrs.get("r")
        shared_formulae = rd.shared_formulae
        if rd.half.tail is not None and idx not in shared_formulae:
            if value == "=":  # its group's first cell comes before the split (or nowhere): the merge's
                rd.extras["pending"].append((pos, idx, coordinate, rd.parser.CurrentByteIndex))
                return value
            rd.extras["masters"].add(idx)  # (the merge checks that the head has no group of this number)
        try:
            if idx in shared_formulae:
                return str(shared_formulae[idx].translate_formula(coordinate))
            if value == "=":  # Excel writes the formula text in the first cell of each shared group
                rd.damaged(f"cell {cell_ref(*pos)}: shared formula {clip(idx)} has no first cell holding its text")
            shared_formulae[idx] = _translator()(value, coordinate)
        except WorkbookError:
            raise
        except Exception:
            rd.note(f"cell {cell_ref(*pos)}: a shared formula openpyxl cannot read")
        return value
    if kind == "dataTable":
        rd.note(f"cell {cell_ref(*pos)}: a data-table formula")
    return value


def prepare_reading(data: bytes) -> None:
    """Import now what reading ``data`` will need: a shared formula's translator (``t="shared"``), a
    date cell's parser (``t="d"``), so that a process forked to read part of it (the second half of a
    large part, :mod:`xlbridge.batch.read.halves`) does not import them on its own (0.1-0.2 s each); an
    inline string's parser."""
    if b't="shared"' in data or b"t='shared'" in data:
        _translator()
    if b't="d"' in data or b"t='d'" in data:
        import openpyxl.utils.datetime  # noqa: F401
    if b"inlineStr" in data:  # (an inline string's parser; openpyxl itself only for the unusual ones)
        import defusedxml.ElementTree  # noqa: F401


@functools.lru_cache(maxsize=None)
def _translator() -> Any:
    """openpyxl's ``Translator`` (the reading of a shared formula that openpyxl and the engine use)
    translating each distinct reference of a formula once per cell: Excel's shared showing formulas
    name the same cell three times (``=IFERROR(R,IF(ERROR.TYPE(R)=5,"",R))``), and a 10,000-row column
    is 30,000 translations instead of 90,000 (tests/batch/test_engine_paths.py compares the two)."""
    from openpyxl.formula.tokenizer import Token
    from openpyxl.formula.translate import Translator

    class OnceTranslator(Translator):  # type: ignore[misc]  # openpyxl is untyped
        _delta: tuple = ()
        _done: dict = {}
        _same: str | None = None
        _asked = False

        def translate_formula(self, dest: str | None = None, row_delta: int = 0, col_delta: int = 0) -> str:
            """openpyxl's translation; a formula whose every reference is absolute (or a name), which any shift
            leaves as it is (a shift of one row and one column tells), is translated once, at its own cell: the
            showing formulas of a template's long columns (``INDEX('T (calc)'!$H$4:$H$10104,ROW()-...)``)."""
            if not self._asked:
                self._asked = True
                ranges = [t.value for t in self.get_tokens() if t.type == Token.OPERAND and t.subtype == Token.RANGE]
                try:
                    fixed = all(Translator.translate_range(r, 1, 1) == r for r in ranges)
                except Exception:  # (a reference a shift puts off the sheet: not fixed)
                    fixed = False
                if fixed:
                    self._same = Translator.translate_formula(self, None, 0, 0)
            if self._same is not None:
                return self._same
            return str(Translator.translate_formula(self, dest, row_delta, col_delta))

        # (an instance method over openpyxl's classmethod: translate_formula calls self.translate_range;
        # the stock one is called by its class below, as its own recursion over "A1:B2" does)
        def translate_range(self, range_str: str, rdelta: int, cdelta: int) -> str:
            if self._delta != (rdelta, cdelta):
                self._delta, self._done = (rdelta, cdelta), {}
            got = self._done.get(range_str)
            if got is None:
                got = self._done[range_str] = Translator.translate_range(range_str, rdelta, cdelta)
            return got

    return OnceTranslator


def scan_sheet(data: bytes, *, part: str = "worksheet", sheet: str | None = None,
               cell_formats: int | None = None) -> SheetLayout:
    """Locate sheetData, rows, cells, formulas and array ranges of a worksheet part by byte offset.

    Uses expat with absolute byte indices (the whole part is parsed in one call); a DTD or an
    entity declaration is refused (the part has already passed :mod:`xlbridge.batch.guard.safety`). The numbers
    it relies on are parsed defensively and refused in one line (naming ``sheet``, or ``part``) when
    Excel would call the file damaged: a row number that is not a whole number from 1 to 1,048,576
    (``<row r="five">``), a cell reference outside A1:XFD1048576, rows or cells out of order or
    repeated, an array range that is not a range, a cell style number ``s`` that is not a whole number
    or (given ``cell_formats``, the number of cell formats of the styles part) names no format.

    >>> xml = b'<worksheet><sheetData><row r="2"><c r="A2"><f t="array" ref="A2:B3">F()</f><v>1</v></c></row></sheetData></worksheet>'
    >>> lay = scan_sheet(xml)
    >>> lay.array_ranges, lay.formula_cells
    (((2, 1, 3, 2),), {(2, 1): 'F()'})
    >>> try:
    ...     scan_sheet(b'<worksheet><sheetData><row r="five"/></sheetData></worksheet>', sheet="Travellers")
    ... except WorkbookError as err:
    ...     print(err)
    damaged workbook: sheet Travellers: row number 'five' is not a whole number from 1 to 1048576
    """
    return read_sheet(data, part=part, sheet=sheet, cell_formats=cell_formats, full=True).layout
