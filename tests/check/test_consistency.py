"""Consistency tier: the samples agree with themselves; one file edited out of step fails the right row,
naming the file and the fact, and leaves the other rows passing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from opgen.check.consistency import consistency_tier
from opgen.check.runner import run_checks

from .trees import GELU, RELU, SAMPLE_DIRS, by_item, copy_sample, edit, failing, loaded, statuses

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


@pytest.mark.parametrize("rel_dir", SAMPLE_DIRS)
def test_samples_pass(tmp_path: Path, rel_dir: str) -> None:
    op_dir = copy_sample(tmp_path, rel_dir)
    items = consistency_tier(op_dir, loaded(op_dir)[1])
    assert failing(items) == []
    assert by_item(items, "def dtype combinations").figures["combinations"] == (6 if rel_dir == RELU else 3)


def test_classic_skips_the_tpl_comparison_and_says_why(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    item = by_item(consistency_tier(op_dir, loaded(op_dir)[1]), "TPL dType macros == tiling")
    assert item.status == "skip"
    assert "classic kernel" in item.reason


def test_arch35_tiling_data_is_atvoss_struct(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    item = by_item(consistency_tier(op_dir, loaded(op_dir)[1]), "tiling data: kernel reads ⊆ host writes")
    assert item.status == "pass"
    assert "EleBaseTilingDataV2" in item.reason and "DoTiling" in item.reason


def test_dtype_removed_from_one_binary_json(tmp_path: Path) -> None:
    """Only that SoC's JSON row fails, naming the JSON and the combination; every other tier still passes."""
    op_dir = copy_sample(tmp_path, RELU)
    path = op_dir / "op_host/config/ascend350/relu_grad_v2_binary.json"
    data = json.loads(path.read_text())
    data["op_list"] = [e for e in data["op_list"] if e["inputs"][0]["dtype"] != "float16"]
    path.write_text(json.dumps(data, indent=4) + "\n")
    report = run_checks(op_dir)
    tiers = {t.tier: t for t in report.tiers}
    [item] = failing(tiers["consistency"].items)
    assert item.item == "binary JSON == def (ascend350)"
    assert item.reason == ("op_host/config/ascend350/relu_grad_v2_binary.json lacks def combination "
                           "(float16, uint1 -> float16)")
    assert by_item(tiers["consistency"].items, "binary JSON == def (ascend950)").status == "pass"
    assert statuses(report.tiers) == {"structure": "pass", "syntax": "pass", "consistency": "fail",
                                      "numerics": "pass", "headers": "skip", "kernel": "skip",
                                      "ops-nn-ut": "skip", "upstream": "skip"}


