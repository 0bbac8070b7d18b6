"""Players' privacy on the results site (issue 53): a pair or team marked ``Private`` in its workbook is shown by
its number only on every page, and no page ever shows a national number.

The workbooks are the shipped examples with a ``Private`` cell and national numbers typed into a copy
(``recalc_helpers.typed``); every page of each site is searched for every private name and every number.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from recalc_helpers import typed

from xlbridge import formats
from xlbridge.cli import main
from xlbridge.formats import FormatError
from xlbridge.formats.workbook import read_workbook

EXAMPLES = Path(__file__).resolve().parents[2] / "workbooks" / "examples"
NUMBERS = ("5550123", "5550456", "5550789", "5551011")


def _site_text(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text(encoding="utf-8") for p in folder.rglob("*.html")}


@pytest.fixture(scope="module")
def private_pairs(tmp_path_factory):
    """The pairs example, N-S 2 (C. Clark & D. Davies) marked private, N-S 1 and 2 with national numbers."""
    d = tmp_path_factory.mktemp("private-pairs")
    return typed(EXAMPLES / "pairs.xlsx", d / "club.xlsx", {"Pairs": {
        "E6": "Yes", "D5": f"{NUMBERS[0]} & {NUMBERS[1]}", "D6": f"{NUMBERS[2]} & {NUMBERS[3]}"}})


@pytest.fixture(scope="module")
def private_teams(tmp_path_factory):
    """The teams example with players typed for teams 1 and 3, team 1 (Team A) marked private, numbers for both."""
    d = tmp_path_factory.mktemp("private-teams")
    return typed(EXAMPLES / "teams.xlsx", d / "teams.xlsx", {"Teams": {
        "C5": "Ann Lee & Bob Roe & Cy Fox & Di Ode", "D5": f"{NUMBERS[0]} & {NUMBERS[1]}", "E5": "yes",
        "C7": "Ed Gee & Flo Hay", "D7": f"{NUMBERS[2]} & {NUMBERS[3]}"}})


def test_the_workbooks_private_column_is_read(private_pairs, private_teams):
    pairs = {p.key: p for p in read_workbook(private_pairs).participants}
    assert pairs[("NS", "2")].private and not pairs[("NS", "1")].private
    assert pairs[("NS", "2")].names == ("C. Clark", "D. Davies") and pairs[("NS", "1")].ids == NUMBERS[:2]
    teams = {p.number: p for p in read_workbook(private_teams).participants}
    assert teams["1"].private and not teams["3"].private and teams["1"].name == "Team A"


def test_a_private_pair_is_shown_by_its_number_only_and_no_page_shows_a_national_number(private_pairs, tmp_path):
    assert main(["publish", str(private_pairs), "-o", str(tmp_path / "site")]) == 0
    pages = _site_text(tmp_path / "site")
    assert len(pages) > 10
    for name in ("C. Clark", "D. Davies", "Clark", "Davies"):
        assert not [p for p, text in pages.items() if name in text], name
    assert not [(p, n) for p, text in pages.items() for n in NUMBERS if n in text]
    assert "A. Adams &amp; B. Brown" in pages["index.html"]  # (the others' names stay)
    assert '<a href="pair-NS-2.html">NS 2</a>' in pages["index.html"]  # (its number, no names on hover)
    assert "<h1>" in pages["pair-NS-2.html"] and "Pair NS 2</h1>" in pages["pair-NS-2.html"]


def test_a_private_team_is_shown_by_its_number_only_everywhere(private_teams, tmp_path):
    """Team A (team 1) is private: "Team 1" on the standings, its matches, travellers and scorecards; its name and
    players on no page; team C keeps its name and players; no national number anywhere."""
    assert main(["publish", str(private_teams), "-o", str(tmp_path / "site")]) == 0
    pages = _site_text(tmp_path / "site")
    for name in ("Team A", "Ann Lee", "Bob Roe", "Cy Fox", "Di Ode"):
        assert not [p for p, text in pages.items() if name in text], name
    assert not [(p, n) for p, text in pages.items() for n in NUMBERS if n in text]
    assert "Team 1" in pages["index.html"] and "Ed Gee &amp; Flo Hay" in pages["index.html"]
    assert "<h1>Results: Team 1 v Team B</h1>" in pages["match-1-2.html"]


def test_a_private_cell_other_than_yes_or_blank_is_refused_naming_it(tmp_path):
    book = typed(EXAMPLES / "pairs.xlsx", tmp_path / "club.xlsx", {"Pairs": {"E7": "perhaps"}})
    with pytest.raises(FormatError, match=r"club\.xlsx, Pairs!E7: Private must be yes or blank, got 'perhaps'"):
        read_workbook(book)


def test_an_imported_pbn_leaves_the_private_column_blank(tmp_path):
    """PBN and USEBIO carry no such mark: ``xlbridge import`` writes every pair with a blank Private cell, and the
    book reads back with no pair private."""
    import openpyxl

    assert main(["import", str(EXAMPLES / "club-session.pbn"), "-o", str(tmp_path / "s.xlsx")]) == 0
    wb = openpyxl.load_workbook(tmp_path / "s.xlsx", read_only=True)
    rows = list(wb["Pairs"].iter_rows(min_row=4, max_row=30, max_col=5, values_only=True))
    assert rows[0] == ("Pair", "Direction", "Names", "Numbers", "Private")
    assert len([r for r in rows[1:] if r[0] is not None]) == 26 and {r[4] for r in rows[1:]} == {None}
    assert not [p for p in read_workbook(tmp_path / "s.xlsx").participants if p.private]
    assert not [p for p in formats.read_event(EXAMPLES / "club-session.pbn").participants if p.private]


def test_no_page_of_the_three_sample_sites_shows_a_national_number(sites):
    """Every player of the sample session and the teams example has a national number (the ``sites`` fixture):
    none is on any page of the session, teams or season site."""
    import re

    seen = 0
    for folder in sites.values():
        for page, text in _site_text(folder).items():
            assert not re.search(r"EBU\d{4}Q", text), page  # (tests/formats/conftest.py's national_number)
            seen += 1
    assert seen > 100
