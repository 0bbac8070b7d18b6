"""PBN 2.1 (Portable Bridge Notation) reader and writer for scored events.

The reader is here; the notation itself (decoding, the tokenizer, games, tables) is
:mod:`xlbridge.formats.pbntext` and the writer :mod:`xlbridge.formats.pbnwrite` (its
:func:`write_pbn` is importable from here too).

Follows *Portable Bridge Notation, version 2.1* (T. Veugen, K. G. Backas, 2017-02-14,
tistis.nl/pbn/pbn_v21.txt):

- section 2.1 import and export format: ``%`` lines (``% PBN 2.1``, ``% EXPORT``) are
  directives, games are separated by an empty line; the writer writes export format;
- section 2.2 character set: ISO 8859-1 unless stated.  The reader takes UTF-8 when the file
  starts with a UTF-8 byte-order mark, or (a documented heuristic) when the bytes are valid
  UTF-8 and contain a multi-byte sequence; otherwise Latin-1.  The writer writes plain ASCII
  when it can, else UTF-8 with a byte-order mark (so that no reader has to guess);
- section 2.4 escape mechanism and 3.8 commentary: ``%`` lines, ``;`` to end of line and
  ``{...}`` (over several lines) are skipped; in a string ``\\"`` is a quote and ``\\\\`` a
  backslash;
- section 3.3 tag pairs ``[Name "value"]``; section 4.8 tag value ``#``: the value of the same
  tag in the previous game;
- section 3.4 tags ``Event``, ``Site``, ``Date`` (``YYYY.MM.DD``, ``?`` for unknown digits),
  ``Board``, ``Dealer``, ``Vulnerable`` (None/NS/EW/All, also Love/Both), ``Deal``, and
  section 4.2 ``Scoring``;
- section 5.2 tables: the tag value lists the columns, ``;``-separated, each ``Name``,
  optionally prefixed ``+``/``-`` (sort order) and suffixed ``\\<width>`` with ``L``/``R``
  alignment; rows may span lines (import format); ``?`` is unknown, ``-`` irrelevant, ``^``
  marks an artificial score;
- section 5.9 ``ScoreTable`` (one per board) and 5.10 ``TotalScoreTable`` (the ranking).

Columns read (any order and width; unknown columns are ignored): ``PairId_NS``,
``PairId_EW``, ``Names_NS``, ``Names_EW``, ``Contract``, ``Declarer``, ``Result`` (tricks
taken, or ``=``/``+1``/``-2`` relative to the contract), ``Score_NS``, ``Score_EW``,
``MP_NS``, ``MP_EW``, ``Percentage_NS``, ``Percentage_EW``, ``IMP_NS``, ``IMP_EW``, ``Lead``,
``Table``, ``Round``, ``Outcomes`` (xlbridge's: a Law 12C1(c) weighted score's outcomes,
:mod:`xlbridge.formats.outcomes`); in a ``TotalScoreTable``: ``Rank``, ``PairId`` (or ``TeamId``),
``Direction`` (user-defined: ``NS``/``EW`` in a Mitchell), ``Names``, ``TeamName``,
``TotalScore``, ``TotalMP``, ``TotalIMP``, ``TotalPercentage``, ``NrBoards``.  See
docs/formats.md for the full mapping.

>>> text = '''% PBN 2.1
... [Event "Tuesday pairs"]
... [Board "1"]
... [Dealer "N"]
... [Vulnerable "None"]
... [ScoreTable "PairId_NS\\\\2R;PairId_EW\\\\2R;Contract\\\\4L;Declarer\\\\1R;Result\\\\2R;Score_NS\\\\6R"]
...  1  2 4S   N 10    420
...  3  4 4S   N  9    -50
... '''
>>> e = read_pbn(text.encode())
>>> e.name, [(r.ns, r.ew, r.contract, r.tricks, r.score) for r in e.boards[0].results]
('Tuesday pairs', [('1', '2', '4S', 10, 420), ('3', '4', '4S', 9, -50)])
>>> read_pbn(write_pbn(e)) == e
True
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import replace
from fractions import Fraction
from typing import Any

import xlbridge

from ..core.vocabulary import Direction, Movement, Scoring, Seat, UnknownSpellingError
from .checks import MAX_BOARD, mark_ties, check_board, check_result, infer_movement
from .errors import LIMITS, FormatError, Source, check_name, check_national_number, check_players, load_source
from .model import (HOWELL, MITCHELL, PAIRS, TEAMS, Board, Event, Participant, Result, natural_key,
                    normalize_contract, normalize_deal, normalize_lead, normalize_seat)
from .outcomes import read_outcomes, split_outcomes
from .pbntext import (Cell, Lexer, blank, decode_pbn, pair_id, player_names, read_int, read_num, iter_games,
                      table_header, table_rows)
from .pbnwrite import write_pbn

__all__ = ["read_pbn", "write_pbn", "decode_pbn", "load_source", "SCORE_TABLE_COLUMNS", "TOTAL_SCORE_TABLE_COLUMNS"]

#: ScoreTable columns read (PBN 2.1 section 5.9 plus Lead, Table, Round written by scoring programs, and
#: xlbridge's Outcomes: a Law 12C1(c) weighted score, :mod:`xlbridge.formats.outcomes`).
SCORE_TABLE_COLUMNS = ("Rank", "PairId_NS", "PairId_EW", "Names_NS", "Names_EW", "Contract", "Declarer",
                       "Result", "Score_NS", "Score_EW", "IMP_NS", "IMP_EW", "MP_NS", "MP_EW", "Percentage_NS",
                       "Percentage_EW", "Multiplicity", "Lead", "Table", "Round", "Outcomes")
#: TotalScoreTable columns read (section 5.10 plus Direction, TeamId and TeamName).
TOTAL_SCORE_TABLE_COLUMNS = ("Rank", "PairId", "TeamId", "Direction", "Names", "TeamName", "TotalScore",
                             "TotalMP", "TotalIMP", "TotalPercentage", "NrBoards")

_CONTRACT_DECL = re.compile(r"([1-7](?:NT|[CDHSN])(?:XX|X|\*\*|\*)?)([NESW])", re.IGNORECASE)


def _whole(t: str, what: str, lexer: Lexer, line: int) -> int:
    """A whole number from a cell that is not blank."""
    v = read_int(t, what, lexer, line)
    if v is None:  # not reached: only a blank cell reads as None
        raise lexer.err(f"cannot read {what}:", line, t)
    return v


def _national_ids(v: str | None, players: int, name: str, line: int) -> tuple[str, ...]:
    """A TotalScoreTable row's ``NationalIds`` (user-defined, written by xlbridge: the players' national
    numbers, ``;``-separated in the order of ``Names``; ``""`` where unknown).

    >>> _national_ids("1234;", 2, "club.pbn", 9), _national_ids(None, 2, "club.pbn", 9)
    (('1234', ''), ())
    """
    if v is None or blank(v):
        return ()
    ids = tuple(x.strip() for x in v.split(";"))
    if not players and any(ids):
        raise FormatError("national numbers for players without names:", file=name, line=line, value=v)
    if len(ids) > max(players, 1):
        raise FormatError(f"more national numbers than players ({len(ids)} for {players}):", file=name, line=line,
                          value=v)
    for i in ids:
        check_national_number(i, file=name, line=line)
    return ids if any(ids) else ()


def _score_row(row: dict[str, str], line: int, lexer: Lexer) -> tuple[Result, tuple[str, ...], tuple[str, ...]]:
    loc: dict[str, Any] = {"file": lexer.name, "line": line}
    ns = pair_id(row.get("PairId_NS"), "PairId_NS", lexer, line)
    ew = pair_id(row.get("PairId_EW"), "PairId_EW", lexer, line)
    contract = row.get("Contract")
    declarer = row.get("Declarer")
    contract = None if contract is None or blank(contract) else contract.strip()
    if contract and blank(declarer):
        m = _CONTRACT_DECL.fullmatch(contract)
        if m:
            contract, declarer = m.group(1), m.group(2)
    if contract is not None:
        contract = normalize_contract(contract, **loc)
    declarer = None if blank(declarer) else normalize_seat(declarer, **loc)
    tricks = None
    res = row.get("Result")
    if res is not None and not blank(res):
        t = res.strip()
        if t == "=" or t[0] in "+-" and len(t) > 1:
            if contract is None or contract == "PASS":
                raise lexer.err("a result relative to the contract needs a contract:", line, t)
            rel = 0 if t == "=" else _whole(t, "result", lexer, line)
            tricks = xlbridge.Contract.parse(contract).level + 6 + rel
        else:
            tricks = read_int(t, "result (tricks taken)", lexer, line)
        if tricks is not None and not 0 <= tricks <= 13:
            raise lexer.err("tricks must be 0-13:", line, t)
    score: xlbridge.Entry | None = None
    sns, sew = row.get("Score_NS"), row.get("Score_EW")
    for text, sign in ((sns, 1), (sew, -1)):
        if text is None or blank(text):
            continue
        t = text.strip()
        up = t.lstrip("^").upper()
        if t.startswith("^") or up.startswith("A") or up in ("NP", "N/P"):
            try:
                entry = xlbridge.parse_entry(up)
            except xlbridge.XlbridgeError:
                raise lexer.err("cannot read artificial score:", line, t) from None
            if isinstance(entry, int):
                raise lexer.err("an artificial score needs percentages (e.g. ^A60/40):", line, t)
            if score is not None and score != entry:
                raise lexer.err("Score_NS and Score_EW disagree:", line, f"{sns} {sew}")
            score = entry
            continue
        v = _whole(t, "score", lexer, line)
        if v % 10:
            raise lexer.err("impossible score (not a multiple of 10):", line, t)
        if score is not None and score != sign * v:
            raise lexer.err("Score_NS and Score_EW disagree:", line, f"{sns} {sew}")
        score = sign * v
    pct_ns = read_num(row.get("Percentage_NS"), "Percentage_NS", lexer, line)
    pct_ew = read_num(row.get("Percentage_EW"), "Percentage_EW", lexer, line)
    if score is None and contract is None:
        p = [row.get("Percentage_NS"), row.get("Percentage_EW")]
        if any(x is not None and not blank(x) and x.strip().startswith("^") for x in p):
            # the cell with the caret holds a percentage: one of the two is known
            a = pct_ns if pct_ns is not None else Fraction(100) - (pct_ew or 0)
            b = pct_ew if pct_ew is not None else 100 - a
            try:
                score = xlbridge.Artificial(a, b)
            except xlbridge.XlbridgeError:
                raise lexer.err("artificial percentages must be 0-100:", line, f"{a}/{b}") from None
        elif all(blank(row.get(c)) for c in ("Contract", "Score_NS", "Score_EW")) and not any(
                (row.get(c) or "").strip() == "?" for c in ("Contract", "Score_NS", "Score_EW")):
            score = xlbridge.NOT_PLAYED
    lead_cell = row.get("Lead")
    lead = None if lead_cell is None or blank(lead_cell) else normalize_lead(lead_cell, **loc)
    r = Result(ns, ew, contract, declarer, tricks, score, lead,
               read_num(row.get("MP_NS"), "MP_NS", lexer, line), read_num(row.get("MP_EW"), "MP_EW", lexer, line),
               pct_ns, pct_ew,
               read_num(row.get("IMP_NS"), "IMP_NS", lexer, line), read_num(row.get("IMP_EW"), "IMP_EW", lexer, line),
               read_int(row.get("Table"), "Table", lexer, line), read_int(row.get("Round"), "Round", lexer, line))
    return r, player_names(row.get("Names_NS")), player_names(row.get("Names_EW"))


def _direction(v: str | None, lexer: Lexer, line: int) -> Direction:
    """A TotalScoreTable's ``Direction`` cell in a Mitchell: ``NS`` or ``EW`` (``N-S``, ``N/S`` read too)."""
    try:
        return Direction.from_pbn(v)
    except UnknownSpellingError:
        raise lexer.err("Direction must be NS or EW:", line, v) from None


