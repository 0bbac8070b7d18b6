"""Stage 2, read: the checked workbook's parts as the engine and the writer need them.

In: the private copy's zip. Out: per worksheet part, one streamed pass
(:func:`~xlbridge.batch.read.sheetxml.read_sheet`, in two halves on two cores when large:
:mod:`~xlbridge.batch.read.halves`) giving its :class:`~xlbridge.batch.cells.SheetLayout`, formulas
and constants; the book's other data without its cells (:mod:`~xlbridge.batch.read.bookdata`); the
sheets in order and the cached copies of linked books (:mod:`~xlbridge.batch.read.bookparts`); the
template contract's areas (:mod:`~xlbridge.batch.read.capacity`); cells that hold the same formula
(:mod:`~xlbridge.batch.read.aliases`).
"""
