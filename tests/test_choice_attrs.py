"""A string attr choosing the math (GeluGradV2's approximate): each value picks the compute variant of its name,
one DAG per value that the tiling selects by a TPL argument; the golden, ST rows, op_host UTs and the numerics
check cover every value, and the spec check refuses what cannot be rendered."""

from __future__ import annotations

import csv
import importlib.util
import io
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import SAMPLES, SCHEMAS, copy_spec, snapshot

from opgen.check.numerics import check_numerics
from opgen.plan import build_plan
from opgen.spec.load import load_spec

GELU_V2 = SCHEMAS / "gelu_grad_v2.yaml"
OP = SAMPLES / "activation/gelu_grad_v2"


def _problems(run, tmp_path: Path, edit) -> str:
    spec = copy_spec(GELU_V2, tmp_path, edit)
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2 and "Traceback" not in result.err, result
    assert snapshot(tmp_path / "out") == {}
    return result.err


def test_the_tiling_maps_each_value_to_its_tpl_value_and_refuses_others() -> None:
    tiling = (OP / "op_host/arch35/gelu_grad_v2_tiling_arch35.cpp").read_text()
    assert "const char* approximateAttr = attrs->GetAttrPointer<char>(0);" in tiling
    assert re.search(r'if \(approximateValue == "none"\) \{\s*approximate = TPL_APPROXIMATE_NONE;\s*\} else if '
                     r'\(approximateValue == "tanh"\) \{\s*approximate = TPL_APPROXIMATE_TANH;\s*\} else \{\s*'
                     r'OP_LOGE_FOR_INVALID_VALUE\([^;]*"none or tanh"\);\s*return ge::GRAPH_FAILED;', tiling)
    assert "GET_TPL_TILING_KEY(schMode, dType, approximate)" in tiling
    for dtype, kernel in (("DT_BF16", "bfloat16_t"), ("DT_FLOAT16", "half"), ("DT_FLOAT", "float")):
        for value in ("None", "Tanh"):
            # 16-bit "none" tiles the twin with erf in registers (test_fused_registers.py)
            struct = f"GeluGradV2{value}{'B16' if value == 'None' and kernel != 'float' else ''}Dag"
            assert re.search(rf"outputDtype == ge::{dtype} && approximate == TPL_APPROXIMATE_{value.upper()}\) "
                             rf"\{{\s*dType = \w+;\s*BroadcastBaseTiling<{struct}<{kernel}>::OpDag>",
                             tiling), (dtype, value)


def test_the_kernel_takes_the_tpl_argument_and_runs_each_values_dag() -> None:
    struct = (OP / "op_kernel/arch35/gelu_grad_v2_tiling_struct.h").read_text()
    assert "#define TPL_APPROXIMATE_NONE 0" in struct and "#define TPL_APPROXIMATE_TANH 1" in struct
    assert re.search(r"ASCENDC_TPL_UINT_DECL\(approximate, 1, ASCENDC_TPL_UI_LIST, TPL_APPROXIMATE_NONE,\s*"
                     r"TPL_APPROXIMATE_TANH\)\);", struct)
    selected = "ASCENDC_TPL_UINT_SEL(approximate, ASCENDC_TPL_UI_LIST, TPL_APPROXIMATE_NONE, TPL_APPROXIMATE_TANH)"
    assert selected in struct
    kernel = (OP / "op_kernel/gelu_grad_v2_apt.cpp").read_text()
    assert "template <uint64_t schMode, uint64_t dType, uint64_t approximate>" in kernel
    assert re.search(r"dType == TPL_FP16 && approximate == TPL_APPROXIMATE_TANH\) \{\s*"
                     r"BroadcastSch<schMode, GeluGradV2TanhDag<half>::OpDag>", kernel)
    dag = (OP / "op_kernel/arch35/gelu_grad_v2_dag.h").read_text()
    none, tanh = dag.split('// approximate = "tanh"')
    assert "struct GeluGradV2NoneDag" in none and "Vec::Erf<float>" in none and "MicroAPI::Exp(" in none
    assert "struct GeluGradV2TanhDag" in tanh and "Vec::Erf" not in tanh and "// inv = reciprocal(d)" in tanh


