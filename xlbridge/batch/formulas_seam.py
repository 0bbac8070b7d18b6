"""The one place xlbridge reaches into the `formulas` engine (and schedula, its graph) below their surface.

In: nothing (formulas itself is imported inside :func:`internals` only: it takes about half a second
and the parent of an isolated run never needs it). Out: :func:`internals`, every name of ``formulas`` and
``schedula`` the batch layer uses, private ones included, each read once from the module of formulas
1.3 that defines it; and the three changes xlbridge makes to ``formulas`` itself:

- :func:`quote_sheet_ids`: sheet names holding an apostrophe get ids formulas' own parser reads back
  (``formulas.tokens.operand._build_sheet_id`` replaced, once per process);
- :func:`use_registry`: ``formulas.get_functions()`` returns xlbridge's lazily loading registry
  (:mod:`xlbridge.batch.evaluate.registry`);
- :func:`engine_patched`: during one evaluation, ``xlreader.load_workbook`` opens one file only,
  ``MemoryError`` escapes formulas' built-in functions (``functions.BaseError``) and the compile
  progress bar (``formulas.excel.tqdm``) goes where xlbridge says; undone on exit.

No other module of :mod:`xlbridge.batch` imports ``formulas`` or ``schedula``
(tests/batch/test_formulas_seam.py checks it, and pins what this module and the model's subclasses of
formulas' classes rely on), so an upgrade of formulas breaks in one known place.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import types
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["FormulasInternals", "internals", "quote_sheet_ids", "use_registry", "engine_patched",
           "EVALUATING_FRAME", "FORMULAS_SERIES"]

#: The formulas release series whose internals this module names (``formulas.__version__`` starts so).
FORMULAS_SERIES = "1.3."

#: schedula's method evaluating one node of the graph: a frame of it on the stack says which cell's
#: formula is being evaluated (its local ``node_attr["outputs"]``), read by the engine's messages.
EVALUATING_FRAME = "_set_function_node_output"


@dataclasses.dataclass(frozen=True)
class FormulasInternals:
    """The names of ``formulas`` (1.3) and ``schedula`` that the batch layer uses, by their home module.

    - ``formulas``: ``ExcelModel``, ``get_functions``; ``sh``: schedula (``EMPTY``, ``SELF``,
      ``get_nested_dicts``, ``await_result``, ``inf``, ``Token``, ``Solution``);
    - ``formulas.cell``: ``CellWrapper``, ``Cell``, ``Ref``, ``RangesAssembler``, ``InvRangesAssembler``
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


@functools.lru_cache(maxsize=None)
def internals() -> FormulasInternals:
    """Import formulas and schedula once; every name the batch layer uses of them."""
    import formulas
    import formulas.excel as excel
    import formulas.functions as functions
    import schedula as sh
    from formulas.cell import (
        Cell, CellWrapper, InvRangesAssembler, RangesAssembler, Ref, _assemble_values, _get_indices_intersection,
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
        operand=operand, BOOK=BOOK, SHEETS=SHEETS, excel=excel, xlreader=xlreader, XlReader=XlReader)


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
