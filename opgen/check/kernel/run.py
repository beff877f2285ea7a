"""The run level of the kernel tier: each classic kernel, built from the tree's op_kernel sources with opgen's
CPU model, runs on the CPU for every SoC and dtype combination and is compared with the golden.

Per (SoC, dtype) one row. Shapes: one element, a tail that is not a multiple of 32 bytes spread over several
cores, and one with several UB tiles on every core. Inputs: uniform in the spec's ST value range, with the
dtype's edge values (zeros, infinities, NaN, limits) in the first elements. GM holds every tensor between
guard bytes (a UB size each); any byte the kernel changes outside its output tensors fails the row, as does
an output element outside the spec's tolerance of the golden (opgen's recipe, as the golden.py it renders
computes it). Tiling values come from the plan (`classic_tiling`, the formula the rendered tiling code uses)
with the SoC's core count and UB size from the runtime repo's platform config. Building and running are tree
code: both only with `Trust.allow_exec`, the run through `run_tree_code`.
"""

from __future__ import annotations

import configparser
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...cann_sources import CannSources, enable_hint
from ...plan import RenderPlan
from ...plan.attr_cases import classic_tiling_bytes
from ...plan.attrs import AttrValue, attr_settings, shown_attrs
from ...plan.classic import ClassicTiling, classic_tiling
from ...plan.families import ub_scratch_bytes
from ...plan.golden import GoldenVariant
from ...plan.platforms import SocPlan
from ...plan.tensors import DtypeCombination
from ...spec.models import OpSpec
from ..emulator import emulate, numpy_dtype
from ..items import CheckItem, bad, ok, skipped
from ..numerics import within_tolerance
from ..numerics_samples import edge_values
from ..trust import Trust, run_tree_code
from .build import KernelVariant, kernel_variants
from .run_build import build_kernel

LEVEL = "run"
RUN_TIMEOUT = 300.0
TAIL_SHAPE = (3, 1001)  # 3003 elements: several cores, a last core whose bytes are no multiple of 32
TILES_PER_CORE = 2.5  # the large shape gives every core this many UB tiles
PLATFORM_CONFIG = "src/platform/platform_config/cann"
# PlatformAscendC::GetCoreMemSize takes this off the UB of Ascend910B (kfc buffers), so the tiling sees less
UB_RESERVED = {"ascend910b": 256}
TILING_SOURCE = "tiling from the plan"
UNMODELLED_EXIT = 3  # the model's Unmodelled(): the kernel reached an operand form or mode it does not cover
UNMODELLED_MARK = "opgen cpu model: not modelled: "


@dataclass(frozen=True)
class SocFacts:
    vector_cores: int
    ub_bytes: int


@dataclass(frozen=True)
class ShapeRun:
    shape: tuple[int, ...]
    cores: int
    max_abs: float
    max_rel: float
    problems: tuple[str, ...]
    unmodelled: tuple[str, ...] = ()  # what the model aborted on (the launch proves nothing)


def kernel_run_rows(op_dir: Path, spec: OpSpec, plan: RenderPlan, sources: CannSources | None,
                    trust: Trust, *, seed: int = 0) -> list[CheckItem]:
    """The run rows of the kernel tier for one op dir."""
    variants = kernel_variants(plan)
    labels = [f"{v.label} {LEVEL}" if isinstance(v, KernelVariant) else f"{v[0]} {LEVEL}" for v in variants]
    if plan.classic is None:
        why = ("not run: the CPU model covers classic kernels; the arch35 DAG kernel reaches a register/predicate "
               "instruction set it does not model")
        return [skipped(label, why) for label in labels]
    if sources is None:
        return [skipped(label, enable_hint("kernel")) for label in labels]
    absent = sources.missing("kernel")
    if absent:
        return [skipped(label, "missing: " + "; ".join(absent)) for label in labels]
    if not trust.allow_exec:
        refusal = trust.refusal("a kernel built from the tree's op_kernel sources")
        return [skipped(label, refusal) for label in labels]
    socs = {s.name: s for s in plan.socs}
    return [_row(op_dir.resolve(), spec, plan, sources, socs[v.soc], v, label, seed) if isinstance(v, KernelVariant)
            else skipped(label, v[1]) for v, label in zip(variants, labels, strict=True)]


