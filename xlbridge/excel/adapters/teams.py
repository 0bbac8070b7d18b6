"""Adapters of the teams functions: IMPS, CROSS_IMPS, BUTLER, BUTLER_DATUM, VP, WEIGHTED_IMPS, MATCH_RESULT.

>>> cross_imps([[420.0], [400.0], [170.0], [-50.0]], None, False)[0]
[17, -17]
"""

from __future__ import annotations

from typing import Any

from ...core.contract import check_score
from ...core.entries import NOT_PLAYED, Artificial, parse_entry
from ...core.errors import InputError, XlbridgeError
from ...core.ranking import format_rank
from ...core.teams.butler import butler as core_butler
from ...core.teams.butler import butler_datum as core_butler_datum
from ...core.teams.imps import cross_imps as core_cross_imps
from ...core.teams.imps import imps as core_imps
from ...core.teams.imps import imps_array
from ...core.teams.standings import team_standings as core_team_standings
from ...core.teams.teams import artificial_board_imps as core_artificial_board_imps
from ...core.teams.teams import match_result as core_match_result
from ...core.teams.teams import weighted_imps as core_weighted_imps
from ...core.teams.vp import vp as core_vp
from ...core.template_contract import BOARD_INPUTS
from ...core.travellerrow import (Mistake, board_row_mistake, match_row_mistake, reason_text, room_missing,
                                   room_not_played, score_on_board)
from .. import cells as xl
from ..elementwise import Cells, elementwise, given, is_listlike, number_line, shaped
from ..travellers import WeightedColumns, read_traveller, read_weighted, same_length

def imps(difference: Cells) -> Any:
    """IMPs for a points difference (Law 78B), element-wise (xlbridge.core.teams.imps).

    A column of plain whole numbers is converted in one vectorised look-up.

    >>> imps([[20], [-430], [4000]])
    [[1], [-10], [24]]
    """
    line = number_line(difference, "difference")
    if line is not None and line[0].whole.all():
        return shaped(imps_array(line[0].ints()), line[1])
    return elementwise(lambda difference: core_imps(xl.as_int(difference, "difference")), {"difference": difference},
                       blank_if=("difference",))


def cross_imps(scores: Cells, boards: Cells, average: bool) -> list[list[Any]]:
    """n x 2 N-S / E-W cross-IMPs per row (xlbridge.core.teams.imps.cross_imps).

    Law 78B by hand: 420 against 400, 170, -50 is 1 + 6 + 10 = 17 IMPs.

    >>> cross_imps([420, 400, 170, -50], None, False)
    [[17, -17], [15, -15], [-6, 6], [-26, 26]]
    """
    t = read_traveller(scores, boards)
    res = core_cross_imps(t.entries(), t.board_cells(), average=average, check_legal=False)
    return t.mask(xl.to_cells(list(zip(res.ns, res.ew))), 2)


def butler(scores: Cells, boards: Cells, trim: str | None, rounding: str | None) -> list[list[Any]]:
    """n x 2 N-S / E-W IMPs against the Butler datum (xlbridge.core.teams.butler).

    Four scores, nothing trimmed: mean 235, datum 240; 420 - 240 = 180 is 5 IMPs (Law 78B).

    >>> butler([420, 400, 170, -50], None, None, None)
    [[5, -5], [4, -4], [-2, 2], [-7, 7]]
    """
    t = read_traveller(scores, boards)
    res = core_butler(t.entries(), t.board_cells(), check_legal=False, **given(trim=trim, rounding=rounding))
    return t.mask(xl.to_cells(list(zip(res.ns, res.ew))), 2)


def butler_datum(scores: Cells, trim: str | None, rounding: str | None) -> Any:
    """The Butler datum of one board (xlbridge.core.teams.butler); NP, blank and A60/40 cells are ignored.

    An impossible score (no contract gives it) stops the call with its row.

    >>> butler_datum([[420], [400], ["NP"], [170], [-50]], None, None)   # mean 235 -> 240 (a final 5 to the even ten)
    240
    >>> butler_datum([[420], [400], [170], [-50]], 1.0, None)             # drop one at each end: 285 -> 280
    280
    """
    s = xl.vector(scores, "scores")
    for v in s:
        err = xl.error_literal(v)
        if err is not None:
            return err
    return xl.to_cell(core_butler_datum(s, **given(trim=trim, rounding=rounding)))


