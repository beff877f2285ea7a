"""The absent path of an optional input: a second DAG and its TPL dtype values (its golden: testcases.golden).

As upstream MishGrad: the tiling asks `GetOptionalInputDesc(i)`; nullptr picks the DAG that computes the
input's value from the others (the spec's `compute.absent` steps) and a TPL dtype value of its own, which
the kernel entry dispatches on to an `Init` without the input.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...spec.models import OpSpec
from ..registry.reserved import upper_camel
from ..registry.tensors import TensorPlan
from .dag import DagKernel
from .fused_dag import arch35_kernel
from .lowering import lower

ABSENT_TPL_OFFSET = 16  # absent-path TPL dtype values: the dtype's own value plus this (8-bit TPL field)


@dataclass(frozen=True)
class AbsentPlan:
    tensor: TensorPlan  # the optional input that may be absent
    presence: str  # the tiling's bool local: whether the input is given
    presence_decl: str
    dag_struct: str
    dag: DagKernel | None  # arch35 only


def absent_name(tensor: TensorPlan) -> str:
    """`Without<Name>`: the suffix of the absent path's DAG struct, TPL names and golden variants."""
    return f"Without{upper_camel(tensor.name)}"


def absent_plan(spec: OpSpec, tensors: tuple[TensorPlan, ...], float_compute: bool, layout: str,
                var_names: tuple[str, ...] = ()) -> AbsentPlan | None:
    """The absent path of the one optional input with `compute.absent` steps that the kernel reads, if any."""
    by_name = {t.name: t for t in tensors}
    names = [n for n in spec.compute.absent if n in by_name and by_name[n].read_by_kernel and by_name[n].optional]
    if not names:
        return None
    tensor = by_name[names[0]]
    suffix = absent_name(tensor)
    without = tuple(replace(t, read_by_kernel=False) if t.name == tensor.name else t for t in tensors)
    variant = spec.compute.variants[spec.platforms[0].compute_variant]
    dag_steps = lower(spec.compute.absent[tensor.name] + variant, layout)
    dag = (arch35_kernel(spec.compute.lowering, f"{spec.op_type}{suffix}", without, float_compute, dag_steps, (),
                         var_names) if layout == "arch35" else None)
    presence = f"{tensor.camel}Present"
    return AbsentPlan(
        tensor=tensor, presence=presence,
        presence_decl=f"const bool {presence} = tilingContext->GetOptionalInputDesc({tensor.index}) != nullptr;",
        dag_struct=f"{spec.op_type}{suffix}Dag", dag=dag,
    )
