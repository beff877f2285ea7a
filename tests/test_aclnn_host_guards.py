"""Issue 36, the aclnn wrapper's guards as upstream writes them: GetWorkspaceSize refuses a null workspaceSize or
executor before anything writes through them (OP_CHECK_COMM_INPUT, ACLNN_ERR_PARAM_NULLPTR), and its UT calls it
with each of them null."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import SAMPLES

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
