"""The Excel functions of xlbridge (the module named in the workbook's ``UDF Modules`` setting).

Every function of the catalogue (``../shared/UDFS.md``) plus the template extensions
(``PAIRS_RANKING``, ``MATCH_RESULT``, ``LEHMAN_LEDGER``, ``SCORE_OR_TYPED``) is an xlwings
user-defined function, category ``xlbridge``. Each is a thin adapter: it reads what Excel
delivers (floats, ``None`` for blanks, rows/columns/blocks as lists or numpy arrays, or plain
Python values), calls the pure core, and returns a scalar or a 2-D list that spills. No
scoring rule lives here.

Errors (see docs/excel.md):

* a problem in one cell gives an Excel error value in that cell of the result (``#VALUE!``
  for an unreadable or impossible input, ``#N/A`` for a cell that cannot be computed because
  another cell of its board is bad); blank rows give blank cells;
* a call that cannot run at all gives one short text, ``"NAME: where: what"``;
* never a traceback, never NaN or an empty string standing for a number.

In plain Python (``EXCEL_FUNCTIONS``, the batch engine) per-cell errors are
:class:`xlbridge.excel.ExcelError` strings such as ``"#N/A"`` and whole-call messages are
:class:`xlbridge.excel.CallError` strings. Under xlwings' Office.js runtime the error strings
become real Excel errors (xlwings maps them); under classic xlwings on Windows (COM) they are
sent as ``VT_ERROR`` variants, which Excel shows as real errors.

The module loads with or without xlwings: where xlwings is missing or its decorators are
no-ops (Linux, batch mode) the functions are plain Python functions.

>>> EXCEL_FUNCTIONS["BRIDGE_SCORE"]("4S", "N", 10, 1)
420
>>> EXCEL_FUNCTIONS["NEUBERG"](14, 16, 8)
29
>>> EXCEL_FUNCTIONS["BRIDGE_SCORE"]([["4S"], ["3NTX"], [None], ["9Z"]], "N", 10, "None")
[[420], [650], [None], [ExcelError('#VALUE!')]]
"""

from __future__ import annotations

import functools
import importlib
import os

from .excel import cells as _xl
from .core.contract import any_legal_scores as _any_legal_scores, bridge_score as _bridge_score, check_score as _check_score, legal_scores as _legal_scores
from .core.entries import NotPlayed as _NotPlayed, parse_entry as _parse_entry
from .core.errors import ImpossibleScoreError, InputError, WeightError, XlbridgeError
from .excel.cells import CallError, ExcelError

try:  # xlwings is optional: without it (or where its decorators are no-ops) these are plain functions
    import xlwings as xw  # noqa: F401

    xw.func, xw.arg, xw.ret  # noqa: B018
except Exception:  # ImportError, or xlwings.LicenseError under XLWINGS_ON_SERVER without a key
    class _NoXlwings:
        """No-op stand-ins for ``xw.func``, ``xw.arg`` and ``xw.ret``."""

        @staticmethod
        def func(f=None, **kwargs):
            return f if f is not None else (lambda g: g)

        @staticmethod
        def arg(*args, **kwargs):
            return lambda g: g

        @staticmethod
        def ret(*args, **kwargs):
            return lambda g: g

    xw = _NoXlwings()

__all__ = [
    "EXCEL_FUNCTIONS",
    "RUNTIME",
    "CATEGORY",
    "BRIDGE_SCORE", "SCORE_OR_TYPED", "MATCHPOINTS", "WEIGHTED_MP", "NEUBERG", "MP_PERCENT", "PAIRS_RANKING",
    "IMPS", "CROSS_IMPS", "BUTLER", "BUTLER_DATUM", "VP", "WEIGHTED_IMPS", "MATCH_RESULT",
    "INSTANT_MP", "INSTANT_AWARD",
    "LEHMAN_PREDICT", "LEHMAN_DELTA", "LEHMAN_ERROR", "LEHMAN_UPDATE", "LEHMAN_LEDGER",
    "FORML_HANDICAP", "FORML_VPDIFF", "LEGACY_HANDICAP", "FORML_NEWTEAMS", "FAIRNESS", "FAIRNESS_BAND",
]

#: The Excel function-wizard category of every function.
CATEGORY = "xlbridge"


def _runtime() -> str:
    """Which xlwings runtime decorates this module: "com" (classic, Windows), "officejs" or "python"."""
    mod = getattr(getattr(xw, "func", None), "__module__", "") or ""
    if mod == "xlwings.udfs":
        return "com"
    if mod.endswith("udfs_officejs"):
        return "officejs"
    return "python"


#: "com" (classic xlwings on Windows), "officejs" (xlwings Lite / Server) or "python" (no-op decorators).
RUNTIME = _runtime()

#: {EXCEL NAME: plain-Python callable} for the batch engine; results as documented above.
EXCEL_FUNCTIONS: dict = {}
_IMPLS: dict = {}

# Excel's error codes as COM VT_ERROR scodes (xlwings/_xlwindows.py ``cell_errors``).
_COM_SCODES = {
    "#DIV/0!": -2146826281, "#N/A": -2146826246, "#NAME?": -2146826259, "#NULL!": -2146826288,
    "#NUM!": -2146826252, "#REF!": -2146826265, "#VALUE!": -2146826273,
}


class _NotAvailable(Exception):
    pass


def _core(module: str, name: str):
    """A core function looked up at call time, so a missing one gives a clear message, not an ImportError."""
    try:
        mod = importlib.import_module(f"xlbridge.{module}")
    except ImportError:  # pragma: no cover - every core module exists in a release
        mod = None
    fn = getattr(mod, name, None) if mod is not None else None
    if fn is None:
        raise _NotAvailable(f"xlbridge.{module}.{name}")
    return fn


def _impl(name: str):
    """Register ``fn`` as the implementation of Excel function ``name`` (and its plain callable)."""

    def deco(fn):
        _IMPLS[name] = fn

        @functools.wraps(fn)
        def plain(*args, **kwargs):
            return _guarded(name, fn, args, kwargs)

        EXCEL_FUNCTIONS[name] = plain
        return fn

    return deco


def _guarded(name, fn, args, kwargs=None):
    """Run an implementation; any failure becomes one short CallError, never a traceback."""
    try:
        return fn(*args, **(kwargs or {}))
    except _NotAvailable as e:
        return CallError(f"#N/A not available: {name} needs {e}, which this version of xlbridge lacks")
    except XlbridgeError as e:
        return CallError(f"{name}: {e}")
    except Exception as e:  # a bug: still a short message in the cell, not a traceback
        return CallError(f"{name}: internal error ({type(e).__name__}: {e})")


def _com_errors(value, make_error):
    if isinstance(value, ExcelError):
        return make_error(_COM_SCODES[str(value)])
    if isinstance(value, list):
        return [_com_errors(v, make_error) for v in value]
    return value


def _for_runtime(value, runtime=None, make_error=None):
    """Per-cell ExcelError strings as the runtime needs them (COM: VT_ERROR variants; else unchanged)."""
    if (runtime or RUNTIME) != "com":
        return value
    if make_error is None:  # pragma: no cover - Windows only
        import pythoncom
        from win32com.client import VARIANT

        def make_error(code):
            return VARIANT(pythoncom.VT_ERROR, code)

    return _com_errors(value, make_error)


def _run(name, *args):
    """What a decorated Excel function returns: the guarded result, in the runtime's error form."""
    return _for_runtime(_guarded(name, _IMPLS[name], args))


# --------------------------------------------------------------------------------------------
# shared adapters


def _is_listlike(v) -> bool:
    return isinstance(v, (list, tuple)) or (hasattr(v, "ndim") and getattr(v, "ndim", 0) > 0)


