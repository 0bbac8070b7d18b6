"""Figures: each function returns a matplotlib ``Figure``; it never writes a file or switches backends.

matplotlib is imported inside the functions only (``import xlbridge`` never loads it), and the
figures are built on matplotlib's object API (``matplotlib.figure.Figure`` with an Agg canvas),
so no global pyplot state or backend is touched. Save one with ``fig.savefig(path)``.

- :func:`fairness_figure`: seed 000's Figures 1 and 2 (binomial bands and observed results).
- :func:`lehman_sim_figure`: the mean rating trajectories of seed 003's experiment.

``plot_fairness(points, path)`` and ``lehman_sim_plot(sim, path)`` are the names these had
before (kept for existing scripts): they build the figure and save it to ``path``.

>>> fig = fairness_figure([(37, 56), (34, 87)], max_n=100)
>>> type(fig).__name__, len(fig.axes)
('Figure', 1)
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.errors import InputError, shown
from ..core.handicap.fairness import (
    FAIRNESS_TAILS,
    band_lows,
    tail_label,
    tail_share,
    wins_and_matches,
)
from ..core.numbers import whole
from .lehman_sim import SEED_003_PUBLISHED, LehmanSimulation

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["fairness_figure", "lehman_sim_figure", "plot_fairness", "lehman_sim_plot"]

_TAIL_COLOURS = ("tab:blue", "tab:green", "tab:orange")


def _new_figure(width: float, height: float, dpi: int) -> Figure:
    """A Figure with its own Agg canvas: no pyplot, no backend switch."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=dpi)
    FigureCanvasAgg(fig)
    return fig


def _point(p: Any) -> tuple[object, object, object]:
    if hasattr(p, "wins") and hasattr(p, "matches"):
        return p.wins, p.matches, None
    p = tuple(p)
    if len(p) == 2:
        return p[0], p[1], None
    if len(p) == 3:
        return p[0], p[1], p[2]
    raise InputError(f"a point is (wins, matches) or (wins, matches, label), got {shown(p)}")


def fairness_figure(points: Iterable[Any], *, max_n: object = None, tails: Sequence[object] = FAIRNESS_TAILS,
                    title: str | None = None) -> Figure:
    """Seed 000's Figures 1 and 2: the binomial bands with observed results as crosses.

    The black line is the expected n/2 wins; each band (:func:`xlbridge.core.handicap.fairness.fairness_band`)
    is drawn as a pair of step lines, labelled by its tails (blue 25 %, green 10 %, orange 1 %, as
    in the seed). ``points`` are (wins, matches) or (wins, matches, label) or
    :class:`~xlbridge.core.handicap.fairness.FairnessCount` objects. ``max_n`` defaults to the
    largest number of matches plus 10 %.

    >>> fig = fairness_figure([(37, 56, "handicap matches to 2013-14")], max_n=60)
    >>> [float(x) for x in fig.axes[0].get_xlim()]
    [0.0, 60.0]
    """
    checked = []
    for p in points:
        w, n, lab = _point(p)
        wi, ni = wins_and_matches(w, n)
        checked.append((wi, ni, lab))
    if max_n is None:
        biggest = max((n for _, n, _ in checked), default=100)
        m = max(10, int(biggest * 1.1) + 1)
    else:
        m = whole(max_n, "the largest number of matches", minimum=1, maximum=100_000)
    ns = list(range(0, m + 1))
    fig = _new_figure(8, 6, 100)
    ax = fig.add_subplot(1, 1, 1)
    ax.plot(ns, [n / 2 for n in ns], color="black", lw=1.2, label="expected (n/2)")
    for i, tail in enumerate(tails):
        t = tail_share(tail)
        lows = band_lows(m, t)
        colour = _TAIL_COLOURS[i] if i < len(_TAIL_COLOURS) else None
        central = tail_label(1 - 2 * t)
        ax.step(ns, lows, where="mid", color=colour, lw=1, label=f"{tail_label(t)} tails (central {central})")
        ax.step(ns, [n - lo for n, lo in zip(ns, lows)], where="mid", color=colour, lw=1)
    markers = ("X", "P", "x", "+", "*", "D", "s")
    colours = ("red", "purple", "darkgreen", "saddlebrown", "magenta", "teal", "grey")
    for j, (w, n, lab) in enumerate(checked):
        ax.scatter([n], [w], marker=markers[j % len(markers)], color=colours[j % len(colours)], s=80,
                   zorder=3, label=lab if lab is not None else f"{w}/{n}")
    ax.set_xlim(0, m)
    ax.set_ylim(0, m / 2 + m * 0.15)
    ax.set_xlabel("matches between teams with different handicaps (draws excluded)")
    ax.set_ylabel("wins by the higher-handicap team")
    ax.set_title(title if title is not None else "Fairness of handicaps: Binomial(n, 1/2) bands")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    return fig


def lehman_sim_figure(sim: LehmanSimulation, *, band: tuple[float, float] | None = (0.1, 0.9),
                      published: bool = True) -> Figure:
    """The mean trajectories (with a quantile band) of both Lehman formulas in seed 003's experiment.

    Solid lines: the newcomer; dashed: the partner; crosses: seed 003's single published run.

    >>> from xlbridge.analysis.lehman_sim import lehman_simulate
    >>> fig = lehman_sim_figure(lehman_simulate(runs=20, seed=1))
    >>> fig.axes[0].get_xlabel()
    'week'
    """
    weeks = np.arange(sim.weeks + 1)
    fig = _new_figure(8, 6, 110)
    ax = fig.add_subplot(1, 1, 1)
    colours = {"standard": "tab:blue", "modified": "tab:orange"}
    for formula, colour in colours.items():
        for who, style in (("newcomer", "-"), ("partner", "--")):
            ax.plot(weeks, sim.mean(formula, who), style, color=colour, lw=2, label=f"{formula}: {who} (mean)")
            if band is not None:
                lo, hi = sim.quantile(formula, who, band[0]), sim.quantile(formula, who, band[1])
                ax.fill_between(weeks, lo, hi, color=colour, alpha=0.12 if who == "newcomer" else 0.08, lw=0)
            if published and sim.weeks == 10:
                ax.plot(weeks[1:], SEED_003_PUBLISHED[(formula, who)], "x", color=colour, ms=6,
                        label=f"{formula}: {who} (seed 003, one run)" if who == "newcomer" else None)
    ax.axhline(40, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("week")
    ax.set_ylabel("Lehman rating")
    p = dict(sim.params)
    title = (f"Seed 003 experiment, {sim.runs} runs: 40 % newcomer, partner with {p['partner_history']} boards"
             f"\nbands: {int(band[0] * 100)}-{int(band[1] * 100)} % of runs" if band else "")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, frameon=False)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def plot_fairness(points: Iterable[Any], path: str | os.PathLike[str], *, max_n: object = None,
                  tails: Sequence[object] = FAIRNESS_TAILS, title: str | None = None) -> str | os.PathLike[str]:
    """:func:`fairness_figure` saved to ``path`` (the name this had before; kept for scripts). Returns ``path``."""
    fairness_figure(points, max_n=max_n, tails=tails, title=title).savefig(path)
    return path


def lehman_sim_plot(sim: LehmanSimulation, path: str | os.PathLike[str], *,
                    band: tuple[float, float] | None = (0.1, 0.9), published: bool = True) -> str | os.PathLike[str]:
    """:func:`lehman_sim_figure` saved to ``path`` (the name this had before; kept for scripts). Returns ``path``."""
    lehman_sim_figure(sim, band=band, published=published).savefig(path)
    return path
