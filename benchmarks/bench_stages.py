"""Benchmark: where the time of one ``xlbridge recalc`` goes, stage by stage, in every process it runs.

Not a test. ``bench_recalc.py --goals`` says how fast a run is; this says where its time goes, so that a
round of work on the speed goals (issue 51: a 10,000-row season 6x faster than LibreOffice, a cold
template no slower than openpyxl's load) starts from a measurement rather than a guess. For each book
(the 10,000-row season of ``bench_recalc.py``, and the shipped ``workbooks/pairs.xlsx`` cold) it runs
``xlbridge recalc`` in a fresh process whose stages are timed where they run: the command's own process,
the gate's second process for a large sheet, the engine's process and its reading helpers. Each stage is a
function of xlbridge (or of the formulas library, for its parse and its evaluation), wrapped before the run
wherever a module binds it; each call writes its process, wall-clock span and processor time to a pipe
opened before the engine's sandbox (which refuses opening files).

It prints, per book:

- each stage: which process ran it, when it started (seconds from the command's start, as the rest), its wall
  time and its processor time (summed over its calls in that process; medians over the runs, each process on a
  row of its own: a second reading helper, reading a middle-sized part aside, is "engine's helper 2");
- the run's wall time, and the processor time of the whole process tree (``wait4``): with two cores, the
  run cannot take less than half of it, whatever runs side by side; the gap between the two is the time
  one core waited while the other worked;
- how long one process alone worked: the start-up, before the first stage, and the stretches when only one
  process was in a timed stage (the engine's evaluation, for one). What runs between timed stages (merging
  halves, settling values, forks and exits) is not in any stage.

The wrapping costs a few microseconds a call (about 100 calls a run, most of them the engine's cached imports,
plus one per xlbridge function call: a constant formula calls one while it is compiled, inside "cells loaded"):
nothing next to the stages. A stage whose function is not found is named above the table; a runner that fails
exits with :data:`CRASHED`, and the benchmark stops with its message. The runner imports the modules of the
command's own stages (which the command imports anyway) before it starts the command, whose start-up is the time
before the first stage; the modules only the engine's process imports (formulas) are wrapped there, once it has
imported them, so that no import moves from one process to another.

Usage: python benchmarks/bench_stages.py [--rows 10000] [--repeat 3]   (medians of ``--repeat`` runs)
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: (module, attribute: a function, or Class.method), what the table calls it
STAGES = (
    ("xlbridge.batch.guard.gate", "check_upload", "guard: the gate (all parts)"),
    ("xlbridge.batch.guard.sheethalves", "scan_sheet_part", "guard: the large sheet, in halves"),
    ("xlbridge.batch.guard.sheethalves", "_Scan.feed", "  of which its bytes scanned"),
    ("xlbridge.batch.read.book", "read_book", "read stage (the command's process)"),
    ("xlbridge.batch.evaluate.engine", "engine_modules", "engine: its imports, before the go"),
    ("xlbridge.batch.read.sheetxml", "read_sheet_half", "engine: sheets read (a half each)"),
    ("xlbridge.batch.read.aliases", "find_shown", "engine: cells showing other cells"),
    ("formulas.excel", "ExcelModel.loads", "engine: cells loaded, formulas parsed"),
    ("formulas.excel", "ExcelModel.calculate", "engine: evaluation"),
    ("xlbridge.excel.functions", "ExcelFunction.call", "  of which xlbridge's functions"),
    ("xlbridge.batch.write.xlsxpatch", "patch_sheet_pieces", "engine: sheets patched"),
    ("xlbridge.batch.write.xlsxpatch", "copy_zip", "write: the output's zip"),
)


def _wrap(label: str, fn, out: int):
    @functools.wraps(fn)
    def timed(*args, **kwargs):
        t, c = time.perf_counter(), time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            os.write(out, f"{os.getpid()}\t{label}\t{t:.6f}\t{time.perf_counter():.6f}\t"
                          f"{time.process_time() - c:.6f}\n".encode())
    return timed


#: the stages in modules only the engine's process imports: wrapped there, once its imports are made (importing
#: them here would move the engine's imports into the command's start-up)
ENGINE_ONLY = ("formulas.", "xlbridge.excel.")


def _wrap_all(stages: tuple, out: int) -> None:
    for module, attr, label in stages:
        if module.startswith(ENGINE_ONLY) and module not in sys.modules:
            continue
        try:
            mod = importlib.import_module(module)
            owner, name = (getattr(mod, attr.split(".")[0]), attr.split(".")[1]) if "." in attr else (mod, attr)
            original = getattr(owner, name)
        except (ImportError, AttributeError):  # (reported with the table: a stage renamed is not a silent gap)
            os.write(out, f"{os.getpid()}\tmissing\t0\t0\t0\t{module}.{attr}\n".encode())
            continue
        if getattr(original, "bench_stage", None):  # (wrapped already, in the process it was forked from)
            continue
        wrapped = _wrap(label, original, out)
        wrapped.bench_stage = label  # type: ignore[attr-defined]
        setattr(owner, name, wrapped)
        if owner is mod:
            _replace(original, wrapped)


def _replace(original, wrapped) -> None:
    """Bind ``wrapped`` wherever a module of xlbridge or formulas imported ``original`` by name."""
    for other in list(sys.modules.values()):
        if getattr(other, "__name__", "").startswith(("xlbridge", "formulas")):
            for key, value in list(vars(other).items()):
                if value is original:
                    setattr(other, key, wrapped)


def run_timed(book: str, output: str, out: int) -> int:
    """(In the runner's process) wrap every stage, then run ``xlbridge recalc book -o output``."""
    os.write(out, f"{os.getpid()}\tstart\t{time.perf_counter():.6f}\t0\t0\n".encode())
    from xlbridge.batch.evaluate import engine

    imports = engine.engine_modules

    done: list = []

    def engine_modules():  # (the engine's imports made, the stages of the modules it imported are wrapped, once)
        got = imports()
        if not done:
            done.append(True)
            _wrap_all(tuple(s for s in STAGES if s[0].startswith(ENGINE_ONLY)), out)
        return got

    _replace(imports, engine_modules)
    _wrap_all(STAGES, out)
    from xlbridge.cli import main

    try:
        return main(["recalc", "--no-progress", book, "-o", output]) or 0
    except SystemExit as exc:
        return int(exc.code or 0)
    except BaseException:  # (not the command's exit 1, "cells with errors": the benchmark itself failed)
        import traceback

        traceback.print_exc()
        return CRASHED


#: the runner's exit code when it failed (the command's own codes are 0, and 1 for a book with error cells)
CRASHED = 3


def one_run(book: Path, output: Path) -> dict:
    """Run the book once in a fresh process; {"wall", "cpu", "calls": [(pid, label, t0, t1, cpu)], "t0"}."""
    read_end, write_end = os.pipe()
    began = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, "--run", str(book), str(output), str(write_end)],
                            pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as fh:
        lines = fh.read().decode().splitlines()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - began
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"recalc of {book.name} failed: {err[-400:]}")
    calls, missing = [], set()
    for line in lines:
        pid, label, t0, t1, cpu, *what = line.split("\t")
        if label == "missing":
            missing.update(what)
        else:
            calls.append((int(pid), label, float(t0), float(t1), float(cpu)))
    # the children's usage is in the runner's own (each process reaps its children): wait4 gives the tree's
    cpu = usage.ru_utime + usage.ru_stime
    return {"wall": wall, "cpu": cpu, "calls": calls, "began": began, "missing": missing}


def _alone(spans: list) -> float:
    """Seconds covered by exactly one process's timed spans [(pid, t0, t1)] (the others' not running then)."""
    points = sorted({t for _, t0, t1 in spans for t in (t0, t1)})
    alone = 0.0
    for a, b in zip(points, points[1:]):
        busy = {pid for pid, t0, t1 in spans if t0 <= a and b <= t1}
        if len(busy) == 1:
            alone += b - a
    return alone


def _roles(calls: list) -> dict:
    """{pid: its role}: the command (the runner's process), the engine (the one importing the engine), the
    gate's helper (a process whose first stage starts before the engine's first), the engine's helpers (the
    others, numbered in the order they start); without an engine, the others are numbered processes."""
    first: dict = {}
    for pid, label, t0, _t1, _cpu in calls:
        first[pid] = min(first.get(pid, t0), t0)
    main_pid = next(pid for pid, label, *_ in calls if label == "start")
    engine = next((pid for pid, label, *_ in calls if label.startswith("engine: its imports")), None)
    roles = {main_pid: "command"}
    if engine is not None:
        roles[engine] = "engine"
    helpers = 0
    for pid in sorted(first, key=first.get):
        if pid in roles:
            continue
        if engine is None:
            roles[pid] = f"process {len(roles) + 1}"
        elif first[pid] < first[engine]:
            roles[pid] = "gate's helper"
        else:
            helpers += 1
            roles[pid] = f"engine's helper {helpers}"
    return roles


def report(name: str, runs: list) -> None:
    def med(xs):
        xs = sorted(xs)
        return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2

    walls, cpus = [r["wall"] for r in runs], [r["cpu"] for r in runs]
    print(f"\n{name}: {len(runs)} runs; wall {med(walls):.2f} s (runs {', '.join(f'{w:.2f}' for w in walls)}); "
          f"processor time of the process tree {med(cpus):.2f} s: on 2 cores at least {med(cpus) / 2:.2f} s")
    missing = set().union(*(r["missing"] for r in runs))
    if missing:
        print(f"  stages not found (not timed): {', '.join(sorted(missing))}")
    rows: dict = {}
    for r in runs:
        began, roles, per = r["began"], _roles(r["calls"]), {}
        for pid, label, t0, t1, cpu in r["calls"]:
            if label != "start":
                first, wall, c = per.get((label, pid), (t0, 0.0, 0.0))
                per[(label, pid)] = (min(first, t0), wall + (t1 - t0), c + cpu)
        for (label, pid), (first, wall, c) in per.items():
            rows.setdefault((label, roles[pid]), []).append((first - began, wall, c))
        timed = [(pid, t0, t1) for pid, label, t0, t1, _ in r["calls"] if label != "start"]
        r["before"] = min((t0 for _, t0, _ in timed), default=began) - began
        r["alone"] = _alone(timed)
    order = {label: i for i, (_, _, label) in enumerate(STAGES)}
    print(f"  {'stage':42} {'process':17} {'from s':>7} {'wall s':>7} {'CPU s':>7}")
    print(f"  {'(start-up: the process, its imports)':42} {'command':17} {0:7.2f} "
          f"{med([r['before'] for r in runs]):7.2f}")
    for (label, role), got in sorted(rows.items(), key=lambda kv: (med([g[0] for g in kv[1]]), order[kv[0][0]])):
        print(f"  {label:42} {role:17} {med([g[0] for g in got]):7.2f} {med([g[1] for g in got]):7.2f} "
              f"{med([g[2] for g in got]):7.2f}" + ("" if len(got) == len(runs) else f"  (in {len(got)} runs)"))
    print(f"  one process alone: {med([r['before'] for r in runs]):.2f} s of start-up, then "
          f"{med([r['alone'] for r in runs]):.2f} s in timed stages")


def main() -> None:
    if "--run" in sys.argv:
        book, output, fd = sys.argv[sys.argv.index("--run") + 1:][:3]
        sys.exit(run_timed(book, output, int(fd)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import bench_recalc

    print(f"date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores (shared); "
          f"python {sys.version.split()[0]}; {bench_recalc.compile_package()}")
    d = Path(tempfile.mkdtemp(prefix="bench-stages-"))
    season = d / f"pairs{args.rows}.xlsx"
    bench_recalc.build_template(season, bench_recalc.travellers(args.rows))
    books = ((f"{args.rows:,}-row season (bench_recalc.py's)", season),
             ("workbooks/pairs.xlsx, cold", HERE.parent / "workbooks" / "pairs.xlsx"))
    for name, book in books:
        report(name, [one_run(book, d / "out.xlsx") for _ in range(args.repeat)])
    print(f"files in {d}")


if __name__ == "__main__":
    main()
