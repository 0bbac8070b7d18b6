"""One LibreOffice for a whole test run, driven through its UNO bridge: conversions and a member's edits.

Starting LibreOffice costs about a second of CPU, and a new user profile more: a run made some thirty
starts (``soffice --convert-to`` for each conversion, one for each book edited). Here one ``soffice``, with a
private profile and a pipe of its own, does them all. Two sides:

- the server, run by Debian's /usr/bin/python3 (python3-uno is importable only there)::

      /usr/bin/python3 tests/office.py SOCKET PROFILE WATCH_PID

  starts ``soffice`` headless, then answers on the UNIX socket SOCKET, one request at a time (a JSON line in,
  a JSON line out), until process WATCH_PID (the pytest run) has ended; then it ends LibreOffice and
  removes SOCKET (or when asked: ``{"stop": true}``, :func:`stop`). A request is one book, ``{"in": PATH, "out": PATH, "filter": NAME, "options": TEXT or
  null, "recalc": BOOL, "edits": [EDIT, ...]}``: the book is loaded (``recalc``: LibreOffice recalculates
  every formula on load, its "always recalculate" setting for .xlsx files, as the setting
  ``OOXMLRecalcMode`` 0 of a profile does), the edits made, and the result stored to "out" by the export
  filter NAME (with its options). The answer: ``{"ok": true}`` or ``{"ok": false, "error": TEXT}``.
- the client, :class:`Office`, in the tests' Python: :meth:`Office.convert` (what ``soffice --convert-to FMT
  --outdir DIR BOOK`` writes) and :meth:`Office.edit`. ``tests/conftest.py`` starts the server once a run,
  in whichever worker asks first (its ``office`` fixture); the others connect to the same socket.

EDIT, one of::

    {"op": "insert_rows", "sheet": S, "row": R, "count": N}     rows inserted before sheet row R (1-based)
    {"op": "delete_rows", "sheet": S, "row": R, "count": N}
    {"op": "set", "sheet": S, "cell": "A7", "value": V}        a number, or a text (typed as the cell's text)
    {"op": "sort", "sheet": S, "range": "A5:P22", "column": K, "ascending": true}   K: 0-based in the range
    {"op": "insert_cells", "sheet": S, "range": "A10:G10"}       cells inserted there, the cells below shifted down
    {"op": "delete_cells", "sheet": S, "range": "A7:G7"}         cells deleted, the cells below shifted up
    {"op": "copy_cells", "sheet": S, "from": "H9:O9", "to": "H10"}  copied and pasted
    {"op": "copy_rows", "sheet": S, "from": R1, "to": R2}      whole row R1 copied over row R2 (paste)
    {"op": "cut_insert", "sheet": S, "from": R1, "to": R2}     row R1 moved before row R2 (cut, insert cut cells)
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

#: ``soffice --convert-to`` formats the tests use: (the export filter, the file name's extension)
FILTERS = {"xlsx": ("Calc MS Excel 2007 XML", "xlsx"), "pdf": ("calc_pdf_Export", "pdf"),
           "csv": ("Text - txt - csv (StarCalc)", "csv"), "ods": ("calc8", "ods"), "xls": ("MS Excel 97", "xls")}
#: the filter of a book a member saves in LibreOffice as Excel 2007-365 (.xlsx)
EDITED_FILTER = "Calc Office Open XML"


def available() -> bool:
    """LibreOffice and Debian's Python with python3-uno are installed (.ci/run installs both)."""
    import shutil

    if shutil.which("soffice") is None or not Path("/usr/bin/python3").exists():
        return False
    return subprocess.run(["/usr/bin/python3", "-c", "import uno"], capture_output=True).returncode == 0


class Office:
    """The client: each call sends one book to the run's LibreOffice and waits for it to be done."""

    def __init__(self, address: Path, timeout: float = 600):
        self.address, self.timeout = str(address), timeout

    def request(self, job: dict) -> None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(self.timeout)
            s.connect(self.address)
            s.sendall(json.dumps(job).encode() + b"\n")
            answer = b""
            while not answer.endswith(b"\n"):
                got = s.recv(65536)
                if not got:
                    raise RuntimeError(f"LibreOffice's server closed the connection ({job.get('in')})")
                answer += got
        reply = json.loads(answer)
        if not reply["ok"]:
            raise RuntimeError(f"LibreOffice: {job.get('in')}: {reply['error']}")

    def convert(self, book: Path, outdir: Path, fmt: str, recalc: bool = False) -> Path:
        """What ``soffice --convert-to fmt --outdir outdir book`` writes (``fmt``: ``xlsx``, ``pdf``, ``csv``, or
        ``csv:FILTER:OPTIONS``, as on its command line); returns ``outdir``."""
        ext, _, rest = fmt.partition(":")
        name, options = FILTERS[ext][0], None
        if rest:
            name, _, options = rest.partition(":")
            options = options or None
        out = Path(outdir) / (Path(book).stem + "." + FILTERS[ext][1])
        self.request({"in": str(Path(book).resolve()), "out": str(out.resolve()), "filter": name,
                      "options": options, "recalc": recalc, "edits": []})
        return Path(outdir)

    def edit(self, book: Path, out: Path, edits: list[dict]) -> None:
        """``book`` edited as a member would (``edits``: see the module's text), saved as .xlsx to ``out``."""
        self.request({"in": str(Path(book).resolve()), "out": str(Path(out).resolve()), "filter": EDITED_FILTER,
                      "options": None, "recalc": False, "edits": edits})


