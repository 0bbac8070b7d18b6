"""Adapters of the instant matchpoint functions: INSTANT_MP, INSTANT_AWARD (seed 002).

>>> instant_mp([420, 400, -50], [5, 3, 2], "None")[1]
[420, 420, 75]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.contract import legal_mask, vulnerability_index
from ...core.errors import InputError, XlbridgeError
from ...core.instant.chart import InstantChart, instant_chart
from .. import cells as xl
from ..elementwise import Cells, elementwise, number_line, shaped
from ..travellers import same_length

def _chart(scores: Cells, frequencies: Cells, vulnerable: Cells) -> InstantChart:
    vul = xl.optional(vulnerable, None)
    if vul is None:
        raise InputError("vulnerability is missing (None, NS, EW, All or a board number)", where="vulnerable")
    s = xl.read_column(scores, "scores")
    f = xl.read_column(frequencies, "frequencies")
    same_length({"scores": s.cells, "frequencies": f.cells})
    if len(s) and s.whole.all() and f.whole.all():  # plain whole numbers: straight to the core, vectorised
        return instant_chart(s.ints(), f.ints(), vul)
    pairs = [(i, a, b) for i, (a, b) in enumerate(zip(s.cells, f.cells)) if not (xl.is_blank(a) and xl.is_blank(b))]
    for i, a, b in pairs:
        for v, what in ((a, "score"), (b, "frequency")):
            err = xl.error_literal(v)
            if err is not None:
                raise InputError(f"the {what} cell holds {err}", where=f"row {i + 1}")
    sc = [xl.as_int(a, "scores", where=f"row {i + 1}") for i, a, _ in pairs]
    fr = [xl.as_int(b, "frequencies", where=f"row {i + 1}", minimum=0) for i, _, b in pairs]
    return instant_chart(sc, fr, vul)


def instant_mp(scores: Cells, frequencies: Cells, vulnerable: Cells) -> list[list[Any]]:
    """k x 3 award chart: lowest N-S score, highest N-S score, award %, top row first (seed 002).

    Ten results: 420 five times, 400 three times, -50 twice. 420 beats 5 and shares its score
    with 5: (5 + 5/2) / 10 = 75 %; 400: (2 + 3/2) / 10 = 35 % (xlbridge.core.instant).

    >>> instant_mp([420, 400, -50], [5, 3, 2], "None")[1:3]
    [[420, 420, 75], [400, 400, 35]]
    """
    if _no_history(scores, frequencies):  # an empty template: an empty chart, not a message
        return [[None, None, None]]
    chart = _chart(scores, frequencies, vulnerable)
    return [[xl.to_cell(lo), xl.to_cell(hi), xl.to_cell(aw)] for lo, hi, aw in chart.rows]


def _no_history(scores: Cells, frequencies: Cells) -> bool:
    """True when every historical score and frequency cell is blank (nothing typed in yet).

    >>> _no_history([[None], [None]], [[None], [""]]), _no_history([[420]], [[None]])
    (True, False)
    """
    return all(xl.is_blank(v) for x in (scores, frequencies) for row in xl.grid(x) for v in row)


def instant_award(score: Cells, scores: Cells, frequencies: Cells, vulnerable: Cells) -> Any:
    """The N-S award (%) of each ``score`` from the chart of the historical scores (seed 002).

    A score no contract gives (410 when nobody is vulnerable) is ``#VALUE!`` in its cell.

    >>> instant_award([[420], [410]], [420, 400, -50], [5, 3, 2], "None")
    [[75], [ExcelError('#VALUE!')]]
    """
    if _no_history(scores, frequencies):  # blank scores stay blank (an empty template); a typed one is refused
        def no_chart(_score: Any) -> Any:
            raise InputError("no historical results: an instant chart needs at least one score")

        return elementwise(no_chart, {"score": score}, blank_if=("score",))
    chart = _chart(scores, frequencies, vulnerable)
    line = number_line(score, "score")
    if line is not None and line[0].whole.all():  # a column of plain whole numbers: one look-up
        ints = line[0].ints()
        try:  # every score legal (the common case): one look-up, which checks them itself
            aw = chart.awards(ints)
            return shaped(aw if aw.dtype.kind == "i" else [xl.to_cell(a) for a in aw.tolist()], line[1])
        except XlbridgeError:
            ok = legal_mask(ints, vulnerability_index(chart.vulnerable))
            if ok.all():
                raise  # not an illegal score: the chart's own refusal
        awards = np.zeros(len(ints), dtype=object)
        if ok.any():
            awards[ok] = chart.awards(ints[ok]).astype(object)
        cells = [a if good else xl.VALUE for a, good in zip(awards.tolist(), ok.tolist())]
        return shaped([xl.to_cell(a) for a in cells], line[1])
    return elementwise(lambda score: chart.award(xl.as_int(score, "score")), {"score": score}, blank_if=("score",))
