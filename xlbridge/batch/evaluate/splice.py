"""The engine's job: evaluate the workbook, then splice the results into its sheet parts, in one process.

:func:`evaluate_and_splice` is what :func:`xlbridge.batch.evaluate.child.run_engine` runs in the sandboxed child:
:func:`xlbridge.batch.evaluate.engine.evaluate_workbook`, then the values settled (:func:`settle_values`: a
result that is an error only because a linked workbook was not opened becomes ``#REF!``, as Excel
shows a link it cannot update; a text past Excel's 32,767 characters is clipped, with a warning),
then written into each sheet part as cached values (:func:`xlbridge.batch.write.xlsxpatch.patch_sheet`).
What goes back to the parent is the patched parts as bytes and the layouts *without* their cell
spans: at 10,000 traveller rows the spans are 60,000 small tuples, whose pickling and unpickling
across the process boundary took half a second, where bytes cross in milliseconds. In the child,
the values, messages and those light layouts are sent first (``early``), so that the parent reports
the errors from the values (:func:`reported_at` says where an error is reported, for both sides)
while the child patches the parts; the parent then writes the parts into the copy.

>>> anchors_of(((2, 1, 3, 2),)) == {(2, 1): (2, 1), (2, 2): (2, 1), (3, 1): (2, 1), (3, 2): (2, 1)}
True
"""

from __future__ import annotations

import dataclasses
import gc
import zipfile
from typing import Any

from .engine import EngineMessages, evaluate_workbook
from ..guard.limits import EXCEL_MAX_TEXT
from ..guard.links import LINK_NOT_FOLLOWED
from ..cells import ExcelErrorValue, cell_ref, parse_ref, qualified
from ..write.xlsxpatch import patch_sheet_pieces

__all__ = [
    "EngineSummary",
    "PLAIN_VALUE_TYPES",
    "anchors_of",
    "evaluate_and_splice",
    "hidden_sheets",
    "reported_at",
    "settle_values",
    "summarize",
]




def hidden_sheets(workbook_xml: bytes) -> set:
    """SHEET names (capitals) of the hidden and very hidden sheets listed in the workbook part.

    >>> sorted(hidden_sheets(b'<workbook><sheets><sheet name="V"/><sheet name="V (calc)" state="hidden"/>'
    ...                      b'<sheet name="X" state="veryHidden"/></sheets></workbook>'))
    ['V (CALC)', 'X']
    """
    from defusedxml import ElementTree as DET

    root = DET.fromstring(workbook_xml, forbid_dtd=True)
    return {(el.get("name") or "").upper() for el in root.iter()
            if el.tag.rpartition("}")[2] == "sheet" and el.get("state") in ("hidden", "veryHidden")}


def anchors_of(array_ranges: Any) -> dict:
    """{(row, col): anchor} of every cell of the given array ranges ((r1, c1, r2, c2), ...)."""
    anchors = {}
    for r1, c1, r2, c2 in array_ranges:
        for r in range(r1, r2 + 1):
            for c in range(c1, c2 + 1):
                anchors[(r, c)] = (r1, c1)
    return anchors


class _Anchors(dict):
    """{SHEET: :func:`anchors_of` its array ranges}, each sheet's built when first looked up: a run whose
    cells need no anchor (most: no error) never expands a 10,000-row array into 10,000 entries."""

    def __init__(self, layouts: dict):
        super().__init__()
        self._ranges = {sheet.upper(): layout.array_ranges for sheet, layout in layouts.items()}

    def __missing__(self, up: str) -> dict:
        if up not in self._ranges:
            raise KeyError(up)
        found = self[up] = anchors_of(self._ranges[up])
        return found

    def get(self, up: Any, default: Any = None) -> Any:
        return self[up] if up in self._ranges else default


