"""A Law 12C1(c) weighted score in the files that have no field for one: PBN's ScoreTable and USEBIO's
traveller line.

Law 12C1(c) lets a director give a board several outcomes, each with a weight ("60 % of 4S making, 40 %
of 4S one off"); the row is then scored on every outcome and weighted (seed 004: matchpoints by
:func:`xlbridge.weighted_session`, IMPs by :func:`xlbridge.weighted_imps`).  Neither PBN 2.1 nor
USEBIO 1.2 has a field for it.  xlbridge writes such a row as every reader expects a row, with its own
score (the contract played or ruled: the first outcome) and its **exact weighted** matchpoints or IMPs,
and adds the outcomes in a field of its own that other readers skip:

- **PBN**: a user-defined ``ScoreTable`` column ``Outcomes`` (PBN 2.1 section 5.2: a table may carry
  columns of its own), ``"420 60%;-50 40%"``: each outcome's N-S score and its weight, ``;`` between
  outcomes, the row's own score first; ``-`` on the other rows.
- **USEBIO**: an element ``WEIGHTED_SCORE`` at the end of the ``TRAVELLER_LINE`` with one ``OUTCOME``
  per outcome, its attributes ``SCORE`` (N-S) and ``WEIGHT``.

A weight is written as a percentage when it is exact to four decimals (``60%``, ``12.5%``), otherwise as
a fraction (``1/3``); both are read back exactly (:func:`xlbridge.parse_weight`).  xlbridge's readers
take the outcomes back, so that importing an export scores the board as the workbook did; the export
command says so in one warning line (:func:`weighted_warning`).

>>> from fractions import Fraction as F
>>> from xlbridge.formats.model import Result
>>> r = Result("1", "2", "4S", "N", 10, 420, outcomes=((420, F(3, 5)), (-50, F(2, 5))))
>>> outcomes_text(r)
'420 60%;-50 40%'
>>> read_outcomes([("420", "60%"), ("-50", "40%")], 420, "None", {"file": "club.pbn", "line": 9}) == r.outcomes
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import xlbridge

from .checks import format_number, vulnerability_words
from .errors import FormatError
from .model import TEAMS, Event, Result

__all__ = ["MAX_OUTCOMES", "weight_text", "outcomes_text", "outcome_pairs", "split_outcomes", "read_outcomes",
           "workbook_outcomes", "weighted_warning"]

#: The most outcomes one weighted score may have in a file read (a workbook row holds three).
MAX_OUTCOMES = 13


def weight_text(w: Fraction) -> str:
    """A weight as written to a file: a percentage exact to four decimals, otherwise a fraction of 1.

    >>> weight_text(Fraction(3, 5)), weight_text(Fraction(1, 8)), weight_text(Fraction(1, 3)), weight_text(Fraction(0))
    ('60%', '12.5%', '1/3', '0%')
    """
    pct = w * 100
    if (pct * 10**4).denominator == 1:
        return format_number(pct) + "%"
    return f"{w.numerator}/{w.denominator}"


def outcome_pairs(r: Result) -> list[tuple[int, str]]:
    """A weighted row's ``(N-S score, weight text)`` outcomes as written, the row's own score first (at
    ``0%`` when the workbook gave it no weight, so that a reader finds it there).

    >>> outcome_pairs(Result("1", "2", score=420, outcomes=((-50, Fraction(1)),)))
    [(420, '0%'), (-50, '100%')]
    """
    pairs = [(score, weight_text(w)) for score, w in r.outcomes]
    if r.outcomes and r.outcomes[0][0] != r.score and isinstance(r.score, int):
        pairs.insert(0, (r.score, "0%"))
    return pairs


def outcomes_text(r: Result) -> str:
    """PBN's ``Outcomes`` cell of a row: ``"420 60%;-50 40%"``, or ``-`` for a row that is not weighted."""
    return ";".join(f"{s} {w}" for s, w in outcome_pairs(r)) if r.outcomes else "-"


def split_outcomes(text: str, loc: dict[str, Any]) -> list[tuple[str, str]]:
    """PBN's ``Outcomes`` cell as ``(score text, weight text)`` pairs (none for ``-``), refused naming ``loc``
    when it is not ``score weight`` pairs separated by ``;``.

    >>> split_outcomes("420 60%; -50 40%", {}), split_outcomes("-", {})
    ([('420', '60%'), ('-50', '40%')], [])
    """
    t = text.strip()
    if t in ("", "-"):
        return []
    parts = t.split(";")
    if len(parts) > MAX_OUTCOMES:
        raise FormatError(f"a weighted score (Law 12C1(c)) with more than {MAX_OUTCOMES} outcomes:",
                          value=text, **loc)
    out = []
    for part in parts:
        words = part.split()
        if len(words) != 2:
            raise FormatError("cannot read the weighted score's outcomes (each 'N-S score weight', e.g. "
                              "'420 60%;-50 40%'):", value=text, **loc)
        out.append((words[0], words[1]))
    return out


