"""Adapters of the rating functions: LEHMAN_PREDICT, LEHMAN_DELTA, LEHMAN_ERROR, LEHMAN_UPDATE, LEHMAN_LEDGER,
LEHMAN_SEASON, LEHMAN_HISTORY (seed 003).

>>> round(lehman_predict([[50, 45, 45, 45]]), 2)
51.35
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ...core.errors import InputError
from ...core.ratings.ledger import lehman_ledger_arrays
from ...core.ratings.lehman import lehman_delta as core_lehman_delta
from ...core.ratings.lehman import lehman_error as core_lehman_error
from ...core.ratings.lehman import lehman_predict as core_lehman_predict
from ...core.ratings.lehman import lehman_update as core_lehman_update
from .. import cells as xl
from ..elementwise import Cells, elementwise, number_line, shaped
from ..travellers import same_length

def _four(values: Cells, name: str) -> list[float]:
    v = xl.vector(values, name)
    for i, x in enumerate(v):
        err = xl.error_literal(x)
        if err is not None:
            raise InputError(f"cell {i + 1} holds {err}", where=name)
    if len(v) != 4:
        raise InputError(f"expected 4 cells (N, S, E, W), got {len(v)}", where=name)
    return [float(xl.as_number(x, name, where=f"cell {i + 1}")) for i, x in enumerate(v)]


def lehman_predict(ratings: Cells) -> Any:
    """Predicted N-S percentage from 4 ratings N, S, E, W (seed 003).

    >>> round(lehman_predict([[50, 45, 45, 45]]), 2)
    51.35
    """
    return xl.to_cell(core_lehman_predict(_four(ratings, "ratings")))


def lehman_delta(ratings: Cells, ns_pct: Fraction | int, errors: Cells) -> list[list[Any]]:
    """1 x 4 rating changes N, S, E, W (standard; with 4 error bounds, the seed 003 modification).

    >>> [round(x, 2) for x in lehman_delta([50, 45, 45, 45], 42, None)[0]]
    [-9.11, -8.19, 8.65, 8.65]
    """
    e = None if xl.optional(errors) is None else _four(errors, "errors")
    return [[xl.to_cell(d) for d in core_lehman_delta(_four(ratings, "ratings"), float(ns_pct), e)]]


def lehman_error(boards: Cells) -> Any:
    """Error bound 1 / sqrt(boards - 1) (1 below 2 boards), element-wise.

    >>> lehman_error(26)
    0.2
    """
    line = number_line(boards, "boards")
    if line is not None and (line[0].numbers >= 0).all():  # the same IEEE operations as lehman_error
        n = line[0].numbers
        return shaped(np.where(n < 2, 1.0, 1.0 / np.sqrt(np.maximum(n - 1, 1.0))), line[1])
    return elementwise(lambda boards: core_lehman_error(float(xl.as_number(boards, "boards"))), {"boards": boards},
                       blank_if=("boards",))


def lehman_update(rating: Fraction | int, history: Fraction | int, pseudo_sum: Fraction | int,
                  week_boards: Fraction | int, decay: Fraction | int | None) -> list[list[Any]]:
    """1 x 2: the new rating and the new (decayed) history count (xlbridge.core.ratings.lehman).

    (H R + sum Q) / (H + n) = (100 x 50 + 400) / 110; history (100 + 10) x (1 - 0.067).

    >>> [round(x, 4) for x in lehman_update(50, 100, 400, 10, None)[0]]
    [49.0909, 102.63]
    """
    kw: dict[str, Any] = {} if decay is None else {"decay": float(decay)}
    res = core_lehman_update(float(rating), float(history), float(pseudo_sum), float(week_boards), **kw)
    return [[xl.to_cell(v) for v in res]]


def lehman_ledger(weeks: Cells, north: Cells, south: Cells, east: Cells, west: Cells, ns_pct: Cells,
                  formula: str, decay: Fraction | int | None) -> list[list[Any]]:
    """players x 4: Player, Rating, History boards, Error bound after the season (xlbridge.core.ratings.ledger).

    One board, four newcomers rated 50, N-S 60 %: pseudo-ratings 60 (N-S) and 40 (E-W).

    >>> lehman_ledger([1], ["ann"], ["bob"], ["cy"], ["di"], [60], "standard", None)
    [['ann', 60.0, 0.933, 1.0], ['bob', 60.0, 0.933, 1.0], ['cy', 40.0, 0.933, 1.0], ['di', 40.0, 0.933, 1.0]]
    """
    wk, pc = xl.read_column(weeks, "weeks"), xl.read_column(ns_pct, "ns_pct")
    seats = {k: xl.vector(v, k) for k, v in (("north", north), ("south", south), ("east", east), ("west", west))}
    cols = {"weeks": wk.cells, **seats, "ns_pct": pc.cells}
    same_length(cols)
    kw: dict[str, Any] = {"formula": formula}
    if decay is not None:
        kw["decay"] = float(decay)
    if len(wk) and wk.whole.all() and np.isfinite(pc.numbers).all() and all(_plain_names(c) for c in seats.values()):
        # every cell filled and plain (what a season sheet holds): the columns go to the core as read
        led = lehman_ledger_arrays(wk.ints(), seats["north"], seats["south"], seats["east"], seats["west"], pc.numbers,
                                   **kw)
        return [[xl.to_cell(p), r, h, e] for p, (r, h, e) in led.final().items()]
    keep = [i for i in range(len(cols["weeks"])) if not all(xl.is_blank(c[i]) for c in cols.values())]
    for i in keep:
        for k, c in cols.items():
            err = xl.error_literal(c[i])
            if err is not None or xl.is_blank(c[i]):
                raise InputError(f"{k} is {err or 'blank'}", where=f"row {i + 1}")
    sel = {k: [c[i] for i in keep] for k, c in cols.items()}
    sel["ns_pct"] = [float(xl.as_number(v, "ns_pct", where=f"row {i + 1}")) for i, v in zip(keep, sel["ns_pct"])]
    sel["weeks"] = [xl.as_int(v, "weeks", where=f"row {i + 1}") for i, v in zip(keep, sel["weeks"])]
    led = lehman_ledger_arrays(sel["weeks"], sel["north"], sel["south"], sel["east"], sel["west"], sel["ns_pct"], **kw)
    return [[xl.to_cell(p), r, h, e] for p, (r, h, e) in led.final().items()]


def _plain_names(cells: list[Any]) -> bool:
    """Whether a player column holds no blank and no error value (names or numbers only)."""
    return all((type(c) is str and c.strip() and (c[0] != "#" or xl.error_literal(c) is None))
               or (type(c) in (int, float) and c == c) for c in cells)


def _plain_counts(b: xl.Column | None) -> tuple[bool, Any]:
    """(True, the boards counts) when every cell of the boards column is a whole number 1 or more or
    blank (1 board), as one array; (True, None) without the column; (False, None) otherwise."""
    if b is None:
        return True, None
    blank = ~np.isfinite(b.numbers)
    if not (b.whole | blank).all() or not all(b.cells[i] is None for i in np.flatnonzero(blank).tolist()):
        return False, None
    counts = np.where(blank, 1, b.ints())
    return bool((counts >= 1).all()), counts


def _season(weeks: Cells, north: Cells, south: Cells, east: Cells, west: Cells, ns_pct: Cells, boards: Cells,
            formula: str, decay: Fraction | int | None) -> Any:
    """The season's :class:`~xlbridge.core.ratings.ledger.LehmanLedger` from the ledger's columns: blank rows
    skipped, a row with a blank or error cell refused naming it; a blank boards cell counts 1 board."""
    wk, pc = xl.read_column(weeks, "weeks"), xl.read_column(ns_pct, "ns_pct")
    seats = {k: xl.vector(v, k) for k, v in (("north", north), ("south", south), ("east", east), ("west", west))}
    bc = None if xl.optional(boards) is None else xl.read_column(boards, "boards")
    cols = {"weeks": wk.cells, **seats, "ns_pct": pc.cells}
    nb = None if bc is None else bc.cells
    same_length({**cols, "boards": nb})
    plain, plain_counts = _plain_counts(bc)
    if plain and len(wk) and wk.whole.all() and np.isfinite(pc.numbers).all() and \
            all(_plain_names(c) for c in seats.values()):
        # every row filled and plain (what a season sheet holds): the columns go to the core as read
        fast: dict[str, Any] = {"formula": formula, "boards": plain_counts}
        if decay is not None:
            fast["decay"] = float(decay)
        return lehman_ledger_arrays(wk.ints(), seats["north"], seats["south"], seats["east"], seats["west"],
                                    pc.numbers, **fast)
    keep = [i for i in range(len(cols["weeks"]))
            if not all(xl.is_blank(c[i]) for c in cols.values()) or (nb is not None and not xl.is_blank(nb[i]))]
    for i in keep:
        for k, c in list(cols.items()) + ([("boards", nb)] if nb is not None else []):
            err = xl.error_literal(c[i])
            if err is not None or (xl.is_blank(c[i]) and k != "boards"):
                raise InputError(f"{k} is {err or 'blank'}", where=f"row {i + 1}")
    sel = {k: [c[i] for i in keep] for k, c in cols.items()}
    sel["ns_pct"] = [float(xl.as_number(v, "ns_pct", where=f"row {i + 1}")) for i, v in zip(keep, sel["ns_pct"])]
    sel["weeks"] = [xl.as_int(v, "weeks", where=f"row {i + 1}") for i, v in zip(keep, sel["weeks"])]
    counts = None if nb is None else [1 if xl.is_blank(nb[i]) else xl.as_int(nb[i], "boards", where=f"row {i + 1}",
                                                                             minimum=1) for i in keep]
    kw: dict[str, Any] = {"formula": formula, "boards": counts}
    if decay is not None:
        kw["decay"] = float(decay)
    return lehman_ledger_arrays(sel["weeks"], sel["north"], sel["south"], sel["east"], sel["west"], sel["ns_pct"],
                                **kw)


def lehman_season(weeks: Cells, north: Cells, south: Cells, east: Cells, west: Cells, ns_pct: Cells, boards: Cells,
                  formula: str, decay: Fraction | int | None) -> list[list[Any]]:
    """players x 5: Player, Boards played this season, Rating, History boards, Error bound, with a boards count
    per row (a row standing for a set of boards counts its pseudo-rating that many times).

    Two boards in one row at 60 % weigh like two rows at 60 %:

    >>> lehman_season([1], ["ann"], ["bob"], ["cy"], ["di"], [60], [2], "standard", None)[0]
    ['ann', 2, 60.0, 1.866, 1.0]
    """
    led = _season(weeks, north, south, east, west, ns_pct, boards, formula, decay)
    played = led.boards.sum(axis=0) if len(led.weeks) else np.zeros(len(led.players))
    index = {p: i for i, p in enumerate(led.players)}
    return [[xl.to_cell(p), int(round(float(played[index[p]]))), r, h, e] for p, (r, h, e) in led.final().items()]


def lehman_history(weeks: Cells, north: Cells, south: Cells, east: Cells, west: Cells, ns_pct: Cells, boards: Cells,
                   formula: str, decay: Fraction | int | None, players: Cells) -> list[list[Any]]:
    """(1 + players) x (1 + weeks): a header row (``Player``, then each week played), then each player's
    name and rating after each week (blank before the player's first week), players in name order.
    ``players`` (optional): only these players, in this order (a blank cell gives a blank row; a name
    without results is refused).

    Week 2: ed (new, 50) and di (40) against ann and bob (60): predicted 50 x 60 / 52.5, Q(ann) = 52.5,
    (0.933 x 60 + 52.5) / 1.933 = 56.12; cy did not play (kept at 40).

    >>> h = lehman_history([1, 2], ["ann", "ann"], ["bob", "bob"], ["cy", "ed"], ["di", "di"], [60, 50], None,
    ...                    "standard", None, ["ann", None, "ed", "cy"])
    >>> [[round(x, 2) if isinstance(x, float) else x for x in row] for row in h]
    [['Player', 1, 2], ['ann', 60.0, 56.12], [None, None, None], ['ed', None, 58.33], ['cy', 40.0, 40.0]]
    """
    led = _season(weeks, north, south, east, west, ns_pct, boards, formula, decay)
    weeks_played = [w for w in led.weeks if w is not None]
    head: list[Any] = ["Player", *weeks_played]
    index = {p: i for i, p in enumerate(led.players)}
    wanted: list[Any] = (sorted(led.players, key=lambda p: (not isinstance(p, str), str(p)))
                         if xl.optional(players) is None else xl.vector(players, "players"))
    out = [head]
    for k, p in enumerate(wanted):
        if xl.is_blank(p):
            out.append([None] * len(head))
            continue
        key = p.strip() if isinstance(p, str) else p
        if key not in index and isinstance(key, float) and key.is_integer():
            key = int(key)
        if key not in index:
            raise InputError(f"player {xl.shown_cell(p)} has no results in the ledger", where=f"players, cell {k + 1}")
        c = index[key]
        ratings = [float(led.ratings[i, c]) if np.isfinite(led.ratings[i, c]) else None
                   for i in range(len(weeks_played))]
        out.append([xl.to_cell(key), *ratings])
    return out
