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
- :func:`handout_order` and :func:`handout_sheet` make the values-only copy the members' handout (the template
  contract's :data:`~xlbridge.core.template_contract.HANDOUT_NAME`): the results sheet first and open, the
  scorer's sheets hidden, no input prompts, legends or notes on the sheets kept.
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
from collections.abc import Sequence

from ...core.errors import WorkbookError
from ...core.template_contract import HANDOUT_NAME, SCORER_NOTES_NAME
from ..guard.xmlscan import defuse

__all__ = ["CURRENT_CALC_ID", "set_calc_properties", "set_print_areas", "drop_formulas", "drop_part", "sheet_names",
           "handout_order", "handout_sheet", "handout_parts"]

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


def _element_text(data: bytes, scan: _Scan, k: int) -> str:
    """The text inside element ``k`` of ``scan`` (no child elements), entities resolved."""
    _d, _n, _a, _s, end, empty = scan.found[k]
    if empty:
        return ""
    close = data.rindex(b"<", end, scan.ends[k])
    text = data[end:close].decode("utf-8")
    return (text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&apos;", "'")
            .replace("&amp;", "&"))


def sheet_names(data: bytes, name: str) -> dict[int, str]:
    """{localSheetId: text} of the sheet-scoped defined names ``name`` (matched whatever the case, as Excel
    matches names) of ``xl/workbook.xml``.

    >>> sheet_names(b'<workbook><definedNames><definedName name="X" localSheetId="2">1</definedName>'
    ...             b'<definedName name="X">7</definedName></definedNames></workbook>', "x")
    {2: '1'}
    """
    scan = _Scan(data, lambda depth, local: depth == 3 and local == "definedName")
    out = {}
    for k, (_d, _n, attrs, _s, _e, _m) in enumerate(scan.found):
        a = dict(attrs)
        local = a.get("localSheetId", "")
        if a.get("name", "").upper() == name.upper() and local.isdigit():
            out[int(local)] = _element_text(data, scan, k)
    return out


def _set_attrs(tag: list[tuple[str, str]], name: str, changes: dict[str, str | None], empty: bool) -> bytes:
    """A start tag ``name`` from the attributes ``tag`` (a list of pairs) with ``changes`` applied (None: removed)."""
    kept = [(a, v) for a, v in tag if a not in changes]
    kept += [(a, v) for a, v in changes.items() if v is not None]
    return (f"<{name}" + "".join(f' {a}="{_attr(v)}"' for a, v in kept) + ("/>" if empty else ">")).encode("utf-8")


def handout_order(data: bytes, places: dict[int, int]) -> tuple[bytes, list[int]]:
    """``xl/workbook.xml`` as the members' handout: the sheets of ``places`` ({sheet index: place}) first, in
    the order of their places, the others after them hidden and without print areas (LibreOffice prints a hidden
    sheet that has one); the first sheet open (``activeTab``), every sheet-scoped name's ``localSheetId``
    following its sheet. Returns the part and the new order (the old
    index of each sheet, in its new place).

    >>> xml = (b'<workbook><bookViews><workbookView activeTab="0"/></bookViews><sheets><sheet name="I" sheetId="1"/>'
    ...        b'<sheet name="T" sheetId="2"/><sheet name="R" sheetId="3"/></sheets><definedNames>'
    ...        b'<definedName name="P" localSheetId="2">R!A1</definedName>'
    ...        b'<definedName name="_xlnm.Print_Area" localSheetId="0">I!A1</definedName></definedNames></workbook>')
    >>> part, order = handout_order(xml, {2: 1, 1: 2})
    >>> order
    [2, 1, 0]
    >>> print(part.decode())
    <workbook><bookViews><workbookView activeTab="0" firstSheet="0"/></bookViews><sheets><sheet name="R" sheetId="3"/><sheet name="T" sheetId="2"/><sheet name="I" sheetId="1" state="hidden"/></sheets><definedNames><definedName name="P" localSheetId="0">R!A1</definedName></definedNames></workbook>
    """
    scan = _Scan(data, lambda depth, local: (depth == 3 and local in ("sheet", "definedName", "workbookView")))
    sheets = [k for k, f in enumerate(scan.found) if f[1].rpartition(":")[2] == "sheet"]
    order = sorted((i for i in places if i < len(sheets)), key=lambda i: (places[i], i))
    order += [i for i in range(len(sheets)) if i not in order]
    new_index = {old: new for new, old in enumerate(order)}
    edits: list[tuple[int, int, bytes]] = []
    texts = []
    for i in order:  # each <sheet> element whole, in its new place; hidden when not in the handout
        _d, name, attrs, s, e, empty = scan.found[sheets[i]]
        element = _set_attrs(attrs, name, {} if i in places else {"state": "hidden"}, empty) + \
            data[e:scan.ends[sheets[i]]]
        texts.append(element)
    if sheets:
        first, last = scan.found[sheets[0]][3], scan.ends[sheets[-1]]
        edits.append((first, last, b"".join(texts)))
    for k, (_d, name, attrs, s, e, empty) in enumerate(scan.found):
        local = name.rpartition(":")[2]
        a = dict(attrs)
        if local == "definedName" and a.get("localSheetId", "").isdigit() and int(a["localSheetId"]) in new_index \
                and int(a["localSheetId"]) not in places and a.get("name", "").startswith("_xlnm.Print_"):
            edits.append((s, scan.ends[k], b""))  # (LibreOffice prints a hidden sheet that has a print area)
        elif local == "definedName" and a.get("localSheetId", "").isdigit() and int(a["localSheetId"]) in new_index:
            edits.append((s, e, _set_attrs(attrs, name, {"localSheetId": str(new_index[int(a["localSheetId"])])},
                                           empty)))
        elif local == "workbookView":
            edits.append((s, e, _set_attrs(attrs, name, {"activeTab": "0", "firstSheet": "0"}, empty)))
    for begin, stop, text in sorted(edits, reverse=True):
        data = data[:begin] + text + data[stop:]
    return data, order


