"""The formulas engine's function registry, each function module imported when the book needs it.

``formulas.get_functions()`` (formulas 1.3) imports all eleven of its function modules at the first
formula it parses, and its statistics module imports ``scipy.stats``, ``scipy.linalg`` and
``scipy.interpolate`` at module level: about 0.8 s of a recalculation that needs none of them
(issue 14). :func:`install` replaces that function by one returning a :class:`LazyFunctions`
registry, which behaves as the stock one (a ``defaultdict`` answering ``not_implemented`` for an
unknown name) but imports a module only when a name it defines is asked for (:data:`MODULE_NAMES`;
a name it does not list makes the remaining modules load in formulas' own order until one has it),
and imports the statistics module with SciPy deferred
(:func:`xlbridge.batch.formulas_seam.import_function_module`):
its three SciPy names become stand-ins that import SciPy the first time a function calls them
(every use of SciPy in that module is inside a function body). ``COUNT`` or ``RANK`` therefore
never load SciPy; ``NORM.S.INV`` does, when it runs.

The values are those of the stock registry: a name maps to the same function (a later module
overrides an earlier one, the package's own table overrides both, as ``get_functions`` does), and
names set on the registry (the xlbridge functions) are never overridden by a module loaded later.

>>> functions = LazyFunctions()
>>> functions.loaded
()
>>> "IFERROR" in functions, "INDEX" in functions, functions.loaded
(True, True, ('.logic', '.look'))
>>> functions["NO.SUCH.FUNCTION"].__name__, len(functions.loaded)
('not_implemented', 11)
"""

from __future__ import annotations

import collections
import itertools
import operator
import types
from collections.abc import Callable, Iterator
from typing import Any

from ..formulas_seam import (SCIPY_NAMES, blank_as_zero, identical, column_namer, correct_operators, engine_names,
                             function_package, import_function_module, text_of, use_registry)

__all__ = ["CORRECTIONS", "REASON_SINKS", "LazyFunctions", "function_names", "install", "index_of_installed", "MODULE_NAMES",
           "SCIPY_NAMES"]