def test_the_golden_runs_the_value_it_is_given_and_refuses_others() -> None:
    module_spec = importlib.util.spec_from_file_location("gelu_grad_v2_golden", OP / "tests/assets/golden.py")
    assert module_spec and module_spec.loader
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    x = np.linspace(-3.0, 3.0, 13, dtype=np.float32)
    dy = np.ones_like(x)
    exact = module.gelu_grad_v2_golden(dy, x)
    tanh = module.gelu_grad_v2_golden(dy, x, approximate="tanh")
    assert np.array_equal(exact, module.gelu_grad_v2_golden(dy, x, approximate="none"))
    assert np.abs(exact - tanh).max() > 1e-4  # the two GELUs differ ...
    assert np.allclose(exact, tanh, atol=2e-2)  # ... by the approximation's error
    with pytest.raises(ValueError, match="approximate must be one of"):
        module.gelu_grad_v2_golden(dy, x, approximate="sigmoid")


def test_st_rows_and_tiling_uts_cover_every_value() -> None:
    rows = list(csv.DictReader(io.StringIO((OP / "tests/st/arch35/ttk_kernel_gelu_grad_v2_st.csv").read_text())))
    by_value = {v: [r["testcase_name"] for r in rows if r["attributes"] == f"{{'approximate': '{v}'}}"]
                for v in ("none", "tanh")}
    assert "gelu_grad_v2_float16_tanh_edge_nan" in by_value["tanh"]
    plain = {n for n in by_value["none"] if "ascend950" not in n}  # the multi-core rows run the default
    assert {n.replace("_tanh", "") for n in by_value["tanh"]} == plain
    ut = (OP / "tests/ut/op_host/arch35/test_gelu_grad_v2_tiling.cpp").read_text()
    keys = dict(re.findall(r"TEST_F\(GeluGradV2TilingAscend950, (\w+)\)(?:(?!TEST_F).)*?ExecuteTestCase\("
                           r"tilingContextPara, ge::GRAPH_SUCCESS, (\d+)", ut, re.S))
    shift = 9 + 8  # schMode's 9 bits (its values up to 305), then dType's 8
    assert int(keys["tiling_float16_same_shapes_tanh"]) == int(keys["tiling_float16_same_shapes"]) + (1 << shift)
    assert re.search(r'tiling_approximate_invalid\)(?:(?!TEST_F).)*CreateFrom<std::string>\("invalid"\)'
                     r"(?:(?!TEST_F).)*ExecuteTestCase\(tilingContextPara, ge::GRAPH_FAILED\)", ut, re.S)


def test_numerics_runs_each_variant_at_its_value_only() -> None:
    spec = load_spec(GELU_V2).spec
    results = check_numerics(spec, build_plan(spec, GELU_V2.name))
    ran = {(r.variant, r.sample) for r in results}
    assert ("tanh", "random approximate='tanh'") in ran and ("none", "random") in ran
    assert not {(v, s) for v, s in ran if (v == "tanh") != ("approximate='tanh'" in s)}
    assert not [r for r in results if r.failures]


def test_a_value_running_the_other_values_math_fails_numerics_at_that_value(tmp_path: Path) -> None:
    """The tanh variant written with the erf math passes at approximate none and fails at tanh."""
    text = GELU_V2.read_text()
    erf = text[text.index("    none:\n") + len("    none:\n"):text.index("    # the tanh GELU")]
    tanh = text[text.index("    tanh:\n") + len("    tanh:\n"):text.index("\naclnn:")]
    spec = load_spec(copy_spec(GELU_V2, tmp_path, lambda t: t.replace(tanh, erf + "\n"))).spec
    results = check_numerics(spec, build_plan(spec, GELU_V2.name))
    failing = {r.sample for r in results if r.failures}
    assert failing and all("approximate='tanh'" in s for s in failing), failing


