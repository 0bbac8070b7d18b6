"""xlwings glue: the decorated worksheet functions and the plain callables, built from the TABLE.

:func:`make_udfs` turns every declaration of :mod:`xlbridge.excel.functions` into a module-level
function with the catalogue's exact signature (argument names, order, ``None`` for optional
ones), a one-line docstring for the function wizard, decorated with whichever xlwings runtime
is active (``xw.func``, ``xw.ret``, ``xw.arg`` with ``ndim=2, err_to_str=True`` and the argument
help). :func:`plain_functions` gives the same functions as plain callables for the batch
engine (``EXCEL_FUNCTIONS``).

Every call is :func:`guarded`: a failure becomes one short :class:`~xlbridge.excel.cells.CallError`
text (``"NAME: where: what"``), never a traceback. Under classic xlwings (COM, Windows) per-cell
errors are sent as ``VT_ERROR`` variants (:func:`for_runtime`), which Excel shows as real errors.

xlwings is imported lazily here (:func:`xlwings_decorators`), never by the core; without it (or
where its decorators cannot load, e.g. xlwings Server without a licence) the decorators are no-ops.

>>> plain = plain_functions()
>>> plain["NEUBERG"](14, 16, 8), plain["VP"](5, 0)
(29, ExcelError('#VALUE!'))
>>> plain["MATCHPOINTS"]([[420.0], [400.0]], None, None, "FRENCH")
CallError("MATCHPOINTS: unknown matchpoint scale 'FRENCH' (expected one of EBU, ACBL)")
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from typing import Any

from ..core.errors import LimitError, XlbridgeError, shown
from .cells import CallError, ExcelError, LimitCallError
from .functions import CATEGORY, FUNCTIONS, ExcelFunction

__all__ = ["xlwings_decorators", "runtime_of", "guarded", "for_runtime", "plain_functions", "make_udfs",
           "COM_SCODES", "return_options", "arity_error"]

# Excel's error codes as COM VT_ERROR scodes (xlwings/_xlwindows.py ``cell_errors``).
COM_SCODES = {
    "#DIV/0!": -2146826281, "#N/A": -2146826246, "#NAME?": -2146826259, "#NULL!": -2146826288,
    "#NUM!": -2146826252, "#REF!": -2146826265, "#VALUE!": -2146826273,
}


def return_options() -> dict[str, Any]:
    """xlwings' return options: results spill natively (Excel 365/2021, xlwings Lite/Server).

    For an older Excel without dynamic arrays, the environment variable XLBRIDGE_LEGACY_SPILL=1
    (read when the functions are made) turns on xlwings' legacy ``expand="table"`` (classic
    xlwings only; it overwrites the cells the result spills into).
    """
    legacy = os.environ.get("XLBRIDGE_LEGACY_SPILL", "").strip() in ("1", "true", "yes")
    return {"expand": "table"} if legacy else {}


class _NoXlwings:
    """No-op stand-ins for ``xw.func``, ``xw.arg`` and ``xw.ret``."""

    @staticmethod
    def func(f: Any = None, **kwargs: Any) -> Any:
        return f if f is not None else (lambda g: g)

    @staticmethod
    def arg(*args: Any, **kwargs: Any) -> Any:
        return lambda g: g

    @staticmethod
    def ret(*args: Any, **kwargs: Any) -> Any:
        return lambda g: g


def xlwings_decorators() -> Any:
    """The xlwings module (its ``func``, ``arg``, ``ret``), or no-op stand-ins when it cannot load."""
    try:  # xlwings is optional: without it (or where its decorators are no-ops) these are plain functions
        import xlwings as xw

        xw.func, xw.arg, xw.ret  # noqa: B018
        return xw
    except Exception:  # ImportError, or xlwings.LicenseError under XLWINGS_ON_SERVER without a key
        return _NoXlwings()


def runtime_of(xw: Any) -> str:
    """Which xlwings runtime the decorators come from: "com" (classic, Windows), "officejs" or "python"."""
    mod = getattr(getattr(xw, "func", None), "__module__", "") or ""
    if mod == "xlwings.udfs":
        return "com"
    if mod.endswith("udfs_officejs"):
        return "officejs"
    return "python"


def guarded(decl: ExcelFunction, args: tuple[Any, ...]) -> Any:
    """Run a function by its declaration; any failure becomes one short CallError, never a traceback."""
    try:
        return decl.call(*args)
    except LimitError as e:
        return LimitCallError(f"{decl.name}: {e}")
    except XlbridgeError as e:
        return CallError(f"{decl.name}: {e}")
    except MemoryError:
        raise  # the batch engine reports a memory limit by name
    except Exception as e:  # a bug: still a short message in the cell, not a traceback
        return CallError(f"{decl.name}: internal error ({type(e).__name__}: {shown(str(e))})")


def _com_errors(value: Any, make_error: Callable[[int], Any]) -> Any:
    if isinstance(value, ExcelError):
        return make_error(COM_SCODES[str(value)])
    if isinstance(value, list):
        return [_com_errors(v, make_error) for v in value]
    return value


def for_runtime(value: Any, runtime: str, make_error: Callable[[int], Any] | None = None) -> Any:
    """Per-cell ExcelError strings as the runtime needs them (COM: VT_ERROR variants; else unchanged).

    >>> for_runtime([[1, ExcelError("#N/A")]], "com", lambda code: ("VT_ERROR", code))
    [[1, ('VT_ERROR', -2146826246)]]
    """
    if runtime != "com":
        return value
    if make_error is None:  # pragma: no cover - Windows only
        import pythoncom
        from win32com.client import VARIANT

        def make_error(code: int) -> Any:
            return VARIANT(pythoncom.VT_ERROR, code)

    return _com_errors(value, make_error)


def arity_error(decl: ExcelFunction, given: int) -> CallError | None:
    """The message for a call with ``given`` arguments, or None when Excel would accept that many.

    Excel's rule: the optional arguments (the last ones) may be left out, the others may not.

    >>> from .functions import BY_NAME
    >>> arity_error(BY_NAME["VP"], 1)
    CallError('VP: needs 2 to 3 arguments (margin, boards, [scale]), got 1')
    >>> arity_error(BY_NAME["MATCHPOINTS"], 5)
    CallError('MATCHPOINTS: needs 1 to 4 arguments (scores, [boards], [expected], [scale]), got 5')
    >>> arity_error(BY_NAME["VP"], 2) is None
    True
    """
    low = sum(not a.optional for a in decl.args)
    high = len(decl.args)
    if low <= given <= high:
        return None
    count = f"{low} to {high} arguments" if low < high else f"{high} argument{'s' if high != 1 else ''}"
    names = ", ".join(f"[{a.name}]" if a.optional else a.name for a in decl.args)
    return CallError(f"{decl.name}: needs {count} ({names}), got {given}")


def _plain(decl: ExcelFunction) -> Callable[..., Any]:
    """The batch engine's callable: any argument count, a wrong one a CallError (never a TypeError)."""
    names = [a.name for a in decl.args]
    low, high = sum(not a.optional for a in decl.args), len(decl.args)

    def fn(*args: Any, **kwargs: Any) -> Any:
        if not kwargs and low <= len(args) <= high:  # positional, a count Excel accepts: the common call
            return guarded(decl, args + (None,) * (high - len(args)))
        unknown = [k for k in kwargs if k not in names[len(args):]]
        if unknown:
            return CallError(f"{decl.name}: no argument called {shown(unknown[0])} (arguments: {', '.join(names)})")
        values = list(args) + [kwargs.get(n) for n in names[len(args):]]
        given = max([len(args)] + [names.index(k) + 1 for k in kwargs])
        problem = arity_error(decl, given)
        if problem is not None:
            return problem
        return guarded(decl, tuple(values[:len(names)]))

    fn.__name__ = fn.__qualname__ = decl.name
    fn.__doc__ = decl.help
    setattr(fn, "__signature__", inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, **({"default": None} if a.optional else {}))
         for n, a in zip(names, decl.args)]))
    return fn


