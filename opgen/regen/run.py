"""One regen from specs to decisions (`plan_regen`, writes nothing) and from decisions to disk (`apply_regen`)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import OpgenError
from ..generate import RenderedOp, render_specs
from ..record import MANIFEST, RECORD_DIR, SPEC_COPY, read_manifest, record_root
from ..write import check_target, remove_stale_staging_under
from .apply import TreeChange, apply_changes
from .merge import ConflictStyle
from .plan import ATTENTION, Action, FileDecision, plan_files
from .state import read_state


@dataclass(frozen=True)
class OpRegen:
    rel_dir: str
    root: Path  # the output root
    op_dir: Path
    created: bool  # the op dir did not exist: written like `opgen gen`
    unrecorded: bool  # merged into a dir without a usable record (`--force`)
    decisions: tuple[FileDecision, ...]
    record_dir: Path  # where the new record goes
    record: dict[str, bytes]  # the new record's files
    record_changed: bool
    moved_from: Path | None = None  # an old in-dir record that this regen moves to record_dir

    @property
    def attention(self) -> list[FileDecision]:
        return [d for d in self.decisions if d.action in ATTENTION]

    @property
    def op_dir_changes(self) -> bool:
        return self.created or self.moved_from is not None or any(
            d.writes or d.removes or d.reject for d in self.decisions)

    @property
    def changes_disk(self) -> bool:
        """False when the render, the record and the files all agree: then not one file is rewritten."""
        return self.op_dir_changes or self.record_changed

    def tree_change(self) -> TreeChange:
        writes = {d.path: d.result for d in self.decisions if d.writes and d.result is not None}
        writes.update({d.reject_path: d.reject for d in self.decisions if d.reject_path and d.reject is not None})
        removes = frozenset(d.path for d in self.decisions if d.removes)
        return TreeChange(self.op_dir, writes, removes, self.record_dir, self.record, self.op_dir_changes)


def record_roots(specs: list[Path], record_dir: Path | None) -> list[Path]:
    """The record roots a regen of these specs reads and writes (to lock them)."""
    return [record_root(spec, record_dir) for spec in specs]


def plan_regen(specs: list[Path], root: Path, *, style: ConflictStyle, force: bool,
               record_dir: Path | None = None) -> list[OpRegen]:
    """Render every spec and decide every file; all specs are validated before any op is looked at."""
    return [_plan_op(op, root, style=style, force=force, record_dir=record_dir) for op in render_specs(specs)]


def apply_regen(plans: list[OpRegen]) -> None:
    """All ops or none: each record is replaced together with its files, so it always describes them."""
    for plan in plans:
        remove_stale_staging_under(plan.root)
    apply_changes([plan.tree_change() for plan in plans if plan.changes_disk])


def _plan_op(op: RenderedOp, root: Path, *, style: ConflictStyle, force: bool, record_dir: Path | None) -> OpRegen:
    op_dir = check_target(root, op.plan.rel_dir, force=True)
    record = op.record_dir(record_dir)
    _check_record_is_for(record, op_dir, force=force)
    new = op.files
    state = read_state(op_dir, record, op.plan.name, new)
    if not state.exists and not force:
        _refuse_moved(root, record_root(op.spec_path, record_dir), op_dir, op.plan.name)
    if state.exists and state.base is None and not force:
        raise OpgenError(
            f"{op_dir} {state.problem}; regen will not overwrite it. Pass --force to merge the render into it "
            "anyway (every file that differs becomes a conflict, nothing is removed), or move it away and use "
            "`opgen gen`"
        )
    decisions = plan_files(state.base, state.user, new, present=state.present, style=style)
    new_record = op.record(op_dir, record)
    still_open = [d.path for d in decisions if d.action is Action.UNRESOLVED]
    if still_open and state.base is not None and state.record.get(SPEC_COPY) != new_record.get(SPEC_COPY):
        raise ConflictsOpen(
            f"{op_dir}: the spec changed while an earlier regen's conflicts are still open in "
            f"{', '.join(still_open)}; resolve them (remove the <<<<<<< markers, delete the .rej files) and run "
            "regen again; nothing was written")
    return OpRegen(
        rel_dir=op.plan.rel_dir,
        root=root,
        op_dir=op_dir,
        created=not state.exists,
        unrecorded=state.exists and state.base is None,
        decisions=tuple(decisions),
        record_dir=record,
        record=new_record,
        record_changed=state.legacy or state.record != new_record,
        moved_from=state.record_dir if state.legacy else None,
    )


class ConflictsOpen(OpgenError):
    """A spec change on top of unresolved conflicts: refused (exit 1) until they are resolved."""


def _check_record_is_for(record: Path, op_dir: Path, *, force: bool) -> None:
    """A record beside the spec describes one op dir; regenerating another from it would merge against
    the wrong base (the same spec generated under two output roots)."""
    manifest = read_manifest(record)
    if manifest is None or manifest.op_dir is None or force:
        return
    described = _absolute(record / manifest.op_dir)
    if not _same(described, op_dir):
        raise OpgenError(
            f"the record {record} describes the op dir {described}, not {op_dir}; regen that one, give this output "
            "root its own record with --record-dir DIR, or pass --force to merge into this dir against no record"
        )


def _absolute(path: Path) -> Path:
    return Path(os.path.normpath(path.absolute()))


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return _absolute(a) == _absolute(b)


def _refuse_moved(root: Path, records: Path, op_dir: Path, name: str) -> None:
    """A spec whose category or `experimental` changed points at a new dir; regenerating there would leave
    the edited tree behind unnoticed, so name the old one instead."""
    olds = []
    for path in [*records.glob(f"*/{name}/{MANIFEST}"), *records.glob(f"experimental/*/{name}/{MANIFEST}")]:
        manifest = read_manifest(path.parent)
        if manifest is not None and manifest.op_dir is not None:
            olds.append(_absolute(path.parent / manifest.op_dir))
    for pattern in (f"*/{name}/{RECORD_DIR}/{MANIFEST}", f"experimental/*/{name}/{RECORD_DIR}/{MANIFEST}"):
        olds.extend(_absolute(path.parent.parent) for path in root.glob(pattern))  # old in-dir records
    for old in olds:
        if old.is_dir() and not _same(old, op_dir):
            raise OpgenError(
                f"op {name} was generated at {old}, and the spec now puts it at {op_dir}; move the dir there "
                "first (`git mv` or `mv`) so regen keeps your edits, or pass --force to generate a fresh copy"
            )
