"""The classic kernel's Compute() body from the recipe, temp buffers assigned by liveness."""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.recipe import Step
from .ops import SPELLINGS
from .tensors import TensorPlan

COUNT = "count"
TILE_ALIGN = 256  # elements; keeps every copy 32-byte aligned


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
        return (self.total_num, self.block_former, self.block_tail, self.tile_data_num)


def classic_tiling(total: int, bits_per_element: int, core_count: int, ub_bytes: int) -> ClassicTiling:
    """The core split and UB tile of the rendered op_host tiling (blueprints/classic/op_host/*_tiling.cpp)."""
    tile = (ub_bytes * 8 // bits_per_element) // TILE_ALIGN * TILE_ALIGN
    per_core = -(-total // core_count)
    former = -(-per_core // TILE_ALIGN) * TILE_ALIGN
    used = -(-total // former)
    return ClassicTiling(total, former, total - (used - 1) * former, tile, used)


@dataclass(frozen=True)
class ClassicVariant:
    tiling_key: int
    soc: str
    soc_enum: str  # platform_ascendc::SocVersion enumerator
    lines: tuple[str, ...]  # statements of Compute() for this tiling key


@dataclass(frozen=True)
class ClassicKernel:
    value_type: str  # C++ element type of the compute values
    cast_buffers: tuple[str, ...]  # TBuf members holding float views of inputs/outputs
    temp_buffers: tuple[str, ...]  # TBuf members recycled by liveness
    variants: tuple[ClassicVariant, ...]
    tile_align: int = TILE_ALIGN

    @property
    def calc_buffer_count(self) -> int:
        """Scratch buffers of value_type per element: what the tiling must fit in UB beside the queues."""
        return len(self.cast_buffers) + len(self.temp_buffers)


def classic_kernel(
    tensors: tuple[TensorPlan, ...], float_compute: bool, variants: list[tuple[int, str, tuple[Step, ...]]]
) -> ClassicKernel:
    outputs = [t for t in tensors if t.role == "output"]
    value_type = "float" if float_compute else outputs[0].type_param
    cast_tensors = [t for t in tensors if float_compute and t.read_by_kernel and not t.is_mask]
    bodies = []
    temp_count = 0
    for key, soc, steps in variants:
        lines, used = _body(tensors, steps, value_type, float_compute)
        temp_count = max(temp_count, used)
        bodies.append(ClassicVariant(key, soc, soc.upper(), tuple(lines)))
    return ClassicKernel(
        value_type=value_type,
        cast_buffers=tuple(f"castBuf{t.camel[0].upper()}{t.camel[1:]}" for t in cast_tensors),
        temp_buffers=tuple(f"tmpBuf{k}" for k in range(temp_count)),
        variants=tuple(bodies),
    )


def _body(
    tensors: tuple[TensorPlan, ...], steps: tuple[Step, ...], value_type: str, float_compute: bool
) -> tuple[list[str], int]:
    names: dict[str, str] = {}
    lines: list[str] = []
    read = {a for s in steps for a in s.tensor_args}
    for t in tensors:
        buf = f"castBuf{t.camel[0].upper()}{t.camel[1:]}"
        if t.role == "input" and t.name in read:
            if float_compute and not t.is_mask:
                names[t.name] = f"{t.camel}Value"
                lines.append(f"LocalTensor<float> {t.camel}Value = AsFloat<{t.type_param}>({t.camel}Local, {buf}, "
                             f"{COUNT});")
            else:
                names[t.name] = f"{t.camel}Local"
        elif t.role == "output":
            if float_compute:
                names[t.name] = f"{t.camel}Value"
                lines.append(f"LocalTensor<float> {t.camel}Value = FloatView<{t.type_param}>({t.camel}Local, {buf});")
            else:
                names[t.name] = f"{t.camel}Local"
    temps, used = _assign_temps(tensors, steps)
    lines.extend(f"LocalTensor<{value_type}> tmp{k} = tmpBuf{k}.Get<{value_type}>();" for k in range(used))
    names.update({value: f"tmp{k}" for value, k in temps.items()})
    for step in steps:
        lines.append(f"{_call(step, names, value_type, float_compute)} // {step}")
    if float_compute:
        lines.extend(f"StoreFloat<{t.type_param}>({t.camel}Local, {t.camel}Value, {COUNT});"
                     for t in tensors if t.role == "output")
    return lines, used


def _assign_temps(tensors: tuple[TensorPlan, ...], steps: tuple[Step, ...]) -> tuple[dict[str, int], int]:
    """Give each intermediate value a buffer, reusing one once its value's last reader has run."""
    outputs = {t.name for t in tensors if t.role == "output"}
    last_use = {arg: j for j, s in enumerate(steps) for arg in s.tensor_args}
    assigned: dict[str, int] = {}
    free: list[int] = []
    used = 0
    for j, step in enumerate(steps):
        for arg in dict.fromkeys(step.tensor_args):
            if arg in assigned and last_use[arg] == j:
                free.append(assigned[arg])
        if step.out in outputs:
            continue
        free.sort()
        if free:
            assigned[step.out] = free.pop(0)
        else:
            assigned[step.out] = used
            used += 1
    return assigned, used


def _scalar_literal(value: float, value_type: str, float_compute: bool) -> str:
    return f"{value!r}f" if float_compute else f"static_cast<{value_type}>({value!r})"


def _call(step: Step, names: dict[str, str], value_type: str, float_compute: bool) -> str:
    api = SPELLINGS[step.op].ascendc
    dst = names[step.out]
    args = [names[a] if isinstance(a, str) else _scalar_literal(a, value_type, float_compute) for a in step.args]
    if step.op == "select":
        mask, src, scalar = args
        return f"Select({dst}, {mask}, {src}, {scalar}, SELMODE::VSEL_TENSOR_SCALAR_MODE, {COUNT});"
    return f"{api}({', '.join([dst, *args, COUNT])});"
