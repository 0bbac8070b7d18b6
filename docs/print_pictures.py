"""Print every bundled template as a member would receive it and keep a picture of its main pages.

For each workbook: ``xlbridge recalc --values-only`` (the copy for mailing results), LibreOffice
headless prints it to PDF (the page setup, print areas and footers of the template), and
``pdftoppm`` renders the pages named below to docs/templates/NAME-SHEET.png. Pages are found by
their footer, which names the sheet. Run from the repository root:

    python docs/print_pictures.py

Needs LibreOffice (``soffice``) and poppler-utils (``pdftoppm``, ``pdftotext``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "templates"
#: workbook -> the sheets pictured (the pages a committee posts)
PAGES = {
    "pairs.xlsx": ["Ranking", "Travellers"],
    "teams.xlsx": ["Standings", "Matches", "Boards"],
    "handicap.xlsx": ["Handicaps", "Results"],
    "lehman.xlsx": ["Ledger", "Chart"],
    "instant.xlsx": ["Results", "Chart"],
}


def print_pdf(book: Path, work: Path, profile: Path | None = None, convert=None) -> Path:
    """The values-only copy of ``book`` printed to PDF by LibreOffice; returns the PDF's path.

    ``profile``: the LibreOffice user profile folder to use (default: a new one in ``work``; a profile
    already used starts faster). ``convert(book, folder, "pdf")``: instead of starting ``soffice --convert-to
    pdf``, a LibreOffice already running writes the same file (the tests' tests/office.py)."""
    values = work / (book.stem + "-values.xlsx")
    shutil.copy(book, work / book.name)
    subprocess.run([sys.executable, "-m", "xlbridge", "recalc", str(work / book.name), "--values-only", "-o",
                    str(values), "--no-progress"], check=True, capture_output=True)
    if convert is not None:
        convert(values, work, "pdf")
        return work / (values.stem + ".pdf")
    profile = work / "profile" if profile is None else profile
    subprocess.run(["soffice", "--headless", f"-env:UserInstallation={profile.as_uri()}", "--convert-to", "pdf",
                    "--outdir", str(work), str(values)], check=True, capture_output=True, timeout=300)
    return work / (values.stem + ".pdf")


def page_texts(pdf: Path) -> list[str]:
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True,
                          text=True).stdout
    return text.split("\f")[:-1] if text.endswith("\f") else text.split("\f")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, sheets in PAGES.items():
            pdf = print_pdf(ROOT / "workbooks" / "examples" / name, work)
            texts = page_texts(pdf)
            for sheet in sheets:
                page = next(i for i, t in enumerate(texts, start=1) if f" {sheet} " in t.splitlines()[-1]
                            or t.rstrip().splitlines()[-1].split()[1:2] == [sheet])
                stem = OUT / f"{Path(name).stem}-{sheet.lower()}"
                subprocess.run(["pdftoppm", "-r", "70", "-png", "-singlefile", "-f", str(page), "-l", str(page),
                                str(pdf), str(stem)], check=True)
                print(stem.with_suffix(".png").relative_to(ROOT))


if __name__ == "__main__":
    main()
