"""Per-file decisions of a regen, computed in memory from BASE (pristine), YOURS (disk) and NEW (render).

Pure: nothing here touches the disk, so `--dry-run` shows exactly what a real run would do.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from enum import Enum

from .merge import END, START, ConflictStyle, merge_file


class Action(str, Enum):
    UNCHANGED = "unchanged"  # render and file as recorded: nothing to do
    REPLACE = "replace"  # you never edited it: take the new render
    KEEP = "keep"  # the render did not change (or already matches): your file stays as is
    MERGE = "merge"  # both changed, merged cleanly
    CONFLICT = "conflict"  # both changed the same lines: markers in the file, or a `.rej` beside it
    ADD = "add"  # the spec now generates this file
    REMOVE = "remove"  # the spec no longer generates it and you never edited it
    KEPT_EDITED = "kept-edited"  # the spec no longer generates it, but you edited it: kept, no longer tracked
    DELETED_KEPT = "deleted-by-you"  # you deleted it and the render did not change it: stays deleted
    DELETED_CHANGED = "deleted-changed"  # you deleted it but the spec changed it: stays deleted, flagged
    GONE = "gone"  # you deleted it and the spec dropped it too
    UNRESOLVED = "unresolved"  # an earlier regen's conflict is still open: markers in the file, or its `.rej`


# Outcomes the user has to look at: the exit code is 1 when any occurs. Both "modify/delete" cases count,
# as in git: one side wanted the file, the other did not, and opgen cannot know which is right.
# A conflict an earlier regen reported stays open (exit 1) until its markers or its `.rej` are gone.
ATTENTION = frozenset({Action.CONFLICT, Action.KEPT_EDITED, Action.DELETED_CHANGED, Action.UNRESOLVED})
_MARKERS = (re.compile(rb"^" + re.escape(START) + rb"\r?$", re.M), re.compile(rb"^" + re.escape(END) + rb"\r?$", re.M))


@dataclass(frozen=True)
class FileDecision:
    path: str
    action: Action
    base: bytes | None
    user: bytes | None
    new: bytes | None
    result: bytes | None  # the file after the regen; None: absent
    conflicts: int = 0
    reject_path: str | None = None  # `--conflict rej`: where the spec's rejected hunks go
    reject: bytes | None = None

    @property
    def writes(self) -> bool:
        return self.result is not None and self.result != self.user

    @property
    def removes(self) -> bool:
        return self.result is None and self.user is not None


def plan_files(
    base: Mapping[str, bytes] | None,
    user: Mapping[str, bytes],
    new: Mapping[str, bytes],
    *,
    present: Collection[str] = (),
    style: ConflictStyle = "inline",
) -> list[FileDecision]:
    """One decision per path opgen generated before or generates now, sorted by path.

    `base is None` (no record, `--force`): nothing is known to be pristine, so every file that differs from
    the render is a conflict against an empty base; nothing is removed. Files opgen never generated are not
    looked at. `present` lists every path on disk, so a `.rej` never overwrites a file.
    """
    known = base or {}
    taken = set(present)
    decisions = []
    for path in sorted(set(known) | set(new)):
        if _has_markers(user.get(path)) and new.get(path) != known.get(path):
            # still open from an earlier regen: merging the spec's change into it would nest the markers
            decisions.append(FileDecision(path, Action.UNRESOLVED, known.get(path), user.get(path), new.get(path),
                                          user.get(path)))
            continue
        decision = _decide(path, known.get(path), user.get(path), new.get(path), style, taken)
        if decision.reject_path:
            taken.add(decision.reject_path)
        if decision.action is not Action.CONFLICT and _has_markers(decision.result):
            decision = replace(decision, action=Action.UNRESOLVED)
        decisions.append(decision)
    decisions.extend(_open_rejects(set(known) | set(new), present))
    return sorted(decisions, key=lambda d: d.path)


def _has_markers(data: bytes | None) -> bool:
    return data is not None and all(marker.search(data) for marker in _MARKERS)


def _open_rejects(generated: set[str], present: Collection[str]) -> list[FileDecision]:
    """`.rej` files beside generated files (`x.rej`, `x.1.rej`): an earlier conflict not yet settled."""
    found = []
    for path in sorted(present):
        match = re.fullmatch(r"(.+?)(\.\d+)?\.rej", path)
        if match and match.group(1) in generated:
            found.append(FileDecision(path, Action.UNRESOLVED, None, None, None, None))
    return found


def _decide(
    path: str, b: bytes | None, u: bytes | None, n: bytes | None, style: ConflictStyle, taken: set[str]
) -> FileDecision:
    def decided(action: Action, result: bytes | None) -> FileDecision:
        return FileDecision(path, action, b, u, n, result)

    if b is not None:
        if u is None:
            if n is None:
                return decided(Action.GONE, None)
            return decided(Action.DELETED_KEPT if n == b else Action.DELETED_CHANGED, None)
        if n is None:
            return decided(Action.REMOVE, None) if u == b else decided(Action.KEPT_EDITED, u)
        if u == b:
            return decided(Action.UNCHANGED, u) if n == b else decided(Action.REPLACE, n)
        if n in (b, u):
            return decided(Action.KEEP, u)
    else:
        assert n is not None, "paths come from the record or the render"
        if u is None:
            return decided(Action.ADD, n)
        if u == n:
            return decided(Action.UNCHANGED, u)
    assert u is not None and n is not None
    merged = merge_file(b or b"", u, n, style=style, path=path)
    if not merged.conflicts:
        return decided(Action.KEEP if merged.content == u else Action.MERGE, merged.content)
    reject_path = _free_name(f"{path}.rej", taken) if merged.reject is not None else None
    return FileDecision(path, Action.CONFLICT, b, u, n, merged.content, merged.conflicts, reject_path, merged.reject)


def _free_name(wanted: str, taken: set[str]) -> str:
    """`x.rej`, else `x.1.rej`...: an old `.rej` may hold notes of yours, so it is never overwritten."""
    stem, _, suffix = wanted.rpartition(".")
    name, i = wanted, 0
    while name in taken:
        i += 1
        name = f"{stem}.{i}.{suffix}"
    return name
