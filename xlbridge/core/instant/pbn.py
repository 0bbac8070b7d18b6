"""Instant matchpoint charts as PBN: the ``InstantScoreTable`` section of PBN 2.1 (section 5.5).

:func:`chart_to_pbn` writes a chart (one row per chart row, top first, with a ``[Vulnerable]`` tag
so that the legal scores are known when it is read back); :func:`chart_from_pbn` reads one.
Pure text processing (standard library, numpy for the legal-score search).

>>> from xlbridge.core.instant.chart import instant_chart
>>> c = chart_from_pbn(chart_to_pbn(instant_chart([420, 400], [3, 1], "None")))
>>> c.table()
[(430, 7000, 100), (420, 420, 63), (400, 400, 13), (-7000, 380, 0)]
"""

from __future__ import annotations

import bisect
import re
from fractions import Fraction

import numpy as np

from ..contract import check_score, vulnerability
from ..errors import InputError, shown
from .chart import ChartRow, InstantChart, legal_array

__all__ = ["chart_to_pbn", "chart_from_pbn"]

_PBN_COLUMNS = ("Rank", "ScoreRange_NS", "ScoreRange_EW", "Percentage_NS", "Percentage_EW")


def _fmt_pct(x: int | Fraction) -> str:
    x = Fraction(x)
    if x.denominator == 1:
        return str(x.numerator)
    for d in range(1, 7):
        if (x * 10**d).denominator == 1:
            return f"{float(x):.{d}f}"
    return f"{float(x):.2f}"


def _pbn_range(row: ChartRow, above: int | None, below: int | None, *, ew: bool) -> str:
    """PBN 2.1 section 5.5 ``<score_range>``: ``s``, ``s1,*``, ``s1,s2``, ``*,s2`` (open bounds)."""
    if row.kind == "score":
        return str(-row.low if ew else row.low)
    if ew:  # the E-W view: the range mirrored
        below, above = (None if above is None else -above), (None if below is None else -below)
    lo = "*" if below is None else str(below)  # gap lies strictly above `below` and below `above`
    hi = "*" if above is None else str(above)
    return f"{lo},{hi}"


def chart_to_pbn(chart: InstantChart, *, with_vulnerable: bool = True) -> str:
    """The chart as a PBN 2.1 ``InstantScoreTable`` section (PBN 2.1 standard, section 5.5).

    Columns Rank, ScoreRange_NS, ScoreRange_EW, Percentage_NS, Percentage_EW, one row per chart
    row, top first; a historical score is written as itself, a gap as the open range between the
    nearest legal scores outside it, which are its neighbouring historical scores (``800,980``;
    ``980,*`` above the top one, ``*,-100`` below the bottom one). With ``with_vulnerable`` a ``[Vulnerable "..."]`` tag comes first, so that
    :func:`chart_from_pbn` can tell which scores are legal.

    >>> from xlbridge.core.instant.chart import instant_chart
    >>> print(chart_to_pbn(instant_chart([420, 400], [3, 1], "None")))
    [Vulnerable "None"]
    [InstantScoreTable "Rank\\1R;ScoreRange_NS\\5R;ScoreRange_EW\\6R;Percentage_NS\\3R;Percentage_EW\\3R"]
    1 420,* *,-420 100   0
    2   420   -420  63  37
    3   400   -400  13  87
    4 *,400 -400,*   0 100
    """
    rows = chart.rows
    legal = legal_array(chart.vulnerable).tolist()
    table = []
    for i, r in enumerate(rows):
        # a gap is the open range between the nearest legal scores outside it (for a built chart:
        # the neighbouring historical scores)
        j = bisect.bisect_left(legal, r.low)
        below = legal[j - 1] if j > 0 else None
        j = bisect.bisect_right(legal, r.high)
        above = legal[j] if j < len(legal) else None
        table.append(
            (str(i + 1), _pbn_range(r, above, below, ew=False), _pbn_range(r, above, below, ew=True),
             _fmt_pct(r.award), _fmt_pct(100 - r.award))
        )
    widths = [max(len(t[c]) for t in table) for c in range(5)]
    head = ";".join(f"{name}\\{w}R" for name, w in zip(_PBN_COLUMNS, widths))
    lines = [f'[Vulnerable "{chart.vulnerable.name}"]'] if with_vulnerable else []
    lines.append(f'[InstantScoreTable "{head}"]')
    lines += [" ".join(v.rjust(w) for v, w in zip(t, widths)) for t in table]
    return "\n".join(lines)


