"""Display rounding by named rules, and rank labels ("3=" for exact ties).

xlbridge computes matchpoints, factored and weighted scores, totals and percentages exactly
(``fractions.Fraction``) and decides ranks and ties on the exact values.  Rounding is applied
once, at the end, for display only, by one of the named rules in :data:`ROUNDING_RULES`.

>>> from fractions import Fraction
>>> round_display(Fraction(2592704, 50000))       # 51.85408 (seed 001, section 7)
Decimal('51.85')
>>> round_display(Fraction(1, 200), "ACBL")        # .005 goes up
Decimal('0.01')
>>> format_rank(3, True)
'3='
"""

from __future__ import annotations

from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

from .errors import InputError

__all__ = ["ROUNDING_RULES", "round_display", "format_display", "format_rank"]

#: Named display-rounding rules: name -> (decimal rounding mode, default number of decimals).
#:
#: - ``"ACBL"``: hundredths, a final ``.005`` rounded up (away from zero); ACBLscore practice
#:   for percentages and matchpoint totals (REFERENCE.md, "Rounding").
#: - ``"EBU"``: no rounding during the calculation (ties are decided on exact values); for
#:   display, two decimals rounded half to even.  The EBU does not prescribe a display rule;
#:   half-even is chosen so that an exact ``.xx5`` (rare: it needs an exact binary-free tie)
#:   is not systematically pushed up.
#: - ``"half_up"``, ``"half_even"``, ``"truncate"``: the plain rules, two decimals by default.
ROUNDING_RULES = {
    "ACBL": (ROUND_HALF_UP, 2),
    "EBU": (ROUND_HALF_EVEN, 2),
    "HALF_UP": (ROUND_HALF_UP, 2),
    "HALF_EVEN": (ROUND_HALF_EVEN, 2),
    "TRUNCATE": (ROUND_DOWN, 2),
}


def _exact(value) -> Fraction:
    """An exact Fraction of ``value``; a float is read as its shortest decimal repr (0.1 -> 1/10)."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, bool) or value is None:
        raise InputError(f"cannot round {value!r}: not a number")
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InputError(f"cannot round {value!r}: not a finite number")
        return Fraction(repr(value))
    try:
        return Fraction(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"cannot round {value!r}: not a number") from exc


def round_display(value, rule: str = "ACBL", places: int | None = None) -> Decimal:
    """Round an exact value once, for display, by a named rule; returns a ``Decimal``.

    ``rule`` is a key of :data:`ROUNDING_RULES` (case-insensitive); ``places`` overrides the
    rule's number of decimals.  The exact value is rounded directly (never a float first), so
    ``Fraction(1, 200)`` is exactly ``.005`` and the ACBL rule takes it up.

    >>> round_display(Fraction(1, 200), "ACBL"), round_display(Fraction(1, 200), "EBU")
    (Decimal('0.01'), Decimal('0.00'))
    >>> round_display(Fraction(1060, 11), "ACBL", 1)   # seed 001: 96.36... -> 96.4
    Decimal('96.4')
    >>> round_display(Fraction(-1, 200), "ACBL")
    Decimal('-0.01')
    """
    key = rule.upper() if isinstance(rule, str) else rule
    if key not in ROUNDING_RULES:
        raise InputError(f"unknown rounding rule {rule!r} (expected one of {', '.join(ROUNDING_RULES)})")
    mode, default_places = ROUNDING_RULES[key]
    if places is None:
        places = default_places
    if isinstance(places, bool) or not isinstance(places, int) or not 0 <= places <= 12:
        raise InputError(f"places must be a whole number 0-12, got {places!r}")
    x = _exact(value)
    quantum = Decimal(1).scaleb(-places)
    with localcontext() as ctx:
        ctx.prec = 200
        # Enough digits to hold the decision exactly: scale, split, and compare the remainder.
        scaled = x * 10**places
        whole = scaled.numerator // scaled.denominator  # floor
        rem = scaled - whole  # 0 <= rem < 1
        if mode == ROUND_DOWN:
            q = whole if (x >= 0 or rem == 0) else whole + 1  # toward zero
        elif rem == Fraction(1, 2):
            if mode == ROUND_HALF_UP:
                q = whole + 1 if x > 0 else whole  # away from zero
            else:
                q = whole if whole % 2 == 0 else whole + 1
        else:
            q = whole + 1 if rem > Fraction(1, 2) else whole
        return (Decimal(q) * quantum).quantize(quantum)


def format_display(value, rule: str = "ACBL", places: int | None = None) -> str:
    """Text of :func:`round_display` with exactly ``places`` decimals (``"51.85"``).

    >>> format_display(Fraction(2592704, 50000), "EBU")
    '51.85'
    >>> format_display(29, "EBU", 0)
    '29'
    """
    return str(round_display(value, rule, places))


def format_rank(rank: int, tied: bool) -> str:
    """Rank label: ``"3"``, or ``"3="`` when the place is shared by an exact tie.

    >>> format_rank(1, False), format_rank(2, True)
    ('1', '2=')
    """
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        raise InputError(f"rank must be a whole number 1 or more, got {rank!r}")
    return f"{rank}=" if tied else str(rank)
