"""handicap.xlsx: Form-L handicaps, new teams and the fairness test (seed 000).

>>> [s.title for s in build().worksheets]
['Instructions', 'Handicaps', 'NewTeams', 'Results', 'Fairness', 'xlwings.conf']
"""

from __future__ import annotations

from openpyxl import Workbook
from openpyxl.styles import Alignment
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.pagebreak import Break

from .mirror import headroom
from .styling import (handout, align_headers, COMMON_LINES, align, array, bold, computed, conf_sheet, event_details, headers, input_table, instructions,
                      legend, legend_across, mark_input, new_workbook, param, seq_column, seq_row, sheet, style, table_head)

__all__ = ["build"]


# Table 1 of seed 000 (division, team, divisional Average VPs 2013-14)
TABLE1 = [
    (1, "Eroes", 14.0), (1, "Discards", 14.0), (1, "Gambits", 13.4), (1, "Dragons", 10.0),
    (1, "Diamonds", 5.3), (1, "JCBC", 3.3),
    (2, "Rabbits", 11.5), (2, "Royals", 10.6), (2, "Cavaliers", 10.1), (2, "Rebels", 10.0),
    (2, "Clubs", 9.9), (2, "Imps", 7.9),
    (3, "Donuts", 17.0), (3, "United", 15.3), (3, "Dream", 8.9), (3, "Jokers", 8.3), (3, "Lambs", 7.7),
    (3, "Pioneers", 2.8),
]

# observed fairness results of seed 000 (label, wins, matches)
OBSERVED = [
    ("Handicap matches, 4 years to 2013-14 (existing system; the higher-ranking team won only 19)", 37, 56),
    ("Divisional 2013-14 with existing handicaps", 34, 87),
    ("Divisional 2013-14 with Form-L handicaps", 44, 88),
    ("Divisional 2014-15 (Form-L in force)", 39, 80),
    ("Divisional 2013-14 and 2014-15 combined", 83, 168),
    ("Handicap tournament 2014-15", 6, 12),
]

# hypothetical new-team matches (this season's divisional results up to the end of the year)
NEW_TEAM_MATCHES = [
    ("Knights", "Eroes", 8, 12),
    ("Knights", "Rabbits", 11, 9),
    ("Knights", "Aces", 13, 7),
    ("Aces", "Donuts", 10, 10),
    ("Aces", "Dream", 12, 8),
]

# hypothetical matches of a season (team A, team B, IMPs A, IMPs B, typed handicap A, typed handicap B):
# a handicapped draw, equal handicaps, a new team, a visiting team with typed handicaps, a match not played yet
SEASON_MATCHES = [
    ("Eroes", "Pioneers", 95, 10, None, None),
    ("Discards", "Dream", 88, 20, None, None),
    ("Gambits", "Rabbits", 70, 30, None, None),
    ("Cavaliers", "Donuts", 45, 52, None, None),
    ("Dragons", "Imps", 60, 32, None, None),
    ("Knights", "Royals", 31, 40, None, None),
    ("Visitors", "United", 30, 41, 50, None),
    ("Jokers", "Diamonds", None, None, None, None),
]

H_FIRST, H_ROWS = 5, 500  # Handicaps!A5:A504: 500 teams
N_FIRST, N_ROWS = 5, 200  # NewTeams match rows
N_OUT = 40  # new teams listed
R_FIRST, R_ROWS = 5, 1_000  # Results!A5:F1004: 1,000 matches
F_FIRST, F_MAX_N = 5, 200  # Fairness!A5:A204: n = 1..200
F_OBS = 20  # observed results rows
F_PAGE = 40  # matches (rows of the band table) a printed page
FAIRNESS_TAILS = (0.25, 0.10, 0.01)


