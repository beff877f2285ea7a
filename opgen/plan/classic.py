"""The classic kernel's Compute() body from the (lowered) recipe, buffers assigned by liveness.

Values live in value_type buffers, comparison masks in bit buffers (one bit per element), and the adv_api
calls (Tanh, Sigmoid, Erf, Sign) share one temp buffer sized for the hungriest of them. With float compute
an input's float view is free once its last reader has run and an output's view until the step making it,
so values go there before any tmpBuf is made (upstream's kernels compute in their input and output tiles
alike). Each tiling key allocates only the buffers its own Compute() uses; the tiling counts those.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..spec.dtypes import Dtype
from ..spec.recipe import OPS, Arg, AttrRef, Step
from ..spec.socs import SOCS, TILING_SOC_ALIASES
from .ops import COMPARE_MODES, SPELLINGS
from .reserved import lower_camel
from .tensors import DtypeCombination, TensorPlan

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
    the UB the platform reports (GetCoreMemSize) and the UB its row keeps for the basic API scratch."""
    tile = (max(ub_bytes - scratch_bytes, 0) * 8 // bits_per_element) // TILE_ALIGN * TILE_ALIGN
    per_core = -(-total // core_count)
    former = -(-per_core // TILE_ALIGN) * TILE_ALIGN
    used = -(-total // former)
    return ClassicTiling(total, former, total - (used - 1) * former, tile, used)


# ops whose classic API writes asc-devkit's UB scratch (TMP_UB_OFFSET..TOTAL_UB_SIZE) on 2201 and 2002:
# Select (impl/basic_api/dav_c220 and dav_m200 kernel_operator_vec_cmpsel_impl.h: VselImpl,
# VselIntrinsicsImplPre) and Sign, which selects (impl/adv_api/detail/math/sign/sign_common_impl.h)
UB_SCRATCH_OPS = frozenset({"select", "sign"})


@dataclass(frozen=True)
class ClassicVariant:
    tiling_key: int
    soc: str
    soc_enum: str  # platform_ascendc::SocVersion enumerator
    lines: tuple[str, ...]  # statements of Compute() for this tiling key
    temp_count: int  # tmpBuf members its Compute() uses
    mask_count: int  # maskBuf members its Compute() uses
    shared_tmp_factor: int  # value-sized elements per element of the adv_api temp buffer it needs (0: none)
    uses_ub_scratch: bool  # it calls an API writing asc-devkit's UB scratch (UB_SCRATCH_OPS)


@dataclass(frozen=True)
class CalcBuffer:
    member: str  # TBuf<VECCALC> member
    bytes: str  # C++ size expression for pipe.InitBuffer
    guard: str = ""  # the `if constexpr` condition it is allocated under
    reason: str = ""  # why the guard: the comment beside it


@dataclass(frozen=True)
class ClassicKernel:
    value_type: str  # C++ element type of the compute values
    key_macro: str  # the tiling key macros' prefix (<GUARD>_TILING_KEY_)
    cast_buffers: tuple[str, ...]  # TBuf members holding float views of inputs/outputs
    cast_tensors: tuple[TensorPlan, ...]  # their tensors: a float32 one is read in place, its buffer never made
    variants: tuple[ClassicVariant, ...]
    adv_api_headers: tuple[str, ...]  # lib/... headers of the adv_api calls used

    @property
    def temp_buffers(self) -> tuple[str, ...]:
        """TBuf members recycled by liveness: as many as the hungriest tiling key uses."""
        return tuple(f"tmpBuf{k}" for k in range(max(v.temp_count for v in self.variants)))

    @property
    def mask_buffers(self) -> tuple[str, ...]:
        return tuple(f"maskBuf{k}" for k in range(max(v.mask_count for v in self.variants)))

    @property
    def shared_tmp_factor(self) -> int:
        return max(v.shared_tmp_factor for v in self.variants)

    def scratch_bits(self, variant: ClassicVariant, value_bits: int, float_tensors: set[str]) -> int:
        """UB bits one element takes in one tiling key's buffers: its value buffers, its shared temp and one bit
        per mask; the cast buffers of `float_tensors` (float32 in this combination, read in place) take none."""
        made = sum(t.name not in float_tensors for t in self.cast_tensors)
        return (made + variant.temp_count + variant.shared_tmp_factor) * value_bits + variant.mask_count

    @property
    def buffers(self) -> tuple[CalcBuffer, ...]:
        size = f"tileDataNum * sizeof({self.value_type})"
        casts = tuple(CalcBuffer(b, size, f"!std::is_same_v<{t.type_param}, float>", "a float32 tensor is read in "
                                 "place") for b, t in zip(self.cast_buffers, self.cast_tensors, strict=True))
        temps = tuple(self._keyed(b, size, lambda v: v.temp_count, k) for k, b in enumerate(self.temp_buffers))
        masks = tuple(self._keyed(b, "tileDataNum / 8", lambda v: v.mask_count, k)
                      for k, b in enumerate(self.mask_buffers))
        shared = (self._keyed(SHARED_TMP, f"{self.shared_tmp_factor} * {size}", lambda v: v.shared_tmp_factor, 0),
                  ) if self.shared_tmp_factor else ()
        return casts + temps + masks + shared

    def _keyed(self, member: str, size: str, count: Callable[[ClassicVariant], int], index: int) -> CalcBuffer:
        """The `index`th buffer of a kind, made only under the tiling keys whose Compute() uses more than `index`
        of them (`count`)."""
        keys = [v for v in self.variants if count(v) > index]
        if len(keys) == len(self.variants):
            return CalcBuffer(member, size)
        guard = " || ".join(f"TILING_KEY == {self.key_macro}{v.soc_enum}" for v in keys)
        return CalcBuffer(member, size, guard, "only this tiling key's Compute() uses it" if len(keys) == 1
                          else "only these tiling keys' Compute() use it")


_ADV_API_HEADERS = {
    "tanh": "lib/math/kernel_operator_tanh_intf.h", "sigmoid": "lib/activation/kernel_operator_sigmoid_intf.h",
    "sign": "lib/math/kernel_operator_sign_intf.h", "erf": "lib/math/kernel_operator_erf_intf.h",
}


def classic_kernel(tensors: tuple[TensorPlan, ...], float_compute: bool,
                   variants: list[tuple[int, str, tuple[Step, ...]]], key_macro: str) -> ClassicKernel:
    outputs = [t for t in tensors if t.role == "output"]
    value_type = "float" if float_compute else outputs[0].type_param
    cast_tensors = [t for t in tensors if float_compute and t.read_by_kernel and not t.is_mask]
    ops = {s.op for _, _, steps in variants for s in steps}
    bodies = []
    for key, soc, steps in variants:
        lines, temps, masks = _body(tensors, steps, value_type, float_compute)
        factor = max((SPELLINGS[s.op].tmp_factor[0 if float_compute else 1] for s in steps), default=0)
        bodies.append(ClassicVariant(key, soc, soc.upper(), tuple(lines), temps, masks, factor,
                                     any(s.op in UB_SCRATCH_OPS for s in steps)))
    return ClassicKernel(
        value_type=value_type,
        key_macro=key_macro,
        cast_buffers=tuple(f"castBuf{t.camel[0].upper()}{t.camel[1:]}" for t in cast_tensors),
        cast_tensors=tuple(cast_tensors),
        variants=tuple(bodies),
        adv_api_headers=tuple(h for op, h in _ADV_API_HEADERS.items() if op in ops),
    )


@dataclass(frozen=True)
class ClassicDtypeCase:
    """One row of the classic tiling's table: what an element costs under one tiling key and output dtype."""

    soc: str  # the SoC whose tiling key it is
    tiling_key_macro: str  # that key's macro
    dtype: Dtype  # the output dtype (several combinations sharing it: the costliest)
    bits: int  # UB bits one element takes: queued tensors x buffer_num + the key's own buffers
    ub_scratch_bytes: int  # UB kept for asc-devkit's basic API scratch: the SoC's, when the key's Compute() needs it


def classic_dtype_cases(
    tensors: tuple[TensorPlan, ...], combos: tuple[DtypeCombination, ...], kernel: ClassicKernel, buffer_num: int,
) -> tuple[ClassicDtypeCase, ...]:
    moved = [i for i, t in enumerate(tensors) if t.read_by_kernel]
    cases: dict[tuple[str, str], ClassicDtypeCase] = {}
    for variant in kernel.variants:
        scratch = SOCS[variant.soc].ub_scratch_bytes if variant.uses_ub_scratch else 0
        for combo in combos:
            value_bits = 32 if kernel.value_type == "float" else combo.key.size_bits
            queued = sum(combo.dtypes[i].size_bits for i in moved)
            in_place = {t.name for t, d in zip(tensors, combo.dtypes, strict=True) if d.name == "float32"}
            bits = buffer_num * queued + kernel.scratch_bits(variant, value_bits, in_place)
            row = (variant.soc, combo.key.name)
            if row not in cases or cases[row].bits < bits:
                cases[row] = ClassicDtypeCase(variant.soc, kernel.key_macro + variant.soc_enum, combo.key, bits,
                                              scratch)
    return tuple(cases.values())


def classic_case(cases: tuple[ClassicDtypeCase, ...], soc: str, dtype: str) -> ClassicDtypeCase | None:
    """The row the tiling picks on `soc` for output dtype `dtype` (an aliased SoC takes its tiling SoC's key)."""
    tiling_soc = TILING_SOC_ALIASES.get(soc, soc)
    return next((c for c in cases if c.soc in (soc, tiling_soc) and c.dtype.name == dtype), None)


def _body(
    tensors: tuple[TensorPlan, ...], steps: tuple[Step, ...], value_type: str, float_compute: bool
) -> tuple[list[str], int, int]:
    names: dict[str, str] = {}
    lines: list[str] = []
    read = {a for s in steps for a in s.tensor_args}
    views: list[View] = []
    for t in tensors:
        buf = f"castBuf{t.camel[0].upper()}{t.camel[1:]}"
        if t.role == "input" and t.name in read:
            if float_compute and not t.is_mask:
                names[t.name] = f"{t.camel}Value"
                views.append(View(f"{t.camel}Value", after=t.name))
                lines.append(f"LocalTensor<float> {t.camel}Value = AsFloat<{t.type_param}>({t.camel}Local, {buf}, "
                             f"{COUNT});")
            else:
                names[t.name] = f"{t.camel}Local"
        elif t.role == "output":
            if float_compute:
                names[t.name] = f"{t.camel}Value"
                views.append(View(f"{t.camel}Value", before=t.name))
                lines.append(f"LocalTensor<float> {t.camel}Value = FloatView<{t.type_param}>({t.camel}Local, {buf});")
            else:
                names[t.name] = f"{t.camel}Local"
    outputs = {t.name for t in tensors if t.role == "output"}
    temps, used = _assign(steps, outputs, views)
    masks, used_masks = _assign(steps, outputs, (), mask=True)
    lines.extend(f"LocalTensor<{value_type}> tmp{k} = tmpBuf{k}.Get<{value_type}>();" for k in range(used))
    lines.extend(f"LocalTensor<uint8_t> mask{k} = maskBuf{k}.Get<uint8_t>();" for k in range(used_masks))
    if any(SPELLINGS[s.op].tmp_factor[0] for s in steps):
        lines.append(f"LocalTensor<uint8_t> sharedTmp = {SHARED_TMP}.Get<uint8_t>();")
    if any(OPS[s.op].gives_mask for s in steps):
        lines.append(f"uint32_t {CMP_COUNT} = ({COUNT} + 255) / 256 * 256; // Compare works on whole 256-byte "
                     "blocks")
    names.update({value: slot if isinstance(slot, str) else f"tmp{slot}" for value, slot in temps.items()})
    names.update({value: f"mask{k}" for value, k in masks.items()})
    for step in steps:
        lines.append(f"{_call(step, names, value_type, float_compute)} // {step}")
    if float_compute:
        lines.extend(f"StoreFloat<{t.type_param}>({t.camel}Local, {t.camel}Value, {COUNT});"
                     for t in tensors if t.role == "output")
    return lines, used, used_masks


@dataclass(frozen=True)
class View:
    """A float tile of the op's own tensors that may hold values: an input's once `after` is last read, an
    output's until the step making `before`."""

    name: str
    after: str = ""
    before: str = ""


def _assign(steps: tuple[Step, ...], outputs: set[str], views: Sequence[View], *, mask: bool = False
            ) -> tuple[dict[str, int | str], int]:
    """Give each intermediate value (or mask) a buffer: a free view first, else a tmpBuf index, reusing one once
    its last reader has run; an adv_api call (its own temp buffer) never writes over its source."""
    last_use = {arg: j for j, s in enumerate(steps) for arg in s.tensor_args}
    made = {s.out: j for j, s in enumerate(steps)}
    in_place = [not SPELLINGS[s.op].tmp_factor[0] for s in steps]
    # a view's last step: a value there must be dead by then (read at the latest in place by the step itself)
    until = {v.name: made.get(v.before, -1) - (not in_place[made[v.before]]) if v.before in made else len(steps)
             for v in views if not v.after or v.after in last_use}
    opens = {v.name: last_use[v.after] for v in views if v.after in last_use}
    assigned: dict[str, int | str] = {}
    free: list[int | str] = [v.name for v in views if v.before and v.name in until]
    used = 0
    for j, step in enumerate(steps):
        released: list[int | str] = [assigned[a] for a in dict.fromkeys(step.tensor_args)
                                     if a in assigned and last_use[a] == j]
        released += [name for name, at in opens.items() if at == j]
        if in_place[j]:
            free.extend(released)
        if step.out not in outputs and OPS[step.op].gives_mask == mask:
            end = last_use.get(step.out, j)
            fits: list[int | str] = [slot for slot in free if isinstance(slot, str) and until[slot] >= end]
            fits += sorted(slot for slot in free if isinstance(slot, int))
            if fits:
                assigned[step.out] = fits[0]
                free.remove(fits[0])
            else:
                assigned[step.out] = used
                used += 1
        if not in_place[j]:
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
