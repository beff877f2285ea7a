"""Attrs in the math: which names a recipe step may read as numbers, and the rules string attrs follow (each
value of a string attr picks the compute variant of its name: spec/choice.py)."""

from __future__ import annotations

from typing import Any

from .choice import choice_attr, choice_options
from .issues import SpecIssue
from .models import AttrSpec, OpSpec
from .recipe import OPS, AttrRef


def attr_types(data: Any) -> dict[str, str]:
    """attr name -> type from the raw spec data, so that recipe steps parse names of attrs as attrs; entries
    malformed in any way are left to the model's own messages."""
    attrs = data.get("attrs") if isinstance(data, dict) else None
    if not isinstance(attrs, list):
        return {}
    return {a["name"]: a["type"] for a in attrs
            if isinstance(a, dict) and isinstance(a.get("name"), str) and isinstance(a.get("type"), str)}


def attr_issues(spec: OpSpec) -> list[SpecIssue]:
    issues = []
    variants = set(spec.compute.variants)
    scalar_attrs = {x.attr for x in spec.aclnn.scalars} if spec.aclnn else set()
    for i, attr in enumerate(spec.attrs):
        loc = ("attrs", i)
        if attr.proto_only:
            issues += _proto_only_issues(attr, loc, attr.name in recipe_attrs(spec), attr.name in scalar_attrs)
            continue
        issues += _min_issues(spec, attr, loc)
        if attr.variants and attr.type != "bool":
            issues.append(SpecIssue((*loc, "variants"), f"only bool attrs map values to variants; {attr.name} is a "
                                    f"{attr.type}" + (" (a string attr's values pick the variants of their names)"
                                                      if attr.type == "string" else "")))
        if attr.type == "bool" and attr.variants:
            issues += _bool_choice_issues(spec, attr, loc, variants)
            continue
        if attr.type != "string":
            if attr.values:
                issues.append(SpecIssue((*loc, "values"), f"only string attrs list values; {attr.name} is a "
                                        f"{attr.type}"))
            if attr.check_value is not None and attr.check_value == attr.default:
                issues.append(SpecIssue((*loc, "check_value"), f"{attr.check_value!r} is the default; the check "
                                        "runs the default anyway, give another value"))
            continue
        if not attr.values:
            issues.append(SpecIssue((*loc, "values"), f"string attr {attr.name} needs its accepted values, e.g. "
                                    "[none, tanh]"))
            continue
        if attr.check_value is not None:
            issues.append(SpecIssue((*loc, "check_value"), "a string attr is checked with every value; remove it"))
        for field in ("default", "proto_default"):
            value = getattr(attr, field)
            if value is not None and value not in attr.values:
                issues.append(SpecIssue((*loc, field), f"{value!r} is not one of values {list(attr.values)}"))
        missing = [v for v in attr.values if v not in variants]
        if missing:
            issues.append(SpecIssue((*loc, "values"), f"no compute variant for {', '.join(map(repr, missing))}; "
                                    "each value of a string attr picks the compute variant of its name"))
        if len({v.upper() for v in attr.values}) < len(attr.values):
            issues.append(SpecIssue((*loc, "values"), "list each value once, and not twice in different case "
                                    "(each names a TPL_<ATTR>_<VALUE> macro)"))
        issues += _choice_issues(spec, attr)
    if recipe_attrs(spec) and spec.infershape.rule == "broadcast" and spec.compute.dtype != "float32":
        issues.append(SpecIssue(("compute", "dtype"), f"the recipe reads attrs ({', '.join(recipe_attrs(spec))}) "
                                "in a broadcasting kernel: the tiling hands them to BroadcastSch as float32 scalars "
                                "(SetScalar<float>, as upstream LeakyReluGrad); use compute dtype float32"))
    outs = {s.out for steps in spec.compute.variants.values() for s in steps}
    issues += [SpecIssue(("attrs", i, "name"), f"a recipe step also names a value {a.name!r}; rename the value")
               for i, a in enumerate(spec.attrs) if a.name in outs]
    if sum(a.type == "string" or bool(a.variants) for a in spec.attrs) > 1:
        issues.append(SpecIssue(("attrs",), "at most one attr can pick the compute variant (one string attr, or "
                                "one bool attr with variants)"))
    return issues


