"""The arch35 atvoss DAG (`using X = Bind<Vec::...>` chain) from the recipe, lowered to the Vec:: nodes atvoss has."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...spec.recipe import OPS, Arg, AttrRef, Step
from ..registry.reserved import DAG_FILL_SUFFIX, DAG_VALUE_PREFIX, upper_camel
from ..registry.tensors import TensorPlan
from .ops import COMPARE_MODES, SPELLINGS

if TYPE_CHECKING:
    from .registers import FusedNode


@dataclass(frozen=True)
class DagLine:
    alias: str
    expr: str
    comment: str


@dataclass(frozen=True)
class DagKernel:
    compute_type: str  # "float" or "T"
    constants: tuple[tuple[str, int], ...]  # mode constants the Bind lines use
    lines: tuple[DagLine, ...]
    outputs: tuple[str, ...]  # aliases of the CopyOut nodes, in output order
    init_args: tuple[str, ...]  # kernel arguments the scheduler's Init takes: read inputs, then outputs
    fused: tuple[FusedNode, ...] = ()  # custom register nodes the lines bind (registers.py), defined before the DAG


VIA_HALF_WHY = "arch35 casts 8-bit integers to and from half only (asc-devkit Cast.md, Ascend 950 table)"


def via_half(tensor: TensorPlan) -> str:
    """The type an 8-bit integer column passes through between its own and float: half where the column is all
    8-bit integers, `<T>Mid` (half for a 1-byte T, else float: atvoss drops a Cast between equal types, so the
    other columns cast once, as before) where it mixes them with others; empty where it has none."""
    small = {d.size_bits == 8 and not d.is_float for d in tensor.dtypes}
    if small == {True}:
        return "half"
    return f"{tensor.dag_type}Mid" if True in small else ""


def dag_kernel(tensors: tuple[TensorPlan, ...], float_compute: bool, steps: tuple[Step, ...],
               brc_inputs: tuple[str, ...] = (), var_names: tuple[str, ...] = ()) -> DagKernel:
    """`brc_inputs` are loaded with CopyInBrc (they may broadcast to the output's shape);
    `var_names`: the attrs the steps read, each a `Placeholder::Var` of that index (the kernel sets them)."""
    compute_type = "float" if float_compute else "T"
    lines: list[DagLine] = []
    nodes: dict[str, str] = {}
    consts: dict[float, str] = {}
    read = [t for t in tensors if t.role == "input" and t.read_by_kernel]
    if float_compute:
        mids = dict.fromkeys(via_half(t) for t in tensors if via_half(t) not in ("", "half"))
        lines += [DagLine(mid, f"std::conditional_t<sizeof({mid.removesuffix('Mid')}) == 1, half, float>",
                          VIA_HALF_WHY) for mid in mids]
    for i, t in enumerate(read):
        load_type = "uint8_t" if t.is_mask else t.dag_type
        copy_in = "CopyInBrc" if t.name in brc_inputs else "CopyIn"
        lines.append(DagLine(f"OpCopyIn{i}", f"Bind<Vec::{copy_in}<{load_type}>, Placeholder::In{i}<{t.dag_type}>>",
                             f"load {t.name}"))
        nodes[t.name] = f"OpCopyIn{i}"
        if float_compute and not t.is_mask:
            source = f"OpCopyIn{i}"
            if via_half(t):
                lines.append(DagLine(f"OpCopyIn{i}Half", f"Bind<Vec::Cast<{via_half(t)}, {t.dag_type}, "
                                     f"CAST_MODE_NONE>, {source}>", f"{t.name} to half first"))
                source = f"OpCopyIn{i}Half"
            lines.append(DagLine(f"OpCopyIn{i}Cast", f"Bind<Vec::Cast<float, {via_half(t) or t.dag_type}, "
                                 f"CAST_MODE_NONE>, {source}>", f"{t.name} to float"))
            nodes[t.name] = f"OpCopyIn{i}Cast"

    def const(value: float | AttrRef) -> str:
        if isinstance(value, AttrRef):
            return f"Placeholder::Var<{compute_type}, {var_names.index(value.name)}>"
        if value not in consts:
            consts[value] = f"Const{len(consts)}"
            lines.append(DagLine(consts[value], f"MAKE_CONST(float, {value!r})", ""))
        return consts[value]

    def node(arg: Arg) -> str:
        return nodes[arg] if isinstance(arg, str) else const(arg)

    modes: dict[str, int] = {}
    for step in steps:
        alias = f"{DAG_VALUE_PREFIX}{upper_camel(step.out)}"
        vec = SPELLINGS[step.op].vec
        if step.op == "select":
            mask, src, other = step.args
            if isinstance(other, str):
                second = nodes[other]
            else:
                second = f"{alias}{DAG_FILL_SUFFIX}"
                lines.append(DagLine(second, f"Bind<Vec::Duplicate<{compute_type}>, {const(other)}>", ""))
            expr = (f"Bind<Vec::Select<uint8_t, {compute_type}, VSEL_TENSOR_TENSOR_MODE>, {nodes[str(mask)]}, "
                    f"{nodes[str(src)]}, {second}>")
        elif OPS[step.op].gives_mask:
            mode, value, _ = COMPARE_MODES[step.op]
            modes[f"COMPARE_MODE_{mode}"] = value
            args = [node(a) for a in step.args]
            expr = f"Bind<Vec::Compare<uint8_t, {compute_type}, COMPARE_MODE_{mode}>, {', '.join(args)}>"
        else:
            args = [node(a) for a in step.args]
            expr = f"Bind<Vec::{vec}<{compute_type}>, {', '.join(args)}>"
        lines.append(DagLine(alias, expr, str(step)))
        nodes[step.out] = alias
    outputs = []
    for i, t in enumerate(t for t in tensors if t.role == "output"):
        source = nodes[t.name]
        if float_compute and via_half(t):
            lines.append(DagLine(f"OpCopyOut{i}Half", f"Bind<Vec::Cast<{via_half(t)}, float, CAST_MODE_RINT>, "
                                 f"{source}>", f"{t.name} back through half"))
            source = f"OpCopyOut{i}Half"
        if float_compute:
            lines.append(DagLine(f"OpCopyOut{i}Cast", f"Bind<Vec::Cast<{t.dag_type}, {via_half(t) or 'float'}, "
                                 f"CAST_MODE_RINT>, {source}>", f"{t.name} back from float"))
            source = f"OpCopyOut{i}Cast"
        lines.append(DagLine(f"OpCopyOut{i}", f"Bind<Vec::CopyOut<{t.dag_type}>, Placeholder::Out{i}<{t.dag_type}>, "
                             f"{source}>", f"store {t.name}"))
        outputs.append(f"OpCopyOut{i}")
    init_args = tuple(t.name for t in read) + tuple(t.name for t in tensors if t.role == "output")
    constants: tuple[tuple[str, int], ...] = (("CAST_MODE_NONE", 0), ("CAST_MODE_RINT", 1)) if float_compute else ()
    constants += tuple(sorted(modes.items(), key=lambda item: item[1]))
    if any(s.op == "select" for s in steps):
        constants += (("VSEL_TENSOR_TENSOR_MODE", 2),)
    return DagKernel(compute_type, constants, tuple(lines), tuple(outputs), init_args)
