"""Shared fixtures, and the rule that service-marked tests never skip in the scaled CI run."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

# Set by .ci/run for the run against real PostgreSQL and Redis: a test marked `postgres` or
# `redis` must then run, and fails instead of skipping when its service is missing.
REQUIRE_SERVICES = os.environ.get("KLONDIKE_REQUIRE_SERVICES") == "1"


def pytest_runtest_setup(item: pytest.Item) -> None:
    from django.conf import settings

    vendor = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    have = {"postgres": vendor == "postgresql", "redis": not settings.EMBEDDED}
    for service, present in have.items():
        if item.get_closest_marker(service) is None or present:
            continue
        if REQUIRE_SERVICES:
            pytest.fail(f"{service} is required in this run (KLONDIKE_REQUIRE_SERVICES=1)")
        pytest.skip(f"needs {service}: runs in the PostgreSQL + Redis run of .ci/run")


@pytest.fixture(autouse=True, scope="session")
def _test_database_may_be_flushed() -> None:
    """Open the append-only log's escape hatch: flushing a test database empties it.

    On PostgreSQL it opens for the log's owner only (games.db), so the suite connects as the
    owner (DATABASE_MIGRATE_URL, when it is set); tests that must act as the service's role
    log in as it (tests/games/test_service_role.py)."""
    from games import db

    db.log_rewrite_allowed = True


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    """Real hashing costs ~0.3 s a user by design; tests create hundreds of users."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _quick_daily_deals(settings: Any) -> None:
    """A fixed secret, so every run gets the same daily candidates whatever DJANGO_SECRET_KEY
    is, and a short solver budget, so a hard candidate is skipped in a second, not five."""
    settings.DAILY_SECRET = "klondike-tests"
    settings.DAILY_SOLVE_BUDGET_S = 1.0


@pytest.fixture(autouse=True)
def _plain_static_storage(settings: Any) -> None:
    """Tests run with debug off but without `collectstatic`, so no hashed-name manifest."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True)
def _site_url(settings: Any) -> None:
    """Links start with the test client's own origin (SITE_URL; config/site.py)."""
    settings.SITE_URL = "http://testserver"


@pytest.fixture(autouse=True)
def _clear_cache() -> Iterator[None]:
    """Throttle counters, cached tokens and games kept in memory must not leak from one test
    into the next."""
    from django.core.cache import cache

    from config import memo

    cache.clear()
    memo.clear_all()
    yield
    cache.clear()
    memo.clear_all()


@pytest.fixture
def api_client() -> Any:
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def make_user(db: None) -> Callable[..., Any]:
    """Create a user with a token (one device's); returns (user, token_key).

    The user has the address `<name>@example.com`, verified (ranked play needs one), unless
    `email` says otherwise ("" for none) or `verified=False` leaves it unverified."""
    from django.utils import timezone

    from accounts.models import User
    from accounts.tokens import token_create

    counter = iter(range(1_000_000))

    def make(
        username: str | None = None,
        password: str = "correct-horse-battery",
        *,
        email: str | None = None,
        verified: bool = True,
    ) -> Any:
        name = username or f"player{next(counter)}"
        address = f"{name}@example.com" if email is None else email
        user = User.objects.create_user(
            username=name,
            password=password,
            email=address,
            email_verified_at=timezone.now() if verified and address else None,
        )
        _, key = token_create(user=user)
        return user, key

    return make


@pytest.fixture
def staff_client(client: Any, django_user_model: Any) -> Any:
    """Django's test client, signed in as a superuser (the admin's pages)."""
    admin = django_user_model.objects.create_superuser("root", "root@example.com", "pw-xyz-123")
    client.force_login(admin)
    return client


@pytest.fixture
def auth_client(make_user: Callable[..., Any]) -> Any:
    """An APIClient authenticated with a fresh user's token; `.user` is that user."""
    from rest_framework.test import APIClient

    user, key = make_user()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    client.user = user
    return client


@pytest.fixture
def sql_sent() -> Callable[[], Any]:
    """`with sql_sent() as sent:` collects the SQL text of every statement sent inside, as
    the driver gets it (prepared statements included, which Django's query log records as
    None)."""
    import contextlib

    from django.db import connection

    @contextlib.contextmanager
    def collect() -> Iterator[list[str]]:
        sent: list[str] = []

        def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
            sent.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(record):
            yield sent

    return collect


@pytest.fixture(autouse=True)
def _analyses_done() -> Iterator[None]:
    """In embedded mode a lost game's analysis runs on a background thread after the commit
    (games.tasks.analysis_queue): let it finish before the test's database goes away."""
    yield
    from games.tasks import _analysis_thread

    _analysis_thread.submit(lambda: None).result(timeout=120)


@pytest.fixture(autouse=True)
def _no_search_process_left() -> Iterator[None]:
    """A hint's search runs in a child process (games.search_process): stop it after each
    test, so no test sees another's child."""
    yield
    from games import search_process

    search_process.shutdown()
