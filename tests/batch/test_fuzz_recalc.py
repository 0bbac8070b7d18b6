"""Reproducible fuzzing of ``xlbridge recalc`` with seeded mutations of the shipped templates' XML parts.

tests/fuzz_mutations.py builds each case: one XML part of a template (each of workbooks/*.xlsx built by
the same builders with its long tables 20 rows long, ``recalc_helpers.small_build``, and its styled
blank input cells left out, so that a case takes a fraction of a second) damaged byte-wise or made
hostile while staying well-formed (numbers, attribute values, formulas, rows, cells, relationships,
deep nesting). For every case, run through ``xlbridge.cli.main`` in this process (a sample also as
``python -m xlbridge`` in a subprocess): the exit code is 0, 1 or 2; stderr never holds a traceback and
a refusal is one line; the input is byte-identical afterwards; the output is either absent or a
workbook openpyxl opens; nothing else is left in the folder or the temporary folder. Time is bounded by
``--timeout 5`` per case (the command's own limit). ``benchmarks/bench_fuzz.py`` runs many more cases
on the full templates.
"""

from __future__ import annotations

import collections
import json
import os
import tempfile

import openpyxl
import pytest
from fuzz_mutations import cases, run_case
from server_helpers import run_cli, sha

SEED = 20261123
COUNT = 160
PER_CHUNK = 10
CHUNKS = COUNT // PER_CHUNK


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_seeded_mutations_in_process(tmp_path, private_tmp, chunk, run_artefacts):
    """Cases ``chunk * 10`` to ``chunk * 10 + 9`` of the 160 (one test a chunk, so that each takes seconds
    and the chunks share the cores). The chunk that finishes last checks the mix of all 160."""
    work = tmp_path / "work"
    work.mkdir()
    codes = collections.Counter()
    first = chunk * PER_CHUNK
    chunk_cases = cases(SEED, first + PER_CHUNK, lean_templates=True, first=first)
    for i, (template, data, what) in enumerate(chunk_cases, start=first):
        try:
            result = run_case(data, work, timeout=5)
        except AssertionError as exc:  # name the case: the seed and index reproduce it
            raise AssertionError(f"case {i} of seed {SEED} ({template}, {what[:200]}): {exc}") from None
        codes[result["code"]] += 1
        assert os.listdir(private_tmp) == [], (i, what)
    # the mix is what makes the run meaningful: refusals and full recalculations both happen (over the 160
    # cases: each chunk leaves its counts in the run's folder, and the last one to finish adds them up)
    with run_artefacts.lock("fuzz-mix"):
        (run_artefacts.root / f"fuzz-{SEED}-{chunk}.json").write_text(json.dumps(codes))
        seen = [json.loads(p.read_text()) for p in run_artefacts.root.glob(f"fuzz-{SEED}-*.json")]
    if len(seen) == CHUNKS:
        total = collections.Counter()
        for counts in seen:
            total.update({int(k): v for k, v in counts.items()})
        assert total[2] >= COUNT // 10 and total[0] + total[1] >= COUNT // 10, total


def test_seeded_mutations_sample_as_a_command(tmp_path):
    for i, (template, data, what) in enumerate(cases(SEED + 1, 2, lean_templates=True)):
        src, out = tmp_path / f"case{i}.xlsx", tmp_path / f"out{i}.xlsx"
        src.write_bytes(data)
        before = sha(src)
        proc = run_cli("recalc", src, "-o", out, "--no-progress", "--timeout", "5", env={"TMPDIR": str(tmp_path)})
        assert proc.returncode in (0, 1, 2), (what, proc.stderr)
        assert "Traceback" not in proc.stderr, (what, proc.stderr)
        assert sha(src) == before
        if proc.returncode == 2:
            assert len(proc.stderr.strip().splitlines()) == 1 and not out.exists(), (what, proc.stderr)
        else:
            openpyxl.load_workbook(out).close()
    assert not [p for p in os.listdir(tmp_path) if p.startswith(("xlbridge-", ".xlbridge-", "."))]


def test_a_row_inside_a_cells_text_is_refused_not_copied(tmp_path):
    """Case 96 of seed 20261123: ``<row r="five"/>`` inside an inline string ``<is>``.

    ECMA-376 Part 1, 18.3.1.53 (CT_Rst) allows only text, runs and phonetic runs in ``<is>``; openpyxl
    refuses such a sheet. The streamed reader must not copy it into an output openpyxl cannot open:
    the run exits 2 with one line and writes nothing.
    """
    import zipfile

    from server_helpers import ROOT, rebuild

    src = ROOT / "workbooks" / "pairs.xlsx"
    sheet = zipfile.ZipFile(src).read("xl/worksheets/sheet1.xml")
    assert b"</t></is>" in sheet
    bad, out = tmp_path / "bad.xlsx", tmp_path / "out.xlsx"
    rebuild(src, bad, replace={"xl/worksheets/sheet1.xml": sheet.replace(b"</t></is>", b'</t><row r="five"/></is>', 1)})
    before = sha(bad)
    proc = run_cli("recalc", bad, "-o", out, "--no-progress")
    code, err = proc.returncode, proc.stderr.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "bad.xlsx" in err and "Traceback" not in err
    assert not out.exists() and sha(bad) == before
