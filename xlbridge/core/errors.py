"""The exceptions xlbridge raises: small ``ValueError`` subclasses whose messages say what and where.

One hierarchy for every layer::

    XlbridgeError (ValueError)
    +-- InputError                  a value or range is malformed or out of range
    |   +-- ContractError           a contract, declarer, trick count or vulnerability
    |   +-- ImpossibleScoreError    a score no contract and result gives (on this board)
    |   +-- WeightError             weights of a weighted score (Law 12C1(c))
    |   +-- LimitError              more work or a bigger value than a documented limit
    |       +-- TooManyCombinationsError
    +-- WorkbookError               a workbook file is refused (batch layer)

Every error carries an optional ``where`` (for example ``"board 3, row 7"`` or
``"Travellers!G12"``) that is put in front of the message, so a scorer reading it knows which
cell to fix. Messages are one line: a value that is shown is clipped by :func:`shown`, and a
message never names a Python parameter (the Excel layer shows these texts in cells).

>>> err = ImpossibleScoreError("impossible score: 410 (no contract scores that)", where="board 1, row 4")
>>> str(err)
'board 1, row 4: impossible score: 410 (no contract scores that)'
>>> isinstance(err, InputError) and isinstance(err, ValueError)
True
>>> shown("1e" + "9" * 999_998)
"'1e999999999999999999…' (1,000,000 characters)"
"""

from __future__ import annotations

import re

from .text import REMOVED_CHARACTERS

__all__ = [
    "XlbridgeError",
    "InputError",
    "ContractError",
    "ImpossibleScoreError",
    "WeightError",
    "ExpectedResultsError",
    "LimitError",
    "TooManyCombinationsError",
    "WorkbookError",
    "WorkbookLimitError",
    "location",
    "shown",
    "SHOWN_CHARACTERS",
    "CONTROL_CHARACTERS",
]

#: What a message never shows as it is (one line, nothing a terminal obeys): the control characters (C0, DEL
#: and C1), the Unicode line and paragraph separators, the lone surrogates by which Python stands for a
#: file name's bytes that are not UTF-8 (``os.fsdecode``), and the bidi and zero-width characters every reader
#: removes from a file's text (``xlbridge.core.text.REMOVED_CHARACTERS``: a file named ``evil\u202excod.xlsx``
#: would show reversed); the command line escapes them, a report line turns them into spaces
#: (``xlbridge.batch.guard.limits.one_line``).
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]|" + REMOVED_CHARACTERS.pattern)

#: The longest ``repr`` of a value shown whole in a message; longer ones are clipped.
SHOWN_CHARACTERS = 40
_CLIP = 20


def clip(value: object, width: int = SHOWN_CHARACTERS) -> str:
    """The one way a message shows a value read from a file or a command line: ``repr`` of it, its
    first ``width`` characters and its length when longer, so a message stays one short line whatever
    the file holds. Text is quoted (bytes read as Latin-1); other values as their ``repr``.

    >>> clip("Travellers"), clip(b"4S"), clip(410)
    ("'Travellers'", "'4S'", '410')
    >>> clip("1e" + "9" * 999_998, width=6)
    "'1e9999…' (1,000,000 characters)"
    >>> clip("two\\nlines")
    "'two\\\\nlines'"
    """
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if not isinstance(value, str):
        text = repr(value)
        return text if len(text) <= width else f"{text[:width]}… ({len(text):,} characters)"
    if len(value) <= width:
        return repr(value)
    head = repr(value[:width])
    return f"{head[:-1]}…{head[-1]} ({len(value):,} characters)"


