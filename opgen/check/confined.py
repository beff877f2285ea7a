"""A compile of tree sources that may read only the tree and the include dirs it was given.

g++ names every header it opens (`-H`); a header that resolves outside the tree, the declared include dirs, the
compiler's own dirs and the run's scratch dir (an absolute path, a `..` or a symlink out) fails the compile
and nothing the compiler printed is reported, so no piece of that file reaches the report. The run itself is
bounded (bounded.py).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .bounded import compile_memory, compile_timeout, run_bounded

_OPENED = re.compile(r"^(?:\.+|!|x) (?P<path>\S.*)$")  # `-H`: a header opened; `!`/`x` a precompiled one used/not
_GUARD_NOTE = "Multiple include guards may be useful for:"
_SEARCH = re.compile(r"^#include <\.\.\.> search starts here:$(?P<dirs>.*?)^End of search list\.$",
                     re.MULTILINE | re.DOTALL)
OWN_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class ConfinedCompile:
    returncode: int
    stderr: str
    refusal: str | None  # why the compile counts as failed whatever it printed
    bounded: bool = False  # the bound stopped it (killed, out of time or memory): not an answer about the sources

    @property
    def passed(self) -> bool:
        return self.returncode == 0 and self.refusal is None


@cache
def compiler_dirs(compiler: str) -> tuple[Path, ...]:
    """The compiler's built-in include dirs (resolved)."""
    done = subprocess.run([compiler, "-x", "c++", "-E", "-v", "-"], input="", capture_output=True, text=True,
                          check=False, env={**os.environ, "LC_ALL": "C"})
    match = _SEARCH.search(done.stderr)
    lines = match.group("dirs").splitlines() if match else []
    return tuple(Path(line.strip()).resolve() for line in lines if line.strip())


def _split(stderr: str) -> tuple[list[str], str]:
    """The headers `-H` named, and the rest of the output."""
    opened: list[str] = []
    rest: list[str] = []
    in_guard_note = False
    for line in stderr.splitlines():
        if line == _GUARD_NOTE:
            in_guard_note = True
            continue
        if match := _OPENED.match(line):
            opened.append(match.group("path"))
            continue
        if in_guard_note and line.startswith("/"):
            continue
        in_guard_note = False
        rest.append(line)
    return opened, "\n".join(rest)


def outside(opened: Iterable[str], allowed: Sequence[Path], cwd: Path | None = None) -> list[str]:
    """The opened headers whose real path lies under none of `allowed`."""
    roots = [root.resolve() for root in allowed]
    found: list[str] = []
    for name in opened:
        real = (cwd / name if cwd is not None else Path(name)).resolve()
        if not any(real.is_relative_to(root) for root in roots) and name not in found:
            found.append(name)
    return found


def compile_confined(command: Sequence[str], compiler: str, allowed: Sequence[Path], *,
                     timeout: float) -> ConfinedCompile:
    """Run a g++ command with `-H`; `allowed` are the tree and the sources' root (the command's `-I` dirs, the
    compiler's and opgen's own are added)."""
    declared = [Path(arg[2:]) for arg in command if arg.startswith("-I") and len(arg) > 2]
    roots = [*allowed, *declared, *compiler_dirs(compiler), OWN_DIR]
    run = run_bounded([*command, "-H"], timeout=compile_timeout(timeout), memory=compile_memory(),
                      env={**os.environ, "LC_ALL": "C"})
    opened, rest = _split(run.stderr)
    if run.failure is not None:
        return ConfinedCompile(run.returncode, "", f"{Path(compiler).name} {run.failure}", bounded=True)
    if leaving := outside(opened, roots):
        return ConfinedCompile(run.returncode, "", f"includes {leaving[0]}, outside the tree and its include "
                               "dirs: refused (nothing the compiler printed is reported)")
    return ConfinedCompile(run.returncode, rest, None)
