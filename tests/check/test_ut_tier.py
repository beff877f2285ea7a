"""The ut tier: the generated op_host UTs built against ops-nn's framework from the open sources, and run.

The framework build (minutes, once per sources content) is shared: the first test that needs it builds it
into the user's cache, every later one finds it there.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from opgen.cann_sources import resolve_sources
from opgen.check.items import CheckItem
from opgen.check.runner import run_checks
from opgen.check.trust import Trust
from opgen.check.ut_tier import ut_tier
from opgen.plan.ophost_tests import UT_PLATFORMS

from .trees import SAMPLE_DIRS, by_item, copy_sample, edit, failing, loaded

TRUSTED = Trust(allow_exec=True)
RELU_DIR, GELU_DIR = SAMPLE_DIRS


def ut_items(op_dir: Path, cann_src: Path, trust: Trust = TRUSTED) -> list[CheckItem]:
    _, plan = loaded(op_dir)
    return ut_tier(op_dir, plan, resolve_sources(cann_src), trust)


def test_without_sources_the_tier_is_skipped_with_the_command_that_enables_it(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU_DIR)
    report = run_checks(op_dir, tiers=("ut",))
    [tier] = report.tiers
    assert tier.status == "skip" and "OPGEN_CANN_SRC" in tier.items[0].reason and "ut tier" in tier.items[0].reason


@pytest.mark.parametrize("rel_dir", [RELU_DIR, GELU_DIR])
def test_ut_tier_passes_the_samples_with_their_op_host_uts_run(tmp_path: Path, rel_dir: str,
                                                               cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, rel_dir)
    report = run_checks(op_dir, tiers=("ut",), sources=resolve_sources(cann_src), trust=TRUSTED)
    [tier] = report.tiers
    assert tier.status == "pass", failing(tier.items)
    runs = [i for i in tier.items if i.item.startswith("op_host UTs run")]
    _, plan = loaded(op_dir)
    # one build per registered SoC ops-nn's UT executor knows (not ascend350), as ops-nn's; a SoC without a tiling
    # suite of its own (GeluGrad's 310B: ops-nn has no UT dir for it) runs the infershape UTs alone
    assert {r.item for r in runs} == {f"op_host UTs run ({s.name})" for s in plan.socs if s.name in UT_PLATFORMS}
    for run in runs:
        soc = run.item.split("(")[1].rstrip(")")
        cases = sum(len(s.cases) for s in plan.ophost_ut.tiling_suites if s.soc == soc)
        expected = len(plan.ophost_ut.infershape_cases) + cases
        assert run.figures == {"tests": expected, "passed": expected, "failed": 0}


def test_without_allow_exec_the_uts_compile_and_link_but_do_not_run(tmp_path: Path, cann_src: Path) -> None:
    items = ut_items(copy_sample(tmp_path, RELU_DIR), cann_src, Trust())
    assert by_item(items, "tests/ut/op_host/arch35/test_relu_grad_v2_tiling.cpp compiles").status == "pass"
    assert by_item(items, "op_host UT link (ascend950)").status == "pass"
    run = by_item(items, "op_host UTs run (ascend950)")
    assert run.status == "skip" and "--allow-exec" in run.reason


def test_a_call_to_an_undeclared_helper_fails_the_ut_at_its_line(tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU_DIR)
    ut = op_dir / "tests/ut/op_host/test_gelu_grad_infershape.cpp"
    lines = ut.read_text().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if "ExecuteTestCase(" in text)
    lines.insert(line - 1, "    MakeGeluGradShapes();")
    ut.write_text("\n".join(lines) + "\n")
    items = ut_items(op_dir, cann_src, Trust())
    failed = by_item(items, "tests/ut/op_host/test_gelu_grad_infershape.cpp compiles")
    assert failed.status == "fail"
    assert failed.reason.startswith(f"tests/ut/op_host/test_gelu_grad_infershape.cpp:{line}:")
    assert "MakeGeluGradShapes" in failed.reason
    assert by_item(items, "op_host UTs run (ascend910b)").reason == "not linked: a source above did not compile"


@pytest.mark.parametrize(("old", "new"), [
    ("TILE_ALIGN = 256;", "TILE_ALIGN = 512;"),
    # a tiling row keeping UB the plan gives to tiles (the tile shrinks)
    ("ge::DT_FLOAT, 224, 256},", "ge::DT_FLOAT, 224, 8448},"),
])
def test_a_tiling_field_change_fails_the_tiling_ut_that_expects_the_plans_values(old: str, new: str, tmp_path: Path,
                                                                                 cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU_DIR)
    edit(op_dir / "op_host/gelu_grad_tiling.cpp", old, new)
    items = ut_items(op_dir, cann_src)
    run = by_item(items, "op_host UTs run (ascend910b)")
    assert run.status == "fail" and run.figures["failed"] > 0
    assert "tests/ut/op_host/arch22/test_gelu_grad_tiling.cpp:" in run.reason
    # which dtype's cases fail first depends on the edit (the float32 row moves float32's tile only)
    assert re.search(r"GeluGradTilingAscend910b\.tiling_float(16|32)_test_shape", run.reason)


def test_a_tiling_key_change_fails_the_arch35_tiling_ut(tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU_DIR)
    edit(op_dir / "op_host/arch35/relu_grad_v2_tiling_arch35.cpp", "GET_TPL_TILING_KEY(tiling->scheMode, dType)",
         "GET_TPL_TILING_KEY(0, dType)")
    run = by_item(ut_items(op_dir, cann_src), "op_host UTs run (ascend950)")
    assert run.status == "fail"
    assert "tests/ut/op_host/arch35/test_relu_grad_v2_tiling.cpp:" in run.reason
    assert "ReluGradV2TilingAscend950.tiling_" in run.reason
    _, plan = loaded(op_dir)
    [suite] = plan.ophost_ut.tiling_suites
    assert run.figures["failed"] == sum(1 for c in suite.cases if c.succeeds)


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
    run = by_item(ut_items(op_dir, cann_src), "op_host UTs run (ascend950)")
    assert run.status == "fail" and run.figures["failed"] == 1, run
    assert case in run.reason


def test_a_tiling_mapping_a_value_to_another_values_macro_fails_that_values_uts(tmp_path: Path,
                                                                                 cann_src: Path) -> None:
    """GeluGradV2's approximate: "tanh" keyed as "none" passes every default case and fails each tanh case."""
    op_dir = copy_sample(tmp_path, "activation/gelu_grad_v2")
    edit(op_dir / "op_host/arch35/gelu_grad_v2_tiling_arch35.cpp", "    approximate = TPL_APPROXIMATE_TANH;",
         "    approximate = TPL_APPROXIMATE_NONE;")
    run = by_item(ut_items(op_dir, cann_src), "op_host UTs run (ascend950)")
    _, plan = loaded(op_dir)
    [suite] = plan.ophost_ut.tiling_suites
    tanh = [c.name for c in suite.cases if c.name.endswith("_tanh")]
    assert run.status == "fail" and run.figures["failed"] == len(tanh) == 9
    assert "GeluGradV2TilingAscend950.tiling_bfloat16_same_shapes_tanh" in run.reason


