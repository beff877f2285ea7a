"""The trust model of `opgen check` and `opgen validate`, one for every tier.

By default nothing from the checked tree is executed: a tree under review (a pull request) may carry any
code. Check may run what opgen itself renders from the spec, and compile tree C++ with `-fsyntax-only`
(compiling is not executing). Running tree code (its golden.py, a kernel built from its sources, its UT
binaries) needs the user's explicit `--allow-exec`, and then happens only through `run_tree_code`: a child
process in a fresh scratch working dir that is removed afterwards, after every process the run started
has been killed (bounded.py).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .bounded import exec_timeout, run_bounded

ALLOW_EXEC_FLAG = "--allow-exec"


@dataclass(frozen=True)
class Trust:
    """What the user allowed for this run."""

    allow_exec: bool = False

    def refusal(self, what: str) -> str:
        """The reason a row gives when it did not run tree code."""
        return f"not run: {what} is code from the checked tree; pass {ALLOW_EXEC_FLAG} to run it"


@dataclass(frozen=True)
class TreeRun:
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool
    failure: str | None  # why it counts as failed whatever it printed (bounded.BoundedRun.failure)


def run_tree_code(command: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None,
                  files: Mapping[str, bytes] | None = None) -> TreeRun:
    """Run tree code in a child process whose working dir is a fresh scratch dir (with `files` written into
    it first); the dir is removed afterwards, whatever the child did to it. `timeout` is the caller's default:
    `OPGEN_EXEC_TIMEOUT` overrides it."""
    with tempfile.TemporaryDirectory(prefix="opgen-exec-") as scratch:
        for name, data in (files or {}).items():
            target = Path(scratch) / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        child_env = {**os.environ, **(env or {}), "HOME": scratch, "TMPDIR": scratch}
        run = run_bounded(command, timeout=exec_timeout(timeout), cwd=scratch, env=child_env)
    return TreeRun(run.returncode, run.stdout, run.stderr, run.timed_out, run.failure)


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode(errors="replace")
