"""Contracts and their scores (Law 77), board vulnerability, and the set of legal N-S scores.

Sources: Laws of Duplicate Bridge 2017, Law 77 (scoring table); the standard 16-board
vulnerability cycle; R. Pavlicek, rpbridge.net 8q43 (204 distinct positive scores).

>>> bridge_score("4S", "N", 10, "None")
420
>>> bridge_score("3NTX", "E", 8, "EW")
200
>>> vulnerability(4), vulnerability("Love").ns
('All', False)
>>> 410 in legal_scores("None")
False

**Legality, one table.** Whether an N-S score can occur on a board is decided in one place:
:func:`legal_table`, built once from Law 77 (every contract, double and trick count), one row
per vulnerability (None, NS, EW, All) and a fifth row for "at some vulnerability" (travellers
without board numbers), one column per multiple of 10 from -7600 to +7600. :func:`legal_scores`,
:func:`check_score` and the vectorised :func:`legal_mask` (whole sessions, instant charts, the
Excel layer) all read it.

>>> legal_mask([420, 410, 620, 620], [0, 0, 0, 1]).tolist()     # 4S= is 620 only when N-S are vulnerable
[True, False, False, True]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from .entries import MAX_SCORE_READ, parse_entry, too_large
from .errors import ContractError, ImpossibleScoreError, InputError, shown
from .numbers import plain
from .vocabulary import Direction, Seat, UnknownSpellingError, Vulnerability

__all__ = [
    "STRAINS",
    "Contract",
    "Vulnerability",
    "vulnerability",
    "contract_score",
    "bridge_score",
    "declarer_scores",
    "legal_scores",
    "any_legal_scores",
    "check_score",
    "SCORE_LIMIT",
    "VULNERABILITY_NAMES",
    "ANY_VULNERABILITY",
    "vulnerability_index",
    "board_vulnerabilities",
    "legal_table",
    "legal_mask",
]

#: Every bridge score is a multiple of 10 between -SCORE_LIMIT and +SCORE_LIMIT (7NTXX down 13 vulnerable).
SCORE_LIMIT = 7600
#: The rows of :func:`legal_table`: index 0-3 is a board's vulnerability by its PBN name (the members of
#: :class:`~xlbridge.core.vocabulary.Vulnerability`, in order) ...
VULNERABILITY_NAMES = tuple(v.value for v in Vulnerability)
#: ... and row 4 is "legal at some vulnerability" (a traveller without board numbers).
ANY_VULNERABILITY = 4

STRAINS = ("C", "D", "H", "S", "NT")
_TRICK_VALUE = {"C": 20, "D": 20, "H": 30, "S": 30, "NT": 30}
_DOUBLE_NAMES = {0: "", 1: "X", 2: "XX"}
_CONTRACT_RE = re.compile(r"^\s*([1-7])\s*(C|D|H|S|NT|N)\s*(XX|X|R)?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Contract:
    """A contract: level 1-7, strain, and 0 (undoubled), 1 (doubled) or 2 (redoubled).

    Level 0 stands for a passed-out board. Equality includes the double.

    >>> Contract.parse("3NTX")
    Contract(level=3, strain='NT', doubled=1)
    >>> Contract.parse("3NTX") == Contract.parse("3NT")
    False
    >>> str(Contract.parse("6hxx"))
    '6HXX'
    >>> Contract.parse("PASS").is_pass
    True
    """

    level: int
    strain: str = ""
    doubled: int = 0

    def __post_init__(self) -> None:
        if self.level == 0:
            if self.strain or self.doubled:
                raise ContractError(f"a passed-out contract has no strain or double: {shown(self)}")
            return
        if not isinstance(self.level, int) or not 1 <= self.level <= 7:
            raise ContractError(f"contract level must be 1-7, got {shown(self.level)}")
        if self.strain not in STRAINS:
            raise ContractError(f"strain must be one of {', '.join(STRAINS)}, got {shown(self.strain)}")
        if self.doubled not in (0, 1, 2):
            raise ContractError(f"doubled must be 0, 1 (X) or 2 (XX), got {shown(self.doubled)}")

    @classmethod
    def parse(cls, text: object) -> Contract:
        """Read PBN-style contract text: ``4S``, ``3NTX``, ``6HXX``, ``3N``, ``PASS`` (also ``R`` for XX).

        >>> Contract.parse("3N"), Contract.parse(" 6hR ")
        (Contract(level=3, strain='NT', doubled=0), Contract(level=6, strain='H', doubled=2))
        >>> Contract.parse("8S")
        Traceback (most recent call last):
        ...
        xlbridge.core.errors.ContractError: cannot read contract '8S' (expected e.g. 4S, 3NTX, 6HXX, PASS)
        """
        if isinstance(text, Contract):
            return text
        if not isinstance(text, str):
            raise ContractError(f"contract must be text like '4S' or '3NTX', got {shown(text)}")
        t = text.strip()
        if t.upper() in ("PASS", "P", "AP", "PASSED", "PASSED OUT", "ALL PASS"):
            return cls(0)
        m = _CONTRACT_RE.match(t)
        if not m:
            raise ContractError(f"cannot read contract {shown(text)} (expected e.g. 4S, 3NTX, 6HXX, PASS)")
        level, strain, dbl = m.groups()
        strain = strain.upper()
        strain = "NT" if strain == "N" else strain
        dbl = (dbl or "").upper()
        return cls(int(level), strain, {"": 0, "X": 1, "XX": 2, "R": 2}[dbl])

    @property
    def is_pass(self) -> bool:
        """True for a passed-out board.

        >>> Contract.parse("PASS").is_pass, Contract.parse("1C").is_pass
        (True, False)
        """
        return self.level == 0

    def __str__(self) -> str:
        if self.is_pass:
            return "PASS"
        return f"{self.level}{self.strain}{_DOUBLE_NAMES[self.doubled]}"

    def score(self, tricks: int, vulnerable: bool) -> int:
        """The declaring side's score when declarer takes ``tricks`` tricks (Law 77).

        >>> Contract.parse("1NT").score(7, False)
        90
        >>> Contract.parse("7NTXX").score(0, True)
        -7600
        """
        return contract_score(self, tricks, vulnerable)


_CYCLE_INDEX = np.array([Vulnerability.of_board(b).row for b in range(1, 17)], dtype=np.int8)


def vulnerability(value: object) -> Vulnerability:
    """Vulnerability from any of its spellings (:class:`~xlbridge.core.vocabulary.Vulnerability`: a PBN name,
    ``Love``, ``Both``, ``North-South``, ...) or a board number (standard 16-board cycle).

    Board numbers follow the cycle None, NS, EW, All, NS, EW, All, None, EW, All, None,
    NS, All, None, NS, EW and repeat every 16 boards.

    >>> [vulnerability(b).name for b in (1, 2, 3, 4, 16, 17)]
    ['None', 'NS', 'EW', 'All', 'EW', 'None']
    """
    if isinstance(value, Vulnerability):
        return value
    if hasattr(value, "dtype") and hasattr(value, "item"):  # a numpy scalar board number
        value = value.item()
    if isinstance(value, bool):
        raise ContractError(f"vulnerability must be None/NS/EW/All or a board number, got {shown(value)}")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        if value < 1:
            raise ContractError(f"board number must be 1 or more, got {shown(value)}")
        return Vulnerability.of_board(value)
    if isinstance(value, str):
        t = value.strip()
        if t.isascii() and t.isdigit() and len(t) <= 18:  # ("²" is a digit to isdigit, and no number to int)
            return vulnerability(int(t))
        try:
            return Vulnerability.parse(value)  # (every spelling: the core's vocabulary)
        except UnknownSpellingError:
            pass
    raise ContractError(f"vulnerability must be None/NS/EW/All or a board number, got {shown(value)}")


_SIDES = {seat.value: seat.side for seat in Seat}  # (the common case, a seat's letter: one look-up)


def _side(declarer: object) -> Direction:
    """The direction of a declarer's seat (its letter or word: :meth:`Seat.parse`)."""
    side = _SIDES.get(declarer) if type(declarer) is str else None
    if side is not None:
        return side
    if isinstance(declarer, str):
        try:
            return Seat.parse(declarer).side
        except UnknownSpellingError:
            pass
    raise ContractError(f"declarer must be N, E, S or W, got {shown(declarer)}")


