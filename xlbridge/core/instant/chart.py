"""Instant matchpoint award charts (seed 002, R. Pavlicek): building a chart and looking scores up.

An instant-matchpoint event looks every result up in a chart prepared in advance from the
results of the same boards in an earlier event. The chart is built by Pavlicek's method
(ACBL Bulletin 1993 and 1997, rpbridge.net 7q41 and 8ua7 = seed 002):

1. matchpoint the historical results on the 1 / 0.5 scale and add a "mystery score": the
   top rises by one to N (the number of historical results); each historical score ties
   the mystery score and gains 1/2 (MP = results below + frequency / 2); every gap between
   two adjacent historical scores, and both end gaps, scores what the mystery score would
   (MP = results below the gap);
2. drop the gaps that no legal score on the board can fill (``+410`` between +420 and +400);
3. scale to a 100 top (percent = 100 MP / N, exact) and round to whole percent
   (``rounding="half_up"``: a final .5 goes up; 87.5 -> 88 as in Pavlicek 1993);
4. smooth: the least change making the awards strictly decreasing from top to bottom
   (seed: 1, 0, 0 -> 2, 1, 0); see :func:`instant_chart` for the exact rule;
5. optional judgement adjustments of at most 10 points per row.

The two fields of an event are ranked by :mod:`xlbridge.core.instant.ranking`; charts are
written and read as PBN by :mod:`xlbridge.core.instant.pbn`.

>>> chart = instant_chart([450, 420, 400, 170, -50], [2, 4, 3, 6, 1], "None")
>>> [(r.low, r.high, r.award) for r in chart.rows][:3]
[(460, 7000, 100), (450, 450, 94), (430, 440, 88)]
>>> chart.award(430), chart.award_ew(430), chart.award(-50)
(88, 12, 3)
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ..contract import SCORE_LIMIT, Vulnerability, check_score, legal_table, vulnerability
from ..entries import Artificial, NotPlayed, parse_entry
from ..errors import ImpossibleScoreError, InputError, LimitError, shown
from ..numbers import whole
from ..rounding import named_option, round_quotients, rounding_rule

__all__ = [
    "INSTANT_ROUNDING",
    "INSTANT_SMOOTHING",
    "MAX_CHART_RESULTS",
    "ChartRow",
    "InstantChart",
    "instant_chart",
    "instant_award",
]

#: Rounding of the exact percentage to a whole-percent award (rules of :mod:`xlbridge.core.rounding`).
#: ``"half_up"`` (default): a final .5 goes up (Pavlicek 1993 shows 87.5 as 88);
#: ``"half_even"``: a final .5 goes to the even neighbour.
INSTANT_ROUNDING = ("half_up", "half_even")
#: The largest total of historical frequencies a chart is built from (keeps every exact numerator
#: of the rounding inside int64; real charts come from hundreds or thousands of results).
MAX_CHART_RESULTS = 10**12

#: Smoothing of the rounded awards (named options).
#: ``"strict"`` (default, seed 002): awards strictly decreasing from top to bottom; a chart
#: with more than 101 rows cannot be made so in whole percent and is refused;
#: ``"none"``: the rounded awards are kept as they are (equal neighbours allowed).
INSTANT_SMOOTHING = ("strict", "none")

_KINDS = ("score", "gap")


def _signed(score: int) -> str:
    return f"{score:+d}" if score else "0"


@dataclass(frozen=True)
class ChartRow:
    """One row of an instant chart: the N-S scores ``low``..``high`` it covers and their N-S award.

    ``kind`` is ``"score"`` (a historical score, ``low == high``) or ``"gap"`` (every legal score
    strictly between two adjacent historical scores, or beyond the top / bottom one; ``low`` and
    ``high`` are the lowest and highest legal scores in it). ``matchpoints`` are on the mystery-score
    top (N = number of historical results), ``percent`` = 100 x matchpoints / N exactly (both ``None``
    for a chart read from PBN). ``award`` is the final N-S award in percent; E-W get 100 - award.

    >>> r = ChartRow(430, 440, 88, "gap", Fraction(14), Fraction(175, 2))
    >>> r.award_ew, r.covers(440), r.covers(450), r.label
    (12, True, False, 'gap +430 to +440')
    >>> low, high, award = r  # a row unpacks as its INSTANT_MP cells
    >>> (low, high, award)
    (430, 440, 88)
    """

    low: int
    high: int
    award: int | Fraction
    kind: str
    matchpoints: Fraction | None
    percent: Fraction | None
    frequency: int = 0
    adjustment: int = 0

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise InputError(f"chart row kind must be 'score' or 'gap', got {shown(self.kind)}")
        if self.low > self.high:
            raise InputError(f"chart row covers {self.low}..{self.high}: low is above high")

    def __iter__(self) -> Iterator[Any]:
        """Unpack as ``(low, high, award)``: the three INSTANT_MP columns."""
        return iter((self.low, self.high, self.award))

    @property
    def award_ew(self) -> int | Fraction:
        """The E-W award: 100 - the N-S award."""
        return 100 - self.award

    def covers(self, score: int) -> bool:
        """Whether the N-S ``score`` falls in this row."""
        return self.low <= score <= self.high

    @property
    def label(self) -> str:
        """A short description for messages: ``+800`` or ``gap +490 to +790``."""
        if self.kind == "score":
            return _signed(self.low)
        if self.low == self.high:
            return f"gap {_signed(self.low)}"
        return f"gap {_signed(self.low)} to {_signed(self.high)}"


@dataclass(frozen=True)
class InstantChart:
    """An instant matchpoint award chart for one board: rows top first, and look-ups.

    Build one with :func:`instant_chart` (from historical results) or :func:`chart_from_pbn`.
    ``results`` is the number of historical results N (``None`` for a chart read from PBN).

    >>> c = instant_chart([420, 400], [3, 1], "None")
    >>> c.table()
    [(430, 7000, 100), (420, 420, 63), (400, 400, 13), (-7000, 380, 0)]
    >>> c.awards([430, 420, -100]).tolist()
    [100, 63, 0]
    """

    rows: tuple[ChartRow, ...]
    vulnerable: Vulnerability
    results: int | None = None
    _row_of: Any = field(default=None, repr=False, compare=False)
    _code: Any = field(default=None, repr=False, compare=False)
    _award_of: Any = field(default=None, repr=False, compare=False)
    _legal_mask: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "vulnerable", vulnerability(self.vulnerable))
        rows = tuple(self.rows)
        object.__setattr__(self, "rows", rows)
        if not rows:
            raise InputError("an instant chart needs at least one row")
        for i in range(1, len(rows)):
            if rows[i].high >= rows[i - 1].low:
                raise InputError(
                    f"chart rows {i} ({rows[i - 1].label}) and {i + 1} ({rows[i].label}) overlap or are out of order "
                    "(rows go from the highest N-S score to the lowest)"
                )
        # direct look-up tables over every multiple of 10 from -7600 to +7600 (all bridge scores)
        row_of = np.full(_SLOTS, -1, dtype=np.int64)
        for i, r in enumerate(rows):
            lo, hi = max(r.low, _LO), min(r.high, _HI)
            if lo <= hi:
                row_of[(lo - _LO) // 10:(hi - _LO) // 10 + 1] = i
        if all(isinstance(r.award, int) or r.award.denominator == 1 for r in rows):
            aw = np.array([int(r.award) for r in rows] + [0], dtype=np.int64)
        else:
            aw = np.array([float(r.award) for r in rows] + [0.0], dtype=np.float64)
        mask = _legal_mask(self.vulnerable.ns, self.vulnerable.ew)
        object.__setattr__(self, "_row_of", row_of)
        object.__setattr__(self, "_legal_mask", mask)
        # for awards(): one gather per score, indexed by score - _LO + 1 (clipped into the two
        # padding slots), giving the award, or -1 (not a legal score) / -2 (legal, not covered)
        code = np.where(mask, np.where(row_of >= 0, row_of, -2), -1)
        if aw.dtype.kind == "i":
            code = np.where(code >= 0, aw[np.maximum(code, 0)], code)
        full = np.full(_FULL + 2, -1, dtype=np.int64)
        full[1:1 + 10 * _SLOTS:10] = code
        object.__setattr__(self, "_code", full)
        object.__setattr__(self, "_award_of", aw)

    def row_index(self, score: object, *, where: str | None = None) -> int:
        """Index (0 = top row) of the row holding the N-S ``score``; an illegal score raises.

        >>> instant_chart([420, 400], [3, 1], "None").row_index(410)
        Traceback (most recent call last):
        ...
        xlbridge.core.errors.ImpossibleScoreError: impossible score: 410 (no contract and result gives N-S 410 when vulnerability is None)
        """
        if type(score) is int and _LO <= score <= _HI and score % 10 == 0 and self._legal_mask[(score - _LO) // 10]:
            s = score
        else:
            s = check_score(score, self.vulnerable, where=where)
        j = int(self._row_of[(s - _LO) // 10])
        if j < 0:
            raise InputError(f"score {s} is not covered by any row of the chart", where=where)
        return j

    def row(self, score: object, *, where: str | None = None) -> ChartRow:
        """The row holding the N-S ``score``.

        >>> instant_chart([420, 400], [3, 1], "None").row(-50).label
        'gap -7000 to +380'
        """
        return self.rows[self.row_index(score, where=where)]

    def award(self, score: object, *, where: str | None = None) -> int | Fraction:
        """The N-S award (percent) for the N-S ``score``; ImpossibleScoreError if no contract scores it.

        >>> instant_chart([420, 400], [3, 1], "None").award(-1100)
        0
        """
        return self.row(score, where=where).award

    def award_ew(self, score: object, *, where: str | None = None) -> int | Fraction:
        """The E-W award for the N-S ``score``: 100 - the N-S award.

        >>> instant_chart([420, 400], [3, 1], "None").award_ew(400)
        87
        """
        return 100 - self.award(score, where=where)

    def awards(self, scores: npt.ArrayLike) -> npt.NDArray[Any]:
        """N-S awards for an array of N-S scores (vectorised: one ``searchsorted`` per array).

        Returns an int64 array (float64 only for a chart read from PBN with decimal percentages).
        A score that is not legal on the board raises ImpossibleScoreError naming its position.

        >>> c = instant_chart([420, 400], [3, 1], "None")
        >>> c.awards(np.array([[420, 400], [1430, -50]])).tolist()
        [[63, 13], [100, 0]]
        """
        s = _legal_scores(scores, self.vulnerable)
        code = self._code[_offsets(s)]
        if code.size and code.min() < 0:
            flat = code.ravel()
            bad = int(np.flatnonzero(flat < 0)[0])
            raise InputError(f"score {int(s.ravel()[bad])} is not covered by any row of the chart",
                             where=f"item {bad + 1}")
        out: npt.NDArray[Any] = code if self._award_of.dtype.kind == "i" else self._award_of[code]
        return out

    def awards_ew(self, scores: npt.ArrayLike) -> npt.NDArray[Any]:
        """E-W awards (100 - N-S award) for an array of N-S scores.

        >>> instant_chart([420, 400], [3, 1], "None").awards_ew([420, 400]).tolist()
        [37, 87]
        """
        return 100 - self.awards(scores)

    def table(self) -> list[tuple[int, int, int | Fraction]]:
        """The chart as (lowest N-S score, highest N-S score, N-S award) rows, top first (the INSTANT_MP array).

        >>> instant_chart([420], [1], "None").table()
        [(430, 7000, 100), (420, 420, 50), (-7000, 400, 0)]
        """
        return [(r.low, r.high, r.award) for r in self.rows]


# ----------------------------------------------------------------------------------------- helpers


_LO, _HI = -SCORE_LIMIT, SCORE_LIMIT  # every bridge score is a multiple of 10 in this range
_SLOTS = (_HI - _LO) // 10 + 1
_FULL = _HI - _LO + 1


def legal_array(vul: Vulnerability) -> npt.NDArray[np.int64]:
    """The legal N-S scores of a vulnerability, ascending (from :func:`xlbridge.core.contract.legal_table`)."""
    return np.flatnonzero(_legal_mask(vul.ns, vul.ew)).astype(np.int64) * 10 + _LO


@lru_cache(maxsize=4)
def _legal_mask(ns: bool, ew: bool) -> npt.NDArray[np.bool_]:
    mask: npt.NDArray[np.bool_] = legal_table()[Vulnerability.sides(ns, ew).row]
    return mask


@lru_cache(maxsize=4)
def _legal_full(ns: bool, ew: bool) -> npt.NDArray[np.bool_]:
    """Legal-score mask indexed by score - _LO + 1, with an illegal padding slot at each end."""
    full = np.zeros(_FULL + 2, dtype=bool)
    full[1:1 + 10 * _SLOTS:10] = _legal_mask(ns, ew)
    full.flags.writeable = False
    return full


def _offsets(s: np.ndarray) -> np.ndarray:
    """score - _LO + 1, clipped into the padding slots 0 and _FULL + 1 (which hold no legal score)."""
    off = s - (_LO - 1)
    np.clip(off, 0, _FULL + 1, out=off)
    return off


def _legal_scores(scores: npt.ArrayLike, vul: Vulnerability, where: str | None = None,
                  place: str = "item") -> npt.NDArray[np.int64]:
    """N-S scores as int64, each legal at ``vul``, read as every score of the core is read.

    Plain whole numbers in the score range are checked at once; the first value that is not a
    legal score (text, a Fraction, a huge or fractional number, a score no contract gives) gets
    the message of :func:`xlbridge.core.contract.check_score`, which reads it with
    :func:`xlbridge.core.entries.parse_entry` (``"420"`` and ``Fraction(420)`` are 420), named by
    its ``place`` (``"item 2"``; ``"row 2, column 1"`` in a 2-D array). Never an int64 wrap-around.
    """
    # a list is read value by value (a Python int beyond int64, or True, must not become a float or 1)
    a = scores if isinstance(scores, np.ndarray) else np.asarray(scores, dtype=object)
    flat = a.ravel()

    def at(i: int) -> str | None:
        spot = f"{place} {i + 1}" if a.ndim < 2 else f"row {i // a.shape[-1] + 1}, column {i % a.shape[-1] + 1}"
        return _join(where, spot)

    if flat.dtype.kind in "iuf":
        with np.errstate(invalid="ignore"):
            good = (flat >= _LO) & (flat <= _HI)
            if flat.dtype.kind == "f":
                good &= flat == np.round(flat)
        s = np.where(good, flat, _HI + 10).astype(np.int64)  # out-of-range values never reach the cast
        good &= _legal_full(vul.ns, vul.ew)[_offsets(s)]
        if not good.all():
            i = int(np.flatnonzero(~good)[0])
            check_score(flat[i].item(), vul, where=at(i))
            raise AssertionError("unreachable: check_score refuses what the mask refused")  # pragma: no cover
        return s.reshape(a.shape)
    out = np.fromiter((check_score(v, vul, where=at(i)) for i, v in enumerate(flat.tolist())), np.int64, flat.size)
    return out.reshape(a.shape)


def smooth_strict(rounded: list[int], exact_num: list[int], den: int) -> list[int]:
    """Least change making whole-percent awards strictly decreasing (top row first), within 0..100.

    Minimises, over strictly decreasing whole numbers a_1 > ... > a_k in 0..100,
    first sum |a_i - rounded_i| (points moved), then sum |a_i - exact_i| (closeness to the
    exact percentages exact_i = exact_num_i / den), then the higher awards counted from the
    bottom row up (lexicographically, bottom row first). Dynamic
    programme over (row, award): O(k x 101).
    """
    k = len(rounded)
    big = 100 * den * k + 1  # > any total of the second criterion (each term <= 100 den)
    inf = math.inf  # no path (exact comparisons: ints against an infinite float)
    prev: list[float] | None = None  # prev[v] = best total cost of rows 0..i-1 with row i-1 at award v
    choice: list[list[int]] = []  # choice[i][v] = award of row i-1 in the best path ending at (i, v)
    for i in range(k):
        cost = [abs(v - rounded[i]) * big + abs(v * den - exact_num[i]) for v in range(101)]
        if prev is None:
            cur: list[float] = list(cost)
            choice.append([-1] * 101)
        else:
            cur = [inf] * 101
            ch = [-1] * 101
            best: float = inf
            arg = -1  # min over u > v of prev[u], ties to the higher u
            for v in range(100, -1, -1):
                if v + 1 <= 100:
                    p = prev[v + 1]
                    if p < best:
                        best, arg = p, v + 1
                if best < inf:
                    cur[v] = best + cost[v]
                    ch[v] = arg
            choice.append(ch)
        prev = cur
    assert prev is not None
    best, arg = inf, -1
    for v in range(100, -1, -1):
        if prev[v] < best:
            best, arg = prev[v], v
    out = [0] * k
    v = arg
    for i in range(k - 1, -1, -1):
        out[i] = v
        v = choice[i][v]
    return out


def _whole(value: object, what: str, *, where: str | None, minimum: int | None = None) -> int:
    n = whole(value, what, where=where)
    if minimum is not None and n < minimum:
        raise InputError(f"{what} must be {minimum} or more, got {shown(value)}", where=where)
    return n


def _join(where: str | None, inner: str) -> str:
    return f"{where}, {inner}" if where else inner


# ------------------------------------------------------------------------------------- the chart


def instant_chart(
    scores: npt.ArrayLike,
    frequencies: npt.ArrayLike | None,
    vulnerable: object,
    *,
    adjustments: Any = None,
    rounding: str = "half_up",
    smoothing: str = "strict",
    max_adjustment: int = 10,
    where: str | None = None,
) -> InstantChart:
    """Build the instant matchpoint award chart of a board from its historical N-S scores.

    ``scores`` are historical N-S scores; ``frequencies`` how often each occurred (``None``:
    each listed score once, so a raw list of results works; repeated scores are added up;
    a frequency of 0 leaves the score out). ``vulnerable`` is a PBN name or a board number.

    Method (seed 002, Pavlicek 1997; also Pavlicek 1993, rpbridge.net 7q41), with N results:
    historical score MP = (results below) + frequency/2; gap MP = results below it; top gap N,
    bottom gap 0; gaps that no legal score fills are dropped; percent = 100 MP / N exactly,
    rounded to whole percent by ``rounding`` (:data:`INSTANT_ROUNDING`, default half up).

    Smoothing (``smoothing="strict"``, default): the awards a_1 > a_2 > ... > a_k (top row first,
    whole numbers 0..100) that move the rounded awards by the fewest total points; among those,
    the closest (least total absolute difference) to the exact percentages; then the higher awards,
    compared from the bottom row up.
    When the rounded awards already decrease strictly they are kept unchanged. More than 101 rows
    cannot decrease strictly in whole percent: InputError (``smoothing="none"`` allows equal
    neighbours). The frequencies may add up to at most :data:`MAX_CHART_RESULTS`.

    ``adjustments``: judgement changes in whole points, applied after smoothing, either a sequence
    with one entry per row (top row first; 0 or None for no change) or a mapping from an N-S
    score to the change of the row holding it. Refused (InputError naming the row) beyond
    ``max_adjustment`` points (10, seed 002) or if the result is not strictly decreasing
    (non-increasing with ``smoothing="none"``) within 0..100.

    >>> c = instant_chart([980, 800, 480, 450, 420, 400, -50, -100],
    ...                   [4, 3, 8, 26, 115, 6, 17, 1], "None")
    >>> [r.award for r in c.rows][-4:]
    [5, 2, 1, 0]
    >>> c.award(410)
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.ImpossibleScoreError: impossible score: 410 (no contract and result gives N-S 410 when vulnerability is None)
    >>> instant_chart([420], [1], "None", adjustments={420: 11})
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: row 2 (+420): adjustment +11 is more than 10 points
    """
    rule = rounding_rule(rounding, INSTANT_ROUNDING)
    smoothing = named_option(smoothing, INSTANT_SMOOTHING, "smoothing rule", where=where)
    vul = vulnerability(vulnerable)
    legal = legal_array(vul)

    s, slot = _read_scores(scores, vul, where)
    f = None if frequencies is None else _read_frequencies(frequencies, len(s), where)
    if s.size == 0:
        raise InputError("no historical results: an instant chart needs at least one score", where=where)

    # distinct scores, descending, with total frequencies: one counting pass over the score slots
    if f is not None and f.size and (int(f.max()) > MAX_CHART_RESULTS or int(f.sum()) > MAX_CHART_RESULTS):
        raise LimitError(f"the frequencies add up to more than {MAX_CHART_RESULTS:,} results", where=where)
    if f is None:
        counts = np.bincount(slot, minlength=_FULL + 2)
    else:  # float weights add whole numbers exactly below 2**53 (the sum is at most MAX_CHART_RESULTS)
        counts = np.bincount(slot, weights=f, minlength=_FULL + 2).astype(np.int64)
    present_slots = np.flatnonzero(counts)[::-1]
    dist = present_slots.astype(np.int64) + (_LO - 1)
    freq = counts[present_slots]
    if dist.size == 0:
        raise InputError("no historical results: every frequency is 0", where=where)
    n = int(freq.sum())
    m = dist.size
    below = n - np.cumsum(freq)  # results strictly below each distinct score

    # gaps: g[0] above dist[0], g[i] between dist[i-1] and dist[i], g[m] below dist[m-1]
    upper = np.r_[np.iinfo(np.int64).max, dist]  # exclusive upper bound of each gap
    lower = np.r_[dist, np.iinfo(np.int64).min]  # exclusive lower bound
    lo_idx = np.searchsorted(legal, lower, side="right")
    hi_idx = np.searchsorted(legal, upper, side="left")
    gap_ok = lo_idx < hi_idx
    gap_low = legal[np.minimum(lo_idx, len(legal) - 1)]
    gap_high = legal[np.maximum(hi_idx - 1, 0)]
    gap_half = 2 * np.r_[n, below]  # MP in half points

    # interleave: gap0, score0, gap1, score1, ..., score(m-1), gap(m)
    k2 = 2 * m + 1
    low = np.empty(k2, dtype=np.int64)
    high = np.empty(k2, dtype=np.int64)
    half = np.empty(k2, dtype=np.int64)
    is_score = np.zeros(k2, dtype=bool)
    present = np.empty(k2, dtype=bool)
    fr = np.zeros(k2, dtype=np.int64)
    low[0::2], high[0::2], half[0::2], present[0::2] = gap_low, gap_high, gap_half, gap_ok
    low[1::2], high[1::2], half[1::2], present[1::2] = dist, dist, 2 * below + freq, True
    is_score[1::2] = True
    fr[1::2] = freq
    low, high, half, is_score, fr = low[present], high[present], half[present], is_score[present], fr[present]

    # percent = 100 * half / (2n); rounded
    den = 2 * n
    num = 100 * half
    rounded = round_quotients(num, den, rule)
    k = len(low)
    awards = rounded.tolist()
    if smoothing == "strict" and not np.all(np.diff(rounded) < 0):
        if k > 101:
            raise InputError(
                f"the chart has {k} rows: whole-percent awards can decrease strictly for at most 101 rows",
                where=where,
            )
        awards = smooth_strict(awards, num.tolist(), den)

    rows = [
        ChartRow(lo_, hi_, int(aw_), "score" if sc_ else "gap", Fraction(h_, 2), Fraction(nm_, den), int(fr_))
        for lo_, hi_, aw_, sc_, h_, nm_, fr_ in zip(
            low.tolist(), high.tolist(), awards, is_score.tolist(), half.tolist(), num.tolist(), fr.tolist())
    ]
    if adjustments is not None:
        rows = _apply_adjustments(rows, adjustments, vul, smoothing, max_adjustment, where)
    return InstantChart(tuple(rows), vul, n)


def _read_scores(scores: npt.ArrayLike, vul: Vulnerability,
                 where: str | None) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    given: Any = scores
    s = _legal_scores(given.ravel() if isinstance(given, np.ndarray) else list(given), vul, where, place="row")
    return s, _offsets(s)


def _read_frequencies(frequencies: npt.ArrayLike, count: int, where: str | None) -> npt.NDArray[np.int64]:
    a = np.asarray(frequencies)
    if a.dtype.kind in "iu":
        f = a.astype(np.int64).ravel()
        if np.any(f < 0):
            i = int(np.flatnonzero(f < 0)[0])
            raise InputError(f"frequency must be 0 or more, got {int(f[i])}", where=_join(where, f"row {i + 1}"))
    else:
        f = np.array(
            [_whole(v, "frequency", where=_join(where, f"row {i + 1}"), minimum=0) for i, v in enumerate(a.ravel())],
            dtype=np.int64,
        )
    if f.size != count:
        raise InputError(f"{count} scores but {f.size} frequencies: give one frequency per score", where=where)
    return f


def _apply_adjustments(rows: list[ChartRow], adjustments: Any, vul: Vulnerability, smoothing: str,
                       max_adjustment: object, where: str | None) -> list[ChartRow]:
    max_adjustment = _whole(max_adjustment, "largest adjustment", where=where, minimum=0)
    k = len(rows)
    deltas = [0] * k
    if isinstance(adjustments, Mapping):
        lows = [r.low for r in rows[::-1]]
        for score, d in adjustments.items():
            s = check_score(score, vul, where=_join(where, f"adjustment for {shown(score)}"))
            j = bisect.bisect_right(lows, s) - 1
            if j < 0 or s > rows[k - 1 - j].high:  # pragma: no cover - built charts cover every legal score
                raise InputError(f"score {s} is not covered by the chart", where=where)
            i = k - 1 - j
            if d is None:
                continue
            deltas[i] += _whole(d, "adjustment", where=_join(where, f"row {i + 1} ({rows[i].label})"))
    else:
        seq = list(adjustments)
        if len(seq) != k:
            raise InputError(f"the chart has {k} rows but {len(seq)} adjustments were given (one per row, top first)",
                             where=where)
        for i, d in enumerate(seq):
            if d is not None:
                deltas[i] = _whole(d, "adjustment", where=_join(where, f"row {i + 1} ({rows[i].label})"))
    out = []
    for i, (r, d) in enumerate(zip(rows, deltas)):
        loc = _join(where, f"row {i + 1} ({r.label})")
        if abs(d) > max_adjustment:
            raise InputError(f"adjustment {d:+d} is more than {max_adjustment} points", where=loc)
        a = r.award + d
        if not 0 <= a <= 100:
            raise InputError(f"adjustment {d:+d} takes the award {r.award} outside 0-100", where=loc)
        out.append(ChartRow(r.low, r.high, a, r.kind, r.matchpoints, r.percent, r.frequency, d))
    for i in range(1, k):
        hi, lo = out[i - 1], out[i]
        broken = lo.award >= hi.award if smoothing == "strict" else lo.award > hi.award
        if broken:
            need = "below" if smoothing == "strict" else "at most"
            raise InputError(
                f"after adjustments the award {lo.award} is not {need} the award {hi.award} of row {i} ({hi.label}): "
                "awards must decrease from the top row to the bottom one",
                where=_join(where, f"row {i + 1} ({lo.label})"),
            )
    return out


def instant_award(score: object, chart: InstantChart, *, where: str | None = None) -> Any:
    """The N-S award for ``score`` on ``chart`` (an array of scores gives an array of awards).

    >>> c = instant_chart([450, 420, 400, 170, -50], [2, 4, 3, 6, 1], "None")
    >>> instant_award(420, c), instant_award([400, -100], c).tolist()
    (75, [53, 0])
    """
    if isinstance(score, (list, tuple, np.ndarray)):
        return chart.awards(score)
    return chart.award(score, where=where)
