"""Adapters of the pairs functions: BRIDGE_SCORE, SCORE_OR_TYPED, MATCHPOINTS, WEIGHTED_MP, NEUBERG, MP_PERCENT, PAIRS_RANKING,
PAIRS_STANDINGS.

Each reads its cells (score columns once, :mod:`xlbridge.excel.travellers`), calls the core
(:mod:`xlbridge.core.contract`, :mod:`xlbridge.core.pairs`) and shapes the result.

>>> matchpoints([[420.0], [400.0], [170.0]], None, None, "EBU")
[[4, 0], [2, 2], [0, 4]]
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from ...core.contract import bridge_score as core_bridge_score
from ...core.contract import Vulnerability
from ...core.contract import vulnerability as core_vulnerability
from ...core.entries import parse_entry
from ...core.errors import ExpectedResultsError, InputError, XlbridgeError, shown
from ...core.pairs.matchpoints import ROW_BLANK, ROW_SCORE, session_from_rows
from ...core.pairs.neuberg import mp_percent as core_mp_percent
from ...core.pairs.neuberg import neuberg as core_neuberg
from ...core.pairs.standings import arrow_switched
from ...core.pairs.standings import pairs_ranking as core_pairs_ranking
from ...core.pairs.weighted import weighted_session
from ...core.ranking import format_rank
from ...core.template_contract import EXPECTED_LABEL, TRAVELLER_WEIGHTS
from ...core.travellerrow import (PairCheck, listed_fields, listed_pairs, pairs_row_mistake, parameter_reason,
                                   reason_text, row_mistake)
from ...core.travellerrow import row_key as _verdict_key
from ...core.vocabulary import Direction, Movement, UnknownSpellingError
from .. import cells as xl
from ..results import ratio_table
from ..elementwise import Cells, broadcast, elementwise, is_listlike
from ..travellers import WeightedColumns, WeightedRows, mask_weighted, read_traveller, read_weighted, same_length

def bridge_score(contract: Cells, declarer: Cells, tricks: Cells, vulnerable: Cells) -> Any:
    """N-S score of each result (Law 77), element-wise; a blank contract gives a blank cell.

    >>> bridge_score([["4S"], ["3NTX"]], [["N"], ["E"]], [[10], [8]], 1)   # 3NTX by E one down: +100
    [[420], [100]]
    """
    return elementwise(core_bridge_score, {"contract": contract, "declarer": declarer, "tricks": tricks,
                                           "vulnerable": _vulnerabilities(vulnerable)}, blank_if=("contract",))


def _vulnerabilities(boards: Cells) -> Cells:
    """Each board (number or vulnerability name) as its vulnerability, read once per distinct cell, so
    that element-wise scoring meets each (contract, declarer, tricks, vulnerability) once instead of
    once per board (a season of 1,000 boards: 4 vulnerabilities). A cell that is no board stays as it
    is: the core then says why, at its own cell.

    >>> _vulnerabilities([[1.0], [2.0], ["x"]])
    [['None'], ['NS'], ['x']]
    """
    seen: dict[tuple[type, Any], Any] = {}

    def one(cell: Any) -> Any:
        key = (type(cell), cell)
        try:
            return seen[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable cell: left to the core
            return cell
        try:
            found = core_vulnerability(cell)
        except (XlbridgeError, ValueError, TypeError, ArithmeticError):  # (what elementwise makes #VALUE!)
            found = cell
        seen[key] = found
        return found

    if not is_listlike(boards):
        return one(xl.grid(boards)[0][0])
    return [[one(c) for c in row] for row in xl.grid(boards)]


def score_or_typed(contract: Cells, declarer: Cells, tricks: Cells, board: Cells, typed: Cells, ns: Cells = None,
                   ew: Cells = None, movement: str | None = None, pairs: Cells = None, arrows: Cells = None) -> Any:
    """BRIDGE_SCORE where a contract is given, else the typed score cell passed through unchanged.

    A row that is a mistake (:func:`xlbridge.core.travellerrow.row_mistake`: half filled, or a cell holding what it
    cannot) is ``#VALUE!`` with the mistake's words and the input column to put right
    (:func:`~xlbridge.core.travellerrow.reason_text`), which ``xlbridge recalc`` names at that input cell. Given the
    row's pairs (``ns``, ``ew``: the template's formula gives them), a row of pairs without a result, or a result
    without its pairs, is such a mistake too; without them, a row without a result is blank. With the pairs, the rows
    are read together too (:class:`xlbridge.core.travellerrow.PairCheck`: a row typed twice, a pair playing a board
    twice, a pair against itself in a ``movement`` Howell), and, given the Pairs sheet's Pair column (``pairs``), each
    pair against it (:func:`xlbridge.core.travellerrow.unlisted_pair`: a whole number, or a text id the sheet lists;
    when the sheet lists pairs, one of them). Given the sheet's Pair and Direction columns (two columns) in a
    Mitchell, a pair seated in the other field than the sheet's is a mistake too, unless the row is marked in
    ``arrows`` (its Arrow switch: played with the arrows switched).

    >>> score_or_typed([["4S"], [None], [None], [None]], "N", 10, 1, [[None], ["A60/40"], ["NP"], [None]])
    [[420], ['A60/40'], ['NP'], [None]]
    >>> score_or_typed([["4S"], [None]], "N", [[14], [None]], 1, None, [[1], [2]], [[11], [12]])[1][0].reason
    'no contract and no typed score (column Contract)'
    >>> r = score_or_typed([["4S"], ["3NT"]], "N", 10, 1, None, [[1], [1]], [[11], [12]], "Mitchell")
    >>> r[0], r[1][0].reason
    ([420], "pair plays board 1 twice: 'NS 1' (column NS)")
    >>> score_or_typed([["4S"], ["4S"]], "N", 10, 1, None, [[1], [7]], [[11], [12]], "Mitchell", [[1], [11], [12]])[1][0].reason
    'N-S pair 7 is not on the Pairs sheet (column NS)'
    >>> sheet = [[1, "NS"], [2, "NS"], [11, "EW"], [12, "EW"]]
    >>> r = score_or_typed([["4S"], ["4S"]], "N", 10, 1, None, [[1], [12]], [[11], [2]], "Mitchell", sheet, [[None], ["Y"]])
    >>> r
    [[420], [420]]
    >>> score_or_typed([["4S"]], "N", 10, 1, None, [[12]], [[2]], "Mitchell", sheet)[0][0].reason[:55]
    'pair 12 is an E-W pair on the Pairs sheet, but sits N-S'
    """
    seated = ns is not None or ew is not None  # (given: the template's formula; not given: a formula of its own)
    verdicts: dict[tuple[Any, ...], Any] = {}  # a row's verdict by what decides it (:func:`_verdict_key`)

    def one(contract: Any, declarer: Any, tricks: Any, board: Any, typed: Any, number: Any, ns: Any, ew: Any) -> Any:
        key = _verdict_key(contract, declarer, tricks, board, typed, number, ns, ew)
        found = verdicts.get(key, verdicts) if key is not None else verdicts
        if found is verdicts:
            try:
                found = verdict(contract, declarer, tricks, board, typed, number, ns, ew)
            except _RowMistake as exc:
                found = exc
            if key is not None:
                verdicts[key] = found
        if isinstance(found, _RowMistake):
            raise InputError(found.text)
        return found

    def verdict(contract: Any, declarer: Any, tricks: Any, board: Any, typed: Any, number: Any, ns: Any,
                ew: Any) -> Any:
        # (the row's verdict, read as the file formats read it: core.travellerrow)
        # (a vulnerability by name, read already, stands for its board; a board number is read as typed: its range)
        by_name = isinstance(board, Vulnerability) and isinstance(number, str) and not number.strip().isdigit()
        mistake = row_mistake(board if by_name else number, ns, ew, contract, declarer, tricks, typed, pairs=seated)
        if mistake is not None and (seated or mistake.column != "Contract"):
            raise _RowMistake(reason_text(mistake))
        if xl.is_blank(contract):
            if xl.is_blank(typed):
                return None
            parse_entry(typed)  # refuse what no score cell can hold (text, 425, TRUE)
            return typed.strip() if isinstance(typed, str) else typed
        return core_bridge_score(contract, declarer, tricks, board)

    read = {"contract": contract, "declarer": declarer, "tricks": tricks, "typed": typed, "number": board, "ns": ns,
            "ew": ew}
    listed, fields = _listed(pairs)
    if arrows is not None and xl.optional(arrows) is not None:
        read["arrows"] = arrows
    key, shape = _seen_key(read, (seated, movement, listed, None if fields is None else frozenset(fields.items())))
    if key is not None and key in _SEEN:
        return _shaped(_SEEN[key], shape)
    args = {"contract": contract, "declarer": declarer, "tricks": tricks, "board": _vulnerabilities(board),
            "typed": typed, "number": board, "ns": ns, "ew": ew}
    out = elementwise(one, args)
    if seated and is_listlike(out):
        out = _pair_mistakes(out, {**args, "arrows": read.get("arrows")}, movement, listed, fields)
    if key is not None and is_listlike(out):
        _SEEN.clear()
        _SEEN[key] = [c for row in out for c in row]
    return out


class _RowMistake(Exception):
    """A SCORE_OR_TYPED row's mistake (its words), remembered for the rows decided alike."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


