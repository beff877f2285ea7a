"""What the generated op_host gtest files print: shapes and tiling cases (kernel and aclnn UT: their own modules)."""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.models import OpSpec
from .tensors import DtypeCombination, TensorPlan


@dataclass(frozen=True)
class TilingCase:
    name: str
    shape: str
    inputs: str  # ge::DataType of each input
    outputs: str
    expect: str  # GRAPH_SUCCESS or GRAPH_FAILED


@dataclass(frozen=True)
class UtPlan:
    shape: tuple[int, ...]
    ir_instance_num: str
    input_shape_refs: str
    output_shape_refs: str
    tiling_header: str
    compile_info_decl: str  # a UT-local compile info struct where the layout has no tiling header
    compile_info_type: str
    tiling_input_shapes: str
    tiling_output_shapes: str
    tiling_cases: tuple[TilingCase, ...]


def ut_plan(
    spec: OpSpec, layout: str, tensors: tuple[TensorPlan, ...], combos: tuple[DtypeCombination, ...],
) -> UtPlan:
    name = spec.snake_name
    shape = spec.tests.shapes[0]
    inputs = [t for t in tensors if t.role == "input"]
    outputs = [t for t in tensors if t.role == "output"]
    if layout == "arch35":
        tiling_header = f"../../../../op_host/arch35/{name}_tiling_arch35.h"
        compile_info = ("", f"optiling::{spec.op_type}CompileInfo")
    else:
        tiling_header = "register/op_impl_registry.h"
        compile_info = (f"struct {spec.op_type}UtCompileInfo {{}};", f"{spec.op_type}UtCompileInfo")
    cases = [
        TilingCase(f"tiling_{c.key.name}", ", ".join(map(str, shape)),
                   ", ".join(f"ge::{t.dtypes[c.index].ge}" for t in inputs),
                   ", ".join(f"ge::{t.dtypes[c.index].ge}" for t in outputs), "GRAPH_SUCCESS")
        for c in combos
    ]
    rule = spec.constraints.last_dim_multiple_of
    if rule:
        bad = (*shape[:-1], shape[-1] + 1)
        cases.append(TilingCase(f"tiling_last_dim_not_multiple_of_{rule.multiple}", ", ".join(map(str, bad)),
                                cases[0].inputs, cases[0].outputs, "GRAPH_FAILED"))
    return UtPlan(
        shape=shape, ir_instance_num=", ".join("1" for _ in inputs),
        input_shape_refs=", ".join(f"&{t.camel}Shape" for t in inputs),
        output_shape_refs=", ".join(f"&{t.camel}Shape" for t in outputs),
        tiling_header=tiling_header, compile_info_decl=compile_info[0], compile_info_type=compile_info[1],
        tiling_input_shapes=", ".join("&shape" for _ in inputs),
        tiling_output_shapes=", ".join("&shape" for _ in outputs),
        tiling_cases=tuple(cases),
    )
