"""The scratch workspace build.sh runs in: a git copy of ops-nn (build.sh runs `git submodule init`), with
opbase at `ops-nn/../../ops-base` and ops-tensor at `ops-nn/../ops-tensor`, where ops-nn's cmake looks
before it would clone them. Users' own checkouts are never touched."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def make_workspace(cann_src: Path, root: Path) -> Path:
    """Lay out `root/ws/ops-nn` (a fresh one-commit git repo) and its neighbours; returns the ops-nn dir."""
    ops_nn = root / "ws" / "ops-nn"
    if not (root / "ops-base").exists():
        shutil.copytree(cann_src / "opbase", root / "ops-base", symlinks=True)
    if not (root / "ws" / "ops-tensor").exists():
        shutil.copytree(cann_src / "ops-tensor", root / "ws" / "ops-tensor", symlinks=True)
    if not ops_nn.exists():
        shutil.copytree(cann_src / "ops-nn", ops_nn, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        git = ["git", "-C", str(ops_nn), "-c", "user.email=opgen@localhost", "-c", "user.name=opgen"]
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "opgen scratch copy"]):
            subprocess.run(git + args, check=True, capture_output=True)
    return ops_nn
