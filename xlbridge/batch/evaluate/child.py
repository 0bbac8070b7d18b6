"""The engine's child process: its own session, killed with the parent, bounded in memory and time.

:class:`ChildProcess` forks a child that runs one job (:func:`xlbridge.batch.evaluate.splice.evaluate_and_splice`)
in an empty private folder, under an audit hook that refuses opening any other file, sockets and
new processes; :func:`run_engine` turns its outcome into values or a one-line refusal naming the
limit and where it was reached (docs/recalc.md, "The engine's process").

>>> _where(("TRAVELLERS", "K7"), ("evaluating", ""), {"TRAVELLERS": "Travellers"})
'in sheet Travellers, cell K7'
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import signal
import sys
import time
import typing
from collections.abc import Callable
from typing import Any

from ...core.errors import WorkbookError, WorkbookLimitError
from ..guard.safety import SafetyLimits, clip, one_line, scrub_paths
from .engine import EngineStopped, engine_location, engine_modules, message_of
from ..read.halves import forking
from ..process import set_parent_death_signal
from .model import PHASE_SIZE, is_memory_error, record_phase, set_phase_sink
from .splice import evaluate_and_splice

__all__ = [
    "ChildProcess",
    "EngineJob",
    "engine_process",
    "run_engine",
]


class _TimeLimit(BaseException):
    """Raised in the child by SIGALRM at the time limit (a BaseException: no ``except Exception`` eats it)."""


def _raise_time_limit(signum, frame):
    raise _TimeLimit()


_SPREADSHEET_SUFFIXES = (".xlsx", ".xlsm", ".xltx", ".xltm", ".xls", ".xlsb", ".xlam", ".ods", ".csv", ".zip")

_BLOCKED_EVENTS = frozenset({
    "socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo", "socket.gethostbyname",
    "socket.gethostbyaddr", "socket.sendto", "urllib.Request", "webbrowser.open",
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "os.startfile", "pty.spawn",
    "os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.symlink", "os.link", "os.truncate", "os.chmod",
    "os.chown", "os.chdir", "os.listdir", "os.scandir", "shutil.rmtree", "shutil.copyfile", "shutil.move",
    "glob.glob",
})

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _install_file_guard(readable) -> None:
    """In the child only: an audit hook (PEP 578) refusing files, sockets and processes.

    Allowed: reading the files in ``readable`` (the engine's copy of the workbook) and reading what
    the Python installation holds (modules imported late), spreadsheets excepted. Refused with
    ``PermissionError``: any other file, any write, listing or changing folders, sockets, URLs and
    starting processes. Audit hooks cannot be removed: this is never installed in the calling process.
    """
    import site

    allowed = {os.path.realpath(os.fspath(p)) for p in readable}
    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, *getattr(site, "getsitepackages", lambda: [])(),
             *[p for p in sys.path if p and p != "." and os.path.isabs(p)],
             # xlbridge's own package folder: an editable install (pip install -e) is found through an
             # import hook, not sys.path, and the engine imports function modules lazily
             os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    roots = tuple(sorted({os.path.realpath(p).rstrip(os.sep) + os.sep for p in folders if p}))

    def hook(event, args):
        if event == "open":
            target = args[0] if args else None
            if target is None or isinstance(target, int):
                return
            mode = args[1] if len(args) > 1 else None
            flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
            writing = bool(flags & _WRITE_FLAGS) or (isinstance(mode, str) and any(ch in mode for ch in "wax+"))
            try:
                real = os.path.realpath(os.fsdecode(target))
            except Exception:
                raise PermissionError("the formula engine may not open files") from None
            if not writing and (real in allowed or (real.startswith(roots)
                                                    and not real.lower().endswith(_SPREADSHEET_SUFFIXES))):
                return
            raise PermissionError("the formula engine may not open other files")
        if event in _BLOCKED_EVENTS:
            if event == "os.fork" and forking():  # the engine's own reading of a large part in two halves
                return
            if event in ("os.listdir", "os.scandir") and args and isinstance(args[0], (str, bytes)):
                # importing a module lists its package folder: allowed inside the Python installation
                with contextlib.suppress(Exception):
                    if (os.path.realpath(os.fsdecode(args[0])) + os.sep).startswith(roots):
                        return
            raise PermissionError(f"the formula engine may not do that ({event})")

    sys.addaudithook(hook)


def _watch_parent(fd: int) -> None:
    """Block on the read end of a pipe only the parent writes to; EOF means the parent is gone: exit."""
    try:
        while os.read(fd, 1):
            pass
    except OSError:
        pass
    os._exit(1)


def _send_early(conn, part) -> None:
    """Send a first part of the result with the time limit's timer paused, so that SIGALRM never cuts
    the message between its header and its body (a signal mask would not do: the child has other
    threads, and the kernel may deliver the signal to one of them); the timer then goes on with what
    was left."""
    if not hasattr(signal, "setitimer"):
        conn.send(("early", part))
        return
    left = signal.setitimer(signal.ITIMER_REAL, 0)[0]  # (a SIGALRM already due is raised here, before a byte)
    began = time.monotonic()
    try:
        conn.send(("early", part))
    finally:
        signal.setitimer(signal.ITIMER_REAL, max(left - (time.monotonic() - began), 0.001))


def _child_main(child: ChildProcess, conn, death_r, death_w, sink, parent_pid, early=False, go=None):
    """The body of the engine's child process (fork start method): sandbox first, then ``child.prepare()`` and,
    once the parent says so (one byte on the pipe ``go``, (read end, write end); anything else, or its end:
    exit), ``child.job()``."""
    import threading

    job: Any = child.job  # (called with ``early=`` when the parent takes a first part)
    workdir, max_memory, max_seconds = child.workdir, child.max_memory, child.max_seconds
    go_r: int | None = None if go is None else go[0]

    try:
        with contextlib.suppress(OSError):
            os.setsid()  # own session and process group: the parent kills the whole group
        for sig in (signal.SIGTERM, signal.SIGINT, getattr(signal, "SIGHUP", None)):
            if sig is not None:
                signal.signal(sig, signal.SIG_DFL)
        set_parent_death_signal(parent_pid)
        os.close(death_w)
        threading.Thread(target=_watch_parent, args=(death_r,), daemon=True).start()
        set_phase_sink(sink)
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (max_memory, max_memory))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        except (ImportError, ValueError, OSError):
            pass
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # nothing the engine prints reaches the user (tracebacks, paths)
            os.dup2(devnull, fd)
        os.close(devnull)
        if workdir is not None:
            os.chdir(workdir)
        if hasattr(signal, "setitimer"):
            signal.signal(signal.SIGALRM, _raise_time_limit)
            signal.setitimer(signal.ITIMER_REAL, max(max_seconds, 0.001))
        _young_collections_only()
        if go is not None:
            os.close(go[1])
            if child.prepare is not None:  # (the engine's own modules: nothing of the book is read before the go)
                record_phase("starting")
                child.prepare()
                import gc

                gc.freeze()  # (what it made lives to the end: no collection walks it)
        _install_file_guard(child.readable)
        if go_r is not None:
            if os.read(go_r, 1) != _GO:  # (the parent stopped before the job: nothing to do)
                os._exit(0)
            os.close(go_r)
        result = job(early=functools.partial(_send_early, conn)) if early else job()
        if hasattr(signal, "setitimer"):
            signal.setitimer(signal.ITIMER_REAL, 0)
        conn.send(("ok", result))
    except EngineStopped as exc:
        conn.send((exc.kind, exc.where))
    except WorkbookError as exc:  # a damaged or over-limit part, found while reading it
        conn.send(("refused", (isinstance(exc, WorkbookLimitError), exc.message, exc.where)))
    except _TimeLimit as exc:
        conn.send(("time", engine_location(exc)))
    except MemoryError as exc:
        conn.send(("memory", engine_location(exc)))
    except BaseException as exc:  # report anything to the parent as one line
        if is_memory_error(exc):
            conn.send(("memory", engine_location(exc)))
        else:
            conn.send(("error", one_line(f"{type(exc).__name__}: {message_of(exc)}", 300)))
    finally:
        conn.close()


_GO = b"g"


def _young_collections_only() -> None:
    """Keep CPython's garbage collector to its young generations in this short-lived process.

    The job builds a large heap that lives to its end (the sheets read, the engine's graph of cells):
    each full collection walks all of it and finds next to nothing, and CPython runs one for every
    100 young collections, ten times at 10,000 traveller rows (about 0.4 s of 2.5). Garbage in
    reference cycles is still collected while young; what outlives that is freed when the process
    ends, and the address-space limit (``RLIMIT_AS``) bounds the process either way.
    """
    import gc

    young, middle, _full = gc.get_threshold()
    gc.set_threshold(young, middle, 1 << 30)


class ChildProcess:
    """Run ``job()`` (no arguments: a closure or ``functools.partial``) in a sandboxed child process.

    The child (``fork`` start method: Linux and macOS; elsewhere :meth:`run` refuses):

    - has its own session and process group (``os.setsid``); the parent kills the whole group;
    - dies with the parent: ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` on Linux, and a thread blocked on
      a pipe only the parent holds open (EOF when the parent is gone, whatever the platform);
    - has its address space limited to ``max_memory`` (``RLIMIT_AS``) and no core dumps;
    - has SIGALRM at ``max_seconds`` (the limit is reported with the cell being evaluated); the
      parent kills it ``grace`` seconds later if it is stuck in C code;
    - works in ``workdir`` with stdin/stdout/stderr on ``/dev/null``;
    - may read only the files in ``readable`` and the Python installation: an audit hook refuses
      other files, writes, folder listings, sockets, URLs and new processes.

    :meth:`run` forks the child (unless :meth:`start` did) and waits for it (nothing else of the run happens
    meanwhile: each stage once, in order). :meth:`start` with ``wait_for_go`` forks it early: it runs ``prepare()``
    (the engine's imports, before the audit hook: nothing of the workbook) under the limits above, then waits
    until :meth:`run` (or :meth:`go`) lets the job run; :meth:`close` (a ``with`` block) kills it unstarted.
    With ``early``, the child runs ``job(early=send)``: each ``send(part)`` of the job reaches
    ``early(part)`` in the parent while the job goes on (the time limit's timer is paused while a part
    is sent, so that a part always arrives whole). :meth:`run` returns ``(status, payload, phase)``: ("ok", job's result), ("memory" or "time",
    (SHEET, ref) or None), ("error", one line), or ("died", exit code); ``phase`` is (kind, sheet) of
    what the child last reported doing. SIGTERM/SIGINT to the parent (turned into exceptions by the
    CLI) and any other exit kill the child group in ``finally``.

    >>> ChildProcess(lambda: 6 * 7, max_memory=16 << 30, max_seconds=60).run()[:2]
    ('ok', 42)
    >>> ChildProcess(lambda: open("/etc/hostname").read(), max_memory=16 << 30, max_seconds=60).run()[:2]
    ('error', 'PermissionError: the formula engine may not open other files')
    """

    def __init__(self, job: Callable[[], Any], *, max_memory: int, max_seconds: float, workdir: str | None = None,
                 readable: Any = (), grace: float = 5.0, prepare: Callable[[], Any] | None = None) -> None:
        self.job, self.max_memory, self.max_seconds = job, max_memory, max_seconds
        self.workdir, self.readable, self.grace, self.prepare = workdir, tuple(readable), grace, prepare
        self._proc: Any = None
        self._fds: list = []  # (the parent's ends: the death pipe's write end, the go pipe's write end)
        self._recv: Any = None
        self._sink: Any = None
        self._deadline = 0.0

    def __enter__(self) -> ChildProcess:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def start(self, early: bool = False, wait_for_go: bool = False) -> None:
        """Fork the child now (its clock, and the parent's deadline, start here). With ``wait_for_go`` it runs
        ``prepare()`` (the engine's imports: nothing of the workbook) and waits for :meth:`go` before the job, so that
        it imports while the parent still works; :meth:`close` (or the parent's end) stops it unstarted."""
        import gc
        import mmap
        import multiprocessing as mp

        if "fork" not in mp.get_all_start_methods():  # Windows: no fork, setsid, killpg or RLIMIT_AS
            raise WorkbookError("the bounded formula-engine process needs a POSIX system (Linux, macOS)")
        if self._proc is not None:
            raise RuntimeError("the engine's process was started already")
        ctx = mp.get_context("fork")
        recv, send = ctx.Pipe(duplex=False)
        self._recv = recv
        self._sink = sink = mmap.mmap(-1, PHASE_SIZE)
        death_r, death_w = os.pipe()
        go_r, go_w = os.pipe() if wait_for_go else (None, None)
        self._fds = [death_w, go_w]
        try:
            proc = ctx.Process(target=_child_main, daemon=True, args=(
                self, send, death_r, death_w, sink, os.getpid(), early, None if go_r is None else (go_r, go_w)))
            self._proc = proc  # (before the fork: a signal raising right after it still has close() kill the child)
            gc.freeze()  # the child then never walks the parent's objects: fewer copy-on-write pages
            try:
                proc.start()
            finally:
                gc.unfreeze()
        finally:
            send.close()
            for fd in (death_r, go_r):
                if fd is not None:
                    os.close(fd)
        self._deadline = time.monotonic() + self.max_seconds + self.grace

    def go(self) -> None:
        """Let a child started with ``wait_for_go`` run its job."""
        go_w = self._fds[1] if len(self._fds) > 1 else None
        if go_w is not None:
            self._fds[1] = None
            try:
                os.write(go_w, _GO)
            except OSError:  # (the child is gone: :meth:`wait` says how)
                pass
            finally:
                os.close(go_w)

    def run(self, tick: Callable[[], Any] | None = None,
            early: Callable[[Any], Any] | None = None) -> tuple[str, Any, tuple[str, str]]:
        """Start the child (unless :meth:`start` did), let it run its job, wait for its outcome and end it."""
        try:
            if self._proc is None:
                self.start(early=early is not None)
            self.go()
            return self._wait(tick, early)
        finally:
            self.close()

    def _wait(self, tick: Callable[[], Any] | None,
              early: Callable[[Any], Any] | None) -> tuple[str, Any, tuple[str, str]]:
        """The child's outcome, or "time" at the deadline (``tick()`` while waiting; each first part to ``early``)."""
        recv, proc, sink, deadline = self._recv, self._proc, self._sink, self._deadline
        status, payload = "time", None
        while True:
            if recv.poll(min(0.25, max(deadline - time.monotonic(), 0))):
                try:
                    status, payload = recv.recv()
                except (EOFError, OSError):
                    proc.join(5)
                    status, payload = "died", proc.exitcode
                if status == "early" and early is not None:
                    early(payload)  # a first part of the result: used here while the child goes on
                    status, payload = "time", None
                    continue
                break
            if tick is not None:
                tick()
            if time.monotonic() >= deadline:
                break
        raw = bytes(sink[:PHASE_SIZE]).split(b"\0", 1)[0].decode("utf-8", "replace")
        kind, _, sheet = raw.partition("\x1f")
        return status, payload, (kind, sheet)

    def close(self) -> None:
        """Kill the child's process group (whatever it is doing) and free the pipes and the phase buffer."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.pid is not None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(OSError, AttributeError):
                proc.kill()
            proc.join(5)
        for fd in self._fds:
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._fds = []
        if self._recv is not None:
            self._recv.close()
            self._recv = None
        if self._sink is not None:
            self._sink.close()
            self._sink = None


def _where(location, phase, sheets: dict) -> str:
    """'in sheet Travellers, cell K7' / 'while loading the workbook' for a limit message."""
    def sheet_name(up):
        return clip(sheets.get(up, up), 40)[1:-1]

    if location:
        sheet, ref = location
        return f"in sheet {sheet_name(sheet)}, cell {ref}"
    kind, sheet = phase or ("", "")
    if kind == "compiling" and sheet:
        return f"in sheet {sheet_name(sheet.upper())} (compiling its formulas)"
    return {"loading": "while loading the workbook", "linking": "while resolving the formulas' references",
            "evaluating": "while evaluating the formulas",
            "collecting": "while collecting the results"}.get(kind, "while starting the formula engine")


@dataclasses.dataclass(frozen=True)
class EngineJob:
    """What the engine's process is given: the book to evaluate and the bounds it runs in.

    - ``engine_copy``: the private copy the engine reads (alone in its folder); ``info``: its
      :class:`~xlbridge.batch.guard.limits.WorkbookInfo` (sheets, cell formats, links);
    - ``functions``: {EXCEL NAME: callable}; ``limits``: memory, time and formula cells;
    - ``name``: the book as messages name it; ``sheets``: {SHEET: sheet name}; ``private``: {private path:
      what the user may see}, for scrubbing the engine's own texts;
    - ``isolate``: in a :class:`ChildProcess` (else in this process, unbounded: tests only);
      ``out``: a descriptor of a file open for writing, inherited by the child,
      into which the patched parts are written; ``halves``: the child reads a large worksheet part in two
      halves (:mod:`xlbridge.batch.read.halves`); ``print_areas``: the printable tables as the gate clipped them.
    """

    engine_copy: str
    info: Any
    functions: dict | None
    limits: SafetyLimits
    name: str
    sheets: dict
    private: dict
    isolate: bool = True
    out: int | None = None
    halves: bool = True
    print_areas: tuple | None = None  # the gate's printable tables (None: read from the workbook part)
    seconds: float | None = None  # the time the engine may take: what is left of the command's (None: the limit)


def _engine_work(job: EngineJob) -> Callable[..., Any]:
    """The engine's job: :func:`xlbridge.batch.evaluate.splice.evaluate_and_splice` of ``job``'s book."""
    info, limits = job.info, job.limits
    return functools.partial(evaluate_and_splice, job.engine_copy, info.sheets, cell_formats=info.cell_formats,
                             functions=job.functions, external_links=info.external_links,
                             max_formula_cells=limits.max_formula_cells, out=job.out, max_output=limits.max_memory,
                             print_areas=job.print_areas)


def engine_process(job: EngineJob) -> ChildProcess | None:
    """The engine's :class:`ChildProcess` for ``job``, forked now (None without ``job.isolate``): it imports the
    formula engine (:func:`~xlbridge.batch.evaluate.engine.engine_modules`; nothing of the workbook, whose copy
    ``job.engine_copy`` need not be written yet) while this process goes on, and evaluates the book once
    :func:`run_engine` is given it. Close it (a ``with`` block) if the run stops before."""
    if not job.isolate:
        return None
    child = _engine_child(job, prepare=engine_modules)
    try:
        child.start(early=True, wait_for_go=True)
    except BaseException:  # (a signal raising during the fork: the child and its pipes go with it)
        child.close()
        raise
    return child


def _engine_child(job: EngineJob, prepare: Callable[[], Any] | None = None) -> ChildProcess:
    """The :class:`ChildProcess` of ``job`` (not started): its limits, its folder and the one file it reads."""
    return ChildProcess(functools.partial(_engine_work(job), halves=job.halves), max_memory=job.limits.max_memory,
                        max_seconds=job.limits.max_seconds if job.seconds is None else job.seconds,
                        workdir=os.path.dirname(job.engine_copy), readable=(job.engine_copy,), prepare=prepare)


def run_engine(job: EngineJob, tick: Callable[[], Any] | None = None,
               early: Callable[[Any], Any] | None = None, child: ChildProcess | None = None) -> Any:
    """:func:`xlbridge.batch.evaluate.splice.evaluate_and_splice` of ``job`` in a :class:`ChildProcess` (``child``,
    from :func:`engine_process`, or one forked now; in this process without ``job.isolate``):
    (:class:`xlbridge.batch.evaluate.splice.EngineSummary`, {part: patched bytes, or (start, length) in the file
    ``job.out``}).

    ``early(summary)`` is called with the evaluation's summary
    while the child still patches the parts (after the whole run without ``isolate``). ``tick()``: called
    while waiting (the progress bar). Refuses the workbook at a limit, and when the child finds it damaged.
    """
    limits, name, sheets = job.limits, job.name, job.sheets
    first: list = []
    if not job.isolate:
        try:
            summary, patched = _engine_work(job)()
            if early is not None:
                early(summary)
            return summary, patched
        except EngineStopped as exc:
            status, payload, phase = exc.kind, typing.cast(Any, exc.where), ("", "")
    else:
        def take_first(part: Any) -> None:
            first.append(part)
            if early is not None:
                early(part)

        status, payload, phase = (child or _engine_child(job)).run(tick, take_first)
    if status == "ok":
        if first:  # (the child sent the summary first, then only the parts)
            return first[0], payload[1]
        return payload
    if status == "refused":
        is_limit, message, where = payload
        raise (WorkbookLimitError if is_limit else WorkbookError)(message, where=where)
    if status == "memory":
        mib = limits.max_memory / (1 << 20)
        raise WorkbookLimitError(f"refused: memory limit of {mib:g} MiB reached {_where(payload, phase, sheets)} "
                         f"(recalculation needs more memory than the limit; raise it with --max-memory)", where=name)
    if status == "time":
        s = limits.max_seconds
        raise WorkbookLimitError(f"refused: time limit of {s:g} s reached {_where(payload, phase, sheets)} "
                         f"(recalculation took longer than the limit of {s:g} s; raise it with --timeout)",
                         where=name)
    if status == "died":
        raise WorkbookError(f"refused: the formula engine died (exit code {payload}; out of memory?) "
                            f"{_where(None, phase, sheets)}", where=name)
    text = one_line(scrub_paths(str(payload), job.private), 300)
    percent = [sheet for sheet in sheets.values() if "%" in sheet]
    if percent and status == "error" and "format character" in text:
        # formulas builds cell names with "%" formatting ('[book]SHEET'!%s), which a "%" in a sheet
        # name breaks (formulas 1.3.4): the user can do something about this one
        raise WorkbookError(f"the formula engine cannot evaluate this workbook because a sheet name holds a % "
                            f"sign (sheet {clip(percent[0], 40)[1:-1]}); rename the sheet (e.g. 'pct' for '%') "
                            f"and run again", where=name)
    if phase and phase[0] == "loading":  # openpyxl could not read it: Excel would have to repair it
        # the reader's own exception text names Python types ("expected <class 'int'>"): not shown
        raise WorkbookError("damaged workbook: it cannot be read (a part holds an element or value that Excel's "
                            "file format does not allow)", where=name)
    # an engine failure no check foresaw: its Python text is for the administrator (XLBRIDGE_DEBUG=1)
    detail = f": {text}" if os.environ.get("XLBRIDGE_DEBUG") else " (an internal error; set XLBRIDGE_DEBUG=1 for details)"
    raise WorkbookError(f"the formula engine failed {_where(None, phase, sheets)}{detail}", where=name)