EDITS = [
    # (sample, file, old, new, failing row, text of the reason)
    (RELU, "op_host/config/ascend950/relu_grad_v2_binary.json", '"name": "mask"', '"name": "bits"',
     "binary JSON == def (ascend950)", "names tensors (gradients, bits, backprops), the def (gradients, mask"),
    (RELU, "op_graph/relu_grad_v2_proto.h", "TensorType({DT_UINT8, DT_UINT1})", "TensorType({DT_UINT8})",
     "proto TensorType ⊇ def", "op_graph/relu_grad_v2_proto.h:32: mask TensorType lacks uint1"),
    (GELU, "op_graph/gelu_grad_proto.h", ".INPUT(dy,", ".INPUT(dyy,", "proto TensorType ⊇ def",
     "inputs (dyy, x, y), the def (dy, x, y)"),
    (GELU, "tests/st/arch22/ttk_kernel_gelu_grad_st.csv", "\"('float16', 'float16', 'float16')\",\"((16, 33)",
     "\"('float16', 'float32', 'float16')\",\"((16, 33)", "ST CSV dtypes ⊆ def (ttk_kernel_gelu_grad_st.csv)",
     ":14 (gelu_grad_float16_001): (float16, float32, float16 -> float16) is not a def combination"),
    (GELU, "op_kernel/gelu_grad.cpp", "GM_ADDR dy, GM_ADDR x,", "GM_ADDR x, GM_ADDR dy,",
     "kernel entry arguments == def order", "gelu_grad(x, dy, y, z, workspace, tiling), expected (dy, x, y, z"),
    (GELU, "op_host/gelu_grad_tiling.cpp", " ge::DT_BF16, ", " ge::DT_INT8, ", "tiling dtype dispatch == def",
     "does not dispatch bfloat16"),
    (RELU, "op_host/arch35/relu_grad_v2_tiling_arch35.cpp", "dType = TPL_INT8;", "dType = TPL_INT16;",
     "TPL dType macros == tiling", "sets dType = TPL_INT16 (for int8), not declared"),
    (RELU, "op_kernel/arch35/relu_grad_v2_tiling_struct.h", "#define TPL_INT8 4", "#define TPL_INT8 6",
     "TPL dType macros == tiling", "2 dType macros share value 6"),
    (RELU, "op_kernel/relu_grad_v2_apt.cpp", "ReluGradV2Dag<half>", "ReluGradV2Dag<float>",
     "tiling keys: host == kernel", "the TPL_FP16 branch runs on float, but"),
    (GELU, "op_kernel/gelu_grad.cpp", "TILING_KEY_IS(1)", "TILING_KEY_IS(2)", "tiling keys: host == kernel",
     "sets tiling key 1, which op_kernel/gelu_grad.cpp never dispatches"),
    (GELU, "op_kernel/gelu_grad.h", "tilingData.tileDataNum", "tilingData.tileNum",
     "tiling data: kernel reads ⊆ host writes", "reads GeluGradTilingData.tileNum, which the host tiling never"),
    (RELU, "CMakeLists.txt", '"ascend950" "ascend350")', '"ascend950")', "SoCs: def == config dirs == CMake",
     "SUPPORT_COMPUTE_UNIT {ascend950}, def {ascend950, ascend350}"),
    (GELU, "op_host/gelu_grad_def.cpp", 'this->AICore().AddConfig("ascend310b");', "",
     "SoCs: def == config dirs == CMake", "op_host/config has {ascend310b, ascend910b}, op_host/gelu_grad_def.cpp"),
]


@pytest.mark.parametrize(("rel_dir", "rel", "old", "new", "label", "named"), EDITS)
def test_one_file_out_of_step_fails_its_row(tmp_path: Path, rel_dir: str, rel: str, old: str, new: str, label: str,
                                            named: str) -> None:
    op_dir = copy_sample(tmp_path, rel_dir)
    plan = loaded(op_dir)[1]
    edit(op_dir / rel, old, new, -1)
    items = consistency_tier(op_dir, plan)
    assert [i.item for i in failing(items)] == [label]
    assert named in by_item(items, label).reason


