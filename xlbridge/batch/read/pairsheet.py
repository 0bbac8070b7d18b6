"""A book-level check of the read stage: each row of a pairs book's Pairs sheet lists a pair once, in its field.

The Pairs sheet (Pair, Direction, Names: :data:`~xlbridge.core.template_contract.PAIR_COLUMNS`, headers on row 4)
is read by one formula, the Ranking's ``PAIRS_STANDINGS``, for the pairs' names. A pair listed twice, or a
Mitchell's pair whose direction is no direction, is no mistake of any output cell: the Ranking shows the names of
the pair's first row (:func:`xlbridge.excel.adapters.pairs._pair_names`). ``publish`` and ``export`` refuse such a
book at the row's cell (:mod:`xlbridge.formats.pairsbook`); :func:`pairs_sheet_mistakes` names it at the same
cell, in the same words (:func:`xlbridge.core.travellerrow.pairs_row_mistake`), for ``xlbridge recalc``.

The movement (Mitchell or Howell) is the Travellers sheet's ``Movement`` parameter (the value right of its label in
the first :data:`~xlbridge.core.template_contract.PARAMETER_ROWS` rows; a book without one is read as a Mitchell,
as the pairs reader reads it). Both parts are read with expat from parts the guard has passed, as the Leads check
reads them (:mod:`xlbridge.batch.read.leads`); the Travellers part only up to its parameter rows. The first mistake
is named, with the number of others after it.

>>> xml = lambda rows: ('<worksheet><sheetData>' + ''.join(
...     f'<row r="{r}">' + ''.join(f'<c r="{c}{r}" t="inlineStr"><is><t>{v}</t></is></c>' if isinstance(v, str)
...                               else f'<c r="{c}{r}"><v>{v}</v></c>' for c, v in cells) + '</row>'
...     for r, cells in rows) + '</sheetData></worksheet>').encode()
>>> travellers = xml([(7, [("Q", "Movement"), ("R", "Mitchell")])])
>>> pairs = xml([(4, [("A", "Pair"), ("B", "Direction"), ("C", "Names")]), (5, [("A", 1), ("B", "NS")]),
...              (6, [("A", 1), ("B", "EW")]), (7, [("A", 1), ("B", "N-S")]), (8, [("A", 2), ("B", "S")])])
>>> pairs_sheet_mistakes({"Travellers": travellers, "Pairs": pairs}.get, lambda last: {})
[('Pairs', (7, 1), 'input', 'pair 1 N-S is listed twice (the Ranking shows the names of its first row); publish and export refuse the book until it is put right (1 more row below is a mistake)')]
>>> pairs_sheet_mistakes({"Travellers": xml([(7, [("Q", "Movement"), ("R", "Howell")])]), "Pairs": pairs}.get,
...                      lambda last: {})[0][:2]
('Pairs', (6, 1))
"""

from __future__ import annotations

import xml.parsers.expat as expat
from collections.abc import Callable
from typing import Any

from ...core.template_contract import MOVEMENT_LABEL, PAIR_COLUMNS, PAIRS_SHEET, PARAMETER_ROWS, TRAVELLERS_SHEET
from ...core.travellerrow import Mistake, pairs_row_mistake
from ...core.vocabulary import Movement
from .leads import CHUNK, NoTable, cell_value, defused_parser, first_of, lazy_strings, sheet_table
from .sheetxml import column_number

__all__ = ["pairs_sheet_mistakes", "parameter_value", "parameter_cells"]


class _Past(Exception):
    """The parameter rows are read: the rest of the part is not."""


def pairs_sheet_mistakes(part: Callable[[str], bytes | None], strings: Callable[[int], dict[int, str]]
                         ) -> list[tuple[str, tuple[int, int], str, str]]:
    """The read stage's mistake (sheet, (row, column), ``"input"``, message) of the first row of the Pairs sheet
    that is a mistake (:func:`~xlbridge.core.travellerrow.pairs_row_mistake`), saying how many more there are
    (``part(sheet)``: the sheet's worksheet part, None when the book has no such sheet; ``strings(last)``: {index:
    text} of the shared strings up to ``last``). [] for a book without both sheets, whose Pairs sheet has no
    header row naming Pair and Direction, or whose rows are all right."""
    pairs_xml = part(PAIRS_SHEET)
    travellers_xml = part(TRAVELLERS_SHEET) if pairs_xml else None
    if not pairs_xml or not travellers_xml:
        return []
    shared = lazy_strings(strings)

    found, movement = parameter_value(travellers_xml, MOVEMENT_LABEL, shared)
    # (as the pairs reader reads it: a Mitchell unless the parameter says Howell)
    mitchell = not found or str(movement or "").strip().lower() != Movement.HOWELL.option
    columns: dict[str, int] = {}
    seen: set[tuple[object, object]] = set()
    bad: list[tuple[int, Mistake]] = []
    try:
        for r, (number, direction) in sheet_table(pairs_xml, PAIR_COLUMNS[:2], shared, columns, whole=False):
            mistake = pairs_row_mistake(number, direction, mitchell, seen)
            if mistake is not None:
                bad.append((r, mistake))
    except NoTable:
        return []
    return first_of(PAIRS_SHEET, bad, columns)


