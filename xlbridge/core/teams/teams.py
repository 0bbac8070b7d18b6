"""Weighted adjusted scores in team play (Law 12C1(c), seed 004) and match results in VPs.

A weighted score gives a table several possible outcomes with probabilities (weights).  Each
outcome is scored in the form of the event (IMPs, VPs, board-a-match points, cross-IMPs,
Butler IMPs) and the scores are weighted; raw table scores are never averaged (REFERENCE.md).

Seed 004's figures: team A is given 60 % of 420 and 40 % of -50; the other room has 400.

>>> weighted_imps([(420, 0.6), (-50, 0.4)], 400)                 # 0.6 x 1 + 0.4 x (-10)
Fraction(-17, 5)
>>> weighted_imps([(420, "60%"), (-50, 40)], 400, rounding="nearest")
Fraction(-3, 1)
>>> board_a_match([(420, 0.6), (-50, 0.4)], 400)                 # 0.6 x 1 + 0.4 x (-1)
Fraction(1, 5)
>>> board = outcome_imps([(420, 0.6), (-50, 0.4)], 400)           # ((1, 3/5), (-10, 2/5))
>>> float(weighted_vp(8, [board], 7, rounding="nearest"))          # Swiss, IMP level: +5
12.18
>>> weighted_vp(8, [board], 7, level="vp")                        # 0.6 x 13.65 + 0.4 x 9.08
Fraction(5911, 500)

Weights are written 0.6, 60 or "60%" (a number above 1 is a percentage; 1 means 100 %), read by
:func:`xlbridge.core.pairs.weighted.parse_weight`; the weights of one result must total exactly 100 %.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..boards import board_label, check_traveller
from ..contract import check_score
from ..entries import MAX_SCORE_READ, Artificial, parse_entry
from ..errors import InputError, LimitError, TooManyCombinationsError, WeightError, shown
from ..numbers import exact, is_blank, whole
from ..pairs.weighted import parse_weight
from ..rounding import named_option, round_fraction, rounding_rule
from .butler import Butler, butler_datums
from .imps import CrossImps, artificial_imps, expected_results, imps, imps_array
from .vp import vp, vp_scale

__all__ = [
    "IMP_ROUNDINGS",
    "BAM_SCALES",
    "DEFAULT_MAX_COMBINATIONS",
    "round_imps",
    "outcome_imps",
    "weighted_imps",
    "artificial_board_imps",
    "weighted_vp",
    "board_a_match",
    "weighted_cross_imps",
    "weighted_butler",
    "MatchResult",
    "match_result",
]

#: Rules offered for rounding a weighted (fractional) IMP result to a whole IMP (see
#: :func:`round_imps`; names of :mod:`xlbridge.core.rounding`; "nearest", the spelling the templates use, is an
#: alias of half_away).
IMP_ROUNDINGS = ("half_away", "favour_non_offending")
#: Board-a-match scales (see :func:`board_a_match`).
BAM_SCALES = ("net", "points")
#: Largest number of outcome combinations enumerated on one board (weighted Butler) or one match
#: (weighted VPs): beyond it a TooManyCombinationsError is raised instead of running for minutes.
#: 2**20 = 1,048,576 combinations, e.g. 20 results each weighted between two outcomes.
DEFAULT_MAX_COMBINATIONS = 2**20

_CHUNK = 8192  # combinations scored at once (bounds memory: chunk x results int64)


# --------------------------------------------------------------------------- weights & outcomes

def _weight(value: object, where: str | None = None) -> Fraction:
    """One weight as an exact Fraction by the project's rule (:func:`xlbridge.core.pairs.weighted.parse_weight`):
    0.6, 60 and "60%" all mean 3/5; a blank weight is an error here."""
    w = parse_weight(value, where=where)
    if w is None:
        raise WeightError("an outcome has no weight", where=where)
    return w


def _outcomes(outcomes: Any, weights: Any = None, where: str | None = None) -> tuple[tuple[int, Fraction], ...]:
    """Normalise a weighted result to ``((score, Fraction weight), ...)``, weights totalling 1.

    Accepts pairs ``[(420, 0.6), (-50, 0.4)]``, a mapping ``{420: 0.6, -50: 0.4}``, or scores
    with a parallel ``weights`` list.  A single score with a blank weight has weight 1.
    Outcomes with weight 0 are dropped.
    """
    if weights is not None:
        scores = list(outcomes) if isinstance(outcomes, (list, tuple, np.ndarray)) else [outcomes]
        ws = list(weights) if isinstance(weights, (list, tuple, np.ndarray)) else [weights]
        if len(ws) != len(scores):
            raise WeightError(f"{len(scores)} outcomes but {len(ws)} weights", where=where)
        pairs = list(zip(scores, ws))
    elif isinstance(outcomes, dict):
        pairs = list(outcomes.items())
    else:
        pairs = list(outcomes)
        for p in pairs:
            if not (isinstance(p, (list, tuple)) and len(p) == 2):
                raise WeightError(f"an outcome must be a (score, weight) pair, got {shown(p)}", where=where)
    filled = [(s, w) for s, w in pairs if not (is_blank(s) and is_blank(w))]
    if len(filled) == 1 and is_blank(filled[0][1]):
        filled = [(filled[0][0], 1)]
    out = []
    for k, (s, w) in enumerate(filled, start=1):
        w_here = f"{where}, outcome {k}" if where else f"outcome {k}"
        e = parse_entry(s, where=w_here)
        if not isinstance(e, int):
            raise InputError(f"each outcome of a weighted score must be a N-S score, got {shown(s)}", where=w_here)
        if is_blank(w):
            raise WeightError(f"outcome {shown(s)} has no weight", where=w_here)
        out.append((e, _weight(w, where=w_here)))
    if not out:
        raise WeightError("a weighted score needs at least one outcome", where=where)
    total = sum(w for _, w in out)
    if total != 1:
        raise WeightError(f"weights total {float(total) * 100:g}%, not 100%", where=where)
    return tuple((s, w) for s, w in out if w)


# --------------------------------------------------------------------------- rounding

#: Who offended, seen from the side a value belongs to (``"ns"``: that side), and other spellings.
_OFFENDERS = ("ns", "ew", "both", "neither")
_OFFENDER_ALIASES = {"a": "ns", "us": "ns", "n-s": "ns", "b": "ew", "them": "ew", "e-w": "ew", "none": "neither"}
#: The levels at which weighted boards are averaged (see :func:`weighted_vp`).
_LEVELS = ("imp", "vp")


def round_imps(value: object, rule: str | None = "nearest", *, offender: object = None) -> Fraction:
    """Round a weighted IMP result to a whole IMP by a named rule (``None``: keep it exact).

    - ``"half_away"`` (also spelt ``"nearest"``): to the nearest IMP, an exact half away from
      zero (the same for both teams).
    - ``"favour_non_offending"``: to the nearest IMP; an exact half goes in favour of the
      non-offending side, and when both or neither side offended, to the lower integer (the rule
      the author of seed 004 prefers).  ``offender`` names who offended, seen from the side the
      value belongs to: ``"ns"``/``"a"``/``"us"`` (that side), ``"ew"``/``"b"``/``"them"``,
      ``"both"`` or ``None``.

    >>> round_imps(Fraction(-17, 5)), round_imps(Fraction(5, 2)), round_imps(Fraction(-5, 2))
    (Fraction(-3, 1), Fraction(3, 1), Fraction(-3, 1))
    >>> [round_imps(Fraction(5, 2), "favour_non_offending", offender=o) for o in ("ns", "ew", None)]
    [Fraction(2, 1), Fraction(3, 1), Fraction(2, 1)]
    """
    x = exact(value, "IMPs")  # a float is read as its shortest repr, as everywhere
    if rule is None:
        return x
    r = rounding_rule(rule, IMP_ROUNDINGS, what="IMP rounding")
    side = None if offender is None else named_option(offender, _OFFENDERS, "offending side", aliases=_OFFENDER_ALIASES)
    if r.name == "favour_non_offending":  # a half up when the other side offended, else down
        return round_fraction(x, "half_up" if side == "ew" else "half_down")
    return round_fraction(x, r)


# --------------------------------------------------------------------------- knockout / Swiss / BAM

def _other_room(other: object, check_legal: bool) -> int:
    o = parse_entry(other, where="other room")
    if not isinstance(o, int):
        raise InputError(f"the other room's score must be a N-S score, got {shown(other)}", where="other room")
    return check_score(o, None, where="other room") if check_legal else o


def _legal_outcomes(outs: tuple[tuple[int, Fraction], ...], check_legal: bool) -> tuple[tuple[int, Fraction], ...]:
    if check_legal:
        for k, (s, _) in enumerate(outs, start=1):
            check_score(s, None, where=f"outcome {k}")
    return outs


def outcome_imps(outcomes: Any, other: object, *, weights: Any = None,
                 check_legal: bool = True) -> tuple[tuple[int, Fraction], ...]:
    """Each outcome of a weighted score IMPed against the other room: ``((imps, weight), ...)``.

    IMPs are for the side sitting N-S at the weighted table (``imps(score - other)``, ``other``
    being the other room's N-S score). With ``check_legal`` (default) every score must be one
    that some contract gives (at some vulnerability: the board is not known here).

    >>> outcome_imps({420: "60%", -50: "40%"}, 400)
    ((1, Fraction(3, 5)), (-10, Fraction(2, 5)))
    """
    o = _other_room(other, check_legal)
    return tuple((imps(s - o), w) for s, w in _legal_outcomes(_outcomes(outcomes, weights), check_legal))


def artificial_board_imps(room1: object, room2: object) -> Fraction:
    """Team A's IMPs on a board with an artificial adjusted score at one table or both (Law 12C2).

    Team A sits N-S in room 1 and E-W in room 2. Each artificial table counts its IMPs for team A's
    side there (60 % -> +3, 50 % -> 0, 40 % -> -3; :func:`xlbridge.core.teams.imps.artificial_imps`,
    REFERENCE.md); the board is not compared across the rooms, so a real score at the other table
    adds nothing. A weighted (list) result against an artificial score is an error.

    >>> artificial_board_imps(Artificial.parse("A60/40"), 420), artificial_board_imps(-50, Artificial.parse("A40/60"))
    (Fraction(3, 1), Fraction(3, 1))
    """
    if isinstance(room1, list):
        raise InputError("a weighted board cannot be played against an artificial score")
    if not isinstance(room1, Artificial) and not isinstance(room2, Artificial):
        raise InputError(f"no artificial score at either table: {shown(room1)}, {shown(room2)}")
    total = Fraction(0)
    if isinstance(room1, Artificial):
        total += artificial_imps(room1)[0]
    if isinstance(room2, Artificial):
        total += artificial_imps(room2)[1]
    return total


def weighted_imps(outcomes: Any, other: object, *, weights: Any = None, rounding: str | None = None,
                  offender: object = None, check_legal: bool = True) -> Fraction:
    """IMPs of a weighted score against the other room: each outcome IMPed, then weighted.

    Knockout / teams play (seed 004): ``0.6 x imps(420 - 400) + 0.4 x imps(-50 - 400) = -3.4``.
    Exact by default; ``rounding`` is a rule of :func:`round_imps` (``"nearest"`` gives -3).
    When a match has several weighted boards, keep them exact and round the total once
    (:func:`match_result`), as seed 004 recommends.

    >>> weighted_imps([420, -50], 400, weights=[60, 40])
    Fraction(-17, 5)
    """
    x = sum((i * w for i, w in outcome_imps(outcomes, other, weights=weights, check_legal=check_legal)), Fraction(0))
    return round_imps(x, rounding, offender=offender)


def board_a_match(outcomes: Any, other: object, *, weights: Any = None, scale: str = "net",
                  check_legal: bool = True) -> Fraction:
    """Board-a-match score of a weighted result against the other room's N-S score.

    ``scale="net"`` (seed 004): win +1, tie 0, loss -1, so 0.6 x 1 + 0.4 x (-1) = 0.2.
    ``scale="points"`` (the usual board-a-match scoring): win 1, tie 1/2, loss 0 (seed: 0.6).

    >>> board_a_match([(420, 0.6), (-50, 0.4)], 400, scale="points")
    Fraction(3, 5)
    >>> board_a_match([(400, 1)], 400), board_a_match([(400, 1)], 400, scale="points")
    (Fraction(0, 1), Fraction(1, 2))
    """
    scale = named_option(scale, BAM_SCALES, "board-a-match scale")
    o = _other_room(other, check_legal)
    total = Fraction(0)
    for s, w in _legal_outcomes(_outcomes(outcomes, weights), check_legal):
        sign = (s > o) - (s < o)
        total += w * (sign if scale == "net" else Fraction(sign + 1, 2))
    return total


def _imp_boards(weighted: Any, where: str = "weighted board") -> list[tuple[tuple[Fraction, Fraction], ...]]:
    """Normalise weighted boards to tuples of (Fraction imps, Fraction weight)."""
    items = list(weighted)
    if items and isinstance(items[0], (list, tuple)) and len(items[0]) == 2 and not isinstance(items[0][0], (list, tuple, dict)):
        items = [items]  # a single board given as its outcome pairs
    boards = []
    for b, item in enumerate(items, start=1):
        pairs = list(item.items()) if isinstance(item, dict) else list(item)
        out = []
        for k, p in enumerate(pairs, start=1):
            if not (isinstance(p, (list, tuple)) and len(p) == 2):
                raise WeightError(f"an outcome must be an (IMPs, weight) pair, got {shown(p)}", where=f"{where} {b}")
            out.append((exact(p[0], "IMPs", where=f"{where} {b}, outcome {k}"), _weight(p[1], where=f"{where} {b}, outcome {k}")))
        if not out or sum(w for _, w in out) != 1:
            raise WeightError("weights of a weighted board must total 100%", where=f"{where} {b}")
        boards.append(tuple((i, w) for i, w in out if w))
    return boards


def _combinations(boards: Sequence[Sequence[Any]], limit: int) -> int:
    n = math.prod(len(b) for b in boards)
    if n > limit:
        raise TooManyCombinationsError(
            f"{n:,} combinations of weighted outcomes exceed the limit of {limit:,} (time grows with the count)"
        )
    return n


def weighted_vp(margin: object, weighted: Any, boards: object, *, level: str = "imp", rounding: str | None = None,
                offender: object = None, fraction: str = "interpolate",
                max_combinations: int = DEFAULT_MAX_COMBINATIONS, scale: object = None) -> Fraction:
    """VPs of a Swiss / round-robin match that has weighted boards (seed 004).

    ``margin`` is the IMP margin on the other boards; ``weighted`` lists the weighted boards,
    each as ``(imps, weight)`` outcomes (:func:`outcome_imps`); ``boards`` is the match length; ``scale``
    the VP scale (:func:`xlbridge.core.teams.vp.vp_scale`: default the WBF 2013 scale).

    - ``level="imp"`` (the regulation way): add the expected IMPs of the weighted boards to the
      margin, round the total once by ``rounding`` (:func:`round_imps`; ``None`` keeps it exact
      and a fractional margin is read off the scale by ``fraction``, see :func:`xlbridge.core.teams.vp.vp`),
      then convert.  Seed 004: 8 - 3.4 -> 5 -> 12.18 VP.
    - ``level="vp"`` (seed 004's proposal): convert every combination of outcomes to VPs, then
      weight: 0.6 x VP(9) + 0.4 x VP(-2) = 0.6 x 13.65 + 0.4 x 9.08 = 11.822 (11.82).  Exact,
      without enumerating: a combination's VPs depend only on its IMP total, whose exact
      distribution is built board by board; at most ``max_combinations`` distinct totals.

    >>> float(weighted_vp(8, [[(1, 0.6), (-10, 0.4)]], 7))   # exact IMP level: VP(4.6)
    12.016
    """
    vps = vp_scale(scale)
    n = _boards_arg(boards, vps.max_boards)
    m0 = exact(margin, "IMPs", where="margin")
    wb = _imp_boards(weighted)
    level = named_option(level, _LEVELS, "weighting level")
    if level == "imp":
        extra = sum((i * w for b in wb for i, w in b), Fraction(0))
        total = round_imps(m0 + extra, rounding, offender=offender)
        return vp(total, n, fraction=fraction, scale=vps)
    # The VPs of a combination depend only on its IMP total, so the combinations are folded into
    # the exact distribution of that total, board by board (a convolution): as exact as
    # enumerating, with at most (distinct totals x outcomes) steps per board.
    dist = {Fraction(0): Fraction(1)}
    for b in wb:
        nxt: dict[Fraction, Fraction] = {}
        for s, p in dist.items():
            for i, w in b:
                nxt[s + i] = nxt.get(s + i, 0) + p * w
        dist = nxt
        if len(dist) > max_combinations:
            raise TooManyCombinationsError(
                f"{len(dist):,} distinct IMP totals exceed the limit of {max_combinations:,}"
            )
    total = Fraction(0)
    for s, p in dist.items():
        m = m0 + s if rounding is None else round_imps(m0 + s, rounding, offender=offender)
        total += p * vp(m, n, fraction=fraction, scale=vps)
    return total


def _boards_arg(boards: object, longest: int) -> int:
    return whole(boards, "number of boards", minimum=1, maximum=longest)


# --------------------------------------------------------------------------- match result

@dataclass(frozen=True)
class MatchResult:
    """A team match: IMPs of each team (exact), the margin converted, and both teams' VPs.

    ``imps_a`` / ``imps_b``: the IMPs won by each team (weighted boards at their expected value);
    ``margin``: ``imps_a - imps_b`` after the rounding rule (at ``level="imp"`` what goes into the
    VP scale; at ``level="vp"`` every combination of outcomes is converted instead, and
    ``margin`` is only reported); ``vp_a + vp_b`` is the VP scale's total (20).

    >>> r = match_result([5, -2, 3], boards=8)
    >>> r.imps_a, r.imps_b, r.margin, float(r.vp_a), float(r.vp_b), r.boards
    (Fraction(8, 1), Fraction(2, 1), Fraction(6, 1), 12.42, 7.58, 8)
    """

    imps_a: Fraction
    imps_b: Fraction
    margin: Fraction
    vp_a: Fraction
    vp_b: Fraction
    boards: int


def match_result(board_imps: Iterable[Any], boards: object = None, *, level: str = "imp", rounding: str | None = None,
                 offender: object = None, fraction: str = "interpolate",
                 max_combinations: int = DEFAULT_MAX_COMBINATIONS, scale: object = None) -> MatchResult:
    """Score a match from its per-board IMPs (for team A; negative = team B won the board).

    A board is a number (a plain or already weighted result), a list of ``(imps, weight)``
    outcomes (a weighted board), or blank (``None``: not played, not counted).  ``boards`` is the
    match length for the VP scale (default: the number of entries).  ``level``, ``rounding``,
    ``fraction`` and ``scale`` as in :func:`weighted_vp`; the rounding applies once, to the final total.

    >>> r = match_result([3, 0, 5, -2, [(1, 0.6), (-10, 0.4)], 2, 0])   # seed 004's 8 + weighted
    >>> r.imps_a, r.imps_b, float(r.vp_a), float(r.vp_b)
    (Fraction(10, 1), Fraction(27, 5), 12.016, 7.984)
    >>> r = match_result([3, 0, 5, -2, [(1, 0.6), (-10, 0.4)], 2, 0], rounding="nearest")
    >>> r.margin, float(r.vp_a)
    (Fraction(5, 1), 12.18)
    """
    items = list(board_imps)
    vps = vp_scale(scale)
    n = len(items) if boards is None else _boards_arg(boards, vps.max_boards)
    if n < 1:
        raise InputError("a match needs at least one board")
    plain, weighted = [], []
    for b, x in enumerate(items, start=1):
        if is_blank(x):
            continue
        if isinstance(x, (list, tuple, dict)):
            weighted.append(_imp_boards([x], where=f"board {b}")[0])
        else:
            plain.append(exact(x, "IMPs", where=f"board {b}"))
    expected = plain + [sum((i * w for i, w in wb), Fraction(0)) for wb in weighted]
    imps_a = sum((x for x in expected if x > 0), Fraction(0))
    imps_b = -sum((x for x in expected if x < 0), Fraction(0))
    margin = round_imps(imps_a - imps_b, rounding, offender=offender)
    level = named_option(level, _LEVELS, "weighting level")
    if level == "imp" or not weighted:
        va = vp(margin, n, fraction=fraction, scale=vps)
    else:
        va = weighted_vp(sum(plain, Fraction(0)), weighted, n, level=level, rounding=rounding, offender=offender,
                         fraction=fraction, max_combinations=max_combinations, scale=vps)
    return MatchResult(imps_a, imps_b, margin, va, vps.total - va, n)


# --------------------------------------------------------------------------- pairs-style: cross-IMPs, Butler

def _rows(scores: Any, weights: Any, boards: Any, check_legal: bool) -> tuple[list[Any], dict[Any, list[int]]]:
    """Normalise rows to plain entries or outcome tuples, group them by board, check legality."""
    scores = list(scores)
    if weights is not None:
        weights = list(weights)
        if len(weights) != len(scores):
            raise InputError(f"weights has {len(weights)} rows but scores has {len(scores)}: they must be parallel")
    if boards is not None:
        boards = list(boards)
        if len(boards) != len(scores):
            raise InputError(f"boards has {len(boards)} rows but scores has {len(scores)}: they must be parallel")
    rows: list[Any] = []
    groups: dict[Any, list[int]] = {}
    for i, cell in enumerate(scores):
        label = None if boards is None else board_label(boards[i])
        where = f"row {i + 1}" if label is None else f"board {label}, row {i + 1}"
        e = _row(cell, None if weights is None else weights[i], where)
        if boards is not None and e is not None and label is None:
            raise InputError("a score has no board number", where=where)
        rows.append(e)
        groups.setdefault(label, []).append(i)
    if check_legal:
        first = np.array([_first_score(e) for e in rows], dtype=np.int64)
        real = np.array([isinstance(e, (int, tuple)) and not isinstance(e, bool) for e in rows], dtype=bool)
        extra = [(i, sc) for i, e in enumerate(rows) if isinstance(e, tuple) for sc, _ in e[1:]]
        if boards is None:
            check_traveller(first, real, extra=extra)
        else:
            index = {k: b for b, k in enumerate(groups)}
            codes = np.array([index[board_label(b)] for b in boards], dtype=np.int64)
            check_traveller(first, real, codes, list(groups), extra=extra)
    return rows, groups


def _first_score(e: object) -> int:
    if isinstance(e, tuple):
        return int(e[0][0])
    return e if type(e) is int and -MAX_SCORE_READ <= e <= MAX_SCORE_READ else 0


def _row(cell: Any, w: Any, where: str) -> Any:
    """One traveller row: a plain entry (int, Artificial, NOT_PLAYED, None) or an outcome tuple."""
    seq = (list, tuple, np.ndarray)
    if isinstance(cell, dict):
        e = _outcomes(cell, None, where=where)
    elif isinstance(cell, seq) and any(isinstance(p, (list, tuple)) for p in cell):
        e = _outcomes(cell, None, where=where)
    elif isinstance(cell, seq):
        ws = list(w) if isinstance(w, seq) else [w] + [None] * (len(cell) - 1)
        if len(ws) != len(cell):
            raise WeightError(f"{len(cell)} outcomes but {len(ws)} weights", where=where)
        pairs = [(x, y) for x, y in zip(cell, ws) if not (is_blank(x) and is_blank(y))]
        if not pairs:
            return None
        if len(pairs) == 1 and (is_blank(pairs[0][1]) or _weight(pairs[0][1], where) == 1):
            return parse_entry(pairs[0][0], where=where)
        if all(is_blank(y) for _, y in pairs):
            raise WeightError("several outcomes but no weights", where=where)
        e = _outcomes([x for x, _ in pairs], [y for _, y in pairs], where=where)
    else:
        return parse_entry(cell, where=where)
    return e[0][0] if len(e) == 1 else e


def _expected(rows: list[Any], groups: dict[Any, list[int]], expected: object) -> int:
    counted = {k: sum(isinstance(rows[i], (int, tuple, Artificial)) for i in idx) for k, idx in groups.items()}
    return expected_results(counted, expected)


def weighted_cross_imps(scores: Any, weights: Any = None, boards: Any = None, *, average: bool = False,
                        expected: int | None = None, check_legal: bool = True) -> CrossImps:
    """Cross-IMPs of a traveller holding weighted scores: the exact expected value.

    Row ``i`` is a plain score cell (420, ``A60/40``, ``NP``, blank) or a weighted result: a
    list of ``(score, weight)`` pairs, or a list of scores with a parallel row of ``weights``
    (the ``WEIGHTED_MP`` layout: n x k scores and n x k weights).  Cross-IMPs are linear in the
    pairwise comparisons, so the average over every combination of outcomes equals
    ``sum over pairs of w_a w_b imps(a - b)`` (REFERENCE.md; seed 004): no enumeration needed,
    and the result equals weighting the :func:`xlbridge.core.teams.imps.cross_imps` of every combination.
    Factoring, averaging, artificial scores and ``check_legal`` (every outcome must be a legal
    score of its board) as in :func:`xlbridge.core.teams.imps.cross_imps`.

    >>> r = weighted_cross_imps([[(420, 0.6), (-50, 0.4)], 420, 400, 400, 170, -50], average=True)
    >>> [str(x) for x in r.ns]
    ['-18/25', '22/5', '92/25', '92/25', '-66/25', '-42/5']
    """
    rows, groups = _rows(scores, weights, boards, check_legal)
    E = _expected(rows, groups, expected)
    ns: list[Fraction | None] = [None] * len(rows)
    ew: list[Fraction | None] = [None] * len(rows)
    for idx in groups.values():
        real = [i for i in idx if isinstance(rows[i], (int, tuple))]
        a = len(real)
        atoms_s, atoms_w, atoms_r = [], [], []
        for r, i in enumerate(real):
            for s, w in (((rows[i], Fraction(1)),) if isinstance(rows[i], int) else rows[i]):
                atoms_s.append(s)
                atoms_w.append(w)
                atoms_r.append(r)
        if a:
            den = math.lcm(*(w.denominator for w in atoms_w))
            small = den * den * 24 * len(atoms_w) < 2**62  # exact in int64, else Python ints
            W = np.array([int(w * den) for w in atoms_w], dtype=np.int64 if small else object)
            S = np.array(atoms_s, dtype=np.int64)
            R = np.array(atoms_r)
            M = imps_array(S[:, None] - S[None, :])
            if not small:
                M = M.astype(object)
            M[R[:, None] == R[None, :]] = 0  # a result is not compared with itself
            G = M.dot(W)  # G[a] = sum_b W_b imps(a - b), over the other results' outcomes
            per_row = [0] * a
            for k in range(len(atoms_s)):
                per_row[atoms_r[k]] += int(W[k]) * int(G[k])
        for r, i in enumerate(real):
            tot = Fraction(per_row[r], den * den)
            if a < 2:
                v = Fraction(0)
            elif average:
                v = tot / (a - 1)
            else:
                v = tot * (E - 1) / (a - 1)
            ns[i], ew[i] = v, -v
        for i in idx:
            if isinstance(rows[i], Artificial):
                mult = 1 if average else max(E - 1, 0)
                a_ns, a_ew = artificial_imps(rows[i])
                ns[i], ew[i] = a_ns * mult, a_ew * mult
    return CrossImps(tuple(ns), tuple(ew), E, bool(average))


def weighted_butler(scores: Any, weights: Any = None, boards: Any = None, *, trim: object = "acbl",
                    rounding: str = "half_even", max_combinations: int = DEFAULT_MAX_COMBINATIONS,
                    check_legal: bool = True) -> Butler:
    """Butler IMPs of a traveller holding weighted scores: exact, by enumerating combinations.

    The datum (a trimmed mean, rounded) is not linear in the scores, so each combination of
    outcomes gives its own datum (seed 004: "for each of the weighted possibilities, the
    average ... will be different").  Every combination is scored and the IMPs of every row
    are weighted by the combination's probability (the product of the chosen outcomes'
    weights).  The count is the product of the numbers of outcomes of the weighted rows on the
    board; above ``max_combinations`` (default :data:`DEFAULT_MAX_COMBINATIONS`) a
    :class:`~xlbridge.core.errors.TooManyCombinationsError` is raised.  ``datums`` holds each board's
    *expected* datum.  Rows and ``check_legal`` as in :func:`weighted_cross_imps`; ``trim`` and
    ``rounding`` as in :func:`xlbridge.core.teams.butler.butler_datum`.

    >>> b = weighted_butler([[(420, 0.6), (-50, 0.4)], 420, 400, 400, 170, -50], trim="topbottom")
    >>> [str(x) for x in b.ns]
    ['-8/5', '16/5', '16/5', '16/5', '-19/5', '-41/5']
    """
    rows, groups = _rows(scores, weights, boards, check_legal)
    ns: list[Fraction | None] = [None] * len(rows)
    ew: list[Fraction | None] = [None] * len(rows)
    datums: dict[Any, Any] = {}
    for label, idx in groups.items():
        real = [i for i in idx if isinstance(rows[i], (int, tuple))]
        for i in idx:
            if isinstance(rows[i], Artificial):
                ns[i], ew[i] = artificial_imps(rows[i])
        if not real:
            datums[label] = None
            continue
        outs = [((rows[i], Fraction(1)),) if isinstance(rows[i], int) else rows[i] for i in real]
        where = "" if label is None else f"board {label}: "
        try:
            C = _combinations(outs, max_combinations)
        except TooManyCombinationsError as exc:
            raise TooManyCombinationsError(f"{where}{exc.message}") from None
        dens = [math.lcm(*(w.denominator for _, w in o)) for o in outs]
        D = math.prod(dens)
        # int64 is exact while every weighted sum fits: the combination weights (integers up to D)
        # times IMPs (|x| <= 24) and times datums (|d| <= the largest |score| + 10).
        biggest = max(24, max(abs(s) for o in outs for s, _ in o) + 10)
        use_obj = D * biggest * max(C, 1) >= 2**62
        choice_scores = [np.array([s for s, _ in o], dtype=np.int64) for o in outs]
        choice_w = [np.array([int(w * d) for _, w in o], dtype=object if use_obj else np.int64) for o, d in zip(outs, dens)]
        sizes = [len(o) for o in outs]
        acc = np.zeros(len(real), dtype=object)
        dat = 0
        for start in range(0, C, _CHUNK):
            ids = np.arange(start, min(C, start + _CHUNK), dtype=np.int64)
            digits = np.unravel_index(ids, sizes) if C > 1 else [np.zeros_like(ids) for _ in sizes]
            S = np.stack([choice_scores[r][digits[r]] for r in range(len(real))], axis=1)
            wc = np.ones(len(ids), dtype=object if use_obj else np.int64)
            for r in range(len(real)):
                if sizes[r] > 1 or dens[r] != 1:
                    wc = wc * choice_w[r][digits[r]]
            d, _ = butler_datums(S, trim=trim, rounding=rounding, check_legal=False)  # outcomes checked
            im = imps_array(S - d[:, None])
            acc = acc + np.asarray(wc.astype(object).dot(im.astype(object)) if use_obj else wc.dot(im), dtype=object)
            dat += int((wc * d).sum()) if not use_obj else sum(int(x) * int(y) for x, y in zip(wc, d))
        for r, i in enumerate(real):
            v = Fraction(int(acc[r]), D)
            ns[i], ew[i] = v, -v
        datums[label] = Fraction(dat, D)
    return Butler(tuple(ns), tuple(ew), datums)

