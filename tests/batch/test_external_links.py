"""Links to other workbooks are never followed: no file is opened, no value of another file reaches the output.

A real ``secret.xlsx`` with distinctive values sits next to the upload AND in another folder named by
absolute path; the upload reaches for it every way a workbook can (a relative ``[file]`` reference, an
absolute path, a URL, a UNC path, ``[N]`` through an externalLink part, ``INDIRECT`` text, defined
names, DDE). Expected (what Excel shows when links are not updated and no cached copy exists): each of
those cells is ``#REF!`` with the message "link to another workbook not followed" (DDE: "link to another
program (DDE) not followed"); the secret values appear nowhere in the output file (every member
decompressed and searched), on stdout or on stderr, and neither does a server temporary path. Where the
upload carries Excel's cached copy (externalLink1.xml sheetData), that copy is used, as Excel does.
The proof that nothing was even opened: tripwire FIFOs (tests/server_helpers.py) named as the linked
files record any process opening them, the engine's child included.
"""

from __future__ import annotations

import os
import zipfile

import openpyxl
import pytest
from openpyxl.workbook.defined_name import DefinedName
from server_helpers import Tripwire, add_external_link, all_member_bytes, rebuild, sha

from xlbridge.cli import main
from xlbridge.batch.guard.links import DDE_NOT_FOLLOWED, LINK_NOT_FOLLOWED
from xlbridge.batch.recalc import recalc_workbook

SECRET_TEXT = "TOPSECRET-7f3a9c"
SECRET_NUMBER = 987654321
SECRETS = (SECRET_TEXT.encode(), str(SECRET_NUMBER).encode(), b"TOPSECRET")


