"""Benchmark: a Lehman season of 1,000,000 boards among 10,000 players, xlbridge vs what a user would write.

Compared side by side (same boards, same options: decay 6.7 % after the update, floor 1):

- ``xlbridge.lehman_ledger_arrays`` (numpy: per week all deltas at once, bincount);
- ``xlbridge.lehman_ledger`` from a list of row tuples (adds the conversion to arrays);
- a pandas version (per week: numpy deltas, ``groupby().sum()`` for the pseudo-rating sums);
- a plain Python loop over boards with dicts (the obvious spreadsheet-macro translation).

Each is run for both formulas; the results are checked against each other.

    python benchmarks/bench_lehman.py                 # 1,000,000 boards, 10,000 players, 50 weeks
    python benchmarks/bench_lehman.py --boards 100000 # quicker
"""
from __future__ import annotations

import argparse
import math
import os
import platform
import time

import numpy as np

from xlbridge import lehman_deltas_array, lehman_ledger, lehman_ledger_arrays

DECAY = 0.067
FLOOR = 1.0


def make_season(boards, players, weeks, seed=2026):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, players, size=(boards, 4))
    while True:
        s = np.sort(ids, axis=1)
        bad = np.any(s[:, 1:] == s[:, :-1], axis=1)
        if not bad.any():
            break
        ids[bad] = rng.integers(0, players, size=(int(bad.sum()), 4))
    week = np.sort(rng.integers(1, weeks + 1, size=boards))
    pct = np.clip(rng.normal(50, 12, size=boards), 0, 100).round(2)
    return week, ids, pct


def plain_python(week, ids, pct, formula):
    """The loop a user would write: dicts of rating and history, one board at a time."""
    rating, hist = {}, {}
    rows = list(zip(week.tolist(), ids.tolist(), pct.tolist()))
    i = 0
    n = len(rows)
    keep = 1 - DECAY
    while i < n:
        w = rows[i][0]
        qsum, count = {}, {}
        while i < n and rows[i][0] == w:
            _, four, p = rows[i]
            r = [rating.get(x, 50.0) for x in four]
            if formula == "modified":
                e = []
                for x in four:
                    h = hist.get(x, 0.0)
                    e.append(1 / math.sqrt(h - 1) if h >= 2 else 1.0)
                ens, eew = (e[0] + e[1]) / 2, (e[2] + e[3]) / 2
                rp = [r[0] * e[0] / ens, r[1] * e[1] / ens, r[2] * e[2] / eew, r[3] * e[3] / eew]
            else:
                rp = r
            rns, rew = (rp[0] + rp[1]) / 2, (rp[2] + rp[3]) / 2
            rall = (rns + rew) / 2
            fns = p / (50 * rns / rall) - 1
            few = (100 - p) / (50 * rew / rall) - 1
            for x, rx, rpx, f in zip(four, r, rp, (fns, fns, few, few)):
                qsum[x] = qsum.get(x, 0.0) + rx + rpx * f
                count[x] = count.get(x, 0) + 1
            i += 1
        for x in qsum:
            h = hist.get(x, 0.0)
            rating[x] = max(FLOOR, (h * rating.get(x, 50.0) + qsum[x]) / (h + count[x]))
            hist[x] = h + count[x]
        for x in hist:
            hist[x] *= keep
    return rating


def with_pandas(week, ids, pct, formula):
    """What a pandas user might write: numpy deltas per week, groupby-sum for the pseudo-ratings."""
    import pandas as pd

    players = int(ids.max()) + 1
    rating = np.full(players, 50.0)
    hist = np.zeros(players)
    df = pd.DataFrame({"week": week, "n": ids[:, 0], "s": ids[:, 1], "e": ids[:, 2], "w": ids[:, 3], "pct": pct})
    for _, g in df.groupby("week", sort=True):
        four = g[["n", "s", "e", "w"]].to_numpy()
        r4 = rating[four]
        e4 = None
        if formula == "modified":
            e4 = 1 / np.sqrt(np.maximum(hist[four] - 1, 1))
        q = r4 + lehman_deltas_array(r4, g["pct"].to_numpy(), e4)
        long = pd.DataFrame({"player": four.ravel(), "q": q.ravel()})
        agg = long.groupby("player")["q"].agg(["sum", "count"])
        p = agg.index.to_numpy()
        h = hist[p]
        rating[p] = np.maximum(FLOOR, (h * rating[p] + agg["sum"].to_numpy()) / (h + agg["count"].to_numpy()))
        hist[p] += agg["count"].to_numpy()
        hist *= 1 - DECAY
    return rating


def timed(fn, *args, repeat=1):
    """Best wall time of ``repeat`` calls (the machine is shared) and the last result."""
    best = math.inf
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - t)
    return best, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=1_000_000)
    ap.add_argument("--players", type=int, default=10_000)
    ap.add_argument("--weeks", type=int, default=50)
    ap.add_argument("--skip-plain", action="store_true", help="skip the (slow) plain Python loop")
    args = ap.parse_args()
    week, ids, pct = make_season(args.boards, args.players, args.weeks)
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"season: {args.boards:,} boards, {args.players:,} players, {args.weeks} weeks; "
          f"{platform.processor() or platform.machine()}, python {platform.python_version()}, numpy {np.__version__}")
    rows = [(int(w), int(a), int(b), int(c), int(d), float(p)) for w, (a, b, c, d), p in zip(week, ids, pct)]
    print(f"{'formula':<9} {'method':<34} {'seconds':>8} {'x slower than arrays':>21}  max |diff|")
    for formula in ("standard", "modified"):
        t_arr, led = timed(lambda: lehman_ledger_arrays(week, ids[:, 0], ids[:, 1], ids[:, 2], ids[:, 3], pct,
                                                        formula=formula), repeat=3)
        ref = np.asarray(led.ratings[-1])
        players = np.asarray(led.players)
        lines = [("xlbridge lehman_ledger_arrays", t_arr, 0.0)]
        t_rows, led2 = timed(lambda: lehman_ledger(rows, formula=formula), repeat=2)
        lines.append(("xlbridge lehman_ledger (row tuples)", t_rows,
                      float(np.nanmax(np.abs(np.asarray(led2.ratings[-1]) - ref)))))
        t_pd, r_pd = timed(with_pandas, week, ids, pct, formula, repeat=2)
        lines.append(("pandas groupby per week", t_pd, float(np.nanmax(np.abs(r_pd[players] - ref)))))
        if not args.skip_plain:
            t_py, r_py = timed(plain_python, week, ids, pct, formula)
            diff = max(abs(r_py[int(p)] - ref[k]) for k, p in enumerate(players))
            lines.append(("plain Python loop over boards", t_py, float(diff)))
        for name, t, diff in lines:
            print(f"{formula:<9} {name:<34} {t:8.2f} {t / t_arr:21.1f}  {diff:.1e}")


if __name__ == "__main__":
    main()
