"""Refuse hostile or broken workbook files before anything parses them.

:func:`check_workbook` is run by ``xlbridge recalc`` (and by :func:`xlbridge.recalc.recalc_workbook`)
before the formula engine or openpyxl sees the file. It reads only the zip's central directory
first, so a zip bomb is refused from its *declared* sizes before a byte is decompressed; then it
streams every member through a size-bounded reader (so a member that inflates past its declared size
or fails its CRC is caught) and every XML part through defusedxml with DTDs forbidden (so entity
bombs "billion laughs" and external entities XXE are refused; OOXML never needs a DTD).

Every refusal raises :class:`xlbridge.errors.WorkbookError` with a one-line message. The limits are
the named, documented fields of :class:`SafetyLimits`; memory and time of the formula engine itself
are bounded by :func:`xlbridge.recalc.recalc_workbook`, which runs it in a child process with
``RLIMIT_AS`` set to ``max_memory`` and killed after ``max_seconds``.

>>> import io, zipfile
>>> buf = io.BytesIO(b"just some text, not a workbook")
>>> try:
...     check_workbook(buf, name="notes.xlsx")
... except WorkbookError as err:
...     print(err)
notes.xlsx: not an Excel workbook (not a zip file; it starts with b'just som')
"""

from __future__ import annotations

import dataclasses
import io
import os
import time
import zipfile

from .errors import WorkbookError

__all__ = ["SafetyLimits", "WorkbookInfo", "check_workbook", "DEFAULT_LIMITS"]

_CFB_SIGNATURE = bytes.fromhex("D0CF11E0A1B11AE1")
_ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06")  # local file header; empty archive
_XML_SUFFIXES = (".xml", ".rels", ".vml")
_MiB = 1 << 20


@dataclasses.dataclass(frozen=True)
class SafetyLimits:
    """Limits a workbook must respect before it is parsed (defaults in brackets).

    - ``max_file_size``: size of the file on disk [256 MiB].
    - ``max_members``: number of zip members [10,000].
    - ``max_total_uncompressed``: sum of the members' declared uncompressed sizes [1 GiB].
    - ``max_member_uncompressed``: one member's declared uncompressed size [512 MiB].
    - ``max_ratio``: declared uncompressed / compressed size of one member [200], checked for
      members larger than ``ratio_floor`` [1 MiB] (tiny parts legitimately compress very well;
      real worksheets compress 5-30 times, a zip bomb a thousand times or more).
    - ``max_formula_cells``: formula cells plus cells covered by array-formula ranges, over all
      sheets [5,000,000] (an array formula claiming ``A1:XFD1048576`` would otherwise make the
      writer fill 17 billion cells).
    - ``max_memory``: address-space limit of the formula-engine process [4 GiB] (Linux/macOS).
    - ``max_seconds``: wall-clock limit of the formula engine [600 s]; the streamed checks of
      :func:`check_workbook` have the same limit of their own (checked every 64 KiB read).

    >>> SafetyLimits().max_ratio
    200
    >>> SafetyLimits(max_seconds=30).max_seconds
    30
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


DEFAULT_LIMITS = SafetyLimits()


@dataclasses.dataclass(frozen=True)
class WorkbookInfo:
    """What the checks learnt: member names in order, whether there is a VBA project, sizes.

    >>> WorkbookInfo(members=("a.xml",), has_vba=False, total_uncompressed=10).has_vba
    False
    """

    members: tuple[str, ...]
    has_vba: bool
    total_uncompressed: int


def _refuse(message: str, name: str | None):
    raise WorkbookError(message, where=name)


def _scan_xml(stream, part: str, name: str | None) -> None:
    """Parse one XML part with defusedxml (DTD, entities and external references forbidden)."""
    import defusedxml.sax
    from defusedxml import DefusedXmlException
    from xml.sax import SAXException
    from xml.sax.handler import ContentHandler

    try:
        defusedxml.sax.parse(stream, ContentHandler(), forbid_dtd=True, forbid_entities=True,
                             forbid_external=True)
    except DefusedXmlException as exc:
        kind = type(exc).__name__
        what = {
            "DTDForbidden": "a DTD (document type declaration; used by entity bombs and external entities)",
            "EntitiesForbidden": "an entity declaration (entity bomb)",
            "ExternalReferenceForbidden": "an external entity reference (XXE)",
        }.get(kind, kind)
        _refuse(f"refused: XML part {part} contains {what}", name)
    except SAXException as exc:
        _refuse(f"damaged workbook: XML part {part} is not well-formed ({exc.getMessage()})", name)


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
                    f"(at zip member {self._part})", self._name)
        data = self._raw.read(min(len(b), self._left + 1))
        if len(data) > self._left:
            _refuse(f"refused: zip member {self._part} inflates past its declared size (zip bomb?)",
                    self._name)
        self._left -= len(data)
        b[: len(data)] = data
        return len(data)


def check_workbook(source, *, limits: SafetyLimits | None = None, name: str | None = None) -> WorkbookInfo:
    """Check that ``source`` (a path or binary file object) is a sane .xlsx/.xlsm; raise WorkbookError if not.

    Order: file size; signature (an OLE2/CFB file, signature D0 CF 11 E0, is a password-protected
    OOXML file or a legacy .xls: refused with that explanation); the zip's central directory (a
    truncated or damaged zip is refused); member count, declared sizes and compression ratios (zip
    bombs refused before decompressing); encrypted members; the parts every workbook has; then every
    member is read through a bounded stream (CRC checked) and every XML part parsed by defusedxml
    with DTDs forbidden. Nothing is executed: a ``vbaProject.bin`` is only read to check its CRC.

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
        try:
            size = os.path.getsize(path)
            if size > limits.max_file_size:
                _refuse(f"refused: file is {size} bytes, more than the limit of {limits.max_file_size}", name)
            with open(path, "rb") as fh:
                return _check_stream(fh, limits, name)
        except OSError as exc:
            _refuse(f"cannot read the file ({exc.strerror or exc})", name)
    return _check_stream(source, limits, name)


