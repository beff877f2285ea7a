"""The run level of the kernel tier: each kernel (classic, or arch35 DAG on an ElementwiseSch), built from the tree's
op_kernel sources with opgen's CPU model, runs on the CPU for every SoC and dtype combination and is compared with
the golden.

Per (SoC, dtype) one row. Shapes: one element, a tail that is not a multiple of 32 bytes spread over several
cores, and one with several UB tiles on every core. Inputs: uniform in the spec's ST value range, with the
dtype's edge values (zeros, infinities, NaN, limits) in the first elements. GM holds every tensor between
guard bytes (a UB size each); any byte the kernel changes outside its output tensors fails the row, as does
an output element outside the spec's tolerance of the golden (opgen's recipe, as the golden.py it renders
computes it). Tiling values come from the plan (`classic_tiling`, the formula the rendered tiling code uses;
arch35 DAG kernels: `dag_run.elewise_tiling`) with the SoC's core count and UB size from the runtime repo's platform
config, or opgen's SoC table where that repo has no ini for the SoC (Ascend950). Building and running are tree
code: both only with `Trust.allow_exec`, the run through `run_tree_code`.
"""

from __future__ import annotations

import configparser
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...cann_sources import CannSources, enable_hint
from ...plan import RenderPlan
from ...plan.attr_cases import classic_tiling_bytes
from ...plan.attrs import AttrValue, attr_settings
from ...plan.classic import classic_tiling
from ...plan.families import ub_scratch_bytes
from ...plan.platforms import SocPlan
from ...spec.models import OpSpec
from ...spec.socs import SOCS
from ..items import CheckItem, bad, ok, skipped
from ..trust import Trust, run_tree_code
from .build import KernelVariant, kernel_variants
from .dag_run import DESCRIBE, elewise_tiling, launches, parse_facts, sch_mode, tiling_bytes
from .dag_run import TILING_SOURCE as DAG_TILING_SOURCE
from .launch import SATURATED, SATURATING_ARCHES, Launch, ShapeRun, run_shape
from .run_build import KernelBuild, build_kernel

LEVEL = "run"
TAIL_SHAPE = (3, 1001)  # 3003 elements: several cores, a last core whose bytes are no multiple of 32
TILES_PER_CORE = 2.5  # the large shape gives every core this many UB tiles
PLATFORM_CONFIG = "src/platform/platform_config/cann"
# PlatformAscendC::GetCoreMemSize takes this off the UB of Ascend910B (kfc buffers), so the tiling sees less
UB_RESERVED = {"ascend910b": 256}
TILING_SOURCE = "tiling from the plan"
ARCH_WITHOUT_INI = 3510  # the runtime repo ships no Ascend950 ini: its cores and UB come from opgen's SoC table


@dataclass(frozen=True)
class SocFacts:
    vector_cores: int
    ub_bytes: int
    source: str = "the runtime repo's platform config"


def kernel_run_rows(op_dir: Path, spec: OpSpec, plan: RenderPlan, sources: CannSources | None,
                    trust: Trust, *, seed: int = 0) -> list[CheckItem]:
    """The run rows of the kernel tier for one op dir."""
    variants = kernel_variants(plan)
    labels = [f"{v.label} {LEVEL}" if isinstance(v, KernelVariant) else f"{v[0]} {LEVEL}" for v in variants]
    if sources is None:
        return [skipped(label, enable_hint("kernel")) for label in labels]
    absent = sources.missing("kernel")
    if absent:
        return [skipped(label, "missing: " + "; ".join(absent)) for label in labels]
    if not trust.allow_exec:
        refusal = trust.refusal("a kernel built from the tree's op_kernel sources")
        return [skipped(label, refusal) for label in labels]
    socs = {s.name: s for s in plan.socs}
    rows = []
    for v, label in zip(variants, labels, strict=True):
        if not isinstance(v, KernelVariant):
            rows.append(skipped(label, v[1]))
        elif v.family.is_dag:
            rows.append(_dag_row(op_dir.resolve(), spec, plan, sources, socs[v.soc], v, label, seed))
        else:
            rows.append(_row(op_dir.resolve(), spec, plan, sources, socs[v.soc], v, label, seed))
    return rows


