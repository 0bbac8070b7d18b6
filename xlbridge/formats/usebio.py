"""USEBIO 1.2 (the EBU's Universal Scoring Exchange format, XML) reader and writer, pairs and teams events.

The official specification and DTD (usebio.org, "USEBIO 1.2", ``usebio_v1_2.dtd``, public identifier
``-//EBU//DTD USEBIO 1.2//EN``) could not be found, so what is written is what the programs that read
USEBIO need, found in their public source (docs/formats.md, "What the readers need": the ABF's Cobalt,
ImportUsebio, BridgeScore, a UK club site) and the layout of the EBU's own files: ``EVENT`` with
``EVENT_TYPE``, ``EVENT_DESCRIPTION``, ``DATE`` (dd/mm/yyyy), ``BOARD_SCORING_METHOD``,
``WINNER_TYPE``; pairs: ``PARTICIPANTS`` > ``PAIR`` (``PAIR_NUMBER``, ``DIRECTION``, ``PLACE``,
``PERCENTAGE``, ``TOTAL_SCORE``, ``BOARDS_PLAYED``, two or more ``PLAYER`` > ``PLAYER_NAME``,
``NATIONAL_ID_NUMBER``) and ``BOARD`` > ``TRAVELLER_LINE``; teams: a ``SESSION`` with ``TEAM``
participants and each ``MATCH``; the deals in a ``HANDSET`` after the event.  Where the readers
disagree, a federation's style (:data:`USEBIO_STYLES`) chooses.  Participants and boards may sit
directly in ``EVENT`` or in one ``SESSION`` > ``SECTION``.

Reading is hardened: no entity is expanded and no DTD or other external file is ever loaded
(``defusedxml`` with entities and external references forbidden); files over the size limit and
elements nested deeper than ``LIMITS["depth"]`` are refused.

>>> from xlbridge.formats.model import Board, Event, Participant, Result, MITCHELL
>>> e = Event(name="Club", movement=MITCHELL, participants=(Participant("1", "NS", ("Ann", "Bob")),
...           Participant("1", "EW", ("Cy", "Di"))), boards=(Board(1, "N", "None",
...           results=(Result("1", "1", "3NT", "S", 9, 400, "SK"),)),))
>>> read_usebio(write_usebio(e)) == e
True
"""

from __future__ import annotations

import datetime as _dt
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from types import MappingProxyType
from typing import Any

import xlbridge

from ..core.text import INVISIBLE_CHARACTERS, clean_text
from ..core.vocabulary import Direction, Movement, Scoring, Seat, UnknownSpellingError, Vulnerability
from .checks import MAX_BOARD, check_board, check_result, infer_movement, refuse_switched
from .errors import LIMITS, FormatError, Source, check_name, check_national_number, check_players
from .outcomes import outcome_pairs, read_outcomes
from .model import (HOWELL, MITCHELL, PAIRS, SCORING_TYPES, TEAMS, Board, Event, Participant, Result, natural_key, normalize_contract,
                    normalize_deal, normalize_lead, normalize_seat, parse_number)

__all__ = ["read_usebio", "write_usebio", "USEBIO_ELEMENTS", "USEBIO_STYLES", "UsebioStyle"]

#: Every element (and attribute, as ``ELEMENT@ATTR``) the writer writes; the reader reads the same set.
USEBIO_ELEMENTS = (
    "USEBIO", "USEBIO@Version", "CLUB", "CLUB_NAME", "EVENT", "EVENT@EVENT_TYPE", "PROGRAM_NAME", "PROGRAM_VERSION",
    "EVENT_DESCRIPTION", "DATE", "CONTACT", "FULL_NAME", "BOARD_SCORING_METHOD", "WINNER_TYPE", "PARTICIPANTS", "PAIR", "PAIR_NUMBER",
    "DIRECTION", "PLACE", "PERCENTAGE", "TOTAL_SCORE", "BOARDS_PLAYED", "PLAYER", "PLAYER_NAME",
    "NATIONAL_ID_NUMBER", "BOARD", "BOARD_NUMBER", "VULNERABILITY", "HANDSET", "HAND", "SPADES", "HEARTS",
    "DIAMONDS", "CLUBS", "TRAVELLER_LINE", "NS_PAIR_NUMBER", "EW_PAIR_NUMBER", "CONTRACT", "PLAYED_BY", "LEAD",
    "TRICKS", "SCORE", "NS_MATCH_POINTS", "EW_MATCH_POINTS", "NS_CROSS_IMP_POINTS", "EW_CROSS_IMP_POINTS",
    "NS_BUTLER_POINTS", "EW_BUTLER_POINTS", "NS_IMPS", "EW_IMPS",
    # teams events
    "MATCH_SCORING_METHOD", "SESSION", "SESSION@SESSION_ID", "TEAM", "TEAM@TEAM_ID", "TEAM@TEAM_NAME", "MATCH",
    "ROUND_NUMBER", "OPPOSING_TEAM", "TEAM_SCORE", "OPPOSING_TEAM_SCORE", "IMPS",
    # xlbridge's own: a Law 12C1(c) weighted score's outcomes (xlbridge.formats.outcomes)
    "WEIGHTED_SCORE", "OUTCOME", "OUTCOME@SCORE", "OUTCOME@WEIGHT",
)

#: Pairs event types, with the scoring each implies when the file has no BOARD_SCORING_METHOD.
_PAIR_EVENTS = {"PAIRS": Scoring.MP, "MP_PAIRS": Scoring.MP, "IMP_PAIRS": Scoring.IMP, "BUTLER_PAIRS": Scoring.BUTLER,
                "CROSS_IMP_PAIRS": Scoring.CROSS_IMP, "CROSS_IMP": Scoring.CROSS_IMP, "CROSS_IMPS": Scoring.CROSS_IMP}
#: Teams event types (a teams-of-four event: matches of two rooms).
_TEAM_EVENTS = ("TEAMS", "TEAMS_OF_FOUR", "SWISS_TEAMS", "MULTIPLE_TEAMS", "KO", "HEAD_TO_HEAD")
#: An artificial score as the EBU writes it: ``A6040`` (N-S and E-W percentages, two digits each).
_EBU_ARTIFICIAL = re.compile(r"A([0-9]{2})([0-9]{2})")


