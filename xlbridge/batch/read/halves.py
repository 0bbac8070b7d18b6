"""A large worksheet part read in two halves at once: this process reads the rows before a split, a
forked process the rows after it.

:func:`read_sheet_halves` gives what :func:`~xlbridge.batch.read.sheetxml.read_sheet` gives (the same
layout, values, formulas, notes, in the same order), in about half the time on two cores: a season
of 10,000 traveller rows is a 9 MB worksheet part whose streamed reading, a Python call for every
element, was a third of a recalculation.

How the halves stay one reading:

- The split is a byte offset where a ``<row`` tag of the sheet data's name starts, found by a plain
  search from a fraction of the part on (:data:`SPLIT_AT`; :data:`SPLIT_AT_LATER` for the first large
  part of an engine's process whose head imports the engine first: ``start_tail(busy=True)``). Only expat
  decides what it is: the head reading (this process, which read everything before it with its handlers)
  must see its first element there, a row, at the depth of rows, in the sheet data; otherwise the head
  simply reads on to the end, and the tail's work is thrown away. A split inside a comment, a CDATA
  section, an attribute value or a cell's text is never taken.
- The tail reading (the forked process) feeds expat the same bytes before the split with no handler
  (expat checks them and keeps its own state), then reads from the split with the state of a reading
  at a row of the sheet data. Its events are therefore those of a whole reading.
- What rows carry across the split is merged here, or the part is read whole again: a shared formula
  whose group starts before the split is translated from the head's first cell (exactly as the
  whole reading does); a group number met with its text on both sides, an array range of the head
  reaching past the split, rows out of order across it, a row without its number after it, a second
  ``<sheetData>`` after it, or any failure of the tail (a damaged part: the whole reading then gives
  its own message) make the whole reading run instead.

:func:`start_tail` and :func:`finish_halves` are the two steps of :func:`read_sheet_halves`: the
engine's process starts the first large part's tail before it has read the shared-string table
(``later=True``: the tail keeps each shared-string cell's index, looked up in the merge; an index
past the table's end makes the whole reading run) and imports the engine meanwhile.

:func:`start_aside` and :func:`finish_aside` read one middle-sized part (:data:`ASIDE_ABOVE` to
:data:`SPLIT_ABOVE` bytes) whole in a forked process while the engine's process reads the others: the same
reading, sent the same way; a failure makes the engine's process read the part itself.

The tail process is a fork of the engine's process (its file guard included, and an address-space
limit of the same size: the two together may hold up to twice the limit while the halves are read)
and is killed when this reading ends, whatever happens; a part below :data:`SPLIT_ABOVE` bytes, a
reading with ``full=True`` or without ``values``, and a system without ``fork`` are read whole.
"""

from __future__ import annotations

import functools
import gc
import marshal
import os
import pickle
import threading
from typing import Any

from .sheetxml import SHARED_LATER, WHOLE, Half, SheetRead, prepare_reading, read_sheet, read_sheet_half
from .spans import CellSpans
from ..cells import SheetLayout, cell_ref
from ..process import ForkedHalf, set_parent_death_signal

__all__ = ["ASIDE_ABOVE", "SPLIT_ABOVE", "SPLIT_AT", "SPLIT_AT_LATER", "Tail", "finish_aside", "finish_halves", "fork_half",
           "forking",
           "read_sheet_halves", "sheet_start", "split_point", "start_aside", "start_tail"]

#: a worksheet part of at least this many bytes is read in two halves (below it the fork and the
#: hand-over cost more than they save; a 1,000-row season is about 0.9 MB)
SPLIT_ABOVE = 2 << 20
#: where the split is sought, as a fraction of the part: past the middle, because the tail process also
#: feeds expat the head's bytes (without handlers) and sends its reading (10,000 rows: 0.04 + 0.03 s)
SPLIT_AT = 0.55
#: the same for the first large part of a process (``start_tail(busy=True)``) whose head imports the engine
#: before it reads (the engine's process imports it while the read stage runs, unless it was started late):
#: the head's readings and the tail's end together there (10,000 rows, 2026-11-27: the tail ended 0.33 s before the head at 0.55, 0.1 s before at 0.45, 0.04 s after at
#: 0.40: medians of six runs each)
SPLIT_AT_LATER = 0.42


class _Found(Exception):
    pass


_forking: list = []  # the thread forking the tail process, while it does (the engine's file guard lets it)


def forking() -> bool:
    """Whether this thread is forking a tail reading now (read by the engine process's audit hook,
    :func:`xlbridge.batch.evaluate.child._install_file_guard`, which refuses every other fork)."""
    return bool(_forking) and _forking[-1] == threading.get_ident()


