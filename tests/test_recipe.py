"""The kernels follow the recipe: one changed coefficient or step changes the kernel math and the
golden, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import GELU, RELU, SCHEMAS, copy_spec

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
    assert re.search(r"Muls\((\w+), \1, 0\.25f, count\); +// r0 = muls\(x2, 0\.25\)", kernel)


def test_one_step_changes_only_the_dag_and_golden(tmp_path: Path) -> None:
    changed = _changed(tmp_path, RELU, "select(mask, gradients, 0)", "select(mask, gradients, 1)")
    assert changed == {"op_kernel/arch35/relu_grad_v2_dag.h", "tests/assets/golden.py"}


def test_classic_compute_keeps_values_in_its_own_tiles_before_making_scratch_buffers() -> None:
    plan = build_plan(load_spec(GELU).spec, "gelu_grad.yaml")
    assert plan.classic is not None
    # x's view is free once maxs read x, z's until the last step: 910b needs one tmpBuf more, 310b two
    assert [v.temp_count for v in plan.classic.variants] == [1, 2]
    assert plan.classic.temp_buffers == ("tmpBuf0", "tmpBuf1")
    first = next(line for line in plan.classic.variants[0].lines if "// xl = " in line)
    assert first.startswith("Maxs(zValue, xValue, -10000.0f, count);")
    assert plan.classic.cast_buffers == ("castBufDy", "castBufX", "castBufZ")
    # the UB split counts each key's own buffers: 2 x (3 queued tensors) + the key's tmpBufs; float32 reads its
    # tensors in place, so its 3 cast buffers are never made
    assert [(c.soc, c.dtype.name, c.bits) for c in plan.classic_dtype_cases] == [
        ("ascend910b", "float32", 2 * 96 + 1 * 32), ("ascend910b", "float16", 2 * 48 + 4 * 32),
        ("ascend910b", "bfloat16", 2 * 48 + 4 * 32), ("ascend310b", "float32", 2 * 96 + 2 * 32),
        ("ascend310b", "float16", 2 * 48 + 5 * 32), ("ascend310b", "bfloat16", 2 * 48 + 5 * 32)]


_STEP = re.compile(r"^(\w+)\((\w+)[,)].*// (\w+) = \w+\((.*)\)$")


def test_no_classic_step_overwrites_a_value_still_to_be_read() -> None:
    """Every sample's classic Compute(): the buffer a step writes holds no value a later step reads, and an
    input's view is written only after the input's last read."""
    for spec_path in sorted(SCHEMAS.glob("*.yaml")):
        plan = build_plan(load_spec(spec_path).spec, spec_path.name)
        if plan.classic is None:
            continue
        views = {f"{t.camel}Value": t.name for t in plan.tensors if t.role == "input"}
        for variant in plan.classic.variants:
            steps = [m.groups() for m in map(_STEP.match, variant.lines) if m]
            reads = [{a.strip() for a in args.split(",")} for _, _, _, args in steps]
            held = dict(views)  # buffer -> the value it holds
            for j, (_, dst, out, _) in enumerate(steps):
                prior = held.get(dst)
                later = [k for k in range(j + 1, len(steps)) if prior in reads[k]]
                assert not later, f"{spec_path.name} {variant.soc}: {out} overwrites {prior} in {dst}, read later"
                held[dst] = out


def test_dag_is_one_bind_per_step_with_casts_around_float_compute() -> None:
    plan = build_plan(load_spec(RELU).spec, "relu_grad_v2.yaml")
    assert plan.dag is not None
    exprs = [line.expr for line in plan.dag.lines]
    assert "Bind<Vec::CopyIn<uint8_t>, Placeholder::In1<uint1_t>>" in exprs
    assert ("Bind<Vec::Select<uint8_t, T, VSEL_TENSOR_TENSOR_MODE>, OpCopyIn1, OpCopyIn0, OpCalcBackpropsFill>"
            in exprs)
    assert not any("Cast" in e for e in exprs)  # native compute: no casts
