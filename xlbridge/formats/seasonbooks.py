"""The club's books of the season beside its events: a Lehman ratings ledger and a Form-L handicap league.

``xlbridge publish`` takes them beside the pairs and teams workbooks (:func:`read_season_book`): the ratings
ledger (``lehman.xlsx``: sheets ``Ledger`` and ``History``) becomes a page of every player's rating, and the
league (``handicap.xlsx``: sheets ``Handicaps``, ``NewTeams``, ``Results`` and ``Fairness``) a page of the
handicaps, the handicapped results and the fairness test (:mod:`xlbridge.formats.seasonpages`).

What is read is what the recalculated workbook shows: the cells ``xlbridge recalc`` (or Excel, or LibreOffice)
cached for the formulas (the ratings tables of the Ledger sheet, the History sheet's weekly ratings, the
handicaps, the Results sheet's handicapped scores and winners, the Fairness sheet's bands and tails), found by
their headers on row 4 as the templates lay them out (:mod:`xlbridge.templates.lehman`,
:mod:`xlbridge.templates.handicap`).  A book whose results were never calculated (a formula without a cached
value where the inputs have rows) is refused in one line saying to recalculate it; a cell showing an error is
refused naming it.  The header of each page is the book's own ``Event``, ``Date``, ``Club`` and ``Scorer``
(:func:`~xlbridge.formats.sheets.read_event_details`).  A Lehman player named in the ledger's ``Private
players`` parameter (:data:`~xlbridge.core.template_contract.PRIVATE_PLAYERS`, names ``&``-separated) is left
out of the ratings page.

>>> import openpyxl
>>> wb = openpyxl.Workbook()
>>> wb.active.title = "Ledger"
>>> _ = wb.create_sheet("History")
>>> book_kind(wb), book_kind(openpyxl.Workbook())
('ratings', None)
"""

from __future__ import annotations

import datetime as _dt
import math
import os
from dataclasses import dataclass
from typing import Any

from ..core.template_contract import PRIVATE_PLAYERS
from .errors import FormatError, check_name, display_name
from .sheets import (HEADER_ROW, PARAMETER_ROWS, Workbook, cell_text, open_workbook, read_event_details, sparse_rows,
                     split_names)

__all__ = ["RatedPlayer", "Ratings", "LeagueTeam", "LeagueMatch", "Observed", "League", "book_kind",
           "read_season_book", "read_ratings", "read_league", "RATINGS", "LEAGUE"]

RATINGS, LEAGUE = "ratings", "league"
_LEDGER, _HISTORY = "Ledger", "History"
_HANDICAPS, _NEWTEAMS, _RESULTS, _FAIRNESS = "Handicaps", "NewTeams", "Results", "Fairness"
#: the ratings tables' headers (each table under its title on row 3: standard and modified Lehman)
_RATING_HEADS = ("Player", "Boards", "Rating", "History boards", "Error bound")
_TABLE_TITLES = {"Standard": "Standard Lehman", "Modified": "Modified Lehman (error bounds)"}
#: the most rows read from a table of these books (the templates' own: 400 players, 52 weeks, 500 teams, 1,000
#: matches, 40 new teams, 200 fairness rows, 20 observed results); the rest of the sheet is not read
#: what a cell showing an error holds
_ERRORS = frozenset({"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#SPILL!", "#CALC!",
                     "#GETTING_DATA"})
_MAX_PLAYERS, _MAX_WEEKS, _MAX_TEAMS, _MAX_MATCHES, _MAX_BANDS, _MAX_OBSERVED = 400, 52, 500, 1_000, 200, 20


@dataclass(frozen=True)
class RatedPlayer:
    """A player of the ratings ledger: the rating after the last week, its error bound, the boards played and
    the rating after each week of :attr:`Ratings.weeks` (None before the player's first week)."""

    name: str
    rating: float
    error: float | None
    boards: float
    history: tuple[float | None, ...] = ()


@dataclass(frozen=True)
class Ratings:
    """A Lehman ratings ledger as its recalculated workbook shows it: the formula its History sheet shows
    (``Standard`` or ``Modified``), the weeks, the players (a private player left out: :attr:`hidden` of them)."""

    name: str | None
    date: _dt.date | None
    club: str | None
    scorer: str | None
    formula: str
    weeks: tuple[int, ...]
    players: tuple[RatedPlayer, ...]
    hidden: int = 0
    kind: str = RATINGS


