"""The run level of the kernel tier for arch35 DAG kernels (ElementwiseSch on arch 3510): the register-form CPU model
runs them, the elementwise tiling they are fed, and semantic DAG faults that still compile failing the run rows.

Tests that build and run need the CANN sources (`cann_src`); each cuts the plan to the SoCs and dtypes it needs.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from opgen.cann_sources import resolve_sources
from opgen.check.items import CheckItem
from opgen.check.kernel.dag_run import DagFacts, elewise_tiling, tiling_bytes
from opgen.check.kernel.run import kernel_run_rows
from opgen.check.kernel.run_build import bindings_source, modelled_names
from opgen.check.kernel.tier import kernel_tier
from opgen.check.trust import Trust
from opgen.plan.registry.attrs import KernelScalars

from .trees import RELU, copy_sample, cut_plan, edit, loaded

MISH = "activation/mish_grad"
RELU_DAG = "op_kernel/arch35/relu_grad_v2_dag.h"
MISH_DAG = "op_kernel/arch35/mish_grad_dag.h"
SELECT = ("Bind<Vec::Select<uint8_t, T, VSEL_TENSOR_TENSOR_MODE>, OpCopyIn1, OpCopyIn0,\n"
          "                                 OpCalcBackpropsFill>")
SELECT_SWAPPED = ("Bind<Vec::Select<uint8_t, T, VSEL_TENSOR_TENSOR_MODE>, OpCopyIn1, OpCalcBackpropsFill,\n"
                  "                                 OpCopyIn0>")


def test_elewise_tiling_splits_cores_by_the_narrowest_dtype_and_ub_by_the_dag_buffers() -> None:
    """opbase ElewiseTiling by hand: 3024 elements of a DAG with 7 buffers, widest 4 bytes, narrowest 1 byte, on
    72 cores with 248 KiB: ceil(3024 * 8 / 32768) = 1 core, its share 3024 rounded up to 512s = 3072, the UB
    tile 248 KiB * 8 / (7 * 32) = 9069 elements cut to 256s = 8960."""
    fields = elewise_tiling(3024, 72, 248 * 1024, DagFacts(7, 4, 1), 1)
    assert fields == {"dim0": 3024, "coreNum": 1, "ubFormer": 8960, "blockFormer": 3072, "blockNum": 1,
                      "ubLoopOfFormerBlock": 1, "ubLoopOfTailBlock": 1, "ubTailOfFormerBlock": 3072,
                      "ubTailOfTailBlock": 3024, "elemNum": 8960, "scheMode": 1}
    # 10^6 fp32: 13889 a core rounded up to 14336, so 70 of the 72 cores; a 9024-element tile (64s), 2 loops each
    many = elewise_tiling(1_000_000, 72, 248 * 1024, DagFacts(7, 4, 4), 1)
    split = (many["blockNum"], many["blockFormer"], many["ubFormer"], many["ubLoopOfFormerBlock"])
    assert split == (70, 14336, 9024, 2)
    assert many["ubTailOfTailBlock"] == 1_000_000 - 69 * 14336 - 9024


def test_tiling_bytes_lay_out_the_base_struct_then_the_attr_fields() -> None:
    base = {"dim0": 5, "coreNum": 2, "ubFormer": 3, "blockFormer": 4, "blockNum": 2, "ubLoopOfFormerBlock": 1,
            "ubLoopOfTailBlock": 1, "ubTailOfFormerBlock": 4, "ubTailOfTailBlock": 1, "elemNum": 3, "scheMode": 1}
    plain = tiling_bytes(base, KernelScalars((), "EleBaseTilingDataV2", ""), {})
    assert len(plain) == 80  # int64, int32, int32, eight 64-bit words
    words = np.frombuffer(plain, dtype="<i8")
    assert words[0] == 5 and np.frombuffer(plain[8:16], dtype="<i4").tolist() == [2, 3] and words[9] == 1


def test_register_names_bind_to_the_register_model_and_an_unmodelled_one_aborts_naming_itself() -> None:
    """On arch 3510 the register-form names forward (by reference) to opgen_reg; a declared intrinsic no model
    defines is bound to an abort naming it, so only a launch reaching it stops (SKIPPED, by name)."""
    declarations = "\n".join(f"template <typename... Args> int64_t {n}(Args&&... args);"
                             for n in ("vlds", "vsel", "set_flag", "vgather2"))
    text = bindings_source(declarations, 3510)
    assert ('int64_t vlds(Args&&... args) { static uint64_t& calls = opgen_cpu::CallCounter("vlds"); ++calls; '
            "return opgen_reg::vlds(std::forward<Args>(args)...); }") in text
    assert "opgen_reg::vsel(" in text and "opgen_model::set_flag(" in text
    assert ('int64_t vgather2(Args&&... args) { opgen_cpu::Unmodelled("vgather2"); }') in text
    assert modelled_names(2201)["vsel"] == "opgen_model" and "vlds" not in modelled_names(2201)


def _run(op_dir: Path, cann_src: Path, dtypes: tuple[str, ...]) -> dict[str, CheckItem]:
    spec, plan = loaded(op_dir)
    cut = cut_plan(plan, "ascend950", dtypes)
    return {i.item: i for i in kernel_run_rows(op_dir, spec.spec, cut, resolve_sources(cann_src), Trust(True))
            if i.item.endswith(" run")}  # the generated kernel's rows; upstream's are test_kernel_oracle's


def _compiles(op_dir: Path, cann_src: Path, dtypes: tuple[str, ...]) -> bool:
    _, plan = loaded(op_dir)
    items = kernel_tier(op_dir, cut_plan(plan, "ascend950", dtypes), resolve_sources(cann_src))
    return bool(items) and all(i.status == "pass" for i in items)


def test_relu_grad_v2_dag_matches_the_golden_on_every_950_dtype(tmp_path: Path, cann_src: Path) -> None:
    rows = _run(copy_sample(tmp_path, RELU), cann_src, ("bfloat16", "float16", "float32", "int8", "int32", "uint8"))
    assert len(rows) == 6
    for row in rows.values():
        assert row.status == "pass", (row.item, row.reason)
        assert row.figures["cores"] == "1;1;64" and "tiling from the host code" in str(row.figures["tiling"])
        # no Ascend950 ini in the runtime repo: the platform ops-nn's own 950 UTs use, said in the row
        assert "the platform ops-nn's UTs give ascend950 (CORE_NUM 64, UB_SIZE 245760" in str(row.figures["tiling"])


def test_select_with_its_data_operands_swapped_compiles_and_fails_the_run(tmp_path: Path, cann_src: Path) -> None:
    """backprops = select(mask, 0.0, gradients) instead of select(mask, gradients, 0.0): a legal DAG."""
    op_dir = copy_sample(tmp_path, RELU)
    edit(op_dir / RELU_DAG, SELECT, SELECT_SWAPPED)
    assert _compiles(op_dir, cann_src, ("float32",))
    [row] = _run(op_dir, cann_src, ("float32",)).values()
    assert row.status == "fail" and "backprops differs from the golden" in row.reason, row.reason


@pytest.mark.parametrize("faulty", [False, True], ids=["as generated", "Add turned into Sub"])
def test_mish_grad_add_turned_into_sub_fails_the_run(faulty: bool, tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, MISH)
    if faulty:
        edit(op_dir / MISH_DAG, "Add(rSp, rSpPos, rSpLog, mask);", "Sub(rSp, rSpPos, rSpLog, mask);")
        assert _compiles(op_dir, cann_src, ("float32",))
    [row] = _run(op_dir, cann_src, ("float32",)).values()
    if faulty:
        assert row.status == "fail" and "x_grad differs from the golden" in row.reason, row.reason
    else:
        assert row.status == "pass", row.reason


def test_the_absent_path_runs_with_a_null_address_and_only_its_launches_see_its_fault(tmp_path: Path,
                                                                                      cann_src: Path) -> None:
    """MishGrad without tanhx: the host tiling leaves it out (instance count 0), the kernel gets a null address and
    takes the path computing tanh(softplus(x)) itself. A fault on that path alone fails those launches only."""
    op_dir = copy_sample(tmp_path, MISH)
    [row] = _run(op_dir, cann_src, ("float32",)).values()
    assert row.status == "pass", row.reason
    # the last launch spans several tiles on every core: its rows follow the fused node's tile
    assert re.search(r";3x1001 without tanhx;\d+x1001 without tanhx$", row.figures["shapes"]), row.figures["shapes"]
    edit(op_dir / MISH_DAG, "Abs(rSpAbs, rX, mask);", "Relu(rSpAbs, rX, mask);")
    [row] = _run(op_dir, cann_src, ("float32",)).values()
    assert row.status == "fail", row.reason
    failing = [line for line in row.reason.split("; ") if "differs from the golden" in line]
    assert failing and all(" without tanhx on " in line for line in failing), row.reason
