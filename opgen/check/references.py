"""The independent reference of an op, made from the spec's formula alone (never from the recipe or plan).

A forward formula is differentiated by PyTorch autograd in float64: the reference is grad times the
derivative of forward with respect to wrt. A direct formula is evaluated as it stands (a mask select).
A NaN incoming gradient where the derivative is 0 gives 0 (torch's backwards, a select) or, with the spec's
`nan: passthrough`, NaN (a kernel that multiplies, mask * grad).
Besides the outputs, the reference bounds its own float64 error, to first order: every inexact step of the
formula adds a rounding of its value, and the derivative of the result by that rounding says what it does
to the result (the same autograd, one level deeper). The bound matters only where float64 itself cannot
resolve the value, e.g. 1 + tanh(u) for u near -20 times a gradient of 3.4e38.

It also marks the elements where no value is right, so they are counted undefined rather than compared:
- an infinite incoming gradient times a derivative that is 0 in the float32 compute dtype (below its
  smallest normal): 0 * inf;
- a comparison of the formula decided by less than float32's rounding (alpha * x + beta against 1 at
  x = 3 for alpha = 0.16666666): the kernel's float32 may land on either side. Exact ties (x == 0 against
  0) are compared: `>` against `>=` must show.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..plan import RenderPlan
from ..plan.registry.attrs import AttrValue, kernel_value
from ..spec.formula import evaluate
from ..spec.models import OpSpec
from ..spec.reference import ResolvedReference, resolve_reference
from .emulator import saturated, unpack_mask

Array = npt.NDArray[Any]
UNIT_ROUNDOFF = 2.0**-53
COMPUTE_TINY = 2.0**-126  # float32's smallest normal: below it a kernel's derivative may flush to 0
COMPARISON_BAND = 2.0**-22  # relative: four float32 roundings


@dataclass(frozen=True)
class Reference:
    """`fn(inputs, attrs)` (all op inputs, def order, masks packed; attrs: values, default the defaults) returns
    one array per output (float64 on the broadcast shape), the bound of its own absolute error per element and
    the undefined elements."""

    reads: tuple[int, ...]  # the inputs the formula reads: a NaN in them must come out as NaN
    fn: Callable[..., tuple[tuple[Array, ...], Array, npt.NDArray[np.bool_]]]  # (inputs, attrs=None)
    resolved: ResolvedReference


def build_reference(spec: OpSpec, plan: RenderPlan) -> Reference | None:
    """The spec's reference; None when it has none."""
    resolved = resolve_reference(spec)
    if resolved is None:
        return None
    if resolved.formula.axes:
        from .axis_reference import axis_reference

        return axis_reference(spec, resolved)
    names = [t.name for t in plan.inputs]
    read = set(resolved.formula.names) | ({resolved.grad} if resolved.grad else set())
    kinds = {a.name: a.type for a in spec.attrs}
    defaults = {a.name: a.default for a in spec.attrs}

    def fn(inputs: Sequence[Array], attrs: Mapping[str, AttrValue] | None = None
           ) -> tuple[tuple[Array, ...], Array, npt.NDArray[np.bool_]]:
        values = {**defaults, **(attrs or {})}
        given = {n: v if kinds[n] in ("string", "bool") else float(kernel_value(kinds[n], v))
                 for n, v in values.items()}
        return _evaluate(resolved, plan, inputs, given)

    return Reference(tuple(i for i, n in enumerate(names) if n in read), fn, resolved)


