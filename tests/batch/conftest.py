"""Fixtures shared by the batch layer's tests."""
from __future__ import annotations

import openpyxl
import pytest


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """A small clean workbook: a Travellers sheet with 2 in A1 and ``=A1*21`` in A2 (42 once recalculated)."""
    path = tmp_path_factory.mktemp("good") / "good.xlsx"
    wb = openpyxl.Workbook()
    wb.active.title = "Travellers"
    wb.active["A1"] = 2
    wb.active["A2"] = "=A1*21"
    wb.save(path)
    return path
