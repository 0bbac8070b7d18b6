"""Board numbers of traveller rows: reading a board cell, coding rows by board, legality per board.

A traveller sheet (or a whole session) is a column of N-S scores with a parallel column of
board numbers. Every scorer that groups rows by board reads the board cells here, so that
``3``, ``3.0`` and ``" 3 "`` are one board everywhere, and checks the scores against the legal
scores of each board's vulnerability (:func:`xlbridge.core.contract.legal_table`, the 16-board
cycle) in one vectorised pass.

>>> board_label(3.0), board_label(" 12 "), board_label("B1"), board_label(float("nan"))
(3, 12, 'B1', None)
>>> import numpy as np
>>> codes, labels = factorize(np.array([3, 1, 3, 2]))    # board numbers: code = number - lowest
>>> codes.tolist(), labels
([2, 0, 2, 1], [1, 2, 3])
>>> check_traveller([420, 410], [True, True], *factorize([1, 1]))
Traceback (most recent call last):
...
xlbridge.core.errors.ImpossibleScoreError: board 1, row 2: impossible score: 410 (no contract and result gives N-S 410 when vulnerability is None)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .contract import (
    ANY_VULNERABILITY,
    VULNERABILITY_NAMES,
    board_vulnerabilities,
    check_score,
    legal_mask,
    vulnerability,
)
from .errors import ContractError, InputError, location, shown
from .numbers import MAX_TEXT_LENGTH, is_blank, number_text, plain

__all__ = ["board_label", "check_traveller"]
# also public, for the other core modules (not exported by ``xlbridge``): as_column, factorize,
# row_vulnerabilities, NO_BOARD_NUMBER

#: The vulnerability row :func:`row_vulnerabilities` gives a row whose board label is no board number.
NO_BOARD_NUMBER = -1


def as_column(values: Any) -> Any:
    """A pandas Series or Index as its numpy array (no pandas import); anything else unchanged.

    >>> as_column([1, 2])
    [1, 2]
    """
    if values is not None and hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        return values.to_numpy()
    return values


def board_label(value: object) -> Any:
    """A board cell as a label: whole numbers (``3.0``, ``"3"``) as ``int``, other text stripped, blank ``None``.

    >>> board_label(" 7 "), board_label("7.0"), board_label(True), board_label("Board 7")
    (7, 7, True, 'Board 7')
    """
    value = plain(value)
    if is_blank(value):
        return None
    if type(value) is int:
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        t = value.strip()
        if len(t) <= MAX_TEXT_LENGTH:
            try:
                v = number_text(t)
            except InputError:
                v = None
            if v is not None and v.denominator == 1:
                return int(v.numerator)
        return t
    return value


def factorize(values: Sequence[object] | npt.NDArray[Any] | None, n: int | None = None,
              what: str = "boards") -> tuple[npt.NDArray[np.int64], list[Any]]:
    """Integer codes 0..k-1 for the rows' board cells and the label of each code.

    Whole board numbers are coded as ``number - lowest`` (labels with no row in between are
    harmless: no row has their code), other labels in order of first appearance.
    ``values`` ``None``: one board for all ``n`` rows (label ``None``).

    >>> factorize(None, 3)[0].tolist(), factorize(["B", "A", "B"])
    ([0, 0, 0], (array([0, 1, 0]), ['B', 'A']))
    """
    if values is None:
        return np.zeros(n or 0, dtype=np.int64), [None]
    count = len(values)
    if n is not None and count != n:
        raise InputError(f"{what} has {count} rows but the scores have {n}")
    arr = values if isinstance(values, np.ndarray) and values.ndim == 1 else None
    if arr is not None and arr.dtype.kind == "f" and count and bool(np.all(np.isfinite(arr))) \
            and bool(np.all(arr == np.round(arr))) and float(np.abs(arr).max()) < 2 ** 53:
        arr = arr.astype(np.int64)
    if arr is not None and arr.dtype.kind in "iu":
        arr = arr.astype(np.int64, copy=False)
        lo, hi = (int(arr.min()), int(arr.max())) if count else (0, -1)
        if hi - lo <= 4 * count + 16:  # dense labels (board numbers): code = label - lowest
            return arr - lo, list(range(lo, hi + 1))
        uniq, inv = np.unique(arr, return_inverse=True)
        return inv.astype(np.int64).reshape(-1), [int(u) for u in uniq]
    codes = np.empty(count, dtype=np.int64)
    seen: dict[Any, int] = {}
    labels: list[Any] = []
    for i, v in enumerate(values):
        lab = board_label(v)
        try:
            c = seen.get(lab)
        except TypeError:
            raise InputError(f"board {shown(lab)} cannot be used as a board label", where=location(row=i + 1)) from None
        if c is None:
            c = seen[lab] = len(labels)
            labels.append(lab)
        codes[i] = c
    return codes, labels


def row_vulnerabilities(codes: npt.NDArray[np.int64], labels: Sequence[Any],
                        rows: npt.NDArray[np.bool_] | None = None) -> npt.NDArray[np.int64]:
    """The :func:`~xlbridge.core.contract.legal_table` row of each row's board.

    A board labelled by a board number (1 or more) follows the 16-board cycle; a vulnerability
    name (``"NS"``) is taken as given; any other label gets :data:`NO_BOARD_NUMBER`. Only the
    boards of ``rows`` (default: all) are looked at.

    >>> c, lab = factorize([1, 2, "B1", "EW"])
    >>> row_vulnerabilities(c, lab).tolist()
    [0, 1, -1, 2]
    """
    nb = len(labels)
    vul = np.full(nb, NO_BOARD_NUMBER, dtype=np.int64)
    if nb and all(type(x) is int and x >= 1 for x in labels):
        vul[:] = board_vulnerabilities(np.array(labels, dtype=np.int64))
    else:
        used = np.ones(nb, dtype=bool) if rows is None else np.bincount(codes[rows], minlength=nb) > 0
        for c in np.flatnonzero(used).tolist():
            lab = labels[c]
            if lab is None or isinstance(lab, bool):
                continue
            try:
                vul[c] = VULNERABILITY_NAMES.index(vulnerability(lab).name)
            except (ContractError, TypeError):
                continue
    return vul[codes]


def check_traveller(scores: npt.ArrayLike, real: npt.ArrayLike, codes: npt.NDArray[np.int64] | None = None,
                    labels: Sequence[Any] | None = None, *, extra: Sequence[tuple[int, int]] = ()) -> None:
    """Raise for the first row whose score no contract gives on its board (ImpossibleScoreError).

    ``scores`` (int64) and ``real`` (the rows holding a real score) are parallel; ``codes`` and
    ``labels`` come from :func:`factorize` (``None``: no board numbers, so a score must be legal
    at some vulnerability: ``+410`` never is). ``extra``: further ``(row index, score)`` pairs
    (the other outcomes of weighted scores). A board whose label is no board number has no
    known vulnerability: InputError naming the row.

    >>> check_traveller([410], [True])
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.ImpossibleScoreError: row 1: impossible score: 410 (no contract and result gives N-S 410 at any vulnerability)
    """
    s = np.asarray(scores, dtype=np.int64)
    r = np.asarray(real, dtype=bool)
    boards_given = codes is not None and labels is not None
    if boards_given:
        assert codes is not None and labels is not None
        vul = row_vulnerabilities(codes, labels, r)
        unknown = r & (vul == NO_BOARD_NUMBER)
        if unknown.any():
            i = int(np.flatnonzero(unknown)[0])
            raise InputError(f"board {shown(labels[codes[i]])} is not a board number, so its vulnerability is unknown",
                             where=location(row=i + 1))
        ok = legal_mask(s, np.where(r, vul, ANY_VULNERABILITY))
    else:
        vul = None
        ok = legal_mask(s)
    bad = [(int(i), int(s[i])) for i in np.flatnonzero(r & ~ok)[:1]]
    for i, sc in extra:
        v = ANY_VULNERABILITY if vul is None else int(vul[i])
        if not bool(legal_mask([sc], v)[0]):
            bad.append((i, sc))
    if bad:
        i, sc = min(bad)
        if vul is None:
            check_score(sc, None, where=location(row=i + 1))
        else:
            assert codes is not None and labels is not None
            check_score(sc, VULNERABILITY_NAMES[int(vul[i])], where=location(board=labels[codes[i]], row=i + 1))
        raise AssertionError("legal_table disagrees with check_score")  # pragma: no cover
