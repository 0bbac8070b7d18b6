"""A mistake is red on the input cell where it was typed, in a row inserted directly below a table's header too, and
that row has the table's input prompts (issue 52), in LibreOffice.

LibreOffice, driven through its UNO bridge (the run's LibreOffice, tests/office.py), inserts a row directly below
the header of each filled example's input table (the first place many members insert) and types into it;
``xlbridge recalc`` recalculates the pairs and teams books. Read back with openpyxl: the validation (the yellow
cells' input prompt) and the red conditional formats of the table's first row cover the inserted row. Whether a
cell is red is then asked of LibreOffice itself: each red rule covering a probed cell (as LibreOffice saved it,
moved by its insertion), written into a spare cell at that position and computed by LibreOffice on the saved book.

Expected verdicts are worked by hand from the Laws and the books' rows: 8S is no contract (a level is 1 to 7), 410
is no score at any vulnerability (4 of a major making is 420 or 620, 3NT+1 430), match 9 is not on the Matches
sheet (matches 1 and 2), board 1 of match 2 is on the Boards sheet already, pairs 7 and 17 are not on the pairs
example's Pairs sheet, a board with room 1's score only is missing room 2's.
"""

from __future__ import annotations

import re
from pathlib import Path

import openpyxl
import pytest
from office import available as office_available
from openpyxl.formula.translate import Translator
from openpyxl.utils.cell import coordinate_from_string, column_index_from_string, range_boundaries

pytestmark = pytest.mark.skipif(not office_available(), reason="LibreOffice with python3-uno is not installed")

#: the rows of each long table of the test books (``recalc_helpers.small_build``)
SMALL_ROWS = 100
RED = "FFFF0000"

#: Per book: the table's sheet, whether LibreOffice inserts cells (the sheet's parameters share the table's rows)
#: or whole rows, the table's columns, what is typed into the inserted row 5 and into other rows (after the
#: insertion), and the probed cells: True where red, False where not.
CASES = {
    "pairs.xlsx": dict(
        sheet="Travellers", cols="A:P", cells=False,
        typed={"A5": 2, "B5": 7, "C5": 17, "D5": "8S", "E5": "W", "F5": 8,  # no contract: red at the contract
               "G20": 410,  # board 3 (N-S 3 v E-W 14, typed 420 in the example): no score at any vulnerability
               "C7": "12"},  # E-W 12 typed as text (the example has 12): the Pairs sheet's pair 12 all the same
        # pairs 7 and 17 are not on the example's Pairs sheet (1-6, 11-16): red at the pair
        red={"D5": True, "A5": False, "B5": True, "C5": True, "E5": False, "F5": False, "B6": False, "C6": False,
             "C7": False, "G20": True, "G21": False, "D6": False, "D4": False, "A4": False, "B4": False}),
    "teams.xlsx": dict(
        sheet="Boards", cols="A:I", cells=False,
        typed={"A5": 9, "B5": 1, "C5": 410, "I5": 420,  # match 9 (not on Matches), room 1 410 (no score)
               "A16": 2, "B16": 1, "C16": 450, "I16": 420,  # board 1 of match 2 again (row 13 has it)
               "J7": 3,  # a value typed over IMPs A (match 1, board 2)
               "I8": None},  # match 1 board 3's room 2 emptied: room 1 only
        red={"A5": True, "C5": True, "B5": False, "I5": False, "A6": False, "B6": False, "C6": False,
             "I8": True, "C8": False, "I9": False,
             "B16": True, "A16": False, "C16": False, "B13": False, "A4": False, "C4": False,
             "J7": True, "J8": False, "J4": False}),
    "instant.xlsx": dict(sheet="Results", cols="A:D", cells=False, typed={}, red={}),
    "lehman.xlsx": dict(sheet="Ledger", cols="A:G", cells=True, typed={}, red={}),
    "handicap.xlsx": dict(sheet="Handicaps", cols="A:C", cells=False, typed={}, red={}),
}


def _covers(sqref, cell: str) -> bool:
    col, row = coordinate_from_string(cell)
    c = column_index_from_string(col)
    for rng in sqref.ranges:
        c1, r1, c2, r2 = range_boundaries(rng.coord)
        if c1 <= c <= c2 and r1 <= row <= r2:
            return True
    return False


