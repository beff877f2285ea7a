"""Registration from the spec: disable_in_opp, named proto TensorType classes, the optional aclnn section,
the tiling's shape check where the kernel cannot broadcast, the aclnn's kernel-registered mask dtypes."""

from __future__ import annotations

import re
from pathlib import Path

from check.trees import SAMPLES, by_item, copy_sample, edit, failing, loaded
from conftest import GELU, GELU_DIR, RELU, RELU_DIR, copy_spec

from opgen.check.consistency import consistency_tier

ACLNN_SECTION = """aclnn:
  api: ReluGradV2
  inputs:
    - {name: gradOutput, tensor: gradients}
    - {name: mask, tensor: mask}
  outputs:
    - {name: out, tensor: backprops}

golden:"""


def test_disable_in_opp_reaches_the_cmake_call(run, tmp_path: Path) -> None:
    flagged = "experimental: true\ndisable_in_opp: true"
    spec = copy_spec(GELU, tmp_path, lambda t: t.replace("experimental: true", flagged))
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
    cmake = (tmp_path / "out" / GELU_DIR / "op_host/CMakeLists.txt").read_text()
    assert "OPTYPE gelu_grad ACLNNTYPE aclnn_exclude DISABLE_IN_OPP TRUE)" in cmake
    default = copy_spec(RELU, tmp_path, lambda t: t.replace("disable_in_opp: true\n", ""))
    assert run("gen", default, "-o", tmp_path / "plain").code == 0
    assert "DISABLE_IN_OPP" not in (tmp_path / "plain" / RELU_DIR / "CMakeLists.txt").read_text()


def test_a_proto_class_that_lacks_a_supported_dtype_is_refused(run, tmp_path: Path) -> None:
    spec = copy_spec(RELU, tmp_path, lambda t: t.replace("proto_dtypes: RealNumberType\n    doc: The back",
                                                        "proto_dtypes: FloatingDataType\n    doc: The back"))
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2
    assert "inputs[0].proto_dtypes: lacks bfloat16, int32, int8, uint8 that dtypes lists" in result.err


def test_consistency_compares_a_named_class_with_the_def(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU_DIR)
    plan = loaded(op_dir)[1]
    edit(op_dir / "op_graph/relu_grad_v2_proto.h", ".INPUT(gradients, TensorType::RealNumberType())",
         ".INPUT(gradients, TensorType::FloatingDataType())")
    items = consistency_tier(op_dir, plan)
    assert [i.item for i in failing(items)] == ["proto TensorType ⊇ def"]
    assert "gradients TensorType lacks bfloat16, int8, int32, uint8" in by_item(items, "proto TensorType ⊇ def").reason


def test_an_aclnn_section_brings_the_op_api_files_and_accepts_only_kernel_mask_dtypes(run, tmp_path: Path) -> None:
    spec = copy_spec(RELU, tmp_path, lambda t: t.replace("golden:", ACLNN_SECTION, 1))
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
    op_dir = tmp_path / "out" / RELU_DIR
    for rel in ("op_api/aclnn_relu_grad_v2.cpp", "op_api/relu_grad_v2.cpp", "docs/aclnnReluGradV2.md",
                "examples/test_aclnn_relu_grad_v2.cpp", "tests/ut/op_api/test_aclnn_relu_grad_v2.cpp"):
        assert (op_dir / rel).is_file(), rel
    wrapper = (op_dir / "op_api/aclnn_relu_grad_v2.cpp").read_text()
    # the proto admits a uint8 mask, but no kernel registers one: the aclnn must refuse it
    assert "MASK_DTYPE_SUPPORT_LIST_MASK = {op::DataType::DT_UINT1};" in wrapper
    ut = (op_dir / "tests/ut/op_api/test_aclnn_relu_grad_v2.cpp").read_text()
    case = re.search(r"TEST_F\(\w+, relu_grad_v2_\d+_mask_dtype_uint8_rejected\)\n\{(.*?)\n\}", ut, re.S)
    assert case is not None
    assert "maskDesc = TensorDesc({2, 8}, ACL_UINT8" in case.group(1)
    assert "EXPECT_EQ(aclRet, ACLNN_ERR_PARAM_INVALID);" in case.group(1)


def test_the_tiling_checks_shapes_when_the_kernel_cannot_broadcast() -> None:
    plan = loaded(SAMPLES / GELU_DIR)[1]
    assert [t.name for t in plan.same_shape] == ["dy", "x", "z"]  # what the kernel reads and writes
    assert "does not broadcast" in plan.same_shape_reason
    relu = loaded(SAMPLES / RELU_DIR)[1]
    assert [t.name for t in relu.same_shape] == ["gradients", "mask", "backprops"] and relu.same_shape_reason == ""
