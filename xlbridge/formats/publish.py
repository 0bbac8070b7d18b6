"""A static results site for an event: rankings, travellers, personal scorecards, hand diagrams.

``publish(event, out_dir)`` writes plain HTML5 pages and one stylesheet (no JavaScript,
printable through ``@media print``):

- ``index.html``: the ranking of each field (a Mitchell has N-S and E-W fields) with places
  (``2=`` for a shared place), names, totals and percentages; links to everything else;
- ``board-<n>.html``: the hand diagram when the deal is known, the double-dummy table and par
  score when the ``dds`` extra is installed (``endplay``), and the traveller with matchpoints
  (or IMPs); a Law 12C1(c) weighted score shows each outcome and its weight (``420 (60 %), -50 (40 %)``);
- ``pair-<NS|EW|>-<n>.html``: every pair's (or team's) personal scorecard;
- teams events: the standings (by VPs) and one ``match-<a>-<b>.html`` scorecard per match: each
  board's room scores (a weighted room-1 score with each outcome and its weight) and IMPs, the
  IMP totals, and the match's result (the margin rounded once to the nearest IMP, and the VPs:
  :func:`~xlbridge.formats.scoring.match_results`).

Every text that came from a file is escaped (:func:`html.escape`).  Numbers are exact until shown:
a whole number as it is, any other with two decimals by the EBU display rule
(:func:`xlbridge.format_display`), so a weighted board's IMPs (``-17/5``) show as ``-3.40`` and its
totals are summed exactly before they are shown.  The event is scored
first (:func:`~xlbridge.formats.score_event`): the figures shown are the core's, not a file's.

>>> import tempfile, pathlib
>>> from xlbridge.formats.model import Board, Event, Result
>>> e = Event(name="<b>Club</b>", boards=(Board(1, "N", "None", results=(Result("1", "2", score=420),
...           Result("3", "4", score=400))),))
>>> out = pathlib.Path(tempfile.mkdtemp())
>>> sorted(p.name for p in publish(e, out, dds=False))[:3]
['board-1.html', 'index.html', 'pair-1.html']
>>> "&lt;b&gt;Club&lt;/b&gt;" in (out / "index.html").read_text(encoding="utf-8")
True
"""

from __future__ import annotations

import functools
import html
import os
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import TypeVar

import xlbridge

from ..core.vocabulary import Direction, Scoring, Seat
from .errors import FormatError
from .model import TEAMS, Board, Event, Participant, Result, natural_key
from .pagekit import Column
from .pagekit import page_html as _page
from .pagekit import table_html as _table
from .scoring import match_results, score_event, team_matches
from .seasonbooks import League, Ratings

_K = TypeVar("_K")

__all__ = ["publish", "publish_season", "season_order", "STYLESHEET", "dd_analysis", "MAX_PAGES", "MAX_SITE_BYTES"]

STYLESHEET = """\
body { font-family: Georgia, "Times New Roman", serif; margin: 1.5em auto; max-width: 60em;
       padding: 0 1em; color: #222; background: #fff; line-height: 1.35; }
h1 { font-size: 1.6em; margin-bottom: .1em; overflow-wrap: anywhere; }
h2 { font-size: 1.25em; margin-top: 1.4em; border-bottom: 1px solid #bbb; }
p.meta { color: #555; margin-top: 0; }
nav { margin: .6em 0 1em; font-size: .95em; }
nav a { margin-right: .8em; display: inline-block; }
.t { overflow-x: auto; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { border: 1px solid #ccc; padding: .2em .55em; text-align: left; }
th { background: #eef2f6; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
td.id, td.n, td.c { white-space: nowrap; }
td.names { overflow-wrap: break-word; }
tr:nth-child(even) td { background: #f8f9fb; }
a { color: #1a4f8b; }
.red { color: #b52e20; }
.o { white-space: nowrap; }
.nc, .ns { display: none; }
table.deal { border: none; }
table.deal td { border: none; background: none !important; vertical-align: top; padding: .2em 1em; }
table.deal td.mid { text-align: center; color: #555; }
.hand { white-space: nowrap; }
ul.links { columns: 4; padding-left: 1.2em; }
figure { margin: .5em 0 1em; }
svg { max-width: 100%; height: auto; }
svg.spark { vertical-align: middle; }
ul.key { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .2em 1em; }
.sw { display: inline-block; width: 1.4em; height: .35em; vertical-align: middle; margin-right: .3em; }
@media (max-width: 40em) {
  body { margin: .6em auto; padding: 0 .5em; }
  h1 { font-size: 1.3em; }
  table { font-size: .88em; }
  th, td { padding: .15em .3em; }
  .wc { display: none; }
  td.nc, th.nc { display: table-cell; }
  .ns { display: inline; }
  table.deal td { padding: .1em .25em; }
  ul.links { columns: 3; }
}
@media print {
  body { max-width: none; margin: 0; font-size: 10pt; }
  nav, ul.links { display: none; }
  a { color: inherit; text-decoration: none; }
  h2 { page-break-after: avoid; }
  table { page-break-inside: avoid; }
}
"""

