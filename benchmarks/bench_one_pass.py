"""Benchmark: what one XML pass serving both the gate and the engine's reading would save (issue 51).

Not a test. An ``xlbridge recalc`` of a 10,000-row season reads its 13.8 MB Travellers part twice with expat: the
gate's scan (:func:`xlbridge.batch.guard.xmlscan.counting_handler`, before anything else reads the upload) and the
engine's reading (:func:`xlbridge.batch.read.sheetxml.read_sheet`, in its sandboxed process). This script measures,
in one process and one core, the processor time of each on that part, and of both in **one** expat pass that hands
every event to both handlers (what merging them without rewriting either would give), against expat's own parse
with empty handlers (the floor of any pass that calls Python per element). Each is run ``--repeat`` times,
interleaved; the medians are printed, and each result is checked against the separate runs' (the same counts,
extent, formulas and values), so the one-pass figure is of the same work.

With ``--whole N``, it then runs N interleaved rounds of whole processes, as ``bench_recalc.py --goals`` does: the
season's ``xlbridge recalc`` as it is; the same command with the gate's scan of that part replaced by the counts
and extent the scan finds (what a run would take if that scan cost nothing: the most any merging of the two passes
could give); and LibreOffice recalculating the committee's COUNTIFS sheet on the same results. The two recalcs'
outputs are checked to be the same bytes.

Usage: python benchmarks/bench_one_pass.py [--rows 10000] [--repeat 5] [--whole 3]
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import statistics
import sys
import tempfile
import time
import xml.parsers.expat as expat
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _largest_name(book: Path) -> str:
    with zipfile.ZipFile(book) as zf:
        return max((i for i in zf.infolist() if i.filename.startswith("xl/worksheets/sheet")),
                   key=lambda i: i.file_size).filename


def _largest_sheet(book: Path) -> bytes:
    with zipfile.ZipFile(book) as zf:
        return zf.read(_largest_name(book))


def gate(data: bytes):
    """The gate's scan of the part (its totals and extent)."""
    from xlbridge.batch.guard import xmlscan
    from xlbridge.batch.guard.limits import DEFAULT_LIMITS

    totals = xmlscan.Totals()
    handler = xmlscan.counting_handler("part", "sheet Travellers", totals, DEFAULT_LIMITS, "book.xlsx")
    parser = xmlscan.new_parser("part", "book.xlsx")
    xmlscan.install(parser, handler)
    parser.Parse(data, True)
    handler.finish()
    return totals.cells, totals.rows, totals.extents


def read(data: bytes):
    """The engine's reading of the part (what it keeps: formulas, array ranges, values by column)."""
    from xlbridge.batch.read.sheetxml import read_sheet

    got = read_sheet(data, values=True, sheet="Travellers")
    return got.formulas, got.array_refs, got.columns, got.cells


def both(data: bytes):
    """Both in one expat pass: each event handed to the gate's handler, then to the reading's."""
    from xlbridge.batch.guard import xmlscan
    from xlbridge.batch.guard.limits import DEFAULT_LIMITS
    from xlbridge.batch.read import sheetxml

    totals = xmlscan.Totals()
    handler = xmlscan.counting_handler("part", "sheet Travellers", totals, DEFAULT_LIMITS, "book.xlsx")
    reading = sheetxml._Reading(data, sheetxml.WHOLE, "part", "Travellers", None, None, True, False)
    start, end, chars, _ = sheetxml._handlers(reading)
    g_start, g_end, g_chars = handler.start, handler.end, handler.chars

    def start2(name, attrs):
        g_start(name, attrs)
        start(name, attrs)

    def end2(name):
        g_end(name)
        end(name)

    def chars2(text):
        g_chars(text)
        chars(text)

    parser = reading.parser
    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start2, end2, chars2
    try:
        parser.Parse(data, True)
    finally:
        parser.StartElementHandler = parser.EndElementHandler = parser.CharacterDataHandler = None
    handler.finish()
    got = reading.result("", 0)
    return (totals.cells, totals.rows, totals.extents), (got.formulas, got.array_refs, got.columns)


def empty(data: bytes) -> None:
    """expat over the part with handlers that do nothing (text buffered, as both passes do)."""
    parser = expat.ParserCreate()
    parser.buffer_text = True
    parser.StartElementHandler = lambda name, attrs: None
    parser.EndElementHandler = lambda name: None
    parser.CharacterDataHandler = lambda text: None
    parser.Parse(data, True)


