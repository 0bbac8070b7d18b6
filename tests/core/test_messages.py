"""Core messages name things in plain words, never a Python parameter (issue 13 follow-up).

An Excel user reads these messages in a cell, so ``"history_cap must not be negative"`` or
``"smoothing must be one of ..."`` says nothing to them. Two checks:

- a scan of the core's source (ast): the text of every message - the strings inside a
  ``raise``, and the strings passed to a core function's message argument (``what``, ``names``,
  ``where``) - may not contain a parameter name of a core function that has an underscore
  (``history_cap``, ``max_adjustment``, ``ns_pairs``: never English words);
- the messages the review found, produced by the calls that gave them, in their new wording
  (the ones whose parameter is also an English word, ``best`` and ``smoothing``, which no scan
  can tell from prose).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from xlbridge.core.errors import InputError
from xlbridge.core.instant.chart import instant_chart
from xlbridge.core.ranking import competition_ranking
from xlbridge.core.ratings.ledger import lehman_ledger_arrays
from xlbridge.core.ratings.lehman import lehman_update

CORE = Path(__file__).resolve().parents[2] / "xlbridge" / "core"
TREES = {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(CORE.rglob("*.py"))}
#: The parameters through which a core function takes the words of its message.
MESSAGE_PARAMETERS = ("what", "names", "where")


def _functions():
    for tree in TREES.values():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield node


def _parameter_names():
    names = set()
    for fn in _functions():
        for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs:
            if "_" in a.arg.strip("_"):
                names.add(a.arg)
    return names


def _message_positions():
    """{function name: (positional indexes, keyword names)} of the message arguments."""
    out = {}
    for fn in _functions():
        positional = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        if positional and positional[0] in ("self", "cls"):
            positional = positional[1:]
        idx = {i for i, a in enumerate(positional) if a in MESSAGE_PARAMETERS}
        kw = {a.arg for a in fn.args.args + fn.args.kwonlyargs if a.arg in MESSAGE_PARAMETERS}
        if idx or kw:
            prev = out.get(fn.name, (set(), set()))
            out[fn.name] = (prev[0] | idx, prev[1] | kw)
    return out


def _strings(node):
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            yield n


def messages():
    """(file, line, text) of every message string of the core."""
    positions = _message_positions()
    for path, tree in TREES.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and node.exc is not None:
                for s in _strings(node.exc):
                    yield path.relative_to(CORE.parent), s.lineno, s.value
            elif isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
                if name not in positions:
                    continue
                idx, kw = positions[name]
                args = [a for i, a in enumerate(node.args) if i in idx] + [k.value for k in node.keywords if k.arg in kw]
                for a in args:
                    for s in _strings(a):
                        yield path.relative_to(CORE.parent), s.lineno, s.value


def test_the_scan_reads_messages_and_parameters():
    params = _parameter_names()
    assert {"history_cap", "max_adjustment", "ns_pairs", "check_legal"} <= params
    texts = [t for _, _, t in messages()]
    assert len(texts) > 200
    # both kinds of message: raised text, and the words given to a reader (``whole(x, "frequency")``)
    assert any(t.startswith("no historical results") for t in texts) and "frequency" in texts


def test_no_core_message_names_a_python_parameter():
    params = _parameter_names()
    found = []
    for path, line, text in messages():
        hit = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)) & params
        if hit:
            found.append(f"{path}:{line}: {sorted(hit)} in {text!r}")
    assert found == []


def test_the_scan_would_catch_a_parameter_name():
    tree = ast.parse('def f(history_cap):\n    raise InputError(f"history_cap must not be negative, got {history_cap}")\n')
    raised = [s.value for n in ast.walk(tree) if isinstance(n, ast.Raise) for s in _strings(n.exc)]
    assert set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", raised[0])) & _parameter_names() == {"history_cap"}


@pytest.mark.parametrize("call, text", [
    (lambda: competition_ranking([1, 2], best="middle"),
     "unknown ranking order (which value is best) 'middle' (expected one of highest, lowest)"),
    (lambda: instant_chart([420], [1], "None", smoothing="gentle"),
     "unknown smoothing rule 'gentle' (expected one of strict, none)"),
    (lambda: lehman_update(50, 10, 450, 10, history_cap=-1), "history cap must not be negative, got -1"),
    (lambda: lehman_ledger_arrays([1], ["n"], ["s"], ["e"], ["w"], [50], history_cap=-1),
     "history cap must not be negative, got -1"),
    (lambda: instant_chart([420], [1], "None", adjustments={420: 1}, max_adjustment=-1),
     "largest adjustment must be 0 or more, got -1"),
    (lambda: lehman_update(50, 10, 450, 10, decay_order="later"),
     "unknown decay order 'later' (expected one of after, before)"),
])
def test_the_reviewed_messages_use_plain_words(call, text):
    with pytest.raises(InputError) as e:
        call()
    assert str(e.value) == text
