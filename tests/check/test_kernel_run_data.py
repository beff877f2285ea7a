"""The kernel run's data and figures (issue 37 item 19): inputs come from the domain the spec declares, and a
failing row's figures show the failure, inf and NaN mismatches included. No compile: the launch's pieces alone."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from opgen.check.items import TierResult
from opgen.check.kernel.build import KernelVariant, kernel_variants
from opgen.check.kernel.launch import Comparison, ShapeRun, Shapes, compare_outputs, draw_inputs
from opgen.check.kernel.run import _summary
from opgen.check.report import to_json
from opgen.check.runner import CheckReport

from .test_kernel_run_arch35 import _row
from .trees import copy_sample, loaded

SIGMOID = "activation/sigmoid_grad"  # y: domain [0, 1]; dy: none (the ST range [-5, 5] and every edge value)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_launch_inputs_come_from_the_declared_domain(tmp_path: Path, dtype: str) -> None:
    spec, plan = loaded(copy_sample(tmp_path, SIGMOID))
    combo = next(c for c in plan.combinations if c.key.name == dtype)
    y, dy = draw_inputs(spec.spec, plan, combo, Shapes.same((4096,), 2), np.random.default_rng(0))
    wide = y.astype(np.float64)
    assert np.all(np.isnan(wide) | ((wide >= 0.0) & (wide <= 1.0))), wide[~((wide >= 0) & (wide <= 1))][:8]
    assert {0.0, 1.0} <= set(wide.tolist())  # the domain's bounds are among the edge values
    assert np.isinf(dy.astype(np.float64)).any()  # an input with no domain still gets every edge value


def _comparison(have: list[float], want: list[float], tmp_path: Path) -> tuple[Comparison, ShapeRun]:
    spec, plan = loaded(copy_sample(tmp_path, SIGMOID))
    combo = next(c for c in plan.combinations if c.key.name == "float16")
    shape = (len(have),)
    inputs = [np.full(shape, 0.5, np.float16), np.ones(shape, np.float16)]
    found = compare_outputs(spec.spec, plan, combo, (np.array(have, np.float16),), (np.array(want, np.float16),),
                            inputs, "16 on 1 core(s)")
    run = ShapeRun(Shapes.same(shape, 2), 1, found.max_abs, found.max_rel, found.problems,
                   mismatched=found.mismatched, nonfinite=found.nonfinite)
    return found, run


def test_an_inf_against_the_largest_half_fails_with_figures_that_show_it(tmp_path: Path) -> None:
    """The TanhGrad report: 8 elements 65504 where the golden is inf, and the row said max_abs=0.0."""
    found, run = _comparison([65504.0] * 8 + [0.25] * 8, [math.inf] * 8 + [0.25] * 8, tmp_path)
    assert found.mismatched == 8 and found.nonfinite == 8
    assert math.isinf(found.max_abs) and math.isinf(found.max_rel)
    assert "differs from the golden at 8 element(s) (8 an inf or NaN against another value)" in found.problems[0]
    _, plan = loaded(copy_sample(tmp_path / "row", SIGMOID))
    variant = next(v for v in kernel_variants(plan) if isinstance(v, KernelVariant))
    row = _summary("ascend950 float16 run", plan, variant, [run], "tiling from the plan")
    assert row.status == "fail"
    assert row.figures["max_abs"] == math.inf and row.figures["nonfinite_mismatched"] == 8
    report = CheckReport(Path("op"), Path("spec.yaml"), "none", "SigmoidGrad", "arch35_dag",
                         (TierResult("kernel", (row,)),), 1.0)
    shown = to_json(report)["tiers"][0]["items"][0]["figures"]
    assert json.dumps(shown) and shown["max_abs"] == "inf" and shown["mismatched"] == 8


def test_a_nan_where_the_golden_is_finite_is_counted(tmp_path: Path) -> None:
    found, _ = _comparison([math.nan, 0.5], [0.25, 0.5], tmp_path)
    assert (found.mismatched, found.nonfinite) == (1, 1) and math.isinf(found.max_abs)


def test_a_finite_miss_keeps_finite_figures(tmp_path: Path) -> None:
    found, _ = _comparison([0.5, 0.5], [0.25, 0.5], tmp_path)
    assert (found.mismatched, found.nonfinite) == (1, 0) and found.max_abs == 0.25


def test_a_matching_run_has_no_mismatch(tmp_path: Path) -> None:
    found, _ = _comparison([math.inf, 0.5], [math.inf, 0.5], tmp_path)
    assert (found.mismatched, found.nonfinite, found.max_abs, found.problems) == (0, 0, 0.0, ())


def test_sigmoid_grad_runs_on_its_domain_and_passes(tmp_path: Path, cann_src: Path) -> None:
    """One real build and run (slow): half y drawn in [0, 1] matches the golden on the 3510 model."""
    row = _row(copy_sample(tmp_path, SIGMOID), cann_src, "float16")
    assert row.status == "pass", row.reason
    assert row.figures["mismatched"] == 0 and row.figures["nonfinite_mismatched"] == 0
