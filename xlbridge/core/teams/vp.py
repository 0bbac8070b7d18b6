"""Victory points: the WBF 2013 continuous 20-VP scale, as the published tables print it.

The formula (WBF Scoring Panel, "The New WBF IMP to VP Scales", 2013; REFERENCE.md): for a
match of ``N`` boards, blitz margin ``B = 15 sqrt(N)``, ``tau = (sqrt(5) - 1) / 2``, the winner
of an IMP margin ``M >= 0`` gets ``min(20, 10 + 10 (1 - tau^(3M/B)) / (1 - tau^3))`` and the
loser ``20 -`` that.  The *published* tables round each value to two decimals and then enforce
concavity: where rounding made a one-IMP step larger than the step before it, the value in
between is raised by 0.01, repeatedly, until no step exceeds its predecessor.  :func:`vp_table`
builds that table (computed with 50-digit decimals, so no rounding decision is left to a float)
and :func:`vp` reads it.

Seed 004 (7 boards, docs/corrections.md): +5 IMPs = 12.18, +9 = 13.65, -2 = 9.08.

>>> vp(5, 7), vp(9, 7), vp(-2, 7)
(Fraction(609, 50), Fraction(273, 20), Fraction(227, 25))
>>> float(vp(5, 7))
12.18

Fractional IMP margins (weighted scores give them) are read off the table by linear
interpolation between the two neighbouring whole margins (``fraction="interpolate"``, the
default) or after rounding the margin to a whole IMP (``fraction="round"``, half away from zero).
Both keep VP(m) + VP(-m) = 20, monotonicity and concavity.

>>> vp(Fraction(46, 10), 7)            # 11.77 + 0.6 x (12.18 - 11.77)
Fraction(1502, 125)
>>> vp(Fraction(46, 10), 7, fraction="round")
Fraction(609, 50)
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import lru_cache

from ..errors import InputError, shown
from ..numbers import exact, whole
from ..rounding import named_option, round_fraction

__all__ = ["vp", "VP_FRACTION_RULES", "MAX_BOARDS", "vp_table", "vp_formula", "vp_blitz", "vp_pair"]

#: Rules for a fractional IMP margin (see :func:`vp`).
VP_FRACTION_RULES = ("interpolate", "round")
#: The longest match a VP scale is built for (a scale of N boards has 15 sqrt(N) + 1 entries, each
#: a 50-digit evaluation; 1,000 boards take well under a second). Real matches are far shorter.
MAX_BOARDS = 1000


def _boards(boards: object) -> int:
    """Check and return the number of boards of a match (a whole number 1 to MAX_BOARDS)."""
    return whole(boards, "number of boards", minimum=1, maximum=MAX_BOARDS)


def _margin(margin: object) -> Fraction:
    """An exact Fraction of an IMP margin (a float is read as its shortest repr: 4.6 -> 23/5)."""
    if hasattr(margin, "dtype") and getattr(margin, "size", 1) != 1:
        raise InputError("vp takes one IMP margin at a time (use a loop or the VP worksheet function for ranges)")
    return exact(margin, "IMP margin")


def vp_blitz(boards: object) -> int:
    """The smallest whole IMP margin that scores 20 VPs: ``ceil(15 sqrt(N))`` (the last table row).

    >>> vp_blitz(7), vp_blitz(16), vp_blitz(32)
    (40, 60, 85)
    """
    n = _boards(boards)
    return math.isqrt(225 * n - 1) + 1 if n else 0  # ceil(sqrt(225 n)) without floats


def vp_formula(margin: object, boards: object) -> Decimal:
    """The unrounded WBF 2013 formula value for an IMP margin (50 significant digits).

    ``10 + 10 (1 - tau^(3M/B)) / (1 - tau^3)`` capped at 20 for ``M >= 0``; ``20 - VP(-M)``
    below 0.  Not the published value: see :func:`vp`.

    >>> str(vp_formula(5, 7))[:8]
    '12.17688'
    """
    n = _boards(boards)
    m = _margin(margin)
    with localcontext() as ctx:
        ctx.prec = 50
        sign = 1 if m >= 0 else -1
        dm = Decimal(abs(m.numerator)) / Decimal(m.denominator)
        b = 15 * Decimal(n).sqrt()
        tau = (Decimal(5).sqrt() - 1) / 2
        x = 10 + 10 * (1 - (3 * dm / b * tau.ln()).exp()) / (1 - tau**3)
        x = min(Decimal(20), x)
        return +x if sign > 0 else 20 - x


@lru_cache(maxsize=256)
def _table_cents(n: int) -> tuple[int, ...]:
    """The published table in hundredths of a VP, margins 0 .. blitz (see module docstring)."""
    top = vp_blitz(n)
    cents = []
    for m in range(top + 1):
        x = vp_formula(m, n)
        cents.append(min(2000, int(round_fraction(Fraction(x) * 100, "half_away"))))  # x > 0: a half goes up
    # Concavity: no step may exceed the one before it; raise the middle value by 0.01 until so.
    changed = True
    while changed:
        changed = False
        for i in range(1, len(cents) - 1):
            if cents[i + 1] - cents[i] > cents[i] - cents[i - 1]:
                cents[i] += 1
                changed = True
    return tuple(cents)


def vp_table(boards: object) -> tuple[Fraction, ...]:
    """The published WBF 2013 continuous scale for a match of ``boards`` boards.

    Element ``m`` is the winner's VPs (a ``Fraction`` with two decimals) for a margin of ``m``
    IMPs, ``m = 0 .. vp_blitz(boards)``; the last element is 20 and larger margins score 20.

    >>> [float(v) for v in vp_table(7)[:6]]
    [10.0, 10.47, 10.92, 11.35, 11.77, 12.18]
    >>> len(vp_table(32))   # 0 .. 85 IMPs
    86
    """
    return tuple(Fraction(c, 100) for c in _table_cents(_boards(boards)))


def vp(margin: object, boards: object, *, fraction: str = "interpolate") -> Fraction:
    """VPs (WBF 2013 continuous 20-VP scale, published table) of the side with this IMP margin.

    ``margin`` may be negative (the loser gets ``20 - VP(winner)``) or fractional (see
    ``fraction``: ``"interpolate"`` between the neighbouring whole margins, the default, or
    ``"round"`` the margin to a whole IMP first, half away from zero).  Margins at or past the
    blitz score 20 / 0.  ``boards`` is 1 to :data:`MAX_BOARDS`.  Source: WBF Scoring Panel 2013;
    REFERENCE.md; seed 004.

    >>> vp(0, 7), vp(40, 7), vp(-100, 7)
    (Fraction(10, 1), Fraction(20, 1), Fraction(0, 1))
    >>> vp(-2, 7) + vp(2, 7)
    Fraction(20, 1)
    """
    n = _boards(boards)
    m = _margin(margin)
    fraction = named_option(fraction, VP_FRACTION_RULES, "fractional-margin rule")
    if m < 0:
        return 20 - vp(-m, n, fraction=fraction)
    cents = _table_cents(n)
    top = len(cents) - 1
    w = m.numerator // m.denominator
    rest = m - w
    if rest and fraction == "round":  # m > 0 here: half away from zero is half up
        w, rest = int(round_fraction(m, "half_away")), Fraction(0)
    if w >= top:
        return Fraction(20)
    lo = Fraction(cents[w], 100)
    if not rest:
        return lo
    hi = Fraction(cents[w + 1], 100)
    return lo + rest * (hi - lo)


def vp_pair(margin: object, boards: object, *, fraction: str = "interpolate") -> tuple[Fraction, Fraction]:
    """VPs of both sides, ``(winner-of-margin side, other side)``; they total 20.

    >>> vp_pair(5, 7)
    (Fraction(609, 50), Fraction(391, 50))
    """
    v = vp(margin, boards, fraction=fraction)
    return v, 20 - v