def _undertrick_penalty(down: int, doubled: int, vulnerable: bool) -> int:
    if doubled == 0:
        return down * (100 if vulnerable else 50)
    if vulnerable:
        pen = 200 + 300 * (down - 1)
    else:
        pen = {1: 100, 2: 300, 3: 500}.get(down, 500 + 300 * (down - 3))
    return pen * doubled  # redoubled = twice doubled


def contract_score(contract: Contract | str, tricks: object, vulnerable: object) -> int:
    """The declaring side's score for ``contract`` with ``tricks`` tricks taken (Law 77).

    Trick score per odd trick C/D 20, H/S 30, NT 40 + 30 (x2 doubled, x4 redoubled); game
    bonus 300/500 when the contracted trick score is 100 or more, else part-score 50;
    slam 500/750 (small), 1000/1500 (grand); overtricks at trick value undoubled,
    100/200 doubled, 200/400 redoubled; insult 50 / 100; undertricks 50/100 undoubled,
    doubled not vulnerable 100, 200, 200, then 300, vulnerable 200 then 300, redoubled twice.

    >>> contract_score("4HX", 11, True)
    990
    >>> contract_score("3NT", 8, False)
    -50
    >>> contract_score("PASS", 0, True)
    0
    """
    c = Contract.parse(contract) if not isinstance(contract, Contract) else contract
    tricks = plain(tricks)  # a numpy scalar
    if isinstance(tricks, float) and tricks.is_integer():
        tricks = int(tricks)
    if isinstance(tricks, bool) or not isinstance(tricks, int) or not 0 <= tricks <= 13:
        raise ContractError(f"tricks must be a whole number 0-13, got {shown(tricks)}")
    vulnerable = plain(vulnerable)  # numpy bool
    if vulnerable not in (True, False) or isinstance(vulnerable, (str, float)):
        raise ContractError(
            f"vulnerable must be True or False (the declaring side's vulnerability), got {shown(vulnerable)}; "
            f"for a board's vulnerability by name or number use bridge_score"
        )
    if c.is_pass:
        return 0
    vulnerable = bool(vulnerable)
    need = c.level + 6
    if tricks < need:
        return -_undertrick_penalty(need - tricks, c.doubled, vulnerable)
    mult = (1, 2, 4)[c.doubled]
    per = _TRICK_VALUE[c.strain]
    trick_score = (per * c.level + (10 if c.strain == "NT" else 0)) * mult
    score = trick_score
    score += (500 if vulnerable else 300) if trick_score >= 100 else 50
    if c.level == 6:
        score += 750 if vulnerable else 500
    elif c.level == 7:
        score += 1500 if vulnerable else 1000
    over = tricks - need
    if c.doubled == 0:
        score += over * per
    else:
        score += over * (200 if vulnerable else 100) * c.doubled
        score += 50 * c.doubled  # the "insult"
    return score


