"""The batch layer: recalculating workbooks headlessly, safely, for files uploaded by anyone.

:mod:`~xlbridge.batch.recalc` is ``xlbridge recalc`` (:mod:`~xlbridge.batch.many`: several books at
once); it runs four stages, each a package saying what comes in and what goes out:

- :mod:`~xlbridge.batch.guard`: may this upload be read, and within what bounds (the private copy,
  the package checks, limits, one-line messages, atomic files, links never followed);
- :mod:`~xlbridge.batch.read`: the checked workbook's sheets, streamed (layouts, formulas, constants);
- :mod:`~xlbridge.batch.evaluate`: every formula computed by the ``formulas`` engine in a sandboxed
  process, the values spliced into the sheet parts there;
- :mod:`~xlbridge.batch.write`: the values into a copy of the file without re-saving it.

Below them: :mod:`~xlbridge.batch.cells` (cell references, error values, sheet layouts),
:mod:`~xlbridge.batch.formulas_seam` (the one module reaching into ``formulas``),
:mod:`~xlbridge.batch.process`, :mod:`~xlbridge.batch.cores` and :mod:`~xlbridge.batch.frames` (the
engine's long runs of calls kept from mapping memory on each call). It imports the core and the Excel
layer (the functions' registry, never xlwings); the command line (:mod:`xlbridge.cli`) imports it.
Nothing here is loaded by ``import xlbridge``.

>>> from xlbridge.batch.cells import cell_ref
>>> cell_ref(2, 3)
'C2'
"""

__all__: list[str] = []
