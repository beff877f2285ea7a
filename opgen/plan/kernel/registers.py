"""The arch35 recipe lowered to registers: each value a non-register consumer needs (a DAG node such as Erf, or a
kernel output) is one custom atvoss node whose body is a MicroAPI `__VEC_SCOPE__` loop over the tile.

The plan decides the grouping here; the DAG header's template prints the lines. A value two fused nodes need is
computed again in the second (its register steps back to the kernel inputs and DAG node outputs), so a node has one
output, as atvoss's Elemwise*OP nodes have. Where the op uses a feature this lowering has no form for yet,
`fusable` says why and the kernel keeps one `Vec::` node per step (dag.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...spec.recipe import OPS, Arg, AttrRef, Step
from ..registry.reserved import upper_camel
from ..registry.tensors import TensorPlan
from .ops import COMPARE_MODES

# Recipe ops with one MicroAPI register call (asc-devkit include/basic_api/reg_compute/
# kernel_reg_compute_vec_{binary,binary_scalar,unary}_intf.h); reciprocal is Div from a register of ones.
BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "max": "Max", "min": "Min"}
SCALAR = {"adds": "Adds", "muls": "Muls", "maxs": "Maxs", "mins": "Mins"}
UNARY = {"exp": "Exp", "log": "Ln", "abs": "Abs", "sqrt": "Sqrt", "relu": "Relu"}
# kernel_reg_compute_vec_cmpsel_intf.h: Compare / Compares write a MaskReg, Select picks per its lanes; a `fill` is a
# register Duplicated once before the loop.
REGISTER_OPS = frozenset(BINARY) | frozenset(SCALAR) | frozenset(UNARY) | frozenset(COMPARE_MODES) | {
    "reciprocal", "select", "fill"}
# Recipe ops that stay a Vec:: node between fused ones (float in, float out), as upstream keeps AscendC::Erf.
DAG_NODE_OPS = {"erf": "Erf"}
# float lanes per register (asc-devkit impl/basic_api/utils/kernel_utils_constants.h: 256 bytes)
LANES = "AscendC::VECTOR_REG_WIDTH / sizeof(float)"
UNPACK = "AscendC::MicroAPI::LoadDist::DIST_UNPACK_B16"
PACK = "AscendC::MicroAPI::StoreDist::DIST_PACK_B32"
TO_FLOAT = "UNPACKED_TO_FLOAT"
FROM_FLOAT = "FLOAT_TO_PACKED"
# asc-devkit docs Reg矢量计算/类型转换/Cast.md: 16-bit to float is exact; float to half/bfloat16 rounds per the
# trait (CAST_RINT, as the per-step DAG's Vec::Cast<.., CAST_MODE_RINT>), and with CTRL[60] = 1 (Ascend 950's
# default, table 5) saturation follows the global CTRL[48], not the trait, so the trait leaves it UNKNOWN.
# RegLayout::ZERO reads/writes the even half-lanes, where DIST_UNPACK_B16 loads and DIST_PACK_B32 stores
# (LoadAlign.md / StoreAlign.md).
TRAITS = (
    f"static constexpr AscendC::MicroAPI::CastTrait {TO_FLOAT} = {{AscendC::MicroAPI::RegLayout::ZERO, "
    "AscendC::MicroAPI::SatMode::UNKNOWN, AscendC::MicroAPI::MaskMergeMode::ZEROING, AscendC::RoundMode::UNKNOWN};",
    f"static constexpr AscendC::MicroAPI::CastTrait {FROM_FLOAT} = {{AscendC::MicroAPI::RegLayout::ZERO, "
    "AscendC::MicroAPI::SatMode::UNKNOWN, AscendC::MicroAPI::MaskMergeMode::ZEROING, AscendC::RoundMode::CAST_RINT};",
)
BASES = {1: "ElemwiseUnaryOP", 2: "ElemwiseBinaryOP", 3: "ElemwiseTernaryOP", 4: "ElemwiseQuaternaryOP",
         5: "ElemwiseQuinaryOP"}


@dataclass(frozen=True)
class FusedNode:
    """One custom node: its C++ struct (lines, indented) and what the DAG binds it to."""

    struct: str
    value: str  # the recipe value it computes
    inputs: tuple[str, ...]  # recipe values read from UB tensors (kernel inputs, DAG node outputs), in order
    attrs: tuple[str, ...]  # attrs it takes as the node's float scalars
    lines: tuple[str, ...]


def fusable(tensors: tuple[TensorPlan, ...], float_compute: bool, steps: tuple[Step, ...]) -> str:
    """Why this DAG keeps one `Vec::` node per step ("" where it is fused); an optional input's absent path is a DAG
    of its own, fused alike."""
    if not float_compute:
        return "integer/native compute (no register lowering of native-dtype math yet)"
    for t in tensors:
        if t.is_mask:
            return f"bit-mask input {t.name}"
        if any(not d.is_float or d.size_bits == 8 for d in t.dtypes):
            return f"{t.name} has an integer or 8-bit dtype"
    outputs = {t.name for t in tensors if t.role == "output"}
    made = {s.out: s for s in steps}
    for step in steps:
        if step.op not in REGISTER_OPS and step.op not in DAG_NODE_OPS:
            return f"step `{step}` has no register form yet"
        if step.op in DAG_NODE_OPS and (step.out in outputs or step.args[0] not in made):
            return f"step `{step}` reads a kernel input or writes an output directly"
        if OPS[step.op].gives_mask and step.out in outputs:
            return f"step `{step}` writes a mask output"
    return ""


@dataclass(frozen=True)
class RegisterLoop:
    """Recipe steps as the body of one MicroAPI loop over a tile: the values it loads and stores (each in a float
    register), the registers and comparison masks it declares, the numbers and attrs Duplicated into registers
    before the loop, and the register ops, each commented with its step. A wrapper (an atvoss node, a kernel's
    vector function) names where the values come from and go."""

    inputs: tuple[str, ...]  # recipe values loaded, in order
    outputs: tuple[str, ...]  # recipe values stored, in order
    attrs: tuple[str, ...]  # attrs read as float scalars
    regs: dict[str, str]  # value -> its float register
    preds: tuple[str, ...]
    consts: tuple[tuple[str, str, str], ...]  # (register, number or attr, the fill step it is)
    body: tuple[str, ...]

    @property
    def float_registers(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys([*self.regs.values(), *(reg for reg, _, _ in self.consts)]))


def fused_nodes(prefix: str, tensors: tuple[TensorPlan, ...], steps: tuple[Step, ...]) -> tuple[FusedNode, ...]:
    """One node per value a DAG node step or an output needs, in the order the DAG binds them."""
    made = {s.out: s for s in steps}
    needed: list[str] = []
    for step in steps:
        if step.op in DAG_NODE_OPS:
            needed.append(str(step.args[0]))
    needed += [t.name for t in tensors if t.role == "output"]
    dtypes = {t.name: t.dag_type for t in tensors}
    nodes: list[FusedNode] = []
    for value in dict.fromkeys(needed):
        loop = register_loop((value,), made)
        struct = f"{prefix}Fused{len(nodes)}"
        nodes.append(FusedNode(struct, value, loop.inputs, loop.attrs,
                               _struct_lines(struct, loop, dtypes.get(value, "float"))))
    return tuple(nodes)


def _cone(values: tuple[str, ...], made: dict[str, Step]) -> tuple[Step, ...]:
    """The register steps `values` depend on, back to kernel inputs and DAG node outputs, in recipe order."""
    order = list(made)
    seen: set[str] = set()
    todo = list(values)
    while todo:
        name = todo.pop()
        step = made.get(name)
        if step is None or name in seen or step.op in DAG_NODE_OPS:
            continue
        seen.add(name)
        todo += step.tensor_args
    return tuple(made[n] for n in order if n in seen)


def _reg(name: str) -> str:
    return f"r{upper_camel(name)}"


def _pred(name: str) -> str:
    return f"p{upper_camel(name)}"


def _attr(name: str) -> str:
    """The node's scalar parameter for an attr (prefixed: no clash with the body's own names)."""
    return f"attr{upper_camel(name)}"


def _literal(value: float) -> str:
    return f"{value!r}f"


def _scalar(arg: Arg) -> str:
    """A number or an attr, as the node's C++ spells it."""
    return _attr(arg.name) if isinstance(arg, AttrRef) else _literal(float(arg))


