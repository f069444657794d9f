"""No Docker engine runs here, so the compose file's wiring is checked by reading it."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
APP_ROLES = ("migrate", "web", "worker", "beat")


def _compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_services_present():
    services = _compose()["services"]
    assert {"db", "redis", *APP_ROLES} <= set(services)
    assert services["db"]["image"].startswith("postgres:")
    assert services["redis"]["image"].startswith("redis:")


def test_app_roles_share_one_image_built_from_the_dockerfile():
    services = _compose()["services"]
    images = {services[role]["image"] for role in APP_ROLES}
    assert len(images) == 1
    assert all(services[role]["build"] == "." for role in APP_ROLES)
    assert (ROOT / "Dockerfile").exists()


def test_environment_wiring():
    services = _compose()["services"]
    for role in APP_ROLES:
        env = services[role]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://") and "@db:5432/" in env["DATABASE_URL"]
        assert env["REDIS_URL"].startswith("redis://redis:6379/")
        assert env["DJANGO_DEBUG"] == "0"
        assert "DJANGO_SECRET_KEY" in env
        assert services[role]["depends_on"]


def test_roles_run_the_right_commands():
    services = _compose()["services"]
    assert services["web"]["command"][0] == "gunicorn"
    assert services["worker"]["command"][:4] == ["celery", "-A", "config", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "config", "beat"]
    beats = [s for s in services.values() if "beat" in s.get("command", [])]
    assert len(beats) == 1
    assert services["beat"]["deploy"]["replicas"] == 1


def test_healthchecks_and_data_volume():
    compose = _compose()
    services = compose["services"]
    for name in ("db", "redis", "web", "worker"):
        assert services[name]["healthcheck"]["test"]
    assert "pgdata" in compose["volumes"]
    assert any(v.startswith("pgdata:") for v in services["db"]["volumes"])
    assert services["web"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
