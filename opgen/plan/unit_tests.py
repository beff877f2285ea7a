"""What the generated gtest/UT files print: shapes, kernel UT SoCs and flags, aclnn descriptors."""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.models import OpSpec
from .platforms import SocPlan
from .tensors import TensorPlan


@dataclass(frozen=True)
class UtPlan:
    shape: tuple[int, ...]
    elements: int
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


def ut_plan(
    spec: OpSpec, tensors: tuple[TensorPlan, ...], socs: tuple[SocPlan, ...], op_api_dir: str, aclnn_stem: str
) -> UtPlan:
    shape = spec.tests.shapes[0]
    elements = 1
    for dim in shape:
        elements *= dim
    inputs = [t for t in tensors if t.role == "input"]
    outputs = [t for t in tensors if t.role == "output"]
    api_inputs = [f"{p.name}Desc" for p in spec.aclnn.inputs]
    low, high = spec.tests.value_range
    gen = tuple(
        (t.name, "rng.integers(0, 256, size=(count + 7) // 8, dtype=np.uint8)" if t.is_mask
         else f"rng.uniform({low!r}, {high!r}, size=shape).astype(dtype)")
        for t in inputs
    )
    return UtPlan(
        shape=shape, elements=elements, kernel_socs=tuple(s for s in socs if s.kernel_ut_soc),
        kernel_flags=" ".join(f"-D{t.macro}={t.dtypes[0].kernel}" for t in tensors),
        ir_instance_num=", ".join("1" for _ in inputs),
        input_shape_refs=", ".join(f"&{t.camel}Shape" for t in inputs),
        output_shape_refs=", ".join(f"&{t.camel}Shape" for t in outputs),
        aclnn_include=f"../../../{op_api_dir}/{aclnn_stem}.h",
        aclnn_inputs=", ".join(api_inputs),
        aclnn_outputs=", ".join(f"{p.name}Desc" for p in spec.aclnn.outputs),
        aclnn_null_inputs=", ".join(["nullptr", *api_inputs[1:]]),
        gen_data_inputs=gen,
    )
