"""`opgen gen`: the complete tree for both samples, byte-stable, equal to generated_samples/."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import GELU, GELU_DIR, RELU, RELU_DIR, SAMPLES, SCHEMAS, copy_spec, record_of, snapshot

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
    "tests/ut/op_kernel/relu_grad_v2_tiling_def.h",
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
    "tests/ut/op_host/test_gelu_grad_infershape.cpp", "tests/ut/op_host/arch22/test_gelu_grad_tiling.cpp",
    "tests/ut/op_kernel/CMakeLists.txt", "tests/ut/op_kernel/test_gelu_grad.cpp",
    "tests/ut/op_kernel/gelu_grad_tiling_def.h",
    "tests/ut/op_kernel/gelu_grad_data/gen_data.py", "tests/ut/op_kernel/gelu_grad_data/compare_data.py",
    "tests/ut/op_api/CMakeLists.txt",
    "tests/ut/op_api/test_aclnn_gelu_backward.cpp", "README.md", "docs/aclnnGeluBackward.md",
    "examples/test_aclnn_gelu_backward.cpp", "examples/test_geir_gelu_grad.cpp",
}


def _generated(tree: dict[str, bytes]) -> set[str]:
    return set(tree)


def test_gen_writes_every_file_of_both_layouts_and_nothing_of_opgen(run, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("OPGEN_RECORD_DIR")
    specs, out = tmp_path / "specs", tmp_path / "out"
    specs.mkdir()
    result = run("gen", copy_spec(RELU, specs), copy_spec(GELU, specs), "-o", out)
    assert result.code == 0, result.err
    assert set(snapshot(out / RELU_DIR)) == RELU_FILES  # the op dir can be copied into ops-nn as it is
    assert set(snapshot(out / GELU_DIR)) == GELU_FILES
    assert sorted(p.name for p in out.iterdir()) == ["activation", "experimental"]  # no record in the root
    assert f"wrote {out / RELU_DIR}" in result.out
    assert f"record: {specs / '.opgen' / RELU_DIR}" in result.out


def test_every_op_keeps_a_record_beside_its_spec(run, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("OPGEN_RECORD_DIR")
    specs, out = tmp_path / "specs", tmp_path / "out"
    specs.mkdir()
    assert run("gen", copy_spec(GELU, specs), "-o", out).code == 0
    record = specs / ".opgen" / GELU_DIR
    assert record_of(out / GELU_DIR) == record  # found by the op's path, as check and validate find it
    assert (record / "spec.yaml").read_bytes() == GELU.read_bytes()
    tree = snapshot(out / GELU_DIR)
    assert snapshot(record / "pristine") == tree
    manifest = json.loads((record / "manifest.json").read_text())
    assert (record / manifest["op_dir"]).resolve() == (out / GELU_DIR).resolve()


def test_record_dir_option_puts_the_record_there(run, tmp_path: Path) -> None:
    specs, out, records = tmp_path / "specs", tmp_path / "out", tmp_path / "records"
    specs.mkdir()
    assert run("gen", copy_spec(RELU, specs), "-o", out, "--record-dir", records).code == 0
    assert (records / RELU_DIR / "manifest.json").is_file()
    assert not (specs / ".opgen").exists()
    assert run("regen", specs / RELU.name, "-o", out, "--record-dir", records).code == 0


def test_generated_samples_are_in_sync_with_the_specs(rendered: Path) -> None:
    assert snapshot(SAMPLES / RELU_DIR) == snapshot(rendered / RELU_DIR), "run: opgen gen --force schemas/*.yaml"
    assert snapshot(SAMPLES / GELU_DIR) == snapshot(rendered / GELU_DIR), "run: opgen gen --force schemas/*.yaml"


def test_the_samples_record_is_committed_beside_the_schemas() -> None:
    """generated_samples/ holds only ops-nn files; what regen needs is in schemas/.opgen/, and up to date."""
    from opgen.generate import render_specs

    assert not list(SAMPLES.rglob(".opgen"))
    for op in render_specs([RELU, GELU]):
        record = SCHEMAS / ".opgen" / op.plan.rel_dir
        assert snapshot(record) == op.record(SAMPLES / op.plan.rel_dir, record), "run: opgen gen --force ..."


def test_output_is_the_same_bytes_on_any_run_hash_seed_timezone_and_cwd(rendered: Path, tmp_path: Path) -> None:
    for seed, tz in (("1", "UTC"), ("4242", "Asia/Shanghai")):
        out = tmp_path / seed
        env = {**os.environ, "PYTHONHASHSEED": seed, "TZ": tz, "LC_ALL": "C"}
        records = tmp_path / f"records-{seed}"  # the samples' own record names generated_samples/
        subprocess.run([sys.executable, "-m", "opgen", "gen", str(RELU), str(GELU), "-o", str(out), "--record-dir",
                        str(records)], check=True, env=env, cwd=tmp_path, capture_output=True)
        assert snapshot(out) == snapshot(rendered)


def test_check_mode_writes_nothing_and_allows_hand_edits(run, tmp_path: Path) -> None:
    """The pre-commit question: is the tree up to date with its spec? Hand edits are allowed."""
    out = tmp_path / "out"
    spec = copy_spec(RELU, tmp_path)
    missing = run("gen", "--check", spec, "-o", out)
    assert missing.code == 1 and "not generated yet" in missing.out  # missing tree counts as stale
    assert not out.exists()
    assert run("gen", spec, "-o", out).code == 0
    assert run("gen", "--check", spec, "-o", out).code == 0
    edited = out / RELU_DIR / "op_kernel/arch35/relu_grad_v2_dag.h"
    edited.write_text(edited.read_text() + "// tuned\n")
    before = snapshot(tmp_path)
    result = run("gen", "--check", spec, "-o", out)
    assert result.code == 0, result.out
    assert "1 file(s) with your edits" in result.out
    strict = run("gen", "--check", "--strict", spec, "-o", out)  # committed output: every byte as rendered
    assert strict.code == 1 and f"{RELU_DIR}/op_kernel/arch35/relu_grad_v2_dag.h" in strict.out
    assert snapshot(tmp_path) == before


def test_check_mode_fails_when_the_spec_changed_or_a_file_is_missing(run, tmp_path: Path) -> None:
    out = tmp_path / "out"
    spec = copy_spec(RELU, tmp_path)
    assert run("gen", spec, "-o", out).code == 0
    spec.write_text(spec.read_text() + "# only a comment\n")
    assert run("gen", "--check", spec, "-o", out).code == 0  # the render did not change
    copy_spec(RELU, tmp_path, lambda text: text.replace("  - soc: ascend350\n    kernel: arch35_dag\n    aicore: {}\n",
                                                          ""))
    before = snapshot(tmp_path)
    result = run("gen", "--check", spec, "-o", out)
    assert result.code == 1
    assert f"{RELU_DIR}/op_host/config/ascend350/relu_grad_v2_binary.json" in result.out
    assert "run `opgen regen`" in result.out and "--force" not in result.out  # never the destructive advice
    assert snapshot(tmp_path) == before
    copy_spec(RELU, tmp_path)
    (out / RELU_DIR / "README.md").unlink()
    gone = run("gen", "--check", spec, "-o", out)
    assert gone.code == 1 and f"{RELU_DIR}/README.md: missing from the tree" in gone.out


def test_check_mode_fails_while_a_conflict_is_open(run, tmp_path: Path) -> None:
    out = tmp_path / "out"
    spec = copy_spec(RELU, tmp_path)
    assert run("gen", spec, "-o", out).code == 0
    readme = out / RELU_DIR / "README.md"
    readme.write_text(readme.read_text() + "<<<<<<< yours\nmine\n=======\ntheirs\n>>>>>>> opgen\n")
    result = run("gen", "--check", spec, "-o", out)
    assert result.code == 1 and "conflict is still open" in result.out


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


def test_tiling_suites_sit_where_ops_nns_per_soc_ut_build_runs_them_alone() -> None:
    """ops-nn builds one UT binary per --soc from tests/ut/op_host/ and that SoC's arch dir: GeluGrad's suites go
    to arch22/, each compiled under its own SoC's macro, and 310B (no UT dir) adds arch22/ to its build."""
    ut = SAMPLES / "experimental/activation/gelu_grad/tests/ut/op_host"
    assert not (ut / "test_gelu_grad_tiling.cpp").exists()
    text = (ut / "arch22/test_gelu_grad_tiling.cpp").read_text(encoding="utf-8")
    assert "#if defined(GELU_GRAD_UT_SOC_ASCEND910B)\nclass GeluGradTilingAscend910b" in text
    assert "#if defined(GELU_GRAD_UT_SOC_ASCEND310B)\nclass GeluGradTilingAscend310b" in text
    cmake = (ut / "CMakeLists.txt").read_text(encoding="utf-8")
    assert ('if("${ASCEND_COMPUTE_UNIT}" STREQUAL "ascend310b")\n        add_modules_ut_sources(HOSTNAME '
            "${OP_TILING_MODULE_NAME} MODE PRIVATE DIR ${CMAKE_CURRENT_SOURCE_DIR}/arch22)") in cmake
    swish = (SAMPLES / "activation/hard_swish_grad_v2/tests/ut/op_host/arch22/test_hard_swish_grad_v2_tiling.cpp")
    assert "class HardSwishGradV2TilingAscend91093" in swish.read_text(encoding="utf-8")  # 910_93 maps to arch22 too


