"""The ops-nn-ut tier: the tree's op_host UTs built and run by ops-nn's own `build.sh -u --ophost --ops=<op>
--soc=<soc>`, one build per registered SoC, its op_api UTs by `build.sh -u --opapi` once (they choose their
SoC in each test) and its kernel UTs by `build.sh -u --opkernel` per kernel-UT SoC (tikicpulib being opgen's CPU
model), on a scratch copy of the sources' ops-nn with the op placed where it
belongs (validate's placement), against the toolkit-shaped prefix opgen builds from the sources
(`opgen/cann_prefix`). Upstream's own UTs of an op at the same path, run the same way, are the sanity row: they
pass, or the prefix is what differs from a toolkit. build.sh configures the tree's CMake and runs its UT binaries,
so the tier needs --allow-exec."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from .. import progress
from ..cann_prefix.build import ESTIMATE, PREFIX_LAYOUT, Prefix, build_prefix
from ..cann_prefix.framework import TILING_EXECUTOR, executor_socs
from ..cann_prefix.layout import is_built, missing_sources, prefix_dir
from ..cann_prefix.nnopbase import STUB_LIST
from ..cann_prefix.ut_run import UT_NAMES, UtKind, UtRun, run_ut
from ..cann_sources import CannSources, cache_root, enable_hint
from ..errors import OpgenError
from ..plan import RenderPlan
from .items import CheckItem, bad, ok, skipped
from .kernel import tikicpulib
from .kernel.build import KernelArch, unmapped_reason
from .trust import Trust

TIER = "ops-nn-ut"
_ADD_OP_TEST_CASE = re.compile(r'AddOpTestCase\(\s*\w+\s+"([^"]+)"')
_UNMODELLED = re.compile(r"opgen cpu model: not modelled: (.+)$", re.M)
# an upstream kernel UT including its op's host tiling header (glu_grad's test_glu_grad.cpp:16): metadef's register/
# and asc-devkit's host tiling API, which the stand-in does not put on a kernel UT's path: its force-included
# kernel_operator.h defines asc-devkit's CPU-debug DT_* macros first, and their ge::DataType enums cannot follow them
_HOST_TILING_HEADER = re.compile(r"fatal error: ((?:register|tiling)/\S+\.h): No such file or directory")


def ops_nn_ut_tier(op_dir: Path, plan: RenderPlan, sources: CannSources | None, trust: Trust) -> list[CheckItem]:
    if sources is None:
        return [skipped("build.sh -u", enable_hint(TIER))]
    if sources.kind == "toolkit":
        return [skipped("build.sh -u", "with a toolkit, `opgen validate --ops-nn PATH` runs ops-nn's build.sh; this "
                                       "tier builds its prefix from the open sources (--cann-src)")]
    if not trust.allow_exec:
        return [skipped("build.sh -u", trust.refusal("ops-nn's build.sh (it configures the tree's CMake and runs "
                                                     "its UT binaries)"))]
    if missing := missing_sources(sources.root):
        return [skipped("build.sh -u", "missing CANN sources: " + "; ".join(missing))]
    if not is_built(prefix_dir(cache_root(), sources.root, PREFIX_LAYOUT)):
        progress.say(f"{plan.name}: building the toolkit-shaped prefix first (once per sources state): {ESTIMATE}; "
                     "`opgen prepare --cann-src DIR` builds it ahead")
    try:
        prefix = build_prefix(sources, cache_root())
    except OpgenError as missing_piece:  # a piece this machine cannot get (protobuf's source), named with how to
        return [skipped("toolkit-shaped prefix", f"not built: {missing_piece}")]
    except (OSError, subprocess.SubprocessError) as error:
        return [bad("toolkit-shaped prefix", f"did not build: {error}")]
    how = f"built in {prefix.seconds:.0f}s" if prefix.seconds else "cached"
    items = [ok("toolkit-shaped prefix", f"{how} at {prefix.root}", seconds=round(prefix.seconds, 1))]
    known = executor_socs(sources.repo("ops-nn") / "tests/ut/common" / TILING_EXECUTOR)
    runnable = [soc.name for soc in plan.socs if soc.name in known]
    items += [skipped(f"op_host UTs ({soc.name})", f"ops-nn's {TILING_EXECUTOR} knows no {soc.name}: build.sh -u "
                                                   "has no platform for it")
              for soc in plan.socs if soc.name not in known]
    upstream = sources.repo("ops-nn") / plan.rel_dir
    plan_runs: list[tuple[UtKind, list[str]]] = [("ophost", runnable), ("opapi", runnable[:1])]
    for kind, socs in plan_runs:
        ut_dir = f"tests/ut/{UT_NAMES[kind]}"
        if kind == "ophost" or (op_dir / ut_dir).is_dir():
            items += [_row(prefix, _run(prefix, sources, plan, kind, soc, op_dir), False) for soc in socs]
        if (upstream / ut_dir).is_dir():
            items += [_row(prefix, _run(prefix, sources, plan, kind, soc, None), True) for soc in socs]
    for soc in plan.kernel_ut_socs:
        items += kernel_ut_rows(prefix, sources, plan, op_dir, soc.name)
    return items


def kernel_ut_rows(prefix: Prefix, sources: CannSources, plan: RenderPlan, op_dir: Path, soc: str) -> list[CheckItem]:
    """The kernel UTs under `build.sh -u --opkernel`, tikicpulib being opgen's CPU model (check/kernel/tikicpulib.py);
    upstream's where its UT dir brings its own tiling header (else ops-nn generates one with the toolkit's tbe)."""
    label = f"op_kernel UTs ({soc})"
    socs = tikicpulib.kernel_ut_socs(soc)
    if not socs:
        return [skipped(label, unmapped_reason(soc))]
    if problems := tikicpulib.declare_kernel(sources, plan, op_dir, soc):
        return [skipped(label, f"the kernel does not build on opgen's CPU model ({problems[0]}); the kernel tier "
                               "reports it")]
    kernel_ut = sources.repo("ops-nn") / plan.rel_dir / "tests/ut" / UT_NAMES["opkernel"]
    upstream_runs = (kernel_ut / f"{plan.name}_tiling_def.h").is_file()
    spelled: dict[str, KernelArch] = {}
    if upstream_runs:
        # upstream may spell the SoC otherwise (HardSwishGradV2: "ascend910B1"), and CMake target names are exact
        cmake = (kernel_ut / "CMakeLists.txt").read_text(encoding="utf-8", errors="replace")
        spelled = {name: arch for name in _ADD_OP_TEST_CASE.findall(cmake) for ut, arch in socs.items()
                   if name.lower() == ut}
        tikicpulib.declare_upstream_kernel(sources, plan, kernel_ut.parents[2], soc)
    try:  # one targets file for both runs: it declares what either kernel calls
        env = tikicpulib.build_sh_env(tikicpulib.prepare(sources, socs | spelled, prefix.c_sec))
    except OpgenError as error:
        return [bad(label, f"the tikicpulib stand-in did not build: {error}")]
    rows = [_kernel_row(prefix, _run(prefix, sources, plan, "opkernel", soc, op_dir, env), False)]
    if upstream_runs:
        rows.append(_kernel_row(prefix, _run(prefix, sources, plan, "opkernel", soc, None, env), True))
    elif kernel_ut.is_dir():
        rows.append(skipped(f"upstream {label}", f"upstream's kernel UT has no {plan.name}_tiling_def.h: ops-nn's "
                                                 "build generates its tiling header with the toolkit's tbe package"))
    return rows


def _kernel_row(prefix: Prefix, run: UtRun, upstream: bool) -> CheckItem:
    """A case reaching an instruction the CPU model lacks says which (the model's abort), as the kernel tier does."""
    log = run.log.read_text(encoding="utf-8", errors="replace") if not run.ok else ""
    lacking = sorted(set(_UNMODELLED.findall(log)))
    host = _HOST_TILING_HEADER.search(log) if upstream else None
    if host is not None:
        return skipped(f"upstream op_kernel UTs ({run.soc})",
                       f"not run: upstream's kernel UT includes its op's host tiling header, which includes "
                       f"{host.group(1)}; the tikicpulib stand-in serves kernel headers only (its force-included "
                       f"kernel_operator.h defines asc-devkit's CPU-debug DT_* macros, which metadef's and the tiling "
                       f"API's DataType enums cannot follow); log {run.log}")
    if lacking:
        return skipped(f"{'upstream ' if upstream else ''}op_kernel UTs ({run.soc})",
                       f"opgen's CPU model (the tikicpulib stand-in) does not model {', '.join(lacking)}; "
                       f"log {run.log}")
    return _row(prefix, run, upstream)


def _run(prefix: Prefix, sources: CannSources, plan: RenderPlan, kind: UtKind, soc: str,
         op_dir: Path | None, env: dict[str, str] | None = None) -> UtRun:
    return run_ut(prefix, sources, kind=kind, op=plan.name, soc=soc, op_dir=op_dir, rel_dir=plan.rel_dir, env=env)


def _row(prefix: Prefix, run: UtRun, upstream: bool) -> CheckItem:
    kind, whose = UT_NAMES[run.kind], "upstream's" if upstream else "the tree's"
    label = f"{'upstream ' if upstream else ''}{kind} UTs ({run.soc})"
    command = f"build.sh -u --{run.kind} --soc={run.soc}"
    figures: dict[str, float | int | str] = {"tests": run.ran, "passed": run.passed, "failed": len(run.failed),
                                             "seconds": round(run.seconds, 1)}
    if run.ok:
        again = f" (remembered from a run of the same files with this prefix; log {run.log})" if run.cached else ""
        return ok(label, f"{run.passed}/{run.ran} of {whose} {kind} UTs passed under {command}{again}", **figures)
    if run.returncode == 0 and run.ran == 0:
        return skipped(label, f"{command} built and ran none of {whose} {kind} UTs")
    failed = f"{len(run.failed)} failed ({', '.join(run.failed[:8])})" if run.failed else "none ran to the end"
    blame = ": upstream's own UTs, so the prefix is what differs from a toolkit" if upstream else ""
    stubs = {"opapi": f" (the device-side functions the prefix stubs are listed in {prefix.ascend_home / STUB_LIST})",
             "opkernel": " (tikicpulib here is opgen's CPU model: opgen/check/kernel/tikicpulib.py)"}.get(run.kind, "")
    first = f"; first error: {run.error}" if run.error else ""
    return bad(label, f"{run.passed}/{run.ran} passed, {failed}; build.sh exit {run.returncode}{blame}{stubs}{first}; "
                      f"log {run.log}", **figures)
