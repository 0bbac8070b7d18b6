"""The adapters behind the Excel functions: read the cells, call the core, shape the result.

One function per Excel function, named after it in lower case (``matchpoints`` for
``MATCHPOINTS``), in one module per group mirroring the core (:mod:`.pairs`, :mod:`.teams`,
:mod:`.instant`, :mod:`.ratings`, :mod:`.handicaps`); each is declared once in
:mod:`xlbridge.excel.functions` (name, arguments, help). The declaration converts the scalar
options first (a blank cell means the default), so an adapter gets ``expected`` as an int or
None, ``scale`` as text, ``average`` as a bool; ranges and element-wise operands arrive as Excel
sent them and are read here, each column once (:mod:`xlbridge.excel.cells`,
:mod:`xlbridge.excel.travellers`). No scoring rule lives here.

Results: a scalar or a 2-D list that spills; a per-cell problem is an
:class:`~xlbridge.excel.cells.ExcelError` in that cell; a call that cannot run raises (the runtime
turns it into one short message).

>>> from xlbridge.excel.adapters import teams
>>> teams.imps([[20.0], [-430.0], [4000.0]])
[[1], [-10], [24]]
"""
