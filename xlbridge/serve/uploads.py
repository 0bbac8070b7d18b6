"""An upload read as it streams: one multipart file field written to disk, its size checked on the way.

:func:`receive` reads the request body chunk by chunk through python-multipart's streaming parser
(never the whole body in memory), writes the part named ``file`` to a new file in the data folder's
``tmp/`` and stops with :class:`TooLarge` (413) as soon as the body passes the limit (a declared
``Content-Length`` above it is refused before a byte is read); a refused upload leaves nothing. The
other fields (the form's CSRF token) are kept in memory up to 4 KiB each. Nothing here looks inside
the file: the job's steps do, through the guard.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

__all__ = ["Received", "TooLarge", "BadUpload", "receive"]

_FIELD_LIMIT = 4096
#: room for the multipart framing and the small fields around the file
OVERHEAD = 64 * 1024


class TooLarge(ValueError):
    """The body passed the size limit (413)."""


class BadUpload(ValueError):
    """Not a multipart form with one file field named ``file`` (400)."""


@dataclasses.dataclass
class Received:
    """A file received whole: where it is (the caller moves or removes it), its name, the form's fields."""

    path: Path
    filename: str
    size: int
    fields: dict[str, str]


async def receive(stream: AsyncIterator[bytes], content_type: str, content_length: str | None,
                  limit: int, tmp_dir: Path) -> Received:
    """Read a multipart body from ``stream`` into ``tmp_dir`` (see the module's text)."""
    from python_multipart.multipart import MultipartParser, parse_options_header

    kind, params = parse_options_header(content_type or "")
    boundary = params.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary or len(boundary) > 200:
        raise BadUpload("send the file as multipart/form-data, in a field named 'file'")
    if content_length is not None:
        try:
            declared = int(content_length)
        except ValueError:
            raise BadUpload("a bad Content-Length") from None
        if declared > limit + OVERHEAD:
            raise TooLarge(f"the upload is larger than the limit of {limit:,} bytes")
    fd, name = tempfile.mkstemp(prefix="upload-", dir=tmp_dir)
    path = Path(name)
    out = os.fdopen(fd, "wb")
    state: dict[str, Any] = {"headers": {}, "field": b"", "value": b"", "name": None, "filename": None, "size": 0,
                   "files": 0}
    fields: dict[str, str] = {}

    def on_part_begin() -> None:
        state["headers"], state["name"], state["filename"], state["value"] = {}, None, None, b""

    def on_header_field(data: bytes, start: int, end: int) -> None:
        state["field"] += data[start:end]

    def on_header_value(data: bytes, start: int, end: int) -> None:
        state["headers"][state["field"].lower()] = state["headers"].get(state["field"].lower(), b"") + data[start:end]

    def on_header_end() -> None:
        state["field"] = b""

    def on_headers_finished() -> None:
        disp, opts = parse_options_header(state["headers"].get(b"content-disposition", b""))
        state["name"] = opts.get(b"name", b"").decode("utf-8", "replace")
        fn = opts.get(b"filename")
        state["filename"] = None if fn is None else fn.decode("utf-8", "replace")
        if state["name"] == "file":
            state["files"] += 1
            if state["files"] > 1:
                raise BadUpload("send one file at a time")

    def on_part_data(data: bytes, start: int, end: int) -> None:
        if state["name"] == "file":
            state["size"] += end - start
            if state["size"] > limit:
                raise TooLarge(f"the upload is larger than the limit of {limit:,} bytes")
            out.write(data[start:end])
        else:
            state["value"] += data[start:end]
            if len(state["value"]) > _FIELD_LIMIT:
                raise BadUpload("a form field is too long")

    def on_part_end() -> None:
        if state["name"] == "file":
            fields["\0filename"] = state["filename"] or ""
        elif state["name"]:
            fields[state["name"]] = state["value"].decode("utf-8", "replace")

    callbacks = {"on_part_begin": on_part_begin, "on_header_field": on_header_field,
                 "on_header_value": on_header_value, "on_header_end": on_header_end,
                 "on_headers_finished": on_headers_finished, "on_part_data": on_part_data,
                 "on_part_end": on_part_end}
    parser = MultipartParser(boundary, callbacks)  # type: ignore[arg-type]
    total = 0
    try:
        try:
            async for chunk in stream:
                total += len(chunk)
                if total > limit + OVERHEAD:
                    raise TooLarge(f"the upload is larger than the limit of {limit:,} bytes")
                parser.write(chunk)
            parser.finalize()
        except (TooLarge, BadUpload):
            raise
        except Exception as exc:  # the multipart parser's own errors: a damaged form
            raise BadUpload(f"a damaged multipart form ({type(exc).__name__})") from None
        finally:
            out.close()
        if "\0filename" not in fields:
            raise BadUpload("no file: send it in a field named 'file'")
    except BaseException:
        with contextlib.suppress(OSError):
            path.unlink()
        raise
    filename = fields.pop("\0filename")
    return Received(path=path, filename=filename, size=state["size"], fields=fields)
