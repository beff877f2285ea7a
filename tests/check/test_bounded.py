"""The bounds of every child `opgen check` starts (bounded.py): output capped as it is read, the memory
limit in force from exec, nothing that escaped the child's session left running or waited on, bad settings
refused before any work."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from opgen.check import bounded
from opgen.check.bounded import compile_memory, run_bounded
from opgen.check.syntax_tier import syntax_tier
from opgen.errors import OpgenError

from .trees import RELU, copy_sample, failing

INFERSHAPE = "op_host/relu_grad_v2_infershape.cpp"
# each line multiplies the expansion by 10: ~10^11 tokens, printed at the preprocessor's full speed
MACRO_BOMB = "\n".join(["#define B0 x x x x x x x x x x",
                        *(f"#define B{i} " + " ".join([f"B{i - 1}"] * 10) for i in range(1, 11)), "B10", ""])


def _gone(pid: int) -> bool:
    """Not running: no such process, or a zombie waiting for its parent."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_output_past_the_cap_stops_the_run_and_names_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_CHILD_OUTPUT", "1")
    start = time.monotonic()
    run = run_bounded(["yes"], timeout=60)
    assert time.monotonic() - start < 10
    assert run.failure is not None and "more than 1 MiB" in run.failure and "OPGEN_CHILD_OUTPUT" in run.failure
    assert len(run.stdout) < 2 << 20


def test_a_macro_bomb_fails_the_syntax_tier_at_the_output_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The preprocessed text is what the tier parses: a cut one is never parsed, the file fails."""
    monkeypatch.setenv("OPGEN_CHILD_OUTPUT", "4")
    monkeypatch.setenv("OPGEN_COMPILE_TIMEOUT", "60")
    op_dir = copy_sample(tmp_path, RELU)
    (op_dir / INFERSHAPE).write_text(MACRO_BOMB)
    start = time.monotonic()
    (bad,) = failing(syntax_tier(op_dir))
    assert time.monotonic() - start < 20
    assert bad.item == f"C/C++ {INFERSHAPE}"
    assert "printed more than 4 MiB" in bad.reason and "OPGEN_CHILD_OUTPUT" in bad.reason


@pytest.fixture(params=["compiled watcher", "python watcher"])
def watcher(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bounds hold under both watchers: reaper.c, compiled into the cache, and reaper.py, used where no C
    compiler is found."""
    if request.param == "python watcher":
        monkeypatch.setattr(bounded, "_watcher", lambda: [sys.executable, "-I", "-S", str(bounded.REAPER)])


def test_the_watcher_is_compiled_once_into_the_cache_and_is_python_without_a_compiler(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPGEN_CACHE", str(tmp_path))
    (binary,) = bounded._watcher.__wrapped__()
    assert Path(binary).parent == tmp_path / "reaper" and os.access(binary, os.X_OK)
    assert bounded._watcher.__wrapped__() == [binary]
    monkeypatch.setenv("OPGEN_CACHE", str(tmp_path / "empty"))
    monkeypatch.setattr(bounded, "_which", lambda name, path: None)
    assert bounded._watcher.__wrapped__() == [sys.executable, "-I", "-S", str(bounded.REAPER)]


@pytest.mark.usefixtures("watcher")
def test_the_memory_limit_binds_what_the_child_forks_at_once() -> None:
    """Set after exec, the limit missed what the child had forked by then (gcc's cc1plus): a 1 MiB limit still
    preprocessed most times, and a subshell forked at start reported no limit at all."""
    for _ in range(5):
        run = run_bounded(["sh", "-c", "ulimit -v & wait"], timeout=60, memory=1 << 30)
        assert run.stdout.strip() == str(1 << 20)  # KiB
    gcc = shutil.which("gcc") or pytest.skip("no gcc")
    for _ in range(3):
        run = run_bounded([gcc, "-E", "-x", "c++", "-"], timeout=60, memory=1 << 20, input="int x;\n")
        assert run.returncode != 0
    roomy = run_bounded([gcc, "-E", "-x", "c++", "-"], timeout=60, memory=compile_memory(), input="int x;\n")
    assert roomy.returncode == 0 and "int x;" in roomy.stdout


@pytest.mark.usefixtures("watcher")
def test_a_process_escaping_by_setsid_is_not_waited_on_and_is_killed() -> None:
    """It holds the child's stdout: reading to EOF waited as long as it lived."""
    start = time.monotonic()
    run = run_bounded(["sh", "-c", "setsid sleep 60 & echo $!"], timeout=30)
    assert time.monotonic() - start < 5
    assert run.failure is None and run.returncode == 0
    assert _gone(int(run.stdout))


@pytest.mark.usefixtures("watcher")
def test_a_process_escaping_by_setsid_dies_with_a_run_that_times_out() -> None:
    """Its parent stays until the group is killed; then it is orphaned and still found."""
    start = time.monotonic()
    run = run_bounded(["sh", "-c", "setsid sleep 60 & echo $!; sleep 60"], timeout=2)
    assert time.monotonic() - start < 8
    assert run.timed_out
    assert _gone(int(run.stdout))


@pytest.mark.parametrize("value", ["inf", "1e30", "nan", "0", "-3", "lots"])
def test_a_setting_that_is_no_usable_number_is_refused(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("OPGEN_COMPILE_MEMORY", value)
    with pytest.raises(OpgenError, match=r"OPGEN_COMPILE_MEMORY=.* is not a setting: give the GiB"):
        compile_memory()


@pytest.mark.parametrize(("name", "value"), [("OPGEN_COMPILE_TIMEOUT", "inf"), ("OPGEN_COMPILE_MEMORY", "1e30"),
                                             ("OPGEN_EXEC_TIMEOUT", "ten"), ("OPGEN_CHILD_OUTPUT", "-1")])
def test_check_refuses_a_bad_setting_before_any_work(tmp_path: Path, name: str, value: str) -> None:
    """inf and 1e30 stopped a tier with OverflowError (exit 1); garbage silently became the default."""
    op_dir = copy_sample(tmp_path, RELU)
    env = {**os.environ, name: value}
    done = subprocess.run([sys.executable, "-m", "opgen", "check", str(op_dir), "--tier", "syntax"], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{name}='{value}' is not a setting" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