def bridge_score(contract: object, declarer: object, tricks: object, vulnerable: object) -> int:
    """N-S score of a result: ``contract`` played by ``declarer`` (N/E/S/W) taking ``tricks`` tricks.

    ``vulnerable`` is a PBN name (None, NS, EW, All, ...) or a board number. A passed-out
    board scores 0 whatever the declarer and tricks (they may be blank).

    >>> bridge_score("4S", "W", 9, 1)
    50
    >>> bridge_score("PASS", None, None, "All")
    0
    """
    c = Contract.parse(contract)
    if c.is_pass:
        return 0
    vul = vulnerability(vulnerable)
    side = _side(declarer)
    s = contract_score(c, tricks, vul.ns if side is Direction.NS else vul.ew)
    return s if side is Direction.NS else -s


@lru_cache(maxsize=2)
def declarer_scores(vulnerable: bool) -> frozenset[int]:
    """Every score the declaring side can make (or lose) with the given vulnerability.

    >>> s = declarer_scores(False)
    >>> 420 in s, -50 in s, 410 in s
    (True, True, False)
    """
    out = set()
    for level in range(1, 8):
        for strain in STRAINS:
            for dbl in (0, 1, 2):
                c = Contract(level, strain, dbl)
                for tricks in range(14):
                    out.add(contract_score(c, tricks, vulnerable))
    return frozenset(out)


@lru_cache(maxsize=8)
def _legal(ns: bool, ew: bool) -> frozenset[int]:
    return frozenset(declarer_scores(ns)) | frozenset(-s for s in declarer_scores(ew)) | {0}


def vulnerability_index(value: object) -> int:
    """The row of :func:`legal_table` for a vulnerability (name or board number): 0 None .. 3 All.

    >>> vulnerability_index("EW"), vulnerability_index(4), vulnerability_index(17)
    (2, 3, 0)
    """
    return VULNERABILITY_NAMES.index(vulnerability(value).name)


def board_vulnerabilities(boards: npt.ArrayLike) -> npt.NDArray[np.int8]:
    """Vulnerability rows (0-3) of whole board numbers (1 or more) at once: the 16-board cycle.

    >>> board_vulnerabilities([1, 2, 3, 4, 16, 17]).tolist()
    [0, 1, 2, 3, 2, 0]
    """
    b = np.asarray(boards, dtype=np.int64)
    if b.size and int(b.min()) < 1:
        raise ContractError(f"board number must be 1 or more, got {int(b.min())}")
    return _CYCLE_INDEX[(b - 1) % 16]


