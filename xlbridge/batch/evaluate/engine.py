"""Evaluate a workbook with the formulas engine and the xlbridge functions; the values it gives.

:func:`evaluate_workbook` (the whole book, results per sheet) and :func:`recalc_values` (chosen
cells) run the model of :mod:`xlbridge.batch.evaluate.model` in this process; wrappers (``_adapt_function``) turn the Excel-shaped xlbridge functions into engine functions whose every outcome is a
value or an error of its cell, and collect the messages the report lists (:class:`EngineMessages`). :mod:`xlbridge.batch.evaluate.child` runs this in a sandboxed child process.

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

>>> engine_location(ValueError("not raised in the engine")) is None
True
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

from ...core.errors import WorkbookLimitError
from ..read.aliases import alias_value, find_shown
from ..read.bookparts import read_external_links
from ..cells import ExcelErrorValue, cell_ref, parse_range
from ..frames import with_room
from ..guard.limits import clip, one_line
from ..guard.links import (
    BOOK_OF_NODE,
    ExternalLinkRefused,
    LINK_NOT_FOLLOWED,
    defuse_external_links,
    split_node,
    unfollowed_cells,
)
from ..formulas_seam import EngineNames, engine_names, engine_patched, evaluated_node, function_registry
from .model import compiling_cell, is_memory_error, load_engine_workbook, model_class, record_phase

__all__ = [
    "EngineMessages",
    "EngineStopped",
    "engine_location",
    "engine_modules",
    "evaluate_workbook",
    "message_of",
    "recalc_values",
]

@dataclasses.dataclass
class EngineMessages:
    """What the engine says besides the values, filled while it evaluates and sent with them.

    Sheets are named in capitals (``SHEET``), cells by their A1 reference (``ref``) unless said.

    - ``by_function``: {FUNCTION NAME: [message, ...]}, at most 1,000 per function, of the calls
      whose message no formula cell holds;
    - ``call_errors``: {message: FUNCTION NAME} of the calls that could not run (the cell shows the message);
    - ``limit_calls``: {message: (FUNCTION NAME, (SHEET, ref) or None)}: the calls refused over a work limit;
    - ``formula_reasons``: {(SHEET, ref): [why, ...]}: reasons of error cells, by formula (at most four);
    - ``cell_reasons``: {(SHEET, ref, (row, column)): why}: the reason of each error cell of an array result, by
      formula and place in the result (at most :data:`_MAX_CELL_REASONS`), so that two rows' different mistakes
      are each named with their own;
    - ``cell_messages``: {(SHEET, ref): message}: formulas the engine cannot read, DDE links;
    - ``unfollowed``: {(SHEET, ref)} of cells that depend on a link to another workbook not followed;
    - ``cut_rows``: {(SHEET, anchor ref): message}: results longer than their array range;
    - ``shown``: {(SHEET, (row, col)): (TARGET SHEET, (row, col))}: the cells that only show an array's cell;
    - ``clipped_calls``: {(sheet, (row, col)): whole text}: calls' messages clipped to Excel's limit in the copy;
    - ``engine_path``: "ranges" (constants as range blocks from the streamed sheets), "cells" (openpyxl
      read the book; one node per cell) or "mixed" (openpyxl read the cells of the sheets the streamed
      pass could not vouch for, the others as "ranges").

    >>> m = EngineMessages()
    >>> m.note("IMPS", "board 2: 7 scores"); m.by_function
    {'IMPS': ['board 2: 7 scores']}
    """

    by_function: dict = dataclasses.field(default_factory=dict)
    call_errors: dict = dataclasses.field(default_factory=dict)
    limit_calls: dict = dataclasses.field(default_factory=dict)
    formula_reasons: dict = dataclasses.field(default_factory=dict)
    cell_reasons: dict = dataclasses.field(default_factory=dict)
    cell_messages: dict = dataclasses.field(default_factory=dict)
    unfollowed: set = dataclasses.field(default_factory=set)
    cut_rows: dict = dataclasses.field(default_factory=dict)
    shown: dict = dataclasses.field(default_factory=dict)
    clipped_calls: dict = dataclasses.field(default_factory=dict)
    engine_path: str = ""

    def note(self, name: str, text: str) -> None:
        """Keep ``text`` among function ``name``'s messages (at most :data:`_MAX_MESSAGES`)."""
        if _HEARD:
            _heard(self.note, name, text)
        found = self.by_function.setdefault(name, [])
        if len(found) < _MAX_MESSAGES:
            found.append(text)


