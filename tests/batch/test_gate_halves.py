"""The gate's scan of a large worksheet part in two halves (xlbridge.batch.guard.sheethalves) is the scan of
the whole part: the same counts, the same extent, the same refusal in the same words.

Expected values: the cells, rows and extent each generated sheet was built with (counted here as it is
built), and the streamed scan of the whole part (``xmlscan.scan_xml``, the gate's scan of every other
part, whose refusals tests/batch/test_safety*.py check against hand-made files). Random sheets
(hypothesis) hold plain and odd cell references, rows with and without their numbers, formulas and
texts near the limits, phonetic runs, prefixes, comments, CDATA sections and processing instructions
holding ``<row`` text, merged ranges and column records; the split is tried at every candidate,
including those inside a comment, a CDATA section, a text or an attribute, which expat must not confirm.
"""

from __future__ import annotations

import io
import os
import re
import time
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlbridge.batch.guard import safety, sheethalves
from xlbridge.batch.guard.limits import SafetyLimits
from xlbridge.batch.guard.xmlscan import Totals, counting_handler, scan_xml
from xlbridge.core.errors import WorkbookError, WorkbookLimitError

ROOT = Path(__file__).resolve().parents[2]
NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
PART = "xl/worksheets/sheet1.xml"
WHERE = "sheet S"
LIMITS = SafetyLimits(max_cells=400, max_rows=120, max_formula_length=60, max_xml_token=4096)


def _whole(data: bytes, limits: SafetyLimits = LIMITS, before: tuple = (0, 0)):
    """The streamed scan of the whole part: (cells, rows, extents) or (refusal type, message)."""
    totals = Totals()
    totals.cells, totals.rows = before
    try:
        handler = counting_handler(PART, WHERE, totals, limits, "b.xlsx")
        scan_xml(io.BufferedReader(io.BytesIO(data)), PART, "b.xlsx", handler, limits.max_xml_token, WHERE)
        handler.finish()
    except WorkbookError as exc:
        return type(exc), str(exc)
    return totals.cells, totals.rows, totals.extents


def _halves(data: bytes, at: float, limits: SafetyLimits = LIMITS, before: tuple = (0, 0)):
    totals = Totals()
    totals.cells, totals.rows = before
    old = sheethalves.SPLIT_AT
    sheethalves.SPLIT_AT = at
    try:
        sheethalves.scan_sheet_part(data, PART, WHERE, totals, limits, "b.xlsx", time.monotonic() + 60, 60.0)
    except WorkbookError as exc:
        return type(exc), str(exc)
    finally:
        sheethalves.SPLIT_AT = old
    return totals.cells, totals.rows, totals.extents


def _candidates(data: bytes) -> list[float]:
    """A fraction of the part for every place the split search may stop at (every ``row`` after a ``<``)."""
    return [max(0.0, (m.start() - 0.5) / len(data)) for m in re.finditer(rb"<(?:[^\s/>!?<]*:)?row[\s/>]", data)]


def _sheet(rows: list, p: str = "", tail: str = "") -> bytes:
    x = f"{p}:" if p else ""
    decl = f'xmlns{":" + p if p else ""}="{NS}"'
    return (f'<?xml version="1.0"?><{x}worksheet {decl}><{x}cols><{x}col min="1" max="3" width="9"/></{x}cols>'
            f'<{x}sheetData>{"".join(rows)}</{x}sheetData>{tail}</{x}worksheet>').encode()


_KINDS = ["v", "blank", "f", "long f", "text", "phonetic", "odd ref", "no ref", "comment", "cdata", "pi",
          "attr", "deep"]


