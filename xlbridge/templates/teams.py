"""teams.xlsx: boards to IMPs, matches to VPs, weighted boards (seed 004).

>>> [s.title for s in build().worksheets]
['Instructions', 'Boards', 'Matches', 'Teams', 'Standings', 'Swiss', 'xlwings.conf']
"""

from __future__ import annotations

from openpyxl import Workbook
from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Font, PatternFill
from openpyxl.utils.cell import quote_sheetname
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.formula import ArrayFormula

from ..core.teams.vp import vp_scale
from ..core.travellerrow import MAX_BOARD
from ..core.template_contract import (BOARD_IMPS, BOARD_INPUTS, BOARDS_SHEET, MATCH_COLUMNS, MATCHES_SHEET, PLAYER_NUMBERS, PRIVATE, PRINT_NAME, TEAM_COLUMNS,
                                       TEAMS_SHEET)
from .mirror import calc_sheet_name, headroom
from .score_rules import score_not_on_board
from .weight_rules import weights_unread

from .styling import (handout, COMMON_LINES, align, array, computed, conf_sheet, event_details, headers, input_table, instructions,
                      legend, legend_across, mark_input, new_workbook, param, seq_column, seq_row, sheet, table_head,
                      wrap_across)

__all__ = ["build"]


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

B_FIRST, B_ROWS = 5, 5_000
M_FIRST, M_ROWS = 5, 40
T_FIRST, T_ROWS = 5, 200  # Teams sheet rows
#: the example's teams: its four team names, players left for the member to type
TEAM_LIST = [(1, "Team A"), (2, "Team B"), (3, "Team C"), (4, "Team D")]
S_FIRST, S_ROWS = 5, 80  # Standings rows: the teams of 40 matches


# Printed widths (LibreOffice, which prints these books, draws a column of width w as 7 w points and the headers in a
# bold serif): each header fits its column with room to spare, or wraps at a space into shorter lines (Room 1 NS /
# (team A NS), Outcome / 2, Weight / 1), so neighbouring headers never read as one line; each sheet, its legend and
# notes included, fits one landscape A4 page wide at the scale print_setup works out.
#: The Boards sheet's headers and column widths.
BOARD_COLUMNS = ([*BOARD_INPUTS, *BOARD_IMPS],
                 [7, 7, 12, 9.5, 9.5, 7.5, 7.5, 7.5, 12, 8.5, 8.5])
#: Four narrow columns holding a legend and a capacity note beside a table (one 38 wide would print alone on a page).
NOTE_WIDTHS = [8.5, 8.5, 8.5, 8.5]

def score_unread(cell: str) -> str:
    """A conditional format's rule (Excel's words) that the room score in ``cell`` (``$C5``) is none on the row's board
    (``$B5``): a number (or a number as text, ``+420``) that no contract makes at the board's vulnerability (410 on
    any board, 620 where N-S are not vulnerable: :func:`xlbridge.templates.score_rules.score_not_on_board`, as
    ``WEIGHTED_IMPS`` and the formats read it), or a text that is neither a number, an artificial score (``A...``)
    nor ``NP``; and ``NP`` itself, which is no room's result of a match (:func:`xlbridge.core.travellerrow.room_not_played`);
    blank is no such mistake (one room only: :func:`room_missing`).

    >>> score_unread("$C5")[:63]
    'AND($C5<>"",OR(UPPER(TRIM($C5))="NP",IFERROR(IF(ISNUMBER(-$C5),'
    """
    return f'AND({cell}<>"",OR(UPPER(TRIM({cell}))="NP",{score_not_on_board("$B5", cell)}))'


def room_missing(room: str, other: str) -> str:
    """A conditional format's rule (Excel's words) that ``room`` (``$C5`` or ``$I5``) is the empty room of a board
    whose other room has a score (:func:`xlbridge.core.travellerrow.room_missing`), on a row with its match and board.

    >>> room_missing("$I5", "$C5")
    'AND($A5<>"",$B5<>"",TRIM($I5&"")="",TRIM($C5&"")<>"")'
    """
    return f'AND($A5<>"",$B5<>"",TRIM({room}&"")="",TRIM({other}&"")<>"")'


