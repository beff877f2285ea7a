"""The classic kernel's Compute() body from the (lowered) recipe, buffers assigned by liveness.

Values live in value_type buffers, comparison masks in bit buffers (one bit per element), and the adv_api
calls (Tanh, Sigmoid, Erf, Sign) share one temp buffer sized for the hungriest of them. With float compute
an input's float view is free once its last reader has run and an output's view until the step making it,
so values go there before any tmpBuf is made (upstream's kernels compute in their input and output tiles
alike). Each tiling key allocates only the buffers its own Compute() uses; the tiling counts those.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...spec.dtypes import DTYPES, Dtype
from ...spec.recipe import OPS, Arg, AttrRef, Step
from ...spec.socs import BY_REPEAT_ARCHES, SOCS
from ..registry.attrs import attr_member
from ..registry.tensors import TensorPlan
from .ops import COMPARE_MODES, SPELLINGS

COUNT = "count"
CMP_COUNT = "cmpCount"  # Compare works on whole 256-byte blocks: count rounded up within the tile
SHARED_TMP = "sharedTmpBuf"


# ops whose classic API writes asc-devkit's UB scratch (TMP_UB_OFFSET..TOTAL_UB_SIZE) on 2201 and 2002:
# Select (impl/basic_api/dav_c220 and dav_m200 kernel_operator_vec_cmpsel_impl.h: VselImpl,
# VselIntrinsicsImplPre) and Sign, which selects (impl/adv_api/detail/math/sign/sign_common_impl.h)
UB_SCRATCH_OPS = frozenset({"select", "sign"})
# a fill only these ops read (as one operand) is one repeat's bytes filled once in Init, read by every repeat
# (repeat stride 0) through the high-dim form of the call: one instruction on 2201 and 2002, a loop of block-strided
# loads (vsldb) as long as the count form's on 3002; not on 3510, which emulates that form with VF calls and 8 KiB
# of UB (asc-devkit docs: Divs, "tensor高维切分计算占用8KB")
BLOCK_OPS = frozenset(op for op, sig in OPS.items() if sig.args == ("tensor", "tensor") and not sig.gives_mask)
BLOCK_ARCHES = frozenset({2002, 2201, 3002})
REPEAT_BYTES = 256  # one vector repeat: eight 32-byte blocks


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
    constants: tuple[str, ...]  # the BlockConstant members its Compute() reads
    by_repeat: bool = False  # its SoC's arch is in BY_REPEAT_ARCHES

    @property
    def ub_fixed_bytes(self) -> int:
        """UB no tile takes under this key: its constant blocks, and its SoC's basic API scratch if it selects."""
        return REPEAT_BYTES * len(self.constants) + (SOCS[self.soc].ub_scratch_bytes if self.uses_ub_scratch else 0)


@dataclass(frozen=True)
class CalcBuffer:
    member: str  # TBuf<VECCALC> member
    bytes: str  # C++ size expression for pipe.InitBuffer
    guard: str = ""  # the `if constexpr` condition it is allocated under
    reason: str = ""  # why the guard: the comment beside it


@dataclass(frozen=True)
class BlockConstant:
    """A recipe constant kept in one repeat's bytes of UB, filled once in Init (BLOCK_OPS)."""

    member: str  # TBuf<VECCALC> member
    local: str  # its LocalTensor in Compute()
    value: str  # the C++ scalar Duplicate fills it with


