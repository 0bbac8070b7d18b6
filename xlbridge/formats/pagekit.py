"""The building blocks of every page of the results site: the page around a body, and a table.

:func:`page_html` makes a whole HTML5 page (language, viewport, the one stylesheet, the title in a header with
the event's club, date and scorer, the navigation, the body in ``main``); :func:`table_html` a table whose
columns (:class:`Column`) say how each is shown on a phone and when it is left out.  Shared by the event's pages
(:mod:`xlbridge.formats.publish`) and the season's own (:mod:`xlbridge.formats.seasonpages`).

>>> print(table_html([Column("Pair", cls="id"), Column("Lead", drop="empty")], [["NS 1", ""]]))
<div class="t"><table>
<thead><tr><th scope="col">Pair</th></tr></thead>
<tbody>
<tr><td class="id">NS 1</td></tr>
</tbody>
</table></div>
<BLANKLINE>
"""

from __future__ import annotations

import dataclasses
import html
import re
from collections.abc import Collection, Iterable, Sequence

from .model import Event

__all__ = ["Column", "page_html", "table_html", "escape"]


def escape(x: object) -> str:
    """Text from a file, escaped for HTML (None as nothing)."""
    return html.escape("" if x is None else str(x), quote=True)


_e = escape


def page_html(title: str, event: Event, body: str, *, home: bool = False, links: Iterable[str] = (),
              season: bool = False, nav: str | None = None) -> str:
    """A whole page: the title (``h1``) and the event's club, date and scorer in a header, the navigation, then
    ``body`` in ``main``.  ``nav``: the navigation's links as they are (a season's own pages)."""
    up = ['<a href="../index.html">All events</a>'] if season else []  # (an event of a season's site)
    if nav is None:
        nav = ("<nav>" + " ".join(up) + "</nav>\n" if up else "") if home else (
            "<nav>" + " ".join([*up, '<a href="index.html">Results</a>', *links]) + "</nav>\n")
    else:
        nav = f"<nav>{nav}</nav>\n"
    meta = " &middot; ".join([_e(x) for x in (event.site, event.date) if x]
                             + ([f"Scored by {_e(event.scorer)}"] if event.scorer else []))
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<title>{_e(title)}</title>\n<link rel="stylesheet" href="style.css">\n</head>\n<body>\n<header>\n'
            f'<h1>{_e(title)}</h1>\n' + (f'<p class="meta">{meta}</p>\n' if meta else "") + "</header>\n" + nav
            + "<main>\n" + body + '</main>\n</body>\n</html>\n')


@dataclasses.dataclass(frozen=True)
class Column:
    """A column of a table: its header (HTML), and how it is shown.

    ``num``: right-aligned figures; ``cls``: the cells' class (``id``: a pair's number, never split; ``names``:
    may wrap anywhere; ``c``: a contract); ``view``: ``"wide"`` shown on a wide screen only, ``"narrow"`` on a
    narrow one only (below 40em: a phone), ``""`` on both; ``drop``: ``"empty"`` left out when no row has a value
    in it, ``"same"`` when every row has the same one.
    """

    head: str
    num: bool = False
    cls: str = ""
    view: str = ""
    drop: str = ""

    def attr(self, header: bool = False) -> str:
        classes = [c for c in (("n" if self.num else ""), ("" if header else self.cls),
                               {"wide": "wc", "narrow": "nc"}.get(self.view, "")) if c]
        return f' class="{" ".join(classes)}"' if classes else ""


def _kept(cols: Sequence[Column], rows: Sequence[Sequence[str]]) -> list[int]:
    """The columns of ``cols`` that stay: every one but a ``drop="empty"`` column empty on every row and a
    ``drop="same"`` column the same on every row.

    >>> _kept([Column("a"), Column("b", drop="empty"), Column("c", drop="same")], [["1", "", "x"], ["2", "", "x"]])
    [0]
    """
    keep = []
    for i, c in enumerate(cols):
        values = {r[i] for r in rows}
        if c.drop == "empty" and values <= {""}:
            continue
        if c.drop == "same" and len(values) <= 1:
            continue
        keep.append(i)
    return keep


def _unsplit(head: str) -> str:
    """A header with ``N-S`` and ``E-W`` never split at their hyphen (``MP N-`` over ``S``).

    >>> _unsplit("MP N-S")
    'MP <span class="o">N-S</span>'
    """
    return re.sub(r"\b(N-S|E-W)\b", r'<span class="o">\1</span>', head)


def table_html(head: Sequence[str] | Sequence[Column], rows: Iterable[Sequence[str]], numeric: Collection[int] = (),
               caption: str = "", region: str = "") -> str:
    """A table: a header row of ``th scope="col"`` and a row per item.  ``head``: the headers (``numeric``: the
    right-aligned columns) or :class:`Column` columns, whose left-out columns are not written at all; the table
    sits in a box that scrolls sideways by itself (never the page) if a cell cannot be narrower; ``region``: the
    name of a table meant to be wider than a phone (a season's weekly ratings), whose box is a named region a
    keyboard can reach and scroll."""
    cols = [h if isinstance(h, Column) else Column(str(h), num=i in numeric) for i, h in enumerate(head)]
    rows = [list(r) for r in rows]
    keep = _kept(cols, rows)
    th = "".join(f'<th scope="col"{cols[i].attr(True)}>{_unsplit(cols[i].head)}</th>' for i in keep)
    cap = f"<caption>{caption}</caption>" if caption else ""
    box = f' tabindex="0" role="region" aria-label="{_e(region)}"' if region else ""
    out = [f'<div class="t"{box}><table>{cap}\n<thead><tr>{th}</tr></thead>\n<tbody>']
    for r in rows:
        out.append("<tr>" + "".join(f"<td{cols[i].attr()}>{r[i]}</td>" for i in keep) + "</tr>")
    out.append("</tbody>\n</table></div>\n")
    return "\n".join(out)
