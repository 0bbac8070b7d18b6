"""Make a member's edits to workbooks in LibreOffice, through its UNO bridge (run by /usr/bin/python3).

Not a test: tests/templates/test_row_edits.py runs it in a subprocess (python3-uno is importable only by
Debian's Python). One soffice, with a private profile and a pipe of its own, does every job of the JSON
file given, then stops:

    /usr/bin/python3 tests/templates/uno_edits.py JOBS.json

JOBS.json: [{"in": PATH, "out": PATH, "edits": [EDIT, ...]}, ...], each EDIT one of
    {"op": "insert_rows", "sheet": S, "row": R, "count": N}     rows inserted before sheet row R (1-based)
    {"op": "delete_rows", "sheet": S, "row": R, "count": N}
    {"op": "set", "sheet": S, "cell": "A7", "value": V}        a number, or a text (typed as the cell's text)
    {"op": "sort", "sheet": S, "range": "A5:P22", "column": K, "ascending": true}   K: 0-based in the range
    {"op": "insert_cells", "sheet": S, "range": "A10:G10"}       cells inserted there, the cells below shifted down
    {"op": "delete_cells", "sheet": S, "range": "A7:G7"}         cells deleted, the cells below shifted up
    {"op": "copy_cells", "sheet": S, "from": "H9:O9", "to": "H10"}  copied and pasted
    {"op": "copy_rows", "sheet": S, "from": R1, "to": R2}      whole row R1 copied over row R2 (paste)
    {"op": "cut_insert", "sheet": S, "from": R1, "to": R2}     row R1 moved before row R2 (cut, insert cut cells)
The result is saved as Excel 2007-365 (.xlsx) to "out". Prints "ok" per job; exits 1 on any failure.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

# python3-uno (Debian's /usr/bin/python3 only) is imported where used: pytest imports this file for its
# doctests under the project's Python, which has no uno module.


def _prop(name, value):
    from com.sun.star.beans import PropertyValue

    p = PropertyValue()
    p.Name, p.Value = name, value
    return p


def _connect(pipe):
    import uno

    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    for _ in range(600):
        try:
            return resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
        except Exception:
            time.sleep(0.1)
    raise RuntimeError("LibreOffice did not start")


def _edit(doc, e):
    sheet = doc.Sheets.getByName(e["sheet"])
    op = e["op"]
    if op == "insert_rows":
        sheet.Rows.insertByIndex(e["row"] - 1, e.get("count", 1))
    elif op == "delete_rows":
        sheet.Rows.removeByIndex(e["row"] - 1, e.get("count", 1))
    elif op == "set":
        cell = sheet.getCellRangeByName(e["cell"])
        v = e["value"]
        if v is None:
            cell.setString("")
        elif isinstance(v, (int, float)):
            cell.setValue(v)
        else:
            cell.setFormula(str(v)) if str(v).startswith("=") else cell.setString(str(v))
    elif op == "sort":
        import uno
        from com.sun.star.table import TableSortField

        rng = sheet.getCellRangeByName(e["range"])
        field = TableSortField()
        field.Field = e["column"]
        field.IsAscending = e.get("ascending", True)
        desc = rng.createSortDescriptor()
        for p in desc:
            if p.Name == "SortFields":
                p.Value = uno.Any("[]com.sun.star.table.TableSortField", (field,))
            elif p.Name == "ContainsHeader":
                p.Value = False
        rng.sort(desc)
    elif op in ("insert_cells", "delete_cells"):
        from com.sun.star.sheet.CellInsertMode import DOWN
        from com.sun.star.sheet.CellDeleteMode import UP

        address = sheet.getCellRangeByName(e["range"]).RangeAddress
        sheet.insertCells(address, DOWN) if op == "insert_cells" else sheet.removeRange(address, UP)
    elif op == "copy_cells":
        src = sheet.getCellRangeByName(e["from"]).RangeAddress
        sheet.copyRange(sheet.getCellRangeByName(e["to"]).CellAddress, src)
    elif op == "copy_rows":
        src = sheet.Rows.getByIndex(e["from"] - 1).RangeAddress
        dst = sheet.getCellByPosition(0, e["to"] - 1).CellAddress
        sheet.copyRange(dst, src)
    elif op == "cut_insert":
        sheet.Rows.insertByIndex(e["to"] - 1, 1)
        frm = e["from"] + (1 if e["from"] >= e["to"] else 0)
        src = sheet.Rows.getByIndex(frm - 1).RangeAddress
        dst = sheet.getCellByPosition(0, e["to"] - 1).CellAddress
        sheet.moveRange(dst, src)
        sheet.Rows.removeByIndex(frm - 1, 1)
    else:
        raise ValueError(f"unknown edit {op!r}")


def main(path):
    import uno

    jobs = json.load(open(path))
    profile = tempfile.mkdtemp(prefix="uno-edits-")
    pipe = f"xlbridge_uno_{os.getpid()}"
    proc = subprocess.Popen(["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--invisible",
                             "--norestore", "--nologo", "--nodefault", f"--accept=pipe,name={pipe};urp;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    failed = False
    try:
        ctx = _connect(pipe)
        desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        for job in jobs:
            doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(os.path.abspath(job["in"])), "_blank", 0,
                                               (_prop("Hidden", True),))
            try:
                for e in job["edits"]:
                    _edit(doc, e)
                doc.storeToURL(uno.systemPathToFileUrl(os.path.abspath(job["out"])),
                               (_prop("FilterName", "Calc Office Open XML"),))
                print("ok", job["out"], flush=True)
            except Exception as exc:  # noqa: BLE001 - reported, the other jobs still run
                failed = True
                print("failed", job["out"], repr(exc), flush=True)
            finally:
                doc.close(True)
        try:
            desktop.terminate()
        except Exception:
            pass
    finally:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(profile, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
