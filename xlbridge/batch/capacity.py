"""Data typed past a template's capacity is never dropped in silence.

A template declares the input area of a sheet with a sheet-scoped defined name ``XLBRIDGE_CAPACITY``
(for example ``Travellers!$A$5:$P$10004``: the rows its formulas read). :func:`first_overflow` finds, for
each such sheet, the first cell holding a value or a formula in those columns below the area;
``xlbridge recalc`` reports it as a cell error (code ``capacity``), so the run exits 1 with a line
naming the sheet and the first ignored row. In Excel and LibreOffice the template's note next to the
area turns red (conditional formatting) for the same condition.

>>> wb = (b'<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets/><definedNames>'
...       b'<definedName name="XLBRIDGE_CAPACITY" localSheetId="0">Travellers!$A$5:$P$10004</definedName>'
...       b'</definedNames></workbook>')
>>> capacity_areas(wb, ["Travellers"])
[('Travellers', 5, 1, 10004, 16)]
"""

from __future__ import annotations

import re

from .xlsxpatch import parse_range, scan_sheet

__all__ = ["CAPACITY_NAME", "PRINT_NAME", "capacity_areas", "first_overflow", "last_used_row"]

CAPACITY_NAME = "XLBRIDGE_CAPACITY"
#: Sheet-scoped name of the whole printable table (title to last capacity row): ``xlbridge recalc``
#: sets the sheet's print area to it, cut after the last row holding anything.
PRINT_NAME = "XLBRIDGE_PRINT"

_REF = re.compile(r"^(?:'((?:[^']|'')+)'|([^'!]+))!(\$?[A-Z]{1,3}\$?\d+:\$?[A-Z]{1,3}\$?\d+)$")


def capacity_areas(workbook_xml: bytes, sheets: list[str], name: str = CAPACITY_NAME
                   ) -> list[tuple[str, int, int, int, int]]:
    """[(sheet, first row, first column, last row, last column)] of the ``XLBRIDGE_CAPACITY`` names
    (or of the names called ``name``).

    ``sheets``: the sheet names in workbook order (``localSheetId`` indexes them). A name whose
    reference is not a plain range on a sheet of the book is ignored.
    """
    from defusedxml import ElementTree as DET

    root = DET.fromstring(workbook_xml, forbid_dtd=True)
    out = []
    for el in root.iter():
        if el.tag.rpartition("}")[2] != "definedName" or (el.get("name") or "").upper() != name:
            continue
        m = _REF.match((el.text or "").strip())
        if m is None:
            continue
        sheet = m.group(1).replace("''", "'") if m.group(1) is not None else m.group(2)
        if sheet not in sheets:
            continue
        r1, c1, r2, c2 = parse_range(m.group(3).replace("$", ""))
        out.append((sheet, r1, c1, r2, c2))
    return out


def first_overflow(sheet_xml: bytes, area: tuple[str, int, int, int, int]) -> tuple[int, int] | None:
    """(row, column) of the first cell below ``area``, within its columns, that holds a value or formula.

    >>> xml = (b'<worksheet><sheetData><row r="9"><c r="B9" s="1"/></row>'
    ...        b'<row r="11"><c r="A11"><v>1</v></c></row></sheetData></worksheet>')
    >>> first_overflow(xml, ("S", 5, 1, 8, 2)), first_overflow(xml, ("S", 5, 1, 11, 2))
    ((11, 1), None)
    """
    _sheet, _r1, c1, r2, c2 = area
    layout = scan_sheet(sheet_xml)
    found = [(r, c) for (r, c), span in layout.cells.items()
             if r > r2 and c1 <= c <= c2 and any(local in ("v", "is", "f") for local, _s, _e in span.children)]
    return min(found) if found else None


def last_used_row(sheet_xml: bytes, area: tuple[str, int, int, int, int], values: dict) -> int:
    """The last row of ``area`` holding a constant or a non-blank computed value (``values``:
    {(row, column): value} of every formula cell, array cells included), at least the area's first row.

    >>> xml = b'<worksheet><sheetData><row r="3"><c r="A3"><v>1</v></c></row></sheetData></worksheet>'
    >>> last_used_row(xml, ("S", 1, 1, 50, 3), {(9, 2): "", (7, 1): 4.5})
    7
    """
    _sheet, r1, c1, r2, c2 = area
    last = r1
    for m1, _mc1, m2, _mc2 in _merged_ranges(sheet_xml):  # a merged note prints whole
        if r1 <= m1 <= r2:
            last = max(last, min(m2, r2))
    for (r, c), span in scan_sheet(sheet_xml).cells.items():
        if (r, c) in values:  # a formula's cell (an array's cells carry no <f>): its computed value counts
            continue
        if r1 <= r <= r2 and c1 <= c <= c2 and r > last and any(
                local in ("v", "is") for local, _s, _e in span.children) and not any(
                local == "f" for local, _s, _e in span.children):
            last = r
    for (r, c), v in values.items():
        if r1 <= r <= r2 and c1 <= c <= c2 and r > last and v is not None and v != "":
            last = r
    return last


def _merged_ranges(sheet_xml: bytes) -> list:
    """(r1, c1, r2, c2) of every ``<mergeCell ref=...>`` of a worksheet part (expat; DTDs refused).

    >>> _merged_ranges(b'<worksheet><sheetData/><mergeCells><mergeCell ref="I22:K25"/></mergeCells></worksheet>')
    [(22, 9, 25, 11)]
    """
    import xml.parsers.expat

    out = []

    def start(name, attrs):
        if name.rpartition(":")[2] == "mergeCell" and attrs.get("ref"):
            try:
                out.append(parse_range(attrs["ref"]))
            except ValueError:  # a WorkbookError too: an unreadable merge is no print row
                pass

    def refuse(*_args):
        raise ValueError("a DTD or entity declaration")

    p = xml.parsers.expat.ParserCreate()
    p.StartElementHandler = start
    p.StartDoctypeDeclHandler = refuse
    p.EntityDeclHandler = refuse
    try:
        p.Parse(sheet_xml, True)
    except (xml.parsers.expat.ExpatError, ValueError):
        return out
    return out
