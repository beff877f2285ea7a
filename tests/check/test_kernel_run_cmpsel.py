"""The run level of the kernel tier on a classic kernel with comparisons and selects (HardSwishGradV2 on 910b:
Compares into a UB mask, Select in tensor/scalar mode), on opgen's CPU model of vcmpvs/vsel/set_cmpmask.

asc-devkit's Select (tensor/scalar mode) duplicates its scalar into the scratch at TMP_UB_OFFSET (184 KB on arch
2201): a tiling filling the whole UB puts kernel buffers there and 32 elements come out wrong. The plan's classic
tiling leaves that scratch free, and the run proves it; a tiling that takes it back fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import opgen.check.kernel.run as kernel_run
from opgen.cann_sources import resolve_sources
from opgen.check.kernel.run import kernel_run_rows
from opgen.check.trust import Trust
from tests.check.trees import copy_sample, edit, loaded

HSG = "activation/hard_swish_grad_v2"
HEADER = "op_kernel/hard_swish_grad_v2.h"
ROWS_910B = [f"{soc} {d} run" for soc in ("ascend910b", "ascend910_93") for d in ("float32", "float16", "bfloat16")]


def _rows(op_dir: Path, cann_src: Path) -> dict[str, tuple[str, str]]:
    spec, plan = loaded(op_dir)
    return {i.item: (i.status, i.reason) for i in kernel_run_rows(op_dir, spec.spec, plan, resolve_sources(cann_src),
                                                                    Trust(True))}


def test_the_compare_select_sample_matches_the_golden(tmp_path: Path, cann_src: Path) -> None:
    rows = _rows(copy_sample(tmp_path, HSG), cann_src)
    for label in ROWS_910B:
        status, reason = rows[label]
        assert status == "pass", (label, reason)


def test_a_tiling_that_fills_the_scratch_fails(tmp_path: Path, cann_src: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The fault the scratch reserve prevents: tiles reaching TMP_UB_OFFSET are overwritten by Select."""
    monkeypatch.setattr(kernel_run, "ub_scratch_bytes", lambda spec, kernel: 0)
    rows = _rows(copy_sample(tmp_path, HSG), cann_src)
    assert any(rows[label][0] == "fail" for label in ROWS_910B), rows


FAULTS = {
    "compare with the wrong operator": (
        "Compares(mask0, selfValue, -3.0f, CMPMODE::GT, cmpCount);",
        "Compares(mask0, selfValue, -3.0f, CMPMODE::LT, cmpCount);"),
    "select taking the other branch": (
        "Compares(mask0, selfValue, 3.0f, CMPMODE::LT, cmpCount);",
        "Compares(mask0, selfValue, 3.0f, CMPMODE::GE, cmpCount);"),
    "select in the wrong mode": (
        "Select(tmp0, mask0, tmp0, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);",
        "Select(tmp0, mask0, tmp0, 0.0f, SELMODE::VSEL_CMPMASK_SPR, count);"),
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


TENSOR_FORMS = (
    "Duplicate(outValue, -3.0f, cmpCount);\n"
    "            Compare(mask0, selfValue, outValue, CMPMODE::GT, cmpCount);\n"
    "            Duplicate(outValue, 0.0f, count);\n"
    "            Select(tmp0, mask0, tmp0, outValue, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);")


def test_the_tensor_forms_of_compare_and_select_match_too(tmp_path: Path, cann_src: Path) -> None:
    """The same math through Compare (tensor with tensor, vcmpv) and Select's tensor/tensor mode (mode 2: the
    mask's address in CMPMASK), the threshold and the zero duplicated into the output's float view first."""
    op_dir = copy_sample(tmp_path, HSG)
    edit(op_dir / HEADER, "Compares(mask0, selfValue, -3.0f, CMPMODE::GT, cmpCount); // above = gt(self, -3.0)\n"
                          "            Select(tmp0, mask0, tmp0, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);",
         TENSOR_FORMS, -1)
    rows = _rows(op_dir, cann_src)
    for label in ROWS_910B:
        status, reason = rows[label]
        assert status == "pass", (label, reason)
    edit(op_dir / HEADER, "CMPMODE::GT, cmpCount);\n            Duplicate", "CMPMODE::LE, cmpCount);\n"
                          "            Duplicate", -1)
    rows = _rows(op_dir, cann_src)
    assert all(rows[label][0] == "fail" for label in ROWS_910B), rows
