"""Instant matchpoints (seed 002): award charts, events ranked with them, charts as PBN.

- :mod:`.chart`: building a board's award chart from historical results (Pavlicek's method) and
  looking scores up in it;
- :mod:`.ranking`: the N-S and E-W fields of an event ranked on their awards;
- :mod:`.pbn`: a chart as a PBN 2.1 ``InstantScoreTable`` and back.

Their public names are available here (``from xlbridge.core.instant import instant_chart``).

>>> instant_chart([420, 400], [3, 1], "None").award(420)
63
"""

from .chart import *  # noqa: F401,F403
from .chart import __all__ as _chart_all
from .pbn import *  # noqa: F401,F403
from .pbn import __all__ as _pbn_all
from .ranking import *  # noqa: F401,F403
from .ranking import __all__ as _ranking_all

__all__ = [*_chart_all, *_ranking_all, *_pbn_all]