# --------------------------------------------------------------------------------------------------
# adapters between the formulas engine and Excel-shaped Python functions


_MAX_MESSAGES = 1000  # distinct messages kept per function (a column of failing calls repeats itself)


def before_sandbox() -> None:
    """What the engine needs from outside the Python installation, done before its process is sandboxed
    (:class:`xlbridge.batch.evaluate.child.ChildProcess` then refuses such files): the table of file types
    openpyxl guesses images' types with (``/etc/mime.types``; 5 ms). The engine's own modules are
    imported in its process (:func:`engine_modules`), while this process runs the read stage
    (:func:`xlbridge.batch.evaluate.child.engine_process`); that they are installed (the ``[batch]`` extra) is checked
    here without importing them, so that their absence is one line before anything runs (ImportError)."""
    import importlib.util
    import mimetypes

    for name in ("formulas", "schedula"):
        if importlib.util.find_spec(name) is None:
            raise ImportError(f"No module named {name!r}", name=name)
    if not mimetypes.inited:
        mimetypes.init()


@functools.lru_cache(maxsize=None)
def engine_modules() -> EngineNames:
    """Import the formula engine once per process (forked children inherit it); the names of it the
    engine uses (:func:`xlbridge.batch.formulas_seam.engine_names`).

    Its function registry is :class:`xlbridge.batch.evaluate.registry.LazyFunctions`: a function module is
    imported when the book uses one of its functions (SciPy only when a function calls it).
    """
    from .registry import install

    got = engine_names()
    install()
    import openpyxl  # noqa: F401  (what the engine's child uses)
    import openpyxl.formula.translate  # noqa: F401  (shared formulas, read in the child)

    before_sandbox()  # (no-op when it ran before the sandbox, as it must in a sandboxed process)
    _IMPORTED.append(True)
    return got


_IMPORTED: list = []  # (not empty once this process imported the engine: engine_modules)


def message_of(exc: BaseException) -> str:
    try:
        text = str(exc) or type(exc).__name__
    except Exception:  # a __str__ that fails is not the cell's problem
        text = type(exc).__name__
    return one_line(text, 300)


#: the exact types of a function's result cells that are never an error with a reason (most cells)
_PLAIN_OUT = frozenset((int, float, bool, type(None)))


def _array_out(rows: list, convert: Callable[[Any], Any], placed: list, missing: Any, errors: Any = ()) -> Any:
    """A function's result rows as the engine's array (numpy, objects), each cell ``convert``-ed, a row shorter than
    the longest filled with ``missing`` (``#N/A``, as Excel fills an array); while a cell that may be an error is
    converted, ``placed[0]`` holds its (row, column) in a result of several rows (its reason's place). Full rows
    of cells ``convert`` keeps as they are, or blanks (:func:`_all_plain`; ``errors``: the error codes), are
    taken at once."""
    import numpy as np

    width = max(len(r) for r in rows)
    plain = _all_plain(rows, errors) if all(len(r) == width for r in rows) else None
    if plain is not None:  # (what ``convert`` gives each cell, without a call per cell)
        return np.array([["" if v is None else v for v in r] for r in rows] if plain else rows, object)
    out = np.empty((len(rows), width), object)
    out[:, :] = missing
    many = len(rows) > 1
    for i, r in enumerate(rows):
        for j, v in enumerate(r):
            if many and type(v) not in _PLAIN_OUT:
                placed[0] = (i, j)
            out[i, j] = convert(v)
            placed[0] = None
    return out


