"""The arch35 DAG's register lowering, as a reader of the rendered `<op>_dag.h` sees it: one custom node per chain
of register steps, the Vec:: nodes with no register form between them, the per-step DAG on request and where a
feature has no register form yet."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import SAMPLES, SCHEMAS, copy_spec

from opgen.plan.kernel.lowering import lower
from opgen.plan.kernel.ops import SPELLINGS
from opgen.spec.recipe import Step

PASS = re.compile(r"using (\w+) =\s*Bind<([\w:]+)")


def _dag(rel: str) -> str:
    name = rel.rsplit("/", 1)[1]
    return (SAMPLES / rel / "op_kernel" / "arch35" / f"{name}_dag.h").read_text(encoding="utf-8")


def _passes(text: str, struct: str) -> list[str]:
    """The DAG struct's passes over UB: its bound nodes other than CopyIn, CopyOut and Vec::Cast."""
    body = text.split(f"struct {struct} {{", 1)[1].split("};", 1)[0]
    return [node for _, node in PASS.findall(body)
            if not node.startswith(("Vec::CopyIn", "Vec::CopyOut", "Vec::Cast"))]


def test_swish_grad_binds_one_fused_node_whose_loop_reads_like_the_recipe() -> None:
    text = _dag("activation/swish_grad")
    assert _passes(text, "SwishGradDag") == ["SwishGradFused0"]
    assert "public Vec::ElemwiseTernaryOP<R, I0, I1, float>" in text  # two tensors and the scale attr
    loop = text.split("for (uint16_t i = 0; i < loops; i++) {", 1)[1]
    assert loop.count("UpdateMask<float>(count)") == 1  # per iteration, inside the loop
    assert "Duplicate(rConst0, 1.0f)" in text.split("for (", 1)[0]  # constants once, before it
    assert "Muls(rSx, rX, attrScale, mask); // sx = muls(x, scale)" in re.sub(r" +", " ", loop)
    assert re.search(r"MulDstAdd\(rS1, rSx, rConst0, mask\); +// t0 = mul\(sx, s1\); t1 = adds\(t0, 1.0\)", loop)
    assert "DIST_UNPACK_B16" in loop and "DIST_PACK_B32" in loop  # 16-bit inputs unpacked, the output packed


@pytest.mark.parametrize(("struct", "passes"), [
    ("GeluGradV2NoneDag", ["GeluGradV2NoneFused0", "Vec::Erf", "GeluGradV2NoneFused1"]),
    ("GeluGradV2NoneB16Dag", ["GeluGradV2NoneB16Fused0"]),
    ("GeluGradV2TanhDag", ["GeluGradV2TanhFused0"]),
])
def test_gelu_grad_v2_makes_no_more_passes_than_upstream(struct: str, passes: list[str]) -> None:
    """Upstream's erf path: Muls, Erf and its ErfPost node; its tanh path: one node. float32's Erf is a Vec::Erf
    node: the chain stops before it and resumes after it, computing the clamped x again rather than keeping it.
    16-bit dtypes take AscendC::Erf's Pade form, as upstream's ErfFast does, in the one fused node's registers."""
    assert _passes(_dag("activation/gelu_grad_v2"), struct) == passes


def test_16_bit_erf_is_the_pade_form_and_only_16_bit_paths_run_it() -> None:
    """The Pade chain of asc-devkit's erf_3510_impl.h: x clipped to +-3.92, P(x) / Q(x) by Horner steps (a
    multiply and add fused into MulDstAdd), one Div; the tiling and the kernel entry pick it for half and bfloat16."""
    text = _dag("activation/gelu_grad_v2")
    node = text.split("struct GeluGradV2NoneB16Fused0", 1)[1].split("\n};", 1)[0]
    loop = re.sub(r"\s+", " ", node.split("for (uint16_t i = 0; i < loops; i++) {", 1)[1])
    assert "Mins(rEHi, rXs, 3.92f, mask); // e_hi = mins(xs, 3.92)" in loop
    assert "Maxs(rEX, rEHi, -3.92f, mask); // e_x = maxs(e_hi, -3.92)" in loop
    assert loop.count("MulDstAdd(rEP4, rESq") == 4 and loop.count("MulDstAdd(rEQ4, rESq") == 4
    assert "Div(rE, rEP0x, rEQ4, mask); // e = div(e_p0x, e_q0)" in loop
    assert "Vec::Erf" not in text.split("struct GeluGradV2NoneB16Dag {", 1)[1].split("};", 1)[0]
    tiling = (SAMPLES / "activation/gelu_grad_v2/op_host/arch35/gelu_grad_v2_tiling_arch35.cpp").read_text("utf-8")
    entry = (SAMPLES / "activation/gelu_grad_v2/op_kernel/gelu_grad_v2_apt.cpp").read_text("utf-8")
    for source in (tiling, entry):
        assert {t for t in re.findall(r"GeluGradV2NoneB16Dag<(\w+)>", source)} == {"half", "bfloat16_t"}
        assert {t for t in re.findall(r"GeluGradV2NoneDag<(\w+)>", source)} == {"float"}


