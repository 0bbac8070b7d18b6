"""The five template workbooks (handicap, pairs, teams, instant, lehman), built from code.

The templates in ``workbooks/`` are generated here and nowhere else (``xlbridge templates``):
one module per workbook (:mod:`.handicap`, :mod:`.pairs`, :mod:`.teams`, :mod:`.instant`,
:mod:`.lehman`), the shared building blocks in :mod:`.styling` (input marking, array formulas,
the Instructions and ``xlwings.conf`` sheets) and building, writing and checking in :mod:`.build`.

Each template marks its inputs (yellow fill, a data validation with an input message, and a
legend on the sheet), computes with ONE legacy array formula per result column or table,
calling the xlbridge Excel functions (``xlbridge.udfs``), and has an ``Instructions`` sheet and
an ``xlwings.conf`` sheet (A1 ``UDF Modules``, B1 ``xlbridge.udfs``).

This package imports openpyxl; it is never imported by the core (``import xlbridge``).

>>> sorted(TEMPLATES)
['handicap.xlsx', 'instant.xlsx', 'lehman.xlsx', 'pairs.xlsx', 'teams.xlsx']
>>> seq_column(3)
'TRANSPOSE({1,2,3})'
"""

from __future__ import annotations

from .build import EXAMPLES, FILES, TEMPLATES, build_all, build_bytes, build_workbook, canonical_dump, check_all
from .styling import CALC_FILL, CREATOR, FIXED_TIME, HEADER_FILL, INPUT_FILL, seq_column, seq_row

__all__ = [
    "TEMPLATES",
    "FILES",
    "EXAMPLES",
    "FIXED_TIME",
    "CREATOR",
    "INPUT_FILL",
    "CALC_FILL",
    "HEADER_FILL",
    "build_workbook",
    "build_bytes",
    "build_all",
    "check_all",
    "canonical_dump",
    "seq_column",
    "seq_row",
]
