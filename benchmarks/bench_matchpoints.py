"""Benchmark: matchpointing 1,000,000 results, and weighted boards (not a test).

Side by side with what a user would otherwise pick:

1. 10,000 boards x 100 results (1,000,000 rows, legal scores for each board's vulnerability):
   xlbridge.matchpoint_session (exact: integer numerators over per-board denominators, with the
   legal-score check and without) against pandas ``groupby("board")["score"].rank()`` turned into
   (float) matchpoints, and a plain Python loop (sort + bisect per board) on 1,000 boards,
   extrapolated x10.
2. A 200-result board holding 20 three-way weighted scores (3^20 = 3.5e9 combinations):
   xlbridge.weighted_session (exact) against brute-force enumeration (numpy-sorted matchpointing
   of every combination, exact integer accumulation) timed on 4..8 weighted scores and
   extrapolated per combination; the brute force on 6 weighted scores is checked equal.
   Also a 100,000-row session with one weighted score on each of its 1,000 boards.

Run:  python benchmarks/bench_matchpoints.py        (about a minute on 2 cores)
"""

from __future__ import annotations

import sys
import time
from bisect import bisect_left, bisect_right
from fractions import Fraction
from itertools import product

import numpy as np

from xlbridge import legal_scores, matchpoint_session, weighted_session

REPEAT = 7


def best_of(fn, repeat=REPEAT):
    best = float("inf")
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def make_session(nboards=10_000, per_board=100, seed=1):
    rng = np.random.default_rng(seed)
    boards = np.repeat(np.arange(1, nboards + 1), per_board)
    cycle = ["None", "NS", "EW", "All", "NS", "EW", "All", "None", "EW", "All", "None", "NS", "All", "None",
             "NS", "EW"]
    scores = np.empty(len(boards), dtype=np.int64)
    vul = (boards - 1) % 16
    for v, name in enumerate(cycle):
        sel = np.flatnonzero(vul == v)
        legal = np.array(sorted(s for s in legal_scores(name) if -1500 <= s <= 1500), dtype=np.int64)
        # a realistic traveller: a handful of distinct results per board, many ties
        centre = rng.integers(0, len(legal), size=nboards)[(boards[sel] - 1)]
        off = rng.integers(-6, 7, size=len(sel))
        scores[sel] = legal[np.clip(centre + off, 0, len(legal) - 1)]
    return boards, scores


def bench_session():
    import pandas as pd

    boards, scores = make_session()
    n = len(scores)
    t_x, s = best_of(lambda: matchpoint_session(scores, boards))
    t_x_nocheck, _ = best_of(lambda: matchpoint_session(scores, boards, check_legal=False))
    fscores = scores.astype(float)
    t_x_float, _ = best_of(lambda: matchpoint_session(fscores, boards, check_legal=False))

    holes = fscores.copy()
    holes[::97] = np.nan  # about 1 % blank rows: those boards are Neuberg-factored
    t_x_holes, _ = best_of(lambda: matchpoint_session(holes, boards))

    df = pd.DataFrame({"board": boards, "score": scores})

    def pandas_mp():
        r = df.groupby("board")["score"].rank(method="average")
        cnt = df.groupby("board")["score"].transform("size")
        ns = (r - 1) * 2
        ew = 2 * (cnt - 1) - ns
        return ns, ew

    t_pd, (pns, pew) = best_of(pandas_mp)

    def pandas_rank_only():
        return df.groupby("board")["score"].rank(method="average")

    t_pd_rank, _ = best_of(pandas_rank_only)

    # agreement (pandas floats are exact here: halves of small integers)
    assert np.array_equal(s.ns_num / s.den, pns.to_numpy())
    assert np.array_equal(s.ew_num / s.den, pew.to_numpy())

    def python_loop(nb=1000):
        out = []
        for b in range(nb):
            sc = scores[b * 100:(b + 1) * 100].tolist()
            srt = sorted(sc)
            out.append([bisect_left(srt, x) + bisect_right(srt, x) - 1 for x in sc])
        return out

    t_py, _ = best_of(python_loop, 1)
    t_py *= 10

    t_frac, _ = best_of(lambda: matchpoint_session(scores[:100_000], boards[:100_000]).ns, 1)
    print(f"1. {n:,} results, 10,000 boards x 100 (best of {REPEAT})")
    rows = [
        ("xlbridge matchpoint_session (exact, legal-score check)", t_x),
        ("xlbridge matchpoint_session (exact, check_legal=False)", t_x_nocheck),
        ("xlbridge, float input array (Excel-like), no check", t_x_float),
        ("xlbridge, 1 % blank rows -> Neuberg, with check", t_x_holes),
        ("pandas groupby().rank() -> MP N-S and E-W (floats)", t_pd),
        ("pandas groupby().rank() alone", t_pd_rank),
        ("plain Python sort+bisect per board (1,000 boards x10)", t_py),
    ]
    for name, t in rows:
        print(f"   {name:58s} {t:8.3f} s   ratio to xlbridge {t / t_x:6.2f}")
    print(f"   (turning 100,000 rows into Fraction objects, lazily on .ns: {t_frac:.3f} s)")
    return dict(rows)


