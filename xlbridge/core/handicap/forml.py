"""Form-L league handicaps (seed 000): Expected and Merged VP differences, handicap IMPs, new teams.

Source: seed 000, "RDBL Handicap Tournament: Handicap Calculation" (Rugby and District Bridge
League, 2016), and the Form-L part of REFERENCE.md.

* Within a division of N teams, the **Expected VP Difference** of a team is
  ``(top team's Average VPs - its Average VPs) x 2(N-1)/N``. This is exact for a complete round
  robin in which every match shares a constant VP total and the VP margin of a match is the
  difference of the two teams' strengths: then the Expected VP Difference is the VP margin
  by which the top team is expected to beat that team.
* **Merging**: the top team of division k+1 is placed midway between the ``overlap``-th lowest
  and the ``(overlap+1)``-th lowest Merged VP Difference of division k (seed: overlap 2, between
  the 2nd- and 3rd-lowest), and all of division k+1 is shifted by that amount; chained downwards.
* **Handicap IMPs** = ``imps_per_vp`` (2.75) x Merged VP Difference, rounded once to a whole IMP.
* The **legacy** system it replaced: 6-IMP steps within a division, the top of each lower
  division given the handicap of the bottom of the division above.
* **New teams**: see :func:`forml_new_teams`.

Everything is exact (``fractions.Fraction``). Numbers given as floats (as Excel passes them) are
read through their decimal text, ``Fraction(str(x))``, so 13.4 means 67/5 exactly, not the binary
double nearest to it.

Seed 000, Table 1, Division 1 (the Lambs erratum, 77 -> 79, is in Division 3):

>>> div = [1, 1, 1, 1, 1, 1]
>>> avg = [14.0, 14.0, 13.4, 10.0, 5.3, 3.3]
>>> [f"{float(d):.2f}" for d in forml_vpdiff(div, avg)]
['0.00', '0.00', '1.00', '6.67', '14.50', '17.83']
>>> forml_handicaps(div, avg)
[0, 0, 3, 18, 40, 49]
>>> legacy_handicaps(div, avg)
[0, 0, 12, 18, 24, 30]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import InputError, LimitError, shown
from ..numbers import Number, as_exact, exact, is_blank, plain, whole
from ..ranking import competition_ranking
from ..rounding import round_fraction, rounding_rule
from ..teams.vp import vp

__all__ = [
    "FORML_ROUNDING_RULES",
    "forml_vpdiff",
    "forml_handicaps",
    "forml_round",
    "legacy_handicaps",
    "forml_new_teams",
    "forml_new_teams_vpdiff",
    "HandicappedResult",
    "handicapped_result",
    "FORML_LIMITS",
]

#: Rounding rules offered for a handicap (rules of :mod:`xlbridge.core.rounding`). ``"half_away"``
#: (the default) is Excel's ``ROUND(x, 0)``: halves go away from zero (36.5 -> 37, -36.5 -> -37).
#: ``"half_even"`` sends halves to the even neighbour (36.5 -> 36, 37.5 -> 38).
FORML_ROUNDING_RULES = ("half_away", "half_even")

#: The ranges read (documented limits, so that every value and all work stay bounded): a
#: division number, an Average VPs (or a VP score), IMPs per VP, a legacy step and the number of
#: new teams solved jointly (exact Gauss-Jordan elimination, cubic in that number).
FORML_LIMITS = {"division": 1000, "vps": 1000, "imps_per_vp": 100, "step": 1000, "new_teams": 100}


# --------------------------------------------------------------------------------------------
# reading the inputs exactly (xlbridge.core.numbers) and within FORML_LIMITS


def _is_blank(x: object) -> bool:
    """A blank cell: None or text of spaces (NaN is a number here, refused as not finite)."""
    return x is None or (isinstance(x, str) and not x.strip())


def _exact(x: object, what: str, where: str | None = None) -> Fraction:
    """Read a number exactly; floats through their decimal text (14.0 -> 14, 13.4 -> 67/5)."""
    return exact(x, what, where=where)


def _whole(x: object, what: str, where: str | None = None) -> int:
    return whole(x, what, where=where)


def _bounded(x: object, what: str, where: str | None, limit: int, minimum: Fraction | int | None = None) -> Fraction:
    v = _exact(x, what, where)
    low = -limit if minimum is None else minimum
    if not low <= v <= limit:
        raise InputError(f"{what} must be a number from {low} to {limit:,}, got {shown(x)}", where=where)
    return v


def match_rows(columns: Sequence[Iterable[object]], names: str) -> list[tuple[int, tuple[object, ...]]]:
    """The rows of parallel match columns as ``(row index, cells)``: blank rows skipped, a half-blank
    row (or columns of different lengths, ``names`` naming them) refused.

    >>> match_rows([["A", None], ["B", None]], "teams and opponents")
    [(0, ('A', 'B'))]
    """
    cols = [list(c) for c in columns]
    if len({len(c) for c in cols}) != 1:
        raise InputError(f"{names} must have the same length, got " + ", ".join(str(len(c)) for c in cols))
    out = []
    for r, cells in enumerate(zip(*cols)):
        if all(_is_blank(c) for c in cells):
            continue
        if any(_is_blank(c) for c in cells):
            raise InputError(f"incomplete match row {shown(cells)}", where=_row(r))
        out.append((r, cells))
    return out


def team_key(x: object) -> Any:
    """A team name as compared: text stripped of spaces at both ends, whole numbers as ``int``."""
    x = plain(x)
    if isinstance(x, str):
        return x.strip()
    if isinstance(x, float) and x.is_integer():
        return int(x)
    return x


def _out(v: Fraction) -> Number:
    """An exact result: int when whole, else the Fraction."""
    return as_exact(v)


def _row(i: int) -> str:
    return f"row {i + 1}"


def _check_rule(rounding: object) -> str:
    return rounding_rule(rounding, FORML_ROUNDING_RULES).name


def forml_round(x: object, rounding: str = "half_away") -> int:
    """Round an exact number to a whole IMP by a named rule (the only rounding Form-L does).

    ``"half_away"`` (default, = Excel ``ROUND(x, 0)``): halves away from zero;
    ``"half_even"``: halves to the even neighbour. Floats are read via their decimal text.

    >>> forml_round(Fraction(157, 2)), forml_round(Fraction(157, 2), "half_even")
    (79, 78)
    >>> forml_round(Fraction(473, 6))   # Lambs: 2.75 x 28.67 = 78.83 -> 79 (docs/corrections.md; printed 77)
    79
    >>> forml_round(-2.5)
    -3
    """
    rule = _check_rule(rounding)
    return int(round_fraction(_exact(x, "value to round"), rule))


def _read_table(divisions: Iterable[object], avg_vps: Iterable[object]) -> tuple[list[tuple[int, int, Fraction]], int]:
    """Rows -> (list of (row, division, avg) for non-blank rows, n_rows)."""
    divisions = list(divisions)
    avg_vps = list(avg_vps)
    if len(divisions) != len(avg_vps):
        raise InputError(
            f"the division and Average VPs columns must have the same length, got {len(divisions)} and {len(avg_vps)}"
        )
    rows = []
    for i, (d, a) in enumerate(zip(divisions, avg_vps)):
        if _is_blank(d) and _is_blank(a):
            continue
        if _is_blank(d):
            raise InputError(f"division is blank but Average VPs is {shown(a)}", where=_row(i))
        if _is_blank(a):
            raise InputError(f"Average VPs is blank for a team in division {shown(d)}", where=_row(i))
        div = whole(d, "division", where=_row(i), minimum=1, maximum=FORML_LIMITS["division"])
        rows.append((i, div, _bounded(a, "Average VPs", _row(i), FORML_LIMITS["vps"])))
    return rows, len(divisions)


def _expected(rows: list[tuple[int, int, Fraction]]) -> tuple[dict[int, Fraction], dict[int, list[tuple[int, Fraction]]]]:
    """Expected VP Difference per row index, and the division order."""
    by_div: dict[int, list[tuple[int, Fraction]]] = {}
    for i, d, a in rows:
        by_div.setdefault(d, []).append((i, a))
    out: dict[int, Fraction] = {}
    for d, members in by_div.items():
        n = len(members)
        top = max(a for _, a in members)
        factor = Fraction(2 * (n - 1), n)
        for i, a in members:
            out[i] = (top - a) * factor
    return out, by_div


def _merged(rows: list[tuple[int, int, Fraction]], overlap: int) -> dict[int, Fraction]:
    expected, by_div = _expected(rows)
    merged: dict[int, Fraction] = {}
    offset = Fraction(0)
    prev = None
    for d in sorted(by_div):
        members = by_div[d]
        if prev is not None:
            prev_d, prev_vals = prev
            if len(prev_vals) < overlap + 1:
                raise InputError(
                    f"division {prev_d} has {len(prev_vals)} team(s): merging division {d} below it with "
                    f"overlap {overlap} needs at least {overlap + 1}"
                )
            low = sorted(prev_vals, reverse=True)  # lowest-ranked first (largest VP difference)
            offset = (low[overlap - 1] + low[overlap]) / 2
        vals = []
        for i, _ in members:
            merged[i] = offset + expected[i]
            vals.append(merged[i])
        prev = (d, vals)
    return merged


def _check_overlap(overlap: object) -> int:
    ov = _whole(overlap, "overlap")
    if not 1 <= ov <= FORML_LIMITS["division"]:
        raise InputError(f"overlap must be a whole number of ranks, at least 1, got {shown(overlap)}")
    return ov


# --------------------------------------------------------------------------------------------
# public API


def forml_vpdiff(divisions: Iterable[object], avg_vps: Iterable[object], *, merged: bool = False,
                 overlap: object = 2) -> list[Fraction | None]:
    """Return each team's Expected (or, with ``merged=True``, Merged) VP Difference, exactly.

    Expected VP Difference = (top team's Average VPs - own) x 2(N-1)/N within its division of N
    teams (seed 000, "System structure" 1). Merged: the top of division k+1 sits midway between
    the ``overlap``-th and ``(overlap+1)``-th lowest Merged VP Differences of division k (seed
    000, 2: overlap 2), chained over any number of divisions.

    ``divisions`` are whole numbers, 1 the top; they are chained in increasing order (a gap such
    as 1, 3 just chains 3 below 1). Rows may be in any order; results come back in input order
    as Fractions (or None for a blank row: both cells blank). Ties are value-based: equal Average
    VPs give equal differences, and a tie at the 2nd/3rd-lowest places the next division at the
    tied value. Raises InputError for text, unequal lengths, a half-blank row, ``overlap < 1`` or a
    division with ``overlap`` or fewer teams above another division.

    Seed 000 Table 1, Division 2 below Division 1 (midway between Diamonds 14.50 and Dragons 6.67):

    >>> div = [1] * 6 + [2] * 6
    >>> avg = [14.0, 14.0, 13.4, 10.0, 5.3, 3.3, 11.5, 10.6, 10.1, 10.0, 9.9, 7.9]
    >>> [f"{float(v):.2f}" for v in forml_vpdiff(div, avg, merged=True)][6:]
    ['10.58', '12.08', '12.92', '13.08', '13.25', '16.58']
    >>> forml_vpdiff(div, avg)[7]
    Fraction(3, 2)
    """
    ov = _check_overlap(overlap)
    rows, n = _read_table(divisions, avg_vps)
    values = _merged(rows, ov) if merged else _expected(rows)[0]
    return [values.get(i) for i in range(n)]


def forml_handicaps(
    divisions: Iterable[object], avg_vps: Iterable[object], *, imps_per_vp: object = 2.75, overlap: object = 2,
    rounding: str = "half_away",
) -> list[int | None]:
    """Return Form-L handicap IMPs: ``imps_per_vp`` x Merged VP Difference, rounded to whole IMPs.

    Seed 000, "System structure" 3: Handicap IMPs = 2.75 x Merged VP Diff. The product is exact and
    rounded once by the named rule ``rounding`` (default ``"half_away"`` = Excel ROUND: x.5 goes
    up, since handicaps are not negative). Blank rows give None. ``imps_per_vp`` is read via its
    decimal text (2.75 = 11/4).

    Seed 000 Table 1, Division 3 (Lambs = 79 per docs/corrections.md; the seed prints 77):

    >>> div = [1] * 6 + [2] * 6 + [3] * 6
    >>> avg = [14.0, 14.0, 13.4, 10.0, 5.3, 3.3, 11.5, 10.6, 10.1, 10.0, 9.9, 7.9,
    ...        17.0, 15.3, 8.9, 8.3, 7.7, 2.8]
    >>> forml_handicaps(div, avg)[12:]
    [36, 44, 73, 76, 79, 101]
    """
    _check_rule(rounding)
    factor = _bounded(imps_per_vp, "IMPs per VP", None, FORML_LIMITS["imps_per_vp"], Fraction(0))
    return [
        None if v is None else forml_round(factor * v, rounding)
        for v in forml_vpdiff(divisions, avg_vps, merged=True, overlap=overlap)
    ]


def legacy_handicaps(divisions: Iterable[object], avg_vps: Iterable[object], *,
                     step: object = 6) -> list[Number | None]:
    """Return the handicaps of the system Form-L replaced: ``step``-IMP steps, chained divisions.

    Seed 000, "System structure" (i)-(iii): teams ranked by Average VPs within a division get
    0, step, 2 x step, ... from the top; the top of division k+1 gets the handicap of the bottom of
    division k and the rest of it follows from there. Ties share a handicap and the next team keeps
    its rank's step ("1224" ranking): Table 1's Existing column has Eroes and Discards (14.0) both
    0 and Gambits 12. So handicap = offset + step x (number of teams in the division with strictly
    higher Average VPs): the competition ranking of :mod:`xlbridge.core.ranking`. ``step`` is 0 or
    more. Results are ints (Fractions if ``step`` is fractional); blank rows None.

    >>> legacy_handicaps([2, 1, 2, 1], [9.0, 12.0, 9.5, 11.0])
    [12, 0, 6, 6]
    """
    st = _bounded(step, "step", None, FORML_LIMITS["step"], Fraction(0))
    rows, n = _read_table(divisions, avg_vps)
    by_div: dict[int, list[tuple[int, Fraction]]] = {}
    for i, d, a in rows:
        by_div.setdefault(d, []).append((i, a))
    out: dict[int, Fraction] = {}
    offset = Fraction(0)
    for d in sorted(by_div):
        members = by_div[d]
        for place in competition_ranking([a for _, a in members]):
            out[members[place.index][0]] = offset + st * (place.rank - 1)  # rank - 1 teams are higher
        offset = max(out[i] for i, _ in members)
    return [None if i not in out else _out(out[i]) for i in range(n)]


# --------------------------------------------------------------------------------------------
# new teams


def _solve_exact(a: list[list[Fraction]], b: list[Fraction]) -> list[Fraction]:
    """Gauss-Jordan elimination over Fractions (the system is small: one row per new team)."""
    m = len(b)
    rows = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(m):
        p = next((r for r in range(c, m) if rows[r][c] != 0), None)
        if p is None:  # cannot happen once every component touches a known team
            raise InputError("the new-team equations are singular")
        rows[c], rows[p] = rows[p], rows[c]
        piv = rows[c][c]
        rows[c] = [v / piv for v in rows[c]]
        for r in range(m):
            if r != c and rows[r][c] != 0:
                f = rows[r][c]
                rows[r] = [vr - f * vc for vr, vc in zip(rows[r], rows[c])]
    return [rows[i][m] for i in range(m)]


def forml_new_teams_vpdiff(teams: Iterable[object], opponents: Iterable[object], vps_for: Iterable[object],
                           vps_against: Iterable[object], known_teams: Iterable[object],
                           known_vpdiff: Iterable[object]) -> dict[Any, Fraction]:
    """Return the exact Merged VP Difference of every new team, solved jointly.

    The model (seed 000, "Handicapping of new teams"): a team's VP Difference ``d`` is the VP
    margin by which the top team would beat it, so a match between teams i and j is expected to
    end with margin ``VPs_i - VPs_j = d_j - d_i``. Each match a new team played yields the
    estimate ``d_i = d_opp - (VPs_i - VPs_opp)`` (a VP differential relative to the opponent's
    strength); a new team's ``d`` is the average of its estimates. When new teams met each other
    their estimates depend on each other; the seed iterates a trial solution, whose fixed point
    is the solution of the linear system, for every new team i with n_i matches::

        n_i d_i - sum(d_j over its matches against new teams j)
              = sum(d_k over its matches against known teams k) - sum(its VP margins)

    solved here exactly. Each row is ONE match (team, opponent, VPs of team, VPs of opponent) and
    counts for both teams in it; rows between two known teams are ignored; blank rows skipped.
    Team names are compared after stripping spaces (case-sensitive). Every group of new teams
    linked by their matches must have played at least one known team (otherwise InputError).
    Result: ``{team: Fraction}`` in order of first appearance. Negative means stronger than the
    previous season's top team.

    Hand-worked: known A (0) and B (6); new X lost 8-12 to A and beat new Y 13-7; Y drew with B.
    X: 2 d_X = (0 + 4) + (d_Y - 6); Y: 2 d_Y = (6 - 0) + (d_X + 6) -> d_X = 8/3, d_Y = 22/3.

    >>> forml_new_teams_vpdiff(["X", "X", "Y"], ["A", "Y", "B"], [8, 13, 10], [12, 7, 10],
    ...                        ["A", "B"], [0, 6])
    {'X': Fraction(8, 3), 'Y': Fraction(22, 3)}
    """
    rows = match_rows([teams, opponents, vps_for, vps_against], "the team, opponent, VPs for and VPs against columns")
    kt, kv = list(known_teams), list(known_vpdiff)
    if len(kt) != len(kv):
        raise InputError(f"the known teams and their VP differences must have the same length, got {len(kt)} and {len(kv)}")
    known: dict[Any, Fraction] = {}
    for r, (t, v) in enumerate(zip(kt, kv)):
        if _is_blank(t) and _is_blank(v):
            continue
        if _is_blank(t) or _is_blank(v):
            raise InputError(f"known team {shown(t)} with VP difference {shown(v)}: one of them is blank",
                             where=f"known teams, {_row(r)}")
        key = team_key(t)
        if key in known:
            raise InputError(f"known team {shown(key)} is listed twice", where=f"known teams, {_row(r)}")
        known[key] = _bounded(v, "known VP difference", f"known teams, {_row(r)}", FORML_LIMITS["vps"])

    new: dict[Any, int] = {}  # name -> index, first appearance order
    matches = []  # (team_i, team_j, margin of i)
    for r, (t, o, f, a) in rows:
        ti, oi = team_key(t), team_key(o)
        if ti == oi:
            raise InputError(f"team {shown(ti)} is listed as its own opponent", where=_row(r))
        vl = FORML_LIMITS["vps"]
        m = _bounded(f, "VPs for", _row(r), vl) - _bounded(a, "VPs against", _row(r), vl)
        if ti in known and oi in known:
            continue
        for name in (ti, oi):
            if name not in known and name not in new:
                new[name] = len(new)
        matches.append((ti, oi, m))

    names = list(new)
    k = len(names)
    if k > FORML_LIMITS["new_teams"]:
        raise LimitError(f"{k} new teams: at most {FORML_LIMITS['new_teams']} are solved together")
    if k == 0:
        return {}
    # union-find over new-new matches: every component must touch a known team
    parent = list(range(k))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    anchored = [False] * k
    a = [[Fraction(0)] * k for _ in range(k)]
    b = [Fraction(0)] * k
    for ti, oi, m in matches:
        for me, opp, margin in ((ti, oi, m), (oi, ti, -m)):
            if me in known:
                continue
            i = new[me]
            a[i][i] += 1
            b[i] -= margin
            if opp in known:
                b[i] += known[opp]
                anchored[i] = True
            else:
                a[i][new[opp]] -= 1
        if ti in new and oi in new:
            parent[find(new[ti])] = find(new[oi])
    roots_anchored = {find(i) for i in range(k) if anchored[i]}
    loose = [names[i] for i in range(k) if find(i) not in roots_anchored]
    if loose:
        raise InputError(
            f"new team(s) {', '.join(map(str, loose))} played no established team, directly or through "
            "other new teams: their strength cannot be placed on the handicap scale"
        )
    sol = _solve_exact(a, b)
    return {names[i]: sol[i] for i in range(k)}


def forml_new_teams(
    teams: Iterable[object], opponents: Iterable[object], vps_for: Iterable[object], vps_against: Iterable[object],
    known_teams: Iterable[object], known_vpdiff: Iterable[object], *, imps_per_vp: object = 2.75,
    rounding: str = "half_away",
) -> dict[Any, int]:
    """Return handicap IMPs for the teams not in ``known_teams``, from this season's matches.

    Handicap = ``imps_per_vp`` x the new team's VP Difference from :func:`forml_new_teams_vpdiff`
    (``known_vpdiff`` should be the known teams' *Merged* VP Differences), rounded by ``rounding``.
    Returns ``{team: int}`` in order of first appearance (in ``teams``, then ``opponents``).

    >>> forml_new_teams(["X", "X", "Y"], ["A", "Y", "B"], [8, 13, 10], [12, 7, 10], ["A", "B"], [0, 6])
    {'X': 7, 'Y': 20}
    """
    _check_rule(rounding)
    factor = _bounded(imps_per_vp, "IMPs per VP", None, FORML_LIMITS["imps_per_vp"], Fraction(0))
    d = forml_new_teams_vpdiff(teams, opponents, vps_for, vps_against, known_teams, known_vpdiff)
    return {t: forml_round(factor * v, rounding) for t, v in d.items()}


# --------------------------------------------------------------------------------------------
# handicapped match results


@dataclass(frozen=True)
class HandicappedResult:
    """A match result after the handicap difference is added to the higher-handicap team's IMPs.

    ``vp_a``/``vp_b`` are None unless the number of boards was given.

    >>> r = HandicappedResult(38, 40)
    >>> r.margin, r.winner, HandicappedResult(40, 40).winner is None
    (-2, 'b', True)
    """

    imps_a: Number
    imps_b: Number
    vp_a: Fraction | None = None
    vp_b: Fraction | None = None

    @property
    def margin(self) -> Number:
        """Adjusted IMP margin of team A (positive: A won after handicap)."""
        return self.imps_a - self.imps_b

    @property
    def winner(self) -> str | None:
        """``"a"``, ``"b"``, or None for a handicapped draw."""
        m = self.margin
        return "a" if m > 0 else "b" if m < 0 else None


def handicapped_result(imps_a: object, imps_b: object, handicap_a: object, handicap_b: object,
                       boards: object = None) -> HandicappedResult:
    """Apply the handicap difference to a match: the higher-handicap team gets the difference in IMPs.

    adjusted A = imps_a + max(handicap_a - handicap_b, 0), adjusted B likewise (seed 000: handicaps
    offset the expected difference in unadjusted scores). Exact: ints stay ints, floats are read
    via their decimal text. With ``boards``, the adjusted margin is converted to VPs on the WBF
    2013 20-VP scale by :func:`xlbridge.core.teams.vp.vp` (A gets vp(margin), B gets vp(-margin)).

    >>> r = handicapped_result(31, 40, 36, 29)
    >>> r.imps_a, r.imps_b, r.winner
    (38, 40, 'b')
    >>> handicapped_result(50, 40, 0, 10).winner is None
    True
    """
    ia, ib = _exact(imps_a, "IMPs of team A"), _exact(imps_b, "IMPs of team B")
    ha, hb = _exact(handicap_a, "handicap of team A"), _exact(handicap_b, "handicap of team B")
    adj_a = ia + max(ha - hb, Fraction(0))
    adj_b = ib + max(hb - ha, Fraction(0))
    va = vb = None
    if boards is not None:
        nb = _whole(boards, "boards")
        va = vp(_out(adj_a - adj_b), nb)
        vb = vp(_out(adj_b - adj_a), nb)
    return HandicappedResult(_out(adj_a), _out(adj_b), va, vb)
