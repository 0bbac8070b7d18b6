"""The gate: the one way into an upload's parts (issue 51).

:func:`check_upload` copies the file a user named into the run's private folder
(:func:`~xlbridge.batch.guard.safety.snapshot_file`), scans the copy whole
(:func:`~xlbridge.batch.guard.safety.check_workbook`: every part, the worksheets included, counted against the
limits as it streams) and only then reads the book's declared ranges: the template contract's defined names
(:data:`~xlbridge.core.template_contract.CAPACITY_NAME`, :data:`~xlbridge.core.template_contract.HEADER_NAME`,
:data:`~xlbridge.core.template_contract.PRINT_NAME`, :data:`~xlbridge.core.template_contract.RESULTS_NAME`) and the
Excel tables. What it hands on, a :class:`CheckedBook`, is made here only (its constructor refuses any other
caller), and it is the only thing the read stage accepts (:func:`xlbridge.batch.read.book.read_book`): no later
step can open a part, a name, a table or a print area of an upload the guard has not passed.

The ranges an upload declares are bounded by what its sheets hold before anything iterates them:

- the input tables (:data:`~xlbridge.core.template_contract.CAPACITY_NAME`) and their result cells
  (:data:`~xlbridge.core.template_contract.RESULTS_NAME`), which the read stage searches cell by cell, are
  clipped to their sheet's extent (the last row and column any row or cell of the part names, counted by the
  scan: :attr:`~xlbridge.batch.guard.limits.WorkbookInfo.extents`): a name over ``'S'!$B$1:$XFD$1048576`` on a
  sheet holding 2,000 rows of column A becomes ``B1:B2000``; a printable table
  (:data:`~xlbridge.core.template_contract.PRINT_NAME`) keeps its declared bounds, which the printed copy's area
  is cut from, and nothing iterates its cells (only the rows its part holds);
- the same block named twice counts once; the result cells of a sheet are at most
  :data:`MAX_RESULT_COLUMNS` columns (a template's are a dozen): wider, the name is refused, naming it;
- an Excel table whose range is wider than its declared columns, or two tables of a sheet that overlap, are
  refused, naming the table.

>>> _clip(("S", 1, 2, 1_048_576, 16_384), (2_000, 1))
('S', 1, 2, 2000, 2)
>>> _clip(("Travellers", 5, 1, 10_004, 16), (10_004, 18))
('Travellers', 5, 1, 10004, 16)
"""

from __future__ import annotations

import dataclasses
import os
import weakref
import posixpath
import re
import zipfile
from typing import Any

from ...core.errors import WorkbookError
from ...core.template_contract import CAPACITY_NAME, HEADER_NAME, PRINT_NAME, RESULTS_NAME
from ..cells import parse_range
from .limits import DEFAULT_LIMITS, SafetyLimits, WorkbookInfo, clip, refuse
from .safety import check_workbook, snapshot_file

__all__ = ["Area", "DeclaredAreas", "CheckedBook", "check_upload", "declared_areas", "MAX_RESULT_COLUMNS", "MAX_TABLES"]

#: (sheet, first row, first column, last row, last column)
Area = tuple[str, int, int, int, int]

#: the most Excel tables a book may hold (a template has two or three; each pair of a sheet's tables is compared)
MAX_TABLES = 256

#: the most result columns a sheet's :data:`RESULTS_NAME` may name, all its blocks together (the templates' widest,
#: the pairs travellers, has 7): beyond it the name is refused rather than searched row by row
MAX_RESULT_COLUMNS = 256

_TOKEN = object()  # (held by this module only: a CheckedBook made elsewhere is refused)
_ISSUED: weakref.WeakSet = weakref.WeakSet()  # the books this module made (a copy made with dataclasses.replace is not)

_REF = re.compile(r"^(?:'((?:[^']|'')+)'|([^'!]+))!(\$?[A-Z]{1,3}\$?\d+:\$?[A-Z]{1,3}\$?\d+)$")


