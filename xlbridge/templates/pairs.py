"""pairs.xlsx: travellers to matchpoints and a ranking; the Neuberg worked examples (seeds 004 and 001).

>>> [s.title for s in build().worksheets]
['Instructions', 'Travellers', 'Pairs', 'Ranking', 'Neuberg', 'xlwings.conf']
"""

from __future__ import annotations

from openpyxl import Workbook
from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Alignment, Font, PatternFill

from ..core.pairs.standings import ARROW_MARKS
from ..core.travellerrow import RED_WHEN
from ..core.vocabulary import Direction
from ..core.template_contract import (ARROW_COLUMN, PAIRS_PARAMETER_CELLS, MP_COLUMNS, ARTIFICIAL_CHOICES, ARTIFICIAL_LABEL, EXPECTED_LABEL, MAX_EXPECTED,
                                       MOVEMENT_CHOICES, MOVEMENT_LABEL, SCALE_CHOICES, SCALE_LABEL,
                                       SCORE_COLUMN, choices_list, choices_words, PAIR_COLUMNS, PAIRS_SHEET, PLAYER_NUMBERS, PRIVATE, RANKING_SHEET, TRAVELLER_COLUMNS, TRAVELLER_WEIGHTS,
                                       TRAVELLERS_SHEET)

from .mirror import headroom
from .score_rules import score_not_on_board
from .weight_rules import weights_unread
from .styling import (handout, COMMON_LINES, align, array, bold, computed, conf_sheet, event_details, fill_rows, headers, input_table,
                      instructions, legend_across, mark_input, new_workbook, param, seq_column, seq_row, sheet,
                      table_head)

__all__ = ["build"]


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

# the sample session's pairs (a Mitchell: N-S 1 to 6, E-W 11 to 16); names are illustrative
_NAMES = ["A. Adams & B. Brown", "C. Clark & D. Davies", "E. Evans & F. Fisher", "G. Green & H. Hall",
          "I. Irving & J. Jones", "K. King & L. Lewis", "M. Moore & N. Nash", "O. Owen & P. Price",
          "Q. Quinn & R. Reid", "S. Shaw & T. Turner", "U. Upton & V. Vance", "W. Ward & Y. Young"]
PAIRS = [(n, "NS" if n < 10 else "EW", name) for n, name in zip([1, 2, 3, 4, 5, 6, 11, 12, 13, 14, 15, 16], _NAMES)]

# seed 001: the board where 11 results were expected and 10 obtained (section 4c); the board
# that should have been played 16 times and was played 8 times (section 4e)
NEUBERG_C = [520, 500, 490, 480, 460, 450, 430, 420, 400, -50]
NEUBERG_E = [490, 460, 460, 430, 430, 430, 400, -50]

T_FIRST, T_ROWS = 5, 10_000
R_FIRST, R_ROWS = 5, 400  # ranking rows: both fields of a Mitchell
P_FIRST, P_ROWS = 5, 400  # Pairs sheet rows

# Printed widths (LibreOffice, which prints these books, draws a column of width w as 7 w points and the headers in a
# bold serif): each header fits its column with room to spare, or wraps at a space into lines as short (Typed /
# Score, Outcome / 2 NS, Weight / 1, MP / NS), so neighbouring headers never read as one line; the whole sheet,
# its parameters and legend included, fits one landscape A4 page at the scale print_setup works out.
#: The Travellers sheet's column widths, A (Board) to P (Arrow switch).
TRAVELLER_WIDTHS = [7, 6, 6, 9, 9, 7, 8, 7, 9.5, 9.5, 7.5, 7.5, 7.5, 6, 6, 8]
#: The widths of the Travellers parameters' labels (Q) and values (R); the legend spans both.
PARAM_WIDTHS = [24, 13]
#: Four narrow columns holding a legend and a capacity note beside a table (one 38 wide would print alone on a page).
NOTE_WIDTHS = [8.5, 8.5, 8.5, 8.5]


def parameter(label: str, sheet: str = "") -> str:
    """The absolute reference of the Travellers sheet's parameter ``label`` (its value's cell, declared once:
    :data:`~xlbridge.core.template_contract.PAIRS_PARAMETER_CELLS`), from another sheet when ``sheet`` is given.

    >>> parameter(MOVEMENT_LABEL), parameter(SCALE_LABEL, TRAVELLERS_SHEET)
    ('$R$7', 'Travellers!$R$5')
    """
    cell = PAIRS_PARAMETER_CELLS[label]
    letters = cell.rstrip("0123456789")
    return f"{sheet + '!' if sheet else ''}${letters}${cell[len(letters):]}"