def reported_at(up: str, pos: tuple, value: Any, shown: dict, hidden: set, call_errors: dict,
                anchors: dict) -> tuple | None:
    """(SHEET, anchor) where an error of the cell ``pos`` of sheet ``up`` (capitals) is explained: the
    result of a hidden sheet that a cell in view shows (:mod:`xlbridge.batch.read.aliases`), for an error or
    a call's message; None when it is the cell's own (its array's anchor, ``anchors[up]``, then).

    >>> shown = {("V", (5, 2)): ("V (CALC)", (5, 2))}
    >>> anchors = {"V": {}, "V (CALC)": {(5, 2): (5, 2)}}
    >>> reported_at("V", (5, 2), ExcelErrorValue("#N/A"), shown, {"V (CALC)"}, {}, anchors)
    ('V (CALC)', (5, 2))
    >>> reported_at("V", (5, 2), 3.0, shown, {"V (CALC)"}, {}, anchors) is None
    True
    """
    target = shown.get((up, pos))
    if target is None or target[0] not in hidden:
        return None
    if not (isinstance(value, ExcelErrorValue) or (isinstance(value, str) and value in call_errors)):
        return None
    up_at, at = target
    return up_at, anchors.get(up_at, {}).get(at, at)


#: The exact types of values that are neither an error nor a text: settle_values leaves them as they are
#: and the report says nothing about them (most cells of a workbook), so settle_values skips them before
#: sorting and summarize before anything else (and the texts that cannot concern them: within Excel's
#: limit, and not a call's message, respectively).
PLAIN_VALUE_TYPES = frozenset((int, float, bool))


def settle_values(values: dict, messages: EngineMessages, layouts: dict, hidden: set) -> list:
    """Make the engine's values what the copy holds (in place); return the warnings.

    - an error cell whose formula (or, for a cell showing a hidden result, the result's formula)
      depends on a linked workbook that was not opened, and that no message explains otherwise,
      becomes ``#REF!`` "link to another workbook not followed" (a range of such a book gives
      ``#VALUE!`` in the engine; Excel shows ``#REF!`` for a link it cannot update);
    - a text longer than Excel's 32,767 characters is clipped to it, with a warning naming the cell
      (a call's message so clipped is kept whole in ``messages.clipped_calls``, {(sheet, (row, col)):
      text}, for the report).
    """
    call_errors = messages.call_errors
    cell_messages = messages.cell_messages
    unfollowed = messages.unfollowed
    shown = messages.shown
    anchors = _Anchors(layouts)
    warnings = []
    clipped = messages.clipped_calls
    for sheet in layouts:
        vals = values.get(sheet, {})
        up = sheet.upper()
        # only errors and overlong texts can change: numbers, TRUE/FALSE and texts within Excel's limit (most
        # cells; a template's empty rows give "") are skipped before the sort
        for pos, v in sorted(x for x in vals.items() if type(x[1]) not in PLAIN_VALUE_TYPES
                             and (type(x[1]) is not str or len(x[1]) > EXCEL_MAX_TEXT)):
            if isinstance(v, ExcelErrorValue):
                if not unfollowed or v.code == "#REF!":
                    continue
                up_at, anchor = reported_at(up, pos, v, shown, hidden, call_errors, anchors) or (
                    up, anchors[up].get(pos, pos))
                key = (up_at, cell_ref(*anchor))
                if key in unfollowed and key not in cell_messages:
                    vals[pos] = ExcelErrorValue("#REF!", LINK_NOT_FOLLOWED)
            elif isinstance(v, str) and len(v) > EXCEL_MAX_TEXT:
                warnings.append(f"{qualified(sheet, cell_ref(*pos))}: text of {len(v):,} characters "
                                f"clipped to Excel's limit of {EXCEL_MAX_TEXT:,}")
                vals[pos] = v[:EXCEL_MAX_TEXT]
                if v in call_errors:  # (reported by its whole text, as the call gave it)
                    clipped[(sheet, pos)] = v
    return warnings


#: peak resident bytes of the engine's process above which it collects after the engine: a season of 10,000 traveller
#: rows (a process of about 140 MiB) frees 25 MiB of its peak for 0.06 s (185 -> 160 MiB, 2026-12-07); a small book
#: skips it
COLLECT_ABOVE = 64 << 20


def _peak_bytes() -> int:
    """The peak resident memory of this process so far, in bytes (``getrusage``: KiB on Linux, bytes on
    macOS); where there is no ``resource`` module (Windows, the in-process path only), above
    ``COLLECT_ABOVE``: the collection is made, as it always was."""
    import sys

    try:
        import resource
    except ImportError:
        return COLLECT_ABOVE + 1
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


