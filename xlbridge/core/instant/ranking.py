"""Instant-matchpoint events: the N-S and the E-W field ranked on awards from the boards' charts (seed 002).

Ties as everywhere in xlbridge (:func:`xlbridge.core.ranking.competition_ranking`): equal mean
awards share the best rank, in order of first appearance.

>>> from xlbridge.core.instant.chart import instant_chart
>>> c = instant_chart([450, 420, 400, 170, -50], [2, 4, 3, 6, 1], "None")
>>> [(p.rank, p.pair) for p in instant_ranking([(1, "N1", "E1", 420), (1, "N2", "E2", 430)], {1: c}).ns]
[(1, 'N2'), (2, 'N1')]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..entries import Artificial, NotPlayed, parse_entry
from ..errors import InputError, shown
from ..ranking import competition_ranking
from .chart import InstantChart

__all__ = ["InstantRankedPair", "InstantRanking", "instant_ranking"]


@dataclass(frozen=True)
class InstantRankedPair:
    """A pair's place in its direction's field: rank (ties share the best), total and mean award.

    ``percent`` is the exact mean award (total / boards). ``tied`` says the rank is shared.
    """

    rank: int
    pair: object
    total: Fraction
    boards: int
    percent: Fraction
    tied: bool = False


@dataclass(frozen=True)
class InstantRanking:
    """The N-S and the E-W field of an instant-matchpoint event, each ranked on its own."""

    ns: tuple[InstantRankedPair, ...]
    ew: tuple[InstantRankedPair, ...]



def _join(where: str | None, inner: str) -> str:
    return f"{where}, {inner}" if where else inner


def instant_ranking(results: Iterable[Any], charts: Mapping[Any, InstantChart], *,
                    where: str | None = None) -> InstantRanking:
    """Rank the N-S field and the E-W field separately, from awards looked up in each board's chart.

    ``results``: rows ``(board, ns_pair, ew_pair, ns_score)``; ``charts``: a mapping board -> chart.
    A score cell may also hold an artificial score (``A60/40``: each side gets its percentage) or
    ``NP`` / blank (not played: the board does not count for either pair). A pair's total is the
    sum of its awards, its ``percent`` the exact mean award; pairs are ranked by ``percent``
    (highest first), ties share the best rank (seed 002: the two fields are scored
    independently to produce two winners).

    >>> from xlbridge.core.instant.chart import instant_chart
    >>> c = instant_chart([450, 420, 400, 170, -50], [2, 4, 3, 6, 1], "None")
    >>> r = instant_ranking([(1, "N1", "E1", 420), (1, "N2", "E2", 430), (2, "N1", "E2", "A60/40")],
    ...                     {1: c, 2: c})
    >>> [(p.rank, p.pair, p.percent) for p in r.ns]
    [(1, 'N2', Fraction(88, 1)), (2, 'N1', Fraction(135, 2))]
    >>> [(p.rank, p.pair, p.total) for p in r.ew]
    [(1, 'E2', Fraction(52, 1)), (2, 'E1', Fraction(25, 1))]
    """
    totals: tuple[dict[Any, tuple[Fraction, int]], dict[Any, tuple[Fraction, int]]] = ({}, {})
    for i, item in enumerate(results, start=1):
        loc = _join(where, f"row {i}")
        try:
            board, ns_pair, ew_pair, cell = item
        except (TypeError, ValueError):
            raise InputError(f"a result must be (board, ns_pair, ew_pair, ns_score), got {shown(item)}", where=loc) from None
        entry = parse_entry(cell, where=_join(where, f"board {board}, row {i}"))
        if entry is None or isinstance(entry, NotPlayed):
            continue
        if isinstance(entry, Artificial):
            ns, ew = entry.ns, entry.ew
        else:
            if board not in charts:
                raise InputError(f"no chart for board {shown(board)}", where=loc)
            ns = Fraction(charts[board].award(entry, where=_join(where, f"board {board}, row {i}")))
            ew = 100 - ns
        for side, pair, pts in ((0, ns_pair, ns), (1, ew_pair, ew)):
            t, b = totals[side].get(pair, (Fraction(0), 0))
            totals[side][pair] = (t + pts, b + 1)
    return InstantRanking(_rank(totals[0]), _rank(totals[1]))


def _rank(field_totals: dict[Any, tuple[Fraction, int]]) -> tuple[InstantRankedPair, ...]:
    """One field ranked by mean award (:func:`xlbridge.core.ranking.competition_ranking`)."""
    items = [(pair, t, b, t / b) for pair, (t, b) in field_totals.items()]  # first appearance
    return tuple(InstantRankedPair(place.rank, items[place.index][0], items[place.index][1], items[place.index][2],
                                   items[place.index][3], place.tied)
                 for place in competition_ranking([x[3] for x in items]))