#: Which of formulas' function modules defines each name (formulas 1.3.4; regenerate with
#: :func:`index_of_installed` and ``tests/batch/test_registry.py`` when it changes). A name missing
#: here is still found: the modules not yet loaded are then imported in order until one has it.
MODULE_NAMES: dict[str, str] = {
    ".info": (
        "ERROR.TYPE ISBLANK ISERR ISERROR ISEVEN ISFORMULA ISLOGICAL ISNA ISNONTEXT ISNUMBER ISODD ISREF "
        "ISTEXT N NA TYPE _XLFN.ISFORMULA "
    ),
    ".logic": (
        "AND BYCOL BYROW FALSE IF IFERROR IFNA IFS MAKEARRAY MAP NOT OR REDUCE SCAN SWITCH TRUE XOR "
        "_XLFN.BYCOL _XLFN.BYROW _XLFN.IFNA _XLFN.IFS _XLFN.MAKEARRAY _XLFN.MAP _XLFN.REDUCE _XLFN.SCAN "
        "_XLFN.SWITCH _XLFN.XOR "
    ),
    ".math": (
        "ABS ACOS ACOSH ACOT ACOTH ARABIC ASIN ASINH ATAN ATAN2 ATANH CEILING CEILING.MATH CEILING.PRECISE "
        "COS COSH COT COTH CSC CSCH DECIMAL DEGREES EVEN EXP FACT FACTDOUBLE FLOOR FLOOR.MATH FLOOR.PRECISE "
        "GCD INT ISO.CEILING LCM LN LOG LOG10 MDETERM MINVERSE MMULT MOD MROUND MULTINOMIAL MUNIT ODD "
        "PERCENTOF PI POWER PRODUCT RADIANS RAND RANDBETWEEN ROMAN ROUND ROUNDDOWN ROUNDUP SEC SECH SIGN SIN "
        "SINH SQRT SQRTPI SUM SUMIF SUMIFS SUMPRODUCT SUMSQ SUMX2MY2 SUMX2PY2 SUMXMY2 TAN TANH TRUNC "
        "_XLFN.ACOT _XLFN.ACOTH _XLFN.ARABIC _XLFN.CEILING.MATH _XLFN.CEILING.PRECISE _XLFN.COT _XLFN.COTH "
        "_XLFN.CSC _XLFN.CSCH _XLFN.DECIMAL _XLFN.FLOOR.MATH _XLFN.FLOOR.PRECISE _XLFN.MUNIT _XLFN.PERCENTOF "
        "_XLFN.SEC _XLFN.SECH "
    ),
    ".stat": (
        "AVEDEV AVERAGE AVERAGEA AVERAGEIF AVERAGEIFS BETA.DIST BETA.INV BINOM.DIST BINOM.DIST.RANGE "
        "BINOM.INV CHISQ.DIST CHISQ.DIST.RT CHISQ.INV CHISQ.INV.RT CHISQ.TEST CONFIDENCE.NORM CONFIDENCE.T "
        "CORREL COUNT COUNTA COUNTBLANK COUNTIF COUNTIFS COVARIANCE.P COVARIANCE.S DEVSQ EXPON.DIST F.DIST "
        "F.DIST.RT F.INV F.INV.RT F.TEST FISHER FISHERINV FORECAST FORECAST.ETS FORECAST.ETS.CONFINT "
        "FORECAST.ETS.SEASONALITY FORECAST.ETS.STAT FORECAST.LINEAR FREQUENCY GAMMA GAMMA.DIST GAMMA.INV "
        "GAMMALN GAMMALN.PRECISE GAUSS GEOMEAN GROWTH HARMEAN HYPGEOM.DIST INTERCEPT KURT LARGE LINEST LOGEST "
        "LOGNORM.DIST LOGNORM.INV MAX MAXA MAXIFS MEDIAN MIN MINA MINIFS MODE.MULT MODE.SNGL NEGBINOM.DIST "
        "NORM.DIST NORM.INV NORM.S.DIST NORM.S.INV PEARSON PERCENTILE.EXC PERCENTILE.INC PERCENTRANK.EXC "
        "PERCENTRANK.INC PERMUT PERMUTATIONA PHI POISSON.DIST PROB QUARTILE.EXC QUARTILE.INC RANK.AVG RANK.EQ "
        "RSQ SKEW SKEW.P SLOPE SMALL STANDARDIZE STDEV.P STDEV.S STDEVA STDEVPA STEYX T.DIST T.DIST.2T "
        "T.DIST.RT T.INV T.INV.2T T.TEST TREND TRIMMEAN VAR.P VAR.S VARA VARPA WEIBULL.DIST Z.TEST "
        "_XLFN.BETA.DIST _XLFN.BETA.INV _XLFN.BINOM.DIST _XLFN.BINOM.DIST.RANGE _XLFN.BINOM.INV "
        "_XLFN.CHISQ.DIST _XLFN.CHISQ.DIST.RT _XLFN.CHISQ.INV _XLFN.CHISQ.INV.RT _XLFN.CHISQ.TEST "
        "_XLFN.CONFIDENCE.NORM _XLFN.CONFIDENCE.T _XLFN.COVARIANCE.P _XLFN.COVARIANCE.S _XLFN.EXPON.DIST "
        "_XLFN.F.DIST _XLFN.F.DIST.RT _XLFN.F.INV _XLFN.F.INV.RT _XLFN.F.TEST _XLFN.FORECAST.ETS "
        "_XLFN.FORECAST.ETS.CONFINT _XLFN.FORECAST.ETS.SEASONALITY _XLFN.FORECAST.ETS.STAT "
        "_XLFN.FORECAST.LINEAR _XLFN.GAMMA _XLFN.GAMMA.DIST _XLFN.GAMMA.INV _XLFN.GAMMALN "
        "_XLFN.GAMMALN.PRECISE _XLFN.GAUSS _XLFN.HYPGEOM.DIST _XLFN.LOGNORM.DIST _XLFN.LOGNORM.INV "
        "_XLFN.MAXIFS _XLFN.MINIFS _XLFN.MODE.MULT _XLFN.MODE.SNGL _XLFN.NEGBINOM.DIST _XLFN.NORM.DIST "
        "_XLFN.NORM.INV _XLFN.NORM.S.DIST _XLFN.NORM.S.INV _XLFN.PEARSON _XLFN.PERCENTILE.EXC "
        "_XLFN.PERCENTILE.INC _XLFN.PERCENTRANK.EXC _XLFN.PERCENTRANK.INC _XLFN.PERMUT _XLFN.PERMUTATIONA "
        "_XLFN.PHI _XLFN.POISSON.DIST _XLFN.QUARTILE.EXC _XLFN.QUARTILE.INC _XLFN.RANK.AVG _XLFN.RANK.EQ "
        "_XLFN.SKEW _XLFN.SKEW.P _XLFN.STDEV.P _XLFN.STDEV.S _XLFN.T.DIST _XLFN.T.DIST.2T _XLFN.T.DIST.RT "
        "_XLFN.T.INV _XLFN.T.INV.2T _XLFN.T.TEST _XLFN.VAR.P _XLFN.VAR.S _XLFN.WEIBULL.DIST _XLFN.Z.TEST "
    ),
    ".financial": (
        "ACCRINT ACCRINTM AMORDEGRC AMORLINC COUPDAYBS COUPDAYS COUPDAYSNC COUPNCD COUPNUM COUPPCD CUMIPMT "
        "CUMPRINC DB DDB DISC DOLLARDE DOLLARFR DURATION EFFECT FV FVSCHEDULE INTRATE IPMT IRR ISPMT "
        "MDURATION MIRR NOMINAL NPER NPV ODDFPRICE ODDFYIELD ODDLPRICE ODDLYIELD PDURATION PMT PPMT PRICE "
        "PRICEDISC PRICEMAT PV RATE RECEIVED RRI SLN SYD TBILLEQ TBILLPRICE TBILLYIELD VDB XIRR XNPV YIELD "
        "YIELDDISC YIELDMAT _XLFN.MIRR _XLFN.PDURATION _XLFN.RRI "
    ),
    ".text": (
        "ARRAYTOTEXT ASC BAHTTEXT CHAR CLEAN CODE CONCAT CONCATENATE EXACT FIND FINDB FIXED LEFT LEFTB LEN "
        "LENB LOWER MID MIDB NUMBERVALUE PROPER REGEXEXTRACT REGEXREPLACE REGEXTEST REPLACE REPLACEB REPT "
        "RIGHT RIGHTB SEARCH SEARCHB SUBSTITUTE T TEXT TEXTAFTER TEXTBEFORE TEXTJOIN TEXTSPLIT TRIM UNICHAR "
        "UNICODE UPPER VALUE VALUETOTEXT _XLFN.ARRAYTOTEXT _XLFN.CONCAT _XLFN.CONCATENATE _XLFN.NUMBERVALUE "
        "_XLFN.REGEXEXTRACT _XLFN.REGEXREPLACE _XLFN.REGEXTEST _XLFN.TEXTAFTER _XLFN.TEXTBEFORE "
        "_XLFN.TEXTJOIN _XLFN.TEXTSPLIT _XLFN.UNICHAR _XLFN.UNICODE _XLFN.VALUETOTEXT "
    ),
    ".look": (
        "ADDRESS AREAS CHOOSE CHOOSECOLS CHOOSEROWS COLUMN COLUMNS DROP EXPAND FILTER GROUPBY HLOOKUP HSTACK "
        "INDEX LOOKUP MATCH PIVOTBY ROW ROWS SINGLE SORT SORTBY TAKE TOCOL TOROW TRANSPOSE TRIMRANGE UNIQUE "
        "VLOOKUP VSTACK WRAPCOLS WRAPROWS XLOOKUP XMATCH _XLFN.CHOOSECOLS _XLFN.CHOOSEROWS _XLFN.DROP "
        "_XLFN.EXPAND _XLFN.GROUPBY _XLFN.HSTACK _XLFN.PIVOTBY _XLFN.SINGLE _XLFN.SORTBY _XLFN.TAKE "
        "_XLFN.TOCOL _XLFN.TOROW _XLFN.TRIMRANGE _XLFN.UNIQUE _XLFN.VSTACK _XLFN.WRAPCOLS _XLFN.WRAPROWS "
        "_XLFN.XLOOKUP _XLFN.XMATCH _XLFN._XLWS.FILTER _XLFN._XLWS.SORT "
    ),
    ".eng": (
        "BESSELI BESSELJ BESSELK BESSELY BIN2DEC BIN2HEX BIN2OCT BITAND BITLSHIFT BITOR BITRSHIFT BITXOR "
        "COMPLEX CONVERT DEC2BIN DEC2HEX DEC2OCT DELTA ERF ERF.PRECISE ERFC ERFC.PRECISE GESTEP HEX2BIN "
        "HEX2DEC HEX2OCT IMABS IMAGINARY IMARGUMENT IMCONJUGATE IMCOS IMCOSH IMCOT IMCSC IMCSCH IMDIV IMEXP "
        "IMLN IMLOG10 IMLOG2 IMPOWER IMPRODUCT IMREAL IMSEC IMSECH IMSIN IMSINH IMSQRT IMSUB IMSUM IMTAN "
        "OCT2BIN OCT2DEC OCT2HEX _XLFN.BITAND _XLFN.BITLSHIFT _XLFN.BITOR _XLFN.BITRSHIFT _XLFN.BITXOR "
        "_XLFN.COMPLEX _XLFN.CONVERT _XLFN.ERF _XLFN.ERF.PRECISE _XLFN.ERFC _XLFN.ERFC.PRECISE _XLFN.IMABS "
        "_XLFN.IMAGINARY _XLFN.IMARGUMENT _XLFN.IMCONJUGATE _XLFN.IMCOS _XLFN.IMCOSH _XLFN.IMCOT _XLFN.IMCSC "
        "_XLFN.IMCSCH _XLFN.IMDIV _XLFN.IMEXP _XLFN.IMLN _XLFN.IMLOG10 _XLFN.IMLOG2 _XLFN.IMPOWER "
        "_XLFN.IMPRODUCT _XLFN.IMREAL _XLFN.IMSEC _XLFN.IMSECH _XLFN.IMSIN _XLFN.IMSINH _XLFN.IMSQRT "
        "_XLFN.IMSUB _XLFN.IMSUM _XLFN.IMTAN "
    ),
    ".date": (
        "DATE DATEDIF DATEVALUE DAY DAYS DAYS360 EDATE EOMONTH HOUR ISOWEEKNUM MINUTE MONTH NETWORKDAYS "
        "NETWORKDAYS.INTL NOW SECOND TIME TIMEVALUE TODAY WEEKDAY WEEKNUM WORKDAY WORKDAY.INTL YEAR YEARFRAC "
        "_XLFN.DAYS _XLFN.DAYS360 _XLFN.ISOWEEKNUM "
    ),
    ".comp": (
        "BETADIST BETAINV BINOMDIST CHIDIST CHIINV CHITEST CONFIDENCE COVAR CRITBINOM EXPONDIST FDIST FINV "
        "FTEST GAMMADIST GAMMAINV HYPGEOMDIST LOGINV LOGNORMDIST MODE NEGBINOMDIST NORMDIST NORMINV NORMSDIST "
        "NORMSINV PERCENTILE PERCENTRANK POISSON QUARTILE RANK STDEV STDEVP TDIST TINV TTEST VAR VARP WEIBULL "
        "ZTEST "
    ),
    ".google": (
        "DUMMYFUNCTION __XLUDF.DUMMYFUNCTION "
    ),
}
_MODULE_OF = {name: module for module, names in MODULE_NAMES.items() for name in names.split()}