def _in(ref: str, boxes: list[tuple[int, int, int, int]]) -> bool:
    m = re.fullmatch(r"([A-Z]{1,3})([0-9]+)", ref)
    if m is None:
        return False
    col = 0
    for ch in m.group(1):
        col = col * 26 + ord(ch) - 64
    row = int(m.group(2))
    return any(r1 <= row <= r2 and c1 <= col <= c2 for r1, c1, r2, c2 in boxes)


def handout_sheet(data: bytes, *, selected: bool, drop: Sequence[tuple[int, int, int, int]] = ()) -> bytes:
    """A worksheet part of the members' handout: its tab selected or not (``tabSelected``), without its data
    validations (the prompts of cells to type into: nothing is typed into a handout), and without the cells
    of the boxes ``drop`` ([(r1, c1, r2, c2)]: the template's legends and notes for the scorer).

    >>> xml = (b'<worksheet><sheetViews><sheetView tabSelected="1" workbookViewId="0"/></sheetViews><sheetData>'
    ...        b'<row r="1"><c r="A1"><v>1</v></c><c r="B1" t="s"><v>0</v></c></row></sheetData>'
    ...        b'<dataValidations count="1"><dataValidation sqref="A1"/></dataValidations></worksheet>')
    >>> print(handout_sheet(xml, selected=False, drop=[(1, 2, 3, 2)]).decode())
    <worksheet><sheetViews><sheetView workbookViewId="0"/></sheetViews><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>
    """
    scan = _Scan(data, lambda depth, local: (depth == 3 and local == "sheetView")
                 or (depth == 2 and local == "dataValidations") or (bool(drop) and depth == 4 and local == "c"))
    edits: list[tuple[int, int, bytes]] = []
    for k, (_d, name, attrs, s, e, empty) in enumerate(scan.found):
        local = name.rpartition(":")[2]
        if local == "sheetView":
            edits.append((s, e, _set_attrs(attrs, name, {"tabSelected": "1" if selected else None}, empty)))
        elif local == "dataValidations" or _in(dict(attrs).get("r", ""), list(drop)):
            edits.append((s, scan.ends[k], b""))
    for begin, stop, text in sorted(edits, reverse=True):
        data = data[:begin] + text + data[stop:]
    return data


def handout_parts(workbook: bytes, sheets: list[tuple[str, str]], read) -> dict[str, bytes]:
    """{part: bytes} making a values-only copy the members' handout, {} for a book that declares none (no
    sheet-scoped :data:`~xlbridge.core.template_contract.HANDOUT_NAME`): ``workbook`` is ``xl/workbook.xml``,
    ``sheets`` [(sheet, part)] in the book's order, ``read(part)`` a sheet part's bytes (formulas already
    dropped). The sheets of the handout in their places, the first open and selected, the others hidden
    (:func:`handout_order`); on each sheet no prompt, and no cell of its
    :data:`~xlbridge.core.template_contract.SCORER_NOTES_NAME` (:func:`handout_sheet`)."""
    from ..cells import parse_range

    places = {}
    for i, text in sheet_names(workbook, HANDOUT_NAME).items():
        try:
            places[i] = float(text.lstrip("="))
        except ValueError:
            continue
    places = {i: p for i, p in places.items() if i < len(sheets)}
    if not places:
        return {}
    notes: dict[int, list[tuple[int, int, int, int]]] = {}
    for i, text in sheet_names(workbook, SCORER_NOTES_NAME).items():
        for block in text.lstrip("=").split(","):
            try:
                notes.setdefault(i, []).append(parse_range(block.rpartition("!")[2].replace("$", "")))
            except WorkbookError:
                continue
    part, order = handout_order(workbook, places)  # type: ignore[arg-type]
    out = {"xl/workbook.xml": part}
    for i, (_sheet, name) in enumerate(sheets):
        out[name] = handout_sheet(read(name), selected=i == order[0], drop=notes.get(i, []) if i in places else [])
    return out
