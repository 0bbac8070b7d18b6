"""The ASGI application of ``xlbridge serve`` (Starlette, run by uvicorn).

Routes (docs/server.md):

===========================================  ==================================================================
``POST /api/clubs/<club>/uploads``           a file (multipart field ``file``, ``Authorization: Bearer <token>``)
                                             -> 202 ``{"job": ID}``; 401 without a token, 403 another club's,
                                             413 past the size limit, 503 with ``Retry-After`` when the queue is full
``GET /api/jobs/<id>``                       ``{"state": queued|running|done|failed, "message": "..."}``
``GET /api/clubs/<club>/books/<name>/<kind>`` the recalculated book (``recalculated``) or the members' copy (``values``)
``GET /clubs/<club>/...``                    the club's season site (public)
``GET /login``, ``/admin``, ...              the scorers' pages (:mod:`xlbridge.serve.pages`)
``/xlwings/...``, ``/manifest``              the Excel functions for Office.js (:mod:`xlbridge.serve.officejs`)
===========================================  ==================================================================

Every response carries the OWASP headers (:data:`SECURITY_HEADERS`): a Content-Security-Policy with no
inline script (``default-src 'self'``, ``frame-ancestors 'none'``; the add-in's task pane alone may
load Office.js from Microsoft and be framed by Excel on the web), ``X-Content-Type-Options: nosniff``,
``X-Frame-Options``, ``Referrer-Policy``, the cross-origin policies, and ``Strict-Transport-Security``
over HTTPS.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import mimetypes
import os
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from . import accounts, officejs, pages
from .accounts import Principal
from .defaults import MAX_UPLOAD
from .jobs import JobLimits, JobStore, LocalQueue, QueueFull, UploadRefused, members_copy, upload_names
from .storage import Storage, valid_club
from .uploads import BadUpload, TooLarge, receive

__all__ = ["ServeSettings", "create_app", "SECURITY_HEADERS", "csp_for", "DEFAULT_MAX_UPLOAD"]

#: the largest upload (bytes): the guard's limit for PBN and USEBIO files, and room for a season's workbook
DEFAULT_MAX_UPLOAD = MAX_UPLOAD  # (serve.defaults: the server's defaults, said once there)
SESSION_COOKIE = "xlbridge_session"
PRE_COOKIE = "xlbridge_signin"
RETRY_AFTER = 30

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "X-Permitted-Cross-Domain-Policies": "none",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
}
_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
_CSP_OFFICE = (f"default-src 'self'; script-src 'self' {officejs.OFFICE_JS.rsplit('/lib/', 1)[0]}; "
               "style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
               f"form-action 'self'; frame-ancestors 'self' {officejs.OFFICE_FRAME_ANCESTORS}")
_OFFICE_PATHS = ("/taskpane.html", "/xlwings/")


def csp_for(path: str) -> str:
    """The Content-Security-Policy of a path: strict everywhere, Office.js allowed on the add-in's pages.

    >>> "unsafe-inline" in csp_for("/admin") or "unsafe-inline" in csp_for("/taskpane.html")
    False
    >>> csp_for("/admin").endswith("frame-ancestors 'none'")
    True
    """
    return _CSP_OFFICE if path.startswith(_OFFICE_PATHS) else _CSP


@dataclasses.dataclass(frozen=True)
class ServeSettings:
    """The server's data folder, upload limit and job limits."""

    data: str
    max_upload: int = DEFAULT_MAX_UPLOAD
    limits: JobLimits = JobLimits()


