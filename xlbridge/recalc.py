"""Recalculate every formula of a workbook headlessly and write the results as cached values.

This is ``xlbridge recalc BOOK``. The steps, in order:

1. :func:`xlbridge.safety.check_workbook` refuses hostile or broken files before anything parses
   them (zip bombs, entity bombs, XXE, non-workbooks, truncated or password-protected files).
2. Every worksheet part is scanned (:func:`xlbridge.xlsxpatch.scan_sheet`) for its formula cells
   and array-formula ranges.
3. The formula engine of the `formulas <https://pypi.org/project/formulas/>`_ package evaluates
   the whole workbook, standard Excel functions and the xlbridge functions
   (``xlbridge.udfs.EXCEL_FUNCTIONS``, registered under their Excel names) alike, in a child process
   whose address space is limited to ``limits.max_memory`` (``RLIMIT_AS``) and which is killed after
   ``limits.max_seconds``.
4. The results are spliced into a *copy* of the file as the cells' cached values
   (:func:`xlbridge.xlsxpatch.patch_sheet`, :func:`xlbridge.xlsxpatch.copy_zip`); nothing is re-saved
   through openpyxl, so formulas, VBA, charts, styles, validation and defined names stay as they were.
   The copy is written to a temporary file in the destination folder, fsynced and renamed over the
   destination (atomic). With ``in_place=True`` the input is first copied to ``BOOK.bak`` (e.g.
   ``pairs.xlsx.bak``) and then replaced atomically; otherwise the input is never written.

How the xlbridge functions see their arguments (what xlwings delivers in Excel): a one-cell range
or a scalar comes as a scalar, a larger range as a list of rows (2-D list); numbers as ``float``,
blanks as ``None``, error cells as their error text such as ``"#N/A"`` (xlwings with
``err_to_str=True``, which every xlbridge function declares), text as ``str``, booleans as ``bool``.
Their results: a scalar or a 2-D list/array; ``None`` is shown blank (an empty string, as xlwings
does), the strings ``"#VALUE!"``, ``"#N/A"``, ... (or an object with a ``code`` attribute holding one)
become Excel errors. An exception raised by the function becomes ``#VALUE!`` in the cell and its
message is reported. A :class:`xlbridge.excel.CallError` result (the one short text of a call that
cannot run at all) is written as text, as Excel shows it, and reported like an error (code
``message``). A result smaller than its array range is repeated like Excel does (a scalar, a single
row or a single column); the other cells get ``#N/A``.

>>> default_output_path("workbooks/pairs.xlsx")
'workbooks/pairs-recalculated.xlsx'
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import sys
import tempfile
import time

from .errors import WorkbookError
from .safety import DEFAULT_LIMITS, SafetyLimits, check_workbook
from .xlsxpatch import (
    ExcelErrorValue,
    cell_ref,
    copy_zip,
    patch_sheet,
    scan_sheet,
    strip_empty_cells,
    workbook_sheet_parts,
)

__all__ = [
    "RecalcCellError",
    "RecalcReport",
    "default_output_path",
    "recalc_workbook",
    "recalc_values",
    "xlbridge_excel_functions",
    "ERROR_MEANINGS",
]

ERROR_MEANINGS = {
    "#NULL!": "ranges do not intersect",
    "#DIV/0!": "division by zero",
    "#VALUE!": "wrong type of argument or value",
    "#REF!": "invalid cell reference",
    "#NAME?": "unknown function or name",
    "#NUM!": "invalid number",
    "#N/A": "value not available",
    "#GETTING_DATA": "value not available yet",
    "#SPILL!": "array result cannot spill",
    "#CALC!": "calculation error",
    "#CIRC!": "circular reference",
}


@dataclasses.dataclass(frozen=True)
class RecalcCellError:
    """One cell that evaluated to an Excel error, with what is known about why.

    >>> str(RecalcCellError("Travellers", "K7", "#VALUE!", "MATCHPOINTS: impossible score: 410"))
    'Travellers!K7: #VALUE! MATCHPOINTS: impossible score: 410'
    """

    sheet: str
    cell: str
    code: str
    message: str = ""

    def __str__(self):
        quoted = self.sheet if self.sheet.replace("_", "").isalnum() else "'" + self.sheet.replace("'", "''") + "'"
        return f"{quoted}!{self.cell}: {self.code} {self.message}".rstrip()


@dataclasses.dataclass(frozen=True)
class RecalcReport:
    """What a recalculation did: files, counts, the cells that evaluated to errors, time taken.

    >>> r = RecalcReport("a.xlsx", "a-recalculated.xlsx", None, 1, 2, 2,
    ...                  (RecalcCellError("S", "A1", "#DIV/0!", "division by zero"),), 0.25, False)
    >>> r.ok, r.to_dict()["error_count"], r.to_dict()["errors"][0]["cell"]
    (False, 1, 'A1')
    """

    source: str
    output: str
    backup: str | None
    sheets: int
    formula_cells: int
    cells_written: int
    errors: tuple[RecalcCellError, ...]
    seconds: float
    has_vba: bool

    @property
    def ok(self) -> bool:
        """True when no cell evaluated to an error."""
        return not self.errors

    def to_dict(self) -> dict:
        """A JSON-ready summary (what ``xlbridge recalc --json`` prints)."""
        return {
            "source": self.source,
            "output": self.output,
            "backup": self.backup,
            "sheets": self.sheets,
            "formula_cells": self.formula_cells,
            "cells_written": self.cells_written,
            "error_count": len(self.errors),
            "errors": [dataclasses.asdict(e) for e in self.errors],
            "seconds": round(self.seconds, 3),
            "has_vba": self.has_vba,
            "ok": self.ok,
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON text."""
        return json.dumps(self.to_dict(), indent=2)


