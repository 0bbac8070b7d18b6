"""The template contract: the names by which xlbridge's workbooks and every layer reading them agree.

The templates (:mod:`xlbridge.templates`) write these names; ``xlbridge recalc``
(:mod:`xlbridge.batch.read.capacity`) and the file formats (:mod:`xlbridge.formats`: reading a
workbook's session for PBN, USEBIO and the results site) find the areas, sheets and columns by them.
Declared here once, below all three layers.

- :data:`CAPACITY_NAME`: a sheet-scoped defined name over a sheet's input table from its header row
  (``Travellers!$A$4:$P$10004``: the rows read are 5 to 10,004); ``xlbridge recalc`` reports data below it, the
  formats read no further. From the header row, as every range of the table's formulas, so that a row inserted
  directly below the header lies inside them all and Excel and LibreOffice grow them to hold it (issue 52);
- :data:`HEADER_NAME`: a sheet-scoped defined name over the header row of the sheet's input table
  (``Travellers!$A$4:$P$4``), :data:`CAPACITY_NAME`'s first row; in a book whose area starts below it (made
  before issue 52), rows inserted directly below the header are outside the table's ranges, and
  ``xlbridge recalc`` names them;
- :data:`PRINT_NAME`: a sheet-scoped defined name over the whole printable table, which ``xlbridge
  recalc`` cuts after the last row in use;
- :data:`RESULTS_NAME`: a sheet-scoped defined name over the cells in view showing a table's results, one
  block per run of columns, from the header row as :data:`CAPACITY_NAME`
  (``'Travellers'!$H$4:$H$10004,'Travellers'!$N$4:$O$10004``): each holds a formula in every row below the header,
  and ``xlbridge recalc`` names a row typed into without them;
- the sheets of the pairs and teams workbooks, and the header names (row 4) of the columns the
  formats read.

>>> CAPACITY_NAME, TRAVELLERS_SHEET, MATCH_COLUMNS[:2]
('XLBRIDGE_CAPACITY', 'Travellers', ('Match', 'Team A'))
"""

from __future__ import annotations

from .pairs.standings import ARTIFICIAL_RULES
from .vocabulary import Movement, Scale

__all__ = ["CAPACITY_NAME", "CHART_NAME", "HANDOUT_NAME", "SCORER_NOTES_NAME", "HEADER_NAME", "PRINT_NAME", "RESULTS_NAME", "TRAVELLERS_SHEET", "PAIRS_SHEET", "RANKING_SHEET", "BOARDS_SHEET",
           "MATCHES_SHEET", "TEAMS_SHEET", "CONTRACTS_SHEET", "TRAVELLER_COLUMNS", "SCORE_COLUMN", "MP_COLUMNS", "ARROW_COLUMN",
           "SCALE_LABEL", "MOVEMENT_LABEL", "PAIRS_PARAMETER_CELLS", "PAIRS_PARAMETER_ARGUMENTS", "SCALE_CHOICES", "MOVEMENT_CHOICES",
           "EXPECTED_LABEL", "ARTIFICIAL_LABEL", "MAX_EXPECTED", "ARTIFICIAL_CHOICES", "choices_list", "choices_words",
           "TRAVELLER_WEIGHTS",
           "PAIR_COLUMNS", "PARAMETER_ROWS", "PLAYER_NUMBERS", "PRIVATE", "PRIVATE_PLAYERS", "TEAM_COLUMNS", "EVENT_DETAILS", "MATCH_COLUMNS",
           "BOARD_INPUTS", "BOARD_IMPS", "TABLE_HEADER_ROW", "DEALS_SHEET", "LEADS_SHEET", "DEAL_COLUMNS", "LEAD_COLUMNS"]

