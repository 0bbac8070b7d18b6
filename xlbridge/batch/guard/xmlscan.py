"""Stream one XML part of a workbook through expat, counting what it holds against the limits.

:func:`scan_xml` forbids DTDs, entity declarations and external references (entity bombs, XXE), as
defusedxml does, with expat's handlers called directly (no ``xml.sax`` layer);
:func:`counting_handler` counts cells, rows, shared strings, styles, defined names and formula
lengths as the part streams and checks the numeric attributes Excel would repair (row and column
numbers, sheet ids, column records, text over 32,767 characters), so the work of a run is bounded
before it starts. Used by :func:`xlbridge.batch.guard.safety.check_workbook`.

>>> _local("x:row"), _local("row")
('row', 'row')
"""

from __future__ import annotations

import io
import math
import time
import types
import typing
from collections.abc import Callable
from typing import Any

from ...core.errors import WorkbookError, WorkbookLimitError
from ..cells import parse_range
from .limits import DEFAULT_LIMITS, EXCEL_MAX_COLUMNS, EXCEL_MAX_ROWS, EXCEL_MAX_TEXT, SafetyLimits, clip, refuse

__all__ = [
    "BoundedReader",
    "Totals",
    "check_deadline",
    "counting_handler",
    "defuse",
    "feed",
    "install",
    "new_parser",
    "scan_xml",
]

_MAX_XML_DEPTH = 256  # OOXML parts nest a dozen levels deep; a thousand-level part is an attack on parsers


# --------------------------------------------------------------------------------------------------
# streaming checks of the XML parts


_STYLE_RECORDS = frozenset({"xf", "dxf", "font", "fill", "border", "numFmt", "cellStyle"})


class Totals:
    """Counts over all parts of one workbook, and what the package checks need."""

    def __init__(self) -> None:
        self.cells = self.rows = self.shared_strings = self.styles = self.names = 0
        self.cell_formats: int | None = None  # <xf> in <cellXfs> of xl/styles.xml (the part openpyxl reads), None: no part
        self.rels: dict = {}  # rels part -> [(Id, Type, Target, TargetMode)]
        self.sheets: list = []  # (name, r:id) from workbook.xml
        self.ext_refs: list = []  # r:id of <externalReference>, in order
        self.overrides: list = []  # (PartName, ContentType) from [Content_Types].xml
        #: worksheet part -> (last row, last column) any of its rows or cells names: what the sheet holds, to which
        #: the ranges the upload declares (defined names, tables, print areas) are clipped (:mod:`.gate`)
        self.extents: dict = {}
        self.tables: list = []  # (table part, name, ref, declared columns) of the table parts


def _local(name: str) -> str:
    return name.rsplit(":", 1)[-1]


def _rel_id(attrs) -> str | None:
    """The ``r:id`` attribute whatever its prefix (expat without namespace processing gives qualified names)."""
    for key, value in attrs.items():
        if ":" in key and _local(key) == "id":
            return value
    return None