def _evaluate(resolved: ResolvedReference, plan: RenderPlan, inputs: Sequence[Array],
              attrs: dict[str, AttrValue]) -> tuple[tuple[Array, ...], Array, npt.NDArray[np.bool_]]:
    import torch  # slow to import; only the numerics tier needs it

    plain = [np.shape(a) for a, t in zip(inputs, plan.inputs, strict=True) if not t.is_mask]
    shape = tuple(np.broadcast_shapes(*plain)) if plain else (np.size(inputs[0]) * 8,)
    env = _environment(torch, resolved, plan, inputs, attrs, shape)
    trace = _Trace(torch, shape)
    result = evaluate(resolved.formula, env, trace.lib(), trace.rounded) + trace.zeros()
    undefined, values = trace.near, None
    if resolved.wrt is not None and resolved.grad is not None:
        if not result.requires_grad:
            result = trace.zeros()  # forward does not depend on wrt at all
        else:
            result, values, flushed = _gradient(torch, trace, result, env[resolved.wrt], env[resolved.grad].detach())
            undefined = undefined | flushed
    elif resolved.grad is not None:  # a direct formula, linear in grad: its value at grad = 1 is the derivative
        slope = evaluate(resolved.formula, {**env, resolved.grad: torch.ones(shape, dtype=torch.float64)},
                         torch_lib(torch))
        undefined = undefined | _flushed(slope.detach() + trace.zeros(), env[resolved.grad], result.detach())
    out = values if values is not None else result.detach()
    if resolved.nan == "passthrough" and resolved.grad is not None:  # the kernel multiplies: NaN * 0 is NaN
        out = torch.where(env[resolved.grad].detach().isnan(), torch.nan, out)
    error = UNIT_ROUNDOFF * (2.0 * trace.bound(result) + len(trace.roundings) * torch.nan_to_num(out.abs(), nan=0.0))
    exact = _exact_integers(torch, resolved, plan, inputs, attrs, shape)
    held = out.numpy().copy() if exact is None else _in_range(exact, out.numpy())
    return (held,), error.numpy().copy(), undefined.numpy().copy()


def _exact_integers(torch: Any, resolved: ResolvedReference, plan: RenderPlan, inputs: Sequence[Array],
                    attrs: dict[str, AttrValue], shape: tuple[int, ...]) -> Array | None:
    """A direct formula over int64 inputs evaluated in int64: float64 rounds them past 2**53, so a kernel off by
    hundreds there would match. None unless the formula stays integer throughout (no float constant or attr, no
    division, no transcendental). Its +, - and * wrap, which is exact modulo 2**64: right wherever the result
    itself is in range."""
    read = set(resolved.formula.names) | ({resolved.grad} if resolved.grad else set())
    tensors = [(np.asarray(a), t) for a, t in zip(inputs, plan.inputs, strict=True) if t.name in read]
    if resolved.wrt is not None or not any(a.dtype == np.int64 for a, t in tensors if not t.is_mask):
        return None
    env: dict[str, Any] = {}
    for name, value in attrs.items():
        if isinstance(value, str | bool):
            env[name] = value
        elif float(value).is_integer():
            env[name] = torch.tensor(int(value), dtype=torch.int64)
        elif name in read:
            return None
    for array, tensor in tensors:
        if tensor.is_mask:
            env[tensor.name] = torch.from_numpy(unpack_mask(array, shape).copy())
        elif array.dtype.kind == "i":
            env[tensor.name] = torch.from_numpy(np.broadcast_to(array.astype(np.int64), shape).copy())
        else:
            return None
    lib = {**torch_lib(torch), "const": lambda v: torch.tensor(int(v) if float(v).is_integer() else v)}
    try:
        result = evaluate(resolved.formula, env, lib)
    except (RuntimeError, TypeError):  # an op torch has no integer kernel for
        return None
    if not isinstance(result, torch.Tensor) or result.dtype != torch.int64:
        return None
    exact: Array = np.broadcast_to(result.numpy(), shape).copy()
    return exact


def _in_range(exact: Array, approximate: Array) -> Array:
    """The exact int64 result where the real one is in range (same sign as the float64 one, which is at most
    2**63 there); the float64 one saturated where it overflows."""
    with np.errstate(invalid="ignore"):
        agrees = (np.sign(exact) == np.sign(approximate)) & (np.abs(approximate) <= 2.0**63)
    return np.where(agrees, exact, saturated(approximate, np.dtype(np.int64)))