def default_output_path(book) -> str:
    """Return BOOK's path with ``-recalculated`` before the suffix, in the same folder.

    >>> default_output_path("season.xlsm")
    'season-recalculated.xlsm'
    """
    root, ext = os.path.splitext(os.fspath(book))
    return f"{root}-recalculated{ext or '.xlsx'}"


def xlbridge_excel_functions() -> dict:
    """Return ``xlbridge.udfs.EXCEL_FUNCTIONS`` ({EXCEL NAME: callable}), or {} if that layer is absent."""
    try:
        from . import udfs
    except ImportError:
        return {}
    return dict(getattr(udfs, "EXCEL_FUNCTIONS", {}) or {})


# --------------------------------------------------------------------------------------------------
# adapters between the formulas engine and Excel-shaped Python functions


_CALL_ERRORS = "\x00call errors"  # key of {message: function name} in the messages dict
_OUT_OF_MEMORY = "\x00out of memory"  # set when a custom function raised MemoryError


def _engine():
    import formulas
    import numpy as np
    import schedula as sh
    from formulas.functions import Array, wrap_func
    from formulas.ranges import Ranges
    from formulas.tokens.operand import Error, XlError

    formulas.get_functions()  # loads every function module (scipy.stats among them) once per process
    return formulas, np, sh, Array, wrap_func, Ranges, Error, XlError


