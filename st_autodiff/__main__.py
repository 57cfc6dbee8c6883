"""``python -m st_autodiff``: the command line (see ``st_autodiff.cli``)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