def _all_plain(rows: list, errors: Any) -> bool | None:
    """Whether every cell of ``rows`` is one the conversion of a function's result cell (``_adapt_function``'s
    ``cell_out``) gives back unchanged (a finite float, a whole number within 2**53: a larger one becomes a
    float, a text of the exact type ``str`` that is no error's code: an error, or a text subclass carrying a
    reason or a failed call, is converted) or None (a blank, which it gives as ""): True when some cell is
    None, False when none is, None when some cell is anything else.

    >>> _all_plain([[1.5, 2, ""], ["N", -0.0, 2 ** 53]], {"#N/A": None}), _all_plain([[1, None]], {})
    (False, True)
    >>> [_all_plain([[v]], {"#N/A": None}) for v in (float("nan"), float("inf"), 2 ** 53 + 1, True, 1j, "#N/A")]
    [None, None, None, None, None, None]
    """
    blank = False
    for r in rows:
        for v in r:
            k = type(v)
            if k is float:
                if v - v != 0.0:  # (NaN and the infinities: #NUM!)
                    return None
            elif k is int:
                if not -_WHOLE_OUT <= v <= _WHOLE_OUT:
                    return None
            elif v is None:
                blank = True
            elif k is not str or v in errors:
                return None
    return blank


_WHOLE_OUT = 2 ** 53  # (a whole number beyond it is a result as a float: number_out)


def _adapt_function(name: str, fn, messages: EngineMessages):
    """Wrap an Excel-shaped callable for the formulas engine (see the module docstring).

    Whatever the callable returns or raises ends as a value or an Excel error of its cell: the
    wrapper itself never raises, except ``MemoryError`` (the run is then refused with the memory
    limit named, not shown as a bare ``#VALUE!``) and what is not an ``Exception`` (the time limit).
    """
    import numpy as np

    got = engine_modules()
    Array, wrap_func, Ranges, Error, XlError = got.Array, got.wrap_func, got.Ranges, got.Error, got.XlError

    note = messages.note
    placed: list = [None]  # (the place in an array result of the cell being converted, when it may be an error)

    def cell_in(v):
        if isinstance(v, XlError):
            return str(v)  # "#N/A": xlwings' err_to_str=True, which the xlbridge functions declare
        if v is got.EMPTY or v is None:
            return None
        if isinstance(v, (bool, np.bool_)):
            return bool(v)
        if isinstance(v, (int, float, np.integer, np.floating)):
            return float(v)
        return v

    plain_in, empty = frozenset((float, str)), got.EMPTY
    numbers_in, empty_in = frozenset((int, float)), frozenset((type(empty),))

    def column_in(col: list) -> list:
        # one column's cells as xlwings gives them: a whole column of numbers, or of blanks, in one call
        kinds = set(map(type, col))
        if kinds <= plain_in:
            return col
        if kinds <= numbers_in:
            return list(map(float, col))
        if kinds == empty_in and col.count(empty) == len(col):
            return [None] * len(col)
        # (the engine's errors and blanks are str subclasses); the common kinds first, without a call
        return [v if (k := type(v)) is float or k is str else float(v) if k is int
                else None if v is empty else cell_in(v) for v in col]

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
            if a.ndim != 2 or not a.size:
                return a.tolist()
            width = a.shape[1]
            if width == 1:
                return [[v] for v in column_in(a.ravel().tolist())]
            flat = a.ravel().tolist()
            if plain_in.issuperset(map(type, flat)):
                return [flat[i:i + width] for i in range(0, len(flat), width)]
            if a.shape[0] < width:  # (a wide array, such as a column TRANSPOSEd: row by row, each cell as alone)
                return [column_in(flat[i:i + width]) for i in range(0, len(flat), width)]
            return list(map(list, zip(*[column_in(a[:, j].tolist()) for j in range(width)])))
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
                    note_reason(messages, name, reason, placed[0])
                return Error.errors[v]
            if type(v).__name__ in ("CallError", "LimitCallError"):  # xlbridge.excel: the call could not run
                messages.call_errors[str(v)] = name
                if type(v).__name__ == "LimitCallError":  # reported even where no cell shows it
                    messages.limit_calls.setdefault(str(v), (name, _cell_being_evaluated()))
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
            note(name, f"result cannot be shown ({message_of(exc)})")
            return Error.errors["#VALUE!"]

    def wrapper(*args):
        try:
            res = fn(*[arg_in(a) for a in args])
        except MemoryError:  # over the memory limit: the whole run is refused, not just this cell
            raise
        except Exception as exc:  # any failure is #VALUE! in the cell, with the message reported
            note(name, message_of(exc))
            return np.asarray([[Error.errors["#VALUE!"]]], object).view(Array)
        try:
            if isinstance(res, np.ndarray) or isinstance(res, (list, tuple)):
                rows = res.tolist() if isinstance(res, np.ndarray) else [
                    r.tolist() if isinstance(r, np.ndarray) else r for r in res]
                if rows and not isinstance(rows[0], (list, tuple)):
                    rows = [rows]  # a 1-D result is a row, as in xlwings
                rows = [r if isinstance(r, (list, tuple)) else [r] for r in rows]
                if len(rows) > 1:
                    _note_cut_rows(name, rows, messages)
                if not rows or not any(rows):
                    return np.asarray([[Error.errors["#N/A"]]], object).view(Array)
                return _array_out(rows, safe_out, placed, Error.errors["#N/A"], Error.errors).view(Array)
            return np.asarray([[safe_out(res)]], object).view(Array)
        except MemoryError:
            raise
        except Exception as exc:
            note(name, f"result cannot be shown ({message_of(exc)})")
            return np.asarray([[Error.errors["#VALUE!"]]], object).view(Array)

    wrapper.__name__ = name
    return wrap_func(wrapper, ranges=True)


