"""The hostile-input corpus (issue 37) through the commands a server runs on uploads.

Every file of ``hostile_corpus.py`` (fixed seed) is given to ``python -m xlbridge import``, ``export``,
``publish`` or ``recalc`` in a process of its own, as a server would run it, with ``--timeout 10 --max-memory
1024``: each must end with exit 2 and exactly one line on stderr naming the file (no traceback), or
with exit 0 (and at most the case's one warning line), within 10 s of wall time and 1 GiB (the issue's bound
on this machine; 30 s, and ``--timeout 30``, for an import done in full: ``Case.seconds``; the peak
resident memory of the run is measured with ``wait4`` by a small launcher process the command is forked
from: Linux keeps in a process's peak the size of the process it was forked from, across ``exec``, and a
test process may have grown past 1 GiB), leaving no temporary file beside its output or in its private
temporary folder.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hostile_corpus  # noqa: E402
from recalc_helpers import small_build  # noqa: E402
from server_helpers import PEAK_LAUNCHER  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def corpus(run_artefacts):
    # (once per run; the workbook cases from the templates with 400-row tables: every part and kind of cell, made
    # in 5 s instead of 40 s)
    books = {name: small_build(name, rows=400) for name in ("pairs.xlsx", "teams.xlsx")}
    return run_artefacts.make(f"hostile corpus {hostile_corpus.SEED}",
                              lambda out: hostile_corpus.build(out, books=books))


#: the launcher measuring a command's own peak memory (server_helpers.PEAK_LAUNCHER)
LAUNCHER = PEAK_LAUNCHER


def _run(args, cwd, tmpdir, seconds=10):
    """Run the command in its own process; return (exit code, stdout, stderr, seconds, peak MiB)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmpdir)}
    peak_file = tmpdir / "peak"
    command = [sys.executable, "-m", "xlbridge", *args, "--timeout", str(seconds), "--max-memory", "1024"]
    start = time.monotonic()
    with open(tmpdir / "stdout", "w+b") as out, open(tmpdir / "stderr", "w+b") as err:
        proc = subprocess.Popen([sys.executable, "-S", "-c", LAUNCHER, str(peak_file), *command],
                                cwd=cwd, env=env, stdout=out, stderr=err, start_new_session=True)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            pytest.fail(f"{args}: still running after 60 s")
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
    peak = int(peak_file.read_text())
    for name in ("stdout", "stderr", "peak"):
        os.unlink(tmpdir / name)
    return proc.returncode, stdout, stderr, seconds, peak / 1024


def _command(case, src, work):
    out = work / ("site" if case.command == "publish" else "out.xlsx" if case.command in ("import", "recalc")
                  else "out.pbn")
    args = [case.command, str(src), "-o", str(out)]
    if case.command == "export":
        args[2:2] = ["--format", "pbn"]
    if case.command == "recalc":
        args.append("--no-progress")
    return args, out


def _check_output(case, out):
    """What an output made of a hostile file must not hold (issue 51): a formula made from the file's text in a
    workbook, a control, bidi or zero-width character on a page; the pages show the text, html-escaped."""
    import html
    import re
    import zipfile

    from xlbridge.core.text import REMOVED_CHARACTERS

    if case.command == "import":
        with zipfile.ZipFile(out) as z:
            formulas = [f for part in z.namelist() if part.startswith("xl/worksheets/")
                        for f in re.findall(rb"<f[^>]*>([^<]*)</f>", z.read(part))]
        assert not [f for f in formulas if b"HYPERLINK" in f or f in (b"1+1", b"#N/A")], formulas[:5]
    if case.command == "publish":
        pages = "".join(p.read_text(encoding="utf-8") for p in out.glob("*.html"))
        assert REMOVED_CHARACTERS.search(pages) is None, REMOVED_CHARACTERS.findall(pages)[:5]
        if case.name.startswith("formula-text"):
            assert html.escape(hostile_corpus.FORMULAS[0], quote=False) in pages or html.escape(
                hostile_corpus.FORMULAS[0]) in pages


def _check_clean(work, tmpdir):
    left = [p.name for p in work.iterdir() if ".xlbridge-" in p.name and not p.name.endswith("xlbridge-site")]
    assert not left, left
    store = [p for p in work.iterdir() if p.name.endswith(".xlbridge-site")]
    for s in store:  # beside a site: its lock and at most the one site the link names
        assert len([p for p in s.iterdir() if p.name != ".lock"]) <= 1
    assert not [p for p in tmpdir.iterdir() if p.name.startswith("xlbridge-recalc-")]


