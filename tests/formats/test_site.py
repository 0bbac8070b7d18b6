"""The switch of a published site (xlbridge/formats/site.py): what a signal or a time limit arriving after it
leaves, and the first publish into a folder of earlier pages (swapped with the new site in one step)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from xlbridge.core.files import WRITTEN
from xlbridge.formats import read_pbn, site as site_module
from xlbridge.formats.site import publish_site

OLD = read_pbn(b'[Event "Old"]\n[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 2 420\n2 1 400\n')
NEW = read_pbn(b'[Event "New"]\n[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n3 4 420\n4 3 400\n')


class Stop(BaseException):
    """Stands for a signal turned into an exception (the command's handlers raise one)."""


def _pages(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def _new(folder: Path) -> bool:
    """``folder`` serves the new event alone (pairs 3 and 4, not the old event's 1 and 2 or older pages)."""
    pages = _pages(folder)
    return "pair-NS-3.html" in pages and not any(n.startswith("pair") and n.endswith(("-1.html", "-9.html")) for n in pages)


def _stop_after_switch(monkeypatch, when: str):
    """Raise :class:`Stop` at the first fsync of the parent folder (right after the switch) or while the
    previous site is removed."""
    if when == "fsync":
        real = site_module._fsync_dir

        def fsync(path):
            if not os.path.basename(path).startswith("site-"):
                raise Stop
            real(path)

        monkeypatch.setattr(site_module, "_fsync_dir", fsync)
    else:
        def rmtree(path, ignore_errors=False):
            raise Stop

        monkeypatch.setattr(site_module.shutil, "rmtree", rmtree)


@pytest.mark.parametrize("when", ["fsync", "cleanup"])
def test_a_signal_after_the_switch_says_the_new_site_stands(tmp_path, monkeypatch, when):
    out = tmp_path / "site"
    publish_site(OLD, out)
    _stop_after_switch(monkeypatch, when)
    with pytest.raises(Stop) as stopped:
        publish_site(NEW, out)
    monkeypatch.undo()
    assert getattr(stopped.value, WRITTEN) == str(out)  # the command says so instead of "nothing written"
    assert out.is_symlink() and _new(out)
    publish_site(NEW, out)  # a later run removes what the stopped one left in the store
    store = sorted(p.name for p in (tmp_path / ".site.xlbridge-site").iterdir())
    assert store == [".lock", os.readlink(out).split("/")[-1]]


def test_a_signal_before_the_switch_leaves_the_old_site_and_says_nothing_was_written(tmp_path, monkeypatch):
    out = tmp_path / "site"
    publish_site(OLD, out)
    before = os.readlink(out)

    def symlink(*args):
        raise Stop

    monkeypatch.setattr(site_module.os, "symlink", symlink)
    with pytest.raises(Stop) as stopped:
        publish_site(NEW, out)
    monkeypatch.undo()
    assert getattr(stopped.value, WRITTEN, None) is None
    assert os.readlink(out) == before and "pair-NS-1.html" in _pages(out)


@pytest.mark.parametrize("swap", [True, False])
def test_a_folder_of_earlier_pages_is_replaced_whole(tmp_path, monkeypatch, swap):
    """The first publish into a plain folder of an earlier xlbridge's pages: swapped with the new site in one
    step where the system can (Linux renameat2), else moved aside and replaced; either way the folder ends as
    a link to the new site alone, and the old pages are gone."""
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("old")
    (out / "pair-9.html").write_text("old")
    calls = []
    real = site_module.exchange

    def exchange(a, b):
        calls.append((a, b))
        return real(a, b) if swap else False

    monkeypatch.setattr(site_module, "exchange", exchange)
    publish_site(NEW, out)
    assert len(calls) == 1
    assert out.is_symlink() and _new(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".site.xlbridge-site", "site"]
    store = sorted(p.name for p in (tmp_path / ".site.xlbridge-site").iterdir())
    assert store == [".lock", os.readlink(out).split("/")[-1]]


def test_a_folder_swapped_out_by_a_killed_run_is_removed_by_the_next(tmp_path):
    """SIGKILL between the swap and the move into the store leaves the old folder at the link's name."""
    out = tmp_path / "site"
    publish_site(OLD, out)
    left = tmp_path / ".site.xlbridge-link-99999"
    left.mkdir()
    (left / "index.html").write_text("old")
    publish_site(NEW, out)
    assert not left.exists() and _new(out)
