"""Uploads through ``xlbridge import``, ``export`` and ``publish`` (issue 37): time and peak memory of each
attack of the issue, publish's growth with the rows, and PBN import's memory against the file's size.

    PYTHONPATH=. python benchmarks/bench_upload.py [--quick] [--publish-only]

Every figure is one whole command in its own process (``python -m xlbridge ...``), as a server runs it:
wall time, and the process's peak resident size from ``wait4`` (``ru_maxrss``; this script imports
nothing of xlbridge, since a child starts with the peak of the process it was forked from).  The interpreter's
own share is the peak of importing a two-board PBN file (the same imports, the template, no data).
Prints a markdown table (benchmarks/RESULTS.md, "Uploads: import, export, publish").

Goals (issue 37): each attack refused with exit 2 and one line, or done, within 10 s and 1 GiB;
``publish`` of 40,000 rows, every row a new pair, at most 12x the time of 4,000 rows; PBN import's peak
at most 20x the file size plus the interpreter, or refused early.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from formats_samples import pairs_pbn  # noqa: E402  (the generator the tests use)


def big_valid_pbn(boards: int = 2000, note: int = 9_400) -> str:
    """A valid event of ``boards`` boards, one result each, every board with a deal and a long commentary
    (what makes a PBN file large without rows): about 19 MB at the defaults."""
    deal = "N:AKQ2.AK2.AK2.AK2 J543.543.543.543 T98.QJT9.QJ6.QJ6 76.876.T987.T987"
    out = ['% PBN 2.1\n[Event "Congress"]\n']
    text = ("Commentary " * (note // 11 + 1))[:note]
    for b in range(1, boards + 1):
        out.append(f'\n[Board "{b}"]\n[Deal "{deal}"]\n{{{text}}}\n'
                   f'[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 1 110\n')
    return "".join(out)


def run(args: list[str], cwd: Path) -> tuple[int, float, float, str, float]:
    """(exit code, seconds, peak MiB, last stderr line, processor seconds) of ``python -m xlbridge ARGS``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.monotonic()
    with open(cwd / "stderr.txt", "w+b") as err:
        proc = subprocess.Popen([sys.executable, "-m", "xlbridge", *args], cwd=cwd, env=env,
                                stdout=subprocess.DEVNULL, stderr=err)
        _pid, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - start
        err.seek(0)
        lines = err.read().decode("utf-8", "replace").splitlines()
    return (proc.returncode, seconds, usage.ru_maxrss / 1024, (lines[-1] if lines else ""),
            usage.ru_utime + usage.ru_stime)


def workbooks(d: Path) -> None:
    import openpyxl

    from xlbridge import formats, templates
    from xlbridge.formats.workbook import fill_pairs_workbook, fill_teams_workbook

    pbn = ('[Event "Club"]\n[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 1 420\n2 2 400\n3 3 -50\n')
    wb = templates.build_workbook("pairs.xlsx")
    fill_pairs_workbook(wb, formats.read_pbn(pbn.encode()), name="club.pbn")
    wb["Travellers"]["XFD5"] = 1
    wb.save(d / "pairs-xfd5.xlsx")
    tp = ('[Event "Teams"]\n[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 2 420\n2 1 -400\n\n'
          '[TotalScoreTable "TeamId;TeamName"]\n1 "North"\n2 "South"\n')
    wb = templates.build_workbook("teams.xlsx")
    fill_teams_workbook(wb, formats.read_pbn(tp.encode()), name="teams.pbn")
    wb.save(d / "teams.xlsx")
    book = openpyxl.load_workbook(d / "teams.xlsx")
    book["Boards"]["XFD5"] = 1
    book.save(d / "teams-xfd5.xlsx")


