"""Matchpoint scales, the top of a board, and the Neuberg formula (Law 78A; seed 001).

Scales (a named option ``scale=``, case-insensitive):

- ``"EBU"`` (default; Law 78A, WBF, EBU; also ``"2/1"``, ``"WBF"``): 2 points for each score
  beaten, 1 for each tie; top = 2(n - 1).
- ``"ACBL"`` (also ``"1/0.5"``, ``"1/.5"``): 1 point for each score beaten, 1/2 for each tie;
  top = n - 1.  Every figure is exactly half the EBU figure.

Neuberg (seed 001, REFERENCE.md): with A actual results where E were expected, each result is
treated as occurring E/A times: MP = (M + 1) E / A - 1 on the 2/1 scale and
(M + 1/2) E / A - 1/2 on the 1/0.5 scale, M being the matchpoints among the A results.

>>> neuberg(14, 16, 8)
Fraction(29, 1)
>>> mp_top(11), mp_percent(Fraction(1060, 11), 51)
(20, Fraction(1060, 11))
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType

from ..errors import InputError, shown
from ..numbers import exact, whole
from ..vocabulary import Scale

__all__ = ["MP_SCALES", "MP_SCALE_ALIASES", "MAX_RESULTS", "mp_scale", "mp_top", "neuberg", "mp_percent"]

#: Matchpoint scales: name -> (points for a score beaten, points for a tie) (the scales are
#: :class:`xlbridge.core.vocabulary.Scale`; this table is read from it).
MP_SCALES: Mapping[str, tuple[int, Fraction | int]] = MappingProxyType({s.value: s.points for s in Scale})
#: Every spelling of a scale (compared case-insensitively) -> its name (:attr:`Scale.spellings`).
MP_SCALE_ALIASES: Mapping[str, str] = MappingProxyType({t: s.value for s in Scale for t in s.spellings})
#: The largest number of results (expected or actual) on one board: keeps every integer
#: numerator of the vectorised scorers far inside int64 and the work of one call bounded.
MAX_RESULTS = 10**9


def mp_scale(scale: object) -> Scale:
    """The matchpoint scale (``"EBU"`` or ``"ACBL"``, a :class:`~xlbridge.core.vocabulary.Scale`, a ``str``)
    given by any of its spellings.

    >>> mp_scale("acbl"), mp_scale(" 2/1 ")
    ('ACBL', 'EBU')
    """
    return Scale.parse(scale)


def scale_denominator(scale: str) -> int:
    """1 for the EBU scale, 2 for the ACBL scale: matchpoints are integer numerators over it."""
    return mp_scale(scale).denominator


def _results(value: object, what: str, minimum: int = 1) -> int:
    return whole(value, what, minimum=minimum, maximum=MAX_RESULTS)


def mp_top(results: object, scale: str = Scale.EBU) -> int:
    """The top on a board of ``results`` results: 2(n - 1) on the EBU scale, n - 1 on the ACBL scale.

    >>> mp_top(11), mp_top(11, "ACBL")
    (20, 10)
    """
    n = _results(results, "results")
    return 2 * (n - 1) if mp_scale(scale) is Scale.EBU else n - 1


def neuberg(mp: object, expected: object, actual: object, scale: str = Scale.EBU) -> Fraction:
    """Neuberg-factor matchpoints ``mp`` earned among ``actual`` results to ``expected`` results.

    EBU 2/1 scale: (M + 1) E / A - 1 (seed 001, section 5: (M E + (E - A)) / A);
    ACBL 1/0.5 scale: (M + 1/2) E / A - 1/2.  Equal to matchpointing the board with every
    result occurring E/A times.  ``mp`` may be a fraction (floats are read as their decimal).

    >>> neuberg(14, 16, 8), neuberg(18, 11, 10)            # seed 001: 29 and 19.9
    (Fraction(29, 1), Fraction(199, 10))
    >>> [str(neuberg(m, 6, 5, "ACBL")) for m in (4, 2.5, 1, 0)]   # seed 004 (docs/corrections.md)
    ['49/10', '31/10', '13/10', '1/10']
    """
    sc = mp_scale(scale)
    e = _results(expected, "expected number of results")
    a = _results(actual, "actual number of results")
    if e < a:
        raise InputError(f"expected {e} results but there are {a} (expected must be at least the actual number)")
    m = exact(mp, "matchpoints")
    top = 2 * (a - 1) if sc is Scale.EBU else a - 1
    if not 0 <= m <= top:
        raise InputError(f"matchpoints {shown(mp)} are outside 0..{top}, the top for {a} results on the {sc} scale")
    half = Fraction(1) if sc is Scale.EBU else Fraction(1, 2)
    return (m + half) * e / a - half


def mp_percent(mp: object, results: object, scale: str = Scale.EBU) -> Fraction:
    """Matchpoints as an exact percentage of the top for a board of ``results`` results.

    100 mp / top, top = 2(n - 1) (EBU) or n - 1 (ACBL); ``mp`` must lie within 0..top.

    >>> mp_percent(Fraction(1060, 11), 51)       # seed 001, section 7: 96.36... %
    Fraction(1060, 11)
    >>> mp_percent(3, 4, "ACBL")
    Fraction(100, 1)
    """
    n = _results(results, "results", 2)
    top = mp_top(n, scale)
    m = exact(mp, "matchpoints")
    if not 0 <= m <= top:
        raise InputError(f"matchpoints {shown(mp)} are outside 0..{top}, the top for {n} results on the "
                         f"{mp_scale(scale)} scale")
    return m * 100 / top
