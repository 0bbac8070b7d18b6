"""What xlbridge relies on inside the `formulas` engine, pinned in one place (issue 39).

:mod:`xlbridge.batch.formulas_seam` is the only module of the batch layer importing ``formulas`` or
``schedula``; these tests fail on an upgrade of formulas that moves, renames or reshapes any name it
reads, any function it replaces, or any method the model's subclasses override. The expected values
are formulas' documented behaviour and Excel's column letters, not xlbridge's output.
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
from pathlib import Path

import pytest

pytest.importorskip("formulas")

from xlbridge.batch import formulas_seam as seam  # noqa: E402

BATCH = Path(seam.__file__).resolve().parent

#: Methods of formulas' classes that xlbridge's subclasses (xlbridge/batch/evaluate/model.py) override,
#: by the base class as model.py names it.
OVERRIDDEN = {
    "ExcelModel": {"add_book", "add_sheet", "push", "finish", "assemble", "compile_cell", "add_references"},
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


# --------------------------------------------------------------------------------------------------
# the rule: formulas' and schedula's internals are reached in formulas_seam.py only

ENGINES = ("formulas", "schedula")

#: Names of formulas' privates that are also openpyxl's, used on openpyxl's objects (module, name): a
#: linked book's cached text and errors are written into openpyxl's ``Cell._value`` so that text stays
#: text (never read as a formula).
OPENPYXL_PRIVATES = {("guard/links.py", "_value")}


def _is_private(name: str) -> bool:
    return name.startswith("_") and name != "_" and not name.startswith("__")


@functools.lru_cache(maxsize=None)
def _engine_privates() -> tuple:
    """(every private name, the private methods of their classes) of the installed formulas and schedula,
    read from their source, not imported (the same sets whatever a test process imported before)."""
    import importlib.util
    import warnings

    names: set = set()
    methods: set = set()
    for package in ENGINES:
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations, package
        for folder in spec.submodule_search_locations:
            for path in sorted(Path(folder).rglob("*.py")):
                with warnings.catch_warnings():  # (their own invalid escapes, as Python warns of them)
                    warnings.simplefilter("ignore")
                    tree = ast.parse(path.read_text(encoding="utf-8"))
                for node in ast.walk(tree):
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        names.add(node.name)
                    elif isinstance(node, ast.arg):
                        names.add(node.arg)
                    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                        names.add(node.id)
                    elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                        names.add(node.attr)
                    if isinstance(node, ast.ClassDef):
                        methods.update(n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return frozenset(filter(_is_private, names)), frozenset(filter(_is_private, methods))


def private_names() -> frozenset:
    """Every private name (``_x``, not ``_`` or ``__x__``) formulas and schedula define: functions, methods,
    classes, parameters, module names and attributes they set."""
    return _engine_privates()[0]


def private_methods() -> frozenset:
    """The private methods of formulas' and schedula's classes (what a subclass could override)."""
    return _engine_privates()[1]


def _own_names(cls: ast.ClassDef) -> set:
    """What a class of xlbridge defines itself: its methods, ``self.x = ...`` targets, ``__slots__`` (a
    method named as a private of formulas' is an override, found as such)."""
    own = {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in ast.walk(cls):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AnnAssign, ast.AugAssign)) else []
        for t in (x for target in targets for x in ast.walk(target)):  # (a, self.b = ...: each target)
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                own.add(t.attr)
            if isinstance(t, ast.Name) and t.id == "__slots__" and isinstance(node, ast.Assign):
                own.update(c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant))
    return own


def seam_violations(source: str, where: str = "x.py") -> list:
    """Where a module other than the seam reaches formulas' or schedula's internals, as "line: what":

    - an import of ``formulas`` or ``schedula`` (inside a function too), and any ``importlib.import_module``
      or ``__import__`` but of a module named in the text, not theirs (a name computed or relative could be);
    - a name of the seam that is not in its ``__all__`` (``internals``, ``FormulasInternals``,
      ``EVALUATING_FRAME``: the engine's modules wholesale, the name of a private frame);
    - a private name of formulas or schedula (:func:`private_names`) as an attribute, except inside a
      class of the module that defines that name itself (its slot or ``self._x = ...``: on any of its
      instances) and :data:`OPENPYXL_PRIVATES`; as a method a class defines (an override of a private
      method of their classes); as a string (``getattr(x, "_y")``, a frame's name, a keyword), except a class's own
      ``__slots__``;
    - ``__dict__``, ``vars()``, an assignment to ``__class__`` (an object's insides changed).
    """
    private, methods, hidden = private_names(), private_methods(), {n for n in vars(seam) if not n.startswith("__")} - set(seam.__all__)
    hidden -= {n for n, v in vars(seam).items() if inspect.ismodule(v) or n in ("annotations", "Any", "Callable",
                                                                                 "Iterator")}
    tree = ast.parse(source)
    found = []
    owner: dict = {}
    slots: set = set()
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        own = _own_names(cls)
        for node in ast.walk(cls):
            owner[id(node)] = own  # (an inner class, met later, wins)
        for n in cls.body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in methods:
                found.append(f"{n.lineno}: overrides {n.name}")
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__" for t in n.targets):
                slots.update(id(c) for c in ast.walk(n.value))
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            found += [f"{line}: import {a.name}" for a in node.names if a.name.split(".")[0] in ENGINES]
        elif isinstance(node, ast.ImportFrom):
            if not node.level and (node.module or "").split(".")[0] in ENGINES:
                found.append(f"{line}: from {node.module} import")
            if (node.module or "").split(".")[-1] == "formulas_seam":
                found += [f"{line}: imports {a.name} of the seam" for a in node.names if a.name not in seam.__all__]
        elif isinstance(node, ast.Call):
            name = ast.unparse(node.func)
            first = node.args[0] if node.args else None
            if (name.endswith("import_module") or name == "__import__") and not (
                    isinstance(first, ast.Constant) and isinstance(first.value, str)
                    and first.value.split(".")[0] not in ENGINES + ("",)):  # (a relative name: of a package given)
                found.append(f"{line}: {name}({ast.unparse(first) if first else ''})")
            if name == "vars":
                found.append(f"{line}: vars()")
        elif isinstance(node, ast.Attribute):
            if node.attr == "__dict__":
                found.append(f"{line}: __dict__")
            elif node.attr == "__class__" and isinstance(node.ctx, ast.Store):
                found.append(f"{line}: __class__ assigned")
            elif node.attr in hidden:
                found.append(f"{line}: the seam's {node.attr}")
            elif node.attr in private and (where, node.attr) not in OPENPYXL_PRIVATES \
                    and node.attr not in owner.get(id(node), ()):
                found.append(f"{line}: .{node.attr}")
        elif isinstance(node, ast.Name) and node.id in hidden:
            found.append(f"{line}: the seam's {node.id}")
        elif isinstance(node, ast.Constant) and node.value in private and id(node) not in slots:
            found.append(f"{line}: {node.value!r}")
    return sorted(set(found), key=lambda x: int(x.split(":")[0]))