_SUIT_HTML = {"S": "&spades;", "H": '<span class="red">&hearts;</span>', "D": '<span class="red">&diams;</span>',
              "C": "&clubs;"}
_SEAT = {s.value: s.word for s in Seat}


def _e(x: object) -> str:
    return html.escape("" if x is None else str(x), quote=True)


def _n(x: Fraction | int | None, places: int = 2) -> str:
    """Whole numbers as they are, others to 2 decimals (EBU display rule, applied once)."""
    if x is None:
        return ""
    x = Fraction(x)
    if x.denominator == 1:
        return str(x.numerator)
    return _display(x, places)


def _pct(x: Fraction | int | None) -> str:
    return "" if x is None else _display(Fraction(x), 2)


@functools.lru_cache(maxsize=1 << 16)
def _display(x: Fraction, places: int) -> str:
    """:func:`xlbridge.format_display` by the EBU rule, once per value (a site shows few distinct values many
    times: every scorecard of a board's pairs shares its percentages)."""
    return str(xlbridge.format_display(x, "EBU", places))


def _slug(text: object) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", str(text)).strip("_") or "x"


def _pair_file(p_dir: str | None, number: str) -> str:
    return f"pair-{p_dir + '-' if p_dir else ''}{_slug(number)}.html"


def _unique_files(names: Mapping[_K, str]) -> dict[_K, str]:
    """Each key's page name, ``-2``, ``-3``, ... added before ``.html`` where an earlier key (in the
    mapping's order) has the same name, compared ignoring case as Windows and macOS file systems do:
    :func:`_slug` is not one-to-one, and two pairs must not share a page.

    >>> _unique_files({("NS", "A-1"): "pair-NS-A_1.html", ("NS", "A.1"): "pair-NS-A_1.html",
    ...                ("NS", "a_1"): "pair-NS-a_1.html"})
    {('NS', 'A-1'): 'pair-NS-A_1.html', ('NS', 'A.1'): 'pair-NS-A_1-2.html', ('NS', 'a_1'): 'pair-NS-a_1-3.html'}
    """
    taken: set[str] = set()
    next_k: dict[str, int] = {}  # a stem's next number to try: each name is tried once (linear work)
    out: dict[_K, str] = {}
    for key, fname in names.items():
        stem = fname.removesuffix(".html")
        k = next_k.get(stem.casefold(), 1)
        if k > 1:
            fname = f"{stem}-{k}.html"
        while fname.casefold() in taken:
            k += 1
            fname = f"{stem}-{k}.html"
        next_k[stem.casefold()] = k + 1
        taken.add(fname.casefold())
        out[key] = fname
    return out


def _contract_html(c: str | None) -> str:
    if not c:
        return ""
    if c == "PASS":
        return "Pass"
    m = re.fullmatch(r"([1-7])(NT|[CDHS])(X{0,2})", c)
    if not m:
        return _e(c)
    suit = "NT" if m.group(2) == "NT" else _SUIT_HTML[m.group(2)]
    return f"{m.group(1)}{suit}{_e(m.group(3))}"


def _lead_html(lead: str | None) -> str:
    return "" if not lead else f"{_SUIT_HTML[lead[0]]}{_e(lead[1])}"


def _weighted_text(r: Result, sign: int = 1) -> str:
    """A Law 12C1(c) weighted score as text: each outcome (for the side of ``sign``) and its weight.

    >>> _weighted_text(Result("1", "2", score=420, outcomes=((420, Fraction(3, 5)), (-50, Fraction(2, 5)))))
    '420 (60 %), -50 (40 %)'
    """
    return ", ".join(_outcome_texts(r, sign))


