"""The formulas engine's function registry, each function module imported when the book needs it.

``formulas.get_functions()`` (formulas 1.3) imports all eleven of its function modules at the first
formula it parses, and its statistics module imports ``scipy.stats``, ``scipy.linalg`` and
``scipy.interpolate`` at module level: about 0.8 s of a recalculation that needs none of them
(issue 14). :func:`install` replaces that function by one returning a :class:`LazyFunctions`
registry, which behaves as the stock one (a ``defaultdict`` answering ``not_implemented`` for an
unknown name) but imports a module only when a name is asked for that the modules loaded so far do
not hold (in formulas' own module order), and imports the statistics module with SciPy deferred:
its three SciPy names become stand-ins that import SciPy the first time a function calls them
(every use of SciPy in that module is inside a function body). ``COUNT`` or ``RANK`` therefore
never load SciPy; ``NORM.S.INV`` does, when it runs.

The values are those of the stock registry: a name maps to the same function (a later module
overrides an earlier one, the package's own table overrides both, as ``get_functions`` does), and
names set on the registry (the xlbridge functions) are never overridden by a module loaded later.

>>> functions = LazyFunctions()
>>> functions.loaded
()
>>> "IFERROR" in functions, functions.loaded
(True, ('.info', '.logic'))
>>> functions["NO.SUCH.FUNCTION"].__name__, len(functions.loaded)
('not_implemented', 11)
"""

from __future__ import annotations

import collections
import importlib
import importlib.util
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["LazyFunctions", "install", "SCIPY_NAMES"]

#: The names formulas' statistics module imports from SciPy: ``from scipy import stats, linalg`` and
#: ``from scipy.interpolate import interp1d``.
SCIPY_NAMES = (("scipy", "stats"), ("scipy", "linalg"), ("scipy.interpolate", "interp1d"))
_STAT = ".stat"


class _DeferredModule:
    """Stands for ``scipy.stats`` (or ``scipy.linalg``): the real module is imported at its first attribute."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<deferred module {self._name}>"


def _deferred_function(module: str, name: str) -> Callable[..., Any]:
    """Stands for ``scipy.interpolate.interp1d``: imported at the first call."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


def _import_stat_without_scipy(package: str) -> types.ModuleType:
    """Import formulas' statistics module with its SciPy names deferred (SciPy itself not imported)."""
    full = importlib.util.resolve_name(_STAT, package)
    if full in sys.modules or "scipy" in sys.modules:  # already there, or SciPy loaded anyway: nothing to save
        return importlib.import_module(full)
    stubs = {"scipy": types.ModuleType("scipy"), "scipy.interpolate": types.ModuleType("scipy.interpolate")}
    for module, name in SCIPY_NAMES:
        real = f"{module}.{name}"
        setattr(stubs[module], name, _DeferredModule(real) if module == "scipy" else _deferred_function(module, name))
    sys.modules.update(stubs)
    try:
        return importlib.import_module(full)
    finally:
        for name, stub in stubs.items():
            if sys.modules.get(name) is stub:
                del sys.modules[name]


class LazyFunctions(collections.defaultdict):  # type: ignore[type-arg]
    """formulas' function registry ({EXCEL NAME: function}), loading function modules on demand.

    ``package`` is formulas' ``formulas.functions`` package (its ``SUBMODULES``, ``FUNCTIONS`` and
    ``not_implemented``); ``loaded`` lists the modules imported so far, in order.
    """

    def __init__(self, package: types.ModuleType | None = None):
        if package is None:
            import formulas.functions as package  # noqa: PLW0127
        self._package = package
        super().__init__(lambda: package.not_implemented)
        self._pending = list(package.SUBMODULES)
        self._origin: dict[str, int] = {}  # name -> index of the module it came from (-1: set explicitly)
        self.loaded: tuple[str, ...] = ()
        for name, fn in package.FUNCTIONS.items():  # the package's own table wins over every module
            super().__setitem__(name, fn)
            self._origin[name] = -1

    def _load_next(self) -> bool:
        if not self._pending:
            return False
        name = self._pending.pop(0)
        order = list(self._package.SUBMODULES).index(name)
        pkg = self._package.__name__
        module = _import_stat_without_scipy(pkg) if name == _STAT else importlib.import_module(name, pkg)
        for key, fn in module.FUNCTIONS.items():
            if self._origin.get(key, order - 1) < order and self._origin.get(key) != -1:
                super().__setitem__(key, fn)
                self._origin[key] = order
        self.loaded += (name,)
        return True

    def _find(self, key: object) -> bool:
        while not super().__contains__(key):
            if not self._load_next():
                return False
        return True

    def load_all(self) -> LazyFunctions:
        """Import every remaining module (what the stock ``get_functions`` does at once)."""
        while self._load_next():
            pass
        return self

    def __contains__(self, key: object) -> bool:
        return self._find(key)

    def __missing__(self, key: Any) -> Any:
        if self._find(key):
            return super().__getitem__(key)
        return super().__missing__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        return super().__getitem__(key) if self._find(key) else default

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        self._origin[key] = -1

    def __iter__(self) -> Iterator[Any]:
        return iter(self.load_all().keys())

    def __len__(self) -> int:
        return super().__len__() if not self._pending else len(self.load_all())


_REGISTRY: LazyFunctions | None = None


def install() -> LazyFunctions:
    """Make ``formulas.get_functions()`` return one :class:`LazyFunctions` registry (once per process).

    If the stock registry was built already (every module imported), it stays: there is nothing
    left to save. Returns the registry in use.
    """
    global _REGISTRY
    import formulas
    import formulas.functions as ff

    stock = ff.get_functions
    cache_info = getattr(stock, "cache_info", None)
    if _REGISTRY is None and cache_info is not None and cache_info().currsize:
        return stock()  # type: ignore[no-any-return]
    if _REGISTRY is None:
        _REGISTRY = LazyFunctions(ff)

    registry = _REGISTRY

    def get_functions() -> LazyFunctions:
        return registry

    ff.get_functions = get_functions
    if "get_functions" in vars(formulas):
        formulas.get_functions = get_functions
    return registry