def boards_red_when(ml: int) -> dict[str, str]:
    """Each Boards input column's rule as a conditional format, by column letter (Excel's words, for the row's
    first cells ``$A5`` ...; ``ml``: the Matches table's last row): the cell turns red where the row's mistake is,
    as ``WEIGHTED_IMPS`` names it (:func:`xlbridge.core.travellerrow.board_row_mistake`; the same words in every
    command): a row with no match or board; a match or board that is no whole number (a board at most 10,000:
    :data:`xlbridge.core.travellerrow.MAX_BOARD`); a match not on the Matches sheet; a board listed again in its
    match (the later row: counted from the header down to its own row, never a range upside down); a room score
    that is none (:func:`score_unread`), or missing beside the other room's (:func:`room_missing`). A value typed
    over an IMPs cell is red by the rule of every result cell in view (:mod:`xlbridge.templates.mirror`).

    >>> boards_red_when(44)["A"][:40]
    'OR(AND($A5="",COUNTA($B5:$I5)>0),AND($A5'
    """
    def whole(c: str, high: str = "") -> str:
        return (f'AND(${c}5<>"",IFERROR(OR(VALUE(${c}5)<1,{f"VALUE(${c}5)>{high}," if high else ""}'
                f'VALUE(${c}5)<>INT(VALUE(${c}5))),TRUE))')

    return {
        "A": (f'OR(AND($A5="",COUNTA($B5:$I5)>0),{whole("A")},'
              f'AND($A5<>"",COUNTIF({MATCHES_SHEET}!$A${M_FIRST - 1}:$A${ml},$A5)=0))'),
        "B": (f'OR(AND($B5="",COUNTA($A5,$C5:$I5)>0),{whole("B", str(MAX_BOARD))},'
              f'AND($A5<>"",$B5<>"",COUNTIFS($A${B_FIRST - 1}:$A5,$A5,$B${B_FIRST - 1}:$B5,$B5)>1))'),
        "C": f"OR({score_unread('$C5')},{room_missing('$C5', '$I5')})", "D": score_unread("$D5"),
        "E": score_unread("$E5"), "I": f"OR({score_unread('$I5')},{room_missing('$I5', '$C5')})",
        **weights_unread("C", "F", B_FIRST),
    }


def _boards_sheet(wb: Workbook) -> int:
    """The Boards sheet: each board's two rooms, weighted outcomes and IMPs; returns the table's last row."""
    ws = sheet(wb, BOARDS_SHEET, BOARDS_SHEET, "Example: match 1 is seed 004's Swiss match (7 boards, board 1 weighted); match 2 is plain.")
    last = table_head(ws, B_FIRST, B_ROWS, TEAM_BOARDS, *BOARD_COLUMNS)
    mark_input(ws, f"A{B_FIRST}:B{last}", kind="whole", operator="between", formula1="1", formula2="10000",
           prompt="Match number and board number")
    mark_input(ws, f"C{B_FIRST}:C{last}",
           prompt="N-S score in room 1 (a number, or an artificial score A60/40, A+, A=, A-)")
    mark_input(ws, f"D{B_FIRST}:E{last}", kind="whole", operator="between", formula1="-7600", formula2="7600",
           prompt="For a weighted board, the other possible room-1 outcomes")
    mark_input(ws, f"F{B_FIRST}:H{last}", kind="decimal", operator="between", formula1="0", formula2="1",
           prompt="Weighted board only: the weights of the outcomes (total 100 %)", number_format="0%")
    mark_input(ws, f"I{B_FIRST}:I{last}",
           prompt="N-S score in room 2, team B sitting N-S (a number, or an artificial score A60/40, A+, A=, A-)")
    # the rows' match and board too, and the Matches sheet's matches: a row's mistake is #VALUE! naming its input
    # cell (a board listed twice, a match not on the Matches sheet), left out of its match by MATCH_RESULT
    array(ws, f"J{B_FIRST}:J{last}",
           f"=WEIGHTED_IMPS(C{B_FIRST}:E{last},F{B_FIRST}:H{last},I{B_FIRST}:I{last},A{B_FIRST}:A{last},"
           f"B{B_FIRST}:B{last},{MATCHES_SHEET}!$A${M_FIRST}:$A${M_FIRST + M_ROWS - 1})", "0.0")
    # IMPs B: the hidden IMPs A negated (a value typed over an IMPs A cell in view changes nothing else)
    imps = board_imps(last)
    array(ws, f"K{B_FIRST}:K{last}", f'=IF(ISNUMBER({imps}),-{imps},{imps})', "0.0")
    red = PatternFill(fill_type="solid", start_color="FFFF0000", end_color="FFFF0000")
    for letter, rule in boards_red_when(M_FIRST + M_ROWS - 1).items():  # a row's mistake: red at its input cell
        ws.conditional_formatting.add(f"{letter}{B_FIRST}:{letter}{last}", FormulaRule(
            formula=[rule], stopIfTrue=True, fill=red, font=Font(bold=True, color="FFFFFFFF")))
    ws.row_dimensions[4].height = 30  # (two lines: Outcome / 2)
    ws.column_dimensions["L"].width = 2  # (a narrow gap before the legend)
    legend_across(ws, "M4", NOTE_WIDTHS)
    input_table(ws, f"A{B_FIRST}:I{last}", "M8", "board results")
    return last