#: SCORE_OR_TYPED's last result over ranges (its cells row by row), by what it read: the pairs template reads the
#: same columns three times (the Score column, and inside WEIGHTED_MP and PAIRS_STANDINGS, transposed), and
#: ``xlbridge recalc`` computes each row's verdict once (10,000 rows: about 0.3 s of every run)
_SEEN: dict[tuple[Any, ...], list[Any]] = {}
#: the kinds of cell a remembered call may hold (an error cell's reason, or a value of another kind, is not compared)
_PLAIN = frozenset({int, float, str, bool, type(None)})


def _seen_key(args: dict[str, Cells], more: tuple[Any, ...]) -> tuple[tuple[Any, ...] | None, tuple[int, int]]:
    """The key of a call over ranges by its cells in order (row by row, whatever the ranges' shape: a range read
    across is the same cells as read down) and their kinds (TRUE is 1 in Python, not in a cell), and the result's
    shape; ``None`` for a call over single cells, or one holding a cell of another kind than a number, text,
    logical or blank.

    >>> _seen_key({"a": [[1], [True]], "b": "N"}, ())[0] == _seen_key({"a": [[1, True]], "b": "N"}, ())[0]
    True
    >>> _seen_key({"a": [[1], [1]]}, ())[0] == _seen_key({"a": [[1], [True]]}, ())[0]
    False
    >>> _seen_key({"a": 1}, ()), _seen_key({"a": [[1], [[2]]]}, ())[0]
    ((None, (1, 1)), None)
    """
    try:
        columns, shape, listlike = broadcast(args)
    except (XlbridgeError, ValueError, TypeError):  # (the call itself says why)
        return None, (1, 1)
    if not listlike:
        return None, shape
    kinds = tuple(tuple(map(type, c)) for c in columns)
    if not _PLAIN.issuperset(k for col in kinds for k in col):
        return None, shape
    return (more, tuple(map(tuple, columns)), kinds), shape