def vp(margin: Cells, boards: Cells, scale: str | None = None) -> Any:
    """VPs on the VP scale ``scale`` (a registered name; blank: the WBF 2013 20-VP scale, published table),
    element-wise over ``margin``.

    >>> vp(5, 7), vp(5, 7, "WBF 2013")
    (12.18, 12.18)
    """
    return elementwise(lambda margin, boards: core_vp(xl.as_number(margin, "margin"), boards, scale=scale),
                       {"margin": margin, "boards": boards}, blank_if=("margin",))


#: What WEIGHTED_IMPS shows for a board with one room's score only.
INCOMPLETE = "incomplete"


#: the teams Boards sheet's headers of a weighted board's room-1 cells: its score, the other outcomes, the weights
#: (core.template_contract), by which a row's mistake is named at its input cell
TEAMS_WEIGHTED = WeightedColumns(BOARD_INPUTS[2:5], BOARD_INPUTS[5:8])


def weighted_imps(scores: Cells, weights: Cells, other: Cells, match: Cells = None, board: Cells = None,
                  matches: Cells = None) -> Any:
    """IMPs of a weighted result against the other room, per row (xlbridge.core.teams.teams.weighted_imps).

    Seed 004: 60 % of 420 and 40 % of -50 against 400 is 0.6 x 1 + 0.4 x (-10) = -3.4 IMPs. A row
    with one room's score only is ``"incomplete"`` (MATCH_RESULT then refuses the match until both
    rooms are in); a row with neither is blank. Given the rows' match and board (a template's Boards sheet), a
    row with one room only is a row's mistake instead, ``#VALUE!`` naming the empty room
    (:func:`xlbridge.core.travellerrow.room_missing`), left out of its match as the formats' reader refuses it. Given the rows' ``match`` and ``board`` (and the Matches sheet's
    ``matches``), a row of a match not on that sheet, a board that is no board number or one listed twice in its
    match is ``#VALUE!`` naming the input column to put right (:func:`xlbridge.core.travellerrow.board_row_mistake`),
    as a score that is none is (a row's mistake: MATCH_RESULT leaves it out).

    >>> weighted_imps([[420, -50]], [[0.6, 0.4]], 400)
    -3.4
    >>> weighted_imps([[420], [None], [None]], None, [[None], [400], [None]])
    [['incomplete'], ['incomplete'], [None]]
    >>> r = weighted_imps([[420], [420]], None, [[420], [420]], [[2], [2]], [[1], [1]], [[1], [2]])
    >>> r[0], r[1][0].reason
    ([0], 'board 1 of match 2 is listed twice (column Board)')

    The rows turned into columns (``other`` a row of several cells, ``scores`` and ``weights`` their outcomes one
    row each) give the IMPs as a row: the Matches sheet reads each board's IMPs this way from the rows' inputs, a
    call of one row (the formula engine takes a function's result of more rows than its cell's range for a table
    cut short; ``xlbridge recalc``), never from the IMPs A cells in view.

    >>> weighted_imps([[420, 620], [None, None]], None, [[420, 600]])
    [[0, 1]]
    """
    if is_listlike(other) and len(other) == 1 and is_listlike(other[0]) and len(other[0]) > 1:  # the rows turned
        def turn(c: Cells) -> Cells:
            return c if c is None or not is_listlike(c) else [list(r) for r in zip(*c)]

        found = weighted_imps(turn(scores), turn(weights), turn(other), turn(match), turn(board), matches)
        return [[row[0] for row in found]]
    w = read_weighted(scores, weights, None, columns=TEAMS_WEIGHTED)
    oth = xl.vector(other, "other")
    if len(oth) == 1 and len(w.outcomes) > 1:
        oth = oth * len(w.outcomes)
    same_length({"scores": w.outcomes, "other": oth})
    ids: tuple[list[Any], list[Any], set[int] | None, set[tuple[int, int]]] | None = None
    if match is not None or board is not None:  # (the rows' match and board: given by the template's formula)
        ms, bs = xl.vector(match, "match"), xl.vector(board, "board")
        same_length({"scores": w.outcomes, "match": ms, "board": bs})
        known = None if xl.optional(matches) is None else {
            int(v) for v in xl.vector(matches, "matches")
            if isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and v == int(v)}
        ids = (ms, bs, known, set())
    out: list[list[Any]] = []
    for i, (outs, o) in enumerate(zip(w.outcomes, oth)):
        if ids is not None and not (outs is None and xl.is_blank(o) and i not in w.errors):
            mistake = board_row_mistake(ids[0][i], ids[1][i], ids[2], ids[3])
            if mistake is not None:
                out.append([xl.ExcelError("#VALUE!", reason_text(mistake))])
                continue
        err = w.errors.get(i) or xl.error_literal(o)
        if err is not None:
            out.append([err])
            continue
        if outs is None or xl.is_blank(o):  # one room only: shown, never dropped in silence
            if ids is not None and not (outs is None and xl.is_blank(o)):  # (a template's row: named at the empty
                missing = room_missing(outs, None if xl.is_blank(o) else o, (BOARD_INPUTS[2], BOARD_INPUTS[8]))
                if missing is not None:  # room, left out of its match as any row's mistake)
                    out.append([xl.ExcelError("#VALUE!", reason_text(missing))])
                    continue
            out.append([None if outs is None and xl.is_blank(o) else INCOMPLETE])
            continue
        try:
            oe = parse_entry(o, where=f"row {i + 1}")
            if isinstance(oe, int):
                check_score(oe, None, where=f"row {i + 1}")
        except XlbridgeError as exc:
            out.append([xl.ExcelError("#VALUE!", reason_text(Mistake(BOARD_INPUTS[8], str(exc))))])
            continue
        unplayed = room_not_played(oe, o, BOARD_INPUTS[8])  # (NP is no room's result: named at the room, as the
        if outs is NOT_PLAYED:  # formats name it)
            unplayed = room_not_played(outs, xl.grid(scores)[i][0], BOARD_INPUTS[2])
        if unplayed is not None:
            out.append([xl.ExcelError("#VALUE!", reason_text(unplayed))])
            continue
        if ids is not None:  # (a template's row: each room's score at its board's vulnerability, as the formats)
            firsts = [(BOARD_INPUTS[2], outs)] if not isinstance(outs, list) else [
                (BOARD_INPUTS[2 + k], s) for k, (s, _w) in enumerate(outs)]
            unmade = next((m for m in (score_on_board(s, ids[1][i], col) for col, s in firsts) if m is not None),
                          None) or score_on_board(oe, ids[1][i], BOARD_INPUTS[8], o)
            if unmade is not None:
                out.append([xl.ExcelError("#VALUE!", reason_text(unmade))])
                continue
        try:
            if isinstance(outs, Artificial) or isinstance(oe, Artificial):
                out.append([xl.to_cell(core_artificial_board_imps(outs, oe))])
                continue
            pairs = outs if isinstance(outs, list) else [(outs, 1)]
            out.append([xl.to_cell(core_weighted_imps(pairs, oe))])
        except XlbridgeError as exc:
            out.append([xl.ExcelError("#VALUE!", str(exc))])
    return out[0][0] if len(out) == 1 and not is_listlike(other) else out


