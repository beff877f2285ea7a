"""Each sample tree read the way an ops-nn reviewer reads a PR (issue 11): UT sources include what they call,
no assertion compares a value with itself or with what the test wrote, every aclnn return code of the spec
has a UT case, the kernel UT checks its data scripts, and the registration says what upstream says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import review
from conftest import CANN_SRC, GELU, GELU_DIR, RELU, RELU_DIR, SAMPLES

from opgen.plan import build_plan
from opgen.spec.load import load_spec


def _ut_files() -> list[pytest.param]:  # type: ignore[valid-type]
    return [pytest.param(rel, p.relative_to(SAMPLES / rel).as_posix(),
                         id=f"{rel.rsplit('/', 1)[-1]}:{p.relative_to(SAMPLES / rel).as_posix()}")
            for rel in (RELU_DIR, GELU_DIR) for p in sorted((SAMPLES / rel / "tests" / "ut").rglob("*.cpp"))]


@pytest.fixture(scope="module")
def framework() -> dict[str, dict[str, list[str]]]:
    """ops-nn's UT framework index: from the sources when OPGEN_CANN_SRC is set, else the committed list."""
    if CANN_SRC:
        return review.framework_index(Path(CANN_SRC) / "ops-nn")
    return review.load_index()


def test_committed_framework_index_is_the_frameworks_own(cann_src: Path) -> None:
    assert review.framework_index(cann_src / "ops-nn") == review.load_index()


@pytest.mark.parametrize(("rel", "path"), _ut_files())
def test_ut_sources_include_what_they_call(rel: str, path: str, framework: dict[str, dict[str, list[str]]]) -> None:
    code = (SAMPLES / rel / path).read_text(encoding="utf-8")
    assert [str(f) for f in review.undeclared_calls(path, code, framework)] == []


@pytest.mark.parametrize(("rel", "path"), _ut_files())
def test_no_assertion_compares_a_value_with_itself_or_with_what_the_test_wrote(rel: str, path: str) -> None:
    code = (SAMPLES / rel / path).read_text(encoding="utf-8")
    assert [str(f) for f in review.self_comparisons(path, code)] == []


def test_every_aclnn_return_code_of_the_spec_has_a_ut_case() -> None:
    loaded = load_spec(GELU)
    plan = build_plan(loaded.spec, GELU.name)
    assert plan.aclnn is not None
    ut = (SAMPLES / GELU_DIR / "tests/ut/op_api/test_aclnn_gelu_backward.cpp").read_text(encoding="utf-8")
    doc = (SAMPLES / GELU_DIR / "docs/aclnnGeluBackward.md").read_text(encoding="utf-8")
    codes = {code for code, _, _ in plan.aclnn.return_codes}
    assert codes <= set(re.findall(r"^\| (ACLNN_\w+) \|", doc, re.M))  # the doc states what the spec returns
    assert codes <= review.expected_statuses(ut)
    assert len(re.findall(r"\bTEST_F\(", ut)) >= 22  # upstream's GeluGrad op_api UT has 22 cases


def test_kernel_uts_check_their_data_scripts() -> None:
    for rel in (RELU_DIR, GELU_DIR):
        (path,) = (SAMPLES / rel / "tests/ut/op_kernel").glob("test_*.cpp")
        bodies = review.strip(path.read_text(encoding="utf-8")).split("TEST_F(")[1:]
        assert bodies
        for body in bodies:
            assert "ASSERT_TRUE(kernel_ut::RunGenData(" in body
            assert "ASSERT_TRUE(kernel_ut::SetupTestEnvironment(" in body
            assert "EXPECT_TRUE(kernel_ut::RunCompareData(" in body and "ICPU_RUN_KF(" in body
        assert re.search(r"ICPU_RUN_KF\(kernel, [2-9]", path.read_text()), f"{rel}: no multi-core kernel UT case"


