"""The ops-nn-ut tier: the tree's op_host UTs run by ops-nn's own `build.sh -u --ophost`, one build per SoC, its
aclnn UTs by `build.sh -u --opapi` and its kernel UTs by `build.sh -u --opkernel` (tikicpulib being opgen's CPU
model), against the prefix opgen builds from the sources (the first test here builds it: about 13 minutes cold on
2 cores, then cached), with upstream's own UTs of the op as the sanity rows; and the semantic faults its generated
UTs catch under that build (a field, a key, an attr ignored or mapped the other way, a dtype the aclnn wrapper
refuses, a kernel computing the wrong thing, a kernel UT defining the kernel twice)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from opgen.cann_prefix.build import Prefix, build_prefix
from opgen.cann_prefix.ut_run import UtRun, run_ut
from opgen.cann_sources import cache_root, resolve_sources
from opgen.check.items import CheckItem
from opgen.check.ops_nn_ut import _kernel_row, kernel_ut_rows, ops_nn_ut_tier
from opgen.check.trust import Trust
from opgen.plan.testcases.ophost_tests import UT_PLATFORMS

from .trees import GELU, RELU, by_item, copy_sample, edit, loaded

TRUSTED = Trust(allow_exec=True)


def _rows(op_dir: Path, cann_src: Path, trust: Trust = TRUSTED) -> list[CheckItem]:
    _, plan = loaded(op_dir)
    return ops_nn_ut_tier(op_dir, plan, resolve_sources(cann_src), trust)


def test_without_allow_exec_build_sh_is_not_run(tmp_path: Path, cann_src: Path) -> None:
    [row] = _rows(copy_sample(tmp_path, GELU), cann_src, Trust())
    assert row.status == "skip" and "--allow-exec" in row.reason


def test_gelu_grad_uts_pass_under_build_sh_for_each_soc_and_so_do_upstreams(tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    rows = _rows(op_dir, cann_src)
    assert [r for r in rows if r.status != "pass"] == []
    for soc in ("ascend910b", "ascend310b"):
        mine = by_item(rows, f"op_host UTs ({soc})")
        assert mine.figures["tests"] == mine.figures["passed"] > 0
        assert by_item(rows, f"upstream op_host UTs ({soc})").figures["failed"] == 0
    # the aclnn UTs pick their SoC in each test: one build, under the first SoC
    api = by_item(rows, "op_api UTs (ascend910b)")
    assert api.figures["tests"] == api.figures["passed"] > 0 and "build.sh -u --opapi" in api.reason
    assert by_item(rows, "upstream op_api UTs (ascend910b)").figures["failed"] == 0
    assert not [r for r in rows if r.item.endswith("op_api UTs (ascend310b)")]
    # the kernel UTs under build.sh -u --opkernel, tikicpulib being opgen's CPU model: every case, each comparing the
    # kernel's output with the golden (compare_data.py)
    _, plan = loaded(op_dir)
    kernel = by_item(rows, "op_kernel UTs (ascend910b)")
    assert kernel.figures["tests"] == kernel.figures["passed"] == len(plan.families[0].kernel_ut.cases) == 4
    assert "build.sh -u --opkernel" in kernel.reason
    assert not [r for r in rows if r.item == "upstream op_kernel UTs (ascend910b)"]  # upstream's GeluGrad has none


def test_an_aclnn_wrapper_refusing_a_dtype_it_registers_fails_exactly_that_dtypes_op_api_uts(
        tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    edit(op_dir / "op_host/op_api/aclnn_gelu_backward.cpp", "op::DataType::DT_FLOAT16,\n" + " " * 71
         + "op::DataType::DT_BF16};", "op::DataType::DT_FLOAT16};")
    sources = resolve_sources(cann_src)
    assert sources is not None
    _, plan = loaded(op_dir)
    run = run_ut(build_prefix(sources, cache_root()), sources, kind="opapi", op=plan.name, soc="ascend910b",
                 op_dir=op_dir)
    assert not run.ok and run.ran == run.passed + 3
    assert sorted(run.failed) == [f"l2_gelu_backward_test.gelu_backward_{case}_normal_bfloat16"
                                  for case in ("003", "006_ascend910b", "009_ascend310b")]


def test_a_tiling_ut_expecting_the_wrong_key_fails_naming_the_test(tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    edit(op_dir / "tests/ut/op_host/arch35/test_relu_grad_v2_tiling.cpp", "ge::GRAPH_SUCCESS, 5,",
         "ge::GRAPH_SUCCESS, 6,")  # key 5 expected as 6
    row = by_item(_rows(op_dir, cann_src), "op_host UTs (ascend950)")
    assert row.status == "fail" and row.figures["failed"] == 1
    assert "ReluGradV2" in row.reason and "1 failed" in row.reason


def test_a_tiling_suite_without_its_soc_guard_fails_the_other_socs_build_naming_its_tests(tmp_path: Path,
                                                                                           cann_src: Path) -> None:
    """GeluGrad's tiling suites share arch22/, which the 910B and the 310B builds both glob; each suite compiles
    only under its SoC's macro. With the 910B guard dropped, the 310B build runs the 910B suite against the 310B
    platform, where the tiling takes another key."""
    op_dir = copy_sample(tmp_path, GELU)
    edit(op_dir / "tests/ut/op_host/arch22/test_gelu_grad_tiling.cpp", "#if defined(GELU_GRAD_UT_SOC_ASCEND910B)",
         "#if 1")
    rows = _rows(op_dir, cann_src)
    assert by_item(rows, "op_host UTs (ascend910b)").status == "pass"
    mixed = by_item(rows, "op_host UTs (ascend310b)")
    assert mixed.status == "fail" and "GeluGradTilingAscend910b." in mixed.reason


def _kernel_rows(op_dir: Path, cann_src: Path, soc: str) -> list[CheckItem]:
    """The tree's kernel UTs alone under build.sh -u --opkernel (and upstream's, where they can run)."""
    sources = resolve_sources(cann_src)
    assert sources is not None
    _, plan = loaded(op_dir)
    return kernel_ut_rows(build_prefix(sources, cache_root()), sources, plan, op_dir, soc)


def test_a_fused_register_kernels_uts_pass_under_build_sh_and_a_swapped_register_select_fails(tmp_path: Path,
                                                                                              cann_src: Path) -> None:
    """EluGradV2's arch35 kernel is one MicroAPI node a path (Compares into a MaskReg, Select on it): ops-nn's own
    kernel UT build runs it on the tikicpulib stand-in, and y = select(neg, high, low) fails its cases."""
    rows = {r.item: r for r in _kernel_rows(copy_sample(tmp_path / "good", "activation/elu_grad_v2"), cann_src,
                                            "ascend950")}
    good = rows["op_kernel UTs (ascend950)"]
    assert good.status == "pass" and good.figures["tests"] > 0, good
    bad = copy_sample(tmp_path / "bad", "activation/elu_grad_v2")
    edit(bad / "op_kernel/arch35/elu_grad_v2_dag.h", "Select(rY, rLow, rHigh, pNeg);", "Select(rY, rHigh, rLow, pNeg);",
         -1)
    faulty = {r.item: r for r in _kernel_rows(bad, cann_src, "ascend950")}["op_kernel UTs (ascend950)"]
    assert faulty.status == "fail" and faulty.figures["passed"] < faulty.figures["tests"], faulty


def test_an_experimental_op_copied_outside_an_experimental_dir_still_builds_its_kernel_uts(tmp_path: Path,
                                                                                           cann_src: Path) -> None:
    """build.sh's --experimental came from the op dir's path: GeluGrad (experimental in its spec) checked from
    tmp/copies/gelu_grad was built without it, and its kernel UTs "built and ran none"."""
    sample = copy_sample(tmp_path, GELU)
    _, plan = loaded(sample)
    op_dir = tmp_path / "copies" / "gelu_grad"
    op_dir.parent.mkdir()
    sample.rename(op_dir)
    sources = resolve_sources(cann_src)
    assert sources is not None
    [row] = kernel_ut_rows(build_prefix(sources, cache_root()), sources, plan, op_dir, "ascend910b")
    assert row.status == "pass" and row.figures["tests"] == 4, row


def test_a_kernel_computing_the_wrong_thing_fails_exactly_its_socs_kernel_uts(tmp_path: Path, cann_src: Path) -> None:
    """GeluGrad's 910B math with d = px + 1.5 (it compiles): the 910B cases fail compare_data.py, the 310B math
    (another tiling key of the same kernel) still passes."""
    op_dir = copy_sample(tmp_path, GELU)
    edit(op_dir / "op_kernel/gelu_grad.h", "Adds(xValue, tmp0, 1.0f, count);", "Adds(xValue, tmp0, 1.5f, count);")
    [row] = _kernel_rows(op_dir, cann_src, "ascend910b")
    assert row.status == "fail" and (row.figures["tests"], row.figures["passed"]) == (4, 2)
    assert "gelu_grad_test.gelu_grad_float32_ascend910b_1_core" in row.reason
    assert "gelu_grad_test.gelu_grad_float32_ascend910b_2_cores" in row.reason and "ascend310b_" not in row.reason


def test_a_kernel_ut_including_its_kernel_source_fails_naming_the_file_and_the_symbol(tmp_path: Path,
                                                                                    cann_src: Path) -> None:
    """AddOpTestCase compiles the kernel itself: a UT that also includes it defines the extern "C" entry twice."""
    op_dir = copy_sample(tmp_path, GELU)
    edit(op_dir / "tests/ut/op_kernel/test_gelu_grad.cpp", '#include "../../../op_kernel/gelu_grad_tiling_data.h"',
         '#include "../../../op_kernel/gelu_grad.cpp"')
    [row] = _kernel_rows(op_dir, cann_src, "ascend910b")
    assert row.status == "fail" and row.figures["tests"] == 0
    assert "test_gelu_grad.cpp" in row.reason and "multiple definition of `gelu_grad'" in row.reason, row.reason


def test_a_dag_kernel_with_swapped_select_operands_fails_its_kernel_uts(tmp_path: Path, cann_src: Path) -> None:
    """ReluGradV2's select(mask, gradients, 0) as select(mask, 0, gradients): it compiles, every case's output is
    wrong."""
    op_dir = copy_sample(tmp_path, RELU)
    dag = op_dir / "op_kernel/arch35/relu_grad_v2_dag.h"
    edit(dag, "OpCopyIn1, OpCopyIn0,", "OpCopyIn1, OpCalcBackpropsFill,")
    edit(dag, "OpCalcBackpropsFill>; // backprops", "OpCopyIn0>; // backprops")
    row, upstream = _kernel_rows(op_dir, cann_src, "ascend950")
    assert row.status == "fail" and row.figures["passed"] == 0 < row.figures["tests"], row
    # upstream's kernel UT takes its tiling header from the toolkit's tbe package: not run, and said so
    assert upstream.status == "skip" and "tbe" in upstream.reason


def _tree_run(op_dir: Path, cann_src: Path, soc: str) -> UtRun:
    """The tree's op_host UTs alone under build.sh -u for one SoC (no upstream sanity run)."""
    sources = resolve_sources(cann_src)
    assert sources is not None
    _, plan = loaded(op_dir)
    return run_ut(build_prefix(sources, cache_root()), sources, kind="ophost", op=plan.name, soc=soc,
                  op_dir=op_dir)


