"""IMPs (Law 78B) and cross-IMPs, exact and vectorised over many boards.

- :func:`imps` / :func:`imps_array`: a points difference to IMPs, sign kept (Law 78B table).
- :func:`artificial_imps`: an artificial adjusted score (Law 12C2) at IMPs: +3 / 0 / -3.
- :func:`cross_imps`: every result IMPed against every other result on its board; a total
  (factored when results are missing) or an average over the others.
- :func:`cross_imp_totals`: the numpy core (one row per board), fast on thousands of boards.
- :func:`traveller_rows`: a traveller's score cells read and grouped by board, checked against
  the legal scores of each board (shared with :mod:`xlbridge.core.teams.butler`).

Butler scoring (IMPs against a datum) is :mod:`xlbridge.core.teams.butler`.

>>> imps(420 - 170), imps(-50 - 620), imps(10)
(6, -12, 0)
>>> r = cross_imps([420, 400, 170, -50])
>>> [str(x) for x in r.ns]
['17', '15', '-6', '-26']
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from ..boards import board_label, check_traveller
from ..contract import check_score, legal_mask
from ..entries import MAX_SCORE_READ, Artificial, Entry, parse_entry, too_large
from ..errors import InputError, shown
from ..numbers import whole
from ..pairs.neuberg import MAX_RESULTS

__all__ = [
    "imps",
    "IMP_SCALE",
    "IMP_THRESHOLDS",
    "ARTIFICIAL_IMPS",
    "imps_array",
    "artificial_imps",
    "CrossImps",
    "cross_imps",
    "cross_imp_totals",
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



# --------------------------------------------------------------------------- IMPs

def imps(difference: object) -> int:
    """IMPs for a points difference (Law 78B), sign kept: ``imps(-250) == -6``.

    Law 78B converts a difference of two bridge scores, always a whole number of points
    (normally a multiple of 10): a fractional difference such as 19.5 is refused (InputError),
    as Excel's ``IMPS`` refuses it with ``#VALUE!``. A whole number between two bands of the
    Law's table (possible only for a non-bridge number such as 15) takes the lower band.

    >>> imps(20), imps(40), imps(50), imps(-4000), imps(9990), imps("-250")
    (1, 1, 2, -24, 24, -6)
    >>> imps(19.5)
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: a points difference must be a whole number, got 19.5
    """
    d = whole(difference, "a points difference")
    n = bisect_right(IMP_THRESHOLDS, abs(d))
    return n if d >= 0 else -n


def imps_array(differences: npt.ArrayLike) -> npt.NDArray[Any]:
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
        res: npt.NDArray[Any] = np.where(np.isnan(d), np.nan, out.astype(float))
        return res
    ints: npt.NDArray[np.int64] = out.astype(np.int64)
    return ints


def artificial_imps(entry: Artificial) -> tuple[Fraction, Fraction]:
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
        raise InputError(f"not an artificial adjusted score: {shown(entry)}")
    return (entry.ns - 50) * ARTIFICIAL_IMPS, (entry.ew - 50) * ARTIFICIAL_IMPS


# --------------------------------------------------------------------------- grouping helpers

def traveller_rows(entries: Iterable[object], boards: Iterable[object] | None, *, check_legal: bool = True,
                   ) -> tuple[list[Entry | None], dict[Any, list[int]], npt.NDArray[np.int64]]:
    """Parse score cells and group row indexes by board (order of first appearance).

    Returns the parsed entries, the groups (board label -> row indexes) and, per row, the index
    of its board in the groups' order. With ``check_legal`` every real score must be a legal
    score of its board's vulnerability (without boards: at some vulnerability), as in
    :func:`xlbridge.core.pairs.matchpoints.matchpoint_session`.

    >>> traveller_rows([420, "NP", 410], None)
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.ImpossibleScoreError: row 3: impossible score: 410 (no contract and result gives N-S 410 at any vulnerability)
    """
    entries = list(entries)
    if boards is None:
        labels: list[Any] = [None] * len(entries)
    else:
        labels = [board_label(b) for b in boards]
        if len(labels) != len(entries):
            raise InputError(f"boards has {len(labels)} rows but scores has {len(entries)}: they must be parallel")
    parsed: list[Entry | None] = []
    groups: dict[Any, list[int]] = {}
    board_of = []
    for i, (value, board) in enumerate(zip(entries, labels)):
        e: Entry | None
        if type(value) is int and not value % 10:
            e = value  # the common case, without the general parser
        elif type(value) is float and value.is_integer() and not value % 10:
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
    board_idx = np.fromiter((index[k] for k in board_of), dtype=np.int64, count=len(board_of))
    for i, e in enumerate(parsed):
        if type(e) is int and not -MAX_SCORE_READ <= e <= MAX_SCORE_READ:
            raise too_large(e, where=f"row {i + 1}" if labels[i] is None else f"board {labels[i]}, row {i + 1}")
    if check_legal:
        real = np.fromiter((type(e) is int for e in parsed), dtype=bool, count=len(parsed))
        scores = np.fromiter((e if type(e) is int else 0 for e in parsed), dtype=np.int64, count=len(parsed))
        if boards is None:
            check_traveller(scores, real)
        else:
            check_traveller(scores, real, board_idx, list(groups))
    return parsed, groups, board_idx


def traveller_matrix(parsed: list[Any], groups: dict[Any, list[int]], board_idx: npt.NDArray[np.int64]) -> tuple[Any, Any, Any, Any]:
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


def expected_results(counted: dict[Any, int], expected: object) -> int:
    """The number of results every board is factored to: ``expected``, or by default the largest
    count of results (real or artificial) on any board; a board with more results is an error."""
    if expected is None:
        return max(counted.values(), default=0)
    e = whole(expected, "expected number of results", minimum=1, maximum=MAX_RESULTS)
    for k, c in counted.items():
        if c > e:
            where = "" if k is None else f"board {k}: "
            raise InputError(f"{where}{c} results but expected is only {e}")
    return e


def check_score_matrix(scores: npt.ArrayLike, present: npt.ArrayLike | None, *, check_legal: bool = False,
                       ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """A (boards x results) array of N-S scores as int64, and which are present (NaN: missing).

    Every present score must be a whole number of points no larger than
    :data:`~xlbridge.core.entries.MAX_SCORE_READ` (so the int64 arithmetic never wraps around),
    and with ``check_legal`` one that some contract and result gives (Law 77, at any
    vulnerability: a matrix has no board numbers).

    >>> check_score_matrix([[420, 410]], None, check_legal=True)
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.ImpossibleScoreError: row 1 (board), column 2: impossible score: 410 (no contract and result gives N-S 410 at any vulnerability)
    """
    S = np.asarray(scores)
    if S.ndim == 1:
        S = S[None, :]
    if S.ndim != 2:
        raise InputError(f"scores must be a 2-D array (one row per board), got {S.ndim} dimensions")
    mask: npt.NDArray[np.bool_]
    if present is None:
        if S.dtype.kind == "f":
            mask = ~np.isnan(S)
            S = np.where(mask, S, 0)
        else:
            mask = np.ones(S.shape, dtype=bool)
    else:
        mask = np.asarray(present, dtype=bool)
        if mask.ndim == 1:
            mask = mask[None, :]
        if mask.shape != S.shape:
            raise InputError(f"the present marks have shape {mask.shape} but the scores have {S.shape}")

    def at(r: int, c: int) -> str:
        return f"row {r + 1} (board), column {c + 1}"

    if S.dtype.kind == "f":
        bad = mask & ~(np.isfinite(S) & (S == np.round(S)))
        if bad.any():
            r, c = (int(x) for x in np.argwhere(bad)[0])
            raise InputError(f"scores must be whole numbers of points: {at(r, c)} holds {float(S[r, c])!r}")
    elif S.dtype.kind not in "iu":
        raise InputError(f"scores must be numbers (N-S points), got an array of {S.dtype}")
    with np.errstate(invalid="ignore"):
        huge = mask & ((S > MAX_SCORE_READ) | (S < -MAX_SCORE_READ) if S.dtype.kind != "u" else S > MAX_SCORE_READ)
    if huge.any():
        r, c = (int(x) for x in np.argwhere(huge)[0])
        raise too_large(S[r, c].item(), at(r, c))
    S = np.where(mask, S, 0).astype(np.int64)
    if check_legal:
        illegal = mask & ~legal_mask(S)
        if illegal.any():
            r, c = (int(x) for x in np.argwhere(illegal)[0])
            check_score(int(S[r, c]), where=at(r, c))
    return S, mask


# --------------------------------------------------------------------------- cross-IMPs

def cross_imp_totals(scores: npt.ArrayLike, present: npt.ArrayLike | None = None, *, check_legal: bool = True,
                     ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Cross-IMP totals of every result against the others on its board (numpy core).

    ``scores`` is a (boards x results) array of N-S scores; missing results are NaN or marked
    ``False`` in ``present``.  Returns ``(totals, counts)``: int64 totals (0 where missing) and
    the number of real results on each board.  Exact integers.  A score no contract and result
    gives (at any vulnerability, Law 77) is refused unless ``check_legal`` is False (then any
    whole number up to :data:`~xlbridge.core.entries.MAX_SCORE_READ` is compared).  Up to 256
    results per board every pair is compared through an int8 lookup table (boards in chunks of
    about 4 million pairs); larger boards count each result's total from the sorted scores, one
    pass per IMP threshold (O(n log n) per board).

    >>> t, a = cross_imp_totals([[420, 400, 170, -50], [100, float("nan"), -100, 0]])
    >>> t.tolist(), a.tolist()
    ([[17, 15, -6, -26], [8, 0, -8, 0]], [4, 3])
    """
    S, present = check_score_matrix(scores, present, check_legal=check_legal)
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