def register_loop(values: tuple[str, ...], made: dict[str, Step]) -> RegisterLoop:
    """The loop computing `values` from the register steps they need (back to the values no such step makes)."""
    cone = _cone(values, made)
    computed = {s.out for s in cone}
    inputs = tuple(dict.fromkeys(a for s in cone for a in s.tensor_args if a not in computed))
    attrs = tuple(dict.fromkeys(a.name for s in cone for a in s.args if isinstance(a, AttrRef)))
    uses: dict[str, int] = {}
    for s in cone:
        for a in s.tensor_args:
            uses[a] = uses.get(a, 0) + 1
    consts: dict[str, str] = {}  # the number or attr -> the register Duplicated from it before the loop
    notes: dict[str, str] = {}  # such a register -> the `fill` step it is

    def const(arg: Arg) -> str:
        return consts.setdefault(_scalar(arg), f"rConst{len(consts)}")

    def operand(arg: Arg) -> str:
        """A value's register, or the register a number or attr is Duplicated into."""
        return regs[arg] if isinstance(arg, str) else const(arg)

    regs = {n: _reg(n) for n in inputs}
    preds: dict[str, str] = {}
    body: list[str] = []
    skip: set[str] = set()
    for i, step in enumerate(cone):
        if step.out in skip:
            continue
        nxt = cone[i + 1] if i + 1 < len(cone) else None
        fused = _fuse(step, nxt, uses, regs, const, values)
        if fused:
            body.append(fused)
            skip.add(nxt.out)  # type: ignore[union-attr]
            continue
        if step.op == "fill":
            regs[step.out] = const(step.args[0])
            notes.setdefault(regs[step.out], str(step))
            continue
        if step.op in COMPARE_MODES:
            body.append(f"{_compare(step, preds, operand)} // {step}")
            continue
        dst = regs.setdefault(step.out, _reg(step.out))
        if step.op == "select":
            mask, *picked = step.args
            src0, src1 = map(operand, picked)
            body.append(f"AscendC::MicroAPI::Select({dst}, {src0}, {src1}, {preds[str(mask)]}); // {step}")
            continue
        args = [regs[a] if isinstance(a, str) else _scalar(a) for a in step.args]
        if step.op in BINARY:
            call = f"AscendC::MicroAPI::{BINARY[step.op]}({dst}, {args[0]}, {args[1]}, mask);"
        elif step.op in SCALAR:
            call = f"AscendC::MicroAPI::{SCALAR[step.op]}({dst}, {args[0]}, {args[1]}, mask);"
        elif step.op in UNARY:
            call = f"AscendC::MicroAPI::{UNARY[step.op]}({dst}, {args[0]}, mask);"
        elif step.op == "reciprocal":
            call = f"AscendC::MicroAPI::Div({dst}, {const(1.0)}, {args[0]}, mask);"
        else:
            raise ValueError(f"step `{step}` has no register form: lower the recipe first (lowering.py)")
        body.append(f"{call} // {step}")
    return RegisterLoop(inputs, values, attrs, regs, tuple(preds.values()),
                        tuple((reg, number, notes.get(reg, "")) for number, reg in consts.items()), tuple(body))


