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
