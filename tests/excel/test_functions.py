"""The declaration TABLE and what is generated from it; Excel names; bounded work and short messages per call.

Expected figures are worked by hand here (Law 78B IMPs, trimmed means) or come from the seeds;
the lists of Excel's own function names come from outside xlbridge (tests/excel/excel_builtin_names.py
cites them).
"""

from __future__ import annotations

import inspect
import math
import re

import pytest

from xlbridge import udfs
from xlbridge.core.errors import InputError, LimitError
from xlbridge.core.handicap.fairness import FAIRNESS_MAX_MATCHES, FAIRNESS_MAX_WORK, fairness_work
from xlbridge.core.teams.vp import MAX_BOARDS, vp
from xlbridge.excel import CallError, ExcelError
from xlbridge.excel.functions import BY_NAME, FUNCTIONS, NAMES, REQUIRED
from xlbridge.excel.generated import ROOT, check_all, expected_files

from excel_builtin_names import BUILTIN_NAMES

F = udfs.EXCEL_FUNCTIONS


def col(*values):
    return [[float(v) if isinstance(v, int) else v] for v in values]


# --------------------------------------------------------------------------------------------
# one declaration, everything generated from it


def test_generated_files_are_current():
    assert check_all() == [], "run python -m xlbridge.excel"
    names = sorted(p.relative_to(ROOT).as_posix() for p in expected_files())
    assert names == ["docs/functions.md", "vba_stub/xlbridge_register.bas", "vba_stub/xlwings_udfs.bas",
                     "xlbridge/__init__.py", "xlbridge/udfs.py"]


def test_udfs_is_generated_from_the_table():
    assert list(NAMES) == [f.name for f in FUNCTIONS] and len(set(NAMES)) == len(NAMES) == 33
    assert sorted(F) == sorted(NAMES)
    assert udfs.__all__ == ["EXCEL_FUNCTIONS", "RUNTIME", "CATEGORY", *NAMES]
    for decl in FUNCTIONS:
        fn = getattr(udfs, decl.name)
        params = list(inspect.signature(fn).parameters.values())
        assert [p.name for p in params] == [a.name for a in decl.args], decl.name
        assert [p.default is None for p in params] == [a.optional for a in decl.args], decl.name
        assert fn.__doc__ == decl.help and len(decl.help) <= 255 and "\n" not in decl.help
        assert all(a.help and len(a.help) <= 255 for a in decl.args)
        assert not fn.__annotations__  # xlwings would read annotations as converters
        assert decl.core and all(callable(c) and c.__module__.startswith("xlbridge.core.") for c in decl.core)
        assert list(inspect.signature(F[decl.name]).parameters) == [a.name for a in decl.args]
    assert BY_NAME["MATCHPOINTS"].signature() == "MATCHPOINTS(scores, [boards], [expected], [scale])"


def test_required_number_arguments_refuse_a_blank():
    assert BY_NAME["LEHMAN_DELTA"].args[1].default is REQUIRED
    msg = F["LEHMAN_DELTA"]([[50, 45, 45, 45]], None)
    assert isinstance(msg, CallError) and msg == "LEHMAN_DELTA: ns_pct: a number is needed here, not a blank"


# --------------------------------------------------------------------------------------------
# names: none is an Excel built-in in any of the eight languages


def test_no_function_is_named_like_an_excel_builtin():
    assert set(BUILTIN_NAMES) == {"English", "German", "French", "Dutch", "Spanish", "Italian", "Swedish", "Polish"}
    assert "DATUM" in BUILTIN_NAMES["German"] and "DATUM" in BUILTIN_NAMES["Dutch"]  # the reason for BUTLER_DATUM
    assert "SVERWEIS" in BUILTIN_NAMES["German"] and "RECHERCHEV" in BUILTIN_NAMES["French"]
    assert all(len(names) > 350 for names in BUILTIN_NAMES.values())
    clashes = {(name, lang) for name in NAMES for lang, names in BUILTIN_NAMES.items() if name.upper() in names}
    assert clashes == set()
    assert "DATUM" not in NAMES and not hasattr(udfs, "DATUM") and "DATUM" not in F