def board_imps(last: int) -> str:
    """Each Boards row's IMPs for team A from its inputs, as the Matches sheet reads them (``last``: the Boards
    table's last row): the hidden column of the Boards IMPs A (``WEIGHTED_IMPS`` of the rows' rooms, weights, match
    and board, on the hidden sheet, :mod:`xlbridge.templates.mirror`), never the IMPs A cells in view, so that a
    value typed over one is no match's result (issue 52: the results always come from the row's inputs;
    ``xlbridge recalc`` names the cell typed over). One call for the whole table, read by every match (each match
    computing the table's IMPs again took the worked example's recalculation 8 s).

    The hidden column starts at the table's header row, as the table's ranges do, and runs past the table by its
    headroom (:func:`xlbridge.templates.mirror.headroom`); the Boards ranges beside it in a Matches formula run
    twice as far. Its k-th cell is the row at position k of those ranges, whatever rows are inserted, deleted or
    sorted (both follow the table's edits), and the ranges' positions past it are blank rows (headroom), which
    every program's ``IF`` gives its value if false.

    >>> board_imps(5004)
    "'Boards (calc)'!$J$4:$J$5054"
    """
    top, bottom = B_FIRST - 1, last + headroom(last - B_FIRST + 1)
    return f"{quote_sheetname(calc_sheet_name(BOARDS_SHEET))}!$J${top}:$J${bottom}"


def _matches_sheet(wb: Workbook, last: int) -> int:
    """The Matches sheet: each match's IMPs and VPs (``last``: the Boards table's last row); returns the table's last row."""
    ws = sheet(wb, MATCHES_SHEET, MATCHES_SHEET, f"IMP totals (weighted boards rounded once, at the end) and VPs "
                                                 f"({vp_scale().label} 20-VP scale).")
    ml = table_head(ws, M_FIRST, M_ROWS, TEAM_MATCHES,
        [*MATCH_COLUMNS, "IMPs A", "IMPs B", "VP A", "VP B"],
        [7, 14, 14, 8.5, 8.5, 8.5, 7, 7])
    mark_input(ws, f"A{M_FIRST}:A{ml}", kind="whole", operator="between", formula1="1", formula2="10000",
           prompt="Match number as on the Boards sheet")
    mark_input(ws, f"B{M_FIRST}:C{ml}", prompt="Team names", text=True)
    mark_input(ws, f"D{M_FIRST}:D{ml}", kind="whole", operator="between", formula1="1", formula2="200",
           prompt="Number of boards of the match (the VP scale depends on it)")
    # one formula per match, naming its match by its position in the table (INDEX), not by its row: a
    # match moved, inserted or deleted keeps its result (xlbridge.templates.mirror); the rows past the
    # table (its headroom) are the hidden sheet's only. The table's ranges start at its header row (mirror):
    # the k-th match is at position k + 1
    col = lambda c: f"${c}${M_FIRST}:${c}${ml}"  # noqa: E731
    for k in range(1, M_ROWS + headroom(M_ROWS) + 1):
        r, at = M_FIRST + k - 1, k + 1
        formula = (f'=IF(INDEX({col("A")},{at})="","",MATCH_RESULT(IF(Boards!$A${B_FIRST}:$A${last}=INDEX({col("A")},{at}),'
                   f'{board_imps(last)},""),INDEX({col("D")},{at}),"nearest"))')
        if k <= M_ROWS:
            array(ws, f"E{r}:H{r}", formula, "0.00")
        else:
            ws[f"E{r}"] = ArrayFormula(f"E{r}:H{r}", formula)
    ws.column_dimensions["I"].width = 2  # (a narrow gap before the legend and the event's details)
    legend_across(ws, "J4", [12, 24])  # (over the labels, J, and the values, K, of the event's details)
    input_table(ws, f"A{M_FIRST}:D{ml}", "J8", "matches", note_width=2)
    event_details(ws, "J13")
    # the matches in use are printed, not the 40 rows of the table (nor the rows of the hidden results' headroom,
    # which print_setup counts): `xlbridge recalc` cuts the print area after the last row in use, the event's
    # details at least
    ws.defined_names[PRINT_NAME] = DefinedName(PRINT_NAME, attr_text=f"'{MATCHES_SHEET}'!$A$1:$K${ml}")
    return ml


