"""Build the five template workbooks (handicap, pairs, teams, instant, lehman) from code.

The templates in ``workbooks/`` are generated here and nowhere else: ``build_all(out_dir)``
writes them, ``check_all(dir)`` lists every difference between the files in ``dir`` and a fresh
build (the ``xlbridge templates [--out DIR] [--check]`` command calls these two).

Each template holds the seed's example data, marks its inputs (yellow fill, a data validation
with an input message, and a legend on the sheet), computes with ONE legacy array formula
(``<f t="array" ref="...">``) per result column or table, calling the xlbridge Excel functions
(``xlbridge.udfs``, see ``/shared/UDFS.md``), and has an ``Instructions`` sheet and an
``xlwings.conf`` sheet (A1 ``UDF Modules``, B1 ``xlbridge.udfs``).

Determinism: the workbook properties (creator, created, modified) are fixed and the zip is
re-packed with fixed member timestamps, so two builds with the same openpyxl are byte-identical.
``check_all`` does NOT compare bytes (that would break on another openpyxl version); it
compares a canonical dump (:func:`canonical_dump`) of every sheet's cells, formulas, styles,
data validations, merged cells, column widths, defined names, charts and the document properties.

This module imports openpyxl and is never imported by the core (``import xlbridge``).

>>> sorted(TEMPLATES)
['handicap.xlsx', 'instant.xlsx', 'lehman.xlsx', 'pairs.xlsx', 'teams.xlsx']
>>> seq_column(3)
'{1;2;3}'
"""

from __future__ import annotations

import datetime as _dt
import difflib
import functools
import io
import os
import zipfile
from pathlib import Path

__all__ = [
    "TEMPLATES",
    "FIXED_TIME",
    "CREATOR",
    "INPUT_FILL",
    "CALC_FILL",
    "build_workbook",
    "build_bytes",
    "build_all",
    "check_all",
    "canonical_dump",
    "seq_column",
    "seq_row",
]

CREATOR = "xlbridge"
FIXED_TIME = _dt.datetime(2026, 1, 1, 0, 0, 0)
_ZIP_TIME = (2026, 1, 1, 0, 0, 0)

INPUT_FILL = "FFFFF2CC"  # light yellow: type here
CALC_FILL = "FFE2EFDA"  # light green: computed, do not type
HEADER_FILL = "FFD9E1F2"  # light blue: headers
PARAM_FILL = INPUT_FILL

UDF_MODULE = "xlbridge.udfs"


def seq_column(n: int) -> str:
    """Excel array constant ``{1;2;...;n}`` (a column of row positions).

    Used with INDEX to lay a variable-sized table result into a fixed array range: positions
    past the end give #REF!, which IFERROR turns into "" (an array formula whose result is
    smaller than its range would otherwise show #N/A in the extra cells).

    >>> seq_column(2)
    '{1;2}'
    """
    return "{" + ";".join(str(i) for i in range(1, n + 1)) + "}"


def seq_row(n: int) -> str:
    """Excel array constant ``{1,2,...,n}`` (a row of column positions).

    >>> seq_row(4)
    '{1,2,3,4}'
    """
    return "{" + ",".join(str(i) for i in range(1, n + 1)) + "}"


# ---------------------------------------------------------------------------------------------
# small openpyxl helpers (openpyxl is imported lazily so ``import xlbridge.templates`` is cheap)


def _opx():
    import openpyxl  # noqa: F401
    from openpyxl.styles import Alignment, Font, PatternFill
    from openpyxl.worksheet.datavalidation import DataValidation
    from openpyxl.worksheet.formula import ArrayFormula

    return openpyxl, Font, PatternFill, Alignment, DataValidation, ArrayFormula


def _fill(rgb):
    _, _, PatternFill, _, _, _ = _opx()
    return PatternFill(fill_type="solid", start_color=rgb, end_color=rgb)


def _cells(ws, ref):
    rng = ws[ref]
    if not isinstance(rng, tuple):
        return [rng]
    out = []
    for r in rng:
        if isinstance(r, tuple):
            out.extend(r)
        else:
            out.append(r)
    return out


def _style(ws, ref, rgb, number_format=None):
    f = _fill(rgb)
    for c in _cells(ws, ref):
        c.fill = f
        if number_format:
            c.number_format = number_format


def _title(ws, text, note=None):
    _, Font, _, _, _, _ = _opx()
    ws["A1"] = text
    ws["A1"].font = Font(bold=True, size=14)
    if note:
        ws["A2"] = note
        ws["A2"].font = Font(italic=True)


def _headers(ws, row, col, names, widths=None):
    _, Font, _, Alignment, _, _ = _opx()
    from openpyxl.utils import get_column_letter

    for i, name in enumerate(names):
        c = ws.cell(row=row, column=col + i, value=name)
        c.font = Font(bold=True)
        c.fill = _fill(HEADER_FILL)
        c.alignment = Alignment(wrap_text=True, vertical="top")
        if widths:
            ws.column_dimensions[get_column_letter(col + i)].width = widths[i] if i < len(widths) else widths[-1]


def _input(ws, ref, *, kind=None, prompt, title="Input", number_format=None, **dv):
    """Mark ``ref`` as an input range: yellow fill and a data validation with an input message."""
    _, _, _, _, DataValidation, _ = _opx()
    _style(ws, ref, INPUT_FILL, number_format)
    v = DataValidation(type=kind, allow_blank=True, showInputMessage=True, promptTitle=title, prompt=prompt,
                       showErrorMessage=kind is not None, errorTitle="Not accepted" if kind else None,
                       error=(prompt if kind else None), **dv)
    v.add(ref)
    ws.add_data_validation(v)


def _array(ws, ref, formula, number_format=None):
    """ONE legacy array formula over ``ref`` (Excel's Ctrl+Shift+Enter form), styled as computed."""
    _, _, _, _, _, ArrayFormula = _opx()
    first = ref.split(":")[0]
    ws[first] = ArrayFormula(ref, formula)
    _style(ws, ref, CALC_FILL, number_format)


def _calc(ws, ref, number_format=None):
    _style(ws, ref, CALC_FILL, number_format)


def _legend(ws, cell):
    """Write the colour legend starting at ``cell`` (3 rows)."""
    _, Font, _, _, _, _ = _opx()
    from openpyxl.utils.cell import coordinate_from_string, column_index_from_string

    col, row = coordinate_from_string(cell)
    ci = column_index_from_string(col)
    ws.cell(row=row, column=ci, value="Legend").font = Font(bold=True)
    a = ws.cell(row=row + 1, column=ci, value="Input: type or paste here")
    a.fill = _fill(INPUT_FILL)
    b = ws.cell(row=row + 2, column=ci, value="Computed by xlbridge: do not type here")
    b.fill = _fill(CALC_FILL)


def _param(ws, label_cell, value_cell, label, value, *, kind=None, prompt, number_format=None, **dv):
    ws[label_cell] = label
    ws[value_cell] = value
    _input(ws, value_cell, kind=kind, prompt=prompt, number_format=number_format, **dv)


def _new_workbook(title):
    openpyxl = _opx()[0]
    wb = openpyxl.Workbook()
    wb.active.title = "Instructions"
    p = wb.properties
    p.creator = CREATOR
    p.lastModifiedBy = CREATOR
    p.created = FIXED_TIME
    p.modified = FIXED_TIME
    p.title = title
    wb.calculation.fullCalcOnLoad = True  # Excel recalculates on open: the file holds no cached values
    return wb


