"""WBF 2013 continuous 20-VP scale: published values, the concavity correction, properties.

Sources of the expected values (none produced by xlbridge):
- Seed 004 with ERRATA.md: 7-board scale, +5 = 12.18, +9 = 13.65, -2 = 9.08.
- R. Klinger, "The New WBF IMPs-to-VPs Scale", IBPA Bulletin May 2013 (reprinted at
  neapolitanclub.altervista.org/eng/ron-klinger-the-new-wbf-imps-to-vps-scale.html), quoting the
  14-board scale of the NEC Cup: 1 and 2 IMPs worth 0.33 VP each, 3 and 4 worth 0.31 each,
  5 worth 0.30, 6 and 7 worth 0.29 each; 2 IMPs = 10.66, 7 IMPs = 12.16, 10 IMPs = 12.97,
  20 IMPs = 15.26.  (The article calls the 7-IMP figure "16-board"; 12.16 is the 14-board
  value and the 16-board table has 12.03: every other figure there is the 14-board scale too.)
- bcstar.nl, "Continue WP-schaal ingevoerd" (2013): the continuous scale used by the NBB,
  "0 IMP: 10,00 WP, 1 IMP: 10,28 WP, 2 IMP: 10,55 WP" (the 20-board scale).
- bridgekosice.sk, "Nová škála VP": the tables run "from 37 rows for 6 boards to 85 rows for
  32 boards", i.e. blitz margins of 37 and 85 IMPs.
- Published tables for 4, 12 (two independent copies) and 24 boards, embedded in public programs,
  compared entry by entry, including 16 points where the table is 0.01 above the rounded formula
  (see _PUBLISHED below for where each comes from).
- Hand-worked concavity corrections (REFERENCE.md's rule; the same correction loop is in the
  2013 JavaScript implementation gist.github.com/defiant/6360045), written out below.
"""

from decimal import Decimal, ROUND_HALF_UP, localcontext
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

import xlbridge
from xlbridge.core.errors import InputError
from xlbridge.core.teams.vp import vp, vp_blitz, vp_pair, vp_table


def F(text):
    return Fraction(text)


def test_seed_004_seven_boards():
    assert vp(5, 7) == F("12.18")
    assert vp(9, 7) == F("13.65")
    assert vp(-2, 7) == F("9.08")
    # seed 004's VP-level figure uses those published values
    assert F("0.6") * vp(9, 7) + F("0.4") * vp(-2, 7) == F("11.822")


def test_module_is_callable_like_the_function():
    assert xlbridge.vp(5, 7) == F("12.18")
    assert xlbridge.vp_table(7)[5] == F("12.18")


@pytest.mark.parametrize(
    "margin, expected",
    [(0, "10"), (1, "10.33"), (2, "10.66"), (3, "10.97"), (4, "11.28"), (5, "11.58"), (6, "11.87"),
     (7, "12.16"), (10, "12.97"), (20, "15.26")],
)
def test_klinger_14_board_values(margin, expected):
    assert vp(margin, 14) == F(expected)
    assert vp(-margin, 14) == 20 - F(expected)


@pytest.mark.parametrize("margin, expected", [(0, "10.00"), (1, "10.28"), (2, "10.55")])
def test_nbb_20_board_values(margin, expected):
    assert vp(margin, 20) == F(expected)


def test_table_lengths_6_and_32_boards():
    assert vp_blitz(6) == 37 and vp_blitz(32) == 85
    assert vp_table(6)[-1] == 20 and vp_table(6)[-2] < 20
    assert vp_table(32)[-1] == 20 and vp_table(32)[-2] < 20


# Hand-worked: where plain 2-decimal rounding of the formula breaks concavity, the published
# table is 0.01 higher.  (formula values to 5 decimals; rounded; steps)
@pytest.mark.parametrize(
    "boards, margin, before, rounded, after, published",
    [
        # 14 boards: 12.15692, 12.43455, 12.70514 -> 12.16, 12.43, 12.71: steps .27 then .28
        (14, 8, "12.16", "12.43", "12.71", "12.44"),
        # 20 boards: 12.97924, 13.19451, 13.40519 -> 12.98, 13.19, 13.41: steps .21 then .22
        (20, 13, "12.98", "13.19", "13.41", "13.20"),
        # 16 boards: 13.51595, 13.74356, 13.96576 -> 13.52, 13.74, 13.97: steps .22 then .23
        (16, 14, "13.52", "13.74", "13.97", "13.75"),
        # 8 boards: 19.61787, 19.73403, 19.84631 -> 19.62, 19.73, 19.85: steps .11 then .12
        (8, 40, "19.62", "19.73", "19.85", "19.74"),
    ],
)
def test_concavity_correction_points(boards, margin, before, rounded, after, published):
    b, r, a = F(before), F(rounded), F(after)
    assert a - r > r - b  # plain rounding is not concave here
    assert vp(margin - 1, boards) == b
    assert vp(margin + 1, boards) == a
    assert vp(margin, boards) == F(published) == r + F("0.01")
    assert a - vp(margin, boards) <= vp(margin, boards) - b


