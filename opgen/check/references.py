"""The independent reference of an op, made from the spec's formula alone (never from the recipe or plan).

A forward formula is differentiated by PyTorch autograd in float64: the reference is grad times the
derivative of forward with respect to wrt. A direct formula is evaluated as it stands (a mask select).
Besides the outputs, the reference bounds its own float64 error, to first order: every inexact step of the
formula adds a rounding of its value, and the derivative of the result by that rounding says what it does
to the result (the same autograd, one level deeper). The bound matters only where float64 itself cannot
resolve the value, e.g. 1 + tanh(u) for u near -20 times a gradient of 3.4e38.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..plan import RenderPlan
from ..spec.formula import evaluate
from ..spec.models import OpSpec
from ..spec.reference import ResolvedReference, resolve_reference
from .emulator import unpack_mask

Array = npt.NDArray[Any]
UNIT_ROUNDOFF = 2.0**-53


@dataclass(frozen=True)
class Reference:
    """`fn(inputs)` (all op inputs, def order, masks packed) returns one array per output (float64 on the
    broadcast shape) and the bound of its own absolute error per element."""

    reads: tuple[int, ...]  # the inputs the formula reads: a NaN in them must come out as NaN
    fn: Callable[[Sequence[Array]], tuple[tuple[Array, ...], Array]]
    resolved: ResolvedReference


def build_reference(spec: OpSpec, plan: RenderPlan) -> Reference | None:
    """The spec's reference; None when it has none."""
    resolved = resolve_reference(spec)
    if resolved is None:
        return None
    names = [t.name for t in plan.inputs]
    read = set(resolved.formula.names) | ({resolved.grad} if resolved.grad else set())
    attrs = {a.name: float(a.default) for a in spec.attrs}

    def fn(inputs: Sequence[Array]) -> tuple[tuple[Array, ...], Array]:
        return _evaluate(resolved, plan, inputs, attrs)

    return Reference(tuple(i for i, n in enumerate(names) if n in read), fn, resolved)


def _evaluate(resolved: ResolvedReference, plan: RenderPlan, inputs: Sequence[Array],
              attrs: dict[str, float]) -> tuple[tuple[Array, ...], Array]:
    import torch  # slow to import; only the numerics tier needs it

    plain = [np.shape(a) for a, t in zip(inputs, plan.inputs, strict=True) if not t.is_mask]
    shape = tuple(np.broadcast_shapes(*plain)) if plain else (np.size(inputs[0]) * 8,)
    env: dict[str, Any] = {name: torch.tensor(value, dtype=torch.float64) for name, value in attrs.items()}
    for array, tensor in zip(inputs, plan.inputs, strict=True):
        if tensor.is_mask:
            env[tensor.name] = torch.from_numpy(unpack_mask(np.asarray(array), shape).copy())
        else:
            values = np.ascontiguousarray(np.broadcast_to(np.asarray(array).astype(np.float64), shape))
            env[tensor.name] = torch.tensor(values, dtype=torch.float64, requires_grad=tensor.name == resolved.wrt)
    roundings: list[tuple[Any, Any]] = []

    def rounded(value: Any) -> Any:
        delta = torch.zeros(shape, dtype=torch.float64, requires_grad=True)
        roundings.append((delta, value.detach()))
        return value + delta

    result = evaluate(resolved.formula, env, _torch_lib(torch), rounded) + torch.zeros(shape, dtype=torch.float64)
    if resolved.wrt is not None and resolved.grad is not None:
        # elementwise, so the derivative is the gradient for ones; times grad afterwards, as the math says:
        # autograd's own grad * partial, path by path, would make an infinite grad times a zero path NaN
        (slope,) = torch.autograd.grad(result, env[resolved.wrt], grad_outputs=torch.ones(shape, dtype=torch.float64),
                                       create_graph=True, allow_unused=True)
        derivative = slope if slope is not None else torch.zeros(shape, dtype=torch.float64)
        result = rounded(derivative * env[resolved.grad].detach())
    bound = torch.zeros(shape, dtype=torch.float64)
    if result.requires_grad and roundings:
        slopes = torch.autograd.grad(result.sum(), [d for d, _ in roundings], allow_unused=True)
        for slope, (_, value) in zip(slopes, roundings, strict=True):
            if slope is not None:
                bound = bound + torch.nan_to_num(slope.detach().abs() * value.abs(), nan=0.0)
    out = result.detach()
    # each step's rounding (first order) and as many again for the backward pass's own steps
    error = UNIT_ROUNDOFF * (2.0 * bound + (len(roundings) + 1) * torch.nan_to_num(out.abs(), nan=0.0))
    return (out.numpy().copy(),), error.numpy().copy()


def _torch_lib(torch: Any) -> dict[str, Callable[..., Any]]:
    def where(cond: Any, a: Any, b: Any) -> Any:
        return torch.where(cond if cond.dtype == torch.bool else cond != 0, a, b)

    return {
        "const": lambda v: torch.tensor(v, dtype=torch.float64),
        "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "pow": torch.pow,
        "gt": torch.gt, "ge": torch.ge, "lt": torch.lt, "le": torch.le, "eq": torch.eq, "ne": torch.ne,
        "exp": torch.exp, "log": torch.log, "log1p": torch.log1p, "sqrt": torch.sqrt, "tanh": torch.tanh,
        "sigmoid": torch.sigmoid, "erf": torch.erf, "abs": torch.abs, "sign": torch.sign,
        "softplus": lambda a: torch.logaddexp(a, torch.zeros_like(a)), "relu": torch.relu, "neg": torch.neg,
        "min": torch.minimum, "max": torch.maximum, "where": where,
    }
