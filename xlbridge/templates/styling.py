"""Shared building blocks of the template workbooks: colours, inputs, array formulas, furniture.

Every template marks its inputs the same way (yellow fill, a data validation with an input
message, a legend on the sheet), computes with ONE legacy array formula (``<f t="array"
ref="...">``) per result column or table, and has an ``Instructions`` sheet and an
``xlwings.conf`` sheet (A1 ``UDF Modules``, B1 ``xlbridge.udfs``). The helpers here do that.

>>> seq_column(3), seq_row(2)
('TRANSPOSE({1,2,3})', '{1,2}')
"""

from __future__ import annotations

import copy
import datetime as _dt
import textwrap
from collections.abc import Sequence
from typing import Any

from openpyxl import Workbook
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.utils.cell import column_index_from_string, coordinate_from_string
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.formula import ArrayFormula
from openpyxl.worksheet.worksheet import Worksheet

from ..core.sheet import EXCEL_MAX_ROWS
from ..core.template_contract import CAPACITY_NAME, EVENT_DETAILS, HANDOUT_NAME, HEADER_NAME, PRINT_NAME, SCORER_NOTES_NAME

__all__ = [
    "CREATOR",
    "FIXED_TIME",
    "ZIP_TIME",
    "INPUT_FILL",
    "CALC_FILL",
    "HEADER_FILL",
    "UDF_MODULE",
    "CAPACITY_NAME",
    "PRINT_NAME",
    "MIN_PRINT_SCALE",
    "align",
    "align_headers",
    "chart_extent",
    "capacity",
    "scorer_note",
    "handout",
    "input_table",
    "sheet",
    "fill_rows",
    "table_head",
    "print_setup",
    "empty_tables",
    "COMMON_LINES",
    "seq_column",
    "seq_row",
    "bold",
    "fill",
    "cells",
    "style",
    "title",
    "headers",
    "header_row",
    "mark_input",
    "array",
    "computed",
    "legend",
    "param",
    "new_workbook",
    "instructions",
    "conf_sheet",
]

CREATOR = "xlbridge"
FIXED_TIME = _dt.datetime(2026, 1, 1, 0, 0, 0)
ZIP_TIME = (2026, 1, 1, 0, 0, 0)

INPUT_FILL = "FFFFF2CC"  # light yellow: type here
CALC_FILL = "FFE2EFDA"  # light green: computed, do not type
HEADER_FILL = "FFD9E1F2"  # light blue: headers

UDF_MODULE = "xlbridge.udfs"


def seq_column(n: int) -> str:
    """A column of row positions 1 to n: ``TRANSPOSE({1,2,...,n})``.

    Used with INDEX to lay a variable-sized table result into a fixed array range: positions
    past the end give #REF!, which IFERROR turns into "" (an array formula whose result is
    smaller than its range would otherwise show #N/A in the extra cells).

    The row constant turned into a column gives what the column constant ``{1;2;...;n}`` gives
    (LibreOffice and ``xlbridge recalc``: tests/batch/test_recalc_libreoffice.py; Excel's legacy array
    formulas take an array of positions in INDEX element by element); the formulas engine reads a
    column constant as one function call per row (401 graph nodes for the 400-row Ranking of the
    pairs template, about 0.1 s to parse at every ``xlbridge recalc``), a row constant as one.

    >>> seq_column(3)
    'TRANSPOSE({1,2,3})'
    """
    return f"TRANSPOSE({seq_row(n)})"


def seq_row(n: int) -> str:
    """Excel array constant ``{1,2,...,n}`` (a row of column positions).

    >>> seq_row(4)
    '{1,2,3,4}'
    """
    return "{" + ",".join(str(i) for i in range(1, n + 1)) + "}"


def bold() -> Font:
    """A bold font (section labels).

    >>> bold().b
    True
    """
    return Font(bold=True)


def fill(rgb: str) -> PatternFill:
    """A solid fill of colour ``rgb`` (ARGB hex).

    >>> fill(INPUT_FILL).fgColor.rgb
    'FFFFF2CC'
    """
    return PatternFill(fill_type="solid", start_color=rgb, end_color=rgb)


