"""A check that checked nothing is no pass (issue 37 item 18): an empty tier selection is bad usage (exit 2), a
run whose every selected tier was SKIPPED exits 3 and says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from opgen.check.runner import TIERS

from .test_command import app
from .trees import RELU, copy_sample


def _run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, ["check", *map(str, args)])


def test_leaving_out_every_tier_is_bad_usage(tmp_path: Path) -> None:
    result = _run(copy_sample(tmp_path, RELU), *[arg for tier in TIERS for arg in ("--skip-tier", tier)])
    assert result.exit_code == 2
    assert "leave no tier to run" in result.output and "PASS" not in result.output


def test_a_tier_both_chosen_and_left_out_is_bad_usage(tmp_path: Path) -> None:
    result = _run(copy_sample(tmp_path, RELU), "--tier", "kernel", "--skip-tier", "kernel")
    assert result.exit_code == 2 and "leave no tier to run" in result.output


@pytest.fixture
def no_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPGEN_CANN_SRC", "OPGEN_CANN"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.usefixtures("no_sources")
def test_a_run_whose_every_selected_tier_was_skipped_exits_3_and_says_so(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    table = _run(op_dir, "--tier", "kernel")
    assert table.exit_code == 3, table.output
    assert "NOTHING CHECKED: every selected tier was SKIPPED" in " ".join(table.output.split())
    data = json.loads(_run(op_dir, "--tier", "kernel", "--tier", "ops-nn-ut", "--json").stdout)
    assert data["exit_code"] == 3 and data["status"] == "skip"


@pytest.mark.usefixtures("no_sources")
def test_one_tier_that_ran_beside_skipped_ones_is_a_pass(tmp_path: Path) -> None:
    result = _run(copy_sample(tmp_path, RELU), "--tier", "kernel", "--tier", "structure")
    assert result.exit_code == 0, result.output
    assert "NOTHING CHECKED" not in result.output
