"""``xlbridge serve``: a club's server (the ``[serve]`` extra: Starlette, uvicorn, python-multipart, argon2-cffi).

One module per concept: :mod:`~xlbridge.serve.storage` (the data folder: SQLite and files),
:mod:`~xlbridge.serve.accounts` (clubs, scorers, tokens, sessions, CSRF), :mod:`~xlbridge.serve.uploads`
(a multipart upload streamed to disk under its size limit), :mod:`~xlbridge.serve.jobs` (the queue and
the steps: the ``xlbridge`` command in processes of their own), :mod:`~xlbridge.serve.officejs` (the
Excel functions for Office.js, as xlwings Server serves them), :mod:`~xlbridge.serve.pages` (the HTML
pages), :mod:`~xlbridge.serve.app` (the ASGI application and its headers) and
:mod:`~xlbridge.serve.command` (the command line). docs/server.md says how to run it.

Nothing else in xlbridge imports this package but the command line.
"""

from __future__ import annotations

__all__ = ["create_app", "ServeSettings"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from . import app

        return getattr(app, name)
    raise AttributeError(name)
