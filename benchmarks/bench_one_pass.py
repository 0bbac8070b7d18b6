"""Benchmark: what one XML pass serving both the gate and the engine's reading would save (issue 51).

Not a test. An ``xlbridge recalc`` of a 10,000-row season reads its 13.8 MB Travellers part twice with expat: the
gate's scan (:func:`xlbridge.batch.guard.xmlscan.counting_handler`, before anything else reads the upload) and the
engine's reading (:func:`xlbridge.batch.read.sheetxml.read_sheet`, in its sandboxed process). This script measures,
in one process and one core, the processor time of each on that part, and of both in **one** expat pass that hands
every event to both handlers (what merging them without rewriting either would give), against expat's own parse
with no handler and with empty Python handlers (the floor of any pass that calls Python per element). Each is run
``--repeat`` times, interleaved; the medians are printed, and the one pass's results are checked against the separate
passes' (the gate's counts and extent; the reading's layout, formulas, array ranges, values, special cells and note),
so the one-pass figure is of the same work.

With ``--whole N``, it then runs N interleaved rounds of whole processes for each of issue 51's two speed goals, as
``bench_recalc.py --goals`` does: ``xlbridge recalc`` as it is; the same command with the gate's scan of the book's
largest worksheet part replaced by the counts and extent the scan finds (what a run would take if that scan cost
nothing: more than any merging of the two passes could give, since a merged pass still makes the gate's checks); and
what the goal compares with. G1: the 10,000-row season, and LibreOffice recalculating the committee's COUNTIFS sheet
on the same results. G2: the shipped ``workbooks/pairs.xlsx``, cold, and openpyxl's ``load_workbook`` of it. The two
recalcs' outputs are checked to be the same bytes.

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


def _kept(got) -> tuple:
    """What a reading keeps (a :class:`~xlbridge.batch.read.sheetxml.SheetRead`), comparable with ``==``."""
    layout = got.layout
    return ((dict(layout.cells.items()), layout.rows, layout.sheetdata, layout.formula_cells, layout.array_ranges,
             layout.prefix, layout.complete, layout.row_cells),
            got.formulas, got.array_refs, got.columns, got.special, got.unusual, got.cells)


def read(data: bytes):
    """The engine's reading of the part (:func:`_kept`)."""
    from xlbridge.batch.read.sheetxml import read_sheet

    return _kept(read_sheet(data, values=True, sheet="Travellers"))


def both(data: bytes):
    """Both in one expat pass: each event handed to the gate's handler, then to the reading's."""
    from xlbridge.batch.guard import xmlscan
    from xlbridge.batch.guard.limits import DEFAULT_LIMITS
    from xlbridge.batch.read import sheetxml

    totals = xmlscan.Totals()
    handler = xmlscan.counting_handler("part", "sheet Travellers", totals, DEFAULT_LIMITS, "book.xlsx")
    reading = sheetxml._Reading(data, sheetxml.WHOLE, "part", "Travellers", None, None, True, False)
    start, end, chars, where = sheetxml._handlers(reading)
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
    sd = reading.sd  # (what read_sheet does after its parse: the same checks)
    if not sd:
        reading.damaged("no sheetData")
    if sd[3] is not None and data.find(b"xmlns", sd[1], sd[3]) >= 0:
        reading.note("a namespace declared (or the word xmlns written) inside the sheet data")
    at = where()
    return (totals.cells, totals.rows, totals.extents), _kept(reading.result(at.q_prefix, at.ncells))


def bare(data: bytes) -> None:
    """expat over the part with no handler: its parse in C alone."""
    expat.ParserCreate().Parse(data, True)


def empty(data: bytes) -> None:
    """expat over the part with handlers that do nothing (text buffered, as the engine's reading does)."""
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
    if replaced != list(extents):
        print("bench_one_pass: the gate's scan of the large part was not the one replaced", file=sys.stderr)
        return 97  # (a code of none of xlbridge's: the benchmark stops, with the line above)
    return rc


def _scanned(book: Path) -> tuple:
    """What the gate's scan finds in the largest worksheet part of ``book``: (cells, rows, {part: extent})."""
    cells, rows, extents = gate(_largest_sheet(book))
    return cells, rows, {_largest_name(book): extents["part"]}


