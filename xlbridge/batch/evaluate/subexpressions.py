"""A part of a formula written in several cells, computed once in a recalculation.

The formulas engine compiles each cell's formula into a graph of its own, so a part written in
several formulas is computed once in each. The pairs template's hidden sheets compute the Score
N-S three times (``SCORE_OR_TYPED(...)`` in the Score column, under ``WEIGHTED_MP`` and under
``PAIRS_STANDINGS``: the one reading of a book, issue 52), each over the same nine
``IF(ROW(Travellers!D4:D10204)-ROW(INDEX(...)),IF(D4:D10204="","",D4:D10204),"")`` columns of 10,200
values.

:class:`SharedSubexpressions` gives each such part one evaluation per run:

- a node is shared only when its expression (formulas' name for it: the function or operator with its
  arguments, every reference in full with its book and sheet) is written in at least two compiled
  formulas, and every function it calls is one of the engine's own or xlbridge's (``known``): a defined
  name called as a function (``=MYR(1)``, a ``LAMBDA`` that may hold ``RAND``; ``TIRAGE_DÉ(6)``) is never
  shared, nor a call given a ``LAMBDA`` as an input (``MAP(A1:A9,MYR)``); the rest run as before, without a
  wrapper;
- a call is answered from an earlier call of the same expression only when every input is the same
  value for certain (:func:`~xlbridge.batch.formulas_seam.same_value`: the same object, a reference to
  the same arrays, equal constants of one type, a zero of the same sign). An input that is the calling
  cell (``ROW()``, ``COLUMN()``, ``@``) is compared as any other, so it is never shared between cells;
  only ``ROW(ref)`` and ``COLUMN(ref)`` whose argument is a reference when called
  (:func:`~xlbridge.batch.formulas_seam.is_reference`; formulas reads the calling cell for a 0, an empty
  text or FALSE there) leave the calling cell out;
- an expression met with more than :data:`MOST_KEPT` different inputs and no repeat (``$A$1*ROW()`` down a
  column: formulas turns ``ROW()`` into each cell's own constant) is given up: its later calls run as
  before, so no call compares its inputs with more than that many answers;
- a volatile function (``RAND``, ``RANDBETWEEN``, ``RANDARRAY``) is never shared: each cell draws its own;
- an answer is dropped when the last formula writing its expression has asked for it (the extra
  memory is what is shared, and only while it is still to be used), and all of them when the run ends;
- a call that fails is not remembered: each formula meets the failure itself;
- what the part says while it is computed (a function's message, why a cell of its result is an error, rows cut
  from a result: ``notes``, set by the engine) is said again for each formula answered from it, at that
  formula's cell, so the report names the same cells as computing the part in every formula.

The values are those of computing every part in every cell: ``tests/batch/test_subexpressions.py`` compares the
five example templates (built with 100 rows) cell by cell both ways, and their messages on a book with mistaken
rows; the ten shipped workbooks recalculated both ways gave the same bytes (``cmp``, when this was written).

>>> shared = SharedSubexpressions()
>>> shared.known = frozenset({"DOUBLE"})
>>> calls = []
>>> def double(x):
...     calls.append(x)
...     return 2 * x
>>> first, second = shared.answer("DOUBLE(3)", double, (), 2), shared.answer("DOUBLE(3)", double, (), 2)
>>> first(3), second(3), len(calls)
(6, 6, 1)
"""

from __future__ import annotations

import collections
import contextlib
import re
from collections.abc import Callable, Iterator
from typing import Any

from ..formulas_seam import function_nodes, is_reference, same_value

__all__ = ["MOST_KEPT", "SharedSubexpressions", "VOLATILE"]

#: functions whose every call is its own value: never shared between cells
VOLATILE = frozenset({"RAND", "RANDBETWEEN", "RANDARRAY", "_XLFN.RANDARRAY"})
#: the most answers kept for one expression whose inputs have not repeated: past it the expression is given up
MOST_KEPT = 8
# ROW(ref) and COLUMN(ref): the calling cell is an input of theirs that a reference makes unused
_OF_REFERENCE = re.compile(r"^(?:ROW|COLUMN)\((?!\))")
# a function called in an expression as formulas writes it (upper case, its arguments after "("): any word, the
# letters of every language included (formulas reads a name as [A-Z_][\w.]*); a word inside a text or a sheet's
# name only makes a part unshared
_CALLED = re.compile(r"(?<![\w.])([\w.]+)\(")


