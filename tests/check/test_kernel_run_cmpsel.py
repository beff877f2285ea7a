"""The run level of the kernel tier on a classic kernel with comparisons and selects (HardSwishGradV2 on 910b:
Compares into a UB mask, Select in tensor/scalar mode), on opgen's CPU model of vcmpvs/vsel/set_cmpmask.

asc-devkit's Select (tensor/scalar mode) duplicates its scalar into the scratch at TMP_UB_OFFSET (184 KB on arch
2201): a tiling filling the whole UB puts kernel buffers there and 32 elements come out wrong. The generated host
tiling leaves that scratch free, and the run (tiled by it) proves it; a host tiling that takes it back fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SCHEMAS, copy_spec

from opgen.cann_sources import resolve_sources
from opgen.check.kernel.run import kernel_run_rows
from opgen.check.trust import Trust
from tests.check.trees import copy_sample, cut_socs, edit, loaded

HSG = "activation/hard_swish_grad_v2"
HEADER = "op_kernel/hard_swish_grad_v2.h"
SOCS_910B = ("ascend910b", "ascend910_93")
ROWS_910B = [f"{soc} {d} run" for soc in SOCS_910B for d in ("float32", "float16", "bfloat16")]


def _rows(op_dir: Path, cann_src: Path) -> dict[str, tuple[str, str]]:
    """The 910B-family rows alone (the 910 and 950 kernels are other families, run by their own tests)."""
    spec, plan = loaded(op_dir)
    return {i.item: (i.status, i.reason) for i in kernel_run_rows(op_dir, spec.spec, cut_socs(plan, *SOCS_910B),
                                                                    resolve_sources(cann_src), Trust(True))}


def test_the_compare_select_sample_matches_the_golden(tmp_path: Path, cann_src: Path) -> None:
    rows = _rows(copy_sample(tmp_path, HSG), cann_src)
    for label in ROWS_910B:
        status, reason = rows[label]
        assert status == "pass", (label, reason)


def test_a_tiling_that_fills_the_scratch_fails(tmp_path: Path, cann_src: Path) -> None:
    """The fault the scratch reserve prevents: a host tiling without it gives tiles reaching TMP_UB_OFFSET, which
    Select overwrites (the run takes its tiling from the host code)."""
    op_dir = copy_sample(tmp_path, HSG)
    edit(op_dir / "op_host/arch22/hard_swish_grad_v2_tiling.cpp", ", 193, 8192},", ", 193, 0},", -1)
    rows = _rows(op_dir, cann_src)
    assert any(rows[label][0] == "fail" for label in ROWS_910B), rows


FAULTS = {
    "compare with the wrong operator": (
        "Compares(mask0, selfValue, -3.0f, CMPMODE::GT, cmpCount);",
        "Compares(mask0, selfValue, -3.0f, CMPMODE::LT, cmpCount);"),
    "select taking the other branch": (
        "Compares(mask0, selfValue, 3.0f, CMPMODE::LT, cmpCount);",
        "Compares(mask0, selfValue, 3.0f, CMPMODE::GE, cmpCount);"),
    "select in the wrong mode": (
        "Select(outValue, mask0, outValue, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE,",
        "Select(outValue, mask0, outValue, 0.0f, SELMODE::VSEL_CMPMASK_SPR,"),
    "compare count not rounded up to whole repeats": (
        "uint32_t cmpCount = (count + 255) / 256 * 256;", "uint32_t cmpCount = count / 64 * 64;"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_each_compare_select_fault_fails_the_run_rows_naming_the_case(fault: str, tmp_path: Path,
                                                                      cann_src: Path) -> None:
    old, new = FAULTS[fault]
    op_dir = copy_sample(tmp_path, HSG)
    edit(op_dir / HEADER, old, new, -1)
    rows = _rows(op_dir, cann_src)
    for label in ROWS_910B:
        status, reason = rows[label]
        assert status == "fail", (label, reason)
        assert "out differs from the golden" in reason and " on " in reason and "core(s)" in reason, reason


def test_a_compare_in_a_mode_the_model_lacks_skips_naming_it(tmp_path: Path, cann_src: Path) -> None:
    """Compares reached in counter mode (the model covers compares into UB in normal mode only) aborts the launch
    by name: SKIPPED, naming it, not FAIL."""
    op_dir = copy_sample(tmp_path, HSG)
    old = "Compares(mask0, selfValue, -3.0f, CMPMODE::GT, cmpCount);"
    edit(op_dir / HEADER, old, f"SetMaskCount();\n            {old}\n            SetMaskNorm();", -1)
    rows = _rows(op_dir, cann_src)
    for label in ROWS_910B:
        status, reason = rows[label]
        assert status == "skip" and "a compare into UB (vcmpv/vcmpvs) in counter mode" in reason, (label, reason)


TENSOR_FORMS = ("      - low = fill(-3.0)\n      - above = gt(self, low)\n      - zero = fill(0.0)\n"
                "      - t1 = select(above, t, zero)\n")


def test_the_tensor_forms_of_compare_and_select_match_too(tmp_path: Path, cann_src: Path, run) -> None:  # type: ignore[no-untyped-def]
    """The same math through Compare (tensor with tensor, vcmpv) and Select's tensor/tensor mode (mode 2: the
    mask's address in CMPMASK): the spec compares with a filled threshold and selects a filled zero."""
    spec = copy_spec(SCHEMAS / "hard_swish_grad_v2.yaml", tmp_path, lambda t: t.replace(
        "      - above = gt(self, -3.0)\n      - t1 = select(above, t, 0.0)\n", TENSOR_FORMS))
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
    op_dir = tmp_path / "out" / HSG
    kernel = (op_dir / HEADER).read_text(encoding="utf-8")
    assert "CMPMODE::GT, cmpCount); // above = gt(self, low)" in kernel and "VSEL_TENSOR_TENSOR_MODE" in kernel
    rows = _rows(op_dir, cann_src)
    for label in ROWS_910B:
        status, reason = rows[label]
        assert status == "pass", (label, reason)
    edit(op_dir / HEADER, "CMPMODE::GT, cmpCount); // above = gt(self, low)",
         "CMPMODE::LE, cmpCount); // above = gt(self, low)", -1)
    rows = _rows(op_dir, cann_src)
    assert all(rows[label][0] == "fail" for label in ROWS_910B), rows
