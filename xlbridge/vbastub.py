"""Former module ``xlbridge.vbastub``, now :mod:`xlbridge.excel.vbastub`: ``python -m xlbridge.vbastub [--check]`` still works."""

import sys

from .excel.vbastub import *  # noqa: F401,F403
from .excel.vbastub import __all__, main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
