"""Put a regen's results in place all-or-nothing, without rewriting any file that did not change.

Approach: stage, then swap (`opgen.write.replace_all`). For each op a complete copy of the new op dir is
built beside it (same parent, so same filesystem): every file that does not change is hard-linked into the
copy (same inode, so its bytes, mtime and identity are untouched; `shutil.copy2` if the filesystem refuses
links), changed files are written fresh. The new record is staged beside the old record the same way. Only
then are the copies swapped with the live dirs, in one `renameat2(RENAME_EXCHANGE)` call each where Linux
offers it (else three renames), with SIGINT held off. Until then the live tree and its record are untouched,
so a failing render, an exception or a Ctrl-C while staging leaves everything as it was; a failure between
the swaps swaps the earlier ones back. Writing changed files in place one by one (temp name + rename each)
would keep the dir's inode but is not all-or-nothing: a crash halfway leaves some files new and the record
old, and the next regen would then merge against the wrong base.

The cost: the op dir itself is a new directory afterwards (a shell sitting in it needs `cd .`), and a run
that changes nothing must not swap at all — the caller skips those.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..record import RECORD_DIR
from ..write import Replacement, replace_all, safe_relative


@dataclass(frozen=True)
class TreeChange:
    op_dir: Path
    writes: Mapping[str, bytes]  # files created or replaced (`.rej` files included), by op dir relative path
    removes: frozenset[str]
    record_dir: Path
    record: Mapping[str, bytes]  # the complete new record, by path relative to record_dir
    op_dir_changes: bool = True  # False: only the record changes; the op dir is not touched at all


def apply_changes(changes: Sequence[TreeChange]) -> None:
    """Stage every op dir and record, then swap each into place; any failure leaves everything as it was.

    An op dir with an old in-dir record (`.opgen/`) is staged without it: the record moves out."""
    replacements = []
    for change in changes:
        if change.op_dir_changes:
            replacements.append(Replacement(change.op_dir, functools.partial(_build_stage, change)))
        replacements.append(Replacement(change.record_dir, functools.partial(_build_record, change)))
    replace_all(replacements)


def _build_record(change: TreeChange, stage: Path) -> None:
    stage.mkdir()
    for rel, data in change.record.items():
        _write_file(stage / safe_relative(rel), data, None)


def _build_stage(change: TreeChange, stage: Path) -> None:
    stage.mkdir()
    source = change.op_dir
    skip = set(change.writes) | change.removes
    touched = {str(PurePosixPath(p).parent) for p in skip}  # folders whose entries change
    dir_stats: list[tuple[str, os.stat_result]] = []
    if source.is_dir():
        for top, dirnames, filenames in os.walk(source):
            rel_top = Path(top).relative_to(source).as_posix()
            if rel_top == ".":
                dirnames[:] = [d for d in dirnames if d != RECORD_DIR]
                filenames = [f for f in filenames if f != RECORD_DIR]
            else:
                (stage / rel_top).mkdir()
            dir_stats.append((rel_top, os.stat(top)))
            prefix = "" if rel_top == "." else f"{rel_top}/"
            for name in dirnames:  # os.walk lists links to folders here and does not enter them
                if os.path.islink(os.path.join(top, name)):
                    os.symlink(os.readlink(os.path.join(top, name)), stage / f"{prefix}{name}")
            for name in filenames:
                src, rel = os.path.join(top, name), f"{prefix}{name}"
                if os.path.islink(src):
                    os.symlink(os.readlink(src), stage / rel)
                elif rel not in skip:
                    _link_or_copy(Path(src), stage / rel)
        _prune_emptied(stage, change.removes)
    for rel, data in change.writes.items():
        previous = source / safe_relative(rel)
        mode = stat.S_IMODE(previous.stat().st_mode) if previous.is_file() else None  # keep e.g. your chmod +x
        _write_file(stage / rel, data, mode)
    for rel_top, st in reversed(dir_stats):  # last, so no write bumps a restored mtime or meets a read-only folder
        path = stage / rel_top
        if path.is_dir():
            os.chmod(path, stat.S_IMODE(st.st_mode))
            if rel_top not in touched:
                os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _link_or_copy(src: Path, dst: Path) -> None:
    """A hard link keeps the very same file (inode, mtime); copy2 keeps at least the bytes and mtime."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _write_file(path: Path, data: bytes, mode: int | None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if mode is not None:
        os.chmod(path, mode)


def _prune_emptied(stage: Path, removes: frozenset[str]) -> None:
    """A folder left empty only because its generated files were removed goes too (e.g. a dropped SoC's
    config dir); folders that were empty before are not touched since no removal led to them."""
    for rel in sorted(removes, key=lambda p: -p.count("/")):
        parent = (stage / rel).parent
        while parent != stage and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent
