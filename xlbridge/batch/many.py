"""Many workbooks at once: ``xlbridge recalc A.xlsx B.xlsx FOLDER ... --jobs N``.

Each book is recalculated by its own ``python -m xlbridge recalc BOOK --json`` process (so each keeps
its own safety limits, sandboxed engine child, lock and one-line messages), at most ``jobs`` at a
time; the caller gets one result per book in the order given and the worst exit code (the largest:
0 fine < 1 cell errors < 2 refused < 3 not written < 128 + N interrupted).

A folder stands for every ``.xlsx``/``.xlsm`` file in it (sorted by name; sub-folders only with
``recursive``), leaving out Excel's lock files (``~$...``) and the outputs of an earlier run
(``...-recalculated.xlsx``). With an output folder, each result is written there under its book's
own name; two books with the same name are refused before anything runs.

"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from ..core.errors import WorkbookError
from .cores import CORES_ENV, usable_cores
from .guard.files import remove_stale_leftovers

__all__ = ["BookRun", "expand_inputs", "output_paths", "run_many", "BOOK_SUFFIXES", "die_with_parent"]

#: Environment variable naming the ``--jobs`` parent's process id in each per-book worker.
PARENT_ENV = "XLBRIDGE_JOBS_PARENT"


def die_with_parent() -> None:
    """In a per-book worker (``PARENT_ENV`` set): be sent SIGTERM when the ``--jobs`` parent dies.

    A job runner's SIGKILL of the parent gives it no chance to stop its workers; with
    ``prctl(PR_SET_PDEATHSIG, SIGTERM)`` (Linux) each worker is told and, like on any SIGTERM,
    stops its engine child and removes its temporary files and lock before exiting. A worker whose
    parent is already gone exits at once. Elsewhere (no prctl), nothing changes.
    """
    parent = os.environ.get(PARENT_ENV, "")
    if not parent.isdigit():
        return
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            pass
    if os.getppid() != int(parent):  # the parent died before the signal was armed
        os._exit(143)

BOOK_SUFFIXES = (".xlsx", ".xlsm")


class ManyBooksError(WorkbookError):
    """The list of books cannot be run (an empty folder, two books with one output name)."""


@dataclasses.dataclass(frozen=True)
class BookRun:
    """The outcome of one book: its exit code, its JSON summary (``None`` if it printed none) and
    its first line on stderr (the reason when refused)."""

    book: str
    code: int
    summary: dict | None
    message: str
    seconds: float


def _is_book(name: str) -> bool:
    low = name.lower()
    return (low.endswith(BOOK_SUFFIXES) and not name.startswith("~$")
            and not os.path.splitext(low)[0].endswith("-recalculated"))


def expand_inputs(inputs: Sequence[str], *, recursive: bool = False) -> list[str]:
    """Return the books named by ``inputs``: files as given, folders as their ``.xlsx``/``.xlsm`` files.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for n in ("b.xlsx", "a.xlsm", "a-recalculated.xlsm", "~$b.xlsx", "notes.txt"):
    ...     _ = (d / n).write_bytes(b"")
    >>> [os.path.basename(p) for p in expand_inputs([str(d)])]
    ['a.xlsm', 'b.xlsx']
    """
    books: list[str] = []
    for item in inputs:
        if not os.path.isdir(item):
            books.append(item)
            continue
        found: list[str] = []
        if recursive:
            for root, dirs, files in os.walk(item):
                dirs.sort()
                found += [os.path.join(root, f) for f in sorted(files) if _is_book(f)]
        else:
            found = [os.path.join(item, f) for f in sorted(os.listdir(item))
                     if _is_book(f) and not os.path.isdir(os.path.join(item, f))]
            # a FIFO, device or dangling link with a book's name is listed too: it is refused by name in
            # the summary rather than skipped in silence
        if not found:
            raise ManyBooksError(f"{os.path.basename(os.path.normpath(item))!r}: no .xlsx or .xlsm workbook in this folder")
        books += found
    return books


def output_paths(books: Sequence[str], out_dir: str | None) -> list[str | None]:
    """The output of each book: ``None`` (its default) or ``out_dir/<its name>``; same names refused.

    >>> output_paths(["a/x.xlsx", "b/y.xlsx"], "out")
    ['out/x.xlsx', 'out/y.xlsx']
    >>> output_paths(["a/x.xlsx", "b/x.xlsx"], "out")
    Traceback (most recent call last):
    ...
    xlbridge.batch.many.ManyBooksError: two books named 'x.xlsx' would be written to one file of the output folder
    """
    if out_dir is None:
        return [None] * len(books)
    seen: set[str] = set()
    outs: list[str | None] = []
    for book in books:
        name = os.path.basename(book)
        if name.lower() in seen:
            raise ManyBooksError(f"two books named {name!r} would be written to one file of the output folder")
        seen.add(name.lower())
        outs.append(os.path.join(out_dir, name))
    return outs


def run_many(books: Sequence[str], outputs: Sequence[str | None], options: Sequence[str], *, jobs: int = 1,
             on_done: Callable[[BookRun], None] | None = None) -> list[BookRun]:
    """Recalculate ``books`` in up to ``jobs`` parallel processes; return one :class:`BookRun` each, in order.

    ``options`` are passed to every ``xlbridge recalc`` run (limits, ``--in-place``). If the caller is
    interrupted (an exception in the waiting thread), the running processes are killed first.
    """
    procs: dict[int, subprocess.Popen[bytes]] = {}
    # each book's share of the cores (xlbridge.batch.cores.book_cores): the usable cores divided by the books
    # run at once (a last book running alone keeps its share: the run's end, not worth a second reader)
    share = max(1, usable_cores() // max(1, min(jobs, len(books))))
    lock = threading.Lock()
    stopping = threading.Event()

    def one(i: int) -> BookRun:
        cmd = [sys.executable, "-m", "xlbridge", "recalc", books[i], "--json", "--no-progress", *options]
        if outputs[i] is not None:
            cmd += ["-o", str(outputs[i])]
        start = time.perf_counter()
        with lock:
            if stopping.is_set():
                return BookRun(books[i], 130, None, "not run: interrupted", 0.0)
            env = {**os.environ, PARENT_ENV: str(os.getpid()), CORES_ENV: str(share)}
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                    env=env)
            procs[i] = proc
        out, err = proc.communicate()
        with lock:
            procs.pop(i, None)
        try:
            summary = json.loads(out.decode("utf-8", "replace")) if out.strip() else None
        except ValueError:
            summary = None
        lines = [ln for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
        refused = [ln for ln in lines if "warning:" not in ln]
        message = (refused or lines or [""])[0]
        code = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
        if proc.returncode < 0:  # killed (SIGKILL by a job runner, the OOM killer): it could not clean up
            dest = os.path.abspath(str(outputs[i] if outputs[i] is not None else books[i]))
            lock_file = os.path.join(os.path.dirname(dest), f".{os.path.basename(dest)}.xlbridge-lock")
            for _ in range(50):  # its engine child, dying with it, may hold the book's lock a moment longer
                remove_stale_leftovers([os.path.dirname(dest)], pid=proc.pid)
                if not os.path.exists(lock_file):
                    break
                time.sleep(0.1)
        run = BookRun(books[i], code, summary if isinstance(summary, dict) else None, message,
                      time.perf_counter() - start)
        if on_done is not None:
            on_done(run)
        return run

    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futures = [pool.submit(one, i) for i in range(len(books))]
        return [f.result() for f in futures]
    except BaseException:
        with lock:
            stopping.set()
            running = list(procs.values())
        for proc in running:  # SIGTERM: each run removes its engine child, temporary files and lock
            proc.terminate()
        for proc in running:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