def _red_rules(ws, cell: str) -> list[str]:
    """The formulas of the red conditional formats covering ``cell``, each as that cell reads it."""
    out = []
    for cf in ws.conditional_formatting:
        if not _covers(cf.sqref, cell):
            continue
        top = min((range_boundaries(r.coord)[1], range_boundaries(r.coord)[0]) for r in cf.sqref.ranges
                  if _covers(type(cf.sqref)(r.coord), cell))
        origin = f"{openpyxl.utils.get_column_letter(top[1])}{top[0]}"
        for rule in cf.rules:
            fill = rule.dxf.fill if rule.dxf is not None else None
            if fill is None or (fill.fgColor.rgb != RED and fill.bgColor.rgb != RED):
                continue
            for f in rule.formula:
                out.append(Translator(f"={f}", origin=origin).translate_formula(cell)[1:])
    return out


def _api(formula: str) -> str:
    """A formula in Excel's words as LibreOffice's API reads one: arguments apart by ``;``, no ``_xlfn.``, another
    sheet's cells ``$Sheet.A1``."""
    def native(part: str) -> str:  # (and another sheet's cells as LibreOffice's own words say them: $Sheet.A1)
        part = re.sub(r"(?:'([^']+)'|([A-Za-z_][A-Za-z0-9_]*))!(\$?[A-Z]+\$?[0-9]+)(?::(\$?[A-Z]+\$?[0-9]+))?",
                      lambda m: (f"$'{m[1]}'" if m[1] else f"${m[2]}") + f".{m[3]}" + (f":{m[4]}" if m[4] else ""), part)
        return part.replace(",", ";").replace("_xlfn.", "")

    parts = re.split(r'("[^"]*")', formula)
    return "".join(p if p.startswith('"') else native(p) for p in parts)


def _inserted(name: str, folder: Path, office) -> tuple[Path, Path]:
    """(the small example ``name`` with a row inserted below its table's header and typed into by LibreOffice,
    the same recalculated by ``xlbridge recalc`` for pairs and teams)."""
    from recalc_helpers import recalc_here, small_build

    case = CASES[name]
    s, (a, z) = case["sheet"], case["cols"].split(":")
    edits = [{"op": "insert_cells", "sheet": s, "range": f"{a}5:{z}5"} if case["cells"] else
             {"op": "insert_rows", "sheet": s, "row": 5}]
    edits += [{"op": "set", "sheet": s, "cell": c, "value": v} for c, v in case["typed"].items()]
    lo = folder / f"lo-{name}"
    office.edit(small_build(f"examples/{name}", rows=SMALL_ROWS), lo, edits)
    if not case["red"]:
        return lo, lo
    got = folder / f"got-{name}"
    recalc_here(str(lo), str(got))
    return lo, got


@pytest.fixture(scope="module")
def inserted(office, tmp_path_factory):
    folder = tmp_path_factory.mktemp("red-cells")
    made: dict[str, tuple[Path, Path]] = {}

    def get(name: str) -> tuple[Path, Path]:
        if name not in made:
            made[name] = _inserted(name, folder, office)
        return made[name]

    return get


@pytest.mark.parametrize("name", list(CASES))
def test_a_row_inserted_below_the_header_has_the_tables_prompts_and_red_rules(inserted, name):
    """Every validation and red rule of the table's first row (row 6 once the row is inserted) covers the inserted
    row 5 too (LibreOffice gives an inserted row the attributes of the row above it, the header's, and grows a
    conditional format's range only when the row is inserted inside it)."""
    lo, _ = inserted(name)
    case = CASES[name]
    ws = openpyxl.load_workbook(lo)[case["sheet"]]
    a, z = (column_index_from_string(c) for c in case["cols"].split(":"))
    checked = 0
    for c in range(a, z + 1):
        letter = openpyxl.utils.get_column_letter(c)
        below, new = f"{letter}6", f"{letter}5"
        for dv in ws.data_validations.dataValidation:
            if _covers(dv.sqref, below):
                assert _covers(dv.sqref, new), (name, new, dv.prompt)
                checked += 1
        assert sorted(_red_rules(ws, new)) == sorted(
            Translator(f"={f}", origin=below).translate_formula(new)[1:] for f in _red_rules(ws, below)), (name, new)
    assert checked >= 3, name  # (the table's input columns are validated)


