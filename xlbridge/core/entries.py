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

import re
from dataclasses import dataclass
from fractions import Fraction

from .errors import InputError

__all__ = ["Artificial", "NotPlayed", "NOT_PLAYED", "parse_entry", "parse_entries", "Entry"]


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

    def __post_init__(self):
        for name in ("ns", "ew"):
            v = getattr(self, name)
            if not isinstance(v, Fraction):
                if isinstance(v, bool) or v is None:
                    raise InputError(f"artificial score percentage must be a number, got {v!r} for {name.upper()}")
                try:
                    object.__setattr__(self, name, Fraction(v))
                except (TypeError, ValueError, OverflowError):
                    raise InputError(
                        f"artificial score percentage must be a number, got {v!r} for {name.upper()}"
                    ) from None
            if not 0 <= getattr(self, name) <= 100:
                raise InputError(f"artificial score percentage must be 0-100, got {v!r} for {name.upper()}")

    @classmethod
    def parse(cls, text: str, *, where: str | None = None) -> "Artificial":
        """Read ``A60/40``, ``A50/50``, ``A+``, ``A=``, ``A-`` (also ``AVE+``, ``AVE``, ``AVE-``).

        >>> Artificial.parse("A57.5/42.5"), Artificial.parse("ave-")
        (Artificial(ns=Fraction(115, 2), ew=Fraction(85, 2)), Artificial(ns=Fraction(40, 1), ew=Fraction(60, 1)))
        """
        t = text.strip().upper().replace(" ", "")
        if t in _SHORT:
            ns, ew = _SHORT[t]
            return cls(Fraction(ns), Fraction(ew))
        m = _ART_RE.match(t)
        if not m:
            raise InputError(
                f"cannot read artificial score {text!r} (expected e.g. A60/40, A50/50, A+, A=, A-)", where=where
            )
        return cls(Fraction(m.group(1)), Fraction(m.group(2)))

    def __str__(self) -> str:
        def f(x):
            return str(x.numerator) if x.denominator == 1 else str(float(x))
        return f"A{f(self.ns)}/{f(self.ew)}"


class NotPlayed:
    """The board was not played at this table: no result and no score (``NP``).

    There is one instance, :data:`NOT_PLAYED`.

    >>> NotPlayed() is NOT_PLAYED, str(NOT_PLAYED)
    (True, 'NP')
    """

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOT_PLAYED"

    def __str__(self) -> str:
        return "NP"

    def __reduce__(self):
        return (NotPlayed, ())


NOT_PLAYED = NotPlayed()

Entry = int | Artificial | NotPlayed

_SHORT = {
    "A+": (60, 40), "AVE+": (60, 40), "AVG+": (60, 40),
    "A=": (50, 50), "A": (50, 50), "AVE": (50, 50), "AVG": (50, 50), "AVE=": (50, 50),
    "A-": (40, 60), "AVE-": (40, 60), "AVG-": (40, 60),
}
_ART_RE = re.compile(r"^A(\d+(?:\.\d+)?)%?/(\d+(?:\.\d+)?)%?$")
_NUM_RE = re.compile(r"^[+-]?\d+(?:\.0*)?$")


def parse_entry(value, *, where: str | None = None):
    """Read one score cell: ``int`` N-S score, :class:`Artificial`, ``NOT_PLAYED``, or ``None`` if blank.

    Numbers may arrive as floats (Excel) or text (``"+420"``); they must be whole multiples of 10.
    Whether the score is legal on the board is checked separately (:func:`xlbridge.contract.check_score`).

    >>> parse_entry("-50")
    -50
    >>> parse_entry("hello", where="board 2, row 3")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: board 2, row 3: cannot read score 'hello' (expected a number like 420 or -50, an artificial score like A60/40, or NP)
    """
    if value is None or isinstance(value, (Artificial, NotPlayed)):
        return value
    if isinstance(value, bool):
        raise InputError(f"cannot read score {value!r} (a TRUE/FALSE value is not a score)", where=where)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")) or not value.is_integer():
            raise InputError(f"impossible score: {value!r} (not a whole number of points)", where=where)
        value = int(value)
    if hasattr(value, "dtype") and hasattr(value, "item"):  # numpy scalar
        return parse_entry(value.item(), where=where)
    if isinstance(value, int):
        if value % 10:
            raise InputError(f"impossible score: {value!r} (bridge scores are multiples of 10)", where=where)
        return value
    if isinstance(value, str):
        t = value.strip()
        if not t:
            return None
        up = t.upper()
        if up in ("NP", "N/P", "NOT PLAYED"):
            return NOT_PLAYED
        if up.startswith("A"):
            return Artificial.parse(t, where=where)
        if _NUM_RE.match(t):
            return parse_entry(int(float(t)), where=where)
    raise InputError(
        f"cannot read score {value!r} (expected a number like 420 or -50, an artificial score like A60/40, or NP)",
        where=where,
    )


def parse_entries(values, *, where_prefix: str | None = None) -> list:
    """Read a column of score cells; errors name the 1-based row.

    >>> parse_entries([420, "A+", None, "NP"])
    [420, Artificial(ns=Fraction(60, 1), ew=Fraction(40, 1)), None, NOT_PLAYED]
    """
    out = []
    for i, v in enumerate(values, start=1):
        where = f"{where_prefix}, row {i}" if where_prefix else f"row {i}"
        out.append(parse_entry(v, where=where))
    return out