def _instructions(wb, title, lines):
    _, Font, _, Alignment, _, _ = _opx()
    ws = wb["Instructions"]
    ws["A1"] = title
    ws["A1"].font = Font(bold=True, size=14)
    ws.column_dimensions["A"].width = 110
    for i, line in enumerate(lines, start=3):
        c = ws.cell(row=i, column=1, value=line)
        c.alignment = Alignment(wrap_text=True, vertical="top")
    _legend(ws, f"A{len(lines) + 4}")


def _conf_sheet(wb):
    ws = wb.create_sheet("xlwings.conf")
    ws["A1"] = "UDF Modules"
    ws["B1"] = UDF_MODULE
    ws.column_dimensions["A"].width = 16
    ws.column_dimensions["B"].width = 18


_COMMON_LINES = [
    "Yellow cells are inputs (each has a data validation and an input message); green cells are "
    "computed by ONE array formula per column or table that calls the xlbridge functions "
    "(see the xlbridge README, 'Using xlbridge in Excel'). Do not type in green cells; to change a "
    "result change its inputs.",
    "In Excel: pip install xlbridge[excel], then xlwings addin install; save this workbook as .xlsm and "
    "use the xlwings ribbon > Import Functions (or import vba_stub/xlwings_udfs.bas). The sheet "
    "'xlwings.conf' sets UDF Modules = xlbridge.udfs. Until the functions are imported the green cells "
    "show #NAME?. Without Excel: xlbridge recalc THIS.xlsx -o OUT.xlsx writes every result into a copy "
    "of the file.",
    "Blank input rows stay blank in the results; add rows anywhere inside the yellow area without "
    "editing any formula.",
]


# ---------------------------------------------------------------------------------------------
# handicap.xlsx (seed 000)

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

H_FIRST, H_ROWS = 5, 100  # Handicaps!A5:A104: 100 teams
N_FIRST, N_ROWS = 5, 200  # NewTeams match rows
N_OUT = 40  # new teams listed
F_FIRST, F_MAX_N = 5, 200  # Fairness!A5:A204: n = 1..200
F_OBS = 20  # observed results rows
FAIRNESS_TAILS = (0.25, 0.10, 0.01)