def counting_handler(part: str, where: str, totals: Totals, limits: SafetyLimits, name: str | None,
                     at_row: bool = False) -> Any:
    """Expat handlers counting what ``part`` holds against ``limits`` (its kind decided by its root).

    The object's ``start(tag, attrs)``, ``end(tag)`` and ``chars(text)`` are expat's element and
    character-data handlers (qualified names, attributes as a dict); :func:`scan_xml` installs them.
    ``at_row``, ``at_boundary()``, ``extent()``, ``absorb(extent)``: a part in two halves (:mod:`.sheethalves`).
    """

    def over(what: str, limit: int):
        _over(what, limit, where, name)

    # (closures over plain variables rather than an object's attributes: the worksheet path runs once per
    # cell, row and value, 310,000 times for a 10,000-row pairs sheet)
    kind: str | None = None
    sheet = False  # the root is a worksheet, macrosheet or dialogsheet
    depth = 0
    formula: int | None = None  # characters of the formula or defined name being read, or None
    cell = "?"
    cell_xfs = False
    text: int | None = None  # characters of the cell text (<is>) or shared string (<si>) being read
    in_t = False  # inside a <t> of that text (not of a phonetic run <rPh>)
    phonetic = False
    # the sheet's extent: the largest column letters and row digits its cells name, compared as (length, text)
    # (a few hundred ns a cell: no number is made until the part ends, :func:`finish`)
    wide, wide_len, deep, deep_len = "", 0, "", 0
    row_at = row_most = 0  # the number of the row being read, and the largest
    odd = False  # a row or cell whose address is missing or not a plain address: the extent is the whole sheet
    first_row_numbered: bool | None = None  # whether the first row met carries its number (None: no row yet)
    if at_row:
        kind, sheet, depth = "worksheet", True, 2

    def start(tag, attrs):
        nonlocal kind, sheet, depth, formula, cell, cell_xfs, text, in_t, phonetic
        nonlocal wide, wide_len, deep, deep_len, row_at, row_most, odd, first_row_numbered
        depth += 1
        if depth > _MAX_XML_DEPTH:
            refuse(f"refused: XML part {clip(part, 80)} nests elements more than {_MAX_XML_DEPTH} deep", name,
                    WorkbookLimitError)
        local = tag if ":" not in tag else tag.rsplit(":", 1)[-1]
        if sheet:  # the hot path: one call per cell, row and value of a worksheet
            if local == "c":
                totals.cells += 1
                cell = attrs.get("r", "?")
                if totals.cells > limits.max_cells:
                    over("cells", limits.max_cells)
                digits = cell.lstrip(_LETTERS)
                letters = cell[:len(cell) - len(digits)]
                odd = odd or not (letters and digits.isdigit())  # (no plain address: the whole sheet)
                if len(letters) > wide_len or (len(letters) == wide_len and letters > wide):
                    wide, wide_len = letters, len(letters)
                if len(digits) > deep_len or (len(digits) == deep_len and digits > deep):
                    deep, deep_len = digits, len(digits)
                return
            if local == "v":
                return
        if text is not None:  # (inside a cell's text or a shared string; never at the root)
            if local == "rPh":
                phonetic = True
            elif local == "t" and not phonetic:
                in_t = True
        if sheet:
            if local == "row":
                totals.rows += 1
                if totals.rows > limits.max_rows:
                    over("rows", limits.max_rows)
                r = attrs.get("r")  # (a row without its number follows the one before)
                if first_row_numbered is None:
                    first_row_numbered = r is not None
                row_at = row_at + 1 if r is None else int(r) if r.isascii() and r.isdigit() and len(r) < 9 else -1
                odd = odd or row_at < 0
                row_most = max(row_most, row_at)
            elif local == "f":
                formula = 0
            elif local == "is":
                text = 0
            elif local == "col":
                _check_col(attrs, where, name)
            elif local == "mergeCell":  # openpyxl makes an object of every cell a merge covers
                _more_cells(totals, limits, _merged_cells(attrs.get("ref"), where, name), "the cells merged ranges cover",
                            (where, name))
            return
        if kind is None:
            kind = local
            sheet = local in ("worksheet", "macrosheet", "dialogsheet")
            if sheet:
                return
        if kind == "sst" and local == "si":
            text = 0
        elif kind == "workbook" and local == "definedName":
            formula = 0
            cell = "defined name " + clip(attrs.get("name", "?"), 40)
        cell_xfs = _count_record(kind, local, attrs, part, totals, limits, (where, name), cell_xfs)

    def end(tag):
        nonlocal depth, formula, cell_xfs, text, in_t, phonetic
        depth -= 1
        if formula is None and text is None and not (cell_xfs or in_t or phonetic):
            return  # the hot path: nothing open that an end tag closes
        local = tag.rsplit(":", 1)[-1]
        if cell_xfs and local == "cellXfs":
            cell_xfs = False
        if formula is not None and local in ("f", "definedName"):
            formula = None
        if local == "t":
            in_t = False
        elif local == "rPh":
            phonetic = False
        elif local in ("is", "si"):
            text = None

    def chars(content):
        nonlocal text, formula
        if in_t and text is not None:
            text += len(content)
            if text > EXCEL_MAX_TEXT:
                what = (f"{where}, cell {clip(cell, 12)}" if kind != "sst"
                        else f"shared string {totals.shared_strings:,}")
                refuse(f"damaged workbook: {what}: a text longer than {EXCEL_MAX_TEXT:,} characters, "
                        f"Excel's limit for one cell", name)
        if formula is not None:
            formula += len(content)
            if formula > limits.max_formula_length:
                at = cell if cell.startswith("defined name") else f"cell {clip(cell, 12)}"
                refuse(f"refused: {where}, {at}: a formula longer than {limits.max_formula_length:,} "
                        f"characters, the limit", name, WorkbookLimitError)

    def finish():
        """At the part's end: a worksheet's extent into ``totals.extents`` (:func:`_extent`)."""
        if sheet:
            last_row, last_col = _extent(wide, deep, odd)
            totals.extents[part] = (max(last_row, min(row_most, EXCEL_MAX_ROWS)), last_col)

    def at_boundary() -> bool:  # (in a worksheet, a row seen, nothing open but the root and its child)
        return (sheet and depth == 2 and formula is None and text is None
                and not (in_t or phonetic or first_row_numbered is None))

    def extent() -> tuple:  # (widest letters, deepest digits, odd, last row, the first row carries its number)
        return wide, deep, odd, row_most, first_row_numbered

    def absorb(other: tuple) -> None:  # (the extent() of the rest of the part, scanned by other handlers)
        nonlocal wide, wide_len, deep, deep_len, odd, row_most
        wide, deep = max(wide, other[0], key=_by_length), max(deep, other[1], key=_by_length)
        wide_len, deep_len, odd, row_most = len(wide), len(deep), odd or other[2], max(row_most, other[3])

    return types.SimpleNamespace(start=start, end=end, chars=chars, finish=finish, at_boundary=at_boundary,
                                 extent=extent, absorb=absorb)


