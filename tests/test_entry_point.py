"""The real `opgen` process against a hostile environment: an ASCII-only stdout, stdout closed or full or a
closed pipe, a signal before any command runs. Each answers with a message and an exit code, never a
traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import RELU, RELU_DIR

OPGEN = [sys.executable, "-m", "opgen"]


def _gen_args(tmp_path: Path) -> list[str]:
    return ["gen", str(RELU), "-o", str(tmp_path / "out"), "--record-dir", str(tmp_path / "records")]


def _written(tmp_path: Path) -> str:
    return f"{tmp_path / 'out' / RELU_DIR}, {tmp_path / 'records' / RELU_DIR} had been written completely before"


ASCII_ENVS = {"PYTHONIOENCODING=ascii": {"PYTHONIOENCODING": "ascii"},
              "POSIX locale": {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}}


@pytest.mark.parametrize("env", sorted(ASCII_ENVS))
def test_an_ascii_only_stdout_prints_escapes(tmp_path: Path, env: str) -> None:
    """check's summary has an em dash, an output path can have any letter: printed as `\\u2014`, no crash."""
    environ = {**os.environ, **ASCII_ENVS[env], "OPGEN_RECORD_DIR": str(tmp_path / "records")}
    out = tmp_path / "名字"
    gen = subprocess.run([*OPGEN, "gen", str(RELU), "-o", str(out)], env=environ, capture_output=True,
                         text=True, encoding="ascii", errors="strict")
    assert gen.returncode == 0, gen.stderr
    assert "\\u540d\\u5b57" in gen.stdout or "\\udce5\\udc90\\udc8d" in gen.stdout  # the path's letters or bytes
    check = subprocess.run([*OPGEN, "check", str(out / RELU_DIR)], env=environ, capture_output=True, text=True,
                           encoding="ascii", errors="strict")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "\\u2014" in check.stdout


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_stdout_says_everything_was_written(tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        gen = subprocess.run([*OPGEN, *_gen_args(tmp_path)], stdout=full, stderr=subprocess.PIPE, text=True)
    assert gen.returncode == 2
    assert gen.stderr == (f"error: cannot print to stdout (No space left on device); {_written(tmp_path)}; "
                          "nothing else was changed\n")
    assert (tmp_path / "out" / RELU_DIR / "CMakeLists.txt").is_file()


def test_a_closed_pipe_or_closed_stdout_says_everything_was_written(tmp_path: Path) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before opgen prints
    try:
        piped = subprocess.run([*OPGEN, *_gen_args(tmp_path / "piped")], stdout=write, stderr=subprocess.PIPE,
                               text=True)
    finally:
        os.close(write)
    assert piped.returncode == 2
    assert piped.stderr.startswith("error: cannot print to stdout (Broken pipe); "), piped.stderr
    assert _written(tmp_path / "piped") in piped.stderr
    closed = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *OPGEN, *_gen_args(tmp_path / "closed")],
                            stderr=subprocess.PIPE, text=True)
    assert closed.returncode == 2
    assert closed.stderr.startswith("error: cannot print to stdout (stdout is closed); "), closed.stderr
    assert (tmp_path / "closed" / "out" / RELU_DIR / "CMakeLists.txt").is_file()


# a child that stalls while `opgen` imports typer (the commands' first heavy import), as a slow disk would
_STALL_IN_IMPORTS = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # as an interactive shell leaves it
class Stall:
    def find_spec(self, name, path=None, target=None):
        if name == "typer":
            print("importing", flush=True)
            time.sleep(30)
        return None
sys.meta_path.insert(0, Stall())
from opgen.cli import main
sys.argv = ["opgen", "--version"]
main()
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_before_any_command_runs_is_reported(sig: signal.Signals) -> None:
    proc = subprocess.Popen([sys.executable, "-c", _STALL_IN_IMPORTS], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "importing"
    time.sleep(0.1)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert err == "interrupted: nothing was changed\n"


def test_the_interrupt_tests_pass_in_a_background_job() -> None:
    """`pytest &` in a script ignores SIGINT; the tests that send one set their own handler (the README's test
    command must pass run in the background)."""
    tests = ["tests/regen/test_apply.py::test_ctrl_c_during_the_swaps_waits_for_them",
             "tests/test_fuzz.py::test_an_interrupted_render_leaves_no_trace"]
    background = "import signal, subprocess, sys\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n" \
                 "sys.exit(subprocess.call(sys.argv[1:]))\n"
    # one process: the ignored SIGINT is inherited alike by xdist's workers, which would only add their start-up
    done = subprocess.run([sys.executable, "-c", background, sys.executable, "-m", "pytest", "-q", "-n", "0",
                           "-p", "no:cacheprovider", *tests], cwd=Path(__file__).parent.parent,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:]


def test_a_background_job_keeps_sigint_ignored_and_still_reports_sigterm() -> None:
    """A script's `opgen ... &` ignores SIGINT (the script's Ctrl-C is not the job's); SIGTERM still unwinds."""
    script = _STALL_IN_IMPORTS.replace("signal.default_int_handler", "signal.SIG_IGN")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "importing"
    proc.send_signal(signal.SIGINT)
    time.sleep(0.3)
    assert proc.poll() is None
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert err == "interrupted: nothing was changed\n"
