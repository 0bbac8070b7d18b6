"""Fixtures of the formats tests: the pairs and teams templates as bytes, built once per session."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def teams_template() -> bytes:
    from recalc_helpers import small_build

    return small_build("teams.xlsx", rows=400).read_bytes()  # (400 Boards rows: loads in a tenth of the time)


@pytest.fixture(scope="session")
def pairs_template() -> bytes:
    from recalc_helpers import small_build

    return small_build("pairs.xlsx", rows=400).read_bytes()  # (400 Travellers rows: loads in 0.1 s, not 3 s)


# ---- the results sites of issue 53 (phone layout, the season's books, privacy, accessibility): built once a session

from pathlib import Path  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "workbooks" / "examples"


@pytest.fixture(scope="session")
def season_books():
    """The Lehman and handicap examples recalculated by ``xlbridge recalc`` (once a run): ``{"lehman": path,
    "handicap": path}``."""
    from recalc_helpers import recalculated

    return {name: recalculated(EXAMPLES / f"{name}.xlsx") for name in ("lehman", "handicap")}


def national_number(k: int, j: int) -> str:
    """The national number the ``sites`` fixture gives player ``j`` of participant ``k`` (``EBU0123Q``): text no
    figure of a page can hold by chance."""
    return f"EBU{k:03d}{j}Q"


@pytest.fixture(scope="session")
def sites(tmp_path_factory, season_books):
    """Three sites: the sample session (``workbooks/examples/club-session.pbn``, deals and all), the teams example
    with its event details typed in, and a season of both with the ratings and the league; ``{name: folder}``.
    Every player has a national number (:func:`national_number`)."""
    import datetime as dt
    from dataclasses import replace

    from xlbridge import formats
    from xlbridge.formats.publish import publish, publish_season
    from xlbridge.formats.seasonbooks import read_season_book
    from xlbridge.formats.workbook import read_workbook

    root = tmp_path_factory.mktemp("sites")

    def numbered(event):  # every player a national number (national_number), which no page may show
        return replace(event, participants=tuple(
            replace(p, ids=tuple(national_number(k, j) for j in range(max(len(p.names), 1))))
            for k, p in enumerate(event.participants)))

    session = numbered(formats.read_event(EXAMPLES / "club-session.pbn"))
    teams = numbered(replace(read_workbook(EXAMPLES / "teams.xlsx"), name="Autumn Swiss Teams",
                             date=dt.date(2026, 11, 26), site="Riverside Bridge Club", scorer="Dee Scorer"))
    publish(session, root / "session", dds=False)
    publish(teams, root / "teams", dds=False)
    books = [read_season_book(season_books[name]) for name in ("lehman", "handicap")]
    publish_season([session, teams], root / "season", dds=False, books=books)
    return {"session": root / "session", "teams": root / "teams", "season": root / "season"}