def _handicap():
    wb = _new_workbook("Form-L handicaps")
    _instructions(wb, "Form-L handicaps (seed 000, RDBL)", [
        "What it does: the Form-L handicaps of the Rugby and District Bridge League (seed 000) from the "
        "previous season's divisional Average VPs, beside the legacy system they replaced; handicaps for "
        "new teams from this season's matches; and the fairness test (binomial bands and observed results).",
        "Sheet Handicaps: one row per team (Division 1 = top, Team, Average VPs); up to 100 teams in any "
        "number of divisions, rows in any order. Expected VP Diff = (top team's Average VPs - own) x "
        "2(N-1)/N within a division; Merged VP Diff places each lower division's top team midway between "
        "the 2nd- and 3rd-lowest of the division above (overlap 2 ranks); Handicap IMPs = 2.75 x Merged "
        "VP Diff, rounded to a whole IMP. The parameters (IMPs per VP, overlap, legacy step) are inputs.",
        "Where the seed's Table 1 differs: Lambs (Div 3) are printed 77 but 2.75 x 28.67 = 78.83 gives 79 "
        "(ERRATA.md). Every other cell of Table 1 reproduces.",
        "Sheet NewTeams: one row per match played this season by a new team (team, opponent, VPs for, VPs "
        "against). Each new team's VP Diff is the average over its matches of (opponent's Merged VP Diff "
        "- VP margin), solved jointly when new teams met each other (the seed's iteration converges to "
        "this). The example matches are hypothetical.",
        "Sheet Fairness: under fair handicaps the number of wins of the higher-handicap team in n "
        "matches is Binomial(n, 1/2). The bands exclude 25 %, 10 % and 1 % of outcomes at each end "
        "(ERRATA.md: the seed's green lines are the 10 % tails). P(X <= wins) is small when the "
        "higher-handicap team wins too rarely, P(X >= wins) when it wins too often; each is a p-value, "
        "not the probability that the handicaps are unfair (ERRATA.md). The seed's first study counted "
        "the higher-RANKING team's wins (19 of 56); the sheet enters the same result as 37 wins of the "
        "higher-handicap team, so P(X >= 37) = P(X <= 19) = 0.0111.",
    ] + _COMMON_LINES)

    ws = wb.create_sheet("Handicaps")
    _title(ws, "Form-L handicaps from the previous season's divisional Average VPs",
           "Seed 000, Table 1 (2013-14). Handicap IMPs of Lambs: the seed prints 77, the correct value is 79.")
    last = H_FIRST + H_ROWS - 1
    _headers(ws, 4, 1, ["Division", "Team", "Average VPs", "Expected VP Diff", "Merged VP Diff",
                        "Handicap IMPs", "Legacy Handicap IMPs"], widths=[10, 16, 10, 11, 11, 10, 12])
    for i, (d, t, v) in enumerate(TABLE1):
        r = H_FIRST + i
        ws.cell(row=r, column=1, value=d)
        ws.cell(row=r, column=2, value=t)
        ws.cell(row=r, column=3, value=v)
    _input(ws, f"A{H_FIRST}:A{last}", kind="whole", operator="between", formula1="1", formula2="20",
           prompt="Division: 1 for the top division, 2, 3, ...")
    _input(ws, f"B{H_FIRST}:B{last}", kind="textLength", operator="between", formula1="1", formula2="60",
           prompt="Team name")
    _input(ws, f"C{H_FIRST}:C{last}", kind="decimal", operator="between", formula1="0", formula2="100",
           prompt="Average VPs in last season's divisional matches", number_format="0.0")
    A, C = f"A{H_FIRST}:A{last}", f"C{H_FIRST}:C{last}"
    _array(ws, f"D{H_FIRST}:D{last}", f"=FORML_VPDIFF({A},{C},FALSE,$J$6)", "0.00")
    _array(ws, f"E{H_FIRST}:E{last}", f"=FORML_VPDIFF({A},{C},TRUE,$J$6)", "0.00")
    _array(ws, f"F{H_FIRST}:F{last}", f"=FORML_HANDICAP({A},{C},$J$5,$J$6)", "0")
    _array(ws, f"G{H_FIRST}:G{last}", f"=LEGACY_HANDICAP({A},{C},$J$7)", "0")

    ws["I4"] = "Parameters"
    ws["I4"].font = _opx()[1](bold=True)
    _param(ws, "I5", "J5", "IMPs per VP", 2.75, kind="decimal", operator="greaterThan", formula1="0",
           prompt="Handicap IMPs per Merged VP Diff (seed 000: 2.75, a 20-0 win = 55 IMPs)")
    _param(ws, "I6", "J6", "Overlap (ranks)", 2, kind="whole", operator="between", formula1="1", formula2="10",
           prompt="A lower division's top team sits between the overlap-th and (overlap+1)-th lowest above")
    _param(ws, "I7", "J7", "Legacy step (IMPs)", 6, kind="whole", operator="between", formula1="1",
           formula2="50", prompt="Legacy system: IMPs between consecutive ranks within a division")
    ws.column_dimensions["I"].width = 18
    _legend(ws, "I9")

    # the seed's Range rows, as a summary beside the table (standard Excel functions only)
    ws["I13"] = "Division summary (the seed's Range rows)"
    ws["I13"].font = _opx()[1](bold=True)
    _headers(ws, 14, 9, ["Division", "Teams", "Range of Average VPs"])
    for k in range(1, 7):
        r = 14 + k
        ws.cell(row=r, column=9, value=k)
        ws.cell(row=r, column=10, value=f'=IF(COUNTIF($A${H_FIRST}:$A${last},I{r})=0,"",'
                                        f'COUNTIF($A${H_FIRST}:$A${last},I{r}))')
        avg, div = f"$C${H_FIRST}:$C${last}", f"$A${H_FIRST}:$A${last}"
        ws.cell(row=r, column=11, value=f'=IF(J{r}="","",_xlfn.MAXIFS({avg},{div},I{r})'
                                        f'-_xlfn.MINIFS({avg},{div},I{r}))')
    _input(ws, "I15:I20", kind="whole", operator="between", formula1="1", formula2="20",
           prompt="A division number to summarise")
    _calc(ws, "J15:J20")
    _calc(ws, "K15:K20", "0.0")
    ws.freeze_panes = f"A{H_FIRST}"

    # new teams
    ws = wb.create_sheet("NewTeams")
    _title(ws, "Handicaps for new teams from this season's matches",
           "One row per match played by a new team. Known teams and their Merged VP Diffs come from the "
           "Handicaps sheet. Example matches are hypothetical.")
    nl = N_FIRST + N_ROWS - 1
    _headers(ws, 4, 1, ["Team", "Opponent", "VPs for", "VPs against"], widths=[16, 16, 9, 9])
    for i, (t, o, f, a) in enumerate(NEW_TEAM_MATCHES):
        r = N_FIRST + i
        for j, v in enumerate((t, o, f, a), start=1):
            ws.cell(row=r, column=j, value=v)
    _input(ws, f"A{N_FIRST}:B{nl}", kind="textLength", operator="between", formula1="1", formula2="60",
           prompt="Team names exactly as on the Handicaps sheet (a new team is any team not listed there)")
    _input(ws, f"C{N_FIRST}:D{nl}", kind="decimal", operator="between", formula1="0", formula2="100",
           prompt="Victory points of the team (VPs for) and of its opponent (VPs against)")
    _headers(ws, 4, 6, ["New team", "Handicap IMPs"], widths=[16, 10])
    ol = N_FIRST + N_OUT - 1
    hl = H_FIRST + H_ROWS - 1
    _array(ws, f"F{N_FIRST}:G{ol}",
           f"=IFERROR(INDEX(FORML_NEWTEAMS(A{N_FIRST}:A{nl},B{N_FIRST}:B{nl},C{N_FIRST}:C{nl},D{N_FIRST}:D{nl},"
           f"Handicaps!B{H_FIRST}:B{hl},Handicaps!E{H_FIRST}:E{hl},Handicaps!J5),"
           f"{seq_column(N_OUT)},{seq_row(2)}),\"\")", "0")
    _legend(ws, "I4")

    # fairness
    ws = wb.create_sheet("Fairness")
    _title(ws, "Fairness of the handicaps: binomial bands and observed results",
           "Wins of the higher-handicap team in n matches between teams with different handicaps "
           "(draws excluded). Under fair handicaps: Binomial(n, 1/2).")
    fl = F_FIRST + F_MAX_N - 1
    ws["A3"] = "Tail excluded at each end:"
    _headers(ws, 4, 1, ["Matches", "Low 25 %", "High 25 %", "Low 10 %", "High 10 %", "Low 1 %", "High 1 %",
                        "Expected (n/2)"], widths=[9, 9, 9, 9, 9, 9, 9, 10])
    for j, t in enumerate(FAIRNESS_TAILS):
        ws.cell(row=3, column=2 + 2 * j, value=t)
        _input(ws, ws.cell(row=3, column=2 + 2 * j).coordinate, kind="decimal", operator="between",
               formula1="0", formula2="0.5", prompt="Share of outcomes excluded at EACH end of the band",
               number_format="0%")
    for n in range(1, F_MAX_N + 1):
        ws.cell(row=F_FIRST + n - 1, column=1, value=n)
    _input(ws, f"A{F_FIRST}:A{fl}", kind="whole", operator="between", formula1="1", formula2="100000",
           prompt="Number of matches")
    from openpyxl.utils import get_column_letter as _gcl

    for j in range(3):  # one FAIRNESS_BAND array call per band (a column of n -> n x 2)
        c0, c1 = _gcl(2 + 2 * j), _gcl(3 + 2 * j)
        _array(ws, f"{c0}{F_FIRST}:{c1}{fl}", f"=FAIRNESS_BAND(A{F_FIRST}:A{fl},{c0}$3)")
    _array(ws, f"H{F_FIRST}:H{fl}", f"=A{F_FIRST}:A{fl}/2")

    _headers(ws, 4, 10, ["Observed result", "Wins", "Matches", "P(X <= wins)", "P(X >= wins)"],
             widths=[44, 8, 9, 11, 11])
    ol = F_FIRST + F_OBS - 1
    for i, (label, w, n) in enumerate(OBSERVED):
        ws.cell(row=F_FIRST + i, column=10, value=label)
        ws.cell(row=F_FIRST + i, column=11, value=w)
        ws.cell(row=F_FIRST + i, column=12, value=n)
    _input(ws, f"J{F_FIRST}:J{ol}", prompt="What the result is (free text)")
    _input(ws, f"K{F_FIRST}:L{ol}", kind="whole", operator="between", formula1="0", formula2="100000",
           prompt="Wins of the higher-handicap team, and matches played (draws excluded)")
    _array(ws, f"M{F_FIRST}:M{ol}", f"=FAIRNESS(K{F_FIRST}:K{ol},L{F_FIRST}:L{ol})", "0.0000")
    # the upper tail, P(X >= wins): small when the higher-handicap team wins too often (exact in the core)
    _array(ws, f"N{F_FIRST}:N{ol}", f"=FAIRNESS(K{F_FIRST}:K{ol},L{F_FIRST}:L{ol},TRUE)", "0.0000")
    _legend(ws, f"J{ol + 2}")
    _fairness_chart(ws, fl, ol)
    ws.freeze_panes = f"A{F_FIRST}"

    _conf_sheet(wb)
    return wb


def _fairness_chart(ws, fl, ol):
    from openpyxl.chart import Reference, ScatterChart, Series
    from openpyxl.chart.marker import Marker

    ch = ScatterChart()
    ch.title = "Wins of the higher-handicap team: bands under fair handicaps"
    ch.style = 13
    ch.x_axis.title = "Matches"
    ch.y_axis.title = "Wins"
    ch.height, ch.width = 12, 20
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
    ws.add_chart(ch, "O4")


# ---------------------------------------------------------------------------------------------
# pairs.xlsx (seeds 004 and 001)

# (board, ns, ew, contract, declarer, tricks, typed score, outcome 2, outcome 3, weight 1, weight 2, weight 3)
TRAVELLERS = [
    # board 1: seed 004, TD: 60 % of 4S= (420), 40 % of 4S-1 (-50); others 420, 400 twice, 170, -50
    (1, 1, 11, "4S", "N", 10, None, -50, None, 0.6, 0.4, None),
    (1, 2, 12, "4S", "N", 10, None, None, None, None, None, None),
    (1, 3, 13, "3NT", "S", 9, None, None, None, None, None, None),
    (1, 4, 14, None, None, None, 400, None, None, None, None, None),
    (1, 5, 15, "2S", "N", 10, None, None, None, None, None, None),
    (1, 6, 16, "4S", "S", 9, None, None, None, None, None, None),
    # board 2: an artificial adjusted score (Law 12C2); not played (NP) at one table: 5 results, factored to 6
    (2, 1, 13, "2H", "W", 8, None, None, None, None, None, None),
    (2, 2, 14, "3H", "W", 8, None, None, None, None, None, None),
    (2, 3, 15, None, None, None, "A60/40", None, None, None, None, None),
    (2, 4, 16, "1NT", "N", 7, None, None, None, None, None, None),
    (2, 5, 11, "2H", "W", 9, None, None, None, None, None, None),
    (2, 6, 12, None, None, None, "NP", None, None, None, None, None),
    # board 3: seed 004, two weighted scores: pair A (NS 1) 60 % 420 / 40 % -50, pair B (NS 2) 50 % 170 / 50 % 420
    (3, 1, 12, None, None, None, 420, -50, None, 0.6, 0.4, None),
    (3, 2, 13, None, None, None, 170, 420, None, 0.5, 0.5, None),
    (3, 3, 14, None, None, None, 420, None, None, None, None, None),
    (3, 4, 15, None, None, None, 400, None, None, None, None, None),
    (3, 5, 16, None, None, None, 400, None, None, None, None, None),
    (3, 6, 11, None, None, None, -50, None, None, None, None, None),
]

