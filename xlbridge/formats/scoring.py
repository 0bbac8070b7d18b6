"""Score an :class:`~xlbridge.formats.model.Event`: matchpoints, percentages, IMPs, totals, places.

Every rule comes from the core through the top-level names of :mod:`xlbridge`:

- pairs at matchpoints: :func:`xlbridge.matchpoint_session` (Law 78A, Neuberg-factored to the
  largest number of results on a board, artificial scores at their percentage of the top, Law
  12C2) and :func:`xlbridge.pairs_ranking` (exact percentages, ties share the place);
  a Mitchell is ranked one field per direction, a Howell as one field; a session with a Law 12C1(c)
  weighted score (a row's ``outcomes``) by :func:`xlbridge.weighted_session` instead (seed 004);
- pairs at cross-IMPs or Butler: :func:`xlbridge.cross_imps`, :func:`xlbridge.butler`, ranked by
  :func:`xlbridge.pairs_ranking` with a unit top per board (IMPs per board scored);
- teams: the two tables of a match on a board are compared with :func:`xlbridge.imps_array`
  (Law 78B); an artificial score counts :func:`xlbridge.artificial_imps`; a team's total is its
  IMPs (:func:`xlbridge.pairs_ranking` with a unit top per board), its place is by VPs as the teams
  workbook ranks: each match to VPs on the WBF 2013 scale for its length
  (:func:`xlbridge.match_result`, margin rounded once to the nearest IMP), totals ranked exactly
  (``team_standings``; equal totals share the place).

Every traveller score is checked again (contract, declarer, tricks and vulnerability) so an
event built in code gets the same one-line errors as one read from a file.

>>> from xlbridge.formats.model import Board, Event, Result, HOWELL
>>> rows = (Result("1", "2", score=420), Result("3", "4", score=400), Result("5", "6", score=400))
>>> e = score_event(Event(boards=(Board(1, "N", "None", results=rows),)))
>>> [(r.mp_ns, r.mp_ew) for r in e.boards[0].results]
[(Fraction(4, 1), Fraction(0, 1)), (Fraction(1, 1), Fraction(3, 1)), (Fraction(1, 1), Fraction(3, 1))]
>>> [(p.number, p.place, p.tied) for p in e.participants]
[('1', 1, False), ('2', 6, False), ('3', 4, True), ('4', 2, True), ('5', 4, True), ('6', 2, True)]
"""

from __future__ import annotations

from dataclasses import replace
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import xlbridge

from .checks import check_traveller
from .errors import FormatError
from ..core.teams.standings import team_standings
from .model import TEAMS, Board, Event, Participant, natural_key

__all__ = ["score_event"]


def _checked(event: Event) -> list[Board]:
    boards = []
    for b in event.boards:
        vul = b.vulnerable or xlbridge.vulnerability(b.number).name
        locs: list[dict[str, Any]] = [{"element": f"board {b.number}, row {i}"}
                                      for i in range(1, len(b.results) + 1)]
        rows = check_traveller(b.number, b.results, vul, event.movement, event.kind, locs)
        boards.append(replace(b, vulnerable=vul, results=tuple(rows)))
    return boards


def _apply_standings(event: Event, standings_by_field: Mapping[str | None, list[xlbridge.Standing]],
                     boards: Sequence[Board], *, percent: bool) -> Event:
    parts: dict[tuple[str | None, Any], Participant] = {p.key: p for p in event.participants}
    for b in boards:  # every pair on a traveller is a participant
        for r in b.results:
            for side in ("NS", "EW"):
                key = event.pair_key(r, side)
                parts.setdefault(key, Participant(key[1], key[0]))
    for field, standings in standings_by_field.items():
        for s in standings:
            found = (field, s.pair)
            p = parts.get(found)
            if p is None:
                continue
            parts[found] = replace(p, total=s.total, maximum=s.maximum if percent else None,
                                 percentage=s.percentage if percent else None, place=s.rank, tied=s.tied,
                                 boards=s.boards)
    ordered = sorted(parts.values(), key=lambda p: (p.direction or "", natural_key(p.number)))
    return replace(event, participants=tuple(ordered), boards=tuple(boards))


def _rank(event: Event, board_of_row: Sequence[int] | None, ns_pairs: Sequence[str], ew_pairs: Sequence[str],
          mp_ns: Sequence[Fraction | None] | None, mp_ew: Sequence[Fraction | None] | None,
          tops: Sequence[int | None] | None, session: xlbridge.SessionMP | None = None,
          ) -> dict[str | None, list[xlbridge.Standing]]:
    out = {}
    for field in event.fields():
        ns = [p if field in (None, "NS") else None for p in ns_pairs]
        ew = [p if field in (None, "EW") else None for p in ew_pairs]
        if session is not None:
            out[field] = xlbridge.pairs_ranking(session, ns, ew)
        else:
            out[field] = xlbridge.pairs_ranking(board_of_row, ns, ew, mp_ns, mp_ew, tops)
    return out


