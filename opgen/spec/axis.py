"""Recipes that split or reduce along an axis attr (GLU, SwiGLU, softmax grads): the shape each value has, and
what the rest of the spec must say for it.

A value is whole (the split input's shape, or every tensor's where nothing is split), half (one half of the
split input, as every input that is not split), or one of those reduced (length 1 along the axis, broadcast
back when an elementwise step reads it beside a value that keeps the axis).
"""

from __future__ import annotations

from .issues import SpecIssue
from .models import OpSpec
from .recipe import OPS, AttrRef, Step
from .reference import resolve_reference

WHOLE, HALF = "whole", "half"
REDUCED = " reduced"
NO_REDUCE = "opgen has no kernel yet for a recipe that reduces along an axis"


def along_axis(steps: tuple[Step, ...]) -> bool:
    return any(OPS[s.op].along for s in steps)


def axis_issues(spec: OpSpec) -> list[SpecIssue]:
    variants = {name: steps for name, steps in spec.compute.variants.items() if along_axis(steps)}
    formula_axes = _formula_axes(spec)
    if not variants:
        issues = [SpecIssue(("golden", "reference"), f"the reference works along the axis {name!r}, the recipe "
                            "is elementwise") for name in formula_axes]
        if spec.tests.axis_cases:
            issues.append(SpecIssue(("tests", "axis_cases"), "only an op along an axis has axis cases"))
        issues += [SpecIssue(("platforms", j, "kernel"), "arch35_split runs a recipe that splits an input along an "
                             "axis (first_half, second_half, join_halves); this recipe is elementwise: use arch35_dag")
                   for j, p in enumerate(spec.platforms) if p.kernel == "arch35_split"]
        return issues
    split_steps = any(OPS[s.op].along == "half" for steps in variants.values() for s in steps)
    reduces = [name for name, steps in variants.items() if any(OPS[s.op].along == "reduce" for s in steps)]
    issues = [SpecIssue(("compute", "variants", name), NO_REDUCE) for name in reduces]
    issues += [SpecIssue(("platforms", j, "kernel"), "a recipe splitting an input along an axis runs in the "
                         "arch35_split kernel; write kernel: arch35_split") for j, p in enumerate(spec.platforms)
               if split_steps and p.kernel != "arch35_split"]
    if split_steps:
        issues += _split_kernel_limits(spec)
    attrs = {a.name: a for a in spec.attrs}
    axes = {str(a) for steps in variants.values() for s in steps for a in s.args if isinstance(a, AttrRef)
            and OPS[s.op].along}
    if len(axes) > 1:
        issues.append(SpecIssue(("compute", "variants"), f"one axis attr per op, as upstream's ops take one; the "
                                f"recipe names {', '.join(sorted(axes))}"))
    split = {str(s.args[0]) for steps in variants.values() for s in steps if OPS[s.op].along == "half"}
    for name, steps in variants.items():
        issues += _shapes(spec, name, steps, split)
    issues += _infershape(spec, split)
    issues += _masks(spec)
    issues += [SpecIssue(("golden", "reference"), f"{name!r} names the axis here, the recipe's is "
                         f"{', '.join(sorted(axes))}") for name in formula_axes if name not in axes]
    for axis in sorted(axes & set(attrs)):
        issues += _test_shapes(spec, axis, int(attrs[axis].default), bool(split))
    return issues


def _split_kernel_limits(spec: OpSpec) -> list[SpecIssue]:
    """What the arch35_split kernel does not take yet: it has one loop over one element type and no scalars."""
    issues = []
    if len(spec.compute.variants) > 1:
        issues.append(SpecIssue(("compute", "variants"), "an op split along an axis has one compute variant (the "
                                "arch35_split kernel has one loop)"))
    count = spec.combination_count
    for k in range(count):
        if len({t.dtype_column(count)[k] for t in spec.tensors}) > 1:
            issues.append(SpecIssue(("inputs",), f"dtype combination {k} mixes dtypes; an op split along an axis "
                                    "has one dtype per combination for every tensor (the kernel's T)"))
            break
    scalars = sorted({a.name for steps in spec.compute.variants.values() for s in steps for a in s.args
                      if isinstance(a, AttrRef) and not OPS[s.op].along})
    if scalars:
        issues.append(SpecIssue(("compute", "variants"), f"the recipe reads attr(s) {', '.join(scalars)} as numbers; "
                                "an op split along an axis reads no attr but its axis yet"))
    issues += [SpecIssue(("inputs", j, "param_type"), f"{t.name}: an op split along an axis takes no optional input "
                         "yet") for j, t in enumerate(spec.inputs) if t.param_type == "optional"]
    if len(spec.outputs) > 1:
        issues.append(SpecIssue(("outputs",), "an op split along an axis has one output, the split input's gradient"))
    return issues


def _formula_axes(spec: OpSpec) -> tuple[str, ...]:
    try:
        resolved = resolve_reference(spec)
    except ValueError:  # a formula that does not parse is reported by the reference's own rule
        return ()
    return resolved.formula.axes if resolved else ()


