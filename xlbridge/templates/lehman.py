"""lehman.xlsx: a weekly Lehman ratings ledger, standard and modified (seed 003).

>>> [s.title for s in build().worksheets]
['Instructions', 'Ledger', 'History', 'Chart', 'Example', 'xlwings.conf']
"""

from __future__ import annotations

from openpyxl import Workbook
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.pagebreak import Break

from ..core.template_contract import CHART_NAME, PRINT_NAME, PRIVATE_PLAYERS
from .styling import (handout, COMMON_LINES, INPUT_FILL, chart_extent, array, bold, capacity, computed, conf_sheet, event_details,
                      header_row, headers, input_table, instructions, legend, mark_input, new_workbook, param,
                      seq_column, seq_row, sheet, style, table_head)

__all__ = ["build"]




# a small ledger: (week, north, south, east, west, N-S %, boards; blank boards: 1)
LEDGER = [
    (1, "Newbie", "Spider", "Ann", "Bob", 42.0, 3),
    (1, "Newbie", "Spider", "Cal", "Dee", 38.5, 3),
    (1, "Ann", "Bob", "Cal", "Dee", 55.0, None),
    (1, "Newbie", "Spider", "Ann", "Cal", 46.0, 2),
    (2, "Newbie", "Spider", "Bob", "Dee", 40.0, 3),
    (2, "Ann", "Cal", "Bob", "Dee", 51.5, None),
    (2, "Newbie", "Spider", "Ann", "Bob", 44.0, 3),
    (3, "Spider", "Ann", "Newbie", "Bob", 57.0, 4),
    (3, "Newbie", "Cal", "Dee", "Spider", 39.0, 2),
] + [  # weeks 4 to 10: the newcomer with his regular partner against the others, sets of 3 boards
    (w, "Newbie", "Spider", ("Ann", "Bob", "Cal")[w % 3], ("Dee", "Cal", "Bob")[w % 3], pct, 3)
    for w, pct in ((4, 43.0), (5, 47.5), (6, 41.0), (7, 45.0), (8, 44.5), (9, 48.0), (10, 46.5))
] + [(w, "Ann", "Bob", "Cal", "Dee", pct, 3) for w, pct in ((5, 52.0), (8, 49.0), (10, 53.5))]
#: the players the Chart sheet shows in the example
CHART_PLAYERS = ["Newbie", "Spider", "Ann", "Bob"]
L_FIRST, L_ROWS = 5, 10_000
P_ROWS = 400
W_COLS = 52  # History and Chart: one season of weekly columns
C_ROWS = 8  # Chart: players shown
#: History: the width of a week's column (a rating "58.34" with room to spare; 52 weeks print on two A4 pages across
#: at 60 %, the name column repeated on the second) and the columns over which its legend lies, top right of the
#: first page (right of the caption; a legend right of the 52 weeks printed on a page of its own)
W_WIDTH = 6
H_LEGEND = (18, 24)  # columns R to X: weeks 17 to 23
# The Chart sheet's table (a sheet-scoped name over it, header row included) and, suffixed ``_0`` to ``_8``, the
# names the chart's series read: the weeks and each player's column (:data:`CHART_NAME`). ``xlbridge recalc``
# (:mod:`xlbridge.batch.write.charts`) sets them to the weeks in use, so that no program plots the blank weeks
# after them (LibreOffice and Excel plot a cached ``""`` as 0), and hides the legend entry of a column without
# a player.


