"""What kind of file a path names, and opening a regular file for reading without ever waiting on it.

A path that is a symbolic link is not read: :func:`regular_stat` names it ``a symbolic link`` (``os.lstat``)
and :func:`open_regular` opens with ``O_NOFOLLOW``, so a link swapped in after the check is not followed
either. A server given an upload's path reads that file, never the one a link in the upload's folder points
to (``/etc/passwd``); the user gives the file itself.

Also the two steps of putting a finished output in place that must not be split by a signal
(:func:`signals_held`, :func:`exchange`). Shared by the layers that read files a user names: the batch layer (workbooks,
:func:`xlbridge.batch.guard.safety.open_regular_file`) and the file formats (PBN, USEBIO:
:func:`xlbridge.formats.errors.load_source`), which both import the core and nothing of each
other. Each refuses a FIFO, a device or a folder at once, in its own words; reading a FIFO would
wait for a writer, and reading a device such as ``/dev/zero`` would never end. Standard library
only; nothing here raises a message of its own.

>>> import os
>>> file_kind(os.stat("/").st_mode), file_kind(os.stat(__file__).st_mode)
('a folder', None)
>>> import tempfile
>>> link = os.path.join(tempfile.mkdtemp(), "club.pbn")
>>> os.symlink(__file__, link)
>>> regular_stat(link)[1], regular_stat(__file__)[1]
('a symbolic link', None)
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
from collections.abc import Callable, Iterator

__all__ = ["file_kind", "regular_stat", "open_regular", "signals_held", "exchange", "lock_file", "WRITTEN"]

#: The attribute a writer sets on an exception (a signal turned into one, a time limit) that reached it
#: *after* its output was put in place: the path written, so that the command says so instead of
#: "nothing written" (``setattr(exc, WRITTEN, path)``; read with ``getattr(exc, WRITTEN, None)``).
WRITTEN = "xlbridge_written"

_HELD = tuple(s for s in (getattr(signal, n, None) for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGALRM")) if s is not None)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT, SIGTERM, SIGHUP and SIGALRM (a time limit) held back for the few statements inside, and
    delivered as soon as they end: a rename that puts an output in place and the note that it was made
    happen together or not at all. In the main thread (where Python runs every signal handler, whichever
    thread the system gave the signal to) each handler is swapped for one that only notes the signal, and
    each signal noted is raised again once the handlers are back (``signal.raise_signal``); an ignored
    signal stays ignored. Elsewhere the thread's signal mask blocks them (``signal.pthread_sigmask``).
    SIGKILL cannot be held: what must survive it is a single rename.

    >>> with signals_held():
    ...     done = True
    >>> done
    True
    """
    import threading

    if threading.current_thread() is not threading.main_thread():
        mask = getattr(signal, "pthread_sigmask", None)
        if mask is None:
            yield
            return
        old = mask(signal.SIG_BLOCK, _HELD)
        try:
            yield
        finally:
            mask(signal.SIG_SETMASK, old)
        return
    pending: list[int] = []

    def note(signum: int, frame: object) -> None:
        pending.append(signum)

    previous = {}
    for sig in _HELD:
        if signal.getsignal(sig) in (signal.SIG_IGN, None):  # (None: a handler not set from Python)
            continue
        try:
            previous[sig] = signal.signal(sig, note)
        except (ValueError, OSError):
            pass
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(pending):
            signal.raise_signal(sig)


def exchange(a: str, b: str) -> bool:
    """Swap the two paths ``a`` and ``b`` (files, folders or symbolic links) in one step, so that no moment
    has one of them missing: Linux ``renameat2(RENAME_EXCHANGE)`` through the C library. Returns False,
    changing nothing, where the system or the file system cannot (then the caller renames twice).

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> for n in "ab":
    ...     with open(os.path.join(d, n), "w") as fh:
    ...         _ = fh.write(n)
    >>> swapped = exchange(os.path.join(d, "a"), os.path.join(d, "b"))
    >>> open(os.path.join(d, "a")).read() == ("b" if swapped else "a")
    True
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):  # not on this system or file system
        return False
    raise OSError(err, os.strerror(err), a)


def file_kind(mode: int) -> str | None:
    """What a file of ``mode`` (an ``os.stat`` result's ``st_mode``) is, for a message, when it is not
    a regular file (``"a symbolic link"`` for an ``os.lstat`` result, ``"a folder"``, ``"a FIFO (named pipe)"``,
    ``"a device"``, ``"a socket"``, ``"a special file"``); None for a regular file.

    >>> file_kind(stat.S_IFIFO | 0o600), file_kind(stat.S_IFCHR), file_kind(stat.S_IFREG | 0o644)
    ('a FIFO (named pipe)', 'a device', None)
    """
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def regular_stat(path: str | os.PathLike[str]) -> tuple[os.stat_result, str | None]:
    """``os.lstat`` of ``path`` (a symbolic link is not followed) and what it is when it is not a regular
    file (:func:`file_kind`: ``"a symbolic link"``, ``"a folder"``, ...), None for a regular file: the one
    check of every command's input (the batch layer's and the file formats' refusals say it in their words).
    An ``OSError`` (the file missing, a folder on the way not searchable) is the caller's to report.
    """
    st = os.lstat(path)
    return st, file_kind(st.st_mode)


def open_regular(path: str | os.PathLike[str], st: os.stat_result) -> int | None:
    """Open ``path``, which :func:`regular_stat` found to be the regular file ``st``, for reading; return the
    descriptor (blocking, as a caller expects), or None when the open file is not that same regular
    file any more (the descriptor is then closed; a symbolic link put there meanwhile is not followed).

    The open is non-blocking (``O_NONBLOCK``): a FIFO swapped in for the file after the ``stat``
    cannot make it wait; ``O_NOFOLLOW``: nor can a symbolic link; ``fstat`` of the descriptor then checks
    device and inode.  An ``OSError`` of ``open`` (permissions, the file gone) is the caller's to report.

    >>> fd = open_regular(__file__, os.stat(__file__))
    >>> len(os.read(fd, 10)), os.close(fd)
    (10, None)
    >>> open_regular(__file__, os.stat("/")) is None
    True
    """
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
             | getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # a symbolic link swapped in since the check
            return None
        raise
    try:
        fst = os.fstat(fd)
        same = stat.S_ISREG(fst.st_mode) and (fst.st_dev, fst.st_ino) == (st.st_dev, st.st_ino)
        if same and hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    if not same:
        os.close(fd)
        return None
    return fd


def lock_file(path: str, take: Callable[[int], None], missing: Callable[[], None] | None = None) -> int:
    """The descriptor of ``path`` (made if missing, mode 0600, never through a symbolic link) once ``take`` has
    locked it (``take(fd)``: ``fcntl.flock`` waiting, or trying until a deadline and raising to give up). A
    lock whose file the previous holder removed meanwhile (``path`` names another file by then) is let go and
    the new file locked instead, so that a holder may remove its lock file when it ends. ``missing``: called
    when the folder of ``path`` does not exist (to make it), before trying again; without it, the error.
    Used by ``xlbridge recalc`` (a book's lock) and ``xlbridge publish`` (a site's).

    >>> import fcntl, tempfile
    >>> fd = lock_file(os.path.join(tempfile.mkdtemp(), ".lock"), lambda fd: fcntl.flock(fd, fcntl.LOCK_EX))
    >>> os.close(fd)
    """
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0),
                         0o600)
        except FileNotFoundError:
            if missing is None:
                raise
            missing()
            continue
        try:
            take(fd)
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            return fd
        os.close(fd)
