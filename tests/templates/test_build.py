"""The template workbooks: built from code, committed files equal to a fresh build, structure.

Expected structure comes from issue 8 and the brief (header names, sizes, xlwings.conf); the
example data is typed here from the seeds (seed 000 Table 1, seed 002's table, seed 004's
scoresheet, seed 000's observed results), not read back from xlbridge.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import io
import zipfile
from pathlib import Path

import openpyxl
import pytest
from openpyxl.utils.cell import get_column_letter, quote_sheetname, range_boundaries
from openpyxl.worksheet.formula import ArrayFormula
from recalc_helpers import fresh_build, loaded, recalculated, small_bytes, small_workbook

from xlbridge import templates as T
from xlbridge.templates.mirror import CALC_SUFFIX, calc_sheet_name, headroom, shows, shows_row

ROOT = Path(__file__).resolve().parents[2]
WORKBOOKS = ROOT / "workbooks"
NAMES = ["handicap.xlsx", "pairs.xlsx", "teams.xlsx", "instant.xlsx", "lehman.xlsx"]
XLBRIDGE_FUNCTIONS = {
    "BRIDGE_SCORE", "SCORE_OR_TYPED", "MATCHPOINTS", "WEIGHTED_MP", "NEUBERG", "MP_PERCENT", "PAIRS_RANKING",
    "IMPS", "CROSS_IMPS", "BUTLER", "BUTLER_DATUM", "VP", "WEIGHTED_IMPS", "MATCH_RESULT", "INSTANT_MP",
    "INSTANT_AWARD", "LEHMAN_PREDICT", "LEHMAN_DELTA", "LEHMAN_ERROR", "LEHMAN_UPDATE", "LEHMAN_LEDGER",
    "FORML_HANDICAP", "FORML_VPDIFF", "LEGACY_HANDICAP", "FORML_NEWTEAMS", "FAIRNESS", "FAIRNESS_BAND",
    "HANDICAP_MATCHES", "LEHMAN_SEASON", "LEHMAN_HISTORY", "INSTANT_RESULTS",
}


@pytest.fixture(scope="module")
def books():
    return {n: loaded(WORKBOOKS / "examples" / n) for n in NAMES}  # (once a process, shared: read only)


def _text(v):
    return v.text if isinstance(v, ArrayFormula) else v


def _unmirrored(text: str, home: str) -> str:
    """An array formula's text as written for sheet ``home`` before it moved to its hidden sheet
    (xlbridge.templates.mirror): ``'home'!A1`` and ``'home (calc)'!A1`` are ``A1``, ``'X (calc)'!A1`` is ``X!A1``."""
    def back(m):
        name = m.group(1).replace("''", "'")
        name = name[: -len(CALC_SUFFIX)] if name.endswith(CALC_SUFFIX) else name
        return "" if name == home else (name if name.isidentifier() else "'" + name.replace("'", "''") + "'") + "!"
    return re.sub(r"'((?:[^']|'')+)'!", back, text)


def _table(ws):
    """(first row, first column, last row, headroom) of the input table of ``ws`` (its rows below the header: the
    declared area starts at the header row), or None."""
    dn = ws.defined_names.get("XLBRIDGE_CAPACITY")
    if dn is None:
        return None
    c1, r1, _, r2 = range_boundaries(dn.attr_text.split("!")[-1].replace("$", ""))
    return r1 + 1, c1, r2, headroom(r2 - r1)


#: a table's range read from its header row with the header blank (xlbridge.templates.mirror.rows_below_header)
_BELOW_HEADER = re.compile(r'IF\(ROW\(([^()]+)\)-ROW\(INDEX\(\1,1,1\)\),IF\(\1="","",\1\),""\)')


def _as_written(text: str, wb) -> str:
    """A formula's text with the input tables' ranges as the template's code writes them: from the table's first
    row (not its header row: xlbridge.templates.mirror), to its last row (not twice the headroom past it), read
    as they are (not through ``rows_below_header``)."""
    text = _BELOW_HEADER.sub(r"\1", text)
    for ws in wb.worksheets:
        t = _table(ws)
        if t is not None:
            for end in (t[2] + 2 * t[3], t[2]):
                text = re.sub(rf"(\$?[A-Z]{{1,3}}\$?){t[0] - 1}(:\$?[A-Z]{{1,3}}\$?){end}(?![0-9])",
                              rf"\g<1>{t[0]}\g<2>{t[2]}", text)
    return text


def _arrays(ws):
    """{ref: formula text} of every array formula computing the sheet's results (on its hidden sheet),
    as written for the sheet; every cell of their ranges in view shows its hidden cell: by address, or,
    for a table's results, by its row's position in the table (the hidden array's headroom rows left out)."""
    wb = ws.parent
    name = calc_sheet_name(ws.title)
    if name not in wb.sheetnames:
        return {}
    calc = wb[name]
    assert calc.sheet_state == "hidden"
    table = _table(ws)
    out = {}
    for row in calc.iter_rows():
        for c in row:
            if not isinstance(c.value, ArrayFormula):
                continue
            c1, r1, c2, r2 = range_boundaries(c.value.ref)
            text = _unmirrored(_as_written(c.value.text, wb), ws.title)
            if table is None or not (r1 == r2 and table[0] <= r1 <= table[2] + table[3]
                                     or (r1, r2) == (table[0] - 1, table[2] + table[3])):
                out[c.value.ref] = text
                for cells in (ws[c.value.ref] if ":" in c.value.ref else [ws[c.value.ref]]):  # (a one-cell array)
                    for cell in (cells if isinstance(cells, tuple) else [cells]):
                        assert cell.value == shows(f"{quote_sheetname(name)}!{cell.coordinate}"), cell.coordinate
                continue
            if r1 > table[2]:  # a headroom row: nothing in view
                assert all(ws.cell(r1, k).value is None for k in range(c1, c2 + 1))
                continue
            last, r1 = min(r2, table[2]), max(r1, table[0])  # (a column's hidden array starts at the header row)
            out[f"{get_column_letter(c1)}{r1}:{get_column_letter(c2)}{last}"] = text
            first = get_column_letter(table[1])
            for k in range(c1, c2 + 1):
                column = (f"{quote_sheetname(name)}!${get_column_letter(k)}${table[0] - 1}:${get_column_letter(k)}"
                          f"${table[2] + table[3]}")
                for r in range(r1, last + 1):
                    assert ws.cell(r, k).value == shows_row(column, f"${first}${table[0] - 1}:${first}${table[2]}"), \
                        (ws.title, r, k)
    return out


# --- built from code, deterministic -----------------------------------------------------------


def test_template_names():
    assert sorted(T.TEMPLATES) == sorted(NAMES)


@pytest.mark.parametrize("name", T.FILES)
def test_committed_files_equal_a_fresh_build(name):
    """The committed file is, byte for byte, what ``xlbridge templates`` builds now (the template built
    and its values cached, once per run): the build is deterministic across processes and machines.
    A difference is shown as ``check_all`` lists it (formulas, styles, validations, names, charts)."""
    _, built = fresh_build(name)
    if (WORKBOOKS / name).read_bytes() != built.read_bytes():
        assert T.check_all(WORKBOOKS, [name]) == [], "differs from a fresh build"
        pytest.fail(f"{name}: the same template as a fresh build but not the same bytes (cached values?)")


def test_check_all_checks_every_file_by_default(tmp_path):
    assert sorted(T.check_all(tmp_path)) == sorted(f"{n}: missing in {tmp_path}" for n in T.FILES)


@pytest.mark.parametrize("name", ["handicap.xlsx", "teams.xlsx"])
def test_build_is_byte_deterministic(name):
    """A second build in the same process gives the same bytes (nothing carried over from one build to
    the next); across processes, test_committed_files_equal_a_fresh_build shows it for every file."""
    T.build_bytes.__wrapped__("examples/handicap.xlsx")  # another build in between
    assert T.build_bytes.__wrapped__(name) == fresh_build(name)[0].read_bytes()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp("built")
    for n in NAMES:  # the empty templates, as T.build_all writes them (built once per run)
        shutil.copyfile(fresh_build(n)[0], d / n)
    return d


def test_document_properties_are_fixed(built):
    for n in NAMES:
        wb = openpyxl.load_workbook(built / n, read_only=True)
        assert wb.properties.creator == "xlbridge"
        assert wb.properties.created == T.FIXED_TIME
        assert wb.properties.modified == T.FIXED_TIME
        with zipfile.ZipFile(built / n) as z:
            assert {i.date_time for i in z.infolist()} == {(2026, 1, 1, 0, 0, 0)}


def test_check_all_reports_a_changed_cell_and_a_missing_file(built, tmp_path):
    checked = ["handicap.xlsx", "lehman.xlsx", "teams.xlsx"]  # changed, missing, and one as built
    for n in checked:
        shutil.copy(built / n, tmp_path / n)
    wb = openpyxl.load_workbook(tmp_path / "handicap.xlsx")
    wb["Handicaps"]["C7"] = 13.5  # Gambits 13.4 -> 13.5
    ws = wb["Fairness"]
    ws["B3"] = 0.2  # the 25 % band's tail
    wb.save(tmp_path / "handicap.xlsx")
    (tmp_path / "lehman.xlsx").unlink()
    diffs = T.check_all(tmp_path, checked)
    assert any(d.startswith("handicap.xlsx") and "Handicaps!C7 13.5" in d for d in diffs), diffs
    assert any(d.startswith("handicap.xlsx") and "Fairness!B3" in d and "0.2" in d for d in diffs), diffs
    assert any(d.startswith("lehman.xlsx") and "missing" in d for d in diffs), diffs
    assert not any(d.startswith("teams.xlsx") for d in diffs)
    assert {d.split(":")[0] for d in diffs} == {"handicap.xlsx", "lehman.xlsx"}


def test_check_all_reports_a_damaged_file(tmp_path):
    (tmp_path / "pairs.xlsx").write_bytes(b"not a workbook")
    diffs = T.check_all(tmp_path)
    assert any(d.startswith("pairs.xlsx: cannot be read") for d in diffs), diffs


@pytest.mark.parametrize("name", ["handicap.xlsx", "examples/teams.xlsx"])
def test_cli_builds_the_same_bytes(tmp_path, name):
    """``python -m xlbridge templates NAME`` builds that workbook only and caches its values: an xlbridge
    recalc of the fresh build, byte for byte (an empty template and an example; every file's bytes are
    compared with the committed ones by test_committed_files_equal_a_fresh_build)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "xlbridge", "templates", "--out", str(tmp_path / "cli"), name],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert [p.relative_to(tmp_path / "cli").as_posix() for p in (tmp_path / "cli").rglob("*.xlsx")] == [name]
    raw, built = fresh_build(name)
    assert (tmp_path / "cli" / name).read_bytes() == built.read_bytes()
    assert recalculated(raw).read_bytes() == built.read_bytes()  # the values cached are xlbridge recalc's


def test_cli_builds_every_template_by_default_and_refuses_an_unknown_name(tmp_path, monkeypatch, capsys):
    from xlbridge.cli import main

    made = []
    monkeypatch.setattr("xlbridge.templates.build.build_bytes", lambda name: made.append(name) or b"PK")  # (no build)
    monkeypatch.setattr("xlbridge.cli._cache_values", lambda path: None)
    assert main(["templates", "--out", str(tmp_path)]) == 0
    assert made == list(T.FILES)
    assert main(["templates", "--out", str(tmp_path / "x"), "pairs.xls"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["xlbridge templates: no template 'pairs.xls' (templates: " + ", ".join(T.FILES) + ")"]
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("name", ["handicap.xlsx", "pairs.xlsx"])  # handicap has a chart and a drawing
@pytest.mark.parametrize("lx", ["True", "False"])
def test_bytes_do_not_depend_on_openpyxl_xml_library(name, lx):
    """The cause of a once-flaky test_cli_builds_the_same_bytes: openpyxl serialises with lxml when
    lxml is importable when openpyxl is imported, else with ElementTree, and the two write namespace
    declarations differently. lxml was installed on the machine while a test run was going on: the
    run's cached build (ElementTree) and the CLI it started (lxml) differed, first in
    docProps/core.xml. The builds are canonical XML now: the same bytes either way (each build here
    equals this process's). Each template's long tables are 40 rows long here (every part, name, style
    and kind of formula is there; the full files' bytes are compared by test_committed_files_equal_a_fresh_build)."""
    pytest.importorskip("lxml")  # a [test] dependency: both serialisers are exercised
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    code = ("import sys, openpyxl.xml; from recalc_helpers import small_bytes; "
            "assert openpyxl.xml.LXML is (sys.argv[1] == 'True'); "
            "sys.stdout.buffer.write(small_bytes(sys.argv[2], 40))")
    r = subprocess.run([sys.executable, "-c", code, lx, name], capture_output=True,
                       env=dict(env, OPENPYXL_LXML=lx), cwd=ROOT)
    assert r.returncode == 0, r.stderr.decode()
    want = small_bytes(name, 40)
    if r.stdout != want:  # (named by its first differing part: pytest's diff of two workbooks' bytes takes minutes)
        with zipfile.ZipFile(io.BytesIO(r.stdout)) as a, zipfile.ZipFile(io.BytesIO(want)) as b:
            differ = [n for n in b.namelist() if n not in a.namelist() or a.read(n) != b.read(n)]
        pytest.fail(f"OPENPYXL_LXML={lx}: not the same bytes, first in {differ[:1]}")


def test_core_does_not_import_templates_or_openpyxl():
    code = "import sys, xlbridge; print('openpyxl' in sys.modules, 'xlbridge.templates' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.stdout.split() == ["False", "False"], r.stdout + r.stderr


# --- common furniture ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_conf_and_instructions_sheets(books, name):
    wb = books[name]
    conf = wb["xlwings.conf"]
    assert (conf["A1"].value, conf["B1"].value) == ("UDF Modules", "xlbridge.udfs")
    ins = wb["Instructions"]
    text = " ".join(str(c.value) for row in ins.iter_rows() for c in row if c.value)
    assert len(text) > 500 and "xlbridge recalc" in text


@pytest.mark.parametrize("name", NAMES)
def test_inputs_are_marked(books, name):
    """Every validated cell is yellow, except a table's header cell (its validation starts at the header, so that
    a row inserted directly below it gets the validation: issue 52); every array-formula cell is green; each data
    sheet has a legend."""
    wb = books[name]
    for ws in wb.worksheets:
        if ws.title in ("Instructions", "xlwings.conf") or ws.title.endswith(CALC_SUFFIX):
            continue
        header = ws.defined_names.get("XLBRIDGE_HEADER")
        heads = set() if header is None else {c.coordinate for row in ws[header.attr_text.split("!")[-1].replace("$", "")]
                                               for c in row}
        dvs = ws.data_validations.dataValidation
        if not dvs:  # an output-only sheet (Ranking): then no cell may look like an input
            assert not [c for row in ws.iter_rows() for c in row
                        if c.fill.fgColor.rgb == T.INPUT_FILL and c.value != "Input: type or paste here"], ws.title
        for dv in dvs:
            assert dv.showInputMessage and dv.prompt
            for rng in dv.sqref.ranges:
                for row in ws[rng.coord] if ":" in rng.coord else [[ws[rng.coord]]]:
                    for c in row:
                        if c.coordinate in heads:
                            assert c.fill.fgColor.rgb == T.HEADER_FILL and c.value, f"{ws.title}!{c.coordinate}"
                            continue
                        assert c.fill.fgColor.rgb == T.INPUT_FILL, f"{ws.title}!{c.coordinate}"
        for ref in _arrays(ws):
            cells = ws[ref] if ":" in ref else [(ws[ref],)]
            for row in cells:
                for c in (row if isinstance(row, tuple) else [row]):
                    assert c.fill.fgColor.rgb == T.CALC_FILL, f"{ws.title}!{c.coordinate}"
        legend = [c for row in ws.iter_rows() for c in row if c.value == "Legend"]
        assert len(legend) == 1, ws.title
        below = [ws.cell(row=legend[0].row + k, column=legend[0].column) for k in (1, 2)]
        assert [c.fill.fgColor.rgb for c in below] == [T.INPUT_FILL, T.CALC_FILL]


@pytest.mark.parametrize("name", NAMES)
def test_formulas_call_xlbridge_functions_once_each(books, name):
    """Every array formula that calls an xlbridge function calls exactly one, once; besides it, the pairs
    matchpoints and ranking read the rows' scores from their inputs (SCORE_OR_TYPED: a value typed over a
    Score NS cell is never read, issue 52), and so do the teams matches their boards' IMPs (WEIGHTED_IMPS: a value
    typed over an IMPs A cell is never read)."""
    import re

    seen = set()
    for ws in books[name].worksheets:
        for ref, text in _arrays(ws).items():
            calls = [f for f in re.findall(r"([A-Z_]+)\(", text) if f in XLBRIDGE_FUNCTIONS]
            if len(calls) == 2 and calls[0] in ("WEIGHTED_MP", "PAIRS_STANDINGS") and calls[1] == "SCORE_OR_TYPED":
                calls = calls[:1]
            if calls == ["MATCH_RESULT", "WEIGHTED_IMPS"]:
                calls = calls[:1]
            assert len(calls) <= 1, (ws.title, ref, text)
            seen.update(calls)
    assert seen, name


# --- handicap.xlsx --------------------------------------------------------------------------------

TABLE1 = [  # seed 000 Table 1: division, team, Average VPs
    (1, "Eroes", 14.0), (1, "Discards", 14.0), (1, "Gambits", 13.4), (1, "Dragons", 10.0), (1, "Diamonds", 5.3),
    (1, "JCBC", 3.3), (2, "Rabbits", 11.5), (2, "Royals", 10.6), (2, "Cavaliers", 10.1), (2, "Rebels", 10.0),
    (2, "Clubs", 9.9), (2, "Imps", 7.9), (3, "Donuts", 17.0), (3, "United", 15.3), (3, "Dream", 8.9),
    (3, "Jokers", 8.3), (3, "Lambs", 7.7), (3, "Pioneers", 2.8),
]


def test_handicaps_layout(books):
    ws = books["handicap.xlsx"]["Handicaps"]
    assert [ws.cell(row=4, column=c).value for c in range(1, 8)] == [
        "Division", "Team", "Average VPs", "Expected VP Diff", "Merged VP Diff", "Handicap IMPs",
        "Legacy Handicap IMPs"]
    assert [(ws.cell(row=r, column=1).value, ws.cell(row=r, column=2).value, ws.cell(row=r, column=3).value)
            for r in range(5, 23)] == TABLE1
    assert all(ws.cell(row=r, column=c).value is None for r in range(23, 505) for c in (1, 2, 3))
    arrays = _arrays(ws)
    # one array call per column over the whole table: at least 80 teams
    for col, fn in (("D", "FORML_VPDIFF"), ("E", "FORML_VPDIFF"), ("F", "FORML_HANDICAP"), ("G", "LEGACY_HANDICAP")):
        ref = f"{col}5:{col}504"
        assert ref in arrays and arrays[ref].startswith(f"={fn}(A5:A504,C5:C504"), arrays
    assert ",TRUE," in arrays["E5:E504"] and ",FALSE," in arrays["D5:D504"]


def test_new_teams_sheet(books):
    ws = books["handicap.xlsx"]["NewTeams"]
    arrays = _arrays(ws)
    (ref, text), = arrays.items()
    assert ref == "F5:G44"
    assert "FORML_NEWTEAMS(A5:A204,B5:B204,C5:C204,D5:D204,Handicaps!B5:B504,Handicaps!E5:E504" in text


def test_fairness_sheet_and_chart(books):
    ws = books["handicap.xlsx"]["Fairness"]
    assert [ws.cell(row=3, column=c).value for c in (2, 4, 6)] == [0.25, 0.10, 0.01]
    assert [ws.cell(row=r, column=1).value for r in range(5, 205)] == list(range(1, 201))
    arrays = _arrays(ws)
    # one array call per band line over the whole column of n
    assert arrays["B5:C204"] == "=FAIRNESS_BAND(A5:A204,B$3)"
    assert arrays["D5:E204"] == "=FAIRNESS_BAND(A5:A204,D$3)"
    assert arrays["F5:G204"] == "=FAIRNESS_BAND(A5:A204,F$3)"
    observed = [(ws.cell(row=r, column=11).value, ws.cell(row=r, column=12).value) for r in range(6, 12)]
    # seed 000: 19 of 56 won by the higher-RANKING team = 37 of 56 by the higher-handicap team
    assert observed == [(37, 56), (34, 87), (44, 88), (39, 80), (83, 168), (6, 12)]
    # the first row is this season's, counted from the Results sheet (issue 15)
    assert "Results!O5" in ws["K5"].value and "Results!O6" in ws["L5"].value
    assert arrays["M5:M24"] == "=FAIRNESS(K5:K24,L5:L24)"
    (chart,) = ws._charts
    assert type(chart).__name__ == "ScatterChart"
    refs = [(s.xVal.numRef.f, s.yVal.numRef.f) for s in chart.series]
    assert refs[:7] == [("'Fairness'!$A$5:$A$204", f"'Fairness'!${c}$5:${c}$204") for c in "BCDEFGH"]
    assert refs[7] == ("'Fairness'!$L$5:$L$24", "'Fairness'!$K$5:$K$24")
    assert chart.series[7].marker.symbol == "x"


# --- pairs.xlsx -------------------------------------------------------------------------------------


def test_travellers_layout(books):
    ws = books["pairs.xlsx"]["Travellers"]
    head = [ws.cell(row=4, column=c).value for c in range(1, 17)]
    order = ["Board", "NS", "EW", "Contract", "Declarer", "Tricks", "Score NS", "MP NS", "MP EW"]
    assert [h for h in head if h in order] == order
    i = head.index("Score NS")
    assert head[i + 1:i + 6] == ["Outcome 2 NS", "Outcome 3 NS", "Weight 1", "Weight 2", "Weight 3"]
    assert head[-3:] == ["MP NS", "MP EW", "Arrow switch"]
    arrays = _arrays(ws)
    # issue 52: the row's pairs given too, so that a row of pairs without a result is a mistake at its input cell
    # (and the movement: the rows read together, a pair playing a board twice named at its cell)
    # (and the Pairs sheet's Pair column: a pair not on it, when it lists pairs, is a mistake at its input cell)
    # (and the Pairs sheet's Direction column and the Arrow switch: a pair seated in the other field, in a Mitchell)
    assert arrays["H5:H10004"] == ("=SCORE_OR_TYPED(D5:D10004,E5:E10004,F5:F10004,A5:A10004,G5:G10004,B5:B10004,"
                                   "C5:C10004,$R$7,Pairs!$A$5:$B$404,P5:P10004)")
    # issue 52: the matchpoints read each row's score from its inputs (never a value typed over Score NS), the
    # other outcomes from I:J
    scores = ("TRANSPOSE(SCORE_OR_TYPED(TRANSPOSE(D5:D10004),TRANSPOSE(E5:E10004),TRANSPOSE(F5:F10004),"
              "TRANSPOSE(A5:A10004),TRANSPOSE(G5:G10004),TRANSPOSE(B5:B10004),TRANSPOSE(C5:C10004),$R$7,"
              "Pairs!$A$5:$B$404,TRANSPOSE(P5:P10004)))")
    assert arrays["N5:O10004"] == (f'=WEIGHTED_MP(IF({{1,0,0}},{scores},IF(H5:J10004="","",H5:J10004)),'
                                   f'K5:M10004,A5:A10004,$R$6,$R$5)')
    assert (ws["Q7"].value, ws["R7"].value, ws["Q8"].value, ws["R8"].value) == (
        "Movement", "Mitchell", "Artificial scores", "Fixed")
    # seed 004's scoresheet: 60 % of 420 / 40 % of -50 against 420, 400, 400, 170, -50 (board 3: typed)
    b3 = [[ws.cell(row=r, column=c).value for c in (7, 9, 11, 12)] for r in range(5, 40)
          if ws.cell(row=r, column=1).value == 3]
    assert b3 == [[420, -50, 0.6, 0.4], [170, 420, 0.5, 0.5], [420, None, None, None], [400, None, None, None],
                  [400, None, None, None], [-50, None, None, None]]


def test_ranking_layout(books):
    ws = books["pairs.xlsx"]["Ranking"]
    assert [ws.cell(row=4, column=c).value for c in range(1, 7)] == [
        "Direction", "Pair", "Names", "Total MP", "Percentage", "Rank"]
    arrays = _arrays(ws)
    assert sorted(arrays) == ["A3", "A5:F404"]  # the line naming a row left out, and 400 pairs: both fields of a Mitchell
    assert arrays["A3"].startswith('=IFERROR(IF(SUM(IF(ISERROR(Travellers!H5:H10004),1,')
    ref, text = "A5:F404", arrays["A5:F404"]
    assert "PAIRS_STANDINGS(Travellers!A5:A10004,Travellers!B5:B10004,Travellers!C5:C10004," in text
    assert "Travellers!$R$7,Travellers!P5:P10004,Pairs!A5:C404,Travellers!$R$8)" in text
    assert text.startswith("=IFERROR(INDEX(PAIRS_STANDINGS(") and T.seq_column(400) in text


@pytest.mark.parametrize("name", NAMES)
def test_each_input_table_is_an_excel_table_with_its_results_as_calculated_columns(books, name):
    """Issue 38: in Excel a row inserted into a table gets its calculated columns' formula. Each table spans its
    input area's header row to its last row and the result columns beside it; a calculated column's formula is
    the one every row of that column holds (position-independent), the other columns have none."""
    from openpyxl.utils.cell import range_boundaries

    wb = books[name]
    found = 0
    for ws in wb.worksheets:
        cap = ws.defined_names.get("XLBRIDGE_CAPACITY")
        if cap is None:
            assert not ws.tables, ws.title
            continue
        (table,) = ws.tables.values()
        c1, r1, c2, r2 = range_boundaries(table.ref)
        k1, q1, k2, q2 = range_boundaries(cap.attr_text.split("!")[-1].replace("$", ""))
        assert (c1, r1, r2) == (k1, q1, q2) and c2 >= k2  # (the declared area starts at the header row too)
        assert [c.name for c in table.tableColumns] == [ws.cell(r1, c).value for c in range(c1, c2 + 1)]
        results = ws.defined_names.get("XLBRIDGE_RESULTS")
        shown = set()
        for block in ([] if results is None else results.attr_text.split(",")):
            b1, _, b2, _ = range_boundaries(block.split("!")[-1].replace("$", ""))
            shown |= set(range(b1, b2 + 1))
        for col, c in zip(table.tableColumns, range(c1, c2 + 1)):
            formula = col.calculatedColumnFormula
            assert (formula is not None) == (c in shown), (ws.title, col.name)
            if formula is not None:
                found += 1
                assert {ws.cell(r, c).value for r in range(q1 + 1, q2 + 1)} == {"=" + formula.attr_text}
                assert "ROW()" in formula.attr_text
    assert found or name == "lehman.xlsx"  # (the Lehman Ledger computes no column beside its rows)


def test_capacity_declared_and_flagged(books):
    """The Travellers input area is a sheet-scoped name (read by ``xlbridge recalc``) from its header row (a row
    inserted directly below the header is inside it: issue 52) and its note turns red when anything is typed below
    it."""
    ws = books["pairs.xlsx"]["Travellers"]
    assert ws.defined_names["XLBRIDGE_CAPACITY"].attr_text == "'Travellers'!$A$4:$P$10004"
    assert "rows 5 to 10,004" in ws["Q18"].value  # (below the parameters, the event details and the legend)
    rules = {str(cf.sqref): cf.rules for cf in ws.conditional_formatting}
    assert sorted(rules) == ["A4:A10004", "B4:B10004", "C4:C10004", "D4:D10004", "E4:E10004", "F4:F10004",
                             "G4:G10004", "H4:H10004", "K4:K10004", "L4:L10004", "M4:M10004", "N4:O10004", "Q18"]
    # issue 52: a half-filled row turns red at the input to put right (core.travellerrow's rules, Excel's words),
    # from the header row (a row inserted directly below it gets them), never on the header itself
    # (and a cell holding what it cannot: tricks 14, 9.5 or text)
    assert rules["F4:F10004"][0].formula == ['AND(ROW(F4)>ROW($A$4),AND($D4<>"",UPPER(TRIM($D4))<>"PASS",OR($F4="",'
                                             'NOT(ISNUMBER($F4)),IFERROR(OR($F4<0,$F4>13,$F4<>INT($F4)),TRUE))))']
    assert rules["D4:D10004"][0].formula == ['AND(ROW(D4)>ROW($A$4),AND($D4="",$G4="",COUNTA($A4:$C4,$E4:$F4)>0))']
    assert rules["Q18"][0].formula == ["COUNTA($A$10005:$P$1048576)>0"]
    assert ws.defined_names["XLBRIDGE_HEADER"].attr_text == "'Travellers'!$A$4:$P$4"
    # issue 38: a result cell without its formula in a row typed into (a row inserted) turns red, and
    # xlbridge recalc reads the result cells from this name (from the header row, as the table: not the header)
    assert rules["N4:O10004"][0].formula == ["AND(ROW(N4)>ROW($A$4),NOT(_xlfn.ISFORMULA(N4)),COUNTA($A4:$P4)>0)"]
    assert ws.defined_names["XLBRIDGE_RESULTS"].attr_text == "'Travellers'!$H$4:$H$10004,'Travellers'!$N$4:$O$10004"


@pytest.mark.parametrize("name, sheet, first", [("pairs.xlsx", "Travellers", "Q9"), ("teams.xlsx", "Matches", "J13"),
                                                ("handicap.xlsx", "Handicaps", "I27"), ("lehman.xlsx", "Ledger", "U16"),
                                                ("instant.xlsx", "Results", "H13")])
def test_event_details_with_the_scorer_under_the_club(books, name, sheet, first):
    """The event details, in every book (issue 40: "a place in each workbook"), beside its first table: Event, Date,
    Club and Scorer one under the other, each value to its right an input, found by the readers' search
    (``event_details_block``); the Scorer text validated as the Club (at most 200 characters) with a prompt naming
    the results site in the books publish and export read, and only the printouts in the others; a long name shrinks into its cell; a date shows whole (a column at least 10 wide); a blank
    row below them (nothing else runs into the block)."""
    from xlbridge.formats.sheets import event_details_block

    ws = books[name][sheet]
    col, row = first[0], int(first[1:])
    value_col = chr(ord(col) + 1)
    assert [ws[f"{col}{row + k}"].value for k in range(5)] == ["Event", "Date", "Club", "Scorer", None]
    assert ws[f"{value_col}{row + 4}"].value is None
    dvs = {str(dv.sqref): dv for dv in ws.data_validations.dataValidation}
    club, scorer = dvs[f"{value_col}{row + 2}"], dvs[f"{value_col}{row + 3}"]
    assert (scorer.type, scorer.operator, scorer.formula1, scorer.formula2) == ("textLength", "between", "0", "200")
    assert (scorer.type, scorer.operator, scorer.formula1, scorer.formula2) == (
        club.type, club.operator, club.formula1, club.formula2)
    if name in ("pairs.xlsx", "teams.xlsx"):  # (the books publish and export read)
        assert "results site" in scorer.prompt and "Scored by" in scorer.prompt
    else:  # (nothing reads them from these books: no promise of a site or a file)
        prompts = [dvs[f"{value_col}{row + k}"].prompt for k in range(4)]
        assert all("printouts" in p and "site" not in p and "USEBIO" not in p for p in prompts), prompts
    assert ws[f"{value_col}{row + 3}"].fill.fgColor.rgb == T.INPUT_FILL
    assert {label: cell for label, (_, cell) in event_details_block(ws).items()} == {
        label: f"{value_col}{row + k}" for k, label in enumerate(["Event", "Date", "Club", "Scorer"])}
    assert all(ws[f"{value_col}{row + k}"].alignment.shrink_to_fit for k in (0, 2, 3))
    assert ws[f"{value_col}{row + 1}"].number_format == "yyyy-mm-dd" and ws.column_dimensions[value_col].width >= 10


def test_pairs_sheet(books):
    ws = books["pairs.xlsx"]["Pairs"]
    assert [ws.cell(row=4, column=c).value for c in range(1, 4)] == ["Pair", "Direction", "Names"]
    rows = [[ws.cell(row=r, column=c).value for c in range(1, 4)] for r in range(5, 17)]
    assert [r[0] for r in rows] == [1, 2, 3, 4, 5, 6, 11, 12, 13, 14, 15, 16]  # the sample travellers' pairs
    assert [r[1] for r in rows] == ["NS"] * 6 + ["EW"] * 6


# --- teams, instant, lehman -------------------------------------------------------------------------


def test_teams_layout(books):
    wb = books["teams.xlsx"]
    arrays = _arrays(wb["Boards"])
    # issue 52: the rows' match and board and the Matches sheet's matches, so that a row's mistake is named at its cell
    assert arrays["J5:J5004"] == "=WEIGHTED_IMPS(C5:E5004,F5:H5004,I5:I5004,A5:A5004,B5:B5004,Matches!$A$5:$A$44)"
    m = _arrays(wb["Matches"])
    assert len(m) == 40 and all("MATCH_RESULT(" in t for t in m.values())
    s = wb["Swiss"]
    assert (s["B9"].value, s["C9"].value, s["B10"].value, s["C10"].value, s["C4"].value) == (420, -50, 0.6, 0.4, 400)
    assert (s["C5"].value, s["C6"].value) == (8, 7)


def test_instant_layout(books):
    wb = books["instant.xlsx"]
    assert wb.sheetnames == ["Instructions", "Results", "History", "Chart", "xlwings.conf", "Results (calc)", "Chart (calc)"]
    ws = wb["History"]
    assert [ws.cell(row=4, column=c).value for c in range(1, 4)] == ["Board", "NS score", "Frequency"]
    hist = [tuple(ws.cell(row=r, column=c).value for c in range(1, 4)) for r in range(5, 13)]
    assert hist == [(1, 980, 4), (1, 800, 3), (1, 480, 8), (1, 450, 26), (1, 420, 115), (1, 400, 6), (1, -50, 17),
                    (1, -100, 1)]  # seed 002's board 1
    res = wb["Results"]
    assert [res.cell(row=4, column=c).value for c in range(1, 7)] == [
        "Board", "NS pair", "EW pair", "NS score", "Award NS %", "Award EW %"]
    assert _arrays(res) == {"E5:F10004": "=INSTANT_RESULTS(A5:A10004,D5:D10004,History!A5:A5004,History!B5:B5004,"
                                         "History!C5:C5004)"}
    chart = wb["Chart"]
    assert chart["F5"].value == "Board" and chart["G5"].value == 1
    (ref,) = [r for r, t in _arrays(chart).items() if "INSTANT_MP" in t]
    assert ref == "A5:C405" and "History!$A$5:$A$5004=$G$5" in _arrays(chart)[ref]
    text = " ".join(str(c.value) for c in wb["Instructions"]["A"] if c.value)
    assert "does not rank" in text and "ranked separately" in text  # says what it does, and what it does not


def test_lehman_layout(books):
    wb = books["lehman.xlsx"]
    arrays = _arrays(wb["Ledger"])
    assert '"standard"' in arrays["I5:M404"] and '"modified"' in arrays["O5:S404"]
    assert arrays["I5:M404"].startswith("=IFERROR(INDEX(LEHMAN_SEASON(Ledger!A5:A10004,")
    assert "Ledger!G5:G10004" in arrays["I5:M404"]  # the boards column
    assert "LEHMAN_HISTORY" in _arrays(wb["History"])["A4:BA404"]
    (chart,) = wb["Chart"]._charts
    assert type(chart).__name__ == "LineChart" and len(chart.series) == 8
    ex = wb["Example"]
    assert [ex.cell(row=5, column=c).value for c in range(2, 6)] == [50, 45, 45, 45]
    assert ex["B8"].value == 42
    assert _arrays(ex)["B13:E13"] == "=LEHMAN_DELTA(B5:E5,B8,B7:E7)"


def test_canonical_dump_covers_validations_and_charts():
    dump = T.canonical_dump(T.build_bytes("handicap.xlsx"))
    assert any(" validation " in line for line in dump)
    assert any(" chart ScatterChart" in line for line in dump)
    assert any("ARRAY[D4:D509] =FORML_VPDIFF" in line for line in dump)  # from the header row; 5 rows of headroom


# --- empty templates and their filled examples ------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_templates_ship_empty_and_examples_filled(name):
    """Every input table of the shipped template is empty; its example (workbooks/examples/) has rows;
    both have the same formulas, parameters and sheets (every cell of either, but the example's rows and
    caption and the cached results of its array ranges)."""
    from openpyxl.utils.cell import range_boundaries
    from recalc_helpers import cells

    empty, example = cells(WORKBOOKS / name), cells(WORKBOOKS / "examples" / name)
    assert list(empty) == list(example)
    book = openpyxl.load_workbook(WORKBOOKS / name, read_only=True)  # (its sheets' names: the input areas)
    filled = 0
    for title, mine_cells in empty.items():
        ex = example[title]
        dn = book[title].defined_names.get("XLBRIDGE_CAPACITY")
        area = range_boundaries(dn.attr_text.split("!")[1].replace("$", "")) if dn is not None else None
        cached = set()  # cells of an array range other than its anchor: cached results, which differ
        for (r0, k0), v in ex.items():
            if isinstance(v, ArrayFormula):
                a1, b1, a2, b2 = range_boundaries(v.ref)
                cached |= {(r, k) for r in range(b1, b2 + 1) for k in range(a1, a2 + 1)} - {(r0, k0)}
        for row, col in (ex.keys() | mine_cells.keys()) - cached:
            value, mine = ex.get((row, col)), mine_cells.get((row, col))
            inside = area is not None and area[1] < row <= area[3] and area[0] <= col <= area[2]  # (below the header)
            is_formula = isinstance(value, ArrayFormula) or (isinstance(value, str) and value.startswith("="))
            if inside and not is_formula:
                assert mine is None, (title, row, col, mine)
                filled += value is not None
            elif (row, col) != (2, 1):  # the caption (A2) says where the example is
                same = (mine.text, mine.ref) == (value.text, value.ref) if isinstance(mine, ArrayFormula) \
                    and isinstance(value, ArrayFormula) else mine == value
                assert same, (title, row, col)
    book.close()
    assert filled > 0  # the example has rows to type over


def test_empty_pairs_template_recalculates_to_blank_results():
    out = recalculated(WORKBOOKS / "pairs.xlsx")  # (no cell errs; made once per run)
    rk = openpyxl.load_workbook(out, data_only=True, read_only=True)["Ranking"]
    assert all(v in (None, "") for row in rk.iter_rows(min_row=5, max_row=404, max_col=6, values_only=True)
               for v in row)
    assert "workbooks/examples/pairs.xlsx" in openpyxl.load_workbook(out, read_only=True)["Travellers"]["A2"].value


def test_mirror_qualifies_whole_rows_and_columns_and_keeps_hidden_names_apart():
    from openpyxl import Workbook

    from xlbridge.templates.mirror import mirror_arrays

    wb = Workbook()
    one = wb.active
    one.title = "Tournament standings week 1"
    two = wb.create_sheet("Tournament standings week 2")
    for ws in (one, two):
        ws["A1"] = 5
        ws["B1"] = ArrayFormula("B1:B2", "=SUM(A:A)+ROWS(1:2)+A1:A2")
    mirror_arrays(wb)
    hidden = [ws for ws in wb.worksheets if ws.sheet_state == "hidden"]
    assert len({ws.title for ws in hidden}) == 2 and all(len(ws.title) <= 31 for ws in hidden)
    for ws, calc in zip((one, two), hidden):
        q = quote_sheetname(ws.title)
        assert calc["B1"].value.text == f"=SUM({q}!A:A)+ROWS({q}!1:2)+{q}!A1:A2"
        assert ws["B2"].value == shows(f"{quote_sheetname(calc.title)}!B2")


@pytest.mark.parametrize("name", ["examples/handicap.xlsx", "examples/pairs.xlsx"])  # a chart and a drawing; every kind of cell
def test_both_canonical_forms_give_the_same_bytes(name):
    """``canonical_xml`` writes libxml2's exclusive canonical form where lxml is installed and ElementTree's
    C14N 2.0 elsewhere: the same bytes for every part of a template, so a build does not depend on lxml. (The
    pairs example with 400 Travellers rows, ``recalc_helpers.small_build``'s way: the same parts, and every
    part's bytes compared with the committed files' build by test_committed_files_equal_a_fresh_build.)"""
    import io
    from xml.etree.ElementTree import canonicalize

    pytest.importorskip("lxml")
    from openpyxl.writer.excel import ExcelWriter

    from xlbridge.templates.build import canonical_xml

    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as archive:
        ExcelWriter(small_workbook(name, 400), archive).write_data()
    with zipfile.ZipFile(raw) as z:
        parts = [n for n in z.namelist() if n.endswith((".xml", ".rels"))]
        assert len(parts) > 20 and any("chart" in n for n in parts) == (name == "examples/handicap.xlsx")
        for part in parts:
            data = z.read(part)
            assert canonical_xml(data) == canonicalize(data).encode("utf-8"), part