@dataclass(frozen=True)
class LeagueTeam:
    """A team of the league: its division and last season's Average VPs (None for a new team), its handicap."""

    team: str
    division: int | None
    average: float | None
    handicap: float | None


@dataclass(frozen=True)
class LeagueMatch:
    """A row of the Results sheet: both teams, the IMPs at the table, the handicaps, the handicapped IMPs, the
    winner (a team's name or ``Draw``) and what the higher-handicap team did (``won``, ``lost``, ``draw``,
    ``equal handicaps``); the results None for a match not played yet."""

    team_a: str
    team_b: str
    imps_a: float | None
    imps_b: float | None
    handicap_a: float | None
    handicap_b: float | None
    total_a: float | None
    total_b: float | None
    winner: str | None
    higher: str | None


@dataclass(frozen=True)
class Observed:
    """A row of the Fairness sheet's observed results: wins of the higher-handicap team in so many matches, and
    the two tails (P(X <= wins), P(X >= wins)) under fair handicaps."""

    label: str
    wins: float | None
    matches: float | None
    p_low: float | None
    p_high: float | None


@dataclass(frozen=True)
class League:
    """A Form-L handicap league as its recalculated workbook shows it."""

    name: str | None
    date: _dt.date | None
    club: str | None
    scorer: str | None
    teams: tuple[LeagueTeam, ...]
    matches: tuple[LeagueMatch, ...]
    counts: tuple[tuple[str, float], ...]
    tails: tuple[float, ...]
    bands: tuple[tuple[float, ...], ...]
    observed: tuple[Observed, ...]
    kind: str = LEAGUE


def book_kind(wb: Workbook) -> str | None:
    """``"ratings"`` for a book laid out like lehman.xlsx (sheets ``Ledger`` and ``History``), ``"league"`` for
    one like handicap.xlsx (``Handicaps``, ``Results`` and ``Fairness``), None for any other."""
    names = set(wb.sheetnames)
    if {_LEDGER, _HISTORY} <= names:
        return RATINGS
    if {_HANDICAPS, _RESULTS, _FAIRNESS} <= names:
        return LEAGUE
    return None


def read_season_book(path: str | os.PathLike[str]) -> Ratings | League | None:
    """The ratings ledger or league at ``path`` (:func:`read_ratings`, :func:`read_league`), None for a book that
    is neither (a pairs or teams workbook: :func:`~xlbridge.formats.workbook.read_workbook`)."""
    wb = open_workbook(path, data_only=True, read_only=True)
    try:
        kind = book_kind(wb)
        if kind is None:
            return None
        return _ratings(wb, display_name(path)) if kind == RATINGS else _league(wb, display_name(path))
    finally:
        wb.close()


def read_ratings(path: str | os.PathLike[str]) -> Ratings:
    """The Lehman ratings ledger at ``path`` (a workbook laid out like lehman.xlsx, recalculated)."""
    book = read_season_book(path)
    if not isinstance(book, Ratings):
        raise FormatError("not a Lehman ratings workbook (sheets Ledger and History: workbooks/lehman.xlsx)",
                          where=display_name(path))
    return book


def read_league(path: str | os.PathLike[str]) -> League:
    """The handicap league at ``path`` (a workbook laid out like handicap.xlsx, recalculated)."""
    book = read_season_book(path)
    if not isinstance(book, League):
        raise FormatError("not a handicap league workbook (sheets Handicaps, Results and Fairness: "
                          "workbooks/handicap.xlsx)", where=display_name(path))
    return book


# ---- cells

def _letter(c: int) -> str:
    from openpyxl.utils import get_column_letter

    return str(get_column_letter(c))


def _rows(ws: Any, first: int, last: int) -> dict[int, dict[int, Any]]:
    """{row: {column: value}} of the rows ``first`` to ``last`` holding a value (only the cells the file holds)."""
    return dict(sparse_rows(ws, first, last))