def soc_facts(sources: CannSources, soc: SocPlan) -> SocFacts | None:
    """Vector cores and UB bytes (as PlatformAscendC reports them to the tiling) from the runtime repo's platform
    config of the SoC's first model."""
    wanted = f"{soc.kernel_ut_soc or soc.short_version + '1'}.ini".lower()
    inis = [p for p in sorted((sources.repo("runtime") / PLATFORM_CONFIG).glob("*.ini")) if p.name.lower() == wanted]
    if not inis:
        return None
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
    if build.executable is None and build.missing:
        return skipped(label, _not_modelled(variant, build.missing))
    if build.executable is None:
        return bad(label, build.problem)
    rng = np.random.default_rng(seed)
    scratch = ub_scratch_bytes(spec, next(p.kernel for p in spec.platforms if p.soc == soc.name))
    tile = classic_tiling(1, case.bits, facts.vector_cores, facts.ub_bytes, scratch).tile_data_num
    defaults, *others = attr_settings(spec)
    runs = [_run_shape(build.executable, spec, plan, soc, combo, golden, shape, facts.ub_bytes,
                       classic_tiling(int(np.prod(shape)), case.bits, facts.vector_cores, facts.ub_bytes, scratch), rng,
                       attrs)
            for shape, attrs in [(s, defaults) for s in run_shapes(facts, tile)] + [(TAIL_SHAPE, a) for a in others]]
    problems = [p for r in runs for p in r.problems]
    figures: dict[str, float | int | str] = {
        "max_abs": max(r.max_abs for r in runs), "max_rel": max(r.max_rel for r in runs),
        "shapes": ";".join("x".join(map(str, r.shape)) for r in runs),
        "cores": ";".join(str(r.cores) for r in runs), "tiling": TILING_SOURCE}
    if problems:
        return bad(label, f"op_kernel/{plan.name}.cpp on the CPU model: " + "; ".join(problems), **figures)
    unmodelled = sorted({u for r in runs for u in r.unmodelled})
    if unmodelled:
        return skipped(label, _not_modelled(variant, unmodelled))
    return ok(label, f"matches the golden on the CPU model ({TILING_SOURCE})", **figures)


