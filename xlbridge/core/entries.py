"""Score entries on a traveller: a plain N-S score, an artificial adjusted score, or "not played".

A score cell holds a number (N-S points), an artificial adjusted score ``A<ns>/<ew>`` in
percent of the full top (Law 12C2: average-plus 60, average 50, average-minus 40; shorthands
``A+`` = 60/40, ``A=`` = 50/50, ``A-`` = 40/60), or ``NP`` (not played). Blank cells are ``None``.

>>> parse_entry("A60/40")
Artificial(ns=Fraction(60, 1), ew=Fraction(40, 1))
>>> parse_entry(420.0)
420
>>> parse_entry("NP") is NOT_PLAYED
True
>>> parse_entry("  ") is None
True
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeAlias

from .errors import ImpossibleScoreError, InputError, LimitError, shown
from .numbers import MAX_TEXT_LENGTH, exact, number_text, plain

__all__ = ["Artificial", "NotPlayed", "NOT_PLAYED", "parse_entry", "parse_entries", "Entry", "MAX_SCORE_READ"]

#: The largest score magnitude read at all. Every bridge score is at most 7,600; with the legality
#: check switched off other multiples of 10 pass, but never one that could overflow int64.
MAX_SCORE_READ = 10**15


def too_large(value: object, where: str | None = None) -> ImpossibleScoreError:
    """The error for a score beyond :data:`MAX_SCORE_READ` (returned, for the caller to raise)."""
    return ImpossibleScoreError(f"impossible score: {shown(value)} (far too large for a bridge score)", where=where)


@dataclass(frozen=True)
class Artificial:
    """An artificial adjusted score: N-S and E-W each get a percentage of the full top.

    >>> Artificial.parse("A+")
    Artificial(ns=Fraction(60, 1), ew=Fraction(40, 1))
    >>> str(Artificial(Fraction(60), Fraction(60)))
    'A60/60'
    """

    ns: Fraction
    ew: Fraction

    def __post_init__(self) -> None:
        for name in ("ns", "ew"):
            v = getattr(self, name)
            if not isinstance(v, Fraction):
                try:
                    object.__setattr__(self, name, exact(v))
                except InputError:
                    raise InputError(
                        f"artificial score percentage must be a number, got {shown(v)} for {name.upper()}"
                    ) from None
            if not 0 <= getattr(self, name) <= 100:
                raise InputError(f"artificial score percentage must be 0-100, got {shown(v)} for {name.upper()}")

    @classmethod
    def parse(cls, text: str, *, where: str | None = None) -> "Artificial":
        """Read ``A60/40``, ``A50/50``, ``A+``, ``A=``, ``A-`` (also ``AVE+``, ``AVE``, ``AVE-``).

        >>> Artificial.parse("A57.5/42.5"), Artificial.parse("ave-")
        (Artificial(ns=Fraction(115, 2), ew=Fraction(85, 2)), Artificial(ns=Fraction(40, 1), ew=Fraction(60, 1)))
        """
        if len(text) > MAX_TEXT_LENGTH:
            raise LimitError(f"artificial score {shown(text)} is longer than {MAX_TEXT_LENGTH} characters: not read",
                             where=where)
        t = text.strip().upper().replace(" ", "")
        if t in _SHORT:
            ns, ew = _SHORT[t]
            return cls(Fraction(ns), Fraction(ew))
        m = _ART_RE.match(t)
        if not m:
            raise InputError(
                f"cannot read artificial score {shown(text)} (expected e.g. A60/40, A50/50, A+, A=, A-)", where=where
            )
        return cls(Fraction(m.group(1)), Fraction(m.group(2)))

    def __str__(self) -> str:
        def f(x: Fraction) -> str:
            return str(x.numerator) if x.denominator == 1 else str(float(x))
        return f"A{f(self.ns)}/{f(self.ew)}"


class NotPlayed:
    """The board was not played at this table: no result and no score (``NP``).

    There is one instance, :data:`NOT_PLAYED`.

    >>> NotPlayed() is NOT_PLAYED, str(NOT_PLAYED)
    (True, 'NP')
    """

    _instance: NotPlayed | None = None

    def __new__(cls) -> NotPlayed:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOT_PLAYED"

    def __str__(self) -> str:
        return "NP"

    def __reduce__(self) -> tuple[type[NotPlayed], tuple[()]]:
        return (NotPlayed, ())


NOT_PLAYED = NotPlayed()

#: A score cell as read: an N-S score, an artificial score, or not played (blank is ``None``).
Entry: TypeAlias = int | Artificial | NotPlayed

_SHORT = {
    "A+": (60, 40), "AVE+": (60, 40), "AVG+": (60, 40),
    "A=": (50, 50), "A": (50, 50), "AVE": (50, 50), "AVG": (50, 50), "AVE=": (50, 50),
    "A-": (40, 60), "AVE-": (40, 60), "AVG-": (40, 60),
}
_ART_RE = re.compile(r"^A(\d+(?:\.\d+)?)%?/(\d+(?:\.\d+)?)%?$")
_NUM_RE = re.compile(r"^[+-]?\d+(?:\.0*)?$")


def parse_entry(value: object, *, where: str | None = None) -> Entry | None:
    """Read one score cell: ``int`` N-S score, :class:`Artificial`, ``NOT_PLAYED``, or ``None`` if blank.

    Numbers may arrive as floats (Excel), whole Fractions or text (``"+420"``); they must be whole
    multiples of 10, at most :data:`MAX_SCORE_READ` in size (so never an int64 wrap-around).
    Whether the score is legal on the board is checked separately (:func:`xlbridge.core.contract.check_score`).

    >>> parse_entry("-50")
    -50
    >>> parse_entry("hello", where="board 2, row 3")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: board 2, row 3: cannot read score 'hello' (expected a number like 420 or -50, an artificial score like A60/40, or NP)
    """
    if value is None or isinstance(value, (Artificial, NotPlayed)):
        return value
    value = plain(value)
    if isinstance(value, bool):
        raise InputError(f"cannot read score {shown(value)} (a TRUE/FALSE value is not a score)", where=where)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InputError(f"cannot read score {shown(value)} (not a number)", where=where)
        if not value.is_integer():
            raise ImpossibleScoreError(f"impossible score: {shown(value)} (not a whole number of points)", where=where)
        if abs(value) > MAX_SCORE_READ:
            raise too_large(value, where)
        value = int(value)
    if isinstance(value, numbers.Rational) and not isinstance(value, int):  # Fraction(420): the number it is
        if value.denominator != 1:
            raise ImpossibleScoreError(f"impossible score: {shown(value)} (not a whole number of points)", where=where)
        value = int(value.numerator)
    if isinstance(value, int):
        if not -MAX_SCORE_READ <= value <= MAX_SCORE_READ:
            raise too_large(value, where)
        if value % 10:
            raise ImpossibleScoreError(f"impossible score: {shown(value)} (bridge scores are multiples of 10)",
                                       where=where)
        return value
    if isinstance(value, str):
        t = value.strip()
        if not t:
            return None
        up = t.upper()
        if up in ("NP", "N/P", "NOT PLAYED"):
            return NOT_PLAYED
        if up.startswith("A") and ("/" in up or up.replace(" ", "") in _SHORT):  # "abc" is no artificial score
            return Artificial.parse(t, where=where)
        if _NUM_RE.match(t):
            v = number_text(t, "score", where=where)  # bounded: digits and length
            assert v is not None
            return parse_entry(int(v), where=where)
    raise InputError(
        f"cannot read score {shown(value)} (expected a number like 420 or -50, an artificial score like A60/40, or NP)",
        where=where,
    )


def parse_entries(values: Iterable[object], *, where_prefix: str | None = None) -> list[Entry | None]:
    """Read a column of score cells; errors name the 1-based row.

    >>> parse_entries([420, "A+", None, "NP"])
    [420, Artificial(ns=Fraction(60, 1), ew=Fraction(40, 1)), None, NOT_PLAYED]
    """
    out = []
    for i, v in enumerate(values, start=1):
        where = f"{where_prefix}, row {i}" if where_prefix else f"row {i}"
        out.append(parse_entry(v, where=where))
    return out
