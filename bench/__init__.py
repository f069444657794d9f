"""Benchmarks (docs/benchmarks.md). `harness.py` starts the servers, seeds the stores, times and
reports; `player.py` is the load generator's player; each other module measures one thing.
`settings.py` and `urls.py` add the benchmarks' own views, never in production's URLs."""
