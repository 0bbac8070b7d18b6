"""Type checkers and IDEs see the public API (issue 13 follow-up, review point 1).

Before, ``xlbridge/__init__.py`` filled its names at run time (``globals()``, ``sys.modules``) and
``xlbridge/udfs.py`` by ``globals().update``: mypy saw nothing (``xlbridge.neuberg`` was an error
or Any). Now the names are written out by ``python -m xlbridge.excel`` (tests/excel/test_functions.py
checks they are current).

The mypy run reuses the project's cache (.ci/run runs ``python -m mypy`` before the tests): under
a second when warm, about 15 s cold.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import uuid
from pathlib import Path

import xlbridge

ROOT = Path(__file__).resolve().parents[2]

USER_SCRIPT = '''\
import xlbridge
from xlbridge.core.pairs.neuberg import neuberg
from xlbridge.udfs import VP

reveal_type(neuberg)
reveal_type(xlbridge.imps(450))
reveal_type(xlbridge.neuberg)
reveal_type(xlbridge.vp)
reveal_type(VP)
'''


def test_mypy_sees_the_public_api_of_a_user_script(tmp_path):
    script = tmp_path / "user_script.py"
    # new text each run: mypy's cache would otherwise skip an unchanged script and print no reveal_type
    script.write_text(f"# run {uuid.uuid4()}\n{USER_SCRIPT}", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"MYPYPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "mypy", "--strict", str(script)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith(str(script))]
    assert [ln for ln in out.stdout.splitlines() if "error:" in ln] == [] and out.returncode == 0, out.stdout
    revealed = [ln.split("Revealed type is ", 1)[1].strip('"') for ln in lines if "Revealed type is" in ln]
    neuberg_type = "def (mp: object, expected: object, actual: object, scale: str =) -> fractions.Fraction"
    assert revealed[:4] == [neuberg_type, "int", neuberg_type,
                            "def (margin: object, boards: object, *, fraction: str =, scale: object =) -> fractions.Fraction"]
    assert revealed[4].startswith("def (")  # an Excel function: a callable, not Any
    assert all(t != "Any" for t in revealed)


def test_nothing_is_filled_in_at_run_time():
    for rel in ("xlbridge/__init__.py", "xlbridge/udfs.py"):
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        assert "globals" not in calls and "setattr" not in calls and "modules" not in attrs, rel
    # every public name is a plain import of the module that defines it
    tree = ast.parse((ROOT / "xlbridge" / "__init__.py").read_text(encoding="utf-8"))
    imported = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
    assert set(xlbridge.__all__) <= imported and {"imps", "vp"} <= imported
    assert xlbridge.neuberg is xlbridge.core.pairs.neuberg.neuberg and xlbridge.imps(450) == 10
