"""The files generated from the TABLE (:mod:`xlbridge.excel.functions`): write them, or check them.

- ``vba_stub/xlwings_udfs.bas`` and ``vba_stub/xlbridge_register.bas`` (:mod:`xlbridge.excel.vbastub`);
- ``docs/functions.md`` (:func:`xlbridge.excel.functions.reference_markdown`);
- the import facades (:mod:`xlbridge.excel.facades`): the explicit names of ``xlbridge/__init__.py``
  and ``xlbridge/udfs.py``.

``python -m xlbridge.excel`` rewrites them; ``python -m xlbridge.excel --check`` lists the stale
ones and exits 1 (tests/excel/test_functions.py runs the check).

>>> sorted(p.name for p in expected_files())
['__init__.py', 'functions.md', 'udfs.py', 'xlbridge_register.bas', 'xlwings_udfs.bas']
>>> sorted(p.name for p in expected_files() if p.suffix != ".py")
['functions.md', 'xlbridge_register.bas', 'xlwings_udfs.bas']
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import vbastub
from .facades import facade_files
from .functions import reference_markdown

__all__ = ["ROOT", "expected_files", "write_all", "check_all", "main"]

#: The checkout holding ``xlbridge/``, ``vba_stub/`` and ``docs/``.
ROOT = Path(__file__).resolve().parents[2]


def expected_files(root: Path = ROOT) -> dict[Path, bytes]:
    """{path: content} of every generated file, as the TABLE makes it now."""
    udfs_bas, register_bas = vbastub.generate()
    return {
        root / "vba_stub" / vbastub.UDFS_BAS: udfs_bas.encode("utf-8"),
        root / "vba_stub" / vbastub.REGISTER_BAS: register_bas.encode("utf-8"),
        root / "docs" / "functions.md": reference_markdown().encode("utf-8"),
        **{path: text.encode("utf-8") for path, text in facade_files(root).items()},
    }


def write_all(root: Path = ROOT) -> list[Path]:
    """Rewrite every generated file; return their paths.

    The facades first: the VBA stub is made from ``xlbridge/udfs.py`` as it then is.
    """
    out = []
    for path, text in facade_files(root).items():
        path.write_text(text, encoding="utf-8")
    for path, data in expected_files(root).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        out.append(path)
    return out


def check_all(root: Path = ROOT) -> list[str]:
    """The stale or missing generated files (empty when all are current)."""
    problems = []
    for path, data in expected_files(root).items():
        if not path.exists():
            problems.append(f"{path.relative_to(root)}: missing (run python -m xlbridge.excel)")
        elif path.read_bytes() != data:
            problems.append(f"{path.relative_to(root)}: out of date (run python -m xlbridge.excel)")
    return problems


def main(argv: list[str] | None = None) -> int:
    """``python -m xlbridge.excel [--check]``."""
    ap = argparse.ArgumentParser(prog="python -m xlbridge.excel", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only compare; exit 1 if a generated file is out of date")
    a = ap.parse_args(argv)
    return vbastub.run_command(a.check, check_all, write_all, lambda path: path.relative_to(ROOT))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