def _check_stream(fh, limits: SafetyLimits, name: str | None) -> WorkbookInfo:
    deadline = time.monotonic() + limits.max_seconds
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    if size > limits.max_file_size:
        _refuse(f"refused: file is {size} bytes, more than the limit of {limits.max_file_size}", name)
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
    except (zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
        _refuse(f"damaged workbook: truncated or corrupt zip file ({exc})", name)
    with zf:
        infos = zf.infolist()
        if len(infos) > limits.max_members:
            _refuse(f"refused: {len(infos)} zip members, more than the limit of {limits.max_members}", name)
        names = [i.filename for i in infos]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            _refuse(f"damaged workbook: zip member {dup} appears twice", name)
        total = 0
        for info in infos:
            part = info.filename
            if info.flag_bits & 0x1:
                _refuse(f"refused: zip member {part} is encrypted", name)
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                _refuse(f"refused: zip member {part} uses unsupported compression method {info.compress_type}",
                        name)
            if info.file_size > limits.max_member_uncompressed:
                _refuse(f"refused: zip member {part} declares {info.file_size} bytes uncompressed, more than "
                        f"the limit of {limits.max_member_uncompressed} (zip bomb?)", name)
            total += info.file_size
            if total > limits.max_total_uncompressed:
                _refuse(f"refused: members declare more than {limits.max_total_uncompressed} bytes "
                        f"uncompressed in total (zip bomb?)", name)
            if info.file_size > limits.ratio_floor:
                ratio = info.file_size / max(info.compress_size, 1)
                if ratio > limits.max_ratio:
                    _refuse(f"refused: zip member {part} has compression ratio {ratio:.0f}:1, more than the "
                            f"limit of {limits.max_ratio}:1 (zip bomb?)", name)
        lower = {n.lower() for n in names}
        if "xl/workbook.bin" in lower:
            _refuse("refused: a binary workbook (.xlsb) is not supported; save it as .xlsx in Excel", name)
        if "[content_types].xml" not in lower or "xl/workbook.xml" not in lower:
            _refuse("not an Excel workbook (a zip file without [Content_Types].xml and xl/workbook.xml; "
                    "a .docx, .ods or plain archive?)", name)
        for info in infos:
            part = info.filename
            if part.endswith("/"):
                continue
            try:
                with zf.open(info) as raw:
                    stream = io.BufferedReader(
                        _BoundedReader(raw, info.file_size, part, name, deadline, limits.max_seconds), 1 << 16)
                    if part.lower().endswith(_XML_SUFFIXES):
                        _scan_xml(stream, part, name)
                    else:
                        while stream.read(1 << 16):
                            pass
                    while raw.read(1 << 16):  # whatever the XML parser left: read to the end, CRC checked
                        pass
            except (WorkbookError, ImportError):  # a missing defusedxml is not a damaged workbook
                raise
            except Exception as exc:  # BadZipFile (CRC), EOFError (truncated), zlib.error (corrupt deflate)
                _refuse(f"damaged workbook: zip member {part} cannot be read ({type(exc).__name__}: {exc})",
                        name)
        has_vba = any(n.lower().endswith("vbaproject.bin") for n in names)
        return WorkbookInfo(members=tuple(names), has_vba=has_vba, total_uncompressed=total)
