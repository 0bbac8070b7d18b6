"""Jobs: an upload recalculated (or imported), the club's season site published again.

A job is a row of the ``jobs`` table (:mod:`xlbridge.serve.storage`) and a folder holding the upload.
Its states: ``queued`` -> ``running`` -> ``done`` or ``failed`` (with a one-line ``message`` as the
command line prints it). The table is the queue: a crash or restart loses no job. At start-up
(:meth:`JobStore.recover`) a job found ``running`` was interrupted: it is queued again, or, after
:data:`MAX_ATTEMPTS` starts, ends ``failed`` with a message saying so.

Each step is the ``xlbridge`` command in a process of its own (``python -m xlbridge``, told to stop when the
server dies: :func:`_in_child`), with the guard's limits (``--timeout``, ``--max-memory``), so a hostile upload costs one bounded process and
nothing in the server; the steps of a job:

1. a PBN or USEBIO file: ``xlbridge import FILE -o BOOK.xlsx`` (a workbook upload is the book);
2. at once, side by side: ``xlbridge recalc BOOK -o BOOK-recalculated.xlsx`` (niceness 5: it yields to the
   publish) and the club's season site published again with the book in it (``xlbridge publish`` of every
   book of the club, the link switched whole; one publish of a club at a time);
3. the members' copy, ``xlbridge recalc BOOK --values-only -o BOOK-values.xlsx``, is made when a scorer first
   downloads it (:func:`members_copy`): a second recalculation, 40 % of an upload's processor time, spent
   only for the books whose copy is wanted.

A refused recalculation fails the job (and the site is published again without the book when it
went in); a book the site cannot show (a handicap or Lehman workbook, say) is recalculated and
offered for download, and the job's message says why it is not on the site.

:class:`LocalQueue` runs at most ``workers`` jobs at once in the server's process (asyncio; the
steps are processes) and accepts at most ``max_queued`` waiting jobs (:class:`QueueFull` beyond:
the API answers 503). The interface a real queue takes over (docs/server.md: RQ on Redis, or
Celery) is :meth:`LocalQueue.submit` and :func:`run_job`: a worker of that queue calls
``run_job(store, job_id, limits)`` and nothing else changes.

>>> upload_names("Thursday pairs.PBN")
('Thursday-pairs.pbn', 'Thursday-pairs.xlsx')
>>> upload_names("season.xlsm")
('season.xlsm', 'season.xlsm')
>>> upload_names("notes.txt")
Traceback (most recent call last):
...
xlbridge.serve.jobs.UploadRefused: notes.txt: not a workbook (.xlsx, .xlsm), a PBN (.pbn) or a USEBIO (.xml) file
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import re
import shutil
import signal
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .defaults import QUEUED, STEP_MEMORY_MIB, STEP_SECONDS
from .storage import Storage, now

__all__ = ["JobLimits", "Job", "JobStore", "LocalQueue", "QueueFull", "UploadRefused", "run_job", "upload_names",
           "members_copy",
           "MAX_ATTEMPTS", "STATES", "WORKBOOK_SUFFIXES", "RESULTS_SUFFIXES"]

STATES = ("queued", "running", "done", "failed")
#: how many times a job is started before an interruption ends it (a server killed while it ran)
MAX_ATTEMPTS = 2
WORKBOOK_SUFFIXES = (".xlsx", ".xlsm")
RESULTS_SUFFIXES = (".pbn", ".xml")
#: extra seconds a step may take past its own --timeout before the server kills it (its watchdog is 5 s)
_GRACE = 20.0


class UploadRefused(ValueError):
    """An upload refused before it is kept (its name, its size, the queue)."""


class QueueFull(RuntimeError):
    """More jobs wait than the queue holds."""


@dataclasses.dataclass(frozen=True)
class JobLimits:
    """The guard's limits of every step (``--timeout`` seconds, ``--max-memory`` MiB) and the workers."""

    timeout: float = STEP_SECONDS
    max_memory_mib: int = STEP_MEMORY_MIB
    workers: int = 2
    max_queued: int = QUEUED


