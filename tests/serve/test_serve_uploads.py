"""Uploads through the JSON API of a real server: tokens, clubs, limits, the jobs, downloads and the site.

The site a club gets is compared with ``xlbridge publish`` run by hand on the same book (same pages,
same bytes); the recalculated book with ``xlbridge recalc``'s values.
"""

from __future__ import annotations

import subprocess
import sys
import time

import httpx
import openpyxl
import pytest

from serve_helpers import PAIRS, SESSION_PBN, upload, wait_job, served  # noqa: F401  (the fixture)
from recalc_helpers import recalculated


@pytest.fixture(scope="module")
def client(served):
    server, _ = served
    with httpx.Client(base_url=server.url, timeout=60) as c:
        yield c


@pytest.fixture(scope="module")
def pairs_job(client, served):
    _, tokens = served
    started = time.monotonic()
    r = upload(client, "hearts", tokens["hearts"], PAIRS)
    assert r.status_code == 202, r.text
    job = r.json()["job"]
    assert r.json() == {"job": job} and r.headers["location"] == f"/api/jobs/{job}"
    state = wait_job(client, job, tokens["hearts"])
    return job, state, time.monotonic() - started


def test_who_may_upload(client, served):
    _, tokens = served
    assert upload(client, "hearts", None, PAIRS).status_code == 401
    assert upload(client, "hearts", None, PAIRS).headers["www-authenticate"] == "Bearer"
    assert upload(client, "hearts", "xlb_not-a-token", PAIRS).status_code == 401
    assert upload(client, "hearts", tokens["spades"], PAIRS).status_code == 403      # another club's token
    assert upload(client, "no-such-club", tokens["hearts"], PAIRS).status_code == 403
    assert client.post("/api/clubs/hearts/uploads", headers={"Authorization": "Basic abc"}).status_code == 401


def test_past_the_size_limit_is_413_and_nothing_is_kept(client, served, tmp_path):
    server, tokens = served
    before = sorted((server.data / "tmp").iterdir())
    big = b"PK\x03\x04" + b"\0" * (4 * 1024 * 1024 + 10)
    r = upload(client, "hearts", tokens["hearts"], PAIRS, name="big.xlsx", content=big)
    assert r.status_code == 413 and "4,194,304 bytes" in r.json()["error"]
    # checked while the body streams: a client that declares nothing (chunked) is stopped the same way
    def chunks():
        yield (b'--b\r\nContent-Disposition: form-data; name="file"; filename="big.xlsx"\r\n'
               b'Content-Type: application/octet-stream\r\n\r\n')
        for _ in range(80):
            yield b"\0" * 65536
        yield b"\r\n--b--\r\n"
    r = client.post("/api/clubs/hearts/uploads", content=chunks(),
                    headers={"Authorization": f"Bearer {tokens['hearts']}",
                             "Content-Type": "multipart/form-data; boundary=b"})
    assert r.status_code == 413
    assert sorted((server.data / "tmp").iterdir()) == before == []
    assert upload(client, "hearts", tokens["hearts"], PAIRS, name="notes.txt", content=b"hi").status_code == 400
    r = client.post("/api/clubs/hearts/uploads", headers={"Authorization": f"Bearer {tokens['hearts']}"},
                    content=b"x", )
    assert r.status_code == 400


