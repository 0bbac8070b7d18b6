"""The declaration TABLE: every Excel function of xlbridge, declared once.

Each :class:`ExcelFunction` names the function, the adapter that serves it
(:mod:`xlbridge.excel.adapters`), the core functions it calls, its arguments (name, kind,
default, help) and its help text. Everything else is generated from :data:`FUNCTIONS`:

- the xlwings-decorated functions of :mod:`xlbridge.udfs`, its ``__all__`` and
  ``EXCEL_FUNCTIONS`` (the batch engine's registry) - :mod:`xlbridge.excel.runtime`;
- the VBA stub in ``vba_stub/`` - :mod:`xlbridge.excel.vbastub`;
- the reference page ``docs/functions.md`` - :func:`reference_markdown`.

``python -m xlbridge.excel`` rewrites the generated files; ``--check`` compares (a test runs it).

Argument kinds (how a cell becomes what the adapter gets; a blank optional cell is the default):

=========  =========================================================================
``cells``  a cell or a range, element-wise (scalars and single cells broadcast)
``column`` a row or a column, read once by the adapter (a block is refused)
``range``  an n x k block
``text``   a text option (a whole number typed in the cell is its text: ``1``)
``number`` an exact number (``2.75`` is 11/4; text such as ``"2.75"`` or ``"5%"`` is read)
``whole``  a whole number
``bool``   TRUE/FALSE (also 1/0, YES/NO)
=========  =========================================================================

>>> [f.name for f in FUNCTIONS][:3]
['BRIDGE_SCORE', 'SCORE_OR_TYPED', 'MATCHPOINTS']
>>> BY_NAME["VP"].signature()
'VP(margin, boards, [scale])'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.contract import bridge_score
from ..core.errors import InputError
from ..core.handicap import fairness as fairness_core
from ..core.handicap import forml as forml_core
from ..core.handicap import results as handicap_results_core
from ..core.instant.chart import instant_award, instant_chart
from ..core.pairs import neuberg as neuberg_core
from ..core.pairs import standings as standings_core
from ..core.pairs.matchpoints import session_from_rows
from ..core.pairs.weighted import weighted_session
from ..core.ratings import ledger as ledger_core
from ..core.ratings import lehman as lehman_core
from ..core.teams import butler as butler_core
from ..core.teams import imps as imps_core
from ..core.teams import standings as team_standings_core
from ..core.teams import teams as teams_core
from ..core.teams.vp import DEFAULT_VP_SCALE, MAX_BOARDS, vp, vp_scale
from ..core.vocabulary import Movement, Scale
from .adapters import handicaps as ah
from .adapters import instant as ai
from .adapters import instant_results as air
from .adapters import pairs as ap
from .adapters import ratings as ar
from .adapters import teams as at
from . import cells as xl

__all__ = ["Arg", "ExcelFunction", "FUNCTIONS", "BY_NAME", "NAMES", "CATEGORY", "REQUIRED", "reference_markdown"]

#: The Excel function-wizard category of every function.
CATEGORY = "xlbridge"


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: The default of an argument a blank cell cannot stand for.
REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Arg:
    """One argument: ``name`` (as Excel shows it), ``kind`` (see the module docstring), ``help``.

    ``optional``: ``[bracketed]`` in the catalogue (a ``None`` default in the Python signature);
    ``default``: what a blank cell means for the scalar kinds (``None``: the core's default);
    ``minimum``/``maximum``: the range of a ``whole`` or ``number``.
    """

    name: str
    kind: str
    help: str
    optional: bool = False
    default: Any = None
    minimum: Any = None
    maximum: Any = None

    def convert(self, value: Any) -> Any:
        """The cell(s) as the adapter takes them (ranges and element-wise operands pass unchanged)."""
        if self.kind in ("cells", "column", "range"):
            return value
        if self.kind == "bool":
            return xl.as_bool(value, self.name, bool(self.default))
        if self.kind == "text":
            return xl.as_text(value, self.name, self.default)
        if type(value) is float and value == value:  # one number cell, the common case: given, not an error
            v = value
        else:
            v = xl.optional(value, None)
            if v is None:
                if self.default is REQUIRED:
                    raise InputError("a number is needed here, not a blank", where=self.name)
                return self.default
            err = xl.error_literal(v)
            if err is not None:
                raise InputError(f"the cell holds {err}", where=self.name)
        if self.kind == "whole":
            return xl.as_int(v, self.name, minimum=self.minimum, maximum=self.maximum)
        n = xl.as_number(v, self.name)
        if (self.minimum is not None and n < self.minimum) or (self.maximum is not None and n > self.maximum):
            raise InputError(f"expected a number from {self.minimum} to {self.maximum}, got {xl.shown_cell(v)}",
                             where=self.name)
        return n


@dataclass(frozen=True)
class ExcelFunction:
    """One Excel function: its name, adapter, core functions, arguments, help and what it returns."""

    name: str
    adapter: Callable[..., Any]
    core: tuple[Callable[..., Any], ...]
    args: tuple[Arg, ...]
    help: str
    returns: str
    group: str

    def signature(self) -> str:
        """The catalogue's form: ``MATCHPOINTS(scores, [boards], [expected], [scale])``."""
        return f"{self.name}({', '.join(f'[{x.name}]' if x.optional else x.name for x in self.args)})"

    def call(self, *values: Any) -> Any:
        """Convert the arguments by their declarations and run the adapter (errors propagate)."""
        if len(values) != len(self.args):
            raise TypeError(f"{self.name} takes {len(self.args)} arguments, got {len(values)}")
        return self.adapter(*(arg.convert(v) for arg, v in zip(self.args, values)))


def _arg(name: str, kind: str, help: str, **kw: Any) -> Arg:
    return Arg(name, kind, help, **kw)


def _opt(name: str, kind: str, help: str, default: Any = None, **kw: Any) -> Arg:
    return Arg(name, kind, help, optional=True, default=default, **kw)


_SCORES = _arg("scores", "column",
               "N-S scores, one row per result: numbers, A60/40 (artificial, %), NP (not played); blanks ignored")
_BOARDS = _opt("boards", "column",
               "Board numbers parallel to the scores (optional; rows are grouped by board; vulnerability by board)")
_SCALE = _opt("scale", "text", 'Matchpoint scale: "EBU" (2 per score beaten, 1 per tie; default) or "ACBL" (1 and 1/2)',
              Scale.EBU.value)
#: the VP scale by name (xlbridge.core.teams.vp.VP_SCALES: one registry, read by every layer)
_VP_SCALE = _opt("scale", "text", f'VP scale (optional; default "{DEFAULT_VP_SCALE}": the {vp_scale().label} '
                                  "20-VP scale)")
_EXPECTED = _opt("expected", "whole",
                 "Expected number of results per board for Neuberg (optional; default: the most rows with a score "
                 "on any board)", minimum=1, maximum=neuberg_core.MAX_RESULTS)
_VUL = "Vulnerability of the board: None, NS, EW, All or a board number"
_DIV = _arg("divisions", "column", "Division of each team: 1 (top), 2, ...")
_AVG = _arg("avg_vps", "column", "Average VPs of each team in its division last season")
_IPV = _opt("imps_per_vp", "number", "IMPs per VP of difference (optional; default 2.75)",
            minimum=0, maximum=forml_core.FORML_LIMITS["imps_per_vp"])
_OVERLAP = _opt("overlap", "whole", "Ranks by which divisions overlap when merged (optional; default 2)",
                minimum=1, maximum=forml_core.FORML_LIMITS["division"])
_DECAY = _opt("decay", "number", "Weekly history decay (optional; default 0.067)", minimum=0, maximum=1)
#: A pairs traveller with its pair numbers (PAIRS_RANKING, PAIRS_STANDINGS).
_TRAVELLER = (_arg("boards", "column", "Board number of each row"),
              _arg("ns_pairs", "column", "Pair sitting N-S on each row"),
              _arg("ew_pairs", "column", "Pair sitting E-W on each row"),
              _arg("scores", "range", "N-S score of each row (n x k with weights for weighted scores)"),
              _opt("weights", "range", "Weights parallel to scores for weighted scores (optional)"))
#: A Lehman ledger's rows: week, the four players, the N-S percentage (LEHMAN_LEDGER, _SEASON, _HISTORY).
_LEDGER = (_arg("weeks", "column", "Week number of each row"),
           _arg("north", "column", "North player of each row"),
           _arg("south", "column", "South player of each row"),
           _arg("east", "column", "East player of each row"),
           _arg("west", "column", "West player of each row"),
           _arg("ns_pct", "column", "Percentage scored by N-S on each row"))
_FORMULA = _opt("formula", "text", '"standard" (default) or "modified" (error-bound modification)', "standard")

PAIRS, TEAMS, INSTANT, RATINGS, HANDICAPS = ("Boards and pairs", "Teams", "Instant matchpoints", "Ratings",
                                             "Handicaps (Form-L) and fairness")

#: Every Excel function, in catalogue order (then the template extensions in their groups).
FUNCTIONS: tuple[ExcelFunction, ...] = (
    ExcelFunction(
        "BRIDGE_SCORE", ap.bridge_score, (bridge_score,),
        (_arg("contract", "cells", "Contract like 4S, 3NTX, 6HXX, 3N or PASS (a cell or a column)"),
         _arg("declarer", "cells", "Declarer: N, E, S or W"),
         _arg("tricks", "cells", "Tricks taken by declarer, 0-13"),
         _arg("vulnerable", "cells", "Vulnerability: None, NS, EW, All (Both, Love, -) or a board number")),
        "N-S score of a contract result (Law 77); works on ranges element-wise.",
        "N-S score (Law 77), element-wise; a blank contract gives a blank cell.", PAIRS),
    ExcelFunction(
        "SCORE_OR_TYPED", ap.score_or_typed, (bridge_score,),
        (_arg("contract", "cells", "Contract like 4S, 3NTX or PASS; blank to use the typed score"),
         _arg("declarer", "cells", "Declarer: N, E, S or W"),
         _arg("tricks", "cells", "Tricks taken by declarer, 0-13"),
         _arg("board", "cells", "Board number (gives the vulnerability) or a vulnerability name"),
         _arg("typed", "cells", "Typed score used when no contract is given: a number, A60/40 or NP"),
         _opt("ns", "cells", "N-S pair of the row (optional: given, a row of pairs without a result is a mistake)"),
         _opt("ew", "cells", "E-W pair of the row (optional, as ns)"),
         _opt("movement", "text", 'Optional, with the pairs: "Howell" (a pair is one number whichever way it '
                                  'sits) or "Mitchell"'),
         _opt("pairs", "cells", "Optional, with the pairs: the Pairs sheet's Pair column (given, a pair must be on it "
                                "when it lists pairs, and a whole number unless it lists that text), or its Pair and "
                                "Direction columns (in a Mitchell, a pair seated in the other field is a mistake)"),
         _opt("arrows", "cells", "Optional, with the pairs: the Arrow switch of each row (Y on a row played with the "
                                 "arrows switched: its N-S seat is the E-W field's)")),
        "N-S score from contract, declarer and tricks where given, else the typed score unchanged.",
        "BRIDGE_SCORE where a contract is given, else the typed score cell (a number, A60/40 or NP) "
        "unchanged; element-wise (template extension). A row that is a mistake (half filled, or a cell holding "
        "what it cannot) is #VALUE! naming the input column to put right.", PAIRS),
    ExcelFunction(
        "MATCHPOINTS", ap.matchpoints, (session_from_rows,),
        (_SCORES, _BOARDS, _EXPECTED, _SCALE),
        "N-S and E-W matchpoints of each row (n x 2), Neuberg-factored, grouped by board.",
        "n x 2: N-S and E-W matchpoints of each row (Law 78A), rows grouped by board, Neuberg-factored to "
        "`expected` results; artificial scores get their percentage of the full top; NP rows are blank.", PAIRS),
    ExcelFunction(
        "WEIGHTED_MP", ap.weighted_mp, (weighted_session,),
        (_arg("scores", "range", "n x k range: row i holds the possible N-S outcomes of result i (a plain result: "
                                 "one score)"),
         _arg("weights", "range", "n x k range parallel to scores: the weights of the outcomes (total 1 or 100 % "
                                  "per row; blank for a plain result)"),
         _BOARDS, _EXPECTED, _SCALE),
        "Matchpoints (n x 2) for travellers with Law 12C1(c) weighted scores, exact.",
        "n x 2 like MATCHPOINTS for travellers holding Law 12C1(c) weighted scores: exactly as if every "
        "combination of outcomes were matchpointed and averaged.", PAIRS),
    ExcelFunction(
        "NEUBERG", ap.neuberg, (neuberg_core.neuberg,),
        (_arg("mp", "cells", "Matchpoints earned among the actual results (a cell or a range)"),
         _arg("expected", "cells", "Expected number of results on the board (E)"),
         _arg("actual", "cells", "Actual number of results on the board (A)"),
         _SCALE),
        "The Neuberg formula: matchpoints factored from actual to expected results.",
        "The Neuberg formula, element-wise over `mp`: `NEUBERG(14, 16, 8)` = 29.", PAIRS),
    ExcelFunction(
        "MP_PERCENT", ap.mp_percent, (neuberg_core.mp_percent,),
        (_arg("mp", "cells", "Matchpoints (a cell or a range), 0 to the top of the board"),
         _arg("results", "cells", "Number of results on the board (sets the top)"),
         _SCALE),
        "Matchpoints as a percentage of the top for a board of that many results.",
        "Matchpoints (0 to the top) as a percentage of the top for a board of `results` results.", PAIRS),
    ExcelFunction(
        "PAIRS_RANKING", ap.pairs_ranking, (session_from_rows, weighted_session, standings_core.pairs_ranking),
        (*_TRAVELLER, _EXPECTED, _SCALE),
        "Pairs ranking (k x 4): Pair, Total MP, Percentage, Rank (exact ties as 3=), best first.",
        "k x 4: Pair, Total MP, Percentage, Rank, best first; ranks decided on exact values, ties as `3=` "
        "(template extension).", PAIRS),
    ExcelFunction(
        "PAIRS_STANDINGS", ap.pairs_standings, (session_from_rows, weighted_session, standings_core.pairs_ranking),
        (*_TRAVELLER, _EXPECTED, _SCALE,
         _opt("movement", "text", '"Mitchell" (N-S and E-W ranked separately) or "Howell" (one field; default)',
              Movement.HOWELL.option),
         _opt("arrows", "column", "Arrow switch of each row: Y on a switched row, else blank (optional)"),
         _opt("pairs", "range", "Pairs table: Pair, Direction (NS/EW), Names (optional)"),
         _opt("artificial", "text", '"fixed" (A60/40 counts 60 %; default) or "session" (EBU: 60 % or the '
              'session percentage if higher, 40 % or it if lower)', "fixed")),
        "Pairs standings (k x 6): Direction, Pair, Names, Total MP, Percentage, Rank; Mitchell fields apart.",
        "k x 6: Direction, Pair, Names, Total MP, Percentage, Rank, best first in each field (N-S then E-W "
        "for a Mitchell); exact ties as `3=` (template extension).", PAIRS),
    ExcelFunction(
        "IMPS", at.imps, (imps_core.imps, imps_core.imps_array),
        (_arg("difference", "cells", "Points difference (a cell or a range)"),),
        "IMPs for a points difference (Law 78B); works on ranges element-wise.",
        "IMPs for a points difference, element-wise (Law 78B).", TEAMS),
    ExcelFunction(
        "CROSS_IMPS", at.cross_imps, (imps_core.cross_imps,),
        (_SCORES, _BOARDS,
         _opt("average", "bool", "TRUE for the average over the other results; FALSE or blank for the total", False)),
        "N-S and E-W cross-IMPs of each row (n x 2): total, or average with TRUE.",
        "n x 2: N-S and E-W cross-IMPs per row; the total, or the average over the others with TRUE.", TEAMS),
    ExcelFunction(
        "BUTLER", at.butler, (butler_core.butler,),
        (_SCORES, _BOARDS,
         _opt("trim", "text", 'Which scores the datum drops: "acbl" (5 % at each end; default), another named '
                              "rule, or a whole number at each end"),
         _opt("rounding", "text", 'Rounding of a final 5 in the datum: "half_even" (default) or another named rule')),
        "N-S and E-W IMPs against the Butler datum of each board (n x 2).",
        "n x 2: N-S and E-W IMPs against the datum of each board.", TEAMS),
    ExcelFunction(
        "BUTLER_DATUM", at.butler_datum, (butler_core.butler_datum,),
        (_arg("scores", "column", "N-S scores of one board"),
         _opt("trim", "text", 'Which scores the datum drops: "acbl" (default), another named rule, or a whole '
                              "number at each end"),
         _opt("rounding", "text", 'Rounding of a final 5: "half_even" (default) or another named rule')),
        "The Butler datum of one board: trimmed mean of the N-S scores, rounded to 10 (not DATUM: "
        "that is DATE in German Excel).",
        "The datum of the board in N-S points: the mean of the scores the trim keeps, rounded to a "
        "multiple of 10 (a final 5 by the rounding rule).", TEAMS),
    ExcelFunction(
        "VP", at.vp, (vp,),
        (_arg("margin", "cells", "IMP margin of the side (negative if it lost; a cell or a range)"),
         _arg("boards", "cells", f"Number of boards in the match (1 to {MAX_BOARDS:,})"),
         _VP_SCALE),
        f"VPs for an IMP margin on a VP scale (default: the {vp_scale().title}).",
        f"VPs of the side with that IMP margin on the VP scale named (default: the {vp_scale().title}, "
        "concavity-corrected): `VP(5, 7)` = 12.18.", TEAMS),
    ExcelFunction(
        "WEIGHTED_IMPS", at.weighted_imps, (teams_core.weighted_imps,),
        (_arg("scores", "range", "The possible N-S outcomes of the weighted result (a row; n x k for n results)"),
         _arg("weights", "range", "Their weights (total 1 or 100 %)"),
         _arg("other", "cells", "N-S score in the other room"),
         _opt("match", "cells", "Match number of each row (optional: given, a row's match and board are checked)"),
         _opt("board", "cells", "Board number of each row (optional, with match: a board listed twice in its "
                                "match is a mistake)"),
         _opt("matches", "column", "The match numbers of the Matches sheet (optional: a row of another match is "
                                   "a mistake)")),
        "IMPs of a weighted result against the other room: each outcome IMPed, then weighted.",
        "IMPs of a weighted result against the other room's score: each outcome IMPed, then weighted "
        "(unrounded). A row that is a mistake is #VALUE! naming the input column to put right; MATCH_RESULT "
        "leaves it out.", TEAMS),
    ExcelFunction(
        "MATCH_RESULT", at.match_result, (teams_core.match_result,),
        (_arg("board_imps", "column", "IMPs of team A on each board (negative when B gained)"),
         _arg("boards", "whole", "Number of boards in the match (VP scale)", minimum=1, maximum=MAX_BOARDS),
         _opt("rounding", "text", 'Optional: "nearest" rounds the IMP margin once before the VP look-up; blank '
                                  "keeps it exact"),
         _VP_SCALE),
        "Match result (1 x 4): IMPs A, IMPs B, VP A, VP B.",
        "1 x 4: IMPs A, IMPs B, VP A, VP B of a match from its board IMPs (template extension).", TEAMS),
    ExcelFunction(
        "TEAM_STANDINGS", at.team_standings, (team_standings_core.team_standings,),
        (_arg("team_a", "column", "Team A of each match"),
         _arg("team_b", "column", "Team B of each match"),
         _arg("vps", "range", "VP A and VP B of each match (n x 2)"),
         _opt("imps", "range", "IMPs A and IMPs B of each match (n x 2; optional)")),
        "Team standings (k x 5): Team, Played, VPs, IMP difference, Rank, by exact VP total.",
        "k x 5: Team, Played, VPs, IMP difference, Rank over a round robin or Swiss, best first by exact VP "
        "total; equal totals share the rank (`2=`), the IMP difference shown for the regulation's "
        "tie-break (template extension).", TEAMS),
    ExcelFunction(
        "INSTANT_MP", ai.instant_mp, (instant_chart,),
        (_arg("scores", "column", "Historical N-S scores of the board"),
         _arg("frequencies", "column", "How often each score occurred"),
         _arg("vulnerable", "cells", _VUL)),
        "Instant matchpoint award chart (k x 3): lowest score, highest score, N-S award %.",
        "k x 3 award chart: lowest N-S score, highest N-S score, N-S award in %, top row first.", INSTANT),
    ExcelFunction(
        "INSTANT_AWARD", ai.instant_award, (instant_chart, instant_award),
        (_arg("score", "cells", "N-S score(s) to look up"),
         _arg("scores", "column", "Historical N-S scores of the board"),
         _arg("frequencies", "column", "How often each score occurred"),
         _arg("vulnerable", "cells", _VUL)),
        "N-S instant matchpoint award (%) for a score, from the chart of historical scores.",
        "The N-S award (%) for `score` from that chart, element-wise over `score`.", INSTANT),
    ExcelFunction(
        "INSTANT_RESULTS", air.instant_results, (instant_chart, instant_award),
        (_arg("boards", "column", "Board number of each result row (gives the board's chart and vulnerability)"),
         _arg("scores", "column", "N-S score of each row: a number, A60/40 (artificial, %), NP; blank rows stay blank"),
         _arg("history_boards", "column", "Board number of each historical result"),
         _arg("history_scores", "column", "Historical N-S score"),
         _arg("history_frequencies", "column", "How often it occurred")),
        "N-S and E-W instant matchpoint awards (n x 2) of many boards' results, each from its board's chart.",
        "n x 2 per result row: N-S award %, E-W award % (100 minus it), from the chart built from that board's "
        "historical results (vulnerability by board number); A60/40 gives its percentages; NP and blank rows "
        "are blank; a score no contract gives, or a board without history, is `#VALUE!` (template extension).",
        INSTANT),
    ExcelFunction(
        "LEHMAN_PREDICT", ar.lehman_predict, (lehman_core.lehman_predict,),
        (_arg("ratings", "range", "4 cells: the ratings of N, S, E, W"),),
        "Predicted N-S percentage from the four Lehman ratings.",
        "Predicted N-S percentage; `ratings` = 4 cells N, S, E, W.", RATINGS),
    ExcelFunction(
        "LEHMAN_DELTA", ar.lehman_delta, (lehman_core.lehman_delta,),
        (_arg("ratings", "range", "4 cells: the ratings of N, S, E, W"),
         _arg("ns_pct", "number", "Percentage scored by N-S", default=REQUIRED),
         _opt("errors", "range", "4 error bounds 0-1 for the modified formula (optional; blank: standard Lehman)")),
        "Lehman rating changes N, S, E, W (1 x 4); with error bounds, the modified formula.",
        "1 x 4 rating changes (N, S, E, W); with 4 error bounds, the error-bound modification.", RATINGS),
    ExcelFunction(
        "LEHMAN_ERROR", ar.lehman_error, (lehman_core.lehman_error,),
        (_arg("boards", "cells", "Number of boards of history"),),
        "Error bound of a rating: 1 / SQRT(boards - 1); 1 below 2 boards.",
        "1 / sqrt(boards - 1); 1 (100 %) below 2 boards.", RATINGS),
    ExcelFunction(
        "LEHMAN_UPDATE", ar.lehman_update, (lehman_core.lehman_update,),
        (_arg("rating", "number", "Current rating", default=REQUIRED),
         _arg("history", "number", "Boards of history behind the rating", default=REQUIRED),
         _arg("pseudo_sum", "number", "Sum of the week's pseudo-ratings", default=REQUIRED),
         _arg("week_boards", "number", "Boards played this week", default=REQUIRED),
         _DECAY),
        "Weekly Lehman update (1 x 2): the new rating and the new decayed history count.",
        "1 x 2: the new rating and the new (decayed) history count.", RATINGS),
    ExcelFunction(
        "LEHMAN_LEDGER", ar.lehman_ledger, (ledger_core.lehman_ledger_arrays,),
        (*_LEDGER, _FORMULA, _DECAY),
        "Lehman ratings after a season (players x 4): Player, Rating, History boards, Error bound.",
        "players x 4: Player, Rating, History boards, Error bound after the season (template extension).",
        RATINGS),
    ExcelFunction(
        "LEHMAN_SEASON", ar.lehman_season, (ledger_core.lehman_ledger_arrays,),
        (*_LEDGER,
         _opt("boards", "column", "Boards each row stands for (blank: 1); its pseudo-rating counts that many times"),
         _FORMULA, _DECAY),
        "Lehman ratings after a season (players x 5): Player, Boards, Rating, History boards, Error bound.",
        "players x 5: Player, Boards played this season, Rating, History boards, Error bound, with a boards "
        "count per row (template extension).", RATINGS),
    ExcelFunction(
        "LEHMAN_HISTORY", ar.lehman_history, (ledger_core.lehman_ledger_arrays,),
        (*_LEDGER,
         _opt("boards", "column", "Boards each row stands for (blank: 1)"),
         _FORMULA, _DECAY,
         _opt("players", "column", "Only these players, in this order (optional; default: every player)")),
        "Rating of each player after each week ((1 + players) x (1 + weeks), a header row of weeks).",
        "(1 + players) x (1 + weeks): a header row (`Player`, then each week played), then each player and "
        "the rating after each week, blank before the player's first week (template extension).", RATINGS),
    ExcelFunction(
        "FORML_HANDICAP", ah.forml_handicap, (forml_core.forml_handicaps,),
        (_DIV, _AVG, _IPV, _OVERLAP),
        "Form-L handicap IMPs (whole numbers) for each team.",
        "Handicap IMPs (whole numbers) for each row; `divisions` are 1 (top), 2, ...", HANDICAPS),
    ExcelFunction(
        "FORML_VPDIFF", ah.forml_vpdiff, (forml_core.forml_vpdiff,),
        (_DIV, _AVG,
         _opt("merged", "bool", "TRUE for the Merged VP difference; FALSE or blank for the Expected", False),
         _OVERLAP),
        "Form-L Expected (or Merged) VP difference of each team, unrounded.",
        "The Expected (or, with `merged` TRUE, the Merged) VP difference of each row, unrounded.", HANDICAPS),
    ExcelFunction(
        "LEGACY_HANDICAP", ah.legacy_handicap, (forml_core.legacy_handicaps,),
        (_DIV, _AVG,
         _opt("step", "number", "IMPs per rank within a division (optional; default 6; 0 or more)",
              minimum=0, maximum=forml_core.FORML_LIMITS["step"])),
        "Handicaps of the system Form-L replaced (6-IMP steps, chained divisions).",
        "The handicaps of the system Form-L replaced (6-IMP steps, chained divisions).", HANDICAPS),
    ExcelFunction(
        "FORML_NEWTEAMS", ah.forml_newteams, (forml_core.forml_new_teams,),
        (_arg("teams", "column", "Team of each match row"),
         _arg("opponents", "column", "Its opponent"),
         _arg("vps_for", "column", "VPs of the team"),
         _arg("vps_against", "column", "VPs of the opponent"),
         _arg("known_teams", "column", "Teams with a handicap from last season"),
         _arg("known_vpdiff", "column", "Their Merged VP differences"),
         _IPV),
        "Handicap IMPs of the new teams (k x 2: team, IMPs), solved jointly.",
        "For every team not among `known_teams`: its handicap IMPs, solved jointly when new teams met "
        "each other.", HANDICAPS),
    ExcelFunction(
        "HANDICAP_MATCHES", ah.handicap_matches, (handicap_results_core.handicap_matches,),
        (_arg("team_a", "column", "Team A of each match"),
         _arg("team_b", "column", "Team B of each match"),
         _arg("imps_a", "column", "IMPs scored by team A at the table (blank with imps_b: not played yet)"),
         _arg("imps_b", "column", "IMPs scored by team B at the table"),
         _arg("teams", "column", "The handicap table's teams (e.g. the Handicaps sheet's Team column)"),
         _arg("handicaps", "column", "Their handicap IMPs"),
         _opt("typed_a", "column", "A handicap typed for team A in that match, used instead of the table's (optional)"),
         _opt("typed_b", "column", "A handicap typed for team B in that match (optional)"),
         _opt("more", "range", "A second handicap table: team and handicap IMPs (e.g. the new teams'; optional)")),
        "Handicapped matches (n x 6): Handicap A, Handicap B, handicapped IMPs A and B, Winner, higher-handicap team.",
        "n x 6 per match: Handicap A, Handicap B, Handicapped IMPs A, Handicapped IMPs B (the higher-handicap "
        "team gets the difference), Winner (or `Draw`) and what the higher-handicap team did: `won`, `lost`, "
        "`draw` or `equal handicaps` (the fairness test counts won and lost; template extension).", HANDICAPS),
    ExcelFunction(
        "FAIRNESS", ah.fairness, (fairness_core.fairness_p_exact, fairness_core.fairness_p_upper_exact),
        (_arg("wins", "cells", "Wins of the side counted (e.g. the higher-handicap team; seed 000: 34 of 87)"),
         _arg("matches", "cells", "Decided matches between teams with different handicaps"),
         _opt("upper", "bool", "Optional: TRUE for the upper tail P(X >= wins); blank or FALSE for P(X <= wins)",
              False)),
        "P(X <= wins) (or P(X >= wins) with upper TRUE) for X ~ Binomial(matches, 1/2), exact.",
        "P(X <= wins) for X ~ Binomial(matches, 1/2), exact; with `upper` TRUE, P(X >= wins).", HANDICAPS),
    ExcelFunction(
        "FAIRNESS_BAND", ah.fairness_band, (fairness_core.fairness_band,),
        (_arg("matches", "cells", "Number of decided matches (one cell, or a column for a whole band line)"),
         _arg("tail", "number", "Share of outcomes excluded at each end, e.g. 0.25, 0.10, 0.01", default=REQUIRED)),
        "Fewest and most wins (n x 2) of the band excluding a tail share at each end, per number of matches.",
        "1 x 2 (or n x 2 for a column of match counts): the fewest and the most wins of the band that "
        "excludes the share `tail` of outcomes at each end.", HANDICAPS),
)

#: Each function by its Excel name.
BY_NAME: dict[str, ExcelFunction] = {f.name: f for f in FUNCTIONS}
#: The Excel names, in table order.
NAMES: tuple[str, ...] = tuple(BY_NAME)

_KIND_TEXT = {"cells": "cell or range, element-wise", "column": "row or column", "range": "n x k range",
              "text": "text", "number": "number", "whole": "whole number", "bool": "TRUE/FALSE"}


def _core_name(fn: Callable[..., Any]) -> str:
    return f"`{fn.__module__}.{fn.__qualname__}`"


def reference_markdown() -> str:
    """The text of ``docs/functions.md``: every function with its arguments, generated from :data:`FUNCTIONS`.

    >>> text = reference_markdown()
    >>> text.splitlines()[0], "| `scale` | text, optional (EBU) |" in text
    ('# Excel functions (generated)', True)
    """
    lines = [
        "# Excel functions (generated)",
        "",
        "<!-- Generated from xlbridge/excel/functions.py by `python -m xlbridge.excel`; do not edit. -->",
        "",
        "Every worksheet function of `xlbridge.udfs` (category **xlbridge**), declared once in",
        "`xlbridge/excel/functions.py`. Arguments in [brackets] are optional; a blank cell in an optional",
        "argument means its default. See docs/excel.md for installing and for what error values mean.",
        "",
        ">>> from xlbridge.udfs import EXCEL_FUNCTIONS as F",
        '>>> F["BRIDGE_SCORE"]("4S", "N", 10, 1), F["VP"](5, 7)',
        "(420, 12.18)",
    ]
    group = None
    for f in FUNCTIONS:
        if f.group != group:
            group = f.group
            lines += ["", f"## {group}"]
        lines += ["", f"### `{f.signature()}`", "", f.help, "", f"Returns: {f.returns}", "",
                  "Calls " + ", ".join(_core_name(c) for c in f.core) + ".", "",
                  "| argument | kind | help |", "|---|---|---|"]
        for arg in f.args:
            kind = _KIND_TEXT[arg.kind]
            if arg.optional:
                kind += ", optional" + (f" ({arg.default})" if arg.default not in (None, False) else "")
            if arg.minimum is not None or arg.maximum is not None:
                kind += f", {arg.minimum if arg.minimum is not None else ''}..{arg.maximum if arg.maximum is not None else ''}"
            lines.append(f"| `{arg.name}` | {kind} | {arg.help} |")
    return "\n".join(lines) + "\n"
