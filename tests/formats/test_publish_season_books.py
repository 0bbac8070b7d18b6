"""The season's books on the site (issue 53): a Lehman ratings ledger and a Form-L handicap league, each a page.

Every figure of the ratings and league pages is compared with the cell of the workbook recalculated by
``xlbridge recalc`` (``season_books``: the shipped examples, once a run), read here with openpyxl
(``recalc_helpers.cells``) and rounded here as the workbook's number format shows it (half away from zero, with
``decimal``): no figure comes from the reader under test.  The won, drawn and lost of each team are counted here
from the Results sheet's Winner column.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import html5lib
import pytest

from recalc_helpers import cells, typed

from xlbridge.cli import main
from xlbridge.formats import FormatError
from xlbridge.formats.publish import publish_season
from xlbridge.formats.seasonbooks import read_season_book


def _shown(v, places: int) -> str:
    """``v`` as a spreadsheet shows it with ``places`` decimals (half away from zero, on the exact float)."""
    if v is None or v == "":
        return ""
    text = f"{Decimal(v).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP):f}"  # (HALF_UP: away from 0)
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


SVG = "{http://www.w3.org/2000/svg}"  # (html5lib puts an inline svg's elements in the SVG namespace)


def _doc(path: Path):
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(path.read_text(encoding="utf-8"))


def _tables(doc) -> list[tuple[list[str], list[list[str]]]]:
    out = []
    for t in doc.iter("table"):
        heads = ["".join(th.itertext()).strip() for th in t.find("thead").iter("th")]
        rows = [["".join(td.itertext()).strip() for td in tr.findall("td")] for tr in t.find("tbody").findall("tr")]
        out.append((heads, rows))
    return out


@pytest.fixture(scope="module")
def pages(season_books, tmp_path_factory):
    out = tmp_path_factory.mktemp("books")
    books = [read_season_book(season_books[name]) for name in ("lehman", "handicap")]
    publish_season([], out, books=books)
    return {name: _doc(out / f"{name}.html") for name in ("ratings", "league", "index")}


def test_every_rating_error_bound_and_board_count_is_the_workbook_s_ranked(pages, season_books):
    """The Ledger's standard table (History!B3 shows Standard): I player, J boards, K rating, M error bound."""
    ledger = cells(season_books["lehman"], data_only=True)["Ledger"]
    assert cells(season_books["lehman"], data_only=True)["History"][(3, 2)] == "Standard"
    expected = []
    for r in range(5, 405):
        name = ledger.get((r, 9))
        if name not in (None, ""):
            expected.append((ledger[(r, 11)], name, _shown(ledger[(r, 11)], 2), _shown(ledger[(r, 13)], 2),
                             _shown(ledger[(r, 10)], 0)))
    assert len(expected) == 6
    expected.sort(key=lambda x: -x[0])
    heads, rows = _tables(pages["ratings"])[0]
    assert heads == ["Place", "Player", "Rating", "Error bound", "Boards"]
    assert [r[1:] for r in rows] == [list(e[1:]) for e in expected]
    assert [r[0] for r in rows] == ["1", "2", "3", "4", "5", "6"]  # (no two equal ratings in the example)
    assert rows[0][:3] == ["1", "Dee", "58.39"]  # (the ledger's figure: Dee 58.390..., Ann 58.343...)


def test_the_weekly_history_is_the_history_sheet_s_as_a_table_and_an_svg_chart(pages, season_books):
    history = cells(season_books["lehman"], data_only=True)["History"]
    weeks = [history[(4, c)] for c in range(2, 54) if history.get((4, c)) not in (None, "")]
    assert weeks == list(range(1, 11))
    players = {history[(r, 1)]: [history.get((r, c)) for c in range(2, 2 + len(weeks))] for r in range(5, 405)
               if history.get((r, 1)) not in (None, "")}
    heads, rows = [t for t in _tables(pages["ratings"]) if t[0][0] == "Player" and len(t[0]) > 5][0]
    assert heads == ["Player"] + [f"Week {w}" for w in weeks]
    assert {r[0]: r[1:] for r in rows} == {p: [_shown(v, 2) for v in vs] for p, vs in players.items()}
    svg = pages["ratings"].find(f".//{SVG}svg")
    assert svg is not None and svg.get("role") == "img"
    assert svg.find(f"{SVG}title").text.startswith("Rating after each week")
    lines = {line.find(f"{SVG}title").text: line.get("points").split() for line in svg.iter(f"{SVG}polyline")}
    assert set(lines) == set(players) and all(len(points) == len(weeks) for points in lines.values())
    # higher ratings are drawn higher: Dee's last point above Newbie's
    assert float(lines["Dee"][-1].split(",")[1]) < float(lines["Newbie"][-1].split(",")[1])


