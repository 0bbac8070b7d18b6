"""A chart table's names cut to its rows in use, and the legend entries of its empty columns hidden.

A template's chart reads a table of formulas (lehman.xlsx's Chart sheet: a week per row, a player per
column), whose cells past the weeks played and under the players not chosen hold ``""``. LibreOffice 7.4,
opening a book that says its values are current (as every template does), plots a formula cell whose cached
result is ``""``, an error or any text as 0 (whatever the chart's ``dispBlanksAs``: it recomputes nothing),
and names a series whose name cell is empty "Column F"; Excel plots text as 0 in a line chart. So every line
dropped to 0 after the last week, and the empty columns showed as flat lines and legend entries.

The contract, declared by the template (sheet-scoped defined names on the table's sheet):

- :data:`CHART_NAME` over the whole table: its first row the series' names, its first column the categories
  (the weeks), the rows below the data (``'Chart'!$A$4:$I$56``);
- ``CHART_NAME`` + ``_0`` over the first column's data rows, + ``_k`` over the data rows of the table's
  column ``k`` (1 for the column after the first): the chart's series read these names
  (``<c:f>'Chart'!XLBRIDGE_CHART_1</c:f>``), never the cells, so the chart part itself (what
  :func:`xlbridge.templates.canonical_dump` compares) is the same whatever the data.

``xlbridge recalc`` (:func:`cut_chart_tables`, on the recalculated sheet: the values it writes) sets:

- the rows in use: the data rows down to the last one holding a value in any column of the table (a value:
  a number, a non-empty text, an error, a boolean);
- ``_0`` and the name of every column holding a value in them: the rows in use;
- the name of a column holding none: the empty cell just below the table in that column (nothing to plot;
  when that cell holds something, the name is left as it is), and, when its name cell is blank too, in every
  chart with a series reading it a legend entry deleted (``<c:legendEntry><c:idx val="n"/><c:delete
  val="1"/></c:legendEntry>``, ``n`` the series' own ``c:idx``); the entries deleted on an earlier run are
  put back when the column is used again (an entry holding only ``idx`` and ``delete`` is taken for one of
  these); such a chart also shows blank cells as gaps (``c:dispBlanksAs``, which LibreOffice 7.4 writes back
  as ``zero`` when it saves the book);
- nothing in the table at all (an empty template): every name as many rows down as the table's first
  column holds numbers (:func:`dynamic_text`, ``OFFSET``), no entry deleted, so that Excel with the add-in
  plots the weeks as a member types them, and LibreOffice, which draws nothing for such a name, shows an
  empty chart (not a line at 0 per slot, named "Column B".."Column I").

Every program then plots the weeks in use and names only the players shown: LibreOffice (which keeps the
names in the chart when it saves the book), Excel, viewers. The rows in use are the same for every column (a
line chart's series share its categories): the weeks before a player's first one stay in his column, blank
(LibreOffice 7.4 showed them as a gap in every book tried, the example filled by openpyxl and by LibreOffice
itself; Excel plots a cached ``""`` as 0 in a line chart, the values-only copy holds no cell there). A book
recalculated keeps its names until the next run: in Excel with the add-in, a week or player added after it
shows on the chart after the next ``xlbridge recalc``. The work is bounded: at most
:data:`MAX_TABLE_CELLS` cells a table (a larger table is left as it is), at most :data:`MAX_CHARTS` chart parts
of at most :data:`MAX_CHART_BYTES` each; only the sheets holding a table are read again. XML is read with
defusedxml (no DTD, no entities) and written back with its own namespace prefixes (:func:`write_xml`); a part
that does not change is not rewritten.

>>> _cut_text("'Chart'", 1, 5, 14)
"'Chart'!$A$5:$A$14"
>>> _cut_text("'Chart'", 6, 57, 57)
"'Chart'!$F$57"
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

from ...core.sheet import EXCEL_MAX_ROWS
from ...core.template_contract import CHART_NAME
from ..cells import column_letters, parse_range, quote_sheet

__all__ = ["CHART_NAME", "MAX_TABLE_CELLS", "MAX_CHARTS", "MAX_CHART_BYTES", "cut_chart_tables", "dynamic_text", "read_xml",
           "table_names", "write_xml"]

MAX_TABLE_CELLS = 100_000
MAX_CHARTS = 200
MAX_CHART_BYTES = 8 << 20

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_CHART = "http://schemas.openxmlformats.org/drawingml/2006/chart"
_CHART_TYPE = "application/vnd.openxmlformats-officedocument.drawingml.chart+xml"
_STRINGS_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"
_XML_NS = "http://www.w3.org/XML/1998/namespace"
_CELL = re.compile(r"^([A-Z]{1,3})([0-9]{1,7})$")
_SUFFIX = re.compile(r"^_([0-9]{1,5})$")


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _split(text: str) -> tuple[str, str] | None:
    """(sheet, reference or name) of ``'Sheet'!$A$1:$B$2``, ``Sheet!NAME``; None without a sheet."""
    sheet, bang, ref = (text or "").strip().rpartition("!")
    if not bang or not sheet or not ref:
        return None
    if sheet.startswith("'") and sheet.endswith("'") and len(sheet) >= 2:
        sheet = sheet[1:-1].replace("''", "'")
    return sheet, ref


def _cut_text(sheet_quoted: str, col: int, r1: int, r2: int) -> str:
    """``'Sheet'!$C$5:$C$14`` (one cell: ``'Sheet'!$C$5``), as openpyxl writes a defined name."""
    a = f"${column_letters(col)}${r1}"
    return f"{sheet_quoted}!{a}" if r1 == r2 else f"{sheet_quoted}!{a}:${column_letters(col)}${r2}"


# --- reading: XML parts and cached values ------------------------------------------------------------


def dynamic_text(sheet_quoted: str, first: int, col: int, r1: int, r2: int) -> str:
    """A name over column ``col`` from row ``r1`` down as many rows as the table's first column (``first``, rows
    ``r1`` to ``r2``) holds numbers, at least one: what an empty template's chart reads, so that Excel plots the
    weeks as a member types them and LibreOffice, which draws nothing for such a name, no line at 0.

    >>> dynamic_text("'Chart'", 1, 2, 5, 56)
    "OFFSET('Chart'!$B$5,0,0,MAX(1,COUNT('Chart'!$A$5:$A$56)),1)"
    """
    weeks = f"{sheet_quoted}!${column_letters(first)}${r1}:${column_letters(first)}${r2}"
    return f"OFFSET({sheet_quoted}!${column_letters(col)}${r1},0,0,MAX(1,COUNT({weeks})),1)"


def read_xml(data: bytes) -> tuple[ET.Element, list[tuple[str, str]]]:
    """The root of an XML part (defusedxml: no DTD, no entities) and its namespace declarations in order."""
    from defusedxml.ElementTree import iterparse

    declared: list[tuple[str, str]] = []
    parser = iterparse(io.BytesIO(data), events=("start-ns",), forbid_dtd=True)
    for _event, ns in parser:
        declared.append(ns)
    return parser.root, declared


def _cell_state(c: ET.Element) -> tuple[str, Any]:
    """("empty" | "blank" | "value" | "shared", index) of a ``<c>``: empty holds nothing at all (no value,
    formula or text: a chart plots nothing there), blank shows nothing (no value, ``""``), shared is a
    shared string (blank when that string is empty)."""
    kids = {_local(k.tag): k for k in c}
    if not kids.keys() & {"v", "f", "is"}:
        return "empty", None
    t = c.get("t", "n")
    if t == "inlineStr":
        inline = "".join(x.text or "" for x in c.iter() if _local(x.tag) == "t")
        return ("value" if inline else "blank"), None
    v = kids.get("v")
    text = None if v is None else v.text
    if not text:
        return "blank", None
    if t == "s":
        return "shared", int(text) if text.strip().isdigit() else -1
    return "value", None


def _read_cells(data: bytes, box: tuple[int, int, int, int]) -> dict[tuple[int, int], tuple[str, Any]] | None:
    """{(row, column): state} of the cells of a worksheet part inside ``box`` (r1, c1, r2, c2); None when a cell
    or row has no ``r`` (its place would have to be counted)."""
    from defusedxml.ElementTree import iterparse

    r1, c1, r2, c2 = box
    out: dict[tuple[int, int], tuple[str, Any]] = {}
    for _event, el in iterparse(io.BytesIO(data), events=("end",), forbid_dtd=True):
        name = _local(el.tag)
        if name == "c":
            m = _CELL.match(el.get("r") or "")
            if m is None:
                return None
            row = int(m.group(2))
            if r1 <= row <= r2:
                col = sum((ord(ch) - 64) * 26 ** i for i, ch in enumerate(reversed(m.group(1))))
                if c1 <= col <= c2:
                    out[(row, col)] = _cell_state(el)
        elif name == "row":
            if not el.get("r"):
                return None
            el.clear()
        elif name == "sheetData":
            break
    return out


def _blank_strings(data: bytes, wanted: set[int]) -> set[int]:
    """The indices among ``wanted`` of the shared strings part's empty strings (phonetic runs left out)."""
    from defusedxml.ElementTree import iterparse

    blank, index, last = set(), 0, max(wanted)
    for _event, el in iterparse(io.BytesIO(data), events=("end",), forbid_dtd=True):
        if _local(el.tag) != "si":
            continue
        if index in wanted:
            phonetic = {id(t) for r in el.iter() if _local(r.tag) == "rPh" for t in r.iter()}
            if not "".join(t.text or "" for t in el.iter() if _local(t.tag) == "t" and id(t) not in phonetic):
                blank.add(index)
        el.clear()
        index += 1
        if index > last:
            break
    return blank