_TAG_RE = re.compile(r'^\s*\[\s*(\w+)\s+"([^"]*)"\s*\]', re.MULTILINE)
_TOKEN_RE = re.compile(r'"[^"]*"|[^\s]+')
_INT_RE = re.compile(r"^[+-]?\d+$")
_PCT_RE = re.compile(r"^\d+(?:\.\d+)?$")


def _parse_bound(tok: str, where: str) -> int | None:
    if tok == "*":
        return None
    if not _INT_RE.match(tok):
        raise InputError(f"cannot read score {shown(tok)} in a score range", where=where)
    return int(tok)


def _parse_range(text: str, *, ew: bool, where: str) -> tuple[str, int | None, int | None]:
    """Return (kind, exclusive_low, exclusive_high) or (kind, score, score) as N-S scores."""
    if "," in text:
        parts = text.split(",")
        if len(parts) != 2 or parts == ["*", "*"]:
            raise InputError(f"cannot read score range {shown(text)} (expected s, s1,*, s1,s2 or *,s2)", where=where)
        lo, hi = (_parse_bound(p.strip(), where) for p in parts)
        if lo is not None and hi is not None and lo >= hi:
            raise InputError(f"score range {shown(text)} is empty (the first score must be the lower)", where=where)
        if ew:
            lo, hi = (None if hi is None else -hi), (None if lo is None else -lo)
        return "gap", lo, hi
    s = _parse_bound(text.strip(), where)
    if s is None:
        raise InputError(f"cannot read score range {shown(text)}", where=where)
    return "score", (-s if ew else s), (-s if ew else s)


