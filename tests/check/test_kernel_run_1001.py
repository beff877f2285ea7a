"""ascend910 (arch 1001, dav_c100): HardSwishGradV2's classic key for it copies whole blocks and compares and
selects a repeat at a time, since that arch has no DataCopyPad, no Compares and only SELMODE::VSEL_CMPMASK_SPR.
The kernel runs on opgen's CPU model at arch 1001 beside upstream's own 100 kernel, and faults that still compile
(a compare mode, the tail's step back) fail its rows.
"""

from __future__ import annotations

from pathlib import Path

from opgen.cann_sources import resolve_sources
from opgen.check.items import CheckItem
from opgen.check.kernel.run import kernel_run_rows
from opgen.check.trust import Trust
from tests.check.trees import copy_sample, cut_plan, edit, loaded

HSG = "activation/hard_swish_grad_v2"
HEADER = "op_kernel/hard_swish_grad_v2.h"
DTYPES = ("float16", "float32")
ROWS = [f"ascend910 {d} run" for d in DTYPES]
GT = "CompareByRepeat<true>(mask0, selfValue, const0, CMPMODE::GT, count);"
STEP_BACK = "start = start + count - whole;"


def _items(op_dir: Path, cann_src: Path) -> dict[str, CheckItem]:
    spec, plan = loaded(op_dir)
    rows = kernel_run_rows(op_dir, spec.spec, cut_plan(plan, "ascend910", DTYPES), resolve_sources(cann_src),
                           Trust(True))
    return {i.item: i for i in rows}


def test_the_910_kernel_matches_the_golden_and_upstreams_own(tmp_path: Path, cann_src: Path) -> None:
    items = _items(copy_sample(tmp_path, HSG), cann_src)
    for dtype in DTYPES:
        row = items[f"ascend910 {dtype} run"]
        assert row.status == "pass", row.reason
        assert row.figures["shapes"].startswith("1;3x1001;")  # under one block, a tail, several tiles
        oracle = items[f"ascend910 {dtype} upstream"]
        assert oracle.status == "pass", oracle.reason
        assert "op_kernel/hard_swish_grad_v2.cpp" in oracle.reason and "0 ulp from it" in oracle.reason


def test_a_compare_mode_fault_in_the_910_branch_fails_its_rows(tmp_path: Path, cann_src: Path) -> None:
    """GE for GT: only self == -3 differs, which the edge values hold."""
    op_dir = copy_sample(tmp_path, HSG)
    edit(op_dir / HEADER, GT, GT.replace("GT", "GE"))
    items = _items(op_dir, cann_src)
    for label in ROWS:
        assert items[label].status == "fail" and "out differs from the golden" in items[label].reason, \
            items[label].reason


def test_an_api_the_arch_lacks_compiles_and_fails_its_rows(tmp_path: Path, cann_src: Path) -> None:
    """Compares, as the other arches' keys compare with a scalar: dav_c100 reports it unsupported and writes no
    mask, as the NPU would leave it."""
    op_dir = copy_sample(tmp_path, HSG)
    edit(op_dir / HEADER, GT, "Compares(mask0, selfValue, -3.0f, CMPMODE::GT, count);")
    items = _items(op_dir, cann_src)
    for label in ROWS:
        assert items[label].status == "fail" and "out differs from the golden" in items[label].reason, \
            items[label].reason


def test_a_tail_copied_without_stepping_back_writes_past_the_output(tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, HSG)
    edit(op_dir / HEADER, STEP_BACK, "start = start + count - count;")
    items = _items(op_dir, cann_src)
    for label in ROWS:
        assert items[label].status == "fail" and "past the end of out" in items[label].reason, items[label].reason
