"""The Excel functions for Office.js: xlwings Server's endpoints on a real server, every function of the
table called as xlwings' JavaScript calls it and compared with the batch engine on the same arguments.

The batch engine's values come from a workbook holding one formula per function over the same argument
cells, recalculated by ``xlbridge recalc`` (the `formulas` engine and the batch registry: another path
than xlwings' conversions). Per-cell errors of a spilled result travel as Office.js error objects.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import httpx
import openpyxl
import pytest
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.formula import ArrayFormula

from xlbridge.excel.functions import FUNCTIONS

from recalc_helpers import recalc_here
from serve_helpers import served  # noqa: F401  (the fixture)


def col(*values):
    return [[v] for v in values]


NA = "#N/A"  # an error in an input cell: Office.js sends it as an error object, the workbook holds =NA()
DIV = [1] * 6 + [2] * 6 + [3] * 6
AVG = [14.0, 14.0, 13.4, 10.0, 5.3, 3.3, 11.5, 10.6, 10.1, 10.0, 9.9, 7.9, 17.0, 15.3, 8.9, 8.3, 7.7, 2.8]
SEED002 = ([980, 800, 480, 450, 420, 400, -50, -100], [4, 3, 8, 26, 115, 6, 17, 1])
WEEKS = (col(1, 1, 2), col("n", "n", "n"), col("s", "e", "s"), col("e", "s", "e"), col("w", "w", "w"),
         col(60, 45, 52))

#: one call per function of the table: its arguments as Office.js sends them (None: an omitted argument)
CASES = {
    "BRIDGE_SCORE": (col("4S", "3NTX", "9Z", None, "6HXX"), col("N", "E", "N", None, "S"), col(10, 9, 10, None, 12),
                     [[1]]),
    "SCORE_OR_TYPED": (col("4S", None, None), col("N", None, None), col(10, None, None), col(1, 2, 3),
                       col(None, -50, "abc")),
    "MATCHPOINTS": (col(420, 410, 400, 170, 620, 650, 620), col(1, 1, 1, 1, 2, 2, 2)),
    "WEIGHTED_MP": ([[420, None], [400, None], [400, None], [170, None], [-50, None], [420, -50]],
                    [[None, None]] * 5 + [[0.6, 0.4]], None, [[6]], [["ACBL"]]),
    "NEUBERG": (col(14, 11, 6, 2, 0, 31), [[16]], [[8]]),
    "MP_PERCENT": (col(29, 23, 13), [[51]], [["EBU"]]),
    "PAIRS_RANKING": (col(1, 1, 2, 2), col(1, 2, 1, 2), col(3, 4, 4, 3), col(420, 400, 100, 100)),
    "PAIRS_STANDINGS": (col(1, 1, 2, 2), col(1, 2, 1, 2), col(3, 4, 4, 3), col(420, 400, 100, 100), None, None,
                        [["EBU"]], [["Mitchell"]]),
    "IMPS": (col(0, 20, 50, 450, -3000, "x", None, NA),),
    "CROSS_IMPS": (col(420, 400, 170, -50),),
    "BUTLER": (col(420, 400, 170, -50, 620),),
    "BUTLER_DATUM": (col(420, 400, 170, -50), [["1"]]),
    "VP": (col(5, 9, -2, "many"), [[7]]),
    "WEIGHTED_IMPS": ([[420, -50], [420, None]], [[0.6, 0.4], [None, None]], col(400, 400)),
    "MATCH_RESULT": (col(3, 0, 5, 2, -2, 0, -3), [[7]]),
    "TEAM_STANDINGS": (col("Aces", "Kings", "Aces"), col("Kings", "Queens", "Queens"),
                       [[12.5, 7.5], [10, 10], [15.2, 4.8]], [[20, 8], [11, 11], [30, 2]]),
    "INSTANT_MP": (col(*SEED002[0]), col(*SEED002[1]), [["None"]]),
    "INSTANT_AWARD": (col(980, 500, 420, -100, 410), col(*SEED002[0]), col(*SEED002[1]), [["None"]]),
    "INSTANT_RESULTS": (col(1, 1, 2), col(420, -50, 170), col(*[1] * 8, 2, 2, 2), col(*SEED002[0], 620, 170, -100),
                        col(*SEED002[1], 3, 4, 3)),
    "LEHMAN_PREDICT": ([[50.0, 45.0, 45.0, 45.0]],),
    "LEHMAN_DELTA": (col(50, 45, 45, 45), [[42]]),
    "LEHMAN_ERROR": (col(26, 1, 0, 101, "x"),),
    "LEHMAN_UPDATE": ([[50]], [[100]], [[400]], [[10]]),
    "LEHMAN_LEDGER": WEEKS,
    "LEHMAN_SEASON": (*WEEKS, col(3, None, 2)),
    "LEHMAN_HISTORY": (*WEEKS, col(3, None, 2), None, None, col("n", None, "w")),
    "FORML_HANDICAP": (col(*DIV), col(*AVG)),
    "FORML_VPDIFF": (col(*DIV), col(*AVG), [[True]]),
    "LEGACY_HANDICAP": (col(*DIV), col(*AVG)),
    "FORML_NEWTEAMS": (col("X", "X"), col("A", "B"), col(8, 10), col(12, 10), col("A", "B"), col(0, 6)),
    "HANDICAP_MATCHES": (col("Eroes", "Lambs"), col("Lambs", "Eroes"), col(1, 30), col(2, 4), col("Eroes", "Lambs"),
                         col(0, 79)),
    "FAIRNESS": (col(19, 37, None), col(56, 56, None)),
    "FAIRNESS_BAND": (col(56, -3, 12), [[0.01]]),
}

ERROR_TYPES = {"Div0": "#DIV/0!", "NotAvailable": "#N/A", "Name": "#NAME?", "Null": "#NULL!", "Num": "#NUM!",
               "Ref": "#REF!", "Value": "#VALUE!"}


def body(name, args, runtime="1.4"):
    """The body xlwings' custom-functions-code.js posts (xlwings-server, static/js/custom-functions)."""
    n = len(next(f for f in FUNCTIONS if f.name == name).args)
    sent = []
    for a in list(args) + [None] * (n - len(args)):  # Excel passes every parameter; an omitted one is null
        if a is None:
            sent.append(None)
        else:
            sent.append([[{"type": "Error", "basicValue": NA, "errorType": "NotAvailable"} if v == NA else v
                          for v in row] for row in a])
    return {"client": "Office.js", "func_name": name, "args": sent, "caller_address": f"[Book1.xlsx]Sheet1!A1",
            "session_id": "test", "culture_info_name": "en-US", "date_format": "M/d/yyyy", "version": "0.37.8",
            "runtime": runtime}


