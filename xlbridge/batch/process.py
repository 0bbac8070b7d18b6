"""A process xlbridge starts dies with the one that started it (Linux ``prctl``).

In: the parent's process id. Out: nothing; the calling process is killed when that parent dies,
or exits at once when it is gone already. Used by the engine's child and the forked second-half
reading, so that a killed run leaves no process behind. :class:`ForkedHalf`: a forked process working
on half a part (the gate's scan, the engine's reading), started with the signals held.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
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


def _resume(mask: Any, paused: tuple[float, float]) -> None:
    """Restore the signal ``mask`` and the real-time timer ``paused`` (seconds it had left, when it was paused)."""
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    left, at = paused
    if left > 0:
        signal.setitimer(signal.ITIMER_REAL, max(left - (time.monotonic() - at), 0.001))


#: the signals whose Python handlers may raise in the command's processes (an interrupt, a termination, a hang-up,
#: the time limit's alarm): held from just before a half is forked until the caller holds it in a ``with`` block
_HELD = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGALRM)


class ForkedHalf:
    """A forked process working on half a part, and the read end of the pipe it answers on: :meth:`close`
    (also on leaving a ``with`` block) kills and reaps it, closes the pipe and lets the held signals through,
    whatever happened. ``pid`` 0: no process (or reaped); ``fd`` -1: no pipe (or read).

    Made by :meth:`start`, with the signals of :data:`_HELD` held and the time limit's timer paused: a
    handler that raises (the time limit, an interrupt) cannot run between the fork and the process's id
    being recorded, in either process.
    The caller lets them through with :meth:`release` inside the ``with`` block (or its ``try``) that
    closes the half, so that a handler raising there still has the process killed and reaped.
    """

    def __init__(self, pid: int = 0, fd: int = -1) -> None:
        self.pid, self.fd = pid, fd
        self.held: Any = None  # the signal mask to restore (None: nothing held)

    @classmethod
    def start(cls, body: Any, fork: Any = None, **fields: Any) -> Any:
        """Fork a process running ``body(w, parent)`` (``w``: the write end of its pipe; ``parent``: this
        process's id), which never returns to the caller's code (it leaves with ``os._exit``); return the
        half (``cls(pid, fd)``, then ``fields`` set on it) with the signals held, or None when no process
        can be forked. ``fork``: what forks (``os.fork``).

        >>> half = ForkedHalf.start(lambda w, parent: os.write(w, b"counted"))
        >>> with half:
        ...     half.release()
        ...     half.read_answer()
        b'counted'
        >>> half.pid, half.fd
        (0, -1)
        """
        if not hasattr(signal, "pthread_sigmask") or not hasattr(signal, "setitimer"):  # pragma: no cover  (not POSIX)
            return None
        parent = os.getpid()
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, ())  # (a handler already due runs here: nothing yet)
        r = w = pid = -1
        paused = (0.0, time.monotonic())
        try:
            signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
            # the time limit's timer paused too: a mask holds a signal in this thread only, and the kernel may give
            # a process's SIGALRM to another thread (the engine's process watches its parent in one)
            paused = (signal.setitimer(signal.ITIMER_REAL, 0)[0], time.monotonic())
            r, w = os.pipe()
            pid = (fork or os.fork)()
        except BaseException as exc:  # (no pipe or no fork: OSError; or a handler due just before the mask took)
            if os.getpid() != parent:  # pragma: no cover  (the forked process: never the caller's code)
                os._exit(1)
            _resume(previous, paused)
            for fd in (r, w):
                if fd >= 0:
                    os.close(fd)
            if pid > 0:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
            if isinstance(exc, OSError):
                return None
            raise
        if pid == 0:  # pragma: no cover  (the forked process: measured by its result)
            try:
                for sig in _HELD:  # (never the command's own handlers: the default actions)
                    signal.signal(sig, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_SETMASK, previous)
                os.close(r)
                body(w, parent)
            finally:
                os._exit(1)
        os.close(w)
        half = cls(pid, r)
        half.held = (previous, paused)
        for key, value in fields.items():
            setattr(half, key, value)
        return half

    def release(self) -> None:
        """Let the held signals through and the time limit's timer go on (a handler due runs now: inside the
        caller's ``with`` block)."""
        held, self.held = self.held, None
        if held is not None:
            _resume(*held)

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
        self.release()

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
