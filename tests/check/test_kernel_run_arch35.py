"""The run level on arch 3510 beyond ReluGradV2's one path: `classic_arch35` kernels, DAGs with a compare stored
to UB (StoreUnAlign of a predicate), and DAGs with one path per value of an attr choosing the math. Each runs on the
register-form model and passes; a semantic fault that still compiles fails exactly the rows that run it.

Every test needs the CANN sources (`cann_src`) and cuts the plan to ascend950 and one dtype to keep builds short.
"""

from __future__ import annotations

from pathlib import Path

from opgen.cann_sources import resolve_sources
from opgen.check.items import CheckItem
from opgen.check.kernel.run import kernel_run_rows
from opgen.check.trust import Trust

from .trees import copy_sample, cut_plan, edit, loaded

HARD_SHRINK = "activation/hard_shrink_grad"
RELU6 = "activation/relu6_grad"
ELU_V2 = "activation/elu_grad_v2"
SHRINK_KERNEL = "op_kernel/arch35/hard_shrink_grad.h"
RELU6_DAG = "op_kernel/arch35/relu6_grad_dag.h"
ELU_V2_DAG = "op_kernel/arch35/elu_grad_v2_dag.h"


def _row(op_dir: Path, cann_src: Path, dtype: str) -> CheckItem:
    spec, plan = loaded(op_dir)
    cut = cut_plan(plan, "ascend950", (dtype,))
    rows = kernel_run_rows(op_dir, spec.spec, cut, resolve_sources(cann_src), Trust(True))
    (row,) = [r for r in rows if r.item.endswith(" run")]  # the generated kernel's row (beside upstream's)
    return row


def test_a_classic_arch35_kernel_runs_and_a_wrong_compare_mode_fails(tmp_path: Path, cann_src: Path) -> None:
    """HardShrinkGrad's classic_arch35 kernel (Abs, Compares, Select in tensor/scalar mode) on the 3510 model."""
    op_dir = copy_sample(tmp_path / "good", HARD_SHRINK)
    row = _row(op_dir, cann_src, "float16")
    assert row.status == "pass", row.reason
    assert str(row.figures["tiling"]).startswith("tiling from the host code;")
    bad = copy_sample(tmp_path / "bad", HARD_SHRINK)
    edit(bad / SHRINK_KERNEL, "CMPMODE::LE,", "CMPMODE::GE,")  # grads pass inside the band
    faulty = _row(bad, cann_src, "float16")
    assert faulty.status == "fail" and "backprops differs from the golden" in faulty.reason, faulty.reason


def test_a_fused_dag_comparing_in_registers_runs_and_a_swapped_compare_fails(tmp_path: Path,
                                                                             cann_src: Path) -> None:
    """Relu6Grad's two compares are register Compares writing MaskRegs that two Selects read, in one fused node on
    3510; LT turned into GT keeps the kernel compiling and moves the upper clamp."""
    op_dir = copy_sample(tmp_path / "good", RELU6)
    row = _row(op_dir, cann_src, "float32")
    assert row.status == "pass", row.reason
    bad = copy_sample(tmp_path / "bad", RELU6)
    edit(bad / RELU6_DAG, "CMPMODE::LT>(pBelow", "CMPMODE::GT>(pBelow")
    faulty = _row(bad, cann_src, "float32")
    assert faulty.status == "fail" and "differs from the golden" in faulty.reason, faulty.reason


def test_each_value_of_a_choice_attr_runs_its_own_dag(tmp_path: Path, cann_src: Path) -> None:
    """EluGradV2's is_result picks one of two DAGs through the tiling key. Both paths run against the golden of their
    own value; a fault in the is_result=true DAG fails only the launches with is_result=True."""
    op_dir = copy_sample(tmp_path / "good", ELU_V2)
    row = _row(op_dir, cann_src, "float32")
    assert row.status == "pass", row.reason
    assert row.figures["shapes"].count(";") >= 4  # the three shapes at the defaults, then the other settings
    bad = copy_sample(tmp_path / "bad", ELU_V2)
    edit(bad / ELU_V2_DAG, "Add(rT, rActivations, rSa, mask)", "Sub(rT, rActivations, rSa, mask)")
    faulty = _row(bad, cann_src, "float32")
    assert faulty.status == "fail", faulty.reason
    failures = faulty.reason.split("; ")
    differing = [f for f in failures if "differs from the golden" in f]
    assert differing and all("is_result=True" in f for f in differing), faulty.reason


ELU_V2_TILING = "op_host/arch35/elu_grad_v2_tiling_arch35.cpp"


def test_the_launch_takes_the_tiling_the_host_code_computes(tmp_path: Path, cann_src: Path) -> None:
    """A host tiling that stores scale in the input_scale field compiles, and its own UTs at equal attr values
    cannot see it; the run, tiled by that host code at distinct values, computes the wrong numbers."""
    op_dir = copy_sample(tmp_path, ELU_V2)
    edit(op_dir / ELU_V2_TILING, "tiling->inputScale = inputScaleAttr != nullptr ? *inputScaleAttr",
         "tiling->inputScale = scaleAttr != nullptr ? *scaleAttr")
    row = _row(op_dir, cann_src, "float32")
    assert row.status == "fail", row.reason
    assert str(row.figures["tiling"]).startswith("tiling from the host code;")
    assert "input_scale=2.5" in row.reason and "differs from the golden" in row.reason, row.reason


def test_a_host_tiling_refusing_a_launch_fails_the_row(tmp_path: Path, cann_src: Path) -> None:
    """The alpha bound turned into a refusal of every is_result=true launch: the row says which launch."""
    op_dir = copy_sample(tmp_path, ELU_V2)
    edit(op_dir / ELU_V2_TILING, "isResultValue && tiling->alpha < 0.0f", "isResultValue")
    row = _row(op_dir, cann_src, "float32")
    assert row.status == "fail" and "the host tiling refused 3x1001 with is_result=True" in row.reason, row.reason