def row_scores(sheet: str, *, across: bool = False) -> str:
    """Each traveller row's N-S score from its inputs (``sheet``: ``""`` or ``"Travellers!"``): the Score NS column's
    formula, ``SCORE_OR_TYPED`` of Contract, Declarer, Tricks, Board and Typed Score, and the row's pairs (NS, EW: a
    row of pairs without a result, or a result without its pairs, is a mistake named at its input cell) and the
    Movement parameter (the rows read together: a row typed twice, a pair playing a board twice or against itself in
    a Howell, is a mistake at its NS or EW cell) and the Pairs sheet's Pair and Direction columns (a pair not on it,
    when it lists pairs, or no whole number and not on it: :func:`xlbridge.core.travellerrow.unlisted_pair`; in a
    Mitchell, a pair seated in the other field than the sheet's, unless the row's Arrow switch is marked:
    :class:`xlbridge.core.travellerrow.PairCheck`). ``across``: computed on the
    columns turned into rows and turned back (the same column of scores), as an argument of another function: the
    formula engine takes a function's result of more rows than its cell's array for a table cut short
    (``xlbridge recalc``: "gives 10,000 rows, more than the 400 rows of this range"), and one row is not."""
    last = T_FIRST + T_ROWS - 1
    # the movement (the rows' pairs read together), the Pairs sheet's Pair and Direction columns (each pair against
    # it, in its field), and the Arrow switch column (a switched row seats each field's pairs in the other's seats)
    together = f",{sheet}{parameter(MOVEMENT_LABEL)},{PAIRS_SHEET}!$A${P_FIRST}:$B${P_FIRST + P_ROWS - 1}"
    if across:
        return ("TRANSPOSE(SCORE_OR_TYPED(" + ",".join(f"TRANSPOSE({sheet}{c}{T_FIRST}:{c}{last})" for c in "DEFAGBC")
                + together + f",TRANSPOSE({sheet}P{T_FIRST}:P{last})))")
    return ("SCORE_OR_TYPED(" + ",".join(f"{sheet}{c}{T_FIRST}:{c}{last}" for c in "DEFAGBC") + together
            + f",{sheet}P{T_FIRST}:P{last})")


def scored_outcomes(sheet: str) -> str:
    """The n x 3 outcomes of each traveller row that the matchpoints and the ranking read: its score from its inputs
    (:func:`row_scores`), then Outcome 2 and 3 NS (blank stays blank). A value typed over a Score NS cell is not
    read: the results always come from the row's inputs, and the typed cell is red and named by ``xlbridge recalc``,
    ``publish`` and ``export`` (the rule of issue 52, as :func:`xlbridge.formats.pairsbook.read_pairs_workbook` reads
    the book). ``IF({1,0,0},scores,outcomes)`` takes the first column from the scores, the others from the
    outcomes (Excel, LibreOffice and the formula engine broadcast the three alike)."""
    last = T_FIRST + T_ROWS - 1
    block = f"{sheet}H{T_FIRST}:J{last}"
    return f'IF({{1,0,0}},{row_scores(sheet, across=True)},IF({block}="","",{block}))'


def not_counted() -> str:
    """The Ranking's line naming the traveller rows it leaves out (blank when none): a row whose Score NS is an error
    (a half-filled row, a mistyped cell: :func:`xlbridge.core.travellerrow.row_mistake`, or an unreadable score), a
    row whose matchpoints are ``#VALUE!`` (a score no contract makes on that board), and a row with its pairs but
    neither a contract nor a typed score. Standard functions only: every program shows it.

    >>> not_counted()[:40]
    'IFERROR(IF(SUM(IF(ISERROR(Travellers!H5:'
    """
    last = T_FIRST + T_ROWS - 1

    def col(c: str) -> str:
        return f"{TRAVELLERS_SHEET}!{c}{T_FIRST}:{c}{last}"

    bad = (f"IF(ISERROR({col('H')}),1,IF(IFERROR(ERROR.TYPE({col('N')})=3,FALSE),1,"
           f'IF(({col("B")}&{col("C")}<>"")*({col("D")}&{col("G")}=""),1,0)))')
    first = f"MIN(IF({bad}=1,ROW({col('H')}),1000000000))"
    count = f"SUM({bad})"
    return (f'IFERROR(IF({count}=0,"","Not counted: {TRAVELLERS_SHEET} row "&{first}&IF({count}>1," and "&({count}-1)'
            f'&" more","")&" (red there: put it right, then recalculate)"),"")')