@pytest.mark.parametrize("name", [n for n in CASES if CASES[n]["red"]])
def test_a_mistake_is_red_where_it_was_typed(inserted, office, tmp_path, name):
    """Each probed cell's red rules, computed by LibreOffice on the recalculated book: red exactly where the
    mistake was typed (the inserted row's included), never on the header."""
    _, got = inserted(name)
    case = CASES[name]
    ws = openpyxl.load_workbook(got)[case["sheet"]]
    spare = "AZ"
    edits, where = [], {}
    for k, cell in enumerate(case["red"]):
        rules = _red_rules(ws, cell)
        at = f"{spare}{200 + k}"
        where[cell] = at
        formula = "=IF(OR(" + ",".join(f"IFERROR({r},FALSE)" for r in rules) + "),1,0)" if rules else "=0"
        edits.append({"op": "set", "sheet": case["sheet"], "cell": at, "value": _api(formula)})
    probed = tmp_path / "probed.xlsx"
    office.edit(got, probed, edits)
    values = openpyxl.load_workbook(probed, data_only=True)[case["sheet"]]
    seen = {cell: values[at].value == 1 for cell, at in where.items()}
    assert seen == case["red"]


#: Contracts and whether they are none (red), by the Laws' auction (a bid is a level 1 to 7 and a strain; double,
#: redouble; a passed-out board), as written on travellers: hand-labelled.
CONTRACTS = {"4S": False, "3nt": False, " 6H R ": False, "3N": False, "7NTXX": False, "1c": False, "4 S X": False,
             "PASS": False, "passed out": False, "AP": False, "8S": True, "0S": True, "4Z": True, "3NTXXX": True,
             "3 N T": True, "4SX X": True, "4S|": True, "S4": True, "4": True, "NT": True, "44S": True}

#: (board, typed N-S score) and whether it is no score on that board (red): the Laws' scoring table (Law 77) and the
#: 16-board cycle (board 1 nobody vulnerable, 2 N-S, 3 E-W, 4 both), worked by hand.
TYPED = {(1, 420): False,     # 4S making, not vulnerable
         (1, 620): True,      # 4S making is 620 only vulnerable
         (2, 620): False,     # N-S vulnerable
         (2, -620): True,     # E-W making 4S are not vulnerable on board 2: -420
         (2, -420): False,
         (3, 410): True,      # no contract scores 410
         (4, -200): False,    # N-S vulnerable, two down undoubled
         (3, -100): False,    # E-W vulnerable declaring, one down undoubled: +100 to N-S; N-S one down: -50
         (1, -100): False,    # N-S one down doubled, not vulnerable
         (5, "A60/40"): False, (5, "NP"): False, (5, "four"): True, (1, 420.5): True, (1, "+420"): False}

#: (whether the Pairs sheet lists pairs, the pair typed) and whether it is no pair (red), by the TD's rule: with the
#: example's Pairs sheet (pairs 1-6 and 11-16) a pair it does not list; with an empty one, anything but a whole
#: number 1 or more. Hand-labelled.
PAIRS = {(True, 1): False, (True, 16): False, (True, "12"): False, (True, 7): True, (True, 17): True,
         (True, 0): True, (True, "A1"): True, (False, 7): False, (False, "7"): False, (False, 99): False,
         (False, 0): True, (False, 2.5): True, (False, "one"): True, (False, -3): True}


