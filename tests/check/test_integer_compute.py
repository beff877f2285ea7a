"""Integer columns of a float32 recipe on arch35: 8-bit integers cast to and from float through half (the
only 8-bit casts asc-devkit's Cast.md lists for Ascend 950), and a result outside an integer's range
saturates (asc-devkit precision_conversion.md). The DAG, the emulator and golden.py agree on both."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from conftest import Result
from ruamel.yaml import YAML

from opgen.check.emulator import to_output

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
DTYPES = ["float32", "int8", "uint8", "int32"]


@pytest.fixture
def integer_tree(run: Callable[..., Result], tmp_path: Path) -> Path:
    """LeakyReluGrad (arch35 DAG, float32 recipe) over float32, int8, uint8 and int32 columns."""
    yaml = YAML(typ="safe")
    doc = yaml.load(SCHEMAS / "leaky_relu_grad.yaml")
    for tensor in doc["inputs"] + doc["outputs"]:
        tensor.update(dtypes=list(DTYPES), proto_dtypes=list(DTYPES))
    for key in ("upstream_differences", "aclnn"):
        doc.pop(key)
    # a float32 recipe holds an int32 to 24 bits: beyond 2^24 one float32 rounding (2^-24 relative) per step
    doc["golden"]["tolerances"] = {"float32": {"rtol": 1e-4, "atol": 1e-4}, "int8": {"rtol": 0.0, "atol": 0.0},
                                   "uint8": {"rtol": 0.0, "atol": 0.0}, "int32": {"rtol": 2.4e-7, "atol": 0.0}}
    spec = tmp_path / "leaky_relu_grad.yaml"
    yaml.dump(doc, spec)
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
    return tmp_path / "out/activation/leaky_relu_grad"


def test_the_dag_casts_8_bit_columns_through_half_and_the_others_once(integer_tree: Path) -> None:
    dag = (integer_tree / "op_kernel/arch35/leaky_relu_grad_dag.h").read_text(encoding="utf-8")
    assert "using TMid = std::conditional_t<sizeof(T) == 1, half, float>;" in dag
    assert "Bind<Vec::Cast<TMid, T, CAST_MODE_NONE>, OpCopyIn0>" in dag
    assert "Bind<Vec::Cast<float, TMid, CAST_MODE_NONE>, OpCopyIn0Half>" in dag
    assert "Bind<Vec::Cast<TMid, float, CAST_MODE_RINT>, OpCalcBackprops>" in dag
    assert "Bind<Vec::Cast<T, TMid, CAST_MODE_RINT>, OpCopyOut0Half>" in dag


def test_a_float_only_dag_has_no_half_step() -> None:
    dag = (SCHEMAS.parent / "generated_samples/activation/leaky_relu_grad/op_kernel/arch35/leaky_relu_grad_dag.h")
    assert "Mid" not in dag.read_text(encoding="utf-8")


def test_saturating_casts_match_hand_computed_values() -> None:
    # 101.49 rounds to half 101.5 (half spacing 0.0625 there), then to even 102: a direct rint would give 101
    got = to_output(np.array([300.0, -300.0, 101.49, 2.5, np.nan], dtype=np.float32), np.dtype(np.int8))
    assert got.tolist() == [127, -128, 102, 2, 0]
    assert to_output(np.array([-1.0, 255.6], dtype=np.float32), np.dtype(np.uint8)).tolist() == [0, 255]
    got = to_output(np.array([2147483648.0, -2147483904.0, 3.5], dtype=np.float32), np.dtype(np.int32))
    assert got.tolist() == [2147483647, -2147483648, 4]


def test_every_integer_column_passes_numerics_and_golden_agrees(run: Callable[..., Result],
                                                                 integer_tree: Path) -> None:
    result = run("check", integer_tree, "--tier", "numerics", "--json")
    assert result.code == 0, result.out
    rows = [i["item"] for t in json.loads(result.out)["tiers"] for i in t["items"] if i["status"] == "pass"]
    for dtype in ("int8", "uint8", "int32"):
        assert any(f"recipe default (Ascend950) {dtype}" in r and "[edge]" in r for r in rows), dtype
        assert any(f"golden (spec render) default (Ascend950) {dtype}" in r for r in rows), dtype


def test_the_integer_dag_compiles_for_arch_3510(run: Callable[..., Result], integer_tree: Path,
                                                 cann_src: Path) -> None:
    result = run("check", integer_tree, "--cann-src", cann_src, "--tier", "kernel", "--json")
    [tier] = [t for t in json.loads(result.out)["tiers"] if t["tier"] == "kernel"]
    assert tier["status"] == "pass", tier
    assert any("int8" in i["item"] or "int8" in i["reason"] for i in tier["items"])
