"""Write workbooks/examples/club-session.pbn: a sample club session to try every command on.

``python docs/make_sample_session.py`` (seeded: the same file every time). A 13-table Mitchell, 26 boards
in 13 rounds of two (N-S pairs 1-13 stay at their table, E-W pairs move up one table and the boards down
one each round, so that every E-W pair meets every board once), random deals (dealer and vulnerability by
the standard cycle, Law 2), and at each table a contract chosen from the two sides' high-card points and
a number of tricks around what it needs. The scores are the contract scores of Law 77
(``xlbridge.bridge_score``). Invented names. Not a test fixture: the tests take their expected values
from elsewhere; this is a file for the README's walkthrough and for trying the site.
"""

from __future__ import annotations

import random
from pathlib import Path

import xlbridge
from xlbridge.formats.sheets import VULNERABILITY, standard_dealer

TABLES, ROUNDS, PER_ROUND = 13, 13, 2
OUT = Path(__file__).resolve().parents[1] / "workbooks" / "examples" / "club-session.pbn"
SEATS = "NESW"
RANKS = "AKQJT98765432"
FIRST = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo", "Kim", "Lou", "Mo", "Ned", "Ola", "Pat",
         "Quin", "Ros", "Sam", "Tess", "Uma", "Vic", "Wyn", "Xia", "Yves", "Zoe"]
LAST = ["Archer", "Baker", "Carter", "Dyer", "Evans", "Fisher", "Glover", "Hunter", "Irwin", "Jones", "Knight",
        "Lewis", "Mason", "Nash", "Owen", "Parker", "Quinn", "Reed", "Shaw", "Turner", "Usher", "Vance", "Walker",
        "Young", "Zeller", "Price"]


def _hcp(hand: list[str]) -> int:
    return sum({"A": 4, "K": 3, "Q": 2, "J": 1}.get(c[1], 0) for c in hand)


def main() -> None:
    rng = random.Random(20261128)
    lines = ['% PBN 2.1', '% A sample club session for trying xlbridge (docs/make_sample_session.py)',
             '[Event "Thursday Pairs"]', '[Site "Riverside Bridge Club"]', '[Date "2026.11.26"]', '[Scoring "MP"]', '']
    for board in range(1, ROUNDS * PER_ROUND + 1):
        cards = [s + r for s in "SHDC" for r in RANKS]
        rng.shuffle(cards)
        hands = {seat: sorted(cards[13 * i:13 * i + 13], key=lambda c: ("SHDC".index(c[0]), RANKS.index(c[1])))
                 for i, seat in enumerate(SEATS)}
        dealer, vul = standard_dealer(board), VULNERABILITY(board)  # Law 2, as the workbooks score it
        deal = "N:" + " ".join(".".join("".join(c[1] for c in hands[seat] if c[0] == s) for s in "SHDC")
                               for seat in SEATS)
        ns_hcp = _hcp(hands["N"]) + _hcp(hands["S"])
        side = "NS" if ns_hcp >= 20 else "EW"
        points = ns_hcp if side == "NS" else 40 - ns_hcp
        pair = side if rng.random() < 0.5 else side[::-1]
        declarer = pair[0] if _hcp(hands[pair[0]]) >= _hcp(hands[pair[1]]) else pair[1]
        suit_len = {s: sum(1 for p in pair for c in hands[p] if c[0] == s) for s in "SHDC"}
        strain = max("SHDC", key=lambda s: (suit_len[s], "CDHS".index(s)))
        if suit_len[strain] < 8:
            strain = "NT"
        level = 1 + max(0, min(6, (points - 19) // 3 + (1 if suit_len.get(strain, 0) >= 9 else 0)))
        level = max(level, 3 if strain == "NT" and points >= 25 else level)
        rows = []
        set_no = (board - 1) // PER_ROUND
        for r in range(ROUNDS):
            table = (set_no + r) % TABLES
            ns, ew = table + 1, (table + r) % TABLES + 1
            contract = f"{level}{strain}"
            if rng.random() < 0.25:  # another table bids one level differently
                contract = f"{max(1, min(7, level + rng.choice((-1, 1))))}{strain}"
            tricks = max(0, min(13, int(contract[0]) + 6 + rng.choice((-2, -1, -1, 0, 0, 0, 0, 1, 1, 2))))
            score = xlbridge.bridge_score(contract, declarer, tricks, vul)
            rows.append(f"{ns:2d} {ew:2d} {contract:<4} {declarer} {tricks:2d} {score:6d}")
        lines += [f'[Board "{board}"]', f'[Dealer "{dealer}"]', f'[Vulnerable "{vul}"]', f'[Deal "{deal}"]',
                  '[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R;Score_NS\\6R"]',
                  *rows, '']
    names = rng.sample([f"{f[0]}. {n}" for f in FIRST for n in LAST], 4 * TABLES)
    lines.append('[TotalScoreTable "PairId\\2R;Direction\\2L;Names\\40L"]')
    for k in range(TABLES):
        lines.append(f'{k + 1:2d} NS "{names[4 * k]};{names[4 * k + 1]}"')
    for k in range(TABLES):
        lines.append(f'{k + 1:2d} EW "{names[4 * k + 2]};{names[4 * k + 3]}"')
    OUT.write_text("\n".join(lines) + "\n", encoding="ascii")
    print(OUT)


if __name__ == "__main__":
    main()
