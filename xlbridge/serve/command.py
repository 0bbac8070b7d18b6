"""``xlbridge serve``: the command line of the server.

::

    xlbridge serve --data DIR --add-club NAME                       # prints the club's first API token
    xlbridge serve --data DIR --add-scorer LOGIN --club NAME        # the password is read from stdin
    xlbridge serve --data DIR --add-token NAME                      # another API token for the club
    xlbridge serve --data DIR [--host H] [--port P] [--jobs N] [--queue N] [--max-upload MIB]
                              [--timeout S] [--max-memory MIB]      # serves (uvicorn)

Exit codes: 0 done (or the server stopped), 2 refused (a bad name, a club that exists, the [serve]
extra missing), each with one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["add_parser", "run"]


def _positive(text: str, high: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= high:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to {high:,}, not {text[:20]!r}")
    return value


def add_parser(sub: Any, seconds: Callable[[str], float], mib: Callable[[str], int]) -> argparse.ArgumentParser:
    """The ``serve`` subcommand's arguments (``seconds`` and ``mib``: the guard's parsers of ``--timeout``
    and ``--max-memory``)."""
    s: argparse.ArgumentParser = sub.add_parser("serve", help="the club's server: uploads, season sites, Excel's functions for Office.js",
                       description="Serve uploads (recalculated or imported as the commands do), each club's "
                                   "season site and xlbridge's Excel functions for Office.js, from a data folder "
                                   "(SQLite and files); or add a club or a scorer to it.")
    s.add_argument("--data", required=True, metavar="DIR", help="the data folder (made if missing)")
    s.add_argument("--add-club", metavar="NAME", help="make a club (lower-case letters, digits, hyphens) and print "
                                                      "its first API token")
    s.add_argument("--add-token", metavar="NAME", help="print a new API token for the club NAME")
    s.add_argument("--add-scorer", metavar="LOGIN", help="make a scorer of --club; the password is read from stdin "
                                                        "(asked twice on a terminal)")
    s.add_argument("--club", metavar="NAME", help="with --add-scorer: the scorer's club")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; behind a proxy)")
    s.add_argument("--port", type=lambda t: _positive(t, 65535, "--port"), default=8000, help="port (default 8000)")
    s.add_argument("--jobs", type=lambda t: _positive(t, 256, "--jobs"), default=None, metavar="N",
                   help="uploads processed at once (default: the usable cores)")
    from .defaults import MAX_UPLOAD, QUEUED, STEP_MEMORY_MIB, STEP_SECONDS

    upload = MAX_UPLOAD // (1024 * 1024)  # (the server's defaults, said once there)
    s.add_argument("--queue", type=lambda t: _positive(t, 100_000, "--queue"), default=QUEUED,
                   metavar="N", help=f"uploads that may wait; beyond, 503 with Retry-After (default {QUEUED})")
    s.add_argument("--max-upload", type=mib, default=upload, metavar="MIB",
                   help=f"largest upload in MiB (default {upload})")
    s.add_argument("--timeout", type=seconds, default=STEP_SECONDS, metavar="SECONDS",
                   help=f"time limit of each step of a job (default {STEP_SECONDS:g})")
    s.add_argument("--max-memory", type=mib, default=STEP_MEMORY_MIB, metavar="MIB",
                   help=f"address-space limit of each step's process in MiB (default {STEP_MEMORY_MIB})")
    s.add_argument("--forwarded-allow-ips", default="127.0.0.1", metavar="IPS",
                   help="proxies whose X-Forwarded-Proto/For are trusted (default 127.0.0.1)")
    return s


def _password() -> str:
    if sys.stdin.isatty():
        import getpass

        first = getpass.getpass("password: ")
        if getpass.getpass("again: ") != first:
            raise ValueError("the two passwords differ")
        return first
    return sys.stdin.readline().rstrip("\r\n")


def run(args: argparse.Namespace) -> int:
    """Run ``xlbridge serve`` with parsed ``args``; return the exit code."""
    prog = "xlbridge serve"
    try:
        from .accounts import AccountError, add_club, add_scorer, add_token
        from .storage import Storage
    except ImportError:  # pragma: no cover
        print(f'{prog}: the [serve] extra is needed: python -m pip install "xlbridge[serve]"', file=sys.stderr)
        return 2
    try:
        store = Storage(args.data)
    except OSError as exc:
        print(f"{prog}: cannot use the data folder: {exc.strerror or 'error'}", file=sys.stderr)
        return 2
    try:
        if args.add_club:
            print(add_club(store, args.add_club))
            return 0
        if args.add_token:
            from .storage import valid_club

            with store.connect() as db:
                known = valid_club(args.add_token) and db.execute(
                    "SELECT 1 FROM clubs WHERE name = ?", (args.add_token,)).fetchone() is not None
            if not known:
                raise AccountError(f"no club {args.add_token[:60]!r}")
            print(add_token(store, args.add_token))
            return 0
        if args.add_scorer:
            if not args.club:
                raise AccountError("--add-scorer needs --club NAME")
            add_scorer(store, args.club, args.add_scorer, _password())
            print(f"{args.add_scorer}: scorer of {args.club}")
            return 0
    except (AccountError, ValueError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    try:
        import uvicorn

        from .app import ServeSettings, create_app
        from .jobs import JobLimits
        from .officejs import LICENCE_NOTICE
    except ImportError as exc:
        print(f'{prog}: the [serve] extra is needed ({exc.name} is missing): python -m pip install "xlbridge[serve]"',
              file=sys.stderr)
        return 2
    workers = args.jobs or max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else
                               (os.cpu_count() or 1))
    settings = ServeSettings(data=str(store.root), max_upload=args.max_upload << 20,
                             limits=JobLimits(timeout=args.timeout, max_memory_mib=args.max_memory, workers=workers,
                                              max_queued=args.queue))
    if not os.environ.get("XLWINGS_LICENSE_KEY"):
        print(f"{prog}: note: {LICENCE_NOTICE}", file=sys.stderr)
    print(f"{prog}: http://{args.host}:{args.port}/ ({workers} jobs at once, {args.queue} may wait)", file=sys.stderr)
    sys.stderr.flush()
    uvicorn.run(create_app(settings), host=args.host, port=args.port, proxy_headers=True,
                forwarded_allow_ips=args.forwarded_allow_ips, log_level="warning", server_header=False)
    return 0
