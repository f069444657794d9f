"""Compile the solver's hot modules with mypyc (see games/engine/solver/native.py).

Run by ``make run`` and ``make test`` whenever those sources change:
    .venv/bin/python tools/compile_solver.py [--strict]

The build goes to a temporary folder and then replaces ``games/engine/solver/_native`` as a
whole, with the digest of the sources it was made from, so that a build that fails, or two
runs at once, never leave a half-written folder to load. Without a C compiler (or Python's
headers) it says so and leaves the solver in pure Python: the same modules, about three times
slower. ``--strict`` makes that a failure (CI).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.engine.solver import native  # noqa: E402


def build(work: Path) -> Path:
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


def main() -> int:
    """Build, then swap the new build in; on failure, remove any old one."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strict", action="store_true", help="fail when it cannot compile")
    args = parser.parse_args()
    os.chdir(ROOT)  # mypyc names the modules after their paths
    digest = native.source_digest()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="solver-native-") as tmp:
        try:
            built = build(Path(tmp))
        except Exception as error:
            shutil.rmtree(native.NATIVE_DIR, ignore_errors=True)
            print(f"The solver stays pure Python (mypyc could not build it): {error}")
            return 1 if args.strict else 0
        fresh = Path(tempfile.mkdtemp(prefix="_native-", dir=native.NATIVE_DIR.parent))
        for library in built.glob("*.so"):
            shutil.copy2(library, fresh / library.name)
        (fresh / native.DIGEST_FILE).write_text(digest + "\n")
    old = native.NATIVE_DIR.with_name(f"_native-old-{os.getpid()}")
    with contextlib.suppress(FileNotFoundError):
        native.NATIVE_DIR.rename(old)
    try:
        fresh.rename(native.NATIVE_DIR)
    except OSError:  # another run put its build of the same sources there first
        shutil.rmtree(fresh)
    shutil.rmtree(old, ignore_errors=True)
    print(f"Compiled the solver with mypyc in {time.perf_counter() - started:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
