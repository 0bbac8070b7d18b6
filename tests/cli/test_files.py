"""`xlbridge import`, `export` and `publish`: a PBN file in, a scored workbook, PBN, USEBIO and a web site out.

Expected values are the hand-worked figures of tests/formats_samples.py (typed by hand from the PBN
2.1 and USEBIO 1.2 texts; nothing there was produced by xlbridge): a 3-table Mitchell, percentages
N-S 2 70.83, N-S 3 53.33, N-S 1 29.17, E-W 3 87.5, E-W 2 38.33, E-W 1 20.83.
"""

from __future__ import annotations

import functools
import io
import os
import re
import shutil
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import html5lib
import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats_samples import (DEAL_1, MITCHELL_PBN, MITCHELL_ROWS, MITCHELL_TOTALS, MITCHELL_USEBIO, NAMES,
                             endplay_score_rows)
from recalc_helpers import cells, typed
from xlbridge import formats
from xlbridge.cli import main
from xlbridge.formats.model import HOWELL, MITCHELL, Board, Event, Participant, Result
from xlbridge.formats.sheets import find_parameter
from xlbridge.formats.workbook import fill_pairs_workbook, read_pairs_workbook

ROOT = Path(__file__).resolve().parents[2]
PCT = {("NS", 2): 70.83, ("NS", 3): 53.33, ("NS", 1): 29.17, ("EW", 3): 87.5, ("EW", 2): 38.33, ("EW", 1): 20.83}


@pytest.fixture(scope="session")
def workflow(run_artefacts):
    """The README's four commands: import, recalc, export (both formats), publish; run once per run, in
    whichever worker asks first (the files are shared: copy before changing)."""

    def build(d: Path) -> None:
        (d / "tuesday.pbn").write_text(MITCHELL_PBN, encoding="latin-1")
        assert main(["import", str(d / "tuesday.pbn"), "-o", str(d / "tuesday.xlsx")]) == 0
        assert main(["recalc", str(d / "tuesday.xlsx"), "--no-progress"]) == 0
        book = d / "tuesday-recalculated.xlsx"
        assert main(["export", str(book), "--format", "pbn", "-o", str(d / "out.pbn")]) == 0
        assert main(["export", str(book), "--format", "usebio", "-o", str(d / "out.xml")]) == 0
        assert main(["publish", str(book), "-o", str(d / "site")]) == 0

    return run_artefacts.make("test_files workflow", build)


@functools.lru_cache(maxsize=None)
def _imported_bytes(pbn: str) -> bytes:
    """The workbook ``xlbridge import`` makes of ``pbn``, cut to its first 404 rows (past the event's rows
    the pairs template holds only blank headroom, 10,000 rows of it): for the tests that change a cell
    with openpyxl and run export or publish on the result, which then load and save it in a fraction of
    a second instead of six. Made once per run and content (``recalc_helpers.ARTEFACTS``), shared by the
    workers."""
    import hashlib
    import tempfile

    import recalc_helpers

    def build(folder: Path) -> None:
        (folder / "in.pbn").write_text(pbn, encoding="latin-1")
        assert main(["import", str(folder / "in.pbn"), "-o", str(folder / "in.xlsx")]) == 0
        wb = openpyxl.load_workbook(folder / "in.xlsx")
        for ws in wb.worksheets:
            if ws.max_row > 404:
                ws.delete_rows(405, ws.max_row - 404)
        wb.save(folder / "cut.xlsx")

    if recalc_helpers.ARTEFACTS is None:
        with tempfile.TemporaryDirectory() as d:
            build(Path(d))
            return (Path(d) / "cut.xlsx").read_bytes()
    key = hashlib.sha256(pbn.encode("latin-1")).hexdigest()
    return (recalc_helpers.ARTEFACTS.make(f"imported {key}", build) / "cut.xlsx").read_bytes()


def _imported(pbn: str):
    """:func:`_imported_bytes` opened by openpyxl (a workbook of its own, to change)."""
    return openpyxl.load_workbook(io.BytesIO(_imported_bytes(pbn)))


def test_imported_workbook_scores_the_hand_worked_ranking(workflow):
    wb = openpyxl.load_workbook(workflow / "tuesday-recalculated.xlsx", data_only=True)
    got = {}
    for d, p, names, _total, pct, rank in wb["Ranking"].iter_rows(min_row=5, max_row=404, max_col=6, values_only=True):
        if p not in (None, ""):
            got[(d, p)] = (round(pct, 2), rank, names)
    assert got == {k: (v, str(MITCHELL_TOTALS[(k[0], str(k[1]))][1]), " & ".join(NAMES[(k[0], str(k[1]))]))
                   for k, v in PCT.items()}
    t = wb["Travellers"]
    assert t["R7"].value == "Mitchell"
    rows = [r for r in t.iter_rows(min_row=5, max_row=13, max_col=8, values_only=True)]
    # board, N-S, E-W, N-S score (the workbook's own Score NS column) in the file's order
    assert [(b, str(n), str(e), s) for b, n, e, *_rest, s in rows] == [(b, n, e, s) for b, n, e, s, _, _ in MITCHELL_ROWS]
    assert find_parameter(t, "Event").value == "Tuesday Pairs"  # the event's name where a member sees it


