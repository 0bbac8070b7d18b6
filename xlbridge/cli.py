"""The ``xlbridge`` command: ``xlbridge recalc BOOK`` and ``xlbridge templates``.

Exit codes of ``xlbridge recalc``:

- 0: recalculated, no cell evaluated to an error;
- 1: recalculated and written, but some cells evaluated to Excel errors (listed on stdout);
- 2: the file was refused (not a workbook, damaged, password-protected, hostile, over a size, memory
  or time limit), the command line is wrong, or the [batch] extra is not installed; the one-line
  reason is printed on stderr (and, with ``--json``, a summary with ``"ok": false`` on stdout);
- 3: the output could not be written (permissions, disk full);
- 128 + N: stopped by signal N (SIGTERM: 143, SIGINT: 130, SIGHUP: 129); the engine's child process,
  temporary files and the lock are removed first and nothing is written.

Every failure is one line on stderr (``xlbridge recalc: BOOK: reason``), never a traceback: an
unexpected exception is reported as one line with exit 2. The limits ``--timeout`` (seconds, more
than 0 and at most 86,400), ``--max-memory`` (MiB, 1 to 1,048,576) and ``--max-cells`` (1 to
100,000,000) are checked before anything runs; NaN, zero or negative values are refused, so no value
switches a limit off.

``xlbridge import``, ``export`` and ``publish`` run under the same guard (``--timeout``, default 600 s,
and ``--max-memory``, default 4096 MiB, for the whole command, in its own process:
:mod:`xlbridge.batch.guard.uploads`; the same signals and exit codes; docs/server.md).

``xlbridge templates [--out DIR] [--check] [NAME ...]`` builds the bundled template workbooks, or
only those named (``pairs.xlsx``, ``examples/pairs.xlsx``), or, with ``--check``, checks that the files
in DIR are what the code builds; exit 0 when fine, 1 when ``--check`` finds differences, 2 on refused
input (an unknown name).

>>> main(["recalc", "no-such-file.xlsx", "--no-progress"])
2
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
from collections.abc import Callable, Sequence
from types import FrameType
from typing import TYPE_CHECKING
from typing import Any, NoReturn

from .batch.frames import with_room

if TYPE_CHECKING:
    import os

__all__ = ["main", "build_parser"]

EXIT_OK, EXIT_CELL_ERRORS, EXIT_REFUSED, EXIT_WRITE = 0, 1, 2, 3
MAX_TIMEOUT = 86_400.0  # one day
MAX_MEMORY_MIB = 1 << 20  # 1 TiB
MAX_CELLS = 100_000_000


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``xlbridge recalc: error: ...``) and exit code 2."""

    def error(self, message: str) -> NoReturn:
        from .batch.guard.safety import one_line

        self.exit(EXIT_REFUSED, f"{self.prog}: error: {one_line(message, 300)} (see {self.prog} --help)\n")


def _number(text: str, *, kind: type[int] | type[float], low: float, high: float, what: str,
            low_inclusive: bool) -> float:
    """Parse a limit from the command line: finite, within [low, high] (``low`` excluded unless inclusive)."""
    from .batch.guard.safety import clip

    try:
        value = kind(text)
    except (TypeError, ValueError):
        value = None
    if value is None or not math.isfinite(value) or value > high or value < low or (
            value == low and not low_inclusive):
        def fmt(x: float) -> str:
            return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"

        bound = f"{'from' if low_inclusive else 'more than'} {fmt(low)} {'to' if low_inclusive else 'and at most'} {fmt(high)}"
        raise argparse.ArgumentTypeError(f"must be a {'whole ' if kind is int else ''}number "
                                         f"{bound}, not {clip(text, 20)}")
    return value


def _seconds(text: str) -> float:
    """``--timeout``: seconds, more than 0 and at most one day.

    >>> _seconds("30")
    30.0
    >>> _seconds("nan")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a number more than 0 and at most 86,400, not 'nan'
    """
    return _number(text, kind=float, low=0, high=MAX_TIMEOUT, what="--timeout", low_inclusive=False)