def as_cells(result):
    """Office.js values as the workbook shows them: an error object as its code, "" as blank."""
    def one(v):
        if isinstance(v, dict) and v.get("type") == "Error":
            return ERROR_TYPES[v["errorType"]]
        return None if v == "" else v
    return [[one(v) for v in row] for row in result]


@pytest.fixture(scope="module")
def calls(served):
    server, _ = served
    with httpx.Client(base_url=server.url, timeout=60) as client:
        got = {}
        for name, args in CASES.items():
            r = client.post("/xlwings/custom-functions-call", json=body(name, args))
            assert r.status_code == 200, (name, r.text)
            got[name] = r.json()["result"]
    return got


@pytest.fixture(scope="module")
def engine(calls, tmp_path_factory):
    """The batch engine's values: one formula per function over the same cells, recalculated."""
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    places = {}
    for k, (name, args) in enumerate(CASES.items()):
        ins, out = wb.create_sheet(f"In{k}"), wb.create_sheet(f"Out{k}")
        refs, column = [], 1
        last = max((i for i, a in enumerate(args) if a is not None), default=-1)
        for a in args[:last + 1]:
            if a is None:  # an omitted argument between given ones: an empty cell, as Excel reads it
                refs.append(f"In{k}!{get_column_letter(column)}1")
                column += 2
                continue
            for i, row in enumerate(a):
                for j, v in enumerate(row):
                    cell = ins.cell(i + 1, column + j)
                    cell.value = "=NA()" if v == NA else v
            rows, cols = len(a), max(len(r) for r in a)
            refs.append(f"In{k}!{get_column_letter(column)}1:{get_column_letter(column + cols - 1)}{rows}")
            column += cols + 1
        text = f"={name}({','.join(refs)})"
        shape = calls[name]
        h, w = len(shape), len(shape[0])
        if h == 1 and w == 1:
            out["A1"] = text
        else:
            out["A1"] = ArrayFormula(f"A1:{get_column_letter(w)}{h}", text)
        places[name] = (f"Out{k}", h, w)
    tmp = tmp_path_factory.mktemp("engine")
    wb.save(tmp / "all.xlsx")
    recalc_here(tmp / "all.xlsx", tmp / "all-recalculated.xlsx")
    done = openpyxl.load_workbook(tmp / "all-recalculated.xlsx", data_only=True)
    return {name: [[done[s].cell(i + 1, j + 1).value for j in range(w)] for i in range(h)]
            for name, (s, h, w) in places.items()}


def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return a == b


def test_every_function_is_listed_with_its_arguments(served):
    server, _ = served
    meta = httpx.get(server.url + "/xlwings/custom-functions-meta", timeout=30).json()
    listed = {f["name"]: f for f in meta["functions"]}
    assert set(listed) == {f.name for f in FUNCTIONS} and len(listed) == len(FUNCTIONS) == len(CASES)
    for f in FUNCTIONS:
        assert [p["name"] for p in listed[f.name]["parameters"]] == [a.name for a in f.args], f.name
        assert [bool(p.get("optional")) for p in listed[f.name]["parameters"]] == [a.optional for a in f.args]
    code = httpx.get(server.url + "/xlwings/custom-functions-code", timeout=30)
    assert code.headers["content-type"].startswith("text/javascript")
    for f in FUNCTIONS:
        assert f'CustomFunctions.associate("{f.name}", {f.name});' in code.text
    assert '"/xlwings/custom-functions-call"' in code.text and "fetch(" in code.text
    assert httpx.get(server.url + "/xlwings/custom-functions-meta.json", timeout=30).json() == meta


