"""Shared by the template recalc tests: recalculate a workbook copy and check the input is untouched."""
from __future__ import annotations

import hashlib
from pathlib import Path

import openpyxl


def recalc_copy(src: Path, tmp: Path):
    """Run ``xlbridge recalc`` on ``src`` into ``tmp``; assert the input is byte-identical and no cell errs.

    Returns (output path, the output opened with ``data_only=True``).
    """
    from xlbridge.batch import recalc

    before = hashlib.sha256(src.read_bytes()).hexdigest()
    out = tmp / (src.stem + "-recalculated.xlsx")
    report = recalc.recalc_workbook(src, out, isolate=False)
    assert hashlib.sha256(src.read_bytes()).hexdigest() == before  # input untouched
    assert report.errors == (), [str(e) for e in report.errors]
    return out, openpyxl.load_workbook(out, data_only=True)
