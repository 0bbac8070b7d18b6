"""Write cached values into an .xlsx/.xlsm copy without re-saving it: splice bytes, keep the rest.

openpyxl re-saving a workbook drops dynamic-array metadata, drawing shapes and the VBA reference, so
``xlbridge recalc`` never does that. Instead:

- :func:`scan_sheet` runs the expat parser (the stdlib's real XML parser, with DTDs and entity
  declarations refused) over a worksheet part and records the *byte offsets* of ``<sheetData>``,
  every ``<row>`` and ``<c>`` element and the children of each cell, plus every formula cell and every
  array-formula range (``<f t="array" ref="K2:L1001">``; legacy CSE arrays and dynamic-array spills
  alike).
- :func:`patch_sheet` rewrites only the ``<c>`` elements whose value changes: the start tag is
  regenerated from the parsed attributes with the ``t`` attribute set for the new value (none for
  numbers, ``b``, ``str``, ``e``); the ``<f>`` and any ``extLst`` child are copied byte for byte;
  the ``<v>`` is replaced or inserted after ``<f>``. Cells of an array range that have no ``<c>``
  element get one (and a ``<row>`` when the row is missing), inserted in document order. Every
  other byte of the part stays as it was.
- :func:`copy_zip` copies the archive member by member (same names, order, dates, compression,
  attributes), substituting only the patched worksheet parts: every other member (styles, charts,
  drawings, ``vbaProject.bin``, ``calcChain.xml``, the workbook's defined names and calculation
  properties) is byte-identical.

>>> xml = (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
...        b'<row r="1"><c r="A1"><v>2</v></c><c r="B1"><f>A1*2</f><v>0</v></c></row>'
...        b'</sheetData></worksheet>')
>>> layout = scan_sheet(xml)
>>> sorted(layout.formula_cells)
[(1, 2)]
>>> patch_sheet(xml, layout, {(1, 2): 4.0}).decode()[-63:]
'<c r="B1"><f>A1*2</f><v>4</v></c></row></sheetData></worksheet>'
"""

from __future__ import annotations

import bisect
import dataclasses
import math
import posixpath
import re
import typing
import urllib.parse
import zipfile
from typing import Any

from ..core.errors import WorkbookError

__all__ = [
    "ExcelErrorValue",
    "CellSpan",
    "SheetLayout",
    "cell_ref",
    "column_letters",
    "quote_sheet",
    "parse_ref",
    "parse_range",
    "workbook_sheet_parts",
    "ExternalBookCache",
    "read_external_links",
    "scan_sheet",
    "patch_sheet",
    "patch_sheet_pieces",
    "strip_empty_cells",
    "copy_zip",
]

EXCEL_ERROR_CODES = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA",
                     "#SPILL!", "#CALC!")


@dataclasses.dataclass(frozen=True)
class ExcelErrorValue:
    """An Excel error value (``#VALUE!``, ``#N/A``, ...) with an optional message saying why.

    >>> ExcelErrorValue("#N/A", "board 3 not found").code
    '#N/A'
    """

    code: str
    message: str = ""


_REF_RE = re.compile(r"^\$?([A-Za-z]{1,3})\$?([0-9]{1,7})$")
MAX_ROW, MAX_COL = 1_048_576, 16_384  # Excel's sheet: rows 1..1048576, columns A..XFD


def parse_ref(ref: str) -> tuple[int, int]:
    """Return (row, column), both 1-based, of an A1 reference inside Excel's sheet (A1 to XFD1048576).

    >>> parse_ref("B3"), parse_ref("$AA$10"), parse_ref("XFD1048576")
    ((3, 2), (10, 27), (1048576, 16384))
    >>> parse_ref("XFE1")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.WorkbookError: bad cell reference 'XFE1'
    """
    m = _REF_RE.match(ref) if isinstance(ref, str) else None
    if m is None:
        raise WorkbookError(f"bad cell reference {_clip(ref)}")
    col = 0
    for ch in m.group(1).upper():
        col = col * 26 + ord(ch) - 64
    row = int(m.group(2))
    if not (1 <= row <= MAX_ROW and col <= MAX_COL):
        raise WorkbookError(f"bad cell reference {_clip(ref)}")
    return row, col


def _clip(value, width: int = 40) -> str:
    from .safety import clip

    return clip(value, width)


