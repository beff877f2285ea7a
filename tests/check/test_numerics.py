"""The numerics tier: recipes against independent references, and golden.py files in the TTK form."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from conftest import spec_copy

from opgen.check.emulator import EmulationError, emulate, numpy_dtype, pack_mask, unpack_mask
from opgen.check.numerics import (
    NumericsResult,
    check_golden_file,
    check_numerics,
    load_golden,
    ulp_distance,
    within_tolerance,
)
from opgen.check.numerics_samples import edge_values
from opgen.check.references import build_reference
from opgen.errors import OpgenError
from opgen.plan import RenderPlan, build_plan
from opgen.plan.testcases.golden import GoldenVariant
from opgen.spec.load import load_spec
from opgen.spec.models import ComputeSpec, OpSpec
from opgen.spec.recipe import Step, parse_step

from .trees import GELU, copy_sample

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
# GeluGrad with the guard the edge sample asks for, in the forms its spec first had: x clamped to [-1e4, 1e4]
# (both variants; the derivative there is exactly 1 or 0 in float32) and, in the 910b form, px/(1+px) as
# 1 - 1/(1+px) so that exp overflowing to inf gives 0 instead of inf*0 = NaN (the spec's 910b form now takes
# e/(1+e), e = 1/px, with x at most 10).
# The 910b recipe as first written (no clamp, px * inv): exp overflows to inf and inf * 0 gives NaN.
UNGUARDED_910B = (
    "x2 = mul(x, x)", "t0 = muls(x2, -0.0713548162726002527220)", "t1 = adds(t0, -1.595769121605730711759)",
    "t2 = mul(t1, x)", "px = exp(t2)", "r0 = muls(x2, 0.2140644488178007)", "r1 = adds(r0, 1.595769121605730711759)",
    "res = mul(r1, x)", "d = adds(px, 1.0)", "one = fill(1.0)", "inv = div(one, d)", "a = mul(px, inv)",
    "b = mul(a, res)", "c = mul(b, inv)", "s = add(c, inv)", "z = mul(s, dy)",
)
GUARDED_GELU = {
    "ascend910b": (
        "xl = maxs(x, -10000.0)", "xc = mins(xl, 10000.0)", "x2 = mul(xc, xc)",
        "t0 = muls(x2, -0.0713548162726002527220)", "t1 = adds(t0, -1.595769121605730711759)",
        "t2 = mul(t1, xc)", "px = exp(t2)", "r0 = muls(x2, 0.2140644488178007)",
        "r1 = adds(r0, 1.595769121605730711759)", "res = mul(r1, xc)", "d = adds(px, 1.0)", "one = fill(1.0)",
        "inv = div(one, d)", "na = adds(inv, -1.0)", "nb = mul(na, res)", "nc = mul(nb, inv)",
        "s = sub(inv, nc)", "z = mul(s, dy)",
    ),
    "ascend310b": (
        "xl = maxs(x, -10000.0)", "xc = mins(xl, 10000.0)", "x2 = mul(xc, xc)",
        "t0 = muls(x2, -0.0713548162726002527220)", "t1 = adds(t0, -1.5957691216057308)", "t2 = mul(t1, xc)",
        "px = exp(t2)", "d = adds(px, 1.0)", "one = fill(1.0)", "g1 = div(one, d)", "h0 = adds(g1, -1.0)",
        "h1 = mul(h0, xc)", "f0 = muls(x2, -0.21406444881780074632901625683959062)",
        "g2 = adds(f0, -1.5957691216057307117597842397375274738)", "h2 = mul(h1, g2)", "h3 = adds(h2, 1.0)",
        "h4 = mul(h3, g1)", "z = mul(h4, dy)",
    ),
}


def _sample(name: str) -> tuple[OpSpec, RenderPlan]:
    spec = load_spec(SCHEMAS / f"{name}.yaml").spec
    return spec, build_plan(spec, f"schemas/{name}.yaml")


def _with_variants(spec: OpSpec, variants: Mapping[str, Sequence[Step | str]]) -> tuple[OpSpec, RenderPlan]:
    """The spec with other recipe variants (same names, so the platforms still find theirs)."""
    parsed = {name: tuple(s if isinstance(s, Step) else parse_step(s) for s in steps)
              for name, steps in variants.items()}
    compute = ComputeSpec(dtype=spec.compute.dtype, variants=parsed)
    changed = spec.model_copy(update={"compute": compute})
    return changed, build_plan(changed, "changed.yaml")


def _failing(results: list[NumericsResult]) -> list[NumericsResult]:
    return [r for r in results if not r.passed]


@pytest.fixture(scope="module")
def gelu() -> tuple[OpSpec, RenderPlan]:
    return _sample("gelu_grad")


@pytest.fixture(scope="module")
def gelu_results(gelu: tuple[OpSpec, RenderPlan]) -> list[NumericsResult]:
    return check_numerics(*gelu)


def test_relu_grad_v2_passes_every_dtype_on_random_and_edge_samples() -> None:
    results = check_numerics(*_sample("relu_grad_v2"))
    assert len(results) == 6 * 2  # six dtype combinations, random and edge, one variant
    assert [r.reason for r in _failing(results)] == []
    assert all(r.max_abs == 0 and r.max_ulp == 0 for r in results)


def test_gelu_grad_random_samples_pass_in_every_variant_and_dtype(gelu_results: list[NumericsResult]) -> None:
    random = [r for r in gelu_results if r.sample == "random"]
    assert {(r.variant, r.dtypes[-1]) for r in random} == {
        (v, d) for v in ("ascend910b", "ascend310b") for d in ("float32", "float16", "bfloat16")
    }
    assert [r.reason for r in _failing(random)] == []
    assert all(r.max_ulp <= 1 for r in random if r.dtypes[-1] != "float32")


def test_gelu_grad_edge_samples_pass(gelu_results: list[NumericsResult]) -> None:
    assert [r.reason for r in _failing(gelu_results)] == []


def test_the_edge_finding_names_a_finite_input_that_gives_nan(gelu: tuple[OpSpec, RenderPlan]) -> None:
    unguarded = {"ascend910b": UNGUARDED_910B, "ascend310b": gelu[0].compute.variants["ascend310b"]}
    results = check_numerics(*_with_variants(gelu[0], unguarded))
    edge_910b = [r for r in results if r.sample == "edge" and r.variant == "ascend910b"]
    assert edge_910b and all(not r.passed for r in edge_910b)
    assert all("x=-10.5" in r.reason and "got nan, expected 0" in r.reason for r in edge_910b)


def test_a_guarded_gelu_recipe_passes_the_edges_too(gelu: tuple[OpSpec, RenderPlan]) -> None:
    results = check_numerics(*_with_variants(gelu[0], GUARDED_GELU))
    assert [r.reason for r in _failing(results)] == []
    assert sum(r.undefined for r in results if r.sample == "edge") > 0  # x = +-inf: torch says NaN


def test_one_changed_coefficient_fails_naming_dtype_and_variant(gelu: tuple[OpSpec, RenderPlan]) -> None:
    spec = gelu[0]

    def nudged(steps: tuple[Step, ...]) -> tuple[Step, ...]:
        first = next(i for i, s in enumerate(steps) if s.op == "muls")  # x**2's coefficient in exp's argument
        step = steps[first]
        value = step.args[1]
        assert isinstance(value, float)
        return (*steps[:first], Step(step.out, step.op, (step.args[0], value * 1.2)), *steps[first + 1:])

    results = check_numerics(*_with_variants(spec, {n: nudged(s) for n, s in spec.compute.variants.items()}))
    random = [r for r in results if r.sample == "random"]
    assert random and all(not r.passed for r in random)
    for r in random:
        assert f"variant {r.variant} " in r.reason and r.dtypes[-1] in r.reason
        assert "worst at index" in r.reason


def test_a_wrong_step_in_one_variant_fails_only_that_variant(gelu: tuple[OpSpec, RenderPlan]) -> None:
    spec = gelu[0]
    variants = dict(spec.compute.variants)
    *head, last = variants["ascend910b"]
    variants["ascend910b"] = (*head, Step(last.out, "add", last.args))  # z = s + dy instead of s * dy
    random = [r for r in check_numerics(*_with_variants(spec, variants)) if r.sample == "random"]
    assert {r.variant for r in _failing(random)} == {"ascend910b"}
    assert len(_failing(random)) == 3  # every dtype of that variant


def test_numerics_are_deterministic(gelu: tuple[OpSpec, RenderPlan],
                                    gelu_results: list[NumericsResult]) -> None:
    assert check_numerics(*gelu) == gelu_results
    assert check_numerics(*gelu, seed=1) != gelu_results


def mask_select(gradients: np.ndarray, packed: np.ndarray) -> tuple[np.ndarray, ...]:
    """ReluGradV2's direct reference, where(mask, gradients, 0), as the check builds it from the spec."""
    spec, plan = _sample("relu_grad_v2")
    reference = build_reference(spec, plan)
    assert reference is not None
    return reference.fn([gradients, packed])[0]


