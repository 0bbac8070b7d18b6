"""The tests are laid out like the package (tests/README.md): each test file in the folder of the layer
it tests, none at the top of tests/, and each file name used once (pytest imports test files by name)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
#: the package's layers (xlbridge/<layer>), plus ``package`` for the checks of the whole package
FOLDERS = {"core", "excel", "batch", "templates", "formats", "analysis", "cli", "serve", "package"}


def test_no_test_file_at_the_top_of_tests():
    assert sorted(p.name for p in TESTS.glob("test_*.py")) == []


def test_every_test_file_sits_in_a_layer_folder():
    outside = [p.relative_to(TESTS).as_posix() for p in TESTS.rglob("test_*.py")
               if p.relative_to(TESTS).parts[0] not in FOLDERS]
    assert outside == []
    assert {p.relative_to(TESTS).parts[0] for p in TESTS.rglob("test_*.py")} == FOLDERS


def test_each_test_file_name_is_used_once():
    names = Counter(p.name for p in TESTS.rglob("test_*.py"))
    assert [n for n, k in names.items() if k > 1] == []
