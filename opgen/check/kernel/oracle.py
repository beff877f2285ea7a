"""Upstream's own kernel as the oracle: when `--cann-src`'s ops-nn has the op at the same path, its kernel runs through
the same harness, tiled by its own host code (`host_tiling`), on the very inputs the generated kernel got.

The row reports upstream's distance from the spec's reference and the generated kernel's distance from upstream's
(max abs and max ulp per output). Upstream outside the reference's tolerance is a FAIL that names the model or
upstream, not the op: the model then disagrees with a kernel that runs on the NPU, and no verdict of it is safe.
A launch upstream cannot make in the harness (an instruction the model lacks, a host tiling that cannot run or
refuses the shape) is SKIPPED saying so.
"""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...cann_sources import CannSources
from ...plan import RenderPlan
from ...plan.registry.platforms import SocPlan
from ...spec.models import KERNEL_FACT_PREFIX, OpSpec
from ..items import CheckItem, bad, ok, skipped
from .build import KernelVariant
from .host_tiling import TilingHarness, Wanted, host_launches
from .launch import GoldenPick, ShapeRun, cost_figures, run_shape
from .run_build import build_kernel, entry_arg_count
from .tpl_launch import UpstreamEntry, entry_launcher, kernel_tiling_structs, registered_tiling_struct

LEVEL = "upstream"
# the upstream_differences fact of a kernel that computes other values than upstream's where an input is inf or NaN
# or upstream's arithmetic overflows to one
NONFINITE_FACT = f"{KERNEL_FACT_PREFIX}nonfinite"


def upstream_dir(sources: CannSources, plan: RenderPlan) -> Path | None:
    """ops-nn's op at the generated op's path (activation/<op> and experimental/activation/<op> are different ops)."""
    found = sources.repo("ops-nn") / plan.rel_dir
    return found if (found / "op_kernel").is_dir() else None


def oracle_row(label: str, upstream: Path, spec: OpSpec, plan: RenderPlan, sources: CannSources, soc: SocPlan,
               variant: KernelVariant, platform: tuple[int, int, int], wanted: Sequence[Wanted],
               generated: Sequence[ShapeRun], golden: GoldenPick,
               saturating: bool) -> CheckItem:
    """`platform`: cores, the UB the host tiling sees, the UB the run guards with."""
    cores, tiling_ub, run_ub = platform
    where = f"upstream's {variant.family.kernel_entry} ({plan.rel_dir})"
    cut = f"{KERNEL_FACT_PREFIX}{soc.name}.{variant.dtype_label}"  # a SoC and dtype whose upstream is no oracle
    unusable = next((d for d in spec.upstream_differences if fnmatchcase(cut, d.fact)), None)
    if unusable is not None:
        return skipped(label, f"not compared: the spec lists {where} on {soc.name} {variant.dtype_label} "
                              f"({unusable.fact}) as no oracle: {unusable.reason}")
    harness = TilingHarness.of_tests(upstream, soc.arch or "")  # its tiling UTs sit under its tiling dir's name
    if harness is None:
        return skipped(label, f"not run: {where}: neither a tiling UT of its own under tests/ut/op_host nor a "
                              "TilingParse<...> under op_host names the compile info its tiling takes")
    host = host_launches(upstream, spec, plan, variant, soc, cores, tiling_ub, sources, wanted, harness)
    if host.problem or host.refused:
        return skipped(label, f"not run: {where}: {host.problem or host.refused}")
    keys = [launch.key for launch in host.launches]
    launcher = entry_launcher(upstream, variant, sources, entry_arg_count(plan), keys)
    if isinstance(launcher, str):
        return skipped(label, f"not run: {where}: {launcher}")
    build = build_kernel(sources, variant, upstream, plan,
                         upstream=UpstreamEntry(launcher, kernel_tiling_structs(upstream),
                                                registered_tiling_struct(upstream, plan.op_type,
                                                                         upstream / variant.family.kernel_entry)))
    if build.executable is None:
        reason = (f"reaches what the CPU model does not model on arch {variant.arch.npu_arch}: "
                  f"{', '.join(build.missing)}") if build.missing else f"does not build in the harness: {build.problem}"
        return skipped(label, f"not run: {where} {reason[:400]}")
    listed = next((d for d in spec.upstream_differences if d.fact == NONFINITE_FACT), None)
    runs = [run_shape(build.executable, spec, plan, variant.combination, golden(attrs, shape.absent), shape, run_ub,
                      launch, np.random.default_rng(0), attrs, saturating=saturating, given=mine.inputs,
                      nonfinite_excused=listed is not None, padding_tolerated=True)
            for (shape, attrs), launch, mine in zip(wanted, host.launches, generated, strict=True)]
    unmodelled = sorted({u for r in runs for u in r.unmodelled})
    if unmodelled:
        return skipped(label, f"not run: {where} reaches what the CPU model does not model on arch "
                              f"{variant.arch.npu_arch}: {', '.join(unmodelled)}")
    apart = [_apart(mine.outputs, theirs.outputs) for mine, theirs in zip(generated, runs, strict=True)
             if mine.outputs and theirs.outputs]
    figures: dict[str, float | int | str] = {
        "upstream_max_abs": max(r.max_abs for r in runs), "upstream_max_rel": max(r.max_rel for r in runs),
        "generated_vs_upstream_max_abs": max((a for a, _ in apart), default=0.0),
        "generated_vs_upstream_max_ulp": max((u for _, u in apart), default=0),
        "tiling": "upstream's host code" + host.note, **_cost_ratios(generated, runs)}
    problems = [p for r in runs for p in r.problems]
    if problems:
        return bad(label, f"{where} differs from the spec's reference on the CPU model, on the generated kernel's "
                          f"inputs: a model or upstream bug (or a reference upstream does not follow), not the "
                          f"generated kernel's: " + "; ".join(problems)[:600], **figures)
    excused = sum(r.excused for r in runs)
    if listed is not None and not excused:
        return bad(label, f"the spec lists {NONFINITE_FACT!r}, but {where} equals the reference at every element "
                          "reading or making an inf or NaN: remove the listing", **figures)
    ratios = ", ".join(f"{key.removesuffix('_ratio').replace('_', ' ')} x{value}" for key, value in figures.items()
                       if key.endswith("_ratio"))
    differs = (f" (but at {excused} element(s) reading or making an inf or NaN, where the spec lists "
               f"{NONFINITE_FACT!r}: {listed.reason})") if listed is not None else ""
    padded = sorted({name for r in runs for name in r.padded})
    if padded:
        differs += (f"; it writes past the end of {', '.join(padded)} inside the padding GE allocates (a tensor's "
                    "size rounded up to 32 bytes, plus 32), which a generated kernel may not")
    return ok(label, f"{where} matches the golden on the same inputs{differs}; the generated kernel is "
                     f"{figures['generated_vs_upstream_max_abs']:.3g} (max abs), "
                     f"{figures['generated_vs_upstream_max_ulp']} ulp from it" +
              (f"; its cost over upstream's: {ratios}" if ratios else ""), **figures)


