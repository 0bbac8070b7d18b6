"""A season of Lehman ratings: every player's rating after every week (seed 003; REFERENCE.md).

The weekly update of :func:`xlbridge.core.ratings.lehman.lehman_update`, vectorised over a whole
season with numpy (per week: all deltas at once, then ``bincount``). The options are explicit
because the primary Lehman specification was not found.

>>> led = lehman_ledger([(1, "ann", "bob", "cy", "di", 60)])
>>> led.final()["ann"][0], led.final()["cy"][0]
(60.0, 40.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import InputError, shown
from ..numbers import finite_float
from .lehman import (
    COMBINES,
    DECAY_ORDERS,
    FORMULAS,
    LEHMAN_DECAY,
    LEHMAN_START,
    decay_rate,
    error_bounds,
    lehman_deltas_array,
    lehman_display,
    lehman_error,
)
from ..rounding import named_option

__all__ = ["LehmanLedger", "lehman_ledger", "lehman_ledger_arrays", "lehman_side_by_side", "MAX_WEEK"]

#: The largest week number (a season counts weeks from 1; idle weeks between two played weeks
#: are decayed one by one in closed form, so the number only bounds the arithmetic).
MAX_WEEK = 10**6


def _number(value: object, what: str, where: str | None = None) -> float:
    return finite_float(value, what, where=where)


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
    players: tuple[Any, ...]
    weeks: tuple[Any, ...]
    ratings: np.ndarray
    history: np.ndarray
    boards: np.ndarray
    options: tuple[tuple[str, Any], ...] = ()

    def _col(self, player: object) -> int:
        try:
            return int(self._index[player])
        except KeyError:
            raise InputError(f"unknown player {shown(player)}") from None

    @property
    def _index(self) -> dict[Any, int]:
        idx = self.__dict__.get("_index_cache")
        if idx is None:
            idx = {p: i for i, p in enumerate(self.players)}
            object.__setattr__(self, "_index_cache", idx)
        return idx

    def rating(self, player: object, week: object = None) -> float:
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

    def error(self, player: object) -> float:
        """The player's current error bound, 1 / sqrt(history - 1) (1.0 below 2 boards)."""
        h = self.history[-1, self._col(player)]
        return 1.0 if not np.isfinite(h) else lehman_error(float(h))

    def display(self, player: object, **options: Any) -> float:
        """The player's current rating shown as :func:`lehman_display` suggests."""
        return lehman_display(self.rating(player), self.error(player), **options)

    def trajectory(self, player: object) -> list[tuple[Any, int, float, float]]:
        """[(week, boards, rating, history)] for every processed week since the player appeared."""
        c = self._col(player)
        return [
            (w, int(self.boards[i, c]), float(self.ratings[i, c]), float(self.history[i, c]))
            for i, w in enumerate(self.weeks)
            if np.isfinite(self.ratings[i, c])
        ]

    def final(self) -> dict[Any, tuple[float, float, float]]:
        """{player: (rating, history, error)} after the last week."""
        out = {}
        for p, r, h in zip(self.players, self.ratings[-1], self.history[-1]):
            if np.isfinite(r):
                out[p] = (float(r), float(h), lehman_error(float(h)))
        return out


def _player_codes(cols: list[Any]) -> tuple[npt.NDArray[np.int64], tuple[Any, ...]]:
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
    index: dict[Any, int] = {}
    codes = np.empty((m, 4), dtype=np.int64)
    for j, col in enumerate(cols):
        for i, p in enumerate(col):
            if p is None or p == "":
                raise InputError("a player is missing (empty id)", where=f"row {i + 1}, seat {'NSEW'[j]}")
            try:
                codes[i, j] = index.setdefault(p, len(index))
            except TypeError:
                raise InputError(f"player id {shown(p)} cannot be used as a key", where=f"row {i + 1}") from None
    return codes, tuple(index)


def lehman_ledger(rows: Iterable[Any], *, formula: str = "standard", **options: Any) -> LehmanLedger:
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
                raise InputError(f"a row must be (week, N, S, E, W, N-S %), got {shown(row)}", where=f"row {i + 1}")
    # columns by itemgetter: zip(*rows) over a million tuples is several times slower (GC)
    week, n, s, e, w, pct = (list(map(itemgetter(j), rows)) for j in range(6))
    return lehman_ledger_arrays(week, n, s, e, w, pct, formula=formula, **options)