class LazyFunctions(collections.defaultdict):
    """formulas' function registry ({EXCEL NAME: function}), loading function modules on demand.

    ``package`` is formulas' ``formulas.functions`` package (its ``SUBMODULES``, ``FUNCTIONS`` and
    ``not_implemented``); ``loaded`` lists the modules imported so far, in order.
    """

    def __init__(self, package: types.ModuleType | None = None) -> None:
        if package is None:
            package = function_package()
        pkg: types.ModuleType = package
        self._package = pkg
        super().__init__(lambda: pkg.not_implemented)
        self._pending = list(pkg.SUBMODULES)
        self._origin: dict[str, int] = {}  # name -> index of the module it came from (-1: set explicitly)
        self.loaded: tuple[str, ...] = ()
        for name, fn in pkg.FUNCTIONS.items():  # the package's own table wins over every module
            super().__setitem__(name, fn)
            self._origin[name] = -1

    def _load_next(self, name: str | None = None) -> bool:
        if not self._pending:
            return False
        name = self._pending.pop(0) if name is None else name
        if name in self._pending:
            self._pending.remove(name)
        order = list(self._package.SUBMODULES).index(name)
        module = import_function_module(name, self._package.__name__)
        for key, fn in module.FUNCTIONS.items():
            if self._origin.get(key, order - 1) < order and self._origin.get(key) != -1:
                super().__setitem__(key, CORRECTIONS[key](fn) if key in CORRECTIONS else fn)
                self._origin[key] = order
        self.loaded += (name,)
        return True

    def _find(self, key: object) -> bool:
        if super().__contains__(key):
            return True
        module = _MODULE_OF.get(key) if isinstance(key, str) else None
        if module is not None and module in self._pending:
            self._load_next(module)
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


