"""The web pages: plain HTML forms, one stylesheet, no script, nothing fetched from elsewhere.

Every value shown is escaped (:func:`html.escape`); every form that changes something carries the
session's CSRF token in a hidden field; a job's page reloads itself while the job waits or runs with
``<meta http-equiv="refresh">`` (no script).

>>> "<script" in page("x", "<p>hi</p>")
False
"""

from __future__ import annotations

import datetime as _dt
from html import escape
from urllib.parse import quote

from .jobs import Job

__all__ = ["page", "index_page", "login_page", "admin_page", "job_page", "message_page", "CSS"]

CSS = """\
body { font-family: system-ui, sans-serif; margin: 0; color: #1b1b1b; background: #fafaf7; }
header { background: #1d6b3a; color: #fff; padding: .6rem 1rem; }
header a { color: #fff; }
main { max-width: 50rem; margin: 1rem auto; padding: 0 1rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #ddd; vertical-align: top; }
form.inline { display: inline; }
label { display: block; margin: .5rem 0; }
.failed { color: #a40000; }
.done { color: #1d6b3a; }
.message { font-family: ui-monospace, monospace; font-size: .9em; overflow-wrap: anywhere; }
"""


def page(title: str, body: str, *, refresh: int | None = None, signed_in: str | None = None,
         csrf: str | None = None) -> str:
    """A whole page: ``body`` (already HTML) under a header naming the site and who is signed in."""
    meta = f'<meta http-equiv="refresh" content="{int(refresh)}">\n' if refresh else ""
    who = ""
    if signed_in:
        who = (f' &middot; {escape(signed_in)} &middot; <a href="/admin">uploads</a> '
               f'<form class="inline" method="post" action="/logout">'
               f'<input type="hidden" name="csrf" value="{escape(csrf or "", quote=True)}">'
               f'<button type="submit">Sign out</button></form>')
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
{meta}<title>{escape(title)} - xlbridge</title>
<link rel="stylesheet" href="/static/serve.css">
</head>
<body>
<header><a href="/">xlbridge</a>{who}</header>
<main>
<h1>{escape(title)}</h1>
{body}
</main>
</body>
</html>
"""


def index_page(clubs: list[str]) -> str:
    """The front page: the clubs' sites, signing in, the Excel add-in."""
    items = "".join(f'<li><a href="/clubs/{quote(c)}/">{escape(c)}</a></li>' for c in clubs) or "<li>none yet</li>"
    return page("xlbridge", f"""<p>Exact contract-bridge scoring. The clubs' results:</p>
<ul>{items}</ul>
<p>Scorers: <a href="/login">sign in</a> to upload a session's workbook, PBN or USEBIO file.</p>
<p>Excel on Windows, Mac or the web: sideload the add-in's <a href="/manifest">manifest</a> to type
xlbridge's functions (docs/excel.md).</p>""")


def login_page(csrf: str, error: str | None = None) -> str:
    """The sign-in form."""
    err = f'<p class="failed">{escape(error)}</p>' if error else ""
    return page("Sign in", f"""{err}<form method="post" action="/login">
<input type="hidden" name="csrf" value="{escape(csrf, quote=True)}">
<label>Login <input name="login" autocomplete="username" required maxlength="64"></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required maxlength="1024"></label>
<button type="submit">Sign in</button>
</form>""")


def _when(t: float | None) -> str:
    return "" if t is None else _dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def admin_page(club: str, login: str, csrf: str, jobs: list[Job], books: dict[str, int], limit: int,
               error: str | None = None) -> str:
    """A scorer's page: the upload form, the club's books to download, its latest jobs."""
    err = f'<p class="failed">{escape(error)}</p>' if error else ""
    rows = "".join(
        f'<tr><td><a href="/admin/jobs/{j.id}">{j.id}</a></td><td>{escape(j.upload)}</td>'
        f'<td class="{escape(j.state)}">{escape(j.state)}</td><td class="message">{escape(j.message)}</td></tr>'
        for j in jobs) or '<tr><td colspan="4">no upload yet</td></tr>'
    dl = "".join(
        f'<tr><td>{escape(name)}</td><td><a href="/admin/books/{quote(name)}/recalculated">recalculated</a></td>'
        f'<td><a href="/admin/books/{quote(name)}/values">members\' copy (values only)</a></td></tr>'
        for name in books) or '<tr><td colspan="3">none yet</td></tr>'
    return page(f"{club}: uploads", f"""{err}<p>The club's results site: <a href="/clubs/{quote(club)}/">/clubs/{escape(club)}/</a>
(public).</p>
<h2>Upload a session</h2>
<form method="post" action="/admin/upload" enctype="multipart/form-data">
<input type="hidden" name="csrf" value="{escape(csrf, quote=True)}">
<label>Workbook (.xlsx, .xlsm), PBN (.pbn) or USEBIO (.xml) file, at most {limit:,} bytes
<input type="file" name="file" required accept=".xlsx,.xlsm,.pbn,.xml"></label>
<button type="submit">Upload</button>
</form>
<h2>Books</h2>
<table><thead><tr><th>book</th><th colspan="2">download</th></tr></thead><tbody>{dl}</tbody></table>
<h2>Latest uploads</h2>
<table><thead><tr><th>job</th><th>file</th><th>state</th><th>message</th></tr></thead><tbody>{rows}</tbody></table>
""", signed_in=f"{login} ({club})", csrf=csrf)


def job_page(job: Job, login: str, csrf: str) -> str:
    """One job: its state and message (the page reloads itself until the job ends)."""
    ended = job.state in ("done", "failed")
    links = ""
    if job.state == "done":
        links = (f'<p><a href="/clubs/{quote(job.club)}/">the club\'s site</a> &middot; '
                 f'<a href="/admin/books/{quote(job.book)}/recalculated">recalculated book</a> &middot; '
                 f'<a href="/admin/books/{quote(job.book)}/values">members\' copy</a></p>')
    return page(f"Upload {job.id}: {job.upload}", f"""<p>State: <strong class="{escape(job.state)}" id="state">{escape(job.state)}</strong>
{"" if ended else "(this page reloads itself)"}</p>
<p class="message" id="message">{escape(job.message)}</p>
<p>Uploaded {escape(_when(job.created))}{", ended " + escape(_when(job.finished)) if ended else ""}.</p>
{links}""", refresh=None if ended else 2, signed_in=f"{login} ({job.club})", csrf=csrf)


def message_page(title: str, text: str) -> str:
    """A short page saying one thing (an error)."""
    return page(title, f"<p>{escape(text)}</p>")