@pytest.mark.parametrize("rel_dir", [RELU, GELU])
def test_each_socs_build_runs_its_infershape_and_tiling_cases(tmp_path: Path, rel_dir: str, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, rel_dir)
    _, plan = loaded(op_dir)
    rows = _rows(op_dir, cann_src)
    # one build per registered SoC ops-nn's UT executor knows (not ascend350); a SoC without a tiling suite of its
    # own runs the infershape UTs alone
    for soc in (s.name for s in plan.socs if s.name in UT_PLATFORMS):
        cases = sum(len(s.cases) for s in plan.ophost_ut.tiling_suites if s.soc == soc)
        expected = len(plan.ophost_ut.infershape_cases) + cases
        row = by_item(rows, f"op_host UTs ({soc})")
        assert (row.status, row.figures["tests"], row.figures["passed"]) == ("pass", expected, expected), row


def test_a_call_to_an_undeclared_helper_fails_at_the_uts_line(tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    ut = op_dir / "tests/ut/op_host/test_gelu_grad_infershape.cpp"
    lines = ut.read_text().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if "ExecuteTestCase(" in text)
    lines.insert(line - 1, "    MakeGeluGradShapes();")
    ut.write_text("\n".join(lines) + "\n")
    run = _tree_run(op_dir, cann_src, "ascend910b")
    assert not run.ok and run.ran == 0
    assert run.error.startswith(f"tests/ut/op_host/test_gelu_grad_infershape.cpp:{line}:"), run.error
    assert "MakeGeluGradShapes" in run.error