def declared_areas(workbook_xml: bytes | Any, sheets: list[str], name: str = CAPACITY_NAME) -> list[Area]:
    """[(sheet, first row, first column, last row, last column)] of the defined names called ``name``
    (:data:`CAPACITY_NAME` by default), as declared (not clipped: :class:`CheckedBook` holds them clipped).

    ``workbook_xml``: the workbook part's bytes, or its root element parsed once (:func:`_parse`). ``sheets``: the
    sheet names in workbook order. A name whose reference is not a plain range on a sheet of the book is ignored;
    :data:`RESULTS_NAME` may list several ranges, separated by commas.

    >>> wb = (b'<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets/><definedNames>'
    ...       b'<definedName name="XLBRIDGE_CAPACITY" localSheetId="0">Travellers!$A$5:$P$10004</definedName>'
    ...       b'</definedNames></workbook>')
    >>> declared_areas(wb, ["Travellers"])
    [('Travellers', 5, 1, 10004, 16)]
    """
    root = _parse(workbook_xml) if isinstance(workbook_xml, bytes) else workbook_xml
    out = []
    for el in root.iter():
        if el.tag.rpartition("}")[2] != "definedName" or (el.get("name") or "").upper() != name:
            continue
        for part in ((el.text or "").strip().split(",") if name == RESULTS_NAME else [(el.text or "").strip()]):
            m = _REF.match(part.strip())
            if m is None:
                continue
            sheet = m.group(1).replace("''", "'") if m.group(1) is not None else m.group(2)
            if sheet not in sheets:
                continue
            try:
                r1, c1, r2, c2 = parse_range(m.group(3).replace("$", ""))
            except ValueError:  # (a WorkbookError too: past XFD or row 1,048,576 is no range of a sheet)
                continue
            out.append((sheet, r1, c1, r2, c2))
    return out


def _parse(workbook_xml: bytes) -> Any:
    """The workbook part's root element (defusedxml: no DTD)."""
    from defusedxml import ElementTree as DET

    return DET.fromstring(workbook_xml, forbid_dtd=True)


def _clip(area: Area, extent: tuple[int, int]) -> Area:
    """``area`` cut to the rows and columns its sheet holds (``extent``: its last row and column), keeping at
    least its first row and column."""
    sheet, r1, c1, r2, c2 = area
    last_row, last_col = extent
    return (sheet, r1, c1, max(r1, min(r2, last_row)), max(c1, min(c2, last_col)))


@dataclasses.dataclass(frozen=True)
class DeclaredAreas:
    """The template contract's areas of a checked book, in the workbook's order: ``capacity`` (the input tables,
    clipped to their sheet's extent), ``printed`` (the printable tables, as declared), ``results`` (the result
    cells in view, one block per run of columns, each once, clipped) and ``headers`` ((sheet, header row), ...)."""

    capacity: tuple[Area, ...] = ()
    printed: tuple[Area, ...] = ()
    results: tuple[Area, ...] = ()
    headers: tuple[tuple[str, int], ...] = ()

    def sheets(self) -> list[str]:
        """The sheets any area names, in the order first named."""
        return list(dict.fromkeys(a[0] for a in self.capacity + self.printed + self.results))


@dataclasses.dataclass(frozen=True, eq=False)
class CheckedBook:
    """An upload the guard has passed: its private copy (``path``), the name messages give it, what the scan
    learnt (``info``) and its declared areas, clipped (``areas``). Made by :func:`check_upload` only."""

    path: str
    name: str
    info: WorkbookInfo
    areas: DeclaredAreas
    token: Any = dataclasses.field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.token is not _TOKEN:
            raise TypeError("a CheckedBook is made by the guard only (xlbridge.batch.guard.gate.check_upload)")

    @property
    def issued(self) -> bool:
        """True for a book the gate made (:func:`check_upload`, :meth:`replaced`): not for a copy of one made
        otherwise (``dataclasses.replace``), which :func:`xlbridge.batch.read.book.read_book` refuses."""
        return self in _ISSUED

    @property
    def sheets(self) -> tuple[tuple[str, str], ...]:
        """((sheet, worksheet part), ...) in the workbook's order."""
        return self.info.sheets

    def open(self) -> zipfile.ZipFile:
        """The checked copy's zip, for reading its parts."""
        return zipfile.ZipFile(self.path)

    def replaced(self, path: str) -> CheckedBook:
        """The same book at ``path``: a copy the run made of it with parts the run wrote itself (the formulas of
        rows inserted into a table), whose other parts are the checked ones; ``path`` must lie in the checked copy's
        own private folder."""
        if os.path.dirname(os.path.abspath(path)) != os.path.dirname(os.path.abspath(self.path)) or not self.issued:
            raise ValueError("a checked book's copy lies beside it, in the run's private folder")
        return _issue(CheckedBook(path, self.name, self.info, self.areas, _TOKEN))


def _issue(book: CheckedBook) -> CheckedBook:
    _ISSUED.add(book)
    return book


