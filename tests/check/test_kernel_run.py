"""The run level of the kernel tier: classic kernels built with opgen's CPU model and run against the golden.

Tests that build and run need the CANN sources (`cann_src`) and are slow (a few compiles each, cached).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SCHEMAS, copy_spec

from opgen.cann_sources import resolve_sources
from opgen.check.kernel.run import kernel_run_rows
from opgen.check.runner import run_checks
from opgen.check.trust import ALLOW_EXEC_FLAG, Trust
from tests.check.trees import GELU, copy_sample, cut_socs, edit, loaded, statuses

HEADER = "op_kernel/gelu_grad.h"
ROWS_910B = [f"ascend910b {d} run" for d in ("float32", "float16", "bfloat16")]


def _rows(op_dir: Path, cann_src: Path | None, allow_exec: bool, *socs: str) -> dict[str, tuple[str, str]]:
    """The generated kernel's run rows (not upstream's, which the oracle tests hold); of `socs` alone if named."""
    spec, plan = loaded(op_dir)
    sources = resolve_sources(cann_src) if cann_src is not None else None
    return {i.item: (i.status, i.reason) for i in kernel_run_rows(op_dir, spec.spec, cut_socs(plan, *socs) if socs
                                                                    else plan, sources, Trust(allow_exec))
            if i.item.endswith(" run")}


def test_without_sources_every_row_is_skipped_with_the_enabling_command(tmp_path: Path) -> None:
    rows = _rows(copy_sample(tmp_path, GELU), None, True)
    assert set(rows) == {f"{soc} {d} run" for soc in ("ascend910b", "ascend310b")
                         for d in ("float32", "float16", "bfloat16")}
    assert all(status == "skip" and "OPGEN_CANN_SRC" in reason for status, reason in rows.values())


def test_without_allow_exec_nothing_is_built_or_run(tmp_path: Path, cann_src: Path) -> None:
    rows = _rows(copy_sample(tmp_path, GELU), cann_src, False)
    assert all(status == "skip" and ALLOW_EXEC_FLAG in reason for status, reason in rows.values())


def test_sample_kernel_matches_the_golden_on_every_910b_dtype(tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    spec, plan = loaded(op_dir)
    items = {i.item: i for i in kernel_run_rows(op_dir, spec.spec, cut_socs(plan, "ascend910b"),
                                                resolve_sources(cann_src), Trust(True))}
    for label in ROWS_910B:
        row = items[label]
        assert row.status == "pass", row.reason
        one, tail, large = (int(c) for c in str(row.figures["cores"]).split(";"))
        assert (one, tail) == (1, 12) and large > tail  # the large shape spreads over more cores
        assert str(row.figures["tiling"]).startswith("tiling from the host code; cores and UB from the runtime")
    assert float(items["ascend910b float32 run"].figures["max_abs"]) < 1e-4


FAULTS = {
    "wrong GM offset in CopyOut": ("DataCopyPad(zGm[progress * tileDataNum], zLocal, zParams);",
                                   "DataCopyPad(zGm[progress * tileDataNum + 8], zLocal, zParams);",
                                   "past the end of z"),
    "changed constant in Compute()": ("Adds(xValue, tmp0, 1.0f, count);", "Adds(xValue, tmp0, 1.5f, count);",
                                      "z differs from the golden"),
    "count rounded up": ("uint32_t count = static_cast<uint32_t>(i + 1 == tileNum ? coreDataNum - i * tileDataNum "
                         ": tileDataNum);",
                         "uint32_t count = static_cast<uint32_t>(i + 1 == tileNum ? (coreDataNum - i * tileDataNum "
                         "+ 255) / 256 * 256 : tileDataNum);",
                         "past the end of z"),
    "dropped tail": ("uint64_t tileNum = (coreDataNum + tileDataNum - 1) / tileDataNum;",
                     "uint64_t tileNum = coreDataNum / tileDataNum;", "z differs from the golden"),
}


# the faults the generated kernel UT's own cases (1024 elements, whole 256-element tiles, no tail) also catch under
# build.sh -u --opkernel: its 910B cases compare the output with the golden
KERNEL_UT_CATCHES = {"wrong GM offset in CopyOut", "changed constant in Compute()"}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_each_kernel_fault_fails_the_run_rows_and_no_other_tier(fault: str, tmp_path: Path, cann_src: Path) -> None:
    """...and the kernel UT row of the ops-nn-ut tier where the UT's shape reaches the fault."""
    old, new, reason = FAULTS[fault]
    op_dir = copy_sample(tmp_path, GELU)
    edit(op_dir / HEADER, old, new)
    spec, _ = loaded(op_dir)
    report = run_checks(op_dir, spec.path, sources=resolve_sources(cann_src), trust=Trust(True))
    tiers = statuses(report.tiers)
    assert tiers.pop("kernel") == "fail"
    ut = next(t for t in report.tiers if t.tier == "ops-nn-ut")
    failing = [i.item for i in ut.items if i.status == "fail"]
    assert failing == (["op_kernel UTs (ascend910b)"] if fault in KERNEL_UT_CATCHES else []), failing
    tiers.pop("ops-nn-ut")
    assert "fail" not in tiers.values(), tiers
    kernel = next(t for t in report.tiers if t.tier == "kernel")
    rows = {i.item: i for i in kernel.items}
    for label in ROWS_910B:
        assert rows[label].status == "fail" and reason in rows[label].reason, rows[label].reason
        assert rows[label.replace(" run", " compile")].status == "pass"  # only running the kernel shows it


