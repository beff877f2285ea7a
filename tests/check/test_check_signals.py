"""`opgen check` stopped by SIGINT, SIGTERM or SIGKILL, and tree code escaping its session: the run ends at once
(130 for SIGINT and SIGTERM alike, the CLI's convention) and no process it started is left running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from .trees import GELU, RELU, copy_sample

# the `#if` evaluates ~10^10 tokens: cc1plus runs for minutes and prints nothing
SLOW_PREPROCESS = "\n".join(["#define A0 1+1+1+1+1+1+1+1+1+1",
                             *(f"#define A{i} " + "+".join([f"A{i - 1}"] * 10) for i in range(1, 10)),
                             "#if A9 > 0", "#endif", ""])
GOLDEN = "tests/assets/golden.py"


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _gone(pid: int) -> bool:
    fields = _stat(pid)
    return fields is None or fields[0] == "Z"


def _descendants(root: int) -> set[int]:
    """Every live process below `root` now (setsid does not hide a process from its parent chain)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (fields := _stat(int(name))) is not None and fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(name))
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _wait_for(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


# `opgen ARGS...` with SIGINT handled as an interactive shell leaves it, even when pytest runs as a background job
# (which ignores SIGINT, and so would opgen)
_OPGEN = """
import signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
from opgen.cli import main
sys.argv = ["opgen", *sys.argv[1:]]
main()
"""


def _opgen(args: list[str], tmp_path: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    out = (tmp_path / "out.txt").open("w")
    return subprocess.Popen([sys.executable, "-c", _OPGEN, *args], stdout=out, stderr=out, text=True, env=env)


def _check(args: list[str], tmp_path: Path) -> subprocess.Popen[str]:
    return _opgen(["check", *args], tmp_path)


def _reap_all(process: subprocess.Popen[str], left: set[int]) -> None:
    """After a failing run of the old code: nothing of the test may outlive it."""
    for pid in left | _descendants(process.pid) | {process.pid}:
        if not _gone(pid):
            os.kill(pid, signal.SIGKILL)
    process.wait()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_a_long_preprocess_ends_check_at_once_with_nothing_left(tmp_path: Path,
                                                                                 signum: int) -> None:
    """It was acted on when the running preprocess ended (minutes), and SIGTERM let new ones start."""
    op_dir = copy_sample(tmp_path, RELU)
    for cpp in sorted((op_dir / "op_host").glob("*.cpp"))[:2]:
        cpp.write_text(SLOW_PREPROCESS)
    process = _check([str(op_dir), "--tier", "syntax"], tmp_path)
    running: set[int] = set()
    try:
        assert _wait_for(lambda: any("cc1plus" in _cmdline(p) for p in _descendants(process.pid)), 30)
        time.sleep(0.3)
        running = _descendants(process.pid)
        start = time.monotonic()
        process.send_signal(signum)
        returncode = process.wait(timeout=10)
        assert time.monotonic() - start < 2.5
        assert returncode == 130
        assert "interrupted: nothing was changed" in (tmp_path / "out.txt").read_text()
        assert [p for p in running if not _gone(p)] == []
    finally:
        _reap_all(process, running)


def _hostile_golden(op_dir: Path, marker: Path, then: str) -> None:
    """golden.py starts a `sleep` in a session of its own (holding golden's stdout), notes both pids, then
    does `then`."""
    golden = op_dir / GOLDEN
    golden.write_text(golden.read_text() + (
        "\nimport os as _os, subprocess as _subprocess, time as _time\n"
        "_sleep = _subprocess.Popen(['setsid', 'sleep', '300'])\n"
        f"open({str(marker)!r}, 'a').write(f'{{_os.getpid()}} {{_sleep.pid}}\\n')\n"
        f"{then}\n"))


def test_tree_code_escaping_by_setsid_neither_holds_check_nor_outlives_it(tmp_path: Path) -> None:
    """check waited on the pipes the escaped `sleep` held: as long as it slept."""
    op_dir = copy_sample(tmp_path, GELU)
    marker = tmp_path / "pids"
    _hostile_golden(op_dir, marker, "")
    process = _check([str(op_dir), "--tier", "syntax", "--allow-exec"], tmp_path)
    pids: set[int] = set()
    try:
        start = time.monotonic()
        returncode = process.wait(timeout=60)
        assert time.monotonic() - start < 15
        assert returncode == 0, (tmp_path / "out.txt").read_text()
        pids = {int(pid) for pid in marker.read_text().split()}
        assert len(pids) == 2
        assert [p for p in pids if not _gone(p)] == []
    finally:
        _reap_all(process, pids)


def test_a_sigkilled_check_leaves_no_tree_code_running(tmp_path: Path) -> None:
    """The golden and the `sleep` it started in a session of its own ran on after opgen was SIGKILLed."""
    op_dir = copy_sample(tmp_path, GELU)
    marker = tmp_path / "pids"
    _hostile_golden(op_dir, marker, "_time.sleep(300)")
    process = _check([str(op_dir), "--tier", "syntax", "--allow-exec"], tmp_path)
    running: set[int] = set()
    try:
        assert _wait_for(lambda: marker.is_file() and len(marker.read_text().split()) == 2, 30)
        running = _descendants(process.pid)
        assert {int(pid) for pid in marker.read_text().split()} <= running
        process.kill()
        process.wait()
        assert _wait_for(lambda: all(_gone(p) for p in running), 5), [_cmdline(p) for p in running if not _gone(p)]
    finally:
        _reap_all(process, running)


def test_a_sigkilled_check_leaves_no_numerics_child_running(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    process = _check([str(op_dir), "--tier", "numerics"], tmp_path)
    running: set[int] = set()
    try:
        assert _wait_for(lambda: any("opgen.check.numerics_tier" in _cmdline(p)
                                     for p in _descendants(process.pid)), 30)
        running = _descendants(process.pid)
        process.kill()
        process.wait()
        assert _wait_for(lambda: all(_gone(p) for p in running), 5), [_cmdline(p) for p in running if not _gone(p)]
    finally:
        _reap_all(process, running)


def test_sigint_during_the_prefix_build_ends_prepare_at_once_with_nothing_left(cann_src: Path, tmp_path: Path) -> None:
    """The prefix's cmake, ninja and compiles ran as plain subprocesses: Ctrl-C killed ninja and left its compilers
    running, or waited for the compiles the framework's threads had started."""
    from opgen.cann_prefix import layout, protobuf
    from opgen.cann_sources import cache_root

    cache = tmp_path / "cache"
    cache.mkdir()
    built = layout.protobuf_dir(cache_root())
    if protobuf.library(built).is_file():  # the step after it starts cmake at once; without it, its own build does
        layout.protobuf_dir(cache).symlink_to(built)
    env = {**os.environ, "OPGEN_CACHE": str(cache)}
    process = _opgen(["prepare", "--cann-src", str(cann_src)], tmp_path, env)
    running: set[int] = set()
    try:
        assert _wait_for(lambda: any("cc1plus" in _cmdline(p) for p in _descendants(process.pid)), 300), \
            (tmp_path / "out.txt").read_text()
        running = _descendants(process.pid)
        start = time.monotonic()
        process.send_signal(signal.SIGINT)
        returncode = process.wait(timeout=30)
        assert time.monotonic() - start < 2.5
        assert returncode == 130, (tmp_path / "out.txt").read_text()
        assert [_cmdline(p) for p in running if not _gone(p)] == []
    finally:
        _reap_all(process, running)
