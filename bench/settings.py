"""Settings for the benchmarks' servers: the production settings plus bench/urls.py's views.

Everything else (middleware, DRF, database, cache) is exactly `config.settings`, so the
baseline view pays the same per-request cost as the real endpoints up to the view itself.
"""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
