"""The cell spans of a sheet's layout, kept as three arrays instead of a tuple per cell.

:class:`CellSpans` is the ``cells`` mapping of a :class:`~xlbridge.batch.cells.SheetLayout` made by
:func:`~xlbridge.batch.read.sheetxml.read_sheet`: {(row, col): :class:`~xlbridge.batch.cells.CellSpan`},
in the document's order, as a dict of them was. A cell is kept as its position, its start offset and
the number of its *shape*: what its span holds besides its place (the element's name, its attributes
with the reference written as its own position left out, its length and its children's offsets from
its start), which the cells of a column share (a 100,000-row template's 300,000 formula cells have a
few dozen shapes). Each span is made again when it is looked up (about a microsecond). A dict of named
tuples held about 760 bytes a cell (226 MiB at 100,000 traveller rows, held from the reading to the
patching); this holds 20 bytes a cell and the shapes.

>>> from xlbridge.batch.cells import CellSpan
>>> spans = CellSpans()
>>> spans.add(2, 3, "c", 10, 40, (("f", 24, 33),), {"r": "C2", "s": "4"}, True)
>>> spans[(2, 3)]
CellSpan(qname='c', start=10, end=40, attrs=(('r', 'C2'), ('s', '4')), children=(('f', 24, 33),))
>>> spans[(2, 3)] = CellSpan("c", 50, 60, (("r", "c3"),), ())  # (a reference not written as its own position)
>>> list(spans), spans.get((3, 1)), (2, 3) in spans, len(spans)
([(2, 3)], None, True, 1)
>>> spans == {(2, 3): CellSpan("c", 50, 60, (("r", "c3"),), ())}
True
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Callable, ItemsView, Iterator, Mapping, MutableMapping, ValuesView
from typing import Any

from ...core.sheet import EXCEL_MAX_COLUMNS
from ..cells import CellSpan, column_letters

__all__ = ["CellSpans"]

_WIDE = 1 << 15  # a position's key: row * _WIDE + column (a column is at most 16,384)
_span = tuple.__new__  # (a CellSpan from its five fields: what CellSpan(...) does, without its keywords)


class _Letters(dict):
    """{column: its letters}, filled as columns are met."""

    def __missing__(self, col: int) -> str:
        letters = column_letters(col)
        if len(self) < EXCEL_MAX_COLUMNS:  # (every column of a sheet at most)
            self[col] = letters
        return letters


_LETTERS = _Letters()


def _maker(shape: tuple) -> Callable[[int, int, int], CellSpan]:
    """``make(row, col, start)``: the span of a cell of ``shape`` (the common shapes, a reference written
    as the cell's own first and one or two children, made without a loop)."""
    qname, tmpl, length, kids = shape
    at = next((i for i, (_k, v) in enumerate(tmpl) if v is None), -1)
    before, after = (tmpl[:at], tmpl[at + 1:]) if at >= 0 else ((), tmpl)
    if at == 0 and len(kids) == 2:
        (n0, s0, e0), (n1, s1, e1) = kids

        def make(row: int, col: int, start: int) -> CellSpan:
            return _span(CellSpan, (qname, start, start + length, (("r", _LETTERS[col] + str(row)),) + after,
                                    ((n0, start + s0, start + e0), (n1, start + s1, start + e1))))
    elif at == 0 and len(kids) == 1:
        ((n0, s0, e0),) = kids

        def make(row: int, col: int, start: int) -> CellSpan:
            return _span(CellSpan, (qname, start, start + length, (("r", _LETTERS[col] + str(row)),) + after,
                                    ((n0, start + s0, start + e0),)))
    else:
        def make(row: int, col: int, start: int) -> CellSpan:
            attrs = after if at < 0 else before + (("r", _LETTERS[col] + str(row)),) + after
            return _span(CellSpan, (qname, start, start + length, attrs,
                                    tuple([(n, start + s, start + e) for n, s, e in kids])))
    return make


class CellSpans(MutableMapping):
    """{(row, col): CellSpan} in the order cells were added, kept compactly (see the module docstring).

    Cells added in the document's order (each after the last: what a reading does) are appended to the
    arrays; anything else (a cell replaced or removed, one added before the last) turns the mapping into
    a plain dict of spans, which then does the work, in the same order as a dict. A cell is looked up
    by bisection, or at once when it follows the cell looked up last (a patch goes through the cells in
    order).
    """

    __slots__ = ("_keys", "_starts", "_shape_of", "_shapes", "_ids", "_made", "_last", "_dict")

    def __init__(self) -> None:
        self._keys = array("q")  # row * _WIDE + column, ascending
        self._starts = array("q")
        self._shape_of = array("i")  # the number of each cell's shape
        # each shape: (qname, attributes (the reference's value None where it is the cell's own), the
        # element's length, its children (local name, start, end) from its start); and how to make it
        self._shapes: list[tuple] = []
        self._ids: dict[tuple, int] = {}
        self._made: list[Callable[[int, int, int], CellSpan]] = []
        self._last = -1  # the index of the cell looked up last
        self._dict: dict | None = None  # (once the cells are no longer added in order)

    # -- adding -------------------------------------------------------------------------------------

    def add(self, row: int, col: int, qname: str, start: int, end: int, children: Any, attrs: dict,
            own_ref: bool) -> None:
        """Add the span of a ``<c>`` element (a reading's hot path): ``children`` ((local name, start, end),
        ...), ``attrs`` its attributes (a dict, in the document's order), ``own_ref``: its ``r`` attribute is
        its position as Excel writes it (``cell_ref(row, col)``)."""
        if own_ref:
            tmpl = tuple([(k, None if k == "r" else v) for k, v in attrs.items()])
        else:
            tmpl = tuple(attrs.items())
        shape = (qname, tmpl, end - start, tuple([(n, s - start, e - start) for n, s, e in children]))
        sid = self._ids.get(shape)
        if sid is None:
            sid = self._shape_id(shape)
        key = row * _WIDE + col
        keys = self._keys
        if self._dict is not None or (keys and key <= keys[-1]):
            self._as_dict()[(row, col)] = self._make(row, col, start, sid)
            return
        keys.append(key)
        self._starts.append(start)
        self._shape_of.append(sid)

    def _shape_id(self, shape: tuple) -> int:
        sid = self._ids[shape] = len(self._shapes)
        self._shapes.append(shape)
        self._made.append(_maker(shape))
        return sid

    def __setitem__(self, pos: tuple[int, int], span: CellSpan) -> None:
        row, col = pos
        attrs = dict(span.attrs)
        own = len(attrs) == len(span.attrs) and attrs.get("r") == f"{_LETTERS[col]}{row}"
        if self._dict is None and len(attrs) == len(span.attrs) and None not in attrs.values():
            self.add(row, col, span.qname, span.start, span.end, span.children, attrs, own)
            return
        self._as_dict()[pos] = span

    def __delitem__(self, pos: tuple[int, int]) -> None:
        del self._as_dict()[pos]

    def update(self, other: Any = (), /, **kw: Any) -> None:
        """As a dict's; another :class:`CellSpans` whose cells all come after these is appended as it is
        (the two halves of a reading, :mod:`xlbridge.batch.read.halves`)."""
        if (isinstance(other, CellSpans) and not kw and self._dict is None and other._dict is None
                and (not self._keys or not other._keys or other._keys[0] > self._keys[-1])):
            found = [self._ids.get(shape) for shape in other._shapes]
            ids = [self._shape_id(shape) if sid is None else sid for shape, sid in zip(other._shapes, found)]
            self._keys.extend(other._keys)
            self._starts.extend(other._starts)
            self._shape_of.extend(array("i", [ids[s] for s in other._shape_of]))
            return
        super().update(other, **kw)

    def _as_dict(self) -> dict:
        if self._dict is None:
            self._dict = dict(self._pairs())
            self._keys, self._starts, self._shape_of = array("q"), array("q"), array("i")
        return self._dict

    # -- reading ------------------------------------------------------------------------------------

    def _make(self, row: int, col: int, start: int, sid: int) -> CellSpan:
        return self._made[sid](row, col, start)

    def _pairs(self) -> Iterator[tuple[tuple[int, int], CellSpan]]:
        if self._dict is not None:
            yield from self._dict.items()
            return
        make = self._make
        for key, start, sid in zip(self._keys, self._starts, self._shape_of):
            row, col = divmod(key, _WIDE)
            yield (row, col), make(row, col, start, sid)

    def _index(self, pos: Any) -> int:
        """Where the cell ``pos`` is in the arrays (-1: not there)."""
        try:
            row, col = pos
            if not (0 < col < _WIDE and row > 0):
                return -1
            key = row * _WIDE + col
        except (TypeError, ValueError):
            return -1
        keys = self._keys
        i = self._last + 1
        if i < len(keys) and keys[i] == key:  # (the cell after the last one looked up)
            self._last = i
            return i
        i = bisect.bisect_left(keys, key)
        if i < len(keys) and keys[i] == key:
            self._last = i
            return i
        return -1

    def __getitem__(self, pos: tuple[int, int]) -> CellSpan:
        if self._dict is not None:
            return self._dict[pos]
        i = self._index(pos)
        if i < 0:
            raise KeyError(pos)
        return self._made[self._shape_of[i]](pos[0], pos[1], self._starts[i])

    def get(self, pos: Any, default: Any = None) -> Any:
        if self._dict is not None:
            return self._dict.get(pos, default)
        i = self._index(pos)
        return default if i < 0 else self._made[self._shape_of[i]](pos[0], pos[1], self._starts[i])

    def place(self, pos: Any) -> tuple[int, int, tuple] | None:
        """(start offset, shape number, shape) of the cell at ``pos``, without making its span (a patch's hot
        path): the shape is (qname, attributes with the reference None where it is written as the cell's own
        position, length, children (local name, start, end) from the cell's start), its number the same for every
        cell of that shape (a key for what a caller makes of it: ``id()`` raises an audit event, heard in Python
        in the engine's sandboxed process). None when the cell is not here, or when the spans are kept as a dict
        (then :meth:`get`)."""
        if self._dict is not None:
            return None
        i = self._index(pos)
        if i < 0:
            return None
        sid = self._shape_of[i]
        return self._starts[i], sid, self._shapes[sid]

    def __contains__(self, pos: object) -> bool:
        return pos in self._dict if self._dict is not None else self._index(pos) >= 0

    def __iter__(self) -> Iterator[tuple[int, int]]:
        if self._dict is not None:
            return iter(self._dict)
        return (divmod(key, _WIDE) for key in self._keys)

    def __len__(self) -> int:
        return len(self._dict) if self._dict is not None else len(self._keys)

    def items(self) -> Any:
        return _Items(self)

    def values(self) -> Any:
        return _Values(self)

    def __repr__(self) -> str:
        return f"CellSpans({dict(self._pairs())!r})"

    # -- across a process boundary ------------------------------------------------------------------

    @staticmethod
    def packed(cells: Mapping) -> tuple:
        """``cells`` ({(row, col): CellSpan}, these or a dict) as built-in values only (for :mod:`marshal`,
        :mod:`xlbridge.batch.read.halves`): :meth:`unpacked` reads them."""
        if not isinstance(cells, CellSpans) or cells._dict is not None:
            return ("dict", {pos: tuple(span) for pos, span in cells.items()})
        return ("arrays", cells._keys.tobytes(), cells._starts.tobytes(), cells._shape_of.tobytes(), cells._shapes)

    @classmethod
    def unpacked(cls, packed: tuple) -> CellSpans:
        spans = cls()
        if packed[0] == "dict":
            spans._dict = {pos: CellSpan._make(span) for pos, span in packed[1].items()}
            return spans
        _, keys, starts, shape_of, shapes = packed
        spans._keys.frombytes(keys)
        spans._starts.frombytes(starts)
        spans._shape_of.frombytes(shape_of)
        for shape in shapes:
            spans._shape_id(tuple(shape))
        return spans

    def __reduce__(self) -> Any:
        return (CellSpans.unpacked, (CellSpans.packed(self),))


class _Items(ItemsView):
    """The pairs, made in order from the arrays (not looked up one by one)."""

    _mapping: CellSpans

    def __iter__(self) -> Iterator:
        return self._mapping._pairs()


class _Values(ValuesView):
    _mapping: CellSpans

    def __iter__(self) -> Iterator:
        return (span for _, span in self._mapping._pairs())
