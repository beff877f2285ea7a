"""The arch35_split kernel family (GLU grads), from the GLUGrad and SwiGluGrad sample specs: its plan and files as a
maintainer reads them, and, with the CANN sources, its kernel compiled against asc-devkit for every dtype and shape
mode."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from opgen.cann_sources import resolve_sources
from opgen.check.items import CheckItem
from opgen.check.kernel.host_driver import driver_source
from opgen.check.kernel.host_tiling import TilingHarness
from opgen.check.kernel.run import kernel_run_rows
from opgen.check.kernel.tier import kernel_tier
from opgen.check.numerics import check_golden_file
from opgen.check.ops_nn_ut import ops_nn_ut_tier
from opgen.check.trust import Trust
from opgen.plan import RenderPlan, build_plan
from opgen.render import render_trees
from opgen.spec.attrs import attr_types
from opgen.spec.models import OpSpec

GLU = Path(__file__).parents[2] / "schemas" / "glu_grad.yaml"
SPECS = {"glu_grad": GLU, "swi_glu_grad": GLU.with_name("swi_glu_grad.yaml")}


def _spec(name: str) -> OpSpec:
    data = YAML(typ="safe").load(SPECS[name].read_text(encoding="utf-8"))
    return OpSpec.model_validate(data, context={"attrs": attr_types(data)})


def _plan(name: str) -> RenderPlan:
    return build_plan(_spec(name), str(SPECS[name]))


def _tree(name: str, root: Path) -> tuple[RenderPlan, Path]:
    plan = _plan(name)
    (files,) = render_trees([plan])
    for rel, body in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(body)
    return plan, root


def test_glu_grad_kernel_addresses_the_halves_in_place_and_computes_both_in_one_loop(tmp_path: Path) -> None:
    _, root = _tree("glu_grad", tmp_path)
    kernel = (root / "op_kernel" / "arch35" / "glu_grad.h").read_text(encoding="utf-8")
    # the split input's halves are copied from their places in each row, the half-shaped input from its own rows
    assert "selfGm[row * 2 * half + col]" in kernel and "selfGm[row * 2 * half + half + col]" in kernel
    assert "gradOutGm[row * half + col]" in kernel
    assert "outGm[row * 2 * half + col], daLocal" in kernel and "outGm[row * 2 * half + half + col], dbLocal" in kernel
    loop = kernel.split("for (uint16_t i = 0; i < loops; i++) {", 1)[1].split("\n        }\n", 1)[0]
    assert loop.count("UpdateMask<float>(count)") == 1
    steps = re.findall(r"// (\w+ = \w+\([^)]*\)(?:; \w+ = \w+\([^)]*\))?)", loop)
    assert steps[0] == "s_neg = muls(b, -1.0)" and "da = mul(grad_out, s)" in steps
    assert steps[-1] == "db = mul(grad_out, t3)"
    assert re.search(r"StoreAlign\(dstDa \+ i \* lanes, rDa, mask\)", loop)
    assert re.search(r"StoreAlign\(dstDb \+ i \* lanes, rDb, mask\)", loop)
    assert loop.count("LoadAlign<T, AscendC::MicroAPI::LoadDist::DIST_UNPACK_B16>") == 3  # a, b, grad_out


def test_glu_grad_keys_and_refusals_are_upstreams(tmp_path: Path) -> None:
    """The key is upstream's: ASCENDC_TPL dtype (8 bits) then the shape mode (small 0, big 1); the tiling refuses an
    out-of-range dim and an odd split length with GRAPH_FAILED, as upstream's glu_grad_tiling_common.h does."""
    plan, root = _tree("glu_grad", tmp_path)
    key = (root / "op_kernel" / "arch35" / "glu_grad_tiling_key.h").read_text(encoding="utf-8")
    assert re.search(r"ASCENDC_TPL_DATATYPE_DECL\(T, C_DT_FLOAT16, C_DT_BF16, C_DT_FLOAT, ASCENDC_TPL_INPUT\(1\)\)",
                     key)
    assert "ASCENDC_TPL_UINT_DECL(SHAPE_MODE, 8, ASCENDC_TPL_UI_LIST, TPL_SMALL_SHAPE, TPL_BIG_SHAPE)" in key
    tiling = (root / "op_host" / "glu_grad_tiling.cpp").read_text(encoding="utf-8")
    assert "ASCENDC_TPL_SEL_PARAM(tilingContext, dtypeValue, shapeMode);" in tiling
    assert re.search(r"axis < -rank \|\| axis >= rank,[^;]*return ge::GRAPH_FAILED", tiling, re.S)
    assert re.search(r"shape.GetDim\(axis\) % 2 != 0,[^;]*return ge::GRAPH_FAILED", tiling, re.S)
    assert "GetAttrPointer<int64_t>(ATTR_DIM_INDEX)" in tiling and "ATTR_DIM_INDEX = 0" in tiling
    assert plan.families[0].kernel_entry == "op_kernel/glu_grad.cpp"  # upstream's opFile.value
    assert (root / "op_kernel" / "glu_grad.cpp").read_text(encoding="utf-8").count("GLUGradKernel<T, SHAPE_MODE>") == 1


