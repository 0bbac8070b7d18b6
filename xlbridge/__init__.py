"""xlbridge: exact contract-bridge scoring for spreadsheets.

The pure core: importing this package loads the standard library and numpy only (never
xlwings or openpyxl). The Excel layer is :mod:`xlbridge.udfs`; the headless batch layer is
:mod:`xlbridge.recalc` and the ``xlbridge`` command.

>>> import xlbridge
>>> xlbridge.bridge_score("4S", "N", 10, 1)
420
"""

from .errors import *  # noqa: F401,F403
from .contract import *  # noqa: F401,F403
from .entries import *  # noqa: F401,F403
from .rounding import *  # noqa: F401,F403
from .matchpoints import *  # noqa: F401,F403
from .weighted import *  # noqa: F401,F403
from .imps import *  # noqa: F401,F403
from .vp import *  # noqa: F401,F403
from .teams import *  # noqa: F401,F403
from .instant import *  # noqa: F401,F403
from .lehman import *  # noqa: F401,F403
from .forml import *  # noqa: F401,F403
from .fairness import *  # noqa: F401,F403
from . import (  # noqa: F401
    errors, contract, entries, rounding, matchpoints, weighted, imps, vp, teams, instant, lehman, forml, fairness,
)

__version__ = "0.1.0"

__all__ = [
    name
    for mod in (errors, contract, entries, rounding, matchpoints, weighted, imps, vp, teams, instant, lehman, forml,
                fairness)
    for name in mod.__all__
]
