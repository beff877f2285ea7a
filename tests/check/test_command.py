"""`opgen check` end to end: exit codes, the table, --json, bad input, and breakages that make exactly one
tier fail (syntax, numerics of the recipe, numerics of golden.py) while the others still pass."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import typer
from conftest import record_of, spec_copy
from typer.testing import CliRunner, Result

from opgen.check.command import check

from .trees import GELU, RELU, ROOT, SAMPLE_DIRS, copy_sample, edit

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
app.command("check")(check)


@app.command("version")
def _version() -> None:
    """A second command, so `check` is a subcommand as under `opgen`."""


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, ["check", *map(str, args)])


def run_json(*args: str | Path) -> tuple[int, dict[str, dict[str, object]]]:
    """Exit code and the tiers of the JSON report, keyed by tier name."""
    result = run(*args, "--json")
    data = json.loads(result.stdout)
    assert data["exit_code"] == result.exit_code
    return result.exit_code, {t["tier"]: t for t in data["tiers"]}


def tier_statuses(tiers: dict[str, dict[str, object]]) -> dict[str, object]:
    return {name: tier["status"] for name, tier in tiers.items()}


def failing_items(tier: dict[str, object]) -> list[dict[str, object]]:
    items = tier["items"]
    assert isinstance(items, list)
    return [i for i in items if i["status"] == "fail"]


ALL_PASS = {"structure": "pass", "syntax": "pass", "consistency": "pass", "numerics": "pass", "headers": "skip",
            "kernel": "skip", "ops-nn-ut": "skip", "upstream": "skip"}


@pytest.mark.parametrize("rel_dir", SAMPLE_DIRS)
def test_samples_pass_with_headers_skipped(tmp_path: Path, rel_dir: str) -> None:
    result = run(copy_sample(tmp_path, rel_dir))
    assert result.exit_code == 0, result.stdout
    assert "FAIL" not in result.stdout
    assert ("SKIPPED: headers, kernel, ops-nn-ut, upstream (headers: no CANN sources: run "
            "`export OPGEN_CANN_SRC=DIR`" in result.stdout)
    assert "kernel: no CANN sources" in result.stdout
    assert "passed: structure, syntax, consistency, numerics" in result.stdout


def test_json_report_has_tiers_items_and_figures(tmp_path: Path) -> None:
    result = run(copy_sample(tmp_path, GELU), "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["op_type"] == "GeluGrad" and data["families"] == "classic" and data["status"] == "pass"
    tiers = {t["tier"]: t for t in data["tiers"]}
    assert tier_statuses(tiers) == ALL_PASS
    assert tiers["headers"]["items"] == [{"item": "host files compile", "status": "skip", "reason": tiers[
        "headers"]["items"][0]["reason"], "figures": {}}]
    rows = tiers["numerics"]["items"]
    labels = [r["item"] for r in rows]
    assert "recipe ascend910b (Ascend910B) float32, float32, float32 -> float32 [random]" in labels
    assert "golden (spec render) ascend310b (Ascend310B) bfloat16, bfloat16, bfloat16 -> bfloat16 [st]" in labels
    assert "golden (tree)" in labels  # byte-identical to the render: nothing of the tree had to run
    assert all({"max_abs", "max_rel", "max_ulp"} <= r["figures"].keys() for r in rows if r["item"] != "golden (tree)")
    assert all(set(t["counts"]) == {"pass", "fail", "skip"} for t in data["tiers"])


def test_syntax_error_fails_syntax_only(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    tiling = op_dir / "op_host/arch35/relu_grad_v2_tiling_arch35.cpp"
    line = tiling.read_text().split("WORKSPACE_BYTES = 16777216;")[0].count("\n") + 1
    edit(tiling, "WORKSPACE_BYTES = 16777216;", "WORKSPACE_BYTES = 16777216 +;")
    code, tiers = run_json(op_dir)
    assert code == 1
    assert tier_statuses(tiers) == {**ALL_PASS, "syntax": "fail"}
    [item] = failing_items(tiers["syntax"])
    assert item["item"] == "C/C++ op_host/arch35/relu_grad_v2_tiling_arch35.cpp"
    assert str(item["reason"]).startswith(f"op_host/arch35/relu_grad_v2_tiling_arch35.cpp:{line}: ")


def test_changed_recipe_coefficient_fails_numerics_only(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    edit(spec_copy(op_dir), "r0 = muls(x2, 0.2140644488178007)", "r0 = muls(x2, 0.3140644488178007)")
    code, tiers = run_json(op_dir)
    assert code == 1
    assert tier_statuses(tiers) == {**ALL_PASS, "numerics": "fail"}
    failed = failing_items(tiers["numerics"])
    # the recipe, and the golden opgen renders from that recipe, both fail, on the edited variant only
    assert failed and all(str(i["item"]).startswith(("recipe ascend910b (Ascend910B)",
                                                     "golden (spec render) ascend910b (Ascend910B)")) for i in failed)
    assert "break |got - expected|" in str(failed[0]["reason"])


def test_an_edited_golden_is_not_run_without_allow_exec(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    edit(op_dir / "tests/assets/golden.py", "cdt(0.2140644488178007)", "cdt(0.3140644488178007)")
    code, tiers = run_json(op_dir)
    assert code == 0
    [row] = [i for i in tiers["numerics"]["items"] if i["item"] == "golden (tree)"]
    assert row["status"] == "skip"
    assert "differs from the spec's render" in row["reason"] and "--allow-exec" in row["reason"]


def test_golden_that_disagrees_fails_numerics_golden_only(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    edit(op_dir / "tests/assets/golden.py", "cdt(0.2140644488178007)", "cdt(0.3140644488178007)")
    code, tiers = run_json(op_dir, "--allow-exec")
    assert code == 1
    assert tier_statuses(tiers) == {**ALL_PASS, "numerics": "fail"}
    failed = failing_items(tiers["numerics"])
    assert failed and all(str(i["item"]).startswith("golden (tree) ascend910b (Ascend910B)") for i in failed)


def test_tree_code_runs_only_when_allowed_and_then_in_a_scratch_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    marker = tmp_path / "ran.txt"
    golden = op_dir / "tests/assets/golden.py"
    payload = f"import os\nopen({str(marker)!r}, 'a').write(os.getcwd() + '\\n')\nopen('left.txt', 'w')\n"
    golden.write_text(payload + golden.read_text())
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    code, _ = run_json(op_dir)
    assert code == 0 and not marker.exists()
    run_json(op_dir, "--allow-exec")
    cwds = marker.read_text().splitlines()
    assert cwds and all(Path(c) != work and not Path(c).exists() for c in cwds)  # scratch dirs, removed after
    assert list(work.iterdir()) == [] and not (op_dir / "tests/assets/left.txt").exists()


def test_spec_option_checks_a_tree_without_its_record(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    shutil.rmtree(record_of(op_dir))
    assert run(op_dir).exit_code == 2
    result = run(op_dir, "--spec", ROOT / "schemas/relu_grad_v2.yaml")
    assert result.exit_code == 0, result.stdout


@pytest.mark.parametrize(("setup", "message"), [
    ("missing_dir", "op dir not found"),
    ("no_spec", "no spec: "),
    ("bad_spec", "malformed YAML"),
    ("invalid_spec", "op_type"),
    ("bad_headers", "--cann-headers: "),
])
def test_bad_input_is_one_message_and_exit_2(tmp_path: Path, setup: str, message: str) -> None:
    op_dir, extra = tmp_path / "op", []
    op_dir.mkdir()
    if setup == "missing_dir":
        op_dir = tmp_path / "nowhere"
    elif setup in ("bad_spec", "invalid_spec"):
        sample = (ROOT / "schemas/relu_grad_v2.yaml").read_text().replace("op_type: ReluGradV2", "op_type: 3")
        text = "op_type: [unclosed\n" if setup == "bad_spec" else sample  # one problem: one line
        (tmp_path / "spec.yaml").write_text(text)
        extra = ["--spec", str(tmp_path / "spec.yaml")]
    elif setup == "bad_headers":
        op_dir = copy_sample(tmp_path, RELU)
        extra = ["--cann-headers", str(tmp_path / "no_such_dir")]
    result = run(op_dir, *extra)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_a_crashing_tier_is_a_failed_row_not_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import opgen.check.consistency

    def broken(*_: object) -> None:
        raise KeyError("surprise")

    monkeypatch.setattr(opgen.check.consistency, "consistency_tier", broken)
    code, tiers = run_json(copy_sample(tmp_path, RELU))
    assert code == 1
    assert tier_statuses(tiers) == {**ALL_PASS, "consistency": "fail"}
    [item] = failing_items(tiers["consistency"])
    assert item["reason"] == "the tier stopped: KeyError: 'surprise'"


def test_golden_that_cannot_be_imported_is_reported(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    golden = op_dir / "tests/assets/golden.py"
    golden.write_text('raise RuntimeError("boom")\n' + golden.read_text())
    code, tiers = run_json(op_dir, "--allow-exec")
    assert code == 1
    [item] = failing_items(tiers["numerics"])
    assert item["item"] == "golden (tree)"
    assert "RuntimeError: boom" in str(item["reason"])


def test_json_never_holds_bare_infinity() -> None:
    from opgen.check.items import TierResult, bad
    from opgen.check.report import to_json
    from opgen.check.runner import CheckReport

    tier = TierResult("numerics", (bad("x", "off", max_abs=float("inf"), max_ulp=float("nan")),))
    data = to_json(CheckReport(Path("op"), Path("spec.yaml"), "none", "Op", "classic", (tier,), 1.0))
    text = json.dumps(data, allow_nan=False)
    assert '"max_abs": "inf"' in text and '"max_ulp": "nan"' in text
    assert data["status"] == "fail" and data["exit_code"] == 1


def test_a_module_in_the_cwd_does_not_shadow_what_the_numerics_child_imports(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cd OP_DIR && opgen check .`: a `numpy.py` in the tree must not run."""
    op_dir = copy_sample(tmp_path, RELU)
    marker = tmp_path / "shadowed.txt"
    (op_dir / "numpy.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\nraise ImportError('shadow')\n")
    monkeypatch.chdir(op_dir)
    code, tiers = run_json(op_dir)
    assert code == 0
    assert not marker.exists()
    assert tiers["numerics"]["status"] == "pass", failing_items(tiers["numerics"])
