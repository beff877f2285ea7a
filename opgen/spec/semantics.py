"""Cross-field rules of an op spec, each reported with the field it is about."""

from __future__ import annotations

from collections import Counter

from .aclnn_scalars import aclnn_scalar_issues
from .attrs import attr_issues
from .axis import axis_issues
from .bounds import number_issues, ub_issues
from .broadcast import broadcast_issues
from .choice import choice_attr
from .dtypes import DTYPES, MASK_DTYPES, proto_admits
from .issues import SpecIssue
from .mixed_rules import aclnn_issues, dispatch_issues
from .models import OpSpec, TensorSpec
from .naming import name_issues
from .optional import optional_issues
from .recipe import OPS, Step
from .reference import reference_problems
from .soc_columns import soc_column_issues
from .socs import BY_REPEAT_ARCHES, SOCS, TILING_SOC_ALIASES


def check_semantics(spec: OpSpec) -> list[SpecIssue]:
    issues: list[SpecIssue] = []
    for rule in (_names, name_issues, _dtypes, _platforms, _constraints, _infershape, _recipe, _native_dtypes,
                 _aclnn, _golden,
                 _tests, number_issues, aclnn_issues, broadcast_issues, optional_issues, attr_issues,
                 aclnn_scalar_issues, soc_column_issues, axis_issues):
        issues.extend(rule(spec))
    if not issues:  # the UB budget is costed from the plan's buffers: only for an otherwise sound spec
        issues.extend(ub_issues(spec))
    return issues


def _names(spec: OpSpec) -> list[SpecIssue]:
    issues = []
    seen: set[str] = set()
    named: list[tuple[str, tuple[str, ...]]] = [
        ("inputs", tuple(t.name for t in spec.inputs)), ("outputs", tuple(t.name for t in spec.outputs)),
        ("attrs", tuple(a.name for a in spec.attrs)),
    ]
    for role, names in named:
        for i, name in enumerate(names):
            if name in seen:
                issues.append(SpecIssue((role, i, "name"), f"duplicate name {name!r}; names must be unique"))
            seen.add(name)
    return issues


def _dtypes(spec: OpSpec) -> list[SpecIssue]:
    issues = []
    count = spec.combination_count
    roles = [("inputs", i, t) for i, t in enumerate(spec.inputs)] + [
        ("outputs", i, t) for i, t in enumerate(spec.outputs)
    ]
    for role, i, tensor in roles:
        if isinstance(tensor.dtypes, tuple) and len(tensor.dtypes) != count:
            issues.append(SpecIssue((role, i, "dtypes"), f"has {len(tensor.dtypes)} dtypes but other tensors have "
                                    f"{count}; give one per combination, or a single dtype for all"))
        if isinstance(tensor.formats, tuple) and len(tensor.formats) != count:
            issues.append(SpecIssue((role, i, "formats"), f"has {len(tensor.formats)} formats for {count} "
                                    "combinations; give one per combination, or a single format"))
        if tensor.domain is not None and not tensor.domain[0] < tensor.domain[1]:
            issues.append(SpecIssue((role, i, "domain"), "needs [low, high] with low < high"))
        admitted = proto_admits(tensor.proto_dtypes) if tensor.proto_dtypes else None
        missing = [] if admitted is None else sorted(d for d in set(tensor.dtype_column(count))
                                                      if DTYPES[d].ge not in admitted)
        if missing and not tensor.proto_narrower:
            issues.append(SpecIssue((role, i, "proto_dtypes"), f"lacks {', '.join(missing)} that dtypes "
                                    "lists; the proto must admit every supported dtype (or set proto_narrower: true "
                                    "where upstream's proto admits fewer)"))
        if tensor.proto_narrower and not missing:
            issues.append(SpecIssue((role, i, "proto_narrower"), "the proto admits every dtype of dtypes; remove "
                                    "proto_narrower"))
    if spec.proto_symbol and len({_written(t, count) for t in spec.tensors}) > 1:
        issues.append(SpecIssue(("proto_symbol",), "one DATATYPE symbol needs every tensor's proto type equal; give "
                                "them the same proto_dtypes (and dtypes), or drop proto_symbol"))
    if issues:
        return issues
    columns = list(zip(*(t.dtype_column(count) for t in spec.tensors), strict=True))
    for k, n in Counter(columns).items():
        if n > 1:
            issues.append(SpecIssue(("inputs",), f"dtype combination {k} is listed {n} times; list each once"))
    return issues


