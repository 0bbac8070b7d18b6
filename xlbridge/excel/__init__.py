"""The Excel layer: xlbridge's worksheet functions, declared once and generated.

- :mod:`~xlbridge.excel.cells`: Excel values <-> Python (a column read once with numpy; exact
  results written back per column); :class:`ExcelError` and :class:`CallError`;
- :mod:`~xlbridge.excel.travellers`: score columns of traveller sheets, checked per cell;
- :mod:`~xlbridge.excel.adapters`: one adapter per function (read cells, call the core, shape);
- :mod:`~xlbridge.excel.functions`: the declaration TABLE (name, adapter, core functions,
  arguments, help);
- :mod:`~xlbridge.excel.runtime`: xlwings glue, making :mod:`xlbridge.udfs` from the TABLE;
- :mod:`~xlbridge.excel.vbastub`, :mod:`~xlbridge.excel.generated`: the VBA stub and
  docs/functions.md, generated (``python -m xlbridge.excel``).

It imports the core and, lazily, xlwings; nothing imports it but :mod:`xlbridge.udfs` (and the
batch engine through ``xlbridge.udfs.EXCEL_FUNCTIONS``). The names of :mod:`~xlbridge.excel.cells`
are available here (``xlbridge.excel.ExcelError``).

>>> from xlbridge.excel import to_cell, ExcelError
>>> to_cell(None) is None, ExcelError("#N/A") == "#N/A"
(True, True)
"""

from .cells import *  # noqa: F401,F403
from .cells import __all__  # noqa: F401