@st.composite
def sheets(draw):
    """(part bytes, cells, rows, last row, last column) of a random worksheet."""
    p = draw(st.sampled_from(["", "", "x"]))
    x = f"{p}:" if p else ""
    rows, cells, row, last_col, odd = [], 0, 0, 0, False
    for _ in range(draw(st.integers(1, 40))):
        numbered = draw(st.integers(0, 9)) > 0
        row += draw(st.integers(1, 3)) if numbered else 1  # (a row without its number follows the one before)
        cols = draw(st.lists(st.sampled_from(_KINDS), max_size=6))
        body = []
        for col, kind in enumerate(cols, start=1):
            ref = f"{'ABCDEFG'[col - 1]}{row}"
            cells += 1
            if kind not in ("comment", "pi"):
                last_col = max(last_col, col)
            if kind == "v":
                body.append(f'<{x}c r="{ref}"><{x}v>{row}</{x}v></{x}c>')
            elif kind == "blank":
                body.append(f'<{x}c r="{ref}" s="1"/>')
            elif kind == "f":
                body.append(f'<{x}c r="{ref}"><{x}f>SUM(A1:A{row})</{x}f><{x}v>1</{x}v></{x}c>')
            elif kind == "long f":  # (over the limit of 60 characters: refused, naming the cell)
                body.append(f'<{x}c r="{ref}"><{x}f>{"1+" * 31}1</{x}f></{x}c>')
            elif kind == "text":
                body.append(f'<{x}c r="{ref}" t="inlineStr"><{x}is><{x}t>a &amp; b &lt;row r="9"&gt;</{x}t></{x}is></{x}c>')
            elif kind == "phonetic":
                body.append(f'<{x}c r="{ref}" t="inlineStr"><{x}is><{x}r><{x}t>ab</{x}t></{x}r>'
                            f'<{x}rPh sb="0" eb="1"><{x}t>{"k" * 40}</{x}t></{x}rPh></{x}is></{x}c>')
            elif kind == "odd ref":
                odd = True
                body.append(f'<{x}c r="${ref}"><{x}v>1</{x}v></{x}c>')
            elif kind == "no ref":
                odd = True
                body.append(f'<{x}c><{x}v>1</{x}v></{x}c>')
            elif kind == "comment":
                cells -= 1
                body.append(f'<!-- <row r="{row + 1}"><c r="A1"/></row> -->')
            elif kind == "cdata":
                body.append(f'<{x}c r="{ref}" t="inlineStr"><{x}is><{x}t><![CDATA[<row r="{row + 1}">]]></{x}t></{x}is></{x}c>')
            elif kind == "pi":
                cells -= 1
                body.append(f'<?xlb <row r="{row + 1}"> ?>')
            elif kind == "attr":
                body.append(f'<{x}c r="{ref}" xlb:n="&lt;row r=&quot;1&quot;&gt;" xmlns:xlb="urn:x"><{x}v>2</{x}v></{x}c>')
            elif kind == "deep":
                body.append(f'<{x}c r="{ref}">' + f"<{x}v>" * 3 + "1" + f"</{x}v>" * 3 + f"</{x}c>")
        number = f' r="{row}"' if numbered else ""
        rows.append(f'<{x}row{number}>{"".join(body)}</{x}row>')
    tail = draw(st.sampled_from(["", f'<{x}mergeCells><{x}mergeCell ref="A1:C3"/></{x}mergeCells>']))
    return _sheet(rows, p, tail), cells + (9 if tail else 0), len(rows), row, last_col, odd


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sheets(), st.data())
def test_the_two_halves_are_the_whole_scan_at_every_split(sheet, data):
    xml, cells, nrows, last_row, last_col, odd = sheet
    whole = _whole(xml)
    if isinstance(whole[0], int):  # (the counts the sheet was built with: the scan's own expected values)
        assert whole[0] == cells and whole[1] == nrows
        if not odd:
            assert whole[2][PART] == (last_row, last_col)
    candidates = _candidates(xml)
    for at in data.draw(st.lists(st.sampled_from(candidates), max_size=3, unique=True)) if candidates else []:
        assert _halves(xml, at) == whole


