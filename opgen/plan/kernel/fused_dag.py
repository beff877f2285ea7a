"""The arch35 DAG binding fused register nodes (registers.py): CopyIn per input, one custom node per value a DAG
node or an output needs, the Vec:: nodes with no register form between them, CopyOut per output."""

from __future__ import annotations

from ...spec.recipe import Step
from ..registry.reserved import DAG_VALUE_PREFIX, upper_camel
from ..registry.tensors import TensorPlan
from .dag import DagKernel, DagLine, dag_kernel
from .registers import DAG_NODE_OPS, FusedNode, fusable, fused_nodes


def arch35_kernel(lowering: str, prefix: str, tensors: tuple[TensorPlan, ...], float_compute: bool,
                  steps: tuple[Step, ...], brc_inputs: tuple[str, ...], var_names: tuple[str, ...]) -> DagKernel:
    """The fused DAG where the spec's lowering asks for it and every step has a form; one `Vec::` node a step
    otherwise (dag.py)."""
    if lowering == "fused" and not fusable(tensors, float_compute, steps):
        return fused_kernel(prefix, tensors, steps, brc_inputs, var_names)
    return dag_kernel(tensors, float_compute, steps, brc_inputs, var_names)


def fused_kernel(prefix: str, tensors: tuple[TensorPlan, ...], steps: tuple[Step, ...],
                 brc_inputs: tuple[str, ...], var_names: tuple[str, ...]) -> DagKernel:
    """The DAG of fused nodes: `prefix` names them (`<prefix>Fused<k>`); inputs in `brc_inputs` load with
    CopyInBrc; `var_names` are the attrs, each `Placeholder::Var<float, index>`."""
    read = [t for t in tensors if t.role == "input" and t.read_by_kernel]
    lines: list[DagLine] = []
    nodes: dict[str, str] = {}
    types: dict[str, str] = {}
    for i, t in enumerate(read):
        copy_in = "CopyInBrc" if t.name in brc_inputs else "CopyIn"
        lines.append(DagLine(f"OpCopyIn{i}", f"Bind<Vec::{copy_in}<{t.dag_type}>, Placeholder::In{i}<{t.dag_type}>>",
                             f"load {t.name}"))
        nodes[t.name], types[t.name] = f"OpCopyIn{i}", t.dag_type
    out_types = {t.name: t.dag_type for t in tensors if t.role == "output"}
    fused = fused_nodes(prefix, tensors, steps)
    by_value = {n.value: n for n in fused}

    def bind(node: FusedNode) -> None:
        alias = f"{DAG_VALUE_PREFIX}{upper_camel(node.value)}"
        out_type = out_types.get(node.value, "float")
        targs = ", ".join([out_type, *(types[v] for v in node.inputs)])
        args = [nodes[v] for v in node.inputs] + [f"Placeholder::Var<float, {var_names.index(a)}>" for a in node.attrs]
        lines.append(DagLine(alias, f"Bind<{node.struct}<{targs}>, {', '.join(args)}>",
                             f"{node.value} in registers"))
        nodes[node.value], types[node.value] = alias, out_type

    for step in steps:
        if step.op in DAG_NODE_OPS:
            arg = str(step.args[0])
            if arg not in nodes:
                bind(by_value[arg])
            alias = f"{DAG_VALUE_PREFIX}{upper_camel(step.out)}"
            lines.append(DagLine(alias, f"Bind<Vec::{DAG_NODE_OPS[step.op]}<float>, {nodes[arg]}>", str(step)))
            nodes[step.out], types[step.out] = alias, "float"
    outputs = []
    for i, t in enumerate(t for t in tensors if t.role == "output"):
        if t.name not in nodes:
            bind(by_value[t.name])
        lines.append(DagLine(f"OpCopyOut{i}", f"Bind<Vec::CopyOut<{t.dag_type}>, Placeholder::Out{i}<{t.dag_type}>, "
                             f"{nodes[t.name]}>", f"store {t.name}"))
        outputs.append(f"OpCopyOut{i}")
    init_args = tuple(t.name for t in read) + tuple(t.name for t in tensors if t.role == "output")
    return DagKernel("float", (), tuple(lines), tuple(outputs), init_args, fused)