@pytest.mark.parametrize(("edit", "field", "message"), [
    (lambda t: t.replace("kernel: arch35_dag", "kernel: classic_arch35\n    tiling_key: 0"), "platforms[0].kernel",
     "string attr approximate chooses the math, which is built for arch35_dag kernels"),
    (lambda t: t.replace("kernel: arch35_dag", "kernel: arch35_dag\n    compute_variant: tanh"),
     "platforms[0].compute_variant", "approximate picks the variant by its value on every platform"),
    (lambda t: t.replace("    tanh:\n", "    sigmoid:\n"), "attrs[0].values", "no compute variant for 'tanh'"),
    (lambda t: t.replace("    tanh:\n", "    sigmoid:\n"), "compute.variants.sigmoid",
     "'sigmoid' is picked by no value of approximate (none, tanh), whose values pick the variant"),
    (lambda t: t.replace("default: none\n    values", "default: erf\n    values"), "attrs[0].default",
     "'erf' is not one of values"),
    (lambda t: t.replace("values: [none, tanh]", "values: [none, tanh, TANH]"), "attrs[0].values",
     "list each value once, and not twice in different case"),
    (lambda t: t.replace('where(approximate == "tanh"', 'where(approximate == "sigmoid"'), "golden.reference.forward",
     "'sigmoid' is not one of approximate's values (none, tanh)"),
    (lambda t: t.replace('where(approximate == "tanh", ', "approximate * where(1 > 0, "), "golden.reference.forward",
     "'approximate' is a string attr, not a number"),
    (lambda t: t.replace('where(approximate == "tanh"', 'where(x == "tanh"'), "golden.reference.forward",
     "'x' is tested against the string 'tanh', but is no string attr"),
])
def test_a_choice_the_tree_cannot_carry_is_refused(run, tmp_path: Path, edit, field: str, message: str) -> None:
    err = _problems(run, tmp_path, edit)
    assert re.search(rf"gelu_grad_v2\.yaml:\d+: {re.escape(field)}: {re.escape(message)}", err), err


ELU_V2 = SCHEMAS / "elu_grad_v2.yaml"
ELU_OP = SAMPLES / "activation/elu_grad_v2"


def test_a_bool_attr_picks_its_variants_dag_by_a_tpl_argument() -> None:
    tiling = (ELU_OP / "op_host/arch35/elu_grad_v2_tiling_arch35.cpp").read_text()
    assert "const bool* isResultAttr = attrs->GetAttrPointer<bool>(3);" in tiling
    assert "const bool isResultValue = isResultAttr != nullptr ? *isResultAttr : false;" in tiling
    assert "const uint64_t isResult = isResultValue ? TPL_IS_RESULT_TRUE : TPL_IS_RESULT_FALSE;" in tiling
    assert "GET_TPL_TILING_KEY(tiling->baseTiling.scheMode, dType, isResult)" in tiling
    assert re.search(r"outputDtype == ge::DT_FLOAT && isResult == TPL_IS_RESULT_TRUE\) \{\s*dType = TPL_FP32;\s*"
                     r"tilingStatus = elewiseBaseTiling.DoTiling<EluGradV2IsResultTrueDag<float>::OpDag>", tiling)
    kernel = (ELU_OP / "op_kernel/elu_grad_v2_apt.cpp").read_text()
    assert "template <uint64_t schMode, uint64_t dType, uint64_t isResult>" in kernel
    assert re.search(r"dType == TPL_FP16 && isResult == TPL_IS_RESULT_FALSE\) \{\s*"
                     r"ElementwiseSch<schMode, EluGradV2IsResultFalseDag<half>::OpDag>", kernel)
    dag = (ELU_OP / "op_kernel/arch35/elu_grad_v2_dag.h").read_text()
    from_input, from_result = dag.split("// is_result = true")
    assert "struct EluGradV2IsResultFalseDag" in from_input and "MicroAPI::Exp(" in from_input
    assert "struct EluGradV2IsResultTrueDag" in from_result and "Exp(" not in from_result
    assert re.search(r"Duplicate\(rConst0, attrAlpha\); +// a0 = fill\(alpha\)", from_result)