def test_a_split_inside_a_comment_cdata_text_or_attribute_is_not_taken():
    rows = [f'<row r="{r}"><c r="A{r}"><v>{r}</v></c></row>' for r in range(1, 30)]
    rows[14] = ('<!-- <row r="99"> --><row r="15"><c r="A15" t="inlineStr"><is><t>&lt;row r="98"&gt;</t></is></c>'
                '<c r="B15" t="inlineStr"><is><t><![CDATA[<row r="97">]]></t></is></c>'
                '<c r="C15" x="&lt;row r=&quot;2&quot;/&gt;"><v>1</v></c></row>')
    xml = _sheet(rows)
    whole = _whole(xml)
    assert whole[:2] == (31, 29) and whole[2][PART] == (29, 3)
    for at in _candidates(xml):
        assert _halves(xml, at) == whole


def _big(n_rows: int, row_tail: str = "") -> bytes:
    return _sheet([f'<row r="{r}"><c r="A{r}"><v>{r}</v></c><c r="B{r}"><f>A{r}*2</f></c>{row_tail}</row>'
                   for r in range(1, n_rows + 1)])


@pytest.mark.parametrize("case, mutate", [
    ("a formula too long after the split", lambda s: s.replace(b"<f>A45*2</f>", b"<f>" + b"9+" * 40 + b"9</f>")),
    ("a text too long after the split",
     lambda s: s.replace(b'<c r="A45"><v>45</v></c>', b'<c r="A45" t="inlineStr"><is><t>' + b"x" * 32_768 + b"</t></is></c>")),
    ("not well-formed after the split", lambda s: s.replace(b"<v>47</v>", b"<v>47</w>")),
    ("a token too long after the split", lambda s: s.replace(b'<c r="A46">', b'<c r="A46" x="' + b"y" * 200_000 + b'">')),
    ("a long token not across a chunk's end", lambda s: s.replace(b'<c r="A46">', b'<c r="A46" x="' + b"y" * 5000 + b'">')),
    ("a row without its number at the split", lambda s: re.sub(rb'<row r="(2[0-9]|3[0-9])">', b"<row>", s)),
    ("cells over the limit only in sum", lambda s: s),
    ("rows over the limit only in sum", lambda s: s),
    ("a deep nesting after the split", lambda s: s.replace(b"<v>44</v>", b"<v>" + b"<i>" * 300 + b"</i>" * 300 + b"</v>")),
])
def test_what_the_second_half_refuses_is_refused_as_the_whole_scan_does(case, mutate):
    xml = mutate(_big(60))
    cells, rows = {"cells over the limit only in sum": (110, 1000), "rows over the limit only in sum": (1000, 50)}.get(
        case, (1000, 1000))
    limits = SafetyLimits(max_cells=cells, max_rows=rows, max_formula_length=60, max_xml_token=4096)
    whole = _whole(xml, limits)
    got = _halves(xml, 0.4, limits)
    assert got == whole
    if case.startswith(("a row without", "a long token not")):
        assert isinstance(whole[0], int)
    else:
        assert whole[0] in (WorkbookError, WorkbookLimitError), whole


def test_the_counts_of_the_parts_before_are_carried_and_the_sum_checked():
    xml = _big(60)
    limits = SafetyLimits(max_cells=200, max_rows=1000, max_formula_length=60, max_xml_token=4096)
    assert _halves(xml, 0.5, limits, before=(50, 10)) == _whole(xml, limits, before=(50, 10)) == (170, 70, {PART: (60, 2)})
    refused = _halves(xml, 0.5, limits, before=(90, 0))
    assert refused == _whole(xml, limits, before=(90, 0))
    assert refused[0] is WorkbookLimitError and "more than 200 cells" in refused[1] and "sheet S" in refused[1]


def test_the_deadline_is_kept_in_both_halves_in_the_streamed_scans_words():
    xml = _big(3000)
    totals = Totals()
    with pytest.raises(WorkbookLimitError, match=r"^b\.xlsx: refused: checking the file took longer than the limit of 5 s "
                                                 r"\(at zip member xl/worksheets/sheet1\.xml\)$"):
        sheethalves.scan_sheet_part(xml, PART, WHERE, totals, LIMITS, "b.xlsx", time.monotonic() - 1, 5.0)


def _record_forks(monkeypatch) -> list[int]:
    """The ids of the processes this process forks from now on (in the test), in order."""
    forked: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    return forked