def shown(value: object) -> str:
    """``repr(value)`` for a message, clipped when long, always one line.

    A text longer than :data:`SHOWN_CHARACTERS` shows its first 20 characters, an ellipsis and
    its length, so a message never echoes a megabyte argument.

    >>> shown(410), shown("NP"), shown(2.5), shown(1000000.0)
    ('410', "'NP'", '2.5', '1000000')
    >>> shown("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxx…' (100 characters)"
    >>> shown(10 ** 100)
    '10000000000000000000… (101 characters)'
    >>> import numpy as np
    >>> shown(np.str_("abc")), shown(np.float64(2.5))      # a numpy scalar as the value it holds
    ("'abc'", '2.5')
    """
    if getattr(value, "ndim", None) == 0 and hasattr(value, "dtype") and hasattr(value, "item"):
        value = value.item()  # a numpy scalar: shown as its value, not as np.str_('abc')
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)  # a whole number from a cell (Excel's numbers are floats) shown as Excel shows it
    if isinstance(value, str):
        return repr(value) if len(value) + 2 <= SHOWN_CHARACTERS else clip(value, _CLIP)
    text = repr(value)
    return text if len(text) <= SHOWN_CHARACTERS else clip(value, _CLIP)


def _label(value: object) -> str:
    """A board, row or sheet label as written in a location (text unquoted, but clipped)."""
    if isinstance(value, str):
        return value if len(value) <= SHOWN_CHARACTERS else shown(value)
    return shown(value)


def location(*, sheet: object = None, cell: object = None, board: object = None, row: object = None,
             column: object = None, item: object = None) -> str | None:
    """Format a location for an error message from the parts that are given.

    Parts that are ``None`` are left out (0 is a valid value).

    >>> location(board=3, row=7)
    'board 3, row 7'
    >>> location(sheet="Travellers", cell="G12")
    'Travellers!G12'
    >>> location() is None
    True
    """
    parts = [f"{_label(sheet)}!{_label(cell)}"] if sheet is not None and cell is not None else []
    named = (("sheet", None if parts else sheet), ("cell", None if parts else cell), ("board", board), ("row", row),
             ("column", column), ("", item))
    parts += [f"{word} {_label(v)}".strip() for word, v in named if v is not None]
    return ", ".join(parts) if parts else None


def _one_line(text: object) -> str:
    return " ".join(str(text).splitlines())


class XlbridgeError(ValueError):
    """Base class of every error xlbridge raises on bad input."""

    def __init__(self, message: str, *, where: str | None = None):
        self.message = _one_line(message)
        self.where = None if where is None else _one_line(where)
        super().__init__(f"{self.where}: {self.message}" if self.where else self.message)

    def at(self, where: str) -> XlbridgeError:
        """Return a copy of this error located at ``where`` (outer location first).

        >>> InputError("not a number", where="row 2").at("board 1")
        InputError('board 1, row 2: not a number')
        """
        inner = f"{where}, {self.where}" if self.where else where
        return type(self)(self.message, where=inner)


class InputError(XlbridgeError):
    """An input value or range is malformed or out of range (text where a number belongs, wrong size, ...)."""


class ContractError(InputError):
    """A contract, declarer, trick count or vulnerability cannot be read."""


class ImpossibleScoreError(InputError):
    """A score that no contract and result can produce (on this board)."""


class WeightError(InputError):
    """Weights of a Law 12C1(c) weighted score are unreadable, negative or do not total 100 %."""


class ExpectedResultsError(InputError):
    """Fewer expected results (Neuberg) than a board has: a parameter's mistake, not a row's."""


class LimitError(InputError):
    """A call would do more work, or read a bigger number, than a documented limit allows."""


class TooManyCombinationsError(LimitError):
    """An exact computation would need more combinations than the documented limit."""


class WorkbookError(XlbridgeError):
    """A workbook file is refused (not a workbook, damaged, protected, hostile)."""


class WorkbookLimitError(WorkbookError, LimitError):
    """A workbook or a run is refused because a documented limit was reached (size, count, memory, time).

    Both a :class:`WorkbookError` (the file is refused) and a :class:`LimitError` (a limit was reached).

    >>> str(WorkbookLimitError("refused: more than 1,000,000 cells, the limit (reached in sheet Travellers)",
    ...                        where="a.xlsx"))
    'a.xlsx: refused: more than 1,000,000 cells, the limit (reached in sheet Travellers)'
    """