def contract_unread() -> str:
    """A conditional format's rule (Excel's words, for the row's first cells ``$D5`` Contract ...) that the contract
    typed is none the scorers read (:meth:`xlbridge.core.contract.Contract.parse`): a number, or a text that is
    neither a pass (``PASS``, ``P``, ``AP``, ``PASSED``, ``PASSED OUT``, ``ALL PASS``) nor a level 1-7, a strain
    (C, D, H, S, NT or N) and X, XX or R, spaces allowed between them (``8S``, ``4Z``, ``3NTXXX`` are red; ``4s``,
    ``3N``, `` 6H R`` are not). Standard functions only: Excel and LibreOffice show it as it is typed.

    >>> contract_unread()[:50]
    'AND($D5<>"",NOT(OR(AND(ISTEXT($D5),OR(UPPER(TRIM($'
    """
    word = 'UPPER(TRIM($D5))'
    tight = 'UPPER(SUBSTITUTE($D5," ",""))'
    passes = ",".join(f'{word}="{p}"' for p in ("PASS", "P", "AP", "PASSED", "PASSED OUT", "ALL PASS"))
    endings = "|" + "|".join(s + d for s in ("C", "D", "H", "S", "NT", "N") for d in ("", "X", "XX", "R")) + "|"
    contract = (f'AND(ISTEXT($D5),LEN({tight})>=2,ISNUMBER(FIND(LEFT({tight},1),"1234567")),'
                f'ISERROR(FIND("|",$D5)),ISNUMBER(FIND("|"&MID({tight},2,9)&"|","{endings}")),'
                f'ISERROR(FIND("N T",{word})),ISERROR(FIND("X X",{word})))')
    return f'AND($D5<>"",NOT(OR(AND(ISTEXT($D5),OR({passes})),{contract})))'


def typed_score_unread() -> str:
    """A conditional format's rule (Excel's words, for the row's first cells ``$A5`` Board ... ``$G5`` Typed
    Score) that the Typed Score of a row without a contract is no score on that board: a number (or a number as
    text) that no contract makes at the board's vulnerability (the standard 16-board cycle,
    :meth:`xlbridge.core.vocabulary.Vulnerability.of_board`; the scores N-S make or lose declaring at N-S's
    vulnerability, E-W's negated at E-W's, or 0: :func:`xlbridge.core.contract.declarer_scores`), e.g. 410 on
    any board, 620 where N-S are not vulnerable; or a text that is neither a number, an artificial score
    (``A...``) nor ``NP``. A board that is no board number is red at the board (:data:`RED_WHEN`), not here.

    >>> typed_score_unread()[:52]
    'AND($D5="",$G5<>"",IFERROR(IF(ISNUMBER(-$G5),NOT(OR('
    """
    return f'AND($D5="",$G5<>"",{score_not_on_board("$A5", "$G5")})'


def pair_unlisted(letter: str) -> str:
    """A conditional format's rule (Excel's words, for the row's cell ``$B5`` N-S or ``$C5`` E-W: ``letter``) that the
    pair typed there is no pair (:func:`xlbridge.core.travellerrow.unlisted_pair`): when the Pairs sheet lists pairs,
    one it does not list; while it is empty, anything but a whole number 1 or more. The Pairs sheet's Pair column is
    read from its header row (a pair inserted directly below the header is listed), the header itself not counted.

    >>> pair_unlisted("B")[:60]
    'AND($B5<>"",IF(COUNTA(Pairs!$A$4:$A$414)>1,COUNTIF(Pairs!$A$'
    """
    last = P_FIRST + P_ROWS - 1 + 2 * headroom(P_ROWS)  # (as the arrays read the Pairs sheet)
    listed = f"{PAIRS_SHEET}!$A${P_FIRST - 1}:$A${last}"
    cell = f"${letter}{T_FIRST}"
    return (f'AND({cell}<>"",IF(COUNTA({listed})>1,COUNTIF({listed},{cell})=0,'
            f'IFERROR(OR(VALUE({cell})<1,VALUE({cell})<>INT(VALUE({cell}))),TRUE)))')


def pair_twice(letter: str) -> str:
    """A conditional format's rule (Excel's words, for the row's cell ``$B5`` N-S or ``$C5`` E-W: ``letter``) that the
    row's pairs are a mistake only the rows together show (:class:`xlbridge.core.travellerrow.PairCheck`, whose order
    it keeps): at N-S, a row typed twice on its board or the N-S pair playing the board twice; at E-W, a pair against
    itself in a Howell, or the E-W pair playing the board twice. The later row is the mistake: the rows are counted
    from the header down to the row's own (never a range upside down, whatever row the rule is read from). In a
    Howell (the Movement parameter, ``$R$7``) a pair is one number whichever column it sits in; in a Mitchell N-S 1
    and E-W 1 are two pairs.

    >>> pair_twice("B")[:63]
    'AND($A5<>"",$B5<>"",$C5<>"",OR(COUNTIFS($A$4:$A5,$A5,$B$4:$B5,$'
    """
    upto = {c: f"${c}${T_FIRST - 1}:${c}{T_FIRST}" for c in "ABC"}  # (from the header to the row, itself counted)
    howell = f'{parameter(MOVEMENT_LABEL)}="{MOVEMENT_CHOICES[1]}"'

    def twice(own: str) -> str:  # the row's pair in column ``own`` met on the board before (either column: Howell)
        other = "C" if own == "B" else "B"
        p = f"${own}{T_FIRST}"  # (in the other column its own row holds it only against itself, decided first)
        return (f"OR(COUNTIFS({upto['A']},$A5,{upto[own]},{p})>1,"
                f"AND({howell},COUNTIFS({upto['A']},$A5,{upto[other]},{p})>0))")

    duplicate = f"COUNTIFS({upto['A']},$A5,{upto['B']},$B5,{upto['C']},$C5)>1"
    against = f'AND({howell},$B5&""=$C5&"")'
    filled = '$A5<>"",$B5<>"",$C5<>""'
    if letter == "B":
        return f"AND({filled},OR({duplicate},AND(NOT({against}),{twice('B')})))"
    return f"AND({filled},NOT({duplicate}),OR({against},AND(NOT({twice('B')}),{twice('C')})))"


