"""PBN 2.1 text: bytes to text, the tokenizer, games (tag pairs and their data) and tables.

The part of the PBN reader that knows the notation but not bridge (:mod:`xlbridge.formats.pbn`
reads the games into an event):

- section 2.2 character set: :func:`decode_pbn` (UTF-8 after a byte-order mark or when the bytes
  are valid multi-byte UTF-8, else ISO 8859-1);
- sections 2.4 and 3.8: :class:`Lexer` skips ``%`` lines (kept as directives), ``;`` comments and
  ``{...}`` commentary, and reads tag pairs ``[Name "value"]`` and strings;
- section 4.8: :func:`split_games` resolves a tag value ``#`` to the previous game's;
- section 5.2 tables: :func:`table_header` reads the column names, :func:`table_rows` the rows,
  and :func:`read_num`, :func:`read_int`, :func:`pair_id`, :func:`player_names` the cells (``?``
  and ``-`` are blank).

>>> lexer = Lexer('[Board "1"]\\n[ScoreTable "PairId_NS;PairId_EW"]\\n1 2\\n', "club.pbn")
>>> game = split_games(lexer)[0]
>>> cols = table_header(game["tags"]["ScoreTable"][0], lexer, 2, "ScoreTable")
>>> list(table_rows(cols, game["data"]["ScoreTable"], lexer, "ScoreTable"))
[({'PairId_NS': '1', 'PairId_EW': '2'}, 3)]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any, TypeAlias, TypedDict

from ..core.text import INVISIBLE_CHARACTERS, REMOVED_CHARACTERS, SPACE_CHARACTERS, clean_text
from .errors import LIMITS, FormatError
from .model import parse_number

__all__ = ["Token", "Cell", "Game", "decode_pbn", "Lexer", "split_games", "iter_games", "table_header", "table_rows", "blank", "read_num", "read_int",
           "pair_id", "player_names"]

#: A token: ``("TAG", name, value, line)``, ``("DATA", text, quoted, line)`` or ``("BLANK", line)``.
Token: TypeAlias = "tuple[Any, ...]"
#: A data token of a game: ``(text, quoted, line)``.
Cell: TypeAlias = "tuple[str, bool, int]"


class Game(TypedDict):
    """One game: its tags ``{name: (value, line)}`` and the data after each ``{tag name: [cell, ...]}``."""

    tags: dict[str, tuple[str, int]]
    data: dict[str, list[Cell]]


_TAG_NAME = re.compile(r"[A-Za-z0-9_]+")
#: A PBN string's body: any character but ``"`` and ``\\``, or ``\\`` before any character; only
#: ``\\"`` and ``\\\\`` are escapes (section 3.1), another backslash stands for itself.
_STRING = r'(?:[^"\\]|\\.)*'
#: One token of a line (outside a {comment}): the group matched says which (see :meth:`Lexer.tokens`).
_TOKEN = re.compile(r'\s+|(;)|(\{)|\[([A-Za-z0-9_]+)\s*"(' + _STRING + r')"\s*\]|"(' + _STRING
                    + r')"|([^\s\[\]{};"]+)|(.)', re.S)
_SPECIAL = re.compile(r'[\[\]{};"]')
_ESCAPE = re.compile(r'\\(["\\])')


def _unescape(body: str) -> str:
    r"""A PBN string's text from its body (:data:`_STRING`): ``\"`` and ``\\`` undone, nothing else.

    >>> print(_unescape(r'say \"hi\" a\\b \x'))
    say "hi" a\b \x
    """
    return _ESCAPE.sub(r"\1", body) if "\\" in body else body


_COLUMN = re.compile(r"([+-]?)([A-Za-z][A-Za-z0-9_]*)(?:\\(\d{1,3})([LR]?))?")


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


class Lexer:
    """Tokens of a PBN text: ("TAG", name, value, line), ("DATA", text, quoted, line), ("BLANK", line)."""

    def __init__(self, text: str, name: str) -> None:
        self.text, self.name = text, name
        self.directives: list[str] = []
        self._last: Token = ()

    def err(self, message: str, line: int | None, value: object = None) -> FormatError:
        """The error at ``line``, showing ``value``; before the file's first tag (it has not shown itself to be
        a PBN file: a password file, say) it is ``not a PBN file: ...`` and shows nothing of the file."""
        if not self._last:
            return FormatError(f"not a PBN file: {message.rstrip(': ')}", file=self.name, line=line)
        return FormatError(message, file=self.name, line=line, value=value)

    def not_a_tag(self, line: int) -> FormatError:
        """Data where the file's first tag should be: the file is not PBN, and nothing of it is shown."""
        return FormatError("not a PBN file: its first line that is not a comment is not a tag ([Name \"value\"])",
                           file=self.name, line=line)

    def lines(self) -> Iterator[str]:
        """The text's lines, one at a time (never a list of them all), each checked against the line limit."""
        text, start, end = self.text, 0, len(self.text)
        lineno = 0
        while start <= end:
            stop = text.find("\n", start, start + LIMITS["line"] + 1)
            lineno += 1
            if lineno > LIMITS["lines"]:
                raise self.err(f"more than {LIMITS['lines']:,} lines, the limit", lineno)
            if stop < 0:
                stop = end if end - start <= LIMITS["line"] else -1
            if stop < 0:
                raise self.err(f"line too long (over {LIMITS['line']:,} characters):", lineno,
                               text[start:start + LIMITS["line"] + 1])
            yield text[start:stop]
            start = stop + 1

    def tokens(self) -> Iterator[Token]:
        """The tokens, each line's text first taken by the rule of :func:`xlbridge.core.text.clean_text`
        (control, bidi and zero-width characters removed and noted at the line; tabs made spaces: outside a
        string a tab already separates items as a space does, so a line without a string is left as it is)."""
        in_brace = False
        dirty = INVISIBLE_CHARACTERS.search(self.text) is not None
        for lineno, line in enumerate(self.lines(), start=1):
            line = line.rstrip("\r")
            if "\x00" in line:
                raise self.err("not a PBN file (binary data)", lineno)
            if dirty and (REMOVED_CHARACTERS.search(line) is not None or (
                    '"' in line and SPACE_CHARACTERS.search(line) is not None)):  # (a tab outside a string: a space)
                line = clean_text(line, f"line {lineno}", self.name)
            if not in_brace:
                if line.startswith("%"):
                    if len(self.directives) < 100:  # (the first ones say the version and format; no more kept)
                        self.directives.append(line[1:].strip())
                    continue
                if not line.strip():
                    yield ("BLANK", lineno)
                    continue
            if not in_brace and _SPECIAL.search(line) is None:  # data items only: split at white space
                for item in line.split():
                    yield ("DATA", item, False, lineno)
                continue
            i, n = 0, len(line)
            while i < n:
                if in_brace:
                    j = line.find("}", i)
                    if j < 0:
                        break
                    in_brace, i = False, j + 1
                    continue
                m = _TOKEN.match(line, i)  # one step per token (the cases below say what each group is)
                if m is None:  # cannot happen: the last alternative takes any one character
                    break
                kind = m.lastindex
                if kind is None:  # white space
                    i = m.end()
                elif kind == 1:  # ';': the rest of the line is a comment
                    break
                elif kind == 2:
                    in_brace, i = True, m.end()
                elif kind == 4:  # [Name "value"] in one piece (groups 3 and 4)
                    self._last = ("TAG", m.group(3), _unescape(m.group(4)), lineno)
                    i = m.end()
                    yield self._last
                elif kind == 5:  # "string"
                    yield ("DATA", _unescape(m.group(5)), True, lineno)
                    i = m.end()
                elif kind == 6:  # a data item up to white space or one of []{};"
                    yield ("DATA", m.group(6), False, lineno)
                    i = m.end()
                else:  # '[' not followed by a whole tag, an unterminated '"', or a stray ']' or '}': as before
                    c = line[i]
                    if c == "[":
                        i = self._tag(line, i, lineno)
                        yield self._last
                    elif c == '"':
                        s, i = self._string(line, i, lineno)
                        yield ("DATA", s, True, lineno)
                    else:
                        raise self.err("unexpected character:", lineno, line[i:])
        if in_brace:
            raise self.err("unterminated {comment} at the end of the file", None)

    def _string(self, line: str, i: int, lineno: int) -> tuple[str, int]:
        out: list[str] = []
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

    def _tag(self, line: str, i: int, lineno: int) -> int:
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


