"""What a passing run prints, the --json report, and reading an op without a manifest."""

from __future__ import annotations

import json
import re

import pytest

from opgen.validate.report import duration

from .conftest import Machine


def test_passing_run_prints_each_step_and_exits_0(machine: Machine) -> None:
    op = machine.make_op()
    placed = machine.ops_nn / "experimental" / "activation" / "gelu_grad"
    log = machine.ops_nn / "build" / "opgen_validate_gelu_grad.log"

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "pkg", "-j", "4")

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:5] == [
        f"validate gelu_grad (GeluGrad) for ascend910b at {placed}",
        f"record: {op / '.opgen'}",  # where the op's facts came from (here an old in-dir record)
        f"toolkit: ASCEND_HOME_PATH={machine.cann}",
        f"log: {log}",
        "RUN  pkg         bash build.sh --pkg --experimental --soc=ascend910b --ops=gelu_grad -j4",
    ]
    assert lines[5].startswith("PASS pkg         in ")
    assert lines[6:] == [f"checkout: removed {placed}", "validate passed: pkg"]
    assert "[100%] Built target everything" in log.read_text()
    assert result.stderr == ""


def test_json_report_of_a_passing_run(machine: Machine) -> None:
    op = machine.make_op(experimental=False, socs=("ascend950",))
    placed = machine.ops_nn / "activation" / "gelu_grad"

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--json", "-j", "4", "--stage", "pkg", "--stage", "check")

    assert result.exit_code == 0
    report = json.loads(result.stdout)
    for step in report["steps"]:
        assert isinstance(step.pop("seconds"), float)
    assert report == {
        "exit_code": 0,
        "op": {
            "name": "gelu_grad",
            "op_type": "GeluGrad",
            "category": "activation",
            "experimental": False,
            "socs": ["ascend950"],
            "source": "manifest",
        },
        "op_dir": str(op),
        "ops_nn": str(machine.ops_nn),
        "placed_at": str(placed),
        "soc": "ascend950",
        "ascend_home_path": str(machine.cann),
        "toolkit": "installed",
        "log": str(machine.ops_nn / "build" / "opgen_validate_gelu_grad.log"),
        "steps": [
            {
                "stage": "check",
                "label": "check",
                "command": report["steps"][0]["command"],
                "status": "passed",
                "reason": None,
                "exit_code": 0,
                "tests": None,
                "error": None,
            },
            {
                "stage": "pkg",
                "label": "pkg",
                "command": "bash build.sh --pkg --soc=ascend950 --ops=gelu_grad -j4",
                "status": "passed",
                "reason": None,
                "exit_code": 0,
                "tests": None,
                "error": None,
            },
        ],
        "checkout": {"outcome": "removed", "path": str(placed), "backup": None},
    }
    assert report["steps"][0]["command"].endswith(f" -m opgen check {op}")
    assert "PASS pkg" in result.stderr  # progress stays visible, off stdout


def test_json_report_of_bad_input(machine: Machine) -> None:
    op = machine.make_op()

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--json", "--soc", "ascend950")

    assert result.exit_code == 2
    report = json.loads(result.stdout)
    assert report["exit_code"] == 2
    assert report["error"].endswith("the op does not support --soc ascend950; it supports ascend910b, ascend310b")


def test_op_without_manifest_is_read_from_its_path_and_configs(machine: Machine) -> None:
    op = machine.make_op(manifest=False, socs=("ascend910b",))

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "pkg", "-j", "1")

    assert result.exit_code == 0, result.output
    assert (
        "note: no opgen record found; inferred name gelu_grad, category activation, experimental=true "
        "from the path and SoCs ascend910b from op_host/config/"
    ) in result.output
    assert machine.calls() == ["--pkg --experimental --soc=ascend910b --ops=gelu_grad -j1"]


def test_op_without_manifest_or_configs_needs_soc(machine: Machine) -> None:
    op = machine.make_op(manifest=False, experimental=False, socs=())

    assert "pass --soc" in machine.invoke(op, "--ops-nn", machine.ops_nn).stderr
    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--soc", "ascend950", "--stage", "pkg", "-j", "1")
    assert result.exit_code == 0, result.output
    assert machine.calls() == ["--pkg --soc=ascend950 --ops=gelu_grad -j1"]


def test_broken_manifest_is_bad_input(machine: Machine) -> None:
    op = machine.make_op()
    (op / ".opgen" / "manifest.json").write_text('{"name": "gelu_grad"}')

    result = machine.invoke(op, "--ops-nn", machine.ops_nn)

    assert result.exit_code == 2
    assert "manifest lacks name/category/experimental; regenerate the op" in result.stderr


@pytest.mark.parametrize(("seconds", "text"), [(None, "-"), (4.25, "4.2s"), (62, "1m02s"), (3723, "1h02m03s")])
def test_durations_read_naturally(seconds: float | None, text: str) -> None:
    assert duration(seconds) == text


def test_missing_op_dir_is_bad_input(machine: Machine) -> None:
    result = machine.invoke(machine.tmp / "nope", "--ops-nn", machine.ops_nn)

    assert result.exit_code == 2
    assert result.stderr == f"error: {machine.tmp / 'nope'}: op dir not found; pass the dir `opgen gen` wrote\n"


def test_a_ut_step_reports_its_gtest_counts_and_failing_tests(machine: Machine,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    op = machine.make_op()
    monkeypatch.setenv("OPGEN_FAKE_GTEST", "[==========] 3 tests from 1 test suite ran. (2 ms total)\n"
                                           "[  PASSED  ] 2 tests.\n[  FAILED  ] GeluGradTiling.ascend910b_key")
    monkeypatch.setenv("OPGEN_FAKE_FAIL", "--ophost")
    monkeypatch.setenv("OPGEN_FAKE_ERROR", "")

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "ut", "--json")

    assert result.exit_code == 1
    assert "  failed tests: GeluGradTiling.ascend910b_key" in result.stderr
    step = json.loads(result.stdout)["steps"][0]
    assert step["tests"] == {"ran": 3, "passed": 2, "failed": ["GeluGradTiling.ascend910b_key"]}


def test_a_ut_run_that_ran_no_test_fails(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    op = machine.make_op()
    monkeypatch.setenv("OPGEN_FAKE_GTEST", "")  # build.sh exits 0, but the op's UTs were never built

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "ut")

    assert result.exit_code == 1
    assert "FAIL ut ophost   exit 0 after" in result.output
    assert "build.sh exited 0 but ran no test: the op's UTs were not built" in result.output
    assert "validate failed at ut ophost" in result.output


def test_a_passing_ut_step_says_how_many_tests_passed(machine: Machine) -> None:
    result = machine.invoke(machine.make_op(), "--ops-nn", machine.ops_nn, "--stage", "ut")

    assert result.exit_code == 0, result.output
    assert re.search(r"PASS ut ophost   2/2 tests passed in \d", result.output)