def _teams_sheet(wb: Workbook) -> None:
    """The Teams sheet: each team's number, name, players, numbers and privacy."""
    ws = sheet(wb, TEAMS_SHEET, TEAMS_SHEET, "Optional: each team's number, its name as on the Matches sheet, its players and "
               "their national numbers (for the results site and the files sent to the federation).")
    tl = table_head(ws, T_FIRST, T_ROWS, TEAM_LIST, [*TEAM_COLUMNS, PLAYER_NUMBERS, PRIVATE], [7, 16, 40, 24, 8])
    ws.column_dimensions["F"].width = 2  # (a narrow gap before the legend)
    wrap_across(ws, "A2:I2", 2)  # (the caption, longer than the printed columns)
    mark_input(ws, f"A{T_FIRST}:A{tl}", kind="whole", operator="between", formula1="1", formula2="10000",
               prompt="Team number (any positive whole number)")
    mark_input(ws, f"B{T_FIRST}:B{tl}", prompt="The team's name exactly as on the Matches sheet", text=True)
    mark_input(ws, f"C{T_FIRST}:C{tl}", prompt="The players' names, e.g. Ann Smith & Bob Jones & Cy Lee & Di Ray")
    mark_input(ws, f"D{T_FIRST}:D{tl}", prompt="Optional: the players' national (federation) numbers in the order of "
                                              "the names, e.g. 12345 & 67890 & 13579 & 24680", number_format="@")
    mark_input(ws, f"E{T_FIRST}:E{tl}", kind="list", formula1='"yes"',
               prompt="Optional: yes to keep the team's name and players off the results site (the team is shown "
                      "by its number only); blank: names shown")
    legend_across(ws, "G4", NOTE_WIDTHS)
    input_table(ws, f"A{T_FIRST}:E{tl}", "G8", "teams")


def not_counted() -> str:
    """The Standings' line naming the Boards rows left out of their matches (blank when none): a row whose IMPs A is
    an error, a row's mistake named at its input cell (:func:`boards_red_when`, ``WEIGHTED_IMPS``). Standard
    functions only: every program shows it.

    >>> not_counted()[:44]
    'IFERROR(IF(SUM(IF(ISERROR(Boards!J5:J5004),1'
    """
    imps = f"{BOARDS_SHEET}!J{B_FIRST}:J{B_FIRST + B_ROWS - 1}"
    bad = f"IF(ISERROR({imps}),1,0)"
    first = f"MIN(IF({bad}=1,ROW({imps}),1000000000))"
    count = f"SUM({bad})"
    return (f'IFERROR(IF({count}=0,"","Not counted: {BOARDS_SHEET} row "&{first}&IF({count}>1," and "&({count}-1)'
            f'&" more","")&" (red there: put it right, then recalculate)"),"")')


def _standings_sheet(wb: Workbook, ml: int) -> None:
    """The Standings sheet: TEAM_STANDINGS of the matches (``ml``: the Matches table's last row)."""
    ws = sheet(wb, "Standings", "Standings", "Teams by VP total (exact; equal totals share the rank, 2=); the IMP difference "
                           "is shown for the competition's tie-break.")
    sl = S_FIRST + S_ROWS - 1
    headers(ws, 4, 1, ["Team", "Played", "VPs", "IMP difference", "Rank"], widths=[16, 8, 9, 11, 7])
    array(ws, f"A{S_FIRST}:E{sl}",
          f"=IFERROR(INDEX(TEAM_STANDINGS(Matches!B{M_FIRST}:B{ml},Matches!C{M_FIRST}:C{ml},"
          f"Matches!G{M_FIRST}:H{ml},Matches!E{M_FIRST}:F{ml}),{seq_column(S_ROWS)},{seq_row(5)}),\"\")")
    array(ws, "A3", f"={not_counted()}")  # (the rows left out, in a line of the printed page)
    ws["A3"].font = Font(bold=True, color="FFC00000")
    computed(ws, f"C{S_FIRST}:D{sl}", "0.00")  # VPs, IMP difference
    align(ws, f"E{S_FIRST}:E{sl}", "center")  # (the rank apart from the IMP difference: never "6.001")
    legend(ws, "G4")
    ws.freeze_panes = f"A{S_FIRST}"


