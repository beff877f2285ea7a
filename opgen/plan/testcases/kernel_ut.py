"""The kernel UT (`tests/ut/op_kernel`): cases, their tiling data, and the data scripts' facts.

ops-nn's kernel UT copies `<op>_data/` from the checkout into the test's working dir and runs
`python3 gen_data.py ...` and `python3 compare_data.py ...` there (kernel_ut::SetupTestEnvironment,
RunGenData, RunCompareData); a script exiting non-zero fails the case. So gen_data.py looks for the golden
where that copy can find it (OPS_NN_ROOT, the checkout above the working dir, the op dir beside the
script) and exits 2 naming every place it looked; compare_data.py compares with the spec's tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

from ...spec.models import OpSpec
from ...spec.socs import BY_REPEAT_ARCHES, SOCS
from ..kernel.broadcast import SCH_MODE_ONE_DIM, SCH_MODE_ONE_DIM_ADVANCE, BroadcastPlan, one_dim_advance
from ..kernel.classic_tiling import TILING_FIELDS
from ..registry.attrs import KernelScalars
from ..registry.choice import ChoicePlan
from ..registry.platforms import SocPlan
from ..registry.tensors import DtypeCombination, TensorPlan

UT_WORKSPACE_BYTES = 16 * 1024 * 1024
TILE = 256  # elements per UB tile in the multi-tile cases: a multiple of every alignment the kernels need
MULTI_CORES = 2
# schMode 202 (BroadcastOneDimAdvanceSch) builds no TPipe; an API popping a temporary from the pipe's stack there
# (Erf) asserts on the null pipe in CPU debug, which the NPU build compiles out: the launch gets an empty one, as the
# kernel tier's does (check/kernel/tpl_launch.py)
ABSENT_PIPE = "AscendC::TPipe absentPipe; "
ABSENT_PIPE_WHY = "; absentPipe stands in for the TPipe the schedule does not build (CPU debug asserts on a null one)"
# opbase broadcast_base_struct.h: the tiling data BroadcastSch reads for same-shape inputs (collapsed to one dim)
ONE_DIM_STRUCTS = {SCH_MODE_ONE_DIM: "BroadcastOneDimTilingData",  # with the DAG's scalars (SetScalar)
                   SCH_MODE_ONE_DIM_ADVANCE: "BroadcastOneDimTilingDataAdvance"}


@dataclass(frozen=True)
class KernelUtCase:
    name: str
    why: str
    dtype: str  # the first output's dtype, as gen_data.py and compare_data.py take it
    soc_version: str  # the golden variant (short SoC version)
    shape_arg: str  # gen_data.py's shape argument, shell-quoted
    elements: int
    block_dim: int
    tiling_fields: tuple[tuple[str, int | str], ...]  # (field, value or C++ literal)
    setup: tuple[str, ...]  # statements before ICPU_RUN_KF (tiling key, kernel mode)
    kernel_call: str  # the entry the lambda calls
    buffers: tuple[tuple[str, str], ...]  # (kernel argument, byte size expression)
    gen_args: tuple[str, ...] = ()  # gen_data.py's attr arguments (`approximate=tanh`): the golden's other math
    kernel_prelude: str = ""  # a statement the launch lambda runs before the kernel


@dataclass(frozen=True)
class KernelUtPlan:
    socs: tuple[SocPlan, ...]  # SoCs with a kernel-UT name (AddOpTestCase)
    flags: str  # -DDTYPE_<T>=<type> of the first combination
    includes: tuple[str, ...]  # arch35: the template kernel's source, instantiated in the UT as upstream's apt UTs
    # do; classic: its tiling data struct alone
    declarations: tuple[str, ...]  # classic: the extern "C" entry, which AddOpTestCase compiles from its own copy
    tiling_struct: str
    data_dir: str  # the data dir relative to the ops-nn root, as SetupTestEnvironment takes it
    golden_rel: str  # tests/assets/golden.py relative to the ops-nn root
    workspace_bytes: int
    gen_data_inputs: tuple[tuple[str, str], ...]  # (input, NumPy expression making it)
    outputs: tuple[str, ...]
    tolerances: tuple[tuple[str, float, float], ...]  # (dtype, rtol, atol) compare_data.py applies
    cases: tuple[KernelUtCase, ...]

    @property
    def outputs_literal(self) -> str:
        """The output names as a Python list literal for the data scripts."""
        return repr(list(self.outputs))


def kernel_ut_plan(
    spec: OpSpec, dag: bool, kernel: tuple[str, str], rel_dir: str, tensors: tuple[TensorPlan, ...],
    combos: tuple[DtypeCombination, ...], socs: tuple[SocPlan, ...], scalars: KernelScalars,
    choice: ChoicePlan | None = None, brc: BroadcastPlan | None = None,
) -> KernelUtPlan:
    name = spec.snake_name
    shape = spec.tests.shapes[0]
    elements = 1
    for dim in shape:
        elements *= dim
    inputs = [t for t in tensors if t.role == "input"]
    low, high = spec.tests.value_range
    if dag:
        mode = None if brc is None else SCH_MODE_ONE_DIM_ADVANCE if one_dim_advance(spec, tensors) else SCH_MODE_ONE_DIM
        struct = scalars.tiling_struct if mode is None else ONE_DIM_STRUCTS[mode]
        case = partial(_arch35_case if mode is None else partial(_broadcast_case, mode=mode), name, shape=shape,
                       elements=elements, tensors=tensors, scalars=scalars)
        # gen_data.py takes one dtype for every tensor: mixed combinations are left to the kernel and numerics tiers
        # each combination on the first of the family's SoCs that supports it
        runs = [(c, next(s for s in socs if c in s.combinations)) for c in combos
                if c.label == c.key.name and any(c in s.combinations for s in socs)]
        picked = f", {choice.default.tpl}" if choice else ""  # gen_data.py's golden runs the default value
        cases = [case(combo=c, soc=soc, cores=1, picked=picked) for c, soc in runs]
        cases.append(case(combo=socs[0].combinations[0], soc=socs[0], cores=MULTI_CORES, picked=picked))
        # every other value of the attr choosing the math, on the first combination: its DAG against its golden
        others = [v for v in choice.values if v != choice.default] if choice and runs else []
        attr = choice.attr.name if choice else ""
        cases += [replace(case(combo=runs[0][0], soc=runs[0][1], cores=1, picked=f", {v.tpl}"),
                          name=f"{name}_{runs[0][0].key.name}_{v.label}", gen_args=(f"{attr}={v.value}",))
                  for v in others]
    else:
        struct = f"{spec.op_type}TilingData"
        # a BY_REPEAT_ARCHES key's kernel builds for __CCE_AICORE__ 100 alone, a SoC ops-nn's kernel UTs have none
        # of (cmake/func.cmake map_compute_unit)
        cases = [_classic_case(name, soc.combinations[0], soc, shape, elements, cores, tensors, scalars)
                 for soc in socs if SOCS[soc.name].npu_arch not in BY_REPEAT_ARCHES for cores in (1, MULTI_CORES)]
    return KernelUtPlan(
        socs=tuple(s for s in socs if s.kernel_ut_soc),
        flags=" ".join(f"-D{t.macro}={t.dtypes[0].kernel}" for t in tensors),
        includes=(kernel[0],) if dag else (f"{kernel[1]}/{name}_tiling_data.h",),
        declarations=() if dag else (f'extern "C" __global__ __aicore__ void {name}('
                                     f'{", ".join(f"GM_ADDR {t.name}" for t in tensors)}, GM_ADDR workspace, '
                                     "GM_ADDR tiling);",),
        tiling_struct=struct, data_dir=f"{rel_dir}/tests/ut/op_kernel/{name}_data",
        golden_rel=f"{rel_dir}/tests/assets/golden.py",
        workspace_bytes=max(spec.tiling.workspace_bytes, UT_WORKSPACE_BYTES),
        gen_data_inputs=tuple(
            (t.name, "rng.integers(0, 256, size=(int(np.prod(shape)) + 7) // 8, dtype=np.uint8)" if t.is_mask
             else f"sample(rng, {low!r}, {high!r}, shape, dtype)")
            for t in inputs
        ),
        outputs=tuple(t.name for t in tensors if t.role == "output"),
        tolerances=tuple((d, tol.rtol, tol.atol) for d, tol in spec.golden.tolerances.items()),
        cases=tuple(cases),
    )


def _split(elements: int, cores: int) -> tuple[int, int, int]:
    """(per-core elements of all but the last core, last core's elements, cores used), tile aligned."""
    if cores == 1:
        return elements, elements, 1
    per_core = -(-elements // cores)
    former = -(-per_core // TILE) * TILE
    used = -(-elements // former)
    return former, elements - (used - 1) * former, used


def _buffers(tensors: tuple[TensorPlan, ...], elements: int, combo: DtypeCombination) -> tuple[tuple[str, str], ...]:
    return tuple(
        (t.camel, f"({elements} + 7) / 8" if t.is_bits else f"{elements} * sizeof({t.dtypes[combo.index].kernel})")
        for t in tensors
    )


def _shape_arg(shape: tuple[int, ...]) -> str:
    return "'(" + ", ".join(map(str, shape)) + ",)'"


def _one_loop_ub_former(former: int, combo: DtypeCombination) -> int:
    """A ubFormer giving each core one UB loop that asc-devkit's CPU-debug size check accepts: atvoss's elementwise
    schedules build each LocalTensor with `blockLen / sizeof(T)` (elements) where the check reads bytes, so a
    DataCopyPad of n elements of T aborts the CPU run unless ubFormer * MaxDtypeBytes / sizeof(T) >= n * sizeof(T),
    which n * (the widest tensor's bytes) satisfies. Several loops of ubFormer elements cannot: the kernel tier
    (which passes over the check, as the NPU build compiles it out) runs those."""
    widest = max(d.size_bits for d in combo.dtypes) // 8 or 1
    return -(-former * widest // TILE) * TILE


def _arch35_case(name: str, *, combo: DtypeCombination, soc: SocPlan, shape: tuple[int, ...], elements: int,
                 cores: int, tensors: tuple[TensorPlan, ...], scalars: KernelScalars, picked: str) -> KernelUtCase:
    """The base tiling's fields (inside the attrs' struct, if the recipe reads attrs), then each attr's default
    (the golden gen_data.py runs takes the defaults)."""
    former, tail, used = _split(elements, cores)
    ub = _one_loop_ub_former(former, combo)
    loops = (-(-former // ub), -(-tail // ub))
    base = (("dim0", elements), ("coreNum", used), ("blockNum", used), ("blockFormer", former),
              ("ubFormer", ub), ("ubLoopOfFormerBlock", loops[0]), ("ubLoopOfTailBlock", loops[1]),
              ("ubTailOfFormerBlock", former - (loops[0] - 1) * ub), ("ubTailOfTailBlock", tail - (loops[1] - 1) * ub),
              ("elemNum", ub), ("scheMode", 0))
    fields: tuple[tuple[str, int | str], ...] = tuple((scalars.base_member + f, v) for f, v in base) + tuple(
        (a.field, a.default) for a in scalars.attrs)
    label = f"{used}_cores" if used > 1 else "1_core"
    return KernelUtCase(
        f"{name}_{combo.key.name}_{label}", f"{combo.key.name}, {used} core(s), {loops[0]} UB loop(s) per core",
        combo.key.name, soc.short_version, _shape_arg(shape), elements, used, fields,
        ("AscendC::SetKernelMode(KernelMode::AIV_MODE);",), f"::{name}<0, {combo.tpl}{picked}>",
        _buffers(tensors, elements, combo),
    )


def _broadcast_case(name: str, *, combo: DtypeCombination, soc: SocPlan, shape: tuple[int, ...], elements: int,
                    cores: int, tensors: tuple[TensorPlan, ...], scalars: KernelScalars, picked: str,
                    mode: int) -> KernelUtCase:
    """Same-shape inputs, which BroadcastBaseTiling collapses to one dim, in the one-dim schedule's tiling data as
    its kernel reads it (atvoss broadcast_sch_one_dim.h, broadcast_sch_one_dim_advance.h): UB tiles of `tile`
    elements, `former` tiles a block; the plain schedule also carries the attrs in SetScalar's order and layout."""
    tile = TILE if cores > 1 else -(-elements // TILE) * TILE
    outer = -(-elements // tile)
    former = -(-outer // cores)
    used = -(-outer // former)
    fields: tuple[tuple[str, int | str], ...] = (
        (("dimLen", elements), ("tileNum", tile), ("blockNum", used), ("scalarFlag", 0))
        if mode == SCH_MODE_ONE_DIM_ADVANCE else
        (("scalarFlag", 0), ("ubSplitAxis", 0), ("ubFormer", tile), ("ubTail", elements - (outer - 1) * tile),
         ("blockNum", used), ("blockFormer", former), ("blockTail", outer - (used - 1) * former)))
    # each attr as a float, in DAG Var order, as the host's SetScalar<float> calls lay them out (KernelScalars)
    scalars_set = tuple(f"*reinterpret_cast<float*>(tilingData->scalarData + {4 * i}) = static_cast<float>("
                        f"{a.default});" for i, a in enumerate(scalars.attrs)) if mode == SCH_MODE_ONE_DIM else ()
    label = f"{used}_cores" if used > 1 else "1_core"
    no_pipe = mode == SCH_MODE_ONE_DIM_ADVANCE
    return KernelUtCase(
        f"{name}_{combo.key.name}_{label}",
        f"{combo.key.name}, {used} core(s), {former} UB loop(s) per core, BroadcastSch schedule {mode} (same "
        f"shapes collapse to one dim){ABSENT_PIPE_WHY if no_pipe else ''}", combo.key.name, soc.short_version,
        _shape_arg(shape), elements, used, fields,
        (*scalars_set, "AscendC::SetKernelMode(KernelMode::AIV_MODE);"), f"::{name}<{mode}, {combo.tpl}{picked}>",
        _buffers(tensors, elements, combo), kernel_prelude=ABSENT_PIPE if no_pipe else "",
    )


def _classic_case(name: str, combo: DtypeCombination, soc: SocPlan, shape: tuple[int, ...], elements: int,
                  cores: int, tensors: tuple[TensorPlan, ...], scalars: KernelScalars) -> KernelUtCase:
    former, tail, used = _split(elements, cores)
    tile = TILE if cores > 1 else min(elements, TILE)
    fields: tuple[tuple[str, int | str], ...] = (
        *zip(TILING_FIELDS, (elements, former, tail, tile), strict=True),
        *((a.field, a.default) for a in scalars.attrs))
    return KernelUtCase(
        f"{name}_{combo.key.name}_{soc.name}_{used}_core{'s' if used > 1 else ''}",
        f"{combo.key.name} with {soc.name}'s math (tiling key {soc.tiling_key}), {used} core(s), "
        f"{-(-former // tile)} tile(s) per core",
        combo.key.name, soc.short_version, _shape_arg(shape), elements, used, fields,
        (f"ICPU_SET_TILING_KEY({soc.tiling_key});", "AscendC::SetKernelMode(KernelMode::AIV_MODE);"), f"::{name}",
        _buffers(tensors, elements, combo),
    )
