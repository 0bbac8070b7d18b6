"""Obviously-correct (slow) reference implementations used only by the tests.

Nothing here imports xlbridge: these are the definitions written out plainly, so the tests
compare xlbridge against an independent computation.

- ``mp_board``: Law 78A matchpoints of one board by comparing every pair of results (O(n^2)).
- ``neuberg_formula``: seed 001, section 5: ((M x E) + (E - A)) / A on the 2/1 scale.
- ``mp_repeated``: matchpoints when every result occurred ``k`` times (seed 001, section 4).
- ``weighted_bruteforce``: every combination of weighted outcomes enumerated, each matchpointed
  with ``mp_board`` (and Neuberg-factored), averaged with the product of the weights (seed 004).
- ``fouled_board``: a fouled board scored group by group as REFERENCE.md words it (Neuberg to
  the full field; the EBU / ACBL small sub-field awards by place, ties sharing, each side
  ranked on its own score).
- ``weighted_fouled_bruteforce``: every combination of weighted outcomes through ``fouled_board``.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product


def mp_board(scores, scale="EBU"):
    """[(N-S MP, E-W MP)] for each result: 2 per result beaten, 1 per tie (EBU) or 1 and 1/2 (ACBL)."""
    win, tie = (Fraction(2), Fraction(1)) if scale == "EBU" else (Fraction(1), Fraction(1, 2))
    out = []
    for i, s in enumerate(scores):
        ns = ew = Fraction(0)
        for j, t in enumerate(scores):
            if i == j:
                continue
            if s > t:
                ns += win
            elif s < t:
                ew += win
            else:
                ns += tie
                ew += tie
        out.append((ns, ew))
    return out


def neuberg_formula(m, e, a, scale="EBU"):
    """Seed 001: MP = ((M x E) + (E - A)) / A on the 2/1 scale; on the 1/0.5 scale M is doubled
    first and the result halved (every ACBL figure is half the 2/1 figure)."""
    m, e, a = Fraction(m), Fraction(e), Fraction(a)
    if scale == "EBU":
        return (m * e + (e - a)) / a
    return ((2 * m) * e + (e - a)) / a / 2


def mp_repeated(scores, k, scale="EBU"):
    """Matchpoints of each result when the board is matchpointed with each result repeated k times."""
    field = [s for s in scores for _ in range(k)]
    full = mp_board(field, scale)
    return [full[i * k] for i in range(len(scores))]


def weighted_bruteforce(rows, expected=None, scale="EBU"):
    """Average over every combination of outcomes of the (Neuberg-factored) matchpoints of each row.

    ``rows[i]`` is a list of (score, weight); ``expected`` defaults to the number of rows.
    """
    n = len(rows)
    e = n if expected is None else expected
    ns_tot = [Fraction(0)] * n
    ew_tot = [Fraction(0)] * n
    for combo in product(*rows):
        p = Fraction(1)
        for _, w in combo:
            p *= Fraction(w)
        if p == 0:
            continue
        mps = mp_board([s for s, _ in combo], "EBU")
        for i, (ns, ew) in enumerate(mps):
            ns_tot[i] += p * neuberg_formula(ns, e, n, "EBU")
            ew_tot[i] += p * neuberg_formula(ew, e, n, "EBU")
    if scale != "EBU":
        ns_tot = [x / 2 for x in ns_tot]
        ew_tot = [x / 2 for x in ew_tot]
    return ns_tot, ew_tot


FIXED_AWARDS = {1: [60], 2: [65, 55], 3: [70, 60, 50]}  # percent of the full top, best place first


def _fixed(rule, size, e, sizes):
    """REFERENCE.md, "Fouled boards": does a group of ``size`` results get the fixed awards?"""
    if rule == "neuberg" or len(sizes) < 2:
        return False
    if rule == "EBU":  # at most 3 results and at most 1/3 of the field
        return size <= 3 and 3 * size <= e
    # ACBL: the formula for 4 or more, or for 3 when it is the larger group; otherwise fixed
    if size >= 4:
        return False
    if size == 3 and not any(other > 3 for other in sizes):
        return False
    return True


def _place_award(value, values, size):
    """Average of the fixed awards of the places that ``value`` shares among ``values`` (best first)."""
    ranked = sorted(values, reverse=True)
    places = [k for k, v in enumerate(ranked) if v == value]
    return Fraction(sum(FIXED_AWARDS[size][k] for k in places), len(places))


def fouled_board(scores, groups, expected=None, rule="EBU", scale="EBU"):
    """[(N-S MP, E-W MP)] of one fouled board; ``groups[i]`` is the deal group of result i."""
    e = len(scores) if expected is None else expected
    top = Fraction(2 * (e - 1)) if scale == "EBU" else Fraction(e - 1)
    ids = list(dict.fromkeys(groups))
    sizes = [sum(1 for g in groups if g == gid) for gid in ids]
    out = [None] * len(scores)
    for gid, size in zip(ids, sizes):
        idx = [i for i, g in enumerate(groups) if g == gid]
        sub = [scores[i] for i in idx]
        if _fixed(rule, size, e, sizes):
            for i in idx:
                ns = _place_award(scores[i], sub, size)
                ew = _place_award(-scores[i], [-x for x in sub], size)
                out[i] = (ns * top / 100, ew * top / 100)
        else:
            for i, (ns, ew) in zip(idx, mp_board(sub, scale)):
                out[i] = (neuberg_formula(ns, e, size, scale), neuberg_formula(ew, e, size, scale))
    return out


def weighted_fouled_bruteforce(rows, groups, expected=None, rule="EBU", scale="EBU"):
    """Average over every combination of outcomes of ``fouled_board`` (weights multiplied)."""
    n = len(rows)
    ns_tot = [Fraction(0)] * n
    ew_tot = [Fraction(0)] * n
    for combo in product(*rows):
        p = Fraction(1)
        for _, w in combo:
            p *= Fraction(w)
        if p == 0:
            continue
        for i, (ns, ew) in enumerate(fouled_board([s for s, _ in combo], groups, expected, rule, scale)):
            ns_tot[i] += p * ns
            ew_tot[i] += p * ew
    return ns_tot, ew_tot
