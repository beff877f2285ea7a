"""Ops along an axis (GLU, SwiGLU, softmax grads): what a spec can say, what it is refused for, and its reference.

The sample specs schemas/glu_grad.yaml and swi_glu_grad.yaml write GLUGrad and SwiGluGrad as upstream registers
them; their recipes and references agree with torch and with upstream's own formulas. A recipe that reduces along
an axis is refused, naming why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from conftest import ROOT, copy_spec, snapshot
from ruamel.yaml import YAML

from opgen.check.axis_reference import axis_reference
from opgen.check.numerics import check_golden_file, check_numerics
from opgen.plan import build_plan
from opgen.render import render_trees
from opgen.spec.attrs import attr_types
from opgen.spec.axis import NO_REDUCE
from opgen.spec.models import OpSpec
from opgen.spec.recipe import AttrRef, Step

GLU = ROOT / "schemas" / "glu_grad.yaml"
SWIGLU = ROOT / "schemas" / "swi_glu_grad.yaml"


def _spec(path: Path, edit: Any = None) -> OpSpec:
    text = path.read_text(encoding="utf-8")
    data = YAML(typ="safe").load(edit(text) if edit else text)
    return OpSpec.model_validate(data, context={"attrs": attr_types(data)})


def _problems(run: Any, tmp_path: Path, source: Path, edit: Any = None) -> list[str]:
    spec = copy_spec(source, tmp_path, edit)
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2, result
    assert "Traceback" not in result.err
    assert snapshot(tmp_path / "out") == {}
    lines = result.err.strip().splitlines()
    return lines[1:] if "problems in this spec" in lines[0] else lines


@pytest.mark.parametrize("draft", [GLU, SWIGLU], ids=["glu_grad", "swi_glu_grad"])
def test_gen_writes_the_tree_of_an_op_split_along_an_axis(run: Any, tmp_path: Path, draft: Path) -> None:
    result = run("gen", copy_spec(draft, tmp_path), "-o", tmp_path / "out")
    assert result.code == 0, result
    op_dir = next((tmp_path / "out").glob("*/*"))
    assert (op_dir / "op_kernel" / "arch35" / f"{op_dir.name}.h").is_file()
    assert (op_dir / "op_host" / f"{op_dir.name}_tiling.cpp").is_file()


def test_a_recipe_reducing_along_the_axis_is_refused(run: Any, tmp_path: Path) -> None:
    lines = _problems(run, tmp_path, GLU, lambda t: t.replace("      - db = mul(grad_out, t3)",
                                                             "      - r = reduce_sum(t3, dim)\n"
                                                             "      - db = mul(grad_out, r)"))
    assert any(line.endswith(f"compute.variants.default: {NO_REDUCE}") for line in lines), lines


@pytest.mark.parametrize(("edit", "expected"), [
    (lambda t: t.replace("da = mul(grad_out, s)", "da = mul(self, s)"),
     "default[3]: da = mul(self, s): 'self' is split along the axis; read its halves"),
    (lambda t: t.replace("- db = mul(grad_out, t3)", "- db = mul(grad_out, t3)\n      - w = adds(self, 1.0)"),
     "'self' is split along the axis"),
    (lambda t: t.replace("out = join_halves(da, db, dim)", "out = mul(da, db)"),
     "output 'out' is half-shaped; the gradient of a split input is whole: write it with join_halves"),
    (lambda t: t.replace("b = second_half(self, dim)", "b = second_half(a, dim)"),
     "split an input, not a computed value"),
    (lambda t: t.replace("input: self\n", "input: grad_out\n"),
     "infershape: the outputs take the split input's shape: write `rule: same_as_input` with `input: self`"),
    (lambda t: t.replace("- [4, 6]", "- [4, 5]"), "tests.shapes[0]: length 5 along dim=-1 is odd"),
    (lambda t: t.replace("{shape: [6, 5], axis: 0}", "{shape: [6, 5], axis: 2}"),
     "tests.axis_cases[1]: dim=2 is out of range for rank 2; give a shape of rank 3 or more"),
    (lambda t: t.replace("a = first_half(self, dim)", "a = first_half(self, 1.0)"),
     "the axis is named by an int attr, not 1.0 (int attrs: dim)"),
    (lambda t: t.replace("forward: first_half(self, dim)", "forward: first_half(self, 1)"),
     "'1' cannot name an axis: write the int attr holding it"),
    (lambda t: t.replace("type: int\n    default: -1", "type: float\n    default: -1.0"),
     "the axis is named by an int attr, not 'dim' (int attrs: none)"),
    # what the arch35_split kernel does not take yet
    (lambda t: t.replace("dtypes: [float16, bfloat16, float32]", "dtypes: [float32, bfloat16, float32]", 1),
     "dtype combination 0 mixes dtypes"),
    (lambda t: t.replace("      - da = mul(grad_out, s)", "      - dz = mul(grad_out, s)\n      - da = muls(dz, dim)"),
     "an op split along an axis reads no attr but its axis yet"),
    (lambda t: t.replace("    doc: The gradient with respect to x (x's shape).\n",
                         "    doc: The gradient with respect to x (x's shape).\n  - name: out2\n"
                         "    dtypes: [float16, bfloat16, float32]\n")
     .replace("      - out = join_halves(da, db, dim)", "      - out = join_halves(da, db, dim)\n"
              "      - out2 = join_halves(db, da, dim)"),
     "an op split along an axis has one output"),
])
def test_a_glu_spec_that_does_not_hold_together_is_refused_naming_the_field(
        run: Any, tmp_path: Path, edit: Any, expected: str) -> None:
    lines = _problems(run, tmp_path, GLU, edit)
    assert any(expected in line for line in lines), lines


def test_the_step_parser_reads_the_axis_as_an_int_attr() -> None:
    spec = _spec(GLU)
    join = spec.compute.variants["default"][-1]
    assert join == Step("out", "join_halves", ("da", "db", AttrRef("dim", "int")))
    assert join.tensor_args == ("da", "db")


def test_an_elementwise_spec_cannot_take_axis_cases(run: Any, tmp_path: Path) -> None:
    silu = Path(__file__).parents[1] / "schemas" / "silu_grad.yaml"
    lines = _problems(run, tmp_path, silu, lambda t: t.replace(
        "  value_range: [-5.0, 5.0]", "  axis_cases:\n    - {shape: [4, 6], axis: 0}\n  value_range: [-5.0, 5.0]"))
    assert lines == [lines[0]] and "tests.axis_cases: only an op along an axis has axis cases" in lines[0]


def _recipe(spec: OpSpec, inputs: dict[str, np.ndarray], dim: int) -> np.ndarray:
    """The draft's recipe in float64, each step as the recipe language documents it (test-side spelling)."""
    ops = {"mul": np.multiply, "muls": np.multiply, "adds": np.add, "sigmoid": lambda a: 1 / (1 + np.exp(-a)),
           "first_half": lambda a, _: np.split(a, 2, axis=dim)[0],
           "second_half": lambda a, _: np.split(a, 2, axis=dim)[1],
           "join_halves": lambda a, b, _: np.concatenate([a, b], axis=dim)}
    values = dict(inputs)
    for step in spec.compute.variants["default"]:
        values[step.out] = ops[step.op](*(values[a] if isinstance(a, str) else a for a in step.args))
    return values[spec.outputs[0].name]


