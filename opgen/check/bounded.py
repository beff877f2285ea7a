"""Every child process `opgen check` starts on tree files (a preprocess, a compile, tree code under
`--allow-exec`, ops-nn's build.sh), the numerics child and the build tools of the prefix and the CPU model
(`run_tool`) runs bounded, so nothing it started outlives it and a killed or failed run is reported, never passed:

- it runs under the watcher (`reaper.c`, compiled once into the cache dir; `reaper.py` where no C compiler is
  found), in a session of its own: its address-space limit is set before exec (so a compiler
  driver's cc1plus is bounded too); when it ends, times out, or opgen is interrupted or dies (even by SIGKILL),
  every process of its session and every process that escaped it by `setsid` and was orphaned is killed;
- opgen reads its stdout and stderr as they come, keeping at most `OPGEN_CHILD_OUTPUT` of them: past that
  the run is killed and fails naming the cap; opgen never waits on a pipe once the child has ended (a
  process that escaped still holding it gets a short grace, then the pipe is closed);
- after SIGINT or SIGTERM (`stop_all`, called by opgen/cli.py's handlers) the running children are killed
  and no new one starts: `start` raises `Interrupted`.

The limits are settings, not constants, so a test or a slow machine can change them. A value that is not a
number greater than 0 (and at most 1e6) is refused before any work starts (`check_settings`):

| variable | default | bounds |
| --- | --- | --- |
| `OPGEN_COMPILE_TIMEOUT` | 120 s a preprocess, 300 s a host compile, 600 s a kernel compile | one of them |
| `OPGEN_COMPILE_MEMORY` | 4 GiB | one preprocess or compile (`RLIMIT_AS` of the process and its children) |
| `OPGEN_EXEC_TIMEOUT` | 600 s | one run of tree code (golden.py, a kernel run) |
| `OPGEN_CHILD_OUTPUT` | 256 MiB | what opgen keeps of one child's stdout and stderr together |
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import math
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..cann_sources import cache_root
from ..errors import OpgenError

GIB = 1 << 30
MIB = 1 << 20
LARGEST = 1e6
REAPER = Path(__file__).resolve().with_name("reaper.py")
REAPER_SOURCE = REAPER.with_suffix(".c")
GRACE = 0.5  # how long pipes are still read once the child has ended
TOOL_TIMEOUT = 3600.0  # a build tool of the prefix (protobuf's ninja: minutes on two cores)
STOP_WAIT = 3.0  # how long the reaper may take to kill what it watches before its group gets SIGKILL
SETTINGS = {  # name: what it gives, an example
    "OPGEN_COMPILE_TIMEOUT": ("seconds one preprocess or compile may take", "300"),
    "OPGEN_COMPILE_MEMORY": ("GiB of address space one preprocess or compile may take", "4"),
    "OPGEN_EXEC_TIMEOUT": ("seconds one run of tree code may take", "600"),
    "OPGEN_CHILD_OUTPUT": ("MiB of stdout and stderr opgen keeps from one child", "256"),
}


class Interrupted(KeyboardInterrupt):
    """opgen got SIGINT or SIGTERM: no child may start, none is left running. A KeyboardInterrupt, so no tier's
    `except Exception` turns it into a row."""


def _setting(name: str, default: float) -> float:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= LARGEST:  # nan, inf, 0, negative, too large
        what, example = SETTINGS[name]
        raise OpgenError(f"{name}={text!r} is not a setting: give the {what}, a number greater than 0 and at most "
                         f"{LARGEST:.0e} (e.g. {name}={example}), or unset it for the default")
    return value


def check_settings() -> None:
    """Refuse a bad value of any bound before any work starts (OpgenError: exit 2)."""
    for name in SETTINGS:
        _setting(name, 1.0)


def compile_timeout(default: float = 120.0) -> float:
    """Seconds one preprocess or compile may take (`OPGEN_COMPILE_TIMEOUT` overrides `default`)."""
    return _setting("OPGEN_COMPILE_TIMEOUT", default)


def compile_memory() -> int:
    """Bytes of address space one preprocess or compile may take (`OPGEN_COMPILE_MEMORY`, in GiB)."""
    return max(int(_setting("OPGEN_COMPILE_MEMORY", 4.0) * GIB), 1)


def exec_timeout(default: float = 600.0) -> float:
    """Seconds one run of tree code may take (`OPGEN_EXEC_TIMEOUT` overrides `default`)."""
    return _setting("OPGEN_EXEC_TIMEOUT", default)


def output_limit() -> int:
    """Bytes of stdout and stderr kept from one child (`OPGEN_CHILD_OUTPUT`, in MiB)."""
    return max(int(_setting("OPGEN_CHILD_OUTPUT", 256.0) * MIB), 1)


@dataclass(frozen=True)
class BoundedRun:
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool
    seconds_allowed: float
    output_cap: int | None = None  # the cap in bytes, when the child printed more and was stopped

    @property
    def failure(self) -> str | None:
        """Why the run must count as failed whatever it printed: out of time or output, or killed by a signal."""
        if self.timed_out:
            return f"took more than {self.seconds_allowed:.0f} s and was stopped (OPGEN_COMPILE_TIMEOUT, " \
                   "OPGEN_EXEC_TIMEOUT)"
        if self.output_cap is not None:
            return f"printed more than {self.output_cap / MIB:g} MiB and was stopped (OPGEN_CHILD_OUTPUT)"
        if self.returncode < 0:
            name = signal.Signals(-self.returncode).name if -self.returncode in signal.valid_signals() else "?"
            return f"was killed by {name} (out of memory? OPGEN_COMPILE_MEMORY)"
        return None


_lock = threading.RLock()  # re-entrant: stop_all runs in a signal handler, maybe inside `start` on that thread
_running: dict[int, subprocess.Popen[bytes]] = {}
_stopping = False


def stop_all() -> None:
    """From a signal handler: no child starts from now on, and every running one is told to end (its reaper
    kills all it started); the threads waiting on them return, raising Interrupted."""
    global _stopping
    with _lock:
        _stopping = True
        for pid in list(_running):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)


def start(command: Sequence[str], *, memory: int | None = None, stdin: int | None = subprocess.DEVNULL,
          output: IO[str] | None = None, cwd: Path | str | None = None,
          env: Mapping[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start `command` under the reaper; `output`: a file for both streams instead of pipes. Finish it with
    `collect`. FileNotFoundError when the command is not found, as Popen would say."""
    path = env.get("PATH") if env is not None else None
    if os.sep not in command[0] and _which(command[0], path) is None:
        raise FileNotFoundError(2, "No such file or directory", command[0])
    argv = [*_watcher(), str(os.getpid()), str(memory or 0), *command]
    with _lock:
        if _stopping:
            raise Interrupted
        process = subprocess.Popen(argv, stdin=stdin, stdout=output if output is not None else subprocess.PIPE,
                                   stderr=subprocess.STDOUT if output is not None else subprocess.PIPE, cwd=cwd,
                                   env=dict(env) if env is not None else None, start_new_session=True)
        _running[process.pid] = process
    return process


