"""The vocabulary (xlbridge.core.vocabulary, issue 39): each word's spellings against what PBN 2.1 and USEBIO 1.2
spell and what the formats read and write (docs/formats.md; tests/formats/test_usebio_readers.py), each round trip
giving the member back, and the words the core and the formats keep as aliases of the members."""

from __future__ import annotations

import pickle
from fractions import Fraction

import pytest

from xlbridge.core.errors import InputError
from xlbridge.core.vocabulary import FILE_SCALE, Direction, Movement, Scale, Scoring, Seat, UnknownSpellingError

WORDS = (Seat, Direction, Movement, Scale, Scoring)


# ------------------------------------------------------------------ members behave as their text

@pytest.mark.parametrize("word", WORDS)
def test_a_member_is_its_text(word):
    for m in word:
        assert m.name == m.value and m == m.value and isinstance(m, str)
        assert hash(m) == hash(m.value) and {m.value: 1}[m] == 1  # (a dict keyed by the text finds the member)
        assert str(m) == f"{m}" == m.value and type(str(m)) is str
        assert repr(m) == repr(m.value)  # an Event or a Standing holding members shows as before
        assert pickle.loads(pickle.dumps(m)) is m
        assert word(m.value) is m


def test_unknown_spelling_is_an_input_error_naming_the_text_clipped():
    assert issubclass(UnknownSpellingError, InputError) and issubclass(UnknownSpellingError, ValueError)
    with pytest.raises(UnknownSpellingError, match=r"^unknown seat 'X' \(expected N, E, S or W\)$"):
        Seat.parse("X")
    with pytest.raises(UnknownSpellingError) as info:
        Direction.from_usebio("x" * 1000)
    assert "(1,000 characters)" in str(info.value) and len(str(info.value)) < 100


# ------------------------------------------------------------------------------------------- seats

def test_seats_clockwise_from_north_with_their_words():
    assert tuple(Seat) == ("N", "E", "S", "W")
    assert [s.word for s in Seat] == ["North", "East", "South", "West"]
    assert [s.side for s in Seat] == ["NS", "EW", "NS", "EW"]
    assert [Seat.dealer(b) for b in range(1, 9)] == list("NESWNESW")


@pytest.mark.parametrize("text,seat", [("N", "N"), ("n", "N"), (" North ", "N"), ("east", "E"), ("SOUTH", "S"),
                                       ("W", "W"), ("West", "W")])
def test_seat_read_by_letter_or_word(text, seat):
    assert Seat.parse(text) is Seat(seat)
    assert Seat.from_pbn(text) is Seat(seat)      # PBN Dealer, Declarer (the reader takes words too)
    assert Seat.from_usebio(text) is Seat(seat)   # USEBIO PLAYED_BY, HAND > DIRECTION


@pytest.mark.parametrize("text", ["", "NS", "Nord", "1", "?"])
def test_seat_unknown(text):
    for read in (Seat.parse, Seat.from_pbn, Seat.from_usebio):
        with pytest.raises(UnknownSpellingError):
            read(text)


def test_seat_written_as_pbn_and_usebio_spell_it_and_read_back():
    for s in Seat:
        assert s.to_pbn() == s.value                    # PBN 3.4.9 Dealer / 3.4.13 Declarer: N, E, S, W
        assert s.to_usebio() == s.value                 # USEBIO PLAYED_BY: N/E/S/W (docs/formats.md)
        assert s.to_usebio(hand=True) == s.word         # USEBIO HAND > DIRECTION: North, East, ...
        assert Seat.from_pbn(s.to_pbn()) is s
        assert Seat.from_usebio(s.to_usebio()) is s and Seat.from_usebio(s.to_usebio(hand=True)) is s


# -------------------------------------------------------------------------------------- directions

def test_directions():
    assert tuple(Direction) == ("NS", "EW")
    assert Direction.NS.seats == ("N", "S") and Direction.EW.seats == ("E", "W")
    assert all(s.side is d for d in Direction for s in d.seats)
    assert Direction.NS.other is Direction.EW and Direction.EW.other is Direction.NS
    assert [d.label for d in Direction] == ["N-S", "E-W"]
    assert [d.word for d in Direction] == ["North-South", "East-West"]


@pytest.mark.parametrize("text,d", [("NS", "NS"), ("ns", "NS"), (" N-S ", "NS"), ("N/S", "NS"), ("EW", "EW"),
                                    ("e-w", "EW"), ("E/W", "EW")])
