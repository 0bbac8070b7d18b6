"""Seed 003's simulation: a 40 % newcomer and his established partner under both Lehman formulas.

The experiment (seed 003, "Another, more detailed, example"): a new player (rated 50, no
history) who makes the right decision 40 % of the time plays with a partner rated 50 with
500 boards of history against ever-changing average opponents (50 % guessers rated 50); five
boards a sitting, ten sittings a week, ten weeks.  The seed reports one random run; here the
experiment is repeated over many random seeds and the mean trajectories are reported.

Board model (the seed's "guesser" is informal; this is the model chosen): every board holds
``decisions_per_board`` key decisions for N-S; each falls to the newcomer or to the partner with
equal probability and is right with that player's probability (0.40 or 0.50); the board's N-S
percentage is 100 x (right decisions) / (decisions).  The opponents, 50 % guessers, give no
expected edge either way and are not modelled beyond their rating (50) and equal error bounds.
The pair's expected score is 45 %, the figure the seed expects ("perhaps 45 % might have been
expected").

Ratings are updated once a week by :func:`xlbridge.core.ratings.lehman.lehman_update`'s rule (vectorised);
pseudo-ratings use :func:`xlbridge.core.ratings.lehman.lehman_deltas_array`.  Both formulas see the same
boards (common random numbers), so their difference is not sampling noise.

>>> sim = lehman_simulate(runs=200, seed=1)
>>> [round(float(x), 1) for x in sim.mean("modified", "newcomer")[1::3]]   # weeks 1, 4, 7, 10
[39.8, 38.6, 38.0, 37.5]
>>> round(float(sim.mean("modified", "partner")[-1]), 1)
49.5
"""

from __future__ import annotations

from dataclasses import dataclass

from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import InputError, LimitError, shown
from ..core.ratings.lehman import DECAY_ORDERS, LEHMAN_DECAY, LEHMAN_START, decay_rate, error_bounds, lehman_deltas_array
from ..core.rounding import named_option

__all__ = [
    "SIMULATION_MAX_DECISIONS",
    "SEED_003_PUBLISHED",
    "LehmanSimulation",
    "lehman_simulate",
    "lehman_sim_table",
    "lehman_sim_markdown",
]

#: The most random decisions one simulation draws (runs x weeks x boards x decisions; memory and
#: time grow with it: the default experiment draws 4 million).
SIMULATION_MAX_DECISIONS = 10**8

#: Seed 003's single published run (weeks 1-10), for comparison only.
SEED_003_PUBLISHED = {
    ("standard", "newcomer"): (47.3, 46.5, 44.1, 43.0, 42.7, 42.9, 42.0, 41.4, 41.2, 40.9),
    ("standard", "partner"): (49.7, 49.6, 49.0, 48.6, 48.5, 48.6, 48.2, 47.9, 47.8, 47.6),
    ("modified", "newcomer"): (44.8, 44.7, 41.8, 40.7, 40.6, 41.0, 40.1, 39.5, 39.4, 39.1),
    ("modified", "partner"): (50.0, 50.0, 49.7, 49.5, 49.5, 49.6, 49.3, 49.1, 49.0, 48.9),
}


@dataclass(frozen=True, eq=False)
class LehmanSimulation:
    """Trajectories of many runs: ``ratings[(formula, who)]`` is (runs x weeks+1), column 0 the start.

    ``pair_pct`` (runs x weeks) is the pair's mean N-S percentage each week; ``params`` the inputs.

    >>> sim = lehman_simulate(runs=30, weeks=2, seed=4)
    >>> sim.runs, sim.weeks, sim.mean("modified", "newcomer").shape
    (30, 2, (3,))
    """

    ratings: dict[tuple[str, str], npt.NDArray[np.float64]]
    pair_pct: npt.NDArray[np.float64]
    params: tuple[tuple[str, Any], ...]

    @property
    def runs(self) -> int:
        return int(self.pair_pct.shape[0])

    @property
    def weeks(self) -> int:
        return int(self.pair_pct.shape[1])

    def mean(self, formula: str, who: str) -> npt.NDArray[np.float64]:
        """Mean rating over the runs at the end of weeks 0..weeks (week 0: the start)."""
        out: npt.NDArray[np.float64] = self.ratings[(formula, who)].mean(axis=0)
        return out

    def quantile(self, formula: str, who: str, q: float) -> npt.NDArray[np.float64]:
        """The ``q`` quantile over the runs at the end of weeks 0..weeks."""
        out: npt.NDArray[np.float64] = np.quantile(self.ratings[(formula, who)], q, axis=0)
        return out


