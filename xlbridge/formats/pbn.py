"""PBN 2.1 (Portable Bridge Notation) reader and writer for scored events.

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
``Table``, ``Round``; in a ``TotalScoreTable``: ``Rank``, ``PairId`` (or ``TeamId``),
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
import os
import re
from dataclasses import replace
from fractions import Fraction

import xlbridge

from .checks import format_number, mark_ties, check_board, check_result, infer_movement
from .errors import LIMITS, FormatError, display_name
from .model import (HOWELL, MITCHELL, PAIRS, TEAMS, Board, Event, Participant, Result, natural_key,
                    normalize_contract, normalize_deal, normalize_lead, normalize_seat, parse_number)

__all__ = ["read_pbn", "write_pbn", "decode_pbn", "load_source", "SCORE_TABLE_COLUMNS", "TOTAL_SCORE_TABLE_COLUMNS"]

#: ScoreTable columns read (PBN 2.1 section 5.9 plus Lead, Table, Round written by scoring programs).
SCORE_TABLE_COLUMNS = ("Rank", "PairId_NS", "PairId_EW", "Names_NS", "Names_EW", "Contract", "Declarer",
                       "Result", "Score_NS", "Score_EW", "IMP_NS", "IMP_EW", "MP_NS", "MP_EW", "Percentage_NS",
                       "Percentage_EW", "Multiplicity", "Lead", "Table", "Round")
#: TotalScoreTable columns read (section 5.10 plus Direction, TeamId and TeamName).
TOTAL_SCORE_TABLE_COLUMNS = ("Rank", "PairId", "TeamId", "Direction", "Names", "TeamName", "TotalScore",
                             "TotalMP", "TotalIMP", "TotalPercentage", "NrBoards")

_TAG_NAME = re.compile(r"[A-Za-z0-9_]+")
_COLUMN = re.compile(r"([+-]?)([A-Za-z][A-Za-z0-9_]*)(?:\\(\d{1,3})([LR]?))?")
_SCORINGS = {"MP": "MP", "MATCHPOINTS": "MP", "MATCHPOINT": "MP", "IMP": "IMP", "IMPS": "IMP",
             "CROSS-IMP": "CROSS_IMP", "CROSS_IMP": "CROSS_IMP", "CROSSIMP": "CROSS_IMP", "BUTLER": "BUTLER",
             "BUTLER-IMP": "BUTLER"}
_PBN_SCORING = {"MP": "MP", "IMP": "IMP", "CROSS_IMP": "Cross-IMP", "BUTLER": "Butler"}


# ------------------------------------------------------------------------------------------ decoding

def load_source(source) -> tuple[bytes, str]:
    """Bytes and display name of a path, bytes, or text; refuses files over the size limit."""
    name = display_name(source)
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif isinstance(source, str) and "\n" in source:
        data = source.encode("utf-8")
    elif isinstance(source, (str, os.PathLike)):
        try:
            size = os.path.getsize(source)
        except OSError:
            raise FormatError("cannot open the file", file=name) from None
        if size > LIMITS["bytes"]:
            raise FormatError(f"file too large ({size:,} bytes; the limit is {LIMITS['bytes']:,})", file=name)
        try:
            with open(source, "rb") as f:
                data = f.read(LIMITS["bytes"] + 1)
        except OSError:
            raise FormatError("cannot read the file", file=name) from None
    else:
        raise FormatError(f"cannot read {type(source).__name__} as a file (give a path or bytes)")
    if len(data) > LIMITS["bytes"]:
        raise FormatError(f"file too large (over {LIMITS['bytes']:,} bytes)", file=name)
    return data, name


def decode_pbn(data: bytes) -> str:
    """Text of PBN bytes: UTF-8 after a byte-order mark or when valid multi-byte UTF-8, else Latin-1.

    >>> decode_pbn("Åsa".encode("utf-8")), decode_pbn("Åsa".encode("latin-1"))
    ('Åsa', 'Åsa')
    """
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="strict")
    if re.search(rb"[\x80-\xff]", data):
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return data.decode("latin-1")


class _Lexer:
    """Tokens of a PBN text: ("TAG", name, value, line), ("DATA", text, quoted, line), ("BLANK", line)."""

    def __init__(self, text: str, name: str):
        self.text, self.name = text, name
        self.directives = []

    def err(self, message, line, value=None):
        return FormatError(message, file=self.name, line=line, value=value)

    def tokens(self):
        in_brace = False
        for lineno, line in enumerate(self.text.split("\n"), start=1):
            if len(line) > LIMITS["line"]:
                raise self.err(f"line too long (over {LIMITS['line']:,} characters):", lineno, line)
            line = line.rstrip("\r")
            if "\x00" in line:
                raise self.err("not a PBN file (binary data):", lineno, line)
            if not in_brace:
                if line.startswith("%"):
                    self.directives.append(line[1:].strip())
                    continue
                if not line.strip():
                    yield ("BLANK", lineno)
                    continue
            i, n = 0, len(line)
            while i < n:
                if in_brace:
                    j = line.find("}", i)
                    if j < 0:
                        break
                    in_brace, i = False, j + 1
                    continue
                c = line[i]
                if c.isspace():
                    i += 1
                elif c == ";":
                    break
                elif c == "{":
                    in_brace, i = True, i + 1
                elif c == "[":
                    i = self._tag(line, i, lineno)
                    yield self._last
                elif c == '"':
                    s, i = self._string(line, i, lineno)
                    yield ("DATA", s, True, lineno)
                elif c in "]}":
                    raise self.err("unexpected character:", lineno, line[i:])
                else:
                    j = i
                    while j < n and not line[j].isspace() and line[j] not in '[]{};"':
                        j += 1
                    yield ("DATA", line[i:j], False, lineno)
                    i = j
        if in_brace:
            raise self.err("unterminated {comment} at the end of the file", None)

    def _string(self, line, i, lineno):
        out = []
        j = i + 1
        while j < len(line):
            c = line[j]
            if c == "\\" and j + 1 < len(line) and line[j + 1] in '"\\':
                out.append(line[j + 1])
                j += 2
            elif c == '"':
                return "".join(out), j + 1
            else:
                out.append(c)
                j += 1
        raise self.err("unterminated string:", lineno, line[i:])

    def _tag(self, line, i, lineno):
        m = _TAG_NAME.match(line, i + 1)
        if not m:
            raise self.err("cannot read tag pair (expected [Name \"value\"]):", lineno, line[i:])
        j = m.end()
        while j < len(line) and line[j].isspace():
            j += 1
        if j >= len(line) or line[j] != '"':
            raise self.err("cannot read tag pair (expected [Name \"value\"]):", lineno, line[i:])
        value, j = self._string(line, j, lineno)
        while j < len(line) and line[j].isspace():
            j += 1
        if j >= len(line) or line[j] != "]":
            raise self.err("cannot read tag pair (missing ]):", lineno, line[i:])
        self._last = ("TAG", m.group(0), value, lineno)
        return j + 1


def _games(lexer: _Lexer):
    """Games as dicts: tags {name: (value, line)}, data {tag name: [(text, quoted, line)]}."""
    games, game, current, prev = [], None, None, {}

    def close():
        nonlocal game, prev
        if game and game["tags"]:
            games.append(game)
            prev = {k: v for k, v in game["tags"].items()}
        game = None

    for tok in lexer.tokens():
        if tok[0] == "BLANK":
            close()
            continue
        if tok[0] == "TAG":
            _, name, value, line = tok
            if game is not None and name in game["tags"]:
                close()
            if game is None:
                game = {"tags": {}, "data": {}}
            if value == "#":  # section 4.8: inherit the previous game's value
                if name not in prev:
                    raise lexer.err(f"tag {name} is '#' but no earlier game has it:", line, value)
                value = prev[name][0]
            game["tags"][name] = (value, line)
            game["data"][name] = []
            current = name
            continue
        if game is None or current is None:
            raise lexer.err("data outside any tag or section:", tok[3], tok[1])
        game["data"][current].append(tok[1:])
    close()
    return games


# ------------------------------------------------------------------------------------------ tables

def _header(value: str, lexer: _Lexer, line: int, table: str) -> list:
    cols = []
    for part in value.split(";"):
        part = part.strip()
        m = _COLUMN.fullmatch(part)
        if not m:
            raise lexer.err(f"cannot read {table} header column:", line, part or value)
        name = m.group(2)
        if name in cols:
            raise lexer.err(f"{table} header names a column twice:", line, name)
        cols.append(name)
    return cols


def _rows(cols, data, lexer, table):
    n = len(cols)
    if len(data) % n:
        rest = data[len(data) - len(data) % n]
        raise lexer.err(f"truncated {table} row (the header has {n} columns):", rest[2], rest[0])
    for k in range(0, len(data), n):
        chunk = data[k:k + n]
        yield dict(zip(cols, (t[0] for t in chunk))), chunk[0][2]


def _blank(v) -> bool:
    return v is None or v.strip() in ("", "-", "?")


def _num(v, what, lexer, line, *, caret=True):
    if _blank(v):
        return None
    t = v.strip()
    if caret and t.startswith("^"):
        t = t[1:]
    x = parse_number(t.rstrip("%"))
    if x is None:
        raise lexer.err(f"cannot read {what}:", line, v)
    return x


def _int(v, what, lexer, line):
    x = _num(v, what, lexer, line, caret=False)
    if x is None:
        return None
    if x.denominator != 1:
        raise lexer.err(f"{what} must be a whole number:", line, v)
    return int(x)


def _pair_id(v, what, lexer, line):
    if _blank(v):
        raise lexer.err(f"missing {what}:", line, v)
    t = v.strip()
    if len(t) > 20:
        raise lexer.err(f"{what} too long:", line, t)
    return t


def _names(v) -> tuple:
    if _blank(v):
        return ()
    return tuple(x.strip() for x in v.split(";") if x.strip())


_CONTRACT_DECL = re.compile(r"([1-7](?:NT|[CDHSN])(?:XX|X|\*\*|\*)?)([NESW])", re.IGNORECASE)


def _score_row(row, line, lexer, board_no):
    loc = {"file": lexer.name, "line": line}
    ns = _pair_id(row.get("PairId_NS"), "PairId_NS", lexer, line)
    ew = _pair_id(row.get("PairId_EW"), "PairId_EW", lexer, line)
    contract = row.get("Contract")
    declarer = row.get("Declarer")
    contract = None if _blank(contract) else contract.strip()
    if contract and _blank(declarer):
        m = _CONTRACT_DECL.fullmatch(contract)
        if m:
            contract, declarer = m.group(1), m.group(2)
    if contract is not None:
        contract = normalize_contract(contract, **loc)
    declarer = None if _blank(declarer) else normalize_seat(declarer, **loc)
    tricks = None
    res = row.get("Result")
    if not _blank(res):
        t = res.strip()
        if t == "=" or t[0] in "+-" and len(t) > 1:
            if contract is None or contract == "PASS":
                raise lexer.err("a result relative to the contract needs a contract:", line, t)
            rel = 0 if t == "=" else _int(t, "result", lexer, line)
            tricks = xlbridge.Contract.parse(contract).level + 6 + rel
        else:
            tricks = _int(t, "result (tricks taken)", lexer, line)
        if tricks is not None and not 0 <= tricks <= 13:
            raise lexer.err("tricks must be 0-13:", line, t)
    score = None
    sns, sew = row.get("Score_NS"), row.get("Score_EW")
    for text, sign in ((sns, 1), (sew, -1)):
        if _blank(text):
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
        v = _int(t, "score", lexer, line)
        if v % 10:
            raise lexer.err("impossible score (not a multiple of 10):", line, t)
        if score is not None and score != sign * v:
            raise lexer.err("Score_NS and Score_EW disagree:", line, f"{sns} {sew}")
        score = sign * v
    pct_ns = _num(row.get("Percentage_NS"), "Percentage_NS", lexer, line)
    pct_ew = _num(row.get("Percentage_EW"), "Percentage_EW", lexer, line)
    if score is None and contract is None:
        p = [row.get("Percentage_NS"), row.get("Percentage_EW")]
        if any(not _blank(x) and x.strip().startswith("^") for x in p):
            a = pct_ns if pct_ns is not None else 100 - pct_ew
            b = pct_ew if pct_ew is not None else 100 - pct_ns
            try:
                score = xlbridge.Artificial(a, b)
            except xlbridge.XlbridgeError:
                raise lexer.err("artificial percentages must be 0-100:", line, f"{a}/{b}") from None
        elif all(_blank(row.get(c)) for c in ("Contract", "Score_NS", "Score_EW")) and not any(
                (row.get(c) or "").strip() == "?" for c in ("Contract", "Score_NS", "Score_EW")):
            score = xlbridge.NOT_PLAYED
    lead = row.get("Lead")
    lead = None if _blank(lead) else normalize_lead(lead, **loc)
    r = Result(ns, ew, contract, declarer, tricks, score, lead,
               _num(row.get("MP_NS"), "MP_NS", lexer, line), _num(row.get("MP_EW"), "MP_EW", lexer, line),
               pct_ns, pct_ew,
               _num(row.get("IMP_NS"), "IMP_NS", lexer, line), _num(row.get("IMP_EW"), "IMP_EW", lexer, line),
               _int(row.get("Table"), "Table", lexer, line), _int(row.get("Round"), "Round", lexer, line))
    return r, _names(row.get("Names_NS")), _names(row.get("Names_EW"))


def _date(v):
    m = re.fullmatch(r"\s*(\d{4})[.\-/](\d{2})[.\-/](\d{2})\s*", v or "")
    if not m:
        return None
    try:
        return _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


# ------------------------------------------------------------------------------------------ reader

def read_pbn(source, *, name: str | None = None) -> Event:
    """Read a PBN 2.1 file (a path, bytes, or text with newlines) into an :class:`Event`.

    Every traveller row is checked: the score must be what the contract, declarer and tricks
    give at the board's vulnerability (or, without them, a legal score), no row may repeat,
    and no pair may play a board twice.  Any problem raises one :class:`FormatError` naming
    the file, the line and the value.

    >>> read_pbn(b"[Board \\"1\\"]\\n[ScoreTable \\"PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS\\"]\\n1 2 4S N 10 410\\n")
    Traceback (most recent call last):
    ...
    xlbridge.formats.errors.FormatError: input, line 3: score does not match 4S by N taking 10 tricks, vulnerability None (that scores N-S 420): 410
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
    lexer = _Lexer(text, name)
    games = _games(lexer)
    if not games:
        raise FormatError("no PBN tags found (not a PBN file?)", file=name)
    ev = {"Event": None, "Site": None, "Date": None, "Scoring": None}
    boards, board_locs = [], []
    totals = None
    names_seen = {}
    seen_boards = {}
    for g in games:
        tags = g["tags"]
        for k in ev:
            if ev[k] is None and k in tags and tags[k][0].strip() not in ("", "?", "#"):
                ev[k] = tags[k][0].strip()
        if "TotalScoreTable" in tags:
            if totals is not None:
                raise lexer.err("a second TotalScoreTable:", tags["TotalScoreTable"][1], tags["TotalScoreTable"][0])
            totals = (tags["TotalScoreTable"], g["data"]["TotalScoreTable"])
        if "Board" not in tags:
            if "ScoreTable" in tags:
                raise lexer.err("a ScoreTable without a Board tag:", tags["ScoreTable"][1], tags["ScoreTable"][0])
            continue
        bval, bline = tags["Board"]
        bno = _int(bval, "board number", lexer, bline)
        if bno is None or bno < 1:
            raise lexer.err("board number must be 1 or more:", bline, bval)
        if "ScoreTable" not in tags:
            if bno in seen_boards:
                continue  # another game (e.g. a played deal) of a board already read
        elif bno in seen_boards and seen_boards[bno] is not None:
            raise lexer.err("a second ScoreTable for board", tags["ScoreTable"][1], bno)
        loc = {"file": name, "line": bline}
        dealer = tags.get("Dealer", ("", 0))
        dealer = normalize_seat(dealer[0], file=name, line=dealer[1]) if not _blank(dealer[0]) else \
            "NESW"[(bno - 1) % 4]
        vul = tags.get("Vulnerable", ("", 0))
        try:
            vul = xlbridge.vulnerability(vul[0] if not _blank(vul[0]) else bno).name
        except xlbridge.XlbridgeError:
            raise lexer.err("cannot read vulnerability:", vul[1], vul[0]) from None
        deal = tags.get("Deal", ("", 0))
        deal = normalize_deal(deal[0], file=name, line=deal[1]) if not _blank(deal[0]) else None
        rows, locs = [], []
        if "ScoreTable" in tags:
            hval, hline = tags["ScoreTable"]
            cols = _header(hval, lexer, hline, "ScoreTable")
            if "PairId_NS" not in cols or "PairId_EW" not in cols:
                raise lexer.err("ScoreTable header needs PairId_NS and PairId_EW columns:", hline, hval)
            if not ({"Score_NS", "Score_EW", "Contract"} & set(cols)):
                raise lexer.err("ScoreTable header has no Contract or Score column:", hline, hval)
            for row, line in _rows(cols, g["data"]["ScoreTable"], lexer, "ScoreTable"):
                r, nn, ne = _score_row(row, line, lexer, bno)
                rows.append(check_result(r, vul, {"file": name, "line": line}))
                locs.append({"file": name, "line": line})
                for num, side, nm in ((r.ns, "NS", nn), (r.ew, "EW", ne)):
                    if nm:
                        names_seen.setdefault((side, num), nm)
                if len(rows) > LIMITS["rows"]:
                    raise lexer.err(f"too many rows on board {bno} (limit {LIMITS['rows']})", line)
        seen_boards[bno] = True if "ScoreTable" in tags else None
        if bno in [b.number for b in boards]:
            i = [b.number for b in boards].index(bno)
            boards[i] = Board(bno, dealer, vul, deal or boards[i].deal, tuple(rows))
            board_locs[i] = locs
        else:
            boards.append(Board(bno, dealer, vul, deal, tuple(rows)))
            board_locs.append(locs)
        if len(boards) > LIMITS["boards"]:
            raise FormatError(f"too many boards (limit {LIMITS['boards']})", **loc)
    kind = PAIRS
    participants = {}
    movement = None
    if totals is not None:
        (hval, hline), tdata = totals
        cols = _header(hval, lexer, hline, "TotalScoreTable")
        id_col = "TeamId" if "TeamId" in cols else "PairId"
        if id_col not in cols:
            raise lexer.err("TotalScoreTable header needs a PairId or TeamId column:", hline, hval)
        kind = TEAMS if id_col == "TeamId" else PAIRS
        trows = list(_rows(cols, tdata, lexer, "TotalScoreTable"))
        # a Direction column (user-defined, section 5.2) with NS/EW values makes a Mitchell
        movement = MITCHELL if any(not _blank(r.get("Direction")) for r, _ in trows) else HOWELL
        for row, line in trows:
            num = _pair_id(row.get(id_col), id_col, lexer, line)
            d = None
            if movement == MITCHELL:
                d = (row.get("Direction") or "").strip().upper().replace("-", "").replace("/", "")
                if d not in ("NS", "EW"):
                    raise lexer.err("Direction must be NS or EW:", line, row.get("Direction"))
            total = None
            for c in ("TotalMP", "TotalIMP", "TotalScore"):
                total = _num(row.get(c), c, lexer, line)
                if total is not None:
                    break
            p = Participant(num, d, _names(row.get("Names")),
                            None if _blank(row.get("TeamName")) else row["TeamName"].strip(),
                            total, None, _num(row.get("TotalPercentage"), "TotalPercentage", lexer, line),
                            _int(row.get("Rank"), "Rank", lexer, line), False,
                            _int(row.get("NrBoards"), "NrBoards", lexer, line))
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
            for side, num in (("NS", r.ns), ("EW", r.ew)):
                key = (side if mitchell else None, num)
                if key not in participants:
                    nm = names_seen.get((side, num), ()) if mitchell else (
                        names_seen.get(("NS", num)) or names_seen.get(("EW", num)) or ())
                    participants[key] = Participant(num, key[0], nm)
    parts = sorted(participants.values(), key=lambda p: (p.direction or "", natural_key(p.number)))
    parts = mark_ties(parts)
    scoring = "IMP" if kind == TEAMS else "MP"
    if ev["Scoring"]:
        scoring = _SCORINGS.get(ev["Scoring"].split(";")[0].strip().upper(), scoring)
    return Event(ev["Event"], _date(ev["Date"]), ev["Site"], kind, scoring, movement, tuple(parts), tuple(boards))