def _index_of_values(stock: dict) -> dict:
    """formulas' INDEX, whose array result holds the cells it picks as values, as Excel's does.

    With an array of row or column numbers (``{=INDEX(A1:B3,{1;2;3},2)}``) formulas 1.3.4 returns an
    array of one-cell references: written as their Python text, summed as 0 (``=SUM(INDEX(...))``),
    refused by ``+`` and ``&``. Excel (and LibreOffice) give the cells' values there; a blank cell stays
    blank for the formula around it (``COUNT`` does not count it; a cell showing it shows 0). A single
    reference (``INDEX(A1:B3,2,2)``, which may end a range: ``A1:INDEX(...)``) is left as the engine
    gives it. An array of positions holding 0 (a whole row or column for each position:
    ``{=INDEX(A1:B3,{1;2},0)}``) gives #VALUE! in every cell: formulas took the first column there, a
    wrong number where LibreOffice spreads whole rows.
    """
    import numpy as np

    Ranges, Error = engine_names().Ranges, engine_names().Error

    function = stock["function"]

    def value_of(x: Any) -> Any:
        if not isinstance(x, Ranges):
            return x
        cell = np.asarray(x.value, object)
        return cell.flat[0] if cell.size == 1 else x

    def positions(x: Any) -> list:
        return np.asarray(x.value if isinstance(x, Ranges) else x, object).ravel().tolist()

    def zero_among_arrays(xs: Any) -> bool:  # an array of positions, and a position 0 among them
        got = [positions(x) for x in xs]
        return any(len(p) > 1 for p in got) and any(
            isinstance(v, (int, float, np.number)) and v == 0 for p in got for v in p)

    index2col = column_namer()

    def one_cell(compiling: Any, array: Any, row: Any, column: Any, *area: Any) -> Any:
        """``INDEX(reference, row, column)`` of one range and two whole numbers inside it: the one cell's
        reference as formulas' ``xindex`` builds it (the same keys and value), without the reference of every
        other cell of the range it builds first (10,000 of them for ``ROW(INDEX(A4:A10004,1,1))``: 55 ms a
        call). Anything else: None (formulas' own)."""
        if compiling is not False or area not in ((), (1,)) or not isinstance(array, Ranges) or array.is_set \
                or len(array.ranges) != 1 or type(row) is not int or type(column) is not int:
            return None
        rng = array.ranges[0]
        r1, n1 = int(rng["r1"]), int(rng["n1"])
        if not (1 <= row <= int(rng["r2"]) - r1 + 1 and 1 <= column <= int(rng["n2"]) - n1 + 1):
            return None
        r, n = r1 + row - 1, n1 + column - 1
        sheet_id = rng["sheet_id"]
        c = index2col(n)
        ref = f"{c}{r}"
        value = Ranges((rng,), array.values).value
        return Ranges(values=dict(array.values)).set_value(
            {"r1": r, "r2": r, "c1": c, "c2": c, "n1": n, "n2": n, "ref": ref,
             "name": f"{sheet_id}!{ref}" if sheet_id else ref, "sheet_id": sheet_id}, value[r - r1, n - n1])

    def index(*args: Any, **kwargs: Any) -> Any:
        if not kwargs and 4 <= len(args) <= 5:
            cell = one_cell(*args)
            if cell is not None:
                return cell
        res = function(*args, **kwargs)
        if isinstance(res, np.ndarray) and res.dtype == object and res.size and not isinstance(res, Ranges):
            out = None
            if zero_among_arrays(args[2:4]):  # (args: compiling, array, rows, columns, area)
                out = res.copy()
                out.ravel()[:] = Error.errors["#VALUE!"]
                for sink in REASON_SINKS[-1:]:
                    sink("INDEX", "an array of row or column numbers with a 0 among them (0 stands for a "
                                  "whole row or column): give each number, from 1")
            else:
                flat = res.ravel().tolist()
                if any(isinstance(x, Ranges) for x in flat):
                    out = res.copy()  # (a copy of an Array is an Array)
                    out.ravel()[:] = [value_of(x) for x in flat]
            if out is not None:
                return out
        return res

    index.__wrapped__ = function  # type: ignore[attr-defined]
    return {**stock, "function": index}


