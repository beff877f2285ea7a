"""Rules for dtype columns that differ between tensors (mixed precision, upstream SiluGrad's fp16 inputs with an
fp32 output): what the tiling can dispatch on and the kernel can compute."""

from __future__ import annotations

from .issues import SpecIssue
from .models import OpSpec


def dispatch_issues(spec: OpSpec, arch35: bool) -> list[SpecIssue]:
    count = spec.combination_count
    key = spec.outputs[0].dtype_column(count)
    roles = [("inputs", i, t) for i, t in enumerate(spec.inputs)] + [
        ("outputs", i, t) for i, t in enumerate(spec.outputs)
    ]
    mixed = [(role, i) for role, i, t in roles if t.dtype_column(count) != key and len(set(t.dtype_column(count))) > 1]
    issues = []
    if not arch35:
        if len(set(key)) != len(key):
            issues.append(SpecIssue(("outputs", 0, "dtypes"), "the classic tiling dispatches on the first output's "
                                    "dtype, so each combination needs a different one (mixed-precision columns "
                                    "need kernel: arch35_dag)"))
        return issues
    if len(spec.compute.variants) > 1:
        issues.append(SpecIssue(("compute", "variants"), "an arch35 DAG op has one compute variant"))
    if mixed and spec.compute.dtype != "float32":
        issues += [SpecIssue((role, i, "dtypes"), "differs from the first output's dtype column: the DAG casts each "
                             "tensor to one compute dtype, so set compute.dtype: float32") for role, i in mixed]
    same = spec.constraints.same_dtype
    columns = {t.name: t.dtype_column(count) for t in spec.tensors}
    for name in same[1:]:
        if name in columns and same[0] in columns and columns[name] != columns[same[0]]:
            issues.append(SpecIssue(("constraints", "same_dtype"), f"{name} and {same[0]} have different dtypes in "
                                    "some combination; drop the tensors of mixed columns from same_dtype"))
    return issues