def _shaped(flat: list[Any], shape: tuple[int, int]) -> list[list[Any]]:
    """``flat`` (cells row by row) as ``shape``'s rows."""
    h, w = shape
    return [flat[r * w:(r + 1) * w] for r in range(h)]


def _listed(pairs: Cells) -> tuple[frozenset[Any] | None, dict[Any, frozenset[Direction]] | None]:
    """The pairs a Pairs sheet lists (:func:`~xlbridge.core.travellerrow.listed_pairs`) and, given its Pair and
    Direction columns (a range two columns wide, more than one row), the fields it lists each in
    (:func:`~xlbridge.core.travellerrow.listed_fields`); (None, None) without the sheet."""
    if pairs is None:
        return None, None
    grid = xl.grid(pairs)
    if len(grid) > 1 and all(is_listlike(row) and len(row) == 2 for row in grid):
        rows = [(row[0], row[1]) for row in grid if xl.error_literal(row[0]) is None]
        return (listed_pairs(n for n, _d in rows),
                listed_fields((n, d) for n, d in rows if xl.error_literal(d) is None))
    return listed_pairs(c for row in grid for c in row if xl.error_literal(c) is None), None


def _pair_mistakes(out: list[list[Any]], args: dict[str, Cells], movement: str | None,
                   listed: frozenset[Any] | None = None,
                   fields: dict[Any, frozenset[Direction]] | None = None) -> list[list[Any]]:
    """``out`` (SCORE_OR_TYPED's cells) with the rows whose pairs are a mistake read together
    (:class:`~xlbridge.core.travellerrow.PairCheck`) as ``#VALUE!`` naming the input column, in the rows' order."""
    given = {k: args[k] for k in ("number", "ns", "ew")}
    if args.get("arrows") is not None:
        given["arrows"] = args["arrows"]
    columns, (_h, w), _listlike = broadcast(given)
    howell = False
    if not xl.is_blank(movement):
        try:
            howell = Movement.parse(movement) is Movement.HOWELL
        except UnknownSpellingError:
            pass  # (the Ranking's PAIRS_STANDINGS names the movement typed wrong)
    check = PairCheck(howell=howell, listed=listed, fields=fields)
    flat = [c for row in out for c in row]
    switches = columns[3] if len(columns) > 3 else [None] * len(columns[0])
    for i, (board, ns, ew, arrow) in enumerate(zip(*columns[:3], switches)):
        if xl.error_literal(flat[i]) is not None or (flat[i] is None and xl.is_blank(ns) and xl.is_blank(ew)):
            continue  # (a row's own mistake, or a blank row: no pairs seated)
        try:
            switched = arrow_switched(arrow)
        except XlbridgeError:  # (an arrow switch that is no mark: the Ranking's PAIRS_STANDINGS names it)
            switched = False
        mistake = check.row(board, ns, ew, switched)
        if mistake is not None:
            flat[i] = xl.ExcelError("#VALUE!", reason_text(mistake))
    return [flat[r * w:(r + 1) * w] for r in range(len(flat) // w)]


#: the pairs Travellers sheet's headers of a weighted row's cells: its score (a typed one: a computed one's mistake
#: is named by SCORE_OR_TYPED), the other outcomes and the weights (core.template_contract)
PAIRS_WEIGHTED = WeightedColumns(("Typed Score", *TRAVELLER_WEIGHTS[:2]), TRAVELLER_WEIGHTS[2:], "Board")


def matchpoints(scores: Cells, boards: Cells, expected: int | None, scale: str) -> list[list[Any]]:
    """n x 2 N-S / E-W matchpoints per row (xlbridge.core.pairs.matchpoints), read and returned per column.

    Seed 001, section 4(e): 8 results Neuberg-factored to 16 expected.

    >>> matchpoints([490, 460, 460, 430, 430, 430, 400, -50], None, 16, "EBU")[0]
    [29, 1]
    """
    t = read_traveller(scores, boards)
    session = session_from_rows(t.kind, t.score, t.arts, t.codes, t.labels, expected=expected, scale=scale,
                                check_legal=False)  # read_traveller checked every score against the same table
    return t.mask(_session_cells(session), 2)


def _boards_column(boards: Cells) -> list[Any] | None:
    return None if xl.optional(boards) is None else xl.vector(boards, "boards")


def _session_cells(session: Any) -> list[list[Any]]:
    scored = session.kind >= ROW_SCORE
    return ratio_table([session.ns_num, session.ew_num], session.den, scored)


def weighted_mp(scores: Cells, weights: Cells, boards: Cells, expected: int | None, scale: str) -> list[list[Any]]:
    """n x 2 matchpoints for travellers with Law 12C1(c) weighted scores (xlbridge.core.pairs.weighted).

    Seed 004, two weighted scores (docs/corrections.md: pair A 2.75): 1/0.5 scale, 6 expected results.

    >>> r = weighted_mp([[420, None], [400, None], [400, None], [-50, None], [420, -50], [170, 420]],
    ...                 [[None, None], [None, None], [None, None], [None, None], [0.6, 0.4], [0.5, 0.5]],
    ...                 None, 6, "ACBL")
    >>> [round(x[0], 2) for x in r]
    [4.45, 2.4, 2.4, 0.2, 2.75, 2.8]

    A row that is a mistake (its error, named at its input cell) is left out of its board, as the Ranking leaves
    it out (:func:`pairs_standings`): the board's other rows keep their matchpoints among the results there are, the
    numbers the Ranking adds up (issue 52: one reading of a book). Board 1, 3 results expected, 410 no score
    (Law 77): 420 beats 400, M = 2 of a top 2 among the 2 results there are, Neuberg (2 + 1) x 3 / 2 - 1 = 3.5;
    400: (0 + 1) x 3 / 2 - 1 = 0.5.

    >>> weighted_mp([[420], [410], [400]], None, [[1], [1], [1]], 3, "EBU")
    [[3.5, 0.5], [ExcelError('#VALUE!'), ExcelError('#VALUE!')], [0.5, 3.5]]
    """
    b = _boards_column(boards)
    w, session = _weighted_left_out(scores, weights, b, expected, scale)
    if w.errors:  # (left out: as never typed, every other row kept)
        w = replace(w, bad=set())
    return mask_weighted(_session_cells(session), w, b, 2)


#: the last weighted session read (:func:`_weighted_left_out`), by what it read: the pairs template's WEIGHTED_MP and
#: PAIRS_STANDINGS read the same scores, weights, boards and parameters (10,000 rows: about 0.2 s of every run)
_SESSION: dict[tuple[Any, ...], tuple[WeightedRows, Any]] = {}


def _weighted_left_out(scores: Cells, weights: Cells, boards: list[Any] | None, expected: int | None, scale: str
                       ) -> tuple[WeightedRows, Any]:
    """The rows of a weighted traveller (:func:`~xlbridge.excel.travellers.read_weighted`) with each mistaken row's
    outcomes left out (as never typed: every other row kept), and their matchpoints
    (:func:`~xlbridge.core.pairs.weighted.weighted_session`). A call over the same cells as the last gives its
    result again (a copy of the rows: the caller may change them; the session is not changed by anyone).

    >>> w, s = _weighted_left_out([[420], [410], [400]], None, [1, 1, 1], 3, "EBU")
    >>> w.outcomes, sorted(w.errors), [str(x) for x in s.ns]
    ([420, None, 400], [1], ['7/2', 'None', '1/2'])
    >>> _weighted_left_out([[420], [410], [400]], None, [1, 1, 1], 3, "EBU")[1] is s
    True
    """
    key = _grid_key((scores, weights, boards), (expected, scale))
    found = _SESSION.get(key) if key is not None else None
    if found is None:
        w = read_weighted(scores, weights, boards, columns=PAIRS_WEIGHTED)
        if w.errors:
            w.outcomes = [None if i in w.errors else o for i, o in enumerate(w.outcomes)]
        with _expected_named():
            found = (w, weighted_session(w.outcomes, boards, expected=expected, scale=scale, check_legal=False))
        _SESSION.clear()
        if key is not None:
            _SESSION[key] = found
    w, session = found
    return replace(w, outcomes=list(w.outcomes), errors=dict(w.errors), reasons=dict(w.reasons), bad=set(w.bad)), session


@contextlib.contextmanager
def _expected_named() -> Iterator[None]:
    """Too few expected results for a board (:class:`~xlbridge.core.errors.ExpectedResultsError`) said as the mistake
    of the template's parameter (:func:`~xlbridge.core.travellerrow.parameter_reason`), which ``xlbridge recalc``
    names once at its cell, not at every matchpoint cell showing it."""
    try:
        yield
    except ExpectedResultsError as exc:
        raise InputError(parameter_reason(str(exc), EXPECTED_LABEL)) from None


_ROWS = frozenset((list, tuple))


def _grid_key(ranges: tuple[Any, ...], more: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The key of ``ranges`` by their cells and the cells' kinds (TRUE is 1 in Python, not in a cell), and ``more``;
    None when a cell is of another kind than a number, text, logical or blank (an error cell's reason is not
    compared).

    >>> _grid_key(([[1], [2]], None), ()) == _grid_key(([[1], [2]], None), ()), _grid_key(([[True]],), ()) == _grid_key(([[1]],), ())
    (True, False)
    """
    parts: list[tuple[Any, Any]] = []
    for r in ranges:
        if r is None or not is_listlike(r):
            parts.append((type(r), r))
            continue
        types = set(map(type, r))
        if types <= _ROWS:  # (rows of lists, as xlwings gives a range: no call per row or cell)
            cells = tuple(map(tuple, r))
        elif types <= _PLAIN:  # (a flat list of cells: each a row of its own)
            cells = tuple(zip(r))
        else:
            cells = tuple(tuple(row) if is_listlike(row) else (row,) for row in r)
        kinds = tuple(map(type, itertools.chain.from_iterable(cells)))
        if not _PLAIN.issuperset(kinds):
            return None
        parts.append((cells, kinds))
    return (tuple(parts), more)


def neuberg(mp: Cells, expected: Cells, actual: Cells, scale: str) -> Any:
    """The Neuberg formula element-wise over ``mp`` (xlbridge.core.pairs.neuberg).

    >>> neuberg(14, 16, 8, "EBU"), neuberg(18, 11, 10, "EBU")
    (29, 19.9)
    """
    return elementwise(lambda mp, expected, actual: core_neuberg(xl.as_number(mp, "mp"), expected, actual, scale),
                       {"mp": mp, "expected": expected, "actual": actual}, blank_if=("mp",))


def mp_percent(mp: Cells, results: Cells, scale: str) -> Any:
    """Matchpoints (0 to the top) as a percentage of the top, element-wise (xlbridge.core.pairs.neuberg).

    >>> round(mp_percent(1060 / 11, 51, "EBU"), 4)
    96.3636
    """
    return elementwise(lambda mp, results: core_mp_percent(xl.as_number(mp, "mp"), results, scale),
                       {"mp": mp, "results": results}, blank_if=("mp",))


def _ranked_session(boards: Cells, ns_pairs: Cells, ew_pairs: Cells, scores: Cells, weights: Cells,
                    expected: int | None, scale: str, *, leave_out: bool = False) -> tuple[Any, list[Any], list[Any]]:
    """The matchpointed session of a traveller (plain or weighted scores) and the pair columns. A row whose
    score cannot be read refuses the ranking, or with ``leave_out`` is left out of it (as a row never typed:
    every other row keeps its result; the template's Ranking says which row in a line of its own)."""
    b = xl.vector(boards, "boards")
    ns, ew = xl.vector(ns_pairs, "ns_pairs"), xl.vector(ew_pairs, "ew_pairs")
    sg = xl.grid(scores)
    same_length({"boards": b, "ns_pairs": ns, "ew_pairs": ew, "scores": sg})
    if xl.optional(weights) is None and all(len(r) == 1 for r in sg):
        t = read_traveller([r[0] for r in sg], b)
        errors, why = t.errors, t.reasons
        if leave_out and errors:
            t.kind = t.kind.copy()
            t.kind[sorted(errors)] = ROW_BLANK
            ns, ew = _unseated(ns, ew, errors)
            errors = {}
        with _expected_named():
            session: Any = session_from_rows(t.kind, t.score, t.arts, t.codes, t.labels, expected=expected,
                                             scale=scale, check_legal=False)
    else:
        w, session = _weighted_left_out(scores, weights, b, expected, scale)
        errors, why = w.errors, w.reasons
        if leave_out and errors:
            ns, ew = _unseated(ns, ew, errors)
            errors = {}
    if errors:
        i = min(errors)
        what = why.get(i) or f"row {i + 1}: cannot read the score {_show_cell(sg[i])}"
        raise InputError(f"{what} (the ranking needs every result)")
    return session, ns, ew


def _unseated(ns: list[Any], ew: list[Any], rows: dict[int, Any]) -> tuple[list[Any], list[Any]]:
    """Copies of the pair columns with the ``rows`` left out blank: a mistaken row seats no pair (its pair typed
    twice, or against itself, is the row's mistake, named at its cell, not the ranking's).

    >>> _unseated([1, 2], [11, 2], {1: None})
    ([1, None], [11, None])
    """
    return ([None if i in rows else p for i, p in enumerate(ns)], [None if i in rows else p for i, p in enumerate(ew)])


def pairs_ranking(boards: Cells, ns_pairs: Cells, ew_pairs: Cells, scores: Cells, weights: Cells,
                  expected: int | None, scale: str) -> list[list[Any]]:
    """k x 4 table Pair, Total MP, Percentage, Rank ("3=" for exact ties), best first; exact inside.

    >>> pairs_ranking([1, 1, 1], [1, 2, 3], [4, 5, 6], [420, 400, 400], None, None, "EBU")[:2]
    [[1, 4, 100, '1'], [5, 3, 75, '2=']]
    """
    session, ns, ew = _ranked_session(boards, ns_pairs, ew_pairs, scores, weights, expected, scale)
    out = []
    for st in core_pairs_ranking(session, ns, ew):
        rank = None if st.rank is None else format_rank(st.rank, st.tied)
        out.append([xl.to_cell(st.pair), xl.to_cell(st.total), xl.to_cell(st.percentage), rank])
    return out


def _pair_names(pairs: Cells, mitchell: bool) -> dict[Any, str]:
    """{pair key: names} from a Pair, Direction, Names table (the Pairs sheet); blank rows skipped. A row that is
    a mistake (:func:`~xlbridge.core.travellerrow.pairs_row_mistake`: a pair listed again, a Mitchell's direction
    unread) gives no names: ``recalc`` names it at its cell, and the first listing's names stay.

    >>> _pair_names([[1, "NS", "Ann & Bob"], [1, "N-S", "Cy & Di"], [2, "north", "Ed & Flo"]], True)
    {('NS', 1): 'Ann & Bob'}
    """
    table = None if pairs is None else xl.optional(pairs)
    if table is None:
        return {}
    names: dict[Any, str] = {}
    seen: set[tuple[object, object]] = set()
    for row in xl.grid(table):
        row = list(row) + [None] * (3 - len(row))
        number, direction, who = row[0], row[1], row[2]
        if xl.is_blank(number) or pairs_row_mistake(number, direction, mitchell, seen) is not None:
            continue
        key: Any = _pair_key(number)
        if mitchell:
            key = (Direction.parse(direction), key)
        names[key] = "" if xl.is_blank(who) else str(who).strip()
    return names


def _pair_key(p: Any) -> Any:
    if isinstance(p, float) and p.is_integer():
        return int(p)
    return p.strip() if isinstance(p, str) else p


def pairs_standings(boards: Cells, ns_pairs: Cells, ew_pairs: Cells, scores: Cells, weights: Cells,
                    expected: int | None, scale: str, movement: str, arrows: Cells, pairs: Cells,
                    artificial: str) -> list[list[Any]]:
    """k x 6 table Direction, Pair, Names, Total MP, Percentage, Rank; a Mitchell ranks each direction.

    >>> rows = pairs_standings([1, 1, 1], [1, 2, 3], [1, 2, 3], [420, 400, 400], None, None, "EBU", "Mitchell",
    ...                        None, [[1, "NS", "Ann & Bob"]], "fixed")
    >>> rows[0], rows[3]
    (['NS', 1, 'Ann & Bob', 4, 100, '1'], ['EW', 2, '', 3, 75, '1='])
    """
    session, ns, ew = _ranked_session(boards, ns_pairs, ew_pairs, scores, weights, expected, scale, leave_out=True)
    arrow_col = None if xl.optional(arrows) is None else xl.vector(arrows, "arrows")
    if arrow_col is not None and len(arrow_col) != len(ns):
        raise InputError(f"the arrow-switch column has {len(arrow_col)} rows, the traveller {len(ns)}")
    standings = core_pairs_ranking(session, ns, ew, movement=movement, arrows=arrow_col, artificial=artificial)
    names = _pair_names(pairs, any(st.direction for st in standings))
    out = []
    for st in standings:
        rank = None if st.rank is None else format_rank(st.rank, st.tied)
        key = (st.direction, st.pair) if st.direction else st.pair
        out.append([str(st.direction or ""), xl.to_cell(st.pair), names.get(key, ""), xl.to_cell(st.total),
                    xl.to_cell(st.percentage), rank])
    return out


def _show_cell(row: list[Any]) -> str:
    vals = [v for v in row if not xl.is_blank(v)]
    return shown(vals[0]) if len(vals) == 1 else shown(vals)
