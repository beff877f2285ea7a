"""Attrs on the aclnn path: the API's scalar parameters, their conversion to the attr's C type, and the l0 op
taking every attr in def order and launching with `OP_ATTR(...)`, as upstream's HardShrinkGrad l0 op does.

An attr no API parameter sets reaches the l0 op at its def default (upstream aclnnHardsigmoidBackward passes
alpha = 1/6 and beta = 0.5), so the tiling always reads the attrs the launch carries. A string attr's `char*`
parameter reaches the l0 op as it is, once CheckNotNull and CheckScalarValue found it among the attr's values
(upstream aclnnGeluBackwardV2's approximate).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...spec.models import AclnnScalar, OpSpec
from ..registry.attrs import AttrPlan, AttrValue, attr_settings, c_literal
from ..registry.text import SpecText
from .aclnn_rules import ScalarRule, ValuesRule
from .l0 import L0_TYPES

SCALAR_METHODS = {"float": "ToFloat", "int": "ToInt64", "bool": "ToBool"}
SCALAR_ACL = {"float": ("float", "ACL_FLOAT"), "int": ("int64_t", "ACL_INT64"), "bool": ("bool", "ACL_BOOL")}
# the dtype an aclScalar must cast to (as upstream aclnnSwishBackward checks betaOptional), and its name in logs
SCALAR_GE = {"float": ("DT_FLOAT", "float32"), "int": ("DT_INT64", "int64"), "bool": ("DT_BOOL", "bool")}
PARAM_TYPES = {"aclScalar": "const aclScalar*", "double": "double", "float": "float", "int64_t": "int64_t",
               "bool": "bool", "char*": "char*"}
NULL_SCALAR = "(aclScalar*)nullptr"
NULL_STRING = "(char*)nullptr"


# what the docs say of an axis scalar's values; the wrapper refuses any other (plan/aclnn/aclnn_split.py)
AXIS_RULE = "an axis of {x}: from -rank to rank - 1 (rank: {x}'s), any other value is refused"


@dataclass(frozen=True)
class AclnnScalarPlan:
    name: str  # the API parameter
    attr: AttrPlan
    kind: str  # the spec's type: aclScalar, double, float, int64_t, bool, char*
    optional: bool  # aclScalar only: nullptr means the def default
    c_type: str  # the parameter's C++ type
    doc: SpecText
    rule: ScalarRule | None = None  # a lower bound the wrapper refuses or clamps below
    values: ValuesRule | None = None  # char*: the string attr's values, the only ones the wrapper takes
    axis_of: str = ""  # the API tensor split along the axis this scalar holds (an op split along an axis)

    @property
    def declaration(self) -> str:
        return f"{self.c_type} {self.name}"

    @property
    def check_declaration(self) -> str:
        """The parameter of the static check functions: they only read a string."""
        return f"const char* {self.name}" if self.is_string else self.declaration

    @property
    def is_pointer(self) -> bool:
        """An aclScalar (a char* is no aclScalar: no dtype, no conversion)."""
        return self.kind == "aclScalar"

    @property
    def is_string(self) -> bool:
        return self.values is not None

    @property
    def null_literal(self) -> str:
        """The UT's argument for a null parameter."""
        return NULL_STRING if self.is_string else NULL_SCALAR

    @property
    def value_var(self) -> str:
        """The variable holding the attr's value in the wrapper (and the host value in the example)."""
        return f"{self.attr.field}Value"

    @property
    def doc_type(self) -> str:
        if self.is_pointer:
            return f"aclScalar ({SCALAR_ACL[self.attr.kind][1].removeprefix('ACL_')}, read with "\
                   f"{SCALAR_METHODS[self.attr.kind]})"
        return self.c_type

    @property
    def doc_default(self) -> str:
        """How the docs say what the caller gets without a value of their own."""
        default = self.attr.default if self.attr.kind in ("bool", "string") else self.attr.python_default  # false
        if self.values is not None:
            return f"sets attr {self.attr.name}; required (the def default is {default}), {self.values.docs_text}"
        if self.optional:
            text = f"sets attr {self.attr.name}; nullptr gives its def default {default}"
        else:
            text = f"sets attr {self.attr.name}; required (the def default is {default})"
        if self.axis_of:  # the consistency tier reads this phrase (check/aclnn_rules.py)
            text += (f"; {AXIS_RULE.format(x=self.axis_of)}; {self.axis_of}'s length along it must be even")
        return f"{text}; {self.rule.docs_text}" if self.rule else text

    @property
    def default_literal(self) -> str:
        return self.literal(self.attr.value)

    @property
    def read(self) -> str:
        """The API value as the rule compares it: what the aclScalar reads as, or the by-value parameter."""
        return f"{self.name}->{SCALAR_METHODS[self.attr.kind]}()" if self.is_pointer else self.name

    def below(self, rule: ScalarRule) -> AttrValue:
        """A value the rule's comparison sees below the bound (the UT's "below min" case): min - 1, or the next
        value below min where min - 1 rounds back to it (float32 from 2^24 on: -1e10 - 1 is -1e10)."""
        if self.attr.kind == "int":
            return int(rule.minimum) - 1
        if self.kind == "double":  # compared as double
            return rule.minimum - 1 if rule.minimum - 1 < rule.minimum else math.nextafter(rule.minimum, -math.inf)
        bound = np.float32(rule.minimum)
        if np.float32(rule.minimum - 1) < bound:
            return rule.minimum - 1
        return float(np.nextafter(bound, np.float32(-np.inf)))

    def bound(self, rule: ScalarRule) -> str:
        """The rule's minimum as a C++ literal of the parameter's value type."""
        return rule.literal(single=self.kind != "double")

    @property
    def value_checks(self) -> tuple[str, ...]:
        """CheckScalarValue's lines for an error rule or a string's values (none for a clamp or no rule)."""
        if self.values is not None:
            return self.values.check_lines(self.name)
        if self.rule is None or self.rule.clamp:
            return ()
        guard = f"{self.name} != nullptr" if self.optional else ""
        return self.rule.check_lines(self.name, self.read, self.bound(self.rule), self.attr.kind, guard)

    def literal(self, value: AttrValue) -> str:
        """The value as this parameter's argument in the UT: a ScalarDesc, or a C++ literal."""
        text = c_literal(self.attr.kind, value)
        if self.kind == "double":
            text = repr(float(value))
        elif self.attr.kind == "int":
            text = f"static_cast<int64_t>({text})"
        return f"ScalarDesc({text})" if self.is_pointer else text

    @property
    def example_lines(self) -> tuple[str, ...]:
        """The example's declaration of the argument, at the def default (a string in a char array)."""
        if self.is_string:
            return (f"char {self.name}[] = {self.attr.default};",)
        if not self.is_pointer:
            return (f"{self.c_type} {self.name} = {self.literal(self.attr.value)};",)
        host, acl = SCALAR_ACL[self.attr.kind]
        return (f"{host} {self.value_var} = {self.attr.default};",
                f"aclScalar* {self.name} = aclCreateScalar(&{self.value_var}, {acl});",
                f'CHECK_RET({self.name} != nullptr, LOG_PRINT("aclCreateScalar {self.name} failed.\\n"); return -1);')


