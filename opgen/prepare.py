"""`opgen prepare --cann-src DIR [OP_DIR...]`: build ahead of time what the source-dependent check tiers share,
for CI and machine images: the toolkit-shaped prefix (ops-nn-ut tier) and opgen's CPU model (the kernel tier's
run level and the kernel UTs' tikicpulib stand-in) for the arches of the given ops, or of the bundled samples
(ReluGradV2, arch35; GeluGrad, classic) when none is given. It says up front what it will build and about how
long that takes, shows each step while it runs, and leaves everything in the cache a check reads.
Only typer and the stdlib at module top, so `opgen --help` stays fast."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from .cann_sources import CannSources
    from .plan import RenderPlan

SAMPLES = ("relu_grad_v2.yaml", "gelu_grad.yaml")  # one arch35 kernel, one classic kernel
MODEL_ESTIMATE = "about 1-4 min an arch on 2 cores"


def prepare(
    op_dirs: Annotated[list[Path] | None, typer.Argument(
        help="Ops whose kernels' arches get the CPU model; default: the bundled samples' (arch35, classic).",
        show_default=False)] = None,
    cann_src: Annotated[Path | None, typer.Option(
        "--cann-src", metavar="DIR", help="The open CANN repos side by side; default: $OPGEN_CANN_SRC.")] = None,
) -> None:
    """Build the toolkit-shaped prefix and opgen's CPU model ahead of the first `opgen check --cann-src
    --allow-exec` (CI, a machine image): it says what it will build and about how long it takes, and a later check
    only reads the cache. Exit 0 when everything is built, 2 when the sources lack something (named)."""
    from .cann_sources import resolve_sources
    from .errors import OpgenError

    sources = resolve_sources(cann_src, None)
    if sources is None:
        raise OpgenError("prepare builds from the open sources: pass --cann-src DIR or set OPGEN_CANN_SRC")
    prepare_cache(sources, op_dirs or [])


def prepare_cache(sources: CannSources, op_dirs: Sequence[Path]) -> Path:
    """Build the prefix, then the CPU model for the ops' arches (what is cached is only read); the prefix root."""
    from . import progress
    from .cann_prefix import layout
    from .cann_prefix.build import ESTIMATE, PREFIX_LAYOUT, build_prefix
    from .cann_sources import cache_root
    from .check.kernel import tikicpulib
    from .check.kernel.build import KernelVariant, kernel_variants
    from .check.kernel.run_build import runtime_object
    from .errors import OpgenError

    if sources.kind != "src":
        raise OpgenError("prepare builds from the open sources (--cann-src DIR); a toolkit needs no prefix")
    layout.check_sources(sources.root)
    cache = cache_root()
    root = layout.prefix_dir(cache, sources.root, PREFIX_LAYOUT)
    with progress.reporting(), _ops(op_dirs) as ops:
        progress.say(f"will build the toolkit-shaped prefix at {root}: "
                     + ("already built, only read" if layout.is_built(root) else ESTIMATE))
        variants = {v.arch.npu_arch: (op_dir, v) for op_dir, plan in ops for v in kernel_variants(plan)
                    if isinstance(v, KernelVariant)}
        progress.say(f"will build opgen's CPU model for arch {', '.join(map(str, sorted(variants)))} (its runtime, "
                     f"and the kernel UTs' tikicpulib stand-in; what is cached is only read): {MODEL_ESTIMATE}")
        with progress.step("prefix"):
            prefix = build_prefix(sources, cache)
        for arch, (op_dir, variant) in sorted(variants.items()):
            built = runtime_object(sources, variant, op_dir)
            if isinstance(built, str):
                raise OpgenError(f"arch {arch}: {built}")
        for _, plan in ops:
            for soc in plan.kernel_ut_socs:
                if socs := tikicpulib.kernel_ut_socs(soc.name):
                    tikicpulib.prepare(sources, socs, prefix.c_sec)
        progress.say(f"prepared: {prefix.root} and the CPU model under {cache_root()}")
    return prefix.root


@contextmanager
def _ops(op_dirs: Sequence[Path]) -> Iterator[list[tuple[Path, RenderPlan]]]:
    """Each op dir with its plan: the given ones (their records' specs), or the bundled samples rendered into a
    scratch dir for the block."""
    from .check.runner import load_target
    from .generate import render_specs, write_ops
    from .paths import SAMPLE_SPECS

    if op_dirs:
        yield [(op_dir.resolve(), load_target(op_dir, None)[1]) for op_dir in op_dirs]
        return
    with tempfile.TemporaryDirectory(prefix="opgen-prepare-") as scratch:
        rendered = render_specs([SAMPLE_SPECS / name for name in SAMPLES])
        dirs = write_ops(Path(scratch) / "ops", rendered, force=False, record_dir=Path(scratch) / "records")
        yield [(op_dir, op.plan) for op_dir, op in zip(dirs, rendered, strict=True)]