@pytest.mark.parametrize("name", list(CASES))
def test_each_function_served_equals_the_batch_engine(name, calls, engine):
    served_cells = as_cells(calls[name])
    want = engine[name]
    assert len(served_cells) == len(want) and all(len(r) == len(w) for r, w in zip(served_cells, want)), name
    for r, (got_row, want_row) in enumerate(zip(served_cells, want)):
        for c, (g, w) in enumerate(zip(got_row, want_row)):
            assert same(g, w), (name, r, c, g, w)


def test_the_issue_examples_and_errors_inside_a_spill(calls, served):
    assert calls["NEUBERG"][0] == [29]
    server, _ = served
    r = httpx.post(server.url + "/xlwings/custom-functions-call", json=body("MATCHPOINTS", (col(420, 400, 400, 170),)),
                   timeout=30)
    assert r.json() == {"result": [[6, 0], [3, 3], [3, 3], [0, 6]]}
    # a bad score (410: no contract scores it) is #VALUE! in its row, #N/A for its board's other rows, as
    # Office.js error objects inside the array (runtime 1.4); board 2 is scored
    mp = calls["MATCHPOINTS"]
    value, na = {"type": "Error", "errorType": "Value"}, {"type": "Error", "errorType": "NotAvailable"}
    assert mp[1] == [value, value] and mp[0] == mp[2] == mp[3] == [na, na]
    assert all(isinstance(x, (int, float)) for row in mp[4:] for x in row)
    assert calls["BRIDGE_SCORE"][2] == [value] and calls["BRIDGE_SCORE"][3] == [""]   # a blank row stays blank
    assert calls["IMPS"][-1] == [na]                                       # an input's error is passed on
    # before CustomFunctionsRuntime 1.4 there is no error object: xlwings sends the code as text
    old = httpx.post(server.url + "/xlwings/custom-functions-call",
                     json=body("MATCHPOINTS", CASES["MATCHPOINTS"], runtime="1.3"), timeout=30).json()["result"]
    assert old[1] == ["#VALUE!", "#VALUE!"] and old[0] == ["#N/A", "#N/A"]


def test_bad_calls_are_answered_not_crashed(served):
    server, _ = served
    with httpx.Client(base_url=server.url, timeout=30) as client:
        assert client.post("/xlwings/custom-functions-call", content=b"{not json").status_code == 400
        assert client.post("/xlwings/custom-functions-call", json={"func_name": "OS_SYSTEM", "args": []}).status_code == 404
        assert client.post("/xlwings/custom-functions-call", json={"func_name": "__class__", "args": []}).status_code == 404
        assert client.post("/xlwings/custom-functions-call", json=[1, 2]).status_code == 400
        deep = b'{"func_name": "IMPS", "args": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        assert client.post("/xlwings/custom-functions-call", content=deep).status_code == 400
        odd = body("IMPS", ([[{"type": "Entity", "properties": {}}]],))
        assert client.post("/xlwings/custom-functions-call", json=odd).status_code == 400   # no range holds it
        # a call that cannot run is one short text, as in the workbook
        r = client.post("/xlwings/custom-functions-call", json=body("MATCHPOINTS", (col(420, 400), None, None, [["X"]])))
        assert r.status_code == 200 and r.json()["result"][0][0].startswith("MATCHPOINTS: unknown matchpoint scale")
        assert client.get("/healthz").status_code == 200


def test_manifest_and_task_pane(served):
    server, _ = served
    r = httpx.get(server.url + "/manifest", headers={"X-Forwarded-Proto": "https"}, timeout=30)
    assert r.status_code == 200
    root = ET.fromstring(r.content)
    ns = {"o": "http://schemas.microsoft.com/office/appforoffice/1.1",
          "bt": "http://schemas.microsoft.com/office/officeappbasictypes/1.0"}
    assert root.find("o:Id", ns).text.count("-") == 4
    urls = {u.get("id"): u.get("DefaultValue") for u in root.iter("{%s}Url" % ns["bt"])}
    assert urls["Functions.Metadata.Url"].endswith("/xlwings/custom-functions-meta.json")
    assert urls["Functions.Script.Url"].endswith("/xlwings/custom-functions-code.js")
    assert urls["Taskpane.Url"].endswith("/taskpane.html")
    for url in urls.values():  # every URL of the manifest is served
        path = url.split(str(server.port), 1)[1]
        assert httpx.get(server.url + path, timeout=30).status_code == 200, path
    pane = httpx.get(server.url + "/taskpane.html", timeout=30)
    assert '<script src="/xlwings/custom-functions-code.js"' in pane.text and "<script>" not in pane.text
    csp = pane.headers["content-security-policy"]
    assert "https://appsforoffice.microsoft.com" in csp and "unsafe-inline" not in csp and "frame-ancestors" in csp
    for icon in ("icon-32.png", "icon-64.png"):
        assert httpx.get(f"{server.url}/static/{icon}", timeout=30).content.startswith(b"\x89PNG")
