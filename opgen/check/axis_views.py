"""How the output elements of an op split along an axis read its inputs (GLU grads): the element at a place of
either half of the output reads the split input at that place of both halves, and each half-shaped input at that
place of its one half. The numerics tier and the kernel run judge NaN inputs and name the worst element through
these."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]


def seen_by_output(array: Array, shape: tuple[int, ...], axis: int) -> Array:
    """The input's value at each output element: the split input as it is, a half-shaped one for either half."""
    return array if array.shape == shape else np.concatenate([array, array], axis=axis)


def read_by_output(hit: npt.NDArray[np.bool_], shape: tuple[int, ...], axis: int) -> npt.NDArray[np.bool_]:
    """Which output elements read an input element marked in `hit` (of the input's shape)."""
    if hit.shape == shape:
        first, second = np.split(hit, 2, axis=axis)
        hit = first | second
    return np.concatenate([hit, hit], axis=axis)