def test_the_forked_half_is_reaped_whatever_happens(monkeypatch):
    forked = _record_forks(monkeypatch)
    big = _big(3000)
    limits = SafetyLimits(max_cells=100_000, max_rows=100_000, max_formula_length=60, max_xml_token=4096)
    assert _halves(big, 0.5, limits) == _whole(big, limits)
    assert _halves(big.replace(b"<v>2999</v>", b"<v>2999</w>"), 0.5, limits)[0] is WorkbookError
    assert _halves(big.replace(b"<v>5</v>", b"<v>5</w>"), 0.5, limits)[0] is WorkbookError  # (refused before the split)
    assert len(forked) == 3
    for pid in forked:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_the_gate_scans_a_large_travellers_part_in_halves_with_the_same_result(tmp_path, monkeypatch):
    """The shipped pairs template (a 13 MB Travellers part): check_workbook's totals, in halves and streamed."""
    book = ROOT / "workbooks" / "pairs.xlsx"
    with zipfile.ZipFile(book) as zf:
        assert zf.getinfo("xl/worksheets/sheet2.xml").file_size > sheethalves.SPLIT_ABOVE
    scanned: list[str] = []
    real = safety.scan_sheet_part

    def spy(data, part, *args, **kwargs):
        scanned.append(part)
        return real(data, part, *args, **kwargs)

    monkeypatch.setattr(safety, "scan_sheet_part", spy)
    monkeypatch.setattr(safety, "halves_wanted", lambda size: size >= sheethalves.SPLIT_ABOVE)
    halves = safety.check_workbook(book)
    assert scanned == ["xl/worksheets/sheet2.xml"]
    monkeypatch.setattr(safety, "halves_wanted", lambda size: False)
    streamed = safety.check_workbook(book)
    assert halves == streamed


def test_halves_only_for_a_large_part_with_two_cores_in_one_thread(monkeypatch):
    import threading

    monkeypatch.setattr(sheethalves, "book_cores", lambda: 2)
    monkeypatch.setattr(threading, "active_count", lambda: 2)  # (a server's thread, a test runner's)
    assert not sheethalves.halves_wanted(sheethalves.SPLIT_ABOVE)
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    assert sheethalves.halves_wanted(sheethalves.SPLIT_ABOVE)
    assert not sheethalves.halves_wanted(sheethalves.SPLIT_ABOVE - 1)
    assert not sheethalves.halves_wanted(sheethalves.HALVES_MAX + 1)  # (held whole in memory: streamed instead)
    monkeypatch.setattr(sheethalves, "book_cores", lambda: 1)
    assert not sheethalves.halves_wanted(sheethalves.SPLIT_ABOVE)


def test_a_plain_part_is_merged_and_not_scanned_again(monkeypatch):
    """The point of the halves: a part the second half passes is merged, never scanned whole here."""
    again: list[int] = []
    real = sheethalves._Scan.whole
    monkeypatch.setattr(sheethalves._Scan, "whole", lambda *a, **k: again.append(1) or real(*a, **k))
    xml = _big(3000)
    limits = SafetyLimits(max_cells=100_000, max_rows=100_000, max_formula_length=60, max_xml_token=4096)
    assert _halves(xml, 0.5, limits) == _whole(xml, limits) == (6000, 3000, {PART: (3000, 2)})
    assert again == []
    assert _halves(xml.replace(b"<v>2999</v>", b"<v>2999</w>"), 0.5, limits)[0] is WorkbookError
    assert again == [1]  # (the second half failed: the whole part again, for the whole scan's words)