#: Below this many cells an array is left to formulas' own element-by-element evaluation.
WHOLE_ARRAY_FROM = 64


def _uneven(values: list[Any]) -> bool:
    """True when arrays among ``values`` have sizes numpy cannot broadcast (formulas then raises "Broadcast is
    not implemented!"; Excel expands them: :func:`_excel_expanded`)."""
    import numpy as np

    shapes = [v.shape for v in values if isinstance(v, np.ndarray)]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        return True
    return False


def _excel_expanded(arrays: list[Any]) -> list[Any]:
    """The 2-D ``arrays`` (and single values) of an element-wise function expanded to one size, as Excel does:
    the most rows and the most columns among them; a single value, a one-row array down and a one-column array
    across repeat; every other cell past an array's own size is ``#N/A`` ("If the arrays are of different sizes,
    Excel expands the smaller one ... with #N/A", Microsoft Support, "Guidelines and examples of array
    formulas"). ``IF(A4:A8=1,J4:J6,"")`` of a condition two rows longer than its values: the two last cells are
    ``""`` where the condition is false, ``#N/A`` where it is true.

    >>> import numpy as np
    >>> [a.ravel().tolist() for a in _excel_expanded([np.array([[1], [0], [0]]), np.array([[5], [6]]), np.array("")])]
    [[1, 0, 0], [5, 6, #N/A], ['', '', '']]
    """
    import numpy as np

    na = engine_names().Error.errors["#N/A"]
    grids = [a for a in arrays if a.ndim == 2]
    if len(grids) + sum(a.ndim == 0 for a in arrays) != len(arrays):
        raise ValueError("only single values and 2-D arrays are expanded")
    rows, columns = max(a.shape[0] for a in grids), max(a.shape[1] for a in grids)
    out = []
    for a in arrays:
        full = np.empty((rows, columns), dtype=object)
        if a.ndim == 0:
            full.fill(a.item())
            out.append(full)
            continue
        if a.shape[0] == 1:
            a = np.repeat(a, rows, axis=0)
        if a.shape[1] == 1:
            a = np.repeat(a, columns, axis=1)
        full.fill(na)
        full[: a.shape[0], : a.shape[1]] = a
        out.append(full)
    return out


def _by_whole_arrays(stock: dict, choose: Callable[..., Any], arity: tuple[int, int]) -> dict:
    """formulas' ``IF`` or ``IFERROR`` computed on whole arrays, with the same values.

    formulas 1.3.4 evaluates these functions one cell at a time in Python (``numpy.vectorize`` of its
    ``safe_eval``, with an error check and a flatten per cell): the templates' array formulas call ``IF`` on
    10,000 x 3 cells (about 160,000 cells for the 10,000-row pairs book, a third of the engine's time). Here
    the arguments are read as formulas reads them (``Ranges`` as their values, blanks as 0), broadcast as
    ``numpy.vectorize`` broadcasts them (arrays of sizes it cannot broadcast, which formulas refuses, expanded as
    Excel expands them: :func:`_excel_expanded`, whatever their size), and ``choose`` picks each cell's value with masks. Calls with
    keywords, with fewer than :data:`WHOLE_ARRAY_FROM` cells, or that ``choose`` declines (returns None: a cell
    of a kind it does not know) go to formulas' own function; so does anything that raises. Equal to it on
    every kind of cell: ``tests/batch/test_registry.py`` compares both on generated arrays.
    """
    import numpy as np

    names = engine_names()
    Ranges, Array = names.Ranges, names.Array
    function = stock["function"]
    low, high = arity

    def whole(*args: Any, **kwargs: Any) -> Any:
        if kwargs or not low <= len(args) <= high:
            return function(*args, **kwargs)
        values = [a.value if isinstance(a, Ranges) else a for a in args]
        uneven = _uneven(values)
        if not uneven and not any(isinstance(v, np.ndarray) and v.size >= WHOLE_ARRAY_FROM for v in values):
            return function(*args)
        try:
            arrays = [np.asarray(blank_as_zero(v), dtype=object) for v in values]
            cells = _excel_expanded(arrays) if uneven else np.broadcast_arrays(*arrays)
            res = choose(*cells)
        except Exception:  # what formulas makes of it (an error value, a broadcast error) is its own to say
            return function(*args)
        return function(*args) if res is None else res.view(Array)

    whole.__wrapped__ = function  # type: ignore[attr-defined]
    return {**stock, "function": whole}