def _handicaps_sheet(wb: Workbook) -> None:
    """The Handicaps sheet: seed 000's Table 1 and the Form-L handicaps of each division."""
    ws = sheet(wb, "Handicaps", "Form-L handicaps from the previous season's divisional Average VPs",
           "Example: seed 000, Table 1 (2013-14). Handicap IMPs of Lambs: the seed prints 77, the correct value is 79.")
    last = table_head(ws, H_FIRST, H_ROWS, TABLE1,
        ["Division", "Team", "Average VPs", "Expected VP Diff", "Merged VP Diff",
         "Handicap IMPs", "Legacy Handicap IMPs"],
        [10, 16, 10, 11, 11, 10, 15])
    align_headers(ws, 4, 1, "rlrrrrr")
    mark_input(ws, f"A{H_FIRST}:A{last}", kind="whole", operator="between", formula1="1", formula2="20",
           prompt="Division: 1 for the top division, 2, 3, ...")
    mark_input(ws, f"B{H_FIRST}:B{last}", kind="textLength", operator="between", formula1="1", formula2="60",
           prompt="Team name")
    mark_input(ws, f"C{H_FIRST}:C{last}", kind="decimal", operator="between", formula1="0", formula2="100",
           prompt="Average VPs in last season's divisional matches", number_format="0.0")
    A, C = f"A{H_FIRST}:A{last}", f"C{H_FIRST}:C{last}"
    array(ws, f"D{H_FIRST}:D{last}", f"=FORML_VPDIFF({A},{C},FALSE,$J$6)", "0.00")
    array(ws, f"E{H_FIRST}:E{last}", f"=FORML_VPDIFF({A},{C},TRUE,$J$6)", "0.00")
    array(ws, f"F{H_FIRST}:F{last}", f"=FORML_HANDICAP({A},{C},$J$5,$J$6)", "0")
    array(ws, f"G{H_FIRST}:G{last}", f"=LEGACY_HANDICAP({A},{C},$J$7)", "0")

    ws["I4"] = "Parameters"
    ws["I4"].font = bold()
    param(ws, "I5", "J5", "IMPs per VP", 2.75, kind="decimal", operator="greaterThan", formula1="0",
           prompt="Handicap IMPs per Merged VP Diff (seed 000: 2.75, a 20-0 win = 55 IMPs)")
    param(ws, "I6", "J6", "Overlap (ranks)", 2, kind="whole", operator="between", formula1="1", formula2="10",
           prompt="A lower division's top team sits between the overlap-th and (overlap+1)-th lowest above")
    param(ws, "I7", "J7", "Legacy step (IMPs)", 6, kind="whole", operator="between", formula1="1",
           formula2="50", prompt="Legacy system: IMPs between consecutive ranks within a division")
    ws.column_dimensions["I"].width = 18
    legend(ws, "I9")

    # the seed's Range rows, as a summary beside the table (standard Excel functions only)
    ws["I13"] = "Division summary (the seed's Range rows)"
    ws["I13"].font = bold()
    headers(ws, 14, 9, ["Division", "Teams", "Range of Average VPs"])
    # one line: row 14 is also a row of the teams' table (two lines would open a gap in it), over its values
    ws.column_dimensions["K"].width = 22
    align_headers(ws, 14, 9, "rrr")
    for k in range(1, 7):
        r = 14 + k
        ws.cell(row=r, column=9, value=k)
        ws.cell(row=r, column=10, value=f'=IF(COUNTIF($A${H_FIRST}:$A${last},I{r})=0,"",'
                                        f'COUNTIF($A${H_FIRST}:$A${last},I{r}))')
        avg, div = f"$C${H_FIRST}:$C${last}", f"$A${H_FIRST}:$A${last}"
        ws.cell(row=r, column=11, value=f'=IF(J{r}="","",_xlfn.MAXIFS({avg},{div},I{r})'
                                        f'-_xlfn.MINIFS({avg},{div},I{r}))')
    mark_input(ws, "I15:I20", kind="whole", operator="between", formula1="1", formula2="20",
           prompt="A division number to summarise")
    computed(ws, "J15:J20")
    computed(ws, "K15:K20", "0.0")
    input_table(ws, f"A{H_FIRST}:C{last}", "I22", "teams", note_width=3)
    event_details(ws, "I27", width=12, published=False)  # (the league's name, season, club and scorer: on screen and on paper)

    # new teams