def test_contract_and_typed_score_rules_agree_with_the_laws(office, tmp_path):
    """The pairs Travellers' red rules of a contract, of a typed score and of a pair, computed by LibreOffice on
    cells of the shipped template (the rules' row references pointed at them): red exactly for the hand-labelled
    mistakes."""
    from recalc_helpers import small_build

    book = small_build("examples/pairs.xlsx", rows=SMALL_ROWS)
    ws = openpyxl.load_workbook(book)["Travellers"]
    contract = [r for r in _red_rules(ws, "D6") if "ISTEXT" in r]
    typed = [r for r in _red_rules(ws, "G6") if "ISNUMBER(-" in r]  # (not the rule of a contract beside it)
    pair = [r for r in _red_rules(ws, "B6") if "COUNTIF(" in r]
    assert len(contract) == 1 and len(typed) == 1 and len(pair) == 1
    edits, where = [], {}
    rows = ([("contract", k, v) for k, v in CONTRACTS.items()] + [("typed", k, v) for k, v in TYPED.items()]
            + [("pair", k, v) for k, v in PAIRS.items()])
    for n, (kind, key, _) in enumerate(rows):
        r = 300 + n
        if kind == "contract":
            formula = contract[0].replace("$D6", f"$AY{r}")
            edits.append({"op": "set", "sheet": "Travellers", "cell": f"AY{r}", "value": key})
        elif kind == "pair":  # (an empty Pairs sheet: the rule pointed at an empty column instead)
            formula = pair[0].replace("$B6", f"$AY{r}")
            if not key[0]:
                formula = re.sub(r"Pairs!\$A\$4:\$A\$\d+", "$BA$1:$BA$3", formula)
            edits.append({"op": "set", "sheet": "Travellers", "cell": f"AY{r}", "value": key[1]})
        else:
            formula = typed[0].replace("$A6", f"$AX{r}").replace("$G6", f"$AY{r}").replace("$D6", f"$AW{r}")
            edits += [{"op": "set", "sheet": "Travellers", "cell": f"AX{r}", "value": key[0]},
                      {"op": "set", "sheet": "Travellers", "cell": f"AY{r}", "value": key[1]}]
        assert not re.search(r"\$[A-P]6\b", formula.split("ROW(")[-1]), formula  # (every row reference moved)
        where[(kind, key)] = f"AZ{r}"
        edits.append({"op": "set", "sheet": "Travellers", "cell": f"AZ{r}",
                      "value": _api(f"=IF(IFERROR({re.sub(r'ROW[(][A-Z]+6[)]>ROW[(][$]A[$]4[)],', '', formula)},FALSE),1,0)")})
    probed = tmp_path / "rules.xlsx"
    office.edit(book, probed, edits)
    values = openpyxl.load_workbook(probed, data_only=True)["Travellers"]
    seen = {key: values[at].value == 1 for key, at in where.items()}
    assert seen == {(kind, key): red for kind, key, red in rows}


#: Traveller rows typed one after another on a board (each sequence on a board of its own), in a Mitchell or a
#: Howell, and per row whether its N-S and its E-W pair are red: the later row of a pair playing a board twice, a row
#: typed twice (at N-S), a pair against itself in a Howell (at E-W); a Mitchell's N-S 1 and E-W 1 are two pairs.
#: Hand-labelled from the movements (a pair plays each board once; in a Howell one pair number is one pair).
PAIR_SEQUENCES = [
    ("Mitchell", [(1, 11), (2, 12), (1, 12)], [(False, False), (False, False), (True, False)]),
    ("Mitchell", [(1, 11), (1, 11)], [(False, False), (True, False)]),
    ("Mitchell", [(1, 11), (2, 11)], [(False, False), (False, True)]),
    ("Mitchell", [(1, 1), (2, 2)], [(False, False), (False, False)]),
    ("Mitchell", [(1, 11), ("1", 12)], [(False, False), (True, False)]),
    ("Howell", [(3, 3)], [(False, True)]),
    ("Howell", [(1, 2), (3, 1)], [(False, False), (False, True)]),
    ("Howell", [(1, 2), (2, 3)], [(False, False), (True, False)]),
    ("Howell", [(1, 2), (1, 2)], [(False, False), (True, False)]),
    ("Howell", [(1, 2), (3, 4)], [(False, False), (False, False)]),
]

#: A weighted row's three outcomes and three weights, and whether each weight is red (Law 12C1(c): the weights of
#: the outcomes given total 100 %, each outcome of several has one; a number above 1 is a percentage; a lone
#: outcome's blank weight is 100 %; a weight of a blank outcome is not read). Hand-labelled.
WEIGHTS = [
    ((420, -50, None), (0.6, 0.4, None), (False, False, False)),
    ((420, -50, None), (0.6, None, None), (False, True, False)),     # outcome 2 has no weight
    ((420, -50, None), (0.6, 0.3, None), (True, False, False)),      # 90 %: at the first weight
    ((420, None, None), (None, None, None), (False, False, False)),  # a plain score
    ((420, None, None), (0.6, None, None), (True, False, False)),    # a lone outcome at 60 %
    ((420, -50, 170), (0.5, 0.25, 0.25), (False, False, False)),
    ((420, -50, None), (60, 40, None), (False, False, False)),       # percentages
    ((420, -50, None), ("60%", "40%", None), (False, False, False)),
    ((420, -50, None), ("abc", 0.4, None), (True, False, False)),    # no weight at all
    ((420, -50, None), (-0.2, 0.4, None), (True, False, False)),     # below 0
    ((420, -50, None), (0.6, 0.4, 0.5), (False, False, False)),      # a weight beside no outcome
    ((None, -50, None), (None, 0.4, None), (True, False, False)),    # a lone outcome at 40 %: at the first weight
]