def score_event(event: Event, *, scale: str = "EBU") -> Event:
    """A new event with every row's matchpoints/percentages (or IMPs) and every pair's total,
    percentage and place filled in (see the module text for the rules and their sources).

    ``scale`` is the matchpoint scale (:data:`xlbridge.MP_SCALES`: ``"EBU"`` 2/1, ``"ACBL"``
    1/0.5).  Raises :class:`FormatError` for a traveller that is wrong or a scoring not known.
    """
    boards = _checked(event)
    if event.kind == TEAMS:
        return _score_teams(event, boards)
    rows = [(b, r) for b in boards for r in b.results]
    entries = [r.score for _, r in rows]
    board_no = [b.number for b, _ in rows]
    ns_pairs = [r.ns for _, r in rows]
    ew_pairs = [r.ew for _, r in rows]
    weighted = any(r.outcomes for _, r in rows)
    if weighted and event.scoring != "MP":
        raise FormatError(f"a weighted score (Law 12C1(c)) is scored at matchpoints only, not {event.scoring!r}")
    if event.scoring == "MP":
        if weighted:  # Law 12C1(c): every combination of the outcomes, exactly (the core's weighted_session)
            s = xlbridge.weighted_session([list(r.outcomes) if r.outcomes else r.score for _, r in rows], board_no,
                                          scale=scale, check_legal=False)
        else:
            s = xlbridge.matchpoint_session(entries, board_no, scale=scale, check_legal=False)
        mps = iter(zip(s.ns, s.ew, s.ns_percent, s.ew_percent))
        boards = [replace(b, results=tuple(replace(r, mp_ns=a, mp_ew=c, pct_ns=d, pct_ew=e)
                                           for r, (a, c, d, e) in zip(b.results, mps))) for b in boards]
        standings = _rank(event, None, ns_pairs, ew_pairs, None, None, None, session=s)
        return _apply_standings(event, standings, boards, percent=True)
    if event.scoring in ("CROSS_IMP", "BUTLER"):
        res = xlbridge.cross_imps(entries, board_no) if event.scoring == "CROSS_IMP" else \
            xlbridge.butler(entries, board_no)
        new = iter(zip(res.ns, res.ew))
        boards = [replace(b, results=tuple(replace(r, imp_ns=a, imp_ew=c) for r, (a, c) in zip(b.results, new)))
                  for b in boards]
        tops = [None if v is None else 1 for v in res.ns]
        standings = _rank(event, board_no, ns_pairs, ew_pairs, list(res.ns), list(res.ew), tops)
        return _apply_standings(event, standings, boards, percent=False)
    raise FormatError(f"cannot score pairs event at {event.scoring!r} (expected MP, CROSS_IMP or BUTLER)")


def _score_teams(event: Event, boards: Sequence[Board]) -> Event:
    """Teams: per board and match, the two tables compared (Law 78B IMPs via the core)."""
    new_boards = []
    v_boards: list[tuple[int, tuple[str, ...]]] = []
    v_a: list[str] = []
    v_b: list[str] = []
    v_ia: list[Fraction] = []
    v_ib: list[Fraction] = []
    v_tops: list[int] = []
    for b in boards:
        rows = list(b.results)
        imp: list[tuple[Fraction, Fraction] | None] = [None] * len(rows)
        by_match: dict[frozenset[str], list[int]] = {}
        for i, r in enumerate(rows):
            by_match.setdefault(frozenset((r.ns, r.ew)), []).append(i)
        for teams, idx in by_match.items():
            if len(idx) != 2 or len(teams) != 2:
                continue
            i, j = idx
            r1, r2 = rows[i], rows[j]
            if (r1.ns, r1.ew) != (r2.ew, r2.ns):
                continue
            a = None  # IMPs of the team sitting N-S at r1
            if isinstance(r1.score, int) and isinstance(r2.score, int):
                a = Fraction(int(xlbridge.imps_array([r1.score - r2.score])[0]))
            elif isinstance(r1.score, xlbridge.Artificial) or isinstance(r2.score, xlbridge.Artificial):
                a = xlbridge.artificial_board_imps(r1.score, r2.score)  # the core's rule (Law 12C2)
            if a is None:
                continue
            imp[i], imp[j] = (a, -a), (-a, a)
            v_boards.append((b.number, tuple(sorted(teams, key=natural_key))))
            v_a.append(r1.ns)
            v_b.append(r1.ew)
            v_ia.append(a)
            v_ib.append(-a)
            v_tops.append(1)
        new_boards.append(replace(b, results=tuple(
            replace(r, imp_ns=None if m is None else m[0], imp_ew=None if m is None else m[1])
            for r, m in zip(rows, imp))))
    standings: dict[str | None, list[xlbridge.Standing]] = {}
    if v_a:
        standings[None] = xlbridge.pairs_ranking(v_boards, v_a, v_b, v_ia, v_ib, v_tops)
    scored = _apply_standings(event, standings, new_boards, percent=False)
    if not v_a:
        return scored
    # the place is by VPs, as the teams workbook's Standings sheet ranks: each match's IMPs (for the first
    # team in number order) rounded once to the nearest IMP, converted on the WBF 2013 scale for the
    # match's length (xlbridge.match_result, as MATCH_RESULT on the Matches sheet), totalled and ranked
    # exactly (team_standings, as TEAM_STANDINGS: equal totals share the place)
    match_imps: dict[tuple[str, ...], list[Fraction]] = {}
    for (_board, pair), ns_team, ns_imps in zip(v_boards, v_a, v_ia):
        match_imps.setdefault(pair, []).append(ns_imps if ns_team == pair[0] else -ns_imps)
    col_a: list[str] = []
    col_b: list[str] = []
    vp_a: list[Fraction] = []
    vp_b: list[Fraction] = []
    imps_a: list[Fraction] = []
    imps_b: list[Fraction] = []
    for (first, second), imps in match_imps.items():
        result = xlbridge.match_result(imps, rounding="nearest")
        col_a.append(first)
        col_b.append(second)
        vp_a.append(result.vp_a)
        vp_b.append(result.vp_b)
        imps_a.append(result.imps_a)
        imps_b.append(result.imps_b)
    by_team = {s.team: s for s in team_standings(col_a, col_b, vp_a, vp_b, imps_a, imps_b)}
    return replace(scored, participants=tuple(
        replace(p, vps=by_team[p.number].vps, place=by_team[p.number].rank, tied=by_team[p.number].tied)
        if p.number in by_team else p for p in scored.participants))
