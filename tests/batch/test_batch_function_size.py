"""The batch layer's functions stay readable (issue 39): none with more than 8 parameters, none longer
than 150 lines, measured over the source (ast; a nested function counts in its enclosing function's
length too, as expat's handlers, closures over a reading's state, count in the function making them).
"""

from __future__ import annotations

import ast
from pathlib import Path

BATCH = Path(__file__).resolve().parents[2] / "xlbridge" / "batch"
MAX_LINES, MAX_PARAMETERS = 150, 8

def _functions():
    for path in sorted(BATCH.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield path.relative_to(BATCH).as_posix(), node


def _parameters(node) -> int:
    a = node.args
    names = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    count = len(names) + (a.vararg is not None) + (a.kwarg is not None)
    return count - (bool(names) and names[0].arg in ("self", "cls"))


def test_no_function_takes_more_than_eight_parameters():
    assert [(m, n.name, _parameters(n)) for m, n in _functions() if _parameters(n) > MAX_PARAMETERS] == []


def test_no_function_is_longer_than_150_lines():
    long = {(m, n.name): n.end_lineno - n.lineno + 1 for m, n in _functions() if n.end_lineno - n.lineno + 1 > MAX_LINES}
    assert long == {}


def test_the_measure_counts_what_it_says():
    fn = ast.parse("def f(self, a, b=1, *c, d, **e):\n" + "    x = 1\n" * 200).body[0]
    assert _parameters(fn) == 5 and fn.end_lineno - fn.lineno + 1 == 201