# ---------------------------------------------------------------------------------------------
# Published tables copied by public programs, compared entry by entry (values typed here as the
# sources print them; none produced by xlbridge).  The code index used to find them shows a file
# by its content and an index id but not its repository name, so each is cited by that id, what
# the file is, and what it says of its own source:
# - 12 boards, twice, independently: (a) index id 10340770676, a jQuery page comparing VP with
#   net / quotient / log tie-breaks for three teams ("var vps = [10.00, 10.36, ...]"); (b) index
#   id 65731656555, a Greek team-league app's data module ("// ---- VP SCALES ----",
#   "export const WBF_12_WIN = [...]" with its mirror WBF_12_LOSS).  Both print 19.02, 19.24 and
#   19.74 at 42, 44 and 49 IMPs, where the formula rounds to 19.01, 19.23 and 19.73.
# - 24 boards: index id 55641262213, "WBF VP scale for 24 boards (winner / loser VP per IMP
#   margin). Source: WBF VP scale 24 boards ... Kept as the canonical reference table"
#   (WBF_24_IMP_VP); 13 entries there are the concavity-raised ones (e.g. 11.23 at 5 IMPs,
#   formula 11.22496...).
# - 4 boards: index id 53886425969, "Official WBF Continuous VP Scale for 4-board matches.
#   Source: https://www.worldbridge.org/wp-content/uploads/2022/12/WBF_VPScales.pdf" (no
#   correction falls in this table; it checks the rounding).
_PUBLISHED = {
    4: """10.00 10.61 11.20 11.76 12.29 12.80 13.28 13.74 14.18 14.60 15.00 15.38 15.74 16.09 16.42
          16.73 17.03 17.31 17.59 17.84 18.09 18.33 18.55 18.76 18.97 19.16 19.34 19.52 19.69 19.85
          20.00""",
    12: """10.00 10.36 10.71 11.05 11.38 11.70 12.01 12.31 12.61 12.90 13.18 13.45 13.71 13.97 14.22
           14.46 14.70 14.93 15.15 15.37 15.58 15.79 15.99 16.18 16.37 16.55 16.73 16.91 17.08 17.24
           17.40 17.56 17.71 17.86 18.00 18.14 18.28 18.41 18.54 18.66 18.78 18.90 19.02 19.13 19.24
           19.34 19.44 19.54 19.64 19.74 19.83 19.92 20.00""",
    24: """10 10.25 10.5 10.75 10.99 11.23 11.46 11.68 11.9 12.12 12.33 12.54 12.75 12.95 13.15 13.34
           13.53 13.72 13.9 14.08 14.26 14.43 14.6 14.76 14.92 15.08 15.24 15.39 15.54 15.69 15.83
           15.97 16.11 16.25 16.38 16.51 16.64 16.77 16.89 17.01 17.13 17.25 17.36 17.47 17.58 17.69
           17.79 17.89 17.99 18.09 18.19 18.29 18.38 18.47 18.56 18.65 18.74 18.82 18.9 18.98 19.06
           19.14 19.22 19.3 19.37 19.44 19.51 19.58 19.65 19.72 19.79 19.85 19.91 19.97 20""",
}
# The 12-board loss column of source (b), 20 - win, checked as printed.
_PUBLISHED_12_LOSS = """10.00 9.64 9.29 8.95 8.62 8.30 7.99 7.69 7.39 7.10 6.82 6.55 6.29 6.03 5.78 5.54 5.30
    5.07 4.85 4.63 4.42 4.21 4.01 3.82 3.63 3.45 3.27 3.09 2.92 2.76 2.60 2.44 2.29 2.14 2.00 1.86
    1.72 1.59 1.46 1.34 1.22 1.10 0.98 0.87 0.76 0.66 0.56 0.46 0.36 0.26 0.17 0.08 0.00"""

# Where those published tables are 0.01 above the 2-decimal rounding of the formula (the
# concavity correction); the test recomputes the formula at 60 digits to show the plain rounding.
_PUBLISHED_CORRECTIONS = [
    (12, 42, "19.01", "19.02"),
    (12, 44, "19.23", "19.24"),
    (12, 49, "19.73", "19.74"),
    (24, 5, "11.22", "11.23"),
    (24, 20, "14.25", "14.26"),
    (24, 22, "14.59", "14.60"),
    (24, 33, "16.24", "16.25"),
    (24, 37, "16.76", "16.77"),
    (24, 40, "17.12", "17.13"),
    (24, 41, "17.24", "17.25"),
    (24, 42, "17.35", "17.36"),
    (24, 45, "17.68", "17.69"),
    (24, 51, "18.28", "18.29"),
    (24, 56, "18.73", "18.74"),
    (24, 63, "19.29", "19.30"),
    (24, 70, "19.78", "19.79"),
]


