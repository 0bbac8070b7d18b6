"""Pairs rankings: each pair's exact total, maximum and percentage over a session, ranked.

Ranks are decided on the exact percentages by :func:`xlbridge.core.ranking.competition_ranking`
(equal percentages share the best rank, "3="; ties keep the order of first appearance).

>>> from xlbridge.core.pairs.matchpoints import matchpoint_session
>>> s = matchpoint_session([420, 400, 400], boards=[1, 1, 1])
>>> [(x.pair, x.rank, x.tied) for x in pairs_ranking(s, [1, 2, 3], [4, 5, 6])][:3]
[(1, 1, False), (5, 2, True), (6, 2, True)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..boards import board_label
from ..errors import InputError, location, shown
from ..numbers import exact, is_blank, plain
from ..ranking import competition_ranking
from ..rounding import named_option
from ..vocabulary import Direction, Movement
from .matchpoints import ROW_ARTIFICIAL, SessionMP

__all__ = ["Standing", "ARTIFICIAL_RULES", "MOVEMENTS", "pairs_ranking", "arrow_switched", "ARROW_MARKS"]


@dataclass(frozen=True)
class Standing:
    """One pair's result over a session: exact total, maximum, percentage; rank and exact tie.

    ``percentage`` is ``None`` (and ``rank`` ``None``) for a pair with no scored board;
    ``boards`` is the number of boards with matchpoints that were added up.

    >>> Standing("7", Fraction(9), Fraction(12), Fraction(75), 2, True, 3).percentage
    Fraction(75, 1)
    """

    pair: object
    total: Fraction
    maximum: Fraction
    percentage: Fraction | None
    rank: int | None
    tied: bool
    boards: int = 0
    direction: str | None = None  # Direction.NS or .EW ("NS", "EW") in a Mitchell (one field per direction)


def _blank_pair(p: object) -> bool:
    return is_blank(p)


def _pair_label(p: object) -> Any:
    if isinstance(p, tuple):  # (field, number) of a Mitchell movement: already a label
        return p
    p = plain(p)
    if isinstance(p, float) and p.is_integer():
        return int(p)
    if isinstance(p, str):
        return p.strip()
    return p


#: Artificial-score rules for rankings (``pairs_ranking(..., artificial=)``):
#:
#: - ``"fixed"`` (default): an artificial score counts as awarded (60 / 50 / 40 % of the top).
#: - ``"session"``: a pair awarded more than 50 % gets its percentage on its other boards
#:   instead when that is higher, a pair awarded less than 50 % gets it when that is lower
#:   (regulations such as "60 % or the session percentage if greater", Law 12C2; REFERENCE.md).
ARTIFICIAL_RULES = ("fixed", "session")

#: Movements (``pairs_ranking(..., movement=)``; the words of :class:`xlbridge.core.vocabulary.Movement`):
#:
#: - ``"howell"`` (default): one field; a pair number is one pair whichever direction it sits.
#: - ``"mitchell"``: two fields, N-S and E-W; N-S pair 1 and E-W pair 1 are different pairs,
#:   ranked separately. With an arrow switch on a row, the pair sitting N-S there belongs to the
#:   E-W field and the pair sitting E-W to the N-S field (the pairs are recorded where they sat).
MOVEMENTS = tuple(m.option for m in Movement)


_ONCE_TYPES = frozenset({int, float, str, bool, type(None)})  # equal cells of one of these: the same label


class _Labels(dict):  # type: ignore[type-arg]
    """(blank, label) of each distinct cell, read once: a season repeats a few dozen pair numbers and a
    thousand board numbers over 10,000 rows. Keyed by the cell's type too (TRUE is not pair 1); only
    cells of plain types, whose equal values read alike (not a Decimal 7.00 against 7, nor a Mitchell
    label ("NS", TRUE) against ("NS", 1), which are equal keys): any other cell is read each time.

    >>> pairs = _Labels(lambda x: (_blank_pair(x), _pair_label(x)))
    >>> pairs.of(7.0), pairs.of(" 7 "), pairs.of(None), pairs.of(True), pairs.of(("NS", 1)), len(pairs)
    ((False, 7), (False, '7'), (True, None), (False, True), (False, ('NS', 1)), 4)
    """

    def __init__(self, read: Any) -> None:
        super().__init__()
        self.read = read

    def of(self, x: Any) -> Any:
        cls = x.__class__
        if cls not in _ONCE_TYPES:
            return self.read(x)
        key = (cls, x)
        try:
            return self[key]
        except KeyError:
            got = self[key] = self.read(x)
            return got


def _pair_info(x: Any) -> tuple[bool, Any]:
    return _blank_pair(x), _pair_label(x)


def _show_pair(p: Any) -> str:
    return f"{p[0]} {shown(p[1])}" if isinstance(p, tuple) else shown(p)


def _fields(ns_pairs: Sequence[Any], ew_pairs: Sequence[Any], arrows: Sequence[Any] | None
            ) -> tuple[list[Any], list[Any]]:
    """Mitchell labels: (Direction.NS, n) / (Direction.EW, n), swapped on arrow-switched rows; blanks stay blank."""
    if arrows is not None and len(arrows) != len(ns_pairs):
        raise InputError(f"the arrow-switch column has {len(arrows)} rows but the N-S pairs have {len(ns_pairs)}")
    ns_out, ew_out = [], []
    info = _Labels(_pair_info).of
    for i, (n, e) in enumerate(zip(ns_pairs, ew_pairs)):
        a = None if arrows is None else arrows[i]
        switched = a is not None and not is_blank(a) and _switch_flag(a, i)
        f_ns, f_ew = (Direction.EW, Direction.NS) if switched else (Direction.NS, Direction.EW)
        blank, label = info(n)
        ns_out.append(None if blank else (f_ns, label))
        blank, label = info(e)
        ew_out.append(None if blank else (f_ew, label))
    return ns_out, ew_out


#: the texts marking a row arrow-switched (any case), and those marking it not (:func:`arrow_switched`)
ARROW_MARKS = _TRUE = ("y", "yes", "true", "1", "x", "switch", "switched", "arrow switch")
_FALSE = ("n", "no", "false", "0")


def _switch_flag(a: Any, i: int) -> bool:
    try:
        return arrow_switched(a)
    except InputError as exc:
        raise InputError(str(exc), where=location(row=i + 1)) from None


def arrow_switched(a: Any) -> bool:
    """Whether an ``Arrow switch`` cell marks its row switched: Y, yes, TRUE, 1, x (any case) for a switched row,
    blank, N, no, FALSE, 0 for another; any other value is a mistake (:class:`InputError`, in the words every
    reader says it).

    >>> arrow_switched("Y"), arrow_switched(None), arrow_switched(True), arrow_switched(" no ")
    (True, False, True, False)
    >>> arrow_switched("maybe")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.InputError: arrow switch 'maybe': mark a switched row with Y (or TRUE), leave others blank
    """
    if a is None or is_blank(a):
        return False
    a = plain(a)
    if isinstance(a, bool):
        return a
    if isinstance(a, (int, float)) and a in (0, 1):
        return bool(a)
    text = str(a).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise InputError(f"arrow switch {shown(a)}: mark a switched row with Y (or TRUE), leave others blank")


def _session_artificial(s: SessionMP, ns_pairs: Sequence[Any], ew_pairs: Sequence[Any], mp_ns: Sequence[Any],
                        mp_ew: Sequence[Any], tops: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """mp_ns / mp_ew with artificial awards replaced per the "session" rule (new lists)."""
    mp_ns, mp_ew = list(mp_ns), list(mp_ew)
    art = s.kind == ROW_ARTIFICIAL
    tot: dict[Any, Any] = {}
    mx: dict[Any, Any] = {}
    for i in np.flatnonzero(~art & s.scored).tolist():
        for pair, mp in ((ns_pairs[i], mp_ns[i]), (ew_pairs[i], mp_ew[i])):
            if not _blank_pair(pair):
                p = _pair_label(pair)
                tot[p] = tot.get(p, 0) + mp
                mx[p] = mx.get(p, 0) + tops[i]
    for i in np.flatnonzero(art).tolist():
        t = tops[i]
        for pair, col in ((ns_pairs[i], mp_ns), (ew_pairs[i], mp_ew)):
            if _blank_pair(pair) or not t:
                continue
            p = _pair_label(pair)
            if not mx.get(p):
                continue  # no other board: the award stands
            pct, sess = col[i] * 100 / t, tot[p] * 100 / mx[p]
            if (pct > 50 and sess > pct) or (pct < 50 and sess < pct):
                col[i] = sess * t / 100
    return mp_ns, mp_ew


def pairs_ranking(boards: Any, ns_pairs: Sequence[Any], ew_pairs: Sequence[Any], mp_ns: Sequence[Any] | None = None,
                  mp_ew: Sequence[Any] | None = None, tops: Sequence[Any] | None = None, *,
                  artificial: str = "fixed", movement: str = Movement.HOWELL.option,
                  arrows: Sequence[Any] | None = None) -> list[Standing]:
    """Rank pairs by exact percentage: per pair the total matchpoints, the maximum, the percentage.

    Either ``pairs_ranking(session, ns_pairs, ew_pairs)`` with a :class:`SessionMP` (or the
    result of ``weighted_session``), or ``pairs_ranking(boards, ns_pairs, ew_pairs, mp_ns,
    mp_ew, tops)`` with parallel columns (matchpoints as Fractions, ints or decimals; rows whose
    matchpoints are ``None`` are skipped).  A pair playing both directions just sums.  The
    maximum is the sum of the tops of the boards the pair has a score on; percentage =
    100 total / maximum.  Ranks are decided on the exact percentages; equal ones share the
    rank ("competition" ranking 1, 2=, 2=, 4) with ``tied`` set.  Best first; ties keep the
    order of first appearance.  A pair may not appear twice on one board.  ``artificial``
    (with a SessionMP): "fixed" (default) or "session" (see ``ARTIFICIAL_RULES``).

    ``movement="mitchell"`` ranks the N-S and the E-W field separately (``Standing.direction``
    says which; N-S field first), with ``arrows`` (one flag per row: Y/TRUE/1 or blank) marking
    arrow-switched rows (see ``MOVEMENTS``). A pair with two results on one board is an error
    naming both rows.

    >>> from xlbridge.core.pairs.matchpoints import matchpoint_session
    >>> s = matchpoint_session([420, 400, 400], boards=[1, 1, 1])
    >>> [(x.direction, x.pair, x.rank) for x in pairs_ranking(s, [1, 2, 3], [1, 2, 3], movement="Mitchell")]
    [('NS', 1, 1), ('NS', 2, 2), ('NS', 3, 2), ('EW', 2, 1), ('EW', 3, 1), ('EW', 1, 3)]

    >>> from xlbridge.core.pairs.matchpoints import matchpoint_session
    >>> s = matchpoint_session([420, 400, 400], boards=[1, 1, 1])
    >>> [(x.pair, x.total, x.rank, x.tied) for x in pairs_ranking(s, [1, 2, 3], [4, 5, 6])]
    ... # doctest: +NORMALIZE_WHITESPACE
    [(1, Fraction(4, 1), 1, False), (5, Fraction(3, 1), 2, True), (6, Fraction(3, 1), 2, True),
     (2, Fraction(1, 1), 4, True), (3, Fraction(1, 1), 4, True), (4, Fraction(0, 1), 6, False)]
    """
    artificial = named_option(artificial, ARTIFICIAL_RULES, "artificial-score rule")
    moving = Movement.parse(movement)
    if moving is Movement.MITCHELL:
        ns_pairs, ew_pairs = _fields(ns_pairs, ew_pairs, arrows)
    if isinstance(boards, SessionMP):
        s = boards
        mp_ns, mp_ew, tops, boards = s.ns, s.ew, s.tops, s.boards
        if len(ns_pairs) != len(s) or len(ew_pairs) != len(s):
            raise InputError(f"the N-S and E-W pair columns need {len(s)} rows, one per row of the session")
        if artificial == "session":
            mp_ns, mp_ew = _session_artificial(s, ns_pairs, ew_pairs, mp_ns, mp_ew, tops)
    elif artificial == "session":
        raise InputError('the "session" rule for artificial scores needs a SessionMP (it must know which rows '
                         'are artificial)')
    n = len(ns_pairs)
    cols = {"the E-W pairs": ew_pairs, "the N-S matchpoints": mp_ns, "the E-W matchpoints": mp_ew, "the tops": tops}
    for name, col in cols.items():
        if col is None:
            raise InputError(f"a ranking needs {name} (or a SessionMP instead of the boards)")
        if len(col) != n:
            raise InputError(f"{name} have {len(col)} rows but the N-S pairs have {n}")
    if boards is not None and len(boards) != n:
        raise InputError(f"the boards have {len(boards)} rows but the N-S pairs have {n}")
    assert mp_ns is not None and mp_ew is not None and tops is not None
    # exact sums kept as {denominator: sum of numerators} per pair (integer additions; matchpoints
    # share a few per-board denominators), each turned into one Fraction at the end
    parts: dict[Any, dict[int, int]] = {}
    top_parts: dict[Any, dict[int, int]] = {}
    count: dict[Any, int] = {}
    seen: dict[tuple[Any, Any], int] = {}
    pair_info = _Labels(_pair_info).of
    board_of = _Labels(board_label).of
    for i in range(n):
        t = tops[i]
        blank_ns, label_ns = pair_info(ns_pairs[i])
        blank_ew, label_ew = pair_info(ew_pairs[i])
        if not blank_ns and label_ns == label_ew:
            raise InputError(f"pair {_show_pair(label_ns)} is on both sides of row {i + 1}",
                             where=location(row=i + 1))
        for blank, p, mp in ((blank_ns, label_ns, mp_ns[i]), (blank_ew, label_ew, mp_ew[i])):
            if blank:
                continue
            if p not in parts:
                parts[p], top_parts[p], count[p] = {}, {}, 0
            if mp is None or t is None:
                continue
            if boards is not None:
                b = board_of(boards[i])
                if (p, b) in seen:
                    raise InputError(f"pair {_show_pair(p)} has two results on board {shown(b)} (rows "
                                     f"{seen[(p, b)] + 1} and {i + 1})", where=location(row=i + 1))
                seen[(p, b)] = i
            acc = parts[p]
            if type(mp) is int:  # (whole numbers, as a session's tops are, need no Fraction)
                acc[1] = acc.get(1, 0) + mp
            else:
                m = mp if type(mp) is Fraction else exact(mp, f"matchpoints of pair {_show_pair(p)} (row {i + 1})")
                acc[m.denominator] = acc.get(m.denominator, 0) + m.numerator
            acc = top_parts[p]
            if type(t) is int:
                acc[1] = acc.get(1, 0) + t
            else:
                top = t if type(t) is Fraction else exact(t, f"top of row {i + 1}")
                acc[top.denominator] = acc.get(top.denominator, 0) + top.numerator
            count[p] += 1
    total = {p: sum((Fraction(v, d) for d, v in acc.items()), Fraction(0)) for p, acc in parts.items()}
    maximum = {p: sum((Fraction(v, d) for d, v in acc.items()), Fraction(0)) for p, acc in top_parts.items()}
    pct = {p: (total[p] * 100 / maximum[p] if maximum[p] else None) for p in total}
    out = []
    for field in moving.fields:
        order = [p for p in total if field is None or p[0] == field]  # first appearance
        ranked = [p for p in order if pct[p] is not None]
        for place in competition_ranking([pct[p] for p in ranked]):
            p = ranked[place.index]
            out.append(_standing(p, total[p], maximum[p], pct[p], place.rank, place.tied, count[p]))
        for p in order:
            if pct[p] is None:
                out.append(_standing(p, total[p], maximum[p], None, None, False, 0))
    return out


def _standing(p: Any, total: Fraction, maximum: Fraction, pct: Fraction | None, rank: int | None, tied: bool,
              boards: int) -> Standing:
    if isinstance(p, tuple):
        return Standing(p[1], total, maximum, pct, rank, tied, boards, p[0])
    return Standing(p, total, maximum, pct, rank, tied, boards)
