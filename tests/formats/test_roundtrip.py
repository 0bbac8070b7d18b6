"""Round trips (hypothesis): read(write(x)) == x for every field each format carries; and fuzzing:
seeded mutations of valid files give a valid event or one FormatError, never another exception."""

import datetime
import random
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

import xlbridge
from xlbridge.core.text import REMOVED_CHARACTERS
from xlbridge.formats import (HOWELL, MITCHELL, SCORING_TYPES, Board, Event, FormatError, Participant, Result,
                              read_pbn, read_usebio, write_pbn, write_usebio)

from formats_samples import MITCHELL_PBN, MITCHELL_USEBIO
from hostile_corpus import VALID_USEBIO_TEAMS

SEATS = "NESW"
CARDS = [s + r for s in "SHDC" for r in "AKQJT98765432"]

name_text = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Co", "Cn", "Zl", "Zp"), exclude_characters=";"),
    min_size=1, max_size=12).map(lambda s: " ".join(s.split())).filter(bool).filter(
    lambda s: s not in ("-", "?", "#")).filter(
    lambda s: not REMOVED_CHARACTERS.search(s))  # PBN 2.1 section 3.4: a lone "-" or "?" means unknown, not a name;
# "#" is the previous game's value (write_pbn refuses such an event name); control, bidi and zero-width characters
# are removed by every reader (core.text.clean_text: tests/formats/test_hostile_corpus.py), so a name never keeps them
decimal = st.integers(-5000, 20000).map(lambda k: Fraction(k, 100))
pair_number = st.one_of(st.integers(1, 40).map(str), st.sampled_from(["A1", "B12", "X"]))


@st.composite
def deals(draw):
    if draw(st.booleans()):
        return None
    cards = draw(st.permutations(CARDS))
    hands = []
    for h in range(4):
        mine = set(cards[13 * h:13 * h + 13])
        hands.append(".".join("".join(c[1] for c in CARDS if c in mine and c[0] == s) for s in "SHDC"))
    return "N:" + " ".join(hands)


@st.composite
def weighted(draw, score, vul):
    """A Law 12C1(c) weighted score's outcomes: the row's own score first, then one to three other legal
    scores, the weights positive and totalling 1 (percentages, eighths or thirds)."""
    others = draw(st.lists(st.builds(xlbridge.bridge_score, st.sampled_from(["3NT", "4S", "2HX", "6C", "1D"]),
                                     st.sampled_from(SEATS), st.integers(0, 13), st.just(vul)),
                           min_size=1, max_size=3, unique=True).filter(lambda xs: score not in xs))
    denominator = draw(st.sampled_from([100, 8, 3, 7]))
    others = others[:denominator - 1]
    cuts = sorted(draw(st.lists(st.integers(1, denominator - 1), min_size=len(others), max_size=len(others),
                                unique=True)))
    bounds = [0, *cuts, denominator]
    weights = [Fraction(b - a, denominator) for a, b in zip(bounds, bounds[1:])]
    return tuple(zip([score, *others], weights))


@st.composite
def results(draw, ns, ew, vul):
    kind = draw(st.sampled_from(["played", "played", "played", "pass", "artificial", "np", "score_only"]))
    extra = dict(mp_ns=draw(st.none() | decimal), mp_ew=draw(st.none() | decimal),
                 pct_ns=draw(st.none() | decimal), pct_ew=draw(st.none() | decimal),
                 imp_ns=draw(st.none() | decimal), imp_ew=draw(st.none() | decimal),
                 table=draw(st.none() | st.integers(1, 30)), round=draw(st.none() | st.integers(1, 30)))
    if kind in ("played", "score_only"):
        contract = str(xlbridge.Contract(draw(st.integers(1, 7)), draw(st.sampled_from(xlbridge.STRAINS)),
                                         draw(st.integers(0, 2))))
        declarer = draw(st.sampled_from(SEATS))
        tricks = draw(st.integers(0, 13))
        score = xlbridge.bridge_score(contract, declarer, tricks, vul)  # a consistent row, not an expectation
        lead = draw(st.none() | st.sampled_from(CARDS))
        outcomes = draw(weighted(score, vul)) if draw(st.integers(0, 4)) == 0 else ()
        if kind == "score_only":
            return Result(ns, ew, score=score, outcomes=outcomes, **extra)
        return Result(ns, ew, contract, declarer, tricks, score, lead, outcomes=outcomes, **extra)
    if kind == "pass":
        return Result(ns, ew, "PASS", score=0, **extra)
    if kind == "artificial":
        a = draw(st.sampled_from([(60, 40), (50, 50), (40, 60), (60, 60), (40, 40), (70, 30)]))
        return Result(ns, ew, score=xlbridge.Artificial(*a), **extra)
    return Result(ns, ew, score=xlbridge.NOT_PLAYED, **{**extra, "mp_ns": None, "mp_ew": None})


