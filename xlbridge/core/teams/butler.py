"""Butler scoring: IMPs against a datum, the trimmed mean of a board's scores rounded to 10.

- :func:`butler_datum` / :func:`butler`: the datum of a board, and every row's IMPs against it;
  which scores are trimmed (:data:`BUTLER_TRIMS`, or a whole number) and how a mean ending in
  exactly 5 is rounded (:data:`BUTLER_ROUNDINGS`, rules of :mod:`xlbridge.core.rounding`) are
  named options.
- :func:`butler_datums`: the numpy core (one row per board), fast on thousands of boards.

Scores must be legal on their board (as for every scorer; ``check_legal=False`` switches that off).

>>> butler_datum([420, 420, 400, 170, -50], trim="topbottom")
330
>>> [str(x) for x in butler([420, 400, 170, -50]).ns]
['5', '4', '-2', '-7']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from ..entries import Artificial, parse_entry
from ..errors import InputError, shown
from ..numbers import number_text, plain, whole
from ..rounding import named_option, round_quotients, rounding_rule
from .imps import artificial_imps, check_score_matrix, imps_array, traveller_rows, traveller_matrix

__all__ = [
    "BUTLER_TRIMS",
    "BUTLER_ROUNDINGS",
    "butler_trim_count",
    "butler_datum",
    "butler_datums",
    "Butler",
    "butler",
]

#: Trim rules for the Butler datum (see :func:`butler_trim_count`); a whole number k is also accepted.
BUTLER_TRIMS = ("acbl", "topbottom", "count", "none")
#: Rounding rules offered for a trimmed mean ending in exactly 5 (:mod:`xlbridge.core.rounding`;
#: ``"even"`` and ``"away"`` are accepted as aliases of the first two).
BUTLER_ROUNDINGS = ("half_even", "half_away", "half_up")


def butler_trim_count(n: int, trim: object = "acbl") -> int:
    """How many scores the Butler datum drops at EACH end of ``n`` scores.

    - ``"acbl"``: 5 % at each end, rounded to the nearest whole score (a half rounded up):
      ``floor(n / 20 + 1/2)``, so nothing below 10 scores, 1 for 10-29, 2 for 30-49 ...
      (ACBL practice is "5 % at each end"; the rounding is our documented choice).
    - ``"topbottom"``: the single highest and lowest score (from 3 scores up).
    - ``"count"``: a count that grows with the field: 1 per 10 scores, at least 1 from 3 scores
      up (``max(1, n // 10)``): 3-19 -> 1, 20-29 -> 2, ...
    - ``"none"``: nothing (plain mean).  A whole number ``k`` (``2``, ``2.0``, ``"2"``) drops ``k``
      at each end.

    At least one score is always kept: ``k <= (n - 1) // 2``.

    >>> [butler_trim_count(n, "acbl") for n in (9, 10, 29, 30)]
    [0, 1, 1, 2]
    >>> [butler_trim_count(n, "topbottom") for n in (2, 3, 40)]
    [0, 1, 1]
    >>> [butler_trim_count(n, "count") for n in (2, 3, 19, 20, 35)]
    [0, 1, 1, 2, 3]
    """
    k = _trim_counts(np.array([n], dtype=np.int64), trim)
    return int(k[0])


def trim_rule(trim: object) -> str | int:
    """A trim rule as given (a name of :data:`BUTLER_TRIMS`, case-insensitive) or a whole number 0 or more.

    >>> trim_rule("ACBL"), trim_rule(1.0), trim_rule(" 2 ")
    ('acbl', 1, 2)
    """
    trim = plain(trim)
    if isinstance(trim, str):
        try:
            return named_option(trim, BUTLER_TRIMS, "Butler trim")
        except InputError:
            pass  # a whole number as text, or the message below
        try:
            number = number_text(trim)
        except InputError:
            number = None
        if number is not None and number.denominator == 1 and number >= 0:
            return int(number)
    elif not isinstance(trim, bool) and isinstance(trim, (int, float)):
        if float(trim).is_integer() and trim >= 0:
            return int(trim)
    raise InputError(f"unknown Butler trim {shown(trim)} (expected one of {', '.join(BUTLER_TRIMS)}, "
                     "or a whole number 0 or more)")


def _trim_counts(n: npt.NDArray[np.int64], trim: object) -> npt.NDArray[np.int64]:
    rule = trim_rule(trim)
    if rule == "acbl":
        k = (n + 10) // 20
    elif rule == "topbottom":
        k = np.where(n >= 3, 1, 0)
    elif rule == "count":
        k = np.where(n >= 3, np.maximum(1, n // 10), 0)
    elif rule == "none":
        k = np.zeros_like(n)
    else:
        assert isinstance(rule, int)
        k = np.full_like(n, min(rule, 2 ** 62))
    return np.minimum(k, np.maximum((n - 1) // 2, 0))


def _round_ten(total: npt.NDArray[np.int64], count: npt.NDArray[np.int64], rounding: object) -> npt.NDArray[np.int64]:
    """Round total / count to a multiple of 10, exactly, with the named rule for a final 5."""
    rule = rounding_rule(rounding, BUTLER_ROUNDINGS, what="Butler rounding")
    return 10 * round_quotients(total, 10 * count, rule)


def butler_datums(scores: npt.ArrayLike, present: npt.ArrayLike | None = None, *, trim: object = "acbl",
                  rounding: str = "half_even", check_legal: bool = True,
                  ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Butler datums of many boards at once (numpy core): one row of N-S scores per board.

    Missing results are NaN or ``False`` in ``present``.  Returns ``(datums, counts)``: int64
    datums (0 where a board has no result) and the number of results per board.  Exact
    integer arithmetic (see :func:`butler_datum`). A score no contract and result gives (at any
    vulnerability, Law 77) is refused unless ``check_legal`` is False (then any whole number
    up to :data:`~xlbridge.core.entries.MAX_SCORE_READ` counts).

    >>> d, a = butler_datums([[420, 420, 400, 170, -50], [430, 0, 0, 0, 0]], trim="none")
    >>> d.tolist(), a.tolist()
    ([270, 90], [5, 5])
    >>> butler_datums([[425, 0, 0, 0, 0]], trim="none", check_legal=False)[0].tolist()
    [80]
    """
    trim_rule(trim)  # the options first: a bad one is named before any score is read
    S, present = check_score_matrix(scores, present, check_legal=check_legal)
    B, n = S.shape
    counts = present.sum(axis=1).astype(np.int64)
    if B == 0:
        return np.zeros(0, dtype=np.int64), counts
    big = int(np.abs(S).max(initial=0)) + 1
    srt = np.sort(np.where(present, S, big), axis=1)  # missing at the end of each row
    csum = np.concatenate([np.zeros((B, 1), dtype=np.int64), np.cumsum(srt, axis=1)], axis=1)
    k = _trim_counts(counts, trim)
    lo, hi = k, counts - k
    total = np.take_along_axis(csum, hi[:, None], 1)[:, 0] - np.take_along_axis(csum, lo[:, None], 1)[:, 0]
    m = np.maximum(hi - lo, 1)
    d = _round_ten(total, m, rounding)
    d = np.where(counts > 0, d, 0)
    return d, counts


def butler_datum(scores: Iterable[object], *, trim: object = "acbl", rounding: str = "half_even",
                 check_legal: bool = True) -> int:
    """The Butler datum of one board: the trimmed mean of its N-S scores, rounded to 10.

    Only real scores count (artificial scores, ``NP`` and blanks are ignored).  ``trim`` is one
    of :data:`BUTLER_TRIMS` (see :func:`butler_trim_count`; default ``"acbl"``, 5 % at each end).
    ``rounding`` decides a trimmed mean ending in exactly 5 (REFERENCE.md), by a rule of
    :mod:`xlbridge.core.rounding`:

    - ``"half_even"`` (default, ACBL; alias ``"even"``): to the even ten, 425 -> 420, 435 -> 440,
      -425 -> -420;
    - ``"half_away"`` (alias ``"away"``): away from zero, the average (passed-out) score:
      425 -> 430, -425 -> -430;
    - ``"half_up"``: upwards (towards +infinity), 425 -> 430, -425 -> -420.

    Any other mean goes to the nearest ten.  Exact: the sum and count are integers.  A score no
    contract gives at any vulnerability is refused (``check_legal=False``: any multiple of 10).

    >>> butler_datum([420, 430], trim="none"), butler_datum([430, 440], trim="none")
    (420, 440)
    >>> butler_datum([420, 430], trim="none", rounding="away"), butler_datum([-420, -430], trim="none", rounding="away")
    (430, -430)
    >>> butler_datum([-420, -430], trim="none", rounding="half_up")
    -420
    """
    trim_rule(trim)  # the options first: a bad one is named before any score is read
    rounding_rule(rounding, BUTLER_ROUNDINGS, what="Butler rounding")
    parsed, _, _ = traveller_rows(scores, None, check_legal=check_legal)
    real = [e for e in parsed if isinstance(e, int)]
    if not real:
        raise InputError("no scores on the board to make a Butler datum from (only blanks, NP or artificial scores)")
    d, _ = butler_datums(np.array([real], dtype=np.int64), trim=trim, rounding=rounding, check_legal=False)
    return int(d[0])


@dataclass(frozen=True)
class Butler:
    """Per-row Butler IMPs (``ns``, ``ew``: Fractions, ``None`` for NP / blank) and each board's datum.

    ``datums`` maps the board label (``None`` when no ``boards`` were given) to its datum, or to
    ``None`` when the board has no real score.

    >>> b = butler([420, 400, "NP", -50, 100], boards=[1, 1, 1, 3, 3], trim="none")
    >>> b.datums, b.ns[:3], b.ew[3]
    ({1: 410, 3: 20}, (Fraction(0, 1), Fraction(0, 1), None), Fraction(2, 1))
    """

    ns: tuple[Fraction | None, ...]
    ew: tuple[Fraction | None, ...]
    datums: dict[Any, Any]


def butler(entries: Iterable[object], boards: Iterable[object] | None = None, *, trim: object = "acbl",
           rounding: str = "half_even", check_legal: bool = True) -> Butler:
    """Butler IMPs per row: each real N-S score IMPed against its board's datum.

    E-W gets the negation.  Artificial scores get :func:`artificial_imps`; ``NP`` and blanks
    ``None``.  See :func:`butler_datum` for ``trim``, ``rounding`` and ``check_legal`` (with
    ``boards``, legality is that of each board's vulnerability).

    >>> b = butler([420, 420, 400, 170, -50, "A60/40"], trim="topbottom")
    >>> b.datums[None], [str(x) for x in b.ns]
    (330, ['3', '3', '2', '-4', '-9', '3'])
    """
    trim_rule(trim)  # the options first: a bad one is named before any score is read
    rounding_rule(rounding, BUTLER_ROUNDINGS, what="Butler rounding")
    parsed, groups, board_idx = traveller_rows(entries, boards, check_legal=check_legal)
    S, valid, pos_b, pos_c = traveller_matrix(parsed, groups, board_idx)
    d, counts = butler_datums(S, valid, trim=trim, rounding=rounding, check_legal=False)  # checked above
    ims = imps_array(S - d[:, None])
    datums = {k: (int(d[b]) if counts[b] else None) for b, k in enumerate(groups)}
    row_imps = np.where(pos_b >= 0, ims[pos_b, pos_c], 0).tolist()
    memo = {i: (Fraction(i), Fraction(-i)) for i in range(-24, 25)}
    ns: list[Fraction | None] = []
    ew: list[Fraction | None] = []
    for i, e in enumerate(parsed):
        if type(e) is int:
            v, w = memo[row_imps[i]]
            ns.append(v)
            ew.append(w)
        elif isinstance(e, Artificial):
            a_ns, a_ew = artificial_imps(e)
            ns.append(a_ns)
            ew.append(a_ew)
        else:
            ns.append(None)
            ew.append(None)
    return Butler(tuple(ns), tuple(ew), datums)