def _written(tensor: TensorSpec, count: int) -> object:
    return tensor.proto_dtypes or tuple(dict.fromkeys(tensor.dtype_column(count)))


def _platforms(spec: OpSpec) -> list[SpecIssue]:
    issues = []
    if {"arch35_dag", "classic_arch35"} <= {p.kernel for p in spec.platforms}:
        issues.append(SpecIssue(("platforms",), "arch35_dag and classic_arch35 are both kernels of arch35 SoCs "
                                "and share op_kernel/<op>_apt.cpp; pick one for every arch35 platform"))
    socs = Counter(p.soc for p in spec.platforms)
    chosen = choice_attr(spec)
    keys = Counter(p.tiling_key for p in spec.platforms)
    for i, p in enumerate(spec.platforms):
        loc = ("platforms", i)
        if socs[p.soc] > 1:
            issues.append(SpecIssue((*loc, "soc"), f"{p.soc} is listed more than once"))
        if p.kernel != "classic":
            if SOCS[p.soc].arch != "arch35":
                issues.append(SpecIssue((*loc, "kernel"), f"{p.soc} is not an arch35 SoC; use kernel: classic"))
            if p.aicore is None:
                issues.append(SpecIssue((*loc, "aicore"), "arch35 ops register an OpAICoreConfig; add aicore: {}"))
        if SOCS[p.soc].npu_arch in BY_REPEAT_ARCHES and (spec.constraints.broadcast or any(
                DTYPES[d].size_bits == 1 for t in (*spec.inputs, *spec.outputs) for d in t.dtype_column(1))):
            issues.append(SpecIssue((*loc, "soc"), f"{p.soc}'s kernel moves whole 32-byte blocks of elements (its "
                                    "arch has no DataCopyPad): it takes no broadcast and no 1-bit mask tensor; drop "
                                    f"{p.soc} from platforms"))
        if p.op_file is not None and p.kernel == "classic":
            issues.append(SpecIssue((*loc, "op_file"), "a classic kernel is op_kernel/<op>.cpp with no opFile.value; "
                                    "remove op_file"))
        elif any(q.kernel == p.kernel and q.op_file != p.op_file for q in spec.platforms):
            issues.append(SpecIssue((*loc, "op_file"), f"the {p.kernel} platforms share one kernel entry; give them "
                                    "the same op_file"))
        keyed = p.kernel in ("classic", "classic_arch35")  # the others' keys are TPL arguments the tiling computes
        if keyed and p.tiling_key is None:
            issues.append(SpecIssue((*loc, "tiling_key"), "classic kernels select the SoC math by tiling key; "
                                    "add tiling_key: <n>"))
        elif keyed and keys[p.tiling_key] > 1:
            issues.append(SpecIssue((*loc, "tiling_key"), f"tiling key {p.tiling_key} is used twice"))
        twin = next((q for q in spec.platforms if q.soc == TILING_SOC_ALIASES.get(p.soc)), None)
        if twin is not None and p.kernel != "arch35_dag" and twin.compute_variant != p.compute_variant:
            issues.append(SpecIssue((*loc, "compute_variant"), f"the tiling sees {p.soc} as {twin.soc}, so it runs "
                                    f"{twin.soc}'s tiling key: give it compute_variant {twin.compute_variant!r}"))
        if chosen is None and p.compute_variant not in spec.compute.variants:
            issues.append(SpecIssue((*loc, "compute_variant"), f"no compute variant {p.compute_variant!r}; "
                                    f"defined: {', '.join(spec.compute.variants)}"))
    used = {p.compute_variant for p in spec.platforms}
    for name in spec.compute.variants if chosen is None else ():  # else the choice's values use them (attrs.py)
        if name not in used:
            issues.append(SpecIssue(("compute", "variants", name), "no platform uses this variant; remove it"))
    issues.extend(dispatch_issues(spec))
    if len(set(spec.tiling.sch_modes)) != len(spec.tiling.sch_modes) or not spec.tiling.sch_modes:
        issues.append(SpecIssue(("tiling", "sch_modes"), "list each schMode value once, at least one"))
    return issues


def _tensor_names(spec: OpSpec) -> set[str]:
    return {t.name for t in spec.tensors}