# --- writing: an XML part with its own prefixes --------------------------------------------------------


def _escape(text: str, attribute: bool = False) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")
    if attribute:
        text = text.replace('"', "&quot;").replace("\n", "&#10;").replace("\t", "&#9;")
    return text


def write_xml(root: ET.Element, declared: list[tuple[str, str]], declaration: bool = True) -> bytes | None:
    """The part of ``root`` with the prefixes it was read with (``declared``: :func:`read_xml`), every
    declaration on the root element; None when a prefix was bound to two namespaces (then the part is
    left as it was). ElementTree's own writer would rename them (``ns0:``), breaking ``mc:Ignorable``.

    >>> root, ns = read_xml(b'<c:a xmlns:c="urn:c" xmlns:mc="urn:mc" mc:Ignorable="c"><c:b v="1&amp;2"/>x</c:a>')
    >>> write_xml(root, ns, declaration=False)
    b'<c:a xmlns:c="urn:c" xmlns:mc="urn:mc" mc:Ignorable="c"><c:b v="1&amp;2"/>x</c:a>'
    """
    prefixes: dict[str, str] = {}  # prefix -> namespace
    for prefix, uri in declared:
        if prefixes.setdefault(prefix, uri) != uri:
            return None
    element_prefix: dict[str, str] = {}  # namespace -> the first prefix bound to it
    attribute_prefix: dict[str, str] = {_XML_NS: "xml"}  # (an attribute's prefix cannot be the default)
    for prefix, uri in prefixes.items():
        element_prefix.setdefault(uri, prefix)
        if prefix:
            attribute_prefix.setdefault(uri, prefix)
    out: list[str] = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'] if declaration else []

    def name(qname: str, table: dict) -> str:
        if not qname.startswith("{"):
            if table is element_prefix and "" in prefixes:  # (no namespace, under a default one: not written)
                raise KeyError(qname)
            return qname
        uri, _, local = qname[1:].partition("}")
        prefix = table.get(uri)
        if prefix is None:
            raise KeyError(uri)
        return f"{prefix}:{local}" if prefix else local

    def write(el: ET.Element, top: bool) -> None:
        tag = name(el.tag, element_prefix)
        attrs = "".join(f' {name(k, attribute_prefix)}="{_escape(v, True)}"' for k, v in el.attrib.items())
        if top:
            attrs = "".join(f' xmlns{":" + p if p else ""}="{_escape(u, True)}"' for p, u in prefixes.items()) + attrs
        if el.text is None and len(el) == 0:
            out.append(f"<{tag}{attrs}/>")
        else:
            out.append(f"<{tag}{attrs}>{_escape(el.text or '')}")
            for child in el:
                write(child, False)
                out.append(_escape(child.tail or ""))
            out.append(f"</{tag}>")

    try:
        write(root, True)
    except KeyError:
        return None
    return "".join(out).encode("utf-8")