def test_mask_reference_agrees_with_a_brute_force_loop() -> None:
    rng = np.random.default_rng(7)
    gradients = rng.standard_normal((3, 16)).astype(np.float32)
    bits = rng.integers(0, 2, 48)
    packed = np.zeros(6, dtype=np.uint8)
    for i, bit in enumerate(bits):
        packed[i // 8] |= np.uint8(bit << (i % 8))
    expected = np.array([g if b else 0.0 for g, b in zip(gradients.ravel(), bits, strict=True)], np.float32)
    assert np.array_equal(mask_select(gradients, packed)[0], expected.reshape(3, 16))
    assert np.array_equal(unpack_mask(packed, (3, 16)).ravel(), bits.astype(bool))
    assert np.array_equal(pack_mask(bits), packed)


def test_mask_bits_are_lsb_first() -> None:
    gates = mask_select(np.arange(1, 17, dtype=np.int8), np.array([0b0000_0001, 0b1000_0000], np.uint8))[0]
    assert gates.tolist() == [1] + [0] * 14 + [16]


@pytest.mark.parametrize(("dtype", "a", "b", "steps"), [
    (np.float32, 1.0, float(np.nextafter(np.float32(1), np.float32(2))), 1),
    (np.float32, 0.0, -0.0, 0),
    (np.float32, 1.401298464324817e-45, -1.401298464324817e-45, 2),  # across zero: +tiny, 0, -tiny
    (np.float32, 3.4028234663852886e38, np.inf, 1),
    (np.float32, 1.0, 2.0, 1 << 23),
    (np.float16, 1.0, 1.0009765625, 1),
    (np.float16, 65504.0, np.inf, 1),
    (np.float16, 2.0, 1.0, 1024),
    (ml_dtypes.bfloat16, 1.0, 1.0078125, 1),
    (ml_dtypes.bfloat16, -1.0, -1.015625, 2),
    (np.float32, np.nan, np.nan, 0),
    (np.float32, np.nan, 1.0, np.inf),
    (np.int8, -128, 127, 255),
])
def test_ulp_distance_on_hand_made_values(dtype: type, a: float, b: float, steps: float) -> None:
    got = ulp_distance(np.array([a]).astype(dtype), np.array([b]).astype(dtype))
    assert got.tolist() == [steps]


def test_tolerance_rule_for_nan_inf_and_overflow() -> None:
    got = np.array([np.nan, 1.0, 1.0, 65504.0, np.inf, np.inf, -np.inf, 1.0015, 1.003], np.float16)
    reference = np.array([np.nan, np.nan, np.nan, 65530.0, 65500.0, 1.0, np.inf, 1.0, 1.0])
    input_nan = np.array([True, True, False, False, False, False, False, False, False])
    ok, diff = within_tolerance(got, reference, 1e-3, 1e-3, input_nan=input_nan)
    # NaN propagates; NaN for NaN input is wrong; undefined reference; overflow either side; inf for 1;
    # opposite infinity; within atol + rtol; beyond it
    assert ok.tolist() == [True, False, True, True, True, False, False, True, False]
    assert diff[0] == 0 and np.isinf(diff[1]) and diff[3] == 26.0


def test_reference_error_bound_widens_only_the_allowance() -> None:
    ok, _ = within_tolerance(np.array([938.0, 938.0], np.float32), np.zeros(2), 1e-4, 1e-4,
                             bound=np.array([1e4, 0.0]))
    assert ok.tolist() == [True, False]


def test_edge_values_hold_specials_limits_and_subnormals_once() -> None:
    values = edge_values("float16").astype(np.float64)
    assert np.isnan(values).sum() == 1 and {np.inf, -np.inf, 65504.0, -65504.0, 1e4} <= set(values.tolist())
    assert 2.0**-24 in values.tolist() and 0.0 in values.tolist()
    assert np.signbit(values[values == 0]).tolist() == [False, True]
    assert edge_values("int8").min() == -128 and edge_values("uint8").min() == 0


def test_emulator_rounds_float32_results_to_nearest_even(gelu: tuple[OpSpec, RenderPlan]) -> None:
    _, plan = _with_variants(gelu[0], {"ascend910b": ("z = adds(x, 0.00048828125)",),
                                       "ascend310b": ("z = adds(x, 0.00048828125)",)})
    combo = next(c for c in plan.combinations if c.key.name == "float16")
    x = np.array([1.0, 1.0009765625], np.float16)  # + 2**-11: both exactly halfway to the next float16
    z = emulate(plan, plan.golden.variants[0], combo, [x, x, x])[0]
    assert z.dtype == np.float16 and z.tolist() == [1.0, 1.001953125]


def test_emulator_rejects_lines_that_leave_the_compute_dtype_or_the_namespace(
    gelu: tuple[OpSpec, RenderPlan],
) -> None:
    plan = gelu[1]
    combo = plan.combinations[0]
    inputs = [np.ones(8, np.float32)] * 3
    with pytest.raises(EmulationError, match="float64"):
        emulate(plan, GoldenVariant("v", (), ("z = np.multiply(x, np.float64(2.0))",)), combo, inputs)
    with pytest.raises(NameError):
        emulate(plan, GoldenVariant("v", (), ("z = open('x')",)), combo, inputs)


RELU_GOLDEN = '''
import numpy as np

def relu_grad_v2_golden(gradients, mask, **kwargs):
    bits = np.unpackbits(mask.reshape(-1), bitorder="{order}")[: gradients.size].reshape(gradients.shape)
    return np.where(bits == 1, gradients, np.zeros((), gradients.dtype)){cast}

__golden__ = {{"kernel": {{"relu_grad_v2": "relu_grad_v2_golden"}}}}
'''


def _golden(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "golden.py"
    path.write_text(textwrap.dedent(text))
    return path


def test_golden_file_in_ttk_form_passes_every_st_case_and_soc(tmp_path: Path) -> None:
    spec, plan = _sample("relu_grad_v2")
    results = check_golden_file(_golden(tmp_path, RELU_GOLDEN.format(order="little", cast="")), spec, plan)
    st_rows = len(plan.st_csv.splitlines()) - 1  # every ST row (shapes, edge values, multi-core), every SoC
    assert st_rows > 6 * len(spec.tests.shapes)
    assert len(results) == (st_rows + len(plan.combinations)) * len(plan.socs)  # and an edge sample per combination
    assert [r.reason for r in _failing(results)] == []
    assert {r.sample for r in results} >= {"edge", "st:relu_grad_v2_float16_000"}
    assert {r.socs for r in results} == {("Ascend950",), ("Ascend350",)}


def test_golden_file_with_msb_first_masks_fails_per_case(tmp_path: Path) -> None:
    spec, plan = _sample("relu_grad_v2")
    results = check_golden_file(_golden(tmp_path, RELU_GOLDEN.format(order="big", cast="")), spec, plan)
    # where every gradient is NaN or -0.0 a swapped mask changes nothing the tolerance rule sees
    blind = ("_edge_nan", "_edge_neg_zero")
    assert results and all(not r.passed for r in results if not r.sample.endswith(blind))
    assert "st:relu_grad_v2_float16_000" in {r.sample for r in results}
    assert "mask=" in results[0].reason


def test_golden_file_with_wrong_dtype_or_a_crash_is_reported(tmp_path: Path) -> None:
    spec, plan = _sample("relu_grad_v2")
    cast = '.astype("float64")'
    results = check_golden_file(_golden(tmp_path, RELU_GOLDEN.format(order="little", cast=cast)), spec, plan)
    assert all(not r.passed and "returned float64" in r.reason for r in results)
    crash = RELU_GOLDEN.format(order="little", cast="")
    crash = crash.replace("**kwargs):", "**kwargs):\n    raise KeyError(1)")
    results = check_golden_file(_golden(tmp_path, crash), spec, plan)
    assert all("golden raised KeyError" in r.reason for r in results)


def test_gelu_golden_file_picks_its_variant_by_soc(tmp_path: Path, gelu: tuple[OpSpec, RenderPlan]) -> None:
    spec, plan = gelu
    variants = {v.name: v for v in plan.golden.variants}
    body = "".join(
        f"    if short_soc_version == {soc!r}:\n" + "".join(f"        {line}\n" for line in variant.lines)
        for variant in variants.values() for soc in variant.socs
    )
    text = (
        "import numpy as np\n\n"
        "def gelu_grad_golden(dy, x, y, short_soc_version='', **kwargs):\n"
        "    out_dtype = dy.dtype\n    cdt = np.float32\n    shape = np.broadcast_shapes(dy.shape, x.shape)\n"
        "    dy, x = dy.astype(np.float32), x.astype(np.float32)\n"
        f"{body}"
        "    return z.astype(out_dtype)\n\n"
        '__golden__ = {"kernel": {"gelu_grad": "gelu_grad_golden"}}\n'
    )
    results = check_golden_file(_golden(tmp_path, text), spec, plan)
    assert len(results) == (len(plan.st_csv.splitlines()) - 1 + len(plan.combinations)) * len(plan.socs)
    assert [r.reason for r in _failing(results)] == []


def test_golden_file_without_a_kernel_entry_is_a_user_error(tmp_path: Path) -> None:
    spec, plan = _sample("relu_grad_v2")
    with pytest.raises(OpgenError, match="names no function"):
        check_golden_file(_golden(tmp_path, "__golden__ = {'kernel': {}}\n"), spec, plan)


SAMPLES = Path(__file__).resolve().parents[2] / "generated_samples"


@pytest.mark.parametrize("name", sorted(p.stem for p in SCHEMAS.glob("*.yaml")))
def test_generated_sample_goldens_pass_and_match_the_emulator_bit_for_bit(name: str) -> None:
    spec, plan = _sample(name)
    golden_py = SAMPLES / plan.rel_dir / "tests" / "assets" / "golden.py"
    if not golden_py.is_file():
        pytest.skip(f"{golden_py} not generated")
    results = check_golden_file(golden_py, spec, plan)
    assert results and [r.reason for r in _failing(results)] == []
    kernel = load_golden(golden_py, plan)
    rng = np.random.default_rng(3)
    # a split op's other inputs are halves of the split one along its axis
    shapes = plan.split.input_shapes(plan.inputs, (4, 16), -1) if plan.split else [(64,)] * len(plan.inputs)
    for combo in plan.combinations:
        inputs = [pack_mask(rng.integers(0, 2, 64)) if t.is_mask else
                  rng.uniform(0 if t.dtypes[combo.index].name.startswith("u") else -100, 100, shape)
                  .astype(numpy_dtype(t.dtypes[combo.index].name))
                  for t, shape in zip(plan.inputs, shapes, strict=True)]
        for variant in plan.golden.variants:
            picked = {plan.choice.attr.name: variant.value} if plan.choice else {}  # a choice attr picks it
            for soc in variant.socs:
                mine = emulate(plan, variant, combo, inputs, picked)[0]
                theirs = np.asarray(kernel(*inputs, short_soc_version=soc, **picked))
                assert theirs.dtype == mine.dtype
                assert np.array_equal(theirs.view(np.uint8), mine.view(np.uint8)), (combo.names, soc)


def test_missing_torch_says_which_extra_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """After a plain `pip install opgen` the numerics row names the extra, not an import error."""
    import json
    import sys

    from opgen.check import numerics_tier

    op_dir = copy_sample(tmp_path, GELU)
    monkeypatch.setitem(sys.modules, "torch", None)  # as if not installed: `import torch` raises
    numerics_tier.main([str(op_dir), str(spec_copy(op_dir))])
    [row] = json.loads(capsys.readouterr().out)
    assert row["status"] == "fail"
    assert row["reason"] == ("the independent reference needs PyTorch, which is not installed: "
                             "pip install 'opgen[check]'")


def test_a_golden_that_takes_the_first_input_shape_fails_the_rows_where_that_input_broadcasts(
        tmp_path: Path) -> None:
    spec, plan = _sample("softplus_grad")
    source = (SAMPLES / plan.rel_dir / "tests" / "assets" / "golden.py").read_text()
    fault = source.replace("shape = np.broadcast_shapes(gradients.shape, features.shape)", "shape = gradients.shape")
    assert fault != source
    results = check_golden_file(_golden(tmp_path, fault), spec, plan)
    failing = {r.sample for r in _failing(results)}
    assert failing and all("_brc_gradients" in s for s in failing)
    assert {r.sample for r in results if "_brc_gradients" in r.sample} == failing
