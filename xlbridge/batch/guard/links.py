"""Links to other workbooks, never followed: what the formulas engine may open, and what it is refused.

formulas 1.3 loads another workbook whenever a cell, a defined name or an ``INDIRECT("...")`` text
names one. :func:`defuse_external_links` gives the engine's model the one file it may open and the
cached copies of linked books the workbook carries (``xl/externalLinks/externalLinkN.xml``); every
other book is refused (:class:`ExternalLinkRefused`), and its cells are ``#REF!`` "link to another
workbook not followed" (docs/recalc.md, "Links to other workbooks").

>>> names_other_book("='[secret.xlsx]S'!A1"), names_other_book("=SUM(A1:B2)")
(True, False)
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Any

from ..cells import ExcelErrorValue

__all__ = [
    "BOOK_OF_NODE",
    "DDE_NOT_FOLLOWED",
    "ExternalLinkRefused",
    "LINK_NOT_FOLLOWED",
    "LinkState",
    "cached_workbook",
    "defuse_external_links",
    "names_other_book",
    "quote_other_books",
    "split_node",
    "unfollowed_cells",
]


LINK_NOT_FOLLOWED = "link to another workbook not followed"

DDE_NOT_FOLLOWED = "link to another program (DDE) not followed"


# --------------------------------------------------------------------------------------------------
# links to other workbooks: never followed


class ExternalLinkRefused(LookupError):
    """The engine asked for another workbook; it is not opened (the cell becomes #REF!)."""


@dataclasses.dataclass
class LinkState:
    """What :func:`defuse_external_links` gives the model: the one file it may open and the cached links."""

    path: str  # the engine's copy of the workbook: the only file the engine opens
    links: tuple = ()  # ExternalBookCache, link 1 first
    book: object = None  # the workbook read without its cells (openpyxl), when the sheets come streamed
    sheets: dict = dataclasses.field(default_factory=dict)  # {SHEET: SheetRead}: the streamed sheets
    main: str | None = None  # key of the workbook in model.books
    link_names: dict = dataclasses.field(default_factory=dict)  # {"1": ("", "secret.xlsx")}
    by_name: dict = dataclasses.field(default_factory=dict)  # {"SECRET.XLSX": ExternalBookCache}
    refused: set = dataclasses.field(default_factory=set)  # book names asked for and not opened
    cell_messages: dict = dataclasses.field(default_factory=dict)  # {(SHEET, ref): message}


def _link_file_names(links, main: str) -> dict:
    """{index: file name} for the links: the linked file's own name, made unique and never the workbook's.

    >>> from xlbridge.batch.read.bookparts import ExternalBookCache as L
    >>> _link_file_names([L(1, "../a/secret.xlsx", {}), L(2, "secret.xlsx", {}), L(3, "workbook.xlsx", {})],
    ...                  "WORKBOOK.XLSX")
    {1: 'secret.xlsx', 2: 'link2-secret.xlsx', 3: 'link3-workbook.xlsx'}
    """
    out, seen = {}, {main.upper()}
    for link in links:
        base = re.sub(r"[\[\]'!\x00-\x1f]", "", link.file_name)[:100] or f"link{link.index}"
        if base.upper() in seen or base.isdigit():
            base = f"link{link.index}-{base}"
        seen.add(base.upper())
        out[link.index] = base
    return out


def defuse_external_links(model: Any, path: str, links: Any = (), *, book: Any = None,
                          sheets: dict | None = None) -> LinkState:
    """Make ``model`` (a model of :func:`xlbridge.batch.evaluate.model.model_class`) unable to open any
    file but ``path``; the :class:`LinkState` it is given (through its own ``defuse``), returned.

    formulas 1.3 loads another workbook whenever a cell, a defined name or an ``INDIRECT("...")`` text
    names one (``[secret.xlsx]S!A1``, ``'/srv/club/[secret.xlsx]S'!A1``, ``[1]S!A1`` through the
    workbook's externalLink parts, URL and UNC paths alike): ``ExcelModel.complete`` calls
    ``add_book(name)``, which opens ``basedir/name`` with openpyxl. After this step ``add_book`` of
    the model opens ``path`` once (the workbook itself, with openpyxl's ``keep_links=False``) and
    never anything else: a link whose cached copy the workbook carries (``links``, from
    ``xl/externalLinks/externalLinkN.xml``) is served from that copy, as Excel does when links are not
    updated; any other book name raises :class:`ExternalLinkRefused`, which the engine turns into
    ``#REF!`` (and :func:`recalc_values` reports as "link to another workbook not followed").

    ``book`` and ``sheets``: the workbook already read without its cells and its sheets read by
    :func:`xlbridge.batch.read.sheetxml.read_sheet` ({sheet name: SheetRead}); the model then opens no
    file at all and takes each sheet's cells from ``sheets`` (constants as range blocks).
    """
    state = LinkState(os.path.realpath(path), tuple(links), book,
                       {name.upper(): read for name, read in (sheets or {}).items()})
    main = os.path.basename(path).upper()
    names = _link_file_names(state.links, main)
    for link in state.links:
        state.link_names[str(link.index)] = ("", names[link.index])
        state.by_name[names[link.index].upper()] = link
    model.defuse(state)
    return state


def cached_workbook(link: Any) -> Any:
    """An in-memory openpyxl workbook holding a link's cached values (nothing is read from disk)."""
    import openpyxl

    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for title, cells in link.sheets.items():
        try:
            ws = wb.create_sheet(title=title)
        except (ValueError, TypeError):  # a name openpyxl refuses: that sheet reads as #REF!
            continue
        if ws.title != title:
            wb.remove(ws)
            continue
        for (r, c), v in cells.items():
            cell = ws.cell(r, c)
            if isinstance(v, ExcelErrorValue):
                cell._value, cell.data_type = v.code, "e"
            elif isinstance(v, str):
                cell._value, cell.data_type = v, "s"  # text as text, never a formula
            else:
                cell.value = v
    return wb


BOOK_OF_NODE = re.compile(r"^'?(?P<dir>[^\[']*)\[(?P<file>[^\]]+)\]")


def unfollowed_cells(model: Any, state: LinkState) -> set:
    """{(SHEET, ref)} of the workbook's cells that depend on a book that was not opened."""
    dmap = model.dsp.dmap
    start = []
    for node in model.dsp.data_nodes:  # every node of another book (a cached copy may lack the sheet or cell)
        if not isinstance(node, str):
            continue
        m = BOOK_OF_NODE.match(node)
        if m and (m.group("dir") not in ("", ".") or m.group("file").upper() != state.main):
            start.append(node)
    seen, stack = set(start), list(start)
    while stack:
        for nxt in dmap.succ.get(stack.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    out = set()
    for node in seen:
        if isinstance(node, str) and "!" in node:
            m = BOOK_OF_NODE.match(node)
            if m and m.group("dir") in ("", ".") and m.group("file").upper() == state.main:
                sheet, ref = split_node(node)
                out.add((sheet, ref))
                out.add((sheet, ref.split(":", 1)[0]))
    return out


def split_node(node: str) -> tuple[str, str]:
    """("SHEET", "A1") of an engine node name such as ``'[workbook.xlsx]SHEET'!A1``.

    >>> split_node("'[workbook.xlsx]MY SHEET'!B2:C3")
    ('MY SHEET', 'B2:C3')
    """
    sheet_part, ref = node.rsplit("!", 1)
    sheet = sheet_part[1:-1] if sheet_part.startswith("'") and sheet_part.endswith("'") else sheet_part
    sheet = (sheet.split("]", 1)[1] if "]" in sheet else sheet).replace("''", "'")
    return sheet.upper(), ref.upper()


# [file]Sheet! in any form, or a name of another book: secret.xlsx!Name
_OTHER_BOOK = re.compile(r"\[[^\[\]\"]+\][^!\"]*!|(?<![\w'\].])[\w .-]*\.xl[a-z]{1,2}'?!", re.IGNORECASE)

# [file]Sheet! without quotes, after an optional folder (/srv/x/, C:\x\, \\server\share\)
_UNQUOTED_OTHER_BOOK = re.compile(
    r"(?<!['\w])((?:(?:[A-Za-z]:)?[\\/][^\s'\"\[\]!(),;]*)?\[[^\[\]'\"!]+\][A-Za-z_][\w.]*)!")


def names_other_book(text: str) -> bool:
    """Whether a formula's text names a cell of another workbook (``[file]Sheet!A1`` in any form).

    >>> names_other_book("SUM('[secret.xlsx]S:T'!A1)"), names_other_book("SUM(A1:B2)")
    (True, False)
    >>> names_other_book("secret.xlsx!Total"), names_other_book("SUM(Sheet1!A1)")
    (True, False)
    """
    return bool(_OTHER_BOOK.search(text))


def quote_other_books(text: str) -> str:
    """``[file]Sheet!A1`` written without quotes, quoted as Excel writes it: ``'[file]Sheet'!A1``.

    >>> quote_other_books("[secret.xlsx]S!$A$1+1")
    "'[secret.xlsx]S'!$A$1+1"
    >>> quote_other_books("/srv/club/[secret.xlsx]S!$A$1")
    "'/srv/club/[secret.xlsx]S'!$A$1"
    """
    return _UNQUOTED_OTHER_BOOK.sub(r"'\1'!", text)
