"""The one place xlbridge reaches into the `formulas` engine (and schedula, its graph) below their surface.

In: nothing (formulas itself is imported inside :func:`internals` only: it takes about half a second
and the parent of an isolated run never needs it). Out, for the rest of the batch layer:

- :func:`engine_names`: the public names of ``formulas`` and ``schedula`` the layer uses (classes it
  subclasses or tests for, the ``EMPTY`` and ``SELF`` tokens, the graph helpers), as one frozen record;
- a named function for every internal xlbridge relies on, so that no other module names one:
  :func:`column_namer`, :func:`cell_indices`, :func:`range_shape`, :func:`assemble_values` (private
  functions of ``formulas.cell`` and ``formulas.tokens.operand``), :func:`text_of` (``formulas.functions.text``), :func:`compile_text` and
  :func:`update_references` (private methods of ``ExcelModel``), :func:`run_in_one_pass` (a compiled
  cell's function given another class), :func:`function_nodes` and :func:`same_value` (a compiled
  formula's nodes and their inputs, for :mod:`xlbridge.batch.evaluate.subexpressions`), :func:`evaluated_node` (the frame of schedula's that evaluates
  a cell), :func:`shared_strings` (formulas' workbook reader), :func:`function_package`,
  :func:`function_registry` and :func:`import_function_module` (formulas' function table and its
  modules, the statistics one with SciPy deferred), :func:`stock_load_workbook` (formulas' reader
  of a workbook as it was before :func:`engine_patched`);
- the three changes xlbridge makes to ``formulas`` itself:

  - :func:`quote_sheet_ids`: sheet names holding an apostrophe get ids formulas' own parser reads back
    (``formulas.tokens.operand._build_sheet_id`` replaced, once per process);
  - :func:`use_registry`: ``formulas.get_functions()`` returns xlbridge's lazily loading registry
    (:mod:`xlbridge.batch.evaluate.registry`);
  - :func:`engine_patched`: during one evaluation, ``xlreader.load_workbook`` opens one file only,
    ``MemoryError`` escapes formulas' built-in functions (``functions.BaseError``) and the compile
    progress bar (``formulas.excel.tqdm``) goes where xlbridge says; undone on exit.

No other module of :mod:`xlbridge.batch` imports ``formulas`` or ``schedula``, calls :func:`internals`,
names a private attribute of theirs, writes an object's ``__dict__`` or ``__class__`` (tests/batch/
test_formulas_seam.py checks every module with ``ast``, and pins what this module and the model's
subclasses of formulas' classes rely on), so an upgrade of formulas breaks in one known place.

>>> base = {"r1": 2, "n1": 1, "r2": 4, "n2": 3}  # A2:C4
>>> column_namer()(28), range_shape(base), cell_indices(base, 3, 2)  # (B3: the array's second row and column)
('AB', (3, 3), (slice(1, 2, None), slice(1, 2, None)))
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import importlib.util
import math
import operator
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["EngineNames", "engine_names", "blank_as_zero", "identical", "correct_operators", "column_namer", "cell_indices", "range_shape", "assemble_values",
           "compile_text", "update_references", "run_in_one_pass", "text_of", "EngineNode", "function_nodes", "is_reference", "same_value", "evaluated_node", "shared_strings",
           "function_package", "function_registry", "import_function_module", "stock_load_workbook", "quote_sheet_ids", "use_registry",
           "engine_patched", "DISPATCH_KEYWORDS", "FORMULAS_SERIES", "SCIPY_NAMES"]

#: The formulas release series whose internals this module names (``formulas.__version__`` starts so).
FORMULAS_SERIES = "1.3."

#: The keywords schedula gives every call of a sub-dispatcher (``schedula.utils.asy._process_funcs``),
#: besides the call's own arguments.
DISPATCH_KEYWORDS = frozenset({"_stopper", "_executor", "_sol_name", "_verbose"})

#: schedula's method evaluating one node of the graph: a frame of it on the stack says which cell's
#: formula is being evaluated (its local ``node_attr["outputs"]``), read by :func:`evaluated_node`.
EVALUATING_FRAME = "_set_function_node_output"


@dataclasses.dataclass(frozen=True)
class FormulasInternals:
    """The names of ``formulas`` (1.3) and ``schedula`` that this module uses, by their home module.

    - ``formulas``: ``ExcelModel``, ``get_functions``; ``sh``: schedula (``EMPTY``, ``SELF``,
      ``get_nested_dicts``, ``await_result``, ``inf``, ``Token``, ``Solution``);
    - ``formulas.cell``: ``CELL`` (``cell_token``: the calling cell as a node's input), ``CellWrapper``, ``Cell``, ``Ref``, ``RangesAssembler``, ``InvRangesAssembler``
      and the private ``_assemble_values``, ``_get_indices_intersection``, ``_shape``;
    - ``formulas.ranges.Ranges``; ``formulas.functions``: ``Array``, ``wrap_func``, the module itself
      (``SUBMODULES``, ``FUNCTIONS``, ``not_implemented``, ``BaseError``);
    - ``formulas.tokens.operand``: ``Error``, ``XlError``, the private ``_index2col``, the module itself;
    - ``formulas.excel``: ``BOOK``, ``SHEETS``, the module itself (``tqdm``), ``xlreader`` (its
      ``load_workbook`` and ``XlReader``).
    """

    formulas: Any
    sh: Any
    CellWrapper: Any
    Cell: Any
    Ref: Any
    RangesAssembler: Any
    InvRangesAssembler: Any
    assemble_values: Callable[..., Any]
    get_indices_intersection: Callable[..., Any]
    shape: Callable[..., Any]
    Ranges: Any
    Array: Any
    wrap_func: Callable[..., Any]
    functions: Any
    Error: Any
    XlError: Any
    index2col: Callable[[int], str]
    operand: Any
    BOOK: Any
    SHEETS: Any
    excel: Any
    xlreader: Any
    XlReader: Any
    cell_token: Any


@functools.lru_cache(maxsize=None)
def internals() -> FormulasInternals:
    """Import formulas and schedula once; every name of theirs this module uses (for this module and its
    tests only: the rest of the batch layer uses :func:`engine_names` and the named functions below)."""
    import formulas
    import formulas.excel as excel
    import formulas.functions as functions
    import schedula as sh
    from formulas.cell import (
        CELL, Cell, CellWrapper, InvRangesAssembler, RangesAssembler, Ref, _assemble_values, _get_indices_intersection,
        _shape)
    from formulas.excel import BOOK, SHEETS, xlreader
    from formulas.excel.xlreader import XlReader
    from formulas.functions import Array, wrap_func
    from formulas.ranges import Ranges
    from formulas.tokens import operand
    from formulas.tokens.operand import Error, XlError, _index2col

    return FormulasInternals(
        formulas=formulas, sh=sh, CellWrapper=CellWrapper, Cell=Cell, Ref=Ref, RangesAssembler=RangesAssembler,
        InvRangesAssembler=InvRangesAssembler, assemble_values=_assemble_values,
        get_indices_intersection=_get_indices_intersection, shape=_shape, Ranges=Ranges, Array=Array,
        wrap_func=wrap_func, functions=functions, Error=Error, XlError=XlError, index2col=_index2col,
        operand=operand, BOOK=BOOK, SHEETS=SHEETS, excel=excel, xlreader=xlreader, XlReader=XlReader,
        cell_token=CELL)


def quote_sheet_ids() -> None:
    """Make the engine write a sheet name holding an apostrophe as Excel does, ``'O''Brien'!A1``.

    ``formulas`` 1.3 builds its node ids with the apostrophe unescaped (``'[book.xlsx]O'BRIEN'!A1``),
    which its own parser then reads as a broken reference: every formula on, or pointing at, a
    sheet such as "O'Brien" came out ``#REF!``. Its ``range2parts`` looks ``_build_sheet_id`` up
    in its module at each call, so replacing that one function fixes every id; the model's
    ``add_sheet`` reads the escaped name back.
    """
    operand = internals().operand
    if getattr(operand._build_sheet_id, "xlbridge", False):
        return
    plain_id = operand._re_build_id

    def build_sheet_id(sheet="", directory="", filename="", **kw):
        sheet = sheet.replace("''", "'").upper()
        quoted = sheet.replace("'", "''")
        if filename:
            if plain_id.match(filename):
                return "[%s]%s" % (filename, sheet)
            if directory and not directory.endswith("/"):
                directory += "/"
            return "'%s[%s]%s'" % (directory, filename, quoted)
        return "'%s'" % quoted if (" " in sheet or "'" in sheet) else sheet

    build_sheet_id.xlbridge = True  # type: ignore[attr-defined]
    operand._build_sheet_id = build_sheet_id


def use_registry(get_functions: Callable[[], Any]) -> None:
    """Make ``formulas.get_functions()`` (and ``formulas.functions.get_functions()``) call ``get_functions``."""
    got = internals()
    got.functions.get_functions = get_functions
    if "get_functions" in vars(got.formulas):
        got.formulas.get_functions = get_functions


@contextlib.contextmanager
def engine_patched(guard_load: Callable[[Callable[..., Any]], Callable[..., Any]], progress_bar: Any) -> Iterator[None]:
    """During one evaluation: formulas' workbook reader is ``guard_load(stock reader)`` (the stock one is
    also ``xlreader._xlbridge_original_load`` meanwhile), ``MemoryError`` inside a built-in function is
    re-raised instead of becoming ``#VALUE!`` (``wrap_func`` re-raises what ``functions.BaseError``
    names), and formulas' compile progress bar is ``progress_bar`` (a callable as ``tqdm.tqdm``).
    Everything is undone on exit."""
    got = internals()
    xlreader, excel, functions = got.xlreader, got.excel, got.functions
    original_load = xlreader.load_workbook
    old_tqdm, old_base_error = excel.tqdm, functions.BaseError
    xlreader._xlbridge_original_load = original_load
    xlreader.load_workbook = guard_load(original_load)
    functions.BaseError = (old_base_error, MemoryError)
    excel.tqdm = types.SimpleNamespace(tqdm=progress_bar)  # (formulas.excel calls tqdm.tqdm(...))
    try:
        yield
    finally:
        excel.tqdm, functions.BaseError = old_tqdm, old_base_error
        xlreader.load_workbook = original_load
        with contextlib.suppress(AttributeError):
            del xlreader._xlbridge_original_load


# --------------------------------------------------------------------------------------------------
# what the rest of the batch layer uses: public names, and a named function for each internal


@dataclasses.dataclass(frozen=True)
class EngineNames:
    """The public names of ``formulas`` (1.3) and ``schedula`` that the batch layer uses.

    - classes it subclasses: ``ExcelModel``, ``CellWrapper``, ``RangesAssembler``; classes it makes or
      tests for: ``Cell``, ``Ref``, ``Ranges``, ``InvRangesAssembler``, ``Array``, ``XlError``,
      ``Token``; ``Error`` (its ``errors`` table of Excel's error values);
    - ``wrap_func`` (an engine function from a Python one);
    - schedula's ``EMPTY`` (a blank cell's value) and ``SELF`` tokens, ``get_nested_dicts``,
      ``await_result``, ``inf``;
    - ``BOOK`` and ``SHEETS``, the keys of a book's data in a model's ``books``.
    """

    ExcelModel: Any
    Cell: Any
    CellWrapper: Any
    Ref: Any
    Ranges: Any
    RangesAssembler: Any
    InvRangesAssembler: Any
    Array: Any
    Error: Any
    XlError: Any
    Token: Any
    wrap_func: Callable[..., Any]
    EMPTY: Any
    SELF: Any
    get_nested_dicts: Callable[..., Any]
    await_result: Callable[..., Any]
    inf: Any
    BOOK: str
    SHEETS: str


@functools.lru_cache(maxsize=None)
def engine_names() -> EngineNames:
    """The public names the batch layer uses (:class:`EngineNames`), formulas imported once."""
    got = internals()
    sh = got.sh
    return EngineNames(
        ExcelModel=got.formulas.ExcelModel, Cell=got.Cell, CellWrapper=got.CellWrapper, Ref=got.Ref,
        Ranges=got.Ranges, RangesAssembler=got.RangesAssembler, InvRangesAssembler=got.InvRangesAssembler,
        Array=got.Array, Error=got.Error, XlError=got.XlError, Token=sh.Token, wrap_func=got.wrap_func,
        EMPTY=sh.EMPTY, SELF=sh.SELF, get_nested_dicts=sh.get_nested_dicts, await_result=sh.await_result,
        inf=sh.inf, BOOK=got.BOOK, SHEETS=got.SHEETS)


def identical(cells: list[Any], token: Any) -> Any:
    """A numpy array of booleans: which of ``cells`` is ``token`` itself (``is``: schedula's tokens compare by
    identity), found in C (``operator.is_`` mapped) without a Python call per cell. Not with ``id``: each call of
    the built-in ``id`` is an audit event (PEP 578), which the engine's sandboxed process hears in Python, about
    0.35 microseconds a cell.

    >>> token = object()
    >>> identical([token, None, token, 0], token).tolist()
    [True, False, True, False]
    """
    import itertools
    import operator

    import numpy as np

    return np.fromiter(map(operator.is_, cells, itertools.repeat(token)), dtype=bool, count=len(cells))


def blank_as_zero(x: Any) -> Any:
    """``x`` with its blank cells as 0, as formulas' function wrappers read their arguments (its
    ``formulas.functions.replace_empty``). That one finds the blanks with ``==`` (``EMPTY in x``, then
    ``EMPTY == x``): a Python call per cell, twice, since schedula's tokens compare by identity
    (``Token.__eq__`` is ``is``). Here the blanks are found by identity at once (:func:`identical`), with the same
    result.
    """
    import numpy as np

    got = internals()
    empty = got.sh.EMPTY
    if isinstance(x, np.ndarray):
        if x.dtype != object or not x.size:
            return got.functions.replace_empty(x)
        blank = identical(x.ravel().tolist(), empty).reshape(x.shape)
        return np.where(blank, 0, x).view(x.__class__) if blank.any() else x
    return 0 if x is empty else x


def correct_operators(corrections: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]]) -> None:
    """Replace each operator ``name`` of formulas' table (``formulas.functions.operators.OPERATORS``, read
    when a formula is compiled) by ``corrections[name](stock operator)``, once per process; the corrected
    function keeps the stock one as ``__wrapped__``."""
    from formulas.functions.operators import OPERATORS

    for name, correct in corrections.items():
        if not getattr(OPERATORS[name], "xlbridge", False):
            fn = correct(OPERATORS[name])
            fn.xlbridge = True  # type: ignore[attr-defined]
            OPERATORS[name] = fn


def text_of() -> Callable[[Any], str]:
    """formulas' text of a cell's value as ``&`` joins it (the private ``formulas.functions.text._str``: a logical
    ``TRUE``/``FALSE``, a whole float without its ``.0``, anything else ``str``)."""
    from formulas.functions.text import _str

    return _str


def column_namer() -> Callable[[int], str]:
    """formulas' own function giving a column's letters as it names its cell nodes
    (``formulas.tokens.operand._index2col``: 1 is A, 28 is AB), itself: the model calls it for every blank
    cell of a range (134,000 times for the pairs template), where a wrapper would cost 30 ms."""
    return internals().index2col


def cell_indices(base: dict, row: int, column: int) -> Any:
    """Where cell (``row``, ``column``) sits in the array of range ``base`` (a range of formulas'
    ``Ranges.ranges``: ``r1``, ``n1``, ``r2``, ``n2``), as formulas' private ``_get_indices_intersection``
    gives it for a one-cell range."""
    return internals().get_indices_intersection(base, {"r1": row, "r2": row, "n1": column, "n2": column})


def range_shape(base: dict) -> tuple:
    """(rows, columns) of the array of range ``base`` (formulas' private ``formulas.cell._shape``)."""
    return internals().shape(**base)


def assemble_values(base: dict, values: Any, out: Any) -> None:
    """Copy a node's ``values`` (formulas' ``Ranges.values``) into ``out``, the array of range ``base``,
    where they overlap (formulas' private ``formulas.cell._assemble_values``)."""
    internals().assemble_values(base, values, out)


def compile_text(model: Any, ref: str, formula: str, context: dict, references: Any) -> Any:
    """Compile ``formula`` (such as ``"=#NAME?"``) as the cell ``ref`` of the sheet of ``context``, as
    ``ExcelModel.compile_cell`` compiles a cell's text (its private static ``_compile_cell``,
    the formula checked)."""
    return model._compile_cell(ref, formula, context, True, references)


def update_references(model: Any, nodes: set, refs: dict) -> None:
    """Record defined names compiled into ``nodes`` and ``refs`` in ``model``, as its own
    ``add_references`` does after compiling them (``ExcelModel._update_refs``)."""
    model._update_refs(nodes, refs)


def run_in_one_pass(cell: Any, cls: type) -> bool:
    """Make a compiled cell's function an instance of ``cls`` (a subclass of ``CellWrapper`` whose
    ``__call__`` evaluates a whole run at once) when it is formulas' plain ``CellWrapper``; whether it did."""
    if type(cell.func) is not internals().CellWrapper:
        return False
    cell.func.__class__ = cls
    return True


class EngineNode:
    """One function node of a compiled cell's formula (a node of its schedula dispatcher): ``text``, the
    expression it computes as formulas names it (references in full, such as
    ``ROW('[workbook.xlsx]SHEET'!D4:D9)``); ``context``, the positions of its inputs that are the calling
    cell itself (formulas' ``CELL`` token: ``ROW()``, ``COLUMN()``, ``@``); ``function``; :meth:`replace`."""

    __slots__ = ("text", "context", "function", "_node")

    def __init__(self, text: str, context: tuple[int, ...], function: Callable[..., Any], node: dict) -> None:
        self.text, self.context, self.function, self._node = text, context, function, node

    def replace(self, function: Callable[..., Any]) -> None:
        """Evaluate the node by ``function`` (called with the node's inputs, as its own function is)."""
        self._node["function"] = function


def function_nodes(cell: Any) -> list[EngineNode]:
    """The function nodes of a compiled cell's formula (formulas' ``Cell`` whose ``func`` is a
    ``CellWrapper`` of a ``DispatchPipe``), those of its own dispatcher only (a ``LET`` or ``LAMBDA`` is
    one node: its body, whose names are its own, is not entered); none for anything else. The nodes
    formulas evaluated while compiling (constant parts, ``ROW()``) are values, not function nodes."""
    dsp = getattr(getattr(getattr(cell, "func", None), "func", None), "dsp", None)
    nodes = getattr(dsp, "function_nodes", None)
    if not isinstance(nodes, dict):
        return []
    got = internals()
    token, bypass = got.cell_token, got.sh.bypass
    out = []
    for node in nodes.values():
        outputs, inputs, function = node.get("outputs"), node.get("inputs") or (), node.get("function")
        if (not isinstance(outputs, list) or len(outputs) != 1 or not isinstance(outputs[0], str)
                or not callable(function) or function is bypass or node.get("type", "function") != "function"):
            continue
        context = tuple(i for i, name in enumerate(inputs) if name is token)
        out.append(EngineNode(outputs[0], context, function, node))
    return out


def same_value(a: Any, b: Any) -> bool:
    """Whether two inputs of a node are the same value for certain: the same object; two references
    (formulas' ``Ranges``) to the same cells holding the same arrays (each cell's formula gets its own
    ``Ranges`` of the model's arrays); equal numbers, texts or booleans of the same type; small arrays
    (at most 64 cells) of equal values of the same types (``TRUE`` is not 1). Anything else: not known
    to be the same (False).

    >>> import numpy as np
    >>> same_value(2.0, 2.0), same_value(1, True), same_value(np.array([[2]]), np.array([[2]])), same_value(np.array([[2]]), np.array([[3]]))
    (True, False, True, False)
    >>> same_value(0.0, -0.0), same_value(np.array([[0.0]], object), np.array([[-0.0]], object))
    (False, False)
    """
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is float:
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)  # (-0.0 is not 0.0: ATAN2, TEXT)
    if kind in (int, str, bool):
        return bool(a == b)
    if kind is internals().Ranges:
        if a.ranges != b.ranges or a.values.keys() != b.values.keys():
            return False
        for key, held in a.values.items():
            other = b.values[key]
            if held is other:
                continue
            if not (type(held) is tuple and type(other) is tuple and len(held) == len(other)
                    and all(map(operator.is_, held, other))):
                return False
        return True
    if isinstance(a, _ndarray()):
        assert isinstance(b, _ndarray())
        if a.size > 64 or a.shape != b.shape or a.dtype != b.dtype:
            return False
        left, right = a.ravel().tolist(), b.ravel().tolist()
        return len(left) == len(right) and all(map(same_value, left, right))
    return False