def _by_length(text: str) -> tuple[int, str]:
    """How a sheet's extent compares column letters and row digits: by length, then as text.

    >>> max("Z", "AA", key=_by_length), max("99", "100", key=_by_length)
    ('AA', '100')
    """
    return len(text), text


def _over(what: str, limit: int, where: str, name: str | None) -> typing.NoReturn:
    refuse(f"refused: more than {limit:,} {what}, the limit (reached in {where})", name, WorkbookLimitError)


def _more_cells(totals: Totals, limits: SafetyLimits, n: int, counting: str, place: tuple) -> None:
    totals.cells += n
    if totals.cells > limits.max_cells:
        _over(f"cells (counting {counting})", limits.max_cells, *place)


def _count_record(kind: str | None, local: str, attrs: dict, part: str, totals: Totals, limits: SafetyLimits,
                  place: tuple, cell_xfs: bool) -> bool:
    """Count a record of a part that is no worksheet (a shared string, a style record, a linked book's cached
    cell, a defined name) against ``limits``, or note what the package checks need (:func:`_package_record`);
    ``place``: (where, the file's name) for a refusal. Returns whether the element read is inside the
    ``<cellXfs>`` of ``xl/styles.xml`` now (``cell_xfs``: before it)."""
    if kind == "sst" and local == "si":
        totals.shared_strings += 1
        if totals.shared_strings > limits.max_shared_strings:
            _over("shared strings", limits.max_shared_strings, *place)
    elif kind == "styleSheet":
        if local == "cellXfs" and part == "xl/styles.xml":
            cell_xfs = True
            totals.cell_formats = 0
        elif local == "xf" and cell_xfs:
            totals.cell_formats = (totals.cell_formats or 0) + 1
        if local in _STYLE_RECORDS:
            totals.styles += 1
            if totals.styles > limits.max_styles:
                _over("style records", limits.max_styles, *place)
    elif kind == "externalLink" and local == "cell":
        _more_cells(totals, limits, 1, "the cached cells of links to other workbooks", place)
    elif kind == "workbook" and local == "definedName":
        totals.names += 1
        if totals.names > limits.max_defined_names:
            _over("defined names", limits.max_defined_names, *place)
    else:
        _package_record(kind, local, attrs, part, totals, place[1])
    return cell_xfs


