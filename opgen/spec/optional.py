"""Optional inputs the recipe reads: each needs `compute.absent` steps, the value used when the input is absent.

The kernel then has two paths, as upstream MishGrad (its tiling asks `GetOptionalInputDesc` and picks a DAG);
only arch35 DAG kernels take that path, and one optional input per op (two paths, not a power set).
"""

from __future__ import annotations

from collections import Counter

from .issues import SpecIssue
from .models import OpSpec
from .recipe import Step


def optional_issues(spec: OpSpec) -> list[SpecIssue]:
    read = {a for steps in spec.compute.variants.values() for s in steps for a in s.tensor_args}
    optional = [t.name for t in spec.inputs if t.param_type == "optional"]
    issues = []
    for i, t in enumerate(spec.inputs):
        if t.name in optional and t.name in read and t.name not in spec.compute.absent:
            issues.append(SpecIssue(("inputs", i, "param_type"), f"the recipe reads optional input {t.name!r}, "
                                    f"which may be absent: give compute.absent.{t.name} the steps that compute "
                                    "its value then (the last one assigning it), or make it required"))
    for name, steps in spec.compute.absent.items():
        loc = ("compute", "absent", name)
        if name not in optional:
            issues.append(SpecIssue(loc, f"{name!r} is not an optional input; only optional inputs may be absent"))
            continue
        if name not in read:
            issues.append(SpecIssue(loc, f"no recipe step reads {name!r}; drop these steps"))
        issues += _steps_issues(spec, name, steps)
    absent = [n for n in spec.compute.absent if n in optional and n in read]
    if len(absent) > 1:
        issues.append(SpecIssue(("compute", "absent"), f"{', '.join(absent)}: one optional input per op may be "
                                "absent (the kernel has a path with it and one without)"))
    if spec.infershape.input in optional:
        issues.append(SpecIssue(("infershape", "input"), f"{spec.infershape.input!r} is optional and may be absent; "
                                "take the output shape from a required input"))
    if absent and any(p.kernel != "arch35_dag" for p in spec.platforms):
        issues.append(SpecIssue(("compute", "absent"), "an absent optional input needs arch35_dag kernels on "
                                "every platform; classic kernels have no absent path"))
    return issues


def _steps_issues(spec: OpSpec, name: str, steps: tuple[Step, ...]) -> list[SpecIssue]:
    defined = {t.name for t in spec.inputs if t.name != name}
    uses: Counter[str] = Counter()
    issues = []
    for j, step in enumerate(steps):
        loc = ("compute", "absent", name, j)
        for arg in step.tensor_args:
            if arg not in defined:
                issues.append(SpecIssue(loc, f"{step}: {arg!r} is not a present input or an earlier step's value"))
            uses[arg] += 1
        if step.out in defined or (step.out == name and j != len(steps) - 1):
            issues.append(SpecIssue(loc, f"{step}: {step.out!r} is already defined; give each value a new name"))
        defined.add(step.out)
    if not steps or steps[-1].out != name:
        issues.append(SpecIssue(("compute", "absent", name), f"the last step must assign {name!r}"))
    for j, step in enumerate(steps[:-1]):
        if uses[step.out] == 0:
            issues.append(SpecIssue(("compute", "absent", name, j), f"{step}: never used"))
    return issues