@functools.cache
def _watcher() -> list[str]:
    """The compiled watcher, built once per content of reaper.c (a Python interpreter's start-up, paid by every
    child, cost about as much as the preprocess it watched); reaper.py where no C compiler is found or it does
    not build."""
    source = REAPER_SOURCE.read_bytes()
    binary = cache_root() / "reaper" / f"{hashlib.sha256(source).hexdigest()[:16]}-{os.uname().machine}"
    fallback = [sys.executable, "-I", "-S", str(REAPER)]
    if not binary.is_file():
        compiler = c_compiler()
        if compiler is None:
            return fallback
        binary.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=binary.parent) as work:
            built = Path(work) / "reaper"
            try:
                done = subprocess.run([compiler, "-O2", "-o", str(built), str(REAPER_SOURCE)], capture_output=True,
                                      timeout=120, check=False)
            except (OSError, subprocess.TimeoutExpired):
                return fallback
            if done.returncode != 0:
                return fallback
            os.replace(built, binary)
    return [str(binary)]


def c_compiler() -> str | None:
    """The C compiler on PATH that builds the watcher and preprocesses for the syntax tier."""
    return next((exe for name in ("gcc", "cc", "clang") if (exe := _which(name, None))), None)


def _which(name: str, path: str | None) -> str | None:
    from shutil import which

    return which(name, path=path)