@pytest.mark.parametrize("case", hostile_corpus.CASES, ids=[c.name for c in hostile_corpus.CASES])
def test_each_hostile_file_is_refused_in_one_line_or_done_within_the_limits(corpus, case, tmp_path):
    work, tmpdir = tmp_path / "work", tmp_path / "tmp"
    work.mkdir()
    tmpdir.mkdir()
    args, out = _command(case, corpus / case.name, work)
    code, stdout, stderr, seconds, peak = _run(args, work, tmpdir, case.seconds)
    lines = stderr.splitlines()
    assert code == case.exit, (code, stderr[-2000:])
    assert seconds < case.seconds, seconds
    assert "Traceback" not in stderr
    assert hostile_corpus.PASSWD[:6] not in stderr + stdout  # (a file of another kind is described, never quoted)
    if case.exit == 2:
        assert len(lines) == 1, lines
        assert lines[0].startswith(f"xlbridge {case.command}: "), lines
        assert case.name in lines[0] or case.name.split(".")[0] in lines[0] or "input" in lines[0], lines
        assert case.says in lines[0], lines
        assert not out.exists() and not os.path.lexists(out)
    else:
        if case.exit == 1:  # (recalc's mistakes in the book: named on stdout, a line each; its summary on stderr)
            assert case.says in stdout and len(stdout.splitlines()) <= 3, stdout[-2000:]
            assert len(lines) == 1 and lines[0].endswith(" s") and f"{case.errors} with errors" in lines[0], lines
        elif case.says:  # (one warning line)
            assert len(lines) == 1 and lines[0].startswith(f"xlbridge {case.command}: "), lines
            assert case.says in lines[0], lines
        else:
            assert lines == [], lines
        assert out.exists()
        _check_output(case, out)
    _check_clean(work, tmpdir)
    assert peak < 1024, peak


def test_seeded_mutations_are_read_or_refused_in_one_line(corpus, tmp_path):
    """Mutants of a valid PBN and USEBIO file (seed 37): exit 0 or 2, one line, never a traceback."""
    mutants = sorted(corpus.glob("mutant-*"))
    assert len(mutants) == hostile_corpus.MUTANTS
    refused = 0
    for src in mutants:
        work = tmp_path / src.stem
        work.mkdir()
        proc = subprocess.run([sys.executable, "-c", "import sys; from xlbridge.cli import main; "
                               "sys.exit(main(sys.argv[1:]))", "import", str(src), "-o", str(work / "o.xlsx")],
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                              timeout=60) if src == mutants[0] else None
        if proc is None:  # the others in this process (the command's main), for speed
            from xlbridge.cli import main

            import contextlib
            import io

            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                code = main(["import", str(src), "-o", str(work / "o.xlsx")])
            stderr = err.getvalue()
        else:
            code, stderr = proc.returncode, proc.stderr
        assert code in (0, 2), (src.name, code, stderr)
        assert "Traceback" not in stderr
        if code == 2:
            refused += 1
            assert len(stderr.splitlines()) == 1, (src.name, stderr)
    assert 0 < refused  # the mutations do break files (a test that could not fail would prove nothing)


def test_seeded_workbook_mutations_are_exported_or_refused_in_one_line(corpus, tmp_path):
    """Mutants of a filled pairs workbook (one XML part damaged; seed 37), exported to PBN by the command's
    main in this process: exit 0 or 2, one line, never a traceback, no output on a refusal."""
    import contextlib
    import io

    from xlbridge.cli import main

    mutants = sorted(corpus.glob("wb-mutant-*.xlsx"))
    assert len(mutants) == hostile_corpus.WORKBOOK_MUTANTS
    refused = 0
    for src in mutants:
        out = tmp_path / (src.stem + ".pbn")
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(["export", str(src), "--format", "pbn", "-o", str(out)])
        stderr = err.getvalue()
        assert code in (0, 2), (src.name, code, stderr)
        assert "Traceback" not in stderr
        if code == 2:
            refused += 1
            assert len(stderr.splitlines()) == 1 and src.name in stderr and not out.exists(), (src.name, stderr)
    assert 0 < refused  # the mutations do break files