def read_outcomes(pairs: Sequence[tuple[str | None, str | None]], score: object, vulnerable: str,
                  loc: dict[str, Any]) -> tuple[tuple[int, Fraction], ...]:
    """A weighted score's outcomes read from a file: each a N-S score legal at ``vulnerable`` (Law 77) and a
    weight (:func:`xlbridge.parse_weight`), the first the row's own ``score``, the weights totalling 100 %
    (:func:`xlbridge.weighted_outcomes`, which drops an outcome of zero weight).  A refusal names ``loc``.

    >>> read_outcomes([("420", "1/3"), ("-50", "2/3")], 420, "None", {})
    ((420, Fraction(1, 3)), (-50, Fraction(2, 3)))
    >>> read_outcomes([("420", "60%"), ("-50", "30%")], 420, "None", {"line": 4})
    Traceback (most recent call last):
    ...
    xlbridge.formats.errors.FormatError: line 4: a weighted score (Law 12C1(c)): weights total 90 %, not 100 %: 420 x 60 %, -50 x 30 %
    """
    if len(pairs) > MAX_OUTCOMES:
        raise FormatError(f"a weighted score (Law 12C1(c)) with more than {MAX_OUTCOMES} outcomes:",
                          value=len(pairs), **loc)
    if not isinstance(score, int) or isinstance(score, bool):
        raise FormatError("a weighted score (Law 12C1(c)) needs a real score in the row, not", value=str(score), **loc)
    read: list[tuple[int, Fraction | None]] = []
    for s, w in pairs:
        t = (s or "").strip()
        if not re.fullmatch(r"-?[0-9]{1,5}", t):
            raise FormatError("an outcome of a weighted score must be a N-S score, got", value=s, **loc)
        value = int(t)
        try:
            xlbridge.check_score(value, vulnerable)
        except xlbridge.XlbridgeError:
            raise FormatError(f"impossible outcome for vulnerability {vulnerability_words(vulnerable)}:", value=value,
                              **loc) from None
        try:
            weight = xlbridge.parse_weight(w)
        except xlbridge.XlbridgeError:
            raise FormatError("cannot read the weight of an outcome:", value=w, **loc) from None
        read.append((value, weight))
    if not read or read[0][0] != score:
        raise FormatError("a weighted score's first outcome must be the row's own score,", value=score, **loc)
    try:
        return tuple(xlbridge.weighted_outcomes(read))
    except xlbridge.XlbridgeError as exc:
        raise FormatError(f"a weighted score (Law 12C1(c)): {str(exc).rstrip('.')}", **loc) from None


def workbook_outcomes(r: Result, board: int, name: str | None, slots: int = 2) -> list[object]:
    """A weighted row's cells in a workbook (``Outcome 2``, ``Outcome 3``, ``Weight 1``, ``Weight 2``,
    ``Weight 3`` for ``slots=2``): the row's own score stays in its own cells at ``Weight 1`` (0 when it has
    no weight), the other outcomes and their weights after it.  A weight is a number when the workbook
    reads the number back exactly (:func:`xlbridge.parse_weight`), else its text (``1/3``).  More outcomes
    than the workbook holds are refused naming the file ``name``, the ``board`` and the row.

    >>> workbook_outcomes(Result("1", "2", score=420, outcomes=((420, Fraction(3, 5)), (-50, Fraction(2, 5)))), 1, "x")
    [-50, None, 0.6, 0.4, None]
    """
    others = [(s, w) for s, w in r.outcomes if s != r.score]
    own = sum((w for s, w in r.outcomes if s == r.score), Fraction(0))
    if len(others) > slots:
        raise FormatError(f"a weighted score (Law 12C1(c)) with {len(others) + 1} outcomes; the workbook holds at most "
                          f"{slots + 1} (its own score, Outcome 2 and Outcome 3):", file=name,
                          element=f"board {board}, {r.ns} v {r.ew}",
                          value=", ".join(str(s) for s, _ in r.outcomes))

    def cell(w: Fraction) -> object:
        f = float(w)
        return f if xlbridge.parse_weight(f) == w else f"{w.numerator}/{w.denominator}"

    scores: list[object] = [s for s, _ in others] + [None] * (slots - len(others))
    weights = [cell(own)] + [cell(w) for _, w in others] + [None] * (slots - len(others))
    return scores + weights


def weighted_warning(event: Event, fmt: str) -> str | None:
    """The one warning line of an export holding weighted scores (None when it holds none): how many, the
    first, and where the file carries them.

    >>> e = Event(boards=(xlbridge.formats.Board(5, results=(Result("3", "4", score=420,
    ...     outcomes=((420, Fraction(3, 5)), (-50, Fraction(2, 5)))),)),))
    >>> weighted_warning(e, "PBN")
    "1 weighted score (Law 12C1(c)), board 5, 3 v 4: written as its own score with the exact weighted matchpoints; its outcomes and weights in xlbridge's ScoreTable column Outcomes, which other programs skip (docs/formats.md)"
    """
    rows = [(b.number, r) for b in event.boards for r in b.results if r.outcomes]
    if not rows:
        return None
    (board, first), n = rows[0], len(rows)
    points = "IMPs" if event.kind == TEAMS else "matchpoints"
    where = "xlbridge's ScoreTable column Outcomes" if fmt == "PBN" else \
        "xlbridge's element WEIGHTED_SCORE of the traveller line"
    return (f"{n} weighted score{'s' if n > 1 else ''} (Law 12C1(c)), {'first ' if n > 1 else ''}board {board}, "
            f"{first.ns} v {first.ew}: written as {'their' if n > 1 else 'its'} own score with the exact weighted "
            f"{points}; {'their' if n > 1 else 'its'} outcomes and weights in {where}, which other "
            f"programs skip (docs/formats.md)")