def start(address: Path, profile: Path, watch: int) -> subprocess.Popen:
    """Start the server (``/usr/bin/python3`` this file) and wait until it answers on ``address``."""
    proc = subprocess.Popen(["/usr/bin/python3", str(Path(__file__).resolve()), str(address), str(profile), str(watch)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)  # (outlives the worker that started it; ends with the run)
    end = time.monotonic() + 120
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError("LibreOffice's server ended: " + proc.stderr.read().decode(errors="replace")[-2000:])
        if Path(address).exists():
            return proc
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("LibreOffice's server did not start in 120 s")


def stop(address: Path, seconds: float = 60) -> None:
    """Ask the server at ``address`` (if any) to end LibreOffice and itself; wait until it has."""
    if not Path(address).exists():
        return
    try:
        Office(address, timeout=seconds).request({"stop": True})
    except (OSError, RuntimeError):
        return
    end = time.monotonic() + seconds
    while Path(address).exists() and time.monotonic() < end:
        time.sleep(0.05)


# --- the server (Debian's /usr/bin/python3, python3-uno) ----------------------------------------------------


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


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()  # (this server runs on Debian only: python3-uno)


def serve(address: str, profile: str, watch: int) -> int:
    import uno

    pipe = f"xlbridge_office_{os.getpid()}"
    proc = subprocess.Popen(["soffice", f"-env:UserInstallation={Path(profile).resolve().as_uri()}", "--headless",
                             "--invisible", "--norestore", "--nologo", "--nodefault", f"--accept=pipe,name={pipe};urp;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        ctx = _connect(pipe)
        smgr = ctx.ServiceManager
        desktop = smgr.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        provider = smgr.createInstanceWithContext("com.sun.star.configuration.ConfigurationProvider", ctx)
        load_settings = provider.createInstanceWithArguments(
            "com.sun.star.configuration.ConfigurationUpdateAccess",
            (_prop("nodepath", "/org.openoffice.Office.Calc/Formula/Load"),))
        usual = load_settings.getPropertyValue("OOXMLRecalcMode")

        def recalc_mode(mode: int) -> None:
            if load_settings.getPropertyValue("OOXMLRecalcMode") != mode:
                load_settings.setPropertyValue("OOXMLRecalcMode", mode)
                load_settings.commitChanges()

        def job(req: dict) -> None:
            recalc_mode(0 if req["recalc"] else usual)
            doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(req["in"]), "_blank", 0, (_prop("Hidden", True),))
            if doc is None:
                raise RuntimeError("LibreOffice could not open it")
            try:
                for e in req["edits"]:
                    _edit(doc, e)
                props = [_prop("FilterName", req["filter"])]
                if req.get("options"):
                    props.append(_prop("FilterOptions", req["options"]))
                doc.storeToURL(uno.systemPathToFileUrl(req["out"]), tuple(props))
            finally:
                doc.close(True)

        tmp = address + ".new"
        listener.bind(tmp)
        listener.listen(16)
        listener.settimeout(0.5)
        os.rename(tmp, address)  # (the clients wait for this name: it appears once the server answers)
        while _alive(watch) and proc.poll() is None:
            try:
                conn, _ = listener.accept()
            except socket.timeout:
                continue
            with conn:
                conn.settimeout(600)
                data = b""
                while not data.endswith(b"\n"):
                    got = conn.recv(65536)
                    if not got:
                        break
                    data += got
                if not data.endswith(b"\n"):
                    continue
                req = json.loads(data)
                if req.get("stop"):
                    conn.sendall(b'{"ok": true}\n')
                    break
                try:
                    job(req)
                    reply = {"ok": True}
                except Exception as exc:  # noqa: BLE001 - sent back to the test that asked
                    reply = {"ok": False, "error": repr(exc)[:2000]}
                conn.sendall(json.dumps(reply).encode() + b"\n")
        try:
            desktop.terminate()
        except Exception:
            pass
    finally:
        listener.close()
        for p in (address, address + ".new"):
            try:
                os.unlink(p)
            except OSError:
                pass
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1], sys.argv[2], int(sys.argv[3])))