def _package_record(kind: str | None, local: str, attrs: dict, part: str, totals: Totals, name: str | None) -> None:
    """What the package checks and the gate need of a part that is no worksheet: the workbook's sheets and links,
    relationships, content types' overrides, an Excel table's range and columns (checked by :mod:`.gate`)."""
    if kind == "workbook":
        if local == "sheet":
            sheet_id = attrs.get("sheetId")
            if sheet_id is not None and not (sheet_id.isascii() and sheet_id.isdigit() and 1 <= int(sheet_id) < 2 ** 31):
                refuse(f"damaged workbook: sheet {clip(attrs.get('name', '?'), 40)[1:-1]}: sheet id "
                       f"{clip(sheet_id)} is not a whole number from 1 to 2,147,483,647", name)
            totals.sheets.append((attrs.get("name"), _rel_id(attrs)))
        elif local == "externalReference":
            totals.ext_refs.append(_rel_id(attrs))
    elif kind == "Relationships" and local == "Relationship":
        totals.rels.setdefault(part, []).append(
            (attrs.get("Id"), attrs.get("Type", ""), attrs.get("Target"), attrs.get("TargetMode")))
    elif kind == "Types" and local == "Override":
        totals.overrides.append((attrs.get("PartName", ""), attrs.get("ContentType", "")))
    elif kind == "table":
        if local == "table" and not (totals.tables and totals.tables[-1][0] == part):  # (the root)
            totals.tables.append([part, attrs.get("displayName") or attrs.get("name") or "?", attrs.get("ref") or "", 0])
        elif local == "tableColumn" and totals.tables and totals.tables[-1][0] == part:
            totals.tables[-1][3] += 1


def _extent(wide: str, deep: str, odd: bool) -> tuple[int, int]:
    """(last row, last column) of a worksheet from the largest column letters and row digits its cells name; a
    cell without a plain address, or a column past XFD, makes it the whole sheet (nothing is clipped that could
    hold a cell).

    >>> _extent("AB", "120", False), _extent("", "", False), _extent("AB", "12", True), _extent("$A", "1", False)
    ((120, 28), (0, 0), (1048576, 16384), (1048576, 16384))
    """
    col = _column(wide) if wide else 0
    row = (int(deep) if deep.isascii() and deep.isdigit() and len(deep) < 9 else None) if deep else 0
    if odd or col is None or row is None:
        return EXCEL_MAX_ROWS, EXCEL_MAX_COLUMNS
    return min(row, EXCEL_MAX_ROWS), col


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _column(letters: str) -> int | None:
    """The column number of plain column letters (``A`` 1 ... ``XFD`` 16,384); None for anything else.

    >>> _column("A"), _column("XFD"), _column("XFE"), _column("$A"), _column("a")
    (1, 16384, None, None, None)
    """
    if not (1 <= len(letters) <= 3) or letters.strip(_LETTERS):
        return None
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n if n <= EXCEL_MAX_COLUMNS else None


def _merged_cells(ref: str | None, where: str, name: str | None) -> int:
    """How many cells a ``<mergeCell ref="A1:C2">`` covers; a ref that is no range of a sheet is refused.

    >>> _merged_cells("A1:C2", "sheet S", None), _merged_cells("A2:XFD1048576", "sheet S", None)
    (6, 17179852800)
    """
    try:
        r1, c1, r2, c2 = parse_range(ref or "")
    except (WorkbookError, ValueError):
        refuse(f"damaged workbook: {where}: merged range {clip(ref)} is not a range of cells", name)
    return (r2 - r1 + 1) * (c2 - c1 + 1)


