"""The run level of the kernel tier: each kernel (classic, or arch35 DAG on an ElementwiseSch), built from the tree's
op_kernel sources with opgen's CPU model, runs on the CPU for every SoC and dtype combination and is compared with
the golden.

Per (SoC, dtype) one row. Shapes: one element, a tail that is not a multiple of 32 bytes spread over several
cores, and one with several UB tiles on every core. Inputs: uniform in the spec's ST value range, with the
dtype's edge values (zeros, infinities, NaN, limits) in the first elements. GM holds every tensor between
guard bytes (a UB size each); any byte the kernel changes outside its output tensors fails the row, as does
an output element outside the spec's tolerance of the golden (opgen's recipe, as the golden.py it renders
computes it), the golden variant being the one the attr choosing the math picks. Each launch's tiling key, block
dim, workspace and tiling data come from the tree's host tiling code run for that launch (`host_tiling`); where ops-nn's
tiling executor knows no platform for the SoC (ascend350), from the plan's formulas (`classic_tiling`,
`dag_run.elewise_tiling`), and the row says so. Cores and UB, for the host tiling and the run alike: the runtime
repo's platform config, or opgen's SoC table where that repo has no ini for the SoC (Ascend950). Building and
running are tree code: both only with `Trust.allow_exec`, the run through `run_tree_code`.
"""

from __future__ import annotations

import configparser
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...cann_sources import CannSources, enable_hint
from ...plan import RenderPlan
from ...plan.kernel.classic_tiling import classic_case, classic_tiling
from ...plan.kernel.split import SHAPE_MODES, SplitTiling
from ...plan.registry.attrs import AttrValue, attr_settings
from ...plan.registry.platforms import SocPlan
from ...plan.testcases.attr_cases import classic_tiling_bytes
from ...plan.testcases.golden import GoldenVariant
from ...plan.testcases.ophost_tests import UT_PLATFORMS
from ...spec.models import OpSpec
from ...spec.socs import SOCS
from ..items import CheckItem, bad, ok, skipped
from ..trust import Trust, run_tree_code
from .build import KernelVariant, kernel_variants
from .dag_run import DESCRIBE, elewise_tiling, launches, parse_facts, sch_mode, tiling_bytes
from .host_tiling import Wanted, host_launches
from .launch import SATURATED, SATURATING_ARCHES, GoldenPick, Launch, ShapeRun, Shapes, cost_figures, run_shape
from .oracle import LEVEL as ORACLE_LEVEL
from .oracle import oracle_row, upstream_dir
from .run_build import KernelBuild, build_kernel, entry_arg_count
from .split_run import split_wanted
from .tpl_launch import entry_launcher

LEVEL = "run"
TAIL_SHAPE = (3, 1001)  # 3003 elements: several cores, a last core whose bytes are no multiple of 32
TILES_PER_CORE = 2.5  # the large shape gives every core this many UB tiles
PLATFORM_CONFIG = "src/platform/platform_config/cann"
# PlatformAscendC::GetCoreMemSize takes this off the UB of Ascend910B (kfc buffers), so the tiling sees less
UB_RESERVED = {"ascend910b": 256}
PLAN_TILING = "tiling from the plan"
HOST_TILING = "tiling from the host code"
ARCH_WITHOUT_INI = 3510  # no Ascend950/350 ini in the runtime repo: ops-nn's UT platform, else opgen's SoC table


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
            rows += _dag_row(op_dir.resolve(), spec, plan, sources, socs[v.soc], v, label, seed)
        elif v.family.is_split:
            rows += _split_row(op_dir.resolve(), spec, plan, sources, socs[v.soc], v, label, seed)
        else:
            rows += _row(op_dir.resolve(), spec, plan, sources, socs[v.soc], v, label, seed)
    return rows


