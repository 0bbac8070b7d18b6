"""The command line's limits: their defaults and help texts are the guard's (SafetyLimits), never restated."""

from __future__ import annotations

import dataclasses
import re

import pytest

from xlbridge import cli
from xlbridge.batch.guard import limits




@pytest.mark.parametrize("command", ["recalc", "import", "export", "publish"])
def test_help_shows_the_guards_limits(command, capsys, monkeypatch):
    # other values than the shipped ones: the help can only show them by reading the guard's limits
    odd = dataclasses.replace(limits.DEFAULT_LIMITS, max_seconds=123.5, max_memory=777 << 20, max_cells=4321)
    monkeypatch.setattr(limits, "DEFAULT_LIMITS", odd)
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())  # (argparse wraps the lines)
    assert "(default 123.5; more than 0, at most 86400)" in text
    assert "(default 777; 1 to 1048576)" in text
    assert ("(default 4321; 1 to 100000000)" in text) == (command == "recalc")
    assert not re.search(r"default (600|4096|1000000)\b", text)


@pytest.mark.parametrize("command", ["recalc", "export"])
def test_help_shows_the_shipped_defaults(command, capsys):
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    shipped = limits.SafetyLimits()
    # the documented defaults (docs/recalc.md, "Every limit and its default"): 600 s, 4096 MiB, 1,000,000 cells
    assert (shipped.max_seconds, shipped.max_memory >> 20, shipped.max_cells) == (600, 4096, 1_000_000)
    assert "(default 600; more than 0, at most 86400)" in text
    assert "(default 4096; 1 to 1048576)" in text
