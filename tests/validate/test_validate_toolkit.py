"""A missing toolkit or tool is one clear message, exit 2, and build.sh is never called."""

from __future__ import annotations

import platform
import shutil
from pathlib import Path

import pytest

from .conftest import Machine, make_cann, snapshot


def test_no_toolkit_says_how_to_get_one_and_builds_nothing(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    op = machine.make_op()
    monkeypatch.delenv("ASCEND_HOME_PATH")
    before = snapshot(machine.ops_nn)

    result = machine.invoke(op, "--ops-nn", machine.ops_nn)

    assert result.exit_code == 2
    assert result.stderr.startswith("error: CANN toolkit not found: ASCEND_HOME_PATH is not set")
    assert "source <install_path>/cann/set_env.sh` or pass --cann <install_path>/cann" in result.stderr
    assert machine.calls() == []
    assert snapshot(machine.ops_nn) == before


def test_cann_option_sources_set_env_for_the_build(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    op = machine.make_op()
    monkeypatch.delenv("ASCEND_HOME_PATH")
    other = make_cann(machine.tmp / "other-cann")

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--cann", other, "--stage", "pkg", "-j", "3")

    assert result.exit_code == 0, result.output
    assert machine.seen() == [f"ASCEND_HOME_PATH={other}"]
    assert machine.calls() == ["--pkg --experimental --soc=ascend910b --ops=gelu_grad -j3"]
    assert f"RUN  pkg         source {other}/set_env.sh && bash build.sh --pkg" in result.output
    assert f"toolkit: ASCEND_HOME_PATH={other} (from {other}/set_env.sh)" in result.output


def test_cann_dir_without_set_env_is_refused(machine: Machine) -> None:
    op = machine.make_op()

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--cann", machine.tmp)

    assert result.exit_code == 2
    assert f"--cann {machine.tmp}: no set_env.sh there" in result.stderr
    assert machine.calls() == []


def test_every_missing_piece_is_listed_in_one_message(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    op = machine.make_op()
    shutil.rmtree(machine.cann / "tools" / "tikicpulib")
    shutil.rmtree(machine.cann / f"{platform.machine()}-linux" / "tikcpp")
    (machine.tmp / "bin" / "pigz").unlink()
    (machine.tmp / "bin" / "cmake").write_text("#!/bin/sh\necho 'cmake version 3.10.2'\n")
    monkeypatch.setenv("PATH", str(machine.tmp / "bin") + ":/usr/bin:/bin")

    result = machine.invoke(op, "--ops-nn", machine.ops_nn)

    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0] == f"error: the build environment is incomplete (ASCEND_HOME_PATH={machine.cann}):"
    assert lines[1].startswith("  - Ascend C kernel CMake package (")
    assert lines[2] == f"  - tikicpulib for UTs ({machine.cann}/tools/tikicpulib/lib/cmake): install the CANN" + (
        " toolkit (Ascend-cann-toolkit_<version>_linux-<arch>.run --install), then `source "
        "<install_path>/cann/set_env.sh` or pass --cann <install_path>/cann"
    )
    assert "  - cmake (>= 3.16.0, found 3.10.2): run `bash install_deps.sh` in the ops-nn checkout" in lines
    assert "  - pigz (>= 2.4, not on PATH): run `bash install_deps.sh` in the ops-nn checkout" in lines
    assert machine.calls() == []


def test_pkg_tools_are_not_required_for_ut_only(machine: Machine) -> None:
    op = machine.make_op()
    (machine.tmp / "bin" / "pigz").write_text("#!/bin/sh\necho 'pigz 2.1'\n")

    assert machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "ut").exit_code == 0
    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "pkg")
    assert result.exit_code == 2
    assert "pigz (>= 2.4, found 2.1)" in result.stderr


def test_example_needs_the_custom_package_installed(machine: Machine) -> None:
    op = machine.make_op()
    shutil.rmtree(machine.cann / "opp" / "vendors" / "custom_nn")

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "example")

    assert result.exit_code == 2
    assert f"the custom op package for the example ({machine.cann}/opp/vendors/custom_nn)" in result.stderr
    assert "run --stage pkg, then install build_out/cann-ops-nn-custom_linux-<arch>.run" in result.stderr
    assert machine.calls() == []


def test_not_an_ops_nn_checkout(machine: Machine, tmp_path: Path) -> None:
    op = machine.make_op()
    (tmp_path / "empty").mkdir()

    result = machine.invoke(op, "--ops-nn", tmp_path / "empty")

    assert result.exit_code == 2
    assert "not an ops-nn checkout (missing build.sh, install_deps.sh, cmake/variables.cmake)" in result.stderr


def test_category_must_be_one_ops_nn_scans(machine: Machine) -> None:
    op = machine.make_op(category="bogus")

    result = machine.invoke(op, "--ops-nn", machine.ops_nn)

    assert result.exit_code == 2
    assert "category 'bogus' is not one ops-nn builds (OP_CATEGORY_LIST in cmake/variables.cmake" in result.stderr
    assert machine.calls() == []