def is_reference(value: Any) -> bool:
    """Whether a node's input is a reference formulas' ``ROW``/``COLUMN`` read as theirs (a ``Ranges`` that is not
    empty): with anything else there (0, an empty text, FALSE) they read the calling cell instead."""
    return isinstance(value, internals().Ranges) and bool(value)


def _ndarray() -> Any:
    """numpy's array type (numpy imported when first needed)."""
    import numpy as np

    return np.ndarray


def evaluated_node(frame: Any) -> str | None:
    """The node a frame of schedula's evaluates, when it is the frame evaluating one function node
    (``Solution._set_function_node_output``, its local ``node_attr["outputs"]``'s first name, such as
    ``'[workbook.xlsx]SHEET'!A1``); otherwise None."""
    if frame.f_code.co_name != EVALUATING_FRAME:
        return None
    attr = frame.f_locals.get("node_attr")
    outputs = attr.get("outputs") if isinstance(attr, dict) else None
    return outputs[0] if outputs and isinstance(outputs[0], str) else None


def shared_strings(path: str) -> list[str]:
    """The shared-string table of the workbook at ``path`` as formulas' workbook reader (``XlReader``,
    ``read_manifest`` then ``read_strings``) reads it: the part the content types name, ``_xHHHH_``
    escapes decoded."""
    reader = internals().XlReader(path, read_only=True, keep_links=False)
    try:
        reader.read_manifest()
        reader.read_strings()
        return list(reader.shared_strings)
    finally:
        reader.archive.close()


