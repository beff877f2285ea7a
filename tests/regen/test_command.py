"""The `regen` command through CliRunner: dry run, diffs, refusals (exit 2), --force, new and moved op dirs."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from .support import (
    CONFLICT_BLOCK,
    GELU_DIR,
    RELU_DIR,
    Edit,
    assert_edits_kept,
    dy_renamed_grad,
    invoke,
    pristine,
    record_of,
    snapshot,
    without_ascend350,
    without_bf16,
)

Tree = Callable[[str], Path]
Spec = Callable[..., Path]
TILING_EDIT = Edit(f"{GELU_DIR}/op_host/gelu_grad_tiling.cpp", "TILE_ALIGN = 256;", "TILE_ALIGN = 512;")


def test_dry_run_writes_nothing_and_says_what_would_happen(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    TILING_EDIT.apply(root)
    (root / GELU_DIR / "tests/ut/op_host/arch22/test_gelu_grad_tiling.cpp").unlink()
    before = snapshot(root)

    result = invoke(spec("gelu", dy_renamed_grad), spec("relu", without_ascend350), "-o", root, "--dry-run")

    assert result.exit_code == 0, result.output
    assert snapshot(root) == before
    out = result.output
    assert "would regen experimental/activation/gelu_grad" in out and "dry run: nothing written" in out
    assert re.search(r"merge\s+op_host/gelu_grad_tiling.cpp", out)
    assert re.search(r"replace\s+op_host/gelu_grad_def.cpp", out)
    assert re.search(r"deleted-by-you\s+tests/ut/op_host/arch22/test_gelu_grad_tiling.cpp", out)
    assert re.search(r"remove\s+op_host/config/ascend350/relu_grad_v2_binary.json", out)
    assert "@@" not in out


def test_dry_run_diff_shows_the_changes(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    before = snapshot(root)

    result = invoke(spec("gelu", dy_renamed_grad), "-o", root, "--dry-run", "--diff")

    assert result.exit_code == 0, result.output
    assert snapshot(root) == before
    assert f"--- a/{GELU_DIR}/op_host/gelu_grad_def.cpp" in result.output
    assert '-        this->Input("dy")\n+        this->Input("grad")\n' in result.output


def test_dry_run_exit_code_announces_conflicts(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    Edit(f"{GELU_DIR}/op_host/gelu_grad_def.cpp", 'this->Input("dy")', 'this->Input("dy") // mine').apply(root)
    before = snapshot(root)
    result = invoke(spec("gelu", dy_renamed_grad), "-o", root, "--dry-run")
    assert result.exit_code == 1 and "conflict" in result.output
    assert snapshot(root) == before


def test_dir_without_record_is_refused(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    record = record_of(root / GELU_DIR)
    shutil.rmtree(record)
    before = snapshot(root)

    result = invoke(spec("gelu"), "-o", root)

    assert result.exit_code == 2
    assert f"has no record ({record / 'manifest.json'} not found" in result.output and "--force" in result.output
    assert snapshot(root) == before


def test_damaged_record_is_refused(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    (record_of(root / GELU_DIR) / "pristine/op_host/gelu_grad_def.cpp").write_text("// not what was rendered\n")
    before = snapshot(root)
    result = invoke(spec("gelu"), "-o", root)
    assert result.exit_code == 2 and "damaged record" in result.output
    assert snapshot(root) == before


def test_force_without_record_merges_against_nothing_and_loses_nothing(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    op = root / GELU_DIR
    shutil.rmtree(record_of(op))
    TILING_EDIT.apply(root)
    (op / "notes.txt").write_text("mine\n")
    (op / "README.md").unlink()
    untouched = snapshot(root)["experimental/activation/gelu_grad/op_kernel/gelu_grad.h"]

    result = invoke(spec("gelu"), "-o", root, "--force")

    assert result.exit_code == 1, result.output
    assert "empty base" in result.output
    assert re.search(r"conflict\s+experimental/activation/gelu_grad/op_host/gelu_grad_tiling.cpp", result.output)
    tiling = (op / "op_host/gelu_grad_tiling.cpp").read_text()
    assert tiling.count("<<<<<<< yours") == 1  # only the line that differs, not the whole file
    assert (op / "README.md").is_file()  # missing: added
    assert (op / "notes.txt").read_text() == "mine\n"
    assert snapshot(root)["experimental/activation/gelu_grad/op_kernel/gelu_grad.h"] == untouched
    assert_edits_kept(root, [TILING_EDIT])
    assert invoke(spec("gelu"), "-o", root).exit_code == 1  # recorded now, but the conflict is still open
    resolve(op / "op_host/gelu_grad_tiling.cpp")
    assert invoke(spec("gelu"), "-o", root).exit_code == 0  # plain regens from here on


def resolve(path: Path) -> None:
    """Settle every conflict block the way a user keeping their side would."""
    path.write_text(CONFLICT_BLOCK.sub(lambda m: m.group(1), path.read_text()))


def test_open_conflict_keeps_exit_1_until_resolved(tree: Tree, spec: Spec) -> None:
    """CI asking "does this need a human?" hears yes while <<<<<<< markers remain, not only on the first run."""
    root = tree("samples")
    def_cpp = root / GELU_DIR / "op_host/gelu_grad_def.cpp"
    Edit(f"{GELU_DIR}/op_host/gelu_grad_def.cpp", 'this->Input("dy")', 'this->Input("dy") // mine').apply(root)
    renamed = spec("gelu", dy_renamed_grad)
    assert invoke(renamed, "-o", root).exit_code == 1
    for extra in ((), ("--dry-run",)):
        again = invoke(renamed, "-o", root, *extra)
        assert again.exit_code == 1, again.output
        assert re.search(r"unresolved\s+experimental/activation/gelu_grad/op_host/gelu_grad_def.cpp\s+<<<<<<< markers",
                         again.output)
    resolve(def_cpp)
    settled = invoke(renamed, "-o", root)
    assert settled.exit_code == 0, settled.output
    assert "// mine" in def_cpp.read_text()


def test_open_rej_keeps_exit_1_until_deleted(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    Edit(f"{GELU_DIR}/op_host/gelu_grad_def.cpp", 'this->Input("dy")', 'this->Input("dy") // mine').apply(root)
    renamed = spec("gelu", dy_renamed_grad)
    assert invoke(renamed, "-o", root, "--conflict", "rej").exit_code == 1
    rej = root / GELU_DIR / "op_host/gelu_grad_def.cpp.rej"
    assert rej.is_file()
    again = invoke(renamed, "-o", root, "--dry-run")
    assert again.exit_code == 1 and "unresolved" in again.output and "gelu_grad_def.cpp.rej" in again.output
    rej.unlink()
    assert invoke(renamed, "-o", root).exit_code == 0


def test_missing_op_dir_is_generated(tmp_path: Path, spec: Spec) -> None:
    root = tmp_path / "fresh"
    result = invoke(spec("gelu"), "-o", root)
    assert result.exit_code == 0, result.output
    assert "new op dir" in result.output
    op = root / GELU_DIR
    assert {p: (op / p).read_bytes() for p in pristine(op)} == pristine(op)
    assert [p.name for p in root.iterdir()] == ["experimental"]


def test_moved_op_is_refused_naming_the_old_dir(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    before = snapshot(root)
    result = invoke(spec("gelu", lambda text: text.replace("experimental: true\n", "")), "-o", root)
    assert result.exit_code == 2
    assert "was generated at" in result.output and GELU_DIR in result.output
    assert snapshot(root) == before


def test_bad_spec_is_exit_2_and_nothing_written(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    before = snapshot(root)
    result = invoke(spec("gelu", lambda text: text.replace("op_type: GeluGrad", "op_type: [")), "-o", root)
    assert result.exit_code == 2 and "error:" in result.output
    assert snapshot(root) == before


def test_your_own_files_and_folders_are_left_alone(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    op = root / RELU_DIR
    (op / "build").mkdir()
    (op / "build/big.o").write_bytes(b"\0" * 1000)
    (op / "NOTES.md").write_text("mine\n")
    (op / "empty").mkdir()
    before = snapshot(root)

    result = invoke(spec("relu", without_ascend350), "-o", root)

    assert result.exit_code == 0, result.output
    after = snapshot(root)
    for rel in ("build/big.o", "NOTES.md"):  # the very same files (inode, mtime, bytes)
        assert after[f"{RELU_DIR}/{rel}"] == before[f"{RELU_DIR}/{rel}"]
    assert after[f"{RELU_DIR}/build"][2] == before[f"{RELU_DIR}/build"][2]  # folders are new, mtimes kept
    assert (op / "empty").is_dir()


def test_generated_path_taken_by_a_folder_is_refused(tree: Tree, spec: Spec) -> None:
    root = tree("relu_no350")
    (root / RELU_DIR / "op_host/config/ascend350/relu_grad_v2_binary.json").mkdir(parents=True)
    result = invoke(spec("relu"), "-o", root)
    assert result.exit_code == 2 and "not a regular file" in result.output


def _as_old_in_dir_record(root: Path, rel_dir: str) -> Path:
    """Turn an op's record into the layout of opgen 0.1: `<op dir>/.opgen/`, manifest without `op_dir`."""
    op = root / rel_dir
    record = record_of(op)
    manifest = json.loads((record / "manifest.json").read_text())
    del manifest["op_dir"]
    (record / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    shutil.move(record, op / ".opgen")
    return record


def test_old_in_dir_record_moves_out_keeping_edits(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    new_place = _as_old_in_dir_record(root, GELU_DIR)
    op = root / GELU_DIR
    TILING_EDIT.apply(root)

    result = invoke(spec("gelu", dy_renamed_grad), "-o", root)

    assert result.exit_code == 0, result.output
    assert f"moved the record out of the op dir: {op / '.opgen'} -> {new_place}" in result.output
    assert not (op / ".opgen").exists()  # the op dir can now be copied into ops-nn as it is
    assert record_of(op) == new_place
    assert_edits_kept(root, [TILING_EDIT])
    assert 'this->Input("grad")' in (op / "op_host/gelu_grad_def.cpp").read_text()
    assert invoke(spec("gelu", dy_renamed_grad), "-o", root).exit_code == 0


def test_old_in_dir_record_moves_out_even_when_nothing_else_changes(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    new_place = _as_old_in_dir_record(root, RELU_DIR)
    dry = invoke(spec("relu"), "-o", root, "--dry-run")
    assert dry.exit_code == 0 and "would move the record out of the op dir" in dry.output
    assert (root / RELU_DIR / ".opgen").is_dir()
    result = invoke(spec("relu"), "-o", root)
    assert result.exit_code == 0, result.output
    assert not (root / RELU_DIR / ".opgen").exists() and (new_place / "manifest.json").is_file()


def test_record_of_another_output_root_is_refused(tree: Tree, spec: Spec, tmp_path: Path) -> None:
    """One spec generated under two roots needs two record dirs: merging one root's edits against the other's
    record would use the wrong base."""
    tree("samples")
    other = tmp_path / "other"
    result = invoke(spec("gelu"), "-o", other)
    assert result.exit_code == 2
    assert "describes the op dir" in result.output and "--record-dir" in result.output
    assert not other.exists()
    assert invoke(spec("gelu"), "-o", other, "--record-dir", tmp_path / "other-records").exit_code == 0


@pytest.mark.parametrize(("manifest", "why"), [("null", "a manifest is a JSON object"),
                                              ("[" * 100_000, "nested too deep to be a manifest")])
def test_a_manifest_that_is_no_object_is_a_damaged_record(tree: Tree, spec: Spec, manifest: str, why: str) -> None:
    root = tree("samples")
    (record_of(root / GELU_DIR) / "manifest.json").write_text(manifest)
    before = snapshot(root)
    result = invoke(spec("gelu"), "--dry-run", "-o", root)
    assert result.exit_code == 2 and "damaged record" in result.output and why in result.output
    assert "Traceback" not in result.output
    assert snapshot(root) == before


def test_a_spec_change_on_top_of_an_open_conflict_is_refused_until_resolved(tree: Tree, spec: Spec) -> None:
    """Merging the next change into a file that still holds markers nested them and called it a new conflict."""
    root = tree("samples")
    def_cpp = root / GELU_DIR / "op_host/gelu_grad_def.cpp"
    Edit(f"{GELU_DIR}/op_host/gelu_grad_def.cpp", 'this->Input("dy")', 'this->Input("dy") // mine').apply(root)
    assert invoke(spec("gelu", dy_renamed_grad), "-o", root).exit_code == 1  # the conflict, left open
    before = snapshot(root)
    changed_again = spec("gelu", lambda text: without_bf16(dy_renamed_grad(text)))
    for extra in ((), ("--dry-run",)):
        refused = invoke(changed_again, "-o", root, *extra)
        assert refused.exit_code == 1, refused.output
        assert "refused" in refused.output and "still open" in refused.output
        assert "op_host/gelu_grad_def.cpp" in refused.output and "nothing was written" in refused.output
        assert snapshot(root) == before
    assert def_cpp.read_text().count("<<<<<<< yours") == 1
    resolve(def_cpp)
    assert invoke(changed_again, "-o", root).exit_code == 0
    assert "<<<<<<<" not in def_cpp.read_text() and "// mine" in def_cpp.read_text()


def test_a_dry_run_takes_no_lock_so_it_works_on_a_read_only_checkout(tree: Tree, spec: Spec,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Root ignores file modes, so the read-only file system is the lock failing as it does there."""
    import errno

    from opgen import write

    def read_only(dirs: object) -> object:
        raise OSError(errno.EROFS, "Read-only file system", "samples")

    root = tree("samples")
    monkeypatch.setattr(write, "locked", read_only)
    dry = invoke(spec("gelu", without_bf16), "-o", root, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "Read-only" not in dry.output
    real = invoke(spec("gelu", without_bf16), "-o", root)
    assert real.exit_code == 2 and "Read-only file system" in real.output
