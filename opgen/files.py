"""Reading a file opgen did not make itself (a spec, a record, a license header) without ever blocking: a fifo
or a device put in its place is refused by its type, never opened for a read that would wait forever."""

from __future__ import annotations

import os
import stat
from pathlib import Path

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a fifo (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class NotRegularFile(OSError):
    """The path exists (links followed) but is no regular file; `kind` says what it is."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(f"{path} is {kind}, not a regular file")
        self.path = path
        self.kind = kind


def kind_of(mode: int) -> str:
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def read_regular(path: Path, limit: int | None = None) -> bytes:
    """The bytes of a regular file (at most `limit`). Its type is checked before it is opened, and again on the
    opened file (non-blocking), so a fifo swapped in between is refused too; raises NotRegularFile, or the
    OSError of a missing or unreadable file."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise NotRegularFile(path, kind_of(mode))
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path, kind_of(mode))
        return handle.read() if limit is None else handle.read(limit)
