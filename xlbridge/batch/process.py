"""A process xlbridge starts dies with the one that started it (Linux ``prctl``).

In: the parent's process id. Out: nothing; the calling process is killed when that parent dies,
or exits at once when it is gone already. Used by the engine's child and the forked second-half
reading, so that a killed run leaves no process behind.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import Any

__all__ = ["ForkedHalf", "set_parent_death_signal"]


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


class ForkedHalf:
    """A forked process working on half a part, and the read end of the pipe it answers on: :meth:`close`
    (also on leaving a ``with`` block) kills and reaps it and closes the pipe, whatever happened.
    ``pid`` 0: no process (or reaped); ``fd`` -1: no pipe (or read)."""

    def __init__(self, pid: int = 0, fd: int = -1) -> None:
        self.pid, self.fd = pid, fd

    def read_answer(self) -> bytes | None:
        """Everything the process wrote on the pipe, until it closed it (None: no pipe); the pipe is read once."""
        if self.fd < 0:
            return None
        fd, self.fd = self.fd, -1
        with os.fdopen(fd, "rb") as reader:
            return reader.read()

    def close(self) -> None:
        if self.pid:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(self.pid, 0)
            self.pid = 0
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
