"""Seed 003's simulation: determinism, agreement with the scalar formulas, and the seed's qualitative outcome."""
import math
import subprocess
import sys

import numpy as np
import pytest

from xlbridge.analysis.lehman_sim import SEED_003_PUBLISHED, lehman_sim_markdown, lehman_sim_table, lehman_simulate
from xlbridge.analysis.plots import lehman_sim_plot
from xlbridge.core.errors import InputError
from xlbridge.core.ratings.lehman import lehman_error, lehman_pseudo, lehman_update


@pytest.fixture(scope="module")
def sim():
    return lehman_simulate(runs=600, seed=11)


def test_deterministic_given_a_seed():
    a = lehman_simulate(runs=20, seed=3, weeks=3)
    b = lehman_simulate(runs=20, seed=3, weeks=3)
    c = lehman_simulate(runs=20, seed=4, weeks=3)
    for key in a.ratings:
        assert np.array_equal(a.ratings[key], b.ratings[key])
    assert not np.array_equal(a.pair_pct, c.pair_pct)


def test_runs_agree_with_the_scalar_formulas(sim):
    # replay a few runs with lehman_pseudo + lehman_update, board by board (ratings fixed within the week)
    p = dict(sim.params)
    n_boards = p["sittings_per_week"] * p["boards_per_sitting"]
    for run in range(3):
        for formula in ("standard", "modified"):
            r_new, r_par, h_new, h_par = 50.0, 50.0, 0.0, float(p["partner_history"])
            for week in range(sim.weeks):
                pct = sim.pair_pct[run, week]  # Q is linear in P: the week's mean stands for its 50 boards
                errors = None
                if formula == "modified":
                    errors = [lehman_error(h_new), lehman_error(h_par), 0.3, 0.3]
                q = lehman_pseudo([r_new, r_par, 50, 50], pct, errors)
                r_new, h_new = lehman_update(r_new, h_new, n_boards * q[0], n_boards)
                r_par, h_par = lehman_update(r_par, h_par, n_boards * q[1], n_boards)
                assert sim.ratings[(formula, "newcomer")][run, week + 1] == pytest.approx(r_new, rel=1e-9)
                assert sim.ratings[(formula, "partner")][run, week + 1] == pytest.approx(r_par, rel=1e-9)


def test_board_model_expects_45_percent(sim):
    # each decision: newcomer or partner with prob 1/2, right with 0.40 or 0.50 -> 0.45
    assert abs(sim.pair_pct.mean() - 45.0) < 0.2
    # the weekly mean of 50 boards x 4 decisions has sd 100 sqrt(0.45 x 0.55 / 200) = 3.52
    assert sim.pair_pct.std() == pytest.approx(100 * math.sqrt(0.45 * 0.55 / 200), rel=0.1)


def test_matches_seed_qualitatively(sim):
    std_new, std_par = sim.mean("standard", "newcomer"), sim.mean("standard", "partner")
    mod_new, mod_par = sim.mean("modified", "newcomer"), sim.mean("modified", "partner")
    # the modified formula brings the newcomer near 40 within a few weeks ...
    assert all(abs(mod_new[k] - 40) < 2.0 for k in (1, 2, 3))
    # ... while the partner stays near 49-50
    assert min(mod_par) > 49.0
    # the standard formula: the newcomer is still drifting after 10 weeks, the partner pays for it
    assert std_new[3] > mod_new[3] + 2
    assert std_new[5] - std_new[10] > 1.0
    assert std_par[10] < 48.5 < mod_par[10]
    # every week the modified formula hurts the partner less
    assert np.all(mod_par[1:] > std_par[1:])


def test_bigger_partner_history_moves_the_partner_less():
    # seed 003: "with 2000 bds history, partner's rating would drop only to 49.8"
    a = lehman_simulate(runs=300, seed=5, partner_history=500)
    b = lehman_simulate(runs=300, seed=5, partner_history=2000)
    assert b.mean("modified", "partner")[-1] > a.mean("modified", "partner")[-1]
    assert b.mean("modified", "partner")[-1] > 49.6


def test_table_and_markdown(sim):
    table = lehman_sim_table(sim)
    assert len(table) == 11 and table[0] == (0, 50.0, 50.0, 50.0, 50.0, None)
    md = lehman_sim_markdown(sim)
    assert md.count("\n") == 12
    assert f"({SEED_003_PUBLISHED[('standard', 'newcomer')][-1]:.1f})" in md.splitlines()[-1]


def test_plot_writes_a_png(tmp_path):
    path = lehman_sim_plot(lehman_simulate(runs=30, seed=2), tmp_path / "sim.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_importing_the_simulation_does_not_load_matplotlib():
    code = "import sys, xlbridge.analysis.lehman_sim; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("kwargs", [{"runs": 0}, {"weeks": 1.5}, {"newcomer_skill": 1.2}, {"decay": 1},
                                    {"decay_order": "middle"}, {"partner_history": -1}])
def test_bad_parameters_are_refused(kwargs):
    with pytest.raises(InputError):
        lehman_simulate(**kwargs)
