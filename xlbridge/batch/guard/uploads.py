"""The guard of the commands that read an upload in this process: ``xlbridge import``, ``export``, ``publish``.

``xlbridge recalc`` runs the formula engine in a child process with an address-space limit and an
alarm (:mod:`xlbridge.batch.evaluate.child`); the file commands read a PBN, USEBIO or workbook file in the
command's own process, so :func:`upload_limits` puts the same limits (:class:`~xlbridge.batch.guard.limits.SafetyLimits`:
``max_memory`` and ``max_seconds``, the defaults of ``--max-memory`` and ``--timeout``) on this
process for the duration of the work:

- memory: the soft ``RLIMIT_AS`` (address space) of the process is lowered to ``max_memory`` (never
  raised: a lower limit set by the caller stays); an allocation past it raises ``MemoryError``, which
  the command reports as ``refused: memory limit of N MiB reached``.  A process whose address space
  is already past the limit when the block starts (``--max-memory`` below the 150-170 MiB the command
  itself starts at, or a long-lived program calling the command's ``main``) is refused at once, the
  same way: no value switches the limit off;
- time: ``SIGALRM`` after ``max_seconds`` raises :class:`TimeLimitReached` wherever the work is (a
  ``BaseException``, so no ``except Exception`` of a reader swallows it; every ``finally`` runs, so
  temporary files go); should Python code not run again (a long call in C holding the interpreter),
  a watchdog process forked at the start prints the one-line refusal 5 s later and ends the command
  with SIGKILL (what is left is a killed run's, removed by the next run). The watchdog leaves when
  the command ends or dies (it polls its parent's id).

Both are restored on leaving.  POSIX only (``resource``, ``signal.setitimer``); elsewhere nothing is
limited.

>>> with upload_limits(DEFAULT_LIMITS, "club.pbn"):
...     sum(range(10))
45
>>> refusal_line(TimeLimitReached(2.5), DEFAULT_LIMITS)
'refused: time limit of 2.5 s reached'
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

from .limits import DEFAULT_LIMITS, SafetyLimits

__all__ = ["DEFAULT_LIMITS", "TimeLimitReached", "upload_limits", "refusal_line", "HARD_STOP_GRACE"]

#: seconds between the alarm and the watchdog's hard stop, for a run stuck in C code
HARD_STOP_GRACE = 5.0


class TimeLimitReached(BaseException):
    """The time limit of a guarded run (raised by ``SIGALRM`` where the run is; not an ``Exception``)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


def _seconds_text(seconds: float) -> str:
    return f"{seconds:g}"


def _address_space() -> int:
    """This process's address space now (bytes; 0 where ``/proc`` does not say)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _start_watchdog(seconds: float, line: str) -> int | None:
    """Fork a process that, unless killed first, writes ``line`` on stderr and SIGKILLs this process
    after ``seconds``; it leaves at once when this process is gone.  Returns its id (None: no fork)."""
    import time

    if not hasattr(os, "fork"):  # pragma: no cover
        return None
    parent = os.getpid()
    data = (line.rstrip("\n") + "\n").encode("utf-8", "backslashreplace")
    try:
        pid = os.fork()
    except OSError:
        return None
    if pid:
        return pid
    try:  # the watchdog: never returns into the command's code, whatever happens
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGALRM):
            signal.signal(sig, signal.SIG_IGN)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if os.getppid() != parent:
                os._exit(0)
            time.sleep(min(0.1, max(deadline - time.monotonic(), 0)))
        if os.getppid() == parent:
            os.write(2, data)
            os.kill(parent, signal.SIGKILL)
    finally:
        os._exit(0)


def _stop_watchdog(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.waitpid(pid, 0)


def refusal_line(exc: BaseException, limits: SafetyLimits) -> str:
    """The refusal (without the file's name) for a limit reached: time or memory."""
    if isinstance(exc, TimeLimitReached):
        return f"refused: time limit of {_seconds_text(exc.seconds)} s reached"
    return f"refused: memory limit of {limits.max_memory >> 20:,} MiB reached"


@contextlib.contextmanager
def upload_limits(limits: SafetyLimits, name: str, prog: str = "xlbridge") -> Iterator[None]:
    """Bound this process's memory and time by ``limits`` while the block runs (see the module's text).

    ``name`` (the upload's name as the user gave it, shown as it is: the caller escapes it) and
    ``prog`` make the watchdog's line: ``PROG: NAME: refused: time limit of N s reached``.
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        resource = None  # type: ignore[assignment]
    old_as: Any = None
    if resource is not None:
        try:
            old_as = resource.getrlimit(resource.RLIMIT_AS)
            soft, hard = old_as
            want = limits.max_memory
            if hard != resource.RLIM_INFINITY:
                want = min(want, hard)
            if soft == resource.RLIM_INFINITY or want < soft:
                if _address_space() >= want:  # no value switches the limit off: refused at once
                    raise MemoryError(f"address space already past {want} bytes")
                resource.setrlimit(resource.RLIMIT_AS, (want, hard))
            else:
                old_as = None
        except (ValueError, OSError):
            old_as = None
    main = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    previous: Any = None
    watcher: int | None = None
    if main:
        def on_alarm(signum: int, frame: FrameType | None) -> None:
            raise TimeLimitReached(limits.max_seconds)

        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, limits.max_seconds)

        watcher = _start_watchdog(limits.max_seconds + HARD_STOP_GRACE,
                                  f"{prog}: {name}: {refusal_line(TimeLimitReached(limits.max_seconds), limits)}")
    try:
        yield
    finally:
        if watcher is not None:
            _stop_watchdog(watcher)
        if main:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)
        if old_as is not None and resource is not None:
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(resource.RLIMIT_AS, old_as)
        sys.stderr.flush()