def _elementwise(fn, args: dict, *, blank_if: tuple = ()):
    """Apply ``fn`` cell by cell; scalars and single cells broadcast; ranges must share one shape.

    A cell holding an Excel error passes it on; a cell ``fn`` cannot read gives ``#VALUE!``;
    a row whose ``blank_if`` arguments are all blank gives a blank cell.
    """
    names = list(args)
    grids = {k: _xl.grid(v) for k, v in args.items()}
    shapes = {k: (len(g), len(g[0]) if g else 0) for k, g in grids.items()}
    big = {k: s for k, s in shapes.items() if s != (1, 1)}
    if any(s[0] == 0 for s in shapes.values()):
        empty = [k for k, s in shapes.items() if s[0] == 0][0]
        raise InputError("the range is empty", where=empty)
    if len(set(big.values())) > 1:
        desc = ", ".join(f"{k} is {s[0]} x {s[1]}" for k, s in big.items())
        raise InputError(f"ranges must have the same size or be single cells: {desc}")
    h, w = next(iter(big.values()), (1, 1))
    out = []
    for r in range(h):
        row = []
        for c in range(w):
            cells = {k: (g[0][0] if shapes[k] == (1, 1) else g[r][c]) for k, g in grids.items()}
            row.append(_cell(fn, cells, names, blank_if))
        out.append(row)
    if not any(_is_listlike(v) for v in args.values()):
        return out[0][0]
    return out


def _cell(fn, cells, names, blank_if):
    for k in names:
        err = _xl.error_literal(cells[k])
        if err is not None:
            return err
    if blank_if and all(_xl.is_blank(cells[k]) for k in blank_if):
        return None
    try:
        return _xl.to_cell(fn(**cells))
    except (XlbridgeError, ValueError, TypeError, ZeroDivisionError, OverflowError):
        return _xl.VALUE


def _opt_text(value, default: str, name: str) -> str:
    v = _xl.optional(value, default)
    if not isinstance(v, str):
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return str(int(v)) if float(v).is_integer() else str(v)
        raise InputError(f"expected text, got {v!r}", where=name)
    return v.strip()


def _same_length(cols: dict) -> None:
    lens = {k: len(v) for k, v in cols.items() if v is not None}
    if len(set(lens.values())) > 1:
        desc = ", ".join(f"{k} has {n}" for k, n in lens.items())
        raise InputError(f"the ranges must have the same number of rows: {desc}")


def _nonempty(values: list, name: str) -> list:
    if not values:
        raise InputError("the range is empty", where=name)
    return values


def _any_vulnerability_legal(score: int) -> bool:
    return score in _any_legal_scores()


def _score_rows(scores: list, boards: list | None, reasons: dict | None = None):
    """Check each score cell of a traveller; return (entries for the core, per-row errors, bad boards).

    A bad cell (Excel error, unreadable text, impossible score for its board) gets its error;
    its entry is replaced by 0 (legal on every board) so that the rest of the call is scored
    exactly as if it held a real result, and its board is marked so its other rows get #N/A.
    ``reasons`` (optional) receives {row index: what is wrong} for a message.
    """
    entries, errors, bad_boards = [], {}, set()
    legal_cache: dict = {}
    for i, v in enumerate(scores):
        b = None if boards is None else boards[i]
        if type(v) is float and v.is_integer() and (boards is None or type(b) is float and b.is_integer() and b >= 1):
            e = int(v)  # fast path for what Excel delivers: a whole-number score and board number
            key = None if b is None else int(b)
            legal = legal_cache.get(key)
            if legal is None:
                legal = legal_cache[key] = _legal_scores(key) if key is not None else _any_legal_scores()
            if e in legal:
                entries.append(e)
                continue
        where = f"row {i + 1}"
        why = None
        err = _xl.error_literal(v)
        if err is not None:
            why = f"{where}: the score cell holds {err}"
        if boards is not None and err is None:
            err = _xl.error_literal(b)
            why = None if err is None else f"{where}: the board cell holds {err}"
            if err is None and not _xl.is_blank(v):
                try:  # a score needs a board number (1 or more)
                    _xl.as_int(_xl.optional(b, None), "boards", where=where, minimum=1)
                except XlbridgeError as ex:
                    err, why = _xl.VALUE, str(ex)
            if err is not None:
                errors[i] = err
                if reasons is not None:
                    reasons[i] = why
                entries.append(None)
                continue
        if err is None:
            try:
                e = _parse_entry(v, where=where)
                if isinstance(e, int) and not isinstance(e, bool):
                    if boards is not None:
                        _check_score(e, _xl.as_int(b, "boards", where=where, minimum=1), where=where)
                    elif not _any_vulnerability_legal(e):
                        raise InputError(f"impossible score: {e}", where=where)
                entries.append(e)
                continue
            except XlbridgeError as ex:
                err, why = _xl.VALUE, str(ex)
        errors[i] = err
        if reasons is not None:
            reasons[i] = why
        entries.append(0)
        bad_boards.add(None if boards is None else _board_key(b))
    return entries, errors, bad_boards


def _board_key(b):
    b = _xl.optional(b, None)
    if isinstance(b, float) and b.is_integer():
        return int(b)
    if isinstance(b, str) and b.strip().lstrip("+-").isdigit():
        return int(b.strip())
    return b


def _mask_rows(rows: list, errors: dict, bad_boards: set, boards: list | None, width: int) -> list:
    """Put each bad row's error in all its cells and #N/A in every other row of a bad board."""
    out = []
    for i, r in enumerate(rows):
        if i in errors:
            out.append([errors[i]] * width)
        elif bad_boards and (None in bad_boards if boards is None else _board_key(boards[i]) in bad_boards) \
                and any(c is not None for c in r):
            out.append([_xl.NA] * width)
        else:
            out.append(r)
    return out


def _expected_arg(expected):
    e = _xl.optional(expected, None)
    return None if e is None else _xl.as_int(e, "expected", minimum=1)


# --------------------------------------------------------------------------------------------
# boards and pairs


@_impl("BRIDGE_SCORE")
def _bridge_score_impl(contract, declarer, tricks, vulnerable):
    """N-S score of each result (Law 77), element-wise; a blank contract gives a blank cell.

    >>> _bridge_score_impl([["4S"], ["3NTX"]], [["N"], ["E"]], [[10], [8]], 1)   # 3NTX by E one down: +100
    [[420], [100]]
    """
    def one(contract, declarer, tricks, vulnerable):
        return _bridge_score(contract, declarer, tricks, vulnerable)

    return _elementwise(one, {"contract": contract, "declarer": declarer, "tricks": tricks,
                              "vulnerable": vulnerable}, blank_if=("contract",))


@_impl("SCORE_OR_TYPED")
def _score_or_typed_impl(contract, declarer, tricks, board, typed):
    """BRIDGE_SCORE where a contract is given, else the typed score cell passed through unchanged.

    >>> _score_or_typed_impl([["4S"], [None], [None], [None]], "N", 10, 1, [[None], ["A60/40"], ["NP"], [None]])
    [[420], ['A60/40'], ['NP'], [None]]
    """
    def one(contract, declarer, tricks, board, typed):
        if _xl.is_blank(contract):
            if _xl.is_blank(typed):
                return None
            _parse_entry(typed)  # refuse what no score cell can hold (text, 425, TRUE)
            return typed.strip() if isinstance(typed, str) else typed
        return _bridge_score(contract, declarer, tricks, board)

    return _elementwise(one, {"contract": contract, "declarer": declarer, "tricks": tricks, "board": board,
                              "typed": typed})


@_impl("MATCHPOINTS")
def _matchpoints_impl(scores, boards=None, expected=None, scale=None):
    """n x 2 N-S / E-W matchpoints per row (xlbridge.matchpoints.matchpoint_session).

    Seed 001, section 4(e): 8 results Neuberg-factored to 16 expected.

    >>> _matchpoints_impl([490, 460, 460, 430, 430, 430, 400, -50], None, 16)[0]
    [29, 1]
    """
    s = _nonempty(_xl.vector(scores, "scores"), "scores")
    b = None if _xl.optional(boards) is None else _xl.vector(boards, "boards")
    _same_length({"scores": s, "boards": b})
    entries, errors, bad = _score_rows(s, b)
    session = _core("matchpoints", "matchpoint_session")(
        entries, b, expected=_expected_arg(expected), scale=_opt_text(scale, "EBU", "scale"))
    rows = [[_xl.to_cell(n), _xl.to_cell(e)] for n, e in zip(session.ns, session.ew)]
    return _mask_rows(rows, errors, bad, b, 2)


