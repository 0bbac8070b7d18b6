"""Lehman ratings (OKBridge): the standard formula, the error-bound modification, weekly updates, a ledger.

Source: seed 003 (R. Hillyard, "Proposed Modification to Lehman Rating System", 1998) and
REFERENCE.md, "Lehman ratings".  Seat order everywhere is N, S, E, W; percentages are N-S
percentages (0-100).

Standard formula (one board, or a set of boards scored ``P`` % by N-S)::

    R_ns = (R_n + R_s) / 2        R_nsew = (R_ns + R_ew) / 2
    predicted N-S % = 50 R_ns / R_nsew
    Q_n = R_n P / predicted       delta_n = Q_n - R_n      (E-W use 100 - P and 50 R_ew / R_nsew)

Error-bound modification (seed 003): with error bounds ``E`` (``E = 1 / sqrt(N - 1)`` for a
history of ``N`` boards, 1.0 below 2 boards), ``R'_n = R_n E_n / E_ns`` (``E_ns`` the mean of
the pair's two bounds), the prediction uses the ``R'`` and ``delta'_n = R'_n (P / predicted' - 1)``,
``Q'_n = R_n + delta'_n``.  In both formulas the four deltas sum to zero.

Seed 003's example (seating per docs/corrections.md: North the novice rated 50, South 45, E-W 45; N-S 42 %):

>>> [round(q, 2) for q in lehman_pseudo([50, 45, 45, 45], 42)]
[40.89, 36.81, 53.65, 53.65]
>>> [round(q, 2) for q in lehman_pseudo([50, 45, 45, 45], 42, [1.0, lehman_error(1001), 0.1, 0.1])]
[30.53, 44.45, 55.01, 55.01]

The weekly update combines the week's pseudo-ratings with the history (the boards behind the
rating) and decays the history by 6.7 % a week.  The primary Lehman specification was not
found, so the combination rule, the decay order and any cap are explicit options of
:func:`lehman_update` and :func:`xlbridge.core.ratings.ledger.lehman_ledger` (defaults:
REFERENCE.md's natural reading).  A season of ratings is :mod:`xlbridge.core.ratings.ledger`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import InputError, shown
from ..numbers import exact, finite_float
from ..rounding import named_option, round_fraction

__all__ = [
    "LEHMAN_START",
    "LEHMAN_DECAY",
    "IMPS_TO_PERCENT_MULTIPLIER",
    "lehman_predict",
    "lehman_delta",
    "lehman_pseudo",
    "lehman_error",
    "lehman_update",
    "imps_to_percent",
    "lehman_display",
    "lehman_deltas_array",
]

#: Every new (or reset) player's rating.
LEHMAN_START = 50.0
#: The weekly decay of the history count (6.7 %, seed 003 and REFERENCE.md).
LEHMAN_DECAY = 0.067
#: IMPs per board -> percentage: 50 + (20/3) x IMPs per board (REFERENCE.md).
IMPS_TO_PERCENT_MULTIPLIER = 20 / 3

#: The Lehman formulas: standard and seed 003's error-bound modification.
FORMULAS = ("standard", "modified")
#: Whether the weekly decay applies after the week is combined (default) or before.
DECAY_ORDERS = ("after", "before")
#: How a week is combined with the history (the only rule implemented).
COMBINES = ("boards",)


# --------------------------------------------------------------------------- validation


def _number(value: object, what: str, where: str | None = None) -> float:
    return finite_float(value, what, where=where)


def _four(values: object, what: str) -> list[float]:
    if values is None or isinstance(values, (str, bytes)):
        raise InputError(f"{what} must be 4 numbers (N, S, E, W), got {shown(values)}")
    try:
        seq = list(np.asarray(values, dtype=object).ravel())
    except Exception as exc:  # pragma: no cover - exotic containers
        raise InputError(f"{what} must be 4 numbers (N, S, E, W), got {shown(values)}") from exc
    if len(seq) != 4:
        raise InputError(f"{what} must be 4 numbers (N, S, E, W), got {len(seq)}: {shown(values)}")
    return [_number(v, what, where=f"seat {seat}") for v, seat in zip(seq, "NSEW")]


def _ratings(values: object) -> npt.NDArray[np.float64]:
    r = _four(values, "ratings")
    for x, seat in zip(r, "NSEW"):
        if x <= 0:
            raise InputError(f"rating must be positive, got {shown(x)}", where=f"seat {seat}")
    return np.array(r)


def _errors(values: object) -> npt.NDArray[np.float64]:
    e = _four(values, "error bounds")
    for x, seat in zip(e, "NSEW"):
        if not 0 <= x <= 1:
            raise InputError(f"error bound must be between 0 and 1 (100 %), got {shown(x)}", where=f"seat {seat}")
    return np.array(e)


def _pct(value: object) -> float:
    p = _number(value, "N-S percentage")
    if not 0 <= p <= 100:
        raise InputError(f"N-S percentage must be between 0 and 100, got {shown(value)}")
    return p


# --------------------------------------------------------------------------- the formulas


def lehman_deltas_array(ratings: npt.ArrayLike, ns_pct: npt.ArrayLike,
                        errors: npt.ArrayLike | None = None) -> npt.NDArray[np.float64]:
    """Vectorised Lehman deltas: ``ratings`` (..., 4) N, S, E, W, ``ns_pct`` (...), ``errors`` (..., 4).

    No validation (the ledger and the simulation validate once, in bulk); returns the (..., 4)
    rating changes under the standard formula (``errors=None``) or the error-bound modification.
    A pair whose two error bounds are both 0 counts as "equal error bounds" (``R' = R``).

    >>> lehman_deltas_array(np.array([[50.0, 50, 50, 50]]), np.array([60.0])).round(2).tolist()
    [[10.0, 10.0, -10.0, -10.0]]
    """
    r = np.asarray(ratings, dtype=float)
    p = np.asarray(ns_pct, dtype=float)
    if errors is not None:
        e = np.asarray(errors, dtype=float)
        pair = np.repeat((e[..., 0::2] + e[..., 1::2]) / 2, 2, axis=-1)  # N,S -> E_ns ; E,W -> E_ew
        ratio = np.divide(e, pair, out=np.ones_like(e * pair), where=pair > 0)
        r = r * ratio
    r_ns = (r[..., 0] + r[..., 1]) / 2
    r_ew = (r[..., 2] + r[..., 3]) / 2
    r_all = (r_ns + r_ew) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        f_ns = p * r_all / (50 * r_ns) - 1  # P / predicted - 1
        f_ew = (100 - p) * r_all / (50 * r_ew) - 1
    f = np.stack([f_ns, f_ns, f_ew, f_ew], axis=-1)
    out: npt.NDArray[np.float64] = r * f
    return out


def lehman_predict(ratings: object) -> float:
    """Predicted N-S percentage from the four ratings (N, S, E, W): 50 R_ns / R_nsew.

    Source: seed 003 ("P^ns = 50 Rns / Rnsew"); partnership rating = mean of the two.

    >>> round(lehman_predict([50, 45, 45, 45]), 2)
    51.35
    >>> lehman_predict([50, 50, 50, 50])
    50.0
    """
    r = _ratings(ratings)
    r_ns, r_ew = (r[0] + r[1]) / 2, (r[2] + r[3]) / 2
    return float(50 * r_ns / ((r_ns + r_ew) / 2))


def lehman_delta(ratings: object, ns_pct: object, errors: object = None) -> tuple[float, float, float, float]:
    """The four rating changes (N, S, E, W) for a board (or set of boards) scored ``ns_pct`` % by N-S.

    Without ``errors``: the standard formula, ``delta_n = R_n (P / predicted - 1)``.  With 4 error
    bounds (0-1): seed 003's modification, ``delta'_n = R'_n (P / predicted' - 1)`` with
    ``R'_n = R_n E_n / E_ns``.  The four deltas sum to zero (up to float rounding).

    >>> [round(d, 2) for d in lehman_delta([50, 45, 45, 45], 42)]
    [-9.11, -8.19, 8.65, 8.65]
    >>> [round(d, 2) for d in lehman_delta([50, 50, 50, 50], 55, [0.5, 0.5, 0.2, 0.2])]
    [5.0, 5.0, -5.0, -5.0]
    """
    r = _ratings(ratings)
    p = _pct(ns_pct)
    e = None if errors is None else _errors(errors)
    d = lehman_deltas_array(r, np.float64(p), e)
    return float(d[0]), float(d[1]), float(d[2]), float(d[3])


def lehman_pseudo(ratings: object, ns_pct: object, errors: object = None) -> tuple[float, float, float, float]:
    """The four pseudo-ratings (N, S, E, W): current rating + :func:`lehman_delta`.

    Standard: ``Q_n = R_n P / predicted``; modified: ``Q'_n = R_n + delta'_n`` (seed 003).

    >>> [round(q, 2) for q in lehman_pseudo([50, 45, 45, 45], 42)]
    [40.89, 36.81, 53.65, 53.65]
    """
    r = _ratings(ratings)
    d = lehman_delta(r, ns_pct, errors)
    return float(r[0] + d[0]), float(r[1] + d[1]), float(r[2] + d[2]), float(r[3] + d[3])


def lehman_error(boards: object) -> float:
    """Error bound of a rating with ``boards`` boards of history: 1 / sqrt(boards - 1); 1.0 below 2 boards.

    Source: seed 003 (the standard error estimate; "100 %" when there are fewer than 2 samples).
    ``boards`` may be fractional (the history count decays 6.7 % a week).

    >>> round(lehman_error(25), 3)     # seed 003: "after ... 25 boards ... 20 %"
    0.204
    >>> lehman_error(0), lehman_error(1.5), lehman_error(2)
    (1.0, 1.0, 1.0)
    """
    n = _number(boards, "number of boards")
    if n < 0:
        raise InputError(f"number of boards must not be negative, got {shown(boards)}")
    return 1.0 if n < 2 else 1.0 / math.sqrt(n - 1)


def error_bounds(history: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Error bounds 1 / sqrt(history - 1) of many histories at once (1.0 below 2 boards)."""
    h = np.asarray(history, dtype=float)
    return 1.0 / np.sqrt(np.maximum(h - 1.0, 1.0))


