"""Seeded mutations of the shipped templates' XML parts, for tests/batch/test_fuzz_recalc.py and benchmarks/bench_fuzz.py.

``mutate(template_bytes, rng)`` returns (zip bytes, description). Each case picks one XML part of the
package and applies one to three operators: byte-level damage (flip, delete, duplicate, truncate) and
structure-aware hostility that keeps the XML well-formed (numbers and attribute values replaced by
hostile ones, hostile formulas, hostile rows, cells and relationships, deep nesting), so that both the
checks and the engine behind them are exercised. Same seed, same cases.
"""
from __future__ import annotations

import functools
import io
import random
import re
import zipfile
from pathlib import Path

TEMPLATES = sorted((Path(__file__).resolve().parents[1] / "workbooks").glob("*.xlsx"))

HOSTILE_NUMBERS = ["0", "-1", "five", "", "99999999999999999999", "1e309", "NaN", "-0", "1048577", "16385",
                   "2147483648", "4294967296", "0x10", "\u0661", "1.5", " 3", "+7", "1e99999999"]
HOSTILE_TEXT = ["A" * 100_000, "../../../../etc/passwd", "/etc/passwd", "[secret.xlsx]S!A1", "=cmd|'/c calc'!A0",
                "\u202eevil", "%00", "XFD1048576", "A1:XFD1048576", "rId1", "file:///etc/passwd",
                "http://example.invalid/x.xlsx", "'", "&amp;&lt;", "\\\\server\\share\\x.xlsx"]
HOSTILE_FORMULAS = [
    "'/etc/[passwd]S'!A1", "'[secret.xlsx]S'!A1", "[1]S!A1", "INDIRECT(\"'/tmp/[x.xlsx]S'!A1\")",
    "cmd|'/c calc'!A0", "SUM(A1:XFD1048576)", "REPT(\"x\",1000000)", "1/0", "(" * 400 + "1" + ")" * 400,
    "VP(5,1000000)", "MATCHPOINTS(A1:A3,A1)", "LEN(REPT(\"ab\",20000))", "A1" + "+A1" * 3000, "#REF!",
    "_xlfn.XLOOKUP(1,A:A,B:B)", "NOW()", "OFFSET(A1,1048575,16383)", "'O''Brien'!A1",
]
HOSTILE_ELEMENTS = [
    '<row r="five"/>', '<row r="1048577"/>', '<c r="ZZZZ1"/>', '<c r="A1"><f>\'[secret.xlsx]S\'!A1</f></c>',
    '<c r="A1" t="s"><v>99999999</v></c>', '<c r="A1" s="999999"><v>1</v></c>',
    '<c r="B2" t="e"><v>#BOGUS!</v></c>', '<c r="B2"><f t="array" ref="B2:XFD1048576">1</f></c>',
    '<Relationship Id="rIdX" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" '
    'Target="../../../../etc/passwd"/>',
    '<definedName name="X">\'/etc/[passwd]S\'!$A$1</definedName>', "<a>" * 300 + "</a>" * 300,
    '<f>' + "1+" * 5000 + '1</f>',
]
_NUMBER = re.compile(rb'(?<=")-?[0-9]+(?:\.[0-9]+)?(?=")')
_ATTR = re.compile(rb'="([^"]*)"')
_FORMULA = re.compile(rb"(<(?:\w+:)?f(?: [^>]*)?>)([^<]*)(</(?:\w+:)?f>)")
_TAG_END = re.compile(rb">")


def _xml_escape(text: str) -> bytes:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;").encode()