@dataclass(frozen=True)
class ClassicKernel:
    value_type: str  # C++ element type of the compute values (ComputeT where it depends on the dtype)
    float_compute: bool  # the recipe's dtype is float32
    native: tuple[str, ...]  # key dtypes computed in their own type although the recipe's dtype is float32
    compute_alias: str  # the class's `using ComputeT = ...;` declaration, where value_type is ComputeT
    key_macro: str  # the tiling key macros' prefix (<GUARD>_TILING_KEY_)
    cast_buffers: tuple[str, ...]  # TBuf members holding float views of inputs/outputs
    cast_tensors: tuple[TensorPlan, ...]  # their tensors: a float32 one is read in place, its buffer never made
    variants: tuple[ClassicVariant, ...]
    adv_api_headers: tuple[str, ...]  # lib/... headers of the adv_api calls used
    constants: tuple[BlockConstant, ...]
    block_apis: tuple[str, ...]  # the calls reading a constant block: a <Api>WithBlock helper each

    def computes_in(self, key: Dtype) -> Dtype:
        return computes_in(key, self.float_compute, self.native)

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

    @property
    def by_repeat_guard(self) -> str:
        """The tiling keys of BY_REPEAT_ARCHES SoCs, as the class's constexpr condition ('' when none)."""
        return " || ".join(f"TILING_KEY == {self.key_macro}{v.soc_enum}" for v in self.variants if v.by_repeat)

    @property
    def gm_size(self) -> str:
        """Init's element count of a core's GlobalTensors: a BY_REPEAT_ARCHES key's span the whole tensor."""
        return "gmSize" if self.by_repeat_guard else "coreDataNum"

    @property
    def entry_groups(self) -> tuple[tuple[str, tuple[ClassicVariant, ...]], ...]:
        """The kernel entry's tiling-key branches under the preprocessor line that keeps them: a BY_REPEAT_ARCHES
        key's kernel builds only for __CCE_AICORE__ 100 and the others' not there (upstream hard_swish_grad_v2.cpp
        branches the same way), since each calls APIs the other arch lacks."""
        by_repeat = tuple(v for v in self.variants if v.by_repeat)
        others = tuple(v for v in self.variants if not v.by_repeat)
        if not by_repeat:
            return (("", others),)
        return (("#if __CCE_AICORE__ == 100", by_repeat),) + ((("#else", others),) if others else ())

    def scratch_bits(self, variant: ClassicVariant, value_bits: int, float_tensors: set[str]) -> int:
        """UB bits one element takes in one tiling key's buffers: its value buffers, its shared temp and its masks
        (one bit, or a BY_REPEAT_ARCHES key's MASK_BITS); the cast buffers of `float_tensors` (float32 in this
        combination, read in place) take none."""
        made = sum(t.name not in float_tensors for t in self.cast_tensors)
        mask_bits = value_bits // 8 if variant.by_repeat else 1
        return (made + variant.temp_count + variant.shared_tmp_factor) * value_bits + variant.mask_count * mask_bits

    @property
    def buffers(self) -> tuple[CalcBuffer, ...]:
        size = f"tileDataNum * sizeof({self.value_type})"
        read = "a tensor of the compute type is read in place" if self.native else "a float32 tensor is read in place"
        casts = tuple(CalcBuffer(b, size, f"!std::is_same_v<{t.type_param}, {self.value_type}>", read)
                      for b, t in zip(self.cast_buffers, self.cast_tensors, strict=True))
        temps = tuple(self._keyed(b, size, [v for v in self.variants if v.temp_count > k])
                      for k, b in enumerate(self.temp_buffers))
        # a BY_REPEAT_ARCHES key's masks take a 32-byte slot a repeat: MASK_BITS (sizeof the compute type) an element
        mask_size = "tileDataNum * MASK_BITS / 8" if self.by_repeat_guard else "tileDataNum / 8"
        masks = tuple(self._keyed(b, mask_size, [v for v in self.variants if v.mask_count > k])
                      for k, b in enumerate(self.mask_buffers))
        shared = (self._keyed(SHARED_TMP, f"{self.shared_tmp_factor} * {size}",
                              [v for v in self.variants if v.shared_tmp_factor]),) if self.shared_tmp_factor else ()
        return casts + temps + masks + shared

    @property
    def constant_fills(self) -> tuple[tuple[CalcBuffer, BlockConstant], ...]:
        """Each constant's buffer, made and filled in Init under the tiling keys that read it."""
        return tuple((self._keyed(c.member, "REPEAT_BYTES", [v for v in self.variants if c.member in v.constants]), c)
                     for c in self.constants)

    def _keyed(self, member: str, size: str, users: list[ClassicVariant]) -> CalcBuffer:
        """A buffer made only under the tiling keys whose Compute() uses it."""
        if len(users) == len(self.variants):
            return CalcBuffer(member, size)
        guard = " || ".join(f"TILING_KEY == {self.key_macro}{v.soc_enum}" for v in users)
        return CalcBuffer(member, size, guard, "only this tiling key's Compute() uses it" if len(users) == 1
                          else "only these tiling keys' Compute() use it")


def computes_in(key: Dtype, float_compute: bool, native: tuple[str, ...]) -> Dtype:
    """The dtype a combination with this key dtype computes in: float32 for a float32 recipe unless the key is one
    of its native_dtypes, else the key itself (the kernel's ComputeT, the emulator's and golden.py's cdt)."""
    return DTYPES["float32"] if float_compute and key.name not in native else key


_ADV_API_HEADERS = {
    "tanh": "lib/math/kernel_operator_tanh_intf.h", "sigmoid": "lib/activation/kernel_operator_sigmoid_intf.h",
    "sign": "lib/math/kernel_operator_sign_intf.h", "erf": "lib/math/kernel_operator_erf_intf.h",
}


