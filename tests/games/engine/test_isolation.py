"""The engine stands alone: no Django, stdlib only (with mypyc's runtime in the solver's
compiled modules), and mypy --strict clean."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from games.engine.solver import native

ROOT = Path(__file__).resolve().parents[3]
ENGINE = ROOT / "games" / "engine"


def test_imports_without_django() -> None:
    code = textwrap.dedent(
        """
        import sys

        class Blocker:
            def find_spec(self, name, path=None, target=None):
                if name == "django" or name.startswith("django."):
                    raise ImportError("django is blocked in this test")
                return None

        sys.meta_path.insert(0, Blocker())
        import games.engine as e
        import games.engine.actions, games.engine.cards, games.engine.codes
        import games.engine.deal, games.engine.errors, games.engine.jsonio
        import games.engine.notation, games.engine.replay, games.engine.rules
        import games.engine.state, games.engine.views
        try:
            import django
        except ImportError:
            pass
        else:
            raise SystemExit("the blocker does not work")
        assert not any(m == "django" or m.startswith("django.") for m in sys.modules)
        g = e.GameState.from_code("KL1-D1N-AAAAAAG")
        g.apply(e.Draw())
        print("ok", g.moves)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok 1"


MYPYC_RUNTIME = {"librt", "mypy_extensions"}
"""mypyc's own runtime: its native arrays (``librt.vecs.vec``) and fixed-width ints, which the
solver's compiled modules use to keep cards unboxed (docs/solver.md, "The compiled build")."""


def test_engine_imports_only_the_stdlib() -> None:
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for path in ENGINE.rglob("*.py"):  # the solver package's modules too
        allowed = stdlib
        if path.parent.name == "solver" and path.stem in native.COMPILED:
            allowed = stdlib | MYPYC_RUNTIME
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.relative_to(ENGINE)} imports {name}"


def test_mypy_strict() -> None:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed")
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "games/engine"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_py_typed_marker() -> None:
    assert (ENGINE / "py.typed").exists()
