"""Standard streams that cannot crash opgen: a closed stdout, an ASCII-only terminal, a full disk or a closed
pipe behind stdout become one message on stderr, never a traceback."""

from __future__ import annotations

import errno
import io
import os
import sys

CLOSED_AT_START: set[int] = set()  # the standard fds that were closed when opgen started (now on /dev/null)
STDOUT_FAILURES: list[OSError] = []  # what writing to the real stdout raised (the data is then lost)


class _WatchedFile(io.FileIO):
    """stdout's fd, remembering a failed write: a full disk loses the data, so a later flush cannot tell."""

    def write(self, data: bytes) -> int:  # type: ignore[override]
        try:
            return super().write(data)
        except OSError as error:
            STDOUT_FAILURES.append(error)
            raise


def prepare() -> None:
    """Give closed standard fds /dev/null, so no file opgen opens (nor a child's output) lands on fd 1; print
    what the stream's encoding lacks as escapes (`\\u2014`) instead of failing on it; watch the real stdout."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            CLOSED_AT_START.add(fd)
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if sys.stdout is not None and sys.stdout is sys.__stdout__ and isinstance(sys.stdout, io.TextIOWrapper):
        old = sys.stdout
        old.flush()
        raw = _WatchedFile(old.fileno(), "w", closefd=False)
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(raw), encoding=old.encoding, errors="backslashreplace",
                                      line_buffering=old.line_buffering)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


def stdout_failure() -> OSError | None:
    """Why stdout lost what opgen printed (closed, full disk, closed pipe), or None."""
    if 1 in CLOSED_AT_START:
        return OSError(errno.EBADF, "stdout is closed")
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except OSError:
        pass  # recorded by _WatchedFile
    if not STDOUT_FAILURES:
        return None
    null = os.open(os.devnull, os.O_WRONLY)  # what is still buffered goes there, not to a last traceback
    os.dup2(null, 1)
    os.close(null)
    return STDOUT_FAILURES[0]