def _run_shape(executable: Path, spec: OpSpec, plan: RenderPlan, soc: SocPlan, combo: DtypeCombination,
               golden: GoldenVariant, shape: tuple[int, ...], guard: int, tiling: ClassicTiling,
               rng: np.random.Generator, attrs: Mapping[str, AttrValue]) -> ShapeRun:
    """One launch; `attrs`: the values the tiling data carries to the kernel (and the emulator computes with)."""
    inputs = _inputs(spec, plan, combo, shape, rng)
    files = {f"in_{t.name}.bin": a.tobytes() for t, a in zip(plan.inputs, inputs, strict=True)}
    files["tiling.bin"] = classic_tiling_bytes(tiling.fields, plan.scalars, attrs)
    shown = shown_attrs(spec, attrs)
    where = f"{'x'.join(map(str, shape))} on {tiling.used_cores} core(s)" + (f" with {shown}" if shown else "")
    with tempfile.TemporaryDirectory(prefix="opgen-run-out-") as out_dir:
        outs = {t.name: Path(out_dir) / f"out_{t.name}.bin" for t in plan.outputs}
        lines = [f"cores {tiling.used_cores}", f"tiling_key {soc.tiling_key or 0}", "tiling tiling.bin",
                 f"guard {guard}", f"workspace {plan.workspace_bytes}"]
        lines += [f"input {t.name} in_{t.name}.bin" for t in plan.inputs]
        lines += [f"output {t.name} {int(np.prod(shape)) * numpy_dtype(t.dtypes[combo.index].name).itemsize} "
                  f"{outs[t.name]}" for t in plan.outputs]
        files["manifest.txt"] = ("\n".join(lines) + "\n").encode()
        done = run_tree_code([str(executable), "manifest.txt"], timeout=RUN_TIMEOUT, files=files)
        unmodelled = [line.removeprefix(UNMODELLED_MARK) for line in done.stderr.splitlines()
                      if line.startswith(UNMODELLED_MARK)]
        if done.returncode == UNMODELLED_EXIT and unmodelled:
            return ShapeRun(shape, tiling.used_cores, 0.0, 0.0, (), tuple(unmodelled))
        if done.timed_out or done.returncode != 0:
            tail = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
            return ShapeRun(shape, tiling.used_cores, 0.0, 0.0,
                            (f"{where}: the kernel did not finish: {'timeout' if done.timed_out else tail}",))
        problems = [_overrun(line, where) for line in done.stdout.splitlines() if line.startswith("overrun ")]
        got = tuple(np.fromfile(outs[t.name], dtype=numpy_dtype(t.dtypes[combo.index].name)).reshape(shape)
                    for t in plan.outputs)
    expected = emulate(plan, golden, combo, inputs, attrs)
    max_abs = max_rel = 0.0
    for tensor, have, want in zip(plan.outputs, got, expected, strict=True):
        tol = spec.golden.tolerances.get(tensor.dtypes[combo.index].name) or spec.golden.tolerances[combo.key.name]
        passed, diff = within_tolerance(have, want, tol.rtol, tol.atol, input_nan=_input_nan(inputs, shape))
        finite = np.isfinite(diff)
        reference = np.abs(np.asarray(want, dtype=np.float64).ravel())
        max_abs = max(max_abs, float(diff[finite].max(initial=0.0)))
        with np.errstate(all="ignore"):  # a huge error over a tiny reference is an inf ratio, not a warning
            rel = diff[finite] / np.maximum(reference[finite], np.finfo(np.float64).tiny)
        max_rel = max(max_rel, float(rel[reference[finite] > tol.atol].max(initial=0.0)))
        if not passed.all():
            k = int(np.flatnonzero(~passed)[0])
            problems.append(f"{where}: {tensor.name} differs from the golden at {int((~passed).sum())} element(s), "
                            f"first [{k}]: {have.ravel()[k]!r} vs {want.ravel()[k]!r} (rtol {tol.rtol}, "
                            f"atol {tol.atol})")
    return ShapeRun(shape, tiling.used_cores, max_abs, max_rel, tuple(problems))


def _not_modelled(variant: KernelVariant, what: Sequence[str]) -> str:
    """A launch the model cannot run is no evidence either way: the row says what it lacks."""
    return (f"not run: the kernel reaches what the CPU model does not model on arch {variant.arch.npu_arch}: "
            f"{', '.join(what)} (see opgen/check/kernel/cpu_model/README.md)")


def _inputs(spec: OpSpec, plan: RenderPlan, combo: DtypeCombination, shape: tuple[int, ...],
            rng: np.random.Generator) -> list[npt.NDArray[Any]]:
    """Uniform values in the ST range; the dtype's edge values first (each input a different order)."""
    low, high = spec.tests.value_range
    arrays = []
    for k, tensor in enumerate(plan.inputs):
        dtype = tensor.dtypes[combo.index]
        values = rng.uniform(low, high, shape).astype(numpy_dtype(dtype.name)).ravel()
        edges = np.roll(edge_values(dtype.name), k)[: values.size]
        values[: edges.size] = edges
        arrays.append(values.reshape(shape))
    return arrays


def _input_nan(inputs: Sequence[npt.NDArray[Any]], shape: tuple[int, ...]) -> npt.NDArray[np.bool_]:
    nan = np.zeros(int(np.prod(shape)), dtype=np.bool_)
    for array in inputs:
        nan |= np.isnan(array.astype(np.float64)).ravel()
    return nan


def _overrun(line: str, where: str) -> str:
    """A runtime `overrun NAME COUNT FIRST SIZE` line: COUNT bytes changed that must not be, the first at byte
    FIRST of tensor NAME (negative: in the guard before it; >= SIZE: past its end; else: inside an input)."""
    _, name, count, first, size = line.split()
    at = int(first)
    place = "before" if at < 0 else "past the end of" if at >= int(size) else "inside input"
    return f"{where}: the kernel changed {count} byte(s) {place} {name} (first at byte {at} of {size})"
