"""File locks for the caches several opgen runs may fill at once (declarations, UT framework, scratch workspaces)."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO


@contextmanager
def held_lock(path: Path) -> Iterator[None]:
    """Exclusive while the block runs; a second run waits here, then finds what the first one built."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def try_lock(path: Path) -> IO[str] | None:
    """The open, exclusively locked file, or None at once when another run holds it (close the file to release)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = path.open("a", encoding="utf-8")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    return handle