def test_the_league_s_handicaps_results_and_fairness_are_the_workbook_s(pages, season_books):
    book = cells(season_books["handicap"], data_only=True)
    hs, nt, rs, fs = book["Handicaps"], book["NewTeams"], book["Results"], book["Fairness"]
    tables = {t[0][0] if t[0][0] != "Team" or len(t[0]) == 4 else "Won": t for t in _tables(pages["league"])}
    expected = [[hs[(r, 2)], str(hs[(r, 1)]), _shown(hs[(r, 3)], 1), _shown(hs[(r, 6)], 0)]
                for r in range(5, 505) if hs.get((r, 2)) not in (None, "")]
    expected += [[nt[(r, 6)], "new", "", _shown(nt[(r, 7)], 0)] for r in range(5, 45) if nt.get((r, 6)) not in (None, "")]
    heads, rows = tables["Team"]
    assert heads == ["Team", "Division", "Average VPs", "Handicap (IMPs)"]
    assert rows == expected
    assert ["Lambs", "3", "7.7", "79"] in rows  # seed 000's corrected handicap (printed 77)
    heads, rows = tables["Match"]
    assert heads == ["Match", "IMPs", "Handicaps", "With handicaps", "Winner"]
    results = [r for r in range(5, 1005) if rs.get((r, 1)) not in (None, "")]
    dash = "\u2013"

    def pair(a, b):
        return "" if a in (None, "") and b in (None, "") else f"{_shown(a, 0)}{dash}{_shown(b, 0)}"

    assert rows == [[f"{rs[(r, 1)]} v {rs[(r, 2)]}", pair(rs.get((r, 3)), rs.get((r, 4))),
                     pair(rs.get((r, 7)), rs.get((r, 8))), pair(rs.get((r, 9)), rs.get((r, 10))),
                     rs.get((r, 11)) if rs.get((r, 11)) not in (None, "") else "not played yet"] for r in results]
    record: dict[str, list[int]] = {}
    for r in results:
        winner = rs.get((r, 11))
        if winner in (None, ""):
            continue
        for team in (rs[(r, 1)], rs[(r, 2)]):
            w = record.setdefault(team, [0, 0, 0, 0])
            w[0] += 1
            w[1 if winner == team else 2 if winner == "Draw" else 3] += 1
    assert tables["Won"][0] == ["Team", "Played", "Won", "Drawn", "Lost"]
    wdl = tables["Won"][1]
    assert {r[0]: [int(x) for x in r[1:]] for r in wdl} == record
    assert record["Dragons"] == [1, 0, 1, 0] and record["Pioneers"] == [1, 1, 0, 0]
    assert tables["Result"][1] == [[rs[(r, 14)], _shown(rs[(r, 15)], 0)] for r in range(5, 9)]
    heads, rows = tables["Observed result"]
    assert rows == [[fs[(r, 10)], _shown(fs.get((r, 11)), 0), _shown(fs.get((r, 12)), 0), _shown(fs.get((r, 13)), 4),
                     _shown(fs.get((r, 14)), 4)] for r in range(5, 25) if fs.get((r, 10)) not in (None, "")]
    svg = [s for s in pages["league"].iter(f"{SVG}svg") if s.get("role") == "img"][0]
    lines = {line.find(f"{SVG}title").text: line.get("points").split() for line in svg.iter(f"{SVG}polyline")}
    assert set(lines) == {"Low 25 %", "High 25 %", "Low 10 %", "High 10 %", "Low 1 %", "High 1 %", "Expected (n/2)"}
    most = max(fs[(r, 12)] for r in range(5, 25) if isinstance(fs.get((r, 12)), (int, float)))
    assert all(len(points) == most for points in lines.values())  # n = 1 .. the most matches observed (168)
    crosses = [p.find(f"{SVG}title").text for p in svg.iter(f"{SVG}path")]
    assert len(crosses) == len(rows) and crosses[1].endswith("37 of 56")


