"""Independent references the recipes are checked against; none of them reads the recipe or the plan."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]


@dataclass(frozen=True)
class Reference:
    """A reference takes the op's first `arity` inputs (def order) and returns one array per output.

    `error_bound`, given the same inputs, bounds the reference's own absolute error per element (float64
    on the broadcast shape); the check adds it to the allowed difference. None: the reference is exact.
    """

    arity: int
    fn: Callable[..., tuple[Array, ...]]
    error_bound: Callable[..., Array] | None = None


def gelu_tanh_backward(dy: Array, x: Array) -> tuple[Array]:
    """dy * d/dx gelu_tanh(x) by PyTorch CPU autograd in float64, on the broadcast shape.

    The caller rounds the float64 result to the output dtype: that is the best any kernel can return.
    """
    import torch  # slow to import; only this reference needs it

    dy64, x64 = np.broadcast_arrays(np.asarray(dy, dtype=np.float64), np.asarray(x, dtype=np.float64))
    xt = torch.tensor(np.ascontiguousarray(x64), dtype=torch.float64, requires_grad=True)
    out = torch.nn.functional.gelu(xt, approximate="tanh")
    out.backward(torch.tensor(np.ascontiguousarray(dy64), dtype=torch.float64))  # type: ignore[no-untyped-call]
    assert xt.grad is not None
    grad: Array = xt.grad.detach().numpy().copy()
    return (grad,)


def gelu_tanh_backward_error_bound(dy: Array, x: Array) -> Array:
    """How far torch's float64 result may be from dy times the exact derivative.

    torch computes dy * (0.5 * (1 + tanh(u)) + 0.5 * x * (1 - tanh(u)**2) * k * (1 + 3 * 0.044715 * x**2)).
    Besides a few float64 roundings (2**-50 relative), rounding tanh(u) near +-1 makes 1 + tanh(u) and
    1 - tanh(u)**2 absolutely wrong by up to min(2**-51, 4 * exp(-2|u|)), times a multiplier below
    1 + |x|**3. It shows only for huge |dy|: at dy = 3.4e38, x = -10 torch says 0, the true value is
    about -940.
    """
    dy64, x64 = np.broadcast_arrays(np.asarray(dy, dtype=np.float64), np.asarray(x, dtype=np.float64))
    ax = np.abs(x64)
    with np.errstate(all="ignore"):
        u = 0.7978845608028654 * (x64 + 0.044715 * x64**3)
        t = np.tanh(u)
        slope = 0.7978845608028654 * (1.0 + 0.134145 * x64**2)
        derivative = 0.5 * (1.0 + t) + 0.5 * x64 * (1.0 - t * t) * slope
        lost = np.minimum(2.0**-51, 4.0 * np.exp(-2.0 * np.abs(u))) * (1.0 + ax**3)
        lost = np.where(ax < 1e5, lost, 0.0)  # beyond, exp(-2|u|) is exactly 0: nothing is lost
        bound: Array = np.abs(dy64) * (2.0**-50 * np.abs(np.nan_to_num(derivative)) + lost)
    return bound


def mask_select(gradients: Array, packed_mask: Array) -> tuple[Array]:
    """gradients where the mask bit of the element is 1, else 0; bit i%8 of byte i//8 (LSB first)."""
    flat = np.asarray(gradients).reshape(-1)
    packed = np.asarray(packed_mask).reshape(-1).astype(np.int64)
    index = np.arange(flat.size)
    if packed.size * 8 < flat.size:
        raise ValueError(f"a mask of {packed.size} bytes cannot gate {flat.size} elements")
    bits = (packed[index // 8] >> (index % 8)) & 1
    selected = np.where(bits == 1, flat, np.zeros((), dtype=flat.dtype))
    return (selected.reshape(np.shape(gradients)),)


REFERENCES: dict[str, Reference] = {
    "gelu_tanh_backward": Reference(2, gelu_tanh_backward, gelu_tanh_backward_error_bound),
    "mask_select": Reference(2, mask_select),
}
