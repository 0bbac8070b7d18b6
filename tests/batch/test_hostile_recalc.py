"""The hostile uploads of issue 51 through ``xlbridge recalc``, each in a process of its own as a server runs it.

Each case is run twice, with the default limits and with ``--max-memory 1024 --timeout 60``: it must end
within 10 s of wall time and 512 MiB of peak resident memory (the issue's goals; today's figures were 2.2-3.9 GB,
up to 217 s, and 3.3 GB and 61 s for the row-tag bomb), with exit 1 and the one layout mistake the book holds, or
exit 2 and one line naming the file, never a traceback, and no file left behind but the input (and, on exit 1,
the output).

The cases: the issue's defined names over the whole sheet (``XLBRIDGE_CAPACITY`` ``'S'!$A$1:$A$1048576``,
``XLBRIDGE_RESULTS`` ``'S'!$B$1:$XFD$1048576``) on 2,000 values, the same with the results named twice, and on
100,000 values named five times; ``workbooks/pairs.xlsx`` with 20 million ``<row r="5"/>`` in its Travellers part
(a 290 MB part, a few MB compressed: within the zip checks' ratio); a table whose range is wider than its
declared columns; two tables that overlap; one 48 MB attribute, and one 48 MB comment, in a sheet (expat 2.5 scans an
unfinished token again at every chunk read: 50 s before the guard bounded a token); and a nesting too deep, a formula
too long and a 2 MB tag in the second half of the pairs template's Travellers part, which the gate scans in a forked
process.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest
from server_helpers import ROOT, measured_cli
from test_gate import _with_tables, names_book

MiB_BOUND = 512
SECONDS_BOUND = 10


def _row_bomb(path: Path) -> Path:
    """workbooks/pairs.xlsx with 20 million empty ``<row r="5"/>`` first in its Travellers part (each with one to
    four spaces before its ``r``, at random: about 50:1 deflated, under the 200:1 the zip checks allow), written in
    chunks."""
    import random

    from recalc_helpers import sheet_parts

    src = ROOT / "workbooks" / "pairs.xlsx"
    part = sheet_parts(src)["Travellers"]
    with zipfile.ZipFile(src) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    data = parts[part]
    at = data.index(b"<sheetData>") + len(b"<sheetData>")
    rng = random.Random(51)
    chunk = b"".join(b"<row" + b" " * rng.randint(1, 4) + b'r="5"/>' for _ in range(1_000_000))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as out:
        for name, member in parts.items():
            if name != part:
                out.writestr(name, member)
                continue
            with out.open(name, "w", force_zip64=True) as fh:
                fh.write(data[:at])
                for _ in range(20):
                    fh.write(chunk)
                fh.write(data[at:])
    return path


def _long_token(path: Path, what: bytes) -> Path:
    """workbooks/pairs.xlsx with one 48 MB XML token in its Instructions part: ``what`` holds ``{}`` where 24 million
    random bytes go, written as hex (within the zip checks' ratio)."""
    from recalc_helpers import sheet_parts

    src = ROOT / "workbooks" / "pairs.xlsx"
    part = sheet_parts(src)["Instructions"]
    with zipfile.ZipFile(src) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    token = what.replace(b"{}", os.urandom(24 << 20).hex().encode())
    parts[part] = parts[part].replace(b"</sheetData>", token + b"</sheetData>", 1)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as out:
        for name, member in parts.items():
            out.writestr(name, member)
    return path


def _in_travellers_tail(path: Path, cell: bytes) -> Path:
    """workbooks/pairs.xlsx with ``cell`` (``{}``: 1 MB of random bytes written as hex) added at the end of its
    Travellers row 9,000, in the second half of the 13 MB part, which the gate scans in a forked process
    (``xlbridge.batch.guard.sheethalves``): its refusal must still come, within the bounds, in the whole scan's words."""
    from recalc_helpers import sheet_parts

    src = ROOT / "workbooks" / "pairs.xlsx"
    part = sheet_parts(src)["Travellers"]
    with zipfile.ZipFile(src) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    data = parts[part]
    at = data.index(b"</row>", data.index(b'<row r="9000"'))
    parts[part] = data[:at] + cell.replace(b"{}", os.urandom(1 << 20).hex().encode()) + data[at:]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as out:
        for name, member in parts.items():
            out.writestr(name, member)
    return path


def _declared_again(folder: Path, kind: str, times: int) -> Path:
    """The issue's book of 100,000 values with ``kind`` declared ``times`` times over column A from row k down."""
    from server_helpers import read_member, rebuild

    path = Path(names_book(folder / f"{kind}.xlsx", 100_000))
    workbook = read_member(path, "xl/workbook.xml").decode()
    again = "".join(f'<definedName name="{kind}" localSheetId="0">\'S\'!$A${k}:$A$1048576</definedName>'
                    for k in range(1, times + 1))
    return rebuild(path, folder / f"{kind}-again.xlsx",
                   replace={"xl/workbook.xml": workbook.replace("</definedNames>", again + "</definedNames>").encode()})


CASES = {  # name: (how it is made, exit code, what the one line or the one error says)
    "names-2000": (lambda d: names_book(d / "names-2000.xlsx", 2000), 1, "S!B1: row 1 has no formula"),
    "names-2000-twice": (lambda d: names_book(d / "names-twice.xlsx", 2000, times=2), 1,
                         "S!B1: row 1 has no formula"),
    "names-100000-five": (lambda d: names_book(d / "names-five.xlsx", 100_000, times=5), 1,
                          "S!B1: row 1 has no formula"),
    "row-tag-bomb": (lambda d: _row_bomb(d / "rowbomb.xlsx"), 2, "refused: more than 1,048,576 rows, the limit"),
    # the review's variant: 100,000 values, the capacity name declared 2,000 times (each over the whole column)
    "capacity-2000-times": (lambda d: _declared_again(d, "XLBRIDGE_CAPACITY", 2000), 2,
                            "refused: defined name XLBRIDGE_CAPACITY is declared more than once for sheet S"),
    "print-200-times": (lambda d: _declared_again(d, "XLBRIDGE_PRINT", 200), 2,
                        "refused: defined name XLBRIDGE_PRINT is declared more than once for sheet S"),
    # one 48 MB tag (an attribute) or comment: expat 2.5 scans an unfinished token again at every chunk (50 s)
    "long-attribute": (lambda d: _long_token(d / "attribute.xlsx", b'<row r="900"><c r="A900" xx="{}"/></row>'), 2,
                       "refused: sheet Instructions holds a tag, comment or processing instruction longer than 1,048,576 bytes, the limit"),
    "long-comment": (lambda d: _long_token(d / "comment.xlsx", b"<!-- {} -->"), 2,
                     "refused: sheet Instructions holds a tag, comment or processing instruction longer than 1,048,576 bytes, the limit"),
    # the second half of a large sheet, scanned by a forked process: refused as the whole scan refuses it
    "tail-deep": (lambda d: _in_travellers_tail(d / "deep.xlsx", b'<c r="Q9000">' + b"<x>" * 300 + b"</x>" * 300
                                                + b"</c>"), 2, "nests elements more than 256 deep"),
    "tail-formula": (lambda d: _in_travellers_tail(d / "formula.xlsx", b'<c r="Q9000"><f>' + b"1+" * 5000 + b"1</f></c>"),
                     2, "refused: sheet Travellers, cell 'Q9000': a formula longer than 8,192 characters, the limit"),
    "tail-token": (lambda d: _in_travellers_tail(d / "token.xlsx", b'<c r="Q9000" xx="{}"/>'), 2,
                   "refused: sheet Travellers holds a tag, comment or processing instruction longer than 1,048,576 bytes, the limit"),
    "table-too-wide": (lambda d: _with_tables(d, [("A1:G11", 3)]), 2,
                       "table T1 of sheet S: its range A1:G11 is 7 columns wide but it declares 3 columns"),
    "tables-overlap": (lambda d: _with_tables(d, [("A1:C11", 3), ("C5:D11", 2)]), 2,
                       "table T2 of sheet S (C5:D11) overlaps table T1 (A1:C11)"),
}


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    out = {}
    for name, (make, _code, _says) in CASES.items():
        folder = tmp_path_factory.mktemp(name)
        out[name] = Path(make(folder))
    return out


@pytest.mark.parametrize("limits", [(), ("--max-memory", "1024", "--timeout", "60")], ids=["default", "1GiB-60s"])
@pytest.mark.parametrize("case", list(CASES))
def test_each_hostile_book_is_done_or_refused_within_the_bounds(books, case, limits, tmp_path, monkeypatch):
    src = books[case]
    if case.startswith("tail-"):  # (two cores for the book whatever the machine: its large part scanned in halves)
        monkeypatch.setenv("XLBRIDGE_BOOK_CORES", "2")
    work, tmpdir = tmp_path / "work", tmp_path / "tmp"
    work.mkdir()
    tmpdir.mkdir()
    out = work / "out.xlsx"
    code, stdout, stderr, seconds, peak = measured_cli("recalc", src, "-o", out, "--no-progress", *limits,
                                                       cwd=work, tmpdir=tmpdir)
    _make, expected, says = CASES[case]
    assert "Traceback" not in stderr + stdout
    assert code == expected, (code, stdout[-1000:], stderr[-1000:])
    assert seconds < SECONDS_BOUND, seconds
    assert peak < MiB_BOUND, peak
    if expected == 2:
        lines = stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"xlbridge recalc: {src.name}: "), lines
        assert says in lines[0], lines
        assert not out.exists()
    else:
        assert stdout.splitlines()[0].startswith(says), stdout
        assert out.exists()
    assert sorted(os.listdir(work)) == (["out.xlsx"] if expected == 1 else [])
    assert os.listdir(tmpdir) == []
