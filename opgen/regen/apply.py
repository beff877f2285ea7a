"""Put a regen's results in place all-or-nothing, without rewriting any file that did not change.

Approach: stage, then swap directories. For each op a complete copy of the new op dir is built beside it
(same parent, so same filesystem): every file that does not change is hard-linked into the copy (same inode,
so its bytes, mtime and identity are untouched; `shutil.copy2` if the filesystem refuses links), changed
files are written fresh, and the new `.opgen/` record is written last. Only then is the copy swapped with
the live dir, in one `renameat2(RENAME_EXCHANGE)` call where Linux offers it (else three renames with
SIGINT held off). Until that swap the live tree and its record are untouched, so a failing render, an
exception or a Ctrl-C while staging leaves everything as it was; a failure between the swaps of several
ops swaps the earlier ones back. Writing changed files in place one by one (temp name + rename each) would
keep the dir's inode but is not all-or-nothing: a crash halfway leaves some files new and the record old,
and the next regen would then merge against the wrong base.

The cost: the op dir itself is a new directory afterwards (a shell sitting in it needs `cd .`), and a run
that changes nothing must not swap at all — the caller skips those.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import FrameType

from ..errors import OpgenError
from ..record import RECORD_DIR
from ..write import STAGING_PREFIX, exchange_dirs, safe_relative


@dataclass(frozen=True)
class TreeChange:
    op_dir: Path
    writes: Mapping[str, bytes]  # files created or replaced (`.rej` files included), by op dir relative path
    removes: frozenset[str]
    record: Mapping[str, bytes]  # the complete new `.opgen/` tree, keys start with `.opgen/`


def apply_changes(changes: Sequence[TreeChange]) -> None:
    """Stage every op, then swap each into place; any failure leaves every op dir as it was."""
    holders: list[Path] = []
    made_parents: list[Path] = []
    done = keep_holders = False
    try:
        staged = []
        for change in changes:
            made_parents.extend(_make_parents(change.op_dir.parent))
            holder = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=change.op_dir.parent))
            holders.append(holder)
            stage = holder / change.op_dir.name
            _build_stage(change, stage)
            staged.append((stage, change.op_dir, change.op_dir.exists()))
        with _signals_held():
            swapped: list[tuple[Path, Path, bool]] = []
            try:
                for stage, op_dir, existed in staged:
                    _swap(stage, op_dir, existed)
                    swapped.append((stage, op_dir, existed))
            except BaseException:
                try:
                    for stage, op_dir, existed in reversed(swapped):
                        _unswap(stage, op_dir, existed)
                except BaseException as undo_error:
                    keep_holders = True
                    kept = ", ".join(map(str, holders))
                    message = f"regen failed and could not be undone; your previous trees are in {kept}"
                    raise OpgenError(message) from undo_error
                raise
        done = True
    finally:
        with _signals_held():  # a Ctrl-C here would strand a staging dir beside the op
            if not keep_holders:
                for holder in holders:
                    shutil.rmtree(holder, ignore_errors=True)
            if not done:
                for parent in reversed(made_parents):
                    with contextlib.suppress(OSError):
                        parent.rmdir()


def _make_parents(parent: Path) -> list[Path]:
    """Create the missing ancestors of a new op dir, returning them so a failed run can take them back."""
    missing = []
    while not parent.exists():
        missing.append(parent)
        parent = parent.parent
    for path in reversed(missing):
        path.mkdir()
    return list(reversed(missing))


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
    for rel, data in change.record.items():
        _write_file(stage / safe_relative(rel), data, None)
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


def _swap(stage: Path, op_dir: Path, existed: bool) -> None:
    if existed:
        exchange_dirs(stage, op_dir)
    else:
        os.rename(stage, op_dir)


def _unswap(stage: Path, op_dir: Path, existed: bool) -> None:
    if existed:
        exchange_dirs(stage, op_dir)
    else:
        os.rename(op_dir, stage)




@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl-C (or SIGTERM) during the swaps is delivered after them, so it cannot split one op's swap."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[signal.Signals] = []

    def hold(signum: int, _frame: FrameType | None) -> None:
        caught.append(signal.Signals(signum))

    previous = {sig: signal.signal(sig, hold) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for sig in caught:
            signal.raise_signal(sig)