def _header(ws: Any, sheet: str, name: str, heads: tuple[str, ...], start: int | None = None,
            row: int = HEADER_ROW) -> int:
    """The column of ``heads[0]`` on the header row followed by the rest of ``heads`` in order (from column
    ``start`` when given); refused naming the sheet when the book is not laid out so."""
    cells = _rows(ws, row, row).get(row, {})
    for c in sorted(cells):
        if start is not None and c != start:
            continue
        if all(isinstance(cells.get(c + k), str) and cells[c + k].strip() == h for k, h in enumerate(heads)):
            return c
    raise FormatError(f"sheet {sheet!r} has no columns {', '.join(heads)} on row {row} (a workbook laid out "
                      f"unlike the template)", where=name)


def _at(name: str, sheet: str, col: int, row: int) -> str:
    """A cell's place for a message: ``club.xlsx, Ledger!K5``."""
    return f"{name}, {sheet}!{_letter(col)}{row}"


def _blank(v: object) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


def _number(v: object, where: str, what: str) -> float | None:
    """A computed or typed number from a cell: None when blank; a cell showing an error (``#VALUE!``) or text is
    refused naming it."""
    if _blank(v):
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        if isinstance(v, str) and v.strip().upper() in _ERRORS:
            raise FormatError(f"the {what} shows an error (correct the inputs, then recalculate):", where=where,
                              value=v)
        raise FormatError(f"the {what} is not a number:", where=where, value=v)
    return float(v)


def _text(v: object, where: str, what: str) -> str | None:
    t = cell_text(v)
    if t is not None and t.upper() in _ERRORS:
        raise FormatError(f"the {what} shows an error (correct the inputs, then recalculate):", where=where, value=t)
    return check_name(t, what, where=where)


def _details(ws: Any, name: str, sheet: str) -> tuple[str | None, _dt.date | None, str | None, str | None]:
    details = read_event_details(ws, f"{name}, {sheet}")
    return details if details is not None else (None, None, None, None)


def _uncalculated(name: str, sheet: str, cell: str) -> FormatError:
    return FormatError(f"the workbook's results were never calculated ({sheet}!{cell} has no value): recalculate "
                       f"it first (xlbridge recalc BOOK --in-place, or save it in Excel or LibreOffice)", where=name)


# ---- the ratings ledger

def _ratings(wb: Workbook, name: str) -> Ratings:
    ledger, history = wb[_LEDGER], wb[_HISTORY]
    head = _rows(history, 3, HEADER_ROW)
    formula = cell_text(head.get(3, {}).get(2)) or "Standard"
    if formula not in _TABLE_TITLES:
        raise FormatError("the formula shown must be Standard or Modified, got", where=f"{name}, {_HISTORY}!B3",
                          value=formula)
    titles = _rows(ledger, 3, 3).get(3, {})
    col = next((c for c, v in sorted(titles.items()) if cell_text(v) == _TABLE_TITLES[formula]), None)
    if col is None:
        raise FormatError(f"sheet {_LEDGER!r} has no table {_TABLE_TITLES[formula]!r} on row 3 (a workbook laid "
                          f"out unlike the template)", where=name)
    col = _header(ledger, _LEDGER, name, _RATING_HEADS, start=col)
    private = _private_players(ledger, name)
    inputs = any(not _blank(v) for r in _rows(ledger, HEADER_ROW + 1, HEADER_ROW + 1).values() for c, v in r.items()
                 if c < col)
    players: list[RatedPlayer] = []
    order: dict[str, int] = {}
    hidden = 0
    for r, cells in _rows(ledger, HEADER_ROW + 1, HEADER_ROW + _MAX_PLAYERS).items():
        player = cell_text(cells.get(col))
        if player is None:
            continue
        def where(k: int, r: int = r) -> str:
            return _at(name, _LEDGER, col + k, r)

        player = _text(player, where(0), "player's name") or ""
        rating = _number(cells.get(col + 2), where(2), "rating")
        if rating is None:
            raise _uncalculated(name, _LEDGER, f"{_letter(col + 2)}{r}")
        boards = _number(cells.get(col + 1), where(1), "number of boards") or 0.0
        error = _number(cells.get(col + 4), where(4), "error bound")
        if player.casefold() in private:
            hidden += 1
            continue
        order[player] = len(players)
        players.append(RatedPlayer(player, rating, error, boards))
    if not players and not hidden and inputs:
        raise _uncalculated(name, _LEDGER, f"{_letter(col + 2)}{HEADER_ROW + 1}")
    weeks, histories = _history(history, name, set(order) | private)
    players = [RatedPlayer(p.name, p.rating, p.error, p.boards, histories.get(p.name, ())) for p in players]
    title, date, club, scorer = _details(ledger, name, _LEDGER)
    return Ratings(title, date, club, scorer, formula, weeks, tuple(players), hidden)


