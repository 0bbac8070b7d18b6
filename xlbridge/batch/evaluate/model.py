"""The formulas engine's model as xlbridge runs it: sparse, streamed, and unable to open another file.

:func:`model_class` subclasses ``formulas.ExcelModel`` (cells compiled only where something is,
constants handed over as column blocks, the defused ``add_book`` of :mod:`xlbridge.batch.guard.links`, a
formula the engine cannot read an error of its cell only); :func:`record_phase` notes what the engine
is doing for a limit message naming where it stopped.

>>> is_memory_error(MemoryError()), is_memory_error(ValueError())
(True, False)
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
from typing import Any

from ...core.errors import WorkbookError
from ..cells import cell_ref, parse_range, parse_ref
from ..formulas_seam import (
    DISPATCH_KEYWORDS,
    assemble_values,
    cell_indices,
    column_namer,
    compile_text,
    engine_names,
    quote_sheet_ids,
    range_shape,
    run_in_one_pass,
    stock_load_workbook,
    update_references,
)
from ..guard.limits import clip
from ..read.aliases import AliasIndex, alias_runs
from .subexpressions import SharedSubexpressions
from ..guard.links import (
    BOOK_OF_NODE,
    DDE_NOT_FOLLOWED,
    ExternalLinkRefused,
    LINK_NOT_FOLLOWED,
    LinkState,
    cached_workbook,
    names_other_book,
    quote_other_books,
    split_node,
)

__all__ = [
    "ModelState",
    "PHASE_SIZE",
    "set_phase_sink",
    "compiling_cell",
    "is_memory_error",
    "load_engine_workbook",
    "model_class",
    "record_phase",
]


class _SparseSheet:
    """A read-only view of an openpyxl worksheet whose ``iter_rows`` over a block yields only cells holding a value.

    formulas' ``complete`` step compiles every cell of every range a formula references, blank or not
    (``worksheet.iter_rows`` creates them): for the pairs template at 10,000 rows that is 70,000 blank
    cells of the weighted-outcome and typed-score columns, each a graph node. The engine's range
    assembler fills the cells of a range that have no node with empty values itself, so those blanks
    need no node. A single-cell reference still gets its cell (blank or not): a formula reading one
    blank cell needs that node. Every other attribute is the worksheet's own.

    >>> import openpyxl
    >>> ws = openpyxl.Workbook().active
    >>> ws["A1"], ws["B3"] = 1, "x"
    >>> [[c.coordinate for c in row] for row in _SparseSheet(ws).iter_rows(1, 3, 1, 2)]
    [['A1', 'B3']]
    >>> [[c.coordinate for c in row] for row in _SparseSheet(ws).iter_rows(2, 2, 2, 2)]
    [['B2']]
    """

    def __init__(self, worksheet):
        self._ws = worksheet

    def __getattr__(self, name):
        return getattr(self._ws, name)

    def iter_rows(self, min_row=None, max_row=None, min_col=None, max_col=None, values_only=False):
        ws = self._ws
        cells = getattr(ws, "_cells", None)
        bounds = (min_row, max_row, min_col, max_col)
        if (values_only or not isinstance(cells, dict) or None in bounds
                or (min_row == max_row and min_col == max_col)):
            return ws.iter_rows(min_row, max_row, min_col, max_col, values_only)
        area = (max_row - min_row + 1) * (max_col - min_col + 1)
        if area <= len(cells):  # look the block up cell by cell
            found = (cells.get((r, c)) for r in range(min_row, max_row + 1) for c in range(min_col, max_col + 1))
        else:  # a block larger than the sheet's contents: walk the contents
            found = (cell for (r, c), cell in sorted(cells.items())
                     if min_row <= r <= max_row and min_col <= c <= max_col)
        return [[cell for cell in found if cell is not None and cell.value is not None]]


class _BlankCells:
    """The blank cells of a range that the engine assembles (``_LeanAssembler`` of :func:`_lean_assembler_class`):
    their node names' prefix (``'[book]SHEET'!``) and their columns and rows as two integer arrays;
    iterating gives the (column, row) pairs.

    >>> blank = _BlankCells("S!", [(2, 5), (3, 7)])
    >>> bool(blank), len(blank), sorted(blank), list(blank.present({"S!B5": 1.0, "S!C8": 2.0}))
    (True, 2, [(2, 5), (3, 7)], [('S!B5', 2, 5)])
    """

    __slots__ = ("prefix", "columns", "rows")

    def __init__(self, prefix: str, cells: Any) -> None:
        import numpy as np

        self.prefix = prefix
        pairs = list(cells)
        self.columns = np.fromiter((n for n, _ in pairs), np.int64, len(pairs))
        self.rows = np.fromiter((r for _, r in pairs), np.int64, len(pairs))

    @classmethod
    def of_arrays(cls, prefix: str, columns: Any, rows: Any) -> _BlankCells:
        """The same from the two integer arrays themselves.

        >>> import numpy as np
        >>> sorted(_BlankCells.of_arrays("S!", np.array([2, 3]), np.array([5, 7])))
        [(2, 5), (3, 7)]
        """
        blank = cls.__new__(cls)
        blank.prefix, blank.columns, blank.rows = prefix, columns, rows
        return blank

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Any:
        return zip(self.columns.tolist(), self.rows.tolist())

    def present(self, solution: Any) -> Any:
        """(node name, column, row) of each blank cell that has a value in ``solution`` after all."""
        index2col = column_namer()
        prefix = self.prefix
        for n, r in self:
            key = f"{prefix}{index2col(n)}{r}"
            if key in solution:
                yield key, n, r


@functools.lru_cache(maxsize=None)
def guarded_run_class():
    """formulas' compiled-cell wrapper for a run of showing cells read by another formula
    (:mod:`xlbridge.batch.read.aliases`): ``=IFERROR(R,IF(ERROR.TYPE(R)=5,"",R))`` over a column run ``R``.

    The stock evaluation calls four element-by-element functions (``ERROR.TYPE``, ``=``, ``IF``,
    ``IFERROR``: 40,000 Python calls for a 10,000-row column); this gives what they give in one pass:
    a blank cell 0, ``#NAME?`` "", any other value itself. A value it does not know (not a float, int,
    text, TRUE/FALSE, blank or one of the engine's errors; a NaN or infinite float) sends the whole
    run back to the stock evaluation (tests/batch/test_aliases.py compares the two on random runs).
    """
    import math

    import numpy as np

    got = engine_names()
    Array, Error, XlError, empty = got.Array, got.Error, got.XlError, got.EMPTY
    CellWrapper: Any = got.CellWrapper

    errors = frozenset(Error.errors.values())  # (the engine's error values are tokens: equal only to themselves)
    name = Error.errors["#NAME?"]
    plain = frozenset((int, str, bool))

    def shown(value: Any) -> Any:
        if not isinstance(value, np.ndarray):
            return None
        out = []
        for x in value.ravel().tolist():
            t = type(x)
            if t is float:
                if not math.isfinite(x):
                    return None
            elif t in plain:
                pass
            elif x is empty:
                x = 0
            elif t is XlError and x in errors:
                x = "" if x == name else x
            else:
                return None
            out.append(x)
        got = np.empty(len(out), dtype=object)
        got[:] = out
        return got.reshape(value.shape).view(Array)

    # what schedula gives every sub-dispatcher call: the run's one pass has no use for them; any other
    # keyword sends the run to the stock evaluation
    dispatch_keywords = DISPATCH_KEYWORDS

    class GuardedRun(CellWrapper):  # type: ignore[misc]  # formulas is untyped
        def __call__(self, *args, **kwargs):
            inputs = list(self.parse_args(*args))
            plain_call = len(inputs) == 1 and dispatch_keywords.issuperset(kwargs)
            got = shown(getattr(inputs[0], "value", None)) if plain_call else None
            return super().__call__(*args, **kwargs) if got is None else got

    return GuardedRun


def _rect_indices(rect: tuple) -> set:
    """The (column, row) pairs of a rectangle (row1, column1, row2, column2), as formulas lists a range's cells."""
    r1, n1, r2, n2 = rect
    return set(itertools.product(range(n1, n2 + 1), range(r1, r2 + 1)))