def _outcome_texts(r: Result, sign: int = 1) -> list[str]:
    return [f"{sign * s} ({xlbridge.format_display(w * 100, 'EBU', 2).removesuffix('.00')} %)" for s, w in r.outcomes]


def _weighted_html(r: Result, sign: int = 1) -> str:
    """A weighted score on at most two lines: its outcomes in two groups, each never split (``.o``), the text
    :func:`_weighted_text`'s.

    >>> _weighted_html(Result("1", "2", score=420, outcomes=((420, Fraction(3, 5)), (-50, Fraction(2, 5)))))
    '<span class="o">420 (60 %),</span> <span class="o">-50 (40 %)</span>'
    """
    texts = _outcome_texts(r, sign)
    half = (len(texts) + 1) // 2
    groups = [g for g in (", ".join(texts[:half]), ", ".join(texts[half:])) if g]
    return " ".join(f'<span class="o">{_e(g)}{"," if k + 1 < len(groups) else ""}</span>' for k, g in enumerate(groups))


def _room_score(r: Result) -> str:
    """A room's N-S score on a match scorecard (HTML): a weighted score (Law 12C1(c)) with each outcome and its
    weight, on at most two lines."""
    return _weighted_html(r) if r.outcomes else _e(r.score)


def _score_text(r: Result) -> tuple[str, str]:
    if r.outcomes:  # weighted (Law 12C1(c)): every outcome, in the N-S + column
        return (_weighted_html(r), "")
    if isinstance(r.score, int):
        return (str(r.score), "") if r.score >= 0 else ("", str(-r.score))
    if r.score is None:
        return ("", "")
    return (_e(r.score), "")


def _signed_score(r: Result, sign: int = 1) -> str:
    """The score for the side of ``sign`` (N-S 1, E-W -1) in one column (HTML): a phone's traveller and a
    scorecard."""
    if r.outcomes:
        return _weighted_html(r, sign)
    if isinstance(r.score, int):
        return str(sign * r.score)
    return _e(r.score)


def _contract_cell(r: Result) -> str:
    """The contract, and on a phone (the By and Tricks columns left out there) its declarer and tricks after it."""
    extra = " ".join(x for x in (_e(r.declarer), _e(r.tricks)) if x)
    return _contract_html(r.contract) + (f'<span class="ns"> {extra}</span>' if extra else "")


def _hand_html(hand: str) -> str:
    if hand == "-":
        return '<div class="hand">?</div>'
    lines = []
    for s, cards in zip("SHDC", hand.split(".")):
        lines.append(f"{_SUIT_HTML[s]} {_e(cards.replace('T', '10')) or '&mdash;'}")
    return '<div class="hand">' + "<br>".join(lines) + "</div>"


def _deal_html(board: Board) -> str:
    hands: dict[str, str] = dict(zip(Seat, (board.deal or "")[2:].split(" ")))
    mid = f"Board {board.number}<br>Dealer {_SEAT.get(board.dealer or '', '')}<br>Vul {_e(board.vulnerable)}"
    return ('<table class="deal">\n'
            f'<tr><td></td><td>{_hand_html(hands["N"])}</td><td></td></tr>\n'
            f'<tr><td>{_hand_html(hands["W"])}</td><td class="mid">{mid}</td><td>{_hand_html(hands["E"])}</td></tr>\n'
            f'<tr><td></td><td>{_hand_html(hands["S"])}</td><td></td></tr>\n</table>\n')


def dd_analysis(board: Board) -> tuple[dict[str, list[int]], str] | None:
    """Double-dummy tricks and par of a board with a complete deal, with endplay (the ``dds`` extra).

    Returns ``(table, par)``: ``table`` maps seat (N/E/S/W) to tricks in C, D, H, S, NT;
    ``par`` is endplay's par result as text.  ``None`` when endplay is missing or the deal
    is incomplete.
    """
    if not board.deal or "-" in board.deal.split(":")[1].split(" "):
        return None
    try:
        from endplay.dds import calc_dd_table, par
        from endplay.types import Deal, Denom, Player, Vul
    except ImportError:
        return None
    t = calc_dd_table(Deal(board.deal))
    denoms = (Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades, Denom.nt)
    table = {seat: [t[d, Player.find(seat)] for d in denoms] for seat in "NESW"}
    vul = {"None": Vul.none, "NS": Vul.ns, "EW": Vul.ew, "All": Vul.both}[board.vulnerable or "None"]
    p = par(t, vul, Player.find(board.dealer or "N"))
    contracts = ", ".join(str(c) for c in p)
    return table, f"{p.score:+d} ({contracts})" if contracts else f"{p.score:+d}"


