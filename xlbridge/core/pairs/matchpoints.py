"""Matchpoints (Law 78A) for one board or a whole session, Neuberg factoring, fouled boards, rankings.

Everything is exact.  Per row the N-S and E-W matchpoints are kept as integer numerators over
a per-row integer denominator (numpy arrays, so a session of a million rows is scored with a
few sorts) and turned into ``fractions.Fraction`` only when asked for (``SessionMP.ns``).

Scales (a named option ``scale=``):

- ``"EBU"`` (default; Law 78A, WBF, EBU): 2 points for each score beaten, 1 for each tie;
  top = 2(n - 1).
- ``"ACBL"``: 1 point for each score beaten, 1/2 for each tie; top = n - 1.  Every figure is
  exactly half the EBU figure.

Neuberg (seed 001, REFERENCE.md): with A actual results where E were expected, each result is
treated as occurring E/A times: MP = (M + 1) E / A - 1 on the 2/1 scale and
(M + 1/2) E / A - 1/2 on the 1/0.5 scale, M being the matchpoints among the A results.

>>> neuberg(14, 16, 8)
Fraction(29, 1)
>>> s = matchpoint_session([490, 460, 460, 430, 430, 430, 400, -50], expected=16)
>>> [str(x) for x in s.ns]
['29', '23', '23', '13', '13', '13', '5', '1']
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from decimal import Decimal
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

from ..contract import check_score, legal_scores, vulnerability
from ..entries import Artificial, NotPlayed, parse_entry
from ..errors import ContractError, ImpossibleScoreError, InputError, location

__all__ = [
    "MP_SCALES",
    "FOULED_RULES",
    "ROW_BLANK",
    "ROW_NOT_PLAYED",
    "ROW_SCORE",
    "ROW_ARTIFICIAL",
    "neuberg",
    "mp_top",
    "mp_percent",
    "SessionMP",
    "matchpoint_session",
    "Standing",
    "ARTIFICIAL_RULES",
    "pairs_ranking",
]

#: Matchpoint scales: name -> (points for a score beaten, points for a tie).
MP_SCALES = {"EBU": (2, 1), "ACBL": (1, Fraction(1, 2))}
_SCALE_ALIASES = {"EBU": "EBU", "2/1": "EBU", "WBF": "EBU", "ACBL": "ACBL", "1/0.5": "ACBL", "1/.5": "ACBL"}

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


def _scale(scale) -> str:
    key = scale.strip().upper() if isinstance(scale, str) else scale
    if key not in _SCALE_ALIASES:
        raise InputError(f"unknown matchpoint scale {scale!r} (expected 'EBU' (2/1) or 'ACBL' (1/0.5))")
    return _SCALE_ALIASES[key]


def _to_fraction(value, what: str) -> Fraction:
    """Exact value of a number; a float is read as its shortest decimal (19.9 -> 199/10)."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, bool) or value is None:
        raise InputError(f"{what} must be a number, got {value!r}")
    if hasattr(value, "dtype") and hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InputError(f"{what} must be a finite number, got {value!r}")
        return Fraction(repr(value))
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            pass
    elif isinstance(value, (numbers.Rational, Decimal)):
        return Fraction(value)
    raise InputError(f"{what} must be a number, got {value!r}")


def _count(value, what: str, minimum: int = 1) -> int:
    if hasattr(value, "dtype") and hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InputError(f"{what} must be a whole number {minimum} or more, got {value!r}")
    return value


def mp_top(results: int, scale: str = "EBU") -> int:
    """The top on a board of ``results`` results: 2(n - 1) on the EBU scale, n - 1 on the ACBL scale.

    >>> mp_top(11), mp_top(11, "ACBL")
    (20, 10)
    """
    n = _count(results, "results")
    return 2 * (n - 1) if _scale(scale) == "EBU" else n - 1


