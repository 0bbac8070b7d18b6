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
>>> from xlbridge.batch.read.sheetxml import scan_sheet   # (the reading stage finds the layout)
>>> layout = scan_sheet(xml)
>>> sorted(layout.formula_cells)
[(1, 2)]
>>> patch_sheet(xml, layout, {(1, 2): 4.0}).decode()[-63:]
'<c r="B1"><f>A1*2</f><v>4</v></c></row></sheetData></worksheet>'
"""

from __future__ import annotations

import bisect
import operator
import dataclasses
import math
import re
import zipfile
from typing import Any

from ...core.errors import WorkbookError
from ..cells import ExcelErrorValue, SheetLayout, cell_ref

__all__ = [
    "Formula",
    "patch_sheet",
    "patch_sheet_pieces",
    "strip_empty_cells",
    "copy_zip",
]

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


@dataclasses.dataclass(frozen=True)
class Formula:
    """A formula to write into a cell that has none (``text`` as a part holds it: no leading ``=``), with no
    cached value: :func:`patch_sheet_pieces` writes ``<f>text</f>`` and keeps the cell's other attributes
    (its style). For the rows a member inserted into a table (:mod:`xlbridge.batch.write.inserted`)."""

    text: str


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
        return self.own(qname, tuple(attrs[1:]), attrs[0][1], t, vtext, keep, tail)

    def own(self, qname: str, after: tuple, ref: str, t: str | None, vtext: str, keep: bytes, tail: bytes) -> bytes:
        """:func:`_cell_xml` of a cell whose reference ``ref`` (nothing in it to escape) comes first, ``after``
        its other attributes."""
        key = (qname, after, t)
        around = self.heads.get(key)
        if around is None:
            parts = _cell_head(qname, (("r", _AT),) + after, t).split(_AT)
            around = self.heads[key] = (
                (parts[0].encode(), parts[1].encode(), f"</{qname}>".encode()) if len(parts) == 2 else None)
        if around is None:
            return _cell_xml(qname, self.prefix, (("r", ref),) + after, t, vtext, keep, tail)
        return b"".join((around[0], ref.encode(), around[1], keep, self.v_open, vtext.encode(),
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
    >>> from xlbridge.batch.read.sheetxml import scan_sheet
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
    >>> from xlbridge.batch.read.sheetxml import scan_sheet
    >>> b"".join(patch_sheet_pieces(xml, scan_sheet(xml), {(1, 1): "x", (2, 1): True})).decode()
    '<worksheet><sheetData><row r="1"><c r="A1" t="str"><f t="array" ref="A1:A2">F()</f><v>x</v></c></row><row r="2"><c r="A2" t="b"><v>1</v></c></row></sheetData></worksheet>'
    """
    prefix = layout.prefix
    edits: list = []  # (start, end, bytes); insertions have start == end
    new_cells: dict = {}  # row -> [(col, bytes)]
    writer = _CellWriter(prefix)
    write, write_own = writer.cell, writer.own
    cells = layout.cells
    place = getattr(cells, "place", None)  # (compact spans: a cell's place and shape, without its span made)
    owns: dict = {}  # a shape's number -> _own_shape(shape)
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
        elif type(value) is str:  # (a text, never an error value, which is a class of its own)
            t, vtext = "str", _escape(value)
        elif type(value) is Formula:  # (a formula where the cell has none: no value, the engine gives it)
            _formula_cell(data, cells.get((r, c)), r, c, value.text, prefix, edits, new_cells)
            continue
        else:
            t, vtext = _encode_value(value)
        got = place((r, c)) if place is not None else None
        if got is not None:  # (the common cell: its reference its own position, written first)
            start, sid, shape = got
            how: Any = owns.get(sid)
            if how is None:
                how = owns[sid] = _own_shape(shape)
            if how:
                qname, after, length, keeps, tails = how
                col = letters.get(c)
                if col is None:
                    col = letters[c] = cell_ref(1, c)[:-1]
                keep = (data[start + keeps[0][0]:start + keeps[0][1]] if len(keeps) == 1 else
                        b"".join([data[start + s:start + e] for s, e in keeps]) if keeps else b"")
                tail = b"".join([data[start + s:start + e] for s, e in tails]) if tails else b""
                xml = write_own(qname, after, f"{col}{r}", t, vtext, keep, tail)
                if len(xml) != length or data[start:start + length] != xml:  # (a cell as it was: left alone)
                    edits.append((start, start + length, xml))
                continue
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
    edits.sort(key=_START_END)  # (stable: insertions at one place stay in the order made)
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