def _lut() -> npt.NDArray[np.int8]:
    global _LUT
    if _LUT is None:
        _LUT = imps_array(np.arange(-_LUT_SPAN, _LUT_SPAN + 1)).astype(np.int8)
    return _LUT


def _totals_pairwise(S: npt.NDArray[np.int64], present: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
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


def _totals_sorted(S: npt.NDArray[np.int64], present: npt.NDArray[np.bool_],
                   counts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
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

    ns: tuple[Fraction | None, ...]
    ew: tuple[Fraction | None, ...]
    expected: int
    average: bool


def cross_imps(entries: Iterable[object], boards: Iterable[object] | None = None, *, average: bool = False,
               expected: int | None = None, check_legal: bool = True) -> CrossImps:
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
    With ``check_legal`` (default) a score no contract gives on its board (``boards``: by the
    16-board cycle; without: at any vulnerability) raises ImpossibleScoreError naming the row;
    ``check_legal=False`` scores any multiple of 10.

    >>> r = cross_imps([420, 400, 170, -50, "NP"], average=True)
    >>> [str(x) for x in r.ns], r.ew[4]
    (['17/3', '5', '-2', '-26/3', 'None'], None)
    >>> r = cross_imps([420, 400, 170, -50], expected=5)     # one result missing: x 4/3
    >>> [str(x) for x in r.ns]
    ['68/3', '20', '-8', '-104/3']
    """
    parsed, groups, board_idx = traveller_rows(entries, boards, check_legal=check_legal)
    counted = {k: sum(type(parsed[i]) is int or isinstance(parsed[i], Artificial) for i in rows)
               for k, rows in groups.items()}
    E = expected_results(counted, expected)
    S, valid, pos_b, pos_c = traveller_matrix(parsed, groups, board_idx)
    totals, counts = cross_imp_totals(S, valid, check_legal=False)  # traveller_rows checked them
    real = pos_b >= 0
    row_tot = np.where(real, totals[pos_b, pos_c], 0).tolist()
    row_a = np.where(real, counts[pos_b], 0).tolist()
    memo: dict[tuple[int, int], tuple[Fraction, Fraction]] = {}
    ns: list[Fraction | None] = []
    ew: list[Fraction | None] = []
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