@dataclasses.dataclass(frozen=True)
class Job:
    """One row of the ``jobs`` table."""

    id: int
    club: str
    upload: str
    book: str
    state: str
    message: str
    attempts: int
    created: float
    started: float | None
    site_at: float | None
    finished: float | None

    def public(self) -> dict[str, Any]:
        """What ``GET /api/jobs/<id>`` answers."""
        return {"job": self.id, "club": self.club, "file": self.upload, "book": self.book, "state": self.state,
                "message": self.message}


def upload_names(filename: str) -> tuple[str, str]:
    """The upload's name in its job folder and its book's name, from the name the browser sent.

    Only the last path part is kept, characters other than letters, digits, ``.``, ``-`` and ``_``
    become ``-``; the suffix decides the kind.
    """
    base = re.split(r"[\\/]", filename or "")[-1].strip()
    stem, dot, suffix = base.rpartition(".")
    suffix = "." + suffix.lower() if dot else ""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-.")[:80] or "upload"
    shown = base[:60].encode("ascii", "backslashreplace").decode("ascii") or "(no name)"
    if suffix in WORKBOOK_SUFFIXES:
        return stem + suffix, stem + suffix
    if suffix in RESULTS_SUFFIXES:
        return stem + suffix, stem + ".xlsx"
    raise UploadRefused(f"{shown}: not a workbook (.xlsx, .xlsm), a PBN (.pbn) or a USEBIO (.xml) file")


def _job(row: Any) -> Job:
    return Job(**{f.name: row[f.name] for f in dataclasses.fields(Job)})


class JobStore:
    """The ``jobs`` and ``books`` tables of a data folder."""

    def __init__(self, store: Storage) -> None:
        self.store = store

    def create(self, club: str, upload: str, book: str, max_queued: int) -> int:
        """A new queued job (its folder made); :class:`QueueFull` when ``max_queued`` wait already."""
        with self.store.connect() as db:
            waiting = db.execute("SELECT COUNT(*) FROM jobs WHERE state = 'queued'").fetchone()[0]
            if waiting >= max_queued:
                raise QueueFull(f"{waiting} jobs are waiting")
            cur = db.execute("INSERT INTO jobs (club, upload, book, state, created) VALUES (?, ?, ?, 'queued', ?)",
                             (club, upload, book, now()))
            job = int(cur.lastrowid or 0)
        return job

    def waiting(self) -> int:
        """How many jobs are queued."""
        with self.store.connect() as db:
            return int(db.execute("SELECT COUNT(*) FROM jobs WHERE state = 'queued'").fetchone()[0])

    def get(self, job: int) -> Job | None:
        """The job, or None."""
        with self.store.connect() as db:
            row = db.execute("SELECT * FROM jobs WHERE id = ?", (job,)).fetchone()
        return None if row is None else _job(row)

    def of_club(self, club: str, limit: int = 50) -> list[Job]:
        """The club's latest jobs, newest first."""
        with self.store.connect() as db:
            rows = db.execute("SELECT * FROM jobs WHERE club = ? ORDER BY id DESC LIMIT ?", (club, limit)).fetchall()
        return [_job(r) for r in rows]

    def claim(self) -> Job | None:
        """The oldest queued job, now ``running`` (one claimer wins: one transaction)."""
        with self.store.connect() as db:
            row = db.execute("SELECT id FROM jobs WHERE state = 'queued' ORDER BY id LIMIT 1").fetchone()
            if row is None:
                return None
            db.execute("UPDATE jobs SET state = 'running', started = ?, attempts = attempts + 1 WHERE id = ?",
                       (now(), row["id"]))
            return _job(db.execute("SELECT * FROM jobs WHERE id = ?", (row["id"],)).fetchone())

    def finish(self, job: int, state: str, message: str) -> None:
        """End a job: ``done`` or ``failed`` with its one-line message."""
        with self.store.connect() as db:
            db.execute("UPDATE jobs SET state = ?, message = ?, finished = ? WHERE id = ?",
                       (state, message[:1000], now(), job))

    def site_switched(self, job: int) -> None:
        """Note when the club's site first showed the job's book."""
        with self.store.connect() as db:
            db.execute("UPDATE jobs SET site_at = ? WHERE id = ? AND site_at IS NULL", (now(), job))

    def requeue(self, job: int) -> None:
        """A running job stopped by the server's own orderly stop: queued again, that start not counted."""
        with self.store.connect() as db:
            db.execute("UPDATE jobs SET state = 'queued', attempts = MAX(attempts - 1, 0) "
                       "WHERE id = ? AND state = 'running'", (job,))

    def recover(self) -> tuple[int, int]:
        """After a crash or restart: jobs left ``running`` are queued again, or fail after
        :data:`MAX_ATTEMPTS` starts. Returns (queued again, failed)."""
        with self.store.connect() as db:
            failed = db.execute(
                "UPDATE jobs SET state = 'failed', finished = ?, message = ? WHERE state = 'running' AND attempts >= ?",
                (now(), f"the server stopped while this job ran, {MAX_ATTEMPTS} times; upload the file again",
                 MAX_ATTEMPTS)).rowcount
            again = db.execute("UPDATE jobs SET state = 'queued' WHERE state = 'running'").rowcount
        return again, failed

    def books(self, club: str) -> dict[str, int]:
        """The club's books on its site: {book name: job whose folder holds it}."""
        with self.store.connect() as db:
            rows = db.execute("SELECT name, job FROM books WHERE club = ? AND published = 1 ORDER BY name",
                              (club,)).fetchall()
        return {r["name"]: r["job"] for r in rows}

    def downloads(self, club: str) -> dict[str, int]:
        """Every book of the club that can be downloaded: {book name: job}."""
        with self.store.connect() as db:
            rows = db.execute("SELECT name, job FROM books WHERE club = ? ORDER BY name", (club,)).fetchall()
        return {r["name"]: r["job"] for r in rows}

    def set_book(self, club: str, name: str, job: int, published: bool) -> None:
        """The book ``name`` of ``club`` is now the one of ``job``."""
        with self.store.connect() as db:
            db.execute("INSERT INTO books (club, name, job, published) VALUES (?, ?, ?, ?) "
                       "ON CONFLICT (club, name) DO UPDATE SET job = excluded.job, published = excluded.published",
                       (club, name, job, int(published)))


