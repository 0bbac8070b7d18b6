"""A scorer in a real browser (Debian's Chromium, headless, driven by Playwright): signing in, uploading the
pairs example with the plain form, waiting on the job's page (it reloads itself: no script), reading the
club's site; the forms' CSRF tokens and the sessions' reach checked with a second client."""

from __future__ import annotations

import re

import httpx
import pytest

from serve_helpers import PAIRS, PASSWORDS, served, upload, wait_job  # noqa: F401  (the fixture)

from browser import CHROMIUM, launched  # noqa: E402,F401  (tests/browser.py: the run's Chromium)


@pytest.fixture(scope="module")
def browser():
    yield from launched()


def test_sign_in_upload_and_read_the_site(browser, served, tmp_path):
    server, _ = served
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    problems, requests = [], []
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(server.url + "/admin")
        assert page.url.endswith("/login")                       # not signed in: the sign-in form
        page.fill("input[name=login]", "ann")
        page.fill("input[name=password]", "wrong password!")
        with page.expect_navigation():                           # the form posts; the answer is a new page
            page.click("button[type=submit]")
        assert "Wrong login or password." in page.locator("body").inner_text()
        page.fill("input[name=login]", "ann")
        page.fill("input[name=password]", PASSWORDS["ann"])
        with page.expect_navigation(url="**/admin"):
            page.click("button[type=submit]")
        assert page.url.endswith("/admin") and page.locator("h1").inner_text() == "hearts: uploads"
        cookie = next(c for c in page.context.cookies() if c["name"] == "xlbridge_session")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        page.set_input_files("input[name=file]", str(PAIRS))
        with page.expect_navigation(url=re.compile(r"/admin/jobs/\d+$")):
            page.click("form[enctype] button[type=submit]")
        assert re.search(r"/admin/jobs/\d+$", page.url), page.url
        page.wait_for_selector("#state.done, #state.failed", timeout=180_000)   # the page reloads itself
        assert page.locator("#state").inner_text() == "done", page.locator("#message").inner_text()
        page.screenshot(path=str(tmp_path / "job.png"))
        with page.expect_navigation(url=server.url + "/clubs/hearts/"):
            page.click("text=the club's site")
        assert page.url == server.url + "/clubs/hearts/"
        assert page.locator("table").count() >= 1 and page.locator("a[href^='board-']").count() >= 1
        page.screenshot(path=str(tmp_path / "site.png"), full_page=True)
        with page.expect_navigation(url="**/clubs/hearts/board-*"):
            page.locator("a[href^='board-']").first.click()
        assert "/clubs/hearts/board-" in page.url and page.locator("table").count() >= 1
        with page.expect_download() as download:             # the members' copy, from the admin page
            page.goto(server.url + "/admin")
            page.click("text=members' copy (values only)")
        assert download.value.suggested_filename == "pairs-values.xlsx"
        with page.expect_navigation():
            page.click("text=Sign out")
        page.goto(server.url + "/admin")
        assert page.url.endswith("/login")
    finally:
        page.close()
    assert problems == []                                      # no CSP violation, no script error
    assert all(u.startswith(server.url) for u in requests)    # nothing fetched from elsewhere


def test_forms_need_their_csrf_token_and_a_scorer_reaches_only_their_club(served):
    server, tokens = served
    with httpx.Client(base_url=server.url, timeout=60) as api:          # hearts' own job and book, made here
        r = upload(api, "hearts", tokens["hearts"], PAIRS)
        assert r.status_code == 202, r.text
        hearts_job = r.json()["job"]
        assert wait_job(api, hearts_job, tokens["hearts"], timeout=180)["state"] == "done"
    with httpx.Client(base_url=server.url, timeout=60, follow_redirects=False) as c:
        form = c.get("/login")
        token = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
        # a sign-in without the form's token (a cross-site post) is refused
        bare = httpx.post(server.url + "/login", data={"login": "bob", "password": PASSWORDS["bob"]})
        assert bare.status_code == 403
        r = c.post("/login", data={"login": "bob", "password": PASSWORDS["bob"], "csrf": token})
        assert r.status_code == 303 and r.headers["location"] == "/admin"
        admin = c.get("/admin")
        assert "spades: uploads" in admin.text
        csrf = re.search(r'name="csrf" value="([^"]+)"', admin.text).group(1)
        files = {"file": ("pairs.xlsx", PAIRS.read_bytes())}
        assert c.post("/admin/upload", files=files).status_code == 403                     # no token
        assert c.post("/admin/upload", files=files, data={"csrf": "x" + csrf}).status_code == 403
        # bob (spades) reaches nothing of hearts: its jobs, its books
        assert c.get(f"/api/jobs/{hearts_job}").status_code == 403
        assert c.get(f"/admin/jobs/{hearts_job}").status_code == 404
        assert c.get("/api/clubs/hearts/books/pairs.xlsx/values").status_code == 403
        assert c.get("/admin/books/pairs.xlsx/values").status_code == 404                  # spades has none
        # a session is not an API token: the JSON upload needs the token
        assert c.post("/api/clubs/spades/uploads", files=files).status_code == 401
        out = c.post("/logout", data={"csrf": csrf})
        assert out.status_code == 303 and c.get("/admin").status_code == 303
