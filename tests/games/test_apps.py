"""The games app's wiring (games/apps.py)."""

from __future__ import annotations

from pathlib import Path

from django.utils import autoreload

from games.apps import watch_engine_sources
from games.engine.solver import native


def test_the_development_server_watches_the_engine_sources() -> None:
    # The compiled solver modules are loaded from their build, not from the files runserver
    # watches: the app asks it to watch the engine's sources.
    watched: list[tuple[Path, str]] = []

    class Reloader:
        def watch_dir(self, path: Path, glob: str) -> None:
            watched.append((path, glob))

    watch_engine_sources(Reloader())
    assert watched == [(native.ENGINE_DIR, "**/*.py")]
    assert watch_engine_sources in [r[1]() for r in autoreload.autoreload_started.receivers]