def _constraints(spec: OpSpec) -> list[SpecIssue]:
    names = _tensor_names(spec)
    issues = []
    c = spec.constraints
    for field, group in (("same_shape", c.same_shape), ("same_dtype", c.same_dtype), ("broadcast", c.broadcast)):
        for j, name in enumerate(group):
            if name not in names:
                issues.append(SpecIssue(("constraints", field, j), f"no tensor named {name!r}"))
    if c.last_dim_multiple_of and c.last_dim_multiple_of.tensor not in names:
        issues.append(SpecIssue(("constraints", "last_dim_multiple_of", "tensor"), "no such tensor"))
    return issues


def _infershape(spec: OpSpec) -> list[SpecIssue]:
    rule = spec.infershape
    inputs = {t.name for t in spec.inputs}
    if rule.rule == "same_as_input" and rule.input not in inputs:
        return [SpecIssue(("infershape", "input"), f"same_as_input needs input: one of {', '.join(sorted(inputs))}")]
    if rule.rule == "elementwise" and rule.input is not None:
        return [SpecIssue(("infershape", "input"), "elementwise takes no input; remove it")]
    if rule.rule == "broadcast" and rule.input is not None and rule.input not in inputs:
        return [SpecIssue(("infershape", "input"), f"not an input: one of {', '.join(sorted(inputs))} (the input "
                          "whose shape the outputs take on SoCs whose kernel does not broadcast)")]
    if rule.datatype_from is not None and rule.datatype_from not in inputs:
        return [SpecIssue(("infershape", "datatype_from"), f"not an input: one of {', '.join(sorted(inputs))}")]
    return []


def _native_dtypes(spec: OpSpec) -> list[SpecIssue]:
    """compute.native_dtypes: key dtypes of a float32 recipe that a classic kernel computes as they are."""
    native = spec.compute.native_dtypes
    if not native:
        return []
    loc = ("compute", "native_dtypes")
    keys = set(spec.outputs[0].dtype_column(spec.combination_count))
    issues = [SpecIssue(loc, f"{name!r} is no dtype of {spec.outputs[0].name}; name a dtype the op has")
              for name in native if name not in keys]
    if spec.compute.dtype != "float32":
        issues.append(SpecIssue(loc, "computes some dtypes natively where the rest compute in float32: set "
                                "compute.dtype: float32, or drop native_dtypes for compute.dtype: native"))
    dags = [p.soc for p in spec.platforms if p.kernel == "arch35_dag"]
    if dags:
        issues.append(SpecIssue(loc, f"only classic kernels compute some dtypes natively; {', '.join(dags)} use an "
                                "atvoss DAG (its Cast nodes are per op): drop native_dtypes or use kernel: classic"))
    return issues


def _recipe(spec: OpSpec) -> list[SpecIssue]:
    issues = []
    count = spec.combination_count
    masks = {t.name for t in spec.inputs if set(t.dtype_column(count)) <= MASK_DTYPES and
             "uint1" in t.dtype_column(count)}
    for variant, steps in spec.compute.variants.items():
        issues.extend(_variant(spec, variant, steps, masks))
    return issues


def _variant(spec: OpSpec, variant: str, steps: tuple[Step, ...], masks: set[str]) -> list[SpecIssue]:
    inputs = {t.name for t in spec.inputs}
    dtypes = {t.name: t.dtype_column(spec.combination_count)[0] for t in spec.inputs}
    outputs = [t.name for t in spec.outputs]
    defined: set[str] = set(inputs)
    uses: Counter[str] = Counter()
    issues = []
    for j, step in enumerate(steps):
        loc = ("compute", "variants", variant, j)
        for arg in step.tensor_args:
            if arg not in defined:
                issues.append(SpecIssue(loc, f"{step}: {arg!r} is not an input or an earlier step's value"))
            uses[arg] += 1
        for position, arg in enumerate(step.tensor_args):
            if arg in masks and not (step.op == "select" and position == 0):
                issues.append(SpecIssue(loc, f"{step}: mask {arg!r} can only be the first argument of select"))
        mask = step.tensor_args[0] if step.op == "select" else None
        if mask is not None and mask in defined and mask not in masks:
            kind = f"a {dtypes[mask]} input" if mask in dtypes else "a computed value"
            issues.append(SpecIssue(loc, f"{step}: select's mask {mask!r} is {kind}, not a mask; select takes a "
                                    f"uint1 mask input or a comparison (gt ge lt le eq ne), e.g. "
                                    f"`m = gt({mask}, 0.0)` then `select(m, ...)`"))
        if OPS[step.op].gives_mask:
            masks = masks | {step.out}
            if step.out in outputs:
                issues.append(SpecIssue(loc, f"{step}: output {step.out!r} cannot be a mask; select with it"))
        if step.out in defined:
            issues.append(SpecIssue(loc, f"{step}: {step.out!r} is already defined; give each value a new name"))
        defined.add(step.out)
    for name in outputs:
        if not any(s.out == name for s in steps):
            issues.append(SpecIssue(("compute", "variants", variant), f"no step computes output {name!r}"))
    for j, step in enumerate(steps):
        if step.out not in outputs and uses[step.out] == 0:
            issues.append(SpecIssue(("compute", "variants", variant, j), f"{step}: {step.out!r} is never used"))
    if not steps:
        issues.append(SpecIssue(("compute", "variants", variant), "a variant needs at least one step"))
    return issues


