"""What one element costs in UB: the queued tensors times the buffer depth, plus the scratch buffers.

The classic tiling sizes its tile from it; the spec check refuses a recipe whose tile would not fit a SoC's UB.
"""

from __future__ import annotations

from ...spec.choice import platform_variants
from ...spec.models import OpSpec
from ..registry.family_paths import dialect_of
from ..registry.tensors import combinations, tensor_plans
from .classic import classic_kernel
from .classic_tiling import ClassicDtypeCase, classic_dtype_cases
from .lowering import lower


def recipe_reads(spec: OpSpec) -> set[str]:
    """Every value name some recipe step reads."""
    return {a for steps in spec.compute.variants.values() for s in steps for a in s.tensor_args}


def platform_element_bits(spec: OpSpec) -> list[tuple[int, ClassicDtypeCase]]:
    """(platform index, its tiling row of one output dtype) for every platform and output dtype.

    arch35 DAG kernels are costed the same way: atvoss keeps every live value of the DAG in UB too.
    """
    tensors = tensor_plans(spec, recipe_reads(spec))
    combos = combinations(spec, tensors)
    float_compute = spec.compute.dtype == "float32"
    found: list[tuple[int, ClassicDtypeCase]] = []
    for i, platform in enumerate(spec.platforms):
        for variant in platform_variants(spec, platform):
            steps = lower(spec.compute.variants[variant], dialect_of(platform.kernel))
            kernel = classic_kernel(tensors, float_compute, [(0, platform.soc, steps)], "",
                                    spec.compute.native_dtypes)
            found.extend((i, case) for case in classic_dtype_cases(tensors, combos, kernel, spec.tiling.buffer_num))
    return found
