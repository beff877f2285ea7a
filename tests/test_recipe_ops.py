"""The vector ops and comparisons of the recipe: emitted per kernel family, emulated, checked by numerics."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import GELU, SCHEMAS, copy_spec

from opgen.check.emulator import emulate
from opgen.check.numerics import check_numerics
from opgen.generate import render_specs
from opgen.plan import RenderPlan, build_plan
from opgen.spec.load import load_spec
from opgen.spec.models import ComputeSpec, GoldenSpec, OpSpec, ReferenceSpec
from opgen.spec.recipe import parse_step

SILU = SCHEMAS / "silu_grad.yaml"  # arch35 DAG, inputs dy and x
UNARY = {  # recipe op -> the formula function the reference uses for it
    "tanh": "tanh", "sigmoid": "sigmoid", "erf": "erf", "sign": "sign", "neg": "neg", "log1p": "log1p",
    "softplus": "softplus",
}


def _spec(source: Path, steps: list[str], direct: str) -> tuple[OpSpec, RenderPlan]:
    """`source` with every variant replaced by `steps` and the reference by the direct formula; `z` in the
    steps and the formula stands for the source's output (GeluGrad's z, SiluGrad's dx)."""
    spec = load_spec(source).spec
    out = spec.outputs[0].name
    parsed = tuple(parse_step(re.sub(r"^z =", f"{out} =", s)) for s in steps)
    compute = ComputeSpec(dtype=spec.compute.dtype, variants={v: parsed for v in spec.compute.variants})
    golden = GoldenSpec(reference=ReferenceSpec(direct=direct), tolerances=spec.golden.tolerances)
    changed = spec.model_copy(update={"compute": compute, "golden": golden})
    return changed, build_plan(changed, source.name)


@pytest.mark.parametrize("source", [GELU, SILU], ids=["classic", "arch35"])
@pytest.mark.parametrize("op", sorted(UNARY))
def test_each_vector_op_matches_torch_in_every_dtype_and_edge(source: Path, op: str) -> None:
    spec, plan = _spec(source, [f"z = {op}(x)"], f"{UNARY[op]}(x)")
    results = check_numerics(spec, plan)
    assert results and [r.reason for r in results if not r.passed] == []
    random = [r for r in results if r.sample == "random" and r.dtypes[-1] == "float32"]
    assert all(r.max_rel < 5e-6 for r in random), [(r.variant, r.max_rel) for r in random]


def test_classic_calls_adv_api_with_a_shared_temp_buffer_counted_in_ub() -> None:
    steps = ["t = tanh(x)", "e = erf(t)", "z = mul(e, dy)"]
    _, plan = _spec(GELU, steps, "dy * erf(tanh(x))")
    assert plan.classic is not None
    assert plan.classic.shared_tmp_factor == 3  # Erf needs 3 float-sized temps per element, Tanh 1
    assert plan.classic.adv_api_headers == ("lib/math/kernel_operator_tanh_intf.h",
                                            "lib/math/kernel_operator_erf_intf.h")
    shared, casts = 3 * 32, 3 * 32  # the shared temp at 3; cast buffers dy x z (float32 reads them in place)
    # no tmpBuf: t lives in z's view (free until z is made), e in x's (free once tanh read x: Erf may not write
    # over t)
    assert {(c.dtype.name, c.bits) for c in plan.classic_dtype_cases} == {
        ("float32", 2 * 96 + shared), ("float16", 2 * 48 + casts + shared), ("bfloat16", 2 * 48 + casts + shared)}
    kernel = plan.classic.variants[0].lines
    assert "Tanh(zValue, xValue, sharedTmp, count); // t = tanh(x)" in kernel
    assert "Erf(xValue, zValue, sharedTmp, count); // e = erf(t)" in kernel


def test_classic_comparisons_fill_bit_masks_that_select_reads() -> None:
    steps = ["m = gt(x, 0.5)", "n = le(x, dy)", "a = select(m, dy, 0.0)", "z = select(n, a, x)"]
    spec, plan = _spec(GELU, steps, "where(x <= dy, where(x > 0.5, dy, 0), x)")
    assert plan.classic is not None and plan.classic.mask_buffers == ("maskBuf0", "maskBuf1")
    lines = plan.classic.variants[0].lines
    assert "Compares(mask0, xValue, 0.5f, CMPMODE::GT, cmpCount); // m = gt(x, 0.5)" in lines
    assert "Compare(mask1, xValue, dyValue, CMPMODE::LE, cmpCount); // n = le(x, dy)" in lines
    # a lives in z's view until z, made in place from it
    assert ("Select(zValue, mask0, dyValue, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, count); "
            "// a = select(m, dy, 0.0)") in lines
    assert ("Select(zValue, mask1, zValue, xValue, SELMODE::VSEL_TENSOR_TENSOR_MODE, count); "
            "// z = select(n, a, x)") in lines
    assert plan.classic.temp_buffers == ()
    assert [r.reason for r in check_numerics(spec, plan) if not r.passed] == []


def test_arch35_lowers_what_vec_lacks_and_keeps_erf_and_compare() -> None:
    spec, plan = _spec(SILU, ["t = tanh(x)", "e = erf(t)", "m = ge(e, 0.25)", "z = select(m, dy, e)"],
                       "where(erf(tanh(x)) >= 0.25, dy, erf(tanh(x)))")
    assert plan.dag is not None
    exprs = [line.expr for line in plan.dag.lines]
    registers = "\n".join(line for node in plan.dag.fused for line in node.lines)
    assert not any("Tanh" in e for e in exprs) and "Tanh" not in registers  # exp, reciprocal and a Taylor branch
    assert "AscendC::MicroAPI::Exp(" in registers
    assert "Bind<Vec::Erf<float>, OpCalcT>" in exprs  # no register form: a DAG node between two fused ones
    assert "Compares<float, AscendC::CMPMODE::GE>(pM, rE, 0.25f, mask);" in registers
    assert [r.reason for r in check_numerics(spec, plan) if not r.passed] == []