def classic_kernel(tensors: tuple[TensorPlan, ...], float_compute: bool,
                   variants: list[tuple[int, str, tuple[Step, ...]]], key_macro: str,
                   native: tuple[str, ...] = ()) -> ClassicKernel:
    outputs = [t for t in tensors if t.role == "output"]
    value_type = ("ComputeT" if native else "float") if float_compute else outputs[0].type_param
    own = " || ".join(f"std::is_same_v<{outputs[0].type_param}, {DTYPES[d].kernel}>" for d in native)
    alias = f"using ComputeT = std::conditional_t<{own}, {outputs[0].type_param}, float>;" if native else ""
    cast_tensors = [t for t in tensors if float_compute and t.read_by_kernel and not t.is_mask]
    ops = {s.op for _, _, steps in variants for s in steps}
    bodies = []
    constants: dict[str, BlockConstant] = {}
    block_apis: set[str] = set()
    def constant(value: str) -> BlockConstant:
        k = len(constants)
        return constants.setdefault(value, BlockConstant(f"constBuf{k}", f"const{k}", value))

    for key, soc, steps in variants:
        arch = SOCS[soc].npu_arch
        blocks = {step.out: constant(_arg(step.args[0], {}, value_type, float_compute))
                  for step in (_block_fills(steps, {t.name for t in outputs}) if arch in BLOCK_ARCHES else ())}
        block_apis.update(SPELLINGS[s.op].ascendc for s in steps if blocks.keys() & set(s.tensor_args))
        scalars = {value: constant(value) for value in _by_repeat_scalars(steps, value_type, float_compute)
                   } if arch in BY_REPEAT_ARCHES else None
        lines, temps, masks = _body(tensors, steps, value_type, float_compute, blocks, scalars)
        factor = max((SPELLINGS[s.op].tmp_factor[0 if float_compute else 1] for s in steps), default=0)
        read = [*blocks.values(), *(scalars or {}).values()]
        bodies.append(ClassicVariant(key, soc, soc.upper(), tuple(lines), temps, masks, factor,
                                     any(s.op in UB_SCRATCH_OPS for s in steps),
                                     tuple(dict.fromkeys(c.member for c in read)), arch in BY_REPEAT_ARCHES))
    return ClassicKernel(
        value_type=value_type,
        float_compute=float_compute,
        native=native,
        compute_alias=alias,
        key_macro=key_macro,
        cast_buffers=tuple(f"castBuf{t.camel[0].upper()}{t.camel[1:]}" for t in cast_tensors),
        cast_tensors=tuple(cast_tensors),
        variants=tuple(bodies),
        adv_api_headers=tuple(h for op, h in _ADV_API_HEADERS.items() if op in ops),
        constants=tuple(constants.values()),
        block_apis=tuple(sorted(block_apis)),
    )


def _by_repeat_scalars(steps: tuple[Step, ...], value_type: str, float_compute: bool) -> list[str]:
    """The scalar operands of compares and selects, which BY_REPEAT_ARCHES take as tensors only."""
    return [_scalar(s.args[-1], value_type, float_compute) for s in steps
            if (OPS[s.op].gives_mask or s.op == "select") and not isinstance(s.args[-1], str)]


def _block_fills(steps: tuple[Step, ...], outputs: set[str]) -> list[Step]:
    """The fills whose every reader is a BLOCK_OPS call taking it as one operand and a computed value as the
    other (the helper reads one block)."""
    fills = {s.out for s in steps if s.op == "fill" and s.out not in outputs}
    readers = [s for s in steps if fills & set(s.tensor_args)]
    unfit = {a for s in readers for a in s.tensor_args
             if s.op not in BLOCK_OPS or set(s.tensor_args) <= fills or s.tensor_args.count(a) > 1}
    return [s for s in steps if s.out in fills - unfit]