def _secret_book(path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"], ws["A2"], ws["A3"] = SECRET_TEXT, SECRET_NUMBER, SECRET_TEXT + "-second"
    wb.save(path)


LINKED = {  # cell -> formula reaching for the secret (FAR is the absolute folder)
    "A1": "='[secret.xlsx]S'!A1",
    "A2": "='{FAR}/[secret.xlsx]S'!A1",
    "A3": "=[2]S!A1",
    "A4": "='https://example.invalid/files/[secret.xlsx]S'!A1",
    "A5": "='\\\\fileserver\\share\\[secret.xlsx]S'!A1",
    "A6": "=INDIRECT(\"'[secret.xlsx]S'!A2\")",
    "A8": "=Far",
    "A9": "=Near*1",
    "A11": "=SUM('[secret.xlsx]S'!A1:A3)",
    "A13": "=A1",
    "A14": "='{FAR}/[secret.xlsx]S'!A2+1",
    "A15": "='[secret.xlsx]S'!A1:B2",  # a range of the other book in one cell
    "A16": "=[secret.xlsx]S!A1",  # written without quotes (no Excel writes it so): still a link
    "A17": "=SUM('[secret.xlsx]S:T'!A1)",  # a 3-D reference into the other book
    "A18": "=Bare",  # a defined name written without quotes
}
OTHER = {  # cells whose value is an error of another kind, but never a secret
    "A7": "=INDIRECT(\"'{FAR}/[secret.xlsx]S'!A\"&2)",
    "A12": "=OFFSET('[secret.xlsx]S'!A1,1,0)",
}
DDE = {"A10": "=cmd|'/c calc'!A0"}


@pytest.fixture
def setup(tmp_path):
    up, far = tmp_path / "uploads", tmp_path / "srv" / "other-club"
    up.mkdir()
    far.mkdir(parents=True)
    _secret_book(up / "secret.xlsx")
    _secret_book(far / "secret.xlsx")
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Main"
    for cell, formula in {**LINKED, **OTHER, **DDE}.items():
        ws[cell] = formula.replace("{FAR}", str(far))
    ws["B1"] = "=2+3"
    wb.defined_names["Far"] = DefinedName("Far", attr_text=f"'{far}/[secret.xlsx]S'!$A$1")
    wb.defined_names["Near"] = DefinedName("Near", attr_text="'[secret.xlsx]S'!$A$2")
    wb.defined_names["Bare"] = DefinedName("Bare", attr_text="[secret.xlsx]S!$A$3")
    book = up / "upload.xlsx"
    wb.save(book)
    return up, far, book


def _assert_clean(out, text):
    for secret in SECRETS:
        assert secret not in all_member_bytes(out)
        assert secret.decode() not in text
    assert "xlbridge-recalc-" not in text and "/tmp/" not in text.replace(str(out.parent), "")


def test_every_kind_of_link_is_ref_and_reads_nothing(setup, capsys):
    up, far, book = setup
    before = sha(book)
    out = up / "out.xlsx"
    assert main(["recalc", str(book), "-o", str(out), "--no-progress"]) == 1
    captured = capsys.readouterr()
    _assert_clean(out, captured.out + captured.err)
    listed = {}
    for line in captured.out.splitlines():
        ref, _, rest = line.partition(": ")
        listed[ref] = rest
    for cell in LINKED:
        assert listed[f"Main!{cell}"] == f"#REF! {LINK_NOT_FOLLOWED}", cell
    assert listed["Main!A10"] == f"#REF! {DDE_NOT_FOLLOWED}"
    values = openpyxl.load_workbook(out, data_only=True)["Main"]
    for cell in {**LINKED, **DDE}:
        assert values[cell].value == "#REF!", cell
    for cell in OTHER:  # engine limits (INDIRECT of computed text, OFFSET): an error, never the value
        assert isinstance(values[cell].value, str) and values[cell].value.startswith("#"), cell
    assert values["B1"].value == 5
    assert sha(book) == before


def test_the_secret_files_are_never_opened(tmp_path, capsys):
    """Tripwire FIFOs as the linked files: any process opening one (for reading) is recorded."""
    up, far = tmp_path / "up", tmp_path / "far"
    up.mkdir()
    far.mkdir()
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = "='[trap.xlsx]S'!A1"
    ws["A2"] = f"='{far}/[trap.xlsx]S'!A1"
    ws["A3"] = "=INDIRECT(\"'[trap.xlsx]S'!A1\")"
    ws["A4"] = "=[1]S!A1"
    ws["A5"] = "=Trap"
    wb.defined_names["Trap"] = DefinedName("Trap", attr_text=f"'{far}/[trap.xlsx]S'!$B$2")
    wb.save(up / "plain.xlsx")
    book = add_external_link(up / "plain.xlsx", up / "book.xlsx", target=str(far / "trap.xlsx"), cells=None)
    with Tripwire(up / "trap.xlsx", far / "trap.xlsx", up / "1") as trip:
        assert main(["recalc", str(book), "-o", str(up / "out.xlsx"), "--no-progress"]) == 1
        report = recalc_workbook(book, up / "out2.xlsx", functions={}, isolate=False)  # the in-process path too
    assert trip.opened == []
    out = capsys.readouterr().out
    assert out.count(LINK_NOT_FOLLOWED) == 5
    assert {(e.cell, e.message) for e in report.errors} == {(c, LINK_NOT_FOLLOWED) for c in
                                                           ("A1", "A2", "A3", "A4", "A5")}


def test_cached_copy_of_a_linked_book_is_used_as_excel_does(setup, capsys):
    """externalLink1.xml caches S!A1 and S!A2 of the linked book: those values, never the file's."""
    up, far, book = setup
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Main"
    ws["A1"] = "=[1]S!A1"
    ws["A2"] = "=[1]S!A2*6"
    ws["A3"] = "='[secret.xlsx]S'!A2+1"  # the linked file's own name: the same cached copy
    ws["A4"] = "=[1]S!A3"  # not cached: blank in Excel's copy, read as 0
    ws["A5"] = "=[1]Other!A1"  # a sheet the copy does not have
    wb.defined_names["Cached"] = DefinedName("Cached", attr_text="[1]S!$A$2")
    ws["A6"] = "=Cached+0.5"
    wb.save(up / "plain.xlsx")
    linked = add_external_link(up / "plain.xlsx", up / "linked.xlsx", target="secret.xlsx",
                               cells={"S": {"A1": "CACHED-TEXT", "A2": 7}})
    out = up / "linked-out.xlsx"
    assert main(["recalc", str(linked), "-o", str(out), "--no-progress"]) == 1
    captured = capsys.readouterr()
    _assert_clean(out, captured.out + captured.err)
    values = openpyxl.load_workbook(out, data_only=True)["Main"]
    assert [values[f"A{i}"].value for i in range(1, 7)] == ["CACHED-TEXT", 42, 8, 0, "#REF!", 7.5]
    assert captured.out.strip() == f"Main!A5: #REF! {LINK_NOT_FOLLOWED}"


def test_a_link_part_is_kept_byte_identical(setup):
    """The externalLink parts are copied into the output unchanged (Excel can still update them)."""
    up, far, book = setup
    linked = add_external_link(book, up / "kept.xlsx", target="secret.xlsx", cells={"S": {"A1": "x"}})
    report = recalc_workbook(linked, up / "kept-out.xlsx", functions={})
    with zipfile.ZipFile(linked) as a, zipfile.ZipFile(report.output) as b:
        for part in ("xl/externalLinks/externalLink1.xml", "xl/externalLinks/_rels/externalLink1.xml.rels"):
            assert a.read(part) == b.read(part)


def test_engine_process_cannot_open_files_sockets_or_processes(tmp_path):
    """Defence in depth: inside the engine's child an audit hook refuses what no formula needs."""
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET_TEXT)

    def read_secret(_):
        with open(secret) as fh:
            return fh.read()

    def sock(_):
        import socket

        socket.socket()
        return "socket made"

    def spawn(_):
        import subprocess

        subprocess.run(["true"])
        return "process started"

    def listing(_):
        return ",".join(os.listdir("/"))

    def write(_):
        open(tmp_path / "dropped.txt", "w").write("x")
        return "written"

    funcs = {"READ": read_secret, "SOCK": sock, "SPAWN": spawn, "LIST": listing, "WRITE": write}
    wb = openpyxl.Workbook()
    for i, name in enumerate(funcs, start=1):
        wb.active.cell(i, 1, f"={name}(1)")
    wb.save(tmp_path / "calls.xlsx")
    report = recalc_workbook(tmp_path / "calls.xlsx", tmp_path / "calls-out.xlsx", functions=funcs)
    by_cell = {e.cell: e for e in report.errors}
    assert sorted(by_cell) == ["A1", "A2", "A3", "A4", "A5"]
    for e in by_cell.values():
        assert e.code == "#VALUE!" and "the formula engine may not" in e.message, e
        assert SECRET_TEXT not in e.message and str(tmp_path) not in e.message
    assert not (tmp_path / "dropped.txt").exists()
    values = [c.value for c in openpyxl.load_workbook(report.output, data_only=True).active["A"]]
    assert values == ["#VALUE!"] * 5