def test_a_float32_combination_takes_no_ub_for_cast_buffers_it_never_uses() -> None:
    """A classic float32-recipe kernel reads float32 tensors in place: their cast buffers are made only for
    other dtypes, so float32's tile counts them out; and each tiling key makes only the tmpBufs its Compute() uses
    (GeluGrad 910b: 224 bits an element in float32 and float16 alike; it was 320, and 416 before that)."""
    op = SAMPLES / "experimental/activation/gelu_grad"
    tiling = (op / "op_host/gelu_grad_tiling.cpp").read_text(encoding="utf-8")
    assert "{GELU_GRAD_TILING_KEY_ASCEND910B, ge::DT_FLOAT, 224, 0}," in tiling  # 0: it fills no constant
    assert "{GELU_GRAD_TILING_KEY_ASCEND910B, ge::DT_FLOAT16, 224, 0}," in tiling
    assert "{GELU_GRAD_TILING_KEY_ASCEND310B, ge::DT_FLOAT, 256, 256}," in tiling  # 256: its constant block
    kernel = (op / "op_kernel/gelu_grad.h").read_text(encoding="utf-8")
    assert "if constexpr (!std::is_same_v<TYPE_DY, float>) { // a float32 tensor is read in place\n" \
           "            pipe.InitBuffer(castBufDy, tileDataNum * sizeof(float));" in kernel
    assert "        pipe.InitBuffer(tmpBuf0, tileDataNum * sizeof(float));" in kernel  # both keys use it
    assert "if constexpr (TILING_KEY == GELU_GRAD_TILING_KEY_ASCEND310B) { // only this tiling key's Compute() " \
           "uses it\n            pipe.InitBuffer(tmpBuf1, tileDataNum * sizeof(float));" in kernel