# --- the tables: names in the workbook part --------------------------------------------------------------


def table_names(root: ET.Element) -> dict[str, dict[str, Any]]:
    """{sheet: {"table": its CHART_NAME element, "columns": {k: the element of CHART_NAME_k}}} of a workbook
    part's root (sheet-scoped names only, matched as Excel matches names: whatever the case)."""
    sheets = [s.get("name") or "" for s in root.iter(f"{{{_MAIN}}}sheet")]
    tables: dict[str, dict[str, Any]] = {}
    for dn in root.iter(f"{{{_MAIN}}}definedName"):
        name, local = (dn.get("name") or "").upper(), dn.get("localSheetId") or ""
        if not name.startswith(CHART_NAME) or not local.isdigit() or int(local) >= len(sheets):
            continue
        entry = tables.setdefault(sheets[int(local)], {"table": None, "columns": {}})
        if name == CHART_NAME:
            entry["table"] = dn
        elif (m := _SUFFIX.match(name[len(CHART_NAME):])) is not None:
            entry["columns"][int(m.group(1))] = dn
    return {sheet: t for sheet, t in tables.items() if t["table"] is not None and t["columns"]}


def _plan(sheet: str, box: tuple[int, int, int, int], cells: dict, blank_shared: set[int]) -> tuple[dict, set]:
    """({k: the text of name CHART_NAME_k}, {k: columns with neither name nor value}) of the table ``box`` of
    ``sheet`` from its cells' states (:func:`_read_cells`, the row below the table included)."""
    r1, c1, r2, c2 = box

    def shows(r: int, c: int) -> bool:
        kind, index = cells.get((r, c), ("empty", None))
        return kind == "value" or (kind == "shared" and index not in blank_shared)

    quoted = quote_sheet(sheet)
    texts: dict[int, str] = {}
    hidden: set[int] = set()
    used = [r for r in range(r1 + 1, r2 + 1) if any(shows(r, c) for c in range(c1, c2 + 1))]
    if not used and not any(shows(r1, c) for c in range(c1 + 1, c2 + 1)):  # an empty template: as many rows as
        return {k: dynamic_text(quoted, c1, c1 + k, r1 + 1, r2) for k in range(c2 - c1 + 1)}, hidden  # weeks
    last = used[-1] if used else r1 + 1
    texts[0] = _cut_text(quoted, c1, r1 + 1, last)
    for k in range(1, c2 - c1 + 1):
        c = c1 + k
        if any(shows(r, c) for r in range(r1 + 1, last + 1)):
            texts[k] = _cut_text(quoted, c, r1 + 1, last)
            continue
        if not shows(r1, c):
            hidden.add(k)
        if r2 < EXCEL_MAX_ROWS and cells.get((r2 + 1, c), ("empty", None))[0] == "empty":  # (else left as it is)
            texts[k] = _cut_text(quoted, c, r2 + 1, r2 + 1)
    return texts, hidden


