"""Benchmark: Form-L fairness bands and handicaps against what a user would pick instead.

Run:  python benchmarks/bench_forml.py        (about 15 seconds on 2 cores)

1. Fairness bands for n = 1..10,000 and the seed's three tails: xlbridge (exact, incremental
   big-integer recurrence) vs scipy.stats.binom (vectorised floats: ppf then a cdf check) vs the
   plain exact loop a user would write (a fresh cumulative sum of C(n, k) for every n; timed on a
   smaller range and extrapolated by its n^2 cost, said so in the output).
2. One exact p-value, P(X <= w), n = 10,000: xlbridge vs scipy.stats.binom.cdf.
3. Form-L handicaps for 1,000 teams in 100 divisions: xlbridge (exact Fractions) vs a pandas
   groupby in floats.
"""

from __future__ import annotations

import platform
import random
import time
from math import comb

import numpy as np


def best_of(fn, repeat=3):
    best = float("inf")
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def bands_scipy(max_n, tails):
    from scipy.stats import binom

    n = np.arange(1, max_n + 1)
    cols = []
    for t in tails:
        k = binom.ppf(t, n, 0.5)
        k = np.where(binom.cdf(k, n, 0.5) <= t, k + 1, k).astype(int)  # least k with cdf > t
        cols.append(k)
    return cols


def band_naive(n, t):
    """Plain exact loop: a fresh cumulative sum for this n."""
    from fractions import Fraction

    t = Fraction(str(t))
    s = 0
    for k in range(n + 1):
        s += comb(n, k)
        if Fraction(s, 2**n) > t:
            return k
    return n


def main():
    from xlbridge import fairness_bands_data, fairness_p
    from xlbridge import forml_handicaps

    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}, "
          f"numpy {np.__version__}")
    tails = (0.25, 0.10, 0.01)
    max_n = 10_000

    t_ours, rows = best_of(lambda: fairness_bands_data(max_n, tails, header=False))
    ours = [np.array([r[2 + 2 * i] for r in rows]) for i in range(len(tails))]
    t_scipy, theirs = best_of(lambda: bands_scipy(max_n, tails))
    disagree = sum(int((a != b).sum()) for a, b in zip(ours, theirs))
    small = 400
    t_naive_small, _ = best_of(lambda: [band_naive(n, t) for t in tails for n in range(1, small + 1)], repeat=1)
    t_naive_est = t_naive_small * (max_n / small) ** 2  # n terms per n: at least n^2 (bigints make it worse)
    print(f"\n1. bands n=1..{max_n}, tails {tails}")
    print(f"   xlbridge exact incremental : {t_ours:8.3f} s")
    print(f"   scipy.stats.binom (floats) : {t_scipy:8.3f} s   ratio xlbridge/scipy = {t_ours / t_scipy:.2f}")
    print(f"   plain exact loop, n<={small}  : {t_naive_small:8.3f} s   (extrapolated to n<={max_n}: "
          f"at least ~{t_naive_est:.0f} s, ~{t_naive_est / t_ours:.0f}x slower than xlbridge)")
    print(f"   band limits where scipy's floats disagree with the exact answer: {disagree} of {3 * max_n}")

    w, n = 4_900, 10_000
    t_p, p_ours = best_of(lambda: fairness_p(w, n))
    from scipy.stats import binom

    t_ps, p_scipy = best_of(lambda: float(binom.cdf(w, n, 0.5)))
    print(f"\n2. P(X <= {w}), n = {n}: xlbridge {p_ours:.12g} in {t_p * 1e3:.2f} ms; "
          f"scipy {p_scipy:.12g} in {t_ps * 1e3:.2f} ms; rel. diff {abs(p_ours - p_scipy) / p_ours:.1e}")

    rng = random.Random(0)
    div = [d for d in range(1, 101) for _ in range(10)]
    avg = [round(rng.uniform(2, 18), 1) for _ in div]
    t_h, h = best_of(lambda: forml_handicaps(div, avg))

    def pandas_version():
        import pandas as pd

        df = pd.DataFrame({"div": div, "avg": avg})
        g = df.groupby("div")["avg"]
        nteams = g.transform("size")
        exp = (g.transform("max") - df["avg"]) * 2 * (nteams - 1) / nteams
        offsets, off = {}, 0.0
        for d in sorted(df["div"].unique()):
            offsets[d] = off
            low = np.sort((exp[df["div"] == d] + off).to_numpy())[::-1]
            off = (low[1] + low[2]) / 2
        merged = exp + df["div"].map(offsets)
        return np.floor(2.75 * merged + 0.5).astype(int).tolist()

    t_pd, h_pd = best_of(pandas_version)
    print(f"\n3. Form-L handicaps, 1,000 teams in 100 divisions: xlbridge (exact) {t_h * 1e3:.1f} ms; "
          f"pandas groupby (floats) {t_pd * 1e3:.1f} ms; ratio {t_h / t_pd:.2f}; "
          f"handicaps that differ: {sum(a != b for a, b in zip(h, h_pd))}")
    for i, (a, b) in enumerate(zip(h, h_pd)):
        if a != b:
            print(f"   row {i + 1} (division {div[i]}): exact {a}, floats {b}")


if __name__ == "__main__":
    main()
