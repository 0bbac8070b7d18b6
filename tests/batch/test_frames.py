"""Long runs of calls map no memory per call, whatever the caller's depth (xlbridge.batch.frames).

The kernel's count of this process's minor page faults (``getrusage``) is the independent witness: a
call that needs a fresh chunk of CPython's frame stack maps one and touches it (at least one fault),
and a return that empties it unmaps it, so the next call faults again. The probe walks its
loop through 600 stack depths, past several 16 KiB chunk ends; at each depth it makes 200 calls
of a function whose frame is 200 slots. Without room, at some depth each of those calls crosses a
chunk's end; with room, none does. Each probe runs in a thread of its own, whose frame stack starts
empty, so that what it sees is the function's doing and not the test runner's (whose depth differs
between pytest and pytest-xdist).
"""

from __future__ import annotations

import resource
import sys
import threading
import types

import openpyxl
import pytest

from xlbridge.batch.frames import with_room

CALLS = 200
DEPTHS = 600


def _faults() -> int:
    return resource.getrusage(getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)).ru_minflt


def in_a_new_thread(fn):
    """``fn()`` in a thread of its own (its frame stack starts empty); its result."""
    got = []
    thread = threading.Thread(target=lambda: got.append(fn()))
    thread.start()
    thread.join()
    assert len(got) == 1, "the probe failed in its thread"
    return got[0]


def _leaf_body() -> None:
    return None


_leaf = types.FunctionType(_leaf_body.__code__.replace(co_stacksize=200), {})  # a 200-slot frame


def _loop() -> int:
    before = _faults()
    for _ in range(CALLS):
        _leaf()
    return _faults() - before


def _at_depth(depth: int) -> int:
    return _at_depth(depth - 1) if depth else _loop()


def worst_depth() -> int:
    """The most page faults one depth's 200 calls made, over the 600 depths."""
    return max(_at_depth(d) for d in range(DEPTHS))


needs_chunks = pytest.mark.skipif(sys.implementation.name != "cpython" or sys.version_info < (3, 11),
                                  reason="CPython before 3.11 has no frame stack of chunks")


@needs_chunks
def test_without_room_some_depth_maps_a_chunk_on_every_call():
    # the probe's control: it does see the mapping it looks for
    assert in_a_new_thread(worst_depth) >= CALLS


def test_with_room_no_depth_maps_a_chunk_per_call():
    assert in_a_new_thread(with_room(worst_depth)) < CALLS // 10


def test_nested_calls_with_room_each_have_room():
    # a frame of ROOM_SLOTS does not fit in what an outer one leaves: it gets a chunk of its own (with 64,537
    # slots, the inner frame fitted in the outer's chunk and left the calls below it 8 KiB: this failed)
    assert in_a_new_thread(with_room(with_room(worst_depth))) < CALLS // 10


def test_the_engine_evaluates_with_room(tmp_path):
    """A worksheet function that the engine calls runs the probe: no depth maps a chunk per call, however deep
    the caller (here the test runner) was when the recalculation began."""
    from xlbridge.batch.evaluate.engine import evaluate_workbook
    from xlbridge.batch.guard.safety import check_workbook

    wb = openpyxl.Workbook()
    wb.active.title = "S"
    wb.active["A1"] = "=PROBE(1)"
    path = tmp_path / "probe.xlsx"
    wb.save(path)
    info = check_workbook(str(path))
    values, _, _ = in_a_new_thread(
        lambda: evaluate_workbook(str(path), info.sheets, functions={"PROBE": lambda x: worst_depth()}))
    assert isinstance(values["S"][(1, 1)], int)
    assert values["S"][(1, 1)] < CALLS // 10
