"""golden.reference.nan: a kernel that multiplies (mask * grad) passes a NaN gradient through where a select
gives 0; the spec says which, the forward reference still applies, and a NaN mismatch names the setting."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import Result, spec_copy
from ruamel.yaml import YAML
from typer.testing import CliRunner

from opgen.commands import app

from .trees import copy_sample, edit

RELU6 = "activation/relu6_grad"
SELECTS = ("      - inner = select(below, gradients, 0.0)\n"
           "      - backprops = select(above, inner, 0.0)\n")
MULTIPLIES = ("      - one = fill(1.0)\n"
              "      - inner = select(below, one, 0.0)\n"
              "      - keep = select(above, inner, 0.0)\n"
              "      - backprops = mul(keep, gradients)\n")
REFERENCE_GRAD = "    grad: gradients\n"


def numerics(op_dir: Path) -> tuple[int, list[dict[str, object]]]:
    """Exit code and the numerics rows of `opgen check --tier numerics --json`."""
    result = CliRunner().invoke(app, ["check", str(op_dir), "--tier", "numerics", "--json"])
    tiers = {t["tier"]: t for t in json.loads(result.stdout)["tiers"]}
    return result.exit_code, tiers["numerics"]["items"]


def test_a_multiplying_kernel_fails_the_default_and_the_message_names_the_setting(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU6)
    edit(spec_copy(op_dir), SELECTS, MULTIPLIES)
    code, rows = numerics(op_dir)
    assert code == 1
    failed = [r for r in rows if r["status"] == "fail"]
    assert failed and not any("[random]" in str(r["item"]) for r in failed)  # only edge values hold NaN
    for row in failed:
        reason = str(row["reason"])
        assert "gradients=nan" in reason and "got nan, expected 0" in reason
        assert "assumed golden.reference.nan: select" in reason and "write nan: passthrough" in reason


def test_nan_passthrough_lets_the_forward_reference_check_a_multiplying_kernel(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU6)
    edit(spec_copy(op_dir), SELECTS, MULTIPLIES)
    edit(spec_copy(op_dir), REFERENCE_GRAD, REFERENCE_GRAD + "    nan: passthrough\n")
    code, rows = numerics(op_dir)
    assert code == 0, [r["reason"] for r in rows if r["status"] == "fail"]
    assert any(str(r["item"]).startswith("recipe") and r["status"] == "pass" for r in rows)


def test_nan_passthrough_on_a_selecting_kernel_names_the_other_setting(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU6)
    edit(spec_copy(op_dir), REFERENCE_GRAD, REFERENCE_GRAD + "    nan: passthrough\n")
    code, rows = numerics(op_dir)
    assert code == 1
    reason = next(str(r["reason"]) for r in rows if r["status"] == "fail")
    assert "assumed golden.reference.nan: passthrough" in reason and "write nan: select" in reason


def test_nan_passthrough_needs_the_gradient_input(run: Callable[..., Result], tmp_path: Path) -> None:
    spec = tmp_path / "relu6_grad.yaml"
    text = (Path(__file__).resolve().parents[2] / "schemas/relu6_grad.yaml").read_text(encoding="utf-8")
    spec.write_text(text.replace("    forward: where(features > 0, where(features < 6, features, 6), 0)\n"
                                 "    wrt: features\n" + REFERENCE_GRAD,
                                 "    direct: where(features > 0, 1, 0)\n    nan: passthrough\n"), encoding="utf-8")
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2
    assert "golden.reference.nan: passthrough says" in result.err and "name that input in grad" in result.err
    assert not (tmp_path / "out").exists()


def test_a_negative_attr_value_in_uint8_native_compute_is_named_not_a_crash(
        run: Callable[..., Result], tmp_path: Path) -> None:
    """It was `KeyError: '__import__'`: numpy's overflow error imports inside the builtin-less namespace."""
    yaml = YAML(typ="safe")
    doc = yaml.load(Path(__file__).resolve().parents[2] / "schemas/leaky_relu_grad.yaml")
    for tensor in doc["inputs"] + doc["outputs"]:
        tensor.update(dtypes=["float32", "uint8"], proto_dtypes=["float32", "uint8"])
    doc["attrs"][0].update(type="int", default=0, check_value=-1)
    doc["compute"]["dtype"] = "native"
    doc["compute"]["variants"]["default"][0] = "pos = gt(features, 0)"
    doc["aclnn"]["scalars"] = [{"name": "negativeSlope", "attr": "negative_slope"}]
    doc["golden"]["tolerances"] = {"float32": {"rtol": 1e-4, "atol": 1e-4}, "uint8": {"rtol": 0.0, "atol": 0.0}}
    doc.pop("upstream_differences", None)
    doc["infershape"]["rule"] = "elementwise"
    doc["constraints"].pop("broadcast")
    doc["aclnn"].pop("broadcast")
    spec = tmp_path / "leaky_relu_grad.yaml"
    yaml.dump(doc, spec)
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
    result = run("check", tmp_path / "out/activation/leaky_relu_grad", "--tier", "numerics", "--json")
    assert result.code == 1
    reasons = [i["reason"] for t in json.loads(result.out)["tiers"] for i in t["items"] if i["status"] == "fail"]
    assert len(reasons) == 1 and "KeyError" not in reasons[0]
    assert "the value -1 does not fit the compute dtype uint8 (0..255)" in reasons[0]
