"""Put rendered trees in place all at once: every op renders into a staging dir first, and a target
only changes by a rename, so a failure or an interrupt leaves the output root as it was."""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from .errors import OpgenError

STAGING_PREFIX = ".opgen-staging-"


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


def write_trees(root: Path, trees: Mapping[str, Mapping[str, bytes]], *, force: bool) -> list[Path]:
    """Write each op dir (rel_dir -> files) under root; all staged before any is moved into place."""
    targets = {rel: check_target(root, rel, force=force) for rel in trees}
    root.mkdir(parents=True, exist_ok=True)
    staged: dict[str, Path] = {}
    try:
        for rel, files in trees.items():
            staged[rel] = _stage(root, files)
        for rel, stage in staged.items():
            _swap_in(stage, targets[rel])
    finally:
        for stage in staged.values():
            shutil.rmtree(stage.parent, ignore_errors=True)
    return list(targets.values())


def _stage(root: Path, files: Mapping[str, bytes]) -> Path:
    holder = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=root))
    stage = holder / "op"
    stage.mkdir()
    for rel, data in files.items():
        path = stage / safe_relative(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return stage


def _swap_in(stage: Path, target: Path) -> None:
    """The new op dir takes the old one's place in one exchange; the old one stays in staging, removed after."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        exchange_dirs(stage, target)
    else:
        os.replace(stage, target)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def exchange_dirs(a: Path, b: Path) -> None:
    """Swap two directories atomically (Linux renameat2), else with three renames that undo themselves."""
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
