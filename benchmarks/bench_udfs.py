"""Benchmark of the Excel layer (xlbridge.udfs): one call per column versus what a user would do instead.

Not a test. Run: python benchmarks/bench_udfs.py [--boards 100] [--tables 20]

Compares, on a session of travellers (boards x tables rows, Excel-shaped: a column of floats):
- MATCHPOINTS as ONE call over the whole session (rows grouped by board),
- MATCHPOINTS called once per board (a formula per traveller block),
- a per-cell style loop (one call per row, each scoring its board again - what a per-row UDF costs),
- pandas groupby + rank (floats, no legality check, no Neuberg) - what a Python user might write,
- the core matchpoint_session directly (the adapter's overhead).
And BRIDGE_SCORE over a column versus a plain Python loop over xlbridge.bridge_score.
"""

from __future__ import annotations

import argparse
import platform
import random
import time

import numpy as np

from xlbridge import bridge_score, legal_scores, matchpoint_session
from xlbridge.udfs import EXCEL_FUNCTIONS as F


def best_of(fn, repeat=3):
    best = float("inf")
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def session(boards, tables, seed=1):
    rnd = random.Random(seed)
    rows_s, rows_b = [], []
    for b in range(1, boards + 1):
        legal = sorted(s for s in legal_scores(b) if -1400 <= s <= 1400)
        common = rnd.sample(legal, 6)
        for _ in range(tables):
            rows_s.append([float(rnd.choice(common))])
            rows_b.append([float(b)])
    return rows_s, rows_b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=100)
    ap.add_argument("--tables", type=int, default=20)
    a = ap.parse_args()
    s, b = session(a.boards, a.tables)
    n = len(s)
    print(f"session: {a.boards} boards x {a.tables} tables = {n} rows; "
          f"{platform.python_implementation()} {platform.python_version()}, numpy {np.__version__}")

    t_one, one = best_of(lambda: F["MATCHPOINTS"](s, b))
    t_core, core = best_of(lambda: matchpoint_session([r[0] for r in s], [r[0] for r in b]))

    def per_board():
        out = []
        for k in range(a.boards):
            blk = slice(k * a.tables, (k + 1) * a.tables)
            out += F["MATCHPOINTS"](s[blk], b[blk], a.tables)
        return out

    t_board, pb = best_of(per_board)

    def per_cell(limit=200):  # one call per row, each scoring its whole board (timed on `limit` rows)
        out = []
        for i in range(limit):
            k = i // a.tables
            blk = slice(k * a.tables, (k + 1) * a.tables)
            out.append(F["MATCHPOINTS"](s[blk], b[blk], a.tables)[i - k * a.tables])
        return out

    lim = min(200, n)
    t_cell_part, pc = best_of(lambda: per_cell(lim), repeat=1)
    t_cell = t_cell_part * n / lim

    try:
        import pandas as pd

        def with_pandas():
            df = pd.DataFrame({"board": [r[0] for r in b], "score": [r[0] for r in s]})
            rank = df.groupby("board")["score"].rank(method="average")
            return (2 * (rank - 1)).tolist()

        t_pd, pdv = best_of(with_pandas)
    except ImportError:  # pragma: no cover
        t_pd, pdv = None, None

    assert one == pb and [r for r in one[:lim]] == pc
    assert [r[0] for r in one] == [float(x) for x in core.ns]
    if pdv is not None:
        assert [float(r[0]) for r in one] == pdv, "pandas disagrees"

    print("\nMATCHPOINTS over the session")
    print(f"  one call (xlbridge.udfs)          {t_one * 1e3:9.1f} ms   1.00")
    print(f"  core matchpoint_session directly  {t_core * 1e3:9.1f} ms   {t_core / t_one:5.2f}  (adapter overhead)")
    print(f"  one call per board                {t_board * 1e3:9.1f} ms   {t_board / t_one:5.2f}")
    print(f"  one call per row (extrapolated)   {t_cell * 1e3:9.1f} ms   {t_cell / t_one:5.2f}")
    if t_pd is not None:
        print(f"  pandas groupby rank (floats)      {t_pd * 1e3:9.1f} ms   {t_pd / t_one:5.2f}  (same values here)")

    rnd = random.Random(2)
    contracts = [rnd.choice(["4S", "3NT", "2H", "6DX", "1NT", "PASS"]) for _ in range(n)]
    decl = [rnd.choice("NESW") for _ in range(n)]
    tricks = [float(rnd.randint(6, 12)) for _ in range(n)]
    vul = [float(r[0]) for r in b]
    col = lambda v: [[x] for x in v]  # noqa: E731
    t_bs, bs = best_of(lambda: F["BRIDGE_SCORE"](col(contracts), col(decl), col(tricks), col(vul)))
    t_loop, lp = best_of(lambda: [bridge_score(c, d, t, v) for c, d, t, v in zip(contracts, decl, tricks, vul)])
    assert [r[0] for r in bs] == lp
    print("\nBRIDGE_SCORE over a column")
    print(f"  one call (xlbridge.udfs)          {t_bs * 1e3:9.1f} ms   1.00")
    print(f"  plain loop over bridge_score      {t_loop * 1e3:9.1f} ms   {t_loop / t_bs:5.2f}  (adapter overhead)")


if __name__ == "__main__":
    main()
