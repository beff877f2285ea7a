"""Progress of long work: plain lines off a terminal (stderr only, so `--json` stays clean), a live area with the
running steps and their elapsed time on one, and `opgen check` showing its tiers as they finish."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from rich.console import Console

from opgen import progress

ROOT = Path(__file__).resolve().parents[1]
RELU = ROOT / "generated_samples/activation/relu_grad_v2"


def test_off_a_terminal_each_finished_step_is_one_plain_line() -> None:
    out = io.StringIO()
    with progress.reporting(stream=out):
        with progress.step("prefix: protobuf"):
            time.sleep(0.05)
        with progress.step("relu_grad_v2: kernel tier") as shown:
            shown.outcome = "PASS (13 passed)"
        progress.say("a detail for terminals", terminal_only=True)
        progress.say("building the prefix: about 20 min")
    lines = out.getvalue().splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("opgen: prefix: protobuf: done in 0.")
    assert lines[1].startswith("opgen: relu_grad_v2: kernel tier: PASS (13 passed) in ")
    assert lines[2] == "opgen: building the prefix: about 20 min"


def test_a_step_that_raises_is_reported_stopped() -> None:
    out = io.StringIO()
    with progress.reporting(stream=out), pytest.raises(RuntimeError), progress.step("compile fp16"):
        raise RuntimeError("boom")
    assert out.getvalue().startswith("opgen: compile fp16: stopped in ")


def test_without_a_reporter_nothing_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    with progress.step("quiet"):
        progress.say("nobody listens")
    assert capsys.readouterr() == ("", "")


def test_on_a_terminal_running_steps_show_with_their_elapsed_time() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100, color_system=None)
    started = threading.Event()

    def compile_in_a_thread() -> None:
        with progress.step("relu_grad_v2: compile ascend950 fp16") as shown:
            shown.detail = "3/10 sources"
            started.set()
            time.sleep(1.3)

    with progress.reporting(console):
        worker = threading.Thread(target=compile_in_a_thread)
        worker.start()
        started.wait()
        worker.join()
        progress.say("    PASS    ascend950 fp16 compile", terminal_only=True)
    text = out.getvalue()
    assert "… relu_grad_v2: compile ascend950 fp16 3/10 sources 1s" in text  # the live area, ticking as it ran
    assert "relu_grad_v2: compile ascend950 fp16: done in 1s" in text
    assert "PASS    ascend950 fp16 compile" in text


def _check(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "opgen", "check", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, check=False)


def test_check_off_a_terminal_prints_a_line_per_tier_on_stderr_and_clean_json_on_stdout() -> None:
    done = _check(str(RELU), "--tier", "structure", "--tier", "syntax", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "pass"
    lines = sorted(done.stderr.splitlines())
    assert len(lines) == 2
    assert lines[0].startswith("opgen: relu_grad_v2: structure tier: PASS (")
    assert lines[1].startswith("opgen: relu_grad_v2: syntax tier: PASS (5 passed, 0 failed, 0 skipped) in ")


def test_check_on_a_terminal_shows_each_finished_tier_with_its_rows() -> None:
    pty = pytest.importorskip("pty")
    primary, secondary = pty.openpty()
    argv = [sys.executable, "-m", "opgen", "check", str(RELU), "--tier", "syntax", "--json"]
    with subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=secondary, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120", "TERM": "xterm"}) as child:
        os.close(secondary)
        shown = b""
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            shown += chunk
        stdout = child.stdout.read() if child.stdout else ""
    os.close(primary)
    assert child.returncode == 0
    assert json.loads(stdout)["status"] == "pass"
    text = shown.decode(errors="replace")
    assert "relu_grad_v2: syntax tier: PASS (5 passed, 0 failed, 0 skipped)" in text
    assert "PASS    CMake files" in text  # the tier's rows, as it finished
