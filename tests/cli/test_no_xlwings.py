"""``xlbridge recalc`` works with only the [batch] extra, i.e. without xlwings (the README's first command).

A subprocess blocks every ``import xlwings`` (a meta-path finder that raises ImportError, as a missing
package does) and runs ``python -m xlbridge recalc workbooks/pairs.xlsx -o OUT --json``. Expected: exit 0,
xlwings never imported, ``xlbridge.udfs`` loaded with its no-op decorators, no cell in error, the input
byte-identical, and every cached value equal to the one an in-process recalculation (where xlwings may be
present) writes; those values are checked against the core API and the seeds in
tests/templates/test_recalc_pairs.py; seed 004's figures are typed in here again for the no-xlwings run.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from recalc_helpers import cells, recalc_here

recalc = pytest.importorskip("xlbridge.batch.recalc", reason="needs the [batch] extra")

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "workbooks" / "examples" / "pairs.xlsx"

BLOCK = r"""
import importlib.abc, os, runpy, sys

BLOCKED = os.environ["XLB_TEST_BLOCK"].split(",")

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Block())
for mod in [m for m in sys.modules if m.split(".")[0] in BLOCKED]:
    del sys.modules[mod]
if "xlwings" in BLOCKED:
    import xlbridge.udfs as u
    assert type(u.xw).__name__ == "_NoXlwings", type(u.xw)
sys.argv = ["xlbridge"] + sys.argv[1:]
try:
    runpy.run_module("xlbridge", run_name="__main__", alter_sys=True)
finally:
    leaked = [m for m in sys.modules if m.split(".")[0] in BLOCKED]
    assert not leaked, leaked
"""


def run_blocking(blocked, *args, cwd):
    """Run ``python -m xlbridge ARGS`` with the top-level packages ``blocked`` made unimportable."""
    import os

    env = dict(os.environ, XLB_TEST_BLOCK=",".join(blocked))
    return subprocess.run([sys.executable, "-c", BLOCK, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600, env=env)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _values(path: Path) -> dict:
    """{(sheet, (row, column)): value} of every cell holding a value (read-only, once a process)."""
    return {(title, pos): v for title, sheet in cells(path, data_only=True).items() for pos, v in sheet.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("noxlwings")
    src = tmp / "pairs.xlsx"
    shutil.copy(SRC, src)
    before = _sha(src)
    out = tmp / "pairs-recalculated.xlsx"
    proc = run_blocking(["xlwings"], "recalc", str(src), "-o", str(out), "--json", cwd=tmp)
    reference = recalc_here(src, tmp / "reference.xlsx")
    return src, before, out, proc, reference


def test_recalc_without_xlwings_exits_0_with_json(runs):
    src, before, out, proc, _ = runs
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["ok"] is True and summary["error_count"] == 0 and summary["errors"] == []
    assert summary["output"] == str(out) and summary["backup"] is None
    assert summary["formula_cells"] > 0
    assert _sha(src) == before  # the input is never written without --in-place


def test_recalc_without_xlwings_writes_the_same_values(runs):
    src, _, out, proc, reference = runs
    assert proc.returncode == 0, proc.stderr
    assert reference.ok
    got, want = _values(out), _values(Path(reference.output))
    assert got == want
    # the formulas are still there
    assert any(type(v).__name__ == "ArrayFormula" for v in cells(out)["Ranking (calc)"].values())


def test_seed_004_figures_without_xlwings(runs):
    """Seed 004's scoresheets (ERRATA: pair A 2.75) in the no-xlwings output."""
    _, _, out, proc, _ = runs
    assert proc.returncode == 0, proc.stderr
    ws = cells(out, data_only=True)["Travellers"]  # (read-only, once a process)
    header = [ws.get((4, c)) for c in range(1, 16)]
    assert header[:6] + header[7:8] == ["Board", "NS", "EW", "Contract", "Declarer", "Tricks", "Score NS"]
    assert header[13:15] == ["MP NS", "MP EW"]
    mp = {}
    for r in range(5, 1005):
        b, v = ws.get((r, 1)), ws.get((r, 14))
        if b is not None and v not in (None, ""):
            mp.setdefault(b, []).append(round(v, 2))
    # board 1: 60 % 420 / 40 % -50 (2.9), then 420 4.7, 400 2.9, 400 2.9, 170 1.4, -50 0.2
    assert mp[1] == [2.9, 4.7, 2.9, 2.9, 1.4, 0.2]
    # board 3: pair A 2.75 (ERRATA; printed 2.63), pair B 2.80, 420 4.45, 400 2.40, 400 2.40, -50 0.2
    assert mp[3] == [2.75, 2.8, 4.45, 2.4, 2.4, 0.2]


@pytest.mark.parametrize("missing", ["formulas", "defusedxml"])
def test_without_the_batch_extra_one_line_and_exit_2(missing, tmp_path):
    """``pip install -e .`` without [batch]: a one-line reason naming the extra, exit 2, nothing written."""
    src = tmp_path / "pairs.xlsx"
    shutil.copy(SRC, src)
    before = _sha(src)
    proc = run_blocking([missing], "recalc", str(src), "--no-progress", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert missing in lines[0] and 'pip install "xlbridge[batch]"' in lines[0], lines[0]
    assert not (tmp_path / "pairs-recalculated.xlsx").exists()
    assert _sha(src) == before
