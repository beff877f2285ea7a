"""The small process between opgen and every child it bounds (run as a script: `python -I -S reaper.py PARENT
MEMORY COMMAND...`, importing nothing of opgen).

Why a process and not `preexec_fn`: `opgen check` starts children from several threads at once, where
`preexec_fn` may deadlock the forked child; this process is single-threaded, so its fork can set the limit.
What it does, all Linux-only facilities:
- RLIMIT_AS for COMMAND is set in the forked child before exec, so the compiler driver and every process it
  forks (cc1plus) start bounded: a limit set after exec misses what was forked in between;
- PR_SET_CHILD_SUBREAPER: a process that leaves COMMAND's session (`setsid`) or its group is reparented here
  when its own parent dies, so it can still be found and killed;
- PR_SET_PDEATHSIG: when opgen (PARENT) dies, even by SIGKILL, this process gets SIGTERM and cleans up;
- after COMMAND ends, or on SIGTERM, it SIGKILLs every process of its session and every child it has
  (adopted ones included), again until none is left, then exits as COMMAND did (its code, or its signal).
What it cannot catch: a process that escapes while its parent stays alive and is then never orphaned here,
e.g. one re-parented by a subreaper of its own that outlives this process's sweep.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
SWEEP_SECONDS = 5.0


class _Stop(Exception):
    pass


def _stop(signum: int, frame: object) -> None:
    raise _Stop


def _members(session: int, me: int) -> list[int]:
    """Every other process of `session`, and every child of `me` (adopted or not), from /proc."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        state, ppid, sid = fields[0], int(fields[1]), int(fields[3])
        if ppid == me or (sid == session and state != b"Z"):
            found.append(int(name))
    return found


def _sweep() -> None:
    """SIGKILL and reap until neither the session nor this process's children hold anything."""
    me = os.getpid()
    session = me if os.getsid(0) == me else -1  # only a session it leads: by hand from a shell, not the shell's
    deadline = time.monotonic() + SWEEP_SECONDS
    while time.monotonic() < deadline:
        left = _members(session, me)
        if not left:
            return
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass
        time.sleep(0.005)


def _exec(memory: int, command: list[str]) -> None:
    """In the forked child: the limit first, then the command (never returns)."""
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        os.execvp(command[0], command)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.write(2, f"opgen: cannot run {command[0]}: {error}\n".encode())
    os._exit(127)


def main(argv: list[str]) -> None:
    parent, memory, command = int(argv[0]), int(argv[1]), argv[2:]
    signal.signal(signal.SIGTERM, _stop)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    if os.getppid() != parent:  # opgen died before the death signal was asked for
        sys.exit(128 + signal.SIGTERM)
    status = 128 + signal.SIGTERM
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # the child must not run `_stop`
    child = os.fork()
    if child == 0:
        _exec(memory, command)
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        status = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
    except _Stop:
        pass
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the sweep runs to its end
    _sweep()
    if status < 0:
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    os._exit(status & 0xFF)


if __name__ == "__main__":
    main(sys.argv[1:])
