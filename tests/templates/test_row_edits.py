"""A member's row edits in a real spreadsheet program keep every result beside its own row (issue 38).

LibreOffice, driven through its UNO bridge (the run's LibreOffice, tests/office.py, run by Debian's
/usr/bin/python3 with python3-uno), makes the edits a committee makes to each input table of the five filled examples:
delete a row, insert a row and type a result into it (its result cells left empty, as both programs
insert it; in one table copied from the row above, as a member may do), insert one more directly below the
table's header (``top``: the first place many members insert; issue 52) and type into it, and sort the table by
another column; whole rows, except where the sheet's parameters or summary
share the table's rows (handicap Results, the Lehman Ledger: the table's cells, shifted up or down). ``xlbridge recalc`` then recalculates each edited book.

Expected values never come from the edited book: the example's rows are edited the same way in Python
(the row deleted, the row inserted, a stable sort on the same column), typed into the example's table
in that order with openpyxl (a copy: the table's rows cleared first) and recalculated, so each row's
results are the core's on exactly those rows. Every cell of every sheet in view must then be equal.
LibreOffice inserts an empty row (no formulas, Excel alike): ``xlbridge recalc`` writes the formulas of the
table's other rows into its result cells and computes them, with a warning naming the row (:data:`UNCOPIED`);
a result cell a member typed a value into keeps the value and is named.

Each template's edits are made and recalculated once per run (the ``edited`` fixture), in
whichever worker asks first. The books are the examples built by xlbridge.templates with their
long tables cut to 100 rows (:data:`SMALL_ROWS`, ``recalc_helpers.small_build``: the same builders,
formulas and layout, the row counts smaller, values cached as shipped), so that recalculating them takes seconds; tests/templates/test_build.py checks
the shipped files against the builders.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import openpyxl
import pytest
from office import available as office_available

#: the rows of each long table of the test books (``recalc_helpers.small_build``)
SMALL_ROWS = 100


def _small_examples_of(names: list[str], d: Path) -> Path:
    """The filled examples ``names``, built with their long tables :data:`SMALL_ROWS` rows long, copied into ``d``."""
    from recalc_helpers import small_build

    d.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copyfile(small_build(f"examples/{name}", rows=SMALL_ROWS), d / name)
    return d


pytestmark = pytest.mark.skipif(not office_available(), reason="LibreOffice with python3-uno is not installed")


def _sort_key(v):
    """LibreOffice's ascending order of a column: numbers, then texts (case-insensitive), blanks last."""
    if v is None or v == "":
        return (2, 0, "")
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return (0, v, "")
    return (1, 0, str(v).lower())


# Each case: a table (sheet, first row, number of example rows, its columns, the computed ones), and
# the edits: delete sheet row ``delete``, insert a row before sheet row ``insert`` holding ``new`` (by
# column letter), insert a row directly below the header (before sheet row ``first``) holding ``top``, sort the
# table's rows by column ``sort`` (0-based in the table), ``descending``.
# ``also``: more tables of the book, sorted only.
CASES = {
    "pairs.xlsx": [
        dict(sheet="Travellers", first=5, rows=18, cols="ABCDEFGHIJKLMNOP", computed="HNO", delete=9, insert=10,
             new={"A": 1, "B": 7, "C": 17, "D": "3NT", "E": "N", "F": 9},
             top={"A": 2, "B": 7, "C": 17, "D": "2H", "E": "W", "F": 8}, sort=1),
        dict(sheet="Pairs", first=5, rows=12, cols="ABC", computed="", top={"A": 7, "B": "NS", "C": "X. Top & Y. Row"},
             sort=2, descending=True),
    ],
    "teams.xlsx": [
        dict(sheet="Boards", first=5, rows=10, cols="ABCDEFGHIJK", computed="JK", delete=6, insert=8,
             new={"A": 1, "B": 8, "C": 100, "I": 130}, top={"A": 3, "B": 1, "C": 420, "I": -50}, sort=8),
        dict(sheet="Matches", first=5, rows=2, cols="ABCDEFGH", computed="EFGH",
             top={"A": 3, "B": "Team A", "C": "Team D", "D": 1}, sort=1, descending=True),
    ],
    "handicap.xlsx": [
        dict(sheet="Handicaps", first=5, rows=18, cols="ABCDEFG", computed="DEFG", delete=8, insert=12,
             new={"A": 2, "B": "Newcomers", "C": 9.5}, top={"A": 3, "B": "Top row", "C": 12.5}, sort=2, copy=True),
        dict(sheet="Results", first=5, rows=8, cols="ABCDEFGHIJKL", computed="GHIJKL", delete=6, insert=9, cells=True,
             new={"A": "Rebels", "B": "Clubs", "C": 50, "D": 40}, top={"A": "Royals", "B": "Imps", "C": 30, "D": 35},
             sort=1),
    ],
    "instant.xlsx": [
        dict(sheet="Results", first=5, rows=14, cols="ABCDEF", computed="EF", delete=6, insert=9,
             new={"A": 1, "B": 8, "C": 18, "D": 450}, top={"A": 1, "B": 9, "C": 19, "D": -100}, sort=3),
    ],
    "lehman.xlsx": [
        dict(sheet="Ledger", first=5, rows=19, cols="ABCDEFG", computed="", delete=7, insert=10, cells=True,
             new={"A": 3, "B": "Ann", "C": "Dee", "D": "Bob", "E": "Cal", "F": 50},
             top={"A": 3, "B": "Bob", "C": "Cal", "D": "Ann", "E": "Dee", "F": 55}, sort=1),
    ],
}


