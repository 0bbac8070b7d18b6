"""The workbook's calculation properties and the formula-free copy: what makes cached values visible.

A workbook whose ``<calcPr>`` says ``fullCalcOnLoad="1"``, or whose ``calcId`` is older than the
opening program's calculation engine, is recalculated when it is opened: LibreOffice (default
settings) and Excel without the xlbridge add-in then show ``#NAME?`` or blanks in every cell using
an xlbridge function instead of the values ``xlbridge recalc`` cached. ECMA-376 Part 1, 18.2.2
(calcPr): ``calcId`` is "the version of the calculation engine used to calculate values in the
workbook"; when it is lower than the application's own, the application recalculates all formulas
on load. 191029 is the engine of Excel 2019 and Microsoft 365 (what Excel itself writes today).

- :func:`set_calc_properties` rewrites only the ``calcPr`` start tag of ``xl/workbook.xml``
  (``fullCalcOnLoad`` dropped, ``calcId`` set to :data:`CURRENT_CALC_ID`, every other attribute
  kept; the element is inserted at its schema position when missing). Excel with the add-in still
  recalculates a cell when one of its inputs changes (the calculation mode is left as it was).
- :func:`drop_formulas` removes the ``<f>`` children of a worksheet part (``--values-only``: a copy
  with values only, for mailing results to members); :func:`drop_part` removes a part (the
  calculation chain, which would otherwise name cells that no longer hold formulas) from the
  relationships and the content types.

The byte positions come from expat (the standard library's XML parser, DTDs refused); only the
located tags are rewritten, every other byte stays as it was.

>>> xml = (b'<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
...        b'<sheets/><calcPr calcId="124519" fullCalcOnLoad="1"/></workbook>')
>>> set_calc_properties(xml).decode()[-45:]
'<sheets/><calcPr calcId="191029"/></workbook>'
"""

from __future__ import annotations

import posixpath
import re
import xml.parsers.expat

from ...core.errors import WorkbookError
from ..guard.xmlscan import defuse

__all__ = ["CURRENT_CALC_ID", "set_calc_properties", "set_print_areas", "drop_formulas", "drop_part"]

CURRENT_CALC_ID = "191029"

# CT_Workbook's children in schema order (ECMA-376 Part 1, A.2): calcPr comes after these ...
_BEFORE_CALCPR = ("fileVersion", "fileSharing", "workbookPr", "workbookProtection", "bookViews", "sheets",
                  "functionGroups", "externalReferences", "definedNames")

# a start tag (or empty-element tag) beginning at a known offset; quoted attribute values may hold '>'
_TAG = re.compile(rb"""<[^\s/>]+(?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*(/?)>""")


class _Scan:
    """Byte offsets of elements found by expat: [(depth, qname, attrs, start, end of start tag, empty)]."""

    def __init__(self, data: bytes, wanted) -> None:
        self.data = data
        self.found: list = []
        self.ends: dict = {}  # index in found -> offset just after its end tag
        self.depth = 0
        self._open: list = []
        p = xml.parsers.expat.ParserCreate()
        p.ordered_attributes = True

        def refuse(_what):
            raise WorkbookError("refused: an XML part declares a DTD or entities")

        defuse(p, refuse)

        def start(name, attrs):
            self.depth += 1
            local = name.rpartition(":")[2]
            if wanted(self.depth, local):
                s = p.CurrentByteIndex
                m = _TAG.match(data, s)
                if m is None:
                    raise WorkbookError(f"unreadable <{name}> tag")
                self.found.append((self.depth, name, list(zip(attrs[::2], attrs[1::2])), s, m.end(),
                                   m.group(1) == b"/"))
                self._open.append(len(self.found) - 1)
            else:
                self._open.append(None)

        def end(name):
            k = self._open.pop()
            if k is not None:
                e = self.found[k]
                if e[5]:
                    self.ends[k] = e[4]
                else:
                    stop = data.index(b">", p.CurrentByteIndex) + 1
                    self.ends[k] = stop
            self.depth -= 1

        p.StartElementHandler = start
        p.EndElementHandler = end
        try:
            p.Parse(data, True)
        except xml.parsers.expat.ExpatError as exc:
            raise WorkbookError(f"unreadable XML ({exc})") from None


def _attr(value: str) -> str:
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;"))


def set_calc_properties(data: bytes, *, calc_id: str = CURRENT_CALC_ID) -> bytes:
    """Return ``xl/workbook.xml`` with ``calcPr`` saying: values are current, do not recalculate on load.

    ``fullCalcOnLoad`` is removed and ``calcId`` set; other attributes (``calcMode``, ``iterate``,
    ...) are kept. Without a ``calcPr`` one is inserted after ``sheets``/``definedNames``.

    >>> set_calc_properties(b'<workbook><sheets/><definedNames/><oleSize ref="A1"/></workbook>')
    b'<workbook><sheets/><definedNames/><calcPr calcId="191029"/><oleSize ref="A1"/></workbook>'
    """
    scan = _Scan(data, lambda depth, local: depth == 2)
    children = scan.found
    for k, (_d, name, attrs, s, e, empty) in enumerate(children):
        if name.rpartition(":")[2] != "calcPr":
            continue
        kept = [(a, v) for a, v in attrs if a not in ("fullCalcOnLoad", "calcId")]
        text = f"<{name}" + f' calcId="{calc_id}"' + "".join(f' {a}="{_attr(v)}"' for a, v in kept)
        return data[:s] + (text + ("/>" if empty else ">")).encode() + data[e:]
    root = _Scan(data, lambda depth, local: depth == 1).found
    if not root:
        raise WorkbookError("the workbook part has no root element")
    prefix = root[0][1].rpartition(":")[0]
    qname = f"{prefix}:calcPr" if prefix else "calcPr"
    pos = None
    for k, (_d, name, _a, s, _e, _m) in enumerate(children):
        if name.rpartition(":")[2] in _BEFORE_CALCPR:
            pos = scan.ends[k]
    if pos is None:
        raise WorkbookError("the workbook part has no <sheets> element")
    return data[:pos] + f'<{qname} calcId="{calc_id}"/>'.encode() + data[pos:]


