"""The words of a bridge event, each with its spellings: the seat, the direction (N-S, E-W), a board's
vulnerability, the movement, the matchpoint scale and the board scoring.

Each word is a ``str`` enum (:class:`enum.StrEnum`) whose members are the canonical text the rest of
xlbridge already compares with (``Movement.MITCHELL == "MITCHELL"``, ``Direction.NS == "NS"``); ``str()``,
``format()`` and ``repr()`` of a member are those of that text, so an event, a standing or a message
reads as it did with plain strings. Every other spelling lives here, beside its member, once:

- as a user types it in a workbook or an Excel function (:meth:`Movement.parse`, :meth:`Scale.parse`,
  :meth:`Direction.parse`, :meth:`Seat.parse`: case-insensitive, surrounding spaces ignored);
- as PBN 2.1 (tistis.nl/pbn/pbn_v21.txt) spells it (``from_pbn`` / ``to_pbn``);
- as USEBIO 1.2 spells it (``from_usebio`` / ``to_usebio``), as the EBU's files and the readers of
  docs/formats.md ("What the readers need") have it.

A text that spells no member raises :class:`UnknownSpellingError` (an
:class:`~xlbridge.core.errors.InputError`, so a ``ValueError``) showing the text clipped.

>>> Movement.from_usebio("2"), Movement.MITCHELL.to_usebio(), Movement.parse(" Howell ").option
('MITCHELL', '2', 'howell')
>>> Seat.from_usebio("south").to_usebio(hand=True), Seat.dealer(6), Direction.from_pbn("E-W").seats
('South', 'E', ('E', 'W'))
>>> Scoring.from_usebio("CROSS_IMPS").to_pbn(), Scale.parse("1/0.5").points
('Cross-IMP', (1, Fraction(1, 2)))
>>> Vulnerability.from_usebio("North-South"), Vulnerability.NONE.to_usebio(), Vulnerability.of_board(4)
('NS', 'Love', 'All')
>>> Movement.from_usebio("3")
Traceback (most recent call last):
...
xlbridge.core.vocabulary.UnknownSpellingError: unknown USEBIO WINNER_TYPE '3' (expected 1 or 2)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import TypeVar

from .errors import InputError, shown
from .rounding import named_option

__all__ = ["UnknownSpellingError", "Seat", "Direction", "Vulnerability", "Movement", "Scale", "Scoring", "FILE_SCALE"]


class UnknownSpellingError(InputError):
    """A text that is none of the spellings of a word (a seat, a direction, a movement, a scale, a scoring).

    >>> str(UnknownSpellingError("unknown seat 'X' (expected N, E, S or W)"))
    "unknown seat 'X' (expected N, E, S or W)"
    """


def _unknown(what: str, value: object, expected: str) -> UnknownSpellingError:
    return UnknownSpellingError(f"unknown {what} {shown(value)} (expected {expected})")


_M = TypeVar("_M")


def _read(table: Mapping[str, _M], value: object, what: str, expected: str) -> _M:
    """The member ``table`` gives for ``value`` (compared as :func:`_key` does), or the refusal naming it."""
    member = table.get(_key(value))
    if member is None:
        raise _unknown(what, value, expected)
    return member


def _key(value: object) -> str:
    """A text as the spellings are compared: stripped, upper case."""
    return (value if isinstance(value, str) else str(value)).strip().upper()


class _Word(enum.StrEnum):
    """A member is its canonical text: ``repr()`` too is that of the text (``'NS'``), so data holding
    members (an ``Event``, a ``Standing``) shows as it did with plain strings. Each member's name is
    its value, so that it hashes as its text (``{"NS": 1}[Direction.NS]``)."""

    def __repr__(self) -> str:
        return str.__repr__(self)


# ------------------------------------------------------------------------------------------- seats

class Seat(_Word):
    """A seat at the table, in clockwise order from North (``tuple(Seat)`` is ``N, E, S, W``).

    PBN (sections 3.4.9 Dealer, 3.4.11 Deal, 3.4.13 Declarer; the ScoreTable's ``Declarer``) spells a
    seat by its letter; USEBIO by its letter in ``PLAYED_BY`` and by its word in a ``HAND``'s
    ``DIRECTION`` (``North``). Both readers, and the core's declarer, take either.

    >>> [s.word for s in Seat], Seat.parse(" w ").side, Seat.from_pbn("North")
    (['North', 'East', 'South', 'West'], 'EW', 'N')
    """

    N = "N"
    E = "E"
    S = "S"
    W = "W"

    @property
    def letter(self) -> str:
        """``"N"``: the seat's letter (its value)."""
        return self.value

    @property
    def word(self) -> str:
        """``"North"``: the seat's word."""
        return _SEAT_WORDS[self]

    @property
    def side(self) -> Direction:
        """The direction the seat belongs to: N and S sit N-S, E and W sit E-W."""
        return Direction.NS if self in (Seat.N, Seat.S) else Direction.EW

    @classmethod
    def parse(cls, value: object, what: str = "seat") -> Seat:
        """The seat a letter or word spells (``"n"``, ``" North "``), else :class:`UnknownSpellingError`.

        >>> Seat.parse("east"), Seat.parse("X")
        Traceback (most recent call last):
        ...
        xlbridge.core.vocabulary.UnknownSpellingError: unknown seat 'X' (expected N, E, S or W)
        """
        return _read(_SEATS_READ, value, what, "N, E, S or W")

    @classmethod
    def from_pbn(cls, value: object) -> Seat:
        """A PBN Dealer or Declarer (``"N"``; the word ``"North"`` is read too)."""
        return cls.parse(value, "PBN seat")

    def to_pbn(self) -> str:
        """The seat as PBN writes it: its letter."""
        return self.value

    @classmethod
    def from_usebio(cls, value: object) -> Seat:
        """A USEBIO ``PLAYED_BY`` or ``HAND`` > ``DIRECTION`` (``"N"`` or ``"North"``)."""
        return cls.parse(value, "USEBIO seat")

    def to_usebio(self, *, hand: bool = False) -> str:
        """The seat as USEBIO writes it: its letter in ``PLAYED_BY``, its word in a ``HAND``'s ``DIRECTION``.

        >>> Seat.W.to_usebio(), Seat.W.to_usebio(hand=True)
        ('W', 'West')
        """
        return self.word if hand else self.value

    @classmethod
    def dealer(cls, board: int) -> Seat:
        """The dealer of board ``board`` (1, 2, 3, ...) in the standard rotation: N, E, S, W, N, ...

        >>> [Seat.dealer(b) for b in (1, 2, 3, 4, 5, 16)]
        ['N', 'E', 'S', 'W', 'N', 'W']
        """
        return _CLOCKWISE[(board - 1) % 4]


_CLOCKWISE: tuple[Seat, ...] = tuple(Seat)
_SEAT_WORDS: Mapping[Seat, str] = MappingProxyType(
    {Seat.N: "North", Seat.E: "East", Seat.S: "South", Seat.W: "West"})
_SEATS_READ: Mapping[str, Seat] = MappingProxyType(
    {**{s.value: s for s in Seat}, **{w.upper(): s for s, w in _SEAT_WORDS.items()}})


# -------------------------------------------------------------------------------------- directions

class Direction(_Word):
    """A direction (a side of the table): N-S or E-W. A Mitchell ranks one field per direction.

    PBN spells it ``NS``/``EW`` (the user-defined ``Direction`` column of a TotalScoreTable, section 5.2;
    ``N-S`` and ``N/S`` are read too), USEBIO ``NS``/``EW`` (a ``PAIR``'s or a teams
    ``TRAVELLER_LINE``'s ``DIRECTION``; ``N``, ``N-S`` read too). A vulnerability (``None``, ``NS``,
    ``EW``, ``All``) is another word: :func:`xlbridge.core.contract.vulnerability`.

    >>> Direction.NS.seats, Direction.NS.other, Direction.EW.label, Direction.EW.word
    (('N', 'S'), 'EW', 'E-W', 'East-West')
    """

    NS = "NS"
    EW = "EW"

    @property
    def seats(self) -> tuple[Seat, Seat]:
        """The two seats of the direction (North then South, East then West)."""
        return (Seat.N, Seat.S) if self is Direction.NS else (Seat.E, Seat.W)

    @property
    def other(self) -> Direction:
        """The opposing direction."""
        return Direction.EW if self is Direction.NS else Direction.NS

    @property
    def label(self) -> str:
        """``"N-S"``: the direction as a message or a heading says it."""
        return "N-S" if self is Direction.NS else "E-W"

    @property
    def word(self) -> str:
        """``"North-South"``: the direction in words."""
        return "North-South" if self is Direction.NS else "East-West"

    @classmethod
    def parse(cls, value: object, what: str = "direction") -> Direction:
        """The direction a workbook's cell spells: ``NS``, ``N-S``, ``N/S``, ``N`` (and the E-W ones).

        >>> Direction.parse("n/s"), Direction.parse(" E ")
        ('NS', 'EW')
        """
        return _read(_DIRECTIONS_READ, value, what, "NS or EW")

    @property
    def spellings(self) -> tuple[str, ...]:
        """The spellings a workbook's cell may give the direction (:meth:`parse`; any case, spaces around).

        >>> Direction.NS.spellings
        ('NS', 'N-S', 'N/S', 'N')
        """
        return tuple(t for t, d in _DIRECTIONS_READ.items() if d is self)

    @classmethod
    def from_pbn(cls, value: object) -> Direction:
        """A PBN ``Direction`` cell: ``NS``/``EW``, read with its ``-`` and ``/`` dropped (``N-S``, ``N/S``)."""
        d = _key(value).replace("-", "").replace("/", "")
        if d not in ("NS", "EW"):
            raise _unknown("PBN direction", value, "NS or EW")
        return cls(d)

    def to_pbn(self) -> str:
        """The direction as PBN writes it: ``NS`` or ``EW``."""
        return self.value

    @classmethod
    def from_usebio(cls, value: object) -> Direction:
        """A USEBIO ``DIRECTION`` of a pair or a room: ``NS``/``EW`` (also ``N``, ``N-S``, ``E``, ``E-W``)."""
        return _read(_USEBIO_DIRECTIONS, value, "USEBIO DIRECTION", "NS or EW")

    def to_usebio(self) -> str:
        """The direction as USEBIO writes it: ``NS`` or ``EW``."""
        return self.value


_DIRECTIONS_READ: Mapping[str, Direction] = MappingProxyType(
    {t: d for d in Direction for t in (d.value, d.label, d.label.replace("-", "/"), d.value[0])})
_USEBIO_DIRECTIONS: Mapping[str, Direction] = MappingProxyType(
    {t: d for d in Direction for t in (d.value, d.label, d.value[0])})


# ---------------------------------------------------------------------------------- vulnerabilities

class Vulnerability(_Word):
    """A board's vulnerability: which sides are vulnerable (``NONE``, ``NS``, ``EW``, ``ALL``).

    A member is its PBN 2.1 name (section 3.4.10, the ``Vulnerable`` tag: ``None``, ``NS``, ``EW``, ``All``),
    and so is its :attr:`name` (a member's name is its text, as for every word here). PBN also spells
    ``Love`` and ``-`` for None and ``Both`` for All; USEBIO 1.2 writes ``Love``, ``North-South``,
    ``East-West``, ``All`` (a ``BOARD``'s ``VULNERABILITY``). A workbook's cell, a PBN tag and a USEBIO
    element take any of these spellings (and ``N-S``, ``N/S``, ``Nil``, ``Neither``, ``Game All``), in any
    case. A board's number gives its vulnerability by the standard 16-board cycle (:meth:`of_board`).

    >>> Vulnerability.parse(" both "), Vulnerability.ALL.name, Vulnerability.NS.ns, Vulnerability.NS.ew
    ('All', 'All', True, False)
    >>> [Vulnerability.of_board(b) for b in (1, 2, 3, 4, 16, 17)], Vulnerability.sides(False, True)
    (['None', 'NS', 'EW', 'All', 'EW', 'None'], 'EW')
    >>> Vulnerability.parse("Red")
    Traceback (most recent call last):
    ...
    xlbridge.core.vocabulary.UnknownSpellingError: unknown vulnerability 'Red' (expected None, NS, EW, All or a board number)
    """

    NONE = "None"
    NS = "NS"
    EW = "EW"
    ALL = "All"

    def __hash__(self) -> int:  # (as its text, like every word: ``{"None": 1}[Vulnerability.NONE]``)
        return str.__hash__(self)

    @property
    def name(self) -> str:
        """``"None"``: the PBN name (the member's value)."""
        return self.value

    @property
    def ns(self) -> bool:
        """Whether North-South are vulnerable."""
        return self in (Vulnerability.NS, Vulnerability.ALL)

    @property
    def ew(self) -> bool:
        """Whether East-West are vulnerable."""
        return self in (Vulnerability.EW, Vulnerability.ALL)

    @property
    def row(self) -> int:
        """0 None, 1 NS, 2 EW, 3 All: the order of the members (the rows of the core's table of legal scores)."""
        return _VULNERABILITY_ORDER.index(self)

    def side(self, declarer: object) -> bool:
        """Whether the side of ``declarer`` (a seat's letter or word) is vulnerable.

        >>> Vulnerability.NS.side("S"), Vulnerability.NS.side("West")
        (True, False)
        """
        return self.ns if Seat.parse(declarer, "declarer").side is Direction.NS else self.ew

    @classmethod
    def sides(cls, ns: bool, ew: bool) -> Vulnerability:
        """The vulnerability with N-S vulnerable when ``ns`` and E-W when ``ew``."""
        return _VULNERABILITY_ORDER[(1 if ns else 0) + (2 if ew else 0)]

    @classmethod
    def of_board(cls, board: int) -> Vulnerability:
        """The vulnerability of board ``board`` (1, 2, 3, ...): None, NS, EW, All, NS, EW, All, None, EW, All,
        None, NS, All, None, NS, EW, repeating every 16 boards (the standard cycle, as board wallets print it)."""
        return _CYCLE16[(board - 1) % 16]

    @classmethod
    def parse(cls, value: object) -> Vulnerability:
        """The vulnerability any of its spellings names (case-insensitive, spaces around ignored), or a board's
        number gives (1 or more: :meth:`of_board`).

        >>> Vulnerability.parse("n/s"), Vulnerability.parse(2), Vulnerability.parse(" 4 ")
        ('NS', 'NS', 'All')
        """
        if isinstance(value, Vulnerability):
            return value
        if type(value) is int and value >= 1:
            return cls.of_board(value)
        if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() and len(value.strip()) <= 18 \
                and int(value) >= 1:
            return cls.of_board(int(value))
        return _read(_VULNERABILITIES_READ, value, "vulnerability", "None, NS, EW, All or a board number")

    @classmethod
    def from_pbn(cls, value: object) -> Vulnerability:
        """A PBN ``Vulnerable`` tag's value (``None``, ``Love``, ``-``, ``NS``, ``EW``, ``All``, ``Both``)."""
        return _read(_VULNERABILITIES_READ, value, "PBN Vulnerable", "None, NS, EW or All")

    def to_pbn(self) -> str:
        """The ``Vulnerable`` tag's value as xlbridge writes it: the PBN name."""
        return self.value

    @classmethod
    def from_usebio(cls, value: object) -> Vulnerability:
        """A USEBIO ``VULNERABILITY`` (``Love``, ``North-South``, ``East-West``, ``All``; the PBN names too)."""
        return _read(_VULNERABILITIES_READ, value, "USEBIO VULNERABILITY", "Love, North-South, East-West or All")

    def to_usebio(self) -> str:
        """The ``VULNERABILITY`` as xlbridge writes it (and the EBU's files have it)."""
        return _USEBIO_VULNERABILITIES[self]


_VULNERABILITY_ORDER: tuple[Vulnerability, ...] = tuple(Vulnerability)
_CYCLE16: tuple[Vulnerability, ...] = tuple(Vulnerability(v) for v in (
    "None", "NS", "EW", "All", "NS", "EW", "All", "None", "EW", "All", "None", "NS", "All", "None", "NS", "EW"))
_USEBIO_VULNERABILITIES: Mapping[Vulnerability, str] = MappingProxyType({
    Vulnerability.NONE: "Love", Vulnerability.NS: "North-South", Vulnerability.EW: "East-West",
    Vulnerability.ALL: "All"})
#: every spelling of each vulnerability, its PBN name first
_VULNERABILITY_SPELLINGS: Mapping[Vulnerability, tuple[str, ...]] = MappingProxyType({
    Vulnerability.NONE: ("None", "Love", "-", "Nil", "Neither"),
    Vulnerability.NS: ("NS", "N-S", "N/S", "North-South"),
    Vulnerability.EW: ("EW", "E-W", "E/W", "East-West"),
    Vulnerability.ALL: ("All", "Both", "Game All")})
_VULNERABILITIES_READ: Mapping[str, Vulnerability] = MappingProxyType(
    {t.upper(): v for v, ts in _VULNERABILITY_SPELLINGS.items() for t in ts})


# --------------------------------------------------------------------------------------- movements

class Movement(_Word):
    """A pairs movement: ``HOWELL`` (one field: a pair number is one pair whichever direction it sits) or
    ``MITCHELL`` (two fields, N-S and E-W: N-S pair 1 and E-W pair 1 are different pairs).

    A user types ``howell``/``mitchell`` in any case (:meth:`parse`; the workbook's ``Movement``
    parameter shows :attr:`label`). USEBIO spells it ``WINNER_TYPE`` 1 (one winner) or 2 (one per
    direction). PBN 2.1 has no movement tag: xlbridge spells it in the TotalScoreTable's user-defined
    ``Direction`` column (section 5.2), a direction on each row of a Mitchell, ``-`` on a Howell's.

    >>> Movement.MITCHELL.fields, Movement.HOWELL.fields, Movement.HOWELL.label
    (('NS', 'EW'), (None,), 'Howell')
    """

    HOWELL = "HOWELL"
    MITCHELL = "MITCHELL"

    @property
    def option(self) -> str:
        """``"howell"``: the movement as the core's option names it (``pairs_ranking(..., movement=)``)."""
        return self.value.lower()

    @property
    def label(self) -> str:
        """``"Howell"``: the movement as the workbook's ``Movement`` parameter shows it."""
        return self.value.title()

    @property
    def fields(self) -> tuple[Direction | None, ...]:
        """The fields ranked apart: N-S and E-W in a Mitchell, one field (``None``) in a Howell."""
        return (Direction.NS, Direction.EW) if self is Movement.MITCHELL else (None,)

    @classmethod
    def parse(cls, value: object) -> Movement:
        """The movement a user typed: ``howell`` or ``mitchell``, in any case, spaces around ignored.

        >>> Movement.parse("MITCHELL"), Movement.parse("Swiss")
        Traceback (most recent call last):
        ...
        xlbridge.core.vocabulary.UnknownSpellingError: unknown movement 'Swiss' (expected one of howell, mitchell)
        """
        try:
            return cls(named_option(value, [m.option for m in cls], "movement").upper())
        except UnknownSpellingError:
            raise
        except InputError as exc:
            raise UnknownSpellingError(exc.message, where=exc.where) from None

    @classmethod
    def from_pbn(cls, directions: Iterable[str | None]) -> Movement:
        """The movement a TotalScoreTable's ``Direction`` column spells, one cell a row: a Mitchell when
        some row holds a direction, a Howell when every cell is blank (missing, ``-`` irrelevant or ``?``
        unknown, section 5.2). Each direction is read by :meth:`Direction.from_pbn`.

        >>> Movement.from_pbn(["NS", "EW"]), Movement.from_pbn(["-", None])
        ('MITCHELL', 'HOWELL')
        """
        return cls.MITCHELL if any(d is not None and d.strip() not in _PBN_BLANK for d in directions) else cls.HOWELL

    def to_pbn(self, direction: str | None) -> str:
        """A TotalScoreTable ``Direction`` cell: the pair's direction in a Mitchell, ``-`` (irrelevant) in a
        Howell or for a pair without one.

        >>> Movement.MITCHELL.to_pbn("EW"), Movement.HOWELL.to_pbn("EW")
        ('EW', '-')
        """
        return str(direction) if self is Movement.MITCHELL and direction else "-"

    @classmethod
    def from_usebio(cls, value: object) -> Movement:
        """An event's ``WINNER_TYPE``: 1 a Howell (one winner), 2 a Mitchell (a winner per direction)."""
        return _read(_USEBIO_MOVEMENTS, value, "USEBIO WINNER_TYPE", "1 or 2")

    def to_usebio(self) -> str:
        """The event's ``WINNER_TYPE``: ``"1"`` (Howell) or ``"2"`` (Mitchell)."""
        return "2" if self is Movement.MITCHELL else "1"


_USEBIO_MOVEMENTS: Mapping[str, Movement] = MappingProxyType({m.to_usebio(): m for m in Movement})
#: A PBN table cell that holds no value: empty, ``-`` (irrelevant) or ``?`` (unknown) (section 5.2).
_PBN_BLANK = ("", "-", "?")


# ------------------------------------------------------------------------------------------ scales

class Scale(_Word):
    """A matchpoint scale (Law 78A): ``EBU`` (2 for each score beaten, 1 for each tie; also spelled
    ``2/1``, ``WBF``) or ``ACBL`` (1 and 1/2; ``1/0.5``, ``1/.5``).

    Neither PBN nor USEBIO names a scale: the matchpoints they carry are on the 2/1 scale
    (:data:`FILE_SCALE`), as xlbridge writes and reads them.

    >>> Scale.parse(" wbf "), Scale.ACBL.points, Scale.ACBL.denominator, Scale.EBU.spellings
    ('EBU', (1, Fraction(1, 2)), 2, ('EBU', '2/1', 'WBF'))
    """

    EBU = "EBU"
    ACBL = "ACBL"

    @property
    def points(self) -> tuple[int, Fraction | int]:
        """(points for each score beaten, points for each tie)."""
        return (2, 1) if self is Scale.EBU else (1, Fraction(1, 2))

    @property
    def denominator(self) -> int:
        """1 on the EBU scale, 2 on the ACBL scale: matchpoints are integer numerators over it."""
        return 1 if self is Scale.EBU else 2

    @property
    def spellings(self) -> tuple[str, ...]:
        """Every spelling of the scale a user may type, its name first (compared case-insensitively)."""
        return _SCALE_SPELLINGS[self]

    @classmethod
    def parse(cls, value: object) -> Scale:
        """The scale any of its spellings names, case-insensitive.

        >>> Scale.parse("acbl"), Scale.parse(" 2/1 ")
        ('ACBL', 'EBU')
        >>> Scale.parse("3/1")
        Traceback (most recent call last):
        ...
        xlbridge.core.vocabulary.UnknownSpellingError: unknown matchpoint scale '3/1' (expected one of EBU, ACBL)
        """
        if isinstance(value, Scale):
            return value
        try:
            return cls(named_option(value, [s.value for s in cls], "matchpoint scale", aliases=_SCALE_ALIASES))
        except UnknownSpellingError:
            raise
        except InputError as exc:
            raise UnknownSpellingError(exc.message, where=exc.where) from None


_SCALE_SPELLINGS: Mapping[Scale, tuple[str, ...]] = MappingProxyType(
    {Scale.EBU: ("EBU", "2/1", "WBF"), Scale.ACBL: ("ACBL", "1/0.5", "1/.5")})
_SCALE_ALIASES: Mapping[str, str] = MappingProxyType(
    {t: s.value for s, ts in _SCALE_SPELLINGS.items() for t in ts})

#: The scale of the matchpoints PBN and USEBIO files carry (neither names one): 2/1, the EBU's and WBF's.
FILE_SCALE = Scale.EBU


# ---------------------------------------------------------------------------------------- scorings

class Scoring(_Word):
    """How an event scores a board: ``MP`` (matchpoints), ``IMP`` (teams), ``CROSS_IMP`` (cross-IMPs),
    ``BUTLER`` (Butler IMPs).

    PBN's ``Scoring`` tag (section 4.2) is written ``MP``, ``IMP``, ``Cross-IMP``, ``Butler``; USEBIO's
    ``BOARD_SCORING_METHOD`` ``MATCH_POINTS``, ``IMPS``, ``CROSS_IMPS``, ``BUTLER_IMPS``. Each reader takes
    a few other spellings too (``MatchPoints``, ``CrossImp``, ``BUTLER``, ...), in any case.

    >>> [(s.to_pbn(), s.to_usebio()) for s in Scoring][2:]
    [('Cross-IMP', 'CROSS_IMPS'), ('Butler', 'BUTLER_IMPS')]
    """

    MP = "MP"
    IMP = "IMP"
    CROSS_IMP = "CROSS_IMP"
    BUTLER = "BUTLER"

    @classmethod
    def from_pbn(cls, value: object) -> Scoring:
        """A PBN ``Scoring`` value (one method: the caller splits ``MP;NS`` at ``;``).

        >>> Scoring.from_pbn("MatchPoints"), Scoring.from_pbn("cross-imp")
        ('MP', 'CROSS_IMP')
        """
        return _read(_PBN_SCORINGS, value, "PBN Scoring", "MP, IMP, Cross-IMP or Butler")

    def to_pbn(self) -> str:
        """The ``Scoring`` tag's value as xlbridge writes it."""
        return _PBN_OUT[self]

    @classmethod
    def from_usebio(cls, value: object) -> Scoring:
        """A USEBIO ``BOARD_SCORING_METHOD``.

        >>> Scoring.from_usebio("match_points"), Scoring.from_usebio("IMPS")
        ('MP', 'IMP')
        """
        return _read(_USEBIO_SCORINGS, value, "USEBIO BOARD_SCORING_METHOD", "MATCH_POINTS, IMPS, CROSS_IMPS or BUTLER_IMPS")

    def to_usebio(self) -> str:
        """The ``BOARD_SCORING_METHOD`` as xlbridge writes it."""
        return _USEBIO_OUT[self]


_PBN_OUT: Mapping[Scoring, str] = MappingProxyType(
    {Scoring.MP: "MP", Scoring.IMP: "IMP", Scoring.CROSS_IMP: "Cross-IMP", Scoring.BUTLER: "Butler"})
_PBN_SCORINGS: Mapping[str, Scoring] = MappingProxyType({
    **{t.upper(): s for s, t in _PBN_OUT.items()},
    "MATCHPOINTS": Scoring.MP, "MATCHPOINT": Scoring.MP, "IMPS": Scoring.IMP, "CROSS_IMP": Scoring.CROSS_IMP,
    "CROSSIMP": Scoring.CROSS_IMP, "BUTLER-IMP": Scoring.BUTLER})
_USEBIO_OUT: Mapping[Scoring, str] = MappingProxyType(
    {Scoring.MP: "MATCH_POINTS", Scoring.IMP: "IMPS", Scoring.CROSS_IMP: "CROSS_IMPS", Scoring.BUTLER: "BUTLER_IMPS"})
_USEBIO_SCORINGS: Mapping[str, Scoring] = MappingProxyType({
    **{t: s for s, t in _USEBIO_OUT.items()},
    "MATCHPOINTS": Scoring.MP, "MP": Scoring.MP, "IMP": Scoring.IMP, "BUTLER": Scoring.BUTLER})
