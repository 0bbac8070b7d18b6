"""Every public name of 0.1.0 is still public: in the ``xlbridge`` package (issue 13; issue 39 for 0.2.0).

The lists below are what the package exported before the core/ layout (``xlbridge.__all__`` and
each old module's ``__all__``, copied from that version). Since 0.2.0 the old module paths
(``xlbridge.matchpoints``, ``xlbridge.imps``, ...) are gone (CHANGELOG.md): every name they held is
a name of the package itself, and ``imps`` and ``vp`` are the functions. Every Excel function name
of the catalogue except ``DATUM`` (renamed ``BUTLER_DATUM``) remains, and ``import xlbridge``
still loads only the standard library and numpy (tests/core/test_purity.py).
"""

from __future__ import annotations

import types
from pathlib import Path
import subprocess
import sys

import pytest

import xlbridge

#: ``xlbridge.__all__`` before the core/ layout.
OLD_ALL = """
    XlbridgeError InputError ContractError ImpossibleScoreError WeightError TooManyCombinationsError
    WorkbookError location STRAINS Contract Vulnerability vulnerability contract_score bridge_score
    declarer_scores legal_scores any_legal_scores check_score Artificial NotPlayed NOT_PLAYED
    parse_entry parse_entries Entry ROUNDING_RULES round_display format_display format_rank MP_SCALES
    FOULED_RULES ROW_BLANK ROW_NOT_PLAYED ROW_SCORE ROW_ARTIFICIAL neuberg mp_top mp_percent SessionMP
    matchpoint_session Standing ARTIFICIAL_RULES pairs_ranking parse_weight weighted_session
    expected_matchpoints IMP_SCALE IMP_THRESHOLDS ARTIFICIAL_IMPS BUTLER_TRIMS BUTLER_ROUNDINGS
    imps_array artificial_imps CrossImps cross_imps cross_imp_totals butler_trim_count butler_datum
    butler_datums Butler butler VP_FRACTION_RULES vp_table vp_formula vp_blitz vp_pair IMP_ROUNDINGS
    BAM_SCALES DEFAULT_MAX_COMBINATIONS round_imps outcome_imps weighted_imps weighted_vp board_a_match
    weighted_cross_imps weighted_butler MatchResult match_result INSTANT_ROUNDING INSTANT_SMOOTHING
    ChartRow InstantChart instant_chart instant_award InstantRankedPair InstantRanking instant_ranking
    chart_to_pbn chart_from_pbn LEHMAN_START LEHMAN_DECAY IMPS_TO_PERCENT_MULTIPLIER lehman_predict
    lehman_delta lehman_pseudo lehman_error lehman_update imps_to_percent lehman_display
    lehman_deltas_array LehmanLedger lehman_ledger lehman_ledger_arrays lehman_side_by_side
    SEED_003_PUBLISHED LehmanSimulation lehman_simulate lehman_sim_table lehman_sim_markdown
    lehman_sim_plot FORML_ROUNDING_RULES forml_vpdiff forml_handicaps forml_round legacy_handicaps
    forml_new_teams forml_new_teams_vpdiff HandicappedResult handicapped_result FAIRNESS_TAILS
    fairness_p fairness_p_exact fairness_p_upper fairness_p_upper_exact fairness_band fairness_in_band
    FairnessCount fairness_count fairness_bands_data plot_fairness FAIRNESS_MAX_MATCHES
""".split()

#: Each old module path and its ``__all__`` then.
OLD_MODULES = {
    "errors": """
        XlbridgeError InputError ContractError ImpossibleScoreError WeightError
        TooManyCombinationsError WorkbookError location
    """.split(),
    "contract": """
        STRAINS Contract Vulnerability vulnerability contract_score bridge_score declarer_scores
        legal_scores any_legal_scores check_score
    """.split(),
    "entries": "Artificial NotPlayed NOT_PLAYED parse_entry parse_entries Entry".split(),
    "rounding": "ROUNDING_RULES round_display format_display format_rank".split(),
    "matchpoints": """
        MP_SCALES FOULED_RULES ROW_BLANK ROW_NOT_PLAYED ROW_SCORE ROW_ARTIFICIAL neuberg mp_top
        mp_percent SessionMP matchpoint_session Standing ARTIFICIAL_RULES pairs_ranking
    """.split(),
    "weighted": "parse_weight weighted_session expected_matchpoints".split(),
    "imps": """
        imps IMP_SCALE IMP_THRESHOLDS ARTIFICIAL_IMPS BUTLER_TRIMS BUTLER_ROUNDINGS imps_array
        artificial_imps CrossImps cross_imps cross_imp_totals butler_trim_count butler_datum
        butler_datums Butler butler
    """.split(),
    "vp": "vp VP_FRACTION_RULES vp_table vp_formula vp_blitz vp_pair".split(),
    "teams": """
        IMP_ROUNDINGS BAM_SCALES DEFAULT_MAX_COMBINATIONS round_imps outcome_imps weighted_imps
        weighted_vp board_a_match weighted_cross_imps weighted_butler MatchResult match_result
    """.split(),
    "instant": """
        INSTANT_ROUNDING INSTANT_SMOOTHING ChartRow InstantChart instant_chart instant_award
        InstantRankedPair InstantRanking instant_ranking chart_to_pbn chart_from_pbn
    """.split(),
    "lehman": """
        LEHMAN_START LEHMAN_DECAY IMPS_TO_PERCENT_MULTIPLIER lehman_predict lehman_delta
        lehman_pseudo lehman_error lehman_update imps_to_percent lehman_display
        lehman_deltas_array LehmanLedger lehman_ledger lehman_ledger_arrays lehman_side_by_side
    """.split(),
    "lehman_sim": """
        SEED_003_PUBLISHED LehmanSimulation lehman_simulate lehman_sim_table lehman_sim_markdown
        lehman_sim_plot
    """.split(),
    "forml": """
        FORML_ROUNDING_RULES forml_vpdiff forml_handicaps forml_round legacy_handicaps
        forml_new_teams forml_new_teams_vpdiff HandicappedResult handicapped_result
    """.split(),
    "fairness": """
        FAIRNESS_TAILS fairness_p fairness_p_exact fairness_p_upper fairness_p_upper_exact
        fairness_band fairness_in_band FairnessCount fairness_count fairness_bands_data
        plot_fairness FAIRNESS_MAX_MATCHES
    """.split(),
    "excel": """
        ExcelError CallError EXCEL_ERROR_LITERALS NA VALUE NUM is_blank grid vector optional
        as_int as_number as_bool shape_of column to_cell to_cells error_literal
    """.split(),
}

