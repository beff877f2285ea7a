"""Rules for the aclnn API's attr parameters (`aclnn.scalars`): each sets one attr, in a C++ type that holds it."""

from __future__ import annotations

from ..plan.reserved import lower_camel
from .issues import SpecIssue
from .models import OpSpec

# the attr types each parameter type carries (aclScalar converts with ToFloat / ToInt64 / ToBool)
CARRIES = {"aclScalar": ("float", "int", "bool"), "double": ("float",), "float": ("float",), "int64_t": ("int",),
           "bool": ("bool",)}


def aclnn_scalar_issues(spec: OpSpec) -> list[SpecIssue]:
    if spec.aclnn is None:
        return []
    attrs = {a.name: a for a in spec.attrs}
    tensor_params = {p.name for p in spec.aclnn.inputs + spec.aclnn.outputs}
    first_setter: dict[str, int] = {}
    issues = []
    for j, scalar in enumerate(spec.aclnn.scalars):
        loc = ("aclnn", "scalars", j)
        attr = attrs.get(scalar.attr)
        if attr is None:
            known = ", ".join(attrs) or "none"
            issues.append(SpecIssue((*loc, "attr"), f"{scalar.attr!r} is not an attr of the op (attrs: {known})"))
            continue
        if attr.type == "string":
            issues.append(SpecIssue((*loc, "attr"), f"{attr.name} is a string attr; string aclnn parameters "
                                    "(char*) are not built yet, remove the scalar (the l0 op passes the default)"))
        elif attr.type not in CARRIES[scalar.type]:
            fits = ", ".join(t for t, kinds in CARRIES.items() if attr.type in kinds)
            issues.append(SpecIssue((*loc, "type"), f"type {scalar.type} cannot carry the {attr.type} attr "
                                    f"{attr.name}; use {fits}"))
        first = first_setter.setdefault(scalar.attr, j)
        if first != j:
            issues.append(SpecIssue((*loc, "attr"), f"attr {scalar.attr} is already set by "
                                    f"aclnn.scalars[{first}] ({spec.aclnn.scalars[first].name}); keep one"))
        if scalar.optional and scalar.type != "aclScalar":
            issues.append(SpecIssue((*loc, "optional"), f"a {scalar.type} cannot be nullptr; only an aclScalar "
                                    "parameter is optional"))
        named = next(k for k, other in enumerate(spec.aclnn.scalars) if other.name == scalar.name)
        if named != j:
            issues.append(SpecIssue((*loc, "name"), f"API parameter {scalar.name!r} is already aclnn.scalars[{named}]; "
                                    "rename one"))
        if scalar.name in tensor_params:
            issues.append(SpecIssue((*loc, "name"), f"API parameter {scalar.name!r} is also a tensor parameter; "
                                    "rename one"))
    inputs = {t.name for t in spec.inputs}
    issues += [SpecIssue(("attrs", i, "name"), f"the l0 op takes attr {a.name} as `{lower_camel(a.name)}`, the "
                         "name of an input; rename one") for i, a in enumerate(spec.attrs)
               if lower_camel(a.name) in inputs]
    return issues
