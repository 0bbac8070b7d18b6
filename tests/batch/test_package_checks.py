"""Damaged packages are refused in one line (never a traceback, never exit 0 on a broken package).

The structure rules are those of the Open Packaging Conventions (ECMA-376 Part 2: a relationship's
internal target is a part of the package, resolved against the source part's folder) and of Excel's
sheet limits (rows 1 to 1,048,576, columns A to XFD, sheet names of 1 to 31 characters without
``[ ] : * ? / \\``).
"""

from __future__ import annotations

import openpyxl
import pytest
from server_helpers import read_member, rebuild, sha

from xlbridge.cli import main
from xlbridge import WorkbookError
from xlbridge.batch.recalc import recalc_workbook
from xlbridge.batch.guard.safety import check_workbook

NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _sheet(body: str) -> bytes:
    return f"<worksheet {NS}><sheetData>{body}</sheetData></worksheet>".encode()


def _refused_by_cli(path, tmp_path, capsys, match):
    before = sha(path)
    out = tmp_path / "out.xlsx"
    assert main(["recalc", str(path), "-o", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert match in err, err
    assert not out.exists() and sha(path) == before
    return err


def _wb_rels(good, extra: str) -> bytes:
    return read_member(good, "xl/_rels/workbook.xml.rels").replace(b"</Relationships>",
                                                                   extra.encode() + b"</Relationships>")


@pytest.mark.parametrize("target", ["../../../../etc/passwd", "/../etc/passwd", "../../outside.xml"])
def test_relationship_leaving_the_package_refused(good, tmp_path, capsys, target):
    rels = _wb_rels(good, f'<Relationship Id="rId77" Type="{RELS}/customXml" Target="{target}"/>')
    bad = rebuild(good, tmp_path / "escape.xlsx", replace={"xl/_rels/workbook.xml.rels": rels})
    _refused_by_cli(bad, tmp_path, capsys, "relationship 'rId77' of xl/_rels/workbook.xml.rels points outside "
                                           "the package")


def test_relationship_to_a_missing_part_refused(good, tmp_path, capsys):
    rels = _wb_rels(good, f'<Relationship Id="rId78" Type="{RELS}/customXml" Target="customXml/item9.xml"/>')
    bad = rebuild(good, tmp_path / "missing.xlsx", replace={"xl/_rels/workbook.xml.rels": rels})
    _refused_by_cli(bad, tmp_path, capsys, "points at 'xl/customXml/item9.xml', which is missing")


def test_sheet_whose_part_is_missing_refused(good, tmp_path, capsys):
    bad = rebuild(good, tmp_path / "nosheet.xlsx", drop={"xl/worksheets/sheet1.xml"})
    _refused_by_cli(bad, tmp_path, capsys, "points at 'xl/worksheets/sheet1.xml', which is missing")


def test_sheet_without_relationship_refused(good, tmp_path, capsys):
    wb = read_member(good, "xl/workbook.xml").replace(b'r:id="rId1"', b'r:id="rId404"')
    bad = rebuild(good, tmp_path / "norel.xlsx", replace={"xl/workbook.xml": wb})
    _refused_by_cli(bad, tmp_path, capsys, "sheet 'Travellers' has no part (relationship 'rId404' is missing)")


@pytest.mark.parametrize("name, match", [
    ("Bad[1]", "'Bad[1]' is not a valid sheet name"),
    ("x" * 5000, "is not a valid sheet name"),
    ("", "'' is not a valid sheet name"),
])
def test_invalid_sheet_names_refused(good, tmp_path, capsys, name, match):
    wb = read_member(good, "xl/workbook.xml").replace(b'name="Travellers"', f'name="{name}"'.encode())
    bad = rebuild(good, tmp_path / "name.xlsx", replace={"xl/workbook.xml": wb})
    err = _refused_by_cli(bad, tmp_path, capsys, match)
    assert len(err) < 400


def test_two_sheets_with_one_name_refused(good, tmp_path, capsys):
    wb = openpyxl.load_workbook(good)
    wb.create_sheet("Other")
    wb.save(tmp_path / "two.xlsx")
    xml = read_member(tmp_path / "two.xlsx", "xl/workbook.xml").replace(b'name="Other"', b'name="TRAVELLERS"')
    bad = rebuild(tmp_path / "two.xlsx", tmp_path / "dup.xlsx", replace={"xl/workbook.xml": xml})
    _refused_by_cli(bad, tmp_path, capsys, "two sheets are named 'TRAVELLERS'")


def test_main_part_elsewhere_refused(good, tmp_path, capsys):
    ct = read_member(good, "[Content_Types].xml").replace(b'PartName="/xl/workbook.xml"',
                                                         b'PartName="/xl/decoy.xml"')
    bad = rebuild(good, tmp_path / "decoy.xlsx", replace={"[Content_Types].xml": ct},
                  add={"xl/decoy.xml": read_member(good, "xl/workbook.xml")})
    _refused_by_cli(bad, tmp_path, capsys, "the workbook's main part is '/xl/decoy.xml', not /xl/workbook.xml")


@pytest.mark.parametrize("body, match", [
    ('<row r="five"><c r="A1"><v>1</v></c></row>', "row number 'five' is not a whole number from 1 to 1048576"),
    ('<row r="0"/>', "row number '0' is not a whole number"),
    ('<row r="1048577"/>', "row number '1048577' is not a whole number"),
    ('<row r="99999999999999999999"/>', "row number '99999999999999999999' is not a whole number"),
    ('<row r="3"/><row r="2"/>', "row 2 comes after row 3 (rows out of order or repeated)"),
    ('<row r="1"><c r="XFE1"/></row>', "cell reference 'XFE1' is not a cell of an Excel sheet"),
    ('<row r="1"><c r="A0"/></row>', "cell reference 'A0' is not a cell"),
    ('<row r="1"><c r="B1"/><c r="A1"/></row>', "cell A1 comes after column 2 of its row"),
    ('<row r="1"><c r="A2"/></row>', "cell A2 inside row 1"),
    ('<row r="1"><c r="A1"><f t="array" ref="A1:B">1</f></c></row>', "cell A1: array range 'A1:B' is not a range"),
    ('<row r="1"><c r="B1"><f t="shared" si="7"/></c></row>',  # no cell holds shared formula 7's text
     "cell B1: shared formula '7' has no first cell holding its text"),
])
def test_numeric_attributes_parsed_defensively(good, tmp_path, capsys, body, match):
    bad = rebuild(good, tmp_path / "rows.xlsx", replace={"xl/worksheets/sheet1.xml": _sheet(body)})
    err = _refused_by_cli(bad, tmp_path, capsys, "damaged workbook: sheet Travellers: " + match)
    assert err.startswith("xlbridge recalc: rows.xlsx: ")


@pytest.mark.parametrize("part, body, match", [
    ("xl/worksheets/sheet1.xml", f'<row r="1"><c r="B1" t="inlineStr"><is><t>{"q" * 32_768}</t></is></c></row>',
     "damaged workbook: sheet Travellers, cell 'B1': a text longer than 32,767 characters, Excel's limit"),
    ("xl/worksheets/sheet1.xml",  # rich-text runs add up
     f'<row r="1"><c r="C1" t="inlineStr"><is><r><t>{"q" * 20_000}</t></r><r><t>{"q" * 12_768}</t></r></is></c></row>',
     "cell 'C1': a text longer than 32,767 characters"),
    ("xl/sharedStrings.xml", f'<sst {NS}><si><t>ok</t></si><si><t>{"q" * 40_000}</t></si></sst>',
     "damaged workbook: shared string 2: a text longer than 32,767 characters"),
])
def test_text_longer_than_excel_allows_refused(good, tmp_path, capsys, part, body, match):
    """Excel keeps at most 32,767 characters in a cell (its specifications); a file holding more is
    one Excel would have to repair, so it is refused rather than copied into the output."""
    body = body.encode() if part != "xl/worksheets/sheet1.xml" else _sheet(body)
    bad = rebuild(good, tmp_path / "long.xlsx", replace={part: body})
    _refused_by_cli(bad, tmp_path, capsys, match)


def test_a_part_the_reader_cannot_take_is_refused_without_python_text(good, tmp_path, capsys):
    """localSheetId must be a sheet index (ECMA-376 Part 1, 18.2.5): ``abc`` makes the reader fail;
    the refusal is one plain line, without the reader's Python exception text."""
    wb = read_member(good, "xl/workbook.xml").decode().replace(
        "</sheets>", '</sheets><definedNames><definedName name="Q" localSheetId="abc">Travellers!$A$1'
                     "</definedName></definedNames>")
    bad = rebuild(good, tmp_path / "lsid.xlsx", replace={"xl/workbook.xml": wb.encode()})
    err = _refused_by_cli(bad, tmp_path, capsys, "lsid.xlsx: damaged workbook: it cannot be read")
    assert "Error" not in err and "<class" not in err and "int" not in err.replace("point", ""), err


def test_text_of_exactly_excels_limit_accepted(good, tmp_path):
    body = (f'<row r="1"><c r="B1" t="inlineStr"><is><t>{"q" * 32_767}</t><rPh sb="0" eb="1"><t>{"k" * 9}</t>'
            f'</rPh></is></c></row><row r="2"><c r="A2"><f>LEN(B1)</f></c></row>')
    ok = rebuild(good, tmp_path / "limit.xlsx", replace={"xl/worksheets/sheet1.xml": _sheet(body)})
    report = recalc_workbook(ok, tmp_path / "limit-out.xlsx", functions={})
    assert report.ok
    assert openpyxl.load_workbook(report.output, data_only=True).active["A2"].value == 32_767


def test_spans_ignored_as_excel_does(good, tmp_path):
    body = '<row r="1" spans="five:nine"><c r="A1"><v>2</v></c></row><row r="2"><c r="A2"><f>A1*21</f></c></row>'
    odd = rebuild(good, tmp_path / "spans.xlsx", replace={"xl/worksheets/sheet1.xml": _sheet(body)})
    report = recalc_workbook(odd, tmp_path / "spans-out.xlsx", functions={})
    assert report.ok
    assert openpyxl.load_workbook(report.output, data_only=True).active["A2"].value == 42


def test_good_workbook_and_templates_pass_the_package_checks(good):
    from pathlib import Path

    info = check_workbook(good)
    assert info.sheets == (("Travellers", "xl/worksheets/sheet1.xml"),)
    for path in sorted((Path(__file__).resolve().parents[2] / "workbooks").glob("*.xlsx")):
        assert check_workbook(path).sheets, path


def test_external_relationship_only_for_links(good, tmp_path):
    rels = _wb_rels(good, f'<Relationship Id="rId79" Type="{RELS}/customXml" Target="http://example.invalid/x" '
                          f'TargetMode="External"/>')
    bad = rebuild(good, tmp_path / "ext.xlsx", replace={"xl/_rels/workbook.xml.rels": rels})
    with pytest.raises(WorkbookError, match="points outside the package .'http://example.invalid/x'."):
        check_workbook(bad)


@pytest.mark.parametrize("member", ["../../../tmp/pwned.txt", "/etc/cron.d/x", "xl/../../up.txt", "xl//a.xml",
                                    "C:/Windows/x.dll", "xl\\\\worksheets\\\\x.xml"])
def test_zip_member_names_that_leave_the_package_refused(good, tmp_path, capsys, member):
    """Zip slip: a member named with '..', an absolute path, a drive or backslashes would be copied into
    the output and could write outside its folder when someone unzips it; OPC forbids such names."""
    bad = rebuild(good, tmp_path / "slip.xlsx", add={member: b"x"})
    _refused_by_cli(bad, tmp_path, capsys, "is not a part name of a workbook")
