"""The import layers (pyproject.toml's [tool.importlinter], docs/architecture.md "Layers"):
`make lint` keeps them, fails on an import that points up, and leaves no module out."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` (as `make lint` runs it) on the tree at `cwd`, uncached."""
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
            "--no-logo",
            "--no-cache",
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
    )


def test_the_project_keeps_its_layers() -> None:
    run = lint_imports(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


UPWARD = {
    # module of the copy, a line added to it, the module that lint-imports must name
    "engine imports django": ("games/engine/upward.py", "import django.conf\n", "django"),
    "engine imports the apps": ("games/engine/upward.py", "import games.models\n", "games.models"),
    "games imports daily in a function": (
        "games/selectors.py",
        "\n\ndef _upward() -> None:\n    from games.daily import services  # noqa: F401\n",
        "games.daily.services",
    ),
    "games imports tasks": ("games/services.py", "from games import tasks\n", "games.tasks"),
    "accounts imports games": (
        "accounts/selectors.py",
        "from games import selectors\n",
        "games.selectors",
    ),
    "infrastructure imports an app": (
        "config/errors.py",
        "import accounts.models\n",
        "accounts.models",
    ),
}


@pytest.mark.parametrize("case", UPWARD.values(), ids=UPWARD.keys())
def test_an_upward_import_fails_the_lint(case: tuple[str, str, str], tmp_path: Path) -> None:
    """In a copy of the tree, so that a failing test leaves nothing behind in the project."""
    path, line, imported = case
    for package in CONFIG["root_packages"]:
        shutil.copytree(
            ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    assert lint_imports(tmp_path).returncode == 0  # the copy as it is keeps the contracts
    with (tmp_path / path).open("a") as module:
        module.write(line)
    run = lint_imports(tmp_path)
    assert run.returncode != 0
    assert "BROKEN" in run.stdout and imported in run.stdout, run.stdout + run.stderr


def _layer_modules() -> set[str]:
    (layers,) = [c["layers"] for c in CONFIG["contracts"] if c["type"] == "layers"]
    return {name.strip() for layer in layers for name in layer.replace("|", ":").split(":") if name}


def test_every_module_is_in_a_layer() -> None:
    """A new module must be given its layer, or the contract would not look at it. Migrations
    are history; a package's `__init__` holding layers of its own is no layer."""
    layered = _layer_modules()
    holders = {m.rsplit(".", i)[0] for m in layered for i in range(1, m.count(".") + 1)}
    missing = []
    for package in CONFIG["root_packages"]:
        for file in sorted((ROOT / package).rglob("*.py")):
            parts = file.relative_to(ROOT).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            if "migrations" in parts or module in holders:
                continue
            if not any(module == m or module.startswith(m + ".") for m in layered):
                missing.append(module)
    assert missing == []
