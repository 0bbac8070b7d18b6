"""Recalculate every formula of a workbook headlessly and write the results as cached values.

This is ``xlbridge recalc BOOK``, written to run on a server for files uploaded by anyone
(docs/recalc.md, "Running it on a server"). The steps, in order:

1. Leftovers of killed runs are removed (:func:`xlbridge.batch.guard.safety.remove_stale_leftovers`), the
   destination is locked (:class:`xlbridge.batch.guard.safety.BookLock`), and the input is copied into a private
   temporary folder (:func:`xlbridge.batch.guard.safety.snapshot_file`: a FIFO, device or folder is refused at
   once); everything after reads only that snapshot.
2. The gate (:func:`xlbridge.batch.guard.gate.check_upload`) refuses hostile or broken files before anything else
   reads a part or a name of them: :func:`xlbridge.batch.guard.safety.check_workbook` scans the copy whole (zip
   bombs, entity bombs, XXE, non-workbooks, truncated or password-protected files, relationships leaving the
   package, missing sheets; cells, rows, shared strings, styles and formula lengths counted against the limits
   while the XML streams), then the template's declared areas are read and clipped to what the sheets hold. The
   read stage (:func:`xlbridge.batch.read.book.read_book`) reads the template sheets once (layout mistakes, rows
   inserted into a table, the printable tables' last rows, the header names).
3. Every worksheet part is scanned (:func:`xlbridge.batch.read.sheetxml.scan_sheet`) for its formula cells
   and array-formula ranges; the cached copies of linked workbooks are read
   (:func:`xlbridge.batch.read.bookparts.read_external_links`).
4. The formula engine of the `formulas <https://pypi.org/project/formulas/>`_ package evaluates
   the whole workbook, standard Excel functions and the xlbridge functions
   (``xlbridge.udfs.EXCEL_FUNCTIONS``, registered under their Excel names) alike, in a
   :class:`~xlbridge.batch.evaluate.child.ChildProcess`: its own session, killed with the parent, address space limited to
   ``limits.max_memory``, a time limit of ``limits.max_seconds``, working in an empty private folder,
   unable to open any file but its copy of the workbook. :func:`defuse_external_links` makes the
   engine serve links to other workbooks from Excel's cached copy (as Excel does when links are not
   updated) or as ``#REF!`` ("link to another workbook not followed"); it never opens another file.
5. The results are spliced into a *copy* of the file as the cells' cached values (the sheet parts
   patched in the engine's process, :mod:`xlbridge.batch.evaluate.splice` and
   :func:`xlbridge.batch.write.xlsxpatch.patch_sheet`; the copy made by :func:`xlbridge.batch.write.xlsxpatch.copy_zip`); nothing is re-saved
   through openpyxl, so formulas, VBA, charts, styles, validation and defined names stay as they were.
   The copy is written atomically (:func:`xlbridge.batch.guard.safety.write_atomic`). With ``in_place=True`` the
   previous book is kept as ``BOOK.bak`` (e.g. ``pairs.xlsx.bak``, itself written atomically) and the
   book keeps its mode and owner; otherwise the input is never written.

How the xlbridge functions see their arguments and what becomes of their results:
:mod:`xlbridge.batch.evaluate.engine`.

>>> default_output_path("workbooks/pairs.xlsx")
'workbooks/pairs-recalculated.xlsx'
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import shutil
import stat
import sys
import time
from typing import Any

from ..core.errors import WorkbookError
from ..core.template_contract import PAIRS_PARAMETER_ARGUMENTS
from ..core.travellerrow import column_named, parameter_named
from .guard.safety import (
    DEFAULT_LIMITS,
    BookLock,
    SafetyLimits,
    WorkbookInfo,
    check_regular_file,
    clip,
    one_line,
    private_tempdir,
    remove_stale_leftovers,
    scrub_paths,
    write_atomic,
)
from .guard.gate import CheckedBook, check_upload
from .cells import ExcelErrorValue, cell_ref, column_letters, parse_ref, qualified, quote_sheet
from .write.inserted import fill_inserted_rows
from .write.xlsxpatch import copy_zip
from .write.calcprops import drop_formulas, drop_part, set_calc_properties, set_print_areas
from .write.charts import cut_chart_tables
from .read.book import BookRead, read_book, unfilled_rows
from .read.capacity import AreaResults, last_used_row
from .evaluate.child import EngineJob, engine_process, run_engine
from .cores import book_cores
from .frames import with_room
from .evaluate.engine import before_sandbox
from .evaluate.splice import EngineSummary, hidden_sheets, reported_at
from .guard.links import LINK_NOT_FOLLOWED, names_other_book

__all__ = [
    "RecalcCellError",
    "RecalcReport",
    "default_output_path",
    "recalc_workbook",
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

_ENGINE_SUFFIXES = (".xlsx", ".xlsm", ".xltx", ".xltm")


@dataclasses.dataclass(frozen=True)
class RecalcCellError:
    """One cell that evaluated to an Excel error, with what is known about why.

    ``code``: the cell's error value (``#VALUE!``), or what kind of finding it is (``input``: a mistake at the cell a
    member typed; ``layout``: the book's tables; ``message``: a function's message in a cell), which the line a
    member reads does not say (the JSON report does).

    >>> str(RecalcCellError("Travellers", "K7", "#VALUE!", "MATCHPOINTS: impossible score: 410"))
    'Travellers!K7: #VALUE! MATCHPOINTS: impossible score: 410'
    >>> str(RecalcCellError("Travellers", "F11", "input", "no tricks"))
    'Travellers!F11: no tricks'
    """

    sheet: str
    cell: str
    code: str
    message: str = ""

    def __str__(self):
        code = self.code if self.code.startswith("#") or not self.message else ""
        return " ".join(p for p in (f"{qualified(self.sheet, self.cell)}:", code, self.message) if p).rstrip()


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


def default_output_path(book: str | os.PathLike, *, values_only: bool = False) -> str:
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


_CALLED = re.compile(r"(?<![A-Z0-9_.])(?:_XLUDF\.)?([A-Z_][A-Z0-9_.]*)\s*\(")


def _messages_for(formula: str, by_function: dict) -> str:
    """The messages of the custom functions that ``formula`` calls (``IMPS`` is not ``CROSS_IMPS``);
    ``by_function``: :attr:`EngineMessages.by_function <xlbridge.batch.evaluate.engine.EngineMessages>`.

    >>> _messages_for("=CROSS_IMPS(A1:A4)", {"IMPS": ["bad"], "CROSS_IMPS": ["board 2: 7 scores"]})
    'CROSS_IMPS: board 2: 7 scores'
    """
    called = set(_CALLED.findall(formula.upper()))
    found = []
    for fname, msgs in by_function.items():
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


@with_room
def recalc_workbook(book: str | os.PathLike, output: str | os.PathLike | None = None, *, in_place: bool = False,
                    functions: dict | None = None,
                    progress: bool = False, limits: SafetyLimits | None = None,
                    isolate: bool = True, values_only: bool = False) -> RecalcReport:
    """Recalculate every formula of ``book`` and write the results as cached values into a copy.

    The copy's calculation properties say its values are current (no ``fullCalcOnLoad``, a current
    ``calcId``: :mod:`xlbridge.batch.write.calcprops`), so LibreOffice, Excel without the add-in and any
    reader show the values; Excel with the add-in still recalculates a cell whose inputs change.
    ``values_only=True`` writes a copy whose formulas are replaced by their values (for mailing
    results; not with ``in_place``).

    ``output``: where to write (default :func:`default_output_path`); ``in_place=True`` replaces
    ``book`` itself atomically after keeping the previous file as ``book + ".bak"`` (both keep the
    book's mode, and owner when run as root). A new output gets the umask's mode; an output that is
    replaced keeps its mode. ``functions``: {EXCEL NAME: callable} for the custom functions (default
    :func:`xlbridge_excel_functions`). ``limits``: :class:`xlbridge.batch.guard.safety.SafetyLimits` (file
    checks, and memory/time of the engine when ``isolate`` is true, the default; without it the
    engine runs in this process, unbounded, which only tests should do). Raises
    :class:`xlbridge.core.errors.WorkbookError` when the file is refused (:class:`xlbridge.core.errors.WorkbookLimitError`
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
        with BookLock(dest, timeout=limits.max_seconds, name=name, wait=limits.max_seconds - _say_where(limits)), \
                private_tempdir() as tmp:
            asked = Asked(src, dest, name, in_place, values_only, functions, limits, isolate)
            return _recalc_locked(asked, tmp, bar, start)
    except WorkbookError as exc:
        if exc.where is None:  # (the scanners name the sheet and cell; the file goes in front)
            raise exc.at(name) from None
        raise
    finally:
        bar.close()


_CALC_CHAIN = "xl/calcChain.xml"


def _at_input_cells(errors: list, headers: dict) -> list:
    """The errors of a row's result cells that a row function gave for a mistake in one of the row's inputs (its
    reason names the input column: :func:`xlbridge.core.travellerrow.column_named`), named once a row at that input
    cell, in the member's words (``Travellers!F11: no tricks; ...``), rather than at each result cell showing
    it; ``headers``: {sheet: {header name: column}} of the input tables (the read stage's). Other errors as they are.

    >>> e = RecalcCellError("Travellers", "H11", "#VALUE!", "SCORE_OR_TYPED: no tricks (column Tricks)")
    >>> [str(x) for x in _at_input_cells([e, dataclasses.replace(e, cell="N11")], {"Travellers": {"Tricks": 6}})]
    ['Travellers!F11: no tricks; the row is left out of the results until it is put right']

    Another error value of a row so named (a result cell reading the row's first: ``Boards!K12`` the IMPs B of a
    row whose IMPs A names its empty room) is that mistake's, not named again.

    >>> b = RecalcCellError("Boards", "J12", "#VALUE!", "WEIGHTED_IMPS: no score in room 2 (column Room 2)")
    >>> [str(x) for x in _at_input_cells([b, RecalcCellError("Boards", "K12", "#VALUE!", "wrong type")],
    ...                                  {"Boards": {"Room 2": 9}})]
    ['Boards!I12: no score in room 2; the row is left out of the results until it is put right']
    """
    out: list = []
    seen, rows = set(), set()
    later = []  # (the other error values, kept unless their row's mistake was named)
    vague = []  # (a formula's reasons of several rows together: said only for a row named by no cell of its own)

    def named(e: RecalcCellError, row: int, col: int, words: str) -> None:
        rows.add((e.sheet, row))
        if (e.sheet, row, col) not in seen:
            seen.add((e.sheet, row, col))
            out.append(RecalcCellError(e.sheet, cell_ref(row, col), "input",
                                       f"{words}; the row is left out of the results until it is put right"))

    for e in errors:
        found = column_named(e.message) if e.code.startswith("#") else None
        col = None if found is None else headers.get(e.sheet, {}).get(found[0])
        if found is None or col is None:
            later.append((len(out), e))
        elif e.message.count("(column ") > 1:
            vague.append((len(out), e, col, found[1]))
        else:
            named(e, parse_ref(e.cell)[0], col, found[1])
    for at, e, col, words in vague:
        row = parse_ref(e.cell)[0]
        if (e.sheet, row) not in rows:
            named(e, row, col, words)
    for at, e in reversed(later):  # (each back in its place, the order of the cells kept)
        if not (e.code.startswith("#") and e.sheet in headers and (e.sheet, parse_ref(e.cell)[0]) in rows):
            out.insert(min(at, len(out)), e)
    return out


def _at_parameter(errors: list, parameters: dict) -> list:
    """The errors a function gave for a mistake of a template's parameter (its reason names the parameter:
    :func:`xlbridge.core.travellerrow.parameter_named`), named once at the parameter's cell, in the member's words
    (``Travellers!R6: board 1: expected 2 results but there are 3 ...``), rather than at each result cell showing
    it; ``parameters``: {sheet: {label: (row, column)}} (the read stage's). Other errors as they are.

    >>> e = RecalcCellError("Ranking", "A5", "#VALUE!", "PAIRS_STANDINGS: board 1: expected 2 results (parameter E)")
    >>> [str(x) for x in _at_parameter([e, dataclasses.replace(e, sheet="Travellers", cell="N5")],
    ...                                {"Travellers": {"E": (6, 18)}})]
    ['Travellers!R6: board 1: expected 2 results; no matchpoints or ranking until it is put right']

    A value the function's argument reading a parameter refuses (``expected: ...``) is that parameter's mistake too:

    >>> e = RecalcCellError("Travellers", "N5", "#VALUE!", "WEIGHTED_MP: expected: expected a whole number, got 0")
    >>> [str(x) for x in _at_parameter([e], {"Travellers": {"Expected results per board": (6, 18)}})]
    ['Travellers!R6: expected a whole number, got 0; no matchpoints or ranking until it is put right']
    """
    where = {label: (sheet, at) for sheet, found in parameters.items() for label, at in found.items()}
    out, named = [], set()
    for e in errors:
        found = parameter_named(e.message) if e.code.startswith("#") or e.code == "message" else None
        if found is None and (e.code.startswith("#") or e.code == "message"):  # (a value the argument refuses)
            m = re.match(r"^[A-Z][A-Z0-9_.]*: ([a-z_]+): (.+)$", e.message, re.S)
            if m is not None and m.group(1) in PAIRS_PARAMETER_ARGUMENTS:
                found = (PAIRS_PARAMETER_ARGUMENTS[m.group(1)], m.group(2))
        if found is None or found[0] not in where:
            out.append(e)
            continue
        sheet, at = where[found[0]]
        if (sheet, at) not in named:
            named.add((sheet, at))
            out.append(RecalcCellError(sheet, cell_ref(*at), "input",
                                       f"{found[1]}; no matchpoints or ranking until it is put right"))
    return out


def _said_once(errors: list, formula_of: dict, most: int = 20) -> list:
    """``errors`` with the cells of a sheet holding the same error in the same words, when more than ``most`` do (a
    formula's whole result one error, and the cells in view showing it), said in one line: the first cell named, the
    others counted (a table of 10,000 rows would say it 10,000 times). A few such cells are each named.
    ``formula_of``: {(sheet, cell): (SHEET, anchor)} of the formulas the cells show (kept for the report's reader).

    >>> e = RecalcCellError("Travellers", "N5", "#VALUE!", "WEIGHTED_MP: unknown matchpoint scale 'X'")
    >>> more = [dataclasses.replace(e, cell=c) for c in ("O5", "N6")]
    >>> [str(x) for x in _said_once([e, *more], {}, most=2)]
    ["Travellers!N5: #VALUE! WEIGHTED_MP: unknown matchpoint scale 'X' (and 2 more cells of this sheet)"]
    >>> len(_said_once([e, *more], {}))
    3
    """
    def key(e: RecalcCellError) -> tuple | None:
        said = (e.code.startswith("#") or e.code == "message") and e.message
        return (e.sheet, e.code, e.message) if said else None

    sizes: dict[tuple, int] = {}
    for e in errors:
        k = key(e)
        if k is not None:
            sizes[k] = sizes.get(k, 0) + 1
    seen: dict[tuple, int] = {}
    counts: dict[int, int] = {}
    out: list = []
    for e in errors:
        k = key(e)
        if k is None or sizes[k] <= most:
            out.append(e)
        elif k in seen:
            counts[seen[k]] += 1
        else:
            seen[k] = len(out)
            counts[len(out)] = 0
            out.append(e)
    for i, more in counts.items():
        if more:
            out[i] = dataclasses.replace(out[i], message=f"{out[i].message} (and {more:,} more cell"
                                                         f"{'s' if more > 1 else ''} of this sheet)")
    return out


def _say_where(limits: SafetyLimits) -> float:
    """The moment a bounded wait inside the run stops before the command's own alarm at ``--timeout`` (the
    guard's :func:`~xlbridge.batch.guard.uploads.upload_limits`), so that its refusal, which says where the run
    was, is the one given."""
    return min(0.5, limits.max_seconds / 10)


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


def _print_areas(read: BookRead, results: dict) -> dict:
    """{localSheetId: print area} for the sheets declaring ``XLBRIDGE_PRINT``: the declared table cut after its last
    row holding a constant or a non-blank result, so a
    10,000-row template prints the rows in use, not hundreds of blank pages, and a table
    :data:`~xlbridge.batch.read.capacity.WIDE_COLUMNS` wide or wider after its last column in use too (the
    constants: the read stage's :attr:`~xlbridge.batch.read.book.BookRead.print_constants`; ``results``: {area:
    AreaResults}, :class:`xlbridge.batch.evaluate.splice.EngineSummary`). Where the engine's valued arrays are not
    those the bytes showed (a comment or CDATA holding an array formula's text, an array the engine gave no
    value), the part the read stage read is searched again with the engine's."""
    order = [sheet for sheet, _ in read.book.sheets]
    out = {}
    for area in read.book.areas.printed:
        sheet, r1, c1, _r2, c2 = area
        found = results.get(area) or AreaResults(0)
        guess, last, columns = read.print_constants.get(area, ((), r1, None))
        if guess != found.array_ranges or area not in read.print_constants:
            last, columns = last_used_row(read.part_rows(sheet), area, found), None
        last = max(last, found.last_row)
        if columns is not None:  # (a wide table: its columns in use, constants and non-blank results)
            c2 = max(columns, found.last_col)
        # (quoted and lettered here as openpyxl does: openpyxl, 0.17 s to import, is not needed in this process)
        out[order.index(sheet)] = (f"{quote_sheet(sheet)}!${column_letters(c1)}${r1}:"
                                   f"${column_letters(c2)}${last}")
    return out


def _workbook_part(zf, read: BookRead, results: dict) -> bytes:
    """The workbook part with current calculation properties (and print areas cut to the rows in use:
    :func:`_print_areas`)."""
    workbook = set_calc_properties(zf.read("xl/workbook.xml"))
    return set_print_areas(workbook, _print_areas(read, results))


def _values_only_parts(zf, info, replacements: dict) -> dict:
    """For a values-only copy: every sheet without formulas, and the calculation chain's relationship and
    content type removed."""
    out = {}
    for _sheet, part in info.sheets:
        data = replacements.get(part)
        out[part] = drop_formulas((data() if callable(data) else data) or zf.read(part))
    names = set(zf.namelist())
    if _CALC_CHAIN in names:
        rels, types = drop_part(zf.read("xl/_rels/workbook.xml.rels"), zf.read("[Content_Types].xml"),
                                _CALC_CHAIN)
        out["xl/_rels/workbook.xml.rels"] = rels
        out["[Content_Types].xml"] = types
    # the members' handout: the results first and open, the scorer's sheets, prompts and notes left out
    from .write.calcprops import handout_parts

    book = replacements.get("xl/workbook.xml")
    book = (book() if callable(book) else book) or zf.read("xl/workbook.xml")
    out.update(handout_parts(book, list(info.sheets), lambda part: out[part]))
    return out


@dataclasses.dataclass(frozen=True)
class Asked:
    """What :func:`recalc_workbook` was asked: the book, where its copy goes and the bounds of the run."""

    src: str
    dest: str
    name: str  # the book's file name, as every message names it
    in_place: bool
    values_only: bool
    functions: dict | None  # None: xlbridge's own (:func:`xlbridge_excel_functions`)
    limits: SafetyLimits
    isolate: bool


@dataclasses.dataclass
class Run:
    """The state of one run of :func:`recalc_workbook`, passed from stage to stage.

    Made once the guard has passed the file (stage 1, :func:`~xlbridge.batch.guard.gate.check_upload`):
    ``checked`` (the :class:`~xlbridge.batch.guard.gate.CheckedBook`: the private copy, what the scan learnt, the
    declared areas clipped), ``source_stat`` (the input's status when copied: an in-place run keeps its mode),
    ``ext`` (the suffix the engine reads) and ``private`` ({private path: what the user may see}). Then, stage by
    stage: ``read`` (stage 2, :func:`~xlbridge.batch.read.book.read_book`), ``book`` (the book the engine reads and
    the copy is made of: the checked one, or its copy with the formulas of the rows inserted into a table),
    ``filled`` (the warnings of that filling), ``layout_errors`` (the read stage's mistakes, and the result cells
    still without a formula) and ``findings`` (:func:`_report` of the engine's summary, made while the engine's
    process still patches the sheets: stage 3, :func:`_evaluate`).
    """

    asked: Asked
    tmp: str
    bar: _Progress
    start: float
    checked: CheckedBook
    ext: str
    source_stat: os.stat_result
    private: dict
    read: BookRead | None = None
    book: CheckedBook | None = None
    filled: list = dataclasses.field(default_factory=list)
    layout_errors: list = dataclasses.field(default_factory=list)
    findings: Findings | None = None
    parts_file: Any = None  # the file the engine's process writes the patched parts into (opened with its job, read by stage 4)

    @property
    def info(self) -> WorkbookInfo:
        return self.checked.info


@dataclasses.dataclass(frozen=True)
class Findings:
    """What the report says of the engine's result (:func:`_report`): the error cells with their messages,
    how many values were written, the warnings, the workbook part (current calculation properties, print
    areas cut to the rows in use) and the results cut at their range (reported after the capacity errors)."""

    errors: list
    written: int
    warnings: list
    workbook_part: bytes
    cut: list


def _recalc_locked(asked: Asked, tmp: str, bar: _Progress, start: float) -> RecalcReport:
    """The four stages, once each and in order: guard (:func:`~xlbridge.batch.guard.gate.check_upload`: the private
    copy scanned whole before anything reads a part or a name of it), read (:func:`~xlbridge.batch.read.book.read_book`),
    evaluate (:func:`_evaluate`) and write (:func:`_write_results`), the run's state passed between them."""
    bar.phase("checking the file")
    ext = os.path.splitext(asked.src)[1].lower()
    ext = ext if ext in _ENGINE_SUFFIXES else ".xlsx"
    checked, source_stat = check_upload(asked.src, os.path.join(tmp, "upload" + ext), limits=asked.limits,
                                        name=asked.name)
    run = Run(asked, tmp, bar, start, checked, ext, source_stat, {tmp: "", checked.path: asked.name})
    try:
        job = _engine_job(run)
        # the engine's process imports the engine while the read stage runs: it reads nothing of the book (whose
        # copy for it is not written yet) until the evaluate stage lets it run (:func:`~.evaluate.child.engine_process`)
        with contextlib.ExitStack() as stack:
            child = engine_process(job)
            if child is not None:
                stack.enter_context(child)
            run.read = read_book(checked)
            summary, patched = _evaluate(run, job, child)
    except BaseException:
        if run.parts_file is not None:
            run.parts_file.close()
        raise
    return _write_results(run, summary, patched)


def _layout_errors(read: BookRead, written: dict) -> list:
    """The read stage's layout mistakes and the result cells still without a formula once the inserted rows were
    given theirs, as report lines."""
    return [RecalcCellError(sheet, cell_ref(*hit), code, text)
            for sheet, hit, code, text in read.mistakes + unfilled_rows(read, written)]


def _report(run: Run, summary: EngineSummary) -> Findings:
    """The :class:`Findings` of the engine's result (its summary): every error cell with its message (a cell
    in view showing a hidden result reports the result's error), the calls that could not run, the workbook
    part with current calculation properties and print areas, and the results cut at their range."""
    import zipfile

    assert run.book is not None and run.read is not None
    snapshot, info, private, bar = run.book.path, run.info, run.private, run.bar
    values, messages, layouts, warnings = summary.values, summary.messages, summary.layouts, summary.warnings
    parts = {sheet: part for sheet, part in info.sheets if sheet in layouts}
    errors, written = [], 0
    formula_of: dict = {}  # (sheet, cell) of an error cell -> (SHEET, anchor) of the formula whose result it shows
    warnings = list(warnings)
    call_errors = messages.call_errors
    shown_calls: set = set()
    cell_messages, cell_reasons = messages.cell_messages, messages.cell_reasons
    reasons = {key: "; ".join(found[:3]) + (" (and more)" if len(found) > 3 else "")
               for key, found in messages.formula_reasons.items()}
    unfollowed = messages.unfollowed
    shown = messages.shown
    clipped = messages.clipped_calls
    by_upper = {sheet.upper(): sheet for sheet in layouts}
    anchors = summary.anchors
    shown_errors: set = set()  # (SHEET, (row, col)) of hidden results whose error a cell in view reports
    with zipfile.ZipFile(snapshot) as zf:
        hidden = hidden_sheets(zf.read("xl/workbook.xml"))
        for sheet in parts:
            bar.phase(f"writing {sheet}")
            vals = values.get(sheet, {})
            up = sheet.upper()
            whole = {pos: text for (s, pos), text in clipped.items() if s == sheet}
            # (only an error, a call's message or a clipped text: splice.summarize kept no other cell)
            for (r, c), v in sorted(vals.items()):
                v = whole.get((r, c), v)  # (a call's message clipped in the copy: reported whole)
                at = reported_at(up, (r, c), v, shown, hidden, call_errors, anchors)
                if at is not None:
                    # a cell in view showing a result of a hidden sheet: the error is the result's,
                    # reported here (with the result's reason) instead of on the hidden sheet
                    shown_errors.add(shown[(up, (r, c))])
                    up_at, anchor = at
                    place = shown[(up, (r, c))][1]
                else:
                    up_at, anchor = up, anchors[up].get((r, c), (r, c))
                    place = (r, c)
                if isinstance(v, ExcelErrorValue):
                    formula = layouts[by_upper[up_at]].formula_cells.get(anchor, "")
                    key = (up_at, cell_ref(*anchor))
                    # (the cell's own reason, by its place in its formula's array result: rows mistaken apart
                    # are named apart; else the formula's reasons)
                    own = cell_reasons.get((*key, (place[0] - anchor[0], place[1] - anchor[1])))
                    msg = (cell_messages.get(key) or (LINK_NOT_FOLLOWED if v.code == "#REF!" and key in unfollowed
                                                       else "")
                           or v.message or own or reasons.get(key) or _messages_for(formula, messages.by_function)
                           or (LINK_NOT_FOLLOWED if v.code == "#REF!" and names_other_book(formula) else "")
                           or ERROR_MEANINGS.get(v.code, ""))
                    errors.append(RecalcCellError(sheet, cell_ref(r, c), v.code,
                                                  one_line(scrub_paths(msg, private), 400)))
                    formula_of[(sheet, cell_ref(r, c))] = (up_at, anchor)
                elif isinstance(v, str) and v in call_errors:
                    shown_calls.add(v)
                    errors.append(RecalcCellError(sheet, cell_ref(r, c), "message", one_line(v, 400)))
                    formula_of[(sheet, cell_ref(r, c))] = (up, anchors[up].get((r, c), (r, c)))
            written += summary.written.get(sheet, 0)
        errors = [e for e in errors if (e.sheet.upper(), parse_ref(e.cell)) not in shown_errors]
        errors = _said_once(_at_parameter(_at_input_cells(errors, run.read.headers), run.read.parameters),
                            formula_of)
        errors += _hidden_call_errors(messages.limit_calls, shown_calls, layouts)
        workbook_part = _workbook_part(zf, run.read, summary.print_results)
    cut = []
    real = {sheet.upper(): sheet for sheet in layouts}
    in_view = {target: where for where, target in shown.items()}
    for (up, ref), text in sorted(messages.cut_rows.items()):
        anchor = parse_ref(ref.split(":", 1)[0])
        up, anchor = in_view.get((up, anchor), (up, anchor))  # named where it shows
        cut.append(RecalcCellError(real.get(up, up), cell_ref(*anchor), "capacity", text))
    return Findings(errors, written, warnings, workbook_part, cut)


def _engine_job(run: Run) -> EngineJob:
    """The engine's job (:class:`~.evaluate.child.EngineJob`), made once the guard has passed the book: the folder
    its process reads in (the copy of the book it reads is written there by :func:`_evaluate`), the file it writes
    the patched parts into (:attr:`Run.parts_file`), its functions and what is left of the command's time."""
    asked, tmp, info = run.asked, run.tmp, run.info
    functions = xlbridge_excel_functions() if asked.functions is None else asked.functions
    sheet_names = {sheet.upper(): sheet for sheet, _ in info.sheets}
    before_sandbox()  # (the engine's process imports the engine itself: see engine.before_sandbox)
    engine_dir = os.path.join(tmp, "engine")
    os.mkdir(engine_dir, 0o700)
    # the engine reads a private copy, alone in its folder
    engine_copy = os.path.join(engine_dir, "workbook" + run.ext)
    run.private[engine_copy] = asked.name
    run.private[engine_dir] = ""
    two_cores = book_cores() >= 2  # (a large part is then read in two halves, on both cores)
    # the engine's process writes the patched sheet parts into this file (splice.evaluate_and_splice): a
    # large part is then never sent through the pipe, nor held whole by either process
    run.parts_file = open(os.path.join(tmp, "patched-parts"), "xb+", buffering=0)  # (closed by _write_results)
    return EngineJob(engine_copy, info, functions, asked.limits, asked.name, sheet_names, run.private,
                     isolate=asked.isolate, out=run.parts_file.fileno(), halves=two_cores,
                     print_areas=run.checked.areas.printed,
                     # (the command's time limit holds for the whole run: the engine gets what is left of it,
                     # less a moment to say where it stopped before the command's own alarm)
                     seconds=max(asked.limits.max_seconds - (time.perf_counter() - run.start)
                                 - _say_where(asked.limits), 0.01))


def _evaluate(run: Run, job: EngineJob, child: Any) -> tuple:
    """Stage 3: the rows inserted into a table given their result formulas (in a copy of the checked book:
    :mod:`xlbridge.batch.write.inserted`, from what the read stage found), then every formula evaluated in the
    engine's process (``child``: :func:`~.evaluate.child.engine_process`, which imported the engine meanwhile), which
    patches the sheet parts into a file of this run while this process makes the report's findings
    (:func:`_report`). (The engine's summary, {part: a function reading its patched bytes}.)"""
    asked, bar, tmp = run.asked, run.bar, run.tmp
    assert run.read is not None
    replacements, run.filled, written = fill_inserted_rows(run.read)
    run.layout_errors = _layout_errors(run.read, written)
    run.book = run.checked
    if replacements:
        base = os.path.join(tmp, "filled" + run.ext)
        run.private[base] = asked.name
        copy_zip(run.checked.path, base, replacements)
        run.book = run.checked.replaced(base)
    # the engine runs even without formulas: its reading of the workbook (openpyxl, and the streamed reading
    # of each sheet) checks what Excel would have to repair, so an output is always a workbook openpyxl opens
    bar.phase("loading the formula engine")
    # (bytes as checked: member by member would inflate and deflate it all)
    shutil.copyfile(run.book.path, job.engine_copy)
    bar.phase("reading and evaluating the formulas")

    def report(summary: EngineSummary) -> None:  # the errors and the workbook part, while the engine patches the sheets
        # (run_engine calls it on both paths, before it returns)
        run.findings = _report(run, summary)

    summary, patched = run_engine(job, tick=bar.tick, early=report, child=child)
    fd = run.parts_file.fileno()
    return summary, {part: _part_reader(fd, place, asked.name) for part, place in patched.items()}


def _part_reader(fd: int, place: Any, name: str):
    """A function reading a patched part back from the engine's file: ``place`` is (start, length) as the
    engine's process gave it, two whole numbers within the file (anything else is refused)."""
    size = os.fstat(fd).st_size
    ok = (isinstance(place, tuple) and len(place) == 2 and all(type(x) is int for x in place)
          and 0 <= place[0] and 0 <= place[1] <= size - place[0])
    if not ok:
        raise WorkbookError("the formula engine failed while writing the results (an internal error)", where=name)
    start, length = place

    def read() -> bytes:
        chunks, at, left = [], start, length
        while left:
            chunk = os.pread(fd, min(left, 1 << 24), at)
            if not chunk:
                raise WorkbookError("the formula engine failed while writing the results (an internal error)",
                                    where=name)
            chunks.append(chunk)
            at += len(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    return read


def _write_results(run: Run, summary: EngineSummary, patched: dict) -> RecalcReport:
    """Stage 4: the copy written atomically (and the backup of an in-place run): each patched part from the
    engine's file, the workbook part of :attr:`Run.findings`; the report."""
    try:
        return _write_copy(run, summary, patched)
    finally:
        if run.parts_file is not None:
            run.parts_file.close()


def _write_copy(run: Run, summary: EngineSummary, patched: dict) -> RecalcReport:
    import zipfile

    src, dest, in_place, values_only = run.asked.src, run.asked.dest, run.asked.in_place, run.asked.values_only
    assert run.book is not None
    bar, snapshot, info = run.bar, run.book.path, run.info
    assert run.findings is not None  # (run_engine calls report() on every path before it returns)
    findings = run.findings
    errors, written, warnings = list(findings.errors), findings.written, run.filled + list(findings.warnings)
    layouts = summary.layouts
    replacements = {part: patched[part] for sheet, part in info.sheets if sheet in layouts}
    replacements["xl/workbook.xml"] = findings.workbook_part
    if values_only:
        with zipfile.ZipFile(snapshot) as zf:
            replacements.update(_values_only_parts(zf, info, replacements))
    with zipfile.ZipFile(snapshot) as zf:  # a chart table's names cut to its rows in use (write.charts)
        replacements.update(cut_chart_tables(zf, list(info.sheets), replacements))
    errors += run.layout_errors + findings.cut
    backup = src + ".bak" if in_place else None
    bar.phase(f"saving {os.path.basename(dest)}")
    keep = None
    if in_place:
        keep = run.source_stat
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
            with open(run.checked.path, "rb") as raw:  # (the book as it was: not its filled copy)
                while chunk := raw.read(1 << 20):
                    fh.write(chunk)
        assert backup is not None  # (called for --in-place only, which names the backup)
        write_atomic(backup, copy, mode=mode, owner=owner)

    write_atomic(dest, write_output, mode=mode, owner=owner, before_replace=write_backup if in_place else None)
    return RecalcReport(
        source=src, output=dest, backup=backup, sheets=len(layouts),
        formula_cells=sum(summary.formula_cells.values()), cells_written=written,
        errors=tuple(errors), seconds=time.perf_counter() - run.start, has_vba=info.has_vba,
        warnings=tuple(warnings),
    )
