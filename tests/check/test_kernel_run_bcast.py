"""The run level on BroadcastSch DAG kernels: launched on the issue's broadcast patterns, tiled by the tree's own host
code (BroadcastBaseTiling picks the schedule), on the model of arch 3510 with its multi-dimensional GM -> UB move
(nddma). LeakyReluGrad passes; a DAG selecting the wrong way round compiles and fails.
"""

from __future__ import annotations

from pathlib import Path

from opgen.cann_sources import resolve_sources
from opgen.check.items import CheckItem
from opgen.check.kernel.launch import Shapes
from opgen.check.kernel.run import broadcast_shapes, kernel_run_rows
from opgen.check.trust import Trust

from .trees import copy_sample, cut_plan, edit, loaded

LEAKY = "activation/leaky_relu_grad"
LEAKY_DAG = "op_kernel/arch35/leaky_relu_grad_dag.h"


def test_the_patterns_broadcast_each_way_and_spread_over_every_core() -> None:
    patterns = broadcast_shapes(3, 2, 64)
    assert patterns[0] == Shapes(((3, 1001), (3, 1001), (3, 1001)))  # equal shapes
    assert patterns[1].inputs[:2] == ((1,), (1001,)) and patterns[1].output == (1001,)
    assert patterns[2].inputs[:2] == ((3, 1001), (3, 1)) and patterns[2].output == (3, 1001)
    assert patterns[3].inputs[:2] == ((1, 1001), (3, 1001))
    assert patterns[4].output == (5, 40, 33) and patterns[4].inputs[1] == (1, 40, 33)  # a leading dim
    assert patterns[5].output == (64 * 16, 1001)
    assert all(p.inputs[2] == p.output for p in patterns)  # an input past the broadcast ones takes the output's
    assert patterns[1].label == "1,1001,1001" and patterns[0].label == "3x1001"


def _row(op_dir: Path, cann_src: Path) -> CheckItem:
    spec, plan = loaded(op_dir)
    cut = cut_plan(plan, "ascend950", ("float32",))
    rows = kernel_run_rows(op_dir, spec.spec, cut, resolve_sources(cann_src), Trust(True))
    (row,) = [r for r in rows if r.item.endswith(" run")]
    return row


def test_leaky_relu_grad_runs_every_broadcast_pattern_tiled_by_its_host_code(tmp_path: Path, cann_src: Path) -> None:
    row = _row(copy_sample(tmp_path, LEAKY), cann_src)
    assert row.status == "pass", row.reason
    assert str(row.figures["tiling"]).startswith("tiling from the host code")
    assert "1,1001;3x1001,3x1;1x1001,3x1001;5x40x33,1x40x33" in str(row.figures["shapes"])


SELECT = "Select(rBackprops, rGradients, rLeak,"
SELECT_SWAPPED = "Select(rBackprops, rLeak, rGradients,"


def test_swapped_select_operands_fail_on_the_broadcast_launches(tmp_path: Path, cann_src: Path) -> None:
    """backprops = select(pos, leak, gradients) in the fused node's registers: it compiles, and computes the wrong
    thing on every broadcast pattern."""
    op_dir = copy_sample(tmp_path, LEAKY)
    edit(op_dir / LEAKY_DAG, SELECT, SELECT_SWAPPED)
    row = _row(op_dir, cann_src)
    assert row.status == "fail" and "backprops differs from the golden" in row.reason, row.reason
