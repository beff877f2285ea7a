"""Run one step's subprocess, teeing its merged output into the validate log line by line."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TextIO

OnLine = Callable[[str], None]
STOP_GRACE_SECONDS = 30


class Log:
    """The one log file of a validate run; every step appends a header and its full output."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines = 0
        self._handle: TextIO | None = None

    def __enter__(self) -> Log:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = self.path.open("w", encoding="utf-8")
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._handle is not None:
            self._handle.close()

    def write(self, line: str) -> None:
        assert self._handle is not None, "Log used outside its with-block"
        self._handle.write(line if line.endswith("\n") else line + "\n")
        self._handle.flush()
        self.lines += 1


def run_logged(argv: list[str], cwd: Path | None, log: Log, on_line: OnLine) -> int:
    """Exit code of `argv`; stdout and stderr go to the log in the order they came.

    The child gets its own process group so that on Ctrl-C every cmake/make/compiler under it is
    stopped before the checkout is restored, not left writing into the op dir we are removing.
    """
    with subprocess.Popen(
        argv,
        cwd=cwd,
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        errors="replace",
        bufsize=1,
        start_new_session=True,
    ) as proc:
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                log.write(line)
                on_line(line.rstrip("\n"))
            return proc.wait()
        except BaseException:
            _stop_group(proc)
            raise


def _stop_group(proc: subprocess.Popen[str]) -> None:
    """SIGTERM first: gcc removes its half-written outputs on it, so the next build is not poisoned."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def check_argv(op_dir: Path, cann: Path | None = None) -> list[str]:
    """The check stage's command; the toolkit validate builds with is the one its source tiers compile against
    (without one, the child reads OPGEN_CANN_SRC / OPGEN_CANN from the environment like any `opgen check`)."""
    return [sys.executable, "-m", "opgen", "check", str(op_dir), *(["--cann", str(cann)] if cann else [])]


def run_opgen_check(op_dir: Path, log: Log, on_line: OnLine, cann: Path | None = None) -> int:
    """`opgen check OP_DIR` as a subprocess: its exit code is the check stage's verdict."""
    return run_logged(check_argv(op_dir, cann), None, log, on_line)
