"""The server's data folder: one SQLite database and a folder per club.

``xlbridge serve --data DIR`` keeps everything under ``DIR``::

    DIR/xlbridge.sqlite3              clubs, scorers, API tokens, sessions, jobs, books (WAL mode)
    DIR/clubs/<club>/jobs/<id>/       one upload and what its job made (the upload, the recalculated book,
                                      the members' values-only copy)
    DIR/clubs/<club>/site             the club's season site: a link switched whole by ``xlbridge publish``
    DIR/tmp/                          uploads while they stream in (removed when refused)

Every connection is short-lived (one per operation, ``busy_timeout`` 30 s), so the web server, its job
workers and a command adding a club can share the file; on shared storage (several replicas) the same
schema moves to a server database (docs/server.md).

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     store = Storage(d)
...     store.club_dir("hearts").name
'hearts'
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = ["Storage", "SCHEMA", "CLUB_NAME", "valid_club", "now"]

#: A club's name as it appears in URLs: lower-case letters, digits and hyphens, 1 to 40 characters.
CLUB_NAME = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?")

SCHEMA = """
CREATE TABLE IF NOT EXISTS clubs (
    name TEXT PRIMARY KEY,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS scorers (
    login TEXT PRIMARY KEY,
    club TEXT NOT NULL REFERENCES clubs(name),
    password_hash TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
    digest TEXT PRIMARY KEY,            -- sha256 of the token: the token itself is never stored
    club TEXT NOT NULL REFERENCES clubs(name),
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    digest TEXT PRIMARY KEY,            -- sha256 of the session cookie
    login TEXT NOT NULL REFERENCES scorers(login),
    csrf TEXT NOT NULL,
    expires REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    club TEXT NOT NULL REFERENCES clubs(name),
    upload TEXT NOT NULL,               -- the upload's file name in its job folder
    book TEXT NOT NULL,                 -- the book's name on the site and for downloads (NAME.xlsx)
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
    message TEXT NOT NULL DEFAULT '',
    attempts INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    started REAL,
    site_at REAL,                       -- when the club's site was switched to include it
    finished REAL
);
CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state, id);
CREATE TABLE IF NOT EXISTS books (
    club TEXT NOT NULL REFERENCES clubs(name),
    name TEXT NOT NULL,
    job INTEGER NOT NULL REFERENCES jobs(id),   -- the job whose folder holds its files
    published INTEGER NOT NULL DEFAULT 0,       -- part of the club's site
    PRIMARY KEY (club, name)
);
"""


def now() -> float:
    """Seconds since the epoch (the database's clock)."""
    return time.time()


def valid_club(name: str) -> bool:
    """Whether ``name`` is a club name (:data:`CLUB_NAME`).

    >>> valid_club("hearts-and-spades"), valid_club("../etc"), valid_club("Hearts")
    (True, False, False)
    """
    return isinstance(name, str) and CLUB_NAME.fullmatch(name) is not None


class Storage:
    """The data folder ``root``: its database (made on first use) and its folders."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "clubs").mkdir(exist_ok=True)
        (self.root / "tmp").mkdir(exist_ok=True)
        self.db_path = self.root / "xlbridge.sqlite3"
        db = sqlite3.connect(self.db_path, timeout=30, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)
        finally:
            db.close()

    @contextlib.contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A connection for one operation: committed on leaving, rolled back on an exception, closed."""
        db = sqlite3.connect(self.db_path, timeout=30, isolation_level=None)
        db.row_factory = sqlite3.Row
        try:
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        finally:
            db.close()

    def club_dir(self, club: str) -> Path:
        """The club's folder (``club`` must be a :func:`valid_club` name)."""
        if not valid_club(club):
            raise ValueError(f"not a club name: {club!r}")
        return self.root / "clubs" / club

    def job_dir(self, club: str, job: int) -> Path:
        """The folder of one job."""
        return self.club_dir(club) / "jobs" / str(int(job))

    def site_link(self, club: str) -> Path:
        """The club's season site: the link ``xlbridge publish`` switches."""
        return self.club_dir(club) / "site"

    def tmp_dir(self) -> Path:
        """Where uploads stream in before they are kept."""
        return self.root / "tmp"
