"""The aclnn wrapper and l0 op of an op with mixed-precision columns (upstream aclnnSiluBackward): inputs of
different dtypes are accepted when the output has the one dtype the kernel registers for them (float32), and
the l0 op allocates its output in that dtype."""

from __future__ import annotations

from ...spec.dtypes import Dtype
from ..registry.tensors import DtypeCombination, TensorPlan


def mixed_output(data: list[TensorPlan], output: TensorPlan, combos: tuple[DtypeCombination, ...]) -> Dtype | None:
    """The output dtype of every combination whose data inputs differ; None when no combination mixes them.
    The spec check (mixed_rules) refused aclnn ops where that dtype is not one, or where same-dtype inputs give
    another output dtype."""
    mixed = {output.dtypes[c.index] for c in combos if len({t.dtypes[c.index] for t in data}) > 1}
    return next(iter(mixed)) if len(mixed) == 1 else None


def _differ(names: list[str]) -> str:
    return " || ".join(f"{names[0]}->GetDataType() != {n}->GetDataType()" for n in names[1:])


def mixed_dtype_checks(names: list[str], out: str, dtype: Dtype, ret: str) -> list[str]:
    """Inputs of different dtypes need the mixed output dtype; equal ones give an output of their dtype."""
    return [f"if ({_differ(names)}) {{", f"OP_CHECK_DTYPE_NOT_MATCH({out}, op::DataType::{dtype.ge}, {ret});",
            "} else {", f"OP_CHECK_DTYPE_NOT_SAME({names[0]}, {out}, {ret});", "}"]


def l0_output_dtype(names: list[str], dtype: Dtype) -> str:
    return f"({_differ(names)}) ? op::DataType::{dtype.ge} : {names[0]}->GetDataType()"