def _col(letter: str) -> int:
    return openpyxl.utils.column_index_from_string(letter)


def _count(case) -> int:
    """The table's rows after the case's edits (as many as before, and one more inserted below the header)."""
    return case["rows"] + ("top" in case)


def _rows(ws, case, count: int | None = None) -> list[list]:
    """The table's rows (``count``: :func:`_count` of the edited table unless given)."""
    return [[ws.cell(case["first"] + i, _col(c)).value for c in case["cols"]]
            for i in range(_count(case) if count is None else count)]


def _edited(rows: list[list], case) -> tuple[list[list], int | None]:
    """The rows after the case's edits, in Python, and the inserted row's index (None if none)."""
    rows = [list(r) for r in rows]
    inserted = None
    if "delete" in case:
        del rows[case["delete"] - case["first"]]
    if "insert" in case:
        new = [case["new"].get(c) for c in case["cols"]]
        new = [None if c in case["computed"] else v for c, v in zip(case["cols"], new)]
        rows.insert(case["insert"] - case["first"], new)
        inserted = id(rows[case["insert"] - case["first"]])
    if "top" in case:  # (directly below the header: the table's first row)
        rows.insert(0, [None if c in case["computed"] else case["top"].get(c) for c in case["cols"]])
    order = sorted(range(len(rows)), key=lambda i: _sort_key(rows[i][case["sort"]]),
                   reverse=case.get("descending", False))  # stable both ways, as LibreOffice's
    rows = [rows[i] for i in order]
    at = next((k for k, r in enumerate(rows) if id(r) == inserted), None)
    return rows, at


def _runs(letters: str) -> list[tuple[str, str]]:
    """The runs of adjacent columns among ``letters``: "HNO" -> [("H", "H"), ("N", "O")]."""
    out: list[list[str]] = []
    for c in letters:
        if out and _col(c) == _col(out[-1][-1]) + 1:
            out[-1].append(c)
        else:
            out.append([c])
    return [(run[0], run[-1]) for run in out]


