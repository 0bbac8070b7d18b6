"""Refuse hostile or broken workbook files before anything parses them, and bound every run.

:func:`check_workbook` is run by ``xlbridge recalc`` (and by :func:`xlbridge.batch.recalc.recalc_workbook`)
before the formula engine or openpyxl sees the file. It reads only the zip's central directory
first, so a zip bomb is refused from its *declared* sizes before a byte is decompressed; then it
streams every member through a size-bounded reader (so a member that inflates past its declared size
or fails its CRC is caught) and every XML part through defusedxml with DTDs forbidden (so entity
bombs "billion laughs" and external entities XXE are refused; OOXML never needs a DTD). While the
XML streams, cells, rows, shared strings, style records, defined names and the length of every
formula are counted against :class:`SafetyLimits` (the whole work of a run is bounded before it
starts), and the package structure is checked: every relationship target inside the package and
present, external targets only for hyperlinks and links to other workbooks (which are never
followed), every sheet listed in the workbook present, sheet names valid.

The other guards of a run live here too, each a small function of its own so that they survive a
change of formula engine:

- :func:`open_regular_file` / :func:`snapshot_file`: a FIFO, device, folder or a symlink to one is
  refused at once (``os.stat`` first, then ``open`` with ``O_NONBLOCK`` and ``fstat`` of the open
  file); the run then works on a private snapshot, so the file cannot change under it.
- :func:`private_tempdir` and :func:`remove_stale_leftovers`: temporary folders named
  ``xlbridge-recalc-PID-*`` (and output temporaries ``.xlbridge-PID-*.tmp``), removed on every exit the
  process survives; those of a killed run (process gone, older than an hour, ours) by the next run.
- :class:`BookLock`: ``fcntl.flock`` on a sibling lock file ``.BOOK.xlbridge-lock`` serialises runs
  writing one book; the lock file is removed again.
- :func:`write_atomic`: a temporary file in the destination folder, fsynced, given the umask's mode
  (or the replaced file's mode and owner), renamed over the destination; removed on any failure.
- :func:`clip` and :func:`one_line`: every message is one line and shows long values clipped.

Every refusal raises :class:`xlbridge.errors.WorkbookError` (a :class:`xlbridge.errors.WorkbookLimitError`
when a limit is the reason) with a one-line message. Memory and time of the formula engine itself are
bounded by :func:`xlbridge.batch.recalc.recalc_workbook`, which runs it in a child process
(:class:`xlbridge.batch.child.ChildProcess`).

>>> import io, zipfile
>>> buf = io.BytesIO(b"just some text, not a workbook")
>>> try:
...     check_workbook(buf, name="notes.xlsx")
... except WorkbookError as err:
...     print(err)
notes.xlsx: not an Excel workbook (not a zip file; it starts with b'just som')
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import io
import math
import os
import posixpath
import re
import shutil
import stat
import tempfile
import time
import urllib.parse
import zipfile

from ..core.errors import WorkbookLimitError, WorkbookError

__all__ = [
    "SafetyLimits",
    "WorkbookInfo",
    "check_workbook",
    "DEFAULT_LIMITS",
    "EXCEL_MAX_TEXT",
    "EXCEL_MAX_ROWS",
    "EXCEL_MAX_COLUMNS",
    "clip",
    "one_line",
    "scrub_paths",
    "check_regular_file",
    "open_regular_file",
    "snapshot_file",
    "private_tempdir",
    "remove_stale_leftovers",
    "BookLock",
    "write_atomic",
    "umask_mode",
    "TEMP_PREFIX",
]

_CFB_SIGNATURE = bytes.fromhex("D0CF11E0A1B11AE1")
_ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06")  # local file header; empty archive
_XML_SUFFIXES = (".xml", ".rels", ".vml")
_MiB = 1 << 20

EXCEL_MAX_TEXT = 32_767  # characters in one cell (Excel specifications and limits)
EXCEL_MAX_ROWS = 1_048_576
EXCEL_MAX_COLUMNS = 16_384
_MAX_XML_DEPTH = 256  # OOXML parts nest a dozen levels deep; a thousand-level part is an attack on parsers
TEMP_PREFIX = "xlbridge-recalc-"
STALE_SECONDS = 3600.0  # leftovers of a killed run are removed when their process is gone and older than this


# --------------------------------------------------------------------------------------------------
# messages


def clip(value, width: int = 40) -> str:
    """Return ``repr`` of ``value`` (as text), clipped to ``width`` characters with its length when longer.

    Every value from a file or a command line shown in a message goes through this, so a message stays
    one short line whatever the file holds.

    >>> clip("Travellers")
    "'Travellers'"
    >>> clip("1e" + "9" * 999_998, width=6)
    "'1e9999…' (1,000,000 characters)"
    >>> clip("two\\nlines")
    "'two\\\\nlines'"
    """
    text = value if isinstance(value, str) else str(value)
    if len(text) <= width:
        return repr(text)
    shown = repr(text[:width])
    return f"{shown[:-1]}…{shown[-1]} ({len(text):,} characters)"


_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")


def one_line(text, limit: int = 400) -> str:
    """Return ``text`` as one line (line breaks and control characters become one space), at most ``limit`` characters.

    >>> one_line("first\\n  second")
    'first second'
    >>> one_line("x" * 1000, limit=20)
    'xxxxxxxxxxxxxxxxxxxx… (1,000 characters)'
    """
    text = _CONTROL.sub(" ", str(text))
    text = re.sub(r" {2,}", " ", text).strip()
    if len(text) > limit:
        text = f"{text[:limit]}… ({len(text):,} characters)"
    return text


def scrub_paths(text: str, replacements: dict) -> str:
    """Replace private paths (keys) in ``text`` by what the user may see (values), longest first.

    >>> scrub_paths("cannot open /tmp/xlbridge-recalc-1-x/workbook.xlsx", {"/tmp/xlbridge-recalc-1-x/workbook.xlsx": "a.xlsx"})
    'cannot open a.xlsx'
    """
    for private in sorted(replacements, key=len, reverse=True):
        if private:
            text = text.replace(private, replacements[private])
    return text


def _refuse(message: str, name: str | None, cls=WorkbookError):
    raise cls(one_line(message, 600), where=None if name is None else one_line(name, 120))


# --------------------------------------------------------------------------------------------------
# limits


def _check_limit(field: str, value, *, low=1, high=None, integer=True) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"SafetyLimits.{field} must be a number, not {clip(value)}")
    if integer and not float(value).is_integer():
        raise ValueError(f"SafetyLimits.{field} must be a whole number, not {value!r}")
    if not math.isfinite(value) or value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise ValueError(f"SafetyLimits.{field} must be a finite number {bound}, not {value!r}")


@dataclasses.dataclass(frozen=True)
class SafetyLimits:
    """Limits a workbook must respect before it is parsed (defaults in brackets).

    File and zip:

    - ``max_file_size``: size of the file on disk [256 MiB].
    - ``max_members``: number of zip members [10,000].
    - ``max_total_uncompressed``: sum of the members' declared uncompressed sizes [1 GiB].
    - ``max_member_uncompressed``: one member's declared uncompressed size [512 MiB].
    - ``max_ratio``: declared uncompressed / compressed size of one member [200], checked for
      members larger than ``ratio_floor`` [1 MiB] (tiny parts legitimately compress very well;
      real worksheets compress 5-30 times, a zip bomb a thousand times or more).

    Contents, counted while the XML streams (so the parent process never builds more than this):

    - ``max_cells``: ``<c>`` elements of all worksheets plus cached cells of links to other
      workbooks [1,000,000] (the parent needs about 0.5 KB and 12 µs per cell to scan them).
    - ``max_rows``: ``<row>`` elements of all worksheets [1,048,576, one full Excel sheet].
    - ``max_shared_strings``: ``<si>`` items of the shared-string table [1,000,000].
    - ``max_styles``: style records of ``styles.xml`` (``xf``, ``dxf``, ``font``, ``fill``, ``border``,
      ``numFmt``, ``cellStyle``) [100,000; Excel itself allows 65,490 cell formats].
    - ``max_formula_length``: characters of one formula or defined name [8,192, Excel's limit].
    - ``max_defined_names``: defined names [10,000].
    - ``max_formula_cells``: formula cells plus cells covered by array-formula ranges, over all
      sheets [5,000,000] (an array formula claiming ``A1:XFD1048576`` would otherwise make the
      writer fill 17 billion cells).

    The formula engine (a child process):

    - ``max_memory``: address-space limit of the formula-engine process in bytes [4 GiB] (Linux/macOS).
    - ``max_seconds``: wall-clock limit of the formula engine [600 s]; the streamed checks of
      :func:`check_workbook` have the same limit of their own (checked every 64 KiB read), and so
      has the wait for another run holding the book's lock.

    Every field is validated: a whole number of at least 1 (``max_seconds``: a finite number of at
    least 0), so no value can switch a limit off.

    >>> SafetyLimits().max_ratio
    200
    >>> SafetyLimits(max_seconds=30).max_seconds
    30
    >>> SafetyLimits(max_memory=0)
    Traceback (most recent call last):
    ...
    ValueError: SafetyLimits.max_memory must be a finite number at least 1, not 0
    """

    max_file_size: int = 256 * _MiB
    max_members: int = 10_000
    max_total_uncompressed: int = 1024 * _MiB
    max_member_uncompressed: int = 512 * _MiB
    max_ratio: int = 200
    ratio_floor: int = 1 * _MiB
    max_formula_cells: int = 5_000_000
    max_memory: int = 4096 * _MiB
    max_seconds: float = 600.0
    max_cells: int = 1_000_000
    max_rows: int = EXCEL_MAX_ROWS
    max_shared_strings: int = 1_000_000
    max_styles: int = 100_000
    max_formula_length: int = 8_192
    max_defined_names: int = 10_000

    def __post_init__(self):
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.name == "max_seconds":
                _check_limit(field.name, value, low=0, integer=False)
            else:
                _check_limit(field.name, value)


DEFAULT_LIMITS = SafetyLimits()


@dataclasses.dataclass(frozen=True)
class WorkbookInfo:
    """What the checks learnt: member names in order, whether there is a VBA project, sizes and counts.

    ``sheets``: ((sheet name, worksheet part), ...) in workbook order (chartsheets left out);
    ``external_links``: the externalLink parts in the order of ``<externalReference>`` (link 1 first);
    ``cells``, ``rows``, ``shared_strings``, ``styles``: the streamed counts; ``cell_formats``: the
    ``<xf>`` of ``<cellXfs>`` in ``xl/styles.xml`` (a cell's ``s`` must be below it), None without that part.

    >>> WorkbookInfo(members=("a.xml",), has_vba=False, total_uncompressed=10).has_vba
    False
    """

    members: tuple[str, ...]
    has_vba: bool
    total_uncompressed: int
    sheets: tuple[tuple[str, str], ...] = ()
    external_links: tuple[str, ...] = ()
    cells: int = 0
    rows: int = 0
    shared_strings: int = 0
    styles: int = 0
    cell_formats: int | None = None


# --------------------------------------------------------------------------------------------------
# streaming checks of the XML parts


_STYLE_RECORDS = frozenset({"xf", "dxf", "font", "fill", "border", "numFmt", "cellStyle"})
_EXTERNAL_OK = ("/hyperlink", "/externalLinkPath", "/xlExternalLinkPath/xlPathMissing",
                "/xlExternalLinkPath/xlStartup", "/xlExternalLinkPath/xlAlternateStartup",
                "/xlExternalLinkPath/xlLibrary")
_SHEET_TYPES = ("/worksheet", "/chartsheet", "/dialogsheet", "/xlMacrosheet", "/xlIntlMacrosheet")
_BAD_SHEET_NAME = re.compile(r"[\[\]:*?/\\\x00-\x1f]")


class _Totals:
    """Counts over all parts of one workbook, and what the package checks need."""

    def __init__(self):
        self.cells = self.rows = self.shared_strings = self.styles = self.names = 0
        self.cell_formats = None  # <xf> in <cellXfs> of xl/styles.xml (the part openpyxl reads), None: no part
        self.rels: dict = {}  # rels part -> [(Id, Type, Target, TargetMode)]
        self.sheets: list = []  # (name, r:id) from workbook.xml
        self.ext_refs: list = []  # r:id of <externalReference>, in order
        self.overrides: list = []  # (PartName, ContentType) from [Content_Types].xml


def _local(name: str) -> str:
    return name.rsplit(":", 1)[-1]


def _rel_id(attrs) -> str | None:
    """The ``r:id`` attribute whatever its prefix (SAX without namespaces gives qualified names)."""
    for key in attrs.getNames():
        if ":" in key and _local(key) == "id":
            return attrs.getValue(key)
    return None


def _counting_handler(part: str, where: str, totals: _Totals, limits: SafetyLimits, name: str | None):
    """A SAX content handler counting what ``part`` holds against ``limits`` (its kind decided by its root)."""
    from xml.sax.handler import ContentHandler

    def over(what: str, limit: int):
        _refuse(f"refused: more than {limit:,} {what}, the limit (reached in {where})", name, WorkbookLimitError)

    class Counter(ContentHandler):
        def __init__(self):
            super().__init__()
            self.kind = None
            self.depth = 0
            self.formula = None  # characters of the formula or defined name being read, or None
            self.cell = "?"
            self.cell_xfs = False
            self.text = None  # characters of the cell text (<is>) or shared string (<si>) being read
            self.in_t = False  # inside a <t> of that text (not of a phonetic run <rPh>)
            self.phonetic = False

        def startElement(self, tag, attrs):
            self.depth += 1
            if self.depth > _MAX_XML_DEPTH:
                _refuse(f"refused: XML part {clip(part, 80)} nests elements more than {_MAX_XML_DEPTH} deep", name,
                        WorkbookLimitError)
            local = _local(tag)
            if self.kind is None:
                self.kind = local
            kind = self.kind
            if self.text is not None:
                if local == "rPh":
                    self.phonetic = True
                elif local == "t" and not self.phonetic:
                    self.in_t = True
            if local == "is" and kind in ("worksheet", "macrosheet", "dialogsheet") or local == "si" and kind == "sst":
                self.text = 0
            if kind in ("worksheet", "macrosheet", "dialogsheet"):
                if local == "c":
                    totals.cells += 1
                    self.cell = attrs.get("r", "?")
                    if totals.cells > limits.max_cells:
                        over("cells", limits.max_cells)
                elif local == "row":
                    totals.rows += 1
                    if totals.rows > limits.max_rows:
                        over("rows", limits.max_rows)
                elif local == "f":
                    self.formula = 0
                elif local == "col":
                    _check_col(attrs, where, name)
            elif kind == "sst" and local == "si":
                totals.shared_strings += 1
                if totals.shared_strings > limits.max_shared_strings:
                    over("shared strings", limits.max_shared_strings)
            elif kind == "styleSheet":
                if local == "cellXfs" and part == "xl/styles.xml":
                    self.cell_xfs = True
                    totals.cell_formats = 0
                elif local == "xf" and self.cell_xfs:
                    totals.cell_formats += 1
                if local in _STYLE_RECORDS:
                    totals.styles += 1
                    if totals.styles > limits.max_styles:
                        over("style records", limits.max_styles)
            elif kind == "externalLink" and local == "cell":
                totals.cells += 1
                if totals.cells > limits.max_cells:
                    over("cells (counting the cached cells of links to other workbooks)", limits.max_cells)
            elif kind == "workbook":
                if local == "definedName":
                    totals.names += 1
                    self.formula = 0
                    self.cell = "defined name " + clip(attrs.get("name", "?"), 40)
                    if totals.names > limits.max_defined_names:
                        over("defined names", limits.max_defined_names)
                elif local == "sheet":
                    sheet_id = attrs.get("sheetId")
                    if sheet_id is not None and not (sheet_id.isascii() and sheet_id.isdigit()
                                                     and 1 <= int(sheet_id) < 2 ** 31):
                        _refuse(f"damaged workbook: sheet {clip(attrs.get('name', '?'), 40)[1:-1]}: sheet id "
                                f"{clip(sheet_id)} is not a whole number from 1 to 2,147,483,647", name)
                    totals.sheets.append((attrs.get("name"), _rel_id(attrs)))
                elif local == "externalReference":
                    totals.ext_refs.append(_rel_id(attrs))
            elif kind == "Relationships" and local == "Relationship":
                totals.rels.setdefault(part, []).append(
                    (attrs.get("Id"), attrs.get("Type", ""), attrs.get("Target"), attrs.get("TargetMode")))
            elif kind == "Types" and local == "Override":
                totals.overrides.append((attrs.get("PartName", ""), attrs.get("ContentType", "")))

        def endElement(self, tag):
            self.depth -= 1
            if self.cell_xfs and _local(tag) == "cellXfs":
                self.cell_xfs = False
            if self.formula is not None and _local(tag) in ("f", "definedName"):
                self.formula = None
            local = _local(tag)
            if local == "t":
                self.in_t = False
            elif local == "rPh":
                self.phonetic = False
            elif local in ("is", "si"):
                self.text = None

        def characters(self, content):
            if self.in_t and self.text is not None:
                self.text += len(content)
                if self.text > EXCEL_MAX_TEXT:
                    what = (f"{where}, cell {clip(self.cell, 12)}" if self.kind != "sst"
                            else f"shared string {totals.shared_strings:,}")
                    _refuse(f"damaged workbook: {what}: a text longer than {EXCEL_MAX_TEXT:,} characters, "
                            f"Excel's limit for one cell", name)
            if self.formula is not None:
                self.formula += len(content)
                if self.formula > limits.max_formula_length:
                    cell = self.cell if self.cell.startswith("defined name") else f"cell {clip(self.cell, 12)}"
                    _refuse(f"refused: {where}, {cell}: a formula longer than {limits.max_formula_length:,} "
                            f"characters, the limit", name, WorkbookLimitError)

    return Counter()


def _check_col(attrs, where: str, name: str | None) -> None:
    """A ``<col>`` (column widths): ``min``/``max`` whole numbers 1 to 16,384 in order, ``width`` 0 to 255.

    Excel "repairs" a file whose column record is out of these bounds, so it is refused here.

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
        if v is None or not (v.isascii() and v.isdigit() and 1 <= int(v) <= 16_384):
            _refuse(f"damaged workbook: {where}: column record {key}={clip(v)} is not a whole number from 1 to "
                    f"16,384", name)
        bounds.append(int(v))
    if bounds[0] > bounds[1]:
        _refuse(f"damaged workbook: {where}: column record min={bounds[0]} is after max={bounds[1]}", name)
    width = attrs.get("width")
    if width is not None:
        try:
            w = float(width) if len(width) <= 40 else math.inf
        except ValueError:
            w = math.nan
        if not 0 <= w <= 255:
            _refuse(f"damaged workbook: {where}: column width {clip(width)} is not a number from 0 to 255", name)


def _scan_xml(stream, part: str, name: str | None, handler=None) -> None:
    """Parse one XML part with defusedxml (DTD, entities and external references forbidden)."""
    import defusedxml.sax
    from defusedxml import DefusedXmlException
    from xml.sax import SAXException
    from xml.sax.handler import ContentHandler

    try:
        defusedxml.sax.parse(stream, handler or ContentHandler(), forbid_dtd=True, forbid_entities=True,
                             forbid_external=True)
    except DefusedXmlException as exc:
        kind = type(exc).__name__
        what = {
            "DTDForbidden": "a DTD (document type declaration; used by entity bombs and external entities)",
            "EntitiesForbidden": "an entity declaration (entity bomb)",
            "ExternalReferenceForbidden": "an external entity reference (XXE)",
        }.get(kind, kind)
        _refuse(f"refused: XML part {clip(part, 80)[1:-1]} contains {what}", name)
    except SAXException as exc:
        _refuse(f"damaged workbook: XML part {clip(part, 80)[1:-1]} is not well-formed ({exc.getMessage()})", name)


class _BoundedReader(io.RawIOBase):
    """A read-only stream over a zip member that refuses to yield more than ``limit`` bytes."""

    def __init__(self, raw, limit: int, part: str, name: str | None, deadline: float | None = None,
                 seconds: float = 0.0):
        self._raw, self._left, self._part, self._name = raw, limit, part, name
        self._deadline, self._seconds = deadline, seconds

    def readable(self):
        return True

    def readinto(self, b):
        if self._deadline is not None and time.monotonic() >= self._deadline:
            _refuse(f"refused: checking the file took longer than the limit of {self._seconds:g} s "
                    f"(at zip member {clip(self._part, 80)[1:-1]})", self._name, WorkbookLimitError)
        data = self._raw.read(min(len(b), self._left + 1))
        if len(data) > self._left:
            _refuse(f"refused: zip member {clip(self._part, 80)[1:-1]} inflates past its declared size (zip bomb?)",
                    self._name)
        self._left -= len(data)
        b[: len(data)] = data
        return len(data)


# --------------------------------------------------------------------------------------------------
# special files


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _stat_regular(path, name: str | None) -> os.stat_result:
    """``os.stat`` of ``path`` (a symlink followed), refusing anything but a regular file."""
    path = os.fspath(path)
    name = os.path.basename(path) if name is None else name
    try:
        st = os.stat(path)
    except OSError as exc:
        _refuse(f"cannot read the file ({exc.strerror or type(exc).__name__})", name)
    if not stat.S_ISREG(st.st_mode):
        _refuse(f"refused: this is {_kind_of(st.st_mode)}, not a workbook file", name)
    return st


def check_regular_file(path, name: str | None = None) -> None:
    """Refuse ``path`` at once unless it is a regular file (or a symlink to one); nothing is opened.

    >>> try:
    ...     check_regular_file("/", "root.xlsx")
    ... except WorkbookError as err:
    ...     print(err)
    root.xlsx: refused: this is a folder, not a workbook file
    """
    _stat_regular(path, name)


def open_regular_file(path, name: str | None = None) -> int:
    """Open ``path`` for reading and return the descriptor; refuse anything but a regular file, at once.

    ``os.stat`` first (a symlink is followed: a link to a regular file is fine, one to a FIFO, device
    or folder is refused), then ``open`` with ``O_NONBLOCK`` (a FIFO swapped in meanwhile cannot block)
    and ``fstat`` of the open descriptor (it must be that same regular file).

    >>> try:
    ...     open_regular_file("/dev/null", "null.xlsx")
    ... except WorkbookError as err:
    ...     print(err)
    null.xlsx: refused: this is a device, not a workbook file
    """
    path = os.fspath(path)
    name = os.path.basename(path) if name is None else name
    st = _stat_regular(path, name)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        _refuse(f"cannot read the file ({exc.strerror or type(exc).__name__})", name)
    try:
        fst = os.fstat(fd)
        if not stat.S_ISREG(fst.st_mode) or (fst.st_dev, fst.st_ino) != (st.st_dev, st.st_ino):
            _refuse("refused: the file changed while it was being opened", name)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def snapshot_file(path, dest, *, limits: SafetyLimits | None = None, name: str | None = None) -> os.stat_result:
    """Copy the regular file ``path`` to ``dest`` (a new private file), refusing it past ``max_file_size``.

    The run then reads only the snapshot: whatever happens to ``path`` meanwhile cannot change what is
    checked, evaluated and written. Returns the ``stat`` of the source (its mode and owner are what
    ``--in-place`` keeps).
    """
    limits = DEFAULT_LIMITS if limits is None else limits
    fd = open_regular_file(path, name)
    with os.fdopen(fd, "rb") as src:
        st = os.fstat(src.fileno())
        if st.st_size > limits.max_file_size:
            _refuse(f"refused: file is {st.st_size} bytes, more than the limit of {limits.max_file_size}", name,
                    WorkbookLimitError)
        out_fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        with os.fdopen(out_fd, "wb") as out:
            copied = 0
            while True:
                chunk = src.read(1 << 20)
                if not chunk:
                    break
                copied += len(chunk)
                if copied > limits.max_file_size:
                    _refuse(f"refused: file is more than the limit of {limits.max_file_size} bytes", name,
                            WorkbookLimitError)
                out.write(chunk)
    return st


# --------------------------------------------------------------------------------------------------
# the checks


def check_workbook(source, *, limits: SafetyLimits | None = None, name: str | None = None) -> WorkbookInfo:
    """Check that ``source`` (a path or binary file object) is a sane .xlsx/.xlsm; raise WorkbookError if not.

    Order: special files (a path must be a regular file: :func:`open_regular_file`); file size;
    signature (an OLE2/CFB file, signature D0 CF 11 E0, is a password-protected OOXML file or a
    legacy .xls: refused with that explanation); the zip's central directory (a truncated or damaged
    zip is refused); member count, declared sizes and compression ratios (zip bombs refused before
    decompressing); encrypted members; the parts every workbook has; then every member is read
    through a bounded stream (CRC checked) and every XML part parsed by defusedxml with DTDs
    forbidden, counting cells, rows, shared strings, style records, defined names and formula
    lengths against ``limits`` as it streams (``xl/workbook.xml`` and its relationships first, so a
    message can name the sheet); finally the package checks (relationships, sheets, main part).
    Nothing is executed: a ``vbaProject.bin`` is only read to check its CRC.

    >>> import io, zipfile
    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w") as z:
    ...     z.writestr("[Content_Types].xml", "<Types/>")
    ...     z.writestr("xl/workbook.xml", "<workbook/>")
    >>> check_workbook(buf).members
    ('[Content_Types].xml', 'xl/workbook.xml')
    >>> buf2 = io.BytesIO(buf.getvalue()[:40])
    >>> try:
    ...     check_workbook(buf2, name="cut.xlsx")
    ... except WorkbookError as err:
    ...     print(err)
    cut.xlsx: damaged workbook: truncated or corrupt zip file (File is not a zip file)
    """
    limits = DEFAULT_LIMITS if limits is None else limits
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        name = name if name is not None else os.path.basename(path)
        fd = open_regular_file(path, name)
        with os.fdopen(fd, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > limits.max_file_size:
                _refuse(f"refused: file is {size} bytes, more than the limit of {limits.max_file_size}", name,
                        WorkbookLimitError)
            try:
                return _check_stream(fh, limits, name)
            except OSError as exc:
                _refuse(f"cannot read the file ({exc.strerror or type(exc).__name__})", name)
    return _check_stream(source, limits, name)


def _check_stream(fh, limits: SafetyLimits, name: str | None) -> WorkbookInfo:
    deadline = time.monotonic() + limits.max_seconds
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    if size > limits.max_file_size:
        _refuse(f"refused: file is {size} bytes, more than the limit of {limits.max_file_size}", name, WorkbookLimitError)
    fh.seek(0)
    head = fh.read(8)
    if head == _CFB_SIGNATURE:
        _refuse("refused: this is an OLE2/CFB file, i.e. a password-protected (encrypted) workbook or a "
                "legacy .xls; remove the password or save it as .xlsx in Excel first", name)
    if size == 0:
        _refuse("not an Excel workbook (the file is empty)", name)
    if head[:4] not in _ZIP_SIGNATURES:
        _refuse(f"not an Excel workbook (not a zip file; it starts with {head!r})", name)
    fh.seek(0)
    try:
        zf = zipfile.ZipFile(fh)
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError) as exc:
        _refuse(f"damaged workbook: truncated or corrupt zip file ({exc})", name)
    with zf:
        infos = zf.infolist()
        if len(infos) > limits.max_members:
            _refuse(f"refused: {len(infos)} zip members, more than the limit of {limits.max_members}", name,
                    WorkbookLimitError)
        names = [i.filename for i in infos]
        if len(set(names)) != len(names):
            seen: set = set()
            dup = next(n for n in names if n in seen or seen.add(n))
            _refuse(f"damaged workbook: zip member {clip(dup, 80)[1:-1]} appears twice", name)
        total = 0
        for info in infos:
            part = clip(info.filename, 80)[1:-1]
            if info.flag_bits & 0x1:
                _refuse(f"refused: zip member {part} is encrypted", name)
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                _refuse(f"refused: zip member {part} uses unsupported compression method {info.compress_type}",
                        name)
            if info.file_size > limits.max_member_uncompressed:
                _refuse(f"refused: zip member {part} declares {info.file_size} bytes uncompressed, more than "
                        f"the limit of {limits.max_member_uncompressed} (zip bomb?)", name, WorkbookLimitError)
            total += info.file_size
            if total > limits.max_total_uncompressed:
                _refuse(f"refused: members declare more than {limits.max_total_uncompressed} bytes "
                        f"uncompressed in total (zip bomb?)", name, WorkbookLimitError)
            if info.file_size > limits.ratio_floor:
                ratio = info.file_size / max(info.compress_size, 1)
                if ratio > limits.max_ratio:
                    _refuse(f"refused: zip member {part} has compression ratio {ratio:.0f}:1, more than the "
                            f"limit of {limits.max_ratio}:1 (zip bomb?)", name, WorkbookLimitError)
        lower = {n.lower() for n in names}
        if "xl/workbook.bin" in lower:
            _refuse("refused: a binary workbook (.xlsb) is not supported; save it as .xlsx in Excel", name)
        if "[content_types].xml" not in lower or "xl/workbook.xml" not in lower:
            _refuse("not an Excel workbook (a zip file without [Content_Types].xml and xl/workbook.xml; "
                    "a .docx, .ods or plain archive?)", name)
        totals = _Totals()
        sheet_names: dict = {}
        first = [i for i in infos if i.filename in ("xl/workbook.xml", "xl/_rels/workbook.xml.rels")]
        ordered = first + [i for i in infos if i not in first]
        for index, info in enumerate(ordered):
            if index == len(first):  # the workbook and its relationships are read: sheets can be named
                sheet_names = _sheet_part_names(totals)
            part = info.filename
            if part.endswith("/"):
                continue
            sheet = sheet_names.get(part)
            where = f"sheet {clip(sheet, 40)[1:-1]}" if sheet is not None else f"XML part {clip(part, 80)[1:-1]}"
            try:
                with zf.open(info) as raw:
                    stream = io.BufferedReader(
                        _BoundedReader(raw, info.file_size, part, name, deadline, limits.max_seconds), 1 << 16)
                    if part.lower().endswith(_XML_SUFFIXES):
                        _scan_xml(stream, part, name, _counting_handler(part, where, totals, limits, name))
                    else:
                        while stream.read(1 << 16):
                            pass
                    while raw.read(1 << 16):  # whatever the XML parser left: read to the end, CRC checked
                        pass
            except (WorkbookError, ImportError):  # a missing defusedxml is not a damaged workbook
                raise
            except Exception as exc:  # BadZipFile (CRC), EOFError (truncated), zlib.error (corrupt deflate)
                why = ("it is cut short" if isinstance(exc, EOFError) else
                       "its compressed data is damaged" if type(exc).__module__ == "zlib" else
                       "its checksum does not match its data" if "CRC" in str(exc) else
                       "its zip record is damaged")
                _refuse(f"damaged workbook: zip member {clip(part, 80)[1:-1]} cannot be read ({why})", name)
        sheets, links = _check_package(set(names), totals, name)
        has_vba = any(n.lower().endswith("vbaproject.bin") for n in names)
        return WorkbookInfo(members=tuple(names), has_vba=has_vba, total_uncompressed=total, sheets=sheets,
                            external_links=links, cells=totals.cells, rows=totals.rows,
                            shared_strings=totals.shared_strings, styles=totals.styles,
                            cell_formats=totals.cell_formats if "xl/styles.xml" in names else None)


def _resolve_target(rels_part: str, target: str) -> str | None:
    """The zip member a relationship target names, or None when it leaves the package.

    >>> _resolve_target("xl/_rels/workbook.xml.rels", "worksheets/sheet1.xml")
    'xl/worksheets/sheet1.xml'
    >>> _resolve_target("xl/_rels/workbook.xml.rels", "/xl/styles.xml")
    'xl/styles.xml'
    >>> _resolve_target("xl/worksheets/_rels/sheet1.xml.rels", "../../../../etc/passwd") is None
    True
    """
    folder = posixpath.dirname(posixpath.dirname(rels_part))  # the folder of the source part
    target = urllib.parse.unquote(target.split("#", 1)[0])
    joined = target[1:] if target.startswith("/") else posixpath.join(folder, target)
    norm = posixpath.normpath(joined) if joined else "."
    if norm in (".", "..") or norm.startswith("../") or norm.startswith("/") or "\\" in norm:
        return None
    return norm


def _sheet_part_names(totals: _Totals) -> dict:
    rels = {rid: (typ, target) for rid, typ, target, _ in totals.rels.get("xl/_rels/workbook.xml.rels", ())}
    out = {}
    for sheet, rid in totals.sheets:
        typ, target = rels.get(rid, ("", None))
        if target is not None and typ.endswith("/worksheet"):
            part = _resolve_target("xl/_rels/workbook.xml.rels", target)
            if part is not None and sheet is not None:
                out[part] = sheet
    return out


def _check_package(members: set, totals: _Totals, name: str | None):
    """Relationships, sheets and the main part; return ((sheet, part), ...) and the externalLink parts."""
    for rels_part, rels in totals.rels.items():
        folder = posixpath.dirname(rels_part)
        if posixpath.basename(folder) != "_rels" or not rels_part.endswith(".rels"):
            continue  # not a relationships part of the package (nothing reads it)
        source = posixpath.join(posixpath.dirname(folder), posixpath.basename(rels_part)[: -len(".rels")])
        if rels_part != "_rels/.rels" and source not in members:
            continue  # relationships of a part that is not there: nothing follows them
        for rid, typ, target, mode in rels:
            shown = f"relationship {clip(rid or '?', 20)} of {clip(rels_part, 60)[1:-1]}"
            if target is None:
                _refuse(f"damaged workbook: {shown} has no target", name)
            if mode == "External":
                if not typ.endswith(_EXTERNAL_OK):
                    _refuse(f"refused: {shown} points outside the package ({clip(target, 60)}); only hyperlinks "
                            f"and links to other workbooks may, and those are never followed", name)
                continue
            part = _resolve_target(rels_part, target)
            if part is None:
                _refuse(f"refused: {shown} points outside the package ({clip(target, 60)})", name)
            if part not in members:
                _refuse(f"damaged workbook: {shown} points at {clip(part, 60)}, which is missing", name)
    main = [p for p, ct in totals.overrides
            if ct.endswith(".main+xml") and ("spreadsheetml" in ct or "ms-excel" in ct)]
    for partname in main:
        if urllib.parse.unquote(partname).lstrip("/") != "xl/workbook.xml":
            _refuse(f"refused: the workbook's main part is {clip(partname, 60)}, not /xl/workbook.xml", name)
    rels = {rid: (typ, target) for rid, typ, target, _ in totals.rels.get("xl/_rels/workbook.xml.rels", ())}
    sheets, seen = [], set()
    for sheet, rid in totals.sheets:
        if not sheet or len(sheet) > 31 or _BAD_SHEET_NAME.search(sheet) or sheet.startswith("'") \
                or sheet.endswith("'"):
            _refuse(f"damaged workbook: {clip(sheet or '', 40)} is not a valid sheet name", name)
        if sheet.upper() in seen:
            _refuse(f"damaged workbook: two sheets are named {clip(sheet, 40)}", name)
        seen.add(sheet.upper())
        typ, target = rels.get(rid, ("", None))
        if target is None:
            _refuse(f"damaged workbook: sheet {clip(sheet, 40)} has no part (relationship {clip(rid or '?', 20)} "
                    f"is missing)", name)
        if not typ.endswith(_SHEET_TYPES):
            _refuse(f"damaged workbook: sheet {clip(sheet, 40)} points at a part that is not a sheet", name)
        part = _resolve_target("xl/_rels/workbook.xml.rels", target)
        if part is None or part not in members:  # (an External target: refused above)
            _refuse(f"damaged workbook: the part of sheet {clip(sheet, 40)} is missing", name)
        if typ.endswith("/worksheet"):
            sheets.append((sheet, part))
    links = []
    for rid in totals.ext_refs:
        typ, target = rels.get(rid, ("", None))
        part = None if target is None else _resolve_target("xl/_rels/workbook.xml.rels", target)
        if part is None or part not in members or not typ.endswith("/externalLink"):
            _refuse(f"damaged workbook: link to another workbook {clip(rid or '?', 20)} has no part", name)
        links.append(part)
    return tuple(sheets), tuple(links)


# --------------------------------------------------------------------------------------------------
# temporary files, leftovers, locks, atomic writes


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return True
    return True


@contextlib.contextmanager
def private_tempdir():
    """A private temporary folder ``xlbridge-recalc-PID-XXXX`` (mode 0700), removed on every exit.

    The process id in the name lets :func:`remove_stale_leftovers` recognise the folder of a run that
    was killed (SIGKILL leaves it behind). Yields the folder's path.
    """
    folder = tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


_LEFTOVER_DIR = re.compile(re.escape(TEMP_PREFIX) + r"(\d+)-[A-Za-z0-9_]+$")
_LEFTOVER_TMP = re.compile(r"\.xlbridge-(\d+)-[A-Za-z0-9_]+\.tmp$")
_LOCK_SUFFIX = ".xlbridge-lock"


def remove_stale_leftovers(folders=(), *, min_age: float = STALE_SECONDS) -> list:
    """Remove what killed runs left behind; return the paths removed.

    In the temporary folder: ``xlbridge-recalc-PID-*`` folders; in each of ``folders`` (the
    destination folder of a run): ``.xlbridge-PID-*.tmp`` files. Only entries owned by this user,
    whose process PID no longer exists and that are older than ``min_age`` seconds are removed (a
    process id in another container may look dead: the age keeps a live run safe). Lock files
    ``.*.xlbridge-lock`` that nobody holds are removed too (under the lock, see :class:`BookLock`).
    Never raises.
    """
    removed = []
    now = time.time()
    uid = os.getuid() if hasattr(os, "getuid") else None

    def stale(path, pid):
        try:
            st = os.lstat(path)
        except OSError:
            return False
        return ((uid is None or st.st_uid == uid) and now - st.st_mtime >= min_age and pid != os.getpid()
                and not _pid_alive(pid))

    try:
        root = tempfile.gettempdir()
        for entry in os.scandir(root):
            m = _LEFTOVER_DIR.match(entry.name)
            if m and entry.is_dir(follow_symlinks=False) and stale(entry.path, int(m.group(1))):
                shutil.rmtree(entry.path, ignore_errors=True)
                removed.append(entry.path)
    except OSError:
        pass
    for folder in folders:
        try:
            entries = list(os.scandir(folder or "."))
        except OSError:
            continue
        for entry in entries:
            m = _LEFTOVER_TMP.match(entry.name)
            try:
                if m and entry.is_file(follow_symlinks=False) and stale(entry.path, int(m.group(1))):
                    os.unlink(entry.path)
                    removed.append(entry.path)
                elif (entry.name.startswith(".") and entry.name.endswith(_LOCK_SUFFIX)
                      and entry.is_file(follow_symlinks=False) and BookLock.remove_if_unused(entry.path)):
                    removed.append(entry.path)
            except OSError:
                pass
    return removed


class BookLock:
    """An exclusive ``fcntl.flock`` on ``.NAME.xlbridge-lock`` next to ``path``, serialising runs that write it.

    Waits up to ``timeout`` seconds for another run, then refuses. The lock file is removed on
    release, safely: a waiter that then gets the lock of a removed file notices (the path no longer
    names its open file) and locks the new file instead. Where ``fcntl`` does not exist (Windows) it
    does nothing.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> with BookLock(os.path.join(d, "pairs.xlsx")) as lock:
    ...     os.path.basename(lock.lock_path) in os.listdir(d)
    True
    >>> os.listdir(d)
    []
    >>> os.rmdir(d)
    """

    def __init__(self, path, timeout: float = 600.0, name: str | None = None):
        path = os.fspath(path)
        folder, base = os.path.split(os.path.abspath(path))
        self.lock_path = os.path.join(folder, f".{base}{_LOCK_SUFFIX}")
        self.timeout = timeout
        self.name = name if name is not None else base
        self._fd = None

    def __enter__(self):
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return self
        deadline = time.monotonic() + self.timeout
        while True:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
                         | getattr(os, "O_NOFOLLOW", 0), 0o600)
            try:
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except OSError as exc:
                        if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                            raise
                        if time.monotonic() >= deadline:
                            _refuse(f"refused: another xlbridge recalc is writing this book and did not finish "
                                    f"within {self.timeout:g} s", self.name, WorkbookLimitError)
                        time.sleep(0.05)
                try:
                    same = os.path.samestat(os.fstat(fd), os.stat(self.lock_path))
                except FileNotFoundError:
                    same = False
            except BaseException:
                os.close(fd)
                raise
            if same:
                self._fd = fd
                return self
            os.close(fd)  # the file was removed by the previous holder: lock the new one

    def __exit__(self, *exc):
        fd, self._fd = self._fd, None
        if fd is None:
            return False
        try:
            with contextlib.suppress(OSError):
                os.unlink(self.lock_path)
        finally:
            os.close(fd)  # closing releases the lock
        return False

    @staticmethod
    def remove_if_unused(lock_path: str) -> bool:
        """Remove ``lock_path`` if no run holds it (a leftover of a killed run); True if removed."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover
            return False
        try:
            fd = os.open(lock_path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.path.samestat(os.fstat(fd), os.stat(lock_path)):
                os.unlink(lock_path)
                return True
            return False
        except OSError:
            return False
        finally:
            os.close(fd)


def umask_mode(mode: int = 0o666) -> int:
    """``mode`` with the process's umask applied: what ``open(path, "w")`` would create.

    Reads the umask from ``/proc/self/status`` where possible (no race); otherwise sets and restores it.

    >>> umask_mode(0o666) & ~0o777
    0
    """
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return mode & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mode & ~mask


def write_atomic(dest, write, *, mode: int | None = None, owner: tuple | None = None,
                 before_replace=None) -> None:
    """Create ``dest`` atomically: ``write(binary file)`` fills a temporary file in the same folder.

    The temporary file ``.xlbridge-PID-XXXX.tmp`` is fsynced, given ``mode`` (default: the umask's
    mode for a new file, i.e. what any program creating the file would give it) and, when running as
    root, ``owner`` (uid, gid), then ``before_replace()`` runs if given (``--in-place`` writes the
    backup there, once the new file is complete), then it is renamed over ``dest`` (``os.replace``)
    and the folder fsynced. On any failure (including a signal turned into an exception) the
    temporary file is removed and ``dest`` is untouched.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> write_atomic(os.path.join(d, "a.bin"), lambda fh: fh.write(b"new"))
    >>> open(os.path.join(d, "a.bin"), "rb").read(), os.stat(os.path.join(d, "a.bin")).st_mode & 0o777 == umask_mode()
    (b'new', True)
    >>> def fail(fh):
    ...     raise OSError("disk full")
    >>> try:
    ...     write_atomic(os.path.join(d, "a.bin"), fail)
    ... except OSError as err:
    ...     print(err)
    disk full
    >>> os.listdir(d), open(os.path.join(d, "a.bin"), "rb").read()
    (['a.bin'], b'new')
    >>> import shutil; shutil.rmtree(d)
    """
    dest = os.fspath(dest)
    folder = os.path.dirname(os.path.abspath(dest))
    fd, tmp = tempfile.mkstemp(prefix=f".xlbridge-{os.getpid()}-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), umask_mode() if mode is None else mode)
            if owner is not None and hasattr(os, "geteuid") and os.geteuid() == 0:
                os.fchown(fh.fileno(), *owner)
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        if before_replace is not None:
            before_replace()
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    try:  # make the rename itself durable
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass
