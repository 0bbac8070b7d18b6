"""Benchmark: many more seeded fuzz cases of ``xlbridge recalc`` than the CI test runs.

Not a test. Same generator as tests/batch/test_fuzz_recalc.py (tests/fuzz_mutations.py: one XML part of a
shipped template damaged byte-wise or made hostile while staying well-formed) and the same checks per
case (exit code 0/1/2, no traceback, a refusal in one line, input byte-identical, output absent or a
workbook openpyxl opens, nothing left behind), but on the full templates (their thousands of styled
blank cells included) unless --lean, and by default 1,000 cases. A failing case is printed with its
seed and index (``cases(seed, index + 1)`` rebuilds it) and the run goes on.

Prints the exit-code mix, the refusal reasons by kind, and the time per case (median, 95th
percentile, maximum; the maximum is bounded by --timeout, the command's own limit).

Usage: python benchmarks/bench_fuzz.py [--seed 1] [--cases 1000] [--timeout 10] [--lean]
"""

from __future__ import annotations

import argparse
import collections
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import fuzz_mutations  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cases", type=int, default=1000)
    p.add_argument("--timeout", type=float, default=10.0)
    p.add_argument("--lean", action="store_true", help="templates without their styled blank cells (as in CI)")
    args = p.parse_args(argv)

    import xlbridge.batch.recalc

    xlbridge.batch.evaluate.engine.engine_modules()  # imported once, as a server process would
    codes, reasons, seconds, failures = collections.Counter(), collections.Counter(), [], []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-fuzz-") as folder:
        work = Path(folder)
        for i, (template, data, what) in enumerate(fuzz_mutations.cases(args.seed, args.cases,
                                                                        lean_templates=args.lean)):
            try:
                result = fuzz_mutations.run_case(data, work, timeout=args.timeout)
            except AssertionError as exc:
                failures.append(f"seed {args.seed} case {i} ({template}, {what[:120]}): {str(exc)[:300]}")
                for leftover in work.iterdir():
                    leftover.unlink()
                continue
            codes[result["code"]] += 1
            seconds.append(result["seconds"])
            if result["code"] == 2:
                reason = result["stderr"].split(": ", 2)[-1]
                reasons[re.sub(r"[0-9'\"].*", "", reason)[:60].strip()] += 1
    total = time.perf_counter() - start
    seconds.sort()
    print(f"xlbridge recalc fuzz: seed {args.seed}, {args.cases} cases, {'lean' if args.lean else 'full'} "
          f"templates, --timeout {args.timeout:g}")
    print(f"  exit codes: {dict(sorted(codes.items()))}; failures: {len(failures)}")
    if seconds:
        p95 = seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))]
        print(f"  time per case: median {statistics.median(seconds):.2f} s, 95th percentile {p95:.2f} s, "
              f"max {seconds[-1]:.2f} s; total {total:.0f} s")
    print("  refusals by kind:")
    for reason, n in reasons.most_common(15):
        print(f"    {n:5d}  {reason}")
    for line in failures:
        print("  FAILED", line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
