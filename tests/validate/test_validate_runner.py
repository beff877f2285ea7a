"""Build output is teed into the log as it comes, and an interrupted build leaves no process behind."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from opgen.validate.runner import Log, run_logged


def alive(pid: int) -> bool:
    """Running, not a zombie left for a PID 1 that does not reap."""
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        return False
    state = next(ln for ln in status.read_text().splitlines() if ln.startswith("State:"))
    return "Z" not in state.split()[1]


def test_stdout_and_stderr_go_to_the_log_and_the_callback(tmp_path: Path) -> None:
    seen: list[str] = []
    with Log(tmp_path / "build" / "v.log") as log:
        code = run_logged(["bash", "-c", "echo one; echo two >&2; exit 3"], tmp_path, log, seen.append)

    assert code == 3
    assert seen == ["one", "two"]
    assert (tmp_path / "build" / "v.log").read_text() == "one\ntwo\n"


def test_interrupt_stops_every_process_the_build_started(tmp_path: Path) -> None:
    pids: list[int] = []

    def interrupt_after_start(line: str) -> None:
        pids.append(int(line))
        raise KeyboardInterrupt

    script = "sleep 60 & echo $!; wait"
    with Log(tmp_path / "v.log") as log, pytest.raises(KeyboardInterrupt):
        run_logged(["bash", "-c", script], tmp_path, log, interrupt_after_start)

    deadline = time.monotonic() + 5
    while alive(pids[0]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pids[0])
