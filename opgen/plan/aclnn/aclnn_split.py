"""The aclnn wrapper's shape checks of an op split along an axis, in the order upstream's aclnnGluBackward checks
them (op_api/aclnn_glu_backward.cpp): the split input has a dim, the axis is one of its dims, its length there is
even, every half-shaped tensor is the split input's shape with the axis halved, and the output is its shape."""

from __future__ import annotations

from ..kernel.split import SplitKernel


def split_shape_checks(split: SplitKernel, names: dict[str, str], axis: str, name_constant: str,
                       ret: str) -> list[str]:
    """`names`: each op tensor's API parameter; `axis`: the API parameter holding the axis attr."""
    x = names[split.split.name]
    shape = f"{x}->GetViewShape()"
    shown = f"op::ToString({shape}).GetString()"

    def refuse(condition: str, reason: str, param: str = x, value: str = shown) -> list[str]:
        return [f"if ({condition}) {{",
                f'OP_LOGE_FOR_INVALID_VALUE_WITH_REASON({name_constant}, "{param}", {value}, "{reason}");',
                f"{ret};", "}"]

    checks = [f"int64_t rank = static_cast<int64_t>({shape}.GetDimNum());"]
    checks += refuse("rank == 0", f"{x} is split along {axis}: it must have at least one dim")
    checks += refuse(f"{axis} < -rank || {axis} >= rank", f"{axis} must be in [-rank, rank - 1] of {x}", axis,
                     f"std::to_string({axis})")
    checks += [f"int64_t axis = {axis} < 0 ? {axis} + rank : {axis};"]
    checks += refuse(f"{shape}.GetDim(axis) % 2 != 0", f"the length of {x} along {axis} must be even: it is split "
                     "in halves")
    checks += [f"op::Shape halved = {shape};", "halved.SetDim(axis, halved.GetDim(axis) / 2);"]
    for tensor, param in names.items():
        if tensor == split.split.name:
            continue
        expected = x if tensor == split.joined.name else "halved"
        if expected == x:
            checks.append(f"OP_CHECK_SHAPE_NOT_EQUAL({param}, {x}, {ret});")
        else:
            checks.append(f"OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE({param}, halved, {ret});")
    return checks
