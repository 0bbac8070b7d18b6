"""Cells that only show a cell of an array formula: found in the sheet, valued without the engine.

The templates keep each array formula on a hidden sheet and show its results through plain
references (:mod:`xlbridge.templates.mirror`): ``='Travellers (calc)'!H5``, or, so that a program
without the xlbridge functions shows a blank result as blank, ``=IFERROR(R,IF(ERROR.TYPE(R)=5,"",R))``
with the same reference ``R`` three times (5 is ``ERROR.TYPE`` of ``#NAME?``), where ``R`` may also be the
cell at this row's position in a table, ``INDEX('S (calc)'!$H$5:$H$10104,ROW()-ROW(INDEX($A$5:$A$10004,1))+1)``
(a row of an input table: ``shows_row``; also with ``ROW($A$5:$A$10004)``, as earlier builds wrote it; the target is the INDEX range's row as far from its first row as
this cell is from the origin's first row, when inside the range). A 10,000-row template
holds tens of thousands of them; the formulas engine would build and run a graph node for each
(about 2 ms a cell). Such a cell, when it points into an array range of this workbook and no formula
the engine evaluates reads it, is valued after the engine has run, from the array's value:

- the plain reference gives the target's value, ``0`` for an empty one (Excel's ``=A1`` of a blank);
- the guarded one gives the same, except ``""`` for ``#NAME?``.

Any other cell (a formula reading these cells, a reference to a constant, to another book or to a
sheet that is not there) is the engine's, as before. Tested against the engine's own evaluation of
every such cell (tests/batch/test_aliases.py).

>>> alias_of("='Travellers (calc)'!$H$5", "TRAVELLERS")
('plain', 'TRAVELLERS (CALC)', (5, 8))
>>> alias_of('=IFERROR(S!B2,IF(ERROR.TYPE(S!B2)=5,"",S!B2))', "X")
('guarded', 'S', (2, 2))
>>> at = "INDEX(C!$H$5:$H$9,ROW()-ROW(INDEX($A$5:$A$8,1))+1)"
>>> alias_of(f'=IFERROR({at},IF(ERROR.TYPE({at})=5,"",{at}))', "V", row=7)
('guarded', 'C', (7, 8))
>>> old = "INDEX(C!$H$5:$H$9,ROW()-ROW($A$5:$A$8)+1)"
>>> alias_of(f'=IFERROR({old},IF(ERROR.TYPE({old})=5,"",{old}))', "V", row=7)
('guarded', 'C', (7, 8))
>>> alias_of("=B2", "Scores"), alias_of("=B2+1", "Scores"), alias_of("='[1]S'!B2", "Scores")
(('plain', 'SCORES', (2, 2)), None, None)
>>> alias_value("plain", None), alias_value("guarded", "NP"), alias_value("plain", 3.5)
(0, 'NP', 3.5)
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from ...core.sheet import EXCEL_MAX_ROWS
from ..cells import CellRanges, ExcelErrorValue, cell_ref, parse_range, parse_ref, quote_sheet

__all__ = ["alias_of", "alias_runs", "alias_value", "find_shown", "AliasIndex"]

_REF = r"(?:(?:'(?P<q{n}>(?:[^'\[\]]|'')+)'|(?P<u{n}>[A-Za-z_][A-Za-z0-9_.]*))!)?\$?(?P<c{n}>[A-Za-z]{{1,3}})\$?(?P<r{n}>[0-9]{{1,7}})"
_PLAIN = re.compile("^=" + _REF.format(n=0) + "$")
_GUARDED = re.compile(
    "^=IFERROR\\((?P<a>" + _REF.format(n=1) + "),IF\\(ERROR\\.TYPE\\((?P<b>" + _REF.format(n=2)
    + ")\\)=5,\"\",(?P<d>" + _REF.format(n=3) + ")\\)\\)$", re.IGNORECASE)


_GUARD = re.compile(r'^=IFERROR\((?P<a>.{1,300}?),IF\(ERROR\.TYPE\((?P<b>.{1,300}?)\)=5,"",(?P<d>.{1,300})\)\)$',
                    re.IGNORECASE | re.S)
_AT_ROW = re.compile(r"^INDEX\((?:(?:'(?P<q>(?:[^'\[\]]|'')+)'|(?P<u>[A-Za-z_][A-Za-z0-9_.]*))!)?\$?(?P<c>[A-Za-z]{1,3})"
                     r"\$?(?P<r1>[0-9]{1,7}):\$?(?P=c)\$?(?P<r2>[0-9]{1,7}),ROW\(\)-ROW\((?P<x>INDEX\()?(?:(?:'(?:[^'\[\]]|'')+'|"
                     r"[A-Za-z_][A-Za-z0-9_.]*)!)?\$?[A-Za-z]{1,3}\$?(?P<o1>[0-9]{1,7}):\$?[A-Za-z]{1,3}\$?[0-9]{1,7}(?P<i>,1\))?\)"
                     r"\+1\)$", re.IGNORECASE)


def _at_row(formula: str, home: str, row: int) -> tuple[str, str, tuple[int, int]] | None:
    """("guarded", TARGET SHEET, (row, column)) of a guarded INDEX-at-this-row formula in row ``row``;
    None for any other formula or a position outside the INDEX range (then the formula is the engine's)."""
    g = _GUARD.match(formula)
    if g is None or not (g.group("a").upper() == g.group("b").upper() == g.group("d").upper()):
        return None
    m = _AT_ROW.match(g.group("a"))
    if m is None or (m.group("x") is None) != (m.group("i") is None):
        return None
    r1, r2, target = int(m.group("r1")), int(m.group("r2")), int(m.group("r1")) + row - int(m.group("o1"))
    if not r1 <= target <= r2:
        return None
    quoted, bare = m.group("q"), m.group("u")
    sheet = (quoted.replace("''", "'") if quoted is not None else bare if bare is not None else home).upper()
    try:
        return "guarded", sheet, parse_ref(m.group("c").upper() + str(target))
    except ValueError:
        return None


_SHEETS: dict[tuple[str | None, str | None, str], str] = {}  # one string per sheet name (30,000 cells name one)


def _target(m: re.Match, n: int, home: str) -> tuple[str, tuple[int, int]] | None:
    quoted, bare, letters, digits = m.group(f"q{n}", f"u{n}", f"c{n}", f"r{n}")
    key = (quoted, bare, home)
    sheet = _SHEETS.get(key)
    if sheet is None:
        name = quoted.replace("''", "'") if quoted is not None else bare if bare is not None else home
        sheet = _SHEETS.setdefault(key, name.upper()) if len(_SHEETS) < 4096 else name.upper()
    try:
        return sheet, parse_ref(letters.upper() + digits)  # (inside Excel's sheet, or no cell at all)
    except ValueError:
        return None


def alias_of(formula: str, home: str, row: int | None = None) -> tuple[str, str, tuple[int, int]] | None:
    """("plain" or "guarded", TARGET SHEET, (row, column)) when ``formula`` only shows one cell; else None.
    ``home``: the sheet the formula is on (a reference without a sheet points there); ``row``: the
    formula's row (needed for a formula showing the cell at its row's position in a table)."""
    got = _alias_match(formula, home, row)
    return None if got is None else got[0]


def _alias_match(formula: str, home: str, row: int | None = None
                 ) -> tuple[tuple[str, str, tuple[int, int]], tuple] | None:
    """:func:`alias_of`'s answer with the formula cut at its target's row digits: (alias, (text before
    the first row digits, text between, ..., text after)): the same formula showing another row is
    the pieces joined with that row's number (:func:`find_shown`'s shortcut). A formula showing the
    cell at its row's position is the same text in every row: one piece, its target one row on per row."""
    if formula.startswith("=IFERROR(INDEX(") and row is not None and len(formula) <= 1000:
        at = _at_row(formula, home, row)
        return None if at is None else (at, (formula,))
    if len(formula) > 400:
        return None
    m = _PLAIN.match(formula)
    if m is not None:
        got = _target(m, 0, home)
        return None if got is None else (("plain", *got), _cut(formula, m, (0,)))
    m = _GUARDED.match(formula)
    if m is None or not (m.group("a").upper() == m.group("b").upper() == m.group("d").upper()):
        return None
    got = _target(m, 1, home)
    return None if got is None else (("guarded", *got), _cut(formula, m, (1, 2, 3)))


def _cut(formula: str, m: re.Match, refs: tuple) -> tuple:
    pieces, at = [], 0
    for n in refs:
        start, end = m.span(f"r{n}")
        pieces.append(formula[at:start])
        at = end
    pieces.append(formula[at:])
    return tuple(pieces)


def alias_value(kind: str, value: Any) -> Any:
    """The value a showing cell gets from its target's value (None: the target is empty)."""
    if value is None:
        return 0
    if kind == "guarded" and isinstance(value, ExcelErrorValue) and value.code == "#NAME?":
        return ""
    return value


def find_shown(formulas: dict, arrays: dict) -> dict:
    """{(SHEET, (row, col)): alias} of the cells that only show a cell of an array range of the book.

    ``formulas``: {SHEET: {(row, col): formula text}}; ``arrays``: {SHEET: [(r1, c1, r2, c2), ...]} (sheet
    names in capitals). The formula engine never sees the others.

    >>> find_shown({"V": {(1, 1): "=C!B2", (2, 1): "=C!Z9", (3, 1): "=B2*2", (4, 3): "=C!B3"}},
    ...            {"C": [(1, 2, 5, 2)], "V": [(4, 3, 6, 3)]})
    {('V', (1, 1)): ('plain', 'C', (2, 2))}
    """
    out = {}
    indexed = {name: CellRanges(ranges) for name, ranges in arrays.items()}  # (each cell asked: indexed once)
    for sheet, cells in formulas.items():
        own = indexed.get(sheet) or ()
        # per column, the last showing formula cut at its target's row digits: a showing column's
        # next cell is usually the same formula one row on (then no regular expression is needed)
        last: dict[int, tuple[int, tuple, tuple[str, str, tuple[int, int]]]] = {}
        for pos, text in cells.items():
            if own and pos in own:
                continue  # an array formula (its anchor): the engine's, whatever its text
            alias = None
            seen = last.get(pos[1])
            if seen is not None:
                row = seen[2][2][0] + pos[0] - seen[0]
                if 0 < row <= EXCEL_MAX_ROWS and len(text) <= (1000 if len(seen[1]) == 1 else 400) and text == str(row).join(seen[1]):
                    alias = (seen[2][0], seen[2][1], (row, seen[2][2][1]))
                    pieces = seen[1]
            if alias is None:
                got = _alias_match(text, sheet, pos[0])
                if got is None:
                    continue
                alias, pieces = got
            last[pos[1]] = (pos[0], pieces, alias)
            ranges = indexed.get(alias[1])
            if ranges is not None and alias[2] in ranges:
                out[(sheet, pos)] = alias
    return out


class AliasIndex:
    """The showing cells of a workbook, by sheet and column, to find those inside a referenced range.

    >>> ix = AliasIndex()
    >>> ix.add("S", (5, 8), ("plain", "S (CALC)", (5, 8))); ix.add("S", (9, 8), ("plain", "S (CALC)", (9, 8)))
    >>> [p for p, _ in ix.take("S", "H1:H6")], ix.take("S", "H1:H6"), [p for p, _ in ix.take("S", "A1:Z20")]
    ([(5, 8)], [], [(9, 8)])
    """

    def __init__(self) -> None:
        self.cells: dict[str, dict[tuple[int, int], tuple[str, str, tuple[int, int]]]] = {}
        self._rows: dict[str, dict[int, list[int]]] = {}

    def add(self, sheet: str, pos: tuple[int, int], alias: tuple[str, str, tuple[int, int]]) -> None:
        self.cells.setdefault(sheet, {})[pos] = alias
        self._rows.setdefault(sheet, {}).setdefault(pos[1], []).append(pos[0])

    def take(self, sheet: str, ref: str) -> list:
        """The showing cells of ``sheet`` inside ``ref`` (e.g. ``A1:B9``) not taken before, as [((row, col), alias)]
        (they stay in :attr:`cells`, the showing cells valued after the engine)."""
        columns = self._rows.get(sheet)
        if not columns:
            return []
        try:
            r1, c1, r2, c2 = parse_range(ref)
        except (ValueError, TypeError):
            return []
        out = []
        for c in (range(c1, c2 + 1) if c2 - c1 < len(columns) else sorted(columns)):
            rows = columns.get(c)
            if not rows or not c1 <= c <= c2:
                continue
            rows.sort()
            lo, hi = bisect.bisect_left(rows, r1), bisect.bisect_right(rows, r2)
            out += [(r, c) for r in rows[lo:hi]]
            del rows[lo:hi]
        cells = self.cells[sheet]
        return [(pos, cells[pos]) for pos in out]



def alias_runs(found: list) -> list[tuple[str, tuple[int, int], tuple[int, int], str]]:
    """The showing cells ``found`` ([(SHEET, (row, col), alias)]) as runs for the engine: (SHEET, first
    cell, last cell, formula). Consecutive cells of a column showing consecutive cells of one column
    of one sheet, the same way, become ONE array formula over the run (``=IFERROR(S!H5:H9, ...)``):
    the engine builds one node for it instead of one per cell (an array formula gives each cell
    what the cell's own formula gives).

    >>> runs = alias_runs([("V", (5, 8), ("plain", "S", (5, 8))), ("V", (6, 8), ("plain", "S", (6, 8))),
    ...                    ("V", (8, 8), ("plain", "S", (8, 8)))])
    >>> [(first, last, f) for _, first, last, f in runs]
    [((5, 8), (6, 8), "='S'!H5:H6"), ((8, 8), (8, 8), "='S'!H8")]
    """

    out = []
    ordered = sorted(found, key=lambda x: (x[0], x[1][1], x[1][0]))
    i = 0
    while i < len(ordered):
        sheet, (r, c), (kind, target, (tr, tc)) = ordered[i]
        j = i + 1
        while j < len(ordered):
            s2, (r2, c2), (k2, t2, (tr2, tc2)) = ordered[j]
            if (s2, c2, k2, t2, tc2) != (sheet, c, kind, target, tc) or r2 != r + (j - i) or tr2 != tr + (j - i):
                break
            j += 1
        last = ordered[j - 1][1]
        ref = quote_sheet(target) + "!" + cell_ref(tr, tc) + ("" if j - i == 1 else ":" + cell_ref(tr + j - i - 1, tc))
        formula = f"={ref}" if kind == "plain" else f'=IFERROR({ref},IF(ERROR.TYPE({ref})=5,"",{ref}))'
        out.append((sheet, (r, c), last, formula))
        i = j
    return out