def chart_from_pbn(text: str, vulnerable: object = None) -> InstantChart:
    """Read the first PBN 2.1 ``InstantScoreTable`` section in ``text`` into a chart.

    The vulnerability comes from ``vulnerable`` or from a ``[Vulnerable "..."]`` tag before the
    table (InputError if neither, or if they disagree). Columns may come in any order with widths
    (``\\3R``) and order marks (``+``/``-``); ScoreRange_NS or ScoreRange_EW and Percentage_NS or
    Percentage_EW are needed (if both percentages are given they must add up to 100). A range that
    holds no legal score is skipped. Rows must not overlap, and awards must not rise from a lower
    score to a higher one. ``matchpoints`` and ``percent`` of the rows are ``None``.

    >>> from xlbridge.core.instant.chart import instant_chart
    >>> c = chart_from_pbn(chart_to_pbn(instant_chart([420, 400], [3, 1], "None")))
    >>> c.table()
    [(430, 7000, 100), (420, 420, 63), (400, 400, 13), (-7000, 380, 0)]
    """
    if not isinstance(text, str):
        raise InputError(f"PBN text expected, got {type(text).__name__}")
    tags = list(_TAG_RE.finditer(text))
    pos = next((i for i, m in enumerate(tags) if m.group(1) == "InstantScoreTable"), None)
    if pos is None:
        raise InputError("no InstantScoreTable section in the PBN text")
    tab = tags[pos]
    vul_tag = next((m.group(2) for m in reversed(tags[:pos]) if m.group(1) == "Vulnerable"), None)
    if vulnerable is None and vul_tag is None:
        raise InputError("the vulnerability is needed: give vulnerable= or a [Vulnerable] tag before the table")
    vul = vulnerability(vulnerable if vulnerable is not None else vul_tag)
    if vulnerable is not None and vul_tag is not None and vulnerability(vul_tag) != vul:
        raise InputError(f"vulnerable={shown(vulnerable)} disagrees with the [Vulnerable \"{vul_tag}\"] tag")

    cols = []
    for c in tab.group(2).split(";"):
        name = c.strip().lstrip("+-").split("\\")[0].strip()
        if name:
            cols.append(name)
    if not cols:
        raise InputError("the InstantScoreTable tag names no columns")
    rng_col = "ScoreRange_NS" if "ScoreRange_NS" in cols else ("ScoreRange_EW" if "ScoreRange_EW" in cols else None)
    if rng_col is None or not ({"Percentage_NS", "Percentage_EW"} & set(cols)):
        raise InputError(f"InstantScoreTable columns {cols}: need ScoreRange_NS or _EW and Percentage_NS or _EW")

    body: list[str] = []
    rest = text[tab.end():]
    nl = rest.find("\n")
    for line in (rest[nl + 1:].splitlines() if nl >= 0 else []):
        st = line.strip()
        if st.startswith("[") or (not st and body):
            break  # the next tag, or the empty line that ends a game
        if not st or st.startswith("%"):
            continue
        body.extend(t.strip('"') for t in _TOKEN_RE.findall(re.sub(r"\{[^}]*\}", " ", line)))
    if not body or len(body) % len(cols):
        raise InputError(f"InstantScoreTable has {len(body)} elements: not a whole number of {len(cols)}-column rows")

    legal = legal_array(vul)
    parsed: list[tuple[int, int, int | Fraction, str, str]] = []
    for r in range(len(body) // len(cols)):
        vals = dict(zip(cols, body[r * len(cols):(r + 1) * len(cols)]))
        loc = f"InstantScoreTable row {r + 1}"
        kind, lo, hi = _parse_range(vals[rng_col], ew=rng_col.endswith("EW"), where=loc)
        pct = {}
        for side in ("NS", "EW"):
            v = vals.get(f"Percentage_{side}")
            if v is None:
                continue
            if not _PCT_RE.match(v) or Fraction(v) > 100:
                raise InputError(f"cannot read percentage {shown(v)} (expected a number 0-100)", where=loc)
            pct[side] = Fraction(v)
        if "NS" in pct and "EW" in pct and pct["NS"] + pct["EW"] != 100:
            raise InputError(f"Percentage_NS {vals['Percentage_NS']} and Percentage_EW {vals['Percentage_EW']} "
                             "do not add up to 100", where=loc)
        exact_award = pct["NS"] if "NS" in pct else 100 - pct["EW"]
        award: int | Fraction = int(exact_award) if exact_award.denominator == 1 else exact_award
        if kind == "score":
            low = high = check_score(lo, vul, where=loc)
        else:
            i0 = 0 if lo is None else int(np.searchsorted(legal, lo, side="right"))
            i1 = len(legal) if hi is None else int(np.searchsorted(legal, hi, side="left"))
            if i0 >= i1:
                continue  # no legal score in this range
            low, high = int(legal[i0]), int(legal[i1 - 1])
        parsed.append((low, high, award, kind, loc))
    if not parsed:
        raise InputError("the InstantScoreTable covers no legal score")
    parsed.sort(key=lambda x: -x[0])
    for (l1, h1, a1, _, loc1), (l2, h2, a2, _, loc2) in zip(parsed, parsed[1:]):
        if h2 >= l1:
            raise InputError(f"{loc1} and {loc2} overlap (both cover N-S {max(l1, l2)})")
        if a2 > a1:
            raise InputError(f"award {_fmt_pct(a2)} for N-S {h2} is above award {_fmt_pct(a1)} for the higher "
                             f"N-S {l1} ({loc1})", where=loc2)
    rows = tuple(ChartRow(lo, hi, a, kind, None, None) for lo, hi, a, kind, _ in parsed)
    return InstantChart(rows, vul)