def _mib(text: str) -> int:
    """``--max-memory``: MiB, a whole number from 1 to 1,048,576.

    >>> _mib("1024")
    1024
    >>> _mib("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a whole number from 1 to 1,048,576, not '-1'
    """
    return int(_number(text, kind=int, low=1, high=MAX_MEMORY_MIB, what="--max-memory", low_inclusive=True))


def _cells(text: str) -> int:
    """``--max-cells``: a whole number from 1 to 100,000,000."""
    return int(_number(text, kind=int, low=1, high=MAX_CELLS, what="--max-cells", low_inclusive=True))


def _jobs(text: str) -> int:
    """``--jobs``: a whole number from 0 (one per usable core: the CPU affinity's) to 256.

    >>> _jobs("4")
    4
    """
    return int(_number(text, kind=int, low=0, high=256, what="--jobs", low_inclusive=True))


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``xlbridge`` command.

    The limits' defaults in the help texts are the guard's own (:class:`xlbridge.batch.guard.limits.SafetyLimits`),
    never restated here.
    """
    from .batch.guard.limits import DEFAULT_LIMITS as limits

    seconds = f"default {limits.max_seconds:g}; more than 0, at most {MAX_TIMEOUT:g}"
    mib = f"default {limits.max_memory >> 20}; 1 to {MAX_MEMORY_MIB}"
    p = _Parser(prog="xlbridge", description="Exact contract-bridge scoring for Excel.")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("recalc", help="recalculate every formula of a workbook headlessly",
                       description="Recalculate every formula (standard Excel and xlbridge functions) and "
                                   "write the results as cached values into a copy of BOOK.")
    r.add_argument("books", nargs="+", metavar="BOOK",
                   help="the .xlsx/.xlsm workbook(s); a folder stands for every .xlsx/.xlsm file in it")
    r.add_argument("-o", "--output", metavar="OUT",
                   help="output file (default: BOOK with -recalculated before the suffix); with several "
                        "books or a folder, an output folder")
    r.add_argument("--jobs", type=_jobs, default=1, metavar="N",
                   help="with several books: how many to recalculate at once, each in its own process "
                        "(default 1; 0 means one per core this process may run on)")
    r.add_argument("--recursive", action="store_true", help="a folder includes the books of its sub-folders")
    r.add_argument("--in-place", action="store_true",
                   help="replace BOOK atomically, keeping the previous file as BOOK.bak")
    r.add_argument("--values-only", action="store_true",
                   help="write a copy whose formulas are replaced by their values (default name: BOOK with "
                        "-values before the suffix), for mailing results to members")
    r.add_argument("--json", action="store_true", help="print a machine-readable summary on stdout")
    r.add_argument("--no-progress", action="store_true", help="no progress output on stderr")
    r.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                   help="wall-clock limit of the file checks and, separately, of the formula engine "
                        f"({seconds})")
    r.add_argument("--max-memory", type=_mib, metavar="MIB",
                   help=f"address-space limit of the formula engine in MiB ({mib})")
    r.add_argument("--max-cells", type=_cells, metavar="N",
                   help=f"most cells (<c> elements) the workbook may hold over all sheets "
                        f"(default {limits.max_cells}; 1 to {MAX_CELLS})")
    i = sub.add_parser("import", help="a PBN or USEBIO results file into a new pairs (or teams) workbook",
                       description="Read a PBN 2.1 or USEBIO 1.2 file (chosen by its content) and write a pairs "
                                   "workbook (the pairs.xlsx template) holding its travellers, pairs, names, "
                                   "movement and event name, or for a teams event a teams workbook (teams.xlsx: "
                                   "matches, both rooms' scores, team names); deals, leads and contracts go into "
                                   "extra sheets; then `xlbridge recalc` scores it.")
    i.add_argument("source", metavar="FILE", help="the .pbn or USEBIO .xml file")
    i.add_argument("-o", "--output", metavar="BOOK", required=True, help="the workbook to write (.xlsx)")
    e = sub.add_parser("export", help="a pairs (or teams) workbook's session out as PBN or USEBIO",
                       description="Read the travellers and pairs of a pairs workbook (or the matches of a teams "
                                   "workbook), score them (the same core as the workbook's functions) and write "
                                   "PBN 2.1 with score tables, or USEBIO 1.2 as the federation's systems read it.")
    e.add_argument("book", metavar="BOOK", help="the pairs or teams workbook (.xlsx)")
    e.add_argument("--format", choices=("pbn", "usebio"), required=True,
                   help="pbn or usebio (pairs or teams)")
    e.add_argument("-o", "--output", metavar="FILE", required=True, help="the file to write")
    e.add_argument("--federation", choices=("EBU", "ABF"), default="EBU", type=str.upper,
                   help="usebio only: write it as this federation's systems read it (default EBU: a shared place "
                        "as 3=; ABF, for its Cobalt: a shared place as 3, a Mitchell's pairs as 1NS/1EW, national "
                        "numbers digits only; docs/formats.md)")
    w = sub.add_parser("publish", help="a static results web site from workbooks or PBN/USEBIO files",
                       description="Write the ranking per field with names, every board's traveller and every "
                                   "pair's scorecard as plain HTML pages with one stylesheet. Several sources: "
                                   "one site for the season, each event in a folder of its own and an index of "
                                   "the events by date, newest first; a Lehman ratings workbook (lehman.xlsx) or "
                                   "a handicap league (handicap.xlsx), recalculated, adds a page of its own. "
                                   "National numbers are never published; a pair or team marked Private is shown "
                                   "by its number only.")
    w.add_argument("source", metavar="SOURCE", nargs="+",
                   help="a pairs, teams, Lehman or handicap workbook (.xlsx), a .pbn or a USEBIO .xml file; several "
                        "for a season")
    w.add_argument("-o", "--output", metavar="DIR", required=True, help="the folder to write the pages into")
    w.add_argument("--dds", action="store_true",
                   help="add each dealt board's double-dummy table and par score (needs the dds extra: "
                        "python -m pip install \"xlbridge[dds]\")")
    for cmd in (i, e, w):  # the guard of every command reading an upload: recalc's limits and defaults
        cmd.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                         help=f"wall-clock limit of the whole command ({seconds})")
        cmd.add_argument("--max-memory", type=_mib, metavar="MIB",
                         help=f"address-space limit of the command's process in MiB ({mib})")
    from .serve.command import add_parser as add_serve  # the club's server (its own package; the [serve] extra)

    add_serve(sub, _seconds, _mib)
    t = sub.add_parser("templates", help="build (or check) the bundled template workbooks")
    t.add_argument("--out", metavar="DIR", default="workbooks", help="folder (default: workbooks)")
    t.add_argument("--check", action="store_true", help="check the files in DIR instead of writing them")
    t.add_argument("names", nargs="*", metavar="NAME",
                   help="only these files (e.g. pairs.xlsx, examples/pairs.xlsx; default: every template)")
    return p


class _Interrupted(BaseException):
    """SIGTERM/SIGINT/SIGHUP during a run, raised where the run is so that every cleanup runs."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_SIGNALS = tuple(s for s in (getattr(signal, n, None) for n in ("SIGTERM", "SIGINT", "SIGHUP")) if s is not None)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    for sig in _SIGNALS:  # a second signal must not interrupt the cleanup
        signal.signal(sig, signal.SIG_IGN)
    raise _Interrupted(signum)


