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
max_requests = 5000
max_requests_jitter = 500