def _check_col(attrs, where: str, name: str | None) -> None:
    """A ``<col>`` (column widths): ``min``/``max`` whole numbers 1 to 16,384 in order, ``width`` 0 to 255.

    Excel "repairs" a file whose column record is out of these bounds, so it is refused here.

    >>> from xlbridge import WorkbookError
    >>> _check_col({"min": "1", "max": "3", "width": "12.5"}, "sheet S", None)
    >>> try:
    ...     _check_col({"min": "1", "max": "99999999999"}, "sheet S", "b.xlsx")
    ... except WorkbookError as err:
    ...     print(err)
    b.xlsx: damaged workbook: sheet S: column record max='99999999999' is not a whole number from 1 to 16,384
    """
    bounds = []
    for key in ("min", "max"):
        v = attrs.get(key)
        if v is None or not (v.isascii() and v.isdigit() and 1 <= int(v) <= EXCEL_MAX_COLUMNS):
            refuse(f"damaged workbook: {where}: column record {key}={clip(v)} is not a whole number from 1 to "
                    f"{EXCEL_MAX_COLUMNS:,}", name)
        bounds.append(int(v))
    if bounds[0] > bounds[1]:
        refuse(f"damaged workbook: {where}: column record min={bounds[0]} is after max={bounds[1]}", name)
    width = attrs.get("width")
    if width is not None:
        try:
            w = float(width) if len(width) <= 40 else math.inf
        except ValueError:
            w = math.nan
        if not 0 <= w <= 255:
            refuse(f"damaged workbook: {where}: column width {clip(width)} is not a number from 0 to 255", name)


def defuse(parser: Any, forbidden: Callable[[str], Any]) -> None:
    """Set on an expat ``parser`` the refusals defusedxml makes (``forbid_dtd``, ``forbid_entities``,
    ``forbid_external``): ``forbidden(what)`` is called, and must raise, at a DTD, an entity declaration
    (parsed or unparsed) or an external entity reference. Every expat parser of the batch layer uses it.

    >>> import xml.parsers.expat as expat
    >>> p = expat.ParserCreate()
    >>> def no(what):
    ...     raise ValueError(what)
    >>> defuse(p, no)
    >>> try:
    ...     p.Parse(b'<!DOCTYPE x [<!ENTITY a "b">]><x/>', True)
    ... except ValueError as err:
    ...     print(err)
    a DTD (document type declaration; used by entity bombs and external entities)
    """
    def handler(what: str) -> Callable[..., Any]:
        return lambda *_args: forbidden(what)

    parser.StartDoctypeDeclHandler = handler(
        "a DTD (document type declaration; used by entity bombs and external entities)")
    parser.EntityDeclHandler = parser.UnparsedEntityDeclHandler = handler("an entity declaration (entity bomb)")
    parser.ExternalEntityRefHandler = handler("an external entity reference (XXE)")


def scan_xml(stream: Any, part: str, name: str | None, handler: Any = None,
             max_token: int = DEFAULT_LIMITS.max_xml_token, where: str | None = None) -> None:
    """Parse one XML part with expat, refusing what defusedxml refuses: a DTD, an entity declaration
    (parsed or unparsed) and an external entity reference; and a tag, comment or processing instruction
    longer than ``max_token`` bytes (``SafetyLimits.max_xml_token``), seen as soon as that many bytes are read
    past expat's last whole token (``CurrentByteIndex``): expat 2.5 scans an unfinished token again at
    every chunk, so one long token costs time quadratic in its length. ``where``: how a member names the part (a
    worksheet: ``sheet Travellers``), else ``XML part P``.

    These are defusedxml's ``forbid_dtd``, ``forbid_entities`` and ``forbid_external`` (the same
    expat handlers, raising at the first declaration); the handler's ``start``/``end``/``chars`` are
    called straight from expat (about 0.25 s for a 9 MB sheet, against 0.66 s through ``xml.sax``).

    >>> import io
    >>> try:
    ...     scan_xml(io.BytesIO(b'<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>'), "xl/sharedStrings.xml", "b.xlsx")
    ... except WorkbookError as err:
    ...     print(err)
    b.xlsx: refused: XML part xl/sharedStrings.xml contains a DTD (document type declaration; used by entity bombs and external entities)
    """
    parser = new_parser(part, name)
    if handler is not None:
        install(parser, handler)
    feed(parser, iter(lambda: stream.read(1 << 16), b""), part, name, max_token, where)