def _date(v: str | None) -> _dt.date | None:
    m = re.fullmatch(r"\s*(\d{4})[.\-/](\d{2})[.\-/](\d{2})\s*", v or "")
    if not m:
        return None
    try:
        return _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


# ------------------------------------------------------------------------------------------ reader

def read_pbn(source: Source, *, name: str | None = None) -> Event:
    """Read a PBN 2.1 file (a path, bytes, or text with newlines) into an :class:`Event`.

    Every traveller row is checked: the score must be what the contract, declarer and tricks
    give at the board's vulnerability (or, without them, a legal score), no row may repeat,
    and no pair may play a board twice.  Any problem raises one :class:`FormatError` naming
    the file, the line and the value.

    >>> read_pbn(b"[Board \\"1\\"]\\n[ScoreTable \\"PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS\\"]\\n1 2 4S N 10 410\\n")
    Traceback (most recent call last):
    ...
    xlbridge.formats.errors.FormatError: input, line 3: score does not match 4S by N taking 10 tricks, vulnerability 'None' (nobody vulnerable), which scores N-S 420: 410
    """
    data, fname = load_source(source)
    name = name or fname
    if not data.strip():
        raise FormatError("empty file", file=name)
    if data.count(b"\x00"):
        raise FormatError("not a PBN file (binary data)", file=name)
    try:
        text = decode_pbn(data)
    except UnicodeDecodeError:
        raise FormatError("not a PBN file (bad UTF-8 after a byte-order mark)", file=name) from None
    lexer = Lexer(text, name)
    ev: dict[str, str | None] = {"Event": None, "Site": None, "Date": None, "Scoring": None, "Scorer": None}
    boards: list[Board] = []
    board_locs: list[list[dict[str, Any]]] = []
    totals: tuple[tuple[str, int], list[Cell]] | None = None
    names_seen: dict[tuple[str, str], tuple[str, ...]] = {}
    seen_boards: dict[int, bool | None] = {}
    index: dict[int, int] = {}  # board number -> its place in boards
    results = 0
    any_game = False
    for g in iter_games(lexer):
        any_game = True
        tags = g["tags"]
        for k in ev:
            if ev[k] is None and k in tags and tags[k][0].strip() not in ("", "?", "#"):
                ev[k] = tags[k][0].strip()
                if k in ("Event", "Site", "Scorer"):
                    check_name(ev[k], {"Event": "event name", "Site": "site", "Scorer": "scorer's name"}[k], file=name,
                               line=tags[k][1])
        if "TotalScoreTable" in tags:
            if totals is not None:
                raise lexer.err("a second TotalScoreTable:", tags["TotalScoreTable"][1], tags["TotalScoreTable"][0])
            totals = (tags["TotalScoreTable"], g["data"]["TotalScoreTable"])
        if "Board" not in tags:
            if "ScoreTable" in tags:
                raise lexer.err("a ScoreTable without a Board tag:", tags["ScoreTable"][1], tags["ScoreTable"][0])
            continue
        bval, bline = tags["Board"]
        bno = read_int(bval, "board number", lexer, bline)
        if bno is None or not 1 <= bno <= MAX_BOARD:
            raise lexer.err(f"board number must be 1 to {MAX_BOARD:,} (what the workbooks' Board column accepts):",
                            bline, bval)
        if "ScoreTable" not in tags:
            if bno in seen_boards:
                continue  # another game (e.g. a played deal) of a board already read
        elif bno in seen_boards and seen_boards[bno] is not None:
            raise lexer.err("a second ScoreTable for board", tags["ScoreTable"][1], bno)
        loc: dict[str, Any] = {"file": name, "line": bline}
        dealer_tag = tags.get("Dealer", ("", 0))
        dealer = normalize_seat(dealer_tag[0], file=name, line=dealer_tag[1]) if not blank(dealer_tag[0]) else \
            Seat.dealer(bno)
        vul_tag = tags.get("Vulnerable", ("", 0))
        try:
            vul = xlbridge.vulnerability(vul_tag[0] if not blank(vul_tag[0]) else bno).name
        except xlbridge.XlbridgeError:
            raise lexer.err("cannot read vulnerability:", vul_tag[1], vul_tag[0]) from None
        deal_tag = tags.get("Deal", ("", 0))
        deal = normalize_deal(deal_tag[0], file=name, line=deal_tag[1]) if not blank(deal_tag[0]) else None
        rows: list[Result] = []
        locs: list[dict[str, Any]] = []
        if "ScoreTable" in tags:
            hval, hline = tags["ScoreTable"]
            cols = table_header(hval, lexer, hline, "ScoreTable")
            if "PairId_NS" not in cols or "PairId_EW" not in cols:
                raise lexer.err("ScoreTable header needs PairId_NS and PairId_EW columns:", hline, hval)
            if not ({"Score_NS", "Score_EW", "Contract"} & set(cols)):
                raise lexer.err("ScoreTable header has no Contract or Score column:", hline, hval)
            for row, line in table_rows(cols, g["data"]["ScoreTable"], lexer, "ScoreTable"):
                r, nn, ne = _score_row(row, line, lexer)
                r = check_result(r, vul, {"file": name, "line": line})
                weighted = split_outcomes(row.get("Outcomes") or "-", {"file": name, "line": line})
                if weighted:
                    r = replace(r, outcomes=read_outcomes(weighted, r.score, vul, {"file": name, "line": line}))
                rows.append(r)
                locs.append({"file": name, "line": line})
                for num, side, nm in ((r.ns, Direction.NS, nn), (r.ew, Direction.EW, ne)):
                    if nm:
                        check_players(nm, file=name, line=line)
                        names_seen.setdefault((side, num), nm)
                if len(rows) > LIMITS["rows"]:
                    raise lexer.err(f"too many rows on board {bno} (limit {LIMITS['rows']})", line)
                results += 1
                if results > LIMITS["results"]:
                    raise lexer.err(f"more than {LIMITS['results']:,} traveller rows in the event, the limit", line)
        seen_boards[bno] = True if "ScoreTable" in tags else None
        if bno in index:
            i = index[bno]
            boards[i] = Board(bno, dealer, vul, deal or boards[i].deal, tuple(rows))
            board_locs[i] = locs
        else:
            index[bno] = len(boards)
            boards.append(Board(bno, dealer, vul, deal, tuple(rows)))
            board_locs.append(locs)
        if len(boards) > LIMITS["boards"]:
            raise FormatError(f"too many boards (limit {LIMITS['boards']})", **loc)
    if not any_game:
        raise FormatError("no PBN tags found (not a PBN file?)", file=name)
    kind = PAIRS
    participants = {}
    movement = None
    if totals is not None:
        (hval, hline), tdata = totals
        cols = table_header(hval, lexer, hline, "TotalScoreTable")
        id_col = "TeamId" if "TeamId" in cols else "PairId"
        if id_col not in cols:
            raise lexer.err("TotalScoreTable header needs a PairId or TeamId column:", hline, hval)
        kind = TEAMS if id_col == "TeamId" else PAIRS
        trows = list(table_rows(cols, tdata, lexer, "TotalScoreTable"))
        # a Direction column (user-defined, section 5.2) with NS/EW values makes a Mitchell, one left
        # blank a Howell; without the column the travellers tell (as without a TotalScoreTable), and
        # each pair of a Mitchell gets the one direction its number sat in
        directed = Movement.from_pbn(r.get("Direction") for r, _ in trows) is MITCHELL  # a direction on some row
        movement = MITCHELL if directed else HOWELL if kind == TEAMS or "Direction" in cols else \
            infer_movement([b.results for b in boards])
        sat: dict[str, set[Direction]] = {}
        for b in boards:
            for r in b.results:
                sat.setdefault(r.ns, set()).add(Direction.NS)
                sat.setdefault(r.ew, set()).add(Direction.EW)
        for row, line in trows:
            num = pair_id(row.get(id_col), id_col, lexer, line)
            d = None
            if directed:
                d = _direction(row.get("Direction"), lexer, line)
            elif movement == MITCHELL:
                if len(sat.get(num, ())) != 1:
                    raise lexer.err(f"the travellers make a Mitchell and pair {num} "
                                    f"{'sits both N-S and E-W' if sat.get(num) else 'plays no board'}: the "
                                    f"TotalScoreTable needs a Direction column to tell which pair this row is:",
                                    line, num)
                d = next(iter(sat[num]))
            total = None
            for c in ("TotalMP", "TotalIMP", "TotalScore"):
                total = read_num(row.get(c), c, lexer, line)
                if total is not None:
                    break
            players = check_players(player_names(row.get("Names")), file=name, line=line)
            ids = _national_ids(row.get("NationalIds"), len(players), name, line)
            team = None if blank(row.get("TeamName")) else check_name(row["TeamName"].strip(), "team name", file=name,
                                                                       line=line)
            p = Participant(num, d, players, team,
                            total, None, read_num(row.get("TotalPercentage"), "TotalPercentage", lexer, line),
                            read_int(row.get("Rank"), "Rank", lexer, line), False,
                            read_int(row.get("NrBoards"), "NrBoards", lexer, line), ids=ids)
            if p.key in participants:
                raise lexer.err("a pair appears twice in the TotalScoreTable:", line, p.label)
            participants[p.key] = p
            if len(participants) > LIMITS["participants"]:
                raise lexer.err(f"too many pairs (limit {LIMITS['participants']})", line)
    if movement is None:
        movement = HOWELL if kind == TEAMS else infer_movement([b.results for b in boards])
    for b, locs in zip(boards, board_locs):
        check_board(b.number, list(b.results), locs, movement, kind)
    mitchell = movement == MITCHELL
    for b in boards:
        for r in b.results:
            for side, num in ((Direction.NS, r.ns), (Direction.EW, r.ew)):
                key = (side if mitchell else None, num)
                if key not in participants:
                    nm = names_seen.get((side, num), ()) if mitchell else (
                        names_seen.get((Direction.NS, num)) or names_seen.get((Direction.EW, num)) or ())
                    participants[key] = Participant(num, key[0], nm)
    parts = sorted(participants.values(), key=lambda p: (p.direction or "", natural_key(p.number)))
    parts = mark_ties(parts)
    scoring = Scoring.IMP if kind == TEAMS else Scoring.MP
    if ev["Scoring"]:
        try:
            scoring = Scoring.from_pbn(ev["Scoring"].split(";")[0])
        except UnknownSpellingError:
            pass  # (another scoring PBN names, such as Rubber or BAM: the kind's own)
    return Event(ev["Event"], _date(ev["Date"]), ev["Site"], kind, scoring, movement, tuple(parts), tuple(boards),
                 scorer=ev["Scorer"])