def _ledger_sheet(wb: Workbook) -> str:
    """The Ledger sheet: the weekly results and the ratings beside them; returns the ledger's columns as the
    LEHMAN_HISTORY arguments of the History and Chart sheets."""
    ws = sheet(wb, "Ledger", "Ratings ledger", "Example: hypothetical results; the newcomer 'Newbie' plays with 'Spider'.")
    ll = table_head(ws, L_FIRST, L_ROWS, LEDGER,
        ["Week", "North", "South", "East", "West", "NS %", "Boards"],
        [7, 12, 12, 12, 12, 8, 8])
    mark_input(ws, f"A{L_FIRST}:A{ll}", kind="whole", operator="between", formula1="1", formula2="100000",
               prompt="Week number (ratings are combined week by week, in order)")
    mark_input(ws, f"B{L_FIRST}:E{ll}", kind="textLength", operator="between", formula1="1",
               formula2="60", prompt="Player name")
    mark_input(ws, f"F{L_FIRST}:F{ll}", kind="decimal", operator="between", formula1="0", formula2="100",
               prompt="N-S score in percent (matchpoints, or IMPs converted to a percentage)", number_format="0.00")
    mark_input(ws, f"G{L_FIRST}:G{ll}", kind="whole", operator="between", formula1="1", formula2="1000",
               prompt="Boards this row stands for (blank: 1): its result counts that many times and adds that "
                      "many boards to each player's history")
    args = ",".join(f"Ledger!{c}{L_FIRST}:{c}{ll}" for c in "ABCDEFG")
    pl = L_FIRST + P_ROWS - 1
    ws["I3"] = "Standard Lehman"
    ws["O3"] = "Modified Lehman (error bounds)"
    ws["I3"].font = ws["O3"].font = bold()
    cols = ["Player", "Boards", "Rating", "History boards", "Error bound"]
    headers(ws, 4, 9, cols, widths=[12, 8, 8, 9, 8])
    headers(ws, 4, 15, cols, widths=[12, 8, 8, 9, 8])
    array(ws, f"I{L_FIRST}:M{pl}", f'=IFERROR(INDEX(LEHMAN_SEASON({args},"standard",$V$5),'
                                    f'{seq_column(P_ROWS)},{seq_row(5)}),"")', "0.00")
    array(ws, f"O{L_FIRST}:S{pl}", f'=IFERROR(INDEX(LEHMAN_SEASON({args},"modified",$V$5),'
                                    f'{seq_column(P_ROWS)},{seq_row(5)}),"")', "0.00")
    computed(ws, f"J{L_FIRST}:J{pl}", "0")
    computed(ws, f"P{L_FIRST}:P{pl}", "0")
    param(ws, "U5", "V5", "Decay per week", 0.067, kind="decimal", operator="between", formula1="0",
          formula2="1", prompt="Share of the history count lost each week (OKBridge: 6.7 %)", number_format="0.0%")
    ws.column_dimensions["U"].width = 16
    input_table(ws, f"A{L_FIRST}:G{ll}", "U11", "results", legend_at="U7")
    event_details(ws, "U16", width=12, published=False)  # (the ledger's name, its latest date, the club and the scorer)
    param(ws, "U21", "V21", PRIVATE_PLAYERS, None, kind="textLength", operator="between", formula1="0",
          formula2="2000", prompt="Optional: players whose names the results site (xlbridge publish) leaves out, "
                                  "as in the ledger, e.g. Ann & Bob")
    # narrow gaps between the tables: the input table and both ratings tables, each with its Player column, print
    # on the first page (at 60 %); a page break after them, and the second page holds the parameter, legend and
    # capacity note, a gap (T) from the repeated Week column (wider gaps split the modified table there, its Error
    # bound beside the weeks, away from its players)
    for gap in "HNT":
        ws.column_dimensions[gap].width = 3
    ws.col_breaks.append(Break(id=19, max=1_048_575))  # (after S)

    # the rating of every player after every week, and a chart of the players chosen
    return args


