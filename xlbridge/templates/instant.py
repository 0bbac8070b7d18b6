"""instant.xlsx: an instant matchpoint award chart and results scored against it (seed 002).

>>> [s.title for s in build().worksheets]
['Instructions', 'Chart', 'Scoring', 'xlwings.conf']
"""

from __future__ import annotations

from .styling import (
    COMMON_LINES, array, capacity, conf_sheet, headers, instructions, legend, mark_input, new_workbook, param,
    seq_column, seq_row, title)

__all__ = ["build"]


INSTANT_HISTORY = [(980, 4), (800, 3), (480, 8), (450, 26), (420, 115), (400, 6), (-50, 17), (-100, 1)]
INSTANT_RESULTS = [(1, 420), (2, 450), (3, 500), (4, -100), (5, 980), (6, -150), (7, 400)]
I_FIRST, I_ROWS = 5, 200
I_CHART = 2 * I_ROWS + 1
S_FIRST, S_ROWS = 5, 500


def build():
    wb = new_workbook("Instant matchpoints: award chart and scoring")
    instructions(wb, "Instant matchpoints (seed 002, R. Pavlicek)", [
        "What it does: turns a board's historical results (N-S score and how often it occurred) into an "
        "instant matchpoint award chart for every score that can occur, and scores entered results "
        "against that chart.",
        "Sheet Chart: type the historical N-S scores and frequencies and the board's vulnerability. The "
        "chart adds a 'mystery score' (the top rises by one, each historical score gains 1/2 MP, each gap "
        "between scores scores as the mystery score would), drops gaps no legal score can fill (e.g. "
        "+410 between +420 and +400), scales to a 100 top, rounds to whole percent and smooths equal "
        "awards at the bottom (seed 002: 1, 0, 0 -> 2, 1, 0).",
        "Sheet Scoring: one row per result (table or pair, N-S score); the N-S award comes from the chart "
        "(INSTANT_AWARD), E-W gets 100 minus it. N-S and E-W fields are ranked separately.",
    ] + COMMON_LINES)

    ws = wb.create_sheet("Chart")
    title(ws, "Award chart", "Example: seed 002, board 1 (played 180 times; 179 top).")
    hl = I_FIRST + I_ROWS - 1
    headers(ws, 4, 1, ["NS score", "Frequency"], widths=[10, 10])
    for i, (s, f) in enumerate(INSTANT_HISTORY):
        ws.cell(row=I_FIRST + i, column=1, value=s)
        ws.cell(row=I_FIRST + i, column=2, value=f)
    mark_input(ws, f"A{I_FIRST}:A{hl}", kind="whole", operator="between", formula1="-7600", formula2="7600",
           prompt="A historical N-S score")
    mark_input(ws, f"B{I_FIRST}:B{hl}", kind="whole", operator="between", formula1="1", formula2="1000000",
           prompt="How many times it occurred")
    headers(ws, 4, 4, ["Lowest NS", "Highest NS", "Award NS %", "Award EW %"], widths=[10, 10, 10, 10])
    cl = I_FIRST + I_CHART - 1
    array(ws, f"D{I_FIRST}:F{cl}",
           f"=IFERROR(INDEX(INSTANT_MP(A{I_FIRST}:A{hl},B{I_FIRST}:B{hl},$J$5),{seq_column(I_CHART)},"
           f"{seq_row(3)}),\"\")", "0")
    array(ws, f"G{I_FIRST}:G{cl}", f'=IF(F{I_FIRST}:F{cl}="","",100-F{I_FIRST}:F{cl})', "0")
    param(ws, "I5", "J5", "Vulnerability", "None", kind="list", formula1='"None,NS,EW,All"',
           prompt="The board's vulnerability (None, NS, EW, All) or its board number")
    ws.column_dimensions["I"].width = 14
    legend(ws, "I7")
    capacity(ws, f"A{I_FIRST}:B{hl}", "I11", "frequency rows")
    ws.merge_cells("I11:L14")
    ws.freeze_panes = f"A{I_FIRST}"

    ws = wb.create_sheet("Scoring")
    title(ws, "Results scored against the chart", "Example: hypothetical results on seed 002's board.")
    sl = S_FIRST + S_ROWS - 1
    headers(ws, 4, 1, ["Table", "NS score", "Award NS %", "Award EW %"], widths=[8, 10, 11, 11])
    for i, (t, s) in enumerate(INSTANT_RESULTS):
        ws.cell(row=S_FIRST + i, column=1, value=t)
        ws.cell(row=S_FIRST + i, column=2, value=s)
    mark_input(ws, f"A{S_FIRST}:A{sl}", prompt="Table or pair")
    mark_input(ws, f"B{S_FIRST}:B{sl}", kind="whole", operator="between", formula1="-7600", formula2="7600",
           prompt="The N-S score obtained")
    array(ws, f"C{S_FIRST}:C{sl}",
           f"=INSTANT_AWARD(B{S_FIRST}:B{sl},Chart!A{I_FIRST}:A{hl},Chart!B{I_FIRST}:B{hl},Chart!J5)", "0")
    array(ws, f"D{S_FIRST}:D{sl}", f'=IF(ISNUMBER(C{S_FIRST}:C{sl}),100-C{S_FIRST}:C{sl},"")', "0")
    legend(ws, "F4")
    capacity(ws, f"A{S_FIRST}:B{sl}", "F8", "results")
    ws.merge_cells("F8:I11")
    ws.freeze_panes = f"A{S_FIRST}"

    conf_sheet(wb)
    return wb