@pytest.mark.parametrize(("old", "new"), [
    ("TILE_ALIGN = 256;", "TILE_ALIGN = 512;"),
    # a tiling row keeping UB the plan gives to tiles (the tile shrinks)
    ("ge::DT_FLOAT, 224, 0},", "ge::DT_FLOAT, 224, 8192},"),
])
def test_a_tiling_field_change_fails_the_tiling_ut_that_expects_the_plans_values(old: str, new: str, tmp_path: Path,
                                                                                 cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    edit(op_dir / "op_host/gelu_grad_tiling.cpp", old, new)
    run = _tree_run(op_dir, cann_src, "ascend910b")
    assert not run.ok and run.failed, run
    # which dtype's cases fail depends on the edit (the float32 row moves float32's tile only)
    assert any(re.fullmatch(r"GeluGradTilingAscend910b\.tiling_float(16|32)_test_shape", n) for n in run.failed)


def test_a_tiling_key_change_fails_the_arch35_tiling_ut(tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    edit(op_dir / "op_host/arch35/relu_grad_v2_tiling_arch35.cpp", "GET_TPL_TILING_KEY(tiling->scheMode, dType)",
         "GET_TPL_TILING_KEY(0, dType)")
    run = _tree_run(op_dir, cann_src, "ascend950")
    _, plan = loaded(op_dir)
    [suite] = plan.ophost_ut.tiling_suites
    assert len(run.failed) == sum(1 for c in suite.cases if c.succeeds), run
    assert all(n.startswith("ReluGradV2TilingAscend950.tiling_") for n in run.failed)


@pytest.mark.parametrize(("rel_dir", "tiling", "old", "new", "case"), [
    ("activation/hard_sigmoid_grad", "op_host/arch35/hard_sigmoid_grad_tiling_arch35.cpp",
     "tiling->alpha = alphaAttr != nullptr ? *alphaAttr : 0.16666666666666666f;",
     "tiling->alpha = 0.16666666666666666f;", "HardSigmoidGradTilingAscend950.tiling_float32_test_shape_attrs_0"),
    ("activation/swish_grad", "op_host/arch35/swish_grad_tiling_arch35.cpp",
     "tiling->scale = scaleAttr != nullptr ? *scaleAttr : 1.0f;", "tiling->scale = 1.0f;",
     "SwishGradTilingAscend950.tiling_bfloat16_test_shape_attrs_0"),
])
def test_a_tiling_that_ignores_an_attr_fails_only_the_ut_case_at_the_checked_setting(
        tmp_path: Path, cann_src: Path, rel_dir: str, tiling: str, old: str, new: str, case: str) -> None:
    op_dir = copy_sample(tmp_path, rel_dir)
    edit(op_dir / tiling, old, new)
    assert _tree_run(op_dir, cann_src, "ascend950").failed == (case,)


def test_a_tiling_mapping_a_value_to_another_values_macro_fails_that_values_uts(tmp_path: Path,
                                                                                 cann_src: Path) -> None:
    """GeluGradV2's approximate: "tanh" keyed as "none" passes every default case and fails each tanh case."""
    op_dir = copy_sample(tmp_path, "activation/gelu_grad_v2")
    edit(op_dir / "op_host/arch35/gelu_grad_v2_tiling_arch35.cpp", "    approximate = TPL_APPROXIMATE_TANH;",
         "    approximate = TPL_APPROXIMATE_NONE;")
    run = _tree_run(op_dir, cann_src, "ascend950")
    _, plan = loaded(op_dir)
    [suite] = plan.ophost_ut.tiling_suites
    tanh = {f"GeluGradV2TilingAscend950.{c.name}" for c in suite.cases if c.name.endswith("_tanh")}
    assert set(run.failed) == tanh and len(tanh) == 9


def test_a_bool_choice_keyed_the_other_way_fails_every_tiling_case(tmp_path: Path, cann_src: Path) -> None:
    """EluGradV2's is_result mapped to the other TPL value: each case expects its own value's key."""
    op_dir = copy_sample(tmp_path, "activation/elu_grad_v2")
    edit(op_dir / "op_host/arch35/elu_grad_v2_tiling_arch35.cpp",
         "isResultValue ? TPL_IS_RESULT_TRUE : TPL_IS_RESULT_FALSE",
         "isResultValue ? TPL_IS_RESULT_FALSE : TPL_IS_RESULT_TRUE")
    run = _tree_run(op_dir, cann_src, "ascend950")
    _, plan = loaded(op_dir)
    [suite] = plan.ophost_ut.tiling_suites
    assert len(run.failed) == sum(c.succeeds for c in suite.cases), run


@pytest.mark.parametrize("condition", ["isResultValue && tiling->alpha < 0.0f", "false && tiling->alpha < 0.0f",
                                       "isResultValue && tiling->alpha < -2.0f"])
def test_a_tiling_that_takes_a_value_below_the_specs_min_fails_that_ut(tmp_path: Path, cann_src: Path,
                                                                      condition: str) -> None:
    """EluGradV2's tiling refuses a negative alpha from the result, as upstream's: a refusal dropped or loosened
    fails exactly the UT at alpha -1 with is_result true; the refusal as generated passes every UT."""
    op_dir = copy_sample(tmp_path, "activation/elu_grad_v2")
    edit(op_dir / "op_host/arch35/elu_grad_v2_tiling_arch35.cpp", "isResultValue && tiling->alpha < 0.0f", condition)
    run = _tree_run(op_dir, cann_src, "ascend950")
    if condition == "isResultValue && tiling->alpha < 0.0f":
        assert run.ok, run
        return
    assert run.failed == ("EluGradV2TilingAscend950.tiling_alpha_below_min",), run


def test_a_tiling_reading_one_attr_for_another_with_the_same_default_fails(tmp_path: Path, cann_src: Path) -> None:
    """EluGradV2's scale and input_scale both default to 1.0: the checked setting gives them distinct values
    (2.25, 2.5), so a tiling that fills scale from input_scale's index fails those cases."""
    op_dir = copy_sample(tmp_path, "activation/elu_grad_v2")
    edit(op_dir / "op_host/arch35/elu_grad_v2_tiling_arch35.cpp", "? *scaleAttr : 1.0f;",
         "? *attrs->GetAttrPointer<float>(2) : 1.0f;")
    run = _tree_run(op_dir, cann_src, "ascend950")
    assert any(n.startswith("EluGradV2TilingAscend950.tiling_bfloat16_test_shape_attrs_") for n in run.failed), run


@pytest.mark.parametrize("upstream", [True, False])
def test_an_upstream_kernel_ut_needing_host_tiling_headers_is_skipped_naming_them(tmp_path: Path,
                                                                                  upstream: bool) -> None:
    """Upstream glu_grad's kernel UT includes its host tiling header (register/tilingdata_base.h), which the
    tikicpulib stand-in does not serve: its row says so, SKIPPED; the same error in the tree's own UT is a FAIL."""
    log = tmp_path / "ut.log"
    log.write_text("op_host/glu_grad_tiling.h:15:10: fatal error: register/tilingdata_base.h: No such file or "
                   "directory\ngmake: *** [Makefile:605: nn_op_kernel_ut] Error 2\n", encoding="utf-8")
    run = UtRun("opkernel", "glu_grad", "ascend950", 1, 0, 0, (), 1.0, log)
    row = _kernel_row(Prefix(tmp_path, 0.0), run, upstream)
    if upstream:
        assert row.status == "skip" and row.item == "upstream op_kernel UTs (ascend950)"
        assert "includes register/tilingdata_base.h" in row.reason and "DT_* macros" in row.reason
    else:
        assert row.status == "fail" and "none ran to the end" in row.reason