class _Reader:
    def __init__(self, name: str) -> None:
        self.name = name

    def err(self, message: str, where: str | None, value: object = None) -> FormatError:
        return FormatError(message, file=self.name, element=where, value=value)

    def text(self, el: ET.Element, tag: str, where: str) -> str | None:
        """The stripped text of the child ``tag``, None when it is missing or blank."""
        child = el.find(tag)
        if child is None or child.text is None or not child.text.strip():
            return None
        return child.text.strip()

    def need(self, el: ET.Element, tag: str, where: str) -> str:
        """:meth:`text` of a child that must be there."""
        t = self.text(el, tag, where)
        if t is None:
            raise self.err(f"missing {tag}", where)
        return t

    def number(self, el: ET.Element, tag: str, where: str) -> Fraction | None:
        return self._number(el, tag, where, whole=False)

    def whole(self, el: ET.Element, tag: str, where: str) -> int | None:
        x = self._number(el, tag, where, whole=True)
        return None if x is None else int(x)

    def _number(self, el: ET.Element, tag: str, where: str, *, whole: bool) -> Fraction | None:
        t = self.text(el, tag, where)
        if t is None:
            return None
        x = parse_number(t.lstrip("^").rstrip("%"))
        if x is None or (whole and x.denominator != 1):
            raise self.err(f"cannot read {tag}:", f"{where}, {tag}", t)
        return x


#: Bytes of the file fed to the XML parser at a time.  Expat 2.5 scans a token again from its start at
#: every feed, so a token spread over many small feeds costs the square of its length (a 19 MB comment
#: took 12 s in ElementTree's 16 kB reads); in 1 MiB feeds it is a few scans.  A whole piece read
#: without an element starting or ending is a stretch longer than ``LIMITS["token"]``: refused.
XML_FEED = LIMITS["token"]


class _Feed:
    """The file's bytes for ``iterparse`` in :data:`XML_FEED` pieces, refusing a stretch of more than
    ``LIMITS["token"]`` bytes after the last element (``mark``, set by the reader at each one)."""

    def __init__(self, data: bytes, name: str) -> None:
        self.data, self.name, self.pos, self.mark = data, name, 0, 0

    def read(self, size: int = -1) -> bytes:  # (ElementTree asks for 16 kB: given XML_FEED)
        if self.pos - self.mark >= LIMITS["token"]:  # (a whole piece read without an element: longer)
            line = self.data.count(b"\n", 0, self.mark) + 1
            raise FormatError(f"more than {LIMITS['token']:,} bytes without an element starting or ending (one tag, "
                              f"text or comment that long), the limit", file=self.name,
                              line=line)
        piece = self.data[self.pos:self.pos + XML_FEED]
        self.pos += len(piece)
        return piece


#: The C0 controls XML 1.0 cannot hold, raw (a byte of an ASCII-compatible encoding) or as a character
#: reference (``&#7;``, ``&#x1B;``): an XML parser refuses the file, so they are taken out before it reads it,
#: by the rule of every reader (:func:`xlbridge.core.text.clean_text`).
_XML_CONTROLS = re.compile(rb"[\x01-\x08\x0b\x0c\x0e-\x1f]|&#(?:0*(?:[1-8]|1[1-2]|1[4-9]|2[0-9]|3[01])"
                           rb"|[xX]0*(?:[1-8]|[bBcCeEfF]|1[0-9a-fA-F]));")


