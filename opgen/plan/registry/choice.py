"""An attr choosing the math, as upstream GeluGradV2's `approximate` (a string) and EluGradV2's `is_result` (a
bool): one DAG per value, a TPL argument of the attr's name (`ASCENDC_TPL_UINT_DECL(approximate, ...)`) that
the host tiling sets from the attr and the kernel branches on, and a golden variant per value."""

from __future__ import annotations

from dataclasses import dataclass

from ...spec.choice import choice_attr, choice_label, choice_options
from ...spec.models import OpSpec
from .attrs import AttrPlan, c_literal
from .reserved import lower_camel, upper_camel


@dataclass(frozen=True)
class ChoiceValue:
    value: str | bool  # the attr's value
    variant: str  # the compute variant it picks
    label: str  # what names its test cases and DAG: a string value itself, `<attr>_true` for a bool
    tpl: str  # TPL_<ATTR>_<VALUE>: the TPL argument's value for it
    code: int  # the macro's value: its index in the values
    dag_struct: str  # the DAG of its variant: `<Op><Label>Dag`
    literal: str  # the value as C++ writes it: "tanh", true


@dataclass(frozen=True)
class ChoicePlan:
    attr: AttrPlan
    arg: str  # the TPL argument, also the tiling's local holding the value's code
    values: tuple[ChoiceValue, ...]  # in TPL order: a string attr's values as listed; false, then true

    @property
    def is_string(self) -> bool:
        return self.attr.kind == "string"

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

    def pick(self, value: object) -> ChoiceValue:
        return next(v for v in self.values if v.value == value)

    @property
    def values_text(self) -> str:
        """The accepted values as a log message names them: `none or tanh`."""
        names = [str(v.value) for v in self.values]
        return " or ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else names[0]


def choice_plan(spec: OpSpec, attrs: tuple[AttrPlan, ...]) -> ChoicePlan | None:
    choice = choice_attr(spec)
    if choice is None:
        return None
    values = []
    for code, (value, variant) in enumerate(choice_options(choice)):
        label = choice_label(choice.name, value)
        word = value if isinstance(value, str) else ("true" if value else "false")
        values.append(ChoiceValue(value, variant, label, f"TPL_{choice.name.upper()}_{word.upper()}", code,
                                  f"{spec.op_type}{upper_camel(label)}Dag", c_literal(choice.type, value)))
    return ChoicePlan(next(a for a in attrs if a.name == choice.name), lower_camel(choice.name), tuple(values))
