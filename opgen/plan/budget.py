"""What one element costs in UB: the queued tensors times the buffer depth, plus the scratch buffers.

The classic tiling sizes its tile from it; the spec check refuses a recipe whose tile would not fit a SoC's UB.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.choice import platform_variants
from ..spec.dtypes import Dtype
from ..spec.models import OpSpec
from .classic import ClassicKernel, classic_kernel
from .families import dialect_of
from .lowering import lower
from .tensors import DtypeCombination, TensorPlan, combinations, tensor_plans


@dataclass(frozen=True)
class ClassicDtypeCase:
    dtype: Dtype  # the first output's dtype of one combination
    bits: int  # UB bits one element takes: queued tensors x buffer_num + scratch buffers


def recipe_reads(spec: OpSpec) -> set[str]:
    """Every value name some recipe step reads."""
    return {a for steps in spec.compute.variants.values() for s in steps for a in s.tensor_args}


def classic_dtype_cases(
    tensors: tuple[TensorPlan, ...], combos: tuple[DtypeCombination, ...], kernel: ClassicKernel, buffer_num: int,
) -> tuple[ClassicDtypeCase, ...]:
    moved = [i for i, t in enumerate(tensors) if t.read_by_kernel]
    cases = []
    for combo in combos:
        value_bits = 32 if kernel.value_type == "float" else combo.key.size_bits
        queued = sum(combo.dtypes[i].size_bits for i in moved)
        in_place = {t.name for t, d in zip(tensors, combo.dtypes, strict=True) if d.name == "float32"}
        cases.append(ClassicDtypeCase(combo.key, buffer_num * queued + kernel.scratch_bits(value_bits, in_place)))
    return tuple(cases)


def platform_element_bits(spec: OpSpec) -> list[tuple[int, ClassicDtypeCase]]:
    """(platform index, bits per element of one dtype combination) for every platform and combination.

    arch35 DAG kernels are costed the same way: atvoss keeps every live value of the DAG in UB too.
    """
    tensors = tensor_plans(spec, recipe_reads(spec))
    combos = combinations(spec, tensors)
    float_compute = spec.compute.dtype == "float32"
    found: list[tuple[int, ClassicDtypeCase]] = []
    for i, platform in enumerate(spec.platforms):
        for variant in platform_variants(spec, platform):
            steps = lower(spec.compute.variants[variant], dialect_of(platform.kernel))
            kernel = classic_kernel(tensors, float_compute, [(0, platform.soc, steps)])
            found.extend((i, case) for case in classic_dtype_cases(tensors, combos, kernel, spec.tiling.buffer_num))
    return found
