"""Put new op dirs, records and specs in place all at once.

Every target (a dir or a file) is built in a staging dir beside it first; a target only changes by a rename
(or an atomic exchange with its old self), all targets under one lock, with Ctrl-C held off while they swap.
A failure, a full disk or an interrupt therefore leaves every target as it was, and a target swapped before a
later one failed is swapped back.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import fcntl
import os
import secrets
import shutil
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import FrameType
from typing import Any

from .errors import OpgenError

STAGING_PREFIX = ".opgen-staging-"
# What this process has put in place so far; the Ctrl-C message of the CLI lists it.
CHANGED: list[Path] = []


def safe_relative(path: str) -> PurePosixPath:
    """A path that stays inside its root: relative, no `..`, no empty parts."""
    pure = PurePosixPath(path)
    if pure.is_absolute() or not pure.parts or any(part in ("", ".", "..") for part in pure.parts):
        raise OpgenError(f"refusing to write {path!r}: not a plain relative path")
    return pure


def check_target(root: Path, rel_dir: str, *, force: bool) -> Path:
    """The op dir under root; refuse an existing one unless forced, and any symlink that leads out."""
    target = root / safe_relative(rel_dir)
    root_real = root.resolve()
    for parent in [target, *target.parents]:
        if parent == root.parent:
            break
        if parent.is_symlink():
            raise OpgenError(f"{parent} is a symlink; opgen does not write through links", where=str(root))
    if not target.resolve().is_relative_to(root_real):
        raise OpgenError(f"{rel_dir} resolves outside the output root", where=str(root))
    if target.exists() and not force:
        raise OpgenError(
            f"{target} already exists; use `opgen regen` to update it keeping your edits, or --force to replace it"
        )
    return target


@dataclass(frozen=True)
class Replacement:
    """One target and how to build its new version at a given (staging) path."""

    target: Path
    build: Callable[[Path], None]
    refuse_existing: str | None = None  # the message when the target exists and must not be replaced


def tree(files: Mapping[str, bytes]) -> Callable[[Path], None]:
    """A builder writing the files (relative POSIX path -> bytes) into a new dir."""

    def build(stage: Path) -> None:
        stage.mkdir()
        for rel, data in files.items():
            path = stage / safe_relative(rel)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)

    return build


def single_file(data: bytes) -> Callable[[Path], None]:
    """A builder writing one file and syncing it to disk, so the rename that puts it in place never exposes
    a file whose bytes are still only in memory (a crash then leaves the old file, not an empty one)."""

    def build(stage: Path) -> None:
        fd = os.open(stage, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)

    return build


def write_file(target: Path, data: bytes, *, refuse_existing: str | None = None) -> None:
    """Put one file in place whole or not at all: written beside it, synced, then renamed over it; a full disk
    or an interrupt leaves the old file (or none) as it was. `refuse_existing`: the message when it exists."""
    if os.path.lexists(target) and not target.is_symlink() and not target.is_file():
        raise OpgenError(f"{target} is not a regular file; name a file to write")
    if target.is_symlink():
        raise OpgenError(f"{target} is a symlink; opgen does not write through links, name the file itself")
    with locked([target.parent]):
        replace_all([Replacement(target, single_file(data), refuse_existing)])


def write_trees(root: Path, trees: Mapping[str, Mapping[str, bytes]], *, force: bool) -> list[Path]:
    """Op dirs only (rel_dir -> files) under root, all or nothing, under the root's lock; no record
    (`generate.write_ops` writes an op with its record)."""
    with locked([root]):
        targets = {rel: check_target(root, rel, force=force) for rel in trees}
        replace_all([Replacement(targets[rel], tree(files)) for rel, files in trees.items()])
    return list(targets.values())


def replace_all(replacements: Sequence[Replacement]) -> None:
    """Stage every target, then swap each into place; any failure leaves every target as it was."""
    holders: list[Path] = []
    made_parents: list[Path] = []
    done = keep_holders = False
    try:
        for item in replacements:
            if item.refuse_existing and os.path.lexists(item.target):
                raise OpgenError(item.refuse_existing)
        staged = []
        for item in replacements:
            made_parents.extend(_make_parents(item.target.parent))
            remove_stale_staging(item.target.parent)
            holder = item.target.parent / f"{STAGING_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
            holders.append(holder)  # registered before it exists: whatever happens next, it is removed
            holder.mkdir()
            stage = holder / item.target.name
            item.build(stage)
            staged.append((stage, item.target, os.path.lexists(item.target)))
        with signals_held():
            swapped: list[tuple[Path, Path, bool]] = []
            try:
                for stage, target, existed in staged:
                    _swap(stage, target, existed)
                    swapped.append((stage, target, existed))
            except BaseException:
                try:
                    for stage, target, existed in reversed(swapped):
                        _unswap(stage, target, existed)
                except BaseException as undo_error:
                    keep_holders = True
                    kept = ", ".join(map(str, holders))
                    raise OpgenError(f"writing failed and could not be undone; the previous versions are in {kept}"
                                     ) from undo_error
                raise
            CHANGED.extend(item.target for item in replacements)
        done = True
    finally:
        with signals_held():  # a Ctrl-C here would strand a staging dir beside the target
            if not keep_holders:
                for holder in holders:
                    shutil.rmtree(holder, ignore_errors=True)
            if not done:
                for parent in reversed(made_parents):
                    with contextlib.suppress(OSError):
                        parent.rmdir()


def remove_stale_staging(parent: Path) -> None:
    """Staging dirs left by a process that was killed (SIGKILL, power loss): their owner is gone."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(parent):
            if entry.name.startswith(STAGING_PREFIX) and not owner_alive(entry.name[len(STAGING_PREFIX):]):
                shutil.rmtree(entry.path, ignore_errors=True)


