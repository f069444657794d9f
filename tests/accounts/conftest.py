"""Fixtures of the accounts tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture
def celery_tasks_eager() -> Iterator[None]:
    """Celery tasks run in the test's process, at once, as embedded mode always runs them; in
    the scaled run they would go to Redis for a worker that the suite does not start."""
    from config.celery import app

    kept = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = kept
