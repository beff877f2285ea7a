"""Attrs as aclnn API parameters (`aclnn.scalars`): what the wrapper, the l0 op, the docs, the example and the
op_api UT print for each parameter type, and the spec problems, one line each."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, copy_spec, snapshot

from opgen.cann_sources import resolve_sources
from opgen.check.consistency import consistency_tier
from opgen.check.headers import compile_command, op_api_ut_dirs
from opgen.plan import build_plan
from opgen.spec.load import load_spec

SPEC = ROOT / "schemas" / "hard_sigmoid_grad.yaml"  # def attrs alpha, beta (float); no API scalar upstream
API_INPUTS = "    - {name: self, tensor: input_x}\n"
# API order differs from def order (alpha, beta, steps, conj): the l0 op still takes them in def order
SCALARS = """  scalars:
    - {name: betaScalar, attr: beta, type: double}
    - {name: steps, attr: steps}
    - {name: alphaOptional, attr: alpha, optional: true}
    - {name: conj, attr: conj, type: bool}
"""
EXTRA_ATTRS = """  - {name: steps, type: int, default: 3, doc: A count the math does not read.}
  - {name: conj, type: bool, default: false, doc: A flag the math does not read.}
"""
LINE = re.compile(r"^error: (?P<file>\S+\.yaml):(?P<line>\d+): (?P<field>\S+): (?P<message>.+)$")


def _with_scalars(text: str, scalars: str = SCALARS) -> str:
    text = text.replace("  - {name: beta, type: float, default: 0.5, doc: The offset.}\n",
                        "  - {name: beta, type: float, default: 0.5, doc: The offset.}\n" + EXTRA_ATTRS)
    return text.replace(API_INPUTS, API_INPUTS + scalars)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from opgen.generate import render_specs, write_ops

    base = tmp_path_factory.mktemp("scalars")
    spec = copy_spec(SPEC, base, _with_scalars)
    write_ops(base / "out", render_specs([spec]), force=False, record_dir=base / ".opgen")
    return base / "out" / "activation" / "hard_sigmoid_grad"


def _read(tree: Path, rel: str) -> str:
    return " ".join((tree / rel).read_text(encoding="utf-8").split())  # clang-format wraps: compare tokens


SIGNATURE = ("aclnnHardsigmoidBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self, "
             "double betaScalar, const aclScalar* steps, const aclScalar* alphaOptional, bool conj, "
             "aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)")


def test_header_wrapper_and_docs_declare_the_scalars_in_api_order(tree: Path) -> None:
    for rel in ("op_api/aclnn_hardsigmoid_backward.h", "op_api/aclnn_hardsigmoid_backward.cpp",
                "docs/aclnnHardsigmoidBackward.md"):
        assert SIGNATURE in _read(tree, rel), rel


def test_wrapper_converts_each_scalar_and_calls_the_l0_in_def_order(tree: Path) -> None:
    text = _read(tree, "op_api/aclnn_hardsigmoid_backward.cpp")
    assert ("float alphaValue = alphaOptional == nullptr ? 0.16666666666666666f : alphaOptional->ToFloat();"
            in text)  # the optional aclScalar: nullptr is the def default
    assert "float betaValue = static_cast<float>(betaScalar);" in text
    assert "int64_t stepsValue = steps->ToInt64();" in text
    assert ("l0op::HardSigmoidGrad(gradOutputContiguous, selfContiguous, alphaValue, betaValue, stepsValue, conj, "
            "opExecutor)") in text
    # only the required aclScalar is null-checked; a by-value or optional one is no CheckNotNull parameter
    assert ("CheckNotNull(const aclTensor* gradOutput, const aclTensor* self, const aclScalar* steps, "
            "const aclTensor* out)") in text
    assert "OP_CHECK_NULL(steps, return false);" in text and "OP_CHECK_NULL(alphaOptional" not in text


def test_wrapper_refuses_an_acl_scalar_whose_dtype_does_not_cast_to_the_attrs(tree: Path) -> None:
    text = _read(tree, "op_api/aclnn_hardsigmoid_backward.cpp")
    assert "if (!CanCast(steps->GetDataType(), DataType::DT_INT64)) {" in text
    assert "if (alphaOptional != nullptr && !CanCast(alphaOptional->GetDataType(), DataType::DT_FLOAT)) {" in text
    assert "CHECK_RET(CheckScalarDtype(steps, alphaOptional), ACLNN_ERR_PARAM_INVALID);" in text
    assert "CanCast(betaScalar" not in text and "CanCast(conj" not in text  # by value: the C++ type is checked


def test_the_def_default_the_wrapper_uses_is_the_defs(tree: Path) -> None:
    """nullptr for alphaOptional must give exactly the value the def registers for alpha."""
    wrapper = _read(tree, "op_api/aclnn_hardsigmoid_backward.cpp")
    default = re.search(r"alphaOptional == nullptr \? (\S+) :", wrapper)
    definition = _read(tree, "op_host/hard_sigmoid_grad_def.cpp")
    assert default is not None
    assert f'this->Attr("alpha").AttrType(OPTIONAL).Float({default.group(1)});' in definition


def test_l0_takes_every_attr_in_def_order_and_launches_with_op_attr(tree: Path) -> None:
    params = ("HardSigmoidGrad(const aclTensor* grads, const aclTensor* input_x, float alpha, float beta, "
              "int64_t steps, bool conj, aclOpExecutor* executor)")
    assert params in _read(tree, "op_api/hardsigmoid_grad.h")
    l0 = _read(tree, "op_api/hardsigmoid_grad.cpp")
    assert params in l0
    assert "L0_DFX(HardSigmoidGrad, grads, input_x, alpha, beta, steps, conj);" in l0
    assert "OP_OUTPUT(y), OP_ATTR(alpha, beta, steps, conj));" in l0


def test_docs_describe_each_scalar_and_its_attr(tree: Path) -> None:
    docs = (tree / "docs/aclnnHardsigmoidBackward.md").read_text(encoding="utf-8")
    rows = [line for line in docs.splitlines() if line.startswith(("| betaScalar ", "| steps ", "| alphaOptional ",
                                                                   "| conj "))]
    assert rows == [
        "| betaScalar | input | The offset. It sets attr beta; required (the def default is 0.5). | double | - |",
        "| steps | input | A count the math does not read. It sets attr steps; required (the def default is 3). | "
        "aclScalar (INT64, read with ToInt64) | - |",
        "| alphaOptional | input | The slope. It sets attr alpha; nullptr gives its def default 0.16666666666666666. "
        "| aclScalar (FLOAT, read with ToFloat) | - |",
        "| conj | input | A flag the math does not read. It sets attr conj; required (the def default is false). "
        "| bool | - |",
    ]


def test_example_creates_passes_and_destroys_the_scalars(tree: Path) -> None:
    text = _read(tree, "examples/test_aclnn_hardsigmoid_backward.cpp")
    for line in ("double betaScalar = 0.5;", "int64_t stepsValue = 3;",
                 "aclScalar* steps = aclCreateScalar(&stepsValue, ACL_INT64);",
                 "float alphaValue = 0.16666666666666666f;",
                 "aclScalar* alphaOptional = aclCreateScalar(&alphaValue, ACL_FLOAT);", "bool conj = false;",
                 "aclnnHardsigmoidBackwardGetWorkspaceSize(gradOutput, self, betaScalar, steps, alphaOptional, conj, "
                 "out,", "aclDestroyScalar(steps);", "aclDestroyScalar(alphaOptional);"):
        assert line in text, line
    assert "aclDestroyScalar(betaScalar)" not in text and "aclDestroyScalar(conj)" not in text


def _ut_case(text: str, suffix: str) -> str:
    m = re.search(rf"TEST_F\(\w+, hardsigmoid_backward_\d+_{suffix}\) \{{(.*?)(?=TEST_F|$)", text)
    assert m is not None, suffix
    return m.group(1)


def test_op_api_ut_null_and_non_default_cases(tree: Path) -> None:
    text = _read(tree, "tests/ut/op_api/test_aclnn_hardsigmoid_backward.cpp")
    required = _ut_case(text, "null_steps")
    assert "INPUT(gradOutputDesc, selfDesc, 0.5, (aclScalar*)nullptr, alphaOptionalDesc, false)" in required
    assert "EXPECT_EQ(aclRet, ACLNN_ERR_PARAM_NULLPTR);" in required
    optional = _ut_case(text, "null_alphaOptional_takes_default")
    assert "INPUT(gradOutputDesc, selfDesc, 0.5, stepsDesc, (aclScalar*)nullptr, false)" in optional
    assert "EXPECT_EQ(aclRet, ACLNN_SUCCESS);" in optional
    changed = _ut_case(text, "scalars_not_default")
    assert "auto stepsDesc = ScalarDesc(static_cast<int64_t>(6));" in changed  # 3 + 1 + its place (2)
    assert "auto alphaOptionalDesc = ScalarDesc(0.3333333333333333f);" in changed
    assert "INPUT(gradOutputDesc, selfDesc, 1.25, stepsDesc, alphaOptionalDesc, true)" in changed
    assert "EXPECT_EQ(aclRet, ACLNN_SUCCESS);" in changed
    assert "null_betaScalar" not in text and "null_conj" not in text  # by value: nothing to null
    refused = _ut_case(text, "steps_float_rejected")  # CanCast(DT_FLOAT, DT_INT64) is false
    assert "auto stepsDesc = ScalarDesc(1.5f);" in refused and "EXPECT_EQ(aclRet, ACLNN_ERR_PARAM_INVALID);" in refused
    assert "alphaOptional_float_rejected" not in text  # every real dtype casts to float


def test_the_check_agrees_with_the_tree(tree: Path) -> None:
    spec = load_spec(next((tree.parents[2] / ".opgen").rglob("spec.yaml")))
    items = {i.item: i for i in consistency_tier(tree, build_plan(spec.spec, spec.path.name))}
    assert items["l0 OP_ATTR == def attrs"].reason == \
        "OP_ATTR(alpha: float, beta: float, steps: int64_t, conj: bool)"
    assert items["aclnn signature: header == wrapper == docs"].status == "pass"
    assert items["aclnn wrapper -> l0 attrs == docs, def defaults"].reason == \
        "alpha <- alphaOptional; beta <- betaScalar; steps <- steps; conj <- conj"


@pytest.mark.parametrize(("rel", "ut"), [
    ("tests/ut/op_api/test_aclnn_hardsigmoid_backward.cpp", True),
    ("op_api/aclnn_hardsigmoid_backward.cpp", False),
    ("op_api/hardsigmoid_grad.cpp", False),
])
def test_every_parameter_type_compiles(cann_src: Path, tree: Path, rel: str, ut: bool) -> None:
    """The UT (ScalarDesc, by-value double and bool, nullptr), the wrapper and the l0 op, with -fsyntax-only
    against the real op_api headers (and the op_api UT framework, its stub dir first)."""
    if shutil.which("g++") is None:
        pytest.skip("needs g++")
    sources = resolve_sources(cann_src, None)
    assert sources is not None
    dirs = op_api_ut_dirs(sources) if ut else sources.host_include_dirs(op_api=True)
    result = subprocess.run(compile_command("g++", tree, rel, "op_api", dirs), capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-3000:]


# value rules: a by-value double clamped, an int aclScalar refused below 1, an optional aclScalar refused below 0
# while the attr-less flag `strict` is true
RULES = """  scalars:
    - {name: betaScalar, attr: beta, type: double, min: -1, on_violation: clamp}
    - {name: steps, attr: steps, min: 1, on_violation: error}
    - {name: alphaOptional, attr: alpha, optional: true, min: 0, when: strict}
    - {name: strict, type: bool, doc: Refuse a negative slope.}
    - {name: conj, attr: conj, type: bool}