# --------------------------------------------------------------------------------------------------
# the steps


@dataclasses.dataclass(frozen=True)
class StepResult:
    """A step's exit code and its outputs (text)."""

    code: int
    out: str
    err: str

    def line(self, what: str) -> str:
        """Its last message line (as the command line prints it), or what happened when it printed none."""
        lines = [x for x in self.err.splitlines() if x.strip()]
        if lines:  # a path of the server's own (an interpreter's complaint, say) is cut to its last part
            return _ABSOLUTE.sub(lambda m: m.group(1), lines[-1])[:600]
        if self.code < 0:
            return f"xlbridge {what}: stopped by signal {-self.code}"
        return f"xlbridge {what}: ended with exit code {self.code}"


_ABSOLUTE = re.compile(r"(?<![\w.])/(?:[^\s/:;,'\"]+/)+([^\s/:;,'\"]+)")

#: Where the server's own ``xlbridge`` package lies: its steps run that package, installed or not.
_HOME = str(Path(__file__).resolve().parents[2])


def _prctl() -> Any:
    """libc's ``prctl`` (Linux), looked up in the server before any fork; None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _prctl()


def _in_child(parent: int, nice: int) -> Callable[[], None]:
    """What a step's process does between fork and exec: be sent SIGTERM when the server dies
    (``prctl(PR_SET_PDEATHSIG)``, as :func:`xlbridge.batch.many.die_with_parent` does for ``--jobs``; the step
    then stops as on any SIGTERM, removing what it made), leave at once if the server is already gone, and take
    its niceness. Only a C call and system calls: safe in a child forked from a threaded server."""
    def setup() -> None:
        if _PRCTL is not None:
            _PRCTL(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        if os.getppid() != parent:
            os._exit(143)
        if nice:
            os.nice(nice)

    return setup


async def _step(args: list[str], cwd: Path, limits: JobLimits, nice: int = 0) -> StepResult:
    """``xlbridge ARGS --timeout T --max-memory M`` in its own process (killed with the server), in ``cwd``, at
    niceness ``nice``."""
    cmd = [sys.executable, "-m", "xlbridge", *args,
           "--timeout", f"{limits.timeout:g}", "--max-memory", str(limits.max_memory_mib)]
    env = {**os.environ, "XLBRIDGE_JOBS_PARENT": str(os.getpid()), "XLBRIDGE_BOOK_CORES": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (_HOME, os.environ.get("PYTHONPATH")) if p)}
    proc = await asyncio.create_subprocess_exec(*cmd, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                start_new_session=True, preexec_fn=_in_child(os.getpid(), nice))
    try:
        out, err = await asyncio.wait_for(proc.communicate(), limits.timeout + _GRACE)
    except BaseException:  # timed out past the guard's own watchdog, or the server stops: no step survives it
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(BaseException):
            await asyncio.shield(proc.wait())
        raise
    code = proc.returncode if proc.returncode is not None else -9
    return StepResult(code, out.decode("utf-8", "replace")[-200_000:], err.decode("utf-8", "replace")[-20_000:])


_CLUB_LOCKS: dict[str, asyncio.Lock] = {}


async def publish_club(store: Storage, jobs: JobStore, club: str, limits: JobLimits, *,
                       add: tuple[str, int] | None = None, drop: str | None = None) -> StepResult | None:
    """Publish the club's season site again (``xlbridge publish`` of its books), with the book ``add``
    (name, job) in it or the book ``drop`` out of it. One publish of a club at a time; None when the
    club has no book left to show (the site stays as it was)."""
    lock = _CLUB_LOCKS.setdefault(club, asyncio.Lock())
    async with lock:
        books = jobs.books(club)
        if add is not None:
            books[add[0]] = add[1]
        if drop is not None:
            books.pop(drop, None)
        if not books:
            return None
        club_dir = store.club_dir(club)
        folder = club_dir / f"publish-{uuid.uuid4().hex[:12]}"
        folder.mkdir()
        try:
            for name, job in books.items():  # hard links: regular files, named as the club named them
                os.link(store.job_dir(club, job) / name, folder / name)
            result = await _step(["publish", *sorted(books), "-o", str(store.site_link(club))], folder, limits)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        if result.code == 0:
            for name, job in books.items():
                jobs.set_book(club, name, job, published=True)
        return result


async def run_job(store: Storage, job_id: int, limits: JobLimits) -> tuple[str, str]:
    """Run the job ``job_id`` (claimed: ``running``) to its end; record and return (state, message)."""
    jobs = JobStore(store)
    job = jobs.get(job_id)
    if job is None:
        return "failed", "no such job"
    folder = store.job_dir(job.club, job.id)
    book = job.book

    def end(state: str, message: str) -> tuple[str, str]:
        jobs.finish(job.id, state, message)
        return state, message

    if not (folder / job.upload).is_file():
        return end("failed", f"{job.upload}: the upload is missing from the server's data folder; upload it again")
    if job.upload != book:  # PBN or USEBIO
        imported = await _step(["import", job.upload, "-o", book], folder, limits)
        if imported.code != 0:
            return end("failed", imported.line("import"))
    stem, suffix = os.path.splitext(book)
    recalculated = f"{stem}-recalculated{suffix}"
    recalc = asyncio.ensure_future(_step(["recalc", book, "-o", recalculated, "--no-progress"], folder, limits,
                                         nice=5))
    try:
        published = await publish_club(store, jobs, job.club, limits, add=(book, job.id))
    except BaseException:
        recalc.cancel()
        with contextlib.suppress(BaseException):
            await recalc
        raise
    if published is not None and published.code == 0:
        jobs.site_switched(job.id)
    done = await recalc
    if done.code == 1 and not (folder / recalculated).is_file():  # 1 is "done, some rows with errors"; no book: not
        done = dataclasses.replace(done, code=2)
    if done.code not in (0, 1):
        if published is not None and published.code == 0:  # the site showed a book recalc refuses: out again
            await publish_club(store, jobs, job.club, limits, drop=book)
        return end("failed", done.line("recalc"))
    on_site = published is not None and published.code == 0
    jobs.set_book(job.club, book, job.id, published=on_site)
    summary = done.line("recalc")
    parts = [summary]
    if not on_site:
        parts.append("not on the site: " + (published.line("publish") if published is not None else "no book"))
    return end("done", "; ".join(parts))


_COPY_LOCKS: dict[tuple[str, str], asyncio.Lock] = {}
_COPIES: dict[int, asyncio.Semaphore] = {}


async def members_copy(store: Storage, club: str, book: str, job: int, limits: JobLimits) -> tuple[Path | None, str]:
    """The members' values-only copy of the club's ``book`` (the job ``job``'s), made by ``xlbridge recalc
    --values-only`` on first asking (one at a time a book, at most ``limits.workers`` at once): (its path,
    "") or (None, the command's line)."""
    stem, suffix = os.path.splitext(book)
    folder = store.job_dir(club, job)
    path = folder / f"{stem}-values{suffix}"
    lock = _COPY_LOCKS.setdefault((club, book), asyncio.Lock())
    gate = _COPIES.setdefault(limits.workers, asyncio.Semaphore(limits.workers))
    async with lock:
        if path.is_file():
            return path, ""
        if not (folder / book).is_file():
            return None, f"{book}: no such book"
        async with gate:
            made = await _step(["recalc", book, "--values-only", "-o", path.name, "--no-progress"], folder, limits)
    if made.code in (0, 1) and path.is_file():
        return path, ""
    return None, made.line("recalc")


class LocalQueue:
    """At most ``limits.workers`` jobs at once in this process; the database is the queue."""

    def __init__(self, store: Storage, limits: JobLimits) -> None:
        self.store = store
        self.jobs = JobStore(store)
        self.limits = limits
        self._wake: asyncio.Event | None = None
        self._tasks: list[asyncio.Task[None]] = []

    def submit(self, club: str, upload: str, book: str, path: Path) -> int:
        """Queue a job for the upload received at ``path`` (moved into the job's folder); returns its id
        (:class:`QueueFull`). No await between the row and the move: no worker of this loop sees one
        without the other."""
        job = self.jobs.create(club, upload, book, self.limits.max_queued)
        folder = self.store.job_dir(club, job)
        folder.mkdir(parents=True, exist_ok=True)
        os.replace(path, folder / upload)
        if self._wake is not None:
            self._wake.set()
        return job

    def full(self) -> bool:
        """Whether a new job would be refused now."""
        return self.jobs.waiting() >= self.limits.max_queued

    async def start(self) -> None:
        """Queue again what a crash interrupted, then start the workers."""
        self.jobs.recover()
        self._wake = asyncio.Event()
        self._tasks = [asyncio.create_task(self._worker()) for _ in range(self.limits.workers)]

    async def stop(self) -> None:
        """Stop the workers (a running job's steps are killed; it runs again at the next start)."""
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(BaseException):
                await t
        self._tasks = []

    async def _worker(self) -> None:
        assert self._wake is not None
        while True:
            job = self.jobs.claim()
            if job is None:
                self._wake.clear()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), 2.0)
                continue
            self._wake.set()  # another worker may take the next one
            try:
                await run_job(self.store, job.id, self.limits)
            except asyncio.CancelledError:  # the server stops (SIGTERM): the job waits for the next start, uncounted
                self.jobs.requeue(job.id)
                raise
            except Exception as exc:  # a bug of the server: the job ends with a line, the worker goes on
                self.jobs.finish(job.id, "failed", f"internal error of the server ({type(exc).__name__})")