def test_every_relative_include_of_every_sample_names_a_file_of_its_tree() -> None:
    """A UT includes what it tests by its path from the UT file; a renamed file (an aclnn wrapper given upstream's
    stem) must move those includes with it, or the UT build stops there (LogSigmoidGrad's op_api UT did). Host and
    kernel sources include from ops-nn's include dirs instead, so only UTs are read."""
    include = re.compile(r'^#include "(\.\./[^"]+)"', re.M)
    dangling = []
    for source in sorted(SAMPLES.glob("**/tests/ut/**/*")):
        if source.suffix not in {".cpp", ".h"}:
            continue
        for target in include.findall(source.read_text(encoding="utf-8")):
            if not (source.parent / target).is_file():
                dangling.append(f"{source.relative_to(SAMPLES)}: {target}")
    assert dangling == []


def test_every_kernel_ut_launch_passes_buffers_its_test_declared() -> None:
    """ICPU_RUN_KF's arguments are the test's own GM buffers: a tensor's spec name where the buffer is camelCase
    (HardSigmoidGrad's input_x) stopped the kernel UT build under ops-nn."""
    test = re.compile(r"^TEST_F\(.*?^}", re.M | re.S)
    launch = re.compile(r"ICPU_RUN_KF\(kernel, \d+, ([^)]*)\);")
    undeclared = []
    for source in sorted(SAMPLES.glob("**/tests/ut/op_kernel/**/test_*.cpp")):
        for body in test.findall(source.read_text(encoding="utf-8")):
            [args] = launch.findall(body)
            undeclared += [f"{source.relative_to(SAMPLES)}: {arg}" for arg in args.split(", ")
                           if not re.search(rf"uint8_t\* {arg} = ", body)]
    assert undeclared == []
