"""Start-up: a recalculation imports only what it uses (issue 14).

- formulas' function registry is lazy (``xlbridge.batch.evaluate.registry``): same functions as the stock
  ``get_functions()``, but a module is imported only when the book uses one of its names, and SciPy
  only when a function calls it;
- the import set of ``xlbridge recalc workbooks/pairs.xlsx``, in a fresh interpreter: no SciPy,
  xlwings, matplotlib or pandas, and of formulas' function modules only those defining the
  functions the book's formulas call (found here by reading the formulas with openpyxl).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest

from xlbridge.batch.evaluate import registry

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ROOT / "workbooks" / "examples" / "pairs.xlsx"
NEVER = ("scipy", "xlwings", "matplotlib", "pandas")


def test_the_index_is_the_installed_formulas():
    assert {m: sorted(names.split()) for m, names in registry.MODULE_NAMES.items()} == registry.index_of_installed()


def test_the_lazy_registry_holds_the_stock_functions():
    import formulas.functions as ff

    stock = ff.get_functions.__wrapped__() if hasattr(ff.get_functions, "__wrapped__") else None
    if stock is None:  # already replaced in this process: rebuild the stock table the way formulas does
        import collections
        import importlib

        stock = collections.defaultdict(lambda: ff.not_implemented)
        for name in ff.SUBMODULES:
            stock.update(importlib.import_module(name, ff.__name__).FUNCTIONS)
        stock.update(ff.FUNCTIONS)
    lazy = registry.LazyFunctions(ff)
    for name in ("IFNA", "COUNT", "T.DIST", "VLOOKUP", "_XLFN.XLOOKUP", "ARRAY"):
        assert lazy[name] is stock[name], name
    # a corrected function (registry.CORRECTIONS) wraps the stock one, with its other entries
    assert set(registry.CORRECTIONS) == {"INDEX", "IF", "IFERROR"}
    corrected = {name: lazy[name] for name in registry.CORRECTIONS}
    for name, entry in corrected.items():
        assert entry["function"].__wrapped__ is stock[name]["function"]
        assert {k: v for k, v in entry.items() if k != "function"} == {
            k: v for k, v in stock[name].items() if k != "function"}
    assert dict(lazy.load_all()) == {**dict(stock), **corrected}
    assert lazy["NO.SUCH.FUNCTION"] is ff.not_implemented and lazy.get("ALSO.MISSING") is None


def test_a_name_set_on_the_registry_is_never_overridden():
    import formulas.functions as ff

    lazy = registry.LazyFunctions(ff)
    mine = object()
    lazy["COUNT"] = mine  # the xlbridge functions are registered the same way
    assert "INDEX" in lazy and lazy["COUNT"] is mine
    lazy.load_all()
    assert lazy["COUNT"] is mine


PROBE = r"""
import json, sys
from xlbridge.batch.recalc import recalc_workbook
recalc_workbook(sys.argv[1], sys.argv[2], isolate=False)
print(json.dumps(sorted(sys.modules)))
"""


def _book_functions(path: Path) -> set[str]:
    wb = openpyxl.load_workbook(path)
    names = set()
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                text = getattr(c.value, "text", c.value)
                if isinstance(text, str) and text.startswith("="):
                    names.update(m.upper() for m in re.findall(r"([A-Za-z_][A-Za-z0-9_.]*)\(", text))
    return names


#: the isolated recalculation (as the command runs it), each process's modules written to an inherited file:
#: the engine's process at the end of its job, each process reading a second half after its reading
ENGINE_PROBE = r"""
import json, os, sys
import xlbridge.batch.evaluate.child as child
import xlbridge.batch.read.halves as halves
from xlbridge.batch.recalc import recalc_workbook
log = os.open(sys.argv[3], os.O_WRONLY | os.O_APPEND)
def record(kind):
    os.write(log, (json.dumps([kind, os.getpid(), sorted(sys.modules)]) + "\n").encode())
child_main, read_half = child._child_main, halves.read_sheet_half
def wrapped_main(process, *a, **k):
    job = process.job
    def recorded(*ja, **jk):
        try:
            return job(*ja, **jk)
        finally:
            record("engine")
    process.job = recorded
    return child_main(process, *a, **k)
def wrapped_half(*a, **k):
    try:
        return read_half(*a, **k)
    finally:
        half = a[1] if len(a) > 1 else k.get("half")
        if half is not None and half.tail is not None:
            record("tail")
