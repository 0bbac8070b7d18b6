"""A corpus of hostile and broken uploads for ``xlbridge import``, ``export`` and ``publish`` (issue 37).

``python tests/formats/hostile_corpus.py OUT [--seed N]`` writes every file of :data:`CASES` into the
folder OUT; :func:`build` does the same from Python (the tests call it once per session with the
fixed :data:`SEED`).  Each case names its file, the command run on it, and what must happen: exit 2
with one line containing a given text, or exit 0 (done within the limits).  The files are made from
scratch here (text, XML, or a workbook built from the shipped template and then edited with openpyxl
as a committee member's spreadsheet would be), never from xlbridge's own output of a hostile run.

The attacks of the issue: a value typed at ``XFD5`` of a pairs or teams workbook, 20 MB of empty PBN
tags, a 99,000-character event name over 2,000 one-result boards; and the classic ones: a line, a
game, a table or a file past its limit, binary data, XML entity bombs and external entities, deep
nesting, a flood of XML elements, names past the name limit in every place a name is read, pair
numbers that all make one page name, and seeded mutations of a valid PBN, USEBIO and workbook file.
"""

from __future__ import annotations

import dataclasses
import random
import sys
from pathlib import Path

SEED = 37

VALID_PBN = """% PBN 2.1
[Event "Club night"]
[Site "Village hall"]
[Date "2026.11.24"]
[Board "1"]
[Dealer "N"]
[Vulnerable "None"]
[Deal "N:AKQ2.AK2.AK2.AK2 J543.543.543.543 T98.QJT9.QJ6.QJ6 76.876.T987.T987"]
[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R;Score_NS\\6R"]
 1  1 4S   N 10    420
 2  2 4S   N 11    450
 3  3 3NT  S  9    400

[Board "2"]
[Dealer "E"]
[Vulnerable "NS"]
[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R;Score_NS\\6R"]
 1  2 2H   E  8   -110
 2  3 3NT  N  9    600
 3  1 3NT  N  8   -100
"""

VALID_USEBIO = """<?xml version="1.0" encoding="UTF-8"?>
<USEBIO Version="1.2"><CLUB><CLUB_NAME>Village</CLUB_NAME></CLUB>
<EVENT EVENT_TYPE="PAIRS"><EVENT_DESCRIPTION>{name}</EVENT_DESCRIPTION><BOARD_SCORING_METHOD>MATCH_POINTS</BOARD_SCORING_METHOD>
<WINNER_TYPE>2</WINNER_TYPE>
<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>
<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1</EW_PAIR_NUMBER><SCORE>420</SCORE></TRAVELLER_LINE>
<TRAVELLER_LINE><NS_PAIR_NUMBER>2</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER><SCORE>400</SCORE></TRAVELLER_LINE>
</BOARD></EVENT></USEBIO>
"""


VALID_USEBIO_TEAMS = """<?xml version="1.0" encoding="UTF-8"?>
<USEBIO Version="1.2"><CLUB><CLUB_NAME>Village</CLUB_NAME></CLUB>
<EVENT EVENT_TYPE="TEAMS"><EVENT_DESCRIPTION>Teams</EVENT_DESCRIPTION><DATE>26/11/2026</DATE>
<SESSION SESSION_ID="1"><PARTICIPANTS>
<TEAM TEAM_ID="1" TEAM_NAME="Lions"><PLACE>1</PLACE><PAIR><PAIR_NUMBER>1-1-2</PAIR_NUMBER>
<PLAYER><PLAYER_NAME>Ann</PLAYER_NAME><NATIONAL_ID_NUMBER>101</NATIONAL_ID_NUMBER></PLAYER>
<PLAYER><PLAYER_NAME>Bob</PLAYER_NAME><NATIONAL_ID_NUMBER/></PLAYER></PAIR></TEAM>
<TEAM TEAM_ID="2" TEAM_NAME="Tigers"><PLACE>2</PLACE></TEAM>
</PARTICIPANTS>
<MATCH><ROUND_NUMBER>1</ROUND_NUMBER><TEAM>1</TEAM><OPPOSING_TEAM>2</OPPOSING_TEAM>
<BOARD><BOARD_NUMBER>1</BOARD_NUMBER><IMPS>10</IMPS>
<TRAVELLER_LINE><DIRECTION>NS</DIRECTION><CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>10</TRICKS><SCORE>420</SCORE></TRAVELLER_LINE>
<TRAVELLER_LINE><DIRECTION>EW</DIRECTION><CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>9</TRICKS><SCORE>-50</SCORE></TRAVELLER_LINE>
</BOARD></MATCH></SESSION></EVENT>
<HANDSET><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>
<HAND><DIRECTION>North</DIRECTION><SPADES>AKQJ</SPADES><HEARTS>AKQ</HEARTS><DIAMONDS>AKQ</DIAMONDS><CLUBS>AKQ</CLUBS></HAND>
</BOARD></HANDSET></USEBIO>
"""


