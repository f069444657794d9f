"""Prometheus metrics: what the service counts, and how a scraper reads it (docs/operations.md,
"What to watch").

Counted as it happens, in the process that does it: each request's latency by view
(`RequestMetricsMiddleware`), each applied action by kind (`action_counted`), each ranking and
rating job's duration (`timed_job`). Read at scrape time instead, so that nothing on a request's
path pays for them: the Celery queues' lengths (Redis, scaled mode only) and the host's solver
and password-hash slots in use (`config.slots.held_slots`).

Where several processes serve (gunicorn's workers, a Celery worker's pool), prometheus-client's
multiprocess mode is on: every process writes its samples to files of its own in
PROMETHEUS_MULTIPROC_DIR, and a scrape sums them. One directory belongs to one gunicorn master
(config/gunicorn.py makes and wipes it) or one Celery worker (`worker_exporter_start`), so a
scrape of a node is that node alone. Without the variable (`make run`, the tests) a process
counts in its own memory.

Only the scraper reads them: `scraper_allowed` wants METRICS_TOKEN as a bearer secret; anyone
else, and everyone while it is unset, gets the site's own 404.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from socketserver import ThreadingMixIn
from typing import Any, ParamSpec, TypeVar
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from celery.signals import worker_init
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django_redis import get_redis_connection
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector

from config import env, errors
from config.cache import CACHE_ERRORS, cache_failed, cache_paused
from config.slots import held_slots

logger = logging.getLogger("config.metrics")

P = ParamSpec("P")
R = TypeVar("R")

if env.PROMETHEUS_MULTIPROC_DIR:
    # A process's first sample of each kind opens its file here. Where it cannot be made, the
    # samples are lost (`_recorded`), and the process serves all the same.
    with contextlib.suppress(OSError):
        Path(env.PROMETHEUS_MULTIPROC_DIR).mkdir(parents=True, exist_ok=True)

REQUEST_SECONDS = Histogram(
    "klondike_request_duration_seconds",
    "Time Django took to answer a request (all middleware included), by view, method and "
    "status class.",
    ["view", "method", "status"],
    # A move takes 1-3 ms of a process; the rest shows pages, exports and hints.
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
ACTIONS = Counter(
    "klondike_actions",
    "Actions applied to games (moves, draws, undos...), by kind: rate() is actions a second.",
    ["kind"],
)
JOB_SECONDS = Histogram(
    "klondike_job_duration_seconds",
    "Duration of a ranking or rating job, by job and outcome (done or failed).",
    ["job", "outcome"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0),
)

# The request methods a view can take; any other a client writes is counted as "other", so
# that nobody outside can make new series at will.
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


# A process logs a metric it cannot record at most this often (seconds): else every request.
_WARN_EVERY_S = 60.0
_warned_at: list[float] = []


def _recorded(record: Callable[[], object]) -> None:
    """Run `record`, a metric's update. A metric never fails its caller: a multiprocess file
    that cannot be opened or grown (its directory deleted, the disk full) loses the sample,
    and is logged now and then."""
    try:
        record()
    except Exception:
        now = time.monotonic()
        if not _warned_at or now - _warned_at[-1] >= _WARN_EVERY_S:
            _warned_at[:] = [now]
            logger.warning("a metric could not be recorded", exc_info=True)


class RequestMetricsMiddleware:
    """Time each request, around every other middleware (it comes first), by the view its path
    resolved to ("none": answered before the URL was resolved, as a redirect to HTTPS)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        start = time.perf_counter()
        response = self.get_response(request)
        seconds = time.perf_counter() - start
        match = request.resolver_match
        labels = (
            match.view_name if match is not None else "none",
            request.method if request.method in _METHODS else "other",
            f"{response.status_code // 100}xx",
        )
        _recorded(lambda: REQUEST_SECONDS.labels(*labels).observe(seconds))
        return response


def action_counted(*, kind: str) -> None:
    """Count one action applied to a game; `kind` is the API's name for it (`move`, `draw`,
    ...: games.engine.ACTION_NAMES)."""
    _recorded(lambda: ACTIONS.labels(kind).inc())


def timed_job(job: Callable[P, R]) -> Callable[P, R]:
    """Decorate a job (a Celery task's function) to record its duration under its name, as
    "done" or, when it raises, "failed"."""

    @functools.wraps(job)
    def timed(*args: P.args, **kwargs: P.kwargs) -> R:
        start, outcome = time.perf_counter(), "failed"
        try:
            result = job(*args, **kwargs)
            outcome = "done"
            return result
        finally:
            seconds = time.perf_counter() - start
            labels = (job.__name__, outcome)
            _recorded(lambda: JOB_SECONDS.labels(*labels).observe(seconds))

    return timed


# --- What a scrape reads ---------------------------------------------------------------------

# The host's slots (config.slots.HostSlots), by their lock files' name.
_SLOTS_DIR = env.VAR_DIR / "locks"


def _slot_capacity() -> dict[str, int]:
    return {
        "solver-search": settings.SOLVER_SEARCHES_AT_ONCE,
        "password-hash": settings.PASSWORD_HASHES_AT_ONCE,
    }