@contextlib.contextmanager
def _engine_guards(path: str, messages: EngineMessages, functions: dict, progress: bool):
    """Everything the engine run changes in the formulas package, undone on exit.

    - the custom functions registered under their Excel names (and ``_xludf.`` names);
    - ``formulas.excel.xlreader.load_workbook`` refuses every file but ``path`` (a second line of
      defence behind :func:`defuse_external_links`);
    - ``MemoryError`` inside a built-in function is no longer swallowed as ``#VALUE!`` (formulas'
      ``wrap_func`` re-raises what ``formulas.functions.BaseError`` names);
    - the loggers of formulas and schedula are silenced (they print tracebacks and file paths);
    - the compile progress bar goes to stderr only with ``progress``.
    """
    import logging
    import warnings

    import tqdm

    registry = function_registry()
    saved = {}
    for name, fn in (functions or {}).items():
        for key in (name.upper(), "_XLUDF." + name.upper()):
            saved[key] = dict.get(registry, key)  # (what is set now; a lazy registry loads nothing for it)
            registry[key] = _adapt_function(name.upper(), fn, messages)
    from .registry import REASON_SINKS

    REASON_SINKS.append(functools.partial(note_reason, messages))  # (the registry's corrections say why)
    allowed = os.path.realpath(path)

    def guard_load(original_load):
        def guarded_load(filename, *args, **kwargs):
            if not isinstance(filename, str) or os.path.realpath(filename) != allowed:
                raise ExternalLinkRefused(LINK_NOT_FOLLOWED)
            kwargs["keep_links"] = False
            return original_load(filename, *args, **kwargs)

        return guarded_load

    loggers = [logging.getLogger(n) for n in ("formulas", "schedula")]
    levels = [lg.level for lg in loggers]
    bar = functools.partial(tqdm.tqdm, disable=not progress, file=sys.stderr, desc="compiling formulas", leave=False)
    for lg in loggers:  # (a level, unlike ``disabled``, also holds for their child loggers)
        lg.setLevel(logging.CRITICAL + 1)
    try:
        with warnings.catch_warnings(), engine_patched(guard_load, bar):
            warnings.simplefilter("ignore")
            yield
    finally:
        REASON_SINKS.pop()
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)
        for key, fn in saved.items():
            if fn is None:
                registry.pop(key, None)
            else:
                registry[key] = fn


def _raise_limits_only(exc) -> bool | str:
    """``raises`` of the engine's dispatcher: stop for memory, stay silent (no logged traceback) otherwise."""
    return True if is_memory_error(exc) else ""


def engine_location(exc: BaseException | None) -> tuple | None:
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
    """(SHEET, ref) of the cell a frame of schedula evaluates (:func:`xlbridge.batch.formulas_seam.evaluated_node`),
    else None."""
    node = evaluated_node(frame)
    if node is not None and BOOK_OF_NODE.match(node) and "!" in node:
        return split_node(node)
    return None


def _cell_being_evaluated() -> tuple | None:
    """(SHEET, ref) of the workbook cell whose formula the engine is evaluating now (the outermost
    evaluating frame on the stack, as :func:`engine_location` finds it in a traceback), or None."""
    frame: types.FrameType | None = sys._getframe(1)
    found = None
    while frame is not None:
        found = _node_cell(frame) or found
        frame = frame.f_back
    return found