def column_letters(col: int) -> str:
    """Return the letters of a column number (openpyxl's ``get_column_letter``).

    >>> column_letters(1), column_letters(27), column_letters(702), column_letters(16384)
    ('A', 'AA', 'ZZ', 'XFD')
    """
    letters = ""
    while col:
        col, rem = divmod(col - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def cell_ref(row: int, col: int) -> str:
    """Return the A1 reference of (row, column).

    >>> cell_ref(3, 2), cell_ref(10, 27), cell_ref(1, 702), cell_ref(1, 703)
    ('B3', 'AA10', 'ZZ1', 'AAA1')
    """
    return f"{column_letters(col)}{row}"


def quote_sheet(sheet: str) -> str:
    """A sheet's name as a formula or defined name writes it before ``!``: always quoted, ``'`` doubled
    (openpyxl's ``quote_sheetname``; Excel reads it whatever the name holds).

    >>> quote_sheet("Travellers"), quote_sheet("Bob's week")
    ("'Travellers'", "'Bob''s week'")
    """
    return "'" + sheet.replace("'", "''") + "'"


def parse_range(ref: str) -> tuple[int, int, int, int]:
    """Return (first row, first column, last row, last column) of ``A1`` or ``A1:B2``.

    >>> parse_range("K2:L1001"), parse_range("C4")
    ((2, 11, 1001, 12), (4, 3, 4, 3))
    """
    if not isinstance(ref, str):
        raise WorkbookError(f"bad cell range {_clip(ref)}")
    a, _, b = ref.partition(":")
    r1, c1 = parse_ref(a)
    r2, c2 = parse_ref(b) if b else (r1, c1)
    return min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)


class CellSpan(typing.NamedTuple):
    """Where one ``<c>`` element is in the part's bytes, its attributes and its children's spans.

    (A named tuple: light to build and to hold, 30,000 of them for a 10,000-row pairs template.)
    """

    qname: str
    start: int
    end: int
    attrs: tuple[tuple[str, str], ...]
    children: tuple[tuple[str, int, int], ...]  # (local name, start, end)


@dataclasses.dataclass(frozen=True)
class SheetLayout:
    """The byte layout of a worksheet part as found by :func:`scan_sheet`."""

    cells: dict  # (row, col) -> CellSpan
    rows: dict  # row -> (qname, start, end, insert_at or None if empty element, attrs)
    sheetdata: tuple  # (qname, start, content_start or None if empty element, end_tag_start, end)
    formula_cells: dict  # (row, col) -> formula text as written
    array_ranges: tuple  # ((r1, c1, r2, c2), ...) from <f t="array" ref=...>
    prefix: str  # "x:" when the main namespace is written with a prefix, else ""
    complete: bool = True  # every cell in ``cells`` (False: only those a patch may rewrite)
    # without ``complete``: row -> [(column, start offset)] of every cell of a row where an array range
    # lacks a <c> element (where a patch inserts one)
    row_cells: dict = dataclasses.field(default_factory=dict)


