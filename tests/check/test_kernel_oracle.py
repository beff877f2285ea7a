"""Upstream's own kernel as the oracle of the run level: ops-nn's ReluGradV2 runs through the same harness, tiled by
its own host code, on the generated kernel's inputs. It matches the reference (the model agrees with a kernel that
runs on the NPU); the generated kernel's distance from it is reported, and a fault in the generated DAG shows there
while upstream's row still passes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from opgen.cann_sources import resolve_sources
from opgen.check.items import CheckItem
from opgen.check.kernel.oracle import _apart
from opgen.check.kernel.run import kernel_run_rows
from opgen.check.trust import Trust

from .test_kernel_run_dag import RELU_DAG, SELECT, SELECT_SWAPPED
from .trees import RELU, copy_sample, cut_plan, edit, loaded


def _rows(op_dir: Path, cann_src: Path) -> dict[str, CheckItem]:
    spec, plan = loaded(op_dir)
    cut = cut_plan(plan, "ascend950", ("float32",))
    rows = kernel_run_rows(op_dir, spec.spec, cut, resolve_sources(cann_src), Trust(True))
    return {r.item: r for r in rows}


def test_upstream_relu_grad_v2_runs_on_the_same_inputs_and_the_generated_kernel_equals_it(
        tmp_path: Path, cann_src: Path) -> None:
    rows = _rows(copy_sample(tmp_path, RELU), cann_src)
    upstream = rows["ascend950 float32/uint1 upstream"]
    assert upstream.status == "pass", upstream.reason
    assert upstream.figures["tiling"] == "upstream's host code"
    assert upstream.figures["generated_vs_upstream_max_ulp"] == 0
    assert upstream.figures["upstream_max_abs"] == 0.0


def test_a_generated_fault_shows_as_distance_from_upstream(tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    edit(op_dir / RELU_DAG, SELECT, SELECT_SWAPPED)  # the Select's data operands swapped
    rows = _rows(op_dir, cann_src)
    assert rows["ascend950 float32/uint1 run"].status == "fail"
    upstream = rows["ascend950 float32/uint1 upstream"]
    assert upstream.status == "pass", upstream.reason  # upstream's kernel is not the one at fault
    assert float(upstream.figures["generated_vs_upstream_max_abs"]) > 0
    assert int(upstream.figures["generated_vs_upstream_max_ulp"]) > 0


def test_ulp_distance_counts_adjacent_floats_as_one_across_zero() -> None:
    """Hand-computed: 1.0 and its next float32 are 1 ulp apart, -0.0 and +0.0 are 0, the smallest subnormals
    either side of zero 2; NaN positions are skipped."""
    one = np.float32(1.0)
    a = np.array([one, -0.0, np.float32(1e-45), np.nan], dtype=np.float32)
    b = np.array([np.nextafter(one, np.float32(2)), 0.0, np.float32(-1e-45), 1.0], dtype=np.float32)
    worst_abs, worst_ulp = _apart((a,), (b,))
    assert worst_ulp == 2
    assert worst_abs == float(np.nextafter(one, np.float32(2)) - one)