def test_a_name_with_control_characters_is_escaped_in_every_message(tmp_path):
    """A file named with a line break and a terminal escape: the one line shows them escaped (issue 37: a
    newline and a terminal escape reached the terminal on two error paths)."""
    src = tmp_path / "evil\n\x1b[31m.pbn"
    src.write_bytes(b'[Event "' + b"E" * 300 + b'"]\n[Board "1"]\n')
    for command, extra in (("import", []), ("publish", []), ("export", ["--format", "pbn"])):
        out = tmp_path / f"out-{command}\n\x1b[0m"
        code, stdout, stderr, _s, _u = _run([command, str(src), *extra, "-o", str(out)], tmp_path, tmp_path)
        assert code == 2, stderr
        assert len(stderr.splitlines()) == 1 and "\x1b" not in stderr, stderr
        assert "\\x1b[31m.pbn" in stderr, stderr  # the escape shown escaped (the line break: a space or \\n)


# --------------------------------------------------------------------------------------------------
# Other spreadsheet files (issue 52): an OpenDocument file is known by its ``mimetype`` member (read at most 100
# bytes, after the zip's sizes and ratios are checked) and an OLE2 file (.xls) by its signature; hostile ones are
# refused in one line like any other upload, by every command that reads a workbook.


def _other_spreadsheets(folder: Path) -> dict[str, str]:
    """{file name: what its one line says}: hostile variants of an .ods and a .xls, written into ``folder``."""
    import struct
    import zipfile

    ods = "application/vnd.oasis.opendocument.spreadsheet"
    made = {}

    def zipped(name, members, says):
        with zipfile.ZipFile(folder / name, "w") as z:
            for member, data, method in members:
                z.writestr(zipfile.ZipInfo(member), data, compress_type=method)
        made[name] = says

    # a mimetype member that is a zip bomb (2 MiB of zeros, compressed 1,000 times): refused before it is read
    zipped("bomb-mimetype.ods", [("mimetype", b"\0" * (2 << 20), zipfile.ZIP_DEFLATED)], "zip bomb?")
    # a mimetype longer than any OpenDocument type (not read): a zip file that is no workbook
    zipped("long-mimetype.ods", [("mimetype", (ods + " " * 200).encode(), zipfile.ZIP_STORED),
                                 ("content.xml", b"<office:document-content/>", zipfile.ZIP_DEFLATED)],
           "not an Excel workbook (a zip file without")
    # a mimetype whose central directory says 47 bytes but whose stream holds 1 MiB: at most 100 bytes are read
    lie = folder / "lying-mimetype.ods"
    zipped(lie.name, [("mimetype", (ods + "x" * (1 << 20)).encode(), zipfile.ZIP_DEFLATED)], "not an Excel workbook")
    data = bytearray(lie.read_bytes())
    central = data.rfind(b"PK\x01\x02")
    struct.pack_into("<I", data, central + 24, len(ods))  # the declared uncompressed size
    struct.pack_into("<I", data, 22, len(ods))  # (and the local header's)
    lie.write_bytes(bytes(data))
    # an OLE2 file cut after its signature
    (folder / "cut.xls").write_bytes(bytes.fromhex("D0CF11E0A1B11AE1") + b"\0" * 504)
    made["cut.xls"] = 'File > Save As, file type "Excel 2007-365 (.xlsx)"'
    return made


@pytest.fixture(scope="module")
def other_spreadsheets(tmp_path_factory):
    folder = tmp_path_factory.mktemp("other-spreadsheets")
    return folder, _other_spreadsheets(folder)


@pytest.mark.parametrize("command", ["recalc", "export", "publish"])
@pytest.mark.parametrize("name", ["bomb-mimetype.ods", "long-mimetype.ods", "lying-mimetype.ods", "cut.xls"])
def test_each_hostile_other_spreadsheet_is_refused_in_one_line(other_spreadsheets, name, command, tmp_path):
    folder, says = other_spreadsheets
    work, tmpdir = tmp_path / "work", tmp_path / "tmp"
    work.mkdir()
    tmpdir.mkdir()
    out = work / ("site" if command == "publish" else "out.xlsx" if command == "recalc" else "out.pbn")
    args = [command, str(folder / name), "-o", str(out)] + (["--format", "pbn"] if command == "export" else []) + (
        ["--no-progress"] if command == "recalc" else [])
    code, stdout, stderr, seconds, peak = _run(args, work, tmpdir)
    lines = stderr.splitlines()
    assert code == 2 and len(lines) == 1, (code, stderr[-2000:])
    assert lines[0].startswith(f"xlbridge {command}: {name}: ") and says[name] in lines[0], lines
    assert "Traceback" not in stderr and not os.path.lexists(out)
    assert seconds < 10 and peak < 1024, (seconds, peak)
    _check_clean(work, tmpdir)


