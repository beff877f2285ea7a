"""The order of the aclnn API's leading parameters (its inputs and scalars; the outputs always follow), so the
declaration, the example's call and the UT's INPUT(...) list agree with upstream's header."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from ...spec.models import AclnnSpec

T = TypeVar("T")


def leading_names(aclnn: AclnnSpec) -> list[str]:
    """The inputs then the scalars: the order when the spec gives none."""
    return [p.name for p in aclnn.inputs] + [s.name for s in aclnn.scalars]


def in_api_order(aclnn: AclnnSpec, leading: Sequence[T]) -> list[T]:
    """`leading` (one item per input, then per scalar) rearranged into `aclnn.order`."""
    names = leading_names(aclnn)
    if not aclnn.order:
        return list(leading)
    return [leading[names.index(name)] for name in aclnn.order]
