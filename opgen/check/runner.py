"""Run the tiers of `opgen check` on one op dir: resolve the spec, then every tier concurrently.

Tiers are independent and mostly wait on subprocesses (copier's clang-format, the preprocessor, g++) or on
importing torch, so threads cut the wall time to about that of the slowest tier. A tier that crashes
becomes a failed row naming the exception: a user never sees a traceback.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .. import progress
from ..cann_sources import CannSources
from ..errors import OpgenError
from ..plan import RenderPlan
from ..record import RECORD_DIR_ENV, SPEC_COPY, find_record
from ..spec.load import LoadedSpec
from .items import FAIL, PASS, SKIP, CheckItem, TierResult, bad, skipped
from .report import LABELS, STYLES
from .tree_guard import probe_items, special_items
from .tree_links import links_leaving
from .trust import Trust

NO_EXEC = Trust()
TIERS = ("structure", "syntax", "consistency", "numerics", "headers", "kernel", "ops-nn-ut", "upstream")
NOTHING_CHECKED = 3  # the exit code of a run where every selected tier was SKIPPED (no sources, no --allow-exec)
PREPROCESSING = ("syntax", "headers", "kernel", "ops-nn-ut")  # the tiers that run a preprocessor on tree files


@dataclass(frozen=True)
class CheckReport:
    op_dir: Path
    spec_path: Path
    sources: str  # which CANN sources the source-dependent tiers used, or why none
    op_type: str
    families: str  # the kernel families, comma separated
    tiers: tuple[TierResult, ...]
    seconds: float
    left_out: tuple[str, ...] = ()  # tiers in `tiers` only to say --tier/--skip-tier left them out

    @property
    def passed(self) -> bool:
        return all(t.status != "fail" for t in self.tiers)

    @property
    def checked(self) -> bool:
        """Some selected tier ran a check: a run where every one was SKIPPED proved nothing."""
        return any(t.status != "skip" for t in self.tiers if t.tier not in self.left_out)

    @property
    def exit_code(self) -> int:
        return 1 if not self.passed else 0 if self.checked else NOTHING_CHECKED


def spec_path(op_dir: Path, spec: Path | None) -> Path:
    """--spec, else the spec copy in the op's record (found by the op's path, `record.find_record`);
    OpgenError when there is no op dir or no spec."""
    if not op_dir.is_dir():
        raise OpgenError("op dir not found; pass the directory of a generated op", where=str(op_dir))
    if spec is not None:
        return spec
    record = find_record(op_dir)
    if record is None or not (record / SPEC_COPY).is_file():
        where = os.environ.get(RECORD_DIR_ENV)
        looked = f"${RECORD_DIR_ENV} ({where})" if where else f"${RECORD_DIR_ENV} (not set)"
        raise OpgenError(f"no spec: found no opgen record for {op_dir} (looked in {looked} and in .opgen/ dirs "
                         f"beside its parents, e.g. schemas/.opgen/); for a tree made with --record-dir DIR set "
                         f"{RECORD_DIR_ENV}=DIR, or pass the op's spec with --spec SPEC")
    return record / SPEC_COPY


def load_target(op_dir: Path, spec: Path | None) -> tuple[LoadedSpec, RenderPlan]:
    """The spec and its plan; OpgenError (one line, file:line) on bad input."""
    from ..plan import build_plan
    from ..spec.load import load_spec

    loaded = load_spec(spec_path(op_dir, spec))
    return loaded, build_plan(loaded.spec, loaded.path.name)


def chosen_tiers(only: Sequence[str], left_out: Sequence[str]) -> tuple[str, ...]:
    """The tiers `--tier` (all when none) and `--skip-tier` leave; an unknown name is bad input."""
    if unknown := sorted({*only, *left_out} - set(TIERS)):
        raise OpgenError(f"no tier named {', '.join(map(repr, unknown))}: the tiers are {', '.join(TIERS)}")
    chosen = tuple(t for t in TIERS if (not only or t in only) and t not in left_out)
    if not chosen:
        raise OpgenError("--tier/--skip-tier leave no tier to run, so nothing would be checked: name a tier with "
                         f"--tier that no --skip-tier removes (the tiers are {', '.join(TIERS)})")
    return chosen


def run_checks(op_dir: Path, spec: Path | None = None, include_dirs: Sequence[Path] = (), *, seed: int = 0,
               tiers: Sequence[str] = TIERS, sources: CannSources | None = None,
               trust: Trust = NO_EXEC, report_left_out: bool = False) -> CheckReport:
    """`include_dirs` (the user's own list) wins over `sources` for the headers tier. With `report_left_out`
    the tiers not in `tiers` are in the report as SKIPPED, so nobody takes a tier left out for a pass."""
    report = _run_checks(op_dir, spec, include_dirs, seed=seed, tiers=tiers, sources=sources, trust=trust)
    if not report_left_out:
        return report
    ran = {t.tier: t for t in report.tiers}
    why = "left out by --tier/--skip-tier"
    every = tuple(ran.get(name) or TierResult(name, (skipped(f"{name} tier", why),)) for name in TIERS)
    return dataclasses.replace(report, tiers=every, left_out=tuple(name for name in TIERS if name not in ran))


def _run_checks(op_dir: Path, spec: Path | None, include_dirs: Sequence[Path], *, seed: int,
                tiers: Sequence[str], sources: CannSources | None, trust: Trust) -> CheckReport:
    from .numerics_tier import collect_child, start_child

    start = time.perf_counter()
    path = spec_path(op_dir, spec)
    chosen = [t for t in TIERS if t in tiers]
    leaving = links_leaving(op_dir)
    special = [] if leaving else special_items(op_dir)
    if leaving or special:
        loaded, plan = load_target(op_dir, spec)
        refused = _refused_links(leaving, chosen) if leaving else _refused(special, chosen, "not run: the tree holds "
                                                                            "files that are not regular files (see "
                                                                            "structure); nothing of it was read")
        return CheckReport(op_dir.resolve(), loaded.path, "none", plan.op_type, plan.families_text, refused,
                           time.perf_counter() - start)
    # a tree asking the preprocessor about paths outside it: structure names each file, no preprocessor runs
    probing = [t for t in PREPROCESSING if t in tiers]
    probing = probing if probing and probe_items(op_dir) else []
    # the numerics child (torch: the slowest tier) starts before anything else; it reloads the spec itself
    child = start_child(op_dir.resolve(), path.resolve(), seed=seed, trust=trust) if "numerics" in tiers else None
    try:
        loaded, plan = load_target(op_dir, spec)
    except BaseException:
        if child is not None:
            collect_child(child, timeout=0)
        raise
    op_dir = op_dir.resolve()  # absolute before any thread starts: nothing may depend on the cwd
    jobs: dict[str, Callable[[], list[CheckItem]]] = {
        "structure": lambda: _structure(op_dir, loaded, plan),
        "syntax": lambda: _syntax(op_dir, trust),
        "consistency": lambda: _consistency(op_dir, plan),
        "numerics": lambda: collect_child(child) if child is not None else [],
        "headers": lambda: _headers(op_dir, include_dirs, sources),
        "kernel": lambda: _kernel(op_dir, loaded, plan, sources, trust, seed),
        "ops-nn-ut": lambda: _ops_nn_ut(op_dir, plan, sources, trust),
        "upstream": lambda: _upstream(op_dir, loaded, plan, sources),
    }
    jobs.update({name: _not_preprocessed(name) for name in probing})
    for name in chosen:  # loaded here, not in the threads: two threads importing one package at once (the
        for module in TIER_MODULES.get(name, ()):  # consistency and upstream tiers both reach opgen.upstream)
            importlib.import_module(module, __package__)  # can deadlock on Python's module locks
    with ThreadPoolExecutor(max_workers=len(chosen) or 1) as pool:
        futures = {name: pool.submit(_timed, name, jobs[name], start if name == "numerics" else None, plan.name)
                   for name in chosen}
        results = tuple(futures[name].result() for name in chosen)
    used = sources.description if sources is not None else "none"
    return CheckReport(op_dir, loaded.path, used, plan.op_type, plan.families_text, results,
                       time.perf_counter() - start)


# the modules each tier's function below imports
TIER_MODULES = {"structure": (".structure",), "syntax": (".syntax_tier",), "consistency": (".consistency",),
                "headers": (".headers",), "kernel": (".kernel.run", ".kernel.tier"),
                "ops-nn-ut": (".ops_nn_ut",), "upstream": (".upstream_tier",)}


def _refused_links(leaving: list[str], chosen: list[str]) -> tuple[TierResult, ...]:
    """A tree linking outside itself fails structure, and no other tier reads it."""
    why = "not run: the tree has symlinks leading outside it (see structure); nothing of it was read"
    return _refused([bad(f"symlink {link}", "leads outside the tree (or nowhere): replace it by the file")
                     for link in leaving], chosen, why)


def _not_preprocessed(name: str) -> Callable[[], list[CheckItem]]:
    why = "not run: the tree's C/C++ asks about paths outside it (see structure); nothing was preprocessed"
    return lambda: [skipped(f"{name} tier", why)]


def _refused(found: list[CheckItem], chosen: list[str], why: str) -> tuple[TierResult, ...]:
    """Structure fails with `found`; every other chosen tier is SKIPPED saying `why`."""
    return tuple(TierResult(name, tuple(found) if name == "structure" else (skipped(f"{name} tier", why),))
                 for name in chosen)


def _timed(name: str, job: Callable[[], list[CheckItem]], since: float | None = None, op: str = "") -> TierResult:
    """Run one tier, shown as a progress step of `op` ending in its verdict (and, on a terminal, its rows)."""
    start = since if since is not None else time.perf_counter()
    with progress.step(f"{op}: {name} tier") as shown:
        try:
            items = job()
        except Exception as error:  # a bug or an unforeseen edit: report it in the table, keep the other tiers
            items = [bad(f"{name} tier", f"the tier stopped: {type(error).__name__}: {error}")]
        result = TierResult(name, tuple(items), time.perf_counter() - start)
        counts = result.counts
        shown.outcome = (f"{LABELS[result.status]} ({counts[PASS]} passed, {counts[FAIL]} failed, "
                         f"{counts[SKIP]} skipped)")
        shown.style = STYLES[result.status]
    for item in result.items:
        progress.say(f"    {LABELS[item.status]:7} {item.item}", STYLES[item.status], terminal_only=True)
    return result


def _structure(op_dir: Path, loaded: LoadedSpec, plan: RenderPlan) -> list[CheckItem]:
    from .structure import structure_tier

    return structure_tier(op_dir, loaded, plan)


def _syntax(op_dir: Path, trust: Trust) -> list[CheckItem]:
    from .syntax_tier import syntax_tier

    return syntax_tier(op_dir, trust)


def _consistency(op_dir: Path, plan: RenderPlan) -> list[CheckItem]:
    from .consistency import consistency_tier

    return consistency_tier(op_dir, plan)


def _headers(op_dir: Path, include_dirs: Sequence[Path], sources: CannSources | None) -> list[CheckItem]:
    from .headers import headers_tier

    return headers_tier(op_dir, include_dirs, sources)


def _kernel(op_dir: Path, loaded: LoadedSpec, plan: RenderPlan, sources: CannSources | None, trust: Trust,
            seed: int) -> list[CheckItem]:
    """The compile level, then the run level (classic kernels, with --allow-exec)."""
    from .kernel.run import kernel_run_rows
    from .kernel.tier import kernel_tier

    return [*kernel_tier(op_dir, plan, sources), *kernel_run_rows(op_dir, loaded.spec, plan, sources, trust, seed=seed)]


def _ops_nn_ut(op_dir: Path, plan: RenderPlan, sources: CannSources | None, trust: Trust) -> list[CheckItem]:
    from .ops_nn_ut import ops_nn_ut_tier

    return ops_nn_ut_tier(op_dir, plan, sources, trust)


def _upstream(op_dir: Path, loaded: LoadedSpec, plan: RenderPlan, sources: CannSources | None) -> list[CheckItem]:
    from .upstream_tier import upstream_tier

    return upstream_tier(op_dir, loaded.spec, plan, sources)