def _dd_html(board: Board) -> str:
    res = dd_analysis(board)
    if res is None:
        return ""
    table, par_text = res
    head = ["", "NT", _SUIT_HTML["S"], _SUIT_HTML["H"], _SUIT_HTML["D"], _SUIT_HTML["C"]]
    rows = [[_SEAT[s]] + [str(table[s][d]) for d in (4, 3, 2, 1, 0)] for s in "NSEW"]
    return ("<h2>Double dummy</h2>\n" + _table(head, rows, numeric=range(1, 6)) +
            f"<p>Par (N-S): {_e(par_text)}</p>\n")


#: Most pages of one site (a board, pair, team or match page each, the index and the stylesheet).
MAX_PAGES = 250_000
#: Most bytes of one site when the caller gives no bound of its own (the command gives one in
#: proportion to its input: :func:`xlbridge.formats.site.site_byte_limit`).
MAX_SITE_BYTES = 1 << 30


class _Pages:
    """Writes each page as soon as it is made (never the whole site in memory), counting pages and
    bytes against the site's bounds; over one, one :class:`FormatError` naming it."""

    def __init__(self, out: Path, max_pages: int, max_bytes: int, why: str, name: str | None,
                 spent: tuple[int, int] = (0, 0)) -> None:
        self.out, self.max_pages, self.max_bytes, self.why, self.name = out, max_pages, max_bytes, why, name
        self.pages_before, self.bytes = spent  # (what a season's other events took of the same bounds)
        self.written: list[Path] = []

    def put(self, fname: str, text: str) -> None:
        data = text.encode("utf-8")
        self.bytes += len(data)
        if self.pages_before + len(self.written) >= self.max_pages:
            raise FormatError(f"refused: the site would have more than {self.max_pages:,} pages, the limit; "
                              f"nothing published", where=self.name)
        if self.bytes > self.max_bytes:
            raise FormatError(f"refused: the site would be larger than {self.max_bytes:,} bytes, the limit"
                              f"{self.why}; nothing published", where=self.name)
        path = self.out / fname
        path.write_bytes(data)
        self.written.append(path)


