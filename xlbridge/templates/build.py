"""Build the template workbooks from code, write them, and check written files against a fresh build.

``build_all(out_dir)`` writes them, ``check_all(dir)`` lists every difference between the files in
``dir`` and a fresh build (the ``xlbridge templates [--out DIR] [--check]`` command calls these two).

Determinism: the workbook properties (creator, created, modified) are fixed, every XML part is
written in its W3C canonical form (C14N 2.0, :func:`xml.etree.ElementTree.canonicalize`, or the same
bytes from libxml2 where lxml is installed: :func:`canonical_xml`) and the
zip is re-packed with fixed member timestamps, so two builds with the same openpyxl are
byte-identical whichever XML library openpyxl picked: openpyxl serialises with lxml when lxml is
importable at its import and with ElementTree otherwise, and the two place namespace
declarations differently (lxml on each element, ElementTree on the root). Without the canonical
form, a process that imported openpyxl before lxml was installed and a process started after
built different bytes from the same code (the cause of a once-failing CLI test).
``check_all`` does NOT compare bytes (that would break on another openpyxl version); it
compares a canonical dump (:func:`canonical_dump`) of every sheet's cells, formulas, styles,
data validations, merged cells, column widths, defined names, charts and the document properties.

>>> sorted(TEMPLATES)
['handicap.xlsx', 'instant.xlsx', 'lehman.xlsx', 'pairs.xlsx', 'teams.xlsx']
"""

from __future__ import annotations

import difflib
import functools
import io
import os
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import canonicalize

try:  # (optional: libxml2's canonical form in C, about 7 times faster than ElementTree's in Python)
    from lxml import etree as _lxml
except ImportError:  # pragma: no cover - lxml is a [test] dependency
    _lxml = None

from openpyxl import Workbook, load_workbook
from openpyxl.utils.cell import range_boundaries
from openpyxl.worksheet.formula import ArrayFormula
from openpyxl.writer.excel import ExcelWriter

from ..core.errors import InputError
from . import handicap, instant, lehman, pairs, teams
from .mirror import mirror_arrays
from .tables import excel_tables, inputs_from_header
from .styling import ZIP_TIME, empty_tables, print_setup

__all__ = ["TEMPLATES", "FILES", "EXAMPLES", "build_workbook", "build_bytes", "build_all", "check_all", "canonical_dump", "canonical_xml"]


#: Every template: file name -> the function that builds its workbook.
TEMPLATES = {
    "handicap.xlsx": handicap.build,
    "pairs.xlsx": pairs.build,
    "teams.xlsx": teams.build,
    "instant.xlsx": instant.build,
    "lehman.xlsx": lehman.build,
}


#: The folder, under the templates' folder, of the filled examples.
EXAMPLES = "examples"

def _files() -> list[str]:
    """Every file written: the empty templates, then their filled examples (``examples/pairs.xlsx``)."""
    return [*TEMPLATES, *(f"{EXAMPLES}/{name}" for name in TEMPLATES)]


#: Every file written: the empty templates, then their filled examples (``examples/pairs.xlsx``).
FILES = _files()


def build_workbook(name: str) -> Workbook:
    """Return the openpyxl Workbook of template ``name`` (e.g. ``"pairs.xlsx"``, empty and ready to
    type into) or of its filled example (``"examples/pairs.xlsx"``: the seeds' worked examples), not saved."""
    example = name.startswith(EXAMPLES + "/")
    base = name[len(EXAMPLES) + 1:] if example else name
    try:
        maker = TEMPLATES[base]
    except KeyError:
        raise InputError(f"no template {name!r} (templates: {', '.join(FILES)})") from None
    wb = maker()
    if not example:
        empty_tables(wb, base)
    print_setup(wb)
    inputs_from_header(wb)  # a row inserted directly below a table's header gets its validations and red rules
    mirror_arrays(wb)  # values every spreadsheet program shows (see .mirror)
    excel_tables(wb)  # Excel fills the result cells of a row inserted into a table (see .tables)
    return wb


