"""Benchmark: `xlbridge recalc` of a season-sized pairs.xlsx vs LibreOffice on a hand-built COUNTIF sheet.

Not a test. Builds, for the same N traveller rows (boards of 10 results, contracts and tricks):

  A. the pairs.xlsx template (xlbridge.templates) enlarged to N rows: SCORE_OR_TYPED, WEIGHTED_MP and
     PAIRS_RANKING, one array call per column;
  B. the sheet a committee builds by hand: Score NS typed, MP NS / MP EW by COUNTIFS per row
     (2 per score beaten + 1 per tie on the same board), totals by SUMIF, RANK.

and times
  1. xlbridge recalc of A (formulas engine + xlbridge functions, in its bounded child process);
  2. LibreOffice headless recalculation of B (convert-to xlsx with "always recalculate on load"),
     minus LibreOffice's start-up measured on an empty workbook;
  3. xlbridge recalc of B (the formulas engine evaluating N COUNTIFS formulas; only up to --engine-max
     rows, it is slow);
  4. the core API (xlbridge.weighted / matchpoints) on the same data, and pandas groupby-rank, as the
     "what a programmer would do instead" baselines.

Usage: python benchmarks/bench_recalc.py [--rows 10000] [--engine-max 2000]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import openpyxl

CONTRACTS = [("4S", "N", 10), ("4S", "N", 9), ("3NT", "S", 9), ("3NT", "S", 10), ("4H", "E", 10),
             ("2S", "W", 8), ("3NTX", "N", 8), ("1NT", "S", 7), ("5DX", "E", 9), ("6S", "N", 12)]
SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
RECALC_ALWAYS = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse">
<value>0</value></prop></item>
</oor:items>
"""


def travellers(n, per_board=10, pairs=60, seed=1):
    """n rows, ``per_board`` tables per board, each pair at most once per board."""
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        board, table = divmod(i, per_board)
        if table == 0:
            seats = rnd.sample(range(1, pairs + 1), 2 * per_board)
        rows.append((board + 1, seats[table], seats[per_board + table]) + rnd.choice(CONTRACTS))
    return rows


def build_template(path, rows):
    from xlbridge import templates

    old = templates.T_ROWS
    templates.T_ROWS = len(rows)
    try:
        wb = templates.build_workbook("pairs.xlsx")
    finally:
        templates.T_ROWS = old
    ws = wb["Travellers"]
    first = templates.T_FIRST
    for r in range(first, first + 20):  # the seed example rows
        for c in range(1, 14):
            if c != 8:
                ws.cell(r, c).value = None
    for i, (b, ns, ew, contract, decl, tricks) in enumerate(rows):
        r = first + i
        for c, v in enumerate((b, ns, ew, contract, decl, tricks), start=1):
            ws.cell(r, c, v)
    ws["R5"] = "EBU"
    wb.save(path)


def build_committee(path, rows):
    from xlbridge import bridge_score

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Travellers"
    ws.append(["Board", "NS", "EW", "Score NS", "MP NS", "MP EW"])
    n = len(rows) + 1
    for r, (b, ns, ew, contract, decl, tricks) in enumerate(rows, start=2):
        ws.append([b, ns, ew, bridge_score(contract, decl, tricks, b)])
        ws[f"E{r}"] = (f"=2*COUNTIFS($A$2:$A${n},A{r},$D$2:$D${n},\"<\"&D{r})"
                       f"+COUNTIFS($A$2:$A${n},A{r},$D$2:$D${n},D{r})-1")
        ws[f"F{r}"] = f"=2*(COUNTIF($A$2:$A${n},A{r})-1)-E{r}"
    rk = wb.create_sheet("Ranking")
    rk.append(["Pair", "Total MP", "Rank"])
    for p in range(1, 61):
        r = p + 1
        rk.append([p])
        rk[f"B{r}"] = (f"=SUMIF(Travellers!$B$2:$B${n},A{r},Travellers!$E$2:$E${n})"
                       f"+SUMIF(Travellers!$C$2:$C${n},A{r},Travellers!$F$2:$F${n})")
        rk[f"C{r}"] = f"=RANK(B{r},$B$2:$B$61)"
    wb.save(path)


