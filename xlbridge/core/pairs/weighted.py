"""Weighted adjusted scores at matchpoints (Law 12C1(c), seed 004), exact and in polynomial time.

A weighted score gives a table several possible results with weights totalling 1 (e.g. 60 %
of +420 and 40 % of -50).  The correct matchpoints (seed 004) are those of every combination
of the weighted outcomes on the board, each matchpointed normally and averaged with the
product of the weights; this changes every pair's score on the board, not only the adjusted
pair's.  Matchpoints are linear in pairwise comparisons and the tables' outcomes are
independent, so the expectation is computed without enumerating the combinations:

    E[M_i] = sum over outcomes o of row i: w_o * sum over rows j != i: (2 P(S_j < o) + P(S_j = o))

(the EBU "fractional frequency" method), then Neuberg-factored as usual:
MP_i = (E[M_i] + 1) E / A - 1 on the 2/1 scale (half of it on the 1/0.5 scale).  One sort per
board: O(K log K) for K outcomes, where enumeration is the product of the outcome counts.

>>> s = weighted_session([[(420, "60%"), (-50, "40%")], 420, 400, 400, 170, -50], scale="ACBL")
>>> [str(x) for x in s.ns]                  # seed 004: pair A 2.9; the others 4.7, 2.9, 2.9, 1.4, 0.2
['29/10', '47/10', '29/10', '29/10', '7/5', '1/5']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from math import lcm
from typing import Any

import numpy as np

from ..boards import as_column, check_traveller, factorize
from ..entries import MAX_SCORE_READ, Artificial, NotPlayed, parse_entry, too_large
from ..errors import InputError, LimitError, WeightError, location, shown
from ..numbers import exact, number_text, plain
from ..vocabulary import Scale
from .matchpoints import (
    ROW_ARTIFICIAL,
    ROW_BLANK,
    ROW_NOT_PLAYED,
    ROW_SCORE,
    SessionMP,
    expected_per_board,
    fixed_awards,
    fouled_rule,
    results_per_board,
    score_rows,
)
from .neuberg import mp_scale, scale_denominator

__all__ = ["parse_weight", "weighted_outcomes", "weighted_session", "expected_matchpoints", "MAX_WEIGHT_DENOMINATOR"]

#: The largest common denominator of one board's weights (60 digits): weights such as 60 %, 1/3 or
#: 0.123456 need a handful; the bound keeps the exact integer arithmetic of a call bounded.
MAX_WEIGHT_DENOMINATOR = 10**60


def parse_weight(value: object, *, where: str | None = None) -> Fraction | None:
    """Read a weight as an exact fraction of 1: ``0.6``, ``60``, ``"60%"``, ``"0.6"``, ``"3/5"`` -> 3/5.

    Rule: text ending in ``%`` is a percentage; otherwise a number greater than 1 is a
    percentage (60 -> 0.6) and a number from 0 to 1 is a fraction (so 1 means 100 %; write
    ``"1%"`` for one percent).  A float that is within 1e-12 (relative) of a fraction with a
    denominator up to 10,000 is read as that fraction (Excel's ``=1/3`` is 1/3, ``0.6`` is
    3/5, ``=100/3`` % is 1/3); any other float as its shortest decimal (0.123456).
    Blank (``None`` or empty text) gives ``None``.  Negative weights and weights above 100 %
    raise :class:`WeightError`.

    >>> parse_weight(0.6), parse_weight(60), parse_weight("60%"), parse_weight("1/3")
    (Fraction(3, 5), Fraction(3, 5), Fraction(3, 5), Fraction(1, 3))
    >>> parse_weight(1), parse_weight("1%"), parse_weight(None), parse_weight(1 / 3)
    (Fraction(1, 1), Fraction(1, 100), None, Fraction(1, 3))
    """
    if value is None:
        return None
    value = plain(value)
    percent = False
    if isinstance(value, bool):
        raise WeightError(f"weight {shown(value)} is not a number", where=where)
    if isinstance(value, str):
        t = value.strip()
        if not t:
            return None
        if t.endswith("%"):
            percent, t = True, t[:-1].strip()
        read = number_text(t, "weight", where=where)  # bounded: digits and exponent
        if read is None:
            raise WeightError(f"cannot read weight {shown(value)} (expected e.g. 0.6, 60 or 60%)", where=where)
        w = read
    elif isinstance(value, float):
        if value != value:
            return None  # a blank cell arriving as NaN
        if value in (float("inf"), float("-inf")):
            raise WeightError(f"weight {shown(value)} is not a finite number", where=where)
        w = _float_weight(value)
    elif isinstance(value, (int, Fraction)):
        w = Fraction(value)
    else:
        raise WeightError(f"cannot read weight {shown(value)} (expected e.g. 0.6, 60 or 60%)", where=where)
    if w < 0:
        raise WeightError(f"weight {shown(value)} is negative", where=where)
    if percent or w > 1:
        w /= 100
    if w > 1:
        raise WeightError(f"weight {shown(value)} is more than 100 %", where=where)
    return w


def _float_weight(x: float) -> Fraction:
    """A float weight as the simple fraction it stands for (1/3), else as its decimal."""
    binary = Fraction(x)
    simple = binary.limit_denominator(10_000)
    if abs(simple - binary) <= abs(binary) * Fraction(1, 10**12):
        return simple
    return exact(x, "weight")  # as everywhere: the float's shortest decimal (0.123456)


def _is_pair(x: object) -> bool:
    return isinstance(x, (tuple, list)) and len(x) == 2


def _read_row(value: object, where: str | None) -> tuple[str, list[tuple[Any, Fraction]]]:
    """('blank'|'np'|'art'|'real', payload): payload a list of (entry, Fraction weight)."""
    if isinstance(value, (list, tuple)) and not (len(value) == 2 and not any(isinstance(v, (list, tuple))
                                                                            for v in value)):
        items = list(value)
    elif isinstance(value, (list, tuple)):
        items = [tuple(value)]
    else:
        e = parse_entry(value, where=where)
        if e is None:
            return "blank", []
        if isinstance(e, NotPlayed):
            return "np", []
        return ("art" if isinstance(e, Artificial) else "real"), [(e, Fraction(1))]
    outs = []
    for item in items:
        if not _is_pair(item):
            raise WeightError(f"expected (score, weight) pairs, got {shown(item)}", where=where)
        sc, w = item
        e = parse_entry(sc, where=where)
        w = parse_weight(w, where=where)
        if e is None:
            if w:
                raise WeightError(f"weight {shown(item[1])} is given without a score", where=where)
            continue
        if isinstance(e, NotPlayed):
            raise WeightError("NP cannot be one outcome of a weighted score", where=where)
        outs.append((e, w))
    if not outs:
        return "blank", []
    if len(outs) == 1 and outs[0][1] is None:
        outs = [(outs[0][0], Fraction(1))]
    if any(w is None for _, w in outs):
        raise WeightError(f"a weight is missing: {_show(outs)}", where=where)
    total = sum((w for _, w in outs if w is not None), Fraction(0))
    if total != 1:
        raise WeightError(f"weights total {_pct(total)} %, not 100 %: {_show(outs)}", where=where)
    kept = [(e, w) for e, w in outs if w]
    kinds = {isinstance(e, Artificial) for e, _ in kept}
    if len(kinds) > 1:
        raise WeightError(f"a weighted score mixing artificial and real outcomes is not supported: {_show(outs)}",
                          where=where)
    return ("art" if kinds == {True} else "real"), kept


def weighted_outcomes(outcomes: Iterable[Sequence[Any]], *, where: str | None = None) -> list[tuple[Any, Fraction]]:
    """One Law 12C1(c) weighted score's outcomes, read and checked as :func:`weighted_session` reads a
    row: ``(N-S score, weight)`` pairs (weights as :func:`parse_weight` reads them), an outcome with a
    blank score and a blank or zero weight left out, every weight given, the weights totalling exactly
    1 (seed 004), an outcome of zero weight dropped. For a reader that names the cells itself.

    >>> weighted_outcomes([(420, 0.6), (-50, "40%"), (None, None)])
    [(420, Fraction(3, 5)), (-50, Fraction(2, 5))]
    >>> weighted_outcomes([(420, 0.6), (-50, 0.3)])
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.WeightError: weights total 90 %, not 100 %: 420 x 60 %, -50 x 30 %
    """
    kind, outs = _read_row([tuple(o) for o in outcomes], where)
    if kind == "blank":
        raise WeightError("a weighted score without any outcome", where=where)
    return outs


def _pct(w: Fraction) -> str:
    x = w * 100
    return str(x.numerator) if x.denominator == 1 else f"{float(x):.12g}"


def _show(outs: list[tuple[Any, Fraction | None]]) -> str:
    return ", ".join(f"{e} x {'?' if w is None else _pct(w) + ' %'}" for e, w in outs)


def expected_matchpoints(rows: Iterable[Iterable[Any]]) -> list[Fraction]:
    """Expected 2/1 matchpoints (not factored) of each row of one board among all its rows.

    ``rows[i]`` is a list of (N-S score, weight) with weights totalling 1.  For each outcome o
    of row i: 2 x (weight of the other rows' outcomes below o) + (weight equal to o); summed
    with the weight of o.  All arithmetic in integers over the common weight denominator D.

    Weights are read by :func:`parse_weight` (``0.6``, ``"60%"``, ...); a row whose weights do
    not total exactly 1 raises :class:`WeightError` naming the row.

    >>> expected_matchpoints([[(420, Fraction(3, 5)), (-50, Fraction(2, 5))], [(420, 1)], [(400, 1)]])
    [Fraction(9, 5), Fraction(17, 5), Fraction(4, 5)]
    >>> expected_matchpoints([[(420, 0.6), (-50, "40%")], [(420, 1)], [(400, 1)]])[0]
    Fraction(9, 5)
    """
    checked = []
    for i, r in enumerate(rows, start=1):
        where = location(row=i)
        out = []
        for item in r:
            if not _is_pair(item):
                raise WeightError(f"expected (score, weight) pairs, got {shown(item)}", where=where)
            sc, w = item
            if isinstance(sc, bool) or not isinstance(sc, int):
                e = parse_entry(sc, where=where)
                if not isinstance(e, int):
                    raise InputError(f"an outcome must be an N-S score, got {shown(sc)}", where=where)
                sc = e
            wf = parse_weight(w, where=where)
            if wf is None:
                raise WeightError(f"a weight is missing for outcome {shown(sc)}", where=where)
            out.append((sc, wf))
        total = sum((w for _, w in out), Fraction(0))
        if total != 1:
            raise WeightError(f"weights total {_pct(total)} %, not 100 %", where=where)
        checked.append(out)
    ems, d2 = _expected_m_scaled(checked)
    return [Fraction(em, d2) for em in ems]


def _expected_m_scaled(rows: list[Any]) -> tuple[list[int], int]:
    """(integer numerators of E[M_i], their common denominator D^2); see expected_matchpoints."""
    d = 1
    for r in rows:
        for _, w in r:
            if type(w) is not int:
                d = lcm(d, Fraction(w).denominator)
    if d > MAX_WEIGHT_DENOMINATOR:
        raise LimitError(f"the weights of one board need a common denominator of {len(str(d))} digits, more than "
                         f"the {len(str(MAX_WEIGHT_DENOMINATOR)) - 1} read (write weights such as 60 % or 1/3)")
    merged: list[list[tuple[int, int]]] = []
    freq: dict[int, int] = {}
    for r in rows:
        if len(r) == 1:  # a plain result: weight 1
            s = r[0][0]
            merged.append([(s, d)])
            freq[s] = freq.get(s, 0) + d
            continue
        weights: dict[int, int] = {}
        for s, w in r:
            w = Fraction(w)
            weights[s] = weights.get(s, 0) + w.numerator * (d // w.denominator)
        merged.append(sorted(weights.items()))
        for s, wi in weights.items():
            freq[s] = freq.get(s, 0) + wi
    below: dict[int, int] = {}
    acc = 0
    for s in sorted(freq):
        below[s] = acc
        acc += freq[s]
    ems = []
    for own in merged:
        em = 0
        own_below = 0
        for s, wi in own:  # own outcomes sorted by score
            em += wi * (2 * (below[s] - own_below) + (freq[s] - wi))
            own_below += wi
        ems.append(em)
    return ems, d * d


#: Fixed fouled-board awards as a linear function of the 2/1 matchpoints M within the group:
#: percent = base + 5 M (1 result: 60; 2 results: 55 + 5 M = 65 / 60 / 55; 3 results:
#: 50 + 5 M = 70 / 65 / 60 / 55 / 50, the tied places sharing), so their expectation over the
#: weighted outcomes is exact from the expected matchpoints.
_FIXED_BASE = {1: 60, 2: 55, 3: 50}


def weighted_session(outcomes: Sequence[Any], boards: Any = None, *, expected: object = None, scale: str = Scale.EBU,
                     check_legal: bool = True, groups: Any = None, fouled: str = "EBU") -> SessionMP:
    """Matchpoint a session in which some results are Law 12C1(c) weighted scores; exact.

    ``outcomes[i]`` is a list of (N-S score, weight) pairs (weights as accepted by
    :func:`parse_weight`, totalling exactly 1; pairs with a blank score and blank or zero weight
    are ignored), or a plain entry as in :func:`~xlbridge.core.pairs.matchpoints.matchpoint_session`
    (score, ``"A60/40"``, ``"NP"``, ``None``).  Every row's matchpoints are the exact average
    over every combination of outcomes (seed 004), computed in O(K log K) per board (see the
    module docstring), then Neuberg-factored to ``expected`` (default: the largest number of
    rows holding a score or an artificial score on any board).  A row weighted between
    artificial scores gets the weighted percentage; mixing artificial and real outcomes in one
    row is refused (the number of real results would vary).  ``WeightError`` names the row.

    Fouled boards: ``groups`` and ``fouled`` as in :func:`~xlbridge.core.pairs.matchpoints.matchpoint_session`
    (each deal group matchpointed on its own and factored to the full field; the fixed
    awards of small sub-fields, being linear in the matchpoints within the group, are averaged
    exactly over the combinations too).  A weighted score's outcomes belong to its row's group.

    >>> s = weighted_session([[(420, .6), (-50, .4)], [(170, .5), (420, .5)], 420, 400, 400, -50],
    ...                      scale="ACBL")
    >>> [str(x) for x in s.ns]      # seed 004: pair A 2.75 (docs/corrections.md), pair B 2.80, 4.45, 2.40, 2.40, 0.2
    ['11/4', '14/5', '89/20', '12/5', '12/5', '1/5']
    """
    sc = mp_scale(scale)
    fouled = fouled_rule(fouled)
    boards, groups = as_column(boards), as_column(groups)
    n = len(outcomes)
    boards_given = boards is not None
    bcode, blabels = factorize(boards, n, "boards")
    gcode = None if groups is None else factorize(groups, n, "groups")[0]
    kind = np.zeros(n, dtype=np.int8)
    score = np.zeros(n, dtype=np.int64)
    arts: dict[int, Artificial] = {}
    weighted_rows: dict[int, list[tuple[int, Fraction]]] = {}
    for i, v in enumerate(outcomes):
        if type(v) is int and v % 10 == 0 and -MAX_SCORE_READ <= v <= MAX_SCORE_READ:
            kind[i], score[i] = ROW_SCORE, v
            continue
        if v is None:  # a blank row (ROW_BLANK, as _read_row reads it), without its location
            continue
        where = location(board=blabels[bcode[i]] if boards_given else None, row=i + 1)
        k, outs = _read_row(v, where)
        for e, _ in outs:
            if isinstance(e, int) and not -MAX_SCORE_READ <= e <= MAX_SCORE_READ:
                raise too_large(e, where)
        if k == "blank":
            continue
        if k == "np":
            kind[i] = ROW_NOT_PLAYED
        elif k == "art":
            kind[i] = ROW_ARTIFICIAL
            arts[i] = Artificial(sum(w * e.ns for e, w in outs), sum(w * e.ew for e, w in outs))
        else:
            kind[i] = ROW_SCORE
            score[i] = outs[0][0]
            if len(outs) > 1:
                weighted_rows[i] = [(int(e), w) for e, w in outs]
    if boards_given:
        if (kind != ROW_BLANK).any() and any(blabels[c] is None for c in set(bcode[kind != ROW_BLANK].tolist())):
            i = int(np.flatnonzero((kind != ROW_BLANK) & np.array([b is None for b in blabels])[bcode])[0])
            raise InputError("a score has no board number", where=location(row=i + 1))
    if check_legal:  # the first outcome of each row, then the others
        check_traveller(score, kind == ROW_SCORE, bcode if boards_given else None, blabels if boards_given else None,
                        extra=[(i, e) for i, outs in weighted_rows.items() for e, _ in outs[1:]])
    counts = results_per_board(kind, bcode, len(blabels))
    E_board = expected_per_board(expected, counts, blabels, boards_given)
    wboards = sorted({int(bcode[i]) for i in weighted_rows})
    skip = np.isin(bcode, np.array(wboards, dtype=np.int64)) if wboards else None
    ns_num, ew_num, den, top, E = score_rows(kind, score, arts, bcode, blabels, E_board, sc, gcode, fouled,
                                             boards_given, skip_rows=skip)
    if wboards:
        sd = scale_denominator(sc)
        rows_of: dict[int, list[int]] = {}
        for i in np.flatnonzero(skip & (kind == ROW_SCORE)).tolist():
            rows_of.setdefault(int(bcode[i]), []).append(i)
        idx, vals_ns, vals_ew, vals_den = [], [], [], []
        for b in wboards:
            by_group: dict[Any, list[int]] = {}
            for i in rows_of[b]:
                by_group.setdefault(None if gcode is None else int(gcode[i]), []).append(i)
            fouled_board = len(by_group) > 1
            largest = max(len(r) for r in by_group.values())
            e = int(E_board[b])
            t = 2 * (e - 1)  # the full top on the 2/1 scale
            for rows in by_group.values():
                dist = [weighted_rows.get(i) or ((int(score[i]), 1),) for i in rows]
                ems, d2 = _expected_m_scaled(dist)
                a = len(rows)
                if fouled_board and fixed_awards(fouled, a, e, largest):
                    # percent = base + 5 M of the full top, for each side (M = em / D^2)
                    base = _FIXED_BASE[a]
                    for i, em in zip(rows, ems):
                        idx.append(i)
                        vals_ns.append((base * d2 + 5 * em) * t)
                        vals_ew.append((base * d2 + 5 * (2 * (a - 1) * d2 - em)) * t)
                        vals_den.append(100 * d2 * sd)
                    continue
                # N-S (M + 1) E / A - 1 and E-W (2(A - 1) - M + 1) E / A - 1 with M = em / D^2
                for i, em in zip(rows, ems):
                    idx.append(i)
                    vals_ns.append((em + d2) * e - a * d2)
                    vals_ew.append((2 * (a - 1) * d2 - em + d2) * e - a * d2)
                    vals_den.append(a * d2 * sd)
        big = max(max(map(abs, vals_ns)), max(map(abs, vals_ew)), max(vals_den)) >= 2**62
        if big:  # huge weight denominators: Python integers
            ns_num, ew_num, den = ns_num.astype(object), ew_num.astype(object), den.astype(object)
        if not ns_num.flags.writeable or not isinstance(den, np.ndarray) or not den.flags.writeable:
            ns_num, ew_num, den = np.array(ns_num), np.array(ew_num), np.array(den)
        ix = np.array(idx, dtype=np.int64)
        dt = object if big else np.int64
        ns_num[ix] = np.array(vals_ns, dtype=dt)
        ew_num[ix] = np.array(vals_ew, dtype=dt)
        den[ix] = np.array(vals_den, dtype=dt)
    return SessionMP(sc, ns_num, ew_num, den, top, E, kind,
                     bcode if boards_given else None, tuple(blabels) if boards_given else None)
