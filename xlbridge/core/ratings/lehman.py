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

Seed 003's example (seating per ERRATA.md: North the novice rated 50, South 45, E-W 45; N-S 42 %):

>>> [round(q, 2) for q in lehman_pseudo([50, 45, 45, 45], 42)]
[40.89, 36.81, 53.65, 53.65]
>>> [round(q, 2) for q in lehman_pseudo([50, 45, 45, 45], 42, [1.0, lehman_error(1001), 0.1, 0.1])]
[30.53, 44.45, 55.01, 55.01]

The weekly update combines the week's pseudo-ratings with the history (the boards behind the
rating) and decays the history by 6.7 % a week.  The primary Lehman specification was not
found, so the combination rule, the decay order and any cap are explicit options of
:func:`lehman_update` and :func:`lehman_ledger` (defaults: REFERENCE.md's natural reading).
"""

from __future__ import annotations

import math
from operator import itemgetter
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from ..errors import InputError

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
    "LehmanLedger",
    "lehman_ledger",
    "lehman_ledger_arrays",
    "lehman_side_by_side",
]

#: Every new (or reset) player's rating.
LEHMAN_START = 50.0
#: The weekly decay of the history count (6.7 %, seed 003 and REFERENCE.md).
LEHMAN_DECAY = 0.067
#: IMPs per board -> percentage: 50 + (20/3) x IMPs per board (REFERENCE.md).
IMPS_TO_PERCENT_MULTIPLIER = 20 / 3

_FORMULAS = ("standard", "modified")
_DECAY_ORDERS = ("after", "before")
_COMBINES = ("boards",)


# --------------------------------------------------------------------------- validation


def _number(value, what: str, where: str | None = None) -> float:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        raise InputError(f"{what} must be a number, got {value!r}", where=where)
    try:
        x = float(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what} must be a number, got {value!r}", where=where) from exc
    if not math.isfinite(x):
        raise InputError(f"{what} must be a finite number, got {value!r}", where=where)
    return x


def _four(values, what: str) -> list[float]:
    if values is None or isinstance(values, (str, bytes)):
        raise InputError(f"{what} must be 4 numbers (N, S, E, W), got {values!r}")
    try:
        seq = list(np.asarray(values, dtype=object).ravel())
    except Exception as exc:  # pragma: no cover - exotic containers
        raise InputError(f"{what} must be 4 numbers (N, S, E, W), got {values!r}") from exc
    if len(seq) != 4:
        raise InputError(f"{what} must be 4 numbers (N, S, E, W), got {len(seq)}: {values!r}")
    return [_number(v, what, where=f"seat {seat}") for v, seat in zip(seq, "NSEW")]


def _ratings(values) -> np.ndarray:
    r = _four(values, "ratings")
    for x, seat in zip(r, "NSEW"):
        if x <= 0:
            raise InputError(f"rating must be positive, got {x!r}", where=f"seat {seat}")
    return np.array(r)


def _errors(values) -> np.ndarray:
    e = _four(values, "error bounds")
    for x, seat in zip(e, "NSEW"):
        if not 0 <= x <= 1:
            raise InputError(f"error bound must be between 0 and 1 (100 %), got {x!r}", where=f"seat {seat}")
    return np.array(e)


def _pct(value) -> float:
    p = _number(value, "N-S percentage")
    if not 0 <= p <= 100:
        raise InputError(f"N-S percentage must be between 0 and 100, got {value!r}")
    return p


# --------------------------------------------------------------------------- the formulas


def lehman_deltas_array(ratings, ns_pct, errors=None) -> np.ndarray:
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
    return r * f


def lehman_predict(ratings) -> float:
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


def lehman_delta(ratings, ns_pct, errors=None) -> tuple[float, float, float, float]:
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
    return tuple(float(x) for x in d)


def lehman_pseudo(ratings, ns_pct, errors=None) -> tuple[float, float, float, float]:
    """The four pseudo-ratings (N, S, E, W): current rating + :func:`lehman_delta`.

    Standard: ``Q_n = R_n P / predicted``; modified: ``Q'_n = R_n + delta'_n`` (seed 003).

    >>> [round(q, 2) for q in lehman_pseudo([50, 45, 45, 45], 42)]
    [40.89, 36.81, 53.65, 53.65]
    """
    r = _ratings(ratings)
    d = lehman_delta(r, ns_pct, errors)
    return tuple(float(x + y) for x, y in zip(r, d))


def lehman_error(boards) -> float:
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
        raise InputError(f"number of boards must not be negative, got {boards!r}")
    return 1.0 if n < 2 else 1.0 / math.sqrt(n - 1)


def _error_array(history: np.ndarray) -> np.ndarray:
    h = np.asarray(history, dtype=float)
    return 1.0 / np.sqrt(np.maximum(h - 1.0, 1.0))


def _check_option(value, allowed, name):
    if value not in allowed:
        raise InputError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")


def _check_decay(decay) -> float:
    d = _number(decay, "decay")
    if not 0 <= d < 1:
        raise InputError(f"decay must be in [0, 1), got {decay!r}")
    return d


def lehman_update(rating, history, pseudo_sum, week_boards, decay=LEHMAN_DECAY, *, decay_order="after",
                  history_cap=None, combine="boards") -> tuple[float, float]:
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
    _check_option(combine, _COMBINES, "combine")
    _check_option(decay_order, _DECAY_ORDERS, "decay_order")
    d = _check_decay(decay)
    r = _number(rating, "rating")
    h = _number(history, "history")
    s = _number(pseudo_sum, "sum of pseudo-ratings")
    n = _number(week_boards, "boards this week")
    if h < 0 or n < 0:
        raise InputError(f"history and boards must not be negative, got {history!r} and {week_boards!r}")
    cap = None if history_cap is None else _number(history_cap, "history_cap")
    if cap is not None and cap < 0:
        raise InputError(f"history_cap must not be negative, got {history_cap!r}")
    if decay_order == "before":
        h = h * (1 - d)
    if cap is not None:
        h = min(h, cap)
    new_r = r if h + n == 0 else (h * r + s) / (h + n)
    new_h = (h + n) * (1 - d) if decay_order == "after" else h + n
    if cap is not None:
        new_h = min(new_h, cap)
    return float(new_r), float(new_h)


def imps_to_percent(imps_per_board, multiplier=IMPS_TO_PERCENT_MULTIPLIER, *, clip=True) -> float:
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


def _round_half_up(x: float, decimals: int) -> float:
    q = Decimal(1).scaleb(-decimals)
    return float(Decimal(repr(x)).quantize(q, rounding=ROUND_HALF_UP))


def lehman_display(rating, error, *, bound="points", decimals=None, clip=True) -> float:
    """Display value suggested in seed 003: rating minus error bound, with no more digits than the error justifies.

    ``bound="points"`` (default): the bound in rating points is ``100 x error`` (seed 003:
    "45.35 plus or minus 2.65 %" shows as 42.7, i.e. error 0.0265); ``bound="relative"``:
    ``rating x error``.  ``decimals=None`` keeps the digits the bound justifies,
    ``-floor(log10(bound))`` (bound 1-10: a whole number; 0.1-1: one decimal; at most 2;
    10 or more: tens); an int fixes them (Matt Clegg's 42.7 is ``decimals=1``).  Rounding is
    half up.  ``clip=True`` shows a negative value (a newcomer's 50 - 100) as 0.

    >>> lehman_display(45.35, 0.0265)               # Hillyard: "would show as simply 43"
    43.0
    >>> lehman_display(45.35, 0.0265, decimals=1)   # Clegg: 42.7
    42.7
    >>> lehman_display(50, 1.0), lehman_display(50, 0.005)
    (0.0, 49.5)
    """
    _check_option(bound, ("points", "relative"), "bound")
    r = _number(rating, "rating")
    e = _number(error, "error bound")
    if e < 0:
        raise InputError(f"error bound must not be negative, got {error!r}")
    b = 100 * e if bound == "points" else abs(r) * e
    value = r - b
    if decimals is None:
        decimals = 2 if b <= 0 else min(2, -math.floor(math.log10(b)))
    elif isinstance(decimals, bool) or not isinstance(decimals, int):
        raise InputError(f"decimals must be a whole number or None, got {decimals!r}")
    value = _round_half_up(value, decimals)
    if clip and value < 0:
        value = 0.0
    return value + 0.0  # no -0.0


# --------------------------------------------------------------------------- the ledger


@dataclass(frozen=True, eq=False)
class LehmanLedger:
    """Every player's rating history over a season, for one formula.

    ``players``: the player ids (column order); ``weeks``: the weeks processed (those with boards
    or resets); ``ratings``, ``history``: (weeks x players) arrays, the rating and the history
    count after each week's update (NaN before the player's first appearance); ``boards``: boards
    played each week.  The history does not depend on the formula.

    >>> led = lehman_ledger([(1, "n", "s", "e", "w", 60), (3, "n", "s", "e", "x", 50)])
    >>> led.weeks, led.rating("x", week=1), led.rating("n", week=2)   # x first plays in week 3
    ((1, 3), nan, 60.0)
    >>> # week 3: predicted 50 x 60 / 52.5, Q = 60 x 50 / predicted = 52.5; history 0.933 x 0.933
    >>> [(w, b, round(r, 2)) for w, b, r, h in led.trajectory("n")]   # (0.8705 x 60 + 52.5) / 1.8705
    [(1, 1, 60.0), (3, 1, 55.99)]
    """

    formula: str
    players: tuple
    weeks: tuple
    ratings: np.ndarray
    history: np.ndarray
    boards: np.ndarray
    options: tuple = ()

    def _col(self, player) -> int:
        try:
            return self._index[player]
        except KeyError:
            raise InputError(f"unknown player {player!r}") from None

    @property
    def _index(self) -> dict:
        idx = self.__dict__.get("_index_cache")
        if idx is None:
            idx = {p: i for i, p in enumerate(self.players)}
            object.__setattr__(self, "_index_cache", idx)
        return idx

    def rating(self, player, week=None) -> float:
        """The player's rating after ``week`` (default: the last week); NaN before the player appeared."""
        row = len(self.weeks) - 1
        if week is not None:
            if week not in self.weeks:
                # last processed week at or before `week`
                earlier = [i for i, w in enumerate(self.weeks) if w <= week]
                if not earlier:
                    return math.nan
                row = earlier[-1]
            else:
                row = self.weeks.index(week)
        return float(self.ratings[row, self._col(player)])

    def error(self, player) -> float:
        """The player's current error bound, 1 / sqrt(history - 1) (1.0 below 2 boards)."""
        h = self.history[-1, self._col(player)]
        return 1.0 if not np.isfinite(h) else lehman_error(float(h))

    def display(self, player, **options) -> float:
        """The player's current rating shown as :func:`lehman_display` suggests."""
        return lehman_display(self.rating(player), self.error(player), **options)

    def trajectory(self, player) -> list[tuple]:
        """[(week, boards, rating, history)] for every processed week since the player appeared."""
        c = self._col(player)
        return [
            (w, int(self.boards[i, c]), float(self.ratings[i, c]), float(self.history[i, c]))
            for i, w in enumerate(self.weeks)
            if np.isfinite(self.ratings[i, c])
        ]

    def final(self) -> dict:
        """{player: (rating, history, error)} after the last week."""
        out = {}
        for p, r, h in zip(self.players, self.ratings[-1], self.history[-1]):
            if np.isfinite(r):
                out[p] = (float(r), float(h), lehman_error(float(h)))
        return out


def _player_codes(cols):
    """Map four columns of player ids to integer codes; returns (codes (m,4), players tuple)."""
    m = len(cols[0])
    try:
        arrays = [np.asarray(c) for c in cols]
        kinds = {a.dtype.kind for a in arrays} if all(a.ndim == 1 for a in arrays) else {"O"}
    except (TypeError, ValueError):
        arrays, kinds = [], {"O"}
    if m and kinds <= {"i", "u"}:
        allv = np.concatenate(arrays).astype(np.int64)
        lo, hi = int(allv.min()), int(allv.max())
        if hi - lo <= 4 * allv.size + 1_000_000:  # dense ids: O(n) with bincount instead of a sort
            seen = np.bincount(allv - lo, minlength=hi - lo + 1) > 0
            code_of = np.cumsum(seen) - 1
            players = np.flatnonzero(seen) + lo
            return code_of[allv - lo].reshape(4, m).T.copy(), tuple(players.tolist())
    plain_str = kinds == {"U"} and all(
        isinstance(c, np.ndarray) or all(isinstance(x, str) for x in c) for c in cols
    )  # np.asarray((1, "1")) is a str array: mixed ids go the dict way
    if m and (kinds <= {"i", "u"} or plain_str):
        allv = np.concatenate(arrays)
        if plain_str and np.any(allv == ""):
            i = int(np.flatnonzero(allv == "")[0])
            raise InputError("a player is missing (empty id)", where=f"row {i % m + 1}, seat {'NSEW'[i // m]}")
        players, inv = np.unique(allv, return_inverse=True)
        return inv.reshape(4, m).T.astype(np.int64), tuple(players.tolist())
    index: dict = {}
    codes = np.empty((m, 4), dtype=np.int64)
    for j, col in enumerate(cols):
        for i, p in enumerate(col):
            if p is None or p == "":
                raise InputError("a player is missing (empty id)", where=f"row {i + 1}, seat {'NSEW'[j]}")
            try:
                codes[i, j] = index.setdefault(p, len(index))
            except TypeError:
                raise InputError(f"player id {p!r} cannot be used as a key", where=f"row {i + 1}") from None
    return codes, tuple(index)


def lehman_ledger(rows, *, formula="standard", **options) -> LehmanLedger:
    """Process a season of board rows ``(week, N, S, E, W, N-S %)`` into every player's rating history.

    Each row is one board (or a set of boards counted as one; use :func:`lehman_ledger_arrays`'s
    ``boards`` column for sets).  Options are those of :func:`lehman_ledger_arrays`.

    >>> rows = [(1, "ann", "bob", "cy", "di", 60), (1, "ann", "bob", "cy", "di", 40),
    ...         (2, "ann", "cy", "bob", "di", 70)]
    >>> led = lehman_ledger(rows)
    >>> led.rating("ann", week=1), round(led.rating("ann"), 3)   # (1.866 x 50 + 70) / 2.866
    (50.0, 56.978)
    """
    rows = list(rows)
    try:
        ok = set(map(len, rows)) <= {6}
    except TypeError:
        ok = False
    if not ok:
        for i, row in enumerate(rows):
            if not hasattr(row, "__len__") or len(row) != 6:
                raise InputError(f"a row must be (week, N, S, E, W, N-S %), got {row!r}", where=f"row {i + 1}")
    # columns by itemgetter: zip(*rows) over a million tuples is several times slower (GC)
    week, n, s, e, w, pct = (list(map(itemgetter(j), rows)) for j in range(6))
    return lehman_ledger_arrays(week, n, s, e, w, pct, formula=formula, **options)


def _as_float_column(values, what):
    try:
        a = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        for i, v in enumerate(values):
            _number(v, what, where=f"row {i + 1}")
        raise  # pragma: no cover
    bad = np.flatnonzero(~np.isfinite(a))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"{what} must be a finite number, got {values[i]!r}", where=f"row {i + 1}")
    return a


def lehman_ledger_arrays(week, north, south, east, west, ns_pct, *, boards=None, formula="standard",
                         decay=LEHMAN_DECAY, decay_order="after", history_cap=None, combine="boards",
                         idle="decay", floor=1.0, initial=None, resets=None) -> LehmanLedger:
    """Column form of :func:`lehman_ledger`, vectorised with numpy (per week: all deltas at once, then bincount).

    Options (all explicit because the primary specification was not found):

    - ``formula``: ``"standard"`` or ``"modified"`` (seed 003's error-bound modification; error
      bounds from each player's history at the start of the week).
    - ``boards``: boards each row stands for (default 1): its pseudo-rating counts that many times.
    - ``decay`` (0.067), ``decay_order`` (``"after"``), ``history_cap`` (None), ``combine``
      (``"boards"``): as in :func:`lehman_update`.
    - ``idle="decay"`` (default): every player's history decays every week, played or not (weeks
      without rows in between count); ``"keep"``: only weeks a player plays decay his history.
    - ``floor`` (1.0): ratings are kept at or above it after each update (every change is
      proportional to the rating, so 0 would be absorbing, and the modified formula can push a
      newcomer below 0 after a tiny very bad first week); None: no floor.
    - ``initial``: {player: (rating, history)} for players established before the season.
    - ``resets``: [(week, player)]: at the start of that week the player restarts at 50 with no history.

    New players start at 50 with no history.  Ratings are updated once a week: the week's
    pseudo-ratings all use the ratings at the start of the week.

    Seed 003's example as a week of two boards (the newcomer has no history, so his new rating
    is the mean of his pseudo-ratings; South's 1001 boards barely move):

    >>> led = lehman_ledger_arrays([1, 1], ["n", "n"], ["s", "s"], ["e", "e"], ["w", "w"], [42, 42],
    ...                            initial={"s": (45, 1001), "e": (45, 100), "w": (45, 100)},
    ...                            formula="modified")
    >>> round(led.rating("n"), 2), round(led.rating("s"), 3), round(led.rating("e"), 3)
    (30.53, 44.999, 45.196)
    """
    _check_option(formula, _FORMULAS, "formula")
    _check_option(decay_order, _DECAY_ORDERS, "decay_order")
    _check_option(combine, _COMBINES, "combine")
    _check_option(idle, ("decay", "keep"), "idle")
    d = _check_decay(decay)
    cap = None if history_cap is None else _number(history_cap, "history_cap")
    if cap is not None and cap < 0:
        raise InputError(f"history_cap must not be negative, got {history_cap!r}")
    fl = None if floor is None else _number(floor, "floor")

    cols = [c if isinstance(c, (np.ndarray, list, tuple)) else list(c) for c in (north, south, east, west)]
    m = len(cols[0])
    if any(len(c) != m for c in cols) or len(week) != m or len(ns_pct) != m:
        raise InputError("week, N, S, E, W and N-S % columns must have the same length")
    if boards is not None and len(boards) != m:
        raise InputError("the boards column must have one entry per row")
    wk = _as_float_column(week, "week")
    if m and np.any(wk != np.round(wk)):
        i = int(np.flatnonzero(wk != np.round(wk))[0])
        raise InputError(f"week must be a whole number, got {week[i]!r}", where=f"row {i + 1}")
    wk = wk.astype(np.int64)
    pct = _as_float_column(ns_pct, "N-S percentage")
    if m and (pct.min() < 0 or pct.max() > 100):
        i = int(np.flatnonzero((pct < 0) | (pct > 100))[0])
        raise InputError(f"N-S percentage must be between 0 and 100, got {ns_pct[i]!r}", where=f"row {i + 1}")
    nb = np.ones(m) if boards is None else _as_float_column(boards, "boards")
    if m and nb.min() < 0:
        i = int(np.flatnonzero(nb < 0)[0])
        raise InputError(f"boards must not be negative, got {boards[i]!r}", where=f"row {i + 1}")

    codes, players = _player_codes(cols)
    if m:
        srt = np.sort(codes, axis=1)
        dup = np.flatnonzero(np.any(srt[:, 1:] == srt[:, :-1], axis=1))
        if dup.size:
            i = int(dup[0])
            raise InputError(f"the same player sits twice at the table: {[c[i] for c in cols]!r}",
                             where=f"row {i + 1}")

    # players named only in `initial` or `resets`
    index = {p: i for i, p in enumerate(players)}
    extra = []
    for p in list(initial or {}) + [p for _, p in (resets or ())]:
        if p not in index:
            index[p] = len(index)
            extra.append(p)
    players = players + tuple(extra)
    npl = len(players)

    rating = np.full(npl, LEHMAN_START)
    hist = np.zeros(npl)
    present = np.zeros(npl, dtype=bool)
    for p, value in (initial or {}).items():
        try:
            r0, h0 = value
        except (TypeError, ValueError):
            raise InputError(f"initial value must be (rating, history), got {value!r}", where=f"player {p!r}") from None
        r0, h0 = _number(r0, "rating", f"player {p!r}"), _number(h0, "history", f"player {p!r}")
        if r0 <= 0 or h0 < 0:
            raise InputError(f"initial rating must be positive and history not negative, got {value!r}",
                             where=f"player {p!r}")
        rating[index[p]], hist[index[p]], present[index[p]] = r0, h0, True
    reset_by_week: dict = {}
    for item in resets or ():
        try:
            w0, p = item
        except (TypeError, ValueError):
            raise InputError(f"a reset must be (week, player), got {item!r}") from None
        wr = _number(w0, "reset week", where=f"reset of player {p!r}")
        if not wr.is_integer():
            raise InputError(f"reset week must be a whole number, got {w0!r}", where=f"reset of player {p!r}")
        reset_by_week.setdefault(int(wr), []).append(index[p])

    order = np.argsort(wk, kind="stable")
    wk_sorted = wk[order]
    all_weeks = sorted(set(wk_sorted.tolist()) | set(reset_by_week))
    starts = np.searchsorted(wk_sorted, all_weeks, side="left")
    ends = np.searchsorted(wk_sorted, all_weeks, side="right")

    keep = 1.0 - d
    out_r = np.full((len(all_weeks), npl), np.nan)
    out_h = np.full((len(all_weeks), npl), np.nan)
    out_b = np.zeros((len(all_weeks), npl))
    prev = None
    for k, w in enumerate(all_weeks):
        # idle decay: weeks between the previous processed week and this one
        if prev is not None and idle == "decay":
            gap = w - prev - (1 if decay_order == "after" else 0)
            if gap > 0:
                hist *= keep ** gap
        elif prev is None and decay_order == "before" and idle == "decay":
            hist *= keep
        for c in reset_by_week.get(w, ()):
            rating[c], hist[c], present[c] = LEHMAN_START, 0.0, True
        sel = order[starts[k]:ends[k]]
        idx = codes[sel]
        played_n = np.bincount(idx.ravel(), weights=np.repeat(nb[sel], 4), minlength=npl)
        played = np.bincount(idx.ravel(), minlength=npl) > 0
        if idle == "keep" and decay_order == "before":
            hist[played] *= keep
        present |= played
        h_used = hist if cap is None else np.minimum(hist, cap)
        r4 = rating[idx]
        if sel.size:
            r_ns, r_ew = r4[:, 0] + r4[:, 1], r4[:, 2] + r4[:, 3]
            bad = np.flatnonzero((r_ns <= 0) | (r_ew <= 0))
            if bad.size:
                i = int(sel[bad[0]])
                raise InputError(f"a partnership rating is not positive ({r4[bad[0]].tolist()!r}); "
                                 "use a positive floor", where=f"week {w}, row {i + 1}")
        e4 = _error_array(h_used[idx]) if formula == "modified" else None
        q = r4 + lehman_deltas_array(r4, pct[sel], e4)
        qsum = np.bincount(idx.ravel(), weights=(q * nb[sel][:, None]).ravel(), minlength=npl)
        denom = h_used + played_n
        new_r = np.divide(h_used * rating + qsum, denom, out=rating.copy(), where=denom > 0)
        if fl is not None:
            new_r = np.where(played, np.maximum(new_r, fl), new_r)
        rating = new_r
        if decay_order == "after":
            hist = h_used + played_n
            if idle == "decay":
                hist = hist * keep
            else:
                hist = np.where(played, hist * keep, hist)
        else:
            hist = h_used + played_n
        if cap is not None:
            hist = np.minimum(hist, cap)
        out_r[k] = np.where(present, rating, np.nan)
        out_h[k] = np.where(present, hist, np.nan)
        out_b[k] = played_n
        prev = w
    if not all_weeks:
        out_r = np.where(present, rating, np.nan)[None, :]
        out_h = np.where(present, hist, np.nan)[None, :]
        out_b = np.zeros((1, npl))
        all_weeks = [None]
    options = (("decay", d), ("decay_order", decay_order), ("history_cap", cap), ("combine", combine),
               ("idle", idle), ("floor", fl))
    for a in (out_r, out_h, out_b):
        a.setflags(write=False)
    return LehmanLedger(formula, players, tuple(all_weeks), out_r, out_h, out_b, options)


def lehman_side_by_side(rows, **options) -> list[tuple]:
    """Both formulas side by side: [(week, player, boards, standard rating, modified rating, history, error)].

    One line per player and processed week since the player appeared; ``options`` as in
    :func:`lehman_ledger_arrays` (except ``formula``).

    >>> lines = lehman_side_by_side([(1, "n", "s", "e", "w", 60)])
    >>> lines[0][:5]
    (1, 'e', 1, 40.0, 40.0)
    """
    rows = list(rows)
    std = lehman_ledger(rows, formula="standard", **options)
    mod = lehman_ledger(rows, formula="modified", **options)
    out = []
    for i, w in enumerate(std.weeks):
        for c, p in enumerate(std.players):
            r = std.ratings[i, c]
            if np.isfinite(r):
                h = float(std.history[i, c])
                out.append((w, p, int(std.boards[i, c]), float(r), float(mod.ratings[i, c]), h, lehman_error(h)))
    return out