#: the most reasons of single cells of array results kept (``EngineMessages.cell_reasons``): a bound on the memory
#: a book of many mistaken rows takes; past it the formula's reasons (``formula_reasons``) are said
_MAX_CELL_REASONS = 20_000


#: what the part being computed for several formulas says (:mod:`.subexpressions`): every note said there, to be
#: said again for each other formula answered from it, at its own cell (:func:`notes_heard`, :func:`say_again`)
_HEARD: list[list] = []


def _heard(function: Callable[..., Any], *args: Any) -> None:
    for heard in _HEARD:
        heard.append((function, args))


@contextlib.contextmanager
def notes_heard() -> Iterator[list]:
    """The notes said while the block runs, as [(function, arguments)] (a function's message, the reason a cell
    is an error, rows cut from a result): a part computed once for several formulas says them again for each
    formula it answers (:func:`say_again`), at that formula's cell, as computing it there would have."""
    heard: list = []
    _HEARD.append(heard)
    try:
        yield heard
    finally:
        _HEARD.remove(heard)


def say_again(heard: Any) -> None:
    """Say the notes of :func:`notes_heard` again, for the formula being evaluated now."""
    for function, args in heard:
        function(*args)


def note_reason(messages: EngineMessages, name: str, reason: str, place: tuple | None = None) -> None:
    """Why a cell is an error, said by function ``name``: listed at the formula cell being evaluated
    (``formula_reasons``, at most four per cell), or among ``name``'s messages when no cell is known; ``place``:
    the cell's (row, column) in the function's array result, kept with it (``cell_reasons``)."""
    if _HEARD:
        _heard(note_reason, messages, name, reason, place)
    where, text = _cell_being_evaluated() or compiling_cell(), one_line(reason, 300)
    if where is None:
        messages.note(name, text)
        return
    anchor = where[1].split(":", 1)[0]
    if place is not None and len(messages.cell_reasons) < _MAX_CELL_REASONS:
        messages.cell_reasons.setdefault((where[0], anchor, place), f"{name}: {text}")
    found = messages.formula_reasons.setdefault((where[0], anchor), [])
    if f"{name}: {text}" not in found and len(found) < 4:
        found.append(f"{name}: {text}")


def _note_cut_rows(name: str, rows: list, messages: EngineMessages) -> None:
    """A result of more rows than the array formula evaluating it has (the pairs of a session beyond the
    Ranking's 400 rows): the rows past the range would not show, so the run reports it (``cut_rows``).
    Blank rows at the end of the result are not counted: cutting them loses nothing (a template's table
    read a little past its hidden array, after rows were inserted into it)."""
    if _HEARD:
        _heard(_note_cut_rows, name, rows, messages)
    count = len(rows)
    where = _cell_being_evaluated() or compiling_cell()
    if where is None or ":" not in where[1]:
        return

    try:
        r1, _c1, r2, _c2 = parse_range(where[1])
    except Exception:
        return
    while count > r2 - r1 + 1 and all(v is None or v == "" for v in rows[count - 1]):
        count -= 1
    if count > r2 - r1 + 1:
        messages.cut_rows.setdefault(
            (where[0], where[1].split(":", 1)[0]),
            f"{name} gives {count:,} rows, more than the {r2 - r1 + 1:,} rows of this range ({where[1]}): the rest "
            f"are not shown; give the table more rows")


class EngineStopped(Exception):
    """The engine run stopped at a limit: ``kind`` "memory" or "time", ``where`` (SHEET, ref) or None."""

    def __init__(self, kind: str, where: tuple | None = None) -> None:
        super().__init__(kind)
        self.kind, self.where = kind, where


_PLAIN_OUT = frozenset((float, int, str))  # the exact types _value_out returns unchanged


