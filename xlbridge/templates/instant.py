"""instant.xlsx: an instant-matchpoint event of many boards, each scored from its own award chart (seed 002).

>>> [s.title for s in build().worksheets]
['Instructions', 'Results', 'History', 'Chart', 'xlwings.conf']
"""

from __future__ import annotations

from openpyxl import Workbook

from .styling import (handout, align_headers, COMMON_LINES, align, array, conf_sheet, event_details, headers, input_table, instructions, legend, mark_input,
                      new_workbook, param, seq_column, seq_row, sheet, table_head)

__all__ = ["build"]


#: (board, N-S score, frequency): board 1 is seed 002's (played 180 times); board 2 (N-S vulnerable)
#: is a hypothetical ten-result history
HISTORY = [(1, 980, 4), (1, 800, 3), (1, 480, 8), (1, 450, 26), (1, 420, 115), (1, 400, 6), (1, -50, 17),
           (1, -100, 1), (2, 620, 3), (2, 170, 4), (2, -100, 3)]
#: (board, N-S pair, E-W pair, N-S score): hypothetical results of seven tables on the two boards
RESULTS = [(1, t, 10 + t, s) for t, s in zip(range(1, 8), (420, 450, 500, -100, 980, -150, 400))] + [
    (2, t, 10 + t, s) for t, s in zip(range(1, 8), (650, 620, 170, -100, 140, "A60/40", "NP"))]
H_FIRST, H_ROWS = 5, 5_000
C_ROWS = 2 * 200 + 1  # a chart of up to 200 distinct historical scores: 401 rows with its gaps
R_FIRST, R_ROWS = 5, 10_000


#: The Results sheet's headers and column widths.
RESULT_COLUMNS = (["Board", "NS pair", "EW pair", "NS score", "Award NS %", "Award EW %"], [8, 10, 10, 10, 13, 13])

def build() -> Workbook:
    """The instant-matchpoints workbook: its Instructions, Results, History and Chart sheets, the handout."""
    wb = new_workbook("Instant matchpoints: many boards scored from their award charts")
    _instructions(wb)
    _results_sheet(wb)
    hl = _history_sheet(wb)
    _chart_sheet(wb, hl)
    handout(wb, ["Results", "History", "Chart"])  # (the members' handout: the results first)
    conf_sheet(wb)
    return wb


def _instructions(wb: Workbook) -> None:
    """The Instructions sheet: what the workbook does, sheet by sheet."""
    instructions(wb, "Instant matchpoints: each result scored from its board's chart", [
        "What it does: scores an instant-matchpoint event: each board has an award chart made from the "
        "board's past results, and each result typed in gets its award from it (N-S in percent, E-W 100 "
        "minus it).",
        "Sheet History, one row per past score: Board, N-S score and how often it was scored (Frequency).",
        "Sheet Results, one row per result: Board, N-S pair, E-W pair, N-S score (A60/40 for an adjusted "
        "score, NP for not played). Out: Award NS % and Award EW % beside each result. Beside the table: the event's Event, Date, Club "
        "and Scorer (for the printouts).",
        "Sheet Chart: type a board number in G5 to see and print that board's chart.",
        "This workbook does not rank the pairs (the N-S and E-W fields are ranked separately): add up a "
        "pair's awards with SUMIF (N-S pairs over Award NS %, E-W pairs over Award EW %).",
    ] + COMMON_LINES)


