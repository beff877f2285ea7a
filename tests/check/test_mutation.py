"""Mutation test of the numerics tier: every spec in schemas/, every recipe step, three kinds of mutant (a
constant changed, a sign flipped, the op swapped for a kin). Each must fail the numerics against the spec's
independent reference, except the equivalent mutants listed below with the reason they cannot fail."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from opgen.check.numerics import check_numerics
from opgen.plan import build_plan
from opgen.spec.load import load_spec
from opgen.spec.models import ComputeSpec, OpSpec
from opgen.spec.recipe import OPS, AttrRef, Step

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
SPECS = sorted(p.stem for p in SCHEMAS.glob("*.yaml"))
SWAPS = {
    "add": "sub", "sub": "add", "mul": "add", "div": "mul", "max": "min", "min": "max", "adds": "muls",
    "muls": "adds", "maxs": "mins", "mins": "maxs", "exp": "abs", "log": "sqrt", "abs": "relu", "sqrt": "abs",
    "reciprocal": "sqrt", "relu": "abs", "neg": "abs", "sign": "neg", "tanh": "sigmoid", "sigmoid": "tanh",
    "erf": "tanh", "log1p": "log", "softplus": "relu", "gt": "lt", "lt": "gt", "ge": "le", "le": "ge",
    "eq": "ne", "ne": "eq",
}
# (spec, variant, step index, kind) -> why the mutant computes the same numbers as the original
_CLAMP = ("GeluGrad and GeluGradV2's tanh form clamp x to +-1e4 only to keep exp and x**2 finite; from there to "
          "+-1.5e4 the float32 derivative is exactly 0 (x < 0) or 1 (x > 0) either way")
# GeluGrad 910B's upper clamp at 10 is not among them: at 15 its exp(2u) overflows and e / (1 + e) is NaN
EQUIVALENT: dict[tuple[str, str, int, str], str] = {
    (name, variant, step, "constant"): _CLAMP
    for name, variant, steps in (("gelu_grad", "ascend910b", (0,)), ("gelu_grad", "ascend310b", (0, 1)),
                                 ("gelu_grad_v2", "tanh", (0, 1)))
    for step in steps
}


def _mutants(steps: tuple[Step, ...], defaults: Mapping[str, float]
             ) -> Iterator[tuple[int, str, tuple[Step, ...]]]:
    """An attr a step reads counts as its default: the constant mutant puts that constant in its place (a
    kernel that ignores the attr), which only the checked non-default setting tells apart. The axis a split or a
    join names is no number to mutate: a spec naming it by a constant is refused (spec/axis.py)."""
    for j, step in enumerate(steps):
        scalars = [k for k, a in enumerate(step.args) if not isinstance(a, str) and not OPS[step.op].along]
        for kind in ("constant", "sign", "op"):
            args = list(step.args)
            if kind == "op":
                if step.op not in SWAPS:
                    continue
                changed = Step(step.out, SWAPS[step.op], step.args)
            elif not scalars:
                continue
            else:
                k = scalars[0]
                arg = args[k]
                value = defaults[arg.name] if isinstance(arg, AttrRef) else float(arg)
                if kind == "sign" and value == 0:
                    continue
                args[k] = -value if kind == "sign" else (
                    value if isinstance(arg, AttrRef) else value * 1.5 if value else 0.5)
                changed = Step(step.out, step.op, tuple(args))
            yield j, kind, (*steps[:j], changed, *steps[j + 1:])


def _with(spec: OpSpec, variant: str, steps: tuple[Step, ...]) -> OpSpec:
    variants = {**spec.compute.variants, variant: steps}
    return spec.model_copy(update={"compute": ComputeSpec(dtype=spec.compute.dtype, variants=variants,
                                                          absent=spec.compute.absent)})


def _with_absent(spec: OpSpec, name: str, steps: tuple[Step, ...]) -> OpSpec:
    absent = {**spec.compute.absent, name: steps}
    return spec.model_copy(update={"compute": ComputeSpec(dtype=spec.compute.dtype,
                                                          variants=spec.compute.variants, absent=absent)})


@pytest.mark.parametrize("name", SPECS)
def test_every_mutant_of_every_step_fails_the_numerics(name: str) -> None:
    spec = load_spec(SCHEMAS / f"{name}.yaml").spec
    assert all(r.passed for r in check_numerics(spec, build_plan(spec, name)))  # the original passes
    survivors = []
    defaults = {a.name: float(a.default) for a in spec.attrs if a.type in ("float", "int")}
    for variant, steps in spec.compute.variants.items():
        for j, kind, mutated in _mutants(steps, defaults):
            changed = _with(spec, variant, mutated)
            results = check_numerics(changed, build_plan(changed, name))
            caught = any(not r.passed for r in results if r.variant == variant)
            key = (name, variant, j, kind)
            if caught and key in EQUIVALENT:
                survivors.append(f"{key}: listed as equivalent but caught; remove it from EQUIVALENT")
            elif not caught and key not in EQUIVALENT:
                survivors.append(f"{key}: `{mutated[j]}` for `{steps[j]}` passes the numerics")
    for input_name, steps in spec.compute.absent.items():  # the steps giving an absent input its value
        for j, kind, mutated in _mutants(steps, defaults):
            changed = _with_absent(spec, input_name, mutated)
            results = check_numerics(changed, build_plan(changed, name))
            if not any(not r.passed for r in results if r.variant.endswith(f"_without_{input_name}")):
                survivors.append(f"{(name, 'absent', input_name, j, kind)}: `{mutated[j]}` for `{steps[j]}` "
                                 "passes the numerics of the absent path")
    assert survivors == []