# ------------------------------------------------------------------------------------------ writer



def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _check_text(s, what):
    if s is None:
        return
    if any(c in s for c in "\r\n\x00"):
        raise FormatError(f"{what} cannot contain a line break:", value=s)


def _table(tag, columns, rows) -> list:
    """Lines of a PBN table in export format: widths from the data, numbers right-aligned."""
    widths = [max([1] + [len(r[i]) for r in rows]) for i, c in enumerate(columns)]
    head = ";".join(f"{c[0]}\\{w}{c[1]}" for c, w in zip(columns, widths))
    out = [f'[{tag} "{head}"]']  # column names and widths need no escaping (section 5.2)
    for r in rows:
        out.append(" ".join(v.rjust(w) if c[1] == "R" else v.ljust(w)
                            for v, c, w in zip(r, columns, widths)).rstrip())
    return out


def write_pbn(event: Event) -> bytes:
    """PBN 2.1 export-format bytes of ``event``: one game per board with its ``ScoreTable``, and
    a ``TotalScoreTable`` (with a ``Direction`` column in a Mitchell) in the last game.

    ASCII when every character is ASCII, otherwise UTF-8 with a byte-order mark.  Names may not
    contain ``;`` (the PBN name separator) or line breaks.
    """
    mitchell = event.movement == MITCHELL
    names = {}
    for p in event.participants:
        for n in p.names:
            _check_text(n, "a player name")
            if ";" in n:
                raise FormatError("a player name cannot contain ';' in PBN:", value=n)
        _check_text(p.name, "a team name")
        names[p.key] = p.names
    for t, what in ((event.name, "the event name"), (event.site, "the site")):
        _check_text(t, what)
    has = lambda attr: any(getattr(r, attr) is not None for b in event.boards for r in b.results)  # noqa: E731
    cols = [("PairId_NS", "R"), ("PairId_EW", "R"), ("Contract", "L"), ("Declarer", "L"), ("Result", "R")]
    if has("lead"):
        cols.append(("Lead", "L"))
    cols += [("Score_NS", "R"), ("Score_EW", "R"), ("MP_NS", "R"), ("MP_EW", "R"), ("Percentage_NS", "R"),
             ("Percentage_EW", "R")]
    if has("imp_ns") or has("imp_ew"):
        cols += [("IMP_NS", "R"), ("IMP_EW", "R")]
    if has("table"):
        cols.append(("Table", "R"))
    if has("round"):
        cols.append(("Round", "R"))
    date = event.date.strftime("%Y.%m.%d") if event.date else "????.??.??"
    scoring = _PBN_SCORING.get(event.scoring, "MP")
    lines = ["% PBN 2.1", "% EXPORT", "%Creator: xlbridge"]
    boards = list(event.boards) or [None]
    for k, b in enumerate(boards):
        lines.append("")
        tags = [("Event", event.name or ""), ("Site", event.site or ""), ("Date", date)]
        if b is not None:
            tags += [("Board", str(b.number)), ("West", ""), ("North", ""), ("East", ""), ("South", ""),
                     ("Dealer", b.dealer or "NESW"[(b.number - 1) % 4]),
                     ("Vulnerable", b.vulnerable or xlbridge.vulnerability(b.number).name),
                     ("Deal", b.deal or ""), ("Scoring", scoring), ("Declarer", "?"), ("Contract", "?"),
                     ("Result", "?")]
        else:
            tags.append(("Scoring", scoring))
        lines += [f"[{t} {_quote(v)}]" for t, v in tags]
        if b is not None and b.results:
            rows = []
            for r in b.results:
                rows.append(_score_cells(r, cols))
            lines += _table("ScoreTable", cols, rows)
        if k == len(boards) - 1 and event.participants:
            lines += _total_table(event, mitchell)
    lines.append("")
    text = "\r\n".join(lines)
    if text.isascii():
        return text.encode("ascii")
    return b"\xef\xbb\xbf" + text.encode("utf-8")


