"""Data safety and honest exit codes of gen and new: no leftovers, all or nothing, one winner, Ctrl-C said."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import GELU, GELU_DIR, RELU, RELU_DIR, copy_spec, snapshot

from opgen import generate, render, write
from opgen.generate import op_replacements, render_specs


def _failing_builder(error: BaseException) -> Callable[[dict[str, bytes]], Callable[[Path], None]]:
    """A tree builder that writes a file, then fails as a full disk (or a Ctrl-C) would."""

    def make(files: dict[str, bytes]) -> Callable[[Path], None]:
        def build(stage: Path) -> None:
            stage.mkdir()
            (stage / "half-written").write_bytes(b"x")
            raise error

        return build

    return make


def _leftovers(*dirs: Path) -> list[Path]:
    return [p for d in dirs if d.exists() for p in d.rglob("*") if p.name.startswith((".opgen-staging-", "opgen-"))]


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_failure_while_staging_leaves_no_staging_dir(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      error: BaseException) -> None:
    root = tmp_path / "out"
    (root / "keep").mkdir(parents=True)
    before = snapshot(tmp_path)
    monkeypatch.setattr(generate, "tree", _failing_builder(error))
    result = run("gen", RELU, "-o", root)
    assert result.code == (130 if isinstance(error, KeyboardInterrupt) else 2), result.err
    assert _leftovers(tmp_path) == []
    assert snapshot(tmp_path) == before
    records = Path(os.environ["OPGEN_RECORD_DIR"])
    assert not list(records.iterdir())
    if isinstance(error, KeyboardInterrupt):
        assert result.err.strip() == "interrupted: nothing was changed"


def test_leftovers_of_killed_runs_are_removed_on_the_next_run(run, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGKILL cannot be cleaned up after: the next run removes what dead opgen processes left, and only that."""
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    dead, alive = finished.pid, os.getpid()
    scratch = tmp_path / "scratch"
    monkeypatch.setattr(render, "_scratch_dir", lambda: str(scratch))
    root = tmp_path / "out"
    stale = [root / "activation" / f".opgen-staging-{dead}-0a0b0c0d", scratch / f"opgen-render-{dead}-xyz"]
    live = [root / "activation" / f".opgen-staging-{alive}-1a1b1c1d", scratch / f"opgen-render-{alive}-xyz"]
    for path in stale + live:
        (path / "op").mkdir(parents=True)
        (path / "op" / "file").write_text("left behind")
    assert run("gen", RELU, "-o", root).code == 0
    assert [p.exists() for p in stale] == [False, False]
    assert [p.exists() for p in live] == [True, True]  # another running opgen's work is not touched


def test_gen_of_several_specs_is_all_or_nothing(run, tmp_path: Path) -> None:
    """The second op cannot be placed (a file where its category dir must go): the first is not written."""
    root = tmp_path / "out"
    root.mkdir()
    (root / "experimental").write_text("a file in the way")
    before = snapshot(root)
    result = run("gen", RELU, GELU, "-o", root)
    assert result.code == 2 and "Traceback" not in result.err
    assert snapshot(root) == before
    assert not list(Path(os.environ["OPGEN_RECORD_DIR"]).iterdir())