def test_exported_pbn_reads_back_with_the_hand_worked_matchpoints(workflow):
    ev = formats.read_pbn(workflow / "out.pbn")
    assert ev.name == "Tuesday Pairs" and str(ev.date) == "2024-03-05" and ev.movement == MITCHELL
    got = [(b.number, r.ns, r.ew, r.score if r.played else str(r.score), r.mp_ns, r.mp_ew)
           for b in ev.boards for r in b.results]
    assert sorted(got) == sorted(MITCHELL_ROWS)
    assert {p.key: p.names for p in ev.participants} == NAMES


def test_exported_usebio_reads_back_with_places(workflow):
    ev = formats.read_usebio(workflow / "out.xml")
    assert {p.key: (p.total, p.place) for p in ev.participants} == MITCHELL_TOTALS
    assert sum(len(b.results) for b in ev.boards) == 9


def test_published_site_is_valid_html_with_names_and_percentages(workflow):
    site = workflow / "site"
    index = (site / "index.html").read_text(encoding="utf-8")
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(index)
    assert "Ann Lee" in index and "70.83" in index and "87.50" in index
    assert (site / "style.css").exists() and (site / "board-2.html").exists()
    assert not [p for p in os.listdir(site) if p.startswith(".xlbridge")]  # no temporary folder left


# --- deals and leads survive the workbook (the file's [Deal] and Lead column, typed by hand) ---------

#: board 1's hands as typed in MITCHELL_PBN (N, E, S, W), and the leads of its Lead column
HANDS_1 = {"North": ("AKQJ", "AKQ", "AKQ", "AKQ"), "East": ("5432", "5432", "5432", "5"),
           "South": ("T987", "T987", "T9", "T98"), "West": ("6", "J6", "J876", "J76432")}
LEADS_1 = {("1", "1"): "SK", ("2", "2"): "HA", ("3", "3"): "D5"}


def test_deals_and_leads_are_stored_in_extra_sheets_that_recalc_leaves_alone(workflow):
    before = openpyxl.load_workbook(workflow / "tuesday.xlsx")
    after = openpyxl.load_workbook(workflow / "tuesday-recalculated.xlsx")
    for wb in (before, after):
        deals = [r for r in wb["Deals"].iter_rows(min_row=5, values_only=True)]
        assert deals == [(1, "N", "None", "N:" + " ".join(".".join(h) for h in HANDS_1.values())),
                         (2, "E", "NS", None), (3, "S", "EW", None)]
        leads = {(str(n), str(e)): lead for b, n, e, lead in wb["Leads"].iter_rows(min_row=5, values_only=True)}
        assert leads == LEADS_1
    # the template's own sheets come first, unchanged in order; the extra sheets after them
    assert after.sheetnames[-2:] == ["Deals", "Leads"] and after.sheetnames[:-2] == before.sheetnames[:-2]


def test_exported_pbn_and_usebio_carry_the_deal_and_the_leads(workflow):
    text = (workflow / "out.pbn").read_text(encoding="ascii")
    assert '[Deal "N:AKQJ.AKQ.AKQ.AKQ 5432.5432.5432.5 T987.T987.T9.T98 6.J6.J876.J76432"]' in text
    ev = formats.read_pbn(workflow / "out.pbn")
    assert {(r.ns, r.ew): r.lead for r in ev.board(1).results} == LEADS_1
    import xml.etree.ElementTree as ET

    root = ET.fromstring((workflow / "out.xml").read_bytes())
    board1 = [b for b in root.iterfind("EVENT/BOARD") if b.findtext("BOARD_NUMBER") == "1"][0]
    dealt1 = [b for b in root.iterfind("HANDSET/BOARD") if b.findtext("BOARD_NUMBER") == "1"][0]  # (after EVENT)
    hands = {h.findtext("DIRECTION"): tuple(h.findtext(s) for s in ("SPADES", "HEARTS", "DIAMONDS", "CLUBS"))
             for h in dealt1.findall("HAND")}
    assert hands == HANDS_1
    assert {(t.findtext("NS_PAIR_NUMBER"), t.findtext("EW_PAIR_NUMBER")): t.findtext("LEAD")
            for t in board1.findall("TRAVELLER_LINE")} == LEADS_1


def test_published_workbook_shows_the_hand_diagram(workflow):
    page = (workflow / "site" / "board-1.html").read_text(encoding="utf-8")
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(page)
    assert '<table class="deal">' in page
    # West's clubs J76432 and South's spades T987 (shown as 10987) appear in the diagram
    assert "J76432" in page and "10987" in page and "Dealer North" in page
    assert '<table class="deal">' not in (workflow / "site" / "board-2.html").read_text(encoding="utf-8")