@dataclass(frozen=True)
class AclnnFlagPlan:
    """A bool API parameter that sets no attr, only switching rules on (upstream aclnnLeakyReluBackward's
    selfIsResult); callers pass false unless they mean the rule, so the example and the UT do."""

    name: str
    doc: SpecText
    switches: tuple[str, ...]  # what each rule it switches on does, for the docs
    is_pointer = False
    optional = False
    c_type = "bool"
    doc_type = "bool"
    rule = None

    is_string = False

    @property
    def declaration(self) -> str:
        return f"bool {self.name}"

    @property
    def check_declaration(self) -> str:
        return self.declaration

    @property
    def doc_default(self) -> str:
        return f"sets no attr; when true, {'; '.join(self.switches)}"

    def literal(self, value: AttrValue) -> str:
        return "true" if value else "false"

    @property
    def default_literal(self) -> str:
        return "false"

    @property
    def value_checks(self) -> tuple[str, ...]:
        return ()

    @property
    def example_lines(self) -> tuple[str, ...]:
        return (f"bool {self.name} = false;",)


AclnnParam = AclnnScalarPlan | AclnnFlagPlan


@dataclass(frozen=True)
class AclnnAttrs:
    """What the wrapper and the l0 op print for the attrs."""

    scalars: tuple[AclnnParam, ...]  # API parameters, in API order
    conversions: tuple[str, ...]  # wrapper statements before the l0 call
    l0_args: tuple[str, ...]  # the l0 call's attr arguments, in def attr order
    check_values: tuple[str, ...]  # per scalar, the UT argument at the non-default setting

    @property
    def null_checked(self) -> tuple[AclnnScalarPlan, ...]:
        """The required aclScalar parameters and the strings: CheckNotNull refuses their nullptr."""
        return tuple(s for s in self.scalars
                     if isinstance(s, AclnnScalarPlan) and (s.is_string or (s.is_pointer and not s.optional)))

    @property
    def strings(self) -> tuple[AclnnScalarPlan, ...]:
        """The char* parameters, each refused when null or none of its attr's values."""
        return tuple(s for s in self.scalars if isinstance(s, AclnnScalarPlan) and s.is_string)

    @property
    def ut_scalar_desc(self) -> bool:
        """The op_api UT includes scalar_desc.h: some parameter is no string (a char array needs no ScalarDesc)."""
        return any(not s.is_string for s in self.scalars)

    @property
    def system_includes(self) -> tuple[str, ...]:
        """Standard headers the checks use: <cstring> for a string's strcmp."""
        return ("cstring",) if self.strings else ()

    @property
    def pointers(self) -> tuple[AclnnScalarPlan, ...]:
        """Every aclScalar parameter: CheckScalarDtype reads each one's dtype."""
        return tuple(s for s in self.scalars if isinstance(s, AclnnScalarPlan) and s.is_pointer)

    @property
    def value_checks(self) -> tuple[str, ...]:
        """CheckScalarValue's body: the refusals of the error rules."""
        return tuple(line for s in self.scalars for line in s.value_checks)

    @property
    def value_checked(self) -> tuple[AclnnParam, ...]:
        """What CheckScalarValue reads: the scalars with an error rule and the flags switching one on."""
        ruled = [s for s in self.scalars if s.value_checks]
        flags = {s.rule.when for s in ruled if s.rule is not None}
        return tuple(s for s in self.scalars if s in ruled or s.name in flags)

    @property
    def value_params_text(self) -> str:
        return ", ".join(s.check_declaration for s in self.value_checked)

    @property
    def value_names_text(self) -> str:
        return ", ".join(s.name for s in self.value_checked)

    @property
    def checked(self) -> tuple[AclnnParam, ...]:
        """What CheckParams takes besides the tensors: every aclScalar and what CheckScalarValue reads."""
        return tuple(s for s in self.scalars if s.is_pointer or s in self.value_checked)

    @property
    def refuses_below(self) -> bool:
        """Some scalar below its bound is refused."""
        return any(s.rule is not None and not s.rule.clamp for s in self.scalars)

    @property
    def pointer_params_text(self) -> str:
        return ", ".join(s.declaration for s in self.pointers)

    @property
    def pointer_names_text(self) -> str:
        return ", ".join(s.name for s in self.pointers)

    @property
    def dtype_checks(self) -> tuple[str, ...]:
        """Per aclScalar, refuse a dtype that does not cast to the attr's (a nullptr optional one is the default)."""
        lines: list[str] = []
        for s in self.pointers:
            ge, shown = SCALAR_GE[s.attr.kind]
            guard = f"{s.name} != nullptr && " if s.optional else ""
            lines += [f"if ({guard}!CanCast({s.name}->GetDataType(), DataType::{ge})) {{",
                      f'    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "{s.name} dtype %s can not cast to {shown}.", '
                      f"ToString({s.name}->GetDataType()).GetString());",
                      "    return false;", "}"]
        return tuple(lines)

    @property
    def null_checks(self) -> tuple[str, ...]:
        lines: list[str] = []
        for s in self.null_checked:
            lines += s.values.null_lines(s.name) if s.values else [f"OP_CHECK_NULL({s.name}, return false);"]
        return tuple(lines)

    @property
    def l0_args_text(self) -> str:
        return "".join(f", {a}" for a in self.l0_args)

    @property
    def example_lines(self) -> tuple[str, ...]:
        return tuple(line for s in self.scalars for line in s.example_lines)

    @property
    def example_destroys(self) -> tuple[str, ...]:
        return tuple(f"aclDestroyScalar({s.name});" for s in self.pointers)


