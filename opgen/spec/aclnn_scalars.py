"""Rules for the aclnn API's scalar parameters (`aclnn.scalars`): each sets one attr, in a C++ type that holds it
(a string attr as a `char*`, as upstream aclnnGeluBackwardV2's approximate), or is a bool flag a rule reads; a rule
(`min`) bounds a numeric attr its default obeys."""

from __future__ import annotations

import numpy as np

from ..plan.registry.reserved import lower_camel
from .bounds import FLOAT_MAX, INT64
from .issues import SpecIssue
from .models import OpSpec

# the attr types each parameter type carries (aclScalar converts with ToFloat / ToInt64 / ToBool; a char* is handed
# to the l0 op as it is, once the wrapper found it among the attr's values)
CARRIES = {"aclScalar": ("float", "int", "bool"), "double": ("float",), "float": ("float",), "int64_t": ("int",),
           "bool": ("bool",), "char*": ("string",)}


def aclnn_scalar_issues(spec: OpSpec) -> list[SpecIssue]:
    if spec.aclnn is None:
        return []
    attrs = {a.name: a for a in spec.attrs}
    tensor_params = {p.name for p in spec.aclnn.inputs + spec.aclnn.outputs}
    first_setter: dict[str, int] = {}
    issues = []
    for j, scalar in enumerate(spec.aclnn.scalars):
        loc = ("aclnn", "scalars", j)
        issues += _rule_issues(spec, j)
        if scalar.optional and scalar.type == "char*":
            issues.append(SpecIssue((*loc, "optional"), "a char* is required: the wrapper refuses nullptr "
                                    "(ACLNN_ERR_PARAM_NULLPTR); only an aclScalar parameter is optional"))
        elif scalar.optional and scalar.type != "aclScalar":
            issues.append(SpecIssue((*loc, "optional"), f"a {scalar.type} cannot be nullptr; only an aclScalar "
                                    "parameter is optional"))
        if scalar.attr is None:
            issues += _flag_issues(spec, j)
            continue
        attr = attrs.get(scalar.attr)
        if attr is None:
            known = ", ".join(attrs) or "none"
            issues.append(SpecIssue((*loc, "attr"), f"{scalar.attr!r} is not an attr of the op (attrs: {known})"))
            continue
        if attr.type not in CARRIES[scalar.type]:
            fits = ", ".join(t for t, kinds in CARRIES.items() if attr.type in kinds)
            issues.append(SpecIssue((*loc, "type"), f"type {scalar.type} cannot carry the {attr.type} attr "
                                    f"{attr.name}; use {fits}"))
        first = first_setter.setdefault(scalar.attr, j)
        if first != j:
            issues.append(SpecIssue((*loc, "attr"), f"attr {scalar.attr} is already set by "
                                    f"aclnn.scalars[{first}] ({spec.aclnn.scalars[first].name}); keep one"))
        issues += _name_issues(spec, j, tensor_params)
    inputs = {t.name for t in spec.inputs}
    issues += [SpecIssue(("attrs", i, "name"), f"the l0 op takes attr {a.name} as `{lower_camel(a.name)}`, the "
                         "name of an input; rename one") for i, a in enumerate(spec.attrs)
               if lower_camel(a.name) in inputs]
    return issues


def _name_issues(spec: OpSpec, j: int, tensor_params: set[str]) -> list[SpecIssue]:
    assert spec.aclnn is not None
    scalar, loc = spec.aclnn.scalars[j], ("aclnn", "scalars", j, "name")
    named = next(k for k, other in enumerate(spec.aclnn.scalars) if other.name == scalar.name)
    issues = []
    if named != j:
        issues.append(SpecIssue(loc, f"API parameter {scalar.name!r} is already aclnn.scalars[{named}]; rename one"))
    if scalar.name in tensor_params:
        issues.append(SpecIssue(loc, f"API parameter {scalar.name!r} is also a tensor parameter; rename one"))
    return issues


