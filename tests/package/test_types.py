"""Types: the package ships py.typed, mypy is configured (strict for the core) and CI runs it.

The type check itself runs in .ci/run (``python -m mypy``, about 15 s cold: too slow for a test);
these checks keep that wiring in place.
"""

from __future__ import annotations

import inspect
import tomllib
from pathlib import Path

import pytest

import xlbridge

ROOT = Path(__file__).resolve().parents[2]


def test_py_typed_is_shipped():
    assert (ROOT / "xlbridge" / "py.typed").exists()
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in cfg["tool"]["setuptools"]["package-data"]["xlbridge"]
    assert any(req.startswith("mypy") for req in cfg["project"]["optional-dependencies"]["test"])


def test_mypy_is_configured_strict_for_the_core_and_run_by_ci():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert cfg["files"] == ["xlbridge"]
    core = [o for o in cfg["overrides"] if "xlbridge.core.*" in o["module"]]
    assert core and core[0]["strict"] is True
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m mypy ||" in ci and ci.index("python -m mypy") < ci.index("python -m pytest")


def test_every_public_function_is_annotated():
    missing = []
    for name in xlbridge.__all__:
        obj = getattr(xlbridge, name)
        if inspect.isfunction(obj):
            sig = inspect.signature(obj)
            if sig.return_annotation is inspect.Signature.empty or any(
                    p.annotation is inspect.Parameter.empty for p in sig.parameters.values()):
                missing.append(name)
    assert missing == []


def test_the_command_line_is_type_checked_and_the_config_says_who_runs_mypy():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    ignored = {m for o in cfg["overrides"] if o.get("ignore_errors") for m in o["module"]}
    annotated = {m for o in cfg["overrides"] if o.get("disallow_untyped_defs") for m in o["module"]}
    assert not {"xlbridge.cli", "xlbridge.__main__"} & ignored
    assert {"xlbridge.cli", "xlbridge.__main__"} <= annotated
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "Run by tests/package/test_types.py" not in text and "Run by .ci/run" in text
    from xlbridge import cli

    for name, fn in inspect.getmembers(cli, inspect.isfunction):
        if fn.__module__ == cli.__name__:
            sig = inspect.signature(fn)
            assert sig.return_annotation is not inspect.Signature.empty, name
            assert all(p.annotation is not inspect.Parameter.empty for p in sig.parameters.values()), name


@pytest.mark.parametrize("package", ["xlbridge.batch", "xlbridge.templates"])
def test_the_batch_layer_and_templates_are_type_checked_and_their_public_functions_annotated(package):
    """xlbridge/batch/ and xlbridge/templates/ are checked by mypy (no module is ignore_errors any more),
    and every function and method their modules list in ``__all__`` has annotated parameters and a
    return annotation."""
    import importlib
    import pkgutil

    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert not [o for o in cfg["overrides"] if o.get("ignore_errors")]
    missing = []
    pkg = importlib.import_module(package)
    for info in pkgutil.iter_modules(pkg.__path__):
        mod = importlib.import_module(f"{package}.{info.name}")
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if inspect.isfunction(obj):
                found = [(name, obj)]
            elif inspect.isclass(obj):
                found = [(f"{name}.{k}", v) for k, v in vars(obj).items()
                         if inspect.isfunction(v) and (not k.startswith("_") or k == "__init__")]
            else:
                continue
            for label, fn in found:
                if fn.__module__ != mod.__name__:
                    continue
                sig = inspect.signature(fn)
                if sig.return_annotation is inspect.Signature.empty or any(
                        p.annotation is inspect.Parameter.empty for k, p in sig.parameters.items()
                        if k not in ("self", "cls")):
                    missing.append(f"{mod.__name__}.{label}")
    assert missing == []
