"""Contract scoring (Law 77) against hand-checked cases, vulnerability, legal scores."""
import pytest
from hypothesis import given, strategies as st

from xlbridge import (
    Contract, ContractError, ImpossibleScoreError, bridge_score, check_score, contract_score, legal_scores,
    vulnerability,
)

# (contract, tricks, score not vulnerable, score vulnerable): hand-checked from the Law 77 table.
LAW77 = [
    # undoubled making: part-scores, games, slams, overtricks
    ("1C", 7, 70, 70), ("2C", 8, 90, 90), ("1NT", 7, 90, 90), ("2S", 9, 140, 140),
    ("3NT", 9, 400, 600), ("3NT", 10, 430, 630), ("4S", 10, 420, 620), ("4S", 11, 450, 650),
    ("5C", 11, 400, 600), ("5D", 13, 440, 640), ("6H", 12, 980, 1430), ("6NT", 12, 990, 1440),
    ("7C", 13, 1440, 2140), ("7NT", 13, 1520, 2220),
    # doubled making (insult 50; overtricks 100 / 200)
    ("1CX", 7, 140, 140), ("1CX", 8, 240, 340), ("1NTX", 7, 180, 180), ("2HX", 8, 470, 670),
    ("2HX", 9, 570, 870), ("3NTX", 9, 550, 750), ("4HX", 11, 690, 990), ("6SX", 12, 1210, 1660),
    ("7NTX", 13, 1790, 2490),
    # redoubled making (insult 100; overtricks 200 / 400)
    ("1CXX", 7, 230, 230), ("1CXX", 8, 430, 630), ("1NTXX", 7, 560, 760), ("2DXX", 9, 760, 1160),
    ("7NTXX", 13, 2280, 2980),
    # undoubled defeated: 50 / 100 each
    ("3NT", 8, -50, -100), ("3NT", 6, -150, -300), ("7NT", 0, -650, -1300),
    # doubled defeated: NV 100, 300, 500, 800, 1100; V 200, 500, 800, 1100
    ("4S", 9, -50, -100),
    ("4SX", 9, -100, -200), ("4SX", 8, -300, -500), ("4SX", 7, -500, -800), ("4SX", 6, -800, -1100),
    ("4SX", 5, -1100, -1400), ("7NTX", 0, -3500, -3800),
    # redoubled defeated: twice doubled
    ("4SXX", 9, -200, -400), ("4SXX", 8, -600, -1000), ("4SXX", 7, -1000, -1600), ("4SXX", 6, -1600, -2200),
    ("7NTXX", 0, -7000, -7600),
]


@pytest.mark.parametrize("contract,tricks,nv,v", LAW77)
def test_law77_table(contract, tricks, nv, v):
    assert contract_score(contract, tricks, False) == nv
    assert contract_score(contract, tricks, True) == v


def test_bridge_score_sides_and_vulnerability_by_board():
    assert bridge_score("4S", "N", 10, 1) == 420
    assert bridge_score("4S", "S", 10, 2) == 620       # board 2: N-S vulnerable
    assert bridge_score("4S", "E", 10, 2) == -420      # E-W not vulnerable on board 2
    assert bridge_score("4S", "W", 10, "All") == -620
    assert bridge_score("PASS", None, None, 7) == 0
    assert bridge_score("3N", "N", 9, "Both") == 600


def test_vulnerability_cycle():
    names = [vulnerability(b).name for b in range(1, 17)]
    assert names == ["None", "NS", "EW", "All", "NS", "EW", "All", "None",
                     "EW", "All", "None", "NS", "All", "None", "NS", "EW"]
    assert vulnerability(33) == vulnerability(1)
    assert vulnerability("Love") == vulnerability("-") == vulnerability("None")


def test_contract_equality_includes_double():
    assert Contract.parse("4S") != Contract.parse("4SX")
    assert Contract.parse("4sxx") == Contract(4, "S", 2)
    assert Contract.parse("3N") == Contract.parse("3NT")


@pytest.mark.parametrize("bad", ["8S", "0NT", "4Z", "", "4SXXX", 4])
def test_bad_contract_text(bad):
    with pytest.raises(ContractError):
        Contract.parse(bad)


def test_contract_score_vulnerable_must_be_a_bool():
    # "None" is a vulnerability name, not "not vulnerable": a truthy string must not score vulnerable
    with pytest.raises(ContractError, match=r"vulnerable must be True or False.*got 'None'"):
        contract_score("4S", 10, "None")
    with pytest.raises(ContractError, match="vulnerable must be True or False"):
        Contract.parse("4S").score(10, 2)
    assert contract_score("4S", 10, 0) == 420 and contract_score("4S", 10, 1) == 620


def test_bad_tricks_and_declarer():
    with pytest.raises(ContractError, match="tricks"):
        bridge_score("4S", "N", 14, 1)
    with pytest.raises(ContractError, match="declarer"):
        bridge_score("4S", "X", 10, 1)


def test_legal_scores_pavlicek_204_positive():
    positive = {s for v in ("None", "NS", "EW", "All") for s in legal_scores(v) if s > 0}
    assert len(positive) == 204
    assert min(positive) == 50 and max(positive) == 7600
    assert 410 not in legal_scores("None")


def test_impossible_score_message_names_where_and_value():
    with pytest.raises(ImpossibleScoreError) as e:
        check_score(410, 3, where="board 3, row 7")
    assert "board 3, row 7" in str(e.value) and "410" in str(e.value)


@given(st.sampled_from(["C", "D", "H", "S", "NT"]), st.integers(1, 7), st.integers(0, 2),
       st.integers(0, 13), st.booleans())
def test_every_result_is_a_legal_score_and_sides_mirror(strain, level, dbl, tricks, vul):
    c = Contract(level, strain, dbl)
    s = contract_score(c, tricks, vul)
    v = "All" if vul else "None"
    assert s in legal_scores(v) and -s in legal_scores(v)
    assert bridge_score(c, "N", tricks, v) == -bridge_score(c, "E", tricks, v)
    # making scores are positive, failing ones negative
    assert (s > 0) == (tricks >= level + 6)


def test_check_score_accepts_numpy_and_exact_whole_numbers():
    import numpy as np
    from fractions import Fraction

    assert check_score(np.int64(420), 1) == 420 and type(check_score(np.int64(420), 1)) is int
    assert vulnerability(np.int64(2)).name == "NS" and vulnerability(np.float64(4.0)).name == "All"
    assert bridge_score("4S", "N", np.int64(10), np.int64(2)) == 620
    assert check_score(np.float64(-620.0), "EW") == -620
    assert check_score(Fraction(420), "None") == 420
    with pytest.raises(ImpossibleScoreError, match=r"board 2, row 1: impossible score: Fraction\(841, 2\)"):
        check_score(Fraction(841, 2), 2, where="board 2, row 1")
    with pytest.raises(ImpossibleScoreError, match="410"):
        check_score(np.int64(410), 1)


def test_artificial_percentage_must_be_a_number():
    from xlbridge import Artificial, InputError

    with pytest.raises(InputError, match=r"artificial score percentage must be a number, got 'x' for NS"):
        Artificial("x", 40)
    with pytest.raises(InputError, match=r"must be 0-100, got 120 for EW"):
        Artificial(60, 120)