def _compare(step: Step, preds: dict[str, str], operand: Callable[[Arg], str]) -> str:
    """Compares against a number or attr in the second place (as upstream's elu kernel writes it), Compare of two
    registers otherwise; the lanes the loop's mask leaves out are false (MaskMergeMode ZEROING of Compare.md)."""
    mode = f"AscendC::CMPMODE::{COMPARE_MODES[step.op][0]}"
    dst = preds.setdefault(step.out, _pred(step.out))
    first, second = step.args
    if isinstance(second, str):
        return f"AscendC::MicroAPI::Compare<float, {mode}>({dst}, {operand(first)}, {operand(second)}, mask);"
    return f"AscendC::MicroAPI::Compares<float, {mode}>({dst}, {operand(first)}, {_scalar(second)}, mask);"


def _fuse(step: Step, nxt: Step | None, uses: dict[str, int], regs: dict[str, str], const: Callable[[Arg], str],
          values: tuple[str, ...]) -> str:
    """A register call doing `step` and `nxt` at once (asc-devkit's fused forms), or ""; `step`'s value must be
    read by `nxt` only, and not be stored.

    - `s = muls(a, -1.0); t = adds(s, k)` is `Sub(k, a)`: negation is exact, so the result is the same.
    - `p = mul(a, b); q = add(p, c)` (or adds(p, k)) is `MulDstAdd(a, b, c)` (MulDstAdd.md: dst = dst * src0 +
      src1), one rounding where the steps round twice, writing over a register no later step reads."""
    if nxt is None or uses.get(step.out) != 1 or step.out in values or step.out not in nxt.tensor_args:
        return ""
    if step.op == "muls" and step.args[1] == -1.0 and nxt.op == "adds" and isinstance(nxt.args[1], float):
        dst = regs.setdefault(nxt.out, _reg(nxt.out))
        return f"AscendC::MicroAPI::Sub({dst}, {const(nxt.args[1])}, {regs[str(step.args[0])]}, mask); // {step}; {nxt}"
    if step.op != "mul" or nxt.op not in ("add", "adds"):
        return ""
    other = nxt.args[1] if nxt.args[0] == step.out else nxt.args[0]
    if other == step.out:
        return ""
    addend = const(other) if isinstance(other, float) else regs.get(str(other), "")
    for dst_value, src_value in ((step.args[0], step.args[1]), (step.args[1], step.args[0])):
        if uses.get(str(dst_value)) == 1 and dst_value != src_value and dst_value in regs and addend:
            regs[nxt.out] = regs[str(dst_value)]
            return (f"AscendC::MicroAPI::MulDstAdd({regs[str(dst_value)]}, {regs[str(src_value)]}, {addend}, mask); "
                    f"// {step}; {nxt}")
    return ""


