"""A process xlbridge starts dies with the one that started it (Linux ``prctl``).

In: the parent's process id. Out: nothing; the calling process is killed when that parent dies,
or exits at once when it is gone already. Used by the engine's child and the forked second-half
reading, so that a killed run leaves no process behind.
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["set_parent_death_signal"]


def set_parent_death_signal(parent_pid: int) -> None:
    """Linux: be sent SIGKILL when the parent dies (``prctl(PR_SET_PDEATHSIG)``); exit if it is gone already."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)