class _BoxCells:
    """The (column, row) pairs of a rectangle, listed only if formulas' inverse assembler asks."""

    __slots__ = ("rect",)

    def __init__(self, rect: tuple) -> None:
        self.rect = rect

    def __iter__(self) -> Any:
        return iter(sorted(_rect_indices(self.rect)))


@functools.lru_cache(maxsize=None)
def _lean_assembler_class():
    """The engine's range assembler that keeps the blank cells of its range compactly (its class
    docstring says how), for :func:`model_class`."""
    import numpy as np

    got = engine_names()
    InvRangesAssembler, Ranges, SELF, EMPTY, inf = got.InvRangesAssembler, got.Ranges, got.SELF, got.EMPTY, got.inf
    RangesAssembler: Any = got.RangesAssembler

    class _LeanAssembler(RangesAssembler):  # type: ignore[misc]  # formulas is untyped
        """formulas' ``RangesAssembler`` keeping the blank cells of its range as (column, row) pairs.

        The stock assembler keeps, for every cell of a range that no node provides, a nine-key dict
        (built in ``add``) besides two sets of every cell of the range, kept for the model's life: at
        100,000 traveller rows they cost about 500 MiB. Here the sets are dropped once the
        assembler is added, and the blank cells are two integer arrays (:class:`_BlankCells`); a blank
        cell that does have a value when the assembler runs (one given as an input) is still read, as
        in the stock ``__call__``.
        """

        def add(self, dsp):
            try:
                self._add(dsp)
            finally:
                empty: set = set()
                self.indices = empty  # (only ``push`` reads it, before ``add``)
                # ``missing`` stays what formulas' inverse assembler (InvRangesAssembler, run only when
                # a range is given as an input or solved in a cycle, never by xlbridge recalc) walks:
                # the blank cells, as their compact record when there are many
                if isinstance(self.inputs.get(SELF), _BlankCells):
                    self.missing = self.inputs[SELF]

        def _add(self, dsp):
            if len(self.missing) <= (self.compact or 1):
                return super().add(dsp)
            missing = self.missing
            self.missing.difference_update(self._take_provided(dsp, lambda n, r: (n, r) in missing))
            if len(self.missing) <= (self.compact or 1):
                return super().add(dsp)
            self._add_blank(dsp, _BlankCells(self._prefix(), self.missing))

        def _prefix(self) -> str:
            sheet_id = self.range.ranges[0]["sheet_id"]
            return f"{sheet_id}!" if sheet_id else ""  # (joined, not %-formatted: a sheet may be called "5%")

        def _take_provided(self, dsp, is_missing) -> dict:
            """{(column, row): node} of the missing cells (``is_missing(column, row)``) that a value node
            provides after all, made inputs (the stock ``add`` formats every missing cell's name to look
            it up): found from the few single-cell nodes of this sheet, each confirmed by that format."""
            base, prefix, index2col = self.range.ranges[0], self._prefix(), column_namer()
            provided = {}
            for key in dsp.default_values:
                if not isinstance(key, str) or not key.startswith(prefix):
                    continue
                try:
                    r, n = parse_ref(key[len(prefix):])
                except WorkbookError:  # (a range, a name: no single cell)
                    continue
                if is_missing(n, r) and f"{prefix}{index2col(n)}{r}" == key:
                    provided[(n, r)] = key
            for (n, r), key in sorted(provided.items()):
                self.inputs[key] = cell_indices(base, r, n)
            return provided

        def _add_blank(self, dsp, blank: _BlankCells) -> None:
            """The assembler's node, its blank cells read as one input (see :meth:`__call__`)."""
            if SELF not in dsp.default_values:
                dsp.add_data(SELF, inf(2, 0))
            self.inputs[SELF] = blank
            if list(self.inputs) != [self.output]:
                dsp.add_function(None, self, self.inputs or None, [self.output])
                if len(self.outputs) >= 1:
                    dsp.add_function(None, InvRangesAssembler(self), [self.output, SELF], self.outputs)
                    dsp.nodes[self.output]["inv-data"] = set(self.outputs)

        def __call__(self, *cells):
            blanks = self.inputs.get(SELF)
            if not isinstance(blanks, _BlankCells):
                return super().__call__(*cells)
            base = self.range.ranges[0]
            out = np.empty(range_shape(base), object)
            out[:] = EMPTY
            sol = cells[-1].solution
            for key, n, r in blanks.present(sol):
                v = sol[key]
                out[cell_indices(base, r, n)] = v.value if isinstance(v, Ranges) else v
            for c, ind in zip(cells[:-1], self.inputs.values()):
                if ind:
                    out[ind[0], ind[1]] = c.value
                else:
                    assemble_values(base, c.values, out)
            return out

    return _LeanAssembler