# seed 001: the board where 11 results were expected and 10 obtained (section 4c); the board
# that should have been played 16 times and was played 8 times (section 4e)
NEUBERG_C = [520, 500, 490, 480, 460, 450, 430, 420, 400, -50]
NEUBERG_E = [490, 460, 460, 430, 430, 430, 400, -50]

T_FIRST, T_ROWS = 5, 1000
R_FIRST, R_ROWS = 5, 60


def _pairs():
    wb = _new_workbook("Pairs session: travellers, matchpoints, ranking")
    _instructions(wb, "Pairs session: travellers to matchpoints and ranking (seeds 004 and 001)", [
        "What it does: matchpoints every traveller row (Law 78A, Neuberg-factored to the expected number "
        "of results, artificial adjusted scores and not-played boards handled, Law 12C1(c) weighted "
        "scores exact), and ranks the pairs with exact ties shown as ties (3=).",
        "Sheet Travellers, one row per result: Board, NS pair, EW pair, then EITHER Contract (4S, 3NTX, "
        "6HXX, PASS), Declarer (N/E/S/W) and Tricks taken, OR a Typed Score (N-S points, an artificial "
        "score A60/40, A50/50, A40/60, A+, A=, A-, or NP for not played). Score NS is computed from the "
        "contract when one is given, otherwise it is the typed score (SCORE_OR_TYPED).",
        "Weighted scores (Law 12C1(c)): Score NS is the first outcome; put the other possible N-S outcomes "
        "in Outcome 2 NS / Outcome 3 NS and the weights in Weight 1..3 (they total 100 %). A plain result "
        "leaves the weights blank. Every pair's matchpoints on the board are exact expected values over "
        "every combination of outcomes (seed 004).",
        "Parameters: Scale EBU (2 per score beaten, 1 per tie) or ACBL (1 and 1/2); Expected results per "
        "board (blank: the largest number of results on any board). The example uses ACBL to match seed "
        "004's figures; seed 004 prints 2.63 for pair A on board 3: the correct value is 2.75 (ERRATA.md).",
        "Sheet Neuberg: seed 001's two worked examples (EBU scale). Its printed line (14 x 16) + (16 - 8) "
        "= 29 lost the division by A: ((14 x 16) + (16 - 8)) / 8 = 29; its final 51.86 % is 51.85 % when "
        "rounded once at the end (ERRATA.md).",
        "Sheet Ranking: Pair, Total MP, Percentage, Rank, best first, up to 60 pairs.",
    ] + _COMMON_LINES)

    ws = wb.create_sheet("Travellers")
    _title(ws, "Travellers", "Example: seed 004's boards with weighted scores (boards 1 and 3); board 2 has an "
                             "artificial score and was not played at one table.")
    last = T_FIRST + T_ROWS - 1
    _headers(ws, 4, 1, ["Board", "NS", "EW", "Contract", "Declarer", "Tricks", "Typed Score", "Score NS",
                        "Outcome 2 NS", "Outcome 3 NS", "Weight 1", "Weight 2", "Weight 3", "MP NS", "MP EW"],
             widths=[7, 6, 6, 9, 9, 7, 10, 9, 10, 10, 9, 9, 9, 8, 8])
    for i, row in enumerate(TRAVELLERS):
        r = T_FIRST + i
        for j, v in enumerate(row[:7], start=1):
            ws.cell(row=r, column=j, value=v)
        for j, v in enumerate(row[7:], start=9):
            ws.cell(row=r, column=j, value=v)
    rng = lambda c: f"{c}{T_FIRST}:{c}{last}"  # noqa: E731
    _input(ws, rng("A"), kind="whole", operator="between", formula1="1", formula2="10000",
           prompt="Board number (its vulnerability follows the standard 16-board cycle)")
    _input(ws, f"B{T_FIRST}:C{last}", kind="whole", operator="between", formula1="1", formula2="10000",
           prompt="Pair number")
    _input(ws, rng("D"), kind="textLength", operator="between", formula1="1", formula2="6",
           prompt="Contract like 4S, 3NTX, 6HXX, PASS; leave blank to type the score instead")
    _input(ws, rng("E"), kind="list", formula1='"N,E,S,W"', prompt="Declarer: N, E, S or W")
    _input(ws, rng("F"), kind="whole", operator="between", formula1="0", formula2="13",
           prompt="Tricks taken by declarer (0-13)")
    _input(ws, rng("G"), prompt="When no contract is given: N-S score (420, -50), artificial score "
                                "(A60/40, A+, A=, A-) or NP")
    _input(ws, f"I{T_FIRST}:J{last}", prompt="Weighted score only: another possible N-S outcome (points)")
    _input(ws, f"K{T_FIRST}:M{last}", kind="decimal", operator="between", formula1="0", formula2="1",
           prompt="Weighted score only: the weight of Score NS / Outcome 2 / Outcome 3 (they total 100 %)",
           number_format="0%")
    _array(ws, rng("H"), f"=SCORE_OR_TYPED({rng('D')},{rng('E')},{rng('F')},{rng('A')},{rng('G')})")
    _array(ws, f"N{T_FIRST}:O{last}",
           f"=WEIGHTED_MP(H{T_FIRST}:J{last},K{T_FIRST}:M{last},{rng('A')},$R$6,$R$5)", "0.00")
    ws["Q4"] = "Parameters"
    ws["Q4"].font = _opx()[1](bold=True)
    _param(ws, "Q5", "R5", "Scale", "ACBL", kind="list", formula1='"EBU,ACBL"',
           prompt="EBU: 2 per score beaten, 1 per tie (Law 78A). ACBL: 1 and 1/2.")
    _param(ws, "Q6", "R6", "Expected results per board", None, kind="whole", operator="between",
           formula1="1", formula2="1000",
           prompt="Blank: the largest number of results on any board. Boards with fewer are Neuberg-factored.")
    ws.column_dimensions["Q"].width = 24
    _legend(ws, "Q8")
    ws.freeze_panes = f"A{T_FIRST}"

    ws = wb.create_sheet("Ranking")
    _title(ws, "Ranking", "Exact totals: ties are decided on exact values and shown as ties (3=).")
    _headers(ws, 4, 1, ["Pair", "Total MP", "Percentage", "Rank"], widths=[8, 10, 11, 7])
    rl = R_FIRST + R_ROWS - 1
    _array(ws, f"A{R_FIRST}:D{rl}",
           f"=IFERROR(INDEX(PAIRS_RANKING(Travellers!A{T_FIRST}:A{last},Travellers!B{T_FIRST}:B{last},"
           f"Travellers!C{T_FIRST}:C{last},Travellers!H{T_FIRST}:J{last},Travellers!K{T_FIRST}:M{last},"
           f"Travellers!R6,Travellers!R5),{seq_column(R_ROWS)},{seq_row(4)}),\"\")")
    for c in _cells(ws, f"B{R_FIRST}:B{rl}"):
        c.number_format = "0.00"
    for c in _cells(ws, f"C{R_FIRST}:C{rl}"):
        c.number_format = "0.00"
    _legend(ws, "F4")
    ws.freeze_panes = f"A{R_FIRST}"

    ws = wb.create_sheet("Neuberg")
    _title(ws, "The Neuberg formula (seed 001, Max Bavin, EBU)",
           "MP = ((M x E) + (E - A)) / A, with M the matchpoints among the A actual results and E the expected number.")
    ws["A3"] = "Section 4(c): 11 results expected, 10 obtained (top 20)"
    ws["A3"].font = _opx()[1](bold=True)
    _headers(ws, 4, 1, ["Board", "NS score", "MP NS", "MP EW"], widths=[8, 10, 9, 9])
    _param(ws, "F4", "G4", "Expected results", 11, kind="whole", operator="between", formula1="1",
           formula2="1000", prompt="Expected number of results on this board")
    ws["F5"] = "Scale"
    ws["G5"] = "EBU"
    _input(ws, "G5", kind="list", formula1='"EBU,ACBL"', prompt="EBU (2/1) or ACBL (1/0.5)")
    c_first, c_last = 5, 5 + len(NEUBERG_C) - 1
    for i, s in enumerate(NEUBERG_C):
        ws.cell(row=c_first + i, column=1, value=1)
        ws.cell(row=c_first + i, column=2, value=s)
    _input(ws, f"A{c_first}:B{c_last}", prompt="Board number and N-S score")
    _array(ws, f"C{c_first}:D{c_last}",
           f"=MATCHPOINTS(B{c_first}:B{c_last},A{c_first}:A{c_last},G4,G5)", "0.0")

    e_title = c_last + 2
    ws.cell(row=e_title, column=1, value="Section 4(e): 16 results expected, 8 obtained (top 30)").font = \
        _opx()[1](bold=True)
    eh = e_title + 1
    _headers(ws, eh, 1, ["Board", "NS score", "MP NS", "MP EW", "Unfactored MP NS", "Unfactored MP EW",
                         "NEUBERG(M, E, A)"])
    e_first, e_last = eh + 1, eh + len(NEUBERG_E)
    _param(ws, f"I{eh}", f"J{eh}", "Expected results", 16, kind="whole", operator="between", formula1="1",
           formula2="1000", prompt="Expected number of results on this board")
    ws[f"I{e_first}"] = "Actual results"
    ws[f"J{e_first}"] = f"=COUNT(B{e_first}:B{e_last})"
    _calc(ws, f"J{e_first}")
    for i, s in enumerate(NEUBERG_E):
        ws.cell(row=e_first + i, column=1, value=8)
        ws.cell(row=e_first + i, column=2, value=s)
    _input(ws, f"A{e_first}:B{e_last}", prompt="Board number and N-S score")
    be, ae = f"B{e_first}:B{e_last}", f"A{e_first}:A{e_last}"
    _array(ws, f"C{e_first}:D{e_last}", f'=MATCHPOINTS({be},{ae},J{eh},"EBU")', "0.0")
    _array(ws, f"E{e_first}:F{e_last}", f'=MATCHPOINTS({be},{ae},J{e_first},"EBU")', "0.0")
    _array(ws, f"G{e_first}:G{e_last}", f"=NEUBERG(E{e_first}:E{e_last},J{eh},J{e_first})", "0.0")
    ws.column_dimensions["I"].width = 16

    s7 = e_last + 2
    ws.cell(row=s7, column=1, value="Section 7: a top on the one board with 11 results, top 100, 51 expected "
                                    "(the printed 51.86 % is 51.85 % rounded once)").font = _opx()[1](bold=True)
    ws[f"A{s7 + 1}"] = "Board 26: NEUBERG(20, 51, 11) (% of the top)"
    ws[f"E{s7 + 1}"] = "=NEUBERG(20,51,11)"
    ws[f"A{s7 + 2}"] = "Session: (24 x 50 + board 26) / 25 (%)"
    ws[f"E{s7 + 2}"] = f"=(24*50+E{s7 + 1})/25"
    _calc(ws, f"E{s7 + 1}:E{s7 + 2}", "0.00")
    _legend(ws, "K4")

    _conf_sheet(wb)
    return wb


