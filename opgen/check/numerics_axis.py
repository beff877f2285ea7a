"""The samples of the numerics tier for an op split along an axis (GLU grads): every input at its own shape.

The spec's test shapes at the axis attr's default and its axis cases at theirs (a middle axis, the first), each
random in the ST value range with the special values mixed in, and each filled with the dtype's edge values (each
input rolled by a different amount, so the halves and the gradient meet different edges).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from ..plan import RenderPlan
from ..plan.registry.attrs import AttrValue
from ..plan.registry.tensors import DtypeCombination
from ..spec.models import OpSpec
from .numerics_samples import edge_values, input_domain, random_data, value_range, within_domain

Array = npt.NDArray[Any]
Sample = tuple[str, list[Array], dict[str, AttrValue], int]  # label, inputs, attr values, the axis


def axis_samples(spec: OpSpec, plan: RenderPlan, combo: DtypeCombination,
                 rng: np.random.Generator) -> Iterator[Sample]:
    split = plan.split
    assert split is not None
    defaults: dict[str, AttrValue] = {a.name: a.default for a in spec.def_attrs}
    for shape, axis in split.cases:
        shapes = split.input_shapes(plan.inputs, shape, axis)
        attrs = {**defaults, split.axis: axis}
        label = f"{'x'.join(map(str, shape))} {split.axis}={axis}"
        random = [random_data(t, combo, s, value_range(spec, t, combo), rng) for t, s in zip(plan.inputs, shapes,
                                                                                            strict=True)]
        yield f"random {label}", random, attrs, axis
        edges = []
        for k, (t, s) in enumerate(zip(plan.inputs, shapes, strict=True)):
            values = within_domain(edge_values(t.dtypes[combo.index].name), input_domain(spec, t))
            edges.append(np.resize(np.roll(values, 3 * k), s))
        yield f"edge {label}", edges, attrs, axis