def match_result(board_imps: Cells, boards: int | None, rounding: str | None,
                 scale: str | None = None) -> list[list[Any]]:
    """1 x 4: IMPs A, IMPs B, VP A, VP B of a match from its board IMPs (xlbridge.core.teams.teams).

    ``rounding`` (optional) rounds the final IMP margin once before the VP look-up, as the
    regulations do for weighted boards ("nearest"); blank keeps it exact. ``scale`` (optional) names the VP
    scale (blank: the WBF 2013 scale).

    Seed 004: margin 10 - 5 = 5 IMPs over 7 boards is 12.18 VP on the WBF 2013 scale.

    >>> match_result([3, 0, 5, 2, -2, 0, -3], 7, None)
    [[10, 5, 12.18, 7.82]]

    Without the number of boards, the boards scored are the match's length (the formats' reading of a Matches row
    whose Boards is blank): the seven of a column holding other matches' rows as blanks.

    >>> match_result([3, 0, 5, 2, -2, 0, -3] + [""] * 50, None, None)
    [[10, 5, 12.18, 7.82]]

    A match with no board scored yet has no result (not a draw):

    >>> match_result(["", ""], 7, None)
    [[None, None, None, None]]
    >>> match_result([3, "incomplete"], 2, None)
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: row 2: a board of the match has one room's score only: no result until both rooms are in
    """
    cells = list(xl.vector(board_imps, "board_imps"))  # (a copy: a left-out row is blanked here only)
    for i, v in enumerate(cells):
        err = xl.error_literal(v)
        if err is not None and err != "#VALUE!":
            raise InputError(f"the IMPs cell holds {err}", where=f"row {i + 1}")
        if err is not None:  # a board row's mistake (WEIGHTED_IMPS: named at its input cell): left out, as a
            cells[i] = None  # board never typed; every other board keeps its result
            continue
        if isinstance(v, str) and v.strip().lower() == INCOMPLETE:
            raise InputError("a board of the match has one room's score only: no result until both rooms are in",
                             where=f"row {i + 1}")
    vals = [None if xl.is_blank(v) else xl.as_number(v, "board_imps", where=f"row {i + 1}")
            for i, v in enumerate(cells)]
    if all(v is None for v in vals):  # (no board scored yet: no result, as the formats have none; never 10 - 10)
        return [[None, None, None, None]]
    if boards is None:  # (no number of boards given: the boards scored set the VP scale, as the formats read it)
        boards = sum(1 for v in vals if v is not None)
    res = core_match_result(vals, boards, rounding=rounding, scale=scale)
    return [[xl.to_cell(v) for v in (res.imps_a, res.imps_b, res.vp_a, res.vp_b)]]


