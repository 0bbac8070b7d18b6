"""Every documentation page shows at least one example that runs (pytest --doctest-glob=*.md runs them)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]


def test_every_page_has_a_doctest_example():
    assert len(PAGES) >= 11
    without = [p.name for p in PAGES if not re.search(r"^>>> ", p.read_text(encoding="utf-8"), re.M)]
    assert without == []


def test_the_pages_are_collected_as_doctests():
    opts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "--doctest-glob=*.md" in opts["addopts"]
    assert "docs" in opts["testpaths"] and "README.md" in opts["testpaths"]


def test_no_page_uses_a_module_path_removed_in_0_2_0():
    # 0.1.0's flat module paths are gone (CHANGELOG.md): xlbridge.imps and xlbridge.vp are the functions now
    old = "errors|contract|entries|rounding|matchpoints|weighted|imps|vp|teams|instant|lehman|lehman_sim|forml|fairness"
    for p in PAGES:
        text = p.read_text(encoding="utf-8")
        assert not re.search(rf"xlbridge\.(?:{old})\.[A-Za-z_]|from xlbridge\.(?:{old}) import", text), p.name


def test_every_test_file_a_page_or_docstring_names_exists():
    # a docstring once sent readers to tests/excel/test_generated.py, which never existed
    named = []
    for path in PAGES + sorted((ROOT / "xlbridge").rglob("*.py")):
        for m in re.finditer(r"\btests/[A-Za-z0-9_/]+\.py\b", path.read_text(encoding="utf-8")):
            named.append((path.relative_to(ROOT).as_posix(), m.group()))
    assert len(named) > 5
    assert [(where, p) for where, p in named if not (ROOT / p).is_file()] == []
