"""The one error the file readers and writers raise, the size limits they enforce, and reading a
source (path, bytes or text) within them (:func:`load_source`; a path must name a regular file:
:func:`check_regular_file`).

A :class:`FormatError` is an :class:`xlbridge.XlbridgeError` (so a ``ValueError``): its text is
one line naming the file, the line (PBN) or element (USEBIO) and the offending value, clipped
when long.  Only the file's base name is ever shown, never a directory.

>>> err = FormatError("cannot read score", file="club.pbn", line=12, value="x" * 100)
>>> str(err)
"club.pbn, line 12: cannot read score 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' (100 characters)"
>>> isinstance(err, ValueError)
True
"""

from __future__ import annotations

import os
import re
from typing import TypeAlias

import xlbridge

from ..core.errors import clip
from ..core.files import open_regular, regular_stat

__all__ = ["FormatError", "LIMITS", "clip", "display_name", "check_regular_file", "load_source", "Source",
           "check_name", "check_players", "check_national_number"]

#: What a reader takes: a path, the file's bytes, or its text (text holds a line break; a path does not).
Source: TypeAlias = "str | os.PathLike[str] | bytes | bytearray | memoryview"

#: Size limits on input (a file beyond one is refused with a :class:`FormatError`):
#:
#: - ``bytes``: largest file read, 20 MB (a club session is a few tens of kB);
#: - ``line``: longest PBN line, 100,000 characters;
#: - ``boards``: most boards in one event, 2,000;
#: - ``rows``: most traveller rows on one board, 1,000;
#: - ``participants``: most pairs or teams, 2,000;
#: - ``depth``: deepest XML element nesting read, 32;
#: - ``results``: most traveller rows of one event, 100,000;
#: - ``name``: longest event name, site, team or player name, 200 characters (every page of a
#:   published site shows the event's name: the bound keeps a site in proportion to its input);
#: - ``players``: most players named for one pair or team, 12 (a team with its reserves; every board a
#:   pair played shows its names: the bound keeps a site in proportion to its input);
#: - ``lines``: most lines of one PBN file, 2,000,000;
#: - ``games``: most PBN games (groups of tags) in one file, 100,000;
#: - ``tags``: most tags in one PBN game, 1,000;
#: - ``cells``: most data items (table cells, ...) after the tags of one PBN game, 200,000;
#: - ``elements``: most XML elements of one USEBIO file, 600,000 (about 40,000 traveller rows);
#: - ``token``: most bytes of a USEBIO file in which no element starts or ends (one tag with its
#:   attributes, one text or comment), 1 MiB (a USEBIO value is a name or a number).
#:
#: Each is checked while the file is read, so a file is refused before the work or memory it asks for
#: is spent.
LIMITS = {"bytes": 20_000_000, "line": 100_000, "boards": 2_000, "rows": 1_000, "participants": 2_000,
          "depth": 32, "results": 100_000, "name": 200, "games": 100_000, "tags": 1_000, "cells": 200_000,
          "elements": 600_000, "lines": 2_000_000, "players": 12,
          "token": 1 << 20}

def display_name(source: object) -> str:
    """The name a message shows for a source: a path's base name, or ``"input"`` for bytes/text.

    >>> display_name("/srv/uploads/tmp123/club.pbn"), display_name(b"...")
    ('club.pbn', 'input')
    """
    if isinstance(source, (str, os.PathLike)) and not (isinstance(source, str) and "\n" in source):
        name = os.path.basename(os.fspath(source))
        return name or "input"
    return "input"


class FormatError(xlbridge.XlbridgeError):
    """A PBN or USEBIO file (or an event to be written) that cannot be read or written.

    ``file``, ``line`` (PBN), ``element`` (USEBIO, e.g. ``"BOARD 3, TRAVELLER_LINE 2, SCORE"``)
    and ``value`` (shown clipped) make the one-line message.
    """

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 element: str | None = None, value: object = None, where: str | None = None) -> None:
        if where is None:
            parts = [p for p in (file, None if line is None else f"line {line}", element) if p]
            where = ", ".join(parts) or None
        if value is not None:
            message = f"{message} {clip(value)}"
        super().__init__(message, where=where)


def check_name(text: str | None, what: str, *, file: str | None = None, line: int | None = None,
               element: str | None = None, where: str | None = None) -> str | None:
    """``text`` (an event name, site, team or player name) when it is at most ``LIMITS["name"]``
    characters long; longer is refused, saying the limit.

    >>> check_name("Club night", "event name")
    'Club night'
    >>> check_name("x" * 300, "event name", file="club.pbn", line=2)
    Traceback (most recent call last):
    ...
    xlbridge.formats.errors.FormatError: club.pbn, line 2: event name longer than 200 characters (300), the limit: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' (300 characters)
    """
    if text is not None and len(text) > LIMITS["name"]:
        raise FormatError(f"{what} longer than {LIMITS['name']:,} characters ({len(text):,}), the limit:", file=file,
                          line=line, element=element, where=where, value=text)
    return text