def neuberg(mp, expected, actual, scale: str = "EBU") -> Fraction:
    """Neuberg-factor matchpoints ``mp`` earned among ``actual`` results to ``expected`` results.

    EBU 2/1 scale: (M + 1) E / A - 1 (seed 001, section 5: (M E + (E - A)) / A);
    ACBL 1/0.5 scale: (M + 1/2) E / A - 1/2.  Equal to matchpointing the board with every
    result occurring E/A times.  ``mp`` may be a fraction (floats are read as their decimal).

    >>> neuberg(14, 16, 8), neuberg(18, 11, 10)            # seed 001: 29 and 19.9
    (Fraction(29, 1), Fraction(199, 10))
    >>> [str(neuberg(m, 6, 5, "ACBL")) for m in (4, 2.5, 1, 0)]   # seed 004 (ERRATA)
    ['49/10', '31/10', '13/10', '1/10']
    """
    sc = _scale(scale)
    e = _count(expected, "expected number of results")
    a = _count(actual, "actual number of results")
    if e < a:
        raise InputError(f"expected {e} results but there are {a} (expected must be at least the actual number)")
    m = _to_fraction(mp, "matchpoints")
    top = 2 * (a - 1) if sc == "EBU" else a - 1
    if not 0 <= m <= top:
        raise InputError(f"matchpoints {mp!r} are outside 0..{top}, the top for {a} results on the {sc} scale")
    half = 1 if sc == "EBU" else Fraction(1, 2)
    return (m + half) * e / a - half


def mp_percent(mp, results, scale: str = "EBU") -> Fraction:
    """Matchpoints as an exact percentage of the top for a board of ``results`` results.

    100 mp / top, top = 2(n - 1) (EBU) or n - 1 (ACBL).

    >>> mp_percent(Fraction(1060, 11), 51)       # seed 001, section 7: 96.36... %
    Fraction(1060, 11)
    >>> mp_percent(3, 4, "ACBL")
    Fraction(100, 1)
    """
    n = _count(results, "results", 2)
    top = mp_top(n, scale)
    return _to_fraction(mp, "matchpoints") * 100 / top


# --------------------------------------------------------------------------------------------
# reading the inputs


def _as_array(values):
    """A pandas Series / Index becomes its numpy array; anything else is returned unchanged."""
    if values is not None and hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        return values.to_numpy()
    return values


def _board_label(b):
    if hasattr(b, "dtype") and hasattr(b, "item"):
        b = b.item()
    if isinstance(b, float):
        if b != b:
            return None  # a blank cell arriving as NaN
        if b.is_integer():
            return int(b)
    if isinstance(b, str):
        t = b.strip()
        if not t:
            return None
        if t.lstrip("+-").isdigit():
            return int(t)
        return t
    return b


def _factorize(values, n: int, what: str):
    """Integer codes 0..k-1 for ``values`` and the label of each code.

    Integer board numbers are coded as ``number - lowest`` (labels with no row are harmless);
    other labels in order of first appearance.
    """
    if values is None:
        return np.zeros(n, dtype=np.int64), [None]
    if len(values) != n:
        raise InputError(f"{what} has {len(values)} rows but the scores have {n}")
    arr = values if isinstance(values, np.ndarray) and values.ndim == 1 else None
    if arr is not None and arr.dtype.kind == "f" and n and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
        arr = arr.astype(np.int64)
    if arr is not None and arr.dtype.kind in "iu":
        arr = arr.astype(np.int64, copy=False)
        lo, hi = (int(arr.min()), int(arr.max())) if n else (0, -1)
        if hi - lo <= 4 * n + 16:  # dense labels (board numbers): code = label - lowest
            return arr - lo, list(range(lo, hi + 1))
        uniq, inv = np.unique(arr, return_inverse=True)
        return inv.astype(np.int64).reshape(-1), [int(u) for u in uniq]
    codes = np.empty(n, dtype=np.int64)
    seen: dict = {}
    labels = []
    for i, v in enumerate(values):
        lab = _board_label(v)
        c = seen.get(lab)
        if c is None:
            c = seen[lab] = len(labels)
            labels.append(lab)
        codes[i] = c
    return codes, labels