def _score_cells(r: Result, cols) -> list:
    art = isinstance(r.score, xlbridge.Artificial)
    v = {"PairId_NS": r.ns, "PairId_EW": r.ew, "Contract": r.contract or "-",
         "Declarer": r.declarer or "-", "Result": "-" if r.tricks is None else str(r.tricks),
         "Lead": r.lead or "-", "Score_NS": "-", "Score_EW": "-",
         "MP_NS": format_number(r.mp_ns), "MP_EW": format_number(r.mp_ew), "Percentage_NS": format_number(r.pct_ns),
         "Percentage_EW": format_number(r.pct_ew), "IMP_NS": format_number(r.imp_ns), "IMP_EW": format_number(r.imp_ew),
         "Table": "-" if r.table is None else str(r.table), "Round": "-" if r.round is None else str(r.round)}
    if r.contract == "PASS":
        v["Contract"] = "Pass"
    if isinstance(r.score, int):
        if r.score >= 0:
            v["Score_NS"] = str(r.score)
        else:
            v["Score_EW"] = str(-r.score)
    elif art:
        v["Score_NS"] = "^" + str(r.score)
        for c in ("MP_NS", "MP_EW", "Percentage_NS", "Percentage_EW", "IMP_NS", "IMP_EW"):
            if v[c] != "-":
                v[c] = "^" + v[c]
    for c in ("PairId_NS", "PairId_EW"):
        if not re.fullmatch(r"[^\s\"\[\]{};%]+", v[c]) or v[c] in ("-", "?"):
            raise FormatError("a pair number cannot be written to PBN:", value=v[c])
    return [v[c[0]] for c in cols]


def _total_table(event: Event, mitchell: bool) -> list:
    teams = event.kind == TEAMS
    cols = [("Rank", "R"), ("TeamId" if teams else "PairId", "R")]
    if mitchell:
        cols.append(("Direction", "L"))
    if teams:
        cols.append(("TeamName", "L"))
    cols += [("TotalIMP" if teams else "TotalMP", "R"), ("TotalPercentage", "R"), ("NrBoards", "R"),
             ("Names", "L")]
    order = sorted(event.participants, key=lambda p: (p.direction or "", p.place is None, p.place or 0,
                                                      natural_key(p.number)))
    rows = []
    for p in order:
        v = {"Rank": "-" if p.place is None else str(p.place), "PairId": p.number, "TeamId": p.number,
             "Direction": p.direction or "-", "TeamName": _quote(p.name or ""),
             "TotalMP": format_number(p.total), "TotalIMP": format_number(p.total), "TotalPercentage": format_number(p.percentage),
             "NrBoards": "-" if p.boards is None else str(p.boards), "Names": _quote(";".join(p.names))}
        rows.append([v[c[0]] for c in cols])
    return _table("TotalScoreTable", cols, rows)
