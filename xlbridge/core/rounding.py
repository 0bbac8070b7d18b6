"""Rounding by named rules: ONE registry, used by every part of xlbridge that rounds.

xlbridge computes matchpoints, factored and weighted scores, totals and percentages exactly
(``fractions.Fraction``, or integer numerators over a known denominator) and decides ranks and
ties on the exact values. Rounding is applied once, by a rule named here; each function says
which rules it offers and which is its default (Butler datums ``"half_even"``, Form-L handicaps
``"half_away"``, instant awards ``"half_up"``, display ``"ACBL"``...). A name means the same
everywhere; names are case-insensitive; :data:`ROUNDING_ALIASES` lists every other spelling.

The rules (what happens to a value exactly halfway between two neighbours; any other value goes
to the nearer one):

=========================  =====================================================================
``half_up``                towards +infinity: 2.5 -> 3, -2.5 -> -2
``half_down``              towards -infinity: 2.5 -> 2, -2.5 -> -3
``half_away``              away from zero (Excel's ``ROUND``): 2.5 -> 3, -2.5 -> -3
``half_even``              to the even neighbour (banker's rounding): 2.5 -> 2, 3.5 -> 4
``truncate``               not a tie rule: every value towards zero, 2.9 -> 2, -2.9 -> -2
``favour_non_offending``   weighted IMPs (seed 004): a half goes to the non-offending side, to
                           the lower integer when both or neither offended (resolved by
                           :func:`xlbridge.core.teams.teams.round_imps`, which knows the offender)
``ACBL``                   an organisation's display rule, named after the body: ACBLscore
                           shows hundredths, a final .005 away from zero (``half_away``, 2 places)
``EBU``                    the EBU prescribes no display rule; xlbridge shows hundredths with
                           ``half_even`` (an exact .xx5 is not pushed up systematically)
=========================  =====================================================================

>>> from fractions import Fraction
>>> round_display(Fraction(2592704, 50000))       # 51.85408 (seed 001, section 7)
Decimal('51.85')
>>> round_display(Fraction(1, 200), "ACBL")        # .005 goes up
Decimal('0.01')
>>> [int(round_fraction(Fraction(-5, 2), r)) for r in ("half_up", "half_down", "half_away", "half_even")]
[-2, -3, -3, -2]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

from .errors import InputError, shown
from .numbers import exact

__all__ = [
    "RoundingRule",
    "ROUNDING_RULES",
    "ROUNDING_ALIASES",
    "rounding_rule",
    "named_option",
    "round_fraction",
    "round_quotients",
    "round_display",
    "format_display",
]


@dataclass(frozen=True)
class RoundingRule:
    """A named rounding rule: ``tie`` says where an exact half goes; ``places`` the default decimals.

    ``tie`` is ``"up"``, ``"down"``, ``"away"``, ``"even"``, ``"truncate"`` (no tie rule: toward
    zero) or ``"non_offending"`` (decided by the caller).

    >>> ROUNDING_RULES["ACBL"]
    RoundingRule(name='ACBL', tie='away', places=2, body='ACBL')
    """

    name: str
    tie: str
    places: int = 0
    body: str | None = None  # the organisation whose practice this is, for organisation rules


_RULES = (
    RoundingRule("half_up", "up"),
    RoundingRule("half_down", "down"),
    RoundingRule("half_away", "away"),
    RoundingRule("half_even", "even"),
    RoundingRule("truncate", "truncate"),
    RoundingRule("favour_non_offending", "non_offending"),
    RoundingRule("ACBL", "away", 2, "ACBL"),
    RoundingRule("EBU", "even", 2, "EBU"),
)

#: Every rule by its name.
ROUNDING_RULES: Mapping[str, RoundingRule] = MappingProxyType({r.name: r for r in _RULES})
#: Other spellings accepted for a rule (compared case-insensitively, like the names).
ROUNDING_ALIASES: Mapping[str, str] = MappingProxyType({
    "away": "half_away",
    "nearest": "half_away",
    "half_away_from_zero": "half_away",
    "even": "half_even",
    "up": "half_up",
    "down": "half_down",
    "toward_zero": "truncate",
    "favor_non_offending": "favour_non_offending",
})
_BY_KEY = {**{k.casefold(): v for k, v in ROUNDING_RULES.items()},
           **{k.casefold(): ROUNDING_RULES[v] for k, v in ROUNDING_ALIASES.items()}}


def named_option(value: object, names: Iterable[str], what: str, *,
                 aliases: Mapping[str, str] | None = None, where: str | None = None) -> str:
    """The name among ``names`` that ``value`` spells: case-insensitive, surrounding spaces ignored.

    The one reader of every named option of the core (scales, rules, formulas, levels...), so that
    ``"NET"``, ``"Net"`` and ``" net "`` are one option everywhere. ``aliases`` maps other
    spellings to names (compared the same way). The message names the option by ``what`` and
    lists the names (never the aliases); ``where`` says where the value was given.

    >>> named_option(" Modified ", ("standard", "modified"), "Lehman formula")
    'modified'
    >>> named_option("2/1", ("EBU", "ACBL"), "matchpoint scale", aliases={"2/1": "EBU"})
    'EBU'
    >>> named_option("gross", ("net", "points"), "board-a-match scale")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: unknown board-a-match scale 'gross' (expected one of net, points)
    """
    names = tuple(names)
    key = value.strip().casefold() if isinstance(value, str) else None
    for name in names:
        if name.casefold() == key:
            return name
    if aliases is not None and key is not None:
        for alias, name in aliases.items():
            if alias.casefold() == key and name in names:
                return name
    raise InputError(f"unknown {what} {shown(value)} (expected one of {', '.join(names)})", where=where)


def rounding_rule(name: object, offered: Iterable[str] | None = None, *,
                  what: str = "rounding rule") -> RoundingRule:
    """The rule called ``name`` (case-insensitive, aliases accepted), if ``offered`` lists it.

    ``offered``: the rule names a function offers (``None``: every rule; an alias stands for its
    rule). The message lists the rules by their registry names.

    >>> rounding_rule("Nearest").name, rounding_rule("EVEN", ("half_even", "half_away")).name
    ('half_away', 'half_even')
    >>> rounding_rule("bankers")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: unknown rounding rule 'bankers' (expected one of half_up, half_down, half_away, half_even, truncate, favour_non_offending, ACBL, EBU)
    >>> rounding_rule("up", ("nearest", "favour_non_offending"), what="IMP rounding")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: unknown IMP rounding 'up' (expected one of half_away, favour_non_offending)
    """
    given = list(ROUNDING_RULES) if offered is None else list(offered)
    names = tuple(dict.fromkeys(_BY_KEY[n.casefold()].name for n in given))
    return ROUNDING_RULES[named_option(name, names, what, aliases=ROUNDING_ALIASES)]


def _rule(rule: RoundingRule | str) -> RoundingRule:
    return rule if isinstance(rule, RoundingRule) else rounding_rule(rule)


def _tie_up(tie: str, floor_q: int, negative: bool) -> bool:
    """Whether an exact half above ``floor_q`` goes up (to floor_q + 1)."""
    if tie == "up":
        return True
    if tie == "down":
        return False
    if tie == "away":
        return not negative
    if tie == "even":
        return floor_q % 2 == 1
    raise InputError(f"the rounding rule for {tie} ties needs its context (who offended)")


def _rounded_units(x: Fraction | int, r: RoundingRule, places: int) -> int:
    """``x`` rounded by ``r`` to a whole number of units of 10**-places."""
    scaled = Fraction(x) * Fraction(10) ** places  # places < 0 rounds to tens, hundreds, ...
    q = scaled.numerator // scaled.denominator  # floor
    rem = scaled - q  # 0 <= rem < 1
    if r.tie == "truncate":
        return q if (scaled >= 0 or rem == 0) else q + 1
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and _tie_up(r.tie, q, scaled < 0)):
        q += 1
    return q


def round_fraction(x: Fraction | int, rule: RoundingRule | str = "half_even", places: int = 0) -> Fraction:
    """Round an exact number to ``places`` decimals by a named rule; the result is exact.

    >>> round_fraction(Fraction(157, 2), "half_away"), round_fraction(Fraction(157, 2), "half_even")
    (Fraction(79, 1), Fraction(78, 1))
    >>> round_fraction(Fraction(-2019, 1000), "truncate", 2)
    Fraction(-201, 100)
    """
    return _rounded_units(x, _rule(rule), places) / Fraction(10) ** places


def round_quotients(num: npt.ArrayLike, den: npt.ArrayLike, rule: RoundingRule | str) -> npt.NDArray[np.int64]:
    """Round ``num / den`` element-wise to whole numbers (integer arrays, ``den > 0``), exactly.

    The vectorised form of :func:`round_fraction` for the numpy cores (Butler datums, instant
    awards): integer arithmetic only, no float anywhere.

    >>> round_quotients([5, -5, 7, 25], [2, 2, 2, 10], "half_even").tolist()
    [2, -2, 4, 2]
    >>> round_quotients([5, -5], 2, "half_up").tolist(), round_quotients([5, -5], 2, "half_away").tolist()
    ([3, -2], [3, -3])
    """
    r = _rule(rule)
    n = np.asarray(num, dtype=np.int64)
    d = np.asarray(den, dtype=np.int64)
    q, rem = np.divmod(n, d)  # floor division: 0 <= rem < d
    twice = 2 * rem
    if r.tie == "truncate":
        return np.where((n < 0) & (rem != 0), q + 1, q)
    if r.tie == "up":
        up = twice >= d
    elif r.tie == "down":
        up = twice > d
    elif r.tie == "away":
        up = (twice > d) | ((twice == d) & (n >= 0))
    elif r.tie == "even":
        up = (twice > d) | ((twice == d) & (q % 2 == 1))
    else:
        _tie_up(r.tie, 0, False)
        raise AssertionError("unreachable")  # pragma: no cover
    return np.asarray(q + up, dtype=np.int64)


def round_display(value: object, rule: str = "ACBL", places: int | None = None) -> Decimal:
    """Round an exact value once, for display, by a named rule; returns a ``Decimal``.

    ``rule`` names a rule of :data:`ROUNDING_RULES` (case-insensitive); ``places`` overrides
    its number of decimals (2 for the organisation rules, 2 for the others too). The exact
    value is rounded directly (never a float first), so ``Fraction(1, 200)`` is exactly
    ``.005`` and the ACBL rule takes it up; a float is read as its shortest decimal (2.675).

    >>> round_display(Fraction(1, 200), "ACBL"), round_display(Fraction(1, 200), "EBU")
    (Decimal('0.01'), Decimal('0.00'))
    >>> round_display(Fraction(1060, 11), "ACBL", 1)   # seed 001: 96.36... -> 96.4
    Decimal('96.4')
    >>> round_display(Fraction(-1, 200), "ACBL"), round_display(Fraction(-1, 200), "half_up")
    (Decimal('-0.01'), Decimal('0.00'))
    """
    r = rounding_rule(rule, [n for n in ROUNDING_RULES if n != "favour_non_offending"])
    if places is None:
        places = r.places if r.body is not None else 2
    if isinstance(places, bool) or not isinstance(places, int) or not 0 <= places <= 12:
        raise InputError(f"decimal places must be a whole number 0-12, got {shown(places)}")
    try:
        x = exact(value, "the value to round")
    except InputError as exc:
        raise InputError(f"cannot round {shown(value)}: not a number") from exc
    return Decimal(f"{_rounded_units(x, r, places)}E-{places}")  # exact: no context rounding


def format_display(value: object, rule: str = "ACBL", places: int | None = None) -> str:
    """Text of :func:`round_display` with exactly ``places`` decimals (``"51.85"``).

    >>> format_display(Fraction(2592704, 50000), "EBU")
    '51.85'
    >>> format_display(29, "EBU", 0)
    '29'
    """
    return str(round_display(value, rule, places))
