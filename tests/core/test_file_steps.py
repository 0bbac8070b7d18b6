"""xlbridge.core.files: signals held back over the steps that put an output in place, and the one-step swap."""

from __future__ import annotations

import os
import signal

import pytest

from xlbridge.core.files import exchange, signals_held


class Stop(BaseException):
    pass


def _raise(signum, frame):
    raise Stop(signum)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_inside_the_block_comes_after_it(sig):
    previous = signal.signal(sig, _raise)
    steps = []
    try:
        with pytest.raises(Stop):
            with signals_held():
                os.kill(os.getpid(), sig)
                steps.append("renamed")
                steps.append("noted")
            steps.append("after")  # never reached: the signal is delivered as the block ends
    finally:
        signal.signal(sig, previous)
    assert steps == ["renamed", "noted"]
    assert sig not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # nothing left blocked


def test_exchange_swaps_a_folder_and_a_link_in_one_step(tmp_path):
    (tmp_path / "store").mkdir()
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "old.html").write_text("old")
    (tmp_path / "store" / "new.html").write_text("new")
    os.symlink("store", tmp_path / "link")
    if not exchange(str(tmp_path / "link"), str(tmp_path / "site")):
        pytest.skip("this system or file system cannot swap two paths (renameat2)")
    assert os.path.islink(tmp_path / "site") and os.readlink(tmp_path / "site") == "store"
    assert not os.path.islink(tmp_path / "link") and os.listdir(tmp_path / "link") == ["old.html"]


def test_exchange_of_a_missing_path_is_an_error_and_changes_nothing(tmp_path):
    (tmp_path / "a").write_text("a")
    with pytest.raises(OSError):
        exchange(str(tmp_path / "a"), str(tmp_path / "missing"))
    assert (tmp_path / "a").read_text() == "a" and not (tmp_path / "missing").exists()
