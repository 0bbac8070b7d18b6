"""PBN 2.1 writer: an :class:`~xlbridge.formats.model.Event` as export-format bytes.

Section 2.1 export format: ``% PBN 2.1`` and ``% EXPORT`` first, one game per board separated by an
empty line, every tag of the mandatory set; section 5.2 tables with widths from the data, numbers
right-aligned; section 5.9 ``ScoreTable`` (``^`` before an artificial score and the values that
follow from it; a Law 12C1(c) weighted score's outcomes in the user-defined column ``Outcomes``:
:mod:`xlbridge.formats.outcomes`) and 5.10 ``TotalScoreTable`` (a ``Direction`` column in a Mitchell).  Plain ASCII
when every character is ASCII, else UTF-8 with a byte-order mark (section 2.2).

>>> from xlbridge.formats.model import Board, Event, Result
>>> lines = write_pbn(Event(boards=(Board(1, results=(Result("1", "2", "4S", "N", 10, 420),)),))).splitlines()
>>> lines[:2], lines[-1]
([b'% PBN 2.1', b'% EXPORT'], b'1 2 4S N 10 420 - - - - -')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeAlias

import xlbridge

from ..core.vocabulary import Scoring, Seat
from .checks import format_number, infer_movement, refuse_switched
from .errors import FormatError
from .outcomes import outcomes_text
from .model import HOWELL, MITCHELL, SCORING_TYPES, TEAMS, Board, Event, Result, natural_key

__all__ = ["write_pbn"]

#: A column of a table written: its name and alignment (``"L"`` or ``"R"``).
Column: TypeAlias = "tuple[str, str]"

def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _check_text(s: str | None, what: str, name: str | None, element: str | None = None) -> None:
    if s is None:
        return
    if any(c in s for c in "\r\n\x00"):
        raise FormatError(f"{what} cannot contain a line break:", file=name, element=element, value=s)


def _table(tag: str, columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> list[str]:
    """Lines of a PBN table in export format: widths from the data, numbers right-aligned."""
    widths = [max([1] + [len(r[i]) for r in rows]) for i, c in enumerate(columns)]
    head = ";".join(f"{c[0]}\\{w}{c[1]}" for c, w in zip(columns, widths))
    out = [f'[{tag} "{head}"]']  # column names and widths need no escaping (section 5.2)
    for r in rows:
        out.append(" ".join(v.rjust(w) if c[1] == "R" else v.ljust(w)
                            for v, c, w in zip(r, columns, widths)).rstrip())
    return out


def write_pbn(event: Event, *, name: str | None = None) -> bytes:
    """PBN 2.1 export-format bytes of ``event``: one game per board with its ``ScoreTable``, and
    a ``TotalScoreTable`` (with a ``Direction`` column in a Mitchell) in the last game.

    ASCII when every character is ASCII, otherwise UTF-8 with a byte-order mark.  Names may not
    contain ``;`` (the PBN name separator) or line breaks.  ``name`` (the file the event was read
    from, as messages show it) starts every refusal, followed by the pair, team or board:

    >>> write_pbn(Event(site="#"), name="club.xlsx")
    Traceback (most recent call last):
    ...
    xlbridge.formats.errors.FormatError: club.xlsx: the site (PBN tag Site) cannot be written to PBN as a tag value: '#' means the previous game's value there and '?' an unknown one: '#'
    """
    refuse_switched(event, "PBN")
    mitchell = event.movement == MITCHELL
    teams = event.kind == TEAMS
    for p in event.participants:
        who = f"{'team' if teams else 'pair'} {p.label}"
        for n in p.names:
            _check_text(n, "a player name", name, who)
            if ";" in n:
                raise FormatError("a player name cannot contain ';' in PBN:", file=name, element=who, value=n)
        for n in p.ids:
            _check_text(n, "a national number", name, who)
            if ";" in n:
                raise FormatError("a national number cannot contain ';' in PBN:", file=name, element=who, value=n)
        _check_text(p.name, "a team name", name, who)
        _check_pair_number(p.number, name, who, teams)
    for t, what in ((event.name, "the event name (PBN tag Event)"), (event.site, "the site (PBN tag Site)"),
                    (event.scorer, "the scorer (xlbridge's PBN tag Scorer)")):
        _check_text(t, what, name)
        if t is not None and t.strip() in ("#", "?"):  # no escape gives them back as text
            raise FormatError(f"{what} cannot be written to PBN as a tag value: '#' means the previous game's "
                              f"value there and '?' an unknown one:", file=name, value=t)
    def has(attr: str) -> bool:
        return any(getattr(r, attr) is not None for b in event.boards for r in b.results)

    cols: list[Column] = [("PairId_NS", "R"), ("PairId_EW", "R"), ("Contract", "L"), ("Declarer", "L"), ("Result", "R")]
    if has("lead"):
        cols.append(("Lead", "L"))
    cols += [("Score_NS", "R"), ("Score_EW", "R"), ("MP_NS", "R"), ("MP_EW", "R"), ("Percentage_NS", "R"),
             ("Percentage_EW", "R")]
    if has("imp_ns") or has("imp_ew"):
        cols += [("IMP_NS", "R"), ("IMP_EW", "R")]
    if has("table"):
        cols.append(("Table", "R"))
    if has("round"):
        cols.append(("Round", "R"))
    if any(r.outcomes for b in event.boards for r in b.results):  # user-defined (section 5.2): Law 12C1(c)
        cols.append(("Outcomes", "L"))
    date = event.date.strftime("%Y.%m.%d") if event.date else "????.??.??"
    scoring = (Scoring(event.scoring) if event.scoring in SCORING_TYPES else Scoring.MP).to_pbn()
    lines = ["% PBN 2.1", "% EXPORT", "%Creator: xlbridge"]
    boards: list[Board | None] = list(event.boards) or [None]
    for k, b in enumerate(boards):
        lines.append("")
        tags = [("Event", event.name or ""), ("Site", event.site or ""), ("Date", date)]
        if event.scorer:  # (PBN 2.1 has no tag for the scorer; section 4.9: a program may add its own tags)
            tags.append(("Scorer", event.scorer))
        if b is not None:
            tags += [("Board", str(b.number)), ("West", ""), ("North", ""), ("East", ""), ("South", ""),
                     ("Dealer", b.dealer or Seat.dealer(b.number)),
                     ("Vulnerable", b.vulnerable or xlbridge.vulnerability(b.number).name),
                     ("Deal", b.deal or ""), ("Scoring", scoring), ("Declarer", "?"), ("Contract", "?"),
                     ("Result", "?")]
        else:
            tags.append(("Scoring", scoring))
        lines += [f"[{t} {_quote(v)}]" for t, v in tags]
        if b is not None and b.results:
            rows: list[list[str]] = []
            for r in b.results:
                for num in (r.ns, r.ew):
                    _check_pair_number(num, name, f"board {b.number}, {r.ns} v {r.ew}", teams)
                rows.append(_score_cells(r, cols))
            lines += _table("ScoreTable", cols, rows)
        if k == len(boards) - 1 and event.participants:
            lines += _total_table(event, mitchell)
    lines.append("")
    text = "\r\n".join(lines)
    if text.isascii():
        return text.encode("ascii")
    return b"\xef\xbb\xbf" + text.encode("utf-8")


def _score_cells(r: Result, cols: Sequence[Column]) -> list[str]:
    art = isinstance(r.score, xlbridge.Artificial)
    v = {"PairId_NS": r.ns, "PairId_EW": r.ew, "Contract": r.contract or "-",
         "Declarer": r.declarer or "-", "Result": "-" if r.tricks is None else str(r.tricks),
         "Lead": r.lead or "-", "Score_NS": "-", "Score_EW": "-",
         "MP_NS": format_number(r.mp_ns), "MP_EW": format_number(r.mp_ew), "Percentage_NS": format_number(r.pct_ns),
         "Percentage_EW": format_number(r.pct_ew), "IMP_NS": format_number(r.imp_ns), "IMP_EW": format_number(r.imp_ew),
         "Table": "-" if r.table is None else str(r.table), "Round": "-" if r.round is None else str(r.round)}
    if r.contract == "PASS":
        v["Contract"] = "Pass"
    v["Outcomes"] = _quote(outcomes_text(r)) if r.outcomes else "-"
    if isinstance(r.score, int):
        if r.score >= 0:
            v["Score_NS"] = str(r.score)
        else:
            v["Score_EW"] = str(-r.score)
    elif art:
        v["Score_NS"] = "^" + str(r.score)
        for c in ("MP_NS", "MP_EW", "Percentage_NS", "Percentage_EW", "IMP_NS", "IMP_EW"):
            if v[c] != "-":
                v[c] = "^" + v[c]
    return [v[c[0]] for c in cols]


def _check_pair_number(number: str, name: str | None, where: str, team: bool) -> None:
    """Refuse a pair (or team) number that is not one PBN table value (section 5.2: values are separated by
    white space; no quote, bracket, brace, ';' or '%') or that reads as a missing value (``-``, ``?``)."""
    if not re.fullmatch(r"[^\s\"\[\]{};%]+", number) or number in ("-", "?"):
        raise FormatError(f"a {'team' if team else 'pair'} number cannot be written to PBN:", file=name,
                          element=where, value=number)


def _total_table(event: Event, mitchell: bool) -> list[str]:
    teams = event.kind == TEAMS
    cols: list[Column] = [("Rank", "R"), ("TeamId" if teams else "PairId", "R")]
    if mitchell or (not teams and infer_movement(b.results for b in event.boards) == MITCHELL):
        cols.append(("Direction", "L"))  # all "-" in a Howell the reader would otherwise take for a Mitchell
    if teams:
        cols.append(("TeamName", "L"))
    cols += [("TotalIMP" if teams else "TotalMP", "R"), ("TotalPercentage", "R"), ("NrBoards", "R"),
             ("Names", "L")]
    if any(p.ids for p in event.participants):  # user-defined (section 5.2): the players' national numbers
        cols.append(("NationalIds", "L"))
    order = sorted(event.participants, key=lambda p: (p.direction or "", p.place is None, p.place or 0,
                                                      natural_key(p.number)))
    movement = MITCHELL if mitchell else HOWELL  # (a Mitchell's Direction cells: NS/EW; a Howell's: -)
    rows: list[list[str]] = []
    for p in order:
        v = {"Rank": "-" if p.place is None else str(p.place), "PairId": p.number, "TeamId": p.number,
             "Direction": movement.to_pbn(p.direction), "TeamName": _quote(p.name or ""),
             "TotalMP": format_number(p.total), "TotalIMP": format_number(p.total),
             "TotalPercentage": format_number(p.percentage),
             "NrBoards": "-" if p.boards is None else str(p.boards), "Names": _quote(";".join(p.names)),
             "NationalIds": _quote(";".join(p.player_ids()))}
        rows.append([v[c[0]] for c in cols])
    return _table("TotalScoreTable", cols, rows)