@functools.lru_cache(maxsize=None)
def _box_assembler_class():
    """The engine's assembler of a one-rectangle range node on the streamed path (its class docstring
    says how), for :func:`model_class`."""
    import collections

    import numpy as np

    got = engine_names()
    Ranges, RangesAssembler = got.Ranges, got.RangesAssembler
    _LeanAssembler: Any = _lean_assembler_class()

    class _BoxAssembler(_LeanAssembler):  # type: ignore[misc]  # formulas is untyped
        """The assembler of a one-rectangle range node on the streamed path: the other nodes' cells come
        as rectangles (row1, column1, row2, column2) and the cells of the range no node provides yet are
        a boolean mask, where formulas builds a set of (column, row) pairs for every range node and
        every cell node and intersects them (30,000 pairs for a 10,000-row, 3-column range). What it
        hands the engine is what :class:`_LeanAssembler` hands it: the same inputs, outputs and blank
        cells (tests/batch/test_engine_paths.py compares the streamed and stock paths).
        """

        def __init__(self, ref, context=None, compact=1):
            self.range = Ranges().push(ref, context=context)
            if len(self.range.ranges) != 1:
                raise ValueError("not one rectangle")
            base = self.range.ranges[0]
            self.box = (int(base["r1"]), base["n1"], int(base["r2"]), base["n2"])
            r1, n1, r2, n2 = self.box
            self.left = np.ones((r2 - r1 + 1, n2 - n1 + 1), dtype=bool)  # cells no node provides (yet)
            self.indices = set()  # (the stock ``push`` is not used)
            self.missing = set()  # (set in ``_add``)
            self.inputs = collections.OrderedDict()
            self.outputs = collections.OrderedDict()
            self.compact = compact or 1

        def push_box(self, output: str, rect: tuple) -> bool:
            """A node whose cells are ``rect``: an input if it provides cells not provided yet (an output
            too, for the inverse assembler, when inside the range); False once every cell is provided."""
            r1, n1, r2, n2 = self.box
            a1, b1, a2, b2 = max(rect[0], r1), max(rect[1], n1), min(rect[2], r2), min(rect[3], n2)
            if a1 <= a2 and b1 <= b2:
                sub = self.left[a1 - r1: a2 - r1 + 1, b1 - n1: b2 - n1 + 1]
                if sub.any():
                    sub[...] = False
                    self.inputs[output] = None
                    if (a1, b1, a2, b2) == tuple(rect):
                        self.outputs[output] = _BoxCells(rect)
            return bool(self.left.any())

        def push_cells(self, cells: dict) -> None:
            """The single-cell nodes {(column, row): node} of the range's sheet, as the stock ``push``."""
            r1, n1, r2, n2 = self.box
            left = self.left
            for (n, r), output in cells.items():
                if r1 <= r <= r2 and n1 <= n <= n2 and left[r - r1, n - n1]:
                    left[r - r1, n - n1] = False
                    self.inputs[output] = None
                    self.outputs[output] = (n, r)

        def missing_count(self) -> int:
            return int(np.count_nonzero(self.left))

        def _add(self, dsp):
            r1, n1, r2, n2 = self.box
            left = self.left
            if self.missing_count() > self.compact:
                for n, r in self._take_provided(
                        dsp, lambda n, r: r1 <= r <= r2 and n1 <= n <= n2 and left[r - r1, n - n1]):
                    left[r - r1, n - n1] = False
            rows, cols = np.nonzero(left)
            if len(rows) <= self.compact:
                self.missing = set(zip((cols + n1).tolist(), (rows + r1).tolist()))
                return RangesAssembler.add(self, dsp)
            self._add_blank(dsp, _BlankCells.of_arrays(self._prefix(), cols + n1, rows + r1))

    return _BoxAssembler


