"""`opgen gen --check`: is each op dir up to date with its spec, hand edits allowed? Writes nothing.

The question pre-commit and CI ask. It is regen's planning without the write: the tree is up to date when a
regen would change no generated file and nothing needs a human; an edit the spec does not touch is fine,
a missing file, a spec change not yet regenerated, or a conflict left open is not.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..generate import RenderedOp
from ..write import check_target
from .plan import Action, plan_files
from .state import read_state

FINE = frozenset({Action.UNCHANGED, Action.KEEP})


@dataclass(frozen=True)
class Finding:
    path: str  # relative to the output root
    why: str


def stale_files(root: Path, op: RenderedOp, record_dir: Path | None) -> tuple[list[Finding], int]:
    """What is not up to date in one op dir, and how many generated files carry hand edits."""
    op_dir = check_target(root, op.plan.rel_dir, force=True)
    rel = op.plan.rel_dir
    if not op_dir.is_dir():
        return [Finding(rel, "not generated yet: run `opgen gen`")], 0
    record = op.record_dir(record_dir)
    state = read_state(op_dir, record, op.plan.name, op.files)
    if state.base is None:
        return [Finding(rel, f"{state.problem}: run `opgen regen --force` to merge the render into it")], 0
    found = []
    if state.legacy:
        found.append(Finding(rel, f"its record is inside the op dir ({state.record_dir}): run `opgen regen` to "
                                  f"move it to {record}"))
    decisions = plan_files(state.base, state.user, op.files, present=state.present)
    for decision in decisions:
        if decision.action not in FINE:
            found.append(Finding(f"{rel}/{decision.path}", _why(decision.action, state.pristine_path(decision.path))))
    edited = sum(1 for d in decisions if d.action is Action.KEEP)
    return found, edited


def _why(action: Action, pristine: Path) -> str:
    if action is Action.DELETED_KEPT:
        return f"missing from the tree: restore it from {pristine} (or from `opgen gen` into a scratch dir)"
    if action is Action.UNRESOLVED:
        return "an earlier regen's conflict is still open (<<<<<<< markers, or this .rej): resolve it"
    return "the spec changed it since the last render: run `opgen regen`"
