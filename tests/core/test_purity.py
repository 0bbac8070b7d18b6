"""`import xlbridge` loads the pure core only: never xlwings, openpyxl or matplotlib."""
import subprocess
import sys


def test_import_loads_neither_xlwings_nor_openpyxl():
    code = (
        "import sys, xlbridge; "
        "bad = [m for m in ('xlwings', 'openpyxl', 'formulas', 'matplotlib', 'pandas') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"import xlbridge loaded: {out.stdout.strip()}"


def test_public_names_are_exported():
    import xlbridge

    for name in xlbridge.__all__:
        assert hasattr(xlbridge, name), name
    assert len(set(xlbridge.__all__)) == len(xlbridge.__all__), "a name is exported by two modules"