@functools.lru_cache(maxsize=None)
def model_class():
    """``formulas.ExcelModel`` that compiles only the cells that hold something and never opens another file.

    - ``push`` walks openpyxl's dict of existing cells instead of ``worksheet.iter_rows()`` (which
      visits, and creates, every cell of the bounding box: a quarter of a million blank cells for a
      10,000-row template) and skips cells without a value; ``add_sheet`` hands the stock
      ``complete`` step a :class:`_SparseSheet`, so blank cells of referenced ranges get no node either.
    - ``add_book`` is the defused one described in :func:`defuse_external_links`.
    - ``compile_cell`` turns a formula the engine cannot read into an error of that cell only
      (``#NAME?``; ``#REF!`` for a DDE link such as ``=cmd|'/c calc'!A0``) instead of failing the run.
    - what xlbridge keeps of a run is one typed attribute, ``xlbridge`` (a :class:`ModelState`), set by
      ``defuse`` (from :func:`xlbridge.batch.guard.links.defuse_external_links`).
    """
    got = engine_names()
    Ref, BOOK = got.Ref, got.BOOK
    ExcelModel: Any = got.ExcelModel

    quote_sheet_ids()
    guarded_run_class()  # (the engine's classes made now, as the model's: formulas' names read once, here)
    _box_assembler_class()

    class XlbridgeExcelModel(ExcelModel):  # type: ignore[misc]  # formulas is untyped
        basedir: str | None
        xlbridge: ModelState | None = None  # (made at its first use: :func:`_state`)

        def defuse(self, links: LinkState) -> None:
            """Open no file but ``links.path``, and serve linked books from their cached copies only."""
            _state(self).links = links

        def add_book(self, book=None, context=None, data_only=False):
            state = _state(self).links
            if state is None:
                raise ExternalLinkRefused("the model was not defused (defuse_external_links)")
            ctx = (context or {}).copy()
            if isinstance(book, str):
                parts = book.replace("\\", "/").split("/")
                ctx["directory"], ctx["filename"] = "/".join(parts[:-1]), parts[-1]
            elif book is not None:
                raise ExternalLinkRefused("only a file name can be loaded")
            key, data = _open_book(self, state, book, ctx, data_only)
            ctx["directory"] = ""
            ctx["excel"] = key
            if "references" not in data:
                refs_ctx = {"external_links": data["external_links"]}
                refs_ctx.update(ctx)
                data["references"] = self.add_references(data[BOOK], context=refs_ctx)
            return data[BOOK], ctx

        def add_sheet(self, worksheet, context):
            if isinstance(worksheet, str):  # a name read back from a node id: 'O''BRIEN' is O'BRIEN
                worksheet = worksheet.replace("''", "'")
            try:
                worksheet, ctx = super().add_sheet(worksheet, context)
            except Exception:
                state = _state(self).links
                if state is not None and context.get("excel") != state.main:  # a sheet the cached copy lacks
                    state.refused.add(f"{context.get('excel')}!{worksheet}")
                raise
            return _sparse_view(self, worksheet), ctx

        def push(self, worksheet, context):
            state = _state(self).links
            raw = worksheet._ws if isinstance(worksheet, _SparseSheet) else worksheet
            if (state is not None and state.sheets and context.get("excel") == state.main
                    and getattr(raw, "title", "").upper() in state.sheets):
                return _push_streamed(self, worksheet, context, state.sheets[raw.title.upper()])
            existing = getattr(worksheet, "_cells", None)
            if not isinstance(existing, dict):
                return super().push(worksheet, context)
            return _push_present(self, worksheet, context, raw)

        def finish(self, *args, **kwargs):
            _compile_read_aliases(self)
            _state(self).shared.install()  # (a part written in several formulas: computed once)
            return super().finish(*args, **kwargs)

        def assemble(self, compact=1):
            """formulas' ``assemble`` with each cell node's cells as a rectangle (row1, column1, row2,
            column2) rather than a set of (column, row) pairs (see :func:`_box_assembler_class`), and its
            range nodes assembled by :func:`_assemble_rectangles`, on the streamed path; a node of several
            rectangles keeps the stock reading of the whole model (``ModelState.cell_sets``)."""
            state = _state(self)
            if state.links is None or not state.links.sheets or state.cell_sets:
                return super().assemble(compact=compact)
            cells = _cell_rectangles(self)
            if cells is None:  # (not met in a workbook: formulas' own reading, cell sets and all)
                state.cell_sets = True
                return super().assemble(compact=compact)
            _assemble_rectangles(self, cells, None, compact)
            return self

        def compile_cell(self, cell, context, references, formula_references):
            global _COMPILING
            coordinate = getattr(cell, "coordinate", "")  # (an array formula: its range)
            _COMPILING = (str(context.get("sheet", "")).upper(), formula_references.get(coordinate, coordinate))
            try:
                compiled = self._compile_or_error(cell, context, references, formula_references)
            finally:
                _COMPILING = None
            _state(self).shared.add(compiled)
            return compiled

        def _compile_or_error(self, cell, context, references, formula_references):
            try:
                return super().compile_cell(cell, context, references, formula_references)
            except Exception as exc:  # a formula the engine cannot read: an error of this cell only
                if is_memory_error(exc):  # (constant parts are evaluated while compiling)
                    raise
                return _error_cell(self, cell, context, references, formula_references)

        def add_references(self, book, context=None):
            """The workbook's global defined names, as formulas' own ``add_references``, except that a name
            the engine cannot read becomes an error value instead of failing the whole workbook
            (:func:`_defined_name`)."""
            refs: dict = {}
            nodes: set = set()
            it = book.defined_names
            for n in (it.values() if isinstance(it, dict) else it.definedName):
                if n.hidden or n.localSheetId is not None:
                    continue  # only global names, as formulas does
                ref = _defined_name(Ref, n, context)
                nodes.update(ref.add(self.dsp, context=context))
                refs[ref.output] = None
                self.cells[ref.output] = ref
            update_references(self, nodes, refs)
            return refs

    return XlbridgeExcelModel