def split_games(lexer: Lexer) -> list[Game]:
    """Games as dicts: tags {name: (value, line)}, data {tag name: [(text, quoted, line)]}."""
    return list(iter_games(lexer))


def iter_games(lexer: Lexer) -> Iterator[Game]:
    """The games of the text one at a time (only the game being read is held), each checked while it
    is read: at most ``LIMITS["games"]`` games, ``LIMITS["tags"]`` tags and ``LIMITS["cells"]`` data
    items in a game (a refusal names the line where the limit is passed)."""
    done: list[Game] = []
    game: Game | None = None
    current: str | None = None
    prev: dict[str, tuple[str, int]] = {}
    count = cells = 0

    def close() -> None:
        nonlocal game, prev
        if game and game["tags"]:
            done.append(game)
            prev = {k: v for k, v in game["tags"].items()}
        game = None

    for tok in lexer.tokens():
        if done:
            yield done.pop()
        if tok[0] == "BLANK":
            close()
            continue
        if tok[0] == "TAG":
            _, name, value, line = tok
            if game is not None and name in game["tags"]:
                close()
                if done:
                    yield done.pop()
            if game is None:
                count += 1
                if count > LIMITS["games"]:
                    raise lexer.err(f"more than {LIMITS['games']:,} games (groups of tags), the limit", line)
                game = {"tags": {}, "data": {}}
                cells = 0
            elif len(game["tags"]) >= LIMITS["tags"]:
                raise lexer.err(f"more than {LIMITS['tags']:,} tags in one game, the limit:", line, name)
            if value == "#":  # section 4.8: inherit the previous game's value
                if name not in prev:
                    raise lexer.err(f"tag {name} is '#' but no earlier game has it:", line, value)
                value = prev[name][0]
            game["tags"][name] = (value, line)
            game["data"][name] = []
            current = name
            continue
        if game is None or current is None:
            if not count:  # (before the first tag: not a PBN file, and nothing of it is shown)
                raise lexer.not_a_tag(tok[3])
            raise lexer.err("data outside any tag or section:", tok[3], tok[1])
        cells += 1
        if cells > LIMITS["cells"]:
            raise lexer.err(f"more than {LIMITS['cells']:,} data items in one game, the limit:", tok[3], tok[1])
        game["data"][current].append(tok[1:])
    close()
    yield from done


