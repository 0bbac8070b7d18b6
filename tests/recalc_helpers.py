"""Shared by the template recalc tests: recalculate a workbook copy and check the input is untouched.

A workbook's recalculation is made once per test run (``run_artefacts`` in conftest.py, shared by the
pytest-xdist workers): the shipped examples are recalculated by many test files, and each gets a copy.
"""
from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import json
import shutil
import zipfile
from pathlib import Path

import openpyxl

#: LibreOffice's user setting "recalculate .xlsx formulas on load: always" (a profile's
#: registrymodifications.xcu), for comparing its values with xlbridge recalc's (tests/conftest.py's
#: ``libreoffice(..., recalc=True)`` and benchmarks/bench_recalc.py)
RECALC_ALWAYS = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse">
<value>0</value></prop></item>
</oor:items>
"""


#: set by conftest.py's session fixture: the run's artefacts (None: recalculate every time)
ARTEFACTS = None


def recalc_here(src, out, **options):
    """``xlbridge.batch.recalc.recalc_workbook(src, out, isolate=False, **options)``: the recalculation in this
    process (no engine process forked). The engine's run collects its garbage once, in a full collection
    (xlbridge.batch.evaluate.splice): in a test process that would walk every workbook the process holds for
    the run; they are frozen meanwhile and left out, as they are from the engine's own process when xlbridge
    forks it (xlbridge.batch.evaluate.child.ChildProcess)."""
    from xlbridge.batch import recalc

    gc.freeze()
    try:
        return recalc.recalc_workbook(src, out, isolate=False, **options)
    finally:
        gc.unfreeze()


def _recalc_into(src: Path, out: Path) -> None:
    before = hashlib.sha256(src.read_bytes()).hexdigest()
    report = recalc_here(src, out)
    assert hashlib.sha256(src.read_bytes()).hexdigest() == before  # input untouched
    assert report.errors == (), [str(e) for e in report.errors]


def recalculated(src: Path) -> Path:
    """The path of ``src`` recalculated by ``xlbridge recalc`` (in this process, ``isolate=False``), made
    once per test run for the same bytes: the input is checked byte-identical afterwards and no cell
    may err. The file is shared: copy it before changing it."""
    src = Path(src)
    if ARTEFACTS is None:
        import tempfile

        out = Path(tempfile.mkdtemp()) / (src.stem + "-recalculated.xlsx")
        _recalc_into(src, out)
        return out
    data = src.read_bytes()

    def build(folder: Path) -> None:
        (folder / src.name).write_bytes(data)
        _recalc_into(folder / src.name, folder / "out.xlsx")

    return ARTEFACTS.make(f"recalculated {hashlib.sha256(data).hexdigest()} {src.name}", build) / "out.xlsx"


def recalc_copy(src: Path, tmp: Path):
    """Run ``xlbridge recalc`` on ``src`` into ``tmp``; assert the input is byte-identical and no cell errs.

    Returns (output path, the output opened with ``data_only=True``). The same bytes are recalculated
    once per test run (:func:`recalculated`); each call gets its own copy of the output.
    """
    out = Path(tmp) / (Path(src).stem + "-recalculated.xlsx")
    shutil.copyfile(recalculated(src), out)
    return out, openpyxl.load_workbook(out, data_only=True)


def canonical_dump(path: Path) -> list[str]:
    """``xlbridge.templates.canonical_dump`` of the workbook at ``path`` (formulas, styles, validations,
    names, charts: what a template is), worked out once per run for the same bytes."""
    from xlbridge.templates import canonical_dump as dump

    path = Path(path)
    if ARTEFACTS is None:
        return dump(path)
    data = path.read_bytes()

    def build(folder: Path) -> None:
        (folder / "dump.json").write_text(json.dumps(dump(path)), encoding="utf-8")

    folder = ARTEFACTS.make(f"canonical_dump {hashlib.sha256(data).hexdigest()}", build)
    return json.loads((folder / "dump.json").read_text(encoding="utf-8"))


def fresh_build(name: str) -> tuple[Path, Path]:
    """The template ``name`` (e.g. ``"examples/pairs.xlsx"``) built now, once per test run: (the bytes of
    ``xlbridge.templates.build_bytes``, the same file with its values cached as ``xlbridge templates``
    ships it). Shared: copy before changing."""
    from xlbridge import cli
    from xlbridge.templates import build_bytes

    def build(folder: Path) -> None:
        (folder / "raw.xlsx").write_bytes(build_bytes(name))
        shutil.copyfile(folder / "raw.xlsx", folder / "built.xlsx")
        cli._cache_values(folder / "built.xlsx")

    if ARTEFACTS is None:
        import tempfile

        folder = Path(tempfile.mkdtemp())
        build(folder)
    else:
        folder = ARTEFACTS.make(f"fresh_build {name}", build)
    return folder / "raw.xlsx", folder / "built.xlsx"


#: the long input tables of each template module, cut by :func:`small_build`: {module: [row-count constant]}
LONG_TABLES = {"pairs": ["T_ROWS"], "teams": ["B_ROWS"], "handicap": ["R_ROWS"], "instant": ["R_ROWS", "H_ROWS"],
               "lehman": ["L_ROWS"]}


def small_workbook(name: str, rows: int):
    """The openpyxl workbook of template ``name`` built with each long input table :data:`LONG_TABLES` ``rows``
    rows long (:func:`small_build` saves it and caches its values)."""
    from xlbridge import templates

    with _tables_cut(name, rows):
        return templates.build_workbook(name)


def small_bytes(name: str, rows: int) -> bytes:
    """What ``xlbridge.templates.build_bytes(name)`` gives (canonical parts, fixed times) with each long input
    table :data:`LONG_TABLES` ``rows`` rows long; not cached."""
    from xlbridge.templates import build_bytes

    with _tables_cut(name, rows):
        return build_bytes.__wrapped__(name)


@contextlib.contextmanager
def _tables_cut(name: str, rows: int):
    import importlib

    mod = importlib.import_module(f"xlbridge.templates.{Path(name).stem}")
    saved = {const: getattr(mod, const) for const in LONG_TABLES.get(Path(name).stem, [])}
    try:
        for const in saved:
            setattr(mod, const, rows)
        yield
    finally:
        for const, value in saved.items():
            setattr(mod, const, value)


def small_build(name: str, rows: int = 100) -> Path:
    """The template ``name`` (e.g. ``"examples/pairs.xlsx"``) built by the same builders with each long input
    table :data:`LONG_TABLES` ``rows`` rows long instead of thousands, its values cached as ``xlbridge
    templates`` caches them; once per test run. The same sheets, formulas, names, styles and layout at a
    smaller scale: for the tests of what a template computes, which a recalculation of 10,000 rows of
    headroom only slows down (the shipped files themselves are checked against the full build byte for
    byte, tests/templates/test_build.py). Shared: copy before changing."""
    from xlbridge import cli

    def build(folder: Path) -> None:
        small_workbook(name, rows).save(folder / Path(name).name)
        cli._cache_values(folder / Path(name).name)

    if ARTEFACTS is None:
        import tempfile

        folder = Path(tempfile.mkdtemp())
        build(folder)
        return folder / Path(name).name
    return ARTEFACTS.make(f"small_build {name} {rows}", build) / Path(name).name


def sheet_parts(path: Path) -> dict[str, str]:
    """{sheet name: its worksheet part in the zip} of workbook ``path`` (the package's own reading of
    xl/workbook.xml and its relationships)."""
    from xlbridge.batch.read.bookparts import workbook_sheet_parts

    with zipfile.ZipFile(path) as z:
        return dict(workbook_sheet_parts(z))


def typed(src: Path, dst: Path, sheets: dict[str, dict[str, object]]) -> Path:
    """A copy of workbook ``src`` at ``dst`` with ``sheets`` ({sheet: {cell: value}}) typed in: a number, a text
    (an inline string) or None (emptied; a cell keeps its style, as when a member types over it), written into the
    sheets' XML with lxml rather than by an openpyxl load and save (seconds for a 10,000-row template): every
    other part is copied unchanged, and the formulas' cached values stay as they were (xlbridge reads the typed
    cells; ``xlbridge recalc`` computes the rest)."""
    from lxml import etree
    from openpyxl.utils.cell import coordinate_from_string

    from server_helpers import rebuild

    from xlbridge.batch.read.sheetxml import MAIN_NS as main

    ns = {"m": main}
    replace = {}
    parts = sheet_parts(src)
    with zipfile.ZipFile(src) as z:
        for sheet, values in sheets.items():
            part = parts[sheet]
            root = etree.fromstring(z.read(part))
            data = root.find("m:sheetData", ns)
            rows = {int(r.get("r")): r for r in data.findall("m:row", ns)}
            for ref, value in values.items():
                row = coordinate_from_string(ref)[1]
                if row not in rows:  # a new row, in order
                    new = etree.Element(f"{{{main}}}row", r=str(row))
                    later = [r for n, r in rows.items() if n > row]
                    if later:
                        later[0].addprevious(new)
                    else:
                        data.append(new)
                    rows[row] = new
                    rows = dict(sorted(rows.items()))
                cell = rows[row].find(f"m:c[@r='{ref}']", ns)
                if cell is None:
                    cell = etree.SubElement(rows[row], f"{{{main}}}c", r=ref)
                    rows[row][:] = sorted(rows[row].findall("m:c", ns), key=lambda c: _column(c.get("r")))
                cell[:] = []
                cell.attrib.pop("t", None)
                if isinstance(value, str):
                    cell.set("t", "inlineStr")
                    text = etree.SubElement(etree.SubElement(cell, f"{{{main}}}is"), f"{{{main}}}t")
                    text.text = value
                elif value is not None:
                    etree.SubElement(cell, f"{{{main}}}v").text = repr(value)
            replace[part] = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
    return rebuild(src, dst, replace=replace)


def _column(ref: str) -> int:
    from openpyxl.utils.cell import column_index_from_string, coordinate_from_string

    return column_index_from_string(coordinate_from_string(ref)[0])


def cells(path: Path, data_only: bool = False) -> dict[str, dict[tuple[int, int], object]]:
    """{sheet: {(row, column): value}} of every cell of workbook ``path`` holding something (formulas as text or
    ``ArrayFormula``, or with ``data_only`` the cached values), read with openpyxl's read-only reader (a third
    of the time of a full load for the 10,000-row templates), the whole sheet whatever its stored dimension
    says; once per process for the same bytes. Shared: do not change it."""
    data = Path(path).read_bytes()
    return _cells(hashlib.sha256(data).hexdigest(), str(path), data_only)


@functools.lru_cache(maxsize=6)
def _cells(_sha: str, path: str, data_only: bool) -> dict[str, dict[tuple[int, int], object]]:
    wb = openpyxl.load_workbook(path, read_only=True, data_only=data_only)
    try:
        out = {}
        for ws in wb.worksheets:
            ws.reset_dimensions()
            out[ws.title] = {(c.row, c.column): c.value for row in ws.iter_rows() for c in row
                             if c.value is not None and getattr(c, "row", None) is not None}
        return out
    finally:
        wb.close()


def loaded(path: Path, data_only: bool = False):
    """Workbook ``path`` loaded whole by openpyxl (styles, page set-up, charts: what the read-only reader leaves
    out), once per process for the same bytes: for tests that only read it. Shared: do not change it."""
    data = Path(path).read_bytes()
    return _loaded(hashlib.sha256(data).hexdigest(), str(path), data_only)


@functools.lru_cache(maxsize=12)
def _loaded(_sha: str, path: str, data_only: bool):
    return openpyxl.load_workbook(path, data_only=data_only)
