"""``python -m games.engine COMMAND``: the engine's command line (see :mod:`games.engine.cli`)."""

from __future__ import annotations

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