@dataclasses.dataclass(frozen=True)
class Case:
    """One hostile file: ``name`` in the corpus folder, the ``command`` (``import``, ``export``,
    ``publish``, ``recalc``) and what must happen: ``exit`` 2 with ``says`` in the one line, or 0 (with
    ``says`` in its one warning line when given, else no line on stderr), or 1 (``recalc``: a mistake in the book,
    ``says`` on stdout, its one summary line on stderr), within ``seconds`` of wall time
    (the command's ``--timeout``)."""

    name: str
    command: str
    exit: int
    says: str = ""
    #: the wall-time bound: 10 s (the issue's), 30 s for an import done in full (it builds the 10,000-row
    #: pairs template: 2.5 s of CPU on an idle machine, 11 s of wall time with the two cores shared seven ways)
    seconds: int = 10
    #: the mistakes recalc names (``exit`` 1)
    errors: int = 1


CASES = [
    Case("empty-tags.pbn", "import", 2, "100,000 games"),
    Case("empty-tags-publish.pbn", "publish", 2, "100,000 games"),
    Case("one-game-many-tags.pbn", "import", 2, "1,000 tags in one game"),
    Case("long-event-name.pbn", "publish", 2, "event name longer than 200 characters"),
    Case("long-player-name.pbn", "import", 2, "player name longer than 200 characters"),
    Case("many-players.pbn", "publish", 2, "line 10: more than 12 players named for one pair or team (490)"),
    Case("many-players.xml", "publish", 2, "PAIR 1, PLAYER, PLAYER_NAME: more than 12 players named"),
    Case("long-line.pbn", "import", 2, "line too long"),
    Case("blank-lines.pbn", "import", 2, "2,000,000 lines"),
    Case("data-flood.pbn", "import", 2, "200,000 data items in one game"),
    Case("board-rows.pbn", "publish", 2, "too many rows on board 1"),
    Case("too-large.pbn", "import", 2, "file too large"),
    Case("binary.pbn", "import", 2, "not a PBN file"),
    Case("open-comment.pbn", "import", 2, "unterminated"),
    Case("billion-laughs.xml", "import", 2, "entities"),
    Case("external-entity.xml", "publish", 2, "entities"),
    Case("deep.xml", "import", 2, "nested too deeply"),
    Case("element-flood.xml", "import", 2, "600,000 XML elements"),
    Case("long-event-name.xml", "publish", 2, "event name longer than 200 characters"),
    Case("long-comment.xml", "import", 2, "line 2: more than 1,048,576 bytes without an element starting or ending"),
    Case("many-attributes.xml", "publish", 2, "line 3: more than 1,048,576 bytes without an element starting"),
    Case("long-value.xml", "import", 2, "line 2: more than 1,048,576 bytes without an element starting or ending"),
    Case("pairs-xfd5.xlsx", "export", 0),
    Case("pairs-xfd5-publish.xlsx", "publish", 0),
    Case("teams-xfd5.xlsx", "export", 0),
    Case("pairs-last-row.xlsx", "publish", 0),
    Case("pairs-long-names.xlsx", "publish", 2, "Pairs row 5: player name longer than 200 characters"),
    Case("pairs-long-title.xlsx", "export", 2, "event name longer than 200 characters"),
    Case("not-a-workbook.xlsx", "export", 2, "damaged workbook"),
    Case("teams-xfd5-publish.xlsx", "publish", 0),
    Case("pairs-long-pair-number.xlsx", "export", 2, "Travellers!B5: pair number longer than 20 characters"),
    # (its first odd cell, row 97's board #N/A, is named as publish and export stop at it: core.travellerrow's
    # lead_row_mistake; a lead row without its traveller row comes after a mistake of the row's own)
    Case("pairs-leads-flood.xlsx", "recalc", 1, "Leads!A97: board number must be a whole number from 1 to "
         "10,000, got '#N/A'; publish and export refuse the book until it is put right"),
    # (the Pairs sheet's rows read by recalc's read stage, batch.read.pairsheet: the first mistake named, the others
    # counted; in a Mitchell row 80 lists N-S 130 again, row 30's; the rows below the sheet's capacity named too)
    Case("pairs-sheet-flood.xlsx", "recalc", 1, "Pairs!A80: pair 130 N-S is listed twice (the Ranking shows the "
         "names of its first row); publish and export refuse the book until it is put right (19,", errors=2),
    # (the Matches sheet's rows read by recalc's read stage, batch.read.matchsheet: row 20 a team against itself;
    # the rows below the table's capacity named too; a match there without VPs is in no standings)
    Case("teams-matches-flood.xlsx", "recalc", 1, "Matches!C20: a team cannot play against itself: 'X20'",
         errors=2),
    Case("colliding-ids.pbn", "publish", 0),
    Case("imp-pairs.pbn", "publish", 2, "imp-pairs.pbn: cannot score pairs event at 'IMP'"),
    # issue 51: text from a file stays text (every text field formula-like: no <f> in the book), control, bidi
    # and zero-width characters removed with one warning naming the place (never on a page), a symbolic link
    # refused by every command, and a file of another kind described, never quoted (PASSWD is never shown)
    Case("formula-text.pbn", "import", 0, seconds=30),
    Case("formula-text.xml", "import", 0, seconds=30),
    Case("formula-text-publish.pbn", "publish", 0),
    Case("control-chars.pbn", "import", 0, "control-chars.pbn: warning: removed 9 control, bidi or zero-width "
                                           "characters (U+0007, U+001B, U+200B, U+202E, U+2066, U+2069) from "
                                           "its text, first at line 2", seconds=30),
    Case("control-chars-publish.pbn", "publish", 0, "first at line 2"),
    Case("control-chars.xml", "import", 0, "control-chars.xml: warning: removed 5 control, bidi or zero-width "
                                           "characters (U+0007, U+001B, U+200B, U+202E, U+FEFF) from its text, "
                                           "first at line 3", seconds=30),
    Case("control-chars-publish.xml", "publish", 0, "first at line 3"),
    Case("link.pbn", "import", 2, "link.pbn: this is a symbolic link, not a regular file"),
    Case("link-publish.pbn", "publish", 2, "link-publish.pbn: this is a symbolic link, not a regular file"),
    Case("link-export.xlsx", "export", 2, "link-export.xlsx: this is a symbolic link, not a regular file"),
    Case("link-recalc.xlsx", "recalc", 2, "link-recalc.xlsx: refused: this is a symbolic link, not a workbook file"),
    Case("passwd.pbn", "publish", 2, "passwd.pbn, line 1: not a PBN file: its first line that is not a comment is "
                                     "not a tag"),
    Case("passwd.xml", "import", 2, "passwd.xml, line 1: not a PBN file: its first line that is not a comment is "
                                    "not a tag"),
    Case("passwd.xlsx", "recalc", 2, "passwd.xlsx: not an Excel workbook (not a zip file)"),
    Case("passwd-export.xlsx", "export", 2, "passwd-export.xlsx, line 1: not a PBN file"),
    Case("html.xml", "publish", 2, "html.xml: not a USEBIO file: its root element is not USEBIO"),
    Case("ini.pbn", "import", 2, "ini.pbn, line 1: not a PBN file: cannot read tag pair"),
    Case("zip-names.xlsx", "recalc", 2, "zip-names.xlsx: damaged workbook: a zip member's name is not a part name"),
    Case("zip-names-publish.xlsx", "publish", 2, "damaged workbook: a zip member's name is not a part name"),
]

