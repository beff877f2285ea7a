"""The recipe emulator: runs a variant's golden lines in NumPy with the kernel's dtypes and casts.

It executes the very `lines` of the plan (the single source of the NumPy spelling, also printed into
tests/assets/golden.py), so a wrong spelling shows up here as well as in the golden.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from types import CodeType
from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt

from ..plan import RenderPlan
from ..plan.kernel.classic import computes_in
from ..plan.registry.tensors import DtypeCombination
from ..plan.testcases.golden import GoldenVariant

Array = npt.NDArray[Any]

_NUMPY_DTYPES: dict[str, Any] = {
    "float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32,
    "int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16, "int32": np.int32,
    "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64, "bool": np.bool_,
    "uint1": np.uint8,  # packed: eight elements a byte
}


class EmulationError(RuntimeError):
    """A golden line misbehaved (wrong dtype, missing value): a bug in opgen's spelling, not in the spec."""


def numpy_dtype(name: str) -> np.dtype[Any]:
    """The NumPy dtype that holds a tensor of dtype `name` (uint1 masks are packed uint8)."""
    dtype: np.dtype[Any] = np.dtype(_NUMPY_DTYPES[name])
    return dtype


def unpack_mask(packed: Array, shape: tuple[int, ...]) -> npt.NDArray[np.bool_]:
    """One bit per element, LSB first: bit j of byte i gates element 8i+j."""
    count = int(np.prod(shape, dtype=np.int64))
    flat = np.ascontiguousarray(packed).reshape(-1).view(np.uint8)
    if flat.size * 8 < count:
        raise ValueError(f"a mask of {flat.size} bytes cannot gate {count} elements (needs {-(-count // 8)})")
    bits = np.unpackbits(flat, bitorder="little")[:count]
    return bits.astype(np.bool_).reshape(shape)


def pack_mask(bits: Array) -> npt.NDArray[np.uint8]:
    """The inverse of unpack_mask, flat: numel/8 bytes (numel is padded with zero bits to a multiple of 8)."""
    return np.packbits(np.asarray(bits, dtype=np.bool_).reshape(-1), bitorder="little")


def compute_dtype(plan: RenderPlan, combination: DtypeCombination) -> np.dtype[Any]:
    """float32 recipes compute in float32, but for the key dtypes they name native; native ones in the first
    output's dtype."""
    return numpy_dtype(computes_in(combination.key, plan.float_compute, plan.native_dtypes).name)


def emulate(
    plan: RenderPlan, variant: GoldenVariant, combination: DtypeCombination, inputs: Sequence[Array],
    attrs: Mapping[str, object] | None = None,
) -> tuple[Array, ...]:
    """Run one variant on `inputs` (def order, I/O dtypes, masks packed); the outputs in their dtypes.

    Casts as the kernel does: float32 recipes cast inputs in exactly (CAST_NONE) and outputs back with
    round-to-nearest-even (CAST_RINT); native recipes compute in the I/O dtype. `attrs`: the values of
    the attrs the recipe reads (default: their defaults), as the kernel's DAG Vars or tiling fields hold them.
    """
    if len(inputs) != len(plan.inputs):
        raise ValueError(f"{plan.op_type} takes {len(plan.inputs)} inputs, got {len(inputs)}")
    cdt = compute_dtype(plan, combination)
    defaults = {a.name: a for a in plan.attrs}
    values: dict[str, Any] = {name: (attrs or {}).get(name, defaults[name].value)
                              for name in plan.scalars.var_names}
    if plan.split is not None:  # halves along the axis: every input keeps its own shape, the axis is a number
        axis = plan.split.axis
        values[axis] = int(str((attrs or {}).get(axis, defaults[axis].value)))
        values.update((t.name, np.asarray(a).astype(cdt, copy=False)) for a, t in zip(inputs, plan.inputs, strict=True))
        return _run(plan, variant, combination, cdt, (), values)
    plain = [np.asarray(a) for a, t in zip(inputs, plan.inputs, strict=True) if not t.is_mask]
    shape = tuple(np.broadcast_shapes(*(a.shape for a in plain))) if plain else (inputs[0].size * 8,)
    for value in values.values():
        if isinstance(value, int | float) and not isinstance(value, bool):
            _checked(cdt.type)(value)  # an attr value the integer compute dtype cannot hold: say so
    for array, tensor in zip(inputs, plan.inputs, strict=True):
        if not tensor.read_by_kernel:
            continue  # as in the golden: the recipe cannot name what the kernel does not read
        if tensor.is_mask:
            values[tensor.name] = unpack_mask(np.asarray(array), shape)
        else:
            values[tensor.name] = np.broadcast_to(np.asarray(array).astype(cdt, copy=False), shape)
    return _run(plan, variant, combination, cdt, shape, values)