def _struct_lines(struct: str, loop: RegisterLoop, out_type: str) -> tuple[str, ...]:
    """The node's C++: template over the UB tensors' element types, loads (16-bit: unpacked and cast), the
    body, and the output's cast and store."""
    (value,) = loop.outputs
    params = ", ".join(["class R", *(f"class I{k}" for k in range(len(loop.inputs)))])
    types = ", ".join(["R", *(f"I{k}" for k in range(len(loop.inputs))), *("float" for _ in loop.attrs)])
    tensors = [f"LocalTensor<I{k}>& in{k}" for k in range(len(loop.inputs))]
    scalars = [f"float {_attr(a)}" for a in loop.attrs]
    ctor = ", ".join(["LocalTensor<R>& dst", *tensors, *scalars, "uint32_t count"])
    base = BASES[len(loop.inputs) + len(loop.attrs)]
    lines = [f"// {value}: the recipe's register steps, one MicroAPI loop over the tile",
             f"template <{params}>", f"struct {struct} : public Vec::{base}<{types}> {{",
             "#ifdef __CCE_AICORE__", *(f"    {t}" for t in TRAITS), "#endif",
             f"    __aicore__ inline {struct}({ctor})", "    {", "#ifdef __CCE_AICORE__",
             f"        constexpr uint32_t lanes = {LANES};",
             "        uint16_t loops = AscendC::CeilDivision(count, lanes);",
             "        __ubuf__ R* out = (__ubuf__ R*)dst.GetPhyAddr();"]
    lines += [f"        __ubuf__ I{k}* src{k} = (__ubuf__ I{k}*)in{k}.GetPhyAddr();" for k in range(len(loop.inputs))]
    lines += [f"        AscendC::MicroAPI::RegTensor<I{k}> {loop.regs[n]}Packed;" for k, n in enumerate(loop.inputs)]
    lines.append("        AscendC::MicroAPI::RegTensor<R> outPacked;")
    lines += [f"        AscendC::MicroAPI::RegTensor<float> {name};" for name in loop.float_registers]
    lines += [f"        AscendC::MicroAPI::MaskReg {name};" for name in ("mask", *loop.preds)]
    lines += ["        __VEC_SCOPE__", "        {"]
    lines += [f"            {line}" for line in duplicates(loop)]
    lines += ["            for (uint16_t i = 0; i < loops; i++) {",
              "                mask = AscendC::MicroAPI::UpdateMask<float>(count);"]
    for k, n in enumerate(loop.inputs):
        lines += [f"                {line}" for line in load_lines(n, loop.regs[n], f"I{k}", f"src{k} + i * lanes")]
    lines += [f"                {line}" for line in loop.body]
    lines += [f"                {line}" for line in store_lines(value, loop.regs[value], "R", "out + i * lanes",
                                                                 "outPacked")]
    lines += ["            }", "        }", "#endif", "    }", "};"]
    return tuple(lines)


def duplicates(loop: RegisterLoop) -> list[str]:
    """The constants' registers, Duplicated once before the loop."""
    return [f"AscendC::MicroAPI::Duplicate({reg}, {number});" + (f" // {note}" if note else "")
            for reg, number, note in loop.consts]


def load_lines(value: str, reg: str, element: str, address: str) -> list[str]:
    """Load `value` into its float register: a float tensor as it is, a 16-bit one unpacked and cast."""
    return [f"if constexpr (sizeof({element}) == sizeof(float)) {{ // load {value}",
            f"    AscendC::MicroAPI::LoadAlign({reg}, {address});",
            "} else {",
            f"    AscendC::MicroAPI::LoadAlign<{element}, {UNPACK}>({reg}Packed, {address});",
            f"    AscendC::MicroAPI::Cast<float, {element}, {TO_FLOAT}>({reg}, {reg}Packed, mask);",
            "}"]


def store_lines(value: str, reg: str, element: str, address: str, packed: str) -> list[str]:
    """Store `value` from its float register: cast and packed for a 16-bit tensor."""
    return [f"if constexpr (sizeof({element}) == sizeof(float)) {{ // store {value}",
            f"    AscendC::MicroAPI::StoreAlign({address}, {reg}, mask);",
            "} else {",
            f"    AscendC::MicroAPI::Cast<{element}, float, {FROM_FLOAT}>({packed}, {reg}, mask);",
            f"    AscendC::MicroAPI::StoreAlign<{element}, {PACK}>({address}, {packed}, mask);",
            "}"]