def test_a_bool_choice_keyed_the_other_way_fails_every_tiling_case(tmp_path: Path, cann_src: Path) -> None:
    """EluGradV2's is_result mapped to the other TPL value: each case expects its own value's key."""
    op_dir = copy_sample(tmp_path, "activation/elu_grad_v2")
    edit(op_dir / "op_host/arch35/elu_grad_v2_tiling_arch35.cpp",
         "isResultValue ? TPL_IS_RESULT_TRUE : TPL_IS_RESULT_FALSE",
         "isResultValue ? TPL_IS_RESULT_FALSE : TPL_IS_RESULT_TRUE")
    run = by_item(ut_items(op_dir, cann_src), "op_host UTs run (ascend950)")
    _, plan = loaded(op_dir)
    [suite] = plan.ophost_ut.tiling_suites
    assert run.status == "fail" and run.figures["failed"] == sum(c.succeeds for c in suite.cases)


@pytest.mark.parametrize("condition", ["isResultValue && tiling->alpha < 0.0f", "false && tiling->alpha < 0.0f",
                                       "isResultValue && tiling->alpha < -2.0f"])
def test_a_tiling_that_takes_a_value_below_the_specs_min_fails_that_ut(tmp_path: Path, cann_src: Path,
                                                                      condition: str) -> None:
    """EluGradV2's tiling refuses a negative alpha from the result, as upstream's: a refusal dropped or loosened
    fails exactly the UT at alpha -1 with is_result true; the refusal as generated passes every UT."""
    op_dir = copy_sample(tmp_path, "activation/elu_grad_v2")
    edit(op_dir / "op_host/arch35/elu_grad_v2_tiling_arch35.cpp", "isResultValue && tiling->alpha < 0.0f", condition)
    run = by_item(ut_items(op_dir, cann_src), "op_host UTs run (ascend950)")
    if condition == "isResultValue && tiling->alpha < 0.0f":
        assert run.status == "pass", run
        return
    assert run.status == "fail" and run.figures["failed"] == 1, run
    assert "EluGradV2TilingAscend950.tiling_alpha_below_min" in run.reason


def test_a_tiling_reading_one_attr_for_another_with_the_same_default_fails(tmp_path: Path, cann_src: Path) -> None:
    """EluGradV2's scale and input_scale both default to 1.0: the checked setting gives them distinct values
    (2.25, 2.5), so a tiling that fills scale from input_scale's index fails those cases."""
    op_dir = copy_sample(tmp_path, "activation/elu_grad_v2")
    edit(op_dir / "op_host/arch35/elu_grad_v2_tiling_arch35.cpp", "? *scaleAttr : 1.0f;",
         "? *attrs->GetAttrPointer<float>(2) : 1.0f;")
    run = by_item(ut_items(op_dir, cann_src), "op_host UTs run (ascend950)")
    assert run.status == "fail", run
    assert "EluGradV2TilingAscend950.tiling_bfloat16_test_shape_attrs_" in run.reason