def _run(plan: RenderPlan, variant: GoldenVariant, combination: DtypeCombination, cdt: np.dtype[Any],
         shape: tuple[int, ...], values: dict[str, Any]) -> tuple[Array, ...]:
    """The variant's golden lines over `values` (inputs in the compute dtype, attrs), the outputs cast."""
    with np.errstate(all="ignore"):
        for line, code in _compiled(variant.lines):
            out = _target(line)
            exec(code, _namespace(cdt.type, shape), values)
            result = values.get(out)
            want = np.dtype(np.bool_) if out in variant.masks else cdt
            if not isinstance(result, np.ndarray) or result.dtype != want:
                got = result.dtype if isinstance(result, np.ndarray) else type(result).__name__
                raise EmulationError(f"golden line `{line}` gave {got}, not an array of {want}")
        return tuple(_cast_out(values, t.name, numpy_dtype(t.dtypes[combination.index].name), variant)
                     for t in plan.outputs)


def _cast_out(values: dict[str, Any], name: str, dtype: np.dtype[Any], variant: GoldenVariant) -> Array:
    if name not in values:
        raise EmulationError(f"variant {variant.name} never computes output {name!r}")
    result: Array = values[name]
    if result.dtype == dtype:
        return result
    return to_output(result, dtype)


def to_output(result: Array, dtype: np.dtype[Any]) -> Array:
    """The kernel's cast of a float result to an output dtype, as tests/assets/golden.py's `_to_output`:
    round to nearest even (CAST_RINT); an integer saturates at its range (asc-devkit
    precision_conversion.md: "overflow is handled in saturation mode"), an 8-bit one after rounding to half
    first, as the DAG casts it; NaN, which that text leaves open, gives 0."""
    if result.dtype == dtype or dtype.kind not in "iu" or result.dtype.kind != "f":
        return result.astype(dtype)  # float32 -> float16 / bfloat16 rounds to nearest even
    wide = (result.astype(np.float16) if dtype.itemsize == 1 else result).astype(np.float64)
    return saturated(wide, dtype)


def saturated(values: npt.NDArray[np.float64], dtype: np.dtype[Any]) -> Array:
    """Float64 values as an integer dtype holds them: rounded to nearest even and saturated at its range, NaN as 0.
    A 64-bit type's maximum is no float64 (it rounds up to 2**63, which a cast wraps to the minimum), so the
    saturation is decided before casting."""
    info = np.iinfo(dtype)
    whole = np.rint(np.nan_to_num(values, nan=0.0, posinf=np.inf, neginf=-np.inf))
    inside = (whole > float(info.min)) & (whole < float(info.max))
    held: Array = np.where(whole > 0, info.max, info.min).astype(dtype)
    held[inside] = whole[inside].astype(dtype)
    return held


def _namespace(cdt: Callable[[float], Any], shape: tuple[int, ...]) -> dict[str, Any]:
    """Only what the golden lines may use: np, math, cdt and shape; no builtins."""
    return {"__builtins__": {}, "np": np, "math": math, "cdt": _checked(cdt), "shape": shape}


def _checked(cdt: Callable[[float], Any]) -> Callable[[float], Any]:
    """An integer compute dtype refuses a constant it cannot hold, by name: numpy's own OverflowError would
    import inside the builtin-less namespace and surface as KeyError '__import__'."""
    kind = np.dtype(cdt)  # type: ignore[call-overload]
    if kind.kind not in "iu":
        return cdt
    info = np.iinfo(kind)

    def make(value: float) -> Any:
        if not info.min <= value <= info.max:
            raise EmulationError(f"the value {value:g} does not fit the compute dtype {kind.name} "
                                 f"({info.min}..{info.max}); give the attr a value in that range or compute in "
                                 "float32 (compute.dtype)")
        return cdt(value)

    return make


def _target(line: str) -> str:
    return line.split("=", 1)[0].strip()


@lru_cache(maxsize=64)
def _compiled(lines: tuple[str, ...]) -> tuple[tuple[str, CodeType], ...]:
    return tuple((line, compile(line, f"<golden line: {line}>", "exec")) for line in lines)
