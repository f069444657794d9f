"""Compile the solver's hot modules with mypyc (see games/engine/solver/native.py).

Run by ``make run``, ``make test`` and ``make bench`` before anything else; it returns at once
when the build matches the engine's sources:
    .venv/bin/python tools/compile_solver.py [--strict]

The build goes to a temporary folder and then replaces ``games/engine/solver/_native`` as a
whole, with the digest of the sources it was made from, so that a build that fails, or two
runs at once, never leave a half-written folder to load. Without a C compiler (or Python's
headers) it says so, notes it in ``_native-failed`` so that the next run does not try the same
sources again, and leaves the solver in pure Python: the same modules, about three times
slower. ``--strict`` makes that a failure (CI, the Docker image).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
NATIVE_PY = ROOT / "games" / "engine" / "solver" / "native.py"


def load_native() -> ModuleType:
    """native.py alone: importing the package would load the build being replaced."""
    spec = importlib.util.spec_from_file_location("solver_native", NATIVE_PY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(native: ModuleType, work: Path) -> Path:
    """Compile the modules under ``work``; returns the folder holding the built libraries."""
    from mypyc.build import mypycify
    from setuptools import setup

    sources = [f"games/engine/solver/{name}.py" for name in native.COMPILED]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            extensions = mypycify(sources, group_name=native.GROUP, target_dir=str(work / "c"))
            setup(
                name="klondike-solver-native",
                packages=[],
                py_modules=[],
                ext_modules=extensions,
                script_args=[
                    "build_ext",
                    f"--build-lib={work / 'lib'}",
                    f"--build-temp={work / 'obj'}",
                ],
            )
        except (Exception, SystemExit) as error:
            raise RuntimeError(f"{error}\n{out.getvalue()[-3000:]}") from error
    return work / "lib" / "games" / "engine" / "solver"


def install(native: ModuleType, built: Path, digest: str) -> None:
    """Swap the libraries in ``built`` into NATIVE_DIR as a whole, readable by every user
    (the service may run as another user than the one who built it)."""
    fresh = Path(tempfile.mkdtemp(prefix="_native-", dir=native.NATIVE_DIR.parent))
    fresh.chmod(0o755)
    for library in built.glob("*.so"):
        shutil.copyfile(library, fresh / library.name)
        (fresh / library.name).chmod(0o755)
    (fresh / native.DIGEST_FILE).write_text(digest + "\n")
    (fresh / native.DIGEST_FILE).chmod(0o644)
    old = native.NATIVE_DIR.with_name(f"_native-old-{os.getpid()}")
    with contextlib.suppress(FileNotFoundError):
        native.NATIVE_DIR.rename(old)
    try:
        fresh.rename(native.NATIVE_DIR)
    except OSError:  # another run put its build there first
        shutil.rmtree(fresh)
    shutil.rmtree(old, ignore_errors=True)


def main() -> int:
    """Build when the build is missing or stale; then swap it in, or say why not."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strict", action="store_true", help="fail when it cannot compile")
    args = parser.parse_args()
    os.chdir(ROOT)  # mypyc names the modules after their paths
    native = load_native()
    failed = native.NATIVE_DIR.with_name("_native-failed")
    digest = native.source_digest()
    if native.built_digest() == digest:
        return 0
    if not args.strict and failed.is_file() and failed.read_text().strip() == digest:
        print(f"The solver runs as pure Python (it did not compile; delete {failed} to retry).")
        return 0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="solver-native-") as tmp:
        try:
            built = build(native, Path(tmp))
        except Exception as error:
            shutil.rmtree(native.NATIVE_DIR, ignore_errors=True)
            failed.write_text(digest + "\n")
            print(f"The solver stays pure Python (mypyc could not build it): {error}")
            return 1 if args.strict else 0
        if native.source_digest() != digest:
            print("The engine's sources changed during the build: not installed; run it again.")
            return 1 if args.strict else 0
        install(native, built, digest)
    if native.built_digest() != digest:
        print(f"The build could not be installed in {native.NATIVE_DIR}.")
        return 1 if args.strict else 0
    failed.unlink(missing_ok=True)
    print(f"Compiled the solver with mypyc in {time.perf_counter() - started:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