def split_point(data: bytes, at: float = 0.5) -> tuple | None:
    """(split, root declarations, sheetData's name) for a tail reading, or None (no candidate).

    The root's namespace declarations and the sheet data's element name come from expat reading the
    part's start up to the first element inside ``<sheetData>`` (:func:`sheet_start`); the split is the
    first ``<row`` (with the sheet data's prefix) from ``at`` of the part on. Only a candidate: the
    head reading confirms it (see the module docstring).

    >>> xml = (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
    ...        b'<row r="1"><c r="A1"><v>1</v></c></row><row r="2"><c r="A2"><v>2</v></c></row>'
    ...        b'</sheetData></worksheet>')
    >>> split, declarations, name = split_point(xml)
    >>> xml[split:split + 10], declarations, name
    (b'<row r="2"', [('xmlns', 'http://schemas.openxmlformats.org/spreadsheetml/2006/main')], 'sheetData')
    """
    middle = int(len(data) * at)
    start = sheet_start(data, len(data))  # (it stops at the first row)
    if start is None:
        return None
    declarations, name = start
    tag = b"<" + name[: -len("sheetData")].encode("utf-8") + b"row"
    at_byte = middle
    while True:
        i = data.find(tag, at_byte)
        if i < 0:
            return None
        if data[i + len(tag): i + len(tag) + 1] in (b" ", b"\t", b"\r", b"\n", b">", b"/"):
            return i, declarations, name
        at_byte = i + 1


def sheet_start(data: bytes, limit: int) -> tuple | None:
    """(root declarations, sheetData's name) of a worksheet part whose sheet data's first element
    starts before byte ``limit``, as expat reads them; None for anything else (a DTD included).

    >>> sheet_start(b'<x:worksheet xmlns:x="urn:s"><x:sheetData><x:row r="1"/></x:sheetData></x:worksheet>', 99)
    ([('xmlns:x', 'urn:s')], 'x:sheetData')
    """
    import xml.parsers.expat as expat

    from ..guard.xmlscan import defuse

    parser = expat.ParserCreate()
    found: dict = {}
    depth = [0]

    def refuse(_what: str) -> Any:
        raise _Found  # (a DTD: no split; the whole reading refuses it)

    def start(name: str, attrs: dict) -> None:
        d = depth[0]
        depth[0] = d + 1
        if d == 0:
            found["declarations"] = [(k, v) for k, v in attrs.items() if k.startswith("xmlns")]
            found["root"] = name.rsplit(":", 1)[-1]
        elif d == 1 and name.rsplit(":", 1)[-1] == "sheetData" and "sheetData" not in found:
            found["sheetData"] = name
        elif d == 2 and "sheetData" in found:
            found["row"] = True
            raise _Found

    def end(name: str) -> None:
        depth[0] -= 1

    defuse(parser, refuse)
    parser.StartElementHandler, parser.EndElementHandler = start, end
    try:
        for i in range(0, limit, 1 << 16):
            parser.Parse(data[i:min(i + (1 << 16), limit)], False)
        return None  # no row before the limit
    except _Found:
        pass
    except Exception:
        return None
    finally:
        parser.StartElementHandler = parser.EndElementHandler = None
    if found.get("root") != "worksheet" or not found.get("row"):
        return None
    return found["declarations"], found["sheetData"]


def _merge(head: SheetRead, hx: dict, tail: SheetRead, tx: dict, data: bytes, split: int,
           values: bool) -> SheetRead | None:
    """The whole reading from its two halves, or None when the whole reading must run instead."""
    hl, tl = head.layout, tail.layout
    if not tl.rows or tl.sheetdata[1] != -1:
        return None  # (no row; or a second sheetData after the split, whose layout the whole reading takes)
    first = next(iter(tl.rows))
    if tl.rows[first][1] != split or first <= hx["last_row"]:
        return None  # (a row out of order across the split: the whole reading names it)
    if any(r2 >= first for _r1, _c1, r2, _c2 in hl.array_ranges):
        return None  # an array range of the head covers rows of the tail
    masters = hx["masters"]
    if set(tx["masters"]) & set(masters):
        return None
    formulas = head.formulas  # (the head's reading is this process's own: merged into in place)
    formulas.update(tail.formulas)
    pending_note = None
    for pos, si, coordinate, at in tx["pending"]:
        if si not in masters:
            return None  # a shared formula without its group's first cell: the whole reading refuses it
        try:
            formulas[pos] = str(masters[si].translate_formula(coordinate))
        except Exception:
            if pending_note is None:
                pending_note = (at, f"cell {cell_ref(*pos)}: a shared formula openpyxl cannot read")
    unusual = head.unusual
    if unusual is None:
        notes = [n for n in (pending_note, (tx["note_at"], tail.unusual) if tail.unusual else None) if n]
        if notes:
            unusual = min(notes, key=lambda n: n[0])[1]
    columns = head.columns
    for col, (rows, vals) in tail.columns.items():
        got = columns.get(col)
        if got is None:
            columns[col] = (rows, vals)
        else:
            got[0].extend(rows)
            got[1].extend(vals)
    first_child = split if hl.sheetdata[2] is None else hl.sheetdata[2]  # (the split's row, when the head has none)
    sd = (hl.sheetdata[0], hl.sheetdata[1], first_child, tl.sheetdata[3], tl.sheetdata[4])
    if values and unusual is None and sd[3] is not None and data.find(b"xmlns", sd[1], sd[3]) >= 0:
        unusual = "a namespace declared (or the word xmlns written) inside the sheet data"
    pairs: list[tuple[Any, Any]] = [(hl.cells, tl.cells), (hl.rows, tl.rows), (hl.formula_cells, tl.formula_cells),
                                       (hl.row_cells, tl.row_cells), (head.array_refs, tail.array_refs),
                                       (head.special, tail.special)]
    for mine, theirs in pairs:
        mine.update(theirs)
    layout = SheetLayout(hl.cells, hl.rows, sd, hl.formula_cells, hl.array_ranges + tl.array_ranges, hl.prefix,
                         hl.complete, hl.row_cells)
    return SheetRead(layout, columns, formulas, head.array_refs, head.special, unusual, head.cells + tail.cells)