CASES = [((4, 6), -1), ((8, 2, 6), 1), ((6, 4), 0), ((2, 3, 2, 4), 2)]


@pytest.mark.parametrize(("shape", "dim"), CASES)
def test_glu_reference_is_torch_glu_backward_and_the_recipe_agrees(shape: tuple[int, ...], dim: int) -> None:
    spec = _spec(GLU)
    reference = axis_reference(spec)
    assert reference is not None and reference.reads == (0, 1)
    rng = np.random.default_rng(len(shape))
    x = rng.uniform(-5, 5, shape)
    half = list(shape)
    half[dim] //= 2
    grad = rng.uniform(-2, 2, half)
    (got,), error, undefined = reference.fn([grad, x], {"dim": dim})
    leaf = torch.tensor(x, requires_grad=True)
    torch.nn.functional.glu(leaf, dim).backward(torch.tensor(grad))
    assert got.shape == shape and not undefined.any()
    np.testing.assert_allclose(got, leaf.grad.numpy(), rtol=1e-12, atol=1e-15)
    assert (error < 1e-13 * (1 + np.abs(got))).all()
    np.testing.assert_allclose(_recipe(spec, {"grad_out": grad, "self": x}, dim), got, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(("shape", "dim"), CASES)
def test_swiglu_reference_is_upstream_formula_and_the_recipe_agrees(shape: tuple[int, ...], dim: int) -> None:
    spec = _spec(SWIGLU)
    reference = axis_reference(spec)
    assert reference is not None
    rng = np.random.default_rng(len(shape) + 10)
    x = rng.uniform(-5, 5, shape)
    half = list(shape)
    half[dim] //= 2
    grad = rng.uniform(-2, 2, half)
    (got,), _, _ = reference.fn([grad, x], {"dim": dim})
    # upstream's kernel math (swi_glu_grad arch35 base): sig = sigmoid(a), grad_a = g*b*sig*(1 + a*(1 - sig)),
    # grad_b = g*a*sig
    a, b = np.split(x, 2, axis=dim)
    sig = 1 / (1 + np.exp(-a))
    want = np.concatenate([grad * b * sig * (1 + a * (1 - sig)), grad * a * sig], axis=dim)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(_recipe(spec, {"y_grad": grad, "x": x}, dim), want, rtol=1e-12, atol=1e-14)


def test_a_reduce_along_the_axis_is_its_reference_softmax_backward() -> None:
    """A softmax-family formula reads a row through sum(., axis), kept length 1 and broadcast back."""
    spec = _spec(GLU, lambda t: t.replace(
        "forward: first_half(self, dim) * sigmoid(second_half(self, dim))\n    wrt: self\n    grad: grad_out",
        "direct: (grad_out - sum(grad_out * self, dim)) * self"))
    reference = axis_reference(spec)
    assert reference is not None
    rng = np.random.default_rng(3)
    for shape, dim in ((5, 7), -1), ((4, 3, 6), 1), ((6, 2), 0):
        softmax = torch.softmax(torch.tensor(rng.normal(size=shape)), dim)
        grad = torch.tensor(rng.normal(size=shape))
        (got,), _, _ = reference.fn([grad.numpy(), softmax.numpy()], {"dim": dim})
        want = torch.ops.aten._softmax_backward_data(grad, softmax, dim, torch.float64)
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-12, atol=1e-15)