@dataclasses.dataclass
class ModelState:
    """What xlbridge keeps on a model of :func:`model_class` (its attribute ``xlbridge``) for one run.

    ``links``: the one file it may open and the cached linked books (None until ``defuse``: such a model
    opens nothing); ``shown``: the cells that only show an array's cell, {(SHEET, (row, col)): alias}
    (:func:`xlbridge.batch.read.aliases.find_shown`); ``aliases``: those met on the streamed sheets,
    valued after the engine unless a formula reads them; ``alias_ctx``: {SHEET: the compile context of a
    sheet holding some}; ``sparse_views``: {id(worksheet): (its :class:`_SparseSheet`, the worksheet)};
    ``cell_sets``: formulas' own ``assemble`` for this model (a cell node of several rectangles);
    ``shared``: the parts written in several of its formulas, computed once (:mod:`.subexpressions`).
    """

    links: LinkState | None = None
    shown: dict = dataclasses.field(default_factory=dict)
    aliases: AliasIndex = dataclasses.field(default_factory=AliasIndex)
    alias_ctx: dict = dataclasses.field(default_factory=dict)
    sparse_views: dict = dataclasses.field(default_factory=dict)
    cell_sets: bool = False
    shared: SharedSubexpressions = dataclasses.field(default_factory=SharedSubexpressions)


def _state(model: Any) -> ModelState:
    """The :class:`ModelState` of a model of :func:`model_class`, made at its first use."""
    state = model.xlbridge
    if state is None:
        state = model.xlbridge = ModelState()
    return state


# --------------------------------------------------------------------------------------------------
# the steps of the model (model_class) that override nothing of formulas': functions of the model


def _open_book(model: Any, state: Any, book: Any, ctx: dict, data_only: bool) -> tuple[str, dict]:
    """(the engine's key of a book, its data) for ``add_book`` of the model: the workbook itself (the one
    file the model opens), or a linked book's cached copy; any other book refused."""
    got = engine_names()
    get_nested_dicts, BOOK, SHEETS = got.get_nested_dicts, got.BOOK, got.SHEETS
    directory, filename = ctx.get("directory") or "", ctx.get("filename") or ""
    if model.basedir is None:  # the workbook itself: the one file this model opens
        if os.path.realpath(os.path.join(directory, filename)) != state.path:
            raise ExternalLinkRefused(LINK_NOT_FOLLOWED)
        model.basedir = os.path.dirname(state.path)
        state.main = key = filename.upper()
        data = get_nested_dicts(model.books, key)
        data[BOOK] = load_engine_workbook(state.path, data_only) if state.book is None else state.book
        data["external_links"] = dict(state.link_names)
        for sheet, read in state.sheets.items():  # the array formulas, as openpyxl would list them
            get_nested_dicts(model.books, key, SHEETS, sheet)["formula_references"] = dict(read.array_refs)
    elif directory in ("", ".") and filename.upper() == state.main:
        key = state.main
        data = get_nested_dicts(model.books, key)
    else:
        link = state.by_name.get(filename.upper()) if directory in ("", ".") else None
        if link is None:
            state.refused.add(book if isinstance(book, str) else filename)
            raise ExternalLinkRefused(LINK_NOT_FOLLOWED)
        key = filename.upper()
        data = get_nested_dicts(model.books, key)
        if BOOK not in data:
            data[BOOK] = cached_workbook(link)
            data["external_links"] = {}
    return key, data