def plain_functions(module: str = "xlbridge.udfs") -> dict[str, Callable[..., Any]]:
    """{EXCEL NAME: plain callable} with the catalogue's signatures: the batch engine's registry.

    A call with a wrong number of arguments returns a :class:`CallError` as Excel's own message
    would say it (:func:`arity_error`), never Python's ``missing 1 required positional argument``.
    """
    out = {}
    for d in FUNCTIONS:
        fn = _plain(d)
        fn.__module__ = module
        out[d.name] = fn
    return out


def _named(decl: ExcelFunction, call: Callable[..., Any]) -> Callable[..., Any]:
    """A function with ``decl``'s exact signature (no annotations: xlwings reads them as converters)."""
    params = ", ".join(f"{a.name}=None" if a.optional else a.name for a in decl.args)
    names = ", ".join(a.name for a in decl.args)
    src = f"def {decl.name}({params}):\n    return _call({names})\n"
    namespace: dict[str, Any] = {"_call": call}
    exec(compile(src, f"<xlbridge.excel: {decl.name}>", "exec"), namespace)  # noqa: S102 - our own table
    fn: Callable[..., Any] = namespace[decl.name]
    fn.__doc__ = decl.help
    fn.__qualname__ = decl.name
    return fn


def make_udfs(xw: Any, *, module: str = "xlbridge.udfs", category: str = CATEGORY,
              ret: dict[str, Any] | None = None) -> dict[str, Callable[..., Any]]:
    """{NAME: worksheet function} for every declaration, decorated with ``xw``'s ``func``/``ret``/``arg``."""
    runtime = runtime_of(xw)
    out: dict[str, Callable[..., Any]] = {}
    for decl in FUNCTIONS:
        def run(*args: Any, _decl: ExcelFunction = decl) -> Any:
            return for_runtime(guarded(_decl, args), runtime)

        fn = _named(decl, run)
        fn.__module__ = module
        for arg in decl.args:
            fn = xw.arg(arg.name, ndim=2, err_to_str=True, doc=arg.help)(fn)
        fn = xw.ret(**(return_options() if ret is None else ret))(fn)
        fn = xw.func(category=category)(fn)
        out[decl.name] = fn
    return out