def _private_players(ws: Any, name: str) -> set[str]:
    """The names (case ignored) of the ledger's ``Private players`` parameter."""
    for r, cells in sparse_rows(ws, 1, PARAMETER_ROWS):
        for c in sorted(cells):
            if isinstance(cells[c], str) and cells[c].strip() == PRIVATE_PLAYERS:
                text = cell_text(cells.get(c + 1))
                return {n.casefold() for n in split_names(text)} if text else set()
    return set()


def _history(ws: Any, name: str, known: set[str]) -> tuple[tuple[int, ...], dict[str, tuple[float | None, ...]]]:
    """The History sheet's weeks (row 4 from column B) and each player's rating after each week."""
    rows = _rows(ws, HEADER_ROW, HEADER_ROW + _MAX_PLAYERS)
    head = rows.get(HEADER_ROW, {})
    if cell_text(head.get(1)) is None:  # (the history of a ledger without results: blank, header and all)
        return (), {}
    if cell_text(head.get(1)) != "Player":
        raise FormatError(f"sheet {_HISTORY!r} has no column 'Player' at A{HEADER_ROW} (a workbook laid out unlike "
                          f"the template)", where=name)
    weeks: list[int] = []
    for c in range(2, 2 + _MAX_WEEKS):
        w = _number(head.get(c), f"{name}, {_HISTORY}!{_letter(c)}{HEADER_ROW}", "week")
        if w is None:
            break
        weeks.append(int(w))
    out: dict[str, tuple[float | None, ...]] = {}
    for r, cells in rows.items():
        player = cell_text(cells.get(1))
        if r == HEADER_ROW or player is None:
            continue
        out[player] = tuple(_number(cells.get(2 + k), f"{name}, {_HISTORY}!{_letter(2 + k)}{r}", "rating")
                            for k in range(len(weeks)))
    return tuple(weeks), out


# ---- the handicap league

def _league(wb: Workbook, name: str) -> League:
    hs = wb[_HANDICAPS]
    c = _header(hs, _HANDICAPS, name, ("Division", "Team", "Average VPs"), start=1)
    hc = _header(hs, _HANDICAPS, name, ("Handicap IMPs",))
    teams: list[LeagueTeam] = []
    for r, cells in _rows(hs, HEADER_ROW + 1, HEADER_ROW + _MAX_TEAMS).items():
        team = cell_text(cells.get(c + 1))
        if team is None:
            continue
        def at(k: int, r: int = r) -> str:
            return _at(name, _HANDICAPS, k, r)

        division = _number(cells.get(c), at(c), "division")
        average = _number(cells.get(c + 2), at(c + 2), "Average VPs")
        handicap = _number(cells.get(hc), at(hc), "handicap")
        if handicap is None and average is not None and division is not None:
            raise _uncalculated(name, _HANDICAPS, f"{_letter(hc)}{r}")
        teams.append(LeagueTeam(_text(team, at(c + 1), "team name") or "", None if division is None else int(division),
                                average, handicap))
    if _NEWTEAMS in wb.sheetnames:
        ns = wb[_NEWTEAMS]
        nc = _header(ns, _NEWTEAMS, name, ("New team", "Handicap IMPs"))
        for r, cells in _rows(ns, HEADER_ROW + 1, HEADER_ROW + 40).items():
            team = cell_text(cells.get(nc))
            if team is None:
                continue
            def at_new(k: int, r: int = r) -> str:
                return _at(name, _NEWTEAMS, k, r)

            teams.append(LeagueTeam(_text(team, at_new(nc), "team name") or "", None, None,
                                    _number(cells.get(nc + 1), at_new(nc + 1), "handicap")))
    rs = wb[_RESULTS]
    heads = ("Team A", "Team B", "IMPs A", "IMPs B", "Typed handicap A", "Typed handicap B", "Handicap A",
             "Handicap B", "Handicapped IMPs A", "Handicapped IMPs B", "Winner", "Higher-handicap team")
    rc = _header(rs, _RESULTS, name, heads, start=1)
    matches: list[LeagueMatch] = []
    for r, cells in _rows(rs, HEADER_ROW + 1, HEADER_ROW + _MAX_MATCHES).items():
        if _blank(cells.get(rc)) and _blank(cells.get(rc + 1)):
            continue
        def at_result(k: int, r: int = r) -> str:
            return _at(name, _RESULTS, rc + k, r)

        def num(k: int, what: str, cells: dict[int, Any] = cells) -> float | None:
            return _number(cells.get(rc + k), at_result(k), what)

        winner = _text(cells.get(rc + 10), at_result(10), "winner")
        higher = _text(cells.get(rc + 11), at_result(11), "result")
        imps_a, imps_b = num(2, "IMPs"), num(3, "IMPs")
        if imps_a is not None and imps_b is not None and winner is None:
            raise _uncalculated(name, _RESULTS, f"{_letter(rc + 10)}{r}")
        matches.append(LeagueMatch(_text(cells.get(rc), at_result(0), "team name") or "",
                                   _text(cells.get(rc + 1), at_result(1), "team name") or "", imps_a, imps_b,
                                   num(6, "handicap"), num(7, "handicap"), num(8, "handicapped IMPs"),
                                   num(9, "handicapped IMPs"), winner, higher))
    counts: list[tuple[str, float]] = []
    summary = _rows(rs, HEADER_ROW, HEADER_ROW + 4)
    label_col = next((c for c, v in sorted(summary.get(HEADER_ROW, {}).items())
                      if c > rc + 11 and cell_text(v) == "Higher-handicap team"), None)
    if label_col is not None:
        for r in range(HEADER_ROW + 1, HEADER_ROW + 5):
            label = cell_text(summary.get(r, {}).get(label_col))
            value = _number(summary.get(r, {}).get(label_col + 1), f"{name}, {_RESULTS}!{_letter(label_col + 1)}{r}",
                            "count")
            if label is not None:
                counts.append((label, value or 0.0))
    tails, bands, observed = _fairness(wb[_FAIRNESS], name)
    title, date, club, scorer = _details(hs, name, _HANDICAPS)
    return League(title, date, club, scorer, tuple(teams), tuple(matches), tuple(counts), tails, bands, observed)