def _weighted_outcomes(scores, weights, boards, reasons: dict | None = None):
    """Per row the list of (entry, weight) outcomes, per-row errors, and the bad boards (``reasons`` as in _score_rows)."""
    sg = _nonempty(_xl.grid(scores), "scores")
    wg = None if _xl.optional(weights) is None else _xl.grid(weights)
    if wg is not None and (len(wg), len(wg[0]) if wg else 0) != (len(sg), len(sg[0]) if sg else 0):
        raise InputError(f"scores is {len(sg)} x {len(sg[0]) if sg else 0} but weights is "
                         f"{len(wg)} x {len(wg[0]) if wg else 0}; they must be parallel ranges")
    _same_length({"scores": sg, "boards": boards})
    parse_weight = _core("weighted", "parse_weight")
    outcomes, errors, bad = [], {}, set()
    for i, row in enumerate(sg):
        where = f"row {i + 1}"
        cells = [(j, v) for j, v in enumerate(row) if not _xl.is_blank(v)]
        bkey = None if boards is None else _board_key(boards[i])
        try:
            errs = [_xl.error_literal(v) for _, v in cells]
            if boards is not None:
                errs.append(_xl.error_literal(boards[i]))
            errs += [_xl.error_literal(wg[i][j]) for j, _ in cells] if wg is not None else []
            first = next((e for e in errs if e is not None), None)
            if first is not None:
                raise _RowError(first)
            if boards is not None and cells and _xl.is_blank(boards[i]):
                raise InputError("a score has no board number", where=where)
            outs = []
            for j, v in cells:
                e = _parse_entry(v, where=where)
                if isinstance(e, int):
                    if boards is not None:
                        _check_score(e, _xl.as_int(boards[i], "boards", where=where, minimum=1), where=where)
                    elif not _any_vulnerability_legal(e):
                        raise InputError(f"impossible score: {e}", where=where)
                w = None if wg is None else wg[i][j]
                if _xl.is_blank(w):
                    if len(cells) > 1:
                        raise InputError(f"outcome {v!r} has no weight", where=where)
                    w = 1
                outs.append((e, parse_weight(w, where=where)))
            if len(outs) == 1 and outs[0][1] == 1:
                outs = outs[0][0]  # a plain result (score, A60/40 or NP), as matchpoint_session takes it
            outcomes.append(outs)
        except (InputError, ImpossibleScoreError, WeightError, _RowError) as ex:  # a bad cell of this row
            errors[i] = ex.err if isinstance(ex, _RowError) else _xl.VALUE
            if reasons is not None:
                reasons[i] = f"{where}: a cell holds {ex.err}" if isinstance(ex, _RowError) else str(ex)
            outcomes.append([(0, 1)])
            bad.add(bkey)
    return outcomes, errors, bad


class _RowError(Exception):
    def __init__(self, err):
        super().__init__(str(err))
        self.err = err


@_impl("WEIGHTED_MP")
def _weighted_mp_impl(scores, weights, boards=None, expected=None, scale=None):
    """n x 2 matchpoints for travellers with Law 12C1(c) weighted scores (xlbridge.weighted.weighted_session).

    Seed 004, two weighted scores (ERRATA: pair A 2.75): 1/0.5 scale, 6 expected results.

    >>> r = _weighted_mp_impl([[420, None], [400, None], [400, None], [-50, None], [420, -50], [170, 420]],
    ...                       [[None, None], [None, None], [None, None], [None, None], [0.6, 0.4], [0.5, 0.5]],
    ...                       None, 6, "ACBL")
    >>> [round(x[0], 2) for x in r]
    [4.45, 2.4, 2.4, 0.2, 2.75, 2.8]
    """
    b = None if _xl.optional(boards) is None else _xl.vector(boards, "boards")
    outcomes, errors, bad = _weighted_outcomes(scores, weights, b)
    outcomes = [None if o == [] else o for o in outcomes]
    session = _core("weighted", "weighted_session")(
        outcomes, b, expected=_expected_arg(expected), scale=_opt_text(scale, "EBU", "scale"))
    rows = [[_xl.to_cell(n), _xl.to_cell(e)] for n, e in zip(session.ns, session.ew)]
    return _mask_rows(rows, errors, bad, b, 2)


@_impl("NEUBERG")
def _neuberg_impl(mp, expected, actual, scale=None):
    """The Neuberg formula element-wise over ``mp`` (xlbridge.matchpoints.neuberg).

    >>> _neuberg_impl(14, 16, 8), _neuberg_impl(18, 11, 10)
    (29, 19.9)
    """
    sc = _opt_text(scale, "EBU", "scale")
    fn = _core("matchpoints", "neuberg")
    return _elementwise(lambda mp, expected, actual: fn(_xl.as_number(mp, "mp"), expected, actual, sc),
                        {"mp": mp, "expected": expected, "actual": actual}, blank_if=("mp",))


@_impl("MP_PERCENT")
def _mp_percent_impl(mp, results, scale=None):
    """Matchpoints as a percentage of the top, element-wise (xlbridge.matchpoints.mp_percent).

    >>> round(_mp_percent_impl(1060 / 11, 51), 4)
    96.3636
    """
    sc = _opt_text(scale, "EBU", "scale")
    fn = _core("matchpoints", "mp_percent")
    return _elementwise(lambda mp, results: fn(_xl.as_number(mp, "mp"), results, sc),
                        {"mp": mp, "results": results}, blank_if=("mp",))


@_impl("PAIRS_RANKING")
def _pairs_ranking_impl(boards, ns_pairs, ew_pairs, scores, weights=None, expected=None, scale=None):
    """k x 4 table Pair, Total MP, Percentage, Rank ("3=" for exact ties), best first; exact inside.

    >>> _pairs_ranking_impl([1, 1, 1], [1, 2, 3], [4, 5, 6], [420, 400, 400])[:2]
    [[1, 4, 100, '1'], [5, 3, 75, '2=']]
    """
    b = _xl.vector(boards, "boards")
    ns, ew = _xl.vector(ns_pairs, "ns_pairs"), _xl.vector(ew_pairs, "ew_pairs")
    sg = _xl.grid(scores)
    _same_length({"boards": b, "ns_pairs": ns, "ew_pairs": ew, "scores": sg})
    exp, sc = _expected_arg(expected), _opt_text(scale, "EBU", "scale")
    why: dict = {}
    if _xl.optional(weights) is None and all(len(r) == 1 for r in sg):
        entries, errors, bad = _score_rows([r[0] for r in sg], b, why)
        session = _core("matchpoints", "matchpoint_session")(entries, b, expected=exp, scale=sc)
    else:
        outcomes, errors, bad = _weighted_outcomes(scores, weights, b, why)
        outcomes = [None if o == [] else o for o in outcomes]
        session = _core("weighted", "weighted_session")(outcomes, b, expected=exp, scale=sc)
    if errors:
        i = min(errors)
        what = why.get(i) or f"row {i + 1}: cannot read the score {_show_cell(sg[i])}"
        raise InputError(f"{what} (the ranking needs every result)")
    fmt = _core("rounding", "format_rank")
    out = []
    for st in _core("matchpoints", "pairs_ranking")(session, ns, ew):
        rank = None if st.rank is None else fmt(st.rank, st.tied)
        out.append([_xl.to_cell(st.pair), _xl.to_cell(st.total), _xl.to_cell(st.percentage), rank])
    return out


def _show_cell(row) -> str:
    vals = [v for v in row if not _xl.is_blank(v)]
    return repr(vals[0]) if len(vals) == 1 else repr(vals)


# --------------------------------------------------------------------------------------------
# teams