def cells(ws: Worksheet, ref: str) -> list:
    """The cells of ``ref`` (one cell or a range) as a flat list, row by row.

    >>> ws = Workbook().active
    >>> [c.coordinate for c in cells(ws, "A1:B2")]
    ['A1', 'B1', 'A2', 'B2']
    """
    rng = ws[ref]
    if not isinstance(rng, tuple):
        return [rng]
    out: list = []
    for r in rng:
        if isinstance(r, tuple):
            out.extend(r)
        else:
            out.append(r)
    return out


def style(ws: Worksheet, ref: str, rgb: str | None, number_format: str | None = None,
          alignment: Alignment | None = None) -> None:
    """Fill ``ref`` with ``rgb`` (None: as it is) and, if given, set its number format and alignment.

    openpyxl registers a style each time a cell's fill or format is set (a look-up by the style's hash),
    which for a 10,000-row table is most of a template's build. Cells that had the same style before
    get the same style after: it is worked out on the first such cell and its style record (openpyxl's
    ``StyleArray``, the indices of its font, fill, format...) copied to the others, so the workbook is the
    same, byte for byte.

    >>> ws = Workbook().active
    >>> ws["A2"].font = Font(bold=True)
    >>> style(ws, "A1:A3", "FFFFFF99", "0.00")
    >>> [(c.fill.fgColor.rgb, c.number_format, c.font.b) for c in cells(ws, "A1:A3")]
    [('FFFFFF99', '0.00', False), ('FFFFFF99', '0.00', True), ('FFFFFF99', '0.00', False)]
    """
    f = None if rgb is None else fill(rgb)
    after: dict[tuple[int, ...] | None, Any] = {}  # a cell's style record before (None: none yet) -> after
    for c in cells(ws, ref):
        before = None if c._style is None else tuple(c._style)
        done = after.get(before)
        if done is not None:
            c._style = copy.copy(done)
            continue
        if f is not None:
            c.fill = f
        if number_format:
            c.number_format = number_format
        if alignment is not None:
            c.alignment = alignment
        after[before] = copy.copy(c._style)


def title(ws: Worksheet, text: str, note: str | None = None) -> None:
    """The sheet's title in A1 (bold, 14 pt) and an optional italic note in A2."""
    ws["A1"] = text
    ws["A1"].font = Font(bold=True, size=14)
    if note:
        ws["A2"] = note
        ws["A2"].font = Font(italic=True)


def sheet(wb: Workbook, name: str, heading: str, note: str | None = None) -> Worksheet:
    """A new sheet ``name`` at the end of ``wb``, with its :func:`title` (and note); returns it."""
    ws = wb.create_sheet(name)
    title(ws, heading, note)
    return ws


def fill_rows(ws: Worksheet, first_row: int, rows: Sequence[Sequence[Any]], first_col: int = 1) -> None:
    """Type the example ``rows`` (tuples of values) from (``first_row``, ``first_col``) on, one sheet row each.

    >>> ws = Workbook().active
    >>> fill_rows(ws, 5, [(1, "a"), (2, "b")])
    >>> ws["A6"].value, ws["B5"].value
    (2, 'a')
    """
    for i, row in enumerate(rows):
        for j, v in enumerate(row, start=first_col):
            ws.cell(row=first_row + i, column=j, value=v)


def table_head(ws: Worksheet, first: int, count: int, example: Sequence[Sequence[Any]], names: Sequence[str],
               widths: Sequence[float]) -> int:
    """Start an input table of ``count`` rows from row ``first``: its :func:`headers` (row 4, from column
    A) and its example rows (:func:`fill_rows`); returns the table's last row.

    >>> ws = Workbook().active
    >>> table_head(ws, 5, 100, [(1, 2)], ["Pair", "Names"], [8, 30]), ws["A4"].value, ws["B5"].value
    (104, 'Pair', 2)
    """
    headers(ws, 4, 1, names, widths=widths)
    fill_rows(ws, first, example)
    return first + count - 1