# --- the charts: legend entries --------------------------------------------------------------------------


def _gaps(root: ET.Element) -> bool:
    """Make a chart part's root show blank cells as gaps (``c:dispBlanksAs``); True when it changed."""
    chart = root.find(f"{{{_CHART}}}chart")
    if chart is None:
        return False
    shown = chart.find(f"{{{_CHART}}}dispBlanksAs")
    if shown is not None:
        if shown.get("val") == "gap":
            return False
        shown.set("val", "gap")
        return True
    at = None  # (its place in CT_Chart: after plotArea, legend and plotVisOnly)
    for i, child in enumerate(chart):
        if _local(child.tag) in ("plotArea", "legend", "plotVisOnly"):
            at = i + 1
    if at is None:
        return False
    chart.insert(at, ET.Element(f"{{{_CHART}}}dispBlanksAs", {"val": "gap"}))
    return True


def _legend(root: ET.Element, hidden: set[str]) -> bool:
    """Delete the legend entries of the series ``hidden`` (their ``c:idx``) in a chart part's root, and put back
    those deleted before and no longer hidden; True when the chart changed."""
    legend = root.find(f"{{{_CHART}}}chart/{{{_CHART}}}legend")
    if legend is None:
        return False
    ours = []  # entries holding only idx and delete="1": this module's (or the same thing made by hand)
    for entry in legend.findall(f"{{{_CHART}}}legendEntry"):
        kids = [(_local(k.tag), k.get("val")) for k in entry]
        if len(kids) == 2 and kids[0][0] == "idx" and kids[1] in (("delete", "1"), ("delete", "true")):
            ours.append((entry, kids[0][1]))
    if {idx for _e, idx in ours} == hidden and len(ours) == len(hidden):
        return False
    for entry, _idx in ours:
        legend.remove(entry)
    at = 0
    for i, child in enumerate(legend):
        if _local(child.tag) == "legendPos":
            at = i + 1
    for idx in sorted(hidden, key=int, reverse=True):
        entry = ET.Element(f"{{{_CHART}}}legendEntry")
        ET.SubElement(entry, f"{{{_CHART}}}idx", {"val": idx})
        ET.SubElement(entry, f"{{{_CHART}}}delete", {"val": "1"})
        legend.insert(at, entry)
    return True


def _chart_parts(types: ET.Element, names: set[str]) -> list[str]:
    """The chart parts of a package (their content type in ``[Content_Types].xml``, its root ``types``) that
    it holds, at most MAX_CHARTS."""
    parts = [(o.get("PartName") or "").lstrip("/") for o in types if _local(o.tag) == "Override"
             and o.get("ContentType") == _CHART_TYPE]
    return [p for p in parts if p in names][:MAX_CHARTS]