@_impl("IMPS")
def _imps_impl(difference):
    """IMPs for a points difference (Law 78B), element-wise (xlbridge.imps.imps).

    >>> _imps_impl([[20], [-430], [4000]])
    [[1], [-10], [24]]
    """
    fn = _core("imps", "imps")
    return _elementwise(lambda difference: fn(_xl.as_int(difference, "difference")), {"difference": difference},
                        blank_if=("difference",))


def _traveller_table(scores, boards, call):
    """n x 2 N-S / E-W values of a traveller from ``call(entries, boards)`` (a core result with .ns/.ew)."""
    s = _nonempty(_xl.vector(scores, "scores"), "scores")
    b = None if _xl.optional(boards) is None else _xl.vector(boards, "boards")
    _same_length({"scores": s, "boards": b})
    entries, errors, bad = _score_rows(s, b)
    res = call(entries, b)
    rows = [[_xl.to_cell(n), _xl.to_cell(e)] for n, e in zip(res.ns, res.ew)]
    return _mask_rows(rows, errors, bad, b, 2)


@_impl("CROSS_IMPS")
def _cross_imps_impl(scores, boards=None, average=None):
    """n x 2 N-S / E-W cross-IMPs per row (xlbridge.imps.cross_imps).

    Law 78B by hand: 420 against 400, 170, -50 is 1 + 6 + 10 = 17 IMPs.

    >>> _cross_imps_impl([420, 400, 170, -50])
    [[17, -17], [15, -15], [-6, 6], [-26, 26]]
    """
    avg = _xl.as_bool(average, "average")
    fn = _core("imps", "cross_imps")
    return _traveller_table(scores, boards, lambda e, b: fn(e, b, average=avg))


@_impl("BUTLER")
def _butler_impl(scores, boards=None, trim=None, rounding=None):
    """n x 2 N-S / E-W IMPs against the Butler datum (xlbridge.imps.butler).

    Four scores, nothing trimmed: mean 235, datum 240; 420 - 240 = 180 is 5 IMPs (Law 78B).

    >>> _butler_impl([420, 400, 170, -50])
    [[5, -5], [4, -4], [-2, 2], [-7, 7]]
    """
    kw = _named_options(trim=trim, rounding=rounding)
    fn = _core("imps", "butler")
    return _traveller_table(scores, boards, lambda e, b: fn(e, b, **kw))


def _named_options(**opts):
    """Optional text options that were given (blank or missing ones keep the core's default)."""
    out = {}
    for k, v in opts.items():
        v = _xl.optional(v, None)
        if v is not None:
            out[k] = _opt_text(v, "", k)
    return out


@_impl("BUTLER_DATUM")
def _datum_impl(scores, trim=None, rounding=None):
    """The Butler datum of one board (xlbridge.imps.butler_datum); NP and blank cells are ignored.

    >>> _datum_impl([[420], [400], ["NP"], [170], [-50]])   # mean 235 -> 240 (a final 5 to the even ten)
    240
    """
    s = [v for v in _xl.vector(scores, "scores")]
    for i, v in enumerate(s):
        err = _xl.error_literal(v)
        if err is not None:
            return err
    entries = []
    for i, v in enumerate(s):
        e = _parse_entry(v, where=f"row {i + 1}")
        if isinstance(e, int) and not isinstance(e, bool) and not _any_vulnerability_legal(e):
            raise InputError(f"impossible score: {e} (no contract gives it)", where=f"row {i + 1}")
        if e is not None and not isinstance(e, _NotPlayed):
            entries.append(e)
    return _xl.to_cell(_core("imps", "butler_datum")(entries, **_named_options(trim=trim, rounding=rounding)))


@_impl("VP")
def _vp_impl(margin, boards):
    """VPs on the WBF 2013 20-VP scale (published table), element-wise over ``margin``.

    >>> _vp_impl(5, 7)
    12.18
    """
    fn = _core("vp", "vp")
    return _elementwise(lambda margin, boards: fn(_xl.as_number(margin, "margin"), boards),
                        {"margin": margin, "boards": boards}, blank_if=("margin",))


@_impl("WEIGHTED_IMPS")
def _weighted_imps_impl(scores, weights, other):
    """IMPs of a weighted result against the other room, per row (xlbridge.teams.weighted_imps).

    Seed 004: 60 % of 420 and 40 % of -50 against 400 is 0.6 x 1 + 0.4 x (-10) = -3.4 IMPs.

    >>> _weighted_imps_impl([[420, -50]], [[0.6, 0.4]], 400)
    -3.4
    """
    outcomes, errors, _ = _weighted_outcomes(scores, weights, None)
    oth = _xl.vector(other, "other")
    if len(oth) == 1 and len(outcomes) > 1:
        oth = oth * len(outcomes)
    _same_length({"scores": outcomes, "other": oth})
    fn = _core("teams", "weighted_imps")
    out = []
    for i, (outs, o) in enumerate(zip(outcomes, oth)):
        err = errors.get(i) or _xl.error_literal(o)
        if err is not None:
            out.append([err])
            continue
        if not outs or _xl.is_blank(o):
            out.append([None])
            continue
        try:
            oe = _parse_entry(o, where=f"row {i + 1}")
            if isinstance(oe, int) and not _any_vulnerability_legal(oe):
                raise InputError(f"impossible score: {oe}")
            out.append([_xl.to_cell(fn(outs if isinstance(outs, list) else [(outs, 1)], oe))])
        except XlbridgeError:
            out.append([_xl.VALUE])
    return out[0][0] if len(out) == 1 and not _is_listlike(other) else out


@_impl("MATCH_RESULT")
def _match_result_impl(board_imps, boards, rounding=None):
    """1 x 4: IMPs A, IMPs B, VP A, VP B of a match from its board IMPs (xlbridge.teams.match_result).

    ``rounding`` (optional) rounds the final IMP margin once before the VP look-up, as the
    regulations do for weighted boards ("nearest"; see xlbridge.teams.round_imps); blank keeps it exact.

    Seed 004: margin 10 - 5 = 5 IMPs over 7 boards is 12.18 VP on the WBF 2013 scale.

    >>> _match_result_impl([3, 0, 5, 2, -2, 0, -3], 7)
    [[10, 5, 12.18, 7.82]]
    """
    imps = [v for v in _xl.vector(board_imps, "board_imps")]
    for i, v in enumerate(imps):
        err = _xl.error_literal(v)
        if err is not None:
            raise InputError(f"the IMPs cell holds {err}", where=f"row {i + 1}")
    vals = [None if _xl.is_blank(v) else _xl.as_number(v, "board_imps", where=f"row {i + 1}")
            for i, v in enumerate(imps)]
    nb = _xl.optional(boards, None)
    nb = None if nb is None else _xl.as_int(nb, "boards", minimum=1)
    rnd = _xl.optional(rounding, None)
    res = _core("teams", "match_result")(vals, nb, rounding=None if rnd is None else str(rnd).strip().lower())
    return [[_xl.to_cell(v) for v in (res.imps_a, res.imps_b, res.vp_a, res.vp_b)]]


# --------------------------------------------------------------------------------------------
# instant matchpoints


def _chart(scores, frequencies, vulnerable):
    s = _xl.vector(scores, "scores")
    f = _xl.vector(frequencies, "frequencies")
    _same_length({"scores": s, "frequencies": f})
    pairs = [(i, a, b) for i, (a, b) in enumerate(zip(s, f)) if not (_xl.is_blank(a) and _xl.is_blank(b))]
    for i, a, b in pairs:
        for v, what in ((a, "score"), (b, "frequency")):
            err = _xl.error_literal(v)
            if err is not None:
                raise InputError(f"the {what} cell holds {err}", where=f"row {i + 1}")
    sc = [_xl.as_int(a, "scores", where=f"row {i + 1}") for i, a, _ in pairs]
    fr = [_xl.as_int(b, "frequencies", where=f"row {i + 1}", minimum=0) for i, _, b in pairs]
    vul = _xl.optional(vulnerable, None)
    if vul is None:
        raise InputError("vulnerability is missing (None, NS, EW, All or a board number)", where="vulnerable")
    return _core("instant", "instant_chart")(sc, fr, vul)


