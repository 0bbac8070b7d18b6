"""Fairness of a handicap system (seed 000): exact binomial probabilities, bands, win counts, plots.

Under a fair handicap system each decided match between teams with different handicaps is won by
the higher-handicap team with probability 1/2, so over ``n`` such matches the number of those
wins is X ~ Binomial(n, 1/2) (seed 000: "the probability is the same as for tossing a coin").

* :func:`fairness_p` = P(X <= wins) (the higher-handicap team wins too rarely: handicaps too
  small) and :func:`fairness_p_upper` = P(X >= wins) (it wins too often: handicaps too big),
  exact (integer arithmetic, one conversion to float at the end). A p-value is not "the
  probability that the handicaps are unfair" (ERRATA.md, seed 000).
* :func:`fairness_band` = the band of win counts that excludes the share ``tail`` of outcomes at
  each end; the seed's Figures 1 and 2 draw the bands for tails of 25 %, 10 % and 1 % (central
  50 %, 80 % and 98 %; the seed's text calls the middle one "90 %", see ERRATA.md).
* :func:`fairness_count` applies a handicap table to a season of match results.
* :func:`fairness_bands_data` and :func:`plot_fairness` draw the figures (as a table for a native
  Excel chart, and as an image with matplotlib imported only inside the function).

Seed 000's initial study counted "19 wins and 37 losses for the higher-ranking teams" in 56
matches: the higher-handicap (lower-ranking) team won 37 of 56, which is as unlikely under fair
handicaps as 19 of 56 is (symmetry):

>>> round(fairness_p_upper(37, 56), 4), round(fairness_p(19, 56), 4)
(0.0111, 0.0111)
>>> fairness_band(87, 0.10), fairness_band(87, 0.01)   # 34 of 87 is outside the first, inside the second
((38, 49), (33, 54))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..errors import InputError
from .forml import _exact, _is_blank, _row, _team_key, _whole, handicapped_result

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
    "plot_fairness",
    "FAIRNESS_MAX_MATCHES",
]

#: The tails of the seed's Figures 1 and 2: 25 % (blue), 10 % (green), 1 % (orange) at each end.
FAIRNESS_TAILS = (0.25, 0.10, 0.01)
_TAIL_COLOURS = ("tab:blue", "tab:green", "tab:orange")

#: The largest number of matches computed exactly (about a second at the limit). A league plays
#: hundreds of matches a season; a larger count is refused rather than freezing Excel for minutes.
FAIRNESS_MAX_MATCHES = 100_000


def _matches(matches, name: str = "matches") -> int:
    n = _whole(matches, name)
    if n < 0:
        raise InputError(f"{name} must be 0 or more, got {matches!r}")
    if n > FAIRNESS_MAX_MATCHES:
        raise InputError(f"{name} {n} is more than the {FAIRNESS_MAX_MATCHES:,} matches computed exactly")
    return n


def _n_and_w(wins, matches) -> tuple[int, int]:
    n = _matches(matches)
    w = _whole(wins, "wins")
    if not 0 <= w <= n:
        raise InputError(f"wins must be between 0 and matches ({n}), got {wins!r}")
    return w, n


def _tail(tail) -> Fraction:
    t = _exact(tail, "tail")
    if not 0 <= t < Fraction(1, 2):
        raise InputError(f"tail must be a share at least 0 and below 0.5 (e.g. 0.10 for 10 %), got {tail!r}")
    return t


def fairness_p_exact(wins, matches) -> Fraction:
    """Return P(X <= wins) for X ~ Binomial(matches, 1/2) as an exact Fraction.

    P = sum(C(n, k) for k = 0..wins) / 2**n (seed 000: "throwing X heads in Y tosses of a coin").

    >>> fairness_p_exact(1, 3)
    Fraction(1, 2)
    >>> fairness_p_exact(0, 0)
    Fraction(1, 1)
    """
    w, n = _n_and_w(wins, matches)
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


def fairness_p(wins, matches) -> float:
    """Return P(X <= wins) for X ~ Binomial(matches, 1/2), computed exactly, as a float.

    See :func:`fairness_p_exact`. Seed 000: the existing system's retrospective 34 wins of 87 ->
    0.0265 (the higher-handicap team won too rarely); Form-L's 44 of 88 -> just above 1/2.

    >>> round(fairness_p(34, 87), 4), round(fairness_p(44, 88), 3)
    (0.0265, 0.542)
    """
    return float(fairness_p_exact(wins, matches))


def fairness_p_upper_exact(wins, matches) -> Fraction:
    """Return P(X >= wins) for X ~ Binomial(matches, 1/2) as an exact Fraction: the upper tail.

    P(X >= w) = P(X <= n - w) by symmetry; small when the higher-handicap team wins too often
    (handicaps too big). Seed 000's first study: the higher-handicap team won 37 of 56.

    >>> fairness_p_upper_exact(2, 3), fairness_p_upper_exact(0, 5)
    (Fraction(1, 2), Fraction(1, 1))
    >>> fairness_p_upper_exact(37, 56) == fairness_p_exact(19, 56)
    True
    """
    w, n = _n_and_w(wins, matches)
    return fairness_p_exact(n - w, n)


def fairness_p_upper(wins, matches) -> float:
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


def fairness_band(matches, tail) -> tuple[int, int]:
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
    n = _matches(matches)
    low = _band_low(n, _tail(tail))
    return low, n - low


def fairness_in_band(wins, matches, tail) -> bool:
    """Return True if ``wins`` of ``matches`` lies inside the band of :func:`fairness_band`.

    >>> fairness_in_band(34, 87, 0.10), fairness_in_band(34, 87, 0.01)
    (False, True)
    """
    w, n = _n_and_w(wins, matches)
    low, high = fairness_band(n, tail)
    return low <= w <= high


def _band_lows(max_n: int, t: Fraction) -> list[int]:
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


def _tail_label(t: Fraction) -> str:
    pct = t * 100
    text = str(pct.numerator) if pct.denominator == 1 else f"{float(pct):g}"
    return f"{text} %"


def fairness_bands_data(max_n, tails=FAIRNESS_TAILS, *, header: bool = True) -> list[list]:
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
    m = _matches(max_n, "max_n")
    if m < 1:
        raise InputError(f"max_n must be at least 1, got {max_n!r}")
    ts = [_tail(t) for t in tails]
    lows = [_band_lows(m, t) for t in ts]
    rows: list[list] = []
    if header:
        head: list = ["Matches", "Expected wins"]
        for t in ts:
            lab = _tail_label(t)
            head += [f"{lab} tail low", f"{lab} tail high"]
        rows.append(head)
    for n in range(1, m + 1):
        row: list = [n, n / 2]
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


def fairness_count(team_a, team_b, imps_a, imps_b, handicaps) -> FairnessCount:
    """Apply a handicap table to a season of matches; count wins of the higher-handicap team.

    Seed 000 ("Initial study"): for every match, the higher-handicap team's IMPs get the handicap
    difference added (:func:`xlbridge.forml.handicapped_result`); matches between teams with equal
    handicaps and handicapped draws are excluded. ``team_a``, ``team_b``, ``imps_a``, ``imps_b``
    are equal-length columns (one match per row, blank rows skipped); ``handicaps`` maps each team
    to its handicap IMPs (any exact number). Team names are compared after stripping spaces.

    >>> h = {"Top": 0, "Mid": 10, "Low": 30}
    >>> c = fairness_count(["Top", "Top", "Mid", "Low"], ["Mid", "Low", "Low", "Top"],
    ...                    [50, 60, 40, 20], [45, 20, 45, 50], h)
    >>> c.wins, c.matches, c.draws, c.equal_handicaps
    (2, 3, 1, 0)
    """
    cols = [list(team_a), list(team_b), list(imps_a), list(imps_b)]
    if len({len(c) for c in cols}) != 1:
        raise InputError(
            "team_a, team_b, imps_a and imps_b must have the same length, got "
            + ", ".join(str(len(c)) for c in cols)
        )
    table = {}
    for t, v in dict(handicaps).items():
        key = _team_key(t)
        if key in table:
            raise InputError(f"team {key!r} is in the handicap table twice (names are compared without spaces)")
        table[key] = _exact(v, f"handicap of {t!r}")
    wins = decided = equal = draws = 0
    for r, (ta, tb, ia, ib) in enumerate(zip(*cols)):
        cells = (ta, tb, ia, ib)
        if all(_is_blank(c) for c in cells):
            continue
        if any(_is_blank(c) for c in cells):
            raise InputError(f"incomplete match row {cells!r}", where=_row(r))
        ka, kb = _team_key(ta), _team_key(tb)
        for k in (ka, kb):
            if k not in table:
                raise InputError(f"team {k!r} has no handicap", where=_row(r))
        ha, hb = table[ka], table[kb]
        xa, xb = _exact(ia, "IMPs of team A", _row(r)), _exact(ib, "IMPs of team B", _row(r))
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


def _point(p):
    if hasattr(p, "wins") and hasattr(p, "matches"):
        return p.wins, p.matches, None
    p = tuple(p)
    if len(p) == 2:
        return p[0], p[1], None
    if len(p) == 3:
        return p
    raise InputError(f"a point is (wins, matches) or (wins, matches, label), got {p!r}")


def plot_fairness(points, path, *, max_n=None, tails=FAIRNESS_TAILS, title=None):
    """Draw the bands of seed 000's Figures 1 and 2 with observed results as crosses; save to ``path``.

    The black line is the expected n/2 wins; each band (:func:`fairness_band`) is drawn as a pair
    of step lines, labelled by its tails (blue 25 %, green 10 %, orange 1 %, as in the seed).
    ``points`` are (wins, matches) or (wins, matches, label) or :class:`FairnessCount` objects.
    ``max_n`` defaults to the largest number of matches plus 10 %. matplotlib is imported here
    (Agg canvas, no pyplot state). Returns ``path``.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "fairness.png")
    >>> plot_fairness([(37, 56, "handicap matches to 2013-14 (higher-ranking team won 19)"), (34, 87)],
    ...               path, max_n=100) == path
    True
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    pts = [_point(p) for p in points]
    checked = []
    for w, n, lab in pts:
        wi, ni = _n_and_w(w, n)
        checked.append((wi, ni, lab))
    if max_n is None:
        biggest = max((n for _, n, _ in checked), default=100)
        m = max(10, int(biggest * 1.1) + 1)
    else:
        m = _whole(max_n, "max_n")
    ns = list(range(0, m + 1))
    fig = Figure(figsize=(8, 6), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    ax.plot(ns, [n / 2 for n in ns], color="black", lw=1.2, label="expected (n/2)")
    for i, tail in enumerate(tails):
        t = _tail(tail)
        lows = _band_lows(m, t)
        colour = _TAIL_COLOURS[i] if i < len(_TAIL_COLOURS) else None
        central = _tail_label(1 - 2 * t)
        ax.step(ns, lows, where="mid", color=colour, lw=1,
                label=f"{_tail_label(t)} tails (central {central})")
        ax.step(ns, [n - lo for n, lo in zip(ns, lows)], where="mid", color=colour, lw=1)
    markers = ("X", "P", "x", "+", "*", "D", "s")
    colours = ("red", "purple", "darkgreen", "saddlebrown", "magenta", "teal", "grey")
    for j, (w, n, lab) in enumerate(checked):
        ax.scatter([n], [w], marker=markers[j % len(markers)], color=colours[j % len(colours)], s=80,
                   zorder=3, label=lab if lab is not None else f"{w}/{n}")
    ax.set_xlim(0, m)
    ax.set_ylim(0, m / 2 + m * 0.15)
    ax.set_xlabel("matches between teams with different handicaps (draws excluded)")
    ax.set_ylabel("wins by the higher-handicap team")
    ax.set_title(title if title is not None else "Fairness of handicaps: Binomial(n, 1/2) bands")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    fig.savefig(path)
    return path
