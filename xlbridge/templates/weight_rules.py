"""The red rules of a weighted score's weights (Law 12C1(c)), as conditional formats of the pairs Travellers and the
teams Boards: a weight cell turns red where the workbook's reading of the row's outcomes and weights names it
(:func:`xlbridge.excel.travellers.read_weighted`, the same words in every command).

A row's outcomes are read left to right; a weight belongs to the outcome beside it. The rules, in the reader's
order:

* an outcome with no weight, when the row has more than one outcome (red at that weight);
* a weight that is no weight: text that is no number or percentage, a logical, below 0, above 100 %
  (:func:`xlbridge.core.pairs.weighted.parse_weight`: a number above 1 is a percentage; red at that weight);
* the weights of the row's outcomes not totalling 100 % (red at the first weight), a lone outcome's blank weight
  counting as 100 %.

A weight typed as a fraction in text (``"3/5"``) is read by the reader, but Excel's ``VALUE`` takes it for a date: such
a weight is never red here (the row's result names any mistake it makes). Standard functions only: Excel and
LibreOffice show the rules as they are written.

>>> rules = weights_unread("H", "K", 5)
>>> sorted(rules)
['K', 'L', 'M']
>>> rules["L"][:40]
'IFERROR(OR(AND(($I5&""<>""),$L5="",(($H5'
"""

from __future__ import annotations

from openpyxl.utils import column_index_from_string, get_column_letter

__all__ = ["weights_unread"]

#: the outcomes (and weights) of a weighted row: the score and two more
OUTCOMES = 3


def _shift(letter: str, by: int) -> str:
    return get_column_letter(column_index_from_string(letter) + by)


def weights_unread(first_outcome: str, first_weight: str, row: int) -> dict[str, str]:
    """Each weight column's red rule (Excel's words, for the table's first row ``row``), by column letter: the
    outcomes in ``first_outcome`` and the two columns to its right, their weights from ``first_weight`` on.

    >>> weights_unread("C", "F", 5)["F"].count("ROUND(")
    1
    """
    outs = [f"${_shift(first_outcome, k)}{row}" for k in range(OUTCOMES)]
    ws = [f"${_shift(first_weight, k)}{row}" for k in range(OUTCOMES)]
    given = [f'({o}&""<>"")' for o in outs]
    n = "(" + "+".join(given) + ")"

    def number(w: str) -> str:  # the weight as the reader takes it (a number above 1 a percentage), or an error
        return f"IF(VALUE({w})>1,VALUE({w})/100,VALUE({w}))"

    def bad(w: str) -> str:  # a weight given that is none (a fraction in text not judged: see the module)
        return (f'AND({w}<>"",ISERROR(FIND("/",{w}&"")),'
                f'IFERROR(OR(ISLOGICAL({w}),VALUE({w})<0,VALUE({w})>100),TRUE))')

    def missing(k: int) -> str:
        return f'AND({given[k]},{ws[k]}="",{n}>1)'

    def readable(k: int) -> str:  # the outcome's weight read: no outcome, a lone outcome's blank, or a weight
        return f'OR(NOT{given[k]},AND({ws[k]}="",{n}=1),AND({ws[k]}<>"",NOT({bad(ws[k])}),ISERROR(FIND("/",{ws[k]}&""))))'

    def part(k: int) -> str:
        return f'IF(NOT{given[k]},0,IF({ws[k]}="",1,{number(ws[k])}))'

    total = "+".join(part(k) for k in range(OUTCOMES))
    rules = {}
    for k in range(OUTCOMES):
        own = f"OR({missing(k)},AND({given[k]},{bad(ws[k])}))"
        if k == 0:
            readable_all = ",".join(readable(j) for j in range(OUTCOMES))
            # (the total only when every weight is read: an error there must not hide the cell's own mistake)
            own = f"OR({own},IFERROR(AND({n}>=1,{readable_all},ROUND({total},9)<>1),FALSE))"
        rules[_shift(first_weight, k)] = f"IFERROR({own},FALSE)"
    return rules
