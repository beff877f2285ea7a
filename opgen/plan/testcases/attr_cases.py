"""op_host tiling UT cases with the op's attrs in the context, as GE builds it: every attr, in attr order
(`GetAttrPointer(i)` counts them all), at its def default; and one case more at the non-default setting the
numerics check runs, whose expected tiling data carries those values, so a tiling that ignores an attr fails."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from ...spec.models import OpSpec
from ..kernel.classic_tiling import TILING_FIELDS
from ..registry.attrs import AttrPlan, AttrValue, KernelScalars, attr_settings, c_literal
from ..registry.choice import ChoicePlan
from .ut_cases import TilingCase

ANY_VALUE_TYPES = {"float": "float", "int": "int64_t", "bool": "bool", "string": "std::string"}
C_LAYOUT = {"float": "<f4", "int64_t": "<i8", "bool": "?"}  # numpy spellings of the attr fields' C types


def with_attrs(cases: list[TilingCase], spec: OpSpec, attrs: tuple[AttrPlan, ...], scalars: KernelScalars,
               dag: bool, choice: ChoicePlan | None = None, choice_shift: int = 0) -> list[TilingCase]:
    """`choice_shift`: where the choice attr's TPL argument sits in the tiling key (after schMode and dType)."""
    if not attrs:
        return cases
    defaults, *others = attr_settings(spec)
    given = [_given(c, attrs, defaults, scalars, dag) if c.succeeds else c for c in cases]
    given += _below_min_cases(cases, spec, attrs, defaults, scalars, dag)
    if choice is not None:
        given += _choice_cases(cases, attrs, defaults, scalars, choice, choice_shift)
        others = [o for o in others if o[choice.attr.name] == choice.attr.value]
    first = next((c for c in cases if c.succeeds), None)
    if first is None or not scalars.attrs:
        return given
    return given + [replace(_given(first, attrs, values, scalars, dag), name=f"{first.name}_attrs_{n}")
                    for n, values in enumerate(others)]


def _choice_cases(cases: list[TilingCase], attrs: tuple[AttrPlan, ...], defaults: Mapping[str, AttrValue],
                  scalars: KernelScalars, choice: ChoicePlan, shift: int) -> list[TilingCase]:
    """Each succeeding case again at each other value of the choice attr (its DAG: the key's choice argument
    moves), and the first one at a value the attr does not take, which the tiling refuses."""
    name = choice.attr.name
    succeeding = [c for c in cases if c.succeeds]
    found = [replace(_given(c, attrs, {**defaults, name: v.value}, scalars, True), name=f"{c.name}_{v.label}",
                     tiling_key=c.tiling_key + (v.code << shift))
             for v in choice.values if v != choice.default for c in succeeding]
    if succeeding and choice.is_string:  # a bool takes no other value
        invalid = "invalid" + "_" * sum(str(v.value).startswith("invalid") for v in choice.values)
        refused = _given(succeeding[0], attrs, {**defaults, name: invalid}, scalars, True)
        found.append(replace(refused, name=f"tiling_{name}_{invalid}", expect="GRAPH_FAILED", tiling_key=0,
                             block_dim=0, fields=(), attr_checks=()))
    return found


def _below_min_cases(cases: list[TilingCase], spec: OpSpec, attrs: tuple[AttrPlan, ...],
                     defaults: Mapping[str, AttrValue], scalars: KernelScalars, dag: bool) -> list[TilingCase]:
    """The first succeeding case with an attr one below its min (min_when true), which the tiling refuses."""
    first = next((c for c in cases if c.succeeds), None)
    if first is None:
        return []
    refused = []
    for attr, bound in ((a, a.min) for a in spec.def_attrs if a.min is not None):
        below = bound - 1 if attr.type == "float" else int(bound) - 1
        values = {**defaults, attr.name: below, **({attr.min_when: True} if attr.min_when else {})}
        refused.append(replace(_given(first, attrs, values, scalars, dag), name=f"tiling_{attr.name}_below_min",
                               expect="GRAPH_FAILED", tiling_key=0, block_dim=0, fields=(), attr_checks=()))
    return refused


def classic_tiling_bytes(fields: tuple[int, ...], scalars: KernelScalars, values: Mapping[str, AttrValue]) -> bytes:
    """The classic tiling data struct as host and kernel see it: its uint64 fields, then the attr fields the
    recipe reads, laid out (and padded) as the C compiler does."""
    layout = np.dtype([(n, "<u8") for n in TILING_FIELDS] + [(a.field, C_LAYOUT[a.c_type]) for a in scalars.attrs],
                      align=True)
    record = np.zeros((), dtype=layout)
    for name, value in zip(TILING_FIELDS, fields, strict=True):
        record[name] = value
    for attr in scalars.attrs:
        record[attr.field] = values[attr.name]
    return record.tobytes()


def _given(case: TilingCase, attrs: tuple[AttrPlan, ...], values: Mapping[str, AttrValue], scalars: KernelScalars,
           dag: bool) -> TilingCase:
    listed = "{" + ", ".join(
        f'{{"{a.name}", Ops::NN::AnyValue::CreateFrom<{ANY_VALUE_TYPES[a.kind]}>'
        f"({c_literal(a.kind, values[a.name])})}}" for a in attrs) + "}"
    rest = case.instance_args.removeprefix("{}, ") if case.instance_args.startswith("{}") else case.instance_args
    if dag:
        checks = tuple((a.field, c_literal(a.kind, values[a.name])) for a in scalars.attrs)
        return replace(case, instance_args=", ".join(filter(None, [listed, rest])), attr_checks=checks)
    words = np.frombuffer(classic_tiling_bytes(case.classic_fields, scalars, values), dtype="<i8")
    return replace(case, instance_args=", ".join(filter(None, [listed, rest])),
                   tiling_data="".join(f"{w} " for w in words))