def _without_controls(data: bytes, name: str | None = None) -> bytes:
    """``data`` without the controls XML cannot hold (:data:`_XML_CONTROLS`; a vertical tab or form feed made a
    space), each removal noted at its line; a file in UTF-16 or UTF-32 (a byte-order mark, or NUL bytes) is
    left as it is.

    >>> _without_controls(b"<N>C.\\x07Glover &#27;[31m</N>")
    b'<N>C.Glover [31m</N>'
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in data or _XML_CONTROLS.search(data) is None:
        return data

    def one(m: re.Match[bytes]) -> bytes:
        raw = m.group()
        code = raw[0] if len(raw) == 1 else int(raw[3:-1], 16) if raw[2:3] in b"xX" else int(raw[2:-1])
        line = data.count(b"\n", 0, m.start()) + 1
        return clean_text(chr(code), f"line {line}", name).encode("ascii")

    return _XML_CONTROLS.sub(one, data)


def _clean_element(el: ET.Element, path: list[str], name: str) -> None:
    """The text and attributes of ``el`` by the rule of every reader (:func:`xlbridge.core.text.clean_text`): a
    removal noted at the element (``element EVENT > PARTICIPANTS > PAIR > PLAYER > PLAYER_NAME``; ``path``: the
    open elements, the root first)."""
    text = el.text
    if text is not None and text.strip() and INVISIBLE_CHARACTERS.search(text) is not None:
        el.text = clean_text(text, _element_path(path), name)
    if el.attrib:
        for k, v in el.attrib.items():
            if INVISIBLE_CHARACTERS.search(v) is not None:
                el.set(k, clean_text(v, _element_path(path) + f"@{k}", name))


def _element_path(path: list[str]) -> str:
    """``element EVENT > PARTICIPANTS > PAIR``: the open elements below the root (each name clipped)."""
    return "element " + " > ".join(str(tag)[:40] for tag in (path[1:] or path))


def _parse_xml(data: bytes, name: str) -> ET.Element:
    try:
        from defusedxml import DefusedXmlException
        from defusedxml.ElementTree import iterparse
    except ImportError:  # pragma: no cover - defusedxml is a dependency of the batch extra
        raise FormatError("reading USEBIO needs the defusedxml package (pip install xlbridge[batch])") from None

    root: ET.Element | None = None
    depth = count = 0
    path: list[str] = []  # (the open elements below the root: where a removal is noted)
    feed = _Feed(_without_controls(data, name), name)
    try:  # the tree is built as the file is parsed, and counted and measured while it is (not after)
        for event, el in iterparse(feed, events=("start", "end"), forbid_dtd=False, forbid_entities=True,
                                   forbid_external=True):
            feed.mark = feed.pos
            if event == "end":
                if el.text is not None or el.attrib:  # (most elements of a flood have neither)
                    _clean_element(el, path, name)
                depth -= 1
                path.pop()
                continue
            if root is None:
                root = el
            path.append(el.tag)
            depth += 1
            count += 1
            if depth > LIMITS["depth"]:
                raise FormatError(f"XML nested too deeply (limit {LIMITS['depth']})", file=name, element=el.tag)
            if count > LIMITS["elements"]:
                raise FormatError(f"more than {LIMITS['elements']:,} XML elements, the limit", file=name,
                                  element=el.tag)
    except ET.ParseError as exc:
        line = getattr(exc, "position", (None, 0))[0]
        raise FormatError("not a well-formed XML file", file=name, line=line) from None
    except DefusedXmlException:
        raise FormatError("XML entities and external references are refused", file=name) from None
    except LookupError:
        raise FormatError("not a readable XML file (unknown encoding)", file=name) from None
    except FormatError:
        raise
    except (ValueError, RecursionError):  # UnicodeError is a ValueError
        raise FormatError("not a readable XML file", file=name) from None
    if root is None:
        raise FormatError("not a well-formed XML file", file=name)
    return root


def _date(t: str | None) -> _dt.date | None:
    if t is None:
        return None
    for fmt in ("%d/%m/%Y", "%Y-%m-%d", "%d/%m/%y", "%Y%m%d"):
        try:
            return _dt.datetime.strptime(t.strip(), fmt).date()
        except ValueError:
            pass
    return None


def read_usebio(source: Source, *, name: str | None = None) -> Event:
    """Read a USEBIO 1.2 pairs or teams event (a path or bytes) into an :class:`Event`.

    Traveller rows are checked as in :func:`~xlbridge.formats.read_pbn`; errors name the file and
    the element (``BOARD 3, TRAVELLER_LINE 2, SCORE``).

    >>> read_usebio(b"<USEBIO Version='1.2'><EVENT EVENT_TYPE='INDIVIDUAL'/></USEBIO>")
    Traceback (most recent call last):
    ...
    xlbridge.formats.errors.FormatError: input, EVENT: USEBIO event type not supported yet (pairs and teams-of-four events only): 'INDIVIDUAL'
    """
    from .errors import load_source

    data, fname = load_source(source)
    fname = name or fname
    if not data.strip():
        raise FormatError("empty file", file=fname)
    root = _parse_xml(data, fname)
    rd = _Reader(fname)
    if root.tag != "USEBIO":
        raise rd.err("not a USEBIO file: its root element is not USEBIO", None)  # (nothing of the file shown)
    version = (root.get("Version") or "").strip()
    if not re.fullmatch(r"1\.\d+", version):
        raise rd.err("unsupported USEBIO version:", "USEBIO", version)
    ev = root.find("EVENT")
    if ev is None:
        raise rd.err("missing EVENT", "USEBIO")
    etype = (ev.get("EVENT_TYPE") or "PAIRS").strip().upper()
    if etype not in _PAIR_EVENTS and etype not in _TEAM_EVENTS:
        raise rd.err("USEBIO event type not supported yet (pairs and teams-of-four events only):", "EVENT", etype)
    method = rd.text(ev, "BOARD_SCORING_METHOD", "EVENT")
    try:
        scoring = Scoring.from_usebio(method) if method else _PAIR_EVENTS.get(etype, Scoring.IMP)
    except UnknownSpellingError:
        raise rd.err("unknown BOARD_SCORING_METHOD:", "EVENT", method) from None
    winners = rd.text(ev, "WINNER_TYPE", "EVENT")
    try:
        declared = None if winners is None else Movement.from_usebio(winners)  # 1: one winner (Howell), 2: Mitchell
    except UnknownSpellingError:
        raise rd.err("WINNER_TYPE must be 1 or 2:", "EVENT, WINNER_TYPE", winners) from None
    containers = [ev]
    sessions = ev.findall("SESSION")
    if len(sessions) > 1:
        raise rd.err("more than one SESSION is not supported yet", "EVENT")
    for s in sessions:
        sections = s.findall("SECTION")
        if len(sections) > 1:
            raise rd.err("more than one SECTION is not supported yet", "SESSION")
        containers += [s] + sections
    if len(ev.findall("SECTION")) > 1:
        raise rd.err("more than one SECTION is not supported yet", "EVENT")
    containers += ev.findall("SECTION")
    handset: dict[int, ET.Element] = {}  # board number -> its HAND elements, from a HANDSET after the event or in it
    for hs in [*root.findall("HANDSET"), *(h for c in containers for h in c.findall("HANDSET"))]:
        for hb in hs.findall("BOARD"):
            hno = rd.whole(hb, "BOARD_NUMBER", "HANDSET, BOARD")
            if hno is not None:
                handset.setdefault(hno, hb)
    if etype in _TEAM_EVENTS:
        return _read_teams(rd, root, ev, containers, handset)
    pairs_el = [p for c in containers for part in c.findall("PARTICIPANTS") for p in part]
    boards_el = [b for c in containers for b in c.findall("BOARD")]
    if len(boards_el) > LIMITS["boards"]:
        raise rd.err(f"too many boards (limit {LIMITS['boards']})", "EVENT")
    if len(pairs_el) > LIMITS["participants"]:
        raise rd.err(f"too many pairs (limit {LIMITS['participants']})", "PARTICIPANTS")
    participants: dict[tuple[str | None, str], Participant] = {}
    numbers: set[str] = set()
    repeated: tuple[str, str] | None = None  # the first PAIR whose number an earlier PAIR has (N-S 1, E-W 1)
    any_direction = False
    for k, p in enumerate(pairs_el, start=1):
        where = f"PARTICIPANTS, {p.tag} {k}"
        if p.tag != "PAIR":
            raise rd.err("participant not supported (pairs events only):", where, p.tag)
        num = rd.need(p, "PAIR_NUMBER", where)
        if len(num) > 20:
            raise rd.err("PAIR_NUMBER too long:", where, num)
        typed = rd.text(p, "DIRECTION", where)
        d: Direction | None = None
        if typed is not None:
            try:
                d = Direction.from_usebio(typed)
            except UnknownSpellingError:
                raise rd.err("DIRECTION must be NS or EW:", f"{where}, DIRECTION", typed) from None
            any_direction = True
        place = _place(rd, p, where)
        names, ids = _players(rd, p.findall("PLAYER"), where)
        if d is not None and num.upper().endswith(d) and len(num) > 2:  # 1NS, 1EW: a Mitchell numbered with its side
            num = num[:-2]
        if (d, num) in participants:
            raise rd.err("a pair appears twice in PARTICIPANTS:", f"{where}, PAIR_NUMBER",
                         f"{d} {num}" if d else num)
        if num in numbers and repeated is None:
            repeated = (where, num)
        numbers.add(num)
        participants[(d, num)] = Participant(num, d, names, None, rd.number(p, "TOTAL_SCORE", where), None,
                                             rd.number(p, "PERCENTAGE", where), place, False,
                                             rd.whole(p, "BOARDS_PLAYED", where), ids=ids)
    boards: list[Board] = []
    board_locs: list[list[dict[str, Any]]] = []
    seen: set[int] = set()
    results = 0
    for k, b in enumerate(boards_el, start=1):
        bw = f"BOARD {k}"
        bno = rd.whole(b, "BOARD_NUMBER", bw)
        if bno is None or not 1 <= bno <= MAX_BOARD:
            raise rd.err(f"BOARD_NUMBER must be 1 to {MAX_BOARD:,} (what the workbooks' Board column accepts):", bw,
                         rd.text(b, "BOARD_NUMBER", bw))
        if bno in seen:
            raise rd.err("board appears twice:", bw, bno)
        seen.add(bno)
        bw = f"BOARD {bno}"
        v = rd.text(b, "VULNERABILITY", bw)
        try:  # (its spellings: the core's vocabulary)
            vul = Vulnerability.from_usebio(v).name if v else Vulnerability.of_board(bno).name
        except UnknownSpellingError:
            raise rd.err("cannot read VULNERABILITY:", f"{bw}, VULNERABILITY", v) from None
        deal = _read_hands(rd, b, bw)
        if deal is None and bno in handset:
            deal = _read_hands(rd, handset[bno], f"HANDSET, BOARD {bno}")
        rows: list[Result] = []
        locs: list[dict[str, Any]] = []
        for j, tl in enumerate(b.findall("TRAVELLER_LINE"), start=1):
            where = f"{bw}, TRAVELLER_LINE {j}"
            loc: dict[str, Any] = {"file": fname, "element": where}
            r = _read_line(rd, tl, where)
            rows.append(_weighted(tl, check_result(r, vul, loc), vul, loc))
            locs.append(loc)
            if len(rows) > LIMITS["rows"]:
                raise rd.err(f"too many rows (limit {LIMITS['rows']})", bw)
            results += 1
            if results > LIMITS["results"]:
                raise rd.err(f"more than {LIMITS['results']:,} traveller rows in the event, the limit", where)
        boards.append(Board(bno, Seat.dealer(bno), vul, deal, tuple(rows)))
        board_locs.append(locs)
    for bno in sorted(set(handset) - seen):  # a board of the HANDSET no traveller line played
        if 1 <= bno <= MAX_BOARD and len(boards) < LIMITS["boards"]:
            boards.append(Board(bno, Seat.dealer(bno), xlbridge.vulnerability(bno).name,
                                _read_hands(rd, handset[bno], f"HANDSET, BOARD {bno}"), ()))
            board_locs.append([])
    if declared is not None:
        movement = declared
    elif any_direction:
        movement = MITCHELL
    else:
        movement = infer_movement([b.results for b in boards])
    if movement == HOWELL:
        if repeated is not None:
            raise rd.err("a pair appears twice in PARTICIPANTS (a Howell has one pair of each number):",
                         f"{repeated[0]}, PAIR_NUMBER", repeated[1])
        participants = {(None, p.number): Participant(p.number, None, *_rest(p)) for p in participants.values()}
    elif any(d is None for d, _ in participants):
        raise rd.err("a Mitchell (WINNER_TYPE 2) needs a DIRECTION for every PAIR", "PARTICIPANTS")
    for board, locs in zip(boards, board_locs):
        check_board(board.number, list(board.results), locs, movement, PAIRS)
        for r in board.results:
            for side, num in ((Direction.NS, r.ns), (Direction.EW, r.ew)):
                key = (side if movement == MITCHELL else None, num)
                participants.setdefault(key, Participant(num, key[0]))
    from .checks import mark_ties

    parts = mark_ties(sorted(participants.values(), key=lambda p: (p.direction or "", natural_key(p.number))))
    return _event_header(rd, root, ev, PAIRS, scoring, movement, parts, boards)


def _rest(p: Participant) -> tuple[Any, ...]:
    return (p.names, p.name, p.total, p.maximum, p.percentage, p.place, p.tied, p.boards, p.vps, p.ids)


def _read_hands(rd: _Reader, b: ET.Element, bw: str) -> str | None:
    hands: dict[str, str] = {}
    for h in b.findall("HAND"):
        d = rd.need(h, "DIRECTION", f"{bw}, HAND")
        seat = normalize_seat(d, file=rd.name, element=f"{bw}, HAND, DIRECTION")
        cards = ".".join((rd.text(h, s, f"{bw}, HAND") or "") for s in ("SPADES", "HEARTS", "DIAMONDS", "CLUBS"))
        hands[seat] = cards
    if not hands:
        return None
    text = "N:" + " ".join(hands.get(s, "-") for s in Seat)
    return normalize_deal(text, file=rd.name, element=f"{bw}, HAND")


def _place(rd: _Reader, p: ET.Element, where: str) -> int | None:
    """A participant's ``PLACE`` (``3`` or ``3=``), None when it has none."""
    place_text = rd.text(p, "PLACE", where)
    if place_text is None:
        return None
    t = place_text.rstrip("=").strip()
    if not (t.isascii() and t.isdigit() and len(t) <= 9):
        raise rd.err("cannot read PLACE:", f"{where}, PLACE", place_text)
    return int(t)