def main() -> None:
    quick = "--quick" in sys.argv
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "tiny.pbn").write_text(pairs_pbn(2, per_board=1), encoding="ascii")
        for rows in (1000, 2000, 4000, 8000) + (() if quick else (40000,)):
            (d / f"p{rows}.pbn").write_text(pairs_pbn(rows), encoding="ascii")
        (d / "empty-tags.pbn").write_bytes(b'[Event ""]\n' * 1_800_000)
        long_name = ['% PBN 2.1\n[Event "' + "E" * 99_000 + '"]\n'] + [
            f'\n[Board "{b}"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 1 0\n' for b in range(1, 2001)]
        (d / "long-name.pbn").write_text("".join(long_name), encoding="ascii")
        (d / "big-valid.pbn").write_text(big_valid_pbn(), encoding="ascii")
        # (in a process of its own: a child forked from this one would start with this one's peak, which
        # wait4's ru_maxrss keeps across exec; this process stays small, importing nothing of xlbridge)
        subprocess.run([sys.executable, __file__, "--workbooks", str(d)], check=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
        rows = []

        def case(what: str, args: list[str], size: Path | None = None) -> tuple[int, float, float, str, float]:
            code, secs, peak, line, cpu = run(args, d)
            rows.append((what, " ".join(a if len(a) < 30 else "…" for a in args), code, secs, cpu, peak, line))
            print(f"{what}: exit {code}, {secs:.2f} s, {cpu:.2f} s processor, {peak:.0f} MiB: {line[:120]}",
                  file=sys.stderr)
            return code, secs, peak, line, cpu

        only = "--publish-only" in sys.argv
        base = 0.0 if only else case("interpreter: import of a two-board PBN", ["import", "tiny.pbn", "-o",
                                                                              "tiny.xlsx"])[2]
        if not only:
            case("export, pairs workbook with a value at Travellers!XFD5", ["export", "pairs-xfd5.xlsx", "--format",
                                                                             "pbn", "-o", "x.pbn"])
            case("publish, the same workbook", ["publish", "pairs-xfd5.xlsx", "-o", "site-xfd5"])
            case("export, teams workbook with a value at Boards!XFD5", ["export", "teams-xfd5.xlsx", "--format",
                                                                         "pbn", "-o", "t.pbn"])
            epeak = case("import, 19.8 MB of empty PBN tags", ["import", "empty-tags.pbn", "-o", "e.xlsx"])[2]
            case("publish, 274 KB PBN: 99,000-character name, 2,000 boards", ["publish", "long-name.pbn", "-o", "ln"])
        times, cpus = {}, {}
        for n in (1000, 2000, 4000, 8000) + (() if quick else (40000,)):
            got = case(f"publish, {n:,} rows, every row a new pair", ["publish", f"p{n}.pbn", "-o", f"s{n}"])
            times[n], cpus[n] = got[1], got[4]
        if not only:
            size = (d / "big-valid.pbn").stat().st_size
            peak = case(f"import, valid PBN of {size / 1e6:.1f} MB (2,000 dealt boards, commentary)",
                        ["import", "big-valid.pbn", "-o", "big.xlsx"])[2]
        print("\n| case | command | exit | seconds | processor s | peak MiB | stderr |\n|---|---|---|---|---|---|---|")
        for what, cmd, code, secs, cpu, pk, line in rows:
            print(f"| {what} | `{cmd}` | {code} | {secs:.2f} | {cpu:.2f} | {pk:.0f} | {line[:90].replace('|', '/')} |")
        print()
        if 40000 in times:
            print(f"publish 40,000 / 4,000 rows: {times[40000] / times[4000]:.1f}x wall, "
                  f"{cpus[40000] / cpus[4000]:.1f}x processor time (goal: at most 12x)")
        print(f"publish 8,000 / 1,000 rows: {times[8000] / times[1000]:.1f}x wall, {cpus[8000] / cpus[1000]:.1f}x "
              f"processor time (linear: 8x)")
        if not only:
            print(f"PBN import peak (interpreter with the template: {base:.0f} MiB): valid {size / 1e6:.1f} MB "
                  f"file {peak:.0f} MiB, {(peak - base) * 2**20 / size:.1f}x its size above the interpreter; "
                  f"19.8 MB of empty tags (refused) {epeak:.0f} MiB (goal: at most 20x the size plus the interpreter)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--workbooks"]:
        workbooks(Path(sys.argv[2]))
    else:
        main()
