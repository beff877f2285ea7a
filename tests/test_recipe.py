"""The kernels follow the recipe: one changed coefficient or step changes the kernel math and the
golden, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import GELU, RELU, copy_spec

from opgen.generate import render_specs
from opgen.plan import build_plan
from opgen.spec.load import load_spec


def _changed(tmp_path: Path, source: Path, old: str, new: str) -> set[str]:
    base = render_specs([source])[0].files
    edited = copy_spec(source, tmp_path, lambda t: t.replace(old, new, 1))
    changed = render_specs([edited])[0].files
    assert base.keys() == changed.keys()
    return {path for path in base if base[path] != changed[path] and not path.startswith(".opgen/")}


def test_one_coefficient_changes_only_the_compute_body_and_golden(tmp_path: Path) -> None:
    changed = _changed(tmp_path, GELU, "r0 = muls(x2, 0.2140644488178007)", "r0 = muls(x2, 0.25)")
    assert changed == {"op_kernel/gelu_grad.h", "tests/assets/golden.py"}
    kernel = render_specs([tmp_path / "gelu_grad.yaml"])[0].files["op_kernel/gelu_grad.h"].decode()
    assert re.search(r"Muls\(tmp\d, tmp\d, 0\.25f, count\); +// r0 = muls\(x2, 0\.25\)", kernel)


def test_one_step_changes_only_the_dag_and_golden(tmp_path: Path) -> None:
    changed = _changed(tmp_path, RELU, "select(mask, gradients, 0)", "select(mask, gradients, 1)")
    assert changed == {"op_kernel/arch35/relu_grad_v2_dag.h", "tests/assets/golden.py"}


def test_classic_compute_uses_liveness_to_size_the_scratch_buffers() -> None:
    plan = build_plan(load_spec(GELU).spec, "gelu_grad.yaml")
    assert plan.classic is not None
    # 910b needs 3 temps by liveness, 310b 4 (x2, g1, h-chain and the clamped x live together): the max
    assert plan.classic.temp_buffers == ("tmpBuf0", "tmpBuf1", "tmpBuf2", "tmpBuf3")
    assert plan.classic.cast_buffers == ("castBufDy", "castBufX", "castBufZ")
    # the UB split the tiling uses counts them: 2 x (3 queued tensors) + 7 scratch fp32 buffers, but float32
    # reads its tensors in place, so its 3 cast buffers are never made: 4 scratch buffers
    assert [(c.dtype.name, c.bits) for c in plan.classic_dtype_cases] == [
        ("float32", 2 * 96 + 4 * 32), ("float16", 2 * 48 + 7 * 32), ("bfloat16", 2 * 48 + 7 * 32)]


def test_dag_is_one_bind_per_step_with_casts_around_float_compute() -> None:
    plan = build_plan(load_spec(RELU).spec, "relu_grad_v2.yaml")
    assert plan.dag is not None
    exprs = [line.expr for line in plan.dag.lines]
    assert "Bind<Vec::CopyIn<uint8_t>, Placeholder::In1<uint1_t>>" in exprs
    assert ("Bind<Vec::Select<uint8_t, T, VSEL_TENSOR_TENSOR_MODE>, OpCopyIn1, OpCopyIn0, OpCalcBackpropsFill>"
            in exprs)
    assert not any("Cast" in e for e in exprs)  # native compute: no casts
