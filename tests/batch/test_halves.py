"""A large worksheet part read in two halves (xlbridge.batch.read.halves) gives the whole reading's result.

The expected value of every test is the whole reading (``sheetxml.read_sheet``, itself compared
with openpyxl's reading in tests/batch/test_engine_paths.py): the same SheetRead, with its dictionaries
in the same order, or the same refusal. Random sheets (hypothesis) hold every kind of cell the
reading knows, shared formulas whose groups cross the split, array ranges, comments, CDATA and
processing instructions between and inside rows; every split candidate is tried, including those
inside a comment, a CDATA section or a cell's text, which expat must not confirm.
"""

from __future__ import annotations

import os
import re
import shutil
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlbridge.batch.read import halves
from xlbridge.batch.read.sheetxml import SHARED_LATER, Half, read_sheet, read_sheet_half
from xlbridge.core.errors import WorkbookError

ROOT = Path(__file__).resolve().parents[2]

NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
SHARED = ["alpha", "beta", "gamma"]


def _halves_in_process(data: bytes, split: tuple, later: bool = False, **kw):
    """The two halves and their merge in this process (what read_sheet_halves does across a fork);
    ``later``: the tail is read without the shared-string table (``start_tail(later=True)``)."""
    head, hx = read_sheet_half(data, Half(head=split[0]), **kw)
    if not hx["confirmed"]:
        return head, "whole"
    try:
        tail, tx = read_sheet_half(data, Half(tail=split), **{**kw, "shared_strings": SHARED_LATER} if later else kw)
    except WorkbookError:
        return read_sheet(data, **kw), "tail failed"
    tail = halves._unpack(halves._pack(tail))  # (as it crosses the pipe)
    if later and not halves._look_up((tail, tx), kw["shared_strings"]):
        return read_sheet(data, **kw), "fallback"
    merged = halves._merge(head, hx, tail, tx, data, split[0], kw.get("values", False))
    return (merged, "merged") if merged is not None else (read_sheet(data, **kw), "fallback")


def _same(a, b) -> None:
    assert a == b
    # (and in the same order: the engine builds its nodes and messages in the reading's order)
    assert list(a.columns) == list(b.columns)
    assert list(a.formulas) == list(b.formulas)
    assert list(a.layout.cells) == list(b.layout.cells)
    assert list(a.layout.rows) == list(b.layout.rows)
    assert list(a.layout.formula_cells) == list(b.layout.formula_cells)
    assert list(a.layout.row_cells) == list(b.layout.row_cells)
    assert list(a.special) == list(b.special) and list(a.array_refs) == list(b.array_refs)
    assert a.layout.array_ranges == b.layout.array_ranges


def _cell(ref: str, kind: str, row: int, extra: int) -> str:
    if kind == "n":
        return f'<c r="{ref}" s="1"><v>{row * 7 + extra}.5</v></c>'
    if kind == "int":
        return f'<c r="{ref}" t="n"><v>{row}</v></c>'
    if kind == "blank":
        return f'<c r="{ref}" s="1"/>'
    if kind == "s":
        return f'<c r="{ref}" t="s"><v>{extra % len(SHARED)}</v></c>'
    if kind == "s past the table":  # (refused: the message names the cell and the table's size)
        return f'<c r="{ref}" t="s"><v>{len(SHARED) + extra}</v></c>'
    if kind == "b":
        return f'<c r="{ref}" t="b"><v>{extra % 2}</v></c>'
    if kind == "inline":
        return f'<c r="{ref}" t="inlineStr"><is><t>x&amp;y &lt;row r="9"&gt; {extra}</t></is></c>'
    if kind == "cdata":
        return f'<c r="{ref}" t="inlineStr"><is><t><![CDATA[<row r="{row + 1}"><c r="A1"/></row>]]></t></is></c>'
    if kind == "f":
        return f'<c r="{ref}"><f>A{row}*2+{extra}</f><v>1</v></c>'
    if kind == "str":
        return f'<c r="{ref}" t="str"><f>"a"&amp;"b"</f><v>ab</v></c>'
    if kind == "err":
        return f'<c r="{ref}" t="e"><v>#N/A</v></c>'
    if kind == "date":
        return f'<c r="{ref}" t="d"><v>2026-11-26T10:00:00</v></c>'
    if kind == "two values":  # (noted: openpyxl's reading decides)
        return f'<c r="{ref}"><v>1</v><v>2</v></c>'
    if kind == "foreign":  # (noted: an element of another namespace)
        return f'<c r="{ref}"><o:x xmlns:o="urn:other"/><v>3</v></c>'
    if kind == "damaged":  # (refused: the message names the cell)
        return f'<c r="{ref}" t="b"><v>maybe</v></c>'
    raise AssertionError(kind)