def collect(process: subprocess.Popen[bytes], *, timeout: float, input: str | None = None) -> BoundedRun:
    """Feed `input`, read the output until the child ends, its time is up or it printed too much; then make
    sure it and all it started are gone. Interrupted when stop_all was called meanwhile."""
    cap = output_limit()
    try:
        out, err, timed_out, capped = _pump(process, time.monotonic() + timeout, input, cap)
    finally:
        _end(process)
    if _stopping:
        raise Interrupted
    text = (out.decode(errors="replace"), err.decode(errors="replace"))
    return BoundedRun(process.returncode, *text, timed_out, timeout, cap if capped else None)


def run_bounded(command: Sequence[str], *, timeout: float, memory: int | None = None, input: str | None = None,
                cwd: Path | str | None = None, env: Mapping[str, str] | None = None,
                output: IO[str] | None = None) -> BoundedRun:
    """Run `command` to its end or its time (see the module doc); `output`: a log file for both streams."""
    stdin = subprocess.PIPE if input is not None else subprocess.DEVNULL
    process = start(command, memory=memory, stdin=stdin, output=output, cwd=cwd, env=env)
    return collect(process, timeout=timeout, input=input)


def run_tool(command: Sequence[str], *, timeout: float = TOOL_TIMEOUT, cwd: Path | str | None = None,
             env: Mapping[str, str] | None = None) -> BoundedRun:
    """A build tool on trusted inputs (the prefix's cmake and ninja, a link, an archive) run as every child is, so an
    interrupt stops it at once; a failure raises as `subprocess.run(check=True)` does."""
    done = run_bounded(command, timeout=timeout, cwd=cwd, env=env)
    if done.timed_out:
        raise subprocess.TimeoutExpired(list(command), timeout, done.stdout, done.stderr)
    if done.returncode != 0 or done.failure is not None:
        raise subprocess.CalledProcessError(done.returncode, list(command), done.stdout, done.stderr)
    return done


def _pump(process: subprocess.Popen[bytes], deadline: float, input: str | None,
          cap: int) -> tuple[bytes, bytes, bool, bool]:
    """(stdout, stderr, timed out, output capped): reads as the child prints, never past its end + GRACE."""
    selector = selectors.DefaultSelector()
    kept: dict[int, list[bytes]] = {}
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            os.set_blocking(stream.fileno(), False)
            selector.register(stream, selectors.EVENT_READ)
            kept[stream.fileno()] = []
    pending = memoryview((input or "").encode())
    if process.stdin is not None:
        os.set_blocking(process.stdin.fileno(), False)
        selector.register(process.stdin, selectors.EVENT_WRITE)
    total, ended = 0, None
    try:
        while not _stopping:
            now = time.monotonic()
            if now >= deadline:
                return (*_joined(kept, process), True, False)
            if ended is None and process.poll() is not None:
                ended = now
            if ended is not None and (not selector.get_map() or now - ended > GRACE):
                break
            if not selector.get_map():  # both streams at their end (or in a file): wait for the exit itself
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(min(deadline - now, 0.05))
                continue
            for key, _ in selector.select(min(deadline - now, 0.05 if ended is None else GRACE / 5)):
                if key.fileobj is process.stdin:
                    try:
                        pending = pending[os.write(key.fd, pending[:65536]):]
                    except BrokenPipeError:
                        pending = pending[:0]
                    if not pending:
                        selector.unregister(key.fd)
                        process.stdin.close()
                    continue
                data = os.read(key.fd, 1 << 16)
                if not data:
                    selector.unregister(key.fd)
                    continue
                kept[key.fd].append(data)
                total += len(data)
                if total > cap:
                    return (*_joined(kept, process), False, True)
        return (*_joined(kept, process), False, False)
    finally:
        selector.close()


def _joined(kept: dict[int, list[bytes]], process: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    def of(stream: IO[bytes] | None) -> bytes:
        return b"".join(kept.get(stream.fileno(), [])) if stream is not None and not stream.closed else b""

    return of(process.stdout), of(process.stderr)


def _end(process: subprocess.Popen[bytes]) -> None:
    """The reaper ends itself once its command has (killing all it started); one still running is told to
    (SIGTERM: it kills its command and all it started), and its group is SIGKILLed if it does not in time."""
    try:
        if process.poll() is None:
            with contextlib.suppress(OSError):
                os.kill(process.pid, signal.SIGTERM)
            try:
                process.wait(STOP_WAIT)
            except subprocess.TimeoutExpired:
                kill_group(process.pid)
                process.wait()
    finally:
        with _lock:
            _running.pop(process.pid, None)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def kill_group(pgid: int) -> None:
    """SIGKILL every process left in the group (a child's children included)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