def _flag_issues(spec: OpSpec, j: int) -> list[SpecIssue]:
    """A parameter without attr is a bool some rule's `when` reads: anything else would be a dead parameter."""
    assert spec.aclnn is not None
    scalar, loc = spec.aclnn.scalars[j], ("aclnn", "scalars", j)
    issues = _name_issues(spec, j, {p.name for p in spec.aclnn.inputs + spec.aclnn.outputs})
    if scalar.type != "bool":
        return [*issues, SpecIssue((*loc, "type"), f"{scalar.name} sets no attr, so it is a flag a rule reads "
                                   "(`when`): give it type bool, or name the attr it sets")]
    if not any(other.when == scalar.name for other in spec.aclnn.scalars):
        issues.append(SpecIssue((*loc, "name"), f"{scalar.name} sets no attr and no rule reads it; give a scalar "
                                f"`when: {scalar.name}` with its min, or name the attr it sets"))
    return issues


def _rule_issues(spec: OpSpec, j: int) -> list[SpecIssue]:
    """`min` bounds a numeric attr the def default and the UT's non-default value obey; `when` names a bool."""
    assert spec.aclnn is not None
    scalar, loc = spec.aclnn.scalars[j], ("aclnn", "scalars", j)
    if scalar.min is None:
        return [SpecIssue((*loc, field), f"{field} belongs to a rule; give min (the smallest value "
                          f"{scalar.name} takes)") for field in ("on_violation", "when") if getattr(scalar, field)]
    attr = next((a for a in spec.attrs if a.name == scalar.attr), None)
    if scalar.attr is None:
        return [SpecIssue((*loc, "min"), f"{scalar.name} sets no attr; min bounds an attr's value")]
    if attr is None:
        return []  # the attr row says so
    if attr.type not in ("float", "int"):
        return [SpecIssue((*loc, "min"), f"min bounds a float or int attr; {attr.name} is {attr.type}")]
    issues = []
    if attr.type == "int" and not float(scalar.min).is_integer():
        issues.append(SpecIssue((*loc, "min"), f"min {scalar.min:g} is no integer; attr {attr.name} is int"))
    elif attr.type == "int" and not INT64[0] < scalar.min <= INT64[1]:
        issues.append(SpecIssue((*loc, "min"), f"min {scalar.min:g} leaves no int64_t below it for the wrapper to "
                                f"refuse (attr {attr.name} is int); use a min within +-9.2e18"))
    elif attr.type == "float" and not -FLOAT_MAX["float32"] < _as_float32(scalar.min) <= FLOAT_MAX["float32"]:
        issues.append(SpecIssue((*loc, "min"), f"min {scalar.min:g} leaves no finite float32 below it for the "
                                f"wrapper to refuse (attr {attr.name} is float); use a min within +-3.4e38"))
    if float(attr.default) < scalar.min:
        issues.append(SpecIssue((*loc, "min"), f"the def default {attr.default} of attr {attr.name} is below min "
                                f"{scalar.min:g}; the example and the UT pass the default"))
    checked = attr.check_value
    if checked is not None and float(checked) < scalar.min and scalar.on_violation != "clamp" and not scalar.when:
        issues.append(SpecIssue((*loc, "min"), f"attr {attr.name}'s check_value {checked} is below min "
                                f"{scalar.min:g}, which the wrapper refuses; the op_api UT passes it expecting "
                                "success"))
    if scalar.when is not None:
        flags = [s.name for s in spec.aclnn.scalars if s.type == "bool" and s.name != scalar.name]
        if scalar.when not in flags:
            issues.append(SpecIssue((*loc, "when"), f"{scalar.when!r} is no bool parameter of aclnn.scalars "
                                    f"(bool ones: {', '.join(flags) or 'none'})"))
    return issues


def _as_float32(value: float) -> float:
    """The value the wrapper compares with (its `...f` literal): beyond float32's range, an infinity."""
    with np.errstate(over="ignore"):
        return float(np.float32(value))