def scan_sheet(data: bytes, *, part: str = "worksheet", sheet: str | None = None,
               cell_formats: int | None = None) -> SheetLayout:
    """Locate sheetData, rows, cells, formulas and array ranges of a worksheet part by byte offset.

    Uses expat with absolute byte indices (the whole part is parsed in one call); a DTD or an
    entity declaration is refused (the part has already passed :mod:`xlbridge.batch.safety`). The numbers
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
    from .sheetxml import read_sheet

    return read_sheet(data, part=part, sheet=sheet, cell_formats=cell_formats, full=True).layout


_ILLEGAL_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")  # (lone surrogates too)


_TO_ESCAPE = re.compile('[&<>"\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')


def _escape(text: str) -> str:
    if _TO_ESCAPE.search(text) is None:  # (nearly every text: one scan instead of four)
        return text
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _ILLEGAL_XML.sub(lambda m: f"_x{ord(m.group(0)):04X}_", text)


def _escape_attr(text: str) -> str:
    if _TO_ESCAPE.search(text) is None:
        return text
    return _escape(text).replace('"', "&quot;")


def _number(x) -> str | None:
    if type(x) is float and x == x and abs(x) < 1e15:  # (the common case: a finite float)
        return str(int(x)) if x.is_integer() else repr(x)
    try:
        x = float(x)
    except (OverflowError, ValueError, TypeError):  # a number beyond a double (a huge int or Fraction)
        return None
    if math.isnan(x) or math.isinf(x):
        return None
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def _encode_value(value) -> tuple[str | None, str]:
    """(t attribute or None, text of <v>) for a cell value."""
    if value is None:
        return "str", ""
    if isinstance(value, ExcelErrorValue):
        return "e", value.code
    if isinstance(value, bool):
        return "b", "1" if value else "0"
    if type(value) is float:
        text = _number(value)
        return (None, text) if text is not None else ("e", "#NUM!")
    if isinstance(value, (int, float)) or hasattr(value, "__float__") and not isinstance(value, str):
        text = _number(value)
        return (None, text) if text is not None else ("e", "#NUM!")
    return "str", _escape(str(value))


def _cell_xml(qname: str, prefix: str, attrs, t: str | None, vtext: str, keep: bytes, tail: bytes) -> bytes:
    head = _cell_head(qname, attrs, t).encode()
    v = f"<{prefix}v>{vtext}</{prefix}v>".encode()
    return head + keep + v + tail + f"</{qname}>".encode()


_AT = "\ue000r\ue000"  # (a private-use mark no attribute of a cell holds: checked where used)


class _CellWriter:
    """:func:`_cell_xml` for the cells of one part, each start tag written once per kind of cell: the
    start tag of a cell whose reference comes first is the same text around the reference for every
    cell with the same other attributes (30,000 showing cells of a template have three kinds)."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.heads: dict = {}
        self.v_open, self.v_close = f"<{prefix}v>".encode(), f"</{prefix}v>".encode()

    def cell(self, qname: str, attrs, t: str | None, vtext: str, keep: bytes, tail: bytes) -> bytes:
        if not attrs or attrs[0][0] != "r" or _TO_ESCAPE.search(attrs[0][1]) is not None:
            return _cell_xml(qname, self.prefix, attrs, t, vtext, keep, tail)
        key = (qname, attrs[1:], t)
        around = self.heads.get(key)
        if around is None:
            parts = _cell_head(qname, (("r", _AT),) + tuple(attrs[1:]), t).split(_AT)
            around = self.heads[key] = (
                (parts[0].encode(), parts[1].encode(), f"</{qname}>".encode()) if len(parts) == 2 else None)
        if around is None:
            return _cell_xml(qname, self.prefix, attrs, t, vtext, keep, tail)
        return b"".join((around[0], attrs[0][1].encode(), around[1], keep, self.v_open, vtext.encode(),
                         self.v_close, tail, around[2]))


def _cell_head(qname: str, attrs, t: str | None) -> str:
    out = [f"<{qname}"]
    seen_t = False
    for k, v in attrs:
        if k == "t":
            seen_t = True
            if t is not None:
                out.append(f' t="{t}"')
            continue
        out.append(f' {k}="{_escape_attr(v)}"')
        if k == "r" and t is not None and not any(a == "t" for a, _ in attrs):
            out.append(f' t="{t}"')
            seen_t = True
    if not seen_t and t is not None:
        out.append(f' t="{t}"')
    out.append(">")
    return "".join(out)


def patch_sheet(data: bytes, layout: SheetLayout, values: dict) -> bytes:
    """Return the part with the cached value of each cell in ``values`` ((row, col) -> value) replaced:
    :func:`patch_sheet_pieces` joined.

    >>> xml = b'<worksheet><sheetData><row r="1"><c r="A1"><f>1+1</f></c></row></sheetData></worksheet>'
    >>> patch_sheet(xml, scan_sheet(xml), {(1, 1): 2}).decode()
    '<worksheet><sheetData><row r="1"><c r="A1"><f>1+1</f><v>2</v></c></row></sheetData></worksheet>'
    """
    return b"".join(patch_sheet_pieces(data, layout, values))