def _min_issues(spec: OpSpec, attr: AttrSpec, loc: tuple[str | int, ...]) -> list[SpecIssue]:
    """A tiling bound needs a number, and its condition is the bool attr choosing the math (the tiling reads it)."""
    if attr.min is not None and attr.type not in ("float", "int"):
        return [SpecIssue((*loc, "min"), f"only float and int attrs take a min; {attr.name} is a {attr.type}")]
    if attr.min_when is None:
        return []
    if attr.min is None:
        return [SpecIssue((*loc, "min_when"), "says when min applies, but there is no min; add it or remove min_when")]
    choice = choice_attr(spec)
    if choice is None or choice.type != "bool" or choice.name != attr.min_when:
        return [SpecIssue((*loc, "min_when"), f"{attr.min_when!r} is not the bool attr choosing the math (one with "
                          "variants), the only one the tiling reads before the others; name it, or drop min_when")]
    return []


def _proto_only_issues(attr: AttrSpec, loc: tuple[str | int, ...], read: bool, passed: bool) -> list[SpecIssue]:
    """A proto-only attr reaches nothing the def feeds: no recipe step, aclnn parameter or variant reads it."""
    users = [what for what, uses in (("a recipe step reads it", read), ("an aclnn scalar sets it", passed),
                                     ("it picks the compute variant", attr.type == "string" or bool(attr.variants)),
                                     ("it has a check_value", attr.check_value is not None)) if uses]
    if not users:
        return []
    return [SpecIssue((*loc, "proto_only"), f"{attr.name} is registered in the proto only, but "
                      f"{' and '.join(users)}; register it in the def too (drop proto_only)")]


def _bool_choice_issues(spec: OpSpec, attr: AttrSpec, loc: tuple[str | int, ...],
                        variants: set[str]) -> list[SpecIssue]:
    """A bool attr choosing the math names a variant for each value, two different ones."""
    issues = []
    if set(attr.variants) != {False, True}:
        issues.append(SpecIssue((*loc, "variants"), f"name the variant of each value: {{false: <variant>, true: "
                                f"<variant>}}; {attr.name} maps only {'true' if True in attr.variants else 'false'}"))
    elif attr.variants[False] == attr.variants[True]:
        issues.append(SpecIssue((*loc, "variants"), f"both values pick {attr.variants[True]!r}: then {attr.name} "
                                "does not choose the math; drop variants"))
    missing = [v for v in dict.fromkeys(attr.variants.values()) if v not in variants]
    if missing:
        issues.append(SpecIssue((*loc, "variants"), f"no compute variant {', '.join(map(repr, missing))}"))
    if attr.check_value is not None:
        issues.append(SpecIssue((*loc, "check_value"), f"{attr.name} chooses the math: the check runs both values; "
                                "remove check_value"))
    return issues + _choice_issues(spec, attr)


def _choice_issues(spec: OpSpec, attr: AttrSpec) -> list[SpecIssue]:
    """Where an attr picks the variant, the platforms do not, and only arch35 DAG kernels branch on it."""
    picked = [v for _, v in choice_options(attr)]
    issues = [SpecIssue(("compute", "variants", name), f"{name!r} is picked by no value of {attr.name} "
                        f"({_shown(attr)}), whose values pick the variant; rename or remove it")
              for name in spec.compute.variants if name not in picked]
    for i, p in enumerate(spec.platforms):
        if p.compute_variant != "default":
            issues.append(SpecIssue(("platforms", i, "compute_variant"), f"{attr.name} picks the variant by its "
                                    "value on every platform; leave compute_variant out"))
        if p.kernel != "arch35_dag":
            issues.append(SpecIssue(("platforms", i, "kernel"), f"{attr.type} attr {attr.name} chooses the math, which "
                                    "is built for arch35_dag kernels (one DAG per value, a TPL argument the tiling "
                                    f"sets); {p.kernel} kernels cannot branch on it yet"))
    if spec.compute.absent:
        issues.append(SpecIssue(("compute", "absent"), f"an absent optional input and {attr.type} attr {attr.name} "
                                "choosing the math cannot be combined yet (one DAG per value and path)"))
    return issues


def _shown(attr: AttrSpec) -> str:
    return ", ".join(f"{'true' if v is True else 'false' if v is False else v}" for v, _ in choice_options(attr))


def recipe_attrs(spec: OpSpec) -> tuple[str, ...]:
    """The attrs some recipe step reads as a number, in attr order (an axis is no number: its steps take it)."""
    read = {a.name for steps in spec.compute.variants.values() for s in steps for a in s.args
            if isinstance(a, AttrRef) and not OPS[s.op].along}
    return tuple(a.name for a in spec.attrs if a.name in read)
