"""The exact build.sh calls validate makes, per stage, SoC and op layout."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from opgen.validate import runner

from .conftest import Machine


def test_arch35_op_default_stages_run_pkg_then_one_ut_call_per_kind(machine: Machine) -> None:
    op = machine.make_op(experimental=False, socs=("ascend950",))

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "-j", "4")

    assert result.exit_code == 0, result.output
    assert machine.calls() == [
        "--pkg --soc=ascend950 --ops=gelu_grad -j4",
        "-u --ophost --ops=gelu_grad --soc=ascend950 -j4",
        "-u --opapi --ops=gelu_grad --soc=ascend950 -j4",
        "-u --opkernel --ops=gelu_grad --soc=ascend950 -j4",
    ]
    assert "PASS check" in result.output
    assert "validate passed: check, pkg, ut ophost, ut opapi, ut opkernel" in result.output


def test_experimental_op_passes_experimental_to_every_build_call(machine: Machine) -> None:
    op = machine.make_op(experimental=True, socs=("ascend910b", "ascend310b"))

    result = machine.invoke(
        op, "--ops-nn", machine.ops_nn, "-j", "2", "--stage", "example", "--stage", "ut", "--stage", "pkg"
    )

    assert result.exit_code == 0, result.output
    assert machine.calls() == [
        "--pkg --experimental --soc=ascend910b --ops=gelu_grad -j2",
        "-u --ophost --ops=gelu_grad --soc=ascend910b --experimental -j2",
        "-u --opapi --ops=gelu_grad --soc=ascend910b --experimental -j2",
        "-u --opkernel --ops=gelu_grad --soc=ascend910b --experimental -j2",
        "--run_example gelu_grad eager cust --vendor_name=custom --soc=ascend910b --experimental",
    ]


def test_soc_option_picks_another_supported_soc(machine: Machine) -> None:
    op = machine.make_op(socs=("ascend910b", "ascend310b"))

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--soc", "ascend310b", "--stage", "pkg", "-j", "8")

    assert result.exit_code == 0, result.output
    assert machine.calls() == ["--pkg --experimental --soc=ascend310b --ops=gelu_grad -j8"]


def test_unsupported_soc_is_bad_input_and_nothing_runs(machine: Machine) -> None:
    op = machine.make_op(socs=("ascend910b", "ascend310b"))
    before = sorted(machine.ops_nn.rglob("*"))

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--soc", "ascend950")

    assert result.exit_code == 2
    assert "does not support --soc ascend950; it supports ascend910b, ascend310b" in result.stderr
    assert machine.calls() == []
    assert sorted(machine.ops_nn.rglob("*")) == before


def test_ut_stage_runs_only_the_kinds_the_op_has(machine: Machine) -> None:
    op = machine.make_op(experimental=False, socs=("ascend910b",))
    for kind in ("op_api", "op_kernel"):
        for path in sorted((op / "tests" / "ut" / kind).iterdir()):
            path.unlink()
        (op / "tests" / "ut" / kind).rmdir()

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "ut", "-j", "1")

    assert result.exit_code == 0, result.output
    assert machine.calls() == ["-u --ophost --ops=gelu_grad --soc=ascend910b -j1"]


def test_ut_stage_without_any_ut_dir_is_bad_input(machine: Machine) -> None:
    op = machine.make_op(experimental=False)
    for path in sorted((op / "tests").rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "ut")

    assert result.exit_code == 2
    assert "no tests/ut/op_host|op_api|op_kernel" in result.stderr
    assert machine.calls() == []


def test_arch35_example_is_found_under_examples_arch35(machine: Machine) -> None:
    op = machine.make_op(experimental=False, socs=("ascend950",), example_dir="examples/arch35")

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "example")

    assert result.exit_code == 0, result.output
    assert machine.calls() == ["--run_example gelu_grad eager cust --vendor_name=custom --soc=ascend950"]


def test_example_build_sh_would_not_find_is_bad_input(machine: Machine) -> None:
    # build.sh only looks in examples/arch35 for ascend950/ascend350, and exits 0 when it finds nothing
    op = machine.make_op(experimental=False, socs=("ascend910b",), example_dir="examples/arch35")

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "example")

    assert result.exit_code == 2
    assert "no examples/test_aclnn_*.cpp build.sh would run for ascend910b" in result.stderr
    assert machine.calls() == []


def test_check_only_needs_no_toolkit_and_builds_nothing(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    op = machine.make_op()
    monkeypatch.delenv("ASCEND_HOME_PATH")

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "check")

    assert result.exit_code == 0, result.output
    assert machine.calls() == []
    assert not (machine.ops_nn / "experimental" / "activation" / "gelu_grad").exists()


def test_failed_check_stops_before_anything_is_placed_or_built(machine: Machine, check_codes: list[int]) -> None:
    op = machine.make_op()
    check_codes.append(1)

    result = machine.invoke(op, "--ops-nn", machine.ops_nn)

    assert result.exit_code == 1
    assert "FAIL check" in result.output
    assert "SKIP pkg" in result.output
    assert machine.calls() == []
    assert not (machine.ops_nn / "experimental" / "activation" / "gelu_grad").exists()


def test_jobs_default_to_all_cpus(machine: Machine) -> None:
    op = machine.make_op()

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "pkg")

    assert result.exit_code == 0, result.output
    assert machine.calls() == [f"--pkg --experimental --soc=ascend910b --ops=gelu_grad -j{os.cpu_count()}"]


def test_check_stage_runs_opgen_check_on_the_op_dir(tmp_path: Path) -> None:
    assert runner.check_argv(tmp_path) == [sys.executable, "-m", "opgen", "check", str(tmp_path)]


def test_check_stage_gets_the_same_sources_and_trust(machine: Machine, tmp_path: Path) -> None:
    op = machine.make_op(experimental=True, socs=("ascend910b",))
    src = tmp_path / "cann_src"
    src.mkdir()

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "check", "--cann-src", src, "--allow-exec")

    assert result.exit_code == 0, result.output
    assert f"-m opgen check {op} --cann-src {src} --allow-exec" in result.output