#: The Excel functions of the catalogue and the template extensions before the rename.
OLD_EXCEL = """
    BRIDGE_SCORE SCORE_OR_TYPED MATCHPOINTS WEIGHTED_MP NEUBERG MP_PERCENT PAIRS_RANKING IMPS CROSS_IMPS BUTLER
    DATUM VP WEIGHTED_IMPS MATCH_RESULT INSTANT_MP INSTANT_AWARD LEHMAN_PREDICT LEHMAN_DELTA LEHMAN_ERROR
    LEHMAN_UPDATE LEHMAN_LEDGER FORML_HANDICAP FORML_VPDIFF LEGACY_HANDICAP FORML_NEWTEAMS FAIRNESS FAIRNESS_BAND
""".split()


def test_every_old_top_level_name_is_there():
    missing = [n for n in OLD_ALL if not hasattr(xlbridge, n)]
    assert missing == []
    assert set(OLD_ALL) <= set(xlbridge.__all__)


@pytest.mark.parametrize("module", sorted(OLD_MODULES))
def test_every_name_of_an_old_module_is_a_name_of_the_package(module):
    import xlbridge.excel

    home = xlbridge.excel if module == "excel" else xlbridge
    assert [n for n in OLD_MODULES[module] if n not in home.__all__] == [], module


@pytest.mark.parametrize("module", sorted(set(OLD_MODULES) - {"excel"}))
def test_the_old_module_paths_are_gone(module):
    # no compatibility modules (0.2.0): the public API is xlbridge and xlbridge.core.*
    package = Path(xlbridge.__file__).parent
    assert not (package / f"{module}.py").exists() and not (package / module).exists()
    assert not isinstance(getattr(xlbridge, module, None), types.ModuleType)


def test_imps_and_vp_are_the_functions():
    assert xlbridge.imps(450) == 10 and xlbridge.imps(-4000) == -24
    assert float(xlbridge.vp(5, 7)) == 12.18 and xlbridge.vp_table(7)[5] * 100 == 1218
    from xlbridge.core.teams.imps import imps

    assert imps is xlbridge.imps


def test_the_documented_calls_of_the_readme_work():
    assert xlbridge.bridge_score("4S", "N", 10, "None") == 420
    assert xlbridge.neuberg(14, 16, 8) == 29
    assert [str(x) for x in xlbridge.weighted_session([[(420, "60%"), (-50, "40%")], 420, 400, 400, 170, -50],
                                                      scale="ACBL").ns][0] == "29/10"


def test_every_excel_name_but_datum_is_there():
    from xlbridge import udfs

    assert [n for n in OLD_EXCEL if n != "DATUM" and n not in udfs.EXCEL_FUNCTIONS] == []
    assert all(callable(getattr(udfs, n)) for n in OLD_EXCEL if n != "DATUM")
    assert "BUTLER_DATUM" in udfs.EXCEL_FUNCTIONS and "DATUM" not in udfs.EXCEL_FUNCTIONS


def test_the_vba_stub_command_checks_its_files():
    out = subprocess.run([sys.executable, "-m", "xlbridge.excel.vbastub", "--check"], capture_output=True, text=True)
    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")


def test_the_public_api_imports_in_a_fresh_interpreter():
    code = ("import xlbridge, xlbridge.excel, sys; "
            "from xlbridge import plot_fairness, InputError; from xlbridge.core.pairs.neuberg import neuberg; "
            "print('matplotlib' in sys.modules, 'xlwings' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