def _sparse_view(model: Any, worksheet: Any) -> _SparseSheet:
    """The :class:`_SparseSheet` of a worksheet, one per sheet, kept alive with it (``complete`` caches
    max_row per sheet object)."""
    raw = worksheet._ws if isinstance(worksheet, _SparseSheet) else worksheet
    views = _state(model).sparse_views
    view = views.get(id(raw))
    if view is None or view[1] is not raw:
        view = views[id(raw)] = (_SparseSheet(raw), raw)
    return view[0]


def _begin_sheet(model: Any, worksheet: Any, context: dict) -> tuple:
    """Register a sheet with the engine; return it with the compile context and reference tables."""
    record_phase("compiling", getattr(worksheet, "title", ""))
    worksheet, context = model.add_sheet(worksheet, context)
    ctx = {"external_links": model.external_links(context)}
    ctx.update(context)
    return (worksheet, ctx, model.references, model.formula_references(context), model.formula_ranges(context))


def _push_present(model: Any, worksheet: Any, context: dict, raw: Any) -> Any:
    """Add a sheet read by openpyxl (``raw``): its cells that hold a value, array formulas' cached values
    left out."""
    await_result = engine_names().await_result
    worksheet, ctx, references, formula_references, formula_ranges = _begin_sheet(model, worksheet, context)
    for pos in _array_cells(raw):  # (the engine's own copy of the book: nothing else reads it)
        if getattr(raw._cells[pos], "data_type", None) != "f":
            del raw._cells[pos]  # a cached value: gone for this compiling and for ``complete``'s
    cells = [model.compile_cell(c, ctx, references, formula_references)
             for _, c in sorted(worksheet._cells.items())
             if hasattr(c, "value") and c.value is not None]
    for cell in cells:
        model.add_cell(await_result(cell), ctx, formula_ranges)
    return model


def _push_streamed(model: Any, worksheet: Any, context: dict, read: Any) -> Any:
    """Add a streamed sheet: formula and special cells one by one, constants as column blocks."""
    from ..read.bookdata import CellView, constant_blocks

    got, state = engine_names(), _state(model)
    worksheet, ctx, references, formula_references, formula_ranges = _begin_sheet(model, worksheet, context)
    title = str(getattr(worksheet, "title", "")).upper()
    aliases, shown = state.aliases, state.shown
    singles = []
    for pos, text in read.formulas.items():
        alias = shown.get((title, pos))
        if alias is not None:
            aliases.add(title, pos, alias)  # valued after the engine (batch.aliases), unless read
            continue
        singles.append((pos, CellView(cell_ref(*pos), text, "f")))
    if title in aliases.cells:
        state.alias_ctx[title] = (
            read, ctx, references, formula_references, formula_ranges)
    singles += [(pos, CellView(cell_ref(*pos), v, t)) for pos, (v, t) in read.special.items()]
    singles.sort(key=lambda x: x[0])
    cells = [model.compile_cell(view, ctx, references, formula_references) for _, view in singles]
    for cell in cells:
        model.add_cell(got.await_result(cell), ctx, formula_ranges)
    barriers: dict = {}
    for (r, c) in [*read.formulas, *read.special]:
        barriers.setdefault(c, []).append((r, r))
    for r1, c1, r2, c2 in read.layout.array_ranges:
        for c in range(c1, c2 + 1):
            barriers.setdefault(c, []).append((r1, r2))
    for block in constant_blocks(read.columns, barriers, empty=got.EMPTY):
        ref = f"{cell_ref(block.first_row, block.column)}:{cell_ref(block.last_row, block.column)}"
        model.add_cell(_block_cell(ref, block.values, ctx), ctx, formula_ranges)
    return model