def _lo_edits(case) -> list[dict]:
    """The edits in LibreOffice: whole rows deleted and inserted (cells shifted in the table's columns
    only, for a table sharing its rows with another table: ``cells``), a result typed into the new row,
    the result cells of the row above copied into it where the case says ``copy``, the table sorted."""
    out = []
    s, cells = case["sheet"], case.get("cells", False)
    span = f"{case['cols'][0]}{{r}}:{case['cols'][-1]}{{r}}"
    if "delete" in case:
        out.append({"op": "delete_cells", "sheet": s, "range": span.format(r=case["delete"])} if cells else
                   {"op": "delete_rows", "sheet": s, "row": case["delete"]})
    if "insert" in case:
        r = case["insert"]
        out.append({"op": "insert_cells", "sheet": s, "range": span.format(r=r)} if cells else
                   {"op": "insert_rows", "sheet": s, "row": r})
        out += [{"op": "set", "sheet": s, "cell": f"{c}{r}", "value": v} for c, v in case["new"].items()]
        if case.get("copy"):
            out += [{"op": "copy_cells", "sheet": s, "from": f"{a}{r - 1}:{z}{r - 1}", "to": f"{a}{r}"}
                    for a, z in _runs(case["computed"])]
    if "top" in case:  # directly below the header, typed into, its result cells left empty
        r = case["first"]
        out.append({"op": "insert_cells", "sheet": s, "range": span.format(r=r)} if cells else
                   {"op": "insert_rows", "sheet": s, "row": r})
        out += [{"op": "set", "sheet": s, "cell": f"{c}{r}", "value": v} for c, v in case["top"].items()]
    if "sort" in case:
        last = case["first"] + _count(case) - 1
        out.append({"op": "sort", "sheet": s, "range": f"{case['cols'][0]}{case['first']}:{case['cols'][-1]}{last}",
                    "column": case["sort"], "ascending": not case.get("descending", False)})
    return out


#: Rows inserted and typed into, their result cells left empty (not copied): given their formulas by
#: ``xlbridge recalc``; one more whose first result cell a member typed a value into (kept, and named); and,
#: first, a row inserted directly below the header (inside the table's ranges, which start at the header row: read
#: and given its formulas as the others, issue 52).
UNCOPIED = ("handicap.xlsx",
            dict(sheet="Handicaps", first=5, rows=18, cols="ABCDEFG", computed="DEFG", insert=5,
                 new={"A": 3, "B": "Above", "C": 8.5}),
            dict(sheet="Handicaps", first=5, rows=18, cols="ABCDEFG", computed="DEFG", insert=12,
                 new={"A": 2, "B": "Newcomers", "C": 9.5}),
            dict(sheet="Handicaps", first=5, rows=19, cols="ABCDEFG", computed="DEFG", insert=16,
                 new={"A": 2, "B": "Typed over", "C": 9.0, "D": 7}))


def _errors(report) -> list[list]:
    return [[e.sheet, e.cell, e.code, e.message] for e in report.errors] + [["", "", "warning", w]
                                                                          for w in report.warnings]


def _build_edited(key: str, folder: Path, office) -> None:
    """Into ``folder``: ``got.xlsx`` (the small example ``key`` edited by LibreOffice, then recalculated),
    ``exp.xlsx`` (the same rows typed in Python, recalculated) and ``errors.json`` (both reports' errors); for
    "uncopied", :data:`UNCOPIED` edited and recalculated (``got.xlsx``, ``errors.json``)."""
    from recalc_helpers import recalc_here

    examples = _small_examples_of([UNCOPIED[0] if key == "uncopied" else key], folder / "small")
    if key == "uncopied":
        name, *cases = UNCOPIED
        jobs = [{"in": str(examples / name), "out": str(folder / "lo.xlsx"),
                 "edits": [e for case in cases for e in _lo_edits(case)]}]
    else:
        src, cases = examples / key, CASES[key]
        jobs = [{"in": str(src), "out": str(folder / "lo.xlsx"), "edits": [e for case in cases for e in _lo_edits(case)]}]
        # expected: the example's table rows, edited in Python, typed into a copy of the example
        wb = openpyxl.load_workbook(src)
        for case in cases:
            ws = wb[case["sheet"]]
            rows, _ = _edited(_rows(ws, case, case["rows"]), case)
            for i in range(_count(case) + 2):
                for c in case["cols"]:
                    if c not in case["computed"]:
                        ws.cell(case["first"] + i, _col(c)).value = None
            for i, row in enumerate(rows):
                for c, v in zip(case["cols"], row):
                    if c not in case["computed"]:
                        ws.cell(case["first"] + i, _col(c)).value = v
        wb.save(folder / "want.xlsx")
    for job in jobs:
        office.edit(job["in"], job["out"], job["edits"])
    errors = {"got": _errors(recalc_here(str(folder / "lo.xlsx"), str(folder / "got.xlsx")))}
    if key != "uncopied":
        errors["want"] = _errors(recalc_here(str(folder / "want.xlsx"), str(folder / "exp.xlsx")))
    (folder / "errors.json").write_text(json.dumps(errors))


