"""Attrs in the plan: their C++ literals, and how the ones a recipe reads reach the kernel and the tests.

arch35: a tiling data struct (the elementwise base tiling, then one field per attr) filled by the host
tiling from `GetAttrs()` (the def default when absent); the kernel sets each DAG `Placeholder::Var` from it.
The golden takes every attr as a keyword argument, the ST rows carry them, and the numerics check runs the
defaults and a second, non-default setting.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ...spec.attrs import recipe_attrs
from ...spec.choice import choice_attr, choice_options
from ...spec.models import AttrSpec, OpSpec
from .reserved import lower_camel

AttrValue = bool | int | float | str
C_TYPES = {"float": "float", "int": "int64_t", "bool": "bool", "string": "char"}


@dataclass(frozen=True)
class AttrPlan:
    name: str
    kind: str  # the spec's type: float, int, bool, string
    index: int  # the attr's position: GetAttrPointer's argument
    ge_type: str  # Int, Float, Bool, String: the REG_OP ATTR type, also the name of the OpDef attr setter
    default: str  # C++ literal of the def (OpDef) default
    proto_default: str  # C++ literal of the REG_OP default
    c_type: str  # what GetAttrPointer reads
    field: str  # lowerCamel: the tiling data field
    member: str  # the classic kernel's member holding it
    value: AttrValue  # the def default
    def_attr_type: str = "OPTIONAL"  # the def's AttrType(...) argument, empty when not called
    required: bool = False  # the tiling fails without a value (else it takes the def default)
    refusal: str = ""  # the C++ condition on which the tiling refuses the value (spec min, min_when)
    refusal_reason: str = ""

    @property
    def def_call(self) -> str:
        """The def's calls after `this->Attr("name")`: its AttrType, then the typed default."""
        kind = f".AttrType({self.def_attr_type})" if self.def_attr_type else ""
        return f"{kind}.{self.ge_type}({self.default})"

    @property
    def python_default(self) -> str:
        """The golden's keyword default, a Python literal."""
        return repr(self.value)


@dataclass(frozen=True)
class KernelScalars:
    """How the attrs a recipe reads travel from the host tiling to the kernel (none: the plain base tiling)."""

    attrs: tuple[AttrPlan, ...]  # in DAG Var index order
    tiling_struct: str  # the tiling data type the tiling fills and the kernel registers
    base_member: str  # "" or "baseTiling.": where the elementwise base tiling's fields sit in that struct
    broadcast: bool = False  # BroadcastSch reads the Vars from its own tiling data, set by SetScalar

    @property
    def own_struct(self) -> bool:
        """The elementwise kernel's tiling data carries the attrs in a struct of the op's own."""
        return bool(self.attrs) and not self.broadcast

    @property
    def set_scalars(self) -> tuple[str, ...]:
        """The broadcast tiling's SetScalar calls, in DAG Var order (BroadcastSch reads them in that order)."""
        return tuple(f"brcBaseTiling.SetScalar<float>({_cast('float', a.c_type, f'{a.field}Value')});"
                     for a in self.attrs)

    @property
    def var_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attrs)

    def set_vars(self, var_type: str, names: tuple[str, ...]) -> tuple[str, ...]:
        """The arch35 kernel's SetVar statements for a DAG computing in `var_type` whose Vars are `names`."""
        by_name = {a.name: a for a in self.attrs}
        return tuple(f"sch.template SetVar<{var_type}, {i}>("
                     f"{_cast(var_type, by_name[n].c_type, f'tilingData.{by_name[n].field}')});"
                     for i, n in enumerate(names))

    @property
    def host_base(self) -> str:
        """What the host tiling hands DoTiling."""
        return "tiling->baseTiling" if self.attrs else "*tiling"

    @property
    def kernel_base(self) -> str:
        """What the kernel hands the scheduler."""
        return "&tilingData.baseTiling" if self.attrs else "&tilingData"


def attr_plans(spec: OpSpec) -> tuple[AttrPlan, ...]:
    return tuple(_attr(i, a) for i, a in enumerate(spec.def_attrs))


def proto_attr_plans(spec: OpSpec) -> tuple[AttrPlan, ...]:
    """Every attr, as REG_OP registers them: the def's and the proto-only ones, in spec order."""
    return tuple(_attr(i, a) for i, a in enumerate(spec.attrs))


