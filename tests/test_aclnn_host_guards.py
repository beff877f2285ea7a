"""Issue 36, the aclnn wrapper's guards as upstream writes them: GetWorkspaceSize refuses a null workspaceSize or
executor before anything writes through them (OP_CHECK_COMM_INPUT, ACLNN_ERR_PARAM_NULLPTR), and its UT calls it
with each of them null; the wrapper and the l0 op refuse bf16 on a SoC whose vector core has none (ascend910,
ascend310p: ACLNN_ERR_PARAM_INVALID, as upstream's aclnnEluBackward), registered there or not, and the UT asks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import SAMPLES

# the samples whose upstream wrapper or l0 op picks its dtype list by SoC, bf16 only on ascend910b/910_93/950
UPSTREAM_GATED = ("elu_grad_v2", "gelu_grad_v2", "hard_shrink_grad", "hard_sigmoid_grad", "leaky_relu_grad",
                  "logsigmoid_grad", "mish_grad", "sigmoid_grad", "silu_grad", "soft_shrink_grad", "softplus_grad",
                  "swish_grad", "hard_swish_grad_v2")
WRAPPERS = sorted(p for p in SAMPLES.glob("**/op_api/aclnn_*.cpp") if "tests" not in p.parts)


def _ut_of(wrapper: Path) -> str:
    op_dir = next(p for p in wrapper.parents if (p / "tests").is_dir())
    return (op_dir / "tests/ut/op_api" / f"test_{wrapper.name}").read_text(encoding="utf-8")


def _case(ut: str, suffix: str) -> str:
    found = re.search(r"TEST_F\(\w+, \w+_" + suffix + r"\)\n\{\n(.*?)\n\}", ut, re.S)
    assert found, f"no case ending _{suffix}"
    return found.group(1)


def test_every_sample_has_an_aclnn_wrapper_to_check() -> None:
    assert len(WRAPPERS) >= 15


@pytest.mark.parametrize("wrapper", WRAPPERS, ids=lambda p: p.stem)
def test_get_workspace_size_checks_its_out_parameters_first(wrapper: Path) -> None:
    text = wrapper.read_text(encoding="utf-8")
    body = re.search(r"GetWorkspaceSize\([^)]*aclOpExecutor\*\* executor\)\n\{\n\s*(\S[^\n]*)", text)
    assert body, "no GetWorkspaceSize definition"
    assert body.group(1) == "OP_CHECK_COMM_INPUT(workspaceSize, executor);"


@pytest.mark.parametrize("wrapper", WRAPPERS, ids=lambda p: p.stem)
def test_the_ut_passes_a_null_workspace_size_and_a_null_executor(wrapper: Path) -> None:
    ut = _ut_of(wrapper)
    workspace = _case(ut, "null_workspace_size")
    assert "ut.TestGetWorkspaceSize(nullptr);" in workspace
    assert "EXPECT_EQ(aclRet, ACLNN_ERR_PARAM_NULLPTR);" in workspace
    executor = _case(ut, "null_executor")
    api = wrapper.stem.removeprefix("aclnn_")
    assert re.search(r"InvokeGetWorkspaceSizeFunc\(aclnn\w+GetWorkspaceSize, args, make_tuple\(\),\s*"
                     r"&workspaceSize, nullptr\);", executor), api
    assert "EXPECT_EQ(aclRet, ACLNN_ERR_PARAM_NULLPTR);" in executor


def _lists(text: str, picker: str) -> dict[str, list[str]]:
    """SoC enumerator -> the dtypes `picker()` returns on it, read from the printed lists and branches."""
    declared = {m.group(1): re.findall(r"DT_\w+", m.group(2)) for m in
                re.finditer(r"initializer_list<op::DataType> (\w+) = \{([^}]*)\}", text)}
    body = re.search(picker + r"\(\)\n\{(.*?)\n\}", text, re.S)
    assert body, f"no {picker}()"
    return {soc: declared[name] for soc, name in
            re.findall(r"socVersion == SocVersion::(\w+)\) \{\s*return (\w+);", body.group(1))}


@pytest.mark.parametrize("op", UPSTREAM_GATED)
def test_the_wrapper_and_the_l0_op_refuse_bf16_where_the_soc_has_none(op: str) -> None:
    op_dir = SAMPLES / "activation" / op
    wrapper = next(p for p in op_dir.glob("**/op_api/aclnn_*.cpp") if "tests" not in p.parts)
    l0 = next(p for p in wrapper.parent.glob("*.cpp") if not p.name.startswith("aclnn_"))
    for path, picker, check in ((wrapper, "SocDtypeSupportList", "supportList"),
                                (l0, "AiCoreDtypeSupportList", "AiCoreDtypeSupportList()")):
        text = path.read_text(encoding="utf-8")
        lists = _lists(text, picker)
        for soc in ("ASCEND910", "ASCEND310P"):
            assert soc in lists and "DT_BF16" not in lists[soc] and "DT_FLOAT16" in lists[soc], (path.name, soc)
        assert check in text.split(f"{picker}()\n{{", 1)[1], path.name  # the dtype check uses the picked list
    ut = _ut_of(wrapper)
    rejected = _case(ut, "ascend910_bfloat16_rejected")
    assert "SocVersionManager socVersion(SocVersion::ASCEND910);" in rejected
    assert "ACL_BF16" in rejected and "EXPECT_EQ(aclRet, ACLNN_ERR_PARAM_INVALID);" in rejected
    accepted = _case(ut, "ascend910_normal_float16")
    assert "SocVersion::ASCEND910)" in accepted and "EXPECT_EQ(aclRet, ACLNN_SUCCESS);" in accepted
    docs = next(op_dir.glob("docs/aclnn*.md")).read_text(encoding="utf-8")
    for soc in ("Ascend910", "Ascend310P"):
        said = re.search(rf"^- On {soc} the data tensors take ([\w, ]+) only: another dtype there returns "
                         "ACLNN_ERR_PARAM_INVALID.$", docs, re.M)
        assert said and "bfloat16" not in said.group(1) and "float16" in said.group(1), soc


def test_a_soc_the_spec_registers_keeps_its_own_columns() -> None:
    """ascend910b registers bf16 for GeluGrad: no list of its own, the op's full one applies there."""
    wrapper = SAMPLES / "experimental/activation/gelu_grad/op_host/op_api/aclnn_gelu_backward.cpp"
    lists = _lists(wrapper.read_text(encoding="utf-8"), "SocDtypeSupportList")
    assert set(lists) == {"ASCEND910", "ASCEND310P"}