def soc_facts(sources: CannSources, soc: SocPlan) -> SocFacts | None:
    """Vector cores and UB bytes (as PlatformAscendC reports them to the tiling) from the runtime repo's platform
    config of the SoC's first model."""
    wanted = f"{soc.kernel_ut_soc or soc.short_version + '1'}.ini".lower()
    inis = [p for p in sorted((sources.repo("runtime") / PLATFORM_CONFIG).glob("*.ini")) if p.name.lower() == wanted]
    if not inis:
        platform = UT_PLATFORMS.get(soc.name)
        if platform is not None:  # ascend950: the platform ops-nn's own 950 UTs (and the generated ones) give
            return SocFacts(platform.core_num, platform.ub_size, f"the platform ops-nn's UTs give {soc.name} "
                            f"(CORE_NUM {platform.core_num}, UB_SIZE {platform.ub_size}; the runtime repo has no "
                            f"{wanted})")
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
         variant: KernelVariant, label: str, seed: int) -> list[CheckItem]:
    combo = variant.combination
    facts = soc_facts(sources, soc)
    if facts is None:
        return [skipped(label, f"not run: no platform config {soc.short_version}1.ini in the runtime repo")]
    golden = _golden(plan, soc)
    case = classic_case(plan.classic_dtype_cases, soc.name, combo.key.name)
    if golden is None or case is None:
        return [bad(label, f"the plan has no golden variant or tiling case for {soc.name} {combo.key.name}")]
    build = build_kernel(sources, variant, op_dir, plan)
    if build.executable is None:
        return [_unbuilt(label, variant, build)]
    rng = np.random.default_rng(seed)
    tile = classic_tiling(1, case.bits, facts.vector_cores, facts.ub_bytes, case.ub_fixed_bytes).tile_data_num
    defaults, *others = attr_settings(spec)

    def planned(shapes: Shapes, attrs: Mapping[str, AttrValue]) -> Launch:
        tiling = classic_tiling(int(np.prod(shapes.output)), case.bits, facts.vector_cores, facts.ub_bytes,
                                case.ub_fixed_bytes)
        return Launch(tiling.used_cores, soc.tiling_key or 0, classic_tiling_bytes(tiling.fields, plan.scalars, attrs))

    count = len(plan.inputs)
    wanted = [(Shapes.same(s, count), defaults) for s in run_shapes(facts, tile)]
    wanted += [(Shapes.same(TAIL_SHAPE, count), a) for a in others]
    tiled = _tiled(op_dir, spec, plan, variant, soc, facts, sources, wanted, planned)
    if isinstance(tiled, CheckItem):
        return [dataclasses.replace(tiled, item=label)]
    given, tiling_source = tiled
    saturating = variant.arch.npu_arch in SATURATING_ARCHES
    runs = [run_shape(build.executable, spec, plan, combo, golden(attrs, shapes.absent), shapes, facts.ub_bytes, launch,
                      rng, attrs, saturating=saturating) for (shapes, attrs), launch in zip(wanted, given, strict=True)]
    return [_summary(label, plan, variant, runs, f"{tiling_source}; cores and UB from {facts.source}"),
            *_oracle(label, spec, plan, sources, soc, variant, facts, wanted, runs, golden)]