def test_no_module_but_the_seam_reaches_formulas_internals():
    found = {}
    for path in sorted(BATCH.rglob("*.py")):
        if path.name != "formulas_seam.py":
            where = path.relative_to(BATCH).as_posix()
            found[where] = seam_violations(path.read_text(encoding="utf-8"), where)
    assert {k: v for k, v in found.items() if v} == {}
    assert len(found) > 30  # (every module of the batch layer read)


def test_the_names_the_rule_knows_are_formulas_privates():
    names = private_names()
    # the privates the batch layer reached before the seam named them all (issue 51), and the frame's name
    for name in ("_compile_cell", "_update_refs", "_assemble_ranges", "_index2col", "_get_indices_intersection",
                 "_assemble_values", "_shape", "_build_sheet_id", seam.EVALUATING_FRAME):
        assert name in names, name
    assert not any(n.startswith("__") for n in names) and all(n.startswith("_") for n in names)
    assert {"_compile_cell", "_update_refs", "_assemble_ranges", seam.EVALUATING_FRAME} <= private_methods() <= names
    assert "_index2col" not in private_methods()  # (a function of formulas' module, not a method)


#: What the batch layer did before issue 51 (each line as it stood in evaluate/model.py, engine.py,
#: registry.py, read/bookdata.py or guard/links.py), and other ways of the same reach: each is found.
PLANTED = {
    "__dict__ write": 'def f(model, state):\n    model.__dict__["_xlbridge_links"] = state\n',
    "__dict__ read": 'def f(model):\n    return model.__dict__.get("_xlbridge_aliases")\n',
    "vars": 'def f(model):\n    vars(model)["x"] = 1\n',
    "internals imported": "def f():\n    from ..formulas_seam import internals\n    return internals().index2col\n",
    "internals by the module": "from .. import formulas_seam\nx = formulas_seam.internals().functions\n",
    "the frame's name": "from ..formulas_seam import EVALUATING_FRAME\n",
    "private method called": 'def f(model, ref, ctx, refs):\n    return model._compile_cell(ref, "=#REF!", ctx, True, refs)\n',
    "private method called on self": "class M:\n    def add(self):\n        self._update_refs(set(), {})\n",
    "private keyword": 'KEYWORDS = frozenset({"_stopper", "_verbose"})\n',
    "private method overridden": "class M(ExcelModel):\n    def _assemble_ranges(self, cells, nodes=None):\n        pass\n",
    "private module function": "def f(got, base, out):\n    got._assemble_values(base, [], out)\n",
    "class changed": "def f(cell, cls):\n    cell.func.__class__ = cls\n",
    "private name as text": 'def f(frame):\n    return frame.f_code.co_name == "_set_function_node_output"\n',
    "getattr by name": 'def f(operand):\n    return getattr(operand, "_build_sheet_id")\n',
    "import": "import formulas.excel\n",
    "import in a function": "def f():\n    from schedula.utils.sol import Solution\n",
    "import by name": 'import importlib\nm = importlib.import_module("formulas.functions.stat")\n',
    "import by a computed name": 'import importlib\ndef f(name, ff):\n    return importlib.import_module(name, ff.__name__)\n',
    "import by a relative name": 'import importlib\ndef f(ff):\n    return importlib.import_module(".stat", ff.__name__)\n',
}


@pytest.mark.parametrize("kind", sorted(PLANTED))
def test_the_rule_finds_a_planted_reach(kind):
    assert seam_violations(PLANTED[kind], "evaluate/model.py") != []


def test_the_rule_lets_xlbridge_own_names_and_the_seam_pass():
    own = ("class Spans:\n    __slots__ = ('_keys',)\n    def __init__(self):\n        self._keys = []\n"
           "    def first(self):\n        return self._keys[0]\n")
    seam_calls = ("from ..formulas_seam import column_namer, compile_text, engine_names\n"
                  "def f(model, ctx, refs):\n    return compile_text(model, 'A1', '=#NAME?', ctx, refs), column_namer()(3)\n")
    assert seam_violations(own, "read/spans.py") == [] and seam_violations(seam_calls, "evaluate/model.py") == []
    # openpyxl's Cell._value is let through where it is openpyxl's (links' cached books), nowhere else
    text = "def f(cell, v):\n    cell._value = v\n"
    assert seam_violations(text, "guard/links.py") == [] and seam_violations(text, "evaluate/model.py") != []
