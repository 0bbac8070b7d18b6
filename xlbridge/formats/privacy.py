"""A pair's or team's ``Private`` mark: read from a workbook's cell, kept off every page of the results site.

A club may keep a member's name off its public results (the EBU keeps grades private on request; BridgeWebs asks
for consent before names are shown).  The pairs and teams workbooks have a column headed ``Private``
(:data:`~xlbridge.core.template_contract.PRIVATE`) beside the names and national numbers: ``yes`` marks the
pair (team) private, a blank (or ``no``) does not; :func:`private_flag` reads it, refusing anything else at its
cell.  The site (:mod:`xlbridge.formats.publish`) then shows that pair by its number only, and a Lehman player
marked private (the ratings book's Players table, :mod:`xlbridge.formats.seasonbooks`) is left out of the
ratings page's names.

>>> private_flag(" Yes ", "club.xlsx, Pairs!E5"), private_flag(None, "club.xlsx, Pairs!E5"), private_flag("no", "x")
(True, False, False)
>>> private_flag("maybe", "club.xlsx, Pairs!E5")
Traceback (most recent call last):
...
xlbridge.formats.errors.FormatError: club.xlsx, Pairs!E5: Private must be yes or blank, got 'maybe'
"""

from __future__ import annotations

from .errors import FormatError

__all__ = ["private_flag"]


def private_flag(value: object, where: str) -> bool:
    """True for a ``Private`` cell holding ``yes`` (any case, spaces around ignored), False for a blank one or
    ``no``; anything else is refused naming the cell (``where``: ``club.xlsx, Pairs!E5``)."""
    if value is None or isinstance(value, bool) and not value:
        return False
    if value is True:
        return True
    text = str(value).strip().casefold()
    if text in ("", "no"):
        return False
    if text == "yes":
        return True
    raise FormatError("Private must be yes or blank, got", where=where, value=value)