@_impl("INSTANT_MP")
def _instant_mp_impl(scores, frequencies, vulnerable):
    """k x 3 award chart: lowest N-S score, highest N-S score, award %, top row first (seed 002).

    Ten results: 420 five times, 400 three times, -50 twice. 420 beats 5 and shares its score
    with 5: (5 + 5/2) / 10 = 75 %; 400: (2 + 3/2) / 10 = 35 % (xlbridge.instant.instant_chart).

    >>> _instant_mp_impl([420, 400, -50], [5, 3, 2], "None")[1:3]
    [[420, 420, 75], [400, 400, 35]]
    """
    chart = _chart(scores, frequencies, vulnerable)
    return [[_xl.to_cell(lo), _xl.to_cell(hi), _xl.to_cell(aw)] for lo, hi, aw in chart.rows]


@_impl("INSTANT_AWARD")
def _instant_award_impl(score, scores, frequencies, vulnerable):
    """The N-S award (%) of each ``score`` from the chart of the historical scores (seed 002).

    A score no contract gives (410 when nobody is vulnerable) is ``#VALUE!`` in its cell.

    >>> _instant_award_impl([[420], [410]], [420, 400, -50], [5, 3, 2], "None")
    [[75], [ExcelError('#VALUE!')]]
    """
    chart = _chart(scores, frequencies, vulnerable)
    award = _core("instant", "instant_award")
    return _elementwise(lambda score: award(_xl.as_int(score, "score"), chart), {"score": score},
                        blank_if=("score",))


# --------------------------------------------------------------------------------------------
# ratings


def _four(values, name):
    v = [x for x in _xl.vector(values, name)]
    for i, x in enumerate(v):
        err = _xl.error_literal(x)
        if err is not None:
            raise InputError(f"cell {i + 1} holds {err}", where=name)
    if len(v) != 4:
        raise InputError(f"expected 4 cells (N, S, E, W), got {len(v)}", where=name)
    return [float(_xl.as_number(x, name, where=f"cell {i + 1}")) for i, x in enumerate(v)]


@_impl("LEHMAN_PREDICT")
def _lehman_predict_impl(ratings):
    """Predicted N-S percentage from 4 ratings N, S, E, W (seed 003).

    >>> round(_lehman_predict_impl([[50, 45, 45, 45]]), 2)
    51.35
    """
    return _xl.to_cell(_core("lehman", "lehman_predict")(_four(ratings, "ratings")))


@_impl("LEHMAN_DELTA")
def _lehman_delta_impl(ratings, ns_pct, errors=None):
    """1 x 4 rating changes N, S, E, W (standard; with 4 error bounds, the seed 003 modification).

    >>> [round(x, 2) for x in _lehman_delta_impl([50, 45, 45, 45], 42)[0]]
    [-9.11, -8.19, 8.65, 8.65]
    """
    e = None if _xl.optional(errors) is None else _four(errors, "errors")
    pct = float(_xl.as_number(_xl.optional(ns_pct, None), "ns_pct"))
    return [[_xl.to_cell(d) for d in _core("lehman", "lehman_delta")(_four(ratings, "ratings"), pct, e)]]


@_impl("LEHMAN_ERROR")
def _lehman_error_impl(boards):
    """Error bound 1 / sqrt(boards - 1) (1 below 2 boards), element-wise.

    >>> _lehman_error_impl(26)
    0.2
    """
    fn = _core("lehman", "lehman_error")
    return _elementwise(lambda boards: fn(float(_xl.as_number(boards, "boards"))), {"boards": boards},
                        blank_if=("boards",))


@_impl("LEHMAN_UPDATE")
def _lehman_update_impl(rating, history, pseudo_sum, week_boards, decay=None):
    """1 x 2: the new rating and the new (decayed) history count (xlbridge.lehman.lehman_update).

    (H R + sum Q) / (H + n) = (100 x 50 + 400) / 110; history (100 + 10) x (1 - 0.067).

    >>> [round(x, 4) for x in _lehman_update_impl(50, 100, 400, 10)[0]]
    [49.0909, 102.63]
    """
    args = [float(_xl.as_number(_xl.optional(v, None), k)) for k, v in
            (("rating", rating), ("history", history), ("pseudo_sum", pseudo_sum), ("week_boards", week_boards))]
    d = _xl.optional(decay, None)
    kw = {} if d is None else {"decay": float(_xl.as_number(d, "decay"))}
    return [[_xl.to_cell(v) for v in _core("lehman", "lehman_update")(*args, **kw)]]


@_impl("LEHMAN_LEDGER")
def _lehman_ledger_impl(weeks, north, south, east, west, ns_pct, formula=None, decay=None):
    """players x 4: Player, Rating, History boards, Error bound after the season (xlbridge.lehman).

    One board, four newcomers rated 50, N-S 60 %: pseudo-ratings 60 (N-S) and 40 (E-W).

    >>> _lehman_ledger_impl([1], ["ann"], ["bob"], ["cy"], ["di"], [60])
    [['ann', 60.0, 0.933, 1.0], ['bob', 60.0, 0.933, 1.0], ['cy', 40.0, 0.933, 1.0], ['di', 40.0, 0.933, 1.0]]
    """
    cols = {k: _xl.vector(v, k) for k, v in (("weeks", weeks), ("north", north), ("south", south),
                                             ("east", east), ("west", west), ("ns_pct", ns_pct))}
    _same_length(cols)
    keep = [i for i in range(len(cols["weeks"])) if not all(_xl.is_blank(c[i]) for c in cols.values())]
    for i in keep:
        for k, c in cols.items():
            err = _xl.error_literal(c[i])
            if err is not None or _xl.is_blank(c[i]):
                raise InputError(f"{k} is {err or 'blank'}", where=f"row {i + 1}")
    sel = {k: [c[i] for i in keep] for k, c in cols.items()}
    sel["ns_pct"] = [float(_xl.as_number(v, "ns_pct", where=f"row {i + 1}")) for i, v in zip(keep, sel["ns_pct"])]
    sel["weeks"] = [_xl.as_int(v, "weeks", where=f"row {i + 1}") for i, v in zip(keep, sel["weeks"])]
    kw = {"formula": _opt_text(formula, "standard", "formula")}
    d = _xl.optional(decay, None)
    if d is not None:
        kw["decay"] = float(_xl.as_number(d, "decay"))
    led = _core("lehman", "lehman_ledger_arrays")(sel["weeks"], sel["north"], sel["south"], sel["east"],
                                                     sel["west"], sel["ns_pct"], **kw)
    return [[_xl.to_cell(p), r, h, e] for p, (r, h, e) in led.final().items()]


# --------------------------------------------------------------------------------------------
# handicaps (Form-L) and fairness


def _div_avg(divisions, avg_vps):
    d, a = _xl.vector(divisions, "divisions"), _xl.vector(avg_vps, "avg_vps")
    _same_length({"divisions": d, "avg_vps": a})
    for i, (x, y) in enumerate(zip(d, a)):
        for v, what in ((x, "divisions"), (y, "avg_vps")):
            err = _xl.error_literal(v)
            if err is not None:
                raise InputError(f"{what} holds {err}", where=f"row {i + 1}")
    return d, a


@_impl("FORML_HANDICAP")
def _forml_handicap_impl(divisions, avg_vps, imps_per_vp=None, overlap=None):
    """Handicap IMPs (whole numbers) per row, a column (xlbridge.forml.forml_handicaps).

    >>> _forml_handicap_impl([1] * 6, [14.0, 14.0, 13.4, 10.0, 5.3, 3.3])   # seed 000 Table 1, Div 1
    [[0], [0], [3], [18], [40], [49]]
    """
    d, a = _div_avg(divisions, avg_vps)
    kw = {}
    if _xl.optional(imps_per_vp) is not None:
        kw["imps_per_vp"] = _xl.as_number(_xl.optional(imps_per_vp), "imps_per_vp")
    if _xl.optional(overlap) is not None:
        kw["overlap"] = _xl.as_int(_xl.optional(overlap), "overlap")
    return _xl.column(_core("forml", "forml_handicaps")(d, a, **kw))


