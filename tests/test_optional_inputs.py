"""Optional inputs that may be absent (MishGrad's tanhx): the spec rule, both kernel paths, golden, ST, UT."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import SCHEMAS, copy_spec, snapshot

from opgen.check.numerics import check_numerics, load_golden
from opgen.plan import build_plan
from opgen.plan.testcases.st_cases import read_st_value
from opgen.spec.load import load_spec

MISH = SCHEMAS / "mish_grad.yaml"
ABSENT_BLOCK = "  absent:\n    tanhx:\n      - sp = softplus(x)\n      - tanhx = tanh(sp)\n"
LINE = re.compile(r"^(error: )?\S+mish_grad\.yaml:\d+: (?P<field>\S+): ")


def _refused(run, tmp_path: Path, edit) -> list[str]:
    spec = copy_spec(MISH, tmp_path, edit)
    out = tmp_path / "out"
    result = run("gen", spec, "-o", out)
    assert result.code == 2, result
    assert snapshot(out) == {}
    assert "Traceback" not in result.err
    return [line for line in result.err.strip().splitlines() if LINE.match(line)]


@pytest.fixture(scope="module")
def mish(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from opgen.generate import render_specs

    out = tmp_path_factory.mktemp("mish")
    for rel, data in render_specs([MISH])[0].files.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(data)
    return out


def test_reading_an_optional_input_needs_its_absent_steps(run, tmp_path: Path) -> None:
    assert ABSENT_BLOCK in MISH.read_text(encoding="utf-8")
    lines = _refused(run, tmp_path, lambda t: t.replace(ABSENT_BLOCK, ""))
    assert [LINE.match(line).group("field") for line in lines] == ["inputs[2].param_type"]  # type: ignore[union-attr]
    assert "reads optional input 'tanhx', which may be absent: give compute.absent.tanhx" in lines[0]


def test_absent_steps_must_assign_the_input_from_present_inputs(run, tmp_path: Path) -> None:
    lines = _refused(run, tmp_path, lambda t: t.replace("      - tanhx = tanh(sp)\n", "      - th = tanh(tanhx)\n"))
    text = "\n".join(lines)
    assert "compute.absent.tanhx" in text
    assert "'tanhx' is not a present input or an earlier step's value" in text
    assert "the last step must assign 'tanhx'" in text


def test_absent_steps_for_a_required_input_are_refused(run, tmp_path: Path) -> None:
    lines = _refused(run, tmp_path, lambda t: t.replace("  absent:\n    tanhx:", "  absent:\n    x:"))
    text = "\n".join(lines)
    assert "compute.absent.x: 'x' is not an optional input" in text
    assert "inputs[2].param_type" in text  # and tanhx is read with no absent steps


def test_the_output_shape_cannot_come_from_an_optional_input(run, tmp_path: Path) -> None:
    lines = _refused(run, tmp_path, lambda t: t.replace("  rule: elementwise\n",
                                                        "  rule: same_as_input\n  input: tanhx\n"))
    assert any("infershape.input: 'tanhx' is optional and may be absent" in line for line in lines), lines


def test_the_tiling_picks_the_dag_by_presence_and_the_kernel_inits_without_the_input(mish: Path) -> None:
    tiling = (mish / "op_host/arch35/mish_grad_tiling_arch35.cpp").read_text(encoding="utf-8")
    assert "const bool tanhxPresent = tilingContext->GetOptionalInputDesc(2) != nullptr;" in tiling
    assert "(outputDtype == ge::DT_FLOAT && !tanhxPresent) {\n        dType = TPL_FP32_WITHOUT_TANHX;" in tiling
    assert "DoTiling<MishGradWithoutTanhxDag<float>::OpDag>" in tiling
    assert "tanhxDesc != nullptr && tanhxDesc->GetDataType() != outputDtype" in tiling  # dtype checked if given
    dag = (mish / "op_kernel/arch35/mish_grad_dag.h").read_text(encoding="utf-8")
    absent_dag = dag.split("struct MishGradWithoutTanhxDag")[1]
    assert "Placeholder::In2" not in absent_dag and "Bind<MishGradWithoutTanhxFused0<" in absent_dag
    assert "Placeholder::In2" in dag.split("struct MishGradWithoutTanhxDag")[0]
    entry = (mish / "op_kernel/mish_grad_apt.cpp").read_text(encoding="utf-8")
    assert "(dType == TPL_FP16_WITHOUT_TANHX) {\n        ElementwiseSch<schMode, MishGradWithoutTanhxDag<half>" in entry
    assert entry.count("sch.Init(grad, x, x_grad);") == 3 and entry.count("sch.Init(grad, x, tanhx, x_grad);") == 3
    codes = re.findall(r"#define (TPL_\w+) (\d+)", (mish / "op_kernel/arch35/mish_grad_tiling_struct.h").read_text())
    assert len({code for _, code in codes if _.startswith(("TPL_FP", "TPL_BF"))}) == 6  # distinct per path


def test_the_golden_takes_the_input_as_none(mish: Path) -> None:
    plan = build_plan(load_spec(MISH).spec, str(MISH))
    golden = load_golden(mish / "tests/assets/golden.py", plan)
    rng = np.random.default_rng(0)
    x = rng.uniform(-4, 4, (8, 16)).astype(np.float32)
    grad = rng.uniform(-2, 2, (8, 16)).astype(np.float32)
    meaning = np.tanh(np.log1p(np.exp(x))).astype(np.float32)
    without = golden(grad, x)
    assert without.dtype == np.float32 and without.shape == x.shape
    np.testing.assert_allclose(golden(grad, x, None), without)
    np.testing.assert_allclose(golden(grad, x, meaning), without, rtol=1e-5, atol=1e-6)
    assert not np.allclose(golden(grad, x, np.zeros_like(x)), without)  # given, it is read


def test_st_rows_leave_the_input_out(mish: Path) -> None:
    rows = list(csv.DictReader(io.StringIO((mish / "tests/st/arch35/ttk_kernel_mish_grad_st.csv").read_text())))
    absent = [r for r in rows if "without_tanhx" in r["testcase_name"]]
    assert {read_st_value(r["input_dtypes"])[0] for r in absent} == {"bfloat16", "float16", "float32"}
    for row in absent:
        for column in ("input_dtypes", "input_shapes", "input_ori_shapes", "input_formats", "input_data_ranges"):
            assert read_st_value(row[column])[2] is None, (row["testcase_name"], column)
    assert all(read_st_value(r["input_dtypes"])[2] is not None for r in rows if r not in absent)


def test_op_host_uts_have_cases_without_the_input(mish: Path) -> None:
    tiling = (mish / "tests/ut/op_host/arch35/test_mish_grad_tiling.cpp").read_text(encoding="utf-8")
    case = tiling.split("tiling_float16_test_shape_without_tanhx)")[1].split("TEST_F")[0]
    assert case.count("ge::DT_FLOAT16, ge::FORMAT_ND}") == 3  # grad, x; x_grad
    assert "{}, {1, 1, 0}, {1}, &compileInfo" in case
    assert "ExecuteTestCase(tilingContextPara, ge::GRAPH_SUCCESS, 35," in case  # schMode 1 | (1 + 16) << 1
    infershape = (mish / "tests/ut/op_host/test_mish_grad_infershape.cpp").read_text(encoding="utf-8")
    case = infershape.split("infershape_static_bfloat16_without_tanhx)")[1].split("TEST_F")[0]
    assert "{1, 1, 0}, {1});" in case and case.count("ge::DT_BF16, ge::FORMAT_ND}") == 3


def test_the_l0_op_gets_nullptr_for_the_input_the_api_does_not_take(mish: Path) -> None:
    wrapper = (mish / "op_api/aclnn_mish_backward.cpp").read_text(encoding="utf-8")
    assert re.search(r"l0op::MishGrad\(\s*gradOutputContiguous,\s*selfContiguous,\s*nullptr,", wrapper), wrapper


def test_numerics_check_both_paths_and_catch_a_fault_in_either() -> None:
    spec = load_spec(MISH).spec
    results = check_numerics(spec, build_plan(spec, "mish_grad"))
    variants = {r.variant for r in results}
    assert variants == {"default", "default_without_tanhx"}
    assert all(r.passed for r in results)
    absent = spec.compute.absent["tanhx"]
    broken = spec.model_copy(update={"compute": spec.compute.model_copy(update={
        "absent": {"tanhx": (absent[0], replace(absent[1], op="sigmoid"))}})})
    failed = {r.variant for r in check_numerics(broken, build_plan(broken, "mish_grad")) if not r.passed}
    assert "default_without_tanhx" in failed  # (the present path's tanhx is drawn from these steps too)


def _mixed_mish(text: str) -> str:
    """MishGrad with a fourth column: float16 inputs, a float32 output; same_dtype without the output."""
    for name in ("grad", "x", "tanhx"):
        text = text.replace(f"  - name: {name}\n    dtypes: [bfloat16, float16, float32]",
                            f"  - name: {name}\n    dtypes: [bfloat16, float16, float32, float16]")
    text = text.replace("  - name: x_grad\n    dtypes: [bfloat16, float16, float32]",
                        "  - name: x_grad\n    dtypes: [bfloat16, float16, float32, float32]")
    return text.replace("same_dtype: [grad, x, tanhx, x_grad]", "same_dtype: [grad, x, tanhx]")


def test_absent_input_with_mixed_columns_checks_numerics_on_both_paths(run, tmp_path: Path) -> None:
    """Columns 1 and 3 share their inputs' dtypes: the golden takes the output dtype the test kit passes, and
    the tiling checks the inputs against each other, not against the float32 output."""
    spec = copy_spec(MISH, tmp_path, _mixed_mish)
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
    op = tmp_path / "out" / "activation" / "mish_grad"
    tiling = (op / "op_host" / "arch35" / "mish_grad_tiling_arch35.cpp").read_text()
    assert "tanhxDesc->GetDataType() != gradDesc->GetDataType()" in tiling
    assert "!= outputDtype" not in tiling
    golden = load_golden(op / "tests" / "assets" / "golden.py", build_plan(load_spec(spec).spec, "mish_grad"))
    half = np.linspace(-4, 4, 64, dtype=np.float16)
    for out_dtype in ("float16", "float32"):
        for tanhx in (np.tanh(np.log1p(np.exp(half))), None):
            got = golden(half, half, tanhx, output_dtypes=[out_dtype])
            assert got.dtype == np.dtype(out_dtype)
    checked = run("check", op, "--spec", spec, "--allow-exec")
    flat = re.sub(r"[│\s]+", " ", checked.out)
    assert checked.code == 0, flat
    assert re.search(r"numerics \(tier\) PASS 29 passed, 0 failed", flat), flat  # 4 columns, both paths
    assert "float16 -> float32 [edge without tanhx]" in flat, flat