#: What a password file holds: a file of another kind that no message may quote (issue 51: ``publish pw.pbn``
#: with pw.pbn a link to /etc/passwd printed its first line).
PASSWD = "root:x:0:0:root:/root:/bin/bash"
#: The formula-like values of the text fields (issue 51), one per field: a live link in Excel were it a formula.
FORMULAS = tuple(f'{p}HYPERLINK("http://x.invalid/","{k}")' for k, p in enumerate(("=", "+", "-", "@", "\t=", "=")))

#: Seeded mutations of :data:`VALID_PBN`, a valid USEBIO pairs file and :data:`VALID_USEBIO_TEAMS`: each is
#: read (imported) and must give exit 0 or exit 2 with one line.
MUTANTS = 24
#: The lead rows of ``pairs-leads-flood.xlsx``: none has its traveller row, some hold odd cells; recalc names the
#: first mistake in its one pass over the Leads sheet (batch.read.leads).
LEADS_FLOOD = 20_000
#: Seeded mutations of a filled pairs workbook (one XML part damaged byte-wise): each is exported, and must
#: give exit 0 or exit 2 with one line.
WORKBOOK_MUTANTS = 6


def _pbn_boards(boards: int, event: str = "Club night") -> str:
    out = [f'% PBN 2.1\n[Event "{event}"]\n']
    for b in range(1, boards + 1):
        out.append(f'\n[Board "{b}"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 1 0\n')
    return "".join(out)


