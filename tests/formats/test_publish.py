"""The static results site: valid HTML5 (html5lib, strict), everything escaped, no JavaScript, one stylesheet,
printable; rankings, travellers, scorecards, hand diagrams, double-dummy tables (endplay), teams matches."""

import re

import html5lib
import pytest

from xlbridge.formats import Board, Event, FormatError, Result, publish, read_pbn

from formats_samples import MITCHELL_PBN

HOSTILE = '<script>alert("x")</script>'


def _parse_strict(text: str):
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)


def _table(doc, k: int = 0) -> list[dict[str, str]]:
    """The body rows of the page's ``k``-th table (the hand diagram not counted), each {header: cell text}."""
    table = [t for t in doc.iter("table") if t.get("class") != "deal"][k]
    heads = ["".join(th.itertext()).strip() for th in table.find("thead").iter("th")]
    return [dict(zip(heads, ("".join(td.itertext()).strip() for td in tr.findall("td"))))
            for tr in table.find("tbody").findall("tr")]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    e = read_pbn(MITCHELL_PBN.replace("Ann Lee", HOSTILE.replace('"', "'")).replace(
        "Tuesday Pairs", "Tuesday <b>Pairs</b> & co").encode())
    paths = publish(e, out, dds="auto")
    return out, {p.name: p.read_text(encoding="utf-8") for p in paths}


def test_pages_written(site):
    _, pages = site
    assert sorted(pages) == ["board-1.html", "board-2.html", "board-3.html", "index.html", "pair-EW-1.html",
                             "pair-EW-2.html", "pair-EW-3.html", "pair-NS-1.html", "pair-NS-2.html",
                             "pair-NS-3.html", "style.css"]


def test_every_page_is_valid_html5_without_script(site):
    _, pages = site
    for name, text in pages.items():
        if not name.endswith(".html"):
            continue
        doc = _parse_strict(text)  # raises ParseError on any HTML5 parse error
        assert doc.findall(".//script") == [] and "<script" not in text.lower()
        assert [link.get("href") for link in doc.iter("link")] == ["style.css"]
        assert not re.search(r"\son\w+=", text)  # no event-handler attributes


def test_names_from_files_are_escaped(site):
    _, pages = site
    index = pages["index.html"]
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in index
    assert "Tuesday &lt;b&gt;Pairs&lt;/b&gt; &amp; co" in index


def test_links_resolve(site):
    out, pages = site
    for name, text in pages.items():
        for href in re.findall(r'href="([^"]+)"', text):
            assert (out / href).exists(), (name, href)


def test_rankings_per_field_with_places_names_percentages(site):
    _, pages = site
    doc = _parse_strict(pages["index.html"])
    heads = [h.text for h in doc.iter("h2")]
    assert heads[:2] == ["North-South", "East-West"]
    # hand-worked (tests/formats_samples.py): N-S 2 8.5/12 = 70.83 %, N-S 3 6.4 = 53.33 %, N-S 1 3.5 = 29.17 %;
    # the maximum, 12 for every pair, said once above the table (issue 53: a column the same on every row)
    assert [(r["Place"], r["Pair"], r["Total"], r["%"]) for r in _table(doc)] == [
        ("1", "NS 2", "8.50", "70.83"), ("2", "NS 3", "6.40", "53.33"), ("3", "NS 1", "3.50", "29.17")]
    assert "Max" not in _table(doc)[0] and "Maximum 12 matchpoints for each pair" in pages["index.html"]


def test_traveller_hand_diagram_and_double_dummy(site):
    _, pages = site
    b1 = pages["board-1.html"]
    assert "&spades; AKQJ" in b1 and "&clubs; J76432" in b1 and "10987" in b1  # T shown as 10
    doc = _parse_strict(b1)
    rows = _table(doc, -1)
    assert [(r["N-S"], r["E-W"], r["Tricks"], r["N-S +"], r["N-S score"], r["MP N-S"], r["MP E-W"], r["% N-S"])
            for r in rows] == [
        ("NS 1", "EW 1", "10", "420", "420", "2", "2", "50.00"), ("NS 2", "EW 2", "11", "450", "450", "4", "0", "100.00"),
        ("NS 3", "EW 3", "9", "400", "400", "0", "4", "0.00")]
    import endplay  # noqa: F401  (the dds extra is installed with the test extra)
    # North holds every ace, king and queen and South the next spades: 13 tricks in no-trumps and spades
    assert "Double dummy" in b1 and "7NT" in b1
    assert "Double dummy" not in pages["board-2.html"]  # no deal on board 2


def test_personal_scorecard(site):
    _, pages = site
    doc = _parse_strict(pages["pair-EW-3.html"])
    # E-W 3: board 1 v N-S 3 (-400 for E-W, 4 MP), board 2 v N-S 1 (+110, 3.5), board 3 v N-S 2 (+90, 3); no Dir
    # column (E-W on every row: the page is E-W 3's)
    rows = _table(doc)
    assert [(r["Board"], r["Versus"], r["Score"], r["MP"]) for r in rows] == [
        ("1", "NS 3", "-400", "4"), ("2", "NS 1", "110", "3.50"), ("3", "NS 2", "90", "3")]
    assert "Dir" not in rows[0]


