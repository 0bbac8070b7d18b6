"""The read stage's check of an imported book's Leads sheet (xlbridge.batch.read.leads): a lead whose board and pairs
no traveller row has is named at its cell, the first one, with the others counted; parts written as Excel writes
them (shared strings, a namespace prefix) and parts it cannot follow (no header, damaged XML) give no mistake."""

from __future__ import annotations

from xlbridge.batch.read.leads import lead_mistakes

NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
WORDS = "a lead for a row the Travellers sheet does not have"


def _part(rows: list[tuple[int, list]], prefix: str = "", strings: list[str] | None = None) -> bytes:
    """A worksheet part of ``rows`` ((row, [cell values from column A])): text as a shared string (its index in
    ``strings``, which it joins) when ``strings`` is given, else inline."""
    p = f"{prefix}:" if prefix else ""
    out = [f'<{p}worksheet xmlns{":" + prefix if prefix else ""}="{NS}"><{p}sheetData>']
    for r, values in rows:
        out.append(f'<{p}row r="{r}">')
        for c, v in zip("ABCDEFG", values):
            if v is None:
                continue
            if isinstance(v, str) and strings is not None:
                strings.append(v)
                out.append(f'<{p}c r="{c}{r}" t="s"><{p}v>{len(strings) - 1}</{p}v></{p}c>')
            elif isinstance(v, str):
                out.append(f'<{p}c r="{c}{r}" t="inlineStr"><{p}is><{p}t>{v}</{p}t></{p}is></{p}c>')
            else:
                out.append(f'<{p}c r="{c}{r}"><{p}v>{v}</{p}v></{p}c>')
        out.append(f"</{p}row>")
    out.append(f"</{p}sheetData></{p}worksheet>")
    return "".join(out).encode()


TRAVELLERS = [(4, ["Board", "NS", "EW", "Contract"]), (5, [1, 1, 11, "4S"]), (6, [1.0, 2, 12, "3NT"]),
              (7, [2, "A1", 11, "PASS"])]


def _check(leads: list[tuple[int, list]], prefix: str = "", shared: bool = False) -> list:
    strings: list[str] | None = [] if shared else None
    parts = {"Travellers": _part(TRAVELLERS, prefix, strings), "Leads": _part(leads, prefix, strings)}
    return lead_mistakes(parts.get, lambda last: {i: s for i, s in enumerate(strings or []) if i <= last})


def test_a_lead_without_its_traveller_row_is_named_at_its_lead_cell():
    leads = [(4, ["Board", "NS", "EW", "Lead"]), (5, [1, "1", 11.0, "SK"]), (6, [2, "A1", "11", "HA"]),
             (7, [3, 1, 11, "DQ"]), (8, [1, 11, 1, "C2"]), (9, [None, None, None, None])]
    for prefix in ("", "x"):
        for shared in (False, True):
            assert _check(leads, prefix, shared) == [
                ("Leads", (7, 4), "input", f"{WORDS} (board 3, 1 v 11); publish and export refuse the book until it "
                                           f"is put right (1 more lead below without a traveller row)")]


def test_leads_on_their_rows_and_parts_it_cannot_follow_give_no_mistake():
    assert _check([(4, ["Board", "NS", "EW", "Lead"]), (5, [1, 1, 11, "SK"])]) == []
    assert _check([(4, ["Board", "Pair", "EW", "Lead"]), (5, [3, 1, 11, "SK"])]) == []  # (no NS column)
    assert _check([(5, [3, 1, 11, "SK"])]) == []  # (no header row)
    parts = {"Travellers": _part(TRAVELLERS), "Leads": _part([(4, ["Board", "NS", "EW", "Lead"])])[:-20]}
    assert lead_mistakes(parts.get, lambda last: {}) == []  # (damaged: the readers of publish and export say so)
    assert lead_mistakes({"Travellers": _part(TRAVELLERS)}.get, lambda last: {}) == []  # (no Leads sheet)


def test_a_lead_row_that_is_a_mistake_of_its_own_is_named_first_as_publish_names_it():
    """A lead row publish and export refuse (core.travellerrow.lead_row_mistake: the board, both pairs, one lead
    for a board and pairs, a card) is named at its cell, before any lead without its traveller row (those readers
    stop at it while reading the sheet)."""
    head = (4, ["Board", "NS", "EW", "Lead"])
    without_row = (5, [3, 1, 11, "SK"])
    cases = [((6, [None, 1, 11, "S3"]), (6, 1), "board number missing"),
             ((6, [2.5, 1, 11, "S3"]), (6, 1), "board number must be a whole number from 1 to 10,000, got 2.5"),
             ((6, [1, 1, None, "S3"]), (6, 3), "pair number missing"),
             ((6, [1, 1, 11, "S1"]), (6, 4), "cannot read lead card (expected e.g. SK, H7): 'S1'"),
             ((6, [3, "1", 11.0, "HA"]), (6, 4), "a second lead for board 3, 1 v 11")]
    for row, cell, words in cases:
        assert _check([head, without_row, row]) == [
            ("Leads", cell, "input", f"{words}; publish and export refuse the book until it is put right")], row
    assert _check([head, (5, [1, 1, 11, "s10"]), (6, [1, 2, 12, None])]) == []  # (10 of spades; a row without lead)