def check_players(names: tuple[str, ...], *, file: str | None = None, line: int | None = None,
                  element: str | None = None, where: str | None = None) -> tuple[str, ...]:
    """``names`` (one pair's or team's players) when there are at most ``LIMITS["players"]`` of them,
    each a name :func:`check_name` accepts; more is refused, saying the limit.

    >>> check_players(("Ann Lee", "Bob Roe"))
    ('Ann Lee', 'Bob Roe')
    >>> check_players(tuple("ABCDEFGHIJKLM"), file="club.pbn", line=9)
    Traceback (most recent call last):
    ...
    xlbridge.formats.errors.FormatError: club.pbn, line 9: more than 12 players named for one pair or team (13), the limit: 'A; B; C; D; E; F; G; H; I; J; K; L; M'
    """
    if len(names) > LIMITS["players"]:
        raise FormatError(f"more than {LIMITS['players']} players named for one pair or team ({len(names):,}), "
                          f"the limit:", file=file, line=line, element=element, where=where, value="; ".join(names))
    for n in names:
        check_name(n, "player name", file=file, line=line, element=element, where=where)
    return names


_NATIONAL_NUMBER = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ./-]{0,19}")


def check_national_number(text: str, *, file: str | None = None, line: int | None = None,
                          element: str | None = None, where: str | None = None) -> str:
    """``text`` when it can be a player's national (federation) number: 1 to 20 letters, digits, spaces,
    ``.``, ``-`` or ``/``, starting with a letter or digit (EBU, ABF, ACBL ``J123456`` ...); ``""`` (unknown)
    passes.  Anything else is refused, naming the place: such a number could not be kept apart from its
    neighbours in a workbook cell (``&``) or a PBN field (``;``).

    >>> check_national_number("0555002"), check_national_number("")
    ('0555002', '')
    >>> check_national_number("44&55", where="club.xlsx, Pairs!D5")
    Traceback (most recent call last):
    ...
    xlbridge.formats.errors.FormatError: club.xlsx, Pairs!D5: not a national number (1 to 20 letters, digits, spaces, '.', '-' or '/'): '44&55'
    """
    if text and not _NATIONAL_NUMBER.fullmatch(text):
        raise FormatError("not a national number (1 to 20 letters, digits, spaces, '.', '-' or '/'):", file=file,
                          line=line, element=element, where=where, value=text)
    return text


def check_regular_file(path: str | os.PathLike[str]) -> os.stat_result:
    """``os.lstat`` of ``path``, refusing anything but a regular file (:func:`xlbridge.core.files.regular_stat`):
    a FIFO, a device or a folder is named for what it is instead of being read, which would wait for a writer
    or never end, and a symbolic link is refused, not followed (give the file itself).

    >>> check_regular_file("/dev/null")
    Traceback (most recent call last):
    ...
    xlbridge.formats.errors.FormatError: null: this is a device, not a regular file
    """
    name = display_name(path)
    try:
        st, kind = regular_stat(path)
    except OSError:
        raise FormatError("cannot open the file", file=name) from None
    if kind is not None:
        raise FormatError(f"this is {kind}, not a regular file", file=name)
    return st


def load_source(source: Source) -> tuple[bytes, str]:
    """Bytes and display name of a path, bytes, or text; refuses files over the size limit."""
    name = display_name(source)
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif isinstance(source, str) and "\n" in source:
        data = source.encode("utf-8")
    elif isinstance(source, (str, os.PathLike)):
        st = check_regular_file(source)
        if st.st_size > LIMITS["bytes"]:
            raise FormatError(f"file too large ({st.st_size:,} bytes; the limit is {LIMITS['bytes']:,})", file=name)
        try:
            fd = open_regular(source, st)
        except OSError:
            raise FormatError("cannot read the file", file=name) from None
        if fd is None:
            raise FormatError("the file changed while it was being opened", file=name)
        try:
            with os.fdopen(fd, "rb") as f:
                data = f.read(LIMITS["bytes"] + 1)
        except OSError:
            raise FormatError("cannot read the file", file=name) from None
    else:
        raise FormatError(f"cannot read {type(source).__name__} as a file (give a path or bytes)")
    if len(data) > LIMITS["bytes"]:
        raise FormatError(f"file too large (over {LIMITS['bytes']:,} bytes)", file=name)
    return data, name
