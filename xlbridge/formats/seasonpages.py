"""The season's own pages: a Lehman ratings ledger and a Form-L handicap league, each as one page of the site.

:func:`ratings_page` shows every player of a ledger (:class:`~xlbridge.formats.seasonbooks.Ratings`) ranked by
rating (equal ratings share a place, ``2=``), with the error bound and the boards played, and the rating after
each week as a line chart drawn in SVG inside the page (no script, nothing fetched).  :func:`league_page` shows
a league (:class:`~xlbridge.formats.seasonbooks.League`): the teams' handicaps, the handicapped results with
each team's won, drawn and lost, what the higher-handicap team did, and the fairness test (the observed results
with both tails, and a chart of the bands under fair handicaps with the observed results on it).

Every figure is the workbook's own cell, shown as the workbook's number format shows it (ratings and error
bounds with two decimals, boards and handicaps whole, Average VPs with one, tails with four), rounded once, half
away from zero as a spreadsheet displays it.  Every text from the workbook is escaped.

>>> _fixed(58.3437393253912, 2), _fixed(-2.5, 0), _fixed(None, 1)
('58.34', '-3', '')
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

import xlbridge

from .model import Event
from .pagekit import Column, page_html, table_html
from .seasonbooks import League, Ratings

__all__ = ["ratings_page", "league_page", "line_chart", "book_title"]

#: the lines' colours (each at least 4.5:1 against white) and, past them, dashes
PALETTE = ("#1f4e9c", "#b52e20", "#2e6b30", "#8a4500", "#6a1b9a", "#222222", "#00607a", "#6b5200")
_DASHES = ("", "6 3", "2 3", "8 3 2 3")


def _e(x: object) -> str:
    return html.escape("" if x is None else str(x), quote=True)


def _fixed(x: float | None, places: int) -> str:
    """``x`` with ``places`` decimals, rounded once half away from zero (a spreadsheet's display)."""
    if x is None:
        return ""
    return str(xlbridge.format_display(Fraction(x), "half_away", places))


def book_title(book: Ratings | League) -> str:
    """The page's title: the book's ``Event`` name, else what the book is."""
    if book.name:
        return book.name
    return "Lehman ratings" if isinstance(book, Ratings) else "League handicaps"


def _header_event(book: Ratings | League) -> Event:
    return Event(name=book_title(book), date=book.date, site=book.club, scorer=book.scorer)


def _places(values: Sequence[float]) -> list[str]:
    """Competition places of ``values`` (highest first, as given: already sorted), ``2=`` for a shared one.

    >>> _places([60.0, 55.5, 55.5, 50.0])
    ['1', '2=', '2=', '4']
    """
    first: dict[float, int] = {}
    for k, v in enumerate(values):
        first.setdefault(v, k)
    counts = Counter(values)
    return [str(xlbridge.format_rank(first[v] + 1, counts[v] > 1)) for v in values]


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values from ``low`` to ``high`` (steps of 1, 2 or 5 times a power of ten)."""
    import math

    span = high - low or 1.0
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step) * step
    return [round(first + k * step, 10) for k in range(int((high - first) / step + 1e-9) + 1)]


def line_chart(series: Sequence[tuple[str, str, str, Sequence[tuple[float, float | None]]]], *, title: str,
               x_label: str, y_label: str, ident: str, marks: Sequence[tuple[str, float, float]] = (),
               width: int = 560, height: int = 320) -> str:
    """A line chart as inline SVG: ``series`` are ``(name, colour, dash, points)``, a point's y None leaving a
    gap; ``marks`` are labelled crosses ``(label, x, y)``.  The chart is an image with its title and a
    description naming every series (``role="img"``), for a screen reader.

    >>> svg = line_chart([("Ann", "#1f4e9c", "", [(1, 50.0), (2, 52.5)])], title="Ratings", x_label="Week",
    ...                  y_label="Rating", ident="c1")
    >>> svg.startswith('<svg') and 'points="' in svg and "<title id=\\"c1-t\\">Ratings</title>" in svg
    True
    """
    left, right, top, bottom = 52, 12, 14, 40
    xs = [x for _, _, _, pts in series for x, y in pts if y is not None] + [x for _, x, _ in marks]
    ys = [y for _, _, _, pts in series for _, y in pts if y is not None] + [y for _, _, y in marks]
    if not xs:
        return ""
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    if x0 == x1:
        x0, x1 = x0 - 1, x1 + 1
    pad = (y1 - y0) * 0.05 or 1.0
    y0, y1 = y0 - pad, y1 + pad

    def px(x: float) -> float:
        return round(left + (x - x0) / (x1 - x0) * (width - left - right), 1)

    def py(y: float) -> float:
        return round(height - bottom - (y - y0) / (y1 - y0) * (height - top - bottom), 1)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" aria-labelledby="{ident}-t {ident}-d" font-size="14" '
           f'font-family="Georgia, serif">',
           f'<title id="{ident}-t">{_e(title)}</title>',
           f'<desc id="{ident}-d">{_e(y_label)} against {_e(x_label)}: '
           + _e("; ".join(name for name, _, _, _ in series) + ("; " if marks and series else "")
                + "; ".join(label for label, _, _ in marks)) + '</desc>',
           f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{height - top - bottom}" '
           f'fill="#fff" stroke="#767676"/>']
    for t in _ticks(y0, y1):
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{py(t)}" y2="{py(t)}" stroke="#e3e3e3"/>'
                   f'<text x="{left - 4}" y="{py(t) + 4}" text-anchor="end" fill="#222">{t:g}</text>')
    for t in _ticks(x0, x1, 8):
        out.append(f'<text x="{px(t)}" y="{height - bottom + 16}" text-anchor="middle" fill="#222">{t:g}</text>')
    out.append(f'<text x="{(left + width - right) / 2}" y="{height - 4}" text-anchor="middle" fill="#222">'
               f'{_e(x_label)}</text>')
    out.append(f'<text x="14" y="{(top + height - bottom) / 2}" text-anchor="middle" fill="#222" '
               f'transform="rotate(-90 14 {(top + height - bottom) / 2})">{_e(y_label)}</text>')
    for name, colour, dash, pts in series:
        runs: list[list[str]] = [[]]
        for x, y in pts:
            if y is None:
                runs.append([])
            else:
                runs[-1].append(f"{px(x)},{py(y)}")
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        for run in runs:
            if len(run) > 1:
                out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dashed} points="{" ".join(run)}">'
                           f'<title>{_e(name)}</title></polyline>')
            elif run:
                cx, cy = run[0].split(",")
                out.append(f'<circle cx="{cx}" cy="{cy}" r="3" fill="{colour}"><title>{_e(name)}</title></circle>')
    for label, x, y in marks:
        mx, my = px(x), py(y)
        out.append(f'<path d="M{mx - 5},{my - 5}L{mx + 5},{my + 5}M{mx - 5},{my + 5}L{mx + 5},{my - 5}" '
                   f'stroke="#b52e20" stroke-width="2"><title>{_e(label)}</title></path>')
    out.append("</svg>")
    return "\n".join(out)


def _key(series: Sequence[tuple[str, str, str]]) -> str:
    """The chart's key: each series' line (its colour and dash) and name."""
    items = []
    for name, colour, dash in series:
        line = (f'<svg class="sw" viewBox="0 0 28 6" width="28" height="6" aria-hidden="true">'
                f'<line x1="0" x2="28" y1="3" y2="3" stroke="{colour}" stroke-width="3"'
                + (f' stroke-dasharray="{dash}"' if dash else "") + '/></svg>')
        items.append(f"<li>{line}{_e(name)}</li>")
    return '<ul class="key">' + "".join(items) + "</ul>\n"


def _style(k: int) -> tuple[str, str]:
    return PALETTE[k % len(PALETTE)], _DASHES[(k // len(PALETTE)) % len(_DASHES)]


def ratings_page(book: Ratings, *, nav: str = '<a href="index.html">All events</a>') -> str:
    """The ratings page of ``book``: the players ranked by rating, and the weekly history as a chart."""
    players = sorted(book.players, key=lambda p: -p.rating)
    places = _places([p.rating for p in players])
    formula = {"Standard": "standard Lehman formula", "Modified": "modified (error-bound) Lehman formula"}[book.formula]
    body = [f"<p>Every player's rating after week {book.weeks[-1]} by the {formula}, highest first, with its "
            f"error bound and the boards played. A new player starts at 50.</p>\n" if book.weeks else
            "<p>The ledger has no results yet.</p>\n"]
    if book.hidden:
        body.append(f"<p>{book.hidden:,} player{'s are' if book.hidden != 1 else ' is'} not shown, at their "
                    f"request.</p>\n")
    body.append("<h2>Ratings</h2>\n")
    cols = [Column("Place", num=True), Column("Player", cls="names"), Column("Rating", num=True),
            Column("Error bound", num=True), Column("Boards", num=True)]
    rows = [[place, _e(p.name), _fixed(p.rating, 2), _fixed(p.error, 2), _fixed(p.boards, 0)]
            for place, p in zip(places, players)]
    body.append(table_html(cols, rows))
    if book.weeks and players:
        order = {p.name: k for k, p in enumerate(book.players)}  # (colours in the ledger's order: stable by name)
        series = []
        for p in book.players:
            colour, dash = _style(order[p.name])
            series.append((p.name, colour, dash, list(zip(book.weeks, p.history))))
        body.append("<h2>Rating after each week</h2>\n<figure>\n" + line_chart(
            series, title=f"Rating after each week ({book.formula.lower()} formula)", x_label="Week",
            y_label="Rating", ident="ratings") + "\n<figcaption>" + _key([(n, c, d) for n, c, d, _ in series])
            + "</figcaption>\n</figure>\n")
        cols = [Column("Player", cls="names")] + [Column(f"Week {w}", num=True) for w in book.weeks]
        rows = [[_e(p.name)] + [_fixed(v, 2) for v in p.history] for p in book.players]
        body.append("<h2>Weekly ratings</h2>\n" + table_html(cols, rows, region="Weekly ratings (scrolls sideways)"))
    return page_html(book_title(book), _header_event(book), "".join(body), nav=nav)


def league_page(book: League, *, nav: str = '<a href="index.html">All events</a>') -> str:
    """The league page of ``book``: handicaps, handicapped results, won/drawn/lost, fairness."""
    body = ["<h2>Handicaps</h2>\n"]
    cols = [Column("Team", cls="names"), Column("Division", num=True), Column("Average VPs", num=True),
            Column("Handicap (IMPs)", num=True)]
    rows = [[_e(t.team), "new" if t.division is None else str(t.division), _fixed(t.average, 1),
             _fixed(t.handicap, 0)] for t in book.teams]
    body.append("<p>Each team's handicap in IMPs (Form-L), from last season's divisional Average VPs; a new team's "
                "from this season's matches.</p>\n" + table_html(cols, rows))
    body.append("<h2>Results with handicaps</h2>\n")
    cols = [Column("Match", cls="names"), Column("IMPs", num=True), Column("Handicaps", num=True, view="wide"),
            Column("With handicaps", num=True), Column("Winner", cls="names")]
    rows = []
    record: dict[str, list[int]] = {}
    for m in book.matches:
        played = m.total_a is not None and m.total_b is not None
        rows.append([f"{_e(m.team_a)} v {_e(m.team_b)}", _pair(m.imps_a, m.imps_b, 0),
                     _pair(m.handicap_a, m.handicap_b, 0), _pair(m.total_a, m.total_b, 0),
                     _e(m.winner) if played else "not played yet"])
        if played and m.winner is not None:
            for team, other in ((m.team_a, m.team_b), (m.team_b, m.team_a)):
                w = record.setdefault(team, [0, 0, 0, 0])
                w[0] += 1
                w[1 if m.winner == team else 2 if m.winner not in (team, other) else 3] += 1
    body.append("<p>IMPs at the table, each team's handicap added: the winner is the team ahead with its handicap."
                "</p>\n" + table_html(cols, rows))
    body.append("<h2>Won, drawn and lost</h2>\n")
    cols = [Column("Team", cls="names"), Column("Played", num=True), Column("Won", num=True),
            Column("Drawn", num=True), Column("Lost", num=True)]
    body.append(table_html(cols, [[_e(t), str(w[0]), str(w[1]), str(w[2]), str(w[3])] for t, w in record.items()]))
    if book.counts:
        body.append("<h2>The higher-handicap team</h2>\n" + table_html(
            [Column("Result"), Column("Matches", num=True)], [[_e(label), _fixed(v, 0)] for label, v in book.counts]))
    body.append(_fairness(book))
    return page_html(book_title(book), _header_event(book), "".join(body), nav=nav)


def _pair(a: float | None, b: float | None, places: int) -> str:
    if a is None and b is None:
        return ""
    return f"{_fixed(a, places)}&ndash;{_fixed(b, places)}"


def _fairness(book: League) -> str:
    out = ["<h2>Fairness</h2>\n<p>How often the higher-handicap team won (draws and equal handicaps left out), "
           "against what fair handicaps give: under fair handicaps its wins in n matches are Binomial(n, 1/2); "
           "a small tail says the handicaps favour one side.</p>\n"]
    cols = [Column("Observed result", cls="names"), Column("Wins", num=True), Column("Matches", num=True),
            Column("P(X &le; wins)", num=True), Column("P(X &ge; wins)", num=True)]
    rows = [[_e(o.label), _fixed(o.wins, 0), _fixed(o.matches, 0), _fixed(o.p_low, 4), _fixed(o.p_high, 4)]
            for o in book.observed]
    out.append(table_html(cols, rows))
    if book.bands:
        most = max([o.matches for o in book.observed if o.matches] + [20.0])
        bands = [b for b in book.bands if b[0] <= most] or list(book.bands)
        names = [f"{kind} {_fixed(t * 100, 0)} %" for t in book.tails for kind in ("Low", "High")] + ["Expected (n/2)"]
        colours = ("#1f4e9c", "#1f4e9c", "#2e6b30", "#2e6b30", "#8a4500", "#8a4500", "#222222")
        dashes = ("", "", "6 3", "6 3", "2 3", "2 3", "8 3 2 3")
        series = [(names[k], colours[k], dashes[k], [(b[0], b[1 + k]) for b in bands]) for k in range(7)]
        marks = [(f"{o.label}: {_fixed(o.wins, 0)} of {_fixed(o.matches, 0)}", o.matches, o.wins)
                 for o in book.observed if o.matches is not None and o.wins is not None and o.matches <= bands[-1][0]]
        out.append("<figure>\n" + line_chart(series, title="Wins of the higher-handicap team: bands under fair handicaps",
                                             x_label="Matches", y_label="Wins", ident="fairness", marks=marks)
                   + "\n<figcaption>" + _key([(n, c, d) for n, c, d, _ in series])
                   + '<p>Crosses: the observed results.</p></figcaption>\n</figure>\n')
    return "".join(out)