def decay_rate(decay: object) -> float:
    """A weekly decay: a number from 0 up to (not including) 1."""
    d = _number(decay, "decay")
    if not 0 <= d < 1:
        raise InputError(f"decay must be in [0, 1), got {shown(decay)}")
    return d


def lehman_update(rating: object, history: object, pseudo_sum: object, week_boards: object,
                  decay: object = LEHMAN_DECAY, *, decay_order: str = "after",
                  history_cap: object = None, combine: str = "boards") -> tuple[float, float]:
    """A player's weekly update: (new rating, new history count) from the week's pseudo-ratings.

    ``combine="boards"`` (the only rule implemented; REFERENCE.md's natural reading, the primary
    specification was not found): each board of the week weighs as much as one board of history,
    ``R_new = (H R + sum Q) / (H + n)``.  ``decay_order="after"`` (default): then
    ``H_new = (H + n)(1 - decay)``; ``"before"``: the history is decayed first,
    ``H = H (1 - decay)``, then combined, ``H_new = H + n``.  ``history_cap`` (default None: no cap)
    limits the history used and kept.  With no history and no boards the rating is unchanged.

    >>> r, h = lehman_update(50, 0, 45 * 50, 50)      # a newcomer's first week: the mean pseudo-rating
    >>> round(r, 3), round(h, 2)
    (45.0, 46.65)
    >>> r, h = lehman_update(50, 500, 45 * 50, 50)
    >>> round(r, 3), round(h, 2)
    (49.545, 513.15)
    """
    named_option(combine, COMBINES, "rule for combining a week with the history")
    decay_order = named_option(decay_order, DECAY_ORDERS, "decay order")
    d = decay_rate(decay)
    r = _number(rating, "rating")
    h = _number(history, "history")
    s = _number(pseudo_sum, "sum of pseudo-ratings")
    n = _number(week_boards, "boards this week")
    if h < 0 or n < 0:
        raise InputError(f"history and boards must not be negative, got {shown(history)} and {shown(week_boards)}")
    cap = None if history_cap is None else _number(history_cap, "history cap")
    if cap is not None and cap < 0:
        raise InputError(f"history cap must not be negative, got {shown(history_cap)}")
    if decay_order == "before":
        h = h * (1 - d)
    if cap is not None:
        h = min(h, cap)
    new_r = r if h + n == 0 else (h * r + s) / (h + n)
    new_h = (h + n) * (1 - d) if decay_order == "after" else h + n
    if cap is not None:
        new_h = min(new_h, cap)
    return float(new_r), float(new_h)


