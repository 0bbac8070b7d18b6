"""xlbridge: exact contract-bridge scoring for spreadsheets.

The pure core: importing this package loads the standard library and numpy only (never
xlwings, openpyxl or matplotlib). The Excel layer is :mod:`xlbridge.udfs`; the headless batch
layer is :mod:`xlbridge.recalc`, :mod:`xlbridge.templates` and the ``xlbridge`` command.

Every public name of the core modules is available here. Two functions share their module's
name and stay reachable through it, so that ``xlbridge.imps`` and ``xlbridge.vp`` are always the
modules: ``xlbridge.imps.imps(450)`` and ``xlbridge.vp.vp(5, 7)``.

>>> import xlbridge
>>> xlbridge.bridge_score("4S", "N", 10, 1)
420
>>> xlbridge.imps.imps(450), xlbridge.vp.vp(5, 7)
(10, Fraction(609, 50))
"""

import sys as _sys
from importlib import import_module as _import_module

__version__ = "0.1.0"

#: The modules whose public names are exported here, one per concept (each with an explicit
#: ``__all__``), keyed by the short name they had before the core/ layout (kept as an alias:
#: ``import xlbridge.matchpoints`` still works).
CORE_MODULES = {
    "errors": "core.errors",
    "contract": "core.contract",
    "entries": "core.entries",
    "rounding": "core.rounding",
    "matchpoints": "core.pairs.matchpoints",
    "weighted": "core.pairs.weighted",
    "imps": "core.teams.imps",
    "vp": "core.teams.vp",
    "teams": "core.teams.teams",
    "instant": "core.instant",
    "lehman": "core.ratings.lehman",
    "lehman_sim": "analysis.lehman_sim",
    "forml": "core.handicap.forml",
    "fairness": "core.handicap.fairness",
}

__all__ = []
for _name, _path in CORE_MODULES.items():
    _module = _import_module(f".{_path}", __name__)
    globals()[_name] = _module
    _sys.modules.setdefault(f"{__name__}.{_name}", _module)
    for _public in _module.__all__:
        if _public in CORE_MODULES:  # a function named like its module: reach it through the module
            continue
        if _public in globals() and globals()[_public] is not getattr(_module, _public):
            raise ImportError(f"xlbridge: {_public!r} is exported by two core modules")
        globals()[_public] = getattr(_module, _public)
        __all__.append(_public)
del _name, _path, _module, _public
