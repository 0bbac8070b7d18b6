"""``xlbridge import``/``export``/``publish`` read the file they are given, whatever its name, and never
write over it."""

from __future__ import annotations

import hashlib

import pytest
from server_helpers import run_cli

#: a session of one board, two tables (4S N making and one down: 420 and -50, Law 77 by hand)
PBN = """% PBN 2.1
[Event "Tuesday pairs"]
[Board "1"]
[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result;Score_NS"]
1 1 4S N 10 420
2 2 4S N 9 -50
"""
#: a name that is itself a PBN text (a line break in it): read as a name, never as the text
ODD = '[Event "from the name"]\n[Board "7"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n1 2 420\n3 4 400'


def test_a_file_whose_name_holds_line_breaks_is_read_as_a_file(tmp_path):
    try:
        (tmp_path / ODD).write_text(PBN, encoding="ascii")
    except OSError:  # pragma: no cover  (a file system refusing line breaks in names)
        pytest.skip("this file system does not allow a line break in a file name")
    book = tmp_path / "x.xlsx"
    out = run_cli("import", tmp_path / ODD, "-o", book, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    back = run_cli("export", book, "--format", "pbn", "-o", tmp_path / "x.pbn", cwd=tmp_path)
    assert back.returncode == 0, back.stderr
    text = (tmp_path / "x.pbn").read_text(encoding="latin-1")
    assert '[Event "Tuesday pairs"]' in text and '[Board "1"]' in text
    assert "from the name" not in text and '[Board "7"]' not in text


def test_publish_never_writes_over_its_input_inside_the_output_folder(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    source = site / "board-1.html"  # a PBN file under the name of one of the site's pages
    source.write_text(PBN, encoding="ascii")
    before = hashlib.sha256(source.read_bytes()).hexdigest()
    out = run_cli("publish", source, "-o", site, cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "xlbridge publish: the output would overwrite the input (board-1.html of the site); give another -o"]
    assert hashlib.sha256(source.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in site.iterdir()) == ["board-1.html"]  # nothing written, nothing left
    ok = run_cli("publish", source, "-o", tmp_path / "elsewhere", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "elsewhere" / "board-1.html").read_text(encoding="utf-8") != PBN


def test_publish_adds_the_double_dummy_table_with_dds_only(tmp_path):
    """``--dds``: the board whose four hands the file carries gets its double-dummy table (North holds
    every ace, king and queen: 7NT makes, worked by hand); without it, none (the same site everywhere)."""
    from formats_samples import MITCHELL_PBN

    source = tmp_path / "m.pbn"
    source.write_text(MITCHELL_PBN, encoding="latin-1")
    plain = run_cli("publish", source, "-o", tmp_path / "plain", cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    assert "Double dummy" not in (tmp_path / "plain" / "board-1.html").read_text(encoding="utf-8")
    dds = run_cli("publish", source, "-o", tmp_path / "dds", "--dds", cwd=tmp_path)
    assert dds.returncode == 0, dds.stderr
    board = (tmp_path / "dds" / "board-1.html").read_text(encoding="utf-8")
    assert "Double dummy" in board and "7NT" in board


def test_an_output_name_that_is_not_utf8_is_printed_escaped(tmp_path):
    """A folder name of bytes that are not UTF-8 (os.fsdecode's surrogates) with a strict UTF-8 stdout: publish
    says where it wrote, the bytes escaped, instead of an encoding error after the site was switched."""
    import os
    import subprocess
    import sys

    (tmp_path / "e.pbn").write_bytes(b'[Event "x"]\n[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Score_NS"]\n'
                                     b'1 2 420\n2 1 400\n')
    out = os.fsdecode(b"site\xff\x9b")
    proc = subprocess.run([sys.executable, "-m", "xlbridge", "publish", "e.pbn", "-o", out], cwd=tmp_path,
                          capture_output=True, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    assert proc.stdout.startswith(b"site\\udcff\\udc9b: ") and b"\x9b" not in proc.stdout, proc.stdout
    assert os.path.isdir(tmp_path / out)
