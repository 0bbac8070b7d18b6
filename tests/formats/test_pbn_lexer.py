"""The PBN lexer's one-regex-per-token scan (``xlbridge.formats.pbntext.Lexer.tokens``) against a plain
character-by-character reading of PBN 2.1 sections 3.1-3.3 written here: tags ``[Name "value"]``,
strings with the escapes ``\\"`` and ``\\\\`` only, ``;`` comments to the end of the line, ``{...}``
comments over lines, data items up to white space or one of ``[]{};"``, each line first taken by the rule of
every reader (``xlbridge.core.text.clean_text``).  Both must give the same tokens, or both refuse (the refusal's
words come from the same helpers)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from xlbridge.core.text import clean_text
from xlbridge.formats.errors import FormatError
from xlbridge.formats.pbntext import Lexer


def _reference(text: str) -> list[tuple]:
    """Tokens of ``text`` read one character at a time (the definition of PBN 2.1 section 3)."""
    out: list[tuple] = []
    in_brace = False
    for lineno, line in enumerate(text.split("\n"), start=1):
        line = clean_text(line.rstrip("\r"))  # (the one rule of every reader: controls removed, tabs made spaces)
        if not in_brace:
            if line.startswith("%"):
                continue
            if not line.strip():
                out.append(("BLANK", lineno))
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
                m = re.compile(r"[A-Za-z0-9_]+").match(line, i + 1)
                if not m:
                    raise ValueError("tag")
                j = m.end()
                while j < n and line[j].isspace():
                    j += 1
                if j >= n or line[j] != '"':
                    raise ValueError("tag")
                value, j = _string(line, j)
                while j < n and line[j].isspace():
                    j += 1
                if j >= n or line[j] != "]":
                    raise ValueError("tag")
                out.append(("TAG", m.group(0), value, lineno))
                i = j + 1
            elif c == '"':
                value, i = _string(line, i)
                out.append(("DATA", value, True, lineno))
            elif c in "]}":
                raise ValueError("character")
            else:
                j = i
                while j < n and not line[j].isspace() and line[j] not in '[]{};"':
                    j += 1
                out.append(("DATA", line[i:j], False, lineno))
                i = j
    if in_brace:
        raise ValueError("brace")
    return out


def _string(line: str, i: int) -> tuple[str, int]:
    out, j = [], i + 1
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
    raise ValueError("string")


def _lexed(text: str) -> list[tuple] | None:
    try:
        return list(Lexer(text, "t.pbn").tokens())
    except FormatError:
        return None


_PIECES = st.sampled_from(['[', ']', '{', '}', ';', '"', '\\', ' ', '\t', '\n', '\r', '%', 'Board', 'A_1', '3NT',
                           '[Event "x"]', '[Deal "N:AK.."]', '"a\\"b"', '"c\\\\"', '"d\\x"', '\u00e9', '\x1c', '#'])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_tokens_are_those_of_the_character_by_character_reading(text):
    try:
        expected = _reference(text)
    except ValueError:
        expected = None
    assert _lexed(text) == expected


def test_escapes_and_comments_by_hand():
    text = '[Event "say \\"hi\\" a\\\\b \\x"] ; rest\n{ a\n comment } 1 "two words" x;y\n'
    assert _lexed(text) == [("TAG", "Event", 'say "hi" a\\b \\x', 1), ("DATA", "1", False, 3),
                            ("DATA", "two words", True, 3), ("DATA", "x", False, 3), ("BLANK", 4)]