def new_parser(part: str, name: str | None) -> Any:
    """An expat parser refusing what defusedxml refuses (:func:`defuse`), naming ``part``."""
    import xml.parsers.expat as expat

    def forbidden(what: str) -> Any:
        refuse(f"refused: XML part {clip(part, 80)[1:-1]} contains {what}", name)

    parser = expat.ParserCreate()
    defuse(parser, forbidden)
    return parser


def install(parser: Any, handler: Any) -> None:
    """Install a :func:`counting_handler`'s element and text handlers on ``parser``."""
    parser.StartElementHandler = handler.start
    parser.EndElementHandler = handler.end
    parser.CharacterDataHandler = handler.chars


def feed(parser: Any, chunks: Any, part: str, name: str | None, max_token: int, where: str | None,
         fed: int = 0, final: bool = True) -> int:
    """Parse ``chunks`` (bytes, in order) with ``parser``, the ``fed`` bytes before them parsed already;
    refuse a token longer than ``max_token`` bytes and a part that is not well-formed (see :func:`scan_xml`).
    ``final``: the part ends with them. Returns the bytes fed in all."""
    import xml.parsers.expat as expat

    try:
        for chunk in chunks:
            parser.Parse(chunk, False)
            fed += len(chunk)
            if fed - parser.CurrentByteIndex > max_token:
                place = where if where is not None else f"XML part {clip(part, 80)[1:-1]}"
                refuse(f"refused: {place} holds a tag, comment or processing instruction "
                       f"longer than {max_token:,} bytes, the limit", name, WorkbookLimitError)
        if final:
            parser.Parse(b"", True)
    except expat.ExpatError as exc:
        refuse(f"damaged workbook: XML part {clip(part, 80)[1:-1]} is not well-formed ({expat.ErrorString(exc.code)})",
               name)
    return fed


def check_deadline(deadline: float | None, seconds: float, part: str, name: str | None) -> None:
    """Refuse the file when the check's ``deadline`` (``time.monotonic()``; None: none) is past, naming the zip
    member ``part`` being read and the limit of ``seconds``.

    >>> check_deadline(None, 5, "xl/workbook.xml", "b.xlsx")
    >>> try:
    ...     check_deadline(0.0, 5, "xl/workbook.xml", "b.xlsx")
    ... except WorkbookError as err:
    ...     print(err)
    b.xlsx: refused: checking the file took longer than the limit of 5 s (at zip member xl/workbook.xml)
    """
    if deadline is not None and time.monotonic() >= deadline:
        refuse(f"refused: checking the file took longer than the limit of {seconds:g} s "
               f"(at zip member {clip(part, 80)[1:-1]})", name, WorkbookLimitError)


class BoundedReader(io.RawIOBase):
    """A read-only stream over a zip member that refuses to yield more than ``limit`` bytes."""

    def __init__(self, raw: Any, limit: int, part: str, name: str | None, deadline: float | None = None,
                 seconds: float = 0.0) -> None:
        self._raw, self._left, self._part, self._name = raw, limit, part, name
        self._deadline, self._seconds = deadline, seconds

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        check_deadline(self._deadline, self._seconds, self._part, self._name)
        data = self._raw.read(min(len(b), self._left + 1))
        if len(data) > self._left:
            refuse(f"refused: zip member {clip(self._part, 80)[1:-1]} inflates past its declared size (zip bomb?)",
                    self._name)
        self._left -= len(data)
        b[: len(data)] = data
        return len(data)
