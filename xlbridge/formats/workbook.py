"""An :class:`~xlbridge.formats.model.Event` in and out of the pairs and teams workbooks.

The mappings live in :mod:`xlbridge.formats.pairsbook` (``pairs.xlsx``: sheets ``Travellers`` and
``Pairs``), :mod:`xlbridge.formats.teamsbook` (``teams.xlsx``: sheets ``Boards`` and ``Matches``)
and, for what both share (tables found by their headers, the extra sheets ``Deals`` and ``Leads``,
the event's name and date), :mod:`xlbridge.formats.sheets`.  This module tells the two workbooks
apart (:func:`is_teams_workbook`, :func:`read_workbook`) and keeps every name importable from
here, as before the split.

>>> import openpyxl
>>> wb = openpyxl.Workbook()
>>> wb.active.title = "Boards"
>>> is_teams_workbook(wb), is_teams_workbook(wb.create_sheet("Matches").parent)
(False, True)
"""

from __future__ import annotations

import os

from .model import Event
from .pairsbook import TRAVELLERS, fill_pairs_workbook, read_pairs_workbook, travellers_rows
from .sheets import (DEALS_SHEET, LEADS_SHEET, VULNERABILITY, Workbook, check_standard_cycle, open_workbook,
                     read_extra_sheets, write_extra_sheets)
from .scoring import team_matches
from .teamsbook import BOARDS_SHEET, MATCHES_SHEET, fill_teams_workbook, read_teams_workbook

__all__ = ["fill_pairs_workbook", "read_pairs_workbook", "travellers_rows", "VULNERABILITY", "write_extra_sheets",
           "read_extra_sheets", "DEALS_SHEET", "LEADS_SHEET", "fill_teams_workbook", "read_teams_workbook",
           "is_teams_workbook", "team_matches", "check_standard_cycle", "read_workbook"]


def is_teams_workbook(wb: Workbook) -> bool:
    """True for a workbook laid out like teams.xlsx (sheets Boards and Matches, no Travellers)."""
    return BOARDS_SHEET in wb.sheetnames and MATCHES_SHEET in wb.sheetnames and TRAVELLERS not in wb.sheetnames


def read_workbook(path: str | os.PathLike[str]) -> Event:
    """A pairs or teams workbook into an (unscored) event: :func:`read_teams_workbook` for a book laid
    out like teams.xlsx (sheets ``Boards`` and ``Matches``), :func:`read_pairs_workbook` otherwise.
    A Law 12C1(c) weighted score (a pairs row's, a teams board's room 1) goes into its row's ``outcomes``."""
    wb = open_workbook(path, read_only=True)
    try:
        teams = is_teams_workbook(wb)
    finally:
        wb.close()
    return read_teams_workbook(path) if teams else read_pairs_workbook(path)
