"""The run's real browser for the tests of web pages: Debian's Chromium (``.ci/run`` installs it), driven by
Playwright's Python package (never ``playwright install``: the machine has no internet), headless, with the
flags that keep it from reaching out to the network. Shared by tests/formats (the results site) and tests/serve
(the club's server)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def launched() -> Iterator[Any]:
    """A Chromium browser for a module's tests (a generator for a fixture to ``yield from``); skips the tests
    where Chromium is not installed."""
    if not os.path.exists(CHROMIUM):
        pytest.skip("Chromium is not installed (.ci/run installs it: apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
