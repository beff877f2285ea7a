"""Semantic faults of generated kernels that still compile (loading one input twice does not: atvoss asserts one
holder per input): each must fail the kernel tier's run row of the SoC and
dtype it names and nothing else (test_kernel_mutants.py). Data only; every `old` text is in the committed sample."""

from __future__ import annotations

from dataclasses import dataclass

from .test_kernel_run_dag import SELECT, SELECT_SWAPPED


@dataclass(frozen=True)
class KernelMutant:
    name: str
    op: str  # the sample's path under generated_samples/
    file: str  # op-relative
    old: str
    new: str
    soc: str
    dtype: str  # the key dtype of the combination whose run row must fail
    breaks: str


_SWISH = ("activation/swish_grad", "op_kernel/arch35/swish_grad_dag.h")
_MISH = ("activation/mish_grad", "op_kernel/arch35/mish_grad_dag.h")
_MISH_IN2 = "    using OpCopyIn2 = Bind<Vec::CopyIn<T>, "

MUTANTS = (
    # the fused register node (opgen/plan/kernel/registers.py); one-element and 3003-element launches end in a partial
    # register. UpdateMask taken once before the loop is no mutant here: atvoss's UB slots are whole registers
    # (ElewiseTiling aligns ubFormer to 256 bytes of the narrowest dtype) and CopyOut moves `count` elements, so the
    # lanes past the end it computes and stores are never read
    KernelMutant("fused_operands_swapped", *_SWISH, "Div(rS, rConst0, rS1p, mask)", "Div(rS, rS1p, rConst0, mask)",
                 "ascend950", "float32", "s = 1 / (1 + e) becomes (1 + e) / 1"),
    KernelMutant("fused_wrong_constant", *_SWISH, "Adds(rS1p, rSExp, 1.0f, mask)", "Adds(rS1p, rSExp, 1.5f, mask)",
                 "ascend950", "float32", "the sigmoid's 1 + e becomes 1.5 + e"),
    KernelMutant("fused_missing_cast", *_SWISH, "Cast<float, I1, UNPACKED_TO_FLOAT>(rGrad, rGradPacked, mask);",
                 "Muls(rGrad, (AscendC::MicroAPI::RegTensor<float>&)rGradPacked, 1.0f, mask);", "ascend950", "float16",
                 "grad's unpacked half bits multiplied as float: its register Cast dropped"),
    KernelMutant("fused_loop_one_short", *_SWISH, "i < loops; i++", "i + 1 < loops; i++", "ascend950", "float32",
                 "the last register (partial in every launch here) is never computed nor stored"),
    KernelMutant("fused_wrong_store_dist", *_SWISH, "StoreDist::DIST_PACK_B32>", "StoreDist::DIST_NORM_B16>",
                 "ascend950", "float16", "the packed halves stored as a whole register: every other one is 0"),
    KernelMutant("select_operands_swapped", "activation/relu_grad_v2", "op_kernel/arch35/relu_grad_v2_dag.h",
                 SELECT, SELECT_SWAPPED, "ascend950", "float32", "Vec::Select's two data operands trade places"),
    KernelMutant("fused_wrong_addend", *_MISH, "MulDstAdd(rA, rX, rTanhx, mask);", "MulDstAdd(rA, rX, rSech2, mask);",
                 "ascend950", "float32", "c = tanhx + b becomes sech2 + b in the fused MulDstAdd"),
    KernelMutant("wrong_var_index", "activation/elu_grad_v2", "op_kernel/arch35/elu_grad_v2_dag.h",
                 "OpCopyIn0, Placeholder::Var<float, 2>,\n                         Placeholder::Var<float, 1>,",
                 "OpCopyIn0, Placeholder::Var<float, 1>,\n                         Placeholder::Var<float, 2>,",
                 "ascend950", "float32", "the fused node's input_scale and scale get each other's Var (equal at the "
                 "defaults, apart when checked; a Var left unbound does not compile)"),
    KernelMutant("fused_select_swapped", "activation/elu_grad_v2", "op_kernel/arch35/elu_grad_v2_dag.h",
                 "Select(rY, rLow, rHigh, pNeg);", "Select(rY, rHigh, rLow, pNeg);", "ascend950", "float32",
                 "the is_result=false path's register Select takes high where activations <= 0 and low elsewhere"),
    KernelMutant("compare_mode", "activation/relu6_grad", "op_kernel/arch35/relu6_grad_dag.h",
                 "CMPMODE::LT>(pBelow", "CMPMODE::GT>(pBelow", "ascend950", "float32",
                 "below = lt(features, 6) becomes gt in the fused node's register Compares"),
    KernelMutant("divide_operands_swapped", "experimental/activation/gelu_grad", "op_kernel/gelu_grad.h",
                 "Div(xValue, tmp0, xValue, count);", "Div(xValue, xValue, tmp0, count);", "ascend910b", "float32",
                 "g = e / d becomes d / e in the 910B branch"),
    KernelMutant("wrong_classic_constant", "experimental/activation/gelu_grad", "op_kernel/gelu_grad.h",
                 "Adds(zValue, xValue, 1.0f, count);", "Adds(zValue, xValue, 1.5f, count);", "ascend310b", "float32",
                 "the 310B branch adds 1.5 where the recipe adds 1.0"),
    KernelMutant("classic_compare_mode", "activation/hard_shrink_grad", "op_kernel/arch35/hard_shrink_grad.h",
                 "CMPMODE::LE,", "CMPMODE::GE,", "ascend950", "float16",
                 "dead = |x| <= lambd becomes >="),
    KernelMutant("dropped_abs", "activation/softsign_grad", "op_kernel/arch35/softsign_grad.h",
                 "Abs(outputValue, featuresValue, count);", "Muls(outputValue, featuresValue, 1.0f, count);",
                 "ascend950", "float32", "d = 1 + |x| loses the abs: negative features divide by (1 + x)^2"),
    KernelMutant("placeholders_swapped", *_MISH,
                 "Placeholder::In1<T>>;                           // load x\n" + _MISH_IN2 + "Placeholder::In2<T>>;",
                 "Placeholder::In2<T>>;                           // load x\n" + _MISH_IN2 + "Placeholder::In1<T>>;",
                 "ascend950", "float32", "x loaded from tanhx's input and tanhx from x's (one wrong index alone "
                 "leaves a holder unbound and does not compile)"),
    KernelMutant("dropped_classic_step", "experimental/activation/gelu_grad", "op_kernel/gelu_grad.h",
                 "Mul(zValue, zValue, xValue, count);               // nc = mul(nb, g)",
                 "// nc = mul(nb, g) dropped", "ascend910b", "float32",
                 "nc = nb: the 910B branch leaves the multiply by g out"),
    KernelMutant("classic_operand_repeated", "experimental/activation/gelu_grad", "op_kernel/gelu_grad.h",
                 "Mul(xValue, tmp1, xValue, count);", "Mul(xValue, tmp1, tmp1, count);", "ascend310b", "float32",
                 "the 310B branch's h1 = h0 * xc becomes h0 * h0"),
    KernelMutant("absent_path_fault", *_MISH, "Abs(rSpAbs, rX, mask);", "Relu(rSpAbs, rX, mask);", "ascend950",
                 "float32",
                 "without tanhx, softplus's |x| becomes relu(x): wrong for negative x"),
    KernelMutant("choice_path_fault", "activation/elu_grad_v2", "op_kernel/arch35/elu_grad_v2_dag.h",
                 "Add(rT, rActivations, rSa, mask)", "Sub(rT, rActivations, rSa, mask)",
                 "ascend950", "float32", "the is_result=true path's t = y + alpha*scale becomes y - alpha*scale"),
)