def _dag_row(op_dir: Path, spec: OpSpec, plan: RenderPlan, sources: CannSources, soc: SocPlan,
             variant: KernelVariant, label: str, seed: int) -> list[CheckItem]:
    """A DAG kernel: each launch on the path its dtype and attrs select. ElementwiseSch: one element, a tail, several
    tiles on every core, and the tail and the tiles again without an optional input that may be absent (a null
    address, its own path); BroadcastSch: the broadcast patterns (`broadcast_shapes`)."""
    every = launches(plan, variant)
    paths = [p for p in every if not p.without_input]
    facts = soc_facts(sources, soc)
    golden = _golden(plan, soc)
    if facts is None or golden is None:
        return [bad(label, f"no platform facts or golden variant for {soc.name}")]
    build = build_kernel(sources, variant, op_dir, plan)
    if build.executable is None:
        return [_unbuilt(label, variant, build)]
    described = run_tree_code([str(build.executable), DESCRIBE], timeout=60.0, files={})
    dags = parse_facts(described.stdout)
    if described.failure is not None:
        return [bad(label, f"the built kernel, asked to describe its DAG, {described.failure}")]
    if any(p.key not in dags for p in every):
        return [bad(label, f"the built kernel did not describe its DAG: {described.stderr.strip()[-200:]}")]
    rng = np.random.default_rng(seed)
    defaults, *others = attr_settings(spec)
    tail = (TAIL_SHAPE[0], -(-TAIL_SHAPE[1] // plan.last_dim_multiple) * plan.last_dim_multiple)
    count = len(plan.inputs)
    if plan.broadcast is not None:
        patterns = broadcast_shapes(count, plan.broadcast.input_num, facts.vector_cores)
        wanted = [(s, defaults) for s in patterns] + [(patterns[-2], a) for a in others]
        planned = None
    else:
        def planned(shapes: Shapes, attrs: Mapping[str, AttrValue]) -> Launch:
            path = next(p for p in every if p.takes(plan, attrs) and p.without_input == bool(shapes.absent))
            fields = elewise_tiling(int(np.prod(shapes.output)), facts.vector_cores, facts.ub_bytes, dags[path.key],
                                    sch_mode(plan))
            return Launch(fields["blockNum"], path.key, tiling_bytes(fields, plan.scalars, attrs))

        dag = dags[next(p for p in paths if p.takes(plan, defaults)).key]
        ub_former = elewise_tiling(1, facts.vector_cores, facts.ub_bytes, dag, 0)["ubFormer"]
        rows = -(-int(facts.vector_cores * ub_former * TILES_PER_CORE) // tail[1])
        wanted = [(Shapes.same(s, count), defaults) for s in ((plan.last_dim_multiple,), tail, (rows, tail[1]))]
        wanted += [(Shapes.same(tail, count), a) for a in others]
        if plan.absent is not None and any(p.without_input for p in every):
            wanted += [(Shapes((s,) * count, plan.absent.tensor.name), defaults) for s in (tail, (rows, tail[1]))]
    tiled = _tiled(op_dir, spec, plan, variant, soc, facts, sources, wanted, planned)
    if isinstance(tiled, CheckItem):
        return [dataclasses.replace(tiled, item=label)]
    given, tiling_source = tiled
    saturating = variant.arch.npu_arch in SATURATING_ARCHES
    runs = [run_shape(build.executable, spec, plan, variant.combination, golden(attrs, shapes.absent), shapes,
                      facts.ub_bytes, launch, rng, attrs, saturating=saturating)
            for (shapes, attrs), launch in zip(wanted, given, strict=True)]
    return [_summary(label, plan, variant, runs, f"{tiling_source}; cores and UB from {facts.source}"),
            *_oracle(label, spec, plan, sources, soc, variant, facts, wanted, runs, golden)]


def _split_row(op_dir: Path, spec: OpSpec, plan: RenderPlan, sources: CannSources, soc: SocPlan,
               variant: KernelVariant, label: str, seed: int) -> list[CheckItem]:
    """A split kernel: the launches of `split_run.split_wanted`, tiled by the host code, the entry instantiated at the
    template arguments each key decodes to; a shape mode no launch reached fails the row."""
    facts = soc_facts(sources, soc)
    golden = _golden(plan, soc)
    if facts is None or golden is None:
        return [bad(label, f"no platform facts or golden variant for {soc.name}")]
    wanted = split_wanted(spec, plan, variant.combination, facts.vector_cores, facts.ub_bytes)
    tiled = _tiled(op_dir, spec, plan, variant, soc, facts, sources, wanted, None)
    if isinstance(tiled, CheckItem):
        return [dataclasses.replace(tiled, item=label)]
    given, tiling_source = tiled
    launcher = entry_launcher(op_dir, variant, sources, entry_arg_count(plan), [launch.key for launch in given])
    if isinstance(launcher, str):
        return [bad(label, f"{variant.family.kernel_entry}: {launcher}")]
    build = build_kernel(sources, variant, op_dir, plan, launcher=launcher)
    if build.executable is None:
        return [_unbuilt(label, variant, build)]
    rng = np.random.default_rng(seed)
    saturating = variant.arch.npu_arch in SATURATING_ARCHES
    runs = [run_shape(build.executable, spec, plan, variant.combination, golden(attrs), shapes, facts.ub_bytes,
                      launch, rng, attrs, saturating=saturating) for (shapes, attrs), launch in zip(wanted, given,
                                                                                                   strict=True)]
    row = _summary(label, plan, variant, runs, f"{tiling_source}; cores and UB from {facts.source}")
    reached = {SplitTiling.mode_of(launch.key) for launch in given}
    unreached = [name for name, _ in SHAPE_MODES if name not in reached]
    if unreached and row.status != "fail":
        row = bad(label, f"no launch reached {', '.join(unreached)}: the host tiling chose "
                         f"{', '.join(sorted(reached))} for every shape", **row.figures)
    return [dataclasses.replace(row, figures={**row.figures, "shape_modes": ";".join(
        SplitTiling.mode_of(launch.key) for launch in given)}),
            *_oracle(label, spec, plan, sources, soc, variant, facts, wanted, runs, golden)]


def broadcast_shapes(count: int, broadcast: int, cores: int) -> list[Shapes]:
    """The issue's broadcast patterns over the first `broadcast` inputs (the rest take the output's shape): equal
    shapes, (1,) with (n,), (a,1) with (a,b), (1,b) with (a,b), a leading dim, and a broadcast spread over every
    core; the smaller shape goes to the first input, then to the second."""
    pairs = [((3, 1001), (3, 1001)), ((1,), (1001,)), ((3, 1001), (3, 1)), ((1, 1001), (3, 1001)),
             ((5, 40, 33), (1, 40, 33)), ((1, 1001), (cores * 16, 1001))]
    found = []
    for small, big in pairs:
        ins = [small, *[big] * (broadcast - 1)] if broadcast > 1 else [big]
        out = tuple(int(d) for d in np.broadcast_shapes(*ins))
        found.append(Shapes(tuple(ins) + (out,) * (count - len(ins))))
    return found


def _tiled(op_dir: Path, spec: OpSpec, plan: RenderPlan, variant: KernelVariant, soc: SocPlan, facts: SocFacts,
           sources: CannSources, wanted: Sequence[Wanted],
           planned: Callable[[Shapes, Mapping[str, AttrValue]], Launch] | None) -> tuple[list[Launch], str] | CheckItem:
    """Each wanted launch as the tree's host tiling code sets it up, with the text the row reports; the plan's
    tiling (`planned`) with the reason where the host code cannot run. Else the row: FAIL when the host tiling
    refused a launch the run needs, SKIPPED when the host code cannot run and the plan has no formula."""
    platform_ub = facts.ub_bytes + UB_RESERVED.get(soc.name, 0)  # the faker's platform reports the ini's UB
    host = host_launches(op_dir, spec, plan, variant, soc, facts.vector_cores, platform_ub, sources, wanted)
    if host.refused:
        return bad("", f"{host.refused} (a launch the run needs: the NPU would never run this kernel for it)")
    if host.problem and planned is None:
        return skipped("", f"not run: the tiling comes from the host code alone here, which could not run: "
                           f"{host.problem}")
    if host.problem and planned is not None:
        return [planned(s, a) for s, a in wanted], f"{PLAN_TILING} (not from the host code: {host.problem})"
    return list(host.launches), HOST_TILING + host.note


def _oracle(label: str, spec: OpSpec, plan: RenderPlan, sources: CannSources, soc: SocPlan, variant: KernelVariant,
            facts: SocFacts, wanted: Sequence[Wanted], runs: Sequence[ShapeRun],
            golden: GoldenPick) -> list[CheckItem]:
    """Upstream's kernel on the same inputs, where ops-nn has the op and every generated launch finished."""
    upstream = upstream_dir(sources, plan)
    if upstream is None or not all(r.outputs for r in runs):
        return []
    platform = (facts.vector_cores, facts.ub_bytes + UB_RESERVED.get(soc.name, 0), facts.ub_bytes)
    return [oracle_row(label.removesuffix(LEVEL) + ORACLE_LEVEL, upstream, spec, plan, sources, soc, variant,
                       platform, wanted, runs, golden, variant.arch.npu_arch in SATURATING_ARCHES)]


def _golden(plan: RenderPlan, soc: SocPlan) -> GoldenPick | None:
    """The golden variant a launch on the SoC runs at given attr values: the SoC's, or the one of the value the
    attr choosing the math takes (as the numerics tier picks it); without an optional input, its absent form."""
    if not any(not v.socs or soc.short_version in v.socs for v in plan.golden.variants):
        return None
    choice = plan.choice

    def pick(attrs: Mapping[str, AttrValue], absent: str = "") -> GoldenVariant:
        mine = [v for v in (plan.golden.absent_variants if absent else plan.golden.variants)
                if not v.socs or soc.short_version in v.socs]
        return next((v for v in mine if choice is None or v.value is None or v.value == attrs[choice.attr.name]),
                    mine[0])

    return pick


def _unbuilt(label: str, variant: KernelVariant, build: KernelBuild) -> CheckItem:
    """No executable: SKIPPED naming what the model lacks, else FAIL with why."""
    return skipped(label, _not_modelled(variant, build.missing)) if build.missing else bad(label, build.problem)


def _summary(label: str, plan: RenderPlan, variant: KernelVariant, runs: list[ShapeRun], tiling: str) -> CheckItem:
    problems = [p for r in runs for p in r.problems]
    figures: dict[str, float | int | str] = {
        "max_abs": max(r.max_abs for r in runs), "max_rel": max(r.max_rel for r in runs),
        "mismatched": sum(r.mismatched for r in runs), "nonfinite_mismatched": sum(r.nonfinite for r in runs),
        "shapes": ";".join(r.shapes.label for r in runs),
        "cores": ";".join(str(r.cores) for r in runs), "tiling": tiling, **cost_figures(runs)}
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