def _checked(spec: OpSpec) -> list[Any]:
    return check_numerics(spec, build_plan(spec, str(GLU)))


@pytest.mark.parametrize("draft", [GLU, SWIGLU], ids=["glu_grad", "swi_glu_grad"])
def test_the_numerics_tier_runs_each_recipe_against_its_reference(draft: Path) -> None:
    """Every dtype, random and edge samples, the spec's shapes at the default dim and its axis cases."""
    results = _checked(_spec(draft))
    assert results and all(r.passed for r in results), [r.reason for r in results if not r.passed]
    samples = {r.sample for r in results}
    assert {"random 4x6 dim=-1", "edge 4x6 dim=-1", "random 8x2x3 dim=1", "edge 6x5 dim=0"} <= samples
    assert len(results) == 3 * len(samples)


def test_the_numerics_tier_catches_a_recipe_that_computes_the_wrong_thing() -> None:
    results = _checked(_spec(GLU, lambda t: t.replace("t3 = mul(a, t2)", "t3 = mul(b, t2)")))
    assert results and not any(r.passed for r in results if r.sample.startswith("random"))


def test_elements_float32_cannot_resolve_are_not_compared() -> None:
    """GLU's db = g * a * sigmoid(b) * (1 - sigmoid(b)): at b = 20 float32 rounds sigmoid(b) to 1, so an infinite
    a gives NaN in any float32 kernel (upstream's, torch's) where float64 gives inf; at b = 1 every value is held."""
    reference = axis_reference(_spec(GLU))
    assert reference is not None
    x = np.array([[np.inf, 1.0, 20.0, 1.0]])
    (got,), _, undefined = reference.fn([np.ones((1, 2)), x], {"dim": -1})
    assert np.isinf(got[0, 2]) and undefined.tolist() == [[False, False, True, False]]


REGLU = [("      - s = sigmoid(b)\n      - da = mul(grad_out, s)\n      - t0 = muls(s, -1.0)\n"
          "      - t1 = adds(t0, 1.0)\n      - t2 = mul(s, t1)\n      - t3 = mul(a, t2)\n"
          "      - db = mul(grad_out, t3)\n",
          "      - r = relu(b)\n      - da = mul(grad_out, r)\n      - z = fill(0.0)\n      - m = le(b, 0.0)\n"
          "      - ga = mul(grad_out, a)\n      - db = select(m, z, ga)\n"),
         ("sigmoid(second_half(self, dim))", "relu(second_half(self, dim))")]


def test_a_glu_variant_with_a_constant_and_a_select_computes_its_reference(tmp_path: Path) -> None:
    """ReGLU (a * relu(b)), as docs/recipe.md makes it with `opgen new --like`: a fill takes the shape of what reads
    it, the select keeps torch's relu gradient at NaN (b <= 0 is false there, so the gradient passes)."""
    def edit(text: str) -> str:
        for old, new in REGLU:
            assert old in text
            text = text.replace(old, new)
        return text

    spec = _spec(GLU, edit)
    plan = build_plan(spec, str(GLU))
    results = check_numerics(spec, plan)
    assert results and all(r.passed for r in results), [r.reason for r in results if not r.passed]
    (files,) = render_trees([plan])
    golden = tmp_path / "golden.py"
    golden.write_bytes(files["tests/assets/golden.py"])
    from_file = check_golden_file(golden, spec, plan)
    assert from_file and all(r.passed for r in from_file), [r.reason for r in from_file if not r.passed]