def test_def_columns_of_different_lengths(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    edit(op_dir / "op_host/gelu_grad_def.cpp", ".DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})",
         ".DataType({ge::DT_FLOAT, ge::DT_FLOAT16})")
    [item] = consistency_tier(op_dir, loaded(op_dir)[1])
    assert item.status == "fail"
    assert "dy 2, x 3, y 3, z 3" in item.reason


def test_a_dtype_added_to_the_def_alone_shows_everywhere_it_is_missing(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    for _ in range(4):  # each of the four tensors gains int32 as a fourth combination
        edit(op_dir / "op_host/gelu_grad_def.cpp", "ge::DT_BF16})\n", "ge::DT_BF16, ge::DT_INT32})\n")
    text = (op_dir / "op_host/gelu_grad_def.cpp").read_text().replace(
        "ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND}", "ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND}")
    (op_dir / "op_host/gelu_grad_def.cpp").write_text(text)
    items = consistency_tier(op_dir, loaded(op_dir)[1])
    assert {i.item for i in failing(items)} == {
        "binary JSON == def (ascend310b)", "binary JSON == def (ascend910b)", "tiling dtype dispatch == def",
        "proto TensorType ⊇ def"}
    assert "lacks def combination (int32, int32, int32 -> int32)" in by_item(
        items, "binary JSON == def (ascend910b)").reason


@pytest.mark.parametrize("rel_dir, wrong", [
    ("activation/hard_shrink_grad", "op_host/op_api"),  # a root CMakeLists.txt builds op_api/ only
    (GELU, "op_api"),  # an op_host/CMakeLists.txt builds op_host/op_api/ only
])
def test_aclnn_sources_where_cmake_does_not_build_them_fail(tmp_path: Path, rel_dir: str, wrong: str) -> None:
    """ops-nn's add_modules_sources globs <its CMakeLists' dir>/op_api/*.cpp: a wrapper elsewhere is never built."""
    op_dir = copy_sample(tmp_path, rel_dir)
    [right] = [d for d in ("op_api", "op_host/op_api") if (op_dir / d).is_dir()]
    label = "op_api sources where CMake builds them"
    assert by_item(consistency_tier(op_dir, loaded(op_dir)[1]), label).status == "pass"
    (op_dir / wrong).parent.mkdir(parents=True, exist_ok=True)
    (op_dir / right).rename(op_dir / wrong)
    item = by_item(consistency_tier(op_dir, loaded(op_dir)[1]), label)
    assert item.status == "fail"
    assert f"{wrong}/aclnn_" in item.reason and f"builds {right}/*.cpp only" in item.reason


def test_a_proto_narrower_than_the_def_passes_only_where_the_spec_says_so(run, tmp_path: Path) -> None:
    """Upstream ThresholdV2's proto admits fewer dtypes than its def (graph mode refuses them, aclnn takes them):
    expressible with proto_narrower, refused without it."""
    yaml = YAML(typ="safe")
    doc = yaml.load(SCHEMAS / "leaky_relu_grad.yaml")
    for tensor in doc["inputs"] + doc["outputs"]:
        tensor["proto_dtypes"] = ["float16", "float32"]
    spec = tmp_path / "leaky_relu_grad.yaml"
    yaml.dump(doc, spec)
    refused = run("gen", spec, "-o", tmp_path / "out")
    assert refused.code == 2 and "inputs[0].proto_dtypes: lacks bfloat16 that dtypes lists" in refused.err
    for tensor in doc["inputs"] + doc["outputs"]:
        tensor["proto_narrower"] = True
    yaml.dump(doc, spec)
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
    op_dir = tmp_path / "out/activation/leaky_relu_grad"
    assert ".INPUT(gradients, TensorType({DT_FLOAT16, DT_FLOAT}))" in (
        op_dir / "op_graph/leaky_relu_grad_proto.h").read_text()
    item = by_item(consistency_tier(op_dir, loaded(op_dir)[1]), "proto TensorType ⊇ def")
    assert item.status == "pass" and "gradients lacks bfloat16 by the spec (proto_narrower" in item.reason
    edit(op_dir / "op_graph/leaky_relu_grad_proto.h", ".INPUT(gradients, TensorType({DT_FLOAT16, DT_FLOAT}))",
         ".INPUT(gradients, TensorType({DT_FLOAT16}))")
    item = by_item(consistency_tier(op_dir, loaded(op_dir)[1]), "proto TensorType ⊇ def")
    assert item.status == "fail" and "gradients TensorType lacks float32 that" in item.reason


def test_a_classic_kernel_ut_declares_its_entry_and_a_wrong_declaration_fails(tmp_path: Path) -> None:
    """ops-nn's AddOpTestCase compiles the kernel beside the UT, so a classic UT declares the extern "C" entry
    instead of including its source (a second definition); the declaration must take the def's order."""
    op_dir = copy_sample(tmp_path, GELU)
    ut = op_dir / "tests/ut/op_kernel/test_gelu_grad.cpp"
    text = ut.read_text(encoding="utf-8")
    assert '#include "../../../op_kernel/gelu_grad.cpp"' not in text
    assert 'extern "C" __global__ __aicore__ void gelu_grad(GM_ADDR dy, GM_ADDR x, GM_ADDR y, GM_ADDR z,' in text
    edit(ut, "void gelu_grad(GM_ADDR dy, GM_ADDR x,", "void gelu_grad(GM_ADDR x, GM_ADDR dy,")
    item = by_item(consistency_tier(op_dir, loaded(op_dir)[1]), "kernel entry arguments == def order")
    assert item.status == "fail" and item.reason.startswith("tests/ut/op_kernel/test_gelu_grad.cpp:20: gelu_grad(x, dy")