class SharedSubexpressions:
    """The parts written in several formulas of one model, each computed once (see the module docstring).

    :meth:`add` each compiled cell, :meth:`install` before the model is calculated, :meth:`clear` after."""

    def __init__(self) -> None:
        #: (listen, say): ``listen()`` a context manager giving the list of the notes said in its block,
        #: ``say(notes)`` says them again (:func:`xlbridge.batch.evaluate.engine.notes_heard`, ``say_again``)
        self.notes: tuple[Callable[[], Any], Callable[[Any], None]] = (_listen_to_nothing, _say_nothing)
        #: the functions a shared part may call (upper case): the engine's own and xlbridge's (set by the engine;
        #: empty: nothing that calls a function is shared)
        self.known: frozenset[str] = frozenset()
        self._cells: list = []
        self._answers: dict[str, list] = {}  # expression -> [(inputs, value)] while formulas still to ask hold it
        self._left: dict[str, int] = {}  # expression -> how many formulas still to ask for it
        self._given_up: set[str] = set()  # expressions met with too many different inputs

    def add(self, cell: Any) -> None:
        """Note a compiled cell (formulas' ``Cell``) whose formula's parts may be shared."""
        self._cells.append(cell)

    def install(self) -> int:
        """Share the parts written in at least two of the cells added; how many nodes now share."""
        nodes = [node for cell in self._cells for node in function_nodes(cell)]
        self._cells = []
        counts = collections.Counter(node.text for node in nodes)
        shared = 0
        allowed = self.known - VOLATILE
        for node in nodes:
            if counts[node.text] < 2 or not allowed.issuperset(_CALLED.findall(node.text)):
                continue
            ignored = node.context if _OF_REFERENCE.match(node.text) else ()
            node.replace(self.answer(node.text, node.function, ignored, counts[node.text]))
            shared += 1
        return shared

    def answer(self, text: str, function: Callable[..., Any], ignored: tuple[int, ...], uses: int) -> Callable[..., Any]:
        """``function`` (the node computing ``text``, written in ``uses`` formulas) answered from an earlier
        call with the same inputs (``ignored``: positions of inputs left out of the comparison)."""
        self._left[text] = uses
        answers, left, given_up = self._answers, self._left, self._given_up

        def shared(*args: Any, **kwargs: Any) -> Any:
            if kwargs or text in given_up or any(map(callable, args)):  # (a LAMBDA as an input: MAP(A1:A9, MYR))
                return function(*args, **kwargs)
            if ignored and all(is_reference(a) for i, a in enumerate(args) if i not in ignored):
                key = tuple(a for i, a in enumerate(args) if i not in ignored)
            else:
                key = args
            held = answers.get(text)
            found = _NOTHING
            if held:
                for inputs, value, said in held:
                    if len(inputs) == len(key) and all(map(same_value, inputs, key)):
                        found = value
                        self.notes[1](said)
                        break
            if found is _NOTHING:
                if held and len(held) >= MOST_KEPT:  # (no repeat among as many inputs: given up)
                    given_up.add(text)
                    answers.pop(text, None)
                    return function(*args)
                with self.notes[0]() as said:
                    found = function(*args)
                answers.setdefault(text, []).append((key, found, tuple(said)))
            left[text] = still = left.get(text, 1) - 1
            if still <= 0:
                answers.pop(text, None)
            return found

        return shared

    def clear(self) -> None:
        """Drop every answer held (at the end of a run)."""
        self._answers.clear()
        self._left.clear()
        self._given_up.clear()
        self._cells = []


_NOTHING = object()


@contextlib.contextmanager
def _listen_to_nothing() -> Iterator[list]:
    yield []


def _say_nothing(notes: Any) -> None:
    return None