def test_a_signal_at_the_fork_leaves_no_process_and_no_descriptor(monkeypatch):
    """The review's case: a handler that raises (the time limit's alarm, an interrupt) while the other half is
    forked. The signals are held from before the fork until the half is in its ``with`` block, so whenever the
    alarm rings, the forked process is killed and reaped and the pipe closed."""
    import random
    import signal

    class Rang(Exception):
        pass

    def ring(*_args):
        raise Rang

    forked = _record_forks(monkeypatch)
    fds = set(os.listdir("/proc/self/fd"))
    xml = _big(40_000)  # (3 MB: forking and scanning take milliseconds, for the alarm to ring inside)
    limits = SafetyLimits(max_cells=1_000_000, max_rows=1_000_000, max_formula_length=60, max_xml_token=4096)
    previous = signal.signal(signal.SIGALRM, ring)
    rnd = random.Random(5)
    rang = 0
    try:
        for _ in range(25):
            signal.setitimer(signal.ITIMER_REAL, rnd.uniform(0.0002, 0.02))
            try:
                _halves(xml, 0.5, limits)
                signal.setitimer(signal.ITIMER_REAL, 0)
            except Rang:
                rang += 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert rang and forked
    for pid in forked:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
    assert set(os.listdir("/proc/self/fd")) == fds
    assert signal.pthread_sigmask(signal.SIG_BLOCK, ()) == set()  # (nothing left held)


def _damaged_travellers(tmp_path, crc: bool) -> Path:
    """The shipped pairs template with a DTD before its Travellers sheet data (refused when the XML is read) and,
    with ``crc``, that member's checksum changed in the central directory (refused when the member is read to
    its end: zipfile checks the data against it)."""
    import struct

    out = tmp_path / ("crc.xlsx" if crc else "dtd.xlsx")
    with zipfile.ZipFile(ROOT / "workbooks" / "pairs.xlsx") as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "xl/worksheets/sheet2.xml":
                data = data.replace(b"<sheetData>", b"<!DOCTYPE x><sheetData>", 1)
            zout.writestr(info.filename, data)
    if crc:
        raw = bytearray(out.read_bytes())
        pos = raw.find(b"PK\x01\x02")
        while pos >= 0:  # (each central directory record: its name at 46, its CRC-32 at 16)
            name_len = struct.unpack("<H", raw[pos + 28:pos + 30])[0]
            if raw[pos + 46:pos + 46 + name_len] == b"xl/worksheets/sheet2.xml":
                raw[pos + 16] ^= 1
            pos = raw.find(b"PK\x01\x02", pos + 4)
        out.write_bytes(bytes(raw))
    return out


@pytest.mark.parametrize("crc", [False, True], ids=["a DTD", "a DTD and a damaged checksum"])
def test_a_member_read_whole_is_refused_in_the_streamed_scans_words(tmp_path, monkeypatch, crc):
    """The review's case: the halves read the member whole before scanning it, so a damaged checksum would have
    been named before the DTD the streamed scan meets first. A member that cannot be read whole is streamed."""
    book = _damaged_travellers(tmp_path, crc)
    said = {}
    for halves in (True, False):
        monkeypatch.setattr(safety, "halves_wanted", lambda size, halves=halves: halves and size >= 1 << 20)
        with pytest.raises(WorkbookError) as refused:
            safety.check_workbook(book)
        said[halves] = str(refused.value)
    assert said[True] == said[False]
    assert "DTD" in said[True] or "not well-formed" in said[True]


def test_too_little_memory_to_hold_the_part_streams_it(monkeypatch):
    """The review's case: under a tight memory limit the part could not be held whole, and the gate called the
    book damaged. Now a member that cannot be read whole is streamed: the same result as without the halves."""
    book = ROOT / "workbooks" / "pairs.xlsx"
    monkeypatch.setattr(safety, "halves_wanted", lambda size: False)
    streamed = safety.check_workbook(book)
    real = safety.BoundedReader

    class Tight(real):  # (the memory limit reached while the member is read whole)
        def readinto(self, b):
            if self._left < 8 << 20:
                raise MemoryError
            return super().readinto(b)

    monkeypatch.setattr(safety, "halves_wanted", lambda size: size >= 1 << 20)
    calls = []
    real_whole = safety._whole_member

    def whole_member(*args):
        monkeypatch.setattr(safety, "BoundedReader", Tight)
        try:
            got = real_whole(*args)
        finally:
            monkeypatch.setattr(safety, "BoundedReader", real)
        calls.append(got)
        return got

    monkeypatch.setattr(safety, "_whole_member", whole_member)
    assert safety.check_workbook(book) == streamed
    assert calls and all(got is None for got in calls)
