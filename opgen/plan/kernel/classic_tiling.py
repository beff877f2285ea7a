"""The classic tiling's table and formula: what one element costs in UB under each tiling key and output dtype,
and the core split and tile the rendered op_host tiling computes from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...spec.dtypes import Dtype
from ...spec.socs import TILING_SOC_ALIASES
from ..registry.tensors import DtypeCombination, TensorPlan
from .classic import ClassicKernel

TILE_ALIGN = 256  # elements; the classic tiling's smallest tile (keeps every copy 32-byte aligned)
TILING_FIELDS = ("totalNum", "blockFormer", "blockTail", "tileDataNum")  # the tiling data struct's uint64 fields


@dataclass(frozen=True)
class ClassicTiling:
    """What the classic tiling function computes for one shape: the tiling data fields, in struct order, and the
    cores it launches."""

    total_num: int
    block_former: int
    block_tail: int
    tile_data_num: int
    used_cores: int

    @property
    def fields(self) -> tuple[int, ...]:
        """The values of TILING_FIELDS."""
        return (self.total_num, self.block_former, self.block_tail, self.tile_data_num)


def classic_tiling(total: int, bits_per_element: int, core_count: int, ub_bytes: int, scratch_bytes: int
                   ) -> ClassicTiling:
    """The core split and UB tile of the rendered op_host tiling (blueprints/classic/op_host/*_tiling.cpp), from
    the UB the platform reports (GetCoreMemSize) and the UB its row keeps for the basic API scratch. An empty
    tensor gets one core with nothing to copy, as ops-nn's hand-written classic tilings give it (hard_swish_grad_v2
    op_host/arch22 and arch35: one block, success)."""
    tile = (max(ub_bytes - scratch_bytes, 0) * 8 // bits_per_element) // TILE_ALIGN * TILE_ALIGN
    per_core = -(-total // core_count)
    former = -(-per_core // TILE_ALIGN) * TILE_ALIGN
    used = -(-total // former) if total else 1
    return ClassicTiling(total, former, total - (used - 1) * former, tile, used)


@dataclass(frozen=True)
class ClassicDtypeCase:
    """One row of the classic tiling's table: what an element costs under one tiling key and output dtype."""

    soc: str  # the SoC whose tiling key it is
    tiling_key_macro: str  # that key's macro
    dtype: Dtype  # the output dtype (several combinations sharing it: the costliest)
    bits: int  # UB bits one element takes: queued tensors x buffer_num + the key's own buffers
    ub_fixed_bytes: int  # UB not for tiles: the SoC's basic API scratch where the key's Compute() needs it, and the
    # constant blocks


def classic_dtype_cases(
    tensors: tuple[TensorPlan, ...], combos: tuple[DtypeCombination, ...], kernel: ClassicKernel, buffer_num: int,
) -> tuple[ClassicDtypeCase, ...]:
    moved = [i for i, t in enumerate(tensors) if t.read_by_kernel]
    cases: dict[tuple[str, str], ClassicDtypeCase] = {}
    for variant in kernel.variants:
        for combo in combos:
            computed = kernel.computes_in(combo.key)
            queued = sum(combo.dtypes[i].size_bits for i in moved)
            in_place = {t.name for t, d in zip(tensors, combo.dtypes, strict=True) if d.name == computed.name}
            bits = buffer_num * queued + kernel.scratch_bits(variant, computed.size_bits, in_place)
            row = (variant.soc, combo.key.name)
            if row not in cases or cases[row].bits < bits:
                cases[row] = ClassicDtypeCase(variant.soc, kernel.key_macro + variant.soc_enum, combo.key, bits,
                                              variant.ub_fixed_bytes)
    return tuple(cases.values())


def classic_case(cases: tuple[ClassicDtypeCase, ...], soc: str, dtype: str) -> ClassicDtypeCase | None:
    """The row the tiling picks on `soc` for output dtype `dtype` (an aliased SoC takes its tiling SoC's key)."""
    tiling_soc = TILING_SOC_ALIASES.get(soc, soc)
    return next((c for c in cases if c.soc in (soc, tiling_soc) and c.dtype.name == dtype), None)