def test_a_relationship_to_an_external_image_is_refused(setup):
    """Only hyperlinks and links to workbooks may point outside the package (and are never followed)."""
    up, far, book = setup
    rels = (b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            b'<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
            b'image" Target="file:///etc/passwd" TargetMode="External"/></Relationships>')
    bad = rebuild(book, up / "img.xlsx", add={"xl/worksheets/_rels/sheet1.xml.rels": rels})
    from xlbridge import WorkbookError

    with pytest.raises(WorkbookError, match="points outside the package .'file:///etc/passwd'.; only hyperlinks"):
        recalc_workbook(bad, up / "img-out.xlsx", functions={})
    hyper = rels.replace(b"relationships/image", b"relationships/hyperlink")
    ok = rebuild(book, up / "hyper.xlsx", add={"xl/worksheets/_rels/sheet1.xml.rels": hyper})
    assert recalc_workbook(ok, up / "hyper-out.xlsx", functions={}).output.endswith("hyper-out.xlsx")


def test_a_linked_books_cell_never_stands_for_the_workbooks_own_cell(tmp_path, capsys):
    """The workbook's sheet and the linked book's cached sheet share the name S: the cached S!A1 (10)
    is A2's value only; A1 asks for a sheet the cache lacks and stays #REF! (it once read 10)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"] = "=[1]T!A1"
    ws["A2"] = "=[1]S!A1"
    wb.save(tmp_path / "plain.xlsx")
    linked = add_external_link(tmp_path / "plain.xlsx", tmp_path / "same.xlsx", target="secret.xlsx",
                               cells={"S": {"A1": 10}})
    out = tmp_path / "same-out.xlsx"
    assert main(["recalc", str(linked), "-o", str(out), "--no-progress"]) == 1
    assert capsys.readouterr().out.strip() == f"S!A1: #REF! {LINK_NOT_FOLLOWED}"
    values = openpyxl.load_workbook(out, data_only=True)["S"]
    assert (values["A1"].value, values["A2"].value) == ("#REF!", 10)
