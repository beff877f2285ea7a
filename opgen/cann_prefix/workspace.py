"""Where build.sh runs against the prefix: ops-nn's cmake takes opbase from `ops-nn/../../ops-base` and
ops-tensor from `ops-nn/../ops-tensor` before it would clone them (cmake/third_party/opbase.cmake,
ops-tensor.cmake), so both must stand there. `make_workspace` lays out a scratch git copy of the sources'
ops-nn with them; `lent_neighbours` puts them beside a user's own checkout for one run and takes them away."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def neighbours(ops_nn: Path) -> dict[str, Path]:
    """Source folder name -> where ops-nn's cmake looks for it."""
    return {"opbase": ops_nn.parent.parent / "ops-base", "ops-tensor": ops_nn.parent / "ops-tensor"}


def make_workspace(cann_src: Path, root: Path) -> Path:
    """Lay out `root/ws/ops-nn` (a fresh one-commit git repo, as build.sh runs `git submodule init`) and its
    neighbours; returns the ops-nn dir. What is there is kept, but for what a killed run left placed."""
    ops_nn = root / "ws" / "ops-nn"
    for name, place in neighbours(ops_nn).items():
        if not place.exists():
            shutil.copytree(cann_src / name, place, symlinks=True)
    git = ["git", "-C", str(ops_nn), "-c", "user.email=opgen@localhost", "-c", "user.name=opgen"]
    if not ops_nn.exists():
        shutil.copytree(cann_src / "ops-nn", ops_nn, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "opgen scratch copy"]):
            subprocess.run(git + args, check=True, capture_output=True)
    elif subprocess.run([*git, "status", "--porcelain"], check=True, capture_output=True).stdout:
        _reset(ops_nn, git)
    return ops_nn


def _reset(ops_nn: Path, git: list[str]) -> None:
    """A run killed while its op was placed left the scratch copy changed: its op over upstream's, upstream's own
    in the build dir's backup. The copy is opgen's: back to its commit (the ignored build dir and its objects
    kept), the stale backups dropped."""
    for args in (["checkout", "-q", "--", "."], ["clean", "-fdq"]):
        subprocess.run(git + args, check=True, capture_output=True)
    shutil.rmtree(ops_nn / "build" / ".opgen_backup", ignore_errors=True)


def missing_neighbours(ops_nn: Path) -> list[Path]:
    return [place for place in neighbours(ops_nn).values() if not place.exists()]


@contextmanager
def lent_neighbours(cann_src: Path, ops_nn: Path) -> Iterator[list[Path]]:
    """Copies of opbase and ops-tensor where the checkout's cmake looks, for the run only; the user's own
    copies, when there, are used and left alone. Yields the places lent."""
    lent: list[Path] = []
    try:
        for name, place in neighbours(ops_nn).items():
            if not place.exists():
                lent.append(place)
                shutil.copytree(cann_src / name, place, symlinks=True)
        yield lent
    finally:
        for place in lent:
            shutil.rmtree(place, ignore_errors=True)