def _history_sheet(wb: Workbook, args: str) -> None:
    """The History sheet: each player's rating after each week (``args``: the ledger's columns)."""
    ws = sheet(wb, "History", "Rating after each week", "One row per player (in name order), one column per week "
                                        "played; blank before the player's first week.")
    ws["A3"] = "Formula"
    ws["A3"].font = bold()
    ws["B3"] = "Standard"
    mark_input(ws, "B3", kind="list", formula1='"Standard,Modified"',
               prompt="Standard Lehman, or the error-bound modification (seed 003)")
    ws.merge_cells("B3:C3")  # ("Standard" and "Modified" inside the yellow cell: two week columns wide)
    style(ws, "C3", INPUT_FILL)
    hl = 4 + P_ROWS
    last = get_column_letter(1 + W_COLS)
    history = f'LEHMAN_HISTORY({args},$B$3,Ledger!$V$5)'
    array(ws, f"A4:{last}{hl}", f'=IFERROR(INDEX({history},{seq_column(P_ROWS + 1)},{seq_row(W_COLS + 1)}),"")',
          "0.00")
    header_row(ws, f"A4:{last}4")
    style(ws, f"B4:{last}4", None, "0")  # the weeks: 1, 2, ... (not 1.00)
    ws.column_dimensions["A"].width = 12
    for c in range(2, W_COLS + 2):
        ws.column_dimensions[get_column_letter(c)].width = W_WIDTH
    # more weeks than columns: say so (the ledger is read whole; only this view is cut); short enough to show
    # whole left of the legend
    # (a one-cell array, as every formula reading the ledger's rows from its header row down: xlbridge.templates.mirror)
    array(ws, "D3", f'=IF(IFERROR(INDEX({history},1,{W_COLS + 2}),"")="","","More than {W_COLS} weeks: '
                    f'only the first {W_COLS} are shown. Start a new workbook.")')
    ws["D3"].font = Font(bold=True, color="FFC00000")
    # the legend in rows 1 to 3 over week columns of the first page, each swatch across them
    first, end = (get_column_letter(c) for c in H_LEGEND)
    legend(ws, f"{first}1")
    ws.column_dimensions[first].width = W_WIDTH  # (legend widens its column)
    for r in (2, 3):
        ws.merge_cells(f"{first}{r}:{end}{r}")
    ws.freeze_panes = "A5"


def _chart_sheet(wb: Workbook, args: str) -> None:
    """The Chart sheet: the chosen players' ratings week by week (``args``: the ledger's columns)."""
    ws = sheet(wb, "Chart", "Ratings week by week", "Type up to 8 player names in column K; the chart shows their ratings after "
                                      "each week (the formula chosen on the History sheet).")
    pick = get_column_letter(C_ROWS + 3)  # the column of the names to show, right of the table
    pl = 4 + C_ROWS
    headers(ws, 4, C_ROWS + 3, ["Show player"], widths=[16])
    for i, p in enumerate(CHART_PLAYERS):
        ws.cell(row=5 + i, column=C_ROWS + 3, value=p)
    mark_input(ws, f"{pick}5:{pick}{pl}", prompt="A player's name exactly as in the Ledger")
    chosen = f'LEHMAN_HISTORY({args},History!$B$3,Ledger!$V$5,${pick}$5:${pick}${pl})'
    wl = 4 + W_COLS
    last_p = get_column_letter(1 + C_ROWS)
    headers(ws, 4, 1, ["Week"], widths=[8])
    # weeks down column A, the chosen players across (the history transposed: INDEX with a row of rows)
    weeks_down = "{" + ";".join(str(i) for i in range(2, W_COLS + 2)) + "}"  # the history's columns 2..
    # the history's rows 3..: its row 2 is the names' header row (blank: the names are read from their header down,
    # as every table's rows, xlbridge.templates.mirror)
    players_across = "{" + ",".join(str(i) for i in range(3, C_ROWS + 3)) + "}"
    array(ws, f"A5:A{wl}", f'=IFERROR(INDEX({chosen},1,{weeks_down}),"")', "0")
    array(ws, f"B4:{last_p}{wl}", f'=IFERROR(INDEX({chosen},{players_across},{seq_column(W_COLS + 1)}),"")',
          "0.00")
    header_row(ws, f"B4:{last_p}4")
    for c in range(2, C_ROWS + 2):
        ws.column_dimensions[get_column_letter(c)].width = 9
    # a name the ledger does not know: the call's one-line message, here (the table stays blank)
    # (a one-cell array, as D3 of the History sheet; the history's first cell, "Player" when every name is known, blank
    # then: the function called once)
    array(ws, f"{pick}3", f'=IFERROR(SUBSTITUTE(SUBSTITUTE("|"&INDEX({chosen},1,1)&"|","|Player|",""),"|",""),"")')
    ws[f"{pick}3"].font = Font(bold=True, color="FFC00000")
    # the capacity note and the legend in the next column, the chart under the names: the sheet prints one page
    # wide at 60 % or more (further right, its second page across held only the repeated Week column). The note
    # starts below the header row 4, which every page repeats (a note in it printed cut on a second page)
    note = get_column_letter(C_ROWS + 4)
    capacity(ws, f"{pick}5:{pick}{pl}", f"{note}5", "players")
    ws.merge_cells(f"{note}5:{note}9")
    legend(ws, f"{note}11")
    _chart_names(ws, wl, C_ROWS)
    _history_chart(ws, C_ROWS, f"{pick}{pl + 3}")
    # the weeks in use are printed, not the table's 52 rows (its blank rows printed a second page): the print area
    # declared over the whole table, which `xlbridge recalc` cuts after the last row in use; the cells behind the
    # chart merged, so that the cut keeps the chart whole (a merged range prints whole)
    chart = ws._charts[-1]
    right, bottom = chart_extent(ws, chart)
    ws.merge_cells(f"{pick}{pl + 3}:{note}{bottom}")
    ws.defined_names[PRINT_NAME] = DefinedName(
        PRINT_NAME, attr_text=f"{quote_sheetname(ws.title)}!$A$1:${get_column_letter(right)}${max(wl, bottom)}")
    ws.freeze_panes = "A5"


