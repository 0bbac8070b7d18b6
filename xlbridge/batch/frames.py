"""Long runs of Python calls made with room on the interpreter's frame stack (CPython 3.11 and later).

In: a function and its arguments. Out: its result, the same as calling it directly. The difference
is the memory the calls below it use for their frames.

CPython keeps the frames of a thread's Python calls on a stack of chunks: 16 KiB each, one mapped
(``mmap``) when a call does not fit in the current chunk, and unmapped again at once when the return
empties it (``Python/pystate.c``: ``push_chunk`` and ``_PyThreadState_PopFrame``). A loop whose every
call crosses a chunk's end therefore maps, faults in and unmaps fresh pages on each call. The formula
engine makes such loops (one call chain per element of a 10,000-row range, half a million of them for
the teams workbook). Whether they cross a chunk's end depends only on how deep the stack already was
when the work began, so a change anywhere in the caller could make a recalculation four times slower.
Measured on the teams template in a test process where the loop crossed: 12 s instead of 3 s, almost all
of it in the kernel (1.18 million ``mmap`` and ``munmap`` of 16 KiB, 2.35 million page faults).

:func:`with_room` makes a function that calls the given one from a frame that declares a large value stack
(``co_stacksize``, :data:`ROOM_SLOTS` slots). The interpreter gives that frame a chunk of its own, of
2 MiB, and the calls below it use the rest of that chunk (about 1 MiB: thousands of frames) before
a new one is mapped. The slots are neither written nor read, so only the pages the calls below it
use are ever touched. Nested calls each get a chunk of their own (the frame does not fit in what an
outer one leaves). Interpreters without this stack (PyPy, or CPython before 3.11) just make a call
whose frame is larger.

>>> total = with_room(sum)
>>> total([1, 2, 3]), total.__name__
(6, 'sum')
>>> with_room(dict)(a=1)
{'a': 1}
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import ParamSpec, TypeVar

__all__ = ["with_room", "ROOM_SLOTS"]

T = TypeVar("T")
P = ParamSpec("P")

#: the value-stack slots (8 bytes each) of the frame :func:`with_room` calls from: more than half of
#: 2 MiB, so that its chunk is 2 MiB (CPython rounds a chunk up to a power of two of at least 16 KiB,
#: after adding 1,000 slots) and what it leaves, about 122,000 slots, holds no second such frame
ROOM_SLOTS = 140_000


def _call(fn: Callable[..., T], args: tuple, kwargs: dict) -> T:
    return fn(*args, **kwargs)


_roomy = types.FunctionType(_call.__code__.replace(co_stacksize=ROOM_SLOTS), {}, "_roomy")


def with_room(fn: Callable[P, T]) -> Callable[P, T]:
    """``fn`` (its name, text and signature), called with the frames of the calls it makes in a 2 MiB chunk
    of their own; usable as a decorator."""
    @functools.wraps(fn)
    def roomy(*args: P.args, **kwargs: P.kwargs) -> T:
        return _roomy(fn, args, kwargs)

    return roomy
