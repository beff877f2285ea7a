"""The CPU model's cost counters against hand-computed values, on GeluGrad's classic 910B kernel in float32.

By hand, from the kernel source (op_kernel/gelu_grad.h, the 910B branch of Compute): one UB tile issues 17 vector
calls (maxs, mins, mul, muls, adds, mul, exp, muls, adds, mul, adds, div, adds, mul, mul, sub, mul), each one
instruction (counter mode), and no casts in float32 (AsCompute and StoreCompute work in place); nothing is filled in
Init (g = e / (1 + e) has no constant numerator). The kernel reads
dy and x (y is not read) and writes z with exact-byte DataCopyPad moves: 12 bytes an element between GM and UB. It
never selects, so its buffers may fill the UB up to its end (no basic API scratch kept).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from opgen.cann_sources import resolve_sources
from opgen.check.kernel.build import KernelVariant, kernel_variants
from opgen.check.kernel.host_tiling import host_launches
from opgen.check.kernel.launch import Shapes, launch_cost, run_shape
from opgen.check.kernel.run import _golden, kernel_run_rows, soc_facts
from opgen.check.kernel.run_build import build_kernel
from opgen.check.trust import Trust

from .trees import GELU, copy_sample, cut_plan, loaded

STEPS_PER_TILE = 17
BYTES_PER_ELEMENT = 4 + 4 + 4  # dy in, x in, z out


def test_one_tile_counts_each_vector_call_once_and_every_byte_moved(tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    spec, plan = loaded(op_dir)
    plan = cut_plan(plan, "ascend910b", ("float32",))
    sources = resolve_sources(cann_src)
    (variant,) = [v for v in kernel_variants(plan) if isinstance(v, KernelVariant)]
    build = build_kernel(sources, variant, op_dir.resolve(), plan)
    assert build.executable is not None, build.problem
    facts = soc_facts(sources, plan.socs[0])
    assert facts is not None
    golden = _golden(plan, plan.socs[0])
    assert golden is not None
    for elements in (1, 64):
        shapes = Shapes.same((elements,), len(plan.inputs))
        host = host_launches(op_dir.resolve(), spec.spec, plan, variant, plan.socs[0], facts.vector_cores,
                             facts.ub_bytes + 256, sources, [(shapes, {})])
        assert not host.problem and len(host.launches) == 1, host.problem
        run = run_shape(build.executable, spec.spec, plan, variant.combination, golden({}), shapes,
                        facts.ub_bytes, host.launches[0], np.random.default_rng(0), {})
        assert run.problems == () and run.cost is not None
        assert run.cost.vector_instructions == STEPS_PER_TILE
        assert run.cost.gm_ub_bytes == BYTES_PER_ELEMENT * elements
        assert (192 - 8) * 1024 < run.cost.ub_extent <= 192 * 1024
        calls = dict(run.cost.calls)
        assert (calls["vdiv"], calls["vmul"], calls["vsub"], calls.get("vector_dup", 0)) == (1, 6, 1, 0)


def test_the_row_reports_cost_per_element_of_its_largest_launch(tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    spec, plan = loaded(op_dir)
    cut = cut_plan(plan, "ascend910b", ("float32",))
    (row,) = [r for r in kernel_run_rows(op_dir, spec.spec, cut, resolve_sources(cann_src), Trust(True))
              if r.item.endswith(" run")]
    assert row.status == "pass", row.reason
    assert row.figures["cost_shape"] == row.figures["shapes"].split(";")[2]
    assert row.figures["gm_ub_bytes_per_element"] == BYTES_PER_ELEMENT
    # several tiles on every core: 17 instructions a tile, so a few thousandths of an instruction an element
    assert 0 < float(row.figures["vector_instructions_per_element"]) < STEPS_PER_TILE / 1000


def test_cost_lines_parse_into_totals() -> None:
    cost = launch_cost("asserts 0\ncost gm_to_ub 80\ncost ub_to_gm 40\ncost ub_extent 4096\n"
                       "cost call vadd 3\ncost call vlds 2\ncost call set_flag 9\ndone 1\n")
    assert (cost.vector_instructions, cost.gm_ub_bytes, cost.ub_extent) == (5, 120, 4096)


def test_a_half_computed_as_it_is_costs_no_more_than_upstreams(tmp_path: Path, cann_src: Path) -> None:
    """HardShrinkGrad's native_dtypes [float16]: Abs, Compares and Select run on half, as upstream's kernel; in
    float (two casts in, one out, twice the repeats) the same row cost 2.49 times upstream's instructions."""
    op_dir = copy_sample(tmp_path, "activation/hard_shrink_grad")
    spec, plan = loaded(op_dir)
    rows = {r.item: r for r in kernel_run_rows(op_dir, spec.spec, cut_plan(plan, "ascend950", ("float16",)),
                                               resolve_sources(cann_src), Trust(True))}
    run, upstream = rows["ascend950 float16 run"], rows["ascend950 float16 upstream"]
    assert run.status == "pass" and upstream.status == "pass", (run.reason, upstream.reason)
    assert dict(run.figures)["vector_instructions_per_element"] > 0
    assert upstream.figures["vector_instructions_per_element_ratio"] <= 1.0, upstream.reason
    assert upstream.figures["generated_vs_upstream_max_ulp"] == 0  # the same half compare as upstream's


@pytest.mark.parametrize(("rel", "dtype"), [("activation/swish_grad", "float32"), ("activation/swish_grad", "float16"),
                                            ("activation/relu_grad_v2", "float32"),
                                            ("activation/elu_grad_v2", "float32")])
def test_a_fused_arch35_kernel_costs_no_more_than_upstreams(rel: str, dtype: str, tmp_path: Path,
                                                            cann_src: Path) -> None:
    """CI's share of the kernel matrix's cost rule (bench/kernel_run.py --costs prints every row): on the same launch,
    no more vector instructions, GM<->UB bytes or UB extent an element than upstream's kernel, which must run."""
    op_dir = copy_sample(tmp_path, rel)
    spec, plan = loaded(op_dir)
    rows = {r.item: r for r in kernel_run_rows(op_dir, spec.spec, cut_plan(plan, "ascend950", (dtype,)),
                                               resolve_sources(cann_src), Trust(True))}
    (run,) = [r for label, r in rows.items() if label.endswith(" run")]
    (upstream,) = [r for label, r in rows.items() if label.endswith(" upstream")]
    assert run.status == "pass" and upstream.status == "pass", (run.reason, upstream.reason)
    for cost in ("vector_instructions_per_element", "gm_ub_bytes_per_element", "ub_extent_bytes"):
        assert 0 < float(upstream.figures[f"{cost}_ratio"]) <= 1.0, (cost, upstream.reason)
