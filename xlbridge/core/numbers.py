"""Exact reading of numbers: the one place where a cell, a float or a text becomes a number.

xlbridge decides ranks and ties on exact values, so numbers are read exactly:

* an ``int`` (or numpy integer) is itself; ``True``/``False`` and ``None`` are not numbers;
* a ``float`` is read through its shortest decimal text, ``Fraction(repr(x))``, so the 13.4 a
  spreadsheet shows is 67/5, not the binary double next to it; NaN and infinities are refused;
* a ``Fraction`` or finite ``Decimal`` is itself;
* text is a decimal number (``"420"``, ``"-2.75"``, ``"1.5e3"``, ``" +7 "``) or a ratio
  (``"3/5"``), read exactly and **bounded**: at most :data:`MAX_TEXT_LENGTH` characters,
  :data:`MAX_DIGITS` digits and an exponent of at most :data:`MAX_EXPONENT` either way, so a
  cell holding ``1e99999999`` is refused at once instead of building a hundred-million-digit
  integer.

Errors are :class:`~xlbridge.core.errors.InputError` (:class:`~xlbridge.core.errors.LimitError`
for the bounds) with one-line messages that show the value clipped.

>>> exact(13.4), exact("3/5"), exact(" -2.75 ")
(Fraction(67, 5), Fraction(3, 5), Fraction(-11, 4))
>>> whole(7.0, "boards", minimum=1)
7
>>> exact("1e99999999", "a points difference")
Traceback (most recent call last):
...
xlbridge.core.errors.LimitError: a points difference '1e99999999' has an exponent beyond 400: not read
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction
from numbers import Integral, Rational, Real
from typing import TypeAlias

from .errors import InputError, LimitError, shown

__all__ = ["MAX_TEXT_LENGTH", "MAX_DIGITS", "MAX_EXPONENT", "number_text", "exact", "exact_or_int", "whole"]
# also public, for the other core modules (not exported by ``xlbridge``): plain, is_blank,
# finite_float, as_exact, Number

#: The longest text read as a number (spaces included).
MAX_TEXT_LENGTH = 200
#: The most digits a number written as text may have (a 16-digit weight denominator is fine).
MAX_DIGITS = 100
#: The largest decimal exponent a number written as text may have, either way (doubles end near 308).
MAX_EXPONENT = 400

#: An exact number as the core returns it: an ``int`` when whole, else a ``Fraction``.
Number: TypeAlias = int | Fraction

_DECIMAL_RE = re.compile(r"^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$")
_RATIO_RE = re.compile(r"^([+-]?\d+)\s*/\s*([+-]?\d+)$")


def plain(value: object) -> object:
    """A numpy scalar as the Python scalar it holds (``np.int64(7)`` -> 7); anything else unchanged.

    >>> import numpy as np
    >>> plain(np.float64(2.5)), plain("x")
    (2.5, 'x')
    """
    item = getattr(value, "item", None)
    if item is not None and hasattr(value, "dtype") and getattr(value, "ndim", 0) == 0:
        return item()
    return value


def is_blank(value: object) -> bool:
    """True for an empty cell: ``None``, NaN, or text of only spaces.

    >>> is_blank(None), is_blank("  "), is_blank(float("nan")), is_blank(0)
    (True, True, True, False)
    """
    kind = type(value)  # (the plain kinds first, without plain()'s attribute lookups: a column is many calls)
    if value is None:
        return True
    if kind is float:
        return value != value
    if kind is str:
        return not str.strip(value)  # type: ignore[arg-type]  # (kind is str: mypy does not narrow on it)
    if kind is int or kind is bool:
        return False
    value = plain(value)
    if value is None:  # (a numpy 0-d array holding None)
        return True
    if isinstance(value, float):
        return value != value
    return isinstance(value, str) and not value.strip()


def _limit(what: str, text: str, why: str, where: str | None = None) -> LimitError:
    return LimitError(f"{what} {shown(text)} {why}: not read", where=where)


def number_text(text: str, what: str = "number", *, where: str | None = None) -> Fraction | None:
    """The exact value of a number written as text, or ``None`` if the text is not a number.

    Decimal (``"-2.75"``, ``"1.5E3"``) or ratio (``"3/5"``) notation, surrounding spaces allowed.
    Over-long text, too many digits or a huge exponent raise :class:`LimitError` (bounded work).

    >>> number_text("1.5e3"), number_text("3/5"), number_text("four")
    (Fraction(1500, 1), Fraction(3, 5), None)
    >>> number_text("1" * 1000, "score")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.LimitError: score '11111111111111111111…' (1,000 characters) is longer than 200 characters: not read
    """
    if len(text) > MAX_TEXT_LENGTH:
        raise _limit(what, text, f"is longer than {MAX_TEXT_LENGTH} characters", where)
    t = text.strip()
    m = _DECIMAL_RE.match(t)
    if m is not None:
        sign, whole_digits, frac_digits, exponent = m.groups()
        frac_digits = frac_digits or ""
        if not whole_digits and not frac_digits:
            return None
        if len(whole_digits) + len(frac_digits) > MAX_DIGITS:
            raise _limit(what, text, f"has more than {MAX_DIGITS} digits", where)
        if exponent is not None and abs(int(exponent)) > MAX_EXPONENT:
            raise _limit(what, text, f"has an exponent beyond {MAX_EXPONENT}", where)
        value = Fraction(int(whole_digits + frac_digits or "0"), 10 ** len(frac_digits))
        if exponent is not None:
            value *= Fraction(10) ** int(exponent)
        return -value if sign == "-" else value
    m = _RATIO_RE.match(t)
    if m is not None:
        num, den = m.groups()
        if len(num) + len(den) > MAX_DIGITS:
            raise _limit(what, text, f"has more than {MAX_DIGITS} digits", where)
        if int(den) == 0:
            return None
        return Fraction(int(num), int(den))
    return None


def _not_a_number(value: object, what: str, where: str | None, detail: str = "a number") -> InputError:
    got = f"text {shown(value)}" if isinstance(value, str) else shown(value)
    return InputError(f"{what} must be {detail}, got {got}", where=where)


def exact(value: object, what: str = "value", *, where: str | None = None) -> Fraction:
    """The exact value of a number given as an int, Fraction, Decimal, float or text.

    ``what`` names the value in the message (``"IMP margin must be a number, got 'x'"``).

    >>> exact(2.75), exact(7), exact("12.5")
    (Fraction(11, 4), Fraction(7, 1), Fraction(25, 2))
    >>> exact(float("nan"), "matchpoints")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: matchpoints must be a finite number, got nan
    """
    value = plain(value)
    if isinstance(value, bool) or value is None:
        raise _not_a_number(value, what, where)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, Integral):
        return Fraction(int(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _not_a_number(value, what, where, "a finite number")
        return Fraction(repr(value))
    if isinstance(value, str):
        v = number_text(value, what, where=where)
        if v is None:
            raise _not_a_number(value, what, where)
        return v
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise _not_a_number(value, what, where, "a finite number")
        sign, digits, exponent = value.as_tuple()
        if len(digits) > MAX_DIGITS or abs(int(exponent)) > MAX_EXPONENT:
            raise _limit(what, str(value), "is beyond the digits or exponent read", where)
        return Fraction(value)
    if isinstance(value, Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if isinstance(value, Real):  # another float type
        return exact(float(value), what, where=where)
    raise _not_a_number(value, what, where)


def exact_or_int(value: object, what: str = "value", *, where: str | None = None) -> Number:
    """:func:`exact`, returned as an ``int`` when whole.

    >>> exact_or_int(16.0), exact_or_int("2.75")
    (16, Fraction(11, 4))
    """
    v = exact(value, what, where=where)
    return int(v.numerator) if v.denominator == 1 else v


def _range_text(minimum: object, maximum: object) -> str:
    if minimum is not None and maximum is not None:
        return f" from {minimum} to {maximum:,}" if isinstance(maximum, int) else f" from {minimum} to {maximum}"
    if minimum is not None:
        return f" {minimum} or more"
    if maximum is not None:
        return f" {maximum:,} or less" if isinstance(maximum, int) else f" {maximum} or less"
    return ""


def whole(value: object, what: str = "value", *, where: str | None = None, minimum: int | None = None,
          maximum: int | None = None) -> int:
    """A whole number (``7``, ``7.0``, ``"7"``), within ``minimum``..``maximum`` when given.

    >>> whole("12", "boards"), whole(-3.0, "margin")
    (12, -3)
    >>> whole(6.5, "boards", minimum=1)
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: boards must be a whole number 1 or more, got 6.5
    >>> whole(10 ** 9, "boards", minimum=1, maximum=1000)
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: boards must be a whole number from 1 to 1,000, got 1000000000
    """
    detail = "a whole number" + _range_text(minimum, maximum)
    try:
        v = exact(value, what, where=where)
    except LimitError:
        raise
    except InputError:
        v = None
    if v is None or v.denominator != 1:
        raise _not_a_number(value, what, where, detail)
    n = int(v.numerator)
    if (minimum is not None and n < minimum) or (maximum is not None and n > maximum):
        raise _not_a_number(value, what, where, detail)
    return n


def finite_float(value: object, what: str = "value", *, where: str | None = None,
                 minimum: float | None = None, maximum: float | None = None) -> float:
    """A finite float (for the rating formulas, which are not exact), within the bounds when given.

    Text is not a number here (the Excel layer reads cells before calling the core).

    >>> finite_float(45), finite_float(0.5, "error bound", minimum=0, maximum=1)
    (45.0, 0.5)
    >>> finite_float("45", "rating")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: rating must be a number, got text '45'
    """
    value = plain(value)
    if isinstance(value, (bool, str)) or value is None:
        raise _not_a_number(value, what, where)
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise _not_a_number(value, what, where) from None
    if not math.isfinite(x):
        raise _not_a_number(value, what, where, "a finite number")
    if (minimum is not None and x < minimum) or (maximum is not None and x > maximum):
        raise _not_a_number(value, what, where, "a number" + _range_text(minimum, maximum))
    return x


def as_exact(value: Number | Fraction) -> Number:
    """An exact value as the core returns it: ``int`` when whole, else the ``Fraction``.

    >>> as_exact(Fraction(6, 2)), as_exact(Fraction(1, 3))
    (3, Fraction(1, 3))
    """
    if isinstance(value, Fraction) and value.denominator == 1:
        return int(value.numerator)
    return value
