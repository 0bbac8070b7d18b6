"""The rows a member inserted into a template's table get the formulas of their result cells (issue 38).

Neither Excel (outside an Excel table) nor LibreOffice copies formulas into a row inserted into a range: the
green result cells of an inserted row are empty, so its results would not show and the formulas reading
those cells (matchpoints, match totals, handicap look-ups) would leave the row out. A template's result
cells beside a table hold one and the same formula in every row (``INDEX`` of the hidden result at
``ROW()``'s position in the table: :func:`xlbridge.templates.mirror.shows_row`), so ``xlbridge recalc``
writes that formula into the empty result cells of each row of the table holding a value before the
engine evaluates the book: the row is then computed like any other, in the copy and in every program that
opens it afterwards. The run says so in one warning per sheet.

Where it is not done (the read stage, :func:`xlbridge.batch.read.book.unfilled_rows`, then names the first cell,
as before): a result cell holding a constant (typed over: a member's value is never overwritten), and a
column whose formula is not the same text in every row (a relative reference, an array formula), or with
no row holding it. Only sheets declaring both ``XLBRIDGE_CAPACITY`` (the table) and ``XLBRIDGE_RESULTS``
(the result cells in view) are looked at.

>>> position_free("IFERROR(INDEX('T (calc)'!$H$5:$H$104,ROW()-ROW($A$5:$A$104)+1),\\"\\")")
True
>>> position_free("IFERROR('T (calc)'!H5,\\"\\")"), position_free("$A5+1"), position_free('"A5"&LOG10($B$2)')
(False, False, True)
"""

from __future__ import annotations

import re
from typing import Any

from ..cells import cell_ref, qualified
from ..guard.limits import one_line
from ..read.book import MAX_FILLED_ROWS
from ..read.capacity import table_rows
from ..read.sheetxml import scan_sheet
from .xlsxpatch import Formula, patch_sheet

__all__ = ["fill_inserted_rows", "position_free", "MAX_MODEL_ROWS", "MAX_FILLED_ROWS", "MAX_PARSED_BYTES"]

#: the rows looked at, nearest first, for a column's formula (a row holding it as text, not as a shared
#: formula's later cell): a bound on the work, whatever the file
MAX_MODEL_ROWS = 50

#: at most :data:`MAX_FILLED_ROWS` rows of a sheet given their formulas, and at most this many bytes of them (or of
#: the rows read for the formula) parsed at once: beyond either, nothing is filled on that sheet and ``recalc``
#: names its first row lacking them, as without this step (the work stays small whatever the upload)
MAX_PARSED_BYTES = 4 << 20

_STRING = re.compile(r'"(?:[^"]|"")*"')
_QUOTED_SHEET = re.compile(r"'(?:[^']|'')*'")
#: a cell reference (A1, $A1, A$1, $A$1) not part of a longer name nor a function's name (LOG10)
_CELL = re.compile(r"(?<![\w.$])(\$?)[A-Za-z]{1,3}(\$?)[0-9]+(?![\w(.])")
#: a whole-column or whole-row range (A:C, 3:5) with a relative end
_WHOLE = re.compile(r"(?<![\w.$])(\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3}|\$?[0-9]+:\$?[0-9]+)(?![\w(])")


_F_TAG = re.compile(rb"<(?:[\w.-]+:)?f[\s>/]")
_SI = re.compile(rb"\ssi\s*=\s*[\"']([0-9]+)[\"']")


def position_free(formula: str) -> bool:
    """True when ``formula`` (a part's text) gives the same formula in every cell: no relative reference (each
    cell reference fixed in column and row, ``$A$5``), outside its string literals and quoted sheet names."""
    text = _QUOTED_SHEET.sub("''", _STRING.sub('""', formula))
    if any(not (col and row) for col, row in _CELL.findall(text)):
        return False
    return not any(part.count("$") < 2 for part in _WHOLE.findall(text))


def _bounds(data: bytes, rows: list) -> list:
    """[(row, begin, end)]: each row element's bytes (from its ``<`` to the next row's, or to the end tag of
    ``sheetData`` for the last), from :func:`xlbridge.batch.read.capacity.sheet_rows`' spans."""
    out = []
    for k, (r, start, stop) in enumerate(rows):
        begin = data.rfind(b"<", 0, start)
        end = stop if k + 1 < len(rows) else data.rfind(b"<", 0, stop)
        out.append((r, begin, end))
    return out


def _rows_part(data: bytes, head: bytes, tail: bytes, spans: list, sheet: str) -> tuple[bytes, Any]:
    """The rows ``spans`` of the part as a part of their own (what precedes and follows the part's rows kept),
    and its layout: the parser finds their cells and formulas in one pass, without holding every cell of a
    100,000-row sheet."""
    sub = b"".join([head, *(data[begin:end] for _r, begin, end in spans), tail])
    return sub, scan_sheet(sub, sheet=sheet)


