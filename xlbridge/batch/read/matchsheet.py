"""A book-level check of the read stage: each row of a teams book's Matches sheet names two teams the book knows.

The Matches sheet (Match, Team A, Team B, Boards: :data:`~xlbridge.core.template_contract.MATCH_COLUMNS`, headers on
row 4) gives each match its teams, which the Standings' ``TEAM_STANDINGS`` reads. A row with one team only, a team
against itself, or (once the Teams sheet lists teams) a team it does not list is no mistake of any output cell: the
Standings leaves such a match out (:func:`xlbridge.excel.adapters.teams.team_standings`), or ranks the team unknown
to the Teams sheet. ``publish`` and ``export`` refuse such a book at the row's cell (:mod:`xlbridge.formats.teamsbook`);
:func:`match_sheet_mistakes` names it at the same cell, in the same words
(:func:`xlbridge.core.travellerrow.match_row_mistake`), for ``xlbridge recalc``.

The Teams sheet's names are its ``Name`` cells, a blank name read as ``Team <number>`` (as the teams reader reads
it). Both parts are read with expat from parts the guard has passed, as the Leads check reads them
(:mod:`xlbridge.batch.read.leads`). The first mistake is named, with the number of others after it.

>>> xml = lambda rows: ('<worksheet><sheetData>' + ''.join(
...     f'<row r="{r}">' + ''.join(f'<c r="{c}{r}" t="inlineStr"><is><t>{v}</t></is></c>' if isinstance(v, str)
...                               else f'<c r="{c}{r}"><v>{v}</v></c>' for c, v in cells) + '</row>'
...     for r, cells in rows) + '</sheetData></worksheet>').encode()
>>> teams = xml([(4, [("A", "Team"), ("B", "Name")]), (5, [("A", 1), ("B", "Team A")]), (6, [("A", 2)])])
>>> matches = xml([(4, [("A", "Match"), ("B", "Team A"), ("C", "Team B")]), (5, [("A", 1), ("B", "Team A"),
...               ("C", "Team 2")]), (6, [("A", 2), ("B", "Team A"), ("C", "Team E")])])
>>> match_sheet_mistakes({"Matches": matches, "Teams": teams}.get, lambda last: {})
[('Matches', (6, 3), 'input', "a team the Teams sheet does not list: 'Team E'; publish and export refuse the book until it is put right")]
"""

from __future__ import annotations

from collections.abc import Callable

from ...core.template_contract import MATCH_COLUMNS, MATCHES_SHEET, TEAM_COLUMNS, TEAMS_SHEET
from ...core.travellerrow import Mistake, blank, match_row_mistake, whole_or_words
from .leads import NoTable, first_of, lazy_strings, sheet_table

__all__ = ["match_sheet_mistakes"]


def match_sheet_mistakes(part: Callable[[str], bytes | None], strings: Callable[[int], dict[int, str]]
                         ) -> list[tuple[str, tuple[int, int], str, str]]:
    """The read stage's mistake (sheet, (row, column), ``"input"``, message) of the first row of the Matches sheet
    that is a mistake (:func:`~xlbridge.core.travellerrow.match_row_mistake`), saying how many more there are
    (``part(sheet)``: the sheet's worksheet part, None when the book has no such sheet; ``strings(last)``: {index:
    text} of the shared strings up to ``last``). [] for a book without a Matches sheet naming Team A and Team B on
    its header row, or whose rows are all right."""
    matches_xml = part(MATCHES_SHEET)
    if not matches_xml:
        return []
    shared = lazy_strings(strings)

    listed: set[str] = set()
    teams_xml = part(TEAMS_SHEET)
    if teams_xml:
        try:
            for _r, (number, name) in sheet_table(teams_xml, TEAM_COLUMNS[:2], shared, {}, whole=False):
                if not blank(name):
                    listed.add(str(name).strip())
                elif not blank(number):  # (a blank name: the Matches sheet calls the team "Team <number>")
                    n = whole_or_words(number, "team number")
                    listed.add(f"Team {n if isinstance(n, int) else str(number).strip()}")
        except NoTable:
            listed = set()
    columns: dict[str, int] = {}
    bad: list[tuple[int, Mistake]] = []
    seen: set[int] = set()
    try:
        for r, (match, team_a, team_b) in sheet_table(matches_xml, MATCH_COLUMNS[:3], shared, columns, whole=False):
            mistake = match_row_mistake(team_a, team_b, listed, match, seen)
            if mistake is not None:
                bad.append((r, mistake))
    except NoTable:
        return []
    return first_of(MATCHES_SHEET, bad, columns)