@_impl("FORML_VPDIFF")
def _forml_vpdiff_impl(divisions, avg_vps, merged=None, overlap=None):
    """Expected (or Merged) VP difference per row, unrounded, a column (xlbridge.forml.forml_vpdiff).

    >>> r = _forml_vpdiff_impl([1] * 6, [14.0, 14.0, 13.4, 10.0, 5.3, 3.3])   # seed 000 Table 1, Div 1
    >>> [round(x[0], 2) for x in r]
    [0, 0, 1, 6.67, 14.5, 17.83]
    """
    d, a = _div_avg(divisions, avg_vps)
    kw = {"merged": _xl.as_bool(merged, "merged")}
    if _xl.optional(overlap) is not None:
        kw["overlap"] = _xl.as_int(_xl.optional(overlap), "overlap")
    return _xl.column(_core("forml", "forml_vpdiff")(d, a, **kw))


@_impl("LEGACY_HANDICAP")
def _legacy_handicap_impl(divisions, avg_vps, step=None):
    """Handicaps of the system Form-L replaced (6-IMP steps, chained divisions), a column.

    >>> _legacy_handicap_impl([1] * 6, [14.0, 14.0, 13.4, 10.0, 5.3, 3.3])   # ties share a rank
    [[0], [0], [12], [18], [24], [30]]
    """
    d, a = _div_avg(divisions, avg_vps)
    kw = {} if _xl.optional(step) is None else {"step": _xl.as_number(_xl.optional(step), "step")}
    return _xl.column(_core("forml", "legacy_handicaps")(d, a, **kw))


@_impl("FORML_NEWTEAMS")
def _forml_newteams_impl(teams, opponents, vps_for, vps_against, known_teams, known_vpdiff, imps_per_vp=None):
    """k x 2: each new team and its handicap IMPs, solved jointly (xlbridge.forml.forml_new_teams).

    >>> _forml_newteams_impl(["X", "X", "Y"], ["A", "Y", "B"], [8, 13, 10], [12, 7, 10], ["A", "B"], [0, 6])
    [['X', 7], ['Y', 20]]
    """
    cols = {k: _xl.vector(v, k) for k, v in (("teams", teams), ("opponents", opponents), ("vps_for", vps_for),
                                             ("vps_against", vps_against))}
    _same_length(cols)
    kt, kv = _xl.vector(known_teams, "known_teams"), _xl.vector(known_vpdiff, "known_vpdiff")
    _same_length({"known_teams": kt, "known_vpdiff": kv})
    for k, c in list(cols.items()) + [("known_teams", kt), ("known_vpdiff", kv)]:
        for i, v in enumerate(c):
            err = _xl.error_literal(v)
            if err is not None:
                raise InputError(f"{k} holds {err}", where=f"row {i + 1}")
    kw = {} if _xl.optional(imps_per_vp) is None else {
        "imps_per_vp": _xl.as_number(_xl.optional(imps_per_vp), "imps_per_vp")}
    res = _core("forml", "forml_new_teams")(cols["teams"], cols["opponents"], cols["vps_for"],
                                            cols["vps_against"], kt, kv, **kw)
    return [[_xl.to_cell(t), _xl.to_cell(h)] for t, h in res.items()]


@_impl("FAIRNESS")
def _fairness_impl(wins, matches, upper=None):
    """P(X <= wins) (or, with ``upper`` TRUE, P(X >= wins)) for X ~ Binomial(matches, 1/2), element-wise.

    Exact (xlbridge.fairness), then one float. Seed 000: the higher-ranking team won 19 of 56,
    i.e. the higher-handicap team won 37 of 56.

    >>> round(_fairness_impl(19, 56), 4), round(_fairness_impl(37, 56, True), 4)
    (0.0111, 0.0111)
    """
    up = _xl.as_bool(upper, "upper", False)
    fn = _core("fairness", "fairness_p_upper_exact" if up else "fairness_p_exact")
    return _elementwise(lambda wins, matches: fn(wins, matches), {"wins": wins, "matches": matches},
                        blank_if=("wins", "matches"))


@_impl("FAIRNESS_BAND")
def _fairness_band_impl(matches, tail):
    """n x 2: for each number of matches, the fewest and most wins of the band excluding ``tail`` at each end.

    One cell gives 1 x 2; a column of n match counts gives n x 2 (one call per band line), with
    blank rows left blank, an error cell passed on and an unreadable count (``-3``, ``6.5``,
    text) giving ``#VALUE!`` in its row. A bad ``tail`` stops the call (it applies to every row).

    >>> _fairness_band_impl(56, 0.01)
    [[19, 37]]
    >>> _fairness_band_impl([[10.0], [None], [56.0], ["ten"]], 0.25)
    [[4, 6], [None, None], [25, 31], [ExcelError('#VALUE!'), ExcelError('#VALUE!')]]
    """
    t = _xl.optional(tail, None)
    band = _core("fairness", "fairness_band")
    ms = _nonempty(_xl.vector(matches, "matches"), "matches")
    band(0, t)  # check the tail once, before any row
    out = []
    for i, m in enumerate(ms, start=1):
        err = _xl.error_literal(m)
        if err is not None or _xl.is_blank(m):
            out.append([err, err])
            continue
        try:
            lo, hi = band(_xl.as_int(m, "matches", where=f"row {i}", minimum=0), t)
        except XlbridgeError:
            lo = hi = _xl.VALUE
        out.append([lo, hi])
    return out


# --------------------------------------------------------------------------------------------
# the Excel functions (xlwings UDFs): one-line docstrings for the function wizard, a doc per argument

# Results spill natively (Excel 365/2021, xlwings Lite/Server). For an older Excel without dynamic
# arrays, XLBRIDGE_LEGACY_SPILL=1 turns on xlwings' legacy expand="table" (classic xlwings only; it
# overwrites the cells the result spills into).
_RET = {"expand": "table"} if os.environ.get("XLBRIDGE_LEGACY_SPILL", "").strip() in ("1", "true", "yes") else {}

_SCORES_DOC = "N-S scores, one row per result: numbers, A60/40 (artificial, %), NP (not played); blanks ignored"
_BOARDS_DOC = "Board numbers parallel to the scores (optional; rows are grouped by board; vulnerability by board)"
_SCALE_DOC = 'Matchpoint scale: "EBU" (2 per score beaten, 1 per tie; default) or "ACBL" (1 and 1/2)'
_EXPECTED_DOC = "Expected number of results per board for Neuberg (optional; default: the most rows with a score on any board)"


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("contract", ndim=2, err_to_str=True, doc="Contract like 4S, 3NTX, 6HXX, 3N or PASS (a cell or a column)")
@xw.arg("declarer", ndim=2, err_to_str=True, doc="Declarer: N, E, S or W")
@xw.arg("tricks", ndim=2, err_to_str=True, doc="Tricks taken by declarer, 0-13")
@xw.arg("vulnerable", ndim=2, err_to_str=True, doc="Vulnerability: None, NS, EW, All (Both, Love, -) or a board number")
def BRIDGE_SCORE(contract, declarer, tricks, vulnerable):
    """N-S score of a contract result (Law 77); works on ranges element-wise."""
    return _run("BRIDGE_SCORE", contract, declarer, tricks, vulnerable)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("contract", ndim=2, err_to_str=True, doc="Contract like 4S, 3NTX or PASS; blank to use the typed score")