def _new_teams_sheet(wb: Workbook) -> tuple[int, int]:
    """The NewTeams sheet: the matches of new teams and FORML_NEWTEAMS; returns the last rows of the Handicaps table
    and of the new teams' handicaps (which the Results sheet looks up)."""
    ws = sheet(wb, "NewTeams", "Handicaps for new teams from this season's matches",
           "Example: hypothetical matches. One row per match played by a new team; known teams and their Merged "
           "VP Diffs come from the Handicaps sheet.")
    nl = table_head(ws, N_FIRST, N_ROWS, NEW_TEAM_MATCHES,
        ["Team", "Opponent", "VPs for", "VPs against"],
        [16, 16, 9, 9])
    align_headers(ws, 4, 1, "llrr")
    mark_input(ws, f"A{N_FIRST}:B{nl}", kind="textLength", operator="between", formula1="1", formula2="60",
           prompt="Team names exactly as on the Handicaps sheet (a new team is any team not listed there)")
    mark_input(ws, f"C{N_FIRST}:D{nl}", kind="decimal", operator="between", formula1="0", formula2="100",
           prompt="Victory points of the team (VPs for) and of its opponent (VPs against)")
    headers(ws, 4, 6, ["New team", "Handicap IMPs"], widths=[16, 10])
    align_headers(ws, 4, 6, "lr")
    ol = N_FIRST + N_OUT - 1
    hl = H_FIRST + H_ROWS - 1
    array(ws, f"F{N_FIRST}:G{ol}",
           f"=IFERROR(INDEX(FORML_NEWTEAMS(A{N_FIRST}:A{nl},B{N_FIRST}:B{nl},C{N_FIRST}:C{nl},D{N_FIRST}:D{nl},"
           f"Handicaps!B{H_FIRST}:B{hl},Handicaps!E{H_FIRST}:E{hl},Handicaps!J5),"
           f"{seq_column(N_OUT)},{seq_row(2)}),\"\")", "0")
    align(ws, f"F{N_FIRST}:F{ol}", "left", 1)  # (the new team's name apart from the VPs against)
    input_table(ws, f"A{N_FIRST}:D{nl}", "I8", "new teams", legend_at="I4", freeze=False)

    # results of the season
    return hl, ol