def test_pairs_example_recalculated_published_and_offered(pairs_job, client, served, tmp_path):
    server, tokens = served
    job, state, seconds = pairs_job
    assert state["state"] == "done", state
    assert state["message"].startswith("pairs-recalculated.xlsx: ") and "0 with errors" in state["message"]
    assert "not on the site" not in state["message"]
    # the site is `xlbridge publish` of the book, page for page
    subprocess.run([sys.executable, "-m", "xlbridge", "publish", str(PAIRS), "-o", str(tmp_path / "site")],
                   check=True, capture_output=True)
    pages = sorted(p.name for p in (tmp_path / "site").iterdir())
    assert "index.html" in pages and len(pages) > 5
    for name in pages:
        r = client.get(f"/clubs/hearts/{name}")
        assert r.status_code == 200, name
        assert r.content == (tmp_path / "site" / name).read_bytes(), name
    index = client.get("/clubs/hearts/")
    assert index.content == (tmp_path / "site" / "index.html").read_bytes()
    assert index.headers["content-type"] == "text/html; charset=utf-8"
    assert "script-src 'self'" in index.headers["content-security-policy"]
    assert client.get("/clubs/hearts").status_code == 301
    # the recalculated book: recalc's values; the members' copy: values, no formulas
    headers = {"Authorization": f"Bearer {tokens['hearts']}"}
    got = client.get("/api/clubs/hearts/books/pairs.xlsx/recalculated", headers=headers)
    assert got.status_code == 200 and got.content[:2] == b"PK"
    (tmp_path / "served.xlsx").write_bytes(got.content)
    a = openpyxl.load_workbook(tmp_path / "served.xlsx", data_only=True, read_only=True)
    b = openpyxl.load_workbook(recalculated(PAIRS), data_only=True, read_only=True)   # xlbridge recalc's, once a run
    for sheet in ("Travellers", "Ranking"):
        if sheet in b.sheetnames:
            rows_a = [r for r in a[sheet].iter_rows(max_row=60, values_only=True)]
            rows_b = [r for r in b[sheet].iter_rows(max_row=60, values_only=True)]
            assert rows_a == rows_b and any(isinstance(v, (int, float)) for r in rows_a for v in r)
    copy = server.data / "clubs" / "hearts" / "jobs" / str(job) / "pairs-values.xlsx"
    assert not copy.exists()                                   # the members' copy: made on first asking
    values = client.get("/api/clubs/hearts/books/pairs.xlsx/values", headers=headers)
    assert values.status_code == 200 and copy.read_bytes() == values.content
    (tmp_path / "values.xlsx").write_bytes(values.content)
    v = openpyxl.load_workbook(tmp_path / "values.xlsx")
    assert not any(isinstance(c.value, str) and c.value.startswith("=")
                   for ws in v.worksheets for row in ws.iter_rows(max_row=40) for c in row)
    # not to another club, nor to nobody
    assert client.get("/api/clubs/hearts/books/pairs.xlsx/values",
                      headers={"Authorization": f"Bearer {tokens['spades']}"}).status_code == 403
    assert client.get("/api/clubs/hearts/books/pairs.xlsx/values").status_code == 401
    assert client.get(f"/api/jobs/{job}", headers={"Authorization": f"Bearer {tokens['spades']}"}).status_code == 403
    assert client.get(f"/api/jobs/{job}").status_code == 401
    assert client.get("/clubs/spades/").status_code == 404       # nothing published for spades


def test_a_pbn_session_is_imported_and_the_season_published_again(pairs_job, client, served):
    server, tokens = served
    r = upload(client, "hearts", tokens["hearts"], SESSION_PBN)
    assert r.status_code == 202
    state = wait_job(client, r.json()["job"], tokens["hearts"])
    assert state["state"] == "done", state
    assert state["book"] == "club-session.xlsx"
    index = client.get("/clubs/hearts/index.html").text
    # two books: the season's site, one folder per event and an index of the events
    folders = [line for line in index.splitlines() if "href=" in line]
    assert len(folders) >= 2, index[:2000]
    headers = {"Authorization": f"Bearer {tokens['hearts']}"}
    assert client.get("/api/clubs/hearts/books/club-session.xlsx/recalculated", headers=headers).status_code == 200


def test_a_refused_file_fails_with_the_commands_line(client, served):
    server, tokens = served
    r = upload(client, "spades", tokens["spades"], PAIRS, name="broken.xlsx", content=b"PK\x03\x04 not a zip at all")
    assert r.status_code == 202
    state = wait_job(client, r.json()["job"], tokens["spades"])
    assert state["state"] == "failed"
    msg = state["message"]
    assert msg.startswith("xlbridge recalc: broken.xlsx") and "\n" not in msg and "Traceback" not in msg
    assert str(server.data) not in msg
    assert client.get("/clubs/spades/").status_code == 404      # nothing published


def test_headers_on_every_kind_of_answer(client, served):
    for path in ("/", "/login", "/api/jobs/1", "/clubs/hearts/", "/static/serve.css", "/no-such-page"):
        h = client.get(path).headers
        assert h["x-content-type-options"] == "nosniff", path
        assert "frame-ancestors 'none'" in h["content-security-policy"], path
        assert "unsafe-inline" not in h["content-security-policy"] and h["x-frame-options"] == "DENY", path
        assert h["referrer-policy"] == "no-referrer"