def _results_sheet(wb: Workbook) -> None:
    """The Results sheet: one row per result, its awards from its board's chart (``INSTANT_RESULTS``)."""
    ws = sheet(wb, "Results", "Results scored from the award charts",
               "Example: hypothetical results of seven tables on seed 002's board 1 and a board 2.")
    rl = table_head(ws, R_FIRST, R_ROWS, RESULTS, *RESULT_COLUMNS)
    align_headers(ws, 4, 1, "rccrrr")
    mark_input(ws, f"A{R_FIRST}:A{rl}", kind="whole", operator="greaterThanOrEqual", formula1="1",
               prompt="The board number (it gives the board's chart and vulnerability)")
    mark_input(ws, f"B{R_FIRST}:B{rl}", prompt="The N-S pair (for your totals; not used by the award)")
    mark_input(ws, f"C{R_FIRST}:C{rl}", prompt="The E-W pair (for your totals; not used by the award)")
    mark_input(ws, f"D{R_FIRST}:D{rl}", prompt="The N-S score: a number (420, -50), A60/40 (artificial) or NP")
    # printed apart: a pair (number or name) centred, every score right-aligned as a number (never "16A60/40")
    align(ws, f"B{R_FIRST}:C{rl}", "center")
    align(ws, f"D{R_FIRST}:D{rl}", "right")
    array(ws, f"E{R_FIRST}:F{rl}",
          f"=INSTANT_RESULTS(A{R_FIRST}:A{rl},D{R_FIRST}:D{rl},History!A{H_FIRST}:A{H_FIRST + H_ROWS - 1},"
          f"History!B{H_FIRST}:B{H_FIRST + H_ROWS - 1},History!C{H_FIRST}:C{H_FIRST + H_ROWS - 1})", "0")
    input_table(ws, f"A{R_FIRST}:D{rl}", "H8", "results", legend_at="H4")
    event_details(ws, "H13", width=12, published=False)  # (the event's name, date, club and scorer: on screen and on paper)


def _history_sheet(wb: Workbook) -> int:
    """The History sheet: one row per past score of a board and its frequency; returns the table's last row."""
    ws = sheet(wb, "History", "Historical results of every board",
               "Example: seed 002's board 1 (played 180 times) and a board 2.")
    hl = table_head(ws, H_FIRST, H_ROWS, HISTORY,
        ["Board", "NS score", "Frequency"],
        [8, 11, 12])
    align_headers(ws, 4, 1, "rrr")
    mark_input(ws, f"A{H_FIRST}:A{hl}", kind="whole", operator="greaterThanOrEqual", formula1="1",
               prompt="The board number")
    mark_input(ws, f"B{H_FIRST}:B{hl}", kind="whole", operator="between", formula1="-7600", formula2="7600",
               prompt="A historical N-S score of the board")
    mark_input(ws, f"C{H_FIRST}:C{hl}", kind="whole", operator="between", formula1="1", formula2="1000000",
               prompt="How many times it occurred")
    input_table(ws, f"A{H_FIRST}:C{hl}", "E8", "historical scores", legend_at="E4")
    return hl


def _chart_sheet(wb: Workbook, hl: int) -> None:
    """The Chart sheet: the award chart of the board typed in G5 (``INSTANT_MP`` of its History rows, ``hl`` the
    History table's last row)."""
    ws = sheet(wb, "Chart", "Award chart of one board", "Type a board number in G5: its chart, from the History sheet.")
    cl = H_FIRST + C_ROWS - 1
    headers(ws, 4, 1, ["Lowest NS", "Highest NS", "Award NS %", "Award EW %"], widths=[13, 13, 14, 14])
    align_headers(ws, 4, 1, "rrrr")
    mine = f"History!$A${H_FIRST}:$A${hl}=$G$5"
    array(ws, f"A{H_FIRST}:C{cl}",
          f"=IFERROR(INDEX(INSTANT_MP(IF({mine},History!$B${H_FIRST}:$B${hl},\"\"),"
          f"IF({mine},History!$C${H_FIRST}:$C${hl},\"\"),$G$5),{seq_column(C_ROWS)},{seq_row(3)}),\"\")", "0")
    array(ws, f"D{H_FIRST}:D{cl}", f'=IF(C{H_FIRST}:C{cl}="","",100-C{H_FIRST}:C{cl})', "0")
    param(ws, "F5", "G5", "Board", 1, kind="whole", operator="greaterThanOrEqual", formula1="1",
          prompt="The board whose chart to show (its number also gives its vulnerability)")
    legend(ws, "F7")
    ws.freeze_panes = f"A{H_FIRST}"
