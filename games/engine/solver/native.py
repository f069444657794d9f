"""The solver's compiled build: where it lies, and whether the package may load it.

The hot modules of the solver (:data:`COMPILED`) are plain Python, typed for ``mypy
--strict``. ``tools/compile_solver.py`` (run by ``make run`` and ``make test``) compiles them
with mypyc into :data:`NATIVE_DIR`, which searches about three times as many positions a
second. The package puts that folder first on its ``__path__`` only when the build was made
from the very sources beside it, so an edited source never runs as a stale binary, and a
machine with no C compiler runs the same modules as Python. ``KLONDIKE_SOLVER_PURE=1`` in the
environment keeps the solver in pure Python (the tests compare the two).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Final

COMPILED: Final = ("positions", "pruning", "moves", "search", "schedule")
"""The modules compiled, in import order (each imports only those before it)."""
NATIVE_DIR: Final = Path(__file__).with_name("_native")
DIGEST_FILE: Final = "SOURCE_DIGEST"
"""The file in :data:`NATIVE_DIR` naming the sources it was built from (:func:`source_digest`)."""
GROUP: Final = f"{__package__}._native"
"""mypyc's name for the shared library of the build (``_native__mypyc``, in :data:`NATIVE_DIR`)."""


def source_digest() -> str:
    """A digest of the compiled modules' sources and of the interpreter they were built for."""
    digest = hashlib.sha256(f"{sys.implementation.cache_tag}\n".encode())
    for name in COMPILED:
        digest.update(Path(__file__).with_name(f"{name}.py").read_bytes())
    return digest.hexdigest()


def native_path() -> list[str]:
    """``[NATIVE_DIR]`` for the package's ``__path__`` when the build there matches the
    sources and pure Python is not asked for, else ``[]``."""
    if os.environ.get("KLONDIKE_SOLVER_PURE", "") not in ("", "0"):
        return []
    try:
        built = (NATIVE_DIR / DIGEST_FILE).read_text().strip()
    except OSError:
        return []
    return [str(NATIVE_DIR)] if built == source_digest() else []


def is_native() -> bool:
    """Do the solver's compiled modules run compiled in this process?"""
    from . import search

    return Path(search.__file__ or "").suffix not in (".py", ".pyc")