def _example_sheet(wb: Workbook) -> None:
    """The Example sheet: seed 003's worked example of one board."""
    ws = sheet(wb, "Example", "Seed 003's worked example: one board scored 42 % by N-S",
               "North: the novice (rating 50, no history).")
    # the note on two lines and column A as wide as its longest label, the legend under the table: the sheet
    # prints on one page, nothing cut by the next column or the page's edge
    ws["A3"] = "South: intermediate, rated 45 with about 1,000 boards; East and West rated 45."
    ws["A3"].font = Font(italic=True)
    headers(ws, 4, 1, ["", "North", "South", "East", "West"], widths=[52, 10, 10, 10, 10])
    ws["A5"] = "Rating"
    for j, v in enumerate((50, 45, 45, 45), start=2):
        ws.cell(row=5, column=j, value=v)
    mark_input(ws, "B5:E5", kind="decimal", operator="between", formula1="0", formula2="1000",
           prompt="Current Lehman rating", number_format="0.00")
    ws["A6"] = "History (boards)"
    for j, v in enumerate((0, 1001, 1001, 1001), start=2):
        ws.cell(row=6, column=j, value=v)
    mark_input(ws, "B6:E6", kind="whole", operator="between", formula1="0", formula2="100000000",
           prompt="Boards behind the rating (error bound = 1/sqrt(boards - 1))")
    ws["A7"] = "Error bound (LEHMAN_ERROR)"
    array(ws, "B7:E7", "=LEHMAN_ERROR(B6:E6)", "0.0000")
    ws["A8"] = "N-S score (%)"
    ws["B8"] = 42
    mark_input(ws, "B8", kind="decimal", operator="between", formula1="0", formula2="100", prompt="N-S percentage")
    ws["A9"] = "Predicted N-S % (LEHMAN_PREDICT)"
    array(ws, "B9", "=LEHMAN_PREDICT(B5:E5)", "0.00")  # (on the hidden sheet, as every xlbridge result: see .mirror)
    ws["A11"] = "Standard: rating change (LEHMAN_DELTA)"
    array(ws, "B11:E11", "=LEHMAN_DELTA(B5:E5,B8)", "0.00")
    ws["A12"] = "Standard: pseudo-rating"
    array(ws, "B12:E12", "=B5:E5+B11:E11", "0.00")
    ws["A13"] = "Modified: rating change (LEHMAN_DELTA with errors)"
    array(ws, "B13:E13", "=LEHMAN_DELTA(B5:E5,B8,B7:E7)", "0.00")
    ws["A14"] = "Modified: pseudo-rating"
    array(ws, "B14:E14", "=B5:E5+B13:E13", "0.00")
    ws["A16"] = "Seed 003 prints: standard N 40.89, S 36.81, E/W 53.65; modified N 30.53, S 44.45, E/W 55.01."
    legend(ws, "A18")