def _adapt_function(name: str, fn, messages: dict):
    """Wrap an Excel-shaped callable for the formulas engine (see the module docstring)."""
    formulas, np, sh, Array, wrap_func, Ranges, Error, XlError = _engine()

    def cell_in(v):
        if isinstance(v, XlError):
            return str(v)  # "#N/A": xlwings' err_to_str=True, which the xlbridge functions declare
        if v is sh.EMPTY or v is None:
            return None
        if isinstance(v, (bool, np.bool_)):
            return bool(v)
        if isinstance(v, (int, float, np.integer, np.floating)):
            return float(v)
        return v

    def arg_in(a):
        if isinstance(a, Ranges):
            a = a.value
        if isinstance(a, np.ndarray):
            if a.ndim == 0:
                return cell_in(a.item())
            if a.ndim == 1:
                a = a.reshape(1, -1)
            if a.shape == (1, 1):
                return cell_in(a[0, 0])
            return [[cell_in(v) for v in row] for row in a.tolist()]
        return cell_in(a)

    def cell_out(v):
        if v is None:
            return ""
        code = getattr(v, "code", None)
        if isinstance(code, str) and code in Error.errors:
            msg = getattr(v, "message", "")
            if msg:
                messages.setdefault(name, []).append(str(msg))
            return Error.errors[code]
        if isinstance(v, str):
            if v in Error.errors:
                return Error.errors[v]
            if type(v).__name__ == "CallError":  # xlbridge.excel.CallError: the call could not run
                messages.setdefault(_CALL_ERRORS, {})[str(v)] = name
            return str(v)
        if isinstance(v, (bool, np.bool_)):
            return bool(v)
        if isinstance(v, (np.integer, np.floating)):
            v = v.item()
        if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
            return Error.errors["#NUM!"]
        if isinstance(v, (int, float)):
            return v
        try:  # Fraction, Decimal and other numbers
            return float(v)
        except (TypeError, ValueError):
            return str(v)

    def wrapper(*args):
        try:
            res = fn(*[arg_in(a) for a in args])
        except MemoryError:  # over the memory limit: the whole run is refused, not just this cell
            messages[_OUT_OF_MEMORY] = True
            return np.asarray([[Error.errors["#VALUE!"]]], object).view(Array)
        except Exception as exc:  # any failure is #VALUE! in the cell, with the message reported
            messages.setdefault(name, []).append(str(exc) or type(exc).__name__)
            return np.asarray([[Error.errors["#VALUE!"]]], object).view(Array)
        if isinstance(res, np.ndarray) or isinstance(res, (list, tuple)):
            rows = res.tolist() if isinstance(res, np.ndarray) else [
                r.tolist() if isinstance(r, np.ndarray) else r for r in res]
            if rows and not isinstance(rows[0], (list, tuple)):
                rows = [rows]  # a 1-D result is a row, as in xlwings
            if not rows:
                return np.asarray([[Error.errors["#N/A"]]], object).view(Array)
            width = max(len(r) for r in rows)
            out = np.empty((len(rows), width), object)
            out[:, :] = Error.errors["#N/A"]
            for i, r in enumerate(rows):
                for j, v in enumerate(r):
                    out[i, j] = cell_out(v)
            return out.view(Array)
        return np.asarray([[cell_out(res)]], object).view(Array)

    wrapper.__name__ = name
    return wrap_func(wrapper, ranges=True)


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


def _sparse_model_class():
    """``formulas.ExcelModel`` that compiles only the cells that hold something.

    The stock ``push`` walks ``worksheet.iter_rows()``, which visits (and creates) every cell of the
    sheet's bounding box: for a 10,000-row template that is a quarter of a million blank cells, each
    made into a graph node. Blank cells need no node (a reference to one reads as empty either way),
    so this walks openpyxl's dict of existing cells instead and skips those without a value. The body
    is otherwise the stock one of formulas 1.3. ``add_sheet`` hands the stock ``complete`` step a
    :class:`_SparseSheet`, so the blank cells of referenced ranges get no node either.
    """
    import formulas
    import schedula as sh

    class SparseExcelModel(formulas.ExcelModel):
        def add_sheet(self, worksheet, context):
            worksheet, ctx = super().add_sheet(worksheet, context)
            raw = worksheet._ws if isinstance(worksheet, _SparseSheet) else worksheet
            views = self.__dict__.setdefault("_xlbridge_sparse_views", {})
            # one view per sheet, kept alive with it: ``complete`` caches max_row per sheet object
            view = views.get(id(raw))
            if view is None or view[1] is not raw:
                view = views[id(raw)] = (_SparseSheet(raw), raw)
            return view[0], ctx

        def push(self, worksheet, context):
            existing = getattr(worksheet, "_cells", None)
            if not isinstance(existing, dict):
                return super().push(worksheet, context)
            worksheet, context = self.add_sheet(worksheet, context)
            references = self.references
            formula_references = self.formula_references(context)
            formula_ranges = self.formula_ranges(context)
            ctx = {"external_links": self.external_links(context)}
            ctx.update(context)
            cells = [self.compile_cell(c, ctx, references, formula_references)
                     for _, c in sorted(worksheet._cells.items())
                     if hasattr(c, "value") and c.value is not None]
            for cell in cells:
                self.add_cell(sh.await_result(cell), ctx, formula_ranges)
            return self

    return SparseExcelModel


def _value_out(v, sh, np, XlError):
    """Convert one engine value to a plain Python value for writing (None = blank)."""
    if v is sh.EMPTY:
        return None
    if isinstance(v, XlError):
        return ExcelErrorValue(str(v))
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (np.integer, np.floating)):
        return v.item()
    return v


