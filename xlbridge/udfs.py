"""The Excel functions of xlbridge: the module named in the workbook's ``UDF Modules`` setting.

A thin facade: every function is declared once in :mod:`xlbridge.excel.functions` (the TABLE)
and generated here by :mod:`xlbridge.excel.runtime` with the catalogue's signature (see
``docs/functions.md`` and ``../shared/UDFS.md``), decorated with the active xlwings runtime
(category ``xlbridge``). Without xlwings, or where its decorators cannot load, they are plain
Python functions.

``EXCEL_FUNCTIONS`` maps every Excel name to a plain callable (the batch engine's registry,
read by :mod:`xlbridge.batch.recalc`): per-cell errors are :class:`xlbridge.excel.cells.ExcelError`
strings such as ``"#N/A"`` and whole-call messages :class:`xlbridge.excel.cells.CallError`
strings. Under xlwings' Office.js runtime the error strings become real Excel errors; under
classic xlwings on Windows (COM) they are sent as ``VT_ERROR`` variants.

>>> EXCEL_FUNCTIONS["BRIDGE_SCORE"]("4S", "N", 10, 1)
420
>>> EXCEL_FUNCTIONS["NEUBERG"](14, 16, 8)
29
>>> EXCEL_FUNCTIONS["BRIDGE_SCORE"]([["4S"], ["3NTX"], [None], ["9Z"]], "N", 10, "None")
[[420], [650], [None], [ExcelError('#VALUE!')]]
"""

from __future__ import annotations

from .excel.functions import CATEGORY, NAMES
from .excel.runtime import make_udfs, plain_functions, runtime_of, xlwings_decorators

#: xlwings (or no-op stand-ins): the decorators the functions below carry.
xw = xlwings_decorators()
#: "com" (classic xlwings on Windows), "officejs" (xlwings Lite / Server) or "python" (no-op decorators).
RUNTIME = runtime_of(xw)
#: {EXCEL NAME: plain-Python callable} for the batch engine; results as documented above.
EXCEL_FUNCTIONS = plain_functions(__name__)

globals().update(make_udfs(xw, module=__name__, category=CATEGORY))

__all__ = ["EXCEL_FUNCTIONS", "RUNTIME", "CATEGORY", *NAMES]
