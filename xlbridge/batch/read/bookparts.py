"""The workbook's parts: its worksheets in order, and the cached copies of the books it links to.

In: the open zip of a checked workbook. Out: [(sheet name, worksheet part)] in workbook order
(:func:`workbook_sheet_parts`) and the values Excel cached for each linked workbook
(:func:`read_external_links`, :class:`ExternalBookCache`); a linked file is never opened.
"""

from __future__ import annotations

import dataclasses
import math
import posixpath
import re
import urllib.parse
import zipfile
from typing import Any

from ...core.errors import WorkbookError
from ..cells import EXCEL_ERROR_CODES, ExcelErrorValue, parse_ref
from ..guard.limits import clip

__all__ = ["workbook_sheet_parts", "ExternalBookCache", "read_external_links"]


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
        raise WorkbookError(f"damaged workbook: missing part {clip(exc.args[0], 80)[1:-1]}") from None
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
            raise WorkbookError(f"damaged workbook: the part of sheet {clip(el.get('name'))} is missing")
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
    ``<externalReference>`` elements, as :func:`xlbridge.batch.guard.safety.check_workbook` reports them).

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