def recalc_values(path: str, targets: dict, functions: dict | None = None, *, progress: bool = False) -> tuple:
    """Evaluate the workbook at ``path`` with the formulas engine; return (values, messages).

    ``targets`` is {sheet name: {"cells": [(row, col), ...], "arrays": [(r1, c1, r2, c2), ...]}};
    ``values`` is {sheet name: {(row, col): value}} with values as in
    :func:`xlbridge.xlsxpatch.patch_sheet`; ``messages`` is {FUNCTION NAME: [message, ...]} from
    the custom functions. Runs in the calling process (no limits): use :func:`recalc_workbook`.
    """
    import functools
    import types

    formulas, np, sh, Array, wrap_func, Ranges, Error, XlError = _engine()
    import formulas.excel as fx
    import tqdm

    registry = formulas.get_functions()
    messages: dict = {}
    saved = {}
    for name, fn in (functions or {}).items():
        for key in (name.upper(), "_XLUDF." + name.upper()):
            saved[key] = registry.get(key)
            registry[key] = _adapt_function(name.upper(), fn, messages)
    old_tqdm = fx.tqdm
    fx.tqdm = types.SimpleNamespace(tqdm=functools.partial(
        tqdm.tqdm, disable=not progress, file=sys.stderr, desc="compiling formulas", leave=False))
    try:
        model = _sparse_model_class()().loads(path).finish()
        if progress:
            print("xlbridge recalc: evaluating ...", file=sys.stderr)
        solution = model.calculate()
        if messages.get(_OUT_OF_MEMORY):
            raise MemoryError("a custom function ran out of memory")
    finally:
        fx.tqdm = old_tqdm
        for key, fn in saved.items():
            if fn is None:
                registry.pop(key, None)
            else:
                registry[key] = fn
    # index results by (SHEET, ref)
    by_ref: dict = {}
    for key, val in solution.items():
        if not isinstance(key, str) or "!" not in key:
            continue
        sheet_part, ref = key.rsplit("!", 1)
        sheet = sheet_part.strip("'")
        sheet = (sheet.split("]", 1)[1] if "]" in sheet else sheet).replace("''", "'")
        by_ref[(sheet.upper(), ref.upper())] = val
    values: dict = {}
    for sheet, tg in targets.items():
        got: dict = {}
        up = sheet.upper()
        for r1, c1, r2, c2 in tg.get("arrays", ()):
            ref = cell_ref(r1, c1) if (r1, c1) == (r2, c2) else f"{cell_ref(r1, c1)}:{cell_ref(r2, c2)}"
            val = by_ref.get((up, ref))
            arr = getattr(val, "value", None)
            if arr is None:
                continue
            arr = np.asarray(arr, object)
            if arr.ndim < 2:
                arr = arr.reshape(1, -1)
            for i in range(r2 - r1 + 1):
                for j in range(c2 - c1 + 1):
                    # Excel fills an array range from a smaller result by repeating a single row or
                    # column (or a scalar); other cells outside the result get #N/A
                    ii = 0 if arr.shape[0] == 1 else i
                    jj = 0 if arr.shape[1] == 1 else j
                    if ii < arr.shape[0] and jj < arr.shape[1]:
                        v = _value_out(arr[ii, jj], sh, np, XlError)
                    else:
                        v = ExcelErrorValue("#N/A")
                    got[(r1 + i, c1 + j)] = v
        for r, c in tg.get("cells", ()):
            if (r, c) in got:
                continue
            val = by_ref.get((up, cell_ref(r, c)))
            arr = getattr(val, "value", None)
            if arr is None:
                got[(r, c)] = ExcelErrorValue("#N/A", "the formula engine gave no value")
                continue
            arr = np.asarray(arr, object)
            v = arr.flat[0] if arr.size else sh.EMPTY
            v = _value_out(v, sh, np, XlError)
            got[(r, c)] = 0 if v is None else v  # a formula giving a blank cell shows 0 in Excel
        values[sheet] = got
    return values, messages


# --------------------------------------------------------------------------------------------------
# the bounded child process