_START_END = operator.itemgetter(0, 1)  # (an edit's place: its start, then its end)


def _own_shape(shape: tuple) -> tuple | bool:
    """What :func:`patch_sheet_pieces` writes of a cell of ``shape`` (:meth:`CellSpans.place`) whose reference is its
    own position, written first: (qname, its other attributes, its length, the children it keeps (start, end) and
    the ``extLst`` children it puts last, from its start); False for any other cell (its span is made).

    >>> _own_shape(("c", (("r", None), ("s", "3")), 40, (("f", 14, 25), ("v", 25, 36))))
    ('c', (('s', '3'),), 40, [(14, 25)], [])
    >>> _own_shape(("c", (("s", "3"), ("r", None)), 40, ()))
    False
    """
    qname, tmpl, length, kids = shape
    if not tmpl or tmpl[0] != ("r", None) or any(v is None for _k, v in tmpl[1:]):
        return False
    keeps = [(s, e) for local, s, e in kids if local not in ("v", "is", "extLst")]
    tails = [(s, e) for local, s, e in kids if local == "extLst"]
    return qname, tuple(tmpl[1:]), length, keeps, tails


def _formula_cell(data: bytes, span: Any, r: int, c: int, text: str, prefix: str, edits: list, new_cells: dict) -> None:
    """The edit writing :class:`Formula` ``text`` into cell (r, c): its ``<c>`` element rewritten (its attributes
    but ``t`` kept, its value dropped, an ``extLst`` kept) or, without one, a new element for the row."""
    body = f"<{prefix}f>{_escape(text)}</{prefix}f>".encode()
    if span is None:
        c_name = f"{prefix}c"
        new_cells.setdefault(r, []).append(
            (c, f'<{c_name} r="{cell_ref(r, c)}">'.encode() + body + f"</{c_name}>".encode()))
        return
    tail = b"".join(data[s:e] for local, s, e in span.children if local == "extLst")
    edits.append((span.start, span.end, _cell_head(span.qname, span.attrs, None).encode() + body + tail
                  + f"</{span.qname}>".encode()))


def strip_empty_cells(data: bytes, layout: SheetLayout) -> bytes:
    """Return the part without its empty ``<c .../>`` elements (styled blank cells).

    Used only for the formula engine's private copy: a template styles thousands of blank input
    cells, and the engine would otherwise build a node for each.

    >>> xml = b'<worksheet><sheetData><row r="1"><c r="A1" s="3"/><c r="B1"><v>2</v></c></row></sheetData></worksheet>'
    >>> from xlbridge.batch.read.sheetxml import scan_sheet
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


#: zlib level of the members :func:`copy_zip` writes: 3, the last of zlib's fast levels (no lazy match search),
#: the last step of every recalc. On worksheet XML, whose rows repeat, it beats level 5 both ways (2026-12-08,
#: best of 3): a recalculated 10,000-row season 1,068,817 bytes in 0.079 s against 1,132,364 in 0.110 s, the
#: shipped pairs, teams and instant templates 11-15 % smaller at 0.6 times the time; the five shipped templates
#: 3.9 % smaller in all (the Lehman ledger alone 21 % larger, 642,043 against 529,067 bytes)
COMPRESS_LEVEL = 3


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