def test_direction_pbn(text, d):
    # a TotalScoreTable's Direction column (PBN 5.2, user-defined): NS/EW; the reader drops '-' and '/'
    assert Direction.from_pbn(text) is Direction(d)


@pytest.mark.parametrize("text,d", [("NS", "NS"), ("N", "NS"), ("n-s", "NS"), ("EW", "EW"), ("E", "EW"),
                                    ("E-W", "EW")])
def test_direction_usebio(text, d):
    # a PAIR's (or a teams TRAVELLER_LINE's) DIRECTION: NS/EW, also N, E, N-S, E-W (docs/formats.md)
    assert Direction.from_usebio(text) is Direction(d)


@pytest.mark.parametrize("text,d", [("NS", "NS"), ("N-S", "NS"), ("n/s", "NS"), ("N", "NS"), ("EW", "EW"),
                                    ("E-W", "EW"), ("E/W", "EW"), (" e ", "EW")])
def test_direction_as_a_workbook_cell(text, d):
    # the Pairs sheet's Direction, as PAIRS_STANDINGS and `xlbridge export` read it
    assert Direction.parse(text) is Direction(d)


@pytest.mark.parametrize("text", ["", "-", "S", "NE", "North"])
def test_direction_unknown(text):
    for read in (Direction.parse, Direction.from_pbn, Direction.from_usebio):
        with pytest.raises(UnknownSpellingError):
            read(text)


def test_direction_spellings_differ_where_the_readers_do():
    with pytest.raises(UnknownSpellingError):
        Direction.from_pbn("N")        # PBN: a Direction cell is NS or EW
    with pytest.raises(UnknownSpellingError):
        Direction.from_usebio("N/S")   # USEBIO: NS, N, N-S


def test_direction_round_trips():
    for d in Direction:
        assert d.to_pbn() == d.to_usebio() == d.value
        assert Direction.from_pbn(d.to_pbn()) is d and Direction.from_usebio(d.to_usebio()) is d
        assert Direction.parse(d.label) is d


# --------------------------------------------------------------------------------------- movements

def test_movements():
    assert tuple(Movement) == ("HOWELL", "MITCHELL")
    assert [m.option for m in Movement] == ["howell", "mitchell"]     # pairs_ranking(..., movement=)
    assert [m.label for m in Movement] == ["Howell", "Mitchell"]      # the workbook's Movement parameter
    assert Movement.MITCHELL.fields == ("NS", "EW") and Movement.HOWELL.fields == (None,)


@pytest.mark.parametrize("text,m", [("howell", "HOWELL"), (" Howell ", "HOWELL"), ("MITCHELL", "MITCHELL"),
                                    ("mitchell", "MITCHELL")])
def test_movement_as_a_user_types_it(text, m):
    assert Movement.parse(text) is Movement(m)
    assert Movement.parse(Movement(m)) is Movement(m)


def test_movement_unknown_as_the_excel_user_sees_it():
    with pytest.raises(UnknownSpellingError, match=r"^unknown movement 'swiss' \(expected one of howell, mitchell\)$"):
        Movement.parse("swiss")
    with pytest.raises(UnknownSpellingError):
        Movement.parse(None)


def test_movement_usebio_winner_type():
    # WINNER_TYPE: 1 one winner (Howell), 2 a winner per direction (Mitchell); Cobalt refuses anything else
    assert Movement.HOWELL.to_usebio() == "1" and Movement.MITCHELL.to_usebio() == "2"
    assert Movement.from_usebio("1") is Movement.HOWELL and Movement.from_usebio(" 2 ") is Movement.MITCHELL
    for m in Movement:
        assert Movement.from_usebio(m.to_usebio()) is m
    for bad in ("", "0", "3", "HOWELL", "1.0"):
        with pytest.raises(UnknownSpellingError, match="WINNER_TYPE"):
            Movement.from_usebio(bad)


def test_movement_pbn_direction_column():
    # PBN 2.1 has no movement tag: the TotalScoreTable's Direction column, NS/EW in a Mitchell, '-' in a Howell
    assert Movement.MITCHELL.to_pbn("NS") == "NS" and Movement.MITCHELL.to_pbn(Direction.EW) == "EW"
    assert Movement.HOWELL.to_pbn("NS") == "-" and Movement.HOWELL.to_pbn(None) == "-"
    assert Movement.MITCHELL.to_pbn(None) == "-"
    assert Movement.from_pbn(["-", "NS", None]) is Movement.MITCHELL
    assert Movement.from_pbn(["-", " ? ", "", None]) is Movement.HOWELL
    assert Movement.from_pbn([]) is Movement.HOWELL
    for m in Movement:
        assert Movement.from_pbn([m.to_pbn(d) for d in Direction]) is m


