"""Validate in two phases: `prepare` refuses bad input with nothing touched, `execute` places and builds."""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from ..errors import OpgenError
from . import runner
from .checkout import Checkout, open_checkout
from .errors_map import FirstError, PathMapper, first_error
from .opinfo import OpInfo, read_op_info
from .placement import Placement, placed, plan_placement
from .stages import Stage, Step, ordered, plan_steps
from .toolkit import Toolkit, detect

Status = Literal["passed", "failed", "not run"]


@dataclass(frozen=True)
class Options:
    op_dir: Path
    ops_nn: Path
    soc: str | None
    stages: list[Stage] | None
    keep: bool
    force: bool
    cann: Path | None
    jobs: int


@dataclass(frozen=True)
class Prepared:
    op: OpInfo
    op_dir: Path
    checkout: Checkout
    soc: str
    steps: tuple[Step, ...]
    toolkit: Toolkit | None  # None when only `check` runs: no build, no toolkit needed
    placement: Placement | None
    cann: Path | None = None  # the toolkit named with --cann: check's source tiers use it too

    def command(self, step: Step) -> str:
        if step.stage is Stage.CHECK:
            return shlex.join(runner.check_argv(self.op_dir, self.cann))
        assert self.toolkit is not None
        return self.toolkit.display(step.build_args)


@dataclass
class StepResult:
    step: Step
    command: str
    status: Status = "not run"
    seconds: float | None = None
    exit_code: int | None = None
    error: FirstError | None = None


@dataclass
class Report:
    prepared: Prepared
    log: Path
    results: list[StepResult] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 0 if all(r.status == "passed" for r in self.results) else 1

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
    checkout = open_checkout(opts.ops_nn)
    if op.category not in checkout.categories:
        raise OpgenError(
            f"category {op.category!r} is not one ops-nn builds (OP_CATEGORY_LIST in cmake/variables.cmake: "
            f"{', '.join(checkout.categories)})",
            where=str(op_dir),
        )
    soc = _pick_soc(op, opts.soc, op_dir)
    steps = plan_steps(op, op_dir, soc, ordered(opts.stages), opts.jobs)
    builds = any(s.stage is not Stage.CHECK for s in steps)
    toolkit = detect(opts.cann, steps) if builds else None
    placement = plan_placement(checkout, op.rel_dir, op_dir, opts.force) if builds else None
    return Prepared(op, op_dir, checkout, soc, steps, toolkit, placement, opts.cann)


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
    checks = [r for r in report.results if r.step.stage is Stage.CHECK]
    builds = [r for r in report.results if r.step.stage is not Stage.CHECK]
    with runner.Log(report.log) as log:
        if not _run_all(prep, checks, log, ui) or prep.placement is None:
            return report
        with placed(prep.placement, keep):
            _run_all(prep, builds, log, ui)
    return report


def _run_all(prep: Prepared, results: list[StepResult], log: runner.Log, ui: Progress) -> bool:
    return all(_run_one(prep, result, log, ui) for result in results)


def _run_one(prep: Prepared, result: StepResult, log: runner.Log, ui: Progress) -> bool:
    step = result.step
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
            code = runner.run_opgen_check(prep.op_dir, log, on_line, prep.cann)
        else:
            assert prep.toolkit is not None
            code = runner.run_logged(prep.toolkit.command(step.build_args), prep.checkout.root, log, on_line)
        result.exit_code = code
        result.status = "passed" if code == 0 else "failed"
        if code != 0:
            mapper = PathMapper(prep.checkout.root, prep.checkout.root / prep.op.rel_dir, prep.op_dir)
            result.error = first_error(output, first_line, mapper)
    finally:
        result.seconds = time.monotonic() - started
        ui.finish(result)
    return result.status == "passed"
