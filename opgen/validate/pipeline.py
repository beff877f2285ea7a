"""Validate in two phases: `prepare` refuses bad input with nothing touched, `execute` places and builds."""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, Protocol

from ..cann_prefix.ut_run import gtest_counts
from ..errors import OpgenError
from . import runner
from .checkout import Checkout, open_checkout
from .errors_map import FirstError, PathMapper, first_error
from .opinfo import OpInfo, read_op_info
from .placement import Placement, placed, plan_placement
from .sources_build import SourcesBuild, runnable, sources_build
from .stages import Stage, Step, ordered, plan_steps
from .toolkit import Toolkit, detect

Status = Literal["passed", "failed", "skipped", "not run"]
SETTLED = ("passed", "skipped")  # any step in another state makes validate exit 1


@dataclass(frozen=True)
class Options:
    op_dir: Path
    ops_nn: Path | None  # None: a scratch copy of the --cann-src ops-nn
    soc: str | None
    stages: list[Stage] | None
    keep: bool
    force: bool
    cann: Path | None
    jobs: int
    cann_src: Path | None = None
    allow_exec: bool = False


@dataclass(frozen=True)
class Prepared:
    op: OpInfo
    op_dir: Path
    checkout: Checkout
    soc: str
    steps: tuple[Step, ...]
    build: Toolkit | SourcesBuild | None  # None when only `check` runs: no build, no toolkit needed
    placement: Placement | None
    check_options: tuple[str, ...] = ()  # the CANN sources and trust `opgen check` gets

    def command(self, step: Step) -> str:
        if step.stage is Stage.CHECK:
            return shlex.join(runner.check_argv(self.op_dir, self.check_options))
        if step.stage is Stage.PREFIX:
            assert isinstance(self.build, SourcesBuild)
            return f"build the toolkit-shaped prefix from {self.build.sources.root} at {self.build.prefix.root}"
        assert self.build is not None
        return self.build.display(step.build_args)


@dataclass
class StepResult:
    step: Step
    command: str
    status: Status = "not run"
    seconds: float | None = None
    exit_code: int | None = None
    error: FirstError | None = None
    tests: tuple[int, int, tuple[str, ...]] | None = None  # a UT step's gtest counts: ran, passed, failing names


@dataclass
class Report:
    prepared: Prepared
    log: Path
    results: list[StepResult] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 0 if all(r.status in SETTLED for r in self.results) else 1

    @property
    def placement(self) -> Placement | None:
        """The placement, once something was done with it (None for check-only or failed-check runs)."""
        placement = self.prepared.placement
        return None if placement is None or placement.outcome == "not placed" else placement


class Progress(Protocol):
    def start(self, result: StepResult) -> None: ...
    def line(self, text: str) -> None: ...
    def finish(self, result: StepResult) -> None: ...


def prepare(opts: Options) -> Prepared:
    """Every check that needs no build: op, checkout, category, SoC, stages, toolkit, clobbering."""
    op_dir = opts.op_dir.resolve()
    op = read_op_info(op_dir)
    from_sources = _from_sources(opts)
    if opts.ops_nn is not None:
        checkout = open_checkout(opts.ops_nn)
    elif from_sources is not None:
        checkout = open_checkout(from_sources.scratch_checkout())
    else:
        raise OpgenError("pass --ops-nn PATH (the root of an ops-nn checkout to build in), or, with no toolkit, "
                         "--cann-src DIR to build in a scratch copy of the open sources' ops-nn")
    if op.category not in checkout.categories:
        raise OpgenError(
            f"category {op.category!r} is not one ops-nn builds (OP_CATEGORY_LIST in cmake/variables.cmake: "
            f"{', '.join(checkout.categories)})",
            where=str(op_dir),
        )
    soc = _pick_soc(op, opts.soc, op_dir)
    steps = plan_steps(op, op_dir, soc, ordered(opts.stages), opts.jobs)
    builds = any(s.stage is not Stage.CHECK for s in steps)
    build = (from_sources or detect(opts.cann, steps)) if builds else None
    if isinstance(build, SourcesBuild):
        steps = _against_prefix(build, steps)
    scratch = opts.ops_nn is None  # the scratch copy is opgen's: upstream's op of that name is swapped out
    placement = plan_placement(checkout, op.rel_dir, op_dir, opts.force or scratch) if builds else None
    return Prepared(op, op_dir, checkout, soc, steps, build, placement, check_options(opts))


def _from_sources(opts: Options) -> SourcesBuild | None:
    """build.sh runs against the open sources' prefix when --cann-src is given and no toolkit is: a toolkit,
    when there, is the real thing and wins."""
    if opts.cann_src is None or opts.cann is not None or os.environ.get("ASCEND_HOME_PATH"):
        return None
    return sources_build(opts.cann_src)