def _shapes(spec: OpSpec, variant: str, steps: tuple[Step, ...], split: set[str]) -> list[SpecIssue]:
    """Walk the steps with each value's shape; every mismatch is named at its step."""
    inputs = {t.name for t in spec.inputs}
    outputs = {t.name for t in spec.outputs}
    shape = {name: (WHOLE if name in split or not split else HALF) for name in inputs}
    issues: list[SpecIssue] = []
    for j, step in enumerate(steps):
        loc = ("compute", "variants", variant, j)
        along = OPS[step.op].along
        args = step.tensor_args
        if along == "half":
            if args[0] not in inputs:
                issues.append(SpecIssue(loc, f"{step}: split an input, not a computed value (the kernel addresses "
                                        "the halves in place)"))
            shape[step.out] = HALF
            continue
        if along == "join":
            if step.out not in outputs:
                issues.append(SpecIssue(loc, f"{step}: join_halves writes an output (the split input's "
                                        "gradient), not a value later steps read"))
            issues += [SpecIssue(loc, f"{step}: {a!r} is {shape[a]}-shaped; join two half-shaped values")
                       for a in args if shape.get(a, HALF) != HALF]
            shape[step.out] = WHOLE
            continue
        if along == "reduce":
            known = shape.get(args[0], WHOLE)
            if known.endswith(REDUCED):
                issues.append(SpecIssue(loc, f"{step}: {args[0]!r} is already reduced along the axis"))
            shape[step.out] = known if known.endswith(REDUCED) else known + REDUCED
            continue
        read = [a for a in args if a in shape]
        if not read:  # a constant (fill): it takes the shape of whatever reads it
            continue
        direct = [a for a in read if a in split]
        if direct:  # one problem: the value is taken as the half the step meant to read
            issues.append(SpecIssue(loc, f"{step}: {direct[0]!r} is split along the axis; read its halves "
                                    f"(first_half({direct[0]}, ...), second_half(...)) instead"))
            shape[step.out] = HALF
            continue
        bases = {shape[a].removesuffix(REDUCED) for a in read}
        if len(bases) > 1:
            issues.append(SpecIssue(loc, f"{step}: mixes whole- and half-shaped values "
                                    f"({', '.join(f'{a}: {shape[a]}' for a in read)})"))
        kept = [shape[a] for a in read if not shape[a].endswith(REDUCED)]
        shape[step.out] = kept[0] if kept else shape[read[0]]
    for name in sorted(outputs):
        if name in shape and shape[name].endswith(REDUCED):
            issues.append(SpecIssue(("compute", "variants", variant), f"output {name!r} is reduced along the axis; "
                                    "an output keeps it: use the sum in an elementwise step, which broadcasts it"))
        elif split and name in shape and shape[name] != WHOLE:
            issues.append(SpecIssue(("compute", "variants", variant), f"output {name!r} is half-shaped; the "
                                    "gradient of a split input is whole: write it with join_halves"))
    return issues


def _infershape(spec: OpSpec, split: set[str]) -> list[SpecIssue]:
    rule = spec.infershape
    if split:
        (source, *more) = sorted(split)
        if more:
            return [SpecIssue(("compute", "variants"), f"one input is split along the axis; the recipe splits "
                              f"{', '.join(sorted(split))}")]
        if rule.rule != "same_as_input" or rule.input != source:
            return [SpecIssue(("infershape",), f"the outputs take the split input's shape: write `rule: "
                              f"same_as_input` with `input: {source}` (upstream's glu_grad infershape copies it)")]
    elif rule.rule != "elementwise":
        return [SpecIssue(("infershape", "rule"), "a reduction keeps the axis, so the output has the inputs' shape: "
                          "write `rule: elementwise`")]
    return []


def _masks(spec: OpSpec) -> list[SpecIssue]:
    return [SpecIssue(("inputs", j, "dtypes"), f"{t.name}: a bit-mask input cannot be split or reduced along an "
                      "axis") for j, t in enumerate(spec.inputs) if "uint1" in t.dtype_column(spec.combination_count)]


def _test_shapes(spec: OpSpec, axis: str, default: int, split: bool) -> list[SpecIssue]:
    """Each test shape holds the axis (from the end when negative), of even length where it splits."""
    cases = [(("tests", "shapes", j), shape, default) for j, shape in enumerate(spec.tests.shapes)]
    cases += [(("tests", "axis_cases", j), case.shape, case.axis) for j, case in enumerate(spec.tests.axis_cases)]
    issues = []
    for loc, shape, value in cases:
        if not -len(shape) <= value < len(shape):
            issues.append(SpecIssue(loc, f"{axis}={value} is out of range for rank {len(shape)}; give a shape of "
                                    f"rank {abs(value) + (value >= 0)} or more"))
        elif split and shape[value] % 2:
            issues.append(SpecIssue(loc, f"length {shape[value]} along {axis}={value} is odd; a split needs an "
                                    "even length"))
    return issues