def test_forced_gen_of_several_specs_keeps_the_first_when_the_second_swap_fails(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "out"
    assert run("gen", RELU, GELU, "-o", root).code == 0
    (root / RELU_DIR / "README.md").write_text("my edit, to be kept when the forced gen fails\n")
    records = Path(os.environ["OPGEN_RECORD_DIR"])
    before, records_before = snapshot(root), snapshot(records)
    real, calls = write._swap, []

    def swap(stage: Path, target: Path, existed: bool) -> None:
        calls.append(target)
        if target == root / GELU_DIR:
            raise OSError(5, "Input/output error", str(target))
        real(stage, target, existed)

    monkeypatch.setattr(write, "_swap", swap)
    result = run("gen", "--force", RELU, GELU, "-o", root)
    assert result.code == 2 and "Input/output error" in result.err
    assert calls[:2] == [root / RELU_DIR, records / RELU_DIR]  # the first op was swapped in, then back
    assert snapshot(root) == before and snapshot(records) == records_before
    assert _leftovers(root, records) == []


def _wait_for_lock_waiter(pid: int, process: subprocess.Popen[str]) -> None:
    """Until process `pid` waits for a flock (a `->` line of /proc/locks); fails if it exits instead."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the second gen ended before it waited for the lock: {process.communicate()}")
        for line in Path("/proc/locks").read_text().splitlines():
            fields = line.split()
            if "->" in fields and str(pid) in fields:
                return
        time.sleep(0.05)
    pytest.fail("the second gen never waited for the root's lock")


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="needs /proc/locks to see the waiting process")
def test_two_gens_on_one_root_never_both_succeed(tmp_path: Path) -> None:
    """A gen that found the op dir free waits while another gen holds the root, then decides again."""
    root = tmp_path / "out"
    root.mkdir()
    spec = copy_spec(RELU, tmp_path)
    ops = render_specs([spec])
    with write.locked([root]):  # the first gen, in the middle of writing
        second = subprocess.Popen([sys.executable, "-m", "opgen", "gen", str(spec), "-o", str(root)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _wait_for_lock_waiter(second.pid, second)
        write.replace_all(op_replacements(root, ops, force=False, record_dir=None))
        first = snapshot(root)
    _, err = second.communicate(timeout=300)
    assert second.returncode == 2, err
    assert "already exists" in err
    assert snapshot(root) == first  # the first gen's tree was not replaced


def test_new_writes_spec_and_tree_both_or_neither(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    schemas, out = tmp_path / "schemas", tmp_path / "out"
    args = ("new", "SwishGrad", "--schemas", schemas, "-o", out)
    for target, name in ((write, "single_file"), (generate, "tree")):  # the spec's write fails, then the tree's
        with monkeypatch.context() as patch:
            patch.setattr(target, name, _failing_builder(OSError(28, "disk full")))
            result = run(*args)
        assert result.code == 2, result.err
        assert "disk full" in result.err
        assert not schemas.exists() and not out.exists()  # not even the dirs made to hold them
    retry = run(*args)  # nothing was left in the way
    assert retry.code == 0, retry.err
    assert (schemas / "swish_grad.yaml").is_file() and (out / "experimental/activation/swish_grad").is_dir()


def test_ctrl_c_after_writing_says_what_was_written(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from opgen import commands

    real = commands._say

    def interrupted_while_reporting(message: str) -> None:
        if "wrote" in message:
            raise KeyboardInterrupt
        real(message)

    monkeypatch.setattr(commands, "_say", interrupted_while_reporting)
    root = tmp_path / "out"
    result = run("gen", RELU, "-o", root)
    assert result.code == 130
    record = Path(os.environ["OPGEN_RECORD_DIR"]) / RELU_DIR
    assert result.err.strip() == (f"interrupted: {root / RELU_DIR}, {record} had been written completely before; "
                                  "nothing else was changed")
    assert (root / RELU_DIR / "CMakeLists.txt").is_file()


@pytest.mark.parametrize("name", ["file:100:.yaml", "a :smile: spec.yaml", "[bold]x[/bold].yaml"])
def test_error_text_is_printed_as_typed(run, tmp_path: Path, name: str) -> None:
    """No rich markup and no emoji codes in what users typed: `file:100:` must not become an emoji."""
    missing = tmp_path / name
    result = run("gen", missing, "-o", tmp_path / "out")
    assert result.code == 2
    assert result.err == f"error: {missing}: spec file not found; pass the path of an op spec YAML (see schemas/)\n"


def test_sigkill_leftovers_are_removed_by_the_next_run(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A gen killed with SIGKILL while formatting, and one killed while staging: the next gen cleans up."""
    root, scratch = tmp_path / "out", tmp_path / "scratch"
    scratch.mkdir()
    spec = copy_spec(RELU, tmp_path)
    stalls = {
        "formatting": "r.CppFormatter.submit = lambda self, paths: stall()\n",
        "staging": "real = g.tree\ng.tree = lambda files: (lambda stage: (real(files)(stage), stall()))\n",
    }
    for where, patch in stalls.items():
        script = (
            "import sys, time, opgen.render as r, opgen.generate as g\n"
            "def stall():\n    print('stalled', flush=True)\n    time.sleep(60)\n"
            f"{patch}r._scratch_dir = lambda: {str(scratch)!r}\n"
            f"from opgen.cli import main\nsys.argv = ['opgen', 'gen', {str(spec)!r}, '-o', {str(root)!r}]\nmain()\n"
        )
        killed = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        assert killed.stdout is not None and killed.stdout.readline().strip() == "stalled", where
        killed.kill()
        killed.wait()
        assert _leftovers(scratch, root), f"a kill while {where} leaves something (else this test proves nothing)"
    monkeypatch.setattr(render, "_scratch_dir", lambda: str(scratch))
    assert run("gen", spec, "-o", root).code == 0
    assert _leftovers(scratch, root) == []


def test_a_killed_runs_staging_dir_anywhere_in_the_root_goes_with_the_next_write(run, tmp_path: Path) -> None:
    """Not only a later write of the same op: any op's write into that output root cleans it."""
    root = tmp_path / "out"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = root / "experimental" / "activation" / f"{write.STAGING_PREFIX}{dead.pid}-0000"
    (stale / "gelu_grad").mkdir(parents=True)
    alive = root / "experimental" / "activation" / f"{write.STAGING_PREFIX}{os.getpid()}-0000"
    alive.mkdir()
    assert run("gen", copy_spec(RELU, tmp_path), "-o", root).code == 0
    assert not stale.exists()
    assert alive.is_dir()  # a running process's: not ours to remove
