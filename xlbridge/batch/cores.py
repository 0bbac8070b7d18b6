"""How many processor cores one book's recalculation may keep busy (standard library only: every run reads it).

``xlbridge recalc FOLDER --jobs N`` (:mod:`xlbridge.batch.many`) tells each per-book process its share in
:data:`CORES_ENV`; a single run, or a server starting its own runs side by side, may set it too. A book
reads a large worksheet part in two halves on two cores (:mod:`xlbridge.batch.read.halves`) only when its
share is two or more.
"""

from __future__ import annotations

import os

__all__ = ["CORES_ENV", "book_cores", "usable_cores"]

#: Environment variable giving one book's recalculation its share of the processor cores (a whole number
#: from 1 to 4096; anything else is ignored).
CORES_ENV = "XLBRIDGE_BOOK_CORES"


def usable_cores() -> int:
    """The processor cores this process may run on: its CPU affinity where the system tells it (as
    ``taskset`` or a container's cpuset restrict it), else ``os.cpu_count()``; at least 1. A container's
    CPU quota (``docker --cpus``, a Kubernetes limit) is not an affinity and is not seen."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def book_cores(environ: dict | None = None) -> int:
    """The cores one book's recalculation may keep busy at once: :data:`CORES_ENV` (set by ``--jobs``
    to the usable cores divided by the books run at once, at least 1) when it holds a whole number from 1
    to 4096, else every usable core.

    With one core a book reads its large worksheet parts whole: with as many books at once as cores the
    other books keep the cores busy, and a second reading process would only add its own work (forking,
    handing its half over, merging: about 5 % of a 1,000-row season's processor time).

    >>> book_cores({CORES_ENV: "1"}), book_cores({CORES_ENV: "4"})
    (1, 4)
    >>> book_cores({CORES_ENV: "none"}) == book_cores({CORES_ENV: "9" * 5000}) == book_cores({}) == usable_cores()
    True
    """
    value = (os.environ if environ is None else environ).get(CORES_ENV, "")
    if value.isascii() and value.isdigit() and len(value) <= 4 and 0 < int(value) <= 4096:
        return int(value)
    return usable_cores()
