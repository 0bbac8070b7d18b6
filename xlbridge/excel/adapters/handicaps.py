"""Adapters of the handicap and fairness functions: FORML_*, LEGACY_HANDICAP, HANDICAP_MATCHES, FAIRNESS,
FAIRNESS_BAND (seed 000).

>>> fairness_band(56, 0.01)
[[19, 37]]
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ...core.errors import InputError, XlbridgeError
from ...core.handicap.fairness import check_work, fairness_p_exact, fairness_p_upper_exact, fairness_work
from ...core.handicap.fairness import fairness_band as core_fairness_band
from ...core.handicap.forml import forml_handicaps, forml_new_teams, legacy_handicaps
from ...core.handicap.forml import forml_vpdiff as core_forml_vpdiff
from ...core.handicap.results import handicap_matches as core_handicap_matches
from ...core.handicap.results import handicap_table
from .. import cells as xl
from ..elementwise import Cells, broadcast, elementwise, given
from ..travellers import nonempty, same_length

def _div_avg(divisions: Cells, avg_vps: Cells) -> tuple[list[Any], list[Any]]:
    d, a = xl.vector(divisions, "divisions"), xl.vector(avg_vps, "avg_vps")
    same_length({"divisions": d, "avg_vps": a})
    for i, (x, y) in enumerate(zip(d, a)):
        for v, what in ((x, "divisions"), (y, "avg_vps")):
            err = xl.error_literal(v)
            if err is not None:
                raise InputError(f"{what} holds {err}", where=f"row {i + 1}")
    return d, a


def forml_handicap(divisions: Cells, avg_vps: Cells, imps_per_vp: Fraction | int | None,
                   overlap: int | None) -> list[list[Any]]:
    """Handicap IMPs (whole numbers) per row, a column (xlbridge.core.handicap.forml).

    >>> forml_handicap([1] * 6, [14.0, 14.0, 13.4, 10.0, 5.3, 3.3], None, None)   # seed 000 Table 1, Div 1
    [[0], [0], [3], [18], [40], [49]]
    """
    d, a = _div_avg(divisions, avg_vps)
    return xl.column(forml_handicaps(d, a, **given(imps_per_vp=imps_per_vp, overlap=overlap)))


def forml_vpdiff(divisions: Cells, avg_vps: Cells, merged: bool, overlap: int | None) -> list[list[Any]]:
    """Expected (or Merged) VP difference per row, unrounded, a column (xlbridge.core.handicap.forml).

    >>> r = forml_vpdiff([1] * 6, [14.0, 14.0, 13.4, 10.0, 5.3, 3.3], False, None)   # seed 000 Table 1, Div 1
    >>> [round(x[0], 2) for x in r]
    [0, 0, 1, 6.67, 14.5, 17.83]
    """
    d, a = _div_avg(divisions, avg_vps)
    return xl.column(core_forml_vpdiff(d, a, merged=merged, **given(overlap=overlap)))


def legacy_handicap(divisions: Cells, avg_vps: Cells, step: Fraction | int | None) -> list[list[Any]]:
    """Handicaps of the system Form-L replaced (``step``-IMP steps, 0 or more; chained divisions), a column.

    >>> legacy_handicap([1] * 6, [14.0, 14.0, 13.4, 10.0, 5.3, 3.3], None)   # ties share a rank
    [[0], [0], [12], [18], [24], [30]]
    """
    d, a = _div_avg(divisions, avg_vps)
    return xl.column(legacy_handicaps(d, a, **given(step=step)))


def forml_newteams(teams: Cells, opponents: Cells, vps_for: Cells, vps_against: Cells, known_teams: Cells,
                   known_vpdiff: Cells, imps_per_vp: Fraction | int | None) -> list[list[Any]]:
    """k x 2: each new team and its handicap IMPs, solved jointly (xlbridge.core.handicap.forml).

    >>> forml_newteams(["X", "X", "Y"], ["A", "Y", "B"], [8, 13, 10], [12, 7, 10], ["A", "B"], [0, 6], None)
    [['X', 7], ['Y', 20]]
    """
    cols = {k: xl.vector(v, k) for k, v in (("teams", teams), ("opponents", opponents), ("vps_for", vps_for),
                                             ("vps_against", vps_against))}
    same_length(cols)
    kt, kv = xl.vector(known_teams, "known_teams"), xl.vector(known_vpdiff, "known_vpdiff")
    same_length({"known_teams": kt, "known_vpdiff": kv})
    for k, c in list(cols.items()) + [("known_teams", kt), ("known_vpdiff", kv)]:
        for i, v in enumerate(c):
            err = xl.error_literal(v)
            if err is not None:
                raise InputError(f"{k} holds {err}", where=f"row {i + 1}")
    res = forml_new_teams(cols["teams"], cols["opponents"], cols["vps_for"], cols["vps_against"], kt, kv,
                          **given(imps_per_vp=imps_per_vp))
    return [[xl.to_cell(t), xl.to_cell(h)] for t, h in res.items()]


def fairness(wins: Cells, matches: Cells, upper: bool) -> Any:
    """P(X <= wins) (or, with ``upper`` TRUE, P(X >= wins)) for X ~ Binomial(matches, 1/2), element-wise.

    Exact (xlbridge.core.handicap.fairness), then one float. Seed 000: the higher-ranking team won
    19 of 56, i.e. the higher-handicap team won 37 of 56. The work of the whole call is counted
    before any cell is computed and refused beyond the documented limit (a column of calls cannot
    multiply it).

    >>> round(fairness(19, 56, False), 4), round(fairness(37, 56, True), 4)
    (0.0111, 0.0111)
    """
    (ws, ms), _, _ = broadcast({"wins": wins, "matches": matches})
    pairs: Any = list(zip(ws, ms))
    try:
        pairs = set(pairs)  # repeated cells are computed once
    except TypeError:
        pass
    check_work(sum(fairness_work(m, w) for w, m in pairs if xl.error_literal(w) is None and xl.error_literal(m) is None))
    fn = fairness_p_upper_exact if upper else fairness_p_exact
    return elementwise(lambda wins, matches: fn(wins, matches), {"wins": wins, "matches": matches},
                       blank_if=("wins", "matches"))


def fairness_band(matches: Cells, tail: Cells) -> list[list[Any]]:
    """n x 2: for each number of matches, the fewest and most wins of the band excluding ``tail`` at each end.

    One cell gives 1 x 2; a column of n match counts gives n x 2 (one call per band line), with
    blank rows left blank, an error cell passed on and an unreadable count (``-3``, ``6.5``,
    text) giving ``#VALUE!`` in its row. A bad ``tail`` stops the call (it applies to every row).

    >>> fairness_band(56, 0.01)
    [[19, 37]]
    >>> fairness_band([[10.0], [None], [56.0], ["ten"]], 0.25)
    [[4, 6], [None, None], [25, 31], [ExcelError('#VALUE!'), ExcelError('#VALUE!')]]
    """
    t = xl.optional(tail, None)
    ms = nonempty(xl.vector(matches, "matches"), "matches")
    core_fairness_band(0, t)  # check the tail once, before any row
    distinct = {m for m in ms if xl.error_literal(m) is None and not xl.is_blank(m)}
    check_work(sum(fairness_work(m) for m in distinct))  # each distinct count is computed once
    memo: dict[Any, list[Any]] = {}
    out: list[list[Any]] = []
    for m in ms:
        err = xl.error_literal(m)
        if err is not None or xl.is_blank(m):
            out.append([err, err])
            continue
        if m not in memo:
            try:
                memo[m] = list(core_fairness_band(xl.as_int(m, "matches", minimum=0), t))
            except XlbridgeError:
                memo[m] = [xl.VALUE, xl.VALUE]
        out.append(list(memo[m]))
    return out


def handicap_matches(team_a: Cells, team_b: Cells, imps_a: Cells, imps_b: Cells, teams: Cells, handicaps: Cells,
                     typed_a: Cells, typed_b: Cells, more: Cells) -> list[list[Any]]:
    """n x 6 per match row: Handicap A, Handicap B, Handicapped IMPs A, Handicapped IMPs B, Winner, and what
    the higher-handicap team did (won, lost, draw, equal handicaps) (xlbridge.core.handicap.results).

    ``teams``/``handicaps``: the handicap table (a Handicaps sheet's Team and Handicap IMPs columns);
    ``more``: an optional second table of two columns, team and handicap (the new teams'); ``typed_a``,
    ``typed_b``: optional handicaps typed for a match instead of the tables'. Blank rows stay blank.

    >>> handicap_matches(["Eroes", "Dream", None], ["Lambs", "Lambs", None], [60, 52, None], [20, 44, None],
    ...                  ["Eroes", "Dream", "Lambs"], [0, 73, 79], None, None, None)
    [[0, 79, 60, 99, 'Lambs', 'won'], [73, 79, 52, 50, 'Dream', 'lost'], [None, None, None, None, None, None]]
    """
    cols = {k: xl.vector(v, k) for k, v in (("team_a", team_a), ("team_b", team_b), ("imps_a", imps_a),
                                             ("imps_b", imps_b))}
    typed = {k: (None if xl.optional(v) is None else xl.vector(v, k)) for k, v in (("typed_a", typed_a),
                                                                                   ("typed_b", typed_b))}
    same_length({**cols, **typed})
    for k, c in list(cols.items()) + [(k, c) for k, c in typed.items() if c is not None]:
        for i, v in enumerate(c):
            err = xl.error_literal(v)
            if err is not None:
                raise InputError(f"{k} holds {err}", where=f"row {i + 1}")
    table = handicap_table(xl.vector(teams, "teams"), xl.vector(handicaps, "handicaps"))
    if xl.optional(more) is not None:
        rows = [list(r) + [None] * (2 - len(r)) for r in xl.grid(more)]
        for k, v in handicap_table([r[0] for r in rows], [r[1] for r in rows]).items():
            if k in table:
                raise InputError(f"team {xl.shown_cell(k)} is in both handicap tables")
            table[k] = v
    res = core_handicap_matches(cols["team_a"], cols["team_b"], cols["imps_a"], cols["imps_b"], table,
                                typed["typed_a"], typed["typed_b"])
    return [[None] * 6 if m is None else
            [xl.to_cell(m.handicap_a), xl.to_cell(m.handicap_b), xl.to_cell(m.imps_a), xl.to_cell(m.imps_b),
             xl.to_cell(m.winner), m.higher] for m in res]