def _where(board, row, boards_given: bool):
    return location(board=board if boards_given else None, row=row)


#: Largest score magnitude read at all (any bridge score is at most 7,600; with
#: ``check_legal=False`` other multiples of 10 pass, but never one that could overflow int64).
_MAX_SCORE = 10**15


def _too_large(value, where):
    raise InputError(f"impossible score: {value!r} (far too large for a bridge score)", where=where)


def _read_entries(entries, board_codes, board_labels, boards_given):
    """kind (int8), score (int64) arrays and {row: Artificial}."""
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
                bad = good & ((~np.isfinite(vals)) | (vals != np.round(vals)) | (np.abs(vals) > _MAX_SCORE))
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                where = _where(board_labels[board_codes[i]], i + 1, boards_given)
                parse_entry(float(vals[i]), where=where)  # raises for NaN-free non-whole / infinite values
                _too_large(float(vals[i]), where)
            ivals = np.where(good, vals, 0).astype(np.int64)
        else:
            good = np.ones(n, dtype=bool)
            huge = vals > _MAX_SCORE if vals.dtype.kind == "u" else (vals > _MAX_SCORE) | (vals < -_MAX_SCORE)
            if huge.any():
                i = int(np.flatnonzero(huge)[0])
                _too_large(vals[i].item(), _where(board_labels[board_codes[i]], i + 1, boards_given))
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
        if isinstance(v, int) and not isinstance(v, bool) and v % 10 == 0:
            e = v
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
            if not -_MAX_SCORE <= e <= _MAX_SCORE:
                _too_large(e, _where(board_labels[board_codes[i]], i + 1, boards_given))
            kind[i] = ROW_SCORE
            score[i] = e
    return kind, score, arts


_VUL_NAMES = ("None", "NS", "EW", "All")
_CYCLE_IDX = np.array([0, 1, 2, 3, 1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2], dtype=np.int64)
_LEGAL_TABLE: list = []


def _legal_table():
    """(offset, table[vul, score + offset]) of the legal N-S scores for each vulnerability (no division)."""
    if not _LEGAL_TABLE:
        sets = [legal_scores(v) for v in _VUL_NAMES]
        off = max(abs(x) for st in sets for x in st)
        tab = np.zeros((4, 2 * off + 1), dtype=bool)
        for vi, st in enumerate(sets):
            tab[vi, np.fromiter(st, dtype=np.int64) + off] = True
        _LEGAL_TABLE.extend([off, tab])
    return _LEGAL_TABLE


def _check_legal(kind, score, board_codes, board_labels):
    """Raise ImpossibleScoreError naming board, row and value for the first illegal score."""
    real = kind == ROW_SCORE
    if not real.any():
        return
    used = np.bincount(board_codes[real], minlength=len(board_labels)) > 0
    vul_of_board = np.full(len(board_labels), -1, dtype=np.int64)
    labels = board_labels
    if all(type(x) is int and x >= 1 for x in labels):
        vul_of_board[:] = _CYCLE_IDX[(np.array(labels, dtype=np.int64) - 1) % 16]
    else:
        for c in np.flatnonzero(used).tolist():
            lab = labels[c]
            try:
                v = vulnerability(lab)
            except (ContractError, TypeError) as exc:
                row = int(np.flatnonzero(real & (board_codes == c))[0]) + 1
                raise InputError(
                    f"board {lab!r} is not a board number, so its vulnerability is unknown "
                    f"(pass check_legal=False to skip the legal-score check)",
                    where=location(row=row),
                ) from exc
            vul_of_board[c] = _VUL_NAMES.index(v.name)
    off, tab = _legal_table()
    vrow = vul_of_board[board_codes]
    col = score + off
    width = tab.shape[1]
    flat = tab.ravel()
    if int(col.min()) >= 0 and int(col.max()) < width:
        ok = flat[vrow * width + col]
    else:
        inside = (col >= 0) & (col < width)
        ok = np.zeros(len(score), dtype=bool)
        ok[inside] = flat[vrow[inside] * width + col[inside]]
    bad = real & ~ok
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        check_score(int(score[i]), _VUL_NAMES[vrow[i]], where=location(board=board_labels[board_codes[i]], row=i + 1))
        raise AssertionError("legal-score table disagrees with check_score")  # pragma: no cover