def _environment(torch: Any, resolved: ResolvedReference, plan: RenderPlan, inputs: Sequence[Array],
                 attrs: dict[str, AttrValue], shape: tuple[int, ...]) -> dict[str, Any]:
    """Every name a formula may read: attrs (a string or bool one as it is: `where` decides on it before
    computing), inputs in float64 on the broadcast shape, masks as bools."""
    env: dict[str, Any] = {name: value if isinstance(value, str | bool) else torch.tensor(value, dtype=torch.float64)
                           for name, value in attrs.items()}
    for array, tensor in zip(inputs, plan.inputs, strict=True):
        if tensor.is_mask:
            env[tensor.name] = torch.from_numpy(unpack_mask(np.asarray(array), shape).copy())
        else:
            values = np.ascontiguousarray(np.broadcast_to(np.asarray(array).astype(np.float64), shape))
            env[tensor.name] = torch.tensor(values, dtype=torch.float64, requires_grad=tensor.name == resolved.wrt)
    return env


def _gradient(torch: Any, trace: _Trace, forward: Any, wrt: Any, grad: Any) -> tuple[Any, Any, Any]:
    """grad times d forward / d wrt (with its graph, for the bound), the values to report, the undefined."""
    # torch's own backward: grad pushed through every path (a dead where branch gives 0 even for a NaN grad,
    # as torch's builtin backwards do) ...
    (pushed,) = torch.autograd.grad(forward, wrt, grad_outputs=grad, retain_graph=True, allow_unused=True)
    # ... and the derivative (elementwise: the gradient for ones) times grad, as the math says; where an
    # infinite grad meets a zero path, the first is NaN and the second right
    (slope,) = torch.autograd.grad(forward, wrt, grad_outputs=torch.ones_like(grad), create_graph=True,
                                   allow_unused=True)
    derivative = slope if slope is not None else trace.zeros()
    result = trace.rounded(derivative * grad)
    values = None if pushed is None else torch.where(pushed.isnan() & ~result.isnan(), result.detach(), pushed)
    return result, values, _flushed(derivative.detach(), grad, result.detach())


def _flushed(derivative: Any, grad: Any, result: Any) -> Any:
    """A derivative float32 cannot hold (it flushes to 0) times a grad that makes it count: 0 or the product."""
    return (derivative.abs() < COMPUTE_TINY) & (grad.isinf() | (result.abs() >= COMPUTE_TINY))


class _Trace:
    """What evaluating a formula leaves behind: each inexact step's rounding (a zero to differentiate by)
    and where a comparison was decided by less than float32 rounding."""

    def __init__(self, torch: Any, shape: tuple[int, ...]) -> None:
        self.torch, self.shape = torch, shape
        self.roundings: list[tuple[Any, Any]] = []
        self.near = torch.zeros(shape, dtype=torch.bool)

    def zeros(self) -> Any:
        return self.torch.zeros(self.shape, dtype=self.torch.float64)

    def rounded(self, value: Any) -> Any:
        delta = self.torch.zeros(self.shape, dtype=self.torch.float64, requires_grad=True)
        self.roundings.append((delta, value.detach()))
        return value + delta

    def lib(self) -> dict[str, Callable[..., Any]]:
        lib = torch_lib(self.torch)
        for name in ("gt", "ge", "lt", "le", "eq", "ne"):
            lib[name] = self._watched(lib[name])
        return lib

    def _watched(self, op: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        def compare(a: Any, b: Any) -> Any:
            a, b = a.detach(), b.detach()
            gap = (a - b).abs()
            band = COMPARISON_BAND * self.torch.maximum(a.abs(), b.abs())
            self.near = self.near | ((a != b) & gap.isfinite() & (gap <= band))
            return op(a, b)
        return compare

    def bound(self, result: Any) -> Any:
        """First order: the sum over roundings of |d result / d rounding| * |value rounded|."""
        total = self.zeros()
        if not result.requires_grad or not self.roundings:
            return total
        slopes = self.torch.autograd.grad(result.sum(), [d for d, _ in self.roundings], allow_unused=True)
        for slope, (_, value) in zip(slopes, self.roundings, strict=True):
            if slope is not None:
                total = total + self.torch.nan_to_num(slope.detach().abs() * value.abs(), nan=0.0)
        return total


def torch_lib(torch: Any) -> dict[str, Callable[..., Any]]:
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
