"""The batch layer: recalculating workbooks headlessly, safely, for files uploaded by anyone.

- :mod:`~xlbridge.batch.recalc`: ``xlbridge recalc`` (the engine in a sandboxed child process, the
  results spliced into a copy of the file);
- :mod:`~xlbridge.batch.guard.safety`: limits, streamed checks of the package, private temporary files,
  locks and atomic writes;
- :mod:`~xlbridge.batch.write.xlsxpatch`: reading and splicing the sheets' XML (cell references, cached
  values, links to other workbooks).

It imports the core and the Excel layer (the functions' registry, never xlwings); the command
line (:mod:`xlbridge.cli`) imports it. Nothing here is loaded by ``import xlbridge``.

>>> from xlbridge.batch.cells import cell_ref
>>> cell_ref(2, 3)
'C2'
"""

__all__: list[str] = []