def _if_by_masks(stock: dict) -> dict:
    """``IF(condition, value_if_true, value_if_false)`` on whole arrays (:func:`_by_whole_arrays`): a cell
    whose condition is an error gives that error, text gives #VALUE!, a number or logical picks by its truth."""
    import numpy as np

    XlError, value_error = engine_names().XlError, engine_names().Error.errors["#VALUE!"]
    numbers = (bool, int, float, np.bool_, np.number)

    def kind(v: Any) -> int:  # 0 false, 1 true, 2 text, 3 error, 4 anything else
        if isinstance(v, XlError):
            return 3
        if isinstance(v, str):
            return 2
        if isinstance(v, numbers):
            return 1 if v else 0
        return 4

    kinds = np.frompyfunc(kind, 1, 1)
    plain = {int, float, bool}

    def kinds_of(condition: Any) -> Any:
        """Each cell's kind; a condition of plain numbers and logicals only (the templates' own) at once: a
        number is true when it is not 0 (NaN too, as ``bool`` has it)."""
        if not condition.size:
            return np.zeros(condition.shape, np.int8)
        cells = condition.ravel().tolist()
        if set(map(type, cells)) <= plain:
            try:
                return (np.array(cells, dtype=float) != 0).astype(np.int8).reshape(condition.shape)
            except OverflowError:  # an int past a float's range: one at a time
                pass
        return kinds(condition).astype(np.int8)

    def choose(condition: Any, yes: Any, *otherwise: Any) -> Any:
        no = otherwise[0] if otherwise else np.full(condition.shape, False, dtype=object)
        k = kinds_of(condition)
        if (k == 4).any():
            return None
        out = np.where(k == 1, yes, no).astype(object)
        out[k == 2] = value_error
        errors = k == 3
        out[errors] = condition[errors]
        return out

    return _by_whole_arrays(stock, choose, (2, 3))