def soc_facts(sources: CannSources, soc: SocPlan) -> SocFacts | None:
    """Vector cores and UB bytes (as PlatformAscendC reports them to the tiling) from the runtime repo's platform
    config of the SoC's first model."""
    wanted = f"{soc.kernel_ut_soc or soc.short_version + '1'}.ini".lower()
    inis = [p for p in sorted((sources.repo("runtime") / PLATFORM_CONFIG).glob("*.ini")) if p.name.lower() == wanted]
    if not inis:
        table = SOCS.get(soc.name)
        return None if table is None or table.npu_arch != ARCH_WITHOUT_INI else SocFacts(
            table.vector_cores, table.ub_bytes, f"opgen/spec/socs.py (the runtime repo has no {wanted})")
    ini = inis[0]
    config = configparser.ConfigParser()
    config.read(ini)
    try:
        return SocFacts(int(config["SoCInfo"]["vector_core_cnt"]),
                        int(config["AICoreSpec"]["ub_size"]) - UB_RESERVED.get(soc.name, 0))
    except (KeyError, ValueError):
        return None


def run_shapes(facts: SocFacts, tile: int) -> tuple[tuple[int, ...], ...]:
    """One element; the tail shape; a shape giving every core several tiles."""
    rows = -(-int(facts.vector_cores * tile * TILES_PER_CORE) // TAIL_SHAPE[1])
    return ((1,), TAIL_SHAPE, (rows, TAIL_SHAPE[1]))


def _row(op_dir: Path, spec: OpSpec, plan: RenderPlan, sources: CannSources, soc: SocPlan,
         variant: KernelVariant, label: str, seed: int) -> CheckItem:
    combo = variant.combination
    facts = soc_facts(sources, soc)
    if facts is None:
        return skipped(label, f"not run: no platform config {soc.short_version}1.ini in the runtime repo")
    golden = next((v for v in plan.golden.variants if soc.short_version in v.socs), None)
    case = next((c for c in plan.classic_dtype_cases if c.dtype == combo.key), None)
    if golden is None or case is None:
        return bad(label, f"the plan has no golden variant or tiling case for {soc.name} {combo.key.name}")
    build = build_kernel(sources, variant, op_dir, plan)
    if build.executable is None:
        return _unbuilt(label, variant, build)
    rng = np.random.default_rng(seed)
    scratch = ub_scratch_bytes(spec, next(p.kernel for p in spec.platforms if p.soc == soc.name))
    tile = classic_tiling(1, case.bits, facts.vector_cores, facts.ub_bytes, scratch).tile_data_num
    defaults, *others = attr_settings(spec)

    def launch(shape: tuple[int, ...], attrs: Mapping[str, AttrValue]) -> Launch:
        tiling = classic_tiling(int(np.prod(shape)), case.bits, facts.vector_cores, facts.ub_bytes, scratch)
        return Launch(tiling.used_cores, soc.tiling_key or 0, classic_tiling_bytes(tiling.fields, plan.scalars, attrs))

    saturating = variant.arch.npu_arch in SATURATING_ARCHES
    runs = [run_shape(build.executable, spec, plan, combo, golden, shape, facts.ub_bytes, launch(shape, attrs), rng,
                      attrs, saturating=saturating)
            for shape, attrs in [(s, defaults) for s in run_shapes(facts, tile)] + [(TAIL_SHAPE, a) for a in others]]
    return _summary(label, plan, variant, runs, TILING_SOURCE)


def _dag_row(op_dir: Path, spec: OpSpec, plan: RenderPlan, sources: CannSources, soc: SocPlan,
             variant: KernelVariant, label: str, seed: int) -> CheckItem:
    """An ElementwiseSch kernel: each shape launched on the path its dtype selects, tiled by ElewiseTiling."""
    if plan.broadcast is not None:
        return skipped(label, "not run: BroadcastSch kernels need the broadcast tiling, not modelled by the run yet")
    paths = [p for p in launches(plan, variant) if not p.without_input]
    if len(paths) != 1:
        return skipped(label, f"not run: {len(paths)} kernel paths with every input for this dtype (an attr choosing "
                              "the math); the run launches one path per dtype so far")
    facts = soc_facts(sources, soc)
    golden = next((v for v in plan.golden.variants if soc.short_version in v.socs), None)
    if facts is None or golden is None:
        return bad(label, f"no platform facts or golden variant for {soc.name}")
    build = build_kernel(sources, variant, op_dir, plan)
    if build.executable is None:
        return _unbuilt(label, variant, build)
    described = run_tree_code([str(build.executable), DESCRIBE], timeout=60.0, files={})
    dag = parse_facts(described.stdout).get(paths[0].key)
    if dag is None:
        return bad(label, f"the built kernel did not describe its DAG: {described.stderr.strip()[-200:]}")
    rng = np.random.default_rng(seed)
    defaults, *others = attr_settings(spec)

    def launch(shape: tuple[int, ...], attrs: Mapping[str, AttrValue]) -> Launch:
        fields = elewise_tiling(int(np.prod(shape)), facts.vector_cores, facts.ub_bytes, dag, sch_mode(plan))
        return Launch(fields["blockNum"], paths[0].key, tiling_bytes(fields, plan.scalars, attrs))

    ub_former = elewise_tiling(1, facts.vector_cores, facts.ub_bytes, dag, 0)["ubFormer"]
    tail = (TAIL_SHAPE[0], -(-TAIL_SHAPE[1] // plan.last_dim_multiple) * plan.last_dim_multiple)
    rows = -(-int(facts.vector_cores * ub_former * TILES_PER_CORE) // tail[1])
    shapes = [(plan.last_dim_multiple,), tail, (rows, tail[1])]
    saturating = variant.arch.npu_arch in SATURATING_ARCHES
    runs = [run_shape(build.executable, spec, plan, variant.combination, golden, shape, facts.ub_bytes,
                      launch(shape, attrs), rng, attrs, saturating=saturating)
            for shape, attrs in [(s, defaults) for s in shapes] + [(tail, a) for a in others]]
    return _summary(label, plan, variant, runs, f"{DAG_TILING_SOURCE}; cores and UB from {facts.source}")


def _unbuilt(label: str, variant: KernelVariant, build: KernelBuild) -> CheckItem:
    """No executable: SKIPPED naming what the model lacks, else FAIL with why."""
    return skipped(label, _not_modelled(variant, build.missing)) if build.missing else bad(label, build.problem)


def _summary(label: str, plan: RenderPlan, variant: KernelVariant, runs: list[ShapeRun], tiling: str) -> CheckItem:
    problems = [p for r in runs for p in r.problems]
    figures: dict[str, float | int | str] = {
        "max_abs": max(r.max_abs for r in runs), "max_rel": max(r.max_rel for r in runs),
        "shapes": ";".join("x".join(map(str, r.shape)) for r in runs),
        "cores": ";".join(str(r.cores) for r in runs), "tiling": tiling}
    narrow = any(t.dtypes[variant.combination.index].name in ("float16", "bfloat16") for t in plan.outputs)
    saturated = f"; {SATURATED}" if variant.arch.npu_arch in SATURATING_ARCHES and narrow else ""
    if saturated:
        figures["overflow"] = "saturation"
    if problems:
        return bad(label, f"{variant.family.kernel_entry} on the CPU model: " + "; ".join(problems), **figures)
    unmodelled = sorted({u for r in runs for u in r.unmodelled})
    if unmodelled:
        return skipped(label, _not_modelled(variant, unmodelled))
    asserts = sum(r.asserts for r in runs)
    figures["cpu_debug_asserts"] = asserts
    noted = next((r.assert_text for r in runs if r.assert_text), "")
    passed_over = (f"; {asserts} asc-devkit CPU-debug assertion(s) passed over as the NPU build compiles them out, "
                   f"first: {noted}") if asserts else ""
    return ok(label, f"matches the golden on the CPU model ({tiling}{saturated}){passed_over}", **figures)


def _not_modelled(variant: KernelVariant, what: Sequence[str]) -> str:
    """A launch the model cannot run is no evidence either way: the row says what it lacks."""
    return (f"not run: the kernel reaches what the CPU model does not model on arch {variant.arch.npu_arch}: "
            f"{', '.join(what)} (see opgen/check/kernel/cpu_model/README.md)")