def _recalc(book: Path, out: Path, without_scan: bool) -> list:
    """The command line of ``xlbridge recalc`` of ``book`` (with the large part's scan replaced: ``without_scan``)."""
    first = [sys.executable, __file__, "--run-without-scan"] if without_scan else [sys.executable, "-m", "xlbridge"]
    return first + ["recalc", "--no-progress", str(book), "-o", str(out)]


def whole_runs(season: Path, rounds: int) -> None:
    """``rounds`` interleaved rounds of whole processes, for each goal: G1, the season's recalc as it is and without
    the large part's scan, and LibreOffice on the committee's sheet; G2, the same two of the shipped pairs template,
    cold, and openpyxl's load of it. Each recalc pair's outputs are checked to be the same bytes."""
    import bench_recalc

    d = season.parent
    bench_recalc.build_committee(d / "committee.xlsx", bench_recalc.travellers(ROWS[0]))
    profile = d / "lo-profile"
    bench_recalc.libreoffice(d / "committee.xlsx", d / "lo", profile)  # (creates the profile)
    lo = [bench_recalc.SOFFICE, f"-env:UserInstallation={profile.as_uri()}", "--headless", "--norestore",
          "--convert-to", "xlsx", "--outdir", str(d / "lo"), str(d / "committee.xlsx")]
    template = HERE.parent / "workbooks" / "pairs.xlsx"
    load = [sys.executable, "-c", f"import openpyxl; openpyxl.load_workbook({str(template)!r})"]
    goals = (("G1", season, "LibreOffice, the COUNTIFS sheet", lo), ("G2", template, "openpyxl's load", load))
    for goal, book, other, other_cmd in goals:
        env = dict(os.environ, XLBRIDGE_BENCH_SCAN=json.dumps(_scanned(book)))
        times: dict = {"as it is": [], "without the scan": [], other: []}
        for _ in range(rounds):
            times["as it is"].append(bench_recalc.run_process(_recalc(book, d / "a.xlsx", False))[0])
            times["without the scan"].append(bench_recalc.run_process(_recalc(book, d / "b.xlsx", True), env=env)[0])
            times[other].append(bench_recalc.run_process(other_cmd)[0])
        assert filecmp.cmp(d / "a.xlsx", d / "b.xlsx", shallow=False), "the recalc without the scan wrote other bytes"
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"{goal}, {book.name}: whole processes, medians of {rounds} interleaved rounds"
              f"{'; LibreOffice / the recalc' if goal == 'G1' else '; the recalc / openpyxl'}")
        for k, v in med.items():
            runs = ", ".join(f"{x:.2f}" for x in times[k])
            ratio = "" if k == other else (f"  {med[other] / v:.2f}x" if goal == "G1" else f"  {v / med[other]:.2f}")
            print(f"  {k:<32} {v:6.2f} s (runs {runs}){ratio}")


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
    assert b_gate == g and b_read == r, "the one pass found something else than the two"
    print(f"{args.rows:,}-row season: its largest worksheet part, {len(data) / 1e6:.1f} MB, {r[-1]:,} cells")
    times: dict = {f: [] for f in (bare, empty, gate, read, both)}
    for _ in range(args.repeat):
        for f in times:
            began = time.process_time()
            f(data)
            times[f].append(time.process_time() - began)
    med = {f.__name__: statistics.median(ts) for f, ts in times.items()}
    print("  pass (one process, processor time, median)                      s")
    print(f"  expat alone, no handler                                      {med['bare']:6.2f}")
    print(f"  expat alone, empty handlers                                  {med['empty']:6.2f}")
    print(f"  the gate's scan                                              {med['gate']:6.2f}")
    print(f"  the engine's reading                                         {med['read']:6.2f}")
    print(f"  the two, one after the other                                 {med['gate'] + med['read']:6.2f}")
    print(f"  both in one pass                                             {med['both']:6.2f}")
    print(f"  saved by the one pass: {med['gate'] + med['read'] - med['both']:.2f} s; "
          f"the gate's whole scan (the most any merge could save): {med['gate']:.2f} s")
    if args.whole:
        whole_runs(book, args.whole)


if __name__ == "__main__":
    main()
