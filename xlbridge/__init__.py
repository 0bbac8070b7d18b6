"""xlbridge: exact contract-bridge scoring for spreadsheets.

Importing this package loads the pure core (:mod:`xlbridge.core`, standard library and numpy
only; never xlwings, openpyxl, formulas, matplotlib or pandas) and the analyses built on it
(:mod:`xlbridge.analysis`, matplotlib imported inside its plotting functions only). The Excel
layer is :mod:`xlbridge.udfs` (built by :mod:`xlbridge.excel`); the headless batch layer is
:mod:`xlbridge.batch.recalc`, :mod:`xlbridge.templates` and the ``xlbridge`` command. See
docs/architecture.md for the layers.

Every public name of the core and analysis modules is available here. Two functions share
their old module's name and stay reachable through it, so that ``xlbridge.imps`` and
``xlbridge.vp`` are always modules: ``xlbridge.imps.imps(450)`` and ``xlbridge.vp.vp(5, 7)``.

>>> import xlbridge
>>> xlbridge.bridge_score("4S", "N", 10, 1)
420
>>> xlbridge.imps.imps(450), xlbridge.vp.vp(5, 7)
(10, Fraction(609, 50))
"""

import sys as _sys
import types as _types
from importlib import import_module as _import_module

__version__ = "0.1.0"

#: The modules whose public names (each module's explicit ``__all__``) are exported here.
MODULES = (
    "core.errors", "core.numbers", "core.contract", "core.entries", "core.boards", "core.rounding",
    "core.ranking", "core.pairs.neuberg", "core.pairs.matchpoints", "core.pairs.weighted",
    "core.pairs.standings", "core.teams.imps", "core.teams.butler", "core.teams.vp", "core.teams.teams",
    "core.instant.chart", "core.instant.ranking", "core.instant.pbn", "core.ratings.lehman", "core.ratings.ledger",
    "core.handicap.forml", "core.handicap.fairness", "analysis.lehman_sim", "analysis.plots",
)

#: The module paths of the flat layout that came before ``core/`` (``import xlbridge.matchpoints``,
#: ``xlbridge.imps.imps(450)``), kept working: each holds the public names of the modules that
#: now hold what it had. One module: the alias is that module itself.
LEGACY_MODULES = {
    "errors": ("core.errors",),
    "contract": ("core.contract",),
    "entries": ("core.entries",),
    "rounding": ("core.rounding", "core.ranking"),
    "matchpoints": ("core.pairs.matchpoints", "core.pairs.neuberg", "core.pairs.standings"),
    "weighted": ("core.pairs.weighted",),
    "imps": ("core.teams.imps", "core.teams.butler"),
    "vp": ("core.teams.vp",),
    "teams": ("core.teams.teams",),
    "instant": ("core.instant.chart", "core.instant.ranking", "core.instant.pbn"),
    "lehman": ("core.ratings.lehman", "core.ratings.ledger"),
    "lehman_sim": ("analysis.lehman_sim", "analysis.plots"),
    "forml": ("core.handicap.forml",),
    "fairness": ("core.handicap.fairness", "analysis.plots"),
}


def _legacy_module(name: str, paths: tuple[str, ...]) -> _types.ModuleType:
    mods = [_sys.modules[f"{__name__}.{p}"] for p in paths]
    if len(mods) == 1:
        return mods[0]
    legacy = _types.ModuleType(f"{__name__}.{name}", f"Former module xlbridge.{name}: names from "
                               + ", ".join(m.__name__ for m in mods) + ".")
    names = []
    for m in mods:
        for public in m.__all__:
            setattr(legacy, public, getattr(m, public))
            names.append(public)
    setattr(legacy, "__all__", names)
    return legacy


__all__ = []
for _path in MODULES:
    _module = _import_module(f".{_path}", __name__)
    for _public in _module.__all__:
        if _public in LEGACY_MODULES:  # a function named like its old module: reach it through the module
            continue
        if _public in globals():
            raise ImportError(f"xlbridge: {_public!r} is exported by two modules")
        globals()[_public] = getattr(_module, _public)
        __all__.append(_public)
for _name, _paths in LEGACY_MODULES.items():
    globals()[_name] = _sys.modules.setdefault(f"{__name__}.{_name}", _legacy_module(_name, _paths))
del _path, _module, _public, _name, _paths
