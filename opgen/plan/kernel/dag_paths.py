"""The arch35 kernel's paths: per dtype combination, per value of an attr choosing the math, and with or
without an absent optional input, the DAG the tiling tiles and the kernel runs, and the TPL values that
select it."""

from __future__ import annotations

from dataclasses import dataclass

from ...spec.models import OpSpec
from ...spec.recipe import AttrRef
from ..registry.attrs import KernelScalars
from ..registry.choice import ChoicePlan, ChoiceValue
from ..registry.reserved import upper_snake
from ..registry.tensors import DtypeCombination, TensorPlan
from .dag import DagKernel
from .fused_dag import arch35_kernel
from .lowering import lower
from .optional import ABSENT_TPL_OFFSET, AbsentPlan


@dataclass(frozen=True)
class NamedDag:
    """One DAG struct of the DAG header."""

    struct: str
    kernel: DagKernel
    var_names: tuple[str, ...]  # the attrs its steps read, in Placeholder::Var index order
    note: str  # the comment above the struct ("" for the op's one DAG)
    choice: ChoiceValue | None = None  # the choice value whose math it is
    b16: bool | None = None  # runs only the combinations whose tensors are all 16-bit (True) or the others (False)


@dataclass(frozen=True)
class DagBranch:
    """One kernel path: what the tiling tests, the TPL values it sets, the DAG it tiles and runs."""

    condition: str  # C++ condition in RunTiling
    kernel_condition: str  # the kernel entry's `if constexpr` condition over its TPL arguments
    tpl: str  # the dType TPL value
    tpl_code: int
    tpl_args: str  # the entry template's arguments after schMode
    dag_struct: str
    dag_args: str  # the DAG struct's template arguments
    init_args: str  # the scheduler's Init arguments: the inputs this path reads, then the outputs
    combination: int  # index of the dtype combination
    set_vars: tuple[str, ...]  # the kernel's statements setting the DAG Vars (attrs) in this path's compute type
    choice: ChoiceValue | None = None  # the choice value whose math it runs


def is_b16(combination: DtypeCombination) -> bool:
    """Every tensor a 16-bit float: the combinations upstream's arch35 kernels give AscendC::Erf's Pade form."""
    return all(d.is_float and d.size_bits == 16 for d in combination.dtypes)


def present_dags(spec: OpSpec, tensors: tuple[TensorPlan, ...], combos: tuple[DtypeCombination, ...],
                 float_compute: bool, brc_inputs: tuple[str, ...], scalars: KernelScalars, choice: ChoicePlan | None,
                 variant: str) -> tuple[NamedDag, ...]:
    """The DAGs with every input: one per value of the choice attr (`<Op><Label>Dag` of the variant it picks),
    else `<Op>Dag` of the platforms' variant. A fused recipe with erf has a twin `...B16Dag` for the all-16-bit
    combinations, erf in registers (lowering.py's arch35_b16), where the others bind Vec::Erf."""
    picks = [(v, v.variant, v.dag_struct) for v in choice.values] if choice else [(None, variant, f"{spec.op_type}Dag")]
    widths = {is_b16(c) for c in combos}
    dags = []
    for value, name, struct in picks:
        steps = spec.compute.variants[name]
        twin = spec.compute.lowering == "fused" and any(s.op == "erf" for s in steps) and len(widths) == 2
        dialect = "arch35_b16" if spec.compute.lowering == "fused" and widths == {True} else "arch35"
        forms = [(struct, dialect, None)] + ([(struct.removesuffix("Dag") + "B16Dag", "arch35_b16", True)] if twin
                                             else [])
        for form_struct, form_dialect, b16 in forms:
            lowered = lower(steps, form_dialect)
            read = {a.name for s in lowered for a in s.args if isinstance(a, AttrRef)}
            names = tuple(n for n in scalars.var_names if n in read)
            notes = [f"{choice.attr.name} = {value.literal}" if choice and value else "",
                     "16-bit dtypes: erf in registers, AscendC::Erf's Pade form" if b16 else ""]
            kernel = arch35_kernel(spec.compute.lowering, form_struct.removesuffix("Dag"), tensors, float_compute,
                                   lowered, brc_inputs, names)
            dags.append(NamedDag(form_struct, kernel, names, ", ".join(n for n in notes if n), value,
                                 b16 if b16 else (False if twin else None)))
    return tuple(dags)


def dag_branches(combos: tuple[DtypeCombination, ...], present: tuple[NamedDag, ...], absent: AbsentPlan | None,
                 scalars: KernelScalars, choice: ChoicePlan | None) -> tuple[DagBranch, ...]:
    """Per dtype combination and choice value (`present`: a DAG each) the path with every input and, with an
    absent-able input, the one without it."""
    branches = []
    for c in combos:
        for dag in present:
            if dag.b16 is not None and dag.b16 != is_b16(c):
                continue
            var_type = "float" if dag.kernel.compute_type == "float" else c.key.kernel
            set_vars = scalars.set_vars(var_type, dag.var_names)
            picked = f" && {choice.arg} == {dag.choice.tpl}" if choice and dag.choice else ""
            args = f"{c.tpl}, {dag.choice.tpl}" if dag.choice else c.tpl
            init = ", ".join(dag.kernel.init_args)
            if absent is None:
                branches.append(DagBranch(c.dispatch + picked, f"dType == {c.tpl}{picked}", c.tpl, c.tpl_code, args,
                                          dag.struct, c.dag_args, init, c.index, set_vars, dag.choice))
                continue
            tpl = f"{c.tpl}_WITHOUT_{upper_snake(absent.tensor.name)}"
            absent_args = ", ".join(absent.dag.init_args) if absent.dag else ""
            branches += [
                DagBranch(f"{c.dispatch} && {absent.presence}", f"dType == {c.tpl}", c.tpl, c.tpl_code, c.tpl,
                          dag.struct, c.dag_args, init, c.index, set_vars, dag.choice),
                DagBranch(f"{c.dispatch} && !{absent.presence}", f"dType == {tpl}", tpl,
                          c.tpl_code + ABSENT_TPL_OFFSET, tpl, absent.dag_struct, c.dag_args, absent_args, c.index,
                          scalars.set_vars(var_type, scalars.var_names)),
            ]
    return tuple(branches)
