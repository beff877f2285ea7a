"""Symlinks that lead out of the checked tree. Every tier reads tree files by path, so a generated file replaced
by a link to `/etc/passwd` (or a dir linked to `/`) would be read, compiled or quoted in the report: such a tree
is refused before any tier reads it."""

from __future__ import annotations

import os
from pathlib import Path


def links_leaving(op_dir: Path) -> list[str]:
    """The tree's paths (relative, sorted) that are symlinks resolving outside it, or dangling."""
    root = op_dir.resolve()
    leaving: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in (*dirnames, *filenames):
            path = Path(dirpath) / name
            if not path.is_symlink():
                continue
            target = path.resolve()
            if not target.exists() or not target.is_relative_to(root):
                leaving.append(f"{path.relative_to(root).as_posix()} -> {os.readlink(path)}")
    return sorted(leaving)
