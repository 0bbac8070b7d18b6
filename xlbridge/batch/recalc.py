"""Recalculate every formula of a workbook headlessly and write the results as cached values.

This is ``xlbridge recalc BOOK``, written to run on a server for files uploaded by anyone
(docs/recalc.md, "Running it on a server"). The steps, in order:

1. Leftovers of killed runs are removed (:func:`xlbridge.batch.safety.remove_stale_leftovers`), the
   destination is locked (:class:`xlbridge.batch.safety.BookLock`), and the input is copied into a private
   temporary folder (:func:`xlbridge.batch.safety.snapshot_file`: a FIFO, device or folder is refused at
   once); everything after reads only that snapshot.
2. :func:`xlbridge.batch.safety.check_workbook` refuses hostile or broken files before anything parses
   them (zip bombs, entity bombs, XXE, non-workbooks, truncated or password-protected files,
   relationships leaving the package, missing sheets) and counts cells, rows, shared strings,
   styles and formula lengths against the limits while the XML streams.
3. Every worksheet part is scanned (:func:`xlbridge.batch.xlsxpatch.scan_sheet`) for its formula cells
   and array-formula ranges; the cached copies of linked workbooks are read
   (:func:`xlbridge.batch.xlsxpatch.read_external_links`).
4. The formula engine of the `formulas <https://pypi.org/project/formulas/>`_ package evaluates
   the whole workbook, standard Excel functions and the xlbridge functions
   (``xlbridge.udfs.EXCEL_FUNCTIONS``, registered under their Excel names) alike, in a
   :class:`ChildProcess`: its own session, killed with the parent, address space limited to
   ``limits.max_memory``, a time limit of ``limits.max_seconds``, working in an empty private folder,
   unable to open any file but its copy of the workbook. :func:`_defuse_external_links` makes the
   engine serve links to other workbooks from Excel's cached copy (as Excel does when links are not
   updated) or as ``#REF!`` ("link to another workbook not followed"); it never opens another file.
5. The results are spliced into a *copy* of the file as the cells' cached values
   (:func:`xlbridge.batch.xlsxpatch.patch_sheet`, :func:`xlbridge.batch.xlsxpatch.copy_zip`); nothing is re-saved
   through openpyxl, so formulas, VBA, charts, styles, validation and defined names stay as they were.
   The copy is written atomically (:func:`xlbridge.batch.safety.write_atomic`). With ``in_place=True`` the
   previous book is kept as ``BOOK.bak`` (e.g. ``pairs.xlsx.bak``, itself written atomically) and the
   book keeps its mode and owner; otherwise the input is never written.

How the xlbridge functions see their arguments (what xlwings delivers in Excel): a one-cell range
or a scalar comes as a scalar, a larger range as a list of rows (2-D list); numbers as ``float``,
blanks as ``None``, error cells as their error text such as ``"#N/A"`` (xlwings with
``err_to_str=True``, which every xlbridge function declares), text as ``str``, booleans as ``bool``.
Their results: a scalar or a 2-D list/array; ``None`` is shown blank (an empty string, as xlwings
does), the strings ``"#VALUE!"``, ``"#N/A"``, ... (or an object with a ``code`` attribute holding one)
become Excel errors; a number beyond a double (a huge ``int`` or ``Fraction``), NaN or infinity is
``#NUM!``. An exception raised by the function becomes ``#VALUE!`` in the cell and its message is
reported (one line, clipped); a ``MemoryError`` refuses the whole run with the memory limit named. A
:class:`xlbridge.excel.CallError` result (the one short text of a call that cannot run at all) is
written as text, as Excel shows it, and reported like an error (code ``message``). A result smaller
than its array range is repeated like Excel does (a scalar, a single row or a single column); the
other cells get ``#N/A``. Text longer than Excel's 32,767 characters is clipped, with a warning.

>>> default_output_path("workbooks/pairs.xlsx")
'workbooks/pairs-recalculated.xlsx'
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import re
import signal
import stat
import sys
import time

from ..core.errors import WorkbookLimitError, WorkbookError
from .safety import (
    DEFAULT_LIMITS,
    EXCEL_MAX_TEXT,
    BookLock,
    SafetyLimits,
    check_regular_file,
    check_workbook,
    clip,
    one_line,
    private_tempdir,
    remove_stale_leftovers,
    scrub_paths,
    snapshot_file,
    write_atomic,
)
from .xlsxpatch import (
    ExcelErrorValue,
    cell_ref,
    copy_zip,
    patch_sheet,
    read_external_links,
    scan_sheet,
    strip_empty_cells,
)
from .calcprops import drop_formulas, drop_part, set_calc_properties, set_print_areas
from .capacity import PRINT_NAME, capacity_areas, first_overflow, last_used_row

__all__ = [
    "RecalcCellError",
    "RecalcReport",
    "ChildProcess",
    "EngineStopped",
    "ExternalLinkRefused",
    "default_output_path",
    "recalc_workbook",
    "recalc_values",
    "xlbridge_excel_functions",
    "ERROR_MEANINGS",
    "LINK_NOT_FOLLOWED",
    "ENGINE_PATH",
    "evaluate_workbook",
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

LINK_NOT_FOLLOWED = "link to another workbook not followed"
#: Key of the messages dict saying which path the engine took: "ranges" (constants as range blocks
#: from the streamed sheets) or "cells" (openpyxl read the book; one node per cell).
ENGINE_PATH = "\x00engine path"
DDE_NOT_FOLLOWED = "link to another program (DDE) not followed"
_ENGINE_SUFFIXES = (".xlsx", ".xlsm", ".xltx", ".xltm")


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
        return f"{_qualified(self.sheet, self.cell)}: {self.code} {self.message}".rstrip()


def _qualified(sheet: str, cell: str) -> str:
    """``Sheet!A1``, the sheet quoted as Excel writes it when needed (``'My sheet'!A1``).

    >>> _qualified("Travellers", "K7"), _qualified("O'Brien scores", "A1")
    ('Travellers!K7', "'O''Brien scores'!A1")
    """
    quoted = sheet if sheet.replace("_", "").isalnum() else "'" + sheet.replace("'", "''") + "'"
    return f"{quoted}!{cell}"


@dataclasses.dataclass(frozen=True)
class RecalcReport:
    """What a recalculation did: files, counts, the cells that evaluated to errors, warnings, time taken.

    >>> r = RecalcReport("a.xlsx", "a-recalculated.xlsx", None, 1, 2, 2,
    ...                  (RecalcCellError("S", "A1", "#DIV/0!", "division by zero"),), 0.25, False)
    >>> r.ok, r.to_dict()["error_count"], r.to_dict()["errors"][0]["cell"], r.warnings
    (False, 1, 'A1', ())
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
    warnings: tuple[str, ...] = ()

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
            "warnings": list(self.warnings),
            "seconds": round(self.seconds, 3),
            "has_vba": self.has_vba,
            "ok": self.ok,
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON text."""
        return json.dumps(self.to_dict(), indent=2)


def default_output_path(book, *, values_only: bool = False) -> str:
    """Return BOOK's path with ``-recalculated`` (``-values`` for a values-only copy) before the suffix.

    >>> default_output_path("season.xlsm"), default_output_path("season.xlsx", values_only=True)
    ('season-recalculated.xlsm', 'season-values.xlsx')
    """
    root, ext = os.path.splitext(os.fspath(book))
    return f"{root}-{'values' if values_only else 'recalculated'}{ext or '.xlsx'}"


def xlbridge_excel_functions() -> dict:
    """Return the xlbridge Excel functions ({EXCEL NAME: callable}), as ``xlbridge.udfs.EXCEL_FUNCTIONS``.

    Taken from the Excel layer's table (:func:`xlbridge.excel.runtime.plain_functions`), not from
    :mod:`xlbridge.udfs`: a batch run never imports xlwings.
    """
    from ..excel.runtime import plain_functions

    return plain_functions()


# --------------------------------------------------------------------------------------------------
# adapters between the formulas engine and Excel-shaped Python functions


_CALL_ERRORS = "\x00call errors"  # key of {message: function name} in the messages dict
_LIMIT_CALLS = "\x00limit calls"  # key of {message: function name}: the calls refused over a work limit
_FORMULA_REASONS = "\x00formula reasons"  # key of {(SHEET, ref): [why]}: reasons of error cells, by formula
_CELL_MESSAGES = "\x00cell messages"  # key of {(SHEET, ref): message} (formulas the engine cannot read, DDE)
_UNFOLLOWED = "\x00unfollowed"  # key of {(SHEET, ref)} of cells that depend on a link not followed
_MAX_MESSAGES = 1000  # distinct messages kept per function (a column of failing calls repeats itself)


@functools.lru_cache(maxsize=None)
def _engine():
    """Import the formula engine once per process (forked children inherit it).

    Its function registry is :class:`xlbridge.batch.registry.LazyFunctions`: a function module is
    imported when the book uses one of its functions (SciPy only when a function calls it).
    """
    import formulas
    import numpy as np
    import schedula as sh
    from formulas.functions import Array, wrap_func
    from formulas.ranges import Ranges
    from formulas.tokens.operand import Error, XlError

    from .registry import install

    install()
    import mimetypes

    import openpyxl  # noqa: F401  (what the engine's child uses, loaded before it is sandboxed)
    import openpyxl.formula.translate  # noqa: F401  (shared formulas, read in the child)

    if not mimetypes.inited:  # openpyxl guesses image types; the sandboxed child may not read /etc/mime.types
        mimetypes.init()
    return formulas, np, sh, Array, wrap_func, Ranges, Error, XlError


def _message_of(exc: BaseException) -> str:
    try:
        text = str(exc) or type(exc).__name__
    except Exception:  # a __str__ that fails is not the cell's problem
        text = type(exc).__name__
    return one_line(text, 300)


def _adapt_function(name: str, fn, messages: dict):
    """Wrap an Excel-shaped callable for the formulas engine (see the module docstring).

    Whatever the callable returns or raises ends as a value or an Excel error of its cell: the
    wrapper itself never raises, except ``MemoryError`` (the run is then refused with the memory
    limit named, not shown as a bare ``#VALUE!``) and what is not an ``Exception`` (the time limit).
    """
    formulas, np, sh, Array, wrap_func, Ranges, Error, XlError = _engine()

    def note(key, text):
        found = messages.setdefault(key, [])
        if len(found) < _MAX_MESSAGES:
            found.append(text)

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

    def number_out(v):
        try:
            x = float(v)
        except (OverflowError, ValueError, TypeError, ArithmeticError):  # beyond a double, or not a number
            note(name, "result beyond Excel's number range (about 1.8E+308)")
            return Error.errors["#NUM!"]
        if x != x or x in (float("inf"), float("-inf")):
            return Error.errors["#NUM!"]
        return x if not isinstance(v, int) or abs(v) > 2 ** 53 else v

    def cell_out(v):
        if v is None:
            return ""
        code = getattr(v, "code", None)
        if isinstance(code, str) and code in Error.errors:
            msg = getattr(v, "message", "")
            if msg:
                note(name, one_line(msg, 300))
            return Error.errors[code]
        if isinstance(v, str):
            if v in Error.errors:
                reason = getattr(v, "reason", "")
                if reason:  # xlbridge.excel: why this cell is an error; listed at the formula's cell
                    where, text = _cell_being_evaluated(), one_line(reason, 300)
                    if where is None:  # a formula of constants, evaluated while compiling: by function
                        note(name, text)
                    else:
                        found = messages.setdefault(_FORMULA_REASONS, {}).setdefault(
                            (where[0], where[1].split(":", 1)[0]), [])
                        if f"{name}: {text}" not in found and len(found) < 4:
                            found.append(f"{name}: {text}")
                return Error.errors[v]
            if type(v).__name__ in ("CallError", "LimitCallError"):  # xlbridge.excel: the call could not run
                messages.setdefault(_CALL_ERRORS, {})[str(v)] = name
                if type(v).__name__ == "LimitCallError":  # reported even where no cell shows it
                    messages.setdefault(_LIMIT_CALLS, {}).setdefault(str(v), (name, _cell_being_evaluated()))
            return str(v)
        if isinstance(v, (bool, np.bool_)):
            return bool(v)
        if isinstance(v, (np.integer, np.floating)):
            v = v.item()
        if isinstance(v, (int, float)):
            return number_out(v)
        if hasattr(v, "__float__"):  # Fraction, Decimal and other numbers
            return number_out(v)
        if isinstance(v, (list, tuple, dict, set, frozenset, np.ndarray)) or hasattr(v, "__next__"):
            note(name, f"a {type(v).__name__} where one cell's value belongs")
            return Error.errors["#VALUE!"]
        return str(v)

    def safe_out(v):
        try:
            return cell_out(v)
        except MemoryError:
            raise
        except Exception as exc:  # a result that cannot even be shown
            note(name, f"result cannot be shown ({_message_of(exc)})")
            return Error.errors["#VALUE!"]

    def wrapper(*args):
        try:
            res = fn(*[arg_in(a) for a in args])
        except MemoryError:  # over the memory limit: the whole run is refused, not just this cell
            raise
        except Exception as exc:  # any failure is #VALUE! in the cell, with the message reported
            note(name, _message_of(exc))
            return np.asarray([[Error.errors["#VALUE!"]]], object).view(Array)
        try:
            if isinstance(res, np.ndarray) or isinstance(res, (list, tuple)):
                rows = res.tolist() if isinstance(res, np.ndarray) else [
                    r.tolist() if isinstance(r, np.ndarray) else r for r in res]
                if rows and not isinstance(rows[0], (list, tuple)):
                    rows = [rows]  # a 1-D result is a row, as in xlwings
                rows = [r if isinstance(r, (list, tuple)) else [r] for r in rows]
                if not rows or not any(rows):
                    return np.asarray([[Error.errors["#N/A"]]], object).view(Array)
                width = max(len(r) for r in rows)
                out = np.empty((len(rows), width), object)
                out[:, :] = Error.errors["#N/A"]
                for i, r in enumerate(rows):
                    for j, v in enumerate(r):
                        out[i, j] = safe_out(v)
                return out.view(Array)
            return np.asarray([[safe_out(res)]], object).view(Array)
        except MemoryError:
            raise
        except Exception as exc:
            note(name, f"result cannot be shown ({_message_of(exc)})")
            return np.asarray([[Error.errors["#VALUE!"]]], object).view(Array)

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


# --------------------------------------------------------------------------------------------------
# links to other workbooks: never followed


class ExternalLinkRefused(LookupError):
    """The engine asked for another workbook; it is not opened (the cell becomes #REF!)."""


@dataclasses.dataclass
class _LinkState:
    """What :func:`_defuse_external_links` gives the model: the one file it may open and the cached links."""

    path: str  # the engine's copy of the workbook: the only file the engine opens
    links: tuple = ()  # ExternalBookCache, link 1 first
    book: object = None  # the workbook read without its cells (openpyxl), when the sheets come streamed
    sheets: dict = dataclasses.field(default_factory=dict)  # {SHEET: SheetRead}: the streamed sheets
    main: str | None = None  # key of the workbook in model.books
    link_names: dict = dataclasses.field(default_factory=dict)  # {"1": ("", "secret.xlsx")}
    by_name: dict = dataclasses.field(default_factory=dict)  # {"SECRET.XLSX": ExternalBookCache}
    refused: set = dataclasses.field(default_factory=set)  # book names asked for and not opened
    cell_messages: dict = dataclasses.field(default_factory=dict)  # {(SHEET, ref): message}


def _link_file_names(links, main: str) -> dict:
    """{index: file name} for the links: the linked file's own name, made unique and never the workbook's.

    >>> from xlbridge.batch.xlsxpatch import ExternalBookCache as L
    >>> _link_file_names([L(1, "../a/secret.xlsx", {}), L(2, "secret.xlsx", {}), L(3, "workbook.xlsx", {})],
    ...                  "WORKBOOK.XLSX")
    {1: 'secret.xlsx', 2: 'link2-secret.xlsx', 3: 'link3-workbook.xlsx'}
    """
    out, seen = {}, {main.upper()}
    for link in links:
        base = re.sub(r"[\[\]'!\x00-\x1f]", "", link.file_name)[:100] or f"link{link.index}"
        if base.upper() in seen or base.isdigit():
            base = f"link{link.index}-{base}"
        seen.add(base.upper())
        out[link.index] = base
    return out


def _defuse_external_links(model, path: str, links=(), *, book=None, sheets=None) -> None:
    """Make ``model`` (a model of :func:`_model_class`) unable to open any file but ``path``.

    formulas 1.3 loads another workbook whenever a cell, a defined name or an ``INDIRECT("...")`` text
    names one (``[secret.xlsx]S!A1``, ``'/srv/club/[secret.xlsx]S'!A1``, ``[1]S!A1`` through the
    workbook's externalLink parts, URL and UNC paths alike): ``ExcelModel.complete`` calls
    ``add_book(name)``, which opens ``basedir/name`` with openpyxl. After this step ``add_book`` of
    the model opens ``path`` once (the workbook itself, with openpyxl's ``keep_links=False``) and
    never anything else: a link whose cached copy the workbook carries (``links``, from
    ``xl/externalLinks/externalLinkN.xml``) is served from that copy, as Excel does when links are not
    updated; any other book name raises :class:`ExternalLinkRefused`, which the engine turns into
    ``#REF!`` (and :func:`recalc_values` reports as "link to another workbook not followed").

    ``book`` and ``sheets``: the workbook already read without its cells and its sheets read by
    :func:`xlbridge.batch.sheetxml.read_sheet` ({sheet name: SheetRead}); the model then opens no
    file at all and takes each sheet's cells from ``sheets`` (constants as range blocks).
    """
    state = _LinkState(os.path.realpath(path), tuple(links), book,
                       {name.upper(): read for name, read in (sheets or {}).items()})
    main = os.path.basename(path).upper()
    names = _link_file_names(state.links, main)
    for link in state.links:
        state.link_names[str(link.index)] = ("", names[link.index])
        state.by_name[names[link.index].upper()] = link
    model.__dict__["_xlbridge_links"] = state


def _cached_workbook(link):
    """An in-memory openpyxl workbook holding a link's cached values (nothing is read from disk)."""
    import openpyxl

    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for title, cells in link.sheets.items():
        try:
            ws = wb.create_sheet(title=title)
        except (ValueError, TypeError):  # a name openpyxl refuses: that sheet reads as #REF!
            continue
        if ws.title != title:
            wb.remove(ws)
            continue
        for (r, c), v in cells.items():
            cell = ws.cell(r, c)
            if isinstance(v, ExcelErrorValue):
                cell._value, cell.data_type = v.code, "e"
            elif isinstance(v, str):
                cell._value, cell.data_type = v, "s"  # text as text, never a formula
            else:
                cell.value = v
    return wb


_BOOK_OF_NODE = re.compile(r"^'?(?P<dir>[^\[']*)\[(?P<file>[^\]]+)\]")


def _unfollowed_cells(model, state: _LinkState) -> set:
    """{(SHEET, ref)} of the workbook's cells that depend on a book that was not opened."""
    dmap = model.dsp.dmap
    start = []
    for node in model.dsp.data_nodes:  # every node of another book (a cached copy may lack the sheet or cell)
        if not isinstance(node, str):
            continue
        m = _BOOK_OF_NODE.match(node)
        if m and (m.group("dir") not in ("", ".") or m.group("file").upper() != state.main):
            start.append(node)
    seen, stack = set(start), list(start)
    while stack:
        for nxt in dmap.succ.get(stack.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    out = set()
    for node in seen:
        if isinstance(node, str) and "!" in node:
            m = _BOOK_OF_NODE.match(node)
            if m and m.group("dir") in ("", ".") and m.group("file").upper() == state.main:
                sheet, ref = _split_node(node)
                out.add((sheet, ref))
                out.add((sheet, ref.split(":", 1)[0]))
    return out


def _split_node(node: str) -> tuple[str, str]:
    """("SHEET", "A1") of an engine node name such as ``'[workbook.xlsx]SHEET'!A1``.

    >>> _split_node("'[workbook.xlsx]MY SHEET'!B2:C3")
    ('MY SHEET', 'B2:C3')
    """
    sheet_part, ref = node.rsplit("!", 1)
    sheet = sheet_part[1:-1] if sheet_part.startswith("'") and sheet_part.endswith("'") else sheet_part
    sheet = (sheet.split("]", 1)[1] if "]" in sheet else sheet).replace("''", "'")
    return sheet.upper(), ref.upper()


def _quote_sheet_ids() -> None:
    """Make the engine write a sheet name holding an apostrophe as Excel does, ``'O''Brien'!A1``.

    ``formulas`` 1.3 builds its node ids with the apostrophe unescaped (``'[book.xlsx]O'BRIEN'!A1``),
    which its own parser then reads as a broken reference: every formula on, or pointing at, a
    sheet such as "O'Brien" came out ``#REF!``. Its ``range2parts`` looks ``_build_sheet_id`` up
    in its module at each call, so replacing that one function fixes every id; ``add_sheet``
    below reads the escaped name back.
    """
    from formulas.tokens import operand

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


@functools.lru_cache(maxsize=None)
def _model_class():
    """``formulas.ExcelModel`` that compiles only the cells that hold something and never opens another file.

    - ``push`` walks openpyxl's dict of existing cells instead of ``worksheet.iter_rows()`` (which
      visits, and creates, every cell of the bounding box: a quarter of a million blank cells for a
      10,000-row template) and skips cells without a value; ``add_sheet`` hands the stock
      ``complete`` step a :class:`_SparseSheet`, so blank cells of referenced ranges get no node either.
    - ``add_book`` is the defused one described in :func:`_defuse_external_links`.
    - ``compile_cell`` turns a formula the engine cannot read into an error of that cell only
      (``#NAME?``; ``#REF!`` for a DDE link such as ``=cmd|'/c calc'!A0``) instead of failing the run.
    """
    import formulas
    import schedula as sh
    from formulas.cell import RangesAssembler
    from formulas.excel import BOOK, SHEETS
    from formulas.ranges import _intersect

    _quote_sheet_ids()

    class XlbridgeExcelModel(formulas.ExcelModel):
        def add_book(self, book=None, context=None, data_only=False):
            state = self.__dict__.get("_xlbridge_links")
            if state is None:
                raise ExternalLinkRefused("the model was not defused (_defuse_external_links)")
            ctx = (context or {}).copy()
            if isinstance(book, str):
                parts = book.replace("\\", "/").split("/")
                ctx["directory"], ctx["filename"] = "/".join(parts[:-1]), parts[-1]
            elif book is not None:
                raise ExternalLinkRefused("only a file name can be loaded")
            directory, filename = ctx.get("directory") or "", ctx.get("filename") or ""
            if self.basedir is None:  # the workbook itself: the one file this model opens
                if os.path.realpath(os.path.join(directory, filename)) != state.path:
                    raise ExternalLinkRefused(LINK_NOT_FOLLOWED)
                self.basedir = os.path.dirname(state.path)
                state.main = key = filename.upper()
                data = sh.get_nested_dicts(self.books, key)
                data[BOOK] = _load_workbook(state.path, data_only) if state.book is None else state.book
                data["external_links"] = dict(state.link_names)
                for sheet, read in state.sheets.items():  # the array formulas, as openpyxl would list them
                    sh.get_nested_dicts(self.books, key, SHEETS, sheet)["formula_references"] = dict(read.array_refs)
            elif directory in ("", ".") and filename.upper() == state.main:
                key = state.main
                data = sh.get_nested_dicts(self.books, key)
            else:
                link = state.by_name.get(filename.upper()) if directory in ("", ".") else None
                if link is None:
                    state.refused.add(book if isinstance(book, str) else filename)
                    raise ExternalLinkRefused(LINK_NOT_FOLLOWED)
                key = filename.upper()
                data = sh.get_nested_dicts(self.books, key)
                if BOOK not in data:
                    data[BOOK] = _cached_workbook(link)
                    data["external_links"] = {}
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
                state = self.__dict__.get("_xlbridge_links")
                if state is not None and context.get("excel") != state.main:  # a sheet the cached copy lacks
                    state.refused.add(f"{context.get('excel')}!{worksheet}")
                raise
            raw = worksheet._ws if isinstance(worksheet, _SparseSheet) else worksheet
            views = self.__dict__.setdefault("_xlbridge_sparse_views", {})
            # one view per sheet, kept alive with it: ``complete`` caches max_row per sheet object
            view = views.get(id(raw))
            if view is None or view[1] is not raw:
                view = views[id(raw)] = (_SparseSheet(raw), raw)
            return view[0], ctx

        def _begin_sheet(self, worksheet, context):
            """Register a sheet with the engine; return it with the compile context and reference tables."""
            _phase("compiling", getattr(worksheet, "title", ""))
            worksheet, context = self.add_sheet(worksheet, context)
            ctx = {"external_links": self.external_links(context)}
            ctx.update(context)
            return (worksheet, ctx, self.references, self.formula_references(context),
                    self.formula_ranges(context))

        def push(self, worksheet, context):
            state = self.__dict__.get("_xlbridge_links")
            raw = worksheet._ws if isinstance(worksheet, _SparseSheet) else worksheet
            if (state is not None and state.sheets and context.get("excel") == state.main
                    and getattr(raw, "title", "").upper() in state.sheets):
                return self._push_streamed(worksheet, context, state.sheets[raw.title.upper()])
            existing = getattr(worksheet, "_cells", None)
            if not isinstance(existing, dict):
                return super().push(worksheet, context)
            worksheet, ctx, references, formula_references, formula_ranges = self._begin_sheet(worksheet, context)
            cells = [self.compile_cell(c, ctx, references, formula_references)
                     for _, c in sorted(worksheet._cells.items())
                     if hasattr(c, "value") and c.value is not None]
            for cell in cells:
                self.add_cell(sh.await_result(cell), ctx, formula_ranges)
            return self

        def _push_streamed(self, worksheet, context, read):
            """Add a streamed sheet: formula and special cells one by one, constants as column blocks."""
            from .bookdata import CellView, constant_blocks

            worksheet, ctx, references, formula_references, formula_ranges = self._begin_sheet(worksheet, context)
            singles = [(pos, CellView(cell_ref(*pos), text, "f")) for pos, text in read.formulas.items()]
            singles += [(pos, CellView(cell_ref(*pos), v, t)) for pos, (v, t) in read.special.items()]
            singles.sort(key=lambda x: x[0])
            cells = [self.compile_cell(view, ctx, references, formula_references) for _, view in singles]
            for cell in cells:
                self.add_cell(sh.await_result(cell), ctx, formula_ranges)
            barriers: dict = {}
            for (r, c), _ in singles:
                barriers.setdefault(c, []).append((r, r))
            for r1, c1, r2, c2 in read.layout.array_ranges:
                for c in range(c1, c2 + 1):
                    barriers.setdefault(c, []).append((r1, r2))
            for block in constant_blocks(read.columns, barriers, empty=sh.EMPTY):
                ref = f"{cell_ref(block.first_row, block.column)}:{cell_ref(block.last_row, block.column)}"
                self.add_cell(_block_cell(ref, block.values, ctx), ctx, formula_ranges)
            return self

        def _assemble_ranges(self, cells, nodes=None, compact=1):
            """formulas' own ``_assemble_ranges``, skipping the range cells that lie outside each range.

            A range cell that does not meet an assembler's range adds nothing to it (its push finds no
            missing cell); with one block per column and one node per array, checking the bounds
            first saves building and intersecting their cell sets for every range of the sheet.
            """
            state = self.__dict__.get("_xlbridge_links")
            if state is None or not state.sheets:  # the stock path stays formulas' own
                return super()._assemble_ranges(cells, nodes=nodes, compact=compact)
            get, dsp = sh.get_nested_dicts, self.dsp
            pred = dsp.dmap.pred
            if nodes is None:
                nodes = {k for k in dsp.data_nodes if k not in dsp.default_values}
            it = (k for k in nodes if not pred[k] and not isinstance(k, sh.Token))
            bounds = {}
            for c in self.cells.values():
                rng = getattr(getattr(c, "range", None), "ranges", None)
                if rng:
                    bounds[c.output] = rng[0]
            ranges = []
            for n_id in it:
                try:
                    ra = RangesAssembler(n_id, compact=compact)
                except ValueError:
                    continue
                rng = ra.range.ranges[0]
                for out, idx in get(cells, "range", rng["sheet_id"], default=list):
                    box = bounds.get(out)
                    if box is not None and not _intersect(rng, box):
                        continue
                    if not ra.push(idx, out):
                        break
                ra.push(get(cells, "cell", rng["sheet_id"]))
                ranges.append(ra)
            ranges = sorted(ranges, key=lambda x: len(x.missing))
            for ra in ranges:
                ra.add(dsp)

        def compile_cell(self, cell, context, references, formula_references):
            try:
                return super().compile_cell(cell, context, references, formula_references)
            except Exception as exc:  # a formula the engine cannot read: an error of this cell only
                if _is_memory_error(exc):  # (constant parts are evaluated while compiling)
                    raise
                value = cell.value if isinstance(cell.value, str) else getattr(cell.value, "text", "")
                value = value if isinstance(value, str) else ""
                dde, link = "|" in value, _names_other_book(value)
                state = self.__dict__.get("_xlbridge_links")
                if state is not None:
                    state.cell_messages[(str(context.get("sheet", "")).upper(), cell.coordinate)] = (
                        DDE_NOT_FOLLOWED if dde else LINK_NOT_FOLLOWED if link else
                        f"formula not understood by the formula engine: {clip(value, 60)}")
                crd = formula_references.get(cell.coordinate, cell.coordinate)
                return self._compile_cell(crd, "=#REF!" if dde or link else "=#NAME?", context, True,
                                          references)

        def add_references(self, book, context=None):
            """The workbook's global defined names, as formulas' own ``add_references``, except that a name
            the engine cannot read becomes an error value instead of failing the whole workbook: a name
            written ``[secret.xlsx]S!$A$1`` (not quoted, as no Excel writes it) is read as the quoted
            ``'[secret.xlsx]S'!$A$1`` (and so refused like any link), one with a DDE link or another book
            in it is ``#REF!``, any other ``#NAME?``."""
            from formulas.cell import Ref

            refs, nodes = {}, set()
            it = book.defined_names
            for n in (it.values() if isinstance(it, dict) else it.definedName):
                if n.hidden or n.localSheetId is not None:
                    continue  # only global names, as formulas does
                text = str(n.value or "")
                for candidate in (text, _quote_other_books(text)):
                    try:
                        ref = Ref(n.name.upper(), "=%s" % candidate, context).compile(context=context)
                        break
                    except Exception as exc:
                        if _is_memory_error(exc):
                            raise
                else:
                    bad = "|" in text or _names_other_book(text)
                    ref = Ref(n.name.upper(), "=#REF!" if bad else "=#NAME?", context).compile(context=context)
                nodes.update(ref.add(self.dsp, context=context))
                refs[ref.output] = None
                self.cells[ref.output] = ref
            self._update_refs(nodes, refs)
            return refs

    return XlbridgeExcelModel


_OTHER_BOOK = re.compile(r"\[[^\[\]\"]+\][^!\"]*!")
_UNQUOTED_OTHER_BOOK = re.compile(r"(?<!['\w])(\[[^\[\]'\"!]+\][A-Za-z_][\w.]*)!")


def _names_other_book(text: str) -> bool:
    """Whether a formula's text names a cell of another workbook (``[file]Sheet!A1`` in any form).

    >>> _names_other_book("SUM('[secret.xlsx]S:T'!A1)"), _names_other_book("SUM(A1:B2)")
    (True, False)
    """
    return bool(_OTHER_BOOK.search(text))


def _quote_other_books(text: str) -> str:
    """``[file]Sheet!A1`` written without quotes, quoted as Excel writes it: ``'[file]Sheet'!A1``.

    >>> _quote_other_books("[secret.xlsx]S!$A$1+1")
    "'[secret.xlsx]S'!$A$1+1"
    """
    return _UNQUOTED_OTHER_BOOK.sub(r"'\1'!", text)


def _block_cell(ref: str, values, context):
    """An engine cell holding a block of constants (the value of a range, as a column)."""
    from formulas.cell import Cell

    return Cell(ref, values, context=context, check_formula=False)


def _load_workbook(path, data_only=False):
    """The engine's reader (openpyxl) on the one allowed file: also the check that openpyxl can read the book."""
    from formulas.excel import xlreader

    load = getattr(xlreader, "_xlbridge_original_load", xlreader.load_workbook)
    # keep_links=True: openpyxl reads the externalLink parts of the package (never the linked files), so
    # a damaged one is found here; what it reads is not used (links come from _defuse_external_links)
    return load(path, data_only=data_only, keep_links=True)


@contextlib.contextmanager
def _engine_guards(path: str, messages: dict, functions: dict, progress: bool):
    """Everything the engine run changes in the formulas package, undone on exit.

    - the custom functions registered under their Excel names (and ``_xludf.`` names);
    - ``formulas.excel.xlreader.load_workbook`` refuses every file but ``path`` (a second line of
      defence behind :func:`_defuse_external_links`);
    - ``MemoryError`` inside a built-in function is no longer swallowed as ``#VALUE!`` (formulas'
      ``wrap_func`` re-raises what ``formulas.functions.BaseError`` names);
    - the loggers of formulas and schedula are silenced (they print tracebacks and file paths);
    - the compile progress bar goes to stderr only with ``progress``.
    """
    import logging
    import types
    import warnings

    import formulas
    import formulas.excel as fx
    import formulas.functions as ff
    import tqdm
    from formulas.excel import xlreader

    registry = formulas.get_functions()
    saved = {}
    for name, fn in (functions or {}).items():
        for key in (name.upper(), "_XLUDF." + name.upper()):
            saved[key] = dict.get(registry, key)  # (what is set now; a lazy registry loads nothing for it)
            registry[key] = _adapt_function(name.upper(), fn, messages)
    allowed = os.path.realpath(path)
    original_load = xlreader.load_workbook

    def guarded_load(filename, *args, **kwargs):
        if not isinstance(filename, str) or os.path.realpath(filename) != allowed:
            raise ExternalLinkRefused(LINK_NOT_FOLLOWED)
        kwargs["keep_links"] = False
        return original_load(filename, *args, **kwargs)

    loggers = [logging.getLogger(n) for n in ("formulas", "schedula")]
    levels = [lg.level for lg in loggers]
    old_tqdm, old_base_error = fx.tqdm, ff.BaseError
    xlreader._xlbridge_original_load = original_load
    xlreader.load_workbook = guarded_load
    ff.BaseError = (old_base_error, MemoryError)
    fx.tqdm = types.SimpleNamespace(tqdm=functools.partial(
        tqdm.tqdm, disable=not progress, file=sys.stderr, desc="compiling formulas", leave=False))
    for lg in loggers:  # (a level, unlike ``disabled``, also holds for their child loggers)
        lg.setLevel(logging.CRITICAL + 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)
        fx.tqdm, ff.BaseError = old_tqdm, old_base_error
        xlreader.load_workbook = original_load
        with contextlib.suppress(AttributeError):
            del xlreader._xlbridge_original_load
        for key, fn in saved.items():
            if fn is None:
                registry.pop(key, None)
            else:
                registry[key] = fn


def _raise_limits_only(exc) -> bool | str:
    """``raises`` of the engine's dispatcher: stop for memory, stay silent (no logged traceback) otherwise."""
    return True if _is_memory_error(exc) else ""


def _is_memory_error(exc) -> bool:
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, MemoryError):
            return True
        inner = getattr(exc, "ex", None)
        exc = inner if isinstance(inner, BaseException) else (exc.__cause__ or exc.__context__)
    return False


def _engine_location(exc) -> tuple | None:
    """(SHEET, ref) of the cell the engine was evaluating when ``exc`` was raised, from its traceback.

    schedula evaluates each cell's formula in ``Solution._set_function_node_output``; its
    ``node_attr["outputs"]`` names the cell (``'[workbook.xlsx]SHEET'!A1``). The outermost such frame
    whose output is a cell is the workbook's cell (inner ones are parts of one formula).
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        tb = exc.__traceback__
        while tb is not None:
            where = _node_cell(tb.tb_frame)
            if where is not None:
                return where
            tb = tb.tb_next
        inner = getattr(exc, "ex", None)
        exc = inner if isinstance(inner, BaseException) else (exc.__cause__ or exc.__context__)
    return None


def _node_cell(frame) -> tuple | None:
    """(SHEET, ref) of the cell a ``_set_function_node_output`` frame of schedula evaluates, else None."""
    if frame.f_code.co_name != "_set_function_node_output":
        return None
    attr = frame.f_locals.get("node_attr")
    outputs = attr.get("outputs") if isinstance(attr, dict) else None
    if outputs and isinstance(outputs[0], str) and _BOOK_OF_NODE.match(outputs[0]) and "!" in outputs[0]:
        return _split_node(outputs[0])
    return None


def _cell_being_evaluated() -> tuple | None:
    """(SHEET, ref) of the workbook cell whose formula the engine is evaluating now (the outermost
    evaluating frame on the stack, as :func:`_engine_location` finds it in a traceback), or None."""
    frame, found = sys._getframe(1), None
    while frame is not None:
        found = _node_cell(frame) or found
        frame = frame.f_back
    return found


class EngineStopped(Exception):
    """The engine run stopped at a limit: ``kind`` "memory" or "time", ``where`` (SHEET, ref) or None."""

    def __init__(self, kind: str, where=None):
        super().__init__(kind)
        self.kind, self.where = kind, where


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
    if isinstance(v, (str, int, float)):
        return v
    try:
        return float(v) if hasattr(v, "__float__") else str(v)
    except Exception:
        return ExcelErrorValue("#VALUE!")


def recalc_values(path: str, targets: dict, functions: dict | None = None, *, progress: bool = False,
                  links=(), book=None, sheets=None) -> tuple:
    """Evaluate the workbook at ``path`` with the formulas engine; return (values, messages).

    ``targets`` is {sheet name: {"cells": [(row, col), ...], "arrays": [(r1, c1, r2, c2), ...]}};
    ``values`` is {sheet name: {(row, col): value}} with values as in
    :func:`xlbridge.batch.xlsxpatch.patch_sheet`; ``messages`` is {FUNCTION NAME: [message, ...]} from
    the custom functions (plus internal keys). ``links``: the cached copies of linked workbooks
    (:func:`xlbridge.batch.xlsxpatch.read_external_links`); no other file than ``path`` is ever opened
    (:func:`_defuse_external_links`). ``book`` and ``sheets``: the workbook read without its cells and
    its streamed sheets (see :func:`evaluate_workbook`); without them the engine reads ``path`` with
    openpyxl, one node per cell (the stock path). Runs in the calling process, with no memory or time
    limit: use :func:`recalc_workbook`. Raises :class:`EngineStopped` when memory runs out.
    """
    formulas, np, sh, Array, wrap_func, Ranges, Error, XlError = _engine()

    messages: dict = {}
    _phase("loading")
    with _engine_guards(path, messages, functions, progress):
        model = _model_class()()
        _defuse_external_links(model, path, links, book=book, sheets=sheets)
        state = model.__dict__["_xlbridge_links"]
        try:
            model.loads(path)
            _phase("linking")
            model.finish()
            model.dsp.raises = _raise_limits_only
            if progress:
                print("xlbridge recalc: evaluating ...", file=sys.stderr)
            _phase("evaluating")
            solution = model.calculate()
        except Exception as exc:
            if _is_memory_error(exc):
                raise EngineStopped("memory", _engine_location(exc)) from None
            raise
        messages[_CELL_MESSAGES] = dict(state.cell_messages)
        messages[_UNFOLLOWED] = _unfollowed_cells(model, state) if state.refused else set()
    _phase("collecting")
    # index results by (SHEET, ref)
    by_ref: dict = {}
    for key, val in solution.items():
        if not isinstance(key, str) or "!" not in key:
            continue
        by_ref[_split_node(key)] = val
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


def evaluate_workbook(path: str, sheets, *, cell_formats: int | None = None, functions: dict | None = None,
                      external_links=(), max_formula_cells: int | None = None, progress: bool = False,
                      streamed: bool = True) -> tuple:
    """Read and evaluate the workbook at ``path``: return (values, messages, layouts). The engine's job.

    ``sheets``: ((sheet name, worksheet part), ...) as :func:`xlbridge.batch.safety.check_workbook`
    found them. Each worksheet part is read once, streamed (:func:`xlbridge.batch.sheetxml.read_sheet`):
    the layout the results are spliced into, the formula cells and the constants by column. When
    that pass vouches for every part, the engine gets the workbook without its cells (openpyxl reads
    the rest, which also checks it) and the constants as range blocks (:mod:`xlbridge.batch.bookdata`);
    otherwise (something openpyxl may read differently) the engine reads ``path`` itself, one node
    per cell, as it always did. ``values`` and ``messages`` are those of :func:`recalc_values`;
    ``layouts`` is {sheet name: SheetLayout} of the sheets holding formulas; ``streamed=False`` takes
    the stock path whatever the reading found (for comparisons). Raises
    :class:`~xlbridge.core.errors.WorkbookError` for a damaged sheet and
    :class:`~xlbridge.core.errors.WorkbookLimitError` past ``max_formula_cells``.
    """
    import zipfile

    from .bookdata import book_without_cells, read_shared_strings
    from .sheetxml import read_sheet

    _phase("loading")
    shared = read_shared_strings(path)
    reads: dict = {}
    covered = 0
    with zipfile.ZipFile(path) as zf:
        for sheet, part in sheets:
            _phase("reading", sheet)
            got = read_sheet(zf.read(part), part=part, sheet=sheet, cell_formats=cell_formats,
                             shared_strings=shared, values=True)
            lay = got.layout
            covered += len(lay.formula_cells) + sum((r2 - r1 + 1) * (c2 - c1 + 1) for r1, c1, r2, c2 in lay.array_ranges)
            if max_formula_cells is not None and covered > max_formula_cells:
                raise WorkbookLimitError(f"refused: more than {max_formula_cells} formula and array-formula "
                                         f"cells (sheet {clip(sheet, 40)[1:-1]})")
            reads[sheet] = (part, got)
        links = read_external_links(zf, external_links)
    targets = {sheet: {"cells": sorted(got.layout.formula_cells), "arrays": list(got.layout.array_ranges)}
               for sheet, (_, got) in reads.items() if got.layout.formula_cells or got.layout.array_ranges}
    book, by_sheet = None, None
    if streamed and all(got.unusual is None for _, got in reads.values()):
        _phase("loading")
        spans = {part: (got.layout.sheetdata[2], got.layout.sheetdata[3]) for part, got in reads.values()
                 if got.layout.sheetdata[2] is not None and got.layout.sheetdata[3] is not None}
        book = _load_workbook(book_without_cells(path, spans))
        if [ws.title for ws in book.worksheets] == [sheet for sheet, _ in sheets]:
            by_sheet = {sheet: got for sheet, (_, got) in reads.items()}
        else:  # openpyxl names the sheets otherwise: let it read the whole book
            book = None
    layouts = {sheet: got.layout for sheet, (_, got) in reads.items() if sheet in targets}
    if by_sheet is None:
        reads.clear()
    values, messages = recalc_values(path, targets, functions, progress=progress, links=links, book=book,
                                     sheets=by_sheet)
    messages[ENGINE_PATH] = "cells" if by_sheet is None else "ranges"
    return values, messages, layouts


# --------------------------------------------------------------------------------------------------
# the child process


_PHASE_SINK = None  # the shared buffer the child writes its phase to (None outside the child)
_PHASE_SIZE = 512


def _phase(kind: str, sheet: str = "") -> None:
    """Record what the engine is doing (``kind``, ``sheet``), for a limit message naming where it hit."""
    sink = _PHASE_SINK
    if sink is None:
        return
    data = f"{kind}\x1f{sheet}".encode("utf-8", "replace")[: _PHASE_SIZE - 1]
    sink[:_PHASE_SIZE] = data.ljust(_PHASE_SIZE, b"\0")


class _TimeLimit(BaseException):
    """Raised in the child by SIGALRM at the time limit (a BaseException: no ``except Exception`` eats it)."""


def _raise_time_limit(signum, frame):
    raise _TimeLimit()


_SPREADSHEET_SUFFIXES = (".xlsx", ".xlsm", ".xltx", ".xltm", ".xls", ".xlsb", ".xlam", ".ods", ".csv", ".zip")
_BLOCKED_EVENTS = frozenset({
    "socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo", "socket.gethostbyname",
    "socket.gethostbyaddr", "socket.sendto", "urllib.Request", "webbrowser.open",
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "os.startfile", "pty.spawn",
    "os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.symlink", "os.link", "os.truncate", "os.chmod",
    "os.chown", "os.chdir", "os.listdir", "os.scandir", "shutil.rmtree", "shutil.copyfile", "shutil.move",
    "glob.glob",
})
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _install_file_guard(readable) -> None:
    """In the child only: an audit hook (PEP 578) refusing files, sockets and processes.

    Allowed: reading the files in ``readable`` (the engine's copy of the workbook) and reading what
    the Python installation holds (modules imported late), spreadsheets excepted. Refused with
    ``PermissionError``: any other file, any write, listing or changing folders, sockets, URLs and
    starting processes. Audit hooks cannot be removed: this is never installed in the calling process.
    """
    import site

    allowed = {os.path.realpath(os.fspath(p)) for p in readable}
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, *getattr(site, "getsitepackages", lambda: [])(),
             *[p for p in sys.path if p and p != "." and os.path.isabs(p)],
             # xlbridge's own package folder: an editable install (pip install -e) is found through an
             # import hook, not sys.path, and the engine imports function modules lazily
             os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    roots = tuple(sorted({os.path.realpath(p).rstrip(os.sep) + os.sep for p in roots if p}))

    def hook(event, args):
        if event == "open":
            target = args[0] if args else None
            if target is None or isinstance(target, int):
                return
            mode = args[1] if len(args) > 1 else None
            flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
            writing = bool(flags & _WRITE_FLAGS) or (isinstance(mode, str) and any(ch in mode for ch in "wax+"))
            try:
                real = os.path.realpath(os.fsdecode(target))
            except Exception:
                raise PermissionError("the formula engine may not open files") from None
            if not writing and (real in allowed or (real.startswith(roots)
                                                    and not real.lower().endswith(_SPREADSHEET_SUFFIXES))):
                return
            raise PermissionError("the formula engine may not open other files")
        if event in _BLOCKED_EVENTS:
            if event in ("os.listdir", "os.scandir") and args and isinstance(args[0], (str, bytes)):
                # importing a module lists its package folder: allowed inside the Python installation
                with contextlib.suppress(Exception):
                    if (os.path.realpath(os.fsdecode(args[0])) + os.sep).startswith(roots):
                        return
            raise PermissionError(f"the formula engine may not do that ({event})")

    sys.addaudithook(hook)


def _set_parent_death_signal(parent_pid: int) -> None:
    """Linux: be sent SIGKILL when the parent dies (``prctl(PR_SET_PDEATHSIG)``); exit if it is gone already."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)


def _watch_parent(fd: int) -> None:
    """Block on the read end of a pipe only the parent writes to; EOF means the parent is gone: exit."""
    try:
        while os.read(fd, 1):
            pass
    except OSError:
        pass
    os._exit(1)


def _child_main(conn, death_r, death_w, sink, parent_pid, job, workdir, readable, max_memory, max_seconds):
    """The body of the engine's child process (fork start method): sandbox first, then ``job()``."""
    global _PHASE_SINK
    import threading

    try:
        with contextlib.suppress(OSError):
            os.setsid()  # own session and process group: the parent kills the whole group
        for sig in (signal.SIGTERM, signal.SIGINT, getattr(signal, "SIGHUP", None)):
            if sig is not None:
                signal.signal(sig, signal.SIG_DFL)
        _set_parent_death_signal(parent_pid)
        os.close(death_w)
        threading.Thread(target=_watch_parent, args=(death_r,), daemon=True).start()
        _PHASE_SINK = sink
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (max_memory, max_memory))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        except (ImportError, ValueError, OSError):
            pass
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # nothing the engine prints reaches the user (tracebacks, paths)
            os.dup2(devnull, fd)
        os.close(devnull)
        if workdir is not None:
            os.chdir(workdir)
        _install_file_guard(readable)
        if hasattr(signal, "setitimer"):
            signal.signal(signal.SIGALRM, _raise_time_limit)
            signal.setitimer(signal.ITIMER_REAL, max(max_seconds, 0.001))
        result = job()
        if hasattr(signal, "setitimer"):
            signal.setitimer(signal.ITIMER_REAL, 0)
        conn.send(("ok", result))
    except EngineStopped as exc:
        conn.send((exc.kind, exc.where))
    except WorkbookError as exc:  # a damaged or over-limit part, found while reading it
        conn.send(("refused", (isinstance(exc, WorkbookLimitError), exc.message, exc.where)))
    except _TimeLimit as exc:
        conn.send(("time", _engine_location(exc)))
    except MemoryError as exc:
        conn.send(("memory", _engine_location(exc)))
    except BaseException as exc:  # report anything to the parent as one line
        if _is_memory_error(exc):
            conn.send(("memory", _engine_location(exc)))
        else:
            conn.send(("error", one_line(f"{type(exc).__name__}: {_message_of(exc)}", 300)))
    finally:
        conn.close()


class ChildProcess:
    """Run ``job()`` (no arguments: a closure or ``functools.partial``) in a sandboxed child process.

    The child (``fork`` start method: Linux and macOS; elsewhere :meth:`run` refuses):

    - has its own session and process group (``os.setsid``); the parent kills the whole group;
    - dies with the parent: ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` on Linux, and a thread blocked on
      a pipe only the parent holds open (EOF when the parent is gone, whatever the platform);
    - has its address space limited to ``max_memory`` (``RLIMIT_AS``) and no core dumps;
    - has SIGALRM at ``max_seconds`` (the limit is reported with the cell being evaluated); the
      parent kills it ``grace`` seconds later if it is stuck in C code;
    - works in ``workdir`` with stdin/stdout/stderr on ``/dev/null``;
    - may read only the files in ``readable`` and the Python installation: an audit hook refuses
      other files, writes, folder listings, sockets, URLs and new processes.

    :meth:`run` returns ``(status, payload, phase)``: ("ok", job's result), ("memory" or "time",
    (SHEET, ref) or None), ("error", one line), or ("died", exit code); ``phase`` is (kind, sheet) of
    what the child last reported doing. SIGTERM/SIGINT to the parent (turned into exceptions by the
    CLI) and any other exit kill the child group in ``finally``.

    >>> ChildProcess(lambda: 6 * 7, max_memory=16 << 30, max_seconds=60).run()[:2]
    ('ok', 42)
    >>> ChildProcess(lambda: open("/etc/hostname").read(), max_memory=16 << 30, max_seconds=60).run()[:2]
    ('error', 'PermissionError: the formula engine may not open other files')
    """

    def __init__(self, job, *, max_memory: int, max_seconds: float, workdir=None, readable=(),
                 grace: float = 5.0):
        self.job, self.max_memory, self.max_seconds = job, max_memory, max_seconds
        self.workdir, self.readable, self.grace = workdir, tuple(readable), grace

    def run(self, tick=None):
        import gc
        import mmap
        import multiprocessing as mp

        if "fork" not in mp.get_all_start_methods():  # Windows: no fork, setsid, killpg or RLIMIT_AS
            raise WorkbookError("the bounded formula-engine process needs a POSIX system (Linux, macOS)")
        ctx = mp.get_context("fork")
        recv, send = ctx.Pipe(duplex=False)
        death_r, death_w = os.pipe()
        sink = mmap.mmap(-1, _PHASE_SIZE)
        proc = None
        try:
            proc = ctx.Process(target=_child_main, daemon=True, args=(
                send, death_r, death_w, sink, os.getpid(), self.job, self.workdir, self.readable,
                self.max_memory, self.max_seconds))
            gc.freeze()  # the child then never walks the parent's objects: fewer copy-on-write pages
            try:
                proc.start()
            finally:
                gc.unfreeze()
            send.close()
            os.close(death_r)
            death_r = None
            deadline = time.monotonic() + self.max_seconds + self.grace
            status, payload = "time", None
            while True:
                if recv.poll(min(0.25, max(deadline - time.monotonic(), 0))):
                    try:
                        status, payload = recv.recv()
                    except (EOFError, OSError):
                        proc.join(5)
                        status, payload = "died", proc.exitcode
                    break
                if tick is not None:
                    tick()
                if time.monotonic() >= deadline:
                    break
            raw = bytes(sink[:_PHASE_SIZE]).split(b"\0", 1)[0].decode("utf-8", "replace")
            kind, _, sheet = raw.partition("\x1f")
            return status, payload, (kind, sheet)
        finally:
            if proc is not None and proc.pid is not None:
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)
                with contextlib.suppress(OSError, AttributeError):
                    proc.kill()
                proc.join(5)
            for fd in (death_r, death_w):
                if fd is not None:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            recv.close()
            with contextlib.suppress(Exception):
                send.close()
            sink.close()


def _where(location, phase, sheets: dict) -> str:
    """'in sheet Travellers, cell K7' / 'while loading the workbook' for a limit message."""
    def sheet_name(up):
        return clip(sheets.get(up, up), 40)[1:-1]

    if location:
        sheet, ref = location
        return f"in sheet {sheet_name(sheet)}, cell {ref}"
    kind, sheet = phase or ("", "")
    if kind == "compiling" and sheet:
        return f"in sheet {sheet_name(sheet.upper())} (compiling its formulas)"
    return {"loading": "while loading the workbook", "linking": "while resolving the formulas' references",
            "evaluating": "while evaluating the formulas",
            "collecting": "while collecting the results"}.get(kind, "while starting the formula engine")


def _run_engine(engine_copy, info, functions, limits: SafetyLimits, name: str, sheets: dict,
                private: dict, tick=None, isolate=True):
    """:func:`evaluate_workbook` in a :class:`ChildProcess` (or in this process without ``isolate``).

    Refuses the workbook at a limit, and when the child finds it damaged.
    """
    job = functools.partial(evaluate_workbook, engine_copy, info.sheets, cell_formats=info.cell_formats,
                            functions=functions, external_links=info.external_links,
                            max_formula_cells=limits.max_formula_cells)
    if not isolate:
        try:
            return job()
        except EngineStopped as exc:
            status, payload, phase = exc.kind, exc.where, ("", "")
    else:
        status, payload, phase = ChildProcess(
            job, max_memory=limits.max_memory, max_seconds=limits.max_seconds,
            workdir=os.path.dirname(engine_copy), readable=(engine_copy,)).run(tick)
    if status == "ok":
        return payload
    if status == "refused":
        is_limit, message, where = payload
        raise (WorkbookLimitError if is_limit else WorkbookError)(message, where=where)
    if status == "memory":
        mib = limits.max_memory / (1 << 20)
        raise WorkbookLimitError(f"refused: memory limit of {mib:g} MiB reached {_where(payload, phase, sheets)} "
                         f"(recalculation needs more memory than the limit; raise it with --max-memory)", where=name)
    if status == "time":
        s = limits.max_seconds
        raise WorkbookLimitError(f"refused: time limit of {s:g} s reached {_where(payload, phase, sheets)} "
                         f"(recalculation took longer than the limit of {s:g} s; raise it with --timeout)",
                         where=name)
    if status == "died":
        raise WorkbookError(f"refused: the formula engine died (exit code {payload}; out of memory?) "
                            f"{_where(None, phase, sheets)}", where=name)
    text = one_line(scrub_paths(str(payload), private), 300)
    if phase and phase[0] == "loading":  # openpyxl could not read it: Excel would have to repair it
        # the reader's own exception text names Python types ("expected <class 'int'>"): not shown
        raise WorkbookError("damaged workbook: it cannot be read (a part holds an element or value that Excel's "
                            "file format does not allow)", where=name)
    # an engine failure no check foresaw: its Python text is for the administrator (XLBRIDGE_DEBUG=1)
    detail = f": {text}" if os.environ.get("XLBRIDGE_DEBUG") else " (an internal error; set XLBRIDGE_DEBUG=1 for details)"
    raise WorkbookError(f"the formula engine failed {_where(None, phase, sheets)}{detail}", where=name)


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
        if not isinstance(fname, str) or fname.startswith("\x00"):
            continue
        if fname in called:
            uniq = list(dict.fromkeys(msgs))
            more = f" (+{len(uniq) - 3} more)" if len(uniq) > 3 else ""
            found.append(f"{fname}: " + "; ".join(uniq[:3]) + more)
    return " | ".join(found)


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
            self._bar = None


def _check_destination(dest: str, name: str) -> None:
    """Refuse a destination that exists and is not a regular file (never replace a FIFO, device or folder)."""
    try:
        st = os.stat(dest)
    except FileNotFoundError:
        return
    except OSError:
        return  # unreadable folder and the like: writing will report it
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise WorkbookError(f"refused: the output {clip(dest, 80)} exists and is {kind}", where=name)


def recalc_workbook(book, output=None, *, in_place: bool = False, functions: dict | None = None,
                    progress: bool = False, limits: SafetyLimits | None = None,
                    isolate: bool = True, values_only: bool = False) -> RecalcReport:
    """Recalculate every formula of ``book`` and write the results as cached values into a copy.

    The copy's calculation properties say its values are current (no ``fullCalcOnLoad``, a current
    ``calcId``: :mod:`xlbridge.batch.calcprops`), so LibreOffice, Excel without the add-in and any
    reader show the values; Excel with the add-in still recalculates a cell whose inputs change.
    ``values_only=True`` writes a copy whose formulas are replaced by their values (for mailing
    results; not with ``in_place``).

    ``output``: where to write (default :func:`default_output_path`); ``in_place=True`` replaces
    ``book`` itself atomically after keeping the previous file as ``book + ".bak"`` (both keep the
    book's mode, and owner when run as root). A new output gets the umask's mode; an output that is
    replaced keeps its mode. ``functions``: {EXCEL NAME: callable} for the custom functions (default
    :func:`xlbridge_excel_functions`). ``limits``: :class:`xlbridge.batch.safety.SafetyLimits` (file
    checks, and memory/time of the engine when ``isolate`` is true, the default; without it the
    engine runs in this process, unbounded, which only tests should do). Raises
    :class:`xlbridge.errors.WorkbookError` when the file is refused (:class:`xlbridge.errors.WorkbookLimitError`
    at a limit) and ``OSError`` when the output cannot be written; cells evaluating to Excel errors
    are listed in the report (``report.errors``). No temporary file or folder outlives the call.
    """
    start = time.perf_counter()
    limits = DEFAULT_LIMITS if limits is None else limits
    if not isinstance(limits, SafetyLimits):
        raise TypeError("limits must be a SafetyLimits")
    src = os.fspath(book)
    name = os.path.basename(src)
    if in_place and output is not None and os.path.abspath(os.fspath(output)) != os.path.abspath(src):
        raise WorkbookError("give either an output file or in-place, not both", where=name)
    if in_place and values_only:
        raise WorkbookError("a values-only copy cannot replace the workbook: give an output file instead",
                            where=name)
    dest = (src if in_place else os.fspath(output) if output is not None
            else default_output_path(src, values_only=values_only))
    if not in_place and os.path.exists(dest) and os.path.exists(src) and os.path.samefile(dest, src):
        raise WorkbookError("refusing to overwrite the input file; use --in-place to replace it", where=name)
    check_regular_file(src, name)
    _check_destination(dest, name)
    dest_dir = os.path.dirname(os.path.abspath(dest))
    remove_stale_leftovers([dest_dir])
    bar = _Progress(progress, name)
    try:
        with BookLock(dest, timeout=limits.max_seconds, name=name), private_tempdir() as tmp:
            return _recalc_locked(src, dest, name, tmp, in_place, functions, limits, isolate, bar, start,
                                  values_only)
    except WorkbookError as exc:
        if exc.where is None:  # (the scanners name the sheet and cell; the file goes in front)
            raise exc.at(name) from None
        raise
    finally:
        bar.close()


_CALC_CHAIN = "xl/calcChain.xml"


def _hidden_call_errors(call_errors: dict, shown: set, layouts: dict) -> list:
    """A call refused over a work limit whose message no cell shows (``=SUM(FAIRNESS(...))`` adds the
    text up as 0) is still an error of the run: reported at the cell whose formula made the call (or,
    where the engine's stack does not say, at the first formula calling that function).

    Only limit refusals: the engine evaluates both branches of an ``IF``, so an ordinary refusal in the
    branch not taken (a blank row's ``IF(A5="","",F(...))``) is no error, as in Excel, which never
    evaluates it; a limit refusal is reported even then (the work asked for is over the limit)."""
    out = []
    upper = {sheet.upper(): sheet for sheet in layouts}
    for message, (fn, cell) in call_errors.items():
        if message in shown:
            continue
        if cell is not None and cell[0] in upper:  # the cell whose formula made the call
            out.append(RecalcCellError(upper[cell[0]], cell[1].split(":", 1)[0], "message",
                                       one_line(f"{message} (the formula around the call hides this message)", 400)))
            continue
        pattern = re.compile(r"(?<![A-Z0-9_.])(?:_XLUDF\.)?" + re.escape(str(fn).upper()) + r"\s*\(")
        where = next(((sheet, anchor) for sheet, layout in layouts.items()
                      for anchor, formula in sorted(layout.formula_cells.items()) if pattern.search(formula.upper())),
                     None)
        sheet, anchor = where if where is not None else (next(iter(layouts), ""), (1, 1))
        out.append(RecalcCellError(sheet, cell_ref(*anchor), "message",
                                   one_line(f"{message} (the formula around the call hides this message)", 400)))
    return out


def _capacity_errors(zf, info) -> list:
    """One error per sheet holding data below its declared capacity (:mod:`xlbridge.batch.capacity`)."""
    parts = dict(info.sheets)
    out = []
    for area in capacity_areas(zf.read("xl/workbook.xml"), list(parts)):
        hit = first_overflow(zf.read(parts[area[0]]), area)
        if hit is not None:
            out.append(RecalcCellError(area[0], cell_ref(*hit), "capacity",
                                       f"row {hit[0]:,} is below this sheet's capacity (rows {area[1]:,} to "
                                       f"{area[3]:,}) and was not read; move those rows to a new workbook"))
    return out


def _print_areas(zf, info, values: dict) -> dict:
    """{localSheetId: print area} for the sheets declaring ``XLBRIDGE_PRINT``: the declared table cut
    after its last row holding a constant or a non-blank result, so a 10,000-row template prints the
    rows in use, not hundreds of blank pages."""
    from openpyxl.utils import get_column_letter, quote_sheetname

    order = [sheet for sheet, _ in info.sheets]
    parts = dict(info.sheets)
    out = {}
    for area in capacity_areas(zf.read("xl/workbook.xml"), order, PRINT_NAME):
        sheet, r1, c1, _r2, c2 = area
        last = last_used_row(zf.read(parts[sheet]), area, values.get(sheet, {}))
        out[order.index(sheet)] = (f"{quote_sheetname(sheet)}!${get_column_letter(c1)}${r1}:"
                                   f"${get_column_letter(c2)}${last}")
    return out


def _finishing_parts(zf, info, replacements: dict, values_only: bool, values: dict | None = None) -> dict:
    """The workbook part with current calculation properties (and print areas cut to the rows in use);
    for a values-only copy, every sheet without formulas and the calculation chain's relationship and
    content type removed."""
    workbook = set_calc_properties(zf.read("xl/workbook.xml"))
    out = {"xl/workbook.xml": set_print_areas(workbook, _print_areas(zf, info, values or {}))}
    if values_only:
        for _sheet, part in info.sheets:
            out[part] = drop_formulas(replacements.get(part) or zf.read(part))
        names = set(zf.namelist())
        if _CALC_CHAIN in names:
            rels, types = drop_part(zf.read("xl/_rels/workbook.xml.rels"), zf.read("[Content_Types].xml"),
                                    _CALC_CHAIN)
            out["xl/_rels/workbook.xml.rels"] = rels
            out["[Content_Types].xml"] = types
    return out


def _recalc_locked(src, dest, name, tmp, in_place, functions, limits, isolate, bar, start,
                   values_only=False) -> RecalcReport:
    import zipfile

    bar.phase("checking the file")
    ext = os.path.splitext(src)[1].lower()
    ext = ext if ext in _ENGINE_SUFFIXES else ".xlsx"
    snapshot = os.path.join(tmp, "upload" + ext)
    source_stat = snapshot_file(src, snapshot, limits=limits, name=name)
    info = check_workbook(snapshot, limits=limits, name=name)
    functions = xlbridge_excel_functions() if functions is None else functions
    sheet_names = {sheet.upper(): sheet for sheet, _ in info.sheets}

    private = {tmp: "", snapshot: name}
    # the engine runs even without formulas: its reading of the workbook (openpyxl, and the streamed reading
    # of each sheet) checks what Excel would have to repair, so an output is always a workbook openpyxl opens
    bar.phase("loading the formula engine")
    _engine()  # import the engine here, once: forked children inherit it instead of importing it again
    engine_dir = os.path.join(tmp, "engine")
    os.mkdir(engine_dir, 0o700)
    # the engine reads a private copy, alone in its folder
    engine_copy = os.path.join(engine_dir, "workbook" + ext)
    private[engine_copy] = name
    private[engine_dir] = ""
    copy_zip(snapshot, engine_copy, {})
    bar.phase("reading and evaluating the formulas")
    values, messages, layouts = _run_engine(engine_copy, info, functions, limits, name, sheet_names,
                                            private, tick=bar.tick, isolate=isolate)
    parts = {sheet: part for sheet, part in info.sheets if sheet in layouts}
    replacements, errors, warnings, written = {}, [], [], 0
    call_errors = messages.get(_CALL_ERRORS, {})
    shown_calls: set = set()
    cell_messages = messages.get(_CELL_MESSAGES, {})
    reasons = {key: "; ".join(found[:3]) + (" (and more)" if len(found) > 3 else "")
               for key, found in messages.get(_FORMULA_REASONS, {}).items()}
    unfollowed = messages.get(_UNFOLLOWED, set())
    with zipfile.ZipFile(snapshot) as zf:
        for sheet, part in parts.items():
            bar.phase(f"writing {sheet}")
            layout = layouts[sheet]
            vals = values.get(sheet, {})
            up = sheet.upper()
            anchors = {}
            for r1, c1, r2, c2 in layout.array_ranges:
                for r in range(r1, r2 + 1):
                    for c in range(c1, c2 + 1):
                        anchors[(r, c)] = (r1, c1)
            for (r, c), v in sorted(vals.items()):
                anchor = anchors.get((r, c), (r, c))
                if isinstance(v, ExcelErrorValue):
                    formula = layout.formula_cells.get(anchor, "")
                    key = (up, cell_ref(*anchor))
                    if key in unfollowed and v.code != "#REF!" and key not in cell_messages:
                        # an error only because a linked book was not opened (a range of it gives #VALUE!
                        # in one cell): #REF!, as Excel shows a link it cannot update
                        v = vals[(r, c)] = ExcelErrorValue("#REF!", LINK_NOT_FOLLOWED)
                    msg = (cell_messages.get(key) or (LINK_NOT_FOLLOWED if v.code == "#REF!" and key in unfollowed
                                                       else "")
                           or v.message or reasons.get(key) or _messages_for(formula, messages)
                           or ERROR_MEANINGS.get(v.code, ""))
                    errors.append(RecalcCellError(sheet, cell_ref(r, c), v.code,
                                                  one_line(scrub_paths(msg, private), 400)))
                elif isinstance(v, str):
                    if v in call_errors:
                        shown_calls.add(v)
                        errors.append(RecalcCellError(sheet, cell_ref(r, c), "message", one_line(v, 400)))
                    if len(v) > EXCEL_MAX_TEXT:
                        warnings.append(f"{_qualified(sheet, cell_ref(r, c))}: text of {len(v):,} characters "
                                        f"clipped to Excel's limit of {EXCEL_MAX_TEXT:,}")
                        vals[(r, c)] = v[:EXCEL_MAX_TEXT]
            replacements[part] = patch_sheet(zf.read(part), layout, vals)
            written += len(vals)
        errors += _hidden_call_errors(messages.get(_LIMIT_CALLS, {}), shown_calls, layouts)
        replacements.update(_finishing_parts(zf, info, replacements, values_only, values))
        errors += _capacity_errors(zf, info)
    backup = src + ".bak" if in_place else None
    bar.phase(f"saving {os.path.basename(dest)}")
    keep = None
    if in_place:
        keep = source_stat
    else:
        with contextlib.suppress(OSError):
            existing = os.stat(dest)
            if stat.S_ISREG(existing.st_mode):
                keep = existing
    mode = None if keep is None else stat.S_IMODE(keep.st_mode)
    owner = None if keep is None else (keep.st_uid, keep.st_gid)

    def write_output(fh):
        copy_zip(snapshot, fh, replacements, drop={_CALC_CHAIN} if values_only else ())

    def write_backup():
        def copy(fh):
            with open(snapshot, "rb") as raw:
                while chunk := raw.read(1 << 20):
                    fh.write(chunk)
        write_atomic(backup, copy, mode=mode, owner=owner)

    write_atomic(dest, write_output, mode=mode, owner=owner, before_replace=write_backup if in_place else None)
    return RecalcReport(
        source=src, output=dest, backup=backup, sheets=len(layouts),
        formula_cells=sum(len(lay.formula_cells) for lay in layouts.values()), cells_written=written,
        errors=tuple(errors), seconds=time.perf_counter() - start, has_vba=info.has_vba,
        warnings=tuple(warnings),
    )