def _results_sheet(wb: Workbook, hl: int, ol: int) -> None:
    """The Results sheet: the season's matches with their handicaps (``hl``, ``ol``: the Handicaps table's and the new
    teams' last rows)."""
    ws = sheet(wb, "Results", "Results of the season, with handicaps",
          "Example: hypothetical matches between the Table 1 teams, a new team (Knights) and a visiting team "
          "with a typed handicap.")
    rl = table_head(ws, R_FIRST, R_ROWS, SEASON_MATCHES,
        ["Team A", "Team B", "IMPs A", "IMPs B", "Typed handicap A", "Typed handicap B",
         "Handicap A", "Handicap B", "Handicapped IMPs A", "Handicapped IMPs B", "Winner",
         "Higher-handicap team"],
        [12, 12, 8, 8, 10, 10, 10, 10, 12, 12, 12, 16])  # (with the summary beside it: one page wide at 61 %)
    align_headers(ws, 4, 1, "llrrrrrrrrll")
    mark_input(ws, f"A{R_FIRST}:B{rl}", kind="textLength", operator="between", formula1="1", formula2="60",
               prompt="Team names exactly as on the Handicaps (or NewTeams) sheet")
    mark_input(ws, f"C{R_FIRST}:D{rl}", kind="decimal", operator="between", formula1="-1000", formula2="1000",
               prompt="IMPs scored at the table by team A and by team B, before the handicap (blank: not played yet)")
    mark_input(ws, f"E{R_FIRST}:F{rl}", kind="decimal", operator="between", formula1="0", formula2="1000",
               prompt="Optional: a handicap for this match instead of the Handicaps sheet's (e.g. a visiting team)")
    col = lambda c: f"{c}{R_FIRST}:{c}{rl}"  # noqa: E731
    array(ws, f"G{R_FIRST}:L{rl}",
          f"=IFERROR(INDEX(HANDICAP_MATCHES({col('A')},{col('B')},{col('C')},{col('D')},"
          f"Handicaps!B{H_FIRST}:B{hl},Handicaps!F{H_FIRST}:F{hl},{col('E')},{col('F')},"
          f"NewTeams!F{N_FIRST}:G{ol}),{seq_column(1 + R_ROWS + headroom(R_ROWS))},{seq_row(6)}),\"\")")
    # (its rows from the table's header row down, as the ranges it reads: xlbridge.templates.mirror)
    align(ws, f"K{R_FIRST}:L{rl}", "left", 1)  # (the winner's name apart from the IMPs: never "111 Pioneers")
    ws["N4"] = "Higher-handicap team"
    ws["N4"].font = bold()
    ws.column_dimensions["N"].width = 26
    summary = [("won", "Won"), ("lost", "Lost"), ("draw", "Drew (left out)"), ("equal handicaps", "Equal handicaps (left out)")]
    for k, (key, label) in enumerate(summary):
        ws.cell(row=5 + k, column=14, value=label)
        ws.cell(row=5 + k, column=15, value=f'=COUNTIF($L${R_FIRST}:$L${rl},"{key}")')
    computed(ws, "O5:O8", "0")
    # the summary, legend and note over N:O beside a narrow gap (M), so that the sheet prints one page wide
    ws.column_dimensions["M"].width = 1
    input_table(ws, f"A{R_FIRST}:F{rl}", "N14", "matches", note_width=2)
    legend_across(ws, "N10", [26, 10])

    # fairness