def test_swiglu_grad_activates_the_first_half(tmp_path: Path) -> None:
    _, root = _tree("swi_glu_grad", tmp_path)
    kernel = (root / "op_kernel" / "arch35" / "swi_glu_grad.h").read_text(encoding="utf-8")
    assert "// s_neg = muls(a, -1.0)" in kernel  # sigmoid of the first half, as upstream's swi_glu_grad_base.h
    assert (root / "op_kernel" / "swi_glu_grad_apt.cpp").is_file()


def test_the_split_kernels_compile_for_every_dtype_and_shape_mode(tmp_path: Path, cann_src: Path) -> None:
    for name in ("glu_grad", "swi_glu_grad"):
        plan, root = _tree(name, tmp_path / name)
        items = kernel_tier(root, plan, resolve_sources(cann_src))
        assert [(i.item, i.status) for i in items] == [
            (f"ascend950 {dtype} compile", "pass") for dtype in (("float16", "bfloat16", "float32") if name ==
                                                                  "glu_grad" else ("float16", "float32", "bfloat16"))]
        assert all("2 instantiation(s)" in i.reason for i in items)


def _run_rows(name: str, root: Path, cann_src: Path, edit: tuple[str, str] | None = None) -> list[CheckItem]:
    plan, op_dir = _tree(name, root / name)
    if edit is not None:
        kernel = op_dir / "op_kernel" / "arch35" / f"{name}.h"
        text = kernel.read_text(encoding="utf-8")
        assert text.count(edit[0]) == 1, edit
        kernel.write_text(text.replace(*edit), encoding="utf-8")
    return kernel_run_rows(op_dir, _spec(name), plan, resolve_sources(cann_src), Trust(allow_exec=True))


def test_glu_grad_runs_on_the_cpu_model_in_both_shape_modes(tmp_path: Path, cann_src: Path) -> None:
    """The kernel, tiled by its own host code, matches the golden for every dtype: the spec's shapes and axis cases,
    a half-row one buffer cannot hold (big-shape mode) and several tiles on many cores."""
    every = _run_rows("glu_grad", tmp_path, cann_src)
    rows = [r for r in every if r.item.endswith(" run")]
    assert [(r.item, r.status) for r in rows] == [
        (f"ascend950 {dtype} run", "pass") for dtype in ("float16", "bfloat16", "float32")], rows
    for row in rows:
        modes = str(row.figures["shape_modes"]).split(";")
        assert set(modes) == {"TPL_SMALL_SHAPE", "TPL_BIG_SHAPE"}
        assert "8x1x3,8x2x3" in str(row.figures["shapes"])  # a middle axis
        assert max(int(c) for c in str(row.figures["cores"]).split(";")) > 8
    # upstream's glu_grad, tiled by its own host code after its TilingParse (which fills the cores and UB its tiling
    # reads), runs on the model (its padded moves, shifts and 64-bit multiply) and matches the golden; the generated
    # kernel equals it bit for bit at fewer vector instructions and the same GM traffic
    oracle = [r for r in every if r.item.endswith(" upstream")]
    assert len(oracle) == 3 and all(r.status == "pass" for r in oracle), oracle
    for row in oracle:
        assert row.figures["generated_vs_upstream_max_ulp"] == 0, row.figures
        assert float(row.figures["vector_instructions_per_element_ratio"]) < 1.0, row.figures
        assert float(row.figures["gm_ub_bytes_per_element_ratio"]) <= 1.0, row.figures


@pytest.mark.parametrize(("fault", "edit"), [
    ("the halves swapped", ("selfGm[row * 2 * half + half + col]", "selfGm[row * 2 * half + col]")),
    ("a tail row dropped", ("rowCount = rows - row < tileRows ? rows - row : tileRows;",
                            "rowCount = rows - row < tileRows ? rows - row - 1 : tileRows;")),
])
def test_a_split_kernel_that_computes_the_wrong_thing_fails_its_run(tmp_path: Path, cann_src: Path, fault: str,
                                                                   edit: tuple[str, str]) -> None:
    rows = [r for r in _run_rows("glu_grad", tmp_path, cann_src, edit) if r.item.endswith(" run")]
    assert rows and all(r.status == "fail" for r in rows), (fault, rows)
    assert all("differs from the golden" in r.reason for r in rows)