def libreoffice(src, outdir, profile):
    (profile / "user").mkdir(parents=True, exist_ok=True)
    (profile / "user" / "registrymodifications.xcu").write_text(RECALC_ALWAYS)
    t = time.perf_counter()
    subprocess.run([SOFFICE, f"-env:UserInstallation={profile.as_uri()}", "--headless", "--norestore",
                    "--convert-to", "xlsx", "--outdir", str(outdir), str(src)], check=True, capture_output=True)
    return time.perf_counter() - t


def timed(fn, *a, **k):
    t = time.perf_counter()
    out = fn(*a, **k)
    return time.perf_counter() - t, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--engine-max", type=int, default=2_000,
                    help="largest row count for which the formulas engine evaluates the COUNTIF sheet")
    args = ap.parse_args()
    from xlbridge.batch.recalc import _engine, recalc_workbook

    d = Path(tempfile.mkdtemp(prefix="bench-recalc-"))
    rows = travellers(args.rows)
    build_template(d / "pairs.xlsx", rows)
    build_committee(d / "committee.xlsx", rows)
    t_import, _ = timed(lambda: (_engine(), __import__("xlbridge.udfs")))
    print(f"rows: {args.rows}; engine + udfs import (once per process): {t_import:.2f} s")

    t_x, rep = timed(recalc_workbook, str(d / "pairs.xlsx"), str(d / "pairs-out.xlsx"))
    print(f"1. xlbridge recalc, pairs.xlsx template ({rep.cells_written} cells, {len(rep.errors)} errors): "
          f"{t_x:.2f} s")
    wb = openpyxl.load_workbook(d / "pairs-out.xlsx", data_only=True)
    mp = [wb["Travellers"].cell(5 + i, 14).value for i in range(min(args.rows, 10))]

    results = {"xlbridge": t_x}
    if SOFFICE:
        empty = d / "empty.xlsx"
        openpyxl.Workbook().save(empty)
        prof = d / "lo-profile"
        libreoffice(empty, d / "lo", prof)  # first run creates the profile
        t_start = min(libreoffice(empty, d / "lo", prof) for _ in range(2))
        t_lo = libreoffice(d / "committee.xlsx", d / "lo", prof)
        lo = openpyxl.load_workbook(d / "lo" / "committee.xlsx", data_only=True)["Travellers"]
        lo_mp = [lo.cell(2 + i, 5).value for i in range(min(args.rows, 10))]
        print(f"2. LibreOffice headless, COUNTIF sheet: {t_lo:.2f} s (start-up on an empty book "
              f"{t_start:.2f} s, so {t_lo - t_start:.2f} s of work); first MP NS (EBU) {lo_mp}; "
              f"template gives {mp}")
        results["libreoffice"] = t_lo
    else:
        print("2. LibreOffice not installed: skipped")

    if args.rows <= args.engine_max:
        t_e, rep_e = timed(recalc_workbook, str(d / "committee.xlsx"), str(d / "committee-out.xlsx"),
                           functions={})
        print(f"3. xlbridge recalc (formulas engine), COUNTIF sheet: {t_e:.2f} s")
        results["engine-countif"] = t_e
    else:
        print(f"3. formulas engine on the COUNTIF sheet: skipped above {args.engine_max} rows")

    from xlbridge.weighted import weighted_session  # noqa: F401  (the API the template's WEIGHTED_MP calls)
    from xlbridge import matchpoints as M
    from xlbridge import bridge_score

    scores = [bridge_score(c, s, t, b) for (b, _, _, c, s, t) in rows]
    boards = [r[0] for r in rows]
    fn = getattr(M, "matchpoint_session")
    t_core, _ = timed(fn, scores, boards)
    print(f"4a. core API matchpoint_session on the same scores: {t_core:.3f} s")
    try:
        import pandas as pd

        df = pd.DataFrame({"board": boards, "score": scores})
        t_pd, _ = timed(lambda: (df.groupby("board")["score"].rank(method="average") - 1) * 2)
        print(f"4b. pandas groupby-rank (floats, no Neuberg): {t_pd:.3f} s")
    except ImportError:
        pass
    if "libreoffice" in results:
        print(f"ratio LibreOffice(COUNTIF) / xlbridge recalc(template): {results['libreoffice'] / t_x:.2f}")
    print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}; files in {d}")


if __name__ == "__main__":
    main()
