"""What is on disk for one op: its record (pristine = BASE) and the user's files (YOURS)."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import OpgenError
from ..record import MANIFEST, PRISTINE, RECORD_DIR, Manifest, legacy_record, sha256
from ..write import safe_relative


@dataclass(frozen=True)
class OpDirState:
    op_dir: Path
    exists: bool
    base: dict[str, bytes] | None  # pristine bytes by path; None: no usable record
    problem: str | None  # why base is None, for the refusal message
    record_dir: Path  # where the record was read from (an old in-dir record: `<op dir>/.opgen`)
    record: dict[str, bytes]  # the record's files as they are (to skip a regen that changes nothing)
    user: dict[str, bytes]  # regular files at paths opgen generated before or generates now
    present: frozenset[str]  # every path in the op dir but an old in-dir record, to pick free `.rej` names
    legacy: bool  # the record is an old one inside the op dir: regen moves it out

    def pristine_path(self, path: str) -> Path:
        return self.record_dir / PRISTINE / path


def read_state(op_dir: Path, record_dir: Path, op_name: str, generated_now: Iterable[str]) -> OpDirState:
    """Read only what regen needs: a big untracked build dir inside the op dir is listed, never read.

    The record is read from record_dir; when that has none and the op dir holds an old in-dir record, that one."""
    if not op_dir.is_dir():
        if op_dir.exists() or op_dir.is_symlink():
            raise OpgenError(f"{op_dir} is not a directory")
        return OpDirState(op_dir, False, None, None, record_dir, {}, {}, frozenset(), False)
    dirs, regular, other = _listing(op_dir)
    legacy = not (record_dir / MANIFEST).is_file() and (legacy_record(op_dir) / MANIFEST).is_file()
    source = legacy_record(op_dir) if legacy else record_dir
    record = _read_record(source)
    base, problem = _pristine(record, op_name, source)
    generated = set(generated_now)
    wanted = generated | set(base or ())
    for path in sorted(generated - set(base or ())):
        _check_placeable(op_dir, path, dirs | other, regular | other)
    user = {p: (op_dir / p).read_bytes() for p in sorted(wanted & regular)}
    present = frozenset(p for p in dirs | regular | other if p != RECORD_DIR and not p.startswith(f"{RECORD_DIR}/"))
    return OpDirState(op_dir, True, base, problem, source, record, user, present, legacy)


def _read_record(record_dir: Path) -> dict[str, bytes]:
    if not record_dir.is_dir():
        return {}
    _, regular, _ = _listing(record_dir)
    return {p: (record_dir / p).read_bytes() for p in sorted(regular)}


def _listing(op_dir: Path) -> tuple[set[str], set[str], set[str]]:
    """(directories, regular files, everything else: symlinks, fifos...) by POSIX path; links not followed."""
    dirs: set[str] = set()
    regular: set[str] = set()
    other: set[str] = set()
    for top, dirnames, filenames in os.walk(op_dir):
        rel_top = Path(top).relative_to(op_dir).as_posix()
        prefix = "" if rel_top == "." else f"{rel_top}/"
        for name in dirnames + filenames:
            mode = os.lstat(os.path.join(top, name)).st_mode
            path = prefix + name
            (dirs if stat.S_ISDIR(mode) else regular if stat.S_ISREG(mode) else other).add(path)
    return dirs, regular, other


def _check_placeable(op_dir: Path, path: str, taken: set[str], not_folders: set[str]) -> None:
    """A file opgen adds must not land on a directory, a link or a fifo, nor below a file or a link: those
    are the user's doing, and finding out before anything is written keeps the run all-or-nothing.
    (A path opgen generated before that is no longer a regular file counts as deleted by the user.)"""
    if path in taken:
        raise OpgenError(f"{op_dir / path} is not a regular file; opgen will not replace it, move it away first")
    parts = path.split("/")
    for i in range(1, len(parts)):
        parent = "/".join(parts[:i])
        if parent in not_folders:
            raise OpgenError(f"{op_dir / parent} is not a folder but opgen needs one there; move it away first")


def _pristine(record: dict[str, bytes], op_name: str, where: Path) -> tuple[dict[str, bytes] | None, str | None]:
    """The pristine files, checked against the manifest: a merge against a wrong base would silently
    undo edits, so a damaged record is as good as none."""
    raw = record.get(MANIFEST)
    if raw is None:
        return None, f"has no record ({where / MANIFEST} not found: not made by opgen, or the record was deleted)"
    try:
        manifest = Manifest.from_json(json.loads(raw))
    except (ValueError, KeyError, TypeError) as error:
        return None, f"has a damaged record ({where / MANIFEST}: {error})"
    except RecursionError:
        return None, f"has a damaged record ({where / MANIFEST}: nested too deep to be a manifest)"
    if manifest.name != op_name:
        raise OpgenError(f"the record {where} says this dir holds op {manifest.name!r}, not {op_name!r}")
    base: dict[str, bytes] = {}
    for path, digest in manifest.files.items():
        try:
            safe_relative(path)
        except OpgenError:
            return None, f"has a damaged record ({where / MANIFEST}: bad path {path!r})"
        if path.split("/")[0] == RECORD_DIR:
            return None, f"has a damaged record ({where / MANIFEST} lists a record file {path!r})"
        data = record.get(f"{PRISTINE}/{path}")
        if data is None or sha256(data) != digest:
            return None, f"has a damaged record: {where / PRISTINE / path} is missing or does not match the manifest"
        base[path] = data
    return base, None