@functools.lru_cache(maxsize=None)
def build_bytes(name: str) -> bytes:
    """Return the bytes of template ``name``: deterministic for a given openpyxl version.

    The document properties are fixed (:data:`CREATOR`, :data:`FIXED_TIME`; openpyxl's
    ``save`` would stamp the current time, so the writer is driven directly), every XML part is
    canonicalised (:func:`canonical_xml`) and every zip member gets the fixed timestamp
    2026-01-01 00:00.
    """
    wb = build_workbook(name)
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
        ExcelWriter(wb, archive).write_data()
    out = io.BytesIO()
    with zipfile.ZipFile(raw) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            zi = zipfile.ZipInfo(info.filename, date_time=ZIP_TIME)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o600 << 16
            data = src.read(info.filename)
            dst.writestr(zi, canonical_xml(data) if info.filename.endswith((".xml", ".rels")) else data)
    return out.getvalue()


def canonical_xml(data: bytes) -> bytes:
    """The W3C canonical form (C14N 2.0) of an XML part, UTF-8: the same bytes for the same document.

    Namespace declarations move to where they are used, attributes are sorted, empty elements
    are written as a start and an end tag and the XML declaration is dropped (UTF-8 is XML's
    default), so the output does not depend on which library serialised the input.

    >>> lx = b'<a xmlns="urn:m"><b xmlns:x="urn:x" x:k="1" j="2"/></a>'
    >>> et = b"<?xml version='1.0'?><a xmlns='urn:m' xmlns:x='urn:x'><b j='2' x:k='1' /></a>"
    >>> canonical_xml(lx) == canonical_xml(et)
    True
    >>> canonical_xml(lx)
    b'<a xmlns="urn:m"><b xmlns:x="urn:x" j="2" x:k="1"></b></a>'

    Where lxml is installed, libxml2 writes it: the exclusive canonical form (C14N 1.0, comments dropped),
    which for a whole document is these same bytes (checked on every part of the templates,
    tests/templates/test_build.py), in a seventh of the time (a 10,000-row template: 0.3 s instead of 2.1).

    >>> canonical_xml(lx) == canonicalize(lx).encode("utf-8")
    True
    """
    if _lxml is not None:
        parser = _lxml.XMLParser(resolve_entities=False, no_network=True, huge_tree=True, remove_comments=True)
        return _lxml.tostring(_lxml.fromstring(data, parser), method="c14n", exclusive=True, with_comments=False)
    return canonicalize(data).encode("utf-8")


def build_all(out_dir: str | os.PathLike, names: Sequence[str] | None = None) -> list[Path]:
    """Write every template (or those ``names``, e.g. ``["examples/pairs.xlsx"]``) into ``out_dir``
    (created if missing); return the paths written. An unknown name is refused before anything is written.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     [p.relative_to(d).as_posix() for p in build_all(d, ["handicap.xlsx", "examples/handicap.xlsx"])]
    ['handicap.xlsx', 'examples/handicap.xlsx']
    """
    wanted = _files() if names is None else list(names)
    unknown = [n for n in wanted if n not in FILES]
    if unknown:
        raise InputError(f"no template {unknown[0]!r} (templates: {', '.join(FILES)})")
    out = Path(out_dir)
    (out / EXAMPLES).mkdir(parents=True, exist_ok=True)
    written = []
    for name in wanted:
        path = out / name
        data = build_bytes(name)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        written.append(path)
    return written


def _fmt(v):
    if isinstance(v, ArrayFormula):
        return f"ARRAY[{v.ref}] {v.text}"
    if isinstance(v, float) and v.is_integer():
        return repr(v)
    return repr(v)


def _colour(fill):
    if fill is None or fill.fill_type is None:
        return None
    c = fill.fgColor
    return c.rgb if c is not None and c.type == "rgb" else f"{c.type}:{c.value}"