def _pack(got: SheetRead) -> tuple:
    """A tail reading as built-in values only (for :mod:`marshal`: a third of pickle's time here)."""
    lay = got.layout
    return (CellSpans.packed(lay.cells), lay.rows, lay.sheetdata, lay.formula_cells,
            lay.array_ranges, lay.prefix, lay.complete, lay.row_cells, got.columns, got.formulas, got.array_refs,
            got.special, got.unusual, got.cells)


def _unpack(packed: tuple) -> SheetRead:
    spans, rows, sd, formula_cells, arrays, prefix, complete, row_cells = packed[:8]
    cells: Any = CellSpans.unpacked(spans)  # (a SheetLayout's cells, {(row, col): CellSpan}, kept compactly)
    layout = SheetLayout(cells, rows, sd, formula_cells, arrays, prefix, complete, row_cells)
    return SheetRead(layout, *packed[8:])


def _tail_process(w: int, head_pid: int, *, data: bytes, half: Half, kwargs: dict) -> None:
    """The forked reading (a tail, or a whole part read aside): send its result (or that it failed) and leave
    at once."""
    try:
        gc.disable()  # (a short life: what it allocates goes with it)

        set_parent_death_signal(head_pid)  # die with the head (as the engine's process dies with its parent)
        try:
            got, extras = read_sheet_half(data, half, **kwargs)
            out: tuple = ("ok", _pack(got), extras)
            try:
                payload = b"M" + marshal.dumps(out)
            except ValueError:  # (a value marshal does not take: a date cell's datetime)
                payload = b"P" + pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException:  # (a damaged part, memory: the head reads the whole part and says what)
            payload = b"M" + marshal.dumps(("failed", None, None))
        with os.fdopen(w, "wb") as fh:
            fh.write(payload)
    finally:
        os._exit(0)


def _receive(payload: bytes) -> tuple | None:
    """(the tail's reading, its extras) from what it sent on the pipe, or None: it failed, or died before it
    sent all."""
    was = gc.isenabled()
    gc.disable()  # (half a sheet's objects, none in a cycle: the collector's passes over them doubled the load)
    try:
        status, packed, extras = (marshal.loads if payload[:1] == b"M" else pickle.loads)(payload[1:])
        return (_unpack(packed), extras) if status == "ok" else None
    except (EOFError, ValueError, TypeError, pickle.UnpicklingError):
        return None
    finally:
        if was:
            gc.enable()


class Tail(ForkedHalf):
    """The second half of a part being read by a forked process (:func:`start_tail`); :meth:`close`
    (also on leaving a ``with`` block) kills and reaps it, whatever happened."""

    def __init__(self, pid: int = 0, fd: int = -1, split: Any = None, later: bool = False) -> None:
        super().__init__(pid, fd)
        self.split, self.later = split, later

    def receive(self) -> tuple | None:
        """The tail's reading and extras (see :func:`_receive`); the pipe is read once."""
        payload = self.read_answer()
        return None if payload is None else _receive(payload)


