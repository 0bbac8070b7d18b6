"""The red rule of an N-S score typed on a board (a pairs Typed Score, a teams room's score or outcome), as the
conditional formats of the pairs Travellers and the teams Boards say it: a number that no contract makes at the
board's vulnerability, or a text that is neither a number, an artificial score nor ``NP`` (the readers' verdict:
:func:`xlbridge.core.contract.check_score` at the board's vulnerability, Law 77). Standard functions only: Excel and
LibreOffice show it as it is typed.

>>> score_not_on_board("$A5", "$G5")[:47]
'IFERROR(IF(ISNUMBER(-$G5),NOT(OR(ISNUMBER(FIND('
"""

from __future__ import annotations

from ..core.contract import declarer_scores
from ..core.vocabulary import Vulnerability

__all__ = ["score_not_on_board", "texts"]


def texts(text: str) -> str:
    """``text`` as Excel texts joined by ``&`` (a text in a formula: at most 255 characters), cut at ``|``.

    >>> texts("|1|2|")
    '"|1|2|"'
    """
    chunks, at = [], 0
    while at < len(text):
        end = len(text) if len(text) - at <= 250 else text.rindex("|", at, at + 250)
        chunks.append(text[at:end])
        at = end
    return "&".join(f'"{c}"' for c in chunks)


def score_not_on_board(board: str, score: str) -> str:
    """The rule (Excel's words) that the N-S score in cell ``score`` is no score on the board numbered in cell
    ``board``: a number (or a number as text) that no contract makes at the board's vulnerability (the standard
    16-board cycle, :meth:`xlbridge.core.vocabulary.Vulnerability.of_board`; the scores N-S make or lose declaring at
    N-S's vulnerability, E-W's negated at E-W's, or 0: :func:`xlbridge.core.contract.declarer_scores`), e.g. 410 on
    any board, 620 where N-S are not vulnerable; or a text that is neither a number, an artificial score (``A...``)
    nor ``NP``. FALSE for a blank score, and where the board is no board number (red at the board instead)."""
    lists = {v: "|" + "|".join(str(x) for x in sorted(declarer_scores(v) | {0})) + "|" for v in (False, True)}
    names = ["None", "NS", "EW", "All"]
    cycle = ",".join(str(names.index(Vulnerability.of_board(b).name)) for b in range(1, 17))
    k = f"CHOOSE(MOD(VALUE({board})-1,16)+1,{cycle})"  # 0 None, 1 N-S, 2 E-W, 3 both vulnerable
    ns = f"IF(OR({k}=1,{k}=3),{texts(lists[True])},{texts(lists[False])})"
    ew = f"IF(OR({k}=2,{k}=3),{texts(lists[True])},{texts(lists[False])})"
    word = f"UPPER(TRIM({score}))"
    return (f'IFERROR(IF(ISNUMBER(-{score}),NOT(OR(ISNUMBER(FIND("|"&(-{score})*-1&"|",{ns})),'
            f'ISNUMBER(FIND("|"&-{score}&"|",{ew})))),AND({word}<>"NP",LEFT({word},1)<>"A")),FALSE)')