def _fairness_sheet(wb: Workbook) -> None:
    """The Fairness sheet: the binomial bands and the observed results, with their chart."""
    ws = sheet(wb, "Fairness", "Fairness of the handicaps: binomial bands and observed results",
           "Wins of the higher-handicap team in n matches between teams with different handicaps "
           "(draws excluded). Under fair handicaps: Binomial(n, 1/2).")
    fl = F_FIRST + F_MAX_N - 1
    # Printed (issue 40): the band table (A:H) and the observed results with their chart (J:N) are two columns
    # of pages (a manual column break after I): the bands on pages of 40 matches each, then one page of the
    # legend, the observed results and the chart below them, whole; no page repeats a header over empty cells.
    # The widths keep A:N within one landscape page at 62 % (print_setup scales to the total width, and repeats
    # the first column only below 60 %: not here, where it would stand beside the observed results).
    ws.merge_cells("A2:I2")  # (the note wraps within the bands' pages)
    ws["A2"].alignment = Alignment(wrap_text=True, vertical="top")
    ws.row_dimensions[2].height = 30
    ws["A3"] = "Tail excluded at each end:"
    ws["A3"].alignment = Alignment(wrap_text=True, vertical="top")
    ws.row_dimensions[3].height = 30
    headers(ws, 4, 1, ["Matches", "Low 25 %", "High 25 %", "Low 10 %", "High 10 %", "Low 1 %", "High 1 %",
                        "Expected (n/2)"], widths=[12, 11, 11, 11, 11, 11, 11, 10])
    align_headers(ws, 4, 1, "rrrrrrrr")
    ws.column_dimensions["I"].width = 2
    for j, t in enumerate(FAIRNESS_TAILS):
        ws.cell(row=3, column=2 + 2 * j, value=t)
        mark_input(ws, ws.cell(row=3, column=2 + 2 * j).coordinate, kind="decimal", operator="between",
               formula1="0", formula2="0.5", prompt="Share of outcomes excluded at EACH end of the band",
               number_format="0%")
    for n in range(1, F_MAX_N + 1):
        ws.cell(row=F_FIRST + n - 1, column=1, value=n)
    mark_input(ws, f"A{F_FIRST}:A{fl}", kind="whole", operator="between", formula1="1", formula2="100000",
           prompt="Number of matches")

    for j in range(3):  # one FAIRNESS_BAND array call per band (a column of n -> n x 2)
        c0, c1 = get_column_letter(2 + 2 * j), get_column_letter(3 + 2 * j)
        array(ws, f"{c0}{F_FIRST}:{c1}{fl}", f"=FAIRNESS_BAND(A{F_FIRST}:A{fl},{c0}$3)")
    array(ws, f"H{F_FIRST}:H{fl}", f"=A{F_FIRST}:A{fl}/2")

    headers(ws, 4, 10, ["Observed result", "Wins", "Matches", "P(X <= wins)", "P(X >= wins)"],
             widths=[40, 7, 9, 10, 10])
    align_headers(ws, 4, 10, "lrrrr")
    ol = F_FIRST + F_OBS - 1
    # the first row: this season, counted from the Results sheet (blank until a match is decided)
    ws.cell(row=F_FIRST, column=10, value="This season (sheet Results; draws and equal handicaps left out)")
    ws.cell(row=F_FIRST, column=11, value='=IF(Results!O5+Results!O6=0,"",Results!O5)')
    ws.cell(row=F_FIRST, column=12, value='=IF(Results!O5+Results!O6=0,"",Results!O5+Results!O6)')
    computed(ws, f"J{F_FIRST}:L{F_FIRST}")
    for i, (label, w, n) in enumerate(OBSERVED, start=1):
        ws.cell(row=F_FIRST + i, column=10, value=label)
        ws.cell(row=F_FIRST + i, column=11, value=w)
        ws.cell(row=F_FIRST + i, column=12, value=n)
    mark_input(ws, f"J{F_FIRST + 1}:J{ol}", prompt="What the result is (free text)")
    mark_input(ws, f"K{F_FIRST + 1}:L{ol}", kind="whole", operator="between", formula1="0", formula2="100000",
           prompt="Wins of the higher-handicap team, and matches played (draws excluded)")
    array(ws, f"M{F_FIRST}:M{ol}", f"=FAIRNESS(K{F_FIRST}:K{ol},L{F_FIRST}:L{ol})", "0.0000")
    # the upper tail, P(X >= wins): small when the higher-handicap team wins too often (exact in the core)
    array(ws, f"N{F_FIRST}:N{ol}", f"=FAIRNESS(K{F_FIRST}:K{ol},L{F_FIRST}:L{ol},TRUE)", "0.0000")
    # a long label wraps within its row (LibreOffice does not grow the rows of an .xlsx): two lines each
    style(ws, f"J{F_FIRST}:J{ol}", None, alignment=Alignment(horizontal="left", indent=1, wrap_text=True))
    for r in range(F_FIRST, ol + 1):
        if len(str(ws.cell(row=r, column=10).value or "")) > 46:
            ws.row_dimensions[r].height = 30
    legend(ws, "J1")  # (above the observed results: the chart below them fills their page)
    _fairness_chart(ws, fl, ol)
    ws.freeze_panes = f"A{F_FIRST}"
    for r in range(F_FIRST - 1 + F_PAGE, fl, F_PAGE):  # the bands: 40 matches a page, the last page full too
        ws.row_breaks.append(Break(id=r))
    ws.col_breaks.append(Break(id=9, max=1_048_575))  # the observed results and chart (J:N): a page of their own


