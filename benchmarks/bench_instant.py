"""Benchmark: instant matchpoint charts (xlbridge.instant_chart) against what a user would write instead.

1. Build a chart from 100,000 historical results covering every legal score of the board
   (All vulnerable: 343 distinct legal N-S scores, the most any board can have), against
   (a) pandas value_counts + a Python loop over the rows, (b) a plain Python loop.
2. Award 1,000,000 scores against the chart, against (a) pandas ``Series.map`` of a
   score -> award dict, (b) a plain Python loop with a dict, (c) a Python loop of ``chart.award``.
3. A typical board (seed 002: 180 results, 8 distinct scores) with strict smoothing.

Every competitor's output is checked equal to xlbridge's before timings are printed.
Run: python benchmarks/bench_instant.py
"""

from __future__ import annotations

import gc
import platform
import time
from fractions import Fraction

import numpy as np
import pandas as pd

from xlbridge import legal_scores
from xlbridge import instant_chart

VUL = "All"
N_HIST = 100_000
N_AWARD = 1_000_000


def best_of(fn, repeat=5):
    """Best wall time of ``repeat`` runs, with the garbage collector off (as ``timeit`` does)."""
    best = float("inf")
    out = None
    gc.disable()
    try:
        for _ in range(repeat):
            t = time.perf_counter()
            out = fn()
            best = min(best, time.perf_counter() - t)
    finally:
        gc.enable()
    return best, out


def round_half_up(x: Fraction) -> int:
    return int((2 * x.numerator + x.denominator) // (2 * x.denominator))


def pandas_chart(raw: np.ndarray, legal: list):
    """value_counts for frequencies, then one Python pass over rows (exact Fractions), unsmoothed."""
    vc = pd.Series(raw).value_counts().sort_index(ascending=False)
    n = int(vc.sum())
    scores = vc.index.tolist()
    freqs = vc.to_numpy().tolist()
    below = (n - vc.cumsum()).tolist()
    rows = []
    legal_set = sorted(legal)

    def gap(hi, lo, mp2):
        inside = [s for s in legal_set if (hi is None or s < hi) and (lo is None or s > lo)]
        if inside:
            rows.append((inside[0], inside[-1], round_half_up(Fraction(100 * mp2, 2 * n))))

    gap(None, scores[0], 2 * n)
    for i, (s, f, b) in enumerate(zip(scores, freqs, below)):
        rows.append((s, s, round_half_up(Fraction(100 * (2 * b + f), 2 * n))))
        gap(s, scores[i + 1] if i + 1 < len(scores) else None, 2 * b)
    return rows


def python_chart(raw: list, legal: list):
    """Plain Python: a dict of counts, the mystery score matchpointed against every result."""
    counts = {}
    for s in raw:
        counts[s] = counts.get(s, 0) + 1
    n = len(raw)
    scores = sorted(counts, reverse=True)
    rows = []
    below = n
    prev = None
    for s in scores + [None]:
        lo_gap = [x for x in sorted(legal) if (prev is None or x < prev) and (s is None or x > s)]
        if lo_gap:
            rows.append((lo_gap[0], lo_gap[-1], round_half_up(Fraction(100 * below, n))))
        if s is not None:
            below -= counts[s]
            rows.append((s, s, round_half_up(Fraction(100 * (2 * below + counts[s]), 2 * n))))
        prev = s
    return rows


def main():
    rng = np.random.default_rng(20261122)
    legal = sorted(legal_scores(VUL))
    # every legal score at least once, the rest concentrated on a few common results
    weights = rng.pareto(1.2, len(legal)) + 0.01
    raw = np.concatenate([np.array(legal), rng.choice(legal, N_HIST - len(legal), p=weights / weights.sum())])
    rng.shuffle(raw)
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"numpy {np.__version__}, pandas {pd.__version__}")
    print(f"historical results: {len(raw):,}, distinct scores: {len(np.unique(raw))} (all legal scores, vul {VUL})")

    t_x, chart = best_of(lambda: instant_chart(raw, None, VUL, smoothing="none"))
    t_p, rows_p = best_of(lambda: pandas_chart(raw, legal))
    raw_list = raw.tolist()
    t_py, rows_py = best_of(lambda: python_chart(raw_list, legal), repeat=1)
    assert rows_p == chart.table() == rows_py, "competitor charts differ"
    print(f"\n1. chart from {len(raw):,} results ({len(chart.rows)} rows, unsmoothed)")
    print(f"   xlbridge instant_chart      {t_x * 1e3:9.1f} ms")
    print(f"   pandas value_counts + loop  {t_p * 1e3:9.1f} ms   ratio {t_p / t_x:6.1f}x")
    print(f"   plain Python loop           {t_py * 1e3:9.1f} ms   ratio {t_py / t_x:6.1f}x")

    queries = rng.choice(legal, N_AWARD)
    sub = queries[:100_000].tolist()
    t_s, aw_s = best_of(lambda: [chart.award(s) for s in sub], repeat=3)
    t_a, aw = best_of(lambda: chart.awards(queries))
    lookup = {s: a for lo, hi, a in chart.table() for s in legal if lo <= s <= hi}
    t_m, aw_m = best_of(lambda: pd.Series(queries).map(lookup).to_numpy())
    q_list = queries.tolist()
    t_d, aw_d = best_of(lambda: [lookup[s] for s in q_list], repeat=1)
    assert aw.tolist() == aw_m.tolist() == aw_d and aw_s == aw_d[:100_000], "competitor awards differ"
    print(f"\n2. awarding {N_AWARD:,} scores (legality checked by xlbridge only)")
    print(f"   xlbridge chart.awards (numpy) {t_a * 1e3:9.1f} ms")
    print(f"   pandas Series.map(dict)       {t_m * 1e3:9.1f} ms   ratio {t_m / t_a:6.1f}x")
    print(f"   Python loop over a dict       {t_d * 1e3:9.1f} ms   ratio {t_d / t_a:6.1f}x")
    print(f"   xlbridge chart.award in a loop{t_s * 10 * 1e3:9.1f} ms   ratio {t_s * 10 / t_a:6.1f}x "
          "(timed on 100,000, scaled x10)")

    seed_s = [980, 800, 480, 450, 420, 400, -50, -100]
    seed_f = [4, 3, 8, 26, 115, 6, 17, 1]
    t_seed, c = best_of(lambda: instant_chart(seed_s, seed_f, "None"), repeat=20)
    print(f"\n3. seed 002 board (180 results, 16 rows, strict smoothing): {t_seed * 1e3:.2f} ms per chart")


if __name__ == "__main__":
    main()