def _child(conn, path, targets, functions, progress, max_memory):
    try:
        if max_memory:
            try:
                import resource

                resource.setrlimit(resource.RLIMIT_AS, (max_memory, max_memory))
            except (ImportError, ValueError, OSError):
                pass
        result = recalc_values(path, targets, functions, progress=progress)
        conn.send(("ok", result))
    except MemoryError:
        conn.send(("memory", None))
    except BaseException as exc:  # report anything to the parent as one line
        conn.send(("error", f"{type(exc).__name__}: {exc}".splitlines()[0][:300]))
    finally:
        conn.close()


def _run_bounded(path, targets, functions, progress, limits: SafetyLimits, name: str, tick=None):
    import multiprocessing as mp

    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else "spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, path, targets, functions, progress, limits.max_memory),
                       daemon=True)
    proc.start()
    child.close()
    try:
        deadline = time.monotonic() + limits.max_seconds
        while not parent.poll(min(0.5, max(deadline - time.monotonic(), 0))):
            if tick is not None:
                tick()
            if time.monotonic() >= deadline:
                break
        if not parent.poll(0):
            raise WorkbookError(f"refused: recalculation took longer than the limit of {limits.max_seconds:g} s",
                                where=name)
        try:
            status, payload = parent.recv()
        except EOFError:
            proc.join(5)
            raise WorkbookError(f"refused: the formula engine died (exit code {proc.exitcode}; out of memory?)",
                                where=name) from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        parent.close()
    if status == "memory":
        raise WorkbookError(f"refused: recalculation needs more memory than the limit of "
                            f"{limits.max_memory >> 20} MiB", where=name)
    if status == "error":
        raise WorkbookError(f"the formula engine failed: {payload}", where=name)
    return payload


# --------------------------------------------------------------------------------------------------




_CALLED = re.compile(r"(?<![A-Z0-9_.])(?:_XLUDF\.)?([A-Z_][A-Z0-9_.]*)\s*\(")


def _messages_for(formula: str, messages: dict) -> str:
    """The messages of the custom functions that ``formula`` calls (``IMPS`` is not ``CROSS_IMPS``).

    >>> _messages_for("=CROSS_IMPS(A1:A4)", {"IMPS": ["bad"], "CROSS_IMPS": ["board 2: 7 scores"]})
    'CROSS_IMPS: board 2: 7 scores'
    """
    called = set(_CALLED.findall(formula.upper()))
    found = []
    for fname, msgs in messages.items():
        if fname in (_CALL_ERRORS, _OUT_OF_MEMORY):
            continue
        if fname in called:
            uniq = list(dict.fromkeys(msgs))
            more = f" (+{len(uniq) - 3} more)" if len(uniq) > 3 else ""
            found.append(f"{fname}: " + "; ".join(uniq[:3]) + more)
    return " | ".join(found)