@lru_cache(maxsize=1)
def legal_table() -> npt.NDArray[np.bool_]:
    """The legal N-S scores, read-only: ``table[row, (score + SCORE_LIMIT) // 10]``.

    Rows 0-3: vulnerability None, NS, EW, All (:data:`VULNERABILITY_NAMES`); row 4
    (:data:`ANY_VULNERABILITY`): legal at some vulnerability. Built from Law 77 by
    :func:`declarer_scores`: the union of N-S declaring, E-W declaring negated, and 0.

    >>> t = legal_table()
    >>> t.shape, int(t[0].sum()), bool(t[4, (410 + SCORE_LIMIT) // 10])
    ((5, 1521), 283, False)
    """
    table = np.zeros((5, 2 * SCORE_LIMIT // 10 + 1), dtype=bool)
    for row, name in enumerate(VULNERABILITY_NAMES):
        v = vulnerability(name)
        cols = (np.fromiter(_legal(v.ns, v.ew), dtype=np.int64) + SCORE_LIMIT) // 10
        table[row, cols] = True
    table[ANY_VULNERABILITY] = table[:4].any(axis=0)
    table.flags.writeable = False
    return table


def legal_mask(scores: npt.ArrayLike, vulnerabilities: npt.ArrayLike | int = ANY_VULNERABILITY) -> npt.NDArray[np.bool_]:
    """Which ``scores`` (whole numbers, any shape) are legal N-S scores, vectorised.

    ``vulnerabilities``: a row of :func:`legal_table` for every score (same shape) or one for all
    (default: at some vulnerability). A score that is no multiple of 10 or beyond
    +-:data:`SCORE_LIMIT` is never legal.

    >>> legal_mask([420, 410, 425, 10 ** 12]).tolist()
    [True, False, False, False]
    """
    s = np.asarray(scores, dtype=np.int64)
    v = np.asarray(vulnerabilities, dtype=np.int64)
    col = s + SCORE_LIMIT
    ok = (col >= 0) & (col <= 2 * SCORE_LIMIT) & (col % 10 == 0)
    idx = np.where(ok, col // 10, 0)
    flat = legal_table().ravel()
    width = legal_table().shape[1]
    out: npt.NDArray[np.bool_] = ok & flat[v * width + idx]
    return out


def legal_scores(vulnerable: object) -> frozenset[int]:
    """The set of all N-S scores that can occur on a board of the given vulnerability.

    The union of N-S declaring (N-S vulnerability), the negation of E-W declaring
    (E-W vulnerability), and 0 (passed out).

    >>> len({s for v in ("None", "NS", "EW", "All") for s in legal_scores(v) if s > 0})
    204
    """
    v = vulnerability(vulnerable)
    return _legal(v.ns, v.ew)


@lru_cache(maxsize=1)
def any_legal_scores() -> frozenset[int]:
    """Every N-S score that can occur at some vulnerability (for travellers without board numbers).

    >>> 410 in any_legal_scores(), 620 in any_legal_scores(), len(any_legal_scores()) == 2 * 204 + 1
    (False, True, True)
    """
    return frozenset().union(*(legal_scores(v) for v in VULNERABILITY_NAMES))


def check_score(score: object, vulnerable: object = None, *, where: str | None = None) -> int:
    """Return ``score`` as an int if it is a legal N-S score for the vulnerability, else raise.

    ``vulnerable`` ``None``: legal at some vulnerability (a traveller without board numbers).

    >>> import numpy as np
    >>> check_score(420.0, "None"), check_score(np.int64(-100), "All"), check_score(620)
    (420, -100, 620)
    >>> check_score(410, 1, where="board 1, row 4")
    Traceback (most recent call last):
    ...
    xlbridge.core.errors.ImpossibleScoreError: board 1, row 4: impossible score: 410 (no contract and result gives N-S 410 when vulnerability is None)
    """
    given = score = plain(score)
    if type(score) is not int:  # a float, Fraction or text: read as a score cell is (InputError if not a number)
        entry = parse_entry(score, where=where)
        if type(entry) is not int:
            raise InputError(f"{shown(given)} is not a score here (expected a number of N-S points like 420 or -50)",
                             where=where)
        score = entry
    elif not -MAX_SCORE_READ <= score <= MAX_SCORE_READ:
        raise too_large(score, where)
    if vulnerable is None:
        if score not in any_legal_scores():
            raise ImpossibleScoreError(
                f"impossible score: {shown(score)} (no contract and result gives N-S {shown(score)} at any vulnerability)",
                where=where)
        return score
    v = vulnerability(vulnerable)
    if score not in legal_scores(v):
        raise ImpossibleScoreError(
            f"impossible score: {shown(score)} (no contract and result gives N-S {shown(score)} when vulnerability is {v.name})",
            where=where,
        )
    return score
