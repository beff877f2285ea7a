"""64-bit integers in the numerics tier: float64 holds them only to 2**53, so the reference and every comparison
work in integers, and saturation never wraps."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from opgen.check.emulator import pack_mask, saturated, to_output
from opgen.check.numerics import check_numerics, within_tolerance
from opgen.check.references import build_reference
from opgen.plan import RenderPlan, build_plan
from opgen.spec.load import load_spec
from opgen.spec.models import OpSpec

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
INT64_MAX, INT64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min


@pytest.fixture(scope="module")
def relu_int64(tmp_path_factory: pytest.TempPathFactory) -> tuple[OpSpec, RenderPlan]:
    """ReluGradV2 as the sample has it, with int64 beside its other integer dtypes."""
    text = (SCHEMAS / "relu_grad_v2.yaml").read_text(encoding="utf-8")
    text = text.replace("int8, int32, uint8]", "int8, int32, int64, uint8]")
    text = text.replace("    int32: {rtol: 0.0, atol: 0.0}\n", "    int32: {rtol: 0.0, atol: 0.0}\n"
                        "    int64: {rtol: 0.0, atol: 0.0}\n")
    path = tmp_path_factory.mktemp("int64") / "relu_grad_v2.yaml"
    path.write_text(text, encoding="utf-8")
    spec = load_spec(path).spec
    return spec, build_plan(spec, path.name)


def test_the_reference_of_int64_inputs_is_exact_past_2_53(relu_int64: tuple[OpSpec, RenderPlan]) -> None:
    spec, plan = relu_int64
    reference = build_reference(spec, plan)
    assert reference is not None
    gradients = np.array([2**62 + 1, -(2**60) - 3, INT64_MAX, INT64_MIN, 7, 0, 5, 9], dtype=np.int64)
    mask = pack_mask(np.array([1, 1, 1, 1, 1, 0, 1, 1], dtype=bool))
    (out,), _, undefined = reference.fn([gradients, mask])
    assert out.dtype == np.int64 and not undefined.any()
    assert out.tolist() == [2**62 + 1, -(2**60) - 3, INT64_MAX, INT64_MIN, 7, 0, 5, 9]


def test_every_int64_row_matches_its_reference_exactly(relu_int64: tuple[OpSpec, RenderPlan]) -> None:
    """Before, the reference rounded its inputs to float64 and the ST rows were 502 integers apart from the
    emulator, which the float64 comparison called equal."""
    rows = [r for r in check_numerics(*relu_int64) if "int64" in r.dtypes]
    assert {r.sample for r in rows} == {"random", "edge"}
    assert all(r.passed and r.max_ulp == 0 and r.max_abs == 0 for r in rows), [r.reason for r in rows]


def test_an_int64_kernel_off_by_one_past_2_53_fails() -> None:
    got = np.array([2**62 + 1, 5, INT64_MAX], dtype=np.int64)
    exact = np.array([2**62, 5, INT64_MAX], dtype=np.int64)
    ok, diff = within_tolerance(got, exact, 0.0, 0.0)
    assert ok.tolist() == [False, True, True] and diff.tolist() == [1.0, 0.0, 0.0]
    # a float reference is saturated, not wrapped: 1e19 is the maximum, which got holds
    ok, _ = within_tolerance(got, np.array([2.0**62, 5.0, 1e19]), 0.0, 0.0)
    assert ok.tolist() == [False, True, True]


def test_saturation_to_64_bits_never_wraps() -> None:
    values = np.array([1e19, -1e19, 2.0**63, np.nan, np.inf, -np.inf, 2.5, -3.5])
    assert saturated(values, np.dtype(np.int64)).tolist() == [INT64_MAX, INT64_MIN, INT64_MAX, 0, INT64_MAX,
                                                             INT64_MIN, 2, -4]
    assert saturated(values, np.dtype(np.uint64)).tolist() == [10**19, 0, 2**63, 0, 2**64 - 1, 0, 2, 0]
    assert to_output(np.array([3.4e38, -3.4e38], dtype=np.float32), np.dtype(np.int64)).tolist() == [INT64_MAX,
                                                                                                     INT64_MIN]