def lehman_simulate(*, runs: int = 2000, seed: int | None = 2026, weeks: int = 10, sittings_per_week: int = 10,
                    boards_per_sitting: int = 5, decisions_per_board: int = 4, newcomer_skill: float = 0.40,
                    partner_skill: float = 0.50, partner_history: float = 500, opponent_rating: float = LEHMAN_START,
                    decay: float = LEHMAN_DECAY, decay_order: str = "after", history_cap: float | None = None,
                    floor: float | None = 1.0) -> LehmanSimulation:
    """Run seed 003's experiment ``runs`` times (deterministic given ``seed``) under both formulas.

    Defaults are the seed's: 5 boards a sitting, 10 sittings a week, 10 weeks, a 40 % newcomer,
    a 50 % partner with 500 boards of history; weekly update options as in
    :func:`xlbridge.core.ratings.lehman.lehman_update` (``combine="boards"``), plus the ledger's
    ``floor``. The work is bounded: at most :data:`SIMULATION_MAX_DECISIONS` decisions in all.

    >>> sim = lehman_simulate(runs=50, weeks=2, seed=7)
    >>> sim.ratings[("standard", "newcomer")].shape, float(sim.mean("standard", "partner")[0])
    ((50, 3), 50.0)
    """
    decay_order = named_option(decay_order, DECAY_ORDERS, "decay order")
    d = decay_rate(decay)
    for name, value in (("runs", runs), ("weeks", weeks), ("sittings_per_week", sittings_per_week),
                        ("boards_per_sitting", boards_per_sitting), ("decisions_per_board", decisions_per_board)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise InputError(f"{name} must be a whole number of at least 1, got {shown(value)}")
    for name, skill in (("newcomer_skill", newcomer_skill), ("partner_skill", partner_skill)):
        if not 0 <= skill <= 1:
            raise InputError(f"{name} must be a probability (0-1), got {shown(skill)}")
    if partner_history < 0 or opponent_rating <= 0:
        raise InputError("partner_history must not be negative and opponent_rating must be positive")
    total = runs * weeks * sittings_per_week * boards_per_sitting * decisions_per_board
    if total > SIMULATION_MAX_DECISIONS:
        raise LimitError(f"{total:,} simulated decisions are more than the {SIMULATION_MAX_DECISIONS:,} allowed")

    rng = np.random.default_rng(seed)
    n_boards = sittings_per_week * boards_per_sitting
    # draws for all runs and weeks at once: who takes each decision, and whether it is right
    shape = (runs, weeks, n_boards, decisions_per_board)
    newcomer_decides = rng.random(shape) < 0.5
    right = rng.random(shape) < np.where(newcomer_decides, newcomer_skill, partner_skill)
    board_pct = 100.0 * right.mean(axis=-1)  # (runs, weeks, boards)

    keep = 1.0 - d
    out = {}
    for formula in ("standard", "modified"):
        r = np.empty((runs, 2))
        r[:, 0], r[:, 1] = LEHMAN_START, LEHMAN_START
        h = np.empty((runs, 2))
        h[:, 0], h[:, 1] = 0.0, float(partner_history)
        traj_new = np.empty((runs, weeks + 1))
        traj_par = np.empty((runs, weeks + 1))
        traj_new[:, 0], traj_par[:, 0] = r[:, 0], r[:, 1]
        for wk in range(weeks):
            if decay_order == "before":
                h = h * keep
            h_used = h if history_cap is None else np.minimum(h, history_cap)
            r4 = np.concatenate([r, np.full((runs, 2), float(opponent_rating))], axis=1)[:, None, :]
            r4 = np.broadcast_to(r4, (runs, n_boards, 4))
            e4 = None
            if formula == "modified":
                e = error_bounds(h_used)
                e4 = np.broadcast_to(np.concatenate([e, np.full((runs, 2), 0.5)], axis=1)[:, None, :],
                                     (runs, n_boards, 4))
            q = r4 + lehman_deltas_array(r4, board_pct[:, wk, :], e4)
            qsum = q[..., :2].sum(axis=1)  # (runs, 2): newcomer, partner
            r = (h_used * r + qsum) / (h_used + n_boards)
            if floor is not None:
                r = np.maximum(r, floor)
            h = h_used + n_boards
            if decay_order == "after":
                h = h * keep
            if history_cap is not None:
                h = np.minimum(h, history_cap)
            traj_new[:, wk + 1], traj_par[:, wk + 1] = r[:, 0], r[:, 1]
        out[(formula, "newcomer")] = traj_new
        out[(formula, "partner")] = traj_par
    params = (("runs", runs), ("seed", seed), ("weeks", weeks), ("sittings_per_week", sittings_per_week),
              ("boards_per_sitting", boards_per_sitting), ("decisions_per_board", decisions_per_board),
              ("newcomer_skill", newcomer_skill), ("partner_skill", partner_skill),
              ("partner_history", partner_history), ("opponent_rating", opponent_rating), ("decay", d),
              ("decay_order", decay_order), ("history_cap", history_cap), ("floor", floor))
    for a in out.values():
        a.setflags(write=False)
    return LehmanSimulation(out, board_pct.mean(axis=-1), params)


def lehman_sim_table(sim: LehmanSimulation) -> list[tuple[Any, ...]]:
    """[(week, standard newcomer, standard partner, modified newcomer, modified partner, pair %)] means.

    Week 0 is the start (pair % None).

    >>> lehman_sim_table(lehman_simulate(runs=10, weeks=1))[0]
    (0, 50.0, 50.0, 50.0, 50.0, None)
    """
    cols = [sim.mean(f, w) for f in ("standard", "modified") for w in ("newcomer", "partner")]
    pair = sim.pair_pct.mean(axis=0)
    return [
        (k, *(float(c[k]) for c in cols), None if k == 0 else float(pair[k - 1]))
        for k in range(sim.weeks + 1)
    ]


def lehman_sim_markdown(sim: LehmanSimulation, *, published: bool = True) -> str:
    """The mean trajectories as a Markdown table (one decimal), with seed 003's single run beside them.

    >>> print(lehman_sim_markdown(lehman_simulate(runs=10, weeks=1), published=False).splitlines()[0])
    | week | standard newcomer | standard partner | modified newcomer | modified partner | pair % |
    """
    head = "| week | standard newcomer | standard partner | modified newcomer | modified partner | pair % |"
    lines = [head, "|" + "---|" * 6]
    seed_ok = published and sim.weeks == len(SEED_003_PUBLISHED[("standard", "newcomer")])
    keys = [(f, w) for f in ("standard", "modified") for w in ("newcomer", "partner")]
    for row in lehman_sim_table(sim):
        k = row[0]
        cells = []
        for value, key in zip(row[1:5], keys):
            cell = f"{value:.1f}"
            if seed_ok and k > 0:
                cell += f" ({SEED_003_PUBLISHED[key][k - 1]:.1f})"
            cells.append(cell)
        pair = "" if row[5] is None else f"{row[5]:.2f}"
        lines.append(f"| {k} | " + " | ".join(cells) + f" | {pair} |")
    return "\n".join(lines)