# ---- issue 53: the season's books (a Lehman ratings ledger, a handicap league) read by publish -------------------
# Each is a copy of the shipped example recalculated (the ``season_books`` fixture), one part or cell made hostile,
# published by the command in a process of its own under the same bounds as every case above.

#: (file, what is done to it, exit, the one line says)
SEASON_CASES = [
    ("lehman-xfd5.xlsx", "a value typed at Ledger!XFD5", 0, ""),
    ("handicap-last-row.xlsx", "a team typed at Results!A1048576, below the table", 0, ""),
    ("lehman-long-player.xlsx", "a 32,000-character player's name", 2, "Ledger!I6: player's name longer than 200"),
    ("handicap-error.xlsx", "a handicap cell showing #VALUE!", 2, "Handicaps!F6: the handicap shows an error"),
    ("lehman-bare.xlsx", "every cached value of the ratings tables gone", 2, "results were never calculated"),
    ("lehman-laughs.xlsx", "an entity bomb in the styles part", 2, "entit"),
]


@pytest.fixture(scope="module")
def season_corpus(season_books, tmp_path_factory):
    import re
    import zipfile

    from recalc_helpers import sheet_parts, typed
    from server_helpers import rebuild

    out = tmp_path_factory.mktemp("season-corpus")
    lehman, handicap = season_books["lehman"], season_books["handicap"]
    typed(lehman, out / "lehman-xfd5.xlsx", {"Ledger": {"XFD5": 1}})
    typed(handicap, out / "handicap-last-row.xlsx", {"Results": {"A1048576": "Zed", "B1048576": "Yak"}})
    typed(lehman, out / "lehman-long-player.xlsx", {"Ledger": {"I6": "N" * 32_000}})
    typed(handicap, out / "handicap-error.xlsx", {"Handicaps": {"F6": "#VALUE!"}})
    part = sheet_parts(lehman)["Ledger"]
    with zipfile.ZipFile(lehman) as z:
        xml = z.read(part).decode()
        names = z.namelist()
    bare = re.sub(r'(<c r="[I-S]\d+"[^>]*>(?:<f[^>]*/>|<f[^>]*>[^<]*</f>)?)<v>[^<]*</v>', r"\1", xml)
    rebuild(lehman, out / "lehman-bare.xlsx", replace={part: bare.encode()})
    styles = next(n for n in names if n.endswith("styles.xml"))
    with zipfile.ZipFile(lehman) as z:
        body = z.read(styles)
    body = body.split(b"?>", 1)[1] if body.startswith(b"<?xml") else body
    laughs = (b'<?xml version="1.0"?>\n<!DOCTYPE styleSheet [<!ENTITY a "aaaaaaaaaa">'
              + b"".join(b'<!ENTITY %c "&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;">'
                         % ((ord("a") + k + 1,) + (ord("a") + k,) * 10) for k in range(9)) + b"]>" + body)
    rebuild(lehman, out / "lehman-laughs.xlsx", replace={styles: laughs})
    return out


@pytest.mark.parametrize("name,what,code,says", SEASON_CASES, ids=[c[0] for c in SEASON_CASES])
def test_each_hostile_season_book_is_refused_in_one_line_or_published_within_the_limits(season_corpus, name, what,
                                                                                       code, says, tmp_path):
    work, tmpdir = tmp_path / "work", tmp_path / "tmp"
    work.mkdir()
    tmpdir.mkdir()
    out = work / "site"
    got, stdout, stderr, seconds, peak = _run(["publish", str(season_corpus / name), "-o", str(out)], work, tmpdir)
    lines = stderr.splitlines()
    assert got == code, (what, got, stderr[-2000:])
    assert seconds < 10 and peak < 1024, (seconds, peak)
    assert "Traceback" not in stderr
    if code == 2:
        assert len(lines) == 1 and lines[0].startswith(f"xlbridge publish: {name}"), lines
        assert says in lines[0], lines
        assert not os.path.lexists(out)
    else:
        assert lines == [] and (out / "index.html").exists(), lines
        assert len(list(out.glob("*.html"))) == 2  # the index and the book's page
    _check_clean(work, tmpdir)