def test_stylesheet_is_printable(site):
    _, pages = site
    assert "@media print" in pages["style.css"]


def test_dds_false_and_required(tmp_path):
    e = read_pbn(MITCHELL_PBN.encode())
    publish(e, tmp_path, dds=False)
    assert "Double dummy" not in (tmp_path / "board-1.html").read_text(encoding="utf-8")


def test_teams_standings_and_match_scorecard(tmp_path):
    rows = {1: (Result("1", "2", "4S", "N", 10), Result("2", "1", "4S", "N", 9)),
            2: (Result("1", "2", "3NT", "N", 9), Result("2", "1", "3NT", "N", 9))}
    e = Event(name="Teams of four", kind="TEAMS", scoring="IMP",
              boards=tuple(Board(b, "N", "None", results=r) for b, r in rows.items()))
    paths = {p.name: p.read_text(encoding="utf-8") for p in publish(e, tmp_path, dds=False)}
    assert "match-1-2.html" in paths and "Standings" in paths["index.html"]
    for name, text in paths.items():
        if name.endswith(".html"):
            _parse_strict(text)
    doc = _parse_strict(paths["match-1-2.html"])
    total = ["".join(td.itertext()) for td in doc.find(".//tbody")[-1].findall("td")]
    # board 1: 420 + 50 = 470 -> 10 IMPs to team 1; board 2 flat
    assert total[-2:] == ["10", "0"]



def test_pairs_whose_numbers_make_the_same_page_name_get_a_page_each(tmp_path):
    """Pair numbers A-1 and A.1 (and B.1, B-1) both make the page name pair-NS-A_1: every pair gets its own
    page, and every link to a pair leads to that pair's page (its title names it)."""
    e = read_pbn(b'[Event "x"]\n[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\nA-1 B.1 420\nA.1 B-1 400\n')
    pages = {p.name: p.read_text(encoding="utf-8") for p in publish(e, tmp_path, dds=False)}
    scorecards = {name: re.search(r"<h1>x: Pair (.*)</h1>", text).group(1)
                  for name, text in pages.items() if name.startswith("pair-")}
    assert sorted(scorecards.values()) == ["EW B-1", "EW B.1", "NS A-1", "NS A.1"]
    for name in ("index.html", "board-1.html"):
        for href, label in re.findall(r'<a href="(pair-[^"]+)">([^<]+)</a>', pages[name]):
            assert scorecards[href] == label, (name, href, label)


