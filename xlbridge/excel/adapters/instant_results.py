"""Adapter of INSTANT_RESULTS: many boards' results scored against each board's own chart (seed 002).

An instant-matchpoint event plays many boards; each board's award chart is built from that
board's historical results (:func:`xlbridge.core.instant.chart.instant_chart`, vulnerability
from the board number), and every result row looks its N-S score up in its board's chart.

Board 1 (None vulnerable): ten historical results, 420 five times, 400 three times, -50 twice:
420 gets (5 + 5/2) / 10 = 75 %, so E-W 25 %.

>>> instant_results([[1], [1], [None]], [[420], ["A60/40"], [None]], [1, 1, 1], [420, 400, -50], [5, 3, 2])
[[75, 25], [60, 40], [None, None]]
"""

from __future__ import annotations

from typing import Any

from ...core.entries import Artificial, NotPlayed, parse_entry
from ...core.errors import InputError, XlbridgeError
from ...core.instant.chart import InstantChart, instant_chart
from .. import cells as xl
from ..travellers import same_length

__all__ = ["instant_results"]


def _charts(boards: Any, scores: Any, frequencies: Any) -> dict[int, InstantChart]:
    """One chart per board number of the history rows (a row with every cell blank is skipped)."""
    b = xl.read_column(boards, "history_boards").cells
    s = xl.read_column(scores, "history_scores").cells
    f = xl.read_column(frequencies, "history_frequencies").cells
    same_length({"history_boards": b, "history_scores": s, "history_frequencies": f})
    rows: dict[int, tuple[list[int], list[int], int]] = {}
    for i, cells in enumerate(zip(b, s, f)):
        if all(xl.is_blank(v) for v in cells):
            continue
        where = f"history row {i + 1}"
        for v, what in zip(cells, ("board", "score", "frequency")):
            err = xl.error_literal(v)
            if err is not None:
                raise InputError(f"the {what} cell holds {err}", where=where)
            if xl.is_blank(v):
                raise InputError(f"the {what} is missing", where=where)
        board = xl.as_int(cells[0], "board", where=where, minimum=1)
        got = rows.setdefault(board, ([], [], i + 1))
        got[0].append(xl.as_int(cells[1], "score", where=where))
        got[1].append(xl.as_int(cells[2], "frequency", where=where, minimum=0))
    return {board: instant_chart(sc, fr, board, where=f"board {board} (history from row {first})")
            for board, (sc, fr, first) in rows.items()}


def _award(board_cell: Any, score_cell: Any, charts: dict[int, InstantChart], where: str) -> list[Any]:
    """[N-S award, E-W award] of one result row (blank when no score or NP)."""
    for v in (score_cell, board_cell):
        err = xl.error_literal(v)
        if err is not None:
            return [err, err]
    try:
        entry = parse_entry(score_cell, where=where)
        if entry is None or isinstance(entry, NotPlayed):
            return [None, None]
        if isinstance(entry, Artificial):
            return [xl.to_cell(entry.ns), xl.to_cell(entry.ew)]
        if xl.is_blank(board_cell):
            raise InputError("the board number is missing", where=where)
        board = xl.as_int(board_cell, "board", where=where, minimum=1)
        chart = charts.get(board)
        if chart is None:
            raise InputError(f"no chart for board {board}: no historical results with that board number",
                             where=where)
        ns = chart.award(entry, where=f"{where}, board {board}")
        ew = chart.award_ew(entry, where=f"{where}, board {board}")  # the core's rule for E-W
    except XlbridgeError as exc:
        bad = xl.ExcelError("#VALUE!", str(exc))
        return [bad, bad]
    return [xl.to_cell(ns), xl.to_cell(ew)]


def instant_results(boards: Any, scores: Any, history_boards: Any, history_scores: Any,
                    history_frequencies: Any) -> list[list[Any]]:
    """n x 2 per result row: the N-S and the E-W award (%) from the chart of the row's board.

    Each board's chart comes from the history rows with its board number (historical N-S score and
    how often it occurred), built as :func:`xlbridge.core.instant.chart.instant_chart` does for one
    board, the vulnerability following the board number. An artificial score (``A60/40``) gives
    each side its percentage; ``NP`` and a blank score give blank cells. A score no contract gives
    on the board, or a board without history, is ``#VALUE!`` in its row, with the reason.

    >>> instant_results([[2]], [[420]], [1], [420], [1])[0][0].reason
    'row 1: no chart for board 2: no historical results with that board number'
    """
    b = xl.read_column(boards, "boards").cells
    s = xl.read_column(scores, "scores").cells
    same_length({"boards": b, "scores": s})
    if all(xl.is_blank(v) for v in s):  # nothing to score (an empty template): blank, whatever the history
        return [[None, None] for _ in s]
    charts = _charts(history_boards, history_scores, history_frequencies)
    memo: dict[tuple[Any, Any], list[Any]] = {}
    out = []
    for i, key in enumerate(zip(b, s)):
        if xl.is_blank(key[1]):
            out.append([None, None])
            continue
        try:
            hit = memo.get(key)
        except TypeError:  # an unhashable cell
            hit = None
        if hit is None or any(isinstance(v, xl.ExcelError) and v.reason for v in hit):
            hit = _award(key[0], key[1], charts, f"row {i + 1}")  # a reason names its own row
            try:
                memo[key] = hit
            except TypeError:
                pass
        out.append(list(hit))
    return out
