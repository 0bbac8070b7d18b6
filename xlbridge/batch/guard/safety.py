"""Refuse hostile or broken workbook files before anything parses them, and bound every run.

:func:`check_workbook` is run by ``xlbridge recalc`` (and by :func:`xlbridge.batch.recalc.recalc_workbook`)
before the formula engine or openpyxl sees the file. It reads only the zip's central directory
first, so a zip bomb is refused from its *declared* sizes before a byte is decompressed; then it
streams every member through a size-bounded reader (so a member that inflates past its declared size
or fails its CRC is caught) and every XML part through expat with DTDs forbidden as defusedxml does (so entity
bombs "billion laughs" and external entities XXE are refused; OOXML never needs a DTD). While the
XML streams, cells, rows, shared strings, style records, defined names and the length of every
formula are counted against :class:`SafetyLimits` (the whole work of a run is bounded before it
starts), and the package structure is checked: every relationship target inside the package and
present, external targets only for hyperlinks and links to other workbooks (which are never
followed), every sheet listed in the workbook present, sheet names valid.

The other guards of a run live here too, each a small function of its own so that they survive a
change of formula engine:

- :func:`open_regular_file` / :func:`snapshot_file`: a FIFO, device, folder or symbolic link is
  refused at once (``os.lstat`` first, then ``open`` with ``O_NONBLOCK | O_NOFOLLOW`` and ``fstat`` of the
  open file: :func:`xlbridge.core.files.regular_stat`, :func:`~xlbridge.core.files.open_regular`); the run
  then works on a private snapshot, so the file cannot change under it.
- the limits and messages (:mod:`xlbridge.batch.guard.limits`), the XML scan (:mod:`xlbridge.batch.guard.xmlscan`) and
  the files of a run: temporary folders, leftovers, locks, atomic writes (:mod:`xlbridge.batch.guard.files`),
  whose public names are importable from here too.

Every refusal raises :class:`xlbridge.core.errors.WorkbookError` (a :class:`xlbridge.core.errors.WorkbookLimitError`
when a limit is the reason) with a one-line message. Memory and time of the formula engine itself are
bounded by :func:`xlbridge.batch.recalc.recalc_workbook`, which runs it in a child process
(:class:`xlbridge.batch.evaluate.child.ChildProcess`).

>>> import io, zipfile
>>> buf = io.BytesIO(b"just some text, not a workbook")
>>> try:
...     check_workbook(buf, name="notes.xlsx")
... except WorkbookError as err:
...     print(err)
notes.xlsx: not an Excel workbook (not a zip file)
"""

from __future__ import annotations

import contextlib
import io
import mmap
import os
import posixpath
import re
import time
import urllib.parse
import zipfile
import zlib
from typing import Any

from ...core.errors import WorkbookLimitError, WorkbookError
from ...core.files import open_regular, regular_stat

from .files import (
    CFB_SIGNATURE,
    BookLock,
    not_a_workbook,
    ole2_refusal,
    private_tempdir,
    remove_stale_leftovers,
    umask_mode,
    write_atomic,
)
from .limits import (
    DEFAULT_LIMITS,
    EXCEL_MAX_COLUMNS,
    EXCEL_MAX_ROWS,
    EXCEL_MAX_TEXT,
    TEMP_PREFIX,
    SafetyLimits,
    WorkbookInfo,
    clip,
    one_line,
    refuse,
    scrub_paths,
)
from .sheethalves import halves_wanted, scan_sheet_part
from .xmlscan import BoundedReader, Totals, counting_handler, scan_xml

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



_ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06")  # local file header; empty archive

_XML_SUFFIXES = (".xml", ".rels", ".vml")

_FIRST_HALF = frozenset({"xl/workbook.xml", "xl/styles.xml", "xl/sharedStrings.xml", "[Content_Types].xml"})

_EXTERNAL_OK = ("/hyperlink", "/externalLinkPath", "/xlExternalLinkPath/xlPathMissing",
                "/xlExternalLinkPath/xlStartup", "/xlExternalLinkPath/xlAlternateStartup",
                "/xlExternalLinkPath/xlLibrary")

_SHEET_TYPES = ("/worksheet", "/chartsheet", "/dialogsheet", "/xlMacrosheet", "/xlIntlMacrosheet")

