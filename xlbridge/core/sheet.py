"""Excel's sheet: its row and column bounds and the longest text a cell holds, declared once.

Source: Microsoft, "Excel specifications and limits" (Excel 2007 and later, the .xlsx format):
1,048,576 rows by 16,384 columns (A to XFD), 32,767 characters in one cell. The templates (a range
reaching the sheet's last row), the batch layer (cell references, the streamed sheet reader, the upload
checks) and the limits of a run all read them here, below every layer.

>>> EXCEL_MAX_ROWS, EXCEL_MAX_COLUMNS, EXCEL_LAST_COLUMN, EXCEL_MAX_TEXT
(1048576, 16384, 'XFD', 32767)
>>> EXCEL_MAX_ROWS == 2 ** 20 and EXCEL_MAX_COLUMNS == 2 ** 14
True
"""

from __future__ import annotations

__all__ = ["EXCEL_MAX_ROWS", "EXCEL_MAX_COLUMNS", "EXCEL_LAST_COLUMN", "EXCEL_MAX_TEXT"]

#: rows of a sheet: 1 to 1,048,576
EXCEL_MAX_ROWS = 1_048_576
#: columns of a sheet: 1 (A) to 16,384 (XFD)
EXCEL_MAX_COLUMNS = 16_384
#: the letters of the last column
EXCEL_LAST_COLUMN = "XFD"
#: characters in one cell
EXCEL_MAX_TEXT = 32_767