def test_the_index_links_both_pages_and_each_is_headed_by_the_book_s_club_date_and_scorer(season_books, tmp_path):
    """The books' own Event, Date, Club and Scorer cells (typed here into copies of the recalculated books) head
    their pages, and the season index lists both beside the events."""
    lehman = typed(season_books["lehman"], tmp_path / "lehman.xlsx", {"Ledger": {
        "V16": "Club ladder <2026>", "V17": "2026-11-30", "V18": "Riverside", "V19": "Dee Scorer"}})
    league = typed(season_books["handicap"], tmp_path / "handicap.xlsx", {"Handicaps": {
        "J27": "Rugby League", "J28": "2026-09-01", "J29": "Riverside", "J30": "Al Keeper"}})
    pairs = Path(__file__).resolve().parents[2] / "workbooks" / "examples" / "pairs.xlsx"
    assert main(["publish", str(pairs), str(lehman), str(league), "-o", str(tmp_path / "site")]) == 0
    site = tmp_path / "site"
    index = (site / "index.html").read_text(encoding="utf-8")
    assert '<a href="ratings.html">Club ladder &lt;2026&gt;</a>' in index
    assert '<a href="league.html">Rugby League</a>' in index
    ratings, league_page = (site / "ratings.html").read_text(encoding="utf-8"), (site / "league.html").read_text(
        encoding="utf-8")
    assert "<h1>Club ladder &lt;2026&gt;</h1>" in ratings
    assert '<p class="meta">Riverside &middot; 2026-11-30 &middot; Scored by Dee Scorer</p>' in ratings
    assert '<p class="meta">Riverside &middot; 2026-09-01 &middot; Scored by Al Keeper</p>' in league_page
    for page in site.rglob("*.html"):
        for href in re.findall(r'href="([^"]+)"', page.read_text(encoding="utf-8")):
            assert (page.parent / href).exists(), (page, href)


def test_a_book_alone_is_a_site_and_a_private_player_is_left_out(season_books, tmp_path):
    """``publish lehman.xlsx -o site``: the ratings page and an index; players named in the ledger's Private
    players cell appear nowhere on it."""
    lehman = typed(season_books["lehman"], tmp_path / "lehman.xlsx", {"Ledger": {"V21": "dee & Newbie"}})
    assert main(["publish", str(lehman), "-o", str(tmp_path / "site")]) == 0
    assert sorted(p.name for p in (tmp_path / "site").iterdir()) == ["index.html", "ratings.html", "style.css"]
    page = (tmp_path / "site" / "ratings.html").read_text(encoding="utf-8")
    assert "Dee" not in page and "Newbie" not in page and "Ann" in page and "Spider" in page
    assert "2 players are not shown, at their request." in page
    rows = _tables(_doc(tmp_path / "site" / "ratings.html"))[0][1]
    assert [r[:2] for r in rows] == [["1", "Ann"], ["2", "Bob"], ["3", "Cal"], ["4", "Spider"]]


def test_a_book_never_recalculated_or_showing_an_error_is_refused_naming_the_cell(season_books, tmp_path):
    """A ledger whose ratings were never computed (the cached values gone, as openpyxl saves it) and a league
    whose handicap cell shows #VALUE! are refused with one line naming the cell."""
    import zipfile

    from server_helpers import rebuild

    from recalc_helpers import sheet_parts

    src = season_books["lehman"]
    part = sheet_parts(src)["Ledger"]
    with zipfile.ZipFile(src) as z:
        xml = z.read(part).decode()
    bare = re.sub(r'(<c r="[I-S]\d+"[^>]*>(?:<f[^>]*/>|<f[^>]*>[^<]*</f>)?)<v>[^<]*</v>', r"\1", xml)
    bare = re.sub(r'(<c r="[I-S]\d+")([^>]*?) t="(?:str|s|n|b)"', r"\1\2", bare)
    book = rebuild(src, tmp_path / "bare.xlsx", replace={part: bare.encode()})
    with pytest.raises(FormatError, match=r"bare\.xlsx: the workbook's results were never calculated \(Ledger!K5"):
        read_season_book(book)
    bad = typed(season_books["handicap"], tmp_path / "bad.xlsx", {"Handicaps": {"F6": "#VALUE!"}})
    with pytest.raises(FormatError, match=r"bad\.xlsx, Handicaps!F6: the handicap shows an error .*'#VALUE!'"):
        read_season_book(bad)
