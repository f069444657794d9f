"""gunicorn settings for the scaled stack (docker-compose, bench/). Override with env vars."""

import multiprocessing
import os
import shutil
import tempfile
from typing import Any

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", multiprocessing.cpu_count() * 2 + 1))
threads = int(os.environ.get("GUNICORN_THREADS", "1"))
worker_class = "gthread" if threads > 1 else "sync"
timeout = 30
graceful_timeout = 30
keepalive = 5
accesslog = os.environ.get("GUNICORN_ACCESSLOG", "-") or None
# Recycle workers now and then (a guard against slow leaks), but rarely: a restart re-imports
# Django, about 1.5 s of CPU, which at 5000 requests cost 0.3 ms a request - as much as a
# whole request to a constant view (docs/benchmarks.md).
max_requests = 100_000
max_requests_jitter = 10_000
# Request limits, set on purpose (gunicorn answers past them itself, 400 or 414): the API's
# paths, queries and headers are short; the bodies are limited by Django
# (DATA_UPLOAD_MAX_MEMORY_SIZE: 413 in the error format).
limit_request_line = 4094  # bytes of the request line: longer is 414
limit_request_fields = 50  # header fields
limit_request_field_size = 8190  # bytes of one header field
# No client header moves the site under a prefix or sets the path: gunicorn would take
# SCRIPT_NAME and PATH_INFO headers from its forwarded_allow_ips (loopback by default, where
# a node's neighbours and nginx are) and cut that prefix off the path. A header with an
# underscore is then dropped (header_map "drop"); config/wsgi.py resets the prefix as well.
forwarder_headers = ""


# Metrics (config/metrics.py): this master's workers write theirs to files in one directory,
# which a scrape of any worker sums (prometheus-client's multiprocess mode). The directory is
# the master's alone: PROMETHEUS_MULTIPROC_DIR, wiped here at start (an earlier run's counts
# would add to this one's), or else a temporary one made here and removed at exit. The workers
# import Django (and prometheus-client, which reads the variable once) only after they fork
# from the master, so they all find it set.
_metrics_dir_made: str | None = None


def on_starting(server: object) -> None:
    """Before the first worker forks: give this master's workers their metrics directory."""
    global _metrics_dir_made
    given = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "").strip()
    if given:
        os.makedirs(given, exist_ok=True)
        for name in os.listdir(given):
            if name.endswith(".db"):
                os.remove(os.path.join(given, name))
    else:
        _metrics_dir_made = tempfile.mkdtemp(prefix="klondike-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = _metrics_dir_made


def child_exit(server: object, worker: Any) -> None:
    """A worker ended (or was killed): drop its live gauges' files, as prometheus-client's
    multiprocess mode asks. Its counters and histograms stay, so that the sums never go back."""
    # Imported here, once the variable is set: the workers forked later inherit the module,
    # which chose its mode on import.
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server: object) -> None:
    """The master stops: remove the metrics directory it made."""
    if _metrics_dir_made is not None:
        shutil.rmtree(_metrics_dir_made, ignore_errors=True)