def bruteforce_weighted(rows_w, plain):
    """Exact expected N-S matchpoints (x D^k) by enumerating every combination (numpy per combination)."""
    k = len(rows_w)
    n = k + len(plain)
    d = 10  # weights are tenths
    acc = np.zeros(n, dtype=object)
    plain = np.array(plain, dtype=np.int64)
    for combo in product(*rows_w):
        p = 1
        for _, w in combo:
            p *= int(w * d)
        sc = np.concatenate([np.array([s for s, _ in combo], dtype=np.int64), plain])
        srt = np.sort(sc)
        m = np.searchsorted(srt, sc, "left") + np.searchsorted(srt, sc, "right") - 1
        acc += p * m.astype(object)
    return [Fraction(int(a), d ** k) for a in acc]


def bench_weighted():
    rng = np.random.default_rng(7)
    legal = np.array(sorted(s for s in legal_scores("None") if -1000 <= s <= 1000))

    def board(k, total=200):
        weighted = []
        for _ in range(k):
            s = rng.choice(legal, 3, replace=False)
            weighted.append([(int(s[0]), Fraction(5, 10)), (int(s[1]), Fraction(3, 10)),
                             (int(s[2]), Fraction(2, 10))])
        plain = [int(x) for x in rng.choice(legal, total - k)]
        return weighted, plain

    w20, p20 = board(20)
    t_w, s = best_of(lambda: weighted_session(w20 + p20))
    assert sum(s.ns) == 200 * 199
    print("2. one 200-result board with 20 three-way weighted scores (3^20 = 3,486,784,401 combinations)")
    print(f"   xlbridge weighted_session (exact)                           {t_w:8.4f} s")
    per_combo = []
    for k in (4, 5, 6, 7, 8):
        wk, pk = board(k)
        t, bf = best_of(lambda: bruteforce_weighted(wk, pk), 1)
        per_combo.append(t / 3 ** k)
        if k == 6:
            exact = weighted_session(wk + pk)
            assert bf == exact.ns, "brute force and xlbridge disagree"
        print(f"   brute force, {k} weighted scores ({3 ** k:5d} combinations)          {t:8.3f} s")
    # a session: 1,000 boards x 100 results, one two-way weighted score on every board
    nb = 1000
    sess_boards = np.repeat(np.arange(nb) * 16 + 1, 100)  # vulnerability None throughout
    sess = [int(x) for x in rng.choice(legal, nb * 100)]
    for i in range(0, nb * 100, 100):
        a, b = rng.choice(legal, 2, replace=False)
        sess[i] = [(int(a), Fraction(3, 5)), (int(b), Fraction(2, 5))]
    t_sess, _ = best_of(lambda: weighted_session(sess, sess_boards), 3)
    print(f"   a session of 100,000 rows with a weighted score on each of 1,000 boards   {t_sess:8.3f} s")
    est = min(per_combo) * 3 ** 20
    print(f"   brute force extrapolated to 20 weighted scores: {est:,.0f} s = {est / 86400:,.1f} days "
          f"(ratio {est / t_w:,.0f})")
    return t_w, est


if __name__ == "__main__":
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}")
    bench_session()
    bench_weighted()