def start_tail(data: bytes, *, later: bool = False, busy: bool = False, **kwargs: Any) -> Tail | None:
    """Fork the process reading the rows after the split of ``data`` (:func:`read_sheet`'s keywords);
    None when the part is read whole (see :func:`read_sheet_halves`). ``later``: the shared-string table
    is not read yet (its strings are looked up in :func:`finish_halves`, which then must be given it);
    ``busy``: this process imports the engine before it reads its half (the split at :data:`SPLIT_AT_LATER`)."""
    if len(data) < SPLIT_ABOVE or kwargs.get("full") or not kwargs.get("values") or not hasattr(os, "fork"):
        return None
    split = split_point(data, SPLIT_AT_LATER if busy else SPLIT_AT)
    if split is None:
        return None
    if later:
        kwargs = {**kwargs, "shared_strings": SHARED_LATER}
    prepare_reading(data)  # (imported once, before the fork: not by the tail on its critical path)
    return _fork_reading(data, Half(tail=split), kwargs, split, later)


def _fork_reading(data: bytes, half: Half, kwargs: dict, split: tuple | None, later: bool) -> Tail | None:
    """Fork the process making the reading ``half`` of ``data`` (:func:`_tail_process`); None if it cannot.
    The signals are held until the caller's ``with`` block lets them through (:meth:`Tail.release`)."""

    return Tail.start(functools.partial(_tail_process, data=data, half=half, kwargs=kwargs), fork=fork_half,
                      split=split, later=later)


def fork_half() -> int:
    """``os.fork()`` of a process working on half a part, which the engine's process's audit hook lets through
    (:func:`forking`; it refuses every other fork)."""
    _forking.append(threading.get_ident())
    try:
        return os.fork()
    finally:
        _forking.pop()


#: a worksheet part from this many bytes up to :data:`SPLIT_ABOVE` may be read whole by a forked process while
#: the engine's process reads the others (:func:`start_aside`): a recalculated pairs template's hidden
#: ``Travellers (calc)`` sheet, 1.2 MB of cached array cells, took 0.2 s alone after the Travellers sheet
ASIDE_ABOVE = 512 << 10


def start_aside(data: bytes, **kwargs: Any) -> Tail | None:
    """Fork a process reading the whole part ``data`` (:func:`read_sheet`'s keywords, the shared-string table
    included) while this one reads the other parts; None when it is read here (see :func:`finish_aside`)."""
    if not ASIDE_ABOVE <= len(data) < SPLIT_ABOVE or kwargs.get("full") or not kwargs.get("values") \
            or not hasattr(os, "fork"):
        return None
    prepare_reading(data)
    return _fork_reading(data, WHOLE, kwargs, None, False)


def finish_aside(aside: Tail | None, data: bytes, **kwargs: Any) -> SheetRead:
    """The reading of ``data`` made by the process :func:`start_aside` forked, or, when there is none or it
    failed (a damaged part: refused here in the whole reading's words), made here. Closes ``aside``."""
    if aside is None:
        return read_sheet(data, **kwargs)
    with aside:
        aside.release()
        got = aside.receive()
    return got[0] if got is not None else read_sheet(data, **kwargs)


def finish_halves(tail: Tail | None, data: bytes, **kwargs: Any) -> SheetRead:
    """Read the head of ``data`` in this process and merge the tail's reading: :func:`read_sheet`'s
    result (the whole reading when ``tail`` is None, or when the halves cannot be merged). Closes ``tail``."""
    if tail is None:
        return read_sheet(data, **kwargs)
    with tail:
        tail.release()  # (the signals held since the fork: a handler raising here still has the tail reaped)
        # (a refusal here is the whole reading's own; reading on past the split, the tail is stopped at once)
        head, hx = read_sheet_half(data, Half(head=tail.split[0], reading_on=tail.close), **kwargs)
        if not hx["confirmed"]:
            return head  # (read whole: no row starts at the split)
        got = tail.receive()
        merged = None
        if got is not None and (not tail.later or _look_up(got, kwargs.get("shared_strings"))):
            merged = _merge(head, hx, got[0], got[1], data, tail.split[0], bool(kwargs.get("values")))
        return merged if merged is not None else read_sheet(data, **kwargs)


def _look_up(got: tuple, shared: list[str] | None) -> bool:
    """Put the shared strings in a tail reading made without the table; False: the whole reading must
    run (no table, or an index past its end: that reading says so in its own words)."""
    later, unseen = got[1].get("later", ()), got[1].get("later_unseen", ())
    if not later and not unseen:
        return True
    if shared is None:
        return False  # (the whole reading notes the missing table at the first such cell)
    columns = got[0].columns
    try:
        for index in unseen:  # (inside array ranges: looked up by the whole reading, then skipped)
            shared[index]
        for col, i in later:
            values = columns[col][1]
            values[i] = shared[values[i]]  # (as the whole reading does: shared_strings[int(v)])
    except IndexError:
        return False
    return True


def read_sheet_halves(data: bytes, **kwargs: Any) -> SheetRead:
    """:func:`~xlbridge.batch.read.sheetxml.read_sheet` of ``data`` (same keywords, same result), its two
    halves read at once when the part is large (see the module docstring)."""
    return finish_halves(start_tail(data, **kwargs), data, **kwargs)