def function_package() -> types.ModuleType:
    """formulas' package of functions, ``formulas.functions``: its ``SUBMODULES`` (relative names of the
    modules defining functions, in formulas' order), ``FUNCTIONS`` (its own table), ``not_implemented``
    and ``get_functions`` (the stock registry)."""
    package: types.ModuleType = internals().functions
    return package


def function_registry() -> Any:
    """The function registry formulas uses now (``formulas.get_functions()``, after :func:`use_registry`
    xlbridge's)."""
    return internals().formulas.get_functions()


def stock_load_workbook() -> Callable[..., Any]:
    """formulas' reader of a workbook file (``xlreader.load_workbook``) as it is outside
    :func:`engine_patched`: inside it, the stock reader the guarded one stands in front of."""
    xlreader = internals().xlreader
    load: Callable[..., Any] = getattr(xlreader, "_xlbridge_original_load", xlreader.load_workbook)
    return load


#: The names formulas' statistics module imports from SciPy: ``from scipy import stats, linalg`` and
#: ``from scipy.interpolate import interp1d``.
SCIPY_NAMES = (("scipy", "stats"), ("scipy", "linalg"), ("scipy.interpolate", "interp1d"))
_STATISTICS = ".stat"


def import_function_module(name: str, package: str) -> types.ModuleType:
    """One of formulas' function modules by its name in ``SUBMODULES`` (``".logic"``), relative to
    ``package`` (``formulas.functions``); the statistics module with its SciPy names deferred (SciPy
    imported the first time a function calls it: ``COUNT`` never needs it)."""
    if name == _STATISTICS:
        return _import_stat_without_scipy(package)
    return importlib.import_module(name, package)


class _DeferredModule:
    """Stands for ``scipy.stats`` (or ``scipy.linalg``): the real module is imported at its first attribute."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<deferred module {self._name}>"


def _deferred_function(module: str, name: str) -> Callable[..., Any]:
    """Stands for ``scipy.interpolate.interp1d``: imported at the first call."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


def _import_stat_without_scipy(package: str) -> types.ModuleType:
    """Import formulas' statistics module with its SciPy names deferred (SciPy itself not imported)."""
    full = importlib.util.resolve_name(_STATISTICS, package)
    if full in sys.modules or "scipy" in sys.modules:  # already there, or SciPy loaded anyway: nothing to save
        return importlib.import_module(full)
    stubs = {"scipy": types.ModuleType("scipy"), "scipy.interpolate": types.ModuleType("scipy.interpolate")}
    for module, name in SCIPY_NAMES:
        real = f"{module}.{name}"
        setattr(stubs[module], name, _DeferredModule(real) if module == "scipy" else _deferred_function(module, name))
    sys.modules.update(stubs)
    try:
        return importlib.import_module(full)
    finally:
        for name, stub in stubs.items():
            if sys.modules.get(name) is stub:
                del sys.modules[name]