@pytest.mark.parametrize("boards", sorted(_PUBLISHED))
def test_published_tables_every_entry(boards):
    published = [F(x) for x in _PUBLISHED[boards].split()]
    assert len(published) == vp_blitz(boards) + 1
    assert list(vp_table(boards)) == published
    for m, v in enumerate(published):
        assert vp(m, boards) == v and vp(-m, boards) == 20 - v


def test_published_12_board_loss_column():
    loss = [F(x) for x in _PUBLISHED_12_LOSS.split()]
    assert [vp(-m, 12) for m in range(len(loss))] == loss


@pytest.mark.parametrize("boards, margin, rounded, published", _PUBLISHED_CORRECTIONS)
def test_published_concavity_corrections(boards, margin, rounded, published):
    # the published value is the formula rounded to 2 decimals plus 0.01 ...
    with localcontext() as ctx:
        ctx.prec = 60
        b = 15 * Decimal(boards).sqrt()
        tau = (Decimal(5).sqrt() - 1) / 2
        x = 10 + 10 * (1 - tau ** (3 * Decimal(margin) / b)) / (1 - tau**3)
    assert x.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP) == Decimal(rounded)
    assert F(published) == F(rounded) + F("0.01")
    assert F(published) in [F(v) for v in _PUBLISHED[boards].split()]
    # ... and xlbridge prints the published value, not the rounded formula
    assert vp(margin, boards) == F(published)


def _reference_table(n):
    """Brute force straight from REFERENCE.md: formula at 60 digits, round, raise until concave."""
    with localcontext() as ctx:
        ctx.prec = 60
        b = 15 * Decimal(n).sqrt()
        tau = (Decimal(5).sqrt() - 1) / 2
        cents = []
        m = 0
        while True:
            x = 10 + 10 * (1 - tau ** (3 * Decimal(m) / b)) / (1 - tau**3)
            c = min(2000, int((min(x, Decimal(20)) * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP)))
            cents.append(c)
            if Decimal(m) >= b:
                break
            m += 1
    while True:
        bad = [i for i in range(1, len(cents) - 1) if cents[i + 1] - cents[i] > cents[i] - cents[i - 1]]
        if not bad:
            break
        cents[bad[0]] += 1
    return [Fraction(c, 100) for c in cents]


@pytest.mark.parametrize("boards", [1, 2, 3, 5, 7, 8, 9, 12, 14, 16, 20, 24, 28, 32, 36, 48, 64])
def test_table_matches_reference_construction(boards):
    assert list(vp_table(boards)) == _reference_table(boards)


@pytest.mark.parametrize("boards", range(1, 65))
def test_table_properties(boards):
    t = vp_table(boards)
    steps = [t[i + 1] - t[i] for i in range(len(t) - 1)]
    assert t[0] == 10 and t[-1] == 20
    assert all(s >= 0 for s in steps)  # non-decreasing
    assert all(steps[i + 1] <= steps[i] for i in range(len(steps) - 1))  # concave in steps
    assert all((v * 100).denominator == 1 for v in t)  # two decimals
    assert vp(vp_blitz(boards), boards) == 20 and vp(vp_blitz(boards) + 7, boards) == 20
    assert vp(-vp_blitz(boards), boards) == 0


@given(st.integers(-200, 200), st.integers(1, 40))
def test_symmetry_and_monotone(m, n):
    assert vp(m, n) + vp(-m, n) == 20
    assert vp(m + 1, n) >= vp(m, n)
    a, b = vp_pair(m, n)
    assert a + b == 20 and a == vp(m, n)


@given(st.fractions(min_value=-120, max_value=120, max_denominator=20), st.integers(1, 40))
def test_fractional_margins(m, n):
    lo = m.numerator // m.denominator
    v = vp(m, n)
    # interpolation: between the neighbouring whole margins, linear
    assert vp(lo, n) <= v <= vp(lo + 1, n)
    assert v == vp(lo, n) + (m - lo) * (vp(lo + 1, n) - vp(lo, n))
    assert v + vp(-m, n) == 20
    r = vp(m, n, fraction="round")
    assert r + vp(-m, n, fraction="round") == 20
    assert r in (vp(lo, n), vp(lo + 1, n))


def test_fractional_margin_hand_worked():
    # 4.6 IMPs over 7 boards: 11.77 + 0.6 x (12.18 - 11.77) = 12.016
    assert vp(F("4.6"), 7) == F("12.016")
    assert vp(4.6, 7) == F("12.016")
    assert vp(F("-4.6"), 7) == F("7.984")
    assert vp(F("4.5"), 7, fraction="round") == F("12.18")
    assert vp(F("-4.5"), 7, fraction="round") == F("7.82")
    assert vp(F("4.4"), 7, fraction="round") == F("11.77")


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "x", None])
def test_bad_boards(bad):
    with pytest.raises(InputError):
        vp(3, bad)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), None, "abc", True])
def test_bad_margin(bad):
    with pytest.raises(InputError):
        vp(bad, 7)


def test_unknown_fraction_rule():
    with pytest.raises(InputError, match="fractional-margin rule"):
        vp(F("1.5"), 7, fraction="up")
