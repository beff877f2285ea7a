"""Upstream's own kernel as the oracle of the run level: ops-nn's ReluGradV2 runs through the same harness, tiled by
its own host code, on the generated kernel's inputs. It matches the reference (the model agrees with a kernel that
runs on the NPU); the generated kernel's distance from it is reported, and a fault in the generated DAG shows there
while upstream's row still passes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import spec_copy

from opgen.cann_sources import resolve_sources
from opgen.check.items import CheckItem
from opgen.check.kernel.oracle import _apart
from opgen.check.kernel.run import kernel_run_rows
from opgen.check.trust import Trust

from .test_kernel_run_dag import RELU_DAG, SELECT, SELECT_SWAPPED
from .trees import RELU, copy_sample, cut_plan, edit, loaded

GELU_V2 = "activation/gelu_grad_v2"
NONFINITE_LISTING = "  - fact: kernel.nonfinite\n    reason: a test listing (op_kernel/arch35/relu_grad_v2_dag.h:1)\n"
# upstream entries of each form the launcher takes
UPSTREAM_FORMS = (
    (GELU_V2, "ascend950"),  # a template over BRC_TEMP_SCH_MODE_KEY_DECL and an attr; schMode 202 builds no TPipe
    ("activation/hard_swish_grad_v2", "ascend910b"),  # extern "C", the tiling struct declared by its host
    ("activation/logsigmoid_grad", "ascend950"),  # a template named log_sigmoid_grad, the BRC macro from the entry
    ("activation/glu_grad", "ascend950"),  # a split op: TPL dtype and SHAPE_MODE, padded moves, a 64-bit multiply
)


def _rows(op_dir: Path, cann_src: Path, soc: str = "ascend950", dtype: str = "float32") -> dict[str, CheckItem]:
    spec, plan = loaded(op_dir)
    cut = cut_plan(plan, soc, (dtype,))
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


@pytest.mark.parametrize(("rel_dir", "soc"), UPSTREAM_FORMS)
def test_upstream_entries_of_every_form_run_within_the_reference(tmp_path: Path, cann_src: Path, rel_dir: str,
                                                                soc: str) -> None:
    rows = _rows(copy_sample(tmp_path, rel_dir), cann_src, soc)
    upstream = rows[f"{soc} float32 upstream"]
    assert upstream.status == "pass", upstream.reason
    assert str(upstream.figures["tiling"]).startswith("upstream's host code")
    # the launches reach float32's edge values, where upstream itself lies far from the float64 reference (GeluGradV2:
    # 2.03e31 at a 1e38 output, 0.0038 relative): the generated kernel may be as far from upstream as that, no further
    apart = float(upstream.figures["generated_vs_upstream_max_abs"])
    assert apart <= max(1e-4, float(upstream.figures["upstream_max_abs"])), upstream.figures
    assert rows[f"{soc} float32 run"].status == "pass"


def test_upstream_16_bit_constants_build_on_the_cpu_and_equal_the_generated_kernel(tmp_path: Path,
                                                                                   cann_src: Path) -> None:
    """Upstream LeakyReluGrad's 16-bit DAG makes a half constant with atvoss's MAKE_CONST, which needs a constexpr
    constructor that asc-tools' CPU half lacks; the oracle's build puts cpu_model/upstream/ first, so it runs."""
    rows = _rows(copy_sample(tmp_path, "activation/leaky_relu_grad"), cann_src, dtype="float16")
    upstream = rows["ascend950 float16 upstream"]
    assert upstream.status == "pass", upstream.reason
    assert upstream.figures["generated_vs_upstream_max_ulp"] == 0


def test_upstream_nan_at_infinite_inputs_fails_unless_the_spec_lists_it(tmp_path: Path, cann_src: Path) -> None:
    """GeluGrad's spec clamps x where upstream's exp overflows to inf * 0 = NaN, and lists that difference."""
    op_dir = copy_sample(tmp_path, "experimental/activation/gelu_grad")
    spec = spec_copy(op_dir)
    text = spec.read_text(encoding="utf-8")
    start = text.index("  - fact: kernel.nonfinite\n")
    spec.write_text(text[:start] + text[text.index("  - fact:", start + 1):], encoding="utf-8")
    upstream = _rows(op_dir, cann_src, "ascend910b")["ascend910b float32 upstream"]
    assert upstream.status == "fail"
    assert "a model or upstream bug" in upstream.reason and "nan" in upstream.reason


def test_a_nonfinite_listing_with_nothing_to_excuse_fails(tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    edit(spec_copy(op_dir), "upstream_differences:\n", "upstream_differences:\n" + NONFINITE_LISTING)
    upstream = _rows(op_dir, cann_src)["ascend950 float32/uint1 upstream"]
    assert upstream.status == "fail"
    assert "remove the listing" in upstream.reason


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