def test_an_intrinsic_the_model_lacks_skips_the_run_rows_naming_it(tmp_path: Path, cann_src: Path) -> None:
    """A kernel the model cannot run proves nothing either way: SKIPPED, naming the instruction, not FAIL."""
    op_dir = copy_sample(tmp_path, GELU)
    edit(op_dir / HEADER, "Sub(xValue, xValue, zValue, count);", "Max(xValue, xValue, zValue, count);")
    rows = _rows(op_dir, cann_src, True, "ascend910b")
    for label in ROWS_910B:
        status, reason = rows[label]
        assert status == "skip" and "does not model on arch 2201: vmax" in reason, reason


SWISH_SIGMOID_EXPANDED = """      - sx = muls(x, scale)
      - sn = muls(sx, -1.0)
      - e = exp(sn)
      - d = adds(e, 1.0)
      - one = fill(1.0)
      - s = div(one, d)
"""


def test_a_classic_kernel_that_ignores_an_attr_fails_the_run_at_the_checked_setting(
        tmp_path: Path, cann_src: Path, run) -> None:
    """SwishGrad on the 910b classic family, its sigmoid spelled in ops the CPU model runs: the kernel scales
    x by the scale the tiling data carries; with 1.0f written in its place it still passes at the default
    scale, and fails the launch at scale=0.5."""
    spec = copy_spec(SCHEMAS / "swish_grad.yaml", tmp_path, lambda t: t.replace(
        "  - soc: ascend950\n    kernel: arch35_dag\n    aicore: {}\n",
        "  - soc: ascend910b\n    kernel: classic\n    tiling_key: 1\n").replace(
        "      - sx = muls(x, scale)\n      - s = sigmoid(sx)\n", SWISH_SIGMOID_EXPANDED))
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
    op_dir = tmp_path / "out/activation/swish_grad"
    rows = _rows(op_dir, cann_src, True)
    assert rows and all(status == "pass" for status, _ in rows.values()), rows
    edit(op_dir / "op_kernel/swish_grad.h", "scale_, count);", "1.0f, count);")
    rows = _rows(op_dir, cann_src, True)
    assert rows and all(status == "fail" for status, _ in rows.values()), rows
    for _, reason in rows.values():  # the one differing launch is the one at the checked setting
        assert reason.count("differs from the golden") == reason.count("with scale=0.5") == 1, reason
