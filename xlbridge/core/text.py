"""The one rule for text read from a file: control characters and invisible look-alikes are removed.

Every reader of xlbridge passes each text it reads from a file through :func:`clean_text`: the PBN reader
(each line), the USEBIO reader (each element's text and attribute, and the controls XML cannot hold, before
parsing) and the workbook readers of ``export`` and ``publish`` (each text cell); ``recalc`` never takes
text out of a book (it writes only values the formulas compute). The rule:

- **removed**: the C0 control characters other than the white-space ones (U+0000-0008, U+000E-001F; the
  bell U+0007, the terminal escape U+001B), DEL and the C1 controls (U+007F-009F, but U+0085), the bidi
  controls (the embeddings and overrides U+202A-202E, the isolates U+2066-2069, the marks U+200E, U+200F and
  U+061C), the zero-width characters (U+200B-200D, U+2060-2064, U+FEFF), the interlinear annotation controls
  (U+FFF9-FFFB) and the non-characters U+FFFE and U+FFFF;
- **made a space**: the white-space controls (tab, line feed, vertical tab, form feed, carriage return,
  U+0085 and the Unicode line and paragraph separators U+2028, U+2029), silently (a reader strips a
  name's ends as before).

A removal is noted (:func:`noting_removed`): the commands say it in one warning line naming the file, how
many characters, which ones and the first place (line, element, or sheet and cell). Nothing else of the text
changes: a name starting with ``=`` stays that text, and is written to a workbook as text
(:func:`xlbridge.formats.sheets.put_value`).

The cost: removing the zero-width joiners (U+200C, U+200D) changes how some scripts (Persian, the Indic
scripts) and emoji sequences render; names of a club's members rarely hold them, and the same rule for every
character keeps one look-alike (``Ann\u200b Lee`` for ``Ann Lee``) from standing for another.

>>> clean_text("C.\\x07Glover"), clean_text("Ann\\tLee"), clean_text("\\u202egnirts"), clean_text("=1+1")
('C.Glover', 'Ann Lee', 'gnirts', '=1+1')
>>> with noting_removed() as removed:
...     _ = clean_text("C.\\x07Glover", "line 5")
...     _ = clean_text("A\\u200bB\\x1b[31m", "line 9")
>>> removed.count, removed.warning()
(3, 'removed 3 control, bidi or zero-width characters (U+0007, U+001B, U+200B) from its text, first at line 5')
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Iterator

__all__ = ["REMOVED_CHARACTERS", "SPACE_CHARACTERS", "INVISIBLE_CHARACTERS", "clean_text", "noting_removed",
           "Removed"]

#: What :func:`clean_text` removes (module docstring: the rule).
REMOVED_CHARACTERS = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u061c\u200b-\u200f\u202a-\u202e"
                                "\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb\ufffe\uffff]")
#: What :func:`clean_text` makes a space.
SPACE_CHARACTERS = re.compile("[\t\n\x0b\x0c\r\x85\u2028\u2029]")
#: Either: a text holding none of these is returned as it is.
INVISIBLE_CHARACTERS = re.compile(f"{REMOVED_CHARACTERS.pattern}|{SPACE_CHARACTERS.pattern}")

#: The distinct characters a warning lists at most.
_LISTED = 6


class Removed:
    """What :func:`clean_text` removed while :func:`noting_removed` was active: ``count`` characters, the
    distinct ones (``chars``, at most a few kept), ``first`` (the place of the first, as the reader named it)
    and ``file`` (the name of its file, where the reader gave it)."""

    def __init__(self) -> None:
        self.count = 0
        self.chars: set[str] = set()
        self.first: str | None = None
        self.file: str | None = None

    def note(self, removed: str, where: str | None, file: str | None = None) -> None:
        self.count += len(removed)
        for c in removed:
            if len(self.chars) >= 4 * _LISTED:
                break
            self.chars.add(c)
        if self.count == len(removed):  # (the first removal)
            self.first, self.file = where, file

    def warning(self) -> str | None:
        """One line saying what was removed (without the file's name, which the caller puts first), or None.

        >>> Removed().warning() is None
        True
        """
        if not self.count:
            return None
        chars = sorted(self.chars)
        listed = ", ".join(f"U+{ord(c):04X}" for c in chars[:_LISTED]) + (", ..." if len(chars) > _LISTED else "")
        word = "character" if self.count == 1 else "characters"
        where = f", first at {self.first}" if self.first else ""
        return f"removed {self.count:,} control, bidi or zero-width {word} ({listed}) from its text{where}"


_CURRENT: contextvars.ContextVar[Removed | None] = contextvars.ContextVar("xlbridge_removed", default=None)


@contextlib.contextmanager
def noting_removed() -> Iterator[Removed]:
    """Note every removal :func:`clean_text` makes inside (in this thread or task) into the :class:`Removed`
    yielded; nested, the inner one notes them."""
    removed = Removed()
    token = _CURRENT.set(removed)
    try:
        yield removed
    finally:
        _CURRENT.reset(token)


def clean_text(text: str, where: str | None = None, file: str | None = None) -> str:
    """``text`` by the rule (module docstring): removed characters removed (noted at ``where``, the place a
    warning names: ``"line 5"``, ``"Pairs!C5"``, in the file named ``file``), white-space controls made spaces.

    >>> clean_text("Renée\\u2028Lee"), clean_text("x\\ufeff\\u2066y\\u2069")
    ('Renée Lee', 'xy')
    """
    if INVISIBLE_CHARACTERS.search(text) is None:
        return text
    removed = "".join(REMOVED_CHARACTERS.findall(text))
    if removed:
        text = REMOVED_CHARACTERS.sub("", text)
        notes = _CURRENT.get()
        if notes is not None:
            notes.note(removed, where, file)
    return SPACE_CHARACTERS.sub(" ", text)