def _celery_queues() -> list[str]:
    """The queues the workers consume: the routes' and Celery's default one."""
    return sorted({route["queue"] for route in settings.CELERY_TASK_ROUTES.values()} | {"celery"})


class _ReadAtScrape:
    """The values a scrape reads where they are kept, rather than counted by the processes."""

    def collect(self) -> Iterator[Metric]:
        capacity = _slot_capacity()
        held = held_slots(_SLOTS_DIR)
        slots = GaugeMetricFamily(
            "klondike_slots", "Slots of a host-wide bound on expensive jobs.", labels=["slots"]
        )
        in_use = GaugeMetricFamily(
            "klondike_slots_in_use",
            "Slots held now by any process of this host: solver searches, password hashes.",
            labels=["slots"],
        )
        for name in sorted(capacity.keys() | held.keys()):
            if name in capacity:
                slots.add_metric([name], capacity[name])
            in_use.add_metric([name], held[name])
        yield slots
        yield in_use
        lengths = _queue_lengths()
        if lengths is not None:
            queue = GaugeMetricFamily(
                "klondike_celery_queue_length",
                "Tasks waiting in a Celery queue of the broker (not those running).",
                labels=["queue"],
            )
            for name, length in lengths.items():
                queue.add_metric([name], length)
            yield queue


def _queue_lengths() -> dict[str, int] | None:
    """Each Celery queue's length in the broker (Redis, one round trip); None in embedded mode
    (no broker) or when Redis does not answer (config.cache: this process then leaves it alone
    for a while)."""
    if settings.EMBEDDED or cache_paused():
        return None
    names = _celery_queues()
    try:
        pipe = get_redis_connection("default").pipeline(transaction=False)
        for name in names:
            pipe.llen(name)
        return dict(zip(names, pipe.execute(), strict=True))
    except CACHE_ERRORS:
        cache_failed("the metrics' queue lengths")
        return None


_READ_AT_SCRAPE = _ReadAtScrape()


def scrape() -> bytes:
    """Every metric, in Prometheus's text format: the samples of all the processes that share
    this one's multiprocess directory (or of this process alone), then what a scrape reads."""
    registry = CollectorRegistry()
    registry.register(_READ_AT_SCRAPE)
    if not env.PROMETHEUS_MULTIPROC_DIR:
        return generate_latest(REGISTRY) + generate_latest(registry)
    try:
        MultiProcessCollector(registry, path=env.PROMETHEUS_MULTIPROC_DIR)
    except ValueError:  # the directory is gone: no counted samples to give
        logger.warning("no metrics directory %s", env.PROMETHEUS_MULTIPROC_DIR)
    return generate_latest(registry)


def scraper_allowed(authorization: str | None) -> bool:
    """Whether an `Authorization` header is the scraper's: `Bearer <METRICS_TOKEN>`, compared
    in constant time (of the two values' digests, so that not even the length shows). False
    for everyone while METRICS_TOKEN is unset."""
    token = settings.METRICS_TOKEN
    if not token or not authorization:
        return False
    scheme, _, given = authorization.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        hashlib.sha256(given.strip().encode()).digest(),
        hashlib.sha256(token.encode()).digest(),
    )


def metrics_view(request: HttpRequest) -> HttpResponse:
    """GET /metrics for the scraper; anyone else gets the same 404 as a path that does not
    exist (config.errors.handler404)."""
    if not scraper_allowed(request.headers.get("Authorization")):
        response: HttpResponse = errors.handler404(request)
        return response
    if request.method not in ("GET", "HEAD"):
        return HttpResponseNotAllowed(["GET", "HEAD"])
    return HttpResponse(scrape(), content_type=CONTENT_TYPE_LATEST)


# --- A Celery worker's own exporter ------------------------------------------------------------


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """No line per scrape in the worker's log."""


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


def _exporter_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
    """The worker's metrics as WSGI, under the same rule as the web's `metrics_view`."""
    if not scraper_allowed(environ.get("HTTP_AUTHORIZATION")):
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"Not found.\n"]
    start_response("200 OK", [("Content-Type", CONTENT_TYPE_LATEST)])
    return [scrape()]


def worker_exporter_start(**_: object) -> None:
    """Serve this Celery worker's metrics on CELERY_METRICS_BIND (host:port), if set, from a
    thread of its main process; connected to Celery's `worker_init`, which runs there once,
    before the pool's processes start. First it deletes what an earlier run of the worker
    left in its multiprocess directory (but this process's own files)."""
    if not env.CELERY_METRICS_BIND:
        return
    directory = Path(env.PROMETHEUS_MULTIPROC_DIR or "")
    own = f"_{os.getpid()}.db"
    for path in directory.glob("*.db"):
        if not path.name.endswith(own):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
    host, port = env.CELERY_METRICS_BIND.rsplit(":", 1)
    server = make_server(
        host, int(port), _exporter_app, server_class=_ThreadingServer, handler_class=_QuietHandler
    )
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()


worker_init.connect(worker_exporter_start)