@dataclasses.dataclass(frozen=True)
class EngineSummary:
    """What the report of a run reads of the engine's result, taken in the engine's process: all that the
    parent receives of it. The whole result stays where it was made: at 100,000 traveller rows it is
    about 600,000 values, 300,000 shown cells and 300,000 formulas' texts, some 250 MiB more in the
    parent while the engine's process still holds its own (2026-11-27).

    - ``values``: {sheet: {(row, col): value}} of the cells a report may name: errors, calls' messages,
      texts clipped to Excel's limit (:func:`summarize`);
    - ``messages``: the engine's :class:`~xlbridge.batch.evaluate.engine.EngineMessages`, its shown cells
      cut to those cells and to the results cut at their range (``cut_rows``);
    - ``layouts``: {sheet: layout} without cell spans, holding the formulas of the cells above and of the
      results they show (every formula when a call was refused over a work limit: the report then
      searches them for the call);
    - ``warnings``; ``written`` and ``formula_cells``: {sheet: how many values were written, how many
      formula cells it has}; ``print_results``: {print area: its last row holding a non-blank result and
      its valued arrays' ranges, :class:`xlbridge.batch.read.capacity.AreaResults`}; ``anchors``: {SHEET: {(row, col): anchor}}
      of those cells (and of the results they show) that lie in an array range, for :func:`reported_at`.
    """

    values: dict
    messages: EngineMessages
    layouts: dict
    warnings: list
    written: dict
    formula_cells: dict
    print_results: dict
    anchors: dict


def summarize(values: dict, messages: EngineMessages, layouts: dict, warnings: list, print_areas: Any = ()) -> EngineSummary:
    """The :class:`EngineSummary` of a settled result (:func:`settle_values`); ``print_areas``: the areas
    ((sheet, r1, c1, r2, c2), ...) of the print-area names (:data:`xlbridge.batch.read.capacity.PRINT_NAME`).

    >>> from xlbridge.batch.read.sheetxml import scan_sheet
    >>> xml = b'<worksheet><sheetData><row r="1"><c r="A1"><f>1/0</f></c><c r="B1"><f>1+1</f></c></row></sheetData></worksheet>'
    >>> got = summarize({"S": {(1, 1): ExcelErrorValue("#DIV/0!"), (1, 2): 2}}, EngineMessages(), {"S": scan_sheet(xml)}, [],
    ...                 [("S", 1, 1, 9, 2)])
    >>> got.values, got.layouts["S"].formula_cells, got.written, got.formula_cells, got.print_results
    ({'S': {(1, 1): ExcelErrorValue(code='#DIV/0!', message='')}}, {(1, 1): '1/0'}, {'S': 2}, {'S': 2}, {('S', 1, 1, 9, 2): AreaResults(last_row=1, array_ranges=(), last_col=0)})
    """
    from ..read.capacity import AreaResults

    call_errors = messages.call_errors
    clipped = messages.clipped_calls
    shown = messages.shown
    whole = {(sheet, pos) for sheet, pos in clipped}
    plain = PLAIN_VALUE_TYPES
    # a cell the report may name: an Excel error or a call's message (numbers, TRUE/FALSE and other texts,
    # most cells, are not), or a text clipped to Excel's limit (reported whole)
    named = {sheet: {pos: v for pos, v in vals.items()
                     if (type(v) not in plain and (type(v) is not str or v in call_errors))
                     or (whole and (sheet, pos) in whole)}
             for sheet, vals in values.items()}
    keys = {(sheet.upper(), pos) for sheet, vals in named.items() for pos in vals}
    cut = {(up, parse_ref(ref.split(":", 1)[0])) for up, ref in messages.cut_rows}
    if cut:  # (in the order of the map: the report takes the last cell showing a cut result)
        kept = {key: target for key, target in shown.items() if key in keys or target in cut}
    else:
        kept = {key: shown[key] for key in sorted(keys) if key in shown}
    anchors = _Anchors(layouts)
    wanted: dict = {sheet.upper(): set() for sheet in layouts}  # {SHEET: anchors of the formulas the report may read}
    near: dict = {sheet.upper(): {} for sheet in layouts}  # {SHEET: {(row, col): anchor}} of the cells it may look up
    for up, pos in keys | set(kept.values()):
        anchor = anchors.get(up, {}).get(pos)
        if anchor is not None:
            near[up][pos] = anchor
        wanted.setdefault(up, set()).add(pos if anchor is None else anchor)
    every = bool(messages.limit_calls)
    light = {sheet: dataclasses.replace(layout, cells={}, rows={}, row_cells={}, formula_cells=(
                 dict(layout.formula_cells) if every else
                 {pos: layout.formula_cells[pos] for pos in sorted(wanted[sheet.upper()]) if pos in layout.formula_cells}))
             for sheet, layout in layouts.items()}
    messages = dataclasses.replace(messages, shown=kept)
    rows = {area: AreaResults.of(values.get(area[0], {}), area, layouts[area[0]].array_ranges)
            for area in print_areas if area[0] in layouts}
    return EngineSummary(named, messages, light, list(warnings),
                         {sheet: len(values.get(sheet, {})) for sheet in layouts},
                         {sheet: len(layout.formula_cells) for sheet, layout in layouts.items()}, rows, near)