def headers(ws: Worksheet, row: int, col: int, names: Sequence[str], widths: Sequence[float] | None = None) -> None:
    """Header cells (bold, blue, wrapped) from (``row``, ``col``) rightwards; optional column widths."""
    for i, name in enumerate(names):
        c = ws.cell(row=row, column=col + i, value=name)
        c.font = Font(bold=True)
        c.fill = fill(HEADER_FILL)
        c.alignment = Alignment(wrap_text=True, vertical="top")
        if widths:
            ws.column_dimensions[get_column_letter(col + i)].width = widths[i] if i < len(widths) else widths[-1]
    if widths:  # wrapped headers stay inside their row when printed: a line for every ~width characters
        lines = max(-(-len(str(n)) // max(1, int(widths[i] if i < len(widths) else widths[-1]) - 1))
                    for i, n in enumerate(names))
        if lines > 1:
            ws.row_dimensions[row].height = 15 * lines


def header_row(ws: Worksheet, ref: str) -> None:
    """Bold the header row ``ref`` whose texts a formula writes (e.g. the weeks of a table); it stays green:
    computed, not typed."""
    for c in cells(ws, ref):
        c.font = Font(bold=True)


def mark_input(ws: Worksheet, ref: str, *, kind: str | None = None, prompt: str, title: str = "Input",
               number_format: str | None = None, text: bool = False, **dv: Any) -> None:
    """Mark ``ref`` as an input range: yellow fill and a data validation with an input message; a text input
    (``text``, or ``kind`` ``"textLength"`` or ``"list"``) left-aligned one step in, apart from a number column
    to its left."""
    text = text or kind in ("textLength", "list")
    style(ws, ref, INPUT_FILL, number_format, Alignment(horizontal="left", indent=1) if text else None)
    v = DataValidation(type=kind, allow_blank=True, showInputMessage=True, promptTitle=title, prompt=prompt,
                       showErrorMessage=kind is not None, errorTitle="Not accepted" if kind else None,
                       error=(prompt if kind else None), **dv)
    v.add(ref)
    ws.add_data_validation(v)


def array(ws: Worksheet, ref: str, formula: str, number_format: str | None = None) -> None:
    """ONE legacy array formula over ``ref`` (Excel's Ctrl+Shift+Enter form), styled as computed."""
    first = ref.split(":")[0]
    ws[first] = ArrayFormula(ref, formula)
    style(ws, ref, CALC_FILL, number_format)




def capacity(ws: Worksheet, ref: str, cell: str, what: str) -> None:
    """Declare the table whose rows are ``ref`` (e.g. ``A5:P10004``) and whose header is the row above it as the
    input area of ``ws``: a sheet-scoped defined name :data:`CAPACITY_NAME` from the header row down
    (``$A$4:$P$10004``: a row inserted directly below the header lies inside it, and Excel and LibreOffice grow
    it, as they grow every range of the table's formulas, which start at the header too:
    :func:`xlbridge.templates.mirror.mirror_arrays`); the header row as :data:`HEADER_NAME`; and a note in
    ``cell`` giving the rows read, which turns red when anything is typed below the area (conditional
    formatting: Excel and LibreOffice evaluate it live; nothing for the formula engine to compute;
    ``xlbridge recalc`` exits 1 naming the first row past it)."""
    from openpyxl.formatting.rule import FormulaRule
    from openpyxl.utils.cell import range_boundaries
    from openpyxl.workbook.defined_name import DefinedName

    c1, r1, c2, r2 = range_boundaries(ref)
    first, last = get_column_letter(c1), get_column_letter(c2)
    ws.defined_names[CAPACITY_NAME] = DefinedName(
        CAPACITY_NAME, attr_text=f"{quote_sheetname(ws.title)}!${first}${r1 - 1}:${last}${r2}")
    ws[cell] = (f"Capacity: rows {r1:,} to {r2:,} ({r2 - r1 + 1:,} {what}). Anything below row {r2:,} is NOT "
                f"read: if this turns red, move those rows to a new workbook.")
    ws[cell].alignment = Alignment(wrap_text=True, vertical="top")
    scorer_note(ws, f"{cell}:{cell}")  # (widened by input_table to the cells merged with it)
    below = f"${first}${r2 + 1}:${last}${EXCEL_MAX_ROWS}"
    ws.conditional_formatting.add(cell, FormulaRule(formula=[f"COUNTA({below})>0"], stopIfTrue=True,
                                                    fill=fill("FFFF0000"), font=Font(bold=True, color="FFFFFFFF")))
    header = f"${first}${r1 - 1}:${last}${r1 - 1}"
    ws.defined_names[HEADER_NAME] = DefinedName(HEADER_NAME, attr_text=f"{quote_sheetname(ws.title)}!{header}")


def input_table(ws: Worksheet, ref: str, note: str, what: str, *, legend_at: str | None = None, note_width: int = 4,
                freeze: bool = True) -> None:
    """Finish an input table ``ref`` (e.g. ``A5:P10004``): the colour legend at ``legend_at`` (if given),
    the :func:`capacity` note at ``note`` merged over ``note_width`` columns and 4 rows, and the panes
    frozen above the table's first row (its header row stays in view).

    >>> ws = Workbook().active
    >>> input_table(ws, "A5:C404", "E8", "pairs", legend_at="E4")
    >>> str(ws.merged_cells), ws.freeze_panes, ws["E4"].value
    ('E8:H11', 'A5', 'Legend')
    """
    from openpyxl.utils.cell import range_boundaries

    if legend_at is not None:
        legend(ws, legend_at)
    capacity(ws, ref, note, what)
    col, row = coordinate_from_string(note)
    last = get_column_letter(column_index_from_string(col) + note_width - 1)
    ws.merge_cells(f"{note}:{last}{row + 3}")
    scorer_note(ws, f"{note}:{last}{row + 3}")
    if freeze:
        ws.freeze_panes = f"A{range_boundaries(ref)[1]}"


# printable width of an A4 page with openpyxl's default 0.75-inch margins, in pixels at 96 per inch
_PORTRAIT_PX, _LANDSCAPE_PX = int((8.27 - 1.5) * 96), int((11.69 - 1.5) * 96)


def empty_tables(wb: Workbook, example: str) -> None:
    """Clear the typed-in example rows of every input table (the areas declared by :func:`capacity`):
    a template ships empty and ready to type into; formulas, parameters and the seeds' worked-example
    sheets stay. A sheet caption that described the example now says where the example is."""
    from openpyxl.utils.cell import range_boundaries

    for ws in wb.worksheets:
        dn = ws.defined_names.get(CAPACITY_NAME)
        if dn is None:
            continue
        c1, r1, c2, r2 = range_boundaries(dn.attr_text.split("!")[-1].replace("$", ""))
        r1 += 1  # (the area's first row is the table's header: kept)
        for (r, c), cell in list(ws._cells.items()):
            v = cell.value
            if r1 <= r <= r2 and c1 <= c <= c2 and v is not None and not isinstance(v, ArrayFormula) and not (
                    isinstance(v, str) and v.startswith("=")):
                cell.value = None
        caption = ws["A2"].value
        if isinstance(caption, str) and caption.startswith("Example"):
            ws["A2"] = f"Type or paste into the yellow cells. A filled example: workbooks/examples/{example}."


#: The smallest print scale (percent): below it a printed A4 page is hard to read.
MIN_PRINT_SCALE = 60


#: Rows an array formula may fill beyond the sheet's typed cells that make it a table printed only as far as
#: its rows in use (:data:`PRINT_NAME`, cut by ``xlbridge recalc``): the teams Standings (80 rows for 80 teams).
TABLE_ROWS = 20


def print_setup(wb: Workbook) -> None:
    """Page setup of every sheet, for a scorer printing the results for the club's notice board.

    A4, scaled to one page wide (as many pages tall as needed; landscape when the columns do not fit
    a portrait page) but never below :data:`MIN_PRINT_SCALE`: a wider sheet spans pages across, each
    repeating its first column (or the columns the template names in ``print_title_cols``, set before);
    the column headers (row 4) repeated on every page, charts inside the printed area, the
    ``xlwings.conf`` sheet hidden (xlwings reads it all the same; it is nothing to print), and a footer with the file
    name (name the file after the event), the sheet and "Page n of N". A table sheet (more than 100
    rows laid out, or an array formula filling :data:`TABLE_ROWS` rows or more below the typed cells, and
    no chart) prints only its rows in use: the print area covers the rows holding something
    when built, and the sheet-scoped name :data:`PRINT_NAME` declares the whole table so that
    ``xlbridge recalc`` cuts the print area after the last row in use.
    """
    from openpyxl.utils import get_column_letter
    from openpyxl.workbook.defined_name import DefinedName
    from openpyxl.worksheet.properties import PageSetupProperties

    for ws in wb.worksheets:
        if ws.title == "xlwings.conf":
            ws.sheet_state = "hidden"
            continue
        used = [(r, c) for (r, c), cell in ws._cells.items() if cell.value is not None]
        if not used:
            continue
        # an array formula's whole range prints (a table whose header row a formula writes, e.g. weeks)
        from openpyxl.utils.cell import range_boundaries
        spans = [range_boundaries(cell.value.ref) for cell in ws._cells.values() if isinstance(cell.value, ArrayFormula)]
        arrays, array_rows = [b[2] for b in spans], [b[3] for b in spans]
        charts = [chart_extent(ws, ch) for ch in ws._charts]
        last_col = max([c for _, c in used] + [m.max_col for m in ws.merged_cells.ranges] + arrays
                       + [c for c, _ in charts])
        last_row = max([r for r, _ in used] + [m.max_row for m in ws.merged_cells.ranges] + array_rows
                       + [r for _, r in charts])
        # the printed width in pixels (a column of width w is 7 w + 5 px, the default width 8.43), and
        # the scale that fits it to the page: Excel and LibreOffice both honour an explicit scale
        # (LibreOffice 7.4 ignores "fit to one page wide, any number tall")
        # (9 px a width unit: LibreOffice lays columns out wider than Excel's 7; reading the dimensions
        # without creating them, which would give every untouched column a custom width)
        dims = ws.column_dimensions
        px = sum(9 * ((dims[get_column_letter(c)].width if get_column_letter(c) in dims else None) or 8.43) + 5
                 for c in range(1, last_col + 1))
        landscape = px > _PORTRAIT_PX
        ps = ws.page_setup
        ps.paperSize = ws.PAPERSIZE_A4
        ps.orientation = "landscape" if landscape else "portrait"
        fit = int(100 * (_LANDSCAPE_PX if landscape else _PORTRAIT_PX) / px)
        ps.scale = max(MIN_PRINT_SCALE, min(100, fit))
        if fit < MIN_PRINT_SCALE and not ws.print_title_cols:  # wider than a page at the smallest legible scale:
            ws.print_title_cols = "A:A"  # it spans pages across, each repeating the name (first) column
        ws.sheet_properties.pageSetUpPr = PageSetupProperties(fitToPage=False)
        ws.oddFooter.left.text = "&F"
        ws.oddFooter.center.text = "&A"
        ws.oddFooter.right.text = "Page &P of &N"
        if ws.freeze_panes == "A5":  # a table: its header row is row 4
            ws.print_title_rows = "4:4"
        col = get_column_letter(last_col)
        ws.print_area = f"A1:{col}{last_row}"  # (what is used, charts included)
        table = max(array_rows, default=0) - max([r for r, _ in used] + [0]) >= TABLE_ROWS and not charts
        if ws.max_row > 100 or table:  # (a table whose rows an array formula fills: every row it may fill)
            ws.defined_names[PRINT_NAME] = DefinedName(
                PRINT_NAME, attr_text=f"{quote_sheetname(ws.title)}!$A$1:${col}${max(ws.max_row, last_row)}")


def chart_extent(ws: Worksheet, chart: Any) -> tuple[int, int]:
    """The last column and row (1-based) a chart covers: its anchor cell plus its width and height (cm) at 96 px
    an inch, over the sheet's own column widths (9 px a width unit and 5, as LibreOffice lays them out:
    :func:`print_setup`) and default rows (20 px)."""
    anchor = chart.anchor
    if isinstance(anchor, str):
        col_letter, row = coordinate_from_string(anchor)
        col = column_index_from_string(col_letter)
    else:
        col, row = anchor._from.col + 1, anchor._from.row + 1
    px_per_cm = 96 / 2.54
    dims = ws.column_dimensions
    left, last = chart.width * px_per_cm, col
    while left > 0:
        letter = get_column_letter(last)
        left -= 9 * ((dims[letter].width if letter in dims else None) or 8.43) + 5
        last += 1
    return last, row + int(chart.height * px_per_cm / 20) + 1


def align(ws: Worksheet, ref: str, horizontal: str, indent: int = 0) -> None:
    """Align the cells of ``ref``: a text column right of a number column (``"left"``, ``indent=1``) or a short
    rank (``"center"``), so that a printed "10.75" and "1" or "2" and "C. Clark" never run together.

    >>> ws = Workbook().active
    >>> align(ws, "A1:A2", "left", 1); (ws["A2"].alignment.horizontal, ws["A2"].alignment.indent)
    ('left', 1.0)
    """
    style(ws, ref, None, alignment=Alignment(horizontal=horizontal, indent=indent))


def computed(ws: Worksheet, ref: str, number_format: str | None = None) -> None:
    """Style ``ref`` as computed (green) without writing a formula."""
    style(ws, ref, CALC_FILL, number_format)


def legend(ws: Worksheet, cell: str) -> None:
    """Write the colour legend starting at ``cell`` (3 rows)."""
    col, row = coordinate_from_string(cell)
    ci = column_index_from_string(col)
    dim = ws.column_dimensions[col]
    if not dim.customWidth or (dim.width or 0) < 38:  # wide enough for its text: nothing runs past the page
        dim.width = 38
    ws.cell(row=row, column=ci, value="Legend").font = Font(bold=True)
    a = ws.cell(row=row + 1, column=ci, value="Input: type or paste here")
    a.fill = fill(INPUT_FILL)
    b = ws.cell(row=row + 2, column=ci, value="Computed by xlbridge: do not type here")
    b.fill = fill(CALC_FILL)
    scorer_note(ws, f"{cell}:{col}{row + 2}")


def scorer_note(ws: Worksheet, ref: str) -> None:
    """Declare the block ``ref`` of ``ws`` a note for the scorer (a legend, a capacity note): a block of the
    sheet-scoped :data:`SCORER_NOTES_NAME`, which the members' handout leaves out (``xlbridge recalc
    --values-only``); a block overlapping one already declared widens it.

    >>> ws = Workbook().active
    >>> scorer_note(ws, "E4:E6"); scorer_note(ws, "E5:H6"); scorer_note(ws, "E8:H11")
    >>> ws.defined_names[SCORER_NOTES_NAME].attr_text
    "'Sheet'!$E$4:$H$6,'Sheet'!$E$8:$H$11"
    """
    from openpyxl.utils.cell import range_boundaries
    from openpyxl.workbook.defined_name import DefinedName

    c1, r1, c2, r2 = range_boundaries(ref)
    dn = ws.defined_names.get(SCORER_NOTES_NAME)
    boxes = [] if dn is None else [range_boundaries(b.split("!")[-1].replace("$", "")) for b in dn.attr_text.split(",")]
    for k, (a1, b1, a2, b2) in enumerate(boxes):
        if a1 <= c2 and c1 <= a2 and b1 <= r2 and r1 <= b2:  # (a legend widened across its columns)
            boxes[k] = (min(a1, c1), min(b1, r1), max(a2, c2), max(b2, r2))
            break
    else:
        boxes.append((c1, r1, c2, r2))
    text = ",".join(f"{quote_sheetname(ws.title)}!${get_column_letter(a1)}${b1}:${get_column_letter(a2)}${b2}"
                    for a1, b1, a2, b2 in boxes)
    ws.defined_names[SCORER_NOTES_NAME] = DefinedName(SCORER_NOTES_NAME, attr_text=text)


def handout(wb: Workbook, sheets: Sequence[str]) -> None:
    """Declare the members' handout of ``wb``: ``sheets`` in this order, the first (the results) open
    (:data:`HANDOUT_NAME` on each, its place its text); ``xlbridge recalc --values-only`` hides the others.

    >>> wb = Workbook(); _ = wb.create_sheet("Ranking"); handout(wb, ["Ranking", "Sheet"])
    >>> wb["Ranking"].defined_names[HANDOUT_NAME].attr_text, wb["Sheet"].defined_names[HANDOUT_NAME].attr_text
    ('1', '2')
    """
    from openpyxl.workbook.defined_name import DefinedName

    for place, title in enumerate(sheets, start=1):
        wb[title].defined_names[HANDOUT_NAME] = DefinedName(HANDOUT_NAME, attr_text=str(place))


def align_headers(ws: Worksheet, row: int, col: int, aligns: str) -> None:
    """Align the header cells from (``row``, ``col``) rightwards as their columns' values, one letter each:
    ``r`` right (numbers), ``c`` centred (pairs), ``l`` left one step in (text), so that neighbouring headers never
    read as one line; and make the row as tall as the most lines a header wraps to, words whole, ``width - 2``
    characters a line (a bold header is wider than the width's digits), so that no line is cut."""
    lines = 1
    for i, a in enumerate(aligns):
        c = ws.cell(row=row, column=col + i)
        c.alignment = Alignment(wrap_text=True, vertical="top", horizontal={"r": "right", "c": "center"}.get(a, "left"),
                                indent=1 if a == "l" else 0)
        letter = get_column_letter(col + i)
        width = (ws.column_dimensions[letter].width if letter in ws.column_dimensions else None) or 8.43
        room, n, used = int(width) - (3 if a == "l" else 2), 1, 0
        for word in str(c.value or "").split():
            if used and used + 1 + len(word) > room:
                n, used = n + 1, len(word)
            else:
                used += len(word) + (1 if used else 0)
        lines = max(lines, n)
    if 15 * lines > (ws.row_dimensions[row].height or 15):
        ws.row_dimensions[row].height = 15 * lines


def legend_across(ws: Worksheet, cell: str, widths: Sequence[float]) -> None:
    """The colour :func:`legend` at ``cell`` over ``len(widths)`` columns of these widths, each swatch merged across
    them (its colour under the whole text): a legend beside parameters (a label and a value column), or over
    narrow columns, which :func:`print_setup` measures as generously as LibreOffice prints them (one 38 wide it
    measures short, and the sheet's last column may then print on a page of its own).

    >>> ws = Workbook().active
    >>> legend_across(ws, "E4", [8.5, 8.5, 8.5, 8.5])
    >>> sorted(str(r) for r in ws.merged_cells.ranges), ws.column_dimensions["E"].width, ws["E6"].value[:8]
    (['E5:H5', 'E6:H6'], 8.5, 'Computed')
    """
    legend(ws, cell)
    col, row = coordinate_from_string(cell)
    first = column_index_from_string(col)
    for k, width in enumerate(widths):
        ws.column_dimensions[get_column_letter(first + k)].width = width
    last = get_column_letter(first + len(widths) - 1)
    for r in (row + 1, row + 2):
        ws.merge_cells(f"{col}{r}:{last}{r}")
    scorer_note(ws, f"{cell}:{last}{row + 2}")


def wrap_across(ws: Worksheet, ref: str, lines: int) -> None:
    """Merge ``ref`` (one row: a sheet's caption, a note), wrap its text and give its row ``lines`` lines, so a
    text longer than the printed columns wraps inside them instead of running past the page's edge.

    >>> ws = Workbook().active
    >>> ws["A2"] = "a long caption"
    >>> wrap_across(ws, "A2:F2", 2)
    >>> str(ws.merged_cells), ws["A2"].alignment.wrap_text, ws.row_dimensions[2].height
    ('A2:F2', True, 30.0)
    """
    ws.merge_cells(ref)
    first = ref.split(":")[0]
    c = ws[first]
    c.alignment = Alignment(wrap_text=True, vertical="top")
    ws.row_dimensions[c.row].height = 15 * lines


def param(ws: Worksheet, label_cell: str, value_cell: str, label: str, value: Any, *, kind: str | None = None,
          prompt: str, number_format: str | None = None, **dv: Any) -> None:
    """A labelled parameter: the label, then the value cell marked as an input."""
    ws[label_cell] = label
    ws[value_cell] = value
    mark_input(ws, value_cell, kind=kind, prompt=prompt, number_format=number_format, **dv)


def event_details(ws: Worksheet, first: str, *, width: float | None = None, published: bool = True) -> None:
    """The event's ``Event``, ``Date``, ``Club`` and ``Scorer`` parameters, labels from ``first`` down (values
    to their right), blank: what a member types for the results site and the files sent to the federation, or,
    in a league's, a ledger's or a chart's book, to say whose it is on screen and on paper
    (:data:`xlbridge.core.template_contract.EVENT_DETAILS`; four rows).  A long name shrinks into its printed
    cell; ``width``: the value column's width (None: as the sheet has it); ``published``: False in a book that
    ``xlbridge publish`` and ``export`` do not take (the prompts then speak of the printouts only).

    >>> ws = Workbook().active
    >>> event_details(ws, "H13", width=24)
    >>> [ws[f"H{r}"].value for r in range(13, 17)], ws.column_dimensions["I"].width
    (['Event', 'Date', 'Club', 'Scorer'], 24.0)
    """
    col, row = coordinate_from_string(first)
    value_col = get_column_letter(column_index_from_string(col) + 1)
    if width is not None:
        ws.column_dimensions[value_col].width = width
    prompts = ("The event's name (the results site's title; EVENT_DESCRIPTION in USEBIO)",
               "The session's date, e.g. 2026-11-26 (the results site; DATE in USEBIO)",
               "The club or venue (the results site; CLUB_NAME in USEBIO, Site in PBN)",
               "Who scored the event (the results site: Scored by ...)") if published else (
               "The name of the league, ledger or event (shown on the printouts)",
               "A date, e.g. 2026-11-26 (shown on the printouts)",
               "The club or venue (shown on the printouts)",
               "Who keeps this workbook (shown on the printouts)")
    for k, (label, prompt) in enumerate(zip(EVENT_DETAILS, prompts, strict=True)):
        date = k == 1
        param(ws, f"{col}{row + k}", f"{value_col}{row + k}", label, None, kind="date" if date else "textLength",
              prompt=prompt, number_format="yyyy-mm-dd" if date else None,
              **({"operator": "greaterThan", "formula1": "1"} if date else
                 {"operator": "between", "formula1": "0", "formula2": "200"}))
        if not date:  # (a long event, club or scorer's name shrinks into the printed column)
            ws[f"{value_col}{row + k}"].alignment = Alignment(horizontal="left", indent=1, shrink_to_fit=True)


def new_workbook(title: str) -> Workbook:
    """A workbook whose first sheet is ``Instructions``, with fixed document properties (``title`` is the
    document's subject: its title is left for the event's name)."""
    wb = Workbook()
    wb.active.title = "Instructions"
    p = wb.properties
    p.creator = CREATOR
    p.lastModifiedBy = CREATOR
    p.created = FIXED_TIME
    p.modified = FIXED_TIME
    p.subject = title  # (the title is the event's: a member's or `xlbridge import`'s; the site and exports read it)
    wb.calculation.fullCalcOnLoad = True  # Excel recalculates on open: the file holds no cached values
    return wb


def instructions(wb: Workbook, heading: str, lines: Sequence[str]) -> None:
    """Fill the ``Instructions`` sheet: a heading and one wrapped paragraph per line (one printed page for a
    member: what to type where, what comes out, and where the documentation says the rest)."""
    ws = wb["Instructions"]
    ws["A1"] = heading
    ws["A1"].font = Font(bold=True, size=14)
    # 104 wide: inside a landscape A4 page's margins at 100 % (LibreOffice prints a width unit as about 9.2 px;
    # 110 ran 12 pt into the right margin)
    ws.column_dimensions["A"].width = 104
    for i, line in enumerate(lines, start=3):
        c = ws.cell(row=i, column=1, value=line)
        c.alignment = Alignment(wrap_text=True, vertical="top")
        # a height for every wrapped line, words whole, at 122 characters a line (LibreOffice fits 125 to 140 in
        # the column, Excel, whose Calibri is narrower, more: never fewer lines than shown), so paragraphs never
        # overlap (LibreOffice does not grow rows of an .xlsx to fit wrapped text), and a gap of 4 pt under each
        ws.row_dimensions[i].height = 15 * len(textwrap.wrap(line, 122) or [""]) + 4
    # (no legend here: one printed page; the colours are said in words, and every sheet to type into has one)


def conf_sheet(wb: Workbook) -> None:
    """The ``xlwings.conf`` sheet: UDF Modules = xlbridge.udfs."""
    ws = wb.create_sheet("xlwings.conf")
    ws["A1"] = "UDF Modules"
    ws["B1"] = UDF_MODULE
    ws.column_dimensions["A"].width = 16
    ws.column_dimensions["B"].width = 18


COMMON_LINES = [
    "Yellow cells are for typing (each says what goes there when selected); green cells are computed: do "
    "not type in them. Rows may be sorted, deleted, cut and pasted or copied: each row keeps its own "
    "results. In Excel each table is an Excel table: a row inserted into it gets the formulas of its green "
    "cells at once. Elsewhere an inserted row has none and turns red until the results are computed "
    "again, which gives it them; a row inserted anywhere in a table, directly below its header too, is read. "
    "Where the parameters sit beside a table, insert and delete the "
    "table's cells (Insert or Delete Cells, shift down or up), not whole rows.",
    "Computing the results: in Excel with the xlbridge add-in they follow what you type. Anywhere else "
    "(LibreOffice, Excel without the add-in), save the workbook and run xlbridge recalc THIS.xlsx -o "
    "OUT.xlsx, or send it to your scorer: the copy holds every result, and a red cell or a message names "
    "anything to put right.",
    "More: the xlbridge documentation, in its docs folder: templates.md (this workbook's sheets and "
    "rules), excel.md (the Excel add-in), corrections.md (the published figures xlbridge corrects).",
]