@pytest.fixture(scope="session")
def edited(run_artefacts, office):
    """``edited(name)`` -> (LibreOffice-edited book recalculated, expected book recalculated, the errors of
    both reports as [sheet, cell, code, message]); ``edited("uncopied")`` -> (the errors of the recalculation
    of :data:`UNCOPIED`, its book). Each made once per run, in whichever worker asks first (by the run's
    LibreOffice, the ``office`` fixture), so that the workers share the templates."""

    def get(key: str):
        folder = run_artefacts.make(f"row-edits {key}", lambda f: _build_edited(key, f, office))
        errors = json.loads((folder / "errors.json").read_text())
        if key == "uncopied":
            return errors["got"], folder / "got.xlsx"
        return folder / "got.xlsx", folder / "exp.xlsx", errors["got"], errors["want"]

    return get


@pytest.mark.parametrize("name", list(CASES))
def test_every_value_beside_its_own_row_after_delete_insert_and_sort(edited, name):
    got_path, want_path, got_errors, want_errors = edited(name)
    got = openpyxl.load_workbook(got_path, data_only=True)
    want = openpyxl.load_workbook(want_path, data_only=True)
    for case in CASES[name]:  # the rows are where the model put them (LibreOffice made the same edits)
        assert _rows(got[case["sheet"]], case) == _rows(want[case["sheet"]], case)
    wrong = []
    tables = {case["sheet"]: {_col(c) for c in case["cols"]} for case in CASES[name]}
    for ws in want.worksheets:  # every cell in view is the expected book's (of an edited sheet, in its table:
        if ws.sheet_state != "visible":  # what sits beside the table in its rows moves with whole rows)
            continue
        mine = got[ws.title]
        for row in ws.iter_rows(min_row=4):
            for c in row:
                if ws.title in tables and c.column not in tables[ws.title]:
                    continue
                have = mine.cell(c.row, c.column).value
                if have != c.value and not (have in (None, "") and c.value in (None, "")):
                    wrong.append((ws.title, c.coordinate, have, c.value))
    assert not wrong, wrong[:20]
    assert [e[:3] for e in got_errors if e[2] != "warning"] == [e[:3] for e in want_errors]
    if any("insert" in case and case["computed"] and not case.get("copy") for case in CASES[name]):  # (given formulas)
        assert [e[3].split(":")[0] for e in got_errors if e[2] == "warning" and "inserted" in e[3]]
    assert any(v not in (None, "") for case in CASES[name] for r in _rows(got[case["sheet"]], case) for v in r)


def test_rows_inserted_without_their_result_cells_are_given_them(edited):
    """LibreOffice inserts an empty row: typed into, its result cells hold no formula. ``xlbridge recalc``
    writes the formulas of the table's other rows into them (in the file: every program then computes the
    row) and computes them, with one warning naming the first; a cell a member typed a value into keeps it
    and is named (exit 1). A row inserted directly below the header is one of them (issue 52: the table's
    ranges start at the header row, so LibreOffice grew them to hold it). The values themselves are checked
    against a fresh book in the test above, whose inserted rows (one directly below each header) are left
    empty too."""
    errors, path = edited("uncopied")
    name, header, filled, typed = UNCOPIED
    layout = [e for e in errors if e[2] == "layout"]
    assert [e[:2] for e in layout] == [[typed["sheet"], f"D{typed['insert']}"]]
    assert "inserted" in layout[0][3]
    (warning,) = [e[3] for e in errors if e[2] == "warning"]
    assert warning.startswith(f"{header['sheet']}!D{header['insert']}: ") and "rows 5, 12, 16 " in warning
    formulas = openpyxl.load_workbook(path)[filled["sheet"]]
    values = openpyxl.load_workbook(path, data_only=True)[filled["sheet"]]
    for r in (header["insert"], filled["insert"]):
        for c in filled["computed"]:  # the same formula as the row below (the table's rows all hold one text)
            assert formulas[f"{c}{r}"].value == formulas[f"{c}{r + 1}"].value and "ROW()" in formulas[f"{c}{r}"].value
            assert isinstance(values[f"{c}{r}"].value, (int, float)), (c, r)
    assert values[f"D{typed['insert']}"].value == 7  # (typed over: kept)
    assert formulas[f"E{typed['insert']}"].value.startswith("=")  # (its other result cells given theirs)
