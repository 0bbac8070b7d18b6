"""IMPs (Law 78B), cross-IMPs and Butler scoring, exact and vectorised over many boards.

- :func:`imps` / :func:`imps_array`: a points difference to IMPs, sign kept (Law 78B table).
- :func:`artificial_imps`: an artificial adjusted score (Law 12C2) at IMPs: +3 / 0 / -3.
- :func:`cross_imps`: every result IMPed against every other result on its board; a total
  (factored when results are missing) or an average over the others.
- :func:`butler_datum` / :func:`butler`: IMPs against a datum, the trimmed mean rounded to 10,
  with the trim and the rounding of a final 5 as named options.
- :func:`cross_imp_totals`, :func:`butler_datums`: the numpy cores (one row per board), used by
  the functions above and fast on thousands of boards.

>>> imps(420 - 170), imps(-50 - 620), imps(10)
(6, -12, 0)
>>> r = cross_imps([420, 400, 170, -50])
>>> [str(x) for x in r.ns]
['17', '15', '-6', '-26']
>>> butler_datum([420, 420, 400, 170, -50], trim="topbottom")
330
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational

import numpy as np

from ..entries import Artificial, parse_entry
from ..errors import InputError

__all__ = [
    "imps",
    "IMP_SCALE",
    "IMP_THRESHOLDS",
    "ARTIFICIAL_IMPS",
    "BUTLER_TRIMS",
    "BUTLER_ROUNDINGS",
    "imps_array",
    "artificial_imps",
    "CrossImps",
    "cross_imps",
    "cross_imp_totals",
    "butler_trim_count",
    "butler_datum",
    "butler_datums",
    "Butler",
    "butler",
]

#: Law 78B: (lowest difference, highest difference, IMPs); 4000 or more is 24 IMPs.
IMP_SCALE = (
    (0, 10, 0), (20, 40, 1), (50, 80, 2), (90, 120, 3), (130, 160, 4), (170, 210, 5), (220, 260, 6),
    (270, 310, 7), (320, 360, 8), (370, 420, 9), (430, 490, 10), (500, 590, 11), (600, 740, 12),
    (750, 890, 13), (900, 1090, 14), (1100, 1290, 15), (1300, 1490, 16), (1500, 1740, 17),
    (1750, 1990, 18), (2000, 2240, 19), (2250, 2490, 20), (2500, 2990, 21), (3000, 3490, 22),
    (3500, 3990, 23), (4000, None, 24),
)

#: The lowest difference of each band from 1 IMP up: IMPs = how many of these |difference| reaches.
IMP_THRESHOLDS = tuple(low for low, _, i in IMP_SCALE if i > 0)
_THR = np.array(IMP_THRESHOLDS, dtype=np.int64)

#: IMPs per percentage point of an artificial score away from 50 %: 60 % -> +3, 40 % -> -3.
ARTIFICIAL_IMPS = Fraction(3, 10)

#: Trim rules for the Butler datum (see :func:`butler_trim_count`); an ``int`` k is also accepted.
BUTLER_TRIMS = ("acbl", "topbottom", "count", "none")
#: Rules for a trimmed mean ending in exactly 5 (see :func:`butler_datum`).
BUTLER_ROUNDINGS = ("even", "away", "half_up")


# --------------------------------------------------------------------------- IMPs

def _difference(value):
    """An exact number (int or Fraction) from a points difference; floats must be whole."""
    if hasattr(value, "dtype") and hasattr(value, "item"):
        value = value.item()
    if isinstance(value, bool) or value is None:
        raise InputError(f"a points difference must be a number, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InputError(f"a points difference must be a finite number, got {value!r}")
        return int(value) if value.is_integer() else Fraction(repr(value))
    if isinstance(value, Rational):
        return Fraction(value)
    if isinstance(value, str):
        try:
            return _difference(float(value.strip()))
        except ValueError:
            pass
    raise InputError(f"a points difference must be a number, got {value!r}")


def imps(difference) -> int:
    """IMPs for a points difference (Law 78B), sign kept: ``imps(-250) == -6``.

    Differences are normally multiples of 10; one that falls between two bands of the Law's
    table (possible only for a non-bridge number such as 15) takes the lower band.

    >>> imps(20), imps(40), imps(50), imps(-4000), imps(9990)
    (1, 1, 2, -24, 24)
    """
    d = _difference(difference)
    n = bisect_right(IMP_THRESHOLDS, abs(d))
    return n if d >= 0 else -n


def imps_array(differences) -> np.ndarray:
    """:func:`imps` element-wise over an array; NaN (no comparison) stays NaN (float result).

    >>> imps_array([0, 20, -430, 5000]).tolist()
    [0, 1, -10, 24]
    >>> imps_array([30.0, float("nan")]).tolist()
    [1.0, nan]
    """
    d = np.asarray(differences)
    if d.dtype == object or d.dtype.kind not in "iuf":
        raise InputError("imps_array needs numbers (an array of points differences)")
    n = np.searchsorted(_THR, np.abs(d), side="right")
    out = np.where(d < 0, -n, n)
    if d.dtype.kind == "f":
        return np.where(np.isnan(d), np.nan, out.astype(float))
    return out.astype(np.int64)


def artificial_imps(entry: Artificial) -> tuple:
    """N-S and E-W IMPs of an artificial adjusted score: 60 % -> +3, 50 % -> 0, 40 % -> -3.

    The rule (REFERENCE.md: "Artificial scores at IMPs: +3 / 0 / -3") is applied linearly to
    other percentages: ``3 x (percent - 50) / 10`` for each side separately, so ``A60/60``
    gives +3 to both sides and ``A70/30`` gives +6 / -6.

    >>> artificial_imps(Artificial.parse("A60/40"))
    (Fraction(3, 1), Fraction(-3, 1))
    >>> artificial_imps(Artificial.parse("A50/50"))
    (Fraction(0, 1), Fraction(0, 1))
    """
    if not isinstance(entry, Artificial):
        raise InputError(f"not an artificial adjusted score: {entry!r}")
    return (entry.ns - 50) * ARTIFICIAL_IMPS, (entry.ew - 50) * ARTIFICIAL_IMPS


# --------------------------------------------------------------------------- grouping helpers

def _board_key(b):
    """A board label as given, with whole floats (Excel) read as ints so 3.0 and 3 group together."""
    if type(b) is int:
        return b
    if hasattr(b, "dtype") and hasattr(b, "item"):
        b = b.item()
    if isinstance(b, float) and b.is_integer():
        return int(b)
    if isinstance(b, str):
        t = b.strip()
        try:
            f = float(t)
            return int(f) if f.is_integer() else t
        except ValueError:
            return t
    return b


def _parse_rows(entries, boards):
    """Parse score cells and group row indexes by board (order of first appearance).

    Returns the parsed entries, the groups (board label -> row indexes) and, per row, the index
    of its board in the groups' order.
    """
    entries = list(entries)
    if boards is None:
        labels = [None] * len(entries)
    else:
        labels = [_board_key(b) for b in boards]
        if len(labels) != len(entries):
            raise InputError(f"boards has {len(labels)} rows but scores has {len(entries)}: they must be parallel")
    parsed = []
    groups: dict = {}
    board_of = []
    for i, (value, board) in enumerate(zip(entries, labels)):
        t = type(value)
        if t is int and not value % 10:
            e = value  # the common case, without the general parser
        elif t is float and value.is_integer() and not value % 10:
            e = int(value)
        else:
            e = parse_entry(value, where=f"row {i + 1}" if board is None else f"board {board}, row {i + 1}")
        parsed.append(e)
        if boards is not None and e is not None and board is None:
            raise InputError("a score has no board number", where=f"row {i + 1}")
        rows = groups.get(board)
        if rows is None:
            rows = groups[board] = []
        rows.append(i)
        board_of.append(board)
    index = {k: b for b, k in enumerate(groups)}
    return parsed, groups, np.fromiter((index[k] for k in board_of), dtype=np.int64, count=len(board_of))


def _matrix(parsed, groups, board_idx):
    """Padded (boards x max rows) int64 matrix of the real scores, a validity mask, and for every
    row its (board, column) in the matrix (-1 for rows that are not real scores)."""
    N = len(parsed)
    B = len(groups)
    is_int = np.fromiter((type(e) is int for e in parsed), dtype=bool, count=N)
    vals = np.fromiter((e if type(e) is int else 0 for e in parsed), dtype=np.int64, count=N)
    ir = np.nonzero(is_int)[0]
    rb = board_idx[ir]
    order = np.argsort(rb, kind="stable")
    per_board = np.bincount(rb, minlength=B)
    starts = np.concatenate([[0], np.cumsum(per_board)[:-1]]).astype(np.int64)
    col = np.empty(len(ir), dtype=np.int64)
    col[order] = np.arange(len(ir), dtype=np.int64) - starts[rb[order]]
    S = np.zeros((B, max(int(per_board.max(initial=0)), 1)), dtype=np.int64)
    valid = np.zeros_like(S, dtype=bool)
    S[rb, col] = vals[ir]
    valid[rb, col] = True
    pos_b = np.full(N, -1, dtype=np.int64)
    pos_c = np.full(N, -1, dtype=np.int64)
    pos_b[ir] = rb
    pos_c[ir] = col
    return S, valid, pos_b, pos_c


def _expected_results(counted: dict, expected) -> int:
    """The number of results every board is factored to: ``expected``, or by default the largest
    count of results (real or artificial) on any board; a board with more results is an error."""
    if expected is None:
        return max(counted.values(), default=0)
    if isinstance(expected, float) and expected.is_integer():
        expected = int(expected)
    if isinstance(expected, bool) or not isinstance(expected, int) or expected < 1:
        raise InputError(f"expected must be a whole number of results (1 or more), got {expected!r}")
    for k, c in counted.items():
        if c > expected:
            where = "" if k is None else f"board {k}: "
            raise InputError(f"{where}{c} results but expected is only {expected}")
    return expected


def _check_matrix(scores, present):
    S = np.asarray(scores)
    if S.ndim == 1:
        S = S[None, :]
    if S.ndim != 2:
        raise InputError(f"scores must be a 2-D array (one row per board), got {S.ndim} dimensions")
    if present is None:
        if S.dtype.kind == "f":
            present = ~np.isnan(S)
            S = np.where(present, S, 0)
        else:
            present = np.ones(S.shape, dtype=bool)
    else:
        present = np.asarray(present, dtype=bool)
        if present.ndim == 1:
            present = present[None, :]
        if present.shape != S.shape:
            raise InputError(f"present has shape {present.shape} but scores has {S.shape}")
    if S.dtype.kind == "f":
        bad = present & ~(np.isfinite(S) & (S == np.round(S)))
        if bad.any():
            r, c = (int(x) for x in np.argwhere(bad)[0])
            raise InputError(f"scores must be whole numbers of points: row {r + 1} (board), column {c + 1} "
                             f"holds {float(S[r, c])!r}")
    elif S.dtype.kind not in "iu":
        raise InputError(f"scores must be numbers (N-S points), got an array of {S.dtype}")
    S = np.where(present, S, 0).astype(np.int64)
    return S, present


# --------------------------------------------------------------------------- cross-IMPs

def cross_imp_totals(scores, present=None):
    """Cross-IMP totals of every result against the others on its board (numpy core).

    ``scores`` is a (boards x results) array of N-S scores; missing results are NaN or marked
    ``False`` in ``present``.  Returns ``(totals, counts)``: int64 totals (0 where missing) and
    the number of real results on each board.  Exact integers.  Up to
    ``_PAIRWISE_MAX`` results per board every pair is compared through an int8 lookup table
    (boards in chunks of about 4 million pairs); larger boards count each result's total from
    the sorted scores, one pass per IMP threshold (O(n log n) per board).

    >>> t, a = cross_imp_totals([[420, 400, 170, -50], [100, float("nan"), -100, 0]])
    >>> t.tolist(), a.tolist()
    ([[17, 15, -6, -26], [8, 0, -8, 0]], [4, 3])
    """
    S, present = _check_matrix(scores, present)
    B, n = S.shape
    counts = present.sum(axis=1).astype(np.int64)
    if B == 0 or n == 0:
        return np.zeros((B, n), dtype=np.int64), counts
    out = _totals_pairwise(S, present) if n <= _PAIRWISE_MAX else _totals_sorted(S, present, counts)
    out[~present] = 0
    return out, counts


_PAIRWISE_MAX = 256
_LUT_SPAN = int(_THR[-1])  # |difference| >= 4000 is 24 IMPs: clip there
_LUT = None


def _lut():
    global _LUT
    if _LUT is None:
        _LUT = imps_array(np.arange(-_LUT_SPAN, _LUT_SPAN + 1)).astype(np.int8)
    return _LUT


def _totals_pairwise(S, present):
    B, n = S.shape
    lut = _lut()
    if np.abs(S).max(initial=0) > 2**30:
        raise InputError("scores are far outside any bridge score")
    S32 = S.astype(np.int32)
    chunk = max(1, (1 << 22) // (n * n))
    out = np.empty((B, n), dtype=np.int64)
    for a in range(0, B, chunk):
        s = S32[a:a + chunk]
        d = s[:, :, None] - s[:, None, :]
        np.clip(d, -_LUT_SPAN, _LUT_SPAN, out=d)
        d += _LUT_SPAN
        cell = lut[d]
        cell *= present[a:a + chunk, None, :]  # missing results are compared with nobody
        out[a:a + chunk] = cell.sum(axis=2, dtype=np.int64)
    return out


def _totals_sorted(S, present, counts):
    B, n = S.shape
    big = int(np.abs(S[present]).max()) if present.any() else 0
    sentinel = big + int(_THR[-1]) + 10  # above every query s + t of its own row
    stride = 2 * sentinel + 10  # rows never overlap after the offset
    off = (np.arange(B, dtype=np.int64) * stride)[:, None]
    keys = np.where(present, S, sentinel) + off
    order = np.argsort(keys, axis=1, kind="stable")
    sorted_keys = np.take_along_axis(keys, order, axis=1)
    flat = sorted_keys.ravel()
    start = (np.arange(B, dtype=np.int64) * n)[:, None]
    end = start + counts[:, None]
    tot = np.zeros((B, n), dtype=np.int64)
    for t in IMP_THRESHOLDS:
        # results j with s_i - s_j >= t (i wins >= the band) minus those with s_j - s_i >= t
        below = np.searchsorted(flat, (sorted_keys - t).ravel(), side="right").reshape(B, n) - start
        above = end - np.searchsorted(flat, (sorted_keys + t).ravel(), side="left").reshape(B, n)
        tot += below - above
    out = np.zeros((B, n), dtype=np.int64)
    np.put_along_axis(out, order, tot, axis=1)
    return out


@dataclass(frozen=True)
class CrossImps:
    """Per-row cross-IMPs: ``ns`` and ``ew`` tuples of Fractions (``None`` for NP / blank rows).

    ``expected`` is the number of results each board was factored to (total mode), ``average``
    says whether the values are averages over the other results.

    >>> r = cross_imps([420, 400, "NP"], expected=2)
    >>> r.ns, r.ew, r.expected, r.average
    ((Fraction(1, 1), Fraction(-1, 1), None), (Fraction(-1, 1), Fraction(1, 1), None), 2, False)
    """

    ns: tuple
    ew: tuple
    expected: int
    average: bool


def cross_imps(entries, boards=None, *, average: bool = False, expected: int | None = None) -> CrossImps:
    """Cross-IMPs per row: each real result IMPed against every other real result on its board.

    - Total (``average=False``): the sum over the others, factored when results are missing:
      a board with ``A`` real results expected to have ``E`` gets ``total x (E - 1) / (A - 1)``
      (every result is then worth ``E - 1`` comparisons, as on a complete board; the cross-IMP
      analogue of Neuberg).  ``E`` is ``expected`` or, by default, the largest number of rows
      holding a score or an artificial score on any board in the call.
    - Average (``average=True``): the total over the ``A - 1`` others (no factoring needed).
    - Artificial scores (``A60/40``...) are left out of the comparisons; they get
      :func:`artificial_imps` per comparison: ``x (E - 1)`` as a total, ``x 1`` as an average.
    - ``NP`` and blank rows get ``None``.  A lone real result gets 0.

    E-W values are the negation of N-S for real results.  Source: REFERENCE.md (cross-IMPs).

    >>> r = cross_imps([420, 400, 170, -50, "NP"], average=True)
    >>> [str(x) for x in r.ns], r.ew[4]
    (['17/3', '5', '-2', '-26/3', 'None'], None)
    >>> r = cross_imps([420, 400, 170, -50], expected=5)     # one result missing: x 4/3
    >>> [str(x) for x in r.ns]
    ['68/3', '20', '-8', '-104/3']
    """
    parsed, groups, board_idx = _parse_rows(entries, boards)
    counted = {k: sum(type(parsed[i]) is int or isinstance(parsed[i], Artificial) for i in rows)
               for k, rows in groups.items()}
    E = _expected_results(counted, expected)
    S, valid, pos_b, pos_c = _matrix(parsed, groups, board_idx)
    totals, counts = cross_imp_totals(S, valid)
    real = pos_b >= 0
    row_tot = np.where(real, totals[pos_b, pos_c], 0).tolist()
    row_a = np.where(real, counts[pos_b], 0).tolist()
    memo: dict = {}
    ns, ew = [], []
    for i, e in enumerate(parsed):
        if type(e) is int:
            key = (row_tot[i], row_a[i])
            pair = memo.get(key)
            if pair is None:
                tot, a = key
                if a < 2:
                    v = Fraction(0)
                elif average:
                    v = Fraction(tot, a - 1)
                else:
                    v = Fraction(tot * (E - 1), a - 1)
                pair = memo[key] = (v, -v)
            ns.append(pair[0])
            ew.append(pair[1])
        elif isinstance(e, Artificial):
            mult = 1 if average else max(E - 1, 0)
            a_ns, a_ew = artificial_imps(e)
            ns.append(a_ns * mult)
            ew.append(a_ew * mult)
        else:
            ns.append(None)
            ew.append(None)
    return CrossImps(tuple(ns), tuple(ew), E, bool(average))


# --------------------------------------------------------------------------- Butler

def butler_trim_count(n: int, trim="acbl") -> int:
    """How many scores the Butler datum drops at EACH end of ``n`` scores.

    - ``"acbl"``: 5 % at each end, rounded to the nearest whole score (a half rounded up):
      ``floor(n / 20 + 1/2)``, so nothing below 10 scores, 1 for 10-29, 2 for 30-49 ...
      (ACBL practice is "5 % at each end"; the rounding is our documented choice).
    - ``"topbottom"``: the single highest and lowest score (from 3 scores up).
    - ``"count"``: a count that grows with the field: 1 per 10 scores, at least 1 from 3 scores
      up (``max(1, n // 10)``): 3-19 -> 1, 20-29 -> 2, ...
    - ``"none"``: nothing (plain mean).  An ``int`` ``k`` drops ``k`` at each end.

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


def _trim_counts(n: np.ndarray, trim) -> np.ndarray:
    if isinstance(trim, str):
        rule = trim.strip().lower()
        if rule == "acbl":
            k = (n + 10) // 20
        elif rule == "topbottom":
            k = np.where(n >= 3, 1, 0)
        elif rule == "count":
            k = np.where(n >= 3, np.maximum(1, n // 10), 0)
        elif rule == "none":
            k = np.zeros_like(n)
        else:
            raise InputError(f"unknown Butler trim {trim!r} (expected one of {', '.join(BUTLER_TRIMS)}, or a whole number)")
    elif isinstance(trim, (int, np.integer)) and not isinstance(trim, bool) and trim >= 0:
        k = np.full_like(n, int(trim))
    else:
        raise InputError(f"unknown Butler trim {trim!r} (expected one of {', '.join(BUTLER_TRIMS)}, or a whole number)")
    return np.minimum(k, np.maximum((n - 1) // 2, 0))


def _round_ten(total: np.ndarray, count: np.ndarray, rounding: str) -> np.ndarray:
    """Round total / count to a multiple of 10, exactly, with the named rule for a final 5."""
    rule = rounding.strip().lower() if isinstance(rounding, str) else rounding
    if rule not in BUTLER_ROUNDINGS:
        raise InputError(f"unknown Butler rounding {rounding!r} (expected one of {', '.join(BUTLER_ROUNDINGS)})")
    den = 10 * count
    f = total // den  # floor of mean / 10
    r2 = 2 * (total - f * den)  # 0 <= r2 < 2 den; compare with den for the half
    up = r2 > den
    tie = r2 == den
    if rule == "even":
        up |= tie & (f % 2 == 1)
    elif rule == "away":
        up |= tie & (f >= 0)  # f >= 0 means the mean is positive: away from zero is up
    else:  # half_up
        up |= tie
    return 10 * (f + up)


def butler_datums(scores, present=None, *, trim="acbl", rounding: str = "even"):
    """Butler datums of many boards at once (numpy core): one row of N-S scores per board.

    Missing results are NaN or ``False`` in ``present``.  Returns ``(datums, counts)``: int64
    datums (0 where a board has no result) and the number of results per board.  Exact
    integer arithmetic (see :func:`butler_datum`).

    >>> d, a = butler_datums([[420, 420, 400, 170, -50], [425, 0, 0, 0, 0]], trim="none")
    >>> d.tolist(), a.tolist()
    ([270, 80], [5, 5])
    """
    S, present = _check_matrix(scores, present)
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


def butler_datum(scores, *, trim="acbl", rounding: str = "even") -> int:
    """The Butler datum of one board: the trimmed mean of its N-S scores, rounded to 10.

    Only real scores count (artificial scores, ``NP`` and blanks are ignored).  ``trim`` is one
    of :data:`BUTLER_TRIMS` (see :func:`butler_trim_count`; default ``"acbl"``, 5 % at each end).
    ``rounding`` decides a trimmed mean ending in exactly 5 (ERRATA-free, REFERENCE.md):

    - ``"even"`` (default, ACBL): to the even ten, 425 -> 420, 435 -> 440, -425 -> -420;
    - ``"away"``: away from zero, the average (passed-out) score: 425 -> 430, -425 -> -430;
    - ``"half_up"``: upwards, 425 -> 430, -425 -> -420.

    Any other mean goes to the nearest ten.  Exact: the sum and count are integers.

    >>> butler_datum([420, 430], trim="none"), butler_datum([430, 440], trim="none")
    (420, 440)
    >>> butler_datum([420, 430], trim="none", rounding="away"), butler_datum([-420, -430], trim="none", rounding="away")
    (430, -430)
    >>> butler_datum([-420, -430], trim="none", rounding="half_up")
    -420
    """
    parsed = [parse_entry(v, where=f"row {i}") for i, v in enumerate(scores, start=1)]
    real = [e for e in parsed if isinstance(e, int)]
    if not real:
        raise InputError("no scores on the board to make a Butler datum from (only blanks, NP or artificial scores)")
    d, _ = butler_datums(np.array([real], dtype=np.int64), trim=trim, rounding=rounding)
    return int(d[0])


@dataclass(frozen=True)
class Butler:
    """Per-row Butler IMPs (``ns``, ``ew``: Fractions, ``None`` for NP / blank) and each board's datum.

    ``datums`` maps the board label (``None`` when no ``boards`` were given) to its datum, or to
    ``None`` when the board has no real score.

    >>> b = butler([420, 400, "NP", -50, 100], boards=[1, 1, 1, 2, 2], trim="none")
    >>> b.datums, b.ns[:3], b.ew[3]
    ({1: 410, 2: 20}, (Fraction(0, 1), Fraction(0, 1), None), Fraction(2, 1))
    """

    ns: tuple
    ew: tuple
    datums: dict


def butler(entries, boards=None, *, trim="acbl", rounding: str = "even") -> Butler:
    """Butler IMPs per row: each real N-S score IMPed against its board's datum.

    E-W gets the negation.  Artificial scores get :func:`artificial_imps`; ``NP`` and blanks
    ``None``.  See :func:`butler_datum` for ``trim`` and ``rounding``.

    >>> b = butler([420, 420, 400, 170, -50, "A60/40"], trim="topbottom")
    >>> b.datums[None], [str(x) for x in b.ns]
    (330, ['3', '3', '2', '-4', '-9', '3'])
    """
    parsed, groups, board_idx = _parse_rows(entries, boards)
    S, valid, pos_b, pos_c = _matrix(parsed, groups, board_idx)
    d, counts = butler_datums(S, valid, trim=trim, rounding=rounding)
    ims = imps_array(S - d[:, None])
    datums = {k: (int(d[b]) if counts[b] else None) for b, k in enumerate(groups)}
    row_imps = np.where(pos_b >= 0, ims[pos_b, pos_c], 0).tolist()
    memo = {i: (Fraction(i), Fraction(-i)) for i in range(-24, 25)}
    ns, ew = [], []
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
