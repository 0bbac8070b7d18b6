"""vba_stub/ never drifts from xlbridge/udfs.py: regenerate with xlwings' own generator and compare."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from xlbridge import udfs
from xlbridge.excel import vbastub

ROOT = Path(__file__).resolve().parents[2]
STUB = ROOT / "vba_stub"


@pytest.fixture(scope="module")
def generated():
    return vbastub.generate()


def test_shipped_stub_is_what_xlwings_generates_now(generated):
    udfs_bas, register_bas = generated
    assert (STUB / "xlwings_udfs.bas").read_bytes() == udfs_bas.encode("utf-8"), \
        "vba_stub/xlwings_udfs.bas is out of date: run python -m xlbridge.excel.vbastub"
    assert (STUB / "xlbridge_register.bas").read_bytes() == register_bas.encode("utf-8"), \
        "vba_stub/xlbridge_register.bas is out of date: run python -m xlbridge.excel.vbastub"


def test_stub_files_are_ascii_with_crlf_line_endings():
    for name in ("xlwings_udfs.bas", "xlbridge_register.bas"):
        data = (STUB / name).read_bytes()
        data.decode("ascii")
        assert data.count(b"\n") == data.count(b"\r\n") > 10, name


def test_stub_has_one_wrapper_and_one_registration_per_function(generated):
    udfs_bas, register_bas = generated
    wrappers = re.findall(r"^Function (\w+)\(([^)]*)\)\r$", udfs_bas, re.M)
    assert sorted(n for n, _ in wrappers) == sorted(udfs.EXCEL_FUNCTIONS)
    sigs = dict(wrappers)
    assert sigs["MATCHPOINTS"] == "scores, Optional boards, Optional expected, Optional scale"
    assert sigs["BRIDGE_SCORE"] == "contract, declarer, tricks, vulnerable"
    assert 'XLPy.CallUDF("xlbridge.udfs", "VP", Array(margin, boards, scale), ThisWorkbook, Application.Caller)' in udfs_bas
    registered = re.findall(r'Application\.MacroOptions Macro:="(\w+)"', register_bas)
    assert sorted(registered) == sorted(udfs.EXCEL_FUNCTIONS)
    assert register_bas.count('Category:="xlbridge"') == len(udfs.EXCEL_FUNCTIONS)
    # every argument has a real description (not xlwings' "Positional argument n")
    assert "Positional argument" not in register_bas
    assert '"Contract like 4S, 3NTX, 6HXX, 3N or PASS (a cell or a column)"' in register_bas


def test_drift_is_detected_when_a_function_is_added_without_regenerating(tmp_path):
    src = (ROOT / "xlbridge" / "udfs.py").read_text(encoding="utf-8")
    added = src + '''

@xw.func(category=CATEGORY)
@xw.arg("x", doc="A number")
def DOUBLE_IT(x):
    """Twice x."""
    return 2 * x
'''
    copy = tmp_path / "udfs.py"
    copy.write_text(added, encoding="utf-8")
    problems = vbastub.check(STUB, udfs_path=copy)
    assert len(problems) == 2 and all("differs" in p for p in problems)
    # and an unchanged copy is clean
    copy.write_text(src, encoding="utf-8")
    assert vbastub.check(STUB, udfs_path=copy) == []


def test_generator_restores_the_environment():
    import sys

    import xlwings

    before = (xlwings.func, xlwings.arg, xlwings.ret, sys.modules.get("pythoncom"))
    vbastub.generate()
    assert (xlwings.func, xlwings.arg, xlwings.ret, sys.modules.get("pythoncom")) == before
    assert not hasattr(udfs.BRIDGE_SCORE, "__xlfunc__") or udfs.RUNTIME == "com"


def test_classic_xlwings_metadata_and_legacy_spill_option(monkeypatch):
    monkeypatch.setenv("XLBRIDGE_LEGACY_SPILL", "1")
    with vbastub.stubbed_com() as xlu:
        mod = vbastub.classic_module(vbastub.UDFS_PY, xlu)
    assert mod.RUNTIME == "com"
    for name in udfs.EXCEL_FUNCTIONS:
        xf = getattr(mod, name).__xlfunc__
        assert xf["category"] == "xlbridge" and xf["ret"]["options"] == {"expand": "table"}, name
        assert all(not a["doc"].startswith("Positional argument") for a in xf["args"]), name
        assert all(a["options"] == {"ndim": 2, "err_to_str": True} for a in xf["args"]), name
    xf = mod.MATCHPOINTS.__xlfunc__
    assert [a.get("optional", "required") for a in xf["args"]] == ["required", None, None, None]