def patch_sheet_pieces(data: bytes, layout: SheetLayout, values: dict) -> list:
    """The part with the cached value of each cell in ``values`` ((row, col) -> value) replaced, as a list of
    pieces (bytes and views of ``data``) to be written one after the other: the patched part is never held
    whole (at 100,000 traveller rows a sheet part of 94 MB).

    Values: ``None`` (blank: written as an empty string, which is what Excel caches for a formula
    giving ""), bool, int, float (NaN and infinities become ``#NUM!``), str, :class:`ExcelErrorValue`.
    Cells without a ``<c>`` element (inside an array range) are inserted, except blank ones.

    >>> xml = b'<worksheet><sheetData><row r="1"><c r="A1"><f t="array" ref="A1:A2">F()</f></c></row></sheetData></worksheet>'
    >>> b"".join(patch_sheet_pieces(xml, scan_sheet(xml), {(1, 1): "x", (2, 1): True})).decode()
    '<worksheet><sheetData><row r="1"><c r="A1" t="str"><f t="array" ref="A1:A2">F()</f><v>x</v></c></row><row r="2"><c r="A2" t="b"><v>1</v></c></row></sheetData></worksheet>'
    """
    prefix = layout.prefix
    edits: list = []  # (start, end, bytes); insertions have start == end
    new_cells: dict = {}  # row -> [(col, bytes)]
    write = _CellWriter(prefix).cell
    cells = layout.cells
    c_name = f"{prefix}c"
    letters: dict = {}  # column -> its letters
    # a cell of an array range that the part lacks: its reference and value only (what ``write`` gives
    # for it: the reference is written here, never read from the file, so nothing in it needs escaping)
    new_open, new_close = f"<{c_name} r=\"", f"<{prefix}v>"
    new_end = f"</{prefix}v></{c_name}>"
    for (r, c), value in values.items():
        if type(value) is int and -10**15 < value < 10**15:  # (as _encode_value gives them: most values)
            t, vtext = None, str(value)
        elif type(value) is float and value == value and abs(value) < 1e15:
            t, vtext = None, str(int(value)) if value.is_integer() else repr(value)
        else:
            t, vtext = _encode_value(value)
        span = cells.get((r, c))
        if span is None:
            if value is None:
                continue
            col = letters.get(c)
            if col is None:
                col = letters[c] = cell_ref(1, c)[:-1]
            kind = '">' if t is None else f'" t="{t}">'
            new_cells.setdefault(r, []).append((c, f"{new_open}{col}{r}{kind}{new_close}{vtext}{new_end}".encode()))
            continue
        keep = tail = b""
        for local, s, e in span.children:
            if local == "v" or local == "is":
                continue
            if local == "extLst":
                tail += data[s:e]
            else:
                keep += data[s:e]
        edits.append((span.start, span.end, write(span.qname, span.attrs, t, vtext, keep, tail)))
    # insert missing cells into existing rows, or new rows into sheetData
    sd_qname, sd_start, sd_content, sd_endtag, sd_end = layout.sheetdata
    row_order = sorted(layout.rows)
    by_row: dict = {}  # row -> [(column, start offset)] of its cells
    if new_cells and layout.complete:
        for (rr, cc), sp in layout.cells.items():
            if rr in new_cells:
                by_row.setdefault(rr, []).append((cc, sp.start))
    elif new_cells:  # the layout holds only the cells to rewrite, and the cells of rows lacking some
        by_row = {rr: layout.row_cells.get(rr, []) for rr in new_cells}
    for r in sorted(new_cells):
        items = sorted(new_cells[r])
        if r in layout.rows:
            qname, rs, re_, content_end, rattrs = layout.rows[r]
            row_cells = sorted(by_row.get(r, ()), key=lambda x: x[0])
            if content_end is None:  # <row .../> : rewrite as a full element
                head = f"<{qname}" + "".join(f' {k}="{_escape_attr(v)}"' for k, v in rattrs) + ">"
                edits.append((rs, re_, head.encode() + b"".join(x for _, x in items) + f"</{qname}>".encode()))
                continue
            cols = [col for col, _ in row_cells]
            for cc, xml in items:
                k = bisect.bisect_right(cols, cc)
                pos = row_cells[k][1] if k < len(row_cells) else content_end
                edits.append((pos, pos, xml))
        else:
            body = f'<{prefix}row r="{r}">'.encode() + b"".join(x for _, x in items) + f"</{prefix}row>".encode()
            k = bisect.bisect_right(row_order, r)
            later = layout.rows[row_order[k]][1] if k < len(row_order) else None
            if later is not None:
                edits.append((later, later, body))
            elif sd_endtag is not None:
                edits.append((sd_endtag, sd_endtag, body))
            else:  # <sheetData/>
                edits.append((sd_start, sd_end, f"<{sd_qname}>".encode() + body + f"</{sd_qname}>".encode()))
    edits.sort(key=lambda e: (e[0], e[1]))
    out: list = []
    pos = 0
    view = memoryview(data)  # (slices of a view copy nothing: the part is copied once, where it is written)
    for s, e, xml in edits:
        if s < pos:
            raise WorkbookError("internal error: overlapping edits in a worksheet part")
        out.append(view[pos:s])
        out.append(xml)
        pos = e
    out.append(view[pos:])
    return out