# ---------------------------------------------------------------------------------------------
# teams.xlsx (seed 004)

# (match, board, room-1 NS score (team A NS), outcome 2, outcome 3, w1, w2, w3, room-2 NS score (team B NS))
TEAM_BOARDS = [
    (1, 1, 420, -50, None, 0.6, 0.4, None, 400),  # seed 004: 60 % 420 / 40 % -50 against 400
    (1, 2, 620, None, None, None, None, None, 620),
    (1, 3, 420, None, None, None, None, None, 170),
    (1, 4, -100, None, None, None, None, None, -140),
    (1, 5, 110, None, None, None, None, None, 140),
    (1, 6, -620, None, None, None, None, None, -650),
    (1, 7, 650, None, None, None, None, None, 620),
    (2, 1, 450, None, None, None, None, None, 420),
    (2, 2, -200, None, None, None, None, None, 110),
    (2, 3, 140, None, None, None, None, None, 140),
]
TEAM_MATCHES = [(1, "Team A", "Team B", 7), (2, "Team C", "Team D", 3)]

B_FIRST, B_ROWS = 5, 500
M_FIRST, M_ROWS = 5, 40


def _teams():
    wb = _new_workbook("Teams: IMPs and VPs with weighted boards")
    _instructions(wb, "Teams: boards to IMPs, matches to VPs, weighted boards (seed 004)", [
        "What it does: each board's IMPs for team A (Law 78B), with Law 12C1(c) weighted boards scored "
        "outcome by outcome and then weighted (never the raw scores averaged); each match's IMP totals "
        "and Victory Points on the WBF 2013 continuous 20-VP scale for the match length.",
        "Sheet Boards, one row per board: Match, Board, the N-S score in room 1 (team A sitting N-S), and "
        "the N-S score in room 2 (team B sitting N-S). A weighted board gives the other possible room-1 "
        "outcomes in Outcome 2/3 and the weights in Weight 1..3 (total 100 %); a plain board leaves them "
        "blank. IMPs A = each outcome IMPed against room 2, then weighted (WEIGHTED_IMPS, unrounded).",
        "Sheet Matches, one row per match: Match number, team names and the number of boards of the match "
        "(the VP scale depends on it). IMPs and VPs come from MATCH_RESULT; the IMP margin is rounded "
        "once, to the nearest IMP, before the VP look-up (weighted boards leave fractions; regulations "
        "round the match total, as seed 004 does: -3.4 -> -3, a 5-IMP win, 12.18 VPs).",
        "Sheet Swiss: seed 004's worked example: 60 % of 420 and 40 % of -50 against 400 gives -3.4 IMPs; "
        "with +8 IMPs on the other boards of a 7-board match the match is won by 5 (12.18 VPs); weighting "
        "at VP level instead gives 0.6 x 13.65 + 0.4 x 9.08 = 11.82 VPs; board-a-match gives 0.2. "
        "The seed does not say the match length: its VPs are the 7-board scale (ERRATA.md).",
    ] + _COMMON_LINES)

    ws = wb.create_sheet("Boards")
    _title(ws, "Boards", "Example: match 1 is seed 004's Swiss match (7 boards, board 1 weighted); match 2 is plain.")
    last = B_FIRST + B_ROWS - 1
    _headers(ws, 4, 1, ["Match", "Board", "Room 1 NS (team A NS)", "Outcome 2", "Outcome 3", "Weight 1",
                        "Weight 2", "Weight 3", "Room 2 NS (team B NS)", "IMPs A", "IMPs B"],
             widths=[7, 7, 12, 10, 10, 9, 9, 9, 12, 8, 8])
    for i, row in enumerate(TEAM_BOARDS):
        for j, v in enumerate(row, start=1):
            ws.cell(row=B_FIRST + i, column=j, value=v)
    _input(ws, f"A{B_FIRST}:B{last}", kind="whole", operator="between", formula1="1", formula2="10000",
           prompt="Match number and board number")
    _input(ws, f"C{B_FIRST}:E{last}", kind="whole", operator="between", formula1="-7600", formula2="7600",
           prompt="N-S score in room 1; for a weighted board, the other possible outcomes in Outcome 2/3")
    _input(ws, f"F{B_FIRST}:H{last}", kind="decimal", operator="between", formula1="0", formula2="1",
           prompt="Weighted board only: the weights of the outcomes (total 100 %)", number_format="0%")
    _input(ws, f"I{B_FIRST}:I{last}", kind="whole", operator="between", formula1="-7600", formula2="7600",
           prompt="N-S score in room 2 (team B sitting N-S)")
    _array(ws, f"J{B_FIRST}:J{last}",
           f"=WEIGHTED_IMPS(C{B_FIRST}:E{last},F{B_FIRST}:H{last},I{B_FIRST}:I{last})", "0.0")
    _array(ws, f"K{B_FIRST}:K{last}", f'=IF(J{B_FIRST}:J{last}="","",-J{B_FIRST}:J{last})', "0.0")
    _legend(ws, "M4")
    ws.freeze_panes = f"A{B_FIRST}"

    ws = wb.create_sheet("Matches")
    _title(ws, "Matches", "IMP totals (weighted boards rounded once, at the end) and VPs (WBF 2013 20-VP scale).")
    ml = M_FIRST + M_ROWS - 1
    _headers(ws, 4, 1, ["Match", "Team A", "Team B", "Boards", "IMPs A", "IMPs B", "VP A", "VP B"],
             widths=[7, 14, 14, 7, 8, 8, 8, 8])
    for i, row in enumerate(TEAM_MATCHES):
        for j, v in enumerate(row, start=1):
            ws.cell(row=M_FIRST + i, column=j, value=v)
    _input(ws, f"A{M_FIRST}:A{ml}", kind="whole", operator="between", formula1="1", formula2="10000",
           prompt="Match number as on the Boards sheet")
    _input(ws, f"B{M_FIRST}:C{ml}", prompt="Team names")
    _input(ws, f"D{M_FIRST}:D{ml}", kind="whole", operator="between", formula1="1", formula2="200",
           prompt="Number of boards of the match (the VP scale depends on it)")
    for i in range(M_ROWS):
        r = M_FIRST + i
        _array(ws, f"E{r}:H{r}",
               f'=IF(A{r}="","",MATCH_RESULT(IF(Boards!$A${B_FIRST}:$A${last}=A{r},'
               f'Boards!$J${B_FIRST}:$J${last},""),D{r},"nearest"))', "0.00")
    _legend(ws, "J4")
    ws.freeze_panes = f"A{M_FIRST}"

    ws = wb.create_sheet("Swiss")
    _title(ws, "Seed 004: one weighted board in a Swiss match, at IMP level and at VP level",
           "TD: 60 % of 4S= (420) and 40 % of 4S-1 (-50); the other room scored 400.")
    _param(ws, "A4", "C4", "Other room N-S score", 400, kind="whole", operator="between", formula1="-7600",
           formula2="7600", prompt="N-S score at the other table")
    _param(ws, "A5", "C5", "IMPs for team A on the other boards", 8, kind="decimal", operator="between",
           formula1="-1000", formula2="1000", prompt="Team A's IMP margin without this board")
    _param(ws, "A6", "C6", "Boards in the match", 7, kind="whole", operator="between", formula1="1",
           formula2="200", prompt="Match length (the VP scale depends on it)")
    ws.column_dimensions["A"].width = 40
    _headers(ws, 8, 2, ["Outcome 1", "Outcome 2"])
    ws["A9"] = "N-S score of the outcome"
    ws["A10"] = "Weight"
    ws["B9"], ws["C9"] = 420, -50
    ws["B10"], ws["C10"] = 0.6, 0.4
    _input(ws, "B9:C9", kind="whole", operator="between", formula1="-7600", formula2="7600",
           prompt="A possible N-S outcome")
    _input(ws, "B10:C10", kind="decimal", operator="between", formula1="0", formula2="1",
           prompt="Its weight (total 100 %)", number_format="0%")
    ws["A11"] = "IMPs of the outcome (IMPS)"
    _array(ws, "B11:C11", "=IMPS(B9:C9-C4)")
    ws["A12"] = "Match margin with this outcome"
    _array(ws, "B12:C12", "=C5+B11:C11")
    ws["A13"] = "VPs of the outcome (VP)"
    _array(ws, "B13:C13", "=VP(B12:C12,C6)", "0.00")
    ws["A15"] = "IMP level: weighted IMPs on the board (WEIGHTED_IMPS)"
    ws["B15"] = "=WEIGHTED_IMPS(B9:C9,B10:C10,C4)"
    ws["A16"] = "IMP level: match margin, rounded once"
    ws["B16"] = "=ROUND(C5+B15,0)"
    ws["A17"] = "IMP level: VPs (the regulation way)"
    ws["B17"] = "=VP(B16,C6)"
    ws["A18"] = "VP level: weighted VPs (seed 004's proposal)"
    ws["B18"] = "=SUMPRODUCT(B10:C10,B13:C13)"
    ws["A19"] = "Board-a-match: weighted board result"
    ws["B19"] = "=SUMPRODUCT(B10:C10,SIGN(B9:C9-C4))"
    _calc(ws, "B15:B19", "0.00")
    _legend(ws, "E4")

    _conf_sheet(wb)
    return wb