def remove_stale_staging_under(root: Path, depth: int = 3) -> None:
    """Every killed run's staging dirs in an output root (op dirs sit at most `depth` levels down,
    `experimental/<category>/<op>`), not only those beside the op now written."""
    level = [root]
    for _ in range(depth):
        for directory in level:
            remove_stale_staging(directory)
        level = [Path(e.path) for d in level for e in _subdirs(d)]


def _subdirs(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as entries:
            return [e for e in entries if e.is_dir(follow_symlinks=False) and not e.name.startswith(".")]
    except OSError:
        return []


def owner_alive(pid_and_rest: str) -> bool:
    """`<pid>-...`: whether process pid still runs (a name without a pid counts as alive: not ours to judge)."""
    pid_text = pid_and_rest.split("-", 1)[0]
    if not pid_text.isdigit():
        return True
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _make_parents(parent: Path) -> list[Path]:
    """Create the missing ancestors of a new target, returning them so a failed run can take them back."""
    missing = []
    while not parent.exists():
        missing.append(parent)
        parent = parent.parent
    made = []
    for path in reversed(missing):
        try:
            path.mkdir()
        except FileExistsError:  # another run made it meanwhile: it is there, and not ours to take back
            continue
        made.append(path)
    return made


def _swap(stage: Path, target: Path, existed: bool) -> None:
    if existed:
        exchange_dirs(stage, target)
    else:
        os.rename(stage, target)


def _unswap(stage: Path, target: Path, existed: bool) -> None:
    if existed:
        exchange_dirs(stage, target)
    else:
        os.rename(target, stage)


@contextlib.contextmanager
def locked(dirs: Iterable[Path]) -> Iterator[None]:
    """An exclusive lock on each dir (created if missing), so two opgen runs on one output root or record
    never both decide that a target is free: the second waits, then sees what the first wrote."""
    with contextlib.ExitStack() as stack:
        for directory in sorted({d.absolute() for d in dirs}):  # one order everywhere: no deadlock
            fd, made = _lock_dir(directory)
            stack.callback(os.close, fd)
            for path in made:
                stack.callback(_remove_if_empty, path)  # runs before the unlock above, deepest first
        yield


def _lock_dir(directory: Path) -> tuple[int, list[Path]]:
    """The locked dir's fd and the dirs made for it. Another run may remove an empty lock dir as it finishes,
    between our making and our opening it, or while we wait: then we lock the new one instead."""
    while True:
        made = _make_parents(directory)
        try:
            fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        except FileNotFoundError:
            continue
        fcntl.flock(fd, fcntl.LOCK_EX)
        with contextlib.suppress(FileNotFoundError):
            if os.stat(directory).st_ino == os.fstat(fd).st_ino:
                return fd, made
        os.close(fd)


def _remove_if_empty(directory: Path) -> None:
    """A dir made only to be locked goes again when nothing was written into it (nor into a dir below)."""
    with contextlib.suppress(OSError):
        directory.rmdir()


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C (or SIGTERM) is delivered after the block, so it cannot split a swap."""
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


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def exchange_dirs(a: Path, b: Path) -> None:
    """Swap two paths atomically (Linux renameat2), else with three renames that undo themselves."""
    if _renameat2 is not None:
        if _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
            return
        err = ctypes.get_errno()
        if err not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise OSError(err, os.strerror(err), str(b))
    aside = a.parent / f"{a.name}.swap"
    os.rename(b, aside)
    try:
        os.rename(a, b)
    except BaseException:
        os.rename(aside, b)
        raise
    try:
        os.rename(aside, a)
    except BaseException:
        os.rename(b, a)
        os.rename(aside, b)
        raise


def _load_renameat2() -> Any:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        function = libc.renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


_renameat2 = _load_renameat2()
