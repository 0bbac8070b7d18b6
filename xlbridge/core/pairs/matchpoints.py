"""Matchpoints (Law 78A) for one board or a whole session: Neuberg factoring, artificial scores, fouled boards.

Everything is exact.  Per row the N-S and E-W matchpoints are kept as integer numerators over
a per-row integer denominator (numpy arrays, so a session of a million rows is scored with a
few sorts) and turned into ``fractions.Fraction`` only when asked for (``SessionMP.ns``).
Scales and the Neuberg formula: :mod:`xlbridge.core.pairs.neuberg`; weighted scores:
:mod:`xlbridge.core.pairs.weighted`; rankings: :mod:`xlbridge.core.pairs.standings`.

>>> s = matchpoint_session([490, 460, 460, 430, 430, 430, 400, -50], expected=16)
>>> [str(x) for x in s.ns]
['29', '23', '23', '13', '13', '13', '5', '1']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from ..boards import as_column, board_label, check_traveller, factorize
from ..entries import MAX_SCORE_READ, Artificial, NotPlayed, parse_entry, too_large
from ..errors import ExpectedResultsError, InputError, location, shown
from ..numbers import whole
from ..rounding import named_option
from ..vocabulary import Scale
from .neuberg import MAX_RESULTS, mp_scale, scale_denominator

__all__ = [
    "FOULED_RULES",
    "ROW_BLANK",
    "ROW_NOT_PLAYED",
    "ROW_SCORE",
    "ROW_ARTIFICIAL",
    "SessionMP",
    "matchpoint_session",
    "session_from_rows",
]

IntArray = npt.NDArray[np.int64]

#: Fouled-board rules (REFERENCE.md, "Fouled boards"):
#:
#: - ``"EBU"``: a group of at most 3 results that is at most 1/3 of the field (E) gets fixed
#:   percentages (3 results 70/60/50 %, 2 results 65/55 %, 1 result 60 %), larger groups are
#:   Neuberg-factored to the full field.
#: - ``"ACBL"``: Neuberg for groups of 4 or more, and for a group of 3 when no other group on the
#:   board is larger; otherwise 3 -> 70/60/50 %, 2 -> 65/55 %, 1 -> 60 %.
#: - ``"neuberg"``: every group Neuberg-factored, no small sub-field rule.
FOULED_RULES = ("EBU", "ACBL", "neuberg")
_SMALL_AWARDS = {1: (60,), 2: (65, 55), 3: (70, 60, 50)}

#: Row kinds in ``SessionMP.kind``.
ROW_BLANK, ROW_NOT_PLAYED, ROW_SCORE, ROW_ARTIFICIAL = 0, 1, 2, 3


def fouled_rule(fouled: object) -> str:
    """The fouled-board rule named ``fouled`` (case-insensitive), one of :data:`FOULED_RULES`."""
    return named_option(fouled, FOULED_RULES, "fouled-board rule")


def _where(board: object, row: int, boards_given: bool) -> str | None:
    return location(board=board if boards_given else None, row=row)


def read_entries(entries: Any, board_codes: IntArray, board_labels: Sequence[Any],
                 boards_given: bool) -> tuple[npt.NDArray[np.int8], IntArray, dict[int, Artificial]]:
    """Score cells of a traveller as ``kind`` (int8: ROW_*), ``score`` (int64) arrays and {row: Artificial}.

    A numpy numeric array (NaN = blank) is read without a Python loop. Only the form of each
    cell is checked here (a whole multiple of 10, not absurdly large); legality per board is
    :func:`xlbridge.core.boards.check_traveller`.
    """
    n = len(entries)
    kind = np.zeros(n, dtype=np.int8)
    score = np.zeros(n, dtype=np.int64)
    arts: dict[int, Artificial] = {}
    if isinstance(entries, np.ndarray) and entries.ndim == 1 and entries.dtype.kind in "iuf":
        vals = entries
        if vals.dtype.kind == "f":
            blank = np.isnan(vals)
            good = ~blank
            with np.errstate(invalid="ignore"):
                bad = good & ((~np.isfinite(vals)) | (vals != np.round(vals)) | (np.abs(vals) > MAX_SCORE_READ))
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                where = _where(board_labels[board_codes[i]], i + 1, boards_given)
                parse_entry(float(vals[i]), where=where)  # raises for NaN-free non-whole / infinite values
                raise too_large(float(vals[i]), where)
            ivals = np.where(good, vals, 0).astype(np.int64)
        else:
            good = np.ones(n, dtype=bool)
            huge = vals > MAX_SCORE_READ if vals.dtype.kind == "u" else (vals > MAX_SCORE_READ) | (vals < -MAX_SCORE_READ)
            if huge.any():
                i = int(np.flatnonzero(huge)[0])
                raise too_large(vals[i].item(), _where(board_labels[board_codes[i]], i + 1, boards_given))
            ivals = vals.astype(np.int64, copy=False)  # read only, never written
        bad = good & (ivals % 10 != 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            parse_entry(int(ivals[i]), where=_where(board_labels[board_codes[i]], i + 1, boards_given))
        if good.all():
            return np.full(n, ROW_SCORE, dtype=np.int8), ivals, arts  # ivals is only ever read
        kind[good] = ROW_SCORE
        score[good] = ivals[good]
        return kind, score, arts
    for i, v in enumerate(entries):
        if type(v) is int and v % 10 == 0 and -MAX_SCORE_READ <= v <= MAX_SCORE_READ:
            e: object = v
        else:
            e = parse_entry(v, where=_where(board_labels[board_codes[i]], i + 1, boards_given))
        if e is None:
            continue
        if isinstance(e, NotPlayed):
            kind[i] = ROW_NOT_PLAYED
        elif isinstance(e, Artificial):
            kind[i] = ROW_ARTIFICIAL
            arts[i] = e
        else:
            assert isinstance(e, int)
            if not -MAX_SCORE_READ <= e <= MAX_SCORE_READ:
                raise too_large(e, _where(board_labels[board_codes[i]], i + 1, boards_given))
            kind[i] = ROW_SCORE
            score[i] = e
    return kind, score, arts


def results_per_board(kind: npt.NDArray[np.int8], bcode: IntArray, nb: int) -> IntArray:
    """Rows holding a score or an artificial score, per board code."""
    scored = kind >= ROW_SCORE
    return np.bincount(bcode if scored.all() else bcode[scored], minlength=nb)


def _limit_expected(e: int, where: str | None) -> int:
    if e > MAX_RESULTS:
        raise InputError(f"expected number of results {e} is more than {MAX_RESULTS:,}", where=where)
    return e


def expected_per_board(expected: object, counts: IntArray, board_labels: Sequence[Any], boards_given: bool) -> IntArray:
    """E for each board code (``expected``: None, one number, or a mapping board -> E); checks E >= results."""
    nb = len(board_labels)
    if expected is None:
        e = int(counts.max()) if len(counts) else 0
        return np.full(nb, e, dtype=np.int64)
    if isinstance(expected, Mapping):
        if not boards_given:
            raise InputError("expected is a mapping board -> number of results, but no boards were given "
                             "(give the boards, or one number for expected)")
        norm = {board_label(k): v for k, v in expected.items()}
        out = np.zeros(nb, dtype=np.int64)
        for c, lab in enumerate(board_labels):
            if counts[c] == 0:
                continue
            if lab not in norm:
                raise InputError(f"expected has no number of results for board {shown(lab)}")
            out[c] = _limit_expected(whole(norm[lab], f"expected results for board {shown(lab)}", minimum=1),
                                     f"board {shown(lab)}")
    else:
        out = np.full(nb, _limit_expected(whole(expected, "expected number of results", minimum=1), None),
                      dtype=np.int64)
    short = np.flatnonzero(out < counts)
    if len(short):
        c = int(short[0])
        where = f"board {board_labels[c]}" if boards_given else None
        raise ExpectedResultsError(
            f"expected {int(out[c])} results but there are {int(counts[c])} scores (and artificial scores)",
            where=where,
        )
    return out


# --------------------------------------------------------------------------------------------
# the vectorised core


def _rank_in_groups(gkey: IntArray, score: IntArray, tens: bool = False) -> tuple[IntArray, IntArray, IntArray]:
    """For each element: how many in its group score less, less-or-equal, and the group size.

    Scores are multiples of 10, so (group, score) maps to a dense integer key.  When the key
    range is small (the usual case: a few hundred distinct scores) a counting pass gives every
    count with no sort (O(n + keys)); otherwise one sort of the key and its run boundaries.
    ``tens``: the caller guarantees that every score is a multiple of 10.
    """
    m = len(score)
    if m == 0:
        z = np.zeros(0, dtype=np.int64)
        return z, z, z
    smin = int(score.min())
    span = (int(score.max()) - smin) // 10 + 1
    ng = int(gkey.max()) + 1
    limit = 4 * m + 4096
    if (tens or not np.any(score % 10)) and span <= limit:
        v = (score - smin) // 10
        nv = span
        if ng * nv > limit:  # compress to the distinct scores that occur
            present = np.zeros(span, dtype=bool)
            present[v] = True
            dense = np.cumsum(present) - 1
            nv = int(dense[-1]) + 1
            v = dense[v]
        if ng * nv <= limit:
            key = gkey * nv + v
            cdt = np.int32 if m < 2**31 else np.int64  # smaller table, fewer cache misses
            c = np.zeros(ng * nv + 1, dtype=cdt)
            np.cumsum(np.bincount(key, minlength=ng * nv), out=c[1:])  # c[k] = #elements with key < k
            gsize = np.bincount(gkey, minlength=ng)
            gstart = np.zeros(ng, dtype=np.int64)
            np.cumsum(gsize[:-1], out=gstart[1:])
            base = gstart[gkey]
            less = c[key] - base
            le = c[key + 1] - base
            size = gsize[gkey]
            return less, le, size
        if ng * nv < 2**62:
            key = gkey * nv + v
            order = np.argsort(key, kind="quicksort")
            sk = key[order]
            sg = gkey[order]
        else:  # pragma: no cover - astronomically many groups
            order = np.lexsort((score, gkey))
            sg, sk = gkey[order], score[order]
    else:
        order = np.lexsort((score, gkey))
        sg, sk = gkey[order], score[order]
    new_g = np.empty(m, dtype=bool)
    new_g[0] = True
    np.not_equal(sg[1:], sg[:-1], out=new_g[1:])
    new_r = np.empty(m, dtype=bool)
    new_r[0] = True
    np.not_equal(sk[1:], sk[:-1], out=new_r[1:])
    new_r |= new_g

    def starts_ends(flags: npt.NDArray[np.bool_]) -> tuple[IntArray, IntArray]:
        starts = np.flatnonzero(flags)
        ends = np.empty_like(starts)
        ends[:-1] = starts[1:]
        ends[-1] = m
        rid = np.cumsum(flags) - 1
        return starts[rid], ends[rid]

    gs, ge = starts_ends(new_g)
    rs, re_ = starts_ends(new_r)
    less = np.empty(m, dtype=np.int64)
    le = np.empty(m, dtype=np.int64)
    size = np.empty(m, dtype=np.int64)
    less[order] = rs - gs
    le[order] = re_ - gs
    size[order] = ge - gs
    return less, le, size


@dataclass(frozen=True, eq=False)
class SessionMP:
    """Matchpoints of every row of a traveller sheet or session, exact.

    Arrays (one entry per input row): ``ns_num``, ``ew_num`` and ``den`` (N-S and E-W
    matchpoints are ``ns_num / den`` and ``ew_num / den``; int64, or Python ints in an
    object array when a weighted board needs big denominators), ``top`` (the board's top on
    this scale: 2(E - 1) or E - 1), ``expected`` (E), ``kind`` (``ROW_BLANK``,
    ``ROW_NOT_PLAYED``, ``ROW_SCORE``, ``ROW_ARTIFICIAL``).  Rows that are blank or not
    played have no matchpoints (``None`` in the lists), and top 0.

    >>> s = matchpoint_session([420, 400, "A60/40", "NP"], expected=4)
    >>> s.ns, s.tops
    ([Fraction(5, 1), Fraction(1, 1), Fraction(18, 5), None], [6, 6, 6, None])
    """

    scale: str
    ns_num: np.ndarray
    ew_num: np.ndarray
    den: np.ndarray
    top: np.ndarray
    expected: np.ndarray
    kind: np.ndarray
    board_codes: np.ndarray | None = None
    board_labels: tuple[Any, ...] | None = None

    @cached_property
    def boards(self) -> tuple[Any, ...] | None:
        """The board label of each row (``None`` when the call had no ``boards``).

        >>> matchpoint_session([420, 400, 170], boards=[1.0, "1", 2]).boards
        (1, 1, 2)
        """
        if self.board_codes is None or self.board_labels is None:
            return None
        lab = self.board_labels
        return tuple(lab[c] for c in self.board_codes.tolist())

    def __len__(self) -> int:
        return len(self.kind)

    @property
    def scored(self) -> np.ndarray:
        """Boolean mask of the rows that have matchpoints (a score or an artificial score).

        >>> matchpoint_session([420, "A+", "NP", None]).scored.tolist()
        [True, True, False, False]
        """
        return self.kind >= ROW_SCORE

    def _fractions(self, num: npt.NDArray[Any]) -> list[Fraction | None]:
        # values repeat across rows and boards: build each distinct Fraction once
        cache: dict[tuple[int, int], Fraction] = {}
        out: list[Fraction | None] = []
        for n, d, k in zip(num.tolist(), self.den.tolist(), self.kind.tolist()):
            if k >= ROW_SCORE:
                f = cache.get((n, d))
                if f is None:
                    f = cache[(n, d)] = Fraction(n, d)
                out.append(f)
            else:
                out.append(None)
        return out

    @cached_property
    def ns(self) -> list[Fraction | None]:
        """N-S matchpoints per row (``Fraction``; ``None`` for blank and not-played rows)."""
        return self._fractions(self.ns_num)

    @cached_property
    def ew(self) -> list[Fraction | None]:
        """E-W matchpoints per row (``Fraction``; ``None`` for blank and not-played rows)."""
        return self._fractions(self.ew_num)

    @cached_property
    def tops(self) -> list[int | None]:
        """The top of each row's board (``int``; ``None`` for blank and not-played rows)."""
        return [t if k >= ROW_SCORE else None for t, k in zip(self.top.tolist(), self.kind.tolist())]

    def _percent(self, values: list[Fraction | None]) -> list[Fraction | None]:
        return [None if v is None or not t else v * 100 / t for v, t in zip(values, self.tops)]

    @cached_property
    def ns_percent(self) -> list[Fraction | None]:
        """N-S matchpoints as an exact percentage of the top (``None`` where there is no score).

        >>> matchpoint_session([420, 400, 400, "NP"], expected=4).ns_percent   # (M + 1) 4/3 - 1 of top 6
        [Fraction(850, 9), Fraction(250, 9), Fraction(250, 9), None]
        """
        return self._percent(self.ns)

    @cached_property
    def ew_percent(self) -> list[Fraction | None]:
        """E-W matchpoints as an exact percentage of the top (``None`` where there is no score)."""
        return self._percent(self.ew)


def score_rows(kind: npt.NDArray[np.int8], score: IntArray, arts: dict[int, Artificial], bcode: IntArray,
               board_labels: Sequence[Any], E_board: IntArray, sc: str, gcode: IntArray | None = None,
               fouled: str = "EBU", boards_given: bool = True, skip_rows: npt.NDArray[np.bool_] | None = None,
               ) -> tuple[Any, Any, Any, Any, Any]:
    """Numerators/denominators for every row (see SessionMP): ``(ns_num, ew_num, den, top, E)``.

    The vectorised core of :func:`matchpoint_session` (also used by weighted sessions).
    ``skip_rows``: rows left at 0/1 (the caller scores them).

    Real results: N-S (M + 1) E - A over A (2/1 scale; over 2A on the 1/0.5 scale) with
    M + 1 = less + le (2 per score beaten, 1 per other tie), E-W likewise from the other end.
    """
    n = len(kind)
    scored = kind >= ROW_SCORE
    sd = scale_denominator(sc)
    e: Any  # E as one int (every row the same) or per row
    if scored.all() and n and int(E_board.min()) == int(E_board.max()):
        e = int(E_board.max())  # one E for every row: a scalar, no gather
        E = np.broadcast_to(np.int64(e), (n,))
        top_ebu = np.broadcast_to(np.int64(2 * (e - 1)), (n,))
    else:
        E = E_board[bcode] if scored.all() else np.where(scored, E_board[bcode], 0)
        top_ebu = 2 * (E - 1) if scored.all() else np.where(scored, 2 * (E - 1), 0)
        e = E
    top = top_ebu // sd if sd != 1 else top_ebu
    real = kind == ROW_SCORE
    if skip_rows is not None:
        real = real & ~skip_rows
    if gcode is None:
        if real.all():  # the common case: every row a real score
            less, le, A = _rank_in_groups(bcode, score, True)
            ns_num = (less + le) * e - A
            ew_num = (2 * A - less - le) * e - A
            den = A * sd if sd != 1 else A
            return ns_num, ew_num, den, top, E
        # rows without a real score go to one extra group: no gathers or scatters
        less, le, A = _rank_in_groups(np.where(real, bcode, len(E_board)), score, True)
        ns_num = np.where(real, (less + le) * e - A, 0)
        ew_num = np.where(real, (2 * A - less - le) * e - A, 0)
        den = np.where(real, A * sd, 1)
    else:
        ns_num = np.zeros(n, dtype=np.int64)
        ew_num = np.zeros(n, dtype=np.int64)
        den = np.ones(n, dtype=np.int64)
        ridx = np.flatnonzero(real)
        if len(ridx):
            ng = int(gcode.max()) + 1
            gkey = bcode[ridx] * ng + gcode[ridx]
            less, le, A = _rank_in_groups(gkey, score[ridx], True)
            Er = E[ridx]
            ns_num[ridx] = (less + le) * Er - A
            ew_num[ridx] = (2 * A - less - le) * Er - A
            den[ridx] = A * sd
            if fouled != "neuberg":
                _small_subfields(ridx, gkey, ng, score, A, Er, top_ebu, sd, fouled, ns_num, ew_num, den)
    for i, a in arts.items():
        t = int(top_ebu[i])
        lcm = np.lcm(a.ns.denominator, a.ew.denominator).item()
        ns_num[i] = a.ns.numerator * (lcm // a.ns.denominator) * t
        ew_num[i] = a.ew.numerator * (lcm // a.ew.denominator) * t
        den[i] = 100 * lcm * sd
    return ns_num, ew_num, den, top, E


def fixed_awards(rule: str, size: int, expected: int, largest: int) -> bool:
    """Whether a deal group of ``size`` real results on a fouled board gets the fixed awards.

    ``expected``: E of the board (the full field); ``largest``: the largest group on the board.
    EBU: at most 3 results and at most a third of the field.  ACBL: fewer than 3, or 3 when
    another group is larger.  "neuberg": never.
    """
    if rule == "neuberg" or size > 3:
        return False
    if rule == "EBU":
        return 3 * size <= expected
    return size <= 2 or largest > 3


def _small_subfields(ridx: IntArray, gkey: IntArray, ng: int, score: IntArray, A: IntArray, Er: IntArray,
                     top_ebu: IntArray, sd: int, rule: str, ns_num: npt.NDArray[Any], ew_num: npt.NDArray[Any],
                     den: npt.NDArray[Any]) -> None:
    """Overwrite rows of small fouled sub-fields with the fixed percentages of the named rule.

    Only boards with two or more deal groups are fouled; a one-group board is scored normally.
    """
    small = A <= 3
    if not small.any():
        return
    rboard = gkey // ng
    nb = int(rboard.max()) + 1
    max_size = np.zeros(nb, dtype=np.int64)
    np.maximum.at(max_size, rboard, A)
    ngroups = np.bincount(np.unique(gkey) // ng, minlength=nb)
    groups: dict[int, list[int]] = {}
    for j in np.flatnonzero(small).tolist():
        groups.setdefault(int(gkey[j]), []).append(j)
    for members in groups.values():
        j0 = members[0]
        b = int(rboard[j0])
        if ngroups[b] < 2:
            continue
        size = len(members)
        if not fixed_awards(rule, size, int(Er[j0]), int(max_size[b])):
            continue
        awards = _SMALL_AWARDS[size]
        rows = [int(ridx[j]) for j in members]
        for sign, out in ((1, ns_num), (-1, ew_num)):
            # rank by this side's score, best first; tied results share the awards of their places
            vals = [sign * int(score[r]) for r in rows]
            srt = sorted(vals, reverse=True)
            for r, v in zip(rows, vals):
                places = [k for k, x in enumerate(srt) if x == v]
                pct = Fraction(sum(awards[k] for k in places), len(places))
                assert pct.denominator == 1  # 70/60/50 and 65/55 shares are whole percentages
                out[r] = int(pct) * int(top_ebu[r])
        for r in rows:
            den[r] = 100 * sd


def matchpoint_session(entries: Any, boards: Any = None, *, expected: object = None, scale: str = Scale.EBU,
                       check_legal: bool = True, groups: Any = None, fouled: str = "EBU") -> SessionMP:
    """Matchpoint a traveller sheet or a whole session at once (rows grouped by board); exact.

    ``entries``: one per row, an N-S score (int, or a raw cell such as ``420.0``, ``"+420"``),
    an artificial score (``Artificial`` or ``"A60/40"``, ``"A+"``), ``NOT_PLAYED``/``"NP"``, or
    ``None``/blank; a numpy numeric array (NaN = blank) takes a fast path.  ``boards``: the
    parallel board numbers (``None``: all rows are one board).  With ``boards`` and
    ``check_legal`` every score is checked against the legal scores of the board's
    vulnerability (16-board cycle), the error naming board, row and value; without ``boards``
    a score must be legal at some vulnerability (``+410`` never is).

    Each board's real results are matchpointed among themselves (Law 78A, ``scale`` "EBU" 2/1
    or "ACBL" 1/0.5) and Neuberg-factored to ``expected`` results (an int for every board, or a
    mapping board -> E; default: the largest number of rows holding a score or an artificial
    score on any board in the call).  Artificial scores get their percentage of the full top
    (Law 12C2) and are left out of the matchpointed group.  ``NP`` and blank rows get nothing.

    Fouled boards: ``groups`` (parallel deal-group ids; ``None`` = no fouled boards) scores each
    group separately, Neuberg-factored to the full field, with the small sub-field rule named by
    ``fouled`` ("EBU" default, "ACBL", "neuberg" = none; see ``FOULED_RULES``).

    >>> s = matchpoint_session([520, 500, 490, 480, 460, 450, 430, 420, 400, -50], expected=11)
    >>> [float(x) for x in s.ns][:3], float(s.ns[-1])      # seed 001, section 4
    ([19.9, 17.7, 15.5], 0.1)
    >>> matchpoint_session([420, 410], boards=[1, 1])
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.ImpossibleScoreError: board 1, row 2: impossible score: 410 (no contract and result gives N-S 410 when vulnerability is None)
    """
    entries, boards, groups = as_column(entries), as_column(boards), as_column(groups)
    n = len(entries)
    bcode, blabels = factorize(boards, n, "boards")
    kind, score, arts = read_entries(entries, bcode, blabels, boards is not None)
    gcode = None if groups is None else factorize(groups, n, "groups")[0]
    return session_from_rows(kind, score, arts, bcode if boards is not None else None,
                             blabels if boards is not None else None, expected=expected, scale=scale,
                             check_legal=check_legal, group_codes=gcode, fouled=fouled)


def session_from_rows(kind: npt.NDArray[np.int8], score: IntArray, arts: dict[int, Artificial],
                      board_codes: IntArray | None = None, board_labels: Sequence[Any] | None = None, *,
                      expected: object = None, scale: str = Scale.EBU, check_legal: bool = True,
                      group_codes: IntArray | None = None, fouled: str = "EBU") -> SessionMP:
    """:func:`matchpoint_session` for rows already read: ``kind`` (ROW_*), ``score``, {row: Artificial}.

    For callers that read the score cells themselves, vectorised (the Excel layer): the board
    codes and labels come from :func:`xlbridge.core.boards.factorize` (``None``: one board).

    >>> import numpy as np
    >>> s = session_from_rows(np.array([ROW_SCORE] * 3, dtype=np.int8), np.array([420, 400, 400]), {})
    >>> s.ns
    [Fraction(4, 1), Fraction(1, 1), Fraction(1, 1)]
    """
    sc = mp_scale(scale)
    fouled = fouled_rule(fouled)
    n = len(kind)
    boards_given = board_codes is not None and board_labels is not None
    if boards_given:
        assert board_codes is not None and board_labels is not None
        bcode, blabels = board_codes, list(board_labels)
        if any(lab is None for lab in blabels):
            missing = (kind != ROW_BLANK) & np.array([lab is None for lab in blabels])[bcode]
            if missing.any():
                i = int(np.flatnonzero(missing)[0])
                raise InputError("a score has no board number", where=location(row=i + 1))
    else:
        bcode, blabels = np.zeros(n, dtype=np.int64), [None]
    if check_legal:
        check_traveller(score, kind == ROW_SCORE, bcode if boards_given else None, blabels if boards_given else None)
    counts = results_per_board(kind, bcode, len(blabels))
    E_board = expected_per_board(expected, counts, blabels, boards_given)
    ns_num, ew_num, den, top, E = score_rows(kind, score, arts, bcode, blabels, E_board, sc, group_codes, fouled,
                                             boards_given)
    return SessionMP(sc, ns_num, ew_num, den, top, E, kind,
                     bcode if boards_given else None, tuple(blabels) if boards_given else None)