def test_golden_py_and_st_rows_take_each_input_at_its_own_shape(tmp_path: Path) -> None:
    """golden.py runs the recipe on halves it splits itself (the numerics tier imports it on the ST rows and every
    sample); each ST row names each input's shape and the dim it runs at."""
    plan, root = _tree("glu_grad", tmp_path)
    results = check_golden_file(root / "tests" / "assets" / "golden.py", _spec("glu_grad"), plan)
    assert results and all(r.passed for r in results), [r.reason for r in results if not r.passed]
    assert {"st:glu_grad_float32_003", "edge 8x2x3 dim=1"} <= {r.sample for r in results}
    rows = list(csv.DictReader(io.StringIO((root / "tests/st/arch35/ttk_kernel_glu_grad_st.csv").read_text())))
    middle = next(r for r in rows if r["testcase_name"] == "glu_grad_float32_003")
    assert (middle["input_shapes"], middle["output_shapes"], middle["attributes"]) == (
        "((8, 1, 3), (8, 2, 3))", "((8, 2, 3),)", "{'dim': 1}")


def test_op_host_uts_expect_upstreams_keys_and_refusals(tmp_path: Path) -> None:
    """Upstream's glu_grad tiling UT expects float16 small-shape key 1 and bfloat16 big-shape key 283; its
    infershape UT refuses a dim out of range and a scalar self."""
    _, root = _tree("glu_grad", tmp_path)
    tiling = (root / "tests/ut/op_host/test_glu_grad_tiling.cpp").read_text(encoding="utf-8")
    assert re.search(r"TEST_F\(GLUGradTilingAscend950, tiling_float16_small_shape\).*?ge::GRAPH_SUCCESS, 1, ",
                     tiling, re.S)
    assert re.search(r"TEST_F\(GLUGradTilingAscend950, tiling_bfloat16_big_shape\).*?ge::GRAPH_SUCCESS, 283, ",
                     tiling, re.S)
    for refused in ("tiling_odd_split_refused", "tiling_dim_out_of_range"):
        assert re.search(rf"{refused}\)\n{{.*?ExecuteTestCase\(tilingContextPara, ge::GRAPH_FAILED\);", tiling, re.S)
    infershape = (root / "tests/ut/op_host/test_glu_grad_infershape.cpp").read_text(encoding="utf-8")
    for refused in ("infershape_dim_out_of_range", "infershape_scalar_refused"):
        assert re.search(rf"{refused}\)\n{{.*?ge::GRAPH_FAILED, expectOutputShape\);", infershape, re.S)
    host = (root / "op_host/glu_grad_infershape.cpp").read_text(encoding="utf-8")
    assert "axis < -rank || axis >= rank" in host and "Ops::Base::IsUnknownRank" in host


def test_the_uts_pass_under_ops_nn_build(tmp_path: Path, cann_src: Path) -> None:
    """ops-nn's own build.sh -u runs the tree's infershape and tiling UTs against its host code (--ophost), the
    aclnnGluBackward UTs against its wrapper (--opapi: the halved gradient's shape follows the dim each case passes;
    a scalar, a dim out of range and an odd length refused) and its kernel UTs on the tikicpulib stand-in
    (--opkernel: per dtype, two cores and the big-shape mode, each against the golden)."""
    plan, root = _tree("glu_grad", tmp_path / "activation" / "glu_grad")
    rows = {r.item: r for r in ops_nn_ut_tier(root, plan, resolve_sources(cann_src), Trust(allow_exec=True))}
    for kind, count in (("op_host", 14), ("op_api", 39), ("op_kernel", 5)):
        row = rows[f"{kind} UTs (ascend950)"]
        assert row.status == "pass" and f"{count}/{count} of the tree's {kind} UTs passed" in row.reason, row


