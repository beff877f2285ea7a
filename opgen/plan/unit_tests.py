"""What the generated gtest/UT files print: shapes, cases, kernel UT setup, aclnn descriptors."""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.models import OpSpec
from .platforms import SocPlan
from .tensors import DtypeCombination, TensorPlan

UT_WORKSPACE_BYTES = 16 * 1024 * 1024


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
    kernel_socs: tuple[SocPlan, ...]  # SoCs with a kernel-UT name (AddOpTestCase)
    kernel_flags: str  # -DDTYPE_<T>=<type> of the first combination
    ir_instance_num: str
    input_shape_refs: str
    output_shape_refs: str
    gen_data_inputs: tuple[tuple[str, str], ...]  # (input, NumPy expression making it)
    tiling_header: str
    compile_info_decl: str  # a UT-local compile info struct where the layout has no tiling header
    compile_info_type: str
    tiling_input_shapes: str
    tiling_output_shapes: str
    tiling_cases: tuple[TilingCase, ...]
    kernel_source: str
    tiling_struct: str
    tiling_fields: tuple[tuple[str, str], ...]
    kernel_setup: tuple[str, ...]
    kernel_call: str
    workspace_bytes: int
    buffers: tuple[tuple[str, str], ...]  # (kernel argument, byte size expression)


def ut_plan(
    spec: OpSpec, layout: str, tensors: tuple[TensorPlan, ...], combos: tuple[DtypeCombination, ...],
    socs: tuple[SocPlan, ...],
) -> UtPlan:
    name = spec.snake_name
    shape = spec.tests.shapes[0]
    elements = 1
    for dim in shape:
        elements *= dim
    inputs = [t for t in tensors if t.role == "input"]
    outputs = [t for t in tensors if t.role == "output"]
    low, high = spec.tests.value_range
    first = combos[0]
    if layout == "arch35":
        tiling_header = f"../../../../op_host/arch35/{name}_tiling_arch35.h"
        compile_info = ("", f"optiling::{spec.op_type}CompileInfo")
        kernel = (f"../../../op_kernel/{name}_apt.cpp", "EleBaseTilingDataV2", f"::{name}<0, {first.key.tpl}>")
        whole = ("dim0", "ubFormer", "blockFormer", "ubTailOfFormerBlock", "ubTailOfTailBlock", "elemNum")
        ones = ("coreNum", "blockNum", "ubLoopOfFormerBlock", "ubLoopOfTailBlock")
        fields = (*((f, str(elements)) for f in whole), *((f, "1") for f in ones), ("scheMode", "0"))
        setup: tuple[str, ...] = ("AscendC::SetKernelMode(KernelMode::AIV_MODE);",)
    else:
        tiling_header = "register/op_impl_registry.h"
        compile_info = (f"struct {spec.op_type}UtCompileInfo {{}};", f"{spec.op_type}UtCompileInfo")
        kernel = (f"../../../op_kernel/{name}.cpp", f"{spec.op_type}TilingData", f"::{name}")
        fields = (("totalNum", str(elements)), ("blockFormer", str(elements)), ("blockTail", str(elements)),
                  ("tileDataNum", "256"))
        setup = (f"ICPU_SET_TILING_KEY({spec.platforms[0].tiling_key});",
                 "AscendC::SetKernelMode(KernelMode::AIV_MODE);")
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
        shape=shape, kernel_socs=tuple(s for s in socs if s.kernel_ut_soc),
        kernel_flags=" ".join(f"-D{t.macro}={t.dtypes[0].kernel}" for t in tensors),
        ir_instance_num=", ".join("1" for _ in inputs),
        input_shape_refs=", ".join(f"&{t.camel}Shape" for t in inputs),
        output_shape_refs=", ".join(f"&{t.camel}Shape" for t in outputs),
        gen_data_inputs=tuple(
            (t.name, "rng.integers(0, 256, size=(count + 7) // 8, dtype=np.uint8)" if t.is_mask
             else f"rng.uniform({low!r}, {high!r}, size=shape).astype(dtype)")
            for t in inputs
        ),
        tiling_header=tiling_header, compile_info_decl=compile_info[0], compile_info_type=compile_info[1],
        tiling_input_shapes=", ".join("&shape" for _ in inputs),
        tiling_output_shapes=", ".join("&shape" for _ in outputs),
        tiling_cases=tuple(cases), kernel_source=kernel[0], tiling_struct=kernel[1], kernel_call=kernel[2],
        tiling_fields=fields, kernel_setup=setup, workspace_bytes=max(spec.tiling.workspace_bytes, UT_WORKSPACE_BYTES),
        buffers=tuple(
            (t.camel, f"({elements} + 7) / 8" if t.is_bits else f"{elements} * sizeof({t.dtypes[0].kernel})")
            for t in tensors
        ),
    )