def pair_in_other_field(letter: str) -> str:
    """A conditional format's rule (Excel's words, for the row's cell ``$B5`` N-S or ``$C5`` E-W: ``letter``) that in a
    Mitchell the pair typed there is listed on the Pairs sheet in the other field only
    (:class:`xlbridge.core.travellerrow.PairCheck`): the N-S seat's field is N-S, the E-W field's on a row whose
    Arrow switch (``$P5``) is marked (:data:`xlbridge.core.pairs.standings.ARROW_MARKS`). A pair the sheet lists with
    no direction is not judged here. Directions are read by their first letter (``NS``, ``N-S``, ``N/S``, ``N``).

    >>> pair_in_other_field("B")[:60]
    'AND($B5<>"",Travellers!$R$7<>"Howell",SUMPRODUCT((Pairs!$A$4'
    """
    last = P_FIRST + P_ROWS - 1 + 2 * headroom(P_ROWS)  # (as the arrays read the Pairs sheet: from its header row,
    listed = f"{PAIRS_SHEET}!$A${P_FIRST - 1}:$A${last}"  # whose texts are no pair and no direction)
    fields = f"LEFT(UPPER(TRIM({PAIRS_SHEET}!$B${P_FIRST - 1}:$B${last})),1)"
    cell = f"${letter}{T_FIRST}"
    same = f'({listed}&""={cell}&"")'
    marked = "OR(" + ",".join([f"$P{T_FIRST}=TRUE", f"$P{T_FIRST}=1"]
                              + [f'UPPER(TRIM($P{T_FIRST}&""))="{m.upper()}"' for m in ARROW_MARKS]) + ")"
    seat = "N" if letter == "B" else "E"
    other = "E" if letter == "B" else "N"
    field = f'IF({marked},"{other}","{seat}")'
    return (f'AND({cell}<>"",{parameter(MOVEMENT_LABEL, TRAVELLERS_SHEET)}<>"{MOVEMENT_CHOICES[1]}",'
            f'SUMPRODUCT({same}*(({fields}="N")+({fields}="E")))>0,SUMPRODUCT({same}*({fields}={field}))=0)')


def _read_direction(cell: str) -> str:
    """Excel's words for the field (``"N"`` or ``"E"``) a Pairs sheet's Direction cell spells
    (:meth:`xlbridge.core.vocabulary.Direction.parse`: ``NS``, ``N-S``, ``N/S``, ``N`` and the E-W ones, any case),
    ``""`` for any other text.

    >>> _read_direction("$B5")[:40]
    'IF(OR(UPPER(TRIM($B5))="NS",UPPER(TRIM($'
    """
    def spelt(d: Direction) -> str:
        return "OR(" + ",".join(f'UPPER(TRIM({cell}))="{t}"' for t in d.spellings) + ")"

    return f'IF({spelt(Direction.NS)},"N",IF({spelt(Direction.EW)},"E",""))'


def pair_listed_twice() -> str:
    """A conditional format's rule (Excel's words, for the Pairs sheet's cell ``$A5``) that the pair is listed on a
    row above (:func:`xlbridge.core.travellerrow.pairs_row_mistake`: the later listing is the mistake): in a Howell
    (the Travellers sheet's Movement parameter, ``$R$7``) the same number; in a Mitchell the same number in the same
    field, however its direction is spelt (a row above whose direction is no direction lists no pair). The rows are
    counted from the header down to the row's own; numbers compared as text (``3`` is ``"3"``).

    >>> pair_listed_twice()[:52]
    'AND($A5<>"",IF(Travellers!$R$7="Howell",SUMPRODUCT(('
    """
    howell = f'{parameter(MOVEMENT_LABEL, TRAVELLERS_SHEET)}="{MOVEMENT_CHOICES[1]}"'
    same = f'($A${P_FIRST - 1}:$A{P_FIRST}&""=$A{P_FIRST}&"")'
    above = f"UPPER(TRIM($B${P_FIRST - 1}:$B{P_FIRST}))"

    def in_field(d: Direction) -> str:  # 1 on each row (from the header to this one) whose direction spells d
        return "(" + "+".join(f'({above}="{t}")' for t in d.spellings) + ")"

    field = _read_direction(f"$B{P_FIRST}")
    mitchell = (f'IF({field}="N",SUMPRODUCT({same}*{in_field(Direction.NS)}),'
                f'IF({field}="E",SUMPRODUCT({same}*{in_field(Direction.EW)}),0))')
    return f'AND($A{P_FIRST}<>"",IF({howell},SUMPRODUCT({same}*1),{mitchell})>1)'