@xw.arg("declarer", ndim=2, err_to_str=True, doc="Declarer: N, E, S or W")
@xw.arg("tricks", ndim=2, err_to_str=True, doc="Tricks taken by declarer, 0-13")
@xw.arg("board", ndim=2, err_to_str=True, doc="Board number (gives the vulnerability) or a vulnerability name")
@xw.arg("typed", ndim=2, err_to_str=True, doc="Typed score used when no contract is given: a number, A60/40 or NP")
def SCORE_OR_TYPED(contract, declarer, tricks, board, typed):
    """N-S score from contract, declarer and tricks where given, else the typed score unchanged."""
    return _run("SCORE_OR_TYPED", contract, declarer, tricks, board, typed)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("scores", ndim=2, err_to_str=True, doc=_SCORES_DOC)
@xw.arg("boards", ndim=2, err_to_str=True, doc=_BOARDS_DOC)
@xw.arg("expected", ndim=2, err_to_str=True, doc=_EXPECTED_DOC)
@xw.arg("scale", ndim=2, err_to_str=True, doc=_SCALE_DOC)
def MATCHPOINTS(scores, boards=None, expected=None, scale=None):
    """N-S and E-W matchpoints of each row (n x 2), Neuberg-factored, grouped by board."""
    return _run("MATCHPOINTS", scores, boards, expected, scale)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("scores", ndim=2, err_to_str=True,
        doc="n x k range: row i holds the possible N-S outcomes of result i (a plain result: one score)")
@xw.arg("weights", ndim=2, err_to_str=True,
        doc="n x k range parallel to scores: the weights of the outcomes (total 1 or 100 % per row; blank for a plain result)")
@xw.arg("boards", ndim=2, err_to_str=True, doc=_BOARDS_DOC)
@xw.arg("expected", ndim=2, err_to_str=True, doc=_EXPECTED_DOC)
@xw.arg("scale", ndim=2, err_to_str=True, doc=_SCALE_DOC)
def WEIGHTED_MP(scores, weights, boards=None, expected=None, scale=None):
    """Matchpoints (n x 2) for travellers with Law 12C1(c) weighted scores, exact."""
    return _run("WEIGHTED_MP", scores, weights, boards, expected, scale)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("mp", ndim=2, err_to_str=True, doc="Matchpoints earned among the actual results (a cell or a range)")
@xw.arg("expected", ndim=2, err_to_str=True, doc="Expected number of results on the board (E)")
@xw.arg("actual", ndim=2, err_to_str=True, doc="Actual number of results on the board (A)")
@xw.arg("scale", ndim=2, err_to_str=True, doc=_SCALE_DOC)
def NEUBERG(mp, expected, actual, scale=None):
    """The Neuberg formula: matchpoints factored from actual to expected results."""
    return _run("NEUBERG", mp, expected, actual, scale)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("mp", ndim=2, err_to_str=True, doc="Matchpoints (a cell or a range)")
@xw.arg("results", ndim=2, err_to_str=True, doc="Number of results on the board (sets the top)")
@xw.arg("scale", ndim=2, err_to_str=True, doc=_SCALE_DOC)
def MP_PERCENT(mp, results, scale=None):
    """Matchpoints as a percentage of the top for a board of that many results."""
    return _run("MP_PERCENT", mp, results, scale)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("boards", ndim=2, err_to_str=True, doc="Board number of each row")
@xw.arg("ns_pairs", ndim=2, err_to_str=True, doc="N-S pair of each row")
@xw.arg("ew_pairs", ndim=2, err_to_str=True, doc="E-W pair of each row")
@xw.arg("scores", ndim=2, err_to_str=True, doc="N-S score of each row (n x k with weights for weighted scores)")
@xw.arg("weights", ndim=2, err_to_str=True, doc="Weights parallel to scores for weighted scores (optional)")
@xw.arg("expected", ndim=2, err_to_str=True, doc=_EXPECTED_DOC)
@xw.arg("scale", ndim=2, err_to_str=True, doc=_SCALE_DOC)
def PAIRS_RANKING(boards, ns_pairs, ew_pairs, scores, weights=None, expected=None, scale=None):
    """Pairs ranking (k x 4): Pair, Total MP, Percentage, Rank (exact ties as 3=), best first."""
    return _run("PAIRS_RANKING", boards, ns_pairs, ew_pairs, scores, weights, expected, scale)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("difference", ndim=2, err_to_str=True, doc="Points difference (a cell or a range)")
def IMPS(difference):
    """IMPs for a points difference (Law 78B); works on ranges element-wise."""
    return _run("IMPS", difference)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("scores", ndim=2, err_to_str=True, doc=_SCORES_DOC)
@xw.arg("boards", ndim=2, err_to_str=True, doc=_BOARDS_DOC)
@xw.arg("average", ndim=2, err_to_str=True, doc="TRUE for the average over the other results; FALSE or blank for the total")
def CROSS_IMPS(scores, boards=None, average=None):
    """N-S and E-W cross-IMPs of each row (n x 2): total, or average with TRUE."""
    return _run("CROSS_IMPS", scores, boards, average)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("scores", ndim=2, err_to_str=True, doc=_SCORES_DOC)
@xw.arg("boards", ndim=2, err_to_str=True, doc=_BOARDS_DOC)
@xw.arg("trim", ndim=2, err_to_str=True, doc='Which scores the datum drops: "acbl" (5 % at each end; default) or another named rule')
@xw.arg("rounding", ndim=2, err_to_str=True, doc='Rounding of a final 5 in the datum: "even" (default) or another named rule')
def BUTLER(scores, boards=None, trim=None, rounding=None):
    """N-S and E-W IMPs against the Butler datum of each board (n x 2)."""
    return _run("BUTLER", scores, boards, trim, rounding)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("scores", ndim=2, err_to_str=True, doc="N-S scores of one board")
@xw.arg("trim", ndim=2, err_to_str=True, doc='Which scores the datum drops: "acbl" (default) or another named rule')
@xw.arg("rounding", ndim=2, err_to_str=True, doc='Rounding of a final 5: "even" (default) or another named rule')
def BUTLER_DATUM(scores, trim=None, rounding=None):
    """The Butler datum of one board: trimmed mean of the N-S scores, rounded to 10."""
    return _run("BUTLER_DATUM", scores, trim, rounding)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("margin", ndim=2, err_to_str=True, doc="IMP margin of the side (negative if it lost; a cell or a range)")
@xw.arg("boards", ndim=2, err_to_str=True, doc="Number of boards in the match")
def VP(margin, boards):
    """VPs for an IMP margin on the WBF 2013 continuous 20-VP scale (published table)."""
    return _run("VP", margin, boards)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("scores", ndim=2, err_to_str=True, doc="The possible N-S outcomes of the weighted result (a row; n x k for n results)")
@xw.arg("weights", ndim=2, err_to_str=True, doc="Their weights (total 1 or 100 %)")
@xw.arg("other", ndim=2, err_to_str=True, doc="N-S score in the other room")
def WEIGHTED_IMPS(scores, weights, other):
    """IMPs of a weighted result against the other room: each outcome IMPed, then weighted."""
    return _run("WEIGHTED_IMPS", scores, weights, other)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("board_imps", ndim=2, err_to_str=True, doc="IMPs of team A on each board (negative when B gained)")
@xw.arg("boards", ndim=2, err_to_str=True, doc="Number of boards in the match (VP scale)")
@xw.arg("rounding", ndim=2, err_to_str=True, doc='Optional: "nearest" rounds the IMP margin once before the VP look-up; blank keeps it exact')
def MATCH_RESULT(board_imps, boards, rounding=None):
    """Match result (1 x 4): IMPs A, IMPs B, VP A, VP B."""
    return _run("MATCH_RESULT", board_imps, boards, rounding)


_VUL_DOC = "Vulnerability of the board: None, NS, EW, All or a board number"


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("scores", ndim=2, err_to_str=True, doc="Historical N-S scores of the board")
@xw.arg("frequencies", ndim=2, err_to_str=True, doc="How often each score occurred")
@xw.arg("vulnerable", ndim=2, err_to_str=True, doc=_VUL_DOC)
def INSTANT_MP(scores, frequencies, vulnerable):
    """Instant matchpoint award chart (k x 3): lowest score, highest score, N-S award %."""
    return _run("INSTANT_MP", scores, frequencies, vulnerable)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("score", ndim=2, err_to_str=True, doc="N-S score(s) to look up")