def publish(event: Event, out_dir: str | os.PathLike[str], *, dds: bool | str = "auto",
            max_bytes: int = MAX_SITE_BYTES, max_pages: int = MAX_PAGES, why: str = "",
            name: str | None = None, scored: bool = False, season: bool = False,
            spent: tuple[int, int] = (0, 0)) -> list[Path]:
    """Write the results site of ``event`` into ``out_dir`` (created if needed); return the paths.

    ``dds``: ``"auto"`` adds double-dummy tables and par where endplay is installed and the deal
    is complete, ``True`` requires endplay, ``False`` leaves them out.  Each page is written as it is
    made; more than ``max_pages`` pages or ``max_bytes`` bytes in all raises one :class:`FormatError`
    (``name``: the input's name, in front; ``why``: how the byte bound was set) and leaves the pages
    written so far: :func:`xlbridge.formats.site.publish_site` builds in a folder of its own and
    publishes all or nothing.  The work is linear in the rows: each row is indexed by pair and board
    once.  ``scored=True`` says that ``event`` is what :func:`~xlbridge.formats.score_event` returned,
    which is then not done again.  National numbers are never shown; a pair (team) marked private
    (:attr:`~xlbridge.formats.model.Participant.private`) is shown by its number only.  ``season=True``: the event is one of a
    season's site (:func:`publish_season`), each page links to its index, one folder up; ``spent``: the pages
    and bytes the season's site has already, counted against the same bounds.
    """
    page = functools.partial(_page, season=season)
    if dds is True:
        try:
            import endplay.dds  # noqa: F401
        except ImportError:
            raise FormatError("double-dummy analysis needs the dds extra (pip install xlbridge[dds])") from None
    if not scored:  # (``scored=True``: the caller has just scored it with score_event)
        event = score_event(event)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    pages = _Pages(out, max_pages, max_bytes, why, name, spent)
    pages.put("style.css", STYLESHEET)
    title = event.name or "Results"
    teams = event.kind == TEAMS
    parts = {p.key: p for p in event.participants}
    keys = [p.key for p in event.participants] + [event.pair_key(r, side) for b in event.boards for r in b.results
                                                  for side in Direction]
    pair_files = _unique_files({k: _pair_file(*k) for k in sorted(dict.fromkeys(keys), key=lambda k: (
        k[0] or "", natural_key(k[1]), k[1]))})
    matches = _matches(event) if teams else {}
    match_files = _unique_files({m: _match_file(*m) for m in matches})

    def link(key: tuple[str | None, str]) -> str:
        """The pair's (team's) number, or a team's name, linking to its page; its players' names on hover."""
        p = parts.get(key)
        label = (p.label if p else (f"{key[0]} {key[1]}" if key[0] else key[1]))
        if teams:
            label = _team_name(parts, key[1])
        hover = " & ".join(p.names) if p and not p.private else ""  # (a private pair: its number only)
        hover = hover if len(hover) <= 120 else hover[:119] + "…"  # (on every link to the pair: kept short)
        names = f' title="{_e(hover)}"' if hover else ""
        return f'<a href="{pair_files[key]}"{names}>{_e(label)}</a>'

    # ---- index: rankings
    body = []
    for field in event.fields():
        members = [p for p in event.participants if p.direction == field]
        members.sort(key=lambda p: (p.place is None, p.place or 0, natural_key(p.number)))
        heading = Direction(field).word if field else "Standings" if teams else "Ranking"
        body.append(f"<h2>{heading}</h2>\n")
        pct = any(p.percentage is not None for p in members)
        vps = teams and any(p.vps is not None for p in members)  # teams place by VPs (score_event)
        unit = "IMPs" if teams or not pct else "Total"
        cols = [Column("Place", num=True), Column("Team" if teams else "Pair", cls="id"),
                Column("Players" if teams else "Names", cls="names", drop="empty")]
        cols += [Column("VPs", num=True)] if vps else []
        cols += [Column(unit, num=True)]
        if pct:  # (the maximum, the same for every pair of a field that played every board, said once above)
            cols += [Column("Max", num=True, drop="same"), Column("%", num=True)]
        rows = []
        for p in members:
            names = "" if p.private else " &amp; ".join(_e(n) for n in p.names)
            if p.name and not teams and not p.private:
                names = f"<b>{_e(p.name)}</b>" + (f": {names}" if names else "")
            row = ["" if p.place is None else xlbridge.format_rank(p.place, p.tied), link(p.key), names]
            row += [_n(p.vps)] if vps else []
            row += [_n(p.total)]
            if pct:
                row += [_n(p.maximum), _pct(p.percentage)]
            rows.append(row)
        maxima = {p.maximum for p in members if pct}
        if pct and len(maxima) == 1 and None not in maxima:
            body.append(f"<p>Maximum {_n(maxima.pop())} {'IMPs' if teams else 'matchpoints'} for each pair; "
                        f"% is the pair's share of it.</p>\n")
        if teams and vps:
            body.append("<p>Teams are placed by Victory Points (VPs); IMPs are the total of their matches.</p>\n")
        body.append(_table(cols, rows))
    body.append("<h2>Boards</h2>\n<ul class=\"links\">" + "".join(
        f'<li><a href="board-{b.number}.html">Board {b.number}</a></li>' for b in event.boards) + "</ul>\n")
    if matches:
        body.append("<h2>Matches</h2>\n<ul>" + "".join(
            f'<li><a href="{match_files[(a, b)]}">{_e(_team_name(parts, a))} v {_e(_team_name(parts, b))}</a></li>'
            for a, b in matches) + "</ul>\n")
    pages.put("index.html", page(title, event, "".join(body), home=True))

    # ---- boards
    for k, b in enumerate(event.boards):
        body = []
        nav = []  # previous / next board, in the page's nav bar
        if k:
            nav.append(f'<a href="board-{event.boards[k - 1].number}.html">&larr; Board {event.boards[k - 1].number}</a>')
        if k + 1 < len(event.boards):
            nav.append(f'<a href="board-{event.boards[k + 1].number}.html">Board {event.boards[k + 1].number} &rarr;</a>')
        if b.deal:
            body.append(_deal_html(b))
        else:
            body.append(f"<p>Dealer {_SEAT.get(b.dealer or '?', '?')}, vulnerable: {_e(b.vulnerable)}</p>\n")
        if dds and b.deal:
            body.append(_dd_html(b))
        imp = teams or event.scoring != Scoring.MP
        cols = [Column("N-S", cls="id"), Column("E-W", cls="id"), Column("Contract", cls="c", drop="empty"),
                Column("By", view="wide", drop="empty"), Column("Tricks", num=True, view="wide", drop="empty"),
                Column("Lead", view="wide", drop="empty"), Column("N-S +", num=True, view="wide"),
                Column("N-S &minus;", num=True, view="wide"), Column("N-S score", num=True, view="narrow")]
        cols += [Column("IMPs N-S", num=True), Column("IMPs E-W", num=True)] if imp else [
            Column("MP N-S", num=True), Column("MP E-W", num=True), Column("% N-S", num=True)]
        rows = []
        for r in b.results:
            plus, minus = _score_text(r)
            row = [link(event.pair_key(r, Direction.NS)), link(event.pair_key(r, Direction.EW)), _contract_cell(r),
                   _e(r.declarer), _e(r.tricks), _lead_html(r.lead), plus, minus, _signed_score(r)]
            row += [_n(r.imp_ns), _n(r.imp_ew)] if imp else [_n(r.mp_ns), _n(r.mp_ew), _pct(r.pct_ns)]
            rows.append(row)
        body.append("<h2>Traveller</h2>\n" + _table(cols, rows))
        pages.put(f"board-{b.number}.html", page(f"{title}: board {b.number}", event, "".join(body), links=nav))

    # ---- personal scorecards: every row indexed by pair once (linear in the rows, not pairs x rows)
    played: dict[tuple[str | None, str], list[tuple[Board, Result, str, str]]] = {}
    for b in event.boards:
        for r in b.results:
            for d in Direction:
                played.setdefault(event.pair_key(r, d), []).append((b, r, d, d.other))
    # a team's scorecard: each board of each match once (both rooms on one row), its IMPs for the team
    team_rows: dict[str, list[list[str]]] = {}
    team_imps: dict[str, Fraction] = {}
    for (a, bteam), mboards in matches.items():
        for bno, r1, r2 in mboards:
            ia = r1.imp_ns if r1.ns == a else r1.imp_ew
            for us, them, ours, theirs, sign in ((a, bteam, r1, r2, 1), (bteam, a, r2, r1, -1)):
                v = None if ia is None else sign * ia
                team_imps[us] = team_imps.get(us, Fraction(0)) + (v or 0)
                team_rows.setdefault(us, []).append([
                    _board_link(bno), link((None, them)), _contract_cell(ours),
                    _e(ours.declarer), _room_score(ours), _contract_cell(theirs), _e(theirs.declarer),
                    _room_score(theirs), _n(v)])
    for p in event.participants:
        imp = teams or event.scoring != Scoring.MP
        unit = "IMPs" if imp else "MP"
        summary = "<p>" + " &middot; ".join(x for x in (
            "" if p.private else _e(" & ".join(p.names)),
            f"total {_n(p.total)} {unit}" if p.total is not None else "",
            f"{_n(p.vps)} VPs" if teams and p.vps is not None else "",
            f"{_pct(p.percentage)} %" if p.percentage is not None else "",
            (f"place {xlbridge.format_rank(p.place, p.tied)}" + (" by VPs" if teams and p.vps is not None else ""))
            if p.place else "") if x) + "</p>\n"
        label = ("Team " if teams else "Pair ") + p.label + (f": {p.name}" if p.name and not p.private else "")
        if teams:
            cols = [Column("Board", num=True), Column("Versus"), Column("Contract (our N-S)", cls="c", drop="empty"),
                    Column("By", view="wide", drop="empty"), Column("Score (our N-S)", num=True),
                    Column("Contract (their N-S)", cls="c", drop="empty"), Column("By", view="wide", drop="empty"),
                    Column("Score (their N-S)", num=True), Column("IMPs", num=True)]
            rows = team_rows.get(p.number, []) + [["Total", "", "", "", "", "", "", "",
                                                    _n(team_imps.get(p.number, Fraction(0)))]]
            pages.put(pair_files[p.key], page(f"{title}: {label}", event, summary + "<h2>Scorecard</h2>\n"
                                               + _table(cols, rows)))
            continue
        rows = []
        for b, r, side, other in played.get(p.key, ()):
            mp = r.mp_ns if side == Direction.NS else r.mp_ew
            share = r.pct_ns if side == Direction.NS else r.pct_ew
            im = r.imp_ns if side == Direction.NS else r.imp_ew
            val = im if imp else mp
            rows.append([_board_link(b.number), side, link(event.pair_key(r, other)), _contract_cell(r),
                         _e(r.declarer), _e(r.tricks), _signed_score(r, 1 if side == Direction.NS else -1), _n(val),
                         _pct(share)])
        cols = [Column("Board", num=True), Column("Dir", drop="same" if p.direction else ""), Column("Versus", cls="id"),
                Column("Contract", cls="c", drop="empty"), Column("By", view="wide", drop="empty"),
                Column("Tricks", num=True, view="wide", drop="empty"), Column("Score", num=True), Column(unit, num=True),
                Column("%", num=True)]
        if imp:
            cols, rows = cols[:-1], [row[:-1] for row in rows]
        pages.put(pair_files[p.key], page(
            f"{title}: {label}", event, summary + "<h2>Scorecard</h2>\n" + _table(cols, rows)))

    # ---- team matches
    results = match_results(event) if teams else {}
    for (a, bteam), boards in matches.items():
        rows, ta, tb = [], Fraction(0), Fraction(0)
        for bno, r1, r2 in boards:
            ia = r1.imp_ns if r1.ns == a else r1.imp_ew
            ta += max(ia or 0, 0)
            tb += max(-(ia or 0), 0)
            rows.append([_board_link(bno), _contract_cell(r1), _e(r1.declarer), _room_score(r1), _contract_cell(r2),
                         _e(r2.declarer), _room_score(r2), _n(ia) if ia and ia > 0 else "",
                         _n(-ia) if ia and ia < 0 else ""])
        # (each table named by the team sitting N-S there: PBN and USEBIO do not say which room is "1", and a
        # workbook's room 1 is its team A's, which need not be the lower number the columns are ordered by)
        na, nb = _e(_team_name(parts, a)), _e(_team_name(parts, bteam))
        cols = [Column("Board", num=True), Column(f"Contract ({na} N-S)", cls="c", drop="empty"),
                Column("By", view="wide", drop="empty"), Column(f"Score ({na} N-S)", num=True),
                Column(f"Contract ({nb} N-S)", cls="c", drop="empty"), Column("By", view="wide", drop="empty"),
                Column(f"Score ({nb} N-S)", num=True), Column(f"IMPs {na}", num=True), Column(f"IMPs {nb}", num=True)]
        rows.append(["Total", "", "", "", "", "", "", _n(ta), _n(tb)])
        res = results.get((a, bteam))
        outcome = "" if res is None else (
            f'<p class="result">IMPs {_n(res.imps_a)} &ndash; {_n(res.imps_b)}, margin rounded once to the nearest '
            f'IMP: {na} {"+" if res.margin > 0 else ""}{_n(res.margin)}; '
            f'VPs {na} {_n(res.vp_a)} &ndash; {nb} {_n(res.vp_b)} ({xlbridge.vp_scale().label} scale, {res.boards} boards)</p>\n')
        pages.put(match_files[(a, bteam)], page(
            f"{title}: {_team_name(parts, a)} v {_team_name(parts, bteam)}", event,
            "<h2>Match scorecard</h2>\n" + _table(cols, rows) + outcome))
    return pages.written


