"""Hostile files are refused by ``xlbridge recalc`` inside an OS-enforced memory and CPU cap.

Each file is fed to ``python -m xlbridge recalc`` in a child process whose address space is capped
(``RLIMIT_AS``: what the interpreter needs to start plus 256 MiB) and whose CPU time is capped
(``RLIMIT_CPU``: 60 s; the kernel kills the process past it, so the test fails). The bombs are real:
a member that inflates to 400 MiB of zeros (declared honestly, ratio about 1000:1), the same member
declaring 1,000 bytes (a "liar"), entity bombs in a worksheet and in the shared strings (billion
laughs, quadratic blow-up), an external entity. Decompressing or expanding any of them in memory
would break the cap; the expected outcome is exit code 2 with a one-line reason on stderr, no output
file and the input byte-identical. No duration is asserted (the CPU cap is a bound, not a timing).
"""

from __future__ import annotations

import hashlib
import os
import struct
import subprocess
import sys
import zipfile
import zlib

import openpyxl
import pytest

resource = pytest.importorskip("resource", reason="needs POSIX resource limits")
pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux /proc")

BOMB_MIB = 400
CAP_EXTRA = 256 << 20
CPU_SECONDS = 60

RUN_CAPPED = r"""
import resource, sys
cap = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_CPU, (int(sys.argv[2]), int(sys.argv[2])))
import xlbridge.cli, xlbridge.batch.recalc, xlbridge.batch.guard.safety  # what the refusal path needs, loaded before the cap
with open("/proc/self/status") as fh:
    vm = next(int(l.split()[1]) * 1024 for l in fh if l.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (vm + cap, vm + cap))
sys.exit(xlbridge.cli.main(sys.argv[3:]))
"""


def zeros_deflate(mib: int) -> bytes:
    """A raw deflate stream of ``mib`` MiB of zeros, built from one repeated full-flush block (fast)."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = bytes(1 << 20)
    first = c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
    assert (c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)) == block  # the stream repeats exactly
    return first + block * (mib - 2) + c.compress(chunk) + c.flush()


def add_raw_deflated(path, name: str, stream: bytes, declared: int, crc: int = 0) -> None:
    """Append member ``name`` holding the raw deflate ``stream``, declaring ``declared`` bytes uncompressed."""
    with zipfile.ZipFile(path, "a", zipfile.ZIP_STORED) as z:
        z.writestr(name, stream)
    data = bytearray(open(path, "rb").read())
    raw = name.encode()
    pos = 0
    while (pos := data.find(b"PK\x01\x02", pos)) >= 0:
        nlen = struct.unpack_from("<H", data, pos + 28)[0]
        if bytes(data[pos + 46: pos + 46 + nlen]) == raw:
            local = struct.unpack_from("<I", data, pos + 42)[0]
            for at, method_off, crc_off, size_off in ((pos, 10, 16, 24), (local, 8, 14, 22)):
                struct.pack_into("<H", data, at + method_off, zipfile.ZIP_DEFLATED)
                struct.pack_into("<I", data, at + crc_off, crc)
                struct.pack_into("<I", data, at + size_off, declared)
        pos += 4
    open(path, "wb").write(bytes(data))


LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE x [
 <!ENTITY a "aaaaaaaaaa">
 <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
 <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
 <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
 <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
 <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
 <!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">
 <!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">
 <!ENTITY i "&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;">
]>
"""
NS = b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
SHEET_LAUGHS = LAUGHS + b"<worksheet " + NS + b'><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>&i;</t></is></c>' \
    b"</row></sheetData></worksheet>"
QUADRATIC = (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY big "' + b"x" * 100_000 + b'">]><sst ' + NS + b"><si><t>"
             + b"&big;" * 20_000 + b"</t></si></sst>")  # 2 GB once expanded
XXE = (b'<?xml version="1.0"?><!DOCTYPE sst [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><sst ' + NS
       + b"><si><t>&xxe;</t></si></sst>")


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    path = tmp_path_factory.mktemp("bounds") / "good.xlsx"
    wb = openpyxl.Workbook()
    wb.active["A1"] = "hello"
    wb.active["A2"] = "=1+1"
    wb.save(path)
    return path


@pytest.fixture(scope="module")
def zeros():
    """400 MiB of zeros: under the 512 MiB per-member limit, so the ratio check is what refuses it."""
    return zeros_deflate(BOMB_MIB)


def _copy(good, dst, replace=None):
    """Copy ``good`` to ``dst`` with members replaced or added (every XML part is checked, referenced or not)."""
    replace = dict(replace or {})
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, replace.pop(info.filename, zin.read(info)))
        for name, data in replace.items():
            zout.writestr(name, data)
    return dst


def _hostile(kind, good, tmp, stream):
    path = tmp / f"{kind}.xlsx"
    if kind == "ratio-bomb":
        _copy(good, path)
        add_raw_deflated(path, "xl/media/image1.png", stream, BOMB_MIB << 20)
    elif kind == "liar-bomb":
        _copy(good, path)
        add_raw_deflated(path, "xl/media/image1.png", stream, 1000)
    elif kind == "sheet-laughs":
        _copy(good, path, {"xl/worksheets/sheet1.xml": SHEET_LAUGHS})
    elif kind == "quadratic":
        _copy(good, path, {"xl/sharedStrings.xml": QUADRATIC})
    elif kind == "xxe":
        _copy(good, path, {"xl/sharedStrings.xml": XXE})
    return path


@pytest.mark.parametrize("kind, reason", [
    ("ratio-bomb", "compression ratio"),
    ("liar-bomb", "zip member xl/media/image1.png"),
    ("sheet-laughs", "contains a DTD"),
    ("quadratic", "contains a DTD"),
    ("xxe", "contains a DTD"),
])
def test_hostile_file_refused_under_memory_and_cpu_cap(kind, reason, good, zeros, tmp_path):
    src = _hostile(kind, good, tmp_path, zeros)
    before = hashlib.sha256(src.read_bytes()).hexdigest()
    if kind.endswith("bomb"):
        assert os.path.getsize(src) < 2 << 20  # a small upload that claims or hides 400 MiB
    out = tmp_path / "out.xlsx"
    proc = subprocess.run(
        [sys.executable, "-c", RUN_CAPPED, str(CAP_EXTRA), str(CPU_SECONDS),
         "recalc", str(src), "-o", str(out), "--no-progress"],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert lines[0].startswith(f"xlbridge recalc: {src.name}: ") and reason in lines[0], lines[0]
    assert not out.exists()
    assert hashlib.sha256(src.read_bytes()).hexdigest() == before


def test_the_bombs_are_real(zeros):
    """The bomb stream really inflates to 400 MiB of zeros (streamed here, never held in memory)."""
    d = zlib.decompressobj(-15)
    total, pos, step = 0, 0, 1 << 16
    while pos < len(zeros):
        piece = d.decompress(zeros[pos: pos + step], 1 << 24)
        while piece:
            assert not any(piece[:: 4096])
            total += len(piece)
            piece = d.decompress(d.unconsumed_tail, 1 << 24) if d.unconsumed_tail else b""
        pos += step
    total += len(d.flush())
    assert total == BOMB_MIB << 20