def _patch_charts(read: Callable[[str], bytes], parts: list[str], hidden: dict[tuple[str, int], bool]) -> dict:
    """{chart part: new bytes} for the charts with a series reading a table's column name (``hidden``:
    {(SHEET, k): hide its legend entry?}) whose legend entries or blank cells' display change."""
    out = {}
    for part in parts:
        data = read(part)
        if len(data) > MAX_CHART_BYTES or CHART_NAME.encode() not in data.upper():
            continue
        try:
            root, declared = read_xml(data)
        except (ValueError, SyntaxError):  # (the guard passed every part; a part it cannot read is left as it is)
            continue
        tied, hide = False, set()
        for ser in root.iter(f"{{{_CHART}}}ser"):
            f = ser.find(f"{{{_CHART}}}val/{{{_CHART}}}numRef/{{{_CHART}}}f")
            idx = ser.find(f"{{{_CHART}}}idx")
            where = _split(f.text or "") if f is not None else None
            if where is None or idx is None or not where[1].upper().startswith(CHART_NAME):
                continue
            m = _SUFFIX.match(where[1].upper()[len(CHART_NAME):])
            key = (where[0].upper(), int(m.group(1))) if m else None
            if key in hidden:
                tied = True
                if hidden[key]:
                    hide.add(idx.get("val") or "0")
        if tied and (_gaps(root) | _legend(root, hide)):
            text = write_xml(root, declared, declaration=data.lstrip().startswith(b"<?xml"))
            if text is not None:
                out[part] = text
    return out


def cut_chart_tables(zf: Any, sheets: list[tuple[str, str]], replacements: dict) -> dict[str, bytes]:
    """{part: bytes} to write into the recalculated copy: the workbook part with each chart table's names set
    to its rows in use and the charts whose legend entries change (see the module's text); {} when the book
    declares no chart table. ``zf``: the book (a ZipFile), ``sheets``: [(sheet, part)], ``replacements``: the
    parts already replaced ({part: bytes or a function returning them}: the recalculated sheets, the workbook
    part), read in their place."""
    def read(part: str) -> bytes:
        data = replacements.get(part)
        data = data() if callable(data) else data
        return data if data is not None else zf.read(part)

    workbook = read("xl/workbook.xml")
    names = set(zf.namelist())
    if CHART_NAME.encode() not in workbook.upper() or "[Content_Types].xml" not in names:
        return {}
    try:
        root, declared = read_xml(workbook)
        types, _ns = read_xml(read("[Content_Types].xml"))
    except (ValueError, SyntaxError):
        return {}
    parts = dict((s.upper(), p) for s, p in sheets)
    strings = [(o.get("PartName") or "").lstrip("/") for o in types if _local(o.tag) == "Override"
               and o.get("ContentType") == _STRINGS_TYPE]
    changed, hidden = False, {}
    for sheet, table in table_names(root).items():
        where = _split(table["table"].text or "")
        if where is None or where[0].upper() != sheet.upper() or sheet.upper() not in parts:
            continue
        try:
            box = parse_range(where[1])
        except ValueError:  # (a WorkbookError: #REF! after the table's rows were deleted, a name, ...)
            continue
        r1, c1, r2, c2 = box
        if r2 <= r1 or (r2 - r1 + 2) * (c2 - c1 + 1) > MAX_TABLE_CELLS:
            continue
        try:
            cells = _read_cells(read(parts[sheet.upper()]), (r1, c1, r2 + 1, c2))
            wanted = {i for kind, i in (cells or {}).values() if kind == "shared" and i is not None and i >= 0}
            blank = _blank_strings(read(strings[0]), wanted) if wanted and strings and strings[0] in names else set()
        except (ValueError, SyntaxError):
            continue
        if cells is None:
            continue
        texts, hide = _plan(sheet, box, cells, blank)
        for k, dn in table["columns"].items():
            if k in texts and dn.text != texts[k]:
                dn.text, changed = texts[k], True
            hidden[(sheet.upper(), k)] = k in hide
    out = {}
    if changed:
        text = write_xml(root, declared, declaration=workbook.lstrip().startswith(b"<?xml"))
        if text is None:
            return {}
        out["xl/workbook.xml"] = text
    if hidden:
        out.update(_patch_charts(read, _chart_parts(types, names), hidden))
    return out
