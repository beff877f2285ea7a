"""Reference formulas: parsed against a whitelist, checked against the spec, differentiated by autograd."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import GELU, RELU, SCHEMAS, copy_spec

from opgen.check.references import build_reference
from opgen.plan import build_plan
from opgen.spec.formula import evaluate, parse_formula
from opgen.spec.load import load_spec
from opgen.spec.reference import resolve_reference

NUMPY_LIB = {"const": float, "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
             "pow": np.power, "neg": np.negative, "tanh": np.tanh, "sqrt": np.sqrt}


def test_caret_is_a_power_with_the_power_s_precedence() -> None:
    x = np.array([-2.0, 0.5, 3.0])
    got = evaluate(parse_formula("x + 0.044715 * x^3"), {"x": x}, NUMPY_LIB)
    assert np.array_equal(got, x + 0.044715 * x**3)
    assert parse_formula("0.5 * x * (1 + tanh(sqrt(2 / pi) * x))").names == ("x",)


@pytest.mark.parametrize(("text", "message"), [
    ("__import__('os').system('true')", "is not allowed in a formula"),
    ("__import__('os')", "unknown function '__import__'"),
    ("x.real", "'x.real' is not allowed"),
    ("(lambda: 1)()", "not allowed"),
    ("x[0]", "'x[0]' is not allowed"),
    ("exp(x, base=2)", "exp() takes positional arguments only"),
    ("open(x)", "unknown function 'open'"),
    ("exp(x, x)", "exp() takes 1 argument(s), got 2"),
    ("x if x > 0 else 0", "not allowed"),
    ("0 < x < 1", "not allowed"),
    ("True * x", "not allowed"),
    ("'a'", "not allowed"),
    ("x +", "does not parse"),
    ("", "non-empty expression"),
    ("x" + " + x" * 1000, "longer than"),
])
def test_formulas_outside_the_whitelist_are_refused(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_formula(text)


def _edit_reference(tmp_path: Path, source: Path, old: str, new: str) -> Path:
    return copy_spec(source, tmp_path, lambda text: text.replace(old, new, 1))


@pytest.mark.parametrize(("old", "new", "message"), [
    ("    wrt: x\n", "    wrt: q\n", "golden.reference.wrt: 'q' is not an input"),
    ("    grad: dy\n", "", "golden.reference.grad: forward needs grad"),
    ("forward: 0.5 * x", "forward: 0.5 * dy * x", "cannot read the incoming gradient 'dy'"),
    ("forward: 0.5 * x", "forward: 0.5 * alpha * x", "'alpha' is neither an input nor an attr"),
    ("forward: 0.5 * x", "forward: 0.5 * open(x)", "unknown function 'open'"),
    ("    grad: dy\n", "    grad: dy\n    direct: dy\n", "give forward (with wrt and grad) or direct, not both"),
])
def test_a_reference_that_does_not_fit_the_op_is_a_spec_error(run, tmp_path: Path, old: str, new: str,
                                                              message: str) -> None:
    spec = _edit_reference(tmp_path, GELU, old, new)
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2 and message in result.err, result.err
    assert f"{spec}:" in result.err and not (tmp_path / "out").exists()


def test_a_formula_error_is_one_line_naming_the_field(run, tmp_path: Path) -> None:
    """Not followed by the other union member's complaint, nor naming opgen's model classes."""
    spec = _edit_reference(tmp_path, GELU, "forward: 0.5 * x", "forward: (0.5 * x")
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2
    problems = [line for line in result.err.splitlines() if f"{spec}:" in line]
    assert len(problems) == 1 and "golden.reference.forward: formula" in problems[0], result.err
    assert "Input should be" not in result.err and "ReferenceSpec" not in result.err


def test_retired_reference_names_are_read_as_their_formulas_and_said_so(tmp_path: Path) -> None:
    old = load_spec(_edit_reference(tmp_path, GELU, "  reference:\n    forward: 0.5 * x * (1 + tanh(sqrt(2 / pi) * "
                                    "(x + 0.044715 * x^3)))\n    wrt: x\n    grad: dy\n",
                                    "  reference: gelu_tanh_backward\n")).spec
    resolved = resolve_reference(old)
    assert resolved is not None and (resolved.wrt, resolved.grad) == ("x", "dy")
    assert "retired name" in resolved.migrated and "forward:" in resolved.migrated
    new = load_spec(GELU).spec
    inputs = [np.linspace(-4, 4, 64, dtype=np.float32)] * 3
    mine, theirs = (build_reference(s, build_plan(s, "g.yaml")) for s in (old, new))
    assert mine is not None and theirs is not None
    assert np.array_equal(mine.fn(inputs)[0][0], theirs.fn(inputs)[0][0])


def test_gelu_reference_agrees_with_torch_s_own_gelu_backward() -> None:
    spec = load_spec(GELU).spec
    reference = build_reference(spec, build_plan(spec, "g.yaml"))
    assert reference is not None
    x = np.linspace(-8, 8, 4001)
    dy = np.cos(x) * 3
    (got,), bound, undefined = reference.fn([dy, x, x])
    xt = torch.tensor(x, requires_grad=True)
    torch.nn.functional.gelu(xt, approximate="tanh").backward(torch.tensor(dy))
    assert xt.grad is not None
    # torch's builtin loses 1 + tanh(u) to rounding below x = -7 (it says 0 where the derivative is 1e-14)
    assert np.allclose(got, xt.grad.numpy(), rtol=1e-12, atol=1e-13)
    assert not undefined.any() and (bound < 1e-13).all()


def _reference_of(name: str, *inputs: list[float]) -> tuple[np.ndarray, np.ndarray]:
    spec = load_spec(SCHEMAS / f"{name}.yaml").spec
    reference = build_reference(spec, build_plan(spec, f"{name}.yaml"))
    assert reference is not None
    (out,), _, undefined = reference.fn([np.array(v) for v in inputs])
    return out, undefined


def test_silu_reference_is_the_closed_form_derivative() -> None:
    x = np.linspace(-6, 6, 101)
    dy = np.full_like(x, 0.75)
    s = 1 / (1 + np.exp(-x))
    got, _ = _reference_of("silu_grad", dy.tolist(), x.tolist())
    assert np.allclose(got, dy * s * (1 + x * (1 - s)), rtol=1e-14)


def test_nan_follows_torch_backward() -> None:
    nan, inf = math.nan, math.inf
    # SiLU: NaN x or NaN dy gives NaN
    got, _ = _reference_of("silu_grad", [nan, 1.0], [1.0, nan])
    assert np.isnan(got).all()
    # HardShrink: in the dead zone the gradient is 0 even for a NaN dy (torch's where backward; an infinite
    # dy there is 0 * inf, undefined); a NaN feature is outside the dead zone (NaN <= lambd is false), so its
    # gradient passes, as upstream's kernel and torch's hardshrink_backward give
    got, undefined = _reference_of("hard_shrink_grad", [nan, inf, 2.0, nan], [0.1, 0.1, nan, 3.0])
    assert got[[0, 2]].tolist() == [0.0, 2.0] and math.isnan(got[3])
    assert undefined.tolist() == [False, True, False, False]


def test_zero_times_infinite_grad_and_rounding_close_comparisons_are_undefined() -> None:
    # LeakyReLU with slope 0: for x < 0 the derivative is 0, times dy = inf no value is right
    _, undefined = _reference_of("leaky_relu_grad", [math.inf, math.inf, 1.0], [-1.0, 1.0, -1.0])
    assert undefined.tolist() == [True, False, False]
    # HardSigmoid: alpha * 3 + beta is 1 - 3e-8, which float32 may round onto the kink; x = 0 is no kink
    _, undefined = _reference_of("hard_sigmoid_grad", [1.0, 1.0, 1.0], [3.0, 0.0, 2.9])
    assert undefined.tolist() == [True, False, False]


def test_a_direct_reference_is_the_formula_itself() -> None:
    spec = load_spec(RELU).spec
    reference = build_reference(spec, build_plan(spec, "r.yaml"))
    assert reference is not None
    gradients = np.arange(1, 17, dtype=np.float32)
    (got,), bound, undefined = reference.fn([gradients, np.array([0b0000_0101, 0b1000_0000], np.uint8)])
    assert got.tolist() == [1, 0, 3] + [0] * 12 + [16]
    assert not bound.any() and not undefined.any()