def direction_unread() -> str:
    """A conditional format's rule (Excel's words, for the Pairs sheet's cell ``$B5``) that a Mitchell's pair has
    no direction the readers read (:func:`xlbridge.core.travellerrow.pairs_row_mistake`).

    >>> direction_unread()[:48]
    'AND($A5<>"",Travellers!$R$7<>"Howell",IF(OR(UPPE'
    """
    return (f'AND($A{P_FIRST}<>"",{parameter(MOVEMENT_LABEL, TRAVELLERS_SHEET)}<>"{MOVEMENT_CHOICES[1]}",'
            f'{_read_direction(f"$B{P_FIRST}")}="")')


def _label_and_value(label: str) -> tuple[str, str]:
    """The cells of a Travellers parameter's label and value: the value's declared cell and the one to its left."""
    cell = PAIRS_PARAMETER_CELLS[label]
    letters = cell.rstrip("0123456789")
    return f"{chr(ord(letters) - 1)}{cell[len(letters):]}", cell


def _travellers_sheet(wb: Workbook) -> None:
    """The Travellers sheet: the traveller rows, their Score NS and matchpoints, the parameters and event details."""
    ws = sheet(wb, TRAVELLERS_SHEET, TRAVELLERS_SHEET, "Example: seed 004's boards with weighted scores (boards 1 and 3); board 2 has an "
                             "artificial score and was not played at one table.")
    last = T_FIRST + T_ROWS - 1
    headers(ws, 4, 1, [*TRAVELLER_COLUMNS, SCORE_COLUMN, *TRAVELLER_WEIGHTS, *MP_COLUMNS, ARROW_COLUMN],
             widths=TRAVELLER_WIDTHS)
    ws.row_dimensions[4].height = 30  # (two lines: Outcome / 2 NS)
    fill_rows(ws, T_FIRST, [row[:7] for row in TRAVELLERS])
    fill_rows(ws, T_FIRST, [row[7:] for row in TRAVELLERS], first_col=9)  # Score NS (H) is computed
    rng = lambda c: f"{c}{T_FIRST}:{c}{last}"  # noqa: E731
    mark_input(ws, rng("A"), kind="whole", operator="between", formula1="1", formula2="10000",
           prompt="Board number (its vulnerability follows the standard 16-board cycle)")
    mark_input(ws, f"B{T_FIRST}:C{last}", kind="whole", operator="greaterThanOrEqual", formula1="1",
           prompt="Pair number, as the pairs sat on this board: a pair on the Pairs sheet (any positive whole number "
                  "while the Pairs sheet is empty)")
    mark_input(ws, rng("D"), kind="textLength", operator="between", formula1="1", formula2="6",
           prompt="Contract like 4S, 3NTX, 6HXX, PASS; leave blank to type the score instead")
    mark_input(ws, rng("E"), kind="list", formula1='"N,E,S,W"', prompt="Declarer: N, E, S or W")
    mark_input(ws, rng("F"), kind="whole", operator="between", formula1="0", formula2="13",
           prompt="Tricks taken by declarer (0-13)")
    mark_input(ws, rng("G"), prompt="When no contract is given: N-S score (420, -50), artificial score "
                                "(A60/40, A+, A=, A-) or NP")
    mark_input(ws, f"I{T_FIRST}:J{last}", prompt="Weighted score only: another possible N-S outcome (points)")
    mark_input(ws, f"K{T_FIRST}:M{last}", kind="decimal", operator="between", formula1="0", formula2="1",
           prompt="Weighted score only: the weight of Score NS / Outcome 2 / Outcome 3 (they total 100 %)",
           number_format="0%")
    array(ws, rng("H"), f"={row_scores('')}")
    # the matchpoints read the row's inputs (its score as SCORE_OR_TYPED computes it, never a value typed over
    # the Score NS cell) and the other outcomes: one reading of the row (:func:`scored_outcomes`)
    array(ws, f"N{T_FIRST}:O{last}",
           f"=WEIGHTED_MP({scored_outcomes('')},K{T_FIRST}:M{last},{rng('A')},{parameter(EXPECTED_LABEL)},"
           f"{parameter(SCALE_LABEL)})", "0.00")
    red = PatternFill(fill_type="solid", start_color="FFFF0000", end_color="FFFF0000")
    for column, rule in RED_WHEN.items():  # a half-filled row: red at the input to put right (core.travellerrow)
        letter = "ABCDEFG"[TRAVELLER_COLUMNS.index(column)]
        ws.conditional_formatting.add(rng(letter), FormulaRule(formula=[rule], stopIfTrue=True, fill=red,
                                                               font=Font(bold=True, color="FFFFFFFF")))
    for letter, rule in (("D", contract_unread()), ("G", typed_score_unread()),  # (what the scorers cannot score)
                         ("B", pair_unlisted("B")), ("C", pair_unlisted("C")),  # (and a pair that is no pair,
                         ("B", pair_twice("B")), ("C", pair_twice("C")),  # or plays the board twice, or sits
                         ("B", pair_in_other_field("B")), ("C", pair_in_other_field("C")),  # in the other field)
                         *weights_unread("H", "K", T_FIRST).items()):  # (a weighted score's weights)
        ws.conditional_formatting.add(rng(letter), FormulaRule(formula=[rule], stopIfTrue=True, fill=red,
                                                               font=Font(bold=True, color="FFFFFFFF")))
    mark_input(ws, rng("P"), kind="list", formula1='"Y"',
           prompt="Y when the board was played with the arrows switched (the N-S seated pair is an E-W-field pair)")
    ws["Q4"] = "Parameters"
    ws["Q4"].font = bold()
    param(ws, *_label_and_value(SCALE_LABEL), SCALE_LABEL, "ACBL", kind="list", formula1=choices_list(SCALE_CHOICES),
           prompt="EBU: 2 per score beaten, 1 per tie (Law 78A). ACBL: 1 and 1/2.")
    param(ws, *_label_and_value(EXPECTED_LABEL), EXPECTED_LABEL, None, kind="whole", operator="between",
           formula1="1", formula2=str(MAX_EXPECTED),
           prompt="Blank: the largest number of results on any board. Boards with fewer are Neuberg-factored.")
    param(ws, *_label_and_value(MOVEMENT_LABEL), MOVEMENT_LABEL, "Mitchell", kind="list", formula1=choices_list(MOVEMENT_CHOICES),
           prompt="Mitchell: N-S and E-W ranked separately. Howell: one field.")
    param(ws, *_label_and_value(ARTIFICIAL_LABEL), ARTIFICIAL_LABEL, ARTIFICIAL_CHOICES[0], kind="list", formula1=choices_list(ARTIFICIAL_CHOICES),
           prompt="Fixed: A60/40 counts 60 %. Session (EBU): 60 % or the session percentage if higher "
                  "(40 % or it if lower).")
    event_details(ws, "Q9")
    legend_across(ws, "Q14", PARAM_WIDTHS)  # (below Scorer, Q12, and a blank row)
    input_table(ws, f"A{T_FIRST}:P{last}", "Q18", "results", note_width=2)