def _compared_with_text(stock: Callable[..., Any], negate: bool) -> Callable[..., Any]:
    """formulas' ``=`` (or ``<>``, ``negate``) of an array with one text or one number, on the whole array, with
    the same values.

    The templates compare whole columns with ``""`` (``Travellers!H5:J10204=""``: 30,600 cells, three times in the
    pairs book) and their rows' numbers with the first row's (``ROW(range)=ROW(INDEX(range,1,1))``), which formulas
    1.3.4 does one cell at a time (its ``logic_input_parser``: a type id per side, then the (type, value) pairs
    compared). For each cell, as there: an error is itself; a blank is the empty text beside a text and 0 beside a
    number; a text equals a text whatever its case (both upper-cased); a text, a number and a logical never equal
    each other. Any other call (two arrays, a logical or an error alone, a small array, keywords) is formulas' own.
    """
    import numpy as np

    names = engine_names()
    Ranges, Array, XlError, EMPTY = names.Ranges, names.Array, names.XlError, names.EMPTY
    logical, text_types = (bool, np.bool_), (str, np.str_)

    def scalar_of(v: Any) -> tuple[str, Any] | None:  # ("text", upper-cased) or ("number", value)
        if isinstance(v, np.ndarray):
            if v.size != 1:
                return None
            v = v.ravel()[0]
        if isinstance(v, XlError) or v is EMPTY or isinstance(v, logical):
            return None
        if isinstance(v, text_types):
            return "text", v.upper()
        if isinstance(v, (int, float, np.number)):
            return "number", v
        return None

    def compare(*args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != 2:
            return stock(*args, **kwargs)
        values = [a.value if isinstance(a, Ranges) else a for a in args]
        scalars = [scalar_of(v) for v in values]
        arrays = [isinstance(v, np.ndarray) and v.size >= WHOLE_ARRAY_FROM for v in values]
        if scalars[0] is not None and arrays[1]:
            side = 1
        elif scalars[1] is not None and arrays[0]:
            side = 0
        else:
            return stock(*args)
        scalar = scalars[1 - side]
        assert scalar is not None
        kind, value = scalar
        try:
            cells = np.broadcast_arrays(*[np.asarray(v, dtype=object) for v in values])[side]
        except ValueError:
            return stock(*args)

        if kind == "text":
            def one(v: Any) -> Any:
                if isinstance(v, XlError):
                    return v
                if v is EMPTY:
                    return (value == "") != negate
                if isinstance(v, logical) or not isinstance(v, text_types):
                    return negate
                return (v.upper() == value) != negate
        else:
            def one(v: Any) -> Any:
                if isinstance(v, XlError):
                    return v
                if v is EMPTY:
                    return (value == 0) != negate
                if isinstance(v, logical) or isinstance(v, text_types):
                    return negate
                return bool(v is value or v == value) != negate  # as a tuple compares its items

        out = None
        if kind == "text" and value == "" and cells.size:
            out = _is_empty_text(cells)
        if out is None:
            out = np.frompyfunc(one, 1, 1)(cells) if cells.size else np.empty(cells.shape, dtype=object)
        return np.asarray(out, dtype=object).view(Array)

    token = type(EMPTY)

    def _is_empty_text(cells: Any) -> Any:
        """``cells = ""`` (``negate``: ``<>``) at once where every cell is a text, a blank, a number or a logical, the
        templates' columns (a blank and the empty text are ``""``; a text is ``""`` when it is empty, whatever its
        case; a number or a logical never is); None for any other kind of cell (an error: left to ``one``)."""
        flat = cells.ravel().tolist()
        kinds = set(map(type, flat))
        if not kinds <= {str, token, float, int, bool}:
            return None
        blank = identical(flat, EMPTY)
        if token in kinds and int(blank.sum()) != sum(1 for v in flat if type(v) is token):
            return None  # (a token that is not the blank: an error)
        if kinds <= {str, token}:
            texts = np.fromiter(map(len, flat), dtype=np.intp, count=len(flat)) == 0
        else:  # (an empty text equals ""; a number, a logical or any other text does not)
            texts = np.fromiter(map(operator.eq, flat, itertools.repeat("")), dtype=bool, count=len(flat))
        return ((blank | texts) != negate).reshape(cells.shape).astype(object)

    compare.__wrapped__ = stock  # type: ignore[attr-defined]
    return compare


def _whole_pair(args: tuple, kwargs: dict) -> tuple[Any, Any] | None:
    """The two arguments of a binary operator as object arrays of one shape, when the call is one for a whole-array
    operation: two arguments, one of them an array of at least :data:`WHOLE_ARRAY_FROM` cells (a reference's
    values), of shapes numpy broadcasts; None: formulas' own operator answers it."""
    import numpy as np

    Ranges = engine_names().Ranges
    if kwargs or len(args) != 2:
        return None
    values = [a.value if isinstance(a, Ranges) else a for a in args]
    if not any(isinstance(v, np.ndarray) and v.size >= WHOLE_ARRAY_FROM for v in values):
        return None
    try:
        x, y = np.broadcast_arrays(*[np.asarray(v, dtype=object) for v in values])
    except ValueError:
        return None
    return x, y


def _arithmetic_of_numbers(stock: Callable[..., Any], op: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    """formulas' ``+``, ``-`` or ``*`` (``op`` on two float arrays) on whole arrays of numbers, with the same values.

    The templates subtract a column's row numbers from its first row's (``ROW(range)-ROW(INDEX(range,1,1))``,
    10,200 cells, twenty times in the pairs book) and multiplies two columns of logicals (the Ranking's "Not counted"
    line), which formulas 1.3.4 does one cell at a time (each side made a float, a logical 1 or 0, the result a
    float, one that is not finite ``#NUM!``). Here, where every cell of both sides is a number or a logical (not a
    text, a blank or an error), numpy computes the same floats for the whole array at once; any other call is
    formulas' own.
    """
    import numpy as np

    names = engine_names()
    Array, num_error = names.Array, names.Error.errors["#NUM!"]

    def number(v: Any) -> bool:  # (a logical is 1 or 0 to formulas' arithmetic, as to Excel's: TRUE*TRUE is 1)
        return type(v) in (int, float, bool) or isinstance(v, (np.number, np.bool_))

    numbers = np.frompyfunc(number, 1, 1)
    plain = {int, float, bool}

    def all_numbers(a: Any) -> bool:  # (Python's own ints and floats told at once by their types, the rest one by one)
        return set(map(type, a.ravel().tolist())) <= plain or bool(numbers(a).astype(bool).all())

    def arithmetic(*args: Any, **kwargs: Any) -> Any:
        pair = _whole_pair(args, kwargs)
        if pair is None:
            return stock(*args, **kwargs)
        x, y = pair
        if not x.size or not (all_numbers(x) and all_numbers(y)):
            return stock(*args)
        with np.errstate(all="ignore"):
            got = op(x.astype(float), y.astype(float))
        out = np.empty(got.shape, dtype=object)
        out.ravel()[:] = got.ravel().tolist()
        out[~np.isfinite(got)] = num_error
        return out.view(Array)

    arithmetic.__wrapped__ = stock  # type: ignore[attr-defined]
    return arithmetic


def _joined_texts(stock: Callable[..., Any]) -> Callable[..., Any]:
    """formulas' ``&`` of two arrays (or an array and one value) on the whole array at once, with the same values.

    The pairs template's Ranking joins whole columns (``Travellers!B4:B10204&Travellers!C4:C10204<>""``, 10,201
    cells), which formulas 1.3.4 does one cell at a time through numpy's ``vectorize`` (a blank is the empty text, a
    number or a logical its text as formulas writes it: ``formulas_seam.text_of``). Here, where no cell is an error
    and every cell is a text, a number, a logical or a blank, each cell is joined in one list; any other call (an
    error among the cells, arrays numpy cannot broadcast, a small array, keywords) is formulas' own.
    """
    import numpy as np

    names = engine_names()
    Array, EMPTY = names.Array, names.EMPTY
    plain = {str, int, float, bool, type(EMPTY)}
    text = text_of()

    def join(*args: Any, **kwargs: Any) -> Any:
        pair = _whole_pair(args, kwargs)
        if pair is None:
            return stock(*args, **kwargs)
        x, y = pair
        left, right = x.ravel().tolist(), y.ravel().tolist()
        if not x.size or not (set(map(type, left)) | set(map(type, right))) <= plain:
            return stock(*args)
        blank_left, blank_right = identical(left, EMPTY), identical(right, EMPTY)
        tokens = type(EMPTY)  # (a token that is not the blank: formulas' own)
        if (sum(1 for v in left if type(v) is tokens) != int(blank_left.sum())
                or sum(1 for v in right if type(v) is tokens) != int(blank_right.sum())):
            return stock(*args)
        out = np.empty(x.shape, dtype=object)
        out.ravel()[:] = [("" if bl else text(a)) + ("" if br else text(b))
                          for a, b, bl, br in zip(left, right, blank_left.tolist(), blank_right.tolist())]
        return out.view(Array)

    join.__wrapped__ = stock  # type: ignore[attr-defined]
    return join


#: formulas' operators computed on whole arrays where the templates use them on whole columns
OPERATOR_CORRECTIONS: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    "=": lambda stock: _compared_with_text(stock, negate=False),
    "<>": lambda stock: _compared_with_text(stock, negate=True),
    "+": lambda stock: _arithmetic_of_numbers(stock, lambda x, y: x + y),
    "-": lambda stock: _arithmetic_of_numbers(stock, lambda x, y: x - y),
    "*": lambda stock: _arithmetic_of_numbers(stock, lambda x, y: x * y),
    "&": _joined_texts,
}


def _iferror_by_masks(stock: dict) -> dict:
    """``IFERROR(value, value_if_error)`` on whole arrays (:func:`_by_whole_arrays`)."""
    import numpy as np

    XlError = engine_names().XlError
    is_error = np.frompyfunc(lambda v: isinstance(v, XlError), 1, 1)

    def choose(value: Any, if_error: Any) -> Any:
        errors = is_error(value).astype(bool) if value.size else np.zeros(value.shape, bool)
        return np.where(errors, if_error, value).astype(object)

    return _by_whole_arrays(stock, choose, (2, 2))


#: Where a correction says why a cell is an error: the last ``sink(function name, reason)`` listed,
#: put there by the engine for the length of an evaluation (``xlbridge.batch.evaluate.engine.note_reason``
#: lists the reason at the cell being evaluated); none: the reason is not kept.
REASON_SINKS: list[Callable[[str, str], Any]] = []

#: Functions of formulas corrected where they differ from Excel (each with its reason): the registry
#: holds the corrected function under the name
CORRECTIONS: dict[str, Callable[[dict], dict]] = {"INDEX": _index_of_values, "IF": _if_by_masks,
                                                  "IFERROR": _iferror_by_masks}


def function_names() -> frozenset[str]:
    """The names of every function formulas defines (its modules' :data:`MODULE_NAMES` and its package's own table),
    without importing a module.

    >>> names = function_names()
    >>> "TRANSPOSE" in names, "ARRAY" in names, "MYR" in names
    (True, True, False)
    """
    names = {name for listed in MODULE_NAMES.values() for name in listed.split()}
    return frozenset(names | set(function_package().FUNCTIONS))


def index_of_installed() -> dict[str, list[str]]:
    """{module: sorted names} of the installed formulas (imports every function module, SciPy deferred)."""
    ff = function_package()

    out = {}
    for name in ff.SUBMODULES:
        module = import_function_module(name, ff.__name__)
        out[name] = sorted(module.FUNCTIONS)
    return out


_REGISTRY: LazyFunctions | None = None


def install() -> LazyFunctions:
    """Make ``formulas.get_functions()`` return one :class:`LazyFunctions` registry (once per process).

    If the stock registry was built already (every module imported), it stays: there is nothing
    left to save. Returns the registry in use.
    """
    global _REGISTRY
    ff = function_package()
    stock = ff.get_functions
    cache_info = getattr(stock, "cache_info", None)
    if _REGISTRY is None and cache_info is not None and cache_info().currsize:
        return stock()
    if _REGISTRY is None:
        _REGISTRY = LazyFunctions(ff)

    registry = _REGISTRY
    correct_operators(OPERATOR_CORRECTIONS)

    def get_functions() -> LazyFunctions:
        return registry

    use_registry(get_functions)
    return registry