def test_per_step_lowering_binds_a_vec_node_per_step(run, tmp_path: Path) -> None:
    spec = copy_spec(SCHEMAS / "swish_grad.yaml", tmp_path,
                     lambda t: t.replace("compute:\n  dtype: float32\n", "compute:\n  dtype: float32\n"
                                         "  lowering: per_step\n"))
    assert run("gen", "-o", tmp_path / "out", "--record-dir", tmp_path / "rec", spec).code == 0
    text = (tmp_path / "out/activation/swish_grad/op_kernel/arch35/swish_grad_dag.h").read_text(encoding="utf-8")
    assert "Fused" not in text and "MicroAPI" not in text
    assert "Bind<Vec::Exp<float>, OpCalcSNeg>" in text


def test_compare_select_and_fill_are_register_steps_of_the_fused_node() -> None:
    """EluGradV2: the compare writes a MaskReg, against the number in its second place (Compares, as upstream's elu
    kernel writes it); the select reads that predicate; a fill is a register Duplicated once before the loop."""
    text = _dag("activation/elu_grad_v2")
    for struct in ("EluGradV2IsResultFalseDag", "EluGradV2IsResultTrueDag"):
        assert _passes(text, struct) == [struct.replace("Dag", "Fused0")]
    loops = [re.sub(r"\s+", " ", part.split("#endif", 1)[0]) for part in text.split("for (uint16_t i = 0;")[1:]]
    assert len(loops) == 2
    for loop in loops:
        assert "MaskReg" not in loop  # declared before the scope
        assert "Compares<float, AscendC::CMPMODE::LE>(pNeg, rActivations, 0.0f, mask); // neg = le(activations, " \
               "0.0)" in loop
        assert "Select(rY, rLow, rHigh, pNeg); // y = select(neg, low, high)" in loop
    before = text.split("struct EluGradV2IsResultTrueFused0", 1)[1].split("for (uint16_t i = 0;", 1)[0]
    assert "AscendC::MicroAPI::Duplicate(rConst0, attrAlpha); // a0 = fill(alpha)" in before


def test_an_optional_inputs_absent_path_is_fused_too() -> None:
    """MishGrad: with tanhx, one node reads grad, x and tanhx; without it, one node computes tanh(softplus(x)) in
    registers too (its compares and selects included) and reads grad and x only."""
    text = _dag("activation/mish_grad")
    assert _passes(text, "MishGradDag") == ["MishGradFused0"]
    assert _passes(text, "MishGradWithoutTanhxDag") == ["MishGradWithoutTanhxFused0"]
    assert "struct MishGradWithoutTanhxFused0 : public Vec::ElemwiseBinaryOP<R, I0, I1>" in text
    absent = re.sub(r"\s+", " ", text.split("struct MishGradWithoutTanhxFused0", 1)[1])
    assert "Select(rTanhx, rTanhxTaylor, rTanhxFar, pTanhxNear); // tanhx = select(tanhx_near, tanhx_taylor, " \
           "tanhx_far)" in absent


def test_ops_the_lowering_cannot_fuse_yet_keep_the_per_step_dag() -> None:
    assert "MicroAPI" not in _dag("activation/relu_grad_v2"), "bit-mask input"


def test_the_pade_erf_steps_stay_within_float32_rounding_of_erf() -> None:
    """Why the golden may keep math.erf for the 16-bit paths: the lowered chain, run in float32 as the kernel's
    registers run it, is within 4e-7 of erf over the whole line (clipped past |x| = 3.92, where erf rounds to 1)."""
    steps = lower((Step("e", "erf", ("xs",)),), "arch35_b16")
    assert {s.op for s in steps} <= {"mins", "maxs", "mul", "muls", "adds", "div"}
    xs = np.linspace(-8.0, 8.0, 20001, dtype=np.float32)
    values: dict[str, np.ndarray] = {"xs": xs}
    for step in steps:
        args = [values[a] if isinstance(a, str) else np.float32(a) for a in step.args]
        values[step.out] = eval(SPELLINGS[step.op].numpy.format(*(f"args[{k}]" for k in range(len(args)))))
        assert values[step.out].dtype == np.float32, step
    exact = np.array([math.erf(float(x)) for x in xs])
    assert np.abs(values["e"] - exact).max() < 4e-7
