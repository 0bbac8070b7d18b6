"""The sheet parts patched on two cores: the largest part in the engine's process, the others in a forked one.

At 10,000 traveller rows two parts take most of the patching
(:func:`~xlbridge.batch.write.xlsxpatch.patch_sheet_pieces`): the Travellers sheet in view (13.8 MB,
30,000 cells showing the hidden sheet's) and that hidden sheet (30,000 array cells): 0.16 and 0.14 s one
after the other, on one core, while the other core waited. Now a process forked from the engine's patches
every part but the largest (:func:`sheets_apart`) while the engine's process patches the largest; what it
sends back is the patched parts' bytes. The same function patches
them, from the same bytes, layouts and values, so the parts are the same bytes either way (compared in
tests/batch/test_patch_apart.py); the engine's process checks the output's size limit afterwards, in the
sheets' order, as it did one sheet after another.

Only when the book may use two cores (``halves``: :func:`xlbridge.batch.cores.book_cores`), the other parts
hold at least :data:`APART_FROM` results between them (a fork is not free) and at most :data:`APART_MAX`
bytes (sent back whole through a pipe and held by both processes meanwhile). The process is forked the
way the engine's reading forks its second half (:func:`xlbridge.batch.read.halves.fork_half`: the engine's
audit hook lets that fork through, and only that one), with the engine's file guard and address-space
limit; it dies with the engine's process and is killed and reaped when the patching ends. If it fails
(or sends less than it should), the engine's process patches those parts itself: a refusal is then made
in the words it always had.

In: the engine's copy's sheet parts (bytes), their layouts and values. Out: the patched parts' bytes.

>>> sheets_apart({"A": None, "B": None}, {"A": {}, "B": {(1, 1): 1}}, {"A": 10, "B": 5}, halves=True)
[]
"""

from __future__ import annotations

import functools
import marshal
import os
from typing import Any

from ..process import ForkedHalf, set_parent_death_signal
from ..read.halves import fork_half
from ..write.xlsxpatch import patch_sheet_pieces

__all__ = ["APART_FROM", "APART_MAX", "PatchApart", "sheets_apart", "start_apart"]

#: the other parts are patched apart when they hold at least this many results between them (a 1,000-row
#: season's hidden sheet, 3,000: patched here, where the fork and the hand-over would cost about what they save)
APART_FROM = 5_000
#: and when their bytes (as read, plus 64 a result: what the patch may add) are at most this many
APART_MAX = 64 << 20


def sheets_apart(layouts: dict, values: dict, sizes: dict, *, halves: bool) -> list:
    """The sheets (of ``layouts``, in their order) a forked process patches: every one but the first of the
    largest parts (``sizes``: sheet -> bytes of its part), under the conditions of the module docstring;
    [] when everything is patched here.

    >>> sheets_apart({"T": 0, "C": 0}, {"T": {}, "C": dict.fromkeys(range(6000))}, {"T": 9 << 20, "C": 1 << 20},
    ...              halves=True)
    ['C']
    >>> sheets_apart({"T": 0, "C": 0}, {"T": {}, "C": dict.fromkeys(range(6000))}, {"T": 9 << 20, "C": 1 << 20},
    ...              halves=False)
    []
    """
    if not halves or len(layouts) < 2 or not hasattr(os, "fork"):
        return []
    largest = max(layouts, key=lambda sheet: sizes[sheet])
    rest = [sheet for sheet in layouts if sheet != largest]
    results = sum(len(values.get(sheet, ())) for sheet in rest)
    if results < APART_FROM or sum(sizes[sheet] for sheet in rest) + 64 * results > APART_MAX:
        return []
    return rest


class PatchApart(ForkedHalf):
    """The forked process patching the parts :func:`sheets_apart` chose (:func:`start_apart`); :meth:`close`
    (also on leaving a ``with`` block) kills and reaps it, whatever happened."""

    def __init__(self, pid: int = 0, fd: int = -1, count: int = 0) -> None:
        super().__init__(pid, fd)
        self.count = count

    def receive(self) -> list | None:
        """The patched parts' bytes, in the order they were given; None if the process failed or sent less."""
        payload = self.read_answer()
        try:
            status, parts = marshal.loads(payload) if payload else (None, None)
        except (EOFError, ValueError, TypeError):
            return None
        if status != "ok" or not isinstance(parts, list) or len(parts) != self.count \
                or not all(type(part) is bytes for part in parts):
            return None
        return parts


def start_apart(parts: dict, layouts: dict, values: dict) -> PatchApart | None:
    """Fork the process patching ``parts`` ({sheet: its part's bytes, read before the fork: the two processes
    must not share the zip file's offset}) with their ``layouts`` and ``values``; None if it cannot be forked.
    The signals are held until the caller's ``with`` block lets them through (:meth:`PatchApart.release`)."""
    body = functools.partial(_apart_process, parts=parts, layouts=layouts, values=values)
    return PatchApart.start(body, fork=fork_half, count=len(parts))


def _apart_process(w: int, parent: int, *, parts: dict, layouts: dict, values: dict) -> None:  # pragma: no cover
    """(The forked process) patch each part and send the bytes, then leave (``os._exit``: nothing of the
    engine's process runs here, its files and handlers included)."""
    try:
        set_parent_death_signal(parent)
        got = [b"".join(patch_sheet_pieces(data, layouts[sheet], values.get(sheet, {})))
               for sheet, data in parts.items()]
        payload = memoryview(marshal.dumps(("ok", got)))
        del got
        while payload:
            payload = payload[os.write(w, payload):]
        os.close(w)
    except BaseException:  # (a failure: the engine's process patches these parts itself)
        os._exit(1)
    os._exit(0)
