"""A season's results site (issue 40): ``xlbridge publish A B C -o DIR`` gives one site, each event in a folder of
its own and an index of the events by date, newest first; published all or nothing, like one event's site."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from xlbridge.formats import read_pbn
from xlbridge.formats.errors import FormatError
from xlbridge.formats.site import publish_season_site, publish_site

ROOT = Path(__file__).resolve().parents[2]


def _pbn(name: str, date: str | None, club: str = "Riverside", pairs: tuple[int, int] = (1, 2)) -> bytes:
    a, b = pairs
    tags = f'[Event "{name}"]\n[Site "{club}"]\n' + (f'[Date "{date}"]\n' if date else "")
    return (tags + f'[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n{a} {b} 420\n{b} {a} 400\n').encode()


def _links(page: Path) -> list[str]:
    return re.findall(r'<a href="([^"]+)">([^<]*)</a>', page.read_text(encoding="utf-8"))


def test_the_index_lists_the_events_newest_first_and_each_page_leads_back(tmp_path):
    events = [read_pbn(_pbn("Tuesday Pairs", "2026.11.03")), read_pbn(_pbn("No date", None)),
              read_pbn(_pbn("Cup final", "2026.11.24")), read_pbn(_pbn("Tuesday Pairs", "2026.11.03", pairs=(3, 4)))]
    site = publish_season_site(events, tmp_path / "season", names=["a.pbn", "b.pbn", "c.pbn", "d.pbn"])
    index = tmp_path / "season" / "index.html"
    assert _links(index) == [("2026-11-24-Cup_final/index.html", "Cup final"),
                             ("2026-11-03-Tuesday_Pairs/index.html", "Tuesday Pairs"),
                             ("2026-11-03-Tuesday_Pairs-2/index.html", "Tuesday Pairs"),  # (the same name: kept apart)
                             ("No_date/index.html", "No date")]  # (undated: last)
    text = index.read_text(encoding="utf-8")
    assert "<h1>Riverside: results</h1>" in text and "<th>Club</th>" not in text  # (one club: in the title)
    for folder, _ in _links(index):
        home = tmp_path / "season" / folder
        assert ("../index.html", "All events") in _links(home)  # each event's pages lead back to the season
        assert ("../index.html", "All events") in _links(home.parent / "board-1.html")
    assert "pair-NS-3.html" in {p.name for p in (tmp_path / "season" / "2026-11-03-Tuesday_Pairs-2").iterdir()}
    assert site.files == sum(1 for p in (tmp_path / "season").rglob("*") if p.is_file())


def test_events_of_several_clubs_show_their_club(tmp_path):
    events = [read_pbn(_pbn("A", "2026.01.02", club="North")), read_pbn(_pbn("B", "2026.01.09", club="South"))]
    publish_season_site(events, tmp_path / "s")
    text = (tmp_path / "s" / "index.html").read_text(encoding="utf-8")
    assert "<h1>Results</h1>" in text and "<td>North</td>" in text and "<td>South</td>" in text


def test_the_bound_is_the_whole_sites_and_a_refusal_leaves_the_old_site(tmp_path, monkeypatch):
    from xlbridge.formats import site

    out = tmp_path / "s"
    publish_site(read_pbn(_pbn("Old", None)), out)
    events = [read_pbn(_pbn("A", "2026.01.02")), read_pbn(_pbn("B", "2026.01.09"))]
    # one event's site is about 7,000 bytes: a bound of 10,000 holds either, not both with the index
    monkeypatch.setattr(site, "SITE_BASE_BYTES", 10_000)
    publish_site(events[0], tmp_path / "one", input_bytes=0)
    with pytest.raises(FormatError, match="larger than 10,000 bytes"):
        publish_season_site(events, out, input_bytes=0, names=["a.pbn", "b.pbn"])
    assert "Old" in (out / "index.html").read_text(encoding="utf-8")  # all or nothing
    assert not any(p.name.startswith("2026") for p in out.iterdir())


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "xlbridge", *args], cwd=cwd, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_the_command_publishes_a_season_and_names_a_bad_file(tmp_path):
    (tmp_path / "a.pbn").write_bytes(_pbn("A", "2026.01.02"))
    (tmp_path / "b.pbn").write_bytes(_pbn("B", "2026.01.09"))
    (tmp_path / "bad.pbn").write_bytes(b'[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 2 410\n')
    done = _run(["publish", "a.pbn", "b.pbn", "-o", "site"], tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("site: 2 events, ")
    assert [name for _, name in _links(tmp_path / "site" / "index.html")] == ["B", "A"]
    done = _run(["publish", "a.pbn", "bad.pbn", "-o", "site2"], tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "bad.pbn" in done.stderr
    assert not (tmp_path / "site2").exists()
    (tmp_path / "site3").write_bytes(b"")  # an output that is the second source itself: that file is named
    done = _run(["publish", "a.pbn", "site3", "-o", "site3"], tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("xlbridge publish: site3: the output would overwrite")
