"""A season of handicap matches: each match's handicaps, handicapped score and winner (seed 000).

The league secretary types one row per match (team A, team B and the IMPs each scored at the
table); each team's handicap comes from the handicap table (or is typed for that match), the
higher-handicap team gets the difference in IMPs (:func:`~xlbridge.core.handicap.forml.handicapped_result`),
and the row says who won and whether the higher-handicap team won, lost, drew or met a team with
the same handicap. The fairness test (seed 000) counts those wins:
:func:`~xlbridge.core.handicap.fairness.fairness_count` over the same rows gives the same count.

>>> rows = handicap_matches(["Eroes", "Lambs"], ["Lambs", "Dream"], [60, 40], [20, 50],
...                         {"Eroes": 0, "Lambs": 79, "Dream": 73})
>>> [(m.handicap_a, m.handicap_b, m.imps_a, m.imps_b, m.winner, m.higher) for m in rows]
[(0, 79, 60, 99, 'Lambs', 'won'), (79, 73, 46, 50, 'Dream', 'lost')]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import InputError, shown
from ..numbers import exact, is_blank
from .forml import handicapped_result, team_key

__all__ = ["MatchOutcome", "handicap_matches", "handicap_table", "DRAW", "HIGHER_OUTCOMES"]

#: The winner of a handicapped draw.
DRAW = "Draw"

#: What a decided or excluded match says about the higher-handicap team: it ``won`` or ``lost``
#: (the fairness test counts these), ``draw`` (a handicapped draw) or ``equal handicaps``
#: (both excluded from the test, seed 000).
HIGHER_OUTCOMES = ("won", "lost", "draw", "equal handicaps")


@dataclass(frozen=True)
class MatchOutcome:
    """One match row: the handicaps used, the handicapped IMPs, the winner's name (or ``"Draw"``) and
    what the higher-handicap team did (:data:`HIGHER_OUTCOMES`). A match not played yet (no IMPs)
    has its handicaps only: the other fields are None.
    """

    handicap_a: Any
    handicap_b: Any
    imps_a: Any = None
    imps_b: Any = None
    winner: Any = None
    higher: str | None = None


def _row(i: int) -> str:
    return f"row {i + 1}"


def handicap_table(teams: Iterable[object], handicaps: Iterable[object]) -> dict[Any, object]:
    """{team: handicap} from two parallel columns (a handicap sheet). Rows without a team are
    skipped; a team listed twice is refused. A handicap that is not a number (a blank or a message
    where the sheet has no result yet) is kept as it is and refused only when a match needs it.

    >>> handicap_table(["Eroes", " Lambs ", None], [0, 79, ""])
    {'Eroes': 0, 'Lambs': 79}
    """
    t, h = list(teams), list(handicaps)
    if len(t) != len(h):
        raise InputError(f"the team and handicap columns must have the same length, got {len(t)} and {len(h)}")
    out: dict[Any, object] = {}
    for i, (team, value) in enumerate(zip(t, h)):
        if is_blank(team):
            continue
        key = team_key(team)
        if key in out:
            raise InputError(f"team {shown(key)} is listed twice (names are compared without spaces)",
                             where=_row(i))
        out[key] = value
    return out


def _handicap(typed: object, team: Any, table: Mapping[Any, object], where: str, side: str) -> Fraction:
    if not is_blank(typed):
        return exact(typed, f"typed handicap of team {side}", where=where)
    if team not in table:
        raise InputError(f"team {shown(team)} has no handicap: not in the handicap table and none typed",
                         where=where)
    value = table[team]
    if is_blank(value):
        raise InputError(f"team {shown(team)} has no handicap yet (its handicap cell is blank)", where=where)
    return exact(value, f"handicap of team {shown(team)}", where=where)


def handicap_matches(team_a: Iterable[object], team_b: Iterable[object], imps_a: Iterable[object],
                     imps_b: Iterable[object], handicaps: Mapping[Any, object],
                     typed_a: Iterable[object] | None = None,
                     typed_b: Iterable[object] | None = None) -> list[MatchOutcome | None]:
    """Every match row of a season scored with handicaps: one :class:`MatchOutcome` per row (None for a
    blank row).

    ``team_a``, ``team_b``: the teams (names compared without surrounding spaces); ``imps_a``,
    ``imps_b``: the IMPs each scored at the table (both blank: not played yet); ``handicaps``:
    {team: handicap IMPs}; ``typed_a``, ``typed_b`` (optional): a handicap typed for that match,
    used instead of the table's. The higher-handicap team gets the difference added to its IMPs;
    the higher score wins, equal scores are a draw. Exact: whole numbers stay whole.

    A row with one team only, one side's IMPs only, a team without a handicap or a number that
    cannot be read stops the whole season with a message naming the row (a fairness count must not
    leave a match out in silence).

    Hand-worked: handicaps 0 and 36, scored 52 to 20: B gets 36, 52 - 56, B wins; the higher
    (B) won. Equal handicaps 36 and 36: excluded from the fairness test.

    >>> [m.higher for m in handicap_matches(["A", "C"], ["B", "D"], [52, 30], [20, 31],
    ...                                     {"A": 0, "B": 36, "C": 36, "D": 36})]
    ['won', 'equal handicaps']
    >>> handicap_matches(["A"], ["B"], [None], [None], {"A": 0, "B": 36})
    [MatchOutcome(handicap_a=0, handicap_b=36, imps_a=None, imps_b=None, winner=None, higher=None)]
    """
    cols = [list(team_a), list(team_b), list(imps_a), list(imps_b)]
    n = len(cols[0])
    ta = [None] * n if typed_a is None else list(typed_a)
    tb = [None] * n if typed_b is None else list(typed_b)
    if any(len(c) != n for c in cols + [ta, tb]):
        raise InputError("the team, IMP and typed handicap columns must have the same length, got "
                         + ", ".join(str(len(c)) for c in cols + [ta, tb]))
    table = {team_key(k): v for k, v in dict(handicaps).items()}
    out: list[MatchOutcome | None] = []
    for i in range(n):
        a, b, xa, xb = (c[i] for c in cols)
        where = _row(i)
        if all(is_blank(v) for v in (a, b, xa, xb, ta[i], tb[i])):
            out.append(None)
            continue
        if is_blank(a) or is_blank(b):
            raise InputError("a match needs both teams", where=where)
        ka, kb = team_key(a), team_key(b)
        if ka == kb:
            raise InputError(f"team {shown(ka)} cannot play itself", where=where)
        ha, hb = _handicap(ta[i], ka, table, where, "A"), _handicap(tb[i], kb, table, where, "B")
        if is_blank(xa) and is_blank(xb):
            out.append(MatchOutcome(_out(ha), _out(hb)))
            continue
        if is_blank(xa) or is_blank(xb):
            raise InputError(f"the IMPs of team {'A' if is_blank(xa) else 'B'} are missing", where=where)
        r = handicapped_result(exact(xa, "IMPs of team A", where=where), exact(xb, "IMPs of team B", where=where),
                               ha, hb)
        winner = a if r.winner == "a" else b if r.winner == "b" else DRAW
        if ha == hb:
            higher = "equal handicaps"
        elif r.winner is None:
            higher = "draw"
        else:
            higher = "won" if (r.winner == "a") == (ha > hb) else "lost"
        out.append(MatchOutcome(_out(ha), _out(hb), r.imps_a, r.imps_b, _name(winner), higher))
    return out


def _out(v: Fraction) -> Any:
    return v.numerator if v.denominator == 1 else v


def _name(x: object) -> Any:
    return x.strip() if isinstance(x, str) else team_key(x)