def run_without_scan(argv: list) -> int:
    """``xlbridge`` with ``argv``, the gate's scan of the large worksheet part replaced by what it finds
    (``XLBRIDGE_BENCH_SCAN``: JSON of cells, rows and {part: extent}); everything else as it is."""
    from xlbridge.batch.guard import safety

    cells, rows, extents = json.loads(os.environ["XLBRIDGE_BENCH_SCAN"])
    replaced: list = []

    def counted(data, part, where, totals, limits, name, deadline=None, seconds=0.0):
        totals.cells += cells
        totals.rows += rows
        totals.extents[part] = tuple(extents[part])
        replaced.append(part)

    safety.scan_sheet_part = counted
    from xlbridge.cli import main as xlbridge_main

    rc = xlbridge_main(argv)
    return rc if replaced == list(extents) else 3  # (3: the scan was not the one replaced; the benchmark stops)


def whole_runs(book: Path, rounds: int, scanned: tuple) -> None:
    """``rounds`` interleaved rounds: the recalc, the recalc without the large part's scan, LibreOffice."""
    import bench_recalc

    d = book.parent
    bench_recalc.build_committee(d / "committee.xlsx", bench_recalc.travellers(ROWS[0]))
    profile = d / "lo-profile"
    bench_recalc.libreoffice(d / "committee.xlsx", d / "lo", profile)  # (creates the profile)
    xl = [sys.executable, "-m", "xlbridge", "recalc", "--no-progress", str(book), "-o"]
    lo = [bench_recalc.SOFFICE, f"-env:UserInstallation={profile.as_uri()}", "--headless", "--norestore",
          "--convert-to", "xlsx", "--outdir", str(d / "lo"), str(d / "committee.xlsx")]
    env = dict(os.environ, XLBRIDGE_BENCH_SCAN=json.dumps(scanned))
    times: dict = {"as it is": [], "without the scan": [], "LibreOffice": []}
    for _ in range(rounds):
        times["as it is"].append(bench_recalc.run_process(xl + [str(d / "a.xlsx")])[0])
        times["without the scan"].append(bench_recalc.run_process(
            [sys.executable, __file__, "--run-without-scan", "recalc", "--no-progress", str(book), "-o",
             str(d / "b.xlsx")], env=env)[0])
        times["LibreOffice"].append(bench_recalc.run_process(lo)[0])
    assert filecmp.cmp(d / "a.xlsx", d / "b.xlsx", shallow=False), "the recalc without the scan wrote other bytes"
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"  whole processes, medians of {rounds} interleaved rounds          s   LibreOffice / it")
    for k, v in med.items():
        runs = ", ".join(f"{x:.2f}" for x in times[k])
        print(f"  {k:<22} {v:6.2f} (runs {runs})" + (f"  {med['LibreOffice'] / v:.2f}" if k != "LibreOffice" else ""))


ROWS = [10_000]


def main() -> None:
    if "--run-without-scan" in sys.argv:
        sys.exit(run_without_scan(sys.argv[sys.argv.index("--run-without-scan") + 1:]))
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--whole", type=int, default=0)
    args = ap.parse_args()
    ROWS[0] = args.rows
    sys.path.insert(0, str(HERE))
    import bench_recalc

    print(f"date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; python {sys.version.split()[0]}; "
          f"{bench_recalc.compile_package()}")
    book = Path(tempfile.mkdtemp(prefix="bench-one-pass-")) / f"pairs{args.rows}.xlsx"
    bench_recalc.build_template(book, bench_recalc.travellers(args.rows))
    data = _largest_sheet(book)
    g, r = gate(data), read(data)
    b_gate, b_read = both(data)
    assert b_gate == g and b_read == r[:3], "the one pass found something else than the two"
    print(f"{args.rows:,}-row season: its largest worksheet part, {len(data) / 1e6:.1f} MB, {r[3]:,} cells")
    times: dict = {f: [] for f in (empty, gate, read, both)}
    for _ in range(args.repeat):
        for f in times:
            began = time.process_time()
            f(data)
            times[f].append(time.process_time() - began)
    med = {f.__name__: statistics.median(ts) for f, ts in times.items()}
    print("  pass (one process, processor time, median)                      s")
    print(f"  expat alone, empty handlers                                  {med['empty']:6.2f}")
    print(f"  the gate's scan                                              {med['gate']:6.2f}")
    print(f"  the engine's reading                                         {med['read']:6.2f}")
    print(f"  the two, one after the other                                 {med['gate'] + med['read']:6.2f}")
    print(f"  both in one pass                                             {med['both']:6.2f}")
    print(f"  saved by the one pass: {med['gate'] + med['read'] - med['both']:.2f} s; "
          f"the gate's whole scan (the most any merge could save): {med['gate']:.2f} s")
    if args.whole:
        cells, rows, extents = g
        whole_runs(book, args.whole, (cells, rows, {_largest_name(book): extents["part"]}))


if __name__ == "__main__":
    main()