_NOTHING_WRITTEN = "nothing written"


def _written(exc: BaseException) -> str:
    """What a command stopped by ``exc`` (a signal, a limit) leaves: "nothing written", or, when the exception
    came after the output was put in place (``xlbridge.core.files.WRITTEN``), that the output was written.

    >>> _written(KeyboardInterrupt())
    'nothing written'
    >>> exc = KeyboardInterrupt(); setattr(exc, "xlbridge_written", "/srv/site/tuesday")
    >>> _written(exc)
    "the output was written before it stopped ('tuesday')"
    """
    import os

    from .core.files import WRITTEN

    path = getattr(exc, WRITTEN, None)
    if not path:
        return _NOTHING_WRITTEN
    return f"the output was written before it stopped ({_printable(os.path.basename(path))!r})"


def _install_signal_handlers() -> dict[signal.Signals, Any]:
    """Turn SIGTERM/SIGINT/SIGHUP into an exception (main thread only); return the previous handlers."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    previous = {}
    for sig in _SIGNALS:
        try:
            previous[sig] = signal.signal(sig, _on_signal)
        except (ValueError, OSError):
            pass
    return previous


def _recalc(args: argparse.Namespace) -> int:
    import dataclasses
    import os

    if os.environ.get("XLBRIDGE_JOBS_PARENT"):  # a per-book worker of --jobs: stop when the parent dies
        from .batch.many import die_with_parent

        die_with_parent()

    from .core.errors import WorkbookError
    from .batch.guard.safety import one_line

    def fail(code: int, key: str, msg: str) -> int:
        msg = one_line(msg, 600)
        if args.json:
            print(json.dumps({"source": args.book, "ok": False, key: msg}))
        print(_printable(f"xlbridge recalc: {msg}"), file=sys.stderr)
        return code

    previous = _install_signal_handlers()
    try:
        try:
            from .batch.recalc import recalc_workbook
            from .batch.guard.safety import DEFAULT_LIMITS

            limits = DEFAULT_LIMITS
            if args.timeout is not None:
                limits = dataclasses.replace(limits, max_seconds=args.timeout)
            if args.max_memory is not None:
                limits = dataclasses.replace(limits, max_memory=args.max_memory << 20)
            if args.max_cells is not None:
                limits = dataclasses.replace(limits, max_cells=args.max_cells)
            progress = not args.no_progress and sys.stderr.isatty()
            from .batch.guard.uploads import TimeLimitReached, refusal_line, upload_limits

            try:  # the limits hold for the whole command: this process too, not only the engine's
                with upload_limits(limits, _printable(_name(args.book)), "xlbridge recalc"):
                    report = recalc_workbook(args.book, args.output, in_place=args.in_place, progress=progress,
                                             limits=limits, values_only=args.values_only)
            except (TimeLimitReached, MemoryError) as exc:
                after = f" ({_written(exc)})" if _written(exc) != _NOTHING_WRITTEN else ""
                return fail(EXIT_REFUSED, "refused", f"{_name(args.book)}: {refusal_line(exc, limits)}{after}")
        except _Interrupted as exc:
            name = signal.Signals(exc.signum).name
            return fail(128 + exc.signum, "refused", f"{_name(args.book)}: interrupted by {name}; {_written(exc)}")
        except WorkbookError as exc:
            return fail(EXIT_REFUSED, "refused", str(exc))
        except OSError as exc:
            what = exc.strerror or type(exc).__name__
            target = args.book if args.in_place else (args.output or "the output")
            failed = next((f for f in (exc.filename2, exc.filename) if isinstance(f, str)), None)  # (rename: to)
            if failed and target != "the output" and os.path.dirname(os.path.abspath(failed)) == os.path.dirname(
                    os.path.abspath(target)):  # a file beside it (the .bak, the lock): named as the caller knows it
                target = os.path.join(os.path.dirname(target), os.path.basename(failed))
            return fail(EXIT_WRITE, "write_error", f"cannot write the output: {what} ({target})")
        except ImportError as exc:  # the [batch] extra is missing: say so in one line, not a traceback
            return fail(EXIT_REFUSED, "refused", f"the headless batch layer is not installed ({exc}); "
                                                 f"install it with: python -m pip install \"xlbridge[batch]\"")
        except MemoryError:
            return fail(EXIT_REFUSED, "refused", f"{_name(args.book)}: refused: out of memory")
        except (Exception, RecursionError) as exc:  # never a traceback, whatever happened
            return fail(EXIT_REFUSED, "refused",
                        f"{_name(args.book)}: refused: unexpected {type(exc).__name__} ({exc})")
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if args.json:
        print(report.to_json())
    else:
        for err in report.errors:
            print(_printable(str(err)))
    for warning in report.warnings:
        print(_printable(f"xlbridge recalc: warning: {warning}"), file=sys.stderr)
    if not args.json:
        extra = f" (backup: {report.backup})" if report.backup else ""
        print(_printable(f"{report.output}: {report.formula_cells} formula cells in {report.sheets} sheets "
                         f"recalculated, {len(report.errors)} with errors, {report.seconds:.1f} s{extra}"),
              file=sys.stderr)
    return EXIT_OK if report.ok else EXIT_CELL_ERRORS


def _recalc_many(args: argparse.Namespace) -> int:
    """Several books (or a folder): one process per book, ``--jobs`` at a time, one summary, the worst exit code."""
    import os
    import time

    from .batch.cores import usable_cores
    from .batch.many import BookRun, expand_inputs, output_paths, run_many
    from .batch.guard.safety import one_line
    from .core.errors import WorkbookError

    start = time.perf_counter()
    try:
        books = expand_inputs(args.books, recursive=args.recursive)
        outputs = output_paths(books, args.output)
        if args.output is not None:
            os.makedirs(args.output, exist_ok=True)
    except (WorkbookError, OSError) as exc:
        msg = one_line(str(exc) if isinstance(exc, WorkbookError) else f"cannot use the output folder: "
                       f"{exc.strerror or type(exc).__name__} ({args.output})", 600)
        if args.json:
            print(json.dumps({"ok": False, "exit": EXIT_REFUSED, "refused": msg, "books": []}))
        print(_printable(f"xlbridge recalc: {msg}"), file=sys.stderr)
        return EXIT_REFUSED
    options = []
    if args.in_place:
        options.append("--in-place")
    if args.values_only:
        options.append("--values-only")
    for flag, value in (("--timeout", args.timeout), ("--max-memory", args.max_memory),
                        ("--max-cells", args.max_cells)):
        if value is not None:
            options += [flag, repr(value)]
    jobs = args.jobs or usable_cores()

    def line(run: BookRun) -> str:
        s = run.summary or {}
        if run.code in (EXIT_OK, EXIT_CELL_ERRORS) and s:
            return (f"{s.get('output')}: {s.get('formula_cells')} formula cells recalculated, "
                    f"{s.get('error_count')} with errors, {run.seconds:.1f} s")
        own = f"xlbridge recalc: {_name(run.book)}: "
        if run.message.startswith(own):  # named by the path as given: two club.xlsx of two folders stay apart
            return f"xlbridge recalc: {run.book}: {run.message[len(own):]}"
        return run.message or f"xlbridge recalc: {run.book}: stopped with exit code {run.code}"

    def done(run: BookRun) -> None:
        if not args.json and not args.no_progress and sys.stderr.isatty():
            print(_printable(line(run)), file=sys.stderr)

    previous = _install_signal_handlers()
    try:
        runs = run_many(books, outputs, options, jobs=jobs, on_done=done)
    except _Interrupted as exc:
        name = signal.Signals(exc.signum).name
        print(f"xlbridge recalc: interrupted by {name}; the running books were stopped", file=sys.stderr)
        return 128 + exc.signum
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    worst = max(run.code for run in runs)
    counts = [sum(run.code == c for run in runs) for c in (EXIT_OK, EXIT_CELL_ERRORS, EXIT_REFUSED, EXIT_WRITE)]
    seconds = time.perf_counter() - start
    if args.json:
        print(json.dumps({
            "ok": worst == EXIT_OK, "exit": worst, "books": [
                {"source": run.book, "exit": run.code, **({"summary": run.summary} if run.summary else {}),
                 **({} if run.code in (EXIT_OK, EXIT_CELL_ERRORS) else {"refused": run.message})}
                for run in runs],
            "recalculated": counts[0], "with_cell_errors": counts[1], "refused": counts[2],
            "not_written": counts[3], "jobs": jobs, "seconds": round(seconds, 3)}, indent=2))
    else:
        for run in runs:
            for err in (run.summary or {}).get("errors", []) if run.code == EXIT_CELL_ERRORS else []:
                print(_printable(f"{_name(run.book)}: {err.get('sheet')}!{err.get('cell')}: {err.get('code')} "
                                 f"{err.get('message', '')}".rstrip()))
            print(_printable(line(run)), file=sys.stderr if run.code > EXIT_CELL_ERRORS else sys.stdout)
        print(f"{len(runs)} books: {counts[0]} recalculated, {counts[1]} with cell errors, {counts[2]} refused, "
              f"{counts[3]} not written, {len(runs) - sum(counts)} interrupted; exit code {worst}; "
              f"{seconds:.1f} s with {jobs} jobs")
    return worst


def _printable(line: str) -> str:
    """A line for the terminal or a log: control characters (from a file name, say) escaped, never
    a second line or a terminal escape sequence.

    >>> _printable("ev\\nil\\x1b[31m.xlsx: 3 formula cells")
    'ev\\\\nil\\\\x1b[31m.xlsx: 3 formula cells'
    """
    from .core.errors import CONTROL_CHARACTERS  # (printed escaped, never raw and never an encoding error)

    return CONTROL_CHARACTERS.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), line)


def _name(book: object) -> str:
    import os

    return os.path.basename(str(book))


def _cache_values(path: "str | os.PathLike[str]") -> None:
    """Recalculate a freshly built template in place (no backup): it ships with its cached values and
    calculation properties saying they are current, so every program shows them (issue 15)."""
    import os

    from .batch.recalc import recalc_workbook

    from .core.errors import XlbridgeError

    tmp = f"{path}.values.tmp.xlsx"
    try:
        report = recalc_workbook(path, tmp)
        if report.errors:
            raise XlbridgeError(f"{os.path.basename(path)}: {report.errors[0]}")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _templates(args: argparse.Namespace) -> int:
    from .core.errors import XlbridgeError

    try:
        from . import templates
    except ImportError as exc:
        print(f"xlbridge templates: not available ({exc})", file=sys.stderr)
        return EXIT_REFUSED
    try:
        names = args.names or None
        if args.check:
            result = templates.check_all(args.out, names)
            problems = [str(p) for p in result] if isinstance(result, (list, tuple)) else (
                [] if result in (None, True) else [str(result)])
            for prob in problems:
                print(prob)
            return EXIT_CELL_ERRORS if problems else EXIT_OK
        written = templates.build_all(args.out, names)
        for path in written or ():
            _cache_values(path)
            print(path)
        return EXIT_OK
    except XlbridgeError as exc:
        print(f"xlbridge templates: {exc}", file=sys.stderr)
        return EXIT_REFUSED


def _same_file(a: str, b: str) -> bool:
    import os

    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _read_event(path: str, prog: str, books: bool = False) -> Any:
    """The event of a workbook (.xlsx/.xlsm: checked like an upload first) or a PBN/USEBIO file; ``books``: a
    Lehman ratings or handicap league workbook is read too (:func:`xlbridge.formats.seasonbooks.read_season_book`,
    through the same guard), for publish."""
    import os
    from pathlib import Path

    from . import formats
    from .core.files import open_regular
    from .formats.errors import FormatError, check_regular_file
    from .formats.workbook import read_workbook

    name = os.path.basename(path) or path
    st = check_regular_file(Path(path))  # a FIFO, device or folder named for what it is, never read
    try:  # (opened without waiting: a FIFO swapped in since the check is refused, not waited on)
        fd = open_regular(path, st)
    except OSError:
        raise FormatError("cannot read the file", file=name) from None
    if fd is None:
        raise FormatError("the file changed while it was being opened", file=name)
    with os.fdopen(fd, "rb") as fh:
        head = fh.read(8)
    from .batch.guard.files import CFB_SIGNATURE

    # a pairs or a teams workbook (or a .xls, refused saying how to save it as .xlsx): checked and read from a
    # private copy, as recalc does
    if head[:4] == b"PK\x03\x04" or head == CFB_SIGNATURE:
        from .batch.guard.gate import check_upload
        from .batch.guard.safety import private_tempdir

        try:
            with private_tempdir() as tmp:
                copy = os.path.join(tmp, name)  # (the same name: what the reader's messages say)
                check_upload(path, copy, name=name)  # (the gate, as recalc's: scanned whole before any reading)
                if books:
                    from .formats.seasonbooks import read_season_book

                    book = read_season_book(copy)
                    if book is not None:
                        return book
                return read_workbook(copy)
        except OSError as exc:  # (the temporary folder: not the output's fault, which _files would say)
            raise FormatError(f"cannot read the file through a private copy ({exc.strerror or type(exc).__name__})",
                              file=name) from None
    return formats.read_event(Path(path))  # (a Path: a name holding a line break is still a file's name)


def _write_output(dest: str, data: bytes) -> None:
    from .batch.guard.safety import write_atomic

    write_atomic(dest, lambda fh: fh.write(data))


def _files(args: argparse.Namespace) -> int:
    """``xlbridge import``, ``export`` and ``publish`` under the guard of every upload (recalc's limits:
    ``--max-memory``, ``--timeout``; SIGTERM, SIGHUP and Ctrl-C end the command with one line and
    128 + N; no temporary file is left): one line on stderr and exit 2 on bad input or a limit, exit 3
    when the output cannot be written; nothing is written on failure (a signal or a limit arriving after the
    output was put in place says so instead: :func:`_written`)."""
    import dataclasses

    from .batch.guard.uploads import DEFAULT_LIMITS, TimeLimitReached, refusal_line, upload_limits

    prog = f"xlbridge {args.command}"
    source = args.book if args.command == "export" else args.source[0] if args.command == "publish" else args.source
    shown = _printable(_name(source))
    limits = DEFAULT_LIMITS
    if args.timeout is not None:
        limits = dataclasses.replace(limits, max_seconds=args.timeout)
    if args.max_memory is not None:
        limits = dataclasses.replace(limits, max_memory=args.max_memory << 20)
    previous = _install_signal_handlers()
    try:
        try:
            try:
                with upload_limits(limits, shown, prog):
                    return _noting_removed(prog, source, lambda: _files_guarded(args, prog, source))
            except _Interrupted as exc:
                name = signal.Signals(exc.signum).name
                print(f"{prog}: {shown}: interrupted by {name}; {_written(exc)}", file=sys.stderr)
                return 128 + exc.signum
            except (TimeLimitReached, MemoryError) as exc:
                after = f" ({_written(exc)})" if _written(exc) != _NOTHING_WRITTEN else ""
                print(f"{prog}: {shown}: {refusal_line(exc, limits)}{after}", file=sys.stderr)
                return EXIT_REFUSED
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    except _Interrupted as exc:  # a second signal while the command was saying how it ended: no traceback
        return 128 + exc.signum


def _noting_removed(prog: str, source: str, run: Callable[[], int]) -> int:
    """``run()``, and when it succeeds one warning line if the input's text held control, bidi or zero-width
    characters, which every reader removes (:mod:`xlbridge.core.text`), naming the file and the first place."""
    from .core.text import noting_removed

    with noting_removed() as removed:
        code = run()
    said = removed.warning()
    if code == EXIT_OK and said is not None:  # (the file of the first removal: one of a season's several)
        _say(prog, f"{removed.file or _name(source)}: warning: {said}")
    return code


def _say(prog: str, message: str) -> None:
    """One line on stderr: control characters escaped (a file's name), clipped."""
    from .batch.guard.safety import one_line

    print(f"{prog}: {one_line(_printable(message), 600)}", file=sys.stderr)


def _files_guarded(args: argparse.Namespace, prog: str, source: str) -> int:
    import io
    import os
    from pathlib import Path

    from .batch.guard.safety import remove_stale_leftovers
    from .core.errors import XlbridgeError

    out_name = _name(args.output)
    remove_stale_leftovers([])  # private folders of killed runs (a workbook's snapshot), as recalc does
    try:
        if os.path.exists(args.output) and _same_file(source, args.output):
            raise XlbridgeError("the output would overwrite the input; give another -o")
        if args.command == "import":
            from . import formats, templates
            from .formats.workbook import fill_pairs_workbook, fill_teams_workbook

            # a FIFO, device or folder is refused, named for what it is (not a regular file), before a read;
            # a Path: a str holding a line break would be read as PBN text
            event = formats.read_event(Path(source))
            if event.kind == formats.TEAMS:  # a teams event: the teams workbook
                wb = templates.build_workbook("teams.xlsx")
                fill_teams_workbook(wb, event, name=os.path.basename(source))
            else:
                wb = templates.build_workbook("pairs.xlsx")
                fill_pairs_workbook(wb, event, name=os.path.basename(source))
            buf = io.BytesIO()
            wb.save(buf)
            data = buf.getvalue()
        else:
            from . import formats
            from .formats.outcomes import weighted_warning

            # the site shows a workbook's matchpoints on its own scale (its Scale parameter); PBN and USEBIO
            # carry them on the 2/1 (EBU, WBF) scale, whatever the source
            first = _read_event(source, prog, books=args.command == "publish")
            if args.command == "publish" and (len(args.source) > 1 or not isinstance(first, formats.Event)):
                return _publish_season(args, prog, first)  # (a season, or a ratings or league book alone)
            event = formats.score_event(first, scale=None if args.command == "publish" else "EBU")
            for note in event.notes:  # (a value typed over a result cell, not used: one line each)
                _say(prog, f"{_name(source)}: warning: {note}")
            if args.command == "publish":
                from .formats.site import publish_site

                site = publish_site(event, args.output, dds=bool(args.dds), source=source,
                                    input_bytes=os.stat(source).st_size, scored=True)
                print(_printable(f"{args.output}: {site.files} files (open index.html)"))
                return EXIT_OK
            if args.format == "pbn":  # a refusal names the input, as reading it does
                data = formats.write_pbn(event, name=os.path.basename(source))
            else:
                data = formats.write_usebio(event, name=os.path.basename(source), style=args.federation)
            weighted = weighted_warning(event, "PBN" if args.format == "pbn" else "USEBIO")
            if weighted is not None:  # (one line: the file carries them in xlbridge's own field)
                _say(prog, f"{_name(source)}: warning: {weighted}")
    except XlbridgeError as exc:
        text = str(exc)
        if exc.where is None and not text.startswith((_name(source), "the output")):  # every refusal names the file
            text = f"{_name(source)}: {text}"
        _say(prog, text)
        return EXIT_REFUSED
    except MemoryError:
        raise  # the guard's refusal: the memory limit
    except OSError as exc:
        _say(prog, f"cannot write {out_name}: {exc.strerror or 'error'}")
        return EXIT_WRITE
    except Exception as exc:  # never a traceback: one line, exit 2
        _say(prog, f"{_name(source)}: cannot be read ({type(exc).__name__})")
        return EXIT_REFUSED
    try:
        remove_stale_leftovers([os.path.dirname(os.path.abspath(args.output))])
        _write_output(args.output, data)
    except OSError as exc:
        _say(prog, f"cannot write {out_name}: {exc.strerror or 'error'}")
        return EXIT_WRITE
    print(_printable(args.output))
    return EXIT_OK


def _publish_season(args: argparse.Namespace, prog: str, first: Any = None) -> int:
    """``xlbridge publish A B C -o DIR``: every source read and scored (a refusal names its file), then one
    site for them all (:func:`xlbridge.formats.site.publish_season_site`), a Lehman ratings or handicap league
    workbook a page of its own; ``first``: the first source, read already."""
    import os

    from . import formats
    from .core.errors import XlbridgeError
    from .formats.site import publish_season_site

    events, names, books = [], [], []
    for k, source in enumerate(args.source):
        if os.path.exists(args.output) and _same_file(source, args.output):  # (named: not always the first)
            _say(prog, f"{_name(source)}: the output would overwrite the input; give another -o")
            return EXIT_REFUSED
        try:
            read = first if k == 0 and first is not None else _read_event(source, prog, books=True)
            if isinstance(read, formats.Event):
                events.append(formats.score_event(read, scale=None))
            else:
                books.append(read)
        except XlbridgeError as exc:  # (named here: the caller names the first source)
            text = str(exc)
            _say(prog, text if exc.where is not None or text.startswith(_name(source)) else f"{_name(source)}: {text}")
            return EXIT_REFUSED
        if isinstance(read, formats.Event):
            names.append(_name(source))
    site = publish_season_site(events, args.output, dds=bool(args.dds), books=books,
                               sources=args.source, input_bytes=sum(os.stat(s).st_size for s in args.source),
                               names=names, scored=True)
    pages = f", {len(books)} ratings or league page{'s' if len(books) != 1 else ''}" if books else ""
    print(_printable(f"{args.output}: {len(events)} events{pages}, {site.files} files (open index.html)"))
    return EXIT_OK


@with_room
def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``xlbridge`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    args = build_parser().parse_args(argv)
    if args.command in ("import", "export", "publish"):
        return _files(args)
    if args.command == "recalc":
        import os

        if len(args.books) == 1 and not os.path.isdir(args.books[0]):
            args.book = args.books[0]
            return _recalc(args)
        return _recalc_many(args)
    if args.command == "serve":
        from .serve.command import run as serve

        return serve(args)
    return _templates(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
