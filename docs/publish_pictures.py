"""Take the pictures of docs/publish.md: the results site of the shipped files, on a phone and on a desktop.

The sites are made by the command line from the shipped files, as a club would make them: the sample session
(``workbooks/examples/club-session.pbn``) imported into its workbook, scored by ``xlbridge recalc`` and
published; the teams example with its event details typed in (Matches K13:K16); and the season: both events,
the Lehman ledger and the handicap league (recalculated, their details typed in).  Each page named below is
opened in Chromium (headless, through Playwright: the system's ``/usr/bin/chromium``) at 390 x 844 (a phone)
and at 1280 x 800 (a desktop) and kept as ``docs/publish-NAME-390.png`` and ``-1280.png`` (the whole page, at
most 1,400 px high).  Run from the repository root:

    python docs/publish_pictures.py

Needs chromium and the test extra (playwright).
"""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "workbooks" / "examples"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: picture name -> (site folder, page)
PAGES = {
    "index": ("site", "index.html"),
    "board-1": ("site", "board-1.html"),
    "pair-NS-2": ("site", "pair-NS-2.html"),
    "teams-index": ("tsite", "index.html"),
    "match-1-2": ("tsite", "match-1-2.html"),
    "season": ("season", "index.html"),
    "ratings": ("season", "ratings.html"),
    "league": ("season", "league.html"),
}
WINDOWS = {390: 844, 1280: 800}


def _xlbridge(*args: str, cwd: Path) -> None:
    """``python -m xlbridge ARGS`` of this checkout, in ``cwd``; any exit but 0 stops the script, saying why."""
    import os

    proc = subprocess.run([sys.executable, "-m", "xlbridge", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode:
        sys.exit(f"xlbridge {' '.join(args)}: exit {proc.returncode}\n{proc.stdout}{proc.stderr}")


def _typed(src: Path, dest: Path, sheet: str, first: str, values: list[object]) -> None:
    """A copy of ``src`` with ``values`` typed one under the other from ``first`` on ``sheet`` (openpyxl)."""
    import openpyxl
    from openpyxl.utils.cell import coordinate_from_string, column_index_from_string

    wb = openpyxl.load_workbook(src)
    col, row = coordinate_from_string(first)
    for k, v in enumerate(values):
        wb[sheet].cell(row=row + k, column=column_index_from_string(col), value=v)
    wb.save(dest)


def build(work: Path) -> None:
    """The three sites in ``work``: ``site`` (the session), ``tsite`` (the teams example), ``season``."""
    _xlbridge("import", str(EXAMPLES / "club-session.pbn"), "-o", "session.xlsx", cwd=work)
    _xlbridge("recalc", "session.xlsx", "--in-place", "--no-progress", cwd=work)
    _typed(EXAMPLES / "teams.xlsx", work / "teams-event.xlsx", "Matches", "K13",
           ["Autumn Swiss Teams", dt.datetime(2026, 11, 26), "Riverside Bridge Club", "Dee Scorer"])
    _typed(EXAMPLES / "lehman.xlsx", work / "lehman.xlsx", "Ledger", "V16",
           ["Club ladder", dt.datetime(2026, 11, 30), "Riverside Bridge Club", "Dee Scorer"])
    _typed(EXAMPLES / "handicap.xlsx", work / "handicap.xlsx", "Handicaps", "J27",
           ["Rugby and District League", dt.datetime(2026, 11, 30), "Riverside Bridge Club", "Al Keeper"])
    for book in ("teams-event.xlsx", "lehman.xlsx", "handicap.xlsx"):  # (openpyxl saves no cached values)
        _xlbridge("recalc", book, "--in-place", "--no-progress", cwd=work)
    _xlbridge("publish", "session.xlsx", "-o", "site", cwd=work)
    _xlbridge("publish", "teams-event.xlsx", "-o", "tsite", cwd=work)
    _xlbridge("publish", "session.xlsx", "teams-event.xlsx", "lehman.xlsx", "handicap.xlsx", "-o", "season", cwd=work)


def main() -> None:
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp())
    try:
        build(work)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            for width, height in WINDOWS.items():
                page = browser.new_page(viewport={"width": width, "height": height})
                for name, (site, path) in PAGES.items():
                    page.goto((work / site / path).resolve().as_uri())
                    full = page.evaluate("document.documentElement.scrollHeight")
                    out = ROOT / "docs" / f"publish-{name}-{width}.png"
                    page.screenshot(path=str(out), full_page=True,
                                    clip={"x": 0, "y": 0, "width": width, "height": min(full, 1400)})
                    print(out.relative_to(ROOT))
                page.close()
            browser.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