def strip_empty_cells(data: bytes, layout: SheetLayout) -> bytes:
    """Return the part without its empty ``<c .../>`` elements (styled blank cells).

    Used only for the formula engine's private copy: a template styles thousands of blank input
    cells, and the engine would otherwise build a node for each.

    >>> xml = b'<worksheet><sheetData><row r="1"><c r="A1" s="3"/><c r="B1"><v>2</v></c></row></sheetData></worksheet>'
    >>> strip_empty_cells(xml, scan_sheet(xml))
    b'<worksheet><sheetData><row r="1"><c r="B1"><v>2</v></c></row></sheetData></worksheet>'
    """
    spans = sorted((sp.start, sp.end) for sp in layout.cells.values() if not sp.children)
    out, pos = [], 0
    for s, e in spans:
        out.append(data[pos:s])
        pos = e
    out.append(data[pos:])
    return b"".join(out)


def workbook_sheet_parts(zf: zipfile.ZipFile) -> list[tuple[str, str]]:
    """Return [(sheet name, zip member of its worksheet part)] in workbook order (chartsheets skipped).

    Reads ``xl/workbook.xml`` and its relationships with defusedxml. A worksheet listed in the
    workbook whose part is missing is refused (Excel would call the file damaged), as is a
    relationship leaving the package.
    """
    import defusedxml.ElementTree as DET

    try:
        root = DET.fromstring(zf.read("xl/workbook.xml"), forbid_dtd=True)
        rels = DET.fromstring(zf.read("xl/_rels/workbook.xml.rels"), forbid_dtd=True)
    except KeyError as exc:
        raise WorkbookError(f"damaged workbook: missing part {_clip(exc.args[0], 80)[1:-1]}") from None
    targets = _relationships(rels, "xl")
    out = []
    names = set(zf.namelist())
    for el in root.iter():
        if _clark_local(el.tag) != "sheet":
            continue
        rid = next((v for k, v in el.attrib.items() if k.startswith("{") and _clark_local(k) == "id"), None)
        path, typ, external = targets.get(rid, (None, "", False))
        if not typ.endswith("/worksheet"):
            continue
        if path is None or external or path not in names:
            raise WorkbookError(f"damaged workbook: the part of sheet {_clip(el.get('name'))} is missing")
        out.append((el.get("name"), path))
    return out


def _clark_local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _relationships(rels, folder: str) -> dict:
    """{Id: (zip member or None when outside the package, Type, external?)} of a parsed .rels part."""
    out = {}
    for rel in rels:
        if _clark_local(rel.tag) != "Relationship":
            continue
        target = rel.get("Target", "")
        external = rel.get("TargetMode") == "External"
        path = target[1:] if target.startswith("/") else posixpath.join(folder, target)
        path = posixpath.normpath(path) if path else "."
        if path in (".", "..") or path.startswith("../") or path.startswith("/"):
            path = None
        out[rel.get("Id")] = (path, rel.get("Type", ""), external)
    return out


@dataclasses.dataclass(frozen=True)
class ExternalBookCache:
    """Excel's cached copy of a linked workbook, from ``xl/externalLinks/externalLinkN.xml``.

    ``index`` is N of ``[N]Sheet!A1`` in formulas; ``target`` the linked file as the link names it
    (never opened); ``sheets`` {sheet name: {(row, col): value}} with values as Excel cached them
    (float, str, bool or :class:`ExcelErrorValue`).
    """

    index: int
    target: str
    sheets: dict

    @property
    def file_name(self) -> str:
        """The last component of ``target`` (``'secret.xlsx'`` for ``'file:///C:/club/secret.xlsx'``).

        >>> ExternalBookCache(1, "../club/secret.xlsx", {}).file_name
        'secret.xlsx'
        """
        tail = re.split(r"[/\\]", self.target.rstrip("/\\"))[-1]
        return urllib.parse.unquote(tail)


