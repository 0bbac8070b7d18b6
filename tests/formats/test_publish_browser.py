"""The results site in a real browser (issue 53): Debian's Chromium, headless, driven by Playwright.

Every kind of page (season index, event index, board, pair scorecard, team scorecard, match, ratings, league) of
three sites (the sample session, the teams example, a season with both, the ratings and the league: the
``sites`` fixture, built once a session) is opened at 390 px (a phone) and at 1280 px (a desktop): the document
is no wider than the window, and every cell of every table a reader needs (every table but the one drawn to be
wider, the weekly ratings, which scrolls inside a box of its own) lies inside the window, its text not cut.
axe-core (bundled by axe-playwright-python) runs in the same browser on each kind of page: no serious or
critical finding.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from browser import CHROMIUM, launched  # noqa: E402,F401  (tests/browser.py: the run's Chromium)

#: (site, page) of every kind of page
PAGES = [
    ("season", "index.html"),
    ("season", "ratings.html"),
    ("season", "league.html"),
    ("season", "2026-11-26-Thursday_Pairs/index.html"),
    ("session", "index.html"),
    ("session", "board-1.html"),
    ("session", "pair-NS-2.html"),
    ("session", "pair-EW-13.html"),
    ("teams", "index.html"),
    ("teams", "board-1.html"),
    ("teams", "pair-1.html"),
    ("teams", "match-1-2.html"),
]
WIDTHS = (390, 1280)

#: For each table on the page: its headers as shown, and for each row the right edge of every cell shown, the
#: widest its text would need (``scrollWidth``) against what it has (``clientWidth``); the window's width and the
#: document's.
MEASURE = """() => {
  const tables = [];
  for (const t of document.querySelectorAll('main table:not(.deal)')) {
    const box = t.closest('.t');
    if (box && box.getAttribute('role') === 'region') continue;   // drawn to scroll inside its own box
    const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).display !== 'none';
    const heads = [...t.querySelectorAll('thead th')].filter(shown).map(th => th.textContent.trim());
    const cells = [];
    for (const tr of t.querySelectorAll('tbody tr')) {
      for (const td of [...tr.children].filter(shown)) {
        const r = td.getBoundingClientRect();
        cells.push({text: td.textContent.trim(), left: r.left, right: r.right, need: td.scrollWidth,
                    has: td.clientWidth});
      }
    }
    tables.push({heads, cells});
  }
  return {window: window.innerWidth, document: document.documentElement.scrollWidth, tables};
}"""


@pytest.fixture(scope="module")
def browser():
    yield from launched()


@pytest.fixture(scope="module")
def pages(browser):
    """One browser page per width, reused by the tests of this module."""
    out = {w: browser.new_page(viewport={"width": w, "height": 900}) for w in WIDTHS}
    yield out
    for p in out.values():
        p.close()


def _open(page, path: Path) -> None:
    assert path.exists(), path
    page.goto(path.as_uri())


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("site,name", PAGES, ids=[f"{s}:{n}" for s, n in PAGES])
def test_no_page_is_wider_than_the_window_and_every_cell_lies_inside_it(sites, pages, site, name, width):
    page = pages[width]
    _open(page, sites[site] / name)
    got = page.evaluate(MEASURE)
    assert got["window"] == width
    assert got["document"] <= width, f"{name} is {got['document']} px wide at {width} px"
    assert got["tables"], "no table measured"
    for table in got["tables"]:
        assert table["cells"], table["heads"]
        for cell in table["cells"]:
            assert 0 <= cell["left"] and cell["right"] <= width + 0.5, (table["heads"], cell)
            assert cell["need"] <= cell["has"] + 1, ("cut", table["heads"], cell)


def _heads(page) -> list[list[str]]:
    return [t["heads"] for t in page.evaluate(MEASURE)["tables"]]


def test_a_phone_shows_what_matters_and_leaves_out_the_rest(sites, pages):
    """At 390 px: the traveller shows the pairs, contract, score, both sides' matchpoints and the N-S percentage
    (By, Tricks and Lead folded into the contract or left out); the event index has no Max column (the same
    624 on every row, said once above it); the teams' match page has no Contract or By columns (the teams
    workbook has none)."""
    phone, desk = pages[390], pages[1280]
    _open(phone, sites["session"] / "board-1.html")
    assert _heads(phone)[-1] == ["N-S", "E-W", "Contract", "N-S score", "MP N-S", "MP E-W", "% N-S"]
    assert phone.locator("td.c").first.inner_text().strip() == "1NT N 6"  # (declarer and tricks after it)
    _open(desk, sites["session"] / "board-1.html")
    assert _heads(desk)[-1] == ["N-S", "E-W", "Contract", "By", "Tricks", "N-S +", "N-S −", "MP N-S", "MP E-W",
                                "% N-S"]  # (no Lead column: the file records no leads)
    for page in (phone, desk):
        _open(page, sites["session"] / "index.html")
        assert _heads(page)[0] == ["Place", "Pair", "Names", "Total", "%"]
        assert "Maximum 624 matchpoints" in page.inner_text("main")
        _open(page, sites["teams"] / "match-1-2.html")
        assert _heads(page)[0] == ["Board", "Score (Team A N-S)", "Score (Team B N-S)", "IMPs Team A", "IMPs Team B"]


def test_a_weighted_score_takes_at_most_two_lines(sites, pages):
    """Seed 004's weighted board on the teams example's match page: "420 (60 %), -50 (40 %)" on two lines at
    390 px (it wrapped over six before), one at 1280 px."""
    for width, lines in ((390, (1, 2)), (1280, (1,))):
        page = pages[width]
        _open(page, sites["teams"] / "match-1-2.html")
        cell = page.locator("td", has_text="420 (60 %)").first
        assert cell.inner_text().replace("\n", " ").split() == ["420", "(60", "%),", "-50", "(40", "%)"]
        height = cell.evaluate("td => td.getBoundingClientRect().height")
        line = cell.evaluate("td => parseFloat(getComputedStyle(td).lineHeight)")
        assert round((height - 4) / line) in lines, (width, height, line)


@pytest.mark.parametrize("site,name", PAGES, ids=[f"{s}:{n}" for s, n in PAGES])
def test_axe_core_finds_nothing_serious_or_critical(sites, pages, site, name):
    """axe-core's checks (language, headings, table headers, contrast of 4.5:1, link names, ...) at both widths."""
    from axe_playwright_python.sync_playwright import Axe

    for width in WIDTHS:
        page = pages[width]
        _open(page, sites[site] / name)
        results = Axe().run(page)
        found = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
                 for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
        assert found == [], (name, width, found)
        assert len(results.response["passes"]) > 10  # (axe ran its checks on the page)


