"""The adapters behind the Excel functions: read the cells, call the core, shape the result.

One function per Excel function, named after it in lower case (``matchpoints`` for
``MATCHPOINTS``), each declared once in :mod:`xlbridge.excel.functions` (name, arguments, help).
The declaration converts the scalar options first (a blank cell means the default), so an
adapter gets ``expected`` as an int or None, ``scale`` as text, ``average`` as a bool; ranges and
element-wise operands arrive as Excel sent them and are read here, each column once
(:mod:`xlbridge.excel.cells`, :mod:`xlbridge.excel.travellers`). No scoring rule lives here.

Results: a scalar or a 2-D list that spills; a per-cell problem is an :class:`~xlbridge.excel.cells.ExcelError`
in that cell, a call that cannot run raises (the runtime turns it into one short message).

>>> neuberg(14, 16, 8, "EBU"), imps([[20.0], [-430.0], [4000.0]])
(29, [[1], [-10], [24]])
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ..core.contract import bridge_score as core_bridge_score
from ..core.entries import parse_entry
from ..core.errors import InputError, XlbridgeError, shown
from ..core.handicap.fairness import (
    check_work,
    fairness_band as core_fairness_band,
    fairness_p_exact,
    fairness_p_upper_exact,
    fairness_work,
)
from ..core.handicap.forml import forml_handicaps, forml_new_teams, legacy_handicaps
from ..core.handicap.forml import forml_vpdiff as core_forml_vpdiff
from ..core.instant import InstantChart, instant_chart
from ..core.pairs.matchpoints import ROW_SCORE, session_from_rows
from ..core.pairs.neuberg import mp_percent as core_mp_percent
from ..core.pairs.neuberg import neuberg as core_neuberg
from ..core.pairs.standings import pairs_ranking as core_pairs_ranking
from ..core.pairs.weighted import weighted_session
from ..core.ranking import format_rank
from ..core.ratings.ledger import lehman_ledger_arrays
from ..core.ratings.lehman import lehman_delta as core_lehman_delta
from ..core.ratings.lehman import lehman_error as core_lehman_error
from ..core.ratings.lehman import lehman_predict as core_lehman_predict
from ..core.ratings.lehman import lehman_update as core_lehman_update
from ..core.teams.butler import butler as core_butler
from ..core.teams.butler import butler_datum as core_butler_datum
from ..core.teams.imps import cross_imps as core_cross_imps
from ..core.teams.imps import imps as core_imps
from ..core.teams.imps import imps_array
from ..core.teams.teams import match_result as core_match_result
from ..core.teams.teams import weighted_imps as core_weighted_imps
from ..core.teams.vp import vp as core_vp
from . import cells as xl
from .travellers import mask_weighted, nonempty, read_traveller, read_weighted, same_length

Cells = Any  # what Excel sends for a cell or a range


# --------------------------------------------------------------------------------------------
# element-wise functions: scalars and single cells broadcast, ranges must share one shape


def _is_listlike(v: object) -> bool:
    return isinstance(v, (list, tuple)) or (hasattr(v, "ndim") and getattr(v, "ndim", 0) > 0)


def broadcast(args: dict[str, Cells]) -> tuple[list[list[dict[str, Any]]], bool]:
    """The cells of each result position (rows of {argument: cell}) and whether any argument is a range."""
    grids = {k: xl.grid(v) for k, v in args.items()}
    shapes = {k: (len(g), len(g[0]) if g else 0) for k, g in grids.items()}
    big = {k: s for k, s in shapes.items() if s != (1, 1)}
    empty = [k for k, s in shapes.items() if s[0] == 0]
    if empty:
        raise InputError("the range is empty", where=empty[0])
    if len(set(big.values())) > 1:
        desc = ", ".join(f"{k} is {s[0]} x {s[1]}" for k, s in big.items())
        raise InputError(f"ranges must have the same size or be single cells: {desc}")
    h, w = next(iter(big.values()), (1, 1))
    rows = [[{k: (g[0][0] if shapes[k] == (1, 1) else g[r][c]) for k, g in grids.items()} for c in range(w)]
            for r in range(h)]
    return rows, any(_is_listlike(v) for v in args.values())


def elementwise(fn: Callable[..., Any], args: dict[str, Cells], *, blank_if: tuple[str, ...] = ()) -> Any:
    """Apply ``fn`` cell by cell (results of repeated cells computed once).

    A cell holding an Excel error passes it on; a cell ``fn`` cannot read gives ``#VALUE!``;
    a position whose ``blank_if`` arguments are all blank gives a blank cell.
    """
    rows, listlike = broadcast(args)
    names = list(args)
    memo: dict[tuple[Any, ...], Any] = {}
    out = []
    for row in rows:
        res = []
        for cells in row:
            key = tuple(cells[k] for k in names)
            try:
                hit = memo.get(key, memo)
            except TypeError:  # an unhashable cell
                hit = memo
            if hit is memo:
                hit = _cell(fn, cells, names, blank_if)
                try:
                    memo[key] = hit
                except TypeError:
                    pass
            res.append(hit)
        out.append(res)
    return out if listlike else out[0][0]


def _cell(fn: Callable[..., Any], cells: dict[str, Any], names: list[str], blank_if: tuple[str, ...]) -> Any:
    for k in names:
        err = xl.error_literal(cells[k])
        if err is not None:
            return err
    if blank_if and all(xl.is_blank(cells[k]) for k in blank_if):
        return None
    try:
        return xl.to_cell(fn(**cells))
    except (XlbridgeError, ValueError, TypeError, ZeroDivisionError, OverflowError):
        return xl.VALUE


# --------------------------------------------------------------------------------------------
# boards and pairs


def bridge_score(contract: Cells, declarer: Cells, tricks: Cells, vulnerable: Cells) -> Any:
    """N-S score of each result (Law 77), element-wise; a blank contract gives a blank cell.

    >>> bridge_score([["4S"], ["3NTX"]], [["N"], ["E"]], [[10], [8]], 1)   # 3NTX by E one down: +100
    [[420], [100]]
    """
    return elementwise(core_bridge_score, {"contract": contract, "declarer": declarer, "tricks": tricks,
                                           "vulnerable": vulnerable}, blank_if=("contract",))


def score_or_typed(contract: Cells, declarer: Cells, tricks: Cells, board: Cells, typed: Cells) -> Any:
    """BRIDGE_SCORE where a contract is given, else the typed score cell passed through unchanged.

    >>> score_or_typed([["4S"], [None], [None], [None]], "N", 10, 1, [[None], ["A60/40"], ["NP"], [None]])
    [[420], ['A60/40'], ['NP'], [None]]
    """
    def one(contract: Any, declarer: Any, tricks: Any, board: Any, typed: Any) -> Any:
        if xl.is_blank(contract):
            if xl.is_blank(typed):
                return None
            parse_entry(typed)  # refuse what no score cell can hold (text, 425, TRUE)
            return typed.strip() if isinstance(typed, str) else typed
        return core_bridge_score(contract, declarer, tricks, board)

    return elementwise(one, {"contract": contract, "declarer": declarer, "tricks": tricks, "board": board,
                             "typed": typed})


def matchpoints(scores: Cells, boards: Cells, expected: int | None, scale: str) -> list[list[Any]]:
    """n x 2 N-S / E-W matchpoints per row (xlbridge.core.pairs.matchpoints), read and returned per column.

    Seed 001, section 4(e): 8 results Neuberg-factored to 16 expected.

    >>> matchpoints([490, 460, 460, 430, 430, 430, 400, -50], None, 16, "EBU")[0]
    [29, 1]
    """
    t = read_traveller(scores, boards)
    session = session_from_rows(t.kind, t.score, t.arts, t.codes, t.labels, expected=expected, scale=scale,
                                check_legal=False)  # read_traveller checked every score against the same table
    scored = session.kind >= ROW_SCORE
    rows = [list(r) for r in zip(xl.ratio_cells(session.ns_num, session.den, scored),
                                 xl.ratio_cells(session.ew_num, session.den, scored))]
    return t.mask(rows, 2)


def _boards_column(boards: Cells) -> list[Any] | None:
    return None if xl.optional(boards) is None else xl.vector(boards, "boards")


def _session_cells(session: Any) -> list[list[Any]]:
    scored = session.kind >= ROW_SCORE
    return [list(r) for r in zip(xl.ratio_cells(session.ns_num, session.den, scored),
                                 xl.ratio_cells(session.ew_num, session.den, scored))]


def weighted_mp(scores: Cells, weights: Cells, boards: Cells, expected: int | None, scale: str) -> list[list[Any]]:
    """n x 2 matchpoints for travellers with Law 12C1(c) weighted scores (xlbridge.core.pairs.weighted).

    Seed 004, two weighted scores (ERRATA: pair A 2.75): 1/0.5 scale, 6 expected results.

    >>> r = weighted_mp([[420, None], [400, None], [400, None], [-50, None], [420, -50], [170, 420]],
    ...                 [[None, None], [None, None], [None, None], [None, None], [0.6, 0.4], [0.5, 0.5]],
    ...                 None, 6, "ACBL")
    >>> [round(x[0], 2) for x in r]
    [4.45, 2.4, 2.4, 0.2, 2.75, 2.8]
    """
    b = _boards_column(boards)
    w = read_weighted(scores, weights, b)
    session = weighted_session(w.outcomes, b, expected=expected, scale=scale, check_legal=False)
    return mask_weighted(_session_cells(session), w, b, 2)


def neuberg(mp: Cells, expected: Cells, actual: Cells, scale: str) -> Any:
    """The Neuberg formula element-wise over ``mp`` (xlbridge.core.pairs.neuberg).

    >>> neuberg(14, 16, 8, "EBU"), neuberg(18, 11, 10, "EBU")
    (29, 19.9)
    """
    return elementwise(lambda mp, expected, actual: core_neuberg(xl.as_number(mp, "mp"), expected, actual, scale),
                       {"mp": mp, "expected": expected, "actual": actual}, blank_if=("mp",))


def mp_percent(mp: Cells, results: Cells, scale: str) -> Any:
    """Matchpoints (0 to the top) as a percentage of the top, element-wise (xlbridge.core.pairs.neuberg).

    >>> round(mp_percent(1060 / 11, 51, "EBU"), 4)
    96.3636
    """
    return elementwise(lambda mp, results: core_mp_percent(xl.as_number(mp, "mp"), results, scale),
                       {"mp": mp, "results": results}, blank_if=("mp",))


def pairs_ranking(boards: Cells, ns_pairs: Cells, ew_pairs: Cells, scores: Cells, weights: Cells,
                  expected: int | None, scale: str) -> list[list[Any]]:
    """k x 4 table Pair, Total MP, Percentage, Rank ("3=" for exact ties), best first; exact inside.

    >>> pairs_ranking([1, 1, 1], [1, 2, 3], [4, 5, 6], [420, 400, 400], None, None, "EBU")[:2]
    [[1, 4, 100, '1'], [5, 3, 75, '2=']]
    """
    b = xl.vector(boards, "boards")
    ns, ew = xl.vector(ns_pairs, "ns_pairs"), xl.vector(ew_pairs, "ew_pairs")
    sg = xl.grid(scores)
    same_length({"boards": b, "ns_pairs": ns, "ew_pairs": ew, "scores": sg})
    if xl.optional(weights) is None and all(len(r) == 1 for r in sg):
        t = read_traveller([r[0] for r in sg], b)
        errors, why = t.errors, t.reasons
        session: Any = session_from_rows(t.kind, t.score, t.arts, t.codes, t.labels, expected=expected, scale=scale,
                                         check_legal=False)
    else:
        w = read_weighted(scores, weights, b)
        errors, why = w.errors, w.reasons
        session = weighted_session(w.outcomes, b, expected=expected, scale=scale, check_legal=False)
    if errors:
        i = min(errors)
        what = why.get(i) or f"row {i + 1}: cannot read the score {_show_cell(sg[i])}"
        raise InputError(f"{what} (the ranking needs every result)")
    out = []
    for st in core_pairs_ranking(session, ns, ew):
        rank = None if st.rank is None else format_rank(st.rank, st.tied)
        out.append([xl.to_cell(st.pair), xl.to_cell(st.total), xl.to_cell(st.percentage), rank])
    return out


def _show_cell(row: list[Any]) -> str:
    vals = [v for v in row if not xl.is_blank(v)]
    return shown(vals[0]) if len(vals) == 1 else shown(vals)


# --------------------------------------------------------------------------------------------
# teams


def imps(difference: Cells) -> Any:
    """IMPs for a points difference (Law 78B), element-wise (xlbridge.core.teams.imps).

    A column of plain whole numbers is converted in one vectorised look-up.

    >>> imps([[20], [-430], [4000]])
    [[1], [-10], [24]]
    """
    if _is_listlike(difference):
        c = xl.read_column(difference, "difference") if xl.shape_of(difference)[1] == 1 or \
            xl.shape_of(difference)[0] == 1 else None
        if c is not None and len(c) and c.whole.all():
            flat = imps_array(c.ints()).tolist()
            return [[v] for v in flat] if xl.shape_of(difference)[1] == 1 else [flat]
    return elementwise(lambda difference: core_imps(xl.as_int(difference, "difference")), {"difference": difference},
                       blank_if=("difference",))


def cross_imps(scores: Cells, boards: Cells, average: bool) -> list[list[Any]]:
    """n x 2 N-S / E-W cross-IMPs per row (xlbridge.core.teams.imps.cross_imps).

    Law 78B by hand: 420 against 400, 170, -50 is 1 + 6 + 10 = 17 IMPs.

    >>> cross_imps([420, 400, 170, -50], None, False)
    [[17, -17], [15, -15], [-6, 6], [-26, 26]]
    """
    t = read_traveller(scores, boards)
    res = core_cross_imps(t.entries(), t.board_cells(), average=average, check_legal=False)
    return t.mask(xl.to_cells(list(zip(res.ns, res.ew))), 2)


def butler(scores: Cells, boards: Cells, trim: str | None, rounding: str | None) -> list[list[Any]]:
    """n x 2 N-S / E-W IMPs against the Butler datum (xlbridge.core.teams.butler).

    Four scores, nothing trimmed: mean 235, datum 240; 420 - 240 = 180 is 5 IMPs (Law 78B).

    >>> butler([420, 400, 170, -50], None, None, None)
    [[5, -5], [4, -4], [-2, 2], [-7, 7]]
    """
    t = read_traveller(scores, boards)
    res = core_butler(t.entries(), t.board_cells(), check_legal=False, **_options(trim=trim, rounding=rounding))
    return t.mask(xl.to_cells(list(zip(res.ns, res.ew))), 2)


def _options(**opts: Any) -> dict[str, Any]:
    """The options that were given (a blank one keeps the core's default)."""
    return {k: v for k, v in opts.items() if v is not None}


def butler_datum(scores: Cells, trim: str | None, rounding: str | None) -> Any:
    """The Butler datum of one board (xlbridge.core.teams.butler); NP, blank and A60/40 cells are ignored.

    An impossible score (no contract gives it) stops the call with its row.

    >>> butler_datum([[420], [400], ["NP"], [170], [-50]], None, None)   # mean 235 -> 240 (a final 5 to the even ten)
    240
    >>> butler_datum([[420], [400], [170], [-50]], 1.0, None)             # drop one at each end: 285 -> 280
    280
    """
    s = xl.vector(scores, "scores")
    for v in s:
        err = xl.error_literal(v)
        if err is not None:
            return err
    return xl.to_cell(core_butler_datum(s, **_options(trim=trim, rounding=rounding)))


def vp(margin: Cells, boards: Cells) -> Any:
    """VPs on the WBF 2013 20-VP scale (published table), element-wise over ``margin``.

    >>> vp(5, 7)
    12.18
    """
    return elementwise(lambda margin, boards: core_vp(xl.as_number(margin, "margin"), boards),
                       {"margin": margin, "boards": boards}, blank_if=("margin",))


def weighted_imps(scores: Cells, weights: Cells, other: Cells) -> Any:
    """IMPs of a weighted result against the other room, per row (xlbridge.core.teams.teams.weighted_imps).

    Seed 004: 60 % of 420 and 40 % of -50 against 400 is 0.6 x 1 + 0.4 x (-10) = -3.4 IMPs.

    >>> weighted_imps([[420, -50]], [[0.6, 0.4]], 400)
    -3.4
    """
    w = read_weighted(scores, weights, None)
    oth = xl.vector(other, "other")
    if len(oth) == 1 and len(w.outcomes) > 1:
        oth = oth * len(w.outcomes)
    same_length({"scores": w.outcomes, "other": oth})
    out = []
    for i, (outs, o) in enumerate(zip(w.outcomes, oth)):
        err = w.errors.get(i) or xl.error_literal(o)
        if err is not None:
            out.append([err])
            continue
        if outs is None or xl.is_blank(o):
            out.append([None])
            continue
        try:
            oe = parse_entry(o, where=f"row {i + 1}")
            pairs = outs if isinstance(outs, list) else [(outs, 1)]
            out.append([xl.to_cell(core_weighted_imps(pairs, oe))])
        except XlbridgeError:
            out.append([xl.VALUE])
    return out[0][0] if len(out) == 1 and not _is_listlike(other) else out


def match_result(board_imps: Cells, boards: int | None, rounding: str | None) -> list[list[Any]]:
    """1 x 4: IMPs A, IMPs B, VP A, VP B of a match from its board IMPs (xlbridge.core.teams.teams).

    ``rounding`` (optional) rounds the final IMP margin once before the VP look-up, as the
    regulations do for weighted boards ("nearest"); blank keeps it exact.

    Seed 004: margin 10 - 5 = 5 IMPs over 7 boards is 12.18 VP on the WBF 2013 scale.

    >>> match_result([3, 0, 5, 2, -2, 0, -3], 7, None)
    [[10, 5, 12.18, 7.82]]
    """
    cells = xl.vector(board_imps, "board_imps")
    for i, v in enumerate(cells):
        err = xl.error_literal(v)
        if err is not None:
            raise InputError(f"the IMPs cell holds {err}", where=f"row {i + 1}")
    vals = [None if xl.is_blank(v) else xl.as_number(v, "board_imps", where=f"row {i + 1}")
            for i, v in enumerate(cells)]
    res = core_match_result(vals, boards, rounding=rounding)
    return [[xl.to_cell(v) for v in (res.imps_a, res.imps_b, res.vp_a, res.vp_b)]]


# --------------------------------------------------------------------------------------------
# instant matchpoints


def _chart(scores: Cells, frequencies: Cells, vulnerable: Cells) -> InstantChart:
    s = xl.vector(scores, "scores")
    f = xl.vector(frequencies, "frequencies")
    same_length({"scores": s, "frequencies": f})
    pairs = [(i, a, b) for i, (a, b) in enumerate(zip(s, f)) if not (xl.is_blank(a) and xl.is_blank(b))]
    for i, a, b in pairs:
        for v, what in ((a, "score"), (b, "frequency")):
            err = xl.error_literal(v)
            if err is not None:
                raise InputError(f"the {what} cell holds {err}", where=f"row {i + 1}")
    sc = [xl.as_int(a, "scores", where=f"row {i + 1}") for i, a, _ in pairs]
    fr = [xl.as_int(b, "frequencies", where=f"row {i + 1}", minimum=0) for i, _, b in pairs]
    vul = xl.optional(vulnerable, None)
    if vul is None:
        raise InputError("vulnerability is missing (None, NS, EW, All or a board number)", where="vulnerable")
    return instant_chart(sc, fr, vul)


def instant_mp(scores: Cells, frequencies: Cells, vulnerable: Cells) -> list[list[Any]]:
    """k x 3 award chart: lowest N-S score, highest N-S score, award %, top row first (seed 002).

    Ten results: 420 five times, 400 three times, -50 twice. 420 beats 5 and shares its score
    with 5: (5 + 5/2) / 10 = 75 %; 400: (2 + 3/2) / 10 = 35 % (xlbridge.core.instant).

    >>> instant_mp([420, 400, -50], [5, 3, 2], "None")[1:3]
    [[420, 420, 75], [400, 400, 35]]
    """
    chart = _chart(scores, frequencies, vulnerable)
    return [[xl.to_cell(lo), xl.to_cell(hi), xl.to_cell(aw)] for lo, hi, aw in chart.rows]


def instant_award(score: Cells, scores: Cells, frequencies: Cells, vulnerable: Cells) -> Any:
    """The N-S award (%) of each ``score`` from the chart of the historical scores (seed 002).

    A score no contract gives (410 when nobody is vulnerable) is ``#VALUE!`` in its cell.

    >>> instant_award([[420], [410]], [420, 400, -50], [5, 3, 2], "None")
    [[75], [ExcelError('#VALUE!')]]
    """
    chart = _chart(scores, frequencies, vulnerable)
    return elementwise(lambda score: chart.award(xl.as_int(score, "score")), {"score": score}, blank_if=("score",))


# --------------------------------------------------------------------------------------------
# ratings


def _four(values: Cells, name: str) -> list[float]:
    v = xl.vector(values, name)
    for i, x in enumerate(v):
        err = xl.error_literal(x)
        if err is not None:
            raise InputError(f"cell {i + 1} holds {err}", where=name)
    if len(v) != 4:
        raise InputError(f"expected 4 cells (N, S, E, W), got {len(v)}", where=name)
    return [float(xl.as_number(x, name, where=f"cell {i + 1}")) for i, x in enumerate(v)]


def lehman_predict(ratings: Cells) -> Any:
    """Predicted N-S percentage from 4 ratings N, S, E, W (seed 003).

    >>> round(lehman_predict([[50, 45, 45, 45]]), 2)
    51.35
    """
    return xl.to_cell(core_lehman_predict(_four(ratings, "ratings")))


def lehman_delta(ratings: Cells, ns_pct: Fraction | int, errors: Cells) -> list[list[Any]]:
    """1 x 4 rating changes N, S, E, W (standard; with 4 error bounds, the seed 003 modification).

    >>> [round(x, 2) for x in lehman_delta([50, 45, 45, 45], 42, None)[0]]
    [-9.11, -8.19, 8.65, 8.65]
    """
    e = None if xl.optional(errors) is None else _four(errors, "errors")
    return [[xl.to_cell(d) for d in core_lehman_delta(_four(ratings, "ratings"), float(ns_pct), e)]]


def lehman_error(boards: Cells) -> Any:
    """Error bound 1 / sqrt(boards - 1) (1 below 2 boards), element-wise.

    >>> lehman_error(26)
    0.2
    """
    return elementwise(lambda boards: core_lehman_error(float(xl.as_number(boards, "boards"))), {"boards": boards},
                       blank_if=("boards",))


def lehman_update(rating: Fraction | int, history: Fraction | int, pseudo_sum: Fraction | int,
                  week_boards: Fraction | int, decay: Fraction | int | None) -> list[list[Any]]:
    """1 x 2: the new rating and the new (decayed) history count (xlbridge.core.ratings.lehman).

    (H R + sum Q) / (H + n) = (100 x 50 + 400) / 110; history (100 + 10) x (1 - 0.067).

    >>> [round(x, 4) for x in lehman_update(50, 100, 400, 10, None)[0]]
    [49.0909, 102.63]
    """
    kw = {} if decay is None else {"decay": float(decay)}
    res = core_lehman_update(float(rating), float(history), float(pseudo_sum), float(week_boards), **kw)
    return [[xl.to_cell(v) for v in res]]


def lehman_ledger(weeks: Cells, north: Cells, south: Cells, east: Cells, west: Cells, ns_pct: Cells,
                  formula: str, decay: Fraction | int | None) -> list[list[Any]]:
    """players x 4: Player, Rating, History boards, Error bound after the season (xlbridge.core.ratings.ledger).

    One board, four newcomers rated 50, N-S 60 %: pseudo-ratings 60 (N-S) and 40 (E-W).

    >>> lehman_ledger([1], ["ann"], ["bob"], ["cy"], ["di"], [60], "standard", None)
    [['ann', 60.0, 0.933, 1.0], ['bob', 60.0, 0.933, 1.0], ['cy', 40.0, 0.933, 1.0], ['di', 40.0, 0.933, 1.0]]
    """
    cols = {k: xl.vector(v, k) for k, v in (("weeks", weeks), ("north", north), ("south", south),
                                             ("east", east), ("west", west), ("ns_pct", ns_pct))}
    same_length(cols)
    keep = [i for i in range(len(cols["weeks"])) if not all(xl.is_blank(c[i]) for c in cols.values())]
    for i in keep:
        for k, c in cols.items():
            err = xl.error_literal(c[i])
            if err is not None or xl.is_blank(c[i]):
                raise InputError(f"{k} is {err or 'blank'}", where=f"row {i + 1}")
    sel = {k: [c[i] for i in keep] for k, c in cols.items()}
    sel["ns_pct"] = [float(xl.as_number(v, "ns_pct", where=f"row {i + 1}")) for i, v in zip(keep, sel["ns_pct"])]
    sel["weeks"] = [xl.as_int(v, "weeks", where=f"row {i + 1}") for i, v in zip(keep, sel["weeks"])]
    kw: dict[str, Any] = {"formula": formula}
    if decay is not None:
        kw["decay"] = float(decay)
    led = lehman_ledger_arrays(sel["weeks"], sel["north"], sel["south"], sel["east"], sel["west"], sel["ns_pct"], **kw)
    return [[xl.to_cell(p), r, h, e] for p, (r, h, e) in led.final().items()]


# --------------------------------------------------------------------------------------------
# handicaps (Form-L) and fairness


def _div_avg(divisions: Cells, avg_vps: Cells) -> tuple[list[Any], list[Any]]:
    d, a = xl.vector(divisions, "divisions"), xl.vector(avg_vps, "avg_vps")
    same_length({"divisions": d, "avg_vps": a})
    for i, (x, y) in enumerate(zip(d, a)):
        for v, what in ((x, "divisions"), (y, "avg_vps")):
            err = xl.error_literal(v)
            if err is not None:
                raise InputError(f"{what} holds {err}", where=f"row {i + 1}")
    return d, a


def forml_handicap(divisions: Cells, avg_vps: Cells, imps_per_vp: Fraction | int | None,
                   overlap: int | None) -> list[list[Any]]:
    """Handicap IMPs (whole numbers) per row, a column (xlbridge.core.handicap.forml).

    >>> forml_handicap([1] * 6, [14.0, 14.0, 13.4, 10.0, 5.3, 3.3], None, None)   # seed 000 Table 1, Div 1
    [[0], [0], [3], [18], [40], [49]]
    """
    d, a = _div_avg(divisions, avg_vps)
    return xl.column(forml_handicaps(d, a, **_options(imps_per_vp=imps_per_vp, overlap=overlap)))


def forml_vpdiff(divisions: Cells, avg_vps: Cells, merged: bool, overlap: int | None) -> list[list[Any]]:
    """Expected (or Merged) VP difference per row, unrounded, a column (xlbridge.core.handicap.forml).

    >>> r = forml_vpdiff([1] * 6, [14.0, 14.0, 13.4, 10.0, 5.3, 3.3], False, None)   # seed 000 Table 1, Div 1
    >>> [round(x[0], 2) for x in r]
    [0, 0, 1, 6.67, 14.5, 17.83]
    """
    d, a = _div_avg(divisions, avg_vps)
    return xl.column(core_forml_vpdiff(d, a, merged=merged, **_options(overlap=overlap)))


def legacy_handicap(divisions: Cells, avg_vps: Cells, step: Fraction | int | None) -> list[list[Any]]:
    """Handicaps of the system Form-L replaced (``step``-IMP steps, 0 or more; chained divisions), a column.

    >>> legacy_handicap([1] * 6, [14.0, 14.0, 13.4, 10.0, 5.3, 3.3], None)   # ties share a rank
    [[0], [0], [12], [18], [24], [30]]
    """
    d, a = _div_avg(divisions, avg_vps)
    return xl.column(legacy_handicaps(d, a, **_options(step=step)))


def forml_newteams(teams: Cells, opponents: Cells, vps_for: Cells, vps_against: Cells, known_teams: Cells,
                   known_vpdiff: Cells, imps_per_vp: Fraction | int | None) -> list[list[Any]]:
    """k x 2: each new team and its handicap IMPs, solved jointly (xlbridge.core.handicap.forml).

    >>> forml_newteams(["X", "X", "Y"], ["A", "Y", "B"], [8, 13, 10], [12, 7, 10], ["A", "B"], [0, 6], None)
    [['X', 7], ['Y', 20]]
    """
    cols = {k: xl.vector(v, k) for k, v in (("teams", teams), ("opponents", opponents), ("vps_for", vps_for),
                                             ("vps_against", vps_against))}
    same_length(cols)
    kt, kv = xl.vector(known_teams, "known_teams"), xl.vector(known_vpdiff, "known_vpdiff")
    same_length({"known_teams": kt, "known_vpdiff": kv})
    for k, c in list(cols.items()) + [("known_teams", kt), ("known_vpdiff", kv)]:
        for i, v in enumerate(c):
            err = xl.error_literal(v)
            if err is not None:
                raise InputError(f"{k} holds {err}", where=f"row {i + 1}")
    res = forml_new_teams(cols["teams"], cols["opponents"], cols["vps_for"], cols["vps_against"], kt, kv,
                          **_options(imps_per_vp=imps_per_vp))
    return [[xl.to_cell(t), xl.to_cell(h)] for t, h in res.items()]


def fairness(wins: Cells, matches: Cells, upper: bool) -> Any:
    """P(X <= wins) (or, with ``upper`` TRUE, P(X >= wins)) for X ~ Binomial(matches, 1/2), element-wise.

    Exact (xlbridge.core.handicap.fairness), then one float. Seed 000: the higher-ranking team won
    19 of 56, i.e. the higher-handicap team won 37 of 56. The work of the whole call is counted
    before any cell is computed and refused beyond the documented limit (a column of calls cannot
    multiply it).

    >>> round(fairness(19, 56, False), 4), round(fairness(37, 56, True), 4)
    (0.0111, 0.0111)
    """
    rows, _ = broadcast({"wins": wins, "matches": matches})
    check_work(sum(fairness_work(c["matches"], c["wins"]) for row in rows for c in row
                   if xl.error_literal(c["wins"]) is None and xl.error_literal(c["matches"]) is None))
    fn = fairness_p_upper_exact if upper else fairness_p_exact
    return elementwise(lambda wins, matches: fn(wins, matches), {"wins": wins, "matches": matches},
                       blank_if=("wins", "matches"))


def fairness_band(matches: Cells, tail: Cells) -> list[list[Any]]:
    """n x 2: for each number of matches, the fewest and most wins of the band excluding ``tail`` at each end.

    One cell gives 1 x 2; a column of n match counts gives n x 2 (one call per band line), with
    blank rows left blank, an error cell passed on and an unreadable count (``-3``, ``6.5``,
    text) giving ``#VALUE!`` in its row. A bad ``tail`` stops the call (it applies to every row).

    >>> fairness_band(56, 0.01)
    [[19, 37]]
    >>> fairness_band([[10.0], [None], [56.0], ["ten"]], 0.25)
    [[4, 6], [None, None], [25, 31], [ExcelError('#VALUE!'), ExcelError('#VALUE!')]]
    """
    t = xl.optional(tail, None)
    ms = nonempty(xl.vector(matches, "matches"), "matches")
    core_fairness_band(0, t)  # check the tail once, before any row
    check_work(sum(fairness_work(m) for m in ms if xl.error_literal(m) is None))
    out: list[list[Any]] = []
    for i, m in enumerate(ms, start=1):
        err = xl.error_literal(m)
        if err is not None or xl.is_blank(m):
            out.append([err, err])
            continue
        try:
            lo, hi = core_fairness_band(xl.as_int(m, "matches", where=f"row {i}", minimum=0), t)
            out.append([lo, hi])
        except XlbridgeError:
            out.append([xl.VALUE, xl.VALUE])
    return out