def _compile_read_aliases(model: Any) -> None:
    """Hand the engine every showing cell (:mod:`xlbridge.batch.read.aliases`) that a formula it
    evaluates reads: any range node of this workbook covering one."""
    from ..read.bookdata import CellView

    aliases, state, alias_ctx = _state(model).aliases, _state(model).links, _state(model).alias_ctx
    if state is None or not aliases.cells:
        return
    await_result = engine_names().await_result
    seen: set = set()
    while True:
        found = []
        for node in list(model.dsp.data_nodes):
            if not isinstance(node, str) or "!" not in node or node in seen:
                continue
            seen.add(node)
            book = BOOK_OF_NODE.match(node)
            if book is None or book.group("dir") not in ("", ".") or book.group("file").upper() != state.main:
                continue
            sheet, ref = split_node(node)
            found += [(sheet, pos, alias) for pos, alias in aliases.take(sheet, ref)]
        if not found:
            return
        for sheet, first, last, formula in alias_runs(found):
            _, ctx, references, formula_references, formula_ranges = alias_ctx[sheet]
            anchor = cell_ref(*first)
            if first != last:  # a run of a column: one array formula over it, one node
                formula_references = {**formula_references, anchor: f"{anchor}:{cell_ref(*last)}"}
            cell = await_result(
                model.compile_cell(CellView(anchor, formula, "f"), ctx, references, formula_references))
            if first != last and formula.startswith("=IFERROR("):
                run_in_one_pass(cell, guarded_run_class())  # the same formula, one pass over the run
            model.add_cell(cell, ctx, formula_ranges)


def _assemble_rectangles(model: Any, cells: dict, nodes: Any, compact: int) -> None:
    """formulas' own ``_assemble_ranges`` on the streamed path, its cells given as rectangles by
    ``assemble`` (:func:`_cell_rectangles`): a range node of one rectangle is a ``_BoxAssembler``
    (a rectangle that does not meet its range adds nothing to it), one of several rectangles a
    ``_LeanAssembler`` given each rectangle's cell pairs.
    """
    _LeanAssembler, _BoxAssembler = _lean_assembler_class(), _box_assembler_class()
    got = engine_names()
    get, dsp, Token = got.get_nested_dicts, model.dsp, got.Token
    pred = dsp.dmap.pred
    if nodes is None:
        nodes = {k for k in dsp.data_nodes if k not in dsp.default_values}
    it = (k for k in nodes if not pred[k] and not isinstance(k, Token))
    ranges = []
    for n_id in it:  # (``cells``: rectangles, from ``assemble`` below)
        try:
            ra = _BoxAssembler(n_id, compact=compact)
        except ValueError:
            try:  # a range of several rectangles: the set-based assembler
                ra = _LeanAssembler(n_id, compact=compact)
            except ValueError:
                continue
        rng = ra.range.ranges[0]
        for out, rect in get(cells, "range", rng["sheet_id"], default=list):
            if isinstance(ra, _BoxAssembler):
                if not ra.push_box(out, rect):
                    break
            elif not ra.push(_rect_indices(rect), out):
                break
        single = get(cells, "cell", rng["sheet_id"])
        if isinstance(ra, _BoxAssembler):
            ra.push_cells(single)
        else:
            ra.push(single)
        ranges.append(ra)
    ranges = sorted(ranges, key=lambda x: x.missing_count() if isinstance(x, _BoxAssembler) else len(x.missing))
    for ra in ranges:
        ra.add(dsp)


def _cell_rectangles(model: Any) -> dict | None:
    """The model's cell nodes as rectangles (row1, column1, row2, column2), for ``assemble``:
    {"cell": {sheet: {(column, row): node}}, "range": {sheet: [(node, rectangle)]}}; None if a node
    has several rectangles."""
    got = engine_names()
    get, Ref = got.get_nested_dicts, got.Ref
    cells: dict = {}
    found = []
    for c in model.cells.values():
        if isinstance(c, Ref):
            continue
        rngs = c.range.ranges
        if rngs[0].get("anchor"):
            continue
        if len(rngs) != 1:
            return None
        r = rngs[0]
        found.append((c.output, r["sheet_id"], (int(r["r1"]), r["n1"], int(r["r2"]), r["n2"])))
    for output, sheet_id, (r1, n1, r2, n2) in found:
        if r1 == r2 and n1 == n2:
            get(cells, "cell", sheet_id)[(n1, r1)] = output
        else:
            get(cells, "range", sheet_id, default=list).append((output, (r1, n1, r2, n2)))
    return cells


def _error_cell(model: Any, cell: Any, context: dict, references: Any, formula_references: dict) -> Any:
    """A formula the engine cannot read, compiled as an error of its cell only (``#NAME?``; ``#REF!`` for
    a DDE link or another book), the reason kept for the cell's message."""
    value = cell.value if isinstance(cell.value, str) else getattr(cell.value, "text", "")
    value = value if isinstance(value, str) else ""
    dde, link = "|" in value, names_other_book(value)
    state = _state(model).links
    if state is not None:
        state.cell_messages[(str(context.get("sheet", "")).upper(), cell.coordinate)] = (
            DDE_NOT_FOLLOWED if dde else LINK_NOT_FOLLOWED if link else
            f"formula not understood by the formula engine: {clip(value, 60)}")
    crd = formula_references.get(cell.coordinate, cell.coordinate)
    return compile_text(model, crd, "=#REF!" if dde or link else "=#NAME?", context, references)