def parameter_value(sheet_xml: bytes, label: str, shared: Callable[[int], str | None]) -> tuple[bool, Any]:
    """``(found, value)``: the value right of the cell holding ``label`` in a sheet's parameter block (its first
    :data:`~xlbridge.core.template_contract.PARAMETER_ROWS` rows), as the readers of ``publish`` and ``export`` find
    it (:func:`xlbridge.formats.sheets.parameter_value`); the part is read up to those rows only. ``(False, None)``
    when no cell there holds the label (or the part cannot be read).

    >>> parameter_value(b'<worksheet><sheetData><row r="7"><c r="Q7" t="inlineStr"><is><t>Movement</t></is></c>'
    ...                 b'<c r="R7" t="inlineStr"><is><t>Howell</t></is></c></row></sheetData></worksheet>',
    ...                 "Movement", lambda i: None)
    (True, 'Howell')
    """
    found = _labelled(_parameter_block(sheet_xml, shared), (label,))
    return (True, found[label][1]) if label in found else (False, None)


def _parameter_block(sheet_xml: bytes, shared: Callable[[int], str | None]) -> dict[tuple[int, int], Any]:
    """{(row, column): value} of the cells of a sheet's first :data:`~xlbridge.core.template_contract.PARAMETER_ROWS`
    rows ({} when the part cannot be read); the part is read up to those rows only."""
    cells: dict[tuple[int, int], Any] = {}
    state: dict[str, Any] = {"cell": None, "text": False}

    def start(tag: str, attrs: dict[str, str]) -> None:
        local = tag if ":" not in tag else tag.rsplit(":", 1)[1]
        if local == "c":
            ref = attrs.get("r", "")
            letters = ref.rstrip("0123456789")
            digits = ref[len(letters):]
            if not digits or not letters or len(digits) > 7:
                state["cell"] = None
                return
            if int(digits) > PARAMETER_ROWS:
                raise _Past
            state["cell"] = [int(digits), column_number(letters), attrs.get("t", "n"), ""]
        elif local == "row" and attrs.get("r", "").isdigit() and len(attrs["r"]) < 8 \
                and int(attrs["r"]) > PARAMETER_ROWS:
            raise _Past
        elif local in ("v", "t") and state["cell"] is not None:
            state["text"] = True

    def end(tag: str) -> None:
        local = tag if ":" not in tag else tag.rsplit(":", 1)[1]
        if local in ("v", "t"):
            state["text"] = False
        elif local == "c" and state["cell"] is not None:
            r, c, kind, text = state["cell"]
            if text.strip():
                cells[(r, c)] = cell_value(kind, text, shared)
            state["cell"] = None

    def chars(data: str) -> None:
        if state["text"] and state["cell"] is not None:
            state["cell"][3] += data

    parser = defused_parser(start, end, chars)
    try:
        for at in range(0, len(sheet_xml), CHUNK):
            parser.Parse(sheet_xml[at:at + CHUNK], False)
        parser.Parse(b"", True)
    except _Past:
        pass
    except (expat.ExpatError, ValueError):
        return {}
    return cells


def parameter_cells(sheet_xml: bytes, labels: tuple[str, ...], shared: Callable[[int], str | None]
                    ) -> dict[str, tuple[tuple[int, int], Any]]:
    """{label: ((row, column) of its value, the value)} of each of ``labels`` found in a sheet's parameter block (its
    first :data:`~xlbridge.core.template_contract.PARAMETER_ROWS` rows), read as :func:`parameter_value` reads one.

    >>> parameter_cells(b'<worksheet><sheetData><row r="6"><c r="Q6" t="inlineStr"><is><t>Scale</t></is></c></row>'
    ...                 b'</sheetData></worksheet>', ("Scale", "Movement"), lambda i: None)
    {'Scale': ((6, 18), None)}
    """
    return _labelled(_parameter_block(sheet_xml, shared), labels)


def _labelled(cells: dict[tuple[int, int], Any], labels: tuple[str, ...]) -> dict[str, tuple[tuple[int, int], Any]]:
    found: dict[str, tuple[tuple[int, int], Any]] = {}
    for (r, c) in sorted(cells):  # (row by row, left to right: the first cell holding the label)
        v = cells[(r, c)]
        if isinstance(v, str) and v.strip() in labels and v.strip() not in found:
            found[v.strip()] = ((r, c + 1), cells.get((r, c + 1)))
    return found
