"""The op is in the checkout while build.sh runs, and the checkout is as it was afterwards."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from opgen.validate import runner

from .conftest import Machine, snapshot

TARGET = Path("experimental/activation/gelu_grad")


def put_other_op(machine: Machine) -> Path:
    """A different op already sitting where ours goes."""
    other = machine.ops_nn / TARGET
    (other / "op_host").mkdir(parents=True)
    (other / "op_host" / "gelu_grad_def.cpp").write_text("// someone else's gelu_grad\n")
    return other


def test_op_is_copied_in_for_the_build_and_removed_after(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    op = machine.make_op()
    monkeypatch.setenv("OPGEN_FAKE_PROBE", str(machine.ops_nn / TARGET / "op_host" / "gelu_grad_tiling.cpp"))
    before = snapshot(machine.ops_nn)

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "pkg")

    assert result.exit_code == 0, result.output
    assert machine.seen() == [f"ASCEND_HOME_PATH={machine.cann}", "placed"]
    assert snapshot(machine.ops_nn, skip_build=True) == before
    assert f"checkout: removed {machine.ops_nn / TARGET}" in result.output


def test_placed_copy_has_the_op_files_but_not_opgen_records(machine: Machine) -> None:
    op = machine.make_op()

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "pkg", "--keep")

    assert result.exit_code == 0, result.output
    placed_files = {p.relative_to(machine.ops_nn / TARGET) for p in (machine.ops_nn / TARGET).rglob("*") if p.is_file()}
    op_files = {p.relative_to(op) for p in op.rglob("*") if p.is_file() and ".opgen" not in p.parts}
    assert placed_files == op_files
    assert f"checkout: kept {machine.ops_nn / TARGET}" in result.output


def test_category_dir_made_for_the_op_is_removed_too(machine: Machine) -> None:
    op = machine.make_op(category="hash")  # ops-nn has no experimental/hash yet
    before = snapshot(machine.ops_nn)

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "pkg", "-j", "1")

    assert result.exit_code == 0, result.output
    assert machine.calls() == ["--pkg --experimental --soc=ascend910b --ops=gelu_grad -j1"]
    assert snapshot(machine.ops_nn, skip_build=True) == before


def test_different_op_in_the_way_is_refused_and_checkout_untouched(machine: Machine) -> None:
    op = machine.make_op()
    put_other_op(machine)
    before = snapshot(machine.ops_nn)

    result = machine.invoke(op, "--ops-nn", machine.ops_nn)

    assert result.exit_code == 2
    assert f"{machine.ops_nn / TARGET} already holds a different op; pass --force" in result.stderr
    assert machine.calls() == []
    assert snapshot(machine.ops_nn) == before


def test_force_builds_our_op_and_puts_the_other_back(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    op = machine.make_op()
    put_other_op(machine)
    monkeypatch.setenv("OPGEN_FAKE_PROBE", str(machine.ops_nn / TARGET / "op_host" / "gelu_grad_tiling.cpp"))
    before = snapshot(machine.ops_nn)

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "pkg", "--force")

    assert result.exit_code == 0, result.output
    assert "placed" in machine.seen()
    assert snapshot(machine.ops_nn, skip_build=True) == before
    assert not (machine.ops_nn / "build" / ".opgen_backup").exists()
    assert f"checkout: put the previous op back at {machine.ops_nn / TARGET}" in result.output


def test_force_and_keep_leave_ours_and_say_where_the_other_went(machine: Machine) -> None:
    op = machine.make_op()
    put_other_op(machine)

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "pkg", "--force", "--keep", "--json")

    assert result.exit_code == 0, result.output
    backup = machine.ops_nn / "build" / ".opgen_backup" / "experimental__activation__gelu_grad"
    assert (backup / "op_host" / "gelu_grad_def.cpp").read_text() == "// someone else's gelu_grad\n"
    assert (machine.ops_nn / TARGET / "op_host" / "gelu_grad_tiling.cpp").is_file()
    report = json.loads(result.stdout)
    assert report["checkout"] == {"outcome": "kept", "path": str(machine.ops_nn / TARGET), "backup": str(backup)}


def test_stale_backup_from_an_interrupted_run_blocks_a_new_run(machine: Machine) -> None:
    op = machine.make_op()
    backup = machine.ops_nn / "build" / ".opgen_backup" / "experimental__activation__gelu_grad"
    backup.mkdir(parents=True)

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "pkg", "--force")

    assert result.exit_code == 2
    assert f"a backup from an interrupted validate is at {backup}" in result.stderr
    assert machine.calls() == []


def test_identical_copy_already_there_is_used_and_left_alone(machine: Machine) -> None:
    op = machine.make_op()
    shutil.copytree(op, machine.ops_nn / TARGET, ignore=shutil.ignore_patterns(".opgen"))
    before = snapshot(machine.ops_nn)

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "pkg")

    assert result.exit_code == 0, result.output
    assert snapshot(machine.ops_nn, skip_build=True) == before
    assert "as it was (an identical copy was already there)" in result.output


def test_ctrl_c_during_a_build_restores_the_checkout(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    op = machine.make_op()
    put_other_op(machine)
    before = snapshot(machine.ops_nn)

    def interrupted(*args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_logged", interrupted)
    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "pkg", "--force")

    assert result.exit_code != 0
    assert "STOP pkg         interrupted after" in result.output
    assert snapshot(machine.ops_nn, skip_build=True) == before


def test_placed_and_restored_files_are_newer_than_what_was_built_there(machine: Machine) -> None:
    """make rebuilds by mtime: an op copied in with its old mtimes would link the objects of whatever was built
    at that spot before (and its UT binary would not run again); so would the op put back afterwards."""
    import os

    op = machine.make_op()
    long_ago = 1_000_000_000
    for path in op.rglob("*"):
        os.utime(path, (long_ago, long_ago))

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "pkg", "--keep")
    assert result.exit_code == 0, result.output
    placed = [p.stat().st_mtime for p in (machine.ops_nn / TARGET).rglob("*") if p.is_file()]
    assert placed and min(placed) > long_ago
    shutil.rmtree(machine.ops_nn / TARGET)

    other = put_other_op(machine)
    for path in other.rglob("*"):
        os.utime(path, (long_ago, long_ago))
    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "pkg", "--force")
    assert result.exit_code == 0, result.output
    assert "put the previous op back" in result.output
    restored = other / "op_host" / "gelu_grad_def.cpp"
    assert restored.read_text() == "// someone else's gelu_grad\n" and restored.stat().st_mtime > long_ago
