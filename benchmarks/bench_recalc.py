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
  4. the core API (xlbridge.weighted_session / matchpoints) on the same data, and pandas groupby-rank, as the
     "what a programmer would do instead" baselines.

Usage: python benchmarks/bench_recalc.py [--rows 10000] [--engine-max 2000]
       python benchmarks/bench_recalc.py --goals [--repeat 3]   (issue 14's goals, processes end to end)
       python benchmarks/bench_recalc.py --pycel 1000 2000       (pycel on the COUNTIFS sheet, if installed)

``--goals`` times whole processes (start-up included), interleaved and repeated, and reports medians
and peak memory: of the whole process tree (the sum of the processes' proportional set sizes,
sampled in a separate run: :func:`run_tree_memory`), and of its largest single process (wait4):
  G1. `xlbridge recalc` of the 10,000-row template vs `soffice --convert-to xlsx` (recalculation forced)
      of the committee's COUNTIFS sheet on the same results; peak memory at 10,000 and 100,000 rows;
  G2. cold `xlbridge recalc workbooks/pairs.xlsx` vs `python -c "import openpyxl; load_workbook(...)"`;
  G3. `xlbridge recalc` of 20 workbooks with --jobs 1 and --jobs 2.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from recalc_helpers import RECALC_ALWAYS  # noqa: E402  (the LibreOffice setting the tests use)

CONTRACTS = [("4S", "N", 10), ("4S", "N", 9), ("3NT", "S", 9), ("3NT", "S", 10), ("4H", "E", 10),
             ("2S", "W", 8), ("3NTX", "N", 8), ("1NT", "S", 7), ("5DX", "E", 9), ("6S", "N", 12)]
SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")


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
    from xlbridge.templates import pairs as tp

    old = tp.T_ROWS
    tp.T_ROWS = max(old, len(rows))
    try:
        wb = templates.build_workbook("pairs.xlsx")
    finally:
        tp.T_ROWS = old
    ws = wb["Travellers"]
    first = tp.T_FIRST
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


def run_process(cmd, **kw):
    """(seconds, peak resident MiB of the process and its children) of one process run to its end."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{cmd[:4]} failed ({proc.returncode}): {err[-400:]}")
    return seconds, usage.ru_maxrss / 1024


def _tree(root):
    """The process ``root`` and its descendants now (from each process's parent in /proc/PID/stat)."""
    kids: dict = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            kids.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += kids.get(pid, [])
    return out


def _pss_kib(pid):
    """The proportional set size of one process (its own pages, plus its share of pages shared after a fork)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def run_tree_memory(cmd, every=0.05):
    """(seconds, peak MiB of the whole process tree, largest single process MiB) of one run.

    The whole tree is what a container's memory limit counts: ``xlbridge recalc`` is a parent, the
    engine's process and, while a large sheet is read, a second reading process. Its memory is the sum
    of the processes' proportional set sizes (PSS: pages shared after a fork counted once), sampled
    every ``every`` seconds (a peak between two samples can be missed); the largest single process is
    wait4's resident peak, as :func:`run_process` gives. Linux only (``/proc``); a separate run from
    the timed ones, since sampling costs processor time."""
    import threading

    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = [0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], sum(_pss_kib(pid) for pid in _tree(proc.pid)))
            done.wait(every)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(proc.pid, 0)
    done.set()
    sampler.join()
    seconds = time.perf_counter() - t
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{cmd[:4]} failed ({code}): {err[-400:]}")
    return seconds, peak[0] / 1024, usage.ru_maxrss / 1024


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


def compile_package():
    """Compile xlbridge's modules to bytecode, as ``pip install`` does for an installed package.

    A checkout installed in editable mode (``pip install -e``) has no bytecode until Python writes it
    on first import, and never with PYTHONDONTWRITEBYTECODE set (as on this machine): every run would
    then compile xlbridge's 80 modules again (0.11 s of compiling, measured 2026-11-26), a cost an
    installed xlbridge does not have. openpyxl, formulas and LibreOffice are installed packages."""
    import compileall

    import xlbridge

    root = Path(xlbridge.__file__).resolve().parent
    ok = compileall.compile_dir(str(root), quiet=1)
    return "xlbridge's bytecode compiled first (as pip install does)" if ok else "bytecode NOT compiled"


def goals(repeat):
    d = Path(tempfile.mkdtemp(prefix="bench-goals-"))
    xl = [sys.executable, "-m", "xlbridge", "recalc", "--no-progress"]
    compiled = compile_package()
    print(f"date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores (shared); "
          f"python {sys.version.split()[0]}; medians of {repeat} interleaved runs; {compiled}")
    # G1
    rows = travellers(10_000)
    build_template(d / "pairs10k.xlsx", rows)
    build_committee(d / "committee10k.xlsx", rows)
    prof = d / "lo-profile"
    empty = d / "empty.xlsx"
    openpyxl.Workbook().save(empty)
    libreoffice(empty, d / "lo", prof)  # creates the profile
    lo_cmd = [SOFFICE, f"-env:UserInstallation={prof.as_uri()}", "--headless", "--norestore",
              "--convert-to", "xlsx", "--outdir", str(d / "lo"), str(d / "committee10k.xlsx")]
    xs, los, mem = [], [], []
    for _ in range(repeat):
        t, m = run_process(xl + [str(d / "pairs10k.xlsx"), "-o", str(d / "out10k.xlsx")])
        xs.append(t)
        mem.append(m)
        los.append(run_process(lo_cmd)[0])
    out = openpyxl.load_workbook(d / "out10k.xlsx", data_only=True)["Travellers"]
    lo = openpyxl.load_workbook(d / "lo" / "committee10k.xlsx", data_only=True)["Travellers"]
    _, tree10k, _ = run_tree_memory(xl + [str(d / "pairs10k.xlsx"), "-o", str(d / "out10k.xlsx")])
    print(f"G1 10,000 rows: xlbridge recalc {median(xs):.2f} s (runs {', '.join(f'{x:.2f}' for x in xs)}), "
          f"peak memory {tree10k:.0f} MiB for the whole process tree (largest single process {max(mem):.0f} MiB; "
          f"goal < 512); LibreOffice COUNTIFS sheet {median(los):.2f} s "
          f"(runs {', '.join(f'{x:.2f}' for x in los)}); LibreOffice / xlbridge = {median(los) / median(xs):.2f} "
          f"(goal >= 5)")
    print(f"   first MP NS: template {[out.cell(5 + i, 14).value for i in range(5)]}, "
          f"LibreOffice {[lo.cell(2 + i, 5).value for i in range(5)]}")
    # built in a process of its own: a process started from this one, once it had built 100,000 rows (about
    # 900 MiB), began with that resident size, which wait4's peak of the run then reported (927 MiB against
    # 781 MiB for the same run started from a small process, 2026-11-27 eleventh round)
    subprocess.run([sys.executable, __file__, "--build-template", "100000", str(d / "pairs100k.xlsx")], check=True)
    t, tree, m = run_tree_memory(xl + [str(d / "pairs100k.xlsx"), "-o", str(d / "out100k.xlsx"), "--max-cells",
                                       "10000000"])
    print(f"G1 100,000 rows: xlbridge recalc {t:.2f} s (memory sampled), peak memory {tree:.0f} MiB for the whole "
          f"process tree (largest single process {m:.0f} MiB) (goal < 1024)")
    # G2
    book = str(Path(__file__).resolve().parent.parent / "workbooks" / "pairs.xlsx")
    cold, op = [], []
    for _ in range(max(5, repeat)):
        cold.append(run_process(xl + [book, "-o", str(d / "cold.xlsx")])[0])
        op.append(run_process([sys.executable, "-c", f"import openpyxl; openpyxl.load_workbook({book!r})"])[0])
    print(f"G2 cold recalc of workbooks/pairs.xlsx {median(cold):.2f} s, openpyxl load {median(op):.2f} s: "
          f"ratio {median(cold) / median(op):.2f} (goal <= 2.5)")
    # G3
    many = d / "many"
    many.mkdir()
    build_template(many / "club00.xlsx", travellers(1_000, seed=7))
    for i in range(1, 20):
        shutil.copy(many / "club00.xlsx", many / f"club{i:02d}.xlsx")
    j1, j2 = [], []
    for _ in range(max(1, repeat - 1)):
        j1.append(run_process(xl + [str(many), "--jobs", "1", "-o", str(d / "o1")])[0])
        j2.append(run_process(xl + [str(many), "--jobs", "2", "-o", str(d / "o2")])[0])
    print(f"G3 20 workbooks of 1,000 rows: --jobs 1 {median(j1):.2f} s, --jobs 2 {median(j2):.2f} s: "
          f"speed-up {median(j1) / median(j2):.2f} (goal >= 1.7)")
    print(f"files in {d}")


def pycel_committee(rows):
    """pycel (the other Python Excel engine) on the committee's COUNTIFS sheet of ``rows`` rows.

    pycel is not a dependency: ``pip install pycel`` (1.0b30 has no RANK, so the ranking's totals are
    evaluated, not its places). It cannot run the template at all (no xlbridge functions)."""
    try:
        from pycel import ExcelCompiler
    except ImportError:
        print("pycel not installed (pip install pycel): skipped")
        return
    d = Path(tempfile.mkdtemp(prefix="bench-pycel-"))
    build_committee(d / "committee.xlsx", travellers(rows))
    t0 = time.perf_counter()
    xl = ExcelCompiler(filename=str(d / "committee.xlsx"))
    mp = [xl.evaluate(f"Travellers!E{r}") for r in range(2, rows + 2)]
    totals = [xl.evaluate(f"Ranking!B{r}") for r in range(2, 62)]
    print(f"pycel, COUNTIFS sheet of {rows:,} rows: {time.perf_counter() - t0:.2f} s (load, MP N-S, MP E-W, "
          f"totals); first MP NS {mp[:5]}; {len(totals)} totals")


def main():
    if "--pycel" in sys.argv:
        for rows in sys.argv[sys.argv.index("--pycel") + 1:]:
            pycel_committee(int(rows))
        return None
    if "--build-template" in sys.argv:  # (for goals(): N PATH)
        n, path = sys.argv[sys.argv.index("--build-template") + 1:][:2]
        build_template(Path(path), travellers(int(n)))
        return None
    if "--goals" in sys.argv:
        rep = sys.argv[sys.argv.index("--repeat") + 1] if "--repeat" in sys.argv else "3"
        return goals(int(rep))
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--engine-max", type=int, default=2_000,
                    help="largest row count for which the formulas engine evaluates the COUNTIF sheet")
    args = ap.parse_args()
    from xlbridge.batch.evaluate.engine import engine_modules as _engine
    from xlbridge.batch.recalc import recalc_workbook

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

    from xlbridge import bridge_score, matchpoint_session

    scores = [bridge_score(c, s, t, b) for (b, _, _, c, s, t) in rows]
    boards = [r[0] for r in rows]
    t_core, _ = timed(matchpoint_session, scores, boards)
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
