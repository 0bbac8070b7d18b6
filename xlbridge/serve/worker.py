"""One step of a job: ``python -m xlbridge.serve.worker recalc|import|publish ARGS...``.

The ``xlbridge`` command itself (:func:`xlbridge.cli.main`), in a process of its own, told to stop
(SIGTERM) when the server that started it dies (:func:`xlbridge.batch.many.die_with_parent`, Linux),
so a killed server leaves no step running; the step's own guard (``--timeout``, ``--max-memory``)
bounds it, its one-line messages are the job's messages.
"""

from __future__ import annotations

import contextlib
import os
import sys

__all__ = ["main", "NICE_ENV"]

#: the environment variable giving a step's niceness (``os.nice``): the recalculations run at 5, the publish at 0
NICE_ENV = "XLBRIDGE_STEP_NICE"


def main(argv: list[str]) -> int:
    """Run ``xlbridge ARGV`` under the parent's watch; return its exit code."""
    from ..batch.many import die_with_parent
    from ..cli import main as xlbridge

    die_with_parent()
    nice = os.environ.get(NICE_ENV, "")
    if nice.isdigit():  # the recalculations yield to the site's publish, which a club waits for
        with contextlib.suppress(OSError):
            os.nice(int(nice))
    return xlbridge(argv)


if __name__ == "__main__":  # pragma: no cover - run as a process
    sys.exit(main(sys.argv[1:]))
