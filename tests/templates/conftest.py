"""Fixtures shared by the template tests."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from recalc_helpers import recalc_copy

EXAMPLES = Path(__file__).resolve().parents[2] / "workbooks" / "examples"


@pytest.fixture(scope="module")
def example_recalculated(tmp_path_factory):
    """``example_recalculated("pairs.xlsx")`` -> (a copy of the shipped example, its recalculated copy, that
    copy opened with ``data_only=True``); the recalculation is made once per run (recalc_helpers)."""
    def get(name: str):
        tmp = tmp_path_factory.mktemp(Path(name).stem)
        src = tmp / name
        shutil.copy(EXAMPLES / name, src)
        out, vals = recalc_copy(src, tmp)
        return src, out, vals

    return get
