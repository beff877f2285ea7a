"""A string attr choosing the math, as upstream GeluGradV2's `approximate`: one DAG per value, a TPL argument
of the attr's name (`ASCENDC_TPL_UINT_DECL(approximate, ...)`) that the host tiling sets from the string and
the kernel branches on, and a golden variant per value."""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.choice import choice_attr
from ..spec.models import OpSpec
from .attrs import AttrPlan
from .reserved import lower_camel, upper_camel


@dataclass(frozen=True)
class ChoiceValue:
    value: str  # the attr's string, and the compute variant it picks
    tpl: str  # TPL_<ATTR>_<VALUE>: the TPL argument's value for it
    code: int  # the macro's value: its index in the values
    dag_struct: str  # the DAG of its variant


@dataclass(frozen=True)
class ChoicePlan:
    attr: AttrPlan
    arg: str  # the TPL argument, also the tiling's local holding the value's code
    values: tuple[ChoiceValue, ...]  # in the spec's order

    @property
    def bits(self) -> int:
        """The TPL argument's bit width: enough for the largest code."""
        return max(1, (len(self.values) - 1).bit_length())

    @property
    def tpl_list(self) -> str:
        return ", ".join(v.tpl for v in self.values)

    @property
    def default(self) -> ChoiceValue:
        return next(v for v in self.values if v.value == self.attr.value)

    @property
    def values_text(self) -> str:
        """The accepted values as a log message names them: `none or tanh`."""
        names = [v.value for v in self.values]
        return " or ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else names[0]


def choice_plan(spec: OpSpec, attrs: tuple[AttrPlan, ...]) -> ChoicePlan | None:
    choice = choice_attr(spec)
    if choice is None:
        return None
    prefix = f"TPL_{choice.name.upper()}_"
    values = tuple(ChoiceValue(v, f"{prefix}{v.upper()}", i, f"{spec.op_type}{upper_camel(v)}Dag")
                   for i, v in enumerate(choice.values))
    return ChoicePlan(next(a for a in attrs if a.name == choice.name), lower_camel(choice.name), values)