def _probe(office, book: Path, sheet: str, cells: dict[str, object], probes: dict[str, tuple[str, list[str]]],
           out: Path) -> dict[str, bool]:
    """``cells`` typed into ``sheet`` of a copy of ``book`` and each probe {name: (cell, its rules)} computed by
    LibreOffice there (each in a spare cell of its own): {name: red}."""
    edits = [{"op": "set", "sheet": sheet, "cell": c, "value": v} for c, v in cells.items() if v is not None]
    where = {}
    for k, (name, (_cell, rules)) in enumerate(probes.items()):
        at = f"BZ{300 + k}"
        where[name] = at
        edits.append({"op": "set", "sheet": sheet, "cell": at,
                      "value": _api("=IF(OR(" + ",".join(f"IFERROR({r},FALSE)" for r in rules) + "),1,0)")})
    office.edit(book, out, edits)
    values = openpyxl.load_workbook(out, data_only=True)[sheet]
    return {name: values[at].value == 1 for name, at in where.items()}


def _moved(rules: list[str], origin: str, cell: str) -> list[str]:
    return [Translator(f"={r}", origin=origin).translate_formula(cell)[1:] for r in rules]


def test_a_pair_playing_a_board_twice_is_red_at_the_later_row(office, tmp_path):
    """The pairs Travellers' rules of a pair playing a board twice, a row typed twice and a pair against itself,
    computed by LibreOffice on rows typed below the example (each sequence its own board, the movement in a cell
    of the row): red exactly where the hand-labelled mistakes are."""
    from recalc_helpers import small_build

    book = small_build("examples/pairs.xlsx", rows=SMALL_ROWS)
    ws = openpyxl.load_workbook(book)["Travellers"]
    twice = {c: [r for r in _red_rules(ws, f"{c}6") if "COUNTIFS" in r] for c in "BC"}
    assert all(len(v) == 1 and "$R$7" in v[0] for v in twice.values())
    cells: dict[str, object] = {}
    probes, expected = {}, {}
    r = 300
    for s, (movement, rows, red) in enumerate(PAIR_SEQUENCES):
        for (ns, ew), (ns_red, ew_red) in zip(rows, red):
            cells.update({f"A{r}": 500 + s, f"B{r}": ns, f"C{r}": ew, f"BY{r}": movement})
            for c, verdict in (("B", ns_red), ("C", ew_red)):
                probes[f"{c}{r}"] = (f"{c}{r}", [m.replace("$R$7", f"$BY{r}")
                                                  for m in _moved(twice[c], f"{c}6", f"{c}{r}")])
                expected[f"{c}{r}"] = verdict
            r += 1
    assert _probe(office, book, "Travellers", cells, probes, tmp_path / "pairs.xlsx") == expected


@pytest.mark.parametrize("name, sheet, outcomes, weights", [("pairs.xlsx", "Travellers", "HIJ", "KLM"),
                                                            ("teams.xlsx", "Boards", "CDE", "FGH")])
def test_a_weighted_scores_weights_are_red_where_the_reader_names_them(office, tmp_path, name, sheet, outcomes,
                                                                       weights):
    """The weights' rules of the pairs Travellers and the teams Boards, computed by LibreOffice on rows typed below
    the example: red exactly where the hand-labelled mistakes are."""
    from recalc_helpers import small_build

    book = small_build(f"examples/{name}", rows=SMALL_ROWS)
    ws = openpyxl.load_workbook(book)[sheet]
    rules = {w: _red_rules(ws, f"{w}6") for w in weights}
    assert all(len(v) == 1 for v in rules.values()), rules
    cells: dict[str, object] = {}
    probes, expected = {}, {}
    for k, (outs, ws_, red) in enumerate(WEIGHTS):
        r = 300 + k
        cells.update({f"{c}{r}": v for c, v in zip(outcomes + weights, outs + ws_)})
        for w, verdict in zip(weights, red):
            probes[f"{w}{r}"] = (f"{w}{r}", _moved(rules[w], f"{w}6", f"{w}{r}"))
            expected[f"{w}{r}"] = verdict
    assert _probe(office, book, sheet, cells, probes, tmp_path / name) == expected