def build() -> Workbook:
    wb = new_workbook("Form-L handicaps")
    instructions(wb, "League handicaps (Form-L) and their fairness", [
        "What it does: the Form-L handicaps of a league (the Rugby and District Bridge League's system) "
        "from last season's divisional averages, handicaps for new teams, the season's handicapped "
        "results and a check that the handicaps are fair.",
        "Sheet Handicaps, one row per team: Division (1 = top), Team, Average VPs; beside it the "
        "parameters (IMPs per VP, overlap, legacy step) and the league's Event, Date, Club and Scorer (for the "
        "printouts). Out: each team's VP differences, handicap in IMPs "
        "and, for comparison, the legacy handicap; a summary of each division.",
        "Sheet NewTeams, one row per match a new team played: Team, Opponent, VPs for and against. Out: "
        "each new team's handicap.",
        "Sheet Results, one row per match: Team A, Team B and the IMPs each scored; a typed handicap "
        "replaces the table's for that match. Out: both handicaps, the handicapped scores and what the "
        "higher-handicap team did (won, lost, draw); beside it the counts.",
        "Sheet Fairness: how often the higher-handicap team won, against the range fair handicaps give.",
    ] + COMMON_LINES)
    _handicaps_sheet(wb)
    hl, ol = _new_teams_sheet(wb)
    _results_sheet(wb, hl, ol)
    _fairness_sheet(wb)
    handout(wb, ["Handicaps", "Results", "NewTeams", "Fairness"])  # (the members' handout)
    conf_sheet(wb)
    return wb


def _fairness_chart(ws, fl, ol):
    from openpyxl.chart import Reference, ScatterChart, Series
    from openpyxl.chart.marker import Marker
    from openpyxl.drawing.spreadsheet_drawing import AnchorMarker, OneCellAnchor
    from openpyxl.drawing.text import CharacterProperties, ParagraphProperties
    from openpyxl.drawing.xdr import XDRPositiveSize2D
    from openpyxl.utils.units import cm_to_EMU

    ch = ScatterChart()
    ch.title = "Wins of the higher-handicap team: bands under fair handicaps"
    bold12 = CharacterProperties(sz=1200, b=True)  # (12 pt, not the default 18: room for the plot)
    for para in ch.title.tx.rich.p:
        para.pPr = ParagraphProperties(defRPr=bold12)
        for run in para.r or []:
            run.rPr = bold12
    ch.style = 13
    ch.x_axis.title = "Matches"
    ch.y_axis.title = "Wins"
    # under the observed results (J26), within J:M and above row 44 (the first page break): one page, whole
    ch.height, ch.width = 9.5, 15.5
    x = Reference(ws, min_col=1, min_row=F_FIRST, max_row=fl)
    colours = {2: "4472C4", 3: "4472C4", 4: "70AD47", 5: "70AD47", 6: "ED7D31", 7: "ED7D31", 8: "000000"}
    for col in range(2, 9):
        y = Reference(ws, min_col=col, min_row=4, max_row=fl)
        s = Series(y, x, title_from_data=True)
        s.marker = Marker(symbol="none")
        s.smooth = False
        s.graphicalProperties.line.solidFill = colours[col]
        s.graphicalProperties.line.width = 15875
        ch.series.append(s)
    xo = Reference(ws, min_col=12, min_row=F_FIRST, max_row=ol)
    yo = Reference(ws, min_col=11, min_row=F_FIRST, max_row=ol)
    s = Series(yo, xo, title="Observed results")
    s.marker = Marker(symbol="x", size=9)
    s.marker.graphicalProperties.line.solidFill = "C00000"
    s.graphicalProperties.line.noFill = True
    ch.series.append(s)
    ch.x_axis.scaling.min = 0
    ch.y_axis.scaling.min = 0
    ch.x_axis.delete = False
    ch.y_axis.delete = False
    # a step right of J's left edge: the bands' pages end there, and LibreOffice prints the chart's border on both
    ws.add_chart(ch, OneCellAnchor(_from=AnchorMarker(col=9, colOff=cm_to_EMU(0.2), row=ol + 1),
                                   ext=XDRPositiveSize2D(cm_to_EMU(ch.width), cm_to_EMU(ch.height))))