def test_the_aclnn_wrapper_checks_the_split_as_upstreams_does(tmp_path: Path) -> None:
    """aclnnGluBackward (upstream op_api/aclnn_glu_backward.cpp): self has a dim, dim is one of them, self's length
    along it is even, gradOut is self with it halved, out is self's shape; all ACLNN_ERR_PARAM_INVALID."""
    plan, root = _tree("glu_grad", tmp_path)
    wrapper = (root / plan.op_api_dir / "aclnn_glu_backward.cpp").read_text(encoding="utf-8")
    shape = wrapper.split("static bool CheckShape(", 1)[1].split("\n}\n", 1)[0]
    assert shape.startswith("const aclTensor* gradOut, const aclTensor* self, const aclTensor* out, int64_t dim)")
    for check in ("if (rank == 0) {", "if (dim < -rank || dim >= rank) {", "GetDim(axis) % 2 != 0",
                  "OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(gradOut, halved, return false);",
                  "OP_CHECK_SHAPE_NOT_EQUAL(out, self, return false);"):
        assert check in shape, check
    assert "CHECK_RET(CheckShape(gradOut, self, out, dim), ACLNN_ERR_PARAM_INVALID);" in wrapper
    ut = (root / "tests/ut/op_api/test_aclnn_glu_backward.cpp").read_text(encoding="utf-8")
    for refused in ("scalar_rejected", "dim_2_out_of_range", "dim_minus_3_out_of_range", "dim_length_odd_rejected"):
        assert re.search(rf"{refused}\)\n{{.*?EXPECT_EQ\(aclRet, ACLNN_ERR_PARAM_INVALID\);", ut, re.S), refused


@pytest.mark.parametrize(("rel", "edit", "expected"), [
    ("op_host/glu_grad_tiling.cpp", ("shapeMode = TPL_BIG_SHAPE;", "shapeMode = TPL_SMALL_SHAPE;"),
     "declares TPL_BIG_SHAPE, which op_host/glu_grad_tiling.cpp never sets"),
    ("op_host/glu_grad_tiling.cpp", (" && dtype != ge::DT_BF16", ""), "does not dispatch bfloat16"),
    ("op_host/op_api/aclnn_glu_backward.cpp", ("if (dim < -rank || dim >= rank) {", "if (dim < -rank) {"),
     "nothing refuses dim outside [-rank, rank - 1]"),
])
def test_consistency_catches_a_split_trees_wiring_faults(run: Any, tmp_path: Path, rel: str, edit: tuple[str, str],
                                                         expected: str) -> None:
    assert run("gen", GLU, "-o", tmp_path).code == 0
    op_dir = tmp_path / "activation" / "glu_grad"
    assert run("check", op_dir, "--tier", "consistency").code == 0
    text = (op_dir / rel).read_text(encoding="utf-8")
    assert text.count(edit[0]) == 1
    (op_dir / rel).write_text(text.replace(*edit), encoding="utf-8")
    result = run("check", op_dir, "--tier", "consistency")
    assert result.code == 1 and expected in result.out, result.out


def test_a_harness_runs_the_ops_tiling_parse_where_its_own_tiling_ut_does(tmp_path: Path) -> None:
    """Upstream glu_grad's tiling reads cores and UB from the compile info its TilingParse fills: its UT runs the parse
    first, and so does the driver then (before, every launch was refused for an empty compile info)."""
    plan, root = _tree("glu_grad", tmp_path / "glu_grad")
    ut = root / "tests/ut/op_host/test_glu_grad_tiling.cpp"
    ut.write_text('optiling::GluGradCompileInfo compileInfo;\nauto parse = opImpl->tiling_parse;\n', encoding="utf-8")
    harness = TilingHarness.of_tests(root, "arch35")
    assert harness is not None and harness.parses and harness.compile_info == "optiling::GluGradCompileInfo"
    driver = driver_source(root, plan, harness.framework_headers, harness.headers, harness.compile_info,
                           harness.parses)
    assert 'OpgenParse("GLUGrad", &compileInfo, cores, ub);' in driver
    assert "impl->tiling_parse(holder.GetContext<gert::KernelContext>());" in driver
    ut.write_text("optiling::GluGradCompileInfo compileInfo;\n", encoding="utf-8")
    harness = TilingHarness.of_tests(root, "arch35")
    assert harness is not None and not harness.parses
    assert "OpgenParse" not in driver_source(root, plan, (), (), harness.compile_info, harness.parses)


def test_the_kernel_ut_is_named_so_ops_nn_builds_it() -> None:
    """ops-nn's kernel UT build compiles test_<kernel entry stem>*.cpp: an op_file renaming the entry (as `opgen new
    --like` renames glu_grad to reglu_grad for ReGluGrad) names the UT after it; otherwise the op's name stays."""
    assert _plan("glu_grad").families[0].kernel_ut_file == "tests/ut/op_kernel/test_glu_grad.cpp"
    data = YAML(typ="safe").load(GLU.read_text(encoding="utf-8").replace(
        "op_file: glu_grad", "op_file: reglu_grad"))
    plan = build_plan(OpSpec.model_validate(data, context={"attrs": attr_types(data)}), "x.yaml")
    assert plan.families[0].kernel_ut_file == "tests/ut/op_kernel/test_reglu_grad.cpp"