def test_the_golden_st_rows_and_uts_of_a_bool_choice() -> None:
    module_spec = importlib.util.spec_from_file_location("elu_grad_v2_golden", ELU_OP / "tests/assets/golden.py")
    assert module_spec and module_spec.loader
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    grads = np.ones(4, dtype=np.float32)
    activations = np.array([-1.0, -0.5, 0.0, 2.0], dtype=np.float32)
    from_x = module.elu_grad_v2_golden(grads, activations)
    from_y = module.elu_grad_v2_golden(grads, activations, is_result=True)
    assert np.allclose(from_x, [np.exp(-1.0), np.exp(-0.5), 1.0, 1.0])  # exp(x) below 0, 1 above
    assert np.allclose(from_y, [0.0, 0.5, 1.0, 1.0])  # y + 1 below 0
    rows = list(csv.DictReader(io.StringIO((ELU_OP / "tests/st/arch35/ttk_kernel_elu_grad_v2_st.csv").read_text())))
    picked = {r["testcase_name"]: r["attributes"] for r in rows}
    assert "'is_result': True" in picked["elu_grad_v2_float16_is_result_true_edge_nan"]
    assert "'is_result': False" in picked["elu_grad_v2_float16_edge_nan"]
    ut = (ELU_OP / "tests/ut/op_host/arch35/test_elu_grad_v2_tiling.cpp").read_text()
    keys = dict(re.findall(r"TEST_F\(EluGradV2TilingAscend950, (\w+)\)(?:(?!TEST_F).)*?ExecuteTestCase\("
                           r"tilingContextPara, ge::GRAPH_SUCCESS, (\d+)", ut, re.S))
    shift = 1 + 8  # schMode's 1 bit (0 and 1), then dType's 8
    for case, key in keys.items():
        if case.endswith("_is_result_true"):
            assert int(key) == int(keys[case.removesuffix("_is_result_true")]) + (1 << shift), case
    assert sum(c.endswith("_is_result_true") for c in keys) == 6  # 3 dtypes x 2 shapes
    assert "invalid" not in ut  # a bool takes no other value


def test_numerics_runs_each_bool_variant_at_its_value_and_a_swapped_variant_fails(tmp_path: Path) -> None:
    spec = load_spec(ELU_V2).spec
    results = check_numerics(spec, build_plan(spec, ELU_V2.name))
    assert not [r for r in results if r.failures]
    assert {r.variant for r in results if "is_result=True" in r.sample} == {"from_result"}
    swapped = load_spec(copy_spec(ELU_V2, tmp_path, lambda t: t.replace(
        "{false: from_input, true: from_result}", "{false: from_result, true: from_input}"))).spec
    failing = {r.sample for r in check_numerics(swapped, build_plan(swapped, ELU_V2.name)) if r.failures}
    assert any("is_result=True" in s for s in failing) and any("is_result" not in s for s in failing), failing


@pytest.mark.parametrize(("edit", "field", "message"), [
    (lambda t: t.replace("{false: from_input, true: from_result}", "{true: from_result}"), "attrs[3].variants",
     "name the variant of each value: {false: <variant>, true: <variant>}; is_result maps only true"),
    (lambda t: t.replace("{false: from_input, true: from_result}", "{false: from_result, true: from_result}"),
     "attrs[3].variants", "both values pick 'from_result': then is_result does not choose the math"),
    (lambda t: t.replace("{false: from_input, true: from_result}", "{false: from_x, true: from_result}"),
     "attrs[3].variants", "no compute variant 'from_x'"),
    (lambda t: t.replace("    default: false\n", "    default: false\n    check_value: true\n"),
     "attrs[3].check_value", "is_result chooses the math: the check runs both values"),
    (lambda t: t.replace("    min_when: is_result\n", "    min_when: is_result\n    variants: {false: from_input}\n"),
     "attrs[0].variants", "only bool attrs map values to variants; alpha is a float"),
    (lambda t: t.replace("    grad: grads\n", "    grad: gradz\n"), "golden.reference.grad", "'gradz' is not an input"),
    (lambda t: t.replace("    grad: grads\n", "    grad: grads\n    wrt: activations\n"), "golden.reference",
     "wrt belongs to forward"),
])
def test_a_bool_choice_the_tree_cannot_carry_is_refused(run, tmp_path: Path, edit, field: str, message: str) -> None:
    spec = copy_spec(ELU_V2, tmp_path, edit)
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2 and "Traceback" not in result.err, result
    assert snapshot(tmp_path / "out") == {}
    assert re.search(rf"elu_grad_v2\.yaml:\d+: {re.escape(field)}: {re.escape(message)}", result.err), result.err