def read_external_links(zf: zipfile.ZipFile, parts: Any) -> list[ExternalBookCache]:
    """Read the cached values of the links to other workbooks (``parts`` in the order of the workbook's
    ``<externalReference>`` elements, as :func:`xlbridge.batch.safety.check_workbook` reports them).

    Only the package is read: the linked files are never opened. Only sheets with cached data
    (a ``<sheetData>`` without ``refreshError``) are kept; a link without an ``<externalBook>`` (a DDE or
    OLE link) has none. A reference into a sheet that is not kept is ``#REF!``; a cell missing from a
    kept sheet was blank when Excel cached it. Cell types as Excel writes them: ``t="str"``
    (or ``s``/``inlineStr``) text, ``b`` boolean, ``e`` error, otherwise a number; a value that does
    not read as its type is left out (the cell then reads as blank).
    """
    import defusedxml.ElementTree as DET

    out = []
    for index, part in enumerate(parts, start=1):
        root = DET.fromstring(zf.read(part), forbid_dtd=True)
        rels_part = posixpath.join(posixpath.dirname(part), "_rels", posixpath.basename(part) + ".rels")
        target = ""
        if rels_part in zf.namelist():
            rels = DET.fromstring(zf.read(rels_part), forbid_dtd=True)
            for rel in rels:
                if _clark_local(rel.tag) == "Relationship":
                    target = rel.get("Target", "") or target
                    break
        sheets: dict = {}
        book = next((el for el in root if _clark_local(el.tag) == "externalBook"), None)
        if book is not None:
            names = [el.get("val", "") for el in book.iter() if _clark_local(el.tag) == "sheetName"]
            for data in (el for el in book.iter() if _clark_local(el.tag) == "sheetData"):
                sid = data.get("sheetId", "")
                if not sid.isdigit() or int(sid) >= len(names) or data.get("refreshError") in ("1", "true"):
                    continue
                cells = sheets.setdefault(names[int(sid)], {})
                for cell in (el for el in data.iter() if _clark_local(el.tag) == "cell"):
                    try:
                        key = parse_ref(cell.get("r", ""))
                    except WorkbookError:
                        continue
                    v = next((el.text or "" for el in cell if _clark_local(el.tag) == "v"), None)
                    if v is None:
                        continue
                    t = cell.get("t", "n")
                    if t in ("str", "s", "inlineStr"):
                        cells[key] = v
                    elif t == "b":
                        cells[key] = v.strip() in ("1", "true")
                    elif t == "e":
                        cells[key] = ExcelErrorValue(v.strip() if v.strip() in EXCEL_ERROR_CODES else "#N/A")
                    else:
                        try:
                            x = float(v)
                        except ValueError:
                            continue
                        if math.isfinite(x):
                            cells[key] = x
        out.append(ExternalBookCache(index, target, sheets))
    return out


#: zlib level of the members :func:`copy_zip` writes: 5, not zlib's default 6, whose longer match
#: search makes the patched sheet of a 10,000-row season (9 MB of XML) 0.9 % smaller (899,420 against
#: 907,755 bytes) at 1.7 times the time (0.111 against 0.065 s), the last step of every recalc; the
#: recalculated shipped workbooks come out 0.4 to 2.4 % larger
COMPRESS_LEVEL = 5


def copy_zip(src: str, dst: Any, replacements: dict, drop: Any = ()) -> None:
    """Copy zip ``src`` to ``dst`` (path or binary file) member by member, replacing the content of
    the members named in ``replacements`` (name -> bytes, or a function giving them when the member is
    written: one large part in memory at a time) and leaving out those named in ``drop``. Names, order, dates, compression
    method, attributes and comments are kept (extra fields are not); other members' content is byte-identical
    (deflated members are compressed again, at :data:`COMPRESS_LEVEL`).
    """
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        zout.comment = zin.comment
        for info in zin.infolist():
            if info.filename in drop:
                continue
            new = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            new.compress_type = info.compress_type
            new.external_attr = info.external_attr
            new.internal_attr = info.internal_attr
            new.create_system = info.create_system
            new.comment = info.comment
            new.flag_bits = info.flag_bits & 0x800  # keep the UTF-8 name flag only
            data = replacements.get(info.filename)
            if callable(data):
                data = data()
            if data is None:
                data = zin.read(info)
            zout.writestr(new, data, compresslevel=COMPRESS_LEVEL)