def _check_legal_any(kind, score, extra=()):
    """Without board numbers: every score must be legal under some vulnerability (+410 never is).

    ``extra``: further (row index, score) pairs to check (other outcomes of weighted scores).
    """
    off, tab = _legal_table()
    anyvul = tab.any(axis=0)
    real = kind == ROW_SCORE
    col = score + off
    ok = (col >= 0) & (col < len(anyvul))
    ok[ok] = anyvul[col[ok]]
    bad = np.flatnonzero(real & ~ok)
    rows = [(int(i), int(score[i])) for i in bad[:1]]
    rows += [(i, s) for i, s in extra if not (0 <= s + off < len(anyvul) and anyvul[s + off])]
    if rows:
        i, s = min(rows)
        raise ImpossibleScoreError(
            f"impossible score: {s!r} (no contract and result gives N-S {s} at any vulnerability)",
            where=location(row=i + 1),
        )


def _counts(kind, bcode, nb):
    """Rows holding a score or an artificial score, per board code."""
    scored = kind >= ROW_SCORE
    return np.bincount(bcode if scored.all() else bcode[scored], minlength=nb)


#: Largest accepted E: keeps every integer numerator of the vectorised core far inside int64.
_MAX_EXPECTED = 10**9


def _limit_expected(e: int, where) -> int:
    if e > _MAX_EXPECTED:
        raise InputError(f"expected number of results {e} is more than {_MAX_EXPECTED:,}", where=where)
    return e


def _expected_per_board(expected, counts, board_labels, boards_given):
    """E for each board code; checks E >= results on the board."""
    nb = len(board_labels)
    if expected is None:
        e = int(counts.max()) if len(counts) else 0
        return np.full(nb, e, dtype=np.int64)
    if isinstance(expected, Mapping):
        if not boards_given:
            raise InputError("expected is a mapping board -> number of results, but no boards were given "
                             "(pass boards=, or one number for expected)")
        norm = {_board_label(k): v for k, v in expected.items()}
        out = np.zeros(nb, dtype=np.int64)
        for c, lab in enumerate(board_labels):
            if counts[c] == 0:
                continue
            if lab not in norm:
                raise InputError(f"expected has no number of results for board {lab!r}")
            out[c] = _limit_expected(_count(norm[lab], f"expected results for board {lab!r}"), f"board {lab!r}")
    else:
        out = np.full(nb, _limit_expected(_count(expected, "expected number of results"), None), dtype=np.int64)
    short = np.flatnonzero(out < counts)
    if len(short):
        c = int(short[0])
        where = f"board {board_labels[c]}" if boards_given else None
        raise InputError(
            f"expected {int(out[c])} results but there are {int(counts[c])} scores (and artificial scores)",
            where=where,
        )
    return out


# --------------------------------------------------------------------------------------------
# the vectorised core