#: (board, a room's N-S score) and whether it is no score on that board (red): the Laws' scoring table (Law 77) and
#: the 16-board cycle (board 1 nobody vulnerable, 2 N-S, 3 E-W, 4 both), worked by hand, as for the pairs Typed
#: Score: a teams room is judged at its board's vulnerability, as the readers judge it.
ROOMS = {(1, 420): False, (1, 620): True, (2, 620): False, (2, -620): True, (3, -620): False, (4, 620): False,
         (1, 410): True, (5, "A60/40"): False, (5, "NP"): True, (6, " np "): True, (5, "four"): True, (1, 420.5): True,
         (1, "+420"): False, (1, -50): False}


def test_a_teams_room_score_is_red_at_its_boards_vulnerability(office, tmp_path):
    """The teams Boards' rule of a room's score, computed by LibreOffice on rows typed below the example (the other
    room filled, so that a missing room is not what turns it red): red exactly for the hand-labelled mistakes."""
    from recalc_helpers import small_build

    book = small_build("examples/teams.xlsx", rows=SMALL_ROWS)
    ws = openpyxl.load_workbook(book)["Boards"]
    rules = _red_rules(ws, "C6")
    assert len(rules) == 1, rules
    cells: dict[str, object] = {}
    probes, expected = {}, {}
    for k, ((board, score), red) in enumerate(ROOMS.items()):
        r = 300 + k
        cells.update({f"A{r}": 1, f"B{r}": board, f"C{r}": score, f"I{r}": 0})
        probes[f"C{r}"] = (f"C{r}", _moved(rules, "C6", f"C{r}"))
        expected[f"C{r}"] = red
    assert _probe(office, book, "Boards", cells, probes, tmp_path / "teams.xlsx") == expected


#: Rows of a Pairs sheet typed one after another (each sequence a table of its own), in a Mitchell or a Howell, and
#: per row whether its Pair and its Direction cell are red: a pair listed again (in a Mitchell, in the same field
#: however its direction is spelt: NS, N-S, N/S, N), a Mitchell's direction that is no direction (the row then
#: lists no pair). Hand-labelled from the movements: in a Howell a number is one pair; in a Mitchell N-S 1 and E-W 1
#: are two.
PAIRS_LISTINGS = [
    ("Mitchell", [(1, "NS"), (1, "EW"), (1, "N-S")], [(False, False), (False, False), (True, False)]),
    ("Mitchell", [(1, "NS"), (2, "north")], [(False, False), (False, True)]),
    ("Mitchell", [(3, "ns"), ("3", " N ")], [(False, False), (True, False)]),
    ("Mitchell", [(1, "north"), (1, "NS")], [(False, True), (False, False)]),
    ("Mitchell", [(1, "E/W"), (2, "E"), (2, "EW")], [(False, False), (False, False), (True, False)]),
    ("Howell", [(1, None), (2, None), (1, "EW")], [(False, False), (False, False), (True, False)]),
    ("Howell", [(4, "x")], [(False, False)]),
]