# --------------------------------------------------------------------------------------------
# BUTLER / BUTLER_DATUM: a trim typed in a cell


@pytest.mark.parametrize("trim", [1, 1.0, "1", " 1 ", [[1.0]], [["1"]]])
def test_integer_trims_typed_in_cells(trim):
    # 420, 400, 170, -50: one dropped at each end leaves 400 and 170, mean 285 -> 280 (half even)
    assert F["BUTLER_DATUM"](col(420, 400, 170, -50), trim, None) == 280
    # Law 78B: 420 - 280 = 140 -> 4 IMPs; 400 - 280 = 120 -> 3; 170 - 280 = -110 -> -3; -50 - 280 = -330 -> -8
    assert F["BUTLER"](col(420, 400, 170, -50), None, trim, None) == [[4, -4], [3, -3], [-3, 3], [-8, 8]]
    assert udfs.BUTLER_DATUM(col(420, 400, 170, -50), trim) == 280


def test_bad_trims_and_roundings_are_one_line_messages():
    for trim in ("median", -1, 1.5, "1e99999999"):
        msg = F["BUTLER_DATUM"](col(420, 400), trim, None)
        assert isinstance(msg, CallError) and "Butler trim" in msg and "\n" not in msg, trim
    msg = F["BUTLER"](col(420, 400), None, None, "bankers")
    assert isinstance(msg, CallError) and "unknown Butler rounding 'bankers'" in msg
    assert F["BUTLER_DATUM"](col(420, 430), "none", "HALF_AWAY") == 430   # case-insensitive rule names


# --------------------------------------------------------------------------------------------
# issue 12, function level: bounded text, bounded work, no overflow, one-line messages


def _one_line(msg):
    return isinstance(msg, str) and "\n" not in msg and "Traceback" not in msg and len(msg) < 400


def test_huge_number_text_is_refused_at_once_with_the_value_clipped():
    big = "1e99999999"
    assert F["NEUBERG"](big, 16, 8) == "#VALUE!"
    assert F["IMPS"](col(big)) == [["#VALUE!"]]
    msg = F["MATCH_RESULT"](col(3, big), 7, None)
    assert isinstance(msg, CallError) and _one_line(msg) and "exponent beyond 400" in msg
    huge = "1" + "0" * 999_999
    msg = F["MATCH_RESULT"](col(3, huge), 7, None)
    assert _one_line(msg) and "(1,000,000 characters)" in msg and huge not in msg
    res = F["MATCHPOINTS"](col(420, huge, 400))
    assert res[1] == ["#VALUE!", "#VALUE!"]
    with pytest.raises(LimitError, match="exponent beyond 400"):
        vp(big, 7)


def test_vp_boards_are_bounded():
    assert F["VP"](5, MAX_BOARDS) > 10
    assert F["VP"](5, 1_000_000) == "#VALUE!"
    with pytest.raises(InputError, match=r"number of boards must be a whole number from 1 to 1,000, got 1000000"):
        vp(5, 1_000_000)