KINDS = ["n", "int", "blank", "s", "b", "inline", "cdata", "f", "str", "err", "date"] * 4 + [
    "two values", "foreign", "damaged", "s past the table"]
BETWEEN = ["", "\n  ", "<!-- <row r=\"99\"> -->", "<?pi <row r=\"98\"?>"]


@st.composite
def sheets(draw):
    n = draw(st.integers(2, 24))
    cols = "BCDEF"
    shared_col = draw(st.booleans())  # one shared group down column G (Excel's filled column)
    shared_from = draw(st.integers(1, n))
    second_master = draw(st.booleans())  # the same group number given a text again further down (odd)
    array_at = draw(st.sampled_from([None, 1, n // 2 + 1]))
    array_len = draw(st.integers(1, n))
    unnumbered = draw(st.sampled_from([None, *range(n)]))  # a row without its number (counted on)
    rows, row_no = [], 0
    array_rows = (0, -1)  # (first, last) row number of the array range in column H
    for i in range(n):
        row_no += 1 if i == unnumbered else draw(st.integers(1, 3))  # (a row without its number: the next)
        cells = [f'<c r="A{row_no}"><v>{row_no}</v></c>']
        for j, col in enumerate(cols):
            if draw(st.booleans()):
                cells.append(_cell(f"{col}{row_no}", draw(st.sampled_from(KINDS)), row_no, i + j))
        if shared_col and i + 1 >= shared_from:
            if i + 1 == shared_from or (second_master and i == n - 1):
                ref = f"G{row_no}:G{row_no + 40}"
                cells.append(f'<c r="G{row_no}"><f t="shared" si="0" ref="{ref}">A{row_no}+B{row_no}</f><v>0</v></c>')
            else:
                cells.append(f'<c r="G{row_no}"><f t="shared" si="0"/><v>0</v></c>')
        if array_at is not None and i + 1 == array_at:
            ref = f"H{row_no}:H{row_no + array_len}"
            cells.append(f'<c r="H{row_no}"><f t="array" ref="{ref}">A{row_no}*3</f><v>0</v></c>')
            array_rows = (row_no, row_no + array_len)
        elif array_rows[0] < row_no <= array_rows[1] and draw(st.booleans()):  # a cached value (skipped)
            cells.append(_cell(f"H{row_no}", draw(st.sampled_from(KINDS)), row_no, i))
        head = "<row>" if i == unnumbered else f'<row r="{row_no}">'
        rows.append((draw(st.sampled_from(BETWEEN)) + head + "".join(cells) + "</row>", row_no))
    tail = draw(st.sampled_from(["", '<mergeCells count="1"><mergeCell ref="A1:B1"/></mergeCells>',
                                 # a second sheet data (noted; its layout is the one the whole reading keeps)
                                 '<sheetData><row r="900"><c r="A900"><v>9</v></c></row>'
                                 '<row r="901"><c r="A901"><f t="array" ref="A901:B902">1</f></c></row>'
                                 '</sheetData>']))
    xml = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="{NS}">'
           f'<sheetViews><sheetView workbookViewId="0"/></sheetViews><sheetData>'
           + "".join(text for text, _ in rows) + f"</sheetData>{tail}</worksheet>")
    if draw(st.booleans()):  # the spreadsheet namespace written with a prefix, as some programs do
        xml = re.sub(r"<(/?)(worksheet|sheetViews|sheetView|sheetData|row|c|v|f|is|t|mergeCells|mergeCell)([ />])",
                     r"<\1x:\2\3", xml).replace(f'xmlns="{NS}"', f'xmlns:x="{NS}"')
    return xml.encode("utf-8")


def _candidates(data: bytes, prefix: bytes = b""):
    """Every byte where the text '<row' (with the sheet data's prefix) starts: the search's candidates."""
    tag = b"<" + prefix + b"row"
    i = data.find(tag)
    while i >= 0:
        yield i
        i = data.find(tag, i + 1)


def _whole_or_error(data: bytes, **kw):
    try:
        return read_sheet(data, **kw), None
    except WorkbookError as exc:
        return None, str(exc)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sheets())
@pytest.mark.parametrize("table", [SHARED, None, []], ids=["table", "no table", "empty table"])
def test_the_two_halves_are_the_whole_reading_at_every_split(table, data):
    kw = dict(values=True, shared_strings=table, cell_formats=5, sheet="S")
    whole, error = _whole_or_error(data, **kw)
    declarations, name = halves.sheet_start(data, len(data))
    prefix = name[: -len("sheetData")].encode()
    assert (declarations, name) in (([("xmlns", NS)], "sheetData"), ([("xmlns:x", NS)], "x:sheetData"))
    ways = set()
    for at in _candidates(data, prefix):
        split = (at, declarations, name)
        for later in (False, True):  # (the shared strings looked up in the tail, or in the merge)
            try:
                got, way = _halves_in_process(data, split, later, **kw)
            except WorkbookError as exc:
                assert error is not None and str(exc) == error
                continue
            assert error is None, error
            _same(got, whole)
            ways.add(way)
    assert ways or error is not None  # (a damaged sheet: every way raised the whole reading's error)


def test_a_split_inside_a_comment_cdata_or_text_is_not_taken():
    rows = "".join(f'<row r="{i}"><c r="A{i}"><v>{i}</v></c></row>' for i in range(1, 5))
    odd = ('<!-- <row r="50"><c r="A50"><v>1</v></c></row> -->'
           '<row r="5"><c r="A5" t="inlineStr"><is><t><![CDATA[<row r="51">]]></t></is></c></row>'
           '<?x <row r="52"?>')
    later = "".join(f'<row r="{i}"><c r="A{i}"><v>{i}</v></c></row>' for i in range(11, 15))
    data = f'<worksheet xmlns="{NS}"><sheetData>{rows}{odd}{later}</sheetData></worksheet>'.encode()
    kw = dict(values=True, shared_strings=[], sheet="S")
    whole = read_sheet(data, **kw)
    taken = []
    for at in _candidates(data):
        got, way = _halves_in_process(data, (at, [("xmlns", NS)], "sheetData"), **kw)
        _same(got, whole)
        taken.append((data[at:at + 12], way))
    inside = [way for text, way in taken if text in (b'<row r="50">', b'<row r="51">', b'<row r="52"?')]
    assert inside == ["whole", "whole", "whole"]
    assert sum(way == "merged" for _, way in taken) >= 8


def test_a_shared_group_crossing_the_split_is_translated_from_its_first_cell():
    rows = "".join(
        f'<row r="{i}"><c r="A{i}"><v>{i}</v></c><c r="B{i}"><f t="shared" si="3"'
        + (' ref="B1:B20">A1*2</f>' if i == 1 else "/>") + "</c></row>" for i in range(1, 21))
    data = f'<worksheet xmlns="{NS}"><sheetData>{rows}</sheetData></worksheet>'.encode()
    kw = dict(values=True, shared_strings=[], sheet="S")
    split = halves.split_point(data)
    got, way = _halves_in_process(data, split, **kw)
    assert way == "merged"
    _same(got, read_sheet(data, **kw))
    assert got.formulas[(20, 2)] == "=A20*2"  # (openpyxl's translation of A1*2 from B1 to B20)


def test_an_array_range_crossing_the_split_makes_the_head_read_on():
    rows = "".join(f'<row r="{i}"><c r="A{i}"><v>{i}</v></c>'
                   + ('<c r="B1"><f t="array" ref="B1:B20">A1:A20*2</f><v>2</v></c>' if i == 1 else "")
                   + "</row>" for i in range(1, 21))
    data = f'<worksheet xmlns="{NS}"><sheetData>{rows}</sheetData></worksheet>'.encode()
    kw = dict(values=True, shared_strings=[], sheet="S")
    got, way = _halves_in_process(data, halves.split_point(data), **kw)
    assert way == "whole"  # (the head reads on: its array range reaches past the split)
    _same(got, read_sheet(data, **kw))
    # the tail is stopped as soon as the head reads on (not when the head has read the whole part)
    calls: list = []
    read_sheet_half(data, Half(head=halves.split_point(data)[0], reading_on=lambda: calls.append(len(calls))), **kw)
    assert calls == [0]
    plain = data.replace(b'<c r="B1"><f t="array" ref="B1:B20">A1:A20*2</f><v>2</v></c>', b"")
    _, hx = read_sheet_half(plain, Half(head=halves.split_point(plain)[0], reading_on=lambda: calls.append(1)), **kw)
    assert hx["confirmed"] and calls == [0]  # (confirmed: the tail's reading is used)


def test_a_damaged_row_after_the_split_is_refused_with_the_whole_readings_message(monkeypatch):
    rows = [f'<row r="{i}"><c r="A{i}"><v>{i}</v></c></row>' for i in range(1, 41)]
    rows[30] = '<row r="31"><c r="A31" t="b"><v>maybe</v></c></row>'
    data = f'<worksheet xmlns="{NS}"><sheetData>{"".join(rows)}</sheetData></worksheet>'.encode()
    monkeypatch.setattr(halves, "SPLIT_ABOVE", 0)
    with pytest.raises(WorkbookError) as whole:
        read_sheet(data, values=True, sheet="S")
    with pytest.raises(WorkbookError) as split:
        halves.read_sheet_halves(data, values=True, sheet="S")  # (forks: the tail fails, the head reads all)
    assert str(split.value) == str(whole.value)
    assert "cell A31" in str(whole.value)


def test_rows_out_of_order_across_the_split_are_refused_as_the_whole_reading_does(monkeypatch):
    rows = [f'<row r="{i}"><c r="A{i}"><v>{i}</v></c></row>' for i in range(1, 41)]
    rows[25] = '<row r="3"><c r="A3"><v>3</v></c></row>'
    data = f'<worksheet xmlns="{NS}"><sheetData>{"".join(rows)}</sheetData></worksheet>'.encode()
    monkeypatch.setattr(halves, "SPLIT_ABOVE", 0)
    monkeypatch.setattr(halves, "SPLIT_AT", data.find(b'<row r="3"><c r="A3"><v>3</v></c></row><row r="27"')
                        / len(data))
    with pytest.raises(WorkbookError) as whole:
        read_sheet(data, values=True, sheet="S")
    with pytest.raises(WorkbookError) as split:
        halves.read_sheet_halves(data, values=True, sheet="S")
    assert str(split.value) == str(whole.value) and "row 3" in str(whole.value)


def test_the_forked_tail_gives_the_same_reading_and_dates_cross_the_pipe(monkeypatch):
    rows = "".join(f'<row r="{i}"><c r="A{i}"><v>{i}</v></c><c r="B{i}" t="d"><v>2026-11-{i % 28 + 1:02d}</v></c>'
                   f'<c r="C{i}"><f>A{i}+1</f></c></row>' for i in range(1, 400))
    data = f'<worksheet xmlns="{NS}"><sheetData>{rows}</sheetData></worksheet>'.encode()
    monkeypatch.setattr(halves, "SPLIT_ABOVE", 0)
    calls = []
    real = halves.read_sheet
    monkeypatch.setattr(halves, "read_sheet", lambda *a, **k: calls.append(1) or real(*a, **k))
    got = halves.read_sheet_halves(data, values=True, sheet="S")
    assert calls == []  # (merged: the whole reading never ran)
    _same(got, read_sheet(data, values=True, sheet="S"))
    assert len(got.special) == 399  # (the date cells: pickled, as marshal refuses a datetime)


def test_small_parts_and_layout_readings_are_read_whole(monkeypatch):
    data = f'<worksheet xmlns="{NS}"><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>'
    monkeypatch.setattr(halves, "read_sheet_half", lambda *a, **k: pytest.fail("split"))
    assert halves.read_sheet_halves(data.encode(), values=True) == read_sheet(data.encode(), values=True)
    monkeypatch.setattr(halves, "SPLIT_ABOVE", 0)
    assert halves.read_sheet_halves(data.encode(), values=False) == read_sheet(data.encode(), values=False)
    assert halves.read_sheet_halves(data.encode(), values=True, full=True) == read_sheet(
        data.encode(), values=True, full=True)


def test_a_recalculation_reading_its_travellers_in_halves_writes_the_same_book(tmp_path, monkeypatch):
    """End to end, in the engine's sandboxed process (whose file guard refuses any other fork)."""
    import mmap

    book = tmp_path / "pairs.xlsx"
    shutil.copyfile(ROOT / "workbooks" / "pairs.xlsx", book)  # (the template as shipped: a fresh build, values cached)
    merges = mmap.mmap(-1, 8)  # (shared with the forked engine process: it counts the merges there)
    # (counted in the engine's process: halves merged, a part read aside)
    for i, name in enumerate(["_merge", "start_aside"]):
        monkeypatch.setattr(halves, name, _counting(getattr(halves, name), merges, i))
    monkeypatch.setenv("XLBRIDGE_BOOK_CORES", "2")  # (two cores for this book, whatever the machine has)
    # whole readings only, then the large parts merged from halves (the sandbox let the fork through)
    _whole_then_halves_write_the_same_book(book, tmp_path, monkeypatch, merges)
    assert merges[1] == 1  # (and one middle-sized part read aside, in the second run only)


def _counting(real, counts, i):
    """``real``, counting in ``counts[i]`` (an mmap the engine's process shares) the calls that gave something."""
    def counted(*args, **kwargs):
        got = real(*args, **kwargs)
        if got is not None:
            counts[i] = counts[i] + 1
        return got

    return counted


def test_a_book_given_one_core_reads_its_parts_whole(tmp_path, monkeypatch):
    """Under ``--jobs`` with as many books at once as cores (``XLBRIDGE_BOOK_CORES=1``) the engine forks
    no tail process (the other books keep the cores busy) and the parent's scan does not wait for the
    reading. Same output as with two cores, where it does both and the halves are merged."""
    from xlbridge.batch import recalc
    from xlbridge.batch.recalc import recalc_workbook
    import mmap

    book = tmp_path / "pairs.xlsx"
    shutil.copyfile(ROOT / "workbooks" / "pairs.xlsx", book)  # (the template as shipped: a fresh build, values cached)
    counts = mmap.mmap(-1, 8)  # (shared with the forked engine process: tails started, halves merged there)
    real_start, real_merge, real_run = halves.start_tail, halves._merge, recalc.run_engine

    def counting_start(*args, **kwargs):
        got = real_start(*args, **kwargs)
        if got is not None:
            counts[0] = counts[0] + 1
        return got

    def counting_merge(*args):
        got = real_merge(*args)
        if got is not None:
            counts[1] = counts[1] + 1
        return got

    waits = []

    def recording_run(job, *args, **kwargs):
        waits.append(job.halves)
        return real_run(job, *args, **kwargs)

    monkeypatch.setattr(halves, "start_tail", counting_start)
    monkeypatch.setattr(halves, "_merge", counting_merge)
    monkeypatch.setattr(recalc, "run_engine", recording_run)
    monkeypatch.setattr(halves, "SPLIT_ABOVE", 1 << 12)
    outs, seen = {}, {}
    for n in ("1", "2"):
        monkeypatch.setenv("XLBRIDGE_BOOK_CORES", n)
        counts[0] = counts[1] = 0
        out = tmp_path / f"out{n}.xlsx"
        report = recalc_workbook(str(book), str(out), progress=False)
        assert report.ok, report.errors
        with zipfile.ZipFile(out) as zf:
            outs[n] = {name: zf.read(name) for name in zf.namelist()}
        seen[n] = (counts[0], counts[1])
    assert seen["1"] == (0, 0) and min(seen["2"]) > 0
    assert waits == [False, True]
    assert outs["1"] == outs["2"]


def _whole_then_halves_write_the_same_book(book, tmp_path, monkeypatch, counted) -> None:
    """Recalculate ``book`` with every part read whole, then with parts over 4 KiB read in halves: the
    outputs are equal byte for byte, and ``counted[0]`` (an mmap the engine's process counts in) is 0
    after the first run only."""
    from xlbridge.batch.recalc import recalc_workbook

    outs = {}
    for above in (1 << 40, 1 << 12):
        monkeypatch.setattr(halves, "SPLIT_ABOVE", above)
        # (the split sought where an engine's process that imports first splits: the book's text cells lie
        # after it, whichever process imported the engine)
        monkeypatch.setattr(halves, "SPLIT_AT", halves.SPLIT_AT_LATER)
        # (and the largest part from 2 KiB to 4 KiB read whole aside, by a forked process, in the second run)
        monkeypatch.setattr(halves, "ASIDE_ABOVE", 1 << 40 if above == 1 << 40 else 1 << 11)
        out = tmp_path / f"out{above}.xlsx"
        report = recalc_workbook(str(book), str(out), progress=False)
        assert report.ok, report.errors
        with zipfile.ZipFile(out) as zf:
            outs[above] = {name: zf.read(name) for name in zf.namelist()}
        assert (above, counted[0] > 0) in ((1 << 40, False), (1 << 12, True))
    assert outs[1 << 40] == outs[1 << 12]


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed")
def test_a_book_saved_by_libreoffice_reads_its_shared_strings_after_the_split(tmp_path, monkeypatch, libreoffice):
    """LibreOffice (like Excel) saves text as shared strings: the first large part's second half is read
    before the table (``start_tail(later=True)``), its strings are looked up in the merge, and the
    output is the whole readings' byte for byte (end to end, in the sandboxed engine process)."""
    import mmap

    monkeypatch.setenv("XLBRIDGE_BOOK_CORES", "2")  # (two cores for this book, whatever the machine has)

    import openpyxl

    from xlbridge.templates import build_workbook

    wb = build_workbook("pairs.xlsx")
    ws = wb["Travellers"]
    for r in range(5, 25):  # (the template's example rows)
        for c in range(1, 14):
            if c != 8:
                ws.cell(r, c).value = None
    # the rows past 405 emptied: LibreOffice takes 15 s to load the template's 10,000 rows of formulas
    for row in ws.iter_rows(min_row=406):
        for c in row:
            c.value = None
    for i in range(300):  # (board, N-S, E-W, contract, declarer, tricks): text cells all down the part
        for c, v in enumerate((i // 6 + 1, i % 6 + 1, i % 6 + 7, ["4S", "3NT", "2HX"][i % 3], "NESW"[i % 4],
                               8 + i % 4), start=1):
            ws.cell(5 + i, c, v)
    built = tmp_path / "built.xlsx"
    wb.save(built)
    book = tmp_path / "lo.xlsx"  # saved by LibreOffice (conftest.py's ``libreoffice``: a shared profile)
    shutil.copyfile(libreoffice(built, "xlsx") / "built.xlsx", book)
    with zipfile.ZipFile(book) as zf:
        assert b't="s"' in zf.read("xl/worksheets/sheet2.xml") and "xl/sharedStrings.xml" in zf.namelist()
    assert openpyxl.load_workbook(book)["Travellers"]["D7"].value == "2HX"
    looked_up = mmap.mmap(-1, 8)  # (shared with the forked engine process)
    real_look_up = halves._look_up

    def counting(got, shared):
        ok = real_look_up(got, shared)
        if ok and got[1].get("later"):
            looked_up[0] = min(looked_up[0] + 1, 255)
        return ok

    monkeypatch.setattr(halves, "_look_up", counting)
    _whole_then_halves_write_the_same_book(book, tmp_path, monkeypatch, looked_up)


def test_the_engine_process_still_refuses_any_other_fork(tmp_path):
    """The file guard lets the halves fork (above) and nothing else: a function forking gets #VALUE!."""
    import openpyxl

    from xlbridge.batch.recalc import recalc_workbook

    def fork(_):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        return "forked"

    wb = openpyxl.Workbook()
    wb.active["A1"] = "=FORK(1)"
    wb.save(tmp_path / "fork.xlsx")
    report = recalc_workbook(tmp_path / "fork.xlsx", tmp_path / "fork-out.xlsx", functions={"FORK": fork})
    assert [(e.cell, e.code) for e in report.errors] == [("A1", "#VALUE!")]
    assert "the formula engine may not" in report.errors[0].message
    assert not halves.forking()


def test_a_large_sheet_over_the_cell_limit_is_refused_by_the_scan(tmp_path, monkeypatch):
    """With a part read in two halves: the guard's scan refuses it before the engine reads anything."""
    monkeypatch.setenv("XLBRIDGE_BOOK_CORES", "2")  # (two cores for this book, whatever the machine has)
    import openpyxl

    from xlbridge.batch.recalc import recalc_workbook
    from xlbridge.batch.guard.safety import SafetyLimits

    wb = openpyxl.Workbook()
    wb.active.title = "Scores"
    for r in range(1, 401):
        wb.active.cell(r, 1, r)
        wb.active.cell(r, 2, f"=A{r}*2")
    wb.save(tmp_path / "big.xlsx")
    monkeypatch.setattr(halves, "SPLIT_ABOVE", 1 << 10)  # (the sheet is ~14 KB: read in halves)
    with pytest.raises(WorkbookError) as exc:
        recalc_workbook(str(tmp_path / "big.xlsx"), functions={}, limits=SafetyLimits(max_cells=700))
    assert str(exc.value) == "big.xlsx: refused: more than 700 cells, the limit (reached in sheet Scores)"
    assert sorted(os.listdir(tmp_path)) == ["big.xlsx"]
    report = recalc_workbook(str(tmp_path / "big.xlsx"), functions={}, limits=SafetyLimits(max_cells=800))
    assert report.ok
    assert openpyxl.load_workbook(report.output, data_only=True)["Scores"]["B400"].value == 800


def test_a_damaged_row_before_the_split_is_refused_by_the_first_half_alone(monkeypatch):
    """The first half's refusal is the whole reading's (the same bytes, read first): it is not read again."""
    rows = [f'<row r="{i}"><c r="A{i}"><v>{i}</v></c></row>' for i in range(1, 41)]
    rows[3] = '<row r="4"><c r="A4" t="b"><v>maybe</v></c></row>'
    data = f'<worksheet xmlns="{NS}"><sheetData>{"".join(rows)}</sheetData></worksheet>'.encode()
    monkeypatch.setattr(halves, "SPLIT_ABOVE", 0)
    monkeypatch.setattr(halves, "read_sheet", lambda *a, **k: pytest.fail("read again"))
    with pytest.raises(WorkbookError) as split:
        halves.read_sheet_halves(data, values=True, sheet="S")
    with pytest.raises(WorkbookError) as whole:
        read_sheet(data, values=True, sheet="S")
    assert str(split.value) == str(whole.value) and "cell A4" in str(whole.value)


def test_a_second_sheet_data_after_the_split_makes_the_whole_reading_run():
    """The whole reading keeps the layout of the last sheetData (its offsets, its prefix): so does the merge."""
    rows = "".join(f'<x:row r="{i}"><x:c r="A{i}"><x:v>{i}</x:v></x:c></x:row>' for i in range(1, 21))
    data = (f'<x:worksheet xmlns:x="{NS}" xmlns:y="{NS}"><x:sheetData>{rows}</x:sheetData><y:sheetData>'
            f'<y:row r="30"><y:c r="A30"><y:v>1</y:v></y:c></y:row></y:sheetData></x:worksheet>').encode()
    kw = dict(values=True, shared_strings=[], sheet="S")
    whole = read_sheet(data, **kw)
    assert whole.layout.prefix == "y:" and whole.unusual == "two sheetData elements"
    got, way = _halves_in_process(data, halves.split_point(data, 0.3), **kw)
    assert way == "fallback"
    _same(got, whole)
    assert got.layout.sheetdata == whole.layout.sheetdata and got.layout.prefix == "y:"


def _aside_sheet() -> bytes:
    rows = "".join(f'<row r="{i}"><c r="A{i}"><v>{i}</v></c><c r="B{i}" t="d"><v>2026-11-{i % 28 + 1:02d}</v></c>'
                   f'<c r="C{i}" t="s"><v>{i % 3}</v></c><c r="D{i}"><f>A{i}+1</f><v>2</v></c></row>'
                   for i in range(1, 300))
    return f'<worksheet xmlns="{NS}"><sheetData>{rows}</sheetData></worksheet>'.encode()


def test_a_part_read_aside_by_a_forked_process_is_the_whole_reading(monkeypatch):
    """A middle-sized part read whole by a forked process while the engine's process reads the others
    (``start_aside``): the same reading as this process would make, shared strings and dates included."""
    data = _aside_sheet()
    kw = dict(values=True, sheet="S", shared_strings=SHARED, cell_formats=5)
    monkeypatch.setattr(halves, "ASIDE_ABOVE", 0)
    calls = []
    real = halves.read_sheet
    monkeypatch.setattr(halves, "read_sheet", lambda *a, **k: calls.append(1) or real(*a, **k))
    aside = halves.start_aside(data, **kw)
    assert aside is not None and aside.pid
    got = halves.finish_aside(aside, data, **kw)
    assert calls == [] and aside.pid == 0  # (the forked process's reading, and the process reaped)
    _same(got, read_sheet(data, **kw))
    assert len(got.special) == 299 and got.columns[3][1][:3] == ["beta", "gamma", "alpha"]
    monkeypatch.setattr(halves, "ASIDE_ABOVE", len(data) + 1)  # (a small part: read here)
    assert halves.start_aside(data, **kw) is None
    assert halves.start_aside(data, **{**kw, "full": True}) is None


def test_a_damaged_part_read_aside_is_refused_in_the_whole_readings_words(monkeypatch):
    data = _aside_sheet().replace(b'<c r="A150"><v>150</v></c>', b'<c r="A150" t="b"><v>maybe</v></c>')
    kw = dict(values=True, sheet="S", shared_strings=SHARED)
    monkeypatch.setattr(halves, "ASIDE_ABOVE", 0)
    with pytest.raises(WorkbookError) as whole:
        read_sheet(data, **kw)
    with pytest.raises(WorkbookError) as aside:
        halves.finish_aside(halves.start_aside(data, **kw), data, **kw)
    assert str(aside.value) == str(whole.value) and "cell A150" in str(whole.value)