def test_exported_pbn_reads_back_in_endplay_with_the_file_s_deals_and_contracts(workflow):
    """Cross-check with an independent PBN parser (endplay 0.5): deals, dealer, vulnerability and every
    ScoreTable row's contract, declarer and tricks equal the hand-typed input file."""
    boards, got = endplay_score_rows(workflow / "out.pbn")
    assert [b.board_num for b in boards] == [1, 2, 3]
    assert boards[0].deal.to_pbn() == "N:AKQJ.AKQ.AKQ.AKQ 5432.5432.5432.5 T987.T987.T9.T98 6.J6.J876.J76432"
    assert [(b.dealer.name, b.vul.name) for b in boards] == [("north", "none"), ("east", "ns"), ("south", "ew")]
    # MITCHELL_PBN's rows, with "+1" and "=" written as tricks taken (4S +1 = 11, 3NT = = 9)
    assert sorted(got) == sorted([
        (1, "1", "1", "4S", "N", "10"), (1, "2", "2", "4S", "N", "11"), (1, "3", "3", "3NT", "S", "9"),
        (2, "1", "3", "2H", "E", "8"), (2, "2", "1", "3H", "E", "8"), (2, "3", "2", "-", "-", "-"),
        (3, "1", "2", "1NT", "W", "7"), (3, "2", "3", "1NT", "W", "7"), (3, "3", "1", "2S", "N", "8")])


