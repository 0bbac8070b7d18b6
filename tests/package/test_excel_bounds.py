"""Excel's row and column bounds (and a cell's longest text) are declared once, in xlbridge.core.sheet.

A number literal 1,048,576, 16,384 or 32,767 anywhere else in the package's code (docstrings and comments
aside: they say the bound in words) would be a second declaration, which a change must then find.
"""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

from xlbridge.batch.cells import MAX_COL, MAX_ROW, column_letters, parse_ref
from xlbridge.batch.guard import limits
from xlbridge.core import sheet

PKG = Path(__file__).resolve().parents[2] / "xlbridge"
BOUNDS = {1_048_576, 16_384, 32_767}


def test_no_second_declaration_of_excel_bounds():
    found = []
    for path in sorted(PKG.rglob("*.py")):
        if path == PKG / "core" / "sheet.py":
            continue
        for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
            if tok.type == tokenize.NUMBER and not tok.string.lower().startswith(("0x", "0o", "0b")):
                try:
                    value = int(tok.string.replace("_", ""))
                except ValueError:
                    continue
                if value in BOUNDS:
                    found.append(f"{path.relative_to(PKG.parent)}:{tok.start[0]}: {tok.string}")
            elif tok.type == tokenize.STRING and any(str(b) in tok.string for b in BOUNDS) and "{" not in tok.string \
                    and not tok.string.startswith(('"""', "'''", 'r"""', 'f"""')):
                found.append(f"{path.relative_to(PKG.parent)}:{tok.start[0]}: {tok.string[:60]}")
    assert found == []


def test_every_layer_reads_the_same_bounds():
    # Microsoft, "Excel specifications and limits": 1,048,576 rows by 16,384 columns (A to XFD)
    assert (sheet.EXCEL_MAX_ROWS, sheet.EXCEL_MAX_COLUMNS, sheet.EXCEL_MAX_TEXT) == (1_048_576, 16_384, 32_767)
    assert (MAX_ROW, MAX_COL) == (sheet.EXCEL_MAX_ROWS, sheet.EXCEL_MAX_COLUMNS)
    assert (limits.EXCEL_MAX_ROWS, limits.EXCEL_MAX_COLUMNS) == (MAX_ROW, MAX_COL)
    assert limits.SafetyLimits().max_rows == sheet.EXCEL_MAX_ROWS
    assert column_letters(sheet.EXCEL_MAX_COLUMNS) == sheet.EXCEL_LAST_COLUMN
    assert parse_ref(f"{sheet.EXCEL_LAST_COLUMN}{sheet.EXCEL_MAX_ROWS}") == (MAX_ROW, MAX_COL)
