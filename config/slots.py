"""A bound on expensive jobs running at once on this host, whatever process runs them.

`HostSlots(name, count)` keeps `count` lock files; a job holds one with `flock` while it runs.
gunicorn's workers (and any other process on the machine) share the bound without Redis or
the database, and a lock is let go when its process dies, so a crash leaks no slot.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

# The kernel's table of the locks held now (Linux): one line per lock, such as
# "3: FLOCK  ADVISORY  WRITE 1234 fe:00:2146306 0 EOF" (its device as major:minor in hex, then
# its inode); a request waiting for a lock has "->" before its type.
_KERNEL_LOCKS = Path("/proc/locks")


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


def held_slots(directory: Path) -> Counter[str]:
    """How many slots of each name in `directory` some process on this host holds now, as the
    kernel's table of locks says: nothing to take or wait for, so a look never keeps a job
    from a slot. Empty when nothing is held, or the table cannot be read (not Linux).
    """
    try:
        locks = _KERNEL_LOCKS.read_text().splitlines()
        files = {
            (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino): path.stem.rsplit("-", 1)[0]
            for path in directory.glob("*-*.lock")
            for st in [path.stat()]
        }
    except OSError:
        return Counter()
    held: Counter[str] = Counter()
    for line in locks:
        fields = line.split()
        if len(fields) < 6 or fields[1] != "FLOCK":  # a waiter ("->") or another kind of lock
            continue
        major, minor, inode = fields[5].split(":")
        name = files.get((int(major, 16), int(minor, 16), int(inode)))
        if name is not None:
            held[name] += 1
    return held