def test_a_board_off_the_standard_vulnerability_is_refused_on_import(tmp_path):
    (tmp_path / "odd.pbn").write_text(MITCHELL_PBN.replace('[Vulnerable "None"]', '[Vulnerable "All"]').replace(
        "     420      -", "     620      -").replace("     450      -", "     650      -").replace(
        "     400      -", "     600      -"), encoding="latin-1")
    proc = _run("import", "odd.pbn", "-o", "odd.xlsx", cwd=tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert "odd.pbn" in proc.stderr and "board 1 is vulnerable All" in proc.stderr
    assert not (tmp_path / "odd.xlsx").exists()


@pytest.mark.parametrize("sheet, cell, value, message", [
    ("Deals", "D5", "N:AKQJ.AKQ.AKQ.AKQ 5432.5432.5432.5 T987.T987.T9.T98 6.J6.J876.J7643A", "cannot read deal"),
    ("Deals", "C5", "All", "standard cycle"),
    ("Leads", "D5", "SZ", "cannot read lead"),
    ("Leads", "C5", 9, "a lead for a row the Travellers sheet does not have (board 1, 1 v 9)"),
])
def test_a_bad_extra_sheet_cell_is_refused_naming_it(tmp_path, sheet, cell, value, message):
    wb = _imported(MITCHELL_PBN)  # (the workflow's tuesday.xlsx, cut)
    wb[sheet][cell] = value
    wb.save(tmp_path / "club.xlsx")
    proc = _run("export", "club.xlsx", "--format", "pbn", "-o", "o.pbn", cwd=tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    cell = "D5" if sheet == "Leads" else cell  # a lead's row is named at its Lead cell
    assert f"club.xlsx, {sheet}!{cell}" in proc.stderr and message in proc.stderr, proc.stderr
    assert not (tmp_path / "o.pbn").exists()


def test_usebio_file_imports_too(tmp_path):
    (tmp_path / "e.xml").write_text(MITCHELL_USEBIO, encoding="latin-1")
    assert main(["import", str(tmp_path / "e.xml"), "-o", str(tmp_path / "e.xlsx")]) == 0
    ev = formats.score_event(read_pairs_workbook(tmp_path / "e.xlsx"))
    assert {p.key: (p.total, p.place) for p in ev.participants} == MITCHELL_TOTALS


# --- bad input: one line, exit 2, nothing written -----------------------------------------------


def _run(*argv, cwd):
    return subprocess.run([sys.executable, "-m", "xlbridge", *argv], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


@pytest.mark.parametrize("content", [b"", b"\x00\x01garbage" * 50, b'[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;'
                                     b'Contract;Declarer;Result"]\n1 2 4S N 10\n1 3 4S N 10\n'])
def test_import_bad_files_exit_2_with_one_line(tmp_path, content):
    (tmp_path / "bad.pbn").write_bytes(content)
    proc = _run("import", "bad.pbn", "-o", "out.xlsx", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert "bad.pbn" in proc.stderr and str(tmp_path) not in proc.stderr
    assert not (tmp_path / "out.xlsx").exists()


def test_export_of_the_shipped_example_carries_its_weighted_scores_with_one_warning(tmp_path):
    """Issue 40: the bundled example's first row is seed 004's weighted score (60 % of +420, 40 % of -50 against
    420, 400, 400, 170, -50: N-S 5.8 of a top of 10, E-W 4.2); the export writes it with one warning line."""
    shutil.copy(ROOT / "workbooks" / "examples" / "pairs.xlsx", tmp_path / "pairs.xlsx")
    proc = _run("export", "pairs.xlsx", "--format", "pbn", "-o", "out.pbn", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "warning: " in proc.stderr and "12C1(c)" in proc.stderr
    back = formats.read_pbn(tmp_path / "out.pbn")
    row = next(r for r in back.boards[0].results if (r.ns, r.ew) == ("1", "11"))
    assert (row.score, row.outcomes, row.mp_ns, row.mp_ew) == (420, ((420, F(3, 5)), (-50, F(2, 5))), F(29, 5),
                                                               F(21, 5))


PASSED_OUT_PBN = """% PBN 2.1
[Event "Tuesday pairs"]
[Board "1"]
[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS"]
1 1 4S N 10 420
2 2 Pass - - 0
"""


def test_a_passed_out_row_exports_and_publishes_from_the_workbook(tmp_path):
    """A passed-out row reads back from the workbook as Pass scoring 0 (PBN 2.1 section 3.4.12: contract
    Pass); by hand, 420 beats 0: N-S 1 and E-W 2 get the top of 2, N-S 2 and E-W 1 nothing."""
    (tmp_path / "t1.xlsx").write_bytes(_imported_bytes(PASSED_OUT_PBN))  # (xlbridge import's book, cut)
    assert main(["export", str(tmp_path / "t1.xlsx"), "--format", "pbn", "-o", str(tmp_path / "o.pbn")]) == 0
    rows = formats.read_event(tmp_path / "o.pbn").board(1).results
    assert [(r.ns, r.contract, r.declarer, r.tricks, r.score, r.mp_ns, r.mp_ew) for r in rows] == [
        ("1", "4S", "N", 10, 420, 2, 0), ("2", "PASS", None, None, 0, 0, 2)]
    assert main(["publish", str(tmp_path / "t1.xlsx"), "-o", str(tmp_path / "site")]) == 0
    assert "Pass" in (tmp_path / "site" / "board-1.html").read_text(encoding="utf-8")


def _event_name(wb, name):
    """The event's name as a member types it: the Travellers sheet's Event parameter."""
    from xlbridge.formats.sheets import find_parameter

    find_parameter(wb["Travellers"], "Event").value = name


def _text_pair(wb, cell, pair):
    """A pair with a text id (as a USEBIO file may carry) typed at the Travellers sheet's ``cell`` and listed on
    the Pairs sheet (a text id not on it is a mistake: core.travellerrow.unlisted_pair), as an N-S pair."""
    wb["Travellers"][cell] = pair
    ps = wb["Pairs"]
    row = next(r for r in range(5, ps.max_row + 2) if ps.cell(r, 1).value is None)
    ps.cell(row, 1, pair)
    ps.cell(row, 2, "NS")


@pytest.mark.parametrize("change, fmt, message", [
    # PBN 2.1 section 3.4: a tag value "#" is the previous game's value and "?" an unknown one
    (lambda wb: _event_name(wb, "#"), "pbn", "club.xlsx: the event name (PBN tag Event) cannot be written to PBN "
     "as a tag value: '#' means the previous game's value there and '?' an unknown one: '#'"),
    # section 3.7: a TotalScoreTable's Names separates the players with ';'
    (lambda wb: wb["Pairs"].__setitem__("C5", "Kim;Ax & Lou Ma"), "pbn",
     "club.xlsx, pair EW 1: a player name cannot contain ';' in PBN: 'Kim;Ax'"),
    # section 5.2: a table's values are separated by white space; N-S "1 A" (board 2, row 8) would be two
    (lambda wb: _text_pair(wb, "B8", "1 A"), "pbn",
     "club.xlsx, pair NS 1 A: a pair number cannot be written to PBN: '1 A'"),
    (lambda wb: _text_pair(wb, "B8", "1 A"), "usebio", None),  # one XML element holds it whole
])
def test_what_the_writer_cannot_write_is_refused_naming_the_input_and_the_field(tmp_path, capsys, change, fmt,
                                                                               message):
    wb = _imported(MITCHELL_PBN)  # (the workflow's tuesday.xlsx, cut)
    change(wb)
    wb.save(tmp_path / "club.xlsx")
    capsys.readouterr()
    code = main(["export", str(tmp_path / "club.xlsx"), "--format", fmt, "-o", str(tmp_path / "o.out")])
    if message is None:
        assert code == 0, capsys.readouterr().err
        return
    assert code == 2 and not (tmp_path / "o.out").exists()
    assert capsys.readouterr().err.strip() == f"xlbridge export: {message}"


@pytest.mark.parametrize("sheet", ["Travellers", "Deals", "Leads"])
def test_a_board_number_past_10000_is_refused_naming_its_cell(tmp_path, capsys, sheet):
    """The templates' Board column accepts a whole number from 1 to 10,000 (its data validation), the
    bound the PBN and USEBIO readers apply to a file's board numbers: a workbook's board 10,001 is refused
    at its cell, on every sheet that names a board (column A, first row under the header on row 4)."""
    wb = _imported(MITCHELL_PBN)  # (the workflow's tuesday.xlsx, cut)
    wb[sheet]["A5"] = 10_001
    wb.save(tmp_path / "club.xlsx")
    capsys.readouterr()
    for argv in (["export", "--format", "pbn", "-o", str(tmp_path / "o.pbn")], ["publish", "-o", str(tmp_path / "s")]):
        assert main([argv[0], str(tmp_path / "club.xlsx"), *argv[1:]]) == 2
        assert capsys.readouterr().err.strip() == (f"xlbridge {argv[0]}: club.xlsx, {sheet}!A5: board number must be "
                                                   f"a whole number from 1 to 10,000, got 10001")
    assert not (tmp_path / "o.pbn").exists() and not (tmp_path / "s").exists()


def test_board_10000_is_read_from_a_workbook(tmp_path):
    """Board 10,000, the largest the Board column accepts, is the 16th board of its cycle (10,000 = 625
    x 16), so by Law 2 West deals and E-W are vulnerable: 4S by N making 10 scores N-S 420 (Law 77)."""
    wb = _imported(PASSED_OUT_PBN)
    wb["Travellers"]["A5"] = wb["Travellers"]["A6"] = 10_000
    wb.save(tmp_path / "b.xlsx")
    assert main(["export", str(tmp_path / "b.xlsx"), "--format", "pbn", "-o", str(tmp_path / "o.pbn")]) == 0
    text = (tmp_path / "o.pbn").read_text(encoding="ascii")
    assert all(tag in text for tag in ('[Board "10000"]', '[Dealer "W"]', '[Vulnerable "EW"]'))
    assert [(r.ns, r.score) for r in formats.read_pbn(tmp_path / "o.pbn").board(10_000).results] == [("1", 420),
                                                                                                    ("2", 0)]


@pytest.mark.parametrize("cells, message", [
    ({"D6": None, "G6": 410}, "bad.xlsx, Travellers!G6: impossible score for vulnerability 'None' (nobody vulnerable): 410"),
    ({"B6": 1, "C6": 1}, "bad.xlsx, Travellers!B6: duplicate row on board 1: pairs '1-1'"),
])
def test_a_bad_traveller_row_is_refused_naming_the_workbook_cell(tmp_path, capsys, cells, message):
    """Board 1 is not vulnerable (Law 2), where no contract scores 410 (Law 77); the row under the
    header (row 4) holding the second traveller line is sheet row 6."""
    wb = _imported(PASSED_OUT_PBN)
    for cell, value in cells.items():
        wb["Travellers"][cell] = value
    wb.save(tmp_path / "bad.xlsx")
    capsys.readouterr()
    for argv in (["export", "--format", "pbn", "-o", str(tmp_path / "o.pbn")], ["publish", "-o", str(tmp_path / "s")]):
        assert main([argv[0], str(tmp_path / "bad.xlsx"), *argv[1:]]) == 2
        assert capsys.readouterr().err.strip() == f"xlbridge {argv[0]}: {message}"
    assert not (tmp_path / "o.pbn").exists() and not (tmp_path / "s").exists()


@pytest.mark.parametrize("scale, shown", [(None, ["2.90", "2.10"]), ("EBU", ["5.80", "4.20"])])
def test_publish_shows_a_weighted_score_of_the_workbook(tmp_path, scale, shown):
    """publish writes no PBN or USEBIO, so the bundled example's weighted score (seed 004: 60 % of +420,
    40 % of -50 on board 1, N-S 1 v E-W 11) is shown, matchpointed as seed 004 does and on the workbook's
    own scale (its Scale parameter, issue 40): 2.9 of 5 on the example's 1/0.5 (ACBL) scale, 5.8 of 10
    on the 2/1 (EBU) scale; 58 % either way."""
    src = ROOT / "workbooks" / "examples" / "pairs.xlsx"
    travellers = cells(src)["Travellers"]
    assert travellers[(5, 17)] == "Scale" and travellers[(5, 18)] == "ACBL"  # (Q5, R5)
    typed(src, tmp_path / "pairs.xlsx", {"Travellers": {} if scale is None else {"R5": scale}})
    proc = _run("publish", "pairs.xlsx", "-o", "site", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(
        (tmp_path / "site" / "board-1.html").read_text(encoding="utf-8"))
    rows = [["".join(td.itertext()) for td in tr.findall("td")] for tr in doc.iter("tr")]
    row = next(r for r in rows if "420 (60 %), -50 (40 %)" in r)
    assert row[-3:] == shown + ["58.00"]  # MP N-S, MP E-W, % N-S


def test_publish_refuses_weights_not_totalling_100_percent_naming_the_cell(tmp_path):
    """Law 12C1(c): the weights of a weighted score total 100 %; 60 % + 30 % does not."""
    typed(ROOT / "workbooks" / "examples" / "pairs.xlsx", tmp_path / "w.xlsx",
          {"Travellers": {"L5": 0.3}})  # Weight 2 of the example's weighted row
    proc = _run("publish", "w.xlsx", "-o", "site", cwd=tmp_path)
    assert proc.returncode == 2 and not (tmp_path / "site").exists()
    assert proc.stderr.strip() == ("xlbridge publish: w.xlsx, Travellers!K5: "
                                   "weights total 90 %, not 100 %: 420 x 60 %, -50 x 30 %")  # (recalc's words too)


def test_not_a_workbook_and_a_fifo_are_refused(tmp_path):
    (tmp_path / "fake.xlsx").write_bytes(b"PK\x03\x04not really a zip")
    proc = _run("export", "fake.xlsx", "--format", "usebio", "-o", "o.xml", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    os.mkfifo(tmp_path / "pipe.pbn")
    proc = _run("import", "pipe.pbn", "-o", "o.xlsx", cwd=tmp_path)  # must not wait for a writer
    assert proc.returncode == 2 and "pipe.pbn" in proc.stderr


@pytest.mark.parametrize("command", [("import", "-o", "o.xlsx"), ("export", "--format", "pbn", "-o", "o.pbn"),
                                     ("publish", "-o", "site")])
def test_a_fifo_a_folder_or_a_device_is_named_for_what_it_is(tmp_path, command):
    """A results file must be a regular file (POSIX file types: a FIFO, a directory and a character
    device are not): each is refused at once, saying what it is, not that it is no workbook."""
    os.mkfifo(tmp_path / "pipe.pbn")
    (tmp_path / "folder.pbn").mkdir()
    for source, kind in (("pipe.pbn", "a FIFO (named pipe)"), ("folder.pbn", "a folder"), (os.devnull, "a device")):
        proc = _run(command[0], source, *command[1:], cwd=tmp_path)
        assert proc.returncode == 2
        assert proc.stderr.strip() == (f"xlbridge {command[0]}: {os.path.basename(source)}: this is {kind}, "
                                       f"not a regular file")
    assert sorted(os.listdir(tmp_path)) == ["folder.pbn", "pipe.pbn"]  # nothing written


def test_reading_a_fifo_as_a_results_file_is_refused_at_once(tmp_path):
    """The library too (formats.read_event with a path): a FIFO is refused, not read (which would wait
    for a writer); run in a child process so that a wait fails the test instead of hanging it."""
    os.mkfifo(tmp_path / "pipe.xml")
    code = ("import sys; from pathlib import Path; from xlbridge import formats\n"
            "try:\n    formats.read_event(Path(sys.argv[1]))\n"
            "except formats.FormatError as exc:\n    print(exc)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "pipe.xml")], capture_output=True, text=True,
                          timeout=60)
    assert proc.stdout.strip() == "pipe.xml: this is a FIFO (named pipe), not a regular file", proc.stderr


def test_output_may_not_overwrite_the_input(tmp_path):
    (tmp_path / "s.pbn").write_text(MITCHELL_PBN, encoding="latin-1")
    before = (tmp_path / "s.pbn").read_bytes()
    assert main(["publish", str(tmp_path / "s.pbn"), "-o", str(tmp_path / "site")]) == 0
    assert main(["export", str(tmp_path / "s.pbn"), "--format", "pbn", "-o", str(tmp_path / "s.pbn")]) == 2
    assert (tmp_path / "s.pbn").read_bytes() == before


# --- property: a workbook carries every field both file formats carry ------------------------------


@st.composite
def events(draw, movements=st.booleans()):
    mitchell = draw(movements)
    n = draw(st.integers(2, 5))
    parts = []
    for d in (("NS", "EW") if mitchell else (None,)):
        for k in range(1, n + 1):
            names = draw(st.sampled_from([(), ("Ann Lee", "Bob Roe"), ("Zoë O'Hara", "Åse Berg"),
                                          ("A & B", "Renée")]))
            parts.append(Participant(str(k), d, names))
    boards = []
    for b in draw(st.lists(st.integers(1, 32), min_size=1, max_size=4, unique=True)):
        rows = []
        # each pair once a board: a Mitchell's N-S t+1 meets E-W (t + b) mod n + 1; a Howell's tables seat
        # pairs 2t+1 and 2t+2 (directions swapped on alternate boards), never a pair against itself
        for t in range(draw(st.integers(1, n if mitchell else n // 2))):
            if mitchell:
                ns, ew = str(t + 1), str((t + b) % n + 1)
            else:
                ns, ew = (str(2 * t + 1), str(2 * t + 2))[::1 if (b + t) % 2 else -1]
            kind = draw(st.sampled_from(["contract", "artificial", "np", "pass"]))
            if kind == "contract":
                import xlbridge

                contract = draw(st.sampled_from(["3NT", "4S", "2HX", "1C", "6DXX"]))
                decl = draw(st.sampled_from("NESW"))
                tricks = draw(st.integers(0, 13))
                lead = draw(st.sampled_from([None, "SK", "HT", "C2"]))
                rows.append(Result(ns, ew, contract, decl, tricks, xlbridge.bridge_score(contract, decl, tricks, b),
                                   lead))
            elif kind == "pass":  # passed out: no declarer, no tricks, 0 (PBN 2.1 section 3.4.12)
                rows.append(Result(ns, ew, "PASS", score=0))
            elif kind == "artificial":
                import xlbridge

                rows.append(Result(ns, ew, score=xlbridge.Artificial(F(60), F(40))))
            else:
                import xlbridge

                rows.append(Result(ns, ew, score=xlbridge.NOT_PLAYED))
        deal = draw(st.sampled_from([None, DEAL_1, "N:- 5432.5432.5432.5 - 6.J6.J876.J76432"]))
        dealer = draw(st.sampled_from(["NESW"[(b - 1) % 4], "W"]))
        boards.append(Board(b, dealer, None, deal, tuple(rows)))
    return Event(name=draw(st.sampled_from([None, "Club Pairs", "Ève & Co"])), movement=MITCHELL if mitchell else HOWELL,
                 participants=tuple(parts), boards=tuple(boards))


@pytest.fixture(scope="module")
def template_bytes():
    from recalc_helpers import small_build

    return small_build("pairs.xlsx", rows=400).read_bytes()  # (400 Travellers rows: loads in 0.1 s, not 3 s)


@pytest.mark.parametrize("mitchell", [True, False])  # (one test a movement, three events each: seconds each)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_workbook_round_trip(tmp_path, template_bytes, mitchell, data):
    ev = data.draw(events(movements=st.just(mitchell)))

    wb = openpyxl.load_workbook(io.BytesIO(template_bytes))
    fill_pairs_workbook(wb, ev)
    wb.save(tmp_path / "b.xlsx")
    back = read_pairs_workbook(tmp_path / "b.xlsx")
    assert (back.name, back.movement) == (ev.name, ev.movement)
    assert {p.key: p.names for p in back.participants} == {p.key: p.names for p in ev.participants}
    strip = lambda e: sorted((b.number, r.ns, r.ew, r.contract, r.declarer, r.tricks, str(r.score), r.lead)  # noqa: E731
                             for b in e.boards for r in b.results)
    assert strip(back) == strip(ev)
    assert [(b.number, b.dealer, b.deal) for b in back.boards] == sorted((b.number, b.dealer, b.deal) for b in ev.boards)


def test_player_names_holding_an_ampersand_survive_the_workbook(tmp_path, template_bytes):
    """A PBN Names field is split at ';' only (PBN 2.1 section 3.7), so 'A & B' is one player; a cell
    typed by hand (or written before names were quoted) still splits at '&'."""

    names = {"1": ("A & B", "Renée"), "2": ('"Q" & R',), "3": ("Ann Lee", "Bob Roe")}
    ev = Event(movement=HOWELL, participants=tuple(Participant(k, None, v) for k, v in names.items()),
               boards=(Board(1, results=(Result("1", "2", score=420),)),))
    wb = openpyxl.load_workbook(io.BytesIO(template_bytes))
    fill_pairs_workbook(wb, ev)
    assert wb["Pairs"]["C7"].value == "Ann Lee & Bob Roe"  # unchanged where no name holds '&'
    wb["Pairs"]["A8"], wb["Pairs"]["C8"] = 4, "Cy Fox&Di Ode"
    wb.save(tmp_path / "b.xlsx")
    back = {p.number: p.names for p in read_pairs_workbook(tmp_path / "b.xlsx").participants}
    assert back == {**names, "4": ("Cy Fox", "Di Ode")}


def test_a_pair_with_more_players_than_a_team_has_is_refused_naming_the_row(tmp_path, template_bytes):
    """At most 12 players for a pair or team (a team with its reserves): a Pairs cell naming 13 is refused
    naming the sheet and row; 12 are read (the bound keeps a published site in proportion to its input)."""
    ev = Event(movement=HOWELL, participants=(Participant("1", None, ()), Participant("2", None, ())),
               boards=(Board(1, results=(Result("1", "2", score=420),)),))
    wb = openpyxl.load_workbook(io.BytesIO(template_bytes))
    fill_pairs_workbook(wb, ev)
    wb["Pairs"]["C5"] = " & ".join(f"P{k}" for k in range(12))
    wb["Pairs"]["C6"] = " & ".join(f"Q{k}" for k in range(13))
    wb.save(tmp_path / "b.xlsx")
    with pytest.raises(formats.FormatError) as e:
        read_pairs_workbook(tmp_path / "b.xlsx")
    assert str(e.value).startswith("b.xlsx, Pairs row 6: more than 12 players named for one pair or team (13), the "
                                   "limit: 'Q0; Q1; Q2;"), str(e.value)
    wb["Pairs"]["C6"] = None
    wb.save(tmp_path / "b.xlsx")
    back = {p.number: p.names for p in read_pairs_workbook(tmp_path / "b.xlsx").participants}
    assert back["1"] == tuple(f"P{k}" for k in range(12))


def test_players_national_numbers_go_through_the_pairs_sheet_into_usebio_and_pbn(tmp_path, template_bytes):
    """Issue 41: the Pairs sheet's Numbers column (the players' national numbers, & between them, in the order
    of the names) is filled on import, typed by a member, read on export, and reaches USEBIO's
    NATIONAL_ID_NUMBER and PBN's TotalScoreTable; more numbers than players is refused naming the row."""
    import xml.etree.ElementTree as ET

    ev = Event(movement=HOWELL, participants=(Participant("1", None, ("Ann Lee", "Bob Roe"), ids=("12345", "")),
                                              Participant("2", None, ("Cy Fox", "Di Ode"))),
               boards=(Board(1, results=(Result("1", "2", "3NT", "S", 9, 400),)),))
    wb = openpyxl.load_workbook(io.BytesIO(template_bytes))
    fill_pairs_workbook(wb, ev)
    assert (wb["Pairs"]["D4"].value, wb["Pairs"]["D5"].value, wb["Pairs"]["D6"].value) == ("Numbers", "12345 & ", None)
    assert wb["Pairs"]["D5"].number_format == wb["Pairs"]["D6"].number_format == "@"  # text: 0555002 keeps its 0
    wb["Pairs"]["D6"] = "  777 & 888"  # typed by a member
    wb.save(tmp_path / "b.xlsx")
    back = read_pairs_workbook(tmp_path / "b.xlsx")
    assert {p.number: p.player_ids() for p in back.participants} == {"1": ("12345", ""), "2": ("777", "888")}
    root = ET.fromstring(formats.write_usebio(formats.score_event(back)))
    assert [[pl.findtext("NATIONAL_ID_NUMBER") for pl in p.iter("PLAYER")] for p in root.iter("PAIR")] == [
        ["12345", ""], ["777", "888"]]
    assert {p.number: p.player_ids() for p in formats.read_pbn(formats.write_pbn(back)).participants} == {
        "1": ("12345", ""), "2": ("777", "888")}
    wb["Pairs"]["D6"] = "1 & 2 & 3"
    wb.save(tmp_path / "b.xlsx")
    with pytest.raises(formats.FormatError, match=r"^b.xlsx, Pairs!D6: more national numbers than players "
                                                  r"\(3 for 2\): '1 & 2 & 3'$"):
        read_pairs_workbook(tmp_path / "b.xlsx")


def test_event_details_typed_in_the_workbook_reach_usebio_and_a_bad_date_is_refused_naming_its_cell(tmp_path,
                                                                                                     template_bytes):
    """Issues 40 and 41: a member types the event's name, date and club in the Travellers sheet's Event, Date
    and Club parameters (no document property needed); USEBIO carries them as EVENT_DESCRIPTION, DATE
    (dd/mm/yyyy) and CLUB_NAME. A date typed as text is read in ISO or dd/mm/yyyy form, anything else refused."""
    import datetime as dt
    import xml.etree.ElementTree as ET

    ev = Event(movement=HOWELL, participants=(Participant("1"), Participant("2")),
               boards=(Board(1, results=(Result("1", "2", "3NT", "S", 9, 400),)),))
    wb = openpyxl.load_workbook(io.BytesIO(template_bytes))
    fill_pairs_workbook(wb, ev)
    labels = {wb["Travellers"][f"Q{r}"].value: f"R{r}" for r in range(4, 20)}
    ws = wb["Travellers"]
    ws[labels["Event"]], ws[labels["Date"]], ws[labels["Club"]] = "Thursday Pairs", dt.date(2026, 11, 26), "Riverside"
    wb.save(tmp_path / "club.xlsx")
    back = read_pairs_workbook(tmp_path / "club.xlsx")
    assert (back.name, back.date, back.site) == ("Thursday Pairs", dt.date(2026, 11, 26), "Riverside")
    root = ET.fromstring(formats.write_usebio(formats.score_event(back)))
    assert (root.findtext("EVENT/EVENT_DESCRIPTION"), root.findtext("EVENT/DATE"), root.findtext("CLUB/CLUB_NAME")) == (
        "Thursday Pairs", "26/11/2026", "Riverside")
    ws[labels["Date"]] = "26/11/2026"
    wb.save(tmp_path / "club.xlsx")
    assert read_pairs_workbook(tmp_path / "club.xlsx").date == dt.date(2026, 11, 26)
    ws[labels["Date"]] = "next Tuesday"
    wb.save(tmp_path / "club.xlsx")
    with pytest.raises(formats.FormatError) as e:
        read_pairs_workbook(tmp_path / "club.xlsx")
    assert str(e.value) == (f"club.xlsx, Travellers!{labels['Date']}: not a date (type it as a date, 2026-11-26 or "
                            f"26/11/2026): 'next Tuesday'")


def test_export_of_a_workbook_without_the_travellers_columns_names_file_and_column(tmp_path, capsys):
    wb = openpyxl.Workbook()
    wb.active.title = "Travellers"
    wb.save(tmp_path / "club.xlsx")
    assert main(["export", str(tmp_path / "club.xlsx"), "--format", "pbn", "-o", str(tmp_path / "o.pbn")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "xlbridge export: club.xlsx: sheet 'Travellers' has no column 'Board' on row 4"
    assert not (tmp_path / "o.pbn").exists()


def test_a_temporary_folder_that_fails_is_not_blamed_on_the_output(tmp_path, monkeypatch, capsys):
    """A workbook is checked and read from a private copy: a temporary folder that cannot be made (a full
    disk) is said as such, naming the input, exit 2; not "cannot write" the output (exit 3)."""
    import xlbridge.batch.guard.safety as safety

    def full():
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(safety, "private_tempdir", full)
    src = Path(__file__).resolve().parents[2] / "workbooks" / "examples" / "teams.xlsx"
    code = main(["publish", str(src), "-o", str(tmp_path / "site")])
    err = capsys.readouterr().err.strip()
    assert (code, err) == (2, "xlbridge publish: teams.xlsx: cannot read the file through a private copy "
                              "(No space left on device)"), err
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("sheet, cell, what", [("Travellers", "B5", "pair number"), ("Pairs", "A5", "pair number")])
def test_a_pair_number_past_20_characters_is_refused_naming_its_place(tmp_path, capsys, sheet, cell, what):
    """The PBN and USEBIO readers take a pair number of at most 20 characters (it names a page of the
    site): the workbook readers too, instead of a publish failing on a 300-character file name (exit 3,
    blamed on the output) and an export writing a PBN file that import refuses."""
    wb = _imported(MITCHELL_PBN)
    wb[sheet][cell] = "9" * 300
    wb.save(tmp_path / "club.xlsx")
    capsys.readouterr()
    for argv in (["export", "--format", "pbn", "-o", str(tmp_path / "o.pbn")], ["publish", "-o", str(tmp_path / "s")]):
        assert main([argv[0], str(tmp_path / "club.xlsx"), *argv[1:]]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"xlbridge {argv[0]}: club.xlsx, {sheet}") and len(err.splitlines()) == 1, err
        assert f"{what} longer than 20 characters: '99999" in err and "(300 characters)" in err, err
    assert not (tmp_path / "o.pbn").exists() and not (tmp_path / "s").exists()
