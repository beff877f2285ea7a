"""What the user sees: live progress per step, the first error pointed at their op, and the JSON report."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Column
from rich.text import Text

from ..cann_prefix.workspace import missing_neighbours
from .errors_map import FirstError, clean
from .pipeline import Prepared, Report, StepResult
from .placement import Placement
from .sources_build import SourcesBuild

LABEL_WIDTH = 12


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


def error_location(error: FirstError) -> str:
    """`file:line[:col]: message`, naming the OP_DIR file when the error is in the placed copy."""
    file = str(error.op_file) if error.op_file else error.file
    if file is None or error.line is None:
        return error.message
    col = f":{error.column}" if error.column is not None else ""
    return f"{file}:{error.line}{col}: {error.message}"


class ConsoleProgress:
    """One start and one end line per step; on a terminal also a spinner, elapsed time and last output line."""

    def __init__(self, console: Console, log_path: str) -> None:
        self.console = console
        self.log_path = log_path
        self._live: Progress | None = None
        self._task: TaskID | None = None

    def start(self, result: StepResult) -> None:
        label = result.step.label
        self.console.print(Text.assemble(("RUN  ", "bold"), label.ljust(LABEL_WIDTH), (result.command, "dim")))
        if self.console.is_terminal:
            self._live = Progress(
                SpinnerColumn(),
                TextColumn(label, table_column=Column(width=LABEL_WIDTH, no_wrap=True)),
                TimeElapsedColumn(),
                TextColumn("{task.fields[last]}", markup=False, table_column=Column(ratio=1, no_wrap=True)),
                console=self.console,
                transient=True,
                expand=True,
            )
            self._live.start()
            self._task = self._live.add_task(label, last="")

    def line(self, text: str) -> None:
        if self._live is not None and self._task is not None:
            self._live.update(self._task, last=clean(text).strip())

    def finish(self, result: StepResult) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
        label = result.step.label.ljust(LABEL_WIDTH)
        took = duration(result.seconds)
        counted = f"{result.tests[1]}/{result.tests[0]} tests passed " if result.tests else ""
        if result.status == "passed":
            self.console.print(Text.assemble(("PASS ", "bold green"), label, f"{counted}in {took}"))
            return
        if result.status == "not run":
            self.console.print(Text.assemble(("STOP ", "bold yellow"), label, f"interrupted after {took}"))
            return
        if result.status == "skipped":
            self.console.print(Text.assemble(("SKIP ", "bold yellow"), label, result.step.unserved or ""))
            return
        self.console.print(Text.assemble(("FAIL ", "bold red"), label, f"exit {result.exit_code} after {took}"))
        if result.tests and result.tests[2]:
            self.console.print(Text(f"  failed tests: {', '.join(result.tests[2])}"))
        elif result.tests is not None and result.tests[0] == 0 and result.exit_code == 0:
            self.console.print(Text("  build.sh exited 0 but ran no test: the op's UTs were not built"))
        if result.error is not None:
            self.console.print(Text.assemble("  error: ", (error_location(result.error), "red")))
            self.console.print(Text(f"  log line {result.error.log_line}: {result.error.text}"))
        self.console.print(Text(f"  full log: {self.log_path}"))


def print_preamble(console: Console, prep: Prepared) -> None:
    op = prep.op
    title = f"{op.name} ({op.op_type})" if op.op_type else op.name
    where = prep.placement.target if prep.placement else prep.checkout.root / op.rel_dir
    console.print(Text(f"validate {title} for {prep.soc} at {where}", style="bold"))
    if op.record is not None:
        console.print(Text(f"record: {op.record}", style="dim"))
    if not op.from_manifest:
        console.print(
            Text(
                f"note: no opgen record found; inferred name {op.name}, category {op.category}, "
                f"experimental={str(op.experimental).lower()} from the path and SoCs "
                f"{', '.join(op.socs) or '(none)'} from op_host/config/",
                style="yellow",
            )
        )
    if isinstance(prep.build, SourcesBuild):
        console.print(Text(f"toolkit: none; build.sh runs against the prefix built from {prep.build.sources.root}: "
                           f"ASCEND_HOME_PATH={prep.build.home}"))
        lent = [] if prep.checkout.root.is_relative_to(prep.build.scratch) else missing_neighbours(prep.checkout.root)
        if lent:
            console.print(Text(f"lent for the build, removed after: {', '.join(map(str, lent))} (ops-nn's cmake "
                               "takes opbase and ops-tensor from there)"))
    elif prep.build is not None:
        sourced = f" (from {prep.build.set_env})" if prep.build.set_env else ""
        console.print(Text(f"toolkit: ASCEND_HOME_PATH={prep.build.home}{sourced}"))
    console.print(Text(f"log: {prep.checkout.log_path(op.name)}"))


def print_summary(console: Console, report: Report) -> None:
    for result in report.results:
        if result.status == "not run":
            console.print(Text.assemble(("SKIP ", "bold yellow"), result.step.label.ljust(LABEL_WIDTH), "not run"))
    if report.placement is not None:
        console.print(Text(f"checkout: {report.placement.describe()}"))
    if report.exit_code == 0:
        labels = ", ".join(r.step.label for r in report.results if r.status == "passed")
        skipped = [r.step.label for r in report.results if r.status == "skipped"]
        console.print(Text(f"validate passed: {labels}" + (f" (skipped: {', '.join(skipped)})" if skipped else ""),
                           style="bold green"))
    else:
        failed = next(r.step.label for r in report.results if r.status == "failed")
        console.print(Text(f"validate failed at {failed}; full log: {report.log}", style="bold red"))


def to_json(report: Report) -> dict[str, Any]:
    prep = report.prepared
    op = prep.op
    return {
        "exit_code": report.exit_code,
        "op": {
            "name": op.name,
            "op_type": op.op_type,
            "category": op.category,
            "experimental": op.experimental,
            "socs": list(op.socs),
            "source": "manifest" if op.from_manifest else "inferred from path",
        },
        "op_dir": str(prep.op_dir),
        "ops_nn": str(prep.checkout.root),
        "placed_at": str(prep.placement.target) if prep.placement else None,
        "soc": prep.soc,
        "ascend_home_path": str(prep.build.home) if prep.build else None,
        "toolkit": None if prep.build is None else "prefix" if isinstance(prep.build, SourcesBuild) else "installed",
        "log": str(report.log),
        "steps": [_step_json(r) for r in report.results],
        "checkout": _checkout_json(report.placement),
    }


def _checkout_json(placement: Placement | None) -> dict[str, Any] | None:
    if placement is None:
        return None
    kept_backup = placement.backup if placement.outcome == "kept" else None  # a restored backup is gone
    return {
        "outcome": placement.outcome,
        "path": str(placement.target),
        "backup": str(kept_backup) if kept_backup else None,
    }


def _step_json(result: StepResult) -> dict[str, Any]:
    error = result.error
    return {
        "stage": result.step.stage.value,
        "label": result.step.label,
        "command": result.command,
        "status": result.status,
        "reason": result.step.unserved,
        "exit_code": result.exit_code,
        "tests": None if result.tests is None else {"ran": result.tests[0], "passed": result.tests[1],
                                                    "failed": list(result.tests[2])},
        "seconds": None if result.seconds is None else round(result.seconds, 1),
        "error": None
        if error is None
        else {
            "message": error.message,
            "log_line": error.log_line,
            "log_text": error.text,
            "file": error.file,
            "line": error.line,
            "column": error.column,
            "op_file": str(error.op_file) if error.op_file else None,
        },
    }


def input_error_json(message: str) -> dict[str, Any]:
    return {"exit_code": 2, "error": message}