def _write_pieces(out: int, pieces: list) -> tuple[int, int]:
    """Append ``pieces`` to the open file ``out`` (a descriptor); (start, length) of what was written."""
    with open(out, "ab", buffering=1 << 20, closefd=False) as fh:
        start = fh.tell()
        fh.writelines(pieces)
        fh.flush()
        return start, fh.tell() - start


def evaluate_and_splice(path: str, sheets: Any, early: Any = None, out: int | None = None,
                        max_output: int | None = None, print_areas: Any = None, **kwargs: Any) -> tuple:
    """(:class:`EngineSummary`, {part: patched bytes}) of the workbook at ``path``.

    ``sheets`` and ``kwargs`` as for :func:`xlbridge.batch.evaluate.engine.evaluate_workbook`; the values are
    settled (:func:`settle_values`) before they are written. With ``early``, ``early(summary)`` is called
    before the parts are patched, and the result's summary is None. With ``out`` (a descriptor of a file
    open for writing), each patched part is appended to that file as it is made and the result gives
    (start, length) for it instead of its bytes: a large part is then never held whole, nor sent.
    ``max_output``: the most bytes the patched parts may hold together (the memory limit: when they were
    all held in the engine's process, its address-space limit bounded them; a file is bounded by this);
    past it the workbook is refused, naming the sheet. ``print_areas``: the printable tables
    ((sheet, r1, c1, r2, c2), ...) as the gate clipped them (None: as the workbook part declares them).
    """
    from ...core.errors import WorkbookLimitError
    from ..guard.limits import clip

    from ..read.capacity import PRINT_NAME, capacity_areas

    values, messages, layouts = evaluate_workbook(path, sheets, **kwargs)
    # the engine's graph of cells is now garbage, a web of reference cycles, and the engine's process makes
    # no full collections (child._young_collections_only): in a process grown large, one full collection
    # frees it before the patching (at 10,000 traveller rows: 185 -> 160 MiB at the peak; at 100,000: 954 -> 928
    # MiB); a small one skips it (the collection walks the whole heap: 0.06 s at 10,000 rows)
    if _peak_bytes() > COLLECT_ABOVE:
        gc.collect()
    parts = dict(sheets)
    with zipfile.ZipFile(path) as zf:
        workbook = zf.read("xl/workbook.xml")
        warnings = settle_values(values, messages, layouts, hidden_sheets(workbook))
        if print_areas is None:
            print_areas = capacity_areas(workbook, [sheet for sheet, _ in sheets], PRINT_NAME)
        summary = summarize(values, messages, layouts, warnings, list(print_areas))
        if early is not None:  # the parent reports from it while the parts are patched here
            early(summary)
        # the summary holds what the report needs of the messages: their shown cells (300,000 at 100,000
        # traveller rows, 66 MiB) are freed before the patching, whose pieces then take their place
        del messages
        patched = {}
        total = 0
        for sheet, layout in layouts.items():
            pieces = patch_sheet_pieces(zf.read(parts[sheet]), layout, values.get(sheet, {}))
            total += sum(len(piece) for piece in pieces)
            if max_output is not None and total > max_output:
                raise WorkbookLimitError(f"refused: memory limit of {max_output / (1 << 20):g} MiB reached while "
                                         f"writing sheet {clip(sheet, 40)[1:-1]} (the recalculated sheets would be "
                                         f"larger than the limit; raise it with --max-memory)")
            patched[parts[sheet]] = b"".join(pieces) if out is None else _write_pieces(out, pieces)
            del pieces
    return (None if early is not None else summary), patched
