"""The numerics tier's comparison of a result with a reference, element by element in the output dtype (the rule
numerics.py states), and the ULP distance of two results; the kernel run compares with the same rule."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt

from .emulator import saturated

Array = npt.NDArray[Any]


def within_tolerance(got: Array, reference: Array, rtol: float, atol: float, *,
                     input_nan: npt.NDArray[np.bool_] | None = None,
                     bound: Array | None = None) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
    """Which elements of `got` (output dtype) pass the module's rule against `reference` (any precision,
    rounded to got's dtype here), flat, and |got - expected| (inf for a NaN/inf mismatch).

    `input_nan` marks elements whose reference inputs hold a NaN; `bound` is the reference's own error.
    """
    dtype = got.dtype
    if dtype.kind in "iu" and dtype.itemsize == 8:
        return _within_wide_integers(got, np.asarray(reference), rtol, atol)
    with np.errstate(all="ignore"):
        raw = np.asarray(reference).astype(np.float64).ravel()
        a, b = got.astype(np.float64).ravel(), rounded_to(raw, dtype)
        nan_in = np.zeros(a.size, dtype=np.bool_) if input_nan is None else input_nan.ravel()
        slack = 0.0 if bound is None else np.broadcast_to(bound, got.shape).ravel()
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        undefined = np.isnan(b) & ~nan_in
        # overflow is a rounding: a reference that overflows the dtype is judged by its float64 value,
        # an infinite result by the least value that rounds to infinity
        target = np.where(np.isinf(b) & np.isfinite(raw), raw, b)
        value = np.where(np.isinf(a) & np.isfinite(target), np.sign(a) * _overflow(dtype), a)
        diff = np.where(same, 0.0, np.nan_to_num(np.abs(value - target), nan=np.inf, posinf=np.inf))
        close = np.isfinite(target) & (diff <= atol + rtol * np.abs(target) + slack)
    return same | undefined | close, diff


def _within_wide_integers(got: Array, reference: Array, rtol: float, atol: float
                          ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
    """within_tolerance for 64-bit integers, in exact integer arithmetic: float64 holds them only to 2**53, so
    a kernel off by hundreds near 2**63 would compare equal there. A float reference is saturated first; NaN in
    it (no value is right) passes."""
    undefined = np.isnan(reference).ravel() if reference.dtype.kind == "f" else np.zeros(got.size, dtype=np.bool_)
    want = held_by(reference, got.dtype).ravel()
    diff = np.abs(got.ravel().astype(object) - want.astype(object)).astype(np.float64)
    close = diff <= atol + rtol * np.abs(want.astype(np.float64))
    return close | undefined, np.where(undefined, 0.0, diff)


def held_by(reference: Array, dtype: np.dtype[Any]) -> Array:
    """The reference as an integer `dtype` holds it: an integer one as it is, a float one rounded and
    saturated."""
    if reference.dtype.kind in "iu":
        return reference.astype(dtype)
    return saturated(reference.astype(np.float64), dtype)


def rounded_to(raw: npt.NDArray[np.float64], dtype: np.dtype[Any]) -> npt.NDArray[np.float64]:
    """The reference's values as `dtype` holds them, in float64: floats round to nearest even; integers too, and
    saturate at the type's range, as the kernel's casts do (asc-devkit precision_conversion.md); NaN stays."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        clipped: npt.NDArray[np.float64] = np.clip(np.rint(raw), info.min, info.max)
        return clipped
    return raw.astype(dtype).astype(np.float64)


def _overflow(dtype: np.dtype[Any]) -> float:
    """The smallest magnitude that rounds to infinity in `dtype` (65520 for float16)."""
    if dtype.kind in "iub":
        return float(np.iinfo(dtype).max) + 1.0 if dtype.kind != "b" else 2.0
    info = ml_dtypes.finfo(dtype)  # type: ignore[no-untyped-call]
    return float(2.0**info.maxexp * (1.0 - 2.0 ** -(info.nmant + 2)))


def ulp_distance(got: Array, expected: Array) -> npt.NDArray[np.float64]:
    """How many representable values of the (shared) dtype lie between got and expected."""
    a, b = np.asarray(got), np.asarray(expected)
    if a.dtype != b.dtype:
        raise ValueError(f"ULP distance needs one dtype, got {a.dtype} and {b.dtype}")
    if a.dtype.kind in "iub":
        steps: npt.NDArray[np.float64] = np.abs(a.astype(np.int64) - b.astype(np.int64)).astype(np.float64)
        return steps
    distance: npt.NDArray[np.float64] = np.abs(_ordered(a) - _ordered(b)).astype(np.float64)
    nan_a, nan_b = np.isnan(a.astype(np.float32)), np.isnan(b.astype(np.float32))
    distance[nan_a & nan_b] = 0.0
    distance[nan_a ^ nan_b] = np.inf
    return distance


def _ordered(values: Array) -> npt.NDArray[np.int64]:
    """Bit patterns mapped to integers that count representable values in order (+0 == -0 == 0)."""
    bits = values.itemsize * 8
    unsigned = values.view(np.dtype(f"u{values.itemsize}")).astype(np.int64)
    magnitude = unsigned & ((1 << (bits - 1)) - 1)
    result: npt.NDArray[np.int64] = np.where(unsigned >> (bits - 1) == 1, -magnitude, magnitude)
    return result
