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
  caller then lets openpyxl itself read the workbook (the engine's stock path), which refuses or
  reads it as it always did.

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
from typing import Any

from ...core.errors import WorkbookError
from ..cells import MAX_COL, MAX_ROW, CellSpan, SheetLayout, cell_ref, parse_range, parse_ref
from ..guard.limits import clip
from ..guard.xmlscan import defuse

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
    head, tail, reading_on = half.head, half.tail, half.reading_on
    import xml.parsers.expat as expat

    label = f"sheet {clip(sheet)[1:-1]}" if sheet is not None else f"worksheet {clip(part, 80)[1:-1]}"

    def damaged(what: str) -> None:
        raise WorkbookError(f"damaged workbook: {label}: {what}")

    parser = expat.ParserCreate()
    parser.buffer_text = True  # attributes come as a dict, in document order

    def refuse(_what: str) -> Any:
        raise WorkbookError(f"refused: XML part {part} contains a DTD or entity declaration")

    defuse(parser, refuse)

    cells: dict = {}
    rows: dict = {}
    formula_cells: dict = {}
    array_ranges: list = []
    columns: dict = {}
    formulas: dict = {}
    array_refs: dict = {}
    special: dict = {}
    shared_formulae: dict = {}
    unusual: list = []
    declarations: list = []  # the root element's xmlns declarations (to read an <is> snippet alone)
    sd: list = []  # <sheetData>: [qname, start, first child start or None, end tag start or None, end]
    starts = [0] * 6  # start offset of the open element at each depth
    evs = [0] * 6  # event number at its start (no event since: an empty-element tag)
    active: list = []  # array ranges that may still hold cells of the rows to come
    row_arrays: list = []  # (c1, c2) of the array ranges covering the current row
    text: list = []
    depth = ev = cur_row = cur_col = ncells = collecting = 0  # collecting: 1 <v> text, 2 <f> text
    row_cells: dict = {}  # (compact layout) row -> [(column, start)] where an array range lacks a cell
    this_row: list = []  # [(column, start)] of the cells of the current row, when it meets an array range
    in_sd = in_row = in_cell = False
    q_row = q_c = q_prefix = ""
    q_children: frozenset = frozenset()
    row_attrs: dict = {}
    c_pos: tuple = (0, 0)
    c_attrs: dict = {}
    c_t: str | None = None
    c_children: list = []
    c_v: str | None = None
    c_f: list | None = None
    c_is: tuple | None = None
    c_in_array = False
    match_style = _STYLE_RE.match
    styles_ok: set = set()
    row_text = ""
    columns_of = _COLUMNS

    def note(why: str) -> None:
        if values and not unusual:
            unusual.append(why)
            if tail is not None:  # (where, for the merge: the first note in the document's order wins)
                extras["note_at"] = parser.CurrentByteIndex

    def foreign(name: str, local: str, inside: str, what: str) -> bool:
        # not the expected element: skipped (True) unless only its namespace differs (noted, read)
        if name.rsplit(":", 1)[-1] != local:
            note(f"element {clip(name, 20)} in {inside}")
            return True
        note(f"{what} outside the spreadsheet namespace")
        return False

    def span_end(s_idx: int, idx: int, empty: bool) -> int:
        # an empty-element tag <x/>: no event since its start, and expat reports its end after "/>"
        if empty and idx > s_idx and data[idx - 2: idx] == b"/>":
            return idx
        return data.index(b">", idx) + 1

    def child_start(name: str, attrs: dict) -> None:
        nonlocal collecting, c_f, c_v
        local = name.rsplit(":", 1)[-1]
        if name not in q_children and local in ("f", "v", "is"):
            note(f"element {clip(name, 20)} outside the spreadsheet namespace in a cell")
        if local == "v":
            if c_v is not None:
                note("a cell with two values")
            c_v = ""
            collecting = 1
            text.clear()
        elif local == "f":
            if c_f is not None:
                note("a cell with two formulas")
            fa = attrs
            c_f = [fa, None]
            collecting = 2
            text.clear()
            if fa.get("t") == "array" and fa.get("ref"):
                try:
                    rng = parse_range(fa["ref"])
                except WorkbookError:
                    damaged(f"cell {cell_ref(*c_pos)}: array range {clip(fa['ref'])} is not a range")
                array_ranges.append(rng)
                active.append(rng)
                if (rng[0], rng[1]) < c_pos:
                    note("an array range that starts before its formula's cell")
                if rng[0] <= cur_row <= rng[2]:
                    row_arrays.append((rng[1], rng[3]))
        else:
            collecting = 0

    def row_start(attrs: dict) -> None:
        nonlocal cur_row, cur_col, row_text
        r = attrs.get("r")
        other = len(attrs) > ("r" in attrs) + ("spans" in attrs)
        if r is None:
            row = cur_row + 1
        elif _ROW_RE.match(r) and 1 <= int(r) <= MAX_ROW:
            row = int(r)
        else:
            damaged(f"row number {clip(r)} is not a whole number from 1 to {MAX_ROW}")
        if row <= cur_row or row > MAX_ROW:
            damaged(f"row {row} comes after row {cur_row} (rows out of order or repeated)")
        cur_row = row
        row_text = str(row)
        cur_col = 0
        if values and other:
            pairs = tuple((k, v) for k, v in attrs.items() if k not in ("r", "spans"))
            if not _row_dimension_check(pairs, cell_formats):
                note(f"row {row}: display attributes openpyxl does not accept")
        row_arrays.clear()
        if active:
            active[:] = [a for a in active if a[2] >= row]
            row_arrays.extend((a[1], a[3]) for a in active if a[0] <= row)

    def start(name: str, attrs: dict) -> None:
        nonlocal depth, ev, in_cell, in_row, in_sd, cur_col, ncells, collecting
        nonlocal c_pos, c_attrs, c_t, c_children, c_v, c_f, c_is, c_in_array, row_attrs
        nonlocal q_row, q_c, q_prefix, q_children
        idx = parser.CurrentByteIndex
        ev += 1
        d = depth
        depth = d + 1
        if d < 6:
            starts[d] = idx
            evs[d] = ev
        if d == 4:
            if in_cell:
                child_start(name, attrs)
            return
        if d == 3:
            if not in_row:
                return
            if name != q_c and foreign(name, "c", "a row", "a cell"):
                return
            # a cell: <c r="A1" s="3" t="n">
            in_cell = True
            r = attrs.get("r")
            s = attrs.get("s")
            if s is not None:
                if s in styles_ok:
                    pass
                elif not match_style(s):
                    damaged(f"cell {clip(r or '?', 12)[1:-1]}: style number {clip(s)} is not a whole number")
                elif cell_formats is not None and int(s) >= max(cell_formats, 0):
                    damaged(f"cell {clip(r or '?', 12)[1:-1]}: style number {int(s)} names no cell format "
                            f"(the workbook has {cell_formats})")
                else:
                    styles_ok.add(s)  # (a style number met once is checked once)
            elif cell_formats is not None and cell_formats <= 0:
                damaged(f"cell {clip(r or '?', 12)[1:-1]}: style number 0 names no cell format "
                        f"(the workbook has {cell_formats})")
            if r is not None:
                digits = r.lstrip(_LETTERS)
                cc = columns_of[r[: len(r) - len(digits)]]  # (a dict lookup; __missing__ reads new letters)
                if cc and digits == row_text:
                    rr = cur_row  # (the row's own number, written as the row wrote it: checked there)
                elif cc and 0 < len(digits) <= 7 and digits.isdigit() and digits.isascii():
                    rr = int(digits)
                    if rr > MAX_ROW or not rr:
                        damaged(f"cell reference {clip(r)} is not a cell of an Excel sheet (A1 to XFD{MAX_ROW})")
                else:
                    try:
                        rr, cc = parse_ref(r)
                    except WorkbookError:
                        damaged(f"cell reference {clip(r)} is not a cell of an Excel sheet (A1 to XFD{MAX_ROW})")
                    note(f"cell reference {clip(r, 12)} not written plainly")
                if rr != cur_row:
                    damaged(f"cell {r} inside row {cur_row}")
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
            c_pos = (cur_row, cur_col)
            c_attrs = attrs
            c_t = attrs.get("t")
            c_children = []
            c_v = c_f = c_is = None
            collecting = 0
            c_in_array = False
            for c1, c2 in row_arrays:
                if c1 <= cur_col <= c2:
                    c_in_array = True
                    break
            return
        if d == 2:
            if not in_sd:
                return
            if sd[2] is None:
                sd[2] = idx  # first element inside sheetData
            if name != q_row and foreign(name, "row", "the sheet data", "a row"):
                return
            in_row = True
            row_attrs = attrs
            row_start(attrs)
            return
        if d >= 5:
            if in_cell and collecting:
                note("an element inside a value or formula")
            elif in_cell and name.rsplit(":", 1)[-1] not in _INLINE_TEXT_ELEMENTS:
                # openpyxl refuses the whole book for e.g. a <row> inside <is>: let its reader decide
                note(f"element {clip(name, 20)} in a cell's text")
            return
        if d == 1:
            if name.rsplit(":", 1)[-1] == "sheetData" and root_is_worksheet[0]:
                if sd:
                    note("two sheetData elements")
                q_prefix = name[: -len("sheetData")]
                sd[:] = [name, idx, None, None, None]
                in_sd = True
                q_row, q_c = q_prefix + "row", q_prefix + "c"
                q_children = frozenset(q_prefix + x for x in ("f", "v", "is"))
                want = "xmlns" + (":" + q_prefix[:-1] if q_prefix else "")
                if dict(declarations).get(want) != MAIN_NS:
                    note("the sheet data outside the spreadsheet namespace")
            return
        # d == 0: the root element
        root_is_worksheet[0] = name.rsplit(":", 1)[-1] == "worksheet"
        declarations.extend((k, v) for k, v in attrs.items() if k.startswith("xmlns"))

    root_is_worksheet = [False]

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
                c_f[1] = "".join(text)  # type: ignore[index]
                formula_cells[c_pos] = c_f[1]  # type: ignore[index]
            elif c_is is None and name.rsplit(":", 1)[-1] == "is":
                c_is = (s_idx, span_end(s_idx, idx, empty))
            collecting = 0
            return
        if d == 3:
            if in_cell:
                in_cell = False
                end_cell(name, starts[3], idx, empty)
            return
        if d == 2:
            if in_row:
                in_row = False
                if not full:
                    end_row_cells()
                s_idx = starts[2]
                e_idx = span_end(s_idx, idx, empty)
                is_empty = e_idx == idx
                rows[cur_row] = (name, s_idx, e_idx, None if is_empty else idx, tuple(row_attrs.items()))
            return
        if d == 1 and in_sd:
            in_sd = False
            e_idx = span_end(starts[1], idx, empty)
            if e_idx == idx:  # <sheetData/>
                sd[2] = None
                sd[3] = None
            else:
                if sd[2] is None:
                    sd[2] = idx
                sd[3] = idx
            sd[4] = e_idx

    def end_row_cells() -> None:
        if not row_arrays:
            this_row.clear()
            return
        want: set[int] = set()
        for c1, c2 in row_arrays:
            want.update(range(c1, c2 + 1))
        if len(want) > sum(1 for col, _ in this_row if col in want):  # a cell to insert: keep the row's cells
            row_cells[cur_row] = list(this_row)
        this_row.clear()

    def end_cell(qname: str, s_idx: int, idx: int, empty: bool) -> None:
        pos = c_pos
        fa = c_f
        if fa is not None and pos not in formula_cells:
            formula_cells[pos] = ""
        if full or fa is not None or c_in_array:
            kids = tuple([(n if ":" not in n else n.rsplit(":", 1)[-1], s, span_end(s, i, e))
                          for n, s, i, e in c_children])
            cells[pos] = CellSpan(qname, s_idx, span_end(s_idx, idx, empty), tuple(c_attrs.items()), kids)
        if not values:
            return
        value: Any
        if fa is not None:
            # (a formula without attributes, as most are, needs none of formula_value's readings)
            formulas[pos] = formula_value(fa[0], fa[1], pos) if fa[0] else "=" + (fa[1] or "")
            return
        t = c_t or "n"
        if t == "inlineStr":
            if c_is is None:
                return
            value = _inline_text(data[c_is[0]:c_is[1]], tuple(declarations))
            if value is None:
                note(f"cell {cell_ref(*pos)}: an inline string openpyxl cannot read")
                return
        else:
            v = c_v
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
                        if c_in_array:  # (skipped below; the whole reading looks it up all the same)
                            later_unseen.append(value)
                elif t == "b":
                    value = bool(int(v))
                elif t == "str":
                    value = v
                else:  # errors ("e"), dates ("d") and unknown types: the engine compiles them one by one
                    if t == "d":
                        from openpyxl.utils.datetime import from_ISO8601

                        v = from_ISO8601(v)
                    if not c_in_array:  # (a cached value inside an array range: the engine skips it)
                        special[pos] = (v, t)
                    return
            except (ValueError, IndexError, OverflowError, TypeError):
                what = {"n": "a number cell holds", "s": "a shared-string cell holds the index",
                        "b": "a TRUE/FALSE cell holds", "d": "a date cell holds"}.get(t, f"a cell of type {clip(t)} holds")
                extra = (f" (the shared-string table has {len(shared_strings):,} strings)"
                         if t == "s" and shared_strings is not None else "")
                damaged(f"cell {cell_ref(*pos)}: {what} {clip(v)}, which Excel cannot read{extra}")
        if c_in_array:
            return  # a cached value inside an array range: the engine skips it
        col = columns.get(pos[1])
        if col is None:
            col = columns[pos[1]] = ([], [])
        col[0].append(pos[0])
        col[1].append(value)
        if later is not None and t == "s":  # (the index, for the merge to look up: halves)
            later.append((pos[1], len(col[1]) - 1))

    def formula_value(fa: dict, ftext: str | None, pos: tuple[int, int]) -> str:
        value = "=" + (ftext or "")
        kind = fa.get("t")
        if kind == "array":
            if fa.get("ref") is None:
                note(f"cell {cell_ref(*pos)}: an array formula without its range")
            else:
                array_refs[cell_ref(*pos)] = fa["ref"]
            return value
        if kind == "shared":
            idx = fa.get("si")
            coordinate = c_attrs.get("r")
            if tail is not None and idx not in shared_formulae:
                if value == "=":  # its group's first cell comes before the split (or nowhere): the merge's
                    extras["pending"].append((pos, idx, coordinate, parser.CurrentByteIndex))
                    return value
                extras["masters"].add(idx)  # (the merge checks that the head has no group of this number)
            try:
                if idx in shared_formulae:
                    return str(shared_formulae[idx].translate_formula(coordinate))
                if value == "=":  # Excel writes the formula text in the first cell of each shared group
                    damaged(f"cell {cell_ref(*pos)}: shared formula {clip(idx)} has no first cell holding its "
                            f"text")
                shared_formulae[idx] = _translator()(value, coordinate)
            except WorkbookError:
                raise
            except Exception:
                note(f"cell {cell_ref(*pos)}: a shared formula openpyxl cannot read")
            return value
        if kind == "dataTable":
            note(f"cell {cell_ref(*pos)}: a data-table formula")
        return value

    extras: dict = {"confirmed": False}
    confirmed: list = []
    later: list | None = None  # (tail) [(column, index in its values)] of the shared strings left to the merge
    later_unseen: list = []  # (tail) the indices of shared-string cells inside array ranges: checked in the merge
    if tail is not None and shared_strings is SHARED_LATER:
        later = extras["later"] = []
        extras["later_unseen"] = later_unseen

    def first_start(name: str, attrs: dict) -> None:  # (head) the first element at or after the split
        if (parser.CurrentByteIndex == head and depth == 2 and in_sd and not in_row and name == q_row
                and not any(a[2] > cur_row for a in active)):  # (an array range reaching down: read on, whole)
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
                extras.update(confirmed=True, last_row=cur_row, masters=shared_formulae)
                layout = SheetLayout(cells, rows, tuple(sd), formula_cells, tuple(array_ranges), q_prefix, full,
                                     row_cells)
                return (SheetRead(layout, columns, formulas, array_refs, special, unusual[0] if unusual else None,
                                  ncells), extras)
            whole()
            if reading_on is not None:
                reading_on()
            parser.Parse(data[tag_end:], True)
        elif tail is not None:
            split, root_declarations, sd_name = tail
            extras.update(pending=[], masters=set(), note_at=None)
            parser.Parse(data[:split], False)  # (no handler: expat checks these bytes; the head reads them)
            declarations.extend(root_declarations)
            root_is_worksheet[0] = True
            sd[:] = [sd_name, -1, -1, None, None]
            q_prefix = sd_name[: -len("sheetData")]
            q_row, q_c = q_prefix + "row", q_prefix + "c"
            q_children = frozenset(q_prefix + x for x in ("f", "v", "is"))
            in_sd, depth, evs[0], evs[1] = True, 2, -1, -1
            whole()
            parser.Parse(data[split:], True)
        else:
            whole()
            parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise WorkbookError(f"damaged workbook: XML part {clip(part, 80)[1:-1]} is not well-formed ({exc})") from None
    finally:
        # the handlers read the parser's byte index: parser -> handler -> parser is a reference cycle that
        # would keep this whole reading alive until a full garbage collection; cut, it goes when dropped
        parser.StartElementHandler = parser.EndElementHandler = parser.CharacterDataHandler = None
    if not sd:
        damaged("no sheetData")
    if values and tail is None and sd[3] is not None and data.find(b"xmlns", sd[1], sd[3]) >= 0:
        note("a namespace declared (or the word xmlns written) inside the sheet data")
    layout = SheetLayout(cells, rows, tuple(sd), formula_cells, tuple(array_ranges), q_prefix, full, row_cells)
    return SheetRead(layout, columns, formulas, array_refs, special, unusual[0] if unusual else None, ncells), extras


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
    from openpyxl.formula.translate import Translator

    class OnceTranslator(Translator):  # type: ignore[misc]  # openpyxl is untyped
        _delta: tuple = ()
        _done: dict = {}

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