# ---------------------------------------------------------------------------------------------
# instant.xlsx (seed 002)

INSTANT_HISTORY = [(980, 4), (800, 3), (480, 8), (450, 26), (420, 115), (400, 6), (-50, 17), (-100, 1)]
INSTANT_RESULTS = [(1, 420), (2, 450), (3, 500), (4, -100), (5, 980), (6, -150), (7, 400)]
I_FIRST, I_ROWS = 5, 200
I_CHART = 2 * I_ROWS + 1
S_FIRST, S_ROWS = 5, 500


def _instant():
    wb = _new_workbook("Instant matchpoints: award chart and scoring")
    _instructions(wb, "Instant matchpoints (seed 002, R. Pavlicek)", [
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
    ] + _COMMON_LINES)

    ws = wb.create_sheet("Chart")
    _title(ws, "Award chart", "Example: seed 002, board 1 (played 180 times; 179 top).")
    hl = I_FIRST + I_ROWS - 1
    _headers(ws, 4, 1, ["NS score", "Frequency"], widths=[10, 10])
    for i, (s, f) in enumerate(INSTANT_HISTORY):
        ws.cell(row=I_FIRST + i, column=1, value=s)
        ws.cell(row=I_FIRST + i, column=2, value=f)
    _input(ws, f"A{I_FIRST}:A{hl}", kind="whole", operator="between", formula1="-7600", formula2="7600",
           prompt="A historical N-S score")
    _input(ws, f"B{I_FIRST}:B{hl}", kind="whole", operator="between", formula1="1", formula2="1000000",
           prompt="How many times it occurred")
    _headers(ws, 4, 4, ["Lowest NS", "Highest NS", "Award NS %", "Award EW %"], widths=[10, 10, 10, 10])
    cl = I_FIRST + I_CHART - 1
    _array(ws, f"D{I_FIRST}:F{cl}",
           f"=IFERROR(INDEX(INSTANT_MP(A{I_FIRST}:A{hl},B{I_FIRST}:B{hl},$J$5),{seq_column(I_CHART)},"
           f"{seq_row(3)}),\"\")", "0")
    _array(ws, f"G{I_FIRST}:G{cl}", f'=IF(F{I_FIRST}:F{cl}="","",100-F{I_FIRST}:F{cl})', "0")
    _param(ws, "I5", "J5", "Vulnerability", "None", kind="list", formula1='"None,NS,EW,All"',
           prompt="The board's vulnerability (None, NS, EW, All) or its board number")
    ws.column_dimensions["I"].width = 14
    _legend(ws, "I7")
    ws.freeze_panes = f"A{I_FIRST}"

    ws = wb.create_sheet("Scoring")
    _title(ws, "Results scored against the chart", "Example: hypothetical results on seed 002's board.")
    sl = S_FIRST + S_ROWS - 1
    _headers(ws, 4, 1, ["Table", "NS score", "Award NS %", "Award EW %"], widths=[8, 10, 11, 11])
    for i, (t, s) in enumerate(INSTANT_RESULTS):
        ws.cell(row=S_FIRST + i, column=1, value=t)
        ws.cell(row=S_FIRST + i, column=2, value=s)
    _input(ws, f"A{S_FIRST}:A{sl}", prompt="Table or pair")
    _input(ws, f"B{S_FIRST}:B{sl}", kind="whole", operator="between", formula1="-7600", formula2="7600",
           prompt="The N-S score obtained")
    _array(ws, f"C{S_FIRST}:C{sl}",
           f"=INSTANT_AWARD(B{S_FIRST}:B{sl},Chart!A{I_FIRST}:A{hl},Chart!B{I_FIRST}:B{hl},Chart!J5)", "0")
    _array(ws, f"D{S_FIRST}:D{sl}", f'=IF(ISNUMBER(C{S_FIRST}:C{sl}),100-C{S_FIRST}:C{sl},"")', "0")
    _legend(ws, "F4")
    ws.freeze_panes = f"A{S_FIRST}"

    _conf_sheet(wb)
    return wb