def _pairs_sheet(wb: Workbook) -> int:
    """The Pairs sheet: each pair's number, direction, names and numbers; returns the table's last row."""
    ws = sheet(wb, PAIRS_SHEET, PAIRS_SHEET, "One row per pair: its number, direction (NS or EW in a Mitchell), the players' names "
               "and (optional) their national numbers; Private: yes for a pair shown on the results site by number only.")
    pl = table_head(ws, P_FIRST, P_ROWS, PAIRS,
        [*PAIR_COLUMNS, PLAYER_NUMBERS, PRIVATE],
        [8, 10, 40, 24, 8])
    ws.column_dimensions["F"].width = 2  # (a narrow gap before the legend: the sheet fits its page)
    mark_input(ws, f"A{P_FIRST}:A{pl}", kind="whole", operator="greaterThanOrEqual", formula1="1",
           prompt="Pair number (any positive whole number)")
    mark_input(ws, f"B{P_FIRST}:B{pl}", kind="list", formula1='"NS,EW"',
           prompt="NS or EW (Mitchell); leave blank in a Howell")
    mark_input(ws, f"C{P_FIRST}:C{pl}", prompt="The players' names, e.g. Ann Smith & Bob Jones")
    mark_input(ws, f"D{P_FIRST}:D{pl}", prompt="Optional: the players' national (federation) numbers in the order "
                                              "of the names, e.g. 12345 & 67890; they go into USEBIO and PBN files",
               number_format="@")  # (text: 0555002 stays so)
    mark_input(ws, f"E{P_FIRST}:E{pl}", kind="list", formula1='"yes"',
               prompt="Optional: yes to keep the players' names off the results site (the pair is shown by its "
                      "number only); blank: names shown")
    red = PatternFill(fill_type="solid", start_color="FFFF0000", end_color="FFFF0000")
    for letter, rule in (("A", pair_listed_twice()), ("B", direction_unread())):  # (pairs_row_mistake)
        ws.conditional_formatting.add(f"{letter}{P_FIRST}:{letter}{pl}", FormulaRule(
            formula=[rule], stopIfTrue=True, fill=red, font=Font(bold=True, color="FFFFFFFF")))
    legend_across(ws, "G4", NOTE_WIDTHS)
    input_table(ws, f"A{P_FIRST}:E{pl}", "G8", "pairs")
    return pl


