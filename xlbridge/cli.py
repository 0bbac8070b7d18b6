"""The ``xlbridge`` command: ``xlbridge recalc BOOK`` and ``xlbridge templates``.

Exit codes of ``xlbridge recalc``:

- 0: recalculated, no cell evaluated to an error;
- 1: recalculated and written, but some cells evaluated to Excel errors (listed on stdout);
- 2: the file was refused (not a workbook, damaged, password-protected, hostile, over a size, memory
  or time limit), the command line is wrong, or the [batch] extra is not installed; the one-line
  reason is printed on stderr (and, with ``--json``, a summary with ``"ok": false`` on stdout);
- 3: the output could not be written (permissions, disk full).

``xlbridge templates [--out DIR] [--check]`` builds the bundled template workbooks (or, with
``--check``, checks that the files in DIR are what the code builds); exit 0 when fine, 1 when
``--check`` finds differences, 2 on refused input.

>>> main(["recalc", "no-such-file.xlsx", "--no-progress"])
2
"""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["main", "build_parser"]

EXIT_OK, EXIT_CELL_ERRORS, EXIT_REFUSED, EXIT_WRITE = 0, 1, 2, 3


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``xlbridge`` command."""
    p = argparse.ArgumentParser(prog="xlbridge", description="Exact contract-bridge scoring for Excel.")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("recalc", help="recalculate every formula of a workbook headlessly",
                       description="Recalculate every formula (standard Excel and xlbridge functions) and "
                                   "write the results as cached values into a copy of BOOK.")
    r.add_argument("book", metavar="BOOK", help="the .xlsx/.xlsm workbook")
    r.add_argument("-o", "--output", metavar="OUT",
                   help="output file (default: BOOK with -recalculated before the suffix)")
    r.add_argument("--in-place", action="store_true",
                   help="replace BOOK atomically, keeping the previous file as BOOK.bak")
    r.add_argument("--json", action="store_true", help="print a machine-readable summary on stdout")
    r.add_argument("--no-progress", action="store_true", help="no progress output on stderr")
    r.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="wall-clock limit of the file checks and, separately, of the formula engine (default 600)")
    r.add_argument("--max-memory", type=int, metavar="MIB",
                   help="address-space limit of the formula engine in MiB (default 4096)")
    t = sub.add_parser("templates", help="build (or check) the bundled template workbooks")
    t.add_argument("--out", metavar="DIR", default="workbooks", help="folder (default: workbooks)")
    t.add_argument("--check", action="store_true", help="check the files in DIR instead of writing them")
    return p


def _recalc(args) -> int:
    import dataclasses

    from .errors import WorkbookError
    from .recalc import recalc_workbook
    from .safety import DEFAULT_LIMITS

    limits = DEFAULT_LIMITS
    if args.timeout is not None:
        limits = dataclasses.replace(limits, max_seconds=args.timeout)
    if args.max_memory is not None:
        limits = dataclasses.replace(limits, max_memory=args.max_memory << 20)
    progress = not args.no_progress and sys.stderr.isatty()
    try:
        report = recalc_workbook(args.book, args.output, in_place=args.in_place, progress=progress,
                                 limits=limits)
    except WorkbookError as exc:
        if args.json:
            print(json.dumps({"source": args.book, "ok": False, "refused": str(exc)}))
        print(f"xlbridge recalc: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    except OSError as exc:
        if args.json:
            print(json.dumps({"source": args.book, "ok": False, "write_error": str(exc)}))
        print(f"xlbridge recalc: cannot write the output: {exc}", file=sys.stderr)
        return EXIT_WRITE
    except ImportError as exc:  # the [batch] extra is missing: say so in one line, not a traceback
        msg = (f"the headless batch layer is not installed ({exc}); "
               f"install it with: python -m pip install \"xlbridge[batch]\"")
        if args.json:
            print(json.dumps({"source": args.book, "ok": False, "refused": msg}))
        print(f"xlbridge recalc: {msg}", file=sys.stderr)
        return EXIT_REFUSED
    except MemoryError:
        msg = f"{args.book}: refused: out of memory"
        if args.json:
            print(json.dumps({"source": args.book, "ok": False, "refused": msg}))
        print(f"xlbridge recalc: {msg}", file=sys.stderr)
        return EXIT_REFUSED
    if args.json:
        print(report.to_json())
    else:
        for err in report.errors:
            print(err)
        extra = f" (backup: {report.backup})" if report.backup else ""
        print(f"{report.output}: {report.formula_cells} formula cells in {report.sheets} sheets recalculated, "
              f"{len(report.errors)} with errors, {report.seconds:.1f} s{extra}", file=sys.stderr)
    return EXIT_OK if report.ok else EXIT_CELL_ERRORS


def _templates(args) -> int:
    from .errors import XlbridgeError

    try:
        from . import templates
    except ImportError as exc:
        print(f"xlbridge templates: not available ({exc})", file=sys.stderr)
        return EXIT_REFUSED
    try:
        if args.check:
            result = templates.check_all(args.out)
            problems = [str(p) for p in result] if isinstance(result, (list, tuple)) else (
                [] if result in (None, True) else [str(result)])
            for prob in problems:
                print(prob)
            return EXIT_CELL_ERRORS if problems else EXIT_OK
        written = templates.build_all(args.out)
        for path in written or ():
            print(path)
        return EXIT_OK
    except XlbridgeError as exc:
        print(f"xlbridge templates: {exc}", file=sys.stderr)
        return EXIT_REFUSED


def main(argv=None) -> int:
    """Run the ``xlbridge`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    args = build_parser().parse_args(argv)
    if args.command == "recalc":
        return _recalc(args)
    return _templates(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
