"""Broadcast, for a spec with `infershape.rule: broadcast`: the output shape is the broadcast of the inputs
(opbase `InferShape4Broadcast`), and the arch35 DAG kernel broadcasts as upstream softplus_grad and
leaky_relu_grad do: `Vec::CopyInBrc` loads, opbase's `BroadcastBaseTiling`, atvoss `BroadcastSch`.

Expected UT values come from the same rules opbase applies: its `BroadcastDim` for infershape, and for the
tiling the schedule `BroadcastBaseTiling::DoTiling` picks (one-dim advance for collapsible shapes, NDDMA for a
small unaligned broadcast) and the one-dim advance block split when the data is shorter than a cache line
per core (elsewhere the split depends on the DAG's live-buffer count, which atvoss derives at compile time).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from math import prod
from typing import cast

from ...spec.attrs import recipe_attrs
from ...spec.models import OpSpec
from ...spec.socs import SOCS
from ..registry.tensors import DtypeCombination, TensorPlan

# atvoss BRC_TEMP_SCH_MODE_KEY_SEL: every BroadcastSch schedule the kernel is instantiated for
BROADCAST_SCH_MODES = (1, 2, 101, 102, 103, 104, 109, 201, 202, 301, 302, 303, 304, 305)
SCH_MODE_NDDMA_WITHOUT_LOOP_CACHE_BRC = 1  # opbase broadcast_tiling_base.h
SCH_MODE_ONE_DIM = 201
SCH_MODE_ONE_DIM_ADVANCE = 202
MAX_IN_OUT_ARGS_NUMBER = 4  # one-dim advance only for at most this many inputs + outputs
CACHE_LINE_BYTES = 512
DB_LOOP = 2  # a one-dim block of one tile gets two, for double buffering
DEFAULT_TILING_WORKSPACE_SIZE = 16 << 20  # BroadcastBaseTiling::DoTiling's workspace
UNALIGNED_LAST_DIM = 33  # a multiple of no dtype's 32-byte block: the broadcast case stays on NDDMA


@dataclass(frozen=True)
class BroadcastPlan:
    brc_inputs: tuple[str, ...]  # inputs the DAG loads with CopyInBrc
    input_num: int  # inputs InferShape4Broadcast broadcasts (the first input_num)
    sch_modes: tuple[int, ...]
    # the infershape's SoC branch (spec infershape.input): the short SoC versions whose kernel broadcasts, the
    # input whose shape the outputs take elsewhere and a SoC of that branch for its UT; () broadcasts everywhere
    branch_socs: tuple[str, ...] = ()
    copy_input: int = 0
    copy_soc: str = ""


@dataclass(frozen=True)
class BroadcastTilingCase:
    label: str
    shapes: tuple[tuple[int, ...], ...]  # per input
    out_shape: tuple[int, ...]
    sch_mode: int
    block_dim: int  # 0: not computed here (depends on the UB split)
    fields: tuple[tuple[str, int], ...]  # BroadcastOneDimTilingDataAdvance fields computed here


def broadcast_plan(spec: OpSpec, tensors: tuple[TensorPlan, ...]) -> BroadcastPlan | None:
    if spec.infershape.rule != "broadcast":
        return None
    read = [t.name for t in tensors if t.role == "input" and t.read_by_kernel and not t.is_mask]
    named = [n for n in read if n in spec.constraints.broadcast]
    inputs = [t.name for t in tensors if t.role == "input"]
    plan = BroadcastPlan(tuple(named or read), len(inputs), BROADCAST_SCH_MODES)
    if spec.infershape.input is None:
        return plan
    # only the arch35 DAG kernel broadcasts (gen refuses broadcast for the classic families)
    branch = tuple(SOCS[p.soc].short_version for p in spec.platforms if p.kernel == "arch35_dag")
    other = next((p.soc for p in spec.platforms if p.kernel != "arch35_dag"), "ascend910b")
    return replace(plan, branch_socs=branch, copy_input=inputs.index(spec.infershape.input),
                   copy_soc=SOCS[other].short_version)


def broadcast_dims(shapes: Sequence[Sequence[int]]) -> tuple[int, ...] | None:
    """opbase's BroadcastShape: right-aligned dims, 1 stretches, -1 takes the other dim, -2 (unknown rank)
    wins; None where two dims differ and neither is 1 or -1."""
    if any(tuple(s) == (-2,) for s in shapes):
        return (-2,)
    out = list(shapes[0])
    for shape in shapes[1:]:
        if len(shape) > len(out):
            out = [*shape[:len(shape) - len(out)], *out]
        offset = len(out) - len(shape)
        for i, dim in enumerate(shape):
            mine = out[offset + i]
            if mine == dim or dim == 1:
                continue
            if mine == 1 or mine == -1:
                out[offset + i] = dim
            elif dim != -1:
                return None
    return tuple(out)


def broadcast_variants(shape: tuple[int, ...], names: Sequence[str], brc: Sequence[str]
                       ) -> list[tuple[str, tuple[tuple[int, ...], ...]]]:
    """Per broadcasting input: it as one row, it a lower rank, and it with a dim the others cannot stretch to."""
    last = shape[-1]
    rows = max(2, prod(shape[:-1]))
    cases = []
    for name in brc:
        def with_own(own: tuple[int, ...], others: tuple[int, ...], me: str = name) -> tuple[tuple[int, ...], ...]:
            return tuple(own if n == me else others for n in names)
        cases += [(f"{name}_row", with_own((1, last), (rows, last))),
                  (f"{name}_lower_rank", with_own((last,), (rows, last))),
                  (f"{name}_incompatible", with_own((rows, last + 1), (rows, last)))]
    return cases


def one_dim_advance(spec: OpSpec, tensors: tuple[TensorPlan, ...]) -> bool:
    """Whether same-shape inputs take the one-dim advance schedule (202) rather than the plain one-dim one (201):
    BroadcastBaseTiling::DoTiling takes it for a DAG of at most MAX_IN_OUT_ARGS_NUMBER tensors and no Vars."""
    kernel_ios = sum(t.role == "input" and t.read_by_kernel for t in tensors) + sum(t.role == "output" for t in tensors)
    return kernel_ios <= MAX_IN_OUT_ARGS_NUMBER and not recipe_attrs(spec)


def broadcast_tiling_cases(spec: OpSpec, tensors: tuple[TensorPlan, ...], plan: BroadcastPlan,
                           combo: DtypeCombination, core_num: int) -> tuple[BroadcastTilingCase, ...]:
    """The spec's first test shape (same shapes collapse to one dim: the advance schedule unless the DAG has Vars,
    which only the plain one-dim tiling data carries) and, per CopyInBrc input, that input as one row of an
    unaligned, small 2-D output (NDDMA without loop cache: 2 dims are at most MAX_NNDMA_DIM)."""
    inputs = [t for t in tensors if t.role == "input"]
    shape = spec.tests.shapes[0]
    dim = prod(shape)
    min_bytes = min(max(8, t.dtypes[combo.index].size_bits) for t in tensors if t.read_by_kernel
                    or t.role == "output") // 8
    cases = []
    if one_dim_advance(spec, tensors):
        tile = CACHE_LINE_BYTES // min_bytes
        block_dim, fields = 0, cast(tuple[tuple[str, int], ...], ())
        if core_num * tile > dim:
            outer = -(-dim // tile)
            former = -(-outer // core_num)
            former = DB_LOOP if former == 1 else former
            block_dim = -(-outer // former)
            fields = (("dimLen", dim), ("tileNum", tile), ("blockNum", block_dim))
        cases.append(BroadcastTilingCase("same_shapes", tuple(shape for _ in inputs), shape,
                                         SCH_MODE_ONE_DIM_ADVANCE, block_dim, fields))
    else:
        cases.append(BroadcastTilingCase("same_shapes", tuple(shape for _ in inputs), shape, SCH_MODE_ONE_DIM, 0, ()))
    rows = 8
    for name in plan.brc_inputs:
        shapes = tuple((1, UNALIGNED_LAST_DIM) if t.name == name else (rows, UNALIGNED_LAST_DIM) for t in inputs)
        cases.append(BroadcastTilingCase(f"{name}_broadcast_row", shapes, (rows, UNALIGNED_LAST_DIM),
                                         SCH_MODE_NDDMA_WITHOUT_LOOP_CACHE_BRC, 0, ()))
    return tuple(cases)


def broadcast_st_shapes(spec: OpSpec, names: Sequence[str], plan: BroadcastPlan
                        ) -> list[tuple[str, tuple[tuple[int, ...], ...], tuple[int, ...]]]:
    """ST rows whose inputs broadcast (the compatible variants), with the output shape they give."""
    rows = []
    for label, shapes in broadcast_variants(tuple(spec.tests.shapes[0]), names, plan.brc_inputs):
        out = broadcast_dims(shapes)
        if out is not None:
            rows.append((f"brc_{label}", shapes, out))
    return rows


def broadcast_infershape_shapes(spec: OpSpec, names: Sequence[str], plan: BroadcastPlan
                                ) -> list[tuple[str, tuple[tuple[int, ...], ...], tuple[int, ...] | None]]:
    """Each broadcasting input as a row, a lower rank and an incompatible dim (no output: GRAPH_FAILED); a
    dynamic dim against a static one (the static one wins) and an unknown rank against a static shape (-2)."""
    shape = tuple(spec.tests.shapes[0])
    last = shape[-1]
    variants = broadcast_variants(shape, names, plan.brc_inputs)
    first = plan.brc_inputs[0]
    variants += [(f"{first}_dynamic", tuple((-1, last) if n == first else (4, last) for n in names)),
                 (f"{first}_unknown_rank", tuple((-2,) if n == first else (4, last) for n in names))]
    return [(label, shapes, broadcast_dims(shapes)) for label, shapes in variants]
