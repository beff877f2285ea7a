"""`opgen check --tier/--skip-tier`: the tiers a user leaves out of an edit loop are not run, are reported
SKIPPED (never a pass), and decide nothing of the exit code; the table shows every row in full off a terminal
and prints the op dir's path as typed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from opgen.check import numerics_tier
from opgen.check.runner import TIERS

from .test_command import app, run
from .trees import RELU, ROOT, copy_sample, edit

LEFT_OUT = "left out by --tier/--skip-tier"


def _no_numerics(*args: object, **kwargs: object) -> None:
    raise AssertionError("the numerics tier was started")


def test_tier_runs_only_that_tier(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(numerics_tier, "start_child", _no_numerics)
    op_dir = copy_sample(tmp_path, RELU)
    result = run(op_dir, "--tier", "structure", "--tier", "consistency", "--json")
    assert result.exit_code == 0, result.output
    tiers = {t["tier"]: t for t in json.loads(result.stdout)["tiers"]}
    assert list(tiers) == list(TIERS)
    assert tiers["structure"]["status"] == tiers["consistency"]["status"] == "pass"
    for name in set(TIERS) - {"structure", "consistency"}:
        assert tiers[name]["status"] == "skip"
        assert [i["reason"] for i in tiers[name]["items"]] == [LEFT_OUT]


def test_a_left_out_tier_does_not_decide_the_exit_code(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    tiling = op_dir / "op_host/arch35/relu_grad_v2_tiling_arch35.cpp"
    edit(tiling, "WORKSPACE_BYTES = 16777216;", "WORKSPACE_BYTES = 16777216 +;")  # a syntax error
    assert run(op_dir, "--tier", "syntax").exit_code == 1
    left_out = run(op_dir, "--skip-tier", "syntax", "--skip-tier", "numerics")
    assert left_out.exit_code == 0, left_out.output
    assert LEFT_OUT in left_out.output


def test_an_unknown_tier_names_the_known_ones(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    result = run(op_dir, "--tier", "speling")
    assert result.exit_code == 2
    assert "no tier named 'speling': the tiers are " + ", ".join(TIERS) in result.output


def test_help_names_every_tier() -> None:
    text = " ".join(CliRunner().invoke(app, ["check", "--help"], env={"COLUMNS": "200"}).output.split())
    assert all(name in text for name in TIERS)
    assert "--tier" in text and "--skip-tier" in text


def test_the_table_off_a_terminal_prints_every_row_on_one_line(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path / ("long" * 40) / "[bold]x[/bold]", RELU)
    result = run(op_dir, "--tier", "structure")
    assert f"— {op_dir}" in result.output  # markup in the path printed as typed, and a long one never folded
    rows = [line.split("│") for line in result.output.splitlines() if line.startswith("│")]
    assert rows and all(row[3].strip() in ("PASS", "FAIL", "SKIPPED") for row in rows)  # no row folded in two


def test_a_tree_made_with_record_dir_is_found_through_the_variable(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from opgen.commands import app as opgen_app

    spec = ROOT / "schemas/relu_grad_v2.yaml"
    records = tmp_path / "records"
    made = CliRunner().invoke(opgen_app, ["gen", str(spec), "-o", str(tmp_path / "out"), "--record-dir", str(records)])
    assert made.exit_code == 0, made.output
    op_dir = tmp_path / "out" / RELU
    monkeypatch.delenv("OPGEN_RECORD_DIR", raising=False)
    lost = run(op_dir, "--tier", "structure")
    assert lost.exit_code == 2
    assert "$OPGEN_RECORD_DIR (not set)" in lost.output and "set OPGEN_RECORD_DIR=DIR" in " ".join(lost.output.split())
    monkeypatch.setenv("OPGEN_RECORD_DIR", str(records))
    assert run(op_dir, "--tier", "structure").exit_code == 0
    assert run(op_dir / "op_host" / "..", "--tier", "structure").exit_code == 0  # the path normalised
