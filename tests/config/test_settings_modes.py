"""Both settings modes, read from the environment in a fresh interpreter each time."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, django
django.setup()
from django.conf import settings
from config.celery import app
db = settings.DATABASES["default"]
print(json.dumps({
    "engine": db["ENGINE"],
    "options": {k: str(v) for k, v in db.get("OPTIONS", {}).items()},
    "cache": settings.CACHES["default"]["BACKEND"],
    "cache_location": settings.CACHES["default"].get("LOCATION"),
    "eager": bool(app.conf.task_always_eager),
    "propagates": bool(app.conf.task_eager_propagates),
    "broker": app.conf.broker_url,
    "serializer": app.conf.task_serializer,
    "debug": settings.DEBUG,
}))
"""


def _env(**overrides: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "DAILY_", "KLONDIKE_VAR_DIR"))
    }
    env.update(
        {
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
    )
    env.update(overrides)
    return env


def _probe(**overrides: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=_env(**overrides),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_embedded_mode():
    conf = _probe()
    assert conf["engine"] == "django.db.backends.sqlite3"
    assert conf["options"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in conf["options"]["init_command"]
    assert conf["cache"] == "django.core.cache.backends.locmem.LocMemCache"
    assert conf["eager"] is True and conf["propagates"] is True
    assert conf["serializer"] == "json"
    assert conf["debug"] is False


def test_scaled_mode():
    conf = _probe(
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/klondike",
        REDIS_URL="redis://127.0.0.1:6379/3",
    )
    assert conf["engine"] == "django.db.backends.postgresql"
    assert conf["cache"] == "django_redis.cache.RedisCache"
    assert conf["cache_location"] == "redis://127.0.0.1:6379/3"
    assert conf["eager"] is False
    assert conf["broker"] == "redis://127.0.0.1:6379/3"


def test_missing_secret_key_stops_start_up_with_a_clear_message():
    env = _env()
    del env["DJANGO_SECRET_KEY"]
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode != 0
    assert "DJANGO_SECRET_KEY is not set" in out.stderr


def test_debug_mode_runs_without_a_secret_key(tmp_path):
    env = _env(DJANGO_DEBUG="1", KLONDIKE_VAR_DIR=str(tmp_path))
    del env["DJANGO_SECRET_KEY"]
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout.strip().splitlines()[-1])["debug"] is True


def test_a_bad_boolean_is_refused():
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=_env(DJANGO_DEBUG="maybe"),
        capture_output=True,
        text=True,
    )
    assert out.returncode != 0
    assert "DJANGO_DEBUG='maybe' is not a boolean" in out.stderr


def test_check_deploy_is_clean_under_production_settings():
    env = _env(
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="klondike.example",
        DJANGO_DEBUG="0",
    )
    out = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no issues" in out.stdout


def test_env_example_lists_every_variable():
    source = (ROOT / "config" / "env.py").read_text()
    example = (ROOT / ".env.example").read_text()
    import re

    names = set(re.findall(r'env_\w+\(\s*"([A-Z_]+)"', source))
    assert names, "no variables found in config/env.py"
    missing = {n for n in names if f"{n}=" not in example}
    assert not missing


def test_a_task_a_killed_worker_held_comes_back_only_after_any_task_could_have_ended():
    """Redis redelivers an unacknowledged task after the visibility timeout: shorter than a
    task's time limit, a task still running would run twice; much longer, a killed worker's
    integrity checks and rankings wait for nothing."""
    from django.conf import settings

    from config.celery import app

    app.loader.import_default_modules()
    limits = [
        task.time_limit or settings.CELERY_TASK_TIME_LIMIT
        for name, task in app.tasks.items()
        if not name.startswith("celery.")
    ]
    timeout = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    assert max(limits) < timeout <= 2 * max(limits)
