"""tools/compile_solver.py where it cannot compile: the solver stays Python, and says so."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_without_a_compiler_the_solver_stays_python_and_is_not_retried(tmp_path: Path) -> None:
    skip = shutil.ignore_patterns("_native*", "__pycache__")
    shutil.copytree(ROOT / "games" / "engine", tmp_path / "games" / "engine", ignore=skip)
    shutil.copy(ROOT / "games" / "__init__.py", tmp_path / "games" / "__init__.py")
    shutil.copytree(ROOT / "tools", tmp_path / "tools", ignore=skip)
    solver = tmp_path / "games" / "engine" / "solver"
    env = {**os.environ, "CC": str(tmp_path / "no-such-compiler")}

    def compile_solver(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "tools/compile_solver.py", *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    first = compile_solver()
    assert first.returncode == 0, first.stderr
    assert "stays pure Python" in first.stdout
    assert not (solver / "_native").exists() and (solver / "_native-failed").is_file()
    again = compile_solver()  # the same sources: not tried again
    assert again.returncode == 0 and "did not compile" in again.stdout
    assert compile_solver("--strict").returncode == 1  # CI and the Docker image: a failure