@st.composite
def events(draw):
    movement = draw(st.sampled_from([MITCHELL, HOWELL]))
    numbers = draw(st.lists(pair_number, min_size=2, max_size=6, unique=True))
    board_numbers = draw(st.lists(st.integers(1, 36), min_size=0, max_size=4, unique=True))
    boards = []
    for bn in board_numbers:
        vul = draw(st.sampled_from(["None", "NS", "EW", "All"]))
        rows = []
        if movement == MITCHELL:
            ns_order = draw(st.permutations(numbers))
            ew_order = draw(st.permutations(numbers))
            pairs = list(zip(ns_order, ew_order))[:draw(st.integers(0, len(numbers)))]
        else:
            order = draw(st.permutations(numbers))
            pairs = [(order[i], order[i + 1]) for i in range(0, len(order) - 1, 2)]
            pairs = pairs[:draw(st.integers(0, len(pairs)))]
        for ns, ew in pairs:
            rows.append(draw(results(ns, ew, vul)))
        boards.append(Board(bn, draw(st.sampled_from(SEATS)), vul, draw(deals()), tuple(rows)))
    dirs = ["NS", "EW"] if movement == MITCHELL else [None]
    parts = []
    for d in dirs:
        for n in numbers:
            names = tuple(draw(st.lists(name_text, max_size=2)))
            ids = tuple(draw(st.sampled_from(["", "1234", "0555002", "EBU 12"])) for _ in names)
            parts.append(Participant(n, d, names, None,
                                     draw(st.none() | decimal), None, draw(st.none() | decimal),
                                     draw(st.none() | st.integers(1, 4)), False, draw(st.none() | st.integers(0, 30)),
                                     ids=ids if any(ids) else ()))
    count = {}
    for p in parts:
        count[(p.direction, p.place)] = count.get((p.direction, p.place), 0) + 1
    parts = [replace(p, tied=p.place is not None and count[(p.direction, p.place)] > 1) for p in parts]
    return Event(draw(st.none() | name_text), draw(st.none() | st.dates(datetime.date(1990, 1, 1),
                                                                         datetime.date(2100, 12, 31))),
                 draw(st.none() | name_text), "PAIRS", draw(st.sampled_from(SCORING_TYPES)), movement,
                 tuple(parts), tuple(boards))


def usebio_view(e: Event) -> Event:
    """What USEBIO carries: no dealer (derived from the board number), no row percentages, tables or rounds,
    no line for a row not played (the readers want numbers on every line), a line's matchpoints in a
    matchpointed event and its IMPs in any other."""
    mp = e.scoring == "MP"
    seated = {(side, n) for b in e.boards for r in b.results if r.score is not xlbridge.NOT_PLAYED
              for side, n in (("NS", r.ns), ("EW", r.ew))}
    placed = any(p.place is not None for p in e.participants)  # (a scored event lists the pairs that played)
    e = replace(e, participants=tuple(p for p in e.participants if not placed or p.place is not None or any(
        (d, p.number) in seated for d in (("NS", "EW") if p.direction is None else (p.direction,)))))
    boards = tuple(replace(b, dealer="NESW"[(b.number - 1) % 4], results=tuple(
        replace(r, pct_ns=None, pct_ew=None, table=None, round=None, mp_ns=r.mp_ns if mp else None,
                mp_ew=r.mp_ew if mp else None, imp_ns=None if mp else r.imp_ns, imp_ew=None if mp else r.imp_ew)
        for r in b.results
        if r.score is not xlbridge.NOT_PLAYED)) for b in e.boards)
    # a board no row played is not in EVENT (a BOARD without a line stops readers) but in the HANDSET, which
    # lists every board once any deal is known: read back after the others, on the standard vulnerability
    dealt = any(b.deal for b in boards)
    unplayed = sorted((replace(b, vulnerable=xlbridge.vulnerability(b.number).name) for b in boards
                       if not b.results and dealt), key=lambda b: b.number)
    return replace(e, boards=tuple(b for b in boards if b.results) + tuple(unplayed))