def _rank_in_groups(gkey, score, tens=False):
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

    def starts_ends(flags):
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
    board_labels: tuple | None = None

    @cached_property
    def boards(self) -> tuple | None:
        """The board label of each row (``None`` when the call had no ``boards``).

        >>> matchpoint_session([420, 400, 170], boards=[1.0, "1", 2]).boards
        (1, 1, 2)
        """
        if self.board_codes is None:
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

    def _fractions(self, num) -> list:
        # values repeat across rows and boards: build each distinct Fraction once
        cache: dict = {}
        out = []
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
    def ns(self) -> list:
        """N-S matchpoints per row (``Fraction``; ``None`` for blank and not-played rows)."""
        return self._fractions(self.ns_num)

    @cached_property
    def ew(self) -> list:
        """E-W matchpoints per row (``Fraction``; ``None`` for blank and not-played rows)."""
        return self._fractions(self.ew_num)

    @cached_property
    def tops(self) -> list:
        """The top of each row's board (``int``; ``None`` for blank and not-played rows)."""
        return [t if k >= ROW_SCORE else None for t, k in zip(self.top.tolist(), self.kind.tolist())]

    def _percent(self, values) -> list:
        return [None if v is None or t == 0 else v * 100 / t for v, t in zip(values, self.tops)]

    @cached_property
    def ns_percent(self) -> list:
        """N-S matchpoints as an exact percentage of the top (``None`` where there is no score).

        >>> matchpoint_session([420, 400, 400, "NP"], expected=4).ns_percent   # (M + 1) 4/3 - 1 of top 6
        [Fraction(850, 9), Fraction(250, 9), Fraction(250, 9), None]
        """
        return self._percent(self.ns)

    @cached_property
    def ew_percent(self) -> list:
        """E-W matchpoints as an exact percentage of the top (``None`` where there is no score)."""
        return self._percent(self.ew)


def _scale_den(sc: str) -> int:
    return 1 if sc == "EBU" else 2


def _score_session(kind, score, arts, bcode, board_labels, E_board, sc, gcode=None, fouled="EBU",
                   boards_given=True, skip_rows=None):
    """Numerators/denominators for every row (see SessionMP).  ``skip_rows``: mask left at 0/1.

    Real results: N-S (M + 1) E - A over A (2/1 scale; over 2A on the 1/0.5 scale) with
    M + 1 = less + le (2 per score beaten, 1 per other tie), E-W likewise from the other end.
    """
    n = len(kind)
    scored = kind >= ROW_SCORE
    sd = _scale_den(sc)
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


def _fixed_awards(rule: str, size: int, expected: int, largest: int) -> bool:
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


def _small_subfields(ridx, gkey, ng, score, A, Er, top_ebu, sd, rule, ns_num, ew_num, den):
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
        if not _fixed_awards(rule, size, int(Er[j0]), int(max_size[b])):
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


def matchpoint_session(entries, boards=None, *, expected=None, scale: str = "EBU", check_legal: bool = True,
                       groups=None, fouled: str = "EBU") -> SessionMP:
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
    sc = _scale(scale)
    entries, boards, groups = _as_array(entries), _as_array(boards), _as_array(groups)
    if fouled not in FOULED_RULES:
        raise InputError(f"unknown fouled-board rule {fouled!r} (expected one of {', '.join(FOULED_RULES)})")
    n = len(entries)
    boards_given = boards is not None
    bcode, blabels = _factorize(boards, n, "boards")
    kind, score, arts = _read_entries(entries, bcode, blabels, boards_given)
    if boards_given:
        missing = None
        if any(lab is None for lab in blabels):
            missing = (kind != ROW_BLANK) & np.array([lab is None for lab in blabels])[bcode]
        if missing is not None and missing.any():
            i = int(np.flatnonzero(missing)[0])
            raise InputError("a score has no board number", where=location(row=i + 1))
        if check_legal:
            _check_legal(kind, score, bcode, blabels)
    elif check_legal:
        _check_legal_any(kind, score)
    gcode = None
    if groups is not None:
        gcode, _ = _factorize(groups, n, "groups")
    counts = _counts(kind, bcode, len(blabels))
    E_board = _expected_per_board(expected, counts, blabels, boards_given)
    ns_num, ew_num, den, top, E = _score_session(kind, score, arts, bcode, blabels, E_board, sc, gcode, fouled,
                                                 boards_given)
    return SessionMP(sc, ns_num, ew_num, den, top, E, kind,
                     bcode if boards_given else None, tuple(blabels) if boards_given else None)


