"""A neutral, immutable model of a bridge event, shared by the PBN and USEBIO readers/writers.

An :class:`Event` holds the event's name, date, scoring and movement, its participants
(pairs or teams: number, direction, player names, and the totals and places once scored) and
its boards (dealer, vulnerability, deal, and the traveller: one :class:`Result` per table).
Every class is a frozen dataclass; functions return new objects and never change their input.

Scores follow :mod:`xlbridge` conventions: a traveller row's ``score`` is the N-S score (an
``int``), an :class:`xlbridge.Artificial` adjusted score (Law 12C2, ``A60/40``) or
``xlbridge.NOT_PLAYED``; matchpoints, percentages and IMPs are exact ``Fraction`` values.

Pairs are identified by ``(direction, number)``: in a Mitchell movement N-S pair 1 and E-W
pair 1 are different pairs (``("NS", "1")`` and ``("EW", "1")``); in a Howell a pair plays both
ways and its direction is ``None``.

>>> from fractions import Fraction
>>> r = Result("1", "2", contract="4S", declarer="N", tricks=10, score=420)
>>> b = Board(1, dealer="N", vulnerable="None", results=(r,))
>>> e = Event(name="Club pairs", movement=HOWELL, participants=(Participant("1"), Participant("2")), boards=(b,))
>>> e.participant(None, "2").number, e.board(1).results[0].score
('2', 420)
>>> e.pair_key(r, "NS"), e.pair_key(r, "EW")
((None, '1'), (None, '2'))
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import xlbridge

from ..core.travellerrow import lead_card
from ..core.vocabulary import Direction, Movement, Scoring, Seat, UnknownSpellingError
from .errors import FormatError

__all__ = [
    "PAIRS", "TEAMS", "MITCHELL", "HOWELL", "SCORING_TYPES", "SEATS",
    "Participant", "Result", "Board", "Event",
    "normalize_deal", "normalize_lead", "normalize_contract", "normalize_seat", "parse_number",
    "natural_key",
]

PAIRS, TEAMS = "PAIRS", "TEAMS"
#: The movements (:class:`xlbridge.core.vocabulary.Movement`, which holds their PBN and USEBIO spellings).
MITCHELL, HOWELL = Movement.MITCHELL, Movement.HOWELL
#: Board scorings an event may name: matchpoints, IMPs (teams), cross-IMPs, Butler IMPs
#: (:class:`xlbridge.core.vocabulary.Scoring`).
SCORING_TYPES = tuple(Scoring)
#: The seats, clockwise from North (:class:`xlbridge.core.vocabulary.Seat`).
SEATS = tuple(Seat)


@dataclass(frozen=True)
class Participant:
    """A pair (or team): number, fixed direction in a Mitchell (``"NS"``/``"EW"``, else ``None``),
    player names, and once scored: total (matchpoints or IMPs), maximum, percentage, place.

    ``place`` is the rank within the pair's field (competition ranking, 1, 2=, 2=, 4); ``tied``
    says the place is shared.  ``boards`` is the number of boards scored.  ``ids``: the players'
    national numbers beside ``names`` (:meth:`player_ids`).

    >>> Participant("3", "NS", ("Ann Lee", "Bob Roe")).key
    ('NS', '3')
    """

    number: str
    direction: str | None = None
    names: tuple[str, ...] = ()
    name: str | None = None            # a team's (or partnership's) name
    total: Fraction | None = None
    maximum: Fraction | None = None
    percentage: Fraction | None = None
    place: int | None = None
    tied: bool = False
    boards: int | None = None
    vps: Fraction | None = None         # a team's Victory Points (its place is by them)
    #: each player's national (federation) number, in the order of ``names``; ``""`` where unknown;
    #: ``()`` when none is known.  Text: EBU, ABF, ACBL or any federation's numbering.
    ids: tuple[str, ...] = ()
    #: the workbook's ``Private`` column says ``yes``: the results site shows the pair (team) by number only,
    #: never its name or players (PBN and USEBIO carry no such mark: an imported pair is not private)
    private: bool = False

    @property
    def key(self) -> tuple[str | None, str]:
        return (self.direction, self.number)

    def player_ids(self) -> tuple[str, ...]:
        """One national number (``""`` when unknown) for each player of ``names``.

        >>> Participant("3", None, ("Ann Lee", "Bob Roe"), ids=("1234",)).player_ids()
        ('1234', '')
        """
        return tuple(self.ids[k] if k < len(self.ids) else "" for k in range(len(self.names)))

    @property
    def label(self) -> str:
        """``"NS 3"`` in a Mitchell, ``"3"`` otherwise.

        >>> Participant("3", "EW").label, Participant("3").label
        ('EW 3', '3')
        """
        return f"{self.direction} {self.number}" if self.direction else self.number


@dataclass(frozen=True)
class Result:
    """One traveller row: who played (N-S and E-W numbers), what happened, and its scores.

    ``contract`` is normalised text (``"4S"``, ``"3NTX"``, ``"PASS"``; ``None`` for an
    artificial score or a board not played); ``tricks`` is the number of tricks declarer took;
    ``score`` the N-S score, an ``Artificial`` or ``NOT_PLAYED``.  ``lead`` is suit then rank
    (``"SK"``, ``"HT"``).  ``mp_*``, ``pct_*`` and ``imp_*`` are filled by scoring or by a file.
    ``outcomes`` are a Law 12C1(c) weighted score's ``(N-S score, weight)`` pairs, the first the
    row's own ``score`` (empty for any other row): read from a workbook for publishing only, as
    neither PBN nor USEBIO can carry them.
    """

    ns: str
    ew: str
    contract: str | None = None
    declarer: str | None = None
    tricks: int | None = None
    score: xlbridge.Entry | None = None
    lead: str | None = None
    mp_ns: Fraction | None = None
    mp_ew: Fraction | None = None
    pct_ns: Fraction | None = None
    pct_ew: Fraction | None = None
    imp_ns: Fraction | None = None
    imp_ew: Fraction | None = None
    table: int | None = None
    round: int | None = None
    outcomes: tuple[tuple[int, Fraction], ...] = ()
    #: an arrow-switched row of a Mitchell (a pairs workbook's ``Arrow switch``): the pair sitting N-S belongs to the
    #: E-W field and the pair sitting E-W to the N-S field; each scores its seat's matchpoints in its own field
    switched: bool = False

    @property
    def is_artificial(self) -> bool:
        return isinstance(self.score, xlbridge.Artificial)

    @property
    def played(self) -> bool:
        """True for a real result (a contract and a score), False for artificial or not played."""
        return isinstance(self.score, int)


@dataclass(frozen=True)
class Board:
    """A board: number, dealer (N/E/S/W), vulnerability (None/NS/EW/All), deal, traveller.

    ``deal`` is PBN deal text with North first (``"N:AKQ.. ... ... ..."``, ``-`` for an unknown
    hand) or ``None``.
    """

    number: int
    dealer: str | None = None
    vulnerable: str | None = None
    deal: str | None = None
    results: tuple[Result, ...] = ()


@dataclass(frozen=True)
class Event:
    """A bridge event: name, date, site, kind (PAIRS/TEAMS), scoring, movement, participants, boards, scorer.

    Participants are kept sorted by direction then number.
    ``movement`` is ``MITCHELL`` (pairs keep their direction, one field per direction) or
    ``HOWELL`` (one field).  ``scoring`` is one of :data:`SCORING_TYPES` (``"MP"`` default).
    """

    name: str | None = None
    date: _dt.date | None = None
    site: str | None = None
    kind: str = PAIRS
    scoring: str = Scoring.MP
    movement: str = HOWELL
    participants: tuple[Participant, ...] = ()
    boards: tuple[Board, ...] = ()
    #: the matchpoint scale the source states (a pairs workbook's ``Scale`` parameter: ``"EBU"`` or
    #: ``"ACBL"``); None when it states none (PBN, USEBIO). The site shows matchpoints on it.
    scale: str | None = field(default=None, compare=False)
    #: a teams workbook's declared match lengths, ((team a, team b, boards), ...) with team a the lower
    #: number (its Matches sheet's Boards column): the VP scale's length, which PBN and USEBIO do not carry
    match_lengths: tuple[tuple[str, str, int], ...] = field(default=(), compare=False)
    #: who scored the event (a workbook's ``Scorer`` parameter; the results site shows "Scored by ...");
    #: None when the source names nobody (a book made before the parameter, PBN, USEBIO). Not compared, as
    #: ``scale`` and ``match_lengths``: PBN and USEBIO do not carry it, so a workbook's event still equals
    #: itself read back from its export. Last, so that an Event built with its fields in order (name, date,
    #: site, kind, ...) is built as before
    scorer: str | None = field(default=None, compare=False)
    #: what the reader of the source noticed and took no result from, one line each naming the cell (a value typed
    #: over a workbook's result cell: not used, the results come from the row's inputs); the commands say them as
    #: warnings. Not compared, as ``scorer``
    notes: tuple[str, ...] = field(default=(), compare=False)
    #: a pairs workbook's ``Expected results per board`` (each board's matchpoints Neuberg-factored to it) and
    #: ``Artificial scores`` rule (``"fixed"`` or ``"session"``: :data:`xlbridge.core.pairs.standings.ARTIFICIAL_RULES`),
    #: scored as the workbook's Ranking scores them; None: not stated (the most results on any board; fixed), as in
    #: PBN and USEBIO. Not compared, as ``scale``
    expected: int | None = field(default=None, compare=False)
    artificial: str | None = field(default=None, compare=False)
    #: the matchpoints a pairs workbook's rows show, ((board, N-S, E-W, ((cell, value), (cell, value))), ...) (its
    #: ``MP NS`` and ``MP EW`` cells): scoring names a cell showing other matchpoints than the rows' in a note (a
    #: value typed over it, or a book not recalculated since its inputs changed). Not compared
    shown_mp: tuple[Any, ...] = field(default=(), compare=False)
    #: the cells of a pairs workbook's arrow-switched rows (their ``Arrow switch`` cells): neither PBN nor USEBIO
    #: says that a row's pairs sit in the other field's seats, so ``export`` names the first. Not compared
    switched_cells: tuple[str, ...] = field(default=(), compare=False)
    #: the cell of a pairs workbook's ``Expected results per board``: where scoring names a board with more results
    #: than expected (None: no such cell, as in PBN and USEBIO). Not compared
    expected_cell: str | None = field(default=None, compare=False)
    _index: dict[tuple[str | None, str], Participant] = field(default_factory=dict, init=False, repr=False,
                                                              compare=False, hash=False)

    def __post_init__(self) -> None:
        # participants in one canonical order (direction, then number), so equality ignores input order
        parts = tuple(sorted(self.participants, key=lambda p: (p.direction or "", natural_key(p.number))))
        object.__setattr__(self, "participants", parts)
        object.__setattr__(self, "boards", tuple(self.boards))
        object.__setattr__(self, "_index", {p.key: p for p in parts})

    def participant(self, direction: str | None, number: str) -> Participant | None:
        """The participant with this direction (``None`` in a Howell) and number, or ``None``."""
        if self.movement != MITCHELL:
            direction = None
        return self._index.get((direction, number))

    def board(self, number: int) -> Board | None:
        for b in self.boards:
            if b.number == number:
                return b
        return None

    def pair_key(self, result: Result, side: str) -> tuple[str | None, str]:
        """The participant key of the pair sitting N-S (``side="NS"``) or E-W at a traveller row: in a Mitchell its
        field, the other direction on an arrow-switched row (:attr:`Result.switched`).

        >>> e = Event(movement=MITCHELL)
        >>> e.pair_key(Result("12", "1", switched=True), "NS"), e.pair_key(Result("1", "12"), "NS")
        (('EW', '12'), ('NS', '1'))
        """
        number = result.ns if side == Direction.NS else result.ew
        if self.movement != MITCHELL:
            return (None, number)
        seat = Direction(side)
        return (seat.other if result.switched else seat, number)

    def fields(self) -> list[str | None]:
        """The fields ranked separately: ``["NS", "EW"]`` in a Mitchell, ``[None]`` otherwise.

        >>> Event(movement=MITCHELL).fields(), Event().fields()
        (['NS', 'EW'], [None])
        """
        return list(MITCHELL.fields if self.movement == MITCHELL else HOWELL.fields)


# ----------------------------------------------------------------------------- normalisers

_RANKS = "AKQJT98765432"
_SUITS = "SHDC"


def normalize_seat(text: object, *, file: str | None = None, line: int | None = None,
                   element: str | None = None) -> str:
    """``N``/``E``/``S``/``W`` (a :class:`~xlbridge.core.vocabulary.Seat`) from a seat letter or word
    (``"north"``, ``"W"``), as PBN and USEBIO spell a seat.

    >>> normalize_seat("south"), normalize_seat(" e ")
    ('S', 'E')
    """
    try:
        return Seat.parse(text)
    except UnknownSpellingError:
        raise FormatError("cannot read seat (expected N, E, S or W):", file=file, line=line, element=element,
                          value=text) from None


def normalize_contract(text: object, *, file: str | None = None, line: int | None = None,
                       element: str | None = None) -> str:
    """Contract text normalised by :class:`xlbridge.Contract` (``*``/``**`` read as X/XX).

    >>> normalize_contract("3nt*"), normalize_contract("4 S x"), normalize_contract("Pass")
    ('3NTX', '4SX', 'PASS')
    """
    t = str(text).strip().replace("**", "XX").replace("*", "X")
    try:
        return str(xlbridge.Contract.parse(t))
    except xlbridge.XlbridgeError:
        raise FormatError("cannot read contract:", file=file, line=line, element=element, value=text) from None


def normalize_lead(text: object, *, file: str | None = None, line: int | None = None,
                   element: str | None = None) -> str:
    """A lead card as suit then rank (``"SK"``), from ``SK``, ``KS``, ``s10``, ``10S``.

    >>> normalize_lead("kS"), normalize_lead("h10"), normalize_lead("TD")
    ('SK', 'HT', 'DT')
    """
    card = lead_card(text)  # (core.travellerrow: the Leads sheet's cells are read in the same way by recalc)
    if card is None:
        raise FormatError("cannot read lead card (expected e.g. SK, H7):", file=file, line=line, element=element,
                          value=text)
    return card


def normalize_deal(text: object, *, file: str | None = None, line: int | None = None,
                   element: str | None = None) -> str:
    """PBN deal text (PBN 2.1 section 3.4.11) checked and rotated so that North comes first.

    ``"<first>:<hand> <hand> <hand> <hand>"`` clockwise from the first seat, each hand
    ``spades.hearts.diamonds.clubs`` or ``-`` (unknown); every known hand has 13 cards and no
    card appears twice.

    >>> normalize_deal("E:AKQJ.AKQ.AKQ.AKQ 5432.5432.5432.5 T987.T987.T9.T98 6.J6.J876.J76432")
    'N:6.J6.J876.J76432 AKQJ.AKQ.AKQ.AKQ 5432.5432.5432.5 T987.T987.T9.T98'
    """
    t = " ".join(str(text).split())
    bad: dict[str, Any] = dict(file=file, line=line, element=element, value=text)
    m = re.fullmatch(r"([NESWnesw]):(\S+) (\S+) (\S+) (\S+)", t)
    if not m:
        raise FormatError("cannot read deal (expected e.g. N:AKQ.J98.765.432 ... with four hands):", **bad)
    first = SEATS.index(Seat(m.group(1).upper()))
    hands = [h.upper().replace("10", "T") for h in m.groups()[1:]]
    seen = set()
    for h in hands:
        if h == "-":
            continue
        suits = h.split(".")
        if len(suits) != 4 or sum(map(len, suits)) != 13:
            raise FormatError("cannot read deal (a hand needs 13 cards in 4 suits):", **bad)
        for s, cards in zip(_SUITS, suits):
            for c in cards:
                if c not in _RANKS or (s, c) in seen:
                    raise FormatError("cannot read deal (bad or repeated card):", **bad)
                seen.add((s, c))
    hands = hands[-first:] + hands[:-first] if first else hands
    return "N:" + " ".join(hands)


def parse_number(text: object) -> Fraction | None:
    """An exact number from decimal text (``"3.5"``, ``"-1"``, ``"66.67"``); ``None`` if not one.

    >>> parse_number("3.5"), parse_number("abc")
    (Fraction(7, 2), None)
    """
    t = str(text).strip().replace(",", ".")
    if not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)", t) or len(t) > 30:
        return None
    return Fraction(t)


def natural_key(text: object) -> tuple[int, int, str]:
    """Sort key putting ``"2"`` before ``"10"`` and numbers before other text.

    >>> sorted(["10", "2", "A1"], key=natural_key)
    ['2', '10', 'A1']
    """
    t = str(text)
    return (0, int(t), "") if t.isascii() and t.isdigit() and len(t) <= 18 else (1, 0, t)