_BAD_SHEET_NAME = re.compile(r"[\[\]:*?/\\\x00-\x1f]")


# --------------------------------------------------------------------------------------------------
# special files


def _stat_regular(path, name: str | None) -> os.stat_result:
    """``os.lstat`` of ``path``, refusing anything but a regular file, a symbolic link included (the core's
    :func:`~xlbridge.core.files.regular_stat` says what it is instead)."""
    path = os.fspath(path)
    name = os.path.basename(path) if name is None else name
    try:
        st, kind = regular_stat(path)
    except OSError as exc:
        refuse(f"cannot read the file ({exc.strerror or type(exc).__name__})", name)
    if kind is not None:
        refuse(f"refused: this is {kind}, not a workbook file", name)
    return st


def check_regular_file(path: str | os.PathLike, name: str | None = None) -> None:
    """Refuse ``path`` at once unless it is a regular file (not a symbolic link); nothing is opened.

    >>> try:
    ...     check_regular_file("/", "root.xlsx")
    ... except WorkbookError as err:
    ...     print(err)
    root.xlsx: refused: this is a folder, not a workbook file
    """
    _stat_regular(path, name)


def open_regular_file(path: str | os.PathLike, name: str | None = None) -> int:
    """Open ``path`` for reading and return the descriptor; refuse anything but a regular file, at once.

    ``os.lstat`` first (a symbolic link is refused, never followed: a server reads the upload, not what a
    link points to), then ``open`` with ``O_NONBLOCK | O_NOFOLLOW`` (a FIFO or a link swapped in meanwhile
    cannot block or be followed) and ``fstat`` of the open descriptor (it must be that same regular file).

    >>> try:
    ...     open_regular_file("/dev/null", "null.xlsx")
    ... except WorkbookError as err:
    ...     print(err)
    null.xlsx: refused: this is a device, not a workbook file
    """
    path = os.fspath(path)
    name = os.path.basename(path) if name is None else name
    st = _stat_regular(path, name)
    try:
        fd = open_regular(path, st)
    except OSError as exc:
        refuse(f"cannot read the file ({exc.strerror or type(exc).__name__})", name)
    if fd is None:
        refuse("refused: the file changed while it was being opened", name)
    return fd