def build() -> Workbook:
    wb = new_workbook("Lehman ratings ledger")
    instructions(wb, "Lehman ratings, week by week", [
        "What it does: keeps Lehman ratings from weekly results, by the standard formula and by the "
        "error-bound (modified) formula side by side. A new player starts at 50.",
        "Sheet Ledger, one row per board or set of boards: Week, North, South, East, West, the N-S "
        "percentage and Boards (blank = 1 board). Out, beside it: every player's ratings after the last "
        "week, boards of history and error bound; the weekly decay is a parameter; Event, Date, Club and Scorer say whose ledger it is.",
        "Sheet History: every player's rating after each week (Standard or Modified in B3). Sheet Chart: "
        "type up to 8 names in column K to see their ratings on a chart. Sheet Example: one board worked "
        "through.",
    ] + COMMON_LINES)
    args = _ledger_sheet(wb)
    _history_sheet(wb, args)
    _chart_sheet(wb, args)
    _example_sheet(wb)
    handout(wb, ["Ledger", "History", "Chart"])  # (the members' handout: the ratings first)
    conf_sheet(wb)
    return wb


def _chart_names(ws, last_row: int, players: int) -> None:
    """The Chart sheet's :data:`CHART_NAME` over its table (row 4: the players' names, column A: the weeks, rows 5
    to ``last_row``) and the names the chart reads: ``_0`` the weeks, ``_1`` to ``_<players>`` each player's
    column, each as many rows down as column A holds weeks (``OFFSET``: Excel plots the weeks as a member types
    them, LibreOffice draws an empty chart; ``xlbridge recalc`` sets them to the weeks in use, and writes this
    same text back for an empty table: :func:`xlbridge.batch.write.charts.dynamic_text`)."""
    sheet = quote_sheetname(ws.title)
    last = get_column_letter(1 + players)
    ws.defined_names[CHART_NAME] = DefinedName(CHART_NAME, attr_text=f"{sheet}!$A$4:${last}${last_row}")
    for k in range(players + 1):
        col = get_column_letter(1 + k)
        text = f"OFFSET({sheet}!${col}$5,0,0,MAX(1,COUNT({sheet}!$A$5:$A${last_row})),1)"
        ws.defined_names[f"{CHART_NAME}_{k}"] = DefinedName(f"{CHART_NAME}_{k}", attr_text=text)


def _history_chart(ws, players: int, anchor: str) -> None:
    """A native line chart: one line per player column, its name in row 4 (columns B on), its ratings and the
    weeks along the axis read through the names of :func:`_chart_names`; blank cells are gaps."""
    from openpyxl.chart import LineChart
    from openpyxl.chart.data_source import AxDataSource, NumDataSource, NumRef, StrRef
    from openpyxl.chart.marker import Marker
    from openpyxl.chart.series import Series, SeriesLabel
    from openpyxl.chart.shapes import GraphicalProperties

    sheet = quote_sheetname(ws.title)
    ch = LineChart()
    ch.title = "Lehman rating after each week"
    ch.y_axis.title = "Rating"
    ch.x_axis.title = "Week"
    ch.height, ch.width = 9, 13
    palette = ["4472C4", "C00000", "70AD47", "ED7D31", "7030A0", "000000", "00B0F0", "BF9000"]
    for k in range(1, players + 1):
        s = Series(tx=SeriesLabel(strRef=StrRef(f"{sheet}!${get_column_letter(1 + k)}$4")),
                   cat=AxDataSource(numRef=NumRef(f=f"{sheet}!{CHART_NAME}_0")),
                   val=NumDataSource(numRef=NumRef(f=f"{sheet}!{CHART_NAME}_{k}")))
        colour = palette[(k - 1) % len(palette)]
        s.smooth = False
        s.marker = Marker(symbol="circle", size=4)
        s.marker.graphicalProperties = GraphicalProperties(solidFill=colour)
        s.marker.graphicalProperties.line.solidFill = colour
        s.graphicalProperties = GraphicalProperties()
        s.graphicalProperties.line.solidFill = colour
        s.graphicalProperties.line.width = 19050
        ch.series.append(s)
    ch.x_axis.delete = False
    ch.y_axis.delete = False
    ch.display_blanks = "gap"
    ws.add_chart(ch, anchor)
