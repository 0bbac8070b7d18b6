"""lehman.xlsx: a weekly Lehman ratings ledger, standard and modified (seed 003).

>>> [s.title for s in build().worksheets]
['Instructions', 'Ledger', 'Example', 'xlwings.conf']
"""

from __future__ import annotations

from .styling import (
    COMMON_LINES, array, capacity, bold, computed, conf_sheet, headers, instructions, legend, mark_input,
    new_workbook, param, seq_column, seq_row, title)

__all__ = ["build"]


# a small ledger: (week, north, south, east, west, N-S %)
LEDGER = [
    (1, "Newbie", "Spider", "Ann", "Bob", 42.0),
    (1, "Newbie", "Spider", "Cal", "Dee", 38.5),
    (1, "Ann", "Bob", "Cal", "Dee", 55.0),
    (1, "Newbie", "Spider", "Ann", "Cal", 46.0),
    (2, "Newbie", "Spider", "Bob", "Dee", 40.0),
    (2, "Ann", "Cal", "Bob", "Dee", 51.5),
    (2, "Newbie", "Spider", "Ann", "Bob", 44.0),
    (3, "Spider", "Ann", "Newbie", "Bob", 57.0),
    (3, "Newbie", "Cal", "Dee", "Spider", 39.0),
]
L_FIRST, L_ROWS = 5, 10_000
P_ROWS = 400


def build():
    wb = new_workbook("Lehman ratings ledger")
    instructions(wb, "Lehman ratings: a weekly ledger, standard and modified (seed 003)", [
        "What it does: keeps Lehman ratings from weekly results. Sheet Ledger: one row per board or set of "
        "boards: Week, the four players (North, South, East, West) and the N-S percentage. The ratings "
        "after the last week are shown twice side by side: the standard Lehman formula and R. Hillyard's "
        "error-bound modification (seed 003), with each player's history (boards, decayed 6.7 % a week) "
        "and error bound 1/sqrt(history - 1) (100 % below 2 boards). New players start at 50.",
        "The weekly combination rule is not in a primary source we could find; xlbridge uses "
        "R_new = (H x R_old + sum of pseudo-ratings) / (H + boards this week), then H = (H + boards) x "
        "(1 - decay) (see the xlbridge Lehman docs). Decay is an input.",
        "Sheet Example: seed 003's worked example. The seating that reproduces the seed is North = the "
        "novice rated 50, South = the intermediate rated 45 (ERRATA.md); the modified figures need the "
        "novice at error 100 %, South at about 1,000 boards of history, E and W with equal error bounds.",
    ] + COMMON_LINES)

    ws = wb.create_sheet("Ledger")
    title(ws, "Ratings ledger", "Example: hypothetical results; the newcomer 'Newbie' plays with 'Spider'.")
    ll = L_FIRST + L_ROWS - 1
    headers(ws, 4, 1, ["Week", "North", "South", "East", "West", "NS %"], widths=[7, 12, 12, 12, 12, 8])
    for i, row in enumerate(LEDGER):
        for j, v in enumerate(row, start=1):
            ws.cell(row=L_FIRST + i, column=j, value=v)
    mark_input(ws, f"A{L_FIRST}:A{ll}", kind="whole", operator="between", formula1="1", formula2="100000",
           prompt="Week number (ratings are combined week by week, in order)")
    mark_input(ws, f"B{L_FIRST}:E{L_ROWS + L_FIRST - 1}", kind="textLength", operator="between", formula1="1",
           formula2="60", prompt="Player name")
    mark_input(ws, f"F{L_FIRST}:F{ll}", kind="decimal", operator="between", formula1="0", formula2="100",
           prompt="N-S score in percent (matchpoints, or IMPs converted to a percentage)", number_format="0.00")
    args = (f"A{L_FIRST}:A{ll},B{L_FIRST}:B{ll},C{L_FIRST}:C{ll},D{L_FIRST}:D{ll},E{L_FIRST}:E{ll},"
            f"F{L_FIRST}:F{ll}")
    pl = L_FIRST + P_ROWS - 1
    ws["H3"] = "Standard Lehman"
    ws["M3"] = "Modified Lehman (error bounds)"
    ws["H3"].font = ws["M3"].font = bold()
    headers(ws, 4, 8, ["Player", "Rating", "History boards", "Error bound"], widths=[12, 8, 9, 8])
    headers(ws, 4, 13, ["Player", "Rating", "History boards", "Error bound"], widths=[12, 8, 9, 8])
    array(ws, f"H{L_FIRST}:K{pl}", f'=IFERROR(INDEX(LEHMAN_LEDGER({args},"standard",$S$5),'
                                    f'{seq_column(P_ROWS)},{seq_row(4)}),"")', "0.00")
    array(ws, f"M{L_FIRST}:P{pl}", f'=IFERROR(INDEX(LEHMAN_LEDGER({args},"modified",$S$5),'
                                    f'{seq_column(P_ROWS)},{seq_row(4)}),"")', "0.00")
    param(ws, "R5", "S5", "Decay per week", 0.067, kind="decimal", operator="between", formula1="0",
           formula2="1", prompt="Share of the history count lost each week (OKBridge: 6.7 %)", number_format="0.0%")
    ws.column_dimensions["R"].width = 16
    legend(ws, "R7")
    capacity(ws, f"A{L_FIRST}:F{ll}", "R11", "results")
    ws.merge_cells("R11:U14")
    ws.freeze_panes = f"A{L_FIRST}"

    ws = wb.create_sheet("Example")
    title(ws, "Seed 003's worked example: one board scored 42 % by N-S",
           "North: the novice (rating 50, no history); South: intermediate rated 45 with about 1,000 boards; "
           "East and West rated 45.")
    headers(ws, 4, 1, ["", "North", "South", "East", "West"], widths=[34, 10, 10, 10, 10])
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
    ws["B9"] = "=LEHMAN_PREDICT(B5:E5)"
    computed(ws, "B9", "0.00")
    ws["A11"] = "Standard: rating change (LEHMAN_DELTA)"
    array(ws, "B11:E11", "=LEHMAN_DELTA(B5:E5,B8)", "0.00")
    ws["A12"] = "Standard: pseudo-rating"
    array(ws, "B12:E12", "=B5:E5+B11:E11", "0.00")
    ws["A13"] = "Modified: rating change (LEHMAN_DELTA with errors)"
    array(ws, "B13:E13", "=LEHMAN_DELTA(B5:E5,B8,B7:E7)", "0.00")
    ws["A14"] = "Modified: pseudo-rating"
    array(ws, "B14:E14", "=B5:E5+B13:E13", "0.00")
    ws["A16"] = "Seed 003 prints: standard N 40.89, S 36.81, E/W 53.65; modified N 30.53, S 44.45, E/W 55.01."
    legend(ws, "G4")

    conf_sheet(wb)
    return wb
