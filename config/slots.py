"""A bound on expensive jobs running at once on this host, whatever process runs them.

`HostSlots(name, count)` keeps `count` lock files; a job holds one with `flock` while it runs.
gunicorn's workers (and any other process on the machine) share the bound without Redis or
the database, and a lock is let go when its process dies, so a crash leaks no slot.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


class HostSlots:
    """`count` slots named `name`, as lock files in `directory`."""

    def __init__(self, name: str, count: int, directory: Path) -> None:
        self.paths = [directory / f"{name}-{i}.lock" for i in range(count)]
        self.directory = directory

    @contextlib.contextmanager
    def take(self) -> Iterator[bool]:
        """Hold a free slot for the block: yields True, or False at once when all are taken
        (the caller then does something cheaper instead of waiting)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        for path in self.paths:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            try:
                yield True
            finally:
                os.close(fd)  # closing the descriptor lets the lock go
            return
        yield False