def test_axe_core_here_does_find_low_contrast_a_nameless_image_and_no_language(pages, tmp_path):
    """The check above can fail: a page with grey text on white (2.3:1) and an image without a name gives axe-core
    serious findings in this browser."""
    from axe_playwright_python.sync_playwright import Axe

    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><head><title>x</title></head><body><main><p style="color:#aaa">grey</p>'
                   '<img src="x.png"></main></body></html>', encoding="utf-8")
    page = pages[1280]
    _open(page, bad)
    ids = {v["id"] for v in Axe().run(page).response["violations"] if v["impact"] in ("serious", "critical")}
    assert {"color-contrast", "image-alt", "html-has-lang"} <= ids, ids


def test_every_page_has_a_language_headings_in_order_and_headers_with_scope(sites):
    """The basics axe-core checks, read from every page's HTML too: ``lang``, one ``h1`` then ``h2`` (never a
    level skipped), every ``th`` with ``scope``, and no link named by a bare number."""
    import re

    import html5lib

    seen = 0
    for folder in sites.values():
        for path in folder.rglob("*.html"):
            text = path.read_text(encoding="utf-8")
            doc = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)
            assert doc.get("lang") == "en", path
            levels = [int(h.tag[1]) for h in doc.iter() if isinstance(h.tag, str) and re.fullmatch(r"h[1-6]", h.tag)]
            assert levels[0] == 1 and levels.count(1) == 1, path
            assert all(b - a <= 1 for a, b in zip(levels, levels[1:])), (path, levels)
            assert all(th.get("scope") == "col" for th in doc.iter("th")), path
            for a in doc.iter("a"):
                name = a.get("aria-label") or "".join(a.itertext())
                assert not name.strip().isdigit(), (path, name)
            seen += 1
    assert seen > 100


@pytest.mark.parametrize("site", ["session", "teams", "season"])
def test_every_page_of_the_three_sites_fits_a_phone(sites, pages, site):
    """The issue's goal, on every page (not one of each kind): at 390 px no page is wider than the window and
    every cell of its tables lies inside it."""
    page = pages[390]
    checked = 0
    for path in sorted(sites[site].rglob("*.html")):
        _open(page, path)
        got = page.evaluate(MEASURE)
        assert got["document"] <= 390, (path.name, got["document"])
        for table in got["tables"]:
            for cell in table["cells"]:
                assert 0 <= cell["left"] and cell["right"] <= 390.5, (path.name, table["heads"], cell)
        checked += 1
    assert checked >= {"session": 50, "teams": 10, "season": 60}[site], checked