def snapshot_file(path: str | os.PathLike, dest: str | os.PathLike, *, limits: SafetyLimits | None = None,
                  name: str | None = None) -> os.stat_result:
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
            refuse(f"refused: file is {st.st_size} bytes, more than the limit of {limits.max_file_size}", name,
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
                    refuse(f"refused: file is more than the limit of {limits.max_file_size} bytes", name,
                            WorkbookLimitError)
                out.write(chunk)
    return st


# --------------------------------------------------------------------------------------------------
# the checks


def check_workbook(source: Any, *, limits: SafetyLimits | None = None, name: str | None = None) -> WorkbookInfo:
    """Check that ``source`` (a path or binary file object) is a sane .xlsx/.xlsm; raise WorkbookError if not.

    Order: special files (a path must be a regular file: :func:`open_regular_file`); file size;
    signature (an OLE2/CFB file, signature D0 CF 11 E0, is a password-protected OOXML file or a
    legacy .xls: refused with that explanation); the zip's central directory (a truncated or damaged
    zip is refused); member count, declared sizes and compression ratios (zip bombs refused before
    decompressing); encrypted members; the parts every workbook has; then every member is read
    through a bounded stream (CRC checked) and every XML part parsed by expat with DTDs
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
        fh, name = _open_sized(source, limits, name)
        with fh:
            try:
                return _check_stream(fh, limits, name)
            except OSError as exc:
                refuse(f"cannot read the file ({exc.strerror or type(exc).__name__})", name)
    return _check_stream(source, limits, name)


def _open_sized(path, limits: SafetyLimits, name: str | None) -> tuple[Any, str]:
    """The regular file at ``path`` opened for reading, and the name messages give it; refused over the size limit."""
    name = name if name is not None else os.path.basename(os.fspath(path))
    fh = os.fdopen(open_regular_file(path, name), "rb")
    try:
        size = os.fstat(fh.fileno()).st_size
        if size > limits.max_file_size:
            refuse(f"refused: file is {size} bytes, more than the limit of {limits.max_file_size}", name,
                    WorkbookLimitError)
    except BaseException:
        fh.close()
        raise
    return fh, name


def _check_stream(fh, limits: SafetyLimits, name: str | None) -> WorkbookInfo:
    """The checks of :func:`check_workbook`: its :class:`WorkbookInfo` (the worksheet parts scanned last, once
    the workbook's records are known: a worksheet part adding sheet or link records is refused)."""
    deadline = time.monotonic() + limits.max_seconds
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    if size > limits.max_file_size:
        refuse(f"refused: file is {size} bytes, more than the limit of {limits.max_file_size}", name, WorkbookLimitError)
    fh.seek(0)
    head = fh.read(8)
    if head == CFB_SIGNATURE:  # (a .xls, or an .xlsx with a password to open: how to save it as .xlsx)
        refuse(ole2_refusal(), name)
    if size == 0:
        refuse("not an Excel workbook (the file is empty)", name)
    if head[:4] not in _ZIP_SIGNATURES:
        refuse("not an Excel workbook (not a zip file)", name)  # (never the file's bytes: it is not a workbook)
    fh.seek(0)
    try:
        zf = zipfile.ZipFile(fh)
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError) as exc:
        refuse(f"damaged workbook: truncated or corrupt zip file ({exc})", name)
    try:
        infos = zf.infolist()
        if len(infos) > limits.max_members:
            refuse(f"refused: {len(infos)} zip members, more than the limit of {limits.max_members}", name,
                    WorkbookLimitError)
        names = [i.filename for i in infos]
        if len(set(names)) != len(names):
            seen: set[str] = set()
            dup = ""
            for n in names:
                if n in seen:
                    dup = n
                    break
                seen.add(n)
            refuse(f"damaged workbook: zip member {clip(dup, 80)[1:-1]} appears twice", name)
        for n in names:  # OPC part names (ECMA-376 Part 2, 6.2.2): no empty, "." or ".." segment, no "\\"
            segments = n.rstrip("/").split("/")
            if not n or "\\" in n or ":" in segments[0] or any(s in ("", ".", "..") for s in segments):
                refuse("damaged workbook: a zip member's name is not a part name of a workbook (an absolute path "
                       "or a '..' would let unzipping write outside its folder)", name)  # (never quoted: not a workbook)
        total = 0
        for info in infos:
            part = clip(info.filename, 80)[1:-1]
            if info.flag_bits & 0x1:
                refuse(f"refused: zip member {part} is encrypted", name)
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                refuse(f"refused: zip member {part} uses unsupported compression method {info.compress_type}",
                        name)
            if info.file_size > limits.max_member_uncompressed:
                refuse(f"refused: zip member {part} declares {info.file_size} bytes uncompressed, more than "
                        f"the limit of {limits.max_member_uncompressed} (zip bomb?)", name, WorkbookLimitError)
            total += info.file_size
            if total > limits.max_total_uncompressed:
                refuse(f"refused: members declare more than {limits.max_total_uncompressed} bytes "
                        f"uncompressed in total (zip bomb?)", name, WorkbookLimitError)
            if info.file_size > limits.ratio_floor:
                ratio = info.file_size / max(info.compress_size, 1)
                if ratio > limits.max_ratio:
                    refuse(f"refused: zip member {part} has compression ratio {ratio:.0f}:1, more than the "
                            f"limit of {limits.max_ratio}:1 (zip bomb?)", name, WorkbookLimitError)
        lower = {n.lower() for n in names}
        if "xl/workbook.bin" in lower:
            refuse("refused: a binary workbook (.xlsb) is not supported; save it as .xlsx in Excel", name)
        if "[content_types].xml" not in lower or "xl/workbook.xml" not in lower:
            mimetype = None  # (an OpenDocument file says what it is in its first member: ODF 1.2 part 3, 3.3)
            if "mimetype" in names and zf.getinfo("mimetype").file_size <= 100:
                try:
                    with zf.open("mimetype") as member:
                        mimetype = member.read(100)
                except (zipfile.BadZipFile, EOFError, OSError, ValueError, zlib.error):
                    mimetype = None  # (damaged: said as a zip file that is no workbook)
            refuse(not_a_workbook(lower, mimetype), name)
        totals = Totals()
        sheet_names: dict = {}
        first = [i for i in infos if i.filename in ("xl/workbook.xml", "xl/_rels/workbook.xml.rels")]
        ordered = first + [i for i in infos if i not in first]
        later = []
        for index, info in enumerate(ordered):
            if index == len(first):  # the workbook and its relationships are read: sheets can be named
                sheet_names = _sheet_part_names(totals)
            if info.filename in sheet_names and info.filename not in _FIRST_HALF and not info.filename.endswith(".rels"):
                later.append(info)  # a worksheet: scanned last, its sheet named
            else:
                _scan_member(zf, info, sheet_names, totals, limits, name, deadline)
        sheets, links = _check_package(set(names), totals, name)
        has_vba = any(n.lower().endswith("vbaproject.bin") for n in names)

        def info_now(sheets, links) -> WorkbookInfo:
            return WorkbookInfo(members=tuple(names), has_vba=has_vba, total_uncompressed=total, sheets=sheets,
                                external_links=links, cells=totals.cells, rows=totals.rows,
                                shared_strings=totals.shared_strings, styles=totals.styles,
                                cell_formats=totals.cell_formats if "xl/styles.xml" in names else None,
                                extents=tuple((part, *extent) for part, extent in totals.extents.items()),
                                tables=tuple(tuple(t) for t in totals.tables),
                                rels=tuple((part, tuple(rels)) for part, rels in totals.rels.items()))

        for info in later:  # the worksheets, last
            records = (len(totals.sheets), len(totals.ext_refs))
            _scan_member(zf, info, sheet_names, totals, limits, name, deadline)
            if (len(totals.sheets), len(totals.ext_refs)) != records:
                refuse(f"damaged workbook: worksheet part {clip(info.filename, 80)[1:-1]} holds the workbook's own "
                       f"records (sheets or links to other workbooks)", name)
        if later:  # a "worksheet" part may hold package records (a <workbook> or <Types> root): checked with them
            sheets, links = _check_package(set(names), totals, name)
        return info_now(sheets, links)
    finally:
        zf.close()


def _scan_member(zf, info, sheet_names: dict, totals: Totals, limits: SafetyLimits, name: str | None,
                 deadline: float) -> None:
    """Read one zip member to its end through a bounded stream (CRC checked), scanning it if it is XML."""
    part = info.filename
    if part.endswith("/"):
        return
    sheet = sheet_names.get(part)
    where = f"sheet {clip(sheet, 40)[1:-1]}" if sheet is not None else f"XML part {clip(part, 80)[1:-1]}"
    if sheet is not None and part.lower().endswith(_XML_SUFFIXES) and halves_wanted(info.file_size):
        # a large worksheet: held whole and scanned in two halves at once, the same checks; when it cannot be
        # read whole (too little memory, a damaged member) it is streamed instead, and refused in those words
        data = _whole_member(zf, info, name, deadline, limits.max_seconds)
        if data is not None:
            with data:
                scan_sheet_part(data, part, where, totals, limits, name, deadline, limits.max_seconds)
            return
    try:
        with zf.open(info) as raw:
            stream = io.BufferedReader(
                BoundedReader(raw, info.file_size, part, name, deadline, limits.max_seconds), 1 << 16)
            if part.lower().endswith(_XML_SUFFIXES):
                handler = counting_handler(part, where, totals, limits, name)
                scan_xml(stream, part, name, handler, limits.max_xml_token, where)
                handler.finish()
            else:
                while stream.read(1 << 16):
                    pass
            while raw.read(1 << 16):  # whatever the XML parser left: read to the end, CRC checked
                pass
    except WorkbookError:
        raise
    except Exception as exc:  # BadZipFile (CRC), EOFError (truncated), zlib.error (corrupt deflate)
        why = ("it is cut short" if isinstance(exc, EOFError) else
               "its compressed data is damaged" if type(exc).__module__ == "zlib" else
               "its checksum does not match its data" if "CRC" in str(exc) else
               "its zip record is damaged")
        refuse(f"damaged workbook: zip member {clip(part, 80)[1:-1]} cannot be read ({why})", name)


def _whole_member(zf, info, name: str | None, deadline: float, seconds: float) -> mmap.mmap | None:
    """The member's bytes, read whole through a bounded stream (CRC checked), or None when anything goes
    wrong (memory, a damaged member, the deadline): the streamed scan then reads it and says what, after
    whatever its XML holds first.

    They are held in an anonymous memory map, filled 64 KiB at a time: one large block from the allocator,
    once freed, would raise glibc's threshold for mapping blocks of their own, and the command would keep
    its later large blocks in its heap (10 MiB more for the rest of a 10,000-row season's run)."""
    buf = None
    try:
        buf = mmap.mmap(-1, max(info.file_size, 1))
        view = memoryview(buf)
        with zf.open(info) as raw, view:
            stream = BoundedReader(raw, info.file_size, info.filename, name, deadline, seconds)
            at = 0
            while at < info.file_size:
                n = stream.readinto(view[at:at + (1 << 16)])
                if not n:
                    break
                at += n
            if at != info.file_size or stream.readinto(bytearray(1)):  # (less or more than declared)
                buf.close()
                return None
        return buf
    except (Exception, MemoryError):
        if buf is not None:
            with contextlib.suppress(BufferError):  # (a view still held by the traceback: freed with it)
                buf.close()
        return None


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


def _sheet_part_names(totals: Totals) -> dict:
    rels = {rid: (typ, target) for rid, typ, target, _ in totals.rels.get("xl/_rels/workbook.xml.rels", ())}
    out = {}
    for sheet, rid in totals.sheets:
        typ, target = rels.get(rid, ("", None))
        if target is not None and typ.endswith("/worksheet"):
            part = _resolve_target("xl/_rels/workbook.xml.rels", target)
            if part is not None and sheet is not None:
                out[part] = sheet
    return out


def _check_package(members: set, totals: Totals, name: str | None):
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
                refuse(f"damaged workbook: {shown} has no target", name)
            if mode == "External":
                if not typ.endswith(_EXTERNAL_OK):
                    refuse(f"refused: {shown} points outside the package ({clip(target, 60)}); only hyperlinks "
                            f"and links to other workbooks may, and those are never followed", name)
                continue
            part = _resolve_target(rels_part, target)
            if part is None:
                refuse(f"refused: {shown} points outside the package ({clip(target, 60)})", name)
            if part not in members:
                refuse(f"damaged workbook: {shown} points at {clip(part, 60)}, which is missing", name)
    main = [p for p, ct in totals.overrides
            if ct.endswith(".main+xml") and ("spreadsheetml" in ct or "ms-excel" in ct)]
    for partname in main:
        if urllib.parse.unquote(partname).lstrip("/") != "xl/workbook.xml":
            refuse(f"refused: the workbook's main part is {clip(partname, 60)}, not /xl/workbook.xml", name)
    rels = {rid: (typ, target) for rid, typ, target, _ in totals.rels.get("xl/_rels/workbook.xml.rels", ())}
    sheets, seen = [], set()
    for sheet, rid in totals.sheets:
        if not sheet or len(sheet) > 31 or _BAD_SHEET_NAME.search(sheet) or sheet.startswith("'") \
                or sheet.endswith("'"):
            refuse(f"damaged workbook: {clip(sheet or '', 40)} is not a valid sheet name", name)
        if sheet.upper() in seen:
            refuse(f"damaged workbook: two sheets are named {clip(sheet, 40)}", name)
        seen.add(sheet.upper())
        typ, target = rels.get(rid, ("", None))
        if target is None:
            refuse(f"damaged workbook: sheet {clip(sheet, 40)} has no part (relationship {clip(rid or '?', 20)} "
                    f"is missing)", name)
        if not typ.endswith(_SHEET_TYPES):
            refuse(f"damaged workbook: sheet {clip(sheet, 40)} points at a part that is not a sheet", name)
        part = _resolve_target("xl/_rels/workbook.xml.rels", target)
        if part is None or part not in members:  # (an External target: refused above)
            refuse(f"damaged workbook: the part of sheet {clip(sheet, 40)} is missing", name)
        if typ.endswith("/worksheet"):
            sheets.append((sheet, part))
    links = []
    for rid in totals.ext_refs:
        typ, target = rels.get(rid, ("", None))
        part = None if target is None else _resolve_target("xl/_rels/workbook.xml.rels", target)
        if part is None or part not in members or not typ.endswith("/externalLink"):
            refuse(f"damaged workbook: link to another workbook {clip(rid or '?', 20)} has no part", name)
        links.append(part)
    return tuple(sheets), tuple(links)