def set_print_areas(data: bytes, areas: dict) -> bytes:
    """Rewrite the text of the ``_xlnm.Print_Area`` names of ``xl/workbook.xml`` for the sheets in
    ``areas`` ({localSheetId: reference text}); a sheet without such a name is left as it is.

    >>> xml = (b'<workbook><definedNames><definedName name="_xlnm.Print_Area" localSheetId="1">'
    ...        b"'Ranking'!$A$1:$F$404</definedName></definedNames></workbook>")
    >>> print(set_print_areas(xml, {1: "'Ranking'!$A$1:$F$16"}).decode()[24:])
    <definedName name="_xlnm.Print_Area" localSheetId="1">'Ranking'!$A$1:$F$16</definedName></definedNames></workbook>
    """
    if not areas:
        return data
    scan = _Scan(data, lambda depth, local: depth == 3 and local == "definedName")
    edits = []
    for k, (_depth, _name, attrs, _start, tag_end, empty) in enumerate(scan.found):
        a = dict(attrs)
        sheet = a.get("localSheetId", "")
        if a.get("name") != "_xlnm.Print_Area" or not sheet.isdigit() or int(sheet) not in areas or empty:
            continue
        close = data.rindex(b"<", tag_end, scan.ends[k])
        text = areas[int(sheet)].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        edits.append((tag_end, close, text.encode("utf-8")))
    for begin, stop, text in sorted(edits, reverse=True):
        data = data[:begin] + text + data[stop:]
    return data


def drop_formulas(data: bytes) -> bytes:
    """Return a worksheet part without its formulas (every ``<f>`` child of a cell removed), and without the
    conditional formats that mark a result cell left without its formula (``ISFORMULA``: the templates'
    red warning after a member inserts a row, which would mark every result of a copy without formulas).

    The cached ``<v>`` values stay, so every program shows them; nothing recalculates.

    >>> drop_formulas(b'<worksheet><sheetData><row r="1"><c r="A1"><f>1+1</f><v>2</v></c>'
    ...               b'<c r="B1"><f t="shared" si="0"/><v>3</v></c></row></sheetData></worksheet>')
    b'<worksheet><sheetData><row r="1"><c r="A1"><v>2</v></c><c r="B1"><v>3</v></c></row></sheetData></worksheet>'
    >>> drop_formulas(b'<worksheet><sheetData/><conditionalFormatting sqref="B1"><cfRule type="expression">'
    ...               b'<formula>NOT(_xlfn.ISFORMULA(B1))</formula></cfRule></conditionalFormatting></worksheet>')
    b'<worksheet><sheetData/></worksheet>'
    """
    scan = _Scan(data, lambda depth, local: (depth == 5 and local == "f")
                 or (depth == 2 and local == "conditionalFormatting"))
    out, pos = [], 0
    for k, (_d, name, _a, s, _e, _m) in enumerate(scan.found):
        if name.rpartition(":")[2] == "conditionalFormatting" and b"ISFORMULA" not in data[s:scan.ends[k]]:
            continue  # (another conditional format: kept)
        out.append(data[pos:s])
        pos = scan.ends[k]
    out.append(data[pos:])
    return b"".join(out)


def drop_part(rels: bytes, content_types: bytes, part: str) -> tuple[bytes, bytes]:
    """Remove the relationship to ``part`` (e.g. ``calcChain.xml`` in ``xl/_rels/workbook.xml.rels``)
    and its ``Override`` in ``[Content_Types].xml``; return both parts.

    >>> r, c = drop_part(b'<Relationships><Relationship Id="r1" Target="calcChain.xml"/></Relationships>',
    ...                  b'<Types><Override PartName="/xl/calcChain.xml"/></Types>', "xl/calcChain.xml")
    >>> r, c
    (b'<Relationships></Relationships>', b'<Types></Types>')
    """
    def cut(data: bytes, local: str, attr: str, matches) -> bytes:
        scan = _Scan(data, lambda depth, name: depth == 2 and name == local)
        out, pos = [], 0
        for k, (_d, _n, attrs, s, _e, _m) in enumerate(scan.found):
            if matches(dict(attrs).get(attr, "")):
                out.append(data[pos:s])
                pos = scan.ends[k]
        out.append(data[pos:])
        return b"".join(out)

    folder = part.rpartition("/")[0]  # the workbook's folder: relative targets start there

    def same(target: str) -> bool:
        path = target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
        return posixpath.normpath(path) == part

    rels = cut(rels, "Relationship", "Target", same)
    content_types = cut(content_types, "Override", "PartName", lambda p: p.lstrip("/") == part)
    return rels, content_types