def _ranking_sheet(wb: Workbook, pl: int) -> None:
    """The Ranking sheet: PAIRS_STANDINGS of the travellers (``pl``: the Pairs table's last row), and the line naming a row left out."""
    last = T_FIRST + T_ROWS - 1
    ws = sheet(wb, RANKING_SHEET, RANKING_SHEET, "Exact totals: ties are decided on exact values and shown as ties (3=). A Mitchell "
                         "ranks the N-S field, then the E-W field.")
    headers(ws, 4, 1, ["Direction", "Pair", "Names", "Total MP", "Percentage", "Rank"], widths=[10, 8, 36, 10, 12.5, 7])
    rl = R_FIRST + R_ROWS - 1
    # one line above the ranking naming the first traveller row it leaves out (a mistake, red on the Travellers
    # sheet), so that every other row keeps its result and the printed page says what is missing
    array(ws, "A3", f"={not_counted()}")
    ws["A3"].font = Font(bold=True, color="FFC00000")
    array(ws, f"A{R_FIRST}:F{rl}",
           f"=IFERROR(INDEX(PAIRS_STANDINGS(Travellers!A{T_FIRST}:A{last},Travellers!B{T_FIRST}:B{last},"
           f"Travellers!C{T_FIRST}:C{last},{scored_outcomes(TRAVELLERS_SHEET + '!')},Travellers!K{T_FIRST}:M{last},"
           f"{parameter(EXPECTED_LABEL, TRAVELLERS_SHEET)},{parameter(SCALE_LABEL, TRAVELLERS_SHEET)},"
           f"{parameter(MOVEMENT_LABEL, TRAVELLERS_SHEET)},Travellers!P{T_FIRST}:P{last},Pairs!A{P_FIRST}:C{pl},"
           f"{parameter(ARTIFICIAL_LABEL, TRAVELLERS_SHEET)}),{seq_column(R_ROWS)},{seq_row(6)}),\"\")")
    computed(ws, f"D{R_FIRST}:E{rl}", "0.00")  # Total MP, Percentage
    align(ws, f"C{R_FIRST}:C{rl}", "left", 1)  # (apart from the pair's number and the rank: printed, never "2C. Clark")
    align(ws, f"F{R_FIRST}:F{rl}", "center")
    ws.column_dimensions["G"].width = 2  # (a narrow gap before the legend)
    legend_across(ws, "H4", NOTE_WIDTHS)
    ws.freeze_panes = f"A{R_FIRST}"


