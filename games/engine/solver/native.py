"""The solver's compiled build: where it lies, and whether the package may load it.

The hot modules of the solver (:data:`COMPILED`) are plain Python, typed for ``mypy
--strict``. ``tools/compile_solver.py`` (run by ``make run`` and ``make test``) compiles them
with mypyc into :data:`NATIVE_DIR`, which searches about three times as many positions a
second. The package puts that folder first on its ``__path__`` only when the build was made
from the very sources of the engine beside it (mypyc compiles in what it knows of the
modules they import, such as the fields of ``state.RawPosition``), so an edited source never
runs as a stale binary, and a machine with no C compiler runs the same modules as Python.
This module imports nothing of the package, so that the build tool can load it alone.
``KLONDIKE_SOLVER_PURE=1`` in the environment keeps the solver in pure Python (the tests
compare the two).
"""

from __future__ import annotations

import hashlib
import os
import sys
import sysconfig
from pathlib import Path
from typing import Final

COMPILED: Final = ("positions", "pruning", "moves", "search", "schedule", "shortening")
"""The modules compiled, in import order (each imports only those before it)."""
NATIVE_DIR: Final = Path(__file__).with_name("_native")
DIGEST_FILE: Final = "SOURCE_DIGEST"
"""The file in :data:`NATIVE_DIR` naming the sources it was built from (:func:`source_digest`)."""
GROUP: Final = "games.engine.solver._native"
"""mypyc's name for the shared library of the build (``_native__mypyc``, in :data:`NATIVE_DIR`)."""
ENGINE_DIR: Final = Path(__file__).resolve().parent.parent


def engine_sources() -> list[Path]:
    """Every module of the engine (the compiled ones and all they may import), sorted."""
    return sorted(ENGINE_DIR.glob("*.py")) + sorted(ENGINE_DIR.glob("solver/*.py"))


def source_digest() -> str:
    """A digest of the engine's sources and of the interpreter and platform built for."""
    tag = f"{sys.implementation.cache_tag} {sysconfig.get_config_var('EXT_SUFFIX')}"
    digest = hashlib.sha256(f"{tag}\n".encode())
    for path in engine_sources():
        digest.update(f"{path.relative_to(ENGINE_DIR)}\n".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def built_digest() -> str | None:
    """The digest the build in :data:`NATIVE_DIR` was made from; ``None`` without one."""
    try:
        return (NATIVE_DIR / DIGEST_FILE).read_text().strip()
    except OSError:
        return None


def native_path() -> list[str]:
    """``[NATIVE_DIR]`` for the package's ``__path__`` when the build there matches the
    sources and pure Python is not asked for, else ``[]``."""
    if os.environ.get("KLONDIKE_SOLVER_PURE", "") not in ("", "0"):
        return []
    return [str(NATIVE_DIR)] if built_digest() == source_digest() else []


def is_native() -> bool:
    """Do the solver's compiled modules run compiled in this process?"""
    from . import search

    return Path(search.__file__ or "").suffix not in (".py", ".pyc")
