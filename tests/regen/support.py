"""Helpers for the regen tests: spec edits, user edits, tree snapshots, and the command on a Typer app of ours."""

from __future__ import annotations

import os
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import typer
from typer.testing import CliRunner, Result

from opgen.record import PRISTINE, find_record
from opgen.regen.command import regen

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
GELU_DIR = "experimental/activation/gelu_grad"
RELU_DIR = "activation/relu_grad_v2"
CONFLICT_BLOCK = re.compile(r"^<<<<<<< yours\n(.*?)^=======\n(.*?)^>>>>>>> opgen\n", re.S | re.M)


def without_bf16(text: str) -> str:
    edited = text.replace("[float32, float16, bfloat16]", "[float32, float16]")
    edited, tolerances = re.subn(r"^    bfloat16: \{rtol: .*\n", "", edited, flags=re.M)
    assert tolerances == 1
    return _changed(text, edited)


def without_ascend350(text: str) -> str:
    return _changed(text, text.replace("  - soc: ascend350\n    kernel: arch35_dag\n    aicore: {}\n", ""))


def dy_renamed_grad(text: str) -> str:
    return _changed(text, re.sub(r"\bdy\b", "grad", text))


def with_comment(text: str) -> str:
    return text + "# a comment: the spec text changes, the render does not\n"


def _changed(before: str, after: str) -> str:
    assert after != before, "the spec edit did not apply"
    return after


@dataclass(frozen=True)
class Edit:
    """A hand edit of a generated file (path relative to the output root): `old` must occur exactly once."""

    path: str
    old: str
    new: str

    def apply(self, root: Path) -> None:
        file = root / self.path
        text = file.read_text(encoding="utf-8")
        assert text.count(self.old) == 1, f"{self.old!r} is not unique in {self.path}"
        file.write_text(text.replace(self.old, self.new), encoding="utf-8")


def assert_edits_kept(root: Path, edits: list[Edit]) -> None:
    """Zero hand edits lost: each edited text is still in its file (inside 'yours' if it conflicted)."""
    for edit in edits:
        assert edit.new in (root / edit.path).read_text(encoding="utf-8"), f"edit lost in {edit.path}"


def record_of(op_dir: Path) -> Path:
    """The op dir's record, found by the op's path as `opgen check` finds it."""
    record = find_record(op_dir)
    assert record is not None, f"no record for {op_dir}"
    return record


def pristine(op_dir: Path) -> dict[str, bytes]:
    """The record's pristine files: after a regen, exactly the new render."""
    base = record_of(op_dir) / PRISTINE
    return {p.relative_to(base).as_posix(): p.read_bytes() for p in base.rglob("*") if p.is_file()}


def assert_render_plus_edits(root: Path, rel_dir: str, edits: list[Edit], *, skip: Collection[str] = ()) -> None:
    """Every generated file on disk is the new render with the user's edits applied, nothing else."""
    op_dir = root / rel_dir
    mine = {e.path.removeprefix(f"{rel_dir}/"): e for e in edits}
    for path, data in pristine(op_dir).items():
        if path in skip:
            continue
        expected = data
        if path in mine:
            edit = mine[path]
            assert data.decode().count(edit.old) == 1, f"the new render of {path} moved the edited text"
            expected = data.decode().replace(edit.old, edit.new).encode()
        assert (op_dir / path).read_bytes() == expected, path


Snapshot = dict[str, tuple[object, ...]]


def snapshot(root: Path, *, dir_mtimes: bool = True) -> Snapshot:
    """Every path under root: files by (inode, mtime_ns, bytes), links by target, dirs by inode (and mtime):
    equal snapshots mean no file was rewritten, moved or touched."""
    out: Snapshot = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = ("link", os.readlink(path))
        elif path.is_dir():
            out[rel] = ("dir", st.st_ino, st.st_mtime_ns if dir_mtimes else None)
        else:
            out[rel] = ("file", st.st_ino, st.st_mtime_ns, path.read_bytes())
    return out


def staging_leftovers(root: Path) -> list[Path]:
    return [p for p in root.rglob(".opgen-staging-*")]


def invoke(*args: str | Path) -> Result:
    """`opgen regen ARGS` through a Typer app of our own (the cli.py wiring is not ours)."""
    app = typer.Typer()
    app.command()(regen)
    return CliRunner().invoke(app, [str(a) for a in args])