# ---------------------------------------------------------------------------------------------
# lehman.xlsx (seed 003)

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
L_FIRST, L_ROWS = 5, 1000
P_ROWS = 100


def _lehman():
    wb = _new_workbook("Lehman ratings ledger")
    _instructions(wb, "Lehman ratings: a weekly ledger, standard and modified (seed 003)", [
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
    ] + _COMMON_LINES)

    ws = wb.create_sheet("Ledger")
    _title(ws, "Ratings ledger", "Example: hypothetical results; the newcomer 'Newbie' plays with 'Spider'.")
    ll = L_FIRST + L_ROWS - 1
    _headers(ws, 4, 1, ["Week", "North", "South", "East", "West", "NS %"], widths=[7, 12, 12, 12, 12, 8])
    for i, row in enumerate(LEDGER):
        for j, v in enumerate(row, start=1):
            ws.cell(row=L_FIRST + i, column=j, value=v)
    _input(ws, f"A{L_FIRST}:A{ll}", kind="whole", operator="between", formula1="1", formula2="100000",
           prompt="Week number (ratings are combined week by week, in order)")
    _input(ws, f"B{L_FIRST}:E{L_ROWS + L_FIRST - 1}", kind="textLength", operator="between", formula1="1",
           formula2="60", prompt="Player name")
    _input(ws, f"F{L_FIRST}:F{ll}", kind="decimal", operator="between", formula1="0", formula2="100",
           prompt="N-S score in percent (matchpoints, or IMPs converted to a percentage)", number_format="0.00")
    args = (f"A{L_FIRST}:A{ll},B{L_FIRST}:B{ll},C{L_FIRST}:C{ll},D{L_FIRST}:D{ll},E{L_FIRST}:E{ll},"
            f"F{L_FIRST}:F{ll}")
    pl = L_FIRST + P_ROWS - 1
    ws["H3"] = "Standard Lehman"
    ws["M3"] = "Modified Lehman (error bounds)"
    ws["H3"].font = ws["M3"].font = _opx()[1](bold=True)
    _headers(ws, 4, 8, ["Player", "Rating", "History boards", "Error bound"], widths=[12, 8, 9, 8])
    _headers(ws, 4, 13, ["Player", "Rating", "History boards", "Error bound"], widths=[12, 8, 9, 8])
    _array(ws, f"H{L_FIRST}:K{pl}", f'=IFERROR(INDEX(LEHMAN_LEDGER({args},"standard",$S$5),'
                                    f'{seq_column(P_ROWS)},{seq_row(4)}),"")', "0.00")
    _array(ws, f"M{L_FIRST}:P{pl}", f'=IFERROR(INDEX(LEHMAN_LEDGER({args},"modified",$S$5),'
                                    f'{seq_column(P_ROWS)},{seq_row(4)}),"")', "0.00")
    _param(ws, "R5", "S5", "Decay per week", 0.067, kind="decimal", operator="between", formula1="0",
           formula2="1", prompt="Share of the history count lost each week (OKBridge: 6.7 %)", number_format="0.0%")
    ws.column_dimensions["R"].width = 16
    _legend(ws, "R7")
    ws.freeze_panes = f"A{L_FIRST}"

    ws = wb.create_sheet("Example")
    _title(ws, "Seed 003's worked example: one board scored 42 % by N-S",
           "North: the novice (rating 50, no history); South: intermediate rated 45 with about 1,000 boards; "
           "East and West rated 45.")
    _headers(ws, 4, 1, ["", "North", "South", "East", "West"], widths=[34, 10, 10, 10, 10])
    ws["A5"] = "Rating"
    for j, v in enumerate((50, 45, 45, 45), start=2):
        ws.cell(row=5, column=j, value=v)
    _input(ws, "B5:E5", kind="decimal", operator="between", formula1="0", formula2="1000",
           prompt="Current Lehman rating", number_format="0.00")
    ws["A6"] = "History (boards)"
    for j, v in enumerate((0, 1001, 1001, 1001), start=2):
        ws.cell(row=6, column=j, value=v)
    _input(ws, "B6:E6", kind="whole", operator="between", formula1="0", formula2="100000000",
           prompt="Boards behind the rating (error bound = 1/sqrt(boards - 1))")
    ws["A7"] = "Error bound (LEHMAN_ERROR)"
    _array(ws, "B7:E7", "=LEHMAN_ERROR(B6:E6)", "0.0000")
    ws["A8"] = "N-S score (%)"
    ws["B8"] = 42
    _input(ws, "B8", kind="decimal", operator="between", formula1="0", formula2="100", prompt="N-S percentage")
    ws["A9"] = "Predicted N-S % (LEHMAN_PREDICT)"
    ws["B9"] = "=LEHMAN_PREDICT(B5:E5)"
    _calc(ws, "B9", "0.00")
    ws["A11"] = "Standard: rating change (LEHMAN_DELTA)"
    _array(ws, "B11:E11", "=LEHMAN_DELTA(B5:E5,B8)", "0.00")
    ws["A12"] = "Standard: pseudo-rating"
    _array(ws, "B12:E12", "=B5:E5+B11:E11", "0.00")
    ws["A13"] = "Modified: rating change (LEHMAN_DELTA with errors)"
    _array(ws, "B13:E13", "=LEHMAN_DELTA(B5:E5,B8,B7:E7)", "0.00")
    ws["A14"] = "Modified: pseudo-rating"
    _array(ws, "B14:E14", "=B5:E5+B13:E13", "0.00")
    ws["A16"] = "Seed 003 prints: standard N 40.89, S 36.81, E/W 53.65; modified N 30.53, S 44.45, E/W 55.01."
    _legend(ws, "G4")

    _conf_sheet(wb)
    return wb


