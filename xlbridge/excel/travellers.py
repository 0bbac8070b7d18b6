"""Score columns of traveller sheets, read once and checked per cell, for the Excel functions.

A traveller call (``MATCHPOINTS``, ``CROSS_IMPS``, ``BUTLER``, ``PAIRS_RANKING``...) gets a column
of N-S score cells and, optionally, a parallel column of board numbers. :func:`read_traveller`
reads both columns once (:func:`xlbridge.excel.cells.read_column`), checks every plain number
against the legal scores of its board in one vectorised pass (the one table,
:func:`xlbridge.core.contract.legal_mask`), and looks at the other cells (text, ``NP``,
``A60/40``, error values, blanks) one by one. A bad cell does not stop the call: it gets its
Excel error, its board is scored as if the cell held 0 (a legal score on every board, so the
default number of expected results does not change) and the board's other rows get ``#N/A``
(:meth:`Traveller.mask`).

>>> t = read_traveller([[420.0], [410.0], ["NP"], [400.0]], None)
>>> t.kind.tolist(), t.errors
([2, 2, 1, 2], {1: ExcelError('#VALUE!')})
>>> t.mask([[1, 1], [2, 2], [None, None], [3, 3]], 2)
[[ExcelError('#N/A'), ExcelError('#N/A')], [ExcelError('#VALUE!'), ExcelError('#VALUE!')], [None, None], [ExcelError('#N/A'), ExcelError('#N/A')]]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.boards import factorize
from ..core.contract import ANY_VULNERABILITY, SCORE_LIMIT, board_vulnerabilities, check_score, legal_mask
from ..core.entries import Artificial, NotPlayed, parse_entry
from ..core.errors import InputError, XlbridgeError, shown
from ..core.pairs.matchpoints import ROW_ARTIFICIAL, ROW_BLANK, ROW_NOT_PLAYED, ROW_SCORE
from ..core.pairs.weighted import parse_weight, weighted_outcomes
from ..core.travellerrow import Mistake, reason_text
from . import cells as xl

__all__ = ["Traveller", "read_traveller", "same_length", "nonempty", "WeightedColumns", "WeightedRows", "read_weighted"]


def same_length(cols: dict[str, Any]) -> None:
    """Raise when parallel ranges (``None`` ones skipped) have different numbers of rows."""
    lens = {k: len(v) for k, v in cols.items() if v is not None}
    if len(set(lens.values())) > 1:
        desc = ", ".join(f"{k} has {n}" for k, n in lens.items())
        raise InputError(f"the ranges must have the same number of rows: {desc}")


def nonempty(values: list[Any], name: str) -> list[Any]:
    """``values``, or InputError naming the empty range."""
    if not values:
        raise InputError("the range is empty", where=name)
    return values


@dataclass(eq=False)
class Traveller:
    """A traveller's rows as read: what the core scores, and what went wrong where.

    ``kind``/``score``/``arts``: the rows for :func:`xlbridge.core.pairs.matchpoints.session_from_rows`
    (a bad row holds a legal 0); ``codes``/``labels``: the board of each row (``None`` without a
    board column); ``errors``: {row: Excel error} and ``reasons``: {row: what is wrong};
    ``bad_codes``: the boards that cannot be scored (their other rows get ``#N/A``).
    """

    kind: npt.NDArray[np.int8]
    score: npt.NDArray[np.int64]
    arts: dict[int, Artificial]
    codes: npt.NDArray[np.int64] | None
    labels: list[Any] | None
    errors: dict[int, xl.ExcelError] = field(default_factory=dict)
    reasons: dict[int, str] = field(default_factory=dict)
    bad_codes: set[int] = field(default_factory=set)

    def __len__(self) -> int:
        return len(self.kind)

    def entries(self) -> list[Any]:
        """The rows as core entries (int, Artificial, NOT_PLAYED or None) for the list-based scorers."""
        out: list[Any] = [None] * len(self.kind)
        real = np.flatnonzero(self.kind == ROW_SCORE)
        for i, s in zip(real.tolist(), self.score[real].tolist()):
            out[i] = s
        for i in np.flatnonzero(self.kind == ROW_NOT_PLAYED).tolist():
            out[i] = NotPlayed()
        for i, a in self.arts.items():
            out[i] = a
        return out

    def board_cells(self) -> list[Any] | None:
        """The board label of each row (for the list-based scorers), or None."""
        if self.codes is None or self.labels is None:
            return None
        lab = self.labels
        return [lab[c] for c in self.codes.tolist()]

    def mask(self, rows: list[list[Any]], width: int) -> list[list[Any]]:
        """Each bad row's error in all its cells, ``#N/A`` in every other non-blank row of a bad board."""
        if not self.errors and not self.bad_codes:
            return rows
        if self.bad_codes:
            if self.codes is None:
                hit = np.ones(len(rows), dtype=bool)
            else:
                hit = np.isin(self.codes, np.fromiter(self.bad_codes, dtype=np.int64))
            for i in np.flatnonzero(hit).tolist():
                if i not in self.errors and any(c is not None for c in rows[i]):
                    rows[i] = [xl.NA] * width
        for i, err in self.errors.items():
            rows[i] = [err] * width
        return rows


def _board_number(cell: Any, where: str) -> int:
    return xl.as_int(cell, "boards", where=where, minimum=1, maximum=2 ** 53)


def read_traveller(scores: Any, boards: Any, *, scores_name: str = "scores") -> Traveller:
    """Read a score column and its optional board column (see the module docstring)."""
    s = xl.read_column(scores, scores_name)
    nonempty(s.cells, scores_name)
    b = None if xl.optional(boards) is None else xl.read_column(boards, "boards")
    same_length({scores_name: s.cells, "boards": None if b is None else b.cells})
    n = len(s)
    sint = s.ints()
    fast = s.whole & (np.abs(s.numbers) <= SCORE_LIMIT)
    if b is None:
        vul: Any = ANY_VULNERABILITY
    else:
        good_board = b.whole & (b.numbers >= 1)
        fast &= good_board
        vul = board_vulnerabilities(np.where(good_board, b.ints(), 1))
    ok = fast & legal_mask(sint, vul)
    kind = np.where(ok, ROW_SCORE, ROW_BLANK).astype(np.int8)
    score = np.where(ok, sint, 0)
    if b is None:
        codes, labels = None, None
    elif b.whole.all():
        codes, labels = factorize(b.numbers)
    else:
        codes, labels = factorize(b.cells)
    t = Traveller(kind, score, {}, codes, labels)
    for i in np.flatnonzero(~ok).tolist():
        _slow_row(t, i, s.cells[i], None if b is None else b.cells[i])
    return t


def _slow_row(t: Traveller, i: int, v: Any, bcell: Any) -> None:
    """One cell that is not a plain legal number: read it as the core would, or record its error."""
    where = f"row {i + 1}"
    boards_given = t.codes is not None
    err = xl.error_literal(v)
    why = None if err is None else f"{where}: the score cell holds {err}"
    board = None
    if boards_given and err is None:
        err_b = xl.error_literal(bcell)
        if err_b is not None:
            t.errors[i], t.reasons[i] = err_b, f"{where}: the board cell holds {err_b}"
            return
        if not xl.is_blank(v):
            try:  # a score needs a board number (1 or more)
                board = _board_number(xl.optional(bcell, None), where)
            except XlbridgeError as ex:
                t.errors[i], t.reasons[i] = xl.ExcelError("#VALUE!", str(ex)), str(ex)
                return
    if err is None:
        try:
            e = parse_entry(v, where=where)
            if e is None:
                return
            if isinstance(e, NotPlayed):
                t.kind[i] = ROW_NOT_PLAYED
            elif isinstance(e, Artificial):
                t.kind[i] = ROW_ARTIFICIAL
                t.arts[i] = e
            else:
                assert isinstance(e, int)
                t.score[i] = check_score(e, board, where=where)
                t.kind[i] = ROW_SCORE
            return
        except XlbridgeError as ex:
            err, why = xl.ExcelError("#VALUE!", str(ex)), str(ex)
    assert err is not None
    t.errors[i] = err
    if why is not None:
        t.reasons[i] = why
    if boards_given and t.labels is not None and t.codes is not None and t.labels[t.codes[i]] is None:
        return  # no board to mark: the row stays blank for the scorer
    t.kind[i], t.score[i] = ROW_SCORE, 0  # a legal score on every board: the board is scored as if full
    t.bad_codes.add(0 if t.codes is None else int(t.codes[i]))


# --------------------------------------------------------------------------------------------
# weighted scores: n x k outcomes and weights


@dataclass(frozen=True)
class WeightedColumns:
    """The headers of a weighted traveller's input cells as its template names them: the ``outcomes`` columns (the
    row's score, then the other outcomes), the ``weights`` columns parallel to them, and the ``board`` column.

    >>> WeightedColumns(("Room 1", "Outcome 2"), ("Weight 1", "Weight 2"), "Board").weight(1)
    'Weight 2'
    """

    outcomes: tuple[str, ...]
    weights: tuple[str, ...]
    board: str | None = None

    def outcome(self, j: int) -> str | None:
        return self.outcomes[j] if j < len(self.outcomes) else None

    def weight(self, j: int) -> str | None:
        return self.weights[j] if j < len(self.weights) else None


@dataclass(eq=False)
class WeightedRows:
    """Rows of n x k outcome and weight ranges: per row a plain entry or a list of (entry, weight)."""

    outcomes: list[Any]
    errors: dict[int, xl.ExcelError]
    reasons: dict[int, str]
    bad: set[Any]


class _RowError(Exception):
    def __init__(self, err: xl.ExcelError):
        super().__init__(str(err))
        self.err = err


def read_weighted(scores: Any, weights: Any, boards: list[Any] | None, *,
                  columns: WeightedColumns | None = None) -> WeightedRows:
    """Per row the (entry, weight) outcomes (a plain row: its entry), per-row errors, and the bad boards.

    A block of numbers and blanks (what Excel sends) is read as one array (:func:`xl.number_block`);
    the rows holding one plain legal score and no weight are found in one vectorised pass, and only
    the other rows (weighted results, text, errors) are read cell by cell. A weighted row is checked whole
    (:func:`~xlbridge.core.pairs.weighted.weighted_outcomes`: its weights total 100 %), so that a mistake in one row
    is that row's error, never the whole traveller's. ``columns``: the template's headers of the cells read, so
    that a row's error names the input column to put right (:func:`xlbridge.core.travellerrow.reason_text`).
    """
    sb = xl.number_block(scores)
    sg = nonempty(xl.grid(scores) if sb is None else sb[0], "scores")
    wb = None
    if xl.optional(weights) is None:
        wg = None
    else:
        wb = xl.number_block(weights)
        wg = xl.grid(weights) if wb is None else wb[0]
    if wg is not None and (len(wg), len(wg[0]) if wg else 0) != (len(sg), len(sg[0]) if sg else 0):
        raise InputError(f"scores is {len(sg)} x {len(sg[0]) if sg else 0} but weights is "
                         f"{len(wg)} x {len(wg[0]) if wg else 0}; they must be parallel ranges")
    same_length({"scores": sg, "boards": boards})
    errors: dict[int, xl.ExcelError] = {}
    reasons: dict[int, str] = {}
    bad: set[Any] = set()
    codes: list[npt.NDArray[np.int64]] = []  # the board codes, found when a row first needs them
    first = None
    if sb is not None and (wg is None or wb is not None):  # numbers and blanks only: vectorised
        block = sb[1]
        alone = np.isnan(block[:, 1:]).all(axis=1)
        if wb is not None:
            alone &= np.isnan(wb[1]).all(axis=1)
        first = np.where(alone, block[:, 0], np.nan)
    plain = _plain_rows(sg, wg, boards, first)
    outcomes: list[Any] = plain
    blank: npt.NDArray[np.bool_] = np.zeros(len(sg), dtype=bool)
    if sb is not None and boards is None:  # (the blank rows of a block of numbers, at once: a template's empty rows)
        blank = np.asarray(np.isnan(sb[1]).all(axis=1), dtype=bool)
    for i in [i for i, p in enumerate(plain) if p is None and not blank[i]]:  # only the rows not one plain score
        row = sg[i]
        cells = [(j, v) for j, v in enumerate(row) if not xl.is_blank(v)]
        if not cells and (boards is None or xl.error_literal(boards[i]) is None):
            continue  # a blank row (a template's empty rows): no outcome, whatever its weights and board
        where = f"row {i + 1}"
        column = None  # (the input column of the cell being read)
        try:
            errs = [xl.error_literal(v) for _, v in cells]
            if boards is not None:
                errs.append(xl.error_literal(boards[i]))
            errs += [xl.error_literal(wg[i][j]) for j, _ in cells] if wg is not None else []
            first_err = next((e for e in errs if e is not None), None)
            if first_err is not None:
                raise _RowError(first_err)
            column = None if columns is None else columns.board
            if boards is not None and cells and xl.is_blank(boards[i]):
                raise InputError("a score has no board number", where=where)
            board = None if boards is None or not cells else _board_number(boards[i], where)
            outs = []
            for j, v in cells:
                column = None if columns is None else columns.outcome(j)
                e = parse_entry(v, where=where)
                if isinstance(e, int):
                    check_score(e, board, where=where)
                column = None if columns is None else columns.weight(j)
                w = None if wg is None else wg[i][j]
                if xl.is_blank(w):
                    if len(cells) > 1:
                        raise InputError(f"outcome {shown(v)} has no weight", where=where)
                    w = 1
                outs.append((e, parse_weight(w, where=where)))
            if len(outs) == 1 and outs[0][1] == 1:
                outcomes[i] = outs[0][0]  # a plain result (score, A60/40 or NP)
            elif outs:
                column = None if columns is None else columns.weight(0)
                weighted_outcomes(outs, where=where)  # (the row whole: weights totalling 100 %, Law 12C1(c))
                outcomes[i] = outs
            else:
                outcomes[i] = None
        except (XlbridgeError, _RowError) as ex:  # a bad cell of this row
            errors[i] = ex.err if isinstance(ex, _RowError) else xl.ExcelError(
                "#VALUE!", str(ex) if column is None else reason_text(Mistake(column, str(ex))))
            reasons[i] = f"{where}: a cell holds {ex.err}" if isinstance(ex, _RowError) else str(ex)
            outcomes[i] = [(0, Fraction(1))]
            if boards is not None and not codes:
                codes.append(factorize(boards, len(sg))[0])
            bad.add(None if boards is None else int(codes[0][i]))
    return WeightedRows(outcomes, errors, reasons, bad)


def _plain_rows(sg: list[list[Any]], wg: list[list[Any]] | None, boards: list[Any] | None,
                first: npt.NDArray[np.float64] | None = None) -> list[int | None]:
    """Per row: its score when the row is one plain whole number (the other cells and every weight
    blank) that is a legal score of its board, else None (read cell by cell). One vectorised check.

    ``first``: the candidate of each row already as floats (NaN: no candidate), from a block of
    numbers and blanks; else it is found row by row.
    """
    if first is None:
        # (a blank is None or empty text: the pairs template's ranges give "" for an empty cell, IF(c="","",c))
        cand = [r[0] if type(r[0]) in (float, int) and all(c is None or (type(c) is str and not c) for c in r[1:])
                else None for r in sg]
        if wg is not None:
            cand = [v if v is not None and all(c is None or (type(c) is str and not c) for c in w) else None
                    for v, w in zip(cand, wg)]
        s = xl.read_column([[v] for v in cand], "scores")
        numbers, whole = s.numbers, s.whole
    else:
        numbers = first
        with np.errstate(invalid="ignore"):
            whole = np.isfinite(numbers) & (numbers == np.round(numbers)) & (np.abs(numbers) < 2.0 ** 53)
    ok = whole & (np.abs(numbers) <= SCORE_LIMIT)
    if boards is None:
        vul: Any = ANY_VULNERABILITY
    else:
        b = xl.read_column(boards, "boards")
        good = b.whole & (b.numbers >= 1)
        ok &= good
        vul = board_vulnerabilities(np.where(good, b.ints(), 1))
    ints = np.where(whole, numbers, 0).astype(np.int64)
    ok &= legal_mask(ints, vul)
    out = ints.astype(object)
    out[~ok] = None
    rows: list[int | None] = out.tolist()
    return rows


def mask_weighted(rows: list[list[Any]], w: WeightedRows, boards: list[Any] | None, width: int) -> list[list[Any]]:
    """:meth:`Traveller.mask` for :func:`read_weighted` rows."""
    if not w.errors and not w.bad:
        return rows
    codes = None if boards is None else factorize(boards, len(rows))[0].tolist()
    for i, r in enumerate(rows):
        if i in w.errors:
            rows[i] = [w.errors[i]] * width
        elif w.bad and (None in w.bad if codes is None else codes[i] in w.bad) and any(c is not None for c in r):
            rows[i] = [xl.NA] * width
    return rows