def test_the_golden_spells_erf_with_math_and_says_import_math(tmp_path: Path) -> None:
    def edit(text: str) -> str:
        return (text.replace("- s = sigmoid(x)", "- ex = erf(x)\n      - s = sigmoid(ex)")
                .replace("forward: x * sigmoid(x)", "forward: x * sigmoid(erf(x))"))

    spec_path = copy_spec(SILU, tmp_path, edit)
    op = render_specs([spec_path])[0]
    golden = op.files["tests/assets/golden.py"].decode()
    assert "\nimport math\n" in golden and "np.vectorize(math.erf" in golden


def _emulated(steps: list[str], x: list[float], dy: list[float]) -> np.ndarray:
    _, plan = _spec(SILU, steps, "dy")
    combo = next(c for c in plan.combinations if c.key.name == "float32")
    return emulate(plan, plan.golden.variants[0], combo, [np.array(dy, np.float32), np.array(x, np.float32)])[0]


def test_comparisons_with_nan_follow_ieee() -> None:
    x, dy = [math.nan, 1.0, -1.0], [10.0, 10.0, 10.0]
    assert _emulated(["m = gt(x, 0.0)", "dx = select(m, dy, 0.0)"], x, dy).tolist() == [0.0, 10.0, 0.0]
    assert _emulated(["m = ne(x, x)", "dx = select(m, dy, 0.0)"], x, dy).tolist() == [10.0, 0.0, 0.0]
    got = _emulated(["m = le(x, 0.0)", "dx = select(m, dy, x)"], x, dy)
    assert math.isnan(got[0]) and got[1:].tolist() == [1.0, 10.0]  # NaN x is not <= 0: NaN passes through


@pytest.mark.parametrize(("step", "message"), [
    ("dx = select(x, dy, 0.0)", "select's mask 'x' is a float16 input, not a mask; select takes a uint1 mask "
     "input or a comparison (gt ge lt le eq ne), e.g. `m = gt(x, 0.0)`"),
    ("dx = gt(x, 0.0)", "output 'dx' cannot be a mask"),
])
def test_select_on_values_and_masks_as_outputs_are_refused(run, tmp_path: Path, step: str, message: str) -> None:
    spec_path = copy_spec(SILU, tmp_path, lambda t: re.sub(r"(?m)^      - dx = .*$", f"      - {step}", t))
    result = run("gen", spec_path, "-o", tmp_path / "out")
    assert result.code == 2 and message in result.err, result.err


def test_a_mask_cannot_enter_arithmetic(run, tmp_path: Path) -> None:
    spec_path = copy_spec(SILU, tmp_path,
                          lambda t: t.replace("- s = sigmoid(x)", "- m = gt(x, 0.0)\n      - s = sigmoid(m)"))
    result = run("gen", spec_path, "-o", tmp_path / "out")
    assert result.code == 2 and "mask 'm' can only be the first argument of select" in result.err


def test_a_fill_only_binary_ops_read_is_one_block_filled_once_in_init() -> None:
    """`one` only divides: a repeat's bytes filled in Init, read at repeat stride 0, no tile buffer and no Duplicate a
    tile. A fill Select reads, or one both operands of a step would be, stays a Duplicate into a tile."""
    spec, plan = _spec(GELU, ["one = fill(1.0)", "d = adds(x, 2.0)", "q = div(one, d)", "zero = fill(0.0)",
                              "m = gt(x, 0.0)", "s = select(m, q, zero)", "z = mul(s, dy)"],
                       "dy * where(x > 0, 1 / (x + 2), 0)")
    assert plan.classic is not None
    assert [(c.member, c.value) for c in plan.classic.constants] == [("constBuf0", "1.0f")]
    assert plan.classic.block_apis == ("Div",)
    lines = plan.classic.variants[0].lines
    assert "// one = fill(1.0): const0, filled once in Init" in lines
    assert any(line.startswith("DivWithBlock<true>(") and line.endswith("// q = div(one, d)") for line in lines)
    assert any(line.startswith("Duplicate(") and line.endswith("// zero = fill(0.0)") for line in lines)
    assert [r.reason for r in check_numerics(spec, plan) if not r.passed] == []
    both = _spec(GELU, ["a = fill(1.0)", "b = fill(2.0)", "c = add(a, b)", "z = mul(c, dy)"], "dy * 3")[1]
    assert both.classic is not None and both.classic.constants == ()


def test_the_constant_block_stays_a_tile_on_3510() -> None:
    """3510 runs the high-dim form through VF calls and 8 KiB of UB: there the fill stays a Duplicate a tile."""
    plan = build_plan(load_spec(SCHEMAS / "softsign_grad.yaml").spec, "softsign_grad.yaml")
    assert plan.classic is not None and {v.soc for v in plan.classic.variants} == {"ascend950"}
    _, changed = _spec(SCHEMAS / "softsign_grad.yaml", ["one = fill(1.0)", "d = adds(features, 1.0)",
                                                           "q = div(one, d)", "z = mul(q, gradients)"],
                          "gradients / (features + 1)")
    assert changed.classic is not None and changed.classic.constants == ()
    assert any(line.startswith("Duplicate(") for line in changed.classic.variants[0].lines)