# ---------------------------------------------------------------------------------------------
# build, check

TEMPLATES = {
    "handicap.xlsx": _handicap,
    "pairs.xlsx": _pairs,
    "teams.xlsx": _teams,
    "instant.xlsx": _instant,
    "lehman.xlsx": _lehman,
}


def build_workbook(name: str):
    """Return the openpyxl Workbook of template ``name`` (e.g. ``"pairs.xlsx"``), not saved."""
    try:
        maker = TEMPLATES[name]
    except KeyError:
        from .errors import InputError

        raise InputError(f"no template {name!r} (templates: {', '.join(TEMPLATES)})") from None
    return maker()


@functools.lru_cache(maxsize=None)
def build_bytes(name: str) -> bytes:
    """Return the bytes of template ``name``: deterministic for a given openpyxl version.

    The document properties are fixed (:data:`CREATOR`, :data:`FIXED_TIME`; openpyxl's
    ``save`` would stamp the current time, so the writer is driven directly) and every zip member
    gets the fixed timestamp 2026-01-01 00:00.
    """
    from openpyxl.writer.excel import ExcelWriter

    wb = build_workbook(name)
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
        ExcelWriter(wb, archive).write_data()
    out = io.BytesIO()
    with zipfile.ZipFile(raw) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            zi = zipfile.ZipInfo(info.filename, date_time=_ZIP_TIME)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o600 << 16
            dst.writestr(zi, src.read(info.filename))
    return out.getvalue()


def build_all(out_dir) -> list[Path]:
    """Write every template into ``out_dir`` (created if missing); return the paths written.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     sorted(p.name for p in build_all(d)) == sorted(TEMPLATES)
    True
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in TEMPLATES:
        path = out / name
        data = build_bytes(name)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        written.append(path)
    return written


def _fmt(v):
    from openpyxl.worksheet.formula import ArrayFormula

    if isinstance(v, ArrayFormula):
        return f"ARRAY[{v.ref}] {v.text}"
    if isinstance(v, float) and v.is_integer():
        return repr(v)
    return repr(v)


def _colour(fill):
    if fill is None or fill.fill_type is None:
        return None
    c = fill.fgColor
    return c.rgb if c is not None and c.type == "rgb" else f"{c.type}:{c.value}"


def canonical_dump(source) -> list[str]:
    """Return a canonical text dump of a workbook (a path, bytes or an openpyxl Workbook).

    One line per fact: document properties, sheet order, every non-empty cell (value or formula,
    array formulas with their range; the cached results inside an array range other than its
    anchor are left out, so a recalculated copy dumps like its template), its fill, bold and
    number format, column widths, merged
    cells, frozen panes, data validations (range, type, operator, formulas, input message),
    defined names and charts (type, title, every series' references). Two workbooks with the same
    dump are the same template.
    """
    openpyxl = _opx()[0]
    if isinstance(source, (bytes, bytearray)):
        wb = openpyxl.load_workbook(io.BytesIO(source))
    elif isinstance(source, (str, os.PathLike)):
        wb = openpyxl.load_workbook(source)
    else:
        wb = source
    p = wb.properties
    out = [f"properties creator={p.creator!r} created={p.created} modified={p.modified} title={p.title!r}",
           f"sheets {wb.sheetnames!r}"]
    for name, dn in sorted(wb.defined_names.items()):
        out.append(f"name {name} = {dn.attr_text}")
    from openpyxl.worksheet.formula import ArrayFormula
    from openpyxl.utils.cell import range_boundaries

    for ws in wb.worksheets:
        s = ws.title
        out.append(f"[{s}] state={ws.sheet_state} freeze={ws.freeze_panes}")
        results = set()  # cells of array ranges other than the anchor: results, not template content
        for row in ws.iter_rows():
            for c in row:
                if isinstance(c.value, ArrayFormula):
                    c1, r1, c2, r2 = range_boundaries(c.value.ref)
                    results.update((r, k) for r in range(r1, r2 + 1) for k in range(c1, c2 + 1))
                    results.discard((c.row, c.column))
        for row in ws.iter_rows():
            for c in row:
                fill = _colour(c.fill)
                value = None if (c.row, c.column) in results else c.value
                if value is None and fill is None:
                    continue
                bold = bool(c.font and c.font.b)
                out.append(f"{s}!{c.coordinate} {_fmt(value)} fill={fill} bold={bold} fmt={c.number_format!r}")
        for key, dim in sorted(ws.column_dimensions.items()):
            if dim.width:
                out.append(f"{s} col {key} width={dim.width}")
        for m in sorted(str(r) for r in ws.merged_cells.ranges):
            out.append(f"{s} merged {m}")
        for dv in ws.data_validations.dataValidation:
            out.append(f"{s} validation {dv.sqref} type={dv.type} op={dv.operator} f1={dv.formula1!r} "
                       f"f2={dv.formula2!r} blank={dv.allow_blank} prompt={dv.prompt!r}")
        for ch in ws._charts:
            out.append(f"{s} chart {type(ch).__name__} title={_chart_title(ch)!r}")
            for k, ser in enumerate(ch.series):
                out.append(f"{s} chart series {k} {_series_refs(ser)}")
    return out


def _chart_title(ch):
    t = ch.title
    if t is None or isinstance(t, str):
        return t
    try:
        return "".join(r.t for p in t.tx.rich.p for r in (p.r or []))
    except AttributeError:
        return str(t)


def _series_refs(ser):
    parts = []
    for attr in ("tx", "xVal", "yVal", "val", "cat"):
        v = getattr(ser, attr, None)
        if v is None:
            continue
        ref = None
        for sub in ("strRef", "numRef"):
            r = getattr(v, sub, None)
            if r is not None:
                ref = r.f
        if ref is None and getattr(v, "v", None) is not None:
            ref = repr(v.v)
        parts.append(f"{attr}={ref}")
    return " ".join(parts)


@functools.lru_cache(maxsize=None)
def _built_dump(name: str) -> tuple:
    return tuple(canonical_dump(build_bytes(name)))


def check_all(directory) -> list[str]:
    """Return the differences between the templates in ``directory`` and a fresh build ([] if none).

    Compares :func:`canonical_dump` of each committed file with that of a fresh build, so it
    does not depend on the zip bytes; a missing file is a difference.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = build_all(d)
    ...     check_all(d)
    []
    """
    d = Path(directory)
    diffs = []
    for name in TEMPLATES:
        path = d / name
        if not path.exists():
            diffs.append(f"{name}: missing in {d}")
            continue
        try:
            have = canonical_dump(path)
        except Exception as e:  # a damaged file is a difference, not a crash
            diffs.append(f"{name}: cannot be read ({type(e).__name__}: {e})")
            continue
        want = _built_dump(name)
        if have != list(want):
            for line in difflib.unified_diff(list(want), have, "built", "committed", lineterm="", n=0):
                if line.startswith(("---", "+++", "@@")):
                    continue
                diffs.append(f"{name}: {line}")
    return diffs


def main(argv=None) -> int:
    """``python -m xlbridge.templates [OUT_DIR] [--check]``: build (default ``workbooks``) or check."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m xlbridge.templates", description=main.__doc__)
    ap.add_argument("out", nargs="?", default="workbooks")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args(argv)
    if a.check:
        diffs = check_all(a.out)
        for line in diffs:
            print(line)
        return 1 if diffs else 0
    for p in build_all(a.out):
        print(p)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
