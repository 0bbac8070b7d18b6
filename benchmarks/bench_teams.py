"""Benchmark: cross-IMPs and Butler on 10,000 boards of 50 results, xlbridge vs what a user would write.

Run from the project root:  python benchmarks/bench_teams.py  [--boards 10000] [--results 50]

Compared side by side (same random travellers, results checked equal):
- cross-IMPs: xlbridge.cross_imp_totals (numpy core) and xlbridge.cross_imps (the
  full cell-level API: parsing, grouping, exact Fractions) against a straightforward numpy
  broadcast (all pairs, np.searchsorted on the IMP table, boards in chunks), a pandas self-merge
  per board, and a plain Python loop.
- Butler: xlbridge.butler_datums + imps_array (core) and xlbridge.butler (full API)
  against numpy (sort, slice, float mean, np.round) and pandas (groupby-apply of a trimmed mean).
The pandas self-merge and the Python loops are timed on a slice of the boards and scaled
linearly to the full count (marked "scaled"); everything else runs on all boards.
"""

from __future__ import annotations

import argparse
import platform
import time

from fractions import Fraction

import numpy as np

from xlbridge import IMP_THRESHOLDS, butler, butler_datums, butler_trim_count, cross_imp_totals, cross_imps, imps_array

THR = np.array(IMP_THRESHOLDS)
SCORES = np.array([-1100, -800, -500, -200, -100, -50, 50, 100, 110, 140, 170, 400, 420, 430, 450, 460, 480, 600,
                   620, 630, 650, 660, 680, 1370, 1430, 1440])


def timed(fn, repeat=1):
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return best, out


# ------------------------------------------------------------------ cross-IMPs: the alternatives

def cross_numpy_broadcast(S, chunk=1000):
    out = np.empty(S.shape, dtype=np.int64)
    for a in range(0, len(S), chunk):
        blk = S[a:a + chunk]
        d = blk[:, :, None] - blk[:, None, :]
        n = np.searchsorted(THR, np.abs(d), side="right")
        out[a:a + chunk] = np.where(d < 0, -n, n).sum(axis=2)
    return out


def cross_pandas(S):
    import pandas as pd

    B, n = S.shape
    df = pd.DataFrame({"board": np.repeat(np.arange(B), n), "row": np.tile(np.arange(n), B), "score": S.ravel()})
    m = df.merge(df, on="board", suffixes=("", "_o"))
    m = m[m["row"] != m["row_o"]]
    d = (m["score"] - m["score_o"]).to_numpy()
    k = np.searchsorted(THR, np.abs(d), side="right")
    m = m.assign(imps=np.where(d < 0, -k, k))
    return m.groupby(["board", "row"])["imps"].sum().to_numpy().reshape(B, n)


def py_imps(d):
    a = abs(d)
    k = 0
    for t in IMP_THRESHOLDS:
        if a >= t:
            k += 1
    return k if d >= 0 else -k


def cross_python(S):
    out = []
    for row in S.tolist():
        out.append([sum(py_imps(a - b) for j, b in enumerate(row) if j != i) for i, a in enumerate(row)])
    return np.array(out)


# ------------------------------------------------------------------ Butler: the alternatives

def butler_numpy(S, k):
    srt = np.sort(S, axis=1)
    mean = srt[:, k:S.shape[1] - k].mean(axis=1)
    datum = np.round(mean / 10) * 10  # float mean; numpy rounds .5 to even
    return imps_array(S - datum[:, None].astype(np.int64))


def butler_pandas(S, k):
    import pandas as pd

    B, n = S.shape
    df = pd.DataFrame({"board": np.repeat(np.arange(B), n), "score": S.ravel()})

    def datum(x):
        s = np.sort(x.to_numpy())
        return round(s[k:len(s) - k].mean() / 10) * 10

    d = df.groupby("board")["score"].apply(datum)
    diff = df["score"].to_numpy() - d.to_numpy()[df["board"].to_numpy()]
    return imps_array(diff.astype(np.int64)).reshape(B, n)


def butler_python(S, k):
    out = []
    for row in S.tolist():
        s = sorted(row)[k:len(row) - k]
        d = round(sum(s) / len(s) / 10) * 10
        out.append([py_imps(x - d) for x in row])
    return np.array(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=10_000)
    ap.add_argument("--results", type=int, default=50)
    ap.add_argument("--slice", type=int, default=500, help="boards for the scaled (slow) alternatives")
    args = ap.parse_args()
    B, n = args.boards, args.results
    rng = np.random.default_rng(2026)
    S = rng.choice(SCORES, size=(B, n))
    part = S[: min(args.slice, B)]
    scale = B / len(part)
    entries = S.ravel().tolist()
    boards = np.repeat(np.arange(1, B + 1), n).tolist()
    k = butler_trim_count(n, "acbl")

    print(f"{B:,} boards x {n} results; Python {platform.python_version()}, numpy {np.__version__}")
    rows = []

    t_core, (tot, _) = timed(lambda: cross_imp_totals(S), repeat=3)
    t_np, ref = timed(lambda: cross_numpy_broadcast(S))
    assert (ref == tot).all()
    t_api, res = timed(lambda: cross_imps(entries, boards, average=True))
    assert res.ns[-1] == Fraction(int(tot[-1, -1]), n - 1)
    t_pd, pd_out = timed(lambda: cross_pandas(part))
    assert (pd_out == tot[: len(part)]).all()
    t_py, py_out = timed(lambda: cross_python(part[:100]))
    assert (py_out == tot[:100]).all()
    rows += [
        ("cross-IMPs", "xlbridge cross_imp_totals (core)", t_core, ""),
        ("cross-IMPs", "xlbridge cross_imps (cells -> Fractions)", t_api, ""),
        ("cross-IMPs", "numpy broadcast + searchsorted", t_np, ""),
        ("cross-IMPs", "pandas self-merge + groupby", t_pd * scale, f"scaled from {len(part)} boards"),
        ("cross-IMPs", "plain Python loop", t_py * B / 100, "scaled from 100 boards"),
    ]

    def core_butler():
        d, _ = butler_datums(S, trim="acbl")
        return imps_array(S - d[:, None])

    t_bcore, bt = timed(core_butler, repeat=3)
    t_bnp, bnp = timed(lambda: butler_numpy(S, k))
    t_bapi, bres = timed(lambda: butler(entries, boards, trim="acbl"))
    assert bres.ns[-1] == int(bt[-1, -1])
    t_bpd, bpd = timed(lambda: butler_pandas(part, k))
    t_bpy, bpy = timed(lambda: butler_python(part, k))
    mism = int((bnp != bt).any(axis=1).sum())
    rows += [
        ("Butler", "xlbridge butler_datums + imps_array (core)", t_bcore, ""),
        ("Butler", "xlbridge butler (cells -> Fractions)", t_bapi, ""),
        ("Butler", "numpy sort + float mean + np.round", t_bnp, f"{mism} boards differ (float ties)"),
        ("Butler", "pandas groupby-apply", t_bpd * scale, f"scaled from {len(part)} boards"),
        ("Butler", "plain Python loop", t_bpy * scale, f"scaled from {len(part)} boards"),
    ]

    base = {"cross-IMPs": t_core, "Butler": t_bcore}
    print(f"{'task':<11} {'method':<44} {'seconds':>8} {'x core':>8}  note")
    for task, name, t, note in rows:
        print(f"{task:<11} {name:<44} {t:8.3f} {t / base[task]:8.1f}  {note}")


if __name__ == "__main__":
    main()
