"""The pure core of xlbridge: every scoring rule once, exact, standard library and numpy only.

Nothing here imports xlwings, openpyxl, formulas, matplotlib or pandas, nor any other part of
xlbridge (the layering test, tests/package/test_layers.py, holds this).
"""
