"""Rules for dtype columns that differ between tensors (mixed precision, upstream SiluGrad's fp16 inputs with an
fp32 output): what the tiling can dispatch on and the kernel can compute."""

from __future__ import annotations

from .dtypes import MASK_DTYPES
from .issues import SpecIssue
from .models import OpSpec


def dispatch_issues(spec: OpSpec) -> list[SpecIssue]:
    count = spec.combination_count
    key = spec.outputs[0].dtype_column(count)
    roles = [("inputs", i, t) for i, t in enumerate(spec.inputs)] + [
        ("outputs", i, t) for i, t in enumerate(spec.outputs)
    ]
    mixed = [(role, i) for role, i, t in roles if t.dtype_column(count) != key and len(set(t.dtype_column(count))) > 1]
    issues = []
    if any(p.kernel != "arch35_dag" for p in spec.platforms) and len(set(key)) != len(key):
        issues.append(SpecIssue(("outputs", 0, "dtypes"), "the classic tiling dispatches on the first output's "
                                "dtype, so each combination needs a different one (mixed-precision columns "
                                "need kernel: arch35_dag)"))
    if not any(p.kernel == "arch35_dag" for p in spec.platforms):
        return issues
    if len({p.compute_variant for p in spec.platforms if p.kernel == "arch35_dag"}) > 1:
        issues.append(SpecIssue(("compute", "variants"), "an arch35 DAG kernel has one compute variant: give "
                                "every arch35_dag platform the same one"))
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


def aclnn_issues(spec: OpSpec) -> list[SpecIssue]:
    """An aclnn wrapper without promotion takes inputs of different dtypes only for one output dtype (upstream
    aclnnSiluBackward: float32), and inputs of one dtype give an output of that dtype."""
    if spec.aclnn is None or spec.aclnn.promotion:
        return []
    count = spec.combination_count
    data = [t.dtype_column(count) for t in spec.inputs if not set(t.dtype_column(count)) <= MASK_DTYPES]
    out = spec.outputs[0].dtype_column(count)
    if not data:
        return []
    mixed = {out[k] for k in range(count) if len({c[k] for c in data}) > 1}
    same_off = [k for k in range(count) if len({c[k] for c in data}) == 1 and out[k] != data[0][k]]
    if not mixed:
        return []
    if len(mixed) > 1 or same_off:
        return [SpecIssue(("aclnn",), "with mixed-precision columns the aclnn wrapper takes inputs of different "
                          "dtypes for one output dtype, and inputs of one dtype for an output of that dtype; "
                          f"the columns give {', '.join(sorted(mixed))} for mixed inputs; set aclnn.promotion "
                          "or change the columns")]
    return []