def _board_link(number: int) -> str:
    """A board's number linking to its page, named in full for a screen reader (``Board 3``)."""
    return f'<a href="board-{number}.html" aria-label="Board {number}">{number}</a>'


def season_order(events: Sequence[Event]) -> list[int]:
    """The positions of ``events`` in a season's index: newest first by date, an undated event after the
    dated ones, in the order given (a stable sort).

    >>> import datetime
    >>> season_order([Event("a", datetime.date(2026, 1, 5)), Event("b"), Event("c", datetime.date(2026, 3, 1))])
    [2, 0, 1]
    """
    dated = sorted((k for k, e in enumerate(events) if e.date is not None), key=lambda k: events[k].date,  # type: ignore[arg-type,return-value]
                   reverse=True)
    return dated + [k for k, e in enumerate(events) if e.date is None]


def _event_folders(events: Sequence[Event], order: Sequence[int]) -> dict[int, str]:
    """Each event's folder in a season's site: its date and name (``2026-11-28-Club_pairs``), ``-2``, ``-3``,
    ... added to a name taken already, as :func:`_unique_files` names pages (ignoring case)."""
    stems = {k: "-".join(x for x in (events[k].date.isoformat() if events[k].date else "",  # type: ignore[union-attr]
                                     _slug(events[k].name or "results")[:60]) if x) for k in order}
    return {k: name.removesuffix(".html") for k, name in _unique_files({k: f"{stems[k]}.html" for k in order}).items()}


