"""The classic kernel's Compute() body from the (lowered) recipe, scratch buffers assigned by liveness.

Values live in value_type buffers, comparison masks in bit buffers (one bit per element), and the adv_api
calls (Tanh, Sigmoid, Erf, Sign) share one temp buffer sized for the hungriest of them; the tiling counts
all of them in the UB split.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..spec.recipe import OPS, Arg, AttrRef, Step
from ..spec.socs import SOCS
from .ops import COMPARE_MODES, SPELLINGS
from .reserved import lower_camel
from .tensors import TensorPlan

COUNT = "count"
CMP_COUNT = "cmpCount"  # Compare works on whole 256-byte blocks: count rounded up within the tile
SHARED_TMP = "sharedTmpBuf"


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
    the UB the platform reports (GetCoreMemSize) and the family's ub_scratch_bytes."""
    tile = (max(ub_bytes - scratch_bytes, 0) * 8 // bits_per_element) // TILE_ALIGN * TILE_ALIGN
    per_core = -(-total // core_count)
    former = -(-per_core // TILE_ALIGN) * TILE_ALIGN
    used = -(-total // former)
    return ClassicTiling(total, former, total - (used - 1) * former, tile, used)


def scratch_bytes(soc_names: Iterable[str]) -> int:
    """The UB one classic tiling source leaves free on every SoC it serves: the most basic API scratch any of
    them keeps (the kernel's buffers fill the rest)."""
    return max(SOCS[n].ub_scratch_bytes for n in soc_names)


@dataclass(frozen=True)
class ClassicVariant:
    tiling_key: int
    soc: str
    soc_enum: str  # platform_ascendc::SocVersion enumerator
    lines: tuple[str, ...]  # statements of Compute() for this tiling key


@dataclass(frozen=True)
class CalcBuffer:
    member: str  # TBuf<VECCALC> member
    bytes: str  # C++ size expression for pipe.InitBuffer
    guard: str = ""  # the `if constexpr` condition it is allocated under (a cast buffer: its tensor is not float)


@dataclass(frozen=True)
class ClassicKernel:
    value_type: str  # C++ element type of the compute values
    cast_buffers: tuple[str, ...]  # TBuf members holding float views of inputs/outputs
    cast_tensors: tuple[TensorPlan, ...]  # their tensors: a float32 one is read in place, its buffer never made
    temp_buffers: tuple[str, ...]  # TBuf members recycled by liveness
    mask_buffers: tuple[str, ...]  # bit masks of comparisons, recycled by liveness
    shared_tmp_factor: int  # value-sized elements per element of the adv_api temp buffer (0: none)
    variants: tuple[ClassicVariant, ...]
    adv_api_headers: tuple[str, ...]  # lib/... headers of the adv_api calls used

    @property
    def calc_buffer_count(self) -> int:
        """Scratch buffers of value_type per element (the shared temp counted by its factor); masks apart."""
        return len(self.cast_buffers) + len(self.temp_buffers) + self.shared_tmp_factor

    def scratch_bits(self, value_bits: int, float_tensors: set[str]) -> int:
        """UB bits one element takes in scratch: value buffers, the shared temp and one bit per mask; the cast
        buffers of `float_tensors` (float32 in this combination, read in place) take none."""
        unmade = sum(t.name in float_tensors for t in self.cast_tensors)
        return (self.calc_buffer_count - unmade) * value_bits + len(self.mask_buffers)

    @property
    def buffers(self) -> tuple[CalcBuffer, ...]:
        size = f"tileDataNum * sizeof({self.value_type})"
        casts = tuple(CalcBuffer(b, size, f"!std::is_same_v<{t.type_param}, float>")
                      for b, t in zip(self.cast_buffers, self.cast_tensors, strict=True))
        plain = casts + tuple(CalcBuffer(b, size) for b in self.temp_buffers)
        masks = tuple(CalcBuffer(b, "tileDataNum / 8") for b in self.mask_buffers)
        shared = (CalcBuffer(SHARED_TMP, f"{self.shared_tmp_factor} * {size}"),) if self.shared_tmp_factor else ()
        return plain + masks + shared


_ADV_API_HEADERS = {
    "tanh": "lib/math/kernel_operator_tanh_intf.h", "sigmoid": "lib/activation/kernel_operator_sigmoid_intf.h",
    "sign": "lib/math/kernel_operator_sign_intf.h", "erf": "lib/math/kernel_operator_erf_intf.h",
}


def classic_kernel(
    tensors: tuple[TensorPlan, ...], float_compute: bool, variants: list[tuple[int, str, tuple[Step, ...]]]
) -> ClassicKernel:
    outputs = [t for t in tensors if t.role == "output"]
    value_type = "float" if float_compute else outputs[0].type_param
    cast_tensors = [t for t in tensors if float_compute and t.read_by_kernel and not t.is_mask]
    bodies = []
    temp_count = mask_count = 0
    ops = {s.op for _, _, steps in variants for s in steps}
    factor = max((SPELLINGS[op].tmp_factor[0 if float_compute else 1] for op in ops), default=0)
    for key, soc, steps in variants:
        lines, temps, masks = _body(tensors, steps, value_type, float_compute)
        temp_count, mask_count = max(temp_count, temps), max(mask_count, masks)
        bodies.append(ClassicVariant(key, soc, soc.upper(), tuple(lines)))
    return ClassicKernel(
        value_type=value_type,
        cast_buffers=tuple(f"castBuf{t.camel[0].upper()}{t.camel[1:]}" for t in cast_tensors),
        cast_tensors=tuple(cast_tensors),
        temp_buffers=tuple(f"tmpBuf{k}" for k in range(temp_count)),
        mask_buffers=tuple(f"maskBuf{k}" for k in range(mask_count)),
        shared_tmp_factor=factor,
        variants=tuple(bodies),
        adv_api_headers=tuple(h for op, h in _ADV_API_HEADERS.items() if op in ops),
    )


def _body(
    tensors: tuple[TensorPlan, ...], steps: tuple[Step, ...], value_type: str, float_compute: bool
) -> tuple[list[str], int, int]:
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
    outputs = {t.name for t in tensors if t.role == "output"}
    temps, used = _assign(steps, outputs, mask=False)
    masks, used_masks = _assign(steps, outputs, mask=True)
    lines.extend(f"LocalTensor<{value_type}> tmp{k} = tmpBuf{k}.Get<{value_type}>();" for k in range(used))
    lines.extend(f"LocalTensor<uint8_t> mask{k} = maskBuf{k}.Get<uint8_t>();" for k in range(used_masks))
    if any(SPELLINGS[s.op].tmp_factor[0] for s in steps):
        lines.append(f"LocalTensor<uint8_t> sharedTmp = {SHARED_TMP}.Get<uint8_t>();")
    if any(OPS[s.op].gives_mask for s in steps):
        lines.append(f"uint32_t {CMP_COUNT} = ({COUNT} + 255) / 256 * 256; // Compare works on whole 256-byte "
                     "blocks")
    names.update({value: f"tmp{k}" for value, k in temps.items()})
    names.update({value: f"mask{k}" for value, k in masks.items()})
    for step in steps:
        lines.append(f"{_call(step, names, value_type, float_compute)} // {step}")
    if float_compute:
        lines.extend(f"StoreFloat<{t.type_param}>({t.camel}Local, {t.camel}Value, {COUNT});"
                     for t in tensors if t.role == "output")
    return lines, used, used_masks


def _assign(steps: tuple[Step, ...], outputs: set[str], *, mask: bool) -> tuple[dict[str, int], int]:
    """Give each intermediate value (or mask) a buffer, reusing one once its last reader has run; an adv_api
    call (its own temp buffer) never writes over its source."""
    last_use = {arg: j for j, s in enumerate(steps) for arg in s.tensor_args}
    assigned: dict[str, int] = {}
    free: list[int] = []
    used = 0
    for j, step in enumerate(steps):
        released = [assigned[a] for a in dict.fromkeys(step.tensor_args) if a in assigned and last_use[a] == j]
        in_place = not SPELLINGS[step.op].tmp_factor[0]
        if in_place:
            free.extend(released)
        if step.out not in outputs and OPS[step.op].gives_mask == mask:
            free.sort()
            if free:
                assigned[step.out] = free.pop(0)
            else:
                assigned[step.out] = used
                used += 1
        if not in_place:
            free.extend(released)
    return assigned, used


def _scalar(value: float | AttrRef, value_type: str, float_compute: bool) -> str:
    """A constant as a literal of the compute type; an attr as the kernel's member holding its tiling field."""
    if isinstance(value, AttrRef):
        member = attr_member(value.name)
        return member if float_compute and value.kind == "float" else f"static_cast<{value_type}>({member})"
    return f"{value!r}f" if float_compute else f"static_cast<{value_type}>({value!r})"


def attr_member(attr: str) -> str:
    """The classic kernel's member an attr's tiling field is copied into."""
    return f"{lower_camel(attr)}_"


def _arg(arg: Arg, names: dict[str, str], value_type: str, float_compute: bool) -> str:
    return names[arg] if isinstance(arg, str) else _scalar(arg, value_type, float_compute)


def _call(step: Step, names: dict[str, str], value_type: str, float_compute: bool) -> str:
    api = SPELLINGS[step.op].ascendc
    dst = names[step.out]
    args = [_arg(a, names, value_type, float_compute) for a in step.args]
    if step.op == "select":
        mask, src, other = args
        mode = "VSEL_TENSOR_TENSOR_MODE" if isinstance(step.args[2], str) else "VSEL_TENSOR_SCALAR_MODE"
        return f"Select({dst}, {mask}, {src}, {other}, SELMODE::{mode}, {COUNT});"
    if OPS[step.op].gives_mask:
        call = "Compare" if isinstance(step.args[1], str) else "Compares"
        return f"{call}({dst}, {args[0]}, {args[1]}, CMPMODE::{COMPARE_MODES[step.op][0]}, {CMP_COUNT});"
    if SPELLINGS[step.op].tmp_factor[0]:
        return f"{api}({dst}, {args[0]}, sharedTmp, {COUNT});"
    return f"{api}({', '.join([dst, *args, COUNT])});"
