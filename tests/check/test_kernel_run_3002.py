"""The run level of the kernel tier on arch 3002 (ascend310b): GeluGrad's classic kernel, whose 310B branch
asc-devkit's dav_m300 turns into register-form instructions (plt, vlds, vsts, vcvt, ...), runs on opgen's model of
them (cpu_model/regs3002.h) and is compared with the golden; the 310B's saturation mode is part of the model.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import opgen.check.kernel.run as kernel_run
from opgen.cann_sources import resolve_sources
from opgen.check.items import CheckItem
from opgen.check.kernel.run import kernel_run_rows
from opgen.check.trust import Trust
from tests.check.trees import GELU, copy_sample, edit, loaded

HEADER = "op_kernel/gelu_grad.h"
DTYPES = ("float32", "float16", "bfloat16")
ROWS_310B = [f"ascend310b {d} run" for d in DTYPES]
ROWS_910B = [f"ascend910b {d} run" for d in DTYPES]
# a constant of the 310B compute branch only (the 910B branch has no `h3` line): the kernel still compiles
H3 = "Adds(zValue, xValue, 1.0f, count);                  // h3 = adds(h2, 1.0)"


def _items(op_dir: Path, cann_src: Path) -> dict[str, CheckItem]:
    spec, plan = loaded(op_dir)
    return {i.item: i for i in kernel_run_rows(op_dir, spec.spec, plan, resolve_sources(cann_src), Trust(True))}


def test_the_310b_kernel_matches_the_golden_on_every_dtype(tmp_path: Path, cann_src: Path) -> None:
    items = _items(copy_sample(tmp_path, GELU), cann_src)
    for label in ROWS_310B:
        row = items[label]
        assert row.status == "pass", row.reason
        assert str(row.figures["tiling"]).startswith("tiling from the host code; workspace from the plan")
        assert row.figures["shapes"].startswith("1;3x1001;")  # one element, the tail, several tiles
    assert float(items["ascend310b float32 run"].figures["max_abs"]) < 1e-4
    assert "overflow" not in items["ascend310b float32 run"].figures
    assert items["ascend310b float16 run"].figures["overflow"] == "saturation"


def test_a_wrong_constant_in_the_310b_branch_fails_the_310b_rows_only(tmp_path: Path, cann_src: Path) -> None:
    """A semantic fault that still compiles: 1.5 for 1.0 in the 310B formula. Only running that branch shows it."""
    op_dir = copy_sample(tmp_path, GELU)
    edit(op_dir / HEADER, H3, H3.replace("1.0f", "1.5f"))
    items = _items(op_dir, cann_src)
    for label in ROWS_310B:
        assert items[label].status == "fail" and "z differs from the golden" in items[label].reason, \
            items[label].reason
    for label in ROWS_910B:  # the 910B branch is untouched: its rows still pass
        assert items[label].status == "pass", items[label].reason


def test_swapped_divide_operands_in_the_310b_branch_fail(tmp_path: Path, cann_src: Path) -> None:
    """Operand order reaches the model: Div(one, d) turned into Div(d, one) computes d, not 1/d (the constant
    block on the other side, read through vsldb at repeat stride 0)."""
    op_dir = copy_sample(tmp_path, GELU)
    edit(op_dir / HEADER, "DivWithBlock<true>(tmp0, const0, tmp0, count);",
         "DivWithBlock<false>(tmp0, tmp0, const0, count);")
    items = _items(op_dir, cann_src)
    for label in ROWS_310B:
        assert items[label].status == "fail" and "z differs from the golden" in items[label].reason, \
            items[label].reason


def test_the_model_saturates_half_results_as_the_310b_does(tmp_path: Path, cann_src: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Compared with the unsaturated golden, the half and bfloat16 rows fail exactly at the edge inputs whose result
    is inf or NaN: the model stored the largest finite value and 0 there (vcvt with RS_ENABLE)."""
    monkeypatch.setattr(kernel_run, "SATURATING_ARCHES", frozenset())
    items = _items(copy_sample(tmp_path, GELU), cann_src)
    assert items["ascend310b float32 run"].status == "pass"  # float results are not saturated
    half, bf16 = items["ascend310b float16 run"], items["ascend310b bfloat16 run"]
    assert half.status == "fail" and "np.float16(6.55e+04) vs np.float16(inf)" in half.reason, half.reason
    assert bf16.status == "fail" and "3.38953e+38 vs inf" in bf16.reason, bf16.reason


def test_an_instruction_the_3002_model_lacks_skips_naming_it(tmp_path: Path, cann_src: Path) -> None:
    """Sub on the 310B branch reaches vsub, which the model does not define: SKIPPED naming it, not FAIL."""
    op_dir = copy_sample(tmp_path, GELU)
    edit(op_dir / HEADER, "Mul(xValue, xValue, zValue, count);", "Sub(xValue, xValue, zValue, count);")
    items = _items(op_dir, cann_src)
    for label in ROWS_310B:
        assert items[label].status == "skip", items[label].reason
        assert "does not model on arch 3002: vsub" in items[label].reason, items[label].reason
