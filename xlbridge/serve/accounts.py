"""Clubs, their scorers, API tokens and sign-in sessions.

- A **club** is made with ``xlbridge serve --data DIR --add-club NAME``, which prints its first API
  token (:func:`add_club`); a script sends it as ``Authorization: Bearer <token>``.
- A **scorer** signs in on the web page with a login and password (:func:`add_scorer`; the password
  hashed with Argon2id, argon2-cffi's defaults, RFC 9106); a session cookie (random, 256 bits; only
  its SHA-256 is stored) lasts :data:`SESSION_SECONDS`, and each session has its own CSRF token that
  every form sends back (:func:`check_csrf`, a constant-time comparison).
- Tokens and cookies are stored as SHA-256 digests: a copy of the database gives no usable token.
- A scorer and a token reach one club: :class:`Principal` carries it, and every route compares it with
  the club in the URL.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     store = Storage(d)
...     token = add_club(store, "hearts")
...     token.startswith("xlb_"), principal_for_token(store, token).club, principal_for_token(store, "xlb_x")
(True, 'hearts', None)
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import secrets
import sqlite3
from typing import Any

from .storage import Storage, now, valid_club

__all__ = ["AccountError", "Principal", "add_club", "add_token", "add_scorer", "check_password",
           "principal_for_token", "start_session", "session", "end_session", "check_csrf", "digest",
           "SESSION_SECONDS", "MIN_PASSWORD", "valid_login"]

#: how long a sign-in lasts (seconds): one club evening and the scoring after it
SESSION_SECONDS = 12 * 3600
#: the shortest password accepted (NIST SP 800-63B: at least 8 characters)
MIN_PASSWORD = 10


class AccountError(ValueError):
    """A club or scorer that cannot be made (one line, shown to the operator)."""


@dataclasses.dataclass(frozen=True)
class Principal:
    """Who a request is: a scorer (``login``) or a club's API token (``login`` None), of ``club``."""

    club: str
    login: str | None = None
    csrf: str | None = None


def digest(secret: str) -> str:
    """The stored form of a token or cookie: its SHA-256, hex.

    >>> digest("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def _hasher() -> Any:  # argon2-cffi: the [serve] extra
    from argon2 import PasswordHasher

    return PasswordHasher()


def valid_login(login: str) -> bool:
    """A login: 1 to 64 letters, digits, ``.``, ``_``, ``-`` or ``@``.

    >>> valid_login("ann@hearts"), valid_login("ann smith")
    (True, False)
    """
    return isinstance(login, str) and 0 < len(login) <= 64 and all(c.isascii() and (c.isalnum() or c in "._-@")
                                                                    for c in login)


def add_token(store: Storage, club: str) -> str:
    """A new API token for ``club`` (returned once; only its digest is kept)."""
    token = "xlb_" + secrets.token_urlsafe(32)
    with store.connect() as db:
        db.execute("INSERT INTO tokens (digest, club, created) VALUES (?, ?, ?)", (digest(token), club, now()))
    return token


def add_club(store: Storage, name: str) -> str:
    """Make the club ``name`` and return its first API token."""
    if not valid_club(name):
        raise AccountError(f"a club's name is 1 to 40 lower-case letters, digits or hyphens, not {name[:60]!r}")
    try:
        with store.connect() as db:
            db.execute("INSERT INTO clubs (name, created) VALUES (?, ?)", (name, now()))
    except sqlite3.IntegrityError:
        raise AccountError(f"the club {name!r} exists already") from None
    store.club_dir(name).mkdir(parents=True, exist_ok=True)
    return add_token(store, name)


def add_scorer(store: Storage, club: str, login: str, password: str) -> None:
    """Make the scorer ``login`` of ``club`` with ``password`` (hashed with Argon2id)."""
    if not valid_login(login):
        raise AccountError(f"a login is 1 to 64 letters, digits, '.', '_', '-' or '@', not {login[:60]!r}")
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"the password must have at least {MIN_PASSWORD} characters")
    hashed = _hasher().hash(password)
    try:
        with store.connect() as db:
            if db.execute("SELECT 1 FROM clubs WHERE name = ?", (club,)).fetchone() is None:
                raise AccountError(f"no club {club[:60]!r}: make it first with --add-club")
            db.execute("INSERT INTO scorers (login, club, password_hash, created) VALUES (?, ?, ?, ?)",
                       (login, club, hashed, now()))
    except sqlite3.IntegrityError:
        raise AccountError(f"the scorer {login!r} exists already") from None


#: a hash checked when the login is unknown, so that both answers take the same time
_DUMMY: list[str] = []


def check_password(store: Storage, login: str, password: str) -> str | None:
    """The scorer's club when ``password`` is theirs, else None (the same work for an unknown login)."""
    from argon2.exceptions import InvalidHashError, VerificationError

    with store.connect() as db:
        row = db.execute("SELECT club, password_hash FROM scorers WHERE login = ?", (login,)).fetchone()
    hasher = _hasher()
    if row is None:
        if not _DUMMY:
            _DUMMY.append(hasher.hash(secrets.token_urlsafe(16)))
        hashed, club = _DUMMY[0], None
    else:
        hashed, club = row["password_hash"], row["club"]
    try:
        hasher.verify(hashed, password)
    except (VerificationError, InvalidHashError):
        return None
    return club


def principal_for_token(store: Storage, token: str) -> Principal | None:
    """The club of an API token, or None."""
    if not token or len(token) > 200:
        return None
    with store.connect() as db:
        row = db.execute("SELECT club FROM tokens WHERE digest = ?", (digest(token),)).fetchone()
    return None if row is None else Principal(club=row["club"])


def start_session(store: Storage, login: str) -> str:
    """A new session for ``login``: returns the cookie's value."""
    cookie = secrets.token_urlsafe(32)
    with store.connect() as db:
        db.execute("DELETE FROM sessions WHERE expires < ?", (now(),))
        db.execute("INSERT INTO sessions (digest, login, csrf, expires) VALUES (?, ?, ?, ?)",
                   (digest(cookie), login, secrets.token_urlsafe(32), now() + SESSION_SECONDS))
    return cookie


def session(store: Storage, cookie: str | None) -> Principal | None:
    """The signed-in scorer of a session cookie (with the session's CSRF token), or None."""
    if not cookie or len(cookie) > 200:
        return None
    with store.connect() as db:
        row = db.execute("SELECT s.login, s.csrf, s.expires, c.club FROM sessions s JOIN scorers c ON c.login = s.login "
                         "WHERE s.digest = ?", (digest(cookie),)).fetchone()
    if row is None or row["expires"] < now():
        return None
    return Principal(club=row["club"], login=row["login"], csrf=row["csrf"])


def end_session(store: Storage, cookie: str | None) -> None:
    """Sign out: the session is forgotten."""
    if cookie:
        with store.connect() as db:
            db.execute("DELETE FROM sessions WHERE digest = ?", (digest(cookie),))


def check_csrf(expected: str | None, given: str | None) -> bool:
    """Whether a form's CSRF token is the session's (constant time).

    >>> check_csrf("abc", "abc"), check_csrf("abc", "abd"), check_csrf(None, None)
    (True, False, False)
    """
    return bool(expected) and bool(given) and hmac.compare_digest(str(expected), str(given))
