"""``python -m xlbridge``: the same as the ``xlbridge`` command."""

import sys

from .cli import main

__all__: list[str] = []

if __name__ == "__main__":
    sys.exit(main())
