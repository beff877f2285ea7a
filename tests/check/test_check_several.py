"""`opgen check DIR DIR...`: every op checked with the same options, a report per op, the worst exit code."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import Result

from .test_command import run
from .trees import GELU, RELU, copy_sample, edit

CHEAP = ("--tier", "structure", "--tier", "syntax")


def _broken_relu(tmp_path: Path) -> Path:
    op_dir = copy_sample(tmp_path, RELU)
    edit(op_dir / "op_host/arch35/relu_grad_v2_tiling_arch35.cpp", "WORKSPACE_BYTES = 16777216;",
         "WORKSPACE_BYTES = 16777216 +;")
    return op_dir


def _unwrapped(text: str) -> str:
    """rich wraps long error lines at the runner's width: compare with single spaces."""
    return " ".join(text.split())


def _json(result: Result) -> list[dict[str, object]]:
    data = json.loads(result.stdout)
    assert isinstance(data, list)
    return data


def test_two_samples_each_get_a_table_and_pass(tmp_path: Path) -> None:
    result = run(copy_sample(tmp_path, RELU), copy_sample(tmp_path, GELU), *CHEAP)
    assert result.exit_code == 0, result.output
    assert "opgen check ReluGradV2 (arch35_dag)" in result.stdout
    assert "opgen check GeluGrad (classic)" in result.stdout
    assert result.stdout.count("passed: structure, syntax") == 2


def test_json_is_one_report_per_op_and_the_exit_code_is_the_worst(tmp_path: Path) -> None:
    result = run(_broken_relu(tmp_path), copy_sample(tmp_path, GELU), *CHEAP, "--json")
    assert result.exit_code == 1
    reports = _json(result)
    assert [(r["op_type"], r["exit_code"]) for r in reports] == [("ReluGradV2", 1), ("GeluGrad", 0)]


def test_a_missing_op_dir_is_exit_2_and_the_others_are_still_checked(tmp_path: Path) -> None:
    missing = tmp_path / "activation/no_such_op"
    result = run(_broken_relu(tmp_path), missing, copy_sample(tmp_path, GELU), *CHEAP, "--json")
    assert result.exit_code == 2
    assert f"error: {missing}: op dir not found" in _unwrapped(result.stderr)
    assert [r["op_type"] for r in _json(result)] == ["ReluGradV2", "GeluGrad"]


def test_spec_with_several_dirs_is_bad_input_before_anything_runs(tmp_path: Path) -> None:
    relu, gelu = copy_sample(tmp_path, RELU), copy_sample(tmp_path, GELU)
    result = run(relu, gelu, "--spec", tmp_path / "any.yaml", *CHEAP)
    assert result.exit_code == 2
    assert "--spec names one op's spec: pass one op dir with it" in _unwrapped(result.stderr)
    assert result.stdout == ""