def _colliding_ids(pairs: int) -> str:
    """A Howell of ``pairs`` pairs whose numbers all make the same page name (``A`` and ``1`` around a run of
    ``-`` and ``.``, which the site's page names turn into one ``_``): the names made unique in linear time."""
    import itertools

    ids = ["A" + "".join(p) + "1" for p in itertools.islice(itertools.product("-.", repeat=12), pairs)]
    out, per_board = ['% PBN 2.1\n[Event "Colliding"]\n'], 750
    for b in range(pairs // per_board):
        out.append(f'\n[Board "{b + 1}"]\n[Vulnerable "None"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n')
        out += [f"{ids[k]} {ids[(k + 1) % pairs]} {420 if k % 2 else 400}\n"
                for k in range(b * per_board, (b + 1) * per_board)]
    return "".join(out)


def _issue_51() -> dict[str, bytes]:
    """The files of issue 51's cases: formula-like text in every text field, control characters, files of another
    kind (a password file, an HTML page, an INI file). The symbolic links are made by :func:`build`."""
    f = tuple(t.replace("\\", "\\\\").replace('"', '\\"') for t in FORMULAS)  # (as PBN strings)
    pbn = (f'% PBN 2.1\n[Event "{f[0]}"]\n[Site "{f[1]}"]\n[Scorer "{f[2]}"]\n[Board "1"]\n[Vulnerable "None"]\n'
           '[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS;Names_NS;Names_EW"]\n'
           f'"=1+1" "=1+1" 4S N 10 420 "{f[3]};Ann" "{f[4]};Bob"\n"+2" "+2" 4S N 11 450 "#N/A;Cy" "{f[5]};Di"\n')
    xml = ('<?xml version="1.0" encoding="UTF-8"?>\n<USEBIO Version="1.2"><CLUB><CLUB_NAME>{1}</CLUB_NAME></CLUB>\n'
           '<EVENT EVENT_TYPE="PAIRS"><EVENT_DESCRIPTION>{0}</EVENT_DESCRIPTION><CONTACT><FULL_NAME>{2}</FULL_NAME>'
           '</CONTACT>\n<WINNER_TYPE>2</WINNER_TYPE><PARTICIPANTS><PAIR><PAIR_NUMBER>=1</PAIR_NUMBER><DIRECTION>NS'
           '</DIRECTION>\n<PLAYER><PLAYER_NAME>{3}</PLAYER_NAME></PLAYER><PLAYER><PLAYER_NAME>{4}</PLAYER_NAME></PLAYER>'
           '</PAIR></PARTICIPANTS>\n<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>\n<TRAVELLER_LINE><NS_PAIR_NUMBER>=1'
           '</NS_PAIR_NUMBER><EW_PAIR_NUMBER>@2</EW_PAIR_NUMBER><SCORE>420</SCORE></TRAVELLER_LINE>\n<TRAVELLER_LINE>'
           '<NS_PAIR_NUMBER>-3</NS_PAIR_NUMBER><EW_PAIR_NUMBER>+4</EW_PAIR_NUMBER><SCORE>400</SCORE></TRAVELLER_LINE>\n'
           '</BOARD></EVENT></USEBIO>\n')
    import html

    controls_pbn = ('% PBN 2.1\n[Event "Club\x1b[31m night\u202e"]\n[Board "1"]\n[Vulnerable "None"]\n'
                    '[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS;Names_NS;Names_EW"]\n'
                    '1 1 4S N 10 420 "C.\x07Glover;A\u2066B\u2069" "X\u200b;Y"\n'
                    '2 2 4S N 11 450 "P\u202eQ;R\x1b" "S;T\x07"\n')
    controls_xml = xml.format("Club &#27;[31m night", "Village\u202e", "Scorer", "C.\x07Glover\u200b", "\ufeffAnn")
    passwd = (PASSWD + "\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n").encode()
    import io
    import zipfile

    buf = io.BytesIO()  # a zip that is no workbook, a member named like a password file's line
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr(PASSWD, "x")
    return {
        "formula-text.pbn": pbn.encode(), "formula-text-publish.pbn": pbn.encode(),
        "formula-text.xml": xml.format(*(html.escape(t) for t in FORMULAS[:5])).encode(),
        "control-chars.pbn": controls_pbn.encode(), "control-chars-publish.pbn": controls_pbn.encode(),
        "control-chars.xml": controls_xml.encode(), "control-chars-publish.xml": controls_xml.encode(),
        "passwd.pbn": passwd, "passwd.xml": passwd, "passwd.xlsx": passwd, "passwd-export.xlsx": passwd,
        "html.xml": b"<html><body>" + PASSWD.encode() + b"</body></html>\n",
        "ini.pbn": b"[" + PASSWD.encode() + b"\n",
        "zip-names.xlsx": buf.getvalue(), "zip-names-publish.xlsx": buf.getvalue(),
    }


def _mutate(text: bytes, rnd: random.Random) -> bytes:
    data = bytearray(text)
    for _ in range(rnd.randint(1, 6)):
        op = rnd.randrange(4)
        i = rnd.randrange(len(data))
        if op == 0:
            data[i] = rnd.randrange(256)
        elif op == 1:
            del data[i:i + rnd.randint(1, 20)]
        elif op == 2:
            data[i:i] = bytes(rnd.choice(b'[]{}";%\n \\#^-?0123456789ASNTXEW') for _ in range(rnd.randint(1, 8)))
        else:
            j = rnd.randrange(len(data))
            data[i:i] = data[j:j + rnd.randint(1, 200)]
    return bytes(data)


def _workbook_mutants(book: Path, out: Path, rnd: random.Random) -> None:
    """:data:`WORKBOOK_MUTANTS` copies of ``book``, each with one XML part (a worksheet, the workbook or the
    shared strings four times in five) damaged by :func:`_mutate`: ``wb-mutant-NN.xlsx``."""
    import zipfile

    with zipfile.ZipFile(book) as zin:
        infos = [i for i in zin.infolist() if i.filename.endswith((".xml", ".rels"))]
        parts = {i.filename: zin.read(i) for i in zin.infolist()}
    key = [i.filename for i in infos if "worksheets/" in i.filename or i.filename.endswith(("workbook.xml",
                                                                                           "sharedStrings.xml"))]
    for k in range(WORKBOOK_MUTANTS):
        target = rnd.choice(key) if rnd.random() < 0.8 else rnd.choice(infos).filename
        with zipfile.ZipFile(out / f"wb-mutant-{k:02d}.xlsx", "w", zipfile.ZIP_DEFLATED) as zout:
            for name, data in parts.items():
                zout.writestr(name, _mutate(data, rnd) if name == target else data)


def _workbooks(out: Path, rnd: random.Random, books: dict | None = None) -> None:
    import openpyxl

    from xlbridge import formats, templates
    from xlbridge.formats.workbook import fill_pairs_workbook, fill_teams_workbook

    def template(name: str):  # (a given smaller build of the same template, or the full one)
        return openpyxl.load_workbook(books[name]) if books and name in books else templates.build_workbook(name)

    event = formats.read_pbn(VALID_PBN.encode(), name="club.pbn")
    pairs = out / "_pairs.xlsx"
    wb = template("pairs.xlsx")
    fill_pairs_workbook(wb, event, name="club.pbn")
    wb.save(pairs)
    teams_pbn = ('[Event "Teams"]\n[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 2 420\n2 1 -400\n\n'
                 '[TotalScoreTable "TeamId;TeamName"]\n1 "North"\n2 "South"\n')
    teams = out / "_teams.xlsx"
    wb = template("teams.xlsx")
    fill_teams_workbook(wb, formats.read_pbn(teams_pbn.encode(), name="teams.pbn"), name="teams.pbn")
    wb.save(teams)

    def edit(src: Path, dest: str, change) -> None:
        book = openpyxl.load_workbook(src)
        change(book)
        book.save(out / dest)

    def xfd5(sheet: str):
        def change(book) -> None:
            book[sheet]["XFD5"] = 1
        return change

    edit(pairs, "pairs-xfd5.xlsx", xfd5("Travellers"))
    edit(pairs, "pairs-xfd5-publish.xlsx", xfd5("Travellers"))
    edit(teams, "teams-xfd5.xlsx", xfd5("Boards"))
    edit(teams, "teams-xfd5-publish.xlsx", xfd5("Boards"))

    def long_pair_number(book) -> None:
        book["Travellers"]["B5"] = "9" * 25

    edit(pairs, "pairs-long-pair-number.xlsx", long_pair_number)

    def last_row(book) -> None:
        book["Pairs"]["A1048576"] = 99
        book["Pairs"]["B1048576"] = "NS"

    edit(pairs, "pairs-last-row.xlsx", last_row)

    def long_names(book) -> None:
        book["Pairs"]["C5"] = "N" * 32_000

    edit(pairs, "pairs-long-names.xlsx", long_names)

    def long_title(book) -> None:  # (the document title: the event name's fallback when the Event cell is blank)
        from xlbridge.formats.sheets import find_parameter

        find_parameter(book["Travellers"], "Event").value = None
        book.properties.title = "T" * 30_000

    edit(pairs, "pairs-long-title.xlsx", long_title)

    def leads_flood(book) -> None:  # (recalc's read stage reads the Leads sheet: batch.read.leads)
        ws = book.create_sheet("Leads")
        for c, head in enumerate(("Board", "NS", "EW", "Lead"), start=1):
            ws.cell(4, c, head)
        odd = [True, "#N/A", 1e300, -0.0, "x" * 30_000, " ", "٣", 2.5]  # (cells of every kind, a long text)
        for r in range(5, 5 + LEADS_FLOOD):
            ws.cell(r, 1, odd[r % len(odd)] if r % 97 == 0 else 9_000 + r % 1_000)
            ws.cell(r, 2, odd[(r + 3) % len(odd)] if r % 89 == 0 else r)
            ws.cell(r, 3, f"E{r}")
            ws.cell(r, 4, "SK")

    edit(pairs, "pairs-leads-flood.xlsx", leads_flood)

    def pairs_flood(book) -> None:  # (recalc's read stage reads the Pairs sheet: batch.read.pairsheet)
        ws = book["Pairs"]
        odd = [True, "#N/A", 1e300, -0.0, "x" * 30_000, " ", "٣", 2.5]  # (cells of every kind, a long text)
        for r in range(30, 30 + LEADS_FLOOD):  # (below the pairs that played, which keep their fields)
            ws.cell(r, 1, odd[r % len(odd)] if r % 97 == 0 else 100 + r % 50)
            ws.cell(r, 2, odd[(r + 3) % len(odd)] if r % 89 == 0 else "NS")
            ws.cell(r, 3, f"Player {r}")

    edit(pairs, "pairs-sheet-flood.xlsx", pairs_flood)

    def matches_flood(book) -> None:  # (recalc's read stage reads the Matches sheet: batch.read.matchsheet)
        for row in book["Teams"].iter_rows(min_row=5, max_col=3):  # (no Teams sheet list: any name is a team)
            for cell in row:
                if type(cell).__name__ == "Cell":
                    cell.value = None
        ws = book["Matches"]
        odd = [True, "#N/A", 1e300, -0.0, "x" * 30_000, " ", "٣", 2.5]  # (cells of every kind, a long text)
        for r in range(5, 5 + LEADS_FLOOD):
            ws.cell(r, 1, r - 4)
            ws.cell(r, 2, odd[r % len(odd)] if r % 97 == 0 else f"X{r}")
            ws.cell(r, 3, f"X{r}" if r == 20 else odd[(r + 3) % len(odd)] if r % 89 == 0 else f"Y{r}")

    edit(teams, "teams-matches-flood.xlsx", matches_flood)
    _workbook_mutants(pairs, out, rnd)
    pairs.unlink()
    teams.unlink()


def build(out: Path | str, seed: int = SEED, books: dict | None = None) -> list[Path]:
    """Write the corpus into ``out`` (created); return the files, the mutants last. ``books``: {template name:
    path of a build of it} to start the workbook cases from (the tests give builds with short tables, which
    openpyxl loads and saves in a tenth of the time; default: the full templates)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(seed)
    files: dict[str, bytes] = {}
    empty = b'[Event ""]\n' * 1_800_000  # 19.8 MB of empty tags: the issue's 20 MB, under the file limit
    files["empty-tags.pbn"] = empty
    files["empty-tags-publish.pbn"] = empty
    files["one-game-many-tags.pbn"] = "".join(f'[T{i} ""]\n' for i in range(5_000)).encode()
    files["long-event-name.pbn"] = _pbn_boards(2_000, "E" * 99_000).encode()
    files["long-player-name.pbn"] = (VALID_PBN.replace("Score_NS\\6R\"]", "Score_NS\\6R;Names_NS\"]")
                                     .replace(" 1  1 4S   N 10    420", ' 1  1 4S   N 10    420 "' + "P" * 5_000 + '"')
                                     .replace(" 2  2 4S   N 11    450", ' 2  2 4S   N 11    450 "a"')
                                     .replace(" 3  3 3NT  S  9    400", ' 3  3 3NT  S  9    400 "b"')
                                     .replace(" 1  2 2H   E  8   -110", ' 1  2 2H   E  8   -110 "c"')
                                     .replace(" 2  3 3NT  N  9    600", ' 2  3 3NT  N  9    600 "d"')
                                     .replace(" 3  1 3NT  N  8   -100", ' 3  1 3NT  N  8   -100 "e"')).encode()
    # one pair with 490 players (a review's attack: every link to the pair and every board it played showed them)
    many = ";".join(f"Player {k:03d}" for k in range(490))
    files["many-players.pbn"] = "".join(
        line + (f' "{many}"' if line.startswith(" 1  1 ") else ' "x"' if line[:1] == " " else "") + "\n"
        for line in VALID_PBN.replace("Score_NS\\6R\"]", "Score_NS\\6R;Names_NS\"]").splitlines()).encode()
    files["many-players.xml"] = VALID_USEBIO.format(name="Club").replace(
        "<WINNER_TYPE>2</WINNER_TYPE>", "<WINNER_TYPE>2</WINNER_TYPE><PARTICIPANTS><PAIR><PAIR_NUMBER>1</PAIR_NUMBER>"
        + "".join(f"<PLAYER><PLAYER_NAME>P{k}</PLAYER_NAME></PLAYER>" for k in range(13)) + "</PAIR></PARTICIPANTS>"
    ).encode()
    files["blank-lines.pbn"] = b'[Event "x"]\n' + b"\n" * 19_000_000
    files["long-line.pbn"] = b'[Event "x"]\n' + b"1 " * 75_000 + b"\n"
    files["data-flood.pbn"] = b'[Event "x"]\n[Note "y"]\n' + b"1 2 3 4 5 6 7 8 9 0\n" * 30_000
    files["board-rows.pbn"] = ('[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n' + "".join(
        f"{i} {i} 420\n" for i in range(1, 1_002))).encode()
    files["too-large.pbn"] = b"%" + b" " * 20_000_000 + b"\n"
    files["binary.pbn"] = bytes(rnd.randrange(256) for _ in range(4096)) + b"\x00"
    files["open-comment.pbn"] = b'[Event "x"]\n{ a comment that never ends\n' + b"more\n" * 1000
    files["billion-laughs.xml"] = (b'<?xml version="1.0"?>\n<!DOCTYPE USEBIO [<!ENTITY a "aaaaaaaaaa">'
                                   + b"".join(b'<!ENTITY %c "&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;">'
                                              % ((ord("a") + k + 1,) + (ord("a") + k,) * 10) for k in range(9))
                                   + b']>\n<USEBIO Version="1.2"><EVENT><EVENT_DESCRIPTION>&j;</EVENT_DESCRIPTION>'
                                     b'</EVENT></USEBIO>\n')
    files["external-entity.xml"] = (b'<?xml version="1.0"?>\n<!DOCTYPE USEBIO [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
                                    b'<USEBIO Version="1.2"><EVENT><EVENT_DESCRIPTION>&x;</EVENT_DESCRIPTION></EVENT>'
                                    b'</USEBIO>\n')
    files["deep.xml"] = b'<USEBIO Version="1.2">' + b"<a>" * 100_000 + b"</a>" * 100_000 + b"</USEBIO>"
    files["element-flood.xml"] = b'<USEBIO Version="1.2"><EVENT>' + b"<a/>" * 700_000 + b"</EVENT></USEBIO>"
    files["long-event-name.xml"] = VALID_USEBIO.format(name="E" * 99_000).encode()
    # one token of 3 MB (expat 2.5 in small feeds took the square of its length: 19 MB, 12-18 s)
    valid = VALID_USEBIO.format(name="Club")
    files["long-comment.xml"] = valid.replace("<CLUB>", "<!--" + "c" * 3_000_000 + "--><CLUB>").encode()
    files["many-attributes.xml"] = valid.replace('<EVENT EVENT_TYPE="PAIRS">', '<EVENT EVENT_TYPE="PAIRS" ' + " ".join(
        f'a{k}=""' for k in range(300_000)) + ">").encode()
    files["long-value.xml"] = valid.replace("<CLUB>", "<CLUB><X>" + "v" * 3_000_000 + "</X>").encode()
    files["imp-pairs.pbn"] = (b'[Scoring "IMP"]\n[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n'
                              b'1 2 420\n2 1 400\n')
    files["colliding-ids.pbn"] = _colliding_ids(1_500).encode()
    files["not-a-workbook.xlsx"] = b"PK\x03\x04" + bytes(rnd.randrange(256) for _ in range(2048))
    files.update(_issue_51())
    for k in range(MUTANTS):  # a third each: PBN, USEBIO pairs, USEBIO teams
        if k % 3 == 1:
            files[f"mutant-{k:02d}.xml"] = _mutate(VALID_USEBIO.format(name="Club").encode(), rnd)
        elif k % 3 == 2:
            files[f"mutant-{k:02d}.xml"] = _mutate(VALID_USEBIO_TEAMS.encode(), rnd)
        else:
            files[f"mutant-{k:02d}.pbn"] = _mutate(VALID_PBN.encode(), rnd)
    written = []
    for fname, data in files.items():
        (out / fname).write_bytes(data)
        written.append(out / fname)
    for link in ("link.pbn", "link-publish.pbn", "link-export.xlsx", "link-recalc.xlsx"):  # (to a file of the corpus)
        (out / link).symlink_to("passwd.pbn")
    _workbooks(out, rnd, books)
    return sorted(written, key=lambda p: (p.name.startswith("mutant-"), p.name)) + [
        out / c.name for c in CASES if c.name.endswith(".xlsx") and c.name != "not-a-workbook.xlsx"] + sorted(
        out.glob("wb-mutant-*.xlsx"))


if __name__ == "__main__":  # pragma: no cover
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=SEED)
    a = ap.parse_args()
    for path in build(a.out, a.seed):
        print(path)
    sys.exit(0)