"""
RULED_WRAPPER = "op_api/aclnn_hardsigmoid_backward.cpp"


@pytest.fixture(scope="module")
def ruled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from opgen.generate import render_specs, write_ops

    base = tmp_path_factory.mktemp("rules")
    spec = copy_spec(SPEC, base, lambda t: _with_scalars(t, RULES))
    write_ops(base / "out", render_specs([spec]), force=False, record_dir=base / ".opgen")
    return base / "out" / "activation" / "hard_sigmoid_grad"


def test_wrapper_refuses_below_the_bound_in_a_check_params_calls(ruled: Path) -> None:
    text = _read(ruled, RULED_WRAPPER)
    assert ("static bool CheckScalarValue(const aclScalar* steps, const aclScalar* alphaOptional, bool strict) { "
            "if (steps->ToInt64() < 1) { OP_LOGE(ACLNN_ERR_PARAM_INVALID, \"steps must be at least 1, but is %ld.\", "
            "steps->ToInt64()); return false; } "
            "if (strict && alphaOptional != nullptr && alphaOptional->ToFloat() < 0.0f) { "
            "OP_LOGE(ACLNN_ERR_PARAM_INVALID, \"alphaOptional must be at least 0 when strict is true, but is %f.\", "
            "alphaOptional->ToFloat()); return false; } return true; }") in text
    assert ("CheckParams(const aclTensor* gradOutput, const aclTensor* self, const aclScalar* steps, "
            "const aclScalar* alphaOptional, bool strict, const aclTensor* out)") in text
    assert "CHECK_RET(CheckScalarValue(steps, alphaOptional, strict), ACLNN_ERR_PARAM_INVALID);" in text
    assert "DFX_IN(gradOutput, self, betaScalar, steps, alphaOptional, strict, conj)" in text


def test_wrapper_clamps_before_the_l0_call(ruled: Path) -> None:
    text = _read(ruled, RULED_WRAPPER)
    assert ("float betaValue = static_cast<float>(betaScalar); if (betaValue < -1.0f) { betaValue = -1.0f; }"
            in text)
    assert "CanCast(betaScalar" not in text and "betaScalar < " not in text  # a clamp is no refusal
    assert ("l0op::HardSigmoidGrad(gradOutputContiguous, selfContiguous, alphaValue, betaValue, stepsValue, conj, "
            "opExecutor)") in text  # the flag sets no attr: the l0 op never sees it


def test_header_docs_and_example_carry_the_flag_and_the_rules(ruled: Path) -> None:
    signature = ("aclnnHardsigmoidBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self, "
                 "double betaScalar, const aclScalar* steps, const aclScalar* alphaOptional, bool strict, bool conj, "
                 "aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)")
    for rel in ("op_api/aclnn_hardsigmoid_backward.h", RULED_WRAPPER, "docs/aclnnHardsigmoidBackward.md"):
        assert signature in _read(ruled, rel), rel
    assert ("@param [in] strict: bool; sets no attr; when true, alphaOptional below 0 is refused "
            "(ACLNN_ERR_PARAM_INVALID).") in _read(ruled, "op_api/aclnn_hardsigmoid_backward.h")
    docs = (ruled / "docs/aclnnHardsigmoidBackward.md").read_text(encoding="utf-8").splitlines()
    rows = {line.split(" | ")[0].removeprefix("| "): line for line in docs if line.startswith("| ")}
    assert "the def default is 0.5); below -1 it is taken as -1. | double |" in rows["betaScalar"]
    assert "the def default is 3); below 1 it is refused (ACLNN_ERR_PARAM_INVALID). |" in rows["steps"]
    assert "0.16666666666666666; when strict is true, below 0 it is refused (ACLNN_ERR_PARAM_INVALID). |" in \
        rows["alphaOptional"]
    assert rows["strict"] == ("| strict | input | Refuse a negative slope. It sets no attr; when true, alphaOptional "
                              "below 0 is refused (ACLNN_ERR_PARAM_INVALID). | bool | - |")
    assert "or a scalar is below its bound" in rows["ACLNN_ERR_PARAM_INVALID"]
    example = _read(ruled, "examples/test_aclnn_hardsigmoid_backward.cpp")
    assert "bool strict = false;" in example
    assert "GetWorkspaceSize(gradOutput, self, betaScalar, steps, alphaOptional, strict, conj, out," in example


def test_op_api_ut_passes_values_below_the_bounds(ruled: Path) -> None:
    text = _read(ruled, "tests/ut/op_api/test_aclnn_hardsigmoid_backward.cpp")
    cases = {
        "betaScalar_below_min_clamped": ("-2.0, stepsDesc, alphaOptionalDesc, false, false", "ACLNN_SUCCESS"),
        "steps_below_min_rejected": ("0.5, stepsDesc, alphaOptionalDesc, false, false", "ACLNN_ERR_PARAM_INVALID"),
        "steps_at_min": ("0.5, stepsDesc, alphaOptionalDesc, false, false", "ACLNN_SUCCESS"),
        "alphaOptional_below_min_rejected": ("0.5, stepsDesc, alphaOptionalDesc, true, false",
                                             "ACLNN_ERR_PARAM_INVALID"),
        "alphaOptional_at_min": ("0.5, stepsDesc, alphaOptionalDesc, true, false", "ACLNN_SUCCESS"),
        "alphaOptional_below_min_without_strict": ("0.5, stepsDesc, alphaOptionalDesc, false, false",
                                                   "ACLNN_SUCCESS"),
    }
    for suffix, (args, expect) in cases.items():
        case = _ut_case(text, suffix)
        assert f"INPUT(gradOutputDesc, selfDesc, {args})" in case, suffix
        assert f"EXPECT_EQ(aclRet, {expect});" in case, suffix
    assert "ScalarDesc(static_cast<int64_t>(0))" in _ut_case(text, "steps_below_min_rejected")
    assert "ScalarDesc(static_cast<int64_t>(1))" in _ut_case(text, "steps_at_min")
    assert "ScalarDesc(-1.0f)" in _ut_case(text, "alphaOptional_below_min_rejected")
    assert "auto alphaOptionalDesc = ScalarDesc(0.0f);" in _ut_case(text, "alphaOptional_at_min")
    assert "ScalarDesc(-1.0f)" in _ut_case(text, "alphaOptional_below_min_without_strict")
    assert "null_strict" not in text  # by value: nothing to null


@pytest.mark.parametrize(("kind", "bound"), [("aclScalar", -1.0e10), ("float", -3.0e7), ("double", -1.0e17)])
def test_the_below_the_bound_case_passes_a_value_the_comparison_sees_below_it(tmp_path: Path, kind: str,
                                                                               bound: float) -> None:
    """Past 2^24 (2^53 for a double), min - 1 rounds back to min: the UT passes the next value below instead."""
    from opgen.generate import render_specs, write_ops

    spec = copy_spec(SPEC, tmp_path, lambda t: _with_scalars(
        t, f"  scalars:\n    - {{name: lam, attr: alpha, type: {kind}, min: {bound!r}}}\n"))
    write_ops(tmp_path / "out", render_specs([spec]), force=False, record_dir=tmp_path / ".opgen")
    text = _read(tmp_path / "out" / "activation" / "hard_sigmoid_grad",
                 "tests/ut/op_api/test_aclnn_hardsigmoid_backward.cpp")
    below = _ut_case(text, "lam_below_min_rejected")
    literal = re.search(r"(?:lamDesc = ScalarDesc\(|INPUT\(gradOutputDesc, selfDesc, )(-?[\d.e+]+)f?[,)]", below)
    assert literal is not None, below
    value = float(literal.group(1))
    if kind == "double":
        assert value < bound
    else:
        assert np.float32(value) < np.float32(bound)
    assert "EXPECT_EQ(aclRet, ACLNN_ERR_PARAM_INVALID);" in below


def test_the_rules_row_agrees_with_the_ruled_tree(ruled: Path) -> None:
    spec = load_spec(next((ruled.parents[2] / ".opgen").rglob("spec.yaml")))
    items = {i.item: i for i in consistency_tier(ruled, build_plan(spec.spec, spec.path.name))}
    assert items["aclnn scalar rules == docs"].reason == \
        "betaScalar >= -1 (clamped); steps >= 1 (refused); alphaOptional >= 0 while strict (refused)"
    assert all(i.status != "fail" for i in items.values()), [i for i in items.values() if i.status == "fail"]


@pytest.mark.parametrize("rel", ["tests/ut/op_api/test_aclnn_hardsigmoid_backward.cpp", RULED_WRAPPER])
def test_rules_compile(cann_src: Path, ruled: Path, rel: str) -> None:
    """The refusals (an %ld log of an int64), the clamp and the by-value bool flag against the real headers."""
    _compiles(cann_src, ruled, rel)


def _compiles(cann_src: Path, op_dir: Path, rel: str) -> None:
    """An op_api source (or its UT, with the UT framework's dirs) compiles against the real headers."""
    if shutil.which("g++") is None:
        pytest.skip("needs g++")
    sources = resolve_sources(cann_src, None)
    assert sources is not None
    dirs = op_api_ut_dirs(sources) if rel.startswith("tests/") else sources.host_include_dirs(op_api=True)
    result = subprocess.run(compile_command("g++", op_dir, rel, "op_api", dirs), capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-3000:]


PROBLEMS = [
    # (scalars, field, message)
    ("    - {name: gammaValue, attr: gamma}\n", "aclnn.scalars[0].attr",
     "'gamma' is not an attr of the op (attrs: alpha, beta, steps, conj)"),
    ("    - {name: lam, attr: alpha, type: int64_t}\n", "aclnn.scalars[0].type",
     "type int64_t cannot carry the float attr alpha; use aclScalar, double, float"),
    ("    - {name: flag, attr: conj, type: double}\n", "aclnn.scalars[0].type",
     "type double cannot carry the bool attr conj; use aclScalar, bool"),
    ("    - {name: lam, attr: alpha}\n    - {name: lam2, attr: alpha}\n", "aclnn.scalars[1].attr",
     "attr alpha is already set by aclnn.scalars[0] (lam); keep one"),
    ("    - {name: lam, attr: alpha}\n    - {name: lam, attr: beta}\n", "aclnn.scalars[1].name",
     "API parameter 'lam' is already aclnn.scalars[0]; rename one"),
    ("    - {name: self, attr: alpha}\n", "aclnn.scalars[0].name",
     "API parameter 'self' is also a tensor parameter; rename one"),
    ("    - {name: lam, attr: alpha, type: double, optional: true}\n", "aclnn.scalars[0].optional",
     "a double cannot be nullptr; only an aclScalar parameter is optional"),
]


PROBLEMS += [
    ("    - {name: flag, type: double}\n", "aclnn.scalars[0].type",
     "flag sets no attr, so it is a flag a rule reads (`when`): give it type bool, or name the attr it sets"),
    ("    - {name: flag, type: bool}\n", "aclnn.scalars[0].name",
     "flag sets no attr and no rule reads it; give a scalar `when: flag` with its min, or name the attr it sets"),
    ("    - {name: lam, attr: alpha, on_violation: clamp}\n", "aclnn.scalars[0].on_violation",
     "on_violation belongs to a rule; give min (the smallest value lam takes)"),
    ("    - {name: lam, attr: alpha, when: flag}\n", "aclnn.scalars[0].when",
     "when belongs to a rule; give min (the smallest value lam takes)"),
    ("    - {name: lam, attr: alpha, min: 0, when: nope}\n", "aclnn.scalars[0].when",
     "'nope' is no bool parameter of aclnn.scalars (bool ones: none)"),
    ("    - {name: other, attr: beta, type: double}\n    - {name: lam, attr: alpha, min: 0, when: other}\n",
     "aclnn.scalars[1].when", "'other' is no bool parameter of aclnn.scalars (bool ones: none)"),
    ("    - {name: flag, attr: conj, type: bool, min: 0}\n", "aclnn.scalars[0].min",
     "min bounds a float or int attr; conj is bool"),
    ("    - {name: lam, attr: steps, min: 0.5}\n", "aclnn.scalars[0].min", "min 0.5 is no integer; attr steps is int"),
    ("    - {name: lam, attr: alpha, min: 1}\n", "aclnn.scalars[0].min",
     "the def default 0.16666666666666666 of attr alpha is below min 1; the example and the UT pass the default"),
    ("    - {name: lam, attr: alpha, min: -1.0e39}\n", "aclnn.scalars[0].min",
     "min -1e+39 leaves no finite float32 below it for the wrapper to refuse (attr alpha is float); use a min "
     "within +-3.4e38"),
    ("    - {name: lam, attr: steps, min: -9.3e18}\n", "aclnn.scalars[0].min",
     "min -9.3e+18 leaves no int64_t below it for the wrapper to refuse (attr steps is int); use a min within "
     "+-9.2e18"),
    ("    - {name: lam, attr: alpha, min: 0, when: flag}\n    - {name: flag, type: bool, min: 0}\n",
     "aclnn.scalars[1].min", "flag sets no attr; min bounds an attr's value"),
    ("    - {name: lam, attr: alpha, min: 0, when: flag}\n    - {name: flag, type: bool, optional: true}\n",
     "aclnn.scalars[1].optional", "a bool cannot be nullptr; only an aclScalar parameter is optional"),
]


@pytest.mark.parametrize(("scalars", "field", "message"), PROBLEMS)
def test_spec_problem_is_one_line_exit_2_nothing_written(run, tmp_path: Path, scalars: str, field: str,
                                                         message: str) -> None:
    spec = copy_spec(SPEC, tmp_path, lambda t: _with_scalars(t, "  scalars:\n" + scalars))
    out = tmp_path / "out"
    result = run("gen", spec, "-o", out)
    assert result.code == 2, result
    assert snapshot(out) == {}
    [line] = result.err.strip().splitlines()
    m = LINE.match(line)
    assert m is not None, line
    assert (m.group("field"), m.group("message")) == (field, message)
    first = scalars.splitlines()[-1].strip()  # the problem is on the line of the scalar it names
    assert spec.read_text(encoding="utf-8").splitlines()[int(m.group("line")) - 1].strip() == first


# a string attr as upstream's `char* approximate` (aclnnGeluBackwardV2): the committed sample
GELU_V2 = ROOT / "generated_samples" / "activation" / "gelu_grad_v2"
GELU_V2_SPEC = ROOT / "schemas" / "gelu_grad_v2.yaml"
GELU_V2_WRAPPER = "op_api/aclnn_gelu_backward_v2.cpp"
GELU_V2_UT = "tests/ut/op_api/test_aclnn_gelu_backward_v2.cpp"
GELU_V2_SCALARS = "    - {name: approximate, attr: approximate, type: char*}\n"


def test_a_char_parameter_is_declared_after_the_inputs_as_upstreams() -> None:
    signature = ("aclnnGeluBackwardV2GetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self, "
                 "char* approximate, aclTensor* gradInput, uint64_t* workspaceSize, aclOpExecutor** executor)")
    for rel in ("op_api/aclnn_gelu_backward_v2.h", GELU_V2_WRAPPER, "docs/aclnnGeluBackwardV2.md"):
        assert signature in _read(GELU_V2, rel), rel


def test_the_wrapper_refuses_a_null_string_and_one_none_of_the_values_and_hands_it_to_the_l0_op() -> None:
    text = _read(GELU_V2, GELU_V2_WRAPPER)
    assert "#include <cstring>" in text
    assert ("static bool CheckNotNull(const aclTensor* gradOutput, const aclTensor* self, const char* approximate, "
            "const aclTensor* gradInput) { OP_CHECK_NULL(gradOutput, return false); OP_CHECK_NULL(self, return false); "
            "if (approximate == nullptr) { OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, \"approximate must be one of none, tanh, "
            "but is nullptr.\"); return false; }") in text
    assert ("static bool CheckScalarValue(const char* approximate) { "
            "if (strcmp(approximate, \"none\") != 0 && strcmp(approximate, \"tanh\") != 0) { "
            "OP_LOGE(ACLNN_ERR_PARAM_INVALID, \"approximate must be one of none, tanh, but is %s.\", approximate); "
            "return false; } return true; }") in text
    assert "CHECK_RET(CheckScalarValue(approximate), ACLNN_ERR_PARAM_INVALID);" in text
    assert "DFX_IN(gradOutput, self, approximate)" in text
    assert "l0op::GeluGradV2(gradOutputContiguous, selfContiguous, approximate, opExecutor)" in text
    assert "approximateValue" not in text  # no default the l0 op would get instead


def test_the_docs_state_the_strings_values_and_refusals() -> None:
    docs = (GELU_V2 / "docs/aclnnGeluBackwardV2.md").read_text(encoding="utf-8").splitlines()
    rows = {line.split(" | ")[0].removeprefix("| "): line for line in docs if line.startswith("| ")}
    assert rows["approximate"] == (
        '| approximate | input | The GELU the gradient is of, "none" (exact, erf) or "tanh" (the tanh approximation). '
        'It sets attr approximate; required (the def default is "none"), nullptr is refused (ACLNN_ERR_PARAM_NULLPTR); '
        'one of "none", "tanh", any other value is refused (ACLNN_ERR_PARAM_INVALID). | char* | - |')
    assert "or a char*), workspaceSize or executor is a null pointer" in rows["ACLNN_ERR_PARAM_NULLPTR"]
    assert "or a char* is none of its values" in rows["ACLNN_ERR_PARAM_INVALID"]
    assert "below its bound" not in rows["ACLNN_ERR_PARAM_INVALID"]  # no scalar has a min


def test_the_example_passes_the_default_string() -> None:
    text = _read(GELU_V2, "examples/test_aclnn_gelu_backward_v2.cpp")
    assert 'char approximate[] = "none";' in text
    assert "aclnnGeluBackwardV2GetWorkspaceSize(gradOutput, self, approximate, gradInput," in text


def _gelu_v2_case(text: str, suffix: str) -> str:
    m = re.search(rf"TEST_F\(\w+, gelu_backward_v2_\d+_{suffix}\) \{{(.*?)(?=TEST_F|$)", text)
    assert m is not None, suffix
    return m.group(1)


@pytest.mark.parametrize(("suffix", "declared", "arg", "expect"), [
    ("null_approximate", None, "(char*)nullptr", "ACLNN_ERR_PARAM_NULLPTR"),
    ("approximate_none", '"none"', "approximate", "ACLNN_SUCCESS"),
    ("approximate_tanh", '"tanh"', "approximate", "ACLNN_SUCCESS"),
    ("approximate_unknown_rejected", '"unknown"', "approximate", "ACLNN_ERR_PARAM_INVALID"),
])
def test_op_api_ut_string_cases(suffix: str, declared: str | None, arg: str, expect: str) -> None:
    case = _gelu_v2_case(_read(GELU_V2, GELU_V2_UT), suffix)
    assert (f"char approximate[] = {declared};" in case) == (declared is not None)
    assert f"INPUT(gradOutputDesc, selfDesc, {arg})" in case
    assert f"EXPECT_EQ(aclRet, {expect});" in case


def test_op_api_ut_passes_the_default_string_elsewhere_and_needs_no_scalar_desc() -> None:
    text = _read(GELU_V2, GELU_V2_UT)
    assert 'char approximate[] = "none";' in _gelu_v2_case(text, "empty")
    assert "scalars_not_default" not in text  # approximate_tanh is that case
    assert "scalar_desc.h" not in text and "ScalarDesc" not in text


@pytest.mark.parametrize("rel", [GELU_V2_UT, GELU_V2_WRAPPER])
def test_the_string_parameter_compiles(cann_src: Path, rel: str) -> None:
    """The char array, (char*)nullptr and strcmp against the real headers (the UT with its framework)."""
    _compiles(cann_src, GELU_V2, rel)


STRING_PROBLEMS = [
    ("    - {name: approximate, attr: approximate}\n", "aclnn.scalars[0].type",
     "type aclScalar cannot carry the string attr approximate; use char*"),
    ("    - {name: approximate, attr: approximate, type: double}\n", "aclnn.scalars[0].type",
     "type double cannot carry the string attr approximate; use char*"),
    ("    - {name: approximate, attr: approximate, type: char*, optional: true}\n", "aclnn.scalars[0].optional",
     "a char* is required: the wrapper refuses nullptr (ACLNN_ERR_PARAM_NULLPTR); only an aclScalar parameter is "
     "optional"),
    ("    - {name: approximate, attr: approximate, type: char*, min: 0}\n", "aclnn.scalars[0].min",
     "min bounds a float or int attr; approximate is string"),
    ("    - {name: approximate, type: char*}\n", "aclnn.scalars[0].type",
     "approximate sets no attr, so it is a flag a rule reads (`when`): give it type bool, or name the attr it sets"),
]


@pytest.mark.parametrize(("scalars", "field", "message"), STRING_PROBLEMS)
def test_string_attr_problem_is_one_line_exit_2_nothing_written(run, tmp_path: Path, scalars: str, field: str,
                                                                message: str) -> None:
    spec = copy_spec(GELU_V2_SPEC, tmp_path, lambda t: t.replace(GELU_V2_SCALARS, scalars))
    out = tmp_path / "out"
    result = run("gen", spec, "-o", out)
    assert result.code == 2, result
    assert snapshot(out) == {}
    [line] = result.err.strip().splitlines()
    m = LINE.match(line)
    assert m is not None, line
    assert (m.group("field"), m.group("message")) == (field, message)
    assert spec.read_text(encoding="utf-8").splitlines()[int(m.group("line")) - 1].strip() == scalars.strip()


def test_char_parameter_for_a_numeric_attr_is_refused(run, tmp_path: Path) -> None:
    spec = copy_spec(SPEC, tmp_path, lambda t: _with_scalars(t, "  scalars:\n    - {name: lam, attr: alpha, "
                                                              "type: char*}\n"))
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2, result
    [line] = result.err.strip().splitlines()
    m = LINE.match(line)
    assert m is not None, line
    assert (m.group("field"), m.group("message")) == (
        "aclnn.scalars[0].type", "type char* cannot carry the float attr alpha; use aclScalar, double, float")


@pytest.mark.parametrize(("kind", "violation", "effect"), [
    ("aclScalar", "error", "refused"), ("float", "error", "refused"), ("double", "error", "refused"),
    ("aclScalar", "clamp", "clamped"),
])
def test_a_bound_with_many_digits_is_printed_alike_and_passes_check(run, tmp_path: Path, kind: str, violation: str,
                                                                    effect: str) -> None:
    """Issue 37 item 10: the docs printed the bound with %g (0.123457) and the wrapper kept every digit, so check
    failed the tree gen wrote; both now print the shortest text that reads back as the spec's value."""
    spec = copy_spec(SPEC, tmp_path, lambda t: _with_scalars(
        t, f"  scalars:\n    - {{name: lam, attr: alpha, type: {kind}, min: 0.1234567891, "
           f"on_violation: {violation}}}\n"))
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
    op_dir = tmp_path / "out" / "activation" / "hard_sigmoid_grad"
    said = "refused" if violation == "error" else "taken as 0.1234567891"
    assert f"below 0.1234567891 it is {said}" in _read(op_dir, "docs/aclnnHardsigmoidBackward.md")
    assert re.search(r"(lam|alphaValue)\S* < 0\.1234567891f?\)", _read(op_dir, "op_api/aclnn_hardsigmoid_backward.cpp"))
    result = run("check", op_dir, "--tier", "structure", "--tier", "syntax", "--tier", "consistency")
    assert result.code == 0, result.out[-3000:]
    assert f"lam >= 0.1234567891 ({effect})" in result.out
