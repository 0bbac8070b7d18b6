"""Victory points: the VP scales (one registry), and the WBF 2013 continuous 20-VP scale as the published tables
print it.

**A VP scale is registered once** (:func:`register_vp_scale`, a :class:`VPScale`: its name, how a page says
it, the VPs of the whole IMP margins of a match of each length) and every layer reads it from
:data:`VP_SCALES`: :func:`vp` and :func:`vp_table` here, the teams core (:func:`xlbridge.core.teams.teams.match_result`,
``weighted_vp``), the Excel functions ``VP`` and ``MATCH_RESULT`` (their optional ``scale``), the teams
workbook's and the site's words for it. The default is :data:`DEFAULT_VP_SCALE`, the WBF's.

>>> vp_scale().name, vp_scale(" wbf 2013 ").label, sorted(VP_SCALES)
('WBF2013', 'WBF 2013', ['WBF2013'])

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType

from ..errors import InputError, shown
from ..numbers import exact, whole
from ..rounding import named_option, round_fraction

__all__ = ["vp", "VP_FRACTION_RULES", "MAX_BOARDS", "vp_table", "vp_formula", "vp_blitz", "vp_pair", "VPScale",
           "VP_SCALES", "DEFAULT_VP_SCALE", "register_vp_scale", "vp_scale"]

#: Rules for a fractional IMP margin (see :func:`vp`).
VP_FRACTION_RULES = ("interpolate", "round")
#: The longest match a VP scale is built for (a scale of N boards has 15 sqrt(N) + 1 entries, each
#: a 50-digit evaluation; 1,000 boards take well under a second). Real matches are far shorter.
MAX_BOARDS = 1000


# ------------------------------------------------------------------------------------- the registry

@dataclass(frozen=True)
class VPScale:
    """A victory-point scale: the winner's VPs for each whole IMP margin of a match, by the match's length.

    - ``name``: how a user names it (``scale="WBF2013"``, an Excel cell), compared case-insensitively, spaces
      ignored; ``aliases``: other spellings of it;
    - ``label``: how a sheet or a page says it (``"WBF 2013"``); ``title``: one line describing it;
    - ``table(boards)``: the winner's VPs in hundredths for the margins 0, 1, 2, ... IMPs of a match of
      ``boards`` boards, from half of ``total`` (a tie) up to ``total`` (the last entry: that margin and any
      larger one score it all), never decreasing; the loser gets ``total`` minus the winner's;
    - ``total``: the VPs of a match, both sides together; ``max_boards``: the longest match it is built for.

    >>> s = VPScale("TEN", "Ten-step", "10 VPs, one a step of 2 IMPs", lambda n: (500, 600, 700, 800, 900, 1000),
    ...             total=10)
    >>> s.label, s.table(7)[-1]
    ('Ten-step', 1000)
    """

    name: str
    label: str
    title: str
    table: Callable[[int], tuple[int, ...]]
    total: int = 20
    max_boards: int = 1000
    aliases: tuple[str, ...] = ()


_SCALES: dict[str, VPScale] = {}
#: The registered VP scales by name (read-only: :func:`register_vp_scale` adds one).
VP_SCALES: Mapping[str, VPScale] = MappingProxyType(_SCALES)
#: The scale used when none is named: the WBF's 2013 continuous 20-VP scale (seed 004, REFERENCE.md).
DEFAULT_VP_SCALE = "WBF2013"


def register_vp_scale(scale: VPScale) -> VPScale:
    """Register ``scale`` under its name (once: another scale of the same name, or spelling, is refused); every
    layer can use it by name from then on. Returns it.

    >>> register_vp_scale(VP_SCALES["WBF2013"]) is VP_SCALES["WBF2013"]
    True
    """
    if not isinstance(scale, VPScale):
        raise InputError(f"a VP scale is a VPScale, not {shown(scale)}")
    spellings = {t.replace(" ", "").casefold() for t in (scale.name, *scale.aliases)}
    for other in _SCALES.values():
        if other is not scale and spellings & {t.replace(" ", "").casefold() for t in (other.name, *other.aliases)}:
            raise InputError(f"a VP scale named {shown(scale.name)} is already registered")
    _SCALES[scale.name] = scale
    return scale


def vp_scale(name: object = None) -> VPScale:
    """The registered scale ``name`` spells (case-insensitive, spaces ignored; None or blank: the default).

    >>> vp_scale("wbf2013").title
    'WBF 2013 continuous 20-VP scale, published table'
    >>> vp_scale("EBU 1966")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: unknown VP scale 'EBU 1966' (expected one of WBF2013)
    """
    if isinstance(name, VPScale):
        return name
    if name is None or isinstance(name, str) and not name.strip():
        return _SCALES[DEFAULT_VP_SCALE]
    key = name.replace(" ", "") if isinstance(name, str) else name
    aliases = {a.replace(" ", ""): s.name for s in _SCALES.values() for a in s.aliases}
    try:
        return _SCALES[named_option(key, list(_SCALES), "VP scale", aliases=aliases)]
    except InputError:
        raise InputError(f"unknown VP scale {shown(name)} (expected one of {', '.join(_SCALES)})") from None


@lru_cache(maxsize=256)
def _cents(scale: VPScale, boards: int) -> tuple[int, ...]:
    """``scale``'s table for ``boards`` boards, checked once: from half the total to the total, never decreasing."""
    cents = tuple(scale.table(boards))
    top = scale.total * 100
    if (not cents or any(type(c) is not int for c in cents) or cents[-1] != top or 2 * cents[0] != top
            or any(b < a for a, b in zip(cents, cents[1:]))):
        raise InputError(f"VP scale {scale.name}: its table for {boards} boards does not run from "
                         f"{scale.total / 2:g} to {scale.total} VPs without falling")
    return cents


