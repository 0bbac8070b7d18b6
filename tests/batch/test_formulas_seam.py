"""What xlbridge relies on inside the `formulas` engine, pinned in one place (issue 39).

:mod:`xlbridge.batch.formulas_seam` is the only module of the batch layer importing ``formulas`` or
``schedula``; these tests fail on an upgrade of formulas that moves, renames or reshapes any name it
reads, any function it replaces, or any method the model's subclasses override. The expected values
are formulas' documented behaviour and Excel's column letters, not xlbridge's output.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

pytest.importorskip("formulas")

from xlbridge.batch import formulas_seam as seam  # noqa: E402

BATCH = Path(seam.__file__).resolve().parent

#: Methods of formulas' classes that xlbridge's subclasses (xlbridge/batch/evaluate/model.py) override,
#: by the base class as model.py names it.
OVERRIDDEN = {
    "ExcelModel": {"add_book", "add_sheet", "push", "finish", "_assemble_ranges", "assemble", "compile_cell",
                            "add_references"},
    "RangesAssembler": {"add", "__call__"},
    "_LeanAssembler": {"__init__"},  # (a RangesAssembler)
    "CellWrapper": {"__call__"},
}


def test_the_formulas_release_is_the_one_pinned():
    import formulas

    assert formulas.__version__.startswith(seam.FORMULAS_SERIES), formulas.__version__


def test_every_name_the_seam_reads_is_there_and_of_its_kind():
    got = seam.internals()
    for name in ("CellWrapper", "Cell", "Ref", "RangesAssembler", "InvRangesAssembler", "Ranges", "Array", "Error",
                 "XlError", "XlReader"):
        assert inspect.isclass(getattr(got, name)), name
    for name in ("assemble_values", "get_indices_intersection", "shape", "wrap_func", "index2col"):
        assert callable(getattr(got, name)), name
    for name in ("formulas", "sh", "functions", "operand", "excel", "xlreader"):
        assert inspect.ismodule(getattr(got, name)), name
    assert issubclass(got.formulas.ExcelModel, object) and callable(got.formulas.get_functions)
    # Excel's column letters (1 is A, 28 is AB, 16384 is XFD): what the model's blank cells are named by
    assert [got.index2col(n) for n in (1, 26, 27, 28, 16384)] == ["A", "Z", "AA", "AB", "XFD"]
    assert got.Error.errors["#NAME?"] is got.Error.errors["#NAME?"] and "#N/A" in got.Error.errors
    assert got.sh.EMPTY is not None and got.sh.SELF is not None
    for name in ("get_nested_dicts", "await_result", "inf", "Token"):
        assert hasattr(got.sh, name), name
    assert isinstance(got.BOOK, str) and isinstance(got.SHEETS, str)
    assert hasattr(got.XlReader, "read_manifest") and hasattr(got.XlReader, "read_strings")
    for name in ("SUBMODULES", "FUNCTIONS", "not_implemented", "BaseError", "get_functions"):
        assert hasattr(got.functions, name), name


def test_what_the_seam_replaces_is_read_where_it_replaces_it():
    got = seam.internals()
    # range2parts looks _build_sheet_id up in its module at each call (so replacing it there works)
    assert "_build_sheet_id" in got.operand.range2parts.__code__.co_names
    assert hasattr(got.operand, "_re_build_id") and hasattr(got.operand._re_build_id, "match")
    # wrap_func's wrapper re-raises what functions.BaseError names, looked up at each call
    inner = [c for c in got.functions.wrap_func.__code__.co_consts if inspect.iscode(c)]
    assert any("BaseError" in c.co_names for c in inner)
    # the reader formulas loads books with, and the progress bar module it calls tqdm.tqdm on
    assert callable(got.xlreader.load_workbook) and hasattr(got.excel, "tqdm")
    assert "tqdm.tqdm" in inspect.getsource(got.excel)


def test_the_frame_that_says_which_cell_is_evaluated():
    from schedula.utils.sol import Solution

    code = getattr(Solution, seam.EVALUATING_FRAME).__code__
    assert "node_attr" in code.co_varnames


def test_the_model_overrides_only_methods_formulas_has():
    got = seam.internals()
    bases = {"ExcelModel": got.formulas.ExcelModel, "RangesAssembler": got.RangesAssembler,
             "_LeanAssembler": got.RangesAssembler, "CellWrapper": got.CellWrapper}
    tree = ast.parse((BATCH / "evaluate" / "model.py").read_text(encoding="utf-8"))
    found: dict = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.bases and ast.unparse(node.bases[0]) in bases:
            base = ast.unparse(node.bases[0])
            methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            found[base] = {m for m in methods if hasattr(bases[base], m)}
    # every override is pinned above, and every pinned method still exists in the installed formulas
    assert found == OVERRIDDEN
    assert all(hasattr(bases[base], m) for base, methods in OVERRIDDEN.items() for m in methods)


def test_the_patches_are_made_and_undone():
    got = seam.internals()
    stock_load, stock_tqdm, stock_base = got.xlreader.load_workbook, got.excel.tqdm, got.functions.BaseError
    seen = []

    def guard(original):
        seen.append(original)
        return lambda *a, **k: "guarded"

    with seam.engine_patched(guard, progress_bar=list):
        assert got.xlreader.load_workbook() == "guarded" and seen == [stock_load]
        assert got.xlreader._xlbridge_original_load is stock_load
        assert got.excel.tqdm.tqdm is list and MemoryError in got.functions.BaseError
    assert (got.xlreader.load_workbook, got.excel.tqdm, got.functions.BaseError) == (stock_load, stock_tqdm, stock_base)
    assert not hasattr(got.xlreader, "_xlbridge_original_load")
    seam.quote_sheet_ids()
    assert got.operand._build_sheet_id(sheet="O''Brien") == "'O''BRIEN'"
    assert got.operand._build_sheet_id(sheet="Travellers") == "TRAVELLERS"


def test_no_other_batch_module_imports_formulas_or_schedula():
    offenders = []
    for path in sorted(BATCH.rglob("*.py")):
        if path.name == "formulas_seam.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            offenders += [f"{path.relative_to(BATCH)}: {n}" for n in names
                          if n.split(".")[0] in ("formulas", "schedula")]
    assert offenders == []


def test_the_scan_finds_an_import(tmp_path):
    bad = "def f():\n    from formulas.cell import Cell\n"
    node = next(n for n in ast.walk(ast.parse(bad)) if isinstance(n, ast.ImportFrom))
    assert node.module.split(".")[0] == "formulas" and not node.level