# ------------------------------------------------------------------------------------------- scales

def test_scales():
    assert tuple(Scale) == ("EBU", "ACBL")
    assert Scale.EBU.points == (2, 1) and Scale.ACBL.points == (1, Fraction(1, 2))
    assert Scale.EBU.denominator == 1 and Scale.ACBL.denominator == 2
    assert Scale.EBU.spellings == ("EBU", "2/1", "WBF") and Scale.ACBL.spellings == ("ACBL", "1/0.5", "1/.5")
    assert FILE_SCALE is Scale.EBU  # PBN and USEBIO carry matchpoints on the 2/1 scale (neither names one)


@pytest.mark.parametrize("scale", list(Scale))
def test_scale_read_by_every_spelling(scale):
    for t in scale.spellings:
        for typed in (t, t.lower(), f" {t} "):
            assert Scale.parse(typed) is scale
    assert Scale.parse(scale) is scale


def test_scale_unknown_as_the_excel_user_sees_it():
    with pytest.raises(UnknownSpellingError, match=r"^unknown matchpoint scale '3/1' \(expected one of EBU, ACBL\)$"):
        Scale.parse("3/1")


def test_the_core_tables_are_the_vocabulary():
    from xlbridge.core.pairs.neuberg import MP_SCALE_ALIASES, MP_SCALES, mp_scale
    from xlbridge.core.pairs.standings import MOVEMENTS

    assert dict(MP_SCALES) == {"EBU": (2, 1), "ACBL": (1, Fraction(1, 2))}
    assert dict(MP_SCALE_ALIASES) == {"EBU": "EBU", "2/1": "EBU", "WBF": "EBU", "ACBL": "ACBL", "1/0.5": "ACBL",
                                      "1/.5": "ACBL"}
    assert mp_scale("1/.5") is Scale.ACBL
    assert MOVEMENTS == ("howell", "mitchell") and all(type(m) is str for m in MOVEMENTS)


# ----------------------------------------------------------------------------------------- scorings

#: (member, PBN Scoring tag as written, USEBIO BOARD_SCORING_METHOD as written): docs/formats.md
WRITTEN = [("MP", "MP", "MATCH_POINTS"), ("IMP", "IMP", "IMPS"), ("CROSS_IMP", "Cross-IMP", "CROSS_IMPS"),
           ("BUTLER", "Butler", "BUTLER_IMPS")]


@pytest.mark.parametrize("member,pbn,usebio", WRITTEN)
def test_scoring_written_and_read_back(member, pbn, usebio):
    s = Scoring(member)
    assert s.to_pbn() == pbn and s.to_usebio() == usebio
    assert Scoring.from_pbn(s.to_pbn()) is s and Scoring.from_usebio(s.to_usebio()) is s


@pytest.mark.parametrize("text,member", [("MP", "MP"), ("MatchPoints", "MP"), ("matchpoint", "MP"), ("IMPs", "IMP"),
                                         ("CROSS_IMP", "CROSS_IMP"), ("CrossImp", "CROSS_IMP"),
                                         ("Butler-IMP", "BUTLER"), (" butler ", "BUTLER")])
def test_scoring_pbn_read(text, member):
    assert Scoring.from_pbn(text) is Scoring(member)


@pytest.mark.parametrize("text,member", [("MATCHPOINTS", "MP"), ("MP", "MP"), ("IMP", "IMP"), ("BUTLER", "BUTLER"),
                                         ("match_points", "MP")])
def test_scoring_usebio_read(text, member):
    assert Scoring.from_usebio(text) is Scoring(member)


def test_scoring_unknown():
    for read in (Scoring.from_pbn, Scoring.from_usebio):
        with pytest.raises(UnknownSpellingError):
            read("Rubber")


# ----------------------------------------------------------------- the formats' names are the members

def test_the_formats_words_are_the_members():
    from xlbridge import formats
    from xlbridge.formats import model

    assert formats.HOWELL is Movement.HOWELL and formats.MITCHELL is Movement.MITCHELL
    assert model.SEATS == ("N", "E", "S", "W") and all(isinstance(s, Seat) for s in model.SEATS)
    assert formats.SCORING_TYPES == ("MP", "IMP", "CROSS_IMP", "BUTLER")
    assert all(isinstance(s, Scoring) for s in formats.SCORING_TYPES)
    assert model.Event().movement is Movement.HOWELL and model.Event().scoring is Scoring.MP
    assert model.Event(movement=formats.MITCHELL).fields() == ["NS", "EW"]
