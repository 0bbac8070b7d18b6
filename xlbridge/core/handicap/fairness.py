"""Fairness of a handicap system (seed 000): exact binomial probabilities, bands, win counts, plots.

Under a fair handicap system each decided match between teams with different handicaps is won by
the higher-handicap team with probability 1/2, so over ``n`` such matches the number of those
wins is X ~ Binomial(n, 1/2) (seed 000: "the probability is the same as for tossing a coin").

* :func:`fairness_p` = P(X <= wins) (the higher-handicap team wins too rarely: handicaps too
  small) and :func:`fairness_p_upper` = P(X >= wins) (it wins too often: handicaps too big),
  exact (integer arithmetic, one conversion to float at the end). A p-value is not "the
  probability that the handicaps are unfair" (docs/corrections.md, seed 000).
* :func:`fairness_band` = the band of win counts that excludes the share ``tail`` of outcomes at
  each end; the seed's Figures 1 and 2 draw the bands for tails of 25 %, 10 % and 1 % (central
  50 %, 80 % and 98 %; the seed's text calls the middle one "90 %", see docs/corrections.md).
* :func:`fairness_count` applies a handicap table to a season of match results.
* :func:`fairness_bands_data` gives the seed's figures as a table a native Excel chart can draw;
  :func:`xlbridge.analysis.plots.fairness_figure` draws them with matplotlib.

The exact sums cost about ``n x min(w, n - w)`` big-integer steps: one value is refused above
:data:`FAIRNESS_MAX_MATCHES` matches, and a caller computing many values (a column of cells)
adds up :func:`fairness_work` and refuses the call above :data:`FAIRNESS_MAX_WORK` first.

Seed 000's initial study counted "19 wins and 37 losses for the higher-ranking teams" in 56
matches: the higher-handicap (lower-ranking) team won 37 of 56, which is as unlikely under fair
handicaps as 19 of 56 is (symmetry):

>>> round(fairness_p_upper(37, 56), 4), round(fairness_p(19, 56), 4)
(0.0111, 0.0111)
>>> fairness_band(87, 0.10), fairness_band(87, 0.01)   # 34 of 87 is outside the first, inside the second
((38, 49), (33, 54))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import InputError, LimitError, shown
from ..numbers import exact, is_blank, whole
from .forml import handicapped_result, match_rows, team_key

__all__ = [
    "FAIRNESS_TAILS",
    "fairness_p",
    "fairness_p_exact",
    "fairness_p_upper",
    "fairness_p_upper_exact",
    "fairness_band",
    "fairness_in_band",
    "FairnessCount",
    "fairness_count",
    "fairness_bands_data",
    "FAIRNESS_MAX_MATCHES",
    "FAIRNESS_MAX_WORK",
    "fairness_work",
]

#: The tails of the seed's Figures 1 and 2: 25 % (blue), 10 % (green), 1 % (orange) at each end.
FAIRNESS_TAILS = (0.25, 0.10, 0.01)

#: The largest number of matches computed exactly (about a second at the limit). A league plays
#: hundreds of matches a season; a larger count is refused rather than freezing Excel for minutes.
FAIRNESS_MAX_MATCHES = 100_000
#: The most work one call may do over all its values, in :func:`fairness_work` units: what the
#: single hardest value at :data:`FAIRNESS_MAX_MATCHES` costs, so a column of cells is bounded
#: like one cell (a column of a thousand 200-match leagues costs 2 % of it).
FAIRNESS_MAX_WORK = FAIRNESS_MAX_MATCHES * (FAIRNESS_MAX_MATCHES // 2)


def _row(i: int) -> str:
    return f"row {i + 1}"


def match_count(matches: object, name: str = "matches") -> int:
    """A number of matches: a whole number 0 to FAIRNESS_MAX_MATCHES."""
    n = whole(matches, name)
    if n < 0:
        raise InputError(f"{name} must be 0 or more, got {shown(matches)}")
    if n > FAIRNESS_MAX_MATCHES:
        raise LimitError(f"{name} {n} is more than the {FAIRNESS_MAX_MATCHES:,} matches computed exactly")
    return n


def wins_and_matches(wins: object, matches: object) -> tuple[int, int]:
    """``(wins, matches)`` checked: whole numbers, 0 <= wins <= matches <= FAIRNESS_MAX_MATCHES."""
    n = match_count(matches)
    w = whole(wins, "wins")
    if not 0 <= w <= n:
        raise InputError(f"wins must be between 0 and matches ({n}), got {shown(wins)}")
    return w, n


def tail_share(tail: object) -> Fraction:
    """A tail share, exactly: 0 <= tail < 1/2 (floats through their decimal text)."""
    t = exact(tail, "tail")
    if not 0 <= t < Fraction(1, 2):
        raise InputError(f"tail must be a share at least 0 and below 0.5 (e.g. 0.10 for 10 %), got {shown(tail)}")
    return t


def fairness_work(matches: object, wins: object = None) -> int:
    """The cost of one exact value in big-integer steps: ``n x min(w, n - w)`` (a band: ``n x n / 2``).

    Counted before any value is computed, so a call over many cells can refuse itself when the
    total exceeds :data:`FAIRNESS_MAX_WORK`. Unreadable values cost 0 (they fail on their own).

    >>> fairness_work(56, 19), fairness_work(56), fairness_work("x")
    (1064, 1568, 0)
    """
    try:
        n = match_count(matches)
        w = n // 2 if wins is None else whole(wins, "wins")
    except InputError:
        return 0
    return n * max(0, min(w, n - w))


def check_work(total: int) -> None:
    """Raise LimitError if the work of a call (a sum of :func:`fairness_work`) is beyond the limit."""
    if total > FAIRNESS_MAX_WORK:
        raise LimitError(f"the exact probabilities of these cells need {total:,} steps, more than the "
                         f"{FAIRNESS_MAX_WORK:,} allowed in one call: split the range over several calls")


def fairness_p_exact(wins: object, matches: object) -> Fraction:
    """Return P(X <= wins) for X ~ Binomial(matches, 1/2) as an exact Fraction.

    P = sum(C(n, k) for k = 0..wins) / 2**n (seed 000: "throwing X heads in Y tosses of a coin").

    >>> fairness_p_exact(1, 3)
    Fraction(1, 2)
    >>> fairness_p_exact(0, 0)
    Fraction(1, 1)
    """
    w, n = wins_and_matches(wins, matches)
    if 2 * w >= n:  # the shorter sum: P(X <= w) = 1 - P(X <= n - w - 1)
        return 1 - Fraction(_cum_binom(n, n - w - 1), 1 << n)
    return Fraction(_cum_binom(n, w), 1 << n)


def _cum_binom(n: int, k: int) -> int:
    """sum(C(n, j) for j = 0..k), by the ratio C(n, j+1) = C(n, j) (n - j) / (j + 1)."""
    if k < 0:
        return 0
    s = c = 1
    for j in range(k):
        c = c * (n - j) // (j + 1)
        s += c
    return s


def fairness_p(wins: object, matches: object) -> float:
    """Return P(X <= wins) for X ~ Binomial(matches, 1/2), computed exactly, as a float.

    See :func:`fairness_p_exact`. Seed 000: the existing system's retrospective 34 wins of 87 ->
    0.0265 (the higher-handicap team won too rarely); Form-L's 44 of 88 -> just above 1/2.

    >>> round(fairness_p(34, 87), 4), round(fairness_p(44, 88), 3)
    (0.0265, 0.542)
    """
    return float(fairness_p_exact(wins, matches))


def fairness_p_upper_exact(wins: object, matches: object) -> Fraction:
    """Return P(X >= wins) for X ~ Binomial(matches, 1/2) as an exact Fraction: the upper tail.

    P(X >= w) = P(X <= n - w) by symmetry; small when the higher-handicap team wins too often
    (handicaps too big). Seed 000's first study: the higher-handicap team won 37 of 56.

    >>> fairness_p_upper_exact(2, 3), fairness_p_upper_exact(0, 5)
    (Fraction(1, 2), Fraction(1, 1))
    >>> fairness_p_upper_exact(37, 56) == fairness_p_exact(19, 56)
    True
    """
    w, n = wins_and_matches(wins, matches)
    return fairness_p_exact(n - w, n)


def fairness_p_upper(wins: object, matches: object) -> float:
    """Return P(X >= wins) for X ~ Binomial(matches, 1/2), computed exactly, as a float.

    See :func:`fairness_p_upper_exact`. Seed 000: 37 wins of 56 for the higher-handicap team
    (19 for the higher-ranking team) -> 0.0111, "about 1 %".

    >>> round(fairness_p_upper(37, 56), 4)
    0.0111
    """
    return float(fairness_p_upper_exact(wins, matches))


def _band_low(n: int, t: Fraction) -> int:
    """The least k with P(X <= k) > t, X ~ Binomial(n, 1/2)."""
    target = t.numerator << n  # compare S * t.den > t.num * 2**n
    s, c, k = 1, 1, 0
    while s * t.denominator <= target:
        c = c * (n - k) // (k + 1)
        k += 1
        s += c
    return k


def fairness_band(matches: object, tail: object) -> tuple[int, int]:
    """Return (fewest, most) wins of the band that excludes the share ``tail`` at each end.

    Definition: with X ~ Binomial(n, 1/2), the band is every win count w with P(X <= w) > tail and
    P(X >= w) > tail; so low = the least k with P(X <= k) > tail, and high = n - low (symmetry).
    The outcomes below the band have total probability at most ``tail``, and so do those above it;
    a result is outside the band exactly when its one-sided p-value is at most ``tail``.
    ``0 <= tail < 0.5``; ``tail`` is read via its decimal text (0.1 = 1/10 exactly).
    Seed 000's lines: tails 0.25, 0.10, 0.01.

    >>> fairness_band(56, 0.01)        # seed 000: 37 of 56 (p = 0.0111) is just inside the 1 % band
    (19, 37)
    >>> fairness_band(12, 0.25)
    (5, 7)
    """
    n = match_count(matches)
    low = _band_low(n, tail_share(tail))
    return low, n - low


def fairness_in_band(wins: object, matches: object, tail: object) -> bool:
    """Return True if ``wins`` of ``matches`` lies inside the band of :func:`fairness_band`.

    >>> fairness_in_band(34, 87, 0.10), fairness_in_band(34, 87, 0.01)
    (False, True)
    """
    w, n = wins_and_matches(wins, matches)
    low, high = fairness_band(n, tail)
    return low <= w <= high


def band_lows(max_n: int, t: Fraction) -> list[int]:
    """low(n) of :func:`fairness_band` for n = 0..max_n, incrementally in exact integers.

    With S_n(k) = sum_{j<=k} C(n, j): S_{n+1}(k) = 2 S_n(k) - C(n, k) and low(n+1) is low(n) or
    low(n) + 1, so each n costs a few big-integer operations instead of a new sum.
    """
    p, q = t.numerator, t.denominator
    lows = [0]
    k, c, s = 0, 1, 1  # for n = 0: C(0,0) = 1, S = 1
    for n in range(max_n):
        # step n -> n + 1 at the same k
        s = 2 * s - c
        c = c * (n + 1) // (n + 1 - k)
        target = p << (n + 1)
        while s * q <= target:
            c = c * (n + 1 - k) // (k + 1)
            k += 1
            s += c
        lows.append(k)
    return lows


def tail_label(t: Fraction) -> str:
    """``Fraction(1, 10)`` -> ``'10 %'``."""
    pct = t * 100
    text = str(pct.numerator) if pct.denominator == 1 else f"{float(pct):g}"
    return f"{text} %"


def fairness_bands_data(max_n: object, tails: Iterable[object] = FAIRNESS_TAILS, *,
                        header: bool = True) -> list[list[object]]:
    """Return the bands for n = 1..max_n as a table a native Excel chart can draw.

    Columns: matches n, expected wins n/2 (the seed's black line), then for each tail the fewest
    and the most wins of :func:`fairness_band`. The first row is a header (unless
    ``header=False``) with the bands labelled by their tails, e.g. ``"10 % tail low"``.

    >>> rows = fairness_bands_data(3)
    >>> rows[0][:4]
    ['Matches', 'Expected wins', '25 % tail low', '25 % tail high']
    >>> rows[3]
    [3, 1.5, 1, 2, 0, 3, 0, 3]
    """
    m = match_count(max_n, "the largest number of matches")
    if m < 1:
        raise InputError(f"the largest number of matches must be at least 1, got {shown(max_n)}")
    ts = [tail_share(t) for t in tails]
    lows = [band_lows(m, t) for t in ts]
    rows: list[list[object]] = []
    if header:
        head: list[object] = ["Matches", "Expected wins"]
        for t in ts:
            lab = tail_label(t)
            head += [f"{lab} tail low", f"{lab} tail high"]
        rows.append(head)
    for n in range(1, m + 1):
        row: list[object] = [n, n / 2]
        for lo in lows:
            row += [lo[n], n - lo[n]]
        rows.append(row)
    return rows


@dataclass(frozen=True)
class FairnessCount:
    """Wins of the higher-handicap team over the decided matches between differently handicapped teams.

    ``matches`` counts only those decided matches; ``equal_handicaps`` and ``draws`` (handicapped
    draws) were excluded. ``p`` = P(X <= wins) and ``p_upper`` = P(X >= wins), X ~ Binomial(matches, 1/2).

    >>> c = FairnessCount(wins=37, matches=56, equal_handicaps=0, draws=0)
    >>> c.losses, round(c.p_upper, 4), round(c.p, 3)
    (19, 0.0111, 0.995)
    """

    wins: int
    matches: int
    equal_handicaps: int
    draws: int

    @property
    def losses(self) -> int:
        """Decided matches lost by the higher-handicap team."""
        return self.matches - self.wins

    @property
    def p(self) -> float:
        """P(X <= wins) for X ~ Binomial(matches, 1/2), exact then converted."""
        return fairness_p(self.wins, self.matches)

    @property
    def p_upper(self) -> float:
        """P(X >= wins) for X ~ Binomial(matches, 1/2), exact then converted."""
        return fairness_p_upper(self.wins, self.matches)


def fairness_count(team_a: Iterable[object], team_b: Iterable[object], imps_a: Iterable[object],
                   imps_b: Iterable[object], handicaps: Mapping[Any, object]) -> FairnessCount:
    """Apply a handicap table to a season of matches; count wins of the higher-handicap team.

    Seed 000 ("Initial study"): for every match, the higher-handicap team's IMPs get the handicap
    difference added (:func:`xlbridge.core.handicap.forml.handicapped_result`); matches between teams with equal
    handicaps and handicapped draws are excluded. ``team_a``, ``team_b``, ``imps_a``, ``imps_b``
    are equal-length columns (one match per row, blank rows skipped); ``handicaps`` maps each team
    to its handicap IMPs (any exact number). Team names are compared after stripping spaces.

    >>> h = {"Top": 0, "Mid": 10, "Low": 30}
    >>> c = fairness_count(["Top", "Top", "Mid", "Low"], ["Mid", "Low", "Low", "Top"],
    ...                    [50, 60, 40, 20], [45, 20, 45, 50], h)
    >>> c.wins, c.matches, c.draws, c.equal_handicaps
    (2, 3, 1, 0)
    """
    rows = match_rows([team_a, team_b, imps_a, imps_b], "the team, opponent and IMP columns")
    table = {}
    for t, v in dict(handicaps).items():
        key = team_key(t)
        if key in table:
            raise InputError(f"team {shown(key)} is in the handicap table twice (names are compared without spaces)")
        table[key] = exact(v, f"handicap of {shown(t)}")
    wins = decided = equal = draws = 0
    for r, (ta, tb, ia, ib) in rows:
        ka, kb = team_key(ta), team_key(tb)
        for k in (ka, kb):
            if k not in table:
                raise InputError(f"team {shown(k)} has no handicap", where=_row(r))
        ha, hb = table[ka], table[kb]
        xa, xb = exact(ia, "IMPs of team A", where=_row(r)), exact(ib, "IMPs of team B", where=_row(r))
        if ha == hb:
            equal += 1
            continue
        winner = handicapped_result(xa, xb, ha, hb).winner  # the handicap difference goes to the higher
        if winner is None:
            draws += 1
            continue
        decided += 1
        if (winner == "a") == (ha > hb):
            wins += 1
    return FairnessCount(wins, decided, equal, draws)
