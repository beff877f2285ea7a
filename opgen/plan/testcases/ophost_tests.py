"""The op_host UTs (infershape + tiling) in ops-nn's own framework, with every expected value computed here.

Tiling cases run through ops-nn's `ExecuteTestCase` (tests/ut/common/tiling_case_executor.h), whose platform
is the SoC the UT executable was built for (`BUILD_SOC_VERSION`), with the core count and UB size a case
passes. Expected values come from the same formulas the generated tiling uses: the classic tiling's core split
and tile size, and, for arch35, opbase's `ElewiseTiling` (atvoss elewise) plus the TPL tiling-key encoding
(`FastEncodeTilingKeyDirect`). What arch35 cannot be computed here is said where it is asserted.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import prod

from ...spec.models import OpSpec
from ..kernel.broadcast import (
    DEFAULT_TILING_WORKSPACE_SIZE,
    BroadcastPlan,
    broadcast_infershape_shapes,
    broadcast_tiling_cases,
)
from ..kernel.classic_tiling import ClassicDtypeCase, classic_case, classic_tiling
from ..kernel.optional import ABSENT_TPL_OFFSET
from ..registry.attrs import AttrPlan, KernelScalars
from ..registry.choice import ChoicePlan
from ..registry.platforms import SocPlan
from ..registry.tensors import DtypeCombination, TensorPlan
from .attr_cases import with_attrs
from .optional_ut import absent_infershape_cases, absent_tiling_cases
from .ut_cases import InfershapeCase, TensorCase, TilingCase

LOCAL_RESERVED_UB = 256  # PlatformAscendC takes it off Ascend910B's UB (kfc buffers)
ELEWISE_MIN_BITS_PER_CORE = 32768  # opbase ElewiseTiling: at least 4 KiB per core
ELEWISE_CACHE_LINE = 512  # elements; opbase ElewiseTiling aligns a core's share to it
ELEWISE_SCHEDULE_MODE = 1  # ElewiseBaseTiling::GetScheMode (DEFAULT_SCHEMODE)
TPL_DTYPE_BITS = 8  # ASCENDC_TPL_DTYPE_DECL's width in the tiling key
LIB_WORKSPACE_BY_ARCH = {"2201": 16 << 20, "3510": 16 << 20}  # PlatformAscendC::GetLibApiWorkSpaceSize
LIB_WORKSPACE_DEFAULT = 2 << 20
LIB_WORKSPACE_NO_ARCH = (1 << 32) - 1  # GetLibApiWorkSpaceSize's -1 as uint32, when NpuArch is unset


@dataclass(frozen=True)
class UtPlatform:
    """What a UT case gives the tiling for one SoC: vector cores and UB bytes (as ops-nn's UTs use), and the
    NpuArch ops-nn's tiling_case_executor sets for it ("" when its table has none)."""

    core_num: int
    ub_size: int
    npu_arch: str


UT_PLATFORMS = {
    "ascend910b": UtPlatform(48, 196608, "2201"),
    "ascend910_93": UtPlatform(48, 196608, "2201"),
    "ascend910": UtPlatform(32, 262144, "1001"),
    "ascend310p": UtPlatform(8, 262144, "2002"),
    "ascend310b": UtPlatform(1, 262144, ""),
    "ascend950": UtPlatform(64, 245760, "3510"),
}

# the dir under tests/ut/op_host/ ops-nn's UT build also globs for a SoC (cmake/func.cmake get_target_dir); a SoC
# without one (ascend310b) gets the top-level files alone, which every other SoC's build globs too
OPS_NN_UT_DIRS = {"ascend910b": "arch22", "ascend910_93": "arch22", "ascend310p": "arch22", "ascend950": "arch35",
                  "ascend350": "arch35"}


def ut_soc_guard(op_name: str, soc: str) -> str:
    """The macro a tiling suite compiles under: the op's tests/ut/op_host/CMakeLists.txt defines it for the SoC of
    the build (`build.sh -u --ophost --soc=<soc>`), whose platform the executor gives the tiling, so each SoC's
    suite runs in its own build alone even where SoCs share a UT dir (910B and 910_93 in arch22/)."""
    return f"{op_name.upper()}_UT_SOC_{soc.upper()}"


def ut_dir_of(soc: str) -> str:
    """The dir under tests/ut/op_host/ that ops-nn's UT build for `soc` globs beside the top level ("": none)."""
    return OPS_NN_UT_DIRS.get(soc, "")


@dataclass(frozen=True)
class TilingSuite:
    soc: str
    suite: str  # gtest suite name
    guard: str  # the macro it compiles under (ut_soc_guard): defined in its SoC's build alone
    core_num: int
    ub_size: int
    cases: tuple[TilingCase, ...]


@dataclass(frozen=True)
class OphostUtPlan:
    infershape_suite: str
    infershape_cases: tuple[InfershapeCase, ...]
    tiling_suites: tuple[TilingSuite, ...]
    tiling_header: str  # arch35: the tiling header (compile info, tiling struct); classic: none
    attrs_struct_header: str  # arch35 with recipe attrs: the header of the struct the attrs ride in; else none
    compile_info: str  # the compile info the tiling gets (classic: a UT-local empty one; the tiling reads none)


def ophost_ut_plan(spec: OpSpec, dag: bool, tensors: tuple[TensorPlan, ...],
                   combos: tuple[DtypeCombination, ...], socs: tuple[SocPlan, ...],
                   classic_cases: tuple[ClassicDtypeCase, ...], source_input: int, brc: BroadcastPlan | None,
                   absent: TensorPlan | None, attrs: tuple[AttrPlan, ...], scalars: KernelScalars,
                   choice: ChoicePlan | None = None) -> OphostUtPlan:
    """`absent`: the optional input whose absent path gets cases of its own; `choice`: the string attr choosing
    the math, whose other values get cases of their own."""
    inputs = [t for t in tensors if t.role == "input"]
    outputs = [t for t in tensors if t.role == "output"]
    min_bits = min(_kernel_bits(t, c) for c in combos for t in tensors)
    suites = []
    for soc in socs:
        platform = UT_PLATFORMS.get(soc.name)
        if platform is None:
            continue
        if brc is not None:
            cases = _broadcast_cases(spec, tensors, brc, soc.combinations, platform)
        elif dag:
            cases = _arch35_cases(spec, inputs, outputs, soc.combinations, platform, min_bits)
            if absent is not None:
                sch_bits = max(1, max(spec.tiling.sch_modes).bit_length())
                cases += absent_tiling_cases(cases, inputs, absent, outputs, ABSENT_TPL_OFFSET << sch_bits)
        else:
            cases = _classic_cases(spec, soc, inputs, outputs, soc.combinations, platform, classic_cases)
        sch_bits = max(1, max(brc.sch_modes if brc else spec.tiling.sch_modes).bit_length())
        cases = with_attrs(cases + _failing_cases(spec, inputs, outputs, combos, empty_fails=dag or brc is not None),
                           spec, attrs, scalars, dag, choice,
                           sch_bits + TPL_DTYPE_BITS)
        suites.append(TilingSuite(soc.name, f"{spec.op_type}Tiling{_camel(soc.name)}",
                                  ut_soc_guard(spec.snake_name, soc.name), platform.core_num, platform.ub_size,
                                  tuple(cases)))
    arch35 = dag
    return OphostUtPlan(
        infershape_suite=f"{spec.op_type}Infershape",
        infershape_cases=_soc_branches(_with_absent(
            _infershape_cases(spec, inputs, outputs, combos, source_input), inputs, absent, outputs)
            + (_broadcast_infershape_cases(spec, inputs, outputs, combos[0], brc) if brc else ()),
            spec, inputs, outputs, combos[0], brc),
        tiling_suites=tuple(suites),
        tiling_header=f"../../../../op_host/arch35/{spec.snake_name}_tiling_arch35.h" if arch35 else "",
        attrs_struct_header=f"../../../../op_kernel/arch35/{spec.snake_name}_tiling_struct.h"
        if arch35 and scalars.attrs else "",
        compile_info=("Ops::Base::BroadcastCompileInfo" if brc else f"optiling::{spec.op_type}CompileInfo")
        if arch35 else f"{spec.op_type}UtCompileInfo",
    )


def _soc_branches(cases: tuple[InfershapeCase, ...], spec: OpSpec, inputs: list[TensorPlan],
                  outputs: list[TensorPlan], combo: DtypeCombination, brc: BroadcastPlan | None
                  ) -> tuple[InfershapeCase, ...]:
    """An infershape that broadcasts on some SoCs alone: every case runs on the first of them, and the other branch
    gets cases of its own, on a SoC without a broadcasting kernel, where the outputs take the copied input's shape
    (one where broadcasting would give another shape, so that neither branch passes for the other)."""
    if brc is None or not brc.branch_socs:
        return cases
    last = spec.tests.shapes[0][-1]
    copied = inputs[brc.copy_input]
    branch = tuple(replace(c, soc=brc.branch_socs[0]) for c in cases)
    soc = brc.copy_soc.lower()
    variants = (("static", (4, last), (4, last)), (f"{copied.name}_shape_not_broadcast", (1, last), (4, last)),
                ("empty", (0, last), (0, last)))
    copies = []
    for label, own, other in variants:
        ins = tuple(TensorCase(_dims(own if t is copied else other), t.dtypes[combo.index].ge) for t in inputs)
        dtypes = tuple(t.dtypes[combo.index].ge for t in outputs)
        copies.append(InfershapeCase(f"infershape_{soc}_{label}", ins, dtypes, "GRAPH_SUCCESS",
                                     tuple(_dims(own) for _ in outputs), soc=brc.copy_soc))
    return branch + tuple(copies)


def _with_absent(cases: tuple[InfershapeCase, ...], inputs: list[TensorPlan], absent: TensorPlan | None,
                 outputs: list[TensorPlan]) -> tuple[InfershapeCase, ...]:
    if absent is None:
        return cases
    return cases + tuple(absent_infershape_cases(list(cases[:1]), inputs, absent, outputs))


def _infershape_cases(spec: OpSpec, inputs: list[TensorPlan], outputs: list[TensorPlan],
                      combos: tuple[DtypeCombination, ...], source: int) -> tuple[InfershapeCase, ...]:
    """The output takes the shape of input `source` (InferShape4Elewise copies input 0): static per dtype
    combination, then dynamic (-1), unknown rank (-2), empty and, where the spec lets inputs broadcast, a
    broadcast input. No scalar case: the executor's outputs start as scalar shapes, so it could not fail."""
    shape = spec.tests.shapes[0]
    last = shape[-1]
    variants: list[tuple[str, DtypeCombination, tuple[int, ...], tuple[int, ...] | None]] = [
        (f"static_{c.label}", c, shape, None) for c in combos]
    first = combos[0]
    variants += [("dynamic_dims", first, (-1, last), None), ("unknown_rank", first, (-2,), None),
                 ("empty", first, (0, last), None)]
    if spec.constraints.broadcast:
        variants.append(("broadcast_input", first, (4, last), (1, last)))
    broadcast = {t.index for t in inputs if t.name in spec.constraints.broadcast and t.index != source}
    cases = []
    for name, combo, dims, other in variants:
        ins = tuple(TensorCase(_dims(other if other is not None and t.index in broadcast else dims),
                               t.dtypes[combo.index].ge) for t in inputs)
        cases.append(InfershapeCase(f"infershape_{name}", ins, tuple(t.dtypes[combo.index].ge for t in outputs),
                                    "GRAPH_SUCCESS", tuple(_dims(dims) for _ in outputs)))
    return tuple(cases)


def _classic_cases(spec: OpSpec, soc: SocPlan, inputs: list[TensorPlan], outputs: list[TensorPlan],
                   combos: tuple[DtypeCombination, ...], platform: UtPlatform,
                   classic_cases: tuple[ClassicDtypeCase, ...]) -> list[TilingCase]:
    """The classic tiling: an aligned share per core, a UB tile from the key's per-dtype bits per element."""
    ub = platform.ub_size - (LOCAL_RESERVED_UB if soc.name == "ascend910b" else 0)
    lib = (LIB_WORKSPACE_BY_ARCH.get(platform.npu_arch, LIB_WORKSPACE_DEFAULT) if platform.npu_arch
           else LIB_WORKSPACE_NO_ARCH)
    cases = []
    for combo in combos:
        row = classic_case(classic_cases, soc.name, combo.key.name)
        assert row is not None, f"no classic tiling row for {soc.name} {combo.key.name}"
        # an empty tensor succeeds on one core that copies nothing, as ops-nn's hand-written classic tilings do
        # (hard_swish_grad_v2: op_host/arch22 and arch35, asserted by its tests/ut/op_host/arch35)
        empty = (("empty_tensor", (0, spec.tests.shapes[0][-1])),) if combo is combos[0] else ()
        for label, shape in (*_tiling_shapes(spec, platform), *empty):
            total = prod(shape)
            tiling = classic_tiling(total, row.bits, platform.core_num, ub, row.ub_fixed_bytes)
            name = f"tiling_{label}" if label == "empty_tensor" else f"tiling_{combo.label}_{label}"
            cases.append(TilingCase(
                name, _descs(inputs, combo, shape), _descs(outputs, combo, shape), "GRAPH_SUCCESS",
                soc.selected_key or 0, tiling.used_cores, "".join(f"{w} " for w in tiling.fields), (),
                f"{lib + spec.tiling.workspace_bytes}", classic_fields=tiling.fields))
    return cases


def _arch35_cases(spec: OpSpec, inputs: list[TensorPlan], outputs: list[TensorPlan],
                  combos: tuple[DtypeCombination, ...], platform: UtPlatform, min_bits: int) -> list[TilingCase]:
    """opbase ElewiseTiling's core split (it depends on the element count, the core count and the DAG's
    narrowest dtype); the UB split also depends on the DAG's live-buffer count, which atvoss derives at
    compile time and is not computed here (the UT checks its invariants instead)."""
    # ElewiseBaseTiling always sets schMode 1; a spec without it gets an expected key the tiling cannot
    # produce (it returns INVALID_TILING_KEY), so the UT fails as the kernel could not be selected
    modes = spec.tiling.sch_modes
    sch_index = modes.index(ELEWISE_SCHEDULE_MODE) if ELEWISE_SCHEDULE_MODE in modes else 0
    sch_bits = max(1, max(spec.tiling.sch_modes).bit_length())
    cases = []
    for combo in combos:
        for label, shape in _tiling_shapes(spec, platform):
            dim0 = prod(shape)
            cores = min(_ceil_div(dim0 * min_bits, ELEWISE_MIN_BITS_PER_CORE), platform.core_num)
            former = _ceil_div(_ceil_div(dim0, cores), ELEWISE_CACHE_LINE) * ELEWISE_CACHE_LINE
            blocks = _ceil_div(dim0, former)
            fields = (("dim0", dim0), ("coreNum", cores), ("blockFormer", former), ("blockNum", blocks),
                      ("scheMode", ELEWISE_SCHEDULE_MODE))
            cases.append(TilingCase(
                f"tiling_{combo.label}_{label}", _descs(inputs, combo, shape), _descs(outputs, combo, shape),
                "GRAPH_SUCCESS", sch_index | combo.tpl_code << sch_bits, blocks, "", fields,
                f"{spec.tiling.workspace_bytes}",
                ub_align=256 * 8 // min(_kernel_bits(t, combo) for t in (*inputs, *outputs) if t.read_by_kernel)))
    return cases


def _broadcast_infershape_cases(spec: OpSpec, inputs: list[TensorPlan], outputs: list[TensorPlan],
                                combo: DtypeCombination, brc: BroadcastPlan) -> tuple[InfershapeCase, ...]:
    cases = []
    for label, shapes, out in broadcast_infershape_shapes(spec, [t.name for t in inputs], brc):
        ins = tuple(TensorCase(_dims(s), t.dtypes[combo.index].ge) for t, s in zip(inputs, shapes, strict=True))
        dtypes = tuple(t.dtypes[combo.index].ge for t in outputs)
        cases.append(InfershapeCase(f"infershape_broadcast_{label}", ins, dtypes,
                                    "GRAPH_FAILED" if out is None else "GRAPH_SUCCESS",
                                    () if out is None else (_dims(out),)))
    return tuple(cases)


def _broadcast_cases(spec: OpSpec, tensors: tuple[TensorPlan, ...], brc: BroadcastPlan,
                     combos: tuple[DtypeCombination, ...], platform: UtPlatform) -> list[TilingCase]:
    """BroadcastBaseTiling: its schedule as the TPL key (index in the kernel's schMode list, dType above it)."""
    inputs = [t for t in tensors if t.role == "input"]
    outputs = [t for t in tensors if t.role == "output"]
    sch_bits = max(brc.sch_modes).bit_length()
    cases = []
    for combo in combos:
        for case in broadcast_tiling_cases(spec, tensors, brc, combo, platform.core_num):
            ins = tuple(TensorCase(_dims(s), t.dtypes[combo.index].ge)
                        for t, s in zip(inputs, case.shapes, strict=True))
            cases.append(TilingCase(
                f"tiling_{combo.label}_{case.label}", ins, _descs(outputs, combo, case.out_shape), "GRAPH_SUCCESS",
                brc.sch_modes.index(case.sch_mode) | combo.tpl_code << sch_bits, case.block_dim, "", case.fields,
                f"{DEFAULT_TILING_WORKSPACE_SIZE}"))
    first, shape = combos[0], spec.tests.shapes[0]
    wider = (*shape[:-1], shape[-1] + 1)
    ins = tuple(TensorCase(_dims(wider if t.name == brc.brc_inputs[0] else shape), t.dtypes[first.index].ge)
                for t in inputs)
    cases.append(TilingCase(f"tiling_{brc.brc_inputs[0]}_not_broadcastable", ins, _descs(outputs, first, shape),
                            "GRAPH_FAILED"))
    return cases


def _failing_cases(spec: OpSpec, inputs: list[TensorPlan], outputs: list[TensorPlan],
                   combos: tuple[DtypeCombination, ...], empty_fails: bool) -> list[TilingCase]:
    """Inputs the tiling must refuse: a dtype no combination has, mixed dtypes, the shapes the spec's constraints
    forbid and, with `empty_fails` (the atvoss tilings: opbase's ElewiseTiling and BroadcastBaseTiling refuse a 0
    dim, and ops-nn's UTs of atvoss ops assert it, e.g. elu_grad_v2's test_tiling_failed_empty_tensor_006), an
    empty tensor."""
    first = combos[0]
    shape = spec.tests.shapes[0]
    known = {t.dtypes[c.index].ge for c in combos for t in (*inputs, *outputs)}
    foreign = [d for d in ("DT_DOUBLE", "DT_INT64", "DT_COMPLEX64", "DT_STRING") if d not in known][:1]
    cases = [
        *(TilingCase("tiling_unsupported_dtype", tuple(TensorCase(_dims(shape), d) for _ in inputs),
                     tuple(TensorCase(_dims(shape), d) for _ in outputs), "GRAPH_FAILED") for d in foreign),
    ]
    if empty_fails:
        cases.append(TilingCase("tiling_empty_tensor", _descs(inputs, first, (0, shape[-1])),
                                _descs(outputs, first, (0, shape[-1])), "GRAPH_FAILED"))
    other = next((c for c in combos if c.key.ge != first.key.ge), None)
    same = [t for t in inputs if t.name in spec.constraints.same_dtype]
    if other is not None and same:
        mixed = tuple(TensorCase(_dims(shape), (other if t is same[0] else first).dtypes[t.index].ge)
                      for t in inputs)
        cases.append(TilingCase("tiling_mixed_dtypes", mixed, _descs(outputs, first, shape), "GRAPH_FAILED"))
    rule = spec.constraints.last_dim_multiple_of
    if rule is not None:
        bad = (*shape[:-1], shape[-1] + 1)
        cases.append(TilingCase(f"tiling_last_dim_not_multiple_of_{rule.multiple}", _descs(inputs, first, bad),
                                _descs(outputs, first, bad), "GRAPH_FAILED"))
    if len(spec.constraints.same_shape) > 1:
        odd = spec.constraints.same_shape[1]
        wider = (*shape[:-1], shape[-1] * 2)
        ins = tuple(TensorCase(_dims(wider if t.name == odd else shape), t.dtypes[first.index].ge) for t in inputs)
        cases.append(TilingCase(f"tiling_{odd}_shape_mismatch", ins, _descs(outputs, first, shape), "GRAPH_FAILED"))
    return cases


def _tiling_shapes(spec: OpSpec, platform: UtPlatform) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The spec's first test shape, and one large enough to need every core and several UB tiles."""
    shape = spec.tests.shapes[0]
    rows = platform.core_num * 16
    return (("test_shape", shape), ("all_cores", (rows, *shape[1:-1], max(shape[-1], 1024))))


def _descs(tensors: list[TensorPlan], combo: DtypeCombination, shape: tuple[int, ...]) -> tuple[TensorCase, ...]:
    return tuple(TensorCase(_dims(shape), t.dtypes[combo.index].ge) for t in tensors)


def _kernel_bits(tensor: TensorPlan, combo: DtypeCombination) -> int:
    """Bits one element takes where the kernel holds it: a bit mask is copied in as bytes."""
    return max(8, tensor.dtypes[combo.index].size_bits)


def _ceil_div(value: int, divisor: int) -> int:
    return -(-value // divisor)


def _dims(shape: tuple[int, ...]) -> str:
    return ", ".join(map(str, shape))


def _camel(soc: str) -> str:
    return "".join(part.capitalize() for part in soc.split("_"))