def aclnn_attrs(spec: OpSpec, attrs: tuple[AttrPlan, ...]) -> AclnnAttrs:
    assert spec.aclnn is not None
    by_name = {a.name: a for a in attrs}
    specs = {a.name: a for a in spec.attrs}
    plans = {s.name: _scalar(s, by_name[s.attr], specs[s.attr].doc, specs[s.attr].values)
             for s in spec.aclnn.scalars if s.attr is not None}
    scalars = tuple(plans.get(s.name) or _flag(s, tuple(plans.values())) for s in spec.aclnn.scalars)
    setting = attr_settings(spec)[-1]
    by_attr = {s.attr.name: s for s in plans.values()}
    conversions, args = [], []
    for attr in attrs:
        scalar = by_attr.get(attr.name)
        value_type = L0_TYPES[attr.kind]
        if scalar is None:
            conversions.append(f"{value_type} {attr.field}Value = {attr.default};")
            args.append(f"{attr.field}Value")
            continue
        if scalar.is_pointer:
            read = f"{scalar.name}->{SCALAR_METHODS[attr.kind]}()"
            if scalar.optional:
                read = f"{scalar.name} == nullptr ? {attr.default} : {read}"
        elif scalar.kind == "double":
            read = f"static_cast<{value_type}>({scalar.name})"
        elif scalar.rule is not None and scalar.rule.clamp:
            read = scalar.name
        else:
            args.append(scalar.name)
            continue
        conversions.append(f"{value_type} {scalar.value_var} = {read};")
        if scalar.rule is not None and scalar.rule.clamp:
            conversions += scalar.rule.clamp_lines(scalar.value_var, scalar.rule.literal(single=True))
        args.append(scalar.value_var)
    return AclnnAttrs(
        scalars=scalars,
        conversions=tuple(conversions), l0_args=tuple(args),
        check_values=tuple(s.literal(setting[s.attr.name]) if isinstance(s, AclnnScalarPlan) else s.default_literal
                           for s in scalars),
    )


def _scalar(scalar: AclnnScalar, attr: AttrPlan, doc: str, values: tuple[str, ...]) -> AclnnScalarPlan:
    rule = None
    if scalar.min is not None:
        minimum = int(scalar.min) if attr.kind == "int" else float(scalar.min)
        rule = ScalarRule(minimum, scalar.on_violation == "clamp", scalar.when or "")
    return AclnnScalarPlan(scalar.name, attr, scalar.type, scalar.optional, PARAM_TYPES[scalar.type],
                           SpecText(scalar.doc or doc), rule, ValuesRule(values) if scalar.type == "char*" else None)


def _flag(scalar: AclnnScalar, plans: tuple[AclnnScalarPlan, ...]) -> AclnnFlagPlan:
    switches = tuple(s.rule.flag_text(s.name) for s in plans if s.rule is not None and s.rule.when == scalar.name)
    return AclnnFlagPlan(scalar.name, SpecText(scalar.doc), switches)