# --------------------------------------------------------------------------------------------
# pair rankings


@dataclass(frozen=True)
class Standing:
    """One pair's result over a session: exact total, maximum, percentage; rank and exact tie.

    ``percentage`` is ``None`` (and ``rank`` ``None``) for a pair with no scored board;
    ``boards`` is the number of boards with matchpoints that were added up.

    >>> Standing("7", Fraction(9), Fraction(12), Fraction(75), 2, True, 3).percentage
    Fraction(75, 1)
    """

    pair: object
    total: Fraction
    maximum: Fraction
    percentage: Fraction | None
    rank: int | None
    tied: bool
    boards: int = 0


def _blank_pair(p) -> bool:
    return p is None or (isinstance(p, float) and p != p) or (isinstance(p, str) and not p.strip())


def _pair_label(p):
    if hasattr(p, "dtype") and hasattr(p, "item"):
        p = p.item()
    if isinstance(p, float) and p.is_integer():
        return int(p)
    if isinstance(p, str):
        return p.strip()
    return p


#: Artificial-score rules for rankings (``pairs_ranking(..., artificial=)``):
#:
#: - ``"fixed"`` (default): an artificial score counts as awarded (60 / 50 / 40 % of the top).
#: - ``"session"``: a pair awarded more than 50 % gets its percentage on its other boards
#:   instead when that is higher, a pair awarded less than 50 % gets it when that is lower
#:   (regulations such as "60 % or the session percentage if greater", Law 12C2; REFERENCE.md).
ARTIFICIAL_RULES = ("fixed", "session")


def _session_artificial(s: "SessionMP", ns_pairs, ew_pairs, mp_ns, mp_ew, tops):
    """mp_ns / mp_ew with artificial awards replaced per the "session" rule (new lists)."""
    mp_ns, mp_ew = list(mp_ns), list(mp_ew)
    art = s.kind == ROW_ARTIFICIAL
    tot: dict = {}
    mx: dict = {}
    for i in np.flatnonzero(~art & s.scored).tolist():
        for pair, mp in ((ns_pairs[i], mp_ns[i]), (ew_pairs[i], mp_ew[i])):
            if not _blank_pair(pair):
                p = _pair_label(pair)
                tot[p] = tot.get(p, 0) + mp
                mx[p] = mx.get(p, 0) + tops[i]
    for i in np.flatnonzero(art).tolist():
        t = tops[i]
        for pair, col in ((ns_pairs[i], mp_ns), (ew_pairs[i], mp_ew)):
            if _blank_pair(pair) or not t:
                continue
            p = _pair_label(pair)
            if not mx.get(p):
                continue  # no other board: the award stands
            pct, sess = col[i] * 100 / t, tot[p] * 100 / mx[p]
            if (pct > 50 and sess > pct) or (pct < 50 and sess < pct):
                col[i] = sess * t / 100
    return mp_ns, mp_ew


