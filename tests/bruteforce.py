"""Obviously-correct (slow) reference implementations used only by the tests.

Nothing here imports xlbridge: these are the definitions written out plainly, so the tests
compare xlbridge against an independent computation.

- ``mp_board``: Law 78A matchpoints of one board by comparing every pair of results (O(n^2)).
- ``neuberg_formula``: seed 001, section 5: ((M x E) + (E - A)) / A on the 2/1 scale.
- ``mp_repeated``: matchpoints when every result occurred ``k`` times (seed 001, section 4).
- ``weighted_bruteforce``: every combination of weighted outcomes enumerated, each matchpointed
  with ``mp_board`` (and Neuberg-factored), averaged with the product of the weights (seed 004).
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
