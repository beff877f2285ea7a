"""The split kernels' (arch35_split) side of the run level: the launches that reach each shape mode, each input at
its own shape, and which mode a host key selects.

Launches: the spec's test shapes at the axis attr's default and its axis cases at theirs (a middle axis, the first),
then, sized from the SoC's UB, a half-row one buffer cannot hold (the big-shape mode, a chunk tail) and enough rows
of short halves to give every core several tiles of several rows (the small-shape mode spread over the cores).
"""

from __future__ import annotations

from ...plan import RenderPlan
from ...plan.kernel.split import BLOCK_BYTES
from ...plan.registry.attrs import AttrValue
from ...plan.registry.tensors import DtypeCombination
from ...spec.models import OpSpec
from .host_tiling import Wanted
from .launch import Shape, Shapes

SHORT_HALF = 33  # elements of a half-row in the several-tiles launch: no whole 32-byte block
CHUNK_TAIL = 37  # elements past one buffer in the big-shape launch: its last chunk is short
TILES_PER_CORE = 3


def split_wanted(spec: OpSpec, plan: RenderPlan, combo: DtypeCombination, cores: int, ub_bytes: int) -> list[Wanted]:
    """Every launch of a split kernel for one dtype combination, with the attr values it runs at."""
    split = plan.split
    assert split is not None
    defaults: dict[str, AttrValue] = {a.name: a.default for a in spec.def_attrs}
    cases = list(split.cases)
    element, buffer = split.element_bytes(combo.index), split.buffer_elements(ub_bytes, combo.index)
    cases.append(((3, 2 * (buffer + CHUNK_TAIL)), -1))
    rows_per_tile = buffer // (-(-SHORT_HALF * element // BLOCK_BYTES) * BLOCK_BYTES // element)
    cases.append((((cores * TILES_PER_CORE) * rows_per_tile + 1, 2 * SHORT_HALF), -1))
    return [(split_shapes(plan, shape, axis), {**defaults, split.axis: axis}) for shape, axis in cases]


def split_shapes(plan: RenderPlan, shape: Shape, axis: int) -> Shapes:
    """The inputs' shapes when the split input has `shape`: every other input has it halved along the axis."""
    assert plan.split is not None
    return Shapes(plan.split.input_shapes(plan.inputs, shape, axis), joined=shape)
