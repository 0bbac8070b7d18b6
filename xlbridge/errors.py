"""The exceptions xlbridge raises: small ``ValueError`` subclasses whose messages say what and where.

Every error carries an optional ``where`` (for example ``"board 3, row 7"`` or
``"Travellers!G12"``) that is put in front of the message, so a scorer reading it
knows which cell to fix.

>>> err = ImpossibleScoreError("impossible score: 410 (no contract scores that)", where="board 1, row 4")
>>> str(err)
'board 1, row 4: impossible score: 410 (no contract scores that)'
>>> isinstance(err, ValueError)
True
"""

from __future__ import annotations

__all__ = [
    "XlbridgeError",
    "InputError",
    "ContractError",
    "ImpossibleScoreError",
    "WeightError",
    "TooManyCombinationsError",
    "WorkbookError",
    "LimitError",
    "location",
]


def location(*, sheet=None, cell=None, board=None, row=None, column=None, item=None) -> str | None:
    """Format a location for an error message from the parts that are given.

    Parts that are ``None`` are left out (0 is a valid value).

    >>> location(board=3, row=7)
    'board 3, row 7'
    >>> location(sheet="Travellers", cell="G12")
    'Travellers!G12'
    >>> location() is None
    True
    """
    parts = []
    if sheet is not None and cell is not None:
        parts.append(f"{sheet}!{cell}")
    elif sheet is not None:
        parts.append(f"sheet {sheet}")
    elif cell is not None:
        parts.append(f"cell {cell}")
    if board is not None:
        parts.append(f"board {board}")
    if row is not None:
        parts.append(f"row {row}")
    if column is not None:
        parts.append(f"column {column}")
    if item is not None:
        parts.append(str(item))
    return ", ".join(parts) if parts else None


class XlbridgeError(ValueError):
    """Base class of every error xlbridge raises on bad input."""

    def __init__(self, message: str, *, where: str | None = None):
        self.message = message
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)

    def at(self, where: str) -> "XlbridgeError":
        """Return a copy of this error located at ``where`` (outer location first)."""
        inner = f"{where}, {self.where}" if self.where else where
        return type(self)(self.message, where=inner)


class InputError(XlbridgeError):
    """An input value or range is malformed (text where a number belongs, wrong size, ...)."""


class ContractError(XlbridgeError):
    """A contract, declarer or trick count cannot be read."""


class ImpossibleScoreError(XlbridgeError):
    """A score that no contract and result can produce on this board."""


class WeightError(XlbridgeError):
    """Weights of a Law 12C1(c) weighted score are negative or do not total 100 %."""


class TooManyCombinationsError(XlbridgeError):
    """An exact computation would need more combinations than the documented limit."""


class WorkbookError(XlbridgeError):
    """A workbook file is refused (not a workbook, damaged, protected, hostile)."""


class LimitError(WorkbookError):
    """A workbook or a run is refused because a documented limit was reached (size, count, memory, time).

    >>> str(LimitError("refused: more than 1,000,000 cells, the limit (reached in sheet Travellers)", where="a.xlsx"))
    'a.xlsx: refused: more than 1,000,000 cells, the limit (reached in sheet Travellers)'
    """
