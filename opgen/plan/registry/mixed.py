"""Mixed-precision dtype combinations (upstream SiluGrad: fp16/bf16 inputs with an fp32 output).

A tensor whose dtype column equals the first output's is typed `T` in the arch35 DAG; any other column that
varies gets its own type parameter (`T` + the tensor's CamelCase name); a constant column a fixed type. A
combination whose tensors all share the key (first output) dtype keeps that dtype's TPL macro; the others
get one of their own, so combinations with equal key dtypes still select different kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...spec.dtypes import DTYPES, Dtype
from .reserved import upper_camel

MIXED_TPL_BASE = 100  # TPL codes of mixed combinations: 100 + column; ASCENDC_TPL_DTYPE_DECL holds 8 bits


@dataclass(frozen=True)
class DagTyping:
    """How one tensor is typed in the arch35 DAG."""

    dag_type: str  # "T", a type parameter "T<Name>", or a fixed C++ type
    is_param: bool


def dag_typings(columns: dict[str, tuple[str, ...]], key: tuple[str, ...]) -> dict[str, DagTyping]:
    """Per tensor name (def order), its DAG typing from the dtype columns of all tensors."""
    params: dict[tuple[str, ...], str] = {key: "T"}
    typings = {}
    for name, column in columns.items():
        if column == key:
            typings[name] = DagTyping("T", True)
        elif len(set(column)) == 1:
            typings[name] = DagTyping(DTYPES[column[0]].kernel, False)
        else:
            typings[name] = DagTyping(params.setdefault(column, f"T{upper_camel(name)}"), True)
    return typings


def is_mixed(dtypes: tuple[Dtype, ...], key: Dtype, dag_types: tuple[str, ...]) -> bool:
    """Whether a combination has a tensor of a varying column (not the output's, not fixed) off the key dtype."""
    return any(d != key for d, t in zip(dtypes, dag_types, strict=True) if t.startswith("T") and t != "T")


def combination_tpl(index: int, dtypes: tuple[Dtype, ...], key: Dtype, mixed: bool) -> tuple[str, int, str]:
    """(TPL macro, its code, label) of one combination; the label names tests and cases after it."""
    if not mixed:
        return key.tpl, key.tpl_code, key.name
    macro = "TPL_" + "_".join(d.tpl.removeprefix("TPL_") for d in dtypes)
    return macro, MIXED_TPL_BASE + index, "_".join(d.name for d in dtypes)