def _write_atomic(src: str, dest: str, replacements: dict) -> None:
    folder = os.path.dirname(os.path.abspath(dest))
    fd, tmp = tempfile.mkstemp(prefix=".xlbridge-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            copy_zip(src, fh, replacements)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, dest)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    try:  # make the rename itself durable
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


class _Progress:
    """A tqdm bar on stderr over the phases of a run (checking, scanning, evaluating, writing)."""

    def __init__(self, enabled: bool, name: str):
        self._bar = None
        if enabled:
            import tqdm

            self._bar = tqdm.tqdm(total=None, desc=name, unit=" steps", file=sys.stderr, leave=False,
                                  bar_format="{desc}: {elapsed}{postfix}")

    def phase(self, text: str) -> None:
        if self._bar is not None:
            self._bar.set_postfix_str(text)
            self._bar.update(1)

    def tick(self) -> None:
        if self._bar is not None:
            self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def recalc_workbook(book, output=None, *, in_place: bool = False, functions: dict | None = None,
                    progress: bool = False, limits: SafetyLimits | None = None,
                    isolate: bool = True) -> RecalcReport:
    """Recalculate every formula of ``book`` and write the results as cached values into a copy.

    ``output``: where to write (default :func:`default_output_path`); ``in_place=True`` replaces
    ``book`` itself atomically after copying it to ``book + ".bak"``. ``functions``: {EXCEL NAME:
    callable} for the custom functions (default :func:`xlbridge_excel_functions`). ``limits``:
    :class:`xlbridge.safety.SafetyLimits` (file checks, and memory/time of the engine when
    ``isolate`` is true, the default). Raises :class:`xlbridge.errors.WorkbookError` when the file is
    refused; cells evaluating to Excel errors are listed in the report (``report.errors``).
    """
    start = time.perf_counter()
    limits = DEFAULT_LIMITS if limits is None else limits
    src = os.fspath(book)
    name = os.path.basename(src)
    if in_place and output is not None and os.path.abspath(os.fspath(output)) != os.path.abspath(src):
        raise WorkbookError("give either an output file or in-place, not both", where=name)
    dest = src if in_place else os.fspath(output) if output is not None else default_output_path(src)
    if not in_place and os.path.exists(dest) and os.path.samefile(dest, src):
        raise WorkbookError("refusing to overwrite the input file; use --in-place to replace it", where=name)
    bar = _Progress(progress, name)
    bar.phase("checking the file")
    info = check_workbook(src, limits=limits, name=name)
    functions = xlbridge_excel_functions() if functions is None else functions

    import zipfile

    targets, layouts, parts, stripped, covered = {}, {}, {}, {}, 0
    with zipfile.ZipFile(src) as zf:
        for sheet, part in workbook_sheet_parts(zf):
            bar.phase(f"scanning {sheet}")
            data = zf.read(part)
            layout = scan_sheet(data, part=part)
            stripped[part] = strip_empty_cells(data, layout)
            cells = set(layout.formula_cells)
            covered += len(cells) + sum((r2 - r1 + 1) * (c2 - c1 + 1) for r1, c1, r2, c2 in layout.array_ranges)
            if covered > limits.max_formula_cells:
                raise WorkbookError(f"refused: more than {limits.max_formula_cells} formula and array-formula "
                                    f"cells (sheet {sheet})", where=name)
            if not cells and not layout.array_ranges:
                continue
            targets[sheet] = {"cells": sorted(cells), "arrays": list(layout.array_ranges)}
            layouts[sheet] = layout
            parts[sheet] = (part, data)
    if targets:
        bar.phase("loading the formula engine")
        _engine()  # import the engine here, once: forked children inherit it instead of importing it again
        with tempfile.TemporaryDirectory(prefix="xlbridge-recalc-") as tmpdir:
            # the engine reads a private copy without the styled blank cells (much faster to load)
            engine_copy = os.path.join(tmpdir, name)
            copy_zip(src, engine_copy, stripped)
            bar.phase(f"evaluating {sum(len(t['cells']) for t in targets.values())} formulas")
            if isolate:
                values, messages = _run_bounded(engine_copy, targets, functions, False, limits, name,
                                                tick=bar.tick)
            else:
                values, messages = recalc_values(engine_copy, targets, functions)
    else:
        values, messages = {}, {}
    replacements, errors, written = {}, [], 0
    call_errors = messages.get(_CALL_ERRORS, {})
    for sheet, (part, data) in parts.items():
        bar.phase(f"writing {sheet}")
        layout = layouts[sheet]
        vals = values.get(sheet, {})
        anchors = {}
        for r1, c1, r2, c2 in layout.array_ranges:
            for r in range(r1, r2 + 1):
                for c in range(c1, c2 + 1):
                    anchors[(r, c)] = (r1, c1)
        for (r, c), v in sorted(vals.items()):
            if isinstance(v, ExcelErrorValue):
                formula = layout.formula_cells.get(anchors.get((r, c), (r, c)), "")
                msg = v.message or _messages_for(formula, messages) or ERROR_MEANINGS.get(v.code, "")
                errors.append(RecalcCellError(sheet, cell_ref(r, c), v.code, msg))
            elif isinstance(v, str) and v in call_errors:
                errors.append(RecalcCellError(sheet, cell_ref(r, c), "message", v))
        replacements[part] = patch_sheet(data, layout, vals)
        written += len(vals)
    backup = None
    if in_place:
        backup = src + ".bak"
        shutil.copy2(src, backup)
    bar.phase(f"saving {os.path.basename(dest)}")
    _write_atomic(src, dest, replacements)
    bar.close()
    return RecalcReport(
        source=src, output=dest, backup=backup, sheets=len(targets),
        formula_cells=sum(len(t["cells"]) for t in targets.values()), cells_written=written,
        errors=tuple(errors), seconds=time.perf_counter() - start, has_vba=info.has_vba,
    )