def _against_prefix(build: SourcesBuild, steps: tuple[Step, ...]) -> tuple[Step, ...]:
    """The prefix step before the first build, and each step the prefix cannot serve marked with why."""
    if not runnable(build, steps):
        why = "; ".join(sorted({reason for s in steps if (reason := build.unserved(s))}))
        raise OpgenError(f"with no toolkit, --cann-src runs only the op_host, op_api and op_kernel UTs (--stage ut), "
                         f"and nothing asked for can run: {why}")
    checks = tuple(s for s in steps if s.stage is Stage.CHECK)
    builds = tuple(replace(s, unserved=build.unserved(s)) for s in steps if s.stage is not Stage.CHECK)
    return (*checks, Step(Stage.PREFIX, "prefix", ()), *builds)


def check_options(opts: Options) -> tuple[str, ...]:
    """The check stage sees the same CANN sources as the build (an explicit --cann-src wins) and the same trust."""
    sources = ("--cann-src", str(opts.cann_src)) if opts.cann_src else ("--cann", str(opts.cann)) if opts.cann else ()
    return (*sources, *(("--allow-exec",) if opts.allow_exec else ()))


def _pick_soc(op: OpInfo, soc: str | None, op_dir: Path) -> str:
    if soc is None:
        if not op.socs:
            raise OpgenError("cannot tell the op's SoCs (no manifest, no op_host/config/<soc>/); pass --soc")
        return op.socs[0]
    if op.socs and soc not in op.socs:
        raise OpgenError(f"the op does not support --soc {soc}; it supports {', '.join(op.socs)}", where=str(op_dir))
    return soc


def execute(prep: Prepared, keep: bool, ui: Progress) -> Report:
    """Run the steps in order, stopping at the first failure; the checkout is restored whatever happens."""
    report = Report(prep, prep.checkout.log_path(prep.op.name))
    report.results = [StepResult(step, prep.command(step)) for step in prep.steps]
    unplaced = (Stage.CHECK, Stage.PREFIX)  # steps that need the op nowhere in the checkout
    before = [r for r in report.results if r.step.stage in unplaced]
    builds = [r for r in report.results if r.step.stage not in unplaced]
    with runner.Log(report.log) as log:
        if not _run_all(prep, before, log, ui) or prep.placement is None:
            return report
        with ExitStack() as around:
            if isinstance(prep.build, SourcesBuild):
                for place in around.enter_context(prep.build.around_builds(prep.checkout.root)):
                    log.write(f"===== opgen validate: lent {place} for the build (removed after)")
            around.enter_context(placed(prep.placement, keep))
            _run_all(prep, builds, log, ui)
    return report


def _run_all(prep: Prepared, results: list[StepResult], log: runner.Log, ui: Progress) -> bool:
    return all(_run_one(prep, result, log, ui) for result in results)


def _run_one(prep: Prepared, result: StepResult, log: runner.Log, ui: Progress) -> bool:
    step = result.step
    if step.unserved:
        result.status = "skipped"
        ui.finish(result)
        return True
    log.write(f"===== opgen validate: {step.label}: {result.command}")
    first_line = log.lines + 1
    output: list[str] = []

    def on_line(text: str) -> None:
        output.append(text)
        ui.line(text)

    ui.start(result)
    started = time.monotonic()
    try:  # finish() also on Ctrl-C, so the live display is taken down; the status stays "not run"
        if step.stage is Stage.CHECK:
            code = runner.run_opgen_check(prep.op_dir, prep.check_options, log, on_line)
        elif step.stage is Stage.PREFIX:
            code = _build_prefix(prep, log, on_line)
        else:
            assert prep.build is not None
            code = runner.run_logged(prep.build.command(step.build_args), prep.checkout.root, log, on_line)
        result.exit_code = code
        if step.stage is Stage.UT:
            result.tests = gtest_counts("\n".join(output))
        ran_none = result.tests is not None and result.tests[0] == 0
        result.status = "passed" if code == 0 and not ran_none else "failed"
        if code != 0:
            mapper = PathMapper(prep.checkout.root, prep.checkout.root / prep.op.rel_dir, prep.op_dir)
            result.error = first_error(output, first_line, mapper)
    finally:
        result.seconds = time.monotonic() - started
        ui.finish(result)
    return result.status == "passed"


def _build_prefix(prep: Prepared, log: runner.Log, on_line: runner.OnLine) -> int:
    """The prefix step's exit code: 0 built or cached, 1 with the reason in the log (a piece this machine
    cannot get is named with how to get it)."""
    assert isinstance(prep.build, SourcesBuild)
    kernel_uts = any("--opkernel" in s.build_args and not s.unserved for s in prep.steps)
    try:
        prefix = prep.build.build(prep.op_dir, prep.soc, kernel_uts)
    except (OpgenError, OSError, subprocess.SubprocessError) as error:
        message = f"the toolkit-shaped prefix did not build: {error}"
        code = 1
    else:
        how = f"built in {prefix.seconds:.0f}s" if prefix.seconds else "cached"
        message = f"toolkit-shaped prefix {how} at {prefix.root}"
        code = 0
    log.write(message)
    on_line(message)
    return code
