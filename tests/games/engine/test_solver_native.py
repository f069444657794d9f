"""The solver's compiled build (games/engine/solver/native.py): it is loaded only when it
matches the sources, and it searches exactly as the pure-Python modules do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine.solver import native

ROOT = Path(__file__).resolve().parents[3]
HERE = str(Path(__file__).resolve().parent)
STRICT = os.environ.get("KLONDIKE_SOLVER_STRICT", "") not in ("", "0")

# Solves positions of every preset, from the deal and after random play, with a node bound
# (no clock in the verdict), and prints each verdict with its positions and its line.
VERDICTS_SCRIPT = """
import json, random
from games.engine import DealCode, GameState, format_action
from games.engine.solver import native, solve

out = {"native": native.is_native(), "verdicts": []}
rng = random.Random(11)
for mode in ("D1N", "D3N", "D1V", "D3V", "D1C", "D3C", "D1R", "D3R"):
    for n in range(4):
        g = GameState.from_code(DealCode(int(mode[1]), mode[2], 40 + n))
        for plies in (0, 25, 60):
            p = g.copy()
            for _ in range(plies):
                legal = p.legal_moves()
                if not legal or p.is_over:
                    break
                p.apply(rng.choice(legal))
            v = solve(p, budget_s=1000, max_nodes=1500)
            line = [format_action(a) for a in getattr(v, "actions", [])]
            out["verdicts"].append([mode, n, plies, v.verdict, v.nodes, line])
print(json.dumps(out))
"""


def _verdicts(pure: bool) -> dict[str, object]:
    env = {**os.environ, "KLONDIKE_SOLVER_PURE": "1" if pure else "0"}
    done = subprocess.run(
        [sys.executable, "-c", VERDICTS_SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_ci_runs_the_compiled_build() -> None:
    # .ci/run sets KLONDIKE_SOLVER_STRICT: the build must have been made, and be loaded.
    if not STRICT:
        pytest.skip("the compiled build is optional outside CI")
    assert native.is_native()


def test_the_compiled_build_searches_exactly_as_the_source_does() -> None:
    if not native.is_native():
        pytest.skip("no compiled build here: the solver runs as its source")
    compiled, pure = _verdicts(pure=False), _verdicts(pure=True)
    assert compiled["native"] is True and pure["native"] is False
    assert compiled["verdicts"] == pure["verdicts"]
    kinds = {v[3] for v in pure["verdicts"]}  # type: ignore[attr-defined]
    assert kinds == {"solved", "unwinnable", "unknown"}


def test_tests_that_patch_the_solver_pass_in_pure_python() -> None:
    # Compiled code calls its functions and methods directly, so a patch of them would not
    # take: the tests that patch (marked pure_solver) run here with the solver in Python.
    if not native.is_native():
        pytest.skip("no compiled build here: those tests ran in this process")
    env = {**os.environ, "KLONDIKE_SOLVER_PURE": "1"}
    env.pop("PYTEST_ADDOPTS", None)  # (this run's own options, such as a -k, are not its)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "pure_solver", HERE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " skipped" not in done.stdout, done.stdout[-2000:]


def test_a_build_is_loaded_only_when_it_matches_the_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(native, "NATIVE_DIR", tmp_path)
    monkeypatch.delenv("KLONDIKE_SOLVER_PURE", raising=False)
    assert native.native_path() == []  # nothing built
    (tmp_path / native.DIGEST_FILE).write_text("0" * 64 + "\n")
    assert native.native_path() == []  # built from other sources
    (tmp_path / native.DIGEST_FILE).write_text(native.source_digest() + "\n")
    assert native.native_path() == [str(tmp_path)]
    monkeypatch.setenv("KLONDIKE_SOLVER_PURE", "1")
    assert native.native_path() == []
