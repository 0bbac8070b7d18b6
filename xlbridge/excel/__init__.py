"""The Excel layer: conversions between cells and the core (cells), ...

>>> from xlbridge.excel import to_cell
>>> to_cell(None) is None
True
"""

from .cells import *  # noqa: F401,F403
from .cells import __all__  # noqa: F401