def _value_out(v, names: EngineNames, np):
    """Convert one engine value to a plain Python value for writing (None = blank)."""
    if v is names.EMPTY:
        return None
    if isinstance(v, names.XlError):
        return ExcelErrorValue(str(v))
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (np.integer, np.floating)):
        return v.item()
    if isinstance(v, (str, int, float)):
        return v
    if isinstance(v, names.Ranges):  # a reference inside an array result ({=INDEX(A1:B3,{1;2;3},2)}): its cell's value,
        cell = np.asarray(v.value, object)  # 0 for a blank one, as Excel shows it; a whole range is #VALUE!
        if cell.size != 1:
            return ExcelErrorValue("#VALUE!")
        one = _value_out(cell.flat[0], names, np)
        return 0 if one is None else one
    try:
        return float(v) if hasattr(v, "__float__") else str(v)
    except Exception:
        return ExcelErrorValue("#VALUE!")


def recalc_values(path: str, targets: dict, functions: dict | None = None, *, progress: bool = False,
                  links: Any = (), book: Any = None, sheets: dict | None = None, shown: dict | None = None) -> tuple:
    """Evaluate the workbook at ``path`` with the formulas engine; return (values, messages).

    ``targets`` is {sheet name: {"cells": [(row, col), ...], "arrays": [(r1, c1, r2, c2), ...]}};
    ``values`` is {sheet name: {(row, col): value}} with values as in
    :func:`xlbridge.batch.write.xlsxpatch.patch_sheet`; ``messages`` the
    :class:`EngineMessages` of the run. ``links``: the cached copies of linked workbooks
    (:func:`xlbridge.batch.read.bookparts.read_external_links`); no other file than ``path`` is ever opened
    (:func:`defuse_external_links`). ``book`` and ``sheets``: the workbook read without its cells and
    its streamed sheets (see :func:`evaluate_workbook`); without them the engine reads ``path`` with
    openpyxl, one node per cell (the stock path). ``shown``: the cells that only show an array's
    cell (:func:`xlbridge.batch.read.aliases.find_shown`), valued after the engine on the streamed path. Runs in the calling process, with no memory or time
    limit: use :func:`recalc_workbook`. Raises :class:`EngineStopped` when memory runs out.
    """
    import numpy as np

    names = engine_modules()

    messages = EngineMessages()
    record_phase("loading")
    with _engine_guards(path, messages, functions or {}, progress):
        model = model_class()()
        state = defuse_external_links(model, path, links, book=book, sheets=sheets)
        if sheets:
            model.xlbridge.shown = shown or {}
        # (the functions a part shared by several formulas may call: formulas' own and xlbridge's, never a name's)
        from .registry import function_names

        model.xlbridge.shared.known = function_names() | {name.upper() for name in (functions or {})}
        try:
            model.loads(path)
            record_phase("linking")
            model.finish()
            model.dsp.raises = _raise_limits_only
            if progress:
                print("xlbridge recalc: evaluating ...", file=sys.stderr)
            record_phase("evaluating")
            model.xlbridge.shared.notes = (notes_heard, say_again)
            try:
                solution = model.calculate()
            finally:
                model.xlbridge.shared.clear()
        except Exception as exc:
            if is_memory_error(exc):
                raise EngineStopped("memory", engine_location(exc)) from None
            raise
        messages.cell_messages = dict(state.cell_messages)
        messages.unfollowed = unfollowed_cells(model, state) if state.refused else set()
    record_phase("collecting")
    # index results by (SHEET, ref)
    by_ref: dict = {}
    for key, val in solution.items():
        if not isinstance(key, str) or "!" not in key:
            continue
        book = BOOK_OF_NODE.match(key)  # a cell of this workbook, never one of a linked book's copy
        if book is None or book.group("dir") not in ("", ".") or book.group("file").upper() != state.main:
            continue
        by_ref[split_node(key)] = val
    values: dict = {}
    aliases = model.xlbridge.aliases.cells
    for sheet, tg in targets.items():
        got: dict = {}
        up = sheet.upper()
        shows = aliases.get(up, {})
        for r1, c1, r2, c2 in tg.get("arrays", ()):
            ref = cell_ref(r1, c1) if (r1, c1) == (r2, c2) else f"{cell_ref(r1, c1)}:{cell_ref(r2, c2)}"
            val = by_ref.get((up, ref))
            arr = getattr(val, "value", None)
            if arr is None:
                continue
            arr = np.asarray(arr, object)
            if arr.ndim < 2:
                arr = arr.reshape(1, -1)
            if arr.shape == (r2 - r1 + 1, c2 - c1 + 1):  # (the result fills its range: the usual case)
                plain = _PLAIN_OUT  # (an exact float, int or str is written as it is; see _value_out)
                for i, row in enumerate(arr.tolist(), start=r1):
                    for j, v in enumerate(row, start=c1):
                        got[(i, j)] = v if type(v) in plain else _value_out(v, names, np)
                continue
            for i in range(r2 - r1 + 1):
                for j in range(c2 - c1 + 1):
                    # Excel fills an array range from a smaller result by repeating a single row or
                    # column (or a scalar); other cells outside the result get #N/A
                    ii = 0 if arr.shape[0] == 1 else i
                    jj = 0 if arr.shape[1] == 1 else j
                    if ii < arr.shape[0] and jj < arr.shape[1]:
                        v = _value_out(arr[ii, jj], names, np)
                    else:
                        v = ExcelErrorValue("#N/A")
                    got[(r1 + i, c1 + j)] = v
        for r, c in tg.get("cells", ()):
            if (r, c) in got or (r, c) in shows:
                continue
            val = by_ref.get((up, cell_ref(r, c)))
            arr = getattr(val, "value", None)
            if arr is None:
                got[(r, c)] = ExcelErrorValue("#N/A", "the formula engine gave no value")
                continue
            arr = np.asarray(arr, object)
            v = arr.flat[0] if arr.size else names.EMPTY
            v = _value_out(v, names, np)
            got[(r, c)] = 0 if v is None else v  # a formula giving a blank cell shows 0 in Excel
        values[sheet] = got
    # the cells that only show an array's cell, valued from it (xlbridge.batch.read.aliases)
    by_upper = {sheet.upper(): got for sheet, got in values.items()}
    no_value = ExcelErrorValue("#N/A", "the formula engine gave no value")
    for up, shows in aliases.items():
        into = by_upper.get(up)
        if into is None:
            continue
        for pos, (kind, target, where) in shows.items():
            value = by_upper.get(target, {}).get(where, no_value)
            into[pos] = alias_value(kind, value)
    return values, messages