def test_a_pair_listed_twice_is_red_at_its_later_row(office, tmp_path):
    """The pairs Pairs sheet's rules of a pair listed twice and of a Mitchell's direction that is no direction,
    computed by LibreOffice on rows typed below the example (each sequence read from a header row of its own, the
    movement in a cell of the row): red exactly where the hand-labelled mistakes are; the core's reading
    (:func:`xlbridge.core.travellerrow.pairs_row_mistake`, which ``recalc``, ``publish`` and ``export`` name)
    names the same cells."""
    from recalc_helpers import small_build

    from xlbridge.core.travellerrow import pairs_row_mistake

    book = small_build("examples/pairs.xlsx", rows=SMALL_ROWS)
    ws = openpyxl.load_workbook(book)["Pairs"]
    rules = {c: _red_rules(ws, f"{c}6") for c in "AB"}
    assert all(len(v) == 1 and "Travellers!$R$7" in v[0] for v in rules.values()), rules
    cells: dict[str, object] = {}
    probes, expected, core = {}, {}, {}
    r = 300
    for movement, rows, red in PAIRS_LISTINGS:
        head = r - 1  # (the sequence's own header row: the rows above it are another table's)
        seen: set = set()
        for (number, direction), (pair_red, direction_red) in zip(rows, red):
            cells.update({f"A{r}": number, f"B{r}": direction, f"BY{r}": movement})
            mistake = pairs_row_mistake(number, direction, movement == "Mitchell", seen)
            for c, verdict in (("A", pair_red), ("B", direction_red)):
                moved = [m.replace("Travellers!$R$7", f"$BY{r}").replace("$A$4:", f"$A${head}:")
                         .replace("$B$4:", f"$B${head}:") for m in _moved(rules[c], f"{c}6", f"{c}{r}")]
                probes[f"{c}{r}"] = (f"{c}{r}", moved)
                expected[f"{c}{r}"] = verdict
                core[f"{c}{r}"] = mistake is not None and mistake.column == ("Pair" if c == "A" else "Direction")
            r += 1
        r += 1
    assert core == expected
    assert _probe(office, book, "Pairs", cells, probes, tmp_path / "pairs.xlsx") == expected


#: Traveller rows of a Mitchell (the example's Pairs sheet: N-S pairs 1-6, E-W pairs 11-16), each (N-S, E-W, Arrow
#: switch) and whether its N-S and its E-W pair are red: a pair seated in the other field than the Pairs sheet lists it
#: in, the N-S seat being the E-W field's on a row played with the arrows switched. Hand-labelled from the movement.
FIELDS = [
    ((1, 11, None), (False, False)),
    ((11, 1, None), (True, True)),      # both pairs in the other field's seats, no arrow switch
    ((11, 1, "Y"), (False, False)),     # the same, played with the arrows switched
    ((1, 11, "Y"), (True, True)),       # marked switched, but each pair sits in its own field's seat
    ((2, 12, "n"), (False, False)),     # marked not switched
    ((3, 4, None), (False, True)),      # an N-S pair in the E-W seat
    ((12, 13, "yes"), (False, True)),   # switched: E-W 12 at N-S is right, E-W 13 at E-W is not
]


def test_a_pair_in_the_other_fields_seat_is_red(office, tmp_path):
    """The pairs Travellers' rule of a pair seated in the other field (Mitchell), computed by LibreOffice on rows
    typed below the example: red exactly where the hand-labelled mistakes are; the core's reading
    (:class:`xlbridge.core.travellerrow.PairCheck`, which recalc, publish and export name) names the same cells."""
    from recalc_helpers import small_build

    from xlbridge.core.pairs.standings import arrow_switched
    from xlbridge.core.travellerrow import PairCheck, listed_fields

    book = small_build("examples/pairs.xlsx", rows=SMALL_ROWS)
    wb = openpyxl.load_workbook(book)
    ws = wb["Travellers"]
    sheet = wb["Pairs"]
    fields = listed_fields((sheet.cell(r, 1).value, sheet.cell(r, 2).value) for r in range(5, sheet.max_row + 1))
    rules = {c: [r for r in _red_rules(ws, f"{c}6") if "SUMPRODUCT" in r] for c in "BC"}
    assert all(len(v) == 1 for v in rules.values()), rules
    cells: dict[str, object] = {}
    probes, expected, core = {}, {}, {}
    for k, ((ns, ew, arrow), (ns_red, ew_red)) in enumerate(FIELDS):
        r = 300 + k
        cells.update({f"A{r}": 500 + k, f"B{r}": ns, f"C{r}": ew, f"P{r}": arrow})
        mistake = PairCheck(howell=False, fields=fields).row(500 + k, ns, ew, arrow_switched(arrow))
        for c, verdict in (("B", ns_red), ("C", ew_red)):
            probes[f"{c}{r}"] = (f"{c}{r}", _moved(rules[c], f"{c}6", f"{c}{r}"))
            expected[f"{c}{r}"] = verdict
        core[r] = mistake.column if mistake is not None else None
        assert core[r] == ("NS" if ns_red else "EW" if ew_red else None), (ns, ew, arrow, mistake)
    assert _probe(office, book, "Travellers", cells, probes, tmp_path / "pairs.xlsx") == expected
