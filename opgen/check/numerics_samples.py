"""The samples the numerics tier draws: random data as the test kit makes it, and the edge values of each
dtype (specials, limits, subnormals), combined over the inputs the kernel reads."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt

from ..plan import RenderPlan
from ..plan.registry.tensors import DtypeCombination, TensorPlan
from ..spec.models import OpSpec
from .emulator import numpy_dtype, pack_mask

Array = npt.NDArray[Any]
RANDOM_ELEMENTS = 4096
EDGE_GRID_LIMIT = 1 << 16  # larger edge products are sampled at random instead
ST_CHECK_ELEMENTS = 1 << 16  # the golden check cuts larger ST rows (the multi-core ones) to about this size
INT_RANGE = 100  # random ints: [-100, 100], unsigned [0, 100], as the ST cases ask
_EDGE_FLOATS = (
    0.0, -0.0, np.inf, -np.inf, np.nan, 1e-3, -1e-3, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 3.0, -3.0, 5.0, -5.0,
    10.0, -10.0, 10.5, -10.5, 20.0, -20.0, 100.0, -100.0, 1e3, -1e3, 1e4, -1e4,
    1.401298464324817e-45, 1.1754942106924411e-38,  # float32 subnormals: smallest, largest
    5.960464477539063e-08, 6.097555160522461e-05,  # float16 subnormals: smallest, largest
    9.183549615799121e-41, 1.1663108012064884e-38,  # bfloat16 subnormals: smallest, largest
)


def edge_values(dtype_name: str) -> Array:
    """Specials, large and tiny values and the dtype's limits, each once, in the dtype."""
    dtype = numpy_dtype(dtype_name)
    if dtype.kind == "f" or dtype == numpy_dtype("bfloat16"):
        info = ml_dtypes.finfo(dtype)  # type: ignore[no-untyped-call]
        extra = (info.max, info.min, info.smallest_normal, -info.smallest_normal, info.smallest_subnormal)
        with np.errstate(all="ignore"):
            values = np.array(_EDGE_FLOATS + tuple(float(v) for v in extra), dtype=np.float64).astype(dtype)
    elif dtype.kind == "b":
        values = np.array([False, True])
    else:
        info_i = np.iinfo(dtype)
        candidates = (0, 1, -1, 2, -2, 7, -7, INT_RANGE, -INT_RANGE, info_i.max, info_i.min, info_i.max - 1)
        values = np.array([v for v in candidates if info_i.min <= v <= info_i.max]).astype(dtype)
    _, first = np.unique(values.view(np.dtype(f"u{dtype.itemsize}")), return_index=True)
    return values[np.sort(first)]


def input_domain(spec: OpSpec, tensor: TensorPlan) -> tuple[float, float] | None:
    """The values the spec says an input takes (`domain`), if it says."""
    return next((t.domain for t in spec.inputs if t.name == tensor.name), None)


def value_range(spec: OpSpec, tensor: TensorPlan, combo: DtypeCombination) -> tuple[float, float]:
    dtype = tensor.dtypes[combo.index]
    if tensor.is_mask or dtype.name == "bool":
        return (0, 1)
    if dtype.is_float:
        return input_domain(spec, tensor) or spec.tests.value_range
    return (0 if dtype.name.startswith("uint") else -INT_RANGE, INT_RANGE)


def random_data(t: TensorPlan, combo: DtypeCombination, shape: tuple[int, ...], bounds: tuple[float, ...],
            rng: np.random.Generator) -> Array:
    """Data as the test kit makes it: uniform in the range, the special values after (low, high) mixed in
    (every k-th element), a range (v, v) all v; masks numel/8 random bytes."""
    dtype = t.dtypes[combo.index]
    if t.is_mask:
        return rng.integers(0, 256, size=-(-int(np.prod(shape)) // 8), dtype=np.uint8)
    if dtype.is_float:
        low, high, *special = bounds
        same = low == high or (np.isnan(low) and np.isnan(high))
        with np.errstate(all="ignore"):
            values = np.full(shape, low) if same else rng.uniform(low, high, shape)
        flat = values.reshape(-1)
        for k, value in enumerate(special):
            flat[k::len(special) + 1] = value
        return values.astype(numpy_dtype(dtype.name))
    ints = rng.integers(int(bounds[0]), int(bounds[1]), size=shape, endpoint=True)
    return ints.astype(numpy_dtype(dtype.name))


def checked_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """An ST row's shape with its first dim cut so the golden check stays fast (elementwise: same math)."""
    elements = int(np.prod(shape))
    if elements <= ST_CHECK_ELEMENTS or not shape:
        return shape
    return (max(1, shape[0] * ST_CHECK_ELEMENTS // elements), *shape[1:])


def edge_inputs(plan: RenderPlan, combo: DtypeCombination, rng: np.random.Generator,
                 spec: OpSpec) -> list[Array]:
    """The product of the edge values of every input the kernel reads (mask bits 0 and 1); others random."""
    varied = {t.name: np.array([False, True]) if t.is_mask else
              within_domain(edge_values(t.dtypes[combo.index].name), input_domain(spec, t))
              for t in plan.inputs if t.read_by_kernel}
    sizes = [len(v) for v in varied.values()]
    if int(np.prod(sizes)) <= EDGE_GRID_LIMIT:
        picks = [g.reshape(-1) for g in np.meshgrid(*(np.arange(s) for s in sizes), indexing="ij")]
    else:
        picks = [rng.integers(0, s, EDGE_GRID_LIMIT) for s in sizes]
    count = -(-len(picks[0]) // 8) * 8  # whole mask bytes
    chosen = {name: values[np.resize(pick, count)]
              for (name, values), pick in zip(varied.items(), picks, strict=True)}
    inputs: list[Array] = []
    for t in plan.inputs:
        if t.name not in chosen:
            inputs.append(random_data(t, combo, (count,), value_range(spec, t, combo), rng))
        else:
            inputs.append(pack_mask(chosen[t.name]) if t.is_mask else chosen[t.name])
    return inputs


def within_domain(values: Array, domain: tuple[float, float] | None) -> Array:
    """The edge values inside the input's domain, its bounds and NaN."""
    if domain is None:
        return values
    wide = values.astype(np.float64)
    inside = values[np.isnan(wide) | ((wide >= domain[0]) & (wide <= domain[1]))]
    bounds = np.array(domain, dtype=np.float64).astype(values.dtype)
    merged = np.concatenate([inside, bounds])
    _, first = np.unique(merged.view(np.dtype(f"u{merged.dtype.itemsize}")), return_index=True)
    return merged[np.sort(first)]