@with_room
def evaluate_workbook(path: str, sheets: Any, *, cell_formats: int | None = None, functions: dict | None = None,
                      external_links: Any = (), max_formula_cells: int | None = None,
                      streamed: bool = True, halves: bool = False) -> tuple:
    """Read and evaluate the workbook at ``path``: return (values, messages, layouts). The engine's job.

    ``sheets``: ((sheet name, worksheet part), ...) as :func:`xlbridge.batch.guard.safety.check_workbook`
    found them. Each worksheet part is read once, streamed (:func:`xlbridge.batch.read.sheetxml.read_sheet`):
    the layout the results are spliced into, the formula cells and the constants by column. The
    engine gets the workbook without the cells of the parts that pass vouches for (openpyxl reads the
    rest, which also checks it) and their constants as range blocks (:mod:`xlbridge.batch.read.bookdata`);
    the cells of a part it cannot vouch for (something openpyxl may read differently) are read by
    openpyxl, one node per cell, as they always were; so are all of them when openpyxl names the sheets
    otherwise. ``values`` and ``messages`` are those of :func:`recalc_values`;
    ``layouts`` is {sheet name: SheetLayout} of the sheets holding formulas; ``streamed=False`` takes
    the stock path whatever the reading found (for comparisons); ``halves``: a large part is read in two
    halves at once, the second by a forked process (:mod:`xlbridge.batch.read.halves`: the engine's own
    process does so; the same result). Raises
    :class:`~xlbridge.core.errors.WorkbookError` for a damaged sheet and
    :class:`~xlbridge.core.errors.WorkbookLimitError` past ``max_formula_cells``.
    """
    import zipfile

    from ..read.bookdata import book_without_cells, read_shared_strings, without_rows
    from ..read.halves import ASIDE_ABOVE, SPLIT_ABOVE, finish_aside, finish_halves, read_sheet_halves, start_aside, start_tail
    from ..read.sheetxml import read_sheet

    record_phase("loading")
    reads: dict = {}
    cut_parts: dict = {}  # part -> its bytes without rows, for the workbook without cells
    covered = 0
    early: Any = None  # (part, its bytes, its tail): the first large part's second half, read from the start
    with zipfile.ZipFile(path) as zf, contextlib.ExitStack() as stack:
        if halves:  # its tail process reads while this one imports the engine and reads the shared strings
            large = [(sheet, part) for sheet, part in sheets if zf.getinfo(part).file_size >= SPLIT_ABOVE]
            if large:
                sheet, part = large[0]
                data = zf.read(part)
                # (``busy``: this process imports the engine before it reads its half, unless it did already:
                # :func:`xlbridge.batch.evaluate.child.engine_process` imports it while the read stage runs)
                tail = start_tail(data, later=True, busy=not _IMPORTED, part=part, sheet=sheet,
                                  cell_formats=cell_formats, values=True)
                if tail is not None:
                    stack.enter_context(tail)
                    tail.release()  # (the signals held since the fork: a handler raising now still has it reaped)
                    early = (part, data, tail)
                    record_phase("starting")  # (a failure here is the engine's, not the workbook's)
                    engine_modules()
                    record_phase("loading")
                del data
        shared = read_shared_strings(path)
        aside: Any = None  # (part, its bytes, its reader): the largest middle-sized part, read by a forked process
        if halves:  # while this one reads the others
            middle = [(zf.getinfo(part).file_size, sheet, part) for sheet, part in sheets
                      if ASIDE_ABOVE <= zf.getinfo(part).file_size < SPLIT_ABOVE]
            if middle:
                _size, sheet, part = max(middle)
                data = zf.read(part)
                reader = start_aside(data, part=part, sheet=sheet, cell_formats=cell_formats, shared_strings=shared,
                                     values=True)
                if reader is not None:
                    stack.enter_context(reader)
                    reader.release()
                    aside = (part, data, reader)
                del data
        for sheet, part in sheets:
            record_phase("reading", sheet)
            kw: dict = dict(part=part, sheet=sheet, cell_formats=cell_formats, shared_strings=shared, values=True)
            if early is not None and part == early[0]:
                data, tail = early[1], early[2]
                early = None
                got = finish_halves(tail, data, **kw)
            elif aside is not None and part == aside[0]:
                data, reader = aside[1], aside[2]
                aside = None
                got = finish_aside(reader, data, **kw)
            else:
                data = zf.read(part)
                got = read_sheet_halves(data, **kw) if halves else read_sheet(data, **kw)
            cut_parts[part] = without_rows(data, got.layout.sheetdata)
            del data
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
    vouched = {sheet: (part, got) for sheet, (part, got) in reads.items() if got.unusual is None}
    if streamed and vouched:  # openpyxl reads the cells of the sheets this pass could not vouch for (only)
        record_phase("loading")
        book = load_engine_workbook(book_without_cells(path, {part: cut_parts[part] for part, _ in vouched.values()}))
        if [ws.title for ws in book.worksheets] == [sheet for sheet, _ in sheets]:
            by_sheet = {sheet: got for sheet, (_, got) in vouched.items()}
        else:  # openpyxl names the sheets otherwise: let it read the whole book
            book = None
    layouts = {sheet: got.layout for sheet, (_, got) in reads.items() if sheet in targets}
    shown = find_shown({sheet.upper(): got.formulas for sheet, (_, got) in reads.items()},
                       {sheet.upper(): got.layout.array_ranges for sheet, (_, got) in reads.items()})
    for sheet, (_, got) in reads.items():  # their texts are not needed again (the engine gets runs built
        up = sheet.upper()  # from the alias; messages name the shown cell's formula): 300,000 strings fewer
        for pos in got.formulas:  # at 100,000 rows, in this process and in the layouts sent back
            if (up, pos) in shown:
                got.formulas[pos] = ""
                got.layout.formula_cells[pos] = ""
    taken = "cells" if by_sheet is None else "ranges" if len(by_sheet) == len(reads) else "mixed"
    for sheet in [sheet for sheet in reads if by_sheet is None or sheet not in by_sheet]:
        del reads[sheet]  # (openpyxl reads its cells: its streamed values are not needed)
    values, messages = recalc_values(path, targets, functions, links=links, book=book,
                                     sheets=by_sheet, shown=shown)
    messages.engine_path = taken
    messages.shown = {key: (alias[1], alias[2]) for key, alias in shown.items()}
    return values, messages, layouts
