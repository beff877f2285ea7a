"""The whole flow for a set of specs: load → plan → render → record; the caller writes or compares."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import OpgenError
from .plan import RenderPlan, build_plan
from .record import with_record
from .render import render_trees
from .spec.load import LoadedSpec, load_spec


@dataclass(frozen=True)
class RenderedOp:
    plan: RenderPlan
    files: dict[str, bytes]  # op dir relative path -> bytes, `.opgen/` record included


def render_op(loaded: LoadedSpec) -> RenderedOp:
    return render_loaded([loaded])[0]


def render_loaded(loaded: list[LoadedSpec]) -> list[RenderedOp]:
    plans = [build_plan(item.spec, item.path.name) for item in loaded]
    trees = render_trees(plans)
    return [
        RenderedOp(plan, with_record(plan, item.text, tree))
        for plan, item, tree in zip(plans, loaded, trees, strict=True)
    ]


def render_specs(paths: list[Path]) -> list[RenderedOp]:
    """Every spec validated before any is rendered, so one bad spec stops the batch with no output."""
    loaded = [load_spec(path) for path in paths]
    seen: dict[str, Path] = {}
    for item in loaded:
        key = item.spec.snake_name
        if key in seen:
            raise OpgenError(f"{item.path} and {seen[key]} both define op {key!r}; give each op one spec")
        seen[key] = item.path
    return render_loaded(loaded)


def differences(root: Path, op: RenderedOp) -> list[str]:
    """Paths (relative to root) where the tree on disk differs from what the spec renders."""
    op_dir = root / op.plan.rel_dir
    found = []
    on_disk = {p.relative_to(op_dir).as_posix() for p in op_dir.rglob("*") if p.is_file()} if op_dir.is_dir() else set()
    for rel, data in op.files.items():
        path = op_dir / rel
        if not path.is_file() or path.read_bytes() != data:
            found.append(f"{op.plan.rel_dir}/{rel}")
    found.extend(f"{op.plan.rel_dir}/{rel}" for rel in sorted(on_disk - set(op.files)))
    return found