class _Headers:
    """ASGI middleware: the security headers on every response."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        https = scope.get("scheme") == "https"

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                extra = dict(SECURITY_HEADERS)
                extra["Content-Security-Policy"] = csp_for(path)
                if path.startswith(_OFFICE_PATHS):
                    extra.pop("X-Frame-Options")  # framed by Excel on the web (frame-ancestors says by whom)
                    extra["Cross-Origin-Resource-Policy"] = "cross-origin"
                    extra.pop("Cross-Origin-Opener-Policy")
                if https:
                    extra["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains"
                if not path.startswith(("/clubs/", "/static/")):
                    extra.setdefault("Cache-Control", "no-store")
                for k, v in extra.items():
                    if k.lower().encode() not in present:
                        headers.append((k.lower().encode(), v.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(settings: ServeSettings) -> Any:
    """The Starlette application serving ``settings.data``."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
    from starlette.routing import Route

    store = Storage(settings.data)
    jobs = JobStore(store)
    queue = LocalQueue(store, settings.limits)

    # ------------------------------------------------------------------ helpers
    def error(status: int, text: str, **headers: str) -> JSONResponse:
        return JSONResponse({"error": text}, status_code=status, headers=headers)

    def bearer(request: Request) -> Principal | None:
        auth = request.headers.get("authorization", "")
        scheme, _, token = auth.partition(" ")
        if scheme.lower() != "bearer":
            return None
        return accounts.principal_for_token(store, token.strip())

    def signed_in(request: Request) -> Principal | None:
        return accounts.session(store, request.cookies.get(SESSION_COOKIE))

    def secure(request: Request) -> bool:
        return request.url.scheme == "https"

    async def take_upload(request: Request, club: str, csrf: str | None = None) -> int:
        """Receive the file, check the form's CSRF token when given, queue the job; raise _Refusal."""
        if queue.full():
            raise _Refusal(503, "the server is busy: too many uploads wait; try again later",
                           {"Retry-After": str(RETRY_AFTER)})
        try:
            got = await receive(request.stream(), request.headers.get("content-type", ""),
                                request.headers.get("content-length"), settings.max_upload, store.tmp_dir())
        except TooLarge as exc:
            raise _Refusal(413, str(exc)) from None
        except BadUpload as exc:
            raise _Refusal(400, str(exc)) from None
        try:
            if csrf is not None and not accounts.check_csrf(csrf, got.fields.get("csrf")):
                raise _Refusal(403, "the form has expired: reload the page and upload again")
            try:
                upload, book = upload_names(got.filename)
            except UploadRefused as exc:
                raise _Refusal(400, str(exc)) from None
            try:
                return queue.submit(club, upload, book, got.path)
            except QueueFull:
                raise _Refusal(503, "the server is busy: too many uploads wait; try again later",
                               {"Retry-After": str(RETRY_AFTER)}) from None
        finally:
            with contextlib.suppress(OSError):
                got.path.unlink()

    async def book_file(club: str, name: str, kind: str) -> tuple[Path | None, str]:
        job = jobs.downloads(club).get(name)
        if job is None or kind not in ("recalculated", "values"):
            return None, "no such book"
        if kind == "values":  # the members' copy: made on first asking
            return await members_copy(store, club, name, job, settings.limits)
        stem, suffix = os.path.splitext(name)
        path = store.job_dir(club, job) / f"{stem}-{kind}{suffix}"
        return (path, "") if path.is_file() else (None, "no such book")

    async def download(club: str, name: str, kind: str) -> Response:
        path, why = await book_file(club, name, kind)
        if path is None:
            return error(404 if why == "no such book" else 409, why)
        return FileResponse(path, filename=path.name,
                            media_type="application/vnd.ms-excel.sheet.macroEnabled.12" if path.suffix == ".xlsm"
                            else "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")

    # ------------------------------------------------------------------ the JSON API
    async def api_upload(request: Request) -> Response:
        club = request.path_params["club"]
        who = bearer(request)
        if who is None:
            return error(401, "an API token is needed: Authorization: Bearer <token>",
                         **{"WWW-Authenticate": "Bearer"})
        if not valid_club(club) or who.club != club:
            return error(403, "this token is not the club's")
        try:
            job = await take_upload(request, club)
        except _Refusal as r:
            return error(r.status, r.text, **r.headers)
        return JSONResponse({"job": job}, status_code=202, headers={"Location": f"/api/jobs/{job}"})

    async def api_job(request: Request) -> Response:
        who = bearer(request) or signed_in(request)
        if who is None:
            return error(401, "an API token is needed: Authorization: Bearer <token>",
                         **{"WWW-Authenticate": "Bearer"})
        job = jobs.get(request.path_params["id"])
        if job is None:
            return error(404, "no such job")
        if job.club != who.club:
            return error(403, "this job is another club's")
        return JSONResponse(job.public())

    async def api_book(request: Request) -> Response:
        club = request.path_params["club"]
        who = bearer(request) or signed_in(request)
        if who is None:
            return error(401, "an API token is needed", **{"WWW-Authenticate": "Bearer"})
        if who.club != club:
            return error(403, "this token is not the club's")
        return await download(club, request.path_params["name"], request.path_params["kind"])

    # ------------------------------------------------------------------ pages
    async def index(request: Request) -> Response:
        with store.connect() as db:
            clubs = [r["name"] for r in db.execute("SELECT name FROM clubs ORDER BY name")]
        return HTMLResponse(pages.index_page(clubs))

    async def login_form(request: Request) -> Response:
        token = request.cookies.get(PRE_COOKIE) or secrets.token_urlsafe(24)
        resp = HTMLResponse(pages.login_page(token))
        resp.set_cookie(PRE_COOKIE, token, httponly=True, samesite="strict", secure=secure(request), path="/login")
        return resp

    async def login(request: Request) -> Response:
        form = await _small_form(request)
        pre = request.cookies.get(PRE_COOKIE)
        if not accounts.check_csrf(pre, form.get("csrf")):
            return HTMLResponse(pages.message_page("Sign in", "The form has expired: reload it and sign in again."),
                                status_code=403)
        login_name = form.get("login", "")[:64]
        club = accounts.check_password(store, login_name, form.get("password", "")[:1024])
        if club is None:
            return HTMLResponse(pages.login_page(pre or "", "Wrong login or password."))  # the form again
        cookie = accounts.start_session(store, login_name)
        done = RedirectResponse("/admin", status_code=303)
        done.set_cookie(SESSION_COOKIE, cookie, httponly=True, samesite="strict", secure=secure(request),
                        max_age=accounts.SESSION_SECONDS, path="/")
        done.delete_cookie(PRE_COOKIE, path="/login")
        return done

    async def logout(request: Request) -> Response:
        who = signed_in(request)
        form = await _small_form(request)
        if who is not None and accounts.check_csrf(who.csrf, form.get("csrf")):
            accounts.end_session(store, request.cookies.get(SESSION_COOKIE))
        resp = RedirectResponse("/", status_code=303)
        resp.delete_cookie(SESSION_COOKIE, path="/")
        return resp

    def admin_view(who: Principal, error_text: str | None = None, status: int = 200) -> Response:
        return HTMLResponse(pages.admin_page(who.club, who.login or "", who.csrf or "", jobs.of_club(who.club),
                                             jobs.downloads(who.club), settings.max_upload, error_text),
                            status_code=status)

    async def admin(request: Request) -> Response:
        who = signed_in(request)
        if who is None:
            return RedirectResponse("/login", status_code=303)
        return admin_view(who)

    async def admin_upload(request: Request) -> Response:
        who = signed_in(request)
        if who is None:
            return RedirectResponse("/login", status_code=303)
        try:
            job = await take_upload(request, who.club, csrf=who.csrf)
        except _Refusal as r:
            resp = admin_view(who, r.text, r.status)
            resp.headers.update(r.headers)
            return resp
        return RedirectResponse(f"/admin/jobs/{job}", status_code=303)

    async def admin_job(request: Request) -> Response:
        who = signed_in(request)
        if who is None:
            return RedirectResponse("/login", status_code=303)
        job = jobs.get(request.path_params["id"])
        if job is None or job.club != who.club:
            return HTMLResponse(pages.message_page("Not found", "No such upload of your club."), status_code=404)
        return HTMLResponse(pages.job_page(job, who.login or "", who.csrf or ""))

    async def admin_book(request: Request) -> Response:
        who = signed_in(request)
        if who is None:
            return RedirectResponse("/login", status_code=303)
        return await download(who.club, request.path_params["name"], request.path_params["kind"])

    async def site(request: Request) -> Response:
        club = request.path_params["club"]
        rest = request.path_params.get("path", "")
        if not valid_club(club):
            return HTMLResponse(pages.message_page("Not found", "No such club."), status_code=404)
        parts = [p for p in rest.split("/") if p]
        if any(p.startswith(".") or "\\" in p or "\0" in p for p in parts):
            return HTMLResponse(pages.message_page("Not found", "No such page."), status_code=404)
        root = os.path.realpath(store.site_link(club))  # the link is followed at each request: one whole site
        if not os.path.isdir(root):
            return HTMLResponse(pages.message_page(f"{club}", "No results are published yet."), status_code=404)
        target = os.path.join(root, *parts) if parts else root
        if os.path.isdir(target):
            if rest and not rest.endswith("/"):
                return RedirectResponse(f"/clubs/{club}/{rest}/", status_code=301)
            target = os.path.join(target, "index.html")
        real = os.path.realpath(target)
        if os.path.commonpath([real, root]) != root or not os.path.isfile(real):
            return HTMLResponse(pages.message_page("Not found", "No such page."), status_code=404)
        kind = mimetypes.guess_type(real)[0] or "application/octet-stream"
        if kind.startswith("text/"):
            kind += "; charset=utf-8"
        try:  # read now: a publish switching the site next removes the old folder (pages are small)
            with open(real, "rb") as fh:
                content = fh.read()
        except OSError:
            return HTMLResponse(pages.message_page("Not found", "No such page."), status_code=404)
        return Response(content, media_type=kind, headers={"Cache-Control": "no-cache"})

    # ------------------------------------------------------------------ static files and the add-in
    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name == "serve.css":
            return Response(pages.CSS, media_type="text/css; charset=utf-8")
        sizes = {"icon-16.png": 16, "icon-32.png": 32, "icon-64.png": 64, "icon-80.png": 80}
        if name in sizes:
            return Response(officejs.icon_png(sizes[name]), media_type="image/png")
        return error(404, "no such file")

    async def fn_meta(request: Request) -> Response:
        try:
            return JSONResponse(officejs.meta())
        except RuntimeError as exc:
            return JSONResponse({"detail": str(exc)}, status_code=503)

    async def fn_code(request: Request) -> Response:
        try:
            return Response(officejs.code(), media_type="text/javascript; charset=utf-8")
        except RuntimeError as exc:
            return JSONResponse({"detail": str(exc)}, status_code=503)

    async def fn_call(request: Request) -> Response:
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > officejs.MAX_CALL_BYTES:
                return JSONResponse({"detail": "the call's arguments are too large"}, status_code=413)
        try:
            data = json.loads(bytes(body))
            return JSONResponse(await officejs.call(data))
        except officejs.UnknownFunction as exc:
            return JSONResponse({"detail": str(exc)}, status_code=404)
        except RecursionError:  # arrays nested past any range's two levels
            return JSONResponse({"detail": "not a custom function call: nested too deeply"}, status_code=400)
        except ValueError as exc:  # not JSON, not a call
            return JSONResponse({"detail": f"not a custom function call: {str(exc)[:200]}"}, status_code=400)
        except RuntimeError as exc:
            return JSONResponse({"detail": str(exc)}, status_code=503)
        except Exception as exc:  # arguments no range holds (objects, ...): xlwings' conversion refused them
            return JSONResponse({"detail": f"not a custom function call ({type(exc).__name__})"}, status_code=400)

    async def fn_manifest(request: Request) -> Response:
        base = str(request.base_url).rstrip("/")
        if request.headers.get("x-forwarded-proto") == "https" and base.startswith("http://"):
            base = "https://" + base[len("http://"):]
        return Response(officejs.manifest(base), media_type="text/xml; charset=utf-8")

    async def taskpane(request: Request) -> Response:
        return HTMLResponse(officejs.taskpane_html())

    async def health(request: Request) -> Response:
        return JSONResponse({"ok": True, "queued": jobs.waiting()})

    routes = [
        Route("/", index),
        Route("/healthz", health),
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/admin", admin),
        Route("/admin/upload", admin_upload, methods=["POST"]),
        Route("/admin/jobs/{id:int}", admin_job),
        Route("/admin/books/{name}/{kind}", admin_book),
        Route("/api/clubs/{club}/uploads", api_upload, methods=["POST"]),
        Route("/api/jobs/{id:int}", api_job),
        Route("/api/clubs/{club}/books/{name}/{kind}", api_book),
        Route("/clubs/{club}", lambda r: RedirectResponse(f"/clubs/{r.path_params['club']}/", status_code=301)),
        Route("/clubs/{club}/", site),
        Route("/clubs/{club}/{path:path}", site),
        Route("/static/{name}", static),
        Route("/favicon.ico", lambda r: Response(officejs.icon_png(32), media_type="image/png")),
        Route("/xlwings/custom-functions-meta", fn_meta),
        Route("/xlwings/custom-functions-meta.json", fn_meta),
        Route("/xlwings/custom-functions-code", fn_code),
        Route("/xlwings/custom-functions-code.js", fn_code),
        Route("/xlwings/custom-functions-call", fn_call, methods=["POST"]),
        Route("/manifest", fn_manifest),
        Route("/manifest.xml", fn_manifest),
        Route("/taskpane.html", taskpane),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        officejs.load()
        await queue.start()
        try:
            yield
        finally:
            await queue.stop()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.store = store
    app.state.queue = queue
    return _Headers(app)


class _Refusal(Exception):
    def __init__(self, status: int, text: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(text)
        self.status, self.text, self.headers = status, text, headers or {}


async def _small_form(request: Any) -> dict[str, str]:
    """A url-encoded form of at most 8 KiB (sign in, sign out)."""
    from urllib.parse import parse_qs

    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > 8192:
            return {}
    fields = parse_qs(bytes(body).decode("utf-8", "replace"), keep_blank_values=True)
    return {k: v[0] for k, v in fields.items() if v}
