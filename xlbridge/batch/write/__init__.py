"""Stage 4, write: values into a copy of the file without re-saving it.

In: a worksheet part, its :class:`~xlbridge.batch.cells.SheetLayout` and {(row, column): value}.
Out: the part with only the changed ``<c>`` elements rewritten
(:mod:`~xlbridge.batch.write.xlsxpatch`), the workbook's calculation properties and print areas
(:mod:`~xlbridge.batch.write.calcprops`), and the zip copied member by member with those parts
substituted (:func:`~xlbridge.batch.write.xlsxpatch.copy_zip`). Before the engine reads the book, the rows a
member inserted into a table get the formulas of their result cells (:mod:`~xlbridge.batch.write.inserted`).
The file lands atomically through
:func:`~xlbridge.batch.guard.files.write_atomic`.
"""