@xw.arg("scores", ndim=2, err_to_str=True, doc="Historical N-S scores of the board")
@xw.arg("frequencies", ndim=2, err_to_str=True, doc="How often each score occurred")
@xw.arg("vulnerable", ndim=2, err_to_str=True, doc=_VUL_DOC)
def INSTANT_AWARD(score, scores, frequencies, vulnerable):
    """N-S instant matchpoint award (%) for a score, from the chart of historical scores."""
    return _run("INSTANT_AWARD", score, scores, frequencies, vulnerable)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("ratings", ndim=2, err_to_str=True, doc="4 cells: the ratings of N, S, E, W")
def LEHMAN_PREDICT(ratings):
    """Predicted N-S percentage from the four Lehman ratings."""
    return _run("LEHMAN_PREDICT", ratings)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("ratings", ndim=2, err_to_str=True, doc="4 cells: the ratings of N, S, E, W")
@xw.arg("ns_pct", ndim=2, err_to_str=True, doc="Percentage scored by N-S")
@xw.arg("errors", ndim=2, err_to_str=True, doc="4 error bounds 0-1 for the modified formula (optional; blank: standard Lehman)")
def LEHMAN_DELTA(ratings, ns_pct, errors=None):
    """Lehman rating changes N, S, E, W (1 x 4); with error bounds, the modified formula."""
    return _run("LEHMAN_DELTA", ratings, ns_pct, errors)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("boards", ndim=2, err_to_str=True, doc="Number of boards of history")
def LEHMAN_ERROR(boards):
    """Error bound of a rating: 1 / SQRT(boards - 1); 1 below 2 boards."""
    return _run("LEHMAN_ERROR", boards)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("rating", ndim=2, err_to_str=True, doc="Current rating")
@xw.arg("history", ndim=2, err_to_str=True, doc="Boards of history behind the rating")
@xw.arg("pseudo_sum", ndim=2, err_to_str=True, doc="Sum of the week's pseudo-ratings")
@xw.arg("week_boards", ndim=2, err_to_str=True, doc="Boards played this week")
@xw.arg("decay", ndim=2, err_to_str=True, doc="Weekly history decay (optional; default 0.067)")
def LEHMAN_UPDATE(rating, history, pseudo_sum, week_boards, decay=None):
    """Weekly Lehman update (1 x 2): the new rating and the new decayed history count."""
    return _run("LEHMAN_UPDATE", rating, history, pseudo_sum, week_boards, decay)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("weeks", ndim=2, err_to_str=True, doc="Week number of each board row")
@xw.arg("north", ndim=2, err_to_str=True, doc="North player of each row")
@xw.arg("south", ndim=2, err_to_str=True, doc="South player of each row")
@xw.arg("east", ndim=2, err_to_str=True, doc="East player of each row")
@xw.arg("west", ndim=2, err_to_str=True, doc="West player of each row")
@xw.arg("ns_pct", ndim=2, err_to_str=True, doc="Percentage scored by N-S on each row")
@xw.arg("formula", ndim=2, err_to_str=True, doc='"standard" (default) or "modified" (error-bound modification)')
@xw.arg("decay", ndim=2, err_to_str=True, doc="Weekly history decay (optional; default 0.067)")
def LEHMAN_LEDGER(weeks, north, south, east, west, ns_pct, formula=None, decay=None):
    """Lehman ratings after a season (players x 4): Player, Rating, History boards, Error bound."""
    return _run("LEHMAN_LEDGER", weeks, north, south, east, west, ns_pct, formula, decay)


_DIV_DOC = "Division of each team: 1 (top), 2, ..."
_AVG_DOC = "Average VPs of each team in its division last season"


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("divisions", ndim=2, err_to_str=True, doc=_DIV_DOC)
@xw.arg("avg_vps", ndim=2, err_to_str=True, doc=_AVG_DOC)
@xw.arg("imps_per_vp", ndim=2, err_to_str=True, doc="IMPs per VP of difference (optional; default 2.75)")
@xw.arg("overlap", ndim=2, err_to_str=True, doc="Ranks by which divisions overlap when merged (optional; default 2)")
def FORML_HANDICAP(divisions, avg_vps, imps_per_vp=None, overlap=None):
    """Form-L handicap IMPs (whole numbers) for each team."""
    return _run("FORML_HANDICAP", divisions, avg_vps, imps_per_vp, overlap)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("divisions", ndim=2, err_to_str=True, doc=_DIV_DOC)
@xw.arg("avg_vps", ndim=2, err_to_str=True, doc=_AVG_DOC)
@xw.arg("merged", ndim=2, err_to_str=True, doc="TRUE for the Merged VP difference; FALSE or blank for the Expected")
@xw.arg("overlap", ndim=2, err_to_str=True, doc="Ranks by which divisions overlap when merged (optional; default 2)")
def FORML_VPDIFF(divisions, avg_vps, merged=None, overlap=None):
    """Form-L Expected (or Merged) VP difference of each team, unrounded."""
    return _run("FORML_VPDIFF", divisions, avg_vps, merged, overlap)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("divisions", ndim=2, err_to_str=True, doc=_DIV_DOC)
@xw.arg("avg_vps", ndim=2, err_to_str=True, doc=_AVG_DOC)
@xw.arg("step", ndim=2, err_to_str=True, doc="IMPs per rank within a division (optional; default 6)")
def LEGACY_HANDICAP(divisions, avg_vps, step=None):
    """Handicaps of the system Form-L replaced (6-IMP steps, chained divisions)."""
    return _run("LEGACY_HANDICAP", divisions, avg_vps, step)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("teams", ndim=2, err_to_str=True, doc="Team of each match row")
@xw.arg("opponents", ndim=2, err_to_str=True, doc="Its opponent")
@xw.arg("vps_for", ndim=2, err_to_str=True, doc="VPs of the team")
@xw.arg("vps_against", ndim=2, err_to_str=True, doc="VPs of the opponent")
@xw.arg("known_teams", ndim=2, err_to_str=True, doc="Teams with a handicap from last season")
@xw.arg("known_vpdiff", ndim=2, err_to_str=True, doc="Their Merged VP differences")
@xw.arg("imps_per_vp", ndim=2, err_to_str=True, doc="IMPs per VP of difference (optional; default 2.75)")
def FORML_NEWTEAMS(teams, opponents, vps_for, vps_against, known_teams, known_vpdiff, imps_per_vp=None):
    """Handicap IMPs of the new teams (k x 2: team, IMPs), solved jointly."""
    return _run("FORML_NEWTEAMS", teams, opponents, vps_for, vps_against, known_teams, known_vpdiff, imps_per_vp)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("wins", ndim=2, err_to_str=True, doc="Wins of the side counted (e.g. the higher-handicap team; seed 000: 34 of 87)")
@xw.arg("matches", ndim=2, err_to_str=True, doc="Decided matches between teams with different handicaps")
@xw.arg("upper", ndim=2, err_to_str=True, doc="Optional: TRUE for the upper tail P(X >= wins); blank or FALSE for P(X <= wins)")
def FAIRNESS(wins, matches, upper=None):
    """P(X <= wins) (or P(X >= wins) with upper TRUE) for X ~ Binomial(matches, 1/2), exact."""
    return _run("FAIRNESS", wins, matches, upper)


@xw.func(category=CATEGORY)
@xw.ret(**_RET)
@xw.arg("matches", ndim=2, err_to_str=True, doc="Number of decided matches (one cell, or a column for a whole band line)")
@xw.arg("tail", ndim=2, err_to_str=True, doc="Share of outcomes excluded at each end, e.g. 0.25, 0.10, 0.01")
def FAIRNESS_BAND(matches, tail):
    """Fewest and most wins (n x 2) of the band excluding a tail share at each end, per number of matches."""
    return _run("FAIRNESS_BAND", matches, tail)
