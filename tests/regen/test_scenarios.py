"""The issue's acceptance scenarios, end to end on freshly generated samples: edits survive every regen."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from opgen import write as write_module
from opgen.generate import RenderedOp
from opgen.regen import apply as apply_module

from .support import (
    CONFLICT_BLOCK,
    GELU_DIR,
    RELU_DIR,
    Edit,
    assert_edits_kept,
    assert_render_plus_edits,
    dy_renamed_grad,
    invoke,
    pristine,
    record_of,
    snapshot,
    staging_leftovers,
    with_comment,
    without_ascend350,
)

Tree = Callable[[str], Path]
Spec = Callable[..., Path]

GELU_EDITS = [
    Edit(f"{GELU_DIR}/op_host/gelu_grad_tiling.cpp", "TILE_ALIGN = 256;", "TILE_ALIGN = 512;"),
    Edit(
        f"{GELU_DIR}/op_kernel/gelu_grad.h",
        "// Inputs are computed in C (float, or the type a dtype computes in as it is): cast (exact) unless they "
        "are C.",
        "// Inputs are computed in C (hand note: the cast is exact, keep it).",
    ),
]
RELU_EDITS = [
    Edit(f"{RELU_DIR}/op_host/arch35/relu_grad_v2_tiling_arch35.cpp", "= 16777216;", "= 33554432; // measured"),
    Edit(f"{RELU_DIR}/op_kernel/arch35/relu_grad_v2_dag.h", "// load mask", "// load mask, 8 elements a byte"),
    Edit(f"{RELU_DIR}/op_host/relu_grad_v2_def.cpp", 'this->Input("mask")', 'this->Input("mask") // from ReluV2'),
]


def edit_all(root: Path, edits: list[Edit]) -> None:
    for edit in edits:
        edit.apply(root)


def test_1_new_dtype_reaches_every_file_and_edits_survive(tree: Tree, spec: Spec) -> None:
    root = tree("gelu_nobf")
    op = root / GELU_DIR
    assert "DT_BF16" not in (op / "op_host/gelu_grad_def.cpp").read_text()
    edit_all(root, GELU_EDITS)

    result = invoke(spec("gelu"), "-o", root)

    assert result.exit_code == 0, result.output
    assert "DT_BF16" in (op / "op_host/gelu_grad_def.cpp").read_text()
    assert ".INPUT(dy, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))" in (op / "op_graph/gelu_grad_proto.h").read_text()
    for soc in ("ascend910b", "ascend310b"):
        assert '"dtype": "bfloat16"' in (op / f"op_host/config/{soc}/gelu_grad_binary.json").read_text()
    tiling = (op / "op_host/gelu_grad_tiling.cpp").read_text()
    assert "{GELU_GRAD_TILING_KEY_ASCEND910B, ge::DT_BF16, 224, 0}," in tiling and "TILE_ALIGN = 512;" in tiling
    assert "gelu_grad_bfloat16_000" in (op / "tests/st/arch22/ttk_kernel_gelu_grad_st.csv").read_text()
    assert re.search(r"merge\s+op_host/gelu_grad_tiling.cpp", result.output)
    assert_edits_kept(root, GELU_EDITS)
    assert_render_plus_edits(root, GELU_DIR, GELU_EDITS)


def test_2_new_soc_adds_its_config_and_edits_survive(tree: Tree, spec: Spec) -> None:
    root = tree("relu_no350")
    op = root / RELU_DIR
    assert not (op / "op_host/config/ascend350").exists()
    edit_all(root, RELU_EDITS)

    result = invoke(spec("relu"), "-o", root)

    assert result.exit_code == 0, result.output
    assert (op / "op_host/config/ascend350/relu_grad_v2_binary.json").is_file()
    assert 'AddConfig("ascend350", configAscend350)' in (op / "op_host/relu_grad_v2_def.cpp").read_text()
    assert re.search(r"add\s+op_host/config/ascend350/relu_grad_v2_binary.json", result.output)
    # the files the new SoC changes (the ST CSV gains its per-SoC row): counted, not listed
    assert "3 replaced" in result.output and not re.search(r"replace\s", result.output)
    assert_edits_kept(root, RELU_EDITS)
    assert_render_plus_edits(root, RELU_DIR, RELU_EDITS)


RENAME_CLASH = Edit(f"{GELU_DIR}/op_host/gelu_grad_def.cpp", 'this->Input("dy")', 'this->Input("dy") // first')


def test_3_rename_reaches_every_file_and_a_clashing_edit_is_a_reported_conflict(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    op = root / GELU_DIR
    edits = [*GELU_EDITS, RENAME_CLASH]
    edit_all(root, edits)

    result = invoke(spec("gelu", dy_renamed_grad), "-o", root)

    assert result.exit_code == 1, result.output
    assert re.search(rf"need you.*\n\s+conflict\s+{GELU_DIR}/op_host/gelu_grad_def.cpp", result.output)
    definition = (op / "op_host/gelu_grad_def.cpp").read_text()
    blocks = CONFLICT_BLOCK.findall(definition)
    assert blocks == [('        this->Input("dy") // first\n', '        this->Input("grad")\n')]
    for path in pristine(op):  # the rename reached every file, apart from the user's side of the conflict
        assert not re.search(r"\bdy\b", CONFLICT_BLOCK.sub("", (op / path).read_text())), path
    assert_edits_kept(root, edits)
    assert_render_plus_edits(root, GELU_DIR, GELU_EDITS, skip={"op_host/gelu_grad_def.cpp"})
    resolved = CONFLICT_BLOCK.sub(lambda m: m.group(2), definition)
    assert resolved.encode() == pristine(op)["op_host/gelu_grad_def.cpp"]  # nothing else lost in that file


def test_3_rej_keeps_your_lines_and_puts_the_spec_hunk_beside(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    op = root / GELU_DIR
    edits = [*GELU_EDITS, RENAME_CLASH]
    edit_all(root, edits)

    result = invoke(spec("gelu", dy_renamed_grad), "-o", root, "--conflict", "rej")

    assert result.exit_code == 1, result.output
    assert "op_host/gelu_grad_def.cpp.rej" in result.output
    definition = (op / "op_host/gelu_grad_def.cpp").read_text()
    assert "<<<<<<<" not in definition and 'this->Input("dy") // first' in definition
    reject = (op / "op_host/gelu_grad_def.cpp.rej").read_text()
    assert '-        this->Input("dy")\n+        this->Input("grad")\n' in reject
    assert "--- a/op_host/gelu_grad_def.cpp" in reject and "@@ -" in reject
    assert_edits_kept(root, edits)
    assert_render_plus_edits(root, GELU_DIR, GELU_EDITS, skip={"op_host/gelu_grad_def.cpp"})


def test_conflict_markers_resolved_then_regen_again_keeps_the_resolution(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    RENAME_CLASH.apply(root)
    renamed = spec("gelu", dy_renamed_grad)
    assert invoke(renamed, "-o", root).exit_code == 1
    definition = root / GELU_DIR / "op_host/gelu_grad_def.cpp"
    definition.write_text(CONFLICT_BLOCK.sub('        this->Input("grad") // first\n', definition.read_text()))
    before = snapshot(root)

    result = invoke(renamed, "-o", root)

    assert result.exit_code == 0, result.output
    assert snapshot(root) == before
    assert 'this->Input("grad") // first' in definition.read_text()


TILING_UT = "tests/ut/op_host/arch22/test_gelu_grad_tiling.cpp"


def test_4_deleted_file_stays_deleted_and_is_reported(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    (root / GELU_DIR / TILING_UT).unlink()

    result = invoke(spec("gelu"), "-o", root)

    assert result.exit_code == 0, result.output
    assert re.search(rf"deleted-by-you\s+{TILING_UT}\s+deleted by you, kept deleted", result.output)
    assert not (root / GELU_DIR / TILING_UT).exists()


def test_4_deleted_file_the_spec_changes_is_flagged_not_resurrected(tree: Tree, spec: Spec) -> None:
    root = tree("gelu_nobf")
    op = root / GELU_DIR
    (op / TILING_UT).unlink()

    result = invoke(spec("gelu"), "-o", root)

    assert result.exit_code == 1, result.output
    assert re.search(rf"deleted-changed\s+{GELU_DIR}/{TILING_UT}\s+deleted by you but changed", result.output)
    assert not (op / TILING_UT).exists()
    assert b"DT_BF16" in (record_of(op) / "pristine" / TILING_UT).read_bytes()  # the new version, there to copy
    assert str(record_of(op) / "pristine" / TILING_UT) in result.output
    again = invoke(spec("gelu"), "-o", root)
    assert again.exit_code == 0 and "deleted-by-you" in again.output  # flagged once, then your deletion stands


def test_dropped_file_is_removed_unless_edited(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    op = root / RELU_DIR
    config = op / "op_host/config/ascend350/relu_grad_v2_binary.json"

    result = invoke(spec("relu", without_ascend350), "-o", root)

    assert result.exit_code == 0, result.output
    assert not config.exists() and not config.parent.exists()  # its folder went with it
    assert 'AddConfig("ascend350"' not in (op / "op_host/relu_grad_v2_def.cpp").read_text()


def test_dropped_file_you_edited_is_kept_and_reported(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    edit = Edit(
        f"{RELU_DIR}/op_host/config/ascend350/relu_grad_v2_binary.json",
        '"op_type": "ReluGradV2",',
        '"op_type": "ReluGradV2", "_note": "tuned",',
    )
    edit.apply(root)

    result = invoke(spec("relu", without_ascend350), "-o", root)

    assert result.exit_code == 1, result.output
    assert re.search(r"kept-edited\s+activation/relu_grad_v2/op_host/config/ascend350/", result.output)
    assert_edits_kept(root, [edit])
    assert "op_host/config/ascend350/relu_grad_v2_binary.json" not in pristine(root / RELU_DIR)
    again = invoke(spec("relu", without_ascend350), "-o", root)  # no longer opgen's: left alone, not reported
    assert again.exit_code == 0 and "ascend350" not in again.output
    assert_edits_kept(root, [edit])


def test_5_unchanged_spec_rewrites_nothing(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    edit_all(root, [*GELU_EDITS, *RELU_EDITS])
    before = snapshot(root)

    result = invoke(spec("gelu"), spec("relu"), "-o", root)

    assert result.exit_code == 0, result.output
    assert snapshot(root) == before  # bytes, mtimes and inodes of every file and folder
    assert result.output.count("nothing to write") == 2


def test_5_spec_comment_updates_the_record_only(tree: Tree, spec: Spec) -> None:
    root = tree("samples")
    before = snapshot(root)

    result = invoke(spec("gelu", with_comment), "-o", root)

    assert result.exit_code == 0, result.output
    assert snapshot(root) == before  # not even the op dir is swapped: every file, folder and inode as it was
    assert (record_of(root / GELU_DIR) / "spec.yaml").read_text().endswith("the render does not\n")


@pytest.fixture
def edited(tree: Tree) -> Path:
    """Both samples with hand edits and a deletion, the starting point of the crash tests."""
    root = tree("samples")
    edit_all(root, [*GELU_EDITS, *RELU_EDITS])
    (root / GELU_DIR / TILING_UT).unlink()
    return root


def test_6_failing_render_leaves_everything(edited: Path, spec: Spec, monkeypatch: pytest.MonkeyPatch) -> None:
    from opgen.regen import run

    real = run.render_specs  # type: ignore[attr-defined]

    def render_then_fail(paths: list[Path]) -> list[RenderedOp]:
        real(paths[:1])  # the first op renders, the second crashes
        raise RuntimeError("render crashed")

    monkeypatch.setattr(run, "render_specs", render_then_fail)
    before = snapshot(edited)

    result = invoke(spec("gelu", dy_renamed_grad), spec("relu", without_ascend350), "-o", edited)

    assert isinstance(result.exception, RuntimeError)
    assert snapshot(edited) == before


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_6_crash_while_staging_leaves_everything(
    edited: Path, spec: Spec, monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    real = apply_module._write_file
    written: list[Path] = []

    def write_then_fail(path: Path, data: bytes, mode: int | None) -> None:
        written.append(path)
        if len(written) == 30:  # well into the second op
            raise error
        real(path, data, mode)

    monkeypatch.setattr(apply_module, "_write_file", write_then_fail)
    before = snapshot(edited, dir_mtimes=False)

    result = invoke(spec("gelu", dy_renamed_grad), spec("relu", without_ascend350), "-o", edited)

    assert len(written) == 30
    assert result.exit_code != 0
    assert snapshot(edited, dir_mtimes=False) == before
    assert staging_leftovers(edited) == []


def test_6_failing_second_swap_swaps_the_first_back(edited: Path, spec: Spec, monkeypatch: pytest.MonkeyPatch) -> None:
    real = write_module.exchange_dirs
    calls: list[Path] = []

    def exchange(a: Path, b: Path) -> None:
        calls.append(b)
        if len(calls) == 2:
            raise OSError(5, "Input/output error", str(b))
        real(a, b)

    monkeypatch.setattr(write_module, "exchange_dirs", exchange)
    before = snapshot(edited, dir_mtimes=False)

    result = invoke(spec("gelu", dy_renamed_grad), spec("relu", without_ascend350), "-o", edited)

    assert result.exit_code == 2 and "Input/output error" in result.output
    assert len(calls) == 3  # gelu in, relu fails, gelu back
    assert snapshot(edited, dir_mtimes=False) == before
    assert staging_leftovers(edited) == []


def test_6_completed_regen_after_a_crash_is_the_same_as_without(
    edited: Path, spec: Spec, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(write_module, "_swap", lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    assert invoke(spec("gelu", dy_renamed_grad), "-o", edited).exit_code != 0
    monkeypatch.undo()

    result = invoke(spec("gelu", dy_renamed_grad), "-o", edited)

    assert result.exit_code == 0, result.output
    assert_edits_kept(edited, GELU_EDITS)
    assert_render_plus_edits(edited, GELU_DIR, GELU_EDITS, skip={TILING_UT})
    assert not (edited / GELU_DIR / TILING_UT).exists()