def test_fairness_work_is_capped_per_call_not_per_cell():
    # each cell below the per-cell limit, together more than one call may do: refused before computing
    n = 80_000
    assert n <= FAIRNESS_MAX_MATCHES and fairness_work(n, n // 2) * 2 > FAIRNESS_MAX_WORK
    msg = F["FAIRNESS"](col(n // 2, n // 2 + 1), col(n, n))
    assert isinstance(msg, CallError) and _one_line(msg) and "allowed in one call" in msg
    msg = F["FAIRNESS_BAND"](col(n, n - 1), 0.1)
    assert isinstance(msg, CallError) and "allowed in one call" in msg
    # a column of ordinary leagues is far below the limit
    assert F["FAIRNESS"](col(19, 34), col(56, 87)) == [[pytest.approx(0.0111, abs=1e-4)], [pytest.approx(0.0265, abs=1e-4)]]


def test_forml_overflow_is_a_message_not_an_overflow_error():
    msg = F["FORML_HANDICAP"](1e308, -1e308)
    assert isinstance(msg, CallError) and _one_line(msg) and "division" in msg
    msg = F["FORML_HANDICAP"](col(1, 1), col(1e308, -1e308))
    assert isinstance(msg, CallError) and _one_line(msg) and "Average VPs" in msg and "row 1" in msg
    msg = F["FORML_HANDICAP"](col(1, 1), col(10, 9), 1e308)
    assert isinstance(msg, CallError) and "imps_per_vp" in msg


def test_range_checks_of_bounded_arguments():
    # MP_PERCENT: matchpoints between 0 and the top (EBU top for 16 results: 30)
    assert F["MP_PERCENT"](30, 16) == 100 and F["MP_PERCENT"](0, 16) == 0
    assert F["MP_PERCENT"](31, 16) == "#VALUE!" and F["MP_PERCENT"](-1, 16) == "#VALUE!"
    # LEGACY_HANDICAP: a step of 0 or more
    msg = F["LEGACY_HANDICAP"](col(1, 1), col(10, 9), -6)
    assert isinstance(msg, CallError) and "step" in msg
    assert F["LEGACY_HANDICAP"](col(1, 1), col(10, 9), 0) == [[0], [0]]
    # expected results, overlap, decay, boards of a match
    assert isinstance(F["MATCHPOINTS"](col(420, 400), None, 10 ** 12), CallError)
    assert isinstance(F["FORML_VPDIFF"](col(1, 1, 1), col(3, 2, 1), None, 0), CallError)
    assert isinstance(F["LEHMAN_UPDATE"](50, 100, 400, 10, 1.5), CallError)
    assert isinstance(F["MATCH_RESULT"](col(3, 2), 0, None), CallError)


BAD_CALLS = [
    ("MATCHPOINTS", (col(420, 400), col(1, "B1"), None, None)),
    ("MATCHPOINTS", (col(420, 400), None, None, "FRENCH")),
    ("WEIGHTED_MP", ([[420, -50], [400, None]], [[0.6, 0.5], [None, None]])),
    ("PAIRS_RANKING", (col(1, 1), col(1, 2), col(3, 4), col(420, "x"))),
    ("BUTLER_DATUM", (col(420, "NP", 410),)),
    ("INSTANT_MP", (col(*range(-7600, 7610, 10)), col(*([1] * 1521)), "None")),
    ("FAIRNESS_BAND", (56, 0.7)),
    ("FORML_NEWTEAMS", (col("X"), col("Y"), col(1), col(2), col("A"), col(0))),
    ("LEHMAN_LEDGER", (col(1), col("a"), col("b"), col("c"), col("d"), col(60), "fancy")),
]


@pytest.mark.parametrize("name, args", BAD_CALLS, ids=[n for n, _ in BAD_CALLS])
def test_messages_are_one_line_and_name_no_python_parameter(name, args):
    out = F[name](*args)
    texts = [out] if isinstance(out, str) else [c for row in out for c in row if isinstance(c, str)]
    assert texts, (name, out)
    for msg in texts:
        assert _one_line(msg), msg
        for word in ("check_legal", "max_combinations", "smoothing", "fouled=", "pass ", "=False", "=True"):
            assert word not in msg, (name, msg)
        if isinstance(msg, CallError):
            assert msg.startswith(f"{name}: ")


def test_results_beyond_a_double_are_num_errors():
    # a handicap far beyond any double (an absurd but in-range IMPs per VP would not get there):
    # to_cell turns an int that no double can hold into #NUM!, never an OverflowError
    from xlbridge.excel.cells import to_cell

    assert to_cell(10 ** 400) == "#NUM!" and isinstance(to_cell(-(10 ** 400)), ExcelError)
    assert to_cell(2 ** 1023) == 2 ** 1023 and math.isfinite(float(to_cell(2 ** 1023)))


def test_the_reference_page_lists_every_function_and_argument():
    text = expected_files()[next(p for p in expected_files() if p.name == "functions.md")].decode()
    for decl in FUNCTIONS:
        assert f"### `{decl.signature()}`" in text
        for a in decl.args:
            assert re.search(rf"\| `{a.name}` \|", text)