def _players(rd: _Reader, players_el: list[ET.Element], where: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(names, national numbers)`` of a pair's or team's ``PLAYER`` elements (one without a name is
    skipped: its player is not known), checked against the limits; numbers ``()`` when none is given."""
    players: list[tuple[str, str]] = []
    for k, pl in enumerate(players_el, start=1):
        n = rd.text(pl, "PLAYER_NAME", f"{where}, PLAYER")
        nid = rd.text(pl, "NATIONAL_ID_NUMBER", f"{where}, PLAYER") or ""
        if n:
            players.append((n, nid))
        elif nid:
            raise rd.err("a national number for a player without a name:", f"{where}, PLAYER {k}, NATIONAL_ID_NUMBER",
                         nid)
    names = check_players(tuple(n for n, _ in players), file=rd.name, element=f"{where}, PLAYER, PLAYER_NAME")
    for _, i in players:
        check_national_number(i, file=rd.name, element=f"{where}, PLAYER, NATIONAL_ID_NUMBER")
    return names, (tuple(i for _, i in players) if any(i for _, i in players) else ())


def _read_teams(rd: _Reader, root: ET.Element, ev: ET.Element, containers: list[ET.Element],
                handset: dict[int, ET.Element]) -> Event:
    """A teams event laid out as the EBU's teams files (and :func:`write_usebio`) lay it out: ``TEAM``
    participants (``TEAM_ID``, ``TEAM_NAME``: attributes or child elements), their players in ``PAIR``s or
    directly, and each ``MATCH`` (``TEAM``, ``OPPOSING_TEAM``) with its boards, one ``TRAVELLER_LINE`` per
    room whose ``DIRECTION`` is the side ``TEAM`` sat (missing: the first line N-S, the second E-W)."""
    teams_el = [t for c in containers for part in c.findall("PARTICIPANTS") for t in part]
    if len(teams_el) > LIMITS["participants"]:
        raise rd.err(f"too many teams (limit {LIMITS['participants']})", "PARTICIPANTS")
    parts: dict[str, Participant] = {}
    for k, t in enumerate(teams_el, start=1):
        where = f"PARTICIPANTS, {t.tag} {k}"
        if t.tag != "TEAM":
            raise rd.err("a teams event lists teams (TEAM), not", where, t.tag)
        num = (t.get("TEAM_ID") or "").strip() or rd.need(t, "TEAM_ID", where)
        if len(num) > 20:
            raise rd.err("TEAM_ID too long:", where, num)
        if num in parts:
            raise rd.err("a team appears twice in PARTICIPANTS:", f"{where}, TEAM_ID", num)
        team_name = (t.get("TEAM_NAME") or "").strip() or rd.text(t, "TEAM_NAME", where)
        check_name(team_name, "team name", file=rd.name, element=f"{where}, TEAM_NAME")
        names, ids = _players(rd, t.findall("PLAYER") + t.findall("PAIR/PLAYER"), where)
        parts[num] = Participant(num, None, names, team_name or None, place=_place(rd, t, where),
                                 vps=rd.number(t, "TOTAL_SCORE", where), ids=ids)
    rows: dict[int, list[Result]] = {}
    locs: dict[int, list[dict[str, Any]]] = {}
    lengths: dict[tuple[str, str], int] = {}
    results = 0
    for k, m in enumerate((m for c in containers for m in c.findall("MATCH")), start=1):
        mw = f"MATCH {k}"
        a, c = rd.need(m, "TEAM", mw), rd.need(m, "OPPOSING_TEAM", mw)
        if a == c:
            raise rd.err("a team cannot play against itself:", f"{mw}, OPPOSING_TEAM", c)
        boards_of_match = {rd.whole(b, "BOARD_NUMBER", mw) for b in m.findall("BOARD")}
        met = (min(a, c, key=natural_key), max(a, c, key=natural_key))
        lengths[met] = lengths.get(met, 0) + len(boards_of_match)  # (the VP scale's length: the match's boards)
        for team in (a, c):
            if len(team) > 20:
                raise rd.err("team number too long:", mw, team)
            parts.setdefault(team, Participant(team))
        for b in m.findall("BOARD"):
            bno = rd.whole(b, "BOARD_NUMBER", mw)
            if bno is None or not 1 <= bno <= MAX_BOARD:
                raise rd.err(f"BOARD_NUMBER must be 1 to {MAX_BOARD:,} (what the workbooks' Board column accepts):",
                             mw, rd.text(b, "BOARD_NUMBER", mw))
            if bno not in rows and len(rows) >= LIMITS["boards"]:
                raise rd.err(f"too many boards (limit {LIMITS['boards']})", mw)
            vul = xlbridge.vulnerability(bno).name
            for j, tl in enumerate(b.findall("TRAVELLER_LINE"), start=1):
                where = f"{mw}, BOARD {bno}, TRAVELLER_LINE {j}"
                typed = rd.text(tl, "DIRECTION", where)
                try:
                    side = (Direction.NS if j == 1 else Direction.EW) if typed is None else Direction.from_usebio(typed)
                except UnknownSpellingError:
                    raise rd.err("DIRECTION must be NS or EW:", f"{where}, DIRECTION", typed) from None
                ns, ew = (a, c) if side is Direction.NS else (c, a)
                loc: dict[str, Any] = {"file": rd.name, "element": where}
                r = check_result(_read_line(rd, tl, where, seats=(ns, ew)), vul, loc)
                rows.setdefault(bno, []).append(_weighted(tl, r, vul, loc))
                locs.setdefault(bno, []).append(loc)
                if len(rows[bno]) > LIMITS["rows"]:
                    raise rd.err(f"too many rows (limit {LIMITS['rows']})", f"BOARD {bno}")
                results += 1
                if results > LIMITS["results"]:
                    raise rd.err(f"more than {LIMITS['results']:,} traveller rows in the event, the limit", where)
    boards = []
    for bno in sorted(rows):
        check_board(bno, rows[bno], locs[bno], HOWELL, TEAMS)
        deal = _read_hands(rd, handset[bno], f"HANDSET, BOARD {bno}") if bno in handset else None
        boards.append(Board(bno, Seat.dealer(bno), xlbridge.vulnerability(bno).name, deal, tuple(rows[bno])))
    from .checks import mark_ties

    return replace(_event_header(rd, root, ev, TEAMS, Scoring.IMP, HOWELL, mark_ties(list(parts.values())), boards),
                   match_lengths=tuple((a, c, n) for (a, c), n in lengths.items()))


def _event_header(rd: _Reader, root: ET.Element, ev: ET.Element, kind: str, scoring: str, movement: str,
                  parts: list[Participant], boards: list[Board]) -> Event:
    """The event with its name, date, club (``CLUB_NAME``) and scorer (``EVENT`` > ``CONTACT`` > ``FULL_NAME``, as
    the EBU's scoring programs name the event's contact) from the file."""
    site = None
    club = root.find("CLUB")
    if club is not None:
        site = check_name(rd.text(club, "CLUB_NAME", "CLUB"), "club name", file=rd.name, element="CLUB, CLUB_NAME")
    check_name(rd.text(ev, "EVENT_DESCRIPTION", "EVENT"), "event name", file=rd.name, element="EVENT, EVENT_DESCRIPTION")
    contact = ev.find("CONTACT")
    scorer = None if contact is None else check_name(rd.text(contact, "FULL_NAME", "EVENT, CONTACT"), "scorer's name",
                                                     file=rd.name, element="EVENT, CONTACT, FULL_NAME")
    return Event(rd.text(ev, "EVENT_DESCRIPTION", "EVENT"), _date(rd.text(ev, "DATE", "EVENT")), site, kind,
                 scoring, movement, tuple(parts), tuple(boards), scorer=scorer)


def _read_line(rd: _Reader, tl: ET.Element, where: str, seats: tuple[str, str] | None = None) -> Result:
    """One traveller line; ``seats``: the (N-S, E-W) teams of a teams event's room (its pair numbers unused)."""
    if seats is not None:
        ns, ew = seats
    else:
        ns = rd.need(tl, "NS_PAIR_NUMBER", where)
        ew = rd.need(tl, "EW_PAIR_NUMBER", where)
    if ns.upper().endswith(Direction.NS) and ew.upper().endswith(Direction.EW) and len(ns) > 2 and len(ew) > 2:
        ns, ew = ns[:-2], ew[:-2]  # (1NS, 1EW: a Mitchell numbered with its side)
    for v in (ns, ew):
        if len(v) > 20:
            raise rd.err("pair number too long:", where, v)
    contract = rd.text(tl, "CONTRACT", where)
    if contract is not None:
        contract = normalize_contract(contract, file=rd.name, element=f"{where}, CONTRACT")
    declarer = rd.text(tl, "PLAYED_BY", where)
    if declarer is not None:
        declarer = normalize_seat(declarer, file=rd.name, element=f"{where}, PLAYED_BY")
    tricks = rd.whole(tl, "TRICKS", where)
    lead = rd.text(tl, "LEAD", where)
    if lead is not None:
        lead = normalize_lead(lead, file=rd.name, element=f"{where}, LEAD")
    s = rd.text(tl, "SCORE", where)
    score: xlbridge.Entry | None = None
    if s is not None:
        m = _EBU_ARTIFICIAL.fullmatch(s)
        try:
            score = xlbridge.parse_entry(f"A{m.group(1)}/{m.group(2)}" if m else s)
        except xlbridge.XlbridgeError:
            raise rd.err("cannot read SCORE:", f"{where}, SCORE", s) from None
    elif contract is None:
        score = xlbridge.NOT_PLAYED
    if isinstance(score, xlbridge.Artificial) or score is xlbridge.NOT_PLAYED:
        contract = declarer = tricks = None
    return Result(ns, ew, contract, declarer, tricks, score, lead,
                  rd.number(tl, "NS_MATCH_POINTS", where), rd.number(tl, "EW_MATCH_POINTS", where), None, None,
                  _first(rd, tl, where, Direction.NS), _first(rd, tl, where, Direction.EW))


def _weighted(tl: ET.Element, r: Result, vul: str, loc: dict[str, Any]) -> Result:
    """``r`` with the outcomes of xlbridge's ``WEIGHTED_SCORE`` element (a Law 12C1(c) weighted score:
    each ``OUTCOME``'s ``SCORE`` and ``WEIGHT``, :mod:`xlbridge.formats.outcomes`), when the line has one."""
    ws = tl.find("WEIGHTED_SCORE")
    if ws is None:
        return r
    where = {**loc, "element": f"{loc['element']}, WEIGHTED_SCORE"}
    pairs = [(o.get("SCORE"), o.get("WEIGHT")) for o in ws.iterfind("OUTCOME")]
    return replace(r, outcomes=read_outcomes(pairs, r.score, vul, where))


def _first(rd: _Reader, tl: ET.Element, where: str, side: Direction) -> Fraction | None:
    """A line's IMPs for ``side``: cross-IMP points, Butler points or IMPs, the first present."""
    for tag in (f"{side}_CROSS_IMP_POINTS", f"{side}_BUTLER_POINTS", f"{side}_IMPS"):
        v = rd.number(tl, tag, where)
        if v is not None:
            return v
    return None


# ------------------------------------------------------------------------------------------ writer

def _dec(x: Fraction | int | None) -> str:
    from .checks import format_number

    return format_number(x)


def _sub(parent: ET.Element, tag: str, text: object = None) -> ET.Element:
    el = ET.SubElement(parent, tag)
    if text is not None:
        el.text = str(text)
    return el


def _elements(el: ET.Element, where: str | None = None) -> Iterator[tuple[str, ET.Element]]:
    """Every element under ``el`` with its place as messages name it (``EVENT, BOARD 3, TRAVELLER_LINE 2,
    CONTRACT``: a board by its number, a pair by its direction and number, others by position)."""
    seen: dict[str, int] = {}
    for child in el:
        seen[child.tag] = seen.get(child.tag, 0) + 1
        label = child.tag
        if child.tag == "BOARD":
            label = f"BOARD {child.findtext('BOARD_NUMBER')}"
        elif child.tag == "PAIR":
            label = " ".join(t for t in ("PAIR", child.findtext("DIRECTION"), child.findtext("PAIR_NUMBER")) if t)
        elif child.tag in ("TRAVELLER_LINE", "PLAYER", "HAND"):
            label = f"{child.tag} {seen[child.tag]}"
        path = label if where is None else f"{where}, {label}"
        yield path, child
        yield from _elements(child, path)


@dataclass(frozen=True)
class UsebioStyle:
    """How a USEBIO file is written for the systems of one federation, where the readers disagree
    (docs/formats.md, "What the readers need", lists each reader and element).

    ``tie_mark``: appended to a shared place (``"3="`` as the EBU writes it; ``""`` repeats the
    number, ``3``, for readers that take PLACE as a whole number).  ``event_types``: the
    ``EVENT_TYPE`` for each of :data:`~xlbridge.formats.model.SCORING_TYPES`.  ``mitchell_suffix``:
    a Mitchell's pair numbers carry their direction (``1NS``, ``1EW``) for readers that know a pair
    by its number alone.  ``numeric_ids``: every national number must be digits only (a reader
    turns it into a whole number), else the export is refused naming the pair.  ``needs_date``: an
    event without a date or a name is refused (the reader fails without them).  ``named_pairs``: a pair
    without two named players is refused (the reader takes each pair's first two names).
    """

    name: str
    tie_mark: str
    event_types: Mapping[str, str]
    mitchell_suffix: bool
    numeric_ids: bool
    needs_date: bool
    named_pairs: bool


#: The styles by federation: ``EBU`` (the format's owner: the EBU's own files, ImportUsebio, BridgeScore,
#: club sites) and ``ABF`` (the ABF's Cobalt, which takes PLACE and NATIONAL_ID_NUMBER as whole numbers,
#: knows a pair by its number alone, and accepts the event types ``MP_PAIRS``, ``CROSS_IMP`` and
#: ``BUTLER_PAIRS`` only).
USEBIO_STYLES: Mapping[str, UsebioStyle] = MappingProxyType({
    "EBU": UsebioStyle("EBU", "=", MappingProxyType({Scoring.MP: "MP_PAIRS", Scoring.CROSS_IMP: "PAIRS",
                                                    Scoring.BUTLER: "PAIRS", Scoring.IMP: "PAIRS"}),
                       False, False, False, False),
    "ABF": UsebioStyle("ABF", "", MappingProxyType({Scoring.MP: "MP_PAIRS", Scoring.CROSS_IMP: "CROSS_IMP",
                                                   Scoring.BUTLER: "BUTLER_PAIRS", Scoring.IMP: "PAIRS"}),
                       True, True, True, True),
})

#: The traveller line's elements for each pair's share of the board, by the event's scoring.
_POINTS_OUT = {Scoring.MP: ("NS_MATCH_POINTS", "EW_MATCH_POINTS"),
               Scoring.CROSS_IMP: ("NS_CROSS_IMP_POINTS", "EW_CROSS_IMP_POINTS"),
               Scoring.BUTLER: ("NS_BUTLER_POINTS", "EW_BUTLER_POINTS"), Scoring.IMP: ("NS_IMPS", "EW_IMPS")}


def _score_out(score: object) -> str:
    """A traveller line's SCORE: N-S points, or an artificial score as the EBU writes it (``A6040``:
    ``A``, then the N-S and E-W percentages in two digits each), ``A57.5/42.5`` when a percentage is not
    a whole number of two digits.

    >>> from fractions import Fraction as F
    >>> _score_out(-50), _score_out(xlbridge.Artificial(F(60), F(40))), _score_out(xlbridge.Artificial(F(115, 2), F(50)))
    ('-50', 'A6040', 'A57.5/50')
    """
    if isinstance(score, xlbridge.Artificial):
        if all(v.denominator == 1 and 0 <= v <= 99 for v in (score.ns, score.ew)):
            return f"A{int(score.ns):02d}{int(score.ew):02d}"
    return str(score)


def write_usebio(event: Event, *, name: str | None = None, style: str = "EBU") -> bytes:
    """USEBIO 1.2 XML bytes (ISO-8859-1, other characters as character references) of a pairs or teams
    event, written as the federation ``style`` (:data:`USEBIO_STYLES`) reads it (a teams event as the EBU's
    teams files lay it out: :func:`_write_teams`).

    What the readers need (docs/formats.md): one ``EVENT`` with ``EVENT_TYPE``, ``EVENT_DESCRIPTION``,
    ``DATE`` (dd/mm/yyyy) and ``WINNER_TYPE``; each ``PAIR`` with its ``PLACE`` (ties as the style
    writes them), ``PERCENTAGE`` or ``TOTAL_SCORE``, and at least two ``PLAYER`` elements, each with
    ``PLAYER_NAME`` and ``NATIONAL_ID_NUMBER`` (empty when unknown); every board's traveller lines with
    numeric points on every line (a board not played at a table has no line: its pair's total is
    already factored); the deals in a ``HANDSET`` after the event.  Matchpoints and IMPs are written
    exactly when they have at most 4 decimals, else to 2 decimals.  ``name`` (the file the event was
    read from, as messages show it) starts every refusal, followed by the element (``PAIR NS 3,
    PLAYER 1, PLAYER_NAME``) or board.
    """
    if style not in USEBIO_STYLES:
        raise FormatError(f"unknown USEBIO style (one of {', '.join(USEBIO_STYLES)}):", file=name, value=style)
    how = USEBIO_STYLES[style]
    refuse_switched(event, "USEBIO")
    mitchell = event.movement == MITCHELL

    def number(num: str, side: str | None) -> str:
        return f"{num}{side}" if how.mitchell_suffix and mitchell and side else num

    for what, missing in (("date", event.date is None), ("name", not event.name)):
        if how.needs_date and missing:  # (Cobalt fails without either)
            cell, tag = ("Date", "Date tag") if what == "date" else ("Event", "Event tag")
            raise FormatError(f"the event has no {what}, which {how.name}'s USEBIO reader needs (a workbook's {cell} "
                              f"cell beside its parameters, a PBN file's {tag})", file=name)
    teams = event.kind != PAIRS
    if teams and how.name == "ABF":
        raise FormatError("the ABF's USEBIO reader (Cobalt) takes no teams event; export it with --federation EBU, "
                          "or as PBN", file=name)
    root = ET.Element("USEBIO", {"Version": "1.2"})
    _sub(_sub(root, "CLUB"), "CLUB_NAME", event.site)  # (ImportUsebio needs one CLUB, named or not)
    ev = _sub(root, "EVENT")
    ev.set("EVENT_TYPE", "TEAMS" if teams else how.event_types.get(event.scoring, "PAIRS"))
    _sub(ev, "PROGRAM_NAME", "xlbridge")
    _sub(ev, "PROGRAM_VERSION", getattr(xlbridge, "__version__", "0"))
    if event.name:
        _sub(ev, "EVENT_DESCRIPTION", event.name)
    if event.date:
        _sub(ev, "DATE", f"{event.date.day:02d}/{event.date.month:02d}/{event.date.year:04d}")
    if event.scorer:  # (the event's contact, as the EBU's own files carry their scorer)
        _sub(_sub(ev, "CONTACT"), "FULL_NAME", event.scorer)
    if teams:
        _write_teams(ev, event, how, name)
        _write_handset(root, event)
        return _xml_bytes(root, name)
    scoring = Scoring(event.scoring) if event.scoring in SCORING_TYPES else Scoring.MP
    _sub(ev, "BOARD_SCORING_METHOD", scoring.to_usebio())
    _sub(ev, "WINNER_TYPE", (MITCHELL if mitchell else HOWELL).to_usebio())
    parts = _sub(ev, "PARTICIPANTS")
    placed = any(p.place is not None for p in event.participants)
    seated = {(side, n) for b in event.boards for r in b.results if r.score is not xlbridge.NOT_PLAYED
              for side, n in ((Direction.NS, r.ns), (Direction.EW, r.ew))}
    for p in sorted(event.participants, key=lambda p: (p.direction or "", p.place is None, p.place or 0,
                                                        natural_key(p.number))):
        if placed and p.place is None and not any((d, p.number) in seated for d in (
                tuple(Direction) if p.direction is None else (p.direction,))):
            continue  # (a listed pair of a scored event that played no board: no place, no percentage to give)
        if how.named_pairs and len(p.names) < 2:
            raise FormatError(f"{how.name}'s USEBIO reader needs both players of every pair named:", file=name,
                              element=f"PAIR {p.label}, PLAYER, PLAYER_NAME", value=" & ".join(p.names))
        pe = _sub(parts, "PAIR")
        _sub(pe, "PAIR_NUMBER", number(p.number, p.direction))
        if mitchell:
            _sub(pe, "DIRECTION", p.direction)
        if p.place is not None:
            _sub(pe, "PLACE", f"{p.place}{how.tie_mark}" if p.tied else p.place)
        if p.percentage is not None:
            _sub(pe, "PERCENTAGE", _dec(p.percentage))
        if p.total is not None:
            _sub(pe, "TOTAL_SCORE", _dec(p.total))
        if p.boards is not None:
            _sub(pe, "BOARDS_PLAYED", p.boards)
        ids = p.player_ids()
        for k in range(max(2, len(p.names))):  # (readers take two PLAYERs of a pair, named or not)
            pl = _sub(pe, "PLAYER")
            _sub(pl, "PLAYER_NAME", p.names[k] if k < len(p.names) else None)
            nid = ids[k] if k < len(ids) else ""
            _check_id(nid, how, name, f"PAIR {p.label}, PLAYER {k + 1}, NATIONAL_ID_NUMBER")
            _sub(pl, "NATIONAL_ID_NUMBER", nid or None)
    points = _POINTS_OUT[scoring]
    for b in event.boards:
        if all(r.score is xlbridge.NOT_PLAYED for r in b.results):  # (a BOARD without a line stops readers)
            continue
        be = _sub(ev, "BOARD")
        _sub(be, "BOARD_NUMBER", b.number)
        _sub(be, "VULNERABILITY", xlbridge.vulnerability(b.vulnerable or b.number).to_usebio())
        for r in b.results:
            if r.score is xlbridge.NOT_PLAYED:  # (no line: every reader wants numbers on each line)
                continue
            tl = _sub(be, "TRAVELLER_LINE")
            _sub(tl, "NS_PAIR_NUMBER", number(r.ns, Direction.NS))
            _sub(tl, "EW_PAIR_NUMBER", number(r.ew, Direction.EW))
            _write_line(tl, r)
            ns_v, ew_v = (r.mp_ns, r.mp_ew) if event.scoring == Scoring.MP else (r.imp_ns, r.imp_ew)
            for tag, v in zip(points, (ns_v, ew_v)):
                if v is not None:
                    _sub(tl, tag, _dec(v))
            _write_outcomes(tl, r)
    _write_handset(root, event)
    return _xml_bytes(root, name)


def _check_id(nid: str, how: UsebioStyle, name: str | None, where: str) -> None:
    if how.numeric_ids and nid and not (nid.isascii() and nid.isdigit()):
        raise FormatError(f"a national number must be digits only for {how.name} (its USEBIO reader takes it as a whole "
                          f"number):", file=name, element=where, value=nid)


def _write_line(tl: ET.Element, r: Result) -> None:
    """A traveller line's contract, declarer, lead, tricks and score (what each room or table did)."""
    if r.contract is not None:
        _sub(tl, "CONTRACT", r.contract)
    if r.declarer is not None:
        _sub(tl, "PLAYED_BY", r.declarer)
    if r.lead is not None:
        _sub(tl, "LEAD", r.lead)
    if r.tricks is not None:
        _sub(tl, "TRICKS", r.tricks)
    if r.score is not None:
        _sub(tl, "SCORE", _score_out(r.score))


def _write_outcomes(tl: ET.Element, r: Result) -> None:
    """A Law 12C1(c) weighted score's outcomes at the end of its traveller line, in xlbridge's own element
    (:mod:`xlbridge.formats.outcomes`): ``WEIGHTED_SCORE`` > ``OUTCOME`` with attributes ``SCORE`` (N-S)
    and ``WEIGHT`` (``60%``, ``1/3``), the line's own score first."""
    if r.outcomes:
        ws = _sub(tl, "WEIGHTED_SCORE")
        for score, weight in outcome_pairs(r):
            ET.SubElement(ws, "OUTCOME", {"SCORE": str(score), "WEIGHT": weight})


def _write_teams(ev: ET.Element, event: Event, how: UsebioStyle, name: str | None) -> None:
    """A teams event as the EBU's teams files lay it out: one ``SESSION`` holding ``PARTICIPANTS`` (each
    ``TEAM`` with attributes ``TEAM_ID`` and ``TEAM_NAME``, its VPs as ``TOTAL_SCORE``, ``PLACE``, and its
    players two by two in ``PAIR`` elements numbered team-player-player, ``1-1-2``) and each ``MATCH``
    (``TEAM``, ``OPPOSING_TEAM`` and their VPs, then each ``BOARD`` with ``TEAM``'s ``IMPS`` and one
    ``TRAVELLER_LINE`` per room, its ``DIRECTION`` the side ``TEAM`` sat)."""
    from .scoring import match_results, team_matches

    _sub(ev, "BOARD_SCORING_METHOD", Scoring.IMP.to_usebio())
    _sub(ev, "MATCH_SCORING_METHOD", "VPS")
    _sub(ev, "WINNER_TYPE", HOWELL.to_usebio())
    session = _sub(ev, "SESSION")
    session.set("SESSION_ID", "1")
    parts = _sub(session, "PARTICIPANTS")
    for p in sorted(event.participants, key=lambda p: (p.place is None, p.place or 0, natural_key(p.number))):
        te = _sub(parts, "TEAM")
        te.set("TEAM_ID", p.number)
        te.set("TEAM_NAME", p.name or "")
        if p.vps is not None:
            _sub(te, "TOTAL_SCORE", _dec(p.vps))
        if p.place is not None:
            _sub(te, "PLACE", f"{p.place}{how.tie_mark}" if p.tied else p.place)
        ids = p.player_ids()
        players = max(4, len(p.names) + len(p.names) % 2)  # (two pairs at least; readers want PAIRs of two)
        for k in range(0, players, 2):
            pe = _sub(te, "PAIR")
            _sub(pe, "PAIR_NUMBER", f"{p.number}-{k + 1}-{k + 2}")
            for j in (k, k + 1):
                pl = _sub(pe, "PLAYER")
                _sub(pl, "PLAYER_NAME", p.names[j] if j < len(p.names) else None)
                nid = ids[j] if j < len(ids) else ""
                _check_id(nid, how, name, f"TEAM {p.number}, PLAYER {j + 1}, NATIONAL_ID_NUMBER")
                _sub(pl, "NATIONAL_ID_NUMBER", nid or None)
    vps = match_results(event)
    for k, (a, c, rooms) in enumerate(team_matches(event, name), start=1):
        m = _sub(session, "MATCH")
        _sub(m, "ROUND_NUMBER", k)  # (the match's number: xlbridge keeps no rounds)
        _sub(m, "TEAM", a)
        _sub(m, "OPPOSING_TEAM", c)
        if (a, c) in vps:
            _sub(m, "TEAM_SCORE", _dec(vps[(a, c)].vp_a))
            _sub(m, "OPPOSING_TEAM_SCORE", _dec(vps[(a, c)].vp_b))
        for bno, (r1, r2) in rooms.items():
            be = _sub(m, "BOARD")
            _sub(be, "BOARD_NUMBER", bno)
            if r1 is not None and r1.imp_ns is not None:
                _sub(be, "IMPS", _dec(r1.imp_ns))
            for r, side in ((r1, Direction.NS), (r2, Direction.EW)):
                if r is None:
                    continue
                tl = _sub(be, "TRAVELLER_LINE")
                _sub(tl, "DIRECTION", side.to_usebio())
                _sub(tl, "NS_PAIR_NUMBER", r.ns)
                _sub(tl, "EW_PAIR_NUMBER", r.ew)
                _write_line(tl, r)
                _write_outcomes(tl, r)


def _write_handset(root: ET.Element, event: Event) -> None:
    """Every board in a ``HANDSET`` after the event (where the readers that show hands look for them), with
    its hands where the deal is known; none when no deal is known."""
    if any(b.deal for b in event.boards):
        hs = _sub(root, "HANDSET")
        for b in event.boards:
            hb = _sub(hs, "BOARD")
            _sub(hb, "BOARD_NUMBER", b.number)
            if not b.deal:
                continue
            for seat, hand in zip(Seat, b.deal[2:].split(" ")):
                if hand == "-":
                    continue
                he = _sub(hb, "HAND")
                _sub(he, "DIRECTION", seat.to_usebio(hand=True))
                for tag, cards in zip(("SPADES", "HEARTS", "DIAMONDS", "CLUBS"), hand.split(".")):
                    _sub(he, tag, cards or None)


def _xml_bytes(root: ET.Element, name: str | None) -> bytes:
    for where, el in _elements(root):
        for label, text in [(where, el.text), *((f"{where}@{k}", v) for k, v in el.attrib.items())]:
            if text is not None and any(ord(c) < 32 and c not in "\t\n\r" for c in text):
                raise FormatError("text cannot be written to XML (control character):", file=name, element=label,
                                  value=text)
    ET.indent(root, "  ")
    body = ET.tostring(root, encoding="unicode")
    head = '<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE USEBIO SYSTEM "usebio_v1_2.dtd">\n'
    return (head + body + "\n").encode("latin-1", errors="xmlcharrefreplace")