def _defined_name(Ref: Any, n: Any, context: Any) -> Any:
    """A global defined name compiled as formulas' ``Ref``: a name written ``[secret.xlsx]S!$A$1`` (not
    quoted, as no Excel writes it) is read as the quoted ``'[secret.xlsx]S'!$A$1`` (and so refused like any
    link), one with a DDE link or another book in it is ``#REF!``, any other the engine cannot read ``#NAME?``."""
    text = str(n.value or "")
    bare = text[1:] if text.startswith("=") else text  # a name written with its "="
    for candidate in (text, quote_other_books(text), bare, quote_other_books(bare)):
        try:
            return Ref(n.name.upper(), "=%s" % candidate, context).compile(context=context)
        except Exception as exc:
            if is_memory_error(exc):
                raise
    bad = "|" in text or names_other_book(text)
    return Ref(n.name.upper(), "=#REF!" if bad else "=#NAME?", context).compile(context=context)


def _block_cell(ref: str, values, context):
    """An engine cell holding a block of constants (the value of a range, as a column)."""
    return engine_names().Cell(ref, values, context=context, check_formula=False)


def _array_cells(worksheet: Any) -> set:
    """The (row, column) of every cell present inside an array formula's range, of an openpyxl worksheet
    (the formula's own cell among them: the caller keeps every formula cell). A value cached there
    (LibreOffice saves the array's value, errors included, in every cell of its range) is the array's
    output, not a constant: the stock reading drops it before compiling (``complete`` would compile it
    for a formula reading that cell), as the streamed one skips it (tests/batch/test_engine_paths.py,
    worked by hand and by LibreOffice).

    >>> import openpyxl
    >>> from openpyxl.worksheet.formula import ArrayFormula
    >>> ws = openpyxl.Workbook().active
    >>> ws["B1"] = ArrayFormula("B1:C2", "=A1:B2*2")
    >>> ws["C1"], ws["B2"], ws["D2"] = "#NAME?", 4, 5  # (C2 holds nothing)
    >>> sorted(_array_cells(ws))
    [(1, 2), (1, 3), (2, 2)]
    """

    out: set = set()
    present = getattr(worksheet, "_cells", {})
    for ref in (getattr(worksheet, "array_formulae", None) or {}).values():
        try:
            r1, c1, r2, c2 = parse_range(str(ref))
        except WorkbookError:
            continue  # (openpyxl read it: the engine's own compiling decides)
        if (r2 - r1 + 1) * (c2 - c1 + 1) <= len(present):  # the range's cells, or the sheet's: the fewer
            found = [(r, c) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1) if (r, c) in present]
        else:
            found = [(r, c) for r, c in present if r1 <= r <= r2 and c1 <= c <= c2]
        out.update(found)
    return out


def load_engine_workbook(path: Any, data_only: bool = False) -> Any:
    """The engine's reader (openpyxl) on the one allowed file: also the check that openpyxl can read the book."""
    load = stock_load_workbook()
    # keep_links=True: openpyxl reads the externalLink parts of the package (never the linked files), so
    # a damaged one is found here; what it reads is not used (links come from defuse_external_links)
    return load(path, data_only=data_only, keep_links=True)


#: what the dynamic loader says when a module's shared library cannot be mapped within the address-space limit
#: (``dlopen`` failing for want of memory: an ImportError, not a MemoryError)
_NO_MAPPING = ("failed to map segment", "cannot allocate memory")


def is_memory_error(exc: BaseException | None) -> bool:
    """True when ``exc`` or what caused it is the memory limit: a MemoryError, or an extension module that could not
    be mapped (an import under the limit).

    >>> is_memory_error(ImportError("/x/unicodedata.so: failed to map segment from shared object"))
    True
    >>> is_memory_error(ImportError("No module named 'x'")), is_memory_error(ValueError("x"))
    (False, False)
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, MemoryError):
            return True
        if isinstance(exc, ImportError) and any(words in str(exc).lower() for words in _NO_MAPPING):
            return True
        inner = getattr(exc, "ex", None)
        exc = inner if isinstance(inner, BaseException) else (exc.__cause__ or exc.__context__)
    return False


# --------------------------------------------------------------------------------------------------
# the child process


_PHASE_SINK = None  # the shared buffer the child writes its phase to (None outside the child)

PHASE_SIZE = 512


def record_phase(kind: str, sheet: str = "") -> None:
    """Record what the engine is doing (``kind``, ``sheet``), for a limit message naming where it hit."""
    sink = _PHASE_SINK
    if sink is None:
        return
    data = f"{kind}\x1f{sheet}".encode("utf-8", "replace")[: PHASE_SIZE - 1]
    sink[:PHASE_SIZE] = data.ljust(PHASE_SIZE, b"\0")


_COMPILING: tuple[str, str] | None = None  # (SHEET, ref) of the cell being compiled


def compiling_cell() -> tuple[str, str] | None:
    """(SHEET, ref) of the cell whose formula the model compiles now (its range for an array formula), or
    None: a formula of constants only is evaluated while it is compiled, outside the engine's evaluation
    of cells."""
    return _COMPILING


def set_phase_sink(sink: Any) -> None:
    """Make :func:`record_phase` write to ``sink`` (the child's shared buffer; ``None``: nowhere)."""
    global _PHASE_SINK
    _PHASE_SINK = sink