def check_upload(src: str | os.PathLike, snapshot: str, *, limits: SafetyLimits | None = None,
                 name: str | None = None) -> tuple[CheckedBook, os.stat_result]:
    """The gate: ``src`` copied to ``snapshot`` (a path in the run's private folder), the copy scanned whole,
    its declared areas read and clipped; (the :class:`CheckedBook`, the input's status when copied). Raises
    :class:`~xlbridge.core.errors.WorkbookError` (one line naming what and where) for anything refused."""
    limits = DEFAULT_LIMITS if limits is None else limits
    name = name if name is not None else os.path.basename(os.fspath(src))
    st = snapshot_file(src, snapshot, limits=limits, name=name)
    info = check_workbook(snapshot, limits=limits, name=name)
    _check_tables(info, name)
    with zipfile.ZipFile(snapshot) as zf:
        workbook = zf.read("xl/workbook.xml")  # (scanned above: within the limits, no DTD)
    areas = _areas(workbook, info, name)
    return _issue(CheckedBook(snapshot, name, info, areas, _TOKEN)), st


def _areas(workbook: bytes, info: WorkbookInfo, name: str) -> DeclaredAreas:
    order = [sheet for sheet, _ in info.sheets]
    by_part = {part: (rows, cols) for part, rows, cols in info.extents}
    extent = {sheet: by_part.get(part, (1, 1)) for sheet, part in info.sheets}
    root = _parse(workbook)  # (once, for the four names)

    def declared(kind: str) -> list[Area]:
        found = declared_areas(root, order, kind)
        if kind != RESULTS_NAME:  # one table a sheet: a name over a sheet declared twice is refused, not searched twice
            seen: set = set()
            for area in found:
                if area[0] in seen:
                    refuse(f"refused: defined name {kind} is declared more than once for sheet "
                           f"{clip(area[0], 40)[1:-1]} (a template declares one table a sheet)", name)
                seen.add(area[0])
        return found

    def clipped(kind: str) -> tuple[Area, ...]:
        found = [_clip(a, extent[a[0]]) for a in declared(kind)]
        return tuple(dict.fromkeys(found))  # (the same block named twice: once)

    results = clipped(RESULTS_NAME)
    for sheet in dict.fromkeys(a[0] for a in results):
        wide = sum(a[4] - a[2] + 1 for a in results if a[0] == sheet)
        if wide > MAX_RESULT_COLUMNS:
            refuse(f"refused: defined name {RESULTS_NAME} of sheet {clip(sheet, 40)[1:-1]} names {wide:,} result "
                   f"columns, more than the {MAX_RESULT_COLUMNS:,} a table's result cells may have", name)
    headers = tuple((a[0], a[1]) for a in declared(HEADER_NAME))
    # (a printable table keeps its declared bounds, which the printed copy's area is cut from: nothing iterates
    # its cells, only the rows its part holds, :func:`xlbridge.batch.read.capacity.last_used_row`)
    printed = tuple(declared(PRINT_NAME))
    return DeclaredAreas(clipped(CAPACITY_NAME), printed, results, headers)


def _check_tables(info: WorkbookInfo, name: str) -> None:
    """An Excel table's range as wide as its declared columns, and no two tables of a sheet overlapping."""
    rels = dict(info.rels)
    tables = {part: (table, ref, columns) for part, table, ref, columns in info.tables}
    if len(tables) > MAX_TABLES:  # (each pair of a sheet's tables is compared below)
        refuse(f"refused: {len(tables):,} Excel tables, more than the {MAX_TABLES:,} a workbook may hold here", name)
    for sheet, part in info.sheets:
        rels_part = posixpath.join(posixpath.dirname(part), "_rels", posixpath.basename(part) + ".rels")
        boxes: list = []
        for _rid, typ, target, mode in rels.get(rels_part, ()):
            if mode == "External" or not str(typ).endswith("/table") or target is None:
                continue
            target = target[1:] if target.startswith("/") else posixpath.normpath(
                posixpath.join(posixpath.dirname(part), target))
            if target not in tables:
                continue
            table, ref, columns = tables[target]
            shown = f"table {clip(table, 40)[1:-1]} of sheet {clip(sheet, 40)[1:-1]}"
            try:
                r1, c1, r2, c2 = parse_range(ref)
            except (ValueError, WorkbookError):
                refuse(f"damaged workbook: {shown}: its range {clip(ref, 40)} is not a range of cells", name)
            if c2 - c1 + 1 != columns:
                refuse(f"damaged workbook: {shown}: its range {clip(ref, 40)[1:-1]} is {c2 - c1 + 1:,} columns wide "
                       f"but it declares {columns:,} columns", name)
            for other, other_ref, (o1, oc1, o2, oc2) in boxes:
                if r1 <= o2 and o1 <= r2 and c1 <= oc2 and oc1 <= c2:
                    refuse(f"damaged workbook: {shown} ({clip(ref, 40)[1:-1]}) overlaps table "
                           f"{clip(other, 40)[1:-1]} ({clip(other_ref, 40)[1:-1]})", name)
            boxes.append((table, ref, (r1, c1, r2, c2)))