child._child_main, halves.read_sheet_half = wrapped_main, wrapped_half
recalc_workbook(sys.argv[1], sys.argv[2])
record("parent")
"""


def test_a_pairs_recalc_imports_only_what_it_uses(tmp_path):
    """The import set of each process of a pairs recalculation as the command runs it: the parent, the
    engine's sandboxed process and the process reading the Travellers part's second half."""
    log = tmp_path / "modules.jsonl"
    log.write_bytes(b"")
    out = subprocess.run([sys.executable, "-c", ENGINE_PROBE, str(PAIRS), str(tmp_path / "out.xlsx"), str(log)],
                         capture_output=True, text=True, timeout=300, cwd=ROOT,
                         env={**os.environ, "XLBRIDGE_BOOK_CORES": "2"})  # (a second half read)
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in log.read_text().splitlines()]
    kinds = [kind for kind, _pid, _modules in records]
    assert sorted(set(kinds)) == ["engine", "parent", "tail"] and kinds.count("engine") == 1, kinds
    assert len({pid for _kind, pid, _modules in records}) == len(records)  # three processes
    for kind, _pid, mods in records:
        assert not [m for m in mods if m.split(".")[0] in NEVER], kind
    modules = set(next(mods for kind, _pid, mods in records if kind == "engine"))
    assert "formulas.functions" in modules and "xlbridge.batch.evaluate.engine" in modules
    # formulas' function modules: those its own import needs, and those defining the book's functions
    base = subprocess.run([sys.executable, "-c", "import json, sys; import formulas, formulas.functions; "
                           "from formulas.excel import ExcelModel; print(json.dumps(sorted(sys.modules)))"],
                          capture_output=True, text=True, timeout=300)
    imported_anyway = {m for m in json.loads(base.stdout) if m.startswith("formulas.functions.")}
    used = {"formulas.functions" + registry._MODULE_OF[n] for n in _book_functions(PAIRS) if n in registry._MODULE_OF}
    assert used and "formulas.functions.stat" in used  # COUNT (Neuberg sheet): statistics, without SciPy
    # what those import in turn: operators (a formula with +, -, *, /, &, =, <, >: the book has them) imports
    # text and look; IFERROR (logic) imports info when it runs
    deps = {"formulas.functions." + m for m in ("operators", "text", "look", "info")}
    loaded = {m for m in modules if m.startswith("formulas.functions.")}
    assert loaded == imported_anyway | used | deps
    # (none of the others: the book's own functions decide; the pairs book's SUM, of the Ranking's note of the rows
    # left out, is math's)
    assert not loaded & ({"formulas.functions." + m for m in ("math", "financial", "eng", "date", "comp", "google")}
                         - used)


@pytest.mark.parametrize("argv", [["recalc", str(PAIRS), "-o", "OUT", "--no-progress"]])
def test_the_command_never_imports_the_excel_or_plotting_stack(tmp_path, argv):
    argv = [a.replace("OUT", str(tmp_path / "o.xlsx")) for a in argv]
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "xlbridge", *argv], capture_output=True,
                         text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    imported = {line.split("|")[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    assert "xlbridge.batch.recalc" in imported
    assert not [m for m in imported if m.split(".")[0] in NEVER]


def test_the_parent_of_an_isolated_recalc_imports_neither_the_engine_nor_openpyxl(tmp_path):
    """The engine's sandboxed process reads the workbook; the parent scans, reports and writes with the
    standard library (and defusedxml): the engine's import (0.3 s) and openpyxl's (0.2 s, once for the
    print areas' quoting) stay off its path."""
    probe = PROBE.replace("isolate=False", "isolate=True")
    out = subprocess.run([sys.executable, "-c", probe, str(PAIRS), str(tmp_path / "out.xlsx")],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    modules = set(json.loads(out.stdout.splitlines()[-1]))
    assert "xlbridge.batch.recalc" in modules
    assert not [m for m in modules if m.split(".")[0] in NEVER + ("openpyxl", "formulas", "schedula")]


def test_an_index_with_a_zero_among_arrays_of_positions_says_why_it_is_an_error(tmp_path):
    """``{=INDEX(A1:B3,{1;2},0)}``: #VALUE! in each cell (tests/batch/test_recalc_libreoffice.py), and the report
    says why at the formula's cells, as the xlbridge functions do; an INDEX without a 0 says nothing."""
    from openpyxl.worksheet.formula import ArrayFormula

    from xlbridge.batch.recalc import recalc_workbook

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in (1, 2, 3):
        ws.cell(r, 1, r), ws.cell(r, 2, 10 * r)
    ws["D1"] = ArrayFormula("D1:E2", "=INDEX(A1:B3,{1;2},0)")
    ws["F1"] = ArrayFormula("F1:F2", "=INDEX(A1:B3,{1;2},1)+1/0")
    wb.save(tmp_path / "index.xlsx")
    report = recalc_workbook(str(tmp_path / "index.xlsx"), str(tmp_path / "out.xlsx"))
    got = {e.cell: (e.code, e.message) for e in report.errors}
    why = ("INDEX: an array of row or column numbers with a 0 among them (0 stands for a whole row or column): "
           "give each number, from 1")
    assert {cell: got[cell] for cell in ("D1", "E1", "D2", "E2")} == dict.fromkeys(("D1", "E1", "D2", "E2"),
                                                                                  ("#VALUE!", why))
    assert got["F1"][0] == "#DIV/0!" and "INDEX" not in got["F1"][1]


# --------------------------------------------------------------------------------------------------
# IF and IFERROR on whole arrays (registry._if_by_masks, _iferror_by_masks): the same values as formulas' own


def _array_of(cells, shape):
    """A strategy of formulas arrays of ``shape`` whose cells are drawn from ``cells`` (each cell its own object)."""
    import formulas.functions as ff
    import numpy as np
    from hypothesis import strategies as st

    return st.lists(cells, min_size=shape[0] * shape[1], max_size=shape[0] * shape[1]).map(
        lambda xs: np.array(xs + [None], dtype=object)[:-1].reshape(shape).view(ff.Array))


def _same_on_pairs(whole, stock, scalars, shape, examples):
    """``whole`` (a corrected operator) gives what ``stock`` (formulas' own) gives on generated pairs: an array of
    ``shape`` of cells drawn from ``scalars`` or of every kind (``_cells``), against one of ``scalars``, a column or a
    row, on either side."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=examples, deadline=None, derandomize=True)
    @given(st.data())
    def check(data):
        cells = data.draw(st.sampled_from([scalars, _cells()]))
        a = data.draw(_array_of(cells, shape))
        b = data.draw(st.one_of(scalars, _array_of(cells, (70, 1)), _array_of(scalars, (1, 3))))
        args = (a, b) if data.draw(st.booleans()) else (b, a)
        _same(whole(*args), stock(*args))

    check()


def _stock_and_whole(name, calls=None):
    """formulas' own function and the corrected one (built on a stock that counts its calls in ``calls``)."""
    import formulas.functions.logic as logic

    stock = logic.FUNCTIONS[name]["function"]

    def counted(*args, **kwargs):
        if calls is not None:
            calls.append(args)
        return stock(*args, **kwargs)

    return stock, registry.CORRECTIONS[name]({**logic.FUNCTIONS[name], "function": counted})["function"]


def _cells():
    from hypothesis import strategies as st

    import schedula as sh
    from formulas.tokens.operand import Error

    errors = [Error.errors[e] for e in ("#VALUE!", "#N/A", "#NAME?", "#DIV/0!", "#REF!")]
    return st.one_of(st.integers(-3, 3), st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
                     st.sampled_from(["", "x", "empty", "TRUE"]), st.sampled_from(errors), st.just(sh.EMPTY))


def _same(a, b):
    import numpy as np

    a, b = np.asarray(a, object), np.asarray(b, object)
    assert a.shape == b.shape and type(a) is type(b)
    for x, y in zip(a.ravel().tolist(), b.ravel().tolist()):
        assert type(x) is type(y) and (x == y or (x != x and y != y)), (x, y)


def _arrays(rows, columns):
    from hypothesis import strategies as st
    import numpy as np

    def make(cells):
        a = np.empty((rows, columns), dtype=object)
        a.ravel()[:] = cells
        import formulas.functions as ff
        return a.view(ff.Array)

    return st.lists(_cells(), min_size=rows * columns, max_size=rows * columns).map(make)


@pytest.mark.parametrize("name", ["IF", "IFERROR"])
def test_if_and_iferror_on_whole_arrays_equal_formulas_own(name):
    """Generated arrays of every kind of cell (numbers, NaN, logicals, text, errors, blanks, None), in the shapes
    the templates broadcast ((n, 1) against (1, 3), a scalar against an array), through both functions; the
    corrected one never falls back to formulas' own on them."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    calls = []
    stock, whole = _stock_and_whole(name, calls)
    shapes = st.sampled_from([((70, 1), (1, 3)), ((70, 3), (70, 3)), ((1, 3), (70, 1)), ((70, 3), None)])

    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(st.data())
    def check(data):
        first, second = data.draw(shapes)
        a = data.draw(_arrays(*first))
        b = data.draw(_arrays(*second)) if second else data.draw(_cells())
        args = [a, b]
        if name == "IF" and data.draw(st.booleans()):
            args.append(data.draw(_arrays(70, 3)))
        _same(whole(*args), stock(*args))
        assert calls == []

    check()


def test_if_on_whole_arrays_is_taken_for_big_arrays_only():
    import numpy as np
    import formulas.functions as ff

    calls = []
    stock, whole = _stock_and_whole("IF", calls)
    cond = np.array([[1], [0]] * 40, dtype=object).view(ff.Array)
    out = whole(cond, "yes", "no")
    assert out.shape == (80, 1) and out.ravel().tolist() == ["yes", "no"] * 40 and calls == []
    assert whole(np.array([[0]], dtype=object).view(ff.Array), 1, 2).ravel().tolist() == [2]
    assert len(calls) == 1                                     # a small array: formulas' own
    odd = cond.copy()
    odd[3, 0] = None                                           # a cell of no kind IF knows: formulas' own
    _same(whole(odd, "yes", "no"), stock(odd, "yes", "no"))
    assert len(calls) == 2


@pytest.mark.parametrize("operator", ["=", "<>"])
def test_a_column_compared_with_a_text_equals_formulas_own(operator):
    """``H5:J10204=""``, ``ROW(A4:A9)=4`` and their kind on whole arrays (registry.OPERATOR_CORRECTIONS): generated
    arrays of every kind of cell against texts of either case (blank text included), numbers (NaN and infinities
    included) and logicals (formulas' own), on either side, as formulas' own operator gives."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    import formulas.functions as ff
    from formulas.functions.operators import OPERATORS

    registry.install()
    whole = OPERATORS[operator]
    stock = whole.__wrapped__
    texts = st.one_of(st.sampled_from(["", "x", "X", "empty", "TRUE", "#N/A"]), st.integers(-3, 3),
                      st.floats(allow_nan=True, allow_infinity=True), st.booleans())

    import numpy as np
    import schedula as sh

    # the templates' columns: texts and blanks only (a column of them compared with "" is read at once)
    typed = st.one_of(st.sampled_from(["", "x", "X", "empty", "TRUE", " ", "#N/A"]), st.just(sh.EMPTY))
    columns = _array_of(typed, (70, 3))
    # and with numbers and logicals among them (a column of boards or tricks: read at once as well)
    mixed = st.one_of(typed, st.integers(-3, 3), st.floats(allow_nan=True, allow_infinity=True), st.booleans())
    mixed_columns = _array_of(mixed, (70, 3))

    @settings(max_examples=120, deadline=None, derandomize=True)
    @given(st.one_of(_arrays(70, 3), columns, mixed_columns), texts, st.booleans(), st.booleans())
    def check(array, text, text_first, boxed):
        import numpy as np

        t = np.asarray([[text]], dtype=object).view(ff.Array) if boxed else text
        args = (t, array) if text_first else (array, t)
        _same(whole(*args), stock(*args))

    check()
    nan = float("nan")                                         # one NaN object on both sides: equal, as in a tuple
    column = np.array([[nan]] * 70, dtype=object).view(ff.Array)
    _same(whole(column, nan), stock(column, nan))


def test_index_of_one_cell_of_a_reference_is_formulas_own_cell():
    """``INDEX(reference, row, column)`` inside the range (``ROW(INDEX(A4:A10004,1,1))`` in every template): the same
    one-cell reference (its keys and its value) as formulas' own ``xindex``, which first builds one for every cell;
    outside the range, or with anything but two whole numbers, formulas' own answer."""
    import numpy as np
    import formulas.functions.look as look
    from formulas.ranges import Ranges

    stock = look.FUNCTIONS["INDEX"]["function"]
    corrected = registry.CORRECTIONS["INDEX"](look.FUNCTIONS["INDEX"])["function"]
    values = np.arange(600, dtype=object).reshape(300, 2)
    values[4, 1] = "text"
    ref = Ranges().push("'[book.xlsx]SHEET'!B4:C303", values)
    for row, column in [(1, 1), (5, 2), (300, 2), (17, 1)]:
        mine, theirs = corrected(False, ref, row, column), stock(False, ref, row, column)
        assert isinstance(mine, Ranges) and mine.ranges == theirs.ranges, (row, column)
        assert mine.value.tolist() == theirs.value.tolist() and dict(mine.values) == dict(theirs.values)
    assert corrected(False, ref, 5, 2).value.tolist() == [["text"]]              # by hand: row 8, column C
    assert corrected(False, ref, 5, 2).ranges[0]["ref"] == "C8"
    for args in [(301, 1), (1, 3), (0, 1), (2.0, 1), (np.int64(2), 1)]:        # formulas' own: the same answer
        mine, theirs = corrected(False, ref, *args), stock(False, ref, *args)
        if isinstance(theirs, Ranges):
            assert mine.ranges == theirs.ranges and mine.value.tolist() == theirs.value.tolist()
        else:
            assert np.asarray(mine, object).tolist() == np.asarray(theirs, object).tolist()


@pytest.mark.parametrize("operator", ["+", "-", "*"])
def test_arithmetic_of_whole_arrays_equals_formulas_own(operator):
    """``ROW(A4:A10004)-ROW(INDEX(A4:A10004,1,1))`` and its kind on whole arrays (registry.OPERATOR_CORRECTIONS):
    arrays of numbers (huge, NaN and infinite ones included: ``#NUM!``), and arrays with any other kind of cell
    (formulas' own), against arrays and numbers, as formulas' own operator gives."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    import numpy as np
    import formulas.functions as ff
    from formulas.functions.operators import OPERATORS

    registry.install()
    whole = OPERATORS[operator]
    stock = whole.__wrapped__
    numbers = st.one_of(st.integers(-10**6, 10**6), st.integers(-2**70, 2**70),
                        st.floats(allow_nan=True, allow_infinity=True), st.floats(-1e300, 1e300))

    _same_on_pairs(whole, stock, numbers, (70, 3), 60)


def test_if_of_a_condition_of_numbers_and_logicals_equals_formulas_own():
    """The templates' own conditions (``ROW(r)-ROW(INDEX(r,1,1))``: numbers; ``r=""``: logicals), read at once
    (registry._if_by_masks): 0, -0.0, NaN, infinities, huge ints (past a float's range too) and logicals, as
    formulas' own IF reads them one at a time."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    import numpy as np
    import formulas.functions as ff

    calls = []
    stock, whole = _stock_and_whole("IF", calls)
    plain = st.one_of(st.integers(-3, 3), st.integers(-2**70, 2**70), st.just(10**400), st.just(-0.0),
                      st.floats(allow_nan=True, allow_infinity=True), st.booleans())

    @settings(max_examples=80, deadline=None, derandomize=True)
    @given(st.lists(plain, min_size=70, max_size=70))
    def check(cells):
        cond = np.array(cells + [None], dtype=object)[:-1].reshape(70, 1).view(ff.Array)
        _same(whole(cond, "yes", 0), stock(cond, "yes", 0))

    check()
    assert calls == []


def test_if_of_arrays_of_different_sizes_expands_them_as_excel_does():
    """Excel expands the arrays of an element-wise function to the largest: a one-row or one-column array repeats,
    any other cell past an array's size is #N/A (Microsoft Support, "Guidelines and examples of array formulas");
    formulas refuses them ("Broadcast is not implemented!"). The teams Matches sheet compares a Boards column that
    rows inserted into the table lengthen with a hidden column of fixed length: worked by hand below."""
    import numpy as np
    import formulas.functions as ff
    from formulas.tokens.operand import Error

    na = Error.errors["#N/A"]
    calls = []
    _, whole = _stock_and_whole("IF", calls)
    col = lambda *v: np.array([[x] for x in v], dtype=object).view(ff.Array)  # noqa: E731
    # a condition two rows longer than its values, false there: "" (small arrays too: formulas cannot)
    assert whole(col(True, False, True, False, False), col(5, 6, 7), "").ravel().tolist() == [5, "", 7, "", ""]
    # true past the values' end: #N/A; a condition shorter than its values: #N/A past its end
    assert whole(col(True, True), col(5), "x").ravel().tolist() == [5, 5]  # (one cell repeats)
    out = whole(col(False, True, True), col(5, 6), "x").ravel().tolist()
    assert out[:2] == ["x", 6] and out[2] is na
    out = whole(col(True, False), col(5, 6, 7), "x").ravel().tolist()
    assert out[:2] == [5, "x"] and out[2] is na
    # a row against a column: both repeat (a 3 x 2 result), as numpy would broadcast them
    grid = whole(np.array([[True, False]], dtype=object).view(ff.Array), col(1, 2, 3), 0)
    assert grid.tolist() == [[1, 0], [2, 0], [3, 0]]
    # a 2 x 2 against a 3 x 1 condition: the missing column and row are #N/A
    big = whole(col(True, True, False), np.array([[1, 2], [3, 4]], dtype=object).view(ff.Array), 0).tolist()
    assert big[0] == [1, 2] and big[1] == [3, 4] and big[2] == [0, 0]
    assert len(calls) == 2  # (only the two of sizes numpy broadcasts went to formulas' own)


def test_a_join_of_whole_arrays_equals_formulas_own():
    """``Travellers!B4:B10204&Travellers!C4:C10204`` and its kind on whole arrays (registry.OPERATOR_CORRECTIONS: ``&``):
    arrays of texts, numbers (whole floats, NaN and infinities included), logicals and blanks, and arrays with an
    error or a cell of no kind (formulas' own), against arrays and single values, as formulas' own operator gives."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    import numpy as np
    import schedula as sh
    import formulas.functions as ff
    from formulas.functions.operators import OPERATORS

    registry.install()
    whole = OPERATORS["&"]
    stock = whole.__wrapped__
    typed = st.one_of(st.sampled_from(["", "x", "4S", "TRUE", " "]), st.integers(-3, 3), st.integers(-2**70, 2**70),
                      st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.just(sh.EMPTY), st.just(7.0))

    _same_on_pairs(whole, stock, typed, (70, 1), 80)
    calls = []
    counted = registry._joined_texts(lambda *a: calls.append(a) or stock(*a))
    numbers = np.array([[12], [7.0], [True], [sh.EMPTY]] * 30, dtype=object).view(ff.Array)
    assert counted(numbers, "-").ravel().tolist()[:4] == ["12-", "7-", "TRUE-", "-"]  # by hand
    assert not calls                                           # the whole array at once
    with_error = numbers.copy()
    from formulas.tokens.operand import Error
    with_error[5, 0] = Error.errors["#N/A"]
    _same(counted(with_error, "-"), stock(with_error, "-"))
    assert len(calls) == 1                                     # an error among the cells: formulas' own


def test_arithmetic_of_logicals_on_whole_arrays_equals_formulas_own():
    """``(B4:B10204&C4:C10204<>"")*(D4:D10204&G4:G10204="")`` (the pairs Ranking's "Not counted" line): columns of
    logicals, and of logicals and numbers, multiplied, added and subtracted at once, as formulas' own operators give
    (a logical is 1 or 0; TRUE*TRUE is 1, worked by hand)."""
    import numpy as np
    import formulas.functions as ff
    from formulas.functions.operators import OPERATORS

    registry.install()
    rng = np.random.default_rng(51)
    for operator, op in (("*", lambda x, y: x * y), ("+", lambda x, y: x + y), ("-", lambda x, y: x - y)):
        stock = OPERATORS[operator].__wrapped__
        calls = []
        counted = registry._arithmetic_of_numbers(lambda *a: calls.append(a) or stock(*a), op)
        a = np.array(rng.choice([True, False], 200).tolist(), dtype=object).reshape(100, 2).view(ff.Array)
        kinds = [True, False, 3, 2.5]
        b = np.array([kinds[i] for i in rng.integers(0, 4, 200)] + [None], dtype=object)[:-1]
        b = b.reshape(100, 2).view(ff.Array)
        assert {type(v) for v in b.ravel().tolist()} == {bool, int, float}
        for x, y in ((a, b), (b, a), (a, True)):
            _same(counted(x, y), stock(x, y))
        assert not calls  # the whole arrays at once
    t = np.array([[True]] * 70, dtype=object).view(ff.Array)
    assert OPERATORS["*"](t, t).ravel().tolist() == [1.0] * 70
