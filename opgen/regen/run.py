"""One regen from specs to decisions (`plan_regen`, writes nothing) and from decisions to disk (`apply_regen`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import OpgenError
from ..generate import RenderedOp, render_specs
from ..record import MANIFEST, RECORD_DIR
from ..write import check_target
from .apply import TreeChange, apply_changes
from .merge import ConflictStyle
from .plan import ATTENTION, FileDecision, plan_files
from .state import read_state


@dataclass(frozen=True)
class OpRegen:
    rel_dir: str
    op_dir: Path
    created: bool  # the op dir did not exist: written like `opgen gen`
    unrecorded: bool  # merged into a dir without a usable record (`--force`)
    decisions: tuple[FileDecision, ...]
    record: dict[str, bytes]  # the new `.opgen/` files
    record_changed: bool

    @property
    def attention(self) -> list[FileDecision]:
        return [d for d in self.decisions if d.action in ATTENTION]

    @property
    def changes_disk(self) -> bool:
        """False when the render, the record and the files all agree: then not one file is rewritten."""
        return self.created or self.record_changed or any(d.writes or d.removes or d.reject for d in self.decisions)

    def tree_change(self) -> TreeChange:
        writes = {d.path: d.result for d in self.decisions if d.writes and d.result is not None}
        writes.update({d.reject_path: d.reject for d in self.decisions if d.reject_path and d.reject is not None})
        removes = frozenset(d.path for d in self.decisions if d.removes)
        return TreeChange(self.op_dir, writes, removes, self.record)


def plan_regen(specs: list[Path], root: Path, *, style: ConflictStyle, force: bool) -> list[OpRegen]:
    """Render every spec and decide every file; all specs are validated before any op is looked at."""
    return [_plan_op(op, root, style=style, force=force) for op in render_specs(specs)]


def apply_regen(plans: list[OpRegen]) -> None:
    """All ops or none: `.opgen/` is replaced together with the files, so the record always describes them."""
    apply_changes([plan.tree_change() for plan in plans if plan.changes_disk])


def _plan_op(op: RenderedOp, root: Path, *, style: ConflictStyle, force: bool) -> OpRegen:
    op_dir = check_target(root, op.plan.rel_dir, force=True)
    record = {p: d for p, d in op.files.items() if p.startswith(f"{RECORD_DIR}/")}
    new = {p: d for p, d in op.files.items() if p not in record}
    state = read_state(op_dir, op.plan.name, new)
    if not state.exists and not force:
        _refuse_moved(root, op_dir, op.plan.name)
    if state.exists and state.base is None and not force:
        raise OpgenError(
            f"{op_dir} {state.problem}; regen will not overwrite it. Pass --force to merge the render into it "
            "anyway (every file that differs becomes a conflict, nothing is removed), or move it away and use "
            "`opgen gen`"
        )
    decisions = plan_files(state.base, state.user, new, present=state.present, style=style)
    return OpRegen(
        rel_dir=op.plan.rel_dir,
        op_dir=op_dir,
        created=not state.exists,
        unrecorded=state.exists and state.base is None,
        decisions=tuple(decisions),
        record=record,
        record_changed=state.record != record,
    )


def _refuse_moved(root: Path, op_dir: Path, name: str) -> None:
    """A spec whose category or `experimental` changed points at a new dir; regenerating there would leave
    the edited tree behind unnoticed, so name the old one instead."""
    for manifest in [*root.glob(f"*/{name}/{MANIFEST}"), *root.glob(f"experimental/*/{name}/{MANIFEST}")]:
        old = manifest.parent.parent
        if old != op_dir:
            raise OpgenError(
                f"op {name} was generated at {old}, and the spec now puts it at {op_dir}; move the dir there "
                "first (`git mv` or `mv`) so regen keeps your edits, or pass --force to generate a fresh copy"
            )