# ------------------------------------------------------------------------------------------ tables

def table_header(value: str, lexer: Lexer, line: int, table: str) -> list[str]:
    """The column names of a table's header (section 5.2: ``[+-]Name[\\width[LR]]``, ``;``-separated)."""
    cols: list[str] = []
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


def table_rows(cols: Sequence[str], data: Sequence[Cell], lexer: Lexer, table: str,
               ) -> Iterator[tuple[dict[str, str], int]]:
    """``({column: text}, line)`` for each row of a table's data (a row may span lines)."""
    n = len(cols)
    if len(data) % n:
        rest = data[len(data) - len(data) % n]
        raise lexer.err(f"truncated {table} row (the header has {n} columns):", rest[2], rest[0])
    for k in range(0, len(data), n):
        chunk = data[k:k + n]
        yield dict(zip(cols, (t[0] for t in chunk))), chunk[0][2]


def blank(v: str | None) -> bool:
    """True for a missing cell or one holding ``-`` (irrelevant) or ``?`` (unknown)."""
    return v is None or v.strip() in ("", "-", "?")


def read_num(v: str | None, what: str, lexer: Lexer, line: int, *, caret: bool = True) -> Fraction | None:
    """An exact number (``%`` and, with ``caret``, a leading ``^`` ignored), None when blank."""
    if v is None or blank(v):
        return None
    t = v.strip()
    if caret and t.startswith("^"):
        t = t[1:]
    x = parse_number(t.rstrip("%"))
    if x is None:
        raise lexer.err(f"cannot read {what}:", line, v)
    return x


def read_int(v: str | None, what: str, lexer: Lexer, line: int) -> int | None:
    """A whole number, None when blank."""
    x = read_num(v, what, lexer, line, caret=False)
    if x is None:
        return None
    if x.denominator != 1:
        raise lexer.err(f"{what} must be a whole number:", line, v)
    return int(x)


def pair_id(v: str | None, what: str, lexer: Lexer, line: int) -> str:
    """A pair or team number (at most 20 characters); blank is an error."""
    if v is None or blank(v):
        raise lexer.err(f"missing {what}:", line, v)
    t = v.strip()
    if len(t) > 20:
        raise lexer.err(f"{what} too long:", line, t)
    return t


def player_names(v: str | None) -> tuple[str, ...]:
    """Player names, ``;``-separated."""
    if v is None or blank(v):
        return ()
    return tuple(x.strip() for x in v.split(";") if x.strip())
