"""Publishing a results site atomically: a reader of the public folder sees the old site or the new one, whole.

:func:`publish_site` (what ``xlbridge publish SOURCE -o DIR`` runs) never writes into the site a
reader is looking at.  ``DIR`` is a symbolic link to a complete site kept in a folder beside it,
``.DIR.xlbridge-site/`` (same parent folder):

1. the runs publishing one ``DIR`` are serialised by a lock (``fcntl.flock`` on
   ``.DIR.xlbridge-site/.lock``); under it, whatever an earlier run left there (a site being built
   when it was killed, a previous site) is removed first;
2. the new site is written into a new folder ``.DIR.xlbridge-site/site-XXXXXXXX`` (pages written as
   they are made, counted against the site's bounds: :func:`site_byte_limit`, and
   :data:`~xlbridge.formats.publish.MAX_PAGES`);
3. a new symbolic link to it (relative: ``.DIR.xlbridge-site/site-XXXXXXXX``) is made beside ``DIR``
   and renamed over ``DIR`` (``rename(2)`` replaces the old link in one step);
4. the previous site's folder is removed: no page of an earlier event survives.

A signal (SIGTERM, SIGHUP, Ctrl-C), the time limit or the memory limit before step 3 removes the new
folder and leaves the old site; the switch itself is made with those signals held back
(:func:`~xlbridge.core.files.signals_held`), and one arriving after it stops the run with the new site
published (the exception carries ``DIR`` as :data:`~xlbridge.core.files.WRITTEN`: the command says the site
was written; the old folder is removed by the next run). SIGKILL at any moment leaves ``DIR`` naming one
whole site, and the next run removes the rest.  ``DIR`` may also be missing, an empty folder, or a folder
holding only what an earlier xlbridge wrote there (``index.html``, ``style.css``, ``board-*.html``,
``pair-*.html``, ``match-*.html``, ``ratings.html``, ``league.html``): such a folder is swapped with the link in one step (Linux
``renameat2(RENAME_EXCHANGE)``, :func:`~xlbridge.core.files.exchange`) and then moved into
``.DIR.xlbridge-site/``, once; where the system cannot swap, it is moved aside first and ``DIR`` is missing
for the instant between the two renames.  Anything else at ``DIR`` (a
folder holding other files, a link elsewhere, a file) is refused, never replaced.

>>> import tempfile, os
>>> from xlbridge.formats.pbn import read_pbn
>>> event = read_pbn(b'[Board "1"]\\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\\n1 2 420\\n2 1 400\\n')
>>> root = tempfile.mkdtemp()
>>> site = publish_site(event, os.path.join(root, "site"), dds=False)
>>> site.files, os.path.islink(os.path.join(root, "site")), sorted(os.listdir(os.path.join(root, "site")))[:2]
(7, True, ['board-1.html', 'index.html'])
>>> first = os.readlink(os.path.join(root, "site"))
>>> site = publish_site(event, os.path.join(root, "site"), dds=False)
>>> kept = sorted(os.listdir(os.path.join(root, ".site.xlbridge-site")))   # the lock and the one site
>>> os.readlink(os.path.join(root, "site")) != first, len(kept), kept[0]
(True, 2, '.lock')
>>> import shutil; shutil.rmtree(root)
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from ..core.files import WRITTEN, exchange, lock_file, signals_held
from .errors import FormatError, display_name
from .model import Event
from .publish import MAX_SITE_BYTES, publish, publish_season
from .seasonbooks import League, Ratings

__all__ = ["Site", "publish_site", "publish_season_site", "site_byte_limit", "store_path", "SITE_BASE_BYTES", "SITE_BYTES_PER_INPUT_BYTE"]

#: The bytes a site may have: this much, plus :data:`SITE_BYTES_PER_INPUT_BYTE` for each byte of the
#: input (at most :data:`~xlbridge.formats.publish.MAX_SITE_BYTES`).
SITE_BASE_BYTES = 4 << 20
SITE_BYTES_PER_INPUT_BYTE = 256

_PAGE_NAME = re.compile(r"(index|board-[0-9]+(-[0-9]+)?|pair-[A-Za-z0-9_-]+|match-[A-Za-z0-9_-]+|(ratings|league)(-[0-9]+)?)"
                        r"\.html|style\.css")


@dataclasses.dataclass(frozen=True)
class Site:
    """A published site: the public path (a symbolic link), the folder it names, its files and bytes."""

    path: str
    folder: str
    files: int


def site_byte_limit(input_bytes: int | None) -> int:
    """The most bytes a site made from an input of ``input_bytes`` bytes may have.

    >>> site_byte_limit(1000), site_byte_limit(None) == MAX_SITE_BYTES
    (4450304, True)
    """
    if input_bytes is None:
        return MAX_SITE_BYTES
    return min(MAX_SITE_BYTES, SITE_BASE_BYTES + SITE_BYTES_PER_INPUT_BYTE * max(input_bytes, 0))


def store_path(out_dir: str | os.PathLike[str]) -> str:
    """The folder beside ``out_dir`` holding its sites: ``.NAME.xlbridge-site``.

    >>> store_path("/srv/www/results")
    '/srv/www/.results.xlbridge-site'
    """
    parent, base = os.path.split(os.path.abspath(os.fspath(out_dir)))
    return os.path.join(parent, f".{base}.xlbridge-site")


def _umask_mode(mode: int) -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mode & ~mask


def _fsync_dir(path: str) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _current(out: str, store: str, shown: str) -> tuple[str, str | None]:
    """What is at ``out`` now: ``("none", None)``, ``("link", site folder)``, ``("folder", out)`` (empty or
    an earlier xlbridge's pages); anything else is refused."""
    try:
        st = os.lstat(out)
    except FileNotFoundError:
        return "none", None
    if stat.S_ISLNK(st.st_mode):
        target = os.path.join(os.path.dirname(out), os.readlink(out))
        if os.path.dirname(os.path.normpath(target)) == store:
            return "link", os.path.normpath(target)
        raise FormatError("refused: the output is a symbolic link that xlbridge publish did not make; give another "
                          "-o", where=shown)
    if stat.S_ISDIR(st.st_mode):
        try:
            names = os.listdir(out)
        except OSError:
            raise FormatError("refused: the output folder cannot be read; give another -o", where=shown) from None
        other = [n for n in names if not _PAGE_NAME.fullmatch(n) or not os.path.isfile(os.path.join(out, n))]
        if other:
            raise FormatError(f"refused: the output folder holds {display_name(other[0])!r}, which is not a page "
                              f"of a published site (publish replaces the whole folder); give another -o",
                              where=shown)
        return "folder", out
    raise FormatError("refused: the output exists and is not a folder; give another -o", where=shown)


def _lock_store(store: str, shown: str) -> int:
    """Lock ``store/.lock`` (``fcntl.flock``, waiting for another run: the command's time limit holds);
    a lock whose file a finishing run removed meanwhile is taken afresh.  Returns the descriptor."""
    import fcntl

    def make_folder() -> None:  # (the folder itself went with a failed first run: made again)
        with contextlib.suppress(FileExistsError):
            os.mkdir(store, _umask_mode(0o777))

    return lock_file(os.path.join(store, ".lock"), lambda fd: fcntl.flock(fd, fcntl.LOCK_EX), make_folder)


def publish_site(event: Event, out_dir: str | os.PathLike[str], *, dds: bool | str = False,
                 source: str | os.PathLike[str] | None = None, input_bytes: int | None = None,
                 name: str | None = None, scored: bool = False) -> Site:
    """Publish ``event`` at ``out_dir`` atomically (see the module's text); return the :class:`Site`.

    ``source``: the input file, which must not lie inside the site (a new site replaces the whole
    folder); ``input_bytes``: its size, which bounds the site's bytes (:func:`site_byte_limit`);
    ``name``: the input's name for messages (default: ``source``'s base name); ``scored``: ``event`` is
    already scored (:func:`~xlbridge.formats.publish.publish`).
    """
    shown = name if name is not None else (display_name(source) if source is not None else None)

    def write(folder: str, max_bytes: int, why: str) -> list[Path]:
        return publish(event, folder, dds=dds, max_bytes=max_bytes, name=shown, scored=scored, why=why)

    return _publish(out_dir, write, [] if source is None else [source], input_bytes, shown)


def publish_season_site(events: Sequence[Event], out_dir: str | os.PathLike[str], *, dds: bool | str = False,
                        sources: Sequence[str | os.PathLike[str]] = (), input_bytes: int | None = None,
                        names: Sequence[str | None] | None = None, scored: bool = False,
                        books: Sequence[Ratings | League] = ()) -> Site:
    """Publish a season's site at ``out_dir`` atomically, as :func:`publish_site` publishes one event's: each
    event in a folder of its own and an index of the events by date, newest first
    (:func:`~xlbridge.formats.publish.publish_season`). ``sources``: the input files, none of which may lie
    inside the site; ``input_bytes``: their sizes together, which bound the site's bytes; ``names``: each
    event's input name, for messages; ``books``: the season's Lehman ratings and handicap league
    (:mod:`~xlbridge.formats.seasonbooks`), a page each."""
    def write(folder: str, max_bytes: int, why: str) -> list[Path]:
        return publish_season(events, folder, dds=dds, max_bytes=max_bytes, names=names, scored=scored,
                              books=books, why=why)

    return _publish(out_dir, write, list(sources), input_bytes, None)


def _publish(out_dir: str | os.PathLike[str], write: Callable[[str, int, str], list[Path]],
             sources: list[str | os.PathLike[str]], input_bytes: int | None, shown: str | None) -> Site:
    """The site ``write(folder, max_bytes, why)`` makes, published at ``out_dir`` atomically (the module's text)."""
    out = os.path.abspath(os.fspath(out_dir))
    parent, base = os.path.split(out)
    if not base:
        raise FormatError("refused: give a folder to publish into, not the root folder")
    shown = shown if shown is not None else base
    for source in sources:
        if os.path.exists(out):
            inside = os.path.relpath(os.path.realpath(source), os.path.realpath(out))
            if not inside.startswith(os.pardir):
                raise FormatError(f"the output would overwrite the input ({inside} of the site); give another -o")
    os.makedirs(parent, exist_ok=True)
    store = store_path(out)
    with contextlib.suppress(FileExistsError):
        os.mkdir(store, _umask_mode(0o777))
    st = os.lstat(store)
    if not stat.S_ISDIR(st.st_mode):
        raise FormatError(f"refused: {os.path.basename(store)!r} beside the output is not a folder; give another -o",
                          where=shown)
    lock = _lock_store(store, shown)
    try:
        kind, current = _current(out, store, shown)
        keep = {".lock", os.path.basename(current) if kind == "link" and current else ""}
        for entry in os.listdir(store):  # what killed runs left: sites being built, sites replaced
            if entry not in keep:
                shutil.rmtree(os.path.join(store, entry), ignore_errors=True)
        link_prefix = f".{base}.xlbridge-link-"
        for entry in os.listdir(parent):  # links (and folders swapped out) of killed runs
            if entry.startswith(link_prefix):
                gone = os.path.join(parent, entry)
                if os.path.isdir(gone) and not os.path.islink(gone):
                    shutil.rmtree(gone, ignore_errors=True)
                else:
                    with contextlib.suppress(OSError):
                        os.unlink(gone)
        folder = tempfile.mkdtemp(dir=store, prefix="site-")
        link = os.path.join(parent, f"{link_prefix}{os.getpid()}")
        moved, switched = None, False
        try:
            os.chmod(folder, _umask_mode(0o777))
            written = write(folder, site_byte_limit(input_bytes),
                            "" if input_bytes is None else
                            f" for an input of {input_bytes:,} bytes ({SITE_BASE_BYTES >> 20} MiB and "
                            f"{SITE_BYTES_PER_INPUT_BYTE} bytes per byte of the input)")
            _fsync_dir(folder)
            os.symlink(os.path.relpath(folder, parent), link)
            with signals_held():  # the switch and the note of it, together
                if kind == "folder" and exchange(link, out):  # an empty folder or an earlier xlbridge's pages:
                    switched = True  # swapped with the link in one step, then moved aside into the store
                    moved = os.path.join(store, f"old-{os.getpid()}")
                    with contextlib.suppress(OSError):  # (else left at the link's name: the next run clears it)
                        os.rename(link, moved)
                elif kind == "folder":  # (no exchange here: moved aside, then the link put in its place)
                    moved = os.path.join(store, f"old-{os.getpid()}")
                    os.rename(out, moved)
                    os.replace(link, out)
                else:
                    os.replace(link, out)
                switched = True
            _fsync_dir(parent)
            for old in (current if kind == "link" else None, moved):
                if old:
                    shutil.rmtree(old, ignore_errors=True)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.unlink(link)
            if switched:  # a signal or a time limit after the switch: the new site stands; the command says so
                setattr(exc, WRITTEN, out)
                raise
            if moved is not None and not os.path.lexists(out):
                with contextlib.suppress(OSError):
                    os.rename(moved, out)
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return Site(out, folder, len(written))
    finally:
        with contextlib.suppress(OSError):  # nothing published here (a refusal, a signal): no folder of ours stays
            if not os.path.islink(out) and os.listdir(store) == [".lock"]:
                shutil.rmtree(store, ignore_errors=True)
        os.close(lock)