def imps_to_percent(imps_per_board: object, multiplier: object = IMPS_TO_PERCENT_MULTIPLIER, *,
                    clip: bool = True) -> float:
    """An IMP result as a Lehman percentage: 50 + multiplier x IMPs per board (default multiplier 20/3).

    Source: REFERENCE.md (the multiplier reported for Lehman by clubs that copied it).  With
    ``clip=True`` (default) the result is kept within 0-100 (beyond +-7.5 IMPs a board).

    >>> imps_to_percent(1.5)
    60.0
    >>> imps_to_percent(-9), imps_to_percent(-9, clip=False)
    (0.0, -10.0)
    """
    x = _number(imps_per_board, "IMPs per board")
    m = _number(multiplier, "multiplier")
    p = 50 + m * x
    return float(min(100.0, max(0.0, p))) if clip else float(p)


def _round_half_away(x: float, decimals: int) -> float:
    return float(round_fraction(exact(x, "the value to show"), "half_away", decimals))


def lehman_display(rating: object, error: object, *, bound: str = "points", decimals: int | None = None,
                   clip: bool = True) -> float:
    """Display value suggested in seed 003: rating minus error bound, with no more digits than the error justifies.

    ``bound="points"`` (default): the bound in rating points is ``100 x error`` (seed 003:
    "45.35 plus or minus 2.65 %" shows as 42.7, i.e. error 0.0265); ``bound="relative"``:
    ``rating x error``.  ``decimals=None`` keeps the digits the bound justifies,
    ``-floor(log10(bound))`` (bound 1-10: a whole number; 0.1-1: one decimal; at most 2;
    10 or more: tens); an int fixes them (Matt Clegg's 42.7 is ``decimals=1``).  Rounding is
    half away from zero (:mod:`xlbridge.core.rounding`).  ``clip=True`` shows a negative value
    (a newcomer's 50 - 100) as 0.

    >>> lehman_display(45.35, 0.0265)               # Hillyard: "would show as simply 43"
    43.0
    >>> lehman_display(45.35, 0.0265, decimals=1)   # Clegg: 42.7
    42.7
    >>> lehman_display(50, 1.0), lehman_display(50, 0.005)
    (0.0, 49.5)
    """
    bound = named_option(bound, ("points", "relative"), "kind of error bound")
    r = _number(rating, "rating")
    e = _number(error, "error bound")
    if e < 0:
        raise InputError(f"error bound must not be negative, got {shown(error)}")
    b = 100 * e if bound == "points" else abs(r) * e
    value = r - b
    if decimals is None:
        decimals = 2 if b <= 0 else min(2, -math.floor(math.log10(b)))
    elif isinstance(decimals, bool) or not isinstance(decimals, int):
        raise InputError(f"decimals must be a whole number or None, got {shown(decimals)}")
    value = _round_half_away(value, decimals)
    if clip and value < 0:
        value = 0.0
    return value + 0.0  # no -0.0