@settings(max_examples=60)
@given(events())
def test_pbn_round_trip(e):
    assert read_pbn(write_pbn(e)) == e


@settings(max_examples=60)
@given(events())
def test_usebio_round_trip(e):
    assert read_usebio(write_usebio(e)) == usebio_view(e)


@settings(max_examples=30)
@given(events())
def test_pbn_then_usebio_agree_on_common_fields(e):
    """PBN -> event -> USEBIO -> event keeps every field both formats carry."""
    assert usebio_view(read_usebio(write_usebio(read_pbn(write_pbn(e))))) == usebio_view(e)


# ------------------------------------------------------------------------------------------- fuzzing

def _mutate(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        i = rng.randrange(len(b)) if b else 0
        if op == 0 and b:
            b[i] = rng.randrange(256)
        elif op == 1 and b:
            del b[i:i + rng.randint(1, 40)]
        elif op == 2:
            b[i:i] = rng.choice([b'"', b"[", b"]", b"{", b"}", b";", b"\\", b"#", b"^", b"-", b"?", b"\x00",
                                 b"\r", b"\n", b"\n\n", b"<", b"&", b"&x;", b"\xff\xfe", b"99999999999999999999"])
        elif op == 3:
            del b[rng.randrange(len(b) + 1):]
        elif op == 4 and b:
            j = rng.randrange(len(b))
            b[i:i] = b[j:j + rng.randint(1, 80)]
        elif op == 5 and b:
            b[i:i + 3] = rng.choice([b"410", b"13", b"14", b"NS", b"7NT", b"A99/1", b"-", b"0", b"x"])
    return bytes(b)


def _weighted_sample(write) -> str:
    """Seed 004's board (60 % of +420 and 40 % of -50 against 420, 400, 400, 170, -50) as written by ``write``:
    a file holding xlbridge's own field for a weighted score, to mutate."""
    from xlbridge.formats import score_event

    rows = (Result("1", "11", "4S", "N", 10, 420, outcomes=((420, Fraction(3, 5)), (-50, Fraction(2, 5)))),) + tuple(
        Result(str(k), str(10 + k), score=s) for k, s in zip(range(2, 7), (420, 400, 400, 170, -50)))
    return write(score_event(Event(name="Club", boards=(Board(1, "N", "None", results=rows),)))).decode("latin-1")


@pytest.mark.parametrize("reader, sample", [
    (read_pbn, MITCHELL_PBN), (read_usebio, MITCHELL_USEBIO), (read_usebio, VALID_USEBIO_TEAMS),
    (read_pbn, _weighted_sample(write_pbn)), (read_usebio, _weighted_sample(write_usebio))],
    ids=["pbn", "usebio", "usebio-teams", "pbn-weighted", "usebio-weighted"])
def test_fuzz_mutations_give_an_event_or_one_line_error(reader, sample):
    rng = random.Random(20240305)
    data = sample.encode("latin-1")
    valid = errors = 0
    for _ in range(400):
        mutated = _mutate(data, rng)
        try:
            e = reader(mutated)
        except FormatError as exc:
            msg = str(exc)
            assert "\n" not in msg and msg.startswith("input") and len(msg) < 400
            errors += 1
        else:
            assert isinstance(e, Event)
            valid += 1
    assert valid >= 2 and errors >= 20  # both outcomes are exercised


def _example_copy(tmp_path, change=None):
    import openpyxl
    from recalc_helpers import small_build

    wb = openpyxl.load_workbook(small_build("examples/pairs.xlsx", rows=400))
    if change is not None:
        change(wb)
    wb.save(tmp_path / "club.xlsx")
    return tmp_path / "club.xlsx"


def test_a_typed_workbook_s_event_name_is_its_document_title(tmp_path):
    """Issue 40: a workbook typed by hand has no 'xlbridge event' property; the document title a member types
    (File > Properties) names the event, and the template itself carries none."""
    from xlbridge.formats.pairsbook import read_pairs_workbook

    assert read_pairs_workbook(_example_copy(tmp_path)).name is None

    def title(wb):
        wb.properties.title = "  Tuesday Pairs "

    assert read_pairs_workbook(_example_copy(tmp_path, title)).name == "Tuesday Pairs"


@pytest.mark.parametrize("typed, scale", [("ACBL", "ACBL"), ("EBU", "EBU"), ("1/0.5", "ACBL"), (None, None)])
def test_the_workbook_s_matchpoint_scale_is_read_and_used(tmp_path, typed, scale):
    """The Travellers sheet's Scale parameter (R5) is the event's; scoring without a scale uses it (a board's
    matchpoints on the 1/0.5 scale are half those on the 2/1 scale, MP_SCALES), and percentages agree."""
    from xlbridge.formats import score_event
    from xlbridge.formats.pairsbook import read_pairs_workbook

    def set_scale(wb):
        wb["Travellers"]["R5"] = typed

    event = read_pairs_workbook(_example_copy(tmp_path, set_scale))  # (its weighted board kept)
    assert event.scale == scale
    own, ebu = score_event(event), score_event(event, scale="EBU")
    half = 2 if scale == "ACBL" else 1
    mine = [None if r.mp_ns is None else r.mp_ns * half for b in own.boards for r in b.results]
    assert mine == [r.mp_ns for b in ebu.boards for r in b.results] and any(mine)
    assert [r.pct_ns for b in own.boards for r in b.results] == [r.pct_ns for b in ebu.boards for r in b.results]


def test_an_unknown_matchpoint_scale_is_refused_naming_its_cell(tmp_path):
    from xlbridge.formats import FormatError
    from xlbridge.formats.pairsbook import read_pairs_workbook

    def set_scale(wb):
        wb["Travellers"]["R5"] = "Swiss"

    with pytest.raises(FormatError) as err:
        read_pairs_workbook(_example_copy(tmp_path, set_scale))
    assert str(err.value) == "club.xlsx, Travellers!R5: unknown matchpoint scale (EBU or ACBL): 'Swiss'"


@pytest.mark.parametrize("cell, typed, said", [
    ("R6", "many", "expected results per board must be a whole number from 1 to 1,000,000,000 (or blank: the most results "
                   "on any board): 'many'"),
    ("R6", 2.5, "expected results per board must be a whole number from 1 to 1,000,000,000 (or blank: the most results on "
                "any board): 2.5"),
    ("R6", 0, "expected results per board must be a whole number from 1 to 1,000,000,000 (or blank: the most results on "
              "any board): 0"),
    ("R8", "Sometimes", "unknown rule for artificial scores (Fixed or Session): 'Sometimes'"),
])
def test_an_unreadable_neuberg_or_artificial_parameter_is_refused_naming_its_cell(tmp_path, cell, typed, said):
    from xlbridge.formats import FormatError
    from xlbridge.formats.pairsbook import read_pairs_workbook

    def set_parameter(wb):
        wb["Travellers"][cell] = typed

    with pytest.raises(FormatError) as err:
        read_pairs_workbook(_example_copy(tmp_path, set_parameter))
    assert str(err.value) == f"club.xlsx, Travellers!{cell}: {said}"


@pytest.mark.parametrize("cell, typed, field, value", [("R6", 12, "expected", 12), ("R6", "12", "expected", 12),
                                                       ("R6", None, "expected", None), ("R8", " session ", "artificial",
                                                                                       "session"),
                                                       ("R8", "Fixed", "artificial", "fixed"),
                                                       ("R8", None, "artificial", None)])
def test_the_neuberg_and_artificial_parameters_are_the_event_s(tmp_path, cell, typed, field, value):
    from xlbridge.formats.pairsbook import read_pairs_workbook

    def set_parameter(wb):
        wb["Travellers"][cell] = typed

    assert getattr(read_pairs_workbook(_example_copy(tmp_path, set_parameter)), field) == value


def _event_details_cells(ws):
    """{label: its value cell} of the Travellers sheet's parameters (labels in Q, values in R)."""
    return {ws[f"Q{r}"].value: f"R{r}" for r in range(4, 30) if isinstance(ws[f"Q{r}"].value, str)}


def test_the_scorer_typed_under_the_club_is_read_with_the_event_details(tmp_path):
    """The issue: Event, Date, Club and Scorer have a place in the workbook (Scorer the row under Club); a
    member types them and the book's event carries them all."""
    from xlbridge.formats import score_event
    from xlbridge.formats.pairsbook import read_pairs_workbook

    def details(wb):
        ws = wb["Travellers"]
        cells = _event_details_cells(ws)
        assert cells["Scorer"] == "R12" and cells["Club"] == "R11"  # (the row under Club)
        ws[cells["Event"]], ws[cells["Date"]] = "Thursday Pairs", datetime.date(2026, 11, 26)
        ws[cells["Club"]], ws[cells["Scorer"]] = "Riverside", "  Dee Scorer "

    event = read_pairs_workbook(_example_copy(tmp_path, details))
    assert (event.name, event.date, event.site, event.scorer) == (
        "Thursday Pairs", datetime.date(2026, 11, 26), "Riverside", "Dee Scorer")
    assert score_event(event).scorer == "Dee Scorer"  # (scoring keeps it: the site shows the scored event)
    from xlbridge.formats import publish

    publish(event, tmp_path / "site", dds=False)
    assert "&middot; Scored by Dee Scorer</p>" in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


def test_a_book_made_before_the_scorer_is_read_with_no_scorer(tmp_path):
    """A book made before the Scorer label has Event, Date and Club only: still found and read, its scorer
    None; whatever stands under Club there (another label) is not taken for the scorer."""
    from xlbridge.formats.pairsbook import read_pairs_workbook

    def old(wb):
        ws = wb["Travellers"]
        cells = _event_details_cells(ws)
        ws[cells["Event"]], ws[cells["Date"]], ws[cells["Club"]] = "Old Pairs", "26/11/2026", "Riverside"
        scorer_label = "Q" + cells["Scorer"][1:]
        ws[scorer_label], ws[cells["Scorer"]] = "Notes", "x" * 300  # (not a scorer: not read, not refused)

    event = read_pairs_workbook(_example_copy(tmp_path, old))
    assert (event.name, event.date, event.site, event.scorer) == (
        "Old Pairs", datetime.date(2026, 11, 26), "Riverside", None)

    def blank(wb):
        ws = wb["Travellers"]
        cells = _event_details_cells(ws)
        ws[cells["Event"]] = "Old Pairs"
        ws["Q" + cells["Scorer"][1:]] = None

    assert read_pairs_workbook(_example_copy(tmp_path, blank)).scorer is None


def test_too_long_a_scorer_is_refused_naming_its_cell(tmp_path):
    from xlbridge.formats.pairsbook import read_pairs_workbook

    def long(wb):
        ws = wb["Travellers"]
        ws[_event_details_cells(ws)["Scorer"]] = "S" * 201

    with pytest.raises(FormatError) as err:
        read_pairs_workbook(_example_copy(tmp_path, long))
    assert str(err.value).startswith("club.xlsx, Travellers!R12: scorer's name longer than 200 characters (201), "
                                     "the limit: 'SSSS")

    def at_the_limit(wb):
        ws = wb["Travellers"]
        ws[_event_details_cells(ws)["Scorer"]] = "S" * 200

    assert read_pairs_workbook(_example_copy(tmp_path, at_the_limit)).scorer == "S" * 200


@pytest.mark.parametrize("write, read", [(write_pbn, read_pbn), (write_usebio, read_usebio)], ids=["pbn", "usebio"])
def test_the_scorer_goes_through_both_formats(write, read):
    """Issue 40: the workbook's Scorer detail goes out and comes back (PBN: xlbridge's tag Scorer, PBN 2.1
    section 4.9 letting a program add its own tags; USEBIO: EVENT > CONTACT > FULL_NAME, where the EBU's
    own files name their scorer). ``Event.scorer`` is not compared by ==, so it is checked by name here."""
    e = Event("Tuesday pairs", datetime.date(2026, 11, 26), "Riverside", movement=MITCHELL,
              participants=(Participant("1", "NS", ("Ann", "Bob")), Participant("1", "EW", ("Cy", "Di"))),
              boards=(Board(1, "N", "None", results=(Result("1", "1", "4S", "N", 10, 420),)),), scorer="Dee Scorer")
    data = write(e)
    assert (b'[Scorer "Dee Scorer"]' if write is write_pbn else b"<FULL_NAME>Dee Scorer</FULL_NAME>") in data
    assert read(data).scorer == "Dee Scorer"
    assert read(write(replace(e, scorer=None))).scorer is None
    assert b"Scorer" not in write(replace(e, scorer=None)) and b"CONTACT" not in write(replace(e, scorer=None))