def _model_formulas(data: bytes, head: bytes, tail: bytes, spans: list, near: int, columns: set, sheet: str) -> dict:
    """{column: formula} of ``columns``, each from the row nearest ``near`` holding a formula there (among the
    :data:`MAX_MODEL_ROWS` nearest rows holding one, and the table's first :data:`MAX_MODEL_ROWS`, where Excel
    writes a shared formula's text: its later cells name it by number), kept only when it is the same in
    every row (:func:`position_free`) and not an array formula."""
    with_formulas = [s for s in spans if _F_TAG.search(data, s[1], s[2])]
    nearest = sorted(with_formulas, key=lambda s: (abs(s[0] - near), s[0] > near))[:MAX_MODEL_ROWS]
    read = sorted(set(nearest) | set(with_formulas[:MAX_MODEL_ROWS]), key=lambda s: s[0])
    if not read:
        return {}
    if len(head) + len(tail) + sum(end - begin for _r, begin, end in read) > MAX_PARSED_BYTES:
        return {}
    sub, layout = _rows_part(data, head, tail, read, sheet)

    def tag(r: int, c: int) -> bytes:  # the start tag of the cell's <f>
        s = next(s for local, s, _e in layout.cells[(r, c)].children if local == "f")
        return sub[s:sub.index(b">", s)]

    shared: dict = {}  # (column, shared formula number) -> its text
    for (r, c), text in layout.formula_cells.items():
        if text and c in columns and b"shared" in tag(r, c) and (m := _SI.search(tag(r, c))) is not None:
            shared.setdefault((c, m.group(1)), text)
    found: dict = {}
    for c in columns:  # the text most rows hold (a formula typed over one row's result is not it)
        texts: list = []
        for r, _b, _e in read:
            if (r, c) not in layout.formula_cells:
                continue
            f, text = tag(r, c), layout.formula_cells[(r, c)]
            if not text and (m := _SI.search(f)) is not None:  # (a shared formula's later cell)
                text = shared.get((c, m.group(1)), "")
            texts.append((text, b"array" in f))
        if not texts:
            continue
        best = max(set(texts), key=texts.count)
        if best[0] and not best[1] and texts.count(best) >= max(2, len(texts) // 2 + 1) and position_free(best[0]):
            found[c] = best[0]
    return found


def _empty(layout: Any, r: int, c: int) -> bool:
    span = layout.cells.get((r, c))
    return span is None or not span.children


def fill_inserted_rows(read: Any) -> tuple[dict, list, dict]:
    """({part: its bytes with the formulas written}, [one warning per sheet], {sheet: {(row, column) written}}) for
    the book the read stage read (``read``: :class:`xlbridge.batch.read.book.BookRead`: its parts' rows and the
    result cells it found missing, at most :data:`MAX_FILLED_ROWS` rows' worth a sheet); ({}, [], {}) when no
    row lacks its result formulas. Nothing here reads the upload again: the parts are the read stage's.
    Bounded: :data:`MAX_FILLED_ROWS`, :data:`MAX_PARSED_BYTES`."""
    parts = dict(read.book.sheets)
    replacements: dict = {}
    warnings: list = []
    written: dict = {}
    for sheet, missing in read.missing.items():
        rows = read.rows[sheet]
        if not missing or rows.rows is None or parts.get(sheet) is None:
            continue
        data = rows.xml
        spans = _bounds(data, rows.rows)
        head, tail = data[:spans[0][1]], data[spans[-1][2]:]
        by_row = {r: (begin, end) for r, begin, end in spans}
        wanted: dict = {}
        for r, c in missing:
            wanted.setdefault(r, set()).add(c)
        if len(wanted) > MAX_FILLED_ROWS or len(head) + len(tail) + sum(
                by_row[r][1] - by_row[r][0] for r in wanted) > MAX_PARSED_BYTES:
            continue
        header = dict(read.book.areas.headers).get(sheet)
        area = next((a for a in (table_rows(d, header) for d in read.book.areas.capacity if d[0] == sheet)
                     if a[1] <= min(wanted) <= a[3]), None)
        if area is None:
            continue
        others = [s for s in spans if s[0] not in wanted and area[1] <= s[0] <= area[3]]
        model = _model_formulas(data, head, tail, others, min(wanted), {c for _r, c in missing}, sheet)
        rows_wanted = [(r, *by_row[r]) for r in sorted(wanted)]
        sub, layout = _rows_part(data, head, tail, rows_wanted, sheet)
        cells = {(r, c): Formula(model[c]) for r in wanted for c in wanted[r] if c in model and _empty(layout, r, c)}
        if not cells:
            continue
        patched = patch_sheet(sub, layout, cells)
        # each row starts with its own start tag, which the patch leaves as it was (it rewrites cells only)
        tag_ends = {r: start for r, start, _stop in rows.rows}  # (where each row's start tag ends)
        pieces, pos, at = [], 0, len(head)
        for k, (r, begin, end) in enumerate(rows_wanted):
            if k + 1 < len(rows_wanted):  # (the next row's start tag: unique, the values being escaped)
                r2, begin2, _end2 = rows_wanted[k + 1]
                nxt = patched.index(data[begin2:tag_ends[r2]], at + 1)
            else:
                nxt = len(patched) - len(tail)
            pieces += [data[pos:begin], patched[at:nxt]]
            pos, at = end, nxt
        pieces.append(data[pos:])
        replacements[parts[sheet]] = b"".join(pieces)
        written[sheet] = set(cells)
        filled = sorted({r for r, _c in cells})
        first = min(c for r, c in cells if r == filled[0])
        shown_rows = ", ".join(f"{r:,}" for r in filled[:10]) + (f" and {len(filled) - 10:,} more" if len(filled) > 10 else "")
        warnings.append(one_line(
            f"{qualified(sheet, cell_ref(filled[0], first))}: the result cells of row{'s' if len(filled) > 1 else ''} "
            f"{shown_rows} (inserted into the table) had no formulas; given the formulas of the table's other rows "
            f"and computed", 400))
    return replacements, warnings, written