def _cost_ratios(mine: Sequence[ShapeRun], theirs: Sequence[ShapeRun]) -> dict[str, float | int | str]:
    """The generated kernel's cost over upstream's on the same launch (the one with the most elements)."""
    ours, upstream = cost_figures(mine), cost_figures(theirs)
    ratios: dict[str, float | int | str] = {}
    for key in ("vector_instructions_per_element", "gm_ub_bytes_per_element", "ub_extent_bytes"):
        if ours.get(key) and upstream.get(key):
            ratios[f"{key}_ratio"] = round(float(ours[key]) / float(upstream[key]), 3)
    return ratios


def _apart(mine: Sequence[npt.NDArray[Any]], theirs: Sequence[npt.NDArray[Any]]) -> tuple[float, int]:
    """The largest finite |difference| and ulp distance between two kernels' outputs (NaN positions skipped)."""
    worst_abs, worst_ulp = 0.0, 0
    for a, b in zip(mine, theirs, strict=True):
        wide_a, wide_b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
        both = ~(np.isnan(wide_a) | np.isnan(wide_b))
        with np.errstate(invalid="ignore"):
            diff = np.abs(wide_a - wide_b)[both]
        worst_abs = max(worst_abs, float(diff[np.isfinite(diff)].max(initial=0.0)))
        if a.dtype.kind == "f" or a.dtype.name == "bfloat16":
            worst_ulp = max(worst_ulp, int(np.abs(_ordered(a) - _ordered(b))[both].max(initial=0)))
        else:
            worst_ulp = max(worst_ulp, int(diff.max(initial=0.0)))
    return worst_abs, worst_ulp


def _ordered(values: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """Float bits as integers that count ulps: adjacent floats differ by one, -0 and +0 coincide."""
    bits = values.ravel().view(f"<i{values.dtype.itemsize}").astype(np.int64)
    sign = np.int64(1) << (8 * values.dtype.itemsize - 1)
    return np.where(bits < 0, -(bits & (sign - 1)), bits)
