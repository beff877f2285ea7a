"""The whole flow for a set of specs: load → plan → render; then write each tree with its record, or compare."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import OpgenError
from .plan import RenderPlan, build_plan
from .record import read_manifest, record_files, record_root, same_dir
from .render import render_trees
from .spec.load import LoadedSpec, load_spec
from .write import Replacement, check_target, locked, remove_stale_staging_under, replace_all, tree


@dataclass(frozen=True)
class RenderedOp:
    plan: RenderPlan
    files: dict[str, bytes]  # op dir relative path -> bytes
    spec_path: Path
    spec_text: str
    license_file: tuple[str, str] | None = None  # the spec's license_header_file (relative path) and its text
    license_blocks: dict[str, str] | None = None  # what license_header_from copied, per comment style

    def record_dir(self, record_dir: Path | None) -> Path:
        """This op's record: `<record root>/<rel_dir>`."""
        return record_root(self.spec_path, record_dir) / self.plan.rel_dir

    def record(self, op_dir: Path, record: Path) -> dict[str, bytes]:
        return record_files(self.plan, self.spec_text, self.files, op_dir=op_dir, record=record,
                            license_file=self.license_file, license_blocks=self.license_blocks)


def render_op(loaded: LoadedSpec) -> RenderedOp:
    return render_loaded([loaded])[0]


def render_loaded(loaded: list[LoadedSpec]) -> list[RenderedOp]:
    plans = [build_plan(item.spec, item.path.name) for item in loaded]
    trees = render_trees(plans)
    rendered = zip(plans, loaded, trees, strict=True)
    return [RenderedOp(plan, files, item.path, item.text, _license_file(item), item.spec._license_blocks)
            for plan, item, files in rendered]


def _license_file(item: LoadedSpec) -> tuple[str, str] | None:
    """Kept in the record beside its spec copy, so the copy loads (check, regen) without the original."""
    rel, text = item.spec.license_header_file, item.spec.license_header
    return (Path(os.path.normpath(rel)).as_posix(), text + "\n") if rel is not None and text is not None else None


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


def lock_dirs(root: Path, ops: Sequence[RenderedOp], record_dir: Path | None) -> list[Path]:
    """What a run that writes these ops locks: the output root and every record root."""
    return [root, *{record_root(op.spec_path, record_dir) for op in ops}]


def op_replacements(root: Path, ops: Sequence[RenderedOp], *, force: bool,
                    record_dir: Path | None) -> list[Replacement]:
    """Each op dir and its record, as targets of one all-or-nothing write."""
    out = []
    remove_stale_staging_under(root)
    for op in ops:
        op_dir = check_target(root, op.plan.rel_dir, force=True)
        refusal = None if force else (
            f"{op_dir} already exists; use `opgen regen` to update it keeping your edits, or --force to replace it")
        record = op.record_dir(record_dir)
        check_record_place(root, op_dir, record)
        out.append(Replacement(op_dir, tree(op.files), refusal))
        out.append(Replacement(record, tree(op.record(op_dir, record))))
    return out


def check_record_place(root: Path, op_dir: Path, record: Path) -> None:
    """A record never lies inside the output root (ops-nn's checks reject foreign files there), and one record
    describes one op dir: a second output root sharing the record dir would silently take it over."""
    if record.resolve().is_relative_to(root.resolve()):
        raise OpgenError(f"the record {record} would be inside the output root {root}: pass a --record-dir "
                         "outside it (default: .opgen/ beside the spec)")
    manifest = read_manifest(record)
    if manifest is not None and manifest.op_dir is not None:
        first = Path(os.path.normpath(record / manifest.op_dir))
        if first.is_dir() and not same_dir(first, op_dir):
            raise OpgenError(f"the record {record} belongs to {first}, generated into another output root; give "
                             f"this output root a record dir of its own with --record-dir")


def write_ops(root: Path, ops: Sequence[RenderedOp], *, force: bool, record_dir: Path | None = None) -> list[Path]:
    """Write every op dir and its record, all or nothing; existence is decided under the lock."""
    for op in ops:
        check_target(root, op.plan.rel_dir, force=force)  # fail before taking any lock
    with locked(lock_dirs(root, ops, record_dir)):
        replace_all(op_replacements(root, ops, force=force, record_dir=record_dir))
    return [root / op.plan.rel_dir for op in ops]


def differences(root: Path, op: RenderedOp) -> list[str]:
    """Paths (relative to root) where the tree on disk differs byte for byte from what the spec renders."""
    op_dir = root / op.plan.rel_dir
    found = []
    on_disk = {p.relative_to(op_dir).as_posix() for p in op_dir.rglob("*") if p.is_file()} if op_dir.is_dir() else set()
    for rel, data in op.files.items():
        path = op_dir / rel
        if not path.is_file() or path.read_bytes() != data:
            found.append(f"{op.plan.rel_dir}/{rel}")
    found.extend(f"{op.plan.rel_dir}/{rel}" for rel in sorted(on_disk - set(op.files)))
    return found
