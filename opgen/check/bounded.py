"""Every child process `opgen check` starts on tree files (a preprocess, a compile, tree code under
`--allow-exec`) runs bounded: in a process group of its own, with an address-space limit, killed as a group
when its time is up, so nothing it started outlives it; a killed or failed run is reported, never passed.

The limits are settings, not constants, so a test or a slow machine can change them:

| variable | default | bounds |
| --- | --- | --- |
| `OPGEN_COMPILE_TIMEOUT` | 120 s a preprocess, 300 s a host compile, 600 s a kernel compile | one of them |
| `OPGEN_COMPILE_MEMORY` | 4 GiB | one preprocess or compile (`RLIMIT_AS` of the process and its children) |
| `OPGEN_EXEC_TIMEOUT` | 600 s | one run of tree code (golden.py, a kernel run) |
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

GIB = 1 << 30


def _setting(name: str, default: float) -> float:
    text = os.environ.get(name, "").strip()
    try:
        value = float(text) if text else default
    except ValueError:
        value = default
    return value if value > 0 else default


def compile_timeout(default: float = 120.0) -> float:
    """Seconds one preprocess or compile may take (`OPGEN_COMPILE_TIMEOUT` overrides `default`)."""
    return _setting("OPGEN_COMPILE_TIMEOUT", default)


def compile_memory() -> int:
    """Bytes of address space one preprocess or compile may take (`OPGEN_COMPILE_MEMORY`, in GiB)."""
    return int(_setting("OPGEN_COMPILE_MEMORY", 4.0) * GIB)


def exec_timeout(default: float = 600.0) -> float:
    """Seconds one run of tree code may take (`OPGEN_EXEC_TIMEOUT` overrides `default`)."""
    return _setting("OPGEN_EXEC_TIMEOUT", default)


@dataclass(frozen=True)
class BoundedRun:
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool
    seconds_allowed: float

    @property
    def failure(self) -> str | None:
        """Why the run must count as failed whatever it printed: out of time, or killed by a signal."""
        if self.timed_out:
            return f"took more than {self.seconds_allowed:.0f} s and was stopped (OPGEN_COMPILE_TIMEOUT, " \
                   "OPGEN_EXEC_TIMEOUT)"
        if self.returncode < 0:
            name = signal.Signals(-self.returncode).name if -self.returncode in signal.valid_signals() else "?"
            return f"was killed by {name} (out of memory? OPGEN_COMPILE_MEMORY)"
        return None


def run_bounded(command: Sequence[str], *, timeout: float, memory: int | None = None, input: str | None = None,
                cwd: Path | str | None = None, env: Mapping[str, str] | None = None) -> BoundedRun:
    """Run `command` to its end or its time, in a session of its own; the whole group is killed afterwards."""
    process = subprocess.Popen(
        list(command), stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, errors="replace", cwd=cwd, env=dict(env) if env is not None else None,
        start_new_session=True,
    )
    if memory is not None:
        with contextlib.suppress(OSError):  # it may already have ended
            resource.prlimit(process.pid, resource.RLIMIT_AS, (memory, memory))
    timed_out = False
    try:
        out, err = process.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(process.pid)
        out, err = process.communicate()
    finally:
        kill_group(process.pid)
    return BoundedRun(process.returncode, out or "", err or "", timed_out, timeout)


def kill_group(pgid: int) -> None:
    """SIGKILL every process left in the group (a child's children included); none may be left running."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