CAPACITY_NAME = "XLBRIDGE_CAPACITY"
HEADER_NAME = "XLBRIDGE_HEADER"
PRINT_NAME = "XLBRIDGE_PRINT"
RESULTS_NAME = "XLBRIDGE_RESULTS"
#: a sheet-scoped name over a chart's table (its first row the series' names, its first column the categories),
#: with ``_0`` (the categories) and ``_1``, ``_2``, ... (each series' values) beside it: the chart reads these
#: names, and ``xlbridge recalc`` cuts them to the rows in use (xlbridge.batch.write.charts)
CHART_NAME = "XLBRIDGE_CHART"
#: a sheet-scoped defined name on each sheet of the members' handout (``xlbridge recalc --values-only``), its
#: text the sheet's place there (``1``: the results, first and open); the sheets without it (the Instructions, the
#: worked examples) are hidden in the handout, which prints as such
HANDOUT_NAME = "XLBRIDGE_HANDOUT"
#: a sheet-scoped defined name over the cells of a sheet meant for the scorer (the colour legend, the capacity
#: note), one block per note: left out of the members' handout
SCORER_NOTES_NAME = "XLBRIDGE_NOTES"

#: the pairs workbook's sheets
TRAVELLERS_SHEET, PAIRS_SHEET, RANKING_SHEET = "Travellers", "Pairs", "Ranking"
#: the teams workbook's sheets
BOARDS_SHEET, MATCHES_SHEET, TEAMS_SHEET, CONTRACTS_SHEET = "Boards", "Matches", "Teams", "Contracts"

#: the row of a table's headers, on every sheet a template or ``xlbridge import`` writes (its rows below)
TABLE_HEADER_ROW = 4
#: The rows holding a sheet's parameter block (labels such as ``Movement``, the value right of its label), searched
#: for a label by every reader.
PARAMETER_ROWS = 40
#: the extra sheets ``xlbridge import`` writes for what the templates have no column for (deals, opening leads),
#: read by ``publish`` and ``export``, and by ``recalc``'s read stage (a lead without its traveller row), and their
#: headers
DEALS_SHEET, LEADS_SHEET = "Deals", "Leads"
DEAL_COLUMNS = ("Board", "Dealer", "Vulnerable", "Deal")
LEAD_COLUMNS = ("Board", "NS", "EW", "Lead")

#: a traveller row as typed (the Travellers sheet's first columns)
TRAVELLER_COLUMNS = ("Board", "NS", "EW", "Contract", "Declarer", "Tricks", "Typed Score")
#: the pairs Travellers sheet's result column beside a row's inputs (its N-S score, from the inputs): a value typed
#: over it is never read as the row's result, by the workbook's formulas or the formats (issue 52)
SCORE_COLUMN = "Score NS"
#: the pairs Travellers sheet's matchpoint columns of a row (N-S's and E-W's, from the board's rows): a value typed
#: over either is not used; the formats name a cell showing other matchpoints than the rows' in a warning
MP_COLUMNS = ("MP NS", "MP EW")
#: the pairs Travellers sheet's optional column marking a row played with the arrows switched (``Y``)
ARROW_COLUMN = "Arrow switch"
#: the labels of the pairs Travellers sheet's parameters the formats read (the value is in the cell beside each)
SCALE_LABEL, MOVEMENT_LABEL = "Scale", "Movement"
#: the choices of those parameters as a data validation lists them, and as a message says them
SCALE_CHOICES = tuple(s.value for s in Scale)
MOVEMENT_CHOICES = (Movement.MITCHELL.label, Movement.HOWELL.label)
#: the pairs Travellers sheet's other parameters, which the workbook's Ranking and the formats read alike: the results
#: a board is Neuberg-factored to (blank: the most results on any board; a whole number 1 to :data:`MAX_EXPECTED`),
#: and the rule of an artificial score (:data:`xlbridge.core.pairs.standings.ARTIFICIAL_RULES`)
EXPECTED_LABEL, ARTIFICIAL_LABEL = "Expected results per board", "Artificial scores"
MAX_EXPECTED = 1000
ARTIFICIAL_CHOICES = tuple(rule.capitalize() for rule in ARTIFICIAL_RULES)
#: where the pairs template's Travellers sheet holds its parameters: {label: the value's cell}, each label in the
#: cell to the left (the readers find a value by its label, :data:`PARAMETER_ROWS`; the template's formulas read
#: these cells)
PAIRS_PARAMETER_CELLS = {SCALE_LABEL: "R5", EXPECTED_LABEL: "R6", MOVEMENT_LABEL: "R7", ARTIFICIAL_LABEL: "R8"}
#: the pairs template functions' arguments that read those parameters: {argument: label} (a value an argument
#: refuses is the parameter's mistake, named at its cell)
PAIRS_PARAMETER_ARGUMENTS = {"scale": SCALE_LABEL, "expected": EXPECTED_LABEL, "movement": MOVEMENT_LABEL,
                             "artificial": ARTIFICIAL_LABEL}


