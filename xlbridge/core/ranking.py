"""Ranking: ONE tie order for every ranking xlbridge makes, and the rank labels.

**The tie order.** Entries are ranked by an exact value, best first ("competition" ranking:
1, 2=, 2=, 4): equal values share the best place of their group and are marked tied, and the
next entry's rank counts every entry above it. Entries with equal values keep the order in
which they first appeared in the input (a stable sort); nothing else (names, seats) breaks a
tie, because the Laws rank exact ties equal. Pairs rankings (:mod:`xlbridge.core.pairs.standings`),
instant-matchpoint fields (:mod:`xlbridge.core.instant.ranking`) and the legacy handicap steps
(:mod:`xlbridge.core.handicap.forml`) all rank here.

>>> [(p.index, p.rank, p.tied) for p in competition_ranking([75, 90, 75, 60])]
[(1, 1, False), (0, 2, True), (2, 2, True), (3, 4, False)]
>>> format_rank(2, True)
'2='
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import InputError, shown
from .rounding import named_option

__all__ = ["Place", "competition_ranking", "format_rank"]


@dataclass(frozen=True)
class Place:
    """One entry's place: its ``index`` in the input, its ``rank`` (1 = best) and whether it is ``tied``.

    >>> Place(0, 1, False)
    Place(index=0, rank=1, tied=False)
    """

    index: int
    rank: int
    tied: bool


def competition_ranking(values: Sequence[Any], *, best: str = "highest") -> list[Place]:
    """Rank ``values`` (exact numbers) best first; ties share the best rank and keep input order.

    ``best="highest"`` (default) ranks the largest value first, ``"lowest"`` the smallest.
    Returns one :class:`Place` per value, in ranking order.

    >>> [(p.index, p.rank) for p in competition_ranking([3, 1, 2], best="lowest")]
    [(1, 1), (2, 2), (0, 3)]
    """
    best = named_option(best, ("highest", "lowest"), "ranking order (which value is best)")
    # sorted() is stable also with reverse=True: equal values keep their input order
    order = sorted(range(len(values)), key=values.__getitem__, reverse=best == "highest")
    out: list[Place] = []
    k = 0
    while k < len(order):
        j = k
        while j + 1 < len(order) and values[order[j + 1]] == values[order[k]]:
            j += 1
        for i in order[k:j + 1]:
            out.append(Place(i, k + 1, j > k))
        k = j + 1
    return out


def format_rank(rank: int, tied: bool) -> str:
    """Rank label: ``"3"``, or ``"3="`` when the place is shared by an exact tie.

    >>> format_rank(1, False), format_rank(2, True)
    ('1', '2=')
    """
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        raise InputError(f"rank must be a whole number 1 or more, got {shown(rank)}")
    return f"{rank}=" if tied else str(rank)