def _neuberg_sheet(wb: Workbook) -> None:
    """The Neuberg sheet: seed 001's worked examples of the Neuberg formula."""
    ws = sheet(wb, "Neuberg", "The Neuberg formula (seed 001, Max Bavin, EBU)",
           "MP = ((M x E) + (E - A)) / A, with M the matchpoints among the A actual results and E the expected number.")
    ws["A3"] = "Section 4(c): 11 results expected, 10 obtained (top 20)"
    ws["A3"].font = bold()
    # (B to D wide enough for the section 7 labels, A28 and A29, beside their values in E; E and F wrap their
    # headers after "Unfactored", G after "NEUBERG(M,")
    widths = [8, 11, 9.5, 9.5, 12, 12, 13.5, 3, 16]
    headers(ws, 4, 1, ["Board", "NS score", "MP NS", "MP EW"], widths=widths[:4])
    param(ws, "F4", "G4", "Expected results", 11, kind="whole", operator="between", formula1="1",
           formula2="1000", prompt="Expected number of results on this board")
    ws["F5"] = SCALE_LABEL
    ws["G5"] = "EBU"
    mark_input(ws, "G5", kind="list", formula1=choices_list(SCALE_CHOICES), prompt="EBU (2/1) or ACBL (1/0.5)")
    ws["F4"].alignment = Alignment(wrap_text=True, vertical="top")  # (Expected / results: two lines, whole)
    ws.row_dimensions[4].height = 30
    c_first, c_last = 5, 5 + len(NEUBERG_C) - 1
    for i, s in enumerate(NEUBERG_C):
        ws.cell(row=c_first + i, column=1, value=1)
        ws.cell(row=c_first + i, column=2, value=s)
    mark_input(ws, f"A{c_first}:B{c_last}", prompt="Board number and N-S score")
    array(ws, f"C{c_first}:D{c_last}",
           f"=MATCHPOINTS(B{c_first}:B{c_last},A{c_first}:A{c_last},G4,G5)", "0.0")

    e_title = c_last + 2
    ws.cell(row=e_title, column=1, value="Section 4(e): 16 results expected, 8 obtained (top 30)").font = \
        bold()
    eh = e_title + 1
    headers(ws, eh, 1, ["Board", "NS score", "MP NS", "MP EW", "Unfactored MP NS", "Unfactored MP EW",
                         "NEUBERG(M, E, A)"], widths=widths[:7])  # (two lines each: Unfactored / MP NS)
    ws.row_dimensions[eh].height = 30
    e_first, e_last = eh + 1, eh + len(NEUBERG_E)
    param(ws, f"I{eh}", f"J{eh}", "Expected results", 16, kind="whole", operator="between", formula1="1",
           formula2="1000", prompt="Expected number of results on this board")
    ws[f"I{e_first}"] = "Actual results"
    ws[f"J{e_first}"] = f"=COUNT(B{e_first}:B{e_last})"
    computed(ws, f"J{e_first}")
    for i, s in enumerate(NEUBERG_E):
        ws.cell(row=e_first + i, column=1, value=8)
        ws.cell(row=e_first + i, column=2, value=s)
    mark_input(ws, f"A{e_first}:B{e_last}", prompt="Board number and N-S score")
    be, ae = f"B{e_first}:B{e_last}", f"A{e_first}:A{e_last}"
    array(ws, f"C{e_first}:D{e_last}", f'=MATCHPOINTS({be},{ae},J{eh},"EBU")', "0.0")
    array(ws, f"E{e_first}:F{e_last}", f'=MATCHPOINTS({be},{ae},J{e_first},"EBU")', "0.0")
    array(ws, f"G{e_first}:G{e_last}", f"=NEUBERG(E{e_first}:E{e_last},J{eh},J{e_first})", "0.0")
    for k, letter in enumerate("HI", start=7):
        ws.column_dimensions[letter].width = widths[k]

    s7 = e_last + 2
    ws.cell(row=s7, column=1, value="Section 7: a top on the one board with 11 results, top 100, 51 expected "
                                    "(the printed 51.86 % is 51.85 % rounded once)").font = bold()
    ws[f"A{s7 + 1}"] = "Board 26: NEUBERG(20, 51, 11) (% of the top)"
    # (one-cell arrays: moved to the hidden sheet like every xlbridge result, so that a full recalculation in
    # LibreOffice, which has no xlbridge functions, blanks them instead of showing #NAME?)
    array(ws, f"E{s7 + 1}", "=NEUBERG(20,51,11)", "0.00")
    ws[f"A{s7 + 2}"] = "Session: (24 x 50 + board 26) / 25 (%)"
    array(ws, f"E{s7 + 2}", f"=(24*50+E{s7 + 1})/25", "0.00")
    legend_across(ws, "K4", NOTE_WIDTHS)


def build() -> Workbook:
    wb = new_workbook("Pairs session: travellers, matchpoints, ranking")
    instructions(wb, "Pairs session: travellers to matchpoints and a ranking", [
        "What it does: scores a pairs session: the matchpoints of every result and the pairs' ranking, "
        "exact ties shown as ties (3=).",
        "What to type. Sheet Travellers, one row per result: Board, NS pair, EW pair, then either Contract "
        "(4S, 3NTX, 6HXX, PASS), Declarer (N, E, S or W) and Tricks taken, or a Typed Score (the N-S points; "
        "an adjusted score A60/40, A50/50, A40/60; NP for not played). A weighted score (Law 12C1(c)): the "
        "other N-S outcomes in Outcome 2 and 3, the weights in Weight 1 to 3. Arrow switch: Y on a row "
        "played with the arrows switched.",
        f"Beside the travellers: {SCALE_LABEL} ({choices_words(SCALE_CHOICES)}), Expected results per board (blank: the most results on "
        "any board), Movement (Mitchell or Howell), Artificial scores (Fixed, or Session for the pair's own "
        "percentage), and Event, Date, Club and Scorer: the results site and the files for the federation "
        "(PBN, USEBIO) carry them.",
        "Sheet Pairs: each pair's number, direction (NS or EW; blank in a Howell), the players' names and, "
        "if wanted, their national numbers. A pair typed on Travellers must be on it (once it lists pairs).",
        "What comes out: Score NS, MP NS and MP EW beside each result; sheet Ranking: each pair's total, "
        "percentage and rank, best first (each direction on its own in a Mitchell). Sheet Neuberg: two "
        "worked examples of the Neuberg formula.",
    ] + COMMON_LINES)
    _travellers_sheet(wb)
    pl = _pairs_sheet(wb)
    _ranking_sheet(wb, pl)
    _neuberg_sheet(wb)
    handout(wb, [RANKING_SHEET, TRAVELLERS_SHEET, PAIRS_SHEET])  # (the members' handout: the ranking first)
    conf_sheet(wb)
    return wb