def _body(tensors: tuple[TensorPlan, ...], steps: tuple[Step, ...], value_type: str, float_compute: bool,
          blocks: Mapping[str, BlockConstant], scalars: Mapping[str, BlockConstant] | None
          ) -> tuple[list[str], int, int]:
    """Compute()'s statements; `scalars` (a BY_REPEAT_ARCHES key: the constants standing for scalar operands)
    makes compares and selects run a repeat at a time."""
    names: dict[str, str] = {value: c.local for value, c in blocks.items()}
    lines: list[str] = []
    read = {a for s in steps for a in s.tensor_args}
    views: list[View] = []
    for t in tensors:
        buf = f"castBuf{t.camel[0].upper()}{t.camel[1:]}"
        if t.role == "input" and t.name in read:
            if float_compute and not t.is_mask:
                names[t.name] = f"{t.camel}Value"
                views.append(View(f"{t.camel}Value", after=t.name))
                lines.append(f"LocalTensor<{value_type}> {t.camel}Value = AsCompute<{value_type}, {t.type_param}>("
                             f"{t.camel}Local, {buf}, {COUNT});")
            else:
                names[t.name] = f"{t.camel}Local"
        elif t.role == "output":
            if float_compute:
                names[t.name] = f"{t.camel}Value"
                views.append(View(f"{t.camel}Value", before=t.name))
                lines.append(f"LocalTensor<{value_type}> {t.camel}Value = ComputeView<{value_type}, {t.type_param}>("
                             f"{t.camel}Local, {buf});")
            else:
                names[t.name] = f"{t.camel}Local"
    outputs = {t.name for t in tensors if t.role == "output"}
    computed = tuple(s for s in steps if s.out not in blocks)
    temps, used = _assign(computed, outputs, views)
    masks, used_masks = _assign(computed, outputs, (), mask=True)
    lines.extend(f"LocalTensor<{value_type}> {c.local} = {c.member}.Get<{value_type}>();"
                 for c in dict.fromkeys([*blocks.values(), *(scalars or {}).values()]))
    lines.extend(f"LocalTensor<{value_type}> tmp{k} = tmpBuf{k}.Get<{value_type}>();" for k in range(used))
    lines.extend(f"LocalTensor<uint8_t> mask{k} = maskBuf{k}.Get<uint8_t>();" for k in range(used_masks))
    if any(SPELLINGS[s.op].tmp_factor[0] for s in steps):
        lines.append(f"LocalTensor<uint8_t> sharedTmp = {SHARED_TMP}.Get<uint8_t>();")
    if any(OPS[s.op].gives_mask for s in steps) and scalars is None:
        lines.append(f"uint32_t {CMP_COUNT} = ({COUNT} + 255) / 256 * 256; // Compare works on whole 256-byte "
                     "blocks")
    names.update({value: slot if isinstance(slot, str) else f"tmp{slot}" for value, slot in temps.items()})
    names.update({value: f"mask{k}" for value, k in masks.items()})
    for step in steps:
        if step.out in blocks:
            lines.append(f"// {step}: {blocks[step.out].local}, filled once in Init")
        else:
            lines.append(f"{_call(step, names, value_type, float_compute, blocks, scalars)} // {step}")
    # dav_c100 rounds float to half only in CAST_NONE (its round-to-nearest: vconv_f322f16), not CAST_RINT
    mode = "" if scalars is None else ", RoundMode::CAST_NONE"
    if float_compute:
        lines.extend(f"StoreCompute<{value_type}, {t.type_param}{mode}>({t.camel}Local, {t.camel}Value, {COUNT});"
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
        return member if value_type == "float" and value.kind == "float" else f"static_cast<{value_type}>({member})"
    if value_type == "ComputeT":  # from a float literal: half's constructor from double is not in every runtime
        return f"static_cast<ComputeT>({value!r}f)"
    return f"{value!r}f" if value_type == "float" else f"static_cast<{value_type}>({value!r})"


def _arg(arg: Arg, names: dict[str, str], value_type: str, float_compute: bool) -> str:
    return names[arg] if isinstance(arg, str) else _scalar(arg, value_type, float_compute)


def _call(step: Step, names: dict[str, str], value_type: str, float_compute: bool,
          blocks: Mapping[str, BlockConstant], scalars: Mapping[str, BlockConstant] | None) -> str:
    api = SPELLINGS[step.op].ascendc
    dst = names[step.out]
    args = [_arg(a, names, value_type, float_compute) for a in step.args]
    if scalars is not None and (OPS[step.op].gives_mask or step.op == "select"):
        scalar = not isinstance(step.args[-1], str)
        block = "true" if scalar else "false"
        if scalar:
            args[-1] = scalars[args[-1]].local
        if step.op == "select":
            return f"SelectByRepeat<{block}>({', '.join([dst, *args, COUNT])});"
        return (f"CompareByRepeat<{block}>({dst}, {args[0]}, {args[1]}, CMPMODE::{COMPARE_MODES[step.op][0]}, "
                f"{COUNT});")
    if blocks.keys() & set(step.tensor_args):
        first = "true" if step.args[0] in blocks else "false"
        return f"{api}WithBlock<{first}>({', '.join([dst, *args, COUNT])});"
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