def _op_flip(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    i = rng.randrange(len(data))
    return data[:i] + bytes([rng.randrange(256)]) + data[i + 1:], f"flip byte {i}"


def _op_delete(data: bytes, rng: random.Random):
    i = rng.randrange(len(data))
    n = rng.randint(1, 64)
    return data[:i] + data[i + n:], f"delete {n} bytes at {i}"


def _op_duplicate(data: bytes, rng: random.Random):
    i = rng.randrange(len(data))
    n = rng.randint(1, 200)
    return data[:i + n] + data[i:i + n] + data[i + n:], f"duplicate {n} bytes at {i}"


def _op_truncate(data: bytes, rng: random.Random):
    i = rng.randrange(len(data))
    return data[:i], f"truncate at {i}"


def _op_number(data: bytes, rng: random.Random):
    found = list(_NUMBER.finditer(data))
    if not found:
        return _op_flip(data, rng)
    m = rng.choice(found)
    new = rng.choice(HOSTILE_NUMBERS)
    return data[:m.start()] + _xml_escape(new) + data[m.end():], f"number {m.group().decode()!r} -> {new[:20]!r}"


def _op_attribute(data: bytes, rng: random.Random):
    found = list(_ATTR.finditer(data))
    if not found:
        return _op_flip(data, rng)
    m = rng.choice(found)
    new = rng.choice(HOSTILE_TEXT + HOSTILE_NUMBERS)
    return data[:m.start(1)] + _xml_escape(new) + data[m.end(1):], f"attribute -> {new[:20]!r}"


def _op_formula(data: bytes, rng: random.Random):
    found = list(_FORMULA.finditer(data))
    if not found:
        return _op_element(data, rng)
    m = rng.choice(found)
    new = rng.choice(HOSTILE_FORMULAS)
    return data[:m.start(2)] + _xml_escape(new) + data[m.end(2):], f"formula -> {new[:30]!r}"


def _op_element(data: bytes, rng: random.Random):
    ends = [m.end() for m in _TAG_END.finditer(data)]
    if not ends:
        return _op_flip(data, rng)
    i = rng.choice(ends)
    new = rng.choice(HOSTILE_ELEMENTS)
    return data[:i] + new.encode() + data[i:], f"insert {new[:30]!r}"


OPERATORS = [_op_flip, _op_delete, _op_duplicate, _op_truncate, _op_number, _op_number, _op_attribute,
             _op_attribute, _op_formula, _op_formula, _op_element, _op_element]


def mutate(template: bytes, rng: random.Random, package: bool = True) -> tuple[bytes | None, str]:
    """One fuzz case: the template with one XML part mutated; returns (zip bytes, description).

    ``package=False``: the same draws from ``rng`` and the same description, without writing the zip (None
    instead of its bytes): to reach case N of a seed without packaging the cases before it."""
    with zipfile.ZipFile(io.BytesIO(template)) as zin:
        infos = zin.infolist()
        xml = [i for i in infos if i.filename.endswith((".xml", ".rels"))]
        weights = [6 if "worksheets/" in i.filename or i.filename.endswith("workbook.xml") else 1 for i in xml]
        target = rng.choices(xml, weights)[0]
        data = zin.read(target)
        steps = []
        for _ in range(rng.choice((1, 1, 2, 3))):
            if not data:
                break
            data, what = rng.choice(OPERATORS)(data, rng)
            steps.append(what)
        if not package:
            return None, f"{target.filename}: " + "; ".join(steps)
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
            for info in infos:
                zout.writestr(info.filename, data if info is target else zin.read(info))
    return out.getvalue(), f"{target.filename}: " + "; ".join(steps)


#: the rows of each worksheet a lean template keeps (headers, parameters and the first rows of each table)
LEAN_ROWS = 24


def lean(template: bytes) -> bytes:
    """The template cut to the first :data:`LEAN_ROWS` rows of each worksheet, without its styled blank
    input cells (``<c r=".." s=".."/>``): every part, sheet, style, relationship, defined name and kind of
    formula is kept (each array formula's anchor, each table's first rows); only the thousands of rows of
    headroom that make each recalculation take seconds go (for CI speed; benchmarks/bench_fuzz.py fuzzes
    the full templates)."""
    from lxml import etree

    from xlbridge.batch.read.sheetxml import scan_sheet
    from xlbridge.batch.write.xlsxpatch import strip_empty_cells

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(template)) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename.startswith("xl/worksheets/sheet"):
                data = strip_empty_cells(data, scan_sheet(data))
                root = etree.fromstring(data)
                for row in root.iterfind("{*}sheetData/{*}row"):
                    if int(row.get("r")) > LEAN_ROWS:
                        row.getparent().remove(row)
                data = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
            zout.writestr(info.filename, data)
    return out.getvalue()