def _swiss_sheet(wb: Workbook) -> None:
    """The Swiss sheet: seed 004's weighted board worked at IMP and at VP level."""
    ws = sheet(wb, "Swiss", "Seed 004: one weighted board in a Swiss match, at IMP level and at VP level",
           "TD: 60 % of 4S= (420) and 40 % of 4S-1 (-50); the other room scored 400.")
    param(ws, "A4", "C4", "Other room N-S score", 400, kind="whole", operator="between", formula1="-7600",
           formula2="7600", prompt="N-S score at the other table")
    param(ws, "A5", "C5", "IMPs for team A on the other boards", 8, kind="decimal", operator="between",
           formula1="-1000", formula2="1000", prompt="Team A's IMP margin without this board")
    param(ws, "A6", "C6", "Boards in the match", 7, kind="whole", operator="between", formula1="1",
           formula2="200", prompt="Match length (the VP scale depends on it)")
    ws.column_dimensions["A"].width = 46  # (its longest label, A15, whole beside its value)
    headers(ws, 8, 2, ["Outcome 1", "Outcome 2"], widths=[10.5, 10.5])
    ws["A9"] = "N-S score of the outcome"
    ws["A10"] = "Weight"
    ws["B9"], ws["C9"] = 420, -50
    ws["B10"], ws["C10"] = 0.6, 0.4
    mark_input(ws, "B9:C9", kind="whole", operator="between", formula1="-7600", formula2="7600",
           prompt="A possible N-S outcome")
    mark_input(ws, "B10:C10", kind="decimal", operator="between", formula1="0", formula2="1",
           prompt="Its weight (total 100 %)", number_format="0%")
    ws["A11"] = "IMPs of the outcome (IMPS)"
    array(ws, "B11:C11", "=IMPS(B9:C9-C4)")
    ws["A12"] = "Match margin with this outcome"
    array(ws, "B12:C12", "=C5+B11:C11")
    ws["A13"] = "VPs of the outcome (VP)"
    array(ws, "B13:C13", "=VP(B12:C12,C6)", "0.00")
    ws["A15"] = "IMP level: weighted IMPs on the board (WEIGHTED_IMPS)"
    # (one-cell arrays, on the hidden sheet like every xlbridge result: a full recalculation in LibreOffice, which
    # has no xlbridge functions, blanks them instead of showing #NAME?)
    array(ws, "B15", "=WEIGHTED_IMPS(B9:C9,B10:C10,C4)")
    ws["A16"] = "IMP level: match margin, rounded once"
    array(ws, "B16", "=ROUND(C5+B15,0)")
    ws["A17"] = "IMP level: VPs (the regulation way)"
    array(ws, "B17", "=VP(B16,C6)")
    ws["A18"] = "VP level: weighted VPs (seed 004's proposal)"
    array(ws, "B18", "=SUMPRODUCT(B10:C10,B13:C13)")
    ws["A19"] = "Board-a-match: weighted board result"
    ws["B19"] = "=SUMPRODUCT(B10:C10,SIGN(B9:C9-C4))"
    computed(ws, "B15:B19", "0.00")
    ws.column_dimensions["D"].width = 2  # (a narrow gap before the legend)
    legend_across(ws, "E4", NOTE_WIDTHS)


def build() -> Workbook:
    wb = new_workbook("Teams: IMPs and VPs with weighted boards")
    instructions(wb, "Teams: boards to IMPs, matches to Victory Points", [
        "What it does: scores a teams event: each board's IMPs, each match's Victory Points (WBF 20-VP "
        "scale, by the match's length) and the standings.",
        "What to type. Sheet Boards, one row per board: Match, Board, the N-S score in room 1 (team A "
        "sitting N-S) and the N-S score in room 2 (team B sitting N-S); an adjusted score is A60/40, A+, "
        "A= or A-. A weighted board (Law 12C1(c)): the other room-1 outcomes in Outcome 2 and 3, the "
        "weights in Weight 1 to 3.",
        "Sheet Matches, one row per match: the match number, the two teams' names and the number of "
        "boards; beside it Event, Date, Club and Scorer: the results site and the files for the federation "
        "(PBN, USEBIO) carry them. "
        "Sheet Teams (optional): each team's number, its name as on Matches, its players and their "
        "national numbers.",
        "What comes out: IMPs A and B beside each board (a board with one room's score only is red at the "
        "empty room, and left out of its match until that room is typed); the IMPs and VPs of each match; sheet Standings: each team's VPs, "
        "IMP difference and rank (equal VPs share a rank, 2=). Sheet Swiss: a worked example of a weighted "
        "board.",
    ] + COMMON_LINES)
    last = _boards_sheet(wb)
    ml = _matches_sheet(wb, last)
    _teams_sheet(wb)
    _standings_sheet(wb, ml)
    _swiss_sheet(wb)
    handout(wb, ["Standings", MATCHES_SHEET, BOARDS_SHEET, TEAMS_SHEET])  # (the members' handout: the standings first)
    conf_sheet(wb)
    return wb
