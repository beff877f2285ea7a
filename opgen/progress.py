"""What long work is doing while it runs: a check can take 40 minutes cold (the prefix, compiles, build.sh), and a
silent terminal looks hung. Code anywhere wraps its slow steps in `step(label)`; nothing is shown unless a command
installed a reporter with `reporting()`, so library use and tests stay quiet.

On a terminal a live area (stderr) lists what is running and for how long, and each finished step or line
is printed above it. Elsewhere (CI, a pipe) each finished step is one plain line on stderr, so stdout (`--json`)
stays clean. Steps may start and end in any thread.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

PREFIX = "opgen: "  # every plain line starts so, to grep out of a CI log


class Reporter(Protocol):
    terminal: bool

    def started(self, key: int, label: str, state: Step) -> None: ...

    def finished(self, key: int, label: str, seconds: float, outcome: str, style: str) -> None: ...

    def line(self, text: str, style: str = "") -> None: ...


@dataclass
class Step:
    """What the step's end line says: the caller may set a verdict ("PASS (3 passed)") and its style, and while it
    runs a `detail` the live area shows after the label ("212/436 sources")."""

    outcome: str = "done"
    style: str = "dim"
    detail: str = ""


_reporter: Reporter | None = None
_next_key = iter(range(1, sys.maxsize))
_key_lock = threading.Lock()


@contextmanager
def step(label: str) -> Iterator[Step]:
    """Time the block as one step: shown while it runs, and one line when it ends ("done", the verdict the block
    set, or "stopped" when it raised)."""
    reporter = _reporter
    state = Step()
    if reporter is None:
        yield state
        return
    with _key_lock:
        key = next(_next_key)
    start = time.perf_counter()
    reporter.started(key, label, state)
    ended = False
    try:
        yield state
        ended = True
    finally:
        outcome, style = (state.outcome, state.style) if ended else ("stopped", "red")
        reporter.finished(key, label, time.perf_counter() - start, outcome, style)


def say(text: str, style: str = "", *, terminal_only: bool = False) -> None:
    """One line for the user now (what a first build will cost; with `terminal_only`, detail such as a finished
    tier's rows, which a CI log has in the report anyway); nothing when no reporter listens."""
    if _reporter is not None and (_reporter.terminal or not terminal_only):
        _reporter.line(text, style)


@dataclass
class PlainReporter:
    """One line per finished step, flushed at once (a CI log shows it while the job runs)."""

    stream: IO[str]
    lock: threading.Lock = field(default_factory=threading.Lock)
    terminal: bool = False

    def started(self, key: int, label: str, state: Step) -> None:
        """Only finished steps are printed off a terminal: a start line per step would double the log."""

    def finished(self, key: int, label: str, seconds: float, outcome: str, style: str) -> None:
        self.line(f"{label}: {outcome} in {seconds:.1f} s")

    def line(self, text: str, style: str = "") -> None:
        with self.lock:
            self.stream.write(f"{PREFIX}{text}\n")
            self.stream.flush()


class _Running:
    """The live area's content, computed at each refresh so the elapsed times tick."""

    def __init__(self) -> None:
        self.steps: dict[int, tuple[str, float, Step]] = {}
        self.lock = threading.Lock()

    def __rich__(self) -> RenderableType:
        from rich.table import Table
        from rich.text import Text

        grid = Table.grid(padding=(0, 1))
        now = time.perf_counter()
        with self.lock:
            shown = list(self.steps.values())
        for label, since, state in shown:
            grid.add_row(Text("…", style="cyan"), Text(f"{label} {state.detail}".rstrip()),
                         Text(_elapsed(now - since), style="dim"))
        return grid


def _elapsed(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 60}m{whole % 60:02d}s" if whole >= 60 else f"{whole}s"


class LiveReporter:
    """rich's Live area on stderr: the running steps with their elapsed time, finished lines printed above."""

    terminal = True

    def __init__(self, console: Console) -> None:
        from rich.live import Live

        self.running = _Running()
        # stdout is not taken over: it is the report's (a table, --json), which may go to a file
        self.live = Live(self.running, console=console, refresh_per_second=4, transient=True, redirect_stdout=False)

    def started(self, key: int, label: str, state: Step) -> None:
        with self.running.lock:
            self.running.steps[key] = (label, time.perf_counter(), state)

    def finished(self, key: int, label: str, seconds: float, outcome: str, style: str) -> None:
        with self.running.lock:
            self.running.steps.pop(key, None)
        self.line(f"{label}: {outcome} in {_elapsed(seconds)}", style)

    def line(self, text: str, style: str = "") -> None:
        from rich.text import Text

        self.live.console.print(Text(text, style=style), soft_wrap=True)


@contextmanager
def reporting(console: Console | None = None, *, stream: IO[str] | None = None) -> Iterator[None]:
    """Show progress for the block: live on a terminal (`console`, default stderr's), else plain lines on `stream`
    (default stderr). Nested use keeps the outer reporter."""
    global _reporter
    if _reporter is not None:
        yield
        return
    if console is None and stream is None:
        from .console import console as make_console

        console = make_console(stderr=True)
    live = console is not None and console.is_terminal and not console.is_dumb_terminal
    if live:
        assert console is not None
        reporter = LiveReporter(console)
        _reporter = reporter
        try:
            with reporter.live:
                yield
        finally:
            _reporter = None
        return
    _reporter = PlainReporter(stream if stream is not None else (console.file if console is not None else sys.stderr))
    try:
        yield
    finally:
        _reporter = None
