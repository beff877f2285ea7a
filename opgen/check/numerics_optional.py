"""Samples for an op whose optional input may be absent (plan.absent): both paths, each checked.

Present: the input holds what it means, the spec's `compute.absent` steps evaluated in float64 on the
sample and rounded to the input's dtype (a random tanhx would not be tanh(softplus(x)), and the reference
knows only the forward). Absent: the input is NaN to the emulator (a path that read it would show NaN) and
None to the golden.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..plan import RenderPlan
from ..plan.kernel.lowering import lower
from ..plan.registry.tensors import DtypeCombination
from ..plan.testcases.golden import golden_lines
from ..spec.models import OpSpec
from .emulator import numpy_dtype

Array = npt.NDArray[Any]


def absent_index(plan: RenderPlan) -> int | None:
    """The position of the absent-able input among the op's inputs, if the op has one."""
    if plan.absent is None:
        return None
    return [t.name for t in plan.inputs].index(plan.absent.tensor.name)


def present_inputs(spec: OpSpec, plan: RenderPlan, combo: DtypeCombination, inputs: Sequence[Array]) -> list[Array]:
    """`inputs` with the optional input replaced by its meaning (the absent steps in float64), rounded to its
    dtype."""
    index = absent_index(plan)
    if index is None or plan.absent is None:
        return list(inputs)
    result = list(inputs)
    result[index] = _meaning(spec, plan, inputs).astype(numpy_dtype(plan.absent.tensor.dtypes[combo.index].name))
    return result


def rounding_bound(spec: OpSpec, plan: RenderPlan, inputs: Sequence[Array]) -> Array:
    """How far the recipe's output moves, in float64, when the optional input is its exact meaning instead of
    the rounded value the kernel is given: error the input's dtype brings, which no kernel can undo (tanhx
    rounded to 1 in bfloat16 loses 1 - tanhx^2). It widens the present path's bound; the recipe's own
    mistakes still show."""
    index = absent_index(plan)
    assert index is not None and plan.absent is not None
    exact = list(inputs)
    exact[index] = _meaning(spec, plan, inputs)
    lines = plan.golden.variants[0].lines
    name = plan.outputs[0].name
    with np.errstate(all="ignore"):
        moved = np.abs(_run(plan, lines, exact)[name] - _run(plan, lines, inputs)[name])
    bound: Array = np.where(np.isfinite(moved), moved, 0.0)
    return bound


def _meaning(spec: OpSpec, plan: RenderPlan, inputs: Sequence[Array]) -> Array:
    assert plan.absent is not None
    name = plan.absent.tensor.name
    steps = lower(spec.compute.absent[name], "arch35" if plan.dag else "classic")
    values = _run(plan, golden_lines(steps), inputs, skip=name)
    return np.asarray(values[name])


def _run(plan: RenderPlan, lines: Sequence[str], inputs: Sequence[Array], skip: str = "") -> dict[str, Any]:
    """Golden lines in float64 on the inputs (all but `skip`), broadcast to one shape."""
    given = [(t.name, np.asarray(a)) for t, a in zip(plan.inputs, inputs, strict=True) if t.name != skip]
    shape = tuple(np.broadcast_shapes(*(a.shape for _, a in given)))
    values: dict[str, Any] = {n: np.broadcast_to(a.astype(np.float64), shape) for n, a in given}
    namespace = {"__builtins__": {}, "np": np, "math": math, "cdt": np.float64, "shape": shape}
    with np.errstate(all="ignore"):
        for line in lines:
            exec(compile(line, f"<recipe line: {line}>", "exec"), namespace, values)
    return values


def absent_marked(plan: RenderPlan, combo: DtypeCombination, inputs: Sequence[Array | None]) -> list[Array]:
    """`inputs` with the optional input all NaN: what the absent path must never read."""
    index = absent_index(plan)
    if index is None or plan.absent is None:
        return [a for a in inputs if a is not None]
    shape = tuple(np.broadcast_shapes(*(a.shape for i, a in enumerate(inputs) if i != index and a is not None)))
    dtype = numpy_dtype(plan.absent.tensor.dtypes[combo.index].name)
    return [np.full(shape, np.nan, dtype=dtype) if i == index or a is None else a for i, a in enumerate(inputs)]


def without(plan: RenderPlan, inputs: Sequence[Array]) -> list[Array | None]:
    """`inputs` with the optional input None: how the golden is called when it is absent."""
    index = absent_index(plan)
    return [None if i == index else a for i, a in enumerate(inputs)]


def row_combination(plan: RenderPlan, names: Sequence[str | None]) -> DtypeCombination:
    """The dtype combination of an ST row; an absent input (None) matches any dtype."""
    return next(c for c in plan.combinations
                if all(n is None or n == m for n, m in zip(names, c.names, strict=True)))
