"""`opgen gen`: the complete tree for both samples, byte-stable, equal to generated_samples/."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import GELU, GELU_DIR, RELU, RELU_DIR, SAMPLES, snapshot

# Every file type of DESIGN §2, per layout (paths relative to the op dir). ReluGradV2 has no aclnn API (as
# upstream ops-nn): no op_api, aclnn doc, aclnn example or op_api UT.
RELU_FILES = {
    "CMakeLists.txt", "op_graph/CMakeLists.txt", "op_graph/relu_grad_v2_proto.h", "op_host/relu_grad_v2_def.cpp",
    "op_host/relu_grad_v2_infershape.cpp", "op_host/arch35/relu_grad_v2_tiling_arch35.h",
    "op_host/arch35/relu_grad_v2_tiling_arch35.cpp", "op_host/config/ascend950/relu_grad_v2_binary.json",
    "op_host/config/ascend350/relu_grad_v2_binary.json", "op_kernel/relu_grad_v2_apt.cpp",
    "op_kernel/arch35/relu_grad_v2_dag.h", "op_kernel/arch35/relu_grad_v2_tiling_struct.h",
    "tests/CMakeLists.txt", "tests/assets/golden.py", "tests/st/arch35/ttk_kernel_relu_grad_v2_st.csv",
    "tests/ut/CMakeLists.txt", "tests/ut/op_host/CMakeLists.txt", "tests/ut/op_host/test_relu_grad_v2_infershape.cpp",
    "tests/ut/op_host/arch35/test_relu_grad_v2_tiling.cpp", "tests/ut/op_kernel/CMakeLists.txt",
    "tests/ut/op_kernel/test_relu_grad_v2_apt.cpp", "tests/ut/op_kernel/relu_grad_v2_data/gen_data.py",
    "tests/ut/op_kernel/relu_grad_v2_data/compare_data.py",
    "README.md", "examples/test_geir_relu_grad_v2.cpp",
}
GELU_FILES = {
    "CMakeLists.txt", "op_host/CMakeLists.txt", "op_graph/CMakeLists.txt", "op_graph/gelu_grad_proto.h",
    "op_host/gelu_grad_def.cpp", "op_host/gelu_grad_infershape.cpp", "op_host/gelu_grad_tiling.cpp",
    "op_host/config/ascend910b/gelu_grad_binary.json", "op_host/config/ascend310b/gelu_grad_binary.json",
    "op_kernel/gelu_grad.cpp", "op_kernel/gelu_grad.h", "op_kernel/gelu_grad_tiling_data.h",
    "op_kernel/gelu_grad_tiling_key.h", "op_host/op_api/aclnn_gelu_backward.h",
    "op_host/op_api/aclnn_gelu_backward.cpp",
    "op_host/op_api/gelu_grad.h", "op_host/op_api/gelu_grad.cpp", "tests/CMakeLists.txt", "tests/assets/golden.py",
    "tests/st/arch22/ttk_kernel_gelu_grad_st.csv", "tests/ut/CMakeLists.txt", "tests/ut/op_host/CMakeLists.txt",
    "tests/ut/op_host/test_gelu_grad_infershape.cpp", "tests/ut/op_host/test_gelu_grad_tiling.cpp",
    "tests/ut/op_kernel/CMakeLists.txt", "tests/ut/op_kernel/test_gelu_grad.cpp",
    "tests/ut/op_kernel/gelu_grad_data/gen_data.py", "tests/ut/op_kernel/gelu_grad_data/compare_data.py",
    "tests/ut/op_api/CMakeLists.txt",
    "tests/ut/op_api/test_aclnn_gelu_backward.cpp", "README.md", "docs/aclnnGeluBackward.md",
    "examples/test_aclnn_gelu_backward.cpp", "examples/test_geir_gelu_grad.cpp",
}


def _generated(tree: dict[str, bytes]) -> set[str]:
    return {path for path in tree if not path.startswith(".opgen/")}


def test_gen_writes_every_file_of_both_layouts(run, tmp_path: Path) -> None:
    result = run("gen", RELU, GELU, "-o", tmp_path)
    assert result.code == 0, result.err
    assert _generated(snapshot(tmp_path / RELU_DIR)) == RELU_FILES
    assert _generated(snapshot(tmp_path / GELU_DIR)) == GELU_FILES
    assert f"wrote {tmp_path / RELU_DIR}" in result.out


def test_every_op_dir_keeps_a_record_of_spec_and_pristine_files(rendered: Path) -> None:
    tree = snapshot(rendered / GELU_DIR)
    assert tree[".opgen/spec.yaml"] == GELU.read_bytes()
    for path in _generated(tree):
        assert tree[f".opgen/pristine/{path}"] == tree[path]


def test_generated_samples_are_in_sync_with_the_specs(rendered: Path) -> None:
    assert snapshot(SAMPLES / RELU_DIR) == snapshot(rendered / RELU_DIR), "run: opgen gen --force schemas/*.yaml"
    assert snapshot(SAMPLES / GELU_DIR) == snapshot(rendered / GELU_DIR), "run: opgen gen --force schemas/*.yaml"


def test_output_is_the_same_bytes_on_any_run_hash_seed_timezone_and_cwd(rendered: Path, tmp_path: Path) -> None:
    for seed, tz in (("1", "UTC"), ("4242", "Asia/Shanghai")):
        out = tmp_path / seed
        env = {**os.environ, "PYTHONHASHSEED": seed, "TZ": tz, "LC_ALL": "C"}
        subprocess.run([sys.executable, "-m", "opgen", "gen", str(RELU), str(GELU), "-o", str(out)],
                       check=True, env=env, cwd=tmp_path, capture_output=True)
        assert snapshot(out) == snapshot(rendered)


def test_check_mode_writes_nothing_and_lists_stale_files(run, tmp_path: Path) -> None:
    assert run("gen", "--check", RELU, "-o", tmp_path).code == 1  # missing tree counts as stale
    assert not tmp_path.joinpath(RELU_DIR).exists()
    assert run("gen", RELU, GELU, "-o", tmp_path).code == 0
    assert run("gen", "--check", RELU, GELU, "-o", tmp_path).code == 0
    edited = tmp_path / RELU_DIR / "op_kernel/arch35/relu_grad_v2_dag.h"
    edited.write_text(edited.read_text() + "// tuned\n")
    before = snapshot(tmp_path)
    result = run("gen", "--check", RELU, GELU, "-o", tmp_path)
    assert result.code == 1
    assert f"{RELU_DIR}/op_kernel/arch35/relu_grad_v2_dag.h" in result.out
    assert snapshot(tmp_path) == before


def test_force_replaces_an_existing_op_dir(run, tmp_path: Path) -> None:
    assert run("gen", RELU, "-o", tmp_path).code == 0
    stray = tmp_path / RELU_DIR / "stray.txt"
    stray.write_text("x")
    assert run("gen", "--force", RELU, "-o", tmp_path).code == 0
    assert not stray.exists()
    assert _generated(snapshot(tmp_path / RELU_DIR)) == RELU_FILES
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".opgen-staging")]


def test_schema_command_prints_the_committed_json_schema(run) -> None:
    result = run("schema")
    assert result.code == 0
    assert result.out == (SAMPLES.parent / "schemas" / "opspec.schema.json").read_text()
    assert '"op_type"' in result.out
