"""Copy the op where ops-nn's CMake scans, and leave the checkout as it was afterwards.

A different op already at the spot is never lost: without --force we refuse before touching
anything; with --force it is moved under the ignored build dir and moved back on restore.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..errors import OpgenError
from ..record import sha256
from .checkout import Checkout

IGNORED = (".opgen", "__pycache__")  # opgen's own records and Python caches are not op sources
Outcome = Literal["not placed", "removed", "restored", "kept", "untouched"]


@dataclass
class Placement:
    source: Path
    target: Path
    backup: Path | None  # where a different op at `target` waits while we build
    already_there: bool  # an identical copy was in place: nothing to copy or remove
    created_dirs: list[Path] = field(default_factory=list)
    outcome: Outcome = "not placed"

    def describe(self) -> str:
        """What happened to the checkout, in one line for the user."""
        if self.outcome == "untouched":
            return f"left {self.target} as it was (an identical copy was already there)"
        if self.outcome == "kept":
            kept = f"kept {self.target}"
            return kept if self.backup is None else f"{kept}; the op it replaced is at {self.backup}"
        if self.outcome == "restored":
            return f"put the previous op back at {self.target}"
        return f"{self.outcome} {self.target}"


def plan_placement(checkout: Checkout, rel_dir: Path, source: Path, force: bool) -> Placement:
    """Decide what placing means here; raises (checkout untouched) if it would clobber or is unsafe."""
    target = checkout.root / rel_dir
    backup_path = checkout.backup_path(rel_dir)
    if backup_path.exists():
        raise OpgenError(
            f"a backup from an interrupted validate is at {backup_path}; move it back to {target} "
            "(or delete it if it is not needed) and run again"
        )
    if not target.exists():
        return Placement(source, target, None, already_there=False)
    if target.is_dir() and _digest(target) == _digest(source):
        return Placement(source, target, None, already_there=True)
    if not force:
        raise OpgenError(f"{target} already holds a different op; pass --force to swap it out for this build")
    return Placement(source, target, backup_path, already_there=False)


@contextmanager
def placed(placement: Placement, keep: bool) -> Iterator[Placement]:
    """The op sits at `placement.target` inside the block; restored after it unless `keep`."""
    try:
        if not placement.already_there:
            _place(placement)
        _touch(placement.target)
        yield placement
    finally:
        placement.outcome = _finish(placement, keep)


def _place(p: Placement) -> None:
    missing = [d for d in (p.target.parent, *p.target.parent.parents) if not d.exists()]
    for d in reversed(missing):
        d.mkdir()
        p.created_dirs.append(d)
    if p.backup is not None:
        p.backup.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(p.target, p.backup)
    shutil.copytree(p.source, p.target, ignore=shutil.ignore_patterns(*IGNORED), copy_function=shutil.copy)


def _finish(p: Placement, keep: bool) -> Outcome:
    if p.already_there:
        return "untouched"
    if keep:
        return "kept"
    if p.target.exists():
        shutil.rmtree(p.target)
    if p.backup is not None and p.backup.exists():
        shutil.move(p.backup, p.target)
        _touch(p.target)
        _remove_empty(p.backup.parent)
        return "restored"
    for d in reversed(p.created_dirs):
        _remove_empty(d)
    return "removed"


def _touch(root: Path) -> None:
    """make rebuilds by mtime: every file of the op placed (or put back) is made newer than the objects of
    whatever was built at that spot before, so no stale object is linked and the UT binaries run again."""
    for path in root.rglob("*"):
        if path.is_file():
            path.touch()


def _remove_empty(d: Path) -> None:
    if d.is_dir() and not any(d.iterdir()):
        d.rmdir()


def _digest(root: Path) -> dict[str, str]:
    """relative path -> sha256 of every op file, so 'same op' means same bytes, not same names."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and not any(part in IGNORED for part in rel.parts):
            out[rel.as_posix()] = sha256(path.read_bytes())
    return out
