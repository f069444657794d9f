"""No Docker engine runs here, so the compose file's wiring is checked by reading it."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import yaml

ROOT = Path(__file__).resolve().parents[1]
APP_ROLES = ("migrate", "web", "worker", "analysis-worker", "beat")


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


def test_the_service_connects_as_its_own_role_and_migrate_as_the_owner():
    """Web, workers and beat connect as the service's role, which may only read and append to
    the move log; `migrate` connects as the owner; the database's first start makes both."""
    compose = _compose()
    services = compose["services"]
    urls = {services[role]["environment"]["DATABASE_URL"] for role in APP_ROLES}
    assert len(urls) == 1
    service = urlsplit(urls.pop())
    owner = urlsplit(services["migrate"]["environment"]["DATABASE_MIGRATE_URL"])
    assert owner.username != service.username
    assert (owner.hostname, owner.path) == (service.hostname, service.path)
    assert not any("DATABASE_MIGRATE_URL" in services[r]["environment"] for r in APP_ROLES[1:])
    db = services["db"]
    database = service.path.lstrip("/")
    assert db["environment"]["POSTGRES_DB"] == database
    assert db["environment"]["POSTGRES_USER"] not in (owner.username, service.username)
    (init,) = db["configs"]
    assert init["target"].startswith("/docker-entrypoint-initdb.d/")
    assert init["target"].endswith(".sql")
    script = compose["configs"][init["source"]]["content"]
    for role in (owner, service):
        assert f"CREATE ROLE {role.username} LOGIN PASSWORD '{role.password}';" in script
    assert f"GRANT {service.username} TO {owner.username};" in script
    assert f"GRANT {owner.username} TO" not in script
    assert f"ALTER DATABASE {database} OWNER TO {owner.username};" in script


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


def test_every_queue_has_a_worker_and_analyses_have_their_own():
    """Ranking never waits behind an analysis: the workers split the queues that
    settings.CELERY_TASK_ROUTES names, and together consume every one of them."""
    from django.conf import settings

    services = _compose()["services"]

    def queues(role: str) -> set[str]:
        command = services[role]["command"]
        return set(command[command.index("-Q") + 1].split(","))

    routed = {route["queue"] for route in settings.CELERY_TASK_ROUTES.values()}
    assert queues("worker") | queues("analysis-worker") == routed | {"celery"}
    assert queues("analysis-worker") == {"analysis"}
    assert services["analysis-worker"]["command"][:3] == ["nice", "-n", "10"]
