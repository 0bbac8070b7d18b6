"""``python -m xlbridge.excel [--check]``: regenerate (or check) the files made from the TABLE."""

import sys

from .generated import main

if __name__ == "__main__":
    sys.exit(main())
