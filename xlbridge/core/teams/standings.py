"""Team standings over a round robin or a Swiss: each team's matches, victory points and IMPs, ranked.

A match row gives the two teams, their VPs and (optionally) their IMPs. A team's VP total is the
exact sum of its VPs (decimal VPs such as 12.18 are summed as exact decimals, not binary floats, so
two teams on 25.00 are tied, never 24.999999 against 25.000001); its IMP difference is IMPs for
minus IMPs against. Teams are ranked by VP total, best first, with the one tie order of
:mod:`xlbridge.core.ranking` (equal totals share the place, "2="): a competition's own tie-break
(head-to-head, IMP quotient) is its regulation, not a rule of the game, and is left to the
tournament director, who sees the IMP difference beside the rank.

>>> rows = [("A", "B", 12.18, 7.82, 9, 4.4), ("C", "D", 6.29, 13.71, 1, 7)]
>>> [(s.team, float(s.vps), s.rank) for s in team_standings(*zip(*rows))]
[('D', 13.71, 1), ('A', 12.18, 2), ('B', 7.82, 3), ('C', 6.29, 4)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import InputError, shown
from ..numbers import exact, is_blank, plain
from ..ranking import competition_ranking

__all__ = ["TeamStanding", "team_standings"]


@dataclass(frozen=True)
class TeamStanding:
    """One team's standing: matches played, exact VP total, IMPs for and against, rank and tie.

    >>> TeamStanding("Knights", 2, Fraction(30), Fraction(20), Fraction(11), 1, False).imp_difference
    Fraction(9, 1)
    """

    team: Any
    played: int
    vps: Fraction
    imps_for: Fraction
    imps_against: Fraction
    rank: int
    tied: bool

    @property
    def imp_difference(self) -> Fraction:
        return self.imps_for - self.imps_against


def _team(t: Any) -> Any:
    t = plain(t)
    if isinstance(t, float) and t.is_integer():
        return int(t)
    return t.strip() if isinstance(t, str) else t


def team_standings(team_a: Sequence[Any], team_b: Sequence[Any], vp_a: Sequence[Any], vp_b: Sequence[Any],
                   imps_a: Sequence[Any] | None = None, imps_b: Sequence[Any] | None = None) -> list[TeamStanding]:
    """Rank the teams of parallel match columns by exact VP total (see the module docstring).

    A row whose two teams are blank is skipped; a row with a team but no VPs (a match not yet
    scored) is an error naming the row, as is a team meeting itself.

    >>> team_standings(["A"], ["B"], [None], [None])
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: row 1: match 'A' against 'B' has no VPs yet
    """
    n = len(team_a)
    cols = {"team B": team_b, "VP A": vp_a, "VP B": vp_b}
    if imps_a is not None or imps_b is not None:
        cols.update({"IMPs A": imps_a or [], "IMPs B": imps_b or []})
    for what, col in cols.items():
        if len(col) != n:
            raise InputError(f"{what} has {len(col)} rows, team A {n}")
    order: list[Any] = []
    totals: dict[Any, list[Any]] = {}
    for i in range(n):
        a, b = team_a[i], team_b[i]
        if is_blank(a) and is_blank(b):
            continue
        where = f"row {i + 1}"
        if is_blank(a) or is_blank(b):
            raise InputError("a match needs both teams", where=where)
        a, b = _team(a), _team(b)
        if a == b:
            raise InputError(f"team {shown(a)} meets itself", where=where)
        if is_blank(vp_a[i]) or is_blank(vp_b[i]):
            raise InputError(f"match {shown(a)} against {shown(b)} has no VPs yet", where=where)
        va, vb = exact(vp_a[i], where=where), exact(vp_b[i], where=where)
        ia = ib = Fraction(0)
        if imps_a is not None and imps_b is not None and not (is_blank(imps_a[i]) and is_blank(imps_b[i])):
            ia, ib = exact(imps_a[i], where=where), exact(imps_b[i], where=where)
        for team, vp, got, lost in ((a, va, ia, ib), (b, vb, ib, ia)):
            if team not in totals:
                order.append(team)
                totals[team] = [0, Fraction(0), Fraction(0), Fraction(0)]
            t = totals[team]
            t[0] += 1
            t[1] += vp
            t[2] += got
            t[3] += lost
    places = competition_ranking([totals[t][1] for t in order])
    return [TeamStanding(order[p.index], totals[order[p.index]][0], totals[order[p.index]][1],
                         totals[order[p.index]][2], totals[order[p.index]][3], p.rank, p.tied) for p in places]