def _boards(boards: object, scale: VPScale | None = None) -> int:
    """Check and return the number of boards of a match (a whole number 1 to the scale's longest match)."""
    return whole(boards, "number of boards", minimum=1,
                 maximum=MAX_BOARDS if scale is None else scale.max_boards)


def _margin(margin: object) -> Fraction:
    """An exact Fraction of an IMP margin (a float is read as its shortest repr: 4.6 -> 23/5)."""
    if hasattr(margin, "dtype") and getattr(margin, "size", 1) != 1:
        raise InputError("vp takes one IMP margin at a time (use a loop or the VP worksheet function for ranges)")
    return exact(margin, "IMP margin")


def _wbf_blitz(n: int) -> int:
    """``ceil(15 sqrt(N))`` without floats: the WBF 2013 scale's blitz margin."""
    return math.isqrt(225 * n - 1) + 1 if n else 0


def vp_blitz(boards: object, *, scale: object = None) -> int:
    """The smallest whole IMP margin that scores every VP (the last table row); on the WBF 2013 scale
    ``ceil(15 sqrt(N))``.

    >>> vp_blitz(7), vp_blitz(16), vp_blitz(32)
    (40, 60, 85)
    """
    s = vp_scale(scale)
    n = _boards(boards, s)
    return _wbf_blitz(n) if s is _SCALES[DEFAULT_VP_SCALE] else len(_cents(s, n)) - 1


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
    top = _wbf_blitz(n)
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


def vp_table(boards: object, *, scale: object = None) -> tuple[Fraction, ...]:
    """The VP scale ``scale`` (default: the published WBF 2013 continuous scale) for a match of ``boards`` boards.

    Element ``m`` is the winner's VPs (a ``Fraction`` with two decimals) for a margin of ``m``
    IMPs, ``m = 0 .. vp_blitz(boards)``; the last element is the total (20) and larger margins score it.

    >>> [float(v) for v in vp_table(7)[:6]]
    [10.0, 10.47, 10.92, 11.35, 11.77, 12.18]
    >>> len(vp_table(32))   # 0 .. 85 IMPs
    86
    """
    s = vp_scale(scale)
    return tuple(Fraction(c, 100) for c in _cents(s, _boards(boards, s)))


def vp(margin: object, boards: object, *, fraction: str = "interpolate", scale: object = None) -> Fraction:
    """VPs of the side with this IMP margin on the VP scale ``scale`` (a name of :data:`VP_SCALES`; default the
    WBF 2013 continuous 20-VP scale, published table).

    ``margin`` may be negative (the loser gets ``20 - VP(winner)``, the scale's total) or fractional (see
    ``fraction``: ``"interpolate"`` between the neighbouring whole margins, the default, or
    ``"round"`` the margin to a whole IMP first, half away from zero).  Margins at or past the
    blitz score 20 / 0.  ``boards`` is 1 to :data:`MAX_BOARDS` (the scale's longest match).  Source: WBF
    Scoring Panel 2013; REFERENCE.md; seed 004.

    >>> vp(0, 7), vp(40, 7), vp(-100, 7)
    (Fraction(10, 1), Fraction(20, 1), Fraction(0, 1))
    >>> vp(-2, 7) + vp(2, 7)
    Fraction(20, 1)
    """
    s = vp_scale(scale)
    n = _boards(boards, s)
    m = _margin(margin)
    fraction = named_option(fraction, VP_FRACTION_RULES, "fractional-margin rule")
    if m < 0:
        return s.total - vp(-m, n, fraction=fraction, scale=s)
    cents = _cents(s, n)
    top = len(cents) - 1
    w = m.numerator // m.denominator
    rest = m - w
    if rest and fraction == "round":  # m > 0 here: half away from zero is half up
        w, rest = int(round_fraction(m, "half_away")), Fraction(0)
    if w >= top:
        return Fraction(s.total)
    lo = Fraction(cents[w], 100)
    if not rest:
        return lo
    hi = Fraction(cents[w + 1], 100)
    return lo + rest * (hi - lo)


def vp_pair(margin: object, boards: object, *, fraction: str = "interpolate",
            scale: object = None) -> tuple[Fraction, Fraction]:
    """VPs of both sides, ``(winner-of-margin side, other side)``; they total the scale's total (20).

    >>> vp_pair(5, 7)
    (Fraction(609, 50), Fraction(391, 50))
    """
    s = vp_scale(scale)
    v = vp(margin, boards, fraction=fraction, scale=s)
    return v, s.total - v


register_vp_scale(VPScale(
    DEFAULT_VP_SCALE, "WBF 2013", "WBF 2013 continuous 20-VP scale, published table", _table_cents,
    total=20, max_boards=MAX_BOARDS, aliases=("WBF", "WBF 2013")))