def publish_season(events: Sequence[Event], out_dir: str | os.PathLike[str], *, dds: bool | str = "auto",
                   max_bytes: int = MAX_SITE_BYTES, max_pages: int = MAX_PAGES, why: str = "",
                   names: Sequence[str | None] | None = None, scored: bool = False,
                   books: Sequence[Ratings | League] = ()) -> list[Path]:
    """Write a season's results site into ``out_dir``: each event's site (:func:`publish`) in a folder of its
    own, a page for each of the season's ``books`` (a Lehman ratings ledger: ``ratings.html``, a handicap league:
    ``league.html``; :mod:`~xlbridge.formats.seasonpages`), and ``index.html`` listing them, the events by date,
    newest first (:func:`season_order`), with their club; each event's pages link back to it. The bounds
    (``max_pages``, ``max_bytes``) are the whole site's; ``names``: each event's input name, which a refusal
    names. Return the paths written.
    """
    from .seasonpages import book_title, league_page, ratings_page

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    order = season_order(events)
    folders = _event_folders(events, order)
    written: list[Path] = []
    used = 0
    for k in order:
        name = names[k] if names is not None else None
        paths = publish(events[k], out / folders[k], dds=dds, max_bytes=max_bytes, max_pages=max_pages, why=why,
                        name=name, scored=scored, season=True, spent=(len(written), used))
        used += sum(p.stat().st_size for p in paths)
        written += paths
    pages = _Pages(out, max_pages, max_bytes, why, None, (len(written), used))
    pages.put("style.css", STYLESHEET)
    book_files = _unique_files({k: f"{'ratings' if isinstance(b, Ratings) else 'league'}.html"
                                for k, b in enumerate(books)})
    for k, b in enumerate(books):
        pages.put(book_files[k], ratings_page(b) if isinstance(b, Ratings) else league_page(b))
    clubs = {e.site for e in events} | {b.club for b in books}
    club = clubs.pop() if len(clubs) == 1 else None
    rows = []
    for k in order:
        e = events[k]
        rows.append([_e(e.date.isoformat() if e.date else ""),
                     f'<a href="{html.escape(folders[k], quote=True)}/index.html">{_e(e.name or "Results")}</a>',
                     _e("Teams" if e.kind == TEAMS else "Pairs")] + ([] if club is not None else [_e(e.site or "")]))
    head = ["Date", "Event", "Kind"] + ([] if club is not None else ["Club"])
    title = f"{club}: results" if club else "Results"
    index = Event(name=title)
    body = []
    if books:
        body.append("<h2>Ratings and league</h2>\n<ul>" + "".join(
            f'<li><a href="{book_files[k]}">{_e(book_title(b))}</a>: '
            f'{"the players&#x27; Lehman ratings" if isinstance(b, Ratings) else "the league&#x27;s handicaps and results"}'
            + (f" ({_e(b.date.isoformat())})" if b.date else "") + "</li>" for k, b in enumerate(books)) + "</ul>\n")
    if events:
        body.append("<h2>Events, newest first</h2>\n" + _table(head, rows)
                    + f"<p>{len(events):,} event{'s' if len(events) != 1 else ''}.</p>\n")
    pages.put("index.html", _page(title, index, "".join(body), home=True))
    return written + pages.written


def _team_name(parts: Mapping[tuple[str | None, str], Participant], number: str) -> str:
    """A team's name, or ``Team <number>`` for a team without one or marked private."""
    p = parts.get((None, number))
    return p.name if p and p.name and not p.private else f"Team {number}"


def _match_file(a: str, b: str) -> str:
    return f"match-{_slug(a)}-{_slug(b)}.html"


def _matches(event: Event) -> dict[tuple[str, str], list[tuple[int, Result, Result]]]:
    """(team a, team b) -> [(board, the room where a sits N-S, the other room)] for boards played at both
    tables (:func:`~xlbridge.formats.scoring.team_matches`), matches with at least one such board."""
    out = {(a, c): [(b, r1, r2) for b, (r1, r2) in rooms.items() if r1 is not None and r2 is not None]
           for a, c, rooms in team_matches(event)}
    return {k: v for k, v in out.items() if v}