def pairs_ranking(boards, ns_pairs, ew_pairs, mp_ns=None, mp_ew=None, tops=None, *,
                  artificial: str = "fixed") -> list[Standing]:
    """Rank pairs by exact percentage: per pair the total matchpoints, the maximum, the percentage.

    Either ``pairs_ranking(session, ns_pairs, ew_pairs)`` with a :class:`SessionMP` (or the
    result of ``weighted_session``), or ``pairs_ranking(boards, ns_pairs, ew_pairs, mp_ns,
    mp_ew, tops)`` with parallel columns (matchpoints as Fractions, ints or decimals; rows whose
    matchpoints are ``None`` are skipped).  A pair playing both directions just sums.  The
    maximum is the sum of the tops of the boards the pair has a score on; percentage =
    100 total / maximum.  Ranks are decided on the exact percentages; equal ones share the
    rank ("competition" ranking 1, 2=, 2=, 4) with ``tied`` set.  Best first; ties keep the
    order of first appearance.  A pair may not appear twice on one board.  ``artificial``
    (with a SessionMP): "fixed" (default) or "session" (see ``ARTIFICIAL_RULES``).

    >>> s = matchpoint_session([420, 400, 400], boards=[1, 1, 1])
    >>> [(x.pair, x.total, x.rank, x.tied) for x in pairs_ranking(s, [1, 2, 3], [4, 5, 6])]
    ... # doctest: +NORMALIZE_WHITESPACE
    [(1, Fraction(4, 1), 1, False), (5, Fraction(3, 1), 2, True), (6, Fraction(3, 1), 2, True),
     (2, Fraction(1, 1), 4, True), (3, Fraction(1, 1), 4, True), (4, Fraction(0, 1), 6, False)]
    """
    if artificial not in ARTIFICIAL_RULES:
        raise InputError(f"unknown artificial-score rule {artificial!r} (expected 'fixed' or 'session')")
    if isinstance(boards, SessionMP):
        s = boards
        mp_ns, mp_ew, tops, boards = s.ns, s.ew, s.tops, s.boards
        if len(ns_pairs) != len(s) or len(ew_pairs) != len(s):
            raise InputError(f"ns_pairs and ew_pairs need {len(s)} rows, one per row of the session")
        if artificial == "session":
            mp_ns, mp_ew = _session_artificial(s, ns_pairs, ew_pairs, mp_ns, mp_ew, tops)
    elif artificial == "session":
        raise InputError('artificial="session" needs a SessionMP (it must know which rows are artificial)')
    n = len(ns_pairs)
    cols = {"ew_pairs": ew_pairs, "mp_ns": mp_ns, "mp_ew": mp_ew, "tops": tops}
    for name, col in cols.items():
        if col is None:
            raise InputError(f"pairs_ranking needs {name} (or a SessionMP as the first argument)")
        if len(col) != n:
            raise InputError(f"{name} has {len(col)} rows but ns_pairs has {n}")
    if boards is not None and len(boards) != n:
        raise InputError(f"boards has {len(boards)} rows but ns_pairs has {n}")
    total: dict = {}
    maximum: dict = {}
    count: dict = {}
    seen: set = set()
    for i in range(n):
        t = tops[i]
        for pair, mp in ((ns_pairs[i], mp_ns[i]), (ew_pairs[i], mp_ew[i])):
            if _blank_pair(pair):
                continue
            p = _pair_label(pair)
            if p not in total:
                total[p], maximum[p], count[p] = Fraction(0), Fraction(0), 0
            if mp is None or t is None:
                continue
            if boards is not None:
                b = _board_label(boards[i])
                if (p, b) in seen:
                    raise InputError(f"pair {p!r} has two results on board {b!r}", where=location(row=i + 1))
                seen.add((p, b))
            total[p] += _to_fraction(mp, f"matchpoints of pair {p!r} (row {i + 1})")
            maximum[p] += _to_fraction(t, f"top of row {i + 1}")
            count[p] += 1
    pct = {p: (total[p] * 100 / maximum[p] if maximum[p] else None) for p in total}
    order = list(total)  # first appearance
    ranked = sorted((p for p in order if pct[p] is not None), key=lambda p: -pct[p])
    out = []
    k = 0
    while k < len(ranked):
        j = k
        while j + 1 < len(ranked) and pct[ranked[j + 1]] == pct[ranked[k]]:
            j += 1
        for p in ranked[k:j + 1]:
            out.append(Standing(p, total[p], maximum[p], pct[p], k + 1, j > k, count[p]))
        k = j + 1
    for p in order:
        if pct[p] is None:
            out.append(Standing(p, total[p], maximum[p], None, None, False, 0))
    return out