def _as_float_column(values: Any, what: str) -> npt.NDArray[np.float64]:
    try:
        a = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        for i, v in enumerate(values):
            _number(v, what, where=f"row {i + 1}")
        raise  # pragma: no cover
    bad = np.flatnonzero(~np.isfinite(a))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"{what} must be a finite number, got {shown(values[i])}", where=f"row {i + 1}")
    return a


def lehman_ledger_arrays(week: Any, north: Any, south: Any, east: Any, west: Any, ns_pct: Any, *, boards: Any = None,
                         formula: str = "standard", decay: object = LEHMAN_DECAY, decay_order: str = "after",
                         history_cap: object = None, combine: str = "boards", idle: str = "decay",
                         floor: object = 1.0, initial: Mapping[Any, Any] | None = None,
                         resets: Iterable[Any] | None = None) -> LehmanLedger:
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
    formula = named_option(formula, FORMULAS, "Lehman formula")
    decay_order = named_option(decay_order, DECAY_ORDERS, "decay order")
    combine = named_option(combine, COMBINES, "rule for combining a week with the history")
    idle = named_option(idle, ("decay", "keep"), "rule for idle weeks")
    d = decay_rate(decay)
    cap = None if history_cap is None else _number(history_cap, "history cap")
    if cap is not None and cap < 0:
        raise InputError(f"history cap must not be negative, got {shown(history_cap)}")
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
        raise InputError(f"week must be a whole number, got {shown(week[i])}", where=f"row {i + 1}")
    if m and float(np.abs(wk).max()) > MAX_WEEK:
        i = int(np.flatnonzero(np.abs(wk) > MAX_WEEK)[0])
        raise InputError(f"week must be a whole number from -{MAX_WEEK:,} to {MAX_WEEK:,}, got {shown(week[i])}",
                         where=f"row {i + 1}")
    wk = wk.astype(np.int64)
    pct = _as_float_column(ns_pct, "N-S percentage")
    if m and (pct.min() < 0 or pct.max() > 100):
        i = int(np.flatnonzero((pct < 0) | (pct > 100))[0])
        raise InputError(f"N-S percentage must be between 0 and 100, got {shown(ns_pct[i])}", where=f"row {i + 1}")
    nb = np.ones(m) if boards is None else _as_float_column(boards, "boards")
    if m and nb.min() < 0:
        i = int(np.flatnonzero(nb < 0)[0])
        raise InputError(f"boards must not be negative, got {shown(boards[i])}", where=f"row {i + 1}")

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
            raise InputError(f"initial value must be (rating, history), got {shown(value)}", where=f"player {shown(p)}") from None
        r0, h0 = _number(r0, "rating", f"player {shown(p)}"), _number(h0, "history", f"player {shown(p)}")
        if r0 <= 0 or h0 < 0:
            raise InputError(f"initial rating must be positive and history not negative, got {shown(value)}",
                             where=f"player {shown(p)}")
        rating[index[p]], hist[index[p]], present[index[p]] = r0, h0, True
    reset_by_week: dict[int, list[int]] = {}
    for item in resets or ():
        try:
            w0, p = item
        except (TypeError, ValueError):
            raise InputError(f"a reset must be (week, player), got {shown(item)}") from None
        wr = _number(w0, "reset week", where=f"reset of player {shown(p)}")
        if not wr.is_integer() or abs(wr) > MAX_WEEK:
            raise InputError(f"reset week must be a whole number, got {shown(w0)}", where=f"reset of player {shown(p)}")
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
        e4 = error_bounds(h_used[idx]) if formula == "modified" else None
        q = r4 + lehman_deltas_array(r4, pct[sel], e4)
        qsum = np.bincount(idx.ravel(), weights=(q * nb[sel][:, None]).ravel(), minlength=npl)
        denom = h_used + played_n
        # only the players of this week change: an idle player's rating is kept exactly (recomputing it
        # as (h * r) / h loses digits when h is tiny, e.g. a subnormal history)
        new_r = np.divide(h_used * rating + qsum, denom, out=rating.copy(), where=played & (denom > 0))
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


def lehman_side_by_side(rows: Iterable[Any], **options: Any) -> list[tuple[Any, ...]]:
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