def test_registration_says_what_upstream_says() -> None:
    relu = SAMPLES / RELU_DIR
    assert "DISABLE_IN_OPP TRUE" in (relu / "CMakeLists.txt").read_text()
    proto = (relu / "op_graph/relu_grad_v2_proto.h").read_text()
    assert ".INPUT(gradients, TensorType::RealNumberType())" in proto
    assert ".OUTPUT(backprops, TensorType::RealNumberType())" in proto
    assert not list(relu.rglob("*aclnn*")) and not (relu / "op_api").exists()  # upstream ships no aclnn API
    assert load_spec(RELU).spec.aclnn is None

    gelu = SAMPLES / GELU_DIR
    tiling = (gelu / "op_host/gelu_grad_tiling.cpp").read_text()
    check_shapes = tiling[tiling.index("Tiling::CheckShapes()"):tiling.index("Tiling::SelectTilingKey")]
    assert "OP_LOGE_FOR_INVALID_SHAPES_WITH_REASON" in check_shapes  # the kernel does not broadcast
    aclnn = (gelu / "op_host/op_api/aclnn_gelu_backward.cpp").read_text()
    assert "MAX_SUPPORT_DIMS_NUMS" in aclnn and "ACLNN_MAX_DIMS" not in aclnn
    for source in [tiling, aclnn, (relu / "op_host/arch35/relu_grad_v2_tiling_arch35.cpp").read_text()]:
        checks = source[source.index("CheckDtypes") if "CheckDtypes" in source else 0:]
        assert not re.search(r"OP_LOGE\([^;]*(must|unsupported)", checks), "a check logs with plain OP_LOGE"


# ------------------------------------------------------------- the checks can fail


def test_an_undeclared_helper_is_found_at_its_line(framework: dict[str, dict[str, list[str]]]) -> None:
    code = (SAMPLES / GELU_DIR / "tests/ut/op_api/test_aclnn_gelu_backward.cpp").read_text(encoding="utf-8")
    lines = code.splitlines()
    at = next(i for i, line in enumerate(lines) if "TEST_F(" in line) + 2
    lines.insert(at, "    GetPlatFormInfos(info.c_str(), socInfos, aicoreSpec, intrinsics, socVersion);")
    found = review.undeclared_calls("t.cpp", "\n".join(lines), framework)
    assert [str(f) for f in found] == [f"t.cpp:{at + 1}: calls GetPlatFormInfos, declared in test_cube_util.h, "
                                       "which the file does not include"]
    included = "\n".join(['#include "test_cube_util.h"', *lines])
    assert review.undeclared_calls("t.cpp", included, framework) == []


def test_self_and_prefilled_comparisons_are_found() -> None:
    code = """TEST_F(s, c)
{
    gert::Shape zShape = {1024};
    gert::Shape expectedShape = {1024};
    Run(&zShape);
    EXPECT_EQ(zShape, expectedShape);
    uint64_t workspaceSize = 0;
    EXPECT_EQ(workspaceSize, workspaceSize);
    uint64_t produced = 1;
    produced = Compute();
    EXPECT_EQ(produced, 1);
}
"""
    found = [str(f) for f in review.self_comparisons("t.cpp", code)]
    assert found == ["t.cpp:6: zShape is compared with the value the test set it to ({1024})",
                     "t.cpp:8: workspaceSize is compared with itself"]


def test_a_missing_return_code_case_is_found() -> None:
    ut = (SAMPLES / GELU_DIR / "tests/ut/op_api/test_aclnn_gelu_backward.cpp").read_text(encoding="utf-8")
    assert "ACLNN_ERR_PARAM_NULLPTR" in review.expected_statuses(ut)
    without = ut.replace("EXPECT_EQ(aclRet, ACLNN_ERR_PARAM_NULLPTR)", "EXPECT_EQ(aclRet, ACLNN_SUCCESS)")
    assert "ACLNN_ERR_PARAM_NULLPTR" not in review.expected_statuses(without)
