"""The reference of an op along an axis (GLU, SwiGLU and softmax grads), from the spec's formula alone.

Its outputs are not elementwise in its inputs: an element of GLU's x_grad reads y_grad at the same place of the
other half, softmax's reads a whole row. So a forward formula's gradient is torch's own vector-Jacobian product
(autograd with the incoming gradient), never a per-element derivative times it, and a direct formula is
evaluated on the tensors' own shapes. float64's rounding is bounded per inexact step relative to the result
(and per term of a sum): the elementwise reference's first-order trace needs one output element per input one.
Where float32 cannot resolve the value at all, the element is undefined (evaluate_along_axis).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..spec.formula import evaluate
from ..spec.models import OpSpec
from ..spec.reference import ResolvedReference, resolve_reference
from .references import UNIT_ROUNDOFF, Reference, torch_lib

Array = npt.NDArray[Any]
RESOLVED = 2.0**-8  # relative: float32's result is this far from float64's only where float32 cannot hold the value
UNSEEN = 2.0**-23  # absolute: a miss below float32's epsilon is under every tolerance a spec gives
Evaluated = tuple[tuple[Array, ...], Array, npt.NDArray[np.bool_]]


def axis_reference(spec: OpSpec, resolved: ResolvedReference | None = None) -> Reference | None:
    """The spec's reference when its formula works along an axis (None when the spec has no reference)."""
    resolved = resolved or resolve_reference(spec)
    if resolved is None:
        return None
    names = [t.name for t in spec.inputs]
    read = set(resolved.formula.names) | ({resolved.grad} if resolved.grad else set())
    defaults = {a.name: a.default for a in spec.attrs}

    def fn(inputs: Sequence[Array], attrs: Mapping[str, Any] | None = None) -> Evaluated:
        return evaluate_along_axis(resolved, names, inputs, {**defaults, **(attrs or {})})

    return Reference(tuple(i for i, n in enumerate(names) if n in read), fn, resolved)


def axis_lib(torch: Any) -> dict[str, Callable[..., Any]]:
    """The formula functions along an axis; the axis is the attr's value (negative from the last)."""

    def half(which: int) -> Callable[[Any, Any], Any]:
        def pick(value: Any, axis: Any) -> Any:
            dim = int(axis)
            length = value.shape[dim] // 2
            return value.narrow(dim, which * length, length)
        return pick

    return {"first_half": half(0), "second_half": half(1),
            "sum": lambda value, axis: value.sum(dim=int(axis), keepdim=True)}


def evaluate_along_axis(resolved: ResolvedReference, names: Sequence[str], inputs: Sequence[Array],
                        attrs: Mapping[str, Any]) -> Evaluated:
    """(outputs, error bound, undefined) for inputs of their own shapes (def order) and attr values. Undefined: the
    elements float32 cannot resolve, where the formula computed in float32 (as a kernel computes) misses its float64
    value by more than RESOLVED (an infinite input times a factor float32 rounds to 0, a cancelling 1 - sigmoid)."""
    import torch  # slow to import; only the numerics tier needs it

    out, roundings = _vector_jacobian(torch, torch.float64, resolved, names, inputs, attrs)
    narrow, _ = _vector_jacobian(torch, torch.float32, resolved, names, inputs, attrs)
    wide = narrow.double()  # equal infinities differ by NaN: they count as held too
    resolved_here = ((wide - out).abs() <= RESOLVED * out.abs() + UNSEEN) | (wide.isnan() & out.isnan()) | (wide == out)
    error = UNIT_ROUNDOFF * (roundings + 1) * torch.nan_to_num(out.abs(), nan=0.0)
    return (out.numpy().copy(),), error.numpy().copy(), (~resolved_here).numpy().copy()


def _vector_jacobian(torch: Any, dtype: Any, resolved: ResolvedReference, names: Sequence[str],
                     inputs: Sequence[Array], attrs: Mapping[str, Any]) -> tuple[Any, int]:
    """The formula's output in `dtype` (a forward formula: torch's vector-Jacobian product with the incoming
    gradient), and how many roundings it made (a sum's terms count each)."""
    env: dict[str, Any] = {name: value if isinstance(value, str | bool) else torch.tensor(value, dtype=dtype)
                           for name, value in attrs.items()}
    for name, array in zip(names, inputs, strict=True):
        env[name] = torch.tensor(np.asarray(array, dtype=np.float64), dtype=dtype,
                                 requires_grad=name == resolved.wrt)
    roundings = [0]

    def rounded(value: Any) -> Any:
        roundings[0] += 1
        return value

    lib: dict[str, Callable[..., Any]] = {**torch_lib(torch), **axis_lib(torch),
                                         "const": lambda v: torch.tensor(v, dtype=dtype)}
    plain_sum = lib["sum"]

    def counted_sum(value: Any, axis: Any) -> Any:
        roundings[0] += value.shape[int(axis)] - 1
        return plain_sum(value, axis)

    result = evaluate(resolved.formula, env, {**lib, "sum": counted_sum}, rounded)
    if resolved.wrt is None or resolved.grad is None:
        return result.detach(), roundings[0]
    wrt = env[resolved.wrt]
    pushed = None
    if result.requires_grad:
        (pushed,) = torch.autograd.grad(result, wrt, grad_outputs=env[resolved.grad].detach(), allow_unused=True)
    return (torch.zeros_like(wrt) if pushed is None else pushed).detach(), roundings[0]
