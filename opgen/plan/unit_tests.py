"""What the generated gtest/UT files print: shapes, cases, kernel UT setup, aclnn descriptors."""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.models import OpSpec
from .platforms import SocPlan
from .tensors import DtypeCombination, TensorPlan

UT_WORKSPACE_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class UtPlan:
    shape: tuple[int, ...]
    kernel_socs: tuple[SocPlan, ...]  # SoCs with a kernel-UT name (AddOpTestCase)
    kernel_flags: str  # -DDTYPE_<T>=<type> of the first combination
    ir_instance_num: str
    input_shape_refs: str
    output_shape_refs: str
    aclnn_include: str  # the aclnn header, relative to tests/ut/op_api
    aclnn_inputs: str
    aclnn_outputs: str
    aclnn_null_inputs: str  # the first API input replaced by nullptr
    gen_data_inputs: tuple[tuple[str, str], ...]  # (input, NumPy expression making it)
    kernel_source: str
    tiling_struct: str
    tiling_fields: tuple[tuple[str, str], ...]
    kernel_setup: tuple[str, ...]
    kernel_call: str
    workspace_bytes: int
    buffers: tuple[tuple[str, str], ...]  # (kernel argument, byte size expression)


def ut_plan(
    spec: OpSpec, layout: str, tensors: tuple[TensorPlan, ...], combos: tuple[DtypeCombination, ...],
    socs: tuple[SocPlan, ...], op_api_dir: str, aclnn_stem: str,
) -> UtPlan:
    name = spec.snake_name
    shape = spec.tests.shapes[0]
    elements = 1
    for dim in shape:
        elements *= dim
    inputs = [t for t in tensors if t.role == "input"]
    outputs = [t for t in tensors if t.role == "output"]
    api_inputs = [f"{p.name}Desc" for p in spec.aclnn.inputs]
    low, high = spec.tests.value_range
    first = combos[0]
    if layout == "arch35":
        kernel = (f"../../../op_kernel/{name}_apt.cpp", "EleBaseTilingDataV2", f"::{name}<0, {first.key.tpl}>")
        whole = ("dim0", "ubFormer", "blockFormer", "ubTailOfFormerBlock", "ubTailOfTailBlock", "elemNum")
        ones = ("coreNum", "blockNum", "ubLoopOfFormerBlock", "ubLoopOfTailBlock")
        fields = (*((f, str(elements)) for f in whole), *((f, "1") for f in ones), ("scheMode", "0"))
        setup: tuple[str, ...] = ("AscendC::SetKernelMode(KernelMode::AIV_MODE);",)
    else:
        kernel = (f"../../../op_kernel/{name}.cpp", f"{spec.op_type}TilingData", f"::{name}")
        fields = (("totalNum", str(elements)), ("blockFormer", str(elements)), ("blockTail", str(elements)),
                  ("tileDataNum", "256"))
        setup = (f"ICPU_SET_TILING_KEY({spec.platforms[0].tiling_key});",
                 "AscendC::SetKernelMode(KernelMode::AIV_MODE);")
    return UtPlan(
        shape=shape, kernel_socs=tuple(s for s in socs if s.kernel_ut_soc),
        kernel_flags=" ".join(f"-D{t.macro}={t.dtypes[0].kernel}" for t in tensors),
        ir_instance_num=", ".join("1" for _ in inputs),
        input_shape_refs=", ".join(f"&{t.camel}Shape" for t in inputs),
        output_shape_refs=", ".join(f"&{t.camel}Shape" for t in outputs),
        aclnn_include=f"../../../{op_api_dir}/{aclnn_stem}.h",
        aclnn_inputs=", ".join(api_inputs),
        aclnn_outputs=", ".join(f"{p.name}Desc" for p in spec.aclnn.outputs),
        aclnn_null_inputs=", ".join(["nullptr", *api_inputs[1:]]),
        gen_data_inputs=tuple(
            (t.name, "rng.integers(0, 256, size=(count + 7) // 8, dtype=np.uint8)" if t.is_mask
             else f"rng.uniform({low!r}, {high!r}, size=shape).astype(dtype)")
            for t in inputs
        ),
        kernel_source=kernel[0], tiling_struct=kernel[1], kernel_call=kernel[2],
        tiling_fields=fields, kernel_setup=setup, workspace_bytes=max(spec.tiling.workspace_bytes, UT_WORKSPACE_BYTES),
        buffers=tuple(
            (t.camel, f"({elements} + 7) / 8" if t.is_bits else f"{elements} * sizeof({t.dtypes[0].kernel})")
            for t in tensors
        ),
    )