def test_publish_refuses_a_wrong_event(tmp_path):
    bad = Event(boards=(Board(1, "N", "None", results=(Result("1", "2", "4S", "N", 10, 410),)),))
    with pytest.raises(FormatError, match="410"):
        publish(bad, tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_weighted_score_is_published_with_its_outcomes_and_seed_004_matchpoints(tmp_path):
    """Seed 004 (EBU): 60 % of +420 and 40 % of -50 against 420, 400, 400, 170, -50 gives N-S 2.9, 4.7, 2.9,
    2.9, 1.4, 0.2 on the 1/0.5 scale, so 5.8, 9.4, 5.8, 5.8, 2.8, 0.4 of a top of 10 at 2/1."""
    from fractions import Fraction as F

    from xlbridge.formats import read_pbn, read_usebio, score_event, write_pbn, write_usebio

    weighted = Result("1", "11", "4S", "N", 10, 420, outcomes=((420, F(3, 5)), (-50, F(2, 5))))
    rows = (weighted,) + tuple(Result(str(k), str(10 + k), score=s) for k, s in zip(range(2, 7), (420, 400, 400, 170,
                                                                                               -50)))
    e = Event(boards=(Board(1, "N", "None", results=rows),))
    assert [r.mp_ns for r in score_event(e).boards[0].results] == [F(29, 5), F(47, 5), F(29, 5), F(29, 5), F(14, 5),
                                                                   F(2, 5)]
    board = {p.name: p for p in publish(e, tmp_path, dds=False)}["board-1.html"].read_text(encoding="utf-8")
    assert "420 (60 %), -50 (40 %)" in " ".join("".join(_parse_strict(board).itertext()).split())
    assert "58.00" in board and "94.00" in board
    # on at most two lines: each outcome never split (issue 53; tests/formats/test_publish_browser.py measures it)
    assert '<span class="o">420 (60 %),</span> <span class="o">-50 (40 %)</span>' in board
    # PBN and USEBIO carry the row as its own score with the weighted matchpoints, and the outcomes in
    # xlbridge's own field (docs/formats.md), so that reading the file back scores the board the same
    pbn = write_pbn(score_event(e)).decode().replace("\r\n", "\n")
    assert re.search(r'^ *1 +11 +4S +N +10 +420 +- +5\.8 +4\.2 .*"420 60%;-50 40%"$', pbn, re.M), pbn
    assert "Outcomes\\" in pbn and ";Outcomes" in pbn
    xml = write_usebio(score_event(e)).decode("latin-1")
    assert '<WEIGHTED_SCORE>\n' in xml and '<OUTCOME SCORE="420" WEIGHT="60%" />' in xml
    assert '<OUTCOME SCORE="-50" WEIGHT="40%" />' in xml and "<SCORE>420</SCORE>" in xml
    for back in (read_pbn(pbn.encode()), read_usebio(xml.encode("latin-1"))):
        assert back.boards[0].results[0].outcomes == ((420, F(3, 5)), (-50, F(2, 5)))
        assert [r.mp_ns for r in score_event(back).boards[0].results] == [F(29, 5), F(47, 5), F(29, 5), F(29, 5),
                                                                          F(14, 5), F(2, 5)]


def test_page_names_of_colliding_pair_ids_are_all_distinct_and_numbered_in_order():
    """Pair ids that make the same page name (``_slug`` keeps letters and digits: '!#', '$%', ... all
    give 'x') get '-2', '-3', ... in the pairs' order, skipping a name another id already has, as
    counting up from 1 for each of them does (the brute force here); each name is tried once, so 20,000
    such ids are named in linear time (before: counting up from 1 for each, 20,000 squared tries)."""
    from xlbridge.formats.publish import _unique_files

    def brute(names):
        taken, out = set(), {}
        for key, fname in names.items():
            stem, k, name = fname.removesuffix(".html"), 1, fname
            while name.casefold() in taken:
                k += 1
                name = f"{stem}-{k}.html"
            taken.add(name.casefold())
            out[key] = name
        return out

    small = {("NS", "a"): "p-x.html", ("NS", "b"): "p-x-3.html", ("NS", "c"): "p-x.html", ("NS", "d"): "P-X.html",
             ("EW", "e"): "p-x.html", ("EW", "f"): "p-x-2.html", ("EW", "g"): "p-y.html"}
    assert _unique_files(small) == brute(small)
    many = {("NS", str(i)): "pair-NS-x.html" for i in range(20_000)}
    got = _unique_files(many)
    assert len(set(got.values())) == 20_000
    assert got[("NS", "0")] == "pair-NS-x.html" and got[("NS", "19999")] == "pair-NS-x-20000.html"


def test_traveller_links_carry_the_pair_s_names(site):
    """Issue 40: a traveller names each pair by number, linking to its page, with its players on hover."""
    _, pages = site
    links = dict(re.findall(r'<a href="pair-NS-3\.html" title="([^"]*)">([^<]*)</a>', pages["board-1.html"]))
    assert links == {"Cy Fox &amp; Di Ode": "NS 3"}


def test_national_numbers_are_never_shown(tmp_path):
    """Issue 53 (41 showed them when asked): the players' national numbers never appear on the site; the command
    has no --numbers any more."""
    from xlbridge.cli import build_parser
    from xlbridge.formats import Participant

    e = Event(name="Club", participants=(Participant("1", None, ("Ann Lee", "Bob Roe"), ids=("12345", "")),
                                         Participant("2", None, ("Cy Fox", "Di Ode"), ids=("67890", "24680"))),
              boards=(Board(1, results=(Result("1", "2", "3NT", "S", 9, 400),)),))
    paths = publish(e, tmp_path / "site", dds=False)
    texts = [p.read_text(encoding="utf-8") for p in paths]
    assert any("Ann Lee &amp; Bob Roe" in t for t in texts)
    assert not [t for t in texts for n in ("12345", "67890", "24680") if n in t]
    with pytest.raises(SystemExit):
        build_parser().parse_args(["publish", "x.pbn", "-o", "site", "--numbers"])


def test_every_page_of_an_event_with_a_scorer_says_who_scored_it(tmp_path):
    """The issue: the scorer (a workbook's Scorer parameter) is shown in every page's header, after the club
    and the date, escaped as every text from a file; an event without one shows no "Scored by"."""
    import datetime as dt

    from xlbridge.formats import Participant

    e = Event(name="Club", date=dt.date(2026, 11, 26), site="Riverside", scorer="Dee <Scorer> & co",
              participants=(Participant("1", None, ("Ann Lee", "Bob Roe")), Participant("2", None, ("Cy Fox", "Di Ode"))),
              boards=(Board(1, results=(Result("1", "2", "3NT", "S", 9, 400),)),))
    paths = publish(e, tmp_path / "with", dds=False)
    pages = {p.name: p.read_text(encoding="utf-8") for p in paths if p.suffix == ".html"}
    assert sorted(pages) == ["board-1.html", "index.html", "pair-1.html", "pair-2.html"]
    for name, text in pages.items():
        _parse_strict(text)
        assert ('<p class="meta">Riverside &middot; 2026-11-26 &middot; Scored by Dee &lt;Scorer&gt; &amp; co</p>'
                in text), name
    plain = publish(Event(name="Club", site="Riverside", participants=e.participants, boards=e.boards),
                    tmp_path / "without", dds=False)
    assert not [p for p in plain if p.suffix == ".html" and "Scored by" in p.read_text(encoding="utf-8")]