def team_standings(team_a: Cells, team_b: Cells, vps: Cells, imps: Cells) -> list[list[Any]]:
    """k x 5 standings: Team, Played, VPs, IMP difference, Rank, by exact VP total (xlbridge.core.teams.standings).

    ``vps`` and ``imps`` are the matches' two-column VP A/VP B and IMPs A/IMPs B ranges (the Matches
    sheet); a match row without VPs (no board scored yet, or a message instead: named where it is) is not
    counted, nor a match of one team or against itself (named at its cell by every command).

    >>> team_standings(["A", "C"], ["B", "D"], [[12.18, 7.82], [6.29, 13.71]], [[9, 4.4], [1, 7]])[:2]
    [['D', 1, 13.71, 6, '1'], ['A', 1, 12.18, 4.6, '2']]
    >>> team_standings(["A", "C"], ["B", "C"], [[12.18, 7.82], [10, 10]], None)  # (C against C: left out)
    [['A', 1, 12.18, 0, '1'], ['B', 1, 7.82, 0, '2']]
    """
    a, b = list(xl.vector(team_a, "team_a")), list(xl.vector(team_b, "team_b"))  # (copies: a mistaken row blanked)
    # (a match row with one team, or a team against itself, is the row's mistake, named at its cell by recalc's
    # read stage, publish and export: core.travellerrow.match_row_mistake; left out here, every other match kept)
    vp_rows = [list(r) + [None] * (2 - len(r)) for r in xl.grid(vps)]
    imp_rows = None if xl.optional(imps) is None else [list(r) + [None] * (2 - len(r)) for r in xl.grid(imps)]

    def number_or_blank(v: Any) -> Any:  # a message or an error value in a result cell: no result yet
        return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    va = [number_or_blank(r[0]) for r in vp_rows]
    vb = [number_or_blank(r[1]) for r in vp_rows]
    for i, (x, y) in enumerate(zip(a, b)):  # (a match not yet scored, its VPs blank, is in no standings yet)
        if match_row_mistake(x, y, ()) is not None or (i < len(va) and va[i] is None and vb[i] is None):
            a[i] = b[i] = None
    ia = ib = None
    if imp_rows is not None:
        ia = [number_or_blank(r[0]) for r in imp_rows]
        ib = [number_or_blank(r[1]) for r in imp_rows]
    same_length({"team_a": a, "team_b": b, "vps": va, **({} if ia is None else {"imps": ia})})
    standings = core_team_standings(a, b, va, vb, ia, ib)
    return [[xl.to_cell(s.team), s.played, xl.to_cell(s.vps), xl.to_cell(s.imp_difference), format_rank(s.rank, s.tied)]
            for s in standings]