@functools.lru_cache(maxsize=2)
def _sources(lean_templates: bool) -> tuple:
    if not lean_templates:
        return tuple((p.name, p.read_bytes()) for p in TEMPLATES)
    import recalc_helpers

    def leaned(p: Path) -> bytes:
        return lean(recalc_helpers.small_build(p.name, rows=LEAN_ROWS - 4).read_bytes())

    if recalc_helpers.ARTEFACTS is None:
        return tuple((p.name, leaned(p)) for p in TEMPLATES)

    def build(folder: Path) -> None:
        for p in TEMPLATES:
            (folder / p.name).write_bytes(leaned(p))

    folder = recalc_helpers.ARTEFACTS.make(f"lean templates {LEAN_ROWS}", build)  # (once a run, for every worker)
    return tuple((p.name, (folder / p.name).read_bytes()) for p in TEMPLATES)


def cases(seed: int, count: int, *, lean_templates: bool = False, first: int = 0):
    """``count`` cases (template name, zip bytes, description) from ``seed``; ``first``: the cases from that
    index on (those before it are drawn, so that the same seed gives the same cases, but not packaged).
    ``lean_templates``: each template built with its long tables :data:`LEAN_ROWS` - 4 rows long
    (``recalc_helpers.small_build``: the same parts, names, styles and formulas, with ranges of 20 rows
    instead of 10,000), then :func:`lean`; otherwise the shipped files as they are."""
    rng = random.Random(seed)
    sources = _sources(lean_templates)
    for i in range(count):
        name, data = rng.choice(sources)
        mutated, what = mutate(data, rng, package=i >= first)
        if i >= first:
            yield name, mutated, what


def run_case(data: bytes, folder: Path, name: str = "case.xlsx", timeout: float = 30.0) -> dict:
    """Run ``xlbridge recalc`` in-process (``xlbridge.cli.main``) on one case; check and return what happened.

    Asserted for every case: exit code 0, 1 or 2; no traceback on stderr; exit 2 is exactly one line;
    the input byte-identical afterwards; the output absent (exit 2) or a workbook openpyxl opens; no
    file left in ``folder`` but the input and the output. Returns {"code", "stderr", "seconds"}.
    """
    import contextlib
    import hashlib
    import time

    import openpyxl

    from xlbridge.cli import main

    src, out = folder / name, folder / ("out-" + name)
    src.write_bytes(data)
    before = hashlib.sha256(data).hexdigest()
    stdout, stderr = io.StringIO(), io.StringIO()
    start = time.monotonic()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["recalc", str(src), "-o", str(out), "--no-progress", "--timeout", str(timeout)])
    seconds = time.monotonic() - start
    err = stderr.getvalue()
    assert code in (0, 1, 2), (code, err)
    assert "Traceback" not in err and "Traceback" not in stdout.getvalue(), err
    assert hashlib.sha256(src.read_bytes()).hexdigest() == before
    if code == 2:
        assert len(err.strip().splitlines()) == 1, err
        assert not out.exists()
    else:
        try:
            openpyxl.load_workbook(out).close()
        except Exception as exc:
            raise AssertionError(f"exit {code} but the output does not open with openpyxl: "
                                 f"{type(exc).__name__}: {exc}") from None
        out.unlink()
    left = sorted(p.name for p in folder.iterdir())
    assert left == [name], left
    src.unlink()
    return {"code": code, "stderr": err, "seconds": seconds}