def _fairness(ws: Any, name: str) -> tuple[tuple[float, ...], tuple[tuple[float, ...], ...], tuple[Observed, ...]]:
    """The tails of row 3, the bands (matches, low and high of each tail, expected) and the observed results."""
    band_heads = ("Matches",)
    _header(ws, _FAIRNESS, name, band_heads, start=1)
    oc = _header(ws, _FAIRNESS, name, ("Observed result", "Wins", "Matches", "P(X <= wins)", "P(X >= wins)"))
    tails_row = _rows(ws, 3, 3).get(3, {})
    tails = tuple(_number(tails_row.get(c), f"{name}, {_FAIRNESS}!{_letter(c)}3", "tail") or 0.0 for c in (2, 4, 6))
    bands: list[tuple[float, ...]] = []
    observed: list[Observed] = []
    for r, cells in _rows(ws, HEADER_ROW + 1, HEADER_ROW + _MAX_BANDS).items():
        def at(c: int, r: int = r) -> str:
            return _at(name, _FAIRNESS, c, r)

        n = _number(cells.get(1), at(1), "number of matches")
        if n is not None:
            values = [_number(cells.get(c), at(c), "band") for c in range(2, 9)]
            if any(v is None for v in values):
                raise _uncalculated(name, _FAIRNESS, f"{_letter(2 + values.index(None))}{r}")
            bands.append((n, *[v for v in values if v is not None]))
        if r < HEADER_ROW + 1 + _MAX_OBSERVED:
            label = _text(cells.get(oc), at(oc), "observed result's label")
            wins, played = _number(cells.get(oc + 1), at(oc + 1), "wins"), _number(cells.get(oc + 2), at(oc + 2), "matches")
            if label is None and wins is None and played is None:
                continue
            low, high = _number(cells.get(oc + 3), at(oc + 3), "tail"), _number(cells.get(oc + 4), at(oc + 4), "tail")
            if wins is not None and played and low is None:
                raise _uncalculated(name, _FAIRNESS, f"{_letter(oc + 3)}{r}")
            observed.append(Observed(label or "", wins, played, low, high))
    return tails, tuple(bands), tuple(observed)

