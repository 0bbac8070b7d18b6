"""Score an :class:`~xlbridge.formats.model.Event`: matchpoints, percentages, IMPs, totals, places.

Every rule comes from the core through the top-level names of :mod:`xlbridge`:

- pairs at matchpoints: :func:`xlbridge.matchpoint_session` (Law 78A, Neuberg-factored to the
  event's expected results per board, else the largest number of results on a board; artificial scores at
  their percentage of the top, Law 12C2, or by the event's ``"session"`` rule) and :func:`xlbridge.pairs_ranking`
  (exact percentages, ties share the place): as a pairs workbook's parameters state them;
  a Mitchell is ranked one field per direction, a Howell as one field; a session with a Law 12C1(c)
  weighted score (a row's ``outcomes``) by :func:`xlbridge.weighted_session` instead (seed 004);
- pairs at cross-IMPs or Butler: :func:`xlbridge.cross_imps`, :func:`xlbridge.butler`, ranked by
  :func:`xlbridge.pairs_ranking` with a unit top per board (IMPs per board scored);
- teams: the two tables of a match on a board are compared with :func:`xlbridge.imps_array`
  (Law 78B); an artificial score counts :func:`xlbridge.artificial_imps`; a Law 12C1(c) weighted
  score at one table (a row's ``outcomes``: the teams workbook's room 1) counts
  :func:`xlbridge.weighted_imps` against the other room (each outcome IMPed, then weighted; exact,
  as WEIGHTED_IMPS on the workbook's Boards sheet); a team's total is its
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

import math
from dataclasses import replace
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, TypeAlias

import xlbridge

from ..core.errors import ExpectedResultsError
from ..core.pairs.standings import ARTIFICIAL_RULES
from ..core.vocabulary import FILE_SCALE, Direction, Scale, Scoring
from .checks import check_traveller
from .errors import FormatError
from ..core.teams.standings import team_standings
from .model import TEAMS, Board, Event, Participant, Result, natural_key

__all__ = ["score_event", "match_results", "team_matches", "Match"]


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
    played: set[tuple[str | None, Any]] = set()
    for b in boards:  # every pair on a traveller is a participant
        for r in b.results:
            for side in Direction:
                key = event.pair_key(r, side)
                played.add(key)
                parts.setdefault(key, Participant(key[1], key[0]))
    if played:  # (a pair or team listed but on no traveller is in no ranking: left out, as the workbook leaves it)
        parts = {key: p for key, p in parts.items() if key in played}
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


def _shown_apart(event: Event, scale: str) -> tuple[str, ...]:
    """The notes naming each matchpoint cell of a pairs workbook's row (:attr:`Event.shown_mp`) that shows other
    matchpoints than its row's, scored here on ``scale`` (the cell's own shown on the book's scale, converted: the
    ACBL scale's matchpoints are half the EBU scale's): a value typed over it, or a book not recalculated since its
    inputs changed. The site and the files use the row's. A blank cell, an error or text (a mistaken row, named by
    its reading) is not compared."""
    if not event.shown_mp:
        return ()
    ratio = Fraction(Scale.parse(event.scale or FILE_SCALE).denominator, Scale.parse(scale).denominator)
    rows = {(b.number, r.ns, r.ew): r for b in event.boards for r in b.results}
    notes = []
    for board, ns, ew, cells in event.shown_mp:
        r = rows.get((board, ns, ew))
        if r is None:
            continue
        for (where, value), mp in zip(cells, (r.mp_ns, r.mp_ew)):
            if (mp is None or isinstance(value, bool) or not isinstance(value, (int, float))
                    or not math.isfinite(value)):
                continue
            if abs(Fraction(value) * ratio - mp) > Fraction(1, 10 ** 6):
                got = f"{float(mp / ratio):.2f}".rstrip("0").rstrip(".")
                notes.append(f"{where}: shows {value:g}, not the row's matchpoints ({got}); not used: the site and "
                             f"the files use the row's (recalculate the book, or copy the cell of another row back "
                             f"into it)")
    if len(notes) > _MOST_SHOWN:  # (a book not recalculated: one line for the cells past the first)
        more = len(notes) - _MOST_SHOWN
        notes[_MOST_SHOWN:] = [f"and {more:,} more matchpoint cell{'s' if more > 1 else ''} showing other "
                               f"matchpoints than their rows' (recalculate the book)"]
    return tuple(notes)


#: the matchpoint cells named one by one in the notes of :func:`_shown_apart`; the others counted in one line
_MOST_SHOWN = 3


def _rank(event: Event, board_of_row: Sequence[int] | None, ns_pairs: Sequence[str], ew_pairs: Sequence[str],
          mp_ns: Sequence[Fraction | None] | None, mp_ew: Sequence[Fraction | None] | None,
          tops: Sequence[int | None] | None, session: xlbridge.SessionMP | None = None,
          switched: Sequence[bool] = (),
          ) -> dict[str | None, list[xlbridge.Standing]]:
    """{field: its standings}: in a Mitchell each field ranks the pairs of its own, whichever seats they sat in (on an
    arrow-switched row, ``switched``, the pair sitting N-S is of the E-W field: it scores the N-S seat's
    matchpoints there, as the workbook's Ranking scores it: :data:`xlbridge.core.pairs.standings.MOVEMENTS`)."""
    out = {}
    flip = list(switched) or [False] * len(ns_pairs)
    for field in event.fields():
        ns = [p if field is None or (Direction.EW if f else Direction.NS) == field else None
              for p, f in zip(ns_pairs, flip)]
        ew = [p if field is None or (Direction.NS if f else Direction.EW) == field else None
              for p, f in zip(ew_pairs, flip)]
        if session is not None:
            out[field] = xlbridge.pairs_ranking(session, ns, ew, artificial=event.artificial or ARTIFICIAL_RULES[0])
        else:
            out[field] = xlbridge.pairs_ranking(board_of_row, ns, ew, mp_ns, mp_ew, tops)
    return out


def score_event(event: Event, *, scale: str | None = None) -> Event:
    """A new event with every row's matchpoints/percentages (or IMPs) and every pair's total,
    percentage and place filled in (see the module text for the rules and their sources).

    ``scale`` is the matchpoint scale (:data:`xlbridge.MP_SCALES`: ``"EBU"`` 2/1, ``"ACBL"``
    1/0.5); None: the event's own (:attr:`Event.scale`, a workbook's ``Scale``), else ``"EBU"``, the scale
    of the matchpoints PBN and USEBIO carry (:data:`xlbridge.core.vocabulary.FILE_SCALE`).
    Raises :class:`FormatError` for a traveller that is wrong or a scoring not known.
    """
    if scale is None:
        scale = event.scale or FILE_SCALE
    boards = _checked(event)
    if event.kind == TEAMS:
        return _score_teams(event, boards)
    rows = [(b, r) for b in boards for r in b.results]
    entries = [r.score for _, r in rows]
    board_no = [b.number for b, _ in rows]
    ns_pairs = [r.ns for _, r in rows]
    ew_pairs = [r.ew for _, r in rows]
    weighted = any(r.outcomes for _, r in rows)
    if weighted and event.scoring != Scoring.MP:
        raise FormatError(f"a weighted score (Law 12C1(c)) is scored at matchpoints only, not {event.scoring!r}")
    if event.scoring == Scoring.MP:
        try:
            if weighted:  # Law 12C1(c): every combination of the outcomes, exactly (the core's weighted_session)
                s = xlbridge.weighted_session([list(r.outcomes) if r.outcomes else r.score for _, r in rows],
                                              board_no, scale=scale, check_legal=False, expected=event.expected)
            else:
                s = xlbridge.matchpoint_session(entries, board_no, scale=scale, check_legal=False,
                                                expected=event.expected)
        except ExpectedResultsError as exc:  # (the parameter's mistake: named at its cell, as recalc names it)
            if event.expected_cell is None:
                raise
            raise FormatError(str(exc), where=event.expected_cell) from None
        mps = iter(zip(s.ns, s.ew, s.ns_percent, s.ew_percent))
        boards = [replace(b, results=tuple(replace(r, mp_ns=a, mp_ew=c, pct_ns=d, pct_ew=e)
                                           for r, (a, c, d, e) in zip(b.results, mps))) for b in boards]
        standings = _rank(event, None, ns_pairs, ew_pairs, None, None, None, session=s,
                          switched=[r.switched for _, r in rows])
        scored = _apply_standings(event, standings, boards, percent=True)
        shown = _shown_apart(scored, scale)
        return replace(scored, notes=scored.notes + shown) if shown else scored
    if event.scoring in ("CROSS_IMP", "BUTLER"):
        res = xlbridge.cross_imps(entries, board_no) if event.scoring == "CROSS_IMP" else \
            xlbridge.butler(entries, board_no)
        new = iter(zip(res.ns, res.ew))
        boards = [replace(b, results=tuple(replace(r, imp_ns=a, imp_ew=c) for r, (a, c) in zip(b.results, new)))
                  for b in boards]
        tops = [None if v is None else 1 for v in res.ns]
        standings = _rank(event, board_no, ns_pairs, ew_pairs, list(res.ns), list(res.ew), tops,
                          switched=[r.switched for _, r in rows])
        return _apply_standings(event, standings, boards, percent=False)
    raise FormatError(f"cannot score pairs event at {event.scoring!r} (expected MP, CROSS_IMP or BUTLER)")


def _weighted_board(board: int, r1: Result, r2: Result) -> Fraction | None:
    """The IMPs of the team sitting N-S at ``r1`` on a board with a Law 12C1(c) weighted score at one
    table: the core's :func:`xlbridge.weighted_imps` (each outcome IMPed against the other room's N-S
    score, then weighted; exact, as the teams workbook's WEIGHTED_IMPS), from the weighted table's
    side; ``None`` while the other room has no score."""
    if r1.outcomes and r2.outcomes:
        raise FormatError("a weighted score (Law 12C1(c)) at both tables of a match cannot be scored (the teams "
                          "workbook weights room 1 only)", element=f"board {board}, {r1.ns} v {r1.ew}")
    weighted, other, sign = (r1, r2, 1) if r1.outcomes else (r2, r1, -1)
    if isinstance(other.score, xlbridge.Artificial):
        raise FormatError("a weighted score (Law 12C1(c)) cannot be played against an artificial score:",
                          element=f"board {board}, {other.ns} v {other.ew}", value=str(other.score))
    if not isinstance(other.score, int):
        return None
    try:
        return sign * xlbridge.weighted_imps(list(weighted.outcomes), other.score)
    except xlbridge.XlbridgeError as exc:
        raise FormatError(str(exc).rstrip("."), element=f"board {board}, {weighted.ns} v {weighted.ew}") from None


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
            if r1.outcomes or r2.outcomes:  # Law 12C1(c): each outcome IMPed, then weighted (exact)
                a = _weighted_board(b.number, r1, r2)
            elif isinstance(r1.score, int) and isinstance(r2.score, int):
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
    # the place is by VPs, as the teams workbook's Standings sheet ranks: each match to VPs (match_results),
    # totalled and ranked exactly (team_standings, as TEAM_STANDINGS: equal totals share the place)
    results = match_results(scored)
    col_a = [a for a, _ in results]
    col_b = [b for _, b in results]
    vp_a = [r.vp_a for r in results.values()]
    vp_b = [r.vp_b for r in results.values()]
    imps_a = [r.imps_a for r in results.values()]
    imps_b = [r.imps_b for r in results.values()]
    by_team = {s.team: s for s in team_standings(col_a, col_b, vp_a, vp_b, imps_a, imps_b)}
    return replace(scored, participants=tuple(
        replace(p, vps=by_team[p.number].vps, place=by_team[p.number].rank, tied=by_team[p.number].tied)
        if p.number in by_team else p for p in scored.participants))


def match_results(event: Event, *, scale: object = None) -> dict[tuple[str, str], xlbridge.MatchResult]:
    """Each match of a scored teams event (:func:`score_event`), keyed ``(team a, team b)`` with team a
    the lower number, in order of team numbers: :func:`xlbridge.match_result` over the IMPs of team a
    on the boards scored at both tables (a weighted board at its exact weighted IMPs), the margin
    rounded once to the nearest IMP before the VP look-up on the VP scale ``scale`` (a name of
    :data:`xlbridge.VP_SCALES`; default the WBF 2013 scale) for the match's length, as MATCH_RESULT on the teams workbook's Matches sheet (``"nearest"``). The length is the Matches
    sheet's Boards (``event.match_lengths``) where the event came from a teams workbook, so a board still
    waiting for a room's score leaves the scale where the workbook has it; otherwise the boards scored.

    Seed 004's Swiss match (the example teams workbook's match 1): +8 IMPs on six boards (620 v 620,
    420 v 170, -100 v -140, 110 v 140, -620 v -650, 650 v 620: 0, 6, 1, -1, 1, 1) and 60 % of 420, 40 % of
    -50 against 400 (0.6 x 1 + 0.4 x -10 = -3.4 IMPs) on board 1: 9 - 4.4, a margin of 4.6 rounded once
    to 5, is 12.18 - 7.82 VPs over 7 boards.

    >>> from fractions import Fraction as F
    >>> from xlbridge.formats.model import Board, Event, Result, TEAMS
    >>> w = Result("1", "2", score=420, outcomes=((420, F(3, 5)), (-50, F(2, 5))))
    >>> rooms = [(420, 400), (620, 620), (420, 170), (-100, -140), (110, 140), (-620, -650), (650, 620)]
    >>> rows = [(w if k == 1 else Result("1", "2", score=s), Result("2", "1", score=o))
    ...         for k, (s, o) in enumerate(rooms, start=1)]
    >>> e = score_event(Event(kind=TEAMS, scoring="IMP", boards=[Board(k, results=r) for k, r in enumerate(rows, 1)]))
    >>> e.boards[0].results[0].imp_ns, e.boards[0].results[1].imp_ns
    (Fraction(-17, 5), Fraction(17, 5))
    >>> r = match_results(e)[("1", "2")]
    >>> r.imps_a, r.imps_b, r.margin, float(r.vp_a), float(r.vp_b)
    (Fraction(9, 1), Fraction(22, 5), Fraction(5, 1), 12.18, 7.82)
    """
    imps: dict[tuple[str, str], list[Fraction]] = {}
    lengths = {(a, c): n for a, c, n in event.match_lengths}
    for b in event.boards:
        for r in b.results:
            a, c = sorted((r.ns, r.ew), key=natural_key)
            if r.ns == a and r.imp_ns is not None:  # each board once: the row where team a sits N-S
                imps.setdefault((a, c), []).append(r.imp_ns)
    return {k: xlbridge.match_result(v, lengths.get(k), rounding="nearest", scale=scale)
            for k, v in sorted(imps.items(), key=lambda kv: (natural_key(kv[0][0]), natural_key(kv[0][1])))}


Match: TypeAlias = "tuple[str, str, dict[int, tuple[Result | None, Result | None]]]"


def team_matches(event: Event, name: str | None = None) -> list[Match]:
    """The matches of a teams event: ``[(team a, team b, {board: (room-1 row, room-2 row)})]``, team a
    the lower number (it sits N-S in room 1), in order of team numbers.

    A board a pair of teams played at one table only keeps ``None`` for the other room.
    """
    matches: dict[tuple[str, str], dict[int, list[Result | None]]] = {}
    for b in sorted(event.boards, key=lambda b: b.number):
        for r in b.results:
            a, c = sorted((r.ns, r.ew), key=natural_key)
            if a == c:
                raise FormatError(f"board {b.number}: team {a} cannot play against itself", where=name)
            rooms = matches.setdefault((a, c), {}).setdefault(b.number, [None, None])
            room = 0 if r.ns == a else 1
            if rooms[room] is not None:
                raise FormatError(f"board {b.number}: teams {a} and {c} meet twice in the same seats", where=name)
            rooms[room] = r
    return [(a, c, {k: (v[0], v[1]) for k, v in boards.items()})
            for (a, c), boards in sorted(matches.items(), key=lambda kv: (natural_key(kv[0][0]), natural_key(kv[0][1])))]