def _aclnn(spec: OpSpec) -> list[SpecIssue]:
    a = spec.aclnn
    if a is None:
        return []
    inputs = [t.name for t in spec.inputs]
    outputs = [t.name for t in spec.outputs]
    issues = []
    names = Counter(p.name for p in a.inputs + a.outputs)
    for role, params, allowed in (("inputs", a.inputs, inputs), ("outputs", a.outputs, outputs)):
        for j, p in enumerate(params):
            if p.tensor not in allowed:
                issues.append(SpecIssue(("aclnn", role, j, "tensor"), f"{p.tensor!r} is not an op {role[:-1]}"))
            if names[p.name] > 1:
                issues.append(SpecIssue(("aclnn", role, j, "name"), f"API parameter {p.name!r} is used twice"))
    api_inputs = {p.name for p in a.inputs}
    for name, source in a.unused_inputs.items():
        if name not in inputs:
            issues.append(SpecIssue(("aclnn", "unused_inputs", name), "not an op input"))
        if source is None and name not in {t.name for t in spec.inputs if t.param_type == "optional"}:
            issues.append(SpecIssue(("aclnn", "unused_inputs", name), "only an optional input can be fed nullptr"))
        elif source is not None and source not in api_inputs:
            issues.append(SpecIssue(("aclnn", "unused_inputs", name), f"{source!r} is not an API input"))
    leading = [p.name for p in a.inputs] + [s.name for s in a.scalars]
    if a.order and sorted(a.order) != sorted(leading):
        issues.append(SpecIssue(("aclnn", "order"), f"list each input and scalar parameter once ({', '.join(leading)})"
                                "; the outputs always come last"))
    for j, p in enumerate(a.outputs):
        if p.unused:
            issues.append(SpecIssue(("aclnn", "outputs", j, "unused"), "only an input can be unused"))
    mapped = Counter([p.tensor for p in a.inputs if not p.unused] + list(a.unused_inputs))
    for name in inputs:
        if mapped[name] != 1:
            issues.append(SpecIssue(("aclnn", "inputs"), f"op input {name!r} must be fed exactly once, by an API "
                                    "input or unused_inputs"))
    if sorted(p.tensor for p in a.outputs) != sorted(outputs):
        issues.append(SpecIssue(("aclnn", "outputs"), "map every op output to one API output"))
    return issues


def _golden(spec: OpSpec) -> list[SpecIssue]:
    issues = [SpecIssue(loc, message) for loc, message in reference_problems(spec)]
    needed = set(spec.outputs[0].dtype_column(spec.combination_count))
    missing = sorted(needed - set(spec.golden.tolerances))
    if missing:
        issues.append(SpecIssue(("golden", "tolerances"), f"add a tolerance for {', '.join(missing)}"))
    return issues


def _tests(spec: OpSpec) -> list[SpecIssue]:
    issues = []
    rule = spec.constraints.last_dim_multiple_of
    for j, shape in enumerate(spec.tests.shapes):
        if not shape or len(shape) > spec.constraints.max_rank:
            issues.append(SpecIssue(("tests", "shapes", j), f"rank must be 1..{spec.constraints.max_rank}"))
        elif rule and shape[-1] % rule.multiple:
            issues.append(SpecIssue(("tests", "shapes", j), f"last dim must be a multiple of {rule.multiple}"))
    low, high = spec.tests.value_range
    if not low < high:
        issues.append(SpecIssue(("tests", "value_range"), "needs [low, high] with low < high"))
    return issues