def kernel_scalars(spec: OpSpec, attrs: tuple[AttrPlan, ...]) -> KernelScalars:
    read = recipe_attrs(spec)
    used = tuple(a for a in attrs if a.name in read)
    if not used:
        return KernelScalars((), "EleBaseTilingDataV2", "")
    if spec.infershape.rule == "broadcast":
        return KernelScalars(used, "EleBaseTilingDataV2", "", broadcast=True)
    return KernelScalars(used, f"{spec.op_type}TilingData", "baseTiling.")


def attr_settings(spec: OpSpec) -> tuple[dict[str, AttrValue], ...]:
    """The attr values the numerics check runs: the defaults, each other value of an attr choosing the math,
    then every numeric attr at a non-default value (its check_value, else derived) with each value of that attr,
    so math that ignores an attr fails there; the last setting is the default value's."""
    defaults = {a.name: a.default for a in spec.def_attrs}
    choice = choice_attr(spec)
    values = [v for v, _ in choice_options(choice) if v != choice.default] if choice else []
    picked = [{**defaults, choice.name: v} for v in values] if choice else []
    numeric = [a for a in spec.def_attrs if a.type in ("float", "int", "bool") and a is not choice]
    changed = {**defaults, **{a.name: _other(a, k) for k, a in enumerate(numeric)}}
    # each choice value's math at the non-default numbers too, the default value's last
    other = [{**changed, choice.name: v} for v in values] + [changed] if choice else [changed]
    return (defaults, *picked, *(other if numeric else []))


def shown_attrs(spec: OpSpec, attrs: Mapping[str, AttrValue]) -> str:
    """The attrs that differ from their defaults, as `name=value` (empty at the defaults)."""
    return ", ".join(f"{a.name}={attrs[a.name]!r}" for a in spec.def_attrs if attrs[a.name] != a.default)


def kernel_value(kind: str, value: AttrValue) -> AttrValue:
    """The value as the kernel holds it: a float attr in float32 (a Python float of that value)."""
    return float(np.float32(value)) if kind == "float" else value


def _other(attr: AttrSpec, k: int) -> AttrValue:
    """The checked non-default value: the spec's check_value, else one derived from the default and the attr's
    place `k`, so attrs with equal defaults get distinct values and a tiling that swaps two of them fails."""
    if attr.check_value is not None:
        return attr.check_value
    if attr.type == "bool":
        return not attr.default
    if attr.type == "int":  # an int64: stepping down from a default at its top
        up = int(attr.default) + 1 + k
        return up if up <= _INT64_MAX else int(attr.default) - 1 - k
    default = float(attr.default)
    value = (default * 2.0 if default else 0.5) + 0.25 * k
    return value if abs(value) <= _FLOAT32_MAX else default / (2.0 + k)  # a float32: halving a default near its top


_INT64_MAX = (1 << 63) - 1
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _attr(index: int, attr: AttrSpec) -> AttrPlan:
    proto = attr.default if attr.proto_default is None else attr.proto_default
    return AttrPlan(attr.name, attr.type, index, attr.type.capitalize(), c_literal(attr.type, attr.default),
                    c_literal(attr.type, proto),
                    C_TYPES[attr.type], lower_camel(attr.name), attr_member(attr.name), attr.default,
                    (attr.attr_type or "").upper(), attr.attr_type == "required" or attr.if_absent == "error",
                    *_refusal(attr))


def _refusal(attr: AttrSpec) -> tuple[str, str]:
    """The tiling's bound on the attr (spec min, while min_when is true): its C++ condition and logged reason."""
    if attr.min is None:
        return "", ""
    bound = c_literal(attr.type, float(attr.min) if attr.type == "float" else int(attr.min))
    below = f"tiling->{lower_camel(attr.name)} < {bound}"
    if attr.min_when is None:
        return below, f"the value of {attr.name} must be at least {attr.min:g}"
    return (f"{lower_camel(attr.min_when)}Value && {below}",
            f"if {attr.min_when} is true, the value of {attr.name} must be at least {attr.min:g}")


def _cast(to: str, c_type: str, value: str) -> str:
    return value if to == c_type else f"static_cast<{to}>({value})"


def c_literal(kind: str, value: AttrValue) -> str:
    """The value as a C++ literal of the attr's type (the spec check refused mistyped and non-finite ones)."""
    if kind == "bool":
        return "true" if value else "false"
    if kind == "float":
        return f"{float(value)!r}f"
    if kind == "string":
        return f'"{value}"'
    return str(int(value))


def attr_member(attr: str) -> str:
    """The classic kernel's member an attr's tiling field is copied into."""
    return f"{lower_camel(attr)}_"
