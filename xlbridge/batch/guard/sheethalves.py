"""The gate's scan of a large worksheet part in two halves at once: this process scans the rows before a
split, a forked process the rows after it, with the same handlers (:func:`.xmlscan.counting_handler`).

The scan of a 10,000-row season's 13.8 MB Travellers part, one Python call per XML element, took a
third of a second on one core; in two halves it takes about 0.2 s.

How the halves stay one scan (the design of :mod:`xlbridge.batch.read.halves`, for the gate):

- The split is a byte offset where a ``<row`` tag starts, found by a plain search from
  :data:`SPLIT_AT` of the part on. Only expat decides what it is: this process scans everything before
  it with its handlers and must then see, as its next event, a row starting there, in a worksheet, with
  nothing open but the root and the sheet data (``at_boundary()``). Otherwise it scans on to the end
  itself and the other half's work is thrown away.
- The forked process feeds expat the bytes before the split with no handler (expat checks them and
  keeps its state: DTDs refused, tokens bounded), then scans from the split with handlers starting at
  a row (``counting_handler(..., at_row=True)``), to the end of the part (well-formedness checked).
  It counts from the totals before the part, so a half that alone passes a limit stops at once.
- What it sends back: its counts of cells and rows and its worksheet extent, or that it failed. The
  halves are merged only when the other half passed every check, its first row carries its number (a
  row without one follows the row before it, which only this half knows) and the summed counts are
  within the limits. Otherwise (a refusal, a damaged part, a limit reached by the sum, a timeout) this
  process scans the whole part again from the start, and refuses it in the words of a scan of the whole.
  A refusal within the first half is this process's own, at the same place as a whole scan's.
- The forked process dies with this one, stops at the check's deadline, and lives under the same
  address-space limit (inherited); it is killed and reaped when the scan ends, whatever happens. Only
  a process with one thread forks it, when the book may use two cores (:func:`xlbridge.batch.cores.book_cores`),
  for a part from :data:`SPLIT_ABOVE` to :data:`HALVES_MAX` bytes; anything else is streamed whole.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import marshal
import os
import re
import threading
from typing import Any

from ..cores import book_cores
from ..process import ForkedHalf, set_parent_death_signal
from .limits import SafetyLimits
from .xmlscan import Totals, check_deadline, counting_handler, feed, install, new_parser

__all__ = ["HALVES_MAX", "SPLIT_ABOVE", "SPLIT_AT", "halves_wanted", "scan_sheet_part"]

#: a worksheet part of at least this many bytes is scanned in two halves (below, the fork costs more than it saves)
SPLIT_ABOVE = 2 << 20
#: and at most this many: the part is held whole in memory to be scanned so (a larger one is streamed)
HALVES_MAX = 64 << 20
#: where the split is sought, as a fraction of the part: past the middle, because the other half also feeds
#: expat the bytes before the split (without handlers, about a tenth of the time with them)
SPLIT_AT = 0.55

_CHUNK = 1 << 16
#: a row's start tag, any prefix: a candidate only, expat decides (see the module docstring)
_ROW_TAG = re.compile(rb"<(?:[^\s/>!?<]*:)?row[\s/>]")


def halves_wanted(size: int) -> bool:
    """Whether a worksheet part of ``size`` bytes is scanned in two halves here and now.

    >>> halves_wanted(1000)
    False
    """
    return (SPLIT_ABOVE <= size <= HALVES_MAX and hasattr(os, "fork") and threading.active_count() == 1
            and book_cores() >= 2)


@dataclasses.dataclass(frozen=True)
class _Scan:
    """One part's scan: the part, how a member names it, the file's name, the limits, the check's deadline
    (``time.monotonic()``; None: none) and its length in seconds (for the message)."""

    data: Any  # (bytes, or a memory map of them)
    part: str
    where: str
    name: str | None
    limits: SafetyLimits
    deadline: float | None
    seconds: float

    def handler(self, totals: Totals, at_row: bool = False) -> Any:
        return counting_handler(self.part, self.where, totals, self.limits, self.name, at_row)

    def parser(self, handler: Any = None) -> Any:
        parser = new_parser(self.part, self.name)
        if handler is not None:
            install(parser, handler)
        return parser

    def feed(self, parser: Any, start: int, stop: int, final: bool = False) -> None:
        """Feed ``data[start:stop]`` to ``parser`` (which has parsed the bytes before ``start``) in the chunks a
        streamed scan reads (64 KiB from the part's start), the long-token check made where that scan makes it
        (after each whole chunk and at the part's end, never elsewhere: a check's verdict depends on where it
        is made) and the deadline looked at before each, in the streamed scan's words."""
        data, part, name, limits, deadline = self.data, self.part, self.name, self.limits, self.deadline
        cut = start
        while cut < stop:
            check_deadline(deadline, self.seconds, part, name)
            end = min((cut // _CHUNK + 1) * _CHUNK, stop)
            checked = end % _CHUNK == 0 or end == len(data)
            feed(parser, [data[cut:end]], part, name, limits.max_xml_token if checked else len(data) + 1,
                 self.where, cut, final=False)
            cut = end
        if final:
            feed(parser, [], part, name, limits.max_xml_token, self.where, stop)

    def whole(self, totals: Totals) -> None:
        """The whole part, here (:func:`.xmlscan.scan_xml`'s scan, in memory)."""
        handler = self.handler(totals)
        self.feed(self.parser(handler), 0, len(self.data), final=True)
        handler.finish()


def scan_sheet_part(data: Any, part: str, where: str, totals: Totals, limits: SafetyLimits, name: str | None,
                    deadline: float | None = None, seconds: float = 0.0) -> None:
    """Scan the worksheet part ``data`` (bytes, or a memory map of them) as :func:`.xmlscan.scan_xml` with a
    :func:`.xmlscan.counting_handler` and its ``finish()`` do (the same totals, extent and refusals), in two halves
    when they can be merged.

    >>> from xlbridge.batch.guard.limits import DEFAULT_LIMITS
    >>> rows = b"".join(b'<row r="%d"><c r="B%d"><v>1</v></c></row>' % (r, r) for r in range(1, 41))
    >>> totals = Totals()
    >>> scan_sheet_part(b"<worksheet><sheetData>" + rows + b"</sheetData></worksheet>", "xl/worksheets/sheet1.xml",
    ...                 "sheet S", totals, DEFAULT_LIMITS, "b.xlsx")
    >>> totals.cells, totals.rows, totals.extents
    (40, 40, {'xl/worksheets/sheet1.xml': (40, 2)})
    """
    scan = _Scan(data, part, where, name, limits, deadline, seconds)
    match = _ROW_TAG.search(data, int(len(data) * SPLIT_AT))
    if match is None:
        scan.whole(totals)
        return
    split = match.start()
    before = (totals.cells, totals.rows)
    other = _Other.start(functools.partial(_other_half, scan=scan, split=split, before=before))
    if other is None:  # (no fork: the whole part here)
        scan.whole(totals)
        return
    with other:
        other.release()  # (the signals held since the fork: a handler raising here still has it reaped)
        handler = scan.handler(totals)
        parser = scan.parser(handler)
        scan.feed(parser, 0, split)
        if not _confirmed(scan, parser, handler, split):
            other.close()  # (no row starts at the split: this scan went on to the end)
            handler.finish()
            return
        got = other.receive()
    if got is not None:
        cells, rows, extent = got
        if (extent[4] is not False and totals.cells + cells <= limits.max_cells
                and totals.rows + rows <= limits.max_rows):
            totals.cells += cells
            totals.rows += rows
            handler.absorb(extent)
            handler.finish()
            return
    totals.cells, totals.rows = before  # the whole part again, from the start: its refusal in its own words
    scan.whole(totals)


def _confirmed(scan: _Scan, parser: Any, handler: Any, split: int) -> bool:
    """Whether the next event of ``parser`` (which has read the part up to ``split``) is a row starting at the
    split, at a boundary of the handler's. When it is not, the handler has scanned the whole part (False)."""
    confirmed: list = []

    def first_start(tag: str, attrs: dict) -> None:
        if (parser.CurrentByteIndex == split and tag.rsplit(":", 1)[-1] == "row" and handler.at_boundary()):
            confirmed.append(True)
            parser.StartElementHandler = parser.EndElementHandler = parser.CharacterDataHandler = None
            return
        install(parser, handler)
        handler.start(tag, attrs)

    def first_end(tag: str) -> None:
        install(parser, handler)
        handler.end(tag)

    parser.StartElementHandler, parser.EndElementHandler = first_start, first_end
    tag_end = scan.data.find(b">", split) + 1 or len(scan.data)
    try:
        scan.feed(parser, split, tag_end)
        if confirmed:
            return True
        install(parser, handler)
        scan.feed(parser, tag_end, len(scan.data), final=True)
        return False
    finally:
        # (the handlers close over the parser: cut the cycle, the scan's objects go when dropped)
        parser.StartElementHandler = parser.EndElementHandler = parser.CharacterDataHandler = None


class _Other(ForkedHalf):
    """The other half, scanned by a forked process (:meth:`ForkedHalf.start`): :meth:`receive` its result."""

    def receive(self) -> tuple | None:
        """(cells, rows, extent) of the other half, or None: it failed, refused or was not started."""
        payload = self.read_answer()
        try:
            got = marshal.loads(payload) if payload is not None else None
        except (EOFError, ValueError, TypeError):
            return None
        return got if isinstance(got, tuple) and len(got) == 3 else None


def _other_half(w: int, parent: int, *, scan: _Scan, split: int, before: tuple) -> None:  # pragma: no cover  (forked)
    """The forked process: scan from the split, send (cells, rows, extent) or ``None``, and leave at once."""
    try:
        payload = marshal.dumps(None)
        try:
            gc.disable()  # (a short life: what it allocates goes with it)
            set_parent_death_signal(parent)
            totals = Totals()
            totals.cells, totals.rows = before
            parser = scan.parser()
            scan.feed(parser, 0, split)  # (no handler: expat checks the bytes before the split, keeps its state)
            handler = scan.handler(totals, at_row=True)
            install(parser, handler)
            scan.feed(parser, split, len(scan.data), final=True)
            payload = marshal.dumps((totals.cells - before[0], totals.rows - before[1], handler.extent()))
        except BaseException:  # (a refusal, a damaged part, memory: the whole scan says what, in its words)
            pass
        with os.fdopen(w, "wb") as fh:
            fh.write(payload)
    finally:
        os._exit(0)