def canonical_dump(source: Any) -> list[str]:
    """Return a canonical text dump of a workbook (a path, bytes or an openpyxl Workbook).

    One line per fact: document properties, sheet order, every non-empty cell (value or formula,
    array formulas with their range; the cached results inside an array range other than its
    anchor are left out, so a recalculated copy dumps like its template), its fill, bold and
    number format, column widths, merged
    cells, frozen panes, data validations (range, type, operator, formulas, input message),
    defined names and charts (type, title, every series' references). Two workbooks with the same
    dump are the same template.
    """
    if isinstance(source, (bytes, bytearray)):
        wb = load_workbook(io.BytesIO(source))
    elif isinstance(source, (str, os.PathLike)):
        wb = load_workbook(source)
    else:
        wb = source
    p = wb.properties
    out = [f"properties creator={p.creator!r} created={p.created} modified={p.modified} title={p.title!r}",
           f"sheets {wb.sheetnames!r}"]
    for name, dn in sorted(wb.defined_names.items()):
        out.append(f"name {name} = {dn.attr_text}")
    for ws in wb.worksheets:
        s = ws.title
        out.append(f"[{s}] state={ws.sheet_state} freeze={ws.freeze_panes}")
        results: set = set()  # cells of array ranges other than the anchor: results, not template content
        for row in ws.iter_rows():
            for c in row:
                if isinstance(c.value, ArrayFormula):
                    c1, r1, c2, r2 = range_boundaries(c.value.ref)
                    results.update((r, k) for r in range(r1, r2 + 1) for k in range(c1, c2 + 1))
                    results.discard((c.row, c.column))
        for row in ws.iter_rows():
            for c in row:
                fill = _colour(c.fill)
                value = None if (c.row, c.column) in results else c.value
                if value is None and fill is None:
                    continue
                bold = bool(c.font and c.font.b)
                out.append(f"{s}!{c.coordinate} {_fmt(value)} fill={fill} bold={bold} fmt={c.number_format!r}")
        for key, dim in sorted(ws.column_dimensions.items()):
            if dim.width:
                out.append(f"{s} col {key} width={dim.width}")
        for m in sorted(str(r) for r in ws.merged_cells.ranges):
            out.append(f"{s} merged {m}")
        for dv in ws.data_validations.dataValidation:
            out.append(f"{s} validation {dv.sqref} type={dv.type} op={dv.operator} f1={dv.formula1!r} "
                       f"f2={dv.formula2!r} blank={dv.allow_blank} prompt={dv.prompt!r}")
        for ch in ws._charts:
            out.append(f"{s} chart {type(ch).__name__} title={_chart_title(ch)!r}")
            for k, ser in enumerate(ch.series):
                out.append(f"{s} chart series {k} {_series_refs(ser)}")
    return out


def _chart_title(ch):
    t = ch.title
    if t is None or isinstance(t, str):
        return t
    try:
        return "".join(r.t for p in t.tx.rich.p for r in (p.r or []))
    except AttributeError:
        return str(t)


def _series_refs(ser):
    parts = []
    for attr in ("tx", "xVal", "yVal", "val", "cat"):
        v = getattr(ser, attr, None)
        if v is None:
            continue
        ref = None
        for sub in ("strRef", "numRef"):
            r = getattr(v, sub, None)
            if r is not None:
                ref = r.f
        if ref is None and getattr(v, "v", None) is not None:
            ref = repr(v.v)
        parts.append(f"{attr}={ref}")
    return " ".join(parts)


@functools.lru_cache(maxsize=None)
def _built_dump(name: str) -> tuple:
    return tuple(canonical_dump(build_bytes(name)))


def check_all(directory: str | os.PathLike, names: Sequence[str] | None = None) -> list[str]:
    """Return the differences between the templates in ``directory`` and a fresh build ([] if none).

    Compares :func:`canonical_dump` of each committed file with that of a fresh build, so it
    does not depend on the zip bytes; a missing file is a difference. ``names``: the files to check
    (default: every file, :data:`FILES`).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = build_all(d, ["handicap.xlsx"])
    ...     check_all(d, ["handicap.xlsx"]), check_all(d, ["examples/handicap.xlsx"])[0].split(" in ")[0]
    ([], 'examples/handicap.xlsx: missing')
    """
    wanted = _files() if names is None else list(names)
    unknown = [n for n in wanted if n not in FILES]
    if unknown:
        raise InputError(f"no template {unknown[0]!r} (templates: {', '.join(FILES)})")
    d = Path(directory)
    diffs = []
    for name in wanted:
        path = d / name
        if not path.exists():
            diffs.append(f"{name}: missing in {d}")
            continue
        try:
            have = canonical_dump(path)
        except Exception as e:  # a damaged file is a difference, not a crash
            diffs.append(f"{name}: cannot be read ({type(e).__name__}: {e})")
            continue
        want = _built_dump(name)
        if have != list(want):
            for line in difflib.unified_diff(list(want), have, "built", "committed", lineterm="", n=0):
                if line.startswith(("---", "+++", "@@")):
                    continue
                diffs.append(f"{name}: {line}")
    return diffs