def choices_list(choices: tuple[str, ...]) -> str:
    """A data validation's list of ``choices`` (its formula1): ``'"EBU,ACBL"'``.

    >>> choices_list(SCALE_CHOICES), choices_list(MOVEMENT_CHOICES)
    ('"EBU,ACBL"', '"Mitchell,Howell"')
    """
    return '"' + ",".join(choices) + '"'


def choices_words(choices: tuple[str, ...]) -> str:
    """``choices`` as a message says them: ``'EBU or ACBL'``.

    >>> choices_words(SCALE_CHOICES)
    'EBU or ACBL'
    """
    return ", ".join(choices[:-1]) + " or " + choices[-1] if len(choices) > 1 else "".join(choices)


#: a weighted score's other outcomes and the weights of all three (Law 12C1(c))
TRAVELLER_WEIGHTS = ("Outcome 2 NS", "Outcome 3 NS", "Weight 1", "Weight 2", "Weight 3")
#: the Pairs sheet
PAIR_COLUMNS = ("Pair", "Direction", "Names")
#: the Pairs (and Teams) sheet's column of the players' national numbers, ``&``-separated in the order of the
#: names (optional: a workbook made before it has none)
PLAYER_NUMBERS = "Numbers"
#: the Pairs (and Teams) sheet's column saying a pair (team) is private (``yes`` or blank, optional): the results
#: site shows it by number only, never its players' names (a player may ask for results without their name)
PRIVATE = "Private"
#: the Lehman ledger's parameter naming the players (``&``-separated) whose names the results site leaves out
PRIVATE_PLAYERS = "Private players"
#: the teams workbook's Teams sheet: each team's number, name (as on the Matches sheet) and players (its
#: players' national numbers in the optional PLAYER_NUMBERS column)
TEAM_COLUMNS = ("Team", "Name", "Players")
#: the event's details a member types (the pairs Travellers sheet's and the teams Matches sheet's parameters):
#: the event's name, its date, the club, the scorer (the labels one under the other; a book made before the
#: ``Scorer`` label has the first three only, and is still read)
EVENT_DETAILS = ("Event", "Date", "Club", "Scorer")
#: a match of the teams workbook as typed (the Matches sheet's first columns)
MATCH_COLUMNS = ("Match", "Team A", "Team B", "Boards")
#: the teams workbook's Boards sheet: a board's match and number, room 1's N-S score and a weighted board's other
#: outcomes and weights (Law 12C1(c)), room 2's N-S score (its input columns, A to I)
#: the teams Boards sheet's result columns beside a row's inputs (each team's IMPs on the board, from the inputs: a
#: value typed over IMPs A is never read as the board's result, by the workbook's formulas or the formats)
BOARD_IMPS = ("IMPs A", "IMPs B")
BOARD_INPUTS = ("Match", "Board", "Room 1 NS (team A NS)", "Outcome 2", "Outcome 3", "Weight 1", "Weight 2", "Weight 3",
                "Room 2 NS (team B NS)")
