"""Files of a run: private temporary folders, leftovers of killed runs, book locks, atomic writes.

- :func:`private_tempdir` and :func:`remove_stale_leftovers`: temporary folders named
  ``xlbridge-recalc-PID-*`` (and output temporaries ``.xlbridge-PID-*.tmp``), removed on every exit the
  process survives; those of a killed run (process gone, older than an hour, ours) by the next run.
- :class:`BookLock`: ``fcntl.flock`` on a sibling lock file ``.BOOK.xlbridge-lock`` serialises runs
  writing one book; the lock file is removed again.
- :func:`write_atomic`: a temporary file in the destination folder, fsynced, given the umask's mode
  (or the replaced file's mode and owner), renamed over the destination; removed on any failure.

>>> oct(umask_mode(0o666)) in ("0o644", "0o664", "0o600", "0o666", "0o640", "0o660")
True
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import tempfile
import time
import typing
from collections.abc import Callable, Iterator
from typing import Any

from ...core.errors import WorkbookLimitError
from ...core.files import WRITTEN, lock_file, signals_held
from .limits import STALE_SECONDS, TEMP_PREFIX, refuse

__all__ = [
    "BookLock",
    "CFB_SIGNATURE",
    "SAVE_AS_XLSX",
    "not_a_workbook",
    "ole2_refusal",
    "private_tempdir",
    "remove_stale_leftovers",
    "umask_mode",
    "write_atomic",
]


# --------------------------------------------------------------------------------------------------
# another kind of file than a workbook: what a member does about it

#: What a member does to turn another spreadsheet file into a workbook xlbridge reads: LibreOffice's and Excel's
#: own words (the file type each lists under File > Save As).
SAVE_AS_XLSX = ('save it as .xlsx: in LibreOffice File > Save As, file type "Excel 2007-365 (.xlsx)"; '
                'in Excel File > Save As, "Excel Workbook (*.xlsx)"')

#: The first bytes of an OLE2 compound file (MS-CFB 2.2): an Excel 97-2003 workbook (.xls), or an .xlsx
#: encrypted with a password to open (MS-OFFCRYPTO), which Office stores in the same container.
CFB_SIGNATURE = bytes.fromhex("D0CF11E0A1B11AE1")

#: OpenDocument packages (ODF 1.2 part 3, 3.3: the ``mimetype`` member) a member may give instead of a workbook
_OPENDOCUMENT = {
    "application/vnd.oasis.opendocument.spreadsheet": "an OpenDocument spreadsheet (.ods)",
    "application/vnd.oasis.opendocument.spreadsheet-template": "an OpenDocument spreadsheet template (.ots)",
}


def ole2_refusal() -> str:
    """The refusal of an OLE2 file (:data:`CFB_SIGNATURE`): a .xls, or a workbook with a password to open.

    >>> print(ole2_refusal())  # doctest: +NORMALIZE_WHITESPACE
    refused: an Excel 97-2003 workbook (.xls) or a workbook with a password to open (an OLE2 file); remove any
    password and save it as .xlsx: in LibreOffice File > Save As, file type "Excel 2007-365 (.xlsx)"; in Excel
    File > Save As, "Excel Workbook (*.xlsx)"
    """
    return ("refused: an Excel 97-2003 workbook (.xls) or a workbook with a password to open (an OLE2 file); "
            f"remove any password and {SAVE_AS_XLSX}")


def not_a_workbook(names: frozenset[str] | set[str], mimetype: bytes | None) -> str:
    """The refusal of a zip file that is no workbook (no ``xl/workbook.xml``), saying what it is where it can
    tell: an OpenDocument file by its ``mimetype`` member (its first bytes, ``mimetype``; None without one), a
    Word document by its main part; ``names``: the members' names in lower case.

    >>> print(not_a_workbook({"mimetype", "content.xml"}, b"application/vnd.oasis.opendocument.spreadsheet"))
    ... # doctest: +NORMALIZE_WHITESPACE
    not an Excel workbook: an OpenDocument spreadsheet (.ods); save it as .xlsx: in LibreOffice File > Save As,
    file type "Excel 2007-365 (.xlsx)"; in Excel File > Save As, "Excel Workbook (*.xlsx)"
    >>> not_a_workbook({"word/document.xml", "[content_types].xml"}, None)
    'not an Excel workbook: a Word document (.docx)'
    >>> not_a_workbook({"a.txt"}, None)
    'not an Excel workbook (a zip file without [Content_Types].xml and xl/workbook.xml)'
    """
    kind = _OPENDOCUMENT.get((mimetype or b"").decode("ascii", "replace").strip())
    if kind is not None:
        return f"not an Excel workbook: {kind}; {SAVE_AS_XLSX}"
    if "word/document.xml" in names:
        return "not an Excel workbook: a Word document (.docx)"
    return "not an Excel workbook (a zip file without [Content_Types].xml and xl/workbook.xml)"


# --------------------------------------------------------------------------------------------------
# temporary files, leftovers, locks, atomic writes


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return True
    return True


@contextlib.contextmanager
def private_tempdir() -> Iterator[str]:
    """A private temporary folder ``xlbridge-recalc-PID-XXXX`` (mode 0700), removed on every exit.

    The process id in the name lets :func:`remove_stale_leftovers` recognise the folder of a run that
    was killed (SIGKILL leaves it behind). Yields the folder's path.
    """
    folder = tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


_LEFTOVER_DIR = re.compile(re.escape(TEMP_PREFIX) + r"(\d+)-[A-Za-z0-9_]+$")

_LEFTOVER_TMP = re.compile(r"\.xlbridge-(\d+)-[A-Za-z0-9_]+\.tmp$")

_LOCK_SUFFIX = ".xlbridge-lock"


def remove_stale_leftovers(folders: Any = (), *, min_age: float = STALE_SECONDS, pid: int | None = None) -> list:
    """Remove what killed runs left behind; return the paths removed.

    In the temporary folder: ``xlbridge-recalc-PID-*`` folders; in each of ``folders`` (the
    destination folder of a run): ``.xlbridge-PID-*.tmp`` files. Only entries owned by this user,
    whose process PID no longer exists and that are older than ``min_age`` seconds are removed (a
    process id in another container may look dead: the age keeps a live run safe). Lock files
    ``.*.xlbridge-lock`` that nobody holds are removed too (under the lock, see :class:`BookLock`).
    ``pid``: only what that (dead) process left, whatever its age: a parent that saw its worker killed
    removes the worker's leftovers at once. Never raises.
    """
    removed = []
    now = time.time()
    uid = os.getuid() if hasattr(os, "getuid") else None

    def stale(path, owner_pid):
        try:
            st = os.lstat(path)
        except OSError:
            return False
        if pid is not None and owner_pid != pid:
            return False
        return ((uid is None or st.st_uid == uid) and (pid is not None or now - st.st_mtime >= min_age)
                and owner_pid != os.getpid() and not _pid_alive(owner_pid))

    try:
        root = tempfile.gettempdir()
        for entry in os.scandir(root):
            m = _LEFTOVER_DIR.match(entry.name)
            if m and entry.is_dir(follow_symlinks=False) and stale(entry.path, int(m.group(1))):
                shutil.rmtree(entry.path, ignore_errors=True)
                removed.append(entry.path)
    except OSError:
        pass
    for folder in folders:
        try:
            entries = list(os.scandir(folder or "."))
        except OSError:
            continue
        for entry in entries:
            m = _LEFTOVER_TMP.match(entry.name)
            try:
                if m and entry.is_file(follow_symlinks=False) and stale(entry.path, int(m.group(1))):
                    os.unlink(entry.path)
                    removed.append(entry.path)
                elif (entry.name.startswith(".") and entry.name.endswith(_LOCK_SUFFIX)
                      and entry.is_file(follow_symlinks=False) and BookLock.remove_if_unused(entry.path)):
                    removed.append(entry.path)
            except OSError:
                pass
    return removed


class BookLock:
    """An exclusive ``fcntl.flock`` on ``.NAME.xlbridge-lock`` next to ``path``, serialising runs that write it.

    Waits up to ``timeout`` seconds for another run, then refuses. The lock file is removed on
    release, safely: a waiter that then gets the lock of a removed file notices (the path no longer
    names its open file) and locks the new file instead. Where ``fcntl`` does not exist (Windows) it
    does nothing.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> with BookLock(os.path.join(d, "pairs.xlsx")) as lock:
    ...     os.path.basename(lock.lock_path) in os.listdir(d)
    True
    >>> os.listdir(d)
    []
    >>> os.rmdir(d)
    """

    def __init__(self, path: str | os.PathLike, timeout: float = 600.0, name: str | None = None,
                 wait: float | None = None) -> None:
        path = os.fspath(path)
        folder, base = os.path.split(os.path.abspath(path))
        self.lock_path = os.path.join(folder, f".{base}{_LOCK_SUFFIX}")
        self.timeout = timeout
        self.wait = timeout if wait is None else wait  # (waited: less than the limit the message names, so that
        # the refusal comes before the command's own alarm at that limit)
        self.name = name if name is not None else base
        self._fd: int | None = None

    def __enter__(self):
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return self
        deadline = time.monotonic() + self.wait

        def take(fd: int) -> None:  # (trying, until the deadline)
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                        raise
                    if time.monotonic() >= deadline:
                        refuse(f"refused: another xlbridge recalc is writing this book and did not finish "
                                f"within {self.timeout:g} s", self.name, WorkbookLimitError)
                    time.sleep(0.05)

        self._fd = lock_file(self.lock_path, take)
        return self

    def __exit__(self, *exc):
        fd, self._fd = self._fd, None
        if fd is None:
            return False
        try:
            with contextlib.suppress(OSError):
                os.unlink(self.lock_path)
        finally:
            os.close(fd)  # closing releases the lock
        return False

    @staticmethod
    def remove_if_unused(lock_path: str) -> bool:
        """Remove ``lock_path`` if no run holds it (a leftover of a killed run); True if removed."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover
            return False
        try:
            fd = os.open(lock_path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.path.samestat(os.fstat(fd), os.stat(lock_path)):
                os.unlink(lock_path)
                return True
            return False
        except OSError:
            return False
        finally:
            os.close(fd)


def umask_mode(mode: int = 0o666) -> int:
    """``mode`` with the process's umask applied: what ``open(path, "w")`` would create.

    Reads the umask from ``/proc/self/status`` where possible (no race); otherwise sets and restores it.

    >>> umask_mode(0o666) & ~0o777
    0
    """
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return mode & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mode & ~mask


def write_atomic(dest: str | os.PathLike, write: Callable[[typing.BinaryIO], Any], *, mode: int | None = None,
                 owner: tuple | None = None, before_replace: Callable[[], Any] | None = None) -> None:
    """Create ``dest`` atomically: ``write(binary file)`` fills a temporary file in the same folder.

    The temporary file ``.xlbridge-PID-XXXX.tmp`` is fsynced, given ``mode`` (default: the umask's
    mode for a new file, i.e. what any program creating the file would give it) and, when running as
    root, ``owner`` (uid, gid), then ``before_replace()`` runs if given (``--in-place`` writes the
    backup there, once the new file is complete), then it is renamed over ``dest`` (``os.replace``)
    and the folder fsynced. On any failure before the rename (including a signal turned into an
    exception) the temporary file is removed and ``dest`` is untouched; an exception after it (a signal
    held during the rename, a time limit) carries ``dest`` as its ``xlbridge.core.files.WRITTEN`` attribute.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> write_atomic(os.path.join(d, "a.bin"), lambda fh: fh.write(b"new"))
    >>> open(os.path.join(d, "a.bin"), "rb").read(), os.stat(os.path.join(d, "a.bin")).st_mode & 0o777 == umask_mode()
    (b'new', True)
    >>> def fail(fh):
    ...     raise OSError("disk full")
    >>> try:
    ...     write_atomic(os.path.join(d, "a.bin"), fail)
    ... except OSError as err:
    ...     print(err)
    disk full
    >>> os.listdir(d), open(os.path.join(d, "a.bin"), "rb").read()
    (['a.bin'], b'new')
    >>> import shutil; shutil.rmtree(d)
    """
    dest = os.fspath(dest)
    folder = os.path.dirname(os.path.abspath(dest))
    fd, tmp = tempfile.mkstemp(prefix=f".xlbridge-{os.getpid()}-", suffix=".tmp", dir=folder)
    written = False
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), umask_mode() if mode is None else mode)
            if owner is not None and hasattr(os, "geteuid") and os.geteuid() == 0:
                os.fchown(fh.fileno(), *owner)
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        if before_replace is not None:
            before_replace()
        with signals_held():  # renamed and known to be, together: a signal held comes after, as the block ends
            os.replace(tmp, dest)
            written = True
        with contextlib.suppress(OSError):  # make the rename itself durable
            dfd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
    except BaseException as exc:
        if not written:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        setattr(exc, WRITTEN, dest)  # a signal or a time limit once the new file is in place: it stands
        raise
