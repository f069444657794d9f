"""gunicorn settings for the scaled stack (docker-compose, bench/). Override with env vars."""

import multiprocessing
import os

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
